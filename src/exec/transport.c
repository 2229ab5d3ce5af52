/*
 * Sending an API call: the outbound layer (src/net: schemes, hosts, resolved and pinned
 * addresses, redirects re-checked hop by hop, credentials kept to their origin, timeouts,
 * a size cap, no proxy) under the rules `apidex call` states, plus what is about API calls
 * only: the read-only rule for methods, and exec_mask for everything shown.
 */
#include "exec/exec.h"

#include <string.h>

#define EXEC_DEFAULT_REDIRECTS 3

static bool method_allowed(const exec_policy *p, const char *m)
{
    return p->allow_write || !strcmp(m, "GET") || !strcmp(m, "HEAD") || !strcmp(m, "OPTIONS");
}

static const char *mask_with_request(void *ctx, const char *text, core_arena *arena)
{
    return exec_mask(ctx, text, arena);
}

/* The outbound policy of an API call: the hosts and addresses p allows, its limits. */
static net_policy net_policy_of(const exec_policy *p)
{
    unsigned redirects = p->max_redirects ? p->max_redirects : EXEC_DEFAULT_REDIRECTS;
    return (net_policy){.allowed_hosts = p->allowed_hosts,
                        .n_allowed_hosts = p->n_allowed_hosts,
                        .allow_private = p->allow_private,
                        .allowed_addresses = p->allowed_addresses,
                        .n_allowed_addresses = p->n_allowed_addresses,
                        .max_redirects =
                            redirects > NET_MAX_REDIRECTS ? NET_MAX_REDIRECTS : (int)redirects,
                        .timeout_ms = p->timeout_ms,
                        .connect_timeout_ms = p->connect_timeout_ms,
                        .max_bytes = p->max_bytes,
                        .hosts_hint = "the spec's servers and --allow-host",
                        .private_hint = "--allow-private or --allow-address IP to allow"};
}

int exec_send(const exec_request *r, const exec_policy *p, exec_response **out, apidex_error *err)
{
    *out = NULL;
    static const exec_policy safe;
    if (!p) p = &safe;
    if (!r || !r->method || !r->url)
        return core_error_set(err, APIDEX_EINVAL, "exec_send: no method or URL");
    if (!method_allowed(p, r->method)) {
        core_arena *a = core_arena_new(0);
        core_error_set(err, APIDEX_EREFUSED,
                       "method %s refused (rule: read-only; --allow-write to allow)",
                       a ? exec_mask(r, r->method, a) : "?");
        core_arena_free(a);
        return APIDEX_EREFUSED;
    }
    net_policy np = net_policy_of(p);
    net_request nr = {.method = r->method,
                      .url = r->url,
                      .headers = r->headers,
                      .n_headers = r->n_headers,
                      .body = r->body,
                      .body_len = r->body ? r->body_len : 0,
                      .content_type = r->content_type,
                      .secrets = r->secrets,
                      .n_secrets = r->n_secrets,
                      .mask = mask_with_request,
                      .mask_ctx = (void *)r};
    return net_send(&nr, &np, out, NULL, err);
}

void exec_response_free(exec_response *resp)
{
    net_response_free(resp);
}

const char *exec_address_refusal(const exec_policy *p, const char *ip)
{
    if (!p) return net_address_refusal(NULL, ip);
    net_policy np = {.allow_private = p->allow_private,
                     .allowed_addresses = p->allowed_addresses,
                     .n_allowed_addresses = p->n_allowed_addresses};
    return net_address_refusal(&np, ip);
}

const char *exec_response_header(const exec_response *resp, const char *name)
{
    return net_response_header(resp, name);
}
