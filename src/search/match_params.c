/*
 * The match parameters: every weight of the pairwise scorer and the API step, with a
 * name, a default, a range and what it does (docs/MATCH.md: how the defaults were chosen).
 * `apidex match --param NAME=VALUE` sets them.
 */
#include "search/match.h"

#include <stddef.h>

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

static const search_param_table match_table = {table, sizeof table / sizeof table[0], "match",
                                               "docs/MATCH.md"};

void match_params_default(match_params *p)
{
    search_param_table_default(&match_table, p, sizeof *p);
}

int match_params_set(match_params *p, const char *name, double value, apidex_error *err)
{
    return search_param_table_set(&match_table, p, name, value, err);
}

int match_params_parse(match_params *p, const char *assignment, apidex_error *err)
{
    return search_param_table_parse(&match_table, p, assignment, err);
}
