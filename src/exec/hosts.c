/*
 * Origins: where a request may go and where credentials may go. An origin is
 * "scheme://host:port" (lower case, the default port written). The API's origins come from
 * its servers with their variables' defaults and enum values, never from a URL after a
 * caller's values were put into it; --allow-host entries add hosts (reach only) or exact
 * origins (reach and credentials). The transport's host list is derived from these.
 */
#include "exec/exec_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { MAX_COMBOS = 64, MAX_AUTH_VARS = 8 };

/* Whether c may appear in a host name or an IPv4 address as apidex reads one. */
static bool host_char(unsigned char c)
{
    return isalnum(c) || c == '.' || c == '-' || c == '_' || c == '~';
}

/* Whether the host name h (n bytes, no brackets) is one every URL parser reads alike: a name
   whose last label is not a number, or a dotted-quad IPv4 address written canonically. A
   last label of digits (or 0x and hex digits) makes WHATWG parsers and curl read the host as
   an IPv4 address in a short, octal or hex form ("2" is 0.0.0.2, "0x7f.1" is 127.0.0.1),
   which a string comparison of host names would not see. */
static bool host_unambiguous(const char *h, size_t n)
{
    bool trailing_dot = n > 1 && h[n - 1] == '.';
    if (trailing_dot) n--;
    const char *last = h + n;
    while (last > h && last[-1] != '.') last--;
    size_t ll = (size_t)(h + n - last);
    bool numeric = ll > 0;
    bool hex = ll >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X');
    for (size_t i = hex ? 2 : 0; i < ll && numeric; i++)
        numeric = hex ? isxdigit((unsigned char)last[i]) : isdigit((unsigned char)last[i]);
    if (!numeric) return true;
    if (trailing_dot) return false;
    /* four decimal parts 0-255, no leading zero */
    int parts = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int v = 0;
        while (j < n && isdigit((unsigned char)h[j]) && j - i < 4) v = v * 10 + (h[j++] - '0');
        if (j == i || j - i > 3 || v > 255 || (h[i] == '0' && j - i > 1)) return false;
        parts++;
        if (j == n) break;
        if (h[j] != '.' || j + 1 == n) return false;
        i = j + 1;
    }
    return parts == 4;
}

const char *exec_url_origin(const char *url, core_arena *arena)
{
    if (!url) return NULL;
    const char *p = strstr(url, "://");
    if (!p || p == url) return NULL;
    char scheme[8];
    size_t sl = (size_t)(p - url);
    if (sl >= sizeof scheme) return NULL;
    for (size_t i = 0; i < sl; i++) scheme[i] = (char)tolower((unsigned char)url[i]);
    scheme[sl] = '\0';
    bool https = !strcmp(scheme, "https");
    if (!https && strcmp(scheme, "http")) return NULL;
    p += 3;
    size_t n = strcspn(p, "/?#");
    /* no user info, no backslash (parsers disagree on both), nothing else in the authority */
    char host[256];
    size_t hl = 0;
    const char *q = p, *end = p + n;
    if (q < end && *q == '[') {
        const char *close = memchr(q, ']', (size_t)(end - q));
        if (!close || close - q < 3 || (size_t)(close - q + 1) >= sizeof host) return NULL;
        for (const char *c = q + 1; c < close; c++)
            if (!isxdigit((unsigned char)*c) && *c != ':' && *c != '.') return NULL;
        for (const char *c = q; c <= close; c++) host[hl++] = (char)tolower((unsigned char)*c);
        q = close + 1;
    } else {
        while (q < end && *q != ':') {
            if (!host_char((unsigned char)*q) || hl + 1 >= sizeof host) return NULL;
            host[hl++] = (char)tolower((unsigned char)*q++);
        }
        if (!hl || !host_unambiguous(host, hl)) return NULL;
    }
    host[hl] = '\0';
    long port = https ? 443 : 80;
    if (q < end) {
        if (*q != ':') return NULL;
        q++;
        if (q < end) {
            port = 0;
            for (; q < end; q++) {
                if (!isdigit((unsigned char)*q)) return NULL;
                port = port * 10 + (*q - '0');
                if (port > 65535) return NULL;
            }
            if (!port) return NULL;
        }
    }
    return core_arena_printf(arena, "%s://%s:%ld", scheme, host, port);
}

/* The host of an origin ("https://h:443" -> "h", "[::1]" stays bracketed), in arena. */
static const char *origin_host(const char *origin, core_arena *a)
{
    const char *h = strstr(origin, "://");
    if (!h) return NULL;
    h += 3;
    const char *colon = strrchr(h, ':');
    return core_arena_strndup(a, h, colon ? (size_t)(colon - h) : strlen(h));
}

bool exec_allow_entry_valid(const char *entry)
{
    size_t n = entry ? strlen(entry) : 0;
    if (!n || n > 512) return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)entry[i] <= 0x20 || (unsigned char)entry[i] >= 0x7f) return false;
    char buf[600];
    const char *url = entry, *rest = strstr(entry, "://");
    if (!rest) {
        snprintf(buf, sizeof buf, "http://%s", entry);
        url = buf;
        rest = entry;
    } else {
        rest += 3;
    }
    /* nothing after the authority but one "/": a path, query or fragment would suggest a
       narrower rule than an origin is */
    rest += strcspn(rest, "/?#");
    if (*rest && strcmp(rest, "/")) return false;
    if (url == buf && *rest) return false;
    core_arena *a = core_arena_new(1024);
    bool ok = a && exec_url_origin(url, a);
    core_arena_free(a);
    return ok;
}

bool exec_allow_entry_matches(const char *entry, const char *origin, bool *exact)
{
    *exact = false;
    if (!origin || !exec_allow_entry_valid(entry)) return false;
    char buf[600];
    core_arena *a = core_arena_new(4096);
    if (!a) return false;
    bool ok = false;
    if (strstr(entry, "://")) {
        const char *o = exec_url_origin(entry, a);
        ok = *exact = o && !strcmp(o, origin);
    } else {
        /* HOST or HOST:PORT: that host (on that port), any scheme; no credentials */
        snprintf(buf, sizeof buf, "http://%s", entry);
        const char *o = exec_url_origin(buf, a);
        const char *h = o ? origin_host(o, a) : NULL, *oh = origin_host(origin, a);
        const char *after = entry[0] == '[' ? strchr(entry, ']') : entry;
        bool has_port = after && strchr(after, ':');
        ok = h && oh && !strcmp(h, oh) &&
             (!has_port || !strcmp(strrchr(o, ':'), strrchr(origin, ':')));
    }
    core_arena_free(a);
    return ok;
}

/* Adds origin o to the list (unless there), growing it in arena. */
static int add_origin(core_arena *a, const char ***list, size_t *n, size_t *cap, const char *o)
{
    if (!o) return 0;
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*list)[i], o)) return 0;
    if (core_arena_array_grow(a, list, cap, *n, sizeof **list, 8)) return APIDEX_ENOMEM;
    (*list)[(*n)++] = o;
    return 0;
}

/* The values a variable of server object srv may take for the origin: its enum, else its
   default. *n = 0 when it has neither. */
static void var_values(const jt_node *srv, const char *name, const char **vals, size_t *n,
                       size_t cap)
{
    *n = 0;
    spec_server_var var;
    spec_server_object_var(srv, name, &var);
    const jt_node *en = var.enum_values;
    for (size_t i = 0; en && i < en->len && *n < cap; i++)
        if (jt_str(en->u.items[i])) vals[(*n)++] = jt_str(en->u.items[i]);
    if (!*n && var.default_value) vals[(*n)++] = var.default_value;
}

/* The origins of one server URL template (srv: its server object, for the variables). */
static int server_origins(const spec_api *api, const char *tmpl, const jt_node *srv, core_arena *a,
                          const char ***list, size_t *n, size_t *cap)
{
    /* the variables that can reach the authority: those before the first '/' of the path */
    const char *sep = strstr(tmpl, "://");
    const char *auth_end = strchr(sep ? sep + 3 : tmpl, '/');
    if (!auth_end) auth_end = tmpl + strlen(tmpl);
    const char *names[MAX_AUTH_VARS];
    const char *vals[MAX_AUTH_VARS][MAX_COMBOS];
    size_t nv[MAX_AUTH_VARS], n_names = 0, combos = 1;
    for (const char *p = tmpl; *p;) {
        const char *o = strchr(p, '{'), *c = o ? strchr(o, '}') : NULL;
        if (!o || !c) break;
        char *name = core_arena_strndup(a, o + 1, (size_t)(c - o - 1));
        if (!name) return APIDEX_ENOMEM;
        size_t k = 0;
        while (k < n_names && strcmp(names[k], name)) k++;
        if (k == n_names) {
            if (n_names == MAX_AUTH_VARS) return 0; /* too many to enumerate: none */
            names[n_names] = name;
            var_values(srv, name, vals[n_names], &nv[n_names], MAX_COMBOS);
            if (!nv[n_names]) return 0; /* neither default nor enum: no origin */
            if (o < auth_end) {
                combos *= nv[n_names];
                if (combos > MAX_COMBOS) return 0;
            } else {
                nv[n_names] = 1; /* a path variable: its first value is enough */
            }
            n_names++;
        }
        p = c + 1;
    }
    for (size_t k = 0; k < combos; k++) {
        core_buf u;
        core_buf_init(&u, 1 << 16);
        size_t rest = k;
        const char *pick[MAX_AUTH_VARS];
        for (size_t i = 0; i < n_names; i++) {
            pick[i] = vals[i][rest % nv[i]];
            rest /= nv[i];
        }
        for (const char *p = tmpl; *p;) {
            const char *c = *p == '{' ? strchr(p, '}') : NULL;
            if (!c) {
                core_buf_putc(&u, *p++);
                continue;
            }
            for (size_t i = 0; i < n_names; i++)
                if (strlen(names[i]) == (size_t)(c - p - 1) &&
                    !strncmp(names[i], p + 1, (size_t)(c - p - 1)))
                    core_buf_puts(&u, pick[i]);
            p = c + 1;
        }
        const char *url = u.data ? u.data : "";
        /* a relative server is on the document's origin (when it came from a URL) */
        const char *o = exec_url_origin(url[0] == '/' && api ? api->file : url, a);
        core_buf_free(&u);
        if (add_origin(a, list, n, cap, o)) return APIDEX_ENOMEM;
    }
    return 0;
}

int exec_api_origins(const spec_api *api, const spec_operation *op, core_arena *arena,
                     const char ***out, size_t *n)
{
    const char **list = core_arena_calloc(arena, 1, sizeof *list);
    size_t cap = 0;
    *n = 0;
    if (!list) return APIDEX_ENOMEM;
    *out = list;
    if (!api) return 0;
    /* an operation's own servers replace the API's (OAS 3) */
    const jt_node *ops = spec_operation_servers(op);
    for (size_t i = 0; ops && i < ops->len; i++) {
        const jt_node *s = ops->u.items[i];
        const char *u = spec_server_url(s);
        if (u && server_origins(api, u, s, arena, out, n, &cap)) return APIDEX_ENOMEM;
    }
    if (ops) return 0;
    for (size_t i = 0; i < api->n_servers; i++) {
        const char *u = api->servers[i].url;
        if (u && server_origins(api, u, spec_api_server_object(api, u), arena, out, n, &cap))
            return APIDEX_ENOMEM;
    }
    if (!*out) *out = list;
    return 0;
}

int exec_allowed_hosts(const exec_request *r, const spec_api *api, const char *const *extra,
                       size_t n_extra, core_arena *arena, const char ***out, size_t *n)
{
    const char **origins = NULL;
    size_t n_origins = 0;
    if (exec_api_origins(api, NULL, arena, &origins, &n_origins)) return APIDEX_ENOMEM;
    size_t cap = 1 + n_origins + (r ? r->n_api_origins : 0) + n_extra;
    const char **h = core_arena_calloc(arena, cap + 1, sizeof *h);
    if (!h) return APIDEX_ENOMEM;
    size_t k = 0;
    /* the request's own host only when its origin was allowed (never from a URL a caller's
       value changed) */
    if (r && r->origin && r->origin_allowed) h[k++] = origin_host(r->origin, arena);
    for (size_t i = 0; r && i < r->n_api_origins; i++)
        h[k++] = origin_host(r->api_origins[i], arena);
    for (size_t i = 0; i < n_origins; i++) h[k++] = origin_host(origins[i], arena);
    for (size_t i = 0; i < n_extra; i++) {
        if (!extra[i]) continue;
        const char *e = extra[i], *o = strstr(e, "://") ? exec_url_origin(e, arena) : NULL;
        h[k++] = o ? origin_host(o, arena) : e;
    }
    for (size_t i = 0; i < k; i++)
        if (!h[i]) return APIDEX_ENOMEM;
    *out = h;
    *n = k;
    return 0;
}
