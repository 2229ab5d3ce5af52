/*
 * One endpoint at a detail level (summary, call, full) as json-c: the spec is
 * re-read from the document the index names, rendered by chunk_detail_json
 * (the single renderer of show, get_endpoint and /v1/endpoints), and the
 * producers of its inputs, which only the index knows, are added.
 */
#include "serve/serve_int.h"

#include "chunk/chunk.h"
#include "spec/spec.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_PRODUCERS = 12 };

static const spec_operation *find_op(const spec_api *api, const store_operation *sop)
{
    for (size_t i = 0; i < api->n_ops; i++)
        if (!strcmp(api->ops[i].method, sop->method) && !strcmp(api->ops[i].path, sop->path))
            return &api->ops[i];
    return NULL;
}

static int by_score(const void *a, const void *b)
{
    const store_edge *x = *(const store_edge *const *)a, *y = *(const store_edge *const *)b;
    return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

static struct json_object *producers(store_index *idx, long oi)
{
    const store_edge *edges = NULL;
    const store_operation *ops = NULL;
    size_t n_edges = 0, n_ops = 0, n = 0;
    apidex_error err;
    struct json_object *arr = json_object_new_array();
    if (!arr || store_edges(idx, &edges, &n_edges, &err) ||
        store_operations(idx, &ops, &n_ops, &err))
        return arr;
    const store_edge *mine[MAX_PRODUCERS * 8];
    for (size_t i = 0; i < n_edges && n < sizeof mine / sizeof mine[0]; i++)
        if (edges[i].kind == STORE_EDGE_PRODUCER && edges[i].src_index == oi &&
            edges[i].dst_index >= 0)
            mine[n++] = &edges[i];
    qsort(mine, n, sizeof *mine, by_score);
    for (size_t i = 0; i < n && i < MAX_PRODUCERS; i++) {
        const store_edge *e = mine[i];
        const store_operation *p = &ops[e->dst_index];
        char ep[1024];
        snprintf(ep, sizeof ep, "%s %s", p->method, p->path);
        struct json_object *o = json_object_new_object();
        if (!o) break;
        serve_jadd(o, "param", json_object_new_string(e->param ? e->param : ""));
        serve_jadd(o, "producer", serve_jstr(p->id));
        serve_jadd(o, "endpoint", json_object_new_string(ep));
        serve_jadd(o, "score", serve_jnum(e->score, 2));
        json_object_array_add(arr, o);
    }
    return arr;
}

int serve_endpoint_detail(store_index *idx, long oi, int lv, struct json_object **out,
                          apidex_error *err)
{
    *out = NULL;
    chunk_detail level = (chunk_detail)lv;
    const store_operation *ops;
    const store_api *apis;
    size_t n_ops, n_apis;
    int rc = store_operations(idx, &ops, &n_ops, err);
    if (!rc) rc = store_apis(idx, &apis, &n_apis, err);
    if (rc) return rc;
    if (oi < 0 || (size_t)oi >= n_ops)
        return core_error_set(err, APIDEX_EINVAL, "no such endpoint");
    const store_operation *sop = &ops[oi];
    const store_api *sapi = &apis[sop->api_index];
    spec_registry *reg = NULL;
    if ((rc = spec_registry_new(NULL, &reg, err)) != 0) return rc;
    rc = spec_registry_add(reg, sapi->document, err);
    const spec_api *api = !rc && spec_registry_count(reg) ? spec_registry_api(reg, 0) : NULL;
    const spec_operation *op = api && !api->failed ? find_op(api, sop) : NULL;
    if (!rc && !op)
        rc = core_error_set(err, APIDEX_ENOTFOUND,
                            "%s %s is no longer in the API's document (rebuild the index with "
                            "`apidex index`)",
                            sop->method, sop->path);
    else if (rc)
        rc = core_error_set(err, rc,
                            "the document of API %.200s could not be read again (rebuild the "
                            "index with `apidex index`)",
                            sapi->id);
    core_buf b;
    core_buf_init(&b, 0);
    if (!rc && (rc = chunk_detail_json(api, op, level, &b)) != 0)
        rc = core_error_set(err, rc,
                            rc == APIDEX_ELIMIT ? "%s at detail %s is over 4 MiB: ask for "
                                                  "detail call"
                                                : "%s: out of memory",
                            sop->id, chunk_detail_name(level));
    /* The index's id wins: the renderer's is the spec's, the same unless ids collided. */
    struct json_object *o = NULL;
    if (!rc) {
        o = json_tokener_parse(b.data);
        if (!o) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    core_buf_free(&b);
    spec_registry_free(reg);
    if (rc) return rc;
    json_object_object_add(o, "id", serve_jstr(sop->id));
    json_object_object_add(o, "api", serve_jstr(sop->api));
    if (level != CHUNK_DETAIL_SUMMARY) serve_jadd(o, "producers", producers(idx, oi));
    *out = o;
    return 0;
}
