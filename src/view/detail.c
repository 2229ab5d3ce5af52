/*
 * Detail levels of one operation (summary, call, full) as JSON: the single
 * renderer behind `apidex show`, MCP get_endpoint and HTTP /v1/endpoints. The
 * text those print is made from this JSON (detail_text.c), so the three
 * faces and their two forms never disagree. Nothing is cut silently: enums
 * and body fields are always complete; what a depth limit leaves out is
 * marked where it happens, with the level that has it.
 */
#include "view/view_int.h"
#include "text/text.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    CALL_DEPTH = 3,               /* schema nesting resolved inline at the call level */
    RESPONSE_DEPTH = 1,           /* ... of the success response in brief */
    MAX_DETAIL = 4 * 1024 * 1024, /* bytes of one rendering: a hard stop for huge specs */
    DESC_CALL = 300,              /* description bytes per field at the call level */
    WALK_DEPTH = 64               /* nesting a $ref scan follows (full level) */
};

typedef struct detail_ctx {
    const spec_api *api;
    view_detail level;
    view_emit e;             /* the JSON written, and the first failure */
    core_arena *arena;       /* allOf merges */
    spec_schema_guard guard; /* named schemas being expanded (compact) */
    bool request;            /* a request body: read-only fields are not sent */
    bool brief;              /* the success response at the call level: no descriptions */
    bool as_written;         /* descriptions as written, not plain (VIEW_DETAIL_AS_WRITTEN) */
    bool *listed;            /* full: named schemas already queued (per api->schemas index) */
    size_t *queue;           /* full: named schemas to write under "schemas", in order */
    size_t n_queue;
} detail_ctx;

const char *view_detail_name(view_detail d)
{
    switch (d) {
    case VIEW_DETAIL_SUMMARY:
        return "summary";
    case VIEW_DETAIL_CALL:
        return "call";
    case VIEW_DETAIL_FULL:
        return "full";
    }
    return "call";
}

int view_detail_parse(const char *name, view_detail *out, apidex_error *err)
{
    static const view_detail all[] = {VIEW_DETAIL_SUMMARY, VIEW_DETAIL_CALL, VIEW_DETAIL_FULL};
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(name, view_detail_name(all[i]))) {
            *out = all[i];
            return 0;
        }
    return core_error_set(err, APIDEX_EINVAL, "detail must be summary, call or full (got '%.40s')",
                          name ? name : "");
}

/* ---------------------------------------------------------------- writing */

/* ,"key": */
static void key(detail_ctx *c, bool *first, const char *k)
{
    view_put(&c->e, *first ? "\"" : ",\"");
    *first = false;
    view_put(&c->e, k);
    view_put(&c->e, "\":");
}

/* A description as plain text (HTML and markdown stripped: text_plain; the index keeps the
   raw text): whole at the full level, else on one line cut at a word boundary ("..."). */
static void desc(detail_ctx *c, const char *s)
{
    if (c->as_written) {
        view_put_json_str(&c->e, s);
        return;
    }
    core_buf p, t;
    core_buf_init(&p, 0);
    core_buf_init(&t, 0);
    int rc = text_plain(s, strlen(s), c->level == VIEW_DETAIL_FULL ? 0 : TEXT_PLAIN_ONE_LINE, &p);
    const char *plain = p.data ? p.data : "";
    if (rc)
        c->e.rc = rc;
    else if (c->level == VIEW_DETAIL_FULL)
        view_put_json_strn(&c->e, plain, p.len);
    else if (view_clean_text(NULL, plain, DESC_CALL, &t, NULL))
        c->e.rc = APIDEX_ENOMEM;
    else
        view_put_json_strn(&c->e, t.data ? t.data : "", t.len);
    core_buf_free(&p);
    core_buf_free(&t);
}

static bool too_big(detail_ctx *c)
{
    if (!c->e.rc && c->e.out->len > MAX_DETAIL) c->e.rc = APIDEX_ELIMIT;
    return c->e.rc != 0;
}

/* ---------------------------------------------------------------- compact schemas */

static const char *schema_name(const detail_ctx *c, long idx)
{
    return idx >= 0 && (size_t)idx < c->api->n_schemas ? c->api->schemas[idx].name : NULL;
}

/* Keywords copied as written: they say what a value may be. They are the keywords from "type"
   to "required" in the order of spec_schema_kw (oas.h, an enum that only grows), less the
   prose and the samples, which are written apart (or not at all). */
static bool plain_key(spec_schema_kw k)
{
    return k >= SPEC_KW_TYPE && k <= SPEC_KW_REQUIRED && k != SPEC_KW_TITLE &&
           k != SPEC_KW_DESCRIPTION && k != SPEC_KW_EXAMPLE && k != SPEC_KW_EXAMPLES;
}

/* "key": with the keyword's spelling */
static void kw_key(detail_ctx *c, bool *first, spec_schema_kw k)
{
    key(c, first, spec_schema_kw_name(k));
}

static void compact(detail_ctx *c, spec_loc loc, unsigned depth_left);

static void compact_list(detail_ctx *c, const jt_node *arr, const spec_doc *doc, unsigned depth)
{
    view_put(&c->e, "[");
    for (uint32_t i = 0; i < arr->len && !c->e.rc; i++) {
        if (i) view_put(&c->e, ",");
        compact(c, (spec_loc){arr->u.items[i], doc}, depth);
    }
    view_put(&c->e, "]");
}

/* A JSON Schema with $refs resolved (allOf merged) down to depth_left levels of
   objects; a schema already being expanded above is {"$circular": Name}, and an
   object past the depth names what it leaves out. */
static void compact(detail_ctx *c, spec_loc loc, unsigned depth_left)
{
    if (too_big(c)) return;
    if (!loc.node) {
        view_put(&c->e, "{}");
        return;
    }
    spec_schema_view v;
    if (spec_schema_view_open(c->api, loc, c->arena, &v) != 0) {
        view_put(&c->e, "{\"$unresolved\":");
        view_put_json_str(&c->e, v.ref);
        view_put(&c->e, "}");
        return;
    }
    long idx = v.index;
    const jt_node *n = v.loc.node;
    const char *name = schema_name(c, idx);
    if (spec_schema_guard_has(&c->guard, idx)) {
        view_put(&c->e, "{\"$circular\":");
        view_put_json_str(&c->e, name);
        view_put(&c->e, "}");
        return;
    }
    if (!jt_is(n, JT_OBJECT)) {
        view_put_json(&c->e, n);
        return;
    }
    bool first = true;
    view_put(&c->e, "{");
    if (name) {
        key(c, &first, "title");
        view_put_json_str(&c->e, name);
    }
    for (spec_schema_kw k = SPEC_KW_TYPE; k <= SPEC_KW_REQUIRED; k++) {
        const jt_node *kv = plain_key(k) ? v.kw[k] : NULL;
        /* A Swagger 2.0 parameter is its own schema: its "required" is a boolean. */
        if (!kv || (k == SPEC_KW_REQUIRED && !jt_is(kv, JT_ARRAY))) continue;
        kw_key(c, &first, k);
        view_put_json(&c->e, kv);
    }
    const char *ds = v.description;
    if (!ds) ds = v.written_description;
    if (ds && *ds && !c->brief) {
        kw_key(c, &first, SPEC_KW_DESCRIPTION);
        desc(c, ds);
    }
    const jt_node *ex = v.kw[SPEC_KW_EXAMPLE];
    if (ex && !c->brief &&
        (c->level == VIEW_DETAIL_FULL || (ex->type != JT_OBJECT && ex->type != JT_ARRAY))) {
        kw_key(c, &first, SPEC_KW_EXAMPLE);
        view_put_json(&c->e, ex);
    }
    bool pushed = idx >= 0 && spec_schema_guard_push(&c->guard, idx);
    const jt_node *props = v.kw[SPEC_KW_PROPERTIES];
    if (spec_schema_view_has_properties(&v)) {
        if (depth_left == 0) {
            key(c, &first, "x-apidex-omitted");
            view_putf(&c->e, "\"%u properties past the depth limit: detail=full lists them\"",
                      props->len);
        } else {
            kw_key(c, &first, SPEC_KW_PROPERTIES);
            view_put(&c->e, "{");
            bool pf = true;
            for (uint32_t i = 0; i < props->len && !c->e.rc; i++) {
                const jt_member *pm = &props->u.members[i];
                spec_loc pl = spec_schema_view_at(&v, pm->value);
                spec_schema_view pv; /* $ref followed, not merged */
                spec_schema_view_open(c->api, pl, NULL, &pv);
                bool ro = pv.written_read_only || pv.read_only;
                if (c->request && ro) continue;
                view_put(&c->e, pf ? "" : ",");
                pf = false;
                view_put_json_strn(&c->e, pm->key, pm->key_len);
                view_put(&c->e, ":");
                compact(c, pl, depth_left - 1);
            }
            view_put(&c->e, "}");
        }
    }
    const jt_node *items = v.kw[SPEC_KW_ITEMS];
    if (items) {
        kw_key(c, &first, SPEC_KW_ITEMS);
        compact(c, spec_schema_view_at(&v, items), depth_left);
    }
    const jt_node *ap = v.kw[SPEC_KW_ADDITIONAL_PROPERTIES];
    if (ap) {
        kw_key(c, &first, SPEC_KW_ADDITIONAL_PROPERTIES);
        if (jt_is(ap, JT_OBJECT))
            compact(c, spec_schema_view_at(&v, ap), depth_left ? depth_left - 1 : 0);
        else
            view_put_json(&c->e, ap);
    }
    static const spec_schema_kw alts[] = {SPEC_KW_ONE_OF, SPEC_KW_ANY_OF};
    for (size_t k = 0; k < sizeof alts / sizeof alts[0]; k++) {
        const jt_node *a = v.kw[alts[k]];
        if (!jt_is(a, JT_ARRAY)) continue;
        kw_key(c, &first, alts[k]);
        compact_list(c, a, v.loc.doc, depth_left);
    }
    const jt_node *disc = v.kw[SPEC_KW_DISCRIMINATOR];
    if (disc) {
        kw_key(c, &first, SPEC_KW_DISCRIMINATOR);
        view_put_json(&c->e, disc);
    }
    if (pushed) spec_schema_guard_pop(&c->guard);
    view_put(&c->e, "}");
}

/* ---------------------------------------------------------------- full: schemas once */

static void queue_schema(detail_ctx *c, long idx)
{
    if (idx < 0 || (size_t)idx >= c->api->n_schemas || c->listed[idx]) return;
    c->listed[idx] = true;
    c->queue[c->n_queue++] = (size_t)idx;
}

/* Every named schema a node references ($ref), queued once. */
static void scan_refs(detail_ctx *c, spec_loc loc, unsigned depth)
{
    const jt_node *n = loc.node;
    if (!n || depth > WALK_DEPTH) return;
    if (n->type == JT_ARRAY) {
        for (uint32_t i = 0; i < n->len; i++)
            scan_refs(c, (spec_loc){n->u.items[i], loc.doc}, depth + 1);
        return;
    }
    if (n->type != JT_OBJECT) return;
    if (spec_ref_target(loc)) {
        spec_schema_view v; /* the reference itself, else its target, may be named */
        spec_schema_view_open(c->api, loc, NULL, &v);
        long idx = v.index;
        if (idx < 0 && !v.unresolved) idx = spec_schema_index(c->api, v.loc);
        queue_schema(c, idx);
        return;
    }
    for (uint32_t i = 0; i < n->len; i++)
        scan_refs(c, (spec_loc){n->u.members[i].value, loc.doc}, depth + 1);
}

/* A schema where the operation uses it: resolved (call) or as written (full). */
static void schema_at(detail_ctx *c, spec_loc loc, unsigned depth)
{
    if (c->level == VIEW_DETAIL_FULL) {
        scan_refs(c, loc, 0);
        view_put_json(&c->e, loc.node);
    } else {
        compact(c, loc, depth);
    }
}

/* ---------------------------------------------------------------- the parts */

static void write_servers(detail_ctx *c, const spec_operation *op)
{
    spec_server_written *sv;
    size_t n;
    if (spec_operation_servers_written(c->api, op, c->arena, &sv, &n)) c->e.rc = APIDEX_ENOMEM;
    view_put(&c->e, "[");
    for (size_t i = 0; i < n && !c->e.rc; i++) {
        bool first = true;
        view_put(&c->e, i ? ",{" : "{");
        key(c, &first, "url");
        view_put_json_str(&c->e, sv[i].url);
        if (sv[i].description) {
            key(c, &first, "description");
            desc(c, sv[i].description);
        }
        if (sv[i].n_vars) {
            key(c, &first, "variables");
            view_put(&c->e, "{");
            for (size_t v = 0; v < sv[i].n_vars; v++) {
                const spec_server_var *var = &sv[i].vars[v];
                if (v) view_put(&c->e, ",");
                view_put_json_strn(&c->e, var->name, var->name_len);
                view_put(&c->e, ":{");
                bool vf = true;
                if (var->default_json) {
                    key(c, &vf, "default");
                    view_put_json(&c->e, var->default_json);
                }
                if (var->enum_json) {
                    key(c, &vf, "enum");
                    view_put_json(&c->e, var->enum_json);
                }
                if (var->description) {
                    key(c, &vf, "description");
                    desc(c, var->description);
                }
                view_put(&c->e, "}");
            }
            view_put(&c->e, "}");
        }
        view_put(&c->e, "}");
    }
    for (size_t i = 0; !n && i < c->api->n_servers; i++) { /* derived: Swagger 2.0 host */
        view_put(&c->e, i ? ",{\"url\":" : "{\"url\":");
        view_put_json_str(&c->e, c->api->servers[i].url);
        view_put(&c->e, "}");
    }
    view_put(&c->e, "]");
}

/* The full URL template: the first server's URL and the path. */
static void write_url(detail_ctx *c, const spec_operation *op)
{
    spec_server_written *sv;
    size_t n;
    if (spec_operation_servers_written(c->api, op, c->arena, &sv, &n)) {
        c->e.rc = APIDEX_ENOMEM;
        return;
    }
    const char *base = n ? sv[0].url : (c->api->n_servers ? c->api->servers[0].url : NULL);
    size_t bl = base ? strlen(base) : 0;
    while (bl && base[bl - 1] == '/') bl--;
    core_buf u;
    core_buf_init(&u, 0);
    if ((bl && core_buf_append(&u, base, bl)) || core_buf_puts(&u, op->path))
        c->e.rc = APIDEX_ENOMEM;
    else
        view_put_json_strn(&c->e, u.data, u.len);
    core_buf_free(&u);
}

/* ,"k":"v" when v is not NULL */
static void key_str(detail_ctx *c, bool *first, const char *k, const char *v)
{
    if (!v) return;
    key(c, first, k);
    view_put_json_str(&c->e, v);
}

/* One scheme: its type and where the credential goes. */
static void write_scheme(detail_ctx *c, const jt_member *req)
{
    spec_security_scheme sc;
    spec_security_scheme_find(c->api, req->key, req->key_len, &sc);
    const char *type = sc.type;
    bool first = true;
    view_put(&c->e, "{");
    key(c, &first, "name");
    view_put_json_strn(&c->e, req->key, req->key_len);
    key(c, &first, "type");
    view_put_json_str(&c->e, type);
    const char *scheme = sc.scheme;
    if (type && !strcmp(type, "basic")) scheme = "basic"; /* Swagger 2.0 */
    if (type && !strcmp(type, "apiKey")) {
        key(c, &first, "in");
        view_put_json_str(&c->e, sc.in);
        key(c, &first, "param");
        view_put_json_str(&c->e, sc.param);
    } else if (scheme || (type && (!strcmp(type, "oauth2") || !strcmp(type, "openIdConnect")))) {
        bool basic = scheme && !strcasecmp(scheme, "basic");
        key(c, &first, "in");
        view_put_json_str(&c->e, "header");
        key(c, &first, "param");
        view_put_json_str(&c->e, "Authorization");
        key(c, &first, "format");
        view_put_json_str(&c->e, basic ? "Basic base64(user:password)"
                                 : scheme && strcasecmp(scheme, "bearer") ? scheme
                                                                          : "Bearer <token>");
    }
    key_str(c, &first, "tokenUrl", sc.token_url);
    key_str(c, &first, "authorizationUrl", sc.authorization_url);
    key_str(c, &first, "openIdConnectUrl", sc.openid_url);
    key_str(c, &first, "flow", sc.flow);
    if (sc.flows && c->level == VIEW_DETAIL_FULL) {
        key(c, &first, "flows");
        view_put_json(&c->e, sc.flows);
    } else {
        key_str(c, &first, "tokenUrl", sc.flows_token_url);
        key_str(c, &first, "authorizationUrl", sc.flows_authorization_url);
    }
    if (jt_is(req->value, JT_ARRAY) && req->value->len) {
        key(c, &first, "scopes");
        view_put_json(&c->e, req->value);
    }
    view_put(&c->e, "}");
}

/* [[scheme, ...], ...]: any one inner list satisfies the operation (all of its schemes). */
static void write_auth(detail_ctx *c, const spec_operation *op)
{
    const jt_node *sec = op->security.node;
    view_put(&c->e, "[");
    for (uint32_t i = 0; jt_is(sec, JT_ARRAY) && i < sec->len && !c->e.rc; i++) {
        const jt_node *req = sec->u.items[i];
        view_put(&c->e, i ? ",[" : "[");
        for (uint32_t j = 0; jt_is(req, JT_OBJECT) && j < req->len; j++) {
            if (j) view_put(&c->e, ",");
            write_scheme(c, &req->u.members[j]);
        }
        view_put(&c->e, "]");
    }
    view_put(&c->e, "]");
}

static void write_params(detail_ctx *c, const spec_operation *op)
{
    view_put(&c->e, "[");
    for (size_t i = 0; i < op->n_params && !c->e.rc; i++) {
        const spec_param *p = &op->params[i];
        bool first = true;
        view_put(&c->e, i ? ",{" : "{");
        key(c, &first, "name");
        view_put_json_str(&c->e, p->name);
        key(c, &first, "in");
        view_put_json_str(&c->e, p->in);
        key(c, &first, "required");
        view_put(&c->e, p->required ? "true" : "false");
        if (p->deprecated) {
            key(c, &first, "deprecated");
            view_put(&c->e, "true");
        }
        if (p->description && *p->description) {
            key(c, &first, "description");
            desc(c, p->description);
        }
        spec_serialization px = spec_param_serialization(p);
        const struct {
            const char *key;
            const jt_node *v;
        } extra[] = {{"style", px.style_json},
                     {"explode", px.explode_json},
                     {"example", px.example},
                     {"examples", c->level == VIEW_DETAIL_FULL ? px.examples : NULL}};
        for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) {
            if (!extra[k].v) continue;
            key(c, &first, extra[k].key);
            view_put_json(&c->e, extra[k].v);
        }
        /* Swagger 2.0: the schema is the parameter; its own description is above. */
        if (p->schema.node) {
            key(c, &first, "schema");
            if (p->schema.node == p->node.node && c->level != VIEW_DETAIL_FULL) {
                bool keep = c->brief;
                c->brief = true;
                compact(c, p->schema, CALL_DEPTH);
                c->brief = keep;
            } else {
                schema_at(c, p->schema, CALL_DEPTH);
            }
        }
        view_put(&c->e, "}");
    }
    view_put(&c->e, "]");
}

/* A content map at detail full: {media type: {schema[, example]}}, the example (a request
   body's) only when with_example. */
static void write_content(detail_ctx *c, const spec_media *media, size_t n, bool with_example)
{
    view_put(&c->e, "{");
    for (size_t i = 0; i < n && !c->e.rc; i++) {
        if (i) view_put(&c->e, ",");
        view_put_json_str(&c->e, media[i].type ? media[i].type : "");
        view_put(&c->e, ":{\"schema\":");
        if (media[i].schema.node)
            schema_at(c, media[i].schema, 0);
        else
            view_put(&c->e, "null");
        const jt_node *ex = with_example ? spec_media_example(&media[i]) : NULL;
        if (ex) {
            view_put(&c->e, ",\"example\":");
            view_put_json(&c->e, ex);
        }
        view_put(&c->e, "}");
    }
    view_put(&c->e, "}");
}

static void write_body(detail_ctx *c, const spec_operation *op)
{
    const spec_body *b = op->body;
    if (!b) {
        view_put(&c->e, "null");
        return;
    }
    bool first = true;
    view_put(&c->e, "{");
    key(c, &first, "required");
    view_put(&c->e, b->required ? "true" : "false");
    if (b->description && *b->description) {
        key(c, &first, "description");
        desc(c, b->description);
    }
    key(c, &first, "content_types");
    view_put(&c->e, "[");
    for (size_t i = 0; i < b->n_media; i++) {
        if (i) view_put(&c->e, ",");
        view_put_json_str(&c->e, b->media[i].type);
    }
    view_put(&c->e, "]");
    const spec_media *m = spec_pick_media(b->media, b->n_media);
    if (c->level == VIEW_DETAIL_FULL) {
        key(c, &first, "content");
        write_content(c, b->media, b->n_media, true);
    } else if (m) {
        key(c, &first, "content_type");
        view_put_json_str(&c->e, m->type);
        key(c, &first, "schema");
        c->request = true;
        if (m->schema.node)
            compact(c, m->schema, CALL_DEPTH);
        else
            view_put(&c->e, "null");
        c->request = false;
    }
    view_put(&c->e, "}");
}

static void write_response(detail_ctx *c, const spec_response *r, bool brief)
{
    bool first = true;
    view_put(&c->e, "{");
    key(c, &first, "status");
    view_put_json_str(&c->e, r->status);
    if (r->description && *r->description) {
        key(c, &first, "description");
        desc(c, r->description);
    }
    const spec_media *m = spec_pick_media(r->media, r->n_media);
    if (c->level == VIEW_DETAIL_FULL) {
        if (r->n_media) {
            key(c, &first, "content");
            write_content(c, r->media, r->n_media, false);
        }
        if (jt_is(r->headers.node, JT_OBJECT)) {
            key(c, &first, "headers");
            scan_refs(c, r->headers, 0);
            view_put_json(&c->e, r->headers.node);
        }
    } else if (m) {
        key(c, &first, "content_type");
        view_put_json_str(&c->e, m->type);
        if (m->schema.node) {
            key(c, &first, "schema");
            c->brief = brief;
            compact(c, m->schema, brief ? RESPONSE_DEPTH : CALL_DEPTH);
            c->brief = false;
            if (brief) {
                key(c, &first, "x-apidex-brief");
                view_put_json_str(
                    &c->e, "top-level fields only, without descriptions: detail=full has the whole "
                           "schema");
            }
        }
    }
    view_put(&c->e, "}");
}

/* Every input the caller must supply: required parameters and required top-level
   body fields (form or JSON). */
static void write_inputs(detail_ctx *c, const spec_operation *op)
{
    view_put(&c->e, "[");
    bool first = true;
    for (size_t i = 0; i < op->n_params; i++) {
        const spec_param *p = &op->params[i];
        if (!p->required) continue;
        view_put(&c->e, first ? "{\"name\":" : ",{\"name\":");
        first = false;
        view_put_json_str(&c->e, p->name);
        view_put(&c->e, ",\"in\":");
        view_put_json_str(&c->e, p->in);
        view_put(&c->e, ",\"required\":true}");
    }
    const spec_media *m = op->body ? spec_pick_media(op->body->media, op->body->n_media) : NULL;
    spec_schema_view v;
    if (m && m->schema.node && spec_schema_view_open(c->api, m->schema, c->arena, &v) == 0 &&
        v.loc.node) {
        const jt_node *req = v.kw[SPEC_KW_REQUIRED];
        for (uint32_t i = 0; jt_is(req, JT_ARRAY) && i < req->len; i++) {
            const char *name = jt_str(req->u.items[i]);
            if (!name) continue;
            view_put(&c->e, first ? "{\"name\":" : ",{\"name\":");
            first = false;
            view_put_json_str(&c->e, name);
            view_put(&c->e, ",\"in\":\"body\",\"required\":true}");
        }
    }
    view_put(&c->e, "]");
}

int view_detail_json(const spec_api *api, const spec_operation *op, view_detail level,
                     core_buf *out)
{
    detail_ctx c = {.api = api,
                    .level = (view_detail)(level & VIEW_DETAIL_LEVEL_MASK),
                    .as_written = (level & VIEW_DETAIL_AS_WRITTEN) != 0,
                    .e = {.out = out}};
    level = c.level;
    size_t start = out->len;
    c.arena = core_arena_new(0);
    spec_schema_guard_init(&c.guard, CALL_DEPTH + 8);
    if (level == VIEW_DETAIL_FULL) {
        c.listed = calloc(api->n_schemas ? api->n_schemas : 1, sizeof *c.listed);
        c.queue = malloc((api->n_schemas ? api->n_schemas : 1) * sizeof *c.queue);
    }
    if (!c.arena || (level == VIEW_DETAIL_FULL && (!c.listed || !c.queue))) c.e.rc = APIDEX_ENOMEM;
    bool first = true;
    view_put(&c.e, "{");
    key(&c, &first, "id");
    view_put_json_str(&c.e, op->id);
    key(&c, &first, "api");
    view_put_json_str(&c.e, api->id);
    key(&c, &first, "detail");
    view_put_json_str(&c.e, view_detail_name(level));
    key(&c, &first, "method");
    view_put_json_str(&c.e, op->method);
    key(&c, &first, "path");
    view_put_json_str(&c.e, op->path);
    key(&c, &first, "url");
    write_url(&c, op);
    key(&c, &first, "summary");
    view_put_json_str(&c.e, op->summary);
    if (level == VIEW_DETAIL_SUMMARY && !op->summary && op->description) {
        /* Stripe has descriptions only: the line still says what the endpoint does. */
        key(&c, &first, "description");
        desc(&c, op->description);
    }
    if (level != VIEW_DETAIL_SUMMARY) {
        key(&c, &first, "api_title");
        view_put_json_str(&c.e, api->title);
        key(&c, &first, "operation_id");
        view_put_json_str(&c.e, op->operation_id);
        key(&c, &first, "tags");
        view_put(&c.e, "[");
        for (size_t i = 0; i < op->n_tags; i++) {
            if (i) view_put(&c.e, ",");
            view_put_json_str(&c.e, op->tags[i]);
        }
        view_put(&c.e, "]");
        key(&c, &first, "deprecated");
        view_put(&c.e, op->deprecated ? "true" : "false");
        key(&c, &first, "description");
        if (op->description && *op->description) {
            /* the operation's own description whole, as plain text */
            view_detail saved = c.level;
            c.level = VIEW_DETAIL_FULL;
            desc(&c, op->description);
            c.level = saved;
        } else {
            view_put(&c.e, "null");
        }
        key(&c, &first, "servers");
        write_servers(&c, op);
        key(&c, &first, "auth");
        write_auth(&c, op);
        key(&c, &first, "parameters");
        write_params(&c, op);
        key(&c, &first, "request_body");
        write_body(&c, op);
        key(&c, &first, "inputs");
        write_inputs(&c, op);
        const spec_response *ok = spec_success_response(op);
        if (level == VIEW_DETAIL_CALL) {
            key(&c, &first, "response");
            if (ok)
                write_response(&c, ok, true);
            else
                view_put(&c.e, "null");
        } else {
            key(&c, &first, "responses");
            view_put(&c.e, "[");
            for (size_t i = 0; i < op->n_responses && !c.e.rc; i++) {
                if (i) view_put(&c.e, ",");
                write_response(&c, &op->responses[i], false);
            }
            view_put(&c.e, "]");
            key(&c, &first, "schemas");
            view_put(&c.e, "{");
            /* The queue grows while it is written: what a schema references comes after it. */
            for (size_t q = 0; q < c.n_queue && !c.e.rc; q++) {
                const spec_schema *s = &api->schemas[c.queue[q]];
                if (q) view_put(&c.e, ",");
                core_buf kb;
                core_buf_init(&kb, 0);
                if (core_buf_printf(&kb, "#%s", s->pointer ? s->pointer : s->name))
                    c.e.rc = APIDEX_ENOMEM;
                else
                    view_put_json_strn(&c.e, kb.data, kb.len);
                core_buf_free(&kb);
                view_put(&c.e, ":");
                scan_refs(&c, s->node, 0);
                view_put_json(&c.e, s->node.node);
            }
            view_put(&c.e, "}");
        }
    }
    view_put(&c.e, "}");
    core_arena_free(c.arena);
    free(c.listed);
    free(c.queue);
    if (c.e.rc) {
        out->len = start;
        if (out->data) out->data[start] = '\0';
    }
    return c.e.rc;
}
