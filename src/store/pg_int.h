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
    transaction). all: every table, in full (a build's starting point); else only the
    tables opening reads, light (a replica: the rest on demand, pg_lazy.c). counts: the
    rows and bytes read are added to it (or NULL). */
int store_pg_fetch(PGconn *c, const char *display, long long gen, const char *dest, bool all,
                   store_pg_counts *counts, apidex_error *err);

/** True for a column a replica reads one row at a time when shown, never with its table. */
bool store_pg_heavy(const char *table, const char *column);
/** store_pg_copy_table modes: the table has no rowid (key order instead); without the heavy
    columns; INSERT OR REPLACE (rows a light copy made before). */
enum { STORE_PG_NO_ROWID = 1, STORE_PG_LIGHT = 2, STORE_PG_REPLACE = 4 };
/** Copies table `name` of generation gen into db (which has the table), in row order. */
int store_pg_copy_table(PGconn *c, const char *display, long long gen, sqlite3 *db,
                        const char *name, unsigned mode, store_pg_counts *counts,
                        apidex_error *err);

/** In c's transaction: ACCESS SHARE locks on every table of generation gen (a publish
    cannot drop it until the transaction ends) and, unless build_id is 0, a check that it
    still holds the index of that build id. APIDEX_EDB when it is gone. */
int store_pg_lock_generation(PGconn *c, const char *display, long long gen, uint64_t build_id,
                             apidex_error *err);
/** A replica's rows on demand (pg_lazy.c) over c, which is in the transaction that copied
    the generation and locked it; takes c and dir (the private file's directory). */
int store_pg_lazy_new(PGconn *c, const char *url, const char *display, long long generation,
                      uint64_t build_id, char *dir, const store_pg_counts *counts,
                      store_pg_lazy **out, apidex_error *err);

/** Creates a private temp directory for local copies ($TMPDIR or /tmp); *out: free(),
    store_pg_tempdir_remove. */
int store_pg_tempdir(char **out, apidex_error *err);
/** Removes the files apidex put in dir (index.db and its lock) and dir. */
void store_pg_tempdir_remove(const char *dir);

/** Replaces every occurrence of `from` in err's message by `to` (a temp path by the URL). */
void store_pg_error_rename(apidex_error *err, const char *from, const char *to);

#endif /* APIDEX_STORE_PG_INT_H */
