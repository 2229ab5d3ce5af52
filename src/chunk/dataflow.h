/*
 * Data flow between the operations of one API, derived from the spec's
 * structure alone: which identifiers each operation needs (path parameters,
 * required identifier query and body parameters) and which operations return
 * objects that carry such identifiers. The index stores the result as producer
 * edges; the search stage uses them to put producers before the operations that
 * need them.
 */
#ifndef APIDEX_CHUNK_DATAFLOW_H
#define APIDEX_CHUNK_DATAFLOW_H

#include "oas/oas.h"

/** Version of the analysis: part of the index signature, so a change rebuilds the edges.
    2: entities typed by shape; 3: bare "ids" typed from the text, the caller's own object;
    4: the nearest naming context types an object, every path parameter is an input, a
    producer must read, list or create its entity (never destroy it), at most
    DATAFLOW_MAX_PRODUCERS per input, edges carry their features. */
#define DATAFLOW_VERSION 4

/** Producers kept per input (the best by structure): edges grow linearly with an API. */
#define DATAFLOW_MAX_PRODUCERS 16

/** How a producer yields the entity: dataflow_edge.features & DATAFLOW_KIND_MASK. */
enum {
    DATAFLOW_KIND_RETURNS = 1, /* its response object is the entity (reads one, or creates it) */
    DATAFLOW_KIND_LISTS = 2,   /* its response lists the entity (a list, a search) */
    DATAFLOW_KIND_SHAPE = 3,   /* an object typed by its property names alone */
    DATAFLOW_KIND_NESTED = 4,  /* the entity's object inside another entity's object */
    DATAFLOW_KIND_REFERS = 5,  /* a property "<entity>_id" of another object */
    DATAFLOW_KIND_MASK = 7
};

/** The other features of a producer edge (bits of dataflow_edge.features). */
enum {
    DATAFLOW_F_PATH_NAMES = 1u << 3, /* the producer's own path names the entity */
    DATAFLOW_F_TEXT_QUERY = 1u << 4, /* it takes a free-text search parameter */
    DATAFLOW_F_CALLER = 1u << 5,     /* the caller's own object (GET /me returning the user) */
    DATAFLOW_F_HINT = 1u << 6,       /* the consumer's description names it ("call GET /me") */
    DATAFLOW_F_CREATES = 1u << 7,    /* it creates the entity rather than reading it: it serves
                                        an input only when the task creates the thing too */
    DATAFLOW_F_DEPRECATED = 1u << 8,
    DATAFLOW_F_TAKES_NAME = 1u << 9, /* of the consumer's input: a name will do as well as an
                                        id ("Can be an encoded ID, or a name") */
    DATAFLOW_F_PARENT = 1u << 10,    /* the producer's path is the consumer's up to the input's
                                        placeholder: the collection the item belongs to
                                        (GET /things for /things/{id}/parts) */
    DATAFLOW_F_OVERLAP_SHIFT = 16    /* bits 16..17: literal path segments producer and consumer
                                        share (max 3; versions and "api" do not count) */
    ,
    DATAFLOW_F_INPUTS_SHIFT = 12 /* bits 12..15: identifier inputs it needs itself (max 15) */
};

/** An input an operation needs before it can be called. */
typedef struct dataflow_input {
    const char *name;   /* the parameter name as written: "movie_id", "id", "ids", "customer" */
    const char *in;     /* "path", "query" or "body" */
    const char *entity; /* stemmed entity word: "movi", "album", "user" */
    bool accepts_name;  /* its description says a name will do as well as an id */
} dataflow_input;

/** "consumer needs input, producer returns it". */
typedef struct dataflow_edge {
    size_t consumer;    /* index into api->ops */
    size_t input;       /* index into the consumer's inputs */
    size_t producer;    /* index into api->ops */
    double score;       /* structural plausibility with the default weights (dataflow_score) */
    bool explicit_hint; /* the consumer's description names the producer ("call GET /me first") */
    unsigned features;  /* DATAFLOW_KIND_* | DATAFLOW_F_* */
} dataflow_edge;

typedef struct dataflow {
    size_t n_ops;
    dataflow_input **inputs; /* per operation */
    size_t *n_inputs;
    const char ***outputs; /* per operation: entity words whose ids its 2xx responses carry */
    size_t *n_outputs;
    dataflow_edge *edges;
    size_t n_edges;
    core_arena *arena;
} dataflow;

/** Does a segment of path stand for the caller ("/me", "/users/@me", "/customers/my",
    "/self", "/current")? Such operations produce what a task calls "my ...". */
bool dataflow_path_is_mine(const char *path);

/**
 * The structural score of an edge from its features with the default weights: by kind
 * (returns or lists 1, shape 0.75, nested 0.5, refers 0.25), +0.5 when its path names the
 * entity, +0.3 for a text search, +0.5 for the caller's own object, +2 when hinted, +0.5
 * for the item's own collection, +0.25 per shared path segment, -0.25 per input it needs
 * itself, -0.5 when deprecated, -0.5 when it creates rather than reads.
 * The search stage weighs the same features with its own parameters.
 */
double dataflow_score(unsigned features);

/** Analyses api. *out: dataflow_free. Deterministic. */
int dataflow_build(const spec_api *api, dataflow **out, apidex_error *err);
/** NULL is a no-op. */
void dataflow_free(dataflow *df);

#endif
