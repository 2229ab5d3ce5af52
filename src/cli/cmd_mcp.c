/* apidex mcp: the MCP server over stdio (one JSON-RPC message per line), for MCP clients. */
#include "cli/cli.h"

#include "serve/serve.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int mcp_stop;

static void on_signal(int sig)
{
    (void)sig;
    mcp_stop = 1;
}

typedef struct mcp_opts {
    const char *db;
    double interval, usage_prior;
    int all_versions;
    bool no_llm;
    cli_llm_flags llm;
    cli_embed_flags embed;
    cli_serve_calls calls;
} mcp_opts;

static const char *const duplicates[] = {"prefer-newest", "all", NULL};

/* The protocol revisions of the help's first lines. */
static void mcp_revisions(FILE *out)
{
    fprintf(out,
            "usage: apidex mcp [--db FILE] [--reload-interval SECONDS] [--no-llm] [--mode M]\n"
            "                  [--usage-prior W] [--duplicates prefer-newest|all]\n"
            "                  [--allow-calls [rules]] [embedding flags] [LLM flags]\n"
            "  Speaks the Model Context Protocol on stdin/stdout (revisions %s,\n"
            "  %s, %s, %s and %s) with the tools search_endpoints,\n",
            mcp_supported_revisions[0], mcp_supported_revisions[1], mcp_supported_revisions[2],
            mcp_supported_revisions[3], mcp_supported_revisions[4]);
}

static const cli_flag mcp_rows[] = {
    CLI_TEXT("  get_endpoint, list_apis, ask_api, get_tool_definitions, match_spec and\n"
             "  report_usage and the resources apidex://apis/{api} and\n"
             "  apidex://endpoints/{id}; with --allow-calls also call_endpoint. Logs go to "
             "stderr.\n"),
    CLI_STRING("--db", NULL, mcp_opts, db,
               "  --db FILE               index file (default $APIDEX_DB, the registry file's db,\n"
               "                          or ./apidex.db)\n"),
    CLI_DOUBLE("--reload-interval", NULL, mcp_opts, interval, 0, 86400, false,
               "  --reload-interval S     look for a rebuilt index at most every S seconds\n"
               "                          (default 2; 0 = on every request, -1 = never)\n"),
    CLI_SWITCH("--no-llm", NULL, mcp_opts, no_llm,
               "  --no-llm                ask_api returns the context only, even with an LLM "
               "set\n"),
    /* --mode and --hybrid-weight are rows of the embedding table (included below) */
    CLI_TEXT("  --mode M                lexical (default), dense or hybrid ranking (needs the\n"
             "                          index's vectors: apidex index ... --model; checked at "
             "start)\n"
             "  --hybrid-weight W       weighted sum instead of rank fusion (0 < W <= 1)\n"),
    CLI_DOUBLE("--usage-prior", NULL, mcp_opts, usage_prior, 0, 0.2, false,
               "  --usage-prior W         searches weigh the uses reported with report_usage and\n"
               "                          apidex feedback (W in [0, 0.2]; 0: off)\n"),
    CLI_CHOICE("--duplicates", NULL, mcp_opts, all_versions, duplicates,
               "  --duplicates prefer-newest|all  of APIs that are one service, answer from the\n"
               "                          newest (default) or from all (apidex list "
               "--duplicates)\n"),
    CLI_TEXT("See docs/CLIENTS.md for Claude Desktop, Cursor and VS Code configuration.\n\n"),
    CLI_INCLUDE(mcp_opts, calls, &cli_serve_calls_table),
    CLI_TEXT("\nEmbedding (with --mode dense|hybrid: the model the index was built with):\n"),
    CLI_INCLUDE(mcp_opts, embed, &cli_embed_table),
    CLI_INCLUDE(mcp_opts, llm, &cli_llm_table),
};
const cli_flag_table cli_mcp_table = {mcp_rows, sizeof mcp_rows / sizeof *mcp_rows};

static void mcp_usage(FILE *out)
{
    mcp_revisions(out);
    cli_flags_help(&cli_mcp_table, out);
}

int cli_cmd_mcp(int argc, char **argv)
{
    mcp_opts mo_ = {.interval = 2.0};
    for (int i = 1; i < argc; i++) {
        int r = cli_flags_take("mcp", &cli_mcp_table, mcp_usage, argc, argv, &i, &mo_);
        if (r == CLI_FLAGS_HELP) return CLI_OK;
        if (r < 0) return CLI_USAGE;
        if (!r) return cli_arg_unknown("mcp", argv[i]);
    }
    const char *db_path = cli_db_path(mo_.db);
    cli_server *s = NULL;
    int code = cli_server_new("mcp", &mo_.embed, mo_.usage_prior, mo_.all_versions,
                              mo_.no_llm ? NULL : &mo_.llm, &s);
    if (code) return code;
    apidex_error err;
    core_error_clear(&err);
    mcp_server_options mo = {0};
    int rc = cli_server_open(s, db_path, mo_.interval, &mo_.calls, &mo, &err);
    if (rc) {
        code = cli_server_failed(s, db_path, rc, &err);
        cli_server_free(s);
        return code;
    }
    cli_signals_catch(on_signal);
    char shown_db[1024];
    core_buf line;
    core_buf_init(&line, 0);
    cli_server_describe(s, "ask_api", &line);
    fprintf(stderr, "apidex mcp: serving %s on stdio; %s\n",
            store_display(db_path, shown_db, sizeof shown_db), line.data ? line.data : "");
    core_buf_free(&line);
    rc = mcp_serve_stdio(cli_server_mcp(s), STDIN_FILENO, STDOUT_FILENO, 4u << 20, &mcp_stop);
    cli_server_free(s);
    if (rc) {
        fprintf(stderr, "apidex mcp: %s\n", apidex_strerror(rc));
        return CLI_FAILURE;
    }
    return CLI_OK;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_mcp(FILE *out)
{
    mcp_usage(out);
}
