/*
 * Postman Collection v2.0 / v2.1 files as OpenAPI: the collection is translated
 * into an OpenAPI 3 tree in memory, which the loader then resolves and
 * normalises like any other root document.
 *
 * Design
 * - Detection is by content (spec_postman_detect): `info.schema` naming a
 *   collection schema, or `info._postman_id` beside an `item` list. The file's
 *   extension never matters.
 * - The OpenAPI tree is written into the collection's own arena and replaces
 *   the root of its parsed document; the source text stays, so diagnostics the
 *   importer makes name the file, line:col and the collection's JSON pointer
 *   (/item/3/item/0/request/url). Each operation carries that pointer as
 *   `x-postman-pointer`, and the loader gives it to the model as the
 *   operation's pointer.
 * - Requests become operations: folders give tags (nested folders a path of
 *   names, "Users/Admin"), `:var` and `{{var}}` path segments path parameters,
 *   the URL's origin a server (collection variables substituted; the origin
 *   most requests use is the document's server, others are per operation),
 *   query and header lists parameters (disabled entries kept as optional,
 *   marked x-postman-disabled), bodies (raw, urlencoded, formdata, file,
 *   graphql) request bodies with examples and inferred schemas, saved example
 *   responses responses per status code and content type, and auth
 *   (postman_auth.c) security with collection → folder → request inheritance.
 * - Folders are walked with an explicit stack (a deep collection cannot
 *   overflow ours); JSON bodies are read with the loader's limits.
 * - A request that cannot be read (no URL, a method OpenAPI has no place for,
 *   the same method and path twice) is a warning and is skipped; a collection
 *   whose version is not 2.0 or 2.1, or without an `item` list, fails.
 */
#include "oas/postman_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { PM_MAX_FOLDER_DEPTH = 256 };

/* One translated request, finished once the document's server is known. */
typedef struct pm_op {
    pm_obj o;
    const char *method; /* lower case */
    const char *path;
    const char *pointer;
    const char *hash; /* the URL's fragment, or NULL: tells apart two requests that differ
                         only there (a spec's "/cookies#form" comes back so) */
    const char *key;  /* "method path", while the paths are grouped */
    size_t origin;    /* index in the walk's origins, or SIZE_MAX */
} pm_op;

typedef struct pm_walk {
    pm_ctx *c;
    pm_op *ops;
    size_t n_ops, cap_ops;
    const char **origins; /* server URLs, in order of first use */
    size_t *origin_uses;
    size_t n_origins, cap_origins;
    spec_strmap origin_idx, tag_idx, op_ids;
    pm_arr tags;
    jt_node *root_security; /* the collection's requirement, or NULL */
    const jt_node *root_auth;
} pm_walk;

/* ---------------------------------------------------------------- detection */

int spec_postman_detect(const jt_node *root)
{
    /* an OpenAPI document stays one, whatever its info says */
    if (!jt_is(root, JT_OBJECT) || jt_get(root, "openapi") || jt_get(root, "swagger")) return 0;
    const jt_node *info = jt_get(root, "info");
    if (!jt_is(info, JT_OBJECT)) return 0;
    const char *schema = jt_get_str(info, "schema");
    if (schema && strstr(schema, "getpostman.com")) {
        if (strstr(schema, "/v2.0")) return 20;
        if (strstr(schema, "/v2.1")) return 21;
        return -1;
    }
    if (jt_get(info, "_postman_id") && jt_get(root, "item")) return 21;
    return 0;
}

/* ---------------------------------------------------------------- small helpers */

const char *pm_desc(const jt_node *d)
{
    if (jt_is(d, JT_STRING)) return d->len ? d->u.s : NULL;
    const char *s = jt_get_str(d, "content");
    return s && *s ? s : NULL;
}

const char *pm_value_str(pm_ctx *c, const jt_node *v)
{
    if (!v) return NULL;
    if (v->type == JT_STRING) return v->u.s;
    if (v->type == JT_INT) return core_arena_printf(c->a, "%lld", (long long)v->u.i);
    if (v->type == JT_REAL) return core_arena_printf(c->a, "%g", v->u.d);
    if (v->type == JT_BOOL) return v->boolean ? "true" : "false";
    return NULL;
}

void pm_warn(pm_ctx *c, const char *pointer, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    spec_diag(c->ai, CORE_DIAG_WARNING, APIDEX_ESPEC, c->doc, NULL, pointer, "%s", msg);
}

/* The value of collection variable `name` (n bytes), or NULL. */
static const char *var_value(pm_ctx *c, const char *name, size_t n)
{
    size_t i;
    if (!c->vars || !spec_strmap_get(&c->var_idx, name, n, &i) || i >= c->vars->len) return NULL;
    return pm_value_str(c, jt_get(c->vars->u.items[i], "value"));
}

/* The look-up of var_value: each enabled variable's first definition. */
static void index_vars(pm_ctx *c)
{
    for (uint32_t i = 0; c->vars && i < c->vars->len; i++) {
        const jt_node *v = c->vars->u.items[i];
        const char *k = jt_get_str(v, "key");
        if (!k) k = jt_get_str(v, "id");
        if (!k || jt_get_bool(v, "disabled", false) ||
            spec_strmap_get(&c->var_idx, k, strlen(k), NULL))
            continue;
        if (spec_strmap_put(&c->var_idx, k, strlen(k), i)) c->oom = true;
    }
}

static bool is_method(const char *m)
{
    static const char *const ok[] = {"get",     "put",  "post",  "delete",
                                     "options", "head", "patch", "trace"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!strcmp(m, ok[i])) return true;
    return false;
}

static char *lower_dup(pm_ctx *c, const char *s)
{
    char *d = core_arena_strdup(c->a, s);
    if (!d) {
        c->oom = true;
        return NULL;
    }
    for (char *p = d; *p; p++)
        if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    return d;
}

static const char *ptr_join(pm_ctx *c, const char *base, const char *tail)
{
    const char *p = core_arena_printf(c->a, "%s%s", base, tail);
    if (!p) c->oom = true;
    return p ? p : "";
}

/* ---------------------------------------------------------------- URLs */

typedef struct pm_url {
    const char *origin; /* "{{baseUrl}}", "https://api.example.com:8443", or NULL */
    const char **segs;  /* path segments as written */
    size_t n_segs;
    const jt_node *query;     /* the URL object's query list, or NULL */
    const char *raw_query;    /* the query string of a URL given as a string, or NULL */
    const char *hash;         /* the fragment, or NULL */
    const jt_node *variables; /* the URL object's variable list, or NULL */
} pm_url;

static void split_path(pm_ctx *c, const char *p, size_t n, pm_url *u)
{
    size_t max = 1;
    for (size_t i = 0; i < n; i++) max += p[i] == '/';
    u->segs = core_arena_calloc(c->a, max, sizeof *u->segs);
    if (!u->segs) {
        c->oom = true;
        return;
    }
    size_t i = 0;
    if (n && p[0] == '/') i = 1;
    while (i <= n && u->n_segs < max) {
        size_t j = i;
        while (j < n && p[j] != '/') j++;
        if (j > i || j < n) u->segs[u->n_segs++] = core_arena_strndup(c->a, p + i, j - i);
        i = j + 1;
    }
}

/* A URL written as a string: origin, path and query. */
static void parse_raw(pm_ctx *c, const char *raw, pm_url *u, bool want_path)
{
    size_t n = strcspn(raw, "?#");
    const char *q = raw[n] == '?' ? raw + n + 1 : NULL;
    size_t start = 0;
    const char *scheme = strstr(raw, "://");
    if (!strncmp(raw, "{{", 2)) {
        const char *end = strstr(raw, "}}");
        if (end && (size_t)(end - raw) + 2 <= n) start = (size_t)(end - raw) + 2;
    } else if (scheme && (size_t)(scheme - raw) < n) {
        start = (size_t)(scheme - raw) + 3;
    }
    if (raw[0] != '/' && n) {
        size_t e = start;
        while (e < n && raw[e] != '/') e++;
        if (!u->origin) u->origin = core_arena_strndup(c->a, raw, e);
        start = e;
    }
    if (want_path) split_path(c, raw + start, n - start, u);
    if (q && !u->raw_query) {
        size_t qn = strcspn(q, "#");
        u->raw_query = core_arena_strndup(c->a, q, qn);
    }
    const char *h = strchr(raw, '#');
    if (h && h[1] && !u->hash) u->hash = core_arena_strdup(c->a, h + 1);
}

static bool read_url(pm_ctx *c, const jt_node *url, pm_url *u)
{
    memset(u, 0, sizeof *u);
    if (jt_is(url, JT_STRING)) {
        parse_raw(c, url->u.s, u, true);
        return true;
    }
    if (!jt_is(url, JT_OBJECT)) return false;
    const jt_node *host = jt_get(url, "host"), *path = jt_get(url, "path");
    const char *proto = jt_get_str(url, "protocol"), *port = pm_value_str(c, jt_get(url, "port"));
    u->query = jt_is(jt_get(url, "query"), JT_ARRAY) ? jt_get(url, "query") : NULL;
    u->variables = jt_is(jt_get(url, "variable"), JT_ARRAY) ? jt_get(url, "variable") : NULL;
    const char *hash = jt_get_str(url, "hash");
    if (hash && *hash) u->hash = hash;
    if (host) {
        core_buf b;
        core_buf_init(&b, 1 << 16);
        if (proto) core_buf_printf(&b, "%s://", proto);
        if (jt_is(host, JT_ARRAY)) {
            for (uint32_t i = 0; i < host->len; i++) {
                const char *h = jt_str(host->u.items[i]);
                if (h) core_buf_printf(&b, "%s%s", i ? "." : "", h);
            }
        } else if (jt_str(host)) {
            core_buf_puts(&b, jt_str(host));
        }
        if (port && *port) core_buf_printf(&b, ":%s", port);
        if (!b.failed && b.len) u->origin = core_arena_strndup(c->a, b.data, b.len);
        core_buf_free(&b);
    }
    if (jt_is(path, JT_ARRAY)) {
        u->segs = core_arena_calloc(c->a, path->len + 1, sizeof *u->segs);
        if (!u->segs) {
            c->oom = true;
            return false;
        }
        for (uint32_t i = 0; i < path->len; i++) {
            const jt_node *s = path->u.items[i];
            const char *v = jt_str(s) ? jt_str(s) : jt_get_str(s, "value");
            if (v) u->segs[u->n_segs++] = v;
        }
    } else if (jt_str(path)) {
        split_path(c, jt_str(path), strlen(jt_str(path)), u);
    }
    const char *raw = jt_get_str(url, "raw");
    if (raw && (!host || !path))
        parse_raw(c, raw, u, !path);
    else if (raw && !u->query)
        parse_raw(c, raw, u, false);
    return true;
}

/* The origin as a server URL: {{vars}} with known values substituted, others {var}. */
static const char *server_url(pm_ctx *c, const char *origin)
{
    core_buf b;
    core_buf_init(&b, 1 << 16);
    for (const char *p = origin; *p;) {
        const char *open = strstr(p, "{{"), *close = open ? strstr(open + 2, "}}") : NULL;
        if (!close) {
            core_buf_puts(&b, p);
            break;
        }
        core_buf_append(&b, p, (size_t)(open - p));
        const char *val = var_value(c, open + 2, (size_t)(close - open - 2));
        if (val && *val && !strstr(val, "{{"))
            core_buf_puts(&b, val);
        else
            core_buf_printf(&b, "{%.*s}", (int)(close - open - 2), open + 2);
        p = close + 2;
    }
    const char *s = NULL;
    if (!b.failed && b.len) {
        bool has_scheme = strstr(b.data, "://") != NULL || b.data[0] == '{';
        s = core_arena_printf(c->a, "%s%s", has_scheme ? "" : "http://", b.data);
        /* no trailing slash: the operation's path starts with one */
        char *t = (char *)s;
        size_t l = t ? strlen(t) : 0;
        while (l > 1 && t[l - 1] == '/' && t[l - 2] != '/') t[--l] = '\0';
    }
    core_buf_free(&b);
    return s;
}

/* ---------------------------------------------------------------- parameters */

static jt_node *param(pm_ctx *c, const char *name, const char *in, bool required, const char *desc,
                      const char *example, bool disabled)
{
    pm_obj p = {0};
    pm_put_str(c, &p, "name", name);
    pm_put_str(c, &p, "in", in);
    if (required) pm_put(c, &p, "required", pm_bool(c, true));
    pm_put_str(c, &p, "description", desc);
    pm_put(c, &p, "schema", pm_type_schema(c, "string", NULL));
    if (example && *example) pm_put_str(c, &p, "example", example);
    if (disabled) pm_put(c, &p, "x-postman-disabled", pm_bool(c, true));
    return pm_obj_done(c, &p);
}

/* The URL object's description and value for path variable `name`. */
static const jt_node *url_var(const pm_url *u, const char *name)
{
    for (uint32_t i = 0; u->variables && i < u->variables->len; i++) {
        const char *k = jt_get_str(u->variables->u.items[i], "key");
        if (!k) k = jt_get_str(u->variables->u.items[i], "id");
        if (k && !strcmp(k, name)) return u->variables->u.items[i];
    }
    return NULL;
}

/* The OpenAPI path of the segments, with path parameters added to params. */
static const char *build_path(pm_ctx *c, const pm_url *u, pm_arr *params)
{
    core_buf b;
    core_buf_init(&b, 1 << 16);
    spec_strmap seen = {0};
    for (size_t i = 0; i < u->n_segs; i++) {
        const char *s = u->segs[i];
        /* an empty segment is a doubled slash (a server URL ending in '/' before the path,
           as Postman's converter writes Stripe's files host): only a last one, a
           trailing slash, is kept */
        if (!s || (!*s && i + 1 < u->n_segs)) continue;
        core_buf_putc(&b, '/');
        const char *names[64];
        size_t lens[64], nn = 0;
        if (s[0] == ':' && s[1]) {
            core_buf_printf(&b, "{%s}", s + 1);
            names[nn] = s + 1;
            lens[nn++] = strlen(s + 1);
        } else {
            for (const char *p = s; *p;) {
                const char *open = strstr(p, "{{"), *close = open ? strstr(open + 2, "}}") : NULL;
                if (!close) {
                    core_buf_puts(&b, p);
                    break;
                }
                core_buf_append(&b, p, (size_t)(open - p));
                core_buf_printf(&b, "{%.*s}", (int)(close - open - 2), open + 2);
                if (nn < 64) {
                    names[nn] = open + 2;
                    lens[nn++] = (size_t)(close - open - 2);
                }
                p = close + 2;
            }
        }
        for (size_t k = 0; k < nn; k++) {
            if (!lens[k] || spec_strmap_get(&seen, names[k], lens[k], NULL)) continue;
            if (spec_strmap_put(&seen, names[k], lens[k], 1)) c->oom = true;
            char *name = core_arena_strndup(c->a, names[k], lens[k]);
            if (!name) {
                c->oom = true;
                continue;
            }
            const jt_node *v = url_var(u, name);
            const char *ex = v ? pm_value_str(c, jt_get(v, "value")) : var_value(c, name, lens[k]);
            pm_push(c, params,
                    param(c, name, "path", true, v ? pm_desc(jt_get(v, "description")) : NULL, ex,
                          false));
        }
    }
    if (!b.len) core_buf_putc(&b, '/');
    const char *path = b.failed ? NULL : core_arena_strndup(c->a, b.data, b.len);
    core_buf_free(&b);
    spec_strmap_free(&seen);
    if (!path) c->oom = true;
    return path;
}

static void query_params(pm_ctx *c, const pm_url *u, pm_arr *params)
{
    if (u->query) {
        for (uint32_t i = 0; i < u->query->len; i++) {
            const jt_node *q = u->query->u.items[i];
            const char *k = jt_get_str(q, "key");
            if (!k || !*k) continue;
            pm_push(c, params,
                    param(c, k, "query", false, pm_desc(jt_get(q, "description")),
                          pm_value_str(c, jt_get(q, "value")), jt_get_bool(q, "disabled", false)));
        }
        return;
    }
    for (const char *p = u->raw_query; p && *p;) {
        size_t n = strcspn(p, "&");
        size_t k = strcspn(p, "=&");
        if (k) {
            char *name = core_arena_strndup(c->a, p, k);
            char *val = k < n ? core_arena_strndup(c->a, p + k + 1, n - k - 1) : NULL;
            if (name) pm_push(c, params, param(c, name, "query", false, NULL, val, false));
        }
        p += n;
        if (*p) p++;
    }
}

void pm_header_params(pm_ctx *c, const jt_node *headers, pm_arr *params, const char **ctype)
{
    for (uint32_t i = 0; jt_is(headers, JT_ARRAY) && i < headers->len; i++) {
        const jt_node *h = headers->u.items[i];
        const char *k = jt_get_str(h, "key");
        const char *v = pm_value_str(c, jt_get(h, "value"));
        if (!k || !*k) continue;
        bool disabled = jt_get_bool(h, "disabled", false);
        if (!strcasecmp(k, "content-type")) {
            if (v && !disabled) *ctype = core_arena_strndup(c->a, v, strcspn(v, ";"));
            continue;
        }
        /* OpenAPI describes these by the body, the responses and security */
        if (!strcasecmp(k, "accept") || !strcasecmp(k, "authorization")) continue;
        pm_push(c, params,
                param(c, k, "header", false, pm_desc(jt_get(h, "description")), v, disabled));
    }
}

/* ---------------------------------------------------------------- requests */

/* A unique operationId from the request's name: "List all pets" → "list-all-pets". */
static const char *operation_id(pm_walk *w, const char *name, const char *method, const char *path)
{
    pm_ctx *c = w->c;
    char slug[96];
    size_t n = 0;
    const char *src = name && *name ? name : NULL;
    char fallback[200];
    if (!src) {
        snprintf(fallback, sizeof fallback, "%s %s", method, path);
        src = fallback;
    }
    for (const char *p = src; *p && n + 1 < 80; p++) {
        unsigned char ch = (unsigned char)*p;
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
            slug[n++] = (char)ch;
        else if (ch >= 'A' && ch <= 'Z')
            slug[n++] = (char)(ch - 'A' + 'a');
        else if (n && slug[n - 1] != '-')
            slug[n++] = '-';
    }
    while (n && slug[n - 1] == '-') n--;
    if (!n) n = (size_t)snprintf(slug, sizeof slug, "request");
    slug[n] = '\0';
    return pm_unique(c, &w->op_ids, slug, "-");
}

static size_t origin_index(pm_walk *w, const char *origin)
{
    if (!origin) return SIZE_MAX;
    const char *url = server_url(w->c, origin);
    if (!url) return SIZE_MAX;
    size_t idx;
    if (spec_strmap_get(&w->origin_idx, url, strlen(url), &idx)) {
        w->origin_uses[idx]++;
        return idx;
    }
    if (core_array_grow2(&w->origins, sizeof *w->origins, &w->origin_uses, sizeof *w->origin_uses,
                         &w->cap_origins, w->n_origins, 8)) {
        w->c->oom = true;
        return SIZE_MAX;
    }
    if (spec_strmap_put(&w->origin_idx, url, strlen(url), w->n_origins)) w->c->oom = true;
    w->origins[w->n_origins] = url;
    w->origin_uses[w->n_origins] = 1;
    return w->n_origins++;
}

static int add_request(pm_walk *w, const jt_node *item, const char *ptr, const char *tag,
                       const jt_node *auth, const char *auth_ptr)
{
    pm_ctx *c = w->c;
    const jt_node *req = jt_get(item, "request");
    const char *rptr = ptr_join(c, ptr, "/request");
    const jt_node *url = jt_is(req, JT_STRING) ? req : jt_get(req, "url");
    const char *method = jt_is(req, JT_OBJECT) ? jt_get_str(req, "method") : NULL;
    method = lower_dup(c, method ? method : "GET");
    if (!method) return APIDEX_ENOMEM;
    const char *name = jt_get_str(item, "name");
    if (!is_method(method)) {
        pm_warn(c, ptr_join(c, rptr, "/method"),
                "request '%s': method %s has no place in OpenAPI; skipped", name ? name : "?",
                jt_get_str(req, "method"));
        return 0;
    }
    pm_url u;
    if (!read_url(c, url, &u)) {
        pm_warn(c, rptr, "request '%s' has no URL; skipped", name ? name : "?");
        return 0;
    }
    pm_arr params = {0};
    const char *path = build_path(c, &u, &params);
    if (!path) return APIDEX_ENOMEM;
    query_params(c, &u, &params);
    const char *ctype = NULL;
    pm_header_params(c, jt_is(req, JT_OBJECT) ? jt_get(req, "header") : NULL, &params, &ctype);

    if (core_array_grow(&w->ops, &w->cap_ops, w->n_ops, sizeof *w->ops, 32)) return APIDEX_ENOMEM;
    pm_op *op = &w->ops[w->n_ops++];
    *op = (pm_op){.method = method, .path = path, .pointer = ptr, .hash = u.hash};
    op->origin = origin_index(w, u.origin);
    pm_obj *o = &op->o;
    if (tag) {
        pm_arr tags = {0};
        pm_push(c, &tags, pm_str(c, tag));
        pm_put(c, o, "tags", pm_arr_done(c, &tags));
    }
    pm_put_str(c, o, "summary", name);
    const char *desc = pm_desc(jt_get(req, "description"));
    pm_put_str(c, o, "description", desc ? desc : pm_desc(jt_get(item, "description")));
    pm_put_str(c, o, "operationId", operation_id(w, name, method, path));
    if (params.n) pm_put(c, o, "parameters", pm_arr_done(c, &params));
    const jt_node *body = jt_is(req, JT_OBJECT) ? jt_get(req, "body") : NULL;
    if (jt_is(body, JT_OBJECT)) {
        jt_node *rb = pm_request_body(c, body, ctype);
        if (rb) pm_put(c, o, "requestBody", rb);
    }
    jt_node *resp = pm_responses(c, jt_get(item, "response"), ptr_join(c, ptr, "/response"));
    if (resp) pm_put(c, o, "responses", resp);
    /* the request's own auth, else its folders', else the collection's (the document's) */
    const jt_node *own = jt_is(req, JT_OBJECT) ? jt_get(req, "auth") : NULL;
    if (pm_auth_decides(own)) {
        auth = own;
        auth_ptr = ptr_join(c, rptr, "/auth");
    }
    if (auth && auth != w->root_auth) {
        jt_node *sec = pm_auth_requirement(c, auth, auth_ptr);
        if (sec) pm_put(c, o, "security", sec);
    }
    pm_put_str(c, o, "x-postman-pointer", ptr);
    return c->oom ? APIDEX_ENOMEM : 0;
}

/* ---------------------------------------------------------------- the walk */

typedef struct pm_frame {
    const jt_node *items;
    uint32_t next;
    const char *ptr; /* of the items list */
    const char *tag; /* the folder path, NULL at the top */
    const jt_node *auth;
    const char *auth_ptr;
} pm_frame;

static void add_tag(pm_walk *w, const char *tag, const jt_node *folder)
{
    if (spec_strmap_get(&w->tag_idx, tag, strlen(tag), NULL)) return;
    if (spec_strmap_put(&w->tag_idx, tag, strlen(tag), w->tags.n)) w->c->oom = true;
    pm_obj t = {0};
    pm_put_str(w->c, &t, "name", tag);
    pm_put_str(w->c, &t, "description", pm_desc(jt_get(folder, "description")));
    pm_push(w->c, &w->tags, pm_obj_done(w->c, &t));
}

static int walk_items(pm_walk *w, const jt_node *items)
{
    pm_ctx *c = w->c;
    pm_frame st[PM_MAX_FOLDER_DEPTH];
    size_t n = 0;
    st[n++] = (pm_frame){items, 0, "/item", NULL, w->root_auth, "/auth"};
    while (n && !c->oom) {
        pm_frame *f = &st[n - 1];
        if (f->next >= f->items->len) {
            n--;
            continue;
        }
        uint32_t i = f->next++;
        const jt_node *it = f->items->u.items[i];
        const char *ptr = core_arena_printf(c->a, "%s/%u", f->ptr, i);
        if (!ptr) return APIDEX_ENOMEM;
        if (!jt_is(it, JT_OBJECT)) {
            pm_warn(c, ptr, "an item is not an object; skipped");
            continue;
        }
        const jt_node *sub = jt_get(it, "item");
        if (sub) {
            if (!jt_is(sub, JT_ARRAY)) {
                pm_warn(c, ptr_join(c, ptr, "/item"), "a folder's 'item' is not a list; skipped");
                continue;
            }
            if (n == PM_MAX_FOLDER_DEPTH) {
                pm_warn(c, ptr, "folders nest deeper than %d; this one is skipped",
                        PM_MAX_FOLDER_DEPTH);
                continue;
            }
            const char *name = jt_get_str(it, "name");
            if (!name || !*name) name = "folder";
            const char *tag = f->tag ? core_arena_printf(c->a, "%s/%s", f->tag, name)
                                     : core_arena_strdup(c->a, name);
            if (!tag) return APIDEX_ENOMEM;
            add_tag(w, tag, it);
            const jt_node *auth = jt_get(it, "auth");
            pm_frame child = {sub, 0, ptr_join(c, ptr, "/item"), tag, f->auth, f->auth_ptr};
            if (pm_auth_decides(auth)) {
                child.auth = auth;
                child.auth_ptr = ptr_join(c, ptr, "/auth");
            }
            st[n++] = child;
            continue;
        }
        if (!jt_get(it, "request")) {
            pm_warn(c, ptr, "an item has neither 'request' nor 'item'; skipped");
            continue;
        }
        int rc = add_request(w, it, ptr, f->tag, f->auth, f->auth_ptr);
        if (rc) return rc;
    }
    return c->oom ? APIDEX_ENOMEM : 0;
}

/* servers, paths (ops grouped by path, the same method twice skipped) */
static void finish_paths(pm_walk *w, pm_obj *root)
{
    pm_ctx *c = w->c;
    size_t main = SIZE_MAX;
    for (size_t i = 0; i < w->n_origins; i++)
        if (main == SIZE_MAX || w->origin_uses[i] > w->origin_uses[main]) main = i;
    if (main != SIZE_MAX) {
        pm_arr servers = {0};
        pm_obj s = {0};
        pm_put_str(c, &s, "url", w->origins[main]);
        pm_push(c, &servers, pm_obj_done(c, &s));
        pm_put(c, root, "servers", pm_arr_done(c, &servers));
    }
    /* how many requests share each method and path: those with a fragment keep it in
       their path, all of them (EC2's "/#Action=..." paths come back so) */
    spec_strmap uses = {0};
    for (size_t i = 0; i < w->n_ops && !c->oom; i++) {
        const char *k = core_arena_printf(c->a, "%s %s", w->ops[i].method, w->ops[i].path);
        size_t n = 0;
        if (!k) {
            c->oom = true;
            break;
        }
        spec_strmap_get(&uses, k, strlen(k), &n);
        if (spec_strmap_put(&uses, k, strlen(k), n + 1)) c->oom = true;
        w->ops[i].key = k;
    }
    spec_strmap by_path = {0};
    pm_obj *items = calloc(w->n_ops + 1, sizeof *items);
    const char **keys = calloc(w->n_ops + 1, sizeof *keys);
    size_t n_items = 0;
    if (!items || !keys) c->oom = true;
    for (size_t i = 0; i < w->n_ops && !c->oom; i++) {
        pm_op *op = &w->ops[i];
        if (op->origin != SIZE_MAX && op->origin != main) {
            pm_arr servers = {0};
            pm_obj s = {0};
            pm_put_str(c, &s, "url", w->origins[op->origin]);
            pm_push(c, &servers, pm_obj_done(c, &s));
            pm_put(c, &op->o, "servers", pm_arr_done(c, &servers));
        }
        size_t at, shared = 0;
        spec_strmap_get(&uses, op->key, strlen(op->key), &shared);
        if (op->hash && shared > 1) {
            const char *with = core_arena_printf(c->a, "%s#%s", op->path, op->hash);
            if (with) op->path = with;
        }
        if (!spec_strmap_get(&by_path, op->path, strlen(op->path), &at)) {
            at = n_items++;
            keys[at] = op->path;
            if (spec_strmap_put(&by_path, op->path, strlen(op->path), at)) c->oom = true;
        }
        bool dup = false;
        for (uint32_t k = 0; k < items[at].n && !dup; k++)
            dup = !strcmp(items[at].m[k].key, op->method);
        if (dup) {
            char upper[16];
            size_t k = 0;
            for (; op->method[k] && k + 1 < sizeof upper; k++)
                upper[k] = (char)(op->method[k] - ('a' - 'A'));
            upper[k] = '\0';
            pm_warn(c, op->pointer, "%s %s is already a request of this collection; skipped", upper,
                    op->path);
            continue;
        }
        pm_put(c, &items[at], op->method, pm_obj_done(c, &op->o));
    }
    pm_obj paths = {0};
    for (size_t i = 0; i < n_items && !c->oom; i++)
        pm_put(c, &paths, keys[i], pm_obj_done(c, &items[i]));
    pm_put(c, root, "paths", pm_obj_done(c, &paths));
    free(items);
    free(keys);
    spec_strmap_free(&by_path);
    spec_strmap_free(&uses);
}

int spec_postman_translate(spec_api_int *ai, const spec_doc *doc, int version, jt_node **out)
{
    *out = NULL;
    const jt_node *root = doc->tree->root;
    pm_ctx c = {.ai = ai, .doc = doc, .a = doc->tree->arena};
    if (version < 0) {
        spec_diag(ai, CORE_DIAG_ERROR, APIDEX_ESPEC, doc, NULL, "/info/schema",
                  "unsupported Postman collection version '%s' (v2.0 and v2.1 are)",
                  jt_get_str(jt_get(root, "info"), "schema"));
        return APIDEX_ESPEC;
    }
    const jt_node *items = jt_get(root, "item");
    if (!jt_is(items, JT_ARRAY)) {
        spec_diag(ai, CORE_DIAG_ERROR, APIDEX_ESPEC, doc, NULL, items ? "/item" : "",
                  "a Postman collection needs an 'item' list");
        return APIDEX_ESPEC;
    }
    c.vars = jt_is(jt_get(root, "variable"), JT_ARRAY) ? jt_get(root, "variable") : NULL;
    index_vars(&c);
    pm_walk w = {.c = &c};
    w.root_auth = pm_auth_decides(jt_get(root, "auth")) ? jt_get(root, "auth") : NULL;
    if (w.root_auth) w.root_security = pm_auth_requirement(&c, w.root_auth, "/auth");
    int rc = walk_items(&w, items);
    pm_obj oas = {0}, info = {0};
    if (!rc) {
        const jt_node *pi = jt_get(root, "info");
        pm_put_str(&c, &oas, "openapi", "3.0.3");
        const char *name = jt_get_str(pi, "name");
        pm_put_str(&c, &info, "title", name && *name ? name : "Postman collection");
        const jt_node *ver = jt_get(pi, "version");
        const char *vs = pm_value_str(&c, ver);
        if (jt_is(ver, JT_OBJECT))
            vs =
                core_arena_printf(c.a, "%lld.%lld.%lld", (long long)jt_num(jt_get(ver, "major"), 0),
                                  (long long)jt_num(jt_get(ver, "minor"), 0),
                                  (long long)jt_num(jt_get(ver, "patch"), 0));
        pm_put_str(&c, &info, "version", vs);
        pm_put_str(&c, &info, "description", pm_desc(jt_get(pi, "description")));
        pm_put(&c, &oas, "info", pm_obj_done(&c, &info));
        finish_paths(&w, &oas);
        if (w.tags.n) pm_put(&c, &oas, "tags", pm_arr_done(&c, &w.tags));
        if (c.schemes.n) {
            pm_obj comp = {0};
            pm_put(&c, &comp, "securitySchemes", pm_obj_done(&c, &c.schemes));
            pm_put(&c, &oas, "components", pm_obj_done(&c, &comp));
        }
        if (w.root_security) pm_put(&c, &oas, "security", w.root_security);
        pm_put_str(&c, &oas, "x-postman-version", version == 20 ? "2.0" : "2.1");
        *out = pm_obj_done(&c, &oas);
    }
    free(w.ops);
    free(w.origins);
    free(w.origin_uses);
    spec_strmap_free(&w.origin_idx);
    spec_strmap_free(&w.tag_idx);
    spec_strmap_free(&w.op_ids);
    spec_strmap_free(&c.scheme_by_sig);
    spec_strmap_free(&c.scheme_names);
    spec_strmap_free(&c.var_idx);
    if (c.oom || (!rc && !*out)) return APIDEX_ENOMEM;
    return rc;
}
