/*
 * The match features of operations: the registry's, built once per engine from the
 * index (names and descriptions from the operations, parameter and response words from
 * the endpoint chunks' postings: the very terms the index holds), and a query document's,
 * made with the same pipeline (view_operation_fields, then the analyzer) so both sides
 * agree on every word.
 */
#include "search/match_int.h"

#include "view/view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct term_list {
    long *v;
    size_t n, cap;
} term_list;

static int list_push(term_list *l, long id)
{
    if (core_array_grow(&l->v, &l->cap, l->n, sizeof *l->v, 64)) return APIDEX_ENOMEM;
    l->v[l->n++] = id;
    return 0;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static double idf_of(const search_engine *e, long id)
{
    if (id < 0 || (size_t)id >= e->n_terms) {
        double n = (double)e->n_ranked;
        return log(1.0 + (n + 0.5) / 0.5);
    }
    return lex_idf(e, id);
}

void match_unknown_free(match_unknown *u)
{
    if (!u) return;
    for (size_t i = 0; i < u->n; i++) free(u->words[i]);
    free(u->words);
    memset(u, 0, sizeof *u);
}

/* The negative id of a word the index does not have (-1, -2, ... in order of first use);
   0 when out of memory. */
static long unknown_id(match_unknown *u, const char *w, size_t n)
{
    for (size_t i = 0; i < u->n; i++)
        if (strlen(u->words[i]) == n && !memcmp(u->words[i], w, n)) return -(long)i - 1;
    if (core_array_grow(&u->words, &u->cap, u->n, sizeof *u->words, 32)) return 0;
    char *c = strndup(w, n);
    if (!c) return 0;
    u->words[u->n++] = c;
    return -(long)u->n;
}

/* Adds the terms of s to l: the query's terms (lex_query_terms: stop words dropped);
   words the index lacks get unknown ids (u), or are skipped when u is NULL. */
static int add_text(const search_engine *e, text_analyzer *st, match_unknown *u, core_buf *tmp,
                    const char *s, term_list *l)
{
    if (!s || !*s) return 0;
    core_buf_reset(tmp);
    lex_query_terms(st, s, strlen(s), tmp);
    if (tmp->failed) return APIDEX_ENOMEM;
    size_t i = 0;
    while (i < tmp->len) {
        while (i < tmp->len && tmp->data[i] == ' ') i++;
        size_t start = i;
        while (i < tmp->len && tmp->data[i] != ' ') i++;
        if (i == start) break;
        const char *w = tmp->data + start;
        size_t n = i - start;
        long id = lex_term_find(e, w, n);
        if (id < 0) {
            if (!u) continue;
            if (!(id = unknown_id(u, w, n))) return APIDEX_ENOMEM;
        }
        if (list_push(l, id)) return APIDEX_ENOMEM;
    }
    return 0;
}

/* l sorted, unique, weighted, into the arena. */
static int finish(const search_engine *e, term_list *l, core_arena *a, match_term **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!l->n) return 0;
    qsort(l->v, l->n, sizeof *l->v, cmp_long);
    match_term *t = core_arena_alloc(a, l->n * sizeof *t);
    if (!t) return APIDEX_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (k && t[k - 1].id == l->v[i]) continue;
        t[k].id = l->v[i];
        t[k].w = idf_of(e, l->v[i]);
        k++;
    }
    *out = t;
    *n = k;
    l->n = 0;
    return 0;
}

/* The operationId without a leading method word ("getMovie" -> "Movie"), as the index
   strips it (view/describe.c): generated ids often start so. */
static const char *id_without_method(const char *id, const char *method)
{
    if (!id || !method) return id;
    size_t ml = strlen(method);
    if (strlen(id) > ml && !strncasecmp(id, method, ml)) {
        char next = id[ml];
        if (next == '_' || next == '-' || next == '.' || next == ' ' ||
            (next >= 'A' && next <= 'Z'))
            return id + ml;
    }
    return id;
}

/* The groups computed from an operation's own strings: LIT, NAME and DESC. */
static int common_groups(const search_engine *e, const char *method, const char *path,
                         const char *operation_id, const char *summary, const char *description,
                         text_analyzer *st, match_unknown *u, core_buf *tmp, core_buf *lit,
                         term_list *l, core_arena *a, match_feat *f)
{
    f->method = method;
    match_path_shape(path, &f->shape);
    core_buf_reset(lit);
    int rc = match_path_literals(path, lit);
    if (!rc && lit->len) {
        core_buf_putc(lit, '\0');
        if (lit->failed) rc = APIDEX_ENOMEM;
    }
    if (!rc && lit->len) rc = add_text(e, st, u, tmp, lit->data, l);
    if (!rc) rc = finish(e, l, a, &f->g[MATCH_G_LIT], &f->n[MATCH_G_LIT]);
    /* the names: the literal words again (not the version prefix, not the placeholders,
       which the parameters compare) */
    if (!rc && lit->len) rc = add_text(e, st, u, tmp, lit->data, l);
    if (!rc) rc = add_text(e, st, u, tmp, id_without_method(operation_id, method), l);
    if (!rc) rc = add_text(e, st, u, tmp, summary, l);
    if (!rc) rc = finish(e, l, a, &f->g[MATCH_G_NAME], &f->n[MATCH_G_NAME]);
    if (!rc) rc = add_text(e, st, u, tmp, description, l);
    if (!rc) rc = finish(e, l, a, &f->g[MATCH_G_DESC], &f->n[MATCH_G_DESC]);
    return rc;
}

int match_feat_query(const search_engine *e, const spec_api *api, const spec_operation *op,
                     text_analyzer *st, match_unknown *u, core_arena *a, match_feat *out)
{
    memset(out, 0, sizeof *out);
    core_buf tmp, lit;
    core_buf_init(&tmp, 0);
    core_buf_init(&lit, 0);
    term_list l = {0};
    int rc = common_groups(e, op->method, op->path, op->operation_id, op->summary, op->description,
                           st, u, &tmp, &lit, &l, a, out);
    /* The query's parameter, body and response words without the descriptions it may have
       written: the registry side is compared by the share of the query's words it has, and
       an agent's prose is not the registry's (field and schema descriptions stay). */
    spec_operation bare = *op;
    spec_param *params = op->n_params ? core_arena_alloc(a, op->n_params * sizeof *params) : NULL;
    spec_response *resp =
        op->n_responses ? core_arena_alloc(a, op->n_responses * sizeof *resp) : NULL;
    spec_body *body = op->body ? core_arena_alloc(a, sizeof *body) : NULL;
    if ((op->n_params && !params) || (op->n_responses && !resp) || (op->body && !body))
        rc = APIDEX_ENOMEM;
    for (size_t i = 0; !rc && i < op->n_params; i++) {
        params[i] = op->params[i];
        params[i].description = NULL;
    }
    for (size_t i = 0; !rc && i < op->n_responses; i++) {
        resp[i] = op->responses[i];
        resp[i].description = NULL;
    }
    if (!rc && body) {
        *body = *op->body;
        body->description = NULL;
    }
    bare.params = params;
    bare.responses = resp;
    bare.body = body;
    view_fields cf;
    if (!rc) rc = view_operation_fields(api, &bare, NULL, a, &cf);
    if (!rc) rc = add_text(e, st, u, &tmp, cf.params, &l);
    if (!rc) rc = add_text(e, st, u, &tmp, cf.body, &l);
    if (!rc) rc = finish(e, &l, a, &out->g[MATCH_G_PARAMS], &out->n[MATCH_G_PARAMS]);
    if (!rc) rc = add_text(e, st, u, &tmp, cf.response, &l);
    if (!rc) rc = finish(e, &l, a, &out->g[MATCH_G_RESP], &out->n[MATCH_G_RESP]);
    free(l.v);
    core_buf_free(&tmp);
    core_buf_free(&lit);
    return rc;
}

/* ---------------------------------------------------------------- the registry side */

void match_index_free(match_index *mi)
{
    if (!mi) return;
    core_arena_free(mi->arena);
    free(mi);
}

/* The operation an endpoint chunk describes, or -1 (schema chunks, shared chunks). */
static long endpoint_op(const search_engine *e, uint32_t doc)
{
    if (doc >= e->n_docs || e->docs[doc].n_ops != 1 || !e->docs[doc].endpoint) return -1;
    long op = e->docs[doc].ops[0];
    return op >= 0 && (size_t)op < e->n_ops ? op : -1;
}

static int group_of_field(unsigned field)
{
    if (field == STORE_FIELD_PARAMS) return MATCH_G_PARAMS;
    if (field == STORE_FIELD_RESPONSES) return MATCH_G_RESP;
    return -1;
}

/* Parameter and response terms per operation, from the postings of the endpoint chunks
   (two passes: count, then fill; terms come in id order, so each list is sorted). */
static int posting_groups(const search_engine *e, match_index *mi)
{
    size_t *cnt = calloc(e->n_ops * 2 + 1, sizeof *cnt);
    if (!cnt) return APIDEX_ENOMEM;
    for (size_t t = 0; t < e->n_terms; t++) {
        const posting *post;
        size_t n_post = lex_postings(e, (long)t, &post);
        for (size_t p = 0; p < n_post; p++) {
            const posting *ps = &post[p];
            int g = group_of_field(ps->field);
            long op = g < 0 ? -1 : endpoint_op(e, ps->doc);
            if (op >= 0) cnt[(size_t)op * 2 + (g == MATCH_G_RESP)]++;
        }
    }
    for (size_t i = 0; i < e->n_ops; i++)
        for (int k = 0; k < 2; k++) {
            size_t c = cnt[i * 2 + (size_t)k];
            if (!c) continue;
            int g = k ? MATCH_G_RESP : MATCH_G_PARAMS;
            mi->ops[i].g[g] = core_arena_alloc(mi->arena, c * sizeof(match_term));
            if (!mi->ops[i].g[g]) {
                free(cnt);
                return APIDEX_ENOMEM;
            }
        }
    free(cnt);
    for (size_t t = 0; t < e->n_terms; t++) {
        const term_entry *te = &e->terms[t];
        if (text_term_is_stop(te->term, te->len)) continue;
        double w = lex_idf(e, (long)t);
        const posting *post;
        size_t n_post = lex_postings(e, (long)t, &post);
        for (size_t p = 0; p < n_post; p++) {
            int g = group_of_field(post[p].field);
            long op = g < 0 ? -1 : endpoint_op(e, post[p].doc);
            if (op < 0) continue;
            match_feat *f = &mi->ops[op];
            size_t n = f->n[g];
            if (n && f->g[g][n - 1].id == (long)t) continue;
            f->g[g][n].id = (long)t;
            f->g[g][n].w = w;
            f->n[g] = n + 1;
        }
    }
    return 0;
}

static int build_index(search_engine *e, match_index **out, apidex_error *err)
{
    match_index *mi = calloc(1, sizeof *mi);
    text_analyzer *st = text_analyzer_new();
    core_buf tmp, lit;
    core_buf_init(&tmp, 0);
    core_buf_init(&lit, 0);
    term_list l = {0};
    int rc = mi && st && (mi->arena = core_arena_new(0)) ? 0 : APIDEX_ENOMEM;
    if (!rc) {
        mi->n_ops = e->n_ops;
        mi->ops = core_arena_calloc(mi->arena, e->n_ops ? e->n_ops : 1, sizeof *mi->ops);
        if (!mi->ops) rc = APIDEX_ENOMEM;
    }
    image_op_texts_all(e); /* every summary and description: one read of the rows */
    for (size_t i = 0; !rc && i < e->n_ops; i++) {
        const store_operation *op = &e->ops[i];
        rc = common_groups(e, op->method, op->path, op->operation_id, image_op_summary(e, i),
                           image_op_description(e, i), st, NULL, &tmp, &lit, &l, mi->arena,
                           &mi->ops[i]);
    }
    if (!rc) rc = posting_groups(e, mi);
    free(l.v);
    core_buf_free(&tmp);
    core_buf_free(&lit);
    text_analyzer_free(st);
    if (rc) {
        match_index_free(mi);
        return core_error_set(err, rc, "out of memory building the match features");
    }
    *out = mi;
    return 0;
}

int match_index_get(search_engine *e, const match_index **out, apidex_error *err)
{
    pthread_mutex_lock(&e->match_lock);
    int rc = 0;
    if (!e->match) rc = build_index(e, &e->match, err);
    *out = e->match;
    pthread_mutex_unlock(&e->match_lock);
    return rc;
}
