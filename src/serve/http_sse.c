/*
 * The subscriptions/listen answers of the HTTP server: each an SSE stream that
 * stays open, fed by one watcher thread (change notifications after an index
 * rebuild, keep-alive comments). The content reader suspends its connection when
 * it has nothing to send; the watcher queues events and resumes it.
 */
#include "serve/serve_int.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct sse_stream sse_stream;

struct serve_sse {
    serve_db *db;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    sse_stream *streams;
    pthread_t watcher;
    bool watcher_running, stopping;
    double keepalive_s;
};

/* One open subscriptions/listen answer. */
struct sse_stream {
    serve_sse *x;
    struct MHD_Connection *conn;
    mcp_listen *listen;
    core_buf pending;
    bool suspended, ending;
    sse_stream *next;
};

/* Appends JSON lines (joined by '\n') as SSE events. Call with the lock held. */
static void sse_queue(sse_stream *s, const char *lines, size_t len)
{
    const char *p = lines, *end = lines + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        core_buf_puts(&s->pending, "data: ");
        core_buf_append(&s->pending, p, n);
        core_buf_puts(&s->pending, "\n\n");
        p += n + (nl ? 1 : 0);
    }
}

/* Call with the lock held. */
static void sse_resume(sse_stream *s)
{
    if (!s->suspended) return;
    s->suspended = false;
    MHD_resume_connection(s->conn);
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    sse_stream *s = cls;
    pthread_mutex_lock(&s->x->lock);
    ssize_t n = 0;
    if (s->pending.len) {
        size_t take = s->pending.len < max ? s->pending.len : max;
        memcpy(buf, s->pending.data, take);
        memmove(s->pending.data, s->pending.data + take, s->pending.len - take);
        s->pending.len -= take;
        s->pending.data[s->pending.len] = '\0';
        n = (ssize_t)take;
    } else if (s->ending || s->pending.failed) {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        /* nothing to say: park the connection until the watcher has something */
        MHD_suspend_connection(s->conn);
        s->suspended = true;
    }
    pthread_mutex_unlock(&s->x->lock);
    return n;
}

static void sse_free(void *cls)
{
    sse_stream *s = cls;
    serve_sse *h = s->x;
    pthread_mutex_lock(&h->lock);
    for (sse_stream **pp = &h->streams; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    pthread_cond_broadcast(&h->wake);
    pthread_mutex_unlock(&h->lock);
    core_buf_free(&s->pending);
    mcp_listen_free(s->listen);
    free(s);
}

struct MHD_Response *serve_sse_open(serve_sse *x, struct MHD_Connection *conn, mcp_listen *listen,
                                    char *ack, size_t ack_len)
{
    sse_stream *s = calloc(1, sizeof *s);
    if (!s) {
        mcp_listen_free(listen);
        free(ack);
        return NULL;
    }
    s->x = x;
    s->conn = conn;
    s->listen = listen;
    core_buf_init(&s->pending, 8 << 20);
    sse_queue(s, ack, ack_len); /* the acknowledgement comes first */
    free(ack);
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, sse_read, s, sse_free);
    if (!r) {
        core_buf_free(&s->pending);
        mcp_listen_free(s->listen);
        free(s);
        return NULL;
    }
    pthread_mutex_lock(&x->lock);
    s->next = x->streams;
    x->streams = s;
    pthread_mutex_unlock(&x->lock);
    return r;
}

/* Feeds the streams: change notifications after an index rebuild, keep-alive
   comments so that idle streams survive proxies and reveal gone clients. */
static void *sse_watch(void *arg)
{
    serve_sse *h = arg;
    uint64_t build_seen = 0;
    double last_keepalive = core_now();
    pthread_mutex_lock(&h->lock);
    while (!h->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&h->wake, &h->lock, &until);
        if (h->stopping) break;
        pthread_mutex_unlock(&h->lock);
        serve_snapshot *snap = serve_db_acquire(h->db); /* also looks for a rebuilt file */
        uint64_t build = serve_snapshot_info(snap)->build_id;
        serve_snapshot_release(snap);
        pthread_mutex_lock(&h->lock);
        bool changed = build_seen && build != build_seen;
        build_seen = build;
        bool keepalive = core_now() - last_keepalive >= h->keepalive_s;
        if (keepalive) last_keepalive = core_now();
        for (sse_stream *s = h->streams; s; s = s->next) {
            if (changed) {
                size_t n = 0;
                char *lines = mcp_listen_changes(s->listen, &n);
                if (lines) sse_queue(s, lines, n);
                free(lines);
            }
            if (keepalive) core_buf_puts(&s->pending, ":\n\n");
            if (s->pending.len) sse_resume(s);
        }
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* Server shutdown: each stream gets its SubscriptionsListenResult and ends. */
void serve_sse_close_all(serve_sse *h)
{
    pthread_mutex_lock(&h->lock);
    h->stopping = true;
    pthread_cond_broadcast(&h->wake);
    for (sse_stream *s = h->streams; s; s = s->next) {
        size_t n = 0;
        char *last = mcp_listen_close(s->listen, &n);
        if (last) sse_queue(s, last, n);
        free(last);
        s->ending = true;
        sse_resume(s);
    }
    /* let the library flush them (bounded: a client that reads nothing is cut off) */
    for (int i = 0; i < 100 && h->streams; i++) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 20 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&h->wake, &h->lock, &until);
    }
    pthread_mutex_unlock(&h->lock);
    if (h->watcher_running) pthread_join(h->watcher, NULL);
    h->watcher_running = false;
}

int serve_sse_new(serve_db *db, double keepalive_s, serve_sse **out)
{
    *out = NULL;
    serve_sse *x = calloc(1, sizeof *x);
    if (!x) return APIDEX_ENOMEM;
    x->db = db;
    x->keepalive_s = keepalive_s;
    pthread_mutex_init(&x->lock, NULL);
    pthread_cond_init(&x->wake, NULL);
    if (pthread_create(&x->watcher, NULL, sse_watch, x) != 0) {
        serve_sse_free(x);
        return APIDEX_ENOMEM;
    }
    x->watcher_running = true;
    *out = x;
    return 0;
}

void serve_sse_free(serve_sse *x)
{
    if (!x) return;
    if (x->watcher_running) serve_sse_close_all(x);
    pthread_mutex_destroy(&x->lock);
    pthread_cond_destroy(&x->wake);
    free(x);
}
