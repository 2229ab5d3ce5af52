/*
 * The usage prior in a server: reported uses (POST /v1/feedback, MCP report_usage, apidex
 * feedback from anywhere) land in the index's sidecar (store/usage.c), and the searches of
 * a server started with --usage-prior see them at once. Each search looks at the sidecar's
 * files (two stat calls: the database and its WAL) and reads it again only when one
 * changed, or an hour passed (decay moves on); requests share one read set, counted by
 * reference, so a reload never pulls it from under a running search.
 */
#include "serve/serve_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { USAGE_MAX_ENDPOINTS = 256 };

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

int serve_query_feedback(serve_snapshot *snap, struct json_object *args, struct json_object **out,
                         apidex_error *err)
{
    *out = NULL;
    if (!json_object_is_type(args, json_type_object))
        return core_error_set(err, APIDEX_EINVAL, "the arguments must be a JSON object");
    const char *endpoints[USAGE_MAX_ENDPOINTS];
    size_t n = 0;
    const char *api = NULL, *task = NULL;
    json_object_object_foreach(args, key, val)
    {
        bool is_str =
            json_object_is_type(val, json_type_string) &&
            serve_text_ok(json_object_get_string(val), (size_t)json_object_get_string_len(val));
        if (!strcmp(key, "endpoints")) {
            size_t len = json_object_is_type(val, json_type_array) ? json_object_array_length(val)
                                                                   : USAGE_MAX_ENDPOINTS + 1;
            if (len == 0 || len > USAGE_MAX_ENDPOINTS)
                return core_error_set(err, APIDEX_EINVAL,
                                      "endpoints must be an array of 1 to %d endpoint ids or "
                                      "\"METHOD /path\" strings",
                                      USAGE_MAX_ENDPOINTS);
            for (size_t i = 0; i < len; i++) {
                struct json_object *it = json_object_array_get_idx(val, i);
                if (!json_object_is_type(it, json_type_string) ||
                    !serve_text_ok(json_object_get_string(it),
                                   (size_t)json_object_get_string_len(it)))
                    return core_error_set(err, APIDEX_EINVAL, "endpoints[%zu] must be a string", i);
                endpoints[n++] = json_object_get_string(it);
            }
        } else if (!strcmp(key, "api") || !strcmp(key, "task")) {
            if (!is_str) return core_error_set(err, APIDEX_EINVAL, "%s must be a string", key);
            *(!strcmp(key, "api") ? &api : &task) = json_object_get_string(val);
        } else {
            return core_error_set(err, APIDEX_EINVAL,
                                  "unknown member '%.40s' (endpoints, api, task)", key);
        }
    }
    if (!n) return core_error_set(err, APIDEX_EINVAL, "endpoints is required");
    int rc = store_usage_feedback(serve_db_path(snap->db), snap->idx, endpoints, n, api, task, err);
    if (rc) return rc;
    struct json_object *o = json_object_new_object();
    if (!o || !serve_jadd(o, "recorded", json_object_new_int64((int64_t)n))) {
        json_object_put(o);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    *out = o;
    return 0;
}

struct json_object *serve_json_object_parse(const char *text, size_t len)
{
    struct json_tokener *tok = json_tokener_new_ex(JRPC_MAX_DEPTH);
    if (!tok) return NULL;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    struct json_object *o = json_tokener_parse_ex(tok, text ? text : "", (int)len);
    bool parsed = json_tokener_get_error(tok) == json_tokener_success;
    size_t end = (size_t)json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    for (size_t i = end; parsed && i < len; i++)
        if (!strchr(" \t\r\n", text[i])) parsed = false;
    if (!parsed || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return NULL;
    }
    return o;
}
