/*
 * Reading an index, the parts read on demand: an operation's, schema's or chunk's text when
 * it is shown (one row by id, kept in the index's arena), chunk terms, and the vectors.
 */
#include "store/reader_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ---------------------------------------------------------------- text read when shown */

/* Marks a chunk's text slot read and found NULL (the chunk was indexed on its content). */
static const char no_text[1];

/* The first column of the row rowid (sql binds it) into *slot (the arena keeps it until
   store_close), read once; if_null when the column is NULL; "" when unreadable (the
   accessors never fail: a caller shows nothing). */
static const char *fetch_text(store_index *idx, const char *table, const char *column,
                              int64_t rowid, const char **slot, const char *if_null)
{
    pthread_mutex_lock(&idx->lock);
    if (!*slot && idx->lazy) { /* a replica reads it from its generation */
        const char *text = NULL;
        if (!store_pg_lazy_row(idx->lazy, table, &column, 1, rowid, idx->arena, &text, NULL))
            *slot = text ? text : if_null;
    }
    if (!*slot) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT \"%s\" FROM \"%s\" WHERE rowid = ?", column, table);
        sqlite3_stmt *st = NULL;
        const char *text = if_null;
        if (!idx->lazy && sqlite3_prepare_v2(idx->db, sql, -1, &st, NULL) == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, rowid);
            bool fail = false;
            if (sqlite3_step(st) == SQLITE_ROW) {
                const char *s = store_r_col_str(idx, st, 0, &fail);
                if (s) text = s;
            }
            sqlite3_finalize(st);
            if (!fail) *slot = text;
        }
        if (!*slot) {
            pthread_mutex_unlock(&idx->lock);
            return if_null;
        }
    }
    const char *out = *slot;
    pthread_mutex_unlock(&idx->lock);
    return out;
}

const char *store_operation_content(store_index *idx, size_t i)
{
    if (!idx || !idx->ops_loaded || i >= idx->n_ops) return "";
    return fetch_text(idx, "operations", "content", idx->op_rowids[i], &idx->ops[i].content, "");
}

const char *store_api_snapshot(store_index *idx, size_t i)
{
    if (!idx || !idx->apis_loaded || i >= idx->n_apis) return NULL;
    const char *t =
        fetch_text(idx, "apis", "snapshot", idx->api_rowids[i], &idx->apis[i].snapshot, no_text);
    return t == no_text || !*t ? NULL : t;
}

const char *store_schema_content(store_index *idx, size_t i)
{
    if (!idx || !idx->schemas_loaded || i >= idx->n_schemas) return "";
    return fetch_text(idx, "schemas", "content", idx->schema_rowids[i], &idx->schemas[i].content,
                      "");
}

const char *store_chunk_content(store_index *idx, size_t i)
{
    if (!idx || !idx->chunks_loaded || i >= idx->n_chunks) return "";
    const char *c = fetch_text(idx, "chunks", "content", idx->chunk_rowids[i],
                               &idx->chunks[i].content, no_text);
    if (c != no_text) return c;
    /* NULL: an endpoint chunk whose content is its operation's, stored once (writer.c) */
    const store_chunk *ch = &idx->chunks[i];
    long op = ch->n_endpoints && ch->endpoint_ops ? ch->endpoint_ops[0] : -1;
    return op >= 0 ? store_operation_content(idx, (size_t)op) : "";
}

const char *store_chunk_text(store_index *idx, size_t i)
{
    if (!idx || !idx->chunks_loaded || i >= idx->n_chunks) return NULL;
    const char *t =
        fetch_text(idx, "chunks", "text", idx->chunk_rowids[i], &idx->chunks[i].text, no_text);
    return t == no_text ? NULL : t;
}

const char *store_chunk_metadata(store_index *idx, size_t i)
{
    if (!idx || !idx->chunks_loaded || i >= idx->n_chunks) return NULL;
    const char *m = fetch_text(idx, "chunks", "metadata", idx->chunk_rowids[i],
                               &idx->chunks[i].metadata, no_text);
    return m == no_text ? NULL : m;
}

int64_t store_chunk_rowid(const store_index *idx, size_t i)
{
    return idx->chunks_loaded && i < idx->n_chunks ? idx->chunk_rowids[i] : -1;
}

int64_t store_operation_rowid(const store_index *idx, size_t i)
{
    return idx->ops_loaded && i < idx->n_ops ? idx->op_rowids[i] : -1;
}

int store_operation_texts_at(store_index *idx, int64_t rowid, core_arena *a, const char **summary,
                             const char **description)
{
    *summary = *description = NULL;
    if (idx->lazy) { /* a replica: from its generation */
        static const char *const cols[] = {"summary", "description"};
        const char *out[2];
        int rc = store_pg_lazy_row(idx->lazy, "operations", cols, 2, rowid, a, out, NULL);
        *summary = out[0];
        *description = out[1];
        return rc; /* not read: asked again next time */
    }
    pthread_mutex_lock(&idx->lock);
    sqlite3_stmt *st = NULL;
    bool fail = false;
    if (sqlite3_prepare_v2(idx->db, "SELECT summary, description FROM operations WHERE rowid = ?",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, rowid);
        if (sqlite3_step(st) == SQLITE_ROW) {
            *summary = store_unpack_column(st, 0, a, NULL, &fail);
            *description = store_unpack_column(st, 1, a, NULL, &fail);
        }
    }
    sqlite3_finalize(st);
    pthread_mutex_unlock(&idx->lock);
    return fail ? APIDEX_ENOMEM : 0;
}

unsigned store_loaded(const store_index *idx)
{
    unsigned m = 0;
    if (__atomic_load_n(&idx->ops_loaded, __ATOMIC_ACQUIRE)) m |= STORE_LOADED_OPERATIONS;
    if (__atomic_load_n(&idx->chunks_loaded, __ATOMIC_ACQUIRE)) m |= STORE_LOADED_CHUNKS;
    if (__atomic_load_n(&idx->edges_loaded, __ATOMIC_ACQUIRE)) m |= STORE_LOADED_EDGES;
    return m;
}

int store_chunk_terms_scan(store_index *idx, store_terms_fn fn, void *ctx, apidex_error *err)
{
    const store_chunk *chunks;
    size_t n_chunks;
    int rc = store_chunks(idx, &chunks, &n_chunks, err);
    if (!rc) rc = store_r_need(idx, "chunks", true, err);
    if (rc) return rc;
    core_buf sql;
    core_buf_init(&sql, 0);
    core_buf_puts(&sql, "SELECT rowid, ");
    store_columns("t_", &sql);
    core_buf_puts(&sql, " FROM chunks ORDER BY rowid");
    sqlite3_stmt *st = NULL;
    rc = sql.failed ? store_r_oom(err) : store_r_prepare(idx, sql.data, &st, err);
    core_buf_free(&sql);
    if (rc) return rc;
    int step;
    size_t next = 0; /* rows come in the order of the chunk array */
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t rowid = sqlite3_column_int64(st, 0);
        while (next < n_chunks && idx->chunk_rowids[next] < rowid) next++;
        if (next == n_chunks) break;
        if (idx->chunk_rowids[next] != rowid) continue;
        const char *terms[STORE_FIELD_COUNT];
        for (int f = 0; f < STORE_FIELD_COUNT; f++) {
            const unsigned char *t = sqlite3_column_text(st, 1 + f);
            terms[f] = t ? (const char *)t : "";
        }
        rc = fn(ctx, next++, terms);
        if (rc) core_error_set(err, rc, "out of memory");
    }
    if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = (step & 0xff) == SQLITE_CORRUPT || (step & 0xff) == SQLITE_NOTADB
                 ? store_damaged_error(idx->path, step, err)
                 : store_db_error(idx->db, "chunks", err);
    sqlite3_finalize(st);
    return rc;
}

/* ---------------------------------------------------------------- vectors */

int store_vectors_load(store_index *idx, const char *model, const store_vectors **out,
                       apidex_error *err)
{
    *out = NULL;
    if (!model) return core_error_set(err, APIDEX_EINVAL, "no embedding model named");
    const store_chunk *chunks;
    size_t n_chunks;
    int rc = store_chunks(idx, &chunks, &n_chunks, err);
    if (rc) return rc;
    pthread_mutex_lock(&idx->lock);
    for (loaded_vectors *v = idx->vectors; v; v = v->next) {
        if (!strcmp(v->v.model, model)) {
            *out = &v->v;
            pthread_mutex_unlock(&idx->lock);
            return 0;
        }
    }
    loaded_vectors *lv = calloc(1, sizeof *lv);
    sqlite3_stmt *st = NULL;
    rc = lv ? store_r_need(idx, "vectors", true, err) : 0;
    if (!rc)
        rc =
            lv ? store_r_prepare(
                     idx,
                     "SELECT c.rowid, v.dim, v.data FROM vectors v JOIN chunks c ON c.id = v.chunk "
                     "WHERE v.model = ? ORDER BY c.rowid",
                     &st, err)
               : store_r_oom(err);
    float *data = NULL;
    size_t *rows = NULL;
    size_t n = 0, cap = 0, dim = 0;
    if (!rc) {
        sqlite3_bind_text(st, 1, model, -1, SQLITE_STATIC);
        int step;
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            size_t d = store_r_col_size(st, 1);
            int bytes = sqlite3_column_bytes(st, 2);
            const void *blob = sqlite3_column_blob(st, 2);
            if (d == 0 || !blob || (size_t)bytes != d * sizeof(float)) continue;
            if (dim == 0) dim = d;
            if (d != dim) {
                rc = core_error_set(err, APIDEX_EDB, "vectors of model %s have mixed dimensions",
                                    model);
                break;
            }
            int64_t rowid = sqlite3_column_int64(st, 0);
            const int64_t *p = bsearch(&rowid, idx->chunk_rowids, n_chunks, sizeof rowid, cmp_i64);
            if (!p) continue;
            if (n == cap) {
                size_t ncap = cap ? cap * 2 : 256;
                float *nd = realloc(data, ncap * dim * sizeof *nd);
                if (nd) data = nd;
                size_t *nr = nd ? realloc(rows, ncap * sizeof *nr) : NULL;
                if (nr) rows = nr;
                if (!nd || !nr) {
                    rc = store_r_oom(err);
                    break;
                }
                cap = ncap;
            }
            memcpy(data + n * dim, blob, dim * sizeof(float));
            rows[n++] = (size_t)(p - idx->chunk_rowids);
        }
        if (!rc && step != SQLITE_DONE) rc = store_db_error(idx->db, "vectors", err);
    }
    sqlite3_finalize(st);
    if (!rc) {
        lv->v.model = core_arena_strdup(idx->arena, model);
        if (!lv->v.model) rc = store_r_oom(err);
    }
    if (rc) {
        free(data);
        free(rows);
        free(lv);
        pthread_mutex_unlock(&idx->lock);
        return rc;
    }
    lv->v.dim = dim;
    lv->v.n = n;
    lv->v.data = data;
    lv->v.rows = rows;
    lv->next = idx->vectors;
    idx->vectors = lv;
    *out = &lv->v;
    pthread_mutex_unlock(&idx->lock);
    return 0;
}
