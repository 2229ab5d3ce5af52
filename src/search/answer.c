/*
 * The answer: the adaptive set (what the task needs, minimal) and the fixed-k ranked
 * list (read for recall), both in call order.
 */
#include "search/search_int.h"

#include <stdlib.h>
#include <string.h>

/*
 * The adaptive answer set: the best operation, then up to two more of the same API
 * scoring within adaptive_ratio of it, each closed under producers. (Also tried, on
 * RestBench and the examples: adding lower-scored operations that carry a share of the
 * task's still-unmatched terms, as a second intent; it lowered F1 from 0.463 to 0.449.)
 */
int answer_adaptive(query_state *st, const uint32_t *order, size_t m)
{
    const search_engine *e = st->e;
    double top = st->score[order[0]];
    size_t prim = 0;
    int rc = 0;
    for (size_t i = 0; i < m && prim < (size_t)st->p->adaptive_max_primaries && !rc; i++) {
        if (st->score[order[i]] < st->p->adaptive_ratio * top) break;
        if (e->info[order[i]].api != e->info[order[0]].api) continue;
        rc = compose_add(st, order[i], SEARCH_ROLE_PRIMARY, 0);
        prim++;
    }
    return rc;
}

/*
 * When the text matches fewer than k endpoints, the list is filled from the data-flow
 * graph rather than left short: each remaining endpoint scores by its links to those
 * already listed (it produces an input of one, or consumes what one produces), weighted
 * by the listed one's rank, and then by how many endpoints it feeds in all (search
 * and "current user" endpoints start most call chains). Routed API first.
 */
static int fill_from_graph(query_state *st, size_t k)
{
    const search_engine *e = st->e;
    size_t n = e->n_ops;
    double *near = calloc(n ? n : 1, sizeof *near);
    uint32_t *cand = malloc((n ? n : 1) * sizeof *cand);
    long *rank = malloc((n ? n : 1) * sizeof *rank);
    int rc = near && cand && rank ? 0 : APIDEX_ENOMEM;
    for (size_t i = 0; i < n && !rc; i++) rank[i] = -1;
    for (size_t r = 0; r < st->n_out && !rc; r++) rank[st->out[r]] = (long)r;
    for (size_t c = 0; c < n && !rc; c++) {
        const op_info *in = &e->info[c];
        for (size_t p = 0; p < in->n_producers; p++) {
            uint32_t prod = in->producers[p].producer;
            if (rank[c] >= 0) near[prod] += 1.0 / (1.0 + (double)rank[c]);
            if (rank[prod] >= 0) near[c] += 1.0 / (1.0 + (double)rank[prod]);
        }
    }
    size_t m = 0;
    double max_fan = e->max_fan > 1 ? (double)e->max_fan : 1.0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!st->allowed[i] || rank[i] >= 0) continue;
        near[i] += st->p->fill_fan_weight * (double)e->info[i].fan / max_fan +
                   (e->info[i].api == st->best_api ? 10.0 : 0.0);
        cand[m++] = (uint32_t)i;
    }
    if (!rc) qsort_r(cand, m, sizeof *cand, search_cmp_score_desc, near);
    for (size_t i = 0; i < m && st->n_out < k && !rc; i++)
        if (!compose_out_has(st, cand[i])) rc = compose_out_push(st, cand[i], SEARCH_ROLE_PRIMARY);
    free(near);
    free(cand);
    free(rank);
    return rc;
}

int search_cmp_score_desc(const void *a, const void *b, void *ctx)
{
    const double *s = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (s[x] > s[y]) return -1;
    if (s[x] < s[y]) return 1;
    return x < y ? -1 : x > y;
}

/* The fixed-k list: the ranking walked down, each operation with its producers, then
   filled from the data-flow graph when the text matched fewer than k. */
int answer_ranked(query_state *st, const uint32_t *order, size_t m, size_t k)
{
    int rc = 0;
    for (size_t i = 0; i < m && st->n_out < k && !rc; i++)
        rc = compose_add(st, order[i], SEARCH_ROLE_PRIMARY, 0);
    if (!rc && st->n_out < k) rc = fill_from_graph(st, k);
    /* producers may push the list past k: keep the first k in call order */
    if (st->n_out > k) st->n_out = k;
    return rc;
}
