/*
 * Where a build writes: the one place a writer tells an index file from a server database.
 *
 * A build (src/build) always writes one SQLite file through store_writer; what differs is
 * where that file is and what happens around it. For a file: the file itself, under its
 * `<db>.lock`, and store_writer_commit's rename is the publish. For a postgres:// URL: a
 * private file that starts as a copy of the current generation, under the server's advisory
 * lock, published as the next generation once written (pg_publish.c). The indexer never asks
 * which one it has; before this, the server path wrapped the whole build
 * (store_build -> store_pg_build -> store_build).
 *
 * And what an index was built with (store_index_settings), read before a build starts so
 * `add` and `remove` chunk as the index was chunked.
 */
#include "store/pg_int.h"

#include <stdlib.h>
#include <string.h>

struct store_target {
    const char *path;      /* the file the writer builds */
    store_lock *lock;      /* a file's writer lock */
    store_pg_stage *stage; /* a server's build */
};

int store_target_begin(const char *db, const store_lock_options *lock, bool full,
                       store_target **out, apidex_error *err)
{
    *out = NULL;
    store_target *t = calloc(1, sizeof *t);
    if (!t) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    int rc;
    if (store_is_server(db)) {
        rc = store_pg_stage_begin(db, lock, full, &t->stage, err);
        if (!rc) t->path = store_pg_stage_path(t->stage);
    } else {
        /* One writer at a time, and the lock comes first: a build that waited starts from
           the index the other one left, so neither's work is lost. */
        rc = store_lock_acquire(db, lock, &t->lock, err);
        t->path = db;
    }
    if (rc) {
        free(t);
        return rc;
    }
    *out = t;
    return 0;
}

const char *store_target_path(const store_target *t)
{
    return t->path;
}

bool store_target_server(const store_target *t)
{
    return t->stage != NULL;
}

int store_target_commit(store_target *t, apidex_error *err)
{
    return t->stage ? store_pg_stage_publish(t->stage, err) : 0;
}

void store_target_end(store_target *t, int rc, apidex_error *err)
{
    if (!t) return;
    store_pg_stage_end(t->stage, rc, err);
    store_lock_release(t->lock);
    free(t);
}

/* ---------------------------------------------------------------- the settings of an index */

int store_index_settings(const char *db_path, char **strategy, char **filters, apidex_error *err)
{
    *strategy = *filters = NULL;
    store_file_kind kind = store_probe(db_path);
    if (kind == STORE_FILE_MISSING || kind == STORE_FILE_EMPTY) return 0;
    if (kind != STORE_FILE_APIDEX) return store_file_error(db_path, SQLITE_NOTADB, true, err);
    core_buf uri;
    core_buf_init(&uri, 0);
    if (store_uri_immutable(db_path, &uri))
        return core_error_set(err, APIDEX_ENOMEM, "out of memory while indexing");
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(uri.data, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    core_buf_free(&uri);
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(
            db, "SELECT key, value FROM meta WHERE key IN ('strategy', 'filters')", -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0);
        const char *v = (const char *)sqlite3_column_text(st, 1);
        rc = SQLITE_OK;
        if (!k || !v) continue;
        if (!strcmp(k, "strategy") && !*strategy) *strategy = strndup(v, strcspn(v, "+"));
        if (!strcmp(k, "filters") && !*filters) *filters = strdup(v);
    }
    sqlite3_finalize(st);
    int ret = 0;
    if (rc != SQLITE_DONE && rc != SQLITE_OK)
        ret = store_file_error(db_path, db ? sqlite3_extended_errcode(db) : rc, true, err);
    sqlite3_close(db);
    if (ret) {
        free(*strategy);
        free(*filters);
        *strategy = *filters = NULL;
    }
    return ret;
}
