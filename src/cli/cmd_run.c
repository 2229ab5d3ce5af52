/* apidex run: the RestGPT loop (Song et al., 2023) against real endpoints: the model plans,
   apidex's search selects the candidates, the model fills the call, the executor sends it under the
   safety rules, the model writes a selection apidex evaluates; the transcript is printed. */
#include "cli/cli.h"

#include "agent/agent.h"
#include "exec/exec.h"
#include "search/search.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RUN_MAX_LIST = 64 };

typedef struct run_opts {
    const char *db;
    const char *apis[RUN_MAX_LIST + 1], *servers[RUN_MAX_LIST], *hosts[RUN_MAX_LIST],
        *addresses[RUN_MAX_LIST];
    size_t n_apis, n_servers, n_hosts, n_addresses;
    size_t max_steps, k, budget, timeout;
    bool json, allow_write, allow_private;
    cli_llm_flags llm;
} run_opts;

static int take_server(const char *cmd, const char *flag, const char *v, void *opts)
{
    run_opts *o = opts;
    if (o->n_servers >= RUN_MAX_LIST)
        return cli_usage_error(cmd, "%s: at most %d", flag, RUN_MAX_LIST);
    if (!strchr(v, '=') || v[0] == '=' || !strstr(v, "://"))
        return cli_usage_error(cmd, "--server wants API=URL, not '%s'", v);
    o->servers[o->n_servers++] = v;
    return CLI_OK;
}

static int take_address(const char *cmd, const char *flag, const char *v, void *opts)
{
    run_opts *o = opts;
    if (o->n_addresses >= RUN_MAX_LIST)
        return cli_usage_error(cmd, "%s: at most %d", flag, RUN_MAX_LIST);
    if (!cli_arg_address(cmd, v)) return CLI_USAGE;
    o->addresses[o->n_addresses++] = v;
    return CLI_OK;
}

static int take_host(const char *cmd, const char *flag, const char *v, void *opts)
{
    run_opts *o = opts;
    if (o->n_hosts >= RUN_MAX_LIST)
        return cli_usage_error(cmd, "%s: at most %d", flag, RUN_MAX_LIST);
    if (!cli_arg_allow_host(cmd, v)) return CLI_USAGE;
    o->hosts[o->n_hosts++] = v;
    return CLI_OK;
}

static const cli_flag run_rows[] = {
    CLI_TEXT("usage: apidex run \"TASK\" [--max-steps N] [--api A]... [--server API=URL]...\n"
             "                  [--allow-write] [--allow-host HOST]... [--allow-private]\n"
             "                  [--allow-address IP]... [--timeout SECONDS] [-k N]\n"
             "                  [--budget N] [--json] [--db FILE] [LLM flags]\n"
             "\n"
             "Solves TASK by calling the indexed APIs, RestGPT's way: the model plans the next\n"
             "step, apidex's search selects candidate endpoints for it, the model fills the\n"
             "call, apidex validates and sends it, the model selects what the step needs from\n"
             "the response; until the model answers. Prints the transcript (docs/EXECUTE.md).\n"),
    CLI_SIZE("--max-steps", NULL, run_opts, max_steps, 1, 50,
             "  --max-steps N     planner turns (default 10, at most 50)\n"),
    CLI_LIST("--api", NULL, run_opts, apis, n_apis, NULL, RUN_MAX_LIST, "%s: at most %d",
             "  --api A           only endpoints of API A (repeatable)\n"),
    CLI_HANDLER("--server", NULL, take_server, NULL,
                "  --server API=URL  the base URL of API instead of its spec's (repeatable)\n"),
    CLI_SWITCH("--allow-write", NULL, run_opts, allow_write,
               "  --allow-write     methods other than GET/HEAD/OPTIONS\n"),
    CLI_HANDLER("--allow-host", NULL, take_host, NULL,
                "  --allow-host HOST another host (the spec's servers and --server are allowed)\n"),
    CLI_SWITCH("--allow-private", NULL, run_opts, allow_private,
               "  --allow-private   private, loopback and link-local addresses\n"),
    CLI_HANDLER("--allow-address", NULL, take_address, NULL,
                "  --allow-address IP  this one private address only (repeatable)\n"),
    CLI_SIZE("--timeout", NULL, run_opts, timeout, 1, 3600,
             "  --timeout SECONDS each call's whole exchange (default 30)\n"),
    {.kind = CLI_F_SIZE,
     .name = "-k",
     .also = "--k",
     .at = CLI_FIELD_(run_opts, k, size_t),
     .lo = 1,
     .hi = 50,
     .help = "  -k N              candidate endpoints per step (default 5)\n"},
    CLI_SIZE("--budget", NULL, run_opts, budget, 50, 100000,
             "  --budget N        cl100k tokens of each response the model sees (default 2000)\n"),
    CLI_SWITCH("--json", NULL, run_opts, json, "  --json            the transcript as JSON\n"),
    CLI_STRING("--db", NULL, run_opts, db,
               "  --db FILE         index file (default $APIDEX_DB, the registry file's db,\n"
               "                    or ./apidex.db)\n"),
    CLI_TEXT("\n"),
    CLI_INCLUDE(run_opts, llm, &cli_llm_table),
    CLI_TEXT("Exit status: 0 answered, 1 stopped without an answer, 2 usage or no LLM\n"
             "configured, 3 failure.\n"),
};
const cli_flag_table cli_run_table = {run_rows, sizeof run_rows / sizeof *run_rows};

static void run_usage(FILE *out)
{
    cli_flags_help(&cli_run_table, out);
}

int cli_cmd_run(int argc, char **argv)
{
    run_opts o = {0};
    const char *task = NULL;
    int r = cli_flags_take_task("run", &cli_run_table, run_usage, argc, argv, &o, &task,
                                "give a task: apidex run \"TASK\"");
    if (r) return r == CLI_FLAGS_HELP ? CLI_OK : r;
    const char *db = o.db;
    const char **apis = o.apis, **servers = o.servers;
    size_t n_apis = o.n_apis, n_servers = o.n_servers;
    bool json = o.json;
    agent_run_options ro = {.max_steps = (unsigned)o.max_steps, .k = o.k};
    agent_run_executor_options xo = {0};
    xo.shape.budget = o.budget;
    xo.policy.allow_write = o.allow_write;
    xo.policy.allow_private = o.allow_private;
    xo.policy.timeout_ms = (long)o.timeout * 1000;
    cli_llm_flags lf = o.llm;
    xo.servers = servers;
    xo.n_servers = n_servers;
    xo.policy.allowed_hosts = o.hosts;
    xo.policy.n_allowed_hosts = o.n_hosts;
    xo.policy.allowed_addresses = o.addresses;
    xo.policy.n_allowed_addresses = o.n_addresses;
    if (n_apis) ro.apis = apis;
    ro.trace = json ? NULL : cli_trace_stderr;
    ro.trace_ctx = (void *)"run";

    agent_llm *llm = NULL;
    int code = cli_llm_open(&lf, true, &llm);
    if (code != CLI_OK) return code;
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    search_engine *eng = NULL;
    exec_oauth *oauth = NULL;
    agent_run_executor *x = NULL;
    agent_run *run = NULL;
    agent_run_ops ops;
    char dir[4096];
    int rc = store_open(cli_db_path(db), true, &idx, &err);
    if (!rc && n_apis) code = cli_check_apis("run", idx, apis, n_apis);
    for (size_t i = 0; !rc && code == CLI_OK && i < n_servers; i++) {
        char id[256];
        snprintf(id, sizeof id, "%.*s", (int)(strchr(servers[i], '=') - servers[i]), servers[i]);
        if (store_find_api(idx, id) < 0)
            code = cli_usage_error("run", "--server %s: the index has no API '%s'", servers[i], id);
    }
    if (!rc && code == CLI_OK) rc = search_engine_open(idx, &eng, &err);
    if (!rc && code == CLI_OK)
        rc = exec_oauth_new(&xo.policy, exec_oauth_default_dir(dir, sizeof dir), &oauth, &err);
    if (!rc && code == CLI_OK) {
        xo.token_fn = exec_oauth_token;
        xo.token_ctx = oauth;
        rc = agent_run_executor_new(idx, &xo, &x, &ops, &err);
    }
    if (!rc && code == CLI_OK) rc = agent_run_task(llm, eng, task, &ops, &ro, &run, &err);
    if (rc) {
        cli_print_error(&err);
        code = rc == APIDEX_EINVAL ? CLI_USAGE : CLI_FAILURE;
    }
    if (run) {
        core_buf b;
        core_buf_init(&b, 0);
        if (cli_buf_print(&b, json ? agent_run_write_json(run, &b) : agent_run_write_text(run, &b)))
            code = CLI_FAILURE;
        if (code == CLI_OK && !run->answer) code = CLI_PROBLEMS;
    }
    agent_run_free(run);
    agent_run_executor_free(x);
    exec_oauth_free(oauth);
    search_engine_close(eng);
    store_close(idx);
    agent_llm_close(llm);
    return code;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_run(FILE *out)
{
    run_usage(out);
}
