/*
 * From a request's method and path to the operation it calls: every operation's path
 * template under its spec's mount, split into segments; the most literal matching template
 * wins (segment by segment from the left), then the method picks the operation.
 */
#include "mock/mock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUTE_MAX_SEGMENTS = 64, ROUTE_MAX_PATH = 8192 };

typedef enum { SEG_LITERAL = 2, SEG_MIXED = 1, SEG_PARAM = 0 } seg_kind;

typedef struct route_seg {
    char *text; /* the template segment, e.g. "{id}.json" */
    seg_kind kind;
} route_seg;

typedef struct route {
    const spec_api *api;
    const spec_operation *op;
    const char *base;
    route_seg *segs;
    size_t n_segs;
} route;

struct mock_router {
    mock_mount *mounts;
    size_t n_mounts;
    route *routes;
    size_t n_routes;
    core_arena *arena;
};

/* The path of a server URL with its variables replaced by their defaults:
   "https://{host}/v{major}/" -> "/v1". Trailing slashes dropped. */
static char *server_base(core_arena *a, const spec_api *api)
{
    const char *url = api->n_servers ? api->servers[0].url : NULL;
    if (!url) return core_arena_strdup(a, "");
    core_buf b;
    core_buf_init(&b, ROUTE_MAX_PATH);
    for (const char *p = url; *p; p++) { /* expand variables first: they may hold the host */
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        if (!close) {
            core_buf_putc(&b, *p);
            continue;
        }
        char name[128];
        size_t n = (size_t)(close - p - 1);
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p + 1);
        spec_server_var var;
        spec_server_var_find(api, 0, name, &var);
        const char *dflt = var.default_value;
        core_buf_puts(&b, dflt ? dflt : name);
        p = close;
    }
    const char *s = b.data ? b.data : "";
    const char *scheme = strstr(s, "://");
    const char *path = scheme ? strchr(scheme + 3, '/') : (s[0] == '/' ? s : NULL);
    if (!path && !scheme && s[0] && s[0] != '/') path = strchr(s, '/'); /* "host/base" */
    char *out = core_arena_strdup(a, path ? path : "");
    core_buf_free(&b);
    if (!out) return NULL;
    char *q = strpbrk(out, "?#");
    if (q) *q = '\0';
    size_t n = strlen(out);
    while (n && out[n - 1] == '/') out[--n] = '\0';
    return out;
}

static int split_template(core_arena *a, const char *base, const char *path, route *r)
{
    char *full = core_arena_printf(a, "%s%s%s", base, path[0] == '/' ? "" : "/", path);
    if (!full) return APIDEX_ENOMEM;
    size_t cap = 1;
    for (const char *p = full; *p; p++) cap += *p == '/';
    r->segs = core_arena_calloc(a, cap, sizeof *r->segs);
    if (!r->segs) return APIDEX_ENOMEM;
    char *save = NULL;
    for (char *t = strtok_r(full, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        route_seg *s = &r->segs[r->n_segs++];
        s->text = t;
        const char *open = strchr(t, '{'), *close = open ? strchr(open, '}') : NULL;
        if (!open || !close)
            s->kind = SEG_LITERAL;
        else if (open == t && close[1] == '\0')
            s->kind = SEG_PARAM;
        else
            s->kind = SEG_MIXED;
    }
    return 0;
}

int mock_router_new(const spec_registry *reg, const size_t *order, size_t n_order,
                    mock_router **out, apidex_error *err)
{
    *out = NULL;
    mock_router *r = calloc(1, sizeof *r);
    if (!r || !(r->arena = core_arena_new(0))) {
        free(r);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    size_t n_apis = spec_registry_count(reg), n_ops = 0;
    for (size_t i = 0; i < n_apis; i++) n_ops += spec_registry_api(reg, i)->n_ops;
    r->mounts = core_arena_calloc(r->arena, n_apis + 1, sizeof *r->mounts);
    r->routes = core_arena_calloc(r->arena, n_ops + 1, sizeof *r->routes);
    int rc = r->mounts && r->routes ? 0 : APIDEX_ENOMEM;
    size_t n_mount = order ? n_order : n_apis;
    for (size_t m = 0; !rc && m < n_mount; m++) {
        size_t i = order ? order[m] : m;
        if (i >= n_apis) continue;
        const spec_api *api = spec_registry_api(reg, i);
        if (api->failed || api->skipped || !api->n_ops) continue;
        char *base = server_base(r->arena, api);
        if (!base) rc = APIDEX_ENOMEM;
        for (size_t j = 0; !rc && j < r->n_mounts; j++)
            if (!strcmp(r->mounts[j].base, base)) { /* taken: prefix the API id */
                base = core_arena_printf(r->arena, "/%s%s", api->id, base);
                if (!base) rc = APIDEX_ENOMEM;
                break;
            }
        if (rc) break;
        r->mounts[r->n_mounts++] = (mock_mount){api, base};
        for (size_t k = 0; !rc && k < api->n_ops; k++) {
            route *rt = &r->routes[r->n_routes];
            *rt = (route){.api = api, .op = &api->ops[k], .base = base};
            rc = split_template(r->arena, base, api->ops[k].path, rt);
            if (!rc) r->n_routes++;
        }
    }
    if (rc) {
        mock_router_free(r);
        return core_error_set(err, rc, "out of memory");
    }
    *out = r;
    return 0;
}

void mock_router_free(mock_router *r)
{
    if (!r) return;
    core_arena_free(r->arena);
    free(r);
}

const mock_mount *mock_router_mounts(const mock_router *r, size_t *n)
{
    *n = r->n_mounts;
    return r->mounts;
}

size_t mock_router_count(const mock_router *r)
{
    return r->n_routes;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

char *mock_percent_decode(core_arena *a, const char *s, size_t n, bool plus_is_space)
{
    char *out = core_arena_alloc(a, n + 1);
    if (!out) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int h, l;
        if (plus_is_space && s[i] == '+') {
            out[k++] = ' ';
        } else if (s[i] == '%' && i + 2 < n && (h = hexval(s[i + 1])) >= 0 &&
                   (l = hexval(s[i + 2])) >= 0) {
            out[k++] = (char)(h * 16 + l);
            i += 2;
        } else {
            out[k++] = s[i];
        }
    }
    out[k] = '\0';
    return out;
}

/* Matches one request segment against a template segment, recording the parameters (in
   order) into names/values from *np on. Parameters match lazily up to the next literal. */
static bool match_segment(core_arena *a, const route_seg *t, const char *seg, const char **names,
                          const char **values, size_t *np, size_t max)
{
    const char *tp = t->text, *sp = seg;
    while (*tp) {
        if (*tp != '{') {
            if (*tp != *sp) return false;
            tp++;
            sp++;
            continue;
        }
        const char *close = strchr(tp, '}');
        if (!close) return false;
        const char *lit = close + 1, *lit_end = strchr(lit, '{');
        size_t lit_len = lit_end ? (size_t)(lit_end - lit) : strlen(lit);
        const char *val_end;
        if (!lit_len) {
            val_end = sp + strlen(sp);
        } else if (!lit_end) { /* the rest of the template is literal: it ends the segment */
            size_t sl = strlen(sp);
            if (sl < lit_len || memcmp(sp + sl - lit_len, lit, lit_len)) return false;
            val_end = sp + sl - lit_len;
        } else {
            val_end = strstr(sp, core_arena_strndup(a, lit, lit_len));
            if (!val_end) return false;
        }
        if (val_end == sp) return false; /* a parameter is never empty */
        if (*np < max) {
            names[*np] = core_arena_strndup(a, tp + 1, (size_t)(close - tp - 1));
            values[*np] = mock_percent_decode(a, sp, (size_t)(val_end - sp), false);
            (*np)++;
        }
        sp = val_end;
        tp = close + 1;
    }
    return *sp == '\0';
}

/* a beats b: more literal, segment by segment from the left */
static int compare_routes(const route *a, const route *b)
{
    for (size_t i = 0; i < a->n_segs && i < b->n_segs; i++)
        if (a->segs[i].kind != b->segs[i].kind) return (int)a->segs[i].kind - (int)b->segs[i].kind;
    return 0;
}

mock_route_rc mock_route(const mock_router *r, const char *method, const char *path,
                         core_arena *arena, mock_match *m, const char **allow)
{
    *m = (mock_match){0};
    *allow = NULL;
    /* split the raw path; decoding per segment keeps an encoded '/' inside its segment */
    const char *segs[ROUTE_MAX_SEGMENTS];
    size_t n = 0;
    size_t plen = strnlen(path, ROUTE_MAX_PATH + 1);
    if (plen > ROUTE_MAX_PATH) return MOCK_ROUTE_NO_PATH;
    for (const char *p = path; *p;) {
        while (*p == '/') p++;
        if (!*p) break;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (n == ROUTE_MAX_SEGMENTS) return MOCK_ROUTE_NO_PATH;
        segs[n++] = core_arena_strndup(arena, p, len);
        if (!segs[n - 1]) return MOCK_ROUTE_NO_PATH;
        p += len;
    }
    const route *best = NULL, *best_any = NULL;
    const char *names[ROUTE_MAX_SEGMENTS * 2], *values[ROUTE_MAX_SEGMENTS * 2];
    bool *matches = core_arena_calloc(arena, r->n_routes + 1, sizeof *matches);
    if (!matches) return MOCK_ROUTE_NO_PATH;
    for (size_t i = 0; i < r->n_routes; i++) { /* the most literal matching template */
        const route *rt = &r->routes[i];
        if (rt->n_segs != n) continue;
        size_t np = 0;
        bool ok = true;
        for (size_t k = 0; k < n && ok; k++)
            ok = match_segment(arena, &rt->segs[k], segs[k], names, values, &np,
                               ROUTE_MAX_SEGMENTS * 2);
        matches[i] = ok;
        if (ok && (!best_any || compare_routes(rt, best_any) > 0)) best_any = rt;
    }
    if (!best_any) return MOCK_ROUTE_NO_PATH;
    /* its operations (templates as literal as it, e.g. the same path in two specs) */
    core_buf methods;
    core_buf_init(&methods, 4096);
    for (int pass = 0; pass < 2 && !best; pass++) { /* HEAD: then as GET */
        const char *want = pass ? "GET" : method;
        if (pass && strcmp(method, "HEAD")) break;
        for (size_t i = 0; i < r->n_routes && !best; i++) {
            const route *rt = &r->routes[i];
            if (!matches[i] || compare_routes(rt, best_any)) continue;
            if (!pass) {
                if (methods.len) core_buf_puts(&methods, ", ");
                core_buf_puts(&methods, rt->op->method);
            }
            if (!strcmp(rt->op->method, want)) best = rt;
        }
    }
    if (!best) {
        *allow = core_arena_strdup(arena, methods.data ? methods.data : "");
        core_buf_free(&methods);
        return MOCK_ROUTE_NO_METHOD;
    }
    core_buf_free(&methods);
    size_t np = 0;
    for (size_t k = 0; k < n; k++)
        match_segment(arena, &best->segs[k], segs[k], names, values, &np, ROUTE_MAX_SEGMENTS * 2);
    m->api = best->api;
    m->op = best->op;
    m->base = best->base;
    m->n_params = np;
    m->param_names = core_arena_calloc(arena, np + 1, sizeof *m->param_names);
    m->param_values = core_arena_calloc(arena, np + 1, sizeof *m->param_values);
    if (!m->param_names || !m->param_values) return MOCK_ROUTE_NO_PATH;
    memcpy(m->param_names, names, np * sizeof *names);
    memcpy(m->param_values, values, np * sizeof *values);
    m->item = n && best->segs[n - 1].kind == SEG_PARAM;
    return MOCK_ROUTE_OK;
}
