/*
 * Typed views of what tool definitions and the web page read besides schemas: an API's
 * security schemes (OAS 3 components/securitySchemes, Swagger 2.0 securityDefinitions), the
 * variables of its servers, and what oas/mcp.c wrote on an operation made of an MCP tool,
 * resource or prompt. The OpenAPI and x-mcp-* spellings stay here.
 */
#include "oas/oas_int.h"

#include <string.h>

/* ---------------------------------------------------------------- security schemes */

/* The schemes object of the root, or NULL when the document declares none. */
static const jt_node *schemes_of(const spec_api *api)
{
    const jt_node *root = api ? api->root.node : NULL;
    const jt_node *s = jt_get(jt_get(root, "components"), "securitySchemes");
    if (!s) s = jt_get(root, "securityDefinitions");
    return jt_is(s, JT_OBJECT) ? s : NULL;
}

static spec_security_kind kind_of(const char *type)
{
    static const struct {
        const char *type;
        spec_security_kind kind;
    } kinds[] = {{"apiKey", SPEC_SECURITY_API_KEY},
                 {"http", SPEC_SECURITY_HTTP},
                 {"basic", SPEC_SECURITY_BASIC},
                 {"oauth2", SPEC_SECURITY_OAUTH2},
                 {"openIdConnect", SPEC_SECURITY_OPENID_CONNECT}};
    if (!type) return SPEC_SECURITY_NONE;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(type, kinds[i].type)) return kinds[i].kind;
    return SPEC_SECURITY_OTHER;
}

/* Fills out from scheme node value (as written) named key. */
static void read_scheme(const spec_api *api, const char *key, size_t key_len, const jt_node *value,
                        spec_security_scheme *out)
{
    memset(out, 0, sizeof *out);
    out->name = key;
    out->name_len = key_len;
    spec_loc d = {value, api->root.doc};
    if (spec_deref(api, d, &d) != 0) {
        out->unresolved = true;
        d = (spec_loc){value, api->root.doc};
    }
    const jt_node *n = d.node;
    out->node = d;
    out->type = jt_get_str(n, "type");
    out->kind = kind_of(out->type);
    out->in = jt_get_str(n, "in");
    out->param = jt_get_str(n, "name");
    out->scheme = jt_get_str(n, "scheme");
    out->bearer_format = jt_get_str(n, "bearerFormat");
    out->description = jt_get_str(n, "description");
    out->openid_url = jt_get_str(n, "openIdConnectUrl");
    out->token_url = jt_get_str(n, "tokenUrl"); /* Swagger 2.0 */
    const jt_node *flows = jt_get(n, "flows");
    for (uint32_t i = 0; !out->token_url && jt_is(flows, JT_OBJECT) && i < flows->len; i++)
        out->token_url = jt_get_str(flows->u.members[i].value, "tokenUrl");
}

size_t spec_security_scheme_count(const spec_api *api)
{
    const jt_node *all = schemes_of(api);
    return all ? all->len : 0;
}

bool spec_security_scheme_at(const spec_api *api, size_t i, spec_security_scheme *out)
{
    const jt_node *all = schemes_of(api);
    memset(out, 0, sizeof *out);
    if (!all || i >= all->len) return false;
    const jt_member *m = &all->u.members[i];
    read_scheme(api, m->key, m->key_len, m->value, out);
    return true;
}

bool spec_security_scheme_find(const spec_api *api, const char *name, size_t len,
                               spec_security_scheme *out)
{
    const jt_node *all = schemes_of(api);
    const jt_node *value = all ? jt_getn(all, name, len) : NULL;
    memset(out, 0, sizeof *out);
    out->name = name;
    out->name_len = len;
    if (!value) return false;
    read_scheme(api, name, len, value, out);
    return true;
}

/* ---------------------------------------------------------------- schemas */

bool spec_schema_view_nullable(const spec_schema_view *v)
{
    return v->nullable || jt_get_bool(v->loc.node, "x-nullable", false);
}

/* ---------------------------------------------------------------- server variables */

/* The variables object of the root's server object `server` (OAS 3), or NULL. */
static const jt_node *variables_of(const spec_api *api, size_t server)
{
    const jt_node *servers = api ? jt_get(api->root.node, "servers") : NULL;
    if (!jt_is(servers, JT_ARRAY) || server >= servers->len) return NULL;
    const jt_node *vars = jt_get(servers->u.items[server], "variables");
    return jt_is(vars, JT_OBJECT) ? vars : NULL;
}

size_t spec_server_var_count(const spec_api *api, size_t server)
{
    const jt_node *vars = variables_of(api, server);
    return vars ? vars->len : 0;
}

bool spec_server_var_at(const spec_api *api, size_t server, size_t i, spec_server_var *out)
{
    const jt_node *vars = variables_of(api, server);
    memset(out, 0, sizeof *out);
    if (!vars || i >= vars->len) return false;
    const jt_node *v = vars->u.members[i].value;
    out->name = vars->u.members[i].key;
    out->default_value = jt_get_str(v, "default");
    out->description = jt_get_str(v, "description");
    const jt_node *e = jt_get(v, "enum");
    out->enum_values = jt_is(e, JT_ARRAY) ? e : NULL;
    return true;
}

/* ---------------------------------------------------------------- MCP entries */

static const char *const mcp_schema_keys[] = {[SPEC_MCP_INPUT_SCHEMA] = "x-mcp-input-schema",
                                              [SPEC_MCP_OUTPUT_SCHEMA] = "x-mcp-output-schema"};

void spec_operation_mcp(const spec_operation *op, spec_mcp_entry *out)
{
    memset(out, 0, sizeof *out);
    const jt_node *n = op ? op->node.node : NULL;
    if (!n) return;
    out->tool = jt_get_str(n, "x-mcp-tool");
    out->resource = jt_get_str(n, "x-mcp-resource");
    out->prompt = jt_get_str(n, "x-mcp-prompt");
    out->title = jt_get_str(n, "x-mcp-title");
    const jt_node *ann = jt_get(n, "x-mcp-annotations");
    out->annotations = jt_is(ann, JT_OBJECT) ? ann : NULL;
    for (int k = 0; k < SPEC_MCP_SCHEMA_COUNT; k++)
        out->schema[k] = (spec_loc){jt_get(n, mcp_schema_keys[k]), op->node.doc};
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
