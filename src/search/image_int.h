/*
 * The search image's format (image.c writes and reads it, image_patch.c patches it): the
 * records every section is made of. docs/INDEX.md ("The search image") describes them.
 */
#ifndef APIDEX_SEARCH_IMAGE_INT_H
#define APIDEX_SEARCH_IMAGE_INT_H

#include "search/search_int.h"

/* version 2: the APIS section (which chunks are whose, so add and remove patch the image);
   3: PROD's API records (whose operations are where, so add and remove patch PROD too);
   4: the LEARN section (owners and API names, learned at build time, not at every open) */
enum {
    IMAGE_VERSION = 4,
    IMAGE_ENDIAN = 0x01020304,
    SECTION_LEX = 1,
    SECTION_APIS = 2,
    SECTION_PROD = 3,
    SECTION_OPS = 4,
    SECTION_LEARN = 5
};
extern const char image_magic[8];

typedef struct image_header {
    char magic[8];
    uint32_t version; /* IMAGE_VERSION */
    uint32_t endian;  /* IMAGE_ENDIAN as the writer stored it */
    uint64_t build_id;
    uint64_t length;   /* of the whole image, header included */
    uint64_t checksum; /* XXH3-64 of the bytes after the header */
    uint32_t n_sections;
    uint32_t reserved;
} image_header;

typedef struct image_section {
    uint32_t kind; /* SECTION_* */
    uint32_t reserved;
    uint64_t offset, length;
} image_section;

typedef struct image_lex {
    uint64_t n_docs, n_ranked, n_terms, n_postings, table_size, pool_len;
    uint64_t doc_len, terms, postings, table, sorted, pool; /* offsets */
    uint32_t field_count;                                   /* STORE_FIELD_COUNT */
    uint32_t posting_size;
    double avg_len[STORE_FIELD_COUNT];
} image_lex;

typedef struct image_term {
    uint32_t str, len; /* in the pool, NUL-terminated */
    uint32_t df, reserved;
    uint64_t post, n_post; /* first posting (index into the postings array), count */
} image_term;

_Static_assert(sizeof(posting) == 8, "a posting is a fixed 8-byte record");
_Static_assert(sizeof(image_header) % 8 == 0 && sizeof(image_section) % 8 == 0 &&
                   sizeof(image_lex) % 8 == 0 && sizeof(image_term) % 8 == 0,
               "image records keep 8-byte alignment");

/* Section APIS: the APIs in chunk order, each with the chunks it has (a run of
   consecutive chunks), its content hash and the rowids of its first and last chunk (kept
   rows keep theirs when add or remove patches the file), so a patch knows which chunks
   of the old image are still there and where. */
typedef struct image_apis {
    uint64_t n_apis, n_docs, pool_len;
    uint64_t recs, pool; /* offsets */
    uint32_t use_fields; /* lex_use_fields when it was written */
    uint32_t reserved;
} image_apis;

typedef struct image_api {
    uint32_t str, len;               /* its id, in the pool, NUL-terminated */
    uint64_t hash;                   /* store_api.content_hash */
    int64_t first_rowid, last_rowid; /* its chunks are the rows first..last */
    uint64_t n_docs, n_ranked;       /* chunks, and those that cover endpoints */
} image_api;

/* Section PROD: every operation's producers as engine_producers leaves them (in its order,
   its shares bit for bit): per operation the first of its records (n_ops + 1 of them),
   the records, per API with operations (in operation order) its record, and a pool of the
   parameter, entity and API id strings (each once). */
typedef struct image_prod {
    uint64_t n_ops, n_refs, pool_len;
    uint64_t starts, refs, pool; /* offsets */
    uint64_t n_apis, apis;       /* API records, offset */
} image_prod;

/* An API's operations: n_ops rows from first_rowid to last_rowid (store_op_runs), its
   content hash; an API's producers are its own (its edges name its operations only, its
   shares count its operations only), so an API of a patched file with the same record
   keeps its producers, moved by the shift of its first operation. */
typedef struct image_prod_api {
    uint32_t str, len; /* its id, in the pool, NUL-terminated */
    uint64_t hash;
    int64_t first_rowid, last_rowid;
    uint64_t n_ops;
} image_prod_api;

typedef struct image_pref {
    uint32_t producer, features;
    uint32_t param, entity; /* in the pool, NUL-terminated */
    double share;
    uint64_t api_ops;
} image_pref;

_Static_assert(sizeof(image_prod) % 8 == 0 && sizeof(image_pref) % 8 == 0 &&
                   sizeof(image_prod_api) % 8 == 0,
               "image records keep 8-byte alignment");

/* Section OPS (image_ops.c): what opening reads of every operation and chunk, so it reads
   no operation or chunk row. Per operation a record of its values (strings as offsets in
   the section's pool, IMAGE_NONE for NULL) with its inputs and tags in two arrays; per
   chunk whether it is an endpoint chunk and the operations it covers (IMAGE_NONE: one the
   index does not have). Summaries and descriptions stay in the rows, read by rowid. */
enum { IMAGE_NONE = 0xffffffffu };

typedef struct image_ops {
    uint64_t n_ops, n_inputs, n_tags, n_docs, n_ends, pool_len;
    uint64_t recs, inputs, tags, docs, ends, pool; /* offsets */
} image_ops;

typedef struct image_op {
    uint32_t id, api, method, path, operation_id, verb; /* in the pool */
    uint32_t api_index, flags;
    int32_t action;
    uint32_t deprecated;
    uint32_t first_input, n_inputs, first_tag, n_tags;
    uint64_t tokens;
    int64_t rowid; /* its row: the summary and description are read from it when shown */
} image_op;

typedef struct image_input {
    uint32_t name, location, field, required;
} image_input;

typedef struct image_doc {
    uint32_t endpoint; /* its type is "endpoint" */
    uint32_t first_end, n_ends;
    uint32_t reserved;
} image_doc;

_Static_assert(sizeof(image_ops) % 8 == 0 && sizeof(image_op) % 8 == 0 &&
                   sizeof(image_input) % 8 == 0 && sizeof(image_doc) % 8 == 0,
               "image records keep 8-byte alignment");

/* Section LEARN (image_learn.c): what owner_learn, route_api_names, action_learn and
   dupes_mark learn over the whole registry, as they leave it. Per operation its owner term (-1:
   none) and the run of the terms its owner has (int64 term indexes); per API name its stem (in the
   pool), the run of its APIs (u32 API indexes), its flags and shares; the names' open-addressing
   table (name index + 1) as routing.c fills it; per term its learned verb counts by action; per
   operation whether it is superseded (an older copy's). */
typedef struct image_learn {
    uint64_t n_ops, n_apis, n_terms; /* the engine it was learned on */
    uint64_t n_has, n_names, n_name_apis, name_table_size, pool_len;
    uint64_t owners, has, names, name_apis, name_table, pool; /* offsets */
    uint64_t verb_counts; /* offset: per term u16[5] (action_learn) */
    uint64_t superseded;  /* offset: per operation a byte (dupes_mark), or 0: none is */
} image_learn;

typedef struct image_owner {
    int64_t owner;
    uint32_t first_has, n_has;
} image_owner;

typedef struct image_name {
    uint32_t stem, first_api, n_apis;
    uint8_t vocab, label, reserved[2];
    double share, spread;
    uint64_t n_services;
} image_name;

_Static_assert(sizeof(image_learn) % 8 == 0 && sizeof(image_owner) % 8 == 0 &&
                   sizeof(image_name) % 8 == 0,
               "image records keep 8-byte alignment");

/* image_learn.c: opens an engine on the encoded image img (its LEARN entry empty), learns
   what opening would and appends it as section LEARN (header, directory and checksum
   rewritten). */
int image_add_learn(store_index *idx, core_buf *img, apidex_error *err);
/* image_learn.c: e's owners and API names pointed into section s (e->info set, e->n_terms
   and e->n_apis known); NULL, or why not (e as it was). */
const char *image_use_learn(search_engine *e, const unsigned char *img, uint64_t len,
                            const image_section *s);

/* Strings each stored once in a section's pool (NUL-terminated; offsets below 4 GiB). */
typedef struct image_strpool {
    core_buf b;
    uint32_t *slot; /* open addressing: offset + 1 */
    size_t size, n;
} image_strpool;
int image_pool_add(image_strpool *p, const char *s, uint32_t *off);
void image_pool_free(image_strpool *p);
/* Appends n bytes and pads to 8 (image.c). */
int image_put(core_buf *b, const void *p, size_t n);
/* Section OPS of the index e->idx (store_operations and store_chunks, loaded before: the
   rows' build loads them), at offset at of b (image_ops.c). */
int image_write_ops(const search_engine *e, core_buf *b, size_t at);

/* An API's run of chunks, as the APIS section records it. */
typedef struct image_run {
    const char *api;
    uint64_t hash;
    int64_t first_rowid, last_rowid;
    size_t n_docs, n_ranked;
} image_run;

/* An API's run of operations, as the PROD section records it. */
typedef struct image_op_run {
    const char *api;
    uint64_t hash;
    int64_t first_rowid, last_rowid;
    size_t n_ops;
} image_op_run;

/* The image of a built lexical index, its runs of chunks and, when e->info is set, its
   operations' producers and runs of operations (out empty). */
int image_encode(const search_engine *e, const image_run *runs, size_t n_runs,
                 const image_op_run *ops, size_t n_op_runs, uint64_t build_id, core_buf *out);
/* image_prod.c: the file's runs of operations (*out: free()); strings in e->arena. */
int image_op_runs(search_engine *e, image_op_run **out, size_t *n, apidex_error *err);
/* image_prod.c: every operation's producers (e->n_ops, e->info with per-operation arrays) as
   engine_producers would leave them on the file's rows, from the PROD section of the old
   image of the file add or remove patched for the APIs whose runs of operations are the
   same, from their own rows for the others: 0 done, 1 the old image's PROD cannot be used
   (e as it was), else an error. */
int image_prod_patch(search_engine *e, const void *old, size_t len, const image_op_run *ops,
                     size_t n_op_runs, apidex_error *err);

_Static_assert(sizeof(image_apis) % 8 == 0 && sizeof(image_api) % 8 == 0,
               "image records keep 8-byte alignment");

/* [off, off + n * size) inside an image of len bytes, 8-byte aligned. */
bool image_within(uint64_t len, uint64_t off, uint64_t n, uint64_t size);
/* Why an image of len bytes cannot be used (header, version, checksum, sections' bounds;
   build_id: the index's, or 0 for any), or NULL, with its sections (NULL: absent). */
const char *image_check(const void *data, size_t len, uint64_t build_id, const image_section **lex,
                        const image_section **apis);
/* The section of this kind, or NULL (after image_check). */
const image_section *image_section_of(const void *data, uint32_t kind);
/* Checks the LEX section against n_docs chunks and points e's lexical index into the
   image (e->docs allocated, n_docs of them); NULL, or why not (e then half set). */
const char *image_use_lex(search_engine *e, const unsigned char *img, uint64_t len,
                          const image_section *s);
/* Every term's postings name a chunk and a field (image_use_lex leaves that to the first
   read, lex_postings): a patch reads them all. */
bool image_postings_all_ok(const search_engine *e);
/* image_patch.c: e's lexical index (e->idx set, nothing else) from the old image of the file
   add or remove patched plus the chunks written since, as lex_docs, lex_build and
   lex_sort_terms would leave it (the same terms in the same order; e->docs holds the field
   lengths only), and *runs (free()) the file's runs of chunks: 0 when patched (the
   postings, table, order and term strings live in one buffer, e->image, which lex_free
   frees), 1 when the old image cannot be patched (e is as it was: build from the rows),
   else an error. */
int image_patch(search_engine *e, const void *old, size_t len, image_run **runs, size_t *n_runs,
                apidex_error *err);

#endif
