/*
 * One endpoint at a detail level (summary, call, full) as json-c: the operation behind the
 * index row (store_operation_doc: the document the index names, or the snapshot it keeps of
 * an MCP server's tool list, loaded once per snapshot), rendered by view_detail_json
 * (the single renderer of show, get_endpoint and /v1/endpoints), and the
 * producers of its inputs, which only the index knows, are added.
 */
#include "serve/serve_int.h"

#include "view/view.h"
#include "oas/oas.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_PRODUCERS = 12,
    /* The nesting json-c accepts when it reads the renderer's text: jt_write_json writes a
       value at most 4096 levels deep and the renderer's own nesting around it is far below
       512. json-c's default (32) refused a deep example as "out of memory". */
    DETAIL_MAX_DEPTH = 4096 + 512
};

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

/* When the document cannot be read again (moved, or a server-database index built
   elsewhere): what the index itself holds, at the level, saying so. */
static struct json_object *stored_detail(store_index *idx, long oi, const store_operation *sop,
                                         const store_api *sapi, view_detail level, const char *why)
{
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    core_buf url;
    core_buf_init(&url, 0);
    const char *base = sapi->n_servers ? sapi->servers[0].url : NULL;
    size_t bl = base ? strlen(base) : 0;
    while (bl && base[bl - 1] == '/') bl--;
    if (bl) core_buf_append(&url, base, bl);
    core_buf_puts(&url, sop->path);
    serve_jadd(o, "id", serve_jstr(sop->id));
    serve_jadd(o, "api", serve_jstr(sop->api));
    serve_jadd(o, "detail", json_object_new_string(view_detail_name(level)));
    serve_jadd(o, "method", serve_jstr(sop->method));
    serve_jadd(o, "path", serve_jstr(sop->path));
    serve_jadd(o, "url", json_object_new_string(url.data ? url.data : sop->path));
    serve_jadd(o, "summary", serve_jstr(sop->summary));
    core_buf_free(&url);
    if (level == VIEW_DETAIL_SUMMARY) return o;
    serve_jadd(o, "operation_id", serve_jstr(sop->operation_id));
    struct json_object *tags = json_object_new_array();
    for (size_t i = 0; tags && i < sop->n_tags; i++)
        json_object_array_add(tags, serve_jstr(sop->tags[i]));
    serve_jadd(o, "tags", tags);
    serve_jadd(o, "deprecated", json_object_new_boolean(sop->deprecated));
    serve_jadd(o, "description", serve_jstr(sop->description));
    struct json_object *servers = json_object_new_array();
    for (size_t i = 0; servers && i < sapi->n_servers; i++) {
        struct json_object *sv = json_object_new_object();
        if (!sv) break;
        serve_jadd(sv, "url", serve_jstr(sapi->servers[i].url));
        json_object_array_add(servers, sv);
    }
    serve_jadd(o, "servers", servers);
    struct json_object *inputs = json_object_new_array();
    for (size_t k = 0; inputs && k < sop->n_inputs; k++) {
        struct json_object *in = json_object_new_object();
        if (!in) break;
        serve_jadd(in, "name", serve_jstr(sop->inputs[k].name));
        serve_jadd(in, "in", serve_jstr(sop->inputs[k].location));
        serve_jadd(in, "required", json_object_new_boolean(sop->inputs[k].required));
        json_object_array_add(inputs, in);
    }
    serve_jadd(o, "inputs", inputs);
    serve_jadd(o, "content", json_object_new_string(store_operation_content(idx, (size_t)oi)));
    serve_jadd(o, "note", json_object_new_string(why));
    serve_jadd(o, "producers", producers(idx, oi));
    return o;
}

int serve_operation_rows(store_index *idx, long oi, const store_operation **sop,
                         const store_api **sapi, apidex_error *err)
{
    const store_operation *ops;
    const store_api *apis;
    size_t n_ops, n_apis;
    *sop = NULL;
    *sapi = NULL;
    int rc = store_operations(idx, &ops, &n_ops, err);
    if (!rc) rc = store_apis(idx, &apis, &n_apis, err);
    if (rc) return rc;
    if (oi < 0 || (size_t)oi >= n_ops || ops[oi].api_index >= n_apis)
        return core_error_set(err, APIDEX_EINVAL, "no such endpoint");
    *sop = &ops[oi];
    *sapi = &apis[ops[oi].api_index];
    return 0;
}

int serve_endpoint_detail(store_index *idx, long oi, int lv, struct json_object **out,
                          apidex_error *err)
{
    *out = NULL;
    view_detail level = (view_detail)(lv & VIEW_DETAIL_LEVEL_MASK);
    const store_operation *sop;
    const store_api *sapi;
    int rc = serve_operation_rows(idx, oi, &sop, &sapi, err);
    if (rc) return rc;
    store_doc *doc = NULL;
    const spec_api *api = NULL;
    const spec_operation *op = NULL;
    rc = store_operation_doc(idx, oi, &doc, &api, &op, err);
    if (!doc) return rc;
    if (rc) op = NULL;
    /* A document changed since the build would answer from another version than search. */
    bool changed = op && api->content_hash != sapi->content_hash;
    if ((!op || changed) && rc != APIDEX_ENOMEM) {
        store_doc_release(doc);
        *out = stored_detail(idx, oi, sop, sapi, level,
                             rc ? "the API's document could not be read again: this is the "
                                  "rendering stored in the index (`content`); index the "
                                  "document again for the full structure"
                             : changed
                                 ? "the API's document changed since it was indexed: this is the "
                                   "rendering stored in the index (`content`); rebuild the index "
                                   "with `apidex index` for the full structure"
                                 : "the API's document no longer has this endpoint: this is the "
                                   "rendering stored in the index (`content`); rebuild the index "
                                   "with `apidex index`");
        return *out ? 0 : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    core_buf b;
    core_buf_init(&b, 0);
    if (!rc && (rc = view_detail_json(api, op, (view_detail)lv, &b)) != 0)
        rc = core_error_set(err, rc,
                            rc == APIDEX_ELIMIT ? "%s at detail %s is over 4 MiB: ask for "
                                                  "detail call"
                                                : "%s: out of memory",
                            sop->id, view_detail_name(level));
    /* The index's id wins: the renderer's is the spec's, the same unless ids collided. */
    struct json_object *o = NULL;
    if (!rc) {
        struct json_tokener *tok = json_tokener_new_ex(DETAIL_MAX_DEPTH);
        o = tok ? json_tokener_parse_ex(tok, b.data, (int)b.len) : NULL;
        bool deep = tok && json_tokener_get_error(tok) == json_tokener_error_depth;
        json_tokener_free(tok);
        if (!o)
            rc = deep ? core_error_set(err, APIDEX_ELIMIT,
                                       "%s at detail %s is nested deeper than %d levels: ask "
                                       "for detail call",
                                       sop->id, view_detail_name(level), DETAIL_MAX_DEPTH)
                      : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    core_buf_free(&b);
    struct json_object *mcp = o ? view_tool_mcp_entry(op, sop->api) : NULL;
    if (mcp) serve_jadd(o, "mcp", mcp);
    store_doc_release(doc);
    if (rc) return rc;
    json_object_object_add(o, "id", serve_jstr(sop->id));
    json_object_object_add(o, "api", serve_jstr(sop->api));
    if (level != VIEW_DETAIL_SUMMARY) serve_jadd(o, "producers", producers(idx, oi));
    *out = o;
    return 0;
}
