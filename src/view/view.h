/*
 * view: what is rendered from the loaded model of an API, for people and language models.
 * One operation or schema as readable text (render.c: the content of a chunk and of an
 * index row, askAPI's refinement prompt), in prose (describe.c: the capability
 * description, an example user query, the per-field text a lexical index weighs), and at a
 * detail level as JSON and as the text made from that JSON (detail.c, detail_text.c: `apidex
 * show`, MCP get_endpoint, /v1/endpoints, the RestGPT loop's caller), and as a tool definition
 * for a language model (tooldefs*.c: OpenAI, Anthropic, MCP; `apidex tools`, /v1/tools).
 * The text renderings write through one emitter (emit.c, view_int.h).
 *
 * The stage sits on the model (src/oas) and the text filters (src/prep): it asks the model's
 * typed questions and spells no JSON Schema or OpenAPI keyword. It knows nothing of chunks,
 * indexes or requests: chunk, build, search, agent, cli and serve call it. Everything here is
 * deterministic (the same model and options give the same bytes) and nothing mutates the model.
 */
#ifndef APIDEX_VIEW_H
#define APIDEX_VIEW_H

#include "core/core.h"
#include "oas/oas.h"
#include "prep/prep.h"

/* ---------------------------------------------------------------- text (render.c) */

/**
 * Appends s with the text filters of prep applied (NULL: none), whitespace collapsed to
 * single spaces, cut after max bytes (0 = no cut) at a word boundary with "...". What the
 * filters removed is added to rep (NULL: not counted). Returns 0 or APIDEX_ENOMEM.
 */
int view_clean_text(const prep_options *prep, const char *s, size_t max, core_buf *out,
                    prep_report *rep);

/* ---------------------------------------------------------------- renderers (render.c, describe.c)
 */

/** Options of the readable renderings; zero = defaults. */
typedef struct view_render_options {
    unsigned depth;        /* schema nesting inlined (0 = 2, at most 8) */
    prep_options prep;     /* text filters for descriptions; structural ones hide parts */
    const bool *has_chunk; /* per api->schemas index: schema has its own chunk ("see" marker) */
    prep_report *report;   /* what the filters removed from the rendering is added here (NULL) */
} view_render_options;

/** Schema indexes a rendering mentioned (expanded, or named at the depth cut-off). */
typedef struct view_refs {
    size_t *idx;
    size_t n, cap;
} view_refs;

void view_refs_free(view_refs *r);

/**
 * Appends the compact readable rendering of op: method, path, summary, API and
 * server URL, operationId, tags, description, auth, parameters (in, type,
 * required, enum, default, description), request body fields and the 2xx
 * response fields, schemas inlined to opt->depth; cycles are printed once with
 * a "(circular: Name)" marker. refs (may be NULL) collects the schemas mentioned.
 */
int view_render_operation(const spec_api *api, const spec_operation *op,
                          const view_render_options *opt, core_buf *out, view_refs *refs);

/** Appends the rendering of api->schemas[index] (a schema chunk's content). */
int view_render_schema(const spec_api *api, size_t index, const view_render_options *opt,
                       core_buf *out, view_refs *refs);

/**
 * Appends the deterministic capability description of op: summary
 * or first sentence of the description, an action verb + resource from the
 * method and path, the parameters it accepts and what it returns.
 */
int view_describe_operation(const spec_api *api, const spec_operation *op, const prep_options *prep,
                            core_buf *out);

/** Appends a deterministic example user query for op ("How do I get ...?"). */
int view_example_query(const spec_api *api, const spec_operation *op, const prep_options *prep,
                       core_buf *out);

/** Per-field text for a lexical index (each NULL when empty). */
typedef struct view_fields {
    const char *api; /* API title */
    const char *path;
    const char *operation_id;
    const char *summary;     /* operation summary; a schema: its name */
    const char *description; /* operation or schema description */
    const char *tags;        /* tag names, one per line */
    const char *params;      /* "name: description" per parameter, one per line */
    const char *body;        /* request body fields: "name: description" per line */
    const char *response; /* 2xx response: description, then field names (schema: its properties) */
} view_fields;

/** Fills the per-field text of op; strings are allocated in arena. */
int view_operation_fields(const spec_api *api, const spec_operation *op, const prep_options *prep,
                          core_arena *arena, view_fields *out);

/* ---------------------------------------------------------------- detail levels */

/** How much of an operation `show`, MCP get_endpoint and /v1/endpoints hand over (view_detail.c).
 */
typedef enum view_detail {
    VIEW_DETAIL_SUMMARY = 1, /* one line: method, URL, summary */
    VIEW_DETAIL_CALL,        /* what a call needs: servers with variables, auth, every parameter,
                                 the body's content types and schema (refs resolved to a depth,
                                 cycles marked), required inputs, the success response in brief */
    VIEW_DETAIL_FULL         /* everything as written, each referenced schema once */
} view_detail;
/** OR'd into a level for view_detail_json: descriptions as the spec wrote them (markdown and
    HTML kept) instead of their plain text; for a renderer that makes them safe itself (the
    web page: serve/markup.c). */
enum { VIEW_DETAIL_AS_WRITTEN = 0x100, VIEW_DETAIL_LEVEL_MASK = 0xff };

/** "summary", "call", "full". */
const char *view_detail_name(view_detail d);
/** Parses a level name; APIDEX_EINVAL (the message names the levels) otherwise. */
int view_detail_parse(const char *name, view_detail *out, apidex_error *err);

/**
 * Appends op at the given level as one JSON object (compact): id, api, detail, method, path,
 * url, summary; from `call` on also servers (with variables), auth (alternatives of schemes,
 * each saying where the credential goes), parameters, request_body, inputs (every required
 * parameter and body field) and response (call) or responses + schemas (full). Enums and
 * fields are never cut; a depth cut is marked "x-apidex-omitted", a cycle {"$circular": Name}.
 * Returns 0, APIDEX_ENOMEM or APIDEX_ELIMIT (over 4 MiB); on error out is left as it was.
 */
int view_detail_json(const spec_api *api, const spec_operation *op, view_detail level,
                     core_buf *out);

/**
 * Appends the readable text of a view_detail_json object (json[0..len), which may carry a
 * "producers" array added by the caller): the same content, one line per parameter or field.
 * Returns 0, APIDEX_EPARSE (not such an object) or APIDEX_ENOMEM.
 */
int view_detail_text(const char *json, size_t len, core_buf *out, apidex_error *err);

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
