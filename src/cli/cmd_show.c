/* apidex show: one operation from the index at a detail level (serve_endpoint_detail), as text or
 * JSON. */
#include "cli/cli.h"

#include "view/view.h"
#include "serve/serve.h"
#include "store/store.h"

#include <json-c/json.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct show_opts {
    const char *api, *db;
    bool json;
    view_detail level;
    int color;
} show_opts;

static const char *const levels[] = {"summary", "call", "full", NULL};

static int take_detail(const char *cmd, const char *flag, const char *value, void *opts)
{
    apidex_error derr;
    if (cli_arg_choice(cmd, flag, value, levels) < 0) return CLI_USAGE;
    if (view_detail_parse(value, &((show_opts *)opts)->level, &derr)) {
        fprintf(stderr, "apidex show: %s\n", derr.message);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static const cli_flag show_rows[] = {
    CLI_TEXT("usage: apidex show ID | \"METHOD /path\" | operationId [--api A] [--db FILE]\n"
             "                   [--detail summary|call|full] [--json]\n"
             "  ID                an operation id as search prints it (api:operationId)\n"),
    CLI_STRING("--api", NULL, show_opts, api,
               "  --api A           pick the API when several have the endpoint\n"),
    CLI_HANDLER(
        "--detail", NULL, take_detail, levels,
        "  --detail summary|call|full\n"
        "                    summary: one line; call (default): what a call needs (URL and\n"
        "                    server variables, auth, every parameter, body schema, required\n"
        "                    inputs, the success response in brief); full: everything, each\n"
        "                    schema once\n"),
    CLI_SWITCH("--json", NULL, show_opts, json,
               "  --json            the same as JSON (what MCP get_endpoint and /v1/endpoints "
               "return)\n"),
    CLI_STRING("--db", NULL, show_opts, db,
               "  --db FILE         index file (default $APIDEX_DB, the registry file's db,\n"
               "                    or ./" STORE_DEFAULT_DB ")\n"),
    CLI_CHOICE("--color", NULL, show_opts, color, cli_color_names,
               "  --color auto|always|never  colour the text (auto: on a terminal, unless "
               "NO_COLOR)\n"),
};
const cli_flag_table cli_show_table = {show_rows, sizeof show_rows / sizeof *show_rows};

static void show_usage(FILE *out)
{
    cli_flags_help(&cli_show_table, out);
}

/* "METHOD /path" compared with placeholders by position ({a} == {b}). */
static bool path_equal(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a == '{' && *b == '{') {
            const char *ea = strchr(a, '}'), *eb = strchr(b, '}');
            if (!ea || !eb) return !strcmp(a, b);
            a = ea + 1;
            b = eb + 1;
            continue;
        }
        if (*a++ != *b++) return false;
    }
    return *a == *b;
}

void cli_no_operation(const char *cmd, const store_operation *ops, size_t n_ops, const char *what,
                      const char *api, const char *db)
{
    char shown[1024];
    /* The nearest endpoints by id and by "METHOD /path" (as feedback names them). */
    long unused;
    apidex_error near;
    core_error_clear(&near);
    store_usage_resolve(ops, n_ops, what, api, &unused, &near);
    const char *closest = strstr(near.message, "; closest: ");
    fprintf(stderr, "apidex %s: no operation '%s'%s%s in %s", cmd, what, api ? " in API " : "",
            api ? api : "", store_display(db, shown, sizeof shown));
    if (closest)
        fprintf(stderr, "; did you mean %s?\n", closest + strlen("; closest: "));
    else
        fprintf(stderr, "\n(apidex search \"TASK\" finds endpoints by what they do, "
                        "apidex list the APIs)\n");
}

size_t cli_find_operations(const store_operation *ops, size_t n_ops, const char *what,
                           const char *api, long *found, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < n_ops; i++)
        if (!strcmp(ops[i].id, what) && (!api || !strcmp(ops[i].api, api))) {
            if (n < cap) found[n] = (long)i;
            n++;
        }
    if (n) return n;
    while (isspace((unsigned char)*what)) what++;
    const char *sp = strpbrk(what, " \t");
    if (sp) {
        char method[16];
        size_t ml = (size_t)(sp - what);
        const char *path = sp;
        while (isspace((unsigned char)*path)) path++;
        size_t pl = strlen(path);
        while (pl && isspace((unsigned char)path[pl - 1])) pl--;
        if (ml < sizeof method && pl) {
            for (size_t i = 0; i < ml; i++) method[i] = (char)toupper((unsigned char)what[i]);
            method[ml] = '\0';
            char *p = strndup(path, pl);
            for (int pass = 0; pass < 2 && !n && p; pass++)
                for (size_t i = 0; i < n_ops; i++) {
                    if (strcmp(ops[i].method, method) != 0 || (api && strcmp(ops[i].api, api)))
                        continue;
                    if (pass == 0 ? strcmp(ops[i].path, p) != 0 : !path_equal(ops[i].path, p))
                        continue;
                    if (n < cap) found[n] = (long)i;
                    n++;
                }
            free(p);
            if (n) return n;
        }
    }
    for (size_t i = 0; i < n_ops; i++)
        if (ops[i].operation_id && !strcmp(ops[i].operation_id, what) &&
            (!api || !strcmp(ops[i].api, api))) {
            if (n < cap) found[n] = (long)i;
            n++;
        }
    return n;
}

/* The operation at the level: its JSON (--json) or the text made from it. */
static int print_detail(store_index *idx, long oi, view_detail level, bool json)
{
    apidex_error err;
    core_error_clear(&err);
    struct json_object *o = NULL;
    int rc = serve_endpoint_detail(idx, oi, level, &o, &err);
    if (rc) {
        cli_print_error(&err);
        return CLI_FAILURE;
    }
    size_t len = 0;
    const char *s = json_object_to_json_string_length(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    core_buf text;
    core_buf_init(&text, 0);
    if (json) {
        fwrite(s, 1, len, stdout);
        fputc('\n', stdout);
    } else if ((rc = view_detail_text(s, len, &text, &err)) == 0) {
        fwrite(text.data ? text.data : "", 1, text.len, stdout);
    }
    core_buf_free(&text);
    json_object_put(o);
    if (rc) cli_print_error(&err);
    return rc ? CLI_FAILURE : CLI_OK;
}

int cli_cmd_show(int argc, char **argv)
{
    show_opts so = {.level = VIEW_DETAIL_CALL};
    const char *what = NULL;
    for (int i = 1; i < argc; i++) {
        int r = cli_flags_take("show", &cli_show_table, show_usage, argc, argv, &i, &so);
        if (r == CLI_FLAGS_HELP) return CLI_OK;
        if (r < 0) return CLI_USAGE;
        if (r) continue;
        const char *a = argv[i];
        if ((a[0] == '-' && a[1]) || what) return cli_arg_unknown("show", a);
        what = a;
    }
    const char *api = so.api, *db = so.db;
    bool json = so.json;
    view_detail level = so.level;
    cli_color color = (cli_color)so.color;
    if (!what)
        return cli_usage_error("show",
                               "name an endpoint: an id, \"METHOD /path\" or an operationId");
    db = cli_db_path(db);
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    const store_operation *ops = NULL;
    size_t n_ops = 0;
    int rc = store_open(db, true, &idx, &err);
    if (!rc) rc = store_operations(idx, &ops, &n_ops, &err);
    if (rc) {
        cli_print_error(&err);
        store_close(idx);
        return CLI_FAILURE;
    }
    if (api && (rc = cli_check_apis("show", idx, &api, 1)) != CLI_OK) {
        store_close(idx);
        return rc;
    }
    long found[16];
    size_t n = cli_find_operations(ops, n_ops, what, api, found, 16);
    if (n == 0) {
        cli_no_operation("show", ops, n_ops, what, api, db);
        store_close(idx);
        return CLI_PROBLEMS;
    }
    if (n > 1) {
        fprintf(stderr, "apidex show: '%s' names %zu operations; pick one with --api or an id:\n",
                what, n);
        for (size_t i = 0; i < n && i < 16; i++)
            fprintf(stderr, "  %s  (%s %s)\n", ops[found[i]].id, ops[found[i]].method,
                    ops[found[i]].path);
        store_close(idx);
        return CLI_USAGE;
    }
    int status = CLI_OK;
    if (json)
        status = print_detail(idx, found[0], level, true);
    else
        CLI_PAINTED(color, status = print_detail(idx, found[0], level, false));
    store_close(idx);
    return status;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_show(FILE *out)
{
    show_usage(out);
}
