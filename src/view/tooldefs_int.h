/* Shared between the files that make tool definitions (tooldefs*.c). */
#ifndef APIDEX_VIEW_TOOLDEFS_INT_H
#define APIDEX_VIEW_TOOLDEFS_INT_H

#include "view/view.h"
#include "text/text.h"

#include <json-c/json.h>

/**
 * The calling details of an operation (tooldefs_call.c): id, method, path, server (and
 * server_variables), content_type (NULL: no body) and auth. *Caller owns the result.
 */
struct json_object *view_tool_call(const spec_api *api, const char *id, const spec_operation *op,
                                   const char *content_type);

/* MCP tools (tooldefs_mcp.c): defined as their server listed them. */
/** Whether the operation is an MCP tool (oas/mcp.c). */
bool view_tool_mcp_is(const spec_operation *op);
/**
 * The tool's own input or output schema as JSON, its $refs relative to its own root again;
 * NULL when it has none. Caller owns it.
 */
struct json_object *view_tool_mcp_schema(const spec_operation *op, spec_mcp_schema which);
/** The tool's description as written (its summary when it has none), cut to max bytes at a
    sentence or word end (0: whole). Caller owns it. */
struct json_object *view_tool_mcp_description(const spec_operation *op, size_t max);
/** Adds what the MCP shape of a Tool has besides name, description and inputSchema: title,
    annotations, outputSchema (those the tool has). */
void view_tool_mcp_extras(struct json_object *def, const spec_operation *op);
/** The `calls` entry of an MCP tool: id and {server: API id, tool: its name}. */
struct json_object *view_tool_mcp_call(const char *api_id, const char *id,
                                       const spec_operation *op);

/* OpenAI strict-mode rewriting (tooldefs_strict.c). */
typedef struct view_tool_strict_ctx {
    struct json_object *json_strings; /* argument pointers made JSON strings (borrowed) */
    size_t props, enums, chars;       /* running totals against OpenAI's limits */
} view_tool_strict_ctx;

/**
 * A strict-mode copy of JSON Schema s (made by tooldefs.c): nullable when the value may be
 * left out. pointer is s's argument path (a JSON pointer; "*" for array items), depth its
 * object nesting. Caller owns the result; s is not changed.
 */
struct json_object *view_tool_strict(view_tool_strict_ctx *c, struct json_object *s, bool nullable,
                                     const char *pointer, unsigned depth);

#endif /* APIDEX_VIEW_TOOLDEFS_INT_H */
