/* store_writer internals shared by writer.c (the new index) and writer_old.c (the old one). */
#ifndef APIDEX_STORE_WRITER_INT_H
#define APIDEX_STORE_WRITER_INT_H

#include "store/store_int.h"

#include <stdlib.h>
#include <string.h>

/* A document of the old index. */
typedef struct old_doc {
    char *path;
    char *api;
    uint64_t hash;
    bool used;    /* reused (or kept) in the new index */
    bool in_file; /* patching: its rows are still in the temp file */
} old_doc;

/* A tag of the API being written, with its operation count. */
typedef struct pending_tag {
    const char *name;
    const char *description;
    size_t n_ops;
} pending_tag;

/* Ordinals of the API being written: operation or schema id -> its position among the
   API's operations (or schemas) in write order, which is its rowid order. */
typedef struct ord_map {
    const char **keys;
    size_t *ords;
    size_t mask, n;
} ord_map;

/* An edge of the API being written, held until store_w_flush_api: an operation may name a
   schema written after it. Strings live in the API arena. */

enum { ST_DOC, ST_API, ST_OP, ST_INPUT, ST_SCHEMA, ST_CHUNK, ST_EDGE, ST_VECTOR, ST_COUNT };

/* An alias of the old index. */
typedef struct old_alias {
    char *alias, *api;
} old_alias;

struct store_writer {
    sqlite3 *db;
    char *target;
    char *tmp;
    char *strategy, *filters;
    bool has_old;
    bool full_rebuild;
    bool patched;               /* the temp file started as a copy of the old index (patch.c) */
    store_rows removed, copied; /* patching: rows deleted, rows copied from the old index */
    char reason[256];
    old_doc *old;
    size_t n_old;
    old_alias *aliases;
    size_t n_aliases;
    bool legacy_ids; /* the old index is of an older schema: its ids were file stems */
    sqlite3_stmt *st[ST_COUNT];
    /* The API being written: its row is inserted when the next one starts (or at
       commit), once its operation and schema counts and tag counts are known. */
    bool has_api;
    store_api api;
    core_arena *api_arena;
    pending_tag *tags;
    size_t n_tags, cap_tags;
    size_t api_ops, api_schemas;
    ord_map op_ords, schema_ords;
    /* The current API's operations' content, by ordinal (in api_arena): an endpoint chunk
       whose content is its operation's stores none of its own (NULL; readers take the
       operation's). */
    const char **op_content;
    size_t cap_op_content;
    store_edge *edges;
    size_t n_edges, cap_edges;
    size_t added, updated, unchanged, kept; /* documents, for the report */
    /* The API ids added or updated, each a kind byte (STORE_CHANGE_*) and the id with its
       NUL, for opt.on_change once the new index is in place. */
    core_buf changes;
    void (*on_change)(void *ctx, store_change kind, const char *api);
    void *on_change_ctx;
    store_image_builder image; /* store_writer_options.image */
    int dataflow;              /* store_writer_options.dataflow */
    text_analyzer *terms;
    bool by_field; /* strategy hybrid: chunks are ranked field by field (field_terms) */
    store_pack pack;
    core_buf buf;  /* terms of one record, NUL-separated */
    core_buf json; /* JSON columns */
};

static inline int store_w_oom(apidex_error *err)
{
    return core_error_set(err, APIDEX_ENOMEM, "out of memory while writing the index");
}

static inline uint64_t store_w_parse_hex64(const char *s)
{
    return s ? strtoull(s, NULL, 16) : 0;
}

static inline char *store_w_strdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* writer.c: inserts the pending API row and its edges (see there). */
int store_w_flush_api(store_writer *w, apidex_error *err);

/* image.c: after the last row, before the fsync and rename: the search image of the
   finished temp file (the bytes of the writer's builder) written to its file beside target
   and named in the temp file's meta (*name: the file's name, malloc'd; NULL without a
   builder, when the temp file names no image and holds none). */
int store_w_put_image(const char *tmp, const char *target, uint64_t build_id,
                      store_image_builder image, char **name, apidex_error *err);
/* image.c: removes the image file *name beside target (the index naming it was never
   installed) and frees *name (NULL after). */
void store_w_image_abort(const char *target, char **name);
/* image_map.c: img written to `<target>.image-<build_id as 16 hex>` (a temp file, fsynced,
   then renamed); *name: that file's name (malloc'd). */
int store_w_write_image_file(const char *target, uint64_t build_id, const core_buf *img,
                             char **name, apidex_error *err);
/* image_map.c: after the index is renamed to target, removes the image files of other
   generations beside it (and an older apidex's `<target>.image`), all but keep (NULL: all). */
void store_w_prune_image_files(const char *target, const char *keep);

/* writer_old.c */
/** The old document at path, or NULL. */
old_doc *store_w_find_old(store_writer *w, const char *path);
/** Frees the old documents. */
void store_w_free_old(store_writer *w);
/** Attaches the current index for reuse when it is compatible (see writer_old.c). */
int store_w_attach_old(store_writer *w, const store_writer_options *opt, apidex_error *err);

#endif /* APIDEX_STORE_WRITER_INT_H */
