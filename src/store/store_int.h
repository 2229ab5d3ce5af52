/* store internals shared by the files of src/store (no other stage includes it; test_store_reader
   does): the DDL, SQLite helpers, the PostgreSQL backend's hooks, packing, patching. */
#ifndef APIDEX_STORE_INT_H
#define APIDEX_STORE_INT_H

#include "store/store.h"

#include <sqlite3.h>

/** PRAGMA application_id of an apidex index ("APDX"), to tell it from other SQLite files. */
#define STORE_APPLICATION_ID 0x41504458

/** Creates every table of the current schema in db (main), sets user_version/application_id. */
int store_schema_create(sqlite3 *db, apidex_error *err);

/**
 * Checks the schema of database `schema` ("main", "old") of db: returns 0 when it is an apidex
 * index of STORE_SCHEMA_VERSION, APIDEX_EVERSION (with a message naming path) otherwise.
 * *version gets the user_version found (-1 when not an apidex index).
 */
int store_schema_check(sqlite3 *db, const char *schema, const char *path, int *version,
                       apidex_error *err);

/** The build signature: what must match for rows of an old index to be reused (dataflow:
    store_writer_options.dataflow). */
int store_signature(const char *strategy, const char *filters, int dataflow, core_buf *out);

/** Sets err from db's last error: APIDEX_EDB, "what: sqlite message". Returns APIDEX_EDB. */
int store_db_error(sqlite3 *db, const char *what, apidex_error *err);
/** "PATH cannot be read as an index (why): what to do" for a damaged index file. SQLite's
    generic text for rc is used, never its message (which can show the internal URI). */
int store_damaged_error(const char *path, int rc, apidex_error *err);
/**
 * The error for a file at path that cannot be opened or read as an index (sqlite_rc: what
 * SQLite said): a damaged apidex index (APIDEX_EDB, rebuild with --full), or a file that is
 * not one (check --db; APIDEX_EVERSION when reading, APIDEX_EREFUSED when writing: never
 * replaced).
 */
int store_file_error(const char *path, int sqlite_rc, bool writing, apidex_error *err);
/** Records the server-database generation idx was copied from (pg_fetch.c). */
void store_index_set_generation(store_index *idx, long long generation);
/** store_open for a server database: the current generation, copied into a private SQLite
    file that the reader opens (its name is removed at once; the open file stays). */
int store_pg_open(const char *url, store_index **out, apidex_error *err);
/** What a replica read from the server: rows and bytes (store_index_fetched). */
typedef struct store_pg_counts {
    size_t rows, bytes;
} store_pg_counts;
/** A replica's rows on demand (pg_lazy.c): the tables opening does not read are copied
    into the private file on first use (full: with their heavy columns too), heavy columns
    (store_pg_heavy) are read one row at a time. The index owns it (store_close frees). */
typedef struct store_pg_lazy store_pg_lazy;
void store_index_set_lazy(store_index *idx, store_pg_lazy *z);
int store_pg_lazy_table(store_pg_lazy *z, sqlite3 *db, const char *table, bool full,
                        apidex_error *err);
/** Columns cols[0..n) of table's row at rowid into out[0..n), in arena a (NULL when NULL). */
int store_pg_lazy_row(store_pg_lazy *z, const char *table, const char *const *cols, int n,
                      int64_t rowid, core_arena *a, const char **out, apidex_error *err);
void store_pg_lazy_counts(store_pg_lazy *z, store_pg_counts *out);
void store_pg_lazy_free(store_pg_lazy *z);
/** The current generation at url, 0 when it cannot be read (store_index_changed). */
long long store_pg_generation(const char *url);

/** A build into a server database (store_target_begin, pg_publish.c): connects, takes the
    builders' lock and copies the current generation into a private file (none with full, or
    when it is of another schema version), which the build writes (store_pg_stage_path);
    store_pg_stage_publish makes it the next generation. *out: store_pg_stage_end (rc: the
    build's status; an error naming the private file names the URL instead). */
typedef struct store_pg_stage store_pg_stage;
int store_pg_stage_begin(const char *url, const store_lock_options *lock, bool full,
                         store_pg_stage **out, apidex_error *err);
const char *store_pg_stage_path(const store_pg_stage *s);
int store_pg_stage_publish(store_pg_stage *s, apidex_error *err);
void store_pg_stage_end(store_pg_stage *s, int rc, apidex_error *err);

/** Runs SQL without results; APIDEX_EDB on failure. */
int store_exec(sqlite3 *db, const char *sql, apidex_error *err);
/** "file:<percent-encoded path>?mode=ro&immutable=1" into out (for sqlite3_open_v2 / ATTACH). */
int store_uri_immutable(const char *path, core_buf *out);

/** The "t_<field>" column list ("t_path, t_operation_id, ...") with a prefix per name. */
int store_columns(const char *prefix, core_buf *out);

/** The columns copied table by table when an API is reused (all but rowid). */
extern const char *const store_table_names[];
extern const size_t store_n_tables;

/* ---------------------------------------------------------------- packed text (pack.c) */

/** Scratch for packing: a zstd context and its output buffer. Zero-initialise; one per thread. */
typedef struct store_pack {
    void *cctx; /* ZSTD_CCtx */
    void *data;
    size_t cap, len; /* len: the last packed frame's size, 0 = keep it as text */
} store_pack;

/** Packs s[0..n) into pk (pk->len > 0) when that pays; else pk->len = 0. APIDEX_ENOMEM. */
int store_pack_text(store_pack *pk, const char *s, size_t n);
void store_pack_free(store_pack *pk);
/** Binds s (NUL-terminated, NULL = SQL NULL) to parameter i: a zstd BLOB when packing pays,
    else TEXT (SQLITE_STATIC: s must outlive the step). Returns an SQLite code. */
int store_bind_packed(sqlite3_stmt *st, int i, store_pack *pk, const char *s);
/**
 * Column i of the current row as an arena string: TEXT as is, a packed BLOB
 * decompressed (a frame that does not decode reads as ""), NULL for SQL NULL.
 * *len (may be NULL) gets its length; *fail is set on OOM.
 */
const char *store_unpack_column(sqlite3_stmt *st, int i, core_arena *arena, size_t *len,
                                bool *fail);

/* ---------------------------------------------------------------- patching (patch.c) */

/** The row counts a build reports (store_build_report), kept in meta key "rows" so a patched
    build need not count every table again. */
typedef struct store_rows {
    int64_t apis, operations, schemas, chunks, edges;
} store_rows;
/** Counts the rows of database `schema` ("main", "old"), of API `api` only when not NULL. */
void store_rows_count(sqlite3 *db, const char *schema, const char *api, store_rows *out);
/** The counts in `schema`.meta "rows": 0, or -1 when it has none. */
int store_rows_read(sqlite3 *db, const char *schema, store_rows *out);
/** "apis operations schemas chunks edges" into out (the meta value). */
void store_rows_format(const store_rows *r, char *out, size_t cap);

/** Whether the index at path can be patched by a build of this signature: a whole apidex
    index of the current schema built with the same signature. */
bool store_patch_eligible(const char *path, const char *signature);
/** Copies the file `from` to `to` (created or truncated): a reflink where possible. */
int store_patch_copy(const char *from, const char *to, apidex_error *err);
/** Deletes document `path` and every row of API `api` from db's main schema; adds the rows
    deleted to *removed. */
int store_patch_drop(sqlite3 *db, const char *path, const char *api, store_rows *removed,
                     apidex_error *err);

/* json_read.c: a JSON list of strings (NULL or "" = none; text that is not one reads as
   none) and an API's servers and tags JSON, into arena records. APIDEX_ENOMEM or 0. */
int store_json_strings(core_arena *a, const char *text, const char ***out, size_t *n);
int store_json_api(core_arena *arena, store_api *a, const char *servers, const char *tags);

/* reader.c: the SQLite handle of an open index (image.c reads its BLOB). */
sqlite3 *store_index_db(store_index *idx);

/* The search image's file the index names, mapped (image_map.c); tried once per index. */
typedef struct store_mapping {
    void *data; /* NULL: none, or not usable */
    size_t len;
    bool tried;
} store_mapping;
/* reader.c: the index's mapping (unmapped by store_close) and the path it was opened at. */
store_mapping *store_index_image_map(store_index *idx);
const char *store_index_file(const store_index *idx);
/** The documents idx has loaded again (opdoc.c): created on first use, NULL when out of
    memory (then nothing is kept). Freed by store_close. */
typedef struct store_doc_cache store_doc_cache;
store_doc_cache *store_index_doc_cache(store_index *idx);
store_doc_cache *store_doc_cache_new(void);
void store_doc_cache_free(store_doc_cache *c);
/* image_map.c: the path of the image file the index names (meta.image_file, beside the
   index), malloc'd, or NULL when it names none. */
char *store_image_file_path(store_index *idx);
/* image_map.c: unmaps m (zeroed). */
void store_mapping_release(store_mapping *m);

/**
 * Keeps the max nearest items seen so far (resolve_api.c): best[0..*n) ordered by dist, the
 * nearest first; item at distance d goes in when there is room or it is nearer than the last
 * kept (ties keep the earlier item). *n grows up to max.
 */
void store_nearest_keep(long *best, size_t *dist, size_t *n, size_t max, long item, size_t d);

#endif /* APIDEX_STORE_INT_H */
