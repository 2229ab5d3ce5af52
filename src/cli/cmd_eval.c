/*
 * apidex eval: retrieval quality on RestBench-format query files, over a
 * temporary index of the given specs (or an existing --db), and --sweep over
 * chunking strategies in the layout of the paper's Tables 2 and 3.
 */
#include "cli/cli.h"

#include "build/build.h"
#include "chunk/chunk.h"
#include "embed/embed.h"
#include "eval/eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct eval_args {
    char **specs;
    size_t n_specs;
    char **queries;
    size_t n_queries;
    const char *db, *strategy, *filters;
    eval_options opt;
    bool json, per_query, sweep;
    bool list_params, markdown; /* --list-params [--markdown] */
    search_params params;       /* --param */
    const char *sweep_param;    /* --sweep-param NAME=V1,V2,... */
    const char *usage_check;    /* --usage-check W1,W2,... */
    bool agent_on, no_llm;      /* --agent, --no-llm */
    int agent_mode;             /* --agent: an index into agent_modes, -1 when not given */
    long limit, max_steps;      /* --limit, --max-steps as given (0: not given) */
    cli_eval_agent_args agent;  /* its options and the LLM flags */
    cli_embed_flags embed;      /* --model, --embed-url, --embed-key, --hybrid-weight */
    embed_provider *embedder;   /* dense and hybrid modes: builds and queries the vectors */
} eval_args;

static const char *const agent_modes[] = {"summary", "query", NULL}; /* agent_tools_mode */

static int take_param(const char *cmd, const char *flag, const char *value, void *opts)
{
    apidex_error perr;
    core_error_clear(&perr);
    if (!search_params_parse(&((eval_args *)opts)->params, value, &perr)) return CLI_OK;
    cli_print_error(&perr);
    return CLI_USAGE;
}

#define STRINGIFY_(x) #x
#define STRINGIFY(x)  STRINGIFY_(x)

static const cli_flag eval_rows[] = {
    CLI_TEXT("usage: apidex eval --specs PATH... --queries FILE.json... [-k N] [--strategy NAME]\n"
             "                   [--filters LIST] [--budget N] [--mode M] [--db FILE] [--json]\n"
             "                   [--per-query] [--sweep] [--param NAME=VALUE]...\n"
             "                   [--sweep-param NAME=V1,V2,...] [--list-params [--markdown]]\n"),
    CLI_WORDS("--specs", eval_args, specs, n_specs,
              "  --specs PATH...    specs to index into a temporary index (one index for all)\n"),
    CLI_WORDS("--queries", eval_args, queries, n_queries,
              "  --queries FILE...  RestBench format: [{\"query\", \"solution\": [\"GET /p\"]}]\n"),
    CLI_STRING("--db", NULL, eval_args, db,
               "  --db FILE          evaluate an existing index instead of --specs\n"),
    CLI_SIZE("-k", NULL, eval_args, opt.k, 1, 1000,
             "  -k N               fixed cut-off in distinct endpoints (default 10)\n"),
    CLI_SIZE("--budget", NULL, eval_args, opt.budget, 1, 10000000,
             "  --budget N         context budget of the adaptive answer (default " STRINGIFY(
                 EVAL_DEFAULT_BUDGET) ")\n"),
    CLI_STRING("--strategy", NULL, eval_args, strategy,
               "  --strategy NAME    chunking strategy of the temporary index; with --sweep a\n"
               "                     comma-separated list (default: every strategy)\n"),
    CLI_STRING("--filters", NULL, eval_args, filters, NULL),
    CLI_SWITCH("--json", NULL, eval_args, json, NULL),
    CLI_SWITCH(
        "--sweep", NULL, eval_args, sweep,
        "  --sweep            strategy x k in {5, 10, 20}: a markdown table (paper layout)\n"),
    CLI_SWITCH("--per-query", NULL, eval_args, per_query,
               "  --per-query        every query's numbers (and misses) too\n"),
    CLI_HANDLER("--param", NULL, take_param, NULL,
                "  --param NAME=VALUE set a search parameter (repeatable; --list-params lists "
                "them)\n"),
    CLI_STRING("--sweep-param", NULL, eval_args, sweep_param,
               "  --sweep-param NAME=V1,V2,...  the same set once per value of one parameter, on\n"
               "                     one index: a table with a row per value\n"),
    CLI_SWITCH("--list-params", NULL, eval_args, list_params,
               "  --list-params      the search parameters with their defaults and ranges\n"
               "                     (with --markdown: the table of docs/SEARCH.md)\n"),
    CLI_SWITCH("--markdown", NULL, eval_args, markdown, NULL),
    CLI_STRING("--usage-check", NULL, eval_args, usage_check,
               "  --usage-check W1,W2,...  the usage prior's check at each weight: adversarial\n"
               "                     uses on every non-gold top-20 endpoint (pairs inverted),\n"
               "                     honest uses of the gold ones (recall); JSON lines\n"),
    CLI_CHOICE(
        "--agent", NULL, eval_args, agent_mode, agent_modes,
        "  --agent MODE       the Discovery Agent (an LLM) with tools summary or query, next\n"
        "                     to the search at k: the paper's Table 4 (--limit N: the first N\n"
        "                     queries per file; --max-steps N); needs an LLM (docs/LLM.md)\n"),
    CLI_LONG("--limit", NULL, eval_args, limit, 1, 100000, NULL),
    CLI_LONG("--max-steps", NULL, eval_args, max_steps, 1, 100000, NULL),
    CLI_SWITCH(
        "--no-llm", NULL, eval_args, no_llm,
        "  --no-llm           summary/query strategies: deterministic texts even when an LLM\n"
        "                     is configured\n"),
    CLI_TEXT(
        "  --mode M           lexical (default), dense or hybrid: the temporary index is\n"
        "                     embedded with the model below (docs/SEARCH.md)\n"
        "  --hybrid-weight W  hybrid: W * lexical + (1 - W) * cosine instead of rank fusion\n"),
    CLI_INCLUDE(eval_args, embed, &cli_embed_table),
    CLI_TEXT("\nWith --agent:\n"),
    CLI_INCLUDE(eval_args, agent.llm, &cli_llm_table),
};
const cli_flag_table cli_eval_table = {eval_rows, sizeof eval_rows / sizeof *eval_rows};

static void eval_usage(FILE *out)
{
    cli_flags_help(&cli_eval_table, out);
}

/* A fresh directory for temporary indexes, under $TMPDIR (or /tmp). */
static char *temp_dir(void)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    size_t n = strlen(base) + 32;
    char *d = malloc(n);
    if (!d) return NULL;
    snprintf(d, n, "%s/apidex-eval-XXXXXX", base);
    if (!mkdtemp(d)) {
        free(d);
        return NULL;
    }
    return d;
}

/* Removes the index files of a temp dir and the dir (nothing else was put there). */
static void temp_remove(const char *dir, const char *db)
{
    unlink(db);
    rmdir(dir);
}

/* Builds the temporary index for one strategy; returns a CLI_* code. */
static int build_temp(const eval_args *a, const char *strategy, const char *db, bool *problems)
{
    build_options bo = {
        .strategy = strategy, .filters = a->filters, .full = true, .embedder = a->embedder};
    cli_index_flags flags = {.progress = !a->json && cli_stderr_is_tty(), .quiet = false};
    store_build_report rep = {0};
    apidex_error err;
    core_error_clear(&err);
    cli_llm_refine *llm_texts = NULL;
    int code = cli_llm_refine_begin(&bo, &a->agent.llm, a->no_llm, flags.progress, &llm_texts);
    if (code != CLI_OK)
        core_error_set(&err, APIDEX_EINVAL,
                       "the LLM for the summary/query texts is not usable "
                       "(--no-llm indexes without it)");
    if (code == CLI_OK) code = cli_build_index(db, a->specs, a->n_specs, &bo, &flags, &rep, &err);
    cli_llm_refine_end(llm_texts, a->json);
    if (code == CLI_PROBLEMS)
        *problems = true;
    else if (code != CLI_OK)
        cli_print_error(&err);
    if (code == CLI_OK || code == CLI_PROBLEMS) {
        if (!a->json)
            fprintf(stderr, "indexed %zu APIs (%zu operations, %zu chunks) with %s in %.2f s\n",
                    rep.n_apis, rep.n_operations, rep.n_chunks, strategy ? strategy : "hybrid",
                    rep.seconds);
        return CLI_OK;
    }
    return code;
}

/* Opens db and runs the set; *out: eval_report_free. Returns a CLI_* code. */
static int run_on(const char *db, const eval_set *set, const eval_options *opt,
                  embed_provider *embedder, eval_report **out)
{
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    search_engine *eng = NULL;
    int rc = store_open(db, true, &idx, &err);
    double t0 = core_now();
    if (!rc) rc = search_engine_open(idx, &eng, &err);
    if (!rc) search_engine_set_embedder(eng, embedder);
    double open_ms = (core_now() - t0) * 1000.0;
    if (!rc) rc = eval_run(eng, idx, set, opt, out, &err);
    if (!rc) (*out)->engine_open_ms = open_ms;
    search_engine_close(eng);
    store_close(idx);
    if (rc) {
        cli_print_error(&err);
        return rc == APIDEX_EUNSUPPORTED ? CLI_USAGE : CLI_FAILURE;
    }
    return CLI_OK;
}

static int print_report(const eval_args *a, const eval_report *r)
{
    core_buf b;
    core_buf_init(&b, 0);
    int rc =
        a->json ? eval_report_json(r, a->per_query, &b) : eval_report_text(r, a->per_query, &b);
    if (!rc && b.data) fputs(b.data, stdout);
    core_buf_free(&b);
    return rc ? CLI_FAILURE : CLI_OK;
}

/* One row of a parameter sweep: the set's numbers with NAME set to one value. */
static void param_row(core_buf *b, bool json, const char *name, const char *value,
                      const eval_report *r)
{
    if (json) {
        core_buf_puts(b, "{\"param\":");
        core_buf_json_str(b, name, strlen(name));
        core_buf_printf(b,
                        ",\"value\":%s,\"recall_at\":{\"5\":%.4f,\"10\":%.4f,\"20\":%.4f},"
                        "\"complete_at\":{\"5\":%.4f,\"10\":%.4f,\"20\":%.4f},\"adaptive\":{"
                        "\"recall\":%.4f,\"precision\":%.4f,\"f1\":%.4f,\"mean_size\":%.4f},"
                        "\"latency_ms\":{\"p50\":%.3f}}\n",
                        value, r->recall_at[0], r->recall_at[1], r->recall_at[2], r->complete_at[0],
                        r->complete_at[1], r->complete_at[2], r->adaptive_recall,
                        r->adaptive_precision, r->adaptive_f1, r->adaptive_mean_size,
                        r->latency_ms[0]);
        return;
    }
    core_buf_printf(b, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.3f |\n",
                    value, r->recall_at[0], r->recall_at[1], r->recall_at[2], r->complete_at[0],
                    r->adaptive_recall, r->adaptive_precision, r->adaptive_f1,
                    r->adaptive_mean_size, r->latency_ms[0]);
}

/* --sweep-param NAME=V1,V2,...: the set once per value, on one index. */
static int run_param_sweep(const eval_args *a, const char *db, const eval_set *set)
{
    const char *eq = strchr(a->sweep_param, '=');
    char name[128];
    size_t nl = eq ? (size_t)(eq - a->sweep_param) : 0;
    if (!eq || !nl || nl >= sizeof name || !eq[1]) {
        fprintf(stderr, "apidex eval: --sweep-param is NAME=V1,V2,..., not '%s'\n", a->sweep_param);
        return CLI_USAGE;
    }
    memcpy(name, a->sweep_param, nl);
    name[nl] = '\0';
    char *values = strdup(eq + 1);
    if (!values) return CLI_FAILURE;
    core_buf b;
    core_buf_init(&b, 0);
    if (!a->json)
        core_buf_printf(&b,
                        "| %s | R@5 | R@10 | R@20 | all@5 | adaptive R | P | F1 | size | p50 ms |\n"
                        "|---|---|---|---|---|---|---|---|---|---|\n",
                        name);
    int code = CLI_OK;
    char *save = NULL;
    for (char *v = strtok_r(values, ",", &save); v && code == CLI_OK;
         v = strtok_r(NULL, ",", &save)) {
        eval_args one = *a;
        apidex_error err;
        core_error_clear(&err);
        char *end = NULL;
        double x = strtod(v, &end);
        if (*end || search_params_set(&one.params, name, x, &err)) {
            if (!err.message[0])
                core_error_set(&err, APIDEX_EINVAL, "--sweep-param %s: '%s' is not a number", name,
                               v);
            cli_print_error(&err);
            code = CLI_USAGE;
            break;
        }
        one.opt.params = &one.params;
        eval_report *r = NULL;
        code = run_on(db, set, &one.opt, a->embedder, &r);
        if (code == CLI_OK) param_row(&b, a->json, name, v, r);
        eval_report_free(r);
    }
    if (code == CLI_OK && b.data) fputs(b.data, stdout);
    core_buf_free(&b);
    free(values);
    return code;
}

/* --list-params: one line per parameter; with --markdown, the table docs/SEARCH.md holds. */
static void list_params(bool markdown)
{
    if (markdown) fputs("| name | default | range | what it does |\n|---|---|---|---|\n", stdout);
    for (size_t i = 0; i < search_param_count(); i++) {
        const search_param_info *pi = search_param_at(i);
        if (markdown)
            printf("| `%s` | %g | [%g, %g] | %s |\n", pi->name, pi->def, pi->min, pi->max, pi->doc);
        else
            printf("%-26s %-8g [%g, %g]  %s\n", pi->name, pi->def, pi->min, pi->max, pi->doc);
    }
}

/* --usage-check W1,W2,...: eval_usage_check at each weight, one JSON line each. */
static int run_usage_check(const eval_args *a, const char *db, const eval_set *set)
{
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    search_engine *eng = NULL;
    int rc = cli_index_search_open(db, &idx, &eng, &err);
    core_buf b;
    core_buf_init(&b, 0);
    for (const char *w = a->usage_check; !rc && *w;) {
        char *end = NULL;
        double weight = strtod(w, &end);
        if (end == w || (*end && *end != ',') || !(weight > 0 && weight <= 0.2)) {
            rc = core_error_set(&err, APIDEX_EINVAL,
                                "--usage-check takes weights in (0, 0.2], comma-separated");
            break;
        }
        eval_usage_report r;
        rc = eval_usage_check(eng, idx, set, &a->params, weight, &r, &err);
        core_buf_reset(&b);
        if (!rc) rc = eval_usage_json(&r, &b);
        if (!rc && b.data) fputs(b.data, stdout);
        w = *end ? end + 1 : end;
    }
    core_buf_free(&b);
    search_engine_close(eng);
    store_close(idx);
    if (rc) cli_print_error(&err);
    return rc == APIDEX_EINVAL ? CLI_USAGE : rc ? CLI_FAILURE : CLI_OK;
}

static int run_single(const eval_args *a, const eval_set *set, bool *problems)
{
    char *dir = NULL, *db = NULL;
    const char *use = a->db;
    int code = CLI_OK;
    if (!use) {
        dir = temp_dir();
        size_t n = dir ? strlen(dir) + 16 : 0;
        db = dir ? malloc(n) : NULL;
        if (!db) {
            fprintf(stderr, "apidex eval: cannot create a temporary directory\n");
            free(dir);
            return CLI_FAILURE;
        }
        snprintf(db, n, "%s/eval.db", dir);
        code = build_temp(a, a->strategy, db, problems);
        use = db;
    }
    eval_report *r = NULL;
    if (code == CLI_OK && a->agent_on) {
        cli_eval_agent_args ag = a->agent;
        ag.k = a->opt.k;
        ag.json = a->json;
        ag.per_query = a->per_query;
        code = cli_eval_agent(use, set, &ag);
    } else if (code == CLI_OK && a->sweep_param) {
        code = run_param_sweep(a, use, set);
    } else if (code == CLI_OK && a->usage_check) {
        code = run_usage_check(a, use, set);
    } else {
        if (code == CLI_OK) code = run_on(use, set, &a->opt, a->embedder, &r);
        if (code == CLI_OK) code = print_report(a, r);
    }
    eval_report_free(r);
    if (dir) temp_remove(dir, db);
    free(db);
    free(dir);
    return code;
}

static int run_sweep(const eval_args *a, const eval_set *set, bool *problems)
{
    /* the strategies: the given comma-separated list, or all of them */
    char names[1024];
    if (a->strategy) {
        snprintf(names, sizeof names, "%s", a->strategy);
    } else {
        names[0] = '\0';
        size_t len = 0;
        for (int s = CHUNK_NOSPLIT; s <= CHUNK_HYBRID; s++) {
            int w = snprintf(names + len, sizeof names - len, "%s%s", len ? "," : "",
                             chunk_strategy_name((chunk_strategy)s));
            if (w > 0) len += (size_t)w;
        }
    }
    eval_sweep_row rows[32];
    char *saved[32];
    size_t n_rows = 0;
    char *dir = temp_dir();
    if (!dir) {
        fprintf(stderr, "apidex eval: cannot create a temporary directory\n");
        return CLI_FAILURE;
    }
    char db[4096];
    snprintf(db, sizeof db, "%s/sweep.db", dir);
    int code = CLI_OK;
    char *save = NULL;
    for (char *tok = strtok_r(names, ",", &save); tok && n_rows < 32 && code == CLI_OK;
         tok = strtok_r(NULL, ",", &save)) {
        code = build_temp(a, tok, db, problems);
        eval_report *r = NULL;
        eval_options o = a->opt;
        o.k = 20; /* one ranked list; the 5/10/20 cut-offs come from it */
        if (code == CLI_OK) code = run_on(db, set, &o, a->embedder, &r);
        if (code == CLI_OK) {
            saved[n_rows] = strdup(tok);
            eval_sweep_row *row = &rows[n_rows];
            row->strategy = saved[n_rows] ? saved[n_rows] : "?";
            for (int j = 0; j < 3; j++) {
                row->recall[j] = r->recall_at[j];
                row->precision[j] = r->precision_at[j];
                row->f1[j] = r->f1_at[j];
            }
            n_rows++;
        }
        eval_report_free(r);
    }
    temp_remove(dir, db);
    free(dir);
    if (code == CLI_OK) {
        core_buf b;
        core_buf_init(&b, 0);
        if (a->json) {
            core_buf_puts(&b, "{\"queries\":");
            core_buf_printf(&b, "%zu,\"sweep\":[", set->n);
            for (size_t i = 0; i < n_rows; i++) {
                const eval_sweep_row *r = &rows[i];
                core_buf_puts(&b, i ? ",{\"strategy\":" : "{\"strategy\":");
                core_buf_json_str(&b, r->strategy, strlen(r->strategy));
                static const char *const ks[3] = {"5", "10", "20"};
                for (int m = 0; m < 3; m++) {
                    const double *v = m == 0 ? r->recall : m == 1 ? r->precision : r->f1;
                    core_buf_printf(&b, ",\"%s\":{",
                                    m == 0   ? "recall"
                                    : m == 1 ? "precision"
                                             : "f1");
                    for (int j = 0; j < 3; j++)
                        core_buf_printf(&b, "%s\"%s\":%.4f", j ? "," : "", ks[j], v[j]);
                    core_buf_putc(&b, '}');
                }
                core_buf_putc(&b, '}');
            }
            core_buf_puts(&b, "]}\n");
        } else {
            eval_sweep_markdown(rows, n_rows, &b);
        }
        if (b.data) fputs(b.data, stdout);
        core_buf_free(&b);
    }
    for (size_t i = 0; i < n_rows; i++) free(saved[i]);
    return code;
}

int cli_cmd_eval(int argc, char **argv)
{
    eval_args a = {0};
    search_params_default(&a.params);
    a.opt.params = &a.params;
    a.specs = calloc((size_t)argc, sizeof *a.specs);
    a.queries = calloc((size_t)argc, sizeof *a.queries);
    if (!a.specs || !a.queries) {
        free(a.specs);
        free(a.queries);
        return CLI_FAILURE;
    }
    int code = CLI_OK;
    a.agent_mode = -1;
    for (int i = 1; i < argc && code == CLI_OK; i++) {
        int r = cli_flags_take("eval", &cli_eval_table, eval_usage, argc, argv, &i, &a);
        if (r == CLI_FLAGS_HELP) {
            free(a.specs);
            free(a.queries);
            return CLI_OK;
        }
        if (r < 0) code = CLI_USAGE;
        if (!r) code = cli_arg_unknown("eval", argv[i]);
    }
    if (a.agent_mode >= 0) {
        a.agent_on = true;
        a.agent.tools = a.agent_mode == 0 ? AGENT_TOOLS_SUMMARY : AGENT_TOOLS_QUERY;
    }
    if (a.limit) a.agent.limit = (size_t)a.limit;
    if (a.max_steps) a.agent.max_steps = (unsigned)(a.max_steps > 64 ? 64 : a.max_steps);
    if (code == CLI_OK && a.markdown && !a.list_params)
        code = cli_usage_error("eval", "--markdown goes with --list-params");
    if (code == CLI_OK && a.list_params) {
        list_params(a.markdown);
        free(a.specs);
        free(a.queries);
        return CLI_OK;
    }
    if (code == CLI_OK &&
        (!a.n_queries || (!a.n_specs && !a.db) || (a.n_specs && a.db) || (a.sweep && !a.n_specs) ||
         (a.sweep && a.agent_on) || (a.sweep_param && (a.sweep || a.agent_on)))) {
        code = cli_usage_error("eval", "give --queries and either --specs or --db "
                                       "(--sweep needs --specs)");
    }
    if (code != CLI_OK) {
        free(a.specs);
        free(a.queries);
        return code;
    }

    eval_set *set = NULL;
    apidex_error err;
    core_error_clear(&err);
    if (eval_set_new(&set)) code = CLI_FAILURE;
    for (size_t i = 0; i < a.n_queries && code == CLI_OK; i++)
        if (eval_set_load(set, a.queries[i], &err)) {
            cli_print_error(&err);
            code = err.code == APIDEX_ENOMEM ? CLI_FAILURE : CLI_USAGE;
        }
    a.opt.hybrid_weight = a.embed.hybrid_weight;
    a.opt.mode = (search_mode)a.embed.mode;
    if (code == CLI_OK && a.opt.mode != SEARCH_LEXICAL)
        code = cli_embed_open(&a.embed, &a.embedder);
    bool problems = false;
    if (code == CLI_OK)
        code = a.sweep ? run_sweep(&a, set, &problems) : run_single(&a, set, &problems);
    embed_provider_close(a.embedder);
    eval_set_free(set);
    free(a.specs);
    free(a.queries);
    if (code == CLI_OK && problems) code = CLI_PROBLEMS;
    return code;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_eval(FILE *out)
{
    eval_usage(out);
}
