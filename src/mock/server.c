/*
 * The mock's HTTP side (libmicrohttpd): collects a request (path, query, headers, cookies
 * and a body up to the cap), hands it to mock_handle and sends what it answers. The path
 * is passed on still percent-encoded, so the router splits segments before decoding them.
 */
#include "mock/mock.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

enum { MAX_PAIRS = 256 };

struct mock_server {
    struct MHD_Daemon *daemon;
    mock *mk;
    unsigned port;
    bool quiet;
};

typedef struct req_ctx {
    core_buf body;
    bool too_large;
} req_ctx;

typedef struct pairs {
    mock_pair items[MAX_PAIRS];
    size_t n;
    core_arena *arena;
    bool decode;
} pairs;

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key,
                               const char *value)
{
    (void)kind;
    pairs *p = cls;
    if (p->n >= MAX_PAIRS || !key) return MHD_YES;
    mock_pair *x = &p->items[p->n];
    x->name = p->decode ? mock_percent_decode(p->arena, key, strlen(key), false) : key;
    x->value =
        value ? (p->decode ? mock_percent_decode(p->arena, value, strlen(value), false) : value)
              : NULL;
    if (x->name) p->n++;
    return MHD_YES;
}

/* No unescaping by the library: the router decodes per segment, collect() per value. */
static size_t keep_escaped(void *cls, struct MHD_Connection *conn, char *s)
{
    (void)cls;
    (void)conn;
    return strlen(s);
}

static enum MHD_Result send_answer(struct MHD_Connection *conn, const mock_response *r)
{
    char *copy = NULL;
    if (r->body_len) {
        copy = malloc(r->body_len);
        if (!copy) return MHD_NO;
        memcpy(copy, r->body, r->body_len);
    }
    struct MHD_Response *resp =
        copy ? MHD_create_response_from_buffer(r->body_len, copy, MHD_RESPMEM_MUST_FREE)
             : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        free(copy);
        return MHD_NO;
    }
    if (r->content_type) MHD_add_response_header(resp, "Content-Type", r->content_type);
    if (r->allow) MHD_add_response_header(resp, "Allow", r->allow);
    if (r->location) MHD_add_response_header(resp, "Location", r->location);
    if (r->operation) MHD_add_response_header(resp, "X-Mock-Operation", r->operation);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result simple_error(struct MHD_Connection *conn, int status, const char *message)
{
    char body[256];
    snprintf(body, sizeof body, "{\"status\":%d,\"error\":\"%s\",\"message\":\"%s\"}", status,
             status == 413 ? "Payload Too Large" : "Error", message);
    mock_response r = {.status = status,
                       .content_type = "application/json",
                       .body = body,
                       .body_len = strlen(body)};
    return send_answer(conn, &r);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    (void)version;
    mock_server *s = cls;
    size_t max_body = mock_get_options(s->mk)->max_body;
    req_ctx *rq = *con_cls;
    if (!rq) {
        rq = calloc(1, sizeof *rq);
        if (!rq) return MHD_NO;
        core_buf_init(&rq->body, max_body + 1);
        *con_cls = rq;
        /* a declared length over the cap is refused before any of it is read */
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
        if (cl && strtoull(cl, NULL, 10) > max_body) {
            rq->too_large = true;
            return simple_error(conn, 413, "request body over the limit");
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (!rq->too_large && core_buf_append(&rq->body, upload_data, *upload_data_size) != 0) {
            rq->too_large = true;
            core_buf_free(&rq->body);
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (rq->too_large) return simple_error(conn, 413, "request body over the limit");
    core_arena *a = core_arena_new(0);
    if (!a) return MHD_NO;
    pairs *q = calloc(3, sizeof *q);
    if (!q) {
        core_arena_free(a);
        return MHD_NO;
    }
    q[0].arena = q[1].arena = q[2].arena = a;
    q[0].decode = true;
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect, &q[0]);
    MHD_get_connection_values(conn, MHD_HEADER_KIND, collect, &q[1]);
    MHD_get_connection_values(conn, MHD_COOKIE_KIND, collect, &q[2]);
    mock_request req = {
        .method = method,
        .path = url,
        .query = q[0].items,
        .n_query = q[0].n,
        .headers = q[1].items,
        .n_headers = q[1].n,
        .cookies = q[2].items,
        .n_cookies = q[2].n,
        .body = rq->body.data,
        .body_len = rq->body.len,
        .content_type = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type"),
    };
    mock_response r;
    enum MHD_Result ret;
    if (mock_handle(s->mk, &req, a, &r) != 0) {
        ret = simple_error(conn, 500, "out of memory");
    } else {
        ret = send_answer(conn, &r);
        if (!s->quiet)
            fprintf(stderr, "%s %s -> %d%s%s\n", method, url, r.status, r.operation ? " " : "",
                    r.operation ? r.operation : "");
    }
    free(q);
    core_arena_free(a);
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode why)
{
    (void)cls;
    (void)conn;
    (void)why;
    req_ctx *rq = *con_cls;
    if (!rq) return;
    core_buf_free(&rq->body);
    free(rq);
    *con_cls = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n') msg[--n] = '\0';
    fprintf(stderr, "apidex mock: %s\n", msg);
}

int mock_server_start(mock *mk, const mock_server_options *opt, mock_server **out,
                      apidex_error *err)
{
    *out = NULL;
    mock_server_options o = opt ? *opt : (mock_server_options){0};
    const char *listen = o.listen ? o.listen : "127.0.0.1:4010";
    struct sockaddr_storage ss;
    bool loopback = false;
    size_t sslen = 0;
    int rc = core_listen_parse(listen, &ss, &sslen, &loopback, err);
    if (rc) return rc;
    if (!loopback && !o.allow_remote)
        return core_error_set(err, APIDEX_EINVAL,
                              "refusing to listen on a non-loopback address without "
                              "--allow-remote");
    mock_server *s = calloc(1, sizeof *s);
    if (!s) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    s->mk = mk;
    s->quiet = o.quiet;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
    if (ss.ss_family == AF_INET6) flags |= MHD_USE_IPv6;
    struct MHD_OptionItem ops[] = {
        {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_log, s},
        {MHD_OPTION_SOCK_ADDR, 0, &ss},
        {MHD_OPTION_CONNECTION_LIMIT, 128, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, o.timeout_s ? (intptr_t)o.timeout_s : 30, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, 64 * 1024, NULL},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, s},
        {MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)keep_escaped, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    s->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_ARRAY, ops,
                                 MHD_OPTION_END);
    if (!s->daemon) {
        free(s);
        return core_error_set(err, APIDEX_EIO, "cannot listen on %s (address in use?)", listen);
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? di->port : 0;
    *out = s;
    return 0;
}

unsigned mock_server_port(const mock_server *s)
{
    return s->port;
}

void mock_server_stop(mock_server *s)
{
    if (!s) return;
    MHD_stop_daemon(s->daemon);
    free(s);
}
