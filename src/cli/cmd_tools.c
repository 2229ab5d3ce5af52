/* apidex tools: OpenAI, Anthropic or MCP tool definitions for chosen endpoints. */
#include "cli/cli.h"

#include "serve/serve.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    /* Ids come from the command line or from one search: no fixed cap, argc bounds them. */
    const char **ids = calloc((size_t)argc, sizeof *ids);
    size_t n_ids = 0, k = 0;
    serve_tools_format fmt = SERVE_TOOLS_OPENAI;
    bool compact = false;
    if (!ids) return CLI_FAILURE;
    int code = CLI_OK;
    for (int i = 1; i < argc && code == CLI_OK; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            tools_usage(stdout);
            free(ids);
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
            if (!cli_arg_size("tools", a, v, 1, 100, &k)) code = CLI_USAGE;
            i++;
        } else if (!strcmp(a, "--format") && v) {
            static const char *const formats[] = {"openai", "anthropic", "mcp", NULL};
            int f = cli_arg_choice("tools", a, v, formats);
            if (f < 0) code = CLI_USAGE;
            fmt = f == 1 ? SERVE_TOOLS_ANTHROPIC : f == 2 ? SERVE_TOOLS_MCP : SERVE_TOOLS_OPENAI;
            i++;
        } else if (a[0] == '-' && a[1]) {
            code = cli_arg_unknown("tools", a);
        } else {
            ids[n_ids++] = a;
        }
    }
    if (code == CLI_OK && !n_ids == !task)
        code = cli_usage_error("tools", "give endpoint ids or --search \"TASK\", not both");
    if (code == CLI_OK && task) code = cli_check_task("tools", task);
    if (code != CLI_OK) {
        free(ids);
        return code;
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
        const char **grown = rc ? NULL : realloc(ids, (res->n_hits + 1) * sizeof *ids);
        if (!rc && !grown) rc = core_error_set(&err, APIDEX_ENOMEM, "out of memory");
        if (grown) ids = grown;
        for (size_t i = 0; !rc && i < res->n_hits; i++) ids[n_ids++] = res->hits[i].id;
    }
    if (!rc) rc = serve_tooldefs(idx, ids, n_ids, fmt, &out, &err);
    if (rc) {
        cli_print_error(&err);
        search_result_free(res);
        store_close(idx);
        free(ids);
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
    free(ids);
    return CLI_OK;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_tools(FILE *out)
{
    tools_usage(out);
}
