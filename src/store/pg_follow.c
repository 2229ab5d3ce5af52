/*
 * Following the published generation (apidex serve and mcp on a server database): one
 * thread holds a connection that LISTENs on apidex_generation, reads apidex.current after
 * every notification and at least every poll_s seconds (the fallback when a notification
 * is lost, or a pooler drops LISTEN), and hands the generation to the caller, who reloads
 * when it differs from the one it serves. When the connection is lost the caller keeps
 * serving what it has; the thread reconnects with backoff (0.5 s doubling to 30 s).
 */
#include "store/pg_int.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct store_follow {
    char *url;
    char display[1024];
    double poll_s;
    void (*on_tick)(void *ctx, long long generation);
    void *ctx;
    int stop[2];
    pthread_t thread;
    pthread_mutex_t lock; /* guards status */
    store_follow_status status;
};

static void set_status(store_follow *f, bool connected, const char *error)
{
    pthread_mutex_lock(&f->lock);
    f->status.connected = connected;
    size_t n = error ? strnlen(error, sizeof f->status.error - 1) : 0;
    memcpy(f->status.error, error ? error : "", n);
    f->status.error[n] = '\0';
    pthread_mutex_unlock(&f->lock);
}

/* Waits up to seconds for fd (or -1: none) or the stop pipe; true when asked to stop. */
static bool wait_for(store_follow *f, int fd, double seconds)
{
    struct pollfd p[2] = {{.fd = f->stop[0], .events = POLLIN}, {.fd = fd, .events = POLLIN}};
    int n = poll(p, fd >= 0 ? 2 : 1, (int)(seconds * 1000));
    return n > 0 && (p[0].revents & POLLIN);
}

/* Reads the current generation and tells the caller. false: the connection failed. */
static bool tick(store_follow *f, PGconn *c)
{
    apidex_error err;
    core_error_clear(&err);
    store_pg_current cur;
    if (store_pg_current_read(c, f->display, &cur, &err)) {
        set_status(f, PQstatus(c) == CONNECTION_OK, err.message);
        return PQstatus(c) == CONNECTION_OK;
    }
    pthread_mutex_lock(&f->lock);
    f->status.generation = cur.generation;
    pthread_mutex_unlock(&f->lock);
    if (cur.generation) f->on_tick(f->ctx, cur.generation);
    return true;
}

/* One connected session: LISTEN, then notifications and polls until it breaks (false)
   or the follower is stopped (true). */
static bool session(store_follow *f, PGconn *c)
{
    apidex_error err;
    core_error_clear(&err);
    if (store_pg_exec(c, "LISTEN " STORE_PG_CHANNEL, f->display, &err)) {
        set_status(f, false, err.message);
        return false;
    }
    set_status(f, true, NULL);
    if (!tick(f, c)) return false;
    double next_poll = core_now() + f->poll_s;
    for (;;) {
        double wait = next_poll - core_now();
        if (wait < 0) wait = 0;
        if (wait_for(f, PQsocket(c), wait)) return true;
        if (!PQconsumeInput(c)) {
            set_status(f, false, PQerrorMessage(c));
            return false;
        }
        bool heard = false;
        for (PGnotify *n; (n = PQnotifies(c)) != NULL; PQfreemem(n)) heard = true;
        if (heard) {
            pthread_mutex_lock(&f->lock);
            f->status.notifications++;
            pthread_mutex_unlock(&f->lock);
        }
        if (heard || core_now() >= next_poll) {
            if (!tick(f, c)) return false;
            next_poll = core_now() + f->poll_s;
        }
    }
}

static void *follow_thread(void *arg)
{
    store_follow *f = arg;
    double backoff = 0.5;
    for (bool first = true;; first = false) {
        PGconn *c = NULL;
        apidex_error err;
        core_error_clear(&err);
        if (store_pg_connect(f->url, f->display, &c, &err) == 0) {
            if (!first) {
                pthread_mutex_lock(&f->lock);
                f->status.reconnects++;
                pthread_mutex_unlock(&f->lock);
            }
            backoff = 0.5;
            bool stop = session(f, c);
            PQfinish(c);
            if (stop) return NULL;
            /* reconnect at once after a session that worked; back off if that fails */
            continue;
        }
        set_status(f, false, err.message);
        if (wait_for(f, -1, backoff)) return NULL;
        backoff = backoff * 2 > 30 ? 30 : backoff * 2;
    }
}

int store_follow_start(const char *url, double poll_s,
                       void (*on_tick)(void *ctx, long long generation), void *ctx,
                       store_follow **out, apidex_error *err)
{
    *out = NULL;
    store_follow *f = calloc(1, sizeof *f);
    if (!f || !(f->url = strdup(url))) {
        free(f);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    store_display(url, f->display, sizeof f->display);
    f->poll_s = poll_s > 0 ? poll_s : 5;
    f->on_tick = on_tick;
    f->ctx = ctx;
    pthread_mutex_init(&f->lock, NULL);
    if (core_sys_pipe_cloexec(f->stop) != 0) {
        core_error_set(err, APIDEX_EIO, "cannot start following %s", f->display);
        pthread_mutex_destroy(&f->lock);
        free(f->url);
        free(f);
        return APIDEX_EIO;
    }
    if (pthread_create(&f->thread, NULL, follow_thread, f) != 0) {
        close(f->stop[0]);
        close(f->stop[1]);
        pthread_mutex_destroy(&f->lock);
        free(f->url);
        free(f);
        return core_error_set(err, APIDEX_EIO, "cannot start a thread to follow the index");
    }
    *out = f;
    return 0;
}

void store_follow_get(store_follow *f, store_follow_status *out)
{
    pthread_mutex_lock(&f->lock);
    *out = f->status;
    pthread_mutex_unlock(&f->lock);
}

void store_follow_stop(store_follow *f)
{
    if (!f) return;
    ssize_t w = write(f->stop[1], "x", 1);
    (void)w;
    pthread_join(f->thread, NULL);
    close(f->stop[0]);
    close(f->stop[1]);
    pthread_mutex_destroy(&f->lock);
    free(f->url);
    free(f);
}
