/* apidex list: the catalog grouped by API and tag, or a capability manifest. */
#include "cli/cli.h"

#include "search/search.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Operations without a tag are listed under this name. */
static const char untagged[] = "untagged";

enum { MAX_FILTERS = 64 };

typedef struct list_filter {
    const char *apis[MAX_FILTERS];
    size_t n_apis;
    const char *tags[MAX_FILTERS];
    size_t n_tags;
} list_filter;

typedef struct list_opts {
    list_filter f;
    const char *db;
    bool json, manifest, dupes, operations;
    size_t budget;
} list_opts;

static int take_budget(const char *cmd, const char *flag, const char *value, void *opts)
{
    char *end;
    long long n = strtoll(value, &end, 10);
    if (*end || end == value || n < 1 || n > 10000000) {
        fprintf(stderr,
                "apidex list: --budget takes a number of tokens from 1 to 10000000, not '%s'\n",
                value);
        return CLI_USAGE;
    }
    ((list_opts *)opts)->budget = (size_t)n;
    return CLI_OK;
}

#define TOO_MANY "%s: at most %d of them"

static const cli_flag list_rows[] = {
    CLI_TEXT("usage: apidex list [--operations] [--api A] [--tag T] [--manifest [--budget N]]\n"
             "                   [--duplicates] [--db FILE] [--json]\n"
             "The APIs of the index and their operation counts; --operations, --api or --tag\n"
             "list the operations too, by API and tag.\n"),
    CLI_SWITCH("--operations", NULL, list_opts, operations,
               "  --operations  every operation, by API and tag\n"),
    CLI_LIST("--api", NULL, list_opts, f.apis, f.n_apis, NULL, MAX_FILTERS, TOO_MANY,
             "  --api A       only this API, with its operations (repeatable)\n"),
    CLI_LIST("--tag", NULL, list_opts, f.tags, f.n_tags, NULL, MAX_FILTERS, TOO_MANY,
             "  --tag T       only operations with this tag (repeatable)\n"),
    CLI_SWITCH("--manifest", NULL, list_opts, manifest,
               "  --manifest    a capability manifest for a system prompt instead of the catalog:\n"
               "                plain text by API and tag, most useful first\n"),
    CLI_HANDLER("--budget", NULL, take_budget, NULL,
                "  --budget N    the manifest within N cl100k tokens (1 to 10000000), ending with\n"
                "                what was left out\n"),
    CLI_SWITCH("--duplicates", NULL, list_opts, dupes,
               "  --duplicates  the APIs that are one service (same title or server host), newest\n"
               "                first: search prefers the newest (docs/REGISTRY.md)\n"),
    CLI_STRING("--db", NULL, list_opts, db,
               "  --db FILE     index file (default $APIDEX_DB, the registry file's db,\n"
               "                or ./" STORE_DEFAULT_DB ")\n"),
    CLI_SWITCH("--json", NULL, list_opts, json,
               "  --json        the whole catalog as JSON: APIs, tags and operations\n"),
};
const cli_flag_table cli_list_table = {list_rows, sizeof list_rows / sizeof *list_rows};

static void list_usage(FILE *out)
{
    cli_flags_help(&cli_list_table, out);
}

static bool in_list(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(list[i], s)) return true;
    return false;
}

static bool has_tag(const store_operation *op, const char *tag)
{
    if (!strcmp(tag, untagged)) return op->n_tags == 0;
    for (size_t i = 0; i < op->n_tags; i++)
        if (!strcmp(op->tags[i], tag)) return true;
    return false;
}

static bool tag_wanted(const list_filter *f, const char *tag)
{
    return !f->n_tags || in_list(f->tags, f->n_tags, tag);
}

/* Operations are ordered by API id, as the APIs are: api's operations are [*lo, *hi). */
static void api_range(const store_operation *ops, size_t n_ops, size_t api, size_t *lo, size_t *hi)
{
    size_t a = 0, b = n_ops;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (ops[m].api_index < api)
            a = m + 1;
        else
            b = m;
    }
    *lo = a;
    while (a < n_ops && ops[a].api_index == api) a++;
    *hi = a;
}

/* The tags to group an API's operations under: declared ones in spec order
   (store_api.tags also holds tags only operations use), then "untagged". */
static size_t api_groups(const store_api *a, const store_operation *ops, size_t lo, size_t hi,
                         const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t t = 0; t < a->n_tags && n < cap; t++)
        if (a->tags[t].n_ops) out[n++] = a->tags[t].name;
    for (size_t i = lo; i < hi && n < cap; i++)
        if (ops[i].n_tags == 0) {
            out[n++] = untagged;
            break;
        }
    return n;
}

/* "(movie_id, query)": the required inputs. */
static void inputs_line(const store_operation *op, core_buf *b)
{
    core_buf_reset(b);
    core_buf_putc(b, '(');
    size_t k = 0;
    for (size_t i = 0; i < op->n_inputs; i++) {
        if (!op->inputs[i].required) continue;
        core_buf_printf(b, "%s%s", k++ ? ", " : "", op->inputs[i].name);
    }
    core_buf_putc(b, ')');
}

/* The first line of s, at most max bytes, without a trailing period. */
static void one_line(const char *s, size_t max, core_buf *b)
{
    size_t n = strcspn(s, "\r\n");
    if (n > max) n = max;
    while (n && (s[n - 1] == '.' || isspace((unsigned char)s[n - 1]))) n--;
    core_buf_append(b, s, n);
}

/* "(1 operation)", "(8 operations)" */
static const char *ops_word(size_t n)
{
    return n == 1 ? "operation" : "operations";
}

/* One line per API: id, title, version, its operation count and aliases; no operations.
   The default: on a registry of 40 specs the operations are thousands of lines. */
static void print_apis(const store_api *apis, size_t n_apis)
{
    size_t total = 0;
    for (size_t a = 0; a < n_apis; a++) total += apis[a].n_ops;
    printf("API Catalog: %zu %s in %zu API%s\n\n", total, ops_word(total), n_apis,
           n_apis == 1 ? "" : "s");
    for (size_t a = 0; a < n_apis; a++) {
        const store_api *api = &apis[a];
        printf("%s: %s%s%s (%zu %s)\n", api->id, api->title ? api->title : "",
               api->version ? " " : "", api->version ? api->version : "", api->n_ops,
               ops_word(api->n_ops));
        for (size_t k = 0; k < api->n_aliases; k++)
            printf("%s%s%s", k ? ", " : "  also answers to: ", api->aliases[k],
                   k + 1 == api->n_aliases ? "\n" : "");
    }
    if (!n_apis)
        printf("The index is empty: add specs with 'apidex index PATH...'.\n");
    else
        printf("\nOperations: apidex list --api ID (one API), apidex list --operations (all).\n");
}

static void print_catalog(const store_api *apis, size_t n_apis, const store_operation *ops,
                          size_t n_ops, const list_filter *f)
{
    size_t total = 0, shown_apis = 0;
    for (size_t a = 0; a < n_apis; a++)
        if (!f->n_apis || in_list(f->apis, f->n_apis, apis[a].id)) {
            total += apis[a].n_ops;
            shown_apis++;
        }
    printf("API Catalog: %zu %s in %zu API%s\n", total, ops_word(total), shown_apis,
           shown_apis == 1 ? "" : "s");
    const char **groups = malloc((n_ops + 8) * sizeof *groups);
    core_buf b;
    core_buf_init(&b, 0);
    for (size_t a = 0; a < n_apis && groups; a++) {
        const store_api *api = &apis[a];
        if (f->n_apis && !in_list(f->apis, f->n_apis, api->id)) continue;
        printf("\n%s: %s%s%s (%zu %s)\n", api->id, api->title ? api->title : "",
               api->version ? " " : "", api->version ? api->version : "", api->n_ops,
               ops_word(api->n_ops));
        for (size_t k = 0; k < api->n_aliases; k++)
            printf("%s%s%s", k ? ", " : "  also answers to: ", api->aliases[k],
                   k + 1 == api->n_aliases ? "\n" : "");
        size_t lo, hi;
        api_range(ops, n_ops, a, &lo, &hi);
        size_t ng = api_groups(api, ops, lo, hi, groups, n_ops + 8);
        for (size_t g = 0; g < ng; g++) {
            if (!tag_wanted(f, groups[g])) continue;
            size_t active = 0, all = 0;
            for (size_t i = lo; i < hi; i++)
                if (has_tag(&ops[i], groups[g])) {
                    all++;
                    active += !ops[i].deprecated;
                }
            printf("\n  [%s] (%zu active%s)\n", groups[g], active,
                   all > active ? ", some deprecated" : "");
            for (size_t i = lo; i < hi; i++) {
                const store_operation *op = &ops[i];
                if (!has_tag(op, groups[g])) continue;
                inputs_line(op, &b);
                printf("    %-7s %-40s %-28s %s%s\n", op->method, op->path,
                       op->operation_id ? op->operation_id : "", b.data,
                       op->deprecated ? "  (deprecated)" : "");
                if (op->summary && *op->summary) {
                    core_buf_reset(&b);
                    one_line(op->summary, 200, &b);
                    printf("            %s\n", b.data ? b.data : "");
                }
            }
        }
    }
    core_buf_free(&b);
    free(groups);
}

/* The capability manifest (search/manifest.c): plain text by API and tag, within a budget. */
static int print_manifest(store_index *idx, const list_filter *f, size_t budget)
{
    search_manifest_options o = {.apis = f->apis,
                                 .n_apis = f->n_apis,
                                 .tags = f->tags,
                                 .n_tags = f->n_tags,
                                 .budget = budget};
    core_buf out;
    core_buf_init(&out, 0);
    apidex_error err;
    core_error_clear(&err);
    int rc = search_manifest(idx, &o, &out, NULL, &err);
    if (rc == APIDEX_ELIMIT) {
        fprintf(stderr, "apidex list: %s\n", err.message);
        core_buf_free(&out);
        return CLI_USAGE;
    }
    if (rc) {
        cli_print_error(&err);
        core_buf_free(&out);
        return CLI_FAILURE;
    }
    if (out.data) fputs(out.data, stdout);
    core_buf_free(&out);
    return CLI_OK;
}

static void print_json(const store_api *apis, size_t n_apis, const store_operation *ops,
                       size_t n_ops, const list_filter *f)
{
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, "{\"apis\":[");
    const char **groups = malloc((n_ops + 8) * sizeof *groups);
    bool first_api = true;
    for (size_t a = 0; a < n_apis && groups; a++) {
        const store_api *api = &apis[a];
        if (f->n_apis && !in_list(f->apis, f->n_apis, api->id)) continue;
        core_buf_puts(&b, first_api ? "{\"id\":" : ",{\"id\":");
        first_api = false;
        core_buf_json_str(&b, api->id, strlen(api->id));
        const char *title = api->title ? api->title : "";
        core_buf_puts(&b, ",\"title\":");
        core_buf_json_str(&b, title, strlen(title));
        /* the registry file's settings for the API (docs/REGISTRY.md), stored as JSON */
        if (api->overrides) {
            core_buf_puts(&b, ",\"overrides\":");
            core_buf_puts(&b, api->overrides);
        }
        core_buf_puts(&b, ",\"aliases\":[");
        for (size_t k = 0; k < api->n_aliases; k++) {
            if (k) core_buf_putc(&b, ',');
            core_buf_json_str(&b, api->aliases[k], strlen(api->aliases[k]));
        }
        core_buf_printf(&b, "],\"operations\":%zu,\"tags\":[", api->n_ops);
        size_t lo, hi;
        api_range(ops, n_ops, a, &lo, &hi);
        size_t ng = api_groups(api, ops, lo, hi, groups, n_ops + 8);
        bool first_tag = true;
        for (size_t g = 0; g < ng; g++) {
            if (!tag_wanted(f, groups[g])) continue;
            core_buf_puts(&b, first_tag ? "{\"name\":" : ",{\"name\":");
            first_tag = false;
            core_buf_json_str(&b, groups[g], strlen(groups[g]));
            const char *desc = NULL;
            for (size_t t = 0; t < api->n_tags; t++)
                if (!strcmp(api->tags[t].name, groups[g])) desc = api->tags[t].description;
            core_buf_puts(&b, ",\"description\":");
            if (desc)
                core_buf_json_str(&b, desc, strlen(desc));
            else
                core_buf_puts(&b, "null");
            core_buf_puts(&b, ",\"operations\":[");
            bool first_op = true;
            for (size_t i = lo; i < hi; i++) {
                const store_operation *op = &ops[i];
                if (!has_tag(op, groups[g])) continue;
                core_buf_puts(&b, first_op ? "{\"id\":" : ",{\"id\":");
                first_op = false;
                core_buf_json_str(&b, op->id, strlen(op->id));
                core_buf_puts(&b, ",\"method\":");
                core_buf_json_str(&b, op->method, strlen(op->method));
                core_buf_puts(&b, ",\"path\":");
                core_buf_json_str(&b, op->path, strlen(op->path));
                core_buf_puts(&b, ",\"summary\":");
                if (op->summary)
                    core_buf_json_str(&b, op->summary, strlen(op->summary));
                else
                    core_buf_puts(&b, "null");
                core_buf_printf(&b, ",\"deprecated\":%s}", op->deprecated ? "true" : "false");
            }
            core_buf_puts(&b, "]}");
        }
        core_buf_puts(&b, "]}");
    }
    free(groups);
    core_buf_puts(&b, "]}\n");
    fputs(b.data, stdout);
    core_buf_free(&b);
}

int cli_cmd_list(int argc, char **argv)
{
    list_opts o = {0};
    for (int i = 1; i < argc; i++) {
        int r = cli_flags_take("list", &cli_list_table, list_usage, argc, argv, &i, &o);
        if (r == CLI_FLAGS_HELP) return CLI_OK;
        if (r < 0) return CLI_USAGE;
        if (!r) return cli_arg_unknown("list", argv[i]);
    }
    list_filter f = o.f;
    const char *db = o.db;
    bool json = o.json, manifest = o.manifest, dupes = o.dupes, operations = o.operations;
    size_t budget = o.budget;
    if (budget && !manifest) {
        fprintf(stderr, "apidex list: --budget applies to --manifest\n");
        return CLI_USAGE;
    }
    db = cli_db_path(db);
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    const store_api *apis = NULL;
    const store_operation *ops = NULL;
    size_t n_apis = 0, n_ops = 0;
    int rc = store_open(db, true, &idx, &err);
    if (!rc) rc = store_apis(idx, &apis, &n_apis, &err);
    if (!rc) rc = store_operations(idx, &ops, &n_ops, &err);
    if (rc) {
        cli_print_error(&err);
        store_close(idx);
        return CLI_FAILURE;
    }
    if ((rc = cli_check_apis("list", idx, f.apis, f.n_apis)) != CLI_OK) {
        store_close(idx);
        return rc;
    }
    int code = CLI_OK;
    if (dupes)
        code = cli_list_duplicates(apis, n_apis, ops, n_ops, json);
    else if (json)
        print_json(apis, n_apis, ops, n_ops, &f);
    else if (manifest)
        code = print_manifest(idx, &f, budget);
    else if (operations || f.n_apis || f.n_tags)
        print_catalog(apis, n_apis, ops, n_ops, &f);
    else
        print_apis(apis, n_apis);
    store_close(idx);
    return code;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_list(FILE *out)
{
    list_usage(out);
}
