/*
 * The HTTP server's internals, shared by its files: the server and request state and the
 * answers (http.c), the JSON API's handlers (http_api.c) and the route table that maps a
 * path to its handler (routes.c). Nothing outside src/serve/http*.c and routes.c includes it.
 */
#ifndef APIDEX_SERVE_HTTP_INT_H
#define APIDEX_SERVE_HTTP_INT_H

#include "serve/serve_int.h"

#include <microhttpd.h>
#include <pthread.h>

struct serve_http {
    struct MHD_Daemon *daemon;
    serve_db *db;
    mcp_server *mcp;
    serve_metrics *metrics;
    struct agent_llm *llm;
    const serve_call_config *calls; /* POST /v1/call; NULL: off */
    char *token;
    size_t token_len;
    size_t max_body, max_header;
    double timeout_s;
    serve_guard *guard; /* the header deadline */
    const char **cors;  /* NULL-terminated copy; NULL = off */
    bool cors_any;
    bool loopback; /* bound to a loopback address: Host must name it */
    int log_fd;
    pthread_mutex_t log_lock; /* also guards the three below */
    double mhd_log_window;    /* the library's messages: when this window began */
    size_t mhd_log_count, mhd_log_left_out;
    unsigned port;
    serve_sse *sse; /* subscriptions/listen streams and the thread that feeds them */
};

typedef struct serve_route_def serve_route_def;

/* Per-request state, from the headers to the completion callback. */
typedef struct req_ctx {
    bool begun;    /* the access handler has seen it (headers complete) */
    bool path_nul; /* the raw path held %00 */
    double start;
    serve_route route;          /* the metrics and log label; ROUTE_OTHER when none */
    const serve_route_def *def; /* the route table's row; NULL: no such route */
    core_buf body;
    bool too_large;
    int status;
    size_t bytes;
    const char *rpc_method;
    char method[16];
    char path[200];
} req_ctx;

/* ---------------------------------------------------------------- answers (http.c) */

/** Queues a response; body is malloc'd (taken) or NULL; headers: name, value, ..., NULL. */
enum MHD_Result serve_respond(serve_http *h, struct MHD_Connection *conn, req_ctx *rq, int status,
                              const char *content_type, char *body, size_t len,
                              const char *const *headers);
/** obj (taken) as JSON; 500 when it cannot be written. */
enum MHD_Result serve_respond_json(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                   int status, struct json_object *obj);
/** {"error":{"status":..,"message":..}} with the given status. */
enum MHD_Result serve_respond_error(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                    int status, const char *message, const char *const *headers);
/** A query's result: obj on rc 0; else 400 (EINVAL), 404 (ENOTFOUND) or 500 with err. */
enum MHD_Result serve_respond_query(serve_http *h, struct MHD_Connection *conn, req_ctx *rq, int rc,
                                    struct json_object *obj, const apidex_error *err);
/** serve_respond_query, and with ?markup=html each description also as safe HTML. */
enum MHD_Result serve_respond_marked(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                     int rc, struct json_object *obj, const apidex_error *err);

/* ---------------------------------------------------------------- the route table (routes.c) */

/** Answers one request whose body has arrived; url is percent-decoded, without the query. */
typedef enum MHD_Result (*serve_route_handler)(serve_http *h, struct MHD_Connection *conn,
                                               req_ctx *rq, const char *url, const char *method);

enum {
    SERVE_ROUTE_OPEN = 1,      /* answered without the bearer token (probes, the page) */
    SERVE_ROUTE_ANY_METHOD = 2 /* the handler answers other methods itself (MCP's 405) */
};

/*
 * One route: the path as /openapi.json names it, the methods (as a 405's Allow header says
 * them; /openapi.json documents each but HEAD), the handler and the metrics label. A path's
 * trailing "{name}" matches the rest of the URL when that is not empty; the operations'
 * parameters, bodies and words are in src/serve/openapi_self.json under the same path.
 */
struct serve_route_def {
    const char *path;
    const char *allow;
    serve_route_handler handler;
    serve_route route;
    unsigned flags;
    const char *const *also; /* other URLs of the same route: exact, or a prefix ending in '*' */
};

extern const serve_route_def serve_routes[];
extern const size_t serve_n_routes;

/** The row that serves url (a decoded path), or NULL (404). */
const serve_route_def *serve_route_find(const char *url);
/** Does the row take this method? (SERVE_ROUTE_ANY_METHOD: always) */
bool serve_route_allows(const serve_route_def *r, const char *method);

/* ---------------------------------------------------------------- handlers */

/* http_api.c: the JSON API */
enum MHD_Result serve_on_search(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                const char *url, const char *method);
enum MHD_Result serve_on_endpoint(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                  const char *url, const char *method);
enum MHD_Result serve_on_tools(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                               const char *url, const char *method);
enum MHD_Result serve_on_apis(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                              const char *url, const char *method);
enum MHD_Result serve_on_feedback(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                  const char *url, const char *method);
enum MHD_Result serve_on_call(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                              const char *url, const char *method);
enum MHD_Result serve_on_ask(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                             const char *url, const char *method);
enum MHD_Result serve_on_match(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                               const char *url, const char *method);
/* http.c: the server's own routes, the page and MCP */
enum MHD_Result serve_on_healthz(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                 const char *url, const char *method);
enum MHD_Result serve_on_metrics(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                 const char *url, const char *method);
enum MHD_Result serve_on_openapi(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                 const char *url, const char *method);
enum MHD_Result serve_on_page(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                              const char *url, const char *method);
enum MHD_Result serve_on_ui_data(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                                 const char *url, const char *method);
enum MHD_Result serve_on_mcp(serve_http *h, struct MHD_Connection *conn, req_ctx *rq,
                             const char *url, const char *method);

#endif
