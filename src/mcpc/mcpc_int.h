/* The MCP client's private parts: one connection (stdio or HTTP) that sends a JSON-RPC
   message and receives the answer to a request, shared by stdio.c, http.c and session.c. */
#ifndef APIDEX_MCPC_INT_H
#define APIDEX_MCPC_INT_H

#include "mcpc/mcpc.h"

#include "net/net.h"

#include <sys/types.h>

struct json_object;
typedef struct json_object json_object;

typedef struct mcpc_conn {
    const mcpc_server *srv;
    const mcpc_options *opt;
    const char *label; /* the server, for messages */
    long timeout_ms;
    size_t total;   /* bytes read so far (MCPC_MAX_TOTAL) */
    bool timed_out; /* the last read failed by its deadline (the server is still there) */
    /* stdio */
    pid_t pid;
    int to_child, from_child, child_err; /* -1 when closed */
    core_buf line;                       /* bytes read: the message being read first */
    size_t scanned;                      /* bytes of line known to hold no newline */
    size_t consumed;                     /* bytes of the message handed out last */
    char err_tail[2048];                 /* the last bytes of the server's stderr */
    size_t err_len;
    /* http */
    char *session_id;       /* Mcp-Session-Id, once the server gave one */
    char *protocol_version; /* MCP-Protocol-Version sent after initialize */
    bool session_gone; /* the server answered 404 (or 400) to our Mcp-Session-Id: it ended it */
} mcpc_conn;

/* stdio.c */
int mcpc_stdio_open(mcpc_conn *c, apidex_error *err);
/** Writes one message (a line) to the server. */
int mcpc_stdio_send(mcpc_conn *c, const char *msg, size_t len, apidex_error *err);
/** Reads the next message line before the deadline (ms, monotonic): *msg (NUL-terminated,
    valid until the next read) and its length. */
int mcpc_stdio_read(mcpc_conn *c, long long deadline, const char **msg, size_t *msg_len,
                    apidex_error *err);
void mcpc_stdio_close(mcpc_conn *c);

/* http.c */
/**
 * POSTs one message; for a request (id >= 0) *answer gets the response with that id (from
 * a JSON body or the server's event stream); for a notification *answer stays NULL.
 */
int mcpc_http_post(mcpc_conn *c, const char *msg, size_t len, long id, struct json_object **answer,
                   apidex_error *err);
void mcpc_http_close(mcpc_conn *c);
/** What every HTTP request to a server carries: the given headers, then the configured ones
    (secret), and the policy (its URL the one origin, no redirect); x must stay where it is
    while used (the policy points into it). APIDEX_ENOMEM. */
typedef struct mcpc_http_parts {
    net_header *h;
    size_t nh;
    const char **secrets;
    size_t ns;
    char **names;
    size_t n_names;
    char *host;
    const char *hosts[1], *origins[1];
    net_policy p; /* timeout and size: the caller's */
} mcpc_http_parts;
int mcpc_http_parts_init(mcpc_http_parts *x, const mcpc_server *s,
                         const char *const *allowed_addresses, const net_header *first,
                         size_t n_first);
void mcpc_http_parts_free(mcpc_http_parts *x);

/* sse.c */
/** One event's data (NUL-terminated, len bytes); false stops the reading. */
typedef bool (*mcpc_sse_fn)(void *ctx, const char *data, size_t len);
/** An event stream read as it arrives: at most max bytes of data an event (a longer line or
    event is skipped to its end, and counted), so memory stays under about 2 * max. */
typedef struct mcpc_sse {
    size_t max;
    core_buf line, data;
    bool skip_line, skip_event, after_cr;
    char last_id[256]; /* the last id: field (Last-Event-ID), "" when none */
    long retry_ms;     /* the last retry: field, -1 when none */
    size_t skipped;    /* events skipped for their size */
} mcpc_sse;
void mcpc_sse_init(mcpc_sse *s, size_t max);
/** Reads n more bytes; events are handed to fn as they end. false when fn said stop. */
bool mcpc_sse_feed(mcpc_sse *s, const char *p, size_t n, mcpc_sse_fn fn, void *ctx);
/** The stream ended: an event still open (no blank line after it) is handed to fn. */
bool mcpc_sse_end(mcpc_sse *s, mcpc_sse_fn fn, void *ctx);
/** A new connection: the event being read is dropped (the last id is kept). */
void mcpc_sse_restart(mcpc_sse *s);
void mcpc_sse_free(mcpc_sse *s);

/* stream.c */
/**
 * The GET event stream of an HTTP server kept open (listen.c): a thread holds it open,
 * reconnects with backoff when it drops (Last-Event-ID when the server gave ids), and says
 * what came by flags and a byte on a pipe: MCPC_STREAM_RELIST (tools/list_changed came, or
 * the stream (re)opened, or, for a server that offers no stream, the poll interval passed)
 * and MCPC_STREAM_GONE (the server forgot the session: start a new one, then resume).
 */
typedef struct mcpc_stream mcpc_stream;
enum { MCPC_STREAM_RELIST = 1u, MCPC_STREAM_GONE = 2u };
/** srv and label are borrowed for the stream's life. APIDEX_ENOMEM or APIDEX_EIO. */
int mcpc_stream_start(const mcpc_server *srv, const char *label, const char *session_id,
                      const char *protocol_version, mcpc_stream **out);
/** Readable when something happened. */
int mcpc_stream_fd(const mcpc_stream *st);
/** What happened since the last call (flags); lines for the log appended to notes. */
unsigned mcpc_stream_take(mcpc_stream *st, core_buf *notes);
/** The new session after MCPC_STREAM_GONE: the stream opens again with it. */
void mcpc_stream_resume(mcpc_stream *st, const char *session_id, const char *protocol_version);
/** Ends the stream and its thread (within about a second). NULL is a no-op. */
void mcpc_stream_stop(mcpc_stream *st);

/* session.c */
/** Answers the server's request id with "method not found" (we offer no client methods). */
int mcpc_session_refuse(mcpc_conn *c, json_object *id, apidex_error *err);
/** The positive integer in the environment variable name, else fallback. */
long mcpc_env_long(const char *name, long fallback);
/** The time limit of each wait: opt's, else $APIDEX_MCP_TIMEOUT_MS, else 30000 ms. */
long mcpc_timeout_ms(const mcpc_options *opt);
/** initialize, notifications/initialized and every list, into doc (as mcpc_list writes it);
    requests use ids from 1 up. */
int mcpc_session_read(mcpc_conn *c, json_object *doc, apidex_error *err);
/** Every page of a list method ("tools/list", key "tools") appended to items; *id: the next
    request id, advanced. */
int mcpc_session_list(mcpc_conn *c, long *id, const char *method, const char *key,
                      json_object *items, apidex_error *err);
/** Parses one message (depth-limited); NULL when it is not JSON. */
struct json_object *mcpc_json_parse(const char *text, size_t len);
/** Milliseconds of the monotonic clock. */
long long mcpc_now_ms(void);
/** Starts or connects to srv, no handshake yet (the one place a connection is set up). */
int mcpc_session_open(mcpc_conn *c, const mcpc_server *srv, const mcpc_options *opt,
                      apidex_error *err);
/** Starts or connects to srv and initializes (request id 1; notifications/initialized sent):
    c is ready for requests from id 2. On error the session is already ended. */
int mcpc_session_start(mcpc_conn *c, const mcpc_server *srv, const mcpc_options *opt,
                       apidex_error *err);
/** One request: *answer the whole message (json_object_put), *result its result object; an
    error answer is APIDEX_ESPEC naming the server, the method and the server's message. */
int mcpc_session_request(mcpc_conn *c, long id, const char *method, struct json_object *params,
                         struct json_object **answer, struct json_object **result,
                         apidex_error *err);
/** Ends the session (stdio: stops the process group; HTTP: DELETE). */
void mcpc_session_end(mcpc_conn *c);
/**
 * Reads what a stdio server sent on its own since (never waits when nothing came; at most
 * wait_ms for the rest of a line): its requests are refused, its notifications skipped,
 * *list_changed (may be NULL) set on notifications/tools/list_changed. 0 when the server is
 * still there; an error when it exited or broke the protocol (end the session).
 */
int mcpc_session_drain(mcpc_conn *c, long wait_ms, bool *list_changed, apidex_error *err);

/* pool.c */
/** Which server s is: name, program, arguments, environment, URL and headers, separated by
    bytes no argument holds (malloc'd; NULL when out of memory). */
char *mcpc_server_key(const mcpc_server *s);
/** A copy of s in a (strings and arrays). APIDEX_ENOMEM. */
int mcpc_server_copy(core_arena *a, const mcpc_server *s, mcpc_server *out);
/** mcpc_call through a pool: params parsed already (borrowed). */
int mcpc_pool_call(mcpc_pool *p, const mcpc_server *srv, const mcpc_options *opt,
                   const char *method, struct json_object *params, char **out, size_t *len,
                   apidex_error *err);

/* call.c */
/** result written out (malloc'd into *out, NUL-terminated). APIDEX_ENOMEM. */
int mcpc_result_text(struct json_object *result, char **out, size_t *len, apidex_error *err);

#endif /* APIDEX_MCPC_INT_H */
