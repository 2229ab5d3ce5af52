/*
 * The four queries every face of the server answers (search, endpoint details,
 * API catalog, ask), as json-c objects, plus the small JSON and URI helpers
 * the other files share. Arguments are checked here, once, for all callers.
 */
#include "serve/serve_int.h"

#include "agent/agent.h"
#include "view/view.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- JSON helpers */

struct json_object *serve_jstr(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

struct json_object *serve_jnum(double v, int decimals)
{
    char text[64];
    if (v != v) v = 0; /* NaN never leaves the server */
    snprintf(text, sizeof text, "%.*f", decimals, v);
    return json_object_new_double_s(v, text);
}

const char *serve_jget_str(struct json_object *obj, const char *key)
{
    struct json_object *v;
    if (!obj || !json_object_is_type(obj, json_type_object) ||
        !json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

bool serve_jadd(struct json_object *obj, const char *key, struct json_object *value)
{
    return core_json_add(obj, key, value);
}

bool serve_text_ok(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        unsigned c = p[i];
        if (c == 0) return false;
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n = (c >= 0xc2 && c <= 0xdf)   ? 1
                   : (c >= 0xe0 && c <= 0xef) ? 2
                   : (c >= 0xf0 && c <= 0xf4) ? 3
                                              : 0;
        if (!n || len - i <= n) return false;
        for (size_t k = 1; k <= n; k++)
            if ((p[i + k] & 0xc0) != 0x80) return false;
        /* overlong forms, UTF-16 surrogates, code points past U+10FFFF */
        if ((c == 0xe0 && p[i + 1] < 0xa0) || (c == 0xed && p[i + 1] >= 0xa0) ||
            (c == 0xf0 && p[i + 1] < 0x90) || (c == 0xf4 && p[i + 1] >= 0x90))
            return false;
        i += n + 1;
    }
    return true;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

char *serve_percent_decode(const char *s, size_t n)
{
    char *out = malloc(n + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '%') {
            out[o++] = s[i];
            continue;
        }
        int hi = i + 2 < n ? hexval((unsigned char)s[i + 1]) : -1;
        int lo = i + 2 < n ? hexval((unsigned char)s[i + 2]) : -1;
        if (hi < 0 || lo < 0) {
            free(out);
            return NULL;
        }
        out[o++] = (char)(hi * 16 + lo);
        i += 2;
    }
    out[o] = '\0';
    if (!serve_text_ok(out, o)) {
        free(out);
        return NULL;
    }
    return out;
}

int serve_percent_encode(core_buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' || *p == '~') {
            core_buf_putc(b, (char)*p);
        } else {
            char esc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            core_buf_append(b, esc, 3);
        }
    }
    return b->failed ? APIDEX_ENOMEM : 0;
}

/* ---------------------------------------------------------------- argument checks */

static const char *const http_methods[] = {"GET",   "PUT",     "POST",  "DELETE", "HEAD",
                                           "PATCH", "OPTIONS", "TRACE", NULL};

static bool is_http_method(const char *m)
{
    for (size_t i = 0; http_methods[i]; i++)
        if (!strcasecmp(m, http_methods[i])) return true;
    return false;
}

static size_t list_len(const char *const *l)
{
    size_t n = 0;
    while (l && l[n]) n++;
    return n;
}

static int check_task(const char *task, apidex_error *err)
{
    if (!task) return core_error_set(err, APIDEX_EINVAL, "task is required");
    size_t n = strlen(task);
    if (n > SERVE_MAX_TASK)
        return core_error_set(err, APIDEX_EINVAL, "task is too long (%zu bytes, at most %d)", n,
                              SERVE_MAX_TASK);
    if (!serve_text_ok(task, n))
        return core_error_set(err, APIDEX_EINVAL, "task is not valid UTF-8 text");
    for (const char *p = task; *p; p++)
        if (!isspace((unsigned char)*p)) return 0;
    return core_error_set(err, APIDEX_EINVAL,
                          "task is empty: describe what you want to do in plain words");
}

/* Each name in apis (an id, alias, unique prefix or title: store_resolve_api) into its id
   in resolved (NULL-terminated, SERVE_MAX_FILTERS + 1 slots). */
static int check_apis(serve_snapshot *snap, const char *const *apis, const char **resolved,
                      apidex_error *err)
{
    if (list_len(apis) > SERVE_MAX_FILTERS)
        return core_error_set(err, APIDEX_EINVAL, "too many APIs (at most %d)", SERVE_MAX_FILTERS);
    size_t n = 0;
    for (size_t i = 0; apis && apis[i]; i++) {
        long at = -1;
        int rc = store_resolve_api(snap->idx, apis[i], &at, err);
        if (rc == APIDEX_ENOTFOUND || rc == APIDEX_EINVAL) {
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%s", err->message);
            return core_error_set(err, APIDEX_EINVAL, "%s (list_apis, GET /v1/apis, gives the ids)",
                                  msg);
        }
        if (rc) return rc;
        resolved[n++] = snap->apis[at].id;
    }
    resolved[n] = NULL;
    return 0;
}

/* ---------------------------------------------------------------- search */

static struct json_object *needs_json(const search_hit *h)
{
    struct json_object *arr = json_object_new_array();
    for (size_t l = 0; arr && l < h->n_links; l++) {
        struct json_object *o = json_object_new_object();
        if (!o) break;
        serve_jadd(o, "param", json_object_new_string(h->links[l].param ? h->links[l].param : ""));
        serve_jadd(o, "producer",
                   json_object_new_string(h->links[l].producer_id ? h->links[l].producer_id : ""));
        json_object_array_add(arr, o);
    }
    return arr;
}

static char *endpoint_text(const char *method, const char *path)
{
    size_t n = strlen(method) + strlen(path) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s %s", method, path);
    return s;
}

static struct json_object *endpoint_json(const char *method, const char *path)
{
    char *s = endpoint_text(method, path);
    struct json_object *o = s ? json_object_new_string(s) : NULL;
    free(s);
    return o;
}

/* The summary shape of the Discovery Agent's Summary tool (the chunking paper, §3.1):
   small, cheap in tokens. */
static struct json_object *hit_compact(const search_hit *h)
{
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    serve_jadd(o, "id", serve_jstr(h->id));
    serve_jadd(o, "endpoint", endpoint_json(h->method, h->path));
    serve_jadd(o, "api", serve_jstr(h->api));
    serve_jadd(o, "summary", serve_jstr(h->summary)); /* plain already */
    serve_jadd(o, "score", serve_jnum(h->score, 3));
    serve_jadd(o, "confidence", serve_jnum(h->confidence, 3));
    serve_jadd(o, "role",
               json_object_new_string(h->role == SEARCH_ROLE_PRODUCER ? "producer" : "primary"));
    if (h->n_links) serve_jadd(o, "needs", needs_json(h));
    return o;
}

/* The shape of `apidex search --json` (cmd_search.c): one shape for CLI and HTTP. */
static struct json_object *hit_full(const search_hit *h, size_t rank)
{
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    serve_jadd(o, "rank", json_object_new_int64((int64_t)rank));
    serve_jadd(o, "id", serve_jstr(h->id));
    serve_jadd(o, "api", serve_jstr(h->api));
    serve_jadd(o, "method", serve_jstr(h->method));
    serve_jadd(o, "path", serve_jstr(h->path));
    serve_jadd(o, "operation_id", serve_jstr(h->operation_id));
    serve_jadd(o, "summary", serve_jstr(h->summary)); /* plain already */
    serve_jadd(o, "score", serve_jnum(h->score, 4));
    serve_jadd(o, "confidence", serve_jnum(h->confidence, 3));
    serve_jadd(o, "role",
               json_object_new_string(h->role == SEARCH_ROLE_PRODUCER ? "producer" : "primary"));
    serve_jadd(o, "why", json_object_new_string(h->why ? h->why : ""));
    serve_jadd(o, "needs", needs_json(h));
    return o;
}

/* The answer's match into o: "match", "confidence", and when it is weak or none the words
   ("note") and for none the closest APIs: the fields of `apidex search --json` (cmd_search.c). */
static bool match_json(struct json_object *o, const search_result *res)
{
    bool ok = serve_jadd(o, "match", json_object_new_string(search_match_name(res->match))) &&
              serve_jadd(o, "confidence", serve_jnum(res->confidence, 3));
    core_buf words;
    core_buf_init(&words, 0);
    if (ok && search_match_words(res, &words) == 0 && words.len)
        ok = serve_jadd(o, "note", json_object_new_string_len(words.data, (int)words.len));
    core_buf_free(&words);
    if (!ok || res->match != SEARCH_MATCH_NONE) return ok;
    const char *apis[SEARCH_CLOSEST_APIS];
    size_t n = search_closest_apis(res, apis, SEARCH_CLOSEST_APIS);
    struct json_object *arr = json_object_new_array();
    for (size_t i = 0; arr && i < n; i++) json_object_array_add(arr, serve_jstr(apis[i]));
    return arr && serve_jadd(o, "closest_apis", arr);
}

int serve_query_search(serve_snapshot *snap, const serve_search_args *a, struct json_object **out,
                       apidex_error *err)
{
    *out = NULL;
    int rc = check_task(a->task, err);
    if (rc) return rc;
    if (a->k > SERVE_MAX_K)
        return core_error_set(err, APIDEX_EINVAL, "k must be between 1 and %d", SERVE_MAX_K);
    const char *apis[SERVE_MAX_FILTERS + 1];
    if ((rc = check_apis(snap, a->apis, apis, err)) != 0) return rc;
    if (list_len(a->tags) > SERVE_MAX_FILTERS || list_len(a->methods) > SERVE_MAX_FILTERS)
        return core_error_set(err, APIDEX_EINVAL, "too many filter values (at most %d)",
                              SERVE_MAX_FILTERS);
    for (size_t i = 0; a->methods && a->methods[i]; i++)
        if (!is_http_method(a->methods[i]))
            return core_error_set(err, APIDEX_EINVAL,
                                  "method '%.40s' is not an HTTP method (GET, POST, PUT, PATCH, "
                                  "DELETE, HEAD, OPTIONS, TRACE)",
                                  a->methods[i]);
    search_query q = {.text = a->task,
                      .k = a->k ? a->k : 10,
                      .adaptive = a->adaptive,
                      .apis = a->apis ? apis : NULL,
                      .tags = a->tags,
                      .methods = a->methods,
                      .include_deprecated = a->include_deprecated,
                      .mode = serve_db_search(snap->db)->mode,
                      .hybrid_weight = serve_db_search(snap->db)->hybrid_weight};
    serve_usage_cache *uc = serve_db_usage(snap->db);
    serve_usage_set *us = uc ? serve_usage_acquire(uc) : NULL;
    q.params = uc ? serve_usage_params(uc) : serve_db_search(snap->db)->params;
    q.usage = serve_usage_of(us);
    search_result *res = NULL;
    rc = search_engine_run(snap->eng, &q, &res, err);
    serve_usage_release(us);
    if (rc) return rc;
    struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
    bool ok = o && arr;
    for (size_t i = 0; ok && i < res->n_hits; i++) {
        struct json_object *h =
            a->compact ? hit_compact(&res->hits[i]) : hit_full(&res->hits[i], i + 1);
        ok = h && json_object_array_add(arr, h) == 0;
    }
    if (ok) {
        serve_jadd(o, a->compact ? "task" : "query", json_object_new_string(a->task));
        serve_jadd(o, "adaptive", json_object_new_boolean(a->adaptive));
        if (a->compact)
            serve_jadd(o, "count", json_object_new_int64((int64_t)res->n_hits));
        else
            serve_jadd(o, "elapsed_ms", serve_jnum(res->elapsed_ms, 3));
        ok = match_json(o, res);
        if (ok) {
            ok = serve_jadd(o, "results", arr);
            arr = NULL;
        }
        struct json_object *plan = ok ? serve_plan_json(res) : NULL;
        ok = plan && serve_jadd(o, "plan", plan);
    }
    search_result_free(res);
    json_object_put(arr);
    if (!ok) {
        json_object_put(o);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    *out = o;
    return 0;
}

/* ---------------------------------------------------------------- endpoint details */

/* Path equality with placeholder names ignored ({id} == {movie_id}) and one
   trailing slash tolerated: agents rarely copy placeholder names exactly. */
static bool path_similar(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a == '{' && *b == '{') {
            while (*a && *a != '}') a++;
            while (*b && *b != '}') b++;
            if (!*a || !*b) return false;
            a++;
            b++;
            continue;
        }
        if (*a != *b) return false;
        a++;
        b++;
    }
    if (*a == '/' && !a[1]) a++;
    if (*b == '/' && !b[1]) b++;
    return !*a && !*b;
}

/* Finds operations by method + path; exact matches first, then similar ones. */
static int find_by_route(serve_snapshot *snap, const char *method, const char *path,
                         const char *api, long *found, apidex_error *err)
{
    *found = -1;
    for (int pass = 0; pass < 2; pass++) {
        long first = -1;
        size_t n = 0;
        core_buf apis;
        core_buf_init(&apis, 4096);
        size_t n_ops = 0;
        const store_operation *ops = search_engine_operations(snap->eng, &n_ops);
        for (size_t i = 0; i < n_ops; i++) {
            const store_operation *op = &ops[i];
            if (strcasecmp(op->method, method)) continue;
            if (api && strcmp(op->api, api)) continue;
            if (pass == 0 ? strcmp(op->path, path) != 0 : !path_similar(op->path, path)) continue;
            if (first < 0) first = (long)i;
            core_buf_printf(&apis, "%s%s", n ? ", " : "", op->id);
            n++;
        }
        if (n > 1) {
            int rc = core_error_set(err, APIDEX_EINVAL,
                                    "%.10s %.200s is ambiguous (%.200s): give the id, or the api",
                                    method, path, apis.data ? apis.data : "");
            core_buf_free(&apis);
            return rc;
        }
        core_buf_free(&apis);
        if (n == 1) {
            *found = first;
            return 0;
        }
    }
    return core_error_set(err, APIDEX_ENOTFOUND,
                          "no endpoint %.10s %.300s%s%.100s in the index: search_endpoints finds "
                          "endpoints by task",
                          method, path, api ? " in API " : "", api ? api : "");
}

/* An id an agent typed as "METHOD /path" or "api:METHOD /path" when the index
   keys the operation by operationId. */
static int find_by_loose_id(serve_snapshot *snap, const char *id, long *found, apidex_error *err)
{
    const char *colon = strchr(id, ':');
    const char *route = id;
    char api[256] = "";
    if (colon && (size_t)(colon - id) < sizeof api && colon[1] != '/' && strchr(colon, ' ')) {
        memcpy(api, id, (size_t)(colon - id));
        api[colon - id] = '\0';
        route = colon + 1;
    }
    const char *sp = strchr(route, ' ');
    char method[16];
    if (!sp || (size_t)(sp - route) >= sizeof method || sp[1] != '/') return APIDEX_ENOTFOUND;
    memcpy(method, route, (size_t)(sp - route));
    method[sp - route] = '\0';
    if (!is_http_method(method)) return APIDEX_ENOTFOUND;
    return find_by_route(snap, method, sp + 1, api[0] ? api : NULL, found, err);
}

static struct json_object *str_array(const char *const *items, size_t n)
{
    struct json_object *arr = json_object_new_array();
    for (size_t i = 0; arr && i < n; i++) json_object_array_add(arr, serve_jstr(items[i]));
    return arr;
}

static struct json_object *servers_json(const store_api *api)
{
    struct json_object *arr = json_object_new_array();
    for (size_t i = 0; arr && i < api->n_servers; i++)
        if (api->servers[i].url) json_object_array_add(arr, serve_jstr(api->servers[i].url));
    return arr;
}

int serve_find_endpoint(serve_snapshot *snap, const char *id, const char *method, const char *path,
                        const char *api, long *out, apidex_error *err)
{
    long found = -1;
    int rc;
    *out = -1;
    if (id && *id) {
        if (!serve_text_ok(id, strlen(id)) || strlen(id) > 2048)
            return core_error_set(err, APIDEX_EINVAL, "id is not a valid endpoint id");
        found = search_engine_find_operation(snap->eng, id);
        if (found < 0) {
            apidex_error loose;
            core_error_clear(&loose);
            rc = find_by_loose_id(snap, id, &found, &loose);
            if (rc == APIDEX_EINVAL) {
                *err = loose;
                return rc;
            }
            if (rc)
                return core_error_set(err, APIDEX_ENOTFOUND,
                                      "no endpoint with id '%.300s' in the index: ids come from "
                                      "search_endpoints (or give method and path)",
                                      id);
        }
    } else if (method && path) {
        if (!is_http_method(method))
            return core_error_set(err, APIDEX_EINVAL, "method '%.40s' is not an HTTP method",
                                  method);
        if (!serve_text_ok(path, strlen(path)) || path[0] != '/' || strlen(path) > 2048)
            return core_error_set(err, APIDEX_EINVAL,
                                  "path must be the path template, starting with '/'");
        const char *api_id = NULL;
        if (api && *api) {
            const char *one[] = {api, NULL};
            const char *ids[SERVE_MAX_FILTERS + 1];
            if ((rc = check_apis(snap, one, ids, err)) != 0) return rc;
            api_id = ids[0];
        }
        if ((rc = find_by_route(snap, method, path, api_id, &found, err)) != 0) return rc;
    } else {
        return core_error_set(err, APIDEX_EINVAL,
                              "give the endpoint id (from search_endpoints), or method and path");
    }
    *out = found;
    return 0;
}

int serve_query_endpoint(serve_snapshot *snap, const char *id, const char *method, const char *path,
                         const char *api, const char *detail, struct json_object **out,
                         apidex_error *err)
{
    *out = NULL;
    long found = -1;
    view_detail level = VIEW_DETAIL_CALL;
    int rc = detail ? view_detail_parse(detail, &level, err) : 0;
    if (!rc) rc = serve_find_endpoint(snap, id, method, path, api, &found, err);
    if (rc) return rc;
    return serve_endpoint_detail(snap->idx, found, level, out, err);
}

/* ---------------------------------------------------------------- the catalog */

/* At most max bytes of s, cut at a word boundary, with an ellipsis. */
static struct json_object *short_text(const char *s, size_t max)
{
    if (!s) return NULL;
    size_t n = strlen(s);
    if (n <= max) return json_object_new_string(s);
    size_t cut = max;
    while (cut > max / 2 && !isspace((unsigned char)s[cut])) cut--;
    while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80) cut--; /* never split UTF-8 */
    char *t = malloc(cut + 4);
    if (!t) return NULL;
    memcpy(t, s, cut);
    memcpy(t + cut, "\xe2\x80\xa6", 4);
    struct json_object *o = json_object_new_string(t);
    free(t);
    return o;
}

static struct json_object *api_summary(const store_api *api)
{
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    serve_jadd(o, "id", serve_jstr(api->id));
    serve_jadd(o, "title", serve_jstr(api->title));
    serve_jadd(o, "version", serve_jstr(api->version));
    serve_jadd(o, "description", short_text(api->description, 300));
    serve_jadd(o, "spec_version", serve_jstr(api->spec_version));
    serve_jadd(o, "servers", servers_json(api));
    serve_jadd(o, "n_operations", json_object_new_int64((int64_t)api->n_ops));
    serve_jadd(o, "n_schemas", json_object_new_int64((int64_t)api->n_schemas));
    struct json_object *tags = json_object_new_array();
    for (size_t t = 0; tags && t < api->n_tags; t++) {
        if (!api->tags[t].n_ops) continue;
        struct json_object *to = json_object_new_object();
        if (!to) break;
        serve_jadd(to, "name", serve_jstr(api->tags[t].name));
        serve_jadd(to, "n_operations", json_object_new_int64((int64_t)api->tags[t].n_ops));
        json_object_array_add(tags, to);
    }
    serve_jadd(o, "tags", tags);
    return o;
}

int serve_query_apis(serve_snapshot *snap, struct json_object **out, apidex_error *err)
{
    struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
    size_t n_ops = 0;
    bool ok = o && arr;
    for (size_t i = 0; ok && i < snap->n_apis; i++) {
        struct json_object *a = api_summary(&snap->apis[i]);
        ok = a && json_object_array_add(arr, a) == 0;
        n_ops += snap->apis[i].n_ops;
    }
    if (ok) {
        serve_jadd(o, "count", json_object_new_int64((int64_t)snap->n_apis));
        serve_jadd(o, "n_operations", json_object_new_int64((int64_t)n_ops));
        ok = serve_jadd(o, "apis", arr);
        arr = NULL;
    }
    json_object_put(arr);
    if (!ok) {
        json_object_put(o);
        *out = NULL;
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    *out = o;
    return 0;
}

int serve_query_api(serve_snapshot *snap, const char *api_id, struct json_object **out,
                    apidex_error *err)
{
    *out = NULL;
    long ai = -1;
    if (!api_id) return core_error_set(err, APIDEX_ENOTFOUND, "no API given");
    int rc = store_resolve_api(snap->idx, api_id, &ai, err);
    if (rc) return rc;
    const store_api *api = &snap->apis[ai];
    struct json_object *o = json_object_new_object();
    if (!o) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    serve_jadd(o, "id", serve_jstr(api->id));
    serve_jadd(o, "title", serve_jstr(api->title));
    serve_jadd(o, "version", serve_jstr(api->version));
    serve_jadd(o, "description", serve_jstr(api->description));
    serve_jadd(o, "spec_version", serve_jstr(api->spec_version));
    serve_jadd(o, "servers", servers_json(api));
    struct json_object *tags = json_object_new_array();
    for (size_t t = 0; tags && t < api->n_tags; t++) {
        struct json_object *to = json_object_new_object();
        if (!to) break;
        serve_jadd(to, "name", serve_jstr(api->tags[t].name));
        serve_jadd(to, "description", serve_jstr(api->tags[t].description));
        serve_jadd(to, "n_operations", json_object_new_int64((int64_t)api->tags[t].n_ops));
        json_object_array_add(tags, to);
    }
    serve_jadd(o, "tags", tags);
    struct json_object *ops = json_object_new_array();
    core_buf uri;
    core_buf_init(&uri, 8192);
    size_t n_ops = 0;
    const store_operation *all = search_engine_operations(snap->eng, &n_ops);
    for (size_t i = 0; ops && i < n_ops; i++) {
        const store_operation *op = &all[i];
        if (op->api_index != (size_t)ai) continue;
        struct json_object *oo = json_object_new_object();
        if (!oo) break;
        serve_jadd(oo, "id", serve_jstr(op->id));
        serve_jadd(oo, "endpoint", endpoint_json(op->method, op->path));
        serve_jadd(oo, "summary", serve_jstr(search_engine_op_summary(snap->eng, i)));
        serve_jadd(oo, "tags", str_array(op->tags, op->n_tags));
        serve_jadd(oo, "deprecated", json_object_new_boolean(op->deprecated));
        core_buf_reset(&uri);
        core_buf_puts(&uri, "apidex://endpoints/");
        serve_percent_encode(&uri, op->id);
        serve_jadd(oo, "uri", json_object_new_string(uri.data ? uri.data : ""));
        json_object_array_add(ops, oo);
    }
    core_buf_free(&uri);
    serve_jadd(o, "operations", ops);
    *out = o;
    return 0;
}

/* ---------------------------------------------------------------- ask */

static struct json_object *str_list(const char *const *items, size_t n)
{
    struct json_object *arr = json_object_new_array();
    for (size_t i = 0; arr && i < n; i++)
        if (items[i]) json_object_array_add(arr, json_object_new_string(items[i]));
    return arr;
}

/* The endpoints of the assembled context, in its order, as short summaries. */
static struct json_object *ask_endpoints(serve_snapshot *snap, const agent_answer *ans)
{
    struct json_object *arr = json_object_new_array();
    size_t n_ops = 0;
    const store_operation *ops = search_engine_operations(snap->eng, &n_ops);
    for (size_t i = 0; arr && i < ans->n_endpoints; i++) {
        long oi = search_engine_find_operation(snap->eng, ans->endpoints[i]);
        if (oi < 0) continue;
        const store_operation *op = &ops[oi];
        bool producer = false;
        for (size_t k = 0; k < ans->n_items; k++)
            if (!ans->items[k].is_schema && !strcmp(ans->items[k].id, op->id))
                producer = ans->items[k].producer;
        struct json_object *o = json_object_new_object();
        if (!o) break;
        serve_jadd(o, "id", serve_jstr(op->id));
        serve_jadd(o, "endpoint", endpoint_json(op->method, op->path));
        serve_jadd(o, "api", serve_jstr(op->api));
        serve_jadd(o, "summary", serve_jstr(search_engine_op_summary(snap->eng, (size_t)oi)));
        serve_jadd(o, "role", json_object_new_string(producer ? "producer" : "primary"));
        json_object_array_add(arr, o);
    }
    return arr;
}

int serve_query_ask(serve_snapshot *snap, const serve_ask_args *a, struct json_object **out,
                    apidex_error *err)
{
    *out = NULL;
    int rc = check_task(a->task, err);
    if (rc) return rc;
    const char *apis[SERVE_MAX_FILTERS + 1];
    if ((rc = check_apis(snap, a->apis, apis, err)) != 0) return rc;
    size_t budget = a->budget ? a->budget : SERVE_DEFAULT_BUDGET;
    if (budget < SERVE_MIN_BUDGET || budget > SERVE_MAX_BUDGET)
        return core_error_set(err, APIDEX_EINVAL, "budget must be between %d and %d tokens",
                              SERVE_MIN_BUDGET, SERVE_MAX_BUDGET);
    /* The same askAPI as `apidex ask`: retrieval, expansion, assembly, and the LLM's
       answer when the server has one (cached on disk per index build and question). */
    agent_ask_options opt = {.apis = a->apis ? apis : NULL,
                             .budget = budget,
                             .context_only = a->llm == NULL,
                             .mode = serve_db_search(snap->db)->mode,
                             .hybrid_weight = serve_db_search(snap->db)->hybrid_weight};
    agent_answer *ans = NULL;
    if ((rc = agent_ask(snap->idx, snap->eng, a->llm, a->task, &opt, &ans, err)) != 0) return rc;
    struct json_object *o = json_object_new_object();
    bool ok = o != NULL;
    if (ok) {
        serve_jadd(o, "task", json_object_new_string(a->task));
        serve_jadd(o, "budget", json_object_new_int64((int64_t)budget));
        serve_jadd(o, "context_tokens", json_object_new_int64((int64_t)ans->context_tokens));
        serve_jadd(o, "completeness", serve_jnum(ans->completeness, 3));
        serve_jadd(o, "endpoints", ask_endpoints(snap, ans));
        serve_jadd(o, "context", json_object_new_string(ans->context ? ans->context : ""));
        serve_jadd(o, "answer", serve_jstr(ans->answer));
        serve_jadd(o, "llm_used", json_object_new_boolean(ans->llm_used));
        serve_jadd(o, "model", serve_jstr(ans->model));
        serve_jadd(o, "note", serve_jstr(ans->note));
        ok = serve_jadd(o, "cited", str_list(ans->cited, ans->n_cited));
    }
    agent_answer_free(ans);
    if (!ok) {
        json_object_put(o);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    *out = o;
    return 0;
}
