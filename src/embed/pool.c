/*
 * A small fork-join thread pool for the encoder and the dense scan. A forward
 * pass issues ~100 short parallel loops, so workers spin briefly before they
 * sleep (a condition-variable wake-up costs more than a small loop takes).
 */
#include "embed/embed_int.h"

#include <cblas.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

/* About 30-60 microseconds of spinning before a worker or the caller sleeps. */
#define POOL_SPIN 2000

struct embed_pool {
    int threads; /* workers + the caller */
    pthread_t *tids;
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done;
    embed_pool_fn fn;
    void *ctx;
    size_t n_tasks;
    size_t next;       /* next task to hand out (atomic) */
    int pending;       /* workers not yet done with the current job (atomic) */
    unsigned long gen; /* job generation (atomic) */
    bool stop;
};

typedef struct pool_worker_arg {
    embed_pool *pool;
    int index;
} pool_worker_arg;

int embed_cpu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void run_tasks(embed_pool *p, embed_pool_fn fn, void *ctx, size_t n, int worker)
{
    for (;;) {
        size_t t = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (t >= n) break;
        fn(ctx, t, worker);
    }
}

static void *worker_main(void *argp)
{
    pool_worker_arg *arg = argp;
    embed_pool *p = arg->pool;
    int index = arg->index;
    free(arg);
    unsigned long seen = 0;
    for (;;) {
        unsigned long g = 0;
        for (int i = 0; i < POOL_SPIN; i++) {
            g = __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE);
            if (g != seen) break;
            cpu_relax();
        }
        if (g == seen) {
            pthread_mutex_lock(&p->mu);
            while ((g = __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE)) == seen && !p->stop)
                pthread_cond_wait(&p->cv_work, &p->mu);
            pthread_mutex_unlock(&p->mu);
        }
        seen = g;
        if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) return NULL;
        run_tasks(p, p->fn, p->ctx, p->n_tasks, index);
        if (__atomic_sub_fetch(&p->pending, 1, __ATOMIC_ACQ_REL) == 0) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_broadcast(&p->cv_done);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

embed_pool *embed_pool_new(int threads)
{
    if (threads <= 0) threads = embed_cpu_count();
    if (threads > 64) threads = 64;
    /* Our threads each call sgemm on their own tile; OpenBLAS's own would oversubscribe. */
    if (threads > 1) openblas_set_num_threads(1);
    embed_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->threads = 1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv_work, NULL);
    pthread_cond_init(&p->cv_done, NULL);
    p->tids = calloc((size_t)threads, sizeof *p->tids);
    if (!p->tids) {
        embed_pool_free(p);
        return NULL;
    }
    for (int i = 1; i < threads; i++) {
        pool_worker_arg *arg = malloc(sizeof *arg);
        if (!arg) break;
        arg->pool = p;
        arg->index = i;
        if (pthread_create(&p->tids[i - 1], NULL, worker_main, arg) != 0) {
            free(arg);
            break; /* fewer threads than asked still works */
        }
        p->threads++;
    }
    return p;
}

void embed_pool_free(embed_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    __atomic_store_n(&p->stop, true, __ATOMIC_RELEASE);
    __atomic_add_fetch(&p->gen, 1, __ATOMIC_ACQ_REL);
    pthread_cond_broadcast(&p->cv_work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->threads - 1; i++) pthread_join(p->tids[i], NULL);
    pthread_cond_destroy(&p->cv_work);
    pthread_cond_destroy(&p->cv_done);
    pthread_mutex_destroy(&p->mu);
    free(p->tids);
    free(p);
}

int embed_pool_threads(const embed_pool *p)
{
    return p ? p->threads : 1;
}

void embed_pool_run(embed_pool *p, size_t n_tasks, embed_pool_fn fn, void *ctx)
{
    if (!n_tasks) return;
    if (!p || p->threads == 1 || n_tasks == 1) {
        for (size_t t = 0; t < n_tasks; t++) fn(ctx, t, 0);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->n_tasks = n_tasks;
    __atomic_store_n(&p->next, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->pending, p->threads - 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&p->gen, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->cv_work);
    pthread_mutex_unlock(&p->mu);

    run_tasks(p, fn, ctx, n_tasks, 0);

    for (int i = 0; i < POOL_SPIN; i++) {
        if (__atomic_load_n(&p->pending, __ATOMIC_ACQUIRE) == 0) return;
        cpu_relax();
    }
    pthread_mutex_lock(&p->mu);
    while (__atomic_load_n(&p->pending, __ATOMIC_ACQUIRE) != 0)
        pthread_cond_wait(&p->cv_done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}
