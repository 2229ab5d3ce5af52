/*
 * Postman auth (collection, folder and request level) as OpenAPI security:
 * api keys, bearer, basic, digest and OAuth 2 become security schemes (one per
 * distinct setting), noauth an empty requirement list.
 */
#include "oas/postman_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* A setting of an auth type: v2.1 writes a list of {key, value}, v2.0 an object. */
static const jt_node *auth_get(const jt_node *auth, const char *type, const char *key)
{
    const jt_node *p = jt_get(auth, type);
    if (jt_is(p, JT_OBJECT)) return jt_get(p, key);
    if (!jt_is(p, JT_ARRAY)) return NULL;
    for (uint32_t i = 0; i < p->len; i++) {
        const char *k = jt_get_str(p->u.items[i], "key");
        if (k && !strcmp(k, key)) return jt_get(p->u.items[i], "value");
    }
    return NULL;
}

bool pm_auth_decides(const jt_node *auth)
{
    const char *type = jt_get_str(auth, "type");
    return type && strcasecmp(type, "inherit") != 0;
}

/* The scheme's name in components (new or the one with the same signature). */
static const char *scheme_name(pm_ctx *c, const char *base, const char *sig, jt_node *scheme)
{
    size_t idx;
    if (spec_strmap_get(&c->scheme_by_sig, sig, strlen(sig), &idx) && idx < c->schemes.n)
        return c->schemes.m[idx].key;
    const char *name = pm_unique(c, &c->scheme_names, base, "");
    if (!name || spec_strmap_put(&c->scheme_by_sig, sig, strlen(sig), c->schemes.n) ||
        pm_put(c, &c->schemes, name, scheme)) {
        c->oom = true;
        return NULL;
    }
    return c->schemes.m[c->schemes.n - 1].key;
}

/* OAuth 2: one flow, chosen by grant_type (authorization code when unsaid). */
static jt_node *oauth2_scheme(pm_ctx *c, const jt_node *auth, char *sig, size_t cap, pm_arr *scopes)
{
    const char *grant = jt_str(auth_get(auth, "oauth2", "grant_type"));
    const char *auth_url = jt_str(auth_get(auth, "oauth2", "authUrl"));
    const char *token_url = jt_str(auth_get(auth, "oauth2", "accessTokenUrl"));
    const char *scope = jt_str(auth_get(auth, "oauth2", "scope"));
    const char *flow = "authorizationCode";
    if (grant && !strcmp(grant, "implicit"))
        flow = "implicit";
    else if (grant && !strcmp(grant, "password_credentials"))
        flow = "password";
    else if (grant && !strcmp(grant, "client_credentials"))
        flow = "clientCredentials";
    pm_obj f = {0}, sc = {0};
    spec_strmap seen = {0};
    if (strcmp(flow, "password") && strcmp(flow, "clientCredentials"))
        pm_put_str(c, &f, "authorizationUrl", auth_url ? auth_url : "");
    if (strcmp(flow, "implicit")) pm_put_str(c, &f, "tokenUrl", token_url ? token_url : "");
    for (const char *p = scope; p && *p;) {
        while (*p == ' ' || *p == ',') p++;
        size_t n = strcspn(p, " ,");
        if (n) {
            char *s = core_arena_strndup(c->a, p, n);
            if (!s) c->oom = true;
            if (s && !spec_strmap_get(&seen, s, n, NULL)) {
                if (spec_strmap_put(&seen, s, n, 1)) c->oom = true;
                pm_put(c, &sc, s, pm_str(c, ""));
                pm_push(c, scopes, pm_strn(c, p, n));
            }
        }
        p += n;
    }
    spec_strmap_free(&seen);
    pm_put(c, &f, "scopes", pm_obj_done(c, &sc));
    pm_obj flows = {0}, s = {0};
    pm_put(c, &flows, flow, pm_obj_done(c, &f));
    pm_put_str(c, &s, "type", "oauth2");
    pm_put(c, &s, "flows", pm_obj_done(c, &flows));
    snprintf(sig, cap, "oauth2|%s|%s|%s", flow, auth_url ? auth_url : "",
             token_url ? token_url : "");
    return pm_obj_done(c, &s);
}

jt_node *pm_auth_requirement(pm_ctx *c, const jt_node *auth, const char *pointer)
{
    if (!pm_auth_decides(auth)) return NULL;
    const char *type = jt_get_str(auth, "type");
    pm_arr none = {0}, scopes = {0};
    if (!strcasecmp(type, "noauth")) return pm_arr_done(c, &none);
    char sig[1024];
    const char *base = NULL;
    jt_node *scheme = NULL;
    pm_obj s = {0};
    if (!strcasecmp(type, "apikey")) {
        const char *key = jt_str(auth_get(auth, "apikey", "key"));
        const char *in = jt_str(auth_get(auth, "apikey", "in"));
        if (!in || strcmp(in, "query")) in = "header";
        if (!key || !*key) key = "X-API-Key";
        pm_put_str(c, &s, "type", "apiKey");
        pm_put_str(c, &s, "name", key);
        pm_put_str(c, &s, "in", in);
        snprintf(sig, sizeof sig, "apikey|%s|%s", in, key);
        base = "apiKeyAuth";
    } else if (!strcasecmp(type, "bearer") || !strcasecmp(type, "basic") ||
               !strcasecmp(type, "digest")) {
        char lower[16];
        snprintf(lower, sizeof lower, "%s", type);
        for (char *p = lower; *p; p++)
            if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
        pm_put_str(c, &s, "type", "http");
        pm_put_str(c, &s, "scheme", lower);
        snprintf(sig, sizeof sig, "http|%s", lower);
        base = !strcmp(lower, "bearer")  ? "bearerAuth"
               : !strcmp(lower, "basic") ? "basicAuth"
                                         : "digestAuth";
    } else if (!strcasecmp(type, "oauth2")) {
        scheme = oauth2_scheme(c, auth, sig, sizeof sig, &scopes);
        base = "oauth2Auth";
    } else {
        pm_warn(c, pointer,
                "Postman auth type '%s' has no OpenAPI security scheme; the requests it covers "
                "get none",
                type);
        return NULL;
    }
    if (!scheme) scheme = pm_obj_done(c, &s);
    const char *name = scheme ? scheme_name(c, base, sig, scheme) : NULL;
    if (!name) return NULL;
    pm_obj req = {0};
    pm_put(c, &req, name, pm_arr_done(c, &scopes));
    pm_arr list = {0};
    pm_push(c, &list, pm_obj_done(c, &req));
    return pm_arr_done(c, &list);
}
