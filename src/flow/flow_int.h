/* Private to the data flow analysis (src/flow): its bounds, word sets, the per-API
   context and the helpers its files share. The design is in flow.c. */
#ifndef APIDEX_FLOW_INT_H
#define APIDEX_FLOW_INT_H

#include "flow/flow.h"
#include "text/text.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    FLOW_MAX_DEPTH = 6,
    FLOW_MAX_VISITS = 4000,
    FLOW_MAX_WORDS = 64,
    FLOW_MAX_CTX = 48,
    FLOW_MAX_BODY_INPUTS = 8,
    FLOW_MAX_KEYS = 128,
    FLOW_MAX_SHAPES = 256,
    FLOW_MAX_OUTPUTS = 32
};

typedef struct word_set {
    const char *w[FLOW_MAX_WORDS];
    size_t n;
} word_set;

/* The property names of one object schema (top level, allOf merged). */
typedef struct key_set {
    const char *k[FLOW_MAX_KEYS];
    size_t n;
} key_set;

/* An entity's canonical shape: the object "GET /things/{thing_id}" returns. */
typedef struct shape {
    const char *entity;
    key_set keys;
} shape;

/* What one operation produces: an entity and how (FLOW_KIND_*, lower is stronger). */
typedef struct output {
    const char *entity;
    unsigned kind;
} output;

typedef struct output_set {
    output o[FLOW_MAX_OUTPUTS];
    size_t n;
} output_set;

/* Naming context on the way down a response schema, innermost last. */
typedef struct ctx_words {
    const char *w[FLOW_MAX_CTX];
    bool last[FLOW_MAX_CTX]; /* the word ends its item (a property key or a schema name) */
    size_t n;
} ctx_words;

/* A set of words without a size limit (an API's entities), in insertion order. */
typedef struct str_set {
    const char **items;
    size_t n, cap_items;
    uint32_t *slot; /* open addressing: index + 1 */
    size_t cap;     /* a power of two */
    core_arena *arena;
} str_set;
typedef struct flow_ctx {
    const spec_api *api;
    core_arena *arena;
    text_analyzer *ta;
    str_set vocab;       /* entities of the API's path parameters and identifier inputs */
    word_set envelope;   /* container words (stemmed) */
    output_set *out;     /* outputs of the operation being analysed */
    word_set path_words; /* literal path words of that operation */
    bool sub_resource;   /* its path ends in a literal segment after a placeholder */
    size_t visits;
    shape *shapes;
    size_t n_shapes;
    str_set words; /* every word met, stored once: schemas are walked again for each
                      operation, and a copy per visit grew with operations x visits */
} flow_ctx;

/* flow.c: word sets and names */
long flow_sset_find(const str_set *s, const char *w);
bool flow_sset_has(const str_set *s, const char *w);
/* Adds w (copied); returns its index, or -1 when out of memory. */
long flow_sset_add(str_set *s, const char *w);
void flow_sset_free(str_set *s);
bool flow_set_has(const word_set *s, const char *w);
/* Adds the stemmed words of s to set. */
void flow_add_words(flow_ctx *d, word_set *set, const char *s);
/* Length of an identifier suffix (id, ids, key, sid, uuid), 0 if none. */
size_t flow_id_suffix(const char *name);
/* A name that is a key and nothing else. */
bool flow_bare_id(const char *name);
/* Is a property name an object's own identifier? */
bool flow_own_id_key(const char *key);
/* Last stemmed word of s[0..n), or NULL. */
const char *flow_last_word(flow_ctx *d, const char *s, size_t n);
/* Literal words of a path (placeholders skipped). */
void flow_path_words(flow_ctx *d, const char *path, word_set *out);

/* inputs.c: what each operation needs */
/* "Can be an encoded ID, or a name": the input takes the thing's name as well as its id. */
bool flow_accepts_name(const char *desc);
/* Identifier inputs of every operation; their entities make the API's vocabulary. */
void flow_find_inputs(flow_ctx *d, flow_graph *df);
void flow_refine_query_ids(flow_ctx *d, flow_graph *df);
/* Required query or body inputs named as an entity the API returns objects of. */
void flow_find_entity_named_inputs(flow_ctx *d, flow_graph *df, const str_set *produced);

/* outputs.c: what each operation returns */
/* The canonical shape of each entity (the object "GET /things/{thing_id}" returns). */
int flow_collect_shapes(flow_ctx *d, const flow_graph *df);
/* Walks a response schema; every object with an id adds what it stands for to d->out. */
void flow_walk_schema(flow_ctx *d, spec_loc loc, ctx_words c, size_t from, bool in_array,
                      bool nested, bool top, unsigned depth);

/* edges.c: producers ranked for each input */
int flow_build_edges(flow_ctx *d, flow_graph *df, const output_set *outs,
                     const flow_op_facts *facts);

#endif /* APIDEX_FLOW_INT_H */
