/* apidex embed: prints the embeddings of texts (arguments, or stdin lines with "-"). */
#include "cli/cli.h"
#include "embed/embed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct embed_opts {
    embed_options o;
    bool query, json, no_prefix;
} embed_opts;

static const char *const kinds[] = {"local", "http", NULL};
static const char *const precisions[] = {"f32", "bf16", NULL};

static int take_provider(const char *cmd, const char *flag, const char *value, void *opts)
{
    if (cli_arg_choice(cmd, flag, value, kinds) < 0) return CLI_USAGE;
    ((embed_opts *)opts)->o.provider = value;
    return CLI_OK;
}

static int take_precision(const char *cmd, const char *flag, const char *value, void *opts)
{
    int p = cli_arg_choice(cmd, flag, value, precisions);
    if (p < 0) return CLI_USAGE;
    ((embed_opts *)opts)->o.precision = precisions[p];
    return CLI_OK;
}

static int take_prefix(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)cmd, (void)flag;
    embed_opts *e = opts;
    e->o.query_prefix = value;
    e->no_prefix = false; /* the last of --prefix and --no-prefix counts */
    return CLI_OK;
}

/* --threads, --batch, --max-tokens: from 1 to 2^20; --retries from 0 */
static int take_count(const char *cmd, const char *flag, const char *value, long min, long *v)
{
    return cli_arg_long(cmd, flag, value, min, 1 << 20, v) ? CLI_OK : CLI_USAGE;
}

static int take_threads(const char *cmd, const char *flag, const char *value, void *opts)
{
    long v = 0;
    if (take_count(cmd, flag, value, 1, &v)) return CLI_USAGE;
    ((embed_opts *)opts)->o.threads = (int)(v > 64 ? 64 : v);
    return CLI_OK;
}

static int take_batch(const char *cmd, const char *flag, const char *value, void *opts)
{
    long v = 0;
    if (take_count(cmd, flag, value, 1, &v)) return CLI_USAGE;
    ((embed_opts *)opts)->o.batch_size = (size_t)v;
    return CLI_OK;
}

static int take_max_tokens(const char *cmd, const char *flag, const char *value, void *opts)
{
    long v = 0;
    if (take_count(cmd, flag, value, 1, &v)) return CLI_USAGE;
    ((embed_opts *)opts)->o.max_tokens = (size_t)v;
    return CLI_OK;
}

static int take_retries(const char *cmd, const char *flag, const char *value, void *opts)
{
    long v = 0;
    if (take_count(cmd, flag, value, 0, &v)) return CLI_USAGE;
    ((embed_opts *)opts)->o.max_retries = v ? (int)v : -1;
    return CLI_OK;
}

static const cli_flag embed_rows[] = {
    CLI_TEXT("usage: apidex embed [OPTIONS] TEXT... | -\n"
             "Prints one embedding per text (\"-\" reads one text per line from stdin).\n\n"),
    {.kind = CLI_F_STRING,
     .name = "--model",
     .also = "-m",
     .at = CLI_FIELD_(embed_opts, o.model, const char *),
     .help = "  --model PATH|NAME   model folder or name in the cache (env APIDEX_MODEL;\n"
             "                      default " EMBED_DEFAULT_MODEL "); for http the remote model\n"},
    {.kind = CLI_F_SWITCH,
     .name = "--query",
     .also = "-q",
     .at = CLI_FIELD_(embed_opts, query, bool),
     .help = "  --query             embed as search queries (adds the model's query prefix)\n"},
    {.kind = CLI_F_SWITCH,
     .name = "--json",
     .also = "-j",
     .at = CLI_FIELD_(embed_opts, json, bool),
     .help = "  --json              {\"model\", \"dim\", \"embeddings\": [[...], ...]}\n"},
    CLI_HANDLER("--provider", NULL, take_provider, kinds,
                "  --provider KIND     local (default) or http (default when a URL is given)\n"),
    CLI_STRING("--embed-url", NULL, embed_opts, o.base_url,
               "  --embed-url URL     OpenAI-compatible server, e.g. http://localhost:11434\n"
               "                      (env APIDEX_EMBED_URL)\n"),
    CLI_STRING("--embed-key", NULL, embed_opts, o.api_key,
               "  --embed-key KEY     API key (env APIDEX_EMBED_KEY or OPENAI_API_KEY)\n"),
    CLI_HANDLER(
        "--prefix", NULL, take_prefix, NULL,
        "  --prefix TEXT       query prefix instead of the model's; --no-prefix for none\n"),
    {.kind = CLI_F_SWITCH, .name = "--no-prefix", .at = CLI_FIELD_(embed_opts, no_prefix, bool)},
    CLI_HANDLER("--threads", NULL, take_threads, NULL,
                "  --threads N         encoder threads (env APIDEX_THREADS; default: all CPUs)\n"),
    CLI_HANDLER("--batch", NULL, take_batch, NULL,
                "  --batch N           texts per forward pass or request\n"),
    CLI_HANDLER("--max-tokens", NULL, take_max_tokens, NULL,
                "  --max-tokens N      truncate inputs at N tokens (default 512)\n"),
    CLI_HANDLER("--retries", NULL, take_retries, NULL,
                "  --retries N         http retries on 429/5xx (default 5)\n"),
    CLI_HANDLER(
        "--precision", NULL, take_precision, precisions,
        "  --precision P       local: f32 (default) or bf16: products in bf16 on CPUs with\n"
        "                      AVX-512 BF16, ~1.4x faster, vectors within ~1e-3 (env\n"
        "                      APIDEX_EMBED_PRECISION; part of the index signature)\n"),
};
const cli_flag_table cli_embed_cmd_table = {embed_rows, sizeof embed_rows / sizeof *embed_rows};

static void embed_usage(FILE *out)
{
    cli_flags_help(&cli_embed_cmd_table, out);
}

/* Splits stdin into lines (a final newline does not make an extra empty text). */
static int read_stdin_lines(core_buf *all, char ***lines, size_t *n)
{
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, stdin)) > 0)
        if (core_buf_append(all, chunk, got) != 0) return APIDEX_ELIMIT;
    size_t count = 0, cap = 16;
    char **v = malloc(cap * sizeof *v);
    if (!v) return APIDEX_ENOMEM;
    char *p = all->data ? all->data : "";
    char *end = p + all->len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *stop = nl ? nl : end;
        if (stop > p && stop[-1] == '\r') stop[-1] = '\0';
        *stop = '\0';
        if (core_array_grow(&v, &cap, count, sizeof *v, 16)) {
            free(v);
            return APIDEX_ENOMEM;
        }
        v[count++] = p;
        p = stop + 1;
    }
    *lines = v;
    *n = count;
    return 0;
}

int cli_cmd_embed(int argc, char **argv)
{
    embed_opts eo = {0};
    char **texts = calloc((size_t)argc + 1, sizeof *texts);
    size_t n = 0;
    if (!texts) return CLI_FAILURE;
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || !a[1]) {
            texts[n++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--")) { /* the words after it are texts */
            opts_done = true;
            continue;
        }
        int r = cli_flags_take("embed", &cli_embed_cmd_table, embed_usage, argc, argv, &i, &eo);
        if (r == 1) continue;
        free(texts);
        if (r == CLI_FLAGS_HELP) return CLI_OK;
        return r < 0 ? CLI_USAGE : cli_arg_unknown("embed", a);
    }
    if (!n) {
        free(texts);
        return cli_usage_error("embed", "give texts to embed, or - for stdin");
    }
    embed_options o = eo.o;
    if (eo.no_prefix) o.query_prefix = "";
    bool is_query = eo.query, json = eo.json;
    embed_options_from_env(&o);

    core_buf input;
    core_buf_init(&input, 256u << 20);
    char **lines = NULL, **args = texts;
    if (n == 1 && !strcmp(texts[0], "-")) {
        if (read_stdin_lines(&input, &lines, &n) != 0) {
            fprintf(stderr, "apidex embed: stdin is too large or out of memory\n");
            core_buf_free(&input);
            free(args);
            return CLI_FAILURE;
        }
        texts = lines;
    }
    apidex_error err = {0};
    embed_provider *p = NULL;
    float *vecs = NULL;
    size_t dim = 0;
    int rc = embed_provider_open(&o, &p, &err);
    if (!rc) rc = embed_provider_dim(p, &dim, &err);
    if (!rc) {
        vecs = malloc((n ? n : 1) * dim * sizeof *vecs);
        if (!vecs) rc = core_error_set(&err, APIDEX_ENOMEM, "out of memory");
    }
    if (!rc) rc = embed_provider_embed(p, (const char *const *)texts, n, is_query, vecs, &err);
    if (rc) {
        cli_print_error(&err);
    } else {
        if (p->stats.truncated)
            fprintf(stderr,
                    "apidex embed: %llu of %zu texts were longer than the model's limit "
                    "and were truncated\n",
                    (unsigned long long)p->stats.truncated, n);
        core_buf out;
        core_buf_init(&out, 0);
        if (json) {
            core_buf_puts(&out, "{\"model\":");
            const char *id = embed_provider_model_id(p);
            core_buf_json_str(&out, id, strlen(id));
            core_buf_printf(&out, ",\"dim\":%zu,\"embeddings\":[", dim);
        }
        for (size_t i = 0; i < n; i++) {
            if (json) core_buf_puts(&out, i ? ",[" : "[");
            for (size_t d = 0; d < dim; d++)
                core_buf_printf(&out, "%s%.9g", d ? (json ? "," : " ") : "",
                                (double)vecs[i * dim + d]);
            core_buf_puts(&out, json ? "]" : "\n");
            if (out.len > (1u << 20)) { /* stream big outputs */
                fwrite(out.data, 1, out.len, stdout);
                core_buf_reset(&out);
            }
        }
        if (json) core_buf_puts(&out, "]}\n");
        if (out.len) fwrite(out.data, 1, out.len, stdout);
        core_buf_free(&out);
        if (fflush(stdout) != 0) rc = APIDEX_EIO;
    }
    free(vecs);
    free(lines);
    free(args);
    core_buf_free(&input);
    embed_provider_close(p);
    if (!rc) return CLI_OK;
    return rc == APIDEX_EINVAL || rc == APIDEX_EUNSUPPORTED ? CLI_USAGE : CLI_FAILURE;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_embed(FILE *out)
{
    embed_usage(out);
}
