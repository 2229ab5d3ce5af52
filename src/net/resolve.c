/*
 * Name resolution with a deadline: getaddrinfo blocks for as long as the resolver likes (a
 * dead DNS server: tens of seconds), past any timeout the caller was promised. glibc's
 * getaddrinfo_a runs the lookup on its own thread; we wait for it until the deadline. A
 * lookup still running then cannot be stopped, so its state lives on the heap, owned by the
 * caller and by the completion notification together: whichever lets go last frees it.
 */
#include "net/net.h"

#include <netdb.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct lookup {
    struct gaicb cb;
    struct addrinfo hints;
    atomic_int owners; /* the caller and the notification */
    char names[];      /* host, then service */
} lookup;

static void lookup_release(lookup *l)
{
    if (atomic_fetch_sub(&l->owners, 1) != 1) return;
    if (l->cb.ar_result) freeaddrinfo(l->cb.ar_result);
    free(l);
}

static void lookup_done(union sigval v)
{
    lookup_release(v.sival_ptr);
}

int net_resolve(const char *host, const char *service, const struct addrinfo *hints,
                long timeout_ms, struct addrinfo **res)
{
    *res = NULL;
    size_t hn = strlen(host) + 1, sn = strlen(service) + 1;
    lookup *l = calloc(1, sizeof *l + hn + sn);
    if (!l) return EAI_MEMORY;
    memcpy(l->names, host, hn);
    memcpy(l->names + hn, service, sn);
    l->hints = *hints;
    l->cb =
        (struct gaicb){.ar_name = l->names, .ar_service = l->names + hn, .ar_request = &l->hints};
    atomic_init(&l->owners, 2);
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
