/*
 * The usage prior: endpoints callers reported using (apidex feedback, the sidecar beside
 * the index, store/usage_sidecar.c) move up a little among the candidates the words found. An
 * endpoint with u decayed uses adds usage.weight * best * u / (u + 1) to its score, best
 * being the ranking's best score: the term saturates (a thousand uses count as much as a
 * dozen) and is a share of the best, so it only reorders endpoints whose scores are that
 * close, and it never touches an endpoint the words do not match. Off at weight 0.
 */
#include "search/search_int.h"

#include <stdlib.h>

int usage_read(query_state *st)
{
    const search_engine *e = st->e;
    if (!st->q->usage || !st->q->usage->n || st->p->usage_weight <= 0) return 0;
    size_t n = e->n_ops ? e->n_ops : 1;
    st->usage = calloc(n, sizeof *st->usage);
    st->usage_bonus = calloc(n, sizeof *st->usage_bonus);
    if (!st->usage || !st->usage_bonus) return APIDEX_ENOMEM;
    core_buf shape;
    core_buf_init(&shape, 0);
    for (size_t i = 0; i < e->n_ops; i++) {
        const store_operation *op = &e->ops[i];
        store_path_shape(op->path, &shape);
        if (shape.failed) break;
        const store_usage_entry *u =
            store_usage_find(st->q->usage, op->api, op->method, shape.data);
        if (u && u->count > 0) st->usage[i] = u->count;
    }
    int rc = shape.failed ? APIDEX_ENOMEM : 0;
    core_buf_free(&shape);
    return rc;
}

void usage_weigh(query_state *st, ranking *r)
{
    const search_engine *e = st->e;
    if (!st->usage) return;
    double best = 0;
    for (size_t i = 0; i < e->n_ops; i++)
        if (r->score[i] > best) best = r->score[i];
    for (size_t i = 0; i < e->n_ops && best > 0; i++) {
        double u = st->usage[i];
        if (u <= 0 || r->score[i] <= 0) continue;
        double add = st->p->usage_weight * best * u / (u + 1.0);
        r->score[i] += add;
        if (r == &st->whole) st->usage_bonus[i] = add;
    }
}
