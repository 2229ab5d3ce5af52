/* apidex tools: OpenAI, Anthropic or MCP tool definitions for chosen endpoints. */
#include "cli/cli.h"

#include "serve/serve.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_IDS = 256 };

static void tools_usage(FILE *out)
{
    fprintf(out,
            "usage: apidex tools [--db FILE] [--format openai|anthropic|mcp] [--compact] ID...\n"
            "       apidex tools [--db FILE] [--format F] --search \"TASK\" [-k N]\n"
            "  Prints {\"tools\": [...], \"calls\": {...}}: tool definitions for the endpoint\n"
            "  ids given (as `apidex search` prints them), or for the endpoints a task needs\n"
            "  (--search: the adaptive answer set; -k N: the top N instead). Each takes its\n"
            "  arguments grouped as path, query, header, cookie and body; calls[NAME] says how\n"
            "  to make the HTTP call: method, path, server, content_type, auth (docs/CLIENTS.md).\n"
            "  Names are API__operationId, or shortened with a hash: the same in every request.\n"
            "  --format F   openai (default: {type: function, function: {..., strict: true}},\n"
            "               schemas in OpenAI's strict subset), anthropic ({name, description,\n"
            "               input_schema}) or mcp ({name, description, inputSchema})\n");
}

int cli_cmd_tools(int argc, char **argv)
{
    const char *db_flag = NULL, *task = NULL;
    const char *ids[MAX_IDS];
    size_t n_ids = 0, k = 0;
    serve_tools_format fmt = SERVE_TOOLS_OPENAI;
    bool compact = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            tools_usage(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--compact")) {
            compact = true;
        } else if (!strcmp(a, "--db") && v) {
            db_flag = v;
            i++;
        } else if (!strcmp(a, "--search") && v) {
            task = v;
            i++;
        } else if (!strcmp(a, "-k") && v) {
            char *end;
            long n = strtol(v, &end, 10);
            ok = !*end && n >= 1 && n <= 100;
            k = (size_t)n;
            i++;
        } else if (!strcmp(a, "--format") && v) {
            if (!strcmp(v, "openai"))
                fmt = SERVE_TOOLS_OPENAI;
            else if (!strcmp(v, "anthropic"))
                fmt = SERVE_TOOLS_ANTHROPIC;
            else if (!strcmp(v, "mcp"))
                fmt = SERVE_TOOLS_MCP;
            else
                ok = false;
            i++;
        } else if (a[0] == '-' && a[1]) {
            ok = false;
        } else {
            ok = n_ids < MAX_IDS;
            if (ok) ids[n_ids++] = a;
        }
        if (!ok) {
            fprintf(stderr, "apidex tools: bad argument '%s'\n", a);
            tools_usage(stderr);
            return CLI_USAGE;
        }
    }
    if (!n_ids == !task) {
        tools_usage(stderr);
        return CLI_USAGE;
    }
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    search_result *res = NULL;
    struct json_object *out = NULL;
    int rc = store_open(cli_db_path(db_flag), true, &idx, &err);
    if (!rc && task) {
        search_query q = {.text = task, .adaptive = k == 0, .k = k};
        rc = search_run(idx, &q, &res, &err);
        for (size_t i = 0; !rc && i < res->n_hits && n_ids < MAX_IDS; i++)
            ids[n_ids++] = res->hits[i].id;
    }
    if (!rc) rc = serve_tooldefs(idx, ids, n_ids, fmt, &out, &err);
    if (rc) {
        cli_print_error(&err);
        search_result_free(res);
        store_close(idx);
        return rc == APIDEX_ENOTFOUND ? CLI_PROBLEMS : CLI_FAILURE;
    }
    fputs(json_object_to_json_string_ext(
              out, (compact ? JSON_C_TO_STRING_PLAIN
                            : JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED) |
                       JSON_C_TO_STRING_NOSLASHESCAPE),
          stdout);
    fputc('\n', stdout);
    json_object_put(out);
    search_result_free(res);
    store_close(idx);
    return CLI_OK;
}
