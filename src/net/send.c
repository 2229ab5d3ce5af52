/*
 * The one outbound client: sends a request with libcurl under a net_policy and hands out the
 * response (net.h says what it guarantees).
 *
 * Why the address check cannot be fooled by DNS: each hop's host is resolved here, every
 * address is classified, and only the allowed ones are handed to curl (CURLOPT_RESOLVE),
 * so curl never asks DNS itself; the socket callback then checks the address actually
 * being connected once more. Redirects are followed here, not by curl, so every hop gets
 * the same checks (scheme, host, addresses) and credentials are dropped when the origin
 * changes. Proxies from the environment are ignored: a proxy would connect for us and
 * make the address check meaningless.
 */
#include "net/net_int.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SEND_MAX_ADDRS         16
#define SEND_MAX_HEADER_BYTES  ((size_t)256 << 10)
#define SEND_MAX_REDIRECT_BODY ((size_t)64 << 10)

struct net_session {
    CURL *curl;
};

net_session *net_session_new(void)
{
    if (net_curl_init()) return NULL;
    net_session *s = calloc(1, sizeof *s);
    if (s && !(s->curl = curl_easy_init())) {
        free(s);
        s = NULL;
    }
    return s;
}

void net_session_free(net_session *s)
{
    if (!s) return;
    curl_easy_cleanup(s->curl);
    free(s);
}

/* ---------------------------------------------------------------- request state */

typedef struct send_state {
    const net_request *r;
    net_policy p;
    core_arena *arena; /* the response's */
    const char *method;
    const char *url;
    const char *body;
    size_t body_len;
    bool credentials;     /* still sent: false once a hop left the first origin */
    bool follow;          /* redirects are followed (max_redirects > 0) */
    net_origin first;     /* the first request's origin */
    net_origin here;      /* the current hop's */
    bool explicit_origin; /* the current hop's origin is one of allowed_origins */
} send_state;

/* text with every secret of r replaced by "****" (net_request.mask when given). */
static const char *mask(const net_request *r, const char *text, core_arena *a)
{
    if (!text || !r) return text;
    if (r->mask) return r->mask(r->mask_ctx, text, a);
    if (!r->n_secrets) return text;
    core_buf b;
    core_buf_init(&b, 4 * strlen(text) + 16); /* a cap: "****" may be longer than a secret */
    for (const char *p = text; *p;) {
        size_t best = 0;
        for (size_t i = 0; i < r->n_secrets; i++) {
            size_t n = r->secrets[i] ? strlen(r->secrets[i]) : 0;
            if (n > best && !strncmp(p, r->secrets[i], n)) best = n;
        }
        if (best) {
            core_buf_append(&b, "****", 4);
            p += best;
        } else {
            core_buf_append(&b, p++, 1);
        }
    }
    const char *out = b.data && !b.failed ? core_arena_strndup(a, b.data, b.len) : NULL;
    core_buf_free(&b);
    return out ? out : "****"; /* never the unmasked text */
}

/* Every refusal and failure goes through here: the message is masked. */
static int failv(const send_state *s, int code, net_fail kind, net_fail *why, apidex_error *err,
                 const char *fmt, va_list ap)
{
    char msg[sizeof err->message];
    vsnprintf(msg, sizeof msg, fmt, ap);
    core_arena *a = core_arena_new(0);
    const char *masked = a ? mask(s->r, msg, a) : "request refused";
    if (!masked) masked = "request refused";
    core_error_set(err, code, "%s", masked);
    core_arena_free(a);
    if (why) *why = kind;
    return code;
}

static int fail(const send_state *s, int code, net_fail kind, net_fail *why, apidex_error *err,
                const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int fail(const send_state *s, int code, net_fail kind, net_fail *why, apidex_error *err,
                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = failv(s, code, kind, why, err, fmt, ap);
    va_end(ap);
    return rc;
}

#define REFUSE(s, why, err, ...) fail(s, APIDEX_EREFUSED, NET_FAIL_REFUSED, why, err, __VA_ARGS__)

static bool token_text(const char *s)
{
    if (!s || !*s) return false;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              strchr("!#$%&'*+-.^_`|~", *s)))
            return false;
    return true;
}

static bool has_secret(const net_request *r, const char *text, size_t n)
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

static bool header_is_credential(const net_request *r, const net_header *h)
{
    if (h->secret) return true;
    if (!strcasecmp(h->name, "Authorization") || !strcasecmp(h->name, "Proxy-Authorization") ||
        !strcasecmp(h->name, "Cookie"))
        return true;
    return h->value && has_secret(r, h->value, strlen(h->value));
}

/* The query of u without the parameters whose value (raw or decoded) holds a secret. */
static int strip_query_secrets(const net_request *r, CURLU *u)
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

/* The policy's entries that must be well-formed: allowed addresses and origins. */
static int check_policy(const send_state *s, net_fail *why, apidex_error *err)
{
    for (size_t i = 0; i < s->p.n_allowed_addresses; i++)
        if (!net_address_valid(s->p.allowed_addresses[i]))
            return fail(s, APIDEX_EINVAL, NET_FAIL_URL, why, err,
                        "allowed address '%s' is not an IP address (IPv4 such as 127.0.0.1, "
                        "IPv6 such as ::1)",
                        s->p.allowed_addresses[i] ? s->p.allowed_addresses[i] : "(null)");
    for (size_t i = 0; i < s->p.n_allowed_origins; i++) {
        net_origin o;
        if (!s->p.allowed_origins[i] || net_origin_of(s->p.allowed_origins[i], &o))
            return fail(s, APIDEX_EINVAL, NET_FAIL_URL, why, err,
                        "allowed origin '%s' is not an http(s) URL",
                        s->p.allowed_origins[i] ? s->p.allowed_origins[i] : "(null)");
    }
    return 0;
}

/* Parses s->url into s->here; checks scheme and host. Strips credentials from the URL when
   they are no longer sent (the URL came from a redirect to another origin). */
static int check_url(send_state *s, net_fail *why, apidex_error *err)
{
    CURLU *u = curl_url();
    if (!u) return fail(s, APIDEX_ENOMEM, NET_FAIL_NOMEM, why, err, "out of memory");
    char *scheme = NULL, *host = NULL;
    int rc = 0;
    if (curl_url_set(u, CURLUPART_URL, s->url, 0) != CURLUE_OK) {
        rc = fail(s, APIDEX_EINVAL, NET_FAIL_URL, why, err, "not an absolute http(s) URL: %s",
                  s->url);
        goto done;
    }
    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
    unsigned allowed = s->p.schemes & (NET_HTTP | NET_HTTPS);
    if (!allowed) allowed = NET_HTTP | NET_HTTPS;
    bool http = scheme && !strcasecmp(scheme, "http"),
         https = scheme && !strcasecmp(scheme, "https");
    if (!(http && (allowed & NET_HTTP)) && !(https && (allowed & NET_HTTPS))) {
        rc =
            REFUSE(s, why, err, "scheme %s refused (rule: %s only): %s", scheme ? scheme : "(none)",
                   allowed == NET_HTTPS ? "https" : "http and https", s->url);
        goto done;
    }
    if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host || !*host ||
        net_origin_of(s->url, &s->here)) {
        rc =
            fail(s, APIDEX_EINVAL, NET_FAIL_URL, why, err, "URL without a usable host: %s", s->url);
        goto done;
    }
    s->explicit_origin = net_origin_listed(&s->p, &s->here);
    if (!s->explicit_origin && !net_host_listed(&s->p, host)) {
        rc = REFUSE(s, why, err, "host %s refused (rule: allowed hosts%s%s)", host,
                    s->p.hosts_hint ? ": " : "", s->p.hosts_hint ? s->p.hosts_hint : "");
        goto done;
    }
    if (!s->credentials) {
        curl_url_set(u, CURLUPART_USER, NULL, 0);
        curl_url_set(u, CURLUPART_PASSWORD, NULL, 0);
        if (strip_query_secrets(s->r, u)) {
            rc = fail(s, APIDEX_ENOMEM, NET_FAIL_NOMEM, why, err, "out of memory");
            goto done;
        }
        char *clean = NULL;
        if (curl_url_get(u, CURLUPART_URL, &clean, 0) == CURLUE_OK && clean) {
            s->url = core_arena_strdup(s->arena, clean);
            curl_free(clean);
        }
        if (!s->url) rc = fail(s, APIDEX_ENOMEM, NET_FAIL_NOMEM, why, err, "out of memory");
    }
done:
    curl_free(scheme);
    curl_free(host);
    curl_url_cleanup(u);
    return rc;
}

static const char *private_rule(const send_state *s, char *buf, size_t cap)
{
    snprintf(buf, cap, "rule: no private addresses%s%s", s->p.private_hint ? "; " : "",
             s->p.private_hint ? s->p.private_hint : "");
    return buf;
}

/* Resolves the hop's host (by the deadline) and builds the CURLOPT_RESOLVE entry pinning its
   allowed addresses. IP literals need no entry (curl does not resolve them; the socket check
   sees them). */
static int pin_addresses(send_state *s, double deadline, struct curl_slist **pins, net_fail *why,
                         apidex_error *err)
{
    const char *bare = s->here.host;
    char port[16];
    snprintf(port, sizeof port, "%ld", s->here.port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    long left = (long)((deadline - core_now()) * 1000.0);
    long dns = s->p.dns_timeout_ms < left ? s->p.dns_timeout_ms : left;
    int gai = net_resolve(bare, port, &hints, dns > 0 ? dns : 0, &res);
    if (gai == NET_RESOLVE_TIMEOUT)
        return fail(s, APIDEX_ENET, NET_FAIL_TIMEOUT, why, err,
                    "resolving %s timed out after %ld ms (rule: timeout)", bare, dns > 0 ? dns : 0);
    if (gai)
        return fail(s, APIDEX_ENET, NET_FAIL_RESOLVE, why, err, "cannot resolve %s: %s", bare,
                    gai_strerror(gai));
    core_buf entry;
    core_buf_init(&entry, 4096);
    /* the entry names the host as the URL does: an IPv6 literal in brackets */
    bool v6_host = strchr(bare, ':') != NULL;
    core_buf_printf(&entry, "%s%s%s:%ld:", v6_host ? "[" : "", bare, v6_host ? "]" : "",
                    s->here.port);
    size_t kept = 0;
    char first_refused[INET6_ADDRSTRLEN] = "";
    const char *first_why = NULL;
    for (struct addrinfo *ai = res; ai && kept < SEND_MAX_ADDRS; ai = ai->ai_next) {
        char ip[INET6_ADDRSTRLEN];
        if (!net_sockaddr_text(ai->ai_addr, ip, sizeof ip)) continue;
        const char *refusal = s->explicit_origin ? NULL : net_sockaddr_refusal(&s->p, ai->ai_addr);
        if (refusal) {
            if (!first_why) {
                first_why = refusal;
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
        char rule[256];
        if (first_why)
            rc = REFUSE(s, why, err, "%s resolves to %s, a %s address (%s)", bare, first_refused,
                        first_why, private_rule(s, rule, sizeof rule));
        else
            rc = fail(s, APIDEX_ENET, NET_FAIL_RESOLVE, why, err,
                      "cannot resolve %s: no IPv4 or IPv6 address", bare);
    } else if (!net_address_valid(bare)) {
        struct curl_slist *l = entry.failed ? NULL : curl_slist_append(NULL, entry.data);
        if (!l) rc = fail(s, APIDEX_ENOMEM, NET_FAIL_NOMEM, why, err, "out of memory");
        *pins = l;
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
        const net_header *h = &s->r->headers[i];
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

/* ---------------------------------------------------------------- one hop */

enum { BODY_UNDECIDED, BODY_COLLECT, BODY_SINK, BODY_DISCARD };

typedef struct hop {
    const send_state *s;
    CURL *c;
    char refused[160]; /* set by the socket callback */
    int mode;
    core_buf body;
    size_t received;
    bool truncated;
    bool sink_stopped;
    bool discarded;
    bool headers_over;
    core_buf headers; /* "name\0value\0" pairs of the latest response */
    size_t n_headers;
} hop;

static curl_socket_t hop_open_socket(void *user, curlsocktype purpose, struct curl_sockaddr *a)
{
    (void)purpose;
    hop *h = user;
    const char *why = h->s->explicit_origin ? NULL : net_sockaddr_refusal(&h->s->p, &a->addr);
    if (why) {
        char ip[INET6_ADDRSTRLEN] = "?";
        net_sockaddr_text(&a->addr, ip, sizeof ip);
        snprintf(h->refused, sizeof h->refused, "%s is a %s address", ip, why);
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype, a->protocol);
}

static const char *hop_header_value(const hop *h, const char *name)
{
    const char *p = h->headers.data;
    for (size_t i = 0; p && i < h->n_headers; i++) {
        const char *value = p + strlen(p) + 1;
        if (!strcasecmp(p, name)) return value;
        p = value + strlen(value) + 1;
    }
    return NULL;
}

static size_t hop_write(char *p, size_t size, size_t n, void *user)
{
    hop *h = user;
    size_t bytes = size * n;
    long status = 0;
    if (h->mode == BODY_UNDECIDED) {
        curl_easy_getinfo(h->c, CURLINFO_RESPONSE_CODE, &status);
        if (h->s->follow && status >= 300 && status < 400 && status != 304 &&
            hop_header_value(h, "Location"))
            h->mode = BODY_DISCARD;
        else
            h->mode = h->s->r->on_body ? BODY_SINK : BODY_COLLECT;
    }
    if (h->mode == BODY_DISCARD) { /* a redirect's body: read past (a long one: cut) */
        h->received += bytes;
        if (h->received <= SEND_MAX_REDIRECT_BODY) return bytes;
        h->discarded = true;
        return 0;
    }
    size_t room = h->s->p.max_bytes - h->received;
    size_t take = bytes > room ? room : bytes;
    if (h->mode == BODY_SINK) {
        char *type = NULL;
        curl_easy_getinfo(h->c, CURLINFO_RESPONSE_CODE, &status);
        curl_easy_getinfo(h->c, CURLINFO_CONTENT_TYPE, &type);
        if (take && !h->s->r->on_body(h->s->r->body_ctx, status, type, p, take)) {
            h->sink_stopped = true;
            return 0;
        }
    } else if (take && core_buf_append(&h->body, p, take)) {
        return 0;
    }
    h->received += take;
    if (take < bytes) {
        h->truncated = true;
        return 0; /* stops the transfer: the rest is not read */
    }
    return bytes;
}

static int hop_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                        curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    hop *h = user;
    long status = 0;
    curl_easy_getinfo(h->c, CURLINFO_RESPONSE_CODE, &status);
    if (h->s->r->on_wait(h->s->r->wait_ctx, status)) return 0;
    h->sink_stopped = true;
    return 1; /* aborts the transfer */
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
    if (h->headers.len + bytes + 2 > SEND_MAX_HEADER_BYTES) {
        h->headers_over = true;
        return 0;
    }
    core_buf_append(&h->headers, p, name_len);
    core_buf_putc(&h->headers, 0);
    core_buf_append(&h->headers, v, (size_t)(end - v));
    core_buf_putc(&h->headers, 0);
    h->n_headers++;
    return h->headers.failed ? 0 : bytes;
}

static net_fail fail_kind(CURLcode cc)
{
    switch (cc) {
    case CURLE_OPERATION_TIMEDOUT:
        return NET_FAIL_TIMEOUT;
    case CURLE_COULDNT_CONNECT:
        return NET_FAIL_CONNECT;
    case CURLE_COULDNT_RESOLVE_HOST:
        return NET_FAIL_RESOLVE;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return NET_FAIL_TRANSFER;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
        return NET_FAIL_URL;
    case CURLE_OUT_OF_MEMORY:
        return NET_FAIL_NOMEM;
    default:
        return NET_FAIL_OTHER;
    }
}

/* Sends the current hop. *status gets the status; h the headers and body. */
static int send_hop(send_state *s, hop *h, double deadline, CURL *c, long *status, net_fail *why,
                    apidex_error *err)
{
    int rc = check_url(s, why, err);
    if (rc) return rc;
    struct curl_slist *pins = NULL;
    rc = pin_addresses(s, deadline, &pins, why, err);
    if (rc) return rc;
    bool ok;
    struct curl_slist *headers = build_headers(s, &ok);
    if (!ok) {
        curl_slist_free_all(pins);
        curl_slist_free_all(headers);
        return fail(s, APIDEX_ENOMEM, NET_FAIL_NOMEM, why, err, "out of memory");
    }
    long left = (long)((deadline - core_now()) * 1000.0);
    if (left <= 0) {
        curl_slist_free_all(pins);
        curl_slist_free_all(headers);
        return fail(s, APIDEX_ENET, NET_FAIL_TIMEOUT, why, err,
                    "timed out after %ld ms (rule: total timeout): %s", s->p.timeout_ms, s->url);
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    h->c = c;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, s->url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_PROXY, "");
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_RESOLVE, pins);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, hop_open_socket);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, left);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                     s->p.connect_timeout_ms < left ? s->p.connect_timeout_ms : left);
    if (s->p.stall_ms > 0) {
        curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
        curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME,
                         s->p.stall_ms >= 1000 ? s->p.stall_ms / 1000 : 1L);
    }
    if (s->p.ca_pem) {
        struct curl_blob blob = {
            .data = (void *)s->p.ca_pem, .len = strlen(s->p.ca_pem), .flags = CURL_BLOB_COPY};
        curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
        curl_easy_setopt(c, CURLOPT_CAPATH, NULL);
    }
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "apidex/" APIDEX_VERSION_STRING);
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, ""); /* the cap counts decoded bytes */
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, hop_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, h);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, hop_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, h);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    if (s->r->on_wait) {
        curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, hop_progress);
        curl_easy_setopt(c, CURLOPT_XFERINFODATA, h);
        curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    }
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
    curl_easy_setopt(c, CURLOPT_RESOLVE, NULL);
    if (cc == CURLE_WRITE_ERROR && (h->truncated || h->discarded)) cc = CURLE_OK;
    if (cc != CURLE_OK) {
        char rule[256];
        if (h->refused[0])
            return REFUSE(s, why, err, "%s: %s (%s)", s->here.host, h->refused,
                          private_rule(s, rule, sizeof rule));
        if (cc == CURLE_OPERATION_TIMEDOUT)
            return fail(s, APIDEX_ENET, NET_FAIL_TIMEOUT, why, err,
                        "timed out after %ld ms (rule: timeout): %s", s->p.timeout_ms, s->url);
        if (h->sink_stopped)
            return fail(s, APIDEX_ENET, NET_FAIL_SINK, why, err, "%s %s: the receiver stopped",
                        s->method, s->url);
        if (h->headers_over)
            return fail(s, APIDEX_ENET, NET_FAIL_OTHER, why, err,
                        "%s %s: response headers over %zu KiB", s->method, s->url,
                        SEND_MAX_HEADER_BYTES >> 10);
        return fail(s, APIDEX_ENET, fail_kind(cc), why, err, "%s %s: %s", s->method, s->url,
                    errbuf[0] ? errbuf : curl_easy_strerror(cc));
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    return 0;
}

/* ---------------------------------------------------------------- the exchange */

static void hop_init(hop *h, const send_state *s)
{
    memset(h, 0, sizeof *h);
    h->s = s;
    core_buf_init(&h->body, s->p.max_bytes + 1);
    core_buf_init(&h->headers, SEND_MAX_HEADER_BYTES);
}

static void hop_free(hop *h)
{
    core_buf_free(&h->body);
    core_buf_free(&h->headers);
}

static void policy_defaults(net_policy *p)
{
    if (p->timeout_ms <= 0) p->timeout_ms = NET_DEFAULT_TIMEOUT_MS;
    if (p->connect_timeout_ms <= 0) p->connect_timeout_ms = NET_DEFAULT_CONNECT_MS;
    if (p->connect_timeout_ms > p->timeout_ms) p->connect_timeout_ms = p->timeout_ms;
    if (p->dns_timeout_ms <= 0 || p->dns_timeout_ms > p->connect_timeout_ms)
        p->dns_timeout_ms = p->connect_timeout_ms;
    if (!p->max_bytes) p->max_bytes = NET_DEFAULT_MAX_BYTES;
    if (p->max_redirects == 0 || p->max_redirects > NET_MAX_REDIRECTS)
        p->max_redirects = NET_MAX_REDIRECTS;
    if (p->max_redirects < 0) p->max_redirects = 0;
}

/* The response, with every secret of the request masked in what it echoes (a server may
   put the key into a Location, a header or the body): nothing net_send hands out shows a
   secret. A body with NUL bytes (binary, never shown as text) is left as it is. */
static int fill_response(const send_state *s, hop *h, long status, unsigned redirects,
                         double started, net_response *resp)
{
    const net_request *r = s->r;
    core_arena *a = s->arena;
    bool masks = r->mask || r->n_secrets;
    resp->status = status;
    resp->redirects = redirects;
    resp->final_url = mask(r, s->url, a);
    resp->truncated = h->truncated;
    resp->elapsed_ms = (core_now() - started) * 1000.0;
    const char *body = h->body.data ? h->body.data : "";
    resp->body_len = h->body.len;
    resp->body = core_arena_strndup(a, body, h->body.len);
    if (resp->body && masks && !memchr(body, 0, h->body.len)) {
        resp->body = mask(r, resp->body, a);
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
        resp->headers[i].value = mask(r, core_arena_strdup(a, value), a);
        if (!resp->headers[i].name || !resp->headers[i].value) return APIDEX_ENOMEM;
        resp->n_headers++;
    }
    return 0;
}

/* Turns the current hop into the redirect's next one. */
static int next_hop(send_state *s, long status, const char *location, net_fail *why,
                    apidex_error *err)
{
    net_origin to;
    bool parsed = !net_origin_of(location, &to);
    /* an https exchange never continues in the clear */
    if (parsed && !strcmp(s->here.scheme, "https") && !strcmp(to.scheme, "http"))
        return REFUSE(s, why, err,
                      "a %ld redirect from https to http refused (rule: https stays https): %s",
                      status, location);
    s->url = core_arena_strdup(s->arena, location);
    if (!s->url) return fail(s, APIDEX_ENOMEM, NET_FAIL_NOMEM, why, err, "out of memory");
    if (status == 303 || ((status == 301 || status == 302) && !strcmp(s->method, "POST"))) {
        if (strcmp(s->method, "HEAD")) s->method = "GET";
        s->body = NULL;
        s->body_len = 0;
    }
    /* another origin drops the credentials, for this hop and every later one */
    if (parsed && !net_origin_equal(&s->first, &to) && s->credentials) {
        s->credentials = false;
        if (s->body && has_secret(s->r, s->body, s->body_len))
            return REFUSE(
                s, why, err,
                "a %ld redirect to %s would resend a body carrying a credential to "
                "another origin (rule: credentials stay with their host: the same scheme, host "
                "and port)",
                status, to.host);
    }
    return 0;
}

void net_response_free(net_response *resp)
{
    if (resp) core_arena_free(resp->arena);
}

const char *net_response_header(const net_response *resp, const char *name)
{
    for (size_t i = 0; resp && i < resp->n_headers; i++)
        if (!strcasecmp(resp->headers[i].name, name)) return resp->headers[i].value;
    return NULL;
}

long long net_retry_after_ms(const net_response *resp)
{
    const char *v = net_response_header(resp, "Retry-After");
    if (!v || !*v) return -1;
    char *end = NULL;
    long long secs = strtoll(v, &end, 10);
    if (end != v && !*end) return secs < 0 ? -1 : secs > 86400 ? 86400000LL : secs * 1000;
    time_t when = curl_getdate(v, NULL);
    if (when < 0) return -1;
    time_t now = time(NULL);
    return when > now ? (long long)(when - now) * 1000 : 0;
}

bool net_fail_transient(net_fail why)
{
    return why == NET_FAIL_CONNECT || why == NET_FAIL_TIMEOUT || why == NET_FAIL_TRANSFER;
}

int net_send(const net_request *r, const net_policy *p, net_response **out, net_fail *why,
             apidex_error *err)
{
    *out = NULL;
    if (why) *why = NET_FAIL_NONE;
    static const net_policy strict;
    send_state s = {.r = r, .p = p ? *p : strict, .credentials = true};
    policy_defaults(&s.p);
    s.follow = s.p.max_redirects > 0;
    if (!r || !r->url) {
        if (why) *why = NET_FAIL_URL;
        return core_error_set(err, APIDEX_EINVAL, "net_send: no URL");
    }
    s.method = r->method ? r->method : "GET";
    if (!token_text(s.method))
        return fail(&s, APIDEX_EINVAL, NET_FAIL_URL, why, err, "not an HTTP method");
    int rc = check_policy(&s, why, err);
    if (rc) return rc;
    if (net_curl_init()) {
        if (why) *why = NET_FAIL_OTHER;
        return core_error_set(err, APIDEX_ENET, "libcurl could not be initialised");
    }
    core_arena *arena = core_arena_new(0);
    net_response *resp = arena ? core_arena_calloc(arena, 1, sizeof *resp) : NULL;
    CURL *c = r->session ? r->session->curl : curl_easy_init();
    if (!resp || !c) {
        if (!r->session) curl_easy_cleanup(c);
        core_arena_free(arena);
        if (why) *why = NET_FAIL_NOMEM;
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    resp->arena = arena;
    s.arena = arena;
    s.url = r->url;
    s.body = r->body;
    s.body_len = r->body ? r->body_len : 0;
    rc = check_url(&s, why, err);
    s.first = s.here;
    double started = core_now();
    double deadline = started + (double)s.p.timeout_ms / 1000.0;
    for (unsigned redirects = 0; !rc; redirects++) {
        hop h;
        hop_init(&h, &s);
        long status = 0;
        rc = send_hop(&s, &h, deadline, c, &status, why, err);
        char *location = NULL, *joined = NULL;
        if (!rc && s.follow && status >= 300 && status < 400 && status != 304 &&
            (curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &location) != CURLE_OK || !location) &&
            hop_header_value(&h, "Location")) /* (a transfer cut short has no REDIRECT_URL) */
            location = joined = net_url_join(s.url, hop_header_value(&h, "Location"));
        if (!rc && s.follow && status >= 300 && status < 400 && status != 304 && location) {
            unsigned max = (unsigned)s.p.max_redirects;
            if (redirects >= max)
                rc = REFUSE(&s, why, err, "more than %u redirects (rule: at most %u redirects): %s",
                            max, max, location);
            else
                rc = next_hop(&s, status, location, why, err);
            free(joined);
            hop_free(&h);
            continue;
        }
        if (!rc && fill_response(&s, &h, status, redirects, started, resp))
            rc = fail(&s, APIDEX_ENOMEM, NET_FAIL_NOMEM, why, err, "out of memory");
        hop_free(&h);
        break;
    }
    if (!r->session) curl_easy_cleanup(c);
    if (rc) {
        core_arena_free(arena);
        return rc;
    }
    *out = resp;
    return 0;
}
