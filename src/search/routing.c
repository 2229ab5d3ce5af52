/*
 * Routing: which API a task is about. Each API's name (the distinctive word of its
 * title) routes a task that says it; otherwise the API whose best operations score
 * highest, weighed by its share of the task's words.
 */
#include "search/search_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The name of each API as the index uses it: the rarest term of its title whose
 * chunks (nine in ten or more) belong to that API alone ("stripe", "twilio"; not
 * "api" or "http"). A task that says "my Stripe balance" is routed to Stripe.
 */
int route_api_names(search_engine *e)
{
    e->name_term = core_arena_calloc(e->arena, e->n_apis ? e->n_apis : 1, sizeof *e->name_term);
    e->name_is_vocab =
        core_arena_calloc(e->arena, e->n_apis ? e->n_apis : 1, sizeof *e->name_is_vocab);
    if (!e->name_term || !e->name_is_vocab) return APIDEX_ENOMEM;
    store_terms *tp = store_terms_new();
    if (!tp) return APIDEX_ENOMEM;
    int rc = 0;
    for (size_t a = 0; a < e->n_apis && !rc; a++) {
        e->name_term[a] = -1;
        const char *title = e->apis[a].title;
        if (!title || e->n_apis < 2) continue;
        core_buf b;
        core_buf_init(&b, 1 << 16);
        store_terms_append(tp, title, strlen(title), &b);
        for (const char *t = b.data ? b.data : ""; *t;) {
            while (*t == ' ') t++;
            const char *end = t;
            while (*end && *end != ' ') end++;
            long ti = end - t >= 3 ? lex_term_find(e, t, (size_t)(end - t)) : -1;
            t = end;
            if (ti < 0) continue;
            const term_entry *te = &e->terms[ti];
            size_t mine = 0, all = 0;
            for (size_t p = 0; p < te->n_post; p++) {
                if (p && te->post[p].doc == te->post[p - 1].doc) continue;
                const doc_info *d = &e->docs[te->post[p].doc];
                if (!d->n_ops || d->ops[0] < 0 || (size_t)d->ops[0] >= e->n_ops) continue;
                all++;
                if (e->info[d->ops[0]].api == a) mine++;
            }
            if (all && mine * 10 >= all * 9 &&
                (e->name_term[a] < 0 || te->df < e->terms[e->name_term[a]].df))
                e->name_term[a] = ti;
        }
        if (b.failed) rc = APIDEX_ENOMEM;
        core_buf_free(&b);
        /* "recipe" in a Recipe Box API is what its operations are about, not only a name */
        const term_entry *te = e->name_term[a] >= 0 ? &e->terms[e->name_term[a]] : NULL;
        for (size_t p = 0; te && p < te->n_post; p++) {
            int f = te->post[p].field;
            if (f == STORE_FIELD_PATH || f == STORE_FIELD_OPERATION_ID) e->name_is_vocab[a] = true;
        }
    }
    store_terms_free(tp);
    return rc;
}

/*
 * A task that names exactly one API by name ("my Stripe balance") goes to it. The name
 * then has done its work: it is dropped from the terms (unless it is the only one, or
 * the API's paths or operation ids use it too: "recipe" in a recipe API), so that inside
 * the API the operations whose texts happen to say "Stripe" gain nothing.
 */
void route_find_named_api(query_state *st)
{
    const search_engine *e = st->e;
    long named = -1;
    size_t at = 0;
    for (size_t a = 0; a < e->n_apis && named != -2; a++)
        for (size_t qi = 0; qi < st->n_terms; qi++)
            if (e->name_term[a] >= 0 && st->terms[qi].term == e->name_term[a]) {
                named = named == -1 ? (long)a : -2;
                at = qi;
                break;
            }
    if (named < 0) return;
    st->api_named = true;
    st->named_api = (uint32_t)named;
    if (st->n_terms > 1 && !e->name_is_vocab[named]) st->terms[at] = st->terms[--st->n_terms];
}

/*
 * The API whose three best operations score highest, times (the share of the task's
 * words, by idf, that the API has at all)^route.coverage: a "lead" that is a sales lead
 * does not route a task about actors and movies. Operations of the other APIs are damped.
 */
void route_scores(query_state *st, const double *cover, double idf_total)
{
    const search_engine *e = st->e;
    const search_params *p = st->p;
    double *api_top = calloc(e->n_apis ? e->n_apis * 3 : 3, sizeof *api_top);
    if (api_top) {
        for (size_t i = 0; i < e->n_ops; i++) {
            if (!st->allowed[i] || e->info[i].api >= e->n_apis) continue;
            double *top = api_top + 3 * e->info[i].api, s = st->raw[i];
            if (s > top[0]) {
                top[2] = top[1];
                top[1] = top[0];
                top[0] = s;
            } else if (s > top[1]) {
                top[2] = top[1];
                top[1] = s;
            } else if (s > top[2]) {
                top[2] = s;
            }
        }
        double best = -1;
        for (size_t a = 0; a < e->n_apis; a++) {
            double sum = api_top[3 * a] + api_top[3 * a + 1] + api_top[3 * a + 2];
            if (idf_total > 0) sum *= pow(cover[a] / idf_total, p->route_coverage);
            if (sum > best) {
                best = sum;
                st->best_api = (uint32_t)a;
            }
        }
        free(api_top);
        if (st->api_named) st->best_api = st->named_api;
    }
    for (size_t i = 0; i < e->n_ops; i++)
        st->score[i] = st->allowed[i] ? st->raw[i] * (e->info[i].api == st->best_api ? 1.0
                                                      : st->api_named ? p->named_damping
                                                                      : p->route_damping)
                                      : -1.0;
}
