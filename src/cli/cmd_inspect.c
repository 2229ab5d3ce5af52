/* apidex inspect: load specs and report, per document, what was found and what is wrong. */
#include "cli/cli.h"
#include "oas/oas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct inspect_opts {
    bool json, allow_remote;
    unsigned load_memory;
    const char **hosts, **addresses; /* room for argc each */
    size_t nh, na;
} inspect_opts;

static int take_load_memory(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)flag;
    return cli_arg_load_memory(cmd, value, &((inspect_opts *)opts)->load_memory) ? CLI_OK
                                                                                 : CLI_USAGE;
}

static int take_host(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)cmd, (void)flag;
    inspect_opts *o = opts;
    o->hosts[o->nh++] = value;
    return CLI_OK;
}

static int take_address(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)flag;
    inspect_opts *o = opts;
    if (!cli_arg_address(cmd, value)) return CLI_USAGE;
    o->addresses[o->na++] = value;
    return CLI_OK;
}

static const cli_flag inspect_rows[] = {
    CLI_TEXT("usage: apidex inspect PATH... [--json] [--allow-remote-refs] [--allow-host HOST]\n"
             "                      [--allow-address IP] [--max-load-memory N]\n"
             "\n"
             "Loads OpenAPI/Swagger documents (files, directories searched recursively for\n"
             "*.json/*.yaml/*.yml roots, or http(s) URLs) and reports, per document: its API\n"
             "id, title, version, spec version, operations, component schemas, schema cycles,\n"
             "warnings and errors (with file, line:col and JSON pointer).\n"
             "\n"),
    CLI_SWITCH("--json", NULL, inspect_opts, json,
               "  --json               one JSON object {\"documents\": [...]}\n"),
    CLI_SWITCH("--allow-remote-refs", NULL, inspect_opts, allow_remote,
               "  --allow-remote-refs  follow http(s) $refs (off by default)\n"),
    CLI_HANDLER("--allow-host", NULL, take_host, NULL,
                "  --allow-host HOST    a host remote $refs may reach (repeatable; '*' = any)\n"),
    CLI_HANDLER("--allow-address", NULL, take_address, NULL,
                "  --allow-address IP   a private address (loopback, private, link-local) remote\n"
                "                       $refs may reach (repeatable); others are always refused\n"),
    CLI_HANDLER("--max-load-memory", NULL, take_load_memory, NULL,
                "  --max-load-memory N  memory one document may use while it loads: 64 MiB + N x\n"
                "                       the bytes of its files (default $APIDEX_MAX_LOAD_MEMORY,\n"
                "                       else 32); past it that document fails\n"),
    CLI_TEXT("\n"
             "Exit status: 0 every document loaded (warnings allowed), 1 some document failed\n"
             "or has errors (the others are still reported), 2 usage error, 3 failure.\n"),
};
const cli_flag_table cli_inspect_table = {inspect_rows, sizeof inspect_rows / sizeof *inspect_rows};

static void inspect_usage(FILE *out)
{
    cli_flags_help(&cli_inspect_table, out);
}

/* An input that could not be read at all, reported like a failed document. */
typedef struct missing_input {
    const char *input;
    apidex_error err;
} missing_input;

static void json_diag_list(core_buf *b, const core_diags *d, core_diag_level level)
{
    bool first = true;
    core_buf_putc(b, '[');
    for (size_t i = 0; i < d->n; i++) {
        const core_diag *g = &d->items[i];
        if (g->level != level) continue;
        if (!first) core_buf_putc(b, ',');
        first = false;
        core_buf_puts(b, "{\"message\":");
        core_buf_json_str(b, g->message, strlen(g->message));
        core_buf_puts(b, ",\"file\":");
        core_buf_json_str(b, g->file, strlen(g->file));
        if (g->line)
            core_buf_printf(b, ",\"line\":%u,\"col\":%u", g->line, g->col);
        else
            core_buf_puts(b, ",\"line\":null,\"col\":null");
        core_buf_puts(b, ",\"pointer\":");
        core_buf_json_str(b, g->pointer, strlen(g->pointer));
        core_buf_printf(b, ",\"code\":%d}", g->code);
    }
    core_buf_putc(b, ']');
}

static size_t component_schemas(const spec_api *api)
{
    size_t n = 0;
    for (size_t i = 0; i < api->n_schemas; i++) n += api->schemas[i].component;
    return n;
}

static void json_api(core_buf *b, const spec_api *api)
{
    core_buf_puts(b, "{\"file\":");
    core_buf_json_str_or_null(b, api->file);
    core_buf_puts(b, ",\"api\":");
    core_buf_json_str_or_null(b, api->id);
    core_buf_puts(b, ",\"title\":");
    core_buf_json_str_or_null(b, api->title);
    core_buf_puts(b, ",\"version\":");
    core_buf_json_str_or_null(b, api->version);
    core_buf_puts(b, ",\"spec_version\":");
    core_buf_json_str_or_null(b, api->spec_version);
    core_buf_printf(b,
                    ",\"operations\":%zu,\"schemas\":%zu,\"cycles\":%zu,\"schemas_total\":%zu,"
                    "\"files\":%zu,\"load_memory\":{\"peak\":%zu,\"budget\":%zu},"
                    "\"failed\":%s,\"diagnostics_dropped\":%zu,\"warnings\":",
                    api->n_ops, component_schemas(api), api->n_cycles, api->n_schemas, api->n_files,
                    api->load_memory_peak, api->load_memory_limit, api->failed ? "true" : "false",
                    api->diags.dropped);
    json_diag_list(b, &api->diags, CORE_DIAG_WARNING);
    core_buf_puts(b, ",\"errors\":");
    json_diag_list(b, &api->diags, CORE_DIAG_ERROR);
    core_buf_putc(b, '}');
}

static void json_missing(core_buf *b, const missing_input *m)
{
    core_buf_puts(b, "{\"file\":");
    core_buf_json_str_or_null(b, m->input);
    core_buf_puts(b, ",\"api\":null,\"title\":null,\"version\":null,\"spec_version\":null,"
                     "\"operations\":0,\"schemas\":0,\"cycles\":0,\"schemas_total\":0,\"files\":0,"
                     "\"failed\":true,\"diagnostics_dropped\":0,\"warnings\":[],\"errors\":[{"
                     "\"message\":");
    core_buf_json_str(b, m->err.message, strlen(m->err.message));
    core_buf_puts(b, ",\"file\":");
    core_buf_json_str(b, m->err.file[0] ? m->err.file : m->input,
                      strlen(m->err.file[0] ? m->err.file : m->input));
    core_buf_printf(b, ",\"line\":null,\"col\":null,\"pointer\":\"\",\"code\":%d}]}", m->err.code);
}

static void print_diag(const core_diag *g)
{
    printf("  %s: %s", g->level == CORE_DIAG_ERROR ? "error" : "warning", g->file);
    if (g->line) printf(":%u:%u", g->line, g->col);
    printf(": %s", g->message);
    if (g->pointer[0]) printf(" (at %s)", g->pointer);
    putchar('\n');
}

static void print_api(const spec_api *api)
{
    printf("%s\n", api->file);
    printf("  api:          %s\n", api->id ? api->id : "-");
    if (api->failed) {
        printf("  status:       FAILED\n");
    } else {
        printf("  title:        %s\n", api->title ? api->title : "-");
        printf("  version:      %s\n", api->version ? api->version : "-");
        const char *sv = api->spec_version ? api->spec_version : "?";
        if (!strncmp(sv, "postman-", 8))
            printf("  spec:         Postman collection %s\n", sv + 8);
        else
            printf("  spec:         %s %s\n", api->major == 2 ? "Swagger" : "OpenAPI", sv);
        printf("  operations:   %zu\n", api->n_ops);
        size_t comps = component_schemas(api);
        printf("  schemas:      %zu", comps);
        if (api->n_schemas > comps)
            printf(" (+%zu from other $ref targets)", api->n_schemas - comps);
        printf(", %zu cycle%s\n", api->n_cycles, api->n_cycles == 1 ? "" : "s");
        printf("  files:        %zu\n", api->n_files);
        printf("  load memory:  %.1f MiB at most, of a budget of %.0f MiB\n",
               api->load_memory_peak / 1048576.0, api->load_memory_limit / 1048576.0);
    }
    size_t nw = core_diags_count(&api->diags, CORE_DIAG_WARNING);
    size_t ne = core_diags_count(&api->diags, CORE_DIAG_ERROR);
    printf("  problems:     %zu error%s, %zu warning%s%s\n", ne, ne == 1 ? "" : "s", nw,
           nw == 1 ? "" : "s", api->diags.dropped ? " (more not shown)" : "");
    for (size_t i = 0; i < api->diags.n; i++)
        if (api->diags.items[i].level == CORE_DIAG_ERROR) print_diag(&api->diags.items[i]);
    for (size_t i = 0; i < api->diags.n; i++)
        if (api->diags.items[i].level == CORE_DIAG_WARNING) print_diag(&api->diags.items[i]);
}

int cli_cmd_inspect(int argc, char **argv)
{
    bool opts_done = false;
    inspect_opts o = {.hosts = calloc((size_t)argc + 1, sizeof *o.hosts),
                      .addresses = calloc((size_t)argc + 1, sizeof *o.addresses)};
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    const char **hosts = o.hosts, **addresses = o.addresses;
    missing_input *missing = calloc((size_t)argc + 1, sizeof *missing);
    size_t np = 0, nm = 0;
    int status = CLI_OK;
    spec_registry *reg = NULL;
    if (!paths || !hosts || !addresses || !missing) {
        fprintf(stderr, "apidex: out of memory\n");
        status = CLI_FAILURE;
        goto out;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || !a[1]) {
            paths[np++] = a;
            continue;
        }
        if (!strcmp(a, "--")) { /* the words after it are paths */
            opts_done = true;
            continue;
        }
        int r = cli_flags_take("inspect", &cli_inspect_table, inspect_usage, argc, argv, &i, &o);
        if (r == CLI_FLAGS_HELP) goto out;
        if (r < 0) status = CLI_USAGE;
        if (!r) status = cli_arg_unknown("inspect", a);
        if (status) goto out;
    }
    bool json = o.json, allow_remote = o.allow_remote;
    unsigned load_memory = o.load_memory;
    size_t nh = o.nh, na = o.na;
    if (!np) {
        status = cli_usage_error("inspect", "name the OpenAPI files or folders to inspect");
        goto out;
    }
    spec_options opt = {0};
    opt.load_memory_factor = load_memory;
    opt.allow_remote_refs = allow_remote;
    opt.remote_hosts = nh ? hosts : NULL;
    opt.remote_addresses = na ? addresses : NULL;
    apidex_error err;
    core_error_clear(&err);
    if (spec_registry_new(&opt, &reg, &err)) {
        cli_print_error(&err);
        status = CLI_FAILURE;
        goto out;
    }
    for (size_t i = 0; i < np; i++) {
        core_error_clear(&err);
        size_t before = spec_registry_count(reg);
        int rc = spec_registry_add(reg, paths[i], &err);
        if (!rc && spec_registry_count(reg) == before && !json)
            fprintf(stderr, "apidex: %s: no new OpenAPI documents\n", paths[i]);
        if (rc == APIDEX_ENOMEM) {
            cli_print_error(&err);
            status = CLI_FAILURE;
            goto out;
        }
        if (rc) {
            missing[nm].input = paths[i];
            missing[nm++].err = err;
            if (!json) cli_print_error(&err);
        }
    }
    size_t n = spec_registry_count(reg);
    bool problems = nm > 0;
    for (size_t i = 0; i < n; i++) {
        const spec_api *api = spec_registry_api(reg, i);
        if (api->failed || core_diags_count(&api->diags, CORE_DIAG_ERROR)) problems = true;
    }
    if (json) {
        core_buf b;
        core_buf_init(&b, 0);
        core_buf_puts(&b, "{\"documents\":[");
        for (size_t i = 0; i < n; i++) {
            if (i) core_buf_putc(&b, ',');
            json_api(&b, spec_registry_api(reg, i));
        }
        for (size_t i = 0; i < nm; i++) {
            if (i || n) core_buf_putc(&b, ',');
            json_missing(&b, &missing[i]);
        }
        core_buf_puts(&b, "]}\n");
        if (b.failed) {
            fprintf(stderr, "apidex: out of memory\n");
            core_buf_free(&b);
            status = CLI_FAILURE;
            goto out;
        }
        fwrite(b.data, 1, b.len, stdout);
        core_buf_free(&b);
    } else {
        for (size_t i = 0; i < n; i++) {
            if (i) putchar('\n');
            print_api(spec_registry_api(reg, i));
        }
        if (!n && !nm) printf("no OpenAPI documents found\n");
    }
    status = problems ? CLI_PROBLEMS : CLI_OK;
out:
    spec_registry_free(reg);
    free(paths);
    free(hosts);
    free(addresses);
    free(missing);
    return status;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_inspect(FILE *out)
{
    inspect_usage(out);
}
