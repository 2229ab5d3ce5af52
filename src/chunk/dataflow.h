/*
 * Data flow between the operations of one API, derived from the spec's
 * structure alone: which identifiers each operation needs (path parameters,
 * required id-like query parameters) and which operations return objects that
 * carry such identifiers. The index stores the result as producer edges; the
 * search stage uses them to put producers before the operations that need them.
 */
#ifndef APIDEX_CHUNK_DATAFLOW_H
#define APIDEX_CHUNK_DATAFLOW_H

#include "spec/spec.h"

/** Version of the analysis: part of the index signature, so a change rebuilds the edges.
    2: entities typed by shape; 3: bare "ids" typed from the text, the caller's own object. */
#define DATAFLOW_VERSION 3

/** An input an operation needs before it can be called. */
typedef struct dataflow_input {
    const char *name;   /* the parameter name as written: "movie_id", "id", "ids" */
    const char *in;     /* "path" or "query" */
    const char *entity; /* stemmed entity word: "movi", "album", "user" */
} dataflow_input;

/** "consumer needs input, producer returns it". */
typedef struct dataflow_edge {
    size_t consumer;    /* index into api->ops */
    size_t input;       /* index into the consumer's inputs */
    size_t producer;    /* index into api->ops */
    double score;       /* structural plausibility, higher is better (about 0..4) */
    bool explicit_hint; /* the consumer's description names the producer ("call GET /me first") */
} dataflow_edge;

typedef struct dataflow {
    size_t n_ops;
    dataflow_input **inputs; /* per operation */
    size_t *n_inputs;
    const char ***outputs; /* per operation: entity words whose ids its 2xx responses carry */
    size_t *n_outputs;
    bool *text_query; /* per operation: takes a free-text search parameter */
    dataflow_edge *edges;
    size_t n_edges;
    core_arena *arena;
} dataflow;

/** Does a segment of path stand for the caller ("/me", "/users/@me", "/customers/my",
    "/self", "/current")? Such operations produce what a task calls "my ...". */
bool dataflow_path_is_mine(const char *path);

/** Analyses api. *out: dataflow_free. Deterministic. */
int dataflow_build(const spec_api *api, dataflow **out, apidex_error *err);
/** NULL is a no-op. */
void dataflow_free(dataflow *df);

#endif
