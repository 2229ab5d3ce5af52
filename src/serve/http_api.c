/* The JSON API's handlers (/v1/search, /v1/endpoints, /v1/tools, /v1/apis, /v1/feedback,
   /v1/call, /v1/ask, /v1/match): their parameters checked, the query layer asked (query.c),
   the answer sent (http.c). routes.c maps the paths to them. */
#include "serve/http_int.h"

#include "view/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- routes */

typedef struct http_search_args {
    const char *q, *k, *adaptive, *include_deprecated;
    const char *apis[SERVE_MAX_FILTERS + 1], *tags[SERVE_MAX_FILTERS + 1],
        *methods[SERVE_MAX_FILTERS + 1];
    size_t n_apis, n_tags, n_methods;
    char bad[120]; /* first problem found */
} http_search_args;

static enum MHD_Result collect_search(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    (void)kind;
    http_search_args *p = cls;
    if (p->bad[0]) return MHD_YES;
    if (!value) value = "";
    const char **list = NULL;
    size_t *n = NULL;
    if (!strcmp(key, "q"))
        p->q = value;
    else if (!strcmp(key, "k"))
        p->k = value;
    else if (!strcmp(key, "adaptive"))
        p->adaptive = value;
    else if (!strcmp(key, "include_deprecated"))
        p->include_deprecated = value;
    else if (!strcmp(key, "api"))
        list = p->apis, n = &p->n_apis;
    else if (!strcmp(key, "tag"))
        list = p->tags, n = &p->n_tags;
    else if (!strcmp(key, "method"))
        list = p->methods, n = &p->n_methods;
    else
        snprintf(p->bad, sizeof p->bad,
                 "unknown parameter '%.40s' (q, k, adaptive, api, tag, method, include_deprecated)",
                 key);
    if (list) {
        if (*n >= SERVE_MAX_FILTERS)
            snprintf(p->bad, sizeof p->bad, "too many '%s' values", key);
        else
            list[(*n)++] = value, list[*n] = NULL;
    }
    return MHD_YES;
}

static bool parse_bool(const char *s, bool *out)
{
    if (!s) return true;
    if (!strcmp(s, "true") || !strcmp(s, "1") || !*s)
        *out = true;
    else if (!strcmp(s, "false") || !strcmp(s, "0"))
        *out = false;
    else
        return false;
    return true;
}

enum MHD_Result serve_on_search(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                const char *url, const char *method)
{
    (void)url;
    (void)method;
    http_search_args p = {0};
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_search, &p);
    if (p.bad[0]) return serve_respond_error(h, conn, rq, 400, p.bad, NULL);
    if (!p.q) return serve_respond_error(h, conn, rq, 400, "missing parameter q (the task)", NULL);
    serve_search_args a = {.task = p.q};
    if (p.k) {
        char *end;
        long k = strtol(p.k, &end, 10);
        if (*end || end == p.k || k < 1 || k > SERVE_MAX_K)
            return serve_respond_error(h, conn, rq, 400, "k must be an integer between 1 and 100",
                                       NULL);
        a.k = (size_t)k;
    }
    if (!parse_bool(p.adaptive, &a.adaptive) ||
        !parse_bool(p.include_deprecated, &a.include_deprecated))
        return serve_respond_error(h, conn, rq, 400,
                                   "adaptive and include_deprecated take true or false", NULL);
    a.apis = p.n_apis ? p.apis : NULL;
    a.tags = p.n_tags ? p.tags : NULL;
    a.methods = p.n_methods ? p.methods : NULL;
    serve_snapshot_call q;
    serve_snapshot_call_open(h->db, &q);
    int rc = serve_query_search(q.snap, &a, &q.obj, &q.err);
    serve_snapshot_call_close(&q);
    return serve_respond_query(h, conn, rq, rc, q.obj, &q.err);
}

enum MHD_Result serve_on_endpoint(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                  const char *url, const char *method)
{
    (void)method;
    serve_snapshot_call q;
    serve_snapshot_call_open(h->db, &q);
    int rc;
    const char *detail = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "detail");
    const char *markup = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "markup");
    if (markup && !strcmp(markup, "html") && strcmp(url, "/v1/endpoints")) {
        /* the page's view: descriptions as written, made safe HTML by respond_marked */
        view_detail level = VIEW_DETAIL_CALL;
        long found = -1;
        const char *id = url + strlen("/v1/endpoints/");
        rc = detail ? view_detail_parse(detail, &level, &q.err) : 0;
        if (!rc) rc = serve_find_endpoint(q.snap, id, NULL, NULL, NULL, &found, &q.err);
        if (!rc)
            rc = serve_endpoint_detail(q.snap->idx, found, (int)level | VIEW_DETAIL_AS_WRITTEN,
                                       &q.obj, &q.err);
    } else if (!strcmp(url, "/v1/endpoints")) {
        const char *m = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "method");
        const char *p = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "path");
        const char *api = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "api");
        if (!m || !p) {
            serve_snapshot_call_close(&q);
            return serve_respond_error(h, conn, rq, 400,
                                       "give method and path (or use /v1/endpoints/{id})", NULL);
        }
        rc = serve_query_endpoint(q.snap, NULL, m, p, api, detail, &q.obj, &q.err);
    } else {
        /* The library hands over the path already percent-decoded. */
        const char *id = url + strlen("/v1/endpoints/");
        rc = *id ? serve_query_endpoint(q.snap, id, NULL, NULL, NULL, detail, &q.obj, &q.err)
                 : core_error_set(&q.err, APIDEX_EINVAL, "missing endpoint id");
    }
    serve_snapshot_call_close(&q);
    return serve_respond_marked(h, conn, rq, rc, q.obj, &q.err);
}

/* GET /v1/tools: id (repeated) or q [k], format (tooldefs.c does the work) */
typedef struct http_tools_args {
    const char *ids[SERVE_MAX_TOOL_IDS];
    size_t n_ids;
    const char *q, *k, *format;
    char bad[120];
} http_tools_args;

static enum MHD_Result collect_tools(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
    (void)kind;
    http_tools_args *p = cls;
    if (p->bad[0]) return MHD_YES;
    if (!value) value = "";
    if (!strcmp(key, "id")) {
        if (p->n_ids < SERVE_MAX_TOOL_IDS)
            p->ids[p->n_ids++] = value;
        else
            snprintf(p->bad, sizeof p->bad, "too many ids (at most %d)", SERVE_MAX_TOOL_IDS);
    } else if (!strcmp(key, "q")) {
        p->q = value;
    } else if (!strcmp(key, "k")) {
        p->k = value;
    } else if (!strcmp(key, "format")) {
        p->format = value;
    } else {
        snprintf(p->bad, sizeof p->bad, "unknown parameter '%.40s' (id, q, k, format)", key);
    }
    return MHD_YES;
}

enum MHD_Result serve_on_tools(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                               const char *url, const char *method)
{
    (void)url;
    (void)method;
    http_tools_args p = {0};
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_tools, &p);
    if (p.bad[0]) return serve_respond_error(h, conn, rq, 400, p.bad, NULL);
    view_tool_format fmt = VIEW_TOOL_OPENAI;
    if (p.format && !strcmp(p.format, "anthropic"))
        fmt = VIEW_TOOL_ANTHROPIC;
    else if (p.format && !strcmp(p.format, "mcp"))
        fmt = VIEW_TOOL_MCP;
    else if (p.format && strcmp(p.format, "openai"))
        return serve_respond_error(h, conn, rq, 400, "format must be openai, anthropic or mcp",
                                   NULL);
    size_t k = 0;
    if (p.k) {
        char *end;
        long n = strtol(p.k, &end, 10);
        if (*end || end == p.k || n < 1 || n > SERVE_MAX_K)
            return serve_respond_error(h, conn, rq, 400, "k must be an integer between 1 and 100",
                                       NULL);
        k = (size_t)n;
    }
    serve_snapshot_call q;
    serve_snapshot_call_open(h->db, &q);
    int rc = serve_query_tools(q.snap, p.ids, p.n_ids, p.q, k, fmt, &q.obj, &q.err);
    serve_snapshot_call_close(&q);
    return serve_respond_query(h, conn, rq, rc, q.obj, &q.err);
}

enum MHD_Result serve_on_apis(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                              const char *url, const char *method)
{
    (void)url;
    (void)method;
    serve_snapshot_call q;
    serve_snapshot_call_open(h->db, &q);
    int rc = serve_query_apis(q.snap, &q.obj, &q.err);
    serve_snapshot_call_close(&q);
    return serve_respond_marked(h, conn, rq, rc, q.obj, &q.err);
}

static bool is_json_type(const char *ct)
{
    if (!ct) return false;
    size_t n = strcspn(ct, "; \t");
    return n == 16 && !strncasecmp(ct, "application/json", 16);
}

/* The request body as a JSON object, or NULL after answering 415/400 (*ret: how the answer
   was queued). */
static struct json_object *json_body(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                     enum MHD_Result *ret)
{
    if (!is_json_type(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type"))) {
        *ret = serve_respond_error(h, conn, rq, 415, "the body must be application/json", NULL);
        return NULL;
    }
    struct json_object *body = serve_json_object_parse(rq->body.data, rq->body.len);
    if (!body) {
        *ret = serve_respond_error(h, conn, rq, 400, "the body must be a JSON object", NULL);
        return NULL;
    }
    char at[96], msg[200];
    if (serve_json_nul_at(rq->body.data, rq->body.len, body, NULL, at, sizeof at)) {
        json_object_put(body);
        snprintf(msg, sizeof msg,
                 "%s%s%s contains a NUL character (\\u0000): refused rather than cut at it",
                 strcmp(at, "a member name") ? "member '" : "", at,
                 strcmp(at, "a member name") ? "'" : "");
        *ret = serve_respond_error(h, conn, rq, 400, msg, NULL);
        return NULL;
    }
    return body;
}

/* POST /v1/feedback: the endpoints a caller used for a task (feedback.c does the work) */
enum MHD_Result serve_on_feedback(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                  const char *url, const char *method)
{
    (void)url;
    (void)method;
    enum MHD_Result ret = MHD_NO;
    struct json_object *body = json_body(h, conn, rq, &ret);
    if (!body) return ret;
    serve_snapshot_call q;
    serve_snapshot_call_open(h->db, &q);
    int rc = serve_query_feedback(q.snap, body, &q.obj, &q.err);
    serve_snapshot_call_close(&q);
    json_object_put(body);
    return serve_respond_query(h, conn, rq, rc, q.obj, &q.err);
}

/* POST /v1/call: serve_query_call (call.c); 403 while calls are off. */
enum MHD_Result serve_on_call(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                              const char *url, const char *method)
{
    (void)url;
    (void)method;
    if (!h->calls)
        return serve_respond_error(
            h, conn, rq, 403, "calls are off: start the server with apidex serve --allow-calls",
            NULL);
    enum MHD_Result ret = MHD_YES;
    struct json_object *body = json_body(h, conn, rq, &ret);
    if (!body) return ret;
    serve_snapshot_call q;
    serve_snapshot_call_open(h->db, &q);
    int rc = serve_query_call(q.snap, h->calls, body, &q.obj, &q.err);
    serve_snapshot_call_close(&q);
    json_object_put(body);
    if (!rc) return serve_respond_json(h, conn, rq, 200, q.obj);
    return serve_respond_error(h, conn, rq, serve_call_http_status(rc),
                               q.err.message[0] ? q.err.message : apidex_strerror(rc), NULL);
}

enum MHD_Result serve_on_ask(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                             const char *url, const char *method)
{
    (void)url;
    (void)method;
    enum MHD_Result ret = MHD_YES;
    struct json_object *body = json_body(h, conn, rq, &ret);
    if (!body) return ret;
    serve_ask_args a = {0};
    const char *apis[SERVE_MAX_FILTERS + 1] = {0};
    size_t n_apis = 0, task_len = 0;
    char bad[160] = "";
    json_object_object_foreach(body, key, val)
    {
        if (bad[0]) break;
        if (!strcmp(key, "task")) {
            if (!json_object_is_type(val, json_type_string)) {
                snprintf(bad, sizeof bad, "task must be a string");
            } else {
                a.task = json_object_get_string(val);
                task_len = (size_t)json_object_get_string_len(val);
            }
        } else if (!strcmp(key, "budget")) {
            if (!json_object_is_type(val, json_type_int) || json_object_get_int64(val) < 0)
                snprintf(bad, sizeof bad, "budget must be a positive integer");
            else
                a.budget = (size_t)json_object_get_int64(val);
        } else if (!strcmp(key, "apis")) {
            if (!json_object_is_type(val, json_type_array) ||
                json_object_array_length(val) > SERVE_MAX_FILTERS) {
                snprintf(bad, sizeof bad, "apis must be an array of at most %d strings",
                         SERVE_MAX_FILTERS);
                continue;
            }
            for (size_t i = 0; i < json_object_array_length(val); i++) {
                struct json_object *it = json_object_array_get_idx(val, i);
                if (!json_object_is_type(it, json_type_string) ||
                    !serve_text_ok(json_object_get_string(it),
                                   (size_t)json_object_get_string_len(it))) {
                    snprintf(bad, sizeof bad, "apis must be an array of strings");
                    break;
                }
                apis[n_apis++] = json_object_get_string(it);
            }
        } else {
            snprintf(bad, sizeof bad, "unknown member '%.40s' (task, apis, budget)", key);
        }
    }
    if (!bad[0] && !a.task) snprintf(bad, sizeof bad, "task is required");
    if (!bad[0] && !serve_text_ok(a.task, task_len))
        snprintf(bad, sizeof bad, "task must be UTF-8 text without NUL bytes");
    if (bad[0]) {
        json_object_put(body);
        return serve_respond_error(h, conn, rq, 400, bad, NULL);
    }
    a.apis = n_apis ? apis : NULL;
    a.llm = h->llm;
    if (a.budget > SERVE_MAX_BUDGET * 4)
        a.budget = SERVE_MAX_BUDGET + 1; /* still refused, no overflow */
    serve_snapshot_call q;
    serve_snapshot_call_open(h->db, &q);
    int rc = serve_query_ask(q.snap, &a, &q.obj, &q.err);
    serve_snapshot_call_close(&q);
    json_object_put(body);
    return serve_respond_query(h, conn, rq, rc, q.obj, &q.err);
}

/* POST /v1/match[?threshold=T&k=K]: the body is an OpenAPI document (JSON or YAML) */
enum MHD_Result serve_on_match(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                               const char *url, const char *method)
{
    (void)url;
    (void)method;
    serve_snapshot_call q;
    serve_snapshot_call_open(h->db, &q);
    int rc = serve_query_match_args(
        q.snap, MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "threshold"),
        MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "k"), rq->body.data, rq->body.len,
        &q.obj, &q.err);
    serve_snapshot_call_close(&q);
    return serve_respond_query(h, conn, rq, rc, q.obj, &q.err);
}
