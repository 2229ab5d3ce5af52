/*
 * What the web page reads besides the JSON API: GET /v1/index (what is indexed, when, how
 * large, and each document's warnings with file, line:col and pointer), GET /v1/apis/{id}
 * (one API with its operations) and GET /v1/snippet (a call in curl, Python, JavaScript or
 * Go from exec_build and exec_snippet, the builder behind `apidex snippet`).
 *
 * The index keeps no diagnostics, so the warnings come from reading each document again;
 * that is slow on a large corpus, so the list is kept per index build (one entry), as the
 * JSON text each reply splices in (never parsed again).
 */
#include "serve/serve_int.h"

#include "exec/exec.h"
#include "oas/oas.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_SNIPPET_PARAMS = 64, MAX_WARNINGS_PER_DOCUMENT = 200 };

static void reply_json(serve_ui_reply *out, int status, struct json_object *obj)
{
    size_t len = 0;
    char *text = obj ? serve_json_dump(obj, &len) : NULL;
    json_object_put(obj);
    out->status = text ? status : 500;
    out->content_type = "application/json";
    out->body = text;
    out->len = text ? len : 0;
}

static void reply_error(serve_ui_reply *out, int status, const char *message)
{
    struct json_object *o = json_object_new_object(), *e = json_object_new_object();
    if (o && e) {
        serve_jadd(e, "status", json_object_new_int(status));
        serve_jadd(e, "message", json_object_new_string(message));
        serve_jadd(o, "error", e);
        e = NULL;
    }
    json_object_put(e);
    reply_json(out, status, o);
    if (out->status == 500 && status != 500) out->status = status;
}

static void reply_query(serve_ui_reply *out, int rc, struct json_object *obj,
                        const apidex_error *err)
{
    if (!rc) {
        reply_json(out, 200, obj);
        return;
    }
    int status = rc == APIDEX_EINVAL ? 400 : rc == APIDEX_ENOTFOUND ? 404 : 500;
    reply_error(out, status, err->message[0] ? err->message : apidex_strerror(rc));
}

/* ---------------------------------------------------------------- GET /v1/index */

/* The documents' warnings of one index build, serialised (the newest build asked for). */
static struct {
    pthread_mutex_t lock;
    uint64_t build_id;
    char *documents; /* JSON array text, as serve_json_dump wrote it */
    size_t len;
} doc_cache = {PTHREAD_MUTEX_INITIALIZER, 0, NULL, 0};

static struct json_object *diags_json(const core_diags *d, size_t *n_warn, size_t *n_err)
{
    struct json_object *arr = json_object_new_array();
    for (size_t i = 0; arr && i < d->n && i < MAX_WARNINGS_PER_DOCUMENT; i++) {
        const core_diag *g = &d->items[i];
        struct json_object *o = json_object_new_object();
        if (!o) break;
        serve_jadd(o, "level",
                   json_object_new_string(g->level == CORE_DIAG_ERROR ? "error" : "warning"));
        serve_jadd(o, "message", serve_jstr(g->message));
        serve_jadd(o, "file", serve_jstr(g->file));
        serve_jadd(o, "line", json_object_new_int64(g->line));
        serve_jadd(o, "col", json_object_new_int64(g->col));
        serve_jadd(o, "pointer", serve_jstr(g->pointer));
        json_object_array_add(arr, o);
    }
    *n_warn = core_diags_count(d, CORE_DIAG_WARNING);
    *n_err = core_diags_count(d, CORE_DIAG_ERROR);
    return arr;
}

/* One document: what the index holds, and its warnings as it reads now. */
static struct json_object *document_json(store_index *idx, size_t ai, const store_api *sapi)
{
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    serve_jadd(o, "api", serve_jstr(sapi->id));
    serve_jadd(o, "document", serve_jstr(sapi->document));
    serve_jadd(o, "title", serve_jstr(sapi->title));
    serve_jadd(o, "version", serve_jstr(sapi->version));
    serve_jadd(o, "spec_version", serve_jstr(sapi->spec_version));
    serve_jadd(o, "n_operations", json_object_new_int64((int64_t)sapi->n_ops));
    serve_jadd(o, "n_schemas", json_object_new_int64((int64_t)sapi->n_schemas));
    serve_jadd(o, "n_files", json_object_new_int64((int64_t)sapi->n_files));
    spec_registry *reg = NULL;
    apidex_error err;
    core_error_clear(&err);
    const char *state = "read";
    struct json_object *warnings = NULL;
    size_t n_warn = 0, n_err = 0, dropped = 0;
    if (store_api_registry(idx, ai, &reg, &err) || !spec_registry_count(reg)) {
        state = "unreadable";
        struct json_object *w = json_object_new_object();
        warnings = json_object_new_array();
        if (w && warnings) {
            serve_jadd(w, "level", json_object_new_string("error"));
            serve_jadd(w, "message",
                       json_object_new_string(err.message[0] ? err.message : "cannot be read"));
            serve_jadd(w, "file", serve_jstr(sapi->document));
            serve_jadd(w, "line", json_object_new_int64(0));
            serve_jadd(w, "col", json_object_new_int64(0));
            serve_jadd(w, "pointer", json_object_new_string(""));
            json_object_array_add(warnings, w);
            w = NULL;
            n_err = 1;
        }
        json_object_put(w);
    } else {
        const spec_api *api = spec_registry_api(reg, 0);
        if (api->failed)
            state = "failed";
        else if (api->content_hash != sapi->content_hash)
            state = "changed";
        warnings = diags_json(&api->diags, &n_warn, &n_err);
        dropped = api->diags.dropped;
    }
    spec_registry_free(reg);
    serve_jadd(o, "state", json_object_new_string(state));
    serve_jadd(o, "n_warnings", json_object_new_int64((int64_t)n_warn));
    serve_jadd(o, "n_errors", json_object_new_int64((int64_t)n_err));
    serve_jadd(o, "n_dropped", json_object_new_int64((int64_t)dropped));
    serve_jadd(o, "warnings", warnings);
    return o;
}

/* Appends the documents array of snap (JSON text) to b: the cache's bytes when they are for
   snap's build, else made now and kept. The bytes are spliced into the reply as they are,
   not parsed again: json-c wrote them, so its dump of their parse is the same bytes. */
static int documents_of(serve_snapshot *snap, core_buf *b)
{
    uint64_t build = serve_snapshot_info(snap)->build_id;
    pthread_mutex_lock(&doc_cache.lock);
    if (!doc_cache.documents || doc_cache.build_id != build) {
        struct json_object *arr = json_object_new_array();
        for (size_t i = 0; arr && i < snap->n_apis; i++) {
            struct json_object *d = document_json(snap->idx, i, &snap->apis[i]);
            if (d) json_object_array_add(arr, d);
        }
        size_t len = 0;
        char *text = arr ? serve_json_dump(arr, &len) : NULL;
        json_object_put(arr);
        if (text) {
            free(doc_cache.documents);
            doc_cache.documents = text;
            doc_cache.len = len;
            doc_cache.build_id = build;
        }
    }
    int rc = doc_cache.documents && doc_cache.build_id == build
                 ? core_buf_append(b, doc_cache.documents, doc_cache.len)
                 : core_buf_puts(b, "[]");
    pthread_mutex_unlock(&doc_cache.lock);
    return rc;
}

static void index_info(serve_db *db, serve_ui_reply *out)
{
    serve_snapshot *snap = serve_db_acquire(db);
    const store_info *info = serve_snapshot_info(snap);
    struct json_object *o = json_object_new_object();
    if (o) {
        char build[17];
        core_hash_hex(info->build_id, build);
        struct stat st;
        const char *path = serve_db_path(db);
        /* the file name only: where the server keeps its files is not the page's business */
        const char *slash = strrchr(path, '/');
        char shown[1024]; /* a server database: its URL with the password masked */
        bool server = store_is_server(path);
        serve_jadd(o, "file",
                   json_object_new_string(server  ? store_display(path, shown, sizeof shown)
                                          : slash ? slash + 1
                                                  : path));
        serve_jadd(
            o, "size_bytes",
            json_object_new_int64(!server && stat(path, &st) == 0 ? (int64_t)st.st_size : -1));
        serve_jadd(o, "build_id", json_object_new_string(build));
        serve_jadd(o, "created", serve_jstr(info->created));
        serve_jadd(o, "apidex_version", serve_jstr(info->apidex_version));
        serve_jadd(o, "schema_version", json_object_new_int(info->schema_version));
        serve_jadd(o, "strategy", serve_jstr(info->strategy));
        serve_jadd(o, "apis", json_object_new_int64((int64_t)info->n_apis));
        serve_jadd(o, "operations", json_object_new_int64((int64_t)info->n_operations));
        serve_jadd(o, "schemas", json_object_new_int64((int64_t)info->n_schemas));
        serve_jadd(o, "chunks", json_object_new_int64((int64_t)info->n_chunks));
        serve_jadd(o, "edges", json_object_new_int64((int64_t)info->n_edges));
    }
    /* {..., "documents": [...]}: the object without its last member, then the array */
    size_t len = 0;
    char *head = o ? serve_json_dump(o, &len) : NULL;
    json_object_put(o);
    core_buf b;
    core_buf_init(&b, 0);
    int rc = !head || len < 2 ? APIDEX_ENOMEM : core_buf_append(&b, head, len - 1);
    free(head);
    if (!rc) rc = core_buf_puts(&b, ",\"documents\":");
    if (!rc) rc = documents_of(snap, &b);
    if (!rc) rc = core_buf_puts(&b, "}");
    serve_snapshot_release(snap);
    out->status = rc ? 500 : 200;
    out->content_type = "application/json";
    out->body = rc ? NULL : core_buf_steal(&b, &out->len);
    if (!out->body) out->status = 500;
    core_buf_free(&b);
}

/* ---------------------------------------------------------------- GET /v1/snippet */

typedef struct snippet_args {
    const char *id, *lang, *server, *body, *content_type;
    const char *params[MAX_SNIPPET_PARAMS];
    size_t n_params;
    char bad[160];
} snippet_args;

static enum MHD_Result collect_snippet(void *cls, enum MHD_ValueKind kind, const char *key,
                                       const char *value)
{
    (void)kind;
    snippet_args *a = cls;
    if (a->bad[0]) return MHD_YES;
    if (!value) value = "";
    if (!serve_text_ok(value, strlen(value))) {
        snprintf(a->bad, sizeof a->bad, "parameter '%.40s' is not valid UTF-8 text", key);
    } else if (!strcmp(key, "id")) {
        a->id = value;
    } else if (!strcmp(key, "lang")) {
        a->lang = value;
    } else if (!strcmp(key, "server")) {
        a->server = *value ? value : NULL;
    } else if (!strcmp(key, "body")) {
        a->body = *value ? value : NULL;
    } else if (!strcmp(key, "content_type")) {
        a->content_type = *value ? value : NULL;
    } else if (!strcmp(key, "p")) {
        if (a->n_params >= MAX_SNIPPET_PARAMS)
            snprintf(a->bad, sizeof a->bad, "too many 'p' values (at most %d)", MAX_SNIPPET_PARAMS);
        else if (!strchr(value, '='))
            snprintf(a->bad, sizeof a->bad, "p takes name=value, not '%.40s'", value);
        else
            a->params[a->n_params++] = value;
    } else {
        snprintf(a->bad, sizeof a->bad,
                 "unknown parameter '%.40s' (id, lang, p, server, body, content_type)", key);
    }
    return MHD_YES;
}

static int build_snippet(store_index *idx, const snippet_args *a, exec_snippet_lang lang,
                         struct json_object **out, apidex_error *err)
{
    const store_operation *sop;
    const store_api *sapi;
    long oi = store_find_operation(idx, a->id);
    int rc = serve_operation_rows(idx, oi, &sop, &sapi, err);
    if (oi < 0 && rc == APIDEX_EINVAL) /* the index reads: the id is not in it */
        return core_error_set(err, APIDEX_ENOTFOUND, "no endpoint with id '%.300s' in the index",
                              a->id);
    if (rc) return rc;
    store_doc *doc = NULL;
    const spec_api *api = NULL;
    const spec_operation *op = NULL;
    /* named by the API id, as credentials' variables are */
    rc = store_operation_doc(idx, oi, &doc, &api, &op, err);
    if (rc || !op) {
        store_doc_release(doc);
        return core_error_set(err, APIDEX_ENOTFOUND,
                              "the document of %s cannot be read again or no longer has %s %s: "
                              "index it again",
                              sapi->id, sop->method, sop->path);
    }
    exec_build_options o = {.params = a->params,
                            .n_params = a->n_params,
                            .body = a->body,
                            .server = a->server,
                            .content_type = a->content_type,
                            .overrides = sapi->overrides,
                            .placeholders = true, /* no secret is read, only named */
                            .operation_id = sop->id};
    exec_request r = {0};
    rc = exec_build(api, op, &o, &r, err);
    core_buf b;
    core_buf_init(&b, 0);
    if (!rc && exec_snippet(&r, lang, &b)) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    struct json_object *obj = rc ? NULL : json_object_new_object();
    if (obj) {
        static const char *const names[] = {"curl", "python", "javascript", "go"};
        serve_jadd(obj, "id", serve_jstr(sop->id));
        serve_jadd(obj, "lang", json_object_new_string(names[lang]));
        serve_jadd(obj, "method", serve_jstr(r.method));
        serve_jadd(obj, "snippet", json_object_new_string(b.data ? b.data : ""));
        struct json_object *notes = json_object_new_array();
        for (size_t i = 0; notes && i < r.n_notes; i++)
            json_object_array_add(notes, serve_jstr(r.notes[i]));
        serve_jadd(obj, "notes", notes);
    } else if (!rc) {
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    core_buf_free(&b);
    exec_build_free(&r);
    store_doc_release(doc);
    *out = obj;
    return rc;
}

static void snippet(serve_db *db, struct MHD_Connection *conn, serve_ui_reply *out)
{
    snippet_args a = {0};
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_snippet, &a);
    if (a.bad[0]) return reply_error(out, 400, a.bad);
    if (!a.id || !*a.id) return reply_error(out, 400, "missing parameter id (the endpoint id)");
    exec_snippet_lang lang = EXEC_SNIPPET_CURL;
    if (a.lang && exec_snippet_lang_parse(a.lang, &lang))
        return reply_error(out, 400, "lang must be curl, python, javascript or go");
    serve_snapshot_call q;
    serve_snapshot_call_open(db, &q);
    int rc = build_snippet(q.snap->idx, &a, lang, &q.obj, &q.err);
    serve_snapshot_call_close(&q);
    reply_query(out, rc, q.obj, &q.err);
}

/* ---------------------------------------------------------------- GET /v1/apis/{id} */

/* The API's security schemes (name, type, where the credential goes), read from its
   document; JSON null when the document cannot be read again. */
static struct json_object *auth_schemes(store_index *idx, size_t ai)
{
    store_doc *doc = NULL;
    const spec_api *api = NULL;
    apidex_error err;
    core_error_clear(&err);
    struct json_object *arr = NULL;
    if (!store_api_doc(idx, ai, &doc, &api, &err) && api && !api->failed) {
        arr = json_object_new_array();
        size_t n = spec_security_scheme_count(api);
        for (size_t i = 0; arr && i < n; i++) {
            spec_security_scheme sc;
            spec_security_scheme_at(api, i, &sc);
            struct json_object *o = json_object_new_object();
            if (!o) break;
            serve_jadd(o, "name", json_object_new_string_len(sc.name, (int)sc.name_len));
            serve_jadd(o, "type", serve_jstr(sc.type));
            serve_jadd(o, "in", serve_jstr(sc.in));
            serve_jadd(o, "param", serve_jstr(sc.param));
            serve_jadd(o, "scheme", serve_jstr(sc.scheme));
            serve_jadd(o, "description", serve_jstr(sc.description));
            json_object_array_add(arr, o);
        }
    }
    store_doc_release(doc);
    return arr;
}

/* ---------------------------------------------------------------- dispatch */

void serve_ui_data(serve_db *db, struct MHD_Connection *conn, const char *url, serve_ui_reply *out)
{
    memset(out, 0, sizeof *out);
    if (!strcmp(url, "/v1/index")) return index_info(db, out);
    if (!strcmp(url, "/v1/snippet")) return snippet(db, conn, out);
    /* /v1/apis/{id}: the library hands the path over percent-decoded */
    const char *id = url + strlen("/v1/apis/");
    if (!serve_text_ok(id, strlen(id)) || strlen(id) > 512)
        return reply_error(out, 400, "not a valid API id");
    serve_snapshot_call q;
    serve_snapshot_call_open(db, &q);
    int rc = serve_query_api(q.snap, id, &q.obj, &q.err);
    long ai = rc ? -1 : store_find_api(q.snap->idx, serve_jget_str(q.obj, "id"));
    if (ai >= 0) serve_jadd(q.obj, "auth", auth_schemes(q.snap->idx, (size_t)ai));
    serve_snapshot_call_close(&q);
    /* the page's view: each description also as safe HTML (markup.c) */
    if (!rc) serve_markup_add(q.obj);
    reply_query(out, rc, q.obj, &q.err);
}
