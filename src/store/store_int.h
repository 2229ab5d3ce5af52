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

#endif /* APIDEX_STORE_INT_H */
