/*
 * One ranking: the whole task or one intent. Its terms are the index terms of its words
 * (a name that routes is dropped, see routing.c); every endpoint scores by BM25F (fused
 * with the dense score for the whole task in dense and hybrid modes), then by the routing
 * and action weights; the endpoints that score are ordered best first.
 */
#include "search/search_int.h"

#include <stdlib.h>
#include <string.h>

/* Adds term ti with weight w (its idf scaled by it); a repeat keeps the larger weight. */
static int term_add(const search_engine *e, ranking *r, size_t *cap, long ti, double w)
{
    double idf = lex_idf(e, ti) * w;
    for (size_t i = 0; i < r->n_terms; i++)
        if (r->terms[i].term == ti) {
            if (idf > r->terms[i].idf) r->terms[i].idf = idf;
            return 0;
        }
    if (core_array_grow(&r->terms, cap, r->n_terms, sizeof *r->terms, 16)) return APIDEX_ENOMEM;
    r->terms[r->n_terms++] = (qterm){ti, idf};
    return 0;
}

/* The terms of the ranking's words; a name that routes is left out unless the named
   API's operations are about it ("recipe" in a recipe API) or nothing else is left. */
static int collect_terms(query_state *st, ranking *r, bool keep_names)
{
    const search_engine *e = st->e;
    size_t cap = 0, others = 0;
    r->n_terms = 0;
    for (size_t i = 0; i < st->n_occ; i++) {
        const qocc *o = &st->occ[i];
        if (o->word < r->w0 || o->word >= r->w1) continue;
        int nm = st->words[o->word].name;
        if (nm < 0 || e->names[nm].vocab) others++;
    }
    for (size_t i = 0; i < st->n_occ; i++) {
        const qocc *o = &st->occ[i];
        bool own = o->word >= r->w0 && o->word < r->w1;
        bool antecedent = o->word >= r->ref0 && o->word < r->ref1;
        if (!own && !(antecedent && st->p->anaphora_weight > 0)) continue;
        int nm = st->words[o->word].name;
        if (nm >= 0 && !e->names[nm].vocab && others && !keep_names) continue;
        const qword *qw = &st->words[o->word];
        if (antecedent && !own && qw->verb) continue; /* its object, not its action */
        /* a word's family counts a little; the action noun of a request's verb names what
           the request makes ("subscribe" -> subscription) and counts as much as the verb,
           and so does what a verb sends ("text" -> message), only when it is the verb */
        double fam = o->family == 0                                   ? 1.0
                     : (o->family == 2 || o->family == 3) && qw->verb ? st->p->verb_noun_weight
                     : o->family == 3                                 ? 0.0
                                                                      : st->p->morph_weight;
        if (fam <= 0) continue;
        double w = o->weight * fam * (qw->verb ? st->p->verb_weight : 1.0) *
                   (qw->purpose ? st->p->purpose_weight : 1.0) *
                   (qw->adjunct ? st->p->adjunct_weight : 1.0) *
                   (own ? 1.0 : st->p->anaphora_weight);
        int rc = term_add(e, r, &cap, o->term, w);
        if (rc) return rc;
    }
    return 0;
}

/* What single words earn operations outside the word match (owner.c, values.c), in the
   rankings whose span holds the word, for the operations the ranking's words match: it
   orders candidates, it does not make them. */
static void bonus_weigh(const query_state *st, ranking *r)
{
    if (!st->bonus) return;
    for (size_t i = 0; i < st->e->n_ops; i++) {
        if (st->bonus[i] <= 0 || r->raw[i] <= 0) continue;
        uint32_t w = st->bonus_word[i];
        if (r != &st->whole && (w < r->w0 || w >= r->w1)) continue;
        r->raw[i] += st->bonus[i];
    }
}

/* Does some operation of the APIs the ranking names match its words? */
static bool named_match(const query_state *st, const ranking *r)
{
    for (size_t i = 0; i < st->e->n_ops; i++)
        if (r->raw[i] > 0 && st->allowed[i] && r->named[st->e->op_api[i]]) return true;
    return false;
}

/* how many of a ranking's ops rank_run orders; rank_op orders the rest when read */
enum { RANK_FIRST = 64 };

int rank_run(query_state *st, ranking *r, bool fuse_dense)
{
    const search_engine *e = st->e;
    size_t n = e->n_ops ? e->n_ops : 1;
    r->raw = calloc(n, sizeof *r->raw);
    r->best_doc = calloc(n, sizeof *r->best_doc);
    r->score = malloc(n * sizeof *r->score); /* route_weigh sets every one */
    r->order = calloc(1, sizeof *r->order);
    if (r->order) r->order->ids = malloc(n * sizeof *r->order->ids);
    double *cover = calloc(e->n_apis ? e->n_apis : 1, sizeof *cover);
    int rc =
        r->raw && r->best_doc && r->score && r->order && r->order->ids && cover ? 0 : APIDEX_ENOMEM;
    size_t names = 0;
    if (!rc) rc = opposite_read(st, r);
    if (!rc) rc = route_named(st, r, &names);
    if (!rc) rc = collect_terms(st, r, false);
    if (!rc) rc = lex_score(st, r, cover);
    if (!rc && r->named && !named_match(st, r)) {
        /* nothing of the named APIs matches the other words: the name is all there is
           ("the latest Contoso digest") */
        memset(r->raw, 0, n * sizeof *r->raw);
        memset(cover, 0, (e->n_apis ? e->n_apis : 1) * sizeof *cover);
        rc = collect_terms(st, r, true);
        if (!rc) rc = lex_score(st, r, cover);
    }
    if (!rc) bonus_weigh(st, r);
    if (!rc && fuse_dense && st->dense) dense_fuse(st, r);
    /* an intent is read in its task: the task's words add a little (intent.context) */
    if (!rc && r != &st->whole && st->p->intent_context > 0)
        for (size_t i = 0; i < e->n_ops; i++) r->raw[i] += st->p->intent_context * st->whole.raw[i];
    if (!rc) route_weigh(st, r, cover);
    if (!rc) usage_weigh(st, r);
    free(cover);
    if (rc) return rc;
    r->m = 0;
    uint32_t *ids = r->order->ids;
    for (size_t i = 0; i < e->n_ops; i++)
        if (r->score[i] > 0) ids[r->m++] = (uint32_t)i;
    r->order->sorted = search_order_first(ids, r->m, r->score, RANK_FIRST);
    return 0;
}

uint32_t rank_op(const ranking *r, size_t i)
{
    rank_order *o = r->order;
    if (i >= o->sorted) { /* a reader goes past the first: the rest in order */
        search_order_by_score(o->ids + o->sorted, r->m - o->sorted, r->score);
        o->sorted = r->m;
    }
    return o->ids[i];
}

void rank_free(ranking *r)
{
    free(r->terms);
    free(r->named);
    free(r->raw);
    free(r->best_doc);
    free(r->score);
    if (r->order) free(r->order->ids);
    free(r->order);
    free(r->opp_verb);
}
