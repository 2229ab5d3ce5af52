/*
 * exec_build: from an operation of a loaded spec and the caller's name=value inputs to an
 * HTTP request, validated before anything is sent.
 *
 * Order: the inputs are parsed and matched (parameters by name, then server variables, then
 * fields of an object body; anything else is an unknown input, named with the nearest known
 * one); each value is coerced from its text to its schema's type (a value starting with [ or
 * { is JSON; an array may also be given as a,b,c) and checked by spec_validate_json, the one
 * validator apidex has; then the server URL, the path, query, headers and cookies are
 * written in their styles (params.c), the body in its media type (body.c), and the
 * credentials are added (creds.c). The first problem stops the build with APIDEX_EINVAL and
 * a message naming the input and the rule.
 */
#include "exec/exec_int.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { REQUEST_ARENA_CAP = 256u << 20, MAX_INPUTS = 256 };

typedef struct input {
    const char *name, *value;
    bool used;
} input;

typedef struct build {
    const spec_api *api;
    const spec_operation *op;
    const exec_build_options *opt;
    exec_request *r;
    input in[MAX_INPUTS];
    size_t n_in;
    apidex_error *err;
    const char *base;        /* the server URL as chosen (before its variables) */
    const char *override;    /* the registry's server, when it was the one chosen */
    bool from_caller_server; /* opt->server was the one chosen */
} build;

/* ---------------------------------------------------------------- request helpers */

void exec_request_note(exec_request *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    core_buf b;
    core_buf_init(&b, 4096);
    core_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    const char **n = core_arena_alloc(r->arena, (r->n_notes + 1) * sizeof *n);
    const char *s = b.data ? core_arena_strndup(r->arena, b.data, b.len) : NULL;
    core_buf_free(&b);
    if (!n || !s) return;
    if (r->n_notes) memcpy(n, r->notes, r->n_notes * sizeof *n);
    n[r->n_notes++] = s;
    r->notes = n;
}

bool exec_header_forbidden(const char *name)
{
    static const char *const names[] = {"host",       "content-length", "transfer-encoding",
                                        "connection", "upgrade",        "keep-alive",
                                        "te",         "trailer",        "expect"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcasecmp(name, names[i])) return true;
    return !strncasecmp(name, "proxy-", 6);
}

const char *exec_control_char(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f) return s + i;
    return NULL;
}

int exec_request_add_header(exec_request *r, const char *name, const char *value, bool secret)
{
    /* the last line of defence: framing and hop-by-hop headers are curl's to write, and a
       control character in a name or value could end or split the header */
    if (exec_header_forbidden(name) || exec_control_char(name, strlen(name)) || strpbrk(name, " :"))
        return APIDEX_EINVAL;
    /* the one control character allowed: the mark of a placeholder (snippets, dry runs),
       never in a value sent (exec_param_write refuses it in a caller's value) */
    for (const char *c = value; (c = exec_control_char(c, strlen(c))); c++)
        if (*c != EXEC_PLACEHOLDER[0]) return APIDEX_EINVAL;
    exec_header *h = core_arena_alloc(r->arena, (r->n_headers + 1) * sizeof *h);
    if (!h) return APIDEX_ENOMEM;
    if (r->n_headers) memcpy(h, r->headers, r->n_headers * sizeof *h);
    h[r->n_headers].name = core_arena_strdup(r->arena, name);
    h[r->n_headers].value = core_arena_strdup(r->arena, value);
    h[r->n_headers].secret = secret;
    if (!h[r->n_headers].name || !h[r->n_headers].value) return APIDEX_ENOMEM;
    r->headers = h;
    r->n_headers++;
    return 0;
}

int exec_request_add_secret(exec_request *r, const char *value)
{
    if (!value || !*value) return 0;
    const char **s = core_arena_alloc(r->arena, (r->n_secrets + 1) * sizeof *s);
    if (!s) return APIDEX_ENOMEM;
    if (r->n_secrets) memcpy(s, r->secrets, r->n_secrets * sizeof *s);
    s[r->n_secrets] = core_arena_strdup(r->arena, value);
    if (!s[r->n_secrets]) return APIDEX_ENOMEM;
    r->secrets = s;
    r->n_secrets++;
    return 0;
}

void exec_build_free(exec_request *r)
{
    if (!r) return;
    core_arena_free(r->arena);
    memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- values */

/* The type a schema declares ("string", ...; the first non-null of a 3.1 list; allOf
   members looked into), or NULL. */
static const char *schema_type(const spec_api *api, spec_loc s, spec_schema_view *resolved,
                               int depth)
{
    spec_schema_view v;
    if (depth > 8 || spec_schema_view_open(api, s, NULL, &v) || !v.loc.node) return NULL;
    if (resolved) *resolved = v;
    const char *t = spec_schema_view_first_type(&v);
    if (t) return t;
    const jt_node *all = v.kw[SPEC_KW_ALL_OF]; /* not merged: each member looked into */
    for (size_t i = 0; jt_is(all, JT_ARRAY) && i < all->len; i++) {
        const char *x = schema_type(api, spec_schema_view_at(&v, all->u.items[i]), NULL, depth + 1);
        if (x) return x;
    }
    if (v.kw[SPEC_KW_PROPERTIES]) return "object";
    if (v.kw[SPEC_KW_ITEMS]) return "array";
    return NULL;
}

/* text as a scalar of type t, else as a string (the validator then names the mismatch). */
static json_object *scalar_of(const char *t, const char *text)
{
    char *end = NULL;
    if (t && !strcmp(t, "integer") && *text) {
        long long v = strtoll(text, &end, 10);
        if (!*end) return json_object_new_int64(v);
    } else if (t && !strcmp(t, "number") && *text) {
        double v = strtod(text, &end);
        if (!*end) return json_object_new_double(v);
    } else if (t && !strcmp(t, "boolean")) {
        if (!strcmp(text, "true")) return json_object_new_boolean(1);
        if (!strcmp(text, "false")) return json_object_new_boolean(0);
    }
    return json_object_new_string(text);
}

/* The JSON value of input text for schema s: JSON when it starts with [ or {, a,b,c for an
   array, else a scalar of the schema's type. *bad_json: it looked like JSON but is not. */
static json_object *value_of(const spec_api *api, spec_loc s, const char *text, bool *bad_json)
{
    *bad_json = false;
    spec_schema_view sv = {0};
    const char *t = schema_type(api, s, &sv, 0);
    if (text[0] == '[' || text[0] == '{') {
        if (!t || !strcmp(t, "array") || !strcmp(t, "object")) {
            json_tokener *tok = json_tokener_new();
            json_object *v = tok ? json_tokener_parse_ex(tok, text, (int)strlen(text)) : NULL;
            bool ok = tok && json_tokener_get_error(tok) == json_tokener_success;
            json_tokener_free(tok);
            if (ok) return v;
            json_object_put(v);
            *bad_json = true;
            return NULL;
        }
    }
    if (t && !strcmp(t, "array")) {
        spec_loc items = spec_schema_view_at(&sv, sv.kw[SPEC_KW_ITEMS]);
        const char *it = items.node ? schema_type(api, items, NULL, 0) : NULL;
        json_object *arr = json_object_new_array();
        const char *p = text;
        while (arr && *text) {
            size_t n = strcspn(p, ",");
            char *one = strndup(p, n);
            if (one) json_object_array_add(arr, scalar_of(it, one));
            free(one);
            if (!p[n]) break;
            p += n + 1;
        }
        return arr;
    }
    return scalar_of(t, text);
}

json_object *exec_input_value(const spec_api *api, spec_loc s, const char *text, bool *bad_json)
{
    return value_of(api, s, text, bad_json);
}

/* The enum of schema s (else of its items, at most depth levels down: items may be the
   schema itself) as "a|b|c" (in arena), or NULL. */
static const char *enum_text(const spec_api *api, spec_loc s, core_arena *arena, unsigned depth)
{
    spec_schema_view v;
    if (!depth || spec_schema_view_open(api, s, NULL, &v) || !v.loc.node) return NULL;
    const jt_node *en = v.kw[SPEC_KW_ENUM];
    if (!jt_is(en, JT_ARRAY) && jt_is(v.kw[SPEC_KW_ITEMS], JT_OBJECT))
        return enum_text(api, spec_schema_view_at(&v, v.kw[SPEC_KW_ITEMS]), arena, depth - 1);
    if (!jt_is(en, JT_ARRAY)) return NULL;
    core_buf b;
    core_buf_init(&b, 2048);
    for (size_t i = 0; i < en->len; i++) {
        if (i) core_buf_putc(&b, '|');
        core_buf jb;
        core_buf_init(&jb, 512);
        jt_write_json(&jb, en->u.items[i], -1);
        const char *q = jb.data ? jb.data : "";
        if (jt_is(en->u.items[i], JT_STRING))
            core_buf_puts(&b, jt_str(en->u.items[i]));
        else
            core_buf_append(&b, q, jb.len);
        core_buf_free(&jb);
    }
    const char *out = b.data ? core_arena_strndup(arena, b.data, b.len) : NULL;
    core_buf_free(&b);
    return out;
}

/* Checks v against schema s; what = "parameter 'x' (query)", "the request body", ... */
static int check_value(build *b, spec_loc s, json_object *v, const char *what)
{
    const char *problem = NULL;
    if (!s.node) return 0;
    if (spec_validate_json(b->api, s, v, true, b->r->arena, &problem))
        return core_error_set(b->err, APIDEX_ENOMEM, "out of memory");
    if (!problem) return 0;
    if (!strncmp(problem, "(root): ", 8)) problem += 8;
    const char *en =
        strstr(problem, "enum") ? enum_text(b->api, s, b->r->arena, SPEC_SCHEMA_GUARD_MAX) : NULL;
    return core_error_set(b->err, APIDEX_EINVAL, "%s: %s%s%s%s", what, problem,
                          en ? " (one of: " : "", en ? en : "", en ? ")" : "");
}

/* ---------------------------------------------------------------- inputs */

static int parse_inputs(build *b)
{
    const exec_build_options *o = b->opt;
    for (size_t i = 0; i < o->n_params; i++) {
        const char *eq = strchr(o->params[i], '=');
        if (!eq || eq == o->params[i])
            return core_error_set(b->err, APIDEX_EINVAL,
                                  "input '%s' is not name=value (e.g. -p limit=10)", o->params[i]);
        if (b->n_in == MAX_INPUTS)
            return core_error_set(b->err, APIDEX_EINVAL, "more than %d inputs", MAX_INPUTS);
        input *x = &b->in[b->n_in++];
        x->name = core_arena_strndup(b->r->arena, o->params[i], (size_t)(eq - o->params[i]));
        x->value = eq + 1;
        if (!x->name) return core_error_set(b->err, APIDEX_ENOMEM, "out of memory");
    }
    return 0;
}

/* The value given for name (header names compare without case); several values of an
   array input (-p tag=a -p tag=b) come back as one JSON array of their texts. NULL when
   none was given. Marks the inputs used. */
/* Whether input x names parameter `name` at location `in` (NULL: a body field): by its name
   (a header's without case), or qualified by its location ("query:id") when two locations
   have a parameter of one name. */
static bool names(const input *x, const char *name, const char *in)
{
    bool header = in && !strcmp(in, "header");
    if (!(header ? strcasecmp(x->name, name) : strcmp(x->name, name))) return true;
    size_t il = in ? strlen(in) : 0;
    return il && !strncmp(x->name, in, il) && x->name[il] == ':' &&
           !(header ? strcasecmp(x->name + il + 1, name) : strcmp(x->name + il + 1, name));
}

static json_object *take_input(build *b, const char *name, const char *in, spec_loc schema, int *rc,
                               const char *what)
{
    input *first = NULL;
    size_t count = 0;
    for (size_t i = 0; i < b->n_in; i++) {
        input *x = &b->in[i];
        if (x->used || !names(x, name, in)) continue;
        if (!first) first = x;
        count++;
    }
    if (!first) return NULL;
    const char *t = schema_type(b->api, schema, NULL, 0);
    if (count > 1 && !(t && !strcmp(t, "array"))) {
        *rc = core_error_set(b->err, APIDEX_EINVAL, "%s is given %zu times; it takes one value",
                             what, count);
        return NULL;
    }
    json_object *v = NULL;
    bool bad = false;
    if (count == 1) {
        first->used = true;
        v = value_of(b->api, schema, first->value, &bad);
    } else {
        /* an array (schema_type followed its $ref): each value one of its items */
        spec_schema_view sv;
        spec_schema_view_open(b->api, schema, NULL, &sv);
        spec_loc items = spec_schema_view_at(&sv, sv.kw[SPEC_KW_ITEMS]);
        v = json_object_new_array();
        for (size_t i = 0; v && i < b->n_in && !bad; i++) {
            input *x = &b->in[i];
            if (x->used || !names(x, name, in)) continue;
            x->used = true;
            json_object *one = items.node ? value_of(b->api, items, x->value, &bad)
                                          : json_object_new_string(x->value);
            if (one) json_object_array_add(v, one);
        }
    }
    if (bad) {
        json_object_put(v);
        *rc = core_error_set(b->err, APIDEX_EINVAL, "%s: the value is not valid JSON", what);
        return NULL;
    }
    if (!v) *rc = core_error_set(b->err, APIDEX_ENOMEM, "out of memory");
    return v;
}

/* ---------------------------------------------------------------- server */

/* The base URL: --server, the registry's override, the operation's servers, the API's (an
   https one first), with {variables} from the inputs or their defaults. */
static int server_url(build *b, core_buf *url)
{
    const char *base = b->opt->server;
    json_object *ov = NULL;
    if (!base && b->opt->overrides) {
        ov = json_tokener_parse(b->opt->overrides);
        json_object *s = NULL;
        if (ov && json_object_object_get_ex(ov, "server", &s) && json_object_get_string(s))
            base = b->override = core_arena_strdup(b->r->arena, json_object_get_string(s));
        json_object_put(ov);
    } else if (base) {
        b->from_caller_server = true;
    }
    const jt_node *server = NULL;
    if (!base) {
        const jt_node *op_servers = spec_operation_servers(b->op);
        if (op_servers) {
            server = jt_at(op_servers, 0);
            base = spec_server_url(server);
        }
    }
    if (!base) {
        for (size_t i = 0; i < b->api->n_servers && !base; i++)
            if (!strncmp(b->api->servers[i].url, "https://", 8)) base = b->api->servers[i].url;
        if (!base && b->api->n_servers) base = b->api->servers[0].url;
        if (base) server = spec_api_server_object(b->api, base);
    }
    if (!base)
        return core_error_set(b->err, APIDEX_EINVAL,
                              "the spec of %s names no server: give one with --server URL",
                              b->api->id);
    b->base = base;
    for (const char *p = base; *p;) {
        if (*p != '{' || !strchr(p, '}')) {
            if (core_buf_putc(url, *p++)) return APIDEX_ENOMEM;
            continue;
        }
        const char *end = strchr(p, '}');
        char *name = core_arena_strndup(b->r->arena, p + 1, (size_t)(end - p - 1));
        if (!name) return APIDEX_ENOMEM;
        spec_server_var var;
        spec_server_object_var(server, name, &var);
        const char *value = NULL;
        for (size_t i = 0; i < b->n_in; i++)
            if (!b->in[i].used && !strcmp(b->in[i].name, name)) {
                b->in[i].used = true;
                value = b->in[i].value;
            }
        const jt_node *en = var.enum_values;
        bool has_enum = en && en->len;
        if (value && !has_enum) {
            /* a caller's value without an enum must not change the authority: nothing that
               ends a host or starts a port, path, query, fragment or user info */
            const char *bad = strpbrk(value, "/?#@:\\ \t\r\n\v\f");
            if (!bad) bad = exec_control_char(value, strlen(value));
            if (!bad && (!strcmp(value, ".") || !strcmp(value, ".."))) bad = value;
            if (bad)
                return core_error_set(
                    b->err, APIDEX_EINVAL,
                    "server variable '%s': the value cannot hold '/', '?', '#', "
                    "'@', ':', '\\', whitespace or control characters, nor "
                    "be . or .. (it would change the server's address); it has no enum, so "
                    "any other text is percent-encoded",
                    name);
            core_buf enc;
            core_buf_init(&enc, 1 << 16);
            int erc = exec_pct_encode(&enc, value, strlen(value), false);
            value = !erc && enc.data ? core_arena_strndup(b->r->arena, enc.data, enc.len) : NULL;
            core_buf_free(&enc);
            if (!value) return APIDEX_ENOMEM;
        }
        if (!value) value = var.default_value;
        if (!value)
            return core_error_set(b->err, APIDEX_EINVAL,
                                  "server variable '%s' of %s has no default: give -p %s=VALUE",
                                  name, base, name);
        if (has_enum) {
            bool ok = false;
            for (size_t i = 0; i < en->len && !ok; i++)
                ok = jt_str(en->u.items[i]) && !strcmp(jt_str(en->u.items[i]), value);
            if (!ok) {
                core_buf e;
                core_buf_init(&e, 2048);
                for (size_t i = 0; i < en->len; i++)
                    core_buf_printf(&e, "%s%s", i ? "|" : "",
                                    jt_str(en->u.items[i]) ? jt_str(en->u.items[i]) : "?");
                core_error_set(b->err, APIDEX_EINVAL,
                               "server variable '%s': \"%s\" is not one of the enum values "
                               "(one of: %s)",
                               name, value, e.data ? e.data : "");
                core_buf_free(&e);
                return APIDEX_EINVAL;
            }
        }
        if (core_buf_puts(url, value)) return APIDEX_ENOMEM;
        p = end + 1;
    }
    while (url->len && url->data[url->len - 1] == '/') url->data[--url->len] = '\0';
    if (url->len && url->data[0] == '/') {
        /* relative to the document when it came from a URL */
        const char *f = b->api->file;
        const char *scheme_end = f ? strstr(f, "://") : NULL;
        const char *host_end = scheme_end ? strchr(scheme_end + 3, '/') : NULL;
        if (!scheme_end)
            return core_error_set(b->err, APIDEX_EINVAL,
                                  "the server URL '%s' of %s is relative: give the host with "
                                  "--server https://HOST%s",
                                  url->data, b->api->id, url->data);
        size_t hl = host_end ? (size_t)(host_end - f) : strlen(f);
        char *rel = strdup(url->data);
        if (!rel) return APIDEX_ENOMEM;
        core_buf_reset(url);
        int rc = core_buf_append(url, f, hl) || core_buf_puts(url, rel) ? APIDEX_ENOMEM : 0;
        free(rel);
        if (rc) return rc;
    }
    const char *problem = net_base_url_problem(url->len ? url->data : "");
    if (problem)
        return core_error_set(b->err, APIDEX_EINVAL, "the server URL '%s': %s; give one with %s",
                              url->len ? url->data : "", problem, "--server URL");
    return 0;
}

/* ---------------------------------------------------------------- parameters */

/* Whether a parameter's name says it carries a credential. */
static bool secret_name(const char *name)
{
    /* not "token" alone: page_token, next_token are cursors */
    static const char *const words[] = {"authorization", "auth-token", "auth_token", "access_token",
                                        "access-token",  "secret",     "password",   "passwd",
                                        "apikey",        "api_key",    "api-key"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcasestr(name, words[i])) return true;
    return false;
}

/* A credential-like parameter: r->secrets gets its raw and its encoded form, so both are masked. */
static int secret_value(exec_request *r, const char *in, json_object *v, const core_buf *written)
{
    const char *raw = exec_value_text(v);
    int rc = exec_request_add_secret(r, raw);
    if (!rc && written->len && strcmp(in, "header")) {
        /* the written, percent-encoded form after its "name=" (path, query, cookie) */
        const char *w = written->data, *eq = strchr(w, '=');
        rc = exec_request_add_secret(r, eq ? eq + 1 : w);
    }
    return rc;
}

/* Writes every parameter: path into *path (the template filled), query into query,
   headers into r, cookies into cookie. */
static int write_params(build *b, core_buf *path, core_buf *query, core_buf *cookie)
{
    const spec_operation *op = b->op;
    json_object *values[256] = {0};
    size_t n = op->n_params < 256 ? op->n_params : 256;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const spec_param *p = &op->params[i];
        const char *what = core_arena_printf(b->r->arena, "parameter '%s' (%s)", p->name, p->in);
        if (!strcmp(p->in, "header") && exec_header_forbidden(p->name)) {
            /* framing and hop-by-hop headers are curl's: the spec's parameter is skipped, and
               a caller's value for it refused */
            for (size_t k = 0; k < b->n_in && !rc; k++)
                if (names(&b->in[k], p->name, p->in))
                    rc = core_error_set(b->err, APIDEX_EINVAL,
                                        "%s: apidex never sends a %s header from a spec or a "
                                        "caller (framing and connection headers are written by "
                                        "the transport)",
                                        what, p->name);
            if (!rc)
                exec_request_note(b->r,
                                  "the spec's header parameter '%s' is not sent (framing "
                                  "and connection headers are written by the transport)",
                                  p->name);
            continue;
        }
        values[i] = take_input(b, p->name, p->in, p->schema, &rc, what);
        if (rc) break;
        if (!values[i]) {
            if (p->required || !strcmp(p->in, "path"))
                rc = core_error_set(b->err, APIDEX_EINVAL, "missing required %s: give -p %s=VALUE",
                                    what, p->name);
            continue;
        }
        rc = check_value(b, p->schema, values[i], what);
    }
    for (size_t i = 0; i < n && !rc; i++) {
        const spec_param *p = &op->params[i];
        if (!values[i]) continue;
        exec_style st = exec_param_style(b->api, p);
        core_buf text;
        core_buf_init(&text, 0);
        rc = exec_param_write(p->name, p->in, st, values[i], &text, b->err);
        /* a credential given as a plain parameter (Swagger 2.0 specs often declare an
           Authorization header) is masked like one from the credential sources */
        if (!rc && secret_name(p->name)) rc = secret_value(b->r, p->in, values[i], &text);
        const char *t = text.data ? text.data : "";
        if (!rc && !strcmp(p->in, "path") && (!strcmp(t, ".") || !strcmp(t, "..")))
            rc = core_error_set(b->err, APIDEX_EINVAL,
                                "parameter '%s' (path): the value '%s' is a dot segment, which "
                                "would leave the operation's path; refused",
                                p->name, t);
        if (!rc && !strcmp(p->in, "path")) {
            char *ph = core_arena_printf(b->r->arena, "{%s}", p->name);
            char *at = ph && path->data ? strstr(path->data, ph) : NULL;
            if (at) {
                size_t off = (size_t)(at - path->data), pl = strlen(ph);
                char *rest = strdup(at + pl);
                path->len = off;
                path->data[off] = '\0';
                rc = !rest || core_buf_puts(path, t) || core_buf_puts(path, rest) ? APIDEX_ENOMEM
                                                                                  : 0;
                free(rest);
            }
        } else if (!rc && !strcmp(p->in, "query")) {
            if (text.len && query->len) rc = core_buf_putc(query, '&') ? APIDEX_ENOMEM : 0;
            if (!rc) rc = core_buf_append(query, t, text.len) ? APIDEX_ENOMEM : 0;
        } else if (!rc && !strcmp(p->in, "header")) {
            rc = exec_request_add_header(b->r, p->name, t, secret_name(p->name));
        } else if (!rc && !strcmp(p->in, "cookie")) {
            if (text.len && cookie->len) rc = core_buf_puts(cookie, "; ") ? APIDEX_ENOMEM : 0;
            if (!rc) rc = core_buf_append(cookie, t, text.len) ? APIDEX_ENOMEM : 0;
        }
        core_buf_free(&text);
    }
    for (size_t i = 0; i < n; i++) json_object_put(values[i]);
    if (rc == APIDEX_ENOMEM) core_error_set(b->err, rc, "out of memory");
    return rc;
}

/* ---------------------------------------------------------------- body */

static const spec_media *pick_media(build *b)
{
    const spec_body *body = b->op->body;
    if (!body || !body->n_media) return NULL;
    const char *want = b->opt->content_type;
    for (size_t i = 0; want && i < body->n_media; i++)
        if (body->media[i].type && !strcasecmp(body->media[i].type, want)) return &body->media[i];
    if (want) return NULL;
    static const char *const order[] = {"json", "application/x-www-form-urlencoded",
                                        "multipart/form-data"};
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < body->n_media; i++) {
            const char *t = body->media[i].type;
            if (t && (k ? !strncasecmp(t, order[k], strlen(order[k])) : exec_media_is_json(t)))
                return &body->media[i];
        }
    return &body->media[0];
}

/* The body's object schema (allOf merged), for the names of its fields; false (and no
   properties) when the body is no object with properties. */
static bool body_object(build *b, const spec_media *m, spec_schema_view *v)
{
    spec_schema_view_node(NULL, v);
    if (!m || spec_schema_view_open(b->api, m->schema, b->r->arena, v) || !v->loc.node ||
        !jt_is(v->kw[SPEC_KW_PROPERTIES], JT_OBJECT)) {
        spec_schema_view_node(NULL, v);
        return false;
    }
    return true;
}

/* The body field an input names: "body:name" or "name". */
static const char *field_name(const input *x)
{
    return strncmp(x->name, "body:", 5) ? x->name : x->name + 5;
}

static int write_body(build *b)
{
    const spec_media *m = pick_media(b);
    if (b->opt->content_type && b->op->body && !m)
        return core_error_set(b->err, APIDEX_EINVAL, "the request body of %s has no media type %s",
                              b->op->id, b->opt->content_type);
    spec_schema_view obj;
    bool object = body_object(b, m, &obj), fields = false;
    for (size_t i = 0; i < b->n_in && !fields; i++)
        fields =
            !b->in[i].used && object && spec_schema_view_property(&obj, field_name(&b->in[i])).node;
    if (!b->opt->body && !fields) {
        if (b->op->body && b->op->body->required)
            return core_error_set(b->err, APIDEX_EINVAL,
                                  "missing required request body (%s): give --body JSON or -p "
                                  "FIELD=VALUE for its fields",
                                  m && m->type ? m->type : "?");
        return 0;
    }
    if (!m)
        return core_error_set(b->err, APIDEX_EINVAL, "%s %s takes no request body", b->op->method,
                              b->op->path);
    const char *type = m->type ? m->type : "application/json";
    bool structured = exec_media_is_json(type) ||
                      !strncasecmp(type, "application/x-www-form-urlencoded", 33) ||
                      !strncasecmp(type, "multipart/form-data", 19);
    json_object *v = NULL;
    if (b->opt->body && structured) {
        size_t len = strlen(b->opt->body), at = 0;
        json_tokener *tok = json_tokener_new();
        if (!tok) return core_error_set(b->err, APIDEX_ENOMEM, "out of memory");
        v = json_tokener_parse_ex(tok, b->opt->body, (int)len);
        enum json_tokener_error je = json_tokener_get_error(tok);
        at = json_tokener_get_parse_end(tok);
        json_tokener_free(tok);
        const char *why = je == json_tokener_continue  ? "unexpected end of data"
                          : je != json_tokener_success ? json_tokener_error_desc(je)
                                                       : NULL;
        while (!why && at < len && strchr(" \t\r\n", b->opt->body[at])) at++;
        if (!why && at < len) why = "unexpected text after the value";
        if (why) {
            json_object_put(v);
            return core_error_set(b->err, APIDEX_EINVAL,
                                  "the request body is not valid JSON: %s at byte %zu", why, at);
        }
    } else if (b->opt->body) {
        v = json_object_new_string(b->opt->body);
    } else {
        v = json_object_new_object();
    }
    int rc = v ? 0 : core_error_set(b->err, APIDEX_ENOMEM, "out of memory");
    /* -p FIELD=VALUE inputs that name a body field */
    for (size_t i = 0; !rc && object && i < b->n_in; i++) {
        input *x = &b->in[i];
        const char *fname = field_name(x);
        spec_loc ps = spec_schema_view_property(&obj, fname);
        if (x->used || !ps.node) continue;
        if (!json_object_is_type(v, json_type_object)) {
            rc = core_error_set(b->err, APIDEX_EINVAL,
                                "-p %s names a body field, but --body is not a JSON object",
                                x->name);
            break;
        }
        const char *what = core_arena_printf(b->r->arena, "body field '%s'", fname);
        json_object *fv = take_input(b, fname, "body", ps, &rc, what);
        if (fv) json_object_object_add(v, fname, fv);
    }
    if (!rc && structured) rc = check_value(b, m->schema, v, "the request body");
    if (!rc) rc = exec_body_encode(b->api, m, v, b->r, b->err);
    json_object_put(v);
    if (!rc && b->r->content_type)
        rc = exec_request_add_header(b->r, "Content-Type", b->r->content_type, false);
    return rc;
}

/* ---------------------------------------------------------------- unknown inputs */

static int unknown_input(build *b, const input *x)
{
    const char *best = NULL;
    size_t best_d = 99;
    const spec_operation *op = b->op;
    for (size_t i = 0; i < op->n_params; i++) {
        size_t d = exec_edit_distance(x->name, op->params[i].name);
        if (d < best_d) best_d = d, best = op->params[i].name;
    }
    spec_schema_view obj;
    body_object(b, pick_media(b), &obj);
    const jt_node *props = obj.kw[SPEC_KW_PROPERTIES];
    for (size_t i = 0; jt_is(props, JT_OBJECT) && i < props->len; i++) {
        size_t d = exec_edit_distance(x->name, props->u.members[i].key);
        if (d < best_d) best_d = d, best = props->u.members[i].key;
    }
    size_t len = strlen(x->name);
    if (best && best_d <= (len > 6 ? len / 3 : 2))
        return core_error_set(b->err, APIDEX_EINVAL,
                              "unknown parameter '%s' for %s %s (did you mean '%s'?)", x->name,
                              op->method, op->path, best);
    core_buf known;
    core_buf_init(&known, 2048);
    for (size_t i = 0; i < op->n_params; i++)
        core_buf_printf(&known, "%s%s", known.len ? ", " : "", op->params[i].name);
    for (size_t i = 0; jt_is(props, JT_OBJECT) && i < props->len; i++)
        core_buf_printf(&known, "%s%s", known.len ? ", " : "", props->u.members[i].key);
    core_error_set(b->err, APIDEX_EINVAL, "unknown parameter '%s' for %s %s; it takes: %s", x->name,
                   op->method, op->path, known.len ? known.data : "no parameters");
    core_buf_free(&known);
    return APIDEX_EINVAL;
}

/* ---------------------------------------------------------------- origins */

/* The origin rules (docs/EXECUTE.md "Origins"): r->origin, r->api_origins, r->origin_allowed,
   and *creds: whether credentials may be attached. A scheme or port change on a host of the
   API, and a model's server that is neither the API's nor allowed, are refused. */
static int decide_origin(build *b, bool *creds)
{
    exec_request *r = b->r;
    *creds = false;
    r->origin = exec_url_origin(r->url, r->arena);
    if (!r->origin)
        return core_error_set(b->err, APIDEX_EINVAL,
                              "the server URL '%s' has an address apidex does not read safely "
                              "(user info, a backslash, or a character no host or port holds)",
                              b->base ? b->base : r->url);
    if (exec_api_origins(b->api, b->op, r->arena, &r->api_origins, &r->n_api_origins))
        return APIDEX_ENOMEM;
    bool api = false, exact = false, listed = false;
    for (size_t i = 0; i < r->n_api_origins && !api; i++)
        api = !strcmp(r->api_origins[i], r->origin);
    const char *ov = b->override ? exec_url_origin(b->override, r->arena) : NULL;
    bool registry = ov && !strcmp(ov, r->origin);
    for (size_t i = 0; i < b->opt->n_allow_hosts && !exact; i++) {
        bool e = false;
        if (exec_allow_entry_matches(b->opt->allow_hosts[i], r->origin, &e)) listed = true;
        exact = e;
    }
    *creds = api || registry || exact;
    if (!*creds) {
        /* the same host as an origin of the API, another scheme or port: a downgrade to clear
           text, or another service on that machine */
        const char *h = strstr(r->origin, "://") + 3;
        size_t hl = (size_t)(strrchr(r->origin, ':') - h);
        for (size_t i = 0; i < r->n_api_origins; i++) {
            const char *x = strstr(r->api_origins[i], "://") + 3;
            if ((size_t)(strrchr(r->api_origins[i], ':') - x) == hl && !strncmp(x, h, hl))
                return core_error_set(b->err, APIDEX_EREFUSED,
                                      "rule: origin; the server goes to %s, but the API's origin "
                                      "on that host is %s: a scheme downgrade or a port change "
                                      "is refused (credentials would travel in clear text or "
                                      "to another service); --allow-host %s to allow that "
                                      "origin",
                                      r->origin, r->api_origins[i], r->origin);
        }
    }
    /* the command line's --server is the user's choice, as written: its origin before any
       variable was put into it (a model's value in a {variable} of it decides nothing) */
    const char *given = b->from_caller_server ? exec_url_origin(b->base, r->arena) : NULL;
    bool trusted_server = given && !b->opt->untrusted_server && !strcmp(given, r->origin);
    r->origin_allowed = *creds || listed || trusted_server;
    if (!r->origin_allowed && b->from_caller_server)
        return core_error_set(b->err, APIDEX_EREFUSED,
                              "rule: origin; the server '%s' goes to %s, which is not an origin "
                              "of the API nor allowed with --allow-host",
                              b->base, r->origin);
    if (!*creds && spec_operation_asks_credentials(b->api, b->op))
        exec_request_note(r,
                          "no credentials attached: the request goes to %s, not to the API's "
                          "origin%s; to send them there, allow that origin: --allow-host %s",
                          r->origin, r->n_api_origins ? "" : " (its spec names none)", r->origin);
    return 0;
}

/* Refuses a path holding a "." or ".." segment (a dot segment would leave the operation). */
static int check_dot_segments(build *b, const char *path, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && path[j] != '/') j++;
        size_t len = j - i;
        if ((len == 1 && path[i] == '.') || (len == 2 && path[i] == '.' && path[i + 1] == '.'))
            return core_error_set(b->err, APIDEX_EINVAL,
                                  "the path %.*s holds a dot segment, which would leave the "
                                  "operation's path; refused",
                                  (int)n, path);
        i = j + 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- the build */

static int accept_header(build *b)
{
    for (size_t i = 0; i < b->r->n_headers; i++)
        if (!strcasecmp(b->r->headers[i].name, "Accept")) return 0;
    for (size_t i = 0; i < b->op->n_responses; i++) {
        const spec_response *resp = &b->op->responses[i];
        if (resp->status[0] != '2') continue;
        for (size_t j = 0; j < resp->n_media; j++)
            if (exec_media_is_json(resp->media[j].type) && strncmp(resp->media[j].type, "*/*", 3))
                return exec_request_add_header(b->r, "Accept", resp->media[j].type, false);
    }
    return 0;
}

int exec_build(const spec_api *api, const spec_operation *op, const exec_build_options *opt,
               exec_request *out, apidex_error *err)
{
    static const exec_build_options none = {0};
    memset(out, 0, sizeof *out);
    if (!opt) opt = &none;
    /* An MCP resource or prompt (oas/mcp.c) has a synthetic path: never an HTTP request,
       not even to a --server the caller names. */
    spec_mcp_entry mcp;
    spec_operation_mcp(op, &mcp);
    if (mcp.marked_resource || mcp.marked_prompt)
        return core_error_set(err, APIDEX_EINVAL,
                              "%s is an MCP %s: it is read over MCP (apidex call), never "
                              "sent as an HTTP request",
                              op->id, mcp.marked_prompt ? "prompt" : "resource");
    build *b = calloc(1, sizeof *b);
    out->arena = core_arena_new(REQUEST_ARENA_CAP);
    if (!b || !out->arena) {
        free(b);
        core_arena_free(out->arena);
        out->arena = NULL;
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    *b = (build){.api = api, .op = op, .opt = opt, .r = out, .err = err};
    out->method = op->method;
    out->operation_id =
        core_arena_strdup(out->arena, opt->operation_id ? opt->operation_id : op->id);
    core_buf url, path, query, cookie;
    core_buf_init(&url, 1 << 20);
    core_buf_init(&path, 1 << 20);
    core_buf_init(&query, 1 << 20);
    core_buf_init(&cookie, 1 << 16);
    int rc = parse_inputs(b);
    if (!rc) rc = core_buf_puts(&path, op->path) ? APIDEX_ENOMEM : 0;
    if (!rc) rc = write_params(b, &path, &query, &cookie);
    if (!rc) rc = server_url(b, &url);
    if (!rc) rc = write_body(b);
    for (size_t i = 0; !rc && i < b->n_in; i++)
        if (!b->in[i].used) rc = unknown_input(b, &b->in[i]);
    if (!rc && cookie.len) rc = exec_request_add_header(out, "Cookie", cookie.data, false);
    if (!rc) rc = accept_header(b);
    if (!rc) {
        /* a path key may carry a #fragment (two operations on one path); it is not sent */
        char *hash = path.data ? strchr(path.data, '#') : NULL;
        if (hash) path.len = (size_t)(hash - path.data), *hash = '\0';
        rc = check_dot_segments(b, path.data ? path.data : "", path.len);
        if (!rc)
            rc = core_buf_append(&url, path.data ? path.data : "", path.len) ? APIDEX_ENOMEM : 0;
        if (!rc && query.len)
            rc = core_buf_putc(&url, strchr(url.data, '?') ? '&' : '?') ||
                         core_buf_append(&url, query.data, query.len)
                     ? APIDEX_ENOMEM
                     : 0;
        out->url = !rc ? core_arena_strndup(out->arena, url.data, url.len) : NULL;
        if (!rc && !out->url) rc = APIDEX_ENOMEM;
    }
    bool creds = false;
    if (!rc) rc = decide_origin(b, &creds);
    /* placeholders (snippets, a dry run's curl) hold no secret, only the variables' names:
       the program is the user's to run against the server they chose */
    if (!rc && (creds || opt->placeholders)) rc = exec_creds_apply(api, op, opt, out, err);
    core_buf_free(&url);
    core_buf_free(&path);
    core_buf_free(&query);
    core_buf_free(&cookie);
    free(b);
    if (rc == APIDEX_ENOMEM && err && !err->message[0]) core_error_set(err, rc, "out of memory");
    if (rc == APIDEX_EINVAL && err && !err->message[0])
        core_error_set(err, rc,
                       "a header cannot be sent: a framing or connection header, or a control "
                       "character in a name or value");
    if (rc) exec_build_free(out);
    return rc;
}
