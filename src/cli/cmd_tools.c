/* apidex tools: OpenAI- or Anthropic-style function definitions for chosen endpoints. */
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
            "usage: apidex tools [--db FILE] [--format openai|anthropic] [--compact] ID...\n"
            "       apidex tools [--db FILE] [--format openai|anthropic] --search \"TASK\" [-k N]\n"
            "  Prints a JSON array of function definitions (name, description, JSON Schema\n"
            "  parameters: path/query/header/cookie parameters by name, the JSON body as `body`)\n"
            "  for the endpoint ids given (as `apidex search` prints them), or for the endpoints\n"
            "  a task needs (--search: the adaptive answer set; -k N: the top N instead).\n"
            "  --format F   openai (default: {type: function, function: {...}}) or anthropic\n"
            "               ({name, description, input_schema})\n");
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
