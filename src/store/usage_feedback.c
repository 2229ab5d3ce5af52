/*
 * Feedback: the endpoints a caller says it used, resolved against the index and recorded
 * in the usage sidecar (usage_sidecar.c). One resolver for the CLI (apidex feedback), MCP
 * (report_usage) and HTTP (POST /v1/feedback): an operation id ("api:operationId"), or
 * "METHOD /path" (in the API named, or the one API that has it); all are resolved before
 * any is recorded, and an unknown one names the closest endpoints the index has.
 */
#include "store/store_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum { FEEDBACK_NEAR = 3 };

static size_t edits(const char *a, const char *b, size_t cap)
{
    return core_edit_distance(a, strlen(a), b, strlen(b), cap);
}

/* Splits "METHOD /path" into an upper-case method and the path's shape; false if not. */
static bool split_endpoint(const char *what, char *method, size_t mcap, core_buf *shape)
{
    while (isspace((unsigned char)*what)) what++;
    size_t ml = strcspn(what, " \t");
    const char *path = what + ml;
    while (isspace((unsigned char)*path)) path++;
    if (!ml || ml >= mcap || *path != '/') return false;
    for (size_t i = 0; i < ml; i++) method[i] = (char)toupper((unsigned char)what[i]);
    method[ml] = '\0';
    char *p = strdup(path);
    if (!p) return false;
    size_t pl = strlen(p);
    while (pl && isspace((unsigned char)p[pl - 1])) p[--pl] = '\0';
    store_path_shape(p, shape);
    free(p);
    return !shape->failed;
}

/* The closest endpoints to what (by id and by "METHOD path"), as "; closest: ..." into b. */
static void closest(core_buf *b, const store_operation *ops, size_t n, const char *what,
                    const char *api)
{
    size_t cap = strlen(what) / 2 + 3, dist[FEEDBACK_NEAR];
    long best[FEEDBACK_NEAR];
    size_t nb = 0;
    core_buf mp, shape, wshape; /* "METHOD /a/{}/b": parameter names do not count */
    core_buf_init(&mp, 0);
    core_buf_init(&shape, 0);
    core_buf_init(&wshape, 0);
    store_path_shape(what, &wshape);
    for (size_t i = 0; i < n; i++) {
        if (api && strcasecmp(ops[i].api, api)) continue;
        store_path_shape(ops[i].path, &shape);
        core_buf_reset(&mp);
        core_buf_printf(&mp, "%s %s", ops[i].method, shape.data ? shape.data : "");
        size_t d = edits(what, ops[i].id, cap);
        size_t d2 = mp.data && wshape.data ? edits(wshape.data, mp.data, cap) : cap;
        if (d2 < d) d = d2;
        if (d >= cap) continue;
        store_nearest_keep(best, dist, &nb, FEEDBACK_NEAR, (long)i, d);
    }
    core_buf_free(&mp);
    core_buf_free(&shape);
    core_buf_free(&wshape);
    if (!nb) return;
    core_buf_puts(b, "; closest: ");
    for (size_t k = 0; k < nb; k++)
        core_buf_printf(b, "%s'%s' (%s %s)", k ? ", " : "", ops[best[k]].id, ops[best[k]].method,
                        ops[best[k]].path);
}

int store_usage_resolve(const store_operation *ops, size_t n, const char *what, const char *api,
                        long *out, apidex_error *err)
{
    *out = -1;
    if (!what || !*what) return core_error_set(err, APIDEX_EINVAL, "an endpoint is empty");
    long found = -1;
    size_t hits = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ops[i].id, what) && (!api || !strcasecmp(ops[i].api, api))) {
            found = (long)i;
            hits++;
        }
    char method[16];
    core_buf shape, other;
    core_buf_init(&shape, 0);
    core_buf_init(&other, 0);
    if (!hits && split_endpoint(what, method, sizeof method, &shape)) {
        for (size_t i = 0; i < n; i++) {
            if (strcmp(ops[i].method, method) || (api && strcasecmp(ops[i].api, api))) continue;
            store_path_shape(ops[i].path, &other);
            if (other.data && !strcmp(other.data, shape.data)) {
                if (hits && !strcmp(ops[found].api, ops[i].api)) continue; /* one API's twin */
                found = (long)i;
                hits++;
            }
        }
    }
    core_buf_free(&other);
    core_buf_free(&shape);
    if (hits == 1) {
        *out = found;
        return 0;
    }
    core_buf msg;
    core_buf_init(&msg, 0);
    if (hits > 1) {
        core_buf_printf(&msg, "'%s' is in %zu APIs; name one (--api, or an id):", what, hits);
        size_t shown = 0;
        for (size_t i = 0; i < n && shown < 5; i++)
            if (!strcmp(ops[i].method, ops[found].method) &&
                !strcmp(ops[i].path, ops[found].path)) {
                core_buf_printf(&msg, "%s'%s'", shown++ ? ", " : " ", ops[i].id);
            }
    } else {
        core_buf_printf(&msg, "no endpoint '%s'%s%s in the index", what, api ? " in API " : "",
                        api ? api : "");
        closest(&msg, ops, n, what, api);
    }
    int rc = core_error_set(err, hits > 1 ? APIDEX_EINVAL : APIDEX_ENOTFOUND, "%s",
                            msg.data ? msg.data : "no such endpoint");
    core_buf_free(&msg);
    return rc;
}

int store_usage_feedback(const char *db_path, store_index *idx, const char *const *endpoints,
                         size_t n, const char *api, const char *task, apidex_error *err)
{
    if (!n) return core_error_set(err, APIDEX_EINVAL, "name at least one endpoint you used");
    const store_operation *ops = NULL;
    size_t n_ops = 0;
    int rc = store_operations(idx, &ops, &n_ops, err);
    if (rc) return rc;
    const char *api_id = NULL; /* the id the API name resolves to (an alias, a title) */
    if (api) {
        long ai = -1;
        const store_api *apis = NULL;
        size_t n_apis = 0;
        if ((rc = store_resolve_api(idx, api, &ai, err)) != 0) return rc;
        if ((rc = store_apis(idx, &apis, &n_apis, err)) != 0) return rc;
        api_id = ai >= 0 && (size_t)ai < n_apis ? apis[ai].id : api;
    }
    store_usage_use *uses = calloc(n, sizeof *uses);
    if (!uses) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && !rc; i++) {
        long oi = -1;
        rc = store_usage_resolve(ops, n_ops, endpoints[i], api_id, &oi, err);
        if (!rc) uses[i] = (store_usage_use){ops[oi].api, ops[oi].method, ops[oi].path};
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (!rc)
        rc = store_usage_record(db_path, uses, n, task,
                                (double)ts.tv_sec + (double)ts.tv_nsec / 1e9, err);
    free(uses);
    return rc;
}
