/* apidex mock: serve every operation of the given specs from their schemas and examples,
   until SIGINT or SIGTERM (docs/MOCK.md). */
#include "cli/cli.h"

#include "mock/mock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mock_opts {
    const char *listen, *port_file;
    uint64_t seed, max_body;
    bool quiet, allow_remote;
} mock_opts;

static int parse_u64(const char *flag, const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end || !*v || v[0] == '-')
        return cli_usage_error("mock", "%s wants a non-negative integer, got '%s'", flag, v);
    *out = x;
    return 0;
}

static int take_seed(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)cmd;
    return parse_u64(flag, value, &((mock_opts *)opts)->seed) ? CLI_USAGE : CLI_OK;
}

static int take_max_body(const char *cmd, const char *flag, const char *value, void *opts)
{
    uint64_t *x = &((mock_opts *)opts)->max_body;
    if (parse_u64(flag, value, x)) return CLI_USAGE;
    return *x ? CLI_OK : cli_usage_error(cmd, "--max-body must be positive");
}

static const cli_flag mock_rows[] = {
    CLI_TEXT("usage: apidex mock SPEC... [--listen HOST:PORT] [--seed N] [--max-body BYTES]\n"
             "                   [--port-file FILE] [--quiet] [--allow-remote]\n"
             "  Serves every operation of the specs (files, directories or URLs) with responses\n"
             "  made from their examples and schemas, checks requests against the spec (400 with\n"
             "  the parameter or JSON pointer and the rule), and keeps what is created (POST)\n"
             "  so that it can be read (GET), updated (PUT, PATCH) and deleted (DELETE).\n"
             "  Each spec is served under the path of its first server URL (or /<api id>/...\n"
             "  when that path is taken); the URLs are printed at start. docs/MOCK.md.\n"),
    CLI_STRING("--listen", NULL, mock_opts, listen,
               "  --listen HOST:PORT    default 127.0.0.1:4010; port 0 picks a free port\n"),
    CLI_HANDLER(
        "--seed", NULL, take_seed, NULL,
        "  --seed N              the same seed answers the same requests the same (default 0)\n"),
    CLI_HANDLER("--max-body", NULL, take_max_body, NULL,
                "  --max-body BYTES      largest request body (default 1048576)\n"),
    CLI_STRING("--port-file", NULL, mock_opts, port_file,
               "  --port-file FILE      write the bound port there once listening\n"),
    CLI_SWITCH("--quiet", NULL, mock_opts, quiet,
               "  --quiet               no line per request on stderr\n"),
    CLI_SWITCH("--allow-remote", NULL, mock_opts, allow_remote,
               "  --allow-remote        allow a non-loopback --listen address\n"),
};
const cli_flag_table cli_mock_table = {mock_rows, sizeof mock_rows / sizeof *mock_rows};

static void mock_usage(FILE *out)
{
    cli_flags_help(&cli_mock_table, out);
}

void cli_usage_mock(FILE *out)
{
    mock_usage(out);
}

int cli_cmd_mock(int argc, char **argv)
{
    mock_opts mf = {0};
    const char **specs = calloc((size_t)argc + 1, sizeof *specs);
    size_t n_specs = 0;
    if (!specs) return CLI_FAILURE;
    int code = CLI_OK;
    for (int i = 1; i < argc && !code; i++) {
        int r = cli_flags_take("mock", &cli_mock_table, mock_usage, argc, argv, &i, &mf);
        if (r == CLI_FLAGS_HELP) {
            free(specs);
            return CLI_OK;
        }
        if (r < 0) code = CLI_USAGE;
        if (r) continue;
        const char *a = argv[i];
        if (a[0] == '-' && a[1])
            code = cli_arg_unknown("mock", a);
        else
            specs[n_specs++] = a;
    }
    mock_server_options so = {
        .listen = mf.listen, .quiet = mf.quiet, .allow_remote = mf.allow_remote};
    mock_options mo = {.seed = mf.seed, .max_body = (size_t)mf.max_body};
    const char *port_file = mf.port_file;
    if (!code && !n_specs) code = cli_usage_error("mock", "give at least one SPEC to serve");
    if (code) {
        free(specs);
        return code;
    }
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    if (spec_registry_new(NULL, &reg, &err)) {
        cli_print_error(&err);
        free(specs);
        return CLI_FAILURE;
    }
    for (size_t i = 0; i < n_specs; i++) { /* one bad spec never stops the others */
        if (spec_registry_add(reg, specs[i], &err)) {
            cli_print_error(&err);
            code = CLI_PROBLEMS;
        }
    }
    /* Mount in the order the specs were given (the registry sorts by path): the first spec
       given takes a base path two of them share. */
    size_t n_apis = spec_registry_count(reg), n_order = 0;
    size_t *order = calloc(n_apis ? n_apis : 1, sizeof *order);
    bool *placed = calloc(n_apis ? n_apis : 1, sizeof *placed);
    for (size_t i = 0; order && placed && i <= n_specs; i++)
        for (size_t j = 0; j < n_apis; j++) {
            const char *file = spec_registry_api(reg, j)->file;
            size_t n = i < n_specs ? strlen(specs[i]) : 0;
            bool from_arg =
                i == n_specs || (file && n && !strncmp(file, specs[i], n) &&
                                 (!file[n] || file[n] == '/' || specs[i][n - 1] == '/'));
            if (!placed[j] && from_arg) {
                placed[j] = true;
                order[n_order++] = j;
            }
        }
    free(placed);
    free(specs);
    mo.order = order;
    mo.n_order = order ? n_order : 0;
    size_t served = 0;
    for (size_t i = 0; i < spec_registry_count(reg); i++) {
        const spec_api *api = spec_registry_api(reg, i);
        if (api->failed) {
            for (size_t k = 0; k < api->diags.n; k++)
                if (api->diags.items[k].level == CORE_DIAG_ERROR)
                    fprintf(stderr, "apidex mock: %s: %s\n", api->file,
                            api->diags.items[k].message);
            code = CLI_PROBLEMS;
        } else if (!api->skipped) {
            served += api->n_ops;
        }
    }
    if (!served) {
        fprintf(stderr, "apidex mock: no operations to serve\n");
        free(order);
        spec_registry_free(reg);
        return code ? code : CLI_PROBLEMS;
    }
    mock *mk = NULL;
    mock_server *srv = NULL;
    int rc = mock_new(reg, &mo, &mk, &err);
    free(order); /* the router has mounted */
    mo.order = NULL;
    if (!rc) rc = mock_server_start(mk, &so, &srv, &err);
    if (rc) {
        cli_print_error(&err);
        mock_free(mk);
        spec_registry_free(reg);
        return rc == APIDEX_EINVAL ? CLI_USAGE : CLI_FAILURE;
    }
    if (cli_stop_on_signals("mock")) {
        mock_server_stop(srv);
        mock_free(mk);
        spec_registry_free(reg);
        return CLI_FAILURE;
    }

    const char *listen = so.listen ? so.listen : "127.0.0.1:4010";
    const char *colon = strrchr(listen, ':');
    int hn = colon ? (int)(colon - listen) : 0;
    const char *host = listen;
    if (!hn || (hn == 9 && !strncmp(listen, "localhost", 9))) {
        host = "127.0.0.1";
        hn = 9;
    }
    unsigned port = mock_server_port(srv);
    printf("apidex mock: listening on http://%.*s:%u\n", hn, host, port);
    size_t n_mounts;
    const mock_mount *mounts = mock_router_mounts(mock_get_router(mk), &n_mounts);
    for (size_t i = 0; i < n_mounts; i++)
        printf("  %s http://%.*s:%u%s (%zu operation%s)\n", mounts[i].api->id, hn, host, port,
               mounts[i].base, mounts[i].api->n_ops, mounts[i].api->n_ops == 1 ? "" : "s");
    fflush(stdout);
    cli_port_file_write(port_file, port);
    cli_stop_wait("mock");
    mock_server_stop(srv);
    mock_free(mk);
    spec_registry_free(reg);
    return code == CLI_PROBLEMS ? CLI_PROBLEMS : CLI_OK;
}
