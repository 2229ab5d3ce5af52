/* Internals shared by the serve stage's files: the snapshot layout, JSON helpers, metrics. */
#ifndef APIDEX_SERVE_INT_H
#define APIDEX_SERVE_INT_H

#include "serve/serve.h"

#include <json-c/json.h>
#include <stdatomic.h>

/* One generation of the index: the store, its search engine and the API table. Opening
   reads no operation, schema or edge row: the engine opens from the search image, and the
   operations a request names are found in the engine's table (serve_snapshot_ops) with
   their texts read by rowid; the few requests that need every row (an endpoint's detail)
   load them then (store_operations, once per snapshot). */
struct serve_snapshot {
    serve_db *db;
    atomic_size_t refs;
    store_index *idx;
    search_engine *eng;
    store_info info;
    const store_api *apis;
    size_t n_apis;
};

/* ---------------------------------------------------------------- usage prior (usage_cache.c) */

/** The reported uses a server's searches weigh, read again when the sidecar changes. */
typedef struct serve_usage_cache serve_usage_cache;
/** One read of them, shared by the searches that hold a reference. */
typedef struct serve_usage_set serve_usage_set;
/** For the index at db_path, searching with params (copied; usage_weight > 0); NULL on OOM. */
serve_usage_cache *serve_usage_cache_new(const char *db_path, const search_params *params);
/** NULL is a no-op. */
void serve_usage_cache_free(serve_usage_cache *c);
/** The search parameters it was made with. */
const search_params *serve_usage_params(const serve_usage_cache *c);
/** The current set, read again first when the sidecar changed; NULL when none could be
    read. Release it with serve_usage_release. Thread-safe. */
serve_usage_set *serve_usage_acquire(serve_usage_cache *c);
const store_usage *serve_usage_of(const serve_usage_set *s);
void serve_usage_release(serve_usage_set *s);
/** The cache of the db (NULL when the server weighs no uses: db.c). */
serve_usage_cache *serve_db_usage(serve_db *db);

/* ---------------------------------------------------------------- feedback (feedback.c) */

/**
 * Feedback (POST /v1/feedback, MCP report_usage): args {"endpoints": [id or "METHOD
 * /path", ...], "api": A, "task": T} resolved and recorded (store_usage_feedback);
 * *out {"recorded": n}. APIDEX_EINVAL bad arguments, APIDEX_ENOTFOUND an unknown endpoint.
 */
int serve_query_feedback(serve_snapshot *snap, struct json_object *args, struct json_object **out,
                         apidex_error *err);

/* ---------------------------------------------------------------- JSON text checks (jsonrpc.c) */

/**
 * Where the JSON text (parsed into root) holds a NUL character (\u0000) in a string:
 * writes the path of the first such value into at[0..size) ("params.arguments.task",
 * "apis[1]"; below prefix when given) or "a member name" when only a name holds one
 * (json-c cuts names at it), and returns true. C strings would cut such a value at the
 * NUL, so callers refuse it rather than act on a shortened value.
 */
bool serve_json_nul_at(const char *text, size_t len, struct json_object *root, const char *prefix,
                       char *at, size_t size);
/** A JSON object from text (strict, UTF-8, nothing after it), or NULL */
struct json_object *serve_json_object_parse(const char *text, size_t len);

/* ---------------------------------------------------------------- JSON helpers (query.c) */

/** A JSON string of s, or JSON null (NULL) when s is NULL. */
struct json_object *serve_jstr(const char *s);
/** A number written with `decimals` digits after the point (json-c would print 17). */
struct json_object *serve_jnum(double v, int decimals);
/** The string member key of obj, or NULL when absent or not a string. */
const char *serve_jget_str(struct json_object *obj, const char *key);
/** Adds key: value to obj; returns false on OOM (value is put): core_json_add. */
bool serve_jadd(struct json_object *obj, const char *key, struct json_object *value);

/**
 * One query against the served index (db.c): the snapshot held while it runs, its reply and
 * its error: the start and end of every handler that answers from one snapshot. open
 * acquires (serve_db_acquire), close releases the snapshot only; obj (the caller's) and err
 * stay for the reply.
 */
typedef struct serve_snapshot_call {
    serve_snapshot *snap;
    struct json_object *obj;
    apidex_error err;
} serve_snapshot_call;
void serve_snapshot_call_open(serve_db *db, serve_snapshot_call *q);
void serve_snapshot_call_close(serve_snapshot_call *q);

/**
 * The index rows of operation oi (*sop) and of its API (*sapi) (detail.c): the start of every
 * reader of one endpoint (detail, snippet, tool definitions). Both live as long as idx.
 * Returns the store's status, or APIDEX_EINVAL ("no such endpoint") when oi is no row.
 */
int serve_operation_rows(store_index *idx, long oi, const store_operation **sop,
                         const store_api **sapi, apidex_error *err);

/** The plan of a search result as a JSON array of steps (plan_json.c); NULL on OOM. */
struct json_object *serve_plan_json(const search_result *res);

/**
 * The index of the operation (into store_operations(), search_engine_operations()) named by id
 * (exact, else the loose forms get_endpoint takes), or by method + path (+ api when several APIs
 * have it; placeholder names may differ): serve_query_endpoint's lookup (query.c). 0, APIDEX_EINVAL
 * (a bad argument) or APIDEX_ENOTFOUND (err says what to do).
 */
int serve_find_endpoint(serve_snapshot *snap, const char *id, const char *method, const char *path,
                        const char *api, long *out, apidex_error *err);

/** Rejects strings with NUL bytes or invalid UTF-8 (what a C string query can take). */
bool serve_text_ok(const char *s, size_t len);

/** Percent-decodes s[0..n) into a malloc'd string; NULL when malformed or it decodes to NUL. */
char *serve_percent_decode(const char *s, size_t n);
/** Appends s percent-encoded (everything but RFC 3986 unreserved characters) to b. */
int serve_percent_encode(core_buf *b, const char *s);

/* ---------------------------------------------------------------- MCP tool layer (mcp_tools.c) */

/** Which optional parts of the schema a revision has. */
typedef struct mcp_rev_info {
    const char *name;
    bool modern;            /* 2026-07-28 rules: per-request _meta, resultType, cacheable lists */
    bool tool_title;        /* Tool.title (2025-06-18+) */
    bool tool_annotations;  /* Tool.annotations (2025-03-26+) */
    bool structured;        /* outputSchema + structuredContent (2025-06-18+) */
    int resource_not_found; /* error code for an unknown resource */
} mcp_rev_info;

extern const mcp_rev_info mcp_revs[];
extern const size_t mcp_n_revs;

/** A JSON-RPC error raised by a handler. */
typedef struct mcp_error {
    int code;
    char message[300];
    struct json_object *data; /* owned; may be NULL */
} mcp_error;

/** Fills e and returns -1 (so handlers can `return mcp_fail(...)`). */
int mcp_fail(mcp_error *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/** tools/list: the tools array for a revision (call_endpoint only when srv allows calls). */
struct json_object *mcp_tools_list(const mcp_server *srv, const mcp_rev_info *rev);

/* ---------------------------------------------------------------- calls (call.c) */

/** The call_endpoint tool definition for a revision; its annotations follow cfg (read-only
    unless allow_write). New object, NULL on OOM. */
struct json_object *mcp_call_tool(const mcp_rev_info *rev, const serve_call_config *cfg);
/** The HTTP status of a serve_query_call outcome: 200, 403 refused, 400, 404, 502 network. */
int serve_call_http_status(int rc);
/**
 * tools/call: name and arguments as given. 0 with *result a CallToolResult
 * (tool failures are results with isError), or -1 with e filled for
 * protocol errors (unknown tool, malformed request).
 */
int mcp_tools_call(mcp_server *srv, const mcp_rev_info *rev, struct json_object *params,
                   struct json_object **result, mcp_error *e);
/** resources/list page starting at offset; *next_offset = 0 at the end. */
int mcp_resources_list(serve_db *db, size_t offset, size_t page, struct json_object **resources,
                       size_t *next_offset, mcp_error *e);
struct json_object *mcp_resource_templates(void);
/** resources/read of an apidex:// URI. */
int mcp_resources_read(serve_db *db, const mcp_rev_info *rev, const char *uri,
                       struct json_object **contents, mcp_error *e);

/* ---------------------------------------------------------------- MCP prompts (mcp_prompts.c) */

/** prompts/list: the prompts array for a revision (new object, NULL on OOM). */
struct json_object *mcp_prompts_list(const mcp_rev_info *rev);
/**
 * prompts/get: 0 with *result a GetPromptResult (the plan for a task, from the
 * index), or -1 with e filled: -32602 for an unknown prompt or bad arguments.
 */
int mcp_prompts_get(mcp_server *srv, const mcp_rev_info *rev, struct json_object *params,
                    struct json_object **result, mcp_error *e);
/**
 * completion/complete for the prompt's arguments (api, tag) and the resource
 * templates' (api, id): 0 with *result a CompleteResult (at most 100 values,
 * total and hasMore), or -1 with e filled (-32602 for an unknown ref).
 */
int mcp_complete(mcp_server *srv, struct json_object *params, struct json_object **result,
                 mcp_error *e);

/* ---------------------------------------------------------------- MCP protocol core (mcp.c) */

/** Transport facts for one message. */
typedef struct mcp_ctx {
    int legacy_rev;               /* negotiated 2025-era revision of the process/session; -1 none */
    const mcp_http_request *http; /* NULL on stdio */
} mcp_ctx;

/**
 * An open subscriptions/listen stream (2026-07-28): what the client opted in
 * to and we honour. The stream's first message is the acknowledgement; index
 * rebuilds then produce change notifications, tagged with the request id.
 */
typedef struct mcp_listen {
    char *id_json;       /* the listen request's id, serialised (also the subscription id) */
    bool resources_list; /* notifications/resources/list_changed */
    char **uris;         /* notifications/resources/updated for these */
    size_t n_uris;
} mcp_listen;

void mcp_listen_free(mcp_listen *l);
/** The notifications one index rebuild causes on l, as SSE-free JSON lines joined by '\n'. */
char *mcp_listen_changes(const mcp_listen *l, size_t *len);
/** The SubscriptionsListenResult that ends l gracefully (server shutdown). */
char *mcp_listen_close(const mcp_listen *l, size_t *len);

/** What one message produced. */
typedef struct mcp_outcome {
    char *reply; /* malloc'd JSON-RPC response, NULL when none is due */
    size_t len;
    int status;             /* HTTP status for the reply (200, 202, 400, 404, ...) */
    int new_legacy_rev;     /* >= 0: an initialize negotiated this revision */
    bool legacy;            /* served by the 2025-era rules (needs a session on HTTP) */
    const char *rpc_method; /* static copy of a known method name, for metrics */
    mcp_listen *listen;     /* a subscriptions/listen opened (reply = its acknowledgement) */
    char *cancelled_id;     /* notifications/cancelled: the serialised requestId */
} mcp_outcome;

/** Frees what an outcome owns (reply, listen, cancelled_id). */
void mcp_outcome_clear(mcp_outcome *o);

typedef struct mcp_sessions mcp_sessions;

struct mcp_server {
    serve_db *db;
    struct agent_llm *llm;
    bool private_cache;
    mcp_sessions *sessions;
    const serve_call_config *calls; /* call_endpoint; NULL or not enabled: no such tool */
};

/**
 * Decodes and answers one message. ctx->legacy_rev tells how a message
 * without the 2026-07-28 claim is served; the transport checks sessions first
 * (it asks mcp_classify whether the message needs one).
 */
void mcp_dispatch(mcp_server *srv, const mcp_ctx *ctx, jrpc_msg *msg, mcp_outcome *out);

/** What a decoded message is, for the transport's session checks. */
typedef enum {
    MCP_MSG_MODERN = 0, /* carries the 2026-07-28 per-request claim */
    MCP_MSG_INITIALIZE, /* a 2025-era initialize */
    MCP_MSG_LEGACY      /* anything else: 2025-era rules */
} mcp_msg_class;
mcp_msg_class mcp_classify(const jrpc_msg *msg);
/** The 2025-era revision index of a revision name, or -1. */
int mcp_legacy_rev_index(const char *name);
/** Answers with a JSON-RPC error (id may be NULL) and an HTTP status. */
void mcp_outcome_error(mcp_outcome *out, struct json_object *id, int code, const char *message,
                       struct json_object *data, int status);

/* ---------------------------------------------------------------- metrics (metrics.c) */

typedef enum {
    ROUTE_SEARCH = 0,
    ROUTE_ENDPOINT,
    ROUTE_APIS,
    ROUTE_ASK,
    ROUTE_HEALTHZ,
    ROUTE_METRICS,
    ROUTE_OPENAPI,
    ROUTE_MCP,
    ROUTE_TOOLS,
    ROUTE_PAGE,    /* the web page and its assets (ui_page.c): no token needed */
    ROUTE_UI_DATA, /* what the page reads besides the JSON API (ui_api.c) */
    ROUTE_MATCH,
    ROUTE_FEEDBACK,
    ROUTE_CALL,
    ROUTE_OTHER,
    ROUTE_COUNT
} serve_route;

extern const char *const serve_route_names[ROUTE_COUNT];

typedef struct serve_metrics serve_metrics;
serve_metrics *serve_metrics_new(void);
void serve_metrics_free(serve_metrics *m);
/** Counts one finished request (thread-safe, lock-free). */
void serve_metrics_observe(serve_metrics *m, serve_route route, int status, double seconds);
/** Counts one MCP request by JSON-RPC method (a bounded set; others count as "other"). */
void serve_metrics_mcp(serve_metrics *m, const char *rpc_method);
void serve_metrics_connection(serve_metrics *m, int delta);
/** The Prometheus text exposition (version 0.0.4). */
int serve_metrics_render(serve_metrics *m, serve_db *db, mcp_server *mcp, core_buf *out);
/* store_health.c: a server database's follower state in /healthz (a "store" member of o)
   and /metrics; nothing for an index file. */
void serve_health_store(serve_db *db, struct json_object *o);
int serve_metrics_store(serve_db *db, core_buf *out);

/* ---------------------------------------------------------------- web page (ui_*.c) */

/** One file of the page, embedded at build time (generated ui_assets.c, tools/embed_ui.cmake). */
typedef struct serve_ui_asset {
    const char *url;          /* "/" for index.html, else "/ui/<file>" */
    const char *content_type; /* with charset for text */
    const char *etag;         /* quoted: a hash of the bytes */
    const unsigned char *data;
    size_t len;
} serve_ui_asset;
extern const serve_ui_asset serve_ui_assets[];
extern const size_t serve_ui_n_assets;

/** What a web-page route answers; http.c sends it. */
typedef struct serve_ui_reply {
    int status;
    const char *content_type;
    char *body; /* malloc'd (the caller sends and frees it) or NULL */
    size_t len;
    const char *headers[16]; /* name, value pairs, NULL-terminated; values live in the reply */
    char etag[80];
} serve_ui_reply;

struct MHD_Connection;

/* subscriptions/listen over HTTP (http_sse.c): open event streams and the watcher
   thread that feeds them. */
typedef struct serve_sse serve_sse;
struct MHD_Response;
int serve_sse_new(serve_db *db, double keepalive_s, serve_sse **out);
/** A stream answering conn (listen and ack taken, also on failure); NULL when out of
    memory. The caller adds headers, queues and destroys the response. */
struct MHD_Response *serve_sse_open(serve_sse *x, struct MHD_Connection *conn,
                                    struct mcp_listen *listen, char *ack, size_t ack_len);
/** Server shutdown, before MHD_stop_daemon: each stream gets its last message and
    ends; the watcher stops. */
void serve_sse_close_all(serve_sse *x);
/** After MHD_stop_daemon. NULL is a no-op. */
void serve_sse_free(serve_sse *x);

/* The header deadline (http_guard.c): connections tracked from the library's
   connection notifications; a watchdog shuts down those whose request headers are
   not complete header_timeout_s after they opened or after their previous answer. */
typedef struct serve_guard serve_guard;
int serve_guard_new(double header_timeout_s, serve_guard **out);
/** After MHD_stop_daemon. NULL is a no-op. */
void serve_guard_free(serve_guard *g);
/** MHD_CONNECTION_NOTIFY_STARTED / _CLOSED. */
void serve_guard_opened(serve_guard *g, struct MHD_Connection *conn, void **socket_context);
void serve_guard_closed(serve_guard *g, void **socket_context);
/** The access handler's first call (headers complete); false when the deadline had
    already cut the connection. */
bool serve_guard_headers_done(serve_guard *g, struct MHD_Connection *conn);
/** A request completed: a kept-alive connection's next headers get a new deadline. */
void serve_guard_request_done(serve_guard *g, struct MHD_Connection *conn);
/** Answers a ROUTE_PAGE url: the asset with its type, ETag (304 on If-None-Match) and CSP. */
void serve_ui_page(struct MHD_Connection *conn, const char *url, serve_ui_reply *out);

/* ---------------------------------------------------------------- markup.c */

/** The markdown (with HTML mixed in) md[0..n) as safe HTML for the page, appended to out:
    a fixed set of elements, text escaped, http(s) links only, raw HTML never passed on
    (markup.c says how). Returns 0, APIDEX_EINVAL or APIDEX_ENOMEM. Thread-safe. */
int serve_markup_html(const char *md, size_t n, core_buf *out);
/** Adds "description_html" (serve_markup_html) beside every string "description" of the
    JSON tree o, and makes the description its plain text (?markup=html of the page). */
void serve_markup_add(struct json_object *o);
/** Answers a ROUTE_UI_DATA url (GET /v1/index, /v1/apis/{id}, /v1/snippet) from db. */
void serve_ui_data(serve_db *db, struct MHD_Connection *conn, const char *url, serve_ui_reply *out);
/* ---------------------------------------------------------------- match (match_route.c) */

/* The MCP tool match_spec: description and schemas. */
extern const char serve_match_tool_description[], serve_match_tool_input[],
    serve_match_tool_output[];
/** Matches the OpenAPI document text[0..len) (JSON or YAML) against the snapshot's index
    (src/search/match.c); threshold < 0 and k 0 are the defaults. A document that does not
    load is APIDEX_EINVAL with "document:line:col: why" as the message. */
int serve_query_match(serve_snapshot *snap, const char *text, size_t len, double threshold,
                      size_t k, struct json_object **out, apidex_error *err);
/** The same with threshold and k as query-string values (NULL: default), for POST /v1/match. */
int serve_query_match_args(serve_snapshot *snap, const char *threshold_arg, const char *k_arg,
                           const char *text, size_t len, struct json_object **out,
                           apidex_error *err);

#endif /* APIDEX_SERVE_INT_H */
