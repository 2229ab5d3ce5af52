/*
 * The served index: reference-counted snapshots of an index file and hot
 * reload when a build replaces it (see the design notes in serve.h).
 */
#include "serve/serve_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct serve_db {
    char *path;
    double check_interval_s;
    pthread_mutex_t lock;        /* guards current and last_check */
    pthread_mutex_t reload_lock; /* one reloader at a time; others keep going */
    serve_snapshot *current;
    double last_check;
    atomic_uint_fast64_t reloads, reload_failures;
    bool failing;               /* the last reload failed: say so once, not at every check */
    serve_search_config search; /* every snapshot's engine queries this way */
    pthread_mutex_t embed_lock; /* one provider, shared by the engines of all snapshots */
    serve_usage_cache *usage;   /* the usage prior's uses (usage_cache.c); NULL: off */
    store_follow *follow;       /* a server database: the thread that follows publishes */
};

static void follow_tick(void *ctx, long long generation);

static void snapshot_free(serve_snapshot *s)
{
    if (!s) return;
    search_engine_close(s->eng);
    store_close(s->idx);
    free(s);
}

/* One query in the served mode, so that an index without the right vectors is refused
   when it is opened (or reloaded: the old snapshot stays), not at every request. */
static int probe_mode(serve_snapshot *s, apidex_error *err)
{
    search_query q = {.text = "probe",
                      .k = 1,
                      .mode = s->db->search.mode,
                      .hybrid_weight = s->db->search.hybrid_weight};
    search_result *res = NULL;
    int rc = search_engine_run(s->eng, &q, &res, err);
    search_result_free(res);
    return rc;
}

static int snapshot_open(serve_db *db, serve_snapshot **out, apidex_error *err)
{
    serve_snapshot *s = calloc(1, sizeof *s);
    if (!s) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    s->db = db;
    atomic_init(&s->refs, 1);
    int rc = store_open(db->path, true, &s->idx, err);
    if (!rc) rc = store_index_info(s->idx, &s->info, err);
    if (!rc) rc = store_apis(s->idx, &s->apis, &s->n_apis, err);
    if (!rc) rc = search_engine_open(s->idx, &s->eng, err);
    if (!rc && db->search.embedder)
        search_engine_share_embedder(s->eng, db->search.embedder, &db->embed_lock);
    if (!rc && db->search.mode != SEARCH_LEXICAL) rc = probe_mode(s, err);
    if (rc) {
        snapshot_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int serve_db_open(const char *path, double check_interval_s, serve_db **out, apidex_error *err)
{
    return serve_db_open_search(path, check_interval_s, NULL, out, err);
}

int serve_db_open_search(const char *path, double check_interval_s, const serve_search_config *cfg,
                         serve_db **out, apidex_error *err)
{
    *out = NULL;
    if (cfg && cfg->mode != SEARCH_LEXICAL && !cfg->embedder)
        return core_error_set(err, APIDEX_EINVAL,
                              "dense and hybrid search need an embedding provider");
    serve_db *db = calloc(1, sizeof *db);
    if (!db || !(db->path = strdup(path))) {
        free(db);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    db->check_interval_s = check_interval_s;
    if (cfg) db->search = *cfg;
    pthread_mutex_init(&db->lock, NULL);
    pthread_mutex_init(&db->reload_lock, NULL);
    pthread_mutex_init(&db->embed_lock, NULL);
    atomic_init(&db->reloads, 0);
    atomic_init(&db->reload_failures, 0);
    int rc = snapshot_open(db, &db->current, err);
    if (!rc && cfg && cfg->params && cfg->params->usage_weight > 0 &&
        !(db->usage = serve_usage_cache_new(path, cfg->params)))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (rc) {
        serve_db_close(db);
        return rc;
    }
    db->last_check = core_now();
    if (store_is_server(path)) {
        /* Publishes are followed on a thread of their own (LISTEN, and a poll every
           interval): requests never wait for the database. */
        double poll = check_interval_s > 0 ? check_interval_s : 5;
        db->check_interval_s = -1;
        rc = store_follow_start(path, poll, follow_tick, db, &db->follow, err);
        if (rc) {
            serve_db_close(db);
            return rc;
        }
    }
    *out = db;
    return 0;
}

void serve_db_close(serve_db *db)
{
    if (!db) return;
    store_follow_stop(db->follow);
    serve_snapshot_release(db->current);
    serve_usage_cache_free(db->usage);
    pthread_mutex_destroy(&db->lock);
    pthread_mutex_destroy(&db->reload_lock);
    pthread_mutex_destroy(&db->embed_lock);
    free(db->path);
    free(db);
}

/* Called by the one thread holding reload_lock: opens the index again and swaps the new
   snapshot in. Requests keep running on the old one meanwhile. */
static void reload(serve_db *db, serve_snapshot *cur)
{
    serve_snapshot *fresh = NULL;
    apidex_error err;
    core_error_clear(&err);
    if (snapshot_open(db, &fresh, &err) != 0) {
        /* A half-written file never appears (builds rename), so this is a removed
           file or a newer schema: keep serving the old index and say why, once per try. */
        atomic_fetch_add(&db->reload_failures, 1);
        if (!db->failing) {
            char shown[1024];
            fprintf(stderr,
                    "apidex serve: reload of %s failed, still serving the previous index: %s\n",
                    store_display(db->path, shown, sizeof shown), err.message);
        }
        db->failing = true;
        return;
    }
    db->failing = false;
    pthread_mutex_lock(&db->lock);
    db->current = fresh;
    pthread_mutex_unlock(&db->lock);
    atomic_fetch_add(&db->reloads, 1);
    serve_snapshot_release(cur);
}

static void maybe_reload(serve_db *db)
{
    pthread_mutex_lock(&db->lock);
    serve_snapshot *cur = db->current;
    pthread_mutex_unlock(&db->lock);
    if (store_index_changed(db->path, cur->idx)) reload(db, cur);
}

/* The follower read the published generation: reload when it is not the one served. */
static void follow_tick(void *ctx, long long generation)
{
    serve_db *db = ctx;
    pthread_mutex_lock(&db->reload_lock);
    pthread_mutex_lock(&db->lock);
    serve_snapshot *cur = db->current;
    pthread_mutex_unlock(&db->lock);
    if (store_index_generation(cur->idx) != generation) reload(db, cur);
    pthread_mutex_unlock(&db->reload_lock);
}

serve_snapshot *serve_db_acquire(serve_db *db)
{
    bool check = false;
    if (db->check_interval_s >= 0) {
        double now = core_now();
        pthread_mutex_lock(&db->lock);
        if (now - db->last_check >= db->check_interval_s) {
            db->last_check = now;
            check = true;
        }
        pthread_mutex_unlock(&db->lock);
    }
    if (check && pthread_mutex_trylock(&db->reload_lock) == 0) {
        maybe_reload(db);
        pthread_mutex_unlock(&db->reload_lock);
    }
    pthread_mutex_lock(&db->lock);
    serve_snapshot *s = db->current;
    atomic_fetch_add(&s->refs, 1);
    pthread_mutex_unlock(&db->lock);
    return s;
}

void serve_snapshot_release(serve_snapshot *snap)
{
    if (!snap) return;
    if (atomic_fetch_sub(&snap->refs, 1) == 1) snapshot_free(snap);
}

void serve_snapshot_call_open(serve_db *db, serve_snapshot_call *q)
{
    q->snap = serve_db_acquire(db);
    q->obj = NULL;
    core_error_clear(&q->err);
}

void serve_snapshot_call_close(serve_snapshot_call *q)
{
    serve_snapshot_release(q->snap);
    q->snap = NULL;
}

uint64_t serve_db_reloads(serve_db *db)
{
    return atomic_load(&db->reloads);
}

uint64_t serve_db_reload_failures(serve_db *db)
{
    return atomic_load(&db->reload_failures);
}

const serve_search_config *serve_db_search(const serve_db *db)
{
    return &db->search;
}

bool serve_db_store_status(serve_db *db, serve_store_status *out)
{
    memset(out, 0, sizeof *out);
    if (!db->follow) return false;
    store_follow_status fs;
    store_follow_get(db->follow, &fs);
    serve_snapshot *snap = serve_db_acquire(db);
    out->served = store_index_generation(snap->idx);
    store_index_fetched(snap->idx, &out->fetched_rows, &out->fetched_bytes);
    serve_snapshot_release(snap);
    out->published = fs.generation;
    out->connected = fs.connected;
    out->reconnects = fs.reconnects;
    out->notifications = fs.notifications;
    memcpy(out->error, fs.error, sizeof out->error);
    return true;
}

const char *serve_db_path(const serve_db *db)
{
    return db->path;
}

store_index *serve_snapshot_index(const serve_snapshot *snap)
{
    return snap->idx;
}

search_engine *serve_snapshot_engine(const serve_snapshot *snap)
{
    return snap->eng;
}

const store_info *serve_snapshot_info(const serve_snapshot *snap)
{
    return &snap->info;
}

serve_usage_cache *serve_db_usage(serve_db *db)
{
    return db->usage;
}
