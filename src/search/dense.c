/*
 * Dense and hybrid scores: the query embedded by the provider the index was built with,
 * scanned exactly against every chunk vector; an endpoint scores as its best chunk.
 * Hybrid fuses the lexical and dense endpoint rankings.
 */
#include "search/search_int.h"

#include <stdlib.h>
#include <string.h>

/* The signature part the index build added for its vectors ("+embed=FP"), or NULL. */
static const char *index_embed_fingerprint(search_engine *e)
{
    store_info info;
    apidex_error ignore;
    if (store_index_info(e->idx, &info, &ignore) != 0 || !info.strategy) return NULL;
    const char *p = strstr(info.strategy, "+embed=");
    return p ? p + 7 : NULL;
}

/* Embeds the query and scores every endpoint by its best chunk's cosine. dense and
   dense_doc (n_ops each) are filled; SEARCH_NO_DENSE where an endpoint has no vector. */
int dense_scores(search_engine *e, const char *text, double *dense, uint32_t *dense_doc,
                 apidex_error *err)
{
    static const char how[] = "build them with `apidex index SPECS... --model M` (or --embed-url "
                              "URL), using the same model for search";
    if (!e->embedder)
        return core_error_set(err, APIDEX_EUNSUPPORTED,
                              "dense and hybrid search need an embedding model: give --model M "
                              "or --embed-url URL (the one the index was built with)");
    const char *fp = index_embed_fingerprint(e);
    const char *model = embed_provider_model_id(e->embedder);
    if (!fp) return core_error_set(err, APIDEX_EUNSUPPORTED, "the index has no vectors: %s", how);
    if (strcmp(fp, e->embedder->fingerprint))
        return core_error_set(err, APIDEX_EUNSUPPORTED,
                              "the index's vectors were made by %s, this search embeds with %s: "
                              "search with that model, or re-index with this one (apidex index "
                              "SPECS... --model %s)",
                              fp, e->embedder->fingerprint, model);
    const store_vectors *v = NULL;
    int rc = store_vectors_load(e->idx, model, &v, err);
    if (rc) return rc;
    if (!v || v->n == 0)
        return core_error_set(err, APIDEX_EUNSUPPORTED, "the index has no vectors of model %s: %s",
                              model, how);
    float *qv = malloc(v->dim * sizeof *qv);
    embed_hit *hits = malloc(v->n * sizeof *hits);
    if (!qv || !hits) {
        free(qv);
        free(hits);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    size_t dim = 0;
    pthread_mutex_lock(e->embed_held);
    rc = embed_provider_dim(e->embedder, &dim, err);
    if (!rc && dim != v->dim)
        rc = core_error_set(err, APIDEX_EUNSUPPORTED,
                            "the index's vectors of %s have %zu dimensions, the model gives %zu: "
                            "re-index with it",
                            model, v->dim, dim);
    const char *texts[1] = {text};
    if (!rc && e->last_text && e->last_dim == dim && !strcmp(e->last_text, text)) {
        memcpy(qv, e->last_vec, dim * sizeof *qv);
    } else if (!rc) {
        rc = embed_provider_embed(e->embedder, texts, 1, true, qv, err);
        char *t = rc ? NULL : strdup(text);
        float *cv = t ? malloc(dim * sizeof *cv) : NULL;
        if (cv) { /* no cache when out of memory: only slower */
            memcpy(cv, qv, dim * sizeof *cv);
            free(e->last_text);
            free(e->last_vec);
            e->last_text = t;
            e->last_vec = cv;
            e->last_dim = dim;
        } else {
            free(t);
        }
    }
    pthread_mutex_unlock(e->embed_held);
    if (!rc) {
        embed_l2_normalize(qv, v->dim);
        /* Every chunk: an endpoint's score is its best chunk, and composition wants the
           relevance of producers far down the list too. */
        size_t n = embed_vecscan_topk(v->data, v->n, v->dim, qv, v->n, NULL, hits);
        for (size_t i = 0; i < e->n_ops; i++) dense[i] = SEARCH_NO_DENSE;
        for (size_t h = 0; h < n; h++) { /* best first: the first hit of an op is its max */
            size_t d = v->rows[hits[h].row];
            if (d >= e->n_docs) continue;
            for (size_t k = 0; k < e->docs[d].n_ops; k++) {
                long op = e->docs[d].ops[k];
                if (op < 0 || (size_t)op >= e->n_ops || dense[op] > SEARCH_NO_DENSE) continue;
                dense[op] = hits[h].score;
                dense_doc[op] = (uint32_t)d;
            }
        }
    }
    free(qv);
    free(hits);
    return rc;
}

/* Replaces the lexical raw scores with the dense or fused ones (filters apply first:
   ranks count only the endpoints the query allows). */
void dense_fuse(query_state *st, ranking *rk)
{
    const search_engine *e = st->e;
    const search_query *q = st->q;
    if (q->mode == SEARCH_DENSE) {
        for (size_t i = 0; i < e->n_ops; i++) {
            rk->raw[i] = st->dense[i] > 0 ? st->dense[i] : 0;
            if (rk->raw[i] > 0) rk->best_doc[i] = st->dense_doc[i];
        }
        return;
    }
    double max_lex = 0;
    for (size_t i = 0; i < e->n_ops; i++)
        if (st->allowed[i] && rk->raw[i] > max_lex) max_lex = rk->raw[i];
    if (q->hybrid_weight > 0) {
        double w = q->hybrid_weight > 1 ? 1 : q->hybrid_weight;
        for (size_t i = 0; i < e->n_ops; i++) {
            double lex = max_lex > 0 ? rk->raw[i] / max_lex : 0;
            double cos = st->dense[i] > 0 ? st->dense[i] : 0;
            if (rk->raw[i] <= 0 && cos > 0) rk->best_doc[i] = st->dense_doc[i];
            rk->raw[i] = w * lex + (1 - w) * cos;
        }
        return;
    }
    /* Reciprocal-rank fusion: each list adds 1 / (k + rank), rank from 1. */
    uint32_t *order = malloc((e->n_ops ? e->n_ops : 1) * sizeof *order);
    double *fused = calloc(e->n_ops ? e->n_ops : 1, sizeof *fused);
    if (!order || !fused) {
        free(order);
        free(fused);
        return; /* out of memory: keep the lexical scores */
    }
    for (int list = 0; list < 2; list++) {
        double *s = list == 0 ? rk->raw : st->dense;
        size_t m = 0;
        for (size_t i = 0; i < e->n_ops; i++)
            if (st->allowed[i] && (list == 0 ? s[i] > 0 : s[i] > SEARCH_NO_DENSE))
                order[m++] = (uint32_t)i;
        qsort_r(order, m, sizeof *order, search_cmp_score_desc, s);
        for (size_t r = 0; r < m; r++) fused[order[r]] += 1.0 / (st->p->rrf_k + (double)(r + 1));
    }
    for (size_t i = 0; i < e->n_ops; i++) {
        if (rk->raw[i] <= 0 && fused[i] > 0) rk->best_doc[i] = st->dense_doc[i];
        rk->raw[i] = fused[i];
    }
    free(order);
    free(fused);
}
