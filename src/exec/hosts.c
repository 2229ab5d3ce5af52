/*
 * The hosts a call may reach: the host of the request's own URL (its server: --server, the
 * registry's override, the operation's or the API's), the host of every server the spec
 * names, and the ones the caller allows besides (--allow-host). A server URL with a
 * {variable} in its host names no host.
 */
#include "exec/exec.h"

#include <string.h>

/* The host of an absolute URL ("https://user@h:8/x" -> "h:8"), in arena; NULL when it has
   none or a {variable} in its host. */
static const char *url_host(core_arena *a, const char *url)
{
    const char *p = url ? strstr(url, "://") : NULL;
    if (!p) return NULL;
    p += 3;
    size_t n = strcspn(p, "/?#");
    const char *at = memchr(p, '@', n);
    if (at) {
        n -= (size_t)(at + 1 - p);
        p = at + 1;
    }
    if (!n || memchr(p, '{', n)) return NULL;
    return core_arena_strndup(a, p, n);
}

int exec_allowed_hosts(const exec_request *r, const spec_api *api, const char *const *extra,
                       size_t n_extra, core_arena *arena, const char ***out, size_t *n)
{
    size_t cap = 1 + (api ? api->n_servers : 0) + n_extra;
    const char **h = core_arena_calloc(arena, cap + 1, sizeof *h);
    if (!h) return APIDEX_ENOMEM;
    size_t k = 0;
    const char *s = r ? url_host(arena, r->url) : NULL;
    if (s) h[k++] = s;
    for (size_t i = 0; api && i < api->n_servers; i++)
        if ((s = url_host(arena, api->servers[i].url))) h[k++] = s;
    for (size_t i = 0; i < n_extra; i++)
        if (extra[i]) h[k++] = extra[i];
    *out = h;
    *n = k;
    return 0;
}
