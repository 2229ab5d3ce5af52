/* apidex search: endpoints for a task by relevance, and the plan that calls them. */
#include "cli/cli.h"

#include "embed/embed.h"
#include "search/search.h"
#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_FILTERS = 32 };

typedef struct search_opts {
    search_query q;
    const char *apis[MAX_FILTERS], *tags[MAX_FILTERS], *methods[MAX_FILTERS];
    size_t n_apis, n_tags, n_methods;
    const char *db;
    bool json;
    int color, all_versions;
    double usage_prior;
    cli_embed_flags embed;
} search_opts;

static const char *const http_methods[] = {"GET",   "PUT",     "POST",  "DELETE", "HEAD",
                                           "PATCH", "OPTIONS", "TRACE", NULL};
static const char *const duplicates[] = {"prefer-newest", "all", NULL};
#define TOO_MANY "%s: at most %d filters of one kind"

static const cli_flag search_rows[] = {
    CLI_TEXT(
        "usage: apidex search \"TASK\" [--db FILE] [-k N | --adaptive] [--api A]... [--tag T]...\n"
        "                     [--method M]... [--include-deprecated] [--budget N] [--json]\n"),
    CLI_SWITCH("--json", NULL, search_opts, json, NULL),
    CLI_SWITCH("--include-deprecated", NULL, search_opts, q.include_deprecated, NULL),
    CLI_SIZE("-k", NULL, search_opts, q.k, 1, 1000,
             "  -k N                 distinct endpoints to return (default 10)\n"),
    CLI_SWITCH("--adaptive", NULL, search_opts, q.adaptive,
               "  --adaptive           return only what the task needs (primaries + producers)\n"),
    CLI_TEXT("  results are ordered by relevance; the plan after them gives the call order and\n"
             "  where each step's inputs come from (an earlier step, the task, the caller)\n"
             "  --api/--tag/--method filters (repeatable)\n"),
    CLI_LIST("--api", NULL, search_opts, apis, n_apis, NULL, MAX_FILTERS - 1, TOO_MANY, NULL),
    CLI_LIST("--tag", NULL, search_opts, tags, n_tags, NULL, MAX_FILTERS - 1, TOO_MANY, NULL),
    CLI_SIZE("--budget", NULL, search_opts, q.budget, 0, 10000000,
             "  --budget N           the whole output (list and the endpoints' documentation and\n"
             "                       schemas) within N cl100k tokens\n"),
    CLI_STRING("--db", NULL, search_opts, db,
               "  --db FILE            index file (default $APIDEX_DB, the registry file's db,\n"
               "                       or ./apidex.db)\n"),
    CLI_LIST("--method", NULL, search_opts, methods, n_methods, http_methods, MAX_FILTERS - 1,
             TOO_MANY,
             "  --method GET|PUT|POST|DELETE|HEAD|PATCH|OPTIONS|TRACE  (any case, repeatable)\n"),
    CLI_CHOICE("--color", NULL, search_opts, color, cli_color_names,
               "  --color auto|always|never  colour the results (auto: on a terminal, unless "
               "NO_COLOR)\n"),
    CLI_TEXT("  --mode lexical|dense|hybrid  lexical is the default; dense and hybrid need the\n"
             "                       index's vectors (apidex index ... --model M; docs/SEARCH.md)\n"
             "  --hybrid-weight W    hybrid: W * lexical + (1 - W) * cosine instead of rank "
             "fusion\n"),
    CLI_DOUBLE("--usage-prior", NULL, search_opts, usage_prior, 0, 0.2, false,
               "  --usage-prior W      weigh the uses reported with apidex feedback (FILE.usage):\n"
               "                       a used endpoint adds up to W times the best score (W in\n"
               "                       [0, 0.2]; 0, the default: off; docs/SEARCH.md)\n"),
    CLI_CHOICE("--duplicates", NULL, search_opts, all_versions, duplicates,
               "  --duplicates prefer-newest|all  of APIs that are one service (apidex list\n"
               "                       --duplicates), answer from the newest (default) or all\n"),
    CLI_INCLUDE(search_opts, embed, &cli_embed_table),
};
const cli_flag_table cli_search_table = {search_rows, sizeof search_rows / sizeof *search_rows};

static void search_usage(FILE *out)
{
    cli_flags_help(&cli_search_table, out);
}

/* The answer's match: "match", "confidence", and the words when it is weak or none ("note",
   with "closest_apis" for none); the same fields as /v1/search and search_endpoints. */
static void json_match(const search_result *res, core_buf *b)
{
    core_buf_printf(b, ",\"match\":\"%s\",\"confidence\":%.3f", search_match_name(res->match),
                    res->confidence);
    core_buf words;
    core_buf_init(&words, 0);
    if (search_match_words(res, &words) == 0 && words.len) {
        core_buf_puts(b, ",\"note\":");
        core_buf_json_str(b, words.data, words.len);
    }
    core_buf_free(&words);
    if (res->match != SEARCH_MATCH_NONE) return;
    const char *apis[SEARCH_CLOSEST_APIS];
    size_t n = search_closest_apis(res, apis, SEARCH_CLOSEST_APIS);
    core_buf_puts(b, ",\"closest_apis\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) core_buf_putc(b, ',');
        core_buf_json_str(b, apis[i], strlen(apis[i]));
    }
    core_buf_putc(b, ']');
}

/* The words for a weak match or none, on a line of their own before the list. */
static void text_match(const search_result *res, core_buf *out)
{
    size_t before = out->len;
    if (search_match_words(res, out) == 0 && out->len > before) core_buf_puts(out, "\n\n");
}

static void render_json(const search_result *res, const search_query *q, size_t n_hits, bool plan,
                        core_buf *out)
{
    core_buf *bp = out;
#define b (*bp)
    core_buf_puts(&b, "{\"query\":");
    core_buf_json_str(&b, q->text, strlen(q->text));
    core_buf_printf(&b, ",\"adaptive\":%s,\"elapsed_ms\":%.3f", q->adaptive ? "true" : "false",
                    res->elapsed_ms);
    json_match(res, &b);
    core_buf_puts(&b, ",\"results\":[");
    for (size_t i = 0; i < n_hits; i++) {
        const search_hit *h = &res->hits[i];
        core_buf_printf(&b, "%s{\"rank\":%zu,\"id\":", i ? "," : "", i + 1);
        core_buf_json_str(&b, h->id, strlen(h->id));
        core_buf_puts(&b, ",\"api\":");
        core_buf_json_str(&b, h->api, strlen(h->api));
        core_buf_puts(&b, ",\"method\":");
        core_buf_json_str(&b, h->method, strlen(h->method));
        core_buf_puts(&b, ",\"path\":");
        core_buf_json_str(&b, h->path, strlen(h->path));
        core_buf_puts(&b, ",\"operation_id\":");
        if (h->operation_id)
            core_buf_json_str(&b, h->operation_id, strlen(h->operation_id));
        else
            core_buf_puts(&b, "null");
        core_buf_puts(&b, ",\"summary\":");
        if (h->summary) /* plain text already (search.h) */
            core_buf_json_str(&b, h->summary, strlen(h->summary));
        else
            core_buf_puts(&b, "null");
        core_buf_printf(&b,
                        ",\"score\":%.4f,\"confidence\":%.3f,\"role\":\"%s\",\"why\":", h->score,
                        h->confidence, h->role == SEARCH_ROLE_PRODUCER ? "producer" : "primary");
        core_buf_json_str(&b, h->why ? h->why : "", h->why ? strlen(h->why) : 0);
        core_buf_puts(&b, ",\"needs\":[");
        for (size_t l = 0; l < h->n_links; l++) {
            core_buf_puts(&b, l ? ",{\"param\":" : "{\"param\":");
            core_buf_json_str(&b, h->links[l].param, strlen(h->links[l].param));
            core_buf_puts(&b, ",\"producer\":");
            core_buf_json_str(&b, h->links[l].producer_id, strlen(h->links[l].producer_id));
            core_buf_putc(&b, '}');
        }
        core_buf_puts(&b, "]}");
    }
    core_buf_putc(&b, ']');
    if (plan)
        cli_search_plan_json(res, &b);
    else
        core_buf_printf(&b, ",\"plan\":[],\"plan_omitted\":%zu", res->n_plan);
    if (res->context) {
        core_buf_printf(&b, ",\"context_tokens\":%zu,\"context\":", res->context_tokens);
        core_buf_json_str(&b, res->context, strlen(res->context));
    }
    if (n_hits < res->n_hits) core_buf_printf(&b, ",\"omitted\":%zu", res->n_hits - n_hits);
    core_buf_puts(&b, "}\n");
#undef b
}

static void render_text(const search_result *res, size_t n_hits, bool plan, size_t budget,
                        core_buf *out)
{
    text_match(res, out);
    if (!res->n_hits) return;
    for (size_t i = 0; i < n_hits; i++) {
        const search_hit *h = &res->hits[i];
        core_buf_printf(out, "%2zu. %-7s %s  [%s]%s\n", i + 1, h->method, h->path, h->api,
                        h->role == SEARCH_ROLE_PRODUCER ? "  (producer)" : "");
        core_buf_printf(out, "    id: %s   score: %.3f   confidence: %.2f\n", h->id, h->score,
                        h->confidence);
        if (h->summary) core_buf_printf(out, "    %s\n", h->summary);
        for (size_t l = 0; l < h->n_links; l++) {
            const char *pid = h->links[l].producer_id;
            const search_hit *p = NULL;
            for (size_t k = 0; k < res->n_hits && !p; k++)
                if (!strcmp(res->hits[k].id, pid)) p = &res->hits[k];
            if (p)
                core_buf_printf(out, "    needs %s <- %s %s\n", h->links[l].param, p->method,
                                p->path);
            else
                core_buf_printf(out, "    needs %s <- %s\n", h->links[l].param, pid);
        }
        if (h->why && *h->why) core_buf_printf(out, "    matched: %s\n", h->why);
    }
    if (n_hits < res->n_hits)
        core_buf_printf(out, "(%zu more endpoints left out to stay within --budget %zu)\n",
                        res->n_hits - n_hits, budget);
    if (plan)
        cli_search_plan_text(res, out);
    else if (res->n_plan)
        core_buf_printf(out, "(the plan, %zu step%s, left out to stay within --budget %zu)\n",
                        res->n_plan, res->n_plan == 1 ? "" : "s", budget);
    if (res->context)
        core_buf_printf(out,
                        "\n%s\n(context: %zu tokens; the whole output is within --budget "
                        "%zu)\n",
                        res->context, res->context_tokens, budget);
}

/*
 * Runs the search and renders it. With a budget, everything printed counts: the context
 * gets what the list leaves (the search is rerun with a smaller context budget until the
 * whole fits; runs are deterministic, so the list does not change); when the list and the
 * plan alone are too long, the plan goes first (whole, never half a plan), then the list's
 * last endpoints.
 */
static int run_render(search_engine *eng, search_query *q, bool json, core_buf *out,
                      search_result **res_out, apidex_error *err)
{
    size_t budget = q->budget, ctx = q->budget;
    search_result *res = NULL;
    int rc = 0;
    const text_bpe *bpe = text_bpe_default();
    for (int attempt = 0; attempt < 12; attempt++) {
        search_result_free(res);
        res = NULL;
        q->budget = ctx;
        rc = search_engine_run(eng, q, &res, err);
        if (rc) break;
        size_t n_hits = res->n_hits;
        bool plan = true;
        for (;;) {
            core_buf_reset(out);
            if (json)
                render_json(res, q, n_hits, plan, out);
            else
                render_text(res, n_hits, plan, budget, out);
            if (out->failed) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
            size_t t = !budget || !bpe ? 0 : text_bpe_count(bpe, out->data, out->len);
            if (t <= budget || (ctx && attempt < 11)) {
                if (t <= budget) {
                    *res_out = res;
                    q->budget = budget;
                    return 0;
                }
                break; /* retry with a smaller context */
            }
            if (plan && res->n_plan) {
                plan = false; /* no context left: the plan goes first (it is whole or none) */
                continue;
            }
            if (!n_hits) break;
            n_hits--; /* then the list gets shorter */
        }
        size_t t = text_bpe_count(bpe, out->data, out->len);
        size_t over = t > budget ? t - budget : 1;
        ctx = ctx > over ? ctx - over : 0;
    }
    q->budget = budget;
    search_result_free(res);
    if (!rc)
        rc = core_error_set(err, APIDEX_ELIMIT,
                            "a budget of %zu tokens is too small for any search output", budget);
    return rc;
}

int cli_cmd_search(int argc, char **argv)
{
    search_opts o = {0};
    int r = cli_flags_take_task("search", &cli_search_table, search_usage, argc, argv, &o,
                                &o.q.text, "name the task: apidex search \"TASK\"");
    if (r) return r == CLI_FLAGS_HELP ? CLI_OK : r;
    search_query q = o.q;
    const char **apis = o.apis;
    size_t n_apis = o.n_apis;
    const char *db = o.db;
    bool json = o.json;
    cli_embed_flags embed_flags = o.embed;
    cli_color color = (cli_color)o.color;
    double usage_prior = o.usage_prior;
    int all_versions = o.all_versions;
    if (n_apis) q.apis = apis;
    if (o.n_tags) q.tags = o.tags;
    if (o.n_methods) q.methods = o.methods;
    q.hybrid_weight = embed_flags.hybrid_weight;
    q.mode = (search_mode)embed_flags.mode;
    embed_provider *embedder = NULL;
    if (q.mode != SEARCH_LEXICAL) {
        int ec = cli_embed_open(&embed_flags, &embedder);
        if (ec != CLI_OK) return ec;
    }
    db = cli_db_path(db);

    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    search_engine *eng = NULL;
    search_result *res = NULL;
    int rc = store_open(db, true, &idx, &err);
    store_info info;
    if (!rc && !store_index_info(idx, &info, &err) && info.n_operations == 0) {
        /* "no endpoint matches" would blame the task */
        char shown[1024];
        store_display(db, shown, sizeof shown);
        fprintf(stderr,
                "apidex search: the index %s is empty (no operations): add specs with "
                "'apidex index PATH... --db %s'\n",
                shown, shown);
        store_close(idx);
        embed_provider_close(embedder);
        return CLI_PROBLEMS;
    }
    if (!rc && n_apis) {
        int ec = cli_check_apis("search", idx, apis, n_apis);
        if (ec != CLI_OK) {
            store_close(idx);
            embed_provider_close(embedder);
            return ec;
        }
    }
    search_params params;
    store_usage *usage = NULL;
    if (usage_prior > 0 || all_versions) {
        search_params_default(&params);
        params.usage_weight = usage_prior;
        params.answer_duplicates = all_versions ? 0 : 1;
        q.params = &params;
    }
    if (!rc && usage_prior > 0) {
        rc = store_usage_load(db, params.usage_half_life * 86400.0, (double)time(NULL), &usage,
                              &err);
        q.params = &params;
        q.usage = usage;
    }
    if (!rc) rc = search_engine_open(idx, &eng, &err);
    if (!rc) search_engine_set_embedder(eng, embedder);
    core_buf out;
    core_buf_init(&out, 0);
    if (!rc) rc = run_render(eng, &q, json, &out, &res, &err);
    if (rc == APIDEX_ELIMIT) {
        fprintf(stderr, "apidex search: %s\n", err.message);
        core_buf_free(&out);
        search_engine_close(eng);
        store_close(idx);
        store_usage_free(usage);
        embed_provider_close(embedder);
        return CLI_USAGE;
    }
    if (rc) {
        core_buf_free(&out);
        cli_print_error(&err);
        search_engine_close(eng);
        store_close(idx);
        store_usage_free(usage);
        embed_provider_close(embedder);
        return rc == APIDEX_EUNSUPPORTED ? CLI_USAGE : CLI_FAILURE;
    }
    if (out.data) {
        if (json)
            fputs(out.data, stdout);
        else
            CLI_PAINTED(color, fputs(out.data, stdout));
    }
    core_buf_free(&out);
    search_result_free(res);
    search_engine_close(eng);
    store_close(idx);
    store_usage_free(usage);
    embed_provider_close(embedder);
    return CLI_OK;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_search(FILE *out)
{
    search_usage(out);
}
