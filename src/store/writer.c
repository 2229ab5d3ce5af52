/*
 * store_writer: builds a new index into `<db>.tmp-<pid>` and renames it over the
 * target at commit, so readers only ever see a complete index. Rows of unchanged
 * documents are copied from the old index, attached read-only and immutable; or, when
 * patching (add, remove), the temp file starts as a copy of the old index and only the
 * rows of the documents that change or go are deleted (patch.c). This file writes the new
 * index; writer_old.c reads the old one and copies its rows.
 */
#include "store/writer_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

static void hex64(uint64_t h, char out[17])
{
    core_hash_hex(h, out);
}

static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

static int step_done(sqlite3 *db, sqlite3_stmt *st, const char *what, apidex_error *err)
{
    int rc = sqlite3_step(st);
    int ret = 0;
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) ret = store_db_error(db, what, err);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return ret;
}

static void json_str_array(core_buf *b, const char *const *items, size_t n)
{
    core_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i) core_buf_putc(b, ',');
        const char *s = items[i] ? items[i] : "";
        core_buf_json_str(b, s, strlen(s));
    }
    core_buf_putc(b, ']');
}

/* A JSON string member, or null. */
static void json_member(core_buf *b, const char *key, const char *val, bool comma)
{
    if (comma) core_buf_putc(b, ',');
    core_buf_printf(b, "\"%s\":", key);
    if (val)
        core_buf_json_str(b, val, strlen(val));
    else
        core_buf_puts(b, "null");
}

/* ---------------------------------------------------------------- ordinals */

static void ord_map_clear(ord_map *m)
{
    if (m->keys) memset(m->keys, 0, (m->mask + 1) * sizeof *m->keys);
    m->n = 0;
}

static void ord_map_free(ord_map *m)
{
    free(m->keys);
    free(m->ords);
    memset(m, 0, sizeof *m);
}

static long ord_map_get(const ord_map *m, const char *key)
{
    if (!m->keys || !key) return -1;
    size_t h = (size_t)core_hash64(key, strlen(key)) & m->mask;
    while (m->keys[h]) {
        if (!strcmp(m->keys[h], key)) return (long)m->ords[h];
        h = (h + 1) & m->mask;
    }
    return -1;
}

/* key must outlive the map's use (the API arena). A duplicate id keeps its first ordinal. */
static int ord_map_put(ord_map *m, const char *key, size_t ord)
{
    if (!m->keys || (m->n + 1) * 2 > m->mask + 1) {
        size_t cap = m->keys ? (m->mask + 1) * 2 : 256;
        const char **keys = calloc(cap, sizeof *keys);
        size_t *ords = calloc(cap, sizeof *ords);
        if (!keys || !ords) {
            free(keys);
            free(ords);
            return APIDEX_ENOMEM;
        }
        for (size_t i = 0; m->keys && i <= m->mask; i++) {
            if (!m->keys[i]) continue;
            size_t h = (size_t)core_hash64(m->keys[i], strlen(m->keys[i])) & (cap - 1);
            while (keys[h]) h = (h + 1) & (cap - 1);
            keys[h] = m->keys[i];
            ords[h] = m->ords[i];
        }
        free(m->keys);
        free(m->ords);
        m->keys = keys;
        m->ords = ords;
        m->mask = cap - 1;
    }
    size_t h = (size_t)core_hash64(key, strlen(key)) & m->mask;
    while (m->keys[h]) {
        if (!strcmp(m->keys[h], key)) return 0;
        h = (h + 1) & m->mask;
    }
    m->keys[h] = key;
    m->ords[h] = ord;
    m->n++;
    return 0;
}

/* ---------------------------------------------------------------- temp files */

/* Removes `<base>.tmp-<pid>` files (and their journals, and the image copies
   `<base>.tmp-<pid>-image`, image_map.c) left by builds whose process is gone: a kill -9
   mid-build leaves one behind. */
static void remove_stale_temps(const char *target)
{
    const char *slash = strrchr(target, '/');
    char dir[4096];
    const char *base = target;
    if (slash) {
        size_t n = (size_t)(slash - target);
        if (n >= sizeof dir) return;
        memcpy(dir, target, n);
        dir[n] = '\0';
        if (n == 0) snprintf(dir, sizeof dir, "/");
        base = slash + 1;
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    char prefix[1024];
    int plen = snprintf(prefix, sizeof prefix, "%s.tmp-", base);
    if (plen <= 0 || (size_t)plen >= sizeof prefix) return;
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, (size_t)plen) != 0) continue;
        char *end = NULL;
        long pid = strtol(e->d_name + plen, &end, 10);
        if (pid <= 0 || end == e->d_name + plen) continue;
        if (*end != '\0' && strcmp(end, "-journal") != 0 && strcmp(end, "-image") != 0) continue;
        if (pid != (long)getpid() && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) continue;
        char full[8192];
        int n = snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        if (n > 0 && (size_t)n < sizeof full) unlink(full);
    }
    closedir(d);
}

static int fsync_path(const char *path, bool directory)
{
    int fd = open(path, (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

static void parent_dir(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, cap, ".");
    else if (slash == path)
        snprintf(out, cap, "/");
    else
        snprintf(out, cap, "%.*s", (int)(slash - path), path);
}

/* ---------------------------------------------------------------- begin */

static const char *const insert_sql[ST_COUNT] = {
    [ST_DOC] = "INSERT INTO documents(path, api, content_hash, n_files) VALUES(?,?,?,?)",
    [ST_API] = "INSERT INTO apis(id, document, title, version, description, spec_version, "
               "servers, tags, n_ops, n_schemas, content_hash, n_files, provider, overrides, "
               "snapshot) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_INPUT] = "INSERT INTO inputs(operation, api, ord, name, location, field, required) "
                 "VALUES(?,?,?,?,?,?,?)",
    [ST_SCHEMA] = "INSERT INTO schemas(id, api, name, pointer, content, tokens, used_by, "
                  "in_cycle) VALUES(?,?,?,?,?,?,?,?)",
    [ST_EDGE] = "INSERT INTO edges(api, kind, src, dst, param, field, score, hint, features, "
                "seq) VALUES(?,?,?,?,?,?,?,?,?,?)",
    [ST_VECTOR] = "INSERT OR REPLACE INTO vectors(api, chunk, model, dim, data) "
                  "VALUES(?,?,?,?,?)",
};

/* The two statements with one column per field are generated. */
static int build_insert_sql(int which, core_buf *b)
{
    core_buf_reset(b);
    if (which == ST_OP) {
        core_buf_puts(b, "INSERT INTO operations(id, api, method, path, operation_id, summary, "
                         "description, tags, deprecated, pointer, capability, content, tokens, "
                         "action, verb, flags) VALUES(?");
        for (int i = 1; i < 16; i++) core_buf_puts(b, ",?");
    } else {
        core_buf_puts(b, "INSERT INTO chunks(id, api, type, content, text, metadata, endpoints, "
                         "tokens");
        for (int f = 0; f < STORE_FIELD_COUNT; f++)
            core_buf_printf(b, ", t_%s", store_field_names[f]);
        core_buf_puts(b, ") VALUES(?");
        for (int i = 1; i < 8 + STORE_FIELD_COUNT; i++) core_buf_puts(b, ",?");
    }
    core_buf_puts(b, ")");
    return b->failed ? APIDEX_ENOMEM : 0;
}

static int prepare_all(store_writer *w, apidex_error *err)
{
    for (int i = 0; i < ST_COUNT; i++) {
        const char *sql = insert_sql[i];
        if (i == ST_OP || i == ST_CHUNK) {
            if (build_insert_sql(i, &w->buf)) return store_w_oom(err);
            sql = w->buf.data;
        }
        if (sqlite3_prepare_v2(w->db, sql, -1, &w->st[i], NULL) != SQLITE_OK)
            return store_db_error(w->db, "preparing the index writer", err);
    }
    return 0;
}

int store_writer_begin(const char *db_path, const store_writer_options *opt, store_writer **out,
                       apidex_error *err)
{
    *out = NULL;
    if (!db_path || !*db_path) return core_error_set(err, APIDEX_EINVAL, "no index path given");
    store_writer *w = calloc(1, sizeof *w);
    if (!w) return store_w_oom(err);
    core_buf_init(&w->buf, 0);
    core_buf_init(&w->json, 0);
    w->target = store_w_strdup(db_path);
    w->strategy = store_w_strdup(opt && opt->strategy ? opt->strategy : "");
    w->filters = store_w_strdup(opt && opt->filters ? opt->filters : "");
    core_buf_init(&w->changes, 0);
    w->on_change = opt ? opt->on_change : NULL;
    w->on_change_ctx = opt ? opt->on_change_ctx : NULL;
    w->image = opt ? opt->image : NULL;
    w->dataflow = opt ? opt->dataflow : 0;
    size_t n = strlen(db_path) + 32;
    w->tmp = malloc(n);
    w->terms = text_analyzer_new();
    w->api_arena = core_arena_new(0);
    if (!w->target || !w->strategy || !w->filters || !w->tmp || !w->terms || !w->api_arena) {
        store_writer_abort(w);
        return store_w_oom(err);
    }
    snprintf(w->tmp, n, "%s.tmp-%ld", db_path, (long)getpid());
    /* The same rule as search/lexical.c: an index is ranked field by field unless its
       strategy names another one than hybrid. */
    w->by_field = !w->strategy[0] || !strncmp(w->strategy, "hybrid", 6);

    char dir[4096];
    parent_dir(db_path, dir, sizeof dir);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        core_error_set(err, APIDEX_EIO, "cannot create the index %s: no directory %s", db_path,
                       dir);
        store_writer_abort(w);
        return APIDEX_EIO;
    }
    remove_stale_temps(db_path);
    unlink(w->tmp);
    char journal[4200];
    snprintf(journal, sizeof journal, "%s-journal", w->tmp);
    unlink(journal);

    int rc = 0;
    if (opt && opt->patch && !opt->full) {
        core_buf sig;
        core_buf_init(&sig, 0);
        if (store_signature(opt->strategy, opt->filters, opt->dataflow, &sig)) {
            core_buf_free(&sig);
            store_writer_abort(w);
            return store_w_oom(err);
        }
        bool eligible = store_patch_eligible(db_path, sig.data);
        core_buf_free(&sig);
        if (eligible && (rc = store_patch_copy(db_path, w->tmp, err)) != 0) {
            store_writer_abort(w);
            return rc;
        }
        w->patched = eligible;
    }
    rc = sqlite3_open_v2(
        w->tmp, &w->db,
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        store_db_error(w->db, "creating the index", err);
        core_error_at(err, w->tmp, 0, 0, NULL);
        store_writer_abort(w);
        return APIDEX_EDB;
    }
    /* The temp file is private until the rename, and is thrown away on any failure:
       no journal, no syncs until the one fsync before the rename. */
    rc = store_exec(w->db,
                    "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
                    "PRAGMA locking_mode = EXCLUSIVE; PRAGMA temp_store = MEMORY;"
                    "PRAGMA cache_size = -65536;",
                    err);
    if (!rc && !w->patched) rc = store_schema_create(w->db, err);
    if (!rc) rc = store_w_attach_old(w, opt, err);
    if (!rc && w->patched && !w->has_old) /* cannot happen under the lock: start over */
        rc = core_error_set(err, APIDEX_EDB, "%s changed while it was copied", db_path);
    if (!rc) rc = prepare_all(w, err);
    if (!rc) rc = store_exec(w->db, "BEGIN", err);
    if (rc) {
        store_writer_abort(w);
        return rc;
    }
    *out = w;
    return 0;
}

/* ---------------------------------------------------------------- APIs */

static int add_tag(store_writer *w, const char *name, const char *description, bool count)
{
    for (size_t i = 0; i < w->n_tags; i++) {
        if (strcmp(w->tags[i].name, name) != 0) continue;
        if (!w->tags[i].description && description) w->tags[i].description = description;
        if (count) w->tags[i].n_ops++;
        return 0;
    }
    if (core_array_grow(&w->tags, &w->cap_tags, w->n_tags, sizeof *w->tags, 16))
        return APIDEX_ENOMEM;
    /* Strings live in the API arena: the caller's record may be gone by flush time. */
    const char *n = core_arena_strdup(w->api_arena, name);
    const char *d = description ? core_arena_strdup(w->api_arena, description) : NULL;
    if (!n || (description && !d)) return APIDEX_ENOMEM;
    w->tags[w->n_tags++] = (pending_tag){n, d, count ? 1 : 0};
    return 0;
}

/* The pending edges of the API, src and dst as ordinals now that every operation and
   schema of it is known, in the order they were added. */
static int flush_edges(store_writer *w, apidex_error *err)
{
    sqlite3_stmt *st = w->st[ST_EDGE];
    int rc = 0;
    for (size_t i = 0; i < w->n_edges && !rc; i++) {
        const store_edge *e = &w->edges[i];
        const ord_map *sm = e->kind == STORE_EDGE_SCHEMA_SCHEMA ? &w->schema_ords : &w->op_ords;
        const ord_map *dm = e->kind == STORE_EDGE_PRODUCER ? &w->op_ords : &w->schema_ords;
        long src = e->src_index >= 0 ? e->src_index : ord_map_get(sm, e->src);
        long dst = e->dst_index >= 0 ? e->dst_index : ord_map_get(dm, e->dst);
        if (src < 0 || dst < 0)
            return core_error_set(err, APIDEX_EINVAL,
                                  "an edge of API '%s' names %s '%s', not in it", w->api.id,
                                  src < 0 ? "a source" : "a target", src < 0 ? e->src : e->dst);
        bind_text(st, 1, w->api.id);
        sqlite3_bind_int(st, 2, (int)e->kind);
        sqlite3_bind_int64(st, 3, src);
        sqlite3_bind_int64(st, 4, dst);
        bind_text(st, 5, e->param);
        bind_text(st, 6, e->field);
        sqlite3_bind_double(st, 7, e->kind == STORE_EDGE_PRODUCER ? e->score : 1.0);
        sqlite3_bind_int(st, 8, e->kind == STORE_EDGE_PRODUCER && e->explicit_hint ? 1 : 0);
        sqlite3_bind_int64(st, 9, e->kind == STORE_EDGE_PRODUCER ? (sqlite3_int64)e->features : 0);
        sqlite3_bind_int64(st, 10, (sqlite3_int64)i);
        rc = step_done(w->db, st, "writing an edge", err);
    }
    w->n_edges = 0;
    ord_map_clear(&w->op_ords);
    ord_map_clear(&w->schema_ords);
    return rc;
}

/* Inserts the pending API row and its edges, now that its counts are known. */
int store_w_flush_api(store_writer *w, apidex_error *err)
{
    if (!w->has_api) return 0;
    int erc = flush_edges(w, err);
    if (erc) {
        w->has_api = false;
        return erc;
    }
    const store_api *a = &w->api;
    core_buf *j = &w->json;
    core_buf_reset(j);
    core_buf_putc(j, '[');
    for (size_t i = 0; i < a->n_servers; i++) {
        core_buf_puts(j, i ? ",{" : "{");
        json_member(j, "url", a->servers[i].url, false);
        json_member(j, "description", a->servers[i].description, true);
        core_buf_putc(j, '}');
    }
    core_buf_putc(j, ']');
    size_t servers_len = j->len;
    core_buf_putc(j, '\0');
    core_buf_putc(j, '[');
    for (size_t i = 0; i < w->n_tags; i++) {
        core_buf_puts(j, i ? ",{" : "{");
        json_member(j, "name", w->tags[i].name, false);
        json_member(j, "description", w->tags[i].description, true);
        core_buf_printf(j, ",\"n_ops\":%zu}", w->tags[i].n_ops);
    }
    core_buf_putc(j, ']');
    if (j->failed) return store_w_oom(err);
    char hash[17];
    hex64(a->content_hash, hash);
    sqlite3_stmt *st = w->st[ST_API];
    bind_text(st, 1, a->id);
    bind_text(st, 2, a->document);
    bind_text(st, 3, a->title);
    bind_text(st, 4, a->version);
    bind_text(st, 5, a->description);
    bind_text(st, 6, a->spec_version);
    bind_text(st, 7, j->data);
    bind_text(st, 8, j->data + servers_len + 1);
    sqlite3_bind_int64(st, 9, (sqlite3_int64)w->api_ops);
    sqlite3_bind_int64(st, 10, (sqlite3_int64)w->api_schemas);
    sqlite3_bind_text(st, 11, hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 12, (sqlite3_int64)(a->n_files ? a->n_files : 1));
    bind_text(st, 13, a->provider);
    bind_text(st, 14, a->overrides);
    if (store_bind_packed(st, 15, &w->pack, a->snapshot) != SQLITE_OK) return store_w_oom(err);
    int rc = step_done(w->db, st, "writing an API", err);
    w->has_api = false;
    w->n_tags = 0;
    w->api_ops = w->api_schemas = 0;
    return rc;
}

/* Patching: the rows of old document d leave the temp file (it changes or goes). */
static int drop_old(store_writer *w, old_doc *d, apidex_error *err)
{
    if (!w->patched || !d || d->used || !d->in_file) return 0;
    d->in_file = false;
    return store_patch_drop(w->db, d->path, d->api, &w->removed, err);
}

int store_writer_add_api(store_writer *w, const store_api *api, apidex_error *err)
{
    if (!w || !api || !api->id || !api->document)
        return core_error_set(err, APIDEX_EINVAL, "an API needs an id and a document");
    int rc = store_w_flush_api(w, err);
    if (rc) return rc;
    core_arena_free(w->api_arena);
    w->api_arena = core_arena_new(0);
    if (!w->api_arena) return store_w_oom(err);

    /* Patching: the old rows of this document, and of another one with this id, go. */
    rc = drop_old(w, store_w_find_old(w, api->document), err);
    for (size_t i = 0; w->patched && !rc && i < w->n_old; i++)
        if (!strcmp(w->old[i].api, api->id)) rc = drop_old(w, &w->old[i], err);
    if (rc) return rc;

    char hash[17];
    hex64(api->content_hash, hash);
    sqlite3_stmt *st = w->st[ST_DOC];
    bind_text(st, 1, api->document);
    bind_text(st, 2, api->id);
    sqlite3_bind_text(st, 3, hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)(api->n_files ? api->n_files : 1));
    rc = step_done(w->db, st, "writing a document", err);
    if (rc) return rc;
    old_doc *d = store_w_find_old(w, api->document);
    bool update = d && !d->used;
    if (update) {
        d->used = true; /* replaced, not removed */
        w->updated++;
    } else {
        w->added++;
    }
    core_buf_putc(&w->changes, (char)(update ? STORE_CHANGE_UPDATED : STORE_CHANGE_ADDED));
    core_buf_append(&w->changes, api->id, strlen(api->id) + 1);
    if (w->changes.failed) return store_w_oom(err);

    /* Keep a copy of the record until store_w_flush_api. */
    core_arena *a = w->api_arena;
    w->api = *api;
    w->api.id = core_arena_strdup(a, api->id);
    w->api.document = core_arena_strdup(a, api->document);
    w->api.title = api->title ? core_arena_strdup(a, api->title) : NULL;
    w->api.version = api->version ? core_arena_strdup(a, api->version) : NULL;
    w->api.description = api->description ? core_arena_strdup(a, api->description) : NULL;
    w->api.spec_version = api->spec_version ? core_arena_strdup(a, api->spec_version) : NULL;
    w->api.provider = api->provider ? core_arena_strdup(a, api->provider) : NULL;
    w->api.overrides = api->overrides ? core_arena_strdup(a, api->overrides) : NULL;
    w->api.snapshot = api->snapshot ? core_arena_strdup(a, api->snapshot) : NULL;
    if (api->snapshot && !w->api.snapshot) return store_w_oom(err);
    w->api.servers = NULL;
    if (api->n_servers) {
        w->api.servers = core_arena_calloc(a, api->n_servers, sizeof *w->api.servers);
        if (!w->api.servers) return store_w_oom(err);
        for (size_t i = 0; i < api->n_servers; i++) {
            const store_server *s = &api->servers[i];
            w->api.servers[i].url = s->url ? core_arena_strdup(a, s->url) : NULL;
            w->api.servers[i].description =
                s->description ? core_arena_strdup(a, s->description) : NULL;
        }
    }
    w->api.tags = NULL;
    w->api.n_tags = 0;
    w->n_tags = 0;
    for (size_t i = 0; i < api->n_tags; i++)
        if (api->tags[i].name && add_tag(w, api->tags[i].name, api->tags[i].description, false))
            return store_w_oom(err);
    if (!w->api.id || !w->api.document) return store_w_oom(err);
    w->has_api = true;
    w->api_ops = w->api_schemas = 0;
    return 0;
}

static int check_api(store_writer *w, const char *api, const char *what, apidex_error *err)
{
    if (!w->has_api || !api || strcmp(api, w->api.id) != 0)
        return core_error_set(err, APIDEX_EINVAL, "%s of API '%s' written outside its API", what,
                              api ? api : "(none)");
    return 0;
}

/* Computes the terms of each field (unless given) into w->buf, NUL-separated;
   off[f] is where field f's terms start. In an index ranked field by field, a chunk
   with terms in a field before STORE_FIELD_TAGS is ranked on its fields alone
   (search/lexical.c), so its STORE_FIELD_OTHER terms, the biggest, are left empty. */
_Static_assert(STORE_FIELD_OTHER > STORE_FIELD_TAGS, "field_terms reads off[TAGS] at OTHER");

static int field_terms(store_writer *w, const char *const *fields, const char *const *terms,
                       size_t off[STORE_FIELD_COUNT])
{
    core_buf_reset(&w->buf);
    core_buf scratch;
    core_buf_init(&scratch, 0);
    for (int f = 0; f < STORE_FIELD_COUNT; f++) {
        off[f] = w->buf.len;
        /* Fields before tags hold terms when more than their NULs precede tags
           (off[STORE_FIELD_TAGS] is only read once it is set: OTHER comes after TAGS). */
        if (f == STORE_FIELD_OTHER && w->by_field &&
            off[STORE_FIELD_TAGS] > (size_t)STORE_FIELD_TAGS) {
            core_buf_putc(&w->buf, '\0');
            continue;
        }
        if (terms && terms[f]) {
            core_buf_puts(&w->buf, terms[f]);
        } else if (fields && fields[f] && fields[f][0]) {
            core_buf_reset(&scratch);
            text_analyzer_terms(w->terms, fields[f], strlen(fields[f]), TEXT_TERMS_INDEX, &scratch);
            if (scratch.len) core_buf_append(&w->buf, scratch.data, scratch.len);
        }
        core_buf_putc(&w->buf, '\0');
    }
    bool failed = scratch.failed || w->buf.failed;
    core_buf_free(&scratch);
    return failed ? APIDEX_ENOMEM : 0;
}

int store_writer_add_operation(store_writer *w, const store_operation *op, apidex_error *err)
{
    if (!op || !op->id || !op->method || !op->path)
        return core_error_set(err, APIDEX_EINVAL, "an operation needs an id, method and path");
    int rc = check_api(w, op->api, "an operation", err);
    if (rc) return rc;
    core_buf_reset(&w->json);
    json_str_array(&w->json, op->tags, op->n_tags);
    if (w->json.failed) return store_w_oom(err);

    sqlite3_stmt *st = w->st[ST_OP];
    int i = 1;
    bind_text(st, i++, op->id);
    bind_text(st, i++, op->api);
    bind_text(st, i++, op->method);
    bind_text(st, i++, op->path);
    bind_text(st, i++, op->operation_id);
    bind_text(st, i++, op->summary);
    bind_text(st, i++, op->description);
    bind_text(st, i++, w->json.data);
    sqlite3_bind_int(st, i++, op->deprecated ? 1 : 0);
    bind_text(st, i++, op->pointer);
    bind_text(st, i++, op->capability);
    if (store_bind_packed(st, i++, &w->pack, op->content) != SQLITE_OK) return store_w_oom(err);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)op->tokens);
    sqlite3_bind_int(st, i++, op->action);
    bind_text(st, i++, op->verb);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)op->flags);
    rc = step_done(w->db, st, "writing an operation", err);
    if (rc) return rc;

    st = w->st[ST_INPUT];
    for (size_t k = 0; k < op->n_inputs; k++) {
        const store_input *in = &op->inputs[k];
        if (!in->name) continue;
        bind_text(st, 1, op->id);
        bind_text(st, 2, op->api);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)k);
        bind_text(st, 4, in->name);
        bind_text(st, 5, in->location ? in->location : "query");
        bind_text(st, 6, in->field);
        sqlite3_bind_int(st, 7, in->required ? 1 : 0);
        rc = step_done(w->db, st, "writing an operation input", err);
        if (rc) return rc;
    }
    for (size_t k = 0; k < op->n_tags; k++)
        if (op->tags[k] && add_tag(w, op->tags[k], NULL, true)) return store_w_oom(err);
    const char *key = core_arena_strdup(w->api_arena, op->id);
    if (!key || ord_map_put(&w->op_ords, key, w->api_ops)) return store_w_oom(err);
    if (core_array_grow(&w->op_content, &w->cap_op_content, w->api_ops, sizeof *w->op_content, 64))
        return store_w_oom(err);
    w->op_content[w->api_ops] = op->content ? core_arena_strdup(w->api_arena, op->content) : NULL;
    if (op->content && !w->op_content[w->api_ops]) return store_w_oom(err);
    w->api_ops++;
    return 0;
}

int store_writer_add_schema(store_writer *w, const store_schema *s, apidex_error *err)
{
    if (!s || !s->id || !s->name)
        return core_error_set(err, APIDEX_EINVAL, "a schema needs an id and a name");
    int rc = check_api(w, s->api, "a schema", err);
    if (rc) return rc;
    sqlite3_stmt *st = w->st[ST_SCHEMA];
    bind_text(st, 1, s->id);
    bind_text(st, 2, s->api);
    bind_text(st, 3, s->name);
    bind_text(st, 4, s->pointer);
    if (store_bind_packed(st, 5, &w->pack, s->content) != SQLITE_OK) return store_w_oom(err);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)s->tokens);
    sqlite3_bind_int64(st, 7, (sqlite3_int64)s->used_by);
    sqlite3_bind_int(st, 8, s->in_cycle ? 1 : 0);
    rc = step_done(w->db, st, "writing a schema", err);
    if (rc) return rc;
    const char *key = core_arena_strdup(w->api_arena, s->id);
    if (!key || ord_map_put(&w->schema_ords, key, w->api_schemas)) return store_w_oom(err);
    w->api_schemas++;
    return 0;
}

int store_writer_add_chunk(store_writer *w, const store_chunk *c, apidex_error *err)
{
    if (!c || !c->id || !c->type || !c->content)
        return core_error_set(err, APIDEX_EINVAL, "a chunk needs an id, a type and content");
    int rc = check_api(w, c->api, "a chunk", err);
    if (rc) return rc;
    size_t off[STORE_FIELD_COUNT];
    /* A chunk of no operation (a schema's, an API overview) is never ranked (search ranks
       operations through their chunks, lexical.c), so it keeps no terms. */
    if (c->n_endpoints ? field_terms(w, c->fields, c->terms, off) : field_terms(w, NULL, NULL, off))
        return store_w_oom(err);
    core_buf_reset(&w->json);
    json_str_array(&w->json, c->endpoints, c->n_endpoints);
    if (w->json.failed) return store_w_oom(err);
    sqlite3_stmt *st = w->st[ST_CHUNK];
    int i = 1;
    bind_text(st, i++, c->id);
    bind_text(st, i++, c->api);
    bind_text(st, i++, c->type);
    /* An endpoint chunk is most often its operation's rendered content: store it once. */
    long op = c->n_endpoints == 1 ? ord_map_get(&w->op_ords, c->endpoints[0]) : -1;
    bool same = op >= 0 && (size_t)op < w->api_ops && w->op_content[op] &&
                !strcmp(w->op_content[op], c->content);
    if (store_bind_packed(st, i++, &w->pack, same ? NULL : c->content) != SQLITE_OK)
        return store_w_oom(err);
    /* Most strategies index what they hand out: store the text once. */
    if (store_bind_packed(st, i++, &w->pack,
                          c->text && strcmp(c->text, c->content) != 0 ? c->text : NULL) !=
        SQLITE_OK)
        return store_w_oom(err);
    if (store_bind_packed(st, i++, &w->pack, c->metadata) != SQLITE_OK) return store_w_oom(err);
    bind_text(st, i++, w->json.data);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)c->tokens);
    for (int f = 0; f < STORE_FIELD_COUNT; f++) bind_text(st, i++, w->buf.data + off[f]);
    return step_done(w->db, st, "writing a chunk", err);
}

int store_writer_add_edge(store_writer *w, const char *api, const store_edge *e, apidex_error *err)
{
    if (!e || !e->src || !e->dst || (int)e->kind < 0 || (int)e->kind > (int)STORE_EDGE_PRODUCER)
        return core_error_set(err, APIDEX_EINVAL, "an edge needs a kind, a src and a dst");
    int rc = check_api(w, api, "an edge", err);
    if (rc) return rc;
    if (core_array_grow(&w->edges, &w->cap_edges, w->n_edges, sizeof *w->edges, 256))
        return store_w_oom(err);
    /* Held until the API is complete (flush_edges), in order. src_index/dst_index hold
       the ordinals already known (producers name operations written before them); only
       the ids not known yet (schemas written later) are copied. */
    core_arena *a = w->api_arena;
    store_edge c = *e;
    c.src_index =
        ord_map_get(e->kind == STORE_EDGE_SCHEMA_SCHEMA ? &w->schema_ords : &w->op_ords, e->src);
    c.dst_index =
        ord_map_get(e->kind == STORE_EDGE_PRODUCER ? &w->op_ords : &w->schema_ords, e->dst);
    c.src = c.src_index >= 0 ? NULL : core_arena_strdup(a, e->src);
    c.dst = c.dst_index >= 0 ? NULL : core_arena_strdup(a, e->dst);
    c.param = e->param ? core_arena_strdup(a, e->param) : NULL;
    c.field = e->field ? core_arena_strdup(a, e->field) : NULL;
    if ((c.src_index < 0 && !c.src) || (c.dst_index < 0 && !c.dst) || (e->param && !c.param) ||
        (e->field && !c.field))
        return store_w_oom(err);
    w->edges[w->n_edges++] = c;
    return 0;
}

int store_writer_add_vector(store_writer *w, const char *api, const char *chunk_id,
                            const char *model, const float *v, size_t dim, apidex_error *err)
{
    if (!chunk_id || !model || !v || dim == 0 || dim > (1u << 20))
        return core_error_set(err, APIDEX_EINVAL, "a vector needs a chunk, a model and values");
    int rc = check_api(w, api, "a vector", err);
    if (rc) return rc;
    /* Stored as little-endian float32, which is the in-memory layout on every target
       this builds for (x86-64, aarch64); the reader checks the blob size. */
    sqlite3_stmt *st = w->st[ST_VECTOR];
    bind_text(st, 1, api);
    bind_text(st, 2, chunk_id);
    bind_text(st, 3, model);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)dim);
    sqlite3_bind_blob(st, 5, v, (int)(dim * sizeof(float)), SQLITE_STATIC);
    return step_done(w->db, st, "writing a vector", err);
}

int store_writer_set_overrides(store_writer *w, const char *api_id, const char *json,
                               apidex_error *err)
{
    if (!w || !api_id) return core_error_set(err, APIDEX_EINVAL, "no API given");
    int rc = store_w_flush_api(w, err); /* the API being added may be this one */
    if (rc) return rc;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, "UPDATE main.apis SET overrides = ?1 WHERE id = ?2", -1, &st,
                           NULL) != SQLITE_OK)
        return store_db_error(w->db, "writing an API's overrides", err);
    bind_text(st, 1, json);
    bind_text(st, 2, api_id);
    rc = step_done(w->db, st, "writing an API's overrides", err);
    sqlite3_finalize(st);
    return rc;
}

/* ---------------------------------------------------------------- aliases */

int store_writer_add_alias(store_writer *w, const char *alias, const char *api, apidex_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, "INSERT OR IGNORE INTO aliases(alias, api) VALUES(?, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        return store_db_error(w->db, "writing an alias", err);
    sqlite3_bind_text(st, 1, alias, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, api, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : store_db_error(w->db, "writing an alias", err);
    sqlite3_finalize(st);
    return rc;
}

/* ---------------------------------------------------------------- commit */

static uint64_t new_build_id(void)
{
    uint64_t id = 0;
    if (getrandom(&id, sizeof id, GRND_NONBLOCK) != (ssize_t)sizeof id) {
        /* No entropy yet (early boot): time and pid are unique enough for a build id. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t seed[3] = {(uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec, (uint64_t)getpid()};
        id = core_hash64(seed, sizeof seed);
    }
    return id ? id : 1;
}

static int put_meta(store_writer *w, const char *key, const char *value, apidex_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        return store_db_error(w->db, "writing index metadata", err);
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, value ? value : "", -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : store_db_error(w->db, "writing metadata", err);
    sqlite3_finalize(st);
    return rc;
}

/* The rows of the new index. Counting a big index reads every index page, so a patched
   build takes the old file's counts and adds what changed: the rows removed, copied and
   written (those of the APIs added or updated, counted by API). */
static void new_rows(store_writer *w, store_rows *r)
{
    if (!w->patched) {
        store_rows_count(w->db, "main", NULL, r);
        return;
    }
    if (store_rows_read(w->db, "old", r) != 0) store_rows_count(w->db, "old", NULL, r);
    store_rows d = w->copied;
    for (size_t i = 0; i < w->changes.len;) {
        const char *id = w->changes.data + i + 1;
        store_rows n;
        store_rows_count(w->db, "main", id, &n);
        d.apis += n.apis;
        d.operations += n.operations;
        d.schemas += n.schemas;
        d.chunks += n.chunks;
        d.edges += n.edges;
        i += 2 + strlen(id);
    }
    r->apis += d.apis - w->removed.apis;
    r->operations += d.operations - w->removed.operations;
    r->schemas += d.schemas - w->removed.schemas;
    r->chunks += d.chunks - w->removed.chunks;
    r->edges += d.edges - w->removed.edges;
}

int store_writer_commit(store_writer *w, store_build_report *rep, apidex_error *err)
{
    if (!w) return core_error_set(err, APIDEX_EINVAL, "no index build in progress");
    int rc = store_w_flush_api(w, err);
    for (size_t i = 0; i < w->n_old && !rc; i++) rc = drop_old(w, &w->old[i], err);
    uint64_t build_id = new_build_id();
    char idhex[17];
    hex64(build_id, idhex);
    char created[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    core_buf sig;
    core_buf_init(&sig, 0);
    if (!rc && store_signature(w->strategy, w->filters, w->dataflow, &sig)) rc = store_w_oom(err);
    if (!rc) rc = put_meta(w, "build_id", idhex, err);
    if (!rc) rc = put_meta(w, "created", created, err);
    if (!rc) rc = put_meta(w, "apidex_version", APIDEX_VERSION_STRING, err);
    if (!rc) rc = put_meta(w, "strategy", w->strategy, err);
    if (!rc) rc = put_meta(w, "filters", w->filters, err);
    if (!rc) rc = put_meta(w, "signature", sig.data, err);
    core_buf_free(&sig);
    store_rows rows = {0};
    char rows_text[128];
    if (!rc) {
        new_rows(w, &rows);
        store_rows_format(&rows, rows_text, sizeof rows_text);
        rc = put_meta(w, "rows", rows_text, err);
    }
    if (!rc) rc = store_exec(w->db, "COMMIT", err);
    if (rc) {
        store_writer_abort(w);
        return rc;
    }
    if (rep) {
        size_t removed = 0;
        for (size_t i = 0; i < w->n_old; i++) removed += !w->old[i].used;
        rep->removed = removed;
        rep->added = w->added;
        rep->updated = w->updated;
        rep->unchanged = w->unchanged;
        rep->kept = w->kept;
        rep->n_apis = (size_t)rows.apis;
        rep->n_operations = (size_t)rows.operations;
        rep->n_schemas = (size_t)rows.schemas;
        rep->n_chunks = (size_t)rows.chunks;
        rep->n_edges = (size_t)rows.edges;
        rep->full_rebuild = w->full_rebuild;
        snprintf(rep->reason, sizeof rep->reason, "%s", w->reason);
        rep->build_id = build_id;
    }
    for (int i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(w->st[i]);
        w->st[i] = NULL;
    }
    if (sqlite3_close(w->db) != SQLITE_OK) {
        store_db_error(w->db, "closing the new index", err);
        store_writer_abort(w);
        return APIDEX_EDB;
    }
    w->db = NULL;
    /* The search image of the complete file: its own file, complete and durable, named in
       the temp file before that becomes visible. */
    char *image_name = NULL;
    if ((rc = store_w_put_image(w->tmp, w->target, build_id, w->image, &image_name, err)) != 0) {
        store_writer_abort(w);
        return rc;
    }
    /* Durable before visible: the data, then the rename, then the directory entry. */
    char dir[4096];
    parent_dir(w->target, dir, sizeof dir);
    if (fsync_path(w->tmp, false) != 0 || rename(w->tmp, w->target) != 0) {
        core_error_set(err, APIDEX_EIO, "cannot install the new index %s: %s", w->target,
                       strerror(errno));
        store_w_image_abort(w->target, &image_name);
        store_writer_abort(w);
        return APIDEX_EIO;
    }
    fsync_path(dir, true);
    /* the previous generations' image files: no index names them any more (a reader that
       mapped one keeps its mapping; one that opened the old index and not yet its image
       builds its engine from the rows) */
    store_w_prune_image_files(w->target, image_name);
    free(image_name);
    free(w->tmp);
    w->tmp = NULL; /* nothing left to remove */
    if (w->on_change) {
        for (size_t i = 0; i < w->changes.len;) {
            const char *id = w->changes.data + i + 1;
            w->on_change(w->on_change_ctx, (store_change)w->changes.data[i], id);
            i += 2 + strlen(id);
        }
        for (size_t i = 0; i < w->n_old; i++)
            if (!w->old[i].used)
                w->on_change(w->on_change_ctx, STORE_CHANGE_REMOVED, w->old[i].api);
    }
    store_writer_abort(w);
    return 0;
}

void store_writer_abort(store_writer *w)
{
    if (!w) return;
    for (int i = 0; i < ST_COUNT; i++) sqlite3_finalize(w->st[i]);
    if (w->db) sqlite3_close(w->db);
    if (w->tmp) {
        unlink(w->tmp);
        size_t n = strlen(w->tmp) + 16;
        char *j = malloc(n);
        if (j) {
            snprintf(j, n, "%s-journal", w->tmp);
            unlink(j);
            free(j);
        }
    }
    store_w_free_old(w);
    core_buf_free(&w->changes);
    for (size_t i = 0; i < w->n_aliases; i++) {
        free(w->aliases[i].alias);
        free(w->aliases[i].api);
    }
    free(w->aliases);
    free(w->tags);
    free(w->edges);
    free(w->op_content);
    ord_map_free(&w->op_ords);
    ord_map_free(&w->schema_ords);
    core_arena_free(w->api_arena);
    text_analyzer_free(w->terms);
    store_pack_free(&w->pack);
    core_buf_free(&w->buf);
    core_buf_free(&w->json);
    free(w->target);
    free(w->tmp);
    free(w->strategy);
    free(w->filters);
    free(w);
}
