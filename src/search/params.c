/*
 * The search parameters: every weight and threshold of the engine, in one table with
 * a name, a default, the range it may take and what it does. docs/SEARCH.md describes
 * each and its measured effect; `apidex eval --param NAME=VALUE` and
 * `--sweep-param NAME=a,b,c` set them, so each rule can be switched off and measured.
 */
#include "search/search_int.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define P(field) offsetof(search_params, field)
#define FW(f)    (offsetof(search_params, field_weight) + (f) * sizeof(double))

static const search_param_info table[] = {
    /* lexical */
    {"field.path", FW(STORE_FIELD_PATH), 3.0, 0, 100, "BM25F weight of the path template"},
    {"field.operation_id", FW(STORE_FIELD_OPERATION_ID), 1.0, 0, 100,
     "BM25F weight of the operationId"},
    {"field.summary", FW(STORE_FIELD_SUMMARY), 3.0, 0, 100, "BM25F weight of the summary"},
    {"field.description", FW(STORE_FIELD_DESCRIPTION), 1.0, 0, 100,
     "BM25F weight of the description"},
    {"field.params", FW(STORE_FIELD_PARAMS), 0.5, 0, 100,
     "BM25F weight of parameter and body field names and descriptions"},
    {"field.responses", FW(STORE_FIELD_RESPONSES), 0.3, 0, 100,
     "BM25F weight of response field names"},
    {"field.tags", FW(STORE_FIELD_TAGS), 0.5, 0, 100, "BM25F weight of tags and the API title"},
    {"field.other", FW(STORE_FIELD_OTHER), 1.0, 0, 100,
     "weight of a chunk's whole text (strategies without fields)"},
    {"bm25.k1", P(bm25_k1), 1.2, 0, 10, "BM25 term-frequency saturation"},
    {"bm25.b", P(bm25_b), 0.75, 0, 1, "BM25 length normalisation"},
    {"query.name_weight", P(name_weight), 0.3, 0, 1,
     "weight of a capitalised word inside a sentence (a name) against a task word"},
    {"query.typo_min_len", P(typo_min_len), 7, 0, 64,
     "shortest unknown word (after stemming) read as a typo of an index word; 0: no typo "
     "correction"},
    {"query.typo_max", P(typo_max), 8, 0, 64, "most typo corrections tried per task"},
    /* routing */
    {"route.damping", P(route_damping), 0.6, 0, 1,
     "score factor of operations outside the routed API in ranked lists"},
    {"route.coverage", P(route_coverage), 0.25, 0, 4,
     "exponent of an API's share of the task's words in its routing score"},
    {"route.named_damping", P(named_damping), 0.1, 0, 1,
     "score factor of the other APIs when the task names an API"},
    /* answer set */
    {"answer.ratio", P(adaptive_ratio), 0.8, 0, 1,
     "adaptive answer: further primaries score at least this share of the best"},
    {"answer.max_primaries", P(adaptive_max_primaries), 3, 1, 20,
     "adaptive answer: most primaries of a one-intent task"},
    /* composition */
    {"producer.relevance", P(producer_relevance), 1.0, 0, 10,
     "weight of a producer's own relevance to the task in the producer choice"},
    {"producer.search_bonus", P(producer_search_bonus), 1.0, 0, 10,
     "free-text search producers when the task names things"},
    {"producer.mine_bonus", P(producer_mine_bonus), 1.0, 0, 10,
     "producers about the caller when the task says 'my'"},
    {"producer.depth", P(producer_depth), 3, 0, 8, "longest producer chain before an operation"},
    {"fill.fan_weight", P(fill_fan_weight), 0.5, 0, 10,
     "graph fill: weight of how many inputs an endpoint can feed"},
    /* dense */
    {"dense.rrf_k", P(rrf_k), 60, 1, 1000, "reciprocal-rank fusion constant (Cormack et al.)"},
};

enum { n_table = sizeof table / sizeof table[0] };

size_t search_param_count(void)
{
    return n_table;
}

const search_param_info *search_param_at(size_t i)
{
    return i < n_table ? &table[i] : NULL;
}

void search_params_default(search_params *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < n_table; i++) *(double *)((char *)p + table[i].offset) = table[i].def;
}

static search_params defaults;
static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;

static void defaults_init(void)
{
    search_params_default(&defaults);
}

const search_params *search_params_defaults(void)
{
    pthread_once(&defaults_once, defaults_init);
    return &defaults;
}

int search_params_set(search_params *p, const char *name, double value, apidex_error *err)
{
    for (size_t i = 0; i < n_table; i++) {
        if (strcmp(table[i].name, name)) continue;
        if (!(value >= table[i].min && value <= table[i].max))
            return core_error_set(err, APIDEX_EINVAL, "search parameter %s must be in [%g, %g]",
                                  name, table[i].min, table[i].max);
        *(double *)((char *)p + table[i].offset) = value;
        return 0;
    }
    return core_error_set(err, APIDEX_EINVAL,
                          "no search parameter '%s' (apidex eval --list-params lists them)", name);
}

int search_params_parse(search_params *p, const char *assignment, apidex_error *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment || !eq[1])
        return core_error_set(err, APIDEX_EINVAL, "a search parameter is NAME=VALUE, not '%s'",
                              assignment);
    char name[128];
    size_t n = (size_t)(eq - assignment);
    if (n >= sizeof name)
        return core_error_set(err, APIDEX_EINVAL, "no search parameter '%.*s'", (int)n, assignment);
    memcpy(name, assignment, n);
    name[n] = '\0';
    char *end = NULL;
    double v = strtod(eq + 1, &end);
    if (*end || !isfinite(v))
        return core_error_set(err, APIDEX_EINVAL, "search parameter %s: '%s' is not a number", name,
                              eq + 1);
    return search_params_set(p, name, v, err);
}
