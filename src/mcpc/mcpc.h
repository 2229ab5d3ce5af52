/*
 * mcpc: the MCP client. It reaches a Model Context Protocol server (a program started over
 * stdio, or a Streamable HTTP URL), initializes a session and reads what the server offers
 * (tools/list, all pages; resources and prompts when the server says it has them), and
 * writes it as one JSON document that the oas stage loads like any other source
 * (oas/mcp.c). docs/MCP-SOURCES.md is the reference.
 *
 * Design notes
 * - A server is untrusted input. Every wait has a deadline (the start and each answer),
 *   one message is at most MCPC_MAX_MESSAGE bytes and a whole session at most
 *   MCPC_MAX_TOTAL, JSON is parsed with a depth limit; a server that breaks a rule is an
 *   error naming the server, never a crash or a hang.
 * - A stdio server runs in a process group of its own (posix_spawnp, no shell), so the
 *   helpers a launcher such as npx starts are stopped with it; its stderr is drained, and
 *   its last lines go into the error when it fails.
 * - HTTP goes through net_send (net/net.h) with the URL the user named as the one allowed
 *   origin (loopback included, as for URL sources), no redirects, and the headers marked
 *   secret.
 */
#ifndef APIDEX_MCPC_H
#define APIDEX_MCPC_H

#include "core/core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    MCPC_MAX_MESSAGE = 16 << 20, /* bytes of one JSON-RPC message (one line over stdio) */
    MCPC_MAX_TOTAL = 64 << 20,   /* bytes a session may read in all */
    MCPC_MAX_PAGES = 1000,       /* pages of one list */
    MCPC_MAX_ITEMS = 10000,      /* tools (resources, prompts) kept of one list */
    MCPC_MAX_DEPTH = 256         /* JSON nesting of a message */
};

/** One server: a program (stdio) or a URL (Streamable HTTP). Strings are borrowed. */
typedef struct mcpc_server {
    const char *name;        /* the server's name in its config, or NULL (derived) */
    const char *const *argv; /* stdio: program and arguments, NULL-terminated; else NULL */
    const char *const *env;  /* stdio: "KEY=VALUE" set on top of apidex's environment */
    size_t n_env;
    const char *url;            /* http: the endpoint URL; else NULL */
    const char *const *headers; /* http: "Name: value" pairs sent on every request */
    size_t n_headers;
} mcpc_server;

/** Client options; zero is the default for every field. */
typedef struct mcpc_options {
    long timeout_ms; /* the start and each answer; 0 = $APIDEX_MCP_TIMEOUT_MS, else 30000 */
    /* private addresses (IP literals, NULL-terminated) an HTTP server other than the one
       named may reach: none (the named URL's origin is allowed, loopback included) */
    const char *const *allowed_addresses;
} mcpc_options;

/**
 * Starts or connects to the server, initializes, reads its tools (all pages), resources,
 * resource templates and prompts (when offered), and ends the session. *doc: the document
 * oas/mcp.c loads (malloc'd, NUL-terminated; free), *len its length. Errors name the
 * server and say what happened: APIDEX_ENOTFOUND (the program does not exist), APIDEX_ENET
 * (it exited, closed, timed out, or the HTTP exchange failed), APIDEX_EREFUSED (the address
 * rule), APIDEX_ESPEC (it broke the protocol), APIDEX_ELIMIT (a size limit), APIDEX_ENOMEM.
 */
int mcpc_list(const mcpc_server *srv, const mcpc_options *opt, char **doc, size_t *len,
              apidex_error *err);

/**
 * The hash of a document mcpc_list wrote (hash.c): XXH3-64 of its canonical JSON (object
 * keys sorted; its top-level lists, such as the tools, as sets), so the order a server
 * lists its tools or writes their keys in does not count as a change. The index keeps it as
 * the source's content hash: re-indexing rebuilds a server only when it changed.
 * APIDEX_ESPEC when doc is not a JSON object, APIDEX_ENOMEM / APIDEX_ELIMIT.
 */
int mcpc_document_hash(const char *doc, size_t len, uint64_t *hash);

/* ---------------------------------------------------------------- kept open (listen.c) */

/**
 * A server kept open after it was read (serve --watch): its session stays up so the server
 * can send notifications/tools/list_changed, upon which its tools are read again over the
 * same session. A stdio server sends it on its stdout; a Streamable HTTP server on the GET
 * event stream of its session, which a thread of the listener holds open (stream.c:
 * reconnected with backoff, Last-Event-ID; a new session when the server forgot this one;
 * a server that answers the GET 405 has its tools read again every $APIDEX_MCP_POLL_MS,
 * default 60 s). While it is open, mcpc_list of the same server (same name, command,
 * arguments, environment, URL and headers) answers the document as last read, from any
 * thread, without starting the server or a session again.
 */
typedef struct mcpc_listener mcpc_listener;

/**
 * Starts (or connects to) the server srv (copied), reads its document (as mcpc_list) and
 * keeps the session (opt: its time limit only). Errors as mcpc_list's.
 */
int mcpc_listen_open(const mcpc_server *srv, const mcpc_options *opt, mcpc_listener **out,
                     apidex_error *err);

/** The descriptors to poll for input (stdio: the server's stdout and stderr; HTTP: the
    stream's wake-up pipe and -1; -1 when closed). */
void mcpc_listen_fds(const mcpc_listener *l, int fds[2]);

/**
 * Reads what the server sent (call when a descriptor is readable; never blocks for long,
 * but for the tools/list it asks). On notifications/tools/list_changed (HTTP: also when the
 * event stream (re)opens, and at each poll of a server without one), reads the tools again
 * over the session and updates the document; an HTTP server that forgot the session gets a
 * new one, read afresh. Returns 1 when the document changed, 0 when nothing did, or an
 * error: the server exited or broke the protocol (close it; mcpc_list starts it afresh).
 */
int mcpc_listen_read(mcpc_listener *l, apidex_error *err);

/** Lines for the log since the last call (HTTP: the event stream opened, closed, absent),
    into buf (NUL-terminated, cut at cap); their length (0: none). */
size_t mcpc_listen_news(mcpc_listener *l, char *buf, size_t cap);

/** The server's name for messages (its config name, else its program or URL). */
const char *mcpc_listen_label(const mcpc_listener *l);

/** Whether l runs the server srv names (same name, command, arguments, environment, URL
    and headers). */
bool mcpc_listen_is(const mcpc_listener *l, const mcpc_server *srv);

/** Ends the session and the server; NULL is a no-op. */
void mcpc_listen_close(mcpc_listener *l);

/** mcpc_list's answer from a listener of srv: true and *doc (malloc'd) when one is open. */
bool mcpc_live_document(const mcpc_server *srv, char **doc, size_t *len);

/* ---------------------------------------------------------------- sources (source.c) */

/** Whether s is an MCP source string: "mcp+stdio:...", "mcp+http(s)://...", "mcp+config:...". */
bool mcpc_is_source(const char *s);

/** The servers of one source string or config file; everything lives in arena. */
typedef struct mcpc_servers {
    mcpc_server *items;
    size_t n;
    const char *config; /* the config file of "mcp+config:FILE[#NAME]" (FILE), else NULL */
} mcpc_servers;

/**
 * The servers an MCP source string names: "mcp+stdio:PROGRAM ARG..." (split like a shell:
 * blanks, '...', "...", backslash; no shell runs), "mcp+http://..." / "mcp+https://...", or
 * "mcp+config:FILE" (every server of a client config: {"mcpServers": {NAME: {"command",
 * "args", "env"} | {"url", "headers", "type"}}}; VS Code's "servers" too). ${VAR} and
 * ${env:VAR} in env values, header values and args are read from the environment.
 * APIDEX_EINVAL / APIDEX_ENOTFOUND / APIDEX_EIO with the file and what is wrong.
 */
int mcpc_source_parse(const char *source, core_arena *arena, mcpc_servers *out, apidex_error *err);

/* ---------------------------------------------------------------- calling (call.c, pool.c) */

/**
 * Sessions kept open between calls (apidex serve / apidex mcp): one per server (the same
 * name, command, arguments, environment, URL and headers), started by the first call and
 * re-used by the next ones instead of starting the server per call. At most max_sessions
 * are kept (an idle one is ended for a new one; when all are busy the new one ends after its
 * call); one idle for idle_ms is ended by the pool's thread, as is a stdio server that
 * exited while idle; a server found dead when a call takes its session is started again.
 * Thread-safe: a session serves one call at a time (two calls at once to one server use
 * two sessions).
 */
typedef struct mcpc_pool mcpc_pool;

/**
 * A pool (0: $APIDEX_MCP_SESSIONS, else 8 sessions; 0: $APIDEX_MCP_IDLE_MS, else 300000 ms).
 * NULL when out of memory or when its thread cannot start. mcpc_pool_free ends them all.
 */
mcpc_pool *mcpc_pool_new(size_t max_sessions, long idle_ms);

/** Ends every session and the pool's thread; no call may be running. NULL is a no-op. */
void mcpc_pool_free(mcpc_pool *p);

/** The sessions open now (busy or idle), for tests and logs. */
size_t mcpc_pool_open_count(mcpc_pool *p);

/**
 * One request of a caller to the server: method is "tools/call", "resources/read" or
 * "prompts/get" (any other is APIDEX_EINVAL: a caller reads and calls, never lists or
 * subscribes through here), params a JSON object's text (NULL: {}). Without a pool the
 * server is started (or connected to), initialized, asked and ended; with one, a session of
 * the pool is used (docs above). *result: the answer's result object as the server wrote it
 * (malloc'd, NUL-terminated; free), *len its length. A tool that fails answers a result with
 * isError: true, which is no error here. An error answer of the server (unknown tool or
 * resource, invalid arguments) is APIDEX_ESPEC with its message; the rest as mcpc_list's
 * (opt->timeout_ms is the limit of the start and of the answer).
 */
int mcpc_call(const mcpc_server *srv, const mcpc_options *opt, mcpc_pool *pool, const char *method,
              const char *params, char **result, size_t *len, apidex_error *err);

#endif /* APIDEX_MCPC_H */
