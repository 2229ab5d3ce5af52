/*
 * What a reader gets besides the list: why each endpoint matched, and the context (the
 * rendered operations and the schemas they use) within a token budget.
 */
#include "search/search_int.h"

#include "text/text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The words a reader sees for the matched terms: the index holds Snowball stems ("charg",
 * "creat"), which read as typos, so each stem is mapped back to the first word of the
 * operation's own text with that stem ("charge", "create"), lower-cased as the index reads
 * it. The texts kept in memory are read (summary, operationId, path, input names, tags,
 * the API's title, description), then the task's own words, and the scan stops once every
 * term has its word; a term none of them shows stays a stem. The texts on disk (the
 * rendered operation, the chunks) are not read: reading them costs more than the search.
 */
typedef struct {
    const term_entry **terms; /* the matched terms */
    const char **word;        /* per term: its surface word (arena), or NULL */
    size_t n, left;
    text_words *stemmer; /* a second splitter: the first is busy in the scan */
    core_arena *a;
} why_words;

static int why_word(const char *w, size_t len, void *ctx)
{
    why_words *ww = ctx;
    char stem[128];
    size_t sl = text_words_first_stem(ww->stemmer, w, len, stem, sizeof stem);
    if (!sl) return 0;
    for (size_t i = 0; i < ww->n; i++)
        if (!ww->word[i] && ww->terms[i]->len == sl && !memcmp(ww->terms[i]->term, stem, sl)) {
            ww->word[i] = core_arena_strndup(ww->a, w, len);
            if (ww->word[i]) ww->left--;
        }
    return ww->left == 0;
}

static void why_scan(why_words *ww, text_words *tw, const char *s)
{
    if (ww->left && s && *s)
        text_words_split(tw, s, strlen(s), TEXT_WORDS_KEEP_IDENT, why_word, ww);
}

/* Fills ww->word for the terms: from op's own texts kept in memory, then from the task's
   words (a term its text only has in a form of another stem's word, or in a parameter's
   description or a response field, which the index keeps on disk only). */
static void why_surface(const search_engine *e, uint32_t op, const char *task, why_words *ww)
{
    text_words *tw = text_words_new();
    ww->stemmer = text_words_new();
    if (tw && ww->stemmer) {
        const store_operation *o = &e->ops[op];
        why_scan(ww, tw, image_op_summary(e, op));
        why_scan(ww, tw, o->operation_id);
        why_scan(ww, tw, o->path);
        for (size_t i = 0; i < o->n_inputs && ww->left; i++) why_scan(ww, tw, o->inputs[i].name);
        for (size_t i = 0; i < o->n_tags && ww->left; i++) why_scan(ww, tw, o->tags[i]);
        if (o->api_index < e->n_apis) why_scan(ww, tw, e->apis[o->api_index].title);
        why_scan(ww, tw, image_op_description(e, op));
        why_scan(ww, tw, task);
    }
    text_words_free(ww->stemmer);
    text_words_free(tw);
}

/* "summary(top, rated) path(book)": the query terms in the fields of op's best chunk, each
   named by the word of op's text it stems from. */
const char *context_explain(query_state *st, uint32_t op, core_arena *a)
{
    const search_engine *e = st->e;
    const ranking *r = &st->whole;
    if (r->raw[op] <= 0) return core_arena_strdup(a, "");
    uint32_t doc = r->best_doc[op];
    /* each term's postings of doc: postings come in doc order (lexical.c), so a binary
       search finds them; a frequent term has one per chunk of the index */
    size_t *at = malloc((r->n_terms ? r->n_terms : 1) * 2 * sizeof *at);
    if (!at) return NULL;
    for (size_t qi = 0; qi < r->n_terms; qi++) {
        const posting *post;
        size_t n_post = lex_postings(e, r->terms[qi].term, &post);
        size_t lo = 0, hi = n_post;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (post[mid].doc < doc)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (hi = lo; hi < n_post && post[hi].doc == doc;) hi++;
        at[2 * qi] = lo;
        at[2 * qi + 1] = hi;
    }
    /* the terms that matched in some field, and their words */
    why_words ww = {.a = a};
    ww.terms = malloc((r->n_terms ? r->n_terms : 1) * sizeof *ww.terms);
    ww.word = calloc(r->n_terms ? r->n_terms : 1, sizeof *ww.word);
    size_t *slot = malloc((r->n_terms ? r->n_terms : 1) * sizeof *slot);
    if (!ww.terms || !ww.word || !slot) {
        free(ww.terms);
        free(ww.word);
        free(slot);
        free(at);
        return NULL;
    }
    for (size_t qi = 0; qi < r->n_terms; qi++) {
        slot[qi] = SIZE_MAX;
        if (at[2 * qi] == at[2 * qi + 1]) continue;
        const term_entry *t = &e->terms[r->terms[qi].term];
        for (size_t k = 0; k < ww.n && slot[qi] == SIZE_MAX; k++)
            if (ww.terms[k] == t) slot[qi] = k;
        if (slot[qi] == SIZE_MAX) {
            slot[qi] = ww.n;
            ww.terms[ww.n++] = t;
        }
    }
    ww.left = ww.n;
    why_surface(e, op, st->q->text, &ww);
    core_buf b;
    core_buf_init(&b, 4096);
    for (int f = 0; f < STORE_FIELD_COUNT; f++) {
        size_t hits = 0;
        for (size_t qi = 0; qi < r->n_terms; qi++) {
            const term_entry *t = &e->terms[r->terms[qi].term];
            bool hit = false;
            for (size_t p = at[2 * qi]; p < at[2 * qi + 1] && !hit; p++)
                hit = t->post[p].field == f;
            if (!hit) continue;
            if (hits++ == 0)
                core_buf_printf(&b, "%s%s(", b.len ? " " : "", store_field_names[f]);
            else
                core_buf_puts(&b, ", ");
            const char *w = slot[qi] < ww.n ? ww.word[slot[qi]] : NULL;
            if (w)
                core_buf_puts(&b, w);
            else
                core_buf_append(&b, t->term, t->len);
        }
        if (hits) core_buf_putc(&b, ')');
    }
    if (st->dense && st->dense[op] > SEARCH_NO_DENSE)
        core_buf_printf(&b, "%sdense(%.3f)", b.len ? " " : "", st->dense[op]);
    if (st->usage_bonus && st->usage_bonus[op] > 0)
        core_buf_printf(&b, "%susage(+%.3f, %.2f uses)", b.len ? " " : "", st->usage_bonus[op],
                        st->usage[op]);
    free(at);
    free(ww.terms);
    free(ww.word);
    free(slot);
    const char *s = core_arena_strdup(a, b.data ? b.data : "");
    core_buf_free(&b);
    return s;
}

/* Appends piece to b when its exact cl100k count still fits the budget. */
static int context_add(core_buf *b, const char *piece, size_t budget, size_t *used)
{
    const text_bpe *bpe = text_bpe_default();
    size_t n = bpe ? text_bpe_count(bpe, piece, strlen(piece)) : strlen(piece);
    if (*used + n > budget) return 0;
    *used += n;
    return core_buf_puts(b, piece);
}

/*
 * The context an agent reads: the hits' rendered operations in call order (producers
 * labelled), then the schemas they reference, each piece kept only when its exact
 * cl100k count fits what is left of the budget. Pieces end in a blank line, so the
 * count of the whole is the sum of the pieces'.
 */
int context_assemble(query_state *st, search_result *res)
{
    const search_engine *e = st->e;
    size_t budget = st->q->budget, used = 0;
    core_buf b, piece;
    core_buf_init(&b, 64 << 20);
    core_buf_init(&piece, 64 << 20);
    const store_schema *schemas = NULL;
    size_t n_schemas = 0;
    const store_edge *edges = NULL;
    size_t n_edges = 0;
    apidex_error ignore;
    store_schemas(e->idx, &schemas, &n_schemas, &ignore);
    store_edges(e->idx, &edges, &n_edges, &ignore);
    bool *seen = calloc(n_schemas ? n_schemas : 1, sizeof *seen);
    int rc = seen ? context_add(&b, "# Endpoints\n\n", budget, &used) : APIDEX_ENOMEM;
    for (size_t i = 0; i < st->n_out && !rc; i++) {
        const store_operation *op = &e->ops[st->out[i]];
        core_buf_reset(&piece);
        core_buf_printf(&piece, "## %s %s (%s)%s\n\n", op->method, op->path, op->id,
                        st->role[i] == SEARCH_ROLE_PRODUCER ? " [producer]" : "");
        /* descriptions in the rendering may hold HTML and markdown: plain text for agents */
        const char *content = store_operation_content(e->idx, st->out[i]);
        text_plain(content, strlen(content), TEXT_PLAIN_KEEP_LINES, &piece);
        core_buf_puts(&piece, "\n\n");
        rc = piece.failed ? APIDEX_ENOMEM : context_add(&b, piece.data, budget, &used);
    }
    bool header = false;
    for (size_t i = 0; i < st->n_out && !rc; i++) {
        const store_operation *op = &e->ops[st->out[i]];
        for (size_t k = 0; k < n_edges && !rc; k++) {
            const store_edge *ed = &edges[k];
            if (ed->kind != STORE_EDGE_OP_SCHEMA || ed->src_index != (long)st->out[i] ||
                ed->dst_index < 0 || seen[ed->dst_index])
                continue;
            const store_schema *s = &schemas[ed->dst_index];
            core_buf_reset(&piece);
            core_buf_printf(&piece, "%s## %s (used by %s)\n\n", header ? "" : "# Schemas\n\n",
                            s->id, op->id);
            const char *content = store_schema_content(e->idx, (size_t)ed->dst_index);
            text_plain(content, strlen(content), TEXT_PLAIN_KEEP_LINES, &piece);
            core_buf_puts(&piece, "\n\n");
            size_t before = used;
            rc = piece.failed ? APIDEX_ENOMEM : context_add(&b, piece.data, budget, &used);
            if (used > before) {
                seen[ed->dst_index] = true;
                header = true;
            }
        }
    }
    free(seen);
    core_buf_free(&piece);
    if (rc) {
        core_buf_free(&b);
        return rc;
    }
    res->context = core_buf_steal(&b, NULL);
    res->context_tokens = used;
    return res->context ? 0 : APIDEX_ENOMEM;
}
