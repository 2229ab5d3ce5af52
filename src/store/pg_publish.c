/*
 * Publishing an index to PostgreSQL. A build runs the same pipeline as for a file, into a
 * private SQLite file that starts as a copy of the current generation (so unchanged
 * documents are reused by content hash, as with a file); the result is then written as
 * generation N:
 *
 *   1. one transaction creates schema apidex_g<N> and fills its tables with COPY (binary):
 *      the SQLite tables and columns, plus `_rowid` (the row order the index relies on)
 *      and `_sqlite` (the DDL and the schema version, to rebuild the file when read);
 *   2. one more transaction points apidex.current at N and NOTIFYs apidex_generation;
 *   3. generations other than N and the previous one are dropped.
 *
 * Builders are serialised by a session advisory lock (released by the server when a
 * builder dies). A builder killed before 2 leaves at most a staging schema, never a
 * current generation that is half written; the next publish drops it.
 */
#include "store/pg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The OS pid of the apidex holding the builders' lock (from its application_name), or 0. */
static long lock_holder(PGconn *c)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = "
             "l.pid WHERE l.locktype = 'advisory' AND l.objid = %d AND l.granted",
             STORE_PG_LOCK_KEY);
    PGresult *r = PQexec(c, sql);
    long pid = 0;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0)
        sscanf(PQgetvalue(r, 0, 0), "apidex build pid %ld", &pid);
    PQclear(r);
    return pid;
}

static int lock_take(PGconn *c, const char *display, const store_lock_options *opt,
                     apidex_error *err)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SET application_name = 'apidex build pid %ld'", (long)getpid());
    int rc = store_pg_exec(c, sql, display, err);
    if (rc) return rc;
    double wait = opt->wait_seconds > 0 ? opt->wait_seconds : STORE_LOCK_DEFAULT_WAIT;
    double deadline = core_now() + wait;
    snprintf(sql, sizeof sql, "SELECT pg_try_advisory_lock(%d)", STORE_PG_LOCK_KEY);
    for (bool told = false;;) {
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            rc = store_pg_error(c, r, display, APIDEX_EDB, err);
            PQclear(r);
            return rc;
        }
        bool got = !strcmp(PQgetvalue(r, 0, 0), "t");
        PQclear(r);
        if (got) return 0;
        long holder = lock_holder(c);
        if (opt->no_wait)
            return core_error_set(err, APIDEX_EBUSY,
                                  "another apidex (pid %ld) is publishing to %s: try again "
                                  "when it is done (or wait for it: leave out --no-wait)",
                                  holder, display);
        if (core_now() >= deadline)
            return core_error_set(err, APIDEX_EBUSY,
                                  "another apidex (pid %ld) is still publishing to %s after "
                                  "%g s: try again later (--wait SECONDS waits longer)",
                                  holder, display, wait);
        if (!told && opt->on_wait) opt->on_wait(opt->on_wait_ctx, holder, wait);
        told = true;
        sleep_ms(200);
    }
}

static int ensure_schema(PGconn *c, const char *display, apidex_error *err)
{
    return store_pg_exec(
        c,
        "CREATE SCHEMA IF NOT EXISTS " STORE_PG_SCHEMA ";"
        "CREATE TABLE IF NOT EXISTS " STORE_PG_SCHEMA ".current("
        " one boolean PRIMARY KEY DEFAULT true CHECK (one), generation bigint NOT NULL,"
        " previous bigint, schema_version integer NOT NULL, build_id text,"
        " apidex_version text, published_at timestamptz NOT NULL DEFAULT now());"
        "CREATE SEQUENCE IF NOT EXISTS " STORE_PG_SCHEMA ".generation_seq",
        display, err);
}

/* Drops every generation schema but keep1 and keep2 (0 = none). Failures are left for
   the next publish: a reader still copying an old generation holds it a little longer. */
static void drop_generations(PGconn *c, long long keep1, long long keep2, size_t *dropped)
{
    PGresult *r =
        PQexec(c, "SELECT nspname FROM pg_namespace WHERE nspname ~ '^" STORE_PG_PREFIX "[0-9]+$'");
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        PQclear(r);
        return;
    }
    PGresult *t = PQexec(c, "SET lock_timeout = '5s'");
    PQclear(t);
    for (int i = 0; i < PQntuples(r); i++) {
        const char *name = PQgetvalue(r, i, 0);
        long long g = strtoll(name + strlen(STORE_PG_PREFIX), NULL, 10);
        if (g == keep1 || g == keep2) continue;
        char sql[128];
        snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS %s CASCADE", name);
        t = PQexec(c, sql);
        if (PQresultStatus(t) == PGRES_COMMAND_OK && dropped) (*dropped)++;
        PQclear(t);
    }
    PQclear(r);
    t = PQexec(c, "RESET lock_timeout");
    PQclear(t);
}

/* ---------------------------------------------------------------- COPY of one table */

typedef enum { COL_INT, COL_REAL, COL_BLOB, COL_TEXT } col_kind;

static col_kind decl_kind(const char *decl)
{
    if (decl && strcasestr(decl, "INT")) return COL_INT;
    if (decl && (strcasestr(decl, "REAL") || strcasestr(decl, "FLOA") || strcasestr(decl, "DOUB")))
        return COL_REAL;
    if (decl && strcasestr(decl, "BLOB")) return COL_BLOB;
    return COL_TEXT;
}

static const char *const pg_types[] = {"bigint", "double precision", "bytea", "text"};

static void put_be(core_buf *b, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--) core_buf_putc(b, (char)(v >> (8 * i) & 0xff));
}

/* Appends column i of st's row as a binary COPY field of kind k. Packed text (a zstd BLOB
   in a TEXT column) is stored unpacked: the server holds readable text. */
static void put_field(core_buf *b, sqlite3_stmt *st, int i, col_kind k, core_arena *scratch,
                      bool *fail)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL) {
        put_be(b, 0xffffffffu, 4);
        return;
    }
    switch (k) {
    case COL_INT:
        put_be(b, 8, 4);
        put_be(b, (uint64_t)sqlite3_column_int64(st, i), 8);
        return;
    case COL_REAL: {
        double d = sqlite3_column_double(st, i);
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        put_be(b, 8, 4);
        put_be(b, bits, 8);
        return;
    }
    case COL_BLOB: {
        const void *p = sqlite3_column_blob(st, i);
        int n = sqlite3_column_bytes(st, i);
        put_be(b, (uint64_t)n, 4);
        core_buf_append(b, p, (size_t)n);
        return;
    }
    case COL_TEXT: {
        size_t n = 0;
        const char *s = store_unpack_column(st, i, scratch, &n, fail);
        put_be(b, (uint64_t)n, 4);
        core_buf_append(b, s ? s : "", n);
        return;
    }
    }
}

static int copy_flush(PGconn *c, core_buf *b, const char *display, apidex_error *err)
{
    if (b->failed) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (b->len && PQputCopyData(c, b->data, (int)b->len) != 1)
        return store_pg_error(c, NULL, display, APIDEX_EDB, err);
    core_buf_reset(b);
    return 0;
}

/* Creates table `name` of db in schema `ns` and copies its rows, in rowid (or key) order. */
static int publish_table(PGconn *c, const char *display, sqlite3 *db, const char *ns,
                         const char *name, bool rowid, apidex_error *err)
{
    char sql[256];
    snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", name);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return store_db_error(db, "index publish", err);
    core_buf create, cols, sel;
    core_buf_init(&create, 0);
    core_buf_init(&cols, 0);
    core_buf_init(&sel, 0);
    col_kind kinds[64];
    int n = 0;
    bool heavy = false; /* a column replicas read by _rowid (pg_lazy.c): indexed */
    core_buf_printf(&create, "CREATE TABLE %s.\"%s\"(_rowid bigint NOT NULL", ns, name);
    while (sqlite3_step(st) == SQLITE_ROW && n < 64) {
        const char *col = (const char *)sqlite3_column_text(st, 1);
        kinds[n] = decl_kind((const char *)sqlite3_column_text(st, 2));
        heavy = heavy || store_pg_heavy(name, col);
        core_buf_printf(&create, ", \"%s\" %s", col, pg_types[kinds[n]]);
        core_buf_printf(&cols, "%s\"%s\"", n ? ", " : "", col);
        n++;
    }
    sqlite3_finalize(st);
    core_buf_puts(&create, ")");
    core_buf_printf(&sel, "SELECT %s%s FROM \"%s\"%s", rowid ? "rowid, " : "", cols.data, name,
                    rowid ? " ORDER BY rowid" : "");
    int rc = create.failed || sel.failed ? core_error_set(err, APIDEX_ENOMEM, "out of memory") : 0;
    if (!rc) rc = store_pg_exec(c, create.data, display, err);
    core_buf copy;
    core_buf_init(&copy, 0);
    if (!rc) {
        core_buf_printf(&copy, "COPY %s.\"%s\"(_rowid, %s) FROM STDIN (FORMAT binary)", ns, name,
                        cols.data);
        PGresult *r = PQexec(c, copy.data);
        if (PQresultStatus(r) != PGRES_COPY_IN) rc = store_pg_error(c, r, display, APIDEX_EDB, err);
        PQclear(r);
        core_buf_reset(&copy);
    }
    if (!rc && sqlite3_prepare_v2(db, sel.data, -1, &st, NULL) != SQLITE_OK)
        rc = store_db_error(db, "index publish", err);
    core_arena *scratch = core_arena_new(0);
    bool fail = !scratch;
    if (!rc) {
        core_buf_append(&copy, "PGCOPY\n\377\r\n\0", 11);
        put_be(&copy, 0, 4); /* flags */
        put_be(&copy, 0, 4); /* header extension */
        int64_t ordinal = 0;
        int s;
        while (!rc && !fail && (s = sqlite3_step(st)) == SQLITE_ROW) {
            put_be(&copy, (uint64_t)(n + 1), 2);
            put_be(&copy, 8, 4);
            put_be(&copy, (uint64_t)(rowid ? sqlite3_column_int64(st, 0) : ++ordinal), 8);
            for (int i = 0; i < n; i++)
                put_field(&copy, st, i + (rowid ? 1 : 0), kinds[i], scratch, &fail);
            if (copy.len >= (1u << 20)) {
                rc = copy_flush(c, &copy, display, err);
                core_arena_free(scratch);
                scratch = core_arena_new(0);
                fail = fail || !scratch;
            }
        }
        if (!rc && !fail && s != SQLITE_DONE) rc = store_db_error(db, "index publish", err);
        if (!rc && fail) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
        put_be(&copy, 0xffff, 2); /* trailer */
        if (!rc) rc = copy_flush(c, &copy, display, err);
        if (PQputCopyEnd(c, rc ? "apidex: publish failed" : NULL) != 1 && !rc)
            rc = store_pg_error(c, NULL, display, APIDEX_EDB, err);
        for (PGresult *r; (r = PQgetResult(c)) != NULL; PQclear(r))
            if (!rc && PQresultStatus(r) != PGRES_COMMAND_OK)
                rc = store_pg_error(c, r, display, APIDEX_EDB, err);
    }
    sqlite3_finalize(st);
    if (!rc && heavy) {
        core_buf_reset(&create);
        core_buf_printf(&create, "CREATE INDEX ON %s.\"%s\"(_rowid)", ns, name);
        rc = create.failed ? core_error_set(err, APIDEX_ENOMEM, "out of memory")
                           : store_pg_exec(c, create.data, display, err);
    }
    core_arena_free(scratch);
    core_buf_free(&create);
    core_buf_free(&cols);
    core_buf_free(&sel);
    core_buf_free(&copy);
    return rc;
}

/* _sqlite: what the reader needs to make the file again (DDL in order, pragmas). */
static int publish_ddl(PGconn *c, const char *display, sqlite3 *db, const char *ns,
                       apidex_error *err)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "CREATE TABLE %s._sqlite(ord integer, kind text, name text, sql text)", ns);
    int rc = store_pg_exec(c, sql, display, err);
    snprintf(sql, sizeof sql, "INSERT INTO %s._sqlite VALUES($1::integer, $2, $3, $4)", ns);
    sqlite3_stmt *st = NULL;
    if (!rc && sqlite3_prepare_v2(db,
                                  "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL "
                                  "AND name NOT LIKE 'sqlite_%' UNION ALL "
                                  "SELECT 'pragma', 'user_version', user_version FROM "
                                  "pragma_user_version UNION ALL "
                                  "SELECT 'pragma', 'application_id', application_id FROM "
                                  "pragma_application_id",
                                  -1, &st, NULL) != SQLITE_OK)
        rc = store_db_error(db, "index publish", err);
    for (int ord = 0; !rc && sqlite3_step(st) == SQLITE_ROW; ord++) {
        char ordtext[16];
        snprintf(ordtext, sizeof ordtext, "%d", ord);
        const char *vals[4] = {ordtext, (const char *)sqlite3_column_text(st, 0),
                               (const char *)sqlite3_column_text(st, 1),
                               (const char *)sqlite3_column_text(st, 2)};
        PGresult *r = PQexecParams(c, sql, 4, NULL, vals, NULL, NULL, 0);
        if (PQresultStatus(r) != PGRES_COMMAND_OK)
            rc = store_pg_error(c, r, display, APIDEX_EDB, err);
        PQclear(r);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The search image is a file beside the index (image_map.c), not one of its tables: a
   generation carries it as table `image` (BLOB rows of at most 256 MiB, as an index held it
   before the file), copied from a TEMP table of the same name, so the replica's file holds
   it and reads it (store_image_read reads such rows first). */
static int publish_image(PGconn *c, const char *display, sqlite3 *db, const char *path,
                         const char *ns, apidex_error *err)
{
    sqlite3_stmt *st = NULL;
    bool has_table = sqlite3_prepare_v2(db, "SELECT 1 FROM main.sqlite_master WHERE name = 'image'",
                                        -1, &st, NULL) == SQLITE_OK &&
                     sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    st = NULL;
    if (has_table) return 0; /* an older index's: published with the other tables */
    store_index *idx = NULL;
    void *data = NULL;
    size_t len = 0;
    int rc = store_open(path, true, &idx, err);
    if (!rc) rc = store_image_read(idx, &data, &len, err);
    store_close(idx);
    if (rc || !data) return rc;
    static const char ddl[] = "CREATE TABLE image(id INTEGER PRIMARY KEY, data BLOB NOT NULL)";
    rc = store_exec(db, "CREATE TEMP TABLE image(id INTEGER PRIMARY KEY, data BLOB NOT NULL)", err);
    if (!rc && sqlite3_prepare_v2(db, "INSERT INTO temp.image(id, data) VALUES(?, ?)", -1, &st,
                                  NULL) != SQLITE_OK)
        rc = store_db_error(db, "index publish", err);
    enum { ROW_BYTES = 256 << 20 };
    for (size_t off = 0, row = 1; !rc && off < len; row++) {
        size_t n = len - off < ROW_BYTES ? len - off : ROW_BYTES;
        sqlite3_bind_int64(st, 1, (sqlite3_int64)row);
        sqlite3_bind_blob64(st, 2, (const char *)data + off, n, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) rc = store_db_error(db, "index publish", err);
        sqlite3_reset(st);
        off += n;
    }
    sqlite3_finalize(st);
    if (!rc) rc = publish_table(c, display, db, ns, "image", true, err);
    free(data);
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT INTO %s._sqlite VALUES(1000000000, 'table', 'image', $1)",
             ns);
    const char *vals[1] = {ddl};
    PGresult *r = rc ? NULL : PQexecParams(c, sql, 1, NULL, vals, NULL, NULL, 0);
    if (r && PQresultStatus(r) != PGRES_COMMAND_OK)
        rc = store_pg_error(c, r, display, APIDEX_EDB, err);
    PQclear(r);
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.image", NULL, NULL, NULL);
    return rc;
}

/* Writes the index file at path as generation gen (staging: not current yet). */
static int publish_staging(PGconn *c, const char *display, const char *path, long long gen,
                           char *build_id, size_t build_cap, apidex_error *err)
{
    core_buf uri;
    core_buf_init(&uri, 0);
    if (store_uri_immutable(path, &uri)) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    sqlite3 *db = NULL;
    int rc = 0;
    if (sqlite3_open_v2(uri.data, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK)
        rc = core_error_set(err, APIDEX_EDB, "cannot read the index just built");
    core_buf_free(&uri);
    char ns[64];
    snprintf(ns, sizeof ns, STORE_PG_PREFIX "%lld", gen);
    char sql[128];
    snprintf(sql, sizeof sql, "BEGIN; CREATE SCHEMA %s", ns);
    if (!rc) rc = store_pg_exec(c, sql, display, err);
    if (!rc) rc = publish_ddl(c, display, db, ns, err);
    sqlite3_stmt *st = NULL;
    if (!rc && sqlite3_prepare_v2(db,
                                  "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND "
                                  "name NOT LIKE 'sqlite_%' ORDER BY rowid",
                                  -1, &st, NULL) != SQLITE_OK)
        rc = store_db_error(db, "index publish", err);
    while (!rc && sqlite3_step(st) == SQLITE_ROW) {
        const char *ddl = (const char *)sqlite3_column_text(st, 1);
        rc = publish_table(c, display, db, ns, (const char *)sqlite3_column_text(st, 0),
                           !(ddl && strcasestr(ddl, "WITHOUT ROWID")), err);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (!rc) rc = publish_image(c, display, db, path, ns, err);
    if (!rc &&
        sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'build_id'", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        snprintf(build_id, build_cap, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (!rc)
        rc = store_pg_exec(c, "COMMIT", display, err);
    else
        PQclear(PQexec(c, "ROLLBACK"));
    sqlite3_close(db);
    return rc;
}

/* Makes gen current (previous: the one it replaces) and tells the followers. */
static int publish_flip(PGconn *c, const char *display, long long gen, long long previous,
                        const char *build_id, apidex_error *err)
{
    char g[24], p[24], v[16];
    snprintf(g, sizeof g, "%lld", gen);
    snprintf(p, sizeof p, "%lld", previous);
    snprintf(v, sizeof v, "%d", STORE_SCHEMA_VERSION);
    const char *vals[5] = {g, previous ? p : NULL, v, build_id, APIDEX_VERSION_STRING};
    int rc = store_pg_exec(c, "BEGIN", display, err);
    if (!rc) {
        PGresult *r = PQexecParams(
            c,
            "INSERT INTO " STORE_PG_SCHEMA ".current(one, generation, previous, schema_version,"
            " build_id, apidex_version) VALUES(true, $1::bigint, $2::bigint, $3::integer, $4,"
            " $5) ON CONFLICT (one) DO UPDATE SET generation = EXCLUDED.generation,"
            " previous = EXCLUDED.previous, schema_version = EXCLUDED.schema_version,"
            " build_id = EXCLUDED.build_id, apidex_version = EXCLUDED.apidex_version,"
            " published_at = now()",
            5, NULL, vals, NULL, NULL, 0);
        if (PQresultStatus(r) != PGRES_COMMAND_OK)
            rc = store_pg_error(c, r, display, APIDEX_EDB, err);
        PQclear(r);
    }
    char sql[96];
    snprintf(sql, sizeof sql, "NOTIFY " STORE_PG_CHANNEL ", '%lld'", gen);
    if (!rc) rc = store_pg_exec(c, sql, display, err);
    if (!rc)
        rc = store_pg_exec(c, "COMMIT", display, err);
    else
        PQclear(PQexec(c, "ROLLBACK"));
    return rc;
}

static long long next_generation(PGconn *c, const char *display, apidex_error *err)
{
    PGresult *r = PQexec(c, "SELECT nextval('" STORE_PG_SCHEMA ".generation_seq')");
    long long g = 0;
    if (PQresultStatus(r) == PGRES_TUPLES_OK)
        g = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    else
        store_pg_error(c, r, display, APIDEX_EDB, err);
    PQclear(r);
    return g;
}

/* A build into a server database (store_target_begin): its connection, which holds the
   builders' lock, the generation it started from and the private file it writes. */
struct store_pg_stage {
    PGconn *c;
    char display[1024];
    store_pg_current cur;
    char *dir;
    char path[4096];
};

/* Under the builders' lock: copy the current generation down into the private file the
   build writes. The current generation is where the build starts (unchanged documents are
   reused); one of another schema version is rebuilt in full, as a file would be. */
static int stage_locked(store_pg_stage *s, bool full, apidex_error *err)
{
    PGconn *c = s->c;
    const char *display = s->display;
    int rc = ensure_schema(c, display, err);
    if (!rc) rc = store_pg_current_read(c, display, &s->cur, err);
    /* A staging schema no generation points at: a build killed before its flip. */
    if (!rc) drop_generations(c, s->cur.generation, s->cur.previous, NULL);
    if (!rc) rc = store_pg_tempdir(&s->dir, err);
    if (s->dir) snprintf(s->path, sizeof s->path, "%s/index.db", s->dir);
    if (!rc && s->cur.generation && s->cur.schema_version == STORE_SCHEMA_VERSION && !full) {
        rc = store_pg_exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", display, err);
        if (!rc) rc = store_pg_fetch(c, display, s->cur.generation, s->path, true, NULL, err);
        PQclear(PQexec(c, rc ? "ROLLBACK" : "COMMIT"));
    }
    return rc;
}

int store_pg_stage_begin(const char *url, const store_lock_options *lock, bool full,
                         store_pg_stage **out, apidex_error *err)
{
    *out = NULL;
    store_pg_stage *s = calloc(1, sizeof *s);
    if (!s) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    store_display(url, s->display, sizeof s->display);
    int rc = store_pg_connect(url, s->display, &s->c, err);
    if (!rc) rc = lock_take(s->c, s->display, lock, err);
    if (!rc) rc = stage_locked(s, full, err);
    if (rc) {
        store_pg_stage_end(s, rc, err);
        return rc;
    }
    *out = s;
    return 0;
}

const char *store_pg_stage_path(const store_pg_stage *s)
{
    return s->path;
}

int store_pg_stage_publish(store_pg_stage *s, apidex_error *err)
{
    long long gen = 0;
    char build_id[64] = "";
    int rc = 0;
    if (!(gen = next_generation(s->c, s->display, err))) rc = APIDEX_EDB;
    if (!rc) rc = publish_staging(s->c, s->display, s->path, gen, build_id, sizeof build_id, err);
    if (!rc) rc = publish_flip(s->c, s->display, gen, s->cur.generation, build_id, err);
    if (!rc) drop_generations(s->c, gen, s->cur.generation, NULL);
    return rc;
}

void store_pg_stage_end(store_pg_stage *s, int rc, apidex_error *err)
{
    if (!s) return;
    /* the private file's name means nothing to the user: the URL does */
    if (rc && s->path[0]) store_pg_error_rename(err, s->path, s->display);
    store_pg_tempdir_remove(s->dir);
    free(s->dir);
    PQfinish(s->c); /* the builders' lock goes with the session */
    free(s);
}
