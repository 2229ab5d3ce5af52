/* Shared between the files that make tool definitions (tooldefs*.c). */
#ifndef APIDEX_SERVE_TOOLDEFS_INT_H
#define APIDEX_SERVE_TOOLDEFS_INT_H

#include "serve/serve_int.h"
#include "oas/oas.h"

enum { SERVE_TOOL_NAME_MAX = 64 }; /* OpenAI's and Anthropic's limit for tool names */

/**
 * The tool name of an endpoint (tooldefs_call.c): `API__OPERATIONID` when both are already
 * made of [A-Za-z0-9_-], the API id has no "__" and it fits in 64 characters; otherwise both
 * parts made safe (other characters become "_"; lower-case `method_path` without an
 * operationId), shortened to fit, then "_" and 8 hex digits of the hash of the endpoint id
 * (id: "api:operationId", or another form when two operations share an operationId).
 * Depends on nothing but the endpoint, so it is the same in every request.
 */
void serve_tool_name(const char *api_id, const char *id, const char *operation_id,
                     const char *method, const char *path, char out[SERVE_TOOL_NAME_MAX + 1]);

/**
 * The calling details of an operation (tooldefs_call.c): id, method, path, server (and
 * server_variables), content_type (NULL: no body) and auth. *Caller owns the result.
 */
struct json_object *serve_tool_call(const spec_api *api, const char *id, const spec_operation *op,
                                    const char *content_type);

/* MCP tools (tooldefs_mcp.c): defined as their server listed them. */
/** Whether the operation is an MCP tool (oas/mcp.c). */
bool serve_mcp_tool(const spec_operation *op);
/**
 * The tool's own input or output schema as JSON, its $refs relative to its own root again;
 * NULL when it has none. Caller owns it.
 */
struct json_object *serve_mcp_schema(const spec_operation *op, spec_mcp_schema which);
/** The tool's description as written (its summary when it has none), cut to max bytes at a
    sentence or word end (0: whole). Caller owns it. */
struct json_object *serve_mcp_description(const spec_operation *op, size_t max);
/** Adds what the MCP shape of a Tool has besides name, description and inputSchema: title,
    annotations, outputSchema (those the tool has). */
void serve_mcp_extras(struct json_object *def, const spec_operation *op);
/** The `calls` entry of an MCP tool: id and {server: API id, tool: its name}. */
struct json_object *serve_mcp_call(const char *api_id, const char *id, const spec_operation *op);

/* OpenAI strict-mode rewriting (tooldefs_strict.c). */
typedef struct strict_ctx {
    struct json_object *json_strings; /* argument pointers made JSON strings (borrowed) */
    size_t props, enums, chars;       /* running totals against OpenAI's limits */
} strict_ctx;

/**
 * A strict-mode copy of JSON Schema s (made by tooldefs.c): nullable when the value may be
 * left out. pointer is s's argument path (a JSON pointer; "*" for array items), depth its
 * object nesting. Caller owns the result; s is not changed.
 */
struct json_object *serve_schema_strict(strict_ctx *c, struct json_object *s, bool nullable,
                                        const char *pointer, unsigned depth);

#endif /* APIDEX_SERVE_TOOLDEFS_INT_H */
