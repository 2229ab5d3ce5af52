/*
 * Tool definitions of MCP tools (spec/mcp.c): the tool as its server listed it, not a schema
 * re-derived from its parameters: its own inputSchema (the copy the operation keeps, with
 * its $refs moved back onto the schema's own root), its description, and in the MCP shape
 * its title, annotations and outputSchema; `calls` names the server and the tool.
 */
#include "serve/tooldefs_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_JSON_DEPTH = 80 }; /* spec/mcp.c cuts schemas at 64 levels */

const jt_node *serve_mcp_tool(const spec_operation *op)
{
    return op && jt_get_str(op->node.node, "x-mcp-tool") ? op->node.node : NULL;
}

/* Gives the "$ref" strings of o (json-c, from the schema) that start with base, where
   spec/mcp.c rebased them, their "#" back. */
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

struct json_object *serve_mcp_schema(const spec_operation *op, const char *key)
{
    const jt_node *tool = serve_mcp_tool(op);
    const jt_node *schema = jt_get(tool, key);
    if (!jt_is(schema, JT_OBJECT)) return NULL;
    /* "#/paths/<path, escaped>/<method, lower case>/<key>", as spec/mcp.c wrote it */
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, "#/paths/");
    for (const char *p = op->path; *p; p++) {
        if (*p == '~')
            core_buf_puts(&b, "~0");
        else if (*p == '/')
            core_buf_puts(&b, "~1");
        else
            core_buf_putc(&b, *p);
    }
    core_buf_putc(&b, '/');
    for (const char *p = op->method; *p; p++) core_buf_putc(&b, (char)(*p | 0x20));
    core_buf_printf(&b, "/%s", key);
    struct json_object *o = b.failed ? NULL : jt_to_json_object(schema, MAX_JSON_DEPTH);
    if (o) unrebase_refs(o, b.data, b.len);
    core_buf_free(&b);
    return o;
}

struct json_object *serve_mcp_description(const spec_operation *op, size_t max)
{
    const char *d = op->description && *op->description ? op->description : op->summary;
    if (!d) d = "";
    size_t n = strlen(d);
    if (max && n > max) n = text_plain_cut(d, n, max, NULL);
    return json_object_new_string_len(d, (int)n);
}

void serve_mcp_extras(struct json_object *def, const spec_operation *op)
{
    const jt_node *tool = serve_mcp_tool(op);
    const char *title = jt_get_str(tool, "x-mcp-title");
    if (title) serve_jadd(def, "title", json_object_new_string(title));
    const jt_node *ann = jt_get(tool, "x-mcp-annotations");
    if (jt_is(ann, JT_OBJECT))
        serve_jadd(def, "annotations", jt_to_json_object(ann, MAX_JSON_DEPTH));
    struct json_object *out = serve_mcp_schema(op, "x-mcp-output-schema");
    if (out) serve_jadd(def, "outputSchema", out);
}

struct json_object *serve_mcp_call(const char *api_id, const char *id, const spec_operation *op)
{
    struct json_object *o = json_object_new_object(), *mcp = json_object_new_object();
    if (!o || !mcp) {
        json_object_put(o);
        json_object_put(mcp);
        return NULL;
    }
    serve_jadd(o, "id", json_object_new_string(id));
    serve_jadd(mcp, "server", json_object_new_string(api_id));
    serve_jadd(mcp, "tool", json_object_new_string(jt_get_str(serve_mcp_tool(op), "x-mcp-tool")));
    serve_jadd(o, "mcp", mcp);
    return o;
}

struct json_object *serve_mcp_entry_json(const spec_operation *op, const char *server)
{
    const jt_node *n = op ? op->node.node : NULL;
    const char *tool = jt_get_str(n, "x-mcp-tool"), *uri = jt_get_str(n, "x-mcp-resource");
    const char *prompt = jt_get_str(n, "x-mcp-prompt");
    if (!tool && !uri && !prompt) return NULL;
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    serve_jadd(o, "kind", json_object_new_string(tool ? "tool" : uri ? "resource" : "prompt"));
    serve_jadd(o, "server", json_object_new_string(server));
    if (tool || prompt) serve_jadd(o, "name", json_object_new_string(tool ? tool : prompt));
    if (uri) serve_jadd(o, "uri", json_object_new_string(uri));
    const jt_node *ann = jt_get(n, "x-mcp-annotations");
    if (jt_is(ann, JT_OBJECT)) serve_jadd(o, "annotations", jt_to_json_object(ann, MAX_JSON_DEPTH));
    return o;
}
