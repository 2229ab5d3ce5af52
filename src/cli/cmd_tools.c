/* apidex tools: OpenAI, Anthropic or MCP tool definitions for chosen endpoints. */
#include "cli/cli.h"

#include "serve/serve.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tools_opts {
    const char *db, *task;
    size_t k;
    int format; /* an index into formats */
    bool compact;
} tools_opts;

static const char *const formats[] = {"openai", "anthropic", "mcp", NULL};

static const cli_flag tools_rows[] = {
    CLI_TEXT("usage: apidex tools [--db FILE] [--format openai|anthropic|mcp] [--compact] ID...\n"
             "       apidex tools [--db FILE] [--format F] --search \"TASK\" [-k N]\n"
             "  Prints {\"tools\": [...], \"calls\": {...}}: tool definitions for the endpoint\n"
             "  ids given (as `apidex search` prints them), or for the endpoints a task needs\n"
             "  (--search: the adaptive answer set; -k N: the top N instead). Each takes its\n"
             "  arguments grouped as path, query, header, cookie and body; calls[NAME] says how\n"
             "  to make the HTTP call: method, path, server, content_type, auth "
             "(docs/CLIENTS.md).\n"
             "  Names are API__operationId, or shortened with a hash: the same in every "
             "request.\n"),
    CLI_STRING("--db", NULL, tools_opts, db, NULL),
    CLI_SWITCH("--compact", NULL, tools_opts, compact, NULL),
    CLI_STRING("--search", NULL, tools_opts, task, NULL),
    CLI_SIZE("-k", NULL, tools_opts, k, 1, 100, NULL),
    CLI_CHOICE("--format", NULL, tools_opts, format, formats,
               "  --format F   openai (default: {type: function, function: {..., strict: true}},\n"
               "               schemas in OpenAI's strict subset), anthropic ({name, description,\n"
               "               input_schema}) or mcp ({name, description, inputSchema})\n"),
};
const cli_flag_table cli_tools_table = {tools_rows, sizeof tools_rows / sizeof *tools_rows};

static void tools_usage(FILE *out)
{
    cli_flags_help(&cli_tools_table, out);
}

int cli_cmd_tools(int argc, char **argv)
{
    tools_opts to = {0};
    /* Ids come from the command line or from one search: no fixed cap, argc bounds them. */
    const char **ids = calloc((size_t)argc, sizeof *ids);
    size_t n_ids = 0;
    if (!ids) return CLI_FAILURE;
    int code = CLI_OK;
    for (int i = 1; i < argc && code == CLI_OK; i++) {
        int r = cli_flags_take("tools", &cli_tools_table, tools_usage, argc, argv, &i, &to);
        if (r == CLI_FLAGS_HELP) {
            free(ids);
            return CLI_OK;
        }
        if (r < 0) code = CLI_USAGE;
        if (r) continue;
        const char *a = argv[i];
        if (a[0] == '-' && a[1])
            code = cli_arg_unknown("tools", a);
        else
            ids[n_ids++] = a;
    }
    const char *db_flag = to.db, *task = to.task;
    size_t k = to.k;
    bool compact = to.compact;
    view_tool_format fmt = to.format == 1   ? VIEW_TOOL_ANTHROPIC
                           : to.format == 2 ? VIEW_TOOL_MCP
                                            : VIEW_TOOL_OPENAI;
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
