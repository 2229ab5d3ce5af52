/*
 * Validates a JSON value against an OpenAPI schema of a loaded API, so $refs, allOf and
 * nullable mean what the spec says. Used wherever apidex checks JSON against a spec: an
 * LLM's examples (agent), a call's inputs and its response (exec), a request to the mock
 * server (mock).
 *
 * Covered: type (3.0 nullable and 3.1 type lists), enum, const, required
 * (readOnly ignored in requests, writeOnly in responses), properties,
 * additionalProperties, items, min/maxItems, min/maxLength, pattern, format
 * (date, date-time, uuid), minimum/maximum (and exclusive forms), allOf,
 * anyOf and oneOf (one matching alternative is enough: real specs often have
 * overlapping alternatives). The first violation is reported with its JSON
 * pointer. Recursion is bounded by VALIDATE_MAX_DEPTH.
 */
#include "oas/oas.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <stdio.h>
#include <ctype.h>
#include <json-c/json.h>
#include <math.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { VALIDATE_MAX_DEPTH = 64, VALIDATE_MAX_ITEMS = 10000 };

typedef struct vctx {
    const spec_api *api;
    bool request; /* validating a request body (readOnly fields are not required) */
    core_buf ptr; /* JSON pointer of the current value */
    core_buf problem;
} vctx;

static int fail(vctx *v, const char *fmt, const char *a, const char *b)
{
    if (v->problem.len) return 1;
    core_buf_printf(&v->problem, "%s: ", v->ptr.len ? v->ptr.data : "(root)");
    core_buf_printf(&v->problem, fmt, a ? a : "", b ? b : "");
    return 1;
}

static const char *json_type_of(json_object *x)
{
    switch (json_object_get_type(x)) {
    case json_type_null:
        return "null";
    case json_type_boolean:
        return "boolean";
    case json_type_int:
        return "integer";
    case json_type_double:
        return "number";
    case json_type_string:
        return "string";
    case json_type_array:
        return "array";
    case json_type_object:
        return "object";
    }
    return "?";
}

static bool is_integral(json_object *x)
{
    if (json_object_is_type(x, json_type_int)) return true;
    if (!json_object_is_type(x, json_type_double)) return false;
    double d = json_object_get_double(x);
    return isfinite(d) && floor(d) == d;
}

static bool type_matches(const char *t, json_object *x)
{
    if (!strcmp(t, "integer")) return is_integral(x);
    if (!strcmp(t, "number"))
        return json_object_is_type(x, json_type_int) || json_object_is_type(x, json_type_double);
    if (!strcmp(t, "string")) return json_object_is_type(x, json_type_string);
    if (!strcmp(t, "boolean")) return json_object_is_type(x, json_type_boolean);
    if (!strcmp(t, "object")) return json_object_is_type(x, json_type_object);
    if (!strcmp(t, "array")) return json_object_is_type(x, json_type_array);
    if (!strcmp(t, "null")) return json_object_is_type(x, json_type_null);
    return true; /* an unknown type name constrains nothing */
}

/* JSON value equality between an example value and a schema literal (enum, const). */
static bool same_value(json_object *x, const jt_node *n)
{
    switch (n->type) {
    case JT_NULL:
        return json_object_is_type(x, json_type_null);
    case JT_BOOL:
        return json_object_is_type(x, json_type_boolean) &&
               (bool)json_object_get_boolean(x) == (bool)n->boolean;
    case JT_INT:
    case JT_REAL:
        return (json_object_is_type(x, json_type_int) ||
                json_object_is_type(x, json_type_double)) &&
               json_object_get_double(x) == jt_num(n, NAN);
    case JT_STRING:
        return json_object_is_type(x, json_type_string) &&
               (size_t)json_object_get_string_len(x) == n->len &&
               !memcmp(json_object_get_string(x), n->u.s, n->len);
    default:
        return false; /* arrays/objects in enums are rare; not compared */
    }
}

double spec_keyword_num(const jt_node *n)
{
    if (jt_is(n, JT_INT) || jt_is(n, JT_REAL)) return jt_num(n, NAN);
    if (!jt_is(n, JT_STRING) || !n->len) return NAN;
    char *end;
    double v = strtod(jt_str(n), &end);
    return *end ? NAN : v;
}

double spec_keyword_or(const jt_node *n, double dflt)
{
    double v = spec_keyword_num(n);
    return isnan(v) ? dflt : v;
}

static size_t utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) c++;
    return c;
}

static bool digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i])) return false;
    return true;
}

static bool is_date(const char *s)
{
    return strlen(s) >= 10 && digits(s, 4) && s[4] == '-' && digits(s + 5, 2) && s[7] == '-' &&
           digits(s + 8, 2) && s[5] <= '1' && s[8] <= '3';
}

static bool format_ok(const char *fmt, const char *s)
{
    if (!strcmp(fmt, "date")) return strlen(s) == 10 && is_date(s);
    if (!strcmp(fmt, "date-time"))
        return is_date(s) && (s[10] == 'T' || s[10] == 't' || s[10] == ' ') && digits(s + 11, 2) &&
               s[13] == ':' && digits(s + 14, 2);
    if (!strcmp(fmt, "uuid")) {
        if (strlen(s) != 36) return false;
        for (size_t i = 0; i < 36; i++) {
            bool dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i])) return false;
        }
    }
    return true;
}

static bool pattern_ok(const char *pattern, const char *s, size_t n)
{
    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errcode,
                                   &erroff, NULL);
    if (!re) return true; /* a pattern we cannot compile constrains nothing */
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = md ? pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, NULL) : 0;
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc >= 0 || rc != PCRE2_ERROR_NOMATCH; /* a matching error constrains nothing */
}

static size_t ptr_push(vctx *v, const char *key, size_t n)
{
    size_t old = v->ptr.len;
    jt_pointer_append(&v->ptr, key, n);
    return old;
}

static void ptr_pop(vctx *v, size_t old)
{
    v->ptr.len = old;
    if (v->ptr.data) v->ptr.data[old] = '\0';
}

static int check(vctx *v, spec_loc schema, json_object *x, unsigned depth);

static int check_alternatives(vctx *v, spec_loc s, const jt_node *list, json_object *x,
                              unsigned depth, const char *kw)
{
    if (!jt_is(list, JT_ARRAY) || !list->len) return 0;
    for (size_t i = 0; i < list->len; i++) {
        vctx trial = {.api = v->api, .request = v->request};
        core_buf_init(&trial.ptr, 1 << 16);
        core_buf_init(&trial.problem, 4096);
        core_buf_puts(&trial.ptr, v->ptr.data ? v->ptr.data : "");
        int bad = check(&trial, (spec_loc){list->u.items[i], s.doc}, x, depth + 1);
        core_buf_free(&trial.ptr);
        core_buf_free(&trial.problem);
        if (!bad) return 0;
    }
    return fail(v, "matches none of the %s alternatives%s", kw, "");
}

static int check_object(vctx *v, spec_loc s, json_object *x, unsigned depth)
{
    const jt_node *props = jt_get(s.node, "properties");
    const jt_node *req = jt_get(s.node, "required");
    for (size_t i = 0; jt_is(req, JT_ARRAY) && i < req->len; i++) {
        const char *name = jt_str(req->u.items[i]);
        json_object *val;
        if (!name || json_object_object_get_ex(x, name, &val)) continue;
        spec_loc p = {jt_get(props, name), s.doc};
        if (p.node) spec_deref(v->api, p, &p);
        if (p.node && jt_get_bool(p.node, v->request ? "readOnly" : "writeOnly", false)) continue;
        return fail(v, "required property \"%s\" is missing%s", name, "");
    }
    const jt_node *addl = jt_get(s.node, "additionalProperties");
    json_object_object_foreach(x, key, val)
    {
        const jt_node *p = jt_get(props, key);
        size_t old = ptr_push(v, key, strlen(key));
        int bad = 0;
        if (p) {
            bad = check(v, (spec_loc){p, s.doc}, val, depth + 1);
        } else if (jt_is(addl, JT_BOOL) && !addl->boolean) {
            bad =
                fail(v, "property \"%s\" is not allowed (additionalProperties: false)%s", key, "");
        } else if (jt_is(addl, JT_OBJECT)) {
            bad = check(v, (spec_loc){addl, s.doc}, val, depth + 1);
        }
        ptr_pop(v, old);
        if (bad) return 1;
    }
    return 0;
}

static int check_array(vctx *v, spec_loc s, json_object *x, unsigned depth)
{
    size_t n = json_object_array_length(x);
    double min = spec_keyword_or(jt_get(s.node, "minItems"), 0),
           max = spec_keyword_or(jt_get(s.node, "maxItems"), -1);
    char num[32];
    snprintf(num, sizeof num, "%zu", n);
    if ((double)n < min) return fail(v, "has %s items, fewer than minItems%s", num, "");
    if (max >= 0 && (double)n > max) return fail(v, "has %s items, more than maxItems%s", num, "");
    const jt_node *items = jt_get(s.node, "items");
    if (!jt_is(items, JT_OBJECT)) return 0;
    for (size_t i = 0; i < n && i < VALIDATE_MAX_ITEMS; i++) {
        snprintf(num, sizeof num, "%zu", i);
        size_t old = ptr_push(v, num, strlen(num));
        int bad = check(v, (spec_loc){items, s.doc}, json_object_array_get_idx(x, i), depth + 1);
        ptr_pop(v, old);
        if (bad) return 1;
    }
    return 0;
}

static int check_scalar(vctx *v, spec_loc s, json_object *x)
{
    char num[64];
    if (json_object_is_type(x, json_type_string)) {
        const char *str = json_object_get_string(x);
        size_t bytes = (size_t)json_object_get_string_len(x), chars = utf8_chars(str, bytes);
        snprintf(num, sizeof num, "%zu", chars);
        double mn = spec_keyword_or(jt_get(s.node, "minLength"), 0);
        double mx = spec_keyword_or(jt_get(s.node, "maxLength"), -1);
        if ((double)chars < mn)
            return fail(v, "is %s characters, shorter than minLength%s", num, "");
        if (mx >= 0 && (double)chars > mx)
            return fail(v, "is %s characters, longer than maxLength%s", num, "");
        const char *pat = jt_get_str(s.node, "pattern");
        if (pat && !pattern_ok(pat, str, bytes))
            return fail(v, "does not match the pattern %s%s", pat, "");
        const char *fmt = jt_get_str(s.node, "format");
        if (fmt && !format_ok(fmt, str)) return fail(v, "is not a valid %s: \"%s\"", fmt, str);
        return 0;
    }
    if (!json_object_is_type(x, json_type_int) && !json_object_is_type(x, json_type_double))
        return 0;
    double d = json_object_get_double(x);
    snprintf(num, sizeof num, "%g", d);
    const jt_node *mn = jt_get(s.node, "minimum"), *mx = jt_get(s.node, "maximum");
    const jt_node *emn = jt_get(s.node, "exclusiveMinimum"),
                  *emx = jt_get(s.node, "exclusiveMaximum");
    bool ex_min = jt_is(emn, JT_BOOL) && emn->boolean, ex_max = jt_is(emx, JT_BOOL) && emx->boolean;
    double lo = spec_keyword_num(mn), hi = spec_keyword_num(mx);
    double elo = spec_keyword_num(emn), ehi = spec_keyword_num(emx); /* 3.1: numbers */
    if (!isnan(lo) && (ex_min ? d <= lo : d < lo))
        return fail(v, "%s is below the minimum%s", num, "");
    if (!isnan(hi) && (ex_max ? d >= hi : d > hi))
        return fail(v, "%s is above the maximum%s", num, "");
    if (!isnan(elo) && d <= elo) return fail(v, "%s is not above exclusiveMinimum%s", num, "");
    if (!isnan(ehi) && d >= ehi) return fail(v, "%s is not below exclusiveMaximum%s", num, "");
    return 0;
}

static int check(vctx *v, spec_loc s, json_object *x, unsigned depth)
{
    if (depth > VALIDATE_MAX_DEPTH) return 0; /* deeper than any real example: accept */
    if (spec_deref(v->api, s, &s) || !jt_is(s.node, JT_OBJECT)) return 0;
    const jt_node *all = jt_get(s.node, "allOf");
    for (size_t i = 0; jt_is(all, JT_ARRAY) && i < all->len; i++)
        if (check(v, (spec_loc){all->u.items[i], s.doc}, x, depth + 1)) return 1;
    if (check_alternatives(v, s, jt_get(s.node, "oneOf"), x, depth, "oneOf")) return 1;
    if (check_alternatives(v, s, jt_get(s.node, "anyOf"), x, depth, "anyOf")) return 1;

    bool is_null = json_object_is_type(x, json_type_null);
    const jt_node *type = jt_get(s.node, "type");
    if (is_null && jt_get_bool(s.node, "nullable", false)) return 0;
    if (jt_is(type, JT_STRING) && !type_matches(jt_str(type), x))
        return fail(v, "expected %s, got %s", jt_str(type), json_type_of(x));
    if (jt_is(type, JT_ARRAY)) {
        bool any = false;
        for (size_t i = 0; i < type->len && !any; i++) {
            const char *t = jt_str(type->u.items[i]);
            any = t && type_matches(t, x);
        }
        if (type->len && !any) return fail(v, "has the wrong type (%s)%s", json_type_of(x), "");
    }
    const jt_node *en = jt_get(s.node, "enum");
    if (jt_is(en, JT_ARRAY) && en->len) {
        bool in = false;
        for (size_t i = 0; i < en->len && !in; i++) in = same_value(x, en->u.items[i]);
        if (!in) {
            const char *shown = json_object_to_json_string_ext(x, JSON_C_TO_STRING_PLAIN);
            return fail(v, "%s is not one of the enum values%s", shown, "");
        }
    }
    const jt_node *cn = jt_get(s.node, "const");
    if (cn && !same_value(x, cn)) return fail(v, "differs from the const value%s%s", "", "");
    if (json_object_is_type(x, json_type_object)) return check_object(v, s, x, depth);
    if (json_object_is_type(x, json_type_array)) return check_array(v, s, x, depth);
    return check_scalar(v, s, x);
}

int spec_validate_json(const spec_api *api, spec_loc schema, struct json_object *x, bool request,
                       core_arena *arena, const char **problem)
{
    *problem = NULL;
    vctx v = {.api = api, .request = request};
    core_buf_init(&v.ptr, 1 << 16);
    core_buf_init(&v.problem, 4096);
    int rc = 0;
    if (check(&v, schema, x, 0)) {
        *problem = core_arena_strdup(arena, v.problem.data ? v.problem.data : "invalid");
        if (!*problem) rc = APIDEX_ENOMEM;
    }
    core_buf_free(&v.ptr);
    core_buf_free(&v.problem);
    return rc;
}
