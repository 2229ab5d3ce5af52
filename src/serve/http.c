/*
 * The HTTP server (libmicrohttpd): requests routed by the route table (routes.c) to the
 * JSON API (http_api.c), the page, MCP over Streamable HTTP at /mcp, bearer-token authentication,
 * limits, CORS, metrics and the structured access log. Each request takes one index snapshot, so a
 * rebuild swaps the index under a running server without failing anything in flight.
 *
 * Limits and where they bite: headers larger than max_header do not fit the
 * connection's memory pool and get 431 from the library; a Content-Length over
 * max_body is refused with 413 before the body is read (a chunked body is
 * counted and refused the same way once it ends); an idle connection is
 * closed after timeout_s; a request that arrives completely but later than
 * timeout_s after its headers is answered 408, and one still dripping at
 * twice that is cut off. The headers themselves have an absolute deadline,
 * header_timeout_s from the connection opening (or from its previous answer),
 * however slowly they trickle in (http_guard.c); one client address holds at
 * most max_conns_per_client of the max_connections, so that a flood from one
 * address leaves room for the others.
 *
 * Values are C strings from here on, so a NUL character (%00 in the path or a
 * query parameter, \u0000 in a JSON body) is refused with 400 naming where it
 * is, never acted on cut at the NUL.
 */
#include "serve/http_int.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- responses */

static void add_common_headers(serve_http *h, struct MHD_Connection *conn, struct MHD_Response *r)
{
    if (!MHD_get_response_header(r, "Cache-Control")) /* the page's assets set their own */
        MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (!h->cors) return;
    const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
    if (!origin) return;
    bool ok = h->cors_any;
    for (size_t i = 0; !ok && h->cors[i]; i++) ok = !strcmp(h->cors[i], origin);
    if (!ok) return;
    MHD_add_response_header(r, "Access-Control-Allow-Origin", h->cors_any ? "*" : origin);
    if (!h->cors_any) MHD_add_response_header(r, "Vary", "Origin");
    MHD_add_response_header(r, "Access-Control-Expose-Headers", "Mcp-Session-Id");
}

/* Queues a response; body is malloc'd (taken) or NULL. */
enum MHD_Result serve_respond(serve_http *h, struct MHD_Connection *conn, req_ctx *rq, int status,
                              const char *content_type, char *body, size_t len,
                              const char *const *headers)
{
    struct MHD_Response *r =
        body ? MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE)
             : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    if (content_type) MHD_add_response_header(r, "Content-Type", content_type);
    for (size_t i = 0; headers && headers[i]; i += 2)
        MHD_add_response_header(r, headers[i], headers[i + 1]);
    add_common_headers(h, conn, r);
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)status, r);
    MHD_destroy_response(r);
    if (rq) {
        rq->status = status;
        rq->bytes = len;
    }
    return ret;
}

enum MHD_Result serve_respond_json(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                   int status, struct json_object *obj)
{
    size_t len = 0;
    char *text = obj ? serve_json_dump(obj, &len) : NULL;
    json_object_put(obj);
    if (!text) return serve_respond(h, conn, rq, 500, "text/plain", NULL, 0, NULL);
    return serve_respond(h, conn, rq, status, "application/json", text, len, NULL);
}

enum MHD_Result serve_respond_error(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                    int status, const char *message, const char *const *headers)
{
    struct json_object *o = json_object_new_object(), *e = json_object_new_object();
    if (!o || !e) {
        json_object_put(o);
        json_object_put(e);
        return serve_respond(h, conn, rq, status, NULL, NULL, 0, headers);
    }
    serve_jadd(e, "status", json_object_new_int(status));
    serve_jadd(e, "message", json_object_new_string(message));
    serve_jadd(o, "error", e);
    size_t len = 0;
    char *text = serve_json_dump(o, &len);
    json_object_put(o);
    return serve_respond(h, conn, rq, status, "application/json", text, text ? len : 0, headers);
}

/* Maps a query failure to a status: bad arguments 400, unknown things 404. */
enum MHD_Result serve_respond_query(serve_http *h, struct MHD_Connection *conn, req_ctx *rq, int rc,
                                    struct json_object *obj, const apidex_error *err)
{
    if (!rc) return serve_respond_json(h, conn, rq, 200, obj);
    int status = rc == APIDEX_EINVAL ? 400 : rc == APIDEX_ENOTFOUND ? 404 : 500;
    return serve_respond_error(h, conn, rq, status,
                               err->message[0] ? err->message : apidex_strerror(rc), NULL);
}

/* respond_query, and with ?markup=html (the page) each description also as safe HTML
   (serve_markup_add); another markup value is 400. */
enum MHD_Result serve_respond_marked(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                     int rc, struct json_object *obj, const apidex_error *err)
{
    const char *markup = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "markup");
    if (markup && strcmp(markup, "html")) {
        json_object_put(obj);
        return serve_respond_error(h, conn, rq, 400, "markup must be html", NULL);
    }
    if (!rc && markup) serve_markup_add(obj);
    return serve_respond_query(h, conn, rq, rc, obj, err);
}

/* ---------------------------------------------------------------- request checks */

/* The client's address as text ("" when unknown). */
static void client_text(struct MHD_Connection *conn, char *out, size_t size)
{
    out[0] = '\0';
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!ci || !ci->client_addr) return;
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out,
                  (socklen_t)size);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out,
                  (socklen_t)size);
}

/* Constant-time: the time taken depends on the expected token's length only. */
static bool token_equal(const char *given, size_t given_len, const char *want, size_t want_len)
{
    unsigned diff = given_len != want_len;
    for (size_t i = 0; i < want_len; i++)
        diff |= (unsigned)((unsigned char)want[i] ^ (unsigned char)(i < given_len ? given[i] : 0));
    return diff == 0;
}

static bool authorized(serve_http *h, struct MHD_Connection *conn)
{
    if (!h->token) return true;
    const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
    if (!auth || strncasecmp(auth, "Bearer ", 7) != 0) return false;
    const char *t = auth + 7;
    while (*t == ' ') t++;
    size_t n = strlen(t);
    while (n && t[n - 1] == ' ') n--;
    return token_equal(t, n, h->token, h->token_len);
}

/* "localhost", "127.x.y.z" or "[::1]", with an optional port. */
static bool is_loopback_host(const char *host, size_t n)
{
    if (n >= 2 && host[0] == '[') {
        const char *close = memchr(host, ']', n);
        return close && (size_t)(close - host) == 4 && !strncmp(host, "[::1]", 5) &&
               (close + 1 == host + n || close[1] == ':');
    }
    size_t h = 0;
    while (h < n && host[h] != ':') h++;
    if (h == 9 && !strncasecmp(host, "localhost", 9)) return true;
    char ip[64];
    if (h == 0 || h >= sizeof ip) return false;
    memcpy(ip, host, h);
    ip[h] = '\0';
    struct in_addr a;
    return inet_pton(AF_INET, ip, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

/* DNS-rebinding defence: a browser page on another origin must not reach a
   local server, so a present Origin must be local or explicitly allowed. */
static bool origin_allowed(serve_http *h, const char *origin)
{
    if (!origin) return true;
    if (h->cors_any) return true;
    for (size_t i = 0; h->cors && h->cors[i]; i++)
        if (!strcmp(h->cors[i], origin)) return true;
    const char *p = strstr(origin, "://");
    if (!p || (strncmp(origin, "http://", 7) && strncmp(origin, "https://", 8))) return false;
    p += 3;
    return is_loopback_host(p, strlen(p));
}

enum MHD_Result serve_on_healthz(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                 const char *url, const char *method)
{
    (void)url;
    (void)method;
    serve_snapshot *snap = serve_db_acquire(h->db);
    const store_info *info = serve_snapshot_info(snap);
    char build[17];
    core_hash_hex(info->build_id, build);
    struct json_object *o = json_object_new_object(), *idx = json_object_new_object();
    if (o && idx) {
        serve_jadd(o, "status", json_object_new_string("ok"));
        serve_jadd(o, "version", json_object_new_string(apidex_version()));
        serve_jadd(idx, "build_id", json_object_new_string(build));
        serve_jadd(idx, "apis", json_object_new_int64((int64_t)info->n_apis));
        serve_jadd(idx, "operations", json_object_new_int64((int64_t)info->n_operations));
        serve_jadd(idx, "schemas", json_object_new_int64((int64_t)info->n_schemas));
        static const char *const modes[] = {"lexical", "dense", "hybrid"};
        const serve_search_config *sc = serve_db_search(h->db);
        serve_jadd(idx, "search_mode", json_object_new_string(modes[sc->mode % 3]));
        serve_jadd(o, "index", idx);
        idx = NULL;
        serve_health_store(h->db, o);
    }
    json_object_put(idx);
    serve_snapshot_release(snap);
    return serve_respond_json(h, conn, rq, 200, o);
}

enum MHD_Result serve_on_metrics(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                 const char *url, const char *method)
{
    (void)url;
    (void)method;
    core_buf b;
    core_buf_init(&b, 4 << 20);
    if (serve_metrics_render(h->metrics, h->db, h->mcp, &b)) {
        core_buf_free(&b);
        return serve_respond_error(h, conn, rq, 500, "out of memory", NULL);
    }
    size_t len = b.len;
    char *text = core_buf_steal(&b, NULL);
    return serve_respond(h, conn, rq, 200, "text/plain; version=0.0.4; charset=utf-8", text,
                         text ? len : 0, NULL);
}

/* The web page (ui_page.c) and the data it reads besides the JSON API (ui_api.c). */
static enum MHD_Result send_ui(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                               serve_ui_reply *r)
{
    return serve_respond(h, conn, rq, r->status, r->content_type, r->body, r->len, r->headers);
}

enum MHD_Result serve_on_page(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                              const char *url, const char *method)
{
    (void)method;
    serve_ui_reply r = {0};
    serve_ui_page(conn, url, &r);
    return send_ui(h, conn, rq, &r);
}

enum MHD_Result serve_on_ui_data(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                 const char *url, const char *method)
{
    (void)method;
    serve_ui_reply r = {0};
    serve_ui_data(h->db, conn, url, &r);
    return send_ui(h, conn, rq, &r);
}

/* apidex's own document: the route table's paths with their operations from
   openapi_self.json (openapi_self.c) */
enum MHD_Result serve_on_openapi(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                 const char *url, const char *method)
{
    (void)url;
    (void)method;
    apidex_error err;
    core_error_clear(&err);
    const char *doc = serve_openapi_document(&err);
    if (!doc) return serve_respond_error(h, conn, rq, 500, err.message, NULL);
    char *copy = strdup(doc);
    return serve_respond(h, conn, rq, 200, "application/json", copy, copy ? strlen(copy) : 0, NULL);
}

/* A subscriptions/listen answer: an event stream that stays open (http_sse.c). */
static enum MHD_Result open_stream(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                   mcp_listen *listen, char *ack, size_t ack_len)
{
    struct MHD_Response *r = serve_sse_open(h->sse, conn, listen, ack, ack_len);
    if (!r) return serve_respond_error(h, conn, rq, 500, "out of memory", NULL);
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    add_common_headers(h, conn, r);
    enum MHD_Result ret = MHD_queue_response(conn, 200, r);
    MHD_destroy_response(r);
    rq->status = 200;
    return ret;
}

enum MHD_Result serve_on_mcp(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                             const char *url, const char *method)
{
    (void)url;
    char client[64];
    client_text(conn, client, sizeof client);
    mcp_http_request req = {
        .client = client,
        .http_method = method,
        .content_type = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type"),
        .accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept"),
        .protocol_version =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "MCP-Protocol-Version"),
        .session_id = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Mcp-Session-Id"),
        .mcp_method = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Mcp-Method"),
        .mcp_name = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Mcp-Name"),
        .body = rq->body.data,
        .body_len = rq->body.len};
    mcp_http_response res;
    mcp_handle_http(h->mcp, &req, &res);
    rq->rpc_method = res.rpc_method;
    serve_metrics_mcp(h->metrics, res.rpc_method);
    const char *headers[5] = {NULL};
    size_t nh = 0;
    if (res.session_id) headers[nh++] = "Mcp-Session-Id", headers[nh++] = res.session_id;
    if (res.allow) headers[nh++] = "Allow", headers[nh++] = res.allow;
    if (res.listen) {
        enum MHD_Result ret = open_stream(h, conn, rq, res.listen, res.body, res.body_len);
        res.listen = NULL; /* both taken */
        res.body = NULL;
        mcp_http_response_clear(&res);
        return ret;
    }
    char *body = res.body;
    res.body = NULL;
    enum MHD_Result ret = serve_respond(h, conn, rq, res.status, body ? "application/json" : NULL,
                                        body, body ? res.body_len : 0, headers);
    mcp_http_response_clear(&res);
    return ret;
}

/* ---------------------------------------------------------------- the access handler */

/* Called by the library once the request line is read: the request's state starts
   here, and the raw (still percent-encoded) path shows a %00 the decoded one hides. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    (void)conn;
    req_ctx *rq = calloc(1, sizeof *rq);
    if (!rq) return NULL; /* the access handler makes it then */
    size_t path_len = strcspn(uri, "?");
    for (size_t i = 0; i + 3 <= path_len; i++)
        if (uri[i] == '%' && uri[i + 1] == '0' && uri[i + 2] == '0') rq->path_nul = true;
    return rq;
}

typedef struct nul_check {
    const char *what; /* "parameter", "header" */
    char bad[120];
} nul_check;

static enum MHD_Result find_nul(void *cls, enum MHD_ValueKind kind, const char *key,
                                size_t key_size, const char *value, size_t value_size)
{
    (void)kind;
    nul_check *c = cls;
    if (c->bad[0]) return MHD_NO;
    if (strlen(key) != key_size)
        snprintf(c->bad, sizeof c->bad,
                 "a %s name contains a NUL character: refused rather than cut at it", c->what);
    else if (value && strlen(value) != value_size)
        snprintf(c->bad, sizeof c->bad,
                 "%s '%.40s' contains a NUL character: refused rather than cut at it", c->what,
                 key);
    return c->bad[0] ? MHD_NO : MHD_YES;
}

static enum MHD_Result add_length(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value)
{
    (void)kind;
    *(size_t *)cls += strlen(key) + (value ? strlen(value) : 0) + 4;
    return MHD_YES;
}

static enum MHD_Result first_call(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                  const char *url, const char *method)
{
    /* The library's pool is larger than max_header (so that it always has room to
       answer); the limit itself is enforced here, with a JSON answer. */
    size_t line = strlen(url), head = 0;
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_length, &line);
    MHD_get_connection_values(conn, MHD_HEADER_KIND, add_length, &head);
    if (line > h->max_header)
        return serve_respond_error(h, conn, rq, 414, "request target too long", NULL);
    if (line + head > h->max_header) {
        char msg[96];
        snprintf(msg, sizeof msg, "request line and headers over the limit of %zu bytes",
                 h->max_header);
        return serve_respond_error(h, conn, rq, 431, msg, NULL);
    }
    if (rq->path_nul)
        return serve_respond_error(
            h, conn, rq, 400,
            "the path contains a NUL character (%00): refused rather than cut "
            "at it",
            NULL);
    nul_check nc = {.what = "parameter"};
    MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, find_nul, &nc);
    if (!nc.bad[0]) {
        nc.what = "header";
        MHD_get_connection_values_n(conn, MHD_HEADER_KIND, find_nul, &nc);
    }
    if (nc.bad[0]) return serve_respond_error(h, conn, rq, 400, nc.bad, NULL);
    /* DNS rebinding: on loopback, the Host must name loopback too. */
    const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
    if (h->loopback && host && !is_loopback_host(host, strlen(host)))
        return serve_respond_error(h, conn, rq, 403, "Host not allowed", NULL);
    if (!origin_allowed(h, MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin")))
        return serve_respond_error(h, conn, rq, 403, "Origin not allowed", NULL);
    if (!strcmp(method, "OPTIONS")) {
        const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
        if (h->cors && origin && rq->def) {
            const char *headers[] = {
                "Access-Control-Allow-Methods",
                "GET, HEAD, POST, DELETE, OPTIONS",
                "Access-Control-Allow-Headers",
                "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, "
                "Mcp-Method, Mcp-Name, Last-Event-ID",
                "Access-Control-Max-Age",
                "600",
                NULL};
            return serve_respond(h, conn, rq, 204, NULL, NULL, 0, headers);
        }
    }
    if (!rq->def) return serve_respond_error(h, conn, rq, 404, "no such route", NULL);
    if (!(rq->def->flags & SERVE_ROUTE_OPEN) && !authorized(h, conn)) {
        const char *headers[] = {"WWW-Authenticate", "Bearer realm=\"apidex\"", NULL};
        return serve_respond_error(h, conn, rq, 401, "missing or wrong bearer token", headers);
    }
    if (!serve_route_allows(rq->def, method)) {
        const char *headers[] = {"Allow", rq->def->allow, NULL};
        return serve_respond_error(h, conn, rq, 405, "method not allowed", headers);
    }
    const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
    if (cl) {
        char *end;
        unsigned long long n = strtoull(cl, &end, 10);
        if (*end || n > h->max_body) {
            char msg[96];
            snprintf(msg, sizeof msg, "request body over the limit of %zu bytes", h->max_body);
            return serve_respond_error(h, conn, rq, 413, msg, NULL);
        }
    }
    (void)url;
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    (void)version;
    serve_http *h = cls;
    req_ctx *rq = *con_cls;
    if (!rq || !rq->begun) {
        /* Headers complete: too late if the deadline has cut the connection meanwhile. */
        if (!serve_guard_headers_done(h->guard, conn)) return MHD_NO;
        if (!rq && !(rq = *con_cls = calloc(1, sizeof *rq))) return MHD_NO;
        rq->begun = true;
        rq->start = core_now();
        rq->def = serve_route_find(url);
        rq->route = rq->def ? rq->def->route : ROUTE_OTHER;
        core_buf_init(&rq->body, h->max_body + 1);
        snprintf(rq->method, sizeof rq->method, "%s", method);
        snprintf(rq->path, sizeof rq->path, "%s", url);
        *con_cls = rq;
        return first_call(h, conn, rq, url, method);
    }
    if (*upload_data_size) {
        /* Past the deadline the request is answered 408 once it ends; a client that
           keeps dripping past twice the deadline is cut off. */
        if (core_now() - rq->start > 2 * h->timeout_s) return MHD_NO;
        if (!rq->too_large && core_buf_append(&rq->body, upload_data, *upload_data_size) != 0) {
            rq->too_large = true;
            core_buf_free(&rq->body);
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (rq->too_large) {
        char msg[96];
        snprintf(msg, sizeof msg, "request body over the limit of %zu bytes", h->max_body);
        return serve_respond_error(h, conn, rq, 413, msg, NULL);
    }
    if (core_now() - rq->start > h->timeout_s)
        return serve_respond_error(h, conn, rq, 408, "request took too long to arrive", NULL);
    if (!rq->def) return serve_respond_error(h, conn, rq, 404, "no such route", NULL);
    return rq->def->handler(h, conn, rq, url, method);
}

/* ---------------------------------------------------------------- access log and metrics */

static void log_request(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                        enum MHD_RequestTerminationCode why, double seconds)
{
    if (h->log_fd < 0) return;
    char remote[64];
    client_text(conn, remote, sizeof remote);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[40];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    static const char *const outcomes[] = {"ok",       "error",      "timeout",
                                           "shutdown", "read_error", "client_abort"};
    const char *ua = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "User-Agent");
    core_buf b;
    core_buf_init(&b, 4096);
    core_buf_printf(&b, "{\"time\":\"%s.%03ldZ\",\"remote\":", when, ts.tv_nsec / 1000000);
    core_buf_json_str(&b, remote, strlen(remote));
    core_buf_puts(&b, ",\"method\":");
    core_buf_json_str(&b, rq->method, strlen(rq->method));
    core_buf_puts(&b, ",\"path\":");
    core_buf_json_str(&b, rq->path, strlen(rq->path));
    core_buf_printf(&b, ",\"route\":\"%s\",\"status\":%d,\"bytes\":%zu,\"duration_ms\":%.3f",
                    serve_route_names[rq->route], rq->status, rq->bytes, seconds * 1000.0);
    if (rq->rpc_method) core_buf_printf(&b, ",\"rpc_method\":\"%s\"", rq->rpc_method);
    core_buf_printf(&b, ",\"outcome\":\"%s\"",
                    (unsigned)why < sizeof outcomes / sizeof outcomes[0] ? outcomes[why] : "other");
    if (ua) {
        core_buf_puts(&b, ",\"user_agent\":");
        core_buf_json_str(&b, ua, strnlen(ua, 200));
    }
    core_buf_puts(&b, "}\n");
    if (!b.failed) {
        pthread_mutex_lock(&h->log_lock);
        size_t off = 0;
        while (off < b.len) {
            ssize_t w = write(h->log_fd, b.data + off, b.len - off);
            if (w <= 0) break;
            off += (size_t)w;
        }
        pthread_mutex_unlock(&h->log_lock);
    }
    core_buf_free(&b);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode why)
{
    serve_http *h = cls;
    serve_guard_request_done(h->guard, conn);
    req_ctx *rq = *con_cls;
    if (!rq) return;
    if (!rq->begun) { /* ended before its headers did: nothing was asked, nothing to log */
        free(rq);
        *con_cls = NULL;
        return;
    }
    double seconds = core_now() - rq->start;
    serve_metrics_observe(h->metrics, rq->route, rq->status ? rq->status : 499, seconds);
    log_request(h, conn, rq, why, seconds);
    core_buf_free(&rq->body);
    free(rq);
    *con_cls = NULL;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    serve_http *h = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        serve_guard_opened(h->guard, conn, socket_context);
    else
        serve_guard_closed(h->guard, socket_context);
    serve_metrics_connection(h->metrics, code == MHD_CONNECTION_NOTIFY_STARTED ? 1 : -1);
}

/* The library's messages (a refused or cut connection, a malformed request): at most
   LOG_BURST in each LOG_WINDOW_S, so that a flood of bad connections cannot flood the
   log; what was left out is counted in the next message. */
enum { LOG_BURST = 20 };
#define LOG_WINDOW_S 10.0

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    serve_http *h = cls;
    double now = core_now();
    pthread_mutex_lock(&h->log_lock);
    if (now - h->mhd_log_window >= LOG_WINDOW_S) {
        h->mhd_log_window = now;
        h->mhd_log_count = 0;
    }
    bool shown = h->mhd_log_count++ < LOG_BURST;
    size_t left_out = shown ? h->mhd_log_left_out : 0;
    if (shown)
        h->mhd_log_left_out = 0;
    else
        h->mhd_log_left_out++;
    pthread_mutex_unlock(&h->log_lock);
    if (!shown) return;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n') msg[--n] = '\0';
    if (left_out)
        fprintf(stderr, "apidex serve: (%zu messages left out, at most %d in %.0f s)\n", left_out,
                LOG_BURST, LOG_WINDOW_S);
    fprintf(stderr, "apidex serve: %s\n", msg);
}

/* ---------------------------------------------------------------- start / stop */

static void http_free(serve_http *h)
{
    if (!h) return;
    if (h->token) {
        memset(h->token, 0, h->token_len);
        free(h->token);
    }
    for (size_t i = 0; h->cors && h->cors[i]; i++) free((char *)h->cors[i]);
    free(h->cors);
    serve_metrics_free(h->metrics);
    serve_guard_free(h->guard);
    pthread_mutex_destroy(&h->log_lock);
    free(h);
}

int serve_http_start(serve_db *db, mcp_server *mcp, const serve_http_options *opt, serve_http **out,
                     apidex_error *err)
{
    *out = NULL;
    serve_http_options o = opt ? *opt : (serve_http_options){.access_log_fd = -1};
    struct sockaddr_storage ss;
    bool loopback = false;
    size_t sslen = 0;
    int rc = core_listen_parse(o.listen ? o.listen : "127.0.0.1:8080", &ss, &sslen, &loopback, err);
    if (rc) return rc;
    if (!loopback && !o.allow_remote)
        return core_error_set(err, APIDEX_EINVAL,
                              "refusing to listen on a non-loopback address without "
                              "--allow-remote (and you will want --token)");
    serve_http *h = calloc(1, sizeof *h);
    if (!h) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    pthread_mutex_init(&h->log_lock, NULL);
    h->db = db;
    h->mcp = mcp;
    h->llm = o.llm;
    h->calls = o.calls && o.calls->enabled ? o.calls : NULL;
    h->loopback = loopback;
    h->log_fd = o.access_log_fd;
    h->max_body = o.max_body ? o.max_body : 1 << 20;
    h->timeout_s = o.timeout_s ? o.timeout_s : 30;
    double header_timeout = o.header_timeout_s > 0 ? o.header_timeout_s : 10;
    unsigned max_conns = o.max_connections ? o.max_connections : 256;
    /* one address may hold a quarter of the connections, at most 64 by default */
    unsigned per_client = o.max_conns_per_client > 0   ? (unsigned)o.max_conns_per_client
                          : o.max_conns_per_client < 0 ? 0 /* no limit */
                          : max_conns / 4 < 1          ? 1
                          : max_conns / 4 > 64         ? 64
                                                       : max_conns / 4;
    h->metrics = serve_metrics_new();
    if (o.token && *o.token) {
        h->token = strdup(o.token);
        h->token_len = strlen(o.token);
    }
    if (o.cors_origins) {
        size_t n = 0;
        while (o.cors_origins[n]) n++;
        h->cors = calloc(n + 1, sizeof *h->cors);
        for (size_t i = 0; h->cors && i < n; i++) {
            h->cors[i] = strdup(o.cors_origins[i]);
            if (!strcmp(o.cors_origins[i], "*")) h->cors_any = true;
        }
    }
    if (serve_guard_new(header_timeout, &h->guard) || !h->metrics ||
        (o.token && *o.token && !h->token) || (o.cors_origins && !h->cors)) {
        http_free(h);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    unsigned threads = o.threads;
    if (!threads) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > 0 ? (unsigned)cpus : 1;
    }
    if (threads > 64) threads = 64;
    h->max_header = o.max_header ? o.max_header : 16 * 1024;
    /* The pool holds the request line and headers while they are parsed, their
       records, then the response headers. Far larger than max_header, so that the
       library can still answer (431/414) what does not fit at all. */
    size_t pool = 4 * h->max_header > 64 * 1024 ? 4 * h->max_header : 64 * 1024;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG |
                     MHD_ALLOW_SUSPEND_RESUME;
    if (ss.ss_family == AF_INET6) flags |= MHD_USE_IPv6;
    struct MHD_OptionItem ops[16];
    size_t n = 0;
    /* The logger first, so that the library reports option problems through it too. */
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_log, h};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, &ss};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, max_conns, NULL};
    if (per_client)
        ops[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_client, NULL};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)on_uri, h};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)h->timeout_s, NULL};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)pool, NULL};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, h};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, h};
    if (threads > 1)
        ops[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)threads, NULL};
    ops[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_ARRAY, ops,
                                 MHD_OPTION_END);
    if (!h->daemon) {
        http_free(h);
        return core_error_set(err, APIDEX_EIO, "cannot listen on %s (address in use?)",
                              o.listen ? o.listen : "127.0.0.1:8080");
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = di ? di->port : 0;
    /* keep-alive comments well inside the idle timeout */
    double keepalive = h->timeout_s / 2 < 15 ? (h->timeout_s / 2 > 1 ? h->timeout_s / 2 : 1) : 15;
    if (serve_sse_new(db, keepalive, &h->sse) != 0) {
        MHD_stop_daemon(h->daemon);
        http_free(h);
        return core_error_set(err, APIDEX_ENOMEM, "cannot start a thread");
    }
    *out = h;
    return 0;
}

unsigned serve_http_port(const serve_http *h)
{
    return h->port;
}

void serve_http_stop(serve_http *h)
{
    if (!h) return;
    serve_sse_close_all(h->sse);
    MHD_stop_daemon(h->daemon);
    serve_sse_free(h->sse);
    http_free(h);
}
