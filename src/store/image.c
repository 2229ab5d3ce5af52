/*
 * The search image's storage (docs/INDEX.md, "The search image"): built from the finished
 * temp file after the build's last row, written to its own file (`<index>.image-<build
 * id>`, image_map.c) and named in the temp file's meta before the fsync and rename, so the
 * index and the image it names are swapped in at once. Read back whole into one buffer
 * (the file, or an older index's BLOB rows), or mapped (image_map.c). What the bytes mean is the
 * search stage's (src/search/image.c): the store neither builds nor parses them; it calls the
 * builder the writer was given (the build stage passes the one the program registered),
 * and hands the bytes back.
 */
#include "store/store_int.h"
#include "store/writer_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The image's rows (1..n), or 0 when the file has none (an index written before the
   image, or by a program that registered no builder). */
static size_t image_rows(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    sqlite3_int64 n = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'image'",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        sqlite3_finalize(st);
        st = NULL;
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM image", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return n > 0 ? (size_t)n : 0;
}

/* The image's cap. It is made from the index's own rows, not from outside input, so it may
   be as large as they make it: core_buf's default of 1 GiB is less than the synthetic 10x
   registry's image (about 1.5 GB), which then failed to build. */
#if SIZE_MAX > 0xffffffffu
#define IMAGE_MAX_BYTES ((size_t)1 << 40)
#else
#define IMAGE_MAX_BYTES ((size_t)0x7fffffff)
#endif

int store_w_put_image(const char *tmp, const char *target, uint64_t build_id,
                      store_image_builder image_builder, char **name, apidex_error *err)
{
    *name = NULL;
    core_buf img;
    core_buf_init(&img, IMAGE_MAX_BYTES);
    int rc = 0;
    if (image_builder) {
        store_index *idx = NULL;
        rc = store_open(tmp, true, &idx, err);
        if (!rc) rc = image_builder(idx, build_id, &img, err);
        store_close(idx);
        /* the file first, complete and durable: the index names it only once it is */
        if (!rc) rc = store_w_write_image_file(target, build_id, &img, name, err);
        core_buf_free(&img);
        if (rc) return rc;
    }
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        rc = store_db_error(db, "writing the search image", err);
    /* the temp file is fsynced and renamed after this: no journal, no syncs. An index
       written before the image had a file of its own holds its BLOB in table `image`: a
       copy (`add`, `remove`) drops it, and names the new file or none */
    if (!rc)
        rc = store_exec(db,
                        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
                        "DROP TABLE IF EXISTS image; DELETE FROM meta WHERE key = 'image_file'",
                        err);
    sqlite3_stmt *st = NULL;
    if (!rc && *name &&
        (sqlite3_prepare_v2(db, "INSERT INTO meta(key, value) VALUES('image_file', ?)", -1, &st,
                            NULL) != SQLITE_OK ||
         sqlite3_bind_text(st, 1, *name, -1, SQLITE_STATIC) != SQLITE_OK ||
         sqlite3_step(st) != SQLITE_DONE))
        rc = store_db_error(db, "writing the search image's name", err);
    sqlite3_finalize(st);
    if (sqlite3_close(db) != SQLITE_OK && !rc)
        rc = core_error_set(err, APIDEX_EDB, "cannot close %s after writing the search image", tmp);
    if (rc) store_w_image_abort(target, name);
    return rc;
}

void store_w_image_abort(const char *target, char **name)
{
    if (*name) {
        char path[8192];
        const char *slash = strrchr(target, '/');
        int n = slash ? snprintf(path, sizeof path, "%.*s/%s", (int)(slash - target), target, *name)
                      : snprintf(path, sizeof path, "%s", *name);
        if (n > 0 && (size_t)n < sizeof path) unlink(path);
    }
    free(*name);
    *name = NULL;
}

/* The legacy image: the BLOB rows of table `image` (an index written before the image had
   a file of its own, or a PostgreSQL replica's copy), concatenated. */
static int read_rows(sqlite3 *db, size_t rows, void **data, size_t *len, apidex_error *err)
{
    sqlite3_blob *blob = NULL;
    size_t total = 0;
    /* the rows' sizes, then one buffer, then the bytes */
    for (size_t row = 1; row <= rows; row++) {
        int brc = blob ? sqlite3_blob_reopen(blob, (sqlite3_int64)row)
                       : sqlite3_blob_open(db, "main", "image", "data", 1, 0, &blob);
        if (brc != SQLITE_OK) {
            sqlite3_blob_close(blob);
            return store_db_error(db, "reading the search image", err);
        }
        total += (size_t)sqlite3_blob_bytes(blob);
    }
    char *buf = malloc(total ? total : 1);
    int rc = buf ? 0 : core_error_set(err, APIDEX_ENOMEM, "out of memory reading the search image");
    size_t off = 0;
    for (size_t row = 1; !rc && row <= rows; row++) {
        if (sqlite3_blob_reopen(blob, (sqlite3_int64)row) != SQLITE_OK) {
            rc = store_db_error(db, "reading the search image", err);
            break;
        }
        int n = sqlite3_blob_bytes(blob);
        if (off + (size_t)n > total || (n && sqlite3_blob_read(blob, buf + off, n, 0) != SQLITE_OK))
            rc = store_db_error(db, "reading the search image", err);
        off += (size_t)n;
    }
    sqlite3_blob_close(blob);
    if (rc) {
        free(buf);
        return rc;
    }
    *data = buf;
    *len = off;
    return 0;
}

/* The file the index names, read into one buffer; nothing when it is missing. */
static int read_file(const char *path, void **data, size_t *len, apidex_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size > IMAGE_MAX_BYTES) {
        if (fd >= 0) close(fd);
        return 0; /* none usable: the engine is built from the rows */
    }
    size_t total = (size_t)st.st_size, off = 0;
    char *buf = malloc(total);
    if (!buf) {
        close(fd);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory reading the search image");
    }
    while (off < total) {
        ssize_t r = read(fd, buf + off, total - off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        off += (size_t)r;
    }
    close(fd);
    *data = buf;
    *len = off; /* a file cut meanwhile: shorter than its header says, refused */
    return 0;
}

int store_image_read(store_index *idx, void **data, size_t *len, apidex_error *err)
{
    *data = NULL;
    *len = 0;
    sqlite3 *db = store_index_db(idx);
    size_t rows = image_rows(db);
    if (rows) return read_rows(db, rows, data, len, err);
    char *path = store_image_file_path(idx);
    int rc = path ? read_file(path, data, len, err) : 0;
    free(path);
    return rc;
}

/* The runs of rows per API a GROUP BY query gives (api, count, min rowid, max rowid). */
static int row_runs(store_index *idx, const char *sql, const char *what, core_arena *a,
                    store_chunk_run **out, size_t *n, apidex_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3 *db = store_index_db(idx);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return store_db_error(db, what, err);
    size_t cap = 0;
    int rc = 0, step;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (core_array_grow(out, &cap, *n, sizeof **out, 256)) {
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            break;
        }
        const char *api = (const char *)sqlite3_column_text(st, 0);
        store_chunk_run *r = &(*out)[(*n)++];
        r->api = core_arena_strdup(a, api ? api : "");
        r->n = (size_t)sqlite3_column_int64(st, 1);
        r->first_rowid = sqlite3_column_int64(st, 2);
        r->last_rowid = sqlite3_column_int64(st, 3);
        if (!r->api) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    if (!rc && step != SQLITE_DONE) rc = store_db_error(db, what, err);
    sqlite3_finalize(st);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

int store_chunk_runs(store_index *idx, core_arena *a, store_chunk_run **out, size_t *n,
                     apidex_error *err)
{
    /* chunks_api holds every row's api and rowid: no table page is read */
    return row_runs(idx,
                    "SELECT api, count(*), min(rowid), max(rowid) FROM chunks "
                    "GROUP BY api ORDER BY 3",
                    "chunks", a, out, n, err);
}

int store_chunk_terms_at(store_index *idx, const int64_t *rowids, size_t n, size_t *n_endpoints,
                         store_terms_fn fn, void *ctx, apidex_error *err)
{
    if (!n) return 0;
    sqlite3 *db = store_index_db(idx);
    core_buf sql;
    core_buf_init(&sql, 0);
    core_buf_puts(&sql, "SELECT endpoints, ");
    store_columns("t_", &sql);
    core_buf_puts(&sql, " FROM chunks WHERE rowid = ?");
    sqlite3_stmt *st = NULL;
    core_arena *a = core_arena_new(0);
    int rc = sql.failed || !a ? core_error_set(err, APIDEX_ENOMEM, "out of memory") : 0;
    if (!rc && sqlite3_prepare_v2(db, sql.data, -1, &st, NULL) != SQLITE_OK)
        rc = store_db_error(db, "chunks", err);
    core_buf_free(&sql);
    for (size_t i = 0; i < n && !rc; i++) {
        sqlite3_bind_int64(st, 1, rowids[i]);
        if (sqlite3_step(st) != SQLITE_ROW) {
            rc = core_error_set(err, APIDEX_EDB, "no chunk row %lld in the index",
                                (long long)rowids[i]);
            break;
        }
        const char **eps = NULL;
        if (store_json_strings(a, (const char *)sqlite3_column_text(st, 0), &eps,
                               &n_endpoints[i])) {
            rc =
                core_error_set(err, APIDEX_EDB, "chunk row %lld: its endpoints are not a JSON list",
                               (long long)rowids[i]);
            break;
        }
        const char *terms[STORE_FIELD_COUNT];
        for (int f = 0; f < STORE_FIELD_COUNT; f++) {
            const unsigned char *t = sqlite3_column_text(st, 1 + f);
            terms[f] = t ? (const char *)t : "";
        }
        rc = fn(ctx, i, terms);
        if (rc) core_error_set(err, rc, "out of memory");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    core_arena_free(a);
    return rc;
}

int store_op_runs(store_index *idx, core_arena *a, store_op_run **out, size_t *n, apidex_error *err)
{
    /* operations_api holds every row's api and rowid: no table page is read */
    return row_runs(idx,
                    "SELECT api, count(*), min(rowid), max(rowid) FROM operations "
                    "GROUP BY api ORDER BY api",
                    "operations", a, out, n, err);
}

static int cmp_id_at(const void *a, const void *b, void *ctx)
{
    const char *const *ids = ctx;
    return strcmp(ids[*(const size_t *)a], ids[*(const size_t *)b]);
}

/* The position of operation id among ids (by[] sorts them), or -1. */
static long op_ordinal(const char *const *ids, const size_t *by, size_t n, const char *id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ids[by[mid]], id);
        if (!c) return (long)by[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The API's operations (ids in rowid order) and each one's input entities. */
static int flow_ops(sqlite3 *db, const char *api, core_arena *a, store_api_flow *out,
                    apidex_error *err)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0, *by = NULL;
    const char **ids = NULL;
    bool fail = false;
    int rc = 0, step = SQLITE_DONE;
    if (sqlite3_prepare_v2(db, "SELECT id FROM operations WHERE api = ? ORDER BY rowid", -1, &st,
                           NULL) != SQLITE_OK)
        return store_db_error(db, "operations", err);
    sqlite3_bind_text(st, 1, api, -1, SQLITE_STATIC);
    while (!fail && (step = sqlite3_step(st)) == SQLITE_ROW) {
        fail = core_array_grow(&ids, &cap, out->n_ops, sizeof *ids, 64) != 0;
        if (!fail) fail = !(ids[out->n_ops++] = store_unpack_column(st, 0, a, NULL, &fail));
    }
    if (!fail && step != SQLITE_DONE) rc = store_db_error(db, "operations", err);
    sqlite3_finalize(st);
    st = NULL;
    size_t n = out->n_ops;
    if (!rc && !fail) {
        by = malloc((n ? n : 1) * sizeof *by);
        out->n_fields = core_arena_calloc(a, n ? n : 1, sizeof *out->n_fields);
        out->fields = core_arena_calloc(a, n ? n : 1, sizeof *out->fields);
        fail = !by || !out->n_fields || !out->fields;
    }
    for (size_t i = 0; !rc && !fail && i < n; i++) by[i] = i;
    if (!rc && !fail) qsort_r(by, n, sizeof *by, cmp_id_at, ids);
    if (!rc && !fail &&
        sqlite3_prepare_v2(db,
                           "SELECT operation, field FROM inputs WHERE api = ? "
                           "ORDER BY operation, ord",
                           -1, &st, NULL) != SQLITE_OK)
        rc = store_db_error(db, "inputs", err);
    if (st) sqlite3_bind_text(st, 1, api, -1, SQLITE_STATIC);
    /* rows come grouped by operation: a group's fields are gathered, then copied */
    const char **group = NULL;
    size_t n_group = 0, group_cap = 0;
    long cur = -1;
    while (!rc && !fail && st) {
        step = sqlite3_step(st);
        const char *op = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
        long oi = op ? op_ordinal(ids, by, n, op) : -1;
        if (step == SQLITE_ROW && oi < 0) continue; /* an input of no operation of this API */
        if (cur >= 0 && oi != cur) {
            const char **f = core_arena_calloc(a, n_group ? n_group : 1, sizeof *f);
            if (!(fail = !f)) {
                memcpy(f, group, n_group * sizeof *f);
                out->fields[cur] = f;
                out->n_fields[cur] = n_group;
            }
            n_group = 0;
        }
        if (step != SQLITE_ROW) break;
        cur = oi;
        if (n_group == group_cap) {
            group_cap = group_cap ? group_cap * 2 : 16;
            const char **t = realloc(group, group_cap * sizeof *t);
            if (!(fail = !t)) group = t;
        }
        if (!fail) group[n_group++] = store_unpack_column(st, 1, a, NULL, &fail);
    }
    if (!rc && !fail && st && step != SQLITE_DONE) rc = store_db_error(db, "inputs", err);
    sqlite3_finalize(st);
    free(group);
    free(by);
    free(ids);
    return rc ? rc : fail ? core_error_set(err, APIDEX_ENOMEM, "out of memory") : 0;
}

int store_api_flow_read(store_index *idx, const char *api, core_arena *a, store_api_flow *out,
                        apidex_error *err)
{
    *out = (store_api_flow){0};
    sqlite3 *db = store_index_db(idx);
    int rc = flow_ops(db, api, a, out, err);
    sqlite3_stmt *st = NULL;
    if (!rc && sqlite3_prepare_v2(db,
                                  "SELECT src, dst, param, field, features FROM edges "
                                  "WHERE api = ? AND kind = 2 ORDER BY seq",
                                  -1, &st, NULL) != SQLITE_OK)
        rc = store_db_error(db, "edges", err);
    if (st) sqlite3_bind_text(st, 1, api, -1, SQLITE_STATIC);
    size_t cap = 0;
    bool fail = false;
    int step = SQLITE_DONE;
    while (!rc && !fail && st && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->n_edges == cap) {
            size_t c = cap ? cap * 2 : 64;
            store_edge *t = core_arena_calloc(a, c, sizeof *t);
            if ((fail = !t)) break;
            if (cap) memcpy(t, out->edges, cap * sizeof *t);
            out->edges = t;
            cap = c;
        }
        store_edge *e = &out->edges[out->n_edges++];
        sqlite3_int64 src = sqlite3_column_int64(st, 0), dst = sqlite3_column_int64(st, 1);
        *e = (store_edge){.kind = STORE_EDGE_PRODUCER,
                          .src_index = src >= 0 && (size_t)src < out->n_ops ? (long)src : -1,
                          .dst_index = dst >= 0 && (size_t)dst < out->n_ops ? (long)dst : -1,
                          .features = (unsigned)sqlite3_column_int64(st, 4)};
        e->param = store_unpack_column(st, 2, a, NULL, &fail);
        e->field = store_unpack_column(st, 3, a, NULL, &fail);
    }
    if (!rc && !fail && st && step != SQLITE_DONE) rc = store_db_error(db, "edges", err);
    sqlite3_finalize(st);
    return rc ? rc : fail ? core_error_set(err, APIDEX_ENOMEM, "out of memory") : 0;
}
