/*
 * apidex agent: the Discovery Agent on one task. Also the LLM plumbing the
 * other commands share: the LLM flags, resolving flags > env > config file,
 * the index-time refinement hooks (index --strategy summary|query) and the
 * agent run of `apidex eval --agent`.
 */
#include "cli/cli.h"

#include "build/build.h"
#include "agent/agent.h"
#include "eval/eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- LLM flags */

#define HELP_HEAD  "LLM (flags > env > config file; see docs/LLM.md):\n"
#define HELP_URL   "  --llm-url URL        OpenAI-compatible base URL   ($" AGENT_ENV_BASE_URL ")\n"
#define HELP_MODEL "  --llm-model NAME     model                        ($" AGENT_ENV_MODEL ")\n"
#define HELP_KEY                                                                                   \
    "  --llm-key-env VAR    read the API key from $VAR   (default $" AGENT_ENV_API_KEY ")\n"
#define HELP_CONFIG                                                                                \
    "  --llm-config FILE    JSON config file             ($" AGENT_ENV_CONFIG                      \
    ", ~/.config/apidex/llm.json)\n"
#define HELP_TEMPERATURE "  --temperature T      sampling temperature (default 0)\n"
#define HELP_MAX_TOKENS  "  --max-tokens N       completion cap per LLM call (default 1024)\n"
#define HELP_TIMEOUT                                                                               \
    "  --llm-timeout S      seconds per request (default 120); --llm-retries N (default 3)\n"

static int take_temperature(const char *cmd, const char *flag, const char *value, void *opts)
{
    cli_llm_flags *f = opts;
    if (!cli_arg_double(cmd, flag, value, 0, 2, false, &f->temperature)) return CLI_USAGE;
    f->has_temperature = true;
    return CLI_OK;
}

static int take_max_tokens(const char *cmd, const char *flag, const char *value, void *opts)
{
    long n = 0;
    if (!cli_arg_long(cmd, flag, value, 1, 1000000, &n)) return CLI_USAGE;
    ((cli_llm_flags *)opts)->max_tokens = (int)n;
    return CLI_OK;
}

static int take_retries(const char *cmd, const char *flag, const char *value, void *opts)
{
    long n = 0;
    if (!cli_arg_long(cmd, flag, value, 0, 20, &n)) return CLI_USAGE;
    ((cli_llm_flags *)opts)->retries = (int)n + 1; /* 0 = unset */
    return CLI_OK;
}

static const cli_flag llm_rows[] = {
    CLI_TEXT(HELP_HEAD),
    CLI_STRING("--llm-url", NULL, cli_llm_flags, base_url, HELP_URL),
    CLI_STRING("--llm-model", NULL, cli_llm_flags, model, HELP_MODEL),
    CLI_STRING("--llm-key-env", NULL, cli_llm_flags, key_env, HELP_KEY),
    CLI_STRING("--llm-config", NULL, cli_llm_flags, config, HELP_CONFIG),
    CLI_HANDLER("--temperature", NULL, take_temperature, NULL, HELP_TEMPERATURE),
    CLI_HANDLER("--max-tokens", NULL, take_max_tokens, NULL, HELP_MAX_TOKENS),
    CLI_DOUBLE("--llm-timeout", NULL, cli_llm_flags, timeout, 0, 86400, true, HELP_TIMEOUT),
    CLI_HANDLER("--llm-retries", NULL, take_retries, NULL, NULL),
};
const cli_flag_table cli_llm_table = {llm_rows, sizeof llm_rows / sizeof *llm_rows};

int cli_llm_resolve(const cli_llm_flags *f, agent_llm_config *c, apidex_error *err)
{
    agent_llm_config_defaults(c);
    /* An explicit file replaces the default one; the variables still win over it. */
    int rc = f->config ? agent_llm_config_load_file(c, f->config, err)
                       : agent_llm_config_from_env(c, err);
    if (!rc && f->config) rc = agent_llm_config_apply_env(c, err);
    if (rc) return rc;
    if (f->base_url) snprintf(c->base_url, sizeof c->base_url, "%s", f->base_url);
    if (f->model) snprintf(c->model, sizeof c->model, "%s", f->model);
    if (f->key_env) {
        const char *k = getenv(f->key_env);
        if (!k || !*k)
            return core_error_set(err, APIDEX_EINVAL, "--llm-key-env: $%s is not set", f->key_env);
        snprintf(c->api_key, sizeof c->api_key, "%s", k);
    }
    if (f->has_temperature) c->temperature = f->temperature;
    if (f->max_tokens) c->max_tokens = f->max_tokens;
    if (f->timeout > 0) c->timeout_s = f->timeout;
    if (f->retries) c->max_retries = f->retries - 1;
    if (f->stream) c->stream = true;
    return 0;
}

int cli_llm_open(const cli_llm_flags *f, bool required, agent_llm **out)
{
    *out = NULL;
    agent_llm_config c;
    apidex_error err;
    core_error_clear(&err);
    if (cli_llm_resolve(f, &c, &err)) {
        cli_print_error(&err);
        return CLI_USAGE;
    }
    if (!agent_llm_configured(&c)) {
        if (!required) return CLI_OK;
        fprintf(stderr, "apidex: %s\n", agent_llm_setup_hint());
        return CLI_USAGE;
    }
    if (agent_llm_open(&c, out, &err)) {
        cli_print_error(&err);
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* An LLM error's exit code: configuration problems are usage (2), the rest failures (3). */
static int llm_exit_code(int rc)
{
    return rc == APIDEX_EINVAL ? CLI_USAGE : CLI_FAILURE;
}

/* ---------------------------------------------------------------- index-time refinement */

struct cli_llm_refine {
    agent_llm *llm;
    agent_refiner *refiner;
    bool progress;
    int last_width;
};

static void refine_progress(void *ctx, size_t done, size_t total)
{
    cli_llm_refine *s = ctx;
    if (!s->progress) return;
    int w = fprintf(stderr, "\rLLM texts: %zu/%zu endpoints", done, total);
    if (w > s->last_width) s->last_width = w;
    if (done == total) fprintf(stderr, "\r%*s\r", s->last_width, "");
    fflush(stderr);
}

int cli_llm_refine_begin(build_options *opt, const cli_llm_flags *f, bool no_llm, bool progress,
                         cli_llm_refine **out)
{
    *out = NULL;
    const char *st = opt->strategy ? opt->strategy : "";
    bool llm_strategy = !strncmp(st, "summary", 7) || !strncmp(st, "query", 5);
    if (no_llm || !llm_strategy) return CLI_OK;
    cli_llm_refine *s = calloc(1, sizeof *s);
    if (!s) return CLI_FAILURE;
    int code = cli_llm_open(f, false, &s->llm);
    if (code != CLI_OK || !s->llm) {
        free(s);
        return code; /* not configured: the deterministic texts */
    }
    s->progress = progress;
    agent_refine_options ro = {.progress = refine_progress, .progress_ctx = s};
    apidex_error err;
    core_error_clear(&err);
    if (agent_refiner_new(s->llm, &ro, &s->refiner, &err)) {
        cli_print_error(&err);
        agent_llm_close(s->llm);
        free(s);
        return CLI_USAGE;
    }
    agent_refiner_attach(s->refiner, opt);
    *out = s;
    return CLI_OK;
}

void cli_llm_refine_end(cli_llm_refine *s, bool quiet)
{
    if (!s) return;
    agent_refine_stats st = agent_refiner_stats(s->refiner);
    if (!quiet && st.requested)
        fprintf(stderr,
                "LLM texts (%s): %zu endpoints, %zu from the cache, %zu written by the LLM "
                "(%zu tokens)%s\n",
                agent_llm_get_config(s->llm)->model, st.requested, st.cache_hits, st.llm_calls,
                st.usage.total, st.failures ? ", with failures" : "");
    agent_refiner_free(s->refiner);
    agent_llm_close(s->llm);
    free(s);
}

/* ---------------------------------------------------------------- eval --agent */

static void eval_progress(void *ctx, size_t done, size_t n, double f1)
{
    (void)f1;
    if (*(bool *)ctx) {
        fprintf(stderr, "\ragent: %zu/%zu queries", done, n);
        if (done == n) fputc('\n', stderr);
        fflush(stderr);
    }
}

int cli_eval_agent(const char *db, const eval_set *set, const cli_eval_agent_args *a)
{
    agent_llm *llm = NULL;
    int code = cli_llm_open(&a->llm, true, &llm);
    if (code != CLI_OK) return code;
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    search_engine *eng = NULL;
    eval_agent_report *r = NULL;
    bool progress = !a->json && cli_stderr_is_tty();
    eval_agent_options o = {
        .discover = {.tools = (agent_tools_mode)a->tools, .k = a->k, .max_steps = a->max_steps},
        .limit = a->limit,
        .progress = eval_progress,
        .progress_ctx = &progress};
    int rc = cli_index_search_open(db, &idx, &eng, &err);
    if (!rc) rc = eval_agent_run(llm, eng, idx, set, &o, &r, &err);
    if (rc) {
        cli_print_error(&err);
        code = llm_exit_code(rc);
    } else {
        core_buf b;
        core_buf_init(&b, 0);
        code = cli_buf_print(&b, a->json ? eval_agent_report_json(r, a->per_query, &b)
                                         : eval_agent_report_text(r, a->per_query, &b));
    }
    eval_agent_report_free(r);
    search_engine_close(eng);
    store_close(idx);
    agent_llm_close(llm);
    return code;
}

/* ---------------------------------------------------------------- apidex agent */

enum { AGENT_MAX_APIS = 32 };

typedef struct agent_opts {
    agent_discover_options o;
    const char *apis[AGENT_MAX_APIS + 1];
    size_t n_apis;
    const char *db;
    bool json, verbose;
    int tools;
    long max_steps;
    cli_llm_flags llm;
} agent_opts;

static const char *const tool_modes[] = {"summary", "query", NULL}; /* agent_tools_mode */

static const cli_flag agent_rows[] = {
    CLI_TEXT("usage: apidex agent \"TASK\" [--tools summary|query] [-k N] [--max-steps N]\n"
             "                    [--api A]... [--db FILE] [--json] [--verbose] [LLM flags]\n"
             "\n"
             "The Discovery Agent: an LLM splits TASK into sub-tasks, retrieves endpoints for\n"
             "each with tools, and returns the endpoints that solve it, in call order, each with\n"
             "a rationale. Endpoints the index does not have are dropped and reported.\n"),
    CLI_CHOICE("--tools", NULL, agent_opts, tools, tool_modes,
               "  --tools summary   search_endpoints (method, path, one line) + get_endpoint on\n"
               "                    demand (default: the paper's best configuration)\n"
               "  --tools query     one tool returning the full documentation of the results\n"),
    {.kind = CLI_F_SIZE,
     .name = "-k",
     .also = "--k",
     .at = CLI_FIELD_(agent_opts, o.k, size_t),
     .lo = 1,
     .hi = 100,
     .help = "  -k N              results per retrieval (default 10)\n"},
    CLI_LONG("--max-steps", NULL, agent_opts, max_steps, 1, 64,
             "  --max-steps N     LLM calls before the agent must answer (default 12)\n"),
    CLI_LIST("--api", NULL, agent_opts, apis, n_apis, NULL, AGENT_MAX_APIS, "%s: at most %d APIs",
             "  --api A           only endpoints of API A (repeatable)\n"),
    CLI_STRING("--db", NULL, agent_opts, db,
               "  --db FILE         index file (default $APIDEX_DB, the registry file's db,\n"
               "                    or ./apidex.db)\n"),
    CLI_SWITCH("--json", NULL, agent_opts, json, NULL),
    {.kind = CLI_F_SWITCH,
     .name = "--verbose",
     .also = "-v",
     .at = CLI_FIELD_(agent_opts, verbose, bool),
     .help = "  --verbose         print each step to stderr\n"},
    CLI_TEXT("\n"),
    CLI_INCLUDE(agent_opts, llm, &cli_llm_table),
    CLI_TEXT("Exit status: 0 ok, 2 usage or no LLM configured, 3 failure.\n"),
};
const cli_flag_table cli_agent_table = {agent_rows, sizeof agent_rows / sizeof *agent_rows};

static void agent_usage_text(FILE *out)
{
    cli_flags_help(&cli_agent_table, out);
}

static void print_discovery(const agent_discovery *d)
{
    if (!d->n_endpoints) printf("The agent returned no endpoint.\n");
    for (size_t i = 0; i < d->n_endpoints; i++) {
        const agent_endpoint *e = &d->endpoints[i];
        printf("%2zu. %-7s %s  [%s]\n", i + 1, e->method, e->path, e->api);
        printf("    id: %s\n", e->id);
        if (*e->rationale) printf("    why: %s\n", e->rationale);
    }
    if (d->n_dropped) {
        printf("Dropped (not in the index):");
        for (size_t i = 0; i < d->n_dropped; i++) printf("%s %s", i ? "," : "", d->dropped[i]);
        printf("\n");
    }
    if (d->n_subqueries) {
        printf("Sub-tasks searched:");
        for (size_t i = 0; i < d->n_subqueries; i++)
            printf("%s \"%s\"", i ? "," : "", d->subqueries[i]);
        printf("\n");
    }
    printf("Tokens: prompt %zu, completion %zu, total %zu over %zu LLM call%s%s\n", d->usage.prompt,
           d->usage.completion, d->usage.total, d->usage.calls, d->usage.calls == 1 ? "" : "s",
           d->usage.estimated ? " (cl100k estimates: the server sent no usage)" : "");
    if (d->tool_errors) printf("Tool calls answered with an error: %u\n", d->tool_errors);
    if (d->note) printf("Note: %s\n", d->note);
}

int cli_cmd_agent(int argc, char **argv)
{
    agent_opts ao = {0};
    const char *task = NULL;
    int r = cli_flags_take_task("agent", &cli_agent_table, agent_usage_text, argc, argv, &ao, &task,
                                "name the task: apidex agent \"TASK\"");
    if (r) return r == CLI_FLAGS_HELP ? CLI_OK : r;
    agent_discover_options o = ao.o;
    o.tools = ao.tools == 0 ? AGENT_TOOLS_SUMMARY : AGENT_TOOLS_QUERY;
    o.max_steps = (unsigned)ao.max_steps;
    const char **apis = ao.apis, *db = ao.db;
    size_t n_apis = ao.n_apis;
    bool json = ao.json, verbose = ao.verbose;
    cli_llm_flags lf = ao.llm;
    if (n_apis) o.apis = apis;
    if (verbose) {
        o.trace = cli_trace_stderr;
        o.trace_ctx = (void *)"agent";
    }
    agent_llm *llm = NULL;
    int code = cli_llm_open(&lf, true, &llm);
    if (code != CLI_OK) return code;

    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    search_engine *eng = NULL;
    agent_discovery *d = NULL;
    int rc = cli_index_search_open(cli_db_path(db), &idx, &eng, &err);
    if (rc) {
        cli_print_error(&err);
        code = CLI_FAILURE;
    } else if (n_apis && (code = cli_check_apis("agent", idx, apis, n_apis)) != CLI_OK) {
        /* cli_check_apis said why */
    } else if ((rc = agent_discover(llm, idx, eng, task, &o, &d, &err)) != 0) {
        cli_print_error(&err);
        code = llm_exit_code(rc);
    } else if (json) {
        core_buf b;
        core_buf_init(&b, 0);
        code = cli_buf_print(&b, agent_discovery_write_json(d, task, o.tools, &b));
    } else {
        print_discovery(d);
    }
    agent_discovery_free(d);
    search_engine_close(eng);
    store_close(idx);
    agent_llm_close(llm);
    return code;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_agent(FILE *out)
{
    agent_usage_text(out);
}
