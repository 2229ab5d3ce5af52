/* The MCP client's private parts: one connection (stdio or HTTP) that sends a JSON-RPC
   message and receives the answer to a request, shared by stdio.c, http.c and session.c. */
#ifndef APIDEX_MCPC_INT_H
#define APIDEX_MCPC_INT_H

#include "mcpc/mcpc.h"

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

/* session.c */
/** Answers the server's request id with "method not found" (we offer no client methods). */
int mcpc_session_refuse(mcpc_conn *c, json_object *id, apidex_error *err);
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
