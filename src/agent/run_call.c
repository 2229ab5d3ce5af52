/*
 * The executor behind the RestGPT loop: agent_run_ops wired to the index (which operation,
 * which document), the request builder, the safe transport and the response shaping.
 * Each API's document is read again once per run (the first time one of its operations is
 * described or called), under the index's API id, as `apidex call` reads it.
 */
#include "agent/agent.h"

#include "view/view.h"
#include "store/store.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

typedef struct loaded_api {
    const char *id; /* the index's API id */
    store_doc *doc;
    const spec_api *api; /* NULL: the document could not be read (why) */
    const char *why;
} loaded_api;

struct agent_run_executor {
    store_index *idx;
    agent_run_executor_options opt;
    loaded_api *apis;
    size_t n_apis, cap_apis;
    core_arena *arena;
};

int agent_run_executor_new(store_index *idx, const agent_run_executor_options *opt,
                           agent_run_executor **out, agent_run_ops *ops, apidex_error *err)
{
    *out = NULL;
    agent_run_executor *x = calloc(1, sizeof *x);
    if (!x || !(x->arena = core_arena_new(0))) {
        free(x);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    x->idx = idx;
    if (opt) x->opt = *opt;
    *out = x;
    *ops = (agent_run_ops){.describe = agent_run_describe,
                           .call = agent_run_call,
                           .select = agent_run_select,
                           .ctx = x};
    return 0;
}

void agent_run_executor_free(agent_run_executor *x)
{
    if (!x) return;
    for (size_t i = 0; i < x->n_apis; i++) store_doc_release(x->apis[i].doc);
    free(x->apis);
    core_arena_free(x->arena);
    free(x);
}

/* An operation of the index with its API, and both as the loaded document has them. */
typedef struct resolved {
    const store_operation *sop;
    const store_api *sapi;
    const spec_api *api;
    const spec_operation *op;
} resolved;

/* The operation of the index named id, its API loaded: 0, or APIDEX_EINVAL (err says why). */
static int resolve(agent_run_executor *x, const char *id, resolved *out, apidex_error *err)
{
    const store_operation *ops = NULL;
    const store_api *apis = NULL;
    size_t n_ops = 0, n_apis = 0;
    int rc = store_operations(x->idx, &ops, &n_ops, err);
    if (!rc) rc = store_apis(x->idx, &apis, &n_apis, err);
    if (rc) return rc;
    long oi = id ? store_find_operation(x->idx, id) : -1;
    if (oi < 0) return core_error_set(err, APIDEX_EINVAL, "the index has no operation %s", id);
    const store_operation *sop = &ops[oi];
    long ai = store_find_api(x->idx, sop->api);
    if (ai < 0) return core_error_set(err, APIDEX_EINVAL, "the index has no API %s", sop->api);
    const store_api *sapi = &apis[ai];
    loaded_api *l = NULL;
    for (size_t i = 0; i < x->n_apis && !l; i++)
        if (!strcmp(x->apis[i].id, sapi->id)) l = &x->apis[i];
    if (!l) {
        if (core_array_grow(&x->apis, &x->cap_apis, x->n_apis, sizeof *x->apis, 4))
            return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        l = &x->apis[x->n_apis++];
        memset(l, 0, sizeof *l);
        l->id = core_arena_strdup(x->arena, sapi->id);
        if (!l->id) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        apidex_error lerr;
        core_error_clear(&lerr);
        int lrc = exec_api_reload(x->idx, (size_t)ai, &l->doc, &l->api, &lerr);
        if (lrc == APIDEX_ENOMEM) return core_error_set(err, lrc, "out of memory");
        if (lrc) l->why = core_arena_strdup(x->arena, lerr.message);
    }
    if (!l->api) return core_error_set(err, APIDEX_EINVAL, "%s", l->why ? l->why : "no document");
    const spec_operation *op = store_doc_operation(l->api, sop->method, sop->path);
    if (!op)
        return core_error_set(err, APIDEX_EINVAL, "%s %s is no longer in the document of %s",
                              sop->method, sop->path, sapi->id);
    *out = (resolved){.sop = sop, .sapi = sapi, .api = l->api, .op = op};
    return 0;
}

int agent_run_describe(void *ctx, const char *operation_id, core_buf *out, apidex_error *err)
{
    resolved r;
    int rc = resolve(ctx, operation_id, &r, err);
    if (rc == APIDEX_EINVAL) { /* the model still sees what the index knows */
        core_buf_printf(out, "(no details: %s)\n", err->message);
        core_error_clear(err);
        return 0;
    }
    if (rc) return rc;
    const spec_api *api = r.api;
    const spec_operation *op = r.op;
    core_buf j;
    core_buf_init(&j, 0);
    rc = view_detail_json(api, op, VIEW_DETAIL_CALL, &j);
    if (!rc)
        rc = view_detail_text(j.data, j.len, out, err);
    else
        rc = core_error_set(err, rc, "%s: its details are over 4 MiB or out of memory",
                            operation_id);
    core_buf_free(&j);
    return rc;
}

/* --server API=URL for api_id, or NULL. */
static const char *server_for(const agent_run_executor *x, const char *api_id)
{
    size_t n = strlen(api_id);
    for (size_t i = 0; i < x->opt.n_servers; i++) {
        const char *s = x->opt.servers[i];
        if (!strncmp(s, api_id, n) && s[n] == '=') return s + n + 1;
    }
    return NULL;
}

int agent_run_call(void *ctx, const char *operation_id, struct json_object *params,
                   struct json_object *body, core_arena *arena, long *status, const char **request,
                   const char **body_out, const char **shaped, apidex_error *err)
{
    agent_run_executor *x = ctx;
    *status = 0;
    *request = *body_out = *shaped = NULL;
    resolved res;
    int rc = resolve(x, operation_id, &res, err);
    if (rc) return rc;
    size_t n_in = 0;
    const char **in = exec_params_from_json(arena, params, &n_in, err);
    if (!in) return err->code;
    exec_build_options bo = {
        .params = in,
        .n_params = n_in,
        .body = body ? json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN) : NULL,
        .server = server_for(x, res.sapi->id),
        .overrides = res.sapi->overrides,
        .token_fn = x->opt.token_fn,
        .token_ctx = x->opt.token_ctx,
        .operation_id = res.sop->id,
        .allow_hosts = x->opt.policy.allowed_hosts,
        .n_allow_hosts = x->opt.policy.n_allowed_hosts};
    exec_request r;
    rc = exec_build(res.api, res.op, &bo, &r, err);
    if (rc) return rc;
    *request = core_arena_printf(arena, "%s %s%s%s", r.method, exec_mask(&r, r.url, r.arena),
                                 r.body ? " " : "", r.body ? exec_mask(&r, r.body, r.arena) : "");
    exec_call_options co = {.policy = x->opt.policy, .shape = x->opt.shape};
    exec_response *resp = NULL;
    json_object *o = NULL;
    rc = exec_call(&r, res.api, res.op, &co, &resp, &o, err);
    if (!rc) {
        *status = resp->status;
        *body_out = core_arena_strndup(arena, resp->body ? resp->body : "", resp->body_len);
        *shaped = core_arena_strdup(
            arena, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
        if (!*request || !*body_out || !*shaped)
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    json_object_put(o);
    exec_response_free(resp);
    exec_build_free(&r);
    return rc;
}

int agent_run_select(void *ctx, const char *body, const char *selection, core_arena *arena,
                     const char **out, apidex_error *err)
{
    (void)ctx;
    *out = NULL;
    json_tokener *tok = json_tokener_new_ex(256);
    json_object *v =
        tok ? json_tokener_parse_ex(tok, body ? body : "", (int)strlen(body ? body : "")) : NULL;
    json_tokener_free(tok);
    if (!v) return core_error_set(err, APIDEX_EINVAL, "the response body is not JSON");
    json_object *sel = NULL;
    int rc = exec_select(v, selection, &sel, err);
    if (!rc &&
        (!sel || (json_object_is_type(sel, json_type_array) && !json_object_array_length(sel))))
        rc = core_error_set(err, APIDEX_EINVAL, "%s selects nothing in the response", selection);
    if (!rc) {
        *out = core_arena_strdup(arena,
                                 json_object_to_json_string_ext(
                                     sel, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        if (!*out) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    json_object_put(sel);
    json_object_put(v);
    return rc;
}
