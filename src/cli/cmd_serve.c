/* apidex serve: the HTTP JSON API and MCP over Streamable HTTP, until SIGINT or SIGTERM. */
#include "cli/cli.h"

#include "serve/serve.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_CORS = 16 };

typedef struct serve_opts {
    const char *db, *registry, *listen, *token, *token_file, *access_log, *port_file;
    size_t threads, max_body, max_header, max_connections, timeout, sessions_per_client;
    int conns_per_client; /* serve_http_options.max_conns_per_client */
    double header_timeout, interval, usage_prior;
    const char *cors[MAX_CORS + 1];
    size_t n_cors;
    int all_versions;
    bool allow_remote, no_llm, watch;
    cli_llm_flags llm;
    cli_embed_flags embed;
    cli_serve_calls calls;
} serve_opts;

static const char *const duplicates[] = {"prefer-newest", "all", NULL};

/* 0 = no limit (-1 to the server; 0 there is its default) */
static int take_conns_per_client(const char *cmd, const char *flag, const char *value, void *opts)
{
    size_t n = 0;
    if (!cli_arg_size(cmd, flag, value, 0, 100000, &n)) return CLI_USAGE;
    ((serve_opts *)opts)->conns_per_client = n ? (int)n : -1;
    return CLI_OK;
}

static const cli_flag serve_rows[] = {
    CLI_TEXT("usage: apidex serve [--db FILE] [--listen HOST:PORT] [--token TOKEN] [--threads N]\n"
             "                    [--max-body BYTES] [--max-header BYTES] [--max-connections N]\n"
             "                    [--timeout SECONDS] [--header-timeout SECONDS]\n"
             "                    [--max-conns-per-client N] [--max-sessions-per-client N]\n"
             "                    [--cors ORIGIN]... [--access-log FILE|none]\n"
             "                    [--reload-interval SECONDS] [--port-file FILE] [--allow-remote]\n"
             "                    [--mode M] [--watch [--registry FILE]] [--allow-calls [rules]]\n"
             "                    [embedding flags] [LLM flags]\n"
             "  Routes: GET /v1/search?q=&k=&adaptive=&api=&tag=&method=, GET /v1/endpoints/{id},\n"
             "  GET /v1/apis, POST /v1/ask, POST /v1/match, POST /v1/feedback, POST /v1/call\n"
             "  (with --allow-calls), GET /healthz, GET /metrics, GET /openapi.json, and MCP\n"
             "  (Streamable HTTP) at /mcp. A web page at / (search, browse, copy a call).\n"),
    CLI_STRING("--db", NULL, serve_opts, db,
               "  --db FILE             index file (default $APIDEX_DB, the registry file's db,\n"
               "                        or ./apidex.db)\n"),
    CLI_STRING("--listen", NULL, serve_opts, listen,
               "  --listen HOST:PORT    default 127.0.0.1:8080; port 0 picks a free port\n"),
    CLI_STRING(
        "--token", NULL, serve_opts, token,
        "  --token TOKEN         require 'Authorization: Bearer TOKEN' (also $APIDEX_TOKEN,\n"
        "                        or --token-file FILE, which keeps it out of `ps`)\n"),
    CLI_STRING("--token-file", NULL, serve_opts, token_file, NULL),
    CLI_SIZE("--threads", NULL, serve_opts, threads, 1, 64,
             "  --threads N           worker threads (default: one per CPU)\n"),
    CLI_SIZE("--max-body", NULL, serve_opts, max_body, 64, (size_t)1 << 30,
             "  --max-body BYTES      largest request body (default 1048576)\n"),
    CLI_SIZE("--max-header", NULL, serve_opts, max_header, 1024, (size_t)1 << 20,
             "  --max-header BYTES    largest request line + headers (default 16384)\n"),
    CLI_SIZE("--max-connections", NULL, serve_opts, max_connections, 1, 100000,
             "  --max-connections N   open connections at once (default 256)\n"),
    CLI_SIZE("--timeout", NULL, serve_opts, timeout, 1, 3600,
             "  --timeout SECONDS     idle timeout and request deadline (default 30)\n"),
    CLI_DOUBLE("--header-timeout", NULL, serve_opts, header_timeout, 0.1, 3600, false,
               "  --header-timeout S    a connection's request headers must be complete S seconds\n"
               "                        after it opens (or after its previous answer), however\n"
               "                        slowly they come; then it is closed (default 10)\n"),
    CLI_HANDLER(
        "--max-conns-per-client", NULL, take_conns_per_client, NULL,
        "  --max-conns-per-client N  connections one client address may hold (default: a\n"
        "                        quarter of --max-connections, at most 64; 0 = no limit)\n"),
    CLI_SIZE("--max-sessions-per-client", NULL, serve_opts, sessions_per_client, 1, 1024,
             "  --max-sessions-per-client N  MCP sessions (2025-era initialize) one client\n"
             "                        address may hold of the 1024 kept; its oldest goes first\n"
             "                        (default 64)\n"),
    CLI_LIST("--cors", NULL, serve_opts, cors, n_cors, NULL, MAX_CORS, "%s: at most %d origins",
             "  --cors ORIGIN         allow this browser origin (repeatable; '*' = any); off by "
             "default\n"),
    CLI_STRING("--access-log", NULL, serve_opts, access_log,
               "  --access-log FILE     JSON lines, one per request (default stderr; 'none' = "
               "off)\n"),
    CLI_DOUBLE("--reload-interval", NULL, serve_opts, interval, 0, 86400, false,
               "  --reload-interval S   look for a rebuilt index at most every S seconds (default "
               "2)\n"),
    CLI_STRING("--port-file", NULL, serve_opts, port_file,
               "  --port-file FILE      write the bound port there once listening\n"),
    CLI_SWITCH("--allow-remote", NULL, serve_opts, allow_remote,
               "  --allow-remote        allow a non-loopback --listen address\n"),
    CLI_SWITCH("--watch", NULL, serve_opts, watch,
               "  --watch               index the registry file's sources first, then re-index\n"
               "                        when they change; answers switch to each new index\n"),
    CLI_STRING("--registry", NULL, serve_opts, registry,
               "  --registry FILE       with --watch: the registry file (default "
               "$APIDEX_REGISTRY\n"
               "                        or ./apidex.yaml; docs/REGISTRY.md)\n"),
    CLI_SWITCH("--no-llm", NULL, serve_opts, no_llm,
               "  --no-llm              /v1/ask and ask_api return the context only, even with an "
               "LLM\n"),
    /* --mode and --hybrid-weight are rows of the embedding table (included below) */
    CLI_TEXT("  --mode M              lexical (default), dense or hybrid: how search, ask and the "
             "MCP\n"
             "                        tools rank (needs the index's vectors: apidex index ... "
             "--model;\n"
             "                        checked at start and at every reload)\n"
             "  --hybrid-weight W     weighted sum instead of rank fusion (0 < W <= 1)\n"),
    CLI_DOUBLE(
        "--usage-prior", NULL, serve_opts, usage_prior, 0, 0.2, false,
        "  --usage-prior W       searches weigh the uses reported to POST /v1/feedback, MCP\n"
        "                        report_usage and apidex feedback (W in [0, 0.2]; 0: off)\n"),
    CLI_CHOICE("--duplicates", NULL, serve_opts, all_versions, duplicates,
               "  --duplicates prefer-newest|all  of APIs that are one service, answer from the\n"
               "                        newest (default) or from all (apidex list --duplicates)\n"),
    CLI_INCLUDE(serve_opts, calls, &cli_serve_calls_table),
    CLI_TEXT("\nEmbedding (with --mode dense|hybrid: the model the index was built with):\n"),
    CLI_INCLUDE(serve_opts, embed, &cli_embed_table),
    CLI_INCLUDE(serve_opts, llm, &cli_llm_table),
};
const cli_flag_table cli_serve_table = {serve_rows, sizeof serve_rows / sizeof *serve_rows};

static void serve_usage(FILE *out)
{
    cli_flags_help(&cli_serve_table, out);
}

static char *read_token_file(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    apidex_error err;
    if (core_file_read(path, 4096, &text, &len, &err) != 0) {
        cli_print_error(&err);
        return NULL;
    }
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
        text[--len] = '\0';
    return text;
}

int cli_search_config(const cli_embed_flags *f, serve_search_config *out)
{
    *out = (serve_search_config){.mode = (search_mode)f->mode, .hybrid_weight = f->hybrid_weight};
    return out->mode == SEARCH_LEXICAL ? CLI_OK : cli_embed_open(f, &out->embedder);
}

int cli_cmd_serve(int argc, char **argv)
{
    serve_opts so = {.interval = 2.0};
    for (int i = 1; i < argc; i++) {
        int r = cli_flags_take("serve", &cli_serve_table, serve_usage, argc, argv, &i, &so);
        if (r == CLI_FLAGS_HELP) return CLI_OK;
        if (r < 0) return CLI_USAGE;
        if (!r) return cli_arg_unknown("serve", argv[i]);
    }
    serve_http_options o = {.access_log_fd = STDERR_FILENO,
                            .listen = so.listen,
                            .token = so.token,
                            .threads = (unsigned)so.threads,
                            .max_body = so.max_body,
                            .max_header = so.max_header,
                            .max_connections = (unsigned)so.max_connections,
                            .timeout_s = (unsigned)so.timeout,
                            .header_timeout_s = so.header_timeout,
                            .max_conns_per_client = so.conns_per_client,
                            .allow_remote = so.allow_remote};
    const char *db_flag = so.db, *registry_flag = so.registry, *token_file = so.token_file,
               *access_log = so.access_log, *port_file = so.port_file;
    const char **cors = so.cors;
    size_t n_cors = so.n_cors, sessions_per_client = so.sessions_per_client;
    cli_serve_calls calls = so.calls;
    char *token_buf = NULL;
    if (!o.token && token_file && !(o.token = token_buf = read_token_file(token_file)))
        return CLI_FAILURE;
    if (!o.token && getenv("APIDEX_TOKEN") && *getenv("APIDEX_TOKEN"))
        o.token = getenv("APIDEX_TOKEN");
    if (n_cors) o.cors_origins = cors;
    int log_fd = -1;
    if (access_log && !strcmp(access_log, "none")) {
        o.access_log_fd = -1;
    } else if (access_log && strcmp(access_log, "-")) {
        log_fd = open(access_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (log_fd < 0) {
            fprintf(stderr, "apidex serve: cannot open %s: %s\n", access_log, strerror(errno));
            free(token_buf);
            return CLI_FAILURE;
        }
        o.access_log_fd = log_fd;
    }

    cli_server *s = NULL;
    int code = cli_server_new("serve", &so.embed, so.usage_prior, so.all_versions,
                              so.no_llm ? NULL : &so.llm, &s);
    if (!code) code = cli_stop_on_signals("serve");
    if (!code && registry_flag && !so.watch)
        code = cli_usage_error("serve", "--registry goes with --watch");
    const char *db_path = cli_db_path(db_flag);
    cli_serve_watch *watcher = NULL;
    if (!code && so.watch) code = cli_serve_watch_start(registry_flag, db_flag, &db_path, &watcher);
    serve_http *http = NULL;
    if (!code) {
        apidex_error err;
        core_error_clear(&err);
        o.llm = cli_server_llm(s);
        mcp_server_options mo = {.private_cache = o.token != NULL,
                                 .max_sessions_per_client = sessions_per_client};
        int rc = cli_server_open(s, db_path, so.interval, &calls, &mo, &err);
        o.calls = cli_server_calls(s);
        if (!rc) rc = serve_http_start(cli_server_db(s), cli_server_mcp(s), &o, &http, &err);
        if (rc) code = cli_server_failed(s, db_path, rc, &err);
    }
    if (!code) {
        const char *listen = o.listen ? o.listen : "127.0.0.1:8080";
        const char *colon = strrchr(listen, ':');
        char shown_db[1024];
        core_buf line;
        core_buf_init(&line, 0);
        cli_server_describe(s, "ask", &line);
        fprintf(stderr, "apidex serve: %s on http://%.*s:%u (MCP at /mcp)%s; %s\n",
                store_display(db_path, shown_db, sizeof shown_db),
                (int)(colon ? colon - listen : 0), listen, serve_http_port(http),
                o.token ? ", bearer token required" : "", line.data ? line.data : "");
        core_buf_free(&line);
        cli_port_file_write(port_file, serve_http_port(http));
        cli_stop_wait("serve");
    }
    cli_serve_watch_stop(watcher);
    serve_http_stop(http);
    cli_server_free(s);
    if (log_fd >= 0) close(log_fd);
    free(token_buf);
    return code;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_serve(FILE *out)
{
    serve_usage(out);
}
