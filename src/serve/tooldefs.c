/*
 * Tool definitions for endpoints of an index (OpenAI function calling, Anthropic tool use,
 * MCP tools): the ids found in the store, the documents they name read again (each API's
 * once per request), and each operation defined by the view (view/tooldefs.c) under its
 * stable name, into {"tools": [...], "calls": {...}}; or the endpoints a task's search finds.
 */
#include "serve/serve_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The documents one request holds (store_api_doc), each API's once. */
typedef struct loaded_doc {
    size_t api_index;
    store_doc *doc;
    const spec_api *api;
} loaded_doc;

/* The error for an id the index does not have, with the nearest endpoints by id and by
   "METHOD /path", as `show` names them. */
static int unknown_id(store_index *idx, const char *id, apidex_error *err)
{
    const store_operation *ops;
    size_t n_ops;
    int rc = store_operations(idx, &ops, &n_ops, err);
    if (rc) return rc;
    long unused;
    apidex_error near;
    core_error_clear(&near);
    store_usage_resolve(ops, n_ops, id, NULL, &unused, &near);
    const char *closest = strstr(near.message, "; closest: ");
    if (closest)
        return core_error_set(err, APIDEX_ENOTFOUND,
                              "no endpoint with id '%.300s' in the index; did you mean %.600s?", id,
                              closest + strlen("; closest: "));
    return core_error_set(err, APIDEX_ENOTFOUND,
                          "no endpoint with id '%.300s' in the index (ids come from "
                          "`apidex search`)",
                          id);
}

int serve_tooldefs(store_index *idx, const char *const *ids, size_t n_ids, view_tool_format fmt,
                   struct json_object **out, apidex_error *err)
{
    *out = NULL;
    int rc = 0;
    loaded_doc *docs = calloc(n_ids ? n_ids : 1, sizeof *docs);
    long *done = calloc(n_ids ? n_ids : 1, sizeof *done);
    struct json_object *result = json_object_new_object(), *tools = json_object_new_array(),
                       *calls = json_object_new_object();
    core_arena *arena = core_arena_new(64 << 20);
    size_t n_docs = 0;
    if (!docs || !done || !result || !tools || !calls || !arena)
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n_ids; i++) {
        long oi = store_find_operation(idx, ids[i]);
        const store_operation *sop;
        const store_api *sapi;
        rc = serve_operation_rows(idx, oi, &sop, &sapi, err);
        if (oi < 0 && rc == APIDEX_EINVAL) rc = unknown_id(idx, ids[i], err);
        if (rc) break;
        bool again = false; /* an endpoint asked for twice is defined once */
        for (size_t k = 0; k < i && !again; k++) again = done[k] == oi;
        done[i] = oi;
        if (again) continue;
        const loaded_doc *ld = NULL;
        for (size_t d = 0; d < n_docs && !ld; d++)
            if (docs[d].api_index == sop->api_index) ld = &docs[d];
        if (!ld) {
            loaded_doc *nd = &docs[n_docs];
            rc = store_api_doc(idx, sop->api_index, &nd->doc, &nd->api, err);
            if (nd->doc) {
                nd->api_index = sop->api_index;
                ld = &docs[n_docs++];
            }
            if (rc || !ld) {
                if (!rc) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
                break;
            }
        }
        const spec_api *api = ld->api;
        const spec_operation *op =
            api && !api->failed ? store_doc_operation(api, sop->method, sop->path) : NULL;
        if (!op) {
            rc = core_error_set(err, APIDEX_ENOTFOUND,
                                "%s %s is no longer in %s (rebuild the index with `apidex index`)",
                                sop->method, sop->path, sapi->document);
            break;
        }
        char name[VIEW_TOOL_NAME_MAX + 1];
        view_tool_name(sapi->id, sop->id, sop->operation_id, sop->method, sop->path, name);
        struct json_object *def, *call;
        rc = view_tool_define(api, op, sapi->id, sop->id, name, fmt, arena, &def, &call, err);
        if (rc) break;
        json_object_array_add(tools, def);
        serve_jadd(calls, name, call);
    }
    for (size_t d = 0; d < n_docs; d++) store_doc_release(docs[d].doc);
    free(docs);
    free(done);
    core_arena_free(arena);
    if (rc || !result) {
        json_object_put(result);
        json_object_put(tools);
        json_object_put(calls);
        return rc;
    }
    serve_jadd(result, "tools", tools);
    serve_jadd(result, "calls", calls);
    *out = result;
    return 0;
}

int serve_query_tools(serve_snapshot *snap, const char *const *ids, size_t n_ids, const char *task,
                      size_t k, view_tool_format fmt, struct json_object **out, apidex_error *err)
{
    *out = NULL;
    if (!n_ids == !task)
        return core_error_set(err, APIDEX_EINVAL,
                              "give endpoint ids (id=...) or a task (q=...), one of the two");
    for (size_t i = 0; i < n_ids; i++)
        if (!serve_text_ok(ids[i], strlen(ids[i])))
            return core_error_set(err, APIDEX_EINVAL, "an id is not valid UTF-8 text");
    if (!task) return serve_tooldefs(snap->idx, ids, n_ids, fmt, out, err);
    if (strlen(task) > SERVE_MAX_TASK || !serve_text_ok(task, strlen(task)))
        return core_error_set(err, APIDEX_EINVAL, "the task must be UTF-8 text of at most %d bytes",
                              SERVE_MAX_TASK);
    const char *t = task;
    while (*t && isspace((unsigned char)*t)) t++;
    if (!*t) return core_error_set(err, APIDEX_EINVAL, "the task is empty: say what to do");
    if (k > SERVE_MAX_K)
        return core_error_set(err, APIDEX_EINVAL, "k must be between 1 and %d", SERVE_MAX_K);
    search_query q = {.text = task,
                      .k = k,
                      .adaptive = k == 0,
                      .mode = serve_db_search(snap->db)->mode,
                      .hybrid_weight = serve_db_search(snap->db)->hybrid_weight};
    search_result *res = NULL;
    int rc = search_engine_run(snap->eng, &q, &res, err);
    if (rc) return rc;
    const char **found = calloc(res->n_hits ? res->n_hits : 1, sizeof *found);
    if (!found) {
        search_result_free(res);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < res->n_hits; i++) found[i] = res->hits[i].id;
    rc = serve_tooldefs(snap->idx, found, res->n_hits, fmt, out, err);
    free(found);
    search_result_free(res);
    return rc;
}
