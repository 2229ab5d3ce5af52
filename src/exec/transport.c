/*
 * The safe transport: sends one request with libcurl under an exec_policy (methods, hosts,
 * resolved addresses, redirects, timeouts, a size cap) and hands out the response.
 *
 * Why the address check cannot be fooled by DNS: each hop's host is resolved here, every
 * address is classified, and only the allowed ones are handed to curl (CURLOPT_RESOLVE),
 * so curl never asks DNS itself; the socket callback then checks the address actually
 * being connected once more. Redirects are followed here, not by curl, so every hop gets
 * the same checks (scheme, host, addresses) and credentials are dropped when the host
 * changes. Proxies from the environment are ignored: a proxy would connect for us and
 * make the address check meaningless.
 */
#include "exec/exec_int.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define SEND_DEFAULT_TIMEOUT_MS 30000L
#define SEND_DEFAULT_CONNECT_MS 10000L
#define SEND_DEFAULT_MAX_BYTES  ((size_t)8 << 20)
#define SEND_DEFAULT_REDIRECTS  3u
#define SEND_MAX_ADDRS          16
#define SEND_MAX_HEADER_BYTES   ((size_t)256 << 10)

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* ---------------------------------------------------------------- addresses */

static bool in_v4(uint32_t a, uint32_t net, unsigned bits)
{
    uint32_t mask = bits ? ~0u << (32 - bits) : 0;
    return (a & mask) == (net & mask);
}

/* The class of an IPv4 address (host byte order) that is never connected to by default. */
static const char *v4_class(uint32_t a)
{
    if (in_v4(a, 0x7f000000u, 8)) return "loopback";
    if (in_v4(a, 0x0a000000u, 8) || in_v4(a, 0xac100000u, 12) || in_v4(a, 0xc0a80000u, 16))
        return "private";
    if (in_v4(a, 0xa9fe0000u, 16)) return "link-local";
    if (in_v4(a, 0x00000000u, 8)) return "unspecified";
    if (in_v4(a, 0x64400000u, 10)) return "shared (carrier-grade NAT)";
    if (in_v4(a, 0xe0000000u, 4)) return "multicast";
    if (in_v4(a, 0xf0000000u, 4)) return "reserved"; /* 240/4 and 255.255.255.255 */
    if (in_v4(a, 0xc0000000u, 24) || in_v4(a, 0xc6120000u, 15)) return "reserved";
    return NULL;
}

static uint32_t v4_at(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static const char *v6_class(const unsigned char *b)
{
    static const unsigned char zero[16];
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b};
    if (!memcmp(b, zero, 15) && b[15] == 0) return "unspecified";
    if (!memcmp(b, zero, 15) && b[15] == 1) return "loopback";
    /* forms that carry an IPv4 address: the embedded one decides */
    if (!memcmp(b, mapped, 12) || !memcmp(b, nat64, 12) || !memcmp(b, zero, 12))
        return v4_class(v4_at(b + 12));
    if (b[0] == 0x20 && b[1] == 0x02) return v4_class(v4_at(b + 2)); /* 6to4 */
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return "link-local";
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return "private"; /* site-local, deprecated */
    if ((b[0] & 0xfe) == 0xfc) return "unique-local";
    if (b[0] == 0xff) return "multicast";
    return NULL;
}

/* The address in its canonical text form into out; false when sa is not IPv4/IPv6. */
static bool addr_text(const struct sockaddr *sa, char *out, size_t cap)
{
    if (sa->sa_family == AF_INET)
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out,
                         (socklen_t)cap) != NULL;
    if (sa->sa_family == AF_INET6)
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out,
                         (socklen_t)cap) != NULL;
    return false;
}

/* Whether ip (canonical text) is one of p's allowed_addresses (compared canonically). */
static bool addr_listed(const exec_policy *p, int family, const void *bin)
{
    for (size_t i = 0; i < p->n_allowed_addresses; i++) {
        const char *s = p->allowed_addresses[i];
        if (!s) continue;
        unsigned char other[16];
        size_t n = family == AF_INET ? 4 : 16;
        char trimmed[INET6_ADDRSTRLEN + 2];
        size_t len = strlen(s);
        if (len >= 2 && s[0] == '[' && s[len - 1] == ']' && len - 2 < sizeof trimmed) {
            memcpy(trimmed, s + 1, len - 2);
            trimmed[len - 2] = 0;
            s = trimmed;
        }
        if (inet_pton(family, s, other) == 1 && !memcmp(other, bin, n)) return true;
    }
    return false;
}

static const char *sockaddr_refusal(const exec_policy *p, const struct sockaddr *sa)
{
    const char *why;
    const void *bin;
    if (sa->sa_family == AF_INET) {
        bin = &((const struct sockaddr_in *)sa)->sin_addr;
        why = v4_class(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
    } else if (sa->sa_family == AF_INET6) {
        bin = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        why = v6_class(bin);
    } else {
        return "not an IP address";
    }
    if (!why || p->allow_private) return NULL;
    return addr_listed(p, sa->sa_family, bin) ? NULL : why;
}

const char *exec_address_refusal(const exec_policy *p, const char *ip)
{
    static const exec_policy none;
    if (!p) p = &none;
    struct sockaddr_in v4 = {.sin_family = AF_INET};
    struct sockaddr_in6 v6 = {.sin6_family = AF_INET6};
    if (ip && inet_pton(AF_INET, ip, &v4.sin_addr) == 1)
        return sockaddr_refusal(p, (struct sockaddr *)&v4);
    if (ip && inet_pton(AF_INET6, ip, &v6.sin6_addr) == 1)
        return sockaddr_refusal(p, (struct sockaddr *)&v6);
    return "not an IP address";
}

/* ---------------------------------------------------------------- one hop */

typedef struct hop {
    const exec_policy *policy;
    char refused[160]; /* set by the socket callback */
    core_buf body;
    size_t max_bytes;
    bool truncated;
    core_buf headers; /* "name\0value\0" pairs of the latest response */
    size_t n_headers;
} hop;

static curl_socket_t hop_open_socket(void *user, curlsocktype purpose, struct curl_sockaddr *a)
{
    hop *h = user;
    const char *why = sockaddr_refusal(h->policy, &a->addr);
    if (why) {
        char ip[INET6_ADDRSTRLEN] = "?";
        addr_text(&a->addr, ip, sizeof ip);
        snprintf(h->refused, sizeof h->refused, "%s is a %s address", ip, why);
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype, a->protocol);
}

static size_t hop_write(char *p, size_t size, size_t n, void *user)
{
    hop *h = user;
    size_t bytes = size * n;
    size_t room = h->max_bytes - h->body.len;
    if (bytes > room) {
        core_buf_append(&h->body, p, room);
        h->truncated = true;
        return 0; /* stops the transfer: the rest is not read */
    }
    return core_buf_append(&h->body, p, bytes) ? 0 : bytes;
}

static size_t hop_header(char *p, size_t size, size_t n, void *user)
{
    hop *h = user;
    size_t bytes = size * n;
    if (bytes >= 5 && !memcmp(p, "HTTP/", 5)) { /* a new response (after 1xx): start over */
        core_buf_reset(&h->headers);
        h->n_headers = 0;
        return bytes;
    }
    const char *colon = memchr(p, ':', bytes);
    if (!colon) return bytes;
    size_t name_len = (size_t)(colon - p);
    const char *v = colon + 1, *end = p + bytes;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
    if (h->headers.len + bytes + 2 > SEND_MAX_HEADER_BYTES) return 0;
    core_buf_append(&h->headers, p, name_len);
    core_buf_putc(&h->headers, 0);
    core_buf_append(&h->headers, v, (size_t)(end - v));
    core_buf_putc(&h->headers, 0);
    h->n_headers++;
    return h->headers.failed ? 0 : bytes;
}

/* ---------------------------------------------------------------- request state */

typedef struct send_state {
    const exec_request *r;
    exec_policy p;
    core_arena *arena; /* the response's */
    const char *method;
    const char *url;
    const char *body;
    size_t body_len;
    bool credentials; /* still sent: false once the host changed */
    const char *origin_host;
    long origin_port;
    char origin_scheme[8];
} send_state;

static int refuse(const send_state *s, apidex_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Every refusal and failure goes through here: the message is masked. */
static int refuse_code(const send_state *s, int code, apidex_error *err, const char *fmt,
                       va_list ap)
{
    char msg[sizeof err->message];
    vsnprintf(msg, sizeof msg, fmt, ap);
    core_arena *a = core_arena_new(0);
    const char *masked = a ? exec_mask(s->r, msg, a) : "request refused";
    if (!masked) masked = "request refused";
    core_error_set(err, code, "%s", masked);
    core_arena_free(a);
    return code;
}

static int refuse(const send_state *s, apidex_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = refuse_code(s, APIDEX_EREFUSED, err, fmt, ap);
    va_end(ap);
    return rc;
}

static int fail(const send_state *s, int code, apidex_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(const send_state *s, int code, apidex_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = refuse_code(s, code, err, fmt, ap);
    va_end(ap);
    return rc;
}

static bool method_allowed(const exec_policy *p, const char *m)
{
    return p->allow_write || !strcmp(m, "GET") || !strcmp(m, "HEAD") || !strcmp(m, "OPTIONS");
}

static bool token_text(const char *s)
{
    if (!s || !*s) return false;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              strchr("!#$%&'*+-.^_`|~", *s)))
            return false;
    return true;
}

/* The host without the brackets of an IPv6 literal, into out. */
static void host_bare(const char *host, char *out, size_t cap)
{
    size_t n = strlen(host);
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
        host++;
        n -= 2;
    }
    snprintf(out, cap, "%.*s", (int)n, host);
}

static bool host_allowed(const exec_policy *p, const char *host)
{
    char bare[256], other[256];
    host_bare(host, bare, sizeof bare);
    for (size_t i = 0; i < p->n_allowed_hosts; i++) {
        if (!p->allowed_hosts[i]) continue;
        host_bare(p->allowed_hosts[i], other, sizeof other);
        /* "host:port" names its host (a port is no part of this rule) */
        char *colon = strchr(other, ':');
        if (colon && !strchr(colon + 1, ':') && p->allowed_hosts[i][0] != '[') *colon = 0;
        if (!strcasecmp(bare, other)) return true;
    }
    return false;
}

static bool has_secret(const exec_request *r, const char *text, size_t n)
{
    for (size_t i = 0; i < r->n_secrets; i++) {
        const char *sec = r->secrets[i];
        size_t k = sec ? strlen(sec) : 0;
        if (!k || k > n) continue;
        for (size_t j = 0; j + k <= n; j++)
            if (!memcmp(text + j, sec, k)) return true;
    }
    return false;
}

static bool header_is_credential(const exec_request *r, const exec_header *h)
{
    if (h->secret) return true;
    if (!strcasecmp(h->name, "Authorization") || !strcasecmp(h->name, "Proxy-Authorization") ||
        !strcasecmp(h->name, "Cookie"))
        return true;
    return h->value && has_secret(r, h->value, strlen(h->value));
}

/* The query of u without the parameters whose value (raw or decoded) holds a secret. */
static int strip_query_secrets(const exec_request *r, CURLU *u)
{
    char *query = NULL;
    if (curl_url_get(u, CURLUPART_QUERY, &query, 0) != CURLUE_OK || !query) return 0;
    core_buf kept;
    core_buf_init(&kept, 0);
    char *save = NULL;
    bool dropped = false;
    for (char *pair = strtok_r(query, "&", &save); pair; pair = strtok_r(NULL, "&", &save)) {
        int dec_len = 0;
        char *dec = curl_easy_unescape(NULL, pair, 0, &dec_len);
        bool secret =
            has_secret(r, pair, strlen(pair)) || (dec && has_secret(r, dec, (size_t)dec_len));
        curl_free(dec);
        if (secret) {
            dropped = true;
            continue;
        }
        if (kept.len) core_buf_putc(&kept, '&');
        core_buf_puts(&kept, pair);
    }
    int rc = 0;
    if (dropped)
        rc = curl_url_set(u, CURLUPART_QUERY, kept.len ? kept.data : NULL, 0) == CURLUE_OK
                 ? 0
                 : APIDEX_ENOMEM;
    core_buf_free(&kept);
    curl_free(query);
    return rc;
}

typedef struct url_parts {
    char scheme[8];
    char host[256];
    long port;
} url_parts;

/* Parses s->url; checks scheme and host. Strips secrets from the query when the
   credentials are no longer sent (the URL came from a redirect to another host). */
static int check_url(send_state *s, url_parts *up, apidex_error *err)
{
    CURLU *u = curl_url();
    if (!u) return fail(s, APIDEX_ENOMEM, err, "out of memory");
    char *scheme = NULL, *host = NULL, *port = NULL;
    int rc = 0;
    if (curl_url_set(u, CURLUPART_URL, s->url, 0) != CURLUE_OK) {
        rc = fail(s, APIDEX_EINVAL, err, "not an absolute http(s) URL: %s", s->url);
        goto done;
    }
    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
    if (!scheme || (strcasecmp(scheme, "http") && strcasecmp(scheme, "https"))) {
        rc = refuse(s, err, "scheme %s refused (rule: http and https only): %s",
                    scheme ? scheme : "(none)", s->url);
        goto done;
    }
    if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host || !*host ||
        strlen(host) >= sizeof up->host) {
        rc = fail(s, APIDEX_EINVAL, err, "URL without a usable host: %s", s->url);
        goto done;
    }
    if (!host_allowed(&s->p, host)) {
        rc = refuse(s, err,
                    "host %s refused (rule: allowed hosts: the spec's servers and --allow-host)",
                    host);
        goto done;
    }
    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
    snprintf(up->scheme, sizeof up->scheme, "%s", scheme);
    snprintf(up->host, sizeof up->host, "%s", host);
    up->port = port ? strtol(port, NULL, 10) : 0;
    if (!s->credentials) {
        curl_url_set(u, CURLUPART_USER, NULL, 0);
        curl_url_set(u, CURLUPART_PASSWORD, NULL, 0);
        if (strip_query_secrets(s->r, u)) {
            rc = fail(s, APIDEX_ENOMEM, err, "out of memory");
            goto done;
        }
        char *clean = NULL;
        if (curl_url_get(u, CURLUPART_URL, &clean, 0) == CURLUE_OK && clean) {
            s->url = core_arena_strdup(s->arena, clean);
            curl_free(clean);
        }
    }
done:
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return rc;
}

/* Resolves the host (by the deadline) and builds the CURLOPT_RESOLVE entry pinning its
   allowed addresses. IP literals need no entry (curl does not resolve them; the socket check
   sees them). */
static int pin_addresses(send_state *s, const url_parts *up, double deadline,
                         struct curl_slist **pins, apidex_error *err)
{
    char bare[256];
    host_bare(up->host, bare, sizeof bare);
    char port[16];
    snprintf(port, sizeof port, "%ld", up->port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    long left = (long)((deadline - core_now()) * 1000.0);
    int gai = exec_resolve(bare, port, &hints, left > 0 ? left : 0, &res);
    if (gai == EXEC_RESOLVE_TIMEOUT)
        return fail(s, APIDEX_ENET, err, "resolving %s timed out after %ld ms (rule: timeout)",
                    bare, s->p.timeout_ms);
    if (gai) return fail(s, APIDEX_ENET, err, "cannot resolve %s: %s", bare, gai_strerror(gai));
    core_buf entry;
    core_buf_init(&entry, 4096);
    core_buf_printf(&entry, "%s:%ld:", bare, up->port);
    size_t kept = 0;
    char first_refused[INET6_ADDRSTRLEN] = "";
    const char *first_why = NULL;
    for (struct addrinfo *ai = res; ai && kept < SEND_MAX_ADDRS; ai = ai->ai_next) {
        char ip[INET6_ADDRSTRLEN];
        if (!addr_text(ai->ai_addr, ip, sizeof ip)) continue;
        const char *why = sockaddr_refusal(&s->p, ai->ai_addr);
        if (why) {
            if (!first_why) {
                first_why = why;
                snprintf(first_refused, sizeof first_refused, "%s", ip);
            }
            continue;
        }
        bool v6 = ai->ai_family == AF_INET6;
        core_buf_printf(&entry, "%s%s%s%s", kept ? "," : "", v6 ? "[" : "", ip, v6 ? "]" : "");
        kept++;
    }
    freeaddrinfo(res);
    int rc = 0;
    if (!kept) {
        if (first_why)
            rc = refuse(s, err,
                        "%s resolves to %s, a %s address (rule: no private addresses; "
                        "--allow-private to allow)",
                        bare, first_refused, first_why);
        else
            rc = fail(s, APIDEX_ENET, err, "cannot resolve %s: no IPv4 or IPv6 address", bare);
    } else {
        unsigned char scratch[16];
        bool literal =
            inet_pton(AF_INET, bare, scratch) == 1 || inet_pton(AF_INET6, bare, scratch) == 1;
        if (!literal) {
            struct curl_slist *l = entry.failed ? NULL : curl_slist_append(NULL, entry.data);
            if (!l) rc = fail(s, APIDEX_ENOMEM, err, "out of memory");
            *pins = l;
        }
    }
    core_buf_free(&entry);
    return rc;
}

static struct curl_slist *build_headers(const send_state *s, bool *ok)
{
    struct curl_slist *l = NULL, *next;
    bool has_type = false;
    core_buf line;
    core_buf_init(&line, 0);
    *ok = true;
    for (size_t i = 0; i < s->r->n_headers && *ok; i++) {
        const exec_header *h = &s->r->headers[i];
        if (!h->name || !token_text(h->name)) continue;
        if (!s->credentials && header_is_credential(s->r, h)) continue;
        if (!strcasecmp(h->name, "Content-Type")) {
            if (!s->body) continue; /* the body is gone (303): so is its type */
            has_type = true;
        }
        core_buf_reset(&line);
        const char *v = h->value ? h->value : "";
        if (strpbrk(v, "\r\n")) continue; /* never a header injection */
        if (*v)
            core_buf_printf(&line, "%s: %s", h->name, v);
        else
            core_buf_printf(&line, "%s;", h->name); /* curl's form for an empty value */
        next = line.failed ? NULL : curl_slist_append(l, line.data);
        if (!next)
            *ok = false;
        else
            l = next;
    }
    if (*ok && s->body && s->r->content_type && !has_type && !strpbrk(s->r->content_type, "\r\n")) {
        core_buf_reset(&line);
        core_buf_printf(&line, "Content-Type: %s", s->r->content_type);
        next = line.failed ? NULL : curl_slist_append(l, line.data);
        if (!next)
            *ok = false;
        else
            l = next;
    }
    if (*ok) {
        next = curl_slist_append(l, "Expect:"); /* no 100-continue round trip */
        if (!next)
            *ok = false;
        else
            l = next;
    }
    core_buf_free(&line);
    return l;
}

/* Sends the current hop. *status gets the status; h the headers and body. */
static int send_hop(send_state *s, hop *h, double deadline, CURL *c, long *status,
                    apidex_error *err)
{
    url_parts up;
    int rc = check_url(s, &up, err);
    if (rc) return rc;
    struct curl_slist *pins = NULL;
    rc = pin_addresses(s, &up, deadline, &pins, err);
    if (rc) return rc;
    bool ok;
    struct curl_slist *headers = build_headers(s, &ok);
    if (!ok) {
        curl_slist_free_all(pins);
        curl_slist_free_all(headers);
        return fail(s, APIDEX_ENOMEM, err, "out of memory");
    }
    long left = (long)((deadline - core_now()) * 1000.0);
    if (left <= 0) {
        curl_slist_free_all(pins);
        curl_slist_free_all(headers);
        return fail(s, APIDEX_ENET, err, "timed out after %ld ms (rule: total timeout): %s",
                    s->p.timeout_ms, s->url);
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, s->url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_PROXY, "");
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_RESOLVE, pins);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, hop_open_socket);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, left);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                     s->p.connect_timeout_ms < left ? s->p.connect_timeout_ms : left);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "apidex/" APIDEX_VERSION_STRING);
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, ""); /* the cap counts decoded bytes */
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, hop_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, h);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, hop_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, h);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    if (!strcmp(s->method, "HEAD")) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else if (s->body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)s->body_len);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, s->body);
        if (strcmp(s->method, "POST")) curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, s->method);
    } else if (strcmp(s->method, "GET")) {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, s->method);
    }
    CURLcode cc = curl_easy_perform(c);
    curl_slist_free_all(pins);
    curl_slist_free_all(headers);
    if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && h->truncated)) {
        if (h->refused[0])
            return refuse(s, err, "%s: %s (rule: no private addresses; --allow-private to allow)",
                          up.host, h->refused);
        if (cc == CURLE_OPERATION_TIMEDOUT)
            return fail(s, APIDEX_ENET, err, "timed out after %ld ms (rule: timeout): %s",
                        s->p.timeout_ms, s->url);
        return fail(s, APIDEX_ENET, err, "%s %s: %s", s->method, s->url,
                    errbuf[0] ? errbuf : curl_easy_strerror(cc));
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    return 0;
}

/* ---------------------------------------------------------------- the exchange */

static void hop_init(hop *h, const send_state *s)
{
    memset(h, 0, sizeof *h);
    h->policy = &s->p;
    h->max_bytes = s->p.max_bytes;
    core_buf_init(&h->body, s->p.max_bytes + 1);
    core_buf_init(&h->headers, SEND_MAX_HEADER_BYTES);
}

static void hop_free(hop *h)
{
    core_buf_free(&h->body);
    core_buf_free(&h->headers);
}

static void policy_defaults(exec_policy *p)
{
    if (p->timeout_ms <= 0) p->timeout_ms = SEND_DEFAULT_TIMEOUT_MS;
    if (p->connect_timeout_ms <= 0) p->connect_timeout_ms = SEND_DEFAULT_CONNECT_MS;
    if (p->connect_timeout_ms > p->timeout_ms) p->connect_timeout_ms = p->timeout_ms;
    if (!p->max_bytes) p->max_bytes = SEND_DEFAULT_MAX_BYTES;
    if (!p->max_redirects) p->max_redirects = SEND_DEFAULT_REDIRECTS;
}

/* The response, with every secret of the request masked in what it echoes (a server may
   put the key into a Location, a header or the body): nothing exec_send hands out shows a
   secret. A body with NUL bytes (binary, never shown as text) is left as it is. */
static int fill_response(const send_state *s, hop *h, long status, unsigned redirects,
                         double started, exec_response *resp)
{
    const exec_request *r = s->r;
    core_arena *a = s->arena;
    resp->status = status;
    resp->redirects = redirects;
    resp->final_url = exec_mask(r, s->url, a);
    resp->truncated = h->truncated;
    resp->elapsed_ms = (core_now() - started) * 1000.0;
    const char *body = h->body.data ? h->body.data : "";
    resp->body_len = h->body.len;
    resp->body = core_arena_strndup(a, body, h->body.len);
    if (resp->body && r->n_secrets && !memchr(body, 0, h->body.len)) {
        resp->body = exec_mask(r, resp->body, a);
        resp->body_len = strlen(resp->body);
    }
    resp->headers = core_arena_calloc(a, h->n_headers + 1, sizeof *resp->headers);
    if (!resp->body || !resp->headers || !resp->final_url) return APIDEX_ENOMEM;
    const char *p = h->headers.data;
    for (size_t i = 0; i < h->n_headers && p; i++) {
        const char *name = p;
        const char *value = name + strlen(name) + 1;
        p = value + strlen(value) + 1;
        resp->headers[i].name = core_arena_strdup(a, name);
        resp->headers[i].value = exec_mask(r, core_arena_strdup(a, value), a);
        if (!resp->headers[i].name || !resp->headers[i].value) return APIDEX_ENOMEM;
        resp->n_headers++;
    }
    return 0;
}

static bool same_origin(const send_state *s, const url_parts *up)
{
    char a[256], b[256];
    host_bare(s->origin_host, a, sizeof a);
    host_bare(up->host, b, sizeof b);
    return !strcasecmp(a, b) && s->origin_port == up->port &&
           !strcasecmp(s->origin_scheme, up->scheme);
}

/* Turns the current hop into the redirect's next one. */
static int next_hop(send_state *s, long status, const char *location, apidex_error *err)
{
    s->url = core_arena_strdup(s->arena, location);
    if (!s->url) return fail(s, APIDEX_ENOMEM, err, "out of memory");
    if (status == 303 || ((status == 301 || status == 302) && !strcmp(s->method, "POST"))) {
        if (strcmp(s->method, "HEAD")) s->method = "GET";
        s->body = NULL;
        s->body_len = 0;
    }
    if (!method_allowed(&s->p, s->method))
        return refuse(s, err, "method %s refused (rule: read-only; --allow-write to allow)",
                      s->method);
    /* a host change drops the credentials, for this hop and every later one */
    CURLU *u = curl_url();
    char *host = NULL, *scheme = NULL, *port = NULL;
    url_parts up;
    memset(&up, 0, sizeof up);
    if (u && curl_url_set(u, CURLUPART_URL, s->url, 0) == CURLUE_OK) {
        curl_url_get(u, CURLUPART_HOST, &host, 0);
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
    }
    snprintf(up.host, sizeof up.host, "%s", host ? host : "");
    snprintf(up.scheme, sizeof up.scheme, "%s", scheme ? scheme : "");
    up.port = port ? strtol(port, NULL, 10) : 0;
    curl_free(host);
    curl_free(scheme);
    curl_free(port);
    curl_url_cleanup(u);
    if (!same_origin(s, &up) && s->credentials) {
        s->credentials = false;
        if (s->body && has_secret(s->r, s->body, s->body_len))
            return refuse(s, err,
                          "a %ld redirect to %s would resend a body carrying a credential to "
                          "another host (rule: credentials stay with their host)",
                          status, up.host);
    }
    return 0;
}

int exec_send(const exec_request *r, const exec_policy *p, exec_response **out, apidex_error *err)
{
    *out = NULL;
    static const exec_policy safe;
    send_state s = {.r = r, .p = p ? *p : safe, .credentials = true};
    policy_defaults(&s.p);
    if (!r || !r->method || !r->url)
        return core_error_set(err, APIDEX_EINVAL, "exec_send: no method or URL");
    if (!token_text(r->method)) return fail(&s, APIDEX_EINVAL, err, "not an HTTP method");
    if (!method_allowed(&s.p, r->method))
        return refuse(&s, err, "method %s refused (rule: read-only; --allow-write to allow)",
                      r->method);
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK)
        return core_error_set(err, APIDEX_ENET, "libcurl could not be initialised");
    core_arena *arena = core_arena_new(0);
    exec_response *resp = arena ? core_arena_calloc(arena, 1, sizeof *resp) : NULL;
    CURL *c = curl_easy_init();
    if (!resp || !c) {
        curl_easy_cleanup(c);
        core_arena_free(arena);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    resp->arena = arena;
    s.arena = arena;
    s.method = r->method;
    s.url = r->url;
    s.body = r->body;
    s.body_len = r->body ? r->body_len : 0;
    url_parts first;
    memset(&first, 0, sizeof first);
    int rc = check_url(&s, &first, err);
    s.origin_host = first.host;
    s.origin_port = first.port;
    snprintf(s.origin_scheme, sizeof s.origin_scheme, "%s", first.scheme);
    double started = core_now();
    double deadline = started + (double)s.p.timeout_ms / 1000.0;
    for (unsigned redirects = 0; !rc; redirects++) {
        hop h;
        hop_init(&h, &s);
        long status = 0;
        rc = send_hop(&s, &h, deadline, c, &status, err);
        char *location = NULL;
        if (!rc && status >= 300 && status < 400 && status != 304 &&
            curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) {
            if (redirects >= s.p.max_redirects)
                rc = refuse(&s, err, "more than %u redirects (rule: at most %u redirects): %s",
                            s.p.max_redirects, s.p.max_redirects, location);
            else
                rc = next_hop(&s, status, location, err);
            hop_free(&h);
            continue;
        }
        if (!rc && fill_response(&s, &h, status, redirects, started, resp))
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
        hop_free(&h);
        break;
    }
    curl_easy_cleanup(c);
    if (rc) {
        core_arena_free(arena);
        return rc;
    }
    *out = resp;
    return 0;
}

void exec_response_free(exec_response *resp)
{
    if (resp) core_arena_free(resp->arena);
}

const char *exec_response_header(const exec_response *resp, const char *name)
{
    for (size_t i = 0; resp && i < resp->n_headers; i++)
        if (!strcasecmp(resp->headers[i].name, name)) return resp->headers[i].value;
    return NULL;
}
