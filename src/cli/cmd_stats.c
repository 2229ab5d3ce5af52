/* apidex stats: token statistics (documents, documents over the
 * embedding limit, mean and max tokens per document and per operation) for
 * cl100k and WordPiece, before and after each preprocessing filter in turn. */
#include "cli/cli.h"

#include "prep/prep.h"
#include "oas/oas.h"
#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Filters in the order the document cleaning applies them (PREP_ALL_CLEANING, then the
   chunking paper's remove-examples); each stage adds one to the last. */
static const unsigned stage_bits[] = {
    0,           PREP_BASE64,  PREP_HTML,     PREP_MARKDOWN,    PREP_URLS,
    PREP_ERRORS, PREP_HEADERS, PREP_EXAMPLES, PREP_REQUEST_BODY};
enum { N_STAGES = sizeof stage_bits / sizeof stage_bits[0], N_TOK = 2 };

static const char *const tok_names[N_TOK] = {"cl100k", "wordpiece"};
static const size_t tok_limits[N_TOK] = {8191, 512};

typedef struct tok_stats {
    size_t docs, over, ops;
    double sum_doc, sum_op;
    size_t max_doc, max_op;
} tok_stats;

typedef struct stats_run {
    const text_bpe *bpe;
    text_wordpiece *wp;
    tok_stats t[N_TOK][N_STAGES];
    size_t removed_count[N_STAGES], removed_bytes[N_STAGES];
    size_t docs, ops;
    core_buf buf;
    int rc;
} stats_run;

typedef struct stats_opts {
    const char *vocab;
    bool json;
} stats_opts;

static const cli_flag stats_rows[] = {
    CLI_TEXT("usage: apidex stats PATH... [--json] [--vocab PATH]\n"
             "\n"
             "Token statistics of the OpenAPI documents in PATH, per tokenizer (cl100k with\n"
             "the 8191-token limit of text-embedding-3, WordPiece with bge-small's 512):\n"
             "documents, documents over the limit, mean and max tokens per document (compact\n"
             "JSON) and per operation (\"METHOD /path\" + its JSON), before any filter and\n"
             "after each preprocessing filter in turn: base64, html, markdown, urls (blacklist),\n"
             "errors, headers, examples, request-body.\n"),
    CLI_SWITCH("--json", NULL, stats_opts, json, "  --json        machine-readable output\n"),
    CLI_STRING("--vocab", NULL, stats_opts, vocab,
               "  --vocab PATH  WordPiece vocab.txt (default: $APIDEX_MODEL/vocab.txt, the user\n"
               "                cache, the source tree's ../shared)\n"),
};
const cli_flag_table cli_stats_table = {stats_rows, sizeof stats_rows / sizeof *stats_rows};

static void stats_usage(FILE *out)
{
    cli_flags_help(&cli_stats_table, out);
}

static bool file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Same search order as `apidex tokens`. */
static const char *stats_find_vocab(const char *opt, char *buf, size_t cap)
{
    if (opt) return opt;
    const char *model = getenv("APIDEX_MODEL");
    if (model && *model) {
        snprintf(buf, cap, "%s/vocab.txt", model);
        if (file_exists(buf)) return buf;
    }
    const char *home = getenv("HOME");
    if (home && *home) {
        snprintf(buf, cap, "%s/.cache/apidex/models/bge-small-en-v1.5/vocab.txt", home);
        if (file_exists(buf)) return buf;
    }
    snprintf(buf, cap, "%s/../shared/models/bge-small-en-v1.5/vocab.txt", APIDEX_SOURCE_DIR);
    return file_exists(buf) ? buf : NULL;
}

/* Token counts of one text: cl100k, and WordPiece with [CLS]/[SEP] (0 without a vocab). */
static void count_text(stats_run *r, const char *s, size_t n, size_t out[N_TOK])
{
    out[0] = text_bpe_count(r->bpe, s, n);
    out[1] = 0;
    if (r->wp) {
        uint32_t *ids = NULL;
        size_t n_ids = 0;
        if (text_wordpiece_encode(r->wp, s, n, true, 0, &ids, &n_ids, NULL) == 0)
            out[1] = n_ids;
        else
            r->rc = APIDEX_ENOMEM;
        free(ids);
    }
}

static void count_node(stats_run *r, const char *prefix, const jt_node *n, size_t out[N_TOK])
{
    core_buf_reset(&r->buf);
    int rc = prefix ? core_buf_puts(&r->buf, prefix) : 0;
    if (!rc) rc = jt_write_json(&r->buf, n, -1);
    if (rc) {
        r->rc = rc;
        out[0] = out[1] = 0;
        return;
    }
    count_text(r, r->buf.data, r->buf.len, out);
}

static void add_doc(stats_run *r, size_t stage, const size_t c[N_TOK])
{
    for (int t = 0; t < N_TOK; t++) {
        tok_stats *s = &r->t[t][stage];
        s->docs++;
        s->sum_doc += (double)c[t];
        if (c[t] > s->max_doc) s->max_doc = c[t];
        if (c[t] > tok_limits[t]) s->over++;
    }
}

static void add_op(stats_run *r, size_t stage, const size_t c[N_TOK])
{
    for (int t = 0; t < N_TOK; t++) {
        tok_stats *s = &r->t[t][stage];
        s->ops++;
        s->sum_op += (double)c[t];
        if (c[t] > s->max_op) s->max_op = c[t];
    }
}

/* One API through all stages. Each stage filters the previous stage's trees with
 * one more filter; a tree the filter left alone (same node back) keeps its counts. */
static void stats_api(stats_run *r, const spec_api *api)
{
    core_arena *arena = core_arena_new(0);
    size_t n_ops = api->n_ops;
    const jt_node **ops = calloc(n_ops + 1, sizeof *ops);
    size_t(*op_counts)[N_TOK] = calloc(n_ops + 1, sizeof *op_counts);
    char **prefix = calloc(n_ops + 1, sizeof *prefix);
    if (!arena || !ops || !op_counts || !prefix) {
        r->rc = APIDEX_ENOMEM;
        goto done;
    }
    const jt_node *doc = api->root.node;
    size_t doc_counts[N_TOK];
    for (size_t i = 0; i < n_ops; i++) {
        ops[i] = api->ops[i].node.node;
        prefix[i] = core_arena_printf(arena, "%s %s\n", api->ops[i].method, api->ops[i].path);
    }
    for (size_t s = 0; s < N_STAGES && !r->rc; s++) {
        prep_options po = {.filters = stage_bits[s]};
        const jt_node *nd = doc;
        prep_report rep = {0};
        if (s) r->rc = prep_tree(&po, doc, arena, &nd, &rep);
        if (!s || nd != doc) count_node(r, NULL, nd, doc_counts);
        doc = nd;
        add_doc(r, s, doc_counts);
        if (s) {
            int bi = prep_filter_index(stage_bits[s]);
            r->removed_count[s] += rep.count[bi];
            r->removed_bytes[s] += rep.bytes[bi];
        }
        for (size_t i = 0; i < n_ops && !r->rc; i++) {
            const jt_node *no = ops[i];
            if (s) r->rc = prep_tree(&po, ops[i], arena, &no, NULL);
            if (!s || no != ops[i]) count_node(r, prefix[i], no, op_counts[i]);
            ops[i] = no;
            add_op(r, s, op_counts[i]);
        }
    }
    r->docs++;
    r->ops += n_ops;
done:
    free(ops);
    free(op_counts);
    free(prefix);
    core_arena_free(arena);
}

static const char *stage_label(size_t s)
{
    return s ? prep_filter_name(stage_bits[s]) : "none";
}

static void print_table(const stats_run *r, double secs)
{
    printf("apidex stats: %zu documents, %zu operations, %.2f s\n", r->docs, r->ops, secs);
    printf("Each row adds one filter to the rows above it (cumulative). Documents are\n"
           "compact JSON; an operation is \"METHOD /path\\n\" + its JSON. WordPiece counts\n"
           "include [CLS] and [SEP].\n\n");
    printf("%-10s %-14s %5s %6s %10s %10s %6s %8s %8s %9s %11s\n", "tokenizer", "after filter",
           "docs", ">limit", "mean/doc", "max/doc", "ops", "mean/op", "max/op", "removed",
           "bytes rm");
    for (int t = 0; t < N_TOK; t++) {
        if (t == 1 && !r->wp) {
            printf("%-10s (no vocabulary found: pass --vocab)\n", tok_names[t]);
            continue;
        }
        for (size_t s = 0; s < N_STAGES; s++) {
            const tok_stats *x = &r->t[t][s];
            char label[32];
            snprintf(label, sizeof label, "%s%s", s ? "+" : "", stage_label(s));
            printf("%-10s %-14s %5zu %6zu %10.0f %10zu %6zu %8.1f %8zu %9zu %11zu\n",
                   s ? "" : tok_names[t], label, x->docs, x->over,
                   x->docs ? x->sum_doc / (double)x->docs : 0.0, x->max_doc, x->ops,
                   x->ops ? x->sum_op / (double)x->ops : 0.0, x->max_op, r->removed_count[s],
                   r->removed_bytes[s]);
        }
        printf("%-10s limit %zu tokens\n", "", tok_limits[t]);
    }
}

static void print_json(const stats_run *r, double secs)
{
    printf("{\n  \"documents\": %zu,\n  \"operations\": %zu,\n  \"seconds\": %.3f,\n", r->docs,
           r->ops, secs);
    printf("  \"tokenizers\": [");
    bool first = true;
    for (int t = 0; t < N_TOK; t++) {
        if (t == 1 && !r->wp) continue;
        printf("%s\n    {\"name\": \"%s\", \"limit\": %zu, \"stages\": [", first ? "" : ",",
               tok_names[t], tok_limits[t]);
        first = false;
        for (size_t s = 0; s < N_STAGES; s++) {
            const tok_stats *x = &r->t[t][s];
            printf("%s\n      {\"filter\": \"%s\", \"documents\": %zu, \"over_limit\": %zu, "
                   "\"mean_tokens\": %.1f, \"max_tokens\": %zu, \"operations\": %zu, "
                   "\"mean_op_tokens\": %.1f, \"max_op_tokens\": %zu, "
                   "\"removed\": {\"count\": %zu, \"bytes\": %zu}}",
                   s ? "," : "", stage_label(s), x->docs, x->over,
                   x->docs ? x->sum_doc / (double)x->docs : 0.0, x->max_doc, x->ops,
                   x->ops ? x->sum_op / (double)x->ops : 0.0, x->max_op, r->removed_count[s],
                   r->removed_bytes[s]);
        }
        printf("\n    ]}");
    }
    printf("\n  ]\n}\n");
}

int cli_cmd_stats(int argc, char **argv)
{
    stats_opts o = {0};
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    size_t n_paths = 0;
    if (!paths) return CLI_FAILURE;
    for (int i = 1; i < argc; i++) {
        int r = cli_flags_take("stats", &cli_stats_table, stats_usage, argc, argv, &i, &o);
        if (r == 1) continue;
        const char *a = argv[i];
        if (r == 0 && !(a[0] == '-' && a[1])) {
            paths[n_paths++] = a;
            continue;
        }
        free(paths);
        if (r == CLI_FLAGS_HELP) return CLI_OK;
        return r < 0 ? CLI_USAGE : cli_arg_unknown("stats", a);
    }
    bool json = o.json;
    const char *vocab_opt = o.vocab;
    if (!n_paths) {
        free(paths);
        return cli_usage_error("stats", "name the OpenAPI files or folders to measure");
    }
    double t0 = core_now();
    apidex_error err;
    core_error_clear(&err);
    stats_run *r = calloc(1, sizeof *r);
    spec_registry *reg = NULL;
    int status = CLI_OK;
    bool usage_error = false;
    if (!r || spec_registry_new(NULL, &reg, &err)) {
        cli_print_error(&err);
        free(r);
        free(paths);
        return CLI_FAILURE;
    }
    core_buf_init(&r->buf, 0);
    r->bpe = text_bpe_default();
    char vbuf[4096];
    const char *vocab = stats_find_vocab(vocab_opt, vbuf, sizeof vbuf);
    if (vocab && text_wordpiece_open(vocab, &r->wp, &err)) {
        cli_print_error(&err);
        core_error_clear(&err);
        r->wp = NULL;
        status = CLI_PROBLEMS;
    }
    if (!r->bpe) {
        fprintf(stderr, "apidex stats: cannot open the cl100k tokenizer\n");
        status = CLI_FAILURE;
    }
    for (size_t i = 0; i < n_paths && status != CLI_FAILURE; i++) {
        if (spec_registry_add(reg, paths[i], &err)) {
            cli_print_error(&err);
            core_error_clear(&err);
            status = CLI_FAILURE; /* a missing input: usage, reported below */
            usage_error = true;
        }
    }
    for (size_t i = 0; i < spec_registry_count(reg) && status != CLI_FAILURE && !r->rc; i++) {
        const spec_api *api = spec_registry_api(reg, i);
        if (api->failed) {
            fprintf(stderr, "apidex stats: %s: not loaded (see `apidex inspect`)\n", api->file);
            status = CLI_PROBLEMS;
            continue;
        }
        stats_api(r, api);
    }
    if (r->rc) {
        fprintf(stderr, "apidex stats: %s\n", apidex_strerror(r->rc));
        status = CLI_FAILURE;
    }
    if (status != CLI_FAILURE) {
        double secs = core_now() - t0;
        if (json)
            print_json(r, secs);
        else
            print_table(r, secs);
    }
    if (usage_error) status = CLI_USAGE;
    core_buf_free(&r->buf);
    text_wordpiece_close(r->wp);
    free(r);
    spec_registry_free(reg);
    free(paths);
    return status;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_stats(FILE *out)
{
    stats_usage(out);
}
