/*
 * serve: apidex as a server for agents and programs. One index, four queries
 * (search, endpoint details, API catalog, ask), three faces: an MCP server over
 * stdio and over Streamable HTTP, and a plain HTTP JSON API.
 *
 * Design notes
 * - The queries live in one place (query.c) and produce json-c objects; the
 *   HTTP routes and the MCP tools only translate arguments and wrap results,
 *   so the two faces can never disagree about what an endpoint is.
 * - Hot reload without failing requests in flight: a serve_db hands out
 *   reference-counted snapshots (an open index, its search engine and the API
 *   table). A request acquires one snapshot and uses it to the end.
 * - Opening a snapshot reads no operation, schema or edge row (at directory
 *   scale that was seconds and hundreds of MB per start): the engine
 *   opens from the search image, and the operations a request names are found
 *   in its table (search_engine_find_operation, _operations) with their
 *   summaries read by rowid. An endpoint's detail, ask_api and tool
 *   definitions still load every operation row on their first use
 *   (store_operations, once per snapshot). tests/unit/test_serve_open_cost.c
 *   counts the tables read.
 *   At most once per check interval an acquire stats the file; when a build
 *   has replaced it (builds rename a new file over the old one, see store.h),
 *   one thread opens the new file while the others keep using the old
 *   snapshot, then swaps it in. The old snapshot is freed when its last
 *   request releases it. A failed reload keeps the old snapshot and retries.
 * - MCP is dual-era. A message whose params._meta carries
 *   io.modelcontextprotocol/protocolVersion is served statelessly by the
 *   2026-07-28 rules (per-request metadata, server/discover, resultType,
 *   cacheable lists); an `initialize` without that claim starts the 2025-era
 *   handshake (2025-11-25 and the revisions before it), scoped to the stdio
 *   process or to an HTTP session (Mcp-Session-Id). Results carry exactly the
 *   fields the negotiated revision's schema defines. docs/CLIENTS.md records
 *   how the specification text was read where it leaves room.
 * - Nothing here trusts its input: JSON nesting, body and header sizes, the
 *   number of connections and sessions, request time and result sizes are all
 *   capped, and every malformed input gets a JSON-RPC error or a 4xx.
 */
#ifndef APIDEX_SERVE_H
#define APIDEX_SERVE_H

#include "exec/exec.h"
#include "search/search.h"
#include "store/store.h"
#include "view/view.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;

/* ---------------------------------------------------------------- the served index */

/** A reloadable index. Thread-safe. */
typedef struct serve_db serve_db;
/** One generation of the index: valid from acquire to release, whatever reloads happen. */
typedef struct serve_snapshot serve_snapshot;

/**
 * Opens the index at path and its search engine. check_interval_s: how often
 * (at most) an acquire looks for a rebuilt file; 0 = on every acquire, < 0 =
 * never. Errors as store_open. *out: serve_db_close.
 */
int serve_db_open(const char *path, double check_interval_s, serve_db **out, apidex_error *err);

/** How a served index is searched (every snapshot's engine, every search and ask). */
typedef struct serve_search_config {
    search_mode mode;                /* lexical (default), dense or hybrid */
    double hybrid_weight;            /* search_query.hybrid_weight (0 = rank fusion) */
    struct embed_provider *embedder; /* dense and hybrid: the provider the index's vectors
                                        were built with; not owned, outlives the db */
    const search_params *params;     /* every search's parameters (NULL: the defaults);
                                        usage_weight > 0: reported uses are weighed; not
                                        owned, outlives the db */
} serve_search_config;
/**
 * serve_db_open, searching as cfg says (NULL: lexical). A dense or hybrid mode is tried
 * on the index when it is opened or reloaded: an index without matching vectors is
 * refused then (a reload keeps the old one), not at every request.
 */
int serve_db_open_search(const char *path, double check_interval_s, const serve_search_config *cfg,
                         serve_db **out, apidex_error *err);
/** The search configuration the db was opened with. */
const serve_search_config *serve_db_search(const serve_db *db);
/** NULL is a no-op. Every snapshot must have been released. */
void serve_db_close(serve_db *db);
/**
 * The current snapshot, with a reference the caller must release. Reloads
 * first when the file was replaced (see the design notes). Never NULL.
 */
serve_snapshot *serve_db_acquire(serve_db *db);
/** Drops a reference (NULL is a no-op); the last one frees an outdated snapshot. */
void serve_snapshot_release(serve_snapshot *snap);
/** Successful reloads so far. */
uint64_t serve_db_reloads(serve_db *db);
/** Reload attempts that failed (the old snapshot stayed). */
uint64_t serve_db_reload_failures(serve_db *db);
/** The index path. */
const char *serve_db_path(const serve_db *db);
/** How a db on a server database follows its publishes (/healthz, /metrics). */
typedef struct serve_store_status {
    long long served, published; /* generations: the one served, the last one seen */
    bool connected;
    uint64_t reconnects, notifications;
    size_t fetched_rows, fetched_bytes; /* read from the server by the generation served */
    char error[256];
} serve_store_status;
/** Fills out and returns true for a server database; false for an index file. */
bool serve_db_store_status(serve_db *db, serve_store_status *out);

store_index *serve_snapshot_index(const serve_snapshot *snap);
search_engine *serve_snapshot_engine(const serve_snapshot *snap);
/** Facts about the snapshot's index (counts, build id). */
const store_info *serve_snapshot_info(const serve_snapshot *snap);

/* ---------------------------------------------------------------- queries (query.c) */

/** Arguments of a search. Lists are NULL-terminated, NULL = no filter. */
typedef struct serve_search_args {
    const char *task;
    size_t k; /* 0 = default (10) */
    bool adaptive;
    const char *const *apis;
    const char *const *tags;
    const char *const *methods;
    bool include_deprecated;
    bool compact; /* MCP summary shape instead of the CLI/HTTP shape */
} serve_search_args;

struct agent_llm;

/** Arguments of ask. */
typedef struct serve_ask_args {
    const char *task;
    const char *const *apis; /* NULL-terminated, NULL = all */
    size_t budget;           /* cl100k tokens for the context; 0 = default */
    struct agent_llm *llm; /* answer over the context with it (docs/LLM.md); NULL = context only */
} serve_ask_args;

/* Limits the queries enforce whatever the caller asks (documented in the tool schemas). */
enum {
    SERVE_MAX_K = 100,           /* endpoints per search */
    SERVE_MAX_TOOL_IDS = 256,    /* ids per GET /v1/tools */
    SERVE_MAX_TASK = 4000,       /* bytes of a task */
    SERVE_MAX_FILTERS = 32,      /* values per filter */
    SERVE_DEFAULT_BUDGET = 4000, /* ask: tokens of context */
    SERVE_MIN_BUDGET = 200,
    SERVE_MAX_BUDGET = 32000
};

/**
 * The queries. Each returns a new json-c object in *out (caller puts it) or a
 * status: APIDEX_EINVAL for bad arguments, APIDEX_ENOTFOUND for an unknown
 * endpoint or API (err->message says what to do), APIDEX_ENOMEM. Thread-safe.
 */
int serve_query_search(serve_snapshot *snap, const serve_search_args *args,
                       struct json_object **out, apidex_error *err);
/**
 * By id, or by method + path (+ api when several APIs have it; placeholder names may differ),
 * at detail level `detail` ("summary", "call", "full"; NULL = "call"): serve_endpoint_detail.
 */
int serve_query_endpoint(serve_snapshot *snap, const char *id, const char *method, const char *path,
                         const char *api, const char *detail, struct json_object **out,
                         apidex_error *err);
/** The catalog: every API with its operation counts and tags. */
int serve_query_apis(serve_snapshot *snap, struct json_object **out, apidex_error *err);
/**
 * The list_apis page (catalog.c): APIs largest first, page of them from the one cursor
 * names (NULL = the first), each as {id, about} with about one short plain-text line
 * (title, version, operations, largest tags, the description's start); count, n_operations
 * and, when more follow, nextCursor. An unknown cursor is APIDEX_EINVAL. Thread-safe.
 */
int serve_query_api_page(serve_snapshot *snap, const char *cursor, size_t page,
                         struct json_object **out, apidex_error *err);
/** One API with its operations (the apidex://apis/{api} resource). */
int serve_query_api(serve_snapshot *snap, const char *api, struct json_object **out,
                    apidex_error *err);
/** askAPI: the endpoints a task needs and the context assembled within a budget. */
int serve_query_ask(serve_snapshot *snap, const serve_ask_args *args, struct json_object **out,
                    apidex_error *err);

/* ---------------------------------------------------------------- calls (call.c) */

/**
 * What call_endpoint and POST /v1/call may do: nothing unless enabled (apidex serve|mcp
 * --allow-calls); then the rules of `apidex call` (docs/EXECUTE.md) in policy: GET/HEAD/OPTIONS
 * only unless allow_write, the hosts of the spec's servers plus policy.allowed_hosts, no
 * private address unless allow_private or listed in allowed_addresses, its timeouts and size
 * cap. Strings and arrays are borrowed for the server's life.
 */
typedef struct serve_call_config {
    bool enabled;
    exec_policy policy;         /* allowed_hosts: the extra ones (--allow-host) */
    struct exec_oauth *oauth;   /* OAuth2 client-credentials tokens (thread-safe), or NULL */
    struct mcpc_pool *sessions; /* MCP sessions kept open between calls (thread-safe), or NULL */
} serve_call_config;

/**
 * Calls an endpoint of the index as `apidex call --json` does, for the MCP tool
 * call_endpoint and POST /v1/call. args: {endpoint: id or "METHOD /path", api, params:
 * {name: value}, body, server, select, budget, max_items, dry_run}. *out: the shaped response
 * (status, url, headers, body, schema, pagination, notes) or, with dry_run, the request
 * (secrets masked) and its curl command. Errors: APIDEX_EREFUSED (calls off, or a safety rule:
 * the message names it), APIDEX_EINVAL (bad arguments, inputs the spec refuses),
 * APIDEX_ENOTFOUND (no such endpoint), APIDEX_ENET (the network). Messages hold no secret.
 * Thread-safe.
 */
int serve_query_call(serve_snapshot *snap, const serve_call_config *cfg, struct json_object *args,
                     struct json_object **out, apidex_error *err);

/* ---------------------------------------------------------------- JSON-RPC (jsonrpc.c) */

/* JSON-RPC 2.0 error codes, and those MCP defines. */
enum {
    JRPC_PARSE_ERROR = -32700,
    JRPC_INVALID_REQUEST = -32600,
    JRPC_METHOD_NOT_FOUND = -32601,
    JRPC_INVALID_PARAMS = -32602,
    JRPC_INTERNAL_ERROR = -32603,
    MCP_RESOURCE_NOT_FOUND_2025 = -32002, /* 2025-11-25 and before; -32602 since 2026-07-28 */
    MCP_HEADER_MISMATCH = -32020,
    MCP_MISSING_CLIENT_CAPABILITY = -32021,
    MCP_UNSUPPORTED_PROTOCOL_VERSION = -32022
};

typedef enum {
    JRPC_REQUEST = 1,
    JRPC_NOTIFICATION,
    JRPC_RESPONSE,
    JRPC_BATCH /* a JSON array: no MCP revision we serve allows batches */
} jrpc_kind;

/** One decoded message. Pointers borrow from root, which the message owns. */
typedef struct jrpc_msg {
    jrpc_kind kind;
    struct json_object *root;
    struct json_object *id;     /* requests and responses; NULL otherwise */
    const char *method;         /* requests and notifications */
    struct json_object *params; /* NULL when absent */
    /* Where a string holds a NUL character (\u0000), e.g. "params.arguments.task" or
       "a member name"; "" when none. C strings would cut the value there, so the MCP
       layer refuses such a message instead (mcp.c). */
    char nul_at[96];
} jrpc_msg;

/** Most JSON nesting a message may have. */
#define JRPC_MAX_DEPTH 64

/**
 * Decodes one message. Returns 0, or a JSON-RPC error code (JRPC_PARSE_ERROR,
 * JRPC_INVALID_REQUEST) with msg->id set when the id could be read (for the
 * error response) and why[0..why_size) saying what is wrong. msg_free in
 * every case.
 */
int jrpc_parse(const char *text, size_t len, jrpc_msg *msg, char *why, size_t why_size);
/** Frees the message's tree (NULL or zeroed is a no-op). */
void jrpc_msg_free(jrpc_msg *msg);
/** {"jsonrpc":"2.0","id":id,"result":result} serialised; takes result. malloc'd, NULL on OOM. */
char *jrpc_result(struct json_object *id, struct json_object *result, size_t *len);
/**
 * {"jsonrpc":"2.0","id":id,"error":{...}} serialised; id may be NULL (the
 * member is then left out, as MCP's schema wants for unreadable ids); takes
 * data (may be NULL). malloc'd, NULL on OOM.
 */
char *jrpc_error(struct json_object *id, int code, const char *message, struct json_object *data,
                 size_t *len);
/** Compact serialisation of a json-c object (malloc'd copy, NULL on OOM). */
char *serve_json_dump(struct json_object *obj, size_t *len);

/* ---------------------------------------------------------------- MCP (mcp*.c) */

/** An MCP server over one serve_db: tools, resources, revisions, HTTP sessions. Thread-safe. */
typedef struct mcp_server mcp_server;

/** Sessions one client address may hold by default (mcp_server_options). */
#define MCP_SESSIONS_PER_CLIENT 64

typedef struct mcp_server_options {
    bool private_cache;             /* cacheScope "private" (set when requests are authenticated) */
    struct agent_llm *llm;          /* ask_api answers with it (borrowed); NULL = context only */
    size_t max_sessions;            /* HTTP 2025-era sessions kept at once (0 = 1024) */
    size_t max_sessions_per_client; /* of them, one client address's (0 = 64) */
    double session_idle_s;          /* an idle session expires after this (0 = 3600 s) */
    const serve_call_config *calls; /* call_endpoint (borrowed); NULL or not enabled: no tool */
} mcp_server_options;

/** opt may be NULL. The server borrows db. *out: mcp_server_free. */
int mcp_server_new(serve_db *db, const mcp_server_options *opt, mcp_server **out,
                   apidex_error *err);
void mcp_server_free(mcp_server *srv);

/** The revisions served, newest first (NULL-terminated, static). */
extern const char *const mcp_supported_revisions[];

/**
 * The 2025-era state of one stdio process: whether `initialize` has been seen
 * and which revision was negotiated. 2026-07-28 requests ignore it.
 */
typedef struct mcp_stdio_state {
    int legacy_rev;              /* index into mcp_supported_revisions, -1 before initialize */
    struct mcp_listen **listens; /* open subscriptions/listen requests (2026-07-28) */
    size_t n_listens;
    uint64_t build_seen; /* the index build last reported (0 = none yet) */
} mcp_stdio_state;

/** Frees the subscriptions a stdio state holds (the state itself is the caller's). */
void mcp_stdio_state_clear(mcp_stdio_state *st);
/**
 * Reports an index rebuild: when the served index changed since the last
 * call, the notifications due (list_changed / updated on each subscription,
 * and list_changed to an initialized 2025-era client), as lines joined by
 * '\n' (malloc'd), else NULL.
 */
char *mcp_stdio_poll(mcp_server *srv, mcp_stdio_state *st, size_t *len);

/**
 * Handles one stdio message (a line without its newline). *reply is the
 * response line (malloc'd, no newline) or NULL when none is due
 * (notifications, responses).
 */
int mcp_handle_stdio(mcp_server *srv, mcp_stdio_state *st, const char *line, size_t len,
                     char **reply, size_t *reply_len);

/**
 * Serves the MCP protocol over stdin/stdout until EOF or until *stop becomes
 * true (a signal handler sets it). Lines over max_line bytes are answered with
 * a parse error and skipped. Returns 0 at EOF.
 */
int mcp_serve_stdio(mcp_server *srv, int in_fd, int out_fd, size_t max_line, volatile int *stop);

/** What the HTTP layer passes in for one request to the MCP endpoint. */
typedef struct mcp_http_request {
    const char *client;       /* the client's address (session quota); NULL = unknown */
    const char *http_method;  /* "POST", "GET", "DELETE", ... */
    const char *content_type; /* NULL when absent */
    const char *accept;
    const char *protocol_version; /* MCP-Protocol-Version */
    const char *session_id;       /* Mcp-Session-Id */
    const char *mcp_method;       /* Mcp-Method */
    const char *mcp_name;         /* Mcp-Name */
    const char *body;
    size_t body_len;
} mcp_http_request;

/** The answer. Strings are malloc'd (mcp_http_response_clear). */
typedef struct mcp_http_response {
    int status;
    char *body; /* NULL for none (202, 405, ...) */
    size_t body_len;
    char *session_id;       /* Mcp-Session-Id to send (a new session), or NULL */
    const char *allow;      /* Allow header for 405, static */
    const char *rpc_method; /* the JSON-RPC method, for logs and metrics (static or NULL) */
    /* A subscriptions/listen was opened: body is its acknowledgement, and the
       answer is an event stream that stays open (the HTTP layer takes this). */
    struct mcp_listen *listen;
} mcp_http_response;

/** Handles one HTTP request to the MCP endpoint (Streamable HTTP, both eras). */
void mcp_handle_http(mcp_server *srv, const mcp_http_request *req, mcp_http_response *out);
void mcp_http_response_clear(mcp_http_response *r);
/** 2025-era HTTP sessions currently open. */
size_t mcp_session_count(mcp_server *srv);

/* ---------------------------------------------------------------- HTTP server (http.c) */

typedef struct serve_http_options {
    const char *listen;       /* "HOST:PORT" (default 127.0.0.1:8080; port 0 = any free port) */
    const char *token;        /* bearer token; NULL = no authentication */
    unsigned threads;         /* worker threads (0 = number of CPUs, at most 16) */
    size_t max_body;          /* bytes of a request body (0 = 1 MiB) */
    size_t max_header;        /* bytes of the request line + headers (0 = 16 KiB) */
    unsigned max_connections; /* open connections (0 = 256) */
    unsigned timeout_s;       /* idle connection timeout and request deadline (0 = 30 s) */
    /* from a connection opening (or its previous answer) to the end of its request
       headers, however slowly they come (0 = 10 s) */
    double header_timeout_s;
    /* connections one client address may hold (0 = a quarter of max_connections, at
       most 64; negative = no limit) */
    int max_conns_per_client;
    const char *const *cors_origins; /* NULL-terminated; NULL = CORS off; "*" = any */
    int access_log_fd;               /* structured access log (JSON lines); -1 = none */
    struct agent_llm *llm;           /* POST /v1/ask answers with it (borrowed); NULL = none */
    bool allow_remote;               /* listen on a non-loopback address */
    const serve_call_config *calls;  /* POST /v1/call (borrowed); NULL or not enabled: 403 */
} serve_http_options;

typedef struct serve_http serve_http;

/**
 * Starts the HTTP server (routes of docs/CLIENTS.md, MCP at /mcp) on its own
 * threads. Binding anything but a loopback address needs allow_remote.
 * *out: serve_http_stop.
 */
int serve_http_start(serve_db *db, mcp_server *mcp, const serve_http_options *opt, serve_http **out,
                     apidex_error *err);
/** The port actually bound (useful with port 0). */
unsigned serve_http_port(const serve_http *h);
/** Stops accepting, finishes requests in flight, frees. NULL is a no-op. */
void serve_http_stop(serve_http *h);

/* ---------------------------------------------------------------- apidex's own API
 * (openapi_self.c) */

/**
 * apidex's HTTP API as an OpenAPI 3.1 document: JSON text built once from the route table and
 * src/serve/openapi_self.json, owned by the library for the process's life (thread-safe).
 * NULL, with err set, when the two disagree (a mistake of the source, not of the input).
 */
const char *serve_openapi_document(apidex_error *err);
/**
 * The document from data (the text of an openapi_self.json): info.version set to this
 * version, paths in the route table's order. *out is malloc'd (caller frees). APIDEX_EINVAL
 * naming the path when the data documents a path or method the table has not, or the
 * other way round.
 */
int serve_openapi_build(const char *data, size_t len, char **out, apidex_error *err);
/**
 * The schema of one input of an operation of doc (the parsed document): the parameter named
 * name of paths[path][method] (method lower-case), else the property name of its JSON
 * request body (a local $ref followed). A new object (caller puts it), NULL when absent.
 * The MCP tools take the schemas they share with an HTTP route from here (mcp_tools.c).
 */
struct json_object *serve_openapi_schema(struct json_object *doc, const char *path,
                                         const char *method, const char *name);

/* ---------------------------------------------------------------- function definitions
 * (tooldefs.c; each one is view_tool_define's) */

/**
 * Tool definitions for the given operations (ids as in the index; one asked for twice is
 * defined once), as {"tools": [definitions in the shape fmt asks for], "calls": {name:
 * {id, method, path, server, server_variables, content_type, auth, json_strings}}}.
 * Names are stable and unique across an index ([A-Za-z0-9_-]{1,64}, see view_tool_name);
 * each description is METHOD /path, summary and description; each schema an object with
 * the arguments grouped by location (path, query, header, cookie, body), $refs inlined to a
 * bounded depth, and for OpenAI rewritten for strict mode. docs/CLIENTS.md has the details.
 * The specs are re-read from the documents the index names. *out: json_object_put.
 */
int serve_tooldefs(store_index *idx, const char *const *ids, size_t n_ids, view_tool_format fmt,
                   struct json_object **out, apidex_error *err);

/**
 * Operation oi of the index (store_operations()) at a detail level, as view_detail_json
 * writes it (the API's document is read again) plus "producers": the endpoints that produce
 * its inputs, best first (not at the summary level). The one rendering behind `apidex show`,
 * MCP get_endpoint and HTTP /v1/endpoints. *out: json_object_put. APIDEX_ENOTFOUND when the
 * document no longer has the operation (the message says to rebuild the index).
 */
int serve_endpoint_detail(store_index *idx, long oi, int level, struct json_object **out,
                          apidex_error *err);

/**
 * serve_tooldefs for a server (GET /v1/tools): for the ids given, or (n_ids 0) for the
 * endpoints of a task as the server searches (k 0: its adaptive answer set; else the top
 * k, at most 100). Exactly one of the two; an empty task is APIDEX_EINVAL.
 */
int serve_query_tools(serve_snapshot *snap, const char *const *ids, size_t n_ids, const char *task,
                      size_t k, view_tool_format fmt, struct json_object **out, apidex_error *err);

#endif /* APIDEX_SERVE_H */
