/*
 * The old index side of store_writer: reads the documents and aliases of the index being
 * replaced (attached read-only as "old"), answers what it held, and copies the rows of
 * unchanged documents (and their vectors) into the new index.
 */
#include "store/writer_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_old(const void *a, const void *b)
{
    return strcmp(((const old_doc *)a)->path, ((const old_doc *)b)->path);
}

old_doc *store_w_find_old(store_writer *w, const char *path)
{
    if (!w->n_old || !path) return NULL;
    old_doc key = {.path = (char *)path};
    return bsearch(&key, w->old, w->n_old, sizeof *w->old, cmp_old);
}

void store_w_free_old(store_writer *w)
{
    for (size_t i = 0; i < w->n_old; i++) {
        free(w->old[i].path);
        free(w->old[i].api);
    }
    free(w->old);
    w->old = NULL;
    w->n_old = 0;
}

/* The current index is an apidex index SQLite cannot read (truncated, overwritten): with
   --full the build starts from nothing and replaces it, else it says how to recover. */
static int damaged(store_writer *w, const store_writer_options *opt, int rc, apidex_error *err)
{
    if (!opt || !opt->full) return store_file_error(w->target, rc, true, err);
    store_exec(w->db, "DETACH old", NULL);
    store_w_free_old(w);
    snprintf(w->reason, sizeof w->reason, "the index file was damaged (%s)", sqlite3_errstr(rc));
    w->full_rebuild = true;
    w->has_old = false;
    return 0;
}

/* The old documents, sorted by path, for reuse, for counting removals and for keeping
   API ids. 0, APIDEX_ENOMEM, or an SQLite code. */
static int read_old_docs(store_writer *w)
{
    sqlite3_stmt *q = NULL;
    int rc;
    if ((rc = sqlite3_prepare_v2(w->db, "SELECT path, api, content_hash FROM old.documents", -1, &q,
                                 NULL)) != SQLITE_OK)
        return rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (core_array_grow(&w->old, &cap, w->n_old, sizeof *w->old, 64)) {
            sqlite3_finalize(q);
            return APIDEX_ENOMEM;
        }
        old_doc *d = &w->old[w->n_old];
        d->path = store_w_strdup((const char *)sqlite3_column_text(q, 0));
        d->api = store_w_strdup((const char *)sqlite3_column_text(q, 1));
        d->hash = store_w_parse_hex64((const char *)sqlite3_column_text(q, 2));
        d->used = false;
        d->in_file = w->patched;
        if (!d->path || !d->api) {
            free(d->path);
            free(d->api);
            sqlite3_finalize(q);
            return APIDEX_ENOMEM;
        }
        w->n_old++;
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) return rc;
    qsort(w->old, w->n_old, sizeof *w->old, cmp_old);
    return 0;
}

/* The old aliases (none in an index of an older schema). 0 or APIDEX_ENOMEM. */
static int read_old_aliases(store_writer *w)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(w->db, "SELECT alias, api FROM old.aliases ORDER BY alias", -1, &q,
                           NULL) != SQLITE_OK)
        return 0;
    size_t cap = 0;
    int rc = 0;
    while (!rc && sqlite3_step(q) == SQLITE_ROW) {
        if (core_array_grow(&w->aliases, &cap, w->n_aliases, sizeof *w->aliases, 16)) {
            rc = APIDEX_ENOMEM;
            break;
        }
        old_alias *a = &w->aliases[w->n_aliases];
        a->alias = store_w_strdup((const char *)sqlite3_column_text(q, 0));
        a->api = store_w_strdup((const char *)sqlite3_column_text(q, 1));
        if (!a->alias || !a->api) {
            free(a->alias);
            free(a->api);
            rc = APIDEX_ENOMEM;
        } else {
            w->n_aliases++;
        }
    }
    sqlite3_finalize(q);
    return rc;
}

/* Attaches the current index for reuse when it is compatible. A file that is not
   an apidex index at all is never replaced: that is somebody else's data. */
int store_w_attach_old(store_writer *w, const store_writer_options *opt, apidex_error *err)
{
    store_file_kind kind = store_probe(w->target);
    if (kind == STORE_FILE_MISSING || kind == STORE_FILE_EMPTY) return 0; /* first build */
    if (kind != STORE_FILE_APIDEX) return store_file_error(w->target, SQLITE_NOTADB, true, err);
    core_buf uri;
    core_buf_init(&uri, 0);
    if (store_uri_immutable(w->target, &uri)) {
        core_buf_free(&uri);
        return store_w_oom(err);
    }
    sqlite3_stmt *att = NULL;
    int rc = sqlite3_prepare_v2(w->db, "ATTACH ? AS old", -1, &att, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(att, 1, uri.data, -1, SQLITE_STATIC);
        rc = sqlite3_step(att);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    sqlite3_finalize(att);
    core_buf_free(&uri);
    if (rc != SQLITE_OK) return damaged(w, opt, rc, err);

    int version = -1;
    apidex_error why;
    core_error_clear(&why);
    if (store_schema_check(w->db, "old", w->target, &version, &why) != 0) {
        if (version < 0) return damaged(w, opt, sqlite3_extended_errcode(w->db), err);
        snprintf(w->reason, sizeof w->reason, "the index has schema version %d (now %d)", version,
                 STORE_SCHEMA_VERSION);
        w->full_rebuild = true;
        /* Its documents still say which ids users know: best effort. */
        w->legacy_ids = version < 4; /* ids were file names before schema 4 */
        if (read_old_docs(w) == APIDEX_ENOMEM) return store_w_oom(err);
        store_exec(w->db, "DETACH old", NULL);
        return 0;
    }

    /* Same schema: the rows are reusable when the chunking options are the same. */
    core_buf sig;
    core_buf_init(&sig, 0);
    if (store_signature(opt ? opt->strategy : NULL, opt ? opt->filters : NULL,
                        opt ? opt->dataflow : 0, &sig)) {
        core_buf_free(&sig);
        return store_w_oom(err);
    }
    sqlite3_stmt *q = NULL;
    bool same = false;
    if (sqlite3_prepare_v2(w->db, "SELECT value FROM old.meta WHERE key = 'signature'", -1, &q,
                           NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW) {
        const char *old_sig = (const char *)sqlite3_column_text(q, 0);
        same = old_sig && !strcmp(old_sig, sig.data);
    }
    sqlite3_finalize(q);
    core_buf_free(&sig);
    if (opt && opt->full) {
        snprintf(w->reason, sizeof w->reason, "a full rebuild was asked for");
        w->full_rebuild = true;
    } else if (!same) {
        snprintf(w->reason, sizeof w->reason,
                 "the chunking options, the embedding model or the apidex version changed");
        w->full_rebuild = true;
    }

    /* The old documents, sorted by path, for reuse, for counting removals and for keeping
       API ids; and the names the APIs had before. */
    rc = read_old_docs(w);
    if (rc == APIDEX_ENOMEM) return store_w_oom(err);
    if (rc) return damaged(w, opt, rc, err);
    rc = read_old_aliases(w);
    if (rc == APIDEX_ENOMEM) return store_w_oom(err);
    if (rc) return damaged(w, opt, rc, err);
    w->has_old = !w->full_rebuild;
    if (w->full_rebuild) store_exec(w->db, "DETACH old", NULL);
    return 0;
}

int store_writer_old_vector(store_writer *w, const char *chunk_id, const char *model,
                            const char *text, float *out, size_t dim)
{
    /* Only an old index of the same signature (so the same embedding provider) is a
       source; the chunk's text is compared whole, which is what its vector was made of. */
    if (!w || !w->has_old || !chunk_id || !model || !text || !out || dim == 0) return 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db,
                           "SELECT v.data, coalesce(c.text, c.content, (SELECT o.content FROM "
                           "old.operations o WHERE o.id = json_extract(c.endpoints, '$[0]'))) "
                           "FROM old.vectors v "
                           "JOIN old.chunks c ON c.id = v.chunk "
                           "WHERE v.chunk = ?1 AND v.model = ?2 AND v.dim = ?3",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, chunk_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, model, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)dim);
    int found = 0;
    core_arena *scratch = core_arena_new(0);
    bool fail = false;
    /* The old text may be packed: compare it decoded. */
    if (scratch && sqlite3_step(st) == SQLITE_ROW &&
        (size_t)sqlite3_column_bytes(st, 0) == dim * sizeof(float)) {
        const char *old = store_unpack_column(st, 1, scratch, NULL, &fail);
        if (old && !fail && !strcmp(old, text)) {
            memcpy(out, sqlite3_column_blob(st, 0), dim * sizeof(float));
            found = 1;
        }
    }
    core_arena_free(scratch);
    sqlite3_finalize(st);
    return found;
}

/* ---------------------------------------------------------------- reuse */

bool store_writer_can_reuse(store_writer *w, const char *path, const char *api_id,
                            uint64_t content_hash, bool *known)
{
    old_doc *d = w ? store_w_find_old(w, path) : NULL;
    if (known) *known = d != NULL;
    if (!d || !w->has_old || d->used) return false;
    return d->hash == content_hash && api_id && !strcmp(d->api, api_id);
}

const char *store_writer_old_api(store_writer *w, const char *path)
{
    old_doc *d = w ? store_w_find_old(w, path) : NULL;
    return d && w->has_old ? d->api : NULL;
}

size_t store_writer_old_count(const store_writer *w)
{
    return w ? w->n_old : 0;
}

const char *store_writer_old_doc(const store_writer *w, size_t i, const char **api, bool *used)
{
    if (!w || i >= w->n_old) return NULL;
    if (api) *api = w->old[i].api;
    if (used) *used = w->old[i].used;
    return w->old[i].path;
}

bool store_writer_reusable(const store_writer *w, char *why, size_t cap)
{
    if (why && cap) snprintf(why, cap, "%s", w ? w->reason : "");
    return w && w->has_old;
}

static int reuse_rows(store_writer *w, const char *path, apidex_error *err)
{
    old_doc *d = store_w_find_old(w, path);
    if (!d || !w->has_old)
        return core_error_set(err, APIDEX_ENOTFOUND, "%s is not in the current index", path);
    if (d->used) return core_error_set(err, APIDEX_EINVAL, "%s is already in the new index", path);
    int rc = store_w_flush_api(w, err);
    if (rc) return rc;
    if (d->in_file) { /* patching: the rows are there already */
        d->used = true;
        return 0;
    }
    core_buf *b = &w->buf;
    sqlite3_stmt *st = NULL;
    /* documents and apis by key, then every per-API table in rowid (spec) order. */
    for (size_t t = 0; t < store_n_tables + 2 && !rc; t++) {
        core_buf_reset(b);
        if (t == 0)
            core_buf_puts(b, "INSERT INTO main.documents SELECT * FROM old.documents "
                             "WHERE path = ?1");
        else if (t == 1)
            core_buf_puts(b, "INSERT INTO main.apis SELECT * FROM old.apis WHERE id = ?2");
        else /* edges have no rowid: they are kept in (api, seq) order */
            core_buf_printf(b, "INSERT INTO main.%s SELECT * FROM old.%s WHERE api = ?2%s",
                            store_table_names[t - 2], store_table_names[t - 2],
                            strcmp(store_table_names[t - 2], "edges") ? " ORDER BY rowid" : "");
        if (b->failed) return store_w_oom(err);
        if (sqlite3_prepare_v2(w->db, b->data, -1, &st, NULL) != SQLITE_OK)
            return store_db_error(w->db, "copying from the current index", err);
        sqlite3_bind_text(st, 1, d->path, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, d->api, -1, SQLITE_STATIC);
        int src = sqlite3_step(st);
        if (src != SQLITE_DONE) rc = store_file_error(w->target, src, true, err);
        sqlite3_finalize(st);
    }
    if (!rc) d->used = true;
    if (!rc && w->patched) { /* counted at commit: the rows of the old file are known */
        store_rows n;
        store_rows_count(w->db, "main", d->api, &n);
        w->copied.apis += n.apis;
        w->copied.operations += n.operations;
        w->copied.schemas += n.schemas;
        w->copied.chunks += n.chunks;
        w->copied.edges += n.edges;
    }
    return rc;
}

int store_writer_reuse(store_writer *w, const char *path, apidex_error *err)
{
    int rc = reuse_rows(w, path, err);
    if (!rc) w->unchanged++;
    return rc;
}

int store_writer_keep(store_writer *w, const char *path, apidex_error *err)
{
    int rc = reuse_rows(w, path, err);
    if (!rc) w->kept++;
    return rc;
}

/* ---------------------------------------------------------------- ids */

uint64_t store_writer_old_hash(const store_writer *w, size_t i)
{
    return w && i < w->n_old ? w->old[i].hash : 0;
}

bool store_writer_old_ids_legacy(const store_writer *w)
{
    return w && w->legacy_ids;
}

size_t store_writer_old_alias_count(const store_writer *w)
{
    return w ? w->n_aliases : 0;
}

void store_writer_old_alias(const store_writer *w, size_t i, const char **alias, const char **api)
{
    *alias = w->aliases[i].alias;
    *api = w->aliases[i].api;
}
