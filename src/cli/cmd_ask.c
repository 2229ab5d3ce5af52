/* apidex ask: askAPI: the endpoints and schemas a question needs, assembled within a
 * token budget, answered by an LLM from that context only, with examples checked. */
#include "cli/cli.h"

#include "agent/agent.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ASK_MAX_APIS = 32 };

typedef struct ask_opts {
    agent_ask_options o;
    const char *apis[ASK_MAX_APIS + 1];
    size_t n_apis;
    const char *db;
    bool json, stream, no_cache;
    cli_llm_flags llm;
} ask_opts;

static int take_cache_ttl(const char *cmd, const char *flag, const char *value, void *opts)
{
    long n = 0;
    if (!cli_arg_long(cmd, flag, value, 1, LONG_MAX, &n)) return CLI_USAGE;
    ((ask_opts *)opts)->o.cache_ttl_s = n;
    return CLI_OK;
}

static const cli_flag ask_rows[] = {
    CLI_TEXT(
        "usage: apidex ask \"QUESTION\" [--api A]... [--budget N] [-k N] [--db FILE] [--json]\n"
        "                  [--context-only] [--stream] [--no-cache] [--cache-ttl S]\n"
        "                  [LLM flags]\n"
        "\n"
        "Retrieves the endpoints a question needs (plus the endpoints producing their\n"
        "inputs and the schemas they use), assembles them within a token budget and has\n"
        "an LLM answer from that context only, citing endpoint ids. JSON examples in the\n"
        "answer are validated against the schema they claim to follow.\n"),
    {.kind = CLI_F_LIST,
     .name = "--api",
     .also = "--apis",
     .at = offsetof(ask_opts, apis),
     .count_at = CLI_FIELD_(ask_opts, n_apis, size_t),
     .cap = ASK_MAX_APIS,
     .too_many = "%s: at most %d APIs",
     .help = "  --api A           only APIs A (repeatable)\n"},
    CLI_SIZE("--budget", NULL, ask_opts, o.budget, 1, 10000000,
             "  --budget N        cl100k tokens of context (default 4000)\n"),
    {.kind = CLI_F_SIZE,
     .name = "-k",
     .also = "--k",
     .at = CLI_FIELD_(ask_opts, o.k, size_t),
     .lo = 1,
     .hi = 100,
     .help = "  -k N              endpoints to retrieve before expansion (default: adaptive)\n"},
    CLI_SWITCH("--json", NULL, ask_opts, json, NULL),
    CLI_SWITCH("--context-only", NULL, ask_opts, o.context_only,
               "  --context-only    print the assembled context; no LLM needed\n"),
    CLI_SWITCH("--stream", NULL, ask_opts, stream,
               "  --stream          print the answer as it arrives\n"),
    CLI_SWITCH("--no-cache", NULL, ask_opts, no_cache,
               "  --no-cache        do not read or write the answer cache\n"),
    CLI_HANDLER("--cache-ttl", NULL, take_cache_ttl, NULL,
                "  --cache-ttl S     seconds a cached answer stays valid (default 86400); the "
                "cache\n"
                "                    lives in $" AGENT_ENV_CACHE " or ~/.cache/apidex\n"),
    CLI_STRING("--db", NULL, ask_opts, db,
               "  --db FILE         index file (default $APIDEX_DB, the registry file's db,\n"
               "                    or ./apidex.db)\n"
               "\n"),
    CLI_INCLUDE(ask_opts, llm, &cli_llm_table),
    CLI_TEXT("Exit status: 0 ok, 2 usage or no LLM configured (use --context-only), 3 failure.\n"),
};
const cli_flag_table cli_ask_table = {ask_rows, sizeof ask_rows / sizeof *ask_rows};

static void ask_usage(FILE *out)
{
    cli_flags_help(&cli_ask_table, out);
}

static void on_delta(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    fwrite(s, 1, n, stdout);
    fflush(stdout);
}

static void print_answer(const agent_answer *a, bool streamed, size_t budget)
{
    if (!a->llm_used) {
        fputs(a->context, stdout);
        if (a->note) fprintf(stderr, "apidex: %s\n", a->note);
    } else if (!streamed) {
        fputs(a->answer, stdout);
    }
    if (a->llm_used)
        fputs("\n\n---\n", stdout);
    else
        fputs("---\n", stdout);
    if (a->truncated) printf("The answer was cut by the token limit (raise --max-tokens).\n");
    if (a->n_cited) {
        printf("cited:");
        for (size_t i = 0; i < a->n_cited; i++) printf(" %s", a->cited[i]);
        printf("\n");
    }
    if (a->n_unknown_citations) {
        printf("cited but not in the context (check them):");
        for (size_t i = 0; i < a->n_unknown_citations; i++) printf(" %s", a->unknown_citations[i]);
        printf("\n");
    }
    for (size_t i = 0; i < a->n_examples; i++) {
        const agent_example_check *e = &a->examples[i];
        if (e->found && e->valid)
            printf("example %zu: valid %s\n", e->index + 1, e->schema);
        else if (e->found)
            printf("example %zu: INVALID against %s: %s\n", e->index + 1, e->schema,
                   e->problem ? e->problem : "");
        else
            printf("example %zu: not checked: %s\n", e->index + 1, e->problem ? e->problem : "");
    }
    size_t schemas = 0, left = 0;
    for (size_t i = 0; i < a->n_items; i++) {
        schemas += a->items[i].is_schema && a->items[i].included;
        left += !a->items[i].included;
    }
    printf("context: %zu of %zu tokens, %zu endpoints, %zu schemas; completeness %.0f%%%s\n",
           a->context_tokens, budget, a->n_endpoints, schemas, a->completeness * 100.0,
           left ? " (raise --budget for the rest)" : "");
    if (a->llm_used)
        printf("LLM: %s, %s\n", a->model ? a->model : "?",
               a->cached ? "cached answer (no tokens spent)" : "");
    if (a->llm_used && !a->cached)
        printf("tokens: prompt %zu, completion %zu, total %zu%s\n", a->usage.prompt,
               a->usage.completion, a->usage.total, a->usage.estimated ? " (estimated)" : "");
}

int cli_cmd_ask(int argc, char **argv)
{
    ask_opts ao = {0};
    const char *question = NULL;
    int r = cli_flags_take_task("ask", &cli_ask_table, ask_usage, argc, argv, &ao, &question,
                                "ask a question: apidex ask \"QUESTION\"");
    if (r) return r == CLI_FLAGS_HELP ? CLI_OK : r;
    agent_ask_options o = ao.o;
    const char **apis = ao.apis, *db = ao.db;
    size_t n_apis = ao.n_apis;
    bool json = ao.json, stream = ao.stream, no_cache = ao.no_cache;
    cli_llm_flags lf = ao.llm;
    if (n_apis) o.apis = apis;
    if (no_cache) o.cache_ttl_s = -1;
    if (!o.budget) o.budget = 4000;

    agent_llm *llm = NULL;
    int code = o.context_only ? CLI_OK : cli_llm_open(&lf, true, &llm);
    if (code != CLI_OK) {
        fprintf(stderr, "apidex ask: --context-only prints the assembled context without an LLM\n");
        return code;
    }
    bool streamed = stream && !json && llm;
    if (streamed) o.on_delta = on_delta;
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    agent_answer *ans = NULL;
    int rc = store_open(cli_db_path(db), true, &idx, &err);
    if (rc) {
        cli_print_error(&err);
        code = CLI_FAILURE;
    } else if (n_apis && (code = cli_check_apis("ask", idx, apis, n_apis)) != CLI_OK) {
        /* cli_check_apis said why */
    } else if ((rc = agent_ask(idx, NULL, llm, question, &o, &ans, &err)) != 0) {
        if (streamed) fputc('\n', stdout);
        cli_print_error(&err);
        code = rc == APIDEX_EINVAL ? CLI_USAGE : CLI_FAILURE;
    } else if (json) {
        core_buf b;
        core_buf_init(&b, 0);
        code = cli_buf_print(&b, agent_answer_write_json(ans, &b));
    } else {
        print_answer(ans, streamed && ans->llm_used, o.budget);
    }
    agent_answer_free(ans);
    store_close(idx);
    agent_llm_close(llm);
    return code;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_ask(FILE *out)
{
    ask_usage(out);
}
