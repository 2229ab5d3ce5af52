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
            "                    [--jobs N] [--json] [--quiet] [--verbose]\n"
            "  PATH              spec files, directories (searched recursively) or URLs\n"
            "  --db FILE         index file (default $APIDEX_DB or ./%s)\n"
            "  --strategy NAME   chunking: hybrid (default), endpoint, endpoint-re, endpoint-rf,\n"
            "                    json, nosplit, summary, query; NAME:SIZE:OVERLAP for windows\n"
            "  --filters LIST    preprocessing: base64,html,markdown,urls,urls-all,errors,\n"
            "                    headers,examples,request-body,remove-examples,all,none\n"
            "  --full            rebuild everything instead of reusing unchanged documents\n"
            "  --jobs N          threads (default $APIDEX_JOBS, else the CPUs): N-1 parse the\n"
            "                    next documents while one writes; the index is the same\n"
            "  --json            print a JSON summary on stdout\n"
            "  --verbose         also print warnings\n"
            "  --no-llm          summary/query: deterministic texts even when an LLM is\n"
            "                    configured (else the LLM writes them; docs/LLM.md)\n"
            "Dense vectors (every chunk's text is embedded when one of these is given;\n"
            "docs/SEARCH.md):\n%s"
            "Documents not among PATH... are removed from the index. Exit status: 0 ok,\n"
            "1 some documents failed (the rest is indexed), 2 usage, 3 failure.\n",
            STORE_DEFAULT_DB, cli_embed_flags_help());
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
    /* Deferred: documents are parsed while the build goes, a few at a time, never all. */
    spec_options sopt = {.deferred = true};
    int rc = spec_registry_new(&sopt, &reg, err);
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
    if (rc) return rc == APIDEX_EINVAL ? CLI_USAGE : CLI_FAILURE;
    return rep->failed ? CLI_PROBLEMS : CLI_OK;
}

int cli_cmd_index(int argc, char **argv)
{
    const char *db = NULL;
    store_build_options opt = {0};
    bool json = false, quiet = false, verbose = false, no_llm = false;
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
        } else if (!strcmp(a, "--jobs") && v) {
            char *end = NULL;
            long j = strtol(v, &end, 10);
            if (end == v || *end || j < 1 || j > 64) {
                free(paths);
                return cli_usage_error("index", "--jobs takes a number from 1 to 64, not '%s'", v);
            }
            opt.jobs = (unsigned)j;
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
        return code;
    }
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
                        rep.added, rep.updated, rep.removed, rep.unchanged, rep.failed, rep.kept,
                        rep.n_apis, rep.n_operations, rep.n_schemas, rep.n_chunks, rep.n_edges,
                        rep.embedded, rep.vectors_reused, rep.full_rebuild ? "true" : "false");
        core_buf_json_str(&b, rep.reason, strlen(rep.reason));
        core_buf_printf(&b, ",\"build_id\":\"%016llx\",\"seconds\":%.3f,\"errors\":[",
                        (unsigned long long)rep.build_id, rep.seconds);
        if (errors.len) core_buf_append(&b, errors.data, errors.len);
        core_buf_puts(&b, "]}\n");
        fputs(b.data, stdout);
        core_buf_free(&b);
    } else if (!quiet) {
        fprintf(stderr,
                "indexed into %s: %zu added, %zu updated, %zu removed, %zu unchanged, "
                "%zu failed%s (%.2f s)\n"
                "  %zu APIs, %zu operations, %zu schemas, %zu chunks, %zu edges\n",
                db, rep.added, rep.updated, rep.removed, rep.unchanged, rep.failed,
                rep.kept ? " (previous version kept)" : "", rep.seconds, rep.n_apis,
                rep.n_operations, rep.n_schemas, rep.n_chunks, rep.n_edges);
        if (embed_flags.given)
            fprintf(stderr, "  %zu chunks embedded, %zu vectors reused\n", rep.embedded,
                    rep.vectors_reused);
        if (rep.full_rebuild && rep.reason[0]) fprintf(stderr, "  full rebuild: %s\n", rep.reason);
    }
    core_buf_free(&errors);
    return code;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_index(FILE *out)
{
    index_usage(out);
}
