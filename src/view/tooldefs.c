/*
 * The tool definition of one operation (OpenAI function calling, Anthropic tool use, MCP
 * tools): the operation handed to a model as a function whose JSON Schema parameters are its
 * parameters and body, grouped by where they go (path, query, header, cookie, body), $refs
 * inlined to a bounded depth. The definition is exactly what the provider takes; how to make
 * the HTTP call (server, method, path, content type, auth) goes beside it (tooldefs_call.c).
 * Which operations, and their documents, is serve's business (serve/tooldefs.c).
 */
#include "view/tooldefs_int.h"

#include <ctype.h>
#include <stdio.h>
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
        core_json_add(schema, "description", own);
        return;
    }
    const char *was = json_object_get_string(d);
    if (was && strstr(was, TOO_MANY_NOTE)) {
        char buf[2400];
        snprintf(buf, sizeof buf, "%.1200s %.1100s", json_object_get_string(own), was);
        core_json_add(schema, "description", json_object_new_string(buf));
    }
    json_object_put(own);
}

static struct json_object *note(const char *text)
{
    struct json_object *o = json_object_new_object();
    if (o) core_json_add(o, "description", json_object_new_string(text));
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
            if (d) core_json_add(o, k, d);
        } else if (plain_value(k, v)) {
            core_json_add(o, k, value_json(v));
        } else if (!strcmp(k, "pattern") && jt_is(v, JT_STRING)) {
            core_json_add(o, k, pattern_json(v));
        } else if (!strcmp(k, "type")) {
            if (jt_is(v, JT_STRING) && !strcmp(v->u.s, "file")) { /* Swagger 2.0 upload */
                core_json_add(o, "type", json_object_new_string("string"));
                core_json_add(o, "format", json_object_new_string("binary"));
            } else if (jt_is(v, JT_STRING) && nullable) {
                struct json_object *t = json_object_new_array();
                json_object_array_add(t, json_object_new_string(v->u.s));
                json_object_array_add(t, json_object_new_string("null"));
                core_json_add(o, "type", t);
            } else if (jt_is(v, JT_STRING) || jt_is(v, JT_ARRAY)) {
                core_json_add(o, "type", value_json(v));
            }
        } else if (!strcmp(k, "enum") && jt_is(v, JT_ARRAY) && v->len > MAX_ENUM) {
            too_many = v->len; /* a cut enum would reject valid values: say so instead */
        } else if (!strcmp(k, "enum") && jt_is(v, JT_ARRAY) && v->len) {
            core_json_add(o, "enum", enum_json(v));
        } else if (!strcmp(k, "const") || !strcmp(k, "default")) {
            core_json_add(o, k, value_json(v));
        } else if (!strcmp(k, "minimum") || !strcmp(k, "maximum")) {
            /* OpenAPI 3.0 / Swagger spell exclusive bounds as a boolean next to the bound. */
            spec_schema_kw exk =
                k[1] == 'i' ? SPEC_KW_EXCLUSIVE_MINIMUM : SPEC_KW_EXCLUSIVE_MAXIMUM;
            const char *ex = spec_schema_kw_name(exk);
            const jt_node *exv = view->kw[exk];
            bool exclusive = exv && exv->type == JT_BOOL && exv->boolean;
            if (v->type == JT_INT || v->type == JT_REAL)
                core_json_add(o, exclusive ? ex : k, value_json(v));
        } else if (!strcmp(k, "exclusiveMinimum") || !strcmp(k, "exclusiveMaximum")) {
            if (v->type == JT_INT || v->type == JT_REAL) core_json_add(o, k, value_json(v));
        } else if (!strcmp(k, "items")) {
            core_json_add(o, "items", convert(c, vl));
        } else if (!strcmp(k, "properties") && jt_is(v, JT_OBJECT)) {
            struct json_object *props = json_object_new_object();
            for (uint32_t j = 0; props && j < v->len; j++)
                core_json_add(props, v->u.members[j].key,
                              convert(c, (spec_loc){v->u.members[j].value, s.doc}));
            core_json_add(o, "properties", props);
        } else if (!strcmp(k, "required") && jt_is(v, JT_ARRAY)) {
            core_json_add(o, "required", value_json(v));
        } else if (!strcmp(k, "additionalProperties")) {
            core_json_add(o, k,
                          jt_is(v, JT_BOOL) ? json_object_new_boolean(v->boolean) : convert(c, vl));
        } else if (!strcmp(k, "oneOf") || !strcmp(k, "anyOf")) {
            core_json_add(o, k, convert_list(c, vl, MAX_ALTERNATIVES));
        } else if (!strcmp(k, "not")) {
            core_json_add(o, k, convert(c, vl));
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
        core_json_add(o, "description", json_object_new_string(text));
    }
}

static struct json_object *convert(conv *c, spec_loc loc)
{
    if (!loc.node) return json_object_new_object();
    if (jt_is(loc.node, JT_BOOL)) { /* JSON Schema boolean schemas (OpenAPI 3.1) */
        if (loc.node->boolean) return json_object_new_object();
        struct json_object *o = json_object_new_object();
        if (o) core_json_add(o, "not", json_object_new_object());
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
    core_json_add(g, "type", json_object_new_string("object"));
    core_json_add(g, "properties", json_object_new_object());
    core_json_add(g, "required", json_object_new_array());
    core_json_add(g, "additionalProperties", json_object_new_boolean(false));
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
    core_json_add(schema, "type", json_object_new_string("object"));
    core_json_add(schema, "properties", props);
    core_json_add(schema, "required", required);
    core_json_add(schema, "additionalProperties", json_object_new_boolean(false));
    for (size_t l = 0; l < sizeof locations / sizeof locations[0]; l++) {
        struct json_object *group = NULL;
        bool needed = false;
        for (size_t i = 0; i < op->n_params; i++) {
            const spec_param *p = &op->params[i];
            if (!p->in || strcmp(p->in, locations[l]) || !p->name) continue;
            if (!group && !(group = group_new())) break;
            struct json_object *ps = convert(c, p->schema);
            if (ps) lead_description(ps, p->description);
            core_json_add(member(group, "properties"), p->name, ps);
            if (p->required || l == 0) { /* path parameters are always required */
                json_object_array_add(member(group, "required"), json_object_new_string(p->name));
                needed = true;
            }
        }
        if (!group) continue;
        if (!json_object_array_length(member(group, "required")))
            json_object_object_del(group, "required");
        core_json_add(props, locations[l], group);
        if (needed || strict) json_object_array_add(required, json_object_new_string(locations[l]));
    }
    const spec_media *pick = body_media(op);
    if (pick) {
        struct json_object *bs = convert(c, pick->schema);
        if (bs) lead_description(bs, op->body->description);
        core_json_add(props, "body", bs);
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

/* ---------------------------------------------------------------- the definition */

/* One definition in the shape fmt asks for; takes desc and params. */
static struct json_object *definition(view_tool_format fmt, const char *name,
                                      struct json_object *desc, struct json_object *params)
{
    struct json_object *def = json_object_new_object();
    if (!def) {
        json_object_put(desc);
        json_object_put(params);
        return NULL;
    }
    if (fmt == VIEW_TOOL_OPENAI) {
        struct json_object *fn = json_object_new_object();
        core_json_add(def, "type", json_object_new_string("function"));
        if (fn) {
            core_json_add(fn, "name", json_object_new_string(name));
            core_json_add(fn, "description", desc);
            core_json_add(fn, "parameters", params);
            core_json_add(fn, "strict", json_object_new_boolean(true));
        } else {
            json_object_put(desc);
            json_object_put(params);
        }
        core_json_add(def, "function", fn);
    } else {
        core_json_add(def, "name", json_object_new_string(name));
        core_json_add(def, "description", desc);
        core_json_add(def, fmt == VIEW_TOOL_MCP ? "inputSchema" : "input_schema", params);
    }
    return def;
}

/* ---------------------------------------------------------------- one tool */

int view_tool_define(const spec_api *api, const spec_operation *op, const char *api_id,
                     const char *id, const char *name, view_tool_format fmt, core_arena *arena,
                     struct json_object **def_out, struct json_object **call_out, apidex_error *err)
{
    *def_out = *call_out = NULL;
    const spec_media *media = body_media(op);
    bool tool = view_tool_mcp_is(op);
    struct json_object *call = tool ? view_tool_mcp_call(api_id, id, op)
                                    : view_tool_call(api, id, op, media ? media->type : NULL);
    conv c = {.api = api, .arena = arena};
    struct json_object *params = NULL;
    if (!tool) {
        params = function_schema(&c, op, fmt == VIEW_TOOL_OPENAI);
    } else if (fmt == VIEW_TOOL_OPENAI) { /* inlined for strict mode, below */
        spec_mcp_entry e;
        spec_operation_mcp(op, &e);
        spec_loc in = e.schema[SPEC_MCP_INPUT_SCHEMA];
        params = in.node ? convert(&c, in) : NULL;
    } else { /* the tool's own schema, as its server listed it */
        params = view_tool_mcp_schema(op, SPEC_MCP_INPUT_SCHEMA);
    }
    if (tool && !params) { /* a tool without an input schema takes no arguments */
        params = json_object_new_object();
        if (params) {
            core_json_add(params, "type", json_object_new_string("object"));
            core_json_add(params, "properties", json_object_new_object());
        }
    }
    if (params && fmt == VIEW_TOOL_OPENAI) {
        view_tool_strict_ctx sc = {.json_strings = json_object_new_array()};
        struct json_object *strict = view_tool_strict(&sc, params, false, "", 0);
        json_object_put(params);
        params = strict;
        if (call && sc.json_strings && json_object_array_length(sc.json_strings))
            core_json_add(call, "json_strings", sc.json_strings);
        else
            json_object_put(sc.json_strings);
    }
    struct json_object *desc =
        !tool ? function_description(op)
              : view_tool_mcp_description(op, fmt == VIEW_TOOL_MCP ? 0 : MAX_DESCRIPTION);
    struct json_object *def = params ? definition(fmt, name, desc, params) : NULL;
    if (!params) json_object_put(desc);
    if (def && tool && fmt == VIEW_TOOL_MCP) view_tool_mcp_extras(def, op);
    if (!def || !call) {
        json_object_put(def);
        json_object_put(call);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    *def_out = def;
    *call_out = call;
    return 0;
}
