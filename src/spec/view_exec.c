/*
 * The executor's typed questions about a document: servers and their variables, security
 * schemes, how a value is serialised, and the MCP entry an operation stands for. The
 * OpenAPI keywords and apidex's x-mcp-* marks a request builder reads are spelled here.
 */
#include "spec/spec_int.h"

#include <string.h>

static bool written_true(const jt_node *n)
{
    return n && n->type == JT_BOOL && n->boolean;
}

/* ---------------------------------------------------------------- schemas */

const char *spec_schema_view_type_name(const spec_schema_view *v)
{
    const jt_node *t = v->kw[SPEC_KW_TYPE];
    if (jt_str(t)) return jt_str(t);
    for (size_t i = 0; jt_is(t, JT_ARRAY) && i < t->len; i++)
        if (jt_str(t->u.items[i]) && strcmp(jt_str(t->u.items[i]), "null"))
            return jt_str(t->u.items[i]);
    return NULL;
}

spec_loc spec_schema_view_property(const spec_schema_view *v, const char *name)
{
    return spec_schema_view_at(v, jt_get(v->kw[SPEC_KW_PROPERTIES], name));
}

/* ---------------------------------------------------------------- servers */

const jt_node *spec_operation_servers(const spec_operation *op)
{
    const jt_node *s = op ? jt_get(op->node.node, "servers") : NULL;
    return jt_is(s, JT_ARRAY) && s->len ? s : NULL;
}

const char *spec_server_url(const jt_node *server)
{
    return jt_get_str(server, "url");
}

const jt_node *spec_api_server_object(const spec_api *api, const char *url)
{
    const jt_node *servers = api->major == 3 ? jt_get(api->root.node, "servers") : NULL;
    for (size_t i = 0; jt_is(servers, JT_ARRAY) && i < servers->len; i++) {
        spec_loc s = {servers->u.items[i], api->root.doc};
        spec_deref(api, s, &s);
        const char *u = spec_server_url(s.node);
        if (u && !strcmp(u, url)) return s.node;
    }
    return NULL;
}

spec_server_var spec_server_variable(const jt_node *server, const char *name)
{
    const jt_node *var = jt_get(jt_get(server, "variables"), name);
    const jt_node *en = jt_get(var, "enum");
    return (spec_server_var){.default_value = jt_get_str(var, "default"),
                             .enum_values = jt_is(en, JT_ARRAY) ? en : NULL};
}

/* ---------------------------------------------------------------- security */

static const char *client_credentials_url(const jt_node *scheme)
{
    const jt_node *cc = jt_get(jt_get(scheme, "flows"), "clientCredentials");
    if (cc) return jt_get_str(cc, "tokenUrl");
    const char *flow = jt_get_str(scheme, "flow"); /* Swagger 2.0 */
    if (flow && !strcmp(flow, "application")) return jt_get_str(scheme, "tokenUrl");
    return NULL;
}

bool spec_security_scheme_find(const spec_api *api, const char *name, spec_security_scheme *out)
{
    memset(out, 0, sizeof *out);
    const jt_node *root = api->root.node;
    const jt_node *schemes = api->major == 2
                                 ? jt_get(root, "securityDefinitions")
                                 : jt_get(jt_get(root, "components"), "securitySchemes");
    spec_loc s = {jt_get(schemes, name), api->root.doc};
    spec_deref(api, s, &s); /* unresolved: s stays the reference, which names no type */
    if (!s.node) return false;
    const jt_node *n = s.node;
    out->node = s;
    out->type = jt_get_str(n, "type");
    out->scheme = jt_get_str(n, "scheme");
    out->in = jt_get_str(n, "in");
    out->key_name = jt_get_str(n, "name");
    out->token_url = client_credentials_url(n);
    return true;
}

bool spec_operation_asks_credentials(const spec_api *api, const spec_operation *op)
{
    const jt_node *sec = jt_get(op->node.node, "security");
    if (!jt_is(sec, JT_ARRAY)) sec = jt_get(api->root.node, "security");
    for (size_t i = 0; jt_is(sec, JT_ARRAY) && i < sec->len; i++)
        if (jt_is(sec->u.items[i], JT_OBJECT) && sec->u.items[i]->len) return true;
    return false;
}

/* ---------------------------------------------------------------- serialisation */

static spec_serialization serialization_of(const jt_node *n)
{
    const jt_node *ex = jt_get(n, "explode");
    return (spec_serialization){
        .style = jt_get_str(n, "style"),
        .explode = ex && ex->type == JT_BOOL ? ex->boolean : -1,
        .allow_reserved = written_true(jt_get(n, "allowReserved")),
        .collection_format = jt_get_str(n, "collectionFormat"),
        .content_type = jt_get_str(n, "contentType"),
    };
}

spec_serialization spec_param_serialization(const spec_param *p)
{
    return serialization_of(p->node.node);
}

spec_serialization spec_media_field_encoding(const spec_media *m, const char *field)
{
    return serialization_of(jt_get(jt_get(m->node.node, "encoding"), field));
}

/* ---------------------------------------------------------------- MCP entries */

spec_mcp_entry spec_operation_mcp_entry(const spec_operation *op)
{
    spec_mcp_entry e = {0};
    const jt_node *n = op ? op->node.node : NULL;
    if (!n) return e;
    e.tool = jt_get_str(n, "x-mcp-tool");
    e.resource = jt_get_str(n, "x-mcp-resource");
    e.prompt = jt_get_str(n, "x-mcp-prompt");
    e.pointer = jt_get_str(n, "x-mcp-pointer");
    e.kind = e.tool       ? SPEC_MCP_TOOL
             : e.resource ? SPEC_MCP_RESOURCE
             : e.prompt   ? SPEC_MCP_PROMPT
                          : SPEC_MCP_NONE;
    e.marked_resource = jt_get(n, "x-mcp-resource") != NULL;
    e.marked_prompt = jt_get(n, "x-mcp-prompt") != NULL;
    e.input_schema = (spec_loc){jt_get(n, "x-mcp-input-schema"), op->node.doc};
    const jt_node *an = jt_get(n, "x-mcp-annotations");
    e.annotated = an != NULL;
    e.read_only_hint = written_true(jt_get(an, "readOnlyHint"));
    e.destructive_hint = written_true(jt_get(an, "destructiveHint"));
    return e;
}
