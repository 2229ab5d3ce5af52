/* Internals shared by the serve stage's files: the snapshot layout, JSON helpers, metrics. */
#ifndef APIDEX_SERVE_INT_H
#define APIDEX_SERVE_INT_H

#include "serve/serve.h"

#include <json-c/json.h>
#include <stdatomic.h>

/* One generation of the index with the tables the queries need, built once. */
struct serve_snapshot {
    serve_db *db;
    atomic_size_t refs;
    store_index *idx;
    search_engine *eng;
    store_info info;
    const store_api *apis;
    size_t n_apis;
    const store_operation *ops;
    size_t n_ops;
    const store_schema *schemas;
    size_t n_schemas;
    const store_edge *edges;
    size_t n_edges;
    /* Adjacency in CSR form: the schemas an operation references directly,
       the schemas a schema references, and the producer edges of a consumer. */
    size_t *op_schema_off, *op_schema;
    size_t *schema_ref_off, *schema_ref;
    size_t *op_prod_off, *op_prod; /* indexes into edges */
};

/* ---------------------------------------------------------------- JSON helpers (query.c) */

/** A JSON string of s, or JSON null (NULL) when s is NULL. */
struct json_object *serve_jstr(const char *s);
/** A number written with `decimals` digits after the point (json-c would print 17). */
struct json_object *serve_jnum(double v, int decimals);
/** The string member key of obj, or NULL when absent or not a string. */
const char *serve_jget_str(struct json_object *obj, const char *key);
/** Adds key: value to obj; returns false on OOM (value is put). */
bool serve_jadd(struct json_object *obj, const char *key, struct json_object *value);

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

/** tools/list: the tools array for a revision. */
struct json_object *mcp_tools_list(const mcp_rev_info *rev);
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

#endif /* APIDEX_SERVE_INT_H */
