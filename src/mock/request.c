/*
 * Is an incoming request what its operation accepts? Parameters are found where the spec
 * puts them (path, query, header, cookie), coerced from text to their schema's type (query
 * arrays comma-, space- or pipe-separated by their style, deepObject objects from
 * name[key]=value) and checked with spec_validate_json; the body is checked by content type (JSON
 * with a depth limit, form-urlencoded by field). The first problem is reported with where and which
 * rule.
 */
#include "mock/mock.h"

#include <ctype.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { BODY_MAX_DEPTH = 64, MAX_ARRAY_PARTS = 1000 };

const char *mock_problem_rule(const char *problem)
{
    static const struct {
        const char *needle, *rule;
    } rules[] = {
        {"expected ", "type"},
        {"has the wrong type", "type"},
        {"enum values", "enum"},
        {"is missing", "required"},
        {"not allowed (additionalProperties", "additionalProperties"},
        {"fewer than minItems", "minItems"},
        {"more than maxItems", "maxItems"},
        {"shorter than minLength", "minLength"},
        {"longer than maxLength", "maxLength"},
        {"does not match the pattern", "pattern"},
        {"is not a valid ", "format"},
        {"below the minimum", "minimum"},
        {"above the maximum", "maximum"},
        {"exclusiveMinimum", "exclusiveMinimum"},
        {"exclusiveMaximum", "exclusiveMaximum"},
        {"const value", "const"},
        {"oneOf alternatives", "oneOf"},
        {"anyOf alternatives", "anyOf"},
    };
    for (size_t i = 0; problem && i < sizeof rules / sizeof rules[0]; i++)
        if (strstr(problem, rules[i].needle)) return rules[i].rule;
    return "schema";
}

static int problem(mock_problem *p, int status, const char *message, const char *in,
                   const char *name, const char *pointer, const char *rule)
{
    *p = (mock_problem){status, message, in, name, pointer ? pointer : "", rule};
    return 1;
}

/* A validator problem "pointer: text" as a problem of parameter `name` in `in`. */
static int schema_problem(core_arena *a, mock_problem *p, const char *in, const char *name,
                          const char *text)
{
    const char *sep = strstr(text, ": ");
    const char *what = sep ? sep + 2 : text;
    const char *ptr = "";
    if (sep && text[0] == '/') ptr = core_arena_strndup(a, text, (size_t)(sep - text));
    const char *msg;
    if (name)
        msg = core_arena_printf(a, "%s parameter \"%s\"%s%s: %s", in, name, *ptr ? " at " : "", ptr,
                                what);
    else
        msg = core_arena_printf(a, "request body%s%s: %s", *ptr ? " at " : "", ptr, what);
    return problem(p, 400, msg ? msg : text, in, name, ptr, mock_problem_rule(text));
}

/* The type a text value is read as (v: its schema, $ref followed and allOf merged). */
static const char *schema_type(const spec_schema_view *v)
{
    const char *t = spec_schema_view_first_type(v);
    if (t) return t;
    if (v->kw[SPEC_KW_ITEMS]) return "array";
    return NULL;
}

/* Text read as the JSON value its schema wants; left a string when it is not one (the
   validator then names the type problem). */
static json_object *coerce_sep(const spec_api *api, spec_loc schema, const char *text,
                               core_arena *a, unsigned depth, char sep)
{
    spec_schema_view s;
    spec_schema_view_open(api, schema, a, &s);
    const char *type = schema_type(&s);
    if (!type || depth > 4) return json_object_new_string(text);
    char *end;
    if (!strcmp(type, "integer") && *text && !isspace((unsigned char)*text)) {
        long long v = strtoll(text, &end, 10);
        if (!*end) return json_object_new_int64(v);
    } else if (!strcmp(type, "number") && *text && !isspace((unsigned char)*text)) {
        double v = strtod(text, &end);
        if (!*end && isfinite(v)) return json_object_new_double(v);
    } else if (!strcmp(type, "boolean")) {
        if (!strcmp(text, "true")) return json_object_new_boolean(1);
        if (!strcmp(text, "false")) return json_object_new_boolean(0);
    } else if (!strcmp(type, "null") && !strcmp(text, "null")) {
        return NULL;
    } else if (!strcmp(type, "array")) {
        json_object *arr = json_object_new_array();
        spec_loc items = spec_schema_view_at(&s, s.kw[SPEC_KW_ITEMS]);
        const char *p = text;
        for (size_t i = 0; arr && *text && i < MAX_ARRAY_PARTS; i++) {
            const char *comma = strchr(p, sep);
            char *part = core_arena_strndup(a, p, comma ? (size_t)(comma - p) : strlen(p));
            if (!part) break;
            json_object_array_add(arr, items.node ? coerce_sep(api, items, part, a, depth + 1, ',')
                                                  : json_object_new_string(part));
            if (!comma) break;
            p = comma + 1;
        }
        return arr;
    }
    return json_object_new_string(text);
}

/* coerce_sep with arrays written comma-separated (form, simple). */
static json_object *coerce(const spec_api *api, spec_loc schema, const char *text, core_arena *a,
                           unsigned depth)
{
    return coerce_sep(api, schema, text, a, depth, ',');
}

/* The separator of a query array: spaceDelimited ' ', pipeDelimited '|' (OpenAPI 3); ssv,
   tsv, pipes (Swagger 2.0 collectionFormat); else ','. */
static char query_separator(const spec_param *prm)
{
    spec_serialization ser = spec_param_serialization(prm);
    const char *style = ser.style;
    const char *format = ser.collection_format;
    if ((style && !strcmp(style, "spaceDelimited")) || (format && !strcmp(format, "ssv")))
        return ' ';
    if ((style && !strcmp(style, "pipeDelimited")) || (format && !strcmp(format, "pipes")))
        return '|';
    if (format && !strcmp(format, "tsv")) return '\t';
    return ',';
}

/* A deepObject query parameter: name[key]=value pairs as an object, each value coerced by its
   property's schema; NULL (and *present false) when there is none. */
static json_object *deep_object(const spec_api *api, const spec_param *prm, const mock_request *rq,
                                core_arena *a, bool *present)
{
    spec_schema_view s;
    spec_schema_view_open(api, prm->schema, a, &s);
    size_t n = strlen(prm->name);
    json_object *obj = NULL;
    for (size_t i = 0; i < rq->n_query; i++) {
        const char *q = rq->query[i].name;
        size_t len = q ? strlen(q) : 0;
        if (!q || len < n + 3 || strncmp(q, prm->name, n) || q[n] != '[' || q[len - 1] != ']')
            continue;
        const char *key = core_arena_strndup(a, q + n + 1, len - n - 2);
        if (!key || (!obj && !(obj = json_object_new_object()))) break;
        spec_loc ps = spec_schema_view_property(&s, key);
        const char *v = rq->query[i].value ? rq->query[i].value : "";
        json_object_object_add(obj, key,
                               ps.node ? coerce(api, ps, v, a, 1) : json_object_new_string(v));
    }
    *present = obj != NULL;
    return obj;
}

static const char *find_pair(const mock_pair *pairs, size_t n, const char *name, bool nocase)
{
    for (size_t i = 0; i < n; i++)
        if (pairs[i].name &&
            (nocase ? !strcasecmp(pairs[i].name, name) : !strcmp(pairs[i].name, name)))
            return pairs[i].value ? pairs[i].value : "";
    return NULL;
}

/* A query parameter's value: one occurrence as text (an array split at its style's
   separator), several (or name[]) as an array; a deepObject as an object. */
static json_object *query_value(const spec_api *api, const spec_param *prm, const mock_request *rq,
                                core_arena *a, bool *present)
{
    const char *style = spec_param_serialization(prm).style;
    if (style && !strcmp(style, "deepObject")) return deep_object(api, prm, rq, a, present);
    const char *alt = core_arena_printf(a, "%s[]", prm->name);
    size_t count = 0;
    const char *one = NULL;
    for (size_t i = 0; i < rq->n_query; i++)
        if (rq->query[i].name &&
            (!strcmp(rq->query[i].name, prm->name) || (alt && !strcmp(rq->query[i].name, alt)))) {
            count++;
            one = rq->query[i].value ? rq->query[i].value : "";
        }
    *present = count > 0;
    if (!count) return NULL;
    spec_schema_view s;
    spec_schema_view_open(api, prm->schema, a, &s);
    const char *type = schema_type(&s);
    if (count == 1 || !type || strcmp(type, "array"))
        return coerce_sep(api, prm->schema, one, a, 0, query_separator(prm));
    json_object *arr = json_object_new_array();
    spec_loc items = spec_schema_view_at(&s, s.kw[SPEC_KW_ITEMS]);
    for (size_t i = 0; arr && i < rq->n_query; i++)
        if (rq->query[i].name &&
            (!strcmp(rq->query[i].name, prm->name) || (alt && !strcmp(rq->query[i].name, alt)))) {
            const char *v = rq->query[i].value ? rq->query[i].value : "";
            json_object_array_add(arr, items.node ? coerce(api, items, v, a, 1)
                                                  : json_object_new_string(v));
        }
    return arr;
}

static bool ignored_header(const char *name)
{
    return !strcasecmp(name, "Accept") || !strcasecmp(name, "Content-Type") ||
           !strcasecmp(name, "Authorization");
}

static int check_params(const mock_match *m, const mock_request *rq, core_arena *a, mock_problem *p)
{
    const spec_operation *op = m->op;
    for (size_t i = 0; i < op->n_params; i++) {
        const spec_param *prm = &op->params[i];
        if (!prm->name || !prm->in) continue;
        json_object *val = NULL;
        bool present = false;
        if (!strcmp(prm->in, "path")) {
            for (size_t k = 0; k < m->n_params && !present; k++)
                if (!strcmp(m->param_names[k], prm->name)) {
                    present = true;
                    val = coerce(m->api, prm->schema, m->param_values[k], a, 0);
                }
            if (!present) continue; /* the template does not name it: nothing to check */
        } else if (!strcmp(prm->in, "query")) {
            val = query_value(m->api, prm, rq, a, &present);
        } else if (!strcmp(prm->in, "header")) {
            if (ignored_header(prm->name)) continue;
            const char *v = find_pair(rq->headers, rq->n_headers, prm->name, true);
            present = v != NULL;
            if (v) val = coerce(m->api, prm->schema, v, a, 0);
        } else if (!strcmp(prm->in, "cookie")) {
            const char *v = find_pair(rq->cookies, rq->n_cookies, prm->name, false);
            present = v != NULL;
            if (v) val = coerce(m->api, prm->schema, v, a, 0);
        } else {
            continue;
        }
        if (!present) {
            if (!prm->required) continue;
            const char *msg =
                core_arena_printf(a, "%s parameter \"%s\" is required", prm->in, prm->name);
            return problem(p, 400, msg, prm->in, prm->name, "", "required");
        }
        spec_schema_view s;
        spec_schema_view_open(m->api, prm->schema, a, &s);
        const char *type = schema_type(&s);
        const char *text = NULL;
        int rc = 0;
        /* an object is checked when its style says how it is written (deepObject) */
        const char *style = spec_param_serialization(prm).style;
        bool deep = style && !strcmp(style, "deepObject") && !strcmp(prm->in, "query");
        if (prm->schema.node && (deep || !(type && !strcmp(type, "object"))))
            rc = spec_validate_json(m->api, prm->schema, val, true, a, &text);
        json_object_put(val);
        if (rc) return rc;
        if (text) return schema_problem(a, p, prm->in, prm->name, text);
    }
    return 0;
}

/* ---------------------------------------------------------------- bodies */

static bool is_json_type(const char *t)
{
    size_t n = strlen(t);
    return !strcasecmp(t, "application/json") || (n >= 5 && !strcasecmp(t + n - 5, "+json")) ||
           (n >= 5 && !strcasecmp(t + n - 5, "/json")) || strstr(t, "json") != NULL;
}

/* The media type of op's body that content_type selects (parameters ignored). */
static const spec_media *pick_media(const spec_body *b, const char *content_type, core_arena *a)
{
    if (!b->n_media) return NULL;
    if (!content_type) { /* none sent: a JSON one, else the first */
        for (size_t i = 0; i < b->n_media; i++)
            if (b->media[i].type && is_json_type(b->media[i].type)) return &b->media[i];
        return &b->media[0];
    }
    size_t n = strcspn(content_type, ";");
    while (n && content_type[n - 1] == ' ') n--;
    char *ct = core_arena_strndup(a, content_type, n);
    if (!ct) return NULL;
    for (size_t i = 0; i < b->n_media; i++)
        if (b->media[i].type && !strcasecmp(b->media[i].type, ct)) return &b->media[i];
    const char *slash = strchr(ct, '/');
    for (size_t i = 0; i < b->n_media; i++) {
        const char *t = b->media[i].type;
        if (!t) continue;
        size_t tl = strlen(t);
        if (!strcmp(t, "*/*")) return &b->media[i];
        if (slash && tl >= 2 && !strcmp(t + tl - 2, "/*") &&
            !strncasecmp(t, ct, (size_t)(slash - ct)))
            return &b->media[i];
    }
    return NULL;
}

/* An urlencoded form as an object, each field coerced by its property's schema. */
static json_object *parse_form(const spec_api *api, spec_loc schema, const char *body, size_t len,
                               core_arena *a)
{
    spec_schema_view s;
    spec_schema_view_open(api, schema, a, &s);
    json_object *o = json_object_new_object();
    const char *p = body, *end = body + len;
    while (o && p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp ? amp : end;
        const char *eq = memchr(p, '=', (size_t)(stop - p));
        char *key = mock_percent_decode(a, p, (size_t)((eq ? eq : stop) - p), true);
        char *val = eq ? mock_percent_decode(a, eq + 1, (size_t)(stop - eq - 1), true)
                       : core_arena_strdup(a, "");
        if (key && val && *key) {
            spec_loc ps = spec_schema_view_property(&s, key);
            json_object_object_add(
                o, key, ps.node ? coerce(api, ps, val, a, 0) : json_object_new_string(val));
        }
        p = stop + 1;
    }
    return o;
}

static int check_body(const mock_match *m, const mock_request *rq, core_arena *a,
                      json_object **body, mock_problem *p)
{
    const spec_body *b = m->op->body;
    if (!b) return 0;
    if (!rq->body || !rq->body_len) {
        if (!b->required) return 0;
        return problem(p, 400, "a request body is required", "body", NULL, "", "required");
    }
    const spec_media *media = pick_media(b, rq->content_type, a);
    if (!media && b->n_media) {
        core_buf types;
        core_buf_init(&types, 4096);
        for (size_t i = 0; i < b->n_media; i++)
            core_buf_printf(&types, "%s%s", i ? ", " : "",
                            b->media[i].type ? b->media[i].type : "");
        const char *msg = core_arena_printf(a, "content type %s is not accepted (expected %s)",
                                            rq->content_type ? rq->content_type : "(none)",
                                            types.data ? types.data : "");
        core_buf_free(&types);
        return problem(p, 415, msg, "body", NULL, "", "content-type");
    }
    if (!media || !media->type) return 0;
    json_object *x = NULL;
    if (is_json_type(media->type)) {
        json_tokener *tok = json_tokener_new_ex(BODY_MAX_DEPTH);
        if (!tok) return APIDEX_ENOMEM;
        x = json_tokener_parse_ex(tok, rq->body, (int)rq->body_len);
        enum json_tokener_error jerr = json_tokener_get_error(tok);
        size_t used = json_tokener_get_parse_end(tok);
        json_tokener_free(tok);
        bool trailing = false;
        for (size_t i = used; jerr == json_tokener_success && i < rq->body_len; i++)
            if (!isspace((unsigned char)rq->body[i])) trailing = true;
        if (jerr != json_tokener_success || trailing) {
            json_object_put(x);
            const char *msg =
                core_arena_printf(a, "request body is not valid JSON: %s (at byte %zu)",
                                  jerr == json_tokener_success    ? "data after the value"
                                  : jerr == json_tokener_continue ? "unexpected end"
                                                                  : json_tokener_error_desc(jerr),
                                  used);
            return problem(p, 400, msg, "body", NULL, "", "json");
        }
    } else if (!strncasecmp(media->type, "application/x-www-form-urlencoded", 33)) {
        x = parse_form(m->api, media->schema, rq->body, rq->body_len, a);
    } else {
        return 0; /* multipart, text, binary: accepted as they are */
    }
    if (media->schema.node) {
        const char *text = NULL;
        int rc = spec_validate_json(m->api, media->schema, x, true, a, &text);
        if (rc || text) {
            json_object_put(x);
            return rc ? rc : schema_problem(a, p, "body", NULL, text);
        }
    }
    *body = x;
    return 0;
}

int mock_request_check(const mock_match *m, const mock_request *rq, core_arena *arena,
                       struct json_object **body, mock_problem *p)
{
    *body = NULL;
    int rc = check_params(m, rq, arena, p);
    if (rc) return rc;
    return check_body(m, rq, arena, body, p);
}
