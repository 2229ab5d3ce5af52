/* apidex add and apidex remove: change some APIs of the index and copy the rest as it is. */
#include "cli/cli.h"

#include "build/build.h"
#include "embed/embed.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The two commands share everything after their arguments. */
typedef struct write_args {
    const char *db;
    bool json, quiet, verbose;
    build_options opt;
    cli_embed_flags embed;
    const char *name;
    char **words; /* paths (add) or ids (remove) */
    size_t n_words;
    char **copies; /* remove: the ids the words resolved to, where they differ (owned) */
} write_args;

static int take_name(const char *cmd, const char *flag, const char *value, void *opts)
{
    if (!cli_arg_api_id(cmd, flag, value)) return CLI_USAGE;
    ((write_args *)opts)->name = value;
    return CLI_OK;
}

static int take_mcp_config(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)flag;
    write_args *w = opts;
    const char *src = cli_mcp_config_source(value);
    if (!src) return cli_usage_error(cmd, "too many --mcp-config");
    w->words[w->n_words++] = (char *)src;
    return CLI_OK;
}

#define HELP_DB                                                                                    \
    "  --db FILE         index file (default $APIDEX_DB, the registry file's db,\n"                \
    "                    or ./" STORE_DEFAULT_DB ")\n"
#define HELP_JSON "  --json            print a JSON summary on stdout\n"

/* --db, the writers' --wait/--no-wait, --json and --quiet (-q): add's and remove's */
static const cli_flag write_rows[] = {
    CLI_STRING("--db", NULL, write_args, db, HELP_DB),
    CLI_INCLUDE(write_args, opt.lock, &cli_write_table),
    CLI_SWITCH("--json", NULL, write_args, json, HELP_JSON),
    {.kind = CLI_F_SWITCH,
     .name = "--quiet",
     .also = "-q",
     .at = CLI_FIELD_(write_args, quiet, bool)},
};
static const cli_flag_table write_table = {write_rows, sizeof write_rows / sizeof *write_rows};

static const cli_flag add_rows[] = {
    CLI_TEXT("usage: apidex add PATH|URL... [--mcp-config FILE] [--name ID] [--db FILE]\n"
             "                  [--wait SECONDS] [--no-wait]\n"
             "                  [--json] [--quiet] [--verbose]\n"
             "  PATH|URL          spec files, directories (searched recursively) or URLs to add\n"
             "                    (or update, when already indexed); MCP servers too:\n"
             "                    mcp+stdio:'PROGRAM ARG...', mcp+http(s)://URL\n"),
    CLI_HANDLER("--mcp-config", NULL, take_mcp_config, NULL,
                "  --mcp-config FILE every server of an MCP client config (mcpServers JSON)\n"),
    CLI_HANDLER("--name", NULL, take_name, NULL,
                "  --name ID         the API id of the one document added (a-z 0-9 . _ -)\n"),
    {.kind = CLI_F_INCLUDE, .table = &write_table},
    {.kind = CLI_F_SWITCH,
     .name = "--verbose",
     .also = "-v",
     .at = CLI_FIELD_(write_args, verbose, bool),
     .help = "  --verbose         also print warnings\n"},
    CLI_TEXT("Dense vectors: an index built with an embedding model needs the same flags:\n"),
    CLI_INCLUDE(write_args, embed, &cli_embed_model_table),
    CLI_INCLUDE(write_args, embed, &cli_embed_refused_table),
    CLI_TEXT("Only the given documents are loaded and indexed; every other API of the index is\n"
             "copied as it is, with the strategy and filters the index was built with. Exit\n"
             "status: 0 ok, 1 a document failed, 2 usage (also: an id another document has),\n"
             "3 failure (e.g. an index of other options: rebuild it with 'apidex index'),\n"
             "4 --db is not an apidex index, 5 another writer held the index.\n"),
};
const cli_flag_table cli_add_table = {add_rows, sizeof add_rows / sizeof *add_rows};

static const cli_flag remove_rows[] = {
    CLI_TEXT("usage: apidex remove ID... [--db FILE] [--wait SECONDS] [--no-wait] [--json]\n"
             "                     [--quiet]\n"
             "  ID                API ids to remove from the index ('apidex list' shows them)\n"),
    {.kind = CLI_F_INCLUDE, .table = &write_table},
    CLI_TEXT("Every other API is copied as it is. Exit status: 0 ok, 2 usage (an unknown id:\n"
             "the nearest are named; nothing is removed), 3 failure, 4 --db is not an apidex\n"
             "index, 5 another writer held the index.\n"),
};
const cli_flag_table cli_remove_table = {remove_rows, sizeof remove_rows / sizeof *remove_rows};

static void add_usage(FILE *out)
{
    cli_flags_help(&cli_add_table, out);
}

static void remove_usage(FILE *out)
{
    cli_flags_help(&cli_remove_table, out);
}

static void free_words(write_args *w);

/* Parses argv; CLI_OK, or the exit code (help printed, or a usage error said). */
static int parse_args(int argc, char **argv, bool add, write_args *w)
{
    w->words = calloc((size_t)argc, sizeof *w->words);
    if (!w->words) return CLI_FAILURE;
    const char *cmd = add ? "add" : "remove";
    for (int i = 1; i < argc; i++) {
        int r = cli_flags_take(cmd, add ? &cli_add_table : &cli_remove_table,
                               add ? add_usage : remove_usage, argc, argv, &i, w);
        if (r == CLI_FLAGS_HELP) return -1;
        if (r < 0) return CLI_USAGE;
        if (r) continue;
        const char *a = argv[i];
        if (a[0] == '-' && a[1]) return cli_arg_unknown(cmd, a);
        w->words[w->n_words++] = argv[i];
    }
    if (!w->n_words)
        return cli_usage_error(add ? "add" : "remove", add ? "name the OpenAPI files, folders or "
                                                             "URLs to add"
                                                           : "name the API ids to remove");
    w->db = cli_db_path(w->db);
    w->opt.delay_ms = cli_index_test_delay_ms();
    w->opt.keep_unlisted = true;
    w->opt.inherit = true;
    if (!w->quiet) cli_write_tell_wait(&w->opt.lock, w->db);
    return CLI_OK;
}

/* remove: every id must name an API of the index (else exit 2 naming the nearest), checked
   before waiting for the lock; the build checks again under it. */
static int check_ids(write_args *w)
{
    store_index *idx = NULL;
    apidex_error err;
    core_error_clear(&err);
    int rc = store_open(w->db, true, &idx, &err);
    if (rc) {
        cli_print_error(&err);
        return rc == APIDEX_ENOTFOUND ? CLI_USAGE : CLI_FAILURE;
    }
    /* ids, aliases, prefixes and titles all name an API: remove takes its id (copied: the
       index closes here) */
    const char **ids = calloc(w->n_words ? w->n_words : 1, sizeof *ids);
    if (!ids) {
        store_close(idx);
        return CLI_FAILURE;
    }
    for (size_t i = 0; i < w->n_words; i++) ids[i] = w->words[i];
    int code = cli_check_apis("remove", idx, ids, w->n_words);
    if (code == CLI_OK && !(w->copies = calloc(w->n_words, sizeof *w->copies))) code = CLI_FAILURE;
    for (size_t i = 0; code == CLI_OK && i < w->n_words; i++)
        if (strcmp(ids[i], w->words[i]) && !(w->words[i] = w->copies[i] = strdup(ids[i])))
            code = CLI_FAILURE;
    free(ids);
    store_close(idx);
    return code;
}

static int run(int argc, char **argv, bool add)
{
    write_args w = {0};
    int code = parse_args(argc, argv, add, &w);
    if (code != CLI_OK) {
        free_words(&w);
        return code < 0 ? CLI_OK : code;
    }
    if (!add) {
        code = check_ids(&w);
        w.opt.drop_apis = (const char *const *)w.words;
        w.opt.n_drop_apis = w.n_words;
    }
    embed_provider *embedder = NULL;
    if (code == CLI_OK && w.embed.given) {
        code = cli_embed_open(&w.embed, &embedder);
        w.opt.embedder = embedder;
    }
    if (code != CLI_OK) {
        free_words(&w);
        return code;
    }
    core_buf errors;
    core_buf_init(&errors, 0);
    cli_changes changes;
    cli_changes_collect(&changes, &w.opt);
    cli_index_flags flags = {.progress = !w.json && !w.quiet && cli_stderr_is_tty(),
                             .quiet = w.quiet,
                             .verbose = w.verbose,
                             .errors_json = w.json ? &errors : NULL,
                             .api_name = w.name};
    apidex_error err;
    core_error_clear(&err);
    store_build_report rep = {0};
    code = cli_build_index(w.db, add ? w.words : NULL, add ? w.n_words : 0, &w.opt, &flags, &rep,
                           &err);
    embed_provider_close(embedder);
    if (code != CLI_OK && code != CLI_PROBLEMS)
        cli_print_error(&err);
    else
        cli_print_build(add ? "added to" : "removed from", w.db, &rep, &changes, &errors, w.json,
                        w.quiet, w.embed.given);
    core_buf_free(&errors);
    cli_changes_free(&changes);
    free_words(&w);
    return code;
}

static void free_words(write_args *w)
{
    for (size_t i = 0; w->copies && i < w->n_words; i++) free(w->copies[i]);
    free(w->copies);
    free(w->words);
}

int cli_cmd_add(int argc, char **argv)
{
    return run(argc, argv, true);
}

int cli_cmd_remove(int argc, char **argv)
{
    return run(argc, argv, false);
}

void cli_usage_add(FILE *out)
{
    add_usage(out);
}

void cli_usage_remove(FILE *out)
{
    remove_usage(out);
}
