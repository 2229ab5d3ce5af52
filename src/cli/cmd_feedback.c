/* apidex feedback: tell the index which endpoints were used for a task (the usage prior). */
#include "cli/cli.h"

#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ENDPOINTS = 256 };

typedef struct feedback_opts {
    const char *db, *api, *task;
} feedback_opts;

static const cli_flag feedback_rows[] = {
    CLI_TEXT("usage: apidex feedback ENDPOINT... [--db FILE] [--api A] [--task \"TEXT\"]\n"
             "  ENDPOINT          an operation id as search prints it (api:operationId), or\n"
             "                    \"METHOD /path\" (with --api when several APIs have it)\n"),
    CLI_STRING("--api", NULL, feedback_opts, api,
               "  --api A           the API of \"METHOD /path\" endpoints\n"),
    CLI_STRING("--task", NULL, feedback_opts, task,
               "  --task \"TEXT\"     the task they were used for (kept with the uses)\n"),
    CLI_STRING("--db", NULL, feedback_opts, db,
               "  --db FILE         index file (default $APIDEX_DB, the registry file's db,\n"
               "                    or ./" STORE_DEFAULT_DB "); the uses go to FILE.usage beside "
               "it, which a\n"
               "                    rebuild of the index keeps\n"),
    CLI_TEXT("Search weighs reported uses only when asked: apidex search --usage-prior W.\n"),
};
const cli_flag_table cli_feedback_table = {feedback_rows,
                                           sizeof feedback_rows / sizeof *feedback_rows};

static void feedback_usage(FILE *out)
{
    cli_flags_help(&cli_feedback_table, out);
}

int cli_cmd_feedback(int argc, char **argv)
{
    const char *endpoints[MAX_ENDPOINTS];
    size_t n = 0;
    feedback_opts o = {0};
    for (int i = 1; i < argc; i++) {
        int r = cli_flags_take("feedback", &cli_feedback_table, feedback_usage, argc, argv, &i, &o);
        if (r == CLI_FLAGS_HELP) return CLI_OK;
        if (r < 0) return CLI_USAGE;
        if (r) continue;
        const char *a = argv[i];
        if (a[0] == '-' && a[1]) return cli_arg_unknown("feedback", a);
        if (n == MAX_ENDPOINTS)
            return cli_usage_error("feedback", "at most %d endpoints at a time", MAX_ENDPOINTS);
        endpoints[n++] = a;
    }
    const char *db = o.db, *api = o.api, *task = o.task;
    if (!n)
        return cli_usage_error("feedback",
                               "name the endpoints you used: an id or \"METHOD /path\"");
    if (task && cli_check_task("feedback", task)) return CLI_USAGE;
    db = cli_db_path(db);
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    int rc = store_open(db, true, &idx, &err);
    if (rc) {
        cli_print_error(&err);
        return CLI_FAILURE;
    }
    rc = store_usage_feedback(db, idx, endpoints, n, api, task, &err);
    store_close(idx);
    if (rc == APIDEX_ENOTFOUND || rc == APIDEX_EINVAL) {
        fprintf(stderr, "apidex feedback: %s\n", err.message);
        return CLI_USAGE;
    }
    if (rc) {
        cli_print_error(&err);
        return CLI_FAILURE;
    }
    printf("recorded %zu use%s in %s.usage\n", n, n == 1 ? "" : "s", db);
    return CLI_OK;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_feedback(FILE *out)
{
    feedback_usage(out);
}
