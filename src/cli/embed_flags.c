/*
 * Embedding flags shared by index, search, eval, serve and mcp (--model, --embed-url,
 * --embed-key, --hybrid-weight, and --mode where a search runs) and opening the
 * provider they describe.
 */
#include "cli/cli.h"

#include "embed/embed.h"
#include "search/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cli_embed_flags_help(void)
{
    return "  --model M         embedding model: a folder, or a name under ~/.cache/apidex/models\n"
           "                    (default " EMBED_DEFAULT_MODEL
           "); with --embed-url the remote name\n"
           "  --embed-url URL   an OpenAI-compatible /v1/embeddings server instead of the local "
           "model\n"
           "  --embed-key K     its API key (else $APIDEX_EMBED_KEY or $OPENAI_API_KEY)\n"
           "  --precision P     local model: f32 (default) or bf16 (AVX-512 BF16 CPUs, ~1.4x "
           "faster)\n";
}

int cli_embed_parse_flag(int argc, char **argv, int *i, cli_embed_flags *f)
{
    const char *cmd = argv[0], *a = argv[*i];
    if (!strcmp(a, "--mode")) {
        if (*i + 1 >= argc) {
            cli_arg_unknown(cmd, a);
            return -1;
        }
        static const char *const modes[] = {"lexical", "dense", "hybrid", NULL};
        static const search_mode values[] = {SEARCH_LEXICAL, SEARCH_DENSE, SEARCH_HYBRID};
        int m = cli_arg_choice(cmd, a, argv[++*i], modes);
        if (m < 0) return -1;
        f->mode = (int)values[m];
        f->mode_given = true;
        return 1;
    }
    const char **slot = !strcmp(a, "--model")           ? &f->model
                        : !strcmp(a, "--embed-url")     ? &f->url
                        : !strcmp(a, "--embed-key")     ? &f->key
                        : !strcmp(a, "--hybrid-weight") ? &f->weight_arg
                        : !strcmp(a, "--precision")     ? &f->precision
                                                        : NULL;
    if (!slot) return 0;
    if (*i + 1 >= argc) {
        cli_arg_unknown(cmd, a);
        return -1;
    }
    *slot = argv[++*i];
    if (slot == &f->weight_arg) {
        if (!cli_arg_double(cmd, a, *slot, 0, 1, true, &f->hybrid_weight)) return -1;
    } else if (slot == &f->precision) {
        static const char *const precisions[] = {"f32", "bf16", NULL};
        int p = cli_arg_choice(cmd, a, *slot, precisions);
        if (p < 0) return -1;
        *slot = precisions[p];
        f->given = true;
    } else {
        f->given = true;
    }
    return 1;
}

int cli_embed_open(const cli_embed_flags *f, embed_provider **out)
{
    *out = NULL;
    embed_options o = {0};
    o.model = f->model;
    o.base_url = f->url;
    o.api_key = f->key;
    o.precision = f->precision;
    embed_options_from_env(&o);
    apidex_error err;
    core_error_clear(&err);
    int rc = embed_provider_open(&o, out, &err);
    if (rc) {
        cli_print_error(&err);
        return rc == APIDEX_ENOMEM ? CLI_FAILURE : CLI_USAGE;
    }
    return CLI_OK;
}
