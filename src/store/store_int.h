/* store internals shared by schema.c, writer.c, reader.c and build.c: the DDL, SQLite helpers. */
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

/** The build signature: what must match for rows of an old index to be reused. */
int store_signature(const char *strategy, const char *filters, core_buf *out);

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
/** The current generation at url, 0 when it cannot be read (store_index_changed). */
long long store_pg_generation(const char *url);

/** store_build for a server database: builds from the current generation, publishes a new
    one (pg_publish.c). */
int store_pg_build(const char *url, spec_registry *reg, const store_build_options *opt,
                   store_build_report *rep, apidex_error *err);

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

/* ---------------------------------------------------------------- load-ahead (prefetch.c) */

/** Load-ahead of a deferred registry's APIs, in registry order (see prefetch.c). */
typedef struct store_prefetch store_prefetch;
/** Starts jobs - 1 worker threads (jobs >= 1; the caller's thread is the last job). A load
    starts only while the memory budgets of the APIs loaded and not yet written fit in
    mem_cap bytes (0: half the RAM, or $APIDEX_MAX_LOAD_MEMORY_TOTAL MiB), or none is held. */
int store_prefetch_start(spec_registry *reg, unsigned jobs, size_t mem_cap, store_prefetch **out);
/** Waits until API i is loaded (loading it on this thread when no worker took it). Call in
    ascending i. Returns spec_registry_load's status. */
int store_prefetch_wait(store_prefetch *p, size_t i);
/** API i is written: unloads it and lets the workers load further. */
void store_prefetch_done(store_prefetch *p, size_t i);
/** Stops and joins the workers, frees p. NULL is a no-op. held_peak, reserved_peak (each may
    be NULL) get the most APIs that held a budget at once, and the most bytes they held. */
void store_prefetch_stop(store_prefetch *p, size_t *held_peak, size_t *reserved_peak);

/* ---------------------------------------------------------------- API ids (build_ids.c) */

/** Old document i's content hash (writer_old.c; 0 when out of range). */
uint64_t store_writer_old_hash(const store_writer *w, size_t i);
/** True when the old index is of an older schema, whose ids were file names. */
bool store_writer_old_ids_legacy(const store_writer *w);
/** The aliases of the old index (none in an index of an older schema); strings owned by w. */
size_t store_writer_old_alias_count(const store_writer *w);
void store_writer_old_alias(const store_writer *w, size_t i, const char **alias, const char **api);
/** Records that `alias` names API `api` in the new index (the first one given wins). */
int store_writer_add_alias(store_writer *w, const char *alias, const char *api, apidex_error *err);

/** The ids of one build, settled API by API in registry order (build_ids.c). */
typedef struct store_ids store_ids;
/**
 * Before any API is written: the given ids (APIDEX_EINVAL when one is not valid or two
 * documents have the same), the ids the old index keeps, and the ids proposals may not
 * take. doc_keys[i]: the documents-table key of API i.
 */
int store_ids_begin(store_writer *w, spec_registry *reg, const char *const *doc_keys,
                    const store_build_options *opt, store_ids **out, apidex_error *err);
/** API i is loaded: gives it its id (renaming it in reg) before any row of it is written.
    Call in ascending i, on one thread. */
int store_ids_settle(store_ids *ids, spec_registry *reg, size_t i, apidex_error *err);
/** The id API i was settled with, or NULL. */
const char *store_ids_final(const store_ids *ids, size_t i);
/** API i was settled but is not in the new index (it failed, with no version to keep). */
void store_ids_unwritten(store_ids *ids, size_t i);
/** After the last API: writes the aliases of the new index. */
int store_ids_finish(store_ids *ids, apidex_error *err);
void store_ids_free(store_ids *ids);
/* json_read.c: a JSON list of strings (NULL or "" = none; text that is not one reads as
   none) and an API's servers and tags JSON, into arena records. APIDEX_ENOMEM or 0. */
int store_json_strings(core_arena *a, const char *text, const char ***out, size_t *n);
int store_json_api(core_arena *arena, store_api *a, const char *servers, const char *tags);

/* reader.c: the SQLite handle of an open index (image.c reads its BLOB). */
sqlite3 *store_index_db(store_index *idx);

/* The search image's file beside the index, mapped (image_map.c); tried once per index. */
typedef struct store_mapping {
    void *data; /* NULL: none, or not usable */
    size_t len;
    bool tried;
} store_mapping;
/* reader.c: the index's mapping (unmapped by store_close) and the path it was opened at. */
store_mapping *store_index_image_map(store_index *idx);
const char *store_index_file(const store_index *idx);
/* image_map.c: unmaps m (zeroed). */
void store_mapping_release(store_mapping *m);

#endif /* APIDEX_STORE_INT_H */
