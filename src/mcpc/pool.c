/* Sessions kept open between calls (apidex serve / apidex mcp): a call takes its server's
   idle session (or starts one), asks, and gives it back; a thread ends sessions idle too
   long and stdio servers that exited while idle. A session found dead when taken, or whose
   HTTP server forgot it (404), is started again before anything is sent on it. */
#include "mcpc/mcpc_int.h"

#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    POOL_DEFAULT_MAX = 8,
    POOL_DEFAULT_IDLE_MS = 300000,
    POOL_TICK_MS = 1000, /* how often the thread looks at idle sessions */
    POOL_DRAIN_MS = 20,  /* how long a check waits for the rest of a line */
    POOL_FIRST_ID = 2    /* initialize was 1 */
};

typedef struct pooled {
    core_arena *arena; /* the server's copy */
    mcpc_server srv;
    mcpc_options opt;
    char *key;
    mcpc_conn c;
    long next_id;
    long long idle_since;
    bool busy;
    struct pooled *next;
} pooled;

struct mcpc_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool stop;
    size_t max, n;
    long idle_ms;
    pooled *list;
};

/* ---------------------------------------------------------------- which server */

char *mcpc_server_key(const mcpc_server *s)
{
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, s->name ? s->name : "");
    for (size_t i = 0; s->argv && s->argv[i]; i++) {
        core_buf_putc(&b, '\x1f');
        core_buf_puts(&b, s->argv[i]);
    }
    for (size_t i = 0; i < s->n_env; i++) {
        core_buf_putc(&b, '\x1e');
        core_buf_puts(&b, s->env[i]);
    }
    if (s->url) {
        core_buf_putc(&b, '\x1d');
        core_buf_puts(&b, s->url);
    }
    for (size_t i = 0; i < s->n_headers; i++) {
        core_buf_putc(&b, '\x1c');
        core_buf_puts(&b, s->headers[i]);
    }
    char *key = b.failed ? NULL : core_buf_steal(&b, NULL);
    core_buf_free(&b);
    return key;
}

static const char **strv_copy(core_arena *a, const char *const *v, size_t n)
{
    const char **out = core_arena_calloc(a, n + 1, sizeof *out);
    for (size_t i = 0; out && i < n; i++)
        if (!(out[i] = core_arena_strdup(a, v[i]))) return NULL;
    return out;
}

int mcpc_server_copy(core_arena *a, const mcpc_server *s, mcpc_server *out)
{
    size_t argc = 0;
    while (s->argv && s->argv[argc]) argc++;
    *out = (mcpc_server){.name = s->name ? core_arena_strdup(a, s->name) : NULL,
                         .argv = s->argv ? strv_copy(a, s->argv, argc) : NULL,
                         .env = s->n_env ? strv_copy(a, s->env, s->n_env) : NULL,
                         .n_env = s->n_env,
                         .url = s->url ? core_arena_strdup(a, s->url) : NULL,
                         .headers = s->n_headers ? strv_copy(a, s->headers, s->n_headers) : NULL,
                         .n_headers = s->n_headers};
    bool bad = (s->name && !out->name) || (s->argv && !out->argv) || (s->n_env && !out->env) ||
               (s->url && !out->url) || (s->n_headers && !out->headers);
    return bad ? APIDEX_ENOMEM : 0;
}

/* ---------------------------------------------------------------- sessions */

static void session_free(pooled *e)
{
    if (!e) return;
    mcpc_session_end(&e->c);
    free(e->key);
    core_arena_free(e->arena);
    free(e);
}

/* A new session of srv, initialized, not in the list yet. */
static int session_new(const mcpc_server *srv, const mcpc_options *opt, char *key, pooled **out,
                       apidex_error *err)
{
    *out = NULL;
    pooled *e = calloc(1, sizeof *e);
    if (!e || !(e->arena = core_arena_new(0)) || mcpc_server_copy(e->arena, srv, &e->srv)) {
        if (e) core_arena_free(e->arena);
        free(e);
        free(key);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    e->key = key;
    /* the pool's sessions reach only the server's own origin: no extra addresses */
    e->opt = (mcpc_options){.timeout_ms = opt ? opt->timeout_ms : 0};
    e->next_id = POOL_FIRST_ID;
    int rc = mcpc_session_start(&e->c, &e->srv, &e->opt, err);
    if (rc) { /* the session is ended already */
        free(e->key);
        core_arena_free(e->arena);
        free(e);
        return rc;
    }
    *out = e;
    return 0;
}

/* Whether an idle session still works: a stdio server that exited (or whose pending output
   breaks the protocol) does not; what it sent meanwhile is read and dropped. */
static bool session_alive(pooled *e)
{
    if (e->srv.url) return true; /* HTTP: a forgotten session is a 404, retried then */
    apidex_error err;
    core_error_clear(&err);
    e->c.timeout_ms = POOL_DRAIN_MS;
    return mcpc_session_drain(&e->c, POOL_DRAIN_MS, NULL, &err) == 0;
}

/* Under the lock: unlinks e. */
static void unlink_session(mcpc_pool *p, pooled *e)
{
    for (pooled **q = &p->list; *q; q = &(*q)->next)
        if (*q == e) {
            *q = e->next;
            p->n--;
            return;
        }
}

/* Under the lock: an idle session of key, marked busy, or NULL. */
static pooled *take(mcpc_pool *p, const char *key)
{
    for (pooled *e = p->list; e; e = e->next)
        if (!e->busy && !strcmp(e->key, key)) {
            e->busy = true;
            return e;
        }
    return NULL;
}

/* Under the lock: the idle session unused the longest, unlinked, or NULL. */
static pooled *evict_oldest(mcpc_pool *p)
{
    pooled *old = NULL;
    for (pooled *e = p->list; e; e = e->next)
        if (!e->busy && (!old || e->idle_since < old->idle_since)) old = e;
    if (old) unlink_session(p, old);
    return old;
}

/* Gives e back (broken: ended instead); over the bound, the oldest idle sessions end. */
static void give_back(mcpc_pool *p, pooled *e, bool broken)
{
    pooled *end[2] = {NULL, NULL};
    pthread_mutex_lock(&p->lock);
    if (broken) {
        unlink_session(p, e);
        end[0] = e;
    } else {
        e->busy = false;
        e->idle_since = mcpc_now_ms();
        if (p->n > p->max) end[1] = evict_oldest(p);
    }
    pthread_mutex_unlock(&p->lock);
    session_free(end[0]);
    session_free(end[1]);
}

int mcpc_pool_call(mcpc_pool *p, const mcpc_server *srv, const mcpc_options *opt,
                   const char *method, json_object *params, char **out, size_t *len,
                   apidex_error *err)
{
    int rc = 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        char *key = mcpc_server_key(srv);
        if (!key) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        pthread_mutex_lock(&p->lock);
        pooled *e = take(p, key);
        pthread_mutex_unlock(&p->lock);
        if (e && !session_alive(e)) {
            give_back(p, e, true); /* it died while idle: a new one below */
            e = NULL;
        }
        bool fresh = !e;
        if (e) {
            free(key);
        } else {
            if ((rc = session_new(srv, opt, key, &e, err)) != 0) return rc;
            pthread_mutex_lock(&p->lock);
            e->busy = true;
            e->next = p->list;
            p->list = e;
            p->n++;
            pthread_mutex_unlock(&p->lock);
        }
        e->c.timeout_ms = mcpc_timeout_ms(opt);
        e->c.total = 0;
        e->c.session_gone = false;
        json_object *answer = NULL, *result = NULL;
        rc = mcpc_session_request(&e->c, e->next_id++, method, json_object_get(params), &answer,
                                  &result, err);
        if (!rc) rc = mcpc_result_text(result, out, len, err);
        json_object_put(answer);
        /* an error answer leaves the session usable; a lost, late or oversized one does not */
        bool broken = rc && rc != APIDEX_ESPEC && rc != APIDEX_ENOMEM;
        bool retry = rc && !fresh && e->c.session_gone; /* 404: the request was not handled */
        give_back(p, e, broken);
        if (!retry) break;
        core_error_clear(err);
    }
    return rc;
}

/* ---------------------------------------------------------------- the pool */

/* Ends sessions idle past the limit and stdio servers that exited while idle (what the
   others sent meanwhile is read, so a chatty server never fills its pipes). */
static void sweep(mcpc_pool *p)
{
    enum { SWEEP_MAX_CHECKS = 64 };
    long long now = mcpc_now_ms();
    pooled *ended = NULL, *check[SWEEP_MAX_CHECKS];
    size_t n_check = 0;
    pthread_mutex_lock(&p->lock);
    for (pooled **q = &p->list; *q;) {
        pooled *e = *q;
        if (!e->busy && now - e->idle_since >= p->idle_ms) {
            *q = e->next;
            p->n--;
            e->next = ended;
            ended = e;
            continue;
        }
        if (!e->busy && !e->srv.url && n_check < SWEEP_MAX_CHECKS) {
            e->busy = true; /* its check reads outside the lock */
            check[n_check++] = e;
        }
        q = &e->next;
    }
    pthread_mutex_unlock(&p->lock);
    while (ended) {
        pooled *next = ended->next;
        session_free(ended);
        ended = next;
    }
    for (size_t i = 0; i < n_check; i++) {
        if (!session_alive(check[i])) {
            give_back(p, check[i], true);
            continue;
        }
        pthread_mutex_lock(&p->lock);
        check[i]->busy = false; /* idle since as before: a check is no use */
        pthread_mutex_unlock(&p->lock);
    }
}

static void *pool_thread(void *arg)
{
    mcpc_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        long tick = p->idle_ms < POOL_TICK_MS ? p->idle_ms : POOL_TICK_MS;
        ts.tv_sec += tick / 1000;
        ts.tv_nsec += (tick % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        int w = pthread_cond_timedwait(&p->wake, &p->lock, &ts);
        if (p->stop) break;
        if (w != ETIMEDOUT || !p->list) continue;
        pthread_mutex_unlock(&p->lock);
        sweep(p);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

mcpc_pool *mcpc_pool_new(size_t max_sessions, long idle_ms)
{
    mcpc_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->max = max_sessions ? max_sessions
                          : (size_t)mcpc_env_long("APIDEX_MCP_SESSIONS", POOL_DEFAULT_MAX);
    p->idle_ms = idle_ms > 0 ? idle_ms : mcpc_env_long("APIDEX_MCP_IDLE_MS", POOL_DEFAULT_IDLE_MS);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    if (pthread_create(&p->thread, NULL, pool_thread, p)) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;
    }
    return p;
}

size_t mcpc_pool_open_count(mcpc_pool *p)
{
    pthread_mutex_lock(&p->lock);
    size_t n = p->n;
    pthread_mutex_unlock(&p->lock);
    return n;
}

void mcpc_pool_free(mcpc_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    while (p->list) {
        pooled *e = p->list;
        p->list = e->next;
        session_free(e);
    }
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
