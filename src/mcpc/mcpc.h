/*
 * mcpc: the MCP client. It reaches a Model Context Protocol server (a program started over
 * stdio, or a Streamable HTTP URL), initializes a session and reads what the server offers
 * (tools/list, all pages; resources and prompts when the server says it has them), and
 * writes it as one JSON document that the spec stage loads like any other source
 * (spec/mcp.c). docs/MCP-SOURCES.md is the reference.
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
 * spec/mcp.c loads (malloc'd, NUL-terminated; free), *len its length. Errors name the
 * server and say what happened: APIDEX_ENOTFOUND (the program does not exist), APIDEX_ENET
 * (it exited, closed, timed out, or the HTTP exchange failed), APIDEX_EREFUSED (the address
 * rule), APIDEX_ESPEC (it broke the protocol), APIDEX_ELIMIT (a size limit), APIDEX_ENOMEM.
 */
int mcpc_list(const mcpc_server *srv, const mcpc_options *opt, char **doc, size_t *len,
              apidex_error *err);

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

/* ---------------------------------------------------------------- calling a tool (call.c) */

/**
 * Calls tool `tool` of the server: starts or connects to it, initializes, sends tools/call
 * with arguments (a JSON object's text; NULL: {}), and ends the session. *result: the
 * call's result object as the server wrote it ({"content": [...], "structuredContent",
 * "isError"}; malloc'd, NUL-terminated; free), *len its length. A tool that fails answers
 * a result with isError: true, which is no error here. An error answer of the server
 * (unknown tool, invalid arguments) is APIDEX_ESPEC with its message; the rest as
 * mcpc_list's (opt->timeout_ms is the limit of the start and of the call's answer).
 */
int mcpc_call_tool(const mcpc_server *srv, const mcpc_options *opt, const char *tool,
                   const char *arguments, char **result, size_t *len, apidex_error *err);

#endif /* APIDEX_MCPC_H */
