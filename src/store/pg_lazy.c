/*
 * A replica's rows on demand. A reader of a PostgreSQL index copies, when it opens, only
 * what opening reads (meta, documents, apis, aliases and the search image: pg_fetch.c); the
 * other tables are copied into its private file on first use, without their heavy columns
 * (store_pg_heavy: rendered content, chunk texts and terms, an API's snapshot), and each of
 * those is read by rowid when it is shown.
 *
 * Never two generations: the connection that copied the generation keeps its REPEATABLE
 * READ transaction open while the index is, with an ACCESS SHARE lock on every table of the
 * generation. A publish's DROP SCHEMA of that generation waits for the lock (and gives up
 * after its lock_timeout, for the next publish to try again), so every later read finds the
 * rows the open saw. When that connection is lost (a server restart, an idle timeout) a new
 * one locks the generation again and checks its build id; a generation that is gone by
 * then fails the read with an error that says to open the index again, never with rows of
 * another generation. docs/SCALE.md describes it.
 */
#include "store/pg_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The tables copied on first use, and the bit of each in light/full. */
static const char *const lazy_tables[] = {"operations", "inputs", "schemas",
                                          "chunks",     "edges",  "vectors"};
enum { N_LAZY = sizeof lazy_tables / sizeof *lazy_tables };

struct store_pg_lazy {
    pthread_mutex_t lock; /* the connection and the fields below */
    PGconn *c;            /* NULL after it was lost */
    char *url;
    char display[1024];
    long long generation;
    uint64_t build_id;
    char *dir; /* the private file's directory, removed by store_pg_lazy_free */
    unsigned light, full;
    double retry_at; /* after a failed reconnect: none before this (core_now) */
    store_pg_counts counts;
};

int store_pg_lock_generation(PGconn *c, const char *display, long long gen, uint64_t build_id,
                             apidex_error *err)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT string_agg(format('%%I.%%I', schemaname, tablename), ', ') FROM pg_tables "
             "WHERE schemaname = '" STORE_PG_PREFIX "%lld'",
             gen);
    PGresult *r = PQexec(c, sql);
    int rc = 0;
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        rc = store_pg_error(c, r, display, APIDEX_EDB, err);
    else if (PQgetisnull(r, 0, 0))
        rc = core_error_set(err, APIDEX_EDB, "PostgreSQL index %s: generation %lld is gone",
                            display, gen);
    core_buf q;
    core_buf_init(&q, 0);
    if (!rc) core_buf_printf(&q, "LOCK TABLE %s IN ACCESS SHARE MODE", PQgetvalue(r, 0, 0));
    PQclear(r);
    if (!rc && q.failed) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!rc) rc = store_pg_exec(c, q.data, display, err);
    core_buf_free(&q);
    if (rc || !build_id) return rc;
    /* the same rows as the open's: a generation number is never reused for other rows
       unless the apidex schema was dropped and made again */
    snprintf(sql, sizeof sql,
             "SELECT value FROM " STORE_PG_PREFIX "%lld.meta WHERE key = 'build_id'", gen);
    r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        rc = store_pg_error(c, r, display, APIDEX_EDB, err);
    else if (PQntuples(r) != 1 || strtoull(PQgetvalue(r, 0, 0), NULL, 16) != build_id)
        rc = core_error_set(err, APIDEX_EDB, "PostgreSQL index %s: generation %lld is gone",
                            display, gen);
    PQclear(r);
    return rc;
}

int store_pg_lazy_new(PGconn *c, const char *url, const char *display, long long generation,
                      uint64_t build_id, char *dir, const store_pg_counts *counts,
                      store_pg_lazy **out, apidex_error *err)
{
    *out = NULL;
    store_pg_lazy *z = calloc(1, sizeof *z);
    if (!z || !(z->url = strdup(url))) {
        free(z);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&z->lock, NULL);
    z->c = c;
    snprintf(z->display, sizeof z->display, "%s", display);
    z->generation = generation;
    z->build_id = build_id;
    z->dir = dir;
    if (counts) z->counts = *counts;
    *out = z;
    return 0;
}

void store_pg_lazy_free(store_pg_lazy *z)
{
    if (!z) return;
    if (z->c) PQfinish(z->c); /* ends the transaction: its locks go with it */
    store_pg_tempdir_remove(z->dir);
    free(z->dir);
    free(z->url);
    pthread_mutex_destroy(&z->lock);
    free(z);
}

void store_pg_lazy_counts(store_pg_lazy *z, store_pg_counts *out)
{
    pthread_mutex_lock(&z->lock);
    *out = z->counts;
    pthread_mutex_unlock(&z->lock);
}

/* A connection in the generation's transaction (under z->lock): the open's, or a new one
   when that was lost. */
static int connection(store_pg_lazy *z, apidex_error *err)
{
    if (z->c && PQstatus(z->c) == CONNECTION_OK && PQtransactionStatus(z->c) == PQTRANS_INTRANS)
        return 0;
    if (z->c) PQfinish(z->c);
    z->c = NULL;
    /* the database unreachable: fail at once for a while rather than wait for a connect
       timeout on every row */
    if (core_now() < z->retry_at)
        return core_error_set(err, APIDEX_ENET, "PostgreSQL index %s: not connected", z->display);
    PGconn *c = NULL;
    int rc = store_pg_connect(z->url, z->display, &c, err);
    if (!rc)
        rc = store_pg_exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", z->display, err);
    if (!rc) rc = store_pg_lock_generation(c, z->display, z->generation, z->build_id, err);
    if (rc) {
        PQfinish(c);
        z->retry_at = core_now() + 5;
        if (rc == APIDEX_EDB)
            core_error_set(err, APIDEX_EDB,
                           "PostgreSQL index %s: generation %lld was replaced while this index "
                           "was open and is gone: open the index again",
                           z->display, z->generation);
        return rc;
    }
    z->c = c;
    return 0;
}

/* Runs fn once, and once more on a new connection when the first one was lost meanwhile. */
#define WITH_CONNECTION(z, err, call)                                                              \
    do {                                                                                           \
        rc = connection(z, err);                                                                   \
        if (!rc) rc = (call);                                                                      \
        if (rc && (PQstatus(z->c) != CONNECTION_OK)) {                                             \
            rc = connection(z, err);                                                               \
            if (!rc) rc = (call);                                                                  \
        }                                                                                          \
    } while (0)

int store_pg_lazy_table(store_pg_lazy *z, sqlite3 *db, const char *table, bool full,
                        apidex_error *err)
{
    unsigned bit = 0;
    for (int i = 0; i < N_LAZY; i++)
        if (!strcmp(table, lazy_tables[i])) bit = 1u << i;
    if (!bit) return 0; /* copied at open */
    pthread_mutex_lock(&z->lock);
    int rc = 0;
    if (!(z->full & bit) && (full || !(z->light & bit))) {
        /* a table without rowid (edges) is rebuilt in key order; light or full alike */
        char sql[160];
        snprintf(sql, sizeof sql,
                 "SELECT 1 FROM sqlite_master WHERE name = '%s' AND sql LIKE "
                 "'%%WITHOUT ROWID%%'",
                 table);
        sqlite3_stmt *st = NULL;
        bool no_rowid = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
                        sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
        unsigned mode =
            (full ? 0 : STORE_PG_LIGHT) | (no_rowid ? STORE_PG_NO_ROWID : 0) | STORE_PG_REPLACE;
        store_pg_counts n = {0};
        rc = store_exec(db, "BEGIN", err);
        if (!rc) {
            WITH_CONNECTION(
                z, err,
                store_pg_copy_table(z->c, z->display, z->generation, db, table, mode, &n, err));
            if (!rc) rc = store_exec(db, "COMMIT", err);
            if (rc) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        }
        if (!rc) {
            z->light |= bit;
            if (full) z->full |= bit;
            z->counts.rows += n.rows;
            z->counts.bytes += n.bytes;
        }
    }
    pthread_mutex_unlock(&z->lock);
    return rc;
}

/* Columns cols[0..n) of table's row at _rowid (text format) into out[0..n) (NULL: NULL, or
   no such row). */
static int read_row(store_pg_lazy *z, const char *table, const char *const *cols, int n,
                    int64_t rowid, core_arena *a, const char **out, apidex_error *err)
{
    core_buf q;
    core_buf_init(&q, 0);
    core_buf_puts(&q, "SELECT ");
    for (int i = 0; i < n; i++) core_buf_printf(&q, "%s\"%s\"", i ? ", " : "", cols[i]);
    core_buf_printf(&q, " FROM " STORE_PG_PREFIX "%lld.\"%s\" WHERE _rowid = $1::bigint",
                    z->generation, table);
    if (q.failed) {
        core_buf_free(&q);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)rowid);
    const char *vals[1] = {id};
    PGresult *r = PQexecParams(z->c, q.data, 1, NULL, vals, NULL, NULL, 0);
    core_buf_free(&q);
    int rc = 0;
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        rc = store_pg_error(z->c, r, z->display, APIDEX_EDB, err);
    for (int i = 0; !rc && i < n && PQntuples(r) == 1; i++) {
        if (PQgetisnull(r, 0, i)) continue;
        size_t len = (size_t)PQgetlength(r, 0, i);
        char *s = core_arena_alloc(a, len + 1);
        if (!s) {
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            break;
        }
        memcpy(s, PQgetvalue(r, 0, i), len);
        s[len] = '\0';
        out[i] = s;
        z->counts.bytes += len;
    }
    if (!rc) z->counts.rows += (size_t)PQntuples(r);
    PQclear(r);
    return rc;
}

int store_pg_lazy_row(store_pg_lazy *z, const char *table, const char *const *cols, int n,
                      int64_t rowid, core_arena *a, const char **out, apidex_error *err)
{
    for (int i = 0; i < n; i++) out[i] = NULL;
    pthread_mutex_lock(&z->lock);
    int rc;
    WITH_CONNECTION(z, err, read_row(z, table, cols, n, rowid, a, out, err));
    pthread_mutex_unlock(&z->lock);
    return rc;
}
