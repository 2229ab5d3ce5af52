/*
 * Reading an index from PostgreSQL: the current generation is copied, table by table and
 * in its row order, into a private SQLite file, which the one reader (reader.c) opens as
 * it opens any index. Everything above the store stays backend-blind, and both backends
 * answer from the same rows in the same order.
 *
 * A replica (store_pg_open) copies only the tables opening reads and gets the rest on
 * demand (pg_lazy.c); a build's starting point (pg_publish.c) copies every table.
 *
 * The copy runs in one REPEATABLE READ transaction: a publish that flips the generation
 * meanwhile is not seen, and a generation dropped before its tables were locked fails the
 * copy, which is tried again from the new current generation.
 */
#include "store/pg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum { OID_BYTEA = 17, OID_INT8 = 20, OID_INT4 = 23, OID_TEXT = 25, OID_FLOAT8 = 701 };

static uint64_t be64(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | u[i];
    return v;
}

/* Binds field f of row 0 of r (binary format) to parameter i of st. */
static int bind_field(sqlite3_stmt *st, int i, const PGresult *r, int f)
{
    if (PQgetisnull(r, 0, f)) return sqlite3_bind_null(st, i);
    const char *v = PQgetvalue(r, 0, f);
    int len = PQgetlength(r, 0, f);
    switch (PQftype(r, f)) {
    case OID_INT8:
        return sqlite3_bind_int64(st, i, (int64_t)be64(v));
    case OID_INT4: {
        const unsigned char *u = (const unsigned char *)v;
        return sqlite3_bind_int64(st, i,
                                  (int32_t)((uint32_t)u[0] << 24 | u[1] << 16 | u[2] << 8 | u[3]));
    }
    case OID_FLOAT8: {
        uint64_t bits = be64(v);
        double d;
        memcpy(&d, &bits, sizeof d);
        return sqlite3_bind_double(st, i, d);
    }
    case OID_BYTEA:
        return sqlite3_bind_blob64(st, i, v, (sqlite3_uint64)len, SQLITE_TRANSIENT);
    default:
        return sqlite3_bind_text64(st, i, v, (sqlite3_uint64)len, SQLITE_TRANSIENT, SQLITE_UTF8);
    }
}

/* Columns a replica reads only when shown, one row at a time (store_pg_lazy_text): left
   out of the tables it copies (their defaults, NULL or '', stand in the local file). */
bool store_pg_heavy(const char *table, const char *column)
{
    if (!strcmp(table, "apis")) return !strcmp(column, "snapshot");
    if (!strcmp(table, "operations") || !strcmp(table, "schemas"))
        return !strcmp(column, "content");
    if (!strcmp(table, "chunks"))
        return !strcmp(column, "content") || !strcmp(column, "text") ||
               !strcmp(column, "metadata") || !strncmp(column, "t_", 2);
    return false;
}

/* The column names of table `name` in db, as "c1", "c2" (quoted) into cols; *n their count.
   light: without the columns store_pg_heavy names. */
static int table_columns(sqlite3 *db, const char *name, bool light, core_buf *cols, int *n)
{
    char sql[256];
    snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", name);
    sqlite3_stmt *st = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return APIDEX_EDB;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *col = (const char *)sqlite3_column_text(st, 1);
        if (light && store_pg_heavy(name, col)) continue;
        core_buf_printf(cols, "%s\"%s\"", *n ? ", " : "", col);
        (*n)++;
    }
    sqlite3_finalize(st);
    return cols->failed ? APIDEX_ENOMEM : 0;
}

int store_pg_copy_table(PGconn *c, const char *display, long long gen, sqlite3 *db,
                        const char *name, unsigned mode, store_pg_counts *counts, apidex_error *err)
{
    bool rowid = !(mode & STORE_PG_NO_ROWID), light = mode & STORE_PG_LIGHT;
    core_buf cols, q;
    core_buf_init(&cols, 0);
    core_buf_init(&q, 0);
    int n = 0;
    int rc = table_columns(db, name, light, &cols, &n);
    if (rc) {
        core_buf_free(&cols);
        return rc == APIDEX_ENOMEM ? core_error_set(err, rc, "out of memory")
                                   : store_db_error(db, "index copy", err);
    }
    core_buf_printf(&q, "SELECT _rowid, %s FROM " STORE_PG_PREFIX "%lld.\"%s\" ORDER BY _rowid",
                    cols.data, gen, name);
    sqlite3_stmt *ins = NULL;
    core_buf isql;
    core_buf_init(&isql, 0);
    core_buf_printf(&isql, "INSERT%s INTO \"%s\"(%s%s) VALUES(?",
                    mode & STORE_PG_REPLACE ? " OR REPLACE" : "", name, rowid ? "rowid, " : "",
                    cols.data);
    for (int i = 1; i < n + (rowid ? 1 : 0); i++) core_buf_puts(&isql, ", ?");
    core_buf_puts(&isql, ")");
    if (q.failed || isql.failed)
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    else if (sqlite3_prepare_v2(db, isql.data, -1, &ins, NULL) != SQLITE_OK)
        rc = store_db_error(db, "index copy", err);
    if (!rc && !PQsendQueryParams(c, q.data, 0, NULL, NULL, NULL, NULL, 1))
        rc = store_pg_error(c, NULL, display, APIDEX_EDB, err);
    bool sent = !rc;
    if (sent) PQsetSingleRowMode(c);
    for (PGresult *r; sent && (r = PQgetResult(c)) != NULL; PQclear(r)) {
        ExecStatusType s = PQresultStatus(r);
        if (rc || s == PGRES_TUPLES_OK) continue; /* drain after an error; the end */
        if (s != PGRES_SINGLE_TUPLE) {
            rc = store_pg_error(c, r, display, APIDEX_EDB, err);
            continue;
        }
        int p = 1, src = rowid ? 0 : 1;
        for (int f = src; f <= n && !rc; f++)
            if (bind_field(ins, p++, r, f) != SQLITE_OK) rc = store_db_error(db, "index copy", err);
        if (!rc && sqlite3_step(ins) != SQLITE_DONE) rc = store_db_error(db, "index copy", err);
        sqlite3_reset(ins);
        if (counts) {
            counts->rows++;
            for (int f = 0; f <= n; f++) counts->bytes += (size_t)PQgetlength(r, 0, f);
        }
    }
    sqlite3_finalize(ins);
    core_buf_free(&cols);
    core_buf_free(&q);
    core_buf_free(&isql);
    return rc;
}

/* The tables a replica copies when it opens (the rest on first use, pg_lazy.c): what
   store_open, store_index_info, store_apis and the search image read. */
static bool open_table(const char *name)
{
    static const char *const names[] = {"meta", "documents", "apis", "aliases", "image"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(name, names[i])) return true;
    return false;
}

int store_pg_fetch(PGconn *c, const char *display, long long gen, const char *dest, bool all,
                   store_pg_counts *counts, apidex_error *err)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT kind, name, sql FROM " STORE_PG_PREFIX "%lld._sqlite ORDER BY ord", gen);
    PGresult *ddl = PQexec(c, sql);
    if (PQresultStatus(ddl) != PGRES_TUPLES_OK) {
        int rc = store_pg_error(c, ddl, display, APIDEX_EDB, err);
        PQclear(ddl);
        return rc;
    }
    if (counts) {
        counts->rows += (size_t)PQntuples(ddl);
        for (int i = 0; i < PQntuples(ddl); i++)
            for (int f = 0; f < 3; f++) counts->bytes += (size_t)PQgetlength(ddl, i, f);
    }
    sqlite3 *db = NULL;
    int rc = 0;
    if (sqlite3_open_v2(dest, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        rc = core_error_set(err, APIDEX_EIO, "cannot create a local copy of the index in %s", dest);
    if (!rc) rc = store_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN", err);
    int rows = PQntuples(ddl);
    /* tables and pragmas first, rows next, indexes last (faster than indexing each row) */
    for (int i = 0; i < rows && !rc; i++) {
        const char *kind = PQgetvalue(ddl, i, 0), *name = PQgetvalue(ddl, i, 1);
        const char *text = PQgetvalue(ddl, i, 2);
        if (!strcmp(kind, "table")) {
            rc = store_exec(db, text, err);
        } else if (!strcmp(kind, "pragma")) {
            char p[128];
            snprintf(p, sizeof p, "PRAGMA %s = %lld",
                     !strcmp(name, "application_id") ? "application_id" : "user_version",
                     strtoll(text, NULL, 10));
            rc = store_exec(db, p, err);
        }
    }
    for (int i = 0; i < rows && !rc; i++) {
        const char *name = PQgetvalue(ddl, i, 1);
        if (strcmp(PQgetvalue(ddl, i, 0), "table") || (!all && !open_table(name))) continue;
        unsigned mode = strcasestr(PQgetvalue(ddl, i, 2), "WITHOUT ROWID") ? STORE_PG_NO_ROWID : 0;
        if (!all) mode |= STORE_PG_LIGHT;
        rc = store_pg_copy_table(c, display, gen, db, name, mode, counts, err);
    }
    for (int i = 0; i < rows && !rc; i++)
        if (!strcmp(PQgetvalue(ddl, i, 0), "index"))
            rc = store_exec(db, PQgetvalue(ddl, i, 2), err);
    if (!rc) rc = store_exec(db, "COMMIT", err);
    PQclear(ddl);
    if (db) sqlite3_close(db);
    if (rc) unlink(dest);
    return rc;
}

/* One try at opening the current generation: 1 (and err) when it vanished under us. On
   success *cp is the index's (its transaction keeps the generation, pg_lazy.c). */
static int open_once(PGconn **cp, const char *url, const char *display, store_index **out,
                     apidex_error *err)
{
    PGconn *c = *cp;
    int rc = store_pg_exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", display, err);
    store_pg_current cur;
    if (!rc) rc = store_pg_current_read(c, display, &cur, err);
    if (!rc && !cur.generation)
        rc = core_error_set(err, APIDEX_ENOTFOUND,
                            "no index published in %s: build one with 'apidex index SPEC... "
                            "--db URL'",
                            display);
    if (!rc && cur.schema_version != STORE_SCHEMA_VERSION)
        rc = core_error_set(err, APIDEX_EVERSION,
                            "%s holds an index of schema version %d, this apidex %s reads "
                            "version %d: publish it again with 'apidex index --db URL'",
                            display, cur.schema_version, APIDEX_VERSION_STRING,
                            STORE_SCHEMA_VERSION);
    char *dir = NULL;
    if (!rc) rc = store_pg_tempdir(&dir, err);
    char path[4096] = "";
    if (dir) snprintf(path, sizeof path, "%s/index.db", dir);
    store_pg_counts counts = {0};
    if (!rc) {
        rc = store_pg_lock_generation(c, display, cur.generation, 0, err);
        if (!rc) rc = store_pg_fetch(c, display, cur.generation, path, false, &counts, err);
        if (rc == APIDEX_EDB) {
            /* dropped by a publish between reading `current` and locking its tables? */
            PQclear(PQexec(c, "ROLLBACK"));
            store_pg_tempdir_remove(dir);
            free(dir);
            return 1;
        }
    }
    /* read-write: the tables not copied yet are filled in on first use */
    if (!rc) {
        rc = store_open(path, false, out, err);
        if (rc) store_pg_error_rename(err, path, display);
    }
    store_pg_lazy *z = NULL;
    if (!rc)
        rc = store_exec(store_index_db(*out), "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF",
                        err);
    if (!rc)
        rc = store_pg_lazy_new(c, url, display, cur.generation, store_index_version(*out), dir,
                               &counts, &z, err);
    if (rc) {
        store_close(*out);
        *out = NULL;
        PQclear(PQexec(c, "ROLLBACK"));
        store_pg_tempdir_remove(dir);
        free(dir);
        return rc;
    }
    store_index_set_generation(*out, cur.generation);
    store_index_set_lazy(*out, z);
    *cp = NULL;
    return 0;
}

int store_pg_open(const char *url, store_index **out, apidex_error *err)
{
    *out = NULL;
    char display[1024];
    store_display(url, display, sizeof display);
    PGconn *c = NULL;
    int rc = store_pg_connect(url, display, &c, err);
    for (int attempt = 0; !rc && attempt < 5; attempt++) {
        rc = open_once(&c, url, display, out, err);
        if (rc != 1) break;
        if (attempt == 4) rc = APIDEX_EDB; /* err holds the last failure */
    }
    if (c) PQfinish(c);
    return rc;
}

long long store_pg_generation(const char *url)
{
    char display[1024];
    store_display(url, display, sizeof display);
    PGconn *c = NULL;
    apidex_error err;
    core_error_clear(&err);
    store_pg_current cur = {0};
    if (store_pg_connect(url, display, &c, &err) == 0)
        store_pg_current_read(c, display, &cur, &err);
    PQfinish(c);
    return cur.generation;
}
