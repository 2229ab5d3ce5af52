/* apidex call: build the request for an endpoint from its spec and the caller's inputs,
   validate it, and show it (--dry-run) or send it (call_send). */
#include "cli/cli.h"

#include "exec/exec.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The exit code when the API answered 4xx or 5xx (documented in --help and docs/EXECUTE.md). */
enum { CALL_EXIT_HTTP = 6 };

static const cli_flag call_rows[] = {
    CLI_TEXT("usage: apidex call ID | \"METHOD /path\" [--api A] [-p name=value]...\n"
             "                   [--body JSON|@file] [--content-type TYPE] [--server URL]\n"
             "                   [--dry-run] [--json] [--db FILE]\n"
             "  ID                an operation id as search prints it (api:operationId)\n"),
    CLI_STRING("--api", NULL, cli_call_args, api,
               "  --api A           pick the API when several have the endpoint\n"),
    CLI_HANDLER("--param", "-p", cli_call_take_param, NULL,
                "  -p, --param name=value\n"
                "                    a path/query/header/cookie parameter, a server variable, or "
                "a\n"
                "                    field of an object body; [..] and {..} values are JSON, an\n"
                "                    array may be a,b,c; repeat for each input; a name at\n"
                "                    several locations: query:id=7, path:id=1, body:id=x\n"),
    CLI_STRING("--body", NULL, cli_call_args, body,
               "  --body JSON|@file the request body (JSON, or text for a non-JSON media type)\n"),
    CLI_STRING("--content-type", NULL, cli_call_args, content_type,
               "  --content-type TYPE  which of the body's media types to send (default: JSON,\n"
               "                    else form, else multipart)\n"),
    CLI_STRING("--server", NULL, cli_call_args, server,
               "  --server URL      the base URL instead of the spec's servers\n"),
    CLI_SWITCH("--dry-run", NULL, cli_call_args, dry_run,
               "  --dry-run         print the request (secrets masked) and a curl command; send\n"
               "                    nothing\n"),
    CLI_SWITCH("--json", NULL, cli_call_args, json,
               "  --json            the same as JSON (sent: the shaped response as JSON)\n"),
    CLI_TEXT("Sending (without --dry-run) follows the safety rules of docs/EXECUTE.md:\n"),
    CLI_SWITCH("--allow-write", NULL, cli_call_args, allow_write,
               "  --allow-write     methods other than GET/HEAD/OPTIONS\n"),
    CLI_HANDLER("--allow-host", NULL, cli_call_take_host, NULL,
                "  --allow-host HOST another host, no credentials (the spec's servers and\n"
                "                    --server are allowed); scheme://HOST[:PORT]: that origin,\n"
                "                    and the API's credentials may go there\n"),
    CLI_SWITCH("--allow-private", NULL, cli_call_args, allow_private,
               "  --allow-private   private, loopback and link-local addresses\n"),
    CLI_HANDLER("--allow-address", NULL, cli_call_take_address, NULL,
                "  --allow-address IP  this one private address only (repeatable)\n"),
    CLI_HANDLER("--timeout", NULL, cli_call_take_timeout, NULL,
                "  --timeout SECONDS the whole exchange (default 30)\n"),
    CLI_HANDLER("--max-bytes", NULL, cli_call_take_max_bytes, NULL,
                "  --max-bytes N     cut the response body at N bytes (default 8 MiB)\n"),
    CLI_STRING("--select", NULL, cli_call_args, select,
               "  --select EXPR     the fields of the body to show (JSONPath subset, e.g.\n"
               "                    $.results[*].title)\n"),
    CLI_HANDLER("--budget", NULL, cli_call_take_budget, NULL,
                "  --budget N        cut the body to N cl100k tokens (default 2000)\n"),
    CLI_HANDLER("--max-items", NULL, cli_call_take_max_items, NULL,
                "  --max-items N     items shown of a long array (default 10)\n"),
    CLI_STRING("--db", NULL, cli_call_args, db,
               "  --db FILE         index file (default $APIDEX_DB, the registry file's db,\n"
               "                    or ./apidex.db)\n"),
    CLI_TEXT("An MCP tool (SERVER:TOOL) is called on its registry server over MCP: -p and\n"
             "--body (a JSON object) are its arguments, checked against its inputSchema; a tool\n"
             "not marked readOnlyHint needs --allow-write (docs/MCP-SOURCES.md).\n"
             "SERVER:resource:NAME reads the resource (a template's variables as -p), and\n"
             "SERVER:prompt:NAME gets the prompt (its arguments as -p): reads, no --allow-write.\n"
             "Every input is checked against its schema before anything is sent (exit 2 names\n"
             "the parameter and the rule). Credentials come from APIDEX_AUTH_<API>_<SCHEME>,\n"
             "the registry's auth, or ~/.config/apidex/credentials.yaml (docs/EXECUTE.md).\n"
             "Exit: 0 the API answered 1xx-3xx, 6 it answered 4xx/5xx, 2 refused inputs,\n"
             "4 refused by a safety rule, 3 a network failure, 1 no such endpoint.\n"),
};
const cli_flag_table cli_call_table = {call_rows, sizeof call_rows / sizeof *call_rows};

static void call_usage(FILE *out)
{
    cli_flags_help(&cli_call_table, out);
}

static int dry_run(const cli_call_args *a, const exec_request *r)
{
    /* the curl command reads credentials from their variables: runnable, and secret-free */
    cli_call_target *pt = NULL;
    exec_request *pr = NULL;
    int code = cli_call_build("call", a, true, &pt, &pr);
    core_buf curl;
    core_buf_init(&curl, 0);
    if (code == CLI_OK && exec_snippet(pr, EXEC_SNIPPET_CURL, &curl)) code = CLI_FAILURE;
    cli_call_target_free(pt);
    if (code != CLI_OK) {
        core_buf_free(&curl);
        return code;
    }
    const char *c = curl.data ? curl.data : "";
    if (a->json) {
        json_object *o = exec_request_json(r, c);
        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                   JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(o);
    } else {
        printf("%s %s\n", r->method, exec_mask(r, r->url, r->arena));
        for (size_t i = 0; i < r->n_headers; i++)
            printf("%s: %s\n", r->headers[i].name, exec_mask(r, r->headers[i].value, r->arena));
        if (r->body) printf("\n%s\n", exec_mask(r, r->body, r->arena));
        printf("\n# dry run: nothing was sent. The same call with curl:\n%s", c);
    }
    core_buf_free(&curl);
    return CLI_OK;
}

/* The shaped response for a person: status line, headers that matter, body, notes. */
static void print_readable(const exec_request *r, json_object *o)
{
    json_object *v;
    printf("%s %s\n", r->method, exec_mask(r, r->url, r->arena));
    printf("HTTP %s", json_object_get_string(json_object_object_get(o, "status")));
    /* only when a redirect was followed (the final URL differs from the one sent for other
       reasons too: the secrets in it are masked) */
    json_object *n = NULL;
    if (json_object_object_get_ex(o, "redirects", &n) && json_object_get_int64(n) > 0 &&
        json_object_object_get_ex(o, "url", &v))
        printf("  (after redirects: %s)", json_object_get_string(v));
    putchar('\n');
    json_object_object_foreach(json_object_object_get(o, "headers"), hk, hv)
    {
        printf("%s: %s\n", hk, json_object_get_string(hv));
    }
    int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE;
    if (json_object_object_get_ex(o, "body", &v)) {
        putchar('\n');
        if (json_object_is_type(v, json_type_string))
            puts(json_object_get_string(v));
        else
            puts(json_object_to_json_string_ext(v, flags));
    }
    if (json_object_object_get_ex(o, "binary", &v)) printf("\n(binary body not shown)\n");
    if (json_object_object_get_ex(o, "pagination", &v))
        printf("\npagination: %s\n", json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
    if (json_object_object_get_ex(o, "schema", &v) && json_object_object_get_ex(v, "problem", &v))
        printf("\nschema: the body does not match the response schema: %s\n",
               json_object_get_string(v));
    if (json_object_object_get_ex(o, "notes", &v))
        for (size_t i = 0; i < json_object_array_length(v); i++)
            printf("note: %s\n", json_object_get_string(json_object_array_get_idx(v, i)));
}

/* Sends r (exec_call: the transport, then the shaping) and prints the response. Exit codes: 0
   for 1xx-3xx, CALL_EXIT_HTTP for 4xx/5xx, CLI_REFUSED for a safety refusal, CLI_FAILURE
   for a network failure. */
static int call_send(const cli_call_args *a, const cli_call_target *t, const exec_request *r)
{
    /* allowed origins (exec_build decided r->origin_allowed): the API's, the registry's
       server, --server as written, and --allow-host */
    exec_call_options o = {
        .policy = {.allow_write = a->allow_write,
                   .allow_private = a->allow_private,
                   .allowed_hosts = (const char *const *)a->hosts,
                   .n_allowed_hosts = a->n_hosts,
                   .timeout_ms = a->timeout_ms,
                   .max_bytes = a->max_bytes,
                   .allowed_addresses = (const char *const *)a->addresses,
                   .n_allowed_addresses = a->n_addresses},
        .shape = {.select = a->select, .budget = a->budget, .max_items = a->max_items}};
    apidex_error err;
    core_error_clear(&err);
    exec_response *resp = NULL;
    json_object *shaped = NULL;
    int rc = exec_call(r, cli_call_target_api(t), cli_call_target_op(t), &o, &resp, &shaped, &err);
    if (rc) {
        fprintf(stderr, "apidex call: %s%s\n", rc == APIDEX_EREFUSED ? "refused: " : "",
                err.message);
        if (rc == APIDEX_EREFUSED)
            fprintf(stderr, "apidex call: the flags that widen the rules: --allow-write, "
                            "--allow-host HOST, --allow-private, --allow-address IP\n");
        return rc == APIDEX_EREFUSED ? CLI_REFUSED : rc == APIDEX_EINVAL ? CLI_USAGE : CLI_FAILURE;
    }
    if (a->json)
        puts(json_object_to_json_string_ext(shaped, JSON_C_TO_STRING_PRETTY |
                                                        JSON_C_TO_STRING_NOSLASHESCAPE));
    else
        print_readable(r, shaped);
    long status = resp->status;
    json_object_put(shaped);
    exec_response_free(resp);
    return status >= 400 ? CALL_EXIT_HTTP : CLI_OK;
}

/* An MCP tool, resource or prompt (exec_tool_call): its arguments validated, the read-only
   rule (tools), then its registry server started, called and ended; the result shaped like a
   response. Exit codes as call_send's, a tool's isError counting as a 4xx/5xx answer. */
static int call_tool(const cli_call_args *a, const cli_call_target *t, const char *id,
                     const char *body)
{
    exec_tool_options o = {
        .params = a->params,
        .n_params = a->n_params,
        .body = body,
        .operation_id = id,
        .allow_write = a->allow_write,
        .timeout_ms = a->timeout_ms,
        .shape = {.select = a->select, .budget = a->budget, .max_items = a->max_items},
        .dry_run = a->dry_run};
    apidex_error err;
    core_error_clear(&err);
    json_object *out = NULL;
    bool is_error = false;
    int rc =
        exec_tool_call(cli_call_target_api(t), cli_call_target_op(t), &o, &out, &is_error, &err);
    if (rc) {
        fprintf(stderr, "apidex call: %s%s\n", rc == APIDEX_EREFUSED ? "refused: " : "",
                err.message);
        return rc == APIDEX_EREFUSED ? CLI_REFUSED : rc == APIDEX_EINVAL ? CLI_USAGE : CLI_FAILURE;
    }
    int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE;
    json_object *v = NULL;
    if (a->json || a->dry_run) {
        puts(json_object_to_json_string_ext(out, flags));
        if (a->dry_run && !a->json) printf("# dry run: the server was not called\n");
    } else {
        printf("%s %s%s\n", exec_mcp_kind(cli_call_target_op(t)), id,
               is_error ? ": the tool answered an error (isError)" : "");
        if (json_object_object_get_ex(out, "body", &v)) {
            putchar('\n');
            puts(json_object_is_type(v, json_type_string)
                     ? json_object_get_string(v)
                     : json_object_to_json_string_ext(v, flags));
        }
        if (json_object_object_get_ex(out, "notes", &v))
            for (size_t i = 0; i < json_object_array_length(v); i++)
                printf("note: %s\n", json_object_get_string(json_object_array_get_idx(v, i)));
    }
    json_object_put(out);
    return is_error ? CALL_EXIT_HTTP : CLI_OK;
}

/* A --select that does not parse is a usage error before anything is sent. */
static int check_select(const char *expr)
{
    if (!expr) return CLI_OK;
    apidex_error err;
    core_error_clear(&err);
    json_object *probe = json_object_new_object(), *out = NULL;
    int rc = exec_select(probe, expr, &out, &err);
    json_object_put(out);
    json_object_put(probe);
    if (rc == APIDEX_EINVAL) return cli_usage_error("call", "--select: %s", err.message);
    return rc ? CLI_FAILURE : CLI_OK;
}

int cli_cmd_call(int argc, char **argv)
{
    cli_call_args a;
    int code = cli_call_parse("call", &cli_call_table, call_usage, argc, argv, &a);
    if (code == CLI_OK) {
        cli_call_target *t = NULL;
        exec_request *r = NULL;
        code = check_select(a.select);
        apidex_error err;
        core_error_clear(&err);
        char dir[4096];
        exec_policy op = {.allow_private = a.allow_private,
                          .allowed_addresses = (const char *const *)a.addresses,
                          .n_allowed_addresses = a.n_addresses,
                          .timeout_ms = a.timeout_ms};
        if (code == CLI_OK && !a.dry_run &&
            exec_oauth_new(&op, exec_oauth_default_dir(dir, sizeof dir), &a.oauth, &err)) {
            cli_print_error(&err);
            code = CLI_FAILURE;
        }
        if (code == CLI_OK) code = cli_call_build("call", &a, false, &t, &r);
        const char *tool_body = NULL, *tool = cli_call_target_tool(t, &tool_body);
        if (code == CLI_OK)
            code = tool        ? call_tool(&a, t, tool, tool_body)
                   : a.dry_run ? dry_run(&a, r)
                               : call_send(&a, t, r);
        cli_call_target_free(t);
        exec_oauth_free(a.oauth);
    }
    free(a.params);
    free(a.hosts);
    free(a.addresses);
    return code < 0 ? CLI_OK : code;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_call(FILE *out)
{
    call_usage(out);
}
