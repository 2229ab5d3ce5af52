/*
 * The parts of an operation a detail or a rendering shows as the document wrote them: its
 * security schemes (declared once for the API, named by the operation's requirements), its
 * servers with their variables, what a parameter says beside its schema, a media type's
 * example. The OpenAPI spellings of these live here; chunk rendering reads the typed fields.
 */
#include "spec/spec_int.h"

#include <string.h>

/* OAS 3 components.securitySchemes, else Swagger 2.0 securityDefinitions: an object or NULL. */
static const jt_node *security_schemes(const spec_api *api)
{
    const jt_node *root = api->root.node;
    const jt_node *s = jt_get(jt_get(root, "components"), "securitySchemes");
    if (!s) s = jt_get(root, "securityDefinitions");
    return jt_is(s, JT_OBJECT) ? s : NULL;
}

bool spec_auth_scheme_find(const spec_api *api, const char *name, size_t len, spec_auth_scheme *out)
{
    memset(out, 0, sizeof *out);
    const jt_node *all = api ? security_schemes(api) : NULL;
    const jt_node *sn = all && name ? jt_getn(all, name, len) : NULL;
    if (!sn) return false;
    spec_loc d = {sn, api->root.doc}, target;
    if (spec_deref(api, d, &target) == 0) d = target; /* else the $ref object: no fields */
    out->node = d;
    sn = d.node;
    out->type = jt_get_str(sn, "type");
    out->in = jt_get_str(sn, "in");
    out->param = jt_get_str(sn, "name");
    out->scheme = jt_get_str(sn, "scheme");
    out->token_url = jt_get_str(sn, "tokenUrl");
    out->authorization_url = jt_get_str(sn, "authorizationUrl");
    out->open_id_connect_url = jt_get_str(sn, "openIdConnectUrl");
    out->flow = jt_get_str(sn, "flow");
    out->flows = jt_get(sn, "flows");
    for (uint32_t f = 0; jt_is(out->flows, JT_OBJECT) && f < out->flows->len; f++) {
        const jt_node *fl = out->flows->u.members[f].value;
        out->flows_token_url = jt_get_str(fl, "tokenUrl");
        out->flows_authorization_url = jt_get_str(fl, "authorizationUrl");
        if (out->flows_token_url || out->flows_authorization_url) break;
    }
    return true;
}

/* A non-empty "servers" array of an object, else NULL. */
static const jt_node *servers_of(const jt_node *n)
{
    const jt_node *s = jt_get(n, "servers");
    return jt_is(s, JT_ARRAY) && s->len ? s : NULL;
}

int spec_operation_servers_written(const spec_api *api, const spec_operation *op, core_arena *arena,
                                   spec_server_written **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    const jt_node *sn = servers_of(op->node.node);
    if (!sn) sn = servers_of(api->root.node);
    if (!sn) return 0;
    spec_server_written *sv = core_arena_calloc(arena, sn->len, sizeof *sv);
    if (!sv) return APIDEX_ENOMEM;
    for (uint32_t i = 0; i < sn->len; i++) {
        const jt_node *s = sn->u.items[i];
        sv[i].url = jt_get_str(s, "url");
        sv[i].description = jt_get_str(s, "description");
        const jt_node *vars = jt_get(s, "variables");
        if (!jt_is(vars, JT_OBJECT) || !vars->len) continue;
        sv[i].vars = core_arena_calloc(arena, vars->len, sizeof *sv[i].vars);
        if (!sv[i].vars) return APIDEX_ENOMEM;
        for (uint32_t v = 0; v < vars->len; v++) {
            const jt_member *m = &vars->u.members[v];
            spec_server_written_var *var = &sv[i].vars[sv[i].n_vars++];
            var->name = m->key;
            var->name_len = m->key_len;
            var->default_value = jt_get(m->value, "default");
            var->enum_values = jt_get(m->value, "enum");
            var->description = jt_get_str(m->value, "description");
        }
    }
    *out = sv;
    *n = sn->len;
    return 0;
}

void spec_param_extras_of(const spec_param *p, spec_param_extras *out)
{
    const jt_node *n = p ? p->node.node : NULL;
    out->style = jt_get(n, "style");
    out->explode = jt_get(n, "explode");
    out->example = jt_get(n, "example");
    out->examples = jt_get(n, "examples");
}

const jt_node *spec_media_example(const spec_media *m)
{
    return m ? jt_get(m->node.node, "example") : NULL;
}
