/*
 * Function/tool definitions for chosen endpoints (OpenAI function calling,
 * Anthropic tool use): seed 003's prerequisite of endpoints as functions with
 * JSON Schema parameters. The index keeps renderings, not raw schemas, so the
 * documents it names are read again and each operation's parameters and body
 * become one JSON Schema object, $refs inlined to a bounded depth.
 */
#include "serve/serve_int.h"
#include "spec/spec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    MAX_SCHEMA_DEPTH = 8,    /* nested schema levels spelled out */
    MAX_SCHEMA_NODES = 3000, /* schema objects emitted per function */
    MAX_VALUE_DEPTH = 16,    /* nesting of enum/default/const values copied */
    MAX_ENUM = 100,          /* enum values copied */
    MAX_ALTERNATIVES = 20,   /* oneOf/anyOf members copied */
    MAX_DESCRIPTION = 1024,  /* bytes of a function description */
    MAX_NAME = 64            /* OpenAI's limit for function names */
};

typedef struct conv {
    const spec_api *api;
    core_arena *arena; /* allOf merges */
    size_t nodes;
    const jt_node *stack[MAX_SCHEMA_DEPTH + 2];
    unsigned depth;
} conv;

/* A literal value (enum member, default, const) as JSON, depth-bounded. */
static struct json_object *value_json(const jt_node *n, unsigned depth)
{
    if (!n || depth > MAX_VALUE_DEPTH) return NULL;
    switch (n->type) {
    case JT_BOOL:
        return json_object_new_boolean(n->boolean);
    case JT_INT:
        return json_object_new_int64(n->u.i);
    case JT_REAL:
        return json_object_new_double(n->u.d);
    case JT_STRING:
        return json_object_new_string_len(n->u.s, (int)n->len);
    case JT_ARRAY: {
        struct json_object *a = json_object_new_array();
        for (uint32_t i = 0; a && i < n->len; i++)
            json_object_array_add(a, value_json(n->u.items[i], depth + 1));
        return a;
    }
    case JT_OBJECT: {
        struct json_object *o = json_object_new_object();
        for (uint32_t i = 0; o && i < n->len; i++)
            serve_jadd(o, n->u.members[i].key, value_json(n->u.members[i].value, depth + 1));
        return o;
    }
    default:
        return NULL;
    }
}

static struct json_object *convert(conv *c, spec_loc loc);

static struct json_object *note(const char *text)
{
    struct json_object *o = json_object_new_object();
    if (o) serve_jadd(o, "description", json_object_new_string(text));
    return o;
}

/* Keys copied as they are (validation and annotation keywords JSON Schema shares with OpenAPI). */
static const char *const plain_keys[] = {
    "title",    "description", "format",      "pattern",    "minLength",     "maxLength",
    "minItems", "maxItems",    "uniqueItems", "multipleOf", "minProperties", "maxProperties",
    "readOnly", "writeOnly",   "deprecated",  NULL};

static bool is_plain_key(const char *k)
{
    for (size_t i = 0; plain_keys[i]; i++)
        if (!strcmp(k, plain_keys[i])) return true;
    return false;
}

static struct json_object *convert_list(conv *c, spec_loc loc, size_t max)
{
    struct json_object *arr = json_object_new_array();
    for (uint32_t i = 0; arr && jt_is(loc.node, JT_ARRAY) && i < loc.node->len && i < max; i++)
        json_object_array_add(arr, convert(c, (spec_loc){loc.node->u.items[i], loc.doc}));
    return arr;
}

/* The members of one (dereferenced, allOf-merged) schema object. */
static void convert_members(conv *c, spec_loc s, struct json_object *o)
{
    const jt_node *n = s.node;
    bool nullable = jt_get_bool(n, "nullable", false) || jt_get_bool(n, "x-nullable", false);
    for (uint32_t i = 0; i < n->len; i++) {
        const char *k = n->u.members[i].key;
        const jt_node *v = n->u.members[i].value;
        spec_loc vl = {v, s.doc};
        if (is_plain_key(k) && (v->type != JT_OBJECT && v->type != JT_ARRAY)) {
            serve_jadd(o, k, value_json(v, 0));
        } else if (!strcmp(k, "type")) {
            if (jt_is(v, JT_STRING) && !strcmp(v->u.s, "file")) { /* Swagger 2.0 upload */
                serve_jadd(o, "type", json_object_new_string("string"));
                serve_jadd(o, "format", json_object_new_string("binary"));
            } else if (jt_is(v, JT_STRING) && nullable) {
                struct json_object *t = json_object_new_array();
                json_object_array_add(t, json_object_new_string(v->u.s));
                json_object_array_add(t, json_object_new_string("null"));
                serve_jadd(o, "type", t);
            } else if (jt_is(v, JT_STRING) || jt_is(v, JT_ARRAY)) {
                serve_jadd(o, "type", value_json(v, 0));
            }
        } else if (!strcmp(k, "enum") && jt_is(v, JT_ARRAY)) {
            struct json_object *e = json_object_new_array();
            for (uint32_t j = 0; e && j < v->len && j < MAX_ENUM; j++)
                json_object_array_add(e, value_json(v->u.items[j], 0));
            serve_jadd(o, "enum", e);
        } else if (!strcmp(k, "const") || !strcmp(k, "default")) {
            serve_jadd(o, k, value_json(v, 0));
        } else if (!strcmp(k, "minimum") || !strcmp(k, "maximum")) {
            /* OpenAPI 3.0 / Swagger spell exclusive bounds as a boolean next to the bound. */
            const char *ex = k[1] == 'i' ? "exclusiveMinimum" : "exclusiveMaximum";
            bool exclusive = jt_get_bool(n, ex, false);
            serve_jadd(o, exclusive ? ex : k, value_json(v, 0));
        } else if (!strcmp(k, "exclusiveMinimum") || !strcmp(k, "exclusiveMaximum")) {
            if (v->type == JT_INT || v->type == JT_REAL) serve_jadd(o, k, value_json(v, 0));
        } else if (!strcmp(k, "items")) {
            serve_jadd(o, "items", convert(c, vl));
        } else if (!strcmp(k, "properties") && jt_is(v, JT_OBJECT)) {
            struct json_object *props = json_object_new_object();
            for (uint32_t j = 0; props && j < v->len; j++)
                serve_jadd(props, v->u.members[j].key,
                           convert(c, (spec_loc){v->u.members[j].value, s.doc}));
            serve_jadd(o, "properties", props);
        } else if (!strcmp(k, "required") && jt_is(v, JT_ARRAY)) {
            serve_jadd(o, "required", value_json(v, 0));
        } else if (!strcmp(k, "additionalProperties")) {
            serve_jadd(o, k,
                       jt_is(v, JT_BOOL) ? json_object_new_boolean(v->boolean) : convert(c, vl));
        } else if (!strcmp(k, "oneOf") || !strcmp(k, "anyOf")) {
            serve_jadd(o, k, convert_list(c, vl, MAX_ALTERNATIVES));
        } else if (!strcmp(k, "not")) {
            serve_jadd(o, k, convert(c, vl));
        }
        /* Dropped: $ref leftovers, discriminator, xml, externalDocs, example(s),
           nullable, x-* extensions and parameter-only keys (in, name, ...). */
    }
}

static struct json_object *convert(conv *c, spec_loc loc)
{
    if (!loc.node) return json_object_new_object();
    if (jt_is(loc.node, JT_BOOL)) { /* JSON Schema boolean schemas (OpenAPI 3.1) */
        if (loc.node->boolean) return json_object_new_object();
        struct json_object *o = json_object_new_object();
        if (o) serve_jadd(o, "not", json_object_new_object());
        return o;
    }
    spec_loc s;
    const char *ref = spec_ref_target(loc);
    if (spec_deref(c->api, loc, &s) != 0 || !jt_is(s.node, JT_OBJECT)) {
        char text[300];
        snprintf(text, sizeof text, "(unresolved $ref %.200s)", ref ? ref : "");
        return note(text);
    }
    for (unsigned i = 0; i < c->depth; i++)
        if (c->stack[i] == s.node) {
            char text[300];
            snprintf(text, sizeof text, "(recursive: same shape as %.200s)",
                     ref ? ref : "its parent");
            return note(text);
        }
    if (c->depth >= MAX_SCHEMA_DEPTH || ++c->nodes > MAX_SCHEMA_NODES)
        return note("(nested deeper than shown)");
    if (jt_get(s.node, "allOf")) {
        spec_loc merged;
        if (spec_schema_merge_allof(c->api, s, c->arena, &merged) == 0 && merged.node) s = merged;
    }
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    c->stack[c->depth++] = s.node;
    convert_members(c, s, o);
    c->depth--;
    return o;
}

/* ---------------------------------------------------------------- one function */

static void sanitize_name(const char *in, char *out, size_t size)
{
    size_t o = 0;
    bool under = false;
    for (const unsigned char *p = (const unsigned char *)in; *p && o + 1 < size; p++) {
        if (isalnum(*p) || *p == '-' || *p == '_') {
            out[o++] = (char)*p;
            under = *p == '_';
        } else if (!under && o) {
            out[o++] = '_';
            under = true;
        }
    }
    while (o && out[o - 1] == '_') o--;
    out[o] = '\0';
    if (!o) snprintf(out, size, "endpoint");
}

static struct json_object *function_schema(conv *c, const spec_operation *op)
{
    struct json_object *schema = json_object_new_object(), *props = json_object_new_object(),
                       *required = json_object_new_array();
    if (!schema || !props || !required) {
        json_object_put(schema);
        json_object_put(props);
        json_object_put(required);
        return NULL;
    }
    for (size_t i = 0; i < op->n_params; i++) {
        const spec_param *p = &op->params[i];
        char key[256];
        snprintf(key, sizeof key, "%s", p->name ? p->name : "param");
        if (json_object_object_get_ex(props, key, NULL))
            snprintf(key, sizeof key, "%s_%s", p->in ? p->in : "param", p->name ? p->name : "");
        struct json_object *ps = convert(c, p->schema);
        if (ps && p->description && !json_object_object_get_ex(ps, "description", NULL))
            serve_jadd(ps, "description", json_object_new_string(p->description));
        serve_jadd(props, key, ps);
        if (p->required || (p->in && !strcmp(p->in, "path")))
            json_object_array_add(required, json_object_new_string(key));
    }
    if (op->body && op->body->n_media) {
        const spec_media *pick = &op->body->media[0];
        for (size_t i = 0; i < op->body->n_media; i++) {
            const char *t = op->body->media[i].type;
            if (t && (!strncasecmp(t, "application/json", 16) || strstr(t, "+json"))) {
                pick = &op->body->media[i];
                break;
            }
        }
        const char *key = json_object_object_get_ex(props, "body", NULL) ? "request_body" : "body";
        struct json_object *bs = convert(c, pick->schema);
        if (bs && !json_object_object_get_ex(bs, "description", NULL)) {
            char text[512];
            snprintf(text, sizeof text, "%s%sRequest body (%s)",
                     op->body->description ? op->body->description : "",
                     op->body->description ? " " : "", pick->type ? pick->type : "");
            serve_jadd(bs, "description", json_object_new_string(text));
        }
        serve_jadd(props, key, bs);
        if (op->body->required) json_object_array_add(required, json_object_new_string(key));
    }
    serve_jadd(schema, "type", json_object_new_string("object"));
    serve_jadd(schema, "properties", props);
    if (json_object_array_length(required))
        serve_jadd(schema, "required", required);
    else
        json_object_put(required);
    return schema;
}

static struct json_object *function_description(const spec_operation *op)
{
    core_buf b;
    core_buf_init(&b, 64 * 1024);
    core_buf_printf(&b, "%s %s.", op->method, op->path);
    const char *parts[2] = {op->summary, op->description};
    if (parts[0] && parts[1] && !strcmp(parts[0], parts[1])) parts[1] = NULL;
    for (size_t i = 0; i < 2; i++) {
        if (!parts[i] || !*parts[i]) continue;
        size_t n = strlen(parts[i]);
        while (n && (parts[i][n - 1] == ' ' || parts[i][n - 1] == '\n')) n--;
        /* sentences, so that summary and description do not run together */
        bool stop = n && strchr(".!?:", parts[i][n - 1]);
        core_buf_printf(&b, " %.*s%s", (int)n, parts[i], stop ? "" : ".");
    }
    size_t n = b.len < MAX_DESCRIPTION ? b.len : MAX_DESCRIPTION;
    while (n && n < b.len && ((unsigned char)b.data[n] & 0xc0) == 0x80) n--; /* whole UTF-8 chars */
    struct json_object *o = b.data ? json_object_new_string_len(b.data, (int)n) : NULL;
    core_buf_free(&b);
    return o;
}

/* ---------------------------------------------------------------- all of them */

typedef struct loaded_doc {
    const char *document;
    spec_registry *reg;
} loaded_doc;

static const spec_operation *find_spec_op(const spec_api *api, const store_operation *sop)
{
    for (size_t i = 0; i < api->n_ops; i++)
        if (!strcmp(api->ops[i].method, sop->method) && !strcmp(api->ops[i].path, sop->path))
            return &api->ops[i];
    return NULL;
}

int serve_tooldefs(store_index *idx, const char *const *ids, size_t n_ids, serve_tools_format fmt,
                   struct json_object **out, apidex_error *err)
{
    *out = NULL;
    const store_operation *ops;
    const store_api *apis;
    size_t n_ops, n_apis;
    int rc = store_operations(idx, &ops, &n_ops, err);
    if (!rc) rc = store_apis(idx, &apis, &n_apis, err);
    if (rc) return rc;
    loaded_doc *docs = calloc(n_ids ? n_ids : 1, sizeof *docs);
    char(*names)[MAX_NAME + 1] = calloc(n_ids ? n_ids : 1, sizeof *names);
    struct json_object *arr = json_object_new_array();
    core_arena *arena = core_arena_new(64 << 20);
    size_t n_docs = 0;
    if (!docs || !names || !arr || !arena) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n_ids; i++) {
        long oi = store_find_operation(idx, ids[i]);
        if (oi < 0) {
            rc = core_error_set(err, APIDEX_ENOTFOUND,
                                "no endpoint with id '%.300s' in the index (ids come from "
                                "`apidex search`)",
                                ids[i]);
            break;
        }
        const store_operation *sop = &ops[oi];
        const store_api *sapi = &apis[sop->api_index];
        spec_registry *reg = NULL;
        for (size_t d = 0; d < n_docs && !reg; d++)
            if (!strcmp(docs[d].document, sapi->document)) reg = docs[d].reg;
        if (!reg) {
            if ((rc = spec_registry_new(NULL, &reg, err)) != 0) break;
            docs[n_docs].document = sapi->document;
            docs[n_docs++].reg = reg;
            if ((rc = spec_registry_add(reg, sapi->document, err)) != 0) break;
        }
        const spec_api *api = spec_registry_count(reg) ? spec_registry_api(reg, 0) : NULL;
        const spec_operation *op = api && !api->failed ? find_spec_op(api, sop) : NULL;
        if (!op) {
            rc = core_error_set(err, APIDEX_ENOTFOUND,
                                "%s %s is no longer in %s (rebuild the index with `apidex index`)",
                                sop->method, sop->path, sapi->document);
            break;
        }
        /* A unique name: the operationId, else method_path, made safe. */
        char name[MAX_NAME + 1];
        if (op->operation_id) {
            sanitize_name(op->operation_id, name, sizeof name);
        } else {
            char raw[512];
            snprintf(raw, sizeof raw, "%s %s", op->method, op->path);
            for (char *p = raw; *p; p++) *p = (char)tolower((unsigned char)*p);
            sanitize_name(raw, name, sizeof name);
        }
        for (unsigned dup = 2;; dup++) {
            bool taken = false;
            for (size_t k = 0; k < i && !taken; k++) taken = !strcmp(names[k], name);
            if (!taken) break;
            char suffix[16];
            int sl = snprintf(suffix, sizeof suffix, "_%u", dup);
            size_t base = strlen(name);
            if (base + (size_t)sl > MAX_NAME) base = MAX_NAME - (size_t)sl;
            snprintf(name + base, sizeof name - base, "%s", suffix);
        }
        memcpy(names[i], name, sizeof name);
        conv c = {.api = api, .arena = arena};
        struct json_object *params = function_schema(&c, op);
        struct json_object *desc = function_description(op);
        struct json_object *def = json_object_new_object();
        if (!params || !desc || !def) {
            json_object_put(params);
            json_object_put(desc);
            json_object_put(def);
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            break;
        }
        if (fmt == SERVE_TOOLS_ANTHROPIC) {
            serve_jadd(def, "name", json_object_new_string(name));
            serve_jadd(def, "description", desc);
            serve_jadd(def, "input_schema", params);
        } else {
            struct json_object *fn = json_object_new_object();
            serve_jadd(def, "type", json_object_new_string("function"));
            if (fn) {
                serve_jadd(fn, "name", json_object_new_string(name));
                serve_jadd(fn, "description", desc);
                serve_jadd(fn, "parameters", params);
            } else {
                json_object_put(desc);
                json_object_put(params);
            }
            serve_jadd(def, "function", fn);
        }
        json_object_array_add(arr, def);
    }
    for (size_t d = 0; d < n_docs; d++) spec_registry_free(docs[d].reg);
    free(docs);
    free(names);
    core_arena_free(arena);
    if (rc) {
        json_object_put(arr);
        return rc;
    }
    *out = arr;
    return 0;
}
