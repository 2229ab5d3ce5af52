/*
 * Calling endpoints from the servers: the MCP tool call_endpoint and POST /v1/call, one query
 * behind both (serve_query_call). Off unless the server was started with --allow-calls; then
 * the executor of `apidex call` (src/exec: exec_build, exec_call) under the same safety rules,
 * read-only unless --allow-write; an MCP tool is called on its registry server over MCP
 * (exec_tool_call), a tool not marked read-only being a write. A model's "server" argument
 * never widens the hosts: only the API's origins and --allow-host may be reached,
 * credentials go only to the API's origins (and --allow-host ORIGIN entries), and a scheme
 * or port change is refused.
 */
#include "serve/serve_int.h"

#include "exec/exec.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- the tool definition */

static const char call_description[] =
    "Call an API endpoint of the apidex index and get its response shaped for an agent: "
    "status, the headers that matter (content type, rate limits, pagination links), the body "
    "(fields picked by `select`, long arrays summarised, cut to `budget` tokens), a check of "
    "the body against the spec's response schema, and pagination hints. The request is built "
    "from the spec: give `params` by name (path, query, header and cookie parameters, server "
    "variables, fields of an object body) and every input is checked against its schema "
    "before anything is sent. Credentials come from the server's configuration and are never "
    "shown. Only the hosts of the spec's servers are reached; `dry_run` shows the request "
    "and a curl command without sending. An MCP tool (id SERVER:TOOL) is called on its "
    "server over MCP: `params` are its arguments, checked against its input schema. Find the "
    "endpoint with search_endpoints and its inputs with get_endpoint first.";

static const char call_input_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"endpoint\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Endpoint id from "
    "search_endpoints, or 'METHOD /path' as in the spec (with api when several APIs have "
    "it)\"},"
    "\"api\":{\"type\":\"string\",\"description\":\"API id, with 'METHOD /path'\"},"
    "\"params\":{\"type\":\"object\",\"description\":\"Inputs by name: parameters, server "
    "variables, fields of an object body; 'query:id' etc. when a name is used in several "
    "places\"},"
    "\"body\":{\"description\":\"The request body: a JSON value, or text for a non-JSON "
    "media type\"},"
    "\"server\":{\"type\":\"string\",\"description\":\"A base URL instead of the spec's "
    "servers; its host must be one the spec or the server allows\"},"
    "\"select\":{\"type\":\"string\",\"description\":\"Fields of the body to return, a JSONPath "
    "subset: $.results[*].title, $.a.b, several separated by commas\"},"
    "\"budget\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":32000,\"default\":2000,"
    "\"description\":\"Most cl100k tokens of body to return\"},"
    "\"max_items\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"default\":10,"
    "\"description\":\"Items kept of a long array (the count is given)\"},"
    "\"dry_run\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Return the request "
    "(credentials masked) and a curl command; send nothing\"}},"
    "\"required\":[\"endpoint\"],\"additionalProperties\":false}";

static const char call_output_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"status\":{\"type\":\"integer\",\"description\":\"the API's HTTP status\"},"
    "\"url\":{\"type\":\"string\"},\"redirects\":{\"type\":\"integer\"},"
    "\"headers\":{\"type\":[\"object\",\"array\"],\"description\":\"the headers that "
    "matter (a dry run: the request's, as a list)\"},"
    "\"body_type\":{\"type\":\"string\"},\"body\":{},"
    "\"schema\":{\"type\":\"object\",\"description\":\"the body checked against the response "
    "schema\"},"
    "\"pagination\":{\"type\":\"object\"},\"notes\":{\"type\":\"array\",\"items\":{\"type\":"
    "\"string\"}},"
    "\"dry_run\":{\"type\":\"boolean\"},\"operation\":{\"type\":\"string\"},"
    "\"method\":{\"type\":\"string\"},\"curl\":{\"type\":\"string\"}}}";

struct json_object *mcp_call_tool(const mcp_rev_info *rev, const serve_call_config *cfg)
{
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    serve_jadd(o, "name", json_object_new_string("call_endpoint"));
    if (rev->tool_title) serve_jadd(o, "title", json_object_new_string("Call an API endpoint"));
    serve_jadd(o, "description", json_object_new_string(call_description));
    serve_jadd(o, "inputSchema", json_tokener_parse(call_input_schema));
    if (rev->structured) serve_jadd(o, "outputSchema", json_tokener_parse(call_output_schema));
    if (rev->tool_annotations) {
        struct json_object *an = json_object_new_object();
        if (an) {
            /* what the server allows decides: read-only unless started with --allow-write */
            bool write = cfg && cfg->policy.allow_write;
            serve_jadd(an, "title", json_object_new_string("Call an API endpoint"));
            serve_jadd(an, "readOnlyHint", json_object_new_boolean(!write));
            serve_jadd(an, "destructiveHint", json_object_new_boolean(write));
            serve_jadd(an, "idempotentHint", json_object_new_boolean(!write));
            serve_jadd(an, "openWorldHint", json_object_new_boolean(1));
        }
        serve_jadd(o, "annotations", an);
    }
    return o;
}

/* ---------------------------------------------------------------- arguments */

typedef struct call_args {
    const char *endpoint, *api, *server, *select;
    struct json_object *params, *body;
    size_t budget, max_items;
    bool dry_run;
} call_args;

static int bad_arg(apidex_error *err, const char *key, const char *want)
{
    return core_error_set(err, APIDEX_EINVAL, "argument '%s' must be %s", key, want);
}

static int text_arg(struct json_object *v, const char *key, const char **out, apidex_error *err)
{
    if (!json_object_is_type(v, json_type_string) ||
        !serve_text_ok(json_object_get_string(v), (size_t)json_object_get_string_len(v)))
        return bad_arg(err, key, "a string of UTF-8 text without NUL bytes");
    *out = json_object_get_string(v);
    return 0;
}

static int count_arg(struct json_object *v, const char *key, long max, size_t *out,
                     apidex_error *err)
{
    int64_t x = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
    if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        if (d >= 1 && d <= (double)max && d == (double)(int64_t)d) x = (int64_t)d;
    }
    if (x < 1 || x > max) {
        char want[64];
        snprintf(want, sizeof want, "an integer from 1 to %ld", max);
        return bad_arg(err, key, want);
    }
    *out = (size_t)x;
    return 0;
}

static int parse_args(struct json_object *args, call_args *a, apidex_error *err)
{
    memset(a, 0, sizeof *a);
    if (!json_object_is_type(args, json_type_object))
        return core_error_set(err, APIDEX_EINVAL, "the arguments must be a JSON object");
    int rc = 0;
    json_object_object_foreach(args, key, v)
    {
        if (rc) break;
        if (!v && strcmp(key, "body") != 0) continue; /* null: not given */
        if (!strcmp(key, "endpoint"))
            rc = text_arg(v, key, &a->endpoint, err);
        else if (!strcmp(key, "api"))
            rc = text_arg(v, key, &a->api, err);
        else if (!strcmp(key, "server"))
            rc = text_arg(v, key, &a->server, err);
        else if (!strcmp(key, "select"))
            rc = text_arg(v, key, &a->select, err);
        else if (!strcmp(key, "params"))
            rc = json_object_is_type(v, json_type_object) ? (a->params = v, 0)
                                                          : bad_arg(err, key, "an object");
        else if (!strcmp(key, "body"))
            a->body = v;
        else if (!strcmp(key, "budget"))
            rc = count_arg(v, key, SERVE_MAX_BUDGET, &a->budget, err);
        else if (!strcmp(key, "max_items"))
            rc = count_arg(v, key, 1000, &a->max_items, err);
        else if (!strcmp(key, "dry_run"))
            rc = json_object_is_type(v, json_type_boolean)
                     ? (a->dry_run = json_object_get_boolean(v), 0)
                     : bad_arg(err, key, "true or false");
        else
            rc = core_error_set(err, APIDEX_EINVAL,
                                "unknown argument '%.60s' (this tool takes: endpoint, api, "
                                "params, body, server, select, budget, max_items, dry_run)",
                                key);
    }
    if (!rc && (!a->endpoint || !*a->endpoint))
        rc = core_error_set(err, APIDEX_EINVAL,
                            "missing required argument 'endpoint' (an id from "
                            "search_endpoints, or 'METHOD /path')");
    return rc;
}

/* The operation endpoint names: "METHOD /path" (with api), else an id. */
static int find_operation(serve_snapshot *snap, const call_args *a, long *found, apidex_error *err)
{
    const char *e = a->endpoint;
    size_t m = 0;
    while (isalpha((unsigned char)e[m])) m++;
    if (m && m < 10 && e[m] == ' ') {
        const char *path = e + m;
        while (*path == ' ') path++;
        if (*path == '/') {
            char method[10];
            for (size_t i = 0; i < m; i++) method[i] = (char)toupper((unsigned char)e[i]);
            method[m] = '\0';
            return serve_find_endpoint(snap, NULL, method, path, a->api, found, err);
        }
    }
    return serve_find_endpoint(snap, e, NULL, NULL, NULL, found, err);
}

/* ---------------------------------------------------------------- the call */

/* Adds text (a note of the request side) to o's notes. */
static void add_note(struct json_object *o, const char *text)
{
    struct json_object *notes = NULL;
    if (!json_object_object_get_ex(o, "notes", &notes) || !notes) {
        notes = json_object_new_array();
        if (!notes || !serve_jadd(o, "notes", notes)) return;
    }
    json_object_array_add(notes, json_object_new_string(text));
}

/* The request's answer to a dry run: the request masked, and a curl command reading the
   credentials from their variables (a second build, in placeholder mode). */
static int dry_run(const spec_api *api, const spec_operation *op, exec_build_options bo,
                   const exec_request *r, struct json_object **out, apidex_error *err)
{
    bo.placeholders = true;
    bo.token_fn = NULL;
    exec_request pr;
    int rc = exec_build(api, op, &bo, &pr, err);
    if (rc) return rc;
    core_buf curl;
    core_buf_init(&curl, 0);
    rc = exec_snippet(&pr, EXEC_SNIPPET_CURL, &curl);
    if (!rc) *out = exec_request_json(r, curl.data ? curl.data : "");
    if (!rc && !*out) rc = APIDEX_ENOMEM;
    core_buf_free(&curl);
    exec_build_free(&pr);
    return rc ? core_error_set(err, rc, "out of memory") : 0;
}

/* An MCP tool, resource or prompt (exec_tool_call): params (over body, an object) are its
   arguments, called on its registry server (a session kept open, cfg->sessions) under the
   server's write rule and call time limit. */
static int call_tool(const spec_api *api, const spec_operation *op, const char *id,
                     const serve_call_config *cfg, const call_args *a, struct json_object **out,
                     apidex_error *err)
{
    if (a->server)
        return core_error_set(err, APIDEX_EINVAL,
                              "%s is an MCP %s: it is called on its registry server, so "
                              "'server' does not apply",
                              id, exec_mcp_kind(op));
    if (a->body && !json_object_is_type(a->body, json_type_object))
        return core_error_set(err, APIDEX_EINVAL,
                              "argument 'body': the arguments of an MCP %s are an object",
                              exec_mcp_kind(op));
    struct json_object *args = NULL;
    if (a->body && json_object_deep_copy(a->body, &args, NULL))
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!args) args = json_object_new_object();
    if (args && a->params) {
        json_object_object_foreach(a->params, k, v)
        {
            json_object_object_add(args, k, json_object_get(v));
        }
    }
    exec_tool_options o = {
        .arguments = args,
        .operation_id = id,
        .allow_write = cfg->policy.allow_write,
        .timeout_ms = cfg->policy.timeout_ms,
        .shape = {.select = a->select, .budget = a->budget, .max_items = a->max_items},
        .dry_run = a->dry_run,
        .sessions = cfg->sessions};
    bool is_error = false;
    int rc = args ? exec_tool_call(api, op, &o, out, &is_error, err)
                  : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    json_object_put(args);
    return rc;
}

int serve_query_call(serve_snapshot *snap, const serve_call_config *cfg, struct json_object *args,
                     struct json_object **out, apidex_error *err)
{
    *out = NULL;
    if (!cfg || !cfg->enabled)
        return core_error_set(err, APIDEX_EREFUSED,
                              "calls are off: start the server with --allow-calls (apidex serve "
                              "--allow-calls, apidex mcp --allow-calls)");
    call_args a;
    long found = -1;
    int rc = parse_args(args, &a, err);
    if (!rc) rc = find_operation(snap, &a, &found, err);
    if (rc) return rc;
    size_t n_ops = 0;
    const store_operation *sop = &search_engine_operations(snap->eng, &n_ops)[found];
    long ai = store_find_api(snap->idx, sop->api);
    if (ai < 0) return core_error_set(err, APIDEX_ENOTFOUND, "the index has no API %s", sop->api);
    const store_api *sapi = &snap->apis[ai];
    store_doc *doc = NULL;
    const spec_api *api = NULL;
    if ((rc = exec_api_reload(snap->idx, (size_t)ai, &doc, &api, err)) != 0) return rc;
    const spec_operation *op = store_doc_operation(api, sop->method, sop->path);
    if (exec_tool_is(op)) {
        rc = call_tool(api, op, sop->id, cfg, &a, out, err);
        store_doc_release(doc);
        return rc;
    }
    core_arena *arena = core_arena_new(0);
    size_t n_in = 0;
    apidex_error perr;
    core_error_clear(&perr);
    const char **in = arena ? exec_params_from_json(arena, a.params, &n_in, &perr) : NULL;
    if (!op) {
        rc = core_error_set(err, APIDEX_ENOTFOUND, "%s %s is no longer in %s: index it again",
                            sop->method, sop->path, sapi->document);
    } else if (!in) {
        rc = perr.code == APIDEX_EINVAL ? core_error_set(err, APIDEX_EINVAL, "%s", perr.message)
                                        : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    } else if (a.body && json_object_is_type(a.body, json_type_string) &&
               strlen(json_object_get_string(a.body)) !=
                   (size_t)json_object_get_string_len(a.body)) {
        /* a C string would cut the body at the NUL byte */
        rc = core_error_set(err, APIDEX_EINVAL,
                            "argument 'body': the text holds a NUL byte (\\u0000), which apidex "
                            "does not send");
    }
    exec_build_options bo = {
        .params = in,
        .n_params = n_in,
        .body = !a.body ? NULL
                : json_object_is_type(a.body, json_type_string)
                    ? json_object_get_string(a.body)
                    : json_object_to_json_string_ext(a.body, JSON_C_TO_STRING_PLAIN),
        .server = a.server,
        .overrides = sapi->overrides,
        .token_fn = cfg->oauth && !a.dry_run ? exec_oauth_token : NULL,
        .token_ctx = cfg->oauth,
        .operation_id = sop->id,
        .allow_hosts = cfg->policy.allowed_hosts,
        .n_allow_hosts = cfg->policy.n_allowed_hosts,
        .untrusted_server = a.server != NULL};
    exec_request r = {0};
    if (!rc) rc = exec_build(api, op, &bo, &r, err);
    if (!rc && a.dry_run) {
        rc = dry_run(api, op, bo, &r, out, err);
    } else if (!rc) {
        exec_call_options co = {
            .policy = cfg->policy,
            .shape = {.select = a.select, .budget = a.budget, .max_items = a.max_items},
            .foreign_server = a.server != NULL};
        rc = exec_call(&r, api, op, &co, NULL, out, err);
        for (size_t i = 0; !rc && i < r.n_notes; i++)
            add_note(*out, exec_mask(&r, r.notes[i], r.arena));
    }
    if (!rc && api->content_hash != sapi->content_hash)
        add_note(*out, "the document changed since it was indexed; the request follows the "
                       "document as it is now");
    exec_build_free(&r);
    core_arena_free(arena);
    store_doc_release(doc);
    return rc;
}

int serve_call_http_status(int rc)
{
    switch (rc) {
    case 0:
        return 200;
    case APIDEX_EREFUSED:
        return 403;
    case APIDEX_EINVAL:
        return 400;
    case APIDEX_ENOTFOUND:
        return 404;
    case APIDEX_ENET:
        return 502;
    default:
        return 500;
    }
}
