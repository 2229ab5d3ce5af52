/*
 * Data flow analysis: which operation produces the identifiers another needs.
 *
 * Inputs. Every path parameter is an input (REST: "/collection/{key}" addresses one item
 * of the collection), except one with an enum or a non-scalar type (a value from a fixed
 * set, not an identifier). Its entity is the literal segment before it when the name is a
 * bare key ("id", "sid", "slug", ...), names that segment ("subscription_exposed_id" after
 * "/subscriptions"), or is no identifier name at all ("/users/{username}"); else the last
 * word of the name without its identifier suffix ("/users/{user_id}/orders": user).
 * Required query and body parameters are inputs when their names are identifiers
 * ("invoice_id", "ids") or name an entity the API returns objects of ("channel").
 *
 * Outputs. An operation produces entity E when its 2xx response holds an object with an
 * identifier property (id, uuid, sid, guid) whose nearest naming context is E: the
 * schema names and property keys on the way to it, read innermost first, stopping at the
 * nearest enclosing object that has an identifier of its own. The first context word that
 * is an entity of the API's paths wins ("ShortAlbumRecord": album); else the object's
 * shape (the entity whose canonical object, what "GET /things/{thing_id}" returns, holds
 * most of its property names); else, for the response's own object, the operation's path
 * words; else the innermost word that is not a container ("items", "data", "results",
 * "page": general JSON and REST envelope words). How it is held is the kind: the response
 * object itself (returns), items of a list (lists), inside another entity (nested), or a
 * "<entity>_id" property (refers).
 *
 * Edges. For each input, the operations producing its entity, ranked by structure
 * (flow_score): a producer must read, list or search the entity, or create it (marked:
 * it serves only when the task creates the thing too); it is never destructive, never an
 * update, and never needs the same entity itself. The best FLOW_MAX_PRODUCERS per input
 * are kept, so edges grow linearly with the API (an API of 20,000 operations gets a few
 * per input, not one per pair). Words are compared after identifier splitting and Snowball
 * stemming ("orders", "Order" and "order_id" meet at "order"). Nothing here knows any API.
 */
#include "flow/flow_int.h"
#include "text/lexicon.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

long flow_sset_find(const str_set *s, const char *w)
{
    if (!s->cap || !w) return -1;
    size_t h = (size_t)core_hash64(w, strlen(w)) & (s->cap - 1);
    while (s->slot[h]) {
        if (!strcmp(s->items[s->slot[h] - 1], w)) return (long)s->slot[h] - 1;
        h = (h + 1) & (s->cap - 1);
    }
    return -1;
}

bool flow_sset_has(const str_set *s, const char *w)
{
    return flow_sset_find(s, w) >= 0;
}

/* Adds w (copied); returns its index, or -1 when out of memory. */
long flow_sset_add(str_set *s, const char *w)
{
    long found = flow_sset_find(s, w);
    if (found >= 0) return found;
    if ((s->n + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        uint32_t *slot = calloc(nc, sizeof *slot);
        if (!slot) return -1;
        for (size_t i = 0; i < s->n; i++) {
            size_t h = (size_t)core_hash64(s->items[i], strlen(s->items[i])) & (nc - 1);
            while (slot[h]) h = (h + 1) & (nc - 1);
            slot[h] = (uint32_t)i + 1;
        }
        free(s->slot);
        s->slot = slot;
        s->cap = nc;
    }
    if (core_array_grow(&s->items, &s->cap_items, s->n, sizeof *s->items, 64)) return -1;
    const char *copy = core_arena_strdup(s->arena, w);
    if (!copy) return -1;
    size_t h = (size_t)core_hash64(w, strlen(w)) & (s->cap - 1);
    while (s->slot[h]) h = (h + 1) & (s->cap - 1);
    s->items[s->n] = copy;
    s->slot[h] = (uint32_t)s->n + 1;
    return (long)s->n++;
}

void flow_sset_free(str_set *s)
{
    free(s->items);
    free(s->slot);
}

/* The one stored copy of w[0..n) (NULL when out of memory). */
static const char *word_intern(flow_ctx *d, const char *w, size_t n)
{
    char small[128];
    char *key = n < sizeof small ? small : malloc(n + 1);
    if (!key) return NULL;
    memcpy(key, w, n);
    key[n] = '\0';
    long k = flow_sset_add(&d->words, key);
    if (key != small) free(key);
    return k >= 0 ? d->words.items[k] : NULL;
}

static void set_add(word_set *s, flow_ctx *d, const char *w, size_t n)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->w[i]) == n && memcmp(s->w[i], w, n) == 0) return;
    if (s->n < FLOW_MAX_WORDS) {
        const char *c = word_intern(d, w, n);
        if (c) s->w[s->n++] = c;
    }
}

bool flow_set_has(const word_set *s, const char *w)
{
    for (size_t i = 0; w && i < s->n; i++)
        if (!strcmp(s->w[i], w)) return true;
    return false;
}

typedef struct collect_ctx {
    word_set *set;
    flow_ctx *d;
} collect_ctx;

static int collect_word(const char *w, size_t n, void *ctx)
{
    collect_ctx *c = ctx;
    set_add(c->set, c->d, w, n);
    return 0;
}

/* Adds the stemmed words of s to set. */
void flow_add_words(flow_ctx *d, word_set *set, const char *s)
{
    if (!s) return;
    collect_ctx c = {set, d};
    text_analyzer_each(d->ta, s, strlen(s), TEXT_TERMS_STEMS, collect_word, &c);
}

/* Words that name containers in JSON and REST responses, or the kind of a generated
   schema ("ProductInterface", "OrderDto"), not entities: unless the API has them as
   entities of its own paths. */
static void envelope_words(flow_ctx *d)
{
    static const char *const words[] = {TEXT_LEX_ENVELOPE_WORDS, NULL};
    for (const char *const *w = words; *w; w++) flow_add_words(d, &d->envelope, *w);
}

/* Length of an identifier suffix (id, ids, key, sid, uuid with a separator or in camel
   case), 0 if none. */
size_t flow_id_suffix(const char *name)
{
    size_t n = strlen(name);
    static const char *const sfx[] = {"_ids",  "-ids", "Ids",  "IDs",   "_id",  "-id",
                                      "Id",    "ID",   "_key", "Key",   "_sid", "Sid",
                                      "_uuid", "Uuid", "UUID", "_guid", "Guid", NULL};
    for (const char *const *s = sfx; *s; s++) {
        size_t k = strlen(*s);
        if (n > k && !strcmp(name + n - k, *s)) return k;
    }
    return 0;
}

/* A name that is a key and nothing else. */
bool flow_bare_id(const char *name)
{
    static const char *const bare[] = {TEXT_LEX_BARE_IDS, NULL};
    for (const char *const *b = bare; *b; b++)
        if (!strcasecmp(name, *b)) return true;
    return false;
}

/* Is a property name an object's own identifier? */
bool flow_own_id_key(const char *key)
{
    return !strcasecmp(key, "id") || !strcasecmp(key, "uuid") || !strcasecmp(key, "sid") ||
           !strcasecmp(key, "guid");
}

/* Last stemmed word of s[0..n), or NULL. */
const char *flow_last_word(flow_ctx *d, const char *s, size_t n)
{
    word_set tmp = {.n = 0};
    char *copy = strndup(s, n); /* only read here: the words kept are interned */
    if (!copy) return NULL;
    flow_add_words(d, &tmp, copy);
    free(copy);
    return tmp.n ? tmp.w[tmp.n - 1] : NULL;
}

bool flow_path_is_mine(const char *path)
{
    static const char *const words[] = {TEXT_LEX_PATH_MINE, NULL};
    for (const char *p = path; p && *p;) {
        while (*p == '/') p++;
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        for (const char *const *w = words; *w; w++)
            if (n == strlen(*w) && !strncasecmp(p, *w, n)) return true;
        p = end;
    }
    return false;
}

/* Literal words of a path (placeholders skipped). */
void flow_path_words(flow_ctx *d, const char *path, word_set *out)
{
    out->n = 0;
    for (const char *q = path; *q;) {
        if (*q == '{') {
            const char *e = strchr(q, '}');
            q = e ? e + 1 : q + strlen(q);
            continue;
        }
        const char *e = q;
        while (*e && *e != '{') e++;
        char *seg = core_arena_strndup(d->arena, q, (size_t)(e - q));
        if (seg) flow_add_words(d, out, seg);
        q = e;
    }
}

int flow_build(const spec_api *api, flow_graph **out, apidex_error *err)
{
    *out = NULL;
    flow_graph *df = calloc(1, sizeof *df);
    core_arena *a = core_arena_new(0);
    text_analyzer *ta = text_analyzer_new();
    if (!df || !a || !ta) {
        free(df);
        core_arena_free(a);
        text_analyzer_free(ta);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    df->arena = a;
    size_t n = api->n_ops;
    df->n_ops = n;
    df->inputs = core_arena_calloc(a, n ? n : 1, sizeof *df->inputs);
    df->n_inputs = core_arena_calloc(a, n ? n : 1, sizeof *df->n_inputs);
    df->outputs = core_arena_calloc(a, n ? n : 1, sizeof *df->outputs);
    df->n_outputs = core_arena_calloc(a, n ? n : 1, sizeof *df->n_outputs);
    output_set *outs = calloc(n ? n : 1, sizeof *outs);
    flow_op_facts *facts = calloc(n ? n : 1, sizeof *facts);
    int rc = (!df->inputs || !df->n_inputs || !df->outputs || !df->n_outputs || !outs || !facts)
                 ? APIDEX_ENOMEM
                 : 0;
    flow_ctx d = {.api = api, .arena = a, .ta = ta};
    d.vocab.arena = a;
    d.words.arena = a;
    envelope_words(&d);
    for (size_t i = 0; i < n && !rc; i++) {
        const spec_operation *op = &api->ops[i];
        df->inputs[i] =
            core_arena_calloc(a, op->n_params + 2 * FLOW_MAX_BODY_INPUTS + 1, sizeof(flow_input));
        if (!df->inputs[i] || flow_op_read_facts(op, ta, a, &facts[i])) rc = APIDEX_ENOMEM;
    }
    if (!rc) flow_find_inputs(&d, df);
    if (!rc) flow_refine_query_ids(&d, df);
    if (!rc) rc = flow_collect_shapes(&d, df);
    str_set produced = {.arena = a};
    for (size_t i = 0; i < n && !rc; i++) {
        const spec_operation *op = &api->ops[i];
        d.out = &outs[i];
        d.visits = 0;
        flow_path_words(&d, op->path, &d.path_words);
        {
            size_t pl = strlen(op->path);
            while (pl && op->path[pl - 1] == '/') pl--;
            d.sub_resource = pl && op->path[pl - 1] != '}' && strchr(op->path, '{');
        }
        for (size_t r = 0; r < op->n_responses; r++) {
            const spec_response *resp = &op->responses[r];
            if (resp->status[0] != '2') continue;
            for (size_t m = 0; m < resp->n_media; m++) {
                ctx_words c = {.n = 0};
                flow_walk_schema(&d, resp->media[m].schema, c, 0, false, false, true, 0);
            }
        }
        df->outputs[i] = core_arena_calloc(a, outs[i].n ? outs[i].n : 1, sizeof(char *));
        if (!df->outputs[i]) {
            rc = APIDEX_ENOMEM;
            break;
        }
        for (size_t k = 0; k < outs[i].n; k++) {
            df->outputs[i][k] = outs[i].o[k].entity;
            if (outs[i].o[k].kind <= FLOW_KIND_LISTS)
                if (flow_sset_add(&produced, outs[i].o[k].entity) < 0) rc = APIDEX_ENOMEM;
        }
        df->n_outputs[i] = outs[i].n;
    }
    if (!rc) flow_find_entity_named_inputs(&d, df, &produced);
    if (!rc) rc = flow_build_edges(&d, df, outs, facts);
    free(outs);
    free(facts);
    free(d.shapes);
    flow_sset_free(&produced);
    flow_sset_free(&d.vocab);
    flow_sset_free(&d.words);
    text_analyzer_free(ta);
    if (rc) {
        flow_free(df);
        return core_error_set(err, rc, "out of memory");
    }
    *out = df;
    return 0;
}

void flow_free(flow_graph *df)
{
    if (!df) return;
    free(df->edges);
    core_arena_free(df->arena);
    free(df);
}
