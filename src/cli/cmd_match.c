/* apidex match: an OpenAPI document as the query; the registry operations and APIs that
   do what it describes, or "no match" (src/search/match.c, docs/MATCH.md). */
#include "cli/cli.h"

#include "search/match.h"
#include "store/store.h"

#include <json-c/json.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct match_opts {
    const char *db;
    bool json;
    match_params params;
    match_query q;
} match_opts;

static int take_param(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)flag;
    apidex_error perr;
    core_error_clear(&perr);
    if (match_params_parse(&((match_opts *)opts)->params, value, &perr))
        return cli_usage_error(cmd, "%s", perr.message);
    return CLI_OK;
}

static const cli_flag match_rows[] = {
    CLI_TEXT("usage: apidex match FILE... [--json] [--threshold T] [--k K] [--apis N]\n"
             "                   [--param NAME=VALUE] [--db FILE]\n"
             "  FILE              an OpenAPI 3 or Swagger 2 document (JSON or YAML), e.g. the\n"
             "                    one an agent wrote for the service it needs\n"),
    CLI_SWITCH("--json", NULL, match_opts, json,
               "  --json            the answer as JSON (one object; an array for several "
               "FILEs)\n"),
    CLI_DOUBLE("--threshold", NULL, match_opts, q.threshold, 0, 1, false,
               "  --threshold T     below this score (0..1) an operation has no match (default\n"
               "                    the parameter match.threshold, docs/MATCH.md)\n"),
    CLI_SIZE("--k", NULL, match_opts, q.k, 1, 100,
             "  --k K             candidates shown per operation (default 5)\n"),
    CLI_SIZE("--apis", NULL, match_opts, q.k_apis, 1, 100,
             "  --apis N          APIs shown for the whole document (default 5)\n"),
    CLI_HANDLER("--param", NULL, take_param, NULL,
                "  --param NAME=VALUE  set a match parameter (docs/MATCH.md lists them)\n"),
    CLI_STRING("--db", NULL, match_opts, db,
               "  --db FILE         index file (default $APIDEX_DB, the registry file's db,\n"
               "                    or ./" STORE_DEFAULT_DB ")\n"),
    CLI_TEXT("Exit status: 0 answered (also when nothing matched), 2 a FILE is not a document\n"
             "(file:line:col), 3 the index cannot be read.\n"),
};
const cli_flag_table cli_match_table = {match_rows, sizeof match_rows / sizeof *match_rows};

static void match_usage(FILE *out)
{
    cli_flags_help(&cli_match_table, out);
}

void cli_usage_match(FILE *out)
{
    match_usage(out);
}

static int print_one(search_engine *eng, const char *file, const match_query *q, bool json,
                     struct json_object *all)
{
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    struct json_object *res = NULL;
    int rc = match_load_file(file, &reg, &err);
    if (rc) {
        if (!err.file[0]) snprintf(err.file, sizeof err.file, "%s", file);
        cli_print_error(&err);
        return CLI_USAGE;
    }
    rc = match_run(eng, reg, q, &res, &err);
    spec_registry_free(reg);
    if (rc) {
        if (rc == APIDEX_EINVAL && !err.file[0]) snprintf(err.file, sizeof err.file, "%s", file);
        cli_print_error(&err);
        return rc == APIDEX_EINVAL ? CLI_USAGE : CLI_FAILURE;
    }
    if (all) {
        json_object_object_add(res, "file", json_object_new_string(file));
        json_object_array_add(all, res);
        return CLI_OK;
    }
    if (json) {
        printf("%s\n", json_object_to_json_string_ext(res, JSON_C_TO_STRING_PLAIN |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE));
    } else {
        core_buf b;
        core_buf_init(&b, 0);
        match_format_text(res, &b);
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
        core_buf_free(&b);
    }
    json_object_put(res);
    return CLI_OK;
}

int cli_cmd_match(int argc, char **argv)
{
    match_opts mo = {.q = {.threshold = -1}};
    match_params_default(&mo.params);
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    size_t n_files = 0;
    if (!files) return CLI_FAILURE;
    int status = CLI_OK;
    for (int i = 1; i < argc && status == CLI_OK; i++) {
        int r = cli_flags_take("match", &cli_match_table, match_usage, argc, argv, &i, &mo);
        if (r == CLI_FLAGS_HELP) {
            free(files);
            return CLI_OK;
        }
        if (r < 0) status = CLI_USAGE;
        if (r) continue;
        const char *a = argv[i];
        if (a[0] == '-' && a[1])
            status = cli_arg_unknown("match", a);
        else
            files[n_files++] = a;
    }
    const char *db = mo.db;
    bool json = mo.json;
    match_query q = mo.q;
    q.params = &mo.params;
    if (status == CLI_OK && !n_files)
        status = cli_usage_error("match", "name the OpenAPI document to match (FILE)");
    for (size_t f = 0; status == CLI_OK && f < n_files; f++) {
        struct stat sb;
        if (stat(files[f], &sb) != 0)
            status = cli_usage_error("match", "%s: no such file", files[f]);
        else if (S_ISDIR(sb.st_mode))
            status = cli_usage_error("match", "%s is a directory: name a document", files[f]);
    }
    if (status != CLI_OK) {
        free(files);
        return status;
    }
    db = cli_db_path(db);
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    search_engine *eng = NULL;
    int rc = cli_index_search_open(db, &idx, &eng, &err);
    if (rc) {
        cli_print_error(&err);
        free(files);
        return CLI_FAILURE;
    }
    struct json_object *all = json && n_files > 1 ? json_object_new_array() : NULL;
    for (size_t f = 0; f < n_files; f++) {
        if (!json && n_files > 1) printf("%s== %s\n", f ? "\n" : "", files[f]);
        int one = print_one(eng, files[f], &q, json, all);
        if (one > status) status = one;
    }
    if (all) {
        printf("%s\n", json_object_to_json_string_ext(all, JSON_C_TO_STRING_PLAIN |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(all);
    }
    search_engine_close(eng);
    store_close(idx);
    free(files);
    return status;
}
