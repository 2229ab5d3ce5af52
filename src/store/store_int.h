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

/* ---------------------------------------------------------------- load-ahead (prefetch.c) */

/** Load-ahead of a deferred registry's APIs, in registry order (see prefetch.c). */
typedef struct store_prefetch store_prefetch;
/** Starts jobs - 1 worker threads (jobs >= 1; the caller's thread is the last job). */
int store_prefetch_start(spec_registry *reg, unsigned jobs, store_prefetch **out);
/** Waits until API i is loaded (loading it on this thread when no worker took it). Call in
    ascending i. Returns spec_registry_load's status. */
int store_prefetch_wait(store_prefetch *p, size_t i);
/** API i is written: unloads it and lets the workers load further. */
void store_prefetch_done(store_prefetch *p, size_t i);
/** Stops and joins the workers, frees p. NULL is a no-op. */
void store_prefetch_stop(store_prefetch *p);

/* json_read.c: a JSON list of strings (NULL or "" = none; text that is not one reads as
   none) and an API's servers and tags JSON, into arena records. APIDEX_ENOMEM or 0. */
int store_json_strings(core_arena *a, const char *text, const char ***out, size_t *n);
int store_json_api(core_arena *arena, store_api *a, const char *servers, const char *tags);

#endif /* APIDEX_STORE_INT_H */
