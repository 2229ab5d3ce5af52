/*
 * What apidex serve and apidex mcp share: the search and LLM they answer with, the call rules,
 * the index and the MCP server they open (and close in one call), and the start line that
 * says so; with apidex mock, how a server stops on SIGINT or SIGTERM and tells its port.
 */
#include "cli/cli.h"

#include "agent/agent.h"
#include "embed/embed.h"
#include "serve/serve.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cli_server {
    const char *cmd;
    serve_search_config search;
    search_params params; /* search.params points here: lives as long as the server */
    agent_llm *llm;
    cli_serve_calls *calls; /* borrowed; closed by cli_server_free once opened */
    serve_call_config call_cfg;
    serve_db *db;
    mcp_server *mcp;
};

int cli_server_new(const char *cmd, const cli_embed_flags *embed, double usage_prior,
                   int all_versions, const cli_llm_flags *llm, cli_server **out)
{
    *out = NULL;
    cli_server *s = calloc(1, sizeof *s);
    if (!s) return CLI_FAILURE;
    s->cmd = cmd;
    int code = cli_search_config(embed, &s->search);
    search_params_default(&s->params);
    s->params.usage_weight = usage_prior;
    s->params.answer_duplicates = all_versions ? 0 : 1;
    s->search.params = &s->params;
    if (!code && llm) code = cli_llm_open(llm, false, &s->llm);
    if (code) {
        cli_server_free(s);
        return code;
    }
    *out = s;
    return CLI_OK;
}

struct agent_llm *cli_server_llm(const cli_server *s)
{
    return s->llm;
}

int cli_server_open(cli_server *s, const char *db_path, double interval, cli_serve_calls *calls,
                    struct mcp_server_options *mo, apidex_error *err)
{
    mo->llm = s->llm;
    mo->calls = &s->call_cfg;
    int rc = cli_serve_calls_open(calls, &s->call_cfg, err);
    s->calls = calls;
    if (!rc) rc = serve_db_open_search(db_path, interval, &s->search, &s->db, err);
    if (!rc) rc = mcp_server_new(s->db, mo, &s->mcp, err);
    return rc;
}

struct serve_db *cli_server_db(const cli_server *s)
{
    return s->db;
}

struct mcp_server *cli_server_mcp(const cli_server *s)
{
    return s->mcp;
}

const struct serve_call_config *cli_server_calls(const cli_server *s)
{
    return &s->call_cfg;
}

int cli_server_failed(const cli_server *s, const char *db_path, int rc, const apidex_error *err)
{
    cli_print_error(err);
    char shown[1024];
    if (rc == APIDEX_ENOTFOUND)
        fprintf(stderr, "apidex %s: build the index first: apidex index SPECS... --db %s\n", s->cmd,
                store_display(db_path, shown, sizeof shown));
    return rc == APIDEX_EINVAL || rc == APIDEX_EUNSUPPORTED ? CLI_USAGE : CLI_FAILURE;
}

void cli_server_describe(const cli_server *s, const char *ask, core_buf *out)
{
    static const char *const modes[] = {"lexical", "dense", "hybrid"};
    const cli_serve_calls *calls = s->calls;
    core_buf_printf(out, "search: %s%s%s; %s: %s%s; calls: %s", modes[s->search.mode % 3],
                    s->search.embedder ? " with " : "",
                    s->search.embedder ? embed_provider_model_id(s->search.embedder) : "", ask,
                    s->llm ? "answers with " : "context only (no LLM configured)",
                    s->llm ? agent_llm_get_config(s->llm)->model : "",
                    !calls || !calls->allow_calls ? "off"
                    : calls->allow_write          ? "on, every method"
                                                  : "on, read-only");
}

void cli_server_free(cli_server *s)
{
    if (!s) return;
    mcp_server_free(s->mcp);
    serve_db_close(s->db);
    if (s->calls) cli_serve_calls_close(s->calls);
    agent_llm_close(s->llm);
    embed_provider_close(s->search.embedder);
    free(s);
}

/* ------------------------------------------------------------ stopping and the port file */

/* SIGINT/SIGTERM wake the main thread through a pipe: libraries start threads of their own
   before main (OpenBLAS), so the signal may land on any thread. */
static int stop_pipe[2] = {-1, -1};

static void on_stop_signal(int sig)
{
    unsigned char b = (unsigned char)sig;
    ssize_t w = write(stop_pipe[1], &b, 1);
    (void)w;
}

void cli_signals_catch(void (*on_stop)(int sig))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int cli_stop_on_signals(const char *cmd)
{
    if (core_sys_pipe_cloexec(stop_pipe) != 0) {
        fprintf(stderr, "apidex %s: pipe: %s\n", cmd, strerror(errno));
        return CLI_FAILURE;
    }
    cli_signals_catch(on_stop_signal);
    return CLI_OK;
}

void cli_stop_wait(const char *cmd)
{
    unsigned char sig = 0;
    while (read(stop_pipe[0], &sig, 1) < 0 && errno == EINTR) {
    }
    fprintf(stderr, "apidex %s: stopping (signal %d)\n", cmd, sig);
}

void cli_port_file_write(const char *path, unsigned port)
{
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "%u\n", port);
        fclose(f);
    }
}
