/*
 * Function/tool definitions for chosen endpoints (OpenAI function calling, Anthropic tool
 * use, MCP tools): endpoints handed to a model as functions with JSON Schema
 * parameters. The index keeps renderings, not raw schemas, so the documents it names are
 * read again and each operation's parameters and body become one JSON Schema object, grouped
 * by where they go (path, query, header, cookie, body), $refs inlined to a bounded depth.
 * The definitions are exactly what the providers take; how to make the HTTP call (server,
 * method, path, content type, auth) goes beside them, in `calls`, keyed by tool name.
 */
#include "serve/tooldefs_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    MAX_SCHEMA_DEPTH = 8,    /* nested schema levels spelled out */
    MAX_SCHEMA_NODES = 3000, /* schema objects emitted per function */
    MAX_VALUE_DEPTH = 16,    /* nesting of enum/default/const values copied */
    MAX_ENUM = 100,          /* enum values copied; a longer enum is described instead */
    MAX_ALTERNATIVES = 20,   /* oneOf/anyOf members copied */
    MAX_DESCRIPTION = 1024   /* bytes of a function description */
};

typedef struct conv {
    const spec_api *api;
    core_arena *arena; /* allOf merges */
    size_t nodes;
    const jt_node *stack[MAX_SCHEMA_DEPTH + 2];
    unsigned depth;
} conv;

/* A literal value (enum member, default, const) as JSON, depth-bounded. */
static struct json_object *value_json(const jt_node *n)
{
    return jt_to_json_object(n, MAX_VALUE_DEPTH);
}

static struct json_object *convert(conv *c, spec_loc loc);

/* A description as one line of plain text (HTML and markdown stripped: text_plain), or
   NULL when nothing is left. */
static struct json_object *plain_json(const char *text)
{
    core_buf b;
    core_buf_init(&b, 0);
    struct json_object *o = NULL;
    if (text && !text_plain(text, strlen(text), TEXT_PLAIN_ONE_LINE, &b) && b.len)
        o = json_object_new_string_len(b.data, (int)b.len);
    core_buf_free(&b);
    return o;
}

/* What the description of a schema whose enum is too long to copy says. */
#define TOO_MANY_NOTE "allowed values, too many to list here"

/* A parameter's or body's own description, as plain text, for its schema: the schema's
   when it has none, else before what convert wrote there when that is the note on a long
   enum (TOO_MANY_NOTE), not the schema's own description. */
static void lead_description(struct json_object *schema, const char *text)
{
    struct json_object *d = NULL, *own = plain_json(text);
    if (!own) return;
    if (!json_object_object_get_ex(schema, "description", &d)) {
        serve_jadd(schema, "description", own);
        return;
    }
    const char *was = json_object_get_string(d);
    if (was && strstr(was, TOO_MANY_NOTE)) {
        char buf[2400];
        snprintf(buf, sizeof buf, "%.1200s %.1100s", json_object_get_string(own), was);
        serve_jadd(schema, "description", json_object_new_string(buf));
    }
    json_object_put(own);
}

static struct json_object *note(const char *text)
{
    struct json_object *o = json_object_new_object();
    if (o) serve_jadd(o, "description", json_object_new_string(text));
    return o;
}

/* Keys copied as they are (annotation and validation keywords JSON Schema shares with
   OpenAPI), with the JSON type their value must have; others are dropped. (title is left
   out: it names a component, costs tokens and says nothing about the call.) */
static const struct {
    const char *key;
    jt_type type; /* JT_INT also takes JT_REAL for the numeric keywords */
} plain_keys[] = {{"description", JT_STRING}, {"format", JT_STRING},   {"minLength", JT_INT},
                  {"maxLength", JT_INT},      {"minItems", JT_INT},    {"maxItems", JT_INT},
                  {"uniqueItems", JT_BOOL},   {"multipleOf", JT_REAL}, {"minProperties", JT_INT},
                  {"maxProperties", JT_INT},  {"readOnly", JT_BOOL},   {"writeOnly", JT_BOOL},
                  {"deprecated", JT_BOOL}};

/* Whether k is a plain key and v a value it may have. */
static bool plain_value(const char *k, const jt_node *v)
{
    for (size_t i = 0; i < sizeof plain_keys / sizeof plain_keys[0]; i++) {
        if (strcmp(k, plain_keys[i].key)) continue;
        if (plain_keys[i].type == JT_REAL) return v->type == JT_INT || v->type == JT_REAL;
        if (plain_keys[i].type == JT_INT) return v->type == JT_INT && v->u.i >= 0;
        return v->type == plain_keys[i].type;
    }
    return false;
}

/* An OpenAPI pattern as an ECMA-262 regular expression in Unicode mode (how JSON Schema
   validators such as ajv compile it): an escaped character that needs no escape ("\\:"),
   which Unicode mode rejects, loses its backslash. */
static struct json_object *pattern_json(const jt_node *v)
{
    core_buf b;
    core_buf_init(&b, v->len + 1);
    for (uint32_t i = 0; i < v->len; i++) {
        char ch = v->u.s[i];
        if (ch == '\\' && i + 1 < v->len) {
            char next = v->u.s[i + 1];
            bool needed = isalnum((unsigned char)next) || strchr("^$\\.*+?()[]{}|/-", next) ||
                          (unsigned char)next >= 0x80;
            if (needed) core_buf_printf(&b, "\\");
            core_buf_printf(&b, "%c", next);
            i++;
            continue;
        }
        core_buf_printf(&b, "%c", ch);
    }
    struct json_object *o = b.data ? json_object_new_string_len(b.data, (int)b.len) : NULL;
    core_buf_free(&b);
    return o;
}

/* The enum values, duplicates left out (validators reject them). */
static struct json_object *enum_json(const jt_node *v)
{
    struct json_object *e = json_object_new_array();
    for (uint32_t j = 0; e && j < v->len && j < MAX_ENUM; j++) {
        struct json_object *x = value_json(v->u.items[j]);
        bool seen = false;
        for (size_t k = 0; k < json_object_array_length(e) && !seen; k++)
            seen = json_object_equal(json_object_array_get_idx(e, k), x);
        if (seen)
            json_object_put(x);
        else
            json_object_array_add(e, x);
    }
    return e;
}

static struct json_object *convert_list(conv *c, spec_loc loc, size_t max)
{
    struct json_object *arr = json_object_new_array();
    for (uint32_t i = 0; arr && jt_is(loc.node, JT_ARRAY) && i < loc.node->len && i < max; i++)
        json_object_array_add(arr, convert(c, (spec_loc){loc.node->u.items[i], loc.doc}));
    return arr;
}

/* The members of one (dereferenced, allOf-merged) schema object, in written order. */
static void convert_members(conv *c, const spec_schema_view *view, struct json_object *o)
{
    spec_loc s = view->loc;
    const jt_node *n = s.node;
    bool nullable = spec_schema_view_nullable(view);
    uint32_t too_many = 0; /* enum values when more than MAX_ENUM */
    for (uint32_t i = 0; i < n->len; i++) {
        const char *k = n->u.members[i].key;
        const jt_node *v = n->u.members[i].value;
        spec_loc vl = {v, s.doc};
        if (plain_value(k, v) && !strcmp(k, "description")) {
            struct json_object *d = plain_json(v->u.s);
            if (d) serve_jadd(o, k, d);
        } else if (plain_value(k, v)) {
            serve_jadd(o, k, value_json(v));
        } else if (!strcmp(k, "pattern") && jt_is(v, JT_STRING)) {
            serve_jadd(o, k, pattern_json(v));
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
                serve_jadd(o, "type", value_json(v));
            }
        } else if (!strcmp(k, "enum") && jt_is(v, JT_ARRAY) && v->len > MAX_ENUM) {
            too_many = v->len; /* a cut enum would reject valid values: say so instead */
        } else if (!strcmp(k, "enum") && jt_is(v, JT_ARRAY) && v->len) {
            serve_jadd(o, "enum", enum_json(v));
        } else if (!strcmp(k, "const") || !strcmp(k, "default")) {
            serve_jadd(o, k, value_json(v));
        } else if (!strcmp(k, "minimum") || !strcmp(k, "maximum")) {
            /* OpenAPI 3.0 / Swagger spell exclusive bounds as a boolean next to the bound. */
            spec_schema_kw exk =
                k[1] == 'i' ? SPEC_KW_EXCLUSIVE_MINIMUM : SPEC_KW_EXCLUSIVE_MAXIMUM;
            const char *ex = spec_schema_kw_name(exk);
            const jt_node *exv = view->kw[exk];
            bool exclusive = exv && exv->type == JT_BOOL && exv->boolean;
            if (v->type == JT_INT || v->type == JT_REAL)
                serve_jadd(o, exclusive ? ex : k, value_json(v));
        } else if (!strcmp(k, "exclusiveMinimum") || !strcmp(k, "exclusiveMaximum")) {
            if (v->type == JT_INT || v->type == JT_REAL) serve_jadd(o, k, value_json(v));
        } else if (!strcmp(k, "items")) {
            serve_jadd(o, "items", convert(c, vl));
        } else if (!strcmp(k, "properties") && jt_is(v, JT_OBJECT)) {
            struct json_object *props = json_object_new_object();
            for (uint32_t j = 0; props && j < v->len; j++)
                serve_jadd(props, v->u.members[j].key,
                           convert(c, (spec_loc){v->u.members[j].value, s.doc}));
            serve_jadd(o, "properties", props);
        } else if (!strcmp(k, "required") && jt_is(v, JT_ARRAY)) {
            serve_jadd(o, "required", value_json(v));
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
    if (too_many) {
        struct json_object *d = NULL;
        const char *was =
            json_object_object_get_ex(o, "description", &d) ? json_object_get_string(d) : NULL;
        char text[1200];
        snprintf(text, sizeof text,
                 "%.1000s%sOne of %u " TOO_MANY_NOTE ": apidex show (MCP get_endpoint) lists "
                 "them all.",
                 was ? was : "", was && *was ? " " : "", too_many);
        serve_jadd(o, "description", json_object_new_string(text));
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
    /* $ref followed first; allOf merged only once the schema is known to be shown */
    spec_schema_view v;
    const char *ref = spec_ref_target(loc);
    if (spec_schema_view_open(c->api, loc, NULL, &v) != 0 || !jt_is(v.loc.node, JT_OBJECT)) {
        char text[300];
        snprintf(text, sizeof text, "(unresolved $ref %.200s)", ref ? ref : "");
        return note(text);
    }
    for (unsigned i = 0; i < c->depth; i++)
        if (c->stack[i] == v.loc.node) {
            char text[300];
            snprintf(text, sizeof text, "(recursive: same shape as %.200s)",
                     ref ? ref : "its parent");
            return note(text);
        }
    if (c->depth >= MAX_SCHEMA_DEPTH || ++c->nodes > MAX_SCHEMA_NODES)
        return note("(nested deeper than shown)");
    if (jt_is(v.kw[SPEC_KW_ALL_OF], JT_ARRAY)) spec_schema_view_open(c->api, loc, c->arena, &v);
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    c->stack[c->depth++] = v.loc.node;
    convert_members(c, &v, o);
    c->depth--;
    return o;
}

/* ---------------------------------------------------------------- one function */

static const char *const locations[] = {"path", "query", "header", "cookie"};

/* The request body's media type: JSON if there is one, else the first. */
static const spec_media *body_media(const spec_operation *op)
{
    if (!op->body || !op->body->n_media) return NULL;
    for (size_t i = 0; i < op->body->n_media; i++) {
        const char *t = op->body->media[i].type;
        if (t && (!strncasecmp(t, "application/json", 16) || strstr(t, "+json")))
            return &op->body->media[i];
    }
    return &op->body->media[0];
}

static struct json_object *group_new(void)
{
    struct json_object *g = json_object_new_object();
    if (!g) return NULL;
    serve_jadd(g, "type", json_object_new_string("object"));
    serve_jadd(g, "properties", json_object_new_object());
    serve_jadd(g, "required", json_object_new_array());
    serve_jadd(g, "additionalProperties", json_object_new_boolean(false));
    return g;
}

static struct json_object *member(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* The arguments as one JSON Schema object: {path: {...}, query: {...}, header: {...},
   cookie: {...}, body: ...}, each group only when the operation has something there. A
   group is required when something in it is (in strict mode every group is). */
static struct json_object *function_schema(conv *c, const spec_operation *op, bool strict)
{
    struct json_object *schema = json_object_new_object(), *props = json_object_new_object(),
                       *required = json_object_new_array();
    if (!schema || !props || !required) {
        json_object_put(schema);
        json_object_put(props);
        json_object_put(required);
        return NULL;
    }
    serve_jadd(schema, "type", json_object_new_string("object"));
    serve_jadd(schema, "properties", props);
    serve_jadd(schema, "required", required);
    serve_jadd(schema, "additionalProperties", json_object_new_boolean(false));
    for (size_t l = 0; l < sizeof locations / sizeof locations[0]; l++) {
        struct json_object *group = NULL;
        bool needed = false;
        for (size_t i = 0; i < op->n_params; i++) {
            const spec_param *p = &op->params[i];
            if (!p->in || strcmp(p->in, locations[l]) || !p->name) continue;
            if (!group && !(group = group_new())) break;
            struct json_object *ps = convert(c, p->schema);
            if (ps) lead_description(ps, p->description);
            serve_jadd(member(group, "properties"), p->name, ps);
            if (p->required || l == 0) { /* path parameters are always required */
                json_object_array_add(member(group, "required"), json_object_new_string(p->name));
                needed = true;
            }
        }
        if (!group) continue;
        if (!json_object_array_length(member(group, "required")))
            json_object_object_del(group, "required");
        serve_jadd(props, locations[l], group);
        if (needed || strict) json_object_array_add(required, json_object_new_string(locations[l]));
    }
    const spec_media *pick = body_media(op);
    if (pick) {
        struct json_object *bs = convert(c, pick->schema);
        if (bs) lead_description(bs, op->body->description);
        serve_jadd(props, "body", bs);
        if (op->body->required) json_object_array_add(required, json_object_new_string("body"));
    }
    if (!json_object_array_length(required)) json_object_object_del(schema, "required");
    return schema;
}

static struct json_object *function_description(const spec_operation *op)
{
    core_buf b;
    core_buf_init(&b, 64 * 1024);
    core_buf_printf(&b, "%s %s.", op->method, op->path);
    const char *parts[2] = {op->summary, op->description};
    if (parts[0] && parts[1] && !strcmp(parts[0], parts[1])) parts[1] = NULL;
    core_buf t;
    core_buf_init(&t, 0);
    for (size_t i = 0; i < 2; i++) {
        if (!parts[i] || !*parts[i]) continue;
        core_buf_reset(&t);
        if (text_plain(parts[i], strlen(parts[i]), TEXT_PLAIN_ONE_LINE, &t) || !t.len) continue;
        size_t n = t.len;
        /* sentences, so that summary and description do not run together */
        bool stop = strchr(".!?:", t.data[n - 1]) != NULL;
        core_buf_printf(&b, " %.*s%s", (int)n, t.data, stop ? "" : ".");
    }
    core_buf_free(&t);
    /* at most MAX_DESCRIPTION bytes, cut at a sentence or word end */
    size_t n = b.data ? text_plain_cut(b.data, b.len, MAX_DESCRIPTION, NULL) : 0;
    struct json_object *o = b.data ? json_object_new_string_len(b.data, (int)n) : NULL;
    core_buf_free(&b);
    return o;
}

/* ---------------------------------------------------------------- all of them */

/* The documents one request holds (store_api_doc), each API's once. */
typedef struct loaded_doc {
    size_t api_index;
    store_doc *doc;
    const spec_api *api;
} loaded_doc;

/* One definition in the shape fmt asks for; takes desc and params. */
static struct json_object *definition(serve_tools_format fmt, const char *name,
                                      struct json_object *desc, struct json_object *params)
{
    struct json_object *def = json_object_new_object();
    if (!def) {
        json_object_put(desc);
        json_object_put(params);
        return NULL;
    }
    if (fmt == SERVE_TOOLS_OPENAI) {
        struct json_object *fn = json_object_new_object();
        serve_jadd(def, "type", json_object_new_string("function"));
        if (fn) {
            serve_jadd(fn, "name", json_object_new_string(name));
            serve_jadd(fn, "description", desc);
            serve_jadd(fn, "parameters", params);
            serve_jadd(fn, "strict", json_object_new_boolean(true));
        } else {
            json_object_put(desc);
            json_object_put(params);
        }
        serve_jadd(def, "function", fn);
    } else {
        serve_jadd(def, "name", json_object_new_string(name));
        serve_jadd(def, "description", desc);
        serve_jadd(def, fmt == SERVE_TOOLS_MCP ? "inputSchema" : "input_schema", params);
    }
    return def;
}

/* The error for an id the index does not have, with the nearest endpoints by id and by
   "METHOD /path", as `show` names them. */
static int unknown_id(store_index *idx, const char *id, apidex_error *err)
{
    const store_operation *ops;
    size_t n_ops;
    int rc = store_operations(idx, &ops, &n_ops, err);
    if (rc) return rc;
    long unused;
    apidex_error near;
    core_error_clear(&near);
    store_usage_resolve(ops, n_ops, id, NULL, &unused, &near);
    const char *closest = strstr(near.message, "; closest: ");
    if (closest)
        return core_error_set(err, APIDEX_ENOTFOUND,
                              "no endpoint with id '%.300s' in the index; did you mean %.600s?", id,
                              closest + strlen("; closest: "));
    return core_error_set(err, APIDEX_ENOTFOUND,
                          "no endpoint with id '%.300s' in the index (ids come from "
                          "`apidex search`)",
                          id);
}

int serve_tooldefs(store_index *idx, const char *const *ids, size_t n_ids, serve_tools_format fmt,
                   struct json_object **out, apidex_error *err)
{
    *out = NULL;
    int rc = 0;
    loaded_doc *docs = calloc(n_ids ? n_ids : 1, sizeof *docs);
    long *done = calloc(n_ids ? n_ids : 1, sizeof *done);
    struct json_object *result = json_object_new_object(), *tools = json_object_new_array(),
                       *calls = json_object_new_object();
    core_arena *arena = core_arena_new(64 << 20);
    size_t n_docs = 0;
    if (!docs || !done || !result || !tools || !calls || !arena)
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n_ids; i++) {
        long oi = store_find_operation(idx, ids[i]);
        const store_operation *sop;
        const store_api *sapi;
        rc = serve_operation_rows(idx, oi, &sop, &sapi, err);
        if (oi < 0 && rc == APIDEX_EINVAL) rc = unknown_id(idx, ids[i], err);
        if (rc) break;
        bool again = false; /* an endpoint asked for twice is defined once */
        for (size_t k = 0; k < i && !again; k++) again = done[k] == oi;
        done[i] = oi;
        if (again) continue;
        const loaded_doc *ld = NULL;
        for (size_t d = 0; d < n_docs && !ld; d++)
            if (docs[d].api_index == sop->api_index) ld = &docs[d];
        if (!ld) {
            loaded_doc *nd = &docs[n_docs];
            rc = store_api_doc(idx, sop->api_index, &nd->doc, &nd->api, err);
            if (nd->doc) {
                nd->api_index = sop->api_index;
                ld = &docs[n_docs++];
            }
            if (rc || !ld) {
                if (!rc) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
                break;
            }
        }
        const spec_api *api = ld->api;
        const spec_operation *op =
            api && !api->failed ? store_doc_operation(api, sop->method, sop->path) : NULL;
        if (!op) {
            rc = core_error_set(err, APIDEX_ENOTFOUND,
                                "%s %s is no longer in %s (rebuild the index with `apidex index`)",
                                sop->method, sop->path, sapi->document);
            break;
        }
        char name[SERVE_TOOL_NAME_MAX + 1];
        serve_tool_name(sapi->id, sop->id, sop->operation_id, sop->method, sop->path, name);
        const spec_media *media = body_media(op);
        bool tool = serve_mcp_tool(op);
        struct json_object *call =
            tool ? serve_mcp_call(sapi->id, sop->id, op)
                 : serve_tool_call(api, sop->id, op, media ? media->type : NULL);
        conv c = {.api = api, .arena = arena};
        struct json_object *params = NULL;
        if (!tool) {
            params = function_schema(&c, op, fmt == SERVE_TOOLS_OPENAI);
        } else if (fmt == SERVE_TOOLS_OPENAI) { /* inlined for strict mode, below */
            spec_mcp_entry e;
            spec_operation_mcp(op, &e);
            spec_loc in = e.schema[SPEC_MCP_INPUT_SCHEMA];
            params = in.node ? convert(&c, in) : NULL;
        } else { /* the tool's own schema, as its server listed it */
            params = serve_mcp_schema(op, SPEC_MCP_INPUT_SCHEMA);
        }
        if (tool && !params) { /* a tool without an input schema takes no arguments */
            params = json_object_new_object();
            if (params) {
                serve_jadd(params, "type", json_object_new_string("object"));
                serve_jadd(params, "properties", json_object_new_object());
            }
        }
        if (params && fmt == SERVE_TOOLS_OPENAI) {
            strict_ctx sc = {.json_strings = json_object_new_array()};
            struct json_object *strict = serve_schema_strict(&sc, params, false, "", 0);
            json_object_put(params);
            params = strict;
            if (call && sc.json_strings && json_object_array_length(sc.json_strings))
                serve_jadd(call, "json_strings", sc.json_strings);
            else
                json_object_put(sc.json_strings);
        }
        struct json_object *desc =
            !tool ? function_description(op)
                  : serve_mcp_description(op, fmt == SERVE_TOOLS_MCP ? 0 : MAX_DESCRIPTION);
        struct json_object *def = params ? definition(fmt, name, desc, params) : NULL;
        if (!params) json_object_put(desc);
        if (def && tool && fmt == SERVE_TOOLS_MCP) serve_mcp_extras(def, op);
        if (!def || !call) {
            json_object_put(def);
            json_object_put(call);
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            break;
        }
        json_object_array_add(tools, def);
        serve_jadd(calls, name, call);
    }
    for (size_t d = 0; d < n_docs; d++) store_doc_release(docs[d].doc);
    free(docs);
    free(done);
    core_arena_free(arena);
    if (rc || !result) {
        json_object_put(result);
        json_object_put(tools);
        json_object_put(calls);
        return rc;
    }
    serve_jadd(result, "tools", tools);
    serve_jadd(result, "calls", calls);
    *out = result;
    return 0;
}

int serve_query_tools(serve_snapshot *snap, const char *const *ids, size_t n_ids, const char *task,
                      size_t k, serve_tools_format fmt, struct json_object **out, apidex_error *err)
{
    *out = NULL;
    if (!n_ids == !task)
        return core_error_set(err, APIDEX_EINVAL,
                              "give endpoint ids (id=...) or a task (q=...), one of the two");
    for (size_t i = 0; i < n_ids; i++)
        if (!serve_text_ok(ids[i], strlen(ids[i])))
            return core_error_set(err, APIDEX_EINVAL, "an id is not valid UTF-8 text");
    if (!task) return serve_tooldefs(snap->idx, ids, n_ids, fmt, out, err);
    if (strlen(task) > SERVE_MAX_TASK || !serve_text_ok(task, strlen(task)))
        return core_error_set(err, APIDEX_EINVAL, "the task must be UTF-8 text of at most %d bytes",
                              SERVE_MAX_TASK);
    const char *t = task;
    while (*t && isspace((unsigned char)*t)) t++;
    if (!*t) return core_error_set(err, APIDEX_EINVAL, "the task is empty: say what to do");
    if (k > SERVE_MAX_K)
        return core_error_set(err, APIDEX_EINVAL, "k must be between 1 and %d", SERVE_MAX_K);
    search_query q = {.text = task,
                      .k = k,
                      .adaptive = k == 0,
                      .mode = serve_db_search(snap->db)->mode,
                      .hybrid_weight = serve_db_search(snap->db)->hybrid_weight};
    search_result *res = NULL;
    int rc = search_engine_run(snap->eng, &q, &res, err);
    if (rc) return rc;
    const char **found = calloc(res->n_hits ? res->n_hits : 1, sizeof *found);
    if (!found) {
        search_result_free(res);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < res->n_hits; i++) found[i] = res->hits[i].id;
    rc = serve_tooldefs(snap->idx, found, res->n_hits, fmt, out, err);
    free(found);
    search_result_free(res);
    return rc;
}
