/*
 * Patching: the cheap way to change a few APIs of a big index (add, remove). The writer
 * copies the current index file into its temp file (a reflink where the filesystem has
 * them, else a kernel copy), deletes the rows of the APIs that go or change, and writes the
 * new ones; commit renames it over the target as for any build, so a crash or a kill never
 * costs the previous index and readers see the old file or the new one, never a half state.
 */
#include "store/store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the file is as long as its header says: a truncated index goes to the full copy,
   which reads every row and reports the damage. */
static bool whole_file(const char *path)
{
    unsigned char h[100];
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = fstat(fd, &st) == 0 && pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h;
    close(fd);
    if (!ok) return false;
    unsigned long page = (unsigned long)h[16] << 8 | h[17];
    if (page == 1) page = 65536;
    unsigned long pages =
        (unsigned long)h[28] << 24 | (unsigned long)h[29] << 16 | (unsigned long)h[30] << 8 | h[31];
    /* The page count is valid when its change counter matches (offsets 24 and 92). */
    if (memcmp(h + 24, h + 92, 4) != 0 || page < 512 || pages == 0) return false;
    return (unsigned long long)page * pages == (unsigned long long)st.st_size;
}

bool store_patch_eligible(const char *path, const char *signature)
{
    if (store_probe(path) != STORE_FILE_APIDEX || !whole_file(path)) return false;
    core_buf uri;
    core_buf_init(&uri, 0);
    sqlite3 *db = NULL;
    bool ok = false;
    if (store_uri_immutable(path, &uri) == 0 &&
        sqlite3_open_v2(uri.data, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK) {
        int version = -1;
        sqlite3_stmt *q = NULL;
        if (store_schema_check(db, "main", path, &version, NULL) == 0 &&
            sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'signature'", -1, &q,
                               NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW) {
            const char *old = (const char *)sqlite3_column_text(q, 0);
            ok = old && !strcmp(old, signature);
        }
        sqlite3_finalize(q);
    }
    sqlite3_close(db);
    core_buf_free(&uri);
    return ok;
}

int store_patch_copy(const char *from, const char *to, apidex_error *err)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return core_error_set(err, APIDEX_EIO, "cannot read the index %s: %s", from,
                              strerror(errno));
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        int e = errno;
        close(in);
        return core_error_set(err, APIDEX_EIO, "cannot create %s: %s", to, strerror(e));
    }
    struct stat st;
    int rc = fstat(in, &st) == 0 ? 0 : -1;
    /* A reflink where the filesystem has them, else a kernel copy (core_sys_copy_file). */
    if (rc == 0) rc = core_sys_copy_file(in, out, (int64_t)st.st_size);
    int e = errno;
    close(in);
    if (close(out) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0) {
        unlink(to);
        return core_error_set(err, APIDEX_EIO, "cannot copy the index %s to %s: %s", from, to,
                              strerror(e));
    }
    return 0;
}

/* The counter of table t of store_rows, or NULL for a table it does not count. */
static int64_t *rows_slot(store_rows *r, const char *t)
{
    return !strcmp(t, "apis")         ? &r->apis
           : !strcmp(t, "operations") ? &r->operations
           : !strcmp(t, "schemas")    ? &r->schemas
           : !strcmp(t, "chunks")     ? &r->chunks
           : !strcmp(t, "edges")      ? &r->edges
                                      : NULL;
}

void store_rows_count(sqlite3 *db, const char *schema, const char *api, store_rows *out)
{
    static const char *const tables[] = {"apis", "operations", "schemas", "chunks", "edges"};
    memset(out, 0, sizeof *out);
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s.%s%s", schema, tables[t],
                 !api     ? ""
                 : t == 0 ? " WHERE id = ?1"
                          : " WHERE api = ?1");
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
            if (api) sqlite3_bind_text(st, 1, api, -1, SQLITE_STATIC);
            if (sqlite3_step(st) == SQLITE_ROW)
                *rows_slot(out, tables[t]) = sqlite3_column_int64(st, 0);
        }
        sqlite3_finalize(st);
    }
}

int store_rows_read(sqlite3 *db, const char *schema, store_rows *out)
{
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT value FROM %s.meta WHERE key = 'rows'", schema);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        long long a, o, s, c, e;
        if (v && sscanf(v, "%lld %lld %lld %lld %lld", &a, &o, &s, &c, &e) == 5) {
            *out = (store_rows){a, o, s, c, e};
            rc = 0;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

void store_rows_format(const store_rows *r, char *out, size_t cap)
{
    snprintf(out, cap, "%lld %lld %lld %lld %lld", (long long)r->apis, (long long)r->operations,
             (long long)r->schemas, (long long)r->chunks, (long long)r->edges);
}

int store_patch_drop(sqlite3 *db, const char *path, const char *api, store_rows *removed,
                     apidex_error *err)
{
    char sql[128];
    sqlite3_stmt *st = NULL;
    int rc = 0;
    for (size_t t = 0; t < store_n_tables + 2 && !rc; t++) {
        if (t == 0)
            snprintf(sql, sizeof sql, "DELETE FROM main.documents WHERE path = ?1");
        else if (t == 1)
            snprintf(sql, sizeof sql, "DELETE FROM main.apis WHERE id = ?2");
        else
            snprintf(sql, sizeof sql, "DELETE FROM main.%s WHERE api = ?2",
                     store_table_names[t - 2]);
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            return store_db_error(db, "removing an API from the index", err);
        sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, api, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = store_db_error(db, "removing an API from the index", err);
        int64_t *slot =
            t == 0 ? NULL : rows_slot(removed, t == 1 ? "apis" : store_table_names[t - 2]);
        if (!rc && slot) *slot += sqlite3_changes(db);
        sqlite3_finalize(st);
    }
    return rc;
}
