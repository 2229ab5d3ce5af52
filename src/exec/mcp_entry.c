/*
 * Reading an MCP server's resource and getting its prompt through apidex (docs/MCP-SOURCES.md
 * "Calling a tool"): the operations oas/mcp.c made of them (x-mcp-resource, x-mcp-prompt)
 * become resources/read and prompts/get. What is read is what the index holds: the resource's
 * URI (a template's variables filled from the arguments, percent-encoded as RFC 6570 says)
 * or the prompt's name; a caller never names a URI. The arguments are strings, each one a
 * parameter the entry declares (a template's variables, a prompt's arguments), the required
 * ones given. Both are reads: no write rule.
 */
#include "exec/exec_int.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

enum { ENTRY_HIDE_DEPTH = 8, ENTRY_MAX_DEPTH = 64 };

const char *exec_mcp_kind(const spec_operation *op)
{
    spec_mcp_entry e;
    spec_operation_mcp(op, &e);
    return spec_mcp_kind_name(e.kind);
}

int exec_mcp_unknown_argument(const char *kind, const char *id, const char *name,
                              const char *const *known, size_t n, apidex_error *err)
{
    const char *best = NULL;
    size_t best_d = 99, len = strlen(name);
    core_buf list;
    core_buf_init(&list, 4096);
    for (size_t i = 0; i < n; i++) {
        size_t d = exec_edit_distance(name, known[i]);
        if (d < best_d) best_d = d, best = known[i];
        core_buf_printf(&list, "%s%s", i ? ", " : "", known[i]);
    }
    if (best && best_d <= (len > 6 ? len / 3 : 2))
        core_error_set(err, APIDEX_EINVAL, "unknown argument '%s' for %s %s (did you mean '%s'?)",
                       name, kind, id, best);
    else
        core_error_set(err, APIDEX_EINVAL, "unknown argument '%s' for %s %s; it takes: %s", name,
                       kind, id, list.len ? list.data : "no arguments");
    core_buf_free(&list);
    return APIDEX_EINVAL;
}

json_object *exec_mcp_parse_object(const char *text)
{
    json_tokener *tok = json_tokener_new_ex(ENTRY_MAX_DEPTH);
    json_object *o = tok ? json_tokener_parse_ex(tok, text, (int)strlen(text)) : NULL;
    if (!tok || json_tokener_get_error(tok) != json_tokener_success ||
        !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}

json_object *exec_mcp_hide_binary(json_object *v, int depth)
{
    if (!json_object_is_type(v, json_type_object) && !json_object_is_type(v, json_type_array))
        return json_object_get(v);
    if (depth >= ENTRY_HIDE_DEPTH) return json_object_get(v);
    if (json_object_is_type(v, json_type_array)) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; a && i < json_object_array_length(v); i++)
            json_object_array_add(a,
                                  exec_mcp_hide_binary(json_object_array_get_idx(v, i), depth + 1));
        return a;
    }
    json_object *o = json_object_new_object();
    size_t bytes = 0;
    bool hidden = false;
    json_object_object_foreach(v, k, x)
    {
        if ((!strcmp(k, "data") || !strcmp(k, "blob")) &&
            json_object_is_type(x, json_type_string)) {
            bytes = (size_t)json_object_get_string_len(x) / 4 * 3;
            hidden = true;
            json_object_object_add(o, k, json_object_new_string("(base64 data not shown)"));
        } else {
            json_object_object_add(o, k, exec_mcp_hide_binary(x, depth + 1));
        }
    }
    if (hidden) json_object_object_add(o, "bytes", json_object_new_int64((int64_t)bytes));
    return o;
}

/* ---------------------------------------------------------------- arguments */

static const spec_param *declared(const spec_operation *op, const char *name)
{
    for (size_t i = 0; i < op->n_params; i++)
        if (!strcmp(op->params[i].name, name)) return &op->params[i];
    return NULL;
}

static int unknown(const spec_operation *op, const char *kind, const char *id, const char *name,
                   apidex_error *err)
{
    const char **known = calloc(op->n_params + 1, sizeof *known);
    if (!known) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; i < op->n_params; i++) known[i] = op->params[i].name;
    int rc = exec_mcp_unknown_argument(kind, id, name, known, op->n_params, err);
    free(known);
    return rc;
}

/* One argument into args: declared, and a string (a number or boolean as its text). */
static int put_argument(const spec_operation *op, const char *kind, const char *id,
                        json_object *args, const char *name, json_object *v, apidex_error *err)
{
    if (!declared(op, name)) return unknown(op, kind, id, name, err);
    if (json_object_is_type(v, json_type_null)) return 0; /* not given */
    if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
        return core_error_set(err, APIDEX_EINVAL, "%s %s: argument '%s': expected a string, got %s",
                              kind, id, name,
                              json_object_is_type(v, json_type_array) ? "an array" : "an object");
    json_object_object_add(args, name, json_object_new_string(exec_value_text(v)));
    return 0;
}

/* The arguments (body or arguments object, -p name=value on top), each checked. */
static int entry_arguments(const spec_operation *op, const char *kind, const char *id,
                           const exec_tool_options *o, json_object **out, apidex_error *err)
{
    *out = NULL;
    json_object *base = o->arguments ? json_object_get(o->arguments) : NULL;
    if (o->body && !(base = exec_mcp_parse_object(o->body)))
        return core_error_set(err, APIDEX_EINVAL,
                              "the body of a %s read is its arguments: a JSON object of strings "
                              "(e.g. --body '{\"city\": \"Oslo\"}')",
                              kind);
    if (base && !json_object_is_type(base, json_type_object)) {
        json_object_put(base);
        return core_error_set(err, APIDEX_EINVAL, "the arguments must be a JSON object");
    }
    json_object *args = json_object_new_object();
    int rc = args ? 0 : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!rc && base) {
        json_object_object_foreach(base, k, v)
        {
            if ((rc = put_argument(op, kind, id, args, k, v, err)) != 0) break;
        }
    }
    json_object_put(base);
    for (size_t i = 0; !rc && i < o->n_params; i++) {
        const char *in = o->params[i], *eq = strchr(in, '=');
        if (!eq || eq == in) {
            rc = core_error_set(err, APIDEX_EINVAL,
                                "input '%s' is not name=value (e.g. -p city=Oslo)", in);
            break;
        }
        char *name = strndup(in, (size_t)(eq - in));
        json_object *v = json_object_new_string(eq + 1);
        rc = !name || !v ? core_error_set(err, APIDEX_ENOMEM, "out of memory")
                         : put_argument(op, kind, id, args, name, v, err);
        json_object_put(v);
        free(name);
    }
    for (size_t i = 0; !rc && i < op->n_params; i++)
        if (op->params[i].required && !json_object_object_get(args, op->params[i].name))
            rc = core_error_set(err, APIDEX_EINVAL, "%s %s: missing required argument '%s'", kind,
                                id, op->params[i].name);
    if (rc) {
        json_object_put(args);
        return rc;
    }
    *out = args;
    return 0;
}

/* ---------------------------------------------------------------- URI templates */

/* The prefix of s of at most max characters (UTF-8 sequences kept whole). */
static size_t prefix_bytes(const char *s, long max)
{
    size_t i = 0;
    for (long chars = 0; s[i] && chars < max; chars++)
        for (i++; ((unsigned char)s[i] & 0xC0) == 0x80; i++) {
        }
    return i;
}

/* One expression {...} of an RFC 6570 template (end: its '}'), with args' values. */
static int expand_expression(core_buf *b, const char *p, const char *end, json_object *args)
{
    static const struct {
        char op;
        const char *first, *sep;
        bool named, reserved;
        const char *ifemp;
    } ops[] = {{'+', "", ",", false, true, ""},   {'#', "#", ",", false, true, ""},
               {'.', ".", ".", false, false, ""}, {'/', "/", "/", false, false, ""},
               {';', ";", ";", true, false, ""},  {'?', "?", "&", true, false, "="},
               {'&', "&", "&", true, false, "="}, {0, "", ",", false, false, ""}};
    size_t k = 0;
    while (ops[k].op && ops[k].op != *p) k++;
    if (ops[k].op) p++;
    bool any = false;
    while (p < end) {
        const char *stop = memchr(p, ',', (size_t)(end - p));
        if (!stop) stop = end;
        const char *e = p;
        while (e < stop && *e != '*' && *e != ':') e++;
        long max = *e == ':' ? strtol(e + 1, NULL, 10) : -1;
        char name[257];
        size_t n = (size_t)(e - p) < sizeof name - 1 ? (size_t)(e - p) : sizeof name - 1;
        memcpy(name, p, n);
        name[n] = '\0';
        const char *v = json_object_get_string(json_object_object_get(args, name));
        if (v) {
            core_buf_puts(b, any ? ops[k].sep : ops[k].first);
            any = true;
            size_t len = max > 0 ? prefix_bytes(v, max) : strlen(v);
            if (ops[k].named) {
                core_buf_append(b, name, n);
                core_buf_puts(b, len ? "=" : ops[k].ifemp);
            }
            if (exec_pct_encode(b, v, len, ops[k].reserved)) return APIDEX_ENOMEM;
        }
        p = stop < end ? stop + 1 : end;
    }
    return b->failed ? APIDEX_ENOMEM : 0;
}

/* The URI of template tmpl with args (malloc'd), or NULL when out of memory. */
static char *expand_template(const char *tmpl, json_object *args)
{
    core_buf b;
    core_buf_init(&b, 0);
    const char *p = tmpl;
    for (const char *open; (open = strchr(p, '{')) != NULL;) {
        const char *end = strchr(open, '}');
        if (!end) break;
        core_buf_append(&b, p, (size_t)(open - p));
        if (expand_expression(&b, open + 1, end, args)) b.failed = true;
        p = end + 1;
    }
    core_buf_puts(&b, p);
    char *uri = b.failed ? NULL : core_buf_steal(&b, NULL);
    core_buf_free(&b);
    return uri;
}

/* ---------------------------------------------------------------- the request and result */

int exec_mcp_entry_request(const spec_operation *op, const char *id, const exec_tool_options *o,
                           const char **method, json_object **params, json_object **shown,
                           apidex_error *err)
{
    *params = *shown = NULL;
    const char *kind = exec_mcp_kind(op);
    bool prompt = kind && !strcmp(kind, "prompt");
    if (!kind || !strcmp(kind, "tool"))
        return core_error_set(err, APIDEX_EINVAL, "%s is no MCP resource or prompt", id);
    json_object *args = NULL;
    int rc = entry_arguments(op, kind, id, o, &args, err);
    if (rc) return rc;
    json_object *p = json_object_new_object();
    spec_mcp_entry e;
    spec_operation_mcp(op, &e);
    if (prompt) {
        *method = "prompts/get";
        json_object_object_add(p, "name", json_object_new_string(e.prompt));
        json_object_object_add(p, "arguments", json_object_get(args));
    } else {
        *method = "resources/read";
        const char *uri = e.resource, *ptr = e.pointer;
        bool tmpl = ptr && !strncmp(ptr, "/resourceTemplates/", 19);
        char *full = tmpl ? expand_template(uri, args) : strdup(uri);
        if (full)
            json_object_object_add(p, "uri", json_object_new_string(full));
        else
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
        free(full);
    }
    if (rc) {
        json_object_put(p);
        json_object_put(args);
        return rc;
    }
    *params = p;
    *shown = args;
    return 0;
}

int exec_mcp_entry_shape(const spec_operation *op, const char *id, const char *uri,
                         const char *text, const exec_shape_options *shape, json_object **out,
                         apidex_error *err)
{
    *out = NULL;
    const char *kind = exec_mcp_kind(op);
    bool prompt = kind && !strcmp(kind, "prompt");
    json_object *res = exec_mcp_parse_object(text);
    if (!res)
        return core_error_set(err, APIDEX_ESPEC, "%s %s: the server's result is not a JSON object",
                              kind, id);
    json_object *body = NULL;
    const char *body_text = NULL, *type = "application/json";
    json_object *contents = json_object_object_get(res, "contents");
    if (prompt) {
        body = exec_mcp_hide_binary(res, 0);
    } else if (!json_object_is_type(contents, json_type_array)) {
        json_object_put(res);
        return core_error_set(err, APIDEX_ESPEC,
                              "resource %s: the server's result has no 'contents' list", id);
    } else {
        json_object *first = json_object_array_get_idx(contents, 0);
        json_object *t = json_object_object_get(first, "text");
        const char *mime = json_object_get_string(json_object_object_get(first, "mimeType"));
        if (json_object_array_length(contents) == 1 && json_object_is_type(t, json_type_string)) {
            body_text = json_object_get_string(t);
            type = mime && exec_media_is_json(mime) ? mime : "text/plain";
        } else {
            body = exec_mcp_hide_binary(contents, 0);
        }
    }
    const char *bt =
        body_text ? body_text : json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN);
    net_header ct = {"Content-Type", type, false};
    exec_response resp = {.status = 200,
                          .headers = &ct,
                          .n_headers = 1,
                          .body = bt ? bt : "",
                          .body_len = bt ? strlen(bt) : 0};
    int rc = exec_shape(&resp, NULL, NULL, shape, out, err);
    if (!rc) {
        json_object_object_del(*out, "status");
        json_object_object_del(*out, "headers");
        json_object_object_add(*out, kind, json_object_new_string(id));
        if (uri) json_object_object_add(*out, "uri", json_object_new_string(uri));
    }
    json_object_put(body);
    json_object_put(res);
    return rc;
}
