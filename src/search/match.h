/*
 * match: an OpenAPI document as the query. An agent writes a document for the
 * service it needs; match finds, for each of its operations, the registry operations that
 * do the same thing (a score in [0, 1] and the features that agree), and the registry APIs
 * that cover the document best. Below the threshold an operation has no match, so the
 * caller can generate the service instead.
 *
 * Candidates come from the engine's lexical search (one query per operation, made of its
 * summary, operationId and path words); a pairwise scorer compares method, path shape,
 * names, descriptions, parameter and response field names (match_score.c); the API step
 * then favours the APIs that cover most operations jointly, and scores every operation of
 * the best APIs so an operation the lexical search missed can still be found there.
 * docs/MATCH.md says why and what every weight does.
 */
#ifndef APIDEX_SEARCH_MATCH_H
#define APIDEX_SEARCH_MATCH_H

#include "search/search.h"
#include "oas/oas.h"

struct json_object;

/** Every weight and threshold of matching (match_params.c holds the table). */
typedef struct match_params {
    double w_method;   /* weight of the method agreeing */
    double w_path;     /* weight of the path shape (segments, parameters, literals) */
    double w_name;     /* weight of the names: path words, operationId, summary */
    double w_desc;     /* weight of the descriptions (only when the query has one) */
    double w_params;   /* weight of parameter and request-body field names */
    double w_response; /* weight of response field names */
    double path_kind; /* share of the path score from the segment kinds (the rest: literal words) */
    double api_weight;  /* share of the final score from the API's coverage of the document */
    double threshold;   /* below it an operation has no match */
    double cand_k;      /* candidates per operation from the lexical search */
    double api_expand;  /* the best APIs whose every operation is scored too */
    double api_max_ops; /* an API larger than this is not expanded */
} match_params;

/* An entry of the match parameters' table: the layout of the search parameters' (one set
   of rules for both, search_param_table in search.h). */
typedef search_param_info match_param_info;

size_t match_param_count(void);
const match_param_info *match_param_at(size_t i);
void match_params_default(match_params *p);
/** Sets one parameter by name; APIDEX_EINVAL for an unknown name or a value out of range. */
int match_params_set(match_params *p, const char *name, double value, apidex_error *err);
/** "NAME=VALUE": match_params_set, or APIDEX_EINVAL. */
int match_params_parse(match_params *p, const char *assignment, apidex_error *err);

/** What a match run is asked. Zero = defaults. */
typedef struct match_query {
    size_t k;                   /* candidates returned per operation (default 5) */
    size_t k_apis;              /* APIs returned (default 5) */
    double threshold;           /* < 0: the params' default */
    const match_params *params; /* NULL: the defaults */
} match_query;

/** Loads one query document from a file (JSON or YAML, OpenAPI 3 or Swagger 2) or from
    text (name NULL: "document"). A document that does not load is APIDEX_EPARSE (or the
    loader's code) with err naming the file, line:col and pointer. *out: spec_registry_free. */
int match_load_file(const char *path, spec_registry **out, apidex_error *err);
int match_load_text(const char *text, size_t len, spec_registry **out, apidex_error *err);

/**
 * Matches the first API of reg against the engine's index. *out: a JSON object
 * ({threshold, operations: [...], apis: [...], matched, unmatched, elapsed_ms}; docs/MATCH.md),
 * json_object_put. Thread-safe (the engine's match features are built once, under a lock).
 */
int match_run(search_engine *eng, const spec_registry *reg, const match_query *q,
              struct json_object **out, apidex_error *err);

/** The human-readable form of a match_run answer, appended to out. */
int match_format_text(struct json_object *res, core_buf *out);

/* ---------------------------------------------------------------- scorer pieces (match_score.c) */

enum { MATCH_MAX_SEGS = 24 };
/** Most operations one document may have (a server must not be made to score without end). */
enum { MATCH_MAX_OPS = 1000 };

/** A path reduced to its shape: version-like leading segments ("v2", "3", "api") dropped. */
typedef struct match_path {
    size_t n;
    bool param[MATCH_MAX_SEGS]; /* the segment is a {placeholder} (or :name) */
} match_path;

/** The shape of path ("/v3/movie/{movie_id}/credits" -> literal, param, literal). */
void match_path_shape(const char *path, match_path *out);
/** How alike two shapes are, in [0, 1]: segment kinds compared from the end (base paths and
    prefixes differ more than the tails), over the longer of the two. */
double match_path_similarity(const match_path *a, const match_path *b);
/** How alike two methods are, in [0, 1] (PUT and PATCH are near). */
double match_method_similarity(const char *a, const char *b);

/** A weighted term: an engine term id (negative for a query word the index never saw). */
typedef struct match_term {
    long id;
    double w; /* its idf */
} match_term;

/** Dice over weighted term sets (each sorted by id, unique): 2 |a ∩ b| / (|a| + |b|). */
double match_overlap_dice(const match_term *a, size_t na, const match_term *b, size_t nb);
/** The weighted share of a's terms that b has: |a ∩ b| / |a|. */
double match_overlap_share(const match_term *a, size_t na, const match_term *b, size_t nb);

#endif /* APIDEX_SEARCH_MATCH_H */
