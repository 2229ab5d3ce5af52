/*
 * Confidence: how sure the answer is, and whether anything in the registry fits at all.
 *
 * Evidence. An operation's evidence is its lexical score for the whole task measured
 * against a perfect match of the task's confidence.top_words heaviest words: the score an
 * endpoint would get with those words saturated, where a word the index has never seen
 * weighs confidence.unknown times the largest idf the index can give (times its weight as a
 * name or a purpose word). One endpoint matches a few words, not a long task's all, so the
 * measure does not fall with the task's length. A task about something no indexed API
 * speaks of matches only its common words ("get", "list", "today") while its heaviest words
 * ("thermostat", a service's name the index lacks) go unmatched, and stays low. When a word
 * of the task names the operation's API (routing.c's names), the registry has the service
 * the task speaks of: confidence.named is added. Evidence is capped at 1. It uses only what
 * the ranking already computed: no rule keys on a task or an API.
 *
 * Calibration. The evidence is mapped to a confidence in [0, 1] by a table measured on the
 * dev suite (bench/calibrate.py; docs/SEARCH.md shows the table and the command): per band
 * of evidence, the share of dev tasks (every set, the no-answer set included) whose best
 * operation was one of the gold ones, made non-decreasing (pool-adjacent-violators), and
 * read between the bands' centres by linear interpolation. The answer's confidence is its
 * best operation's; each hit's is its own. The match is strong from match.strong on, weak
 * from match.weak on, and none below: nothing in the registry fits the task.
 */
#include "search/search_int.h"

#include <math.h>
#include <stdlib.h>

/* BEGIN CALIBRATION (bench/calibrate.py --write rewrites this block) */
static const double cal_evidence[] = {0.050, 0.150, 0.250, 0.350, 0.450,
                                      0.550, 0.650, 0.750, 0.850, 0.950};
static const double cal_confidence[] = {0.000, 0.095, 0.259, 0.259, 0.545,
                                        0.545, 0.619, 0.712, 0.793, 0.895};
/* END CALIBRATION */

enum { n_cal = sizeof cal_evidence / sizeof cal_evidence[0] };

const char *search_match_name(search_match m)
{
    switch (m) {
    case SEARCH_MATCH_STRONG:
        return "strong";
    case SEARCH_MATCH_WEAK:
        return "weak";
    default:
        return "none";
    }
}

double search_confidence_of(double evidence)
{
    if (!(evidence > cal_evidence[0])) return cal_confidence[0]; /* NaN too */
    for (size_t i = 1; i < n_cal; i++)
        if (evidence <= cal_evidence[i]) {
            double span = cal_evidence[i] - cal_evidence[i - 1];
            double t = span > 0 ? (evidence - cal_evidence[i - 1]) / span : 1.0;
            return cal_confidence[i - 1] + t * (cal_confidence[i] - cal_confidence[i - 1]);
        }
    return cal_confidence[n_cal - 1];
}

search_match search_match_of(const search_params *p, double confidence)
{
    if (!p) p = search_params_defaults();
    if (confidence >= p->match_strong) return SEARCH_MATCH_STRONG;
    if (confidence >= p->match_weak) return SEARCH_MATCH_WEAK;
    return SEARCH_MATCH_NONE;
}

/* Descending, for qsort. */
static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* The score of a perfect match of the task's confidence.top_words heaviest words: the
   weights (idf times the word's weight) of the whole ranking's terms, and for each word
   the index has never seen, confidence.unknown times the largest idf times its weight as a
   name or a purpose word. */
static int perfect_match(const query_state *st, double *out)
{
    const search_engine *e = st->e;
    const search_params *p = st->p;
    const ranking *w = &st->whole;
    double idf_max = log(1.0 + ((double)e->n_ranked + 0.5) / 0.5); /* lex_idf of df 0 */
    size_t n = w->n_terms;
    for (size_t i = 0; i < st->n_words; i++) n += st->words[i].n_unknown > 0;
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return APIDEX_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < w->n_terms; i++) v[m++] = w->terms[i].idf;
    for (size_t i = 0; i < st->n_words; i++) {
        const qword *q = &st->words[i];
        if (!q->n_unknown) continue;
        double weight =
            (q->kind == QW_NAME ? p->name_weight : 1.0) * (q->purpose ? p->purpose_weight : 1.0);
        v[m++] = q->n_unknown * weight * p->confidence_unknown * idf_max;
    }
    qsort(v, m, sizeof *v, cmp_desc);
    double sum = 0;
    for (size_t i = 0; i < m && (double)i < p->confidence_top_words; i++) sum += v[i];
    free(v);
    *out = sum;
    return 0;
}

/* Does a word of the task name op's API (routing.c's names)? */
static bool names_api_of(const query_state *st, uint32_t op)
{
    uint32_t api = st->e->info[op].api;
    for (size_t i = 0; i < st->n_words; i++) {
        int nm = st->words[i].name;
        if (nm < 0) continue;
        const api_name *n = &st->e->names[nm];
        for (size_t a = 0; a < n->n_apis; a++)
            if (n->apis[a] == api) return true;
    }
    return false;
}

static double evidence_of(const query_state *st, double perfect, uint32_t op)
{
    double v = perfect > 0 ? st->whole.raw[op] / perfect : 0;
    if (v > 0 && names_api_of(st, op)) v += st->p->confidence_named;
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

int confidence_fill(query_state *st, search_result *res)
{
    double perfect = 0;
    int rc = perfect_match(st, &perfect);
    if (rc) return rc;
    for (size_t i = 0; i < res->n_hits; i++)
        res->hits[i].confidence = search_confidence_of(evidence_of(st, perfect, st->out[i]));
    res->evidence = 0;
    res->best_id = NULL;
    if (st->whole.m) {
        uint32_t best = rank_op(&st->whole, 0);
        res->evidence = evidence_of(st, perfect, best);
        res->best_id = st->e->ops[best].id;
    }
    res->confidence = search_confidence_of(res->evidence);
    res->match = res->best_id ? search_match_of(st->p, res->confidence) : SEARCH_MATCH_NONE;
    return 0;
}
