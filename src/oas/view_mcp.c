/*
 * What oas/mcp.c wrote on an operation made of an MCP server's tool, resource or prompt,
 * typed: one entry view for tool definitions, the request builder and chunking. The x-mcp-*
 * spellings stay here (and in oas/mcp.c, which writes them).
 */
#include "oas/oas_int.h"

#include <string.h>

static const char *const mcp_schema_keys[] = {[SPEC_MCP_INPUT_SCHEMA] = "x-mcp-input-schema",
                                              [SPEC_MCP_OUTPUT_SCHEMA] = "x-mcp-output-schema"};

static bool written_true(const jt_node *n)
{
    return n && n->type == JT_BOOL && n->boolean;
}

void spec_operation_mcp(const spec_operation *op, spec_mcp_entry *out)
{
    memset(out, 0, sizeof *out);
    const jt_node *n = op ? op->node.node : NULL;
    if (!n) return;
    out->tool = jt_get_str(n, "x-mcp-tool");
    out->resource = jt_get_str(n, "x-mcp-resource");
    out->prompt = jt_get_str(n, "x-mcp-prompt");
    out->kind = out->tool       ? SPEC_MCP_TOOL
                : out->resource ? SPEC_MCP_RESOURCE
                : out->prompt   ? SPEC_MCP_PROMPT
                                : SPEC_MCP_NONE;
    out->marked_tool = jt_get(n, "x-mcp-tool") != NULL;
    out->marked_resource = jt_get(n, "x-mcp-resource") != NULL;
    out->marked_prompt = jt_get(n, "x-mcp-prompt") != NULL;
    out->marked = out->marked_tool       ? SPEC_MCP_TOOL
                  : out->marked_resource ? SPEC_MCP_RESOURCE
                  : out->marked_prompt   ? SPEC_MCP_PROMPT
                                         : SPEC_MCP_NONE;
    out->pointer = jt_get_str(n, "x-mcp-pointer");
    out->title = jt_get_str(n, "x-mcp-title");
    const jt_node *ann = jt_get(n, "x-mcp-annotations");
    out->annotated = ann != NULL;
    out->annotations = jt_is(ann, JT_OBJECT) ? ann : NULL;
    out->read_only_hint = written_true(jt_get(ann, "readOnlyHint"));
    out->destructive_hint = written_true(jt_get(ann, "destructiveHint"));
    for (int k = 0; k < SPEC_MCP_SCHEMA_COUNT; k++)
        out->schema[k] = (spec_loc){jt_get(n, mcp_schema_keys[k]), op->node.doc};
}

const char *spec_mcp_kind_name(spec_mcp_kind kind)
{
    static const char *const names[] = {[SPEC_MCP_NONE] = NULL,
                                        [SPEC_MCP_TOOL] = "tool",
                                        [SPEC_MCP_RESOURCE] = "resource",
                                        [SPEC_MCP_PROMPT] = "prompt"};
    return (unsigned)kind < sizeof names / sizeof *names ? names[kind] : NULL;
}

int spec_mcp_schema_base(const spec_operation *op, spec_mcp_schema which, core_buf *out)
{
    if (!op || (unsigned)which >= SPEC_MCP_SCHEMA_COUNT) return APIDEX_EINVAL;
    /* "#/paths/<path, escaped>/<method, lower case>/<key>", as oas/mcp.c writes it */
    core_buf_puts(out, "#/paths/");
    for (const char *p = op->path; *p; p++) {
        if (*p == '~')
            core_buf_puts(out, "~0");
        else if (*p == '/')
            core_buf_puts(out, "~1");
        else
            core_buf_putc(out, *p);
    }
    core_buf_putc(out, '/');
    for (const char *p = op->method; *p; p++) core_buf_putc(out, (char)(*p | 0x20));
    core_buf_printf(out, "/%s", mcp_schema_keys[which]);
    return out->failed ? APIDEX_ENOMEM : 0;
}
