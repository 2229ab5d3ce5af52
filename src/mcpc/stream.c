/* The GET event stream of a Streamable HTTP server kept open (serve --watch): the one way
   such a server can send notifications/tools/list_changed on its own. A thread holds the
   stream open through net_send (the same origin, headers and rules as the session's POSTs),
   reads it with the bounded parser of sse.c, and tells the watcher by flags and a byte on a
   pipe; the watcher's thread does every POST (listen.c), so a session is never used by two
   threads. It reconnects with backoff when the stream drops (Last-Event-ID when the server
   numbered its events), asks for a new session when the server forgot this one (404), and
   for a server that offers no stream (405) says so once and asks for a re-read every
   $APIDEX_MCP_POLL_MS (60 s) instead. */
#include "mcpc/mcpc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
    STREAM_EVENT_MAX = 1 << 20,            /* bytes of one event: a notification is tiny */
    STREAM_CONNECTION_MS = 10 * 60 * 1000, /* one GET at most; then it is opened again */
    STREAM_CONNECTION_BYTES = MCPC_MAX_TOTAL,
    STREAM_BACKOFF_FIRST_MS = 1000,
    STREAM_BACKOFF_MAX_MS = 30000,
    STREAM_STABLE_MS = 60000, /* a stream open this long resets the backoff */
    STREAM_POLL_MS = 60000,   /* a server without a stream: re-read this often */
    STREAM_NOTES_MAX = 4096   /* bytes of log lines waiting for the watcher */
};

struct mcpc_stream {
    const mcpc_server *srv;
    const char *label;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int pipe[2];
    long poll_ms;
    /* under lock */
    bool stop;
    char *sid, *pv;
    unsigned gen; /* a new session (resume) */
    unsigned flags;
    core_buf notes;
    /* the thread's own */
    mcpc_sse sse;
    long status;    /* of the response being read */
    bool connected; /* this GET was answered 200 */
};

static void raise_news(mcpc_stream *st, unsigned flags, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Flags and a line for the log (fmt may be NULL), and the watcher woken. */
static void raise_news(mcpc_stream *st, unsigned flags, const char *fmt, ...)
{
    pthread_mutex_lock(&st->lock);
    st->flags |= flags;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        char line[512];
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        if (st->notes.len + strlen(line) + 2 < STREAM_NOTES_MAX) {
            core_buf_puts(&st->notes, line);
            core_buf_putc(&st->notes, '\n');
        }
    }
    pthread_mutex_unlock(&st->lock);
    ssize_t w = write(st->pipe[1], "x", 1); /* full (EAGAIN): the watcher is woken already */
    (void)w;
}

static bool stopping(mcpc_stream *st)
{
    pthread_mutex_lock(&st->lock);
    bool stop = st->stop;
    pthread_mutex_unlock(&st->lock);
    return stop;
}

/* Waits ms (or until stopped); false when stopped. */
static bool nap(mcpc_stream *st, long ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&st->lock);
    while (!st->stop && pthread_cond_timedwait(&st->wake, &st->lock, &ts) != ETIMEDOUT) {
    }
    bool go = !st->stop;
    pthread_mutex_unlock(&st->lock);
    return go;
}

/* One event of the stream: a message; tools/list_changed is the one that counts (requests
   of the server are not answered here: apidex offers it no client feature). */
static bool on_event(void *ctx, const char *data, size_t len)
{
    mcpc_stream *st = ctx;
    json_object *m = mcpc_json_parse(data, len);
    const char *method = json_object_get_string(json_object_object_get(m, "method"));
    if (json_object_is_type(m, json_type_object) && method &&
        !strcmp(method, "notifications/tools/list_changed"))
        raise_news(st, MCPC_STREAM_RELIST, NULL);
    json_object_put(m);
    return true;
}

static bool on_body(void *ctx, long status, const char *content_type, const char *data, size_t n)
{
    (void)content_type;
    mcpc_stream *st = ctx;
    st->status = status;
    if (status != 200) return false; /* an error's body is not read: its status says it */
    return mcpc_sse_feed(&st->sse, data, n, on_event, st) && !stopping(st);
}

static bool on_wait(void *ctx, long status)
{
    mcpc_stream *st = ctx;
    if (status) st->status = status;
    if (status == 200 && !st->connected) {
        st->connected = true;
        /* what changed while no stream was open is read now */
        raise_news(st, MCPC_STREAM_RELIST, "server '%s': event stream open", st->label);
    }
    return !stopping(st);
}

/* One GET of the stream, until it ends; the status it was answered (0: none), *why and
   reason (a message without secrets) when it failed. */
static long open_once(mcpc_stream *st, char *reason, size_t reason_cap)
{
    pthread_mutex_lock(&st->lock);
    char *sid = st->sid ? strdup(st->sid) : NULL, *pv = st->pv ? strdup(st->pv) : NULL;
    pthread_mutex_unlock(&st->lock);
    net_header first[4];
    size_t nf = 0;
    first[nf++] = (net_header){"Accept", "text/event-stream", false};
    if (sid) first[nf++] = (net_header){"Mcp-Session-Id", sid, false};
    if (pv) first[nf++] = (net_header){"MCP-Protocol-Version", pv, false};
    if (st->sse.last_id[0]) first[nf++] = (net_header){"Last-Event-ID", st->sse.last_id, false};
    st->status = 0;
    st->connected = false;
    mcpc_sse_restart(&st->sse);
    mcpc_http_parts x;
    long status = 0;
    snprintf(reason, reason_cap, "out of memory");
    if (!mcpc_http_parts_init(&x, st->srv, NULL, first, nf)) {
        x.p.timeout_ms = STREAM_CONNECTION_MS;
        x.p.max_bytes = STREAM_CONNECTION_BYTES;
        net_request r = {.method = "GET",
                         .url = st->srv->url,
                         .headers = x.h,
                         .n_headers = x.nh,
                         .secrets = x.secrets,
                         .n_secrets = x.ns,
                         .on_body = on_body,
                         .body_ctx = st,
                         .on_wait = on_wait,
                         .wait_ctx = st};
        net_response *resp = NULL;
        apidex_error nerr;
        core_error_clear(&nerr);
        int rc = net_send(&r, &x.p, &resp, NULL, &nerr);
        status = resp ? resp->status : st->status;
        if (status != 200 && status)
            snprintf(reason, reason_cap, "HTTP %ld", status);
        else if (rc)
            snprintf(reason, reason_cap, "%.250s", nerr.message);
        else
            snprintf(reason, reason_cap, "%s", resp && resp->truncated ? "size limit" : "ended");
        net_response_free(resp);
        mcpc_http_parts_free(&x);
    }
    free(sid);
    free(pv);
    return status;
}

static void *run(void *arg)
{
    mcpc_stream *st = arg;
    long backoff = STREAM_BACKOFF_FIRST_MS;
    bool said_failing = false;
    while (!stopping(st)) {
        pthread_mutex_lock(&st->lock);
        unsigned gen = st->gen;
        bool had_session = st->sid != NULL;
        pthread_mutex_unlock(&st->lock);
        char reason[300];
        long long t0 = mcpc_now_ms();
        long status = open_once(st, reason, sizeof reason);
        long long lasted = mcpc_now_ms() - t0;
        if (stopping(st)) break;
        if (status == 405) {
            raise_news(st, 0,
                       "server '%s' offers no event stream (HTTP 405): its tools are read "
                       "again every %g s",
                       st->label, (double)st->poll_ms / 1000.0);
            while (nap(st, st->poll_ms)) raise_news(st, MCPC_STREAM_RELIST, NULL);
            break;
        }
        if ((status == 404 || status == 400) && had_session) {
            /* the server forgot the session: the watcher starts a new one, then resume */
            raise_news(st, MCPC_STREAM_GONE, "server '%s' ended its session: starting a new one",
                       st->label);
            pthread_mutex_lock(&st->lock);
            while (!st->stop && st->gen == gen) pthread_cond_wait(&st->wake, &st->lock);
            pthread_mutex_unlock(&st->lock);
            backoff = STREAM_BACKOFF_FIRST_MS;
            continue;
        }
        long delay = backoff;
        if (st->connected) {
            said_failing = false;
            if (lasted >= STREAM_STABLE_MS) delay = backoff = STREAM_BACKOFF_FIRST_MS;
            if (lasted < STREAM_CONNECTION_MS - 1000)
                raise_news(st, 0, "server '%s': event stream closed (%s); opening it again",
                           st->label, reason);
        } else if (!said_failing) {
            said_failing = true;
            raise_news(st, 0,
                       "server '%s': cannot open its event stream (%s); trying again (at most "
                       "every %d s)",
                       st->label, reason, STREAM_BACKOFF_MAX_MS / 1000);
        }
        if (st->sse.retry_ms > delay)
            delay =
                st->sse.retry_ms < STREAM_BACKOFF_MAX_MS ? st->sse.retry_ms : STREAM_BACKOFF_MAX_MS;
        if (!(st->connected && lasted >= STREAM_STABLE_MS))
            backoff = backoff * 2 < STREAM_BACKOFF_MAX_MS ? backoff * 2 : STREAM_BACKOFF_MAX_MS;
        if (!nap(st, delay)) break;
    }
    return NULL;
}

int mcpc_stream_start(const mcpc_server *srv, const char *label, const char *session_id,
                      const char *protocol_version, mcpc_stream **out)
{
    *out = NULL;
    mcpc_stream *st = calloc(1, sizeof *st);
    if (!st) return APIDEX_ENOMEM;
    st->srv = srv;
    st->label = label;
    st->poll_ms = mcpc_env_long("APIDEX_MCP_POLL_MS", STREAM_POLL_MS);
    st->pipe[0] = st->pipe[1] = -1;
    st->sid = session_id ? strdup(session_id) : NULL;
    st->pv = protocol_version ? strdup(protocol_version) : NULL;
    core_buf_init(&st->notes, STREAM_NOTES_MAX);
    mcpc_sse_init(&st->sse, STREAM_EVENT_MAX);
    pthread_mutex_init(&st->lock, NULL);
    pthread_cond_init(&st->wake, NULL);
    int rc = (session_id && !st->sid) || (protocol_version && !st->pv) ? APIDEX_ENOMEM : 0;
    if (!rc && (core_sys_pipe_cloexec(st->pipe) || fcntl(st->pipe[0], F_SETFL, O_NONBLOCK) ||
                fcntl(st->pipe[1], F_SETFL, O_NONBLOCK)))
        rc = APIDEX_EIO;
    if (!rc && pthread_create(&st->thread, NULL, run, st)) rc = APIDEX_EIO;
    if (rc) {
        for (int i = 0; i < 2; i++)
            if (st->pipe[i] >= 0) close(st->pipe[i]);
        pthread_cond_destroy(&st->wake);
        pthread_mutex_destroy(&st->lock);
        mcpc_sse_free(&st->sse);
        core_buf_free(&st->notes);
        free(st->sid), free(st->pv), free(st);
        return rc;
    }
    *out = st;
    return 0;
}

int mcpc_stream_fd(const mcpc_stream *st)
{
    return st->pipe[0];
}

unsigned mcpc_stream_take(mcpc_stream *st, core_buf *notes)
{
    char b[64];
    while (read(st->pipe[0], b, sizeof b) > 0) {
    }
    pthread_mutex_lock(&st->lock);
    unsigned f = st->flags;
    st->flags = 0;
    if (notes && st->notes.len) core_buf_append(notes, st->notes.data, st->notes.len);
    core_buf_reset(&st->notes);
    pthread_mutex_unlock(&st->lock);
    return f;
}

void mcpc_stream_resume(mcpc_stream *st, const char *session_id, const char *protocol_version)
{
    pthread_mutex_lock(&st->lock);
    free(st->sid), free(st->pv);
    st->sid = session_id ? strdup(session_id) : NULL;
    st->pv = protocol_version ? strdup(protocol_version) : NULL;
    st->gen++;
    pthread_cond_broadcast(&st->wake);
    pthread_mutex_unlock(&st->lock);
}

void mcpc_stream_stop(mcpc_stream *st)
{
    if (!st) return;
    pthread_mutex_lock(&st->lock);
    st->stop = true;
    pthread_cond_broadcast(&st->wake);
    pthread_mutex_unlock(&st->lock);
    pthread_join(st->thread, NULL);
    close(st->pipe[0]);
    close(st->pipe[1]);
    pthread_cond_destroy(&st->wake);
    pthread_mutex_destroy(&st->lock);
    mcpc_sse_free(&st->sse);
    core_buf_free(&st->notes);
    free(st->sid), free(st->pv), free(st);
}
