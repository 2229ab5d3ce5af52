/*
 * The flow stage: what the operations of one API do and need, read at index time from the
 * spec's structure and words alone, for the search stage to weigh without going back to
 * the spec.
 *
 * Data flow (flow.c, inputs.c, outputs.c, edges.c): which identifiers each operation needs
 * (path parameters, required identifier query and body parameters) and which operations
 * return objects that carry such identifiers. The index stores the result as producer
 * edges; the search stage uses them to put producers before the operations that need them.
 *
 * Operation facts (opfacts.c): the action an operation's verb names, whether it destroys
 * something, takes a free-text query, is about the caller or reads a collection. The index
 * stores them as store_operation.flags; the data flow uses them to rank producers.
 *
 * Below build and search, above oas and text; it knows nothing of chunks.
 */
#ifndef APIDEX_FLOW_H
#define APIDEX_FLOW_H

#include "core/core.h"
#include "oas/oas.h"
#include "text/text.h"

#include <stdbool.h>
#include <stddef.h>

/* ---------------------------------------------------------------- data flow */

/** Version of the analysis: part of the index signature, so a change rebuilds the edges.
    2: entities typed by shape; 3: bare "ids" typed from the text, the caller's own object;
    4: the nearest naming context types an object, every path parameter is an input, a
    producer must read, list or create its entity (never destroy it), at most
    FLOW_MAX_PRODUCERS per input, edges carry their features. */
#define FLOW_VERSION 4

/** Producers kept per input (the best by structure): edges grow linearly with an API. */
#define FLOW_MAX_PRODUCERS 16

/** How a producer yields the entity: flow_edge.features & FLOW_KIND_MASK. */
enum {
    FLOW_KIND_RETURNS = 1, /* its response object is the entity (reads one, or creates it) */
    FLOW_KIND_LISTS = 2,   /* its response lists the entity (a list, a search) */
    FLOW_KIND_SHAPE = 3,   /* an object typed by its property names alone */
    FLOW_KIND_NESTED = 4,  /* the entity's object inside another entity's object */
    FLOW_KIND_REFERS = 5,  /* a property "<entity>_id" of another object */
    FLOW_KIND_MASK = 7
};

/** The other features of a producer edge (bits of flow_edge.features). */
enum {
    FLOW_F_PATH_NAMES = 1u << 3, /* the producer's own path names the entity */
    FLOW_F_TEXT_QUERY = 1u << 4, /* it takes a free-text search parameter */
    FLOW_F_CALLER = 1u << 5,     /* the caller's own object (GET /me returning the user) */
    FLOW_F_HINT = 1u << 6,       /* the consumer's description names it ("call GET /me") */
    FLOW_F_CREATES = 1u << 7,    /* it creates the entity rather than reading it: it serves
                                        an input only when the task creates the thing too */
    FLOW_F_DEPRECATED = 1u << 8,
    FLOW_F_TAKES_NAME = 1u << 9, /* of the consumer's input: a name will do as well as an
                                        id ("Can be an encoded ID, or a name") */
    FLOW_F_PARENT = 1u << 10,    /* the producer's path is the consumer's up to the input's
                                        placeholder: the collection the item belongs to
                                        (GET /things for /things/{id}/parts) */
    FLOW_F_OVERLAP_SHIFT = 16    /* bits 16..17: literal path segments producer and consumer
                                        share (max 3; versions and "api" do not count) */
    ,
    FLOW_F_INPUTS_SHIFT = 12 /* bits 12..15: identifier inputs it needs itself (max 15) */
};

/** An input an operation needs before it can be called. */
typedef struct flow_input {
    const char *name;   /* the parameter name as written: "movie_id", "id", "ids", "customer" */
    const char *in;     /* "path", "query" or "body" */
    const char *entity; /* stemmed entity word: "movi", "album", "user" */
    bool accepts_name;  /* its description says a name will do as well as an id */
} flow_input;

/** "consumer needs input, producer returns it". */
typedef struct flow_edge {
    size_t consumer;    /* index into api->ops */
    size_t input;       /* index into the consumer's inputs */
    size_t producer;    /* index into api->ops */
    double score;       /* structural plausibility with the default weights (flow_score) */
    bool explicit_hint; /* the consumer's description names the producer ("call GET /me first") */
    unsigned features;  /* FLOW_KIND_* | FLOW_F_* */
} flow_edge;

typedef struct flow_graph {
    size_t n_ops;
    flow_input **inputs; /* per operation */
    size_t *n_inputs;
    const char ***outputs; /* per operation: entity words whose ids its 2xx responses carry */
    size_t *n_outputs;
    flow_edge *edges;
    size_t n_edges;
    core_arena *arena;
} flow_graph;

/** Does a segment of path stand for the caller ("/me", "/users/@me", "/customers/my",
    "/self", "/current")? Such operations produce what a task calls "my ...". */
bool flow_path_is_mine(const char *path);

/**
 * The structural score of an edge from its features with the default weights: by kind
 * (returns or lists 1, shape 0.75, nested 0.5, refers 0.25), +0.5 when its path names the
 * entity, +0.3 for a text search, +0.5 for the caller's own object, +2 when hinted, +0.5
 * for the item's own collection, +0.25 per shared path segment, -0.25 per input it needs
 * itself, -0.5 when deprecated, -0.5 when it creates rather than reads.
 * The search stage weighs the same features with its own parameters.
 */
double flow_score(unsigned features);

/** Analyses api. *out: flow_free. Deterministic. */
int flow_build(const spec_api *api, flow_graph **out, apidex_error *err);
/** NULL is a no-op. */
void flow_free(flow_graph *df);

/* ---------------------------------------------------------------- operation facts */

/** What an operation does, read from its structure and words at index time (opfacts.c). */
typedef struct flow_op_facts {
    text_action action; /* of its summary's verb (else operationId's), else its method's */
    const char *verb;   /* that verb's stem, or the summary's unknown first word; NULL */
    bool destructive;   /* DELETE, or its verb deletes, cancels, revokes, ... */
    bool text_query;    /* takes a free-text search parameter */
    bool mine;          /* its path is about the caller (/me, /users/@me, /my, /self) */
    bool collection;    /* a GET whose path ends in a literal segment */
} flow_op_facts;

/**
 * Reads the facts of op. ta: an analyzer the caller owns (not thread-safe); strings are
 * allocated in a. Returns 0.
 */
int flow_op_read_facts(const spec_operation *op, text_analyzer *ta, core_arena *a,
                       flow_op_facts *out);
/** Is a parameter a free-text search (q, query, search, term, keyword(s), text in the query)? */
bool flow_param_is_text_query(const char *name, const char *in);

#endif /* APIDEX_FLOW_H */
