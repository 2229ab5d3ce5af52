/*
 * A JSON Schema rewritten for OpenAI strict mode (Structured Outputs' "supported schemas"):
 * supported keywords only, every object closed with all its properties required, optional
 * ones nullable; what strict mode cannot say (free-form objects, untyped values, nesting past
 * ten levels) becomes a JSON-encoded string whose argument path is listed for the caller.
 */
#include "view/tooldefs_int.h"

#include <stdio.h>
#include <string.h>

enum {
    STRICT_MAX_DEPTH = 10,     /* levels of object nesting */
    STRICT_MAX_PROPS = 5000,   /* object properties in one schema */
    STRICT_MAX_ENUMS = 1000,   /* enum values in one schema */
    STRICT_MAX_CHARS = 100000, /* names, enum and const values (OpenAI's limit: 120,000) */
    STRICT_MAX_POINTER = 512
};

static const char *const strict_formats[] = {"date-time", "time", "date", "duration", "email",
                                             "hostname",  "ipv4", "ipv6", "uuid",     NULL};

/* Keywords copied as they are onto a strict schema, by the type they apply to. */
static const struct {
    const char *key, *types;
} strict_plain[] = {{"pattern", "string"},
                    {"multipleOf", "number integer"},
                    {"minimum", "number integer"},
                    {"maximum", "number integer"},
                    {"exclusiveMinimum", "number integer"},
                    {"exclusiveMaximum", "number integer"},
                    {"minItems", "array"},
                    {"maxItems", "array"}};

static struct json_object *get(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static struct json_object *copy(struct json_object *v)
{
    struct json_object *out = NULL;
    return json_object_deep_copy(v, &out, NULL) == 0 ? out : NULL;
}

static bool is_type(struct json_object *v, json_type t)
{
    return v && json_object_is_type(v, t);
}

static void add_description(struct json_object *out, struct json_object *desc, const char *more)
{
    const char *d = is_type(desc, json_type_string) ? json_object_get_string(desc) : NULL;
    if (!more) {
        if (d) core_json_add(out, "description", json_object_new_string(d));
        return;
    }
    char buf[1400];
    snprintf(buf, sizeof buf, "%.1200s%s%s", d ? d : "", d && *d ? " " : "", more);
    core_json_add(out, "description", json_object_new_string(buf));
}

/* A value strict mode cannot describe: the model writes it as JSON inside a string. */
static struct json_object *json_string(view_tool_strict_ctx *c, struct json_object *desc,
                                       bool nullable, const char *pointer)
{
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    if (nullable) {
        struct json_object *t = json_object_new_array();
        json_object_array_add(t, json_object_new_string("string"));
        json_object_array_add(t, json_object_new_string("null"));
        core_json_add(o, "type", t);
    } else {
        core_json_add(o, "type", json_object_new_string("string"));
    }
    add_description(o, desc, "(JSON-encoded value)");
    if (c->json_strings)
        json_object_array_add(c->json_strings, json_object_new_string(*pointer ? pointer : "/"));
    return o;
}

static struct json_object *null_schema(void)
{
    struct json_object *o = json_object_new_object();
    if (o) core_json_add(o, "type", json_object_new_string("null"));
    return o;
}

/* s or null: a type union for primitives, anyOf for objects, arrays and unions. */
static struct json_object *make_nullable(struct json_object *s)
{
    if (!s) return NULL;
    struct json_object *t = get(s, "type");
    if (is_type(t, json_type_string) && strcmp(json_object_get_string(t), "object") &&
        strcmp(json_object_get_string(t), "array")) {
        struct json_object *u = json_object_new_array();
        json_object_array_add(u, json_object_new_string(json_object_get_string(t)));
        json_object_array_add(u, json_object_new_string("null"));
        json_object_object_add(s, "type", u);
        struct json_object *e = get(s, "enum");
        if (is_type(e, json_type_array)) json_object_array_add(e, NULL);
        return s;
    }
    struct json_object *any = get(s, "anyOf");
    if (is_type(any, json_type_array) && json_object_object_length(s) <= 2) {
        json_object_array_add(any, null_schema());
        return s;
    }
    struct json_object *o = json_object_new_object(), *a = json_object_new_array();
    if (!o || !a) {
        json_object_put(o);
        json_object_put(a);
        return s;
    }
    struct json_object *desc = get(s, "description");
    if (desc) {
        core_json_add(o, "description", json_object_get(desc));
        json_object_object_del(s, "description");
    }
    json_object_array_add(a, s);
    json_object_array_add(a, null_schema());
    core_json_add(o, "anyOf", a);
    return o;
}

/* The JSON type of enum/const values, when they all share one. */
static const char *value_type(struct json_object *values)
{
    const char *type = NULL;
    size_t n = json_object_array_length(values);
    for (size_t i = 0; i < n; i++) {
        struct json_object *v = json_object_array_get_idx(values, i);
        const char *t = !v                              ? NULL
                        : is_type(v, json_type_string)  ? "string"
                        : is_type(v, json_type_int)     ? "integer"
                        : is_type(v, json_type_double)  ? "number"
                        : is_type(v, json_type_boolean) ? "boolean"
                                                        : "?";
        if (!t) continue;
        if (type && strcmp(type, t)) {
            if ((!strcmp(type, "integer") && !strcmp(t, "number")) ||
                (!strcmp(type, "number") && !strcmp(t, "integer")))
                type = "number";
            else
                return NULL;
        } else {
            type = t;
        }
    }
    return type && strcmp(type, "?") ? type : NULL;
}

static struct json_object *strict_any_of(view_tool_strict_ctx *c, struct json_object *s,
                                         struct json_object *list, bool nullable,
                                         const char *pointer, unsigned depth)
{
    struct json_object *members = json_object_new_array();
    size_t n = json_object_array_length(list);
    for (size_t i = 0; members && i < n; i++) {
        struct json_object *m = json_object_array_get_idx(list, i);
        struct json_object *t = get(m, "type");
        if (is_type(t, json_type_string) && !strcmp(json_object_get_string(t), "null")) {
            nullable = true;
            continue;
        }
        json_object_array_add(members, view_tool_strict(c, m, false, pointer, depth));
    }
    size_t nm = members ? json_object_array_length(members) : 0;
    if (!nm) {
        json_object_put(members);
        return json_string(c, get(s, "description"), nullable, pointer);
    }
    struct json_object *o;
    if (nm == 1) {
        o = json_object_get(json_object_array_get_idx(members, 0));
        json_object_put(members);
        if (get(s, "description") && !get(o, "description"))
            add_description(o, get(s, "description"), NULL);
    } else {
        o = json_object_new_object();
        if (!o) {
            json_object_put(members);
            return NULL;
        }
        add_description(o, get(s, "description"), NULL);
        core_json_add(o, "anyOf", members);
    }
    return nullable ? make_nullable(o) : o;
}

static struct json_object *strict_object(view_tool_strict_ctx *c, struct json_object *s,
                                         bool nullable, const char *pointer, unsigned depth)
{
    struct json_object *props = get(s, "properties"), *req = get(s, "required");
    size_t np = is_type(props, json_type_object) ? (size_t)json_object_object_length(props) : 0;
    struct json_object *ap = get(s, "additionalProperties");
    bool closed = is_type(ap, json_type_boolean) && !json_object_get_boolean(ap);
    if ((!np && !closed) || depth >= STRICT_MAX_DEPTH || c->props + np > STRICT_MAX_PROPS)
        return json_string(c, get(s, "description"), nullable, pointer); /* free-form */
    c->props += np;
    struct json_object *o = json_object_new_object(), *out_props = json_object_new_object(),
                       *out_req = json_object_new_array();
    if (!o || !out_props || !out_req) {
        json_object_put(o);
        json_object_put(out_props);
        json_object_put(out_req);
        return NULL;
    }
    core_json_add(o, "type", json_object_new_string("object"));
    add_description(o, get(s, "description"), NULL);
    size_t nr = is_type(req, json_type_array) ? json_object_array_length(req) : 0;
    if (np) {
        json_object_object_foreach(props, key, value)
        {
            bool required = false;
            for (size_t i = 0; i < nr && !required; i++) {
                const char *r = json_object_get_string(json_object_array_get_idx(req, i));
                required = r && !strcmp(r, key);
            }
            char child[STRICT_MAX_POINTER];
            snprintf(child, sizeof child, "%s/%s", pointer, key);
            c->chars += strlen(key);
            core_json_add(out_props, key, view_tool_strict(c, value, !required, child, depth + 1));
            json_object_array_add(out_req, json_object_new_string(key));
        }
    }
    core_json_add(o, "properties", out_props);
    core_json_add(o, "required", out_req);
    core_json_add(o, "additionalProperties", json_object_new_boolean(false));
    return nullable ? make_nullable(o) : o;
}

struct json_object *view_tool_strict(view_tool_strict_ctx *c, struct json_object *s, bool nullable,
                                     const char *pointer, unsigned depth)
{
    if (!is_type(s, json_type_object)) return json_string(c, NULL, nullable, pointer);
    struct json_object *any = get(s, "anyOf");
    if (!any) any = get(s, "oneOf"); /* strict mode has anyOf only; oneOf's values fit it */
    if (is_type(any, json_type_array) && json_object_array_length(any))
        return strict_any_of(c, s, any, nullable, pointer, depth);
    /* the type: one non-null type, else inferred from enum/const */
    struct json_object *t = get(s, "type"), *en = get(s, "enum"), *cn = get(s, "const");
    const char *type = NULL;
    if (is_type(t, json_type_string)) {
        type = json_object_get_string(t);
    } else if (is_type(t, json_type_array)) {
        size_t n = json_object_array_length(t), others = 0;
        for (size_t i = 0; i < n; i++) {
            const char *ti = json_object_get_string(json_object_array_get_idx(t, i));
            if (ti && !strcmp(ti, "null"))
                nullable = true;
            else if (ti && !others++)
                type = ti;
        }
        if (others > 1) type = NULL; /* several types: only a JSON string can hold them */
    } else if (is_type(en, json_type_array)) {
        type = value_type(en);
    } else if (cn) {
        struct json_object *one = json_object_new_array();
        json_object_array_add(one, json_object_get(cn));
        type = value_type(one);
        json_object_put(one);
    }
    if (!type) return json_string(c, get(s, "description"), nullable, pointer);
    if (!strcmp(type, "null")) return null_schema();
    if (!strcmp(type, "object")) return strict_object(c, s, nullable, pointer, depth);
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    core_json_add(o, "type", json_object_new_string(type));
    /* strict mode has no default: the description says it, for the model to leave out */
    struct json_object *dflt = get(s, "default");
    char more[160] = "";
    if (dflt && !is_type(dflt, json_type_object) && !is_type(dflt, json_type_array))
        snprintf(more, sizeof more, "(default: %.120s)", json_object_to_json_string(dflt));
    add_description(o, get(s, "description"), *more ? more : NULL);
    if (!strcmp(type, "array")) {
        struct json_object *items = get(s, "items");
        if (!is_type(items, json_type_object)) {
            json_object_put(o);
            return json_string(c, get(s, "description"), nullable, pointer);
        }
        char child[STRICT_MAX_POINTER];
        snprintf(child, sizeof child, "%s/*", pointer);
        core_json_add(o, "items", view_tool_strict(c, items, false, child, depth));
    }
    for (size_t i = 0; i < sizeof strict_plain / sizeof strict_plain[0]; i++) {
        struct json_object *v = get(s, strict_plain[i].key);
        if (v && strstr(strict_plain[i].types, type))
            core_json_add(o, strict_plain[i].key, copy(v));
    }
    struct json_object *f = get(s, "format");
    for (size_t i = 0; is_type(f, json_type_string) && strict_formats[i]; i++)
        if (!strcmp(json_object_get_string(f), strict_formats[i]))
            core_json_add(o, "format", json_object_new_string(strict_formats[i]));
    if (is_type(en, json_type_array) || cn) {
        /* null comes back with make_nullable when the value may be null */
        struct json_object *values = json_object_new_array();
        size_t ne = is_type(en, json_type_array) ? json_object_array_length(en) : 0, chars = 0;
        for (size_t i = 0; values && i < ne; i++) {
            struct json_object *v = json_object_array_get_idx(en, i);
            if (v) json_object_array_add(values, copy(v));
        }
        if (!ne && values && cn) json_object_array_add(values, copy(cn));
        size_t n = values ? json_object_array_length(values) : 0;
        for (size_t i = 0; i < n; i++) {
            struct json_object *v = json_object_array_get_idx(values, i);
            if (is_type(v, json_type_string)) chars += strlen(json_object_get_string(v));
        }
        if (n && c->enums + n <= STRICT_MAX_ENUMS && c->chars + chars <= STRICT_MAX_CHARS &&
            (n <= 250 || chars <= 15000)) {
            c->enums += n;
            c->chars += chars;
            core_json_add(o, "enum", values);
        } else {
            json_object_put(values);
        }
    }
    return nullable ? make_nullable(o) : o;
}
