/*
 * Calling an MCP server's tool (docs/MCP-SOURCES.md "Calling a tool"): the
 * operation oas/mcp.c made of the tool (marked x-mcp-tool) is called over MCP tools/call
 * instead of HTTP, under the rules of an HTTP call:
 * - the arguments (-p name=value, read by the property's schema as exec_build reads a
 *   parameter, on top of a JSON object) are validated against the tool's inputSchema before
 *   anything starts; an unknown name is refused with the nearest known one;
 * - a tool whose annotations do not say readOnlyHint: true is a write (MCP's defaults are
 *   destructive): refused unless the caller allows writes;
 * - the server is the one the index recorded for the API (its registry source), never one
 *   a caller names;
 * - the result is shaped by exec_shape like an HTTP response body (structuredContent, else
 *   the content items), and the values the server's config holds as secrets (its headers,
 *   its env entries named like credentials) are masked in the result and in errors.
 */
#include "exec/exec_int.h"

#include "mcpc/mcpc.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { TOOL_MAX_DEPTH = 64, TOOL_MIN_SECRET = 4 };

bool exec_tool_is(const spec_operation *op)
{
    return exec_mcp_kind(op) != NULL;
}

static const char *tool_name(const spec_operation *op)
{
    spec_mcp_entry e;
    spec_operation_mcp(op, &e);
    return e.tool;
}

/* ---------------------------------------------------------------- arguments */

/* The property of the input schema named name, or NULL. */
static const jt_node *property(const jt_node *props, const char *name)
{
    for (size_t i = 0; jt_is(props, JT_OBJECT) && i < props->len; i++)
        if (!strcmp(props->u.members[i].key, name)) return props->u.members[i].value;
    return NULL;
}

static int unknown_argument(const spec_operation *op, const jt_node *props, const char *name,
                            apidex_error *err)
{
    const char **known = calloc(props->len + 1, sizeof *known);
    if (!known) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; i < props->len; i++) known[i] = props->u.members[i].key;
    int rc = exec_mcp_unknown_argument("tool", op->id, name, known, props->len, err);
    free(known);
    return rc;
}

/* The arguments: o->body (or o->arguments) as the base, each -p input on top; a name given
   twice is an array's items when its property is an array. */
static int build_arguments(const spec_api *api, const spec_operation *op,
                           const exec_tool_options *o, json_object **out, apidex_error *err)
{
    *out = NULL;
    json_object *args = NULL;
    if (o->body) {
        if (!(args = exec_mcp_parse_object(o->body)))
            return core_error_set(err, APIDEX_EINVAL,
                                  "the body of a tool call is its arguments: a JSON object "
                                  "(e.g. --body '{\"path\": \"a.txt\"}')");
    } else if (o->arguments) {
        if (!json_object_is_type(o->arguments, json_type_object) ||
            json_object_deep_copy(o->arguments, &args, NULL))
            return core_error_set(err, APIDEX_EINVAL, "the arguments must be a JSON object");
    } else {
        args = json_object_new_object();
    }
    if (!args) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    /* the tool's own schema, written inline: read as it is */
    spec_mcp_entry e;
    spec_operation_mcp(op, &e);
    spec_schema_view schema;
    spec_schema_view_node(e.schema[SPEC_MCP_INPUT_SCHEMA].node, &schema);
    const jt_node *props = schema.kw[SPEC_KW_PROPERTIES];
    bool closed = jt_is(props, JT_OBJECT) && props->len;
    char *given = calloc(o->n_params + 1, 1); /* inputs already put (a repeat appends) */
    int rc = given ? 0 : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < o->n_params; i++) {
        const char *in = o->params[i], *eq = strchr(in, '=');
        if (!eq || eq == in) {
            rc = core_error_set(err, APIDEX_EINVAL,
                                "input '%s' is not name=value (e.g. -p path=a.txt)", in);
            break;
        }
        char *name = strndup(in, (size_t)(eq - in));
        if (!name) {
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            break;
        }
        const jt_node *prop = property(props, name);
        if (!prop && closed) {
            rc = unknown_argument(op, props, name, err);
            free(name);
            break;
        }
        bool repeat = false;
        for (size_t j = 0; j < i; j++)
            if (given[j] && !strncmp(o->params[j], in, (size_t)(eq - in) + 1)) repeat = true;
        spec_schema_view pv;
        spec_schema_view_node(prop, &pv);
        bool array = spec_schema_view_is_array(&pv);
        spec_loc s = {prop, op->node.doc};
        if (repeat && array) s.node = pv.kw[SPEC_KW_ITEMS];
        bool bad = false;
        json_object *v = exec_input_value(api, s, eq + 1, &bad);
        if (bad || !v) {
            rc = bad ? core_error_set(err, APIDEX_EINVAL,
                                      "argument '%s': the value is not valid JSON", name)
                     : core_error_set(err, APIDEX_ENOMEM, "out of memory");
        } else if (repeat && !array) {
            json_object_put(v);
            rc = core_error_set(err, APIDEX_EINVAL,
                                "argument '%s' is given twice; it takes one value", name);
        } else if (repeat) {
            json_object *arr = json_object_object_get(args, name);
            if (json_object_is_type(v, json_type_array)) {
                for (size_t k = 0; k < json_object_array_length(v); k++)
                    json_object_array_add(arr, json_object_get(json_object_array_get_idx(v, k)));
                json_object_put(v);
            } else {
                json_object_array_add(arr, v);
            }
        } else {
            json_object_object_add(args, name, v);
            given[i] = 1;
        }
        free(name);
    }
    free(given);
    if (rc) {
        json_object_put(args);
        return rc;
    }
    *out = args;
    return 0;
}

/* Validates args against the tool's inputSchema: "argument 'x': what is wrong". */
static int validate_arguments(const spec_api *api, const spec_operation *op, json_object *args,
                              core_arena *arena, apidex_error *err)
{
    spec_mcp_entry e;
    spec_operation_mcp(op, &e);
    spec_loc schema = e.schema[SPEC_MCP_INPUT_SCHEMA];
    if (!schema.node) return 0;
    const char *problem = NULL;
    if (spec_validate_json(api, schema, args, true, arena, &problem))
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!problem) return 0;
    const char *missing = "required property \"";
    if (!strncmp(problem, "(root): ", 8) && !strncmp(problem + 8, missing, strlen(missing))) {
        const char *name = problem + 8 + strlen(missing);
        return core_error_set(err, APIDEX_EINVAL, "tool %s: missing required argument '%.*s'",
                              op->id, (int)strcspn(name, "\""), name);
    }
    if (!strncmp(problem, "(root): ", 8) || problem[0] != '/')
        return core_error_set(err, APIDEX_EINVAL, "tool %s: the arguments: %s", op->id,
                              problem + (problem[0] == '(' ? 8 : 0));
    /* "/name/...: what": the argument is the pointer's first segment */
    size_t n = strcspn(problem + 1, "/:");
    const char *rest = problem + 1 + n;
    return core_error_set(err, APIDEX_EINVAL, "tool %s: argument '%.*s'%s %s", op->id, (int)n,
                          problem + 1, rest[0] == ':' ? ":" : " at",
                          rest[0] == ':' ? rest + 2 : problem);
}

/* ---------------------------------------------------------------- the rules */

/* MCP's defaults: a tool is not read-only unless it says so. */
static int write_rule(const spec_operation *op, bool allow_write, apidex_error *err)
{
    spec_mcp_entry e;
    spec_operation_mcp(op, &e);
    if (e.read_only_hint || allow_write) return 0;
    const char *why = e.destructive_hint ? "its annotations say destructiveHint: true"
                      : e.annotated      ? "its annotations do not say readOnlyHint: true"
                                         : "it has no annotations (MCP's default: it may write)";
    return core_error_set(err, APIDEX_EREFUSED,
                          "tool %s refused (rule: read-only; %s; --allow-write to allow)", op->id,
                          why);
}

/* Whether an environment variable's name says it holds a credential. */
static bool secret_env(const char *name, size_t n)
{
    static const char *const words[] = {"token", "key",        "secret", "password", "passwd",
                                        "auth",  "credential", "cookie", "session"};
    char low[256];
    if (n >= sizeof low) n = sizeof low - 1;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)(name[i] | (name[i] >= 'A' && name[i] <= 'Z' ? 32 : 0));
    low[n] = '\0';
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strstr(low, words[i])) return true;
    return false;
}

/* The server's secrets into m (its arena): header values (and a scheme's token after the
   blank), env values named like credentials. */
static int server_secrets(const mcpc_server *srv, exec_request *m)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < srv->n_headers; i++) {
        const char *v = strchr(srv->headers[i], ':');
        if (!v) continue;
        v += strspn(v + 1, " \t") + 1;
        if (strlen(v) >= TOOL_MIN_SECRET) rc = exec_request_add_secret(m, v);
        const char *tok = strrchr(v, ' ');
        if (!rc && tok && strlen(tok + 1) >= TOOL_MIN_SECRET)
            rc = exec_request_add_secret(m, tok + 1);
    }
    for (size_t i = 0; !rc && i < srv->n_env; i++) {
        const char *eq = strchr(srv->env[i], '=');
        if (eq && secret_env(srv->env[i], (size_t)(eq - srv->env[i])) &&
            strlen(eq + 1) >= TOOL_MIN_SECRET)
            rc = exec_request_add_secret(m, eq + 1);
    }
    return rc;
}

/* ---------------------------------------------------------------- the result */

/* What the body shows: structuredContent, else the one text item, else the items (binary
   data replaced by its type and size). *structured: the body is structuredContent. */
static json_object *result_body(json_object *res, bool *structured, const char **text)
{
    *structured = false;
    *text = NULL;
    json_object *sc = json_object_object_get(res, "structuredContent");
    if (sc) {
        *structured = true;
        return json_object_get(sc);
    }
    json_object *content = json_object_object_get(res, "content");
    size_t n =
        json_object_is_type(content, json_type_array) ? json_object_array_length(content) : 0;
    json_object *first = n ? json_object_array_get_idx(content, 0) : NULL;
    const char *t = json_object_get_string(json_object_object_get(first, "type"));
    if (n == 1 && t && !strcmp(t, "text")) {
        *text = json_object_get_string(json_object_object_get(first, "text"));
        if (*text) return NULL;
    }
    return json_object_is_type(content, json_type_array) ? exec_mcp_hide_binary(content, 0)
                                                         : json_object_new_array();
}

/* The result (masked text) shaped like an HTTP response's body. */
static int shape_result(const spec_api *api, const spec_operation *op, const char *id,
                        const char *text, const exec_shape_options *shape, json_object **out,
                        bool *is_error, apidex_error *err)
{
    json_object *res = exec_mcp_parse_object(text);
    if (!res)
        return core_error_set(err, APIDEX_ESPEC,
                              "tool %s: the server's result is not a JSON object", id);
    *is_error = json_object_get_boolean(json_object_object_get(res, "isError"));
    bool structured = false;
    const char *body_text = NULL;
    json_object *body = result_body(res, &structured, &body_text);
    const char *bt =
        body_text ? body_text : json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN);
    net_header ct = {"Content-Type", body_text ? "text/plain" : "application/json", false};
    exec_response resp = {.status = 200,
                          .headers = &ct,
                          .n_headers = 1,
                          .body = bt ? bt : "",
                          .body_len = bt ? strlen(bt) : 0};
    int rc = exec_shape(&resp, structured ? api : NULL, structured ? op : NULL, shape, out, err);
    if (!rc) {
        json_object_object_del(*out, "status");
        json_object_object_del(*out, "headers");
        json_object_object_add(*out, "tool", json_object_new_string(id));
        json_object_object_add(*out, "is_error", json_object_new_boolean(*is_error));
        if (structured) json_object_object_add(*out, "structured", json_object_new_boolean(1));
    }
    json_object_put(body);
    json_object_put(res);
    return rc;
}

/* ---------------------------------------------------------------- the call */

/* The tool's request: its arguments built and validated, the read-only rule (not for a dry
   run); *params {name, arguments}, *shown the arguments. */
static int tool_request(const spec_api *api, const spec_operation *op, const exec_tool_options *o,
                        core_arena *arena, json_object **params, json_object **shown,
                        apidex_error *err)
{
    json_object *args = NULL;
    int rc = build_arguments(api, op, o, &args, err);
    if (!rc) rc = validate_arguments(api, op, args, arena, err);
    if (!rc && !o->dry_run) rc = write_rule(op, o->allow_write, err);
    if (rc) {
        json_object_put(args);
        return rc;
    }
    *params = json_object_new_object();
    json_object_object_add(*params, "name", json_object_new_string(tool_name(op)));
    json_object_object_add(*params, "arguments", json_object_get(args));
    *shown = args;
    return 0;
}

int exec_tool_call(const spec_api *api, const spec_operation *op, const exec_tool_options *o_in,
                   struct json_object **out, bool *is_error, apidex_error *err)
{
    *out = NULL;
    *is_error = false;
    static const exec_tool_options none = {0};
    const exec_tool_options *o = o_in ? o_in : &none;
    const char *id = o->operation_id ? o->operation_id : op->id;
    const char *kind = exec_mcp_kind(op);
    if (!kind) return core_error_set(err, APIDEX_EINVAL, "%s is not an MCP tool", id);
    bool tool = !strcmp(kind, "tool");
    exec_request m = {.arena = core_arena_new(0)}; /* the secrets to mask */
    json_object *params = NULL, *shown = NULL;
    const char *method = "tools/call";
    mcpc_servers ss = {0};
    int rc = m.arena ? 0 : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!rc)
        rc = tool ? tool_request(api, op, o, m.arena, &params, &shown, err)
                  : exec_mcp_entry_request(op, id, o, &method, &params, &shown, err);
    /* the server as the index recorded it: the registry's source, never the caller's */
    if (!rc) rc = mcpc_source_parse(api->file, m.arena, &ss, err);
    if (!rc && ss.n != 1)
        rc = core_error_set(err, APIDEX_EINVAL, "%s names %zu servers, not the one of %s",
                            api->file, ss.n, id);
    if (!rc && server_secrets(&ss.items[0], &m))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    const char *uri = json_object_get_string(json_object_object_get(params, "uri"));
    if (!rc && o->dry_run) {
        json_object *d = json_object_new_object();
        json_object_object_add(d, "dry_run", json_object_new_boolean(1));
        json_object_object_add(d, "operation", json_object_new_string(id));
        json_object_object_add(d, "server",
                               json_object_new_string(exec_mask(&m, api->file, m.arena)));
        json_object_object_add(
            d, uri ? "uri" : kind,
            json_object_new_string(
                uri ? uri : json_object_get_string(json_object_object_get(params, "name"))));
        json_object_object_add(d, "arguments", json_object_get(shown));
        *out = d;
    } else if (!rc) {
        mcpc_options mo = {.timeout_ms = o->timeout_ms};
        char *res = NULL;
        size_t len = 0;
        rc = mcpc_call(&ss.items[0], &mo, o->sessions, method,
                       json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN), &res, &len,
                       err);
        const char *text = rc ? NULL : exec_mask(&m, res, m.arena);
        if (!rc && tool)
            rc = shape_result(api, op, id, text, &o->shape, out, is_error, err);
        else if (!rc)
            rc = exec_mcp_entry_shape(op, id, uri, text, &o->shape, out, err);
        free(res);
    }
    if (rc && err) {
        const char *msg = exec_mask(&m, err->message, m.arena);
        if (msg && msg != err->message) core_error_set(err, rc, "%s", msg);
    }
    json_object_put(params);
    json_object_put(shown);
    core_arena_free(m.arena);
    return rc;
}
