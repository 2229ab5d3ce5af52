/* apidex index: load specs and build (or incrementally rebuild) the index; shared by eval. */
#include "cli/cli.h"

#include "embed/embed.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void index_usage(FILE *out)
{
    fprintf(out,
            "usage: apidex index PATH... [--db FILE] [--strategy NAME] [--filters LIST] [--full]\n"
            "                    [--prune] [--wait SECONDS] [--no-wait] [--json] [--quiet]\n"
            "                    [--verbose]\n"
            "  PATH              spec files, directories (searched recursively) or URLs\n"
            "  --db FILE         index file (default $APIDEX_DB or ./%s)\n"
            "  --strategy NAME   chunking: hybrid (default), endpoint, endpoint-re, endpoint-rf,\n"
            "                    json, nosplit, summary, query; NAME:SIZE:OVERLAP for windows\n"
            "  --filters LIST    preprocessing: base64,html,markdown,urls,urls-all,errors,\n"
            "                    headers,examples,request-body,remove-examples,all,none\n"
            "  --full            rebuild everything instead of reusing unchanged documents;\n"
            "                    also replaces a damaged index (never another program's file)\n"
            "  --prune           allow a build that removes more than half of the indexed\n"
            "                    APIs, or that has no documents at all (else refused, exit 4)\n"
            "%s"
            "  --json            print a JSON summary on stdout\n"
            "  --verbose         also print warnings\n"
            "  --no-llm          summary/query: deterministic texts even when an LLM is\n"
            "                    configured (else the LLM writes them; docs/LLM.md)\n"
            "Dense vectors (every chunk's text is embedded when one of these is given;\n"
            "docs/SEARCH.md):\n%s"
            "The index becomes exactly PATH...: documents not among them are removed\n"
            "('apidex add' and 'apidex remove' change one API and keep the rest). Exit\n"
            "status: 0 ok, 1 some documents failed (the rest is indexed), 2 usage, 3 failure,\n"
            "4 refused (nothing changed: see --prune; or --db is not an apidex index),\n"
            "5 another writer held the index (--no-wait, --wait).\n",
            STORE_DEFAULT_DB, cli_write_flags_help(), cli_embed_flags_help());
}

const char *cli_db_path(const char *flag)
{
    if (flag) return flag;
    const char *env = getenv("APIDEX_DB");
    return env && *env ? env : STORE_DEFAULT_DB;
}

/* ---------------------------------------------------------------- progress */

typedef struct progress_state {
    bool on;
    int last_width;
} progress_state;

static void progress_draw(void *ctx, size_t done, size_t total, const char *doc)
{
    progress_state *p = ctx;
    if (!p->on) return;
    enum { BAR = 30 };
    if (!doc) {
        fprintf(stderr, "\r%*s\r", p->last_width, "");
        return;
    }
    size_t fill = total ? done * BAR / total : BAR;
    char bar[BAR + 1];
    for (size_t i = 0; i < BAR; i++) bar[i] = i < fill ? '=' : ' ';
    bar[BAR] = '\0';
    /* The tail of the path: file names alone ("openapi.yaml") say little. */
    size_t len = strlen(doc);
    const char *tail = len > 48 ? doc + len - 45 : doc;
    int w = fprintf(stderr, "\r[%s] %zu/%zu %s%s", bar, done, total, len > 48 ? "..." : "", tail);
    if (w < p->last_width) fprintf(stderr, "%*s", p->last_width - w, "");
    p->last_width = w > p->last_width ? w : p->last_width;
    fflush(stderr);
}

/* ---------------------------------------------------------------- diagnostics */

static void print_diag(const core_diag *d)
{
    fprintf(stderr, "%s", d->file && *d->file ? d->file : "?");
    if (d->line) fprintf(stderr, ":%u:%u", d->line, d->col);
    fprintf(stderr, ": %s: %s", d->level == CORE_DIAG_ERROR ? "error" : "warning", d->message);
    if (d->pointer && *d->pointer) fprintf(stderr, " (at %s)", d->pointer);
    fputc('\n', stderr);
}

static void json_diag(core_buf *b, const core_diag *d, bool first)
{
    const char *file = d->file ? d->file : "";
    const char *ptr = d->pointer ? d->pointer : "";
    core_buf_puts(b, first ? "{\"file\":" : ",{\"file\":");
    core_buf_json_str(b, file, strlen(file));
    core_buf_printf(b, ",\"line\":%u,\"col\":%u,\"pointer\":", d->line, d->col);
    core_buf_json_str(b, ptr, strlen(ptr));
    core_buf_printf(
        b, ",\"level\":\"%s\",\"message\":", d->level == CORE_DIAG_ERROR ? "error" : "warning");
    core_buf_json_str(b, d->message, strlen(d->message));
    core_buf_putc(b, '}');
}

/* Prints what went wrong per document (errors always, warnings when verbose) and
   collects the errors as JSON; returns the number of warnings not printed. */
static size_t report_diags(const spec_registry *reg, bool verbose, bool quiet, core_buf *json)
{
    size_t hidden = 0;
    bool first = true;
    for (size_t i = 0; i < spec_registry_count(reg); i++) {
        const spec_api *api = spec_registry_api(reg, i);
        for (size_t k = 0; k < api->diags.n; k++) {
            const core_diag *d = &api->diags.items[k];
            bool err = d->level == CORE_DIAG_ERROR;
            if (err && json) {
                json_diag(json, d, first);
                first = false;
            }
            if (err && !quiet)
                print_diag(d);
            else if (!err && verbose)
                print_diag(d);
            else if (!err)
                hidden++;
        }
    }
    return hidden;
}

/* ---------------------------------------------------------------- shared build */

int cli_build_index(const char *db, char *const *paths, size_t n_paths,
                    const store_build_options *opt, const cli_index_flags *flags,
                    store_build_report *rep, apidex_error *err)
{
    spec_registry *reg = NULL;
    spec_options so = {.api_id = flags->api_name};
    int rc = spec_registry_new(&so, &reg, err);
    if (rc) return CLI_FAILURE;
    for (size_t i = 0; i < n_paths; i++) {
        /* A path that is not there stops everything: indexing without it would
           remove its documents from the index. */
        rc = spec_registry_add(reg, paths[i], err);
        if (rc) {
            if (!err->file[0]) core_error_at(err, paths[i], 0, 0, NULL);
            spec_registry_free(reg);
            return rc == APIDEX_ENOMEM ? CLI_FAILURE : CLI_USAGE;
        }
    }
    if (flags->api_name && spec_registry_count(reg) != 1) {
        core_error_set(err, APIDEX_EINVAL,
                       "--name gives one API its id, but the paths hold %zu "
                       "documents",
                       spec_registry_count(reg));
        spec_registry_free(reg);
        return CLI_USAGE;
    }
    progress_state prog = {.on = flags->progress};
    store_build_options o = opt ? *opt : (store_build_options){0};
    o.progress = progress_draw;
    o.progress_ctx = &prog;
    rc = store_build(db, reg, &o, rep, err);
    if (prog.on && prog.last_width) progress_draw(&prog, 0, 0, NULL);
    size_t hidden = report_diags(reg, flags->verbose, flags->quiet, flags->errors_json);
    if (hidden && !flags->quiet && !flags->verbose)
        fprintf(stderr, "apidex: %zu warning%s (--verbose shows them)\n", hidden,
                hidden == 1 ? "" : "s");
    spec_registry_free(reg);
    if (rc) return cli_build_status(rc);
    return rep->failed ? CLI_PROBLEMS : CLI_OK;
}

int cli_build_status(int rc)
{
    switch (rc) {
    case APIDEX_OK:
        return CLI_OK;
    case APIDEX_EINVAL:
    case APIDEX_ENOTFOUND:
        return CLI_USAGE;
    case APIDEX_EREFUSED:
        return CLI_REFUSED;
    case APIDEX_EBUSY:
        return CLI_BUSY;
    default:
        return CLI_FAILURE;
    }
}

/* ---------------------------------------------------------------- writer flags */

const char *cli_write_flags_help(void)
{
    return "  --wait SECONDS    wait this long for another writer of the same index\n"
           "                    (default 300; it says once whom it waits for)\n"
           "  --no-wait         fail at once (exit 5) when another writer has the index\n";
}

int cli_write_parse_flag(int argc, char **argv, int *i, store_lock_options *lock)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--no-wait")) {
        lock->no_wait = true;
        return 1;
    }
    if (strcmp(a, "--wait") != 0 || *i + 1 >= argc) return 0;
    double s = 0;
    if (!cli_arg_double(argv[0], a, argv[*i + 1], 0, 1e7, false, &s)) return -1;
    lock->wait_seconds = s;
    lock->no_wait = s == 0;
    (*i)++;
    return 1;
}

static void tell_wait(void *ctx, long holder, double seconds)
{
    fprintf(stderr,
            "apidex: another apidex (pid %ld) is writing %s: waiting for it, up to %g s "
            "(--no-wait fails at once)\n",
            holder, (const char *)ctx, seconds);
}

void cli_write_tell_wait(store_lock_options *lock, const char *db)
{
    lock->on_wait = tell_wait;
    lock->on_wait_ctx = (void *)db;
}

/* ---------------------------------------------------------------- what changed */

static void collect_change(void *ctx, store_change kind, const char *api)
{
    cli_changes *c = ctx;
    if (kind < STORE_CHANGE_ADDED || kind > STORE_CHANGE_REMOVED) return;
    core_buf_append(&c->ids[kind - 1], api, strlen(api) + 1);
    c->n[kind - 1]++;
}

void cli_changes_collect(cli_changes *c, store_build_options *opt)
{
    memset(c, 0, sizeof *c);
    for (int k = 0; k < 3; k++) core_buf_init(&c->ids[k], 0);
    opt->on_change = collect_change;
    opt->on_change_ctx = c;
}

void cli_changes_free(cli_changes *c)
{
    for (int k = 0; k < 3; k++) core_buf_free(&c->ids[k]);
}

static const char *const change_names[3] = {"added", "updated", "removed"};

/* "  added: a, b, c and 12 more" (the first ten ids). */
static void print_ids(const cli_changes *c, int k)
{
    if (!c || !c->n[k]) return;
    fprintf(stderr, "  %s:", change_names[k]);
    const char *p = c->ids[k].data;
    for (size_t i = 0; i < c->n[k] && i < 10; i++, p += strlen(p) + 1)
        fprintf(stderr, "%s %s", i ? "," : "", p);
    if (c->n[k] > 10) fprintf(stderr, " and %zu more", c->n[k] - 10);
    fputc('\n', stderr);
}

static void json_ids(core_buf *b, const cli_changes *c, int k)
{
    core_buf_printf(b, ",\"%s_apis\":[", change_names[k]);
    const char *p = c ? c->ids[k].data : NULL;
    for (size_t i = 0; c && i < c->n[k]; i++, p += strlen(p) + 1) {
        if (i) core_buf_putc(b, ',');
        core_buf_json_str(b, p, strlen(p));
    }
    core_buf_putc(b, ']');
}

void cli_print_build(const char *verb, const char *db, const store_build_report *rep,
                     const cli_changes *c, const core_buf *errors, bool json, bool quiet,
                     bool embedded)
{
    if (json) {
        core_buf b;
        core_buf_init(&b, 0);
        core_buf_puts(&b, "{\"db\":");
        core_buf_json_str(&b, db, strlen(db));
        core_buf_printf(&b,
                        ",\"added\":%zu,\"updated\":%zu,\"removed\":%zu,\"unchanged\":%zu,"
                        "\"failed\":%zu,\"kept\":%zu,\"apis\":%zu,\"operations\":%zu,"
                        "\"schemas\":%zu,\"chunks\":%zu,\"edges\":%zu,\"embedded\":%zu,"
                        "\"vectors_reused\":%zu,\"full_rebuild\":%s,\"reason\":",
                        rep->added, rep->updated, rep->removed, rep->unchanged, rep->failed,
                        rep->kept, rep->n_apis, rep->n_operations, rep->n_schemas, rep->n_chunks,
                        rep->n_edges, rep->embedded, rep->vectors_reused,
                        rep->full_rebuild ? "true" : "false");
        core_buf_json_str(&b, rep->reason, strlen(rep->reason));
        for (int k = 0; k < 3; k++) json_ids(&b, c, k);
        core_buf_printf(&b, ",\"build_id\":\"%016llx\",\"seconds\":%.3f,\"errors\":[",
                        (unsigned long long)rep->build_id, rep->seconds);
        if (errors && errors->len) core_buf_append(&b, errors->data, errors->len);
        core_buf_puts(&b, "]}\n");
        fputs(b.data, stdout);
        core_buf_free(&b);
        return;
    }
    if (quiet) return;
    fprintf(stderr,
            "%s %s: %zu added, %zu updated, %zu removed, %zu unchanged, %zu failed%s (%.2f s)\n",
            verb, db, rep->added, rep->updated, rep->removed, rep->unchanged, rep->failed,
            rep->kept ? " (previous version kept)" : "", rep->seconds);
    for (int k = 0; k < 3; k++) print_ids(c, k);
    fprintf(stderr, "  %zu APIs, %zu operations, %zu schemas, %zu chunks, %zu edges\n", rep->n_apis,
            rep->n_operations, rep->n_schemas, rep->n_chunks, rep->n_edges);
    if (embedded)
        fprintf(stderr, "  %zu chunks embedded, %zu vectors reused\n", rep->embedded,
                rep->vectors_reused);
    if (rep->full_rebuild && rep->reason[0]) fprintf(stderr, "  full rebuild: %s\n", rep->reason);
}

int cli_cmd_index(int argc, char **argv)
{
    const char *db = NULL;
    store_build_options opt = {0};
    bool json = false, quiet = false, verbose = false, no_llm = false, prune = false;
    cli_llm_flags llm_flags = {0};
    cli_embed_flags embed_flags = {0};
    int embed_flag = 0;
    char **paths = calloc((size_t)argc, sizeof *paths);
    size_t n_paths = 0;
    if (!paths) return CLI_FAILURE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            index_usage(stdout);
            free(paths);
            return CLI_OK;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = true;
        } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
            verbose = true;
        } else if (!strcmp(a, "--full")) {
            opt.full = true;
        } else if (!strcmp(a, "--prune")) {
            prune = true;
        } else if ((embed_flag = cli_write_parse_flag(argc, argv, &i, &opt.lock)) != 0) {
            if (embed_flag < 0) {
                free(paths);
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "--no-llm")) {
            no_llm = true;
        } else if ((embed_flag = cli_embed_parse_flag(argc, argv, &i, &embed_flags)) != 0) {
            if (embed_flag > 0 && (embed_flags.weight_arg || embed_flags.mode_given))
                cli_usage_error("index", "%s is a search option, not an index one", a);
            if (embed_flag < 0 || embed_flags.weight_arg || embed_flags.mode_given) {
                free(paths);
                return CLI_USAGE;
            }
        } else if ((embed_flag = cli_llm_parse_flag(argc, argv, &i, &llm_flags)) != 0) {
            /* LLM flags: for the texts of the summary and query strategies */
            if (embed_flag < 0) {
                free(paths);
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "--db") && v) {
            db = v;
            i++;
        } else if (!strcmp(a, "--strategy") && v) {
            if (!cli_arg_strategy("index", a, v)) {
                free(paths);
                return CLI_USAGE;
            }
            opt.strategy = v;
            i++;
        } else if (!strcmp(a, "--filters") && v) {
            opt.filters = v;
            i++;
        } else if (a[0] == '-' && a[1]) {
            free(paths);
            return cli_arg_unknown("index", a);
        } else {
            paths[n_paths++] = argv[i];
        }
    }
    if (!n_paths) {
        free(paths);
        return cli_usage_error("index", "name the OpenAPI files or folders to index");
    }
    db = cli_db_path(db);
    /* Test hook: a pause after each document, so a test can kill -9 a build midway. */
    const char *delay = getenv("APIDEX_TEST_INDEX_DELAY_MS");
    if (delay) opt.delay_ms = (unsigned)strtoul(delay, NULL, 10);
    opt.guard = !prune;
    if (!quiet) cli_write_tell_wait(&opt.lock, db);
    cli_changes changes;
    cli_changes_collect(&changes, &opt);

    core_buf errors;
    core_buf_init(&errors, 0);
    cli_index_flags flags = {.progress = !json && !quiet && cli_stderr_is_tty(),
                             .quiet = quiet,
                             .verbose = verbose,
                             .errors_json = json ? &errors : NULL};
    apidex_error err;
    core_error_clear(&err);
    store_build_report rep = {0};
    cli_llm_refine *llm_texts = NULL;
    embed_provider *embedder = NULL;
    if (embed_flags.given) {
        int ec = cli_embed_open(&embed_flags, &embedder);
        if (ec != CLI_OK) {
            free(paths);
            core_buf_free(&errors);
            cli_changes_free(&changes);
            return ec;
        }
        opt.embedder = embedder;
    }
    int code = cli_llm_refine_begin(&opt, &llm_flags, no_llm, flags.progress, &llm_texts);
    if (code != CLI_OK)
        core_error_set(&err, APIDEX_EINVAL,
                       "the LLM for the summary/query texts is not usable "
                       "(--no-llm indexes without it)");
    if (code == CLI_OK) code = cli_build_index(db, paths, n_paths, &opt, &flags, &rep, &err);
    cli_llm_refine_end(llm_texts, quiet || json);
    embed_provider_close(embedder);
    free(paths);
    if (code != CLI_OK && code != CLI_PROBLEMS) {
        cli_print_error(&err);
        core_buf_free(&errors);
        cli_changes_free(&changes);
        return code;
    }
    cli_print_build("indexed into", db, &rep, &changes, &errors, json, quiet, embed_flags.given);
    core_buf_free(&errors);
    cli_changes_free(&changes);
    return code;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_index(FILE *out)
{
    index_usage(out);
}
