/*
 * What an operation does, read once at index time from its structure and its own words:
 * the action its summary's verb names (or its method's, by REST convention), whether it
 * destroys something, takes a free-text query, is about the caller, or reads a
 * collection. The search stage weighs these without going back to the spec.
 */
#include "text/lexicon.h"
#include "flow/flow.h"

#include <string.h>
#include <strings.h>

typedef struct words_ctx {
    const char *w[4];
    size_t n[4];
    size_t count;
    core_arena *arena;
} words_ctx;

/* Keeps the first few stemmed words (copied: the splitter reuses its buffer). */
static int keep_word(const char *w, size_t n, void *ctx)
{
    words_ctx *c = ctx;
    if (c->count == 4) return 1;
    const char *copy = core_arena_strndup(c->arena, w, n);
    if (!copy) return 1;
    c->w[c->count] = copy;
    c->n[c->count++] = n;
    return 0;
}

static void first_words(text_analyzer *ta, const char *s, core_arena *a, words_ctx *out)
{
    memset(out, 0, sizeof *out);
    out->arena = a;
    if (s) text_analyzer_each(ta, s, strlen(s), TEXT_TERMS_STEMS, keep_word, out);
}

/* Free-text search parameters: what a user types to find a thing by its name. */
bool flow_param_is_text_query(const char *name, const char *in)
{
    static const char *const names[] = {TEXT_LEX_TEXT_QUERY_PARAMS, NULL};
    if (!name || !in || strcmp(in, "query")) return false;
    for (const char *const *n = names; *n; n++)
        if (!strcasecmp(name, *n)) return true;
    return false;
}

int flow_op_read_facts(const spec_operation *op, text_analyzer *ta, core_arena *a,
                       flow_op_facts *out)
{
    memset(out, 0, sizeof *out);
    text_action by_method = text_action_of_method(op->method);
    /* The verb: the summary's first word, else the operationId's first ("listDroplets"),
       whichever the lexicon knows; an unknown first word of the summary is kept as the
       verb, for the search stage to learn. */
    words_ctx sw, iw;
    first_words(ta, op->summary, a, &sw);
    first_words(ta, op->operation_id, a, &iw);
    const char *cands[2] = {sw.count ? sw.w[0] : NULL, iw.count ? iw.w[0] : NULL};
    text_action action = TEXT_ACTION_NONE;
    for (int i = 0; i < 2 && action == TEXT_ACTION_NONE; i++) {
        if (!cands[i]) continue;
        action = text_action_of_stem(cands[i], strlen(cands[i]));
        if (action != TEXT_ACTION_NONE) out->verb = cands[i];
    }
    if (action == TEXT_ACTION_NONE) {
        out->verb = cands[0];
        action = by_method;
    }
    /* GET and HEAD are safe and DELETE deletes, whatever the summary's first word ("Book
       details", "Order status"); the verb decides what a POST, PUT or PATCH does (a POST
       search reads, a POST cancel deletes) */
    if (by_method == TEXT_ACTION_READ || by_method == TEXT_ACTION_DELETE) action = by_method;
    out->action = action;
    out->destructive = action == TEXT_ACTION_DELETE || by_method == TEXT_ACTION_DELETE;
    for (size_t i = 0; i < op->n_params; i++)
        if (flow_param_is_text_query(op->params[i].name, op->params[i].in)) out->text_query = true;
    out->mine = flow_path_is_mine(op->path);
    size_t pl = strlen(op->path);
    out->collection = by_method == TEXT_ACTION_READ && pl && op->path[pl - 1] != '}' &&
                      !(pl > 1 && op->path[pl - 1] == '/' && op->path[pl - 2] == '}');
    return 0;
}
