/*
 * --listen HOST:PORT for the servers apidex starts (serve, mock): a numeric IPv4 address,
 * [IPv6] or localhost (and an empty host: 127.0.0.1), into a socket address, and whether it
 * is a loopback one (the servers refuse other addresses unless told otherwise).
 */
#include "core/core.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

int core_listen_parse(const char *listen, struct sockaddr_storage *ss, size_t *len, bool *loopback,
                      apidex_error *err)
{
    const char *colon = strrchr(listen, ':');
    if (!colon)
        return core_error_set(err, APIDEX_EINVAL, "--listen wants HOST:PORT, got '%s'", listen);
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || end == colon + 1 || port < 0 || port > 65535)
        return core_error_set(err, APIDEX_EINVAL, "bad port in --listen '%s'", listen);
    char host[64];
    size_t hn = (size_t)(colon - listen);
    if (hn >= sizeof host)
        return core_error_set(err, APIDEX_EINVAL, "bad host in --listen '%s'", listen);
    memcpy(host, listen, hn);
    host[hn] = '\0';
    if (!hn || !strcmp(host, "localhost")) snprintf(host, sizeof host, "127.0.0.1");
    memset(ss, 0, sizeof *ss);
    if (host[0] == '[' && hn >= 2 && host[hn - 1] == ']') {
        host[hn - 1] = '\0';
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1)
            return core_error_set(err, APIDEX_EINVAL, "bad IPv6 address in --listen '%s'", listen);
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        *len = sizeof *s6;
        *loopback = IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
        return 0;
    }
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
        return core_error_set(err, APIDEX_EINVAL,
                              "bad address in --listen '%s' (numeric IPv4, [IPv6] or localhost)",
                              listen);
    s4->sin_family = AF_INET;
    s4->sin_port = htons((uint16_t)port);
    *len = sizeof *s4;
    *loopback = (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
    return 0;
}
