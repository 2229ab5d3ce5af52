/*
 * An API's security schemes, typed (OAS 3 components/securitySchemes, Swagger 2.0
 * securityDefinitions), and whether an operation asks for credentials: what tool definitions,
 * the web page, the request builder and the detail renderings read. The OpenAPI spellings
 * of schemes, flows and requirements stay here.
 */
#include "oas/oas_int.h"

#include <string.h>

/* The schemes object of the root (components' else securityDefinitions), or NULL when the
   document declares none; *components says which it is. */
static const jt_node *schemes_of(const spec_api *api, bool *components)
{
    const jt_node *root = api ? api->root.node : NULL;
    const jt_node *s = jt_get(jt_get(root, "components"), "securitySchemes");
    *components = s != NULL;
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

/* OAS 3 flows.clientCredentials' tokenUrl, else Swagger 2.0's tokenUrl of flow "application". */
static const char *client_credentials_url(const jt_node *scheme)
{
    const jt_node *cc = jt_get(jt_get(scheme, "flows"), "clientCredentials");
    if (cc) return jt_get_str(cc, "tokenUrl");
    const char *flow = jt_get_str(scheme, "flow");
    if (flow && !strcmp(flow, "application")) return jt_get_str(scheme, "tokenUrl");
    return NULL;
}

/* Fills out from scheme node value (as written) named key. */
static void read_scheme(const spec_api *api, const char *key, size_t key_len, const jt_node *value,
                        bool components, spec_security_scheme *out)
{
    memset(out, 0, sizeof *out);
    out->name = key;
    out->name_len = key_len;
    out->declared_for_version = components == (api->major != 2);
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
    out->token_url = jt_get_str(n, "tokenUrl");
    out->authorization_url = jt_get_str(n, "authorizationUrl");
    out->flow = jt_get_str(n, "flow");
    out->flows = jt_get(n, "flows");
    for (uint32_t f = 0; jt_is(out->flows, JT_OBJECT) && f < out->flows->len; f++) {
        const jt_node *fl = out->flows->u.members[f].value;
        out->flows_token_url = jt_get_str(fl, "tokenUrl");
        out->flows_authorization_url = jt_get_str(fl, "authorizationUrl");
        if (out->flows_token_url || out->flows_authorization_url) break;
    }
    for (uint32_t f = 0; jt_is(out->flows, JT_OBJECT) && f < out->flows->len; f++)
        if ((out->any_flow_token_url = jt_get_str(out->flows->u.members[f].value, "tokenUrl")))
            break;
    out->client_credentials_token_url = client_credentials_url(n);
}

size_t spec_security_scheme_count(const spec_api *api)
{
    bool components;
    const jt_node *all = schemes_of(api, &components);
    return all ? all->len : 0;
}

bool spec_security_scheme_at(const spec_api *api, size_t i, spec_security_scheme *out)
{
    bool components;
    const jt_node *all = schemes_of(api, &components);
    memset(out, 0, sizeof *out);
    if (!all || i >= all->len) return false;
    const jt_member *m = &all->u.members[i];
    read_scheme(api, m->key, m->key_len, m->value, components, out);
    return true;
}

bool spec_security_scheme_find(const spec_api *api, const char *name, size_t len,
                               spec_security_scheme *out)
{
    bool components;
    const jt_node *all = schemes_of(api, &components);
    const jt_node *value = all && name ? jt_getn(all, name, len) : NULL;
    memset(out, 0, sizeof *out);
    out->name = name;
    out->name_len = len;
    if (!value) return false;
    read_scheme(api, name, len, value, components, out);
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
