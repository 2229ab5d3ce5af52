/* apidex feedback: tell the index which endpoints were used for a task (the usage prior). */
#include "cli/cli.h"

#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ENDPOINTS = 256 };

static void feedback_usage(FILE *out)
{
    fprintf(out,
            "usage: apidex feedback ENDPOINT... [--db FILE] [--api A] [--task \"TEXT\"]\n"
            "  ENDPOINT          an operation id as search prints it (api:operationId), or\n"
            "                    \"METHOD /path\" (with --api when several APIs have it)\n"
            "  --api A           the API of \"METHOD /path\" endpoints\n"
            "  --task \"TEXT\"     the task they were used for (kept with the uses)\n"
            "  --db FILE         index file (default $APIDEX_DB, the registry file's db,\n"
            "                    or ./%s); the uses go to FILE.usage beside it, which a\n"
            "                    rebuild of the index keeps\n"
            "Search weighs reported uses only when asked: apidex search --usage-prior W.\n",
            STORE_DEFAULT_DB);
}

int cli_cmd_feedback(int argc, char **argv)
{
    const char *endpoints[MAX_ENDPOINTS];
    size_t n = 0;
    const char *db = NULL, *api = NULL, *task = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            feedback_usage(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--db") && v) {
            db = v;
            i++;
        } else if (!strcmp(a, "--api") && v) {
            api = v;
            i++;
        } else if (!strcmp(a, "--task") && v) {
            task = v;
            i++;
        } else if (a[0] == '-' && a[1]) {
            return cli_arg_unknown("feedback", a);
        } else if (n == MAX_ENDPOINTS) {
            return cli_usage_error("feedback", "at most %d endpoints at a time", MAX_ENDPOINTS);
        } else {
            endpoints[n++] = a;
        }
    }
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
