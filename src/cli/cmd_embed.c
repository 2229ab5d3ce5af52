/* apidex embed: prints the embeddings of texts (arguments, or stdin lines with "-"). */
#include "cli/cli.h"
#include "embed/embed.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void embed_usage(FILE *out)
{
    fprintf(out,
            "usage: apidex embed [OPTIONS] TEXT... | -\n"
            "Prints one embedding per text (\"-\" reads one text per line from stdin).\n\n"
            "  --model PATH|NAME   model folder or name in the cache (env APIDEX_MODEL;\n"
            "                      default " EMBED_DEFAULT_MODEL "); for http the remote model\n"
            "  --query             embed as search queries (adds the model's query prefix)\n"
            "  --json              {\"model\", \"dim\", \"embeddings\": [[...], ...]}\n"
            "  --provider KIND     local (default) or http (default when a URL is given)\n"
            "  --embed-url URL     OpenAI-compatible server, e.g. http://localhost:11434\n"
            "                      (env APIDEX_EMBED_URL)\n"
            "  --embed-key KEY     API key (env APIDEX_EMBED_KEY or OPENAI_API_KEY)\n"
            "  --prefix TEXT       query prefix instead of the model's; --no-prefix for none\n"
            "  --threads N         encoder threads (env APIDEX_THREADS; default: all CPUs)\n"
            "  --batch N           texts per forward pass or request\n"
            "  --max-tokens N      truncate inputs at N tokens (default 512)\n"
            "  --retries N         http retries on 429/5xx (default 5)\n"
            "  --precision P       local: f32 (default) or bf16: products in bf16 on CPUs with\n"
            "                      AVX-512 BF16, ~1.4x faster, vectors within ~1e-3 (env\n"
            "                      APIDEX_EMBED_PRECISION; part of the index signature)\n");
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
        if (count == cap) {
            char **nv = realloc(v, 2 * cap * sizeof *v);
            if (!nv) {
                free(v);
                return APIDEX_ENOMEM;
            }
            v = nv;
            cap *= 2;
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
    enum {
        O_PROVIDER = 256,
        O_URL,
        O_KEY,
        O_PREFIX,
        O_NOPREFIX,
        O_THREADS,
        O_BATCH,
        O_MAXTOK,
        O_RETRIES,
        O_PRECISION
    };
    static const struct option longopts[] = {{"model", required_argument, 0, 'm'},
                                             {"query", no_argument, 0, 'q'},
                                             {"json", no_argument, 0, 'j'},
                                             {"provider", required_argument, 0, O_PROVIDER},
                                             {"embed-url", required_argument, 0, O_URL},
                                             {"embed-key", required_argument, 0, O_KEY},
                                             {"prefix", required_argument, 0, O_PREFIX},
                                             {"no-prefix", no_argument, 0, O_NOPREFIX},
                                             {"threads", required_argument, 0, O_THREADS},
                                             {"batch", required_argument, 0, O_BATCH},
                                             {"max-tokens", required_argument, 0, O_MAXTOK},
                                             {"retries", required_argument, 0, O_RETRIES},
                                             {"precision", required_argument, 0, O_PRECISION},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    embed_options o = {0};
    bool is_query = false, json = false;
    long v;
    int c;
    optind = 1;
    opterr = 0; /* cli_arg_unknown says what is wrong, with the nearest flag */
    while ((c = getopt_long(argc, argv, ":m:qjh", longopts, NULL)) != -1) {
        switch (c) {
        case 'm':
            o.model = optarg;
            break;
        case 'q':
            is_query = true;
            break;
        case 'j':
            json = true;
            break;
        case O_PROVIDER: {
            static const char *const kinds[] = {"local", "http", NULL};
            if (cli_arg_choice("embed", "--provider", optarg, kinds) < 0) return CLI_USAGE;
            o.provider = optarg;
            break;
        }
        case O_URL:
            o.base_url = optarg;
            break;
        case O_KEY:
            o.api_key = optarg;
            break;
        case O_PREFIX:
            o.query_prefix = optarg;
            break;
        case O_NOPREFIX:
            o.query_prefix = "";
            break;
        case O_PRECISION: {
            static const char *const precisions[] = {"f32", "bf16", NULL};
            int p = cli_arg_choice("embed", "--precision", optarg, precisions);
            if (p < 0) return CLI_USAGE;
            o.precision = precisions[p];
            break;
        }
        case O_THREADS:
        case O_BATCH:
        case O_MAXTOK:
        case O_RETRIES: {
            char flag[32] = "N";
            for (size_t l = 0; longopts[l].name; l++)
                if (longopts[l].val == c) snprintf(flag, sizeof flag, "--%s", longopts[l].name);
            if (!cli_arg_long("embed", flag, optarg, c == O_RETRIES ? 0 : 1, 1 << 20, &v))
                return CLI_USAGE;
        }
            if (c == O_THREADS) o.threads = (int)(v > 64 ? 64 : v);
            if (c == O_BATCH) o.batch_size = (size_t)v;
            if (c == O_MAXTOK) o.max_tokens = (size_t)v;
            if (c == O_RETRIES) o.max_retries = v ? (int)v : -1;
            break;
        case 'h':
            embed_usage(stdout);
            return CLI_OK;
        default: /* ':' a value is missing, '?' an unknown flag */
            return cli_arg_unknown("embed", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("embed", "give texts to embed, or - for stdin");
    embed_options_from_env(&o);

    core_buf input;
    core_buf_init(&input, 256u << 20);
    char **texts = argv + optind;
    size_t n = (size_t)(argc - optind);
    char **lines = NULL;
    if (n == 1 && !strcmp(texts[0], "-")) {
        if (read_stdin_lines(&input, &lines, &n) != 0) {
            fprintf(stderr, "apidex embed: stdin is too large or out of memory\n");
            core_buf_free(&input);
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
