/*
 * Reading an index: open (immutable), version checks, and the load-all
 * accessors the search stage ranks over. Each table is loaded once, on first
 * use, under the index lock, into the index's arena.
 */
#include "store/reader_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------- helpers */

int store_r_oom(apidex_error *err)
{
    return core_error_set(err, APIDEX_ENOMEM, "out of memory while reading the index");
}

/* A column as an arena string (NULL for SQL NULL), packed text decoded; sets *fail on OOM. */
const char *store_r_col_str(store_index *idx, sqlite3_stmt *st, int i, bool *fail)
{
    return store_unpack_column(st, i, idx->arena, NULL, fail);
}

/* Like col_str but "" instead of NULL. */
static const char *col_str0(store_index *idx, sqlite3_stmt *st, int i, bool *fail)
{
    const char *s = store_r_col_str(idx, st, i, fail);
    return s ? s : "";
}

size_t store_r_col_size(sqlite3_stmt *st, int i)
{
    sqlite3_int64 v = sqlite3_column_int64(st, i);
    return v > 0 ? (size_t)v : 0;
}

static int map_build(store_index *idx, id_map *m, size_t n,
                     const char *(*key)(const void *, size_t), const void *arr)
{
    size_t cap = 16;
    while (cap < n * 2) cap *= 2;
    m->slots = core_arena_calloc(idx->arena, cap, sizeof *m->slots);
    if (!m->slots) return APIDEX_ENOMEM;
    m->mask = cap - 1;
    for (size_t i = 0; i < n; i++) {
        const char *k = key(arr, i);
        size_t h = (size_t)core_hash64(k, strlen(k)) & m->mask;
        while (m->slots[h]) {
            /* Ids are unique in a valid index; keep the first on a duplicate. */
            if (!strcmp(key(arr, m->slots[h] - 1), k)) break;
            h = (h + 1) & m->mask;
        }
        if (!m->slots[h]) m->slots[h] = i + 1;
    }
    return 0;
}

static long map_find(const id_map *m, const char *(*key)(const void *, size_t), const void *arr,
                     const char *k)
{
    if (!m->slots || !k) return -1;
    size_t h = (size_t)core_hash64(k, strlen(k)) & m->mask;
    while (m->slots[h]) {
        if (!strcmp(key(arr, m->slots[h] - 1), k)) return (long)(m->slots[h] - 1);
        h = (h + 1) & m->mask;
    }
    return -1;
}

static const char *api_key(const void *arr, size_t i)
{
    return ((const store_api *)arr)[i].id;
}
static const char *op_key(const void *arr, size_t i)
{
    return ((const store_operation *)arr)[i].id;
}
static const char *schema_key(const void *arr, size_t i)
{
    return ((const store_schema *)arr)[i].id;
}

static long api_index_of(store_index *idx, const char *api)
{
    return map_find(&idx->api_map, api_key, idx->apis, api);
}

int store_r_prepare(store_index *idx, const char *sql, sqlite3_stmt **st, apidex_error *err)
{
    if (sqlite3_prepare_v2(idx->db, sql, -1, st, NULL) != SQLITE_OK)
        return store_damaged_error(idx->path, sqlite3_extended_errcode(idx->db), err);
    return 0;
}

/* Counts rows so arrays are allocated once. */
static size_t count_rows(store_index *idx, const char *table)
{
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    sqlite3_stmt *st = NULL;
    size_t n = 0;
    if (sqlite3_prepare_v2(idx->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = store_r_col_size(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* ---------------------------------------------------------------- open / close */

static int read_meta(store_index *idx, const char *key, const char **out, apidex_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = store_r_prepare(idx, "SELECT value FROM meta WHERE key = ?", &st, err);
    if (rc) return rc;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    bool fail = false;
    *out = "";
    if (sqlite3_step(st) == SQLITE_ROW) *out = col_str0(idx, st, 0, &fail);
    sqlite3_finalize(st);
    return fail ? store_r_oom(err) : 0;
}

int store_open(const char *path, bool readonly, store_index **out, apidex_error *err)
{
    *out = NULL;
    if (!path || !*path) return core_error_set(err, APIDEX_EINVAL, "no index path given");
    if (store_is_server(path)) return store_pg_open(path, out, err);
    struct stat st;
    if (stat(path, &st) != 0)
        return core_error_set(err, APIDEX_ENOTFOUND,
                              "no index at %s: build one with 'apidex index SPEC...'", path);
    if (!S_ISREG(st.st_mode))
        return core_error_set(err, APIDEX_EINVAL, "%s is not an index file", path);
    store_index *idx = calloc(1, sizeof *idx);
    if (!idx) return store_r_oom(err);
    pthread_mutex_init(&idx->lock, NULL);
    idx->arena = core_arena_new(0);
    size_t plen = strlen(path) + 1;
    idx->path = malloc(plen);
    if (!idx->arena || !idx->path) {
        store_close(idx);
        return store_r_oom(err);
    }
    memcpy(idx->path, path, plen);

    core_buf uri;
    core_buf_init(&uri, 0);
    int rc = 0;
    if (readonly)
        rc = store_uri_immutable(path, &uri);
    else
        rc = core_buf_puts(&uri, path);
    if (rc) {
        core_buf_free(&uri);
        store_close(idx);
        return store_r_oom(err);
    }
    int flags = (readonly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI : SQLITE_OPEN_READWRITE) |
                SQLITE_OPEN_FULLMUTEX;
    rc = sqlite3_open_v2(uri.data, &idx->db, flags, NULL);
    core_buf_free(&uri);
    if (rc != SQLITE_OK) {
        rc = store_file_error(path, rc, false, err);
        store_close(idx);
        return rc;
    }
    int version = -1;
    rc = store_schema_check(idx->db, "main", path, &version, err);
    if (rc && version < 0) /* damaged, or not an index at all: say which */
        rc = store_file_error(path, sqlite3_extended_errcode(idx->db), false, err);
    if (rc) {
        store_close(idx);
        return rc;
    }
    /* stat after opening: if a rebuild renamed a new file in between, changed()
       reports it and the caller reopens; the other order could miss it. */
    if (stat(path, &idx->st) != 0) memset(&idx->st, 0, sizeof idx->st);
    const char *id = NULL;
    rc = read_meta(idx, "build_id", &id, err);
    if (rc == APIDEX_EDB)
        rc = store_file_error(path, sqlite3_extended_errcode(idx->db), false, err);
    if (rc) {
        store_close(idx);
        return rc;
    }
    idx->build_id = strtoull(id, NULL, 16);
    if (!idx->build_id) idx->build_id = 1;
    *out = idx;
    return 0;
}

void store_close(store_index *idx)
{
    if (!idx) return;
    if (idx->db) sqlite3_close(idx->db);
    store_pg_lazy_free(idx->lazy); /* after the file it fills in is closed */
    pthread_mutex_destroy(&idx->lock);
    for (loaded_vectors *v = idx->vectors; v;) {
        loaded_vectors *next = v->next;
        free((void *)v->v.data);
        free((void *)v->v.rows);
        free(v);
        v = next;
    }
    core_arena_free(idx->arena);
    store_mapping_release(&idx->image_map);
    store_doc_cache_free(idx->docs);
    free(idx->path);
    free(idx);
}

store_doc_cache *store_index_doc_cache(store_index *idx)
{
    pthread_mutex_lock(&idx->lock);
    if (!idx->docs) idx->docs = store_doc_cache_new();
    store_doc_cache *c = idx->docs;
    pthread_mutex_unlock(&idx->lock);
    return c;
}

sqlite3 *store_index_db(store_index *idx)
{
    return idx->db;
}

store_mapping *store_index_image_map(store_index *idx)
{
    return &idx->image_map;
}

const char *store_index_file(const store_index *idx)
{
    return idx->path;
}

uint64_t store_index_version(const store_index *idx)
{
    return idx ? idx->build_id : 0;
}

void store_index_set_generation(store_index *idx, long long generation)
{
    idx->generation = generation;
}

void store_index_set_lazy(store_index *idx, store_pg_lazy *z)
{
    idx->lazy = z;
}

bool store_index_fetched(store_index *idx, size_t *rows, size_t *bytes)
{
    store_pg_counts n = {0};
    if (idx && idx->lazy) store_pg_lazy_counts(idx->lazy, &n);
    *rows = n.rows;
    *bytes = n.bytes;
    return idx && idx->lazy;
}

/* A replica's table copied into its file before it is read (full: with the heavy columns). */
int store_r_need(store_index *idx, const char *table, bool full, apidex_error *err)
{
    return idx->lazy ? store_pg_lazy_table(idx->lazy, idx->db, table, full, err) : 0;
}

long long store_index_generation(const store_index *idx)
{
    return idx ? idx->generation : 0;
}

bool store_index_changed(const char *path, const store_index *idx)
{
    if (store_is_server(path)) return !idx || store_pg_generation(path) != idx->generation;
    struct stat st;
    if (!idx || !path || stat(path, &st) != 0) return true;
    return st.st_dev != idx->st.st_dev || st.st_ino != idx->st.st_ino ||
           st.st_size != idx->st.st_size || st.st_mtim.tv_sec != idx->st.st_mtim.tv_sec ||
           st.st_mtim.tv_nsec != idx->st.st_mtim.tv_nsec;
}

int store_index_info(store_index *idx, store_info *out, apidex_error *err)
{
    if (__atomic_load_n(&idx->have_info, __ATOMIC_ACQUIRE)) {
        *out = idx->info;
        return 0;
    }
    pthread_mutex_lock(&idx->lock);
    int rc = 0;
    if (!idx->have_info) {
        store_info *i = &idx->info;
        memset(i, 0, sizeof *i);
        i->schema_version = STORE_SCHEMA_VERSION;
        i->build_id = idx->build_id;
        rc = read_meta(idx, "apidex_version", &i->apidex_version, err);
        if (!rc) rc = read_meta(idx, "strategy", &i->strategy, err);
        if (!rc) rc = read_meta(idx, "filters", &i->filters, err);
        if (!rc) rc = read_meta(idx, "created", &i->created, err);
        /* the counts the build wrote in meta "rows" (count(*) of edges alone reads some
           30,000 pages at directory scale); an index without them is counted */
        store_rows r;
        if (!store_rows_read(idx->db, "main", &r) && r.apis >= 0 && r.operations >= 0 &&
            r.schemas >= 0 && r.chunks >= 0 && r.edges >= 0) {
            i->n_apis = (size_t)r.apis;
            i->n_operations = (size_t)r.operations;
            i->n_schemas = (size_t)r.schemas;
            i->n_chunks = (size_t)r.chunks;
            i->n_edges = (size_t)r.edges;
        } else {
            i->n_apis = count_rows(idx, "apis");
            i->n_operations = count_rows(idx, "operations");
            i->n_schemas = count_rows(idx, "schemas");
            i->n_chunks = count_rows(idx, "chunks");
            i->n_edges = count_rows(idx, "edges");
        }
        i->n_documents = count_rows(idx, "documents");
        if (!rc) __atomic_store_n(&idx->have_info, true, __ATOMIC_RELEASE);
    }
    if (!rc) *out = idx->info;
    pthread_mutex_unlock(&idx->lock);
    return rc;
}

/* ---------------------------------------------------------------- APIs */

/* ---------------------------------------------------------------- row loops */

/* Fills element i of a loader's array(s) from the current row: 0 kept, 1 skipped, -1 out
   of memory. */
typedef int (*row_fn)(store_index *idx, sqlite3_stmt *st, size_t i);

/* Prepares sql and allocates, in the arena, one elem-sized slot per row of table. */
static int rows_begin(store_index *idx, const char *sql, const char *table, size_t elem, void **arr,
                      size_t *cap, sqlite3_stmt **st, apidex_error *err)
{
    int rc = store_r_prepare(idx, sql, st, err);
    if (rc) return rc;
    *cap = count_rows(idx, table);
    *arr = core_arena_calloc(idx->arena, *cap ? *cap : 1, elem);
    if (!*arr) {
        sqlite3_finalize(*st);
        *st = NULL;
        return store_r_oom(err);
    }
    return 0;
}

/* Steps st to the end (at most cap rows), fn filling element *n of each kept row, then
   finalises it. */
static int rows_run(store_index *idx, sqlite3_stmt *st, size_t cap, const char *table, row_fn fn,
                    size_t *n, apidex_error *err)
{
    bool fail = false;
    int rc = SQLITE_DONE;
    *n = 0; /* a load that failed before may be tried again */
    while (!fail && *n < cap && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int kept = fn(idx, st, *n);
        if (kept < 0)
            fail = true;
        else if (kept == 0)
            (*n)++;
    }
    sqlite3_finalize(st);
    if (fail) return store_r_oom(err);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB
                   ? store_damaged_error(idx->path, rc, err)
                   : store_db_error(idx->db, table, err);
    return 0;
}

static int api_row(store_index *idx, sqlite3_stmt *st, size_t i)
{
    bool fail = false;
    store_api *a = &idx->apis[i];
    a->id = col_str0(idx, st, 0, &fail);
    a->document = col_str0(idx, st, 1, &fail);
    a->title = store_r_col_str(idx, st, 2, &fail);
    a->version = store_r_col_str(idx, st, 3, &fail);
    a->description = store_r_col_str(idx, st, 4, &fail);
    a->spec_version = store_r_col_str(idx, st, 5, &fail);
    if (store_json_api(idx->arena, a, (const char *)sqlite3_column_text(st, 6),
                       (const char *)sqlite3_column_text(st, 7)))
        fail = true;
    a->n_ops = store_r_col_size(st, 8);
    a->n_schemas = store_r_col_size(st, 9);
    const char *h = (const char *)sqlite3_column_text(st, 10);
    a->content_hash = h ? strtoull(h, NULL, 16) : 0;
    a->n_files = store_r_col_size(st, 11);
    a->provider = store_r_col_str(idx, st, 12, &fail);
    a->overrides = store_r_col_str(idx, st, 13, &fail);
    idx->api_rowids[i] = sqlite3_column_int64(st, 14);
    return fail ? -1 : 0;
}

/* The aliases table onto each API's aliases (sorted; two passes: count, then fill). */
static int load_aliases(store_index *idx, apidex_error *err)
{
    for (int pass = 0; pass < 2; pass++) {
        sqlite3_stmt *st = NULL;
        if (store_r_prepare(idx, "SELECT alias, api FROM aliases ORDER BY alias", &st, err))
            return APIDEX_EDB;
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            long a = map_find(&idx->api_map, api_key, idx->apis,
                              (const char *)sqlite3_column_text(st, 1));
            if (a < 0) continue;
            store_api *api = &idx->apis[a];
            if (pass == 0) {
                api->n_aliases++;
                continue;
            }
            bool fail = false;
            api->aliases[api->n_aliases++] = col_str0(idx, st, 0, &fail);
            if (fail) {
                sqlite3_finalize(st);
                return store_r_oom(err);
            }
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE) return store_damaged_error(idx->path, rc, err);
        for (size_t i = 0; i < idx->n_apis; i++) {
            store_api *api = &idx->apis[i];
            if (pass == 1 || !api->n_aliases) continue;
            api->aliases = core_arena_calloc(idx->arena, api->n_aliases, sizeof *api->aliases);
            if (!api->aliases) return store_r_oom(err);
            api->n_aliases = 0;
        }
    }
    return 0;
}

static int load_apis(store_index *idx, apidex_error *err)
{
    if (idx->apis_loaded) return 0;
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    void *arr = NULL;
    int rc = rows_begin(idx,
                        "SELECT id, document, title, version, description, spec_version, servers, "
                        "tags, n_ops, n_schemas, content_hash, n_files, provider, overrides, rowid "
                        "FROM apis ORDER BY id",
                        "apis", sizeof *idx->apis, &arr, &cap, &st, err);
    idx->apis = arr;
    if (!rc && !(idx->api_rowids = core_arena_calloc(idx->arena, cap ? cap : 1, sizeof(int64_t)))) {
        sqlite3_finalize(st);
        rc = store_r_oom(err);
    }
    if (!rc) rc = rows_run(idx, st, cap, "apis", api_row, &idx->n_apis, err);
    if (rc) return rc;
    if (map_build(idx, &idx->api_map, idx->n_apis, api_key, idx->apis)) return store_r_oom(err);
    rc = load_aliases(idx, err);
    if (rc) return rc;
    __atomic_store_n(&idx->apis_loaded, true, __ATOMIC_RELEASE);
    return 0;
}

/* ---------------------------------------------------------------- operations */

static int load_inputs(store_index *idx, apidex_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = store_r_need(idx, "inputs", false, err);
    if (!rc)
        rc = store_r_prepare(idx,
                             "SELECT operation, name, location, field, required FROM inputs "
                             "ORDER BY operation, ord",
                             &st, err);
    if (rc) return rc;
    /* Rows come grouped by operation: count a group, then copy it. */
    size_t cap = count_rows(idx, "inputs");
    store_input *all = cap ? core_arena_calloc(idx->arena, cap, sizeof *all) : NULL;
    if (cap && !all) {
        sqlite3_finalize(st);
        return store_r_oom(err);
    }
    size_t used = 0;
    long cur = -1;
    bool fail = false;
    rc = SQLITE_DONE;
    while (used < cap && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *op = (const char *)sqlite3_column_text(st, 0);
        long oi = map_find(&idx->op_map, op_key, idx->ops, op);
        if (oi < 0) continue;
        store_operation *o = &idx->ops[oi];
        if (oi != cur) {
            o->inputs = all + used;
            o->n_inputs = 0;
            cur = oi;
        }
        store_input *in = &all[used++];
        in->name = col_str0(idx, st, 1, &fail);
        in->location = col_str0(idx, st, 2, &fail);
        in->field = store_r_col_str(idx, st, 3, &fail);
        in->required = sqlite3_column_int(st, 4) != 0;
        o->n_inputs++;
    }
    sqlite3_finalize(st);
    if (fail) return store_r_oom(err);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB
                   ? store_damaged_error(idx->path, rc, err)
                   : store_db_error(idx->db, "inputs", err);
    return 0;
}

static int op_row(store_index *idx, sqlite3_stmt *st, size_t i)
{
    bool fail = false;
    store_operation *o = &idx->ops[i];
    o->id = col_str0(idx, st, 0, &fail);
    o->api = col_str0(idx, st, 1, &fail);
    o->method = col_str0(idx, st, 2, &fail);
    o->path = col_str0(idx, st, 3, &fail);
    o->operation_id = store_r_col_str(idx, st, 4, &fail);
    o->summary = store_r_col_str(idx, st, 5, &fail);
    o->description = store_r_col_str(idx, st, 6, &fail);
    if (store_json_strings(idx->arena, (const char *)sqlite3_column_text(st, 7), &o->tags,
                           &o->n_tags))
        fail = true;
    o->deprecated = sqlite3_column_int(st, 8) != 0;
    o->pointer = store_r_col_str(idx, st, 9, &fail);
    o->capability = store_r_col_str(idx, st, 10, &fail);
    idx->op_rowids[i] = sqlite3_column_int64(st, 11);
    o->tokens = store_r_col_size(st, 12);
    o->action = sqlite3_column_int(st, 13);
    o->verb = store_r_col_str(idx, st, 14, &fail);
    o->flags = (unsigned)sqlite3_column_int64(st, 15);
    long ai = api_index_of(idx, o->api);
    o->api_index = ai >= 0 ? (size_t)ai : 0;
    return fail ? -1 : 0;
}

static int load_ops(store_index *idx, apidex_error *err)
{
    if (idx->ops_loaded) return 0;
    int rc = load_apis(idx, err);
    if (!rc) rc = store_r_need(idx, "operations", false, err);
    if (rc) return rc;
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    void *arr = NULL;
    /* Not the rendered content (store_operation_content reads it when shown). */
    rc = rows_begin(idx,
                    "SELECT id, api, method, path, operation_id, summary, description, tags, "
                    "deprecated, pointer, capability, rowid, tokens, action, verb, flags "
                    "FROM operations ORDER BY api, rowid",
                    "operations", sizeof *idx->ops, &arr, &cap, &st, err);
    idx->ops = arr;
    if (!rc && !(idx->op_rowids = core_arena_calloc(idx->arena, cap ? cap : 1, sizeof(int64_t)))) {
        sqlite3_finalize(st);
        rc = store_r_oom(err);
    }
    if (!rc) rc = rows_run(idx, st, cap, "operations", op_row, &idx->n_ops, err);
    if (rc) return rc;
    if (map_build(idx, &idx->op_map, idx->n_ops, op_key, idx->ops)) return store_r_oom(err);
    rc = load_inputs(idx, err);
    if (rc) return rc;
    __atomic_store_n(&idx->ops_loaded, true, __ATOMIC_RELEASE);
    return 0;
}

/* ---------------------------------------------------------------- schemas */

static int schema_row(store_index *idx, sqlite3_stmt *st, size_t i)
{
    bool fail = false;
    store_schema *s = &idx->schemas[i];
    s->id = col_str0(idx, st, 0, &fail);
    s->api = col_str0(idx, st, 1, &fail);
    s->name = col_str0(idx, st, 2, &fail);
    s->pointer = store_r_col_str(idx, st, 3, &fail);
    idx->schema_rowids[i] = sqlite3_column_int64(st, 4);
    s->tokens = store_r_col_size(st, 5);
    s->used_by = store_r_col_size(st, 6);
    s->in_cycle = sqlite3_column_int(st, 7) != 0;
    long ai = api_index_of(idx, s->api);
    s->api_index = ai >= 0 ? (size_t)ai : 0;
    return fail ? -1 : 0;
}

static int load_schemas(store_index *idx, apidex_error *err)
{
    if (idx->schemas_loaded) return 0;
    int rc = load_apis(idx, err);
    if (!rc) rc = store_r_need(idx, "schemas", false, err);
    if (rc) return rc;
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    void *arr = NULL;
    rc = rows_begin(idx,
                    "SELECT id, api, name, pointer, rowid, tokens, used_by, in_cycle FROM schemas "
                    "ORDER BY api, rowid",
                    "schemas", sizeof *idx->schemas, &arr, &cap, &st, err);
    idx->schemas = arr;
    if (!rc &&
        !(idx->schema_rowids = core_arena_calloc(idx->arena, cap ? cap : 1, sizeof(int64_t)))) {
        sqlite3_finalize(st);
        rc = store_r_oom(err);
    }
    if (!rc) rc = rows_run(idx, st, cap, "schemas", schema_row, &idx->n_schemas, err);
    if (rc) return rc;
    if (map_build(idx, &idx->schema_map, idx->n_schemas, schema_key, idx->schemas))
        return store_r_oom(err);
    __atomic_store_n(&idx->schemas_loaded, true, __ATOMIC_RELEASE);
    return 0;
}

/* ---------------------------------------------------------------- chunks */

static int chunk_row(store_index *idx, sqlite3_stmt *st, size_t i)
{
    bool fail = false;
    store_chunk *c = &idx->chunks[i];
    idx->chunk_rowids[i] = sqlite3_column_int64(st, 0);
    c->id = col_str0(idx, st, 1, &fail);
    c->api = col_str0(idx, st, 2, &fail);
    c->type = col_str0(idx, st, 3, &fail);
    if (store_json_strings(idx->arena, (const char *)sqlite3_column_text(st, 4), &c->endpoints,
                           &c->n_endpoints))
        fail = true;
    c->tokens = store_r_col_size(st, 5);
    if (c->n_endpoints && !fail) {
        c->endpoint_ops = core_arena_calloc(idx->arena, c->n_endpoints, sizeof(long));
        if (!c->endpoint_ops) fail = true;
        for (size_t k = 0; k < c->n_endpoints && !fail; k++)
            c->endpoint_ops[k] = map_find(&idx->op_map, op_key, idx->ops, c->endpoints[k]);
    }
    long ai = api_index_of(idx, c->api);
    c->api_index = ai >= 0 ? (size_t)ai : 0;
    return fail ? -1 : 0;
}

static int load_chunks(store_index *idx, apidex_error *err)
{
    if (idx->chunks_loaded) return 0;
    int rc = load_ops(idx, err);
    if (!rc) rc = store_r_need(idx, "chunks", false, err);
    if (rc) return rc;
    core_buf sql;
    core_buf_init(&sql, 0);
    /* Not the content, text, metadata or terms: store_chunk_content / _text / _metadata
       read them when asked for, store_chunk_terms_scan streams the terms to the ranker.
       rowid order: store_vectors_load maps rowids back by binary search. */
    core_buf_puts(&sql, "SELECT rowid, id, api, type, endpoints, tokens FROM chunks "
                        "ORDER BY rowid");
    if (sql.failed) {
        core_buf_free(&sql);
        return store_r_oom(err);
    }
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    void *arr = NULL;
    rc = rows_begin(idx, sql.data, "chunks", sizeof *idx->chunks, &arr, &cap, &st, err);
    idx->chunks = arr;
    core_buf_free(&sql);
    if (rc) return rc;
    idx->chunk_rowids = core_arena_calloc(idx->arena, cap ? cap : 1, sizeof *idx->chunk_rowids);
    if (!idx->chunk_rowids) {
        sqlite3_finalize(st);
        return store_r_oom(err);
    }
    rc = rows_run(idx, st, cap, "chunks", chunk_row, &idx->n_chunks, err);
    if (rc) return rc;
    __atomic_store_n(&idx->chunks_loaded, true, __ATOMIC_RELEASE);
    return 0;
}

/* ---------------------------------------------------------------- edges */

/* Where each API's operations and schemas start in the loaded arrays (both are ordered
   by API, then rowid), so an edge's ordinals become array indexes. [n_apis + 1] each. */
static int api_starts_build(store_index *idx)
{
    size_t n = idx->n_apis;
    size_t *op = core_arena_calloc(idx->arena, n + 1, sizeof *op);
    size_t *schema = core_arena_calloc(idx->arena, n + 1, sizeof *schema);
    if (!op || !schema) return APIDEX_ENOMEM;
    /* counts per API, then prefix sums */
    for (size_t i = 0; i < idx->n_ops; i++) op[idx->ops[i].api_index + 1]++;
    for (size_t i = 0; i < idx->n_schemas; i++) schema[idx->schemas[i].api_index + 1]++;
    for (size_t a = 0; a < n; a++) {
        op[a + 1] += op[a];
        schema[a + 1] += schema[a];
    }
    idx->op_starts = op;
    idx->schema_starts = schema;
    return 0;
}

/* The array index of ordinal ord of API ai among starts (-1 when out of range). */
static long ord_index(const size_t *starts, long ai, sqlite3_int64 ord)
{
    if (ai < 0 || ord < 0) return -1;
    size_t i = starts[ai] + (size_t)ord;
    return i < starts[ai + 1] ? (long)i : -1;
}

/* One edge row into idx->edges[i]; ai: its API. */
static int edge_row(store_index *idx, sqlite3_stmt *st, size_t i, int kind, long ai)
{
    bool fail = false;
    store_edge *e = &idx->edges[i];
    e->kind = (store_edge_kind)kind;
    sqlite3_int64 src = sqlite3_column_int64(st, 1), dst = sqlite3_column_int64(st, 2);
    const size_t *ss = kind == STORE_EDGE_SCHEMA_SCHEMA ? idx->schema_starts : idx->op_starts;
    const size_t *ds = kind == STORE_EDGE_PRODUCER ? idx->op_starts : idx->schema_starts;
    e->src_index = ord_index(ss, ai, src);
    e->dst_index = ord_index(ds, ai, dst);
    e->src = e->src_index < 0                   ? ""
             : kind == STORE_EDGE_SCHEMA_SCHEMA ? idx->schemas[e->src_index].id
                                                : idx->ops[e->src_index].id;
    e->dst = e->dst_index < 0              ? ""
             : kind == STORE_EDGE_PRODUCER ? idx->ops[e->dst_index].id
                                           : idx->schemas[e->dst_index].id;
    e->param = store_r_col_str(idx, st, 3, &fail);
    e->field = store_r_col_str(idx, st, 4, &fail);
    e->score = sqlite3_column_double(st, 5);
    e->explicit_hint = sqlite3_column_int(st, 6) != 0;
    e->features = (unsigned)sqlite3_column_int64(st, 7);
    return fail ? -1 : 0;
}

/* Where each API's edges go (ordered by API, then rowid): at[a] for API a, at[n_apis] for
   rows of an API the index does not have; from the counts per API, read from the api index
   alone. Returns the number of edges, or -1 when unreadable. */
static long edge_slots(store_index *idx, size_t *at)
{
    sqlite3_stmt *st = NULL;
    if (store_r_prepare(idx,
                        "SELECT api, count(*) FROM edges WHERE kind BETWEEN 0 AND 2 GROUP BY api",
                        &st, NULL))
        return -1;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        long ai = api_index_of(idx, (const char *)sqlite3_column_text(st, 0));
        at[ai >= 0 ? (size_t)ai : idx->n_apis] += store_r_col_size(st, 1);
    }
    sqlite3_finalize(st);
    size_t total = 0;
    for (size_t a = 0; a <= idx->n_apis; a++) {
        size_t n = at[a];
        at[a] = total;
        total += n;
    }
    return step == SQLITE_DONE ? (long)total : -1;
}

/* The edges in API order (the order of the APIs' rows, not of their ids), from one scan of
   the table in its own (api, seq) order: each row is placed by its API's count. */
static int load_edges(store_index *idx, apidex_error *err)
{
    if (idx->edges_loaded) return 0;
    int rc = load_ops(idx, err);
    if (!rc) rc = load_schemas(idx, err);
    if (!rc) rc = store_r_need(idx, "edges", false, err);
    if (rc) return rc;
    if (api_starts_build(idx)) return store_r_oom(err);
    size_t *at = calloc(idx->n_apis + 2, sizeof *at), *end = calloc(idx->n_apis + 2, sizeof *at);
    long total = at && end ? edge_slots(idx, at) : -1;
    sqlite3_stmt *st = NULL;
    if (total >= 0)
        idx->edges = core_arena_calloc(idx->arena, total ? (size_t)total : 1, sizeof *idx->edges);
    rc = total < 0 ? store_damaged_error(idx->path, sqlite3_extended_errcode(idx->db), err)
         : !idx->edges
             ? store_r_oom(err)
             : store_r_prepare(idx,
                               "SELECT kind, src, dst, param, field, score, hint, features, "
                               "api FROM edges ORDER BY api, seq",
                               &st, err);
    for (size_t a = 0; !rc && a <= idx->n_apis; a++)
        end[a] = a < idx->n_apis ? at[a + 1] : (size_t)total;
    const unsigned char *last = NULL; /* the previous row's API: rows come API by API */
    long ai = -1;
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int kind = sqlite3_column_int(st, 0);
        if (kind < STORE_EDGE_OP_SCHEMA || kind > STORE_EDGE_PRODUCER) continue;
        const unsigned char *api = sqlite3_column_text(st, 8);
        if (!api || !last || strcmp((const char *)api, (const char *)last)) {
            ai = api_index_of(idx, (const char *)api);
            last = ai >= 0 ? (const unsigned char *)idx->apis[ai].id : NULL;
        }
        size_t a = ai >= 0 ? (size_t)ai : idx->n_apis;
        if (at[a] >= end[a]) continue; /* more rows than counted: a damaged file */
        if (edge_row(idx, st, at[a]++, kind, ai)) rc = store_r_oom(err);
    }
    sqlite3_finalize(st);
    if (!rc && step != SQLITE_DONE)
        rc = (step & 0xff) == SQLITE_CORRUPT || (step & 0xff) == SQLITE_NOTADB
                 ? store_damaged_error(idx->path, step, err)
                 : store_db_error(idx->db, "edges", err);
    for (size_t a = 0; !rc && a <= idx->n_apis; a++)
        if (at[a] != end[a]) rc = store_damaged_error(idx->path, SQLITE_CORRUPT, err);
    free(at);
    free(end);
    if (rc) return rc;
    idx->n_edges = (size_t)total;
    __atomic_store_n(&idx->edges_loaded, true, __ATOMIC_RELEASE);
    return 0;
}

/* ---------------------------------------------------------------- public accessors */

/* Loaded once, then read without the lock (a load finishes by setting its flag, release):
   an engine loads the edges on one thread while another streams the chunks' terms. */
#define LOCKED_LOAD(loader, arr, count)                                                            \
    do {                                                                                           \
        if (__atomic_load_n(&idx->arr##_loaded, __ATOMIC_ACQUIRE)) {                               \
            *out = idx->arr;                                                                       \
            *n = idx->count;                                                                       \
            return 0;                                                                              \
        }                                                                                          \
        pthread_mutex_lock(&idx->lock);                                                            \
        int rc_ = loader(idx, err);                                                                \
        if (!rc_) {                                                                                \
            *out = idx->arr;                                                                       \
            *n = idx->count;                                                                       \
        } else {                                                                                   \
            *out = NULL;                                                                           \
            *n = 0;                                                                                \
        }                                                                                          \
        pthread_mutex_unlock(&idx->lock);                                                          \
        return rc_;                                                                                \
    } while (0)

int store_apis(store_index *idx, const store_api **out, size_t *n, apidex_error *err)
{
    LOCKED_LOAD(load_apis, apis, n_apis);
}

int store_operations(store_index *idx, const store_operation **out, size_t *n, apidex_error *err)
{
    LOCKED_LOAD(load_ops, ops, n_ops);
}

int store_schemas(store_index *idx, const store_schema **out, size_t *n, apidex_error *err)
{
    LOCKED_LOAD(load_schemas, schemas, n_schemas);
}

int store_chunks(store_index *idx, const store_chunk **out, size_t *n, apidex_error *err)
{
    LOCKED_LOAD(load_chunks, chunks, n_chunks);
}

int store_edges(store_index *idx, const store_edge **out, size_t *n, apidex_error *err)
{
    LOCKED_LOAD(load_edges, edges, n_edges);
}

long store_find_operation(store_index *idx, const char *id)
{
    pthread_mutex_lock(&idx->lock);
    long i = load_ops(idx, NULL) ? -1 : map_find(&idx->op_map, op_key, idx->ops, id);
    pthread_mutex_unlock(&idx->lock);
    return i;
}

long store_find_schema(store_index *idx, const char *id)
{
    pthread_mutex_lock(&idx->lock);
    long i =
        load_schemas(idx, NULL) ? -1 : map_find(&idx->schema_map, schema_key, idx->schemas, id);
    pthread_mutex_unlock(&idx->lock);
    return i;
}

long store_find_api(store_index *idx, const char *id)
{
    pthread_mutex_lock(&idx->lock);
    long i = load_apis(idx, NULL) ? -1 : api_index_of(idx, id);
    pthread_mutex_unlock(&idx->lock);
    return i;
}
