/*
 * Load-ahead for store_build over a deferred registry: worker threads parse and
 * build the next few APIs (spec_registry_load) while the build renders, analyses,
 * chunks and writes the current one, and each API is freed once it is written.
 *
 * Why this shape: documents are independent, so parsing them is the part that runs
 * in parallel without changing a byte of the index; everything after it runs on the
 * build's thread in registry order, exactly as a one-thread build does. At most
 * `window` APIs are loaded and not yet written, which bounds memory by the biggest
 * few documents instead of the whole registry.
 */
#include "store/store_int.h"

#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

enum { SLOT_IDLE = 0, SLOT_LOADING = 1, SLOT_LOADED = 2 };
enum { TRIM_MIN_ITEMS = 2000 }; /* operations + schemas of a "big" document */

struct store_prefetch {
    spec_registry *reg;
    size_t n, window;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next;     /* the next API to claim (claims go in order) */
    size_t consumed; /* APIs below this are written and unloaded */
    unsigned char *state;
    int *rc;
    bool stop;
    pthread_t *threads;
    unsigned n_threads;
};

static void *worker(void *arg)
{
    store_prefetch *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->next < p->n && p->next >= p->consumed + p->window)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop || p->next >= p->n) break;
        size_t i = p->next++;
        p->state[i] = SLOT_LOADING;
        pthread_mutex_unlock(&p->mu);
        int rc = spec_registry_load(p->reg, i);
        /* What the parse of a big document freed stays in this thread's malloc arena,
           where the build's thread cannot reuse it: hand it back, or it costs twice
           (Microsoft Graph: 674 MB peak instead of 464). Small ones are not worth a trim. */
        const spec_api *api = spec_registry_api(p->reg, i);
        if (api && api->n_ops + api->n_schemas >= TRIM_MIN_ITEMS) malloc_trim(0);
        pthread_mutex_lock(&p->mu);
        p->rc[i] = rc;
        p->state[i] = SLOT_LOADED;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int store_prefetch_start(spec_registry *reg, unsigned jobs, store_prefetch **out)
{
    *out = NULL;
    store_prefetch *p = calloc(1, sizeof *p);
    if (!p) return APIDEX_ENOMEM;
    p->reg = reg;
    p->n = spec_registry_count(reg);
    if (jobs < 1) jobs = 1;
    /* Enough loaded ahead to keep every worker busy, and no more. */
    p->window = (size_t)jobs + 1;
    p->state = calloc(p->n ? p->n : 1, 1);
    p->rc = calloc(p->n ? p->n : 1, sizeof *p->rc);
    p->threads = jobs > 1 ? calloc(jobs - 1, sizeof *p->threads) : NULL;
    if (!p->state || !p->rc || (jobs > 1 && !p->threads) || pthread_mutex_init(&p->mu, NULL)) {
        free(p->state);
        free(p->rc);
        free(p->threads);
        free(p);
        return APIDEX_ENOMEM;
    }
    pthread_cond_init(&p->cv, NULL);
    /* The build's own thread is one of the jobs: it renders and writes. */
    for (unsigned t = 0; t + 1 < jobs; t++) {
        if (pthread_create(&p->threads[p->n_threads], NULL, worker, p) != 0) break;
        p->n_threads++;
    }
    *out = p;
    return 0;
}

int store_prefetch_wait(store_prefetch *p, size_t i)
{
    if (i >= p->n) return 0;
    pthread_mutex_lock(&p->mu);
    if (p->state[i] == SLOT_IDLE) {
        /* Nobody took it yet (no workers, or all busy): claims go in order, so it is next. */
        if (p->next <= i) p->next = i + 1;
        p->state[i] = SLOT_LOADING;
        pthread_mutex_unlock(&p->mu);
        int rc = spec_registry_load(p->reg, i);
        pthread_mutex_lock(&p->mu);
        p->rc[i] = rc;
        p->state[i] = SLOT_LOADED;
    }
    while (p->state[i] != SLOT_LOADED) pthread_cond_wait(&p->cv, &p->mu);
    int rc = p->rc[i];
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void store_prefetch_done(store_prefetch *p, size_t i)
{
    spec_registry_unload(p->reg, i);
    pthread_mutex_lock(&p->mu);
    if (p->consumed < i + 1) p->consumed = i + 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void store_prefetch_stop(store_prefetch *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (unsigned t = 0; t < p->n_threads; t++) pthread_join(p->threads[t], NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p->threads);
    free(p->state);
    free(p->rc);
    free(p);
}
