/* apidex call: build the request for an endpoint from its spec and the caller's inputs,
   validate it, and show it (--dry-run) or send it (call_send). */
#include "cli/cli.h"

#include "exec/exec.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void call_usage(FILE *out)
{
    fprintf(out,
            "usage: apidex call ID | \"METHOD /path\" [--api A] [-p name=value]...\n"
            "                   [--body JSON|@file] [--content-type TYPE] [--server URL]\n"
            "                   [--dry-run] [--json] [--db FILE]\n"
            "  ID                an operation id as search prints it (api:operationId)\n"
            "  --api A           pick the API when several have the endpoint\n"
            "  -p, --param name=value\n"
            "                    a path/query/header/cookie parameter, a server variable, or a\n"
            "                    field of an object body; [..] and {..} values are JSON, an\n"
            "                    array may be a,b,c; repeat for each input; a name at\n"
            "                    several locations: query:id=7, path:id=1, body:id=x\n"
            "  --body JSON|@file the request body (JSON, or text for a non-JSON media type)\n"
            "  --content-type TYPE  which of the body's media types to send (default: JSON,\n"
            "                    else form, else multipart)\n"
            "  --server URL      the base URL instead of the spec's servers\n"
            "  --dry-run         print the request (secrets masked) and a curl command; send\n"
            "                    nothing\n"
            "  --json            the same as JSON\n"
            "  --db FILE         index file (default $APIDEX_DB or ./apidex.db)\n"
            "Every input is checked against its schema before anything is sent (exit 2 names\n"
            "the parameter and the rule). Credentials come from APIDEX_AUTH_<API>_<SCHEME>,\n"
            "the registry's auth, or ~/.config/apidex/credentials.yaml (docs/EXECUTE.md).\n");
}

/* The request as a JSON object (secrets masked), with its curl command. */
static json_object *request_json(const exec_request *r, const char *curl)
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
        json_object *o = request_json(r, c);
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

/* Sends r and prints the response: the one place the transport is wired in. */
static int call_send(const cli_call_args *a, const exec_request *r)
{
    (void)a;
    (void)r;
    fprintf(stderr, "apidex call: sending needs the transport, which this build does not have "
                    "yet; use --dry-run to see the request\n");
    return CLI_USAGE;
}

int cli_cmd_call(int argc, char **argv)
{
    cli_call_args a;
    int code = cli_call_parse("call", argc, argv, call_usage, &a);
    if (code == CLI_OK) {
        cli_call_target *t = NULL;
        exec_request *r = NULL;
        code = cli_call_build("call", &a, false, &t, &r);
        if (code == CLI_OK) code = a.dry_run ? dry_run(&a, r) : call_send(&a, r);
        cli_call_target_free(t);
    }
    free(a.params);
    return code < 0 ? CLI_OK : code;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_call(FILE *out)
{
    call_usage(out);
}
