/* A real HTTP server on 127.0.0.1 for the exec tests (libmicrohttpd, a thread per connection):
   each request reaches the test's handler once, with its body (up to 4 KiB) collected.
   Header-only: each test_exec_*.c is its own program. */
#ifndef APIDEX_EXEC_TESTSERVER_H
#define APIDEX_EXEC_TESTSERVER_H

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

/** Answers one request; body is NUL-terminated ("" when none). */
typedef enum MHD_Result (*et_handler)(struct MHD_Connection *c, const char *url, const char *method,
                                      const char *body);

static struct MHD_Daemon *et_server;
static int et_port; /* the server's port, once started */
static et_handler et_handle;

typedef struct et_upload {
    char data[4096];
    size_t len;
} et_upload;

static inline enum MHD_Result et_answer(void *cls, struct MHD_Connection *c, const char *url,
                                        const char *method, const char *version, const char *data,
                                        size_t *data_size, void **con_cls)
{
    (void)cls;
    (void)version;
    if (!*con_cls) { /* first call: headers only */
        *con_cls = calloc(1, sizeof(et_upload));
        return *con_cls ? MHD_YES : MHD_NO;
    }
    et_upload *u = *con_cls;
    if (*data_size) {
        size_t n = *data_size < sizeof u->data - 1 - u->len ? *data_size : 0;
        memcpy(u->data + u->len, data, n);
        u->len += n;
        *data_size = 0;
        return MHD_YES;
    }
    return et_handle(c, url, method, u->data);
}

static inline void et_done(void *cls, struct MHD_Connection *c, void **con_cls,
                           enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    free(*con_cls);
    *con_cls = NULL;
}

/** Starts the server on 127.0.0.1 and a free port (et_port) with handler h: 0 or -1. */
static inline int et_start(et_handler h)
{
    et_handle = h;
    struct sockaddr_in addr = {.sin_family = AF_INET};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    et_server = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0,
                                 NULL, NULL, et_answer, NULL, MHD_OPTION_SOCK_ADDR, &addr,
                                 MHD_OPTION_NOTIFY_COMPLETED, et_done, NULL, MHD_OPTION_END);
    if (!et_server) return -1;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(et_server, MHD_DAEMON_INFO_BIND_PORT);
    et_port = info ? info->port : 0;
    return et_port ? 0 : -1;
}

/** Stops the server (finishing requests in flight). */
static inline void et_stop(void)
{
    MHD_stop_daemon(et_server);
    et_server = NULL;
}

#endif /* APIDEX_EXEC_TESTSERVER_H */
