/* Fetching documents over http(s) through the outbound layer (net/net.h): URL sources and
   remote $refs, with a timeout, a size cap and the address rule on every hop. */
#include "oas/oas_int.h"

#include "net/net.h"

#include <stdlib.h>
#include <string.h>

int spec_fetch_url(const spec_options *o, const char *root, const char *url, long timeout_ms,
                   size_t max_bytes, bool follow_redirects, char **out, size_t *out_len,
                   apidex_error *err)
{
    *out = NULL;
    *out_len = 0;
    /* hosts: a source may go anywhere public; a $ref only where the allow-list says (the
       resolver checked it before asking; checked again here, on the hop itself) */
    size_t n_hosts = 0;
    while (!follow_redirects && o && o->remote_hosts && o->remote_hosts[n_hosts]) n_hosts++;
    const char **hosts = calloc(n_hosts + 2, sizeof *hosts);
    char *root_host = root ? net_url_host(root) : NULL;
    size_t n_addrs = 0;
    while (o && o->remote_addresses && o->remote_addresses[n_addrs]) n_addrs++;
    if (!hosts) {
        free(root_host);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    if (follow_redirects) {
        hosts[n_hosts++] = "*";
    } else {
        for (size_t i = 0; i < n_hosts; i++) hosts[i] = o->remote_hosts[i];
        if (root_host) hosts[n_hosts++] = root_host;
    }
    const char *origins[1] = {root};
    net_policy p = {.allowed_hosts = hosts,
                    .n_allowed_hosts = n_hosts,
                    .allowed_origins = origins,
                    .n_allowed_origins = root ? 1 : 0,
                    .allowed_addresses = o ? o->remote_addresses : NULL,
                    .n_allowed_addresses = n_addrs,
                    .max_redirects = follow_redirects ? NET_MAX_REDIRECTS : NET_NO_REDIRECTS,
                    .timeout_ms = timeout_ms,
                    .max_bytes = max_bytes,
                    .hosts_hint = "--allow-host",
                    .private_hint = "--allow-address IP to allow"};
    net_request r = {.method = "GET", .url = url};
    net_response *resp = NULL;
    apidex_error nerr;
    core_error_clear(&nerr);
    int rc = net_send(&r, &p, &resp, NULL, &nerr);
    free(hosts);
    free(root_host);
    if (rc == APIDEX_ENOMEM) {
        rc = core_error_set(err, rc, "out of memory");
    } else if (rc == APIDEX_EREFUSED) {
        rc = core_error_set(err, rc, "refused: %s", nerr.message);
    } else if (rc) {
        rc = core_error_set(err, APIDEX_ENET, "cannot fetch: %s", nerr.message);
    } else if (resp->truncated) {
        rc = core_error_set(err, APIDEX_ELIMIT, "remote document is over the limit of %zu bytes",
                            max_bytes);
    } else if (resp->status == 404 || resp->status == 410) {
        rc = core_error_set(err, APIDEX_ENOTFOUND, "HTTP %ld", resp->status);
    } else if (resp->status < 200 || resp->status >= 300) {
        rc = core_error_set(err, APIDEX_ENET, "HTTP %ld", resp->status);
    }
    if (rc) {
        core_error_at(err, url, 0, 0, NULL);
        net_response_free(resp);
        return rc;
    }
    *out = malloc(resp->body_len + 1);
    if (*out) {
        memcpy(*out, resp->body, resp->body_len);
        (*out)[resp->body_len] = '\0';
        *out_len = resp->body_len;
    }
    net_response_free(resp);
    if (!*out) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    return 0;
}

char *spec_url_host(const char *url)
{
    return net_url_host(url);
}

char *spec_url_join(const char *base, const char *rel)
{
    return net_url_join(base, rel);
}
