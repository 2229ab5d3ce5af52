/*
 * The MCP tools (search_endpoints, get_endpoint, list_apis, ask_api,
 * get_tool_definitions, match_spec, report_usage) and resources (apidex://apis/{api},
 * apidex://endpoints/{id}): their schemas,
 * argument checks, and results shaped for each protocol revision; call_endpoint's
 * definition and query live in call.c (listed only when the server allows calls).
 */
#include "serve/serve_int.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int mcp_fail(mcp_error *e, int code, const char *fmt, ...)
{
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---------------------------------------------------------------- schemas */

/* The summary item of search_endpoints and ask_api results. */
#define SUMMARY_SCHEMA                                                                             \
    "{\"type\":\"object\",\"properties\":{"                                                        \
    "\"id\":{\"type\":\"string\",\"description\":\"endpoint id for get_endpoint\"},"               \
    "\"endpoint\":{\"type\":\"string\",\"description\":\"METHOD /path as in the spec\"},"          \
    "\"api\":{\"type\":\"string\"},"                                                               \
    "\"summary\":{\"type\":[\"string\",\"null\"]},"                                                \
    "\"score\":{\"type\":\"number\"},"                                                             \
    "\"confidence\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1},"                            \
    "\"role\":{\"type\":\"string\",\"enum\":[\"primary\",\"producer\"]},"                          \
    "\"needs\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"                \
    "\"param\":{\"type\":\"string\"},\"producer\":{\"type\":\"string\"}},"                         \
    "\"required\":[\"param\",\"producer\"]}}},"                                                    \
    "\"required\":[\"id\",\"endpoint\",\"api\",\"summary\",\"score\",\"confidence\",\"role\"]}"

/* One step of the plan of search_endpoints (plan_json.c). */
#define PLAN_STEP_SCHEMA                                                                           \
    "{\"type\":\"object\",\"properties\":{"                                                        \
    "\"step\":{\"type\":\"integer\",\"description\":\"1 for the first call\"},"                    \
    "\"id\":{\"type\":\"string\"},\"api\":{\"type\":\"string\"},"                                  \
    "\"method\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"                             \
    "\"role\":{\"type\":\"string\",\"enum\":[\"primary\",\"producer\"]},"                          \
    "\"inputs\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"               \
    "\"param\":{\"type\":\"string\"},"                                                             \
    "\"from\":{\"type\":\"string\",\"enum\":[\"step\",\"task\",\"caller\"]},"                      \
    "\"step\":{\"type\":\"integer\"},\"producer\":{\"type\":\"string\"}},"                         \
    "\"required\":[\"param\",\"from\"]}}},"                                                        \
    "\"required\":[\"step\",\"id\",\"api\",\"method\",\"path\",\"role\",\"inputs\"]}"

#define NULLABLE_STRING "{\"type\":[\"string\",\"null\"]}"
#define STRING_ARRAY    "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"

/* The answer's match (confidence.c, verdict.c): properties of a search_endpoints result. */
#define MATCH_SCHEMA                                                                               \
    "\"match\":{\"type\":\"string\",\"enum\":[\"strong\",\"weak\",\"none\"],\"description\":"      \
    "\"none: nothing in the registry fits the task; weak: the endpoints may not do it\"},"         \
    "\"confidence\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1,\"description\":"             \
    "\"calibrated: the share of test tasks at this evidence level whose best endpoint was "        \
    "right\"},"                                                                                    \
    "\"note\":{\"type\":\"string\",\"description\":\"the match in words, when it is weak or "      \
    "none\"},"                                                                                     \
    "\"closest_apis\":" STRING_ARRAY ","

typedef struct tool_def {
    const char *name, *title, *description, *input_schema, *output_schema;
} tool_def;

static const tool_def tool_defs[] = {
    {"search_endpoints", "Search API endpoints",
     "Find the API endpoints that accomplish a task, across every API in the apidex index. "
     "Returns a short list ranked by relevance: endpoint id, `METHOD /path`, API, one-line "
     "summary and score. Beside it, `plan` gives the calls in order: when an endpoint needs an "
     "input the task does not give (for example a movie_id), the endpoint producing it is a "
     "step before it, and each step's `inputs` say where each value comes from (an earlier "
     "step, the task, or you). Use this "
     "first, describing the task in plain words; then call get_endpoint only for the ids you "
     "will actually call. Set adaptive=true to get just the endpoints the task needs instead "
     "of the top k. `match` says how well the registry fits the task: strong, weak (the "
     "endpoints may not do it) or none (nothing fits: `note` says so and names the closest "
     "APIs), with a calibrated `confidence` in [0, 1]. Read-only and cheap in tokens.",
     "{\"type\":\"object\",\"properties\":{"
     "\"task\":{\"x-route\":\"GET /v1/search q\",\"description\":\"What "
     "you want to do, in plain words, e.g. 'Refund the last payment of a customer'\"},"
     "\"k\":{\"x-route\":\"GET /v1/search k\","
     "\"description\":\"How many distinct endpoints to return (ignored when adaptive is "
     "true)\"},"
     "\"adaptive\":{\"x-route\":\"GET /v1/search adaptive\",\"description\":\"Return only the "
     "endpoints the task needs: the best matches plus the endpoints producing their inputs\"},"
     "\"apis\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":32,"
     "\"description\":\"Only these APIs (ids from list_apis)\"},"
     "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":32,"
     "\"description\":\"Only endpoints with one of these tags\"},"
     "\"methods\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"GET\",\"POST\","
     "\"PUT\",\"PATCH\",\"DELETE\",\"HEAD\",\"OPTIONS\",\"TRACE\"]},\"maxItems\":8,"
     "\"description\":\"Only these HTTP methods\"},"
     "\"include_deprecated\":{\"x-route\":\"GET /v1/search "
     "include_deprecated\",\"description\":\"Also "
     "return deprecated endpoints\"}},"
     "\"required\":[\"task\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"task\":{\"type\":\"string\"},"
     "\"adaptive\":{\"type\":\"boolean\"},\"count\":{\"type\":\"integer\"}," MATCH_SCHEMA
     "\"results\":{\"type\":\"array\",\"items\":" SUMMARY_SCHEMA "},"
     "\"plan\":{\"type\":\"array\",\"items\":" PLAN_STEP_SCHEMA "}},"
     "\"required\":[\"task\",\"adaptive\",\"count\",\"match\",\"confidence\",\"results\",\"plan\"]"
     "}"},
    {"get_endpoint", "Get endpoint details",
     "Get what is needed to call one API endpoint. detail=call (the default): method, the full "
     "URL template with server variables (defaults and allowed values), auth schemes and where "
     "the credential goes, every parameter (in, required, type, every enum value, default, "
     "example), the request body's content types and JSON Schema ($refs resolved to a depth; "
     "cycles marked $circular; a depth cut marked x-apidex-omitted), every required input "
     "(parameters and body fields), the success response in brief, and which endpoints produce "
     "its inputs. detail=summary: one line; detail=full: every response and each referenced "
     "schema once, as written. Pass the `id` returned by search_endpoints, or `method` and "
     "`path` (plus `api` when several APIs have that path).",
     "{\"type\":\"object\",\"properties\":{"
     "\"id\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Endpoint id from "
     "search_endpoints, e.g. 'tmdb:GET /movie/{movie_id}/credits'\"},"
     "\"method\":{\"type\":\"string\",\"description\":\"HTTP method, when no id is given\"},"
     "\"path\":{\"type\":\"string\",\"description\":\"Path template as in the spec, e.g. "
     "'/movie/{movie_id}', when no id is given\"},"
     "\"api\":{\"type\":\"string\",\"description\":\"API id, to pick between APIs that share a "
     "path\"},"
     "\"detail\":{\"x-route\":\"GET /v1/endpoints/{id} detail\",\"description\":\"How much to "
     "return: summary (one line), call "
     "(what a call needs, the default) or full (everything, each schema once)\"}},"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
     "\"api\":{\"type\":\"string\"},\"detail\":{\"type\":\"string\",\"enum\":[\"summary\","
     "\"call\",\"full\"]},\"method\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"
     "\"url\":{\"type\":\"string\"},\"summary\":" NULLABLE_STRING
     ",\"operation_id\":" NULLABLE_STRING ",\"description\":" NULLABLE_STRING
     ",\"tags\":" STRING_ARRAY ",\"deprecated\":{\"type\":\"boolean\"},"
     "\"servers\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
     "\"auth\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":"
     "\"object\"}}},"
     "\"parameters\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
     "\"name\":{\"type\":\"string\"},\"in\":{\"type\":\"string\"},\"required\":{\"type\":"
     "\"boolean\"}},\"required\":[\"name\",\"in\",\"required\"]}},"
     "\"request_body\":{\"type\":[\"object\",\"null\"]},"
     "\"inputs\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
     "\"name\":{\"type\":\"string\"},\"in\":{\"type\":\"string\"},"
     "\"required\":{\"type\":\"boolean\"}},\"required\":[\"name\",\"in\",\"required\"]}},"
     "\"response\":{\"type\":[\"object\",\"null\"]},"
     "\"responses\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
     "\"schemas\":{\"type\":\"object\"},"
     "\"producers\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
     "\"param\":{\"type\":\"string\"},\"producer\":{\"type\":\"string\"},"
     "\"endpoint\":{\"type\":\"string\"},\"score\":{\"type\":\"number\"}},"
     "\"required\":[\"param\",\"producer\",\"endpoint\",\"score\"]}}},"
     "\"required\":[\"id\",\"api\",\"detail\",\"method\",\"path\",\"url\",\"summary\"]}"},
    {"list_apis", "List indexed APIs",
     "List the APIs in the apidex index, largest first, a page at a time: per API its id (the "
     "filter search_endpoints and ask_api accept) and one short line: title, version, "
     "operation count, largest tags and what it is for. When nextCursor is in the result, "
     "pass it as cursor for the next page. An API's operations and servers: the resource "
     "apidex://apis/{id}.",
     "{\"type\":\"object\",\"properties\":{\"cursor\":{\"type\":\"string\","
     "\"description\":\"nextCursor of the previous page; none for the first page\"}},"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\","
     "\"description\":\"APIs in the index\"},"
     "\"n_operations\":{\"type\":\"integer\"},\"apis\":{\"type\":\"array\",\"items\":{"
     "\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
     "\"about\":{\"type\":\"string\"}},\"required\":[\"id\",\"about\"]}},"
     "\"nextCursor\":{\"type\":\"string\",\"description\":\"present when more APIs "
     "follow\"}},"
     "\"required\":[\"count\",\"n_operations\",\"apis\"]}"},
    {"ask_api", "Ask about an API task",
     "Get the documentation an API task or question needs in one call: the endpoints that "
     "accomplish it (with the endpoints producing their inputs, in call order) and their full "
     "descriptions plus the schemas they reference, assembled as Markdown within a token "
     "budget; when the server has an LLM configured, also an answer written from that "
     "documentation only, citing endpoint ids. Use it when you want the details for a whole "
     "task at once rather than search_endpoints followed by get_endpoint.",
     "{\"type\":\"object\",\"properties\":{"
     "\"task\":{\"x-route\":\"POST /v1/ask task\",\"description\":\"The "
     "task or question, in plain words\"},"
     "\"apis\":{\"x-route\":\"POST /v1/ask apis\","
     "\"description\":\"Only these APIs (ids from list_apis)\"},"
     "\"budget\":{\"x-route\":\"POST /v1/ask budget\","
     "\"description\":\"Most tokens (cl100k) of documentation to return\"}},"
     "\"required\":[\"task\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"task\":{\"type\":\"string\"},"
     "\"budget\":{\"type\":\"integer\"},\"context_tokens\":{\"type\":\"integer\"},"
     "\"completeness\":{\"type\":\"number\",\"description\":\"share of the needed "
     "documentation that fitted the budget\"},"
     "\"endpoints\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
     "\"id\":{\"type\":\"string\"},\"endpoint\":{\"type\":\"string\"},\"api\":{\"type\":"
     "\"string\"},\"summary\":" NULLABLE_STRING ",\"role\":{\"type\":\"string\",\"enum\":["
     "\"primary\",\"producer\"]}},\"required\":[\"id\",\"endpoint\",\"api\",\"summary\","
     "\"role\"]}},"
     "\"context\":{\"type\":\"string\",\"description\":\"Markdown: the endpoints, then the "
     "schemas they reference\"},"
     "\"answer\":{\"type\":[\"string\",\"null\"],\"description\":\"the LLM's answer from "
     "the context, citing endpoint ids; null when the server has no LLM\"},"
     "\"llm_used\":{\"type\":\"boolean\"},\"model\":" NULLABLE_STRING ",\"note\":" NULLABLE_STRING
     ",\"cited\":" STRING_ARRAY "},"
     "\"required\":[\"task\",\"budget\",\"context_tokens\",\"completeness\",\"endpoints\","
     "\"context\",\"answer\",\"llm_used\",\"model\",\"note\",\"cited\"]}"},
    {"get_tool_definitions", "Get endpoints as tool definitions",
     "Get API endpoints as tool (function) definitions to hand to an LLM: for the endpoint "
     "ids given, or for the endpoints a task needs. Returns `tools`, definitions in OpenAI "
     "(strict mode), Anthropic or MCP shape whose arguments are grouped as path, query, "
     "header, cookie and body, and `calls`, by tool name, how to make each HTTP call: "
     "method, path, server, content type and where credentials go. The same as `apidex "
     "tools` and GET /v1/tools.",
     "{\"type\":\"object\",\"properties\":{"
     "\"ids\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":100,"
     "\"description\":\"Endpoint ids from search_endpoints\"},"
     "\"task\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4000,\"description\":"
     "\"Instead of ids: a task in plain words, for the endpoints it needs\"},"
     "\"k\":{\"x-route\":\"GET /v1/tools k\",\"description\":\"With "
     "task: the top k endpoints instead of just the ones it needs\"},"
     "\"format\":{\"x-route\":\"GET /v1/tools format\"}},"
     "\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"tools\":{\"type\":\"array\",\"items\":{"
     "\"type\":\"object\"}},\"calls\":{\"type\":\"object\",\"additionalProperties\":{"
     "\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"method\":{"
     "\"type\":\"string\"},\"path\":{\"type\":\"string\"}},\"required\":[\"id\","
     "\"method\",\"path\"]}}},\"required\":[\"tools\",\"calls\"]}"},
    {"match_spec", "Match an OpenAPI document", serve_match_tool_description,
     serve_match_tool_input, serve_match_tool_output},
    /* a tool of its own, not a search parameter: a use is known after the calls, and
       search stays read-only */
    {"report_usage", "Report the endpoints used",
     "Tell apidex which endpoints you actually called to accomplish a task (after the "
     "calls, the ones that did the job). apidex keeps the counts beside its index; searches "
     "of a server started with --usage-prior weigh them a little, so endpoints that work "
     "for tasks like yours come first among near-equal matches. Give endpoint ids from "
     "search_endpoints, or `METHOD /path` with api.",
     "{\"type\":\"object\",\"properties\":{"
     "\"endpoints\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,"
     "\"maxItems\":256,\"description\":\"Endpoint ids (or METHOD /path with api) you "
     "used\"},"
     "\"api\":{\"type\":\"string\",\"description\":\"The API of METHOD /path "
     "endpoints\"},"
     "\"task\":{\"type\":\"string\",\"maxLength\":4000,\"description\":\"The task they "
     "were used for\"}},"
     "\"required\":[\"endpoints\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"recorded\":{\"type\":\"integer\"}},"
     "\"required\":[\"recorded\"]}"},
};

enum { N_TOOLS = sizeof tool_defs / sizeof tool_defs[0] };

static struct json_object *parse_static(const char *text)
{
    return json_tokener_parse(text);
}

/*
 * An input a tool shares with an HTTP route names it, {"x-route":"GET /v1/search k",
 * "description":...}: its schema is that route parameter's (or body property's) in
 * apidex's own OpenAPI document (routes.c, openapi_self.json), followed by the tool's own
 * description. Resolved once, into input_texts; test_serve_routes holds the result to the
 * schemas the tools had before.
 */
static char *input_texts[N_TOOLS];
static pthread_once_t inputs_once = PTHREAD_ONCE_INIT;

/* The schema "METHOD /path name" names in doc, then the description of prop; NULL if absent. */
static struct json_object *route_input(struct json_object *doc, const char *ref,
                                       struct json_object *prop)
{
    char method[8], path[64], name[64];
    if (sscanf(ref, "%7s %63s %63s", method, path, name) != 3) return NULL;
    for (char *c = method; *c; c++) *c = (char)(*c - 'A' + 'a');
    struct json_object *schema = serve_openapi_schema(doc, path, method, name), *desc = NULL;
    if (schema && json_object_object_get_ex(prop, "description", &desc))
        json_object_object_add(schema, "description", json_object_get(desc));
    return schema;
}

static void resolve_inputs(void)
{
    const char *text = serve_openapi_document(NULL);
    struct json_object *doc = text ? json_tokener_parse(text) : NULL;
    for (size_t i = 0; doc && i < N_TOOLS; i++) {
        struct json_object *schema = parse_static(tool_defs[i].input_schema), *props = NULL;
        bool all = schema && json_object_object_get_ex(schema, "properties", &props);
        if (!all) {
            json_object_put(schema);
            continue;
        }
        json_object_object_foreach(props, name, prop)
        {
            struct json_object *ref = NULL, *shared = NULL;
            if (!json_object_object_get_ex(prop, "x-route", &ref)) continue;
            shared = route_input(doc, json_object_get_string(ref), prop);
            if (!shared) {
                all = false;
                break;
            }
            json_object_object_add(props, name, shared);
        }
        if (all)
            input_texts[i] = strdup(json_object_to_json_string_ext(
                schema, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(schema);
    }
    json_object_put(doc);
}

/* A tool's input schema, its shared inputs taken from the route they name. */
static struct json_object *input_schema(size_t i)
{
    pthread_once(&inputs_once, resolve_inputs);
    return parse_static(input_texts[i] ? input_texts[i] : tool_defs[i].input_schema);
}

struct json_object *mcp_tools_list(const mcp_server *srv, const mcp_rev_info *rev)
{
    struct json_object *arr = json_object_new_array();
    for (size_t i = 0; arr && i < N_TOOLS; i++) {
        const tool_def *t = &tool_defs[i];
        struct json_object *o = json_object_new_object();
        if (!o) break;
        serve_jadd(o, "name", json_object_new_string(t->name));
        if (rev->tool_title) serve_jadd(o, "title", json_object_new_string(t->title));
        serve_jadd(o, "description", json_object_new_string(t->description));
        serve_jadd(o, "inputSchema", input_schema(i));
        if (rev->structured) serve_jadd(o, "outputSchema", parse_static(t->output_schema));
        bool writes = !strcmp(t->name, "report_usage"); /* records: not read-only */
        if (rev->tool_annotations) {
            struct json_object *an = json_object_new_object();
            if (an) {
                serve_jadd(an, "title", json_object_new_string(t->title));
                serve_jadd(an, "readOnlyHint", json_object_new_boolean(!writes));
                serve_jadd(an, "destructiveHint", json_object_new_boolean(0));
                serve_jadd(an, "idempotentHint", json_object_new_boolean(!writes));
                serve_jadd(an, "openWorldHint", json_object_new_boolean(0));
            }
            serve_jadd(o, "annotations", an);
        }
        json_object_array_add(arr, o);
    }
    if (arr && srv && srv->calls) json_object_array_add(arr, mcp_call_tool(rev, srv->calls));
    return arr;
}

/* ---------------------------------------------------------------- arguments */

/* A tool argument failure: reported to the model as a tool error (isError). */
typedef struct arg_error {
    char message[400];
} arg_error;

static bool arg_fail(arg_error *ae, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool arg_fail(arg_error *ae, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ae->message, sizeof ae->message, fmt, ap);
    va_end(ap);
    return false;
}

static bool known_key(const char *key, const char *const *allowed)
{
    for (size_t i = 0; allowed[i]; i++)
        if (!strcmp(key, allowed[i])) return true;
    return false;
}

static bool check_keys(struct json_object *args, const char *const *allowed, arg_error *ae)
{
    json_object_object_foreach(args, key, val)
    {
        (void)val;
        if (known_key(key, allowed)) continue;
        char list[200] = "";
        size_t used = 0;
        for (size_t i = 0; allowed[i] && used < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                     allowed[i]);
        return arg_fail(ae, "unknown argument '%.60s' (this tool takes: %s)", key,
                        allowed[0] ? list : "no arguments");
    }
    return true;
}

static bool arg_string(struct json_object *args, const char *key, bool required, const char **out,
                       arg_error *ae)
{
    struct json_object *v;
    *out = NULL;
    if (!json_object_object_get_ex(args, key, &v) || !v) {
        if (required) return arg_fail(ae, "missing required argument '%s'", key);
        return true;
    }
    if (!json_object_is_type(v, json_type_string))
        return arg_fail(ae, "argument '%s' must be a string", key);
    size_t n = (size_t)json_object_get_string_len(v);
    if (!serve_text_ok(json_object_get_string(v), n))
        return arg_fail(ae, "argument '%s' must be valid UTF-8 text without NUL bytes", key);
    *out = json_object_get_string(v);
    return true;
}

static bool arg_bool(struct json_object *args, const char *key, bool *out, arg_error *ae)
{
    struct json_object *v;
    if (!json_object_object_get_ex(args, key, &v) || !v) return true;
    if (!json_object_is_type(v, json_type_boolean))
        return arg_fail(ae, "argument '%s' must be true or false", key);
    *out = json_object_get_boolean(v);
    return true;
}

static bool arg_int(struct json_object *args, const char *key, long lo, long hi, size_t *out,
                    arg_error *ae)
{
    struct json_object *v;
    if (!json_object_object_get_ex(args, key, &v) || !v) return true;
    int64_t x;
    if (json_object_is_type(v, json_type_int)) {
        x = json_object_get_int64(v);
    } else if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        /* range first: converting a double beyond int64 is undefined */
        if (!(d >= (double)lo && d <= (double)hi))
            return arg_fail(ae, "argument '%s' must be between %ld and %ld", key, lo, hi);
        if (d != (double)(int64_t)d) return arg_fail(ae, "argument '%s' must be an integer", key);
        x = (int64_t)d;
    } else {
        return arg_fail(ae, "argument '%s' must be an integer", key);
    }
    if (x < lo || x > hi)
        return arg_fail(ae, "argument '%s' must be between %ld and %ld", key, lo, hi);
    *out = (size_t)x;
    return true;
}

/* A string array into list[0..max) + NULL terminator (strings borrowed from args). */
static bool arg_list(struct json_object *args, const char *key, const char **list, size_t max,
                     bool *given, arg_error *ae)
{
    struct json_object *v;
    *given = false;
    list[0] = NULL;
    if (!json_object_object_get_ex(args, key, &v) || !v) return true;
    if (!json_object_is_type(v, json_type_array))
        return arg_fail(ae, "argument '%s' must be an array of strings", key);
    size_t n = json_object_array_length(v);
    if (n > max) return arg_fail(ae, "argument '%s' has too many items (at most %zu)", key, max);
    for (size_t i = 0; i < n; i++) {
        struct json_object *it = json_object_array_get_idx(v, i);
        if (!json_object_is_type(it, json_type_string) ||
            !serve_text_ok(json_object_get_string(it), (size_t)json_object_get_string_len(it)))
            return arg_fail(ae, "argument '%s' must be an array of strings", key);
        list[i] = json_object_get_string(it);
    }
    list[n] = NULL;
    *given = n > 0;
    return true;
}

/* ---------------------------------------------------------------- results */

static struct json_object *text_content(const char *text, size_t len)
{
    struct json_object *arr = json_object_new_array(), *c = json_object_new_object();
    if (!arr || !c) {
        json_object_put(arr);
        json_object_put(c);
        return NULL;
    }
    serve_jadd(c, "type", json_object_new_string("text"));
    serve_jadd(c, "text", json_object_new_string_len(text, (int)len));
    json_object_array_add(arr, c);
    return arr;
}

static int tool_error(const char *message, struct json_object **result, mcp_error *e)
{
    struct json_object *r = json_object_new_object();
    struct json_object *content = text_content(message, strlen(message));
    if (!r || !content) {
        json_object_put(r);
        json_object_put(content);
        return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    }
    serve_jadd(r, "content", content);
    serve_jadd(r, "isError", json_object_new_boolean(1));
    *result = r;
    return 0;
}

/* A successful result: the serialised JSON as text (for clients without
   structured content) and, where the revision has it, the object itself. */
static int tool_ok(const mcp_rev_info *rev, struct json_object *obj, struct json_object **result,
                   mcp_error *e)
{
    size_t len = 0;
    char *text = serve_json_dump(obj, &len);
    struct json_object *r = json_object_new_object();
    struct json_object *content = text ? text_content(text, len) : NULL;
    free(text);
    if (!r || !content) {
        json_object_put(r);
        json_object_put(content);
        json_object_put(obj);
        return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    }
    serve_jadd(r, "content", content);
    if (rev->structured)
        serve_jadd(r, "structuredContent", obj);
    else
        json_object_put(obj);
    *result = r;
    return 0;
}

/* Runs a query outcome into a tool result: apidex errors become tool errors
   the model can act on; only OOM is a protocol error. */
static int query_outcome(const mcp_rev_info *rev, int rc, struct json_object *obj,
                         const apidex_error *qerr, struct json_object **result, mcp_error *e)
{
    if (rc == APIDEX_ENOMEM) return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    if (rc) return tool_error(qerr->message[0] ? qerr->message : apidex_strerror(rc), result, e);
    return tool_ok(rev, obj, result, e);
}

static const char *const search_keys[] = {"task", "k",       "adaptive",           "apis",
                                          "tags", "methods", "include_deprecated", NULL};
static const char *const endpoint_keys[] = {"id", "method", "path", "api", "detail", NULL};
static const char *const apis_keys[] = {"cursor", NULL};

/* APIs per list_apis page: about a thousand tokens. */
enum { API_PAGE = 20 };
static const char *const ask_keys[] = {"task", "apis", "budget", NULL};

static int call_search(mcp_server *srv, serve_snapshot *snap, const mcp_rev_info *rev,
                       struct json_object *args, struct json_object **result, mcp_error *e)
{
    (void)srv;
    arg_error ae = {{0}};
    const char *apis[SERVE_MAX_FILTERS + 1], *tags[SERVE_MAX_FILTERS + 1], *methods[9];
    bool has_apis, has_tags, has_methods;
    serve_search_args a = {.compact = true};
    if (!check_keys(args, search_keys, &ae) || !arg_string(args, "task", true, &a.task, &ae) ||
        !arg_int(args, "k", 1, SERVE_MAX_K, &a.k, &ae) ||
        !arg_bool(args, "adaptive", &a.adaptive, &ae) ||
        !arg_bool(args, "include_deprecated", &a.include_deprecated, &ae) ||
        !arg_list(args, "apis", apis, SERVE_MAX_FILTERS, &has_apis, &ae) ||
        !arg_list(args, "tags", tags, SERVE_MAX_FILTERS, &has_tags, &ae) ||
        !arg_list(args, "methods", methods, 8, &has_methods, &ae))
        return tool_error(ae.message, result, e);
    a.apis = has_apis ? apis : NULL;
    a.tags = has_tags ? tags : NULL;
    a.methods = has_methods ? methods : NULL;
    struct json_object *obj = NULL;
    apidex_error qerr;
    core_error_clear(&qerr);
    int rc = serve_query_search(snap, &a, &obj, &qerr);
    return query_outcome(rev, rc, obj, &qerr, result, e);
}

static int call_endpoint(mcp_server *srv, serve_snapshot *snap, const mcp_rev_info *rev,
                         struct json_object *args, struct json_object **result, mcp_error *e)
{
    (void)srv;
    arg_error ae = {{0}};
    const char *id, *method, *path, *api, *detail;
    if (!check_keys(args, endpoint_keys, &ae) || !arg_string(args, "id", false, &id, &ae) ||
        !arg_string(args, "method", false, &method, &ae) ||
        !arg_string(args, "path", false, &path, &ae) ||
        !arg_string(args, "api", false, &api, &ae) ||
        !arg_string(args, "detail", false, &detail, &ae))
        return tool_error(ae.message, result, e);
    struct json_object *obj = NULL;
    apidex_error qerr;
    core_error_clear(&qerr);
    int rc = serve_query_endpoint(snap, id, method, path, api, detail, &obj, &qerr);
    return query_outcome(rev, rc, obj, &qerr, result, e);
}

static int call_apis(mcp_server *srv, serve_snapshot *snap, const mcp_rev_info *rev,
                     struct json_object *args, struct json_object **result, mcp_error *e)
{
    (void)srv;
    arg_error ae = {{0}};
    const char *cursor;
    if (!check_keys(args, apis_keys, &ae) || !arg_string(args, "cursor", false, &cursor, &ae))
        return tool_error(ae.message, result, e);
    struct json_object *obj = NULL;
    apidex_error qerr;
    core_error_clear(&qerr);
    int rc = serve_query_api_page(snap, cursor, API_PAGE, &obj, &qerr);
    return query_outcome(rev, rc, obj, &qerr, result, e);
}

static int call_ask(mcp_server *srv, serve_snapshot *snap, const mcp_rev_info *rev,
                    struct json_object *args, struct json_object **result, mcp_error *e)
{
    arg_error ae = {{0}};
    const char *apis[SERVE_MAX_FILTERS + 1];
    bool has_apis;
    serve_ask_args a = {0};
    if (!check_keys(args, ask_keys, &ae) || !arg_string(args, "task", true, &a.task, &ae) ||
        !arg_int(args, "budget", SERVE_MIN_BUDGET, SERVE_MAX_BUDGET, &a.budget, &ae) ||
        !arg_list(args, "apis", apis, SERVE_MAX_FILTERS, &has_apis, &ae))
        return tool_error(ae.message, result, e);
    a.apis = has_apis ? apis : NULL;
    a.llm = srv->llm;
    struct json_object *obj = NULL;
    apidex_error qerr;
    core_error_clear(&qerr);
    int rc = serve_query_ask(snap, &a, &obj, &qerr);
    return query_outcome(rev, rc, obj, &qerr, result, e);
}

static const char *const tooldef_keys[] = {"ids", "task", "k", "format", NULL};

static int call_tooldefs(mcp_server *srv, serve_snapshot *snap, const mcp_rev_info *rev,
                         struct json_object *args, struct json_object **result, mcp_error *e)
{
    (void)srv;
    arg_error ae = {{0}};
    const char *ids[SERVE_MAX_K + 1], *task, *format;
    bool has_ids;
    size_t k = 0;
    if (!check_keys(args, tooldef_keys, &ae) ||
        !arg_list(args, "ids", ids, SERVE_MAX_K, &has_ids, &ae) ||
        !arg_string(args, "task", false, &task, &ae) ||
        !arg_int(args, "k", 1, SERVE_MAX_K, &k, &ae) ||
        !arg_string(args, "format", false, &format, &ae))
        return tool_error(ae.message, result, e);
    view_tool_format fmt = VIEW_TOOL_OPENAI;
    if (format && !strcmp(format, "anthropic"))
        fmt = VIEW_TOOL_ANTHROPIC;
    else if (format && !strcmp(format, "mcp"))
        fmt = VIEW_TOOL_MCP;
    else if (format && strcmp(format, "openai"))
        return tool_error("format must be openai, anthropic or mcp", result, e);
    size_t n_ids = 0;
    while (has_ids && ids[n_ids]) n_ids++;
    struct json_object *obj = NULL;
    apidex_error qerr;
    core_error_clear(&qerr);
    int rc = serve_query_tools(snap, ids, n_ids, task, k, fmt, &obj, &qerr);
    return query_outcome(rev, rc, obj, &qerr, result, e);
}

static const char *const match_keys[] = {"document", "threshold", "k", NULL};

static int call_match(mcp_server *srv, serve_snapshot *snap, const mcp_rev_info *rev,
                      struct json_object *args, struct json_object **result, mcp_error *e)
{
    (void)srv;
    arg_error ae = {{0}};
    size_t k = 0;
    struct json_object *doc = NULL, *th = NULL;
    if (!check_keys(args, match_keys, &ae) || !arg_int(args, "k", 1, 20, &k, &ae))
        return tool_error(ae.message, result, e);
    double threshold = -1;
    if (json_object_object_get_ex(args, "threshold", &th)) {
        if (!json_object_is_type(th, json_type_double) && !json_object_is_type(th, json_type_int))
            return tool_error("threshold must be a number in [0, 1]", result, e);
        threshold = json_object_get_double(th);
        if (!(threshold >= 0 && threshold <= 1))
            return tool_error("threshold must be a number in [0, 1]", result, e);
    }
    if (!json_object_object_get_ex(args, "document", &doc) ||
        !(json_object_is_type(doc, json_type_object) || json_object_is_type(doc, json_type_string)))
        return tool_error("document is required: the OpenAPI document as an object or as text",
                          result, e);
    size_t len = 0;
    const char *text = json_object_is_type(doc, json_type_string)
                           ? json_object_get_string(doc)
                           : json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN, &len);
    if (json_object_is_type(doc, json_type_string)) len = (size_t)json_object_get_string_len(doc);
    struct json_object *obj = NULL;
    apidex_error qerr;
    core_error_clear(&qerr);
    int rc = serve_query_match(snap, text, len, threshold, k, &obj, &qerr);
    return query_outcome(rev, rc, obj, &qerr, result, e);
}

static int call_feedback(mcp_server *srv, serve_snapshot *snap, const mcp_rev_info *rev,
                         struct json_object *args, struct json_object **result, mcp_error *e)
{
    (void)srv;
    struct json_object *obj = NULL;
    apidex_error qerr;
    core_error_clear(&qerr);
    int rc = serve_query_feedback(snap, args, &obj, &qerr);
    return query_outcome(rev, rc, obj, &qerr, result, e);
}

/* call_endpoint (call.c): listed and callable only when the server allows calls. */
static int call_call(mcp_server *srv, serve_snapshot *snap, const mcp_rev_info *rev,
                     struct json_object *args, struct json_object **result, mcp_error *e)
{
    struct json_object *obj = NULL;
    apidex_error qerr;
    core_error_clear(&qerr);
    int rc = serve_query_call(snap, srv->calls, args, &obj, &qerr);
    return query_outcome(rev, rc, obj, &qerr, result, e);
}

int mcp_tools_call(mcp_server *srv, const mcp_rev_info *rev, struct json_object *params,
                   struct json_object **result, mcp_error *e)
{
    *result = NULL;
    const char *name = serve_jget_str(params, "name");
    if (!name) return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: \"name\" must be a string");
    struct json_object *args = NULL;
    if (json_object_object_get_ex(params, "arguments", &args) && args &&
        !json_object_is_type(args, json_type_object))
        return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: \"arguments\" must be an object");
    static const struct {
        const char *name;
        int (*fn)(mcp_server *, serve_snapshot *, const mcp_rev_info *, struct json_object *,
                  struct json_object **, mcp_error *);
    } table[] = {{"search_endpoints", call_search},
                 {"get_endpoint", call_endpoint},
                 {"list_apis", call_apis},
                 {"ask_api", call_ask},
                 {"get_tool_definitions", call_tooldefs},
                 {"match_spec", call_match},
                 {"report_usage", call_feedback},
                 {"call_endpoint", call_call}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(name, table[i].name)) continue;
        if (table[i].fn == call_call && !srv->calls)
            return mcp_fail(e, JRPC_INVALID_PARAMS,
                            "Unknown tool: call_endpoint (calls are off: start the server "
                            "with --allow-calls)");
        struct json_object *empty = NULL;
        if (!args) args = empty = json_object_new_object();
        if (!args) return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
        serve_snapshot *snap = serve_db_acquire(srv->db);
        int rc = table[i].fn(srv, snap, rev, args, result, e);
        serve_snapshot_release(snap);
        json_object_put(empty);
        return rc;
    }
    return mcp_fail(e, JRPC_INVALID_PARAMS, "Unknown tool: %.100s", name);
}

/* ---------------------------------------------------------------- resources */

#define APIS_PREFIX      "apidex://apis/"
#define ENDPOINTS_PREFIX "apidex://endpoints/"

static char *api_uri(const char *id)
{
    core_buf b;
    core_buf_init(&b, 8192);
    core_buf_puts(&b, APIS_PREFIX);
    serve_percent_encode(&b, id);
    return b.failed ? (core_buf_free(&b), NULL) : core_buf_steal(&b, NULL);
}

int mcp_resources_list(serve_db *db, size_t offset, size_t page, struct json_object **resources,
                       size_t *next_offset, mcp_error *e)
{
    serve_snapshot *snap = serve_db_acquire(db);
    *next_offset = 0;
    if (offset && offset >= snap->n_apis) { /* never issued, or the index shrank since */
        serve_snapshot_release(snap);
        return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid cursor: list resources from the start");
    }
    struct json_object *arr = json_object_new_array();
    bool ok = arr != NULL;
    size_t end = offset + page < snap->n_apis ? offset + page : snap->n_apis;
    for (size_t i = offset; ok && i < end; i++) {
        const store_api *api = &snap->apis[i];
        struct json_object *o = json_object_new_object();
        char *uri = api_uri(api->id);
        ok = o && uri;
        if (ok) {
            char desc[512];
            snprintf(
                desc, sizeof desc, "%s%s%zu operations, %zu schemas: overview and endpoint list",
                api->title ? api->title : "", api->title ? " - " : "", api->n_ops, api->n_schemas);
            serve_jadd(o, "uri", json_object_new_string(uri));
            serve_jadd(o, "name", json_object_new_string(api->id));
            serve_jadd(o, "description", json_object_new_string(desc));
            serve_jadd(o, "mimeType", json_object_new_string("application/json"));
            ok = json_object_array_add(arr, o) == 0;
        } else {
            json_object_put(o);
        }
        free(uri);
    }
    if (ok && end < snap->n_apis) *next_offset = end;
    serve_snapshot_release(snap);
    if (!ok) {
        json_object_put(arr);
        return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    }
    *resources = arr;
    return 0;
}

struct json_object *mcp_resource_templates(void)
{
    return json_tokener_parse(
        "[{\"uriTemplate\":\"apidex://apis/{api}\",\"name\":\"api\","
        "\"description\":\"One indexed API: title, version, servers, tags and every operation "
        "with its endpoint resource URI\",\"mimeType\":\"application/json\"},"
        "{\"uriTemplate\":\"apidex://endpoints/{id}\",\"name\":\"endpoint\","
        "\"description\":\"One endpoint by id (as search_endpoints returns it) at the call "
        "level: what a call needs (URL, auth, parameters, body schema, required inputs); "
        "get_endpoint with detail full has every schema\",\"mimeType\":\"application/json\"}]");
}

int mcp_resources_read(serve_db *db, const mcp_rev_info *rev, const char *uri,
                       struct json_object **contents, mcp_error *e)
{
    *contents = NULL;
    const char *rest = NULL;
    bool is_api = false;
    if (!strncmp(uri, APIS_PREFIX, strlen(APIS_PREFIX))) {
        rest = uri + strlen(APIS_PREFIX);
        is_api = true;
    } else if (!strncmp(uri, ENDPOINTS_PREFIX, strlen(ENDPOINTS_PREFIX))) {
        rest = uri + strlen(ENDPOINTS_PREFIX);
    }
    char *key = rest && *rest ? serve_percent_decode(rest, strlen(rest)) : NULL;
    if (!key) {
        int rc = mcp_fail(e, rev->resource_not_found, "Resource not found");
        e->data = json_object_new_object();
        if (e->data) serve_jadd(e->data, "uri", json_object_new_string(uri));
        return rc;
    }
    serve_snapshot_call q;
    serve_snapshot_call_open(db, &q);
    int rc = is_api ? serve_query_api(q.snap, key, &q.obj, &q.err)
                    : serve_query_endpoint(q.snap, key, NULL, NULL, NULL, NULL, &q.obj, &q.err);
    serve_snapshot_call_close(&q);
    free(key);
    if (rc == APIDEX_ENOMEM) return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    if (rc) {
        mcp_fail(e, rev->resource_not_found, "Resource not found");
        e->data = json_object_new_object();
        if (e->data) serve_jadd(e->data, "uri", json_object_new_string(uri));
        return -1;
    }
    size_t len = 0;
    char *text = serve_json_dump(q.obj, &len);
    json_object_put(q.obj);
    struct json_object *arr = json_object_new_array(), *c = json_object_new_object();
    if (!text || !arr || !c) {
        free(text);
        json_object_put(arr);
        json_object_put(c);
        return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    }
    serve_jadd(c, "uri", json_object_new_string(uri));
    serve_jadd(c, "mimeType", json_object_new_string("application/json"));
    serve_jadd(c, "text", json_object_new_string_len(text, (int)len));
    free(text);
    json_object_array_add(arr, c);
    *contents = arr;
    return 0;
}
