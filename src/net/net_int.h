/* Private to src/net: what addr.c, url.c and send.c share. */
#ifndef APIDEX_NET_INT_H
#define APIDEX_NET_INT_H

#include "net/net.h"

struct sockaddr;

/** Why the socket address sa is refused under p (addresses only: allow_private and
    allowed_addresses), or NULL. */
const char *net_sockaddr_refusal(const net_policy *p, const struct sockaddr *sa);
/** sa's address as text into out; false when not IPv4/IPv6. */
bool net_sockaddr_text(const struct sockaddr *sa, char *out, size_t cap);
/** host without the brackets of an IPv6 literal, into out. */
void net_host_bare(const char *host, char *out, size_t cap);

/** An origin: scheme (lower case), host (lower case, IPv6 without brackets), port. */
typedef struct net_origin {
    char scheme[8];
    char host[256];
    long port;
} net_origin;

/** Parses the origin of url (scheme://host[:port]; a path is ignored): 0, or -1 when url is not
    an absolute http(s) URL with a host. */
int net_origin_of(const char *url, net_origin *o);
bool net_origin_equal(const net_origin *a, const net_origin *b);
/** Whether host (as in a URL: IPv6 in brackets or not) is in p's allowed_hosts ("*" too). */
bool net_host_listed(const net_policy *p, const char *host);
/** Whether o is one of p's allowed_origins. */
bool net_origin_listed(const net_policy *p, const net_origin *o);

/** libcurl's global set-up, once (0, or -1 when it failed). */
int net_curl_init(void);

#endif
