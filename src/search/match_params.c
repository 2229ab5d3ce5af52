/*
 * The match parameters: every weight of the pairwise scorer and the API step, with a
 * name, a default, a range and what it does (docs/MATCH.md: how the defaults were chosen).
 * `apidex match --param NAME=VALUE` sets them.
 */
#include "search/match.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define P(field) offsetof(match_params, field)

static const match_param_info table[] = {
    {"match.method", P(w_method), 1.0, 0, 10, "weight of the method agreeing (PUT~PATCH half)"},
    {"match.path", P(w_path), 1.5, 0, 10,
     "weight of the path shape: segment kinds from the end, and the literal words"},
    {"match.name", P(w_name), 3.0, 0, 10,
     "weight of the names (path words, operationId, summary): idf-weighted Dice"},
    {"match.desc", P(w_desc), 1.0, 0, 10,
     "weight of the description against the other side's description and names (only when "
     "the query has one)"},
    {"match.params", P(w_params), 1.5, 0, 10,
     "weight of the parameter and request-body field names: idf-weighted share of the "
     "query's that the registry operation has"},
    {"match.response", P(w_response), 1.5, 0, 10,
     "weight of the response field names: idf-weighted share of the query's the registry "
     "operation has"},
    {"match.path_kind", P(path_kind), 0.5, 0, 1,
     "share of the path score from the segment kinds (literal or parameter, compared from "
     "the end); the rest from the literal words (idf-weighted Dice)"},
    {"match.api_weight", P(api_weight), 0.25, 0, 1,
     "share of an operation's final score from its API's coverage of the whole document (the "
     "mean of the document's operations' best pairwise scores in that API)"},
    {"match.threshold", P(threshold), 0.54, 0, 1,
     "an operation whose best final score is below it has no match (chosen on the dev split, "
     "docs/MATCH.md)"},
    {"match.cand_k", P(cand_k), 20, 1, 200, "candidates per operation from the lexical search"},
    {"match.api_expand", P(api_expand), 2, 0, 20,
     "the APIs covering the document best whose every operation is scored too"},
    {"match.api_max_ops", P(api_max_ops), 2000, 0, 1000000,
     "an API with more operations than this is not expanded (its candidates come from the "
     "lexical search only)"},
};
static const size_t n_table = sizeof table / sizeof table[0];

size_t match_param_count(void)
{
    return n_table;
}

const match_param_info *match_param_at(size_t i)
{
    return i < n_table ? &table[i] : NULL;
}

void match_params_default(match_params *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < n_table; i++) *(double *)((char *)p + table[i].offset) = table[i].def;
}

int match_params_set(match_params *p, const char *name, double value, apidex_error *err)
{
    for (size_t i = 0; i < n_table; i++) {
        if (strcmp(table[i].name, name)) continue;
        if (!(value >= table[i].min && value <= table[i].max))
            return core_error_set(err, APIDEX_EINVAL, "match parameter %s must be in [%g, %g]",
                                  name, table[i].min, table[i].max);
        *(double *)((char *)p + table[i].offset) = value;
        return 0;
    }
    return core_error_set(err, APIDEX_EINVAL, "no match parameter '%s' (docs/MATCH.md lists them)",
                          name);
}

int match_params_parse(match_params *p, const char *assignment, apidex_error *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment || !eq[1])
        return core_error_set(err, APIDEX_EINVAL, "a match parameter is NAME=VALUE, not '%s'",
                              assignment);
    char name[128];
    size_t n = (size_t)(eq - assignment);
    if (n >= sizeof name)
        return core_error_set(err, APIDEX_EINVAL, "no match parameter '%.*s'", (int)n, assignment);
    memcpy(name, assignment, n);
    name[n] = '\0';
    char *end = NULL;
    double v = strtod(eq + 1, &end);
    if (*end || !isfinite(v))
        return core_error_set(err, APIDEX_EINVAL, "match parameter %s: '%s' is not a number", name,
                              eq + 1);
    return match_params_set(p, name, v, err);
}
