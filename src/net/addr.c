/*
 * Addresses: which ones are never connected to by default (loopback, private, link-local,
 * unique-local, unspecified, multicast, reserved, carrier-grade NAT, and the IPv6 forms that
 * carry such an IPv4 address), and the policy's exceptions (allow_private, allowed_addresses).
 */
#include "net/net_int.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

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

bool net_sockaddr_text(const struct sockaddr *sa, char *out, size_t cap)
{
    if (sa->sa_family == AF_INET)
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out,
                         (socklen_t)cap) != NULL;
    if (sa->sa_family == AF_INET6)
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out,
                         (socklen_t)cap) != NULL;
    return false;
}

void net_host_bare(const char *host, char *out, size_t cap)
{
    size_t n = strlen(host);
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
        host++;
        n -= 2;
    }
    snprintf(out, cap, "%.*s", (int)n, host);
}

/* An IP literal (IPv4, IPv6, or IPv6 in brackets) as family and bytes. */
static bool parse_literal(const char *s, int *family, unsigned char bin[16])
{
    char bare[INET6_ADDRSTRLEN + 2];
    if (!s || strlen(s) >= sizeof bare) return false;
    net_host_bare(s, bare, sizeof bare);
    bool bracketed = s[0] == '[';
    if (!bracketed && inet_pton(AF_INET, bare, bin) == 1) {
        *family = AF_INET;
        return true;
    }
    if (inet_pton(AF_INET6, bare, bin) == 1) {
        *family = AF_INET6;
        return true;
    }
    return false;
}

bool net_address_valid(const char *s)
{
    int family;
    unsigned char bin[16];
    return parse_literal(s, &family, bin);
}

/* Whether the address (family, bin) is one of p's allowed_addresses (compared as bytes). */
static bool addr_listed(const net_policy *p, int family, const void *bin)
{
    for (size_t i = 0; i < p->n_allowed_addresses; i++) {
        int f;
        unsigned char other[16];
        if (parse_literal(p->allowed_addresses[i], &f, other) && f == family &&
            !memcmp(other, bin, family == AF_INET ? 4 : 16))
            return true;
    }
    return false;
}

const char *net_sockaddr_refusal(const net_policy *p, const struct sockaddr *sa)
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

const char *net_address_refusal(const net_policy *p, const char *ip)
{
    static const net_policy none;
    if (!p) p = &none;
    int family;
    unsigned char bin[16];
    if (!parse_literal(ip, &family, bin)) return "not an IP address";
    if (family == AF_INET) {
        struct sockaddr_in v4 = {.sin_family = AF_INET};
        memcpy(&v4.sin_addr, bin, 4);
        return net_sockaddr_refusal(p, (struct sockaddr *)&v4);
    }
    struct sockaddr_in6 v6 = {.sin6_family = AF_INET6};
    memcpy(&v6.sin6_addr, bin, 16);
    return net_sockaddr_refusal(p, (struct sockaddr *)&v6);
}
