/*
 * match internals shared by match.c and match_feat.c: the features of one operation (either
 * side) and the registry's features, built once per engine.
 */
#ifndef APIDEX_SEARCH_MATCH_INT_H
#define APIDEX_SEARCH_MATCH_INT_H

#include "search/match.h"
#include "search/search_int.h"

/* The feature groups of an operation, each a set of weighted terms sorted by id. */
enum {
    MATCH_G_LIT = 0, /* the words of the path's literal segments */
    MATCH_G_NAME,    /* path words, operationId (without a leading method), summary */
    MATCH_G_DESC,    /* description */
    MATCH_G_PARAMS,  /* parameter and request-body field names (and their descriptions) */
    MATCH_G_RESP,    /* the success response: description and field names */
    MATCH_G_COUNT
};

typedef struct match_feat {
    const char *method;
    match_path shape;
    match_term *g[MATCH_G_COUNT];
    size_t n[MATCH_G_COUNT];
} match_feat;

/* The registry side: one match_feat per operation of the engine. */
typedef struct match_index {
    match_feat *ops;
    size_t n_ops;
    core_arena *arena;
} match_index;

/* The engine's match features (built on first use, under the engine's lock). */
int match_index_get(search_engine *e, const match_index **out, apidex_error *err);

/* The literal segments of a path (leading version-like ones dropped), space-separated. */
int match_path_literals(const char *path, core_buf *out);

/* Words of the query document the index never saw get negative ids, one per word. */
typedef struct match_unknown {
    char **words;
    size_t n, cap;
} match_unknown;
void match_unknown_free(match_unknown *u);

/* The features of a query operation; arrays in a. */
int match_feat_query(const search_engine *e, const spec_api *api, const spec_operation *op,
                     text_analyzer *st, match_unknown *u, core_arena *a, match_feat *out);

#endif /* APIDEX_SEARCH_MATCH_INT_H */
