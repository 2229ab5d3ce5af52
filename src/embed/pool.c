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

/*
 * A job is published as (generation << 32 | next task) in one 64-bit word. Workers claim
 * tasks with a compare-and-swap on that word, so a worker that wakes up late (its core was
 * busy with another process) can never run a task of a newer job, and the caller never waits
 * for workers that took no task: it runs whatever is left itself and only waits for tasks
 * already claimed. Under contention a fork-join pool that waited for every worker stalled a
 * whole time slice per parallel loop; this one degrades to the caller's own speed.
 */
typedef struct pool_job {
    embed_pool_fn fn;
    void *ctx;
    size_t n;
} pool_job;

struct embed_pool {
    int threads; /* workers + the caller */
    pthread_t *tids;
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done;
    pool_job job[2]; /* the job of generation g is job[g & 1] */
    uint64_t word;   /* generation << 32 | next task index (atomic) */
    size_t done;     /* tasks of the current job finished (atomic) */
    bool stop;
};

typedef struct pool_worker_arg {
    embed_pool *pool;
    int index;
} pool_worker_arg;

int embed_cpu_count(void)
{
    return core_sys_cpu_count();
}

/* Claims and runs tasks of generation gen until none is left; returns how many ran. */
static void run_tasks(embed_pool *p, uint32_t gen, int worker)
{
    const pool_job *slot = &p->job[gen & 1];
    /* Relaxed loads: a newer job may be overwriting the slot, but then the claim fails. */
    embed_pool_fn fn = __atomic_load_n(&slot->fn, __ATOMIC_RELAXED);
    void *ctx = __atomic_load_n(&slot->ctx, __ATOMIC_RELAXED);
    size_t n = __atomic_load_n(&slot->n, __ATOMIC_RELAXED);
    uint64_t w = __atomic_load_n(&p->word, __ATOMIC_ACQUIRE);
    for (;;) {
        if ((uint32_t)(w >> 32) != gen || (w & 0xffffffffu) >= n) return;
        if (!__atomic_compare_exchange_n(&p->word, &w, w + 1, true, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            continue; /* w was reloaded */
        fn(ctx, (size_t)(w & 0xffffffffu), worker);
        if (__atomic_add_fetch(&p->done, 1, __ATOMIC_ACQ_REL) == n) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_broadcast(&p->cv_done);
            pthread_mutex_unlock(&p->mu);
        }
        w = __atomic_load_n(&p->word, __ATOMIC_ACQUIRE);
    }
}

static void *worker_main(void *argp)
{
    pool_worker_arg *arg = argp;
    embed_pool *p = arg->pool;
    int index = arg->index;
    free(arg);
    uint32_t seen = 0;
    for (;;) {
        uint32_t g = seen;
        for (int i = 0; i < POOL_SPIN && g == seen; i++) {
            g = (uint32_t)(__atomic_load_n(&p->word, __ATOMIC_ACQUIRE) >> 32);
            if (g == seen) cpu_relax();
        }
        if (g == seen) {
            pthread_mutex_lock(&p->mu);
            while ((g = (uint32_t)(__atomic_load_n(&p->word, __ATOMIC_ACQUIRE) >> 32)) == seen &&
                   !p->stop)
                pthread_cond_wait(&p->cv_work, &p->mu);
            pthread_mutex_unlock(&p->mu);
        }
        seen = g;
        if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) return NULL;
        run_tasks(p, g, index);
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
    uint64_t w = __atomic_load_n(&p->word, __ATOMIC_RELAXED);
    __atomic_store_n(&p->word, ((w >> 32) + 1) << 32, __ATOMIC_RELEASE);
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
    if (!p || p->threads == 1 || n_tasks == 1 || n_tasks >= 0xffffffffu) {
        for (size_t t = 0; t < n_tasks; t++) fn(ctx, t, 0);
        return;
    }
    pthread_mutex_lock(&p->mu);
    uint32_t gen = (uint32_t)(__atomic_load_n(&p->word, __ATOMIC_RELAXED) >> 32) + 1;
    pool_job *slot = &p->job[gen & 1];
    __atomic_store_n(&slot->fn, fn, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->ctx, ctx, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->n, n_tasks, __ATOMIC_RELAXED);
    __atomic_store_n(&p->done, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->word, (uint64_t)gen << 32, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->cv_work);
    pthread_mutex_unlock(&p->mu);

    run_tasks(p, gen, 0);

    /* Only tasks a worker already claimed can still be running. */
    for (int i = 0; i < POOL_SPIN; i++) {
        if (__atomic_load_n(&p->done, __ATOMIC_ACQUIRE) == n_tasks) return;
        cpu_relax();
    }
    pthread_mutex_lock(&p->mu);
    while (__atomic_load_n(&p->done, __ATOMIC_ACQUIRE) != n_tasks)
        pthread_cond_wait(&p->cv_done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}
