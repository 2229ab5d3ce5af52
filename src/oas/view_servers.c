/*
 * The servers a document writes and the variables of their URL templates, typed: what tool
 * definitions, the mock's routing, the request builder's origins and the detail renderings
 * read. One variable type for all; servers are reached by the root's index (tool
 * definitions, mock), as server objects (the request builder, $ref followed) or as the list
 * written for an operation (details). The OpenAPI spellings stay here.
 */
#include "oas/oas_int.h"

#include <string.h>

/* Fills out from variable v (as written) named name (len bytes). */
static void read_var(const char *name, size_t len, const jt_node *v, spec_server_var *out)
{
    out->name = name;
    out->name_len = len;
    out->default_json = jt_get(v, "default");
    out->enum_json = jt_get(v, "enum");
    out->default_value = jt_str(out->default_json);
    out->enum_values = jt_is(out->enum_json, JT_ARRAY) ? out->enum_json : NULL;
    out->description = jt_get_str(v, "description");
}

/* The variables object of a server object, or NULL. */
static const jt_node *vars_of(const jt_node *server)
{
    const jt_node *vars = jt_get(server, "variables");
    return jt_is(vars, JT_OBJECT) ? vars : NULL;
}

/* The root's server object `server` (OAS 3, as written), or NULL. */
static const jt_node *root_server(const spec_api *api, size_t server)
{
    const jt_node *servers = api ? jt_get(api->root.node, "servers") : NULL;
    return jt_is(servers, JT_ARRAY) && server < servers->len ? servers->u.items[server] : NULL;
}

size_t spec_server_var_count(const spec_api *api, size_t server)
{
    const jt_node *vars = vars_of(root_server(api, server));
    return vars ? vars->len : 0;
}

bool spec_server_var_at(const spec_api *api, size_t server, size_t i, spec_server_var *out)
{
    const jt_node *vars = vars_of(root_server(api, server));
    memset(out, 0, sizeof *out);
    if (!vars || i >= vars->len) return false;
    read_var(vars->u.members[i].key, vars->u.members[i].key_len, vars->u.members[i].value, out);
    return true;
}

bool spec_server_object_var(const jt_node *server, const char *name, spec_server_var *out)
{
    const jt_node *v = name ? jt_get(vars_of(server), name) : NULL;
    memset(out, 0, sizeof *out);
    if (!v) return false;
    read_var(name, strlen(name), v, out);
    return true;
}

bool spec_server_var_find(const spec_api *api, size_t server, const char *name,
                          spec_server_var *out)
{
    return spec_server_object_var(root_server(api, server), name, out);
}

/* A non-empty "servers" array of an object, else NULL. */
static const jt_node *servers_of(const jt_node *n)
{
    const jt_node *s = jt_get(n, "servers");
    return jt_is(s, JT_ARRAY) && s->len ? s : NULL;
}

const jt_node *spec_operation_servers(const spec_operation *op)
{
    return op ? servers_of(op->node.node) : NULL;
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
        sv[i].url = spec_server_url(s);
        sv[i].description = jt_get_str(s, "description");
        const jt_node *vars = vars_of(s);
        if (!vars || !vars->len) continue;
        sv[i].vars = core_arena_calloc(arena, vars->len, sizeof *sv[i].vars);
        if (!sv[i].vars) return APIDEX_ENOMEM;
        for (uint32_t v = 0; v < vars->len; v++) {
            const jt_member *m = &vars->u.members[v];
            read_var(m->key, m->key_len, m->value, &sv[i].vars[sv[i].n_vars++]);
        }
    }
    *out = sv;
    *n = sn->len;
    return 0;
}
