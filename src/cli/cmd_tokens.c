/* apidex tokens: count or print the tokens of a file (or stdin) with the cl100k_base
 * BPE (OpenAI's tiktoken, built in) or a BERT WordPiece vocabulary (bge-small-en-v1.5). */
#include "cli/cli.h"

#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TOKENS_INPUT_MAX ((size_t)1 << 30) /* the BPE takes up to 4 GiB; stay well below */

typedef struct tokens_opts {
    const char *tokenizer, *vocab;
    bool ids, special;
} tokens_opts;

static const char *const tokenizers[] = {"cl100k", "wordpiece", NULL};

/* Checked once parsing is done (the last one given counts). */
static int take_tokenizer(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)cmd, (void)flag;
    ((tokens_opts *)opts)->tokenizer = value;
    return CLI_OK;
}

static const cli_flag tokens_rows[] = {
    CLI_TEXT("usage: apidex tokens [--tokenizer cl100k|wordpiece] [--ids] [--special]\n"
             "                     [--vocab PATH] FILE|-\n"
             "\n"
             "Counts the tokens of FILE (- reads stdin), or prints their ids with --ids\n"
             "(space-separated, one line).\n"),
    CLI_HANDLER("--tokenizer", NULL, take_tokenizer, tokenizers,
                "  --tokenizer cl100k   OpenAI's cl100k_base, byte-exact with tiktoken (default)\n"
                "  --tokenizer wordpiece  BERT WordPiece (bge-small-en-v1.5)\n"),
    CLI_SWITCH("--special", NULL, tokens_opts, special,
               "  --special            cl100k: recognise <|endoftext|> and the other special\n"
               "                       tokens; wordpiece: add [CLS] and [SEP]\n"),
    CLI_STRING("--vocab", NULL, tokens_opts, vocab,
               "  --vocab PATH         WordPiece vocab.txt or tokenizer.json; default\n"
               "                       $APIDEX_MODEL/vocab.txt, then\n"
               "                       ~/.cache/apidex/models/bge-small-en-v1.5/vocab.txt\n"),
    CLI_SWITCH("--ids", NULL, tokens_opts, ids, NULL),
    CLI_TEXT("Invalid UTF-8 is read as U+FFFD per invalid sequence (as tiktoken sees it\n"
             "after TextDecoder).\n"),
};
const cli_flag_table cli_tokens_table = {tokens_rows, sizeof tokens_rows / sizeof *tokens_rows};

static void tokens_usage(FILE *out)
{
    cli_flags_help(&cli_tokens_table, out);
}

static bool path_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Reads FILE or stdin ("-") into malloc'd memory. */
static int read_input(const char *path, char **out, size_t *len, apidex_error *err)
{
    if (strcmp(path, "-") != 0) return core_file_read(path, TOKENS_INPUT_MAX, out, len, err);
    core_buf b;
    core_buf_init(&b, TOKENS_INPUT_MAX);
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
        int rc = core_buf_append(&b, chunk, got);
        if (rc != 0) {
            core_buf_free(&b);
            return rc == APIDEX_ELIMIT
                       ? core_error_set(err, rc, "stdin: input over %zu bytes", TOKENS_INPUT_MAX)
                       : core_error_set(err, rc, "stdin: out of memory");
        }
    }
    if (ferror(stdin)) {
        core_buf_free(&b);
        return core_error_set(err, APIDEX_EIO, "stdin: read error");
    }
    *out = core_buf_steal(&b, len);
    return *out ? 0 : core_error_set(err, APIDEX_ENOMEM, "out of memory");
}

/* The WordPiece vocabulary to use: --vocab, $APIDEX_MODEL, the user cache, the source
 * tree's ../shared (for development). Writes into buf; NULL when none is found. */
static const char *find_vocab(const char *opt, char *buf, size_t cap)
{
    if (opt) return opt;
    const char *model = getenv("APIDEX_MODEL");
    if (model && *model) {
        snprintf(buf, cap, "%s/vocab.txt", model);
        return buf;
    }
    const char *home = getenv("HOME");
    if (home && *home) {
        snprintf(buf, cap, "%s/.cache/apidex/models/bge-small-en-v1.5/vocab.txt", home);
        if (path_exists(buf)) return buf;
    }
    snprintf(buf, cap, "%s/../shared/models/bge-small-en-v1.5/vocab.txt", APIDEX_SOURCE_DIR);
    if (path_exists(buf)) return buf;
    return NULL;
}

static int print_ids(const uint32_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (printf(i + 1 < n ? "%u " : "%u", ids[i]) < 0) return -1;
    return printf("\n") < 0 ? -1 : 0;
}

int cli_cmd_tokens(int argc, char **argv)
{
    tokens_opts o = {.tokenizer = "cl100k"};
    const char *input = NULL;
    for (int i = 1; i < argc; i++) {
        int r = cli_flags_take("tokens", &cli_tokens_table, tokens_usage, argc, argv, &i, &o);
        if (r == CLI_FLAGS_HELP) return CLI_OK;
        if (r < 0) return CLI_USAGE;
        if (r) continue;
        const char *a = argv[i];
        if (a[0] == '-' && a[1] != '\0') return cli_arg_unknown("tokens", a);
        if (input) return cli_usage_error("tokens", "one input only ('%s' and '%s')", input, a);
        input = a;
    }
    const char *vocab_opt = o.vocab;
    bool want_ids = o.ids, special = o.special;
    int which = cli_arg_choice("tokens", "--tokenizer", o.tokenizer, tokenizers);
    if (which < 0) return CLI_USAGE;
    bool wordpiece = which == 1;
    if (!input) return cli_usage_error("tokens", "name a file, or - for stdin");

    apidex_error err;
    core_error_clear(&err);
    char *text = NULL;
    size_t len = 0;
    if (read_input(input, &text, &len, &err) != 0) {
        cli_print_error(&err);
        return CLI_FAILURE;
    }

    uint32_t *ids = NULL;
    size_t n_ids = 0;
    int rc = 0;
    if (wordpiece) {
        char buf[4096];
        const char *vocab = find_vocab(vocab_opt, buf, sizeof buf);
        if (!vocab) {
            fprintf(stderr, "apidex tokens: no WordPiece vocabulary found: pass --vocab PATH or "
                            "set APIDEX_MODEL to the bge-small-en-v1.5 folder\n");
            free(text);
            return CLI_USAGE;
        }
        text_wordpiece *wp = NULL;
        rc = text_wordpiece_open(vocab, &wp, &err);
        if (rc == 0) {
            bool truncated = false;
            rc = text_wordpiece_encode(wp, text, len, special, 0, &ids, &n_ids, &truncated);
            if (rc != 0) core_error_set(&err, rc, "wordpiece: cannot encode %s", input);
        }
        text_wordpiece_close(wp);
    } else {
        const text_bpe *bpe = text_bpe_default();
        if (!bpe)
            rc = core_error_set(&err, APIDEX_ENOMEM, "cl100k: the tokenizer failed to open");
        else if (want_ids || special) {
            rc = text_bpe_encode(bpe, text, len, special, &ids, &n_ids);
            if (rc != 0) core_error_set(&err, rc, "cl100k: cannot encode %s", input);
        } else {
            n_ids = text_bpe_count(bpe, text, len);
        }
    }
    free(text);
    if (rc != 0) {
        cli_print_error(&err);
        free(ids);
        return CLI_FAILURE;
    }
    int out = want_ids ? print_ids(ids, n_ids) : (printf("%zu\n", n_ids) < 0 ? -1 : 0);
    free(ids);
    if (out != 0 || fflush(stdout) != 0) {
        fprintf(stderr, "apidex tokens: cannot write the output\n");
        return CLI_FAILURE;
    }
    return CLI_OK;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_tokens(FILE *out)
{
    tokens_usage(out);
}
