/*
 * The header deadline of the HTTP server: a connection must deliver its request
 * headers within header_timeout_s of opening (or, kept alive, of its previous answer),
 * however it trickles them. libmicrohttpd only has an inactivity timeout, which a
 * client sending one byte a second never trips; so each connection is tracked here
 * from the library's connection notifications, and a watchdog thread shuts down the
 * socket of one whose headers are late (the library then sees the end of the stream
 * and closes the connection on its own thread).
 *
 * Why shutting down from another thread is safe: the library calls the "closed"
 * notification before it closes the socket, and that notification takes the same
 * lock as the watchdog, so the watchdog only ever touches a socket that is still
 * the connection's (never a number reused by a newer one). shutdown() does not free
 * the descriptor; the library's worker thread remains the only one to close it.
 */
#include "serve/serve_int.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

typedef struct guarded {
    int fd;
    double since;      /* accepted, or the previous answer completed */
    bool headers_done; /* the access handler has been called for the current request */
    bool cut;          /* shut down once already */
    struct guarded *prev, *next;
} guarded;

struct serve_guard {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    guarded *head;
    double header_timeout_s;
    bool stopping;
    pthread_t thread;
};

static void *guard_watch(void *arg)
{
    serve_guard *g = arg;
    /* a quarter of the deadline, within [50 ms, 1 s]: a late connection goes within
       a quarter more than its deadline */
    double tick = g->header_timeout_s / 4;
    if (tick < 0.05) tick = 0.05;
    if (tick > 1.0) tick = 1.0;
    pthread_mutex_lock(&g->lock);
    while (!g->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        long ns = until.tv_nsec + (long)(tick * 1e9);
        until.tv_sec += ns / 1000000000L;
        until.tv_nsec = ns % 1000000000L;
        pthread_cond_timedwait(&g->wake, &g->lock, &until);
        if (g->stopping) break;
        double now = core_now();
        for (guarded *c = g->head; c; c = c->next) {
            if (c->headers_done || c->cut || now - c->since <= g->header_timeout_s) continue;
            shutdown(c->fd, SHUT_RDWR);
            c->cut = true;
        }
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

int serve_guard_new(double header_timeout_s, serve_guard **out)
{
    *out = NULL;
    serve_guard *g = calloc(1, sizeof *g);
    if (!g) return APIDEX_ENOMEM;
    g->header_timeout_s = header_timeout_s;
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->wake, NULL);
    if (pthread_create(&g->thread, NULL, guard_watch, g) != 0) {
        pthread_mutex_destroy(&g->lock);
        pthread_cond_destroy(&g->wake);
        free(g);
        return APIDEX_ENOMEM;
    }
    *out = g;
    return 0;
}

void serve_guard_free(serve_guard *g)
{
    if (!g) return;
    pthread_mutex_lock(&g->lock);
    g->stopping = true;
    pthread_cond_broadcast(&g->wake);
    pthread_mutex_unlock(&g->lock);
    pthread_join(g->thread, NULL);
    /* the library has closed every connection by now (MHD_stop_daemon came first) */
    while (g->head) {
        guarded *c = g->head;
        g->head = c->next;
        free(c);
    }
    pthread_mutex_destroy(&g->lock);
    pthread_cond_destroy(&g->wake);
    free(g);
}

void serve_guard_opened(serve_guard *g, struct MHD_Connection *conn, void **socket_context)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    guarded *c = ci ? calloc(1, sizeof *c) : NULL;
    *socket_context = c;
    if (!c) return; /* untracked: only the inactivity timeout applies to it */
    c->fd = ci->connect_fd;
    c->since = core_now();
    pthread_mutex_lock(&g->lock);
    c->next = g->head;
    if (g->head) g->head->prev = c;
    g->head = c;
    pthread_mutex_unlock(&g->lock);
}

void serve_guard_closed(serve_guard *g, void **socket_context)
{
    guarded *c = *socket_context;
    if (!c) return;
    pthread_mutex_lock(&g->lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        g->head = c->next;
    if (c->next) c->next->prev = c->prev;
    pthread_mutex_unlock(&g->lock);
    free(c);
    *socket_context = NULL;
}

static guarded *guarded_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

bool serve_guard_headers_done(serve_guard *g, struct MHD_Connection *conn)
{
    guarded *c = guarded_of(conn);
    if (!c) return true;
    pthread_mutex_lock(&g->lock);
    bool in_time = !c->cut;
    c->headers_done = true;
    pthread_mutex_unlock(&g->lock);
    return in_time;
}

void serve_guard_request_done(serve_guard *g, struct MHD_Connection *conn)
{
    guarded *c = guarded_of(conn);
    if (!c) return;
    pthread_mutex_lock(&g->lock);
    c->headers_done = false; /* a kept-alive connection's next request starts its clock */
    c->since = core_now();
    pthread_mutex_unlock(&g->lock);
}
