/*
 * The view stage: what is shown of the model, made from an operation of a loaded document
 * (src/oas) and nothing else: no index, no request. Its faces (serve, cli) pick the
 * operations and say where the text goes.
 */
#ifndef APIDEX_VIEW_H
#define APIDEX_VIEW_H

#include "core/core.h"
#include "oas/oas.h"

/* ---- tool definitions (tooldefs*.c) ---- */

struct json_object;

/** The shape of a tool definition. */
typedef enum {
    VIEW_TOOL_OPENAI = 0,    /* {type: function, function: {name, description, parameters,
                                strict: true}}, the parameters in OpenAI's strict subset */
    VIEW_TOOL_ANTHROPIC = 1, /* {name, description, input_schema} */
    VIEW_TOOL_MCP = 2        /* {name, description, inputSchema} */
} view_tool_format;

enum { VIEW_TOOL_NAME_MAX = 64 }; /* OpenAI's and Anthropic's limit for tool names */

/**
 * The tool name of an endpoint (tooldefs_call.c): `API__OPERATIONID` when both are already
 * made of [A-Za-z0-9_-], the API id has no "__" and it fits in 64 characters; otherwise both
 * parts made safe (other characters become "_"; lower-case `method_path` without an
 * operationId), shortened to fit, then "_" and 8 hex digits of the hash of the endpoint id
 * (id: "api:operationId", or another form when two operations share an operationId).
 * Depends on nothing but the endpoint, so it is the same in every request. Thread-safe.
 */
void view_tool_name(const char *api_id, const char *id, const char *operation_id,
                    const char *method, const char *path, char out[VIEW_TOOL_NAME_MAX + 1]);

/**
 * The tool definition of operation op of api (tooldefs.c), named name (view_tool_name), in
 * the shape fmt asks for: its description (METHOD /path, summary and description, plain
 * text, at most 1,024 bytes), and its arguments as one JSON Schema object grouped by location
 * (path, query, header, cookie, body), $refs inlined to a bounded depth, for OpenAI rewritten
 * for strict mode. An MCP tool (oas/mcp.c) is defined as its server listed it (in the MCP
 * shape with its title, annotations and outputSchema). *call gets the calling details beside
 * it: {id, method, path, server, server_variables, content_type, auth, json_strings} or, for
 * an MCP tool, {id, mcp: {server: api_id, tool}}. id is the endpoint's id in the index.
 * arena takes allOf merges (it may be shared by the definitions of one request). Returns 0,
 * or APIDEX_ENOMEM (nothing out). *def and *call: json_object_put. docs/CLIENTS.md has the
 * details. Thread-safe over a document no one changes.
 */
int view_tool_define(const spec_api *api, const spec_operation *op, const char *api_id,
                     const char *id, const char *name, view_tool_format fmt, core_arena *arena,
                     struct json_object **def, struct json_object **call, apidex_error *err);

/**
 * What an operation made from an MCP server is (tooldefs_mcp.c): {kind: "tool", "resource"
 * or "prompt", server, name (tool, prompt), uri (resource: its URI or URI template),
 * annotations (tool)}, or NULL for an endpoint. Caller owns it.
 */
struct json_object *view_tool_mcp_entry(const spec_operation *op, const char *server);

#endif /* APIDEX_VIEW_H */
