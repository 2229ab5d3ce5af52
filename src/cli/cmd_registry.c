/* apidex add and apidex remove: change some APIs of the index and copy the rest as it is. */
#include "cli/cli.h"

#include "build/build.h"
#include "embed/embed.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_usage(FILE *out)
{
    fprintf(out,
            "usage: apidex add PATH|URL... [--mcp-config FILE] [--name ID] [--db FILE]\n"
            "                  [--wait SECONDS] [--no-wait]\n"
            "                  [--json] [--quiet] [--verbose]\n"
            "  PATH|URL          spec files, directories (searched recursively) or URLs to add\n"
            "                    (or update, when already indexed); MCP servers too:\n"
            "                    mcp+stdio:'PROGRAM ARG...', mcp+http(s)://URL\n"
            "  --mcp-config FILE every server of an MCP client config (mcpServers JSON)\n"
            "  --name ID         the API id of the one document added (a-z 0-9 . _ -)\n"
            "  --db FILE         index file (default $APIDEX_DB, the registry file's db,\n"
            "                    or ./%s)\n"
            "%s"
            "  --json            print a JSON summary on stdout\n"
            "  --verbose         also print warnings\n"
            "Dense vectors: an index built with an embedding model needs the same flags:\n%s"
            "Only the given documents are loaded and indexed; every other API of the index is\n"
            "copied as it is, with the strategy and filters the index was built with. Exit\n"
            "status: 0 ok, 1 a document failed, 2 usage (also: an id another document has),\n"
            "3 failure (e.g. an index of other options: rebuild it with 'apidex index'),\n"
            "4 --db is not an apidex index, 5 another writer held the index.\n",
            STORE_DEFAULT_DB, cli_write_flags_help(), cli_embed_flags_help());
}

static void remove_usage(FILE *out)
{
    fprintf(out,
            "usage: apidex remove ID... [--db FILE] [--wait SECONDS] [--no-wait] [--json]\n"
            "                     [--quiet]\n"
            "  ID                API ids to remove from the index ('apidex list' shows them)\n"
            "  --db FILE         index file (default $APIDEX_DB, the registry file's db,\n"
            "                    or ./%s)\n"
            "%s"
            "  --json            print a JSON summary on stdout\n"
            "Every other API is copied as it is. Exit status: 0 ok, 2 usage (an unknown id:\n"
            "the nearest are named; nothing is removed), 3 failure, 4 --db is not an apidex\n"
            "index, 5 another writer held the index.\n",
            STORE_DEFAULT_DB, cli_write_flags_help());
}

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

static void free_words(write_args *w);

/* Parses argv; CLI_OK, or the exit code (help printed, or a usage error said). */
static int parse_args(int argc, char **argv, bool add, write_args *w)
{
    w->words = calloc((size_t)argc, sizeof *w->words);
    if (!w->words) return CLI_FAILURE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int taken = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            (add ? add_usage : remove_usage)(stdout);
            return -1;
        } else if (!strcmp(a, "--json")) {
            w->json = true;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            w->quiet = true;
        } else if (add && (!strcmp(a, "--verbose") || !strcmp(a, "-v"))) {
            w->verbose = true;
        } else if ((taken = cli_write_parse_flag(argc, argv, &i, &w->opt.lock)) != 0) {
            if (taken < 0) return CLI_USAGE;
        } else if (add && (taken = cli_embed_parse_flag(argc, argv, &i, &w->embed)) != 0) {
            if (taken > 0 && (w->embed.weight_arg || w->embed.mode_given))
                cli_usage_error("add", "%s is a search option, not an add one", a);
            if (taken < 0 || w->embed.weight_arg || w->embed.mode_given) return CLI_USAGE;
        } else if (!strcmp(a, "--db") && v) {
            w->db = v;
            i++;
        } else if (add && !strcmp(a, "--name") && v) {
            if (!spec_id_valid(v))
                return cli_usage_error("add",
                                       "--name '%s': an id is 1-%d of a-z 0-9 . _ - and starts "
                                       "and ends with a letter or digit",
                                       v, SPEC_ID_MAX);
            w->name = v;
            i++;
        } else if (add && !strcmp(a, "--mcp-config") && v) {
            const char *src = cli_mcp_config_source(v);
            if (!src) return cli_usage_error("add", "too many --mcp-config");
            w->words[w->n_words++] = (char *)src;
            i++;
        } else if (a[0] == '-' && a[1]) {
            return cli_arg_unknown(add ? "add" : "remove", a);
        } else {
            w->words[w->n_words++] = argv[i];
        }
    }
    if (!w->n_words)
        return cli_usage_error(add ? "add" : "remove", add ? "name the OpenAPI files, folders or "
                                                             "URLs to add"
                                                           : "name the API ids to remove");
    w->db = cli_db_path(w->db);
    const char *delay = getenv("APIDEX_TEST_INDEX_DELAY_MS");
    if (delay) w->opt.delay_ms = (unsigned)strtoul(delay, NULL, 10);
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
