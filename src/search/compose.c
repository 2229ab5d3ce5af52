/*
 * Composition: an operation that needs an identifier the task does not give gets the
 * best producer of it placed before it, recursively; links say which input each
 * producer serves ("needs movie_id <- GET /search/movie").
 */
#include "search/search_int.h"

#include <stdlib.h>
#include <string.h>

bool compose_out_has(const query_state *st, uint32_t op)
{
    for (size_t i = 0; i < st->n_out; i++)
        if (st->out[i] == op) return true;
    return false;
}

int compose_out_push(query_state *st, uint32_t op, search_role role)
{
    if (st->n_out == st->cap_out) {
        size_t cap = st->cap_out ? st->cap_out * 2 : 32;
        uint32_t *o = realloc(st->out, cap * sizeof *o);
        if (!o) return APIDEX_ENOMEM;
        st->out = o;
        search_role *r = realloc(st->role, cap * sizeof *r);
        if (!r) return APIDEX_ENOMEM;
        st->role = r;
        st->cap_out = cap;
    }
    st->out[st->n_out] = op;
    st->role[st->n_out++] = role;
    return 0;
}

static int link_push(query_state *st, const char *param, uint32_t producer, uint32_t consumer)
{
    if (st->n_links == st->cap_links) {
        size_t cap = st->cap_links ? st->cap_links * 2 : 16;
        search_link *l = realloc(st->links, cap * sizeof *l);
        if (!l) return APIDEX_ENOMEM;
        st->links = l;
        st->cap_links = cap;
    }
    st->links[st->n_links++] =
        (search_link){param, st->e->ops[producer].id, st->e->ops[consumer].id};
    return 0;
}

/* Adds op with, before it, the best producer of each input it needs. */
int compose_add(query_state *st, uint32_t op, search_role role, unsigned depth)
{
    const search_engine *e = st->e;
    if (compose_out_has(st, op)) return 0;
    const op_info *in = &e->info[op];
    double max_raw = st->max_raw > 0 ? st->max_raw : 1;
    for (size_t p = 0;
         p < in->n_producers && depth < (unsigned)st->p->producer_depth && !st->literal_id; p++) {
        const char *param = in->producers[p].param;
        /* one producer per input: handle each param once, at its first edge */
        bool seen = false;
        for (size_t k = 0; k < p && !seen; k++) seen = !strcmp(in->producers[k].param, param);
        if (seen) continue;
        /* The adaptive answer is minimal: a producer already listed serves. A ranked list
           is read for recall: each consumer brings its best producer not listed yet, so
           the alternatives (search by name, the popular list, the current user) show. */
        long best = -1, best_listed = -1;
        double best_s = -1e9, listed_s = -1e9;
        for (size_t k = p; k < in->n_producers; k++) {
            if (strcmp(in->producers[k].param, param)) continue;
            uint32_t cand = in->producers[k].producer;
            if (!st->allowed[cand]) continue;
            double s = in->producers[k].score + st->p->producer_relevance * st->raw[cand] / max_raw;
            if (st->names_things && e->info[cand].text_query) s += st->p->producer_search_bonus;
            if (st->mine && e->info[cand].mine) s += st->p->producer_mine_bonus;
            if (compose_out_has(st, cand)) {
                if (s > listed_s) {
                    listed_s = s;
                    best_listed = cand;
                }
            } else if (s > best_s) {
                best_s = s;
                best = cand;
            }
        }
        if (best_listed >= 0 && (st->q->adaptive || best < 0)) {
            /* served by one already listed: say which */
            int rc = link_push(st, param, (uint32_t)best_listed, op);
            if (rc) return rc;
            continue;
        }
        if (best < 0) continue;
        int rc = compose_add(st, (uint32_t)best, SEARCH_ROLE_PRODUCER, depth + 1);
        if (rc) return rc;
        if ((rc = link_push(st, param, (uint32_t)best, op))) return rc;
    }
    if (compose_out_has(st, op)) return 0;
    return compose_out_push(st, op, role);
}
