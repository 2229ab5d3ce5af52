/* store internals of the PostgreSQL backend (pg_conn.c, pg_fetch.c, pg_publish.c,
   pg_follow.c): connections, errors with the password masked, the generation tables.
   docs/SCALE.md describes the layout. */
#ifndef APIDEX_STORE_PG_INT_H
#define APIDEX_STORE_PG_INT_H

#include "store/store_int.h"

#include <libpq-fe.h>

/** The schema holding `current` (the published generation) and `generation_seq`. */
#define STORE_PG_SCHEMA "apidex"
/** Generation N lives in schema STORE_PG_PREFIX "N". */
#define STORE_PG_PREFIX "apidex_g"
/** The NOTIFY channel a publish signals, with the generation as payload. */
#define STORE_PG_CHANNEL "apidex_generation"
/** The advisory lock key builders take (pg_advisory_lock): "APDX" as in the SQLite id. */
#define STORE_PG_LOCK_KEY 0x41504458

/**
 * Connects to url (libpq also reads PG* variables and service files). display: url with
 * the password masked, for messages. APIDEX_ENET naming display on failure.
 */
int store_pg_connect(const char *url, const char *display, PGconn **out, apidex_error *err);
/** err from a failed result or connection: "display: what PostgreSQL said". code: an
    APIDEX_* status. Returns code. */
int store_pg_error(PGconn *c, const PGresult *res, const char *display, int code,
                   apidex_error *err);
/** Runs sql without results (PGRES_COMMAND_OK or TUPLES_OK); APIDEX_EDB on failure. */
int store_pg_exec(PGconn *c, const char *sql, const char *display, apidex_error *err);

/** The published generation: 0 when nothing was ever published (no apidex schema yet). */
typedef struct store_pg_current {
    long long generation, previous;
    int schema_version;
} store_pg_current;
/** Reads apidex.current (in the caller's transaction, if any). */
int store_pg_current_read(PGconn *c, const char *display, store_pg_current *out, apidex_error *err);

/** Copies generation `gen` into a new SQLite index file at dest (in the caller's
    transaction). */
int store_pg_fetch(PGconn *c, const char *display, long long gen, const char *dest,
                   apidex_error *err);

/** Creates a private temp directory for local copies ($TMPDIR or /tmp); *out: free(),
    store_pg_tempdir_remove. */
int store_pg_tempdir(char **out, apidex_error *err);
/** Removes the files apidex put in dir (index.db and its lock) and dir. */
void store_pg_tempdir_remove(const char *dir);

/** Replaces every occurrence of `from` in err's message by `to` (a temp path by the URL). */
void store_pg_error_rename(apidex_error *err, const char *from, const char *to);

#endif /* APIDEX_STORE_PG_INT_H */
