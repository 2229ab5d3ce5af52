/*
 * Actions: what a request does to its object (read, create, update, delete). A task's verbs
 * are read with a small lexicon of general English (text/actions.c) and, for verbs it does
 * not hold, with what the indexed specs teach: the first word of each operation's summary
 * and the action of its method ("Rotate keys" on a PUT, "Fetch ..." on a GET). An
 * operation's own action was read at index time from its summary's verb, else its method.
 * A ranking whose verb asks for one action weighs operations of another a little less, and
 * a destructive operation much less unless some part of the task asks to delete.
 */
#include "search/search_int.h"

#include <stdlib.h>
#include <string.h>

/* Counts, per verb stem the lexicon does not know, the methods of the operations whose
   summaries start with it. */
int action_learn(search_engine *e)
{
    e->verb_counts = calloc(e->n_terms ? e->n_terms : 1, sizeof *e->verb_counts);
    if (!e->verb_counts) return APIDEX_ENOMEM;
    e->work += e->n_ops;
    for (size_t i = 0; i < e->n_ops; i++) {
        const store_operation *op = &e->ops[i];
        if (!op->verb || text_action_of_stem(op->verb, strlen(op->verb))) continue;
        long t = lex_term_find(e, op->verb, strlen(op->verb));
        int a = (int)text_action_of_method(op->method);
        if (t >= 0 && a > 0 && e->verb_counts[t][a] < UINT16_MAX) e->verb_counts[t][a]++;
    }
    return 0;
}

int action_of_stem(const search_engine *e, const search_params *p, const char *stem)
{
    size_t n = strlen(stem);
    int a = (int)text_action_of_stem(stem, n);
    if (a || !e->verb_counts) return a;
    long t = lex_term_find(e, stem, n);
    if (t < 0) return 0;
    unsigned total = 0, best = 0;
    int best_a = 0;
    for (int k = 1; k <= 4; k++) {
        total += e->verb_counts[t][k];
        if (e->verb_counts[t][k] > best) {
            best = e->verb_counts[t][k];
            best_a = k;
        }
    }
    if (total < (unsigned)p->action_learn_min || (double)best < p->action_learn_share * total)
        return 0;
    return best_a;
}

double action_factor(const query_state *st, const ranking *r, uint32_t op)
{
    const op_brief *in = &st->e->brief[op];
    double f = 1.0;
    if (opposite_unasked_destructive(st, op)) f *= st->p->action_destructive;
    if (r->action && in->action && in->action != r->action)
        f *= r->question ? st->p->action_question : st->p->action_mismatch;
    if (opposite_of_request(st, r, op)) f *= st->p->action_opposite;
    return f;
}
