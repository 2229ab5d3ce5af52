/*
 * Name resolution with a deadline: getaddrinfo blocks for as long as the resolver likes (a
 * dead DNS server: tens of seconds), past any timeout the caller was promised. The lookup
 * runs on another thread and we wait for it until the deadline: glibc's getaddrinfo_a where
 * there is one, else (other systems, and a build with APIDEX_PORTABLE_ONLY) getaddrinfo on a
 * detached thread of our own. A lookup still running then cannot be stopped, so its state
 * lives on the heap, owned by the caller and by the lookup's thread together: whichever lets
 * go last frees it.
 */
#include "net/net.h"

#include <netdb.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GLIBC__) && !defined(APIDEX_PORTABLE_ONLY)
#define RESOLVE_GAI_A 1
#include <signal.h>
#else
#define RESOLVE_GAI_A 0
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#endif

typedef struct lookup {
#if RESOLVE_GAI_A
    struct gaicb cb;
#else
    pthread_mutex_t mu;
    pthread_cond_t done_cv;
    bool done;               /* under mu */
    int rc;                  /* getaddrinfo's answer, once done */
    struct addrinfo *result; /* owned here until the caller takes it */
    size_t service_at;       /* offset of the service in names */
#endif
    struct addrinfo hints;
    atomic_int owners; /* the caller and the lookup's thread (or notification) */
    char names[];      /* host, then service */
} lookup;

static void lookup_release(lookup *l)
{
    if (atomic_fetch_sub(&l->owners, 1) != 1) return;
#if RESOLVE_GAI_A
    if (l->cb.ar_result) freeaddrinfo(l->cb.ar_result);
#else
    if (l->result) freeaddrinfo(l->result);
    pthread_cond_destroy(&l->done_cv);
    pthread_mutex_destroy(&l->mu);
#endif
    free(l);
}

static lookup *lookup_new(const char *host, const char *service, const struct addrinfo *hints)
{
    size_t hn = strlen(host) + 1, sn = strlen(service) + 1;
    lookup *l = calloc(1, sizeof *l + hn + sn);
    if (!l) return NULL;
    memcpy(l->names, host, hn);
    memcpy(l->names + hn, service, sn);
    l->hints = *hints;
    atomic_init(&l->owners, 2);
#if RESOLVE_GAI_A
    l->cb =
        (struct gaicb){.ar_name = l->names, .ar_service = l->names + hn, .ar_request = &l->hints};
#else
    l->service_at = hn;
#endif
    return l;
}

#if RESOLVE_GAI_A
static void lookup_done(union sigval v)
{
    lookup_release(v.sival_ptr);
}

int net_resolve(const char *host, const char *service, const struct addrinfo *hints,
                long timeout_ms, struct addrinfo **res)
{
    *res = NULL;
    lookup *l = lookup_new(host, service, hints);
    if (!l) return EAI_MEMORY;
    struct sigevent ev = {.sigev_notify = SIGEV_THREAD, .sigev_notify_function = lookup_done};
    ev.sigev_value.sival_ptr = l;
    struct gaicb *list[1] = {&l->cb};
    int rc = getaddrinfo_a(GAI_NOWAIT, list, 1, &ev);
    if (rc) { /* not queued: no notification will come */
        free(l);
        return rc;
    }
    double deadline = core_now() + (double)timeout_ms / 1000.0;
    while ((rc = gai_error(&l->cb)) == EAI_INPROGRESS) {
        double left = deadline - core_now();
        if (left <= 0) break;
        struct timespec ts = {.tv_sec = (time_t)left,
                              .tv_nsec = (long)((left - (double)(time_t)left) * 1e9)};
        const struct gaicb *wait[1] = {&l->cb};
        gai_suspend(wait, 1, &ts); /* done, timed out or interrupted: the loop looks again */
    }
    if (rc == EAI_INPROGRESS) {
        /* a lookup removed from the queue is never notified: both references are ours */
        if (gai_cancel(&l->cb) == EAI_CANCELED) atomic_fetch_sub(&l->owners, 1);
        lookup_release(l);
        return NET_RESOLVE_TIMEOUT;
    }
    if (!rc) {
        *res = l->cb.ar_result;
        l->cb.ar_result = NULL;
    }
    lookup_release(l);
    return rc;
}
#else
static void *lookup_run(void *arg)
{
    lookup *l = arg;
    struct addrinfo *result = NULL;
    int rc = getaddrinfo(l->names, l->names + l->service_at, &l->hints, &result);
    pthread_mutex_lock(&l->mu);
    l->rc = rc;
    l->result = rc ? NULL : result;
    l->done = true;
    pthread_cond_signal(&l->done_cv);
    pthread_mutex_unlock(&l->mu);
    lookup_release(l);
    return NULL;
}

int net_resolve(const char *host, const char *service, const struct addrinfo *hints,
                long timeout_ms, struct addrinfo **res)
{
    *res = NULL;
    lookup *l = lookup_new(host, service, hints);
    if (!l) return EAI_MEMORY;
    if (pthread_mutex_init(&l->mu, NULL) != 0) {
        free(l);
        return EAI_MEMORY;
    }
    if (pthread_cond_init(&l->done_cv, NULL) != 0) {
        pthread_mutex_destroy(&l->mu);
        free(l);
        return EAI_MEMORY;
    }
    /* the deadline on CLOCK_REALTIME, the clock pthread_cond_timedwait takes everywhere */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)(timeout_ms / 1000);
    deadline.tv_nsec += (timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_attr_t attr;
    pthread_t tid;
    int started = pthread_attr_init(&attr) == 0;
    if (started) {
        started = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
                  pthread_create(&tid, &attr, lookup_run, l) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started) { /* no thread: both references are ours */
        atomic_fetch_sub(&l->owners, 1);
        lookup_release(l);
        return EAI_AGAIN;
    }
    int rc = NET_RESOLVE_TIMEOUT;
    pthread_mutex_lock(&l->mu);
    while (!l->done) {
        int w = pthread_cond_timedwait(&l->done_cv, &l->mu, &deadline);
        if (w == ETIMEDOUT) break;
    }
    if (l->done) {
        rc = l->rc;
        *res = l->result;
        l->result = NULL;
    }
    pthread_mutex_unlock(&l->mu);
    lookup_release(l);
    return rc;
}
#endif
