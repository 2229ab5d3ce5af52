/*
 * Swagger 2.0 and OAS 3.x into one model: info, servers, tags and operations
 * with merged parameters, request bodies and responses. Swagger shapes that
 * OAS 3 spells differently (body and formData parameters, produces/consumes,
 * host/basePath/schemes) are synthesised as OAS 3 nodes in the API's arena.
 */
#include "oas/oas_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const methods[] = {"get",     "put",  "post",  "delete",
                                      "options", "head", "patch", "trace"};
static const char *const methods_uc[] = {"GET",     "PUT",  "POST",  "DELETE",
                                         "OPTIONS", "HEAD", "PATCH", "TRACE"};

/* ---------------------------------------------------------------- small helpers */

static spec_loc deref_loc(const spec_api_int *ai, spec_loc l)
{
    spec_loc out;
    if (spec_deref(&ai->pub, l, &out)) return (spec_loc){0};
    return out;
}

/* The member as written (may be a $ref), in obj's document. */
static spec_loc raw_member(spec_loc obj, const char *key)
{
    const jt_node *v = jt_get(obj.node, key);
    return v ? (spec_loc){v, obj.doc} : (spec_loc){0};
}

/* The member with its $ref followed; node NULL when absent or unresolved. */
static spec_loc member(const spec_api_int *ai, spec_loc obj, const char *key)
{
    spec_loc v = raw_member(obj, key);
    return v.node ? deref_loc(ai, v) : v;
}

const char *spec_get_str(const spec_api_int *ai, spec_loc obj, const char *key)
{
    return jt_str(member(ai, obj, key).node);
}

/*
 * A boolean member. The strings "true" and "false" (some generators write them quoted)
 * are read as the booleans they spell, with a warning; anything else that is not a
 * boolean counts as false.
 */
static bool get_bool(spec_api_int *ai, spec_loc obj, const char *key)
{
    spec_loc m = member(ai, obj, key);
    const jt_node *v = m.node;
    if (!v) return false;
    if (v->type == JT_BOOL) return v->boolean;
    const char *str = jt_str(v);
    if (str && (!strcasecmp(str, "true") || !strcasecmp(str, "false"))) {
        bool b = !strcasecmp(str, "true");
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ESPEC, m.doc, v, NULL,
                  "'%s' is the string \"%s\", not a boolean; read as %s", key, str,
                  b ? "true" : "false");
        return b;
    }
    return false;
}

static jt_node *obj_new(core_arena *a, size_t n)
{
    return jt_new_object(a, n);
}

static void obj_set(jt_node *o, uint32_t *i, const char *key, jt_node *v)
{
    o->u.members[*i].key = key;
    o->u.members[*i].key_len = (uint32_t)strlen(key);
    o->u.members[*i].value = v;
    (*i)++;
}

static const char *op_pointer(spec_api_int *ai, const char *path, const char *method)
{
    core_buf b;
    core_buf_init(&b, 1 << 20);
    core_buf_puts(&b, "/paths");
    jt_pointer_append(&b, path, strlen(path));
    jt_pointer_append(&b, method, strlen(method));
    const char *p = b.failed ? NULL : core_arena_strndup(ai->arena, b.data, b.len);
    core_buf_free(&b);
    return p;
}

/* ---------------------------------------------------------------- info, servers, tags */

static int build_info(spec_api_int *ai)
{
    spec_api *api = &ai->pub;
    spec_loc info = member(ai, api->root, "info");
    api->title = spec_get_str(ai, info, "title");
    api->version = spec_get_str(ai, info, "version");
    api->description = spec_get_str(ai, info, "description");
    api->provider = spec_get_str(ai, info, "x-providerName");
    api->service = spec_get_str(ai, info, "x-serviceName");
    if (!info.node)
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ESPEC, api->root.doc, api->root.node, "",
                  "the document has no 'info' object");
    return 0;
}

static int build_servers(spec_api_int *ai)
{
    spec_api *api = &ai->pub;
    if (api->major == 3) {
        spec_loc servers = member(ai, api->root, "servers");
        if (!jt_is(servers.node, JT_ARRAY)) return 0;
        api->servers = core_arena_calloc(ai->arena, servers.node->len + 1, sizeof *api->servers);
        if (!api->servers) return APIDEX_ENOMEM;
        for (uint32_t i = 0; i < servers.node->len; i++) {
            spec_loc s = deref_loc(ai, (spec_loc){servers.node->u.items[i], servers.doc});
            const char *url = spec_get_str(ai, s, "url");
            if (!url) continue;
            api->servers[api->n_servers].url = url;
            api->servers[api->n_servers++].description = spec_get_str(ai, s, "description");
        }
        return 0;
    }
    /* Swagger 2.0: every scheme × host + basePath */
    const char *host = spec_get_str(ai, api->root, "host");
    const char *base = spec_get_str(ai, api->root, "basePath");
    spec_loc schemes = member(ai, api->root, "schemes");
    size_t ns = jt_is(schemes.node, JT_ARRAY) ? schemes.node->len : 0;
    api->servers = core_arena_calloc(ai->arena, ns + 1, sizeof *api->servers);
    if (!api->servers) return APIDEX_ENOMEM;
    if (!host) {
        if (base) api->servers[api->n_servers++].url = base;
        return 0;
    }
    for (size_t i = 0; i < ns; i++) {
        const char *sch = jt_str(schemes.node->u.items[i]);
        if (!sch) continue;
        const char *url = core_arena_printf(ai->arena, "%s://%s%s", sch, host, base ? base : "");
        if (!url) return APIDEX_ENOMEM;
        api->servers[api->n_servers++].url = url;
    }
    if (!api->n_servers) {
        const char *url = core_arena_printf(ai->arena, "https://%s%s", host, base ? base : "");
        if (!url) return APIDEX_ENOMEM;
        api->servers[api->n_servers++].url = url;
    }
    return 0;
}

static int build_tags(spec_api_int *ai)
{
    spec_api *api = &ai->pub;
    spec_loc tags = member(ai, api->root, "tags");
    size_t declared = jt_is(tags.node, JT_ARRAY) ? tags.node->len : 0;
    size_t used = 0;
    for (size_t i = 0; i < api->n_ops; i++) used += api->ops[i].n_tags;
    api->tags = core_arena_calloc(ai->arena, declared + used + 1, sizeof *api->tags);
    if (!api->tags) return APIDEX_ENOMEM;
    spec_strmap seen = {0};
    int rc = 0;
    for (size_t i = 0; i < declared && !rc; i++) {
        spec_loc t = deref_loc(ai, (spec_loc){tags.node->u.items[i], tags.doc});
        const char *name = spec_get_str(ai, t, "name");
        if (!name || spec_strmap_get(&seen, name, strlen(name), NULL)) continue;
        rc = spec_strmap_put(&seen, name, strlen(name), api->n_tags);
        api->tags[api->n_tags].name = name;
        api->tags[api->n_tags++].description = spec_get_str(ai, t, "description");
    }
    /* tags that operations use without declaring them */
    for (size_t i = 0; i < api->n_ops && !rc; i++)
        for (size_t j = 0; j < api->ops[i].n_tags && !rc; j++) {
            const char *name = api->ops[i].tags[j];
            if (spec_strmap_get(&seen, name, strlen(name), NULL)) continue;
            rc = spec_strmap_put(&seen, name, strlen(name), api->n_tags);
            api->tags[api->n_tags].name = name;
            api->tags[api->n_tags++].description = NULL;
        }
    spec_strmap_free(&seen);
    return rc;
}

/* ---------------------------------------------------------------- parameters */

typedef struct op_builder {
    spec_api_int *ai;
    const char *pointer; /* of the operation, for diagnostics */
    spec_param *params;  /* merged list being built */
    size_t n_params;
    spec_loc *raw_params; /* the parameter as written, parallel to params */
    spec_strmap by_key;   /* "in\0name" → index, once the list is long (no quadratic merge) */
} op_builder;

enum { PARAMS_INDEXED = 16 };

/* "in\0name" (a body is one parameter whatever its name) into buf; its length. */
static size_t param_key(const spec_param *p, char *buf, size_t cap)
{
    bool body = strcmp(p->in, "body") == 0;
    int n = snprintf(buf, cap, "%s%c%s", p->in, 0, body ? "" : p->name);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

static bool same_param(const spec_param *a, const spec_param *b)
{
    if (strcmp(a->in, b->in) != 0) return false;
    return strcmp(a->in, "body") == 0 || strcmp(a->name, b->name) == 0;
}

/* Adds (or overrides) the parameters of one list (path-level first, then operation-level). */
static int add_params(op_builder *b, spec_loc list)
{
    spec_api_int *ai = b->ai;
    if (!list.node) return 0;
    if (list.node->type != JT_ARRAY) {
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ESPEC, list.doc, list.node, NULL,
                  "'parameters' of %s is not a list", b->pointer);
        return 0;
    }
    for (uint32_t i = 0; i < list.node->len; i++) {
        spec_loc raw = {list.node->u.items[i], list.doc};
        spec_loc p = deref_loc(ai, raw);
        if (!p.node) continue; /* the unresolved $ref has its warning */
        const char *name = jt_get_str(p.node, "name"), *in = jt_get_str(p.node, "in");
        if (p.node->type != JT_OBJECT || !name || !in) {
            spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ESPEC, p.doc, p.node, NULL,
                      "a parameter of %s has no 'name' or 'in'; it is ignored", b->pointer);
            continue;
        }
        spec_param q = {0};
        q.name = name;
        q.in = in;
        q.description = spec_get_str(ai, p, "description");
        q.required = get_bool(ai, p, "required") || strcmp(in, "path") == 0;
        q.deprecated = get_bool(ai, p, "deprecated");
        q.node = p;
        if (ai->pub.major == 2) {
            q.schema = strcmp(in, "body") == 0 ? raw_member(p, "schema") : p;
        } else {
            q.schema = raw_member(p, "schema");
            if (!q.schema.node) {
                /* `content` instead of `schema`: the one media type's schema */
                spec_loc content = member(ai, p, "content");
                if (jt_is(content.node, JT_OBJECT) && content.node->len) {
                    spec_loc media =
                        deref_loc(ai, (spec_loc){content.node->u.members[0].value, content.doc});
                    q.schema = raw_member(media, "schema");
                }
            }
        }
        size_t k = 0;
        char key[512];
        if (b->n_params < PARAMS_INDEXED) {
            while (k < b->n_params && !same_param(&b->params[k], &q)) k++;
        } else {
            if (!b->by_key.n) /* index the list once it gets long */
                for (size_t j = 0; j < b->n_params; j++)
                    if (spec_strmap_put(&b->by_key, key, param_key(&b->params[j], key, sizeof key),
                                        j))
                        return APIDEX_ENOMEM;
            size_t kl = param_key(&q, key, sizeof key);
            if (!spec_strmap_get(&b->by_key, key, kl, &k)) {
                k = b->n_params;
                if (spec_strmap_put(&b->by_key, key, kl, k)) return APIDEX_ENOMEM;
            }
        }
        b->params[k] = q;
        b->raw_params[k] = raw;
        if (k == b->n_params) b->n_params++;
    }
    return 0;
}

/* ---------------------------------------------------------------- bodies and responses */

/* The media types of an OAS 3 `content` map. */
static int content_media(spec_api_int *ai, spec_loc content, spec_media **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (!jt_is(content.node, JT_OBJECT) || !content.node->len) return 0;
    spec_media *m = core_arena_calloc(ai->arena, content.node->len, sizeof *m);
    if (!m) return APIDEX_ENOMEM;
    size_t n = 0;
    for (uint32_t i = 0; i < content.node->len; i++) {
        const jt_member *mm = &content.node->u.members[i];
        spec_loc media = deref_loc(ai, (spec_loc){mm->value, content.doc});
        if (!media.node) continue;
        m[n].type = mm->key;
        m[n].schema = raw_member(media, "schema");
        m[n].node = media;
        n++;
    }
    *out = m;
    *n_out = n;
    return 0;
}

/* Media type strings from an operation's list, else the root's, else application/json. */
static size_t media_types(const spec_api_int *ai, spec_loc op, const char *key, const char **out,
                          size_t max)
{
    spec_loc list = member(ai, op, key);
    if (!jt_is(list.node, JT_ARRAY)) list = member(ai, ai->pub.root, key);
    size_t n = 0;
    if (jt_is(list.node, JT_ARRAY))
        for (uint32_t i = 0; i < list.node->len && n < max; i++) {
            const char *s = jt_str(list.node->u.items[i]);
            if (s) out[n++] = s;
        }
    if (!n) out[n++] = "application/json";
    return n;
}

enum { MAX_MEDIA = 64 };

/* A Swagger 2.0 body parameter as an OAS 3 requestBody. */
static int swagger_body(spec_api_int *ai, spec_loc op, const spec_param *p, spec_body *body)
{
    core_arena *a = ai->arena;
    const char *mts[MAX_MEDIA];
    size_t n = media_types(ai, op, "consumes", mts, MAX_MEDIA);
    spec_loc schema = raw_member(p->node, "schema");
    body->description = p->description;
    body->required = p->required;
    body->media = core_arena_calloc(a, n, sizeof *body->media);
    jt_node *content = obj_new(a, n);
    jt_node *rb = obj_new(a, 3);
    if (!body->media || !content || !rb) return APIDEX_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        jt_node *media = obj_new(a, schema.node ? 1 : 0);
        if (!media) return APIDEX_ENOMEM;
        uint32_t k = 0;
        if (schema.node) obj_set(media, &k, "schema", (jt_node *)schema.node);
        content->u.members[i].key = mts[i];
        content->u.members[i].key_len = (uint32_t)strlen(mts[i]);
        content->u.members[i].value = media;
        body->media[i] = (spec_media){mts[i], schema, {media, p->node.doc}};
    }
    jt_object_finish(a, content);
    body->n_media = n;
    uint32_t k = 0;
    if (p->description) {
        jt_node *d = jt_new_string(a, p->description, strlen(p->description));
        if (!d) return APIDEX_ENOMEM;
        obj_set(rb, &k, "description", d);
    }
    jt_node *req = jt_new_bool(a, p->required);
    if (!req) return APIDEX_ENOMEM;
    obj_set(rb, &k, "required", req);
    obj_set(rb, &k, "content", content);
    rb->len = k;
    body->node = (spec_loc){rb, p->node.doc};
    return 0;
}

/* A formData parameter as a property schema: the parameter minus its parameter-only keys. */
static jt_node *form_property(core_arena *a, const jt_node *p)
{
    jt_node *o = obj_new(a, p->len + 1);
    if (!o) return NULL;
    uint32_t k = 0;
    bool is_file = false;
    for (uint32_t i = 0; i < p->len; i++) {
        const jt_member *m = &p->u.members[i];
        static const char *const drop[] = {"name", "in", "required", "allowEmptyValue",
                                           "collectionFormat"};
        bool skip = false;
        for (size_t d = 0; d < sizeof drop / sizeof drop[0] && !skip; d++)
            skip = m->key_len == strlen(drop[d]) && memcmp(m->key, drop[d], m->key_len) == 0;
        if (skip) continue;
        if (m->key_len == 4 && memcmp(m->key, "type", 4) == 0 && jt_str(m->value) &&
            strcmp(jt_str(m->value), "file") == 0) {
            /* OAS 3 spells a file upload as a binary string */
            jt_node *t = jt_new_string(a, "string", 6), *f = jt_new_string(a, "binary", 6);
            if (!t || !f) return NULL;
            obj_set(o, &k, "type", t);
            obj_set(o, &k, "format", f);
            is_file = true;
            continue;
        }
        if (is_file && m->key_len == 6 && memcmp(m->key, "format", 6) == 0) continue;
        o->u.members[k++] = *m;
    }
    o->len = k;
    jt_object_finish(a, o);
    return o;
}

/* Swagger 2.0 formData parameters as one OAS 3 requestBody with an object schema. */
static int swagger_form(spec_api_int *ai, spec_loc op, const spec_param *const *form, size_t nf,
                        spec_body *body)
{
    core_arena *a = ai->arena;
    jt_node *props = obj_new(a, nf);
    size_t n_req = 0;
    bool has_file = false;
    for (size_t i = 0; i < nf; i++) {
        if (form[i]->required) n_req++;
        const char *t = jt_get_str(form[i]->node.node, "type");
        if (t && strcmp(t, "file") == 0) has_file = true;
    }
    jt_node *req = jt_new_array(a, n_req);
    jt_node *schema = obj_new(a, 3);
    if (!props || !req || !schema) return APIDEX_ENOMEM;
    size_t r = 0;
    for (size_t i = 0; i < nf; i++) {
        jt_node *prop = form_property(a, form[i]->node.node);
        if (!prop) return APIDEX_ENOMEM;
        props->u.members[i].key = form[i]->name;
        props->u.members[i].key_len = (uint32_t)strlen(form[i]->name);
        props->u.members[i].value = prop;
        if (form[i]->required) {
            req->u.items[r] = jt_new_string(a, form[i]->name, strlen(form[i]->name));
            if (!req->u.items[r++]) return APIDEX_ENOMEM;
        }
    }
    jt_object_finish(a, props);
    uint32_t k = 0;
    jt_node *type = jt_new_string(a, "object", 6);
    if (!type) return APIDEX_ENOMEM;
    obj_set(schema, &k, "type", type);
    obj_set(schema, &k, "properties", props);
    if (n_req) obj_set(schema, &k, "required", req);
    schema->len = k;
    /* the form media types the operation consumes, else the one that fits its fields */
    const char *mts[MAX_MEDIA];
    size_t nm = media_types(ai, op, "consumes", mts, MAX_MEDIA), nform = 0;
    for (size_t i = 0; i < nm; i++)
        if (!strcmp(mts[i], "application/x-www-form-urlencoded") ||
            !strcmp(mts[i], "multipart/form-data"))
            mts[nform++] = mts[i];
    if (!nform)
        mts[nform++] = has_file ? "multipart/form-data" : "application/x-www-form-urlencoded";
    body->media = core_arena_calloc(a, nform, sizeof *body->media);
    jt_node *content = obj_new(a, nform);
    jt_node *rb = obj_new(a, 2);
    if (!body->media || !content || !rb) return APIDEX_ENOMEM;
    spec_loc sl = {schema, op.doc};
    for (size_t i = 0; i < nform; i++) {
        jt_node *media = obj_new(a, 1);
        if (!media) return APIDEX_ENOMEM;
        uint32_t mk = 0;
        obj_set(media, &mk, "schema", schema);
        content->u.members[i].key = mts[i];
        content->u.members[i].key_len = (uint32_t)strlen(mts[i]);
        content->u.members[i].value = media;
        body->media[i] = (spec_media){mts[i], sl, {media, op.doc}};
    }
    body->n_media = nform;
    body->required = n_req > 0;
    jt_node *rq = jt_new_bool(a, body->required);
    if (!rq) return APIDEX_ENOMEM;
    k = 0;
    obj_set(rb, &k, "required", rq);
    obj_set(rb, &k, "content", content);
    body->node = (spec_loc){rb, op.doc};
    return 0;
}

static int build_responses(spec_api_int *ai, spec_loc op, spec_operation *o, const char *ptr)
{
    spec_loc rs = member(ai, op, "responses");
    if (!rs.node) return 0;
    if (rs.node->type != JT_OBJECT) {
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ESPEC, rs.doc, rs.node, NULL,
                  "'responses' of %s is not an object", ptr);
        return 0;
    }
    o->responses = core_arena_calloc(ai->arena, rs.node->len + 1, sizeof *o->responses);
    if (!o->responses) return APIDEX_ENOMEM;
    for (uint32_t i = 0; i < rs.node->len; i++) {
        const jt_member *m = &rs.node->u.members[i];
        if (m->key_len > 2 && m->key[0] == 'x' && m->key[1] == '-') continue;
        spec_loc r = deref_loc(ai, (spec_loc){m->value, rs.doc});
        if (!r.node) continue;
        if (r.node->type != JT_OBJECT) {
            spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ESPEC, r.doc, r.node, NULL,
                      "response '%s' of %s is not an object", m->key, ptr);
            continue;
        }
        spec_response *res = &o->responses[o->n_responses++];
        res->status = m->key;
        res->description = spec_get_str(ai, r, "description");
        res->node = r;
        res->headers = member(ai, r, "headers");
        if (ai->pub.major == 3) {
            int rc = content_media(ai, member(ai, r, "content"), &res->media, &res->n_media);
            if (rc) return rc;
            continue;
        }
        spec_loc schema = raw_member(r, "schema");
        if (!schema.node) continue;
        const char *mts[MAX_MEDIA];
        size_t n = media_types(ai, op, "produces", mts, MAX_MEDIA);
        spec_loc examples = member(ai, r, "examples");
        res->media = core_arena_calloc(ai->arena, n, sizeof *res->media);
        if (!res->media) return APIDEX_ENOMEM;
        for (size_t k = 0; k < n; k++) {
            const jt_node *ex = jt_get(examples.node, mts[k]);
            jt_node *media = obj_new(ai->arena, ex ? 2 : 1);
            if (!media) return APIDEX_ENOMEM;
            uint32_t mk = 0;
            obj_set(media, &mk, "schema", (jt_node *)schema.node);
            if (ex) obj_set(media, &mk, "example", (jt_node *)ex);
            res->media[k] = (spec_media){mts[k], schema, {media, r.doc}};
        }
        res->n_media = n;
    }
    return 0;
}

/* ---------------------------------------------------------------- operations */

static int push_op(spec_api_int *ai, spec_operation **out)
{
    spec_api *api = &ai->pub;
    if (core_array_grow(&api->ops, &ai->cap_ops, api->n_ops, sizeof *api->ops, 64))
        return APIDEX_ENOMEM;
    *out = &api->ops[api->n_ops++];
    memset(*out, 0, sizeof **out);
    return 0;
}

static int build_op(spec_api_int *ai, const char *path, size_t mi, spec_loc item, spec_loc op)
{
    const char *ptr = op_pointer(ai, path, methods[mi]);
    if (!ptr) return APIDEX_ENOMEM;
    if (op.node->type != JT_OBJECT) {
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ESPEC, op.doc, op.node, NULL,
                  "operation %s %s is not an object; it is ignored", methods_uc[mi], path);
        return 0;
    }
    spec_operation *o;
    int rc = push_op(ai, &o);
    if (rc) return rc;
    o->method = methods_uc[mi];
    o->path = path;
    o->pointer = ptr;
    o->node = op;
    o->operation_id = jt_str(member(ai, op, "operationId").node);
    o->summary = spec_get_str(ai, op, "summary");
    o->description = spec_get_str(ai, op, "description");
    o->deprecated = get_bool(ai, op, "deprecated");
    spec_loc tags = member(ai, op, "tags");
    if (jt_is(tags.node, JT_ARRAY) && tags.node->len) {
        o->tags = core_arena_calloc(ai->arena, tags.node->len, sizeof *o->tags);
        if (!o->tags) return APIDEX_ENOMEM;
        for (uint32_t i = 0; i < tags.node->len; i++) {
            const char *t = jt_str(tags.node->u.items[i]);
            if (t) o->tags[o->n_tags++] = t;
        }
    }
    /* security: the operation's own list (even an empty one), else the document's */
    o->security = raw_member(op, "security");
    if (!o->security.node) o->security = raw_member(ai->pub.root, "security");
    o->security = deref_loc(ai, o->security);

    /* parameters: path-level first, then operation-level overriding by (name, in) */
    spec_loc plist = member(ai, item, "parameters"), olist = member(ai, op, "parameters");
    size_t max = (jt_is(plist.node, JT_ARRAY) ? plist.node->len : 0) +
                 (jt_is(olist.node, JT_ARRAY) ? olist.node->len : 0);
    op_builder b = {.ai = ai, .pointer = ptr};
    b.params = core_arena_calloc(ai->arena, max + 1, sizeof *b.params);
    b.raw_params = core_arena_calloc(ai->arena, max + 1, sizeof *b.raw_params);
    if (!b.params || !b.raw_params) return APIDEX_ENOMEM;
    rc = add_params(&b, plist);
    if (!rc) rc = add_params(&b, olist);
    spec_strmap_free(&b.by_key);
    if (rc) return rc;
    o->params = b.params;
    o->n_params = b.n_params;
    if (ai->pub.major == 3) {
        spec_loc rb = member(ai, op, "requestBody");
        if (jt_is(rb.node, JT_OBJECT)) {
            o->body = core_arena_calloc(ai->arena, 1, sizeof *o->body);
            if (!o->body) return APIDEX_ENOMEM;
            o->body->description = spec_get_str(ai, rb, "description");
            o->body->required = get_bool(ai, rb, "required");
            o->body->node = rb;
            rc = content_media(ai, member(ai, rb, "content"), &o->body->media, &o->body->n_media);
            if (rc) return rc;
        }
    } else {
        /* Swagger 2.0: body and formData parameters become the request body */
        const spec_param *body = NULL;
        const spec_param **form = core_arena_calloc(ai->arena, b.n_params + 1, sizeof *form);
        if (!form) return APIDEX_ENOMEM;
        size_t nf = 0, kept = 0;
        for (size_t i = 0; i < b.n_params; i++) {
            if (!strcmp(b.params[i].in, "body"))
                body = &b.params[i];
            else if (!strcmp(b.params[i].in, "formData"))
                form[nf++] = &b.params[i];
        }
        if (body || nf) {
            o->body = core_arena_calloc(ai->arena, 1, sizeof *o->body);
            if (!o->body) return APIDEX_ENOMEM;
            rc = body ? swagger_body(ai, op, body, o->body)
                      : swagger_form(ai, op, form, nf, o->body);
            if (rc) return rc;
            if (body && nf)
                spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ESPEC, op.doc, op.node, ptr,
                          "%s %s has both body and formData parameters; formData is ignored",
                          methods_uc[mi], path);
        }
        /* the remaining parameters keep their order (copied, the form list points in) */
        spec_param *rest = core_arena_calloc(ai->arena, b.n_params + 1, sizeof *rest);
        if (!rest) return APIDEX_ENOMEM;
        for (size_t i = 0; i < b.n_params; i++)
            if (strcmp(b.params[i].in, "body") && strcmp(b.params[i].in, "formData"))
                rest[kept++] = b.params[i];
        o->params = rest;
        o->n_params = kept;
    }
    return build_responses(ai, op, o, ptr);
}

static int build_ops(spec_api_int *ai)
{
    spec_api *api = &ai->pub;
    spec_loc paths = member(ai, api->root, "paths");
    if (!paths.node) return 0;
    if (paths.node->type != JT_OBJECT) {
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ESPEC, paths.doc, paths.node, "/paths",
                  "'paths' is not an object");
        return 0;
    }
    for (uint32_t i = 0; i < paths.node->len; i++) {
        const jt_member *pm = &paths.node->u.members[i];
        if (pm->key_len > 2 && pm->key[0] == 'x' && pm->key[1] == '-') continue;
        if (pm->key_len > SPEC_MAX_PATH_BYTES) {
            /* the document's error, not the run's: every pointer, id and rendering of the
               operation would carry the key (spec_api_limit: the caller goes on) */
            spec_diag(ai, CORE_DIAG_ERROR, APIDEX_ELIMIT, paths.doc, NULL, "/paths",
                      "path %u of 'paths' is %u bytes, over the limit of %d bytes for a path "
                      "(it starts '%.40s')",
                      i + 1, pm->key_len, SPEC_MAX_PATH_BYTES, pm->key);
            return APIDEX_ELIMIT;
        }
        spec_loc item = deref_loc(ai, (spec_loc){pm->value, paths.doc});
        if (!item.node) continue; /* unresolved: already reported */
        if (item.node->type != JT_OBJECT) {
            if (item.node->type != JT_NULL)
                spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ESPEC, item.doc, item.node, NULL,
                          "path item '%s' is not an object", pm->key);
            continue;
        }
        for (uint32_t j = 0; j < item.node->len; j++) {
            const jt_member *mm = &item.node->u.members[j];
            size_t mi = 0;
            while (mi < 8 && !(mm->key_len == strlen(methods[mi]) &&
                               memcmp(mm->key, methods[mi], mm->key_len) == 0))
                mi++;
            if (mi == 8) continue;
            spec_loc op = deref_loc(ai, (spec_loc){mm->value, item.doc});
            if (!op.node) continue;
            int rc = build_op(ai, pm->key, mi, item, op);
            if (rc) return rc;
        }
    }
    return 0;
}

int spec_normalize(spec_api_int *ai)
{
    int rc = build_info(ai);
    if (!rc) rc = build_servers(ai);
    if (!rc) rc = build_ops(ai);
    if (!rc) rc = spec_select_ops(ai);
    if (!rc) rc = build_tags(ai);
    return rc;
}
