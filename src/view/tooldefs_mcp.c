/*
 * Tool definitions of MCP tools (oas/mcp.c): the tool as its server listed it, not a schema
 * re-derived from its parameters: its own inputSchema (the copy the operation keeps, with
 * its $refs moved back onto the schema's own root), its description, and in the MCP shape
 * its title, annotations and outputSchema; `calls` names the server and the tool.
 */
#include "view/tooldefs_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_JSON_DEPTH = 80 }; /* oas/mcp.c cuts schemas at 64 levels */

bool view_tool_mcp_is(const spec_operation *op)
{
    spec_mcp_entry e;
    spec_operation_mcp(op, &e);
    return e.tool != NULL;
}

/* Gives the "$ref" strings of o (json-c, from the schema) that start with base, where
   oas/mcp.c rebased them, their "#" back. */
static void unrebase_refs(struct json_object *o, const char *base, size_t bl)
{
    if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0, n = json_object_array_length(o); i < n; i++)
            unrebase_refs(json_object_array_get_idx(o, i), base, bl);
        return;
    }
    if (!json_object_is_type(o, json_type_object)) return;
    json_object_object_foreach(o, key, v)
    {
        const char *ref = !strcmp(key, "$ref") && json_object_is_type(v, json_type_string)
                              ? json_object_get_string(v)
                              : NULL;
        if (!ref) {
            unrebase_refs(v, base, bl);
            continue;
        }
        if (strncmp(ref, base, bl) || (ref[bl] && ref[bl] != '/')) continue;
        size_t rl = strlen(ref + bl) + 2;
        char *orig = malloc(rl);
        if (!orig) continue;
        snprintf(orig, rl, "#%s", ref + bl);
        json_object_set_string(v, orig);
        free(orig);
    }
}

struct json_object *view_tool_mcp_schema(const spec_operation *op, spec_mcp_schema which)
{
    spec_mcp_entry e;
    spec_operation_mcp(op, &e);
    const jt_node *schema =
        e.tool && (unsigned)which < SPEC_MCP_SCHEMA_COUNT ? e.schema[which].node : NULL;
    if (!jt_is(schema, JT_OBJECT)) return NULL;
    core_buf b;
    core_buf_init(&b, 0);
    int rc = spec_mcp_schema_base(op, which, &b);
    struct json_object *o = rc ? NULL : jt_to_json_object(schema, MAX_JSON_DEPTH);
    if (o) unrebase_refs(o, b.data, b.len);
    core_buf_free(&b);
    return o;
}

struct json_object *view_tool_mcp_description(const spec_operation *op, size_t max)
{
    const char *d = op->description && *op->description ? op->description : op->summary;
    if (!d) d = "";
    size_t n = strlen(d);
    if (max && n > max) n = text_plain_cut(d, n, max, NULL);
    return json_object_new_string_len(d, (int)n);
}

void view_tool_mcp_extras(struct json_object *def, const spec_operation *op)
{
    spec_mcp_entry e;
    spec_operation_mcp(op, &e);
    if (!e.tool) return;
    if (e.title) core_json_add(def, "title", json_object_new_string(e.title));
    if (e.annotations)
        core_json_add(def, "annotations", jt_to_json_object(e.annotations, MAX_JSON_DEPTH));
    struct json_object *out = view_tool_mcp_schema(op, SPEC_MCP_OUTPUT_SCHEMA);
    if (out) core_json_add(def, "outputSchema", out);
}

struct json_object *view_tool_mcp_call(const char *api_id, const char *id, const spec_operation *op)
{
    struct json_object *o = json_object_new_object(), *mcp = json_object_new_object();
    if (!o || !mcp) {
        json_object_put(o);
        json_object_put(mcp);
        return NULL;
    }
    core_json_add(o, "id", json_object_new_string(id));
    core_json_add(mcp, "server", json_object_new_string(api_id));
    spec_mcp_entry e;
    spec_operation_mcp(op, &e);
    core_json_add(mcp, "tool", json_object_new_string(e.tool));
    core_json_add(o, "mcp", mcp);
    return o;
}

struct json_object *view_tool_mcp_entry(const spec_operation *op, const char *server)
{
    spec_mcp_entry e;
    spec_operation_mcp(op, &e);
    const char *tool = e.tool, *uri = e.resource, *prompt = e.prompt;
    if (!tool && !uri && !prompt) return NULL;
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    core_json_add(o, "kind", json_object_new_string(tool ? "tool" : uri ? "resource" : "prompt"));
    core_json_add(o, "server", json_object_new_string(server));
    if (tool || prompt) core_json_add(o, "name", json_object_new_string(tool ? tool : prompt));
    if (uri) core_json_add(o, "uri", json_object_new_string(uri));
    if (e.annotations)
        core_json_add(o, "annotations", jt_to_json_object(e.annotations, MAX_JSON_DEPTH));
    return o;
}
