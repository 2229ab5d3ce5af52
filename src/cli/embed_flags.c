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

#define HELP_MODEL                                                                                 \
    "  --model M         embedding model: a folder, or a name under ~/.cache/apidex/models\n"      \
    "                    (default " EMBED_DEFAULT_MODEL "); with --embed-url the remote name\n"
#define HELP_URL                                                                                   \
    "  --embed-url URL   an OpenAI-compatible /v1/embeddings server instead of the local model\n"
#define HELP_KEY "  --embed-key K     its API key (else $APIDEX_EMBED_KEY or $OPENAI_API_KEY)\n"
#define HELP_PRECISION                                                                             \
    "  --precision P     local model: f32 (default) or bf16 (AVX-512 BF16 CPUs, ~1.4x faster)\n"

static const char *const modes[] = {"lexical", "dense", "hybrid", NULL};
static const char *const precisions[] = {"f32", "bf16", NULL};

static int take_mode(const char *cmd, const char *flag, const char *value, void *opts)
{
    static const search_mode values[] = {SEARCH_LEXICAL, SEARCH_DENSE, SEARCH_HYBRID};
    cli_embed_flags *f = opts;
    int m = cli_arg_choice(cmd, flag, value, modes);
    if (m < 0) return CLI_USAGE;
    f->mode = (int)values[m];
    f->mode_given = true;
    return CLI_OK;
}

/* --model, --embed-url and --embed-key: a provider was named. */
static int take_provider(const char *cmd, const char *flag, const char *value, void *opts)
{
    cli_embed_flags *f = opts;
    *(!strcmp(flag, "--model")       ? &f->model
      : !strcmp(flag, "--embed-url") ? &f->url
                                     : &f->key) = value;
    f->given = true;
    return CLI_OK;
}

static int take_weight(const char *cmd, const char *flag, const char *value, void *opts)
{
    cli_embed_flags *f = opts;
    f->weight_arg = value;
    return cli_arg_double(cmd, flag, value, 0, 1, true, &f->hybrid_weight) ? CLI_OK : CLI_USAGE;
}

static int take_precision(const char *cmd, const char *flag, const char *value, void *opts)
{
    cli_embed_flags *f = opts;
    int p = cli_arg_choice(cmd, flag, value, precisions);
    if (p < 0) return CLI_USAGE;
    f->precision = precisions[p];
    f->given = true;
    return CLI_OK;
}

/* The embedding model's flags (index builds vectors with them) ... */
static const cli_flag model_rows[] = {
    CLI_HANDLER("--model", NULL, take_provider, NULL, HELP_MODEL),
    CLI_HANDLER("--embed-url", NULL, take_provider, NULL, HELP_URL),
    CLI_HANDLER("--embed-key", NULL, take_provider, NULL, HELP_KEY),
    CLI_HANDLER("--precision", NULL, take_precision, precisions, HELP_PRECISION),
};
const cli_flag_table cli_embed_model_table = {model_rows, sizeof model_rows / sizeof *model_rows};

/* ... and where a search runs, --mode and --hybrid-weight too. They have no help line here:
   each command says what they do for it. */
static const cli_flag embed_rows[] = {
    CLI_HANDLER("--mode", NULL, take_mode, modes, NULL),
    CLI_HANDLER("--hybrid-weight", NULL, take_weight, NULL, NULL),
    {.kind = CLI_F_INCLUDE, .at = 0, .table = &cli_embed_model_table},
};
const cli_flag_table cli_embed_table = {embed_rows, sizeof embed_rows / sizeof *embed_rows};

/* --mode and --hybrid-weight where no search runs (index, add): checked as search checks
   them, then refused. */
static int take_search_option(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)opts;
    char *words[] = {(char *)cmd, (char *)flag, (char *)value};
    int at = 1;
    cli_embed_flags unused = {0};
    if (cli_flags_take(cmd, &cli_embed_table, NULL, 3, words, &at, &unused) < 0) return CLI_USAGE;
    return cli_usage_error(cmd, "%s is a search option, not an %s one", flag, cmd);
}

static const cli_flag refused_rows[] = {
    {.kind = CLI_F_HANDLER, .name = "--mode", .take = take_search_option, .unlisted = true},
    {.kind = CLI_F_HANDLER,
     .name = "--hybrid-weight",
     .take = take_search_option,
     .unlisted = true},
};
const cli_flag_table cli_embed_refused_table = {refused_rows,
                                                sizeof refused_rows / sizeof *refused_rows};

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
