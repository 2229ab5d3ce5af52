/*
 * Load-ahead for build_index over a deferred registry: worker threads parse and
 * build the next few APIs (spec_registry_load) while the build renders, analyses,
 * chunks and writes the current one, and each API is freed once it is written.
 *
 * Why this shape: documents are independent, so parsing them is the part that runs
 * in parallel without changing a byte of the index; everything after it runs on the
 * build's thread in registry order, exactly as a one-thread build does. At most
 * `window` APIs are loaded and not yet written, which bounds memory by the biggest
 * few documents instead of the whole registry.
 *
 * Memory: each API is loaded within its own budget (spec_options.load_memory_*: 64 MiB + 32x
 * the bytes of its files), and an API holds that much from the start of its load until it
 * is written. A worker starts the next load only while the budgets of the APIs loaded and
 * not yet written fit in `mem_cap` (half the machine's RAM, build_options
 * .load_memory_total), or when nothing else is loaded: so N jobs never hold more than
 * mem_cap, or one document's budget, whatever N is. Waiting changes nothing but the time.
 */
#include "build/build_int.h"

#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SLOT_IDLE = 0, SLOT_LOADING = 1, SLOT_LOADED = 2 };
enum { TRIM_MIN_ITEMS = 2000 }; /* operations + schemas of a "big" document */

struct build_prefetch {
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
    size_t *budget;       /* of each API: its root's budget, then (loaded) its own */
    unsigned char *holds; /* the API's budget is counted in `reserved` */
    size_t mem_cap, reserved;
    size_t held_now, held_peak, reserved_peak; /* APIs holding a budget; for the report */
};

/* Counts API i's budget as held (lock held). */
static void hold(build_prefetch *p, size_t i)
{
    p->holds[i] = 1;
    p->reserved += p->budget[i];
    if (p->reserved > p->reserved_peak) p->reserved_peak = p->reserved;
    if (++p->held_now > p->held_peak) p->held_peak = p->held_now;
}

/* After API i's load: its budget as its files set it ($ref'd files add theirs). */
static void hold_adjust(build_prefetch *p, size_t i)
{
    const spec_api *api = spec_registry_api(p->reg, i);
    if (!api || api->load_memory_limit <= p->budget[i]) return;
    p->reserved += api->load_memory_limit - p->budget[i];
    p->budget[i] = api->load_memory_limit;
    if (p->reserved > p->reserved_peak) p->reserved_peak = p->reserved;
}

/* Whether the next load may start: its budget fits beside those held, or none is held. */
static bool may_start(const build_prefetch *p, size_t i)
{
    return p->reserved == 0 ||
           (p->budget[i] <= p->mem_cap && p->reserved <= p->mem_cap - p->budget[i]);
}

static void *worker(void *arg)
{
    build_prefetch *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->next < p->n &&
               (p->next >= p->consumed + p->window || !may_start(p, p->next)))
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop || p->next >= p->n) break;
        size_t i = p->next++;
        p->state[i] = SLOT_LOADING;
        hold(p, i);
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
        hold_adjust(p, i);
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Half the machine's RAM: what the loads running together may hold. */
static size_t default_mem_cap(void)
{
    const char *env = getenv("APIDEX_MAX_LOAD_MEMORY_TOTAL"); /* MiB */
    char *end = NULL;
    unsigned long long mib = env && *env ? strtoull(env, &end, 10) : 0;
    if (mib && end && !*end) return mib > (SIZE_MAX >> 20) ? SIZE_MAX : (size_t)mib << 20;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return (size_t)4 << 30;
    return (size_t)pages / 2 * (size_t)page;
}

int build_prefetch_start(spec_registry *reg, unsigned jobs, size_t mem_cap, build_prefetch **out)
{
    *out = NULL;
    build_prefetch *p = calloc(1, sizeof *p);
    if (!p) return APIDEX_ENOMEM;
    p->reg = reg;
    p->n = spec_registry_count(reg);
    p->mem_cap = mem_cap ? mem_cap : default_mem_cap();
    p->budget = calloc(p->n ? p->n : 1, sizeof *p->budget);
    p->holds = calloc(p->n ? p->n : 1, 1);
    if (!p->budget || !p->holds) {
        free(p->budget);
        free(p->holds);
        free(p);
        return APIDEX_ENOMEM;
    }
    /* Before a load, an API's budget is what its root file alone gives it. */
    const spec_options *so = spec_registry_options(reg);
    for (size_t i = 0; i < p->n; i++) {
        const spec_api *api = spec_registry_api(reg, i);
        struct stat st;
        size_t bytes = api && api->file && stat(api->file, &st) == 0 ? (size_t)st.st_size : 0;
        p->budget[i] = spec_load_memory_budget(so, bytes);
    }
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
        free(p->budget);
        free(p->holds);
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

int build_prefetch_wait(build_prefetch *p, size_t i)
{
    if (i >= p->n) return 0;
    pthread_mutex_lock(&p->mu);
    if (p->state[i] == SLOT_IDLE) {
        /* Nobody took it yet (no workers, or all busy): claims go in order, so it is next. */
        if (p->next <= i) p->next = i + 1;
        p->state[i] = SLOT_LOADING;
        /* never waits for memory: everything before i is written, so the workers hold
           nothing it could wait for */
        hold(p, i);
        pthread_mutex_unlock(&p->mu);
        int rc = spec_registry_load(p->reg, i);
        pthread_mutex_lock(&p->mu);
        p->rc[i] = rc;
        p->state[i] = SLOT_LOADED;
        hold_adjust(p, i);
    }
    while (p->state[i] != SLOT_LOADED) pthread_cond_wait(&p->cv, &p->mu);
    int rc = p->rc[i];
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void build_prefetch_done(build_prefetch *p, size_t i)
{
    spec_registry_unload(p->reg, i);
    pthread_mutex_lock(&p->mu);
    if (p->consumed < i + 1) p->consumed = i + 1;
    if (i < p->n && p->holds[i]) {
        p->holds[i] = 0;
        p->reserved -= p->budget[i];
        p->held_now--;
    }
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void build_prefetch_stop(build_prefetch *p, size_t *held_peak, size_t *reserved_peak)
{
    if (!p) return;
    if (held_peak) *held_peak = p->held_peak;
    if (reserved_peak) *reserved_peak = p->reserved_peak;
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
    free(p->budget);
    free(p->holds);
    free(p);
}
