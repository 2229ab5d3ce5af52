/*
 * The search engine: lexical ranking, API routing, composition and the
 * adaptive answer set.
 *
 * Design
 * - Lexical: BM25F over the operation fields the store keeps (path,
 *   operationId, summary, description, parameters, response fields, tags), each
 *   with its own weight and length normalisation; terms come from the same
 *   pipeline at index and query time (identifier splitting + Snowball stems).
 *   Postings live in memory, one array per term, so a query touches only the
 *   operations that share a term with it.
 * - Typos: a long lower-case word the index has never seen is read as the index
 *   word one edit away (capitalised words are names, never corrected).
 * - Routing: a task is nearly always about one API. Each API is scored by the
 *   sum of its three best operations times (the share of the task's words it has)^0.25;
 *   operations of other APIs are damped, and
 *   the adaptive answer set keeps to the best API. A task that names an API by
 *   the distinctive word of its title goes to that API.
 * - Composition: an operation that needs an identifier the task does not give
 *   (no id-like literal in the text) gets the best producer of it placed before
 *   it. Producers come from the index's data-flow edges (structure only) and
 *   are ranked by the edge's structural score plus their own relevance to the
 *   task, so "top rated" picks the top-rated list and a bare name picks search.
 * - Adaptive answer set: the best operation, plus those within a ratio of its
 *   score (at most three, same API), closed under producers. This is what an
 *   agent wants to read and what F1 measures.
 * - Ranked lists (fixed k) are read for recall: each consumer brings its best
 *   producer not listed yet, and a list the text cannot fill is filled from the
 *   data-flow graph around what is listed.
 * - Dense and hybrid: the query is embedded with the provider the index was
 *   built with and scanned exactly against every chunk vector (SIMD inner
 *   products, top-k heap); an endpoint scores as its best chunk, as in the
 *   lexical path. Hybrid fuses the two endpoint rankings (reciprocal ranks, or a
 *   weighted sum). The fused score replaces the lexical one before routing, so
 *   routing, composition, the adaptive set and the context run unchanged.
 */
#include "search/search_int.h"

#include "chunk/dataflow.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void search_engine_close(search_engine *e)
{
    if (!e) return;
    lex_free(e);
    if (e->info)
        for (size_t i = 0; i < e->n_ops; i++) free(e->info[i].producers);
    free(e->info);
    core_arena_free(e->arena);
    pthread_mutex_destroy(&e->embed_lock);
    free(e->last_text);
    free(e->last_vec);
    free(e);
}

void search_engine_set_embedder(search_engine *eng, embed_provider *p)
{
    search_engine_share_embedder(eng, p, NULL);
}

void search_engine_share_embedder(search_engine *eng, embed_provider *p, pthread_mutex_t *lock)
{
    if (!eng) return;
    eng->embedder = p;
    eng->embed_held = lock ? lock : &eng->embed_lock;
}

int search_engine_open(store_index *idx, search_engine **out, apidex_error *err)
{
    *out = NULL;
    search_engine *e = calloc(1, sizeof *e);
    if (!e || !(e->arena = core_arena_new(0))) {
        free(e);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&e->embed_lock, NULL);
    e->embed_held = &e->embed_lock;
    e->idx = idx;
    int rc = store_operations(idx, &e->ops, &e->n_ops, err);
    if (!rc) rc = store_apis(idx, &e->apis, &e->n_apis, err);
    const store_edge *edges = NULL;
    size_t n_edges = 0;
    if (!rc) rc = store_edges(idx, &edges, &n_edges, err);
    if (rc) {
        search_engine_close(e);
        return rc;
    }
    e->info = calloc(e->n_ops ? e->n_ops : 1, sizeof *e->info);
    if (!e->info || lex_table_grow(e)) {
        search_engine_close(e);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < e->n_ops; i++) {
        const store_operation *op = &e->ops[i];
        e->info[i].api = (uint32_t)op->api_index;
        e->info[i].mine = dataflow_path_is_mine(op->path);
        static const char *const text_params[] = {"q",       "query",    "search", "term",
                                                  "keyword", "keywords", "text",   NULL};
        for (size_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k].location && !strcmp(op->inputs[k].location, "query"))
                for (const char *const *sp = text_params; *sp; sp++)
                    if (!strcasecmp(op->inputs[k].name, *sp)) e->info[i].text_query = true;
    }
    rc = lex_build(e, err);
    if (rc) {
        search_engine_close(e);
        return rc;
    }
    /* producer edges, grouped per consumer: counted, then placed */
    for (size_t pass = 0; pass < 2 && !rc; pass++) {
        for (size_t i = 0; i < n_edges; i++) {
            const store_edge *ed = &edges[i];
            if (ed->kind != STORE_EDGE_PRODUCER || ed->src_index < 0 || ed->dst_index < 0 ||
                (size_t)ed->src_index >= e->n_ops || (size_t)ed->dst_index >= e->n_ops)
                continue;
            op_info *c = &e->info[ed->src_index];
            if (pass == 0) {
                c->n_producers++;
                e->info[ed->dst_index].fan++;
            } else {
                c->producers[c->n_producers++] =
                    (producer_ref){(uint32_t)ed->dst_index, ed->score, ed->param ? ed->param : ""};
            }
        }
        for (size_t i = 0; pass == 0 && i < e->n_ops && !rc; i++) {
            op_info *c = &e->info[i];
            if (c->fan > e->max_fan) e->max_fan = c->fan;
            if (c->n_producers && !(c->producers = malloc(c->n_producers * sizeof *c->producers)))
                rc = APIDEX_ENOMEM;
            c->n_producers = 0;
        }
    }
    if (!rc) rc = route_api_names(e);
    if (!rc) rc = lex_stop_words(e);
    if (rc) {
        search_engine_close(e);
        return core_error_set(err, rc, "out of memory");
    }
    *out = e;
    return 0;
}

static bool in_list(const char *const *list, const char *s)
{
    if (!list) return true;
    for (; *list; list++)
        if (s && !strcasecmp(*list, s)) return true;
    return false;
}

static bool op_allowed(const search_engine *e, const search_query *q, size_t i)
{
    const store_operation *op = &e->ops[i];
    if (op->deprecated && !q->include_deprecated) return false;
    if (!in_list(q->apis, op->api)) return false;
    if (!in_list(q->methods, op->method)) return false;
    if (q->tags) {
        bool any = false;
        for (size_t t = 0; t < op->n_tags && !any; t++) any = in_list(q->tags, op->tags[t]);
        if (!any) return false;
    }
    return true;
}

/* Lexical (or dense, or fused) scores, then routing. */
static int score_ops(query_state *st)
{
    const search_engine *e = st->e;
    route_find_named_api(st);
    double *cover = calloc(e->n_apis ? e->n_apis : 1, sizeof *cover);
    double idf_total = 0;
    int rc = cover ? lex_score(st, cover, &idf_total) : APIDEX_ENOMEM;
    if (!rc && st->dense) dense_fuse(st);
    if (!rc) route_scores(st, cover, idf_total);
    free(cover);
    return rc;
}

int search_engine_run(search_engine *e, const search_query *q, search_result **out,
                      apidex_error *err)
{
    *out = NULL;
    if (!q || !q->text) return core_error_set(err, APIDEX_EINVAL, "empty query");
    if (q->mode != SEARCH_LEXICAL && q->mode != SEARCH_DENSE && q->mode != SEARCH_HYBRID)
        return core_error_set(err, APIDEX_EINVAL, "unknown search mode %d", (int)q->mode);
    if (q->hybrid_weight < 0 || q->hybrid_weight > 1 || q->hybrid_weight != q->hybrid_weight)
        return core_error_set(err, APIDEX_EINVAL, "the hybrid weight must be in [0, 1]");
    double t0 = core_now();
    query_state st = {.e = e, .q = q, .p = q->params ? q->params : search_params_defaults()};
    size_t n = e->n_ops ? e->n_ops : 1;
    if (q->mode != SEARCH_LEXICAL) {
        st.dense = malloc(n * sizeof *st.dense);
        st.dense_doc = calloc(n, sizeof *st.dense_doc);
        int drc = st.dense && st.dense_doc ? dense_scores(e, q->text, st.dense, st.dense_doc, err)
                                           : core_error_set(err, APIDEX_ENOMEM, "out of memory");
        if (drc) {
            free(st.dense);
            free(st.dense_doc);
            return drc;
        }
    }
    st.score = calloc(n, sizeof *st.score);
    st.raw = calloc(n, sizeof *st.raw);
    st.allowed = calloc(n, sizeof *st.allowed);
    st.best_doc = calloc(n, sizeof *st.best_doc);
    uint32_t *order = malloc(n * sizeof *order);
    search_result *res = calloc(1, sizeof *res);
    int rc = (!st.score || !st.raw || !st.allowed || !st.best_doc || !order || !res ||
              !(res->arena = core_arena_new(0)))
                 ? APIDEX_ENOMEM
                 : 0;
    if (!rc) rc = query_read(&st);
    if (!rc) {
        for (size_t i = 0; i < e->n_ops; i++) st.allowed[i] = op_allowed(e, q, i);
        rc = score_ops(&st);
    }
    if (!rc) {
        for (size_t i = 0; i < e->n_ops; i++)
            if (st.raw[i] > st.max_raw) st.max_raw = st.raw[i];
        size_t m = 0;
        for (size_t i = 0; i < e->n_ops; i++)
            if (st.allowed[i] && st.score[i] > 0) order[m++] = (uint32_t)i;
        qsort_r(order, m, sizeof *order, search_cmp_score_desc, st.score);
        size_t k = q->k ? q->k : 10;
        if (q->adaptive) {
            if (m) rc = answer_adaptive(&st, order, m); /* nothing matched: nothing to answer */
        } else {
            rc = answer_ranked(&st, order, m, k);
        }
    }
    if (!rc) {
        res->hits = core_arena_calloc(res->arena, st.n_out ? st.n_out : 1, sizeof *res->hits);
        if (!res->hits) rc = APIDEX_ENOMEM;
        for (size_t i = 0; i < st.n_out && !rc; i++) {
            const store_operation *op = &e->ops[st.out[i]];
            search_hit *h = &res->hits[i];
            h->id = op->id;
            h->api = op->api;
            h->method = op->method;
            h->path = op->path;
            h->operation_id = op->operation_id;
            h->summary = op->summary;
            h->score = st.raw[st.out[i]];
            h->role = st.role[i];
            h->why = context_explain(&st, st.out[i], res->arena);
            size_t nl = 0;
            for (size_t l = 0; l < st.n_links; l++)
                if (!strcmp(st.links[l].consumer_id, op->id)) nl++;
            if (nl) {
                h->links = core_arena_calloc(res->arena, nl, sizeof *h->links);
                if (!h->links) {
                    rc = APIDEX_ENOMEM;
                    break;
                }
                for (size_t l = 0; l < st.n_links; l++)
                    if (!strcmp(st.links[l].consumer_id, op->id))
                        h->links[h->n_links++] = st.links[l];
            }
        }
        res->n_hits = st.n_out;
        if (!rc && q->budget) rc = context_assemble(&st, res);
    }
    free(st.score);
    free(st.raw);
    free(st.allowed);
    free(st.best_doc);
    free(st.dense);
    free(st.dense_doc);
    free(st.terms);
    free(st.out);
    free(st.role);
    free(st.links);
    free(order);
    if (rc) {
        search_result_free(res);
        return core_error_set(err, rc, "out of memory");
    }
    res->elapsed_ms = (core_now() - t0) * 1000.0;
    *out = res;
    return 0;
}

void search_result_free(search_result *res)
{
    if (!res) return;
    free(res->context);
    core_arena_free(res->arena);
    free(res);
}

int search_run(store_index *idx, const search_query *q, search_result **out, apidex_error *err)
{
    search_engine *e;
    int rc = search_engine_open(idx, &e, err);
    if (rc) return rc;
    rc = search_engine_run(e, q, out, err);
    search_engine_close(e);
    return rc;
}
