/* Private to the data flow analysis (dataflow*.c): its bounds, word sets, the per-API
   context and the helpers its files share. The design is in dataflow.c. */
#ifndef APIDEX_CHUNK_DATAFLOW_INT_H
#define APIDEX_CHUNK_DATAFLOW_INT_H

#include "chunk/chunk.h"
#include "chunk/dataflow.h"
#include "text/text.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    DF_MAX_DEPTH = 6,
    DF_MAX_VISITS = 4000,
    DF_MAX_WORDS = 64,
    DF_MAX_CTX = 48,
    DF_MAX_BODY_INPUTS = 8,
    DF_MAX_KEYS = 128,
    DF_MAX_SHAPES = 256,
    DF_MAX_OUTPUTS = 32
};

typedef struct word_set {
    const char *w[DF_MAX_WORDS];
    size_t n;
} word_set;

/* The property names of one object schema (top level, allOf merged). */
typedef struct key_set {
    const char *k[DF_MAX_KEYS];
    size_t n;
} key_set;

/* An entity's canonical shape: the object "GET /things/{thing_id}" returns. */
typedef struct shape {
    const char *entity;
    key_set keys;
} shape;

/* What one operation produces: an entity and how (DATAFLOW_KIND_*, lower is stronger). */
typedef struct output {
    const char *entity;
    unsigned kind;
} output;

typedef struct output_set {
    output o[DF_MAX_OUTPUTS];
    size_t n;
} output_set;

/* Naming context on the way down a response schema, innermost last. */
typedef struct ctx_words {
    const char *w[DF_MAX_CTX];
    bool last[DF_MAX_CTX]; /* the word ends its item (a property key or a schema name) */
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
typedef struct df_ctx {
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
} df_ctx;

/* dataflow.c: word sets and names */
long dataflow_sset_find(const str_set *s, const char *w);
bool dataflow_sset_has(const str_set *s, const char *w);
/* Adds w (copied); returns its index, or -1 when out of memory. */
long dataflow_sset_add(str_set *s, const char *w);
void dataflow_sset_free(str_set *s);
bool dataflow_set_has(const word_set *s, const char *w);
/* Adds the stemmed words of s to set. */
void dataflow_add_words(df_ctx *d, word_set *set, const char *s);
/* Length of an identifier suffix (id, ids, key, sid, uuid), 0 if none. */
size_t dataflow_id_suffix(const char *name);
/* A name that is a key and nothing else. */
bool dataflow_bare_id(const char *name);
/* Is a property name an object's own identifier? */
bool dataflow_own_id_key(const char *key);
/* Last stemmed word of s[0..n), or NULL. */
const char *dataflow_last_word(df_ctx *d, const char *s, size_t n);
/* Literal words of a path (placeholders skipped). */
void dataflow_path_words(df_ctx *d, const char *path, word_set *out);

/* dataflow_inputs.c: what each operation needs */
/* "Can be an encoded ID, or a name": the input takes the thing's name as well as its id. */
bool dataflow_accepts_name(const char *desc);
/* Identifier inputs of every operation; their entities make the API's vocabulary. */
void dataflow_find_inputs(df_ctx *d, dataflow *df);
void dataflow_refine_query_ids(df_ctx *d, dataflow *df);
/* Required query or body inputs named as an entity the API returns objects of. */
void dataflow_find_entity_named_inputs(df_ctx *d, dataflow *df, const str_set *produced);

/* dataflow_outputs.c: what each operation returns */
/* The canonical shape of each entity (the object "GET /things/{thing_id}" returns). */
int dataflow_collect_shapes(df_ctx *d, const dataflow *df);
/* Walks a response schema; every object with an id adds what it stands for to d->out. */
void dataflow_walk_schema(df_ctx *d, spec_loc loc, ctx_words c, size_t from, bool in_array,
                          bool nested, bool top, unsigned depth);

/* dataflow_edges.c: producers ranked for each input */
int dataflow_build_edges(df_ctx *d, dataflow *df, const output_set *outs,
                         const chunk_op_facts *facts);

#endif /* APIDEX_CHUNK_DATAFLOW_INT_H */
