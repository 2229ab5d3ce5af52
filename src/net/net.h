/*
 * net: the one outbound HTTP client. Every request apidex sends (API calls, OAuth2 token
 * requests, URL sources and remote $refs, LLM and embedding APIs, model downloads) goes
 * through net_send under a net_policy; no other part of apidex sets up libcurl
 * (tests/e2e/test_net_guard.sh fails the build's tests when one does).
 *
 * What net_send guarantees, whatever the use:
 *  - schemes: http and https only (a use may narrow to https); an https request never
 *    continues over http (a redirect from https to http is refused);
 *  - hosts: every hop's host is one the policy allows (allowed_hosts, "*" for any host, or
 *    the host of an allowed origin), compared exactly and case-insensitively;
 *  - addresses: each hop's host is resolved here, under a deadline, and every address is
 *    classified; loopback, private, link-local, unique-local, unspecified, multicast,
 *    reserved and carrier-grade NAT addresses (and IPv4-mapped, NAT64 and 6to4 forms of
 *    them) are refused unless allow_private, the address is listed in allowed_addresses, or
 *    the hop's origin is one of allowed_origins. Only the allowed addresses are handed to
 *    libcurl (pinned), so libcurl never asks DNS itself, and the address actually connected
 *    to is checked again when the socket opens;
 *  - redirects: followed here, never by libcurl, at most max_redirects; every hop gets the
 *    same checks (scheme, host, addresses). Credentials (Authorization, Proxy-Authorization,
 *    Cookie, headers marked secret, header and query values holding one of the request's
 *    secrets, user:password in the URL) are dropped from the first hop whose origin (scheme,
 *    host, port) differs from the first request's, and from every hop after it; a redirect
 *    that would resend a body holding a secret to another origin is refused;
 *  - time: one deadline for the whole exchange (resolution, connection, redirects), a
 *    connect timeout per connection and a deadline for each name resolution;
 *  - size: the (decoded) body is cut at max_bytes; response headers at 256 KiB;
 *  - proxies from the environment (http_proxy, https_proxy, ALL_PROXY...) are ignored: a
 *    proxy would connect for us and make the address check meaningless;
 *  - messages and the response never show a secret of the request (masked "****").
 *
 * docs/EXECUTE.md ("Outbound requests") lists the fields, their defaults and who may widen
 * what.
 */
#ifndef APIDEX_NET_H
#define APIDEX_NET_H

#include "core/core.h"

struct addrinfo;

/* ---------------------------------------------------------------- the policy */

/** Schemes (net_policy.schemes). */
enum { NET_HTTP = 1u, NET_HTTPS = 2u };
/** net_policy.max_redirects: a 3xx is the answer, nothing is followed. */
#define NET_NO_REDIRECTS (-1)
/** The most redirects any use may follow (also the default). */
#define NET_MAX_REDIRECTS 5

#define NET_DEFAULT_TIMEOUT_MS 30000L
#define NET_DEFAULT_CONNECT_MS 10000L
#define NET_DEFAULT_MAX_BYTES  ((size_t)8 << 20)

/**
 * What a request may do. Zero is the strict default for every field: http and https, no
 * host at all (nothing can be sent until a use names its hosts), no private address, at
 * most NET_MAX_REDIRECTS redirects, 30 s in all, 10 s per connection and per name
 * resolution, 8 MiB of body, no proxy. The security rules can only be narrowed: nothing
 * widens the schemes past http/https, the redirect count past NET_MAX_REDIRECTS, or lets a
 * proxy in. Only three fields widen the rules, and only input the user gave may fill them:
 * allowed_hosts (hosts), allowed_origins (a URL the user configured explicitly: that origin
 * with any of its addresses, loopback included), and allow_private / allowed_addresses
 * (private addresses). Time and size limits are set by each use to what its job needs.
 */
typedef struct net_policy {
    unsigned schemes; /* NET_HTTP | NET_HTTPS; 0 = both. Other schemes: never */
    /* hosts a hop may reach: "host", "host:port" (names its host: the port is no part of
       the rule), "[v6]" or "[v6]:port", "*" = any host (the address rule still holds) */
    const char *const *allowed_hosts;
    size_t n_allowed_hosts;
    /* origins the user configured explicitly ("scheme://host[:port]", a path is ignored):
       their host is allowed, and so is every address it resolves to, loopback included */
    const char *const *allowed_origins;
    size_t n_allowed_origins;
    bool allow_private; /* every private, loopback, link-local... address */
    /* addresses allowed although private, as IP literals ("127.0.0.1", "::1", "[::1]");
       net_send refuses a policy whose entry is not one (APIDEX_EINVAL naming it) */
    const char *const *allowed_addresses;
    size_t n_allowed_addresses;
    int max_redirects;       /* 0 = NET_MAX_REDIRECTS; NET_NO_REDIRECTS: none; capped */
    long timeout_ms;         /* the whole exchange; 0 = 30000 */
    long connect_timeout_ms; /* each connection; 0 = 10000 (never above timeout_ms) */
    long dns_timeout_ms;     /* each name resolution; 0 = connect_timeout_ms */
    long stall_ms;           /* give up when under 1 KiB/s arrives for this long; 0 = off */
    size_t max_bytes;        /* the body, decoded; 0 = 8 MiB (the rest is cut) */
    /* how the user widens the rules, named in refusals (NULL: nothing is named) */
    const char *hosts_hint;   /* "the spec's servers and --allow-host" */
    const char *private_hint; /* "--allow-private to allow" */
    /* tests only: trust this CA (PEM text) instead of the system's certificates */
    const char *ca_pem;
} net_policy;

/* ---------------------------------------------------------------- requests */

typedef struct net_header {
    const char *name;
    const char *value;
    bool secret; /* carries a credential: dropped on another origin, shown masked */
} net_header;

typedef struct net_session net_session;

/**
 * Receives the final response's body as it arrives (status and Content-Type of that
 * response; a redirect's body never reaches it). Returns false to stop: net_send then fails
 * (NET_FAIL_SINK).
 */
typedef bool (*net_body_fn)(void *ctx, long status, const char *content_type, const char *data,
                            size_t n);

/**
 * Called about once a second (and more often while data arrives) for as long as an exchange
 * runs, with the status of the response once its headers came (0 before). Returns false to
 * end the exchange: net_send then fails (NET_FAIL_SINK). An event stream that stays open
 * uses it to stop when its owner stops, and to know when the server answered.
 */
typedef bool (*net_wait_fn)(void *ctx, long status);

/** Masks every secret in text (the result in arena; text itself when it has none). */
typedef const char *(*net_mask_fn)(void *ctx, const char *text, core_arena *arena);

/** One request. Strings are borrowed for the call. */
typedef struct net_request {
    const char *method; /* upper case; NULL = GET */
    const char *url;    /* absolute http(s) URL, percent-encoded */
    const net_header *headers;
    size_t n_headers;
    const char *body; /* NULL when none */
    size_t body_len;
    const char *content_type;   /* of the body */
    const char *const *secrets; /* credential values: masked, dropped on another origin */
    size_t n_secrets;
    net_mask_fn mask; /* NULL: each of secrets replaced by "****" */
    void *mask_ctx;
    net_body_fn on_body; /* NULL: the body is collected into the response */
    void *body_ctx;
    net_wait_fn on_wait; /* NULL: none (a long exchange, such as an event stream, uses it) */
    void *wait_ctx;
    net_session *session; /* NULL: a connection of its own */
} net_request;

/** A response. Everything lives in arena. */
typedef struct net_response {
    long status;
    net_header *headers; /* as received, in order */
    size_t n_headers;
    const char *body; /* NUL-terminated; body_len bytes ("" when on_body took it) */
    size_t body_len;
    bool truncated;        /* the body was cut at max_bytes */
    const char *final_url; /* after redirects, masked */
    unsigned redirects;
    double elapsed_ms;
    core_arena *arena;
} net_response;

/** Why net_send failed (for retry decisions). */
typedef enum net_fail {
    NET_FAIL_NONE = 0,
    NET_FAIL_REFUSED,  /* a rule of the policy (APIDEX_EREFUSED) */
    NET_FAIL_URL,      /* not an absolute URL, or the policy is invalid (APIDEX_EINVAL) */
    NET_FAIL_RESOLVE,  /* the name does not resolve (APIDEX_ENET) */
    NET_FAIL_CONNECT,  /* nothing answers there (APIDEX_ENET) */
    NET_FAIL_TIMEOUT,  /* a deadline passed (APIDEX_ENET) */
    NET_FAIL_TRANSFER, /* the connection broke (APIDEX_ENET) */
    NET_FAIL_SINK,     /* on_body said stop (APIDEX_ENET) */
    NET_FAIL_OTHER,    /* TLS and the rest (APIDEX_ENET) */
    NET_FAIL_NOMEM
} net_fail;

/**
 * Sends r under p (NULL = every default: nothing is allowed) and hands out the final response
 * in *out (net_response_free). Any HTTP status is an answer, not an error. Errors:
 * APIDEX_EREFUSED naming the rule (and, with the hints, how to widen it), APIDEX_ENET for
 * network failures and timeouts, APIDEX_EINVAL for a URL that does not parse or an invalid
 * policy, APIDEX_ENOMEM. *why (may be NULL) says which. Messages hold no secret of r.
 * Thread-safe (a session: one thread at a time).
 */
int net_send(const net_request *r, const net_policy *p, net_response **out, net_fail *why,
             apidex_error *err);
/** Frees a response (its arena). NULL is a no-op. */
void net_response_free(net_response *resp);
/** The value of the first header named name (case-insensitive), or NULL. */
const char *net_response_header(const net_response *resp, const char *name);
/** Retry-After of resp in milliseconds (seconds or an HTTP date), -1 when absent or bad. */
long long net_retry_after_ms(const net_response *resp);
/** Whether a failure of this kind may pass when tried again (timeouts, broken and refused
    connections). */
bool net_fail_transient(net_fail why);

/** A connection kept between requests (one thread at a time). NULL on OOM. */
net_session *net_session_new(void);
void net_session_free(net_session *s);

/* ---------------------------------------------------------------- addresses */

/**
 * Why the address text ip ("10.0.0.1", "::ffff:127.0.0.1", "[::1]") is refused under p
 * (NULL: no address allowed): "loopback", "private", "link-local", "unique-local",
 * "unspecified", "multicast", "reserved", "shared (carrier-grade NAT)", or NULL when it may
 * be connected to. Not an address: "not an IP address".
 */
const char *net_address_refusal(const net_policy *p, const char *ip);
/** Whether s is an IP literal as allowed_addresses takes it (IPv4, IPv6, [IPv6]). */
bool net_address_valid(const char *s);

/** net_resolve's answer when the deadline passed first (EAI_* codes are negative). */
#define NET_RESOLVE_TIMEOUT 1
/**
 * getaddrinfo(host, service, hints) that gives up after timeout_ms: 0 with *res
 * (freeaddrinfo), an EAI_* code, or NET_RESOLVE_TIMEOUT (the lookup is left to finish on its
 * own thread and cleans up after itself). Thread-safe.
 */
int net_resolve(const char *host, const char *service, const struct addrinfo *hints,
                long timeout_ms, struct addrinfo **res);

/* ---------------------------------------------------------------- URLs */

/** Whether url starts with http:// or https:// (any case). */
bool net_url_is_http(const char *url);
/**
 * What is wrong with url as a base URL that paths are appended to (an API server, an LLM or
 * embedding server, a model hub), or NULL: not http(s); a query ('?...') or a fragment
 * ('#...'), which a base URL cannot have (the path appended to it would end up in the query
 * or fragment: such a base URL is refused, never rewritten). Schemes compare
 * case-insensitively ("HTTP://" is http).
 */
const char *net_base_url_problem(const char *url);
/** The host of url (lower case; an IPv6 literal in brackets), malloc'd; NULL when none. */
char *net_url_host(const char *url);
/** rel resolved against base (RFC 3986), malloc'd; NULL when either does not parse. */
char *net_url_join(const char *base, const char *rel);

#endif
