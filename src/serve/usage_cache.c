/*
 * The usage prior in a server: reported uses (POST /v1/feedback, MCP report_usage, apidex
 * feedback from anywhere, recorded by feedback.c) land in the index's sidecar
 * (store/usage_sidecar.c), and the searches of a server started with --usage-prior see them at
 * once. Each search looks at the sidecar's files (two stat calls: the database and its WAL) and
 * reads it again only when one changed, or an hour passed (decay moves on); requests share one read
 * set, counted by reference, so a reload never pulls it from under a running search.
 */
#include "serve/serve_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* One read of the sidecar. */
struct serve_usage_set {
    store_usage *usage;
    atomic_size_t refs;
};

struct serve_usage_cache {
    char *db_path;
    search_params params; /* the server's, usage.weight > 0 */
    pthread_mutex_t lock; /* guards current, stamp and read_at */
    serve_usage_set *current;
    char stamp[160]; /* what the sidecar's files looked like when read */
    double read_at;  /* wall clock, seconds */
};

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Size and modification time of the sidecar and its WAL, as one string. */
static void stamp_of(const char *db_path, char *out, size_t cap)
{
    core_buf p;
    core_buf_init(&p, 0);
    store_usage_path(db_path, &p);
    struct stat a = {0}, b = {0};
    bool has_a = p.data && stat(p.data, &a) == 0;
    core_buf_puts(&p, "-wal");
    bool has_b = p.data && stat(p.data, &b) == 0;
    core_buf_free(&p);
    snprintf(out, cap, "%d:%lld:%lld.%ld/%d:%lld:%lld.%ld", has_a, (long long)a.st_size,
             (long long)a.st_mtim.tv_sec, a.st_mtim.tv_nsec, has_b, (long long)b.st_size,
             (long long)b.st_mtim.tv_sec, b.st_mtim.tv_nsec);
}

static void set_release(serve_usage_set *s)
{
    if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
        store_usage_free(s->usage);
        free(s);
    }
}

serve_usage_cache *serve_usage_cache_new(const char *db_path, const search_params *params)
{
    serve_usage_cache *c = calloc(1, sizeof *c);
    if (!c || !(c->db_path = strdup(db_path))) {
        free(c);
        return NULL;
    }
    c->params = *params;
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

void serve_usage_cache_free(serve_usage_cache *c)
{
    if (!c) return;
    set_release(c->current);
    pthread_mutex_destroy(&c->lock);
    free(c->db_path);
    free(c);
}

const search_params *serve_usage_params(const serve_usage_cache *c)
{
    return &c->params;
}

serve_usage_set *serve_usage_acquire(serve_usage_cache *c)
{
    char stamp[160];
    stamp_of(c->db_path, stamp, sizeof stamp);
    double now = wall_now();
    pthread_mutex_lock(&c->lock);
    if (!c->current || strcmp(stamp, c->stamp) || now - c->read_at > 3600) {
        store_usage *u = NULL;
        serve_usage_set *s = NULL;
        /* a sidecar that cannot be read leaves the last set in place (or none) */
        if (!store_usage_load(c->db_path, c->params.usage_half_life * 86400.0, now, &u, NULL) &&
            (s = calloc(1, sizeof *s)) != NULL) {
            s->usage = u;
            atomic_init(&s->refs, 1);
            set_release(c->current);
            c->current = s;
            snprintf(c->stamp, sizeof c->stamp, "%s", stamp);
            c->read_at = now;
        } else {
            store_usage_free(u);
        }
    }
    serve_usage_set *s = c->current;
    if (s) atomic_fetch_add(&s->refs, 1);
    pthread_mutex_unlock(&c->lock);
    return s;
}

const store_usage *serve_usage_of(const serve_usage_set *s)
{
    return s ? s->usage : NULL;
}

void serve_usage_release(serve_usage_set *s)
{
    set_release(s);
}
