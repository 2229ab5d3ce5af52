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

static void run_usage(FILE *out)
{
    fprintf(out,
            "usage: apidex run \"TASK\" [--max-steps N] [--api A]... [--server API=URL]...\n"
            "                  [--allow-write] [--allow-host HOST]... [--allow-private]\n"
            "                  [--allow-address IP]... [--timeout SECONDS] [-k N]\n"
            "                  [--budget N] [--json] [--db FILE] [LLM flags]\n"
            "\n"
            "Solves TASK by calling the indexed APIs, RestGPT's way: the model plans the next\n"
            "step, apidex's search selects candidate endpoints for it, the model fills the\n"
            "call, apidex validates and sends it, the model selects what the step needs from\n"
            "the response; until the model answers. Prints the transcript (docs/EXECUTE.md).\n"
            "  --max-steps N     planner turns (default 10, at most 50)\n"
            "  --api A           only endpoints of API A (repeatable)\n"
            "  --server API=URL  the base URL of API instead of its spec's (repeatable)\n"
            "  --allow-write     methods other than GET/HEAD/OPTIONS\n"
            "  --allow-host HOST another host (the spec's servers and --server are allowed)\n"
            "  --allow-private   private, loopback and link-local addresses\n"
            "  --allow-address IP  this one private address only (repeatable)\n"
            "  --timeout SECONDS each call's whole exchange (default 30)\n"
            "  -k N              candidate endpoints per step (default 5)\n"
            "  --budget N        cl100k tokens of each response the model sees (default 2000)\n"
            "  --json            the transcript as JSON\n"
            "  --db FILE         index file (default $APIDEX_DB, the registry file's db,\n"
            "                    or ./apidex.db)\n"
            "\n%s"
            "Exit status: 0 answered, 1 stopped without an answer, 2 usage or no LLM\n"
            "configured, 3 failure.\n",
            cli_llm_flags_help());
}

int cli_cmd_run(int argc, char **argv)
{
    const char *task = NULL, *db = NULL;
    const char *apis[RUN_MAX_LIST + 1] = {0}, *servers[RUN_MAX_LIST], *hosts[RUN_MAX_LIST],
                                    *addresses[RUN_MAX_LIST];
    size_t n_apis = 0, n_servers = 0, n_hosts = 0, n_addresses = 0;
    bool json = false;
    agent_run_options ro = {0};
    agent_run_executor_options xo = {0};
    cli_llm_flags lf = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = cli_llm_parse_flag(argc, argv, &i, &lf);
        size_t n = 0;
        if (r) {
            if (r < 0) return CLI_USAGE;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            run_usage(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--allow-write")) {
            xo.policy.allow_write = true;
        } else if (!strcmp(a, "--allow-private")) {
            xo.policy.allow_private = true;
        } else if (!strcmp(a, "--max-steps") && v) {
            if (!cli_arg_size("run", a, v, 1, 50, &n)) return CLI_USAGE;
            ro.max_steps = (unsigned)n;
            i++;
        } else if ((!strcmp(a, "-k") || !strcmp(a, "--k")) && v) {
            if (!cli_arg_size("run", a, v, 1, 50, &ro.k)) return CLI_USAGE;
            i++;
        } else if (!strcmp(a, "--budget") && v) {
            if (!cli_arg_size("run", a, v, 50, 100000, &xo.shape.budget)) return CLI_USAGE;
            i++;
        } else if (!strcmp(a, "--timeout") && v) {
            if (!cli_arg_size("run", a, v, 1, 3600, &n)) return CLI_USAGE;
            xo.policy.timeout_ms = (long)n * 1000;
            i++;
        } else if (!strcmp(a, "--db") && v) {
            db = v;
            i++;
        } else if ((!strcmp(a, "--api") || !strcmp(a, "--server") || !strcmp(a, "--allow-host") ||
                    !strcmp(a, "--allow-address")) &&
                   v) {
            const char **list = a[2] == 'a' && a[3] == 'p' ? apis
                                : a[2] == 's'              ? servers
                                : a[8] == 'h'              ? hosts
                                                           : addresses;
            size_t *cnt = list == apis      ? &n_apis
                          : list == servers ? &n_servers
                          : list == hosts   ? &n_hosts
                                            : &n_addresses;
            if (*cnt >= RUN_MAX_LIST)
                return cli_usage_error("run", "%s: at most %d", a, RUN_MAX_LIST);
            if (list == servers && (!strchr(v, '=') || v[0] == '=' || !strstr(v, "://")))
                return cli_usage_error("run", "--server wants API=URL, not '%s'", v);
            if (list == addresses && !cli_arg_address("run", v)) return CLI_USAGE;
            list[(*cnt)++] = v;
            i++;
        } else if (a[0] == '-' && a[1]) {
            return cli_arg_unknown("run", a);
        } else if (task) {
            return cli_arg_unquoted("run", task, argc, argv, i);
        } else {
            task = a;
        }
    }
    if (!task) return cli_usage_error("run", "give a task: apidex run \"TASK\"");
    if (cli_check_task("run", task)) return CLI_USAGE;
    xo.servers = servers;
    xo.n_servers = n_servers;
    xo.policy.allowed_hosts = hosts;
    xo.policy.n_allowed_hosts = n_hosts;
    xo.policy.allowed_addresses = addresses;
    xo.policy.n_allowed_addresses = n_addresses;
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
        if (json ? agent_run_write_json(run, &b) : agent_run_write_text(run, &b))
            code = CLI_FAILURE;
        else
            fputs(b.data ? b.data : "", stdout);
        core_buf_free(&b);
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
