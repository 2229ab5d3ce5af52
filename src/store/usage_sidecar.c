/*
 * The usage sidecar: which endpoints callers reported using, beside the index.
 *
 * The index file is rebuilt by renaming a new file over it, so the uses cannot live in it:
 * they go to `<index>.usage`, a SQLite file of its own (WAL, a busy timeout: several
 * writers at once are safe) with one row per reported use, keyed by the API id, the method
 * and the path's shape ("/pets/{}": parameter names may change, operationIds too). Decay is
 * computed when the file is read, for the half-life the reader asks for: each use counts
 * 2^(-age / half-life). An endpoint keeps its newest USAGE_KEEP uses (older ones count for
 * next to nothing by then), so the file cannot grow without bound per endpoint.
 */
#include "store/store_int.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { USAGE_KEEP = 1000, USAGE_BUSY_MS = 5000, USAGE_RETRY_MS = 10 };

/* Tables are made in a write transaction taken up front (BEGIN IMMEDIATE waits on the busy
 * timeout), so two processes creating the file at once never both read "absent" and race. */
static const char usage_schema[] =
    "BEGIN IMMEDIATE;"
    "CREATE TABLE IF NOT EXISTS usage_event(api TEXT NOT NULL, method TEXT NOT NULL,"
    " shape TEXT NOT NULL, path TEXT NOT NULL, at REAL NOT NULL, task TEXT);"
    "CREATE INDEX IF NOT EXISTS usage_event_key ON usage_event(api, method, shape, at);"
    "PRAGMA user_version = 1;"
    "COMMIT;";

/* Sets a new or existing sidecar up. Switching the journal to WAL needs the file to itself,
 * and SQLite reports a lock met there at once (its busy handler does not wait on it), so
 * while other writers hold the file this is tried again until USAGE_BUSY_MS has passed. */
static int usage_setup(sqlite3 *db)
{
    int rc = SQLITE_OK;
    for (int waited = 0;; waited += USAGE_RETRY_MS) {
        rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
        if (rc == SQLITE_OK) rc = sqlite3_exec(db, usage_schema, NULL, NULL, NULL);
        int primary = rc & 0xff;
        if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) || waited >= USAGE_BUSY_MS)
            return rc; /* closing the connection rolls an open transaction back */
        if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_sleep(USAGE_RETRY_MS);
    }
}

void store_path_shape(const char *path, core_buf *out)
{
    core_buf_reset(out);
    for (const char *p = path ? path : ""; *p; p++) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        if (close) {
            core_buf_puts(out, "{}");
            p = close;
        } else {
            core_buf_putc(out, *p);
        }
    }
    if (!out->data) core_buf_puts(out, "");
}

int store_usage_path(const char *db_path, core_buf *out)
{
    core_buf_reset(out);
    core_buf_printf(out, "%s.usage", db_path);
    return out->failed ? APIDEX_ENOMEM : 0;
}

/* Opens the sidecar of db_path; create: make it when absent. */
static int usage_open(const char *db_path, bool create, sqlite3 **out, apidex_error *err)
{
    *out = NULL;
    if (store_is_server(db_path)) /* no file to sit beside; never a file named after the URL */
        return core_error_set(err, APIDEX_EINVAL,
                              "reported uses are kept beside an index file; a PostgreSQL "
                              "registry does not keep them (use --db FILE for feedback)");
    core_buf path;
    core_buf_init(&path, 0);
    if (store_usage_path(db_path, &path))
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    sqlite3 *db = NULL;
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path.data, &db, flags, NULL);
    if (rc == SQLITE_OK) sqlite3_busy_timeout(db, USAGE_BUSY_MS);
    if (rc == SQLITE_OK && create) rc = usage_setup(db);
    if (rc != SQLITE_OK) {
        core_error_set(err, APIDEX_EIO, "%s: cannot open the usage file: %s", path.data,
                       db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        core_buf_free(&path);
        return APIDEX_EIO;
    }
    core_buf_free(&path);
    *out = db;
    return 0;
}

int store_usage_record(const char *db_path, const store_usage_use *uses, size_t n, const char *task,
                       double now, apidex_error *err)
{
    sqlite3 *db = NULL;
    int rc = usage_open(db_path, true, &db, err);
    if (rc) return rc;
    sqlite3_stmt *ins = NULL, *trim = NULL;
    int src = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (src == SQLITE_OK)
        src = sqlite3_prepare_v2(db,
                                 "INSERT INTO usage_event(api, method, shape, path, at, task)"
                                 " VALUES(?, ?, ?, ?, ?, ?)",
                                 -1, &ins, NULL);
    if (src == SQLITE_OK)
        src = sqlite3_prepare_v2(db,
                                 "DELETE FROM usage_event WHERE rowid IN (SELECT rowid FROM"
                                 " usage_event WHERE api = ? AND method = ? AND shape = ?"
                                 " ORDER BY at DESC LIMIT -1 OFFSET ?)",
                                 -1, &trim, NULL);
    core_buf shape;
    core_buf_init(&shape, 0);
    for (size_t i = 0; i < n && src == SQLITE_OK; i++) {
        store_path_shape(uses[i].path, &shape);
        if (shape.failed) {
            src = SQLITE_NOMEM;
            break;
        }
        sqlite3_bind_text(ins, 1, uses[i].api, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 2, uses[i].method, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 3, shape.data, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 4, uses[i].path, -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(ins, 5, now);
        if (task)
            sqlite3_bind_text(ins, 6, task, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(ins, 6);
        src = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(ins);
        if (src != SQLITE_OK) break;
        sqlite3_bind_text(trim, 1, uses[i].api, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(trim, 2, uses[i].method, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(trim, 3, shape.data, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(trim, 4, USAGE_KEEP);
        src = sqlite3_step(trim) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(trim);
    }
    core_buf_free(&shape);
    sqlite3_finalize(ins);
    sqlite3_finalize(trim);
    if (src == SQLITE_OK) src = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (src != SQLITE_OK) {
        rc = core_error_set(err, APIDEX_EIO, "%s.usage: cannot record the uses: %s", db_path,
                            sqlite3_errmsg(db));
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    }
    sqlite3_close(db);
    return rc;
}

static int entry_cmp(const void *a, const void *b)
{
    const store_usage_entry *x = a, *y = b;
    int c = strcmp(x->api, y->api);
    if (!c) c = strcmp(x->method, y->method);
    if (!c) c = strcmp(x->shape, y->shape);
    return c;
}

/* Appends one entry (the set's array grows by doubling). */
static int usage_push(store_usage *u, size_t *cap, const char *api, const char *method,
                      const char *shape)
{
    if (core_array_grow(&u->entries, cap, u->n, sizeof *u->entries, 64)) return APIDEX_ENOMEM;
    store_usage_entry *e = &u->entries[u->n];
    e->api = core_arena_strdup(u->arena, api);
    e->method = core_arena_strdup(u->arena, method);
    e->shape = core_arena_strdup(u->arena, shape);
    e->count = 0;
    e->uses = 0;
    if (!e->api || !e->method || !e->shape) return APIDEX_ENOMEM;
    u->n++;
    return 0;
}

static store_usage *usage_new(void)
{
    store_usage *u = calloc(1, sizeof *u);
    if (u && !(u->arena = core_arena_new(0))) {
        free(u);
        u = NULL;
    }
    return u;
}

int store_usage_load(const char *db_path, double half_life_s, double now, store_usage **out,
                     apidex_error *err)
{
    *out = NULL;
    store_usage *u = usage_new();
    if (!u) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    core_buf path;
    core_buf_init(&path, 0);
    struct stat sb;
    bool exists =
        !store_is_server(db_path) && !store_usage_path(db_path, &path) && stat(path.data, &sb) == 0;
    core_buf_free(&path);
    if (!exists) { /* nothing reported yet */
        *out = u;
        return 0;
    }
    sqlite3 *db = NULL;
    int rc = usage_open(db_path, false, &db, err);
    sqlite3_stmt *st = NULL;
    if (!rc && sqlite3_prepare_v2(db,
                                  "SELECT api, method, shape, at FROM usage_event"
                                  " ORDER BY api, method, shape",
                                  -1, &st, NULL) != SQLITE_OK)
        rc = core_error_set(err, APIDEX_EIO, "%s.usage: not a usage file: %s", db_path,
                            sqlite3_errmsg(db));
    size_t cap = 0;
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *api = (const char *)sqlite3_column_text(st, 0);
        const char *method = (const char *)sqlite3_column_text(st, 1);
        const char *shape = (const char *)sqlite3_column_text(st, 2);
        if (!api || !method || !shape) continue;
        store_usage_entry *last = u->n ? &u->entries[u->n - 1] : NULL;
        if (!last || strcmp(last->api, api) || strcmp(last->method, method) ||
            strcmp(last->shape, shape)) {
            if ((rc = usage_push(u, &cap, api, method, shape)) != 0) {
                rc = core_error_set(err, rc, "out of memory");
                break;
            }
            last = &u->entries[u->n - 1];
        }
        double age = now - sqlite3_column_double(st, 3);
        if (age < 0) age = 0;
        last->count += half_life_s > 0 ? exp2(-age / half_life_s) : 1.0;
        last->uses++;
    }
    if (!rc && step != SQLITE_DONE)
        rc = core_error_set(err, APIDEX_EIO, "%s.usage: cannot read the uses: %s", db_path,
                            sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (rc) {
        store_usage_free(u);
        return rc;
    }
    /* SQLite's ORDER BY is binary (memcmp), which strcmp agrees with */
    *out = u;
    return 0;
}

int store_usage_from(const store_usage_use *uses, const double *counts, size_t n, store_usage **out)
{
    *out = NULL;
    store_usage *u = usage_new();
    if (!u) return APIDEX_ENOMEM;
    core_buf shape;
    core_buf_init(&shape, 0);
    size_t cap = 0;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        store_path_shape(uses[i].path, &shape);
        rc = shape.failed ? APIDEX_ENOMEM
                          : usage_push(u, &cap, uses[i].api, uses[i].method, shape.data);
        if (!rc) {
            u->entries[u->n - 1].count = counts ? counts[i] : 1.0;
            u->entries[u->n - 1].uses = 1;
        }
    }
    core_buf_free(&shape);
    if (!rc && u->n) {
        qsort(u->entries, u->n, sizeof *u->entries, entry_cmp);
        size_t w = 0; /* one entry per key: counts add up */
        for (size_t i = 0; i < u->n; i++) {
            if (w && !entry_cmp(&u->entries[w - 1], &u->entries[i])) {
                u->entries[w - 1].count += u->entries[i].count;
                u->entries[w - 1].uses += u->entries[i].uses;
            } else {
                u->entries[w++] = u->entries[i];
            }
        }
        u->n = w;
    }
    if (rc) {
        store_usage_free(u);
        return rc;
    }
    *out = u;
    return 0;
}

const store_usage_entry *store_usage_find(const store_usage *u, const char *api, const char *method,
                                          const char *shape)
{
    if (!u || !u->n) return NULL;
    store_usage_entry key = {.api = api, .method = method, .shape = shape};
    return bsearch(&key, u->entries, u->n, sizeof key, entry_cmp);
}

void store_usage_free(store_usage *u)
{
    if (!u) return;
    free(u->entries);
    core_arena_free(u->arena);
    free(u);
}
