/*
 * The Postman importer's bodies: a request's body (raw, urlencoded, formdata, graphql,
 * file) as a requestBody, and its saved example responses as responses by status code
 * and content type, JSON ones with inferred schemas.
 */
#include "oas/postman_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

enum { PM_MAX_EXAMPLES = 200 /* saved responses read per request */ };

/* ---------------------------------------------------------------- bodies */

static const char *language_type(const char *lang)
{
    static const char *const map[][2] = {
        {"json", "application/json"}, {"xml", "application/xml"},
        {"html", "text/html"},        {"javascript", "application/javascript"},
        {"text", "text/plain"},       {"graphql", "application/graphql"}};
    for (size_t i = 0; lang && i < sizeof map / sizeof map[0]; i++)
        if (!strcasecmp(lang, map[i][0])) return map[i][1];
    return NULL;
}

/* A media type object for a text: JSON gets an example value and an inferred schema. */
static jt_node *text_media(pm_ctx *c, const char *ctype, const char *text, jt_node **schema_out)
{
    jt_node *ex = NULL, *schema = NULL;
    size_t len = text ? strlen(text) : 0;
    if (text && (!ctype || strstr(ctype, "json")))
        if (pm_json_example(c, text, len, &ex, &schema)) return NULL;
    pm_obj m = {0};
    if (!schema) schema = pm_type_schema(c, "string", NULL);
    if (!ex && len) ex = pm_strn(c, text, len);
    pm_put(c, &m, "schema", schema);
    if (ex) pm_put(c, &m, "example", ex);
    if (schema_out) *schema_out = schema;
    return pm_obj_done(c, &m);
}

/* urlencoded or formdata: an object schema of the fields (files are binary strings). */
static jt_node *form_media(pm_ctx *c, const jt_node *fields)
{
    pm_obj props = {0}, ex = {0};
    spec_strmap seen = {0};
    for (uint32_t i = 0; jt_is(fields, JT_ARRAY) && i < fields->len; i++) {
        const jt_node *f = fields->u.items[i];
        const char *k = jt_get_str(f, "key");
        if (!k || !*k || spec_strmap_get(&seen, k, strlen(k), NULL)) continue;
        if (spec_strmap_put(&seen, k, strlen(k), 1)) c->oom = true;
        const char *type = jt_get_str(f, "type");
        bool file = type && !strcmp(type, "file");
        jt_node *s = pm_type_schema(c, "string", file ? "binary" : NULL);
        const char *d = pm_desc(jt_get(f, "description"));
        if (d && s) {
            pm_obj so = {.m = s->u.members, .n = s->len, .cap = s->len};
            pm_put_str(c, &so, "description", d);
            s = pm_obj_done(c, &so);
        }
        pm_put(c, &props, k, s);
        const char *v = pm_value_str(c, jt_get(f, "value"));
        if (!file && v) pm_put_str(c, &ex, k, v);
    }
    spec_strmap_free(&seen);
    pm_obj schema = {0}, m = {0};
    pm_put_str(c, &schema, "type", "object");
    pm_put(c, &schema, "properties", pm_obj_done(c, &props));
    pm_put(c, &m, "schema", pm_obj_done(c, &schema));
    if (ex.n) pm_put(c, &m, "example", pm_obj_done(c, &ex));
    return pm_obj_done(c, &m);
}

static jt_node *graphql_media(pm_ctx *c, const jt_node *gql)
{
    pm_obj props = {0}, schema = {0}, ex = {0}, m = {0};
    pm_put(c, &props, "query", pm_type_schema(c, "string", NULL));
    pm_put(c, &props, "variables", pm_type_schema(c, "object", NULL));
    pm_put_str(c, &schema, "type", "object");
    pm_put(c, &schema, "properties", pm_obj_done(c, &props));
    pm_put_str(c, &ex, "query", jt_get_str(gql, "query"));
    const char *vars = jt_get_str(gql, "variables");
    jt_node *vx = NULL, *vs = NULL;
    if (vars && pm_json_example(c, vars, strlen(vars), &vx, &vs)) return NULL;
    if (vx) pm_put(c, &ex, "variables", vx);
    pm_put(c, &m, "schema", pm_obj_done(c, &schema));
    pm_put(c, &m, "example", pm_obj_done(c, &ex));
    return pm_obj_done(c, &m);
}

jt_node *pm_request_body(pm_ctx *c, const jt_node *body, const char *ctype)
{
    const char *mode = jt_get_str(body, "mode");
    if (!mode || jt_get_bool(body, "disabled", false)) return NULL;
    jt_node *media = NULL;
    const char *type = ctype;
    if (!strcmp(mode, "raw")) {
        const char *raw = jt_get_str(body, "raw");
        if (!raw || !*raw) return NULL;
        const jt_node *opts = jt_get(jt_get(body, "options"), "raw");
        if (!type) type = language_type(jt_get_str(opts, "language"));
        if (!type) {
            size_t i = strspn(raw, " \t\r\n");
            type = raw[i] == '{' || raw[i] == '[' ? "application/json" : "text/plain";
        }
        media = text_media(c, type, raw, NULL);
    } else if (!strcmp(mode, "urlencoded")) {
        type = "application/x-www-form-urlencoded";
        media = form_media(c, jt_get(body, "urlencoded"));
    } else if (!strcmp(mode, "formdata")) {
        type = "multipart/form-data";
        media = form_media(c, jt_get(body, "formdata"));
    } else if (!strcmp(mode, "graphql")) {
        type = "application/json";
        media = graphql_media(c, jt_get(body, "graphql"));
    } else if (!strcmp(mode, "file")) {
        if (!type) type = "application/octet-stream";
        pm_obj m = {0};
        pm_put(c, &m, "schema", pm_type_schema(c, "string", "binary"));
        media = pm_obj_done(c, &m);
    } else {
        return NULL;
    }
    pm_obj content = {0}, rb = {0};
    pm_put(c, &content, type, media);
    pm_put(c, &rb, "content", pm_obj_done(c, &content));
    return pm_obj_done(c, &rb);
}

/* ---------------------------------------------------------------- example responses */

typedef struct pm_media_acc {
    const char *type;
    jt_node *schema;
    pm_obj examples;
} pm_media_acc;

typedef struct pm_resp_acc {
    const char *status, *description;
    pm_media_acc *media;
    size_t n_media;
} pm_resp_acc;

static bool obj_has(const pm_obj *o, const char *key)
{
    for (uint32_t i = 0; i < o->n; i++)
        if (!strcmp(o->m[i].key, key)) return true;
    return false;
}

jt_node *pm_responses(pm_ctx *c, const jt_node *list, const char *ptr)
{
    if (!jt_is(list, JT_ARRAY) || !list->len) return NULL;
    uint32_t len = list->len;
    if (len > PM_MAX_EXAMPLES) {
        pm_warn(c, ptr, "%u saved responses; the first %d are read", len, PM_MAX_EXAMPLES);
        len = PM_MAX_EXAMPLES;
    }
    pm_resp_acc *acc = core_arena_calloc(c->a, len, sizeof *acc);
    if (!acc) {
        c->oom = true;
        return NULL;
    }
    size_t n = 0;
    for (uint32_t i = 0; i < len; i++) {
        const jt_node *r = list->u.items[i];
        if (!jt_is(r, JT_OBJECT)) {
            pm_warn(c, core_arena_printf(c->a, "%s/%u", ptr, i),
                    "a saved response is not an object; skipped");
            continue;
        }
        const jt_node *code = jt_get(r, "code");
        char status[16] = "default";
        if (jt_is(code, JT_INT) && code->u.i >= 100 && code->u.i <= 599)
            snprintf(status, sizeof status, "%d", (int)code->u.i);
        const char *ctype = NULL;
        pm_arr ignored = {0};
        pm_header_params(c, jt_get(r, "header"), &ignored, &ctype);
        const char *body = jt_get_str(r, "body");
        if (!ctype) ctype = language_type(jt_get_str(r, "_postman_previewlanguage"));
        if (!ctype && body) {
            size_t k = strspn(body, " \t\r\n");
            ctype = body[k] == '{' || body[k] == '[' ? "application/json" : "text/plain";
        }
        size_t at = 0;
        while (at < n && strcmp(acc[at].status, status)) at++;
        if (at == n) {
            acc[n].status = core_arena_strdup(c->a, status);
            acc[n].description = jt_get_str(r, "status");
            if (!acc[n].description) acc[n].description = jt_get_str(r, "name");
            acc[n].media = core_arena_calloc(c->a, len, sizeof *acc[n].media);
            if (!acc[n].status || !acc[n].media) {
                c->oom = true;
                return NULL;
            }
            n++;
        }
        if (!body || !ctype) continue;
        pm_resp_acc *ra = &acc[at];
        size_t mi = 0;
        while (mi < ra->n_media && strcmp(ra->media[mi].type, ctype)) mi++;
        jt_node *schema = NULL;
        jt_node *m = text_media(c, ctype, body, &schema);
        if (!m) return NULL;
        if (mi == ra->n_media) {
            ra->media[mi].type = ctype;
            ra->media[mi].schema = schema;
            ra->n_media++;
        }
        const char *name = jt_get_str(r, "name");
        char key[128];
        snprintf(key, sizeof key, "%s", name && *name ? name : "example");
        for (unsigned k = 2; obj_has(&ra->media[mi].examples, key); k++)
            snprintf(key, sizeof key, "%.100s (%u)", name && *name ? name : "example", k);
        pm_obj ex = {0};
        if (name) pm_put_str(c, &ex, "summary", name);
        pm_put(c, &ex, "value", (jt_node *)jt_get(m, "example"));
        pm_put(c, &ra->media[mi].examples, key, pm_obj_done(c, &ex));
    }
    pm_obj out = {0};
    for (size_t i = 0; i < n; i++) {
        pm_obj resp = {0}, content = {0};
        pm_put_str(c, &resp, "description", acc[i].description ? acc[i].description : "");
        for (size_t k = 0; k < acc[i].n_media; k++) {
            pm_obj m = {0};
            pm_put(c, &m, "schema", acc[i].media[k].schema);
            pm_put(c, &m, "examples", pm_obj_done(c, &acc[i].media[k].examples));
            pm_put(c, &content, acc[i].media[k].type, pm_obj_done(c, &m));
        }
        if (content.n) pm_put(c, &resp, "content", pm_obj_done(c, &content));
        pm_put(c, &out, acc[i].status, pm_obj_done(c, &resp));
    }
    return pm_obj_done(c, &out);
}
