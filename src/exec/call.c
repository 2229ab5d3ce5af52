/*
 * One call, from the index to the shaped answer, as `apidex call`, the RestGPT loop's executor
 * and the servers' call_endpoint / POST /v1/call all make it: the indexed API's document (the
 * index's snapshot of an MCP server's list, else the file read again), the caller's JSON
 * inputs turned into exec_build's name=value inputs, the request sent under the policy (with
 * the hosts it may reach) and the response shaped; a dry run's request as JSON.
 */
#include "exec/exec.h"

#include <json-c/json.h>
#include <string.h>

int exec_api_reload(store_index *idx, size_t ai, store_doc **doc, const spec_api **api,
                    apidex_error *err)
{
    *doc = NULL;
    *api = NULL;
    apidex_error lerr;
    core_error_clear(&lerr);
    const spec_api *a = NULL;
    int rc = store_api_doc(idx, ai, doc, &a, &lerr);
    if (!rc && a && !a->failed) {
        *api = a;
        return 0;
    }
    store_doc_release(*doc);
    *doc = NULL;
    if (lerr.code == APIDEX_ENOMEM) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    const store_api *apis = NULL;
    size_t n = 0;
    if ((rc = store_apis(idx, &apis, &n, err)) != 0) return rc;
    if (ai >= n) return core_error_set(err, APIDEX_EINVAL, "no such API");
    return core_error_set(err, APIDEX_EINVAL, "cannot read the document of %s again (%s)%s%s",
                          apis[ai].id, apis[ai].document, lerr.message[0] ? ": " : "",
                          lerr.message);
}

const char **exec_params_from_json(core_arena *a, struct json_object *params, size_t *n,
                                   apidex_error *err)
{
    *n = 0;
    size_t cap = params ? (size_t)json_object_object_length(params) : 0;
    const char **in = core_arena_calloc(a, cap + 1, sizeof *in);
    if (!in) goto oom;
    if (!params) return in;
    json_object_object_foreach(params, k, v)
    {
        if (!v) continue; /* null: left out, as an optional value the caller has not got */
        bool str = json_object_is_type(v, json_type_string);
        const char *val = str ? json_object_get_string(v)
                              : json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
        /* "\u0000" in JSON: the value as a C string would end there; never cut it silently */
        if (str && strlen(val) != (size_t)json_object_get_string_len(v)) {
            core_error_set(err, APIDEX_EINVAL,
                           "parameter '%.100s': the value holds a NUL byte (\\u0000), which "
                           "apidex does not send",
                           k);
            return NULL;
        }
        if (!(in[(*n)++] = core_arena_printf(a, "%s=%s", k, val))) goto oom;
    }
    return in;
oom:
    core_error_set(err, APIDEX_ENOMEM, "out of memory");
    return NULL;
}

int exec_call(const exec_request *r, const spec_api *api, const spec_operation *op,
              const exec_call_options *o, exec_response **resp_out, struct json_object **shaped,
              apidex_error *err)
{
    *shaped = NULL;
    if (resp_out) *resp_out = NULL;
    exec_call_options d = o ? *o : (exec_call_options){0};
    exec_policy p = d.policy;
    bool allowed = r->origin && r->origin_allowed;
    for (size_t i = 0; r->origin && !allowed && i < d.policy.n_allowed_hosts; i++) {
        bool exact;
        allowed = exec_allow_entry_matches(d.policy.allowed_hosts[i], r->origin, &exact);
    }
    if (!allowed)
        return core_error_set(err, APIDEX_EREFUSED,
                              "rule: origin; the request goes to %s, which is not an origin of "
                              "the API (its servers with their variables' defaults and enum "
                              "values); --allow-host %s to allow it",
                              r->origin ? r->origin : "an address apidex cannot read",
                              r->origin ? r->origin : "ORIGIN");
    if (exec_allowed_hosts(r, api, d.policy.allowed_hosts, d.policy.n_allowed_hosts, r->arena,
                           (const char ***)&p.allowed_hosts, &p.n_allowed_hosts))
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    exec_response *resp = NULL;
    int rc = exec_send(r, &p, &resp, err);
    if (rc) {
        /* exec_send keeps secrets out of its messages; masked again all the same */
        const char *m = exec_mask(r, err->message, r->arena);
        if (m && m != err->message) core_error_set(err, rc, "%s", m);
        return rc;
    }
    rc = exec_shape(resp, api, op, &d.shape, shaped, err);
    if (!rc && resp_out)
        *resp_out = resp;
    else
        exec_response_free(resp);
    return rc;
}

struct json_object *exec_request_json(const exec_request *r, const char *curl)
{
    core_arena *a = r->arena;
    json_object *o = json_object_new_object(), *h = json_object_new_array();
    json_object_object_add(o, "dry_run", json_object_new_boolean(1));
    json_object_object_add(o, "operation", json_object_new_string(r->operation_id));
    json_object_object_add(o, "method", json_object_new_string(r->method));
    json_object_object_add(o, "url", json_object_new_string(exec_mask(r, r->url, a)));
    for (size_t i = 0; i < r->n_headers; i++) {
        json_object *x = json_object_new_object();
        json_object_object_add(x, "name", json_object_new_string(r->headers[i].name));
        json_object_object_add(x, "value",
                               json_object_new_string(exec_mask(r, r->headers[i].value, a)));
        if (r->headers[i].secret) json_object_object_add(x, "secret", json_object_new_boolean(1));
        json_object_array_add(h, x);
    }
    json_object_object_add(o, "headers", h);
    json_object_object_add(o, "content_type",
                           r->content_type ? json_object_new_string(r->content_type) : NULL);
    json_object_object_add(o, "body",
                           r->body ? json_object_new_string(exec_mask(r, r->body, a)) : NULL);
    json_object *notes = json_object_new_array();
    for (size_t i = 0; i < r->n_notes; i++)
        json_object_array_add(notes, json_object_new_string(exec_mask(r, r->notes[i], a)));
    json_object_object_add(o, "notes", notes);
    json_object_object_add(o, "curl", json_object_new_string(curl));
    return o;
}
