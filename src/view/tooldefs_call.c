/*
 * What a tool definition needs besides its schema: a name that is the same for an endpoint
 * whatever else is asked for or indexed, and the calling details a program needs to turn a
 * tool call into an HTTP request (server, method, path, content type, where credentials go).
 */
#include "view/tooldefs_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- names */

/* s with every run of characters outside [A-Za-z0-9_-] (and of '_') made one '_', no '_' at
   either end; cut to size - 1 bytes. */
static size_t name_part(const char *s, bool lower, char *out, size_t size)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && o + 1 < size; p++) {
        if (isalnum(*p) || *p == '-')
            out[o++] = (char)(lower ? tolower(*p) : *p);
        else if (o && out[o - 1] != '_')
            out[o++] = '_';
    }
    while (o && out[o - 1] == '_') o--;
    out[o] = '\0';
    return o;
}

/* Whether name ends like a hashed name does ("_" and 8 lower-case hex digits). */
static bool ends_like_hash(const char *name, size_t n)
{
    if (n < 9 || name[n - 9] != '_') return false;
    for (size_t i = n - 8; i < n; i++)
        if (!isdigit((unsigned char)name[i]) && !(name[i] >= 'a' && name[i] <= 'f')) return false;
    return true;
}

static size_t cut(char *s, size_t n, size_t max)
{
    if (n > max) n = max;
    while (n && s[n - 1] == '_') n--;
    s[n] = '\0';
    return n;
}

/* api "__" op ["_" hash] into out (the parts fit: the caller cut them). */
static size_t join(char out[VIEW_TOOL_NAME_MAX + 1], const char *api, size_t na, const char *op,
                   size_t no, const char *hash)
{
    core_buf b;
    core_buf_init(&b, 4 * VIEW_TOOL_NAME_MAX);
    core_buf_printf(&b, "%.*s__%.*s%s%s", (int)na, api, (int)no, op, hash ? "_" : "",
                    hash ? hash : "");
    size_t n = b.len < VIEW_TOOL_NAME_MAX ? b.len : VIEW_TOOL_NAME_MAX;
    if (b.data) memcpy(out, b.data, n);
    out[n] = '\0';
    core_buf_free(&b);
    return n;
}

void view_tool_name(const char *api_id, const char *id, const char *operation_id,
                    const char *method, const char *path, char out[VIEW_TOOL_NAME_MAX + 1])
{
    char api[256], op[512], raw[512];
    size_t na = name_part(api_id, false, api, sizeof api);
    size_t no;
    if (operation_id) {
        no = name_part(operation_id, false, op, sizeof op);
    } else {
        snprintf(raw, sizeof raw, "%s %s", method, path);
        no = name_part(raw, true, op, sizeof op);
    }
    size_t nid = strlen(api_id);
    /* the endpoint's id is "api:operationId" (not so when the operationId is used twice) */
    bool by_op_id = operation_id && !strncmp(id, api_id, nid) && id[nid] == ':' &&
                    !strcmp(id + nid + 1, operation_id);
    if (!na) na = (size_t)snprintf(api, sizeof api, "api");
    if (!no) no = (size_t)snprintf(op, sizeof op, "op");
    /* Faithful: api id and operationId are spelled as they are and "__" splits them
       unambiguously (the api id has no "__" and does not end in "_"), so the name alone
       gives back the endpoint. */
    bool faithful =
        by_op_id && !strcmp(api, api_id) && !strcmp(op, operation_id) && !strstr(api_id, "__");
    if (faithful && na + 2 + no <= VIEW_TOOL_NAME_MAX) {
        size_t n = join(out, api, na, op, no, NULL);
        if (!ends_like_hash(out, n)) return;
    }
    /* Otherwise a readable prefix and 8 hex digits of the hash of the endpoint id. */
    enum { PREFIX = VIEW_TOOL_NAME_MAX - 9, API_CUT = 24 };
    if (na + 2 + no > PREFIX) {
        na = cut(api, na, API_CUT);
        no = cut(op, no, PREFIX - 2 - na);
    }
    char hex[17];
    core_hash_hex(core_hash64(id, strlen(id)), hex);
    hex[8] = '\0';
    join(out, api, na, op, no, hex);
}

/* ---------------------------------------------------------------- auth */

static void add_str(struct json_object *o, const char *key, const char *value)
{
    if (value) core_json_add(o, key, json_object_new_string(value));
}

/* One credential: the scheme's name, type, and where it goes (in, name, scheme). */
static struct json_object *auth_scheme(const spec_api *api, const char *name, size_t name_len,
                                       const jt_node *scopes)
{
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    core_json_add(o, "id", json_object_new_string_len(name, (int)name_len));
    spec_security_scheme s;
    if (!spec_security_scheme_find(api, name, name_len, &s) || s.unresolved ||
        s.kind == SPEC_SECURITY_NONE)
        return o; /* not declared: the name is all there is */
    if (s.kind == SPEC_SECURITY_API_KEY) {
        core_json_add(o, "type", json_object_new_string("apiKey"));
        add_str(o, "in", s.in);
        add_str(o, "name", s.param);
    } else if (s.kind == SPEC_SECURITY_HTTP || s.kind == SPEC_SECURITY_BASIC) {
        const char *scheme = s.kind == SPEC_SECURITY_BASIC ? "basic" : s.scheme;
        char lower[32];
        snprintf(lower, sizeof lower, "%s", scheme ? scheme : "");
        for (char *p = lower; *p; p++) *p = (char)tolower((unsigned char)*p);
        core_json_add(o, "type", json_object_new_string("http"));
        if (*lower) add_str(o, "scheme", lower);
        core_json_add(o, "in", json_object_new_string("header"));
        core_json_add(o, "name", json_object_new_string("Authorization"));
        add_str(o, "bearer_format", s.bearer_format);
    } else if (s.kind == SPEC_SECURITY_OAUTH2 || s.kind == SPEC_SECURITY_OPENID_CONNECT) {
        /* the access token goes as a bearer token (RFC 6750) */
        core_json_add(o, "type", json_object_new_string(s.type));
        core_json_add(o, "scheme", json_object_new_string("bearer"));
        core_json_add(o, "in", json_object_new_string("header"));
        core_json_add(o, "name", json_object_new_string("Authorization"));
        add_str(o, "url", s.openid_url);
        add_str(o, "token_url", s.token_url ? s.token_url : s.any_flow_token_url);
        if (jt_is(scopes, JT_ARRAY) && scopes->len) {
            struct json_object *sc = json_object_new_array();
            for (uint32_t i = 0; sc && i < scopes->len && i < 50; i++)
                if (jt_is(scopes->u.items[i], JT_STRING))
                    json_object_array_add(sc, json_object_new_string(scopes->u.items[i]->u.s));
            core_json_add(o, "scopes", sc);
        }
    } else {
        core_json_add(o, "type", json_object_new_string(s.type)); /* mutualTLS, ... */
    }
    return o;
}

/* The operation's security requirements: alternatives, each the credentials it needs
   together; an empty alternative needs none. NULL when the spec declares none. */
static struct json_object *auth_json(const spec_api *api, const spec_operation *op)
{
    const jt_node *sec = op->security.node;
    if (!jt_is(sec, JT_ARRAY)) return NULL;
    struct json_object *alts = json_object_new_array();
    if (alts && !sec->len) json_object_array_add(alts, json_object_new_array());
    for (uint32_t i = 0; alts && i < sec->len && i < 16; i++) {
        const jt_node *req = sec->u.items[i];
        struct json_object *all = json_object_new_array();
        for (uint32_t j = 0; all && jt_is(req, JT_OBJECT) && j < req->len; j++)
            json_object_array_add(all,
                                  auth_scheme(api, req->u.members[j].key, req->u.members[j].key_len,
                                              req->u.members[j].value));
        json_object_array_add(alts, all);
    }
    return alts;
}

/* ---------------------------------------------------------------- the call */

struct json_object *view_tool_call(const spec_api *api, const char *id, const spec_operation *op,
                                   const char *content_type)
{
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    core_json_add(o, "id", json_object_new_string(id));
    core_json_add(o, "method", json_object_new_string(op->method));
    core_json_add(o, "path", json_object_new_string(op->path));
    if (api->n_servers) {
        core_json_add(o, "server", json_object_new_string(api->servers[0].url));
        /* OAS 3 server variables ({region}): their defaults and allowed values */
        size_t n_vars = spec_server_var_count(api, 0);
        if (n_vars) {
            struct json_object *v = json_object_new_object();
            for (size_t i = 0; v && i < n_vars && i < 20; i++) {
                spec_server_var var;
                spec_server_var_at(api, 0, i, &var);
                struct json_object *e = json_object_new_object();
                if (!e) break;
                add_str(e, "default", var.default_value);
                const jt_node *en = var.enum_values;
                if (en && en->len) {
                    struct json_object *a = json_object_new_array();
                    for (uint32_t k = 0; a && k < en->len && k < 200; k++)
                        if (jt_is(en->u.items[k], JT_STRING))
                            json_object_array_add(a, json_object_new_string(en->u.items[k]->u.s));
                    core_json_add(e, "enum", a);
                }
                core_json_add(v, var.name, e);
            }
            core_json_add(o, "server_variables", v);
        }
    }
    add_str(o, "content_type", content_type);
    struct json_object *auth = auth_json(api, op);
    if (auth) core_json_add(o, "auth", auth);
    return o;
}
