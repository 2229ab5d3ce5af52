/* URLs as the outbound rules see them: origins, hosts, base URLs. */
#include "net/net_int.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int net_curl_init(void)
{
    pthread_once(&curl_once, curl_init);
    return curl_init_rc == CURLE_OK ? 0 : -1;
}

static void lower(char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z') *s = (char)(*s - 'A' + 'a');
}

bool net_url_is_http(const char *url)
{
    return url && (!strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8));
}

int net_origin_of(const char *url, net_origin *o)
{
    memset(o, 0, sizeof *o);
    if (!net_url_is_http(url)) return -1;
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    int rc = -1;
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK && host && *host &&
        strlen(host) < sizeof o->host && strlen(scheme) < sizeof o->scheme) {
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
        snprintf(o->scheme, sizeof o->scheme, "%s", scheme);
        lower(o->scheme);
        net_host_bare(host, o->host, sizeof o->host);
        lower(o->host);
        o->port = port ? strtol(port, NULL, 10) : 0;
        rc = 0;
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return rc;
}

bool net_origin_equal(const net_origin *a, const net_origin *b)
{
    return !strcmp(a->scheme, b->scheme) && !strcmp(a->host, b->host) && a->port == b->port;
}

/* The host an allowed_hosts entry names: "host", "host:port", "[v6]", "[v6]:port", or a bare
   IPv6 literal ("::1"); a port is no part of the rule. */
static void entry_host(const char *entry, char *out, size_t cap)
{
    if (entry[0] == '[') {
        const char *close = strchr(entry, ']');
        size_t n = close ? (size_t)(close - entry - 1) : strlen(entry + 1);
        snprintf(out, cap, "%.*s", (int)n, entry + 1);
        return;
    }
    const char *colon = strchr(entry, ':');
    if (colon && !strchr(colon + 1, ':')) /* one colon: host:port */
        snprintf(out, cap, "%.*s", (int)(colon - entry), entry);
    else
        snprintf(out, cap, "%s", entry);
}

bool net_host_listed(const net_policy *p, const char *host)
{
    char bare[256], other[256];
    net_host_bare(host, bare, sizeof bare);
    for (size_t i = 0; i < p->n_allowed_hosts; i++) {
        const char *e = p->allowed_hosts[i];
        if (!e || !*e) continue;
        if (!strcmp(e, "*")) return true;
        entry_host(e, other, sizeof other);
        if (!strcasecmp(bare, other)) return true;
    }
    return false;
}

bool net_origin_listed(const net_policy *p, const net_origin *o)
{
    for (size_t i = 0; i < p->n_allowed_origins; i++) {
        net_origin other;
        if (p->allowed_origins[i] && !net_origin_of(p->allowed_origins[i], &other) &&
            net_origin_equal(o, &other))
            return true;
    }
    return false;
}

const char *net_base_url_problem(const char *url)
{
    if (!net_url_is_http(url)) return "not http(s) (an absolute http:// or https:// URL)";
    const char *rest = strstr(url, "://") + 3;
    if (strchr(rest, '?'))
        return "it has a query ('?...'), which a base URL cannot have: the path would be "
               "appended to the query";
    if (strchr(rest, '#'))
        return "it has a fragment ('#...'), which a base URL cannot have: the path would be "
               "appended to the fragment";
    net_origin o;
    if (net_origin_of(url, &o)) return "not an absolute http(s) URL with a host";
    return NULL;
}

char *net_url_host(const char *url)
{
    CURLU *u = curl_url();
    if (!u) return NULL;
    char *host = NULL, *copy = NULL;
    if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK && host) {
        copy = strdup(host);
        if (copy) lower(copy); /* hosts compare case-insensitively */
    }
    curl_free(host);
    curl_url_cleanup(u);
    return copy;
}

char *net_url_join(const char *base, const char *rel)
{
    CURLU *u = curl_url();
    if (!u) return NULL;
    char *joined = NULL, *copy = NULL;
    if (curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK &&
        curl_url_set(u, CURLUPART_URL, rel, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_URL, &joined, 0) == CURLUE_OK && joined)
        copy = strdup(joined);
    curl_free(joined);
    curl_url_cleanup(u);
    return copy;
}
