/* apidex index: load specs and build (or incrementally rebuild) the index; shared by eval. */
#include "cli/cli.h"

#include "build/build.h"
#include "embed/embed.h"
#include "registry/registry.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct index_opts {
    const char *db, *registry, *api_name;
    unsigned load_memory; /* --max-load-memory */
    build_options opt;
    bool json, quiet, verbose, no_llm, prune, watch;
    cli_llm_flags llm;
    cli_embed_flags embed;
    char **paths; /* PATH... and the sources of --mcp-config (room for argc) */
    size_t n_paths;
} index_opts;

static int take_strategy(const char *cmd, const char *flag, const char *value, void *opts)
{
    if (!cli_arg_strategy(cmd, flag, value)) return CLI_USAGE;
    ((index_opts *)opts)->opt.strategy = value;
    return CLI_OK;
}

static int take_jobs(const char *cmd, const char *flag, const char *value, void *opts)
{
    char *end = NULL;
    long j = strtol(value, &end, 10);
    if (end == value || *end || j < 1 || j > 64)
        return cli_usage_error(cmd, "--jobs takes a number from 1 to 64, not '%s'", value);
    ((index_opts *)opts)->opt.jobs = (unsigned)j;
    return CLI_OK;
}

static int take_load_memory(const char *cmd, const char *flag, const char *value, void *opts)
{
    return cli_arg_load_memory(cmd, value, &((index_opts *)opts)->load_memory) ? CLI_OK : CLI_USAGE;
}

static int take_name(const char *cmd, const char *flag, const char *value, void *opts)
{
    if (!cli_arg_api_id(cmd, flag, value)) return CLI_USAGE;
    ((index_opts *)opts)->api_name = value;
    return CLI_OK;
}

static int take_mcp_config(const char *cmd, const char *flag, const char *value, void *opts)
{
    index_opts *o = opts;
    const char *src = cli_mcp_config_source(value);
    if (!src) return cli_usage_error(cmd, "too many --mcp-config");
    o->paths[o->n_paths++] = (char *)src;
    return CLI_OK;
}

static const cli_flag index_rows[] = {
    CLI_TEXT("usage: apidex index [PATH...] [--registry FILE] [--watch] [--db FILE]\n"
             "                    [--strategy NAME] [--filters LIST] [--full] [--prune]\n"
             "                    [--jobs N] [--max-load-memory N] [--name ID] [--wait SECONDS]\n"
             "                    [--mcp-config FILE]\n"
             "                    [--no-wait] [--json]\n"
             "                    [--quiet] [--verbose]\n"
             "  PATH              spec files, directories (searched recursively) or URLs;\n"
             "                    MCP servers: mcp+stdio:'PROGRAM ARG...', mcp+http(s)://URL\n"
             "                    (docs/MCP-SOURCES.md); none: the sources of the registry file\n"),
    CLI_HANDLER("--mcp-config", NULL, take_mcp_config, NULL,
                "  --mcp-config FILE every server of an MCP client config (mcpServers JSON)\n"),
    CLI_HANDLER("--name", NULL, take_name, NULL,
                "  --name ID         the API id of the one document PATH holds (else the id comes\n"
                "                    from the document; docs/INDEX.md, \"API ids\")\n"),
    CLI_STRING("--registry", NULL, index_opts, registry,
               "  --registry FILE   the registry file (default $APIDEX_REGISTRY or "
               "./" REGISTRY_DEFAULT_FILE ";\n"
               "                    docs/REGISTRY.md): sources, ids, tag filters, overrides\n"),
    CLI_SWITCH("--watch", NULL, index_opts, watch,
               "  --watch           keep running: re-index when the sources or the registry\n"
               "                    file change (inotify; Ctrl-C stops)\n"),
    CLI_STRING("--db", NULL, index_opts, db,
               "  --db FILE         index file (default $APIDEX_DB, the registry's db, or "
               "./" STORE_DEFAULT_DB ")\n"),
    CLI_HANDLER(
        "--strategy", NULL, take_strategy, NULL,
        "  --strategy NAME   chunking: hybrid (default), endpoint, endpoint-re, "
        "endpoint-rf,\n"
        "                    json, nosplit, summary, query; NAME:SIZE:OVERLAP for windows\n"),
    CLI_STRING("--filters", NULL, index_opts, opt.filters,
               "  --filters LIST    preprocessing: base64,html,markdown,urls,urls-all,errors,\n"
               "                    headers,examples,request-body,remove-examples,all,none\n"),
    CLI_SWITCH(
        "--full", NULL, index_opts, opt.full,
        "  --full            rebuild everything instead of reusing unchanged documents;\n"
        "                    also replaces a damaged index (never another program's file)\n"),
    CLI_SWITCH(
        "--prune", NULL, index_opts, prune,
        "  --prune           allow a build that removes more than half of the indexed\n"
        "                    APIs, or that has no documents at all (else refused, exit 4)\n"),
    CLI_HANDLER("--jobs", NULL, take_jobs, NULL,
                "  --jobs N          threads (default $APIDEX_JOBS, else the CPUs): N-1 parse the\n"
                "                    next documents while one writes; the index is the same\n"),
    CLI_HANDLER(
        "--max-load-memory", NULL, take_load_memory, NULL,
        "  --max-load-memory N  memory one document may use while it loads: 64 MiB + N x\n"
        "                    the bytes of its files (default $APIDEX_MAX_LOAD_MEMORY, else\n"
        "                    32); past it that document fails, the others are indexed\n"),
    CLI_INCLUDE(index_opts, opt.lock, &cli_write_table),
    CLI_SWITCH("--json", NULL, index_opts, json,
               "  --json            print a JSON summary on stdout\n"),
    {.kind = CLI_F_SWITCH,
     .name = "--quiet",
     .also = "-q",
     .at = CLI_FIELD_(index_opts, quiet, bool)},
    {.kind = CLI_F_SWITCH,
     .name = "--verbose",
     .also = "-v",
     .at = CLI_FIELD_(index_opts, verbose, bool),
     .help = "  --verbose         also print warnings\n"},
    CLI_SWITCH("--no-llm", NULL, index_opts, no_llm,
               "  --no-llm          summary/query: deterministic texts even when an LLM is\n"
               "                    configured (else the LLM writes them; docs/LLM.md)\n"),
    CLI_TEXT("Dense vectors (every chunk's text is embedded when one of these is given;\n"
             "docs/SEARCH.md):\n"),
    CLI_INCLUDE(index_opts, embed, &cli_embed_model_table),
    CLI_INCLUDE(index_opts, embed, &cli_embed_refused_table),
    CLI_TEXT("With --strategy summary or query (without --no-llm):\n"),
    CLI_INCLUDE(index_opts, llm, &cli_llm_table),
    CLI_TEXT("The index becomes exactly PATH... (or the registry's sources): documents not\n"
             "among them are removed ('apidex add' and 'apidex remove' change one API and\n"
             "keep the rest). Exit status: 0 ok, 1 some documents failed (the rest is\n"
             "indexed), 2 usage, 3 failure, 4 refused (nothing changed: see --prune; or --db\n"
             "is not an apidex index), 5 another writer held the index (--no-wait, --wait).\n"),
};
const cli_flag_table cli_index_table = {index_rows, sizeof index_rows / sizeof *index_rows};

static void index_usage(FILE *out)
{
    cli_flags_help(&cli_index_table, out);
}

const char *cli_db_path(const char *flag)
{
    if (flag) return flag;
    const char *env = getenv("APIDEX_DB");
    if (env && *env) return env;
    /* The registry file's db, so `apidex search` finds what `apidex index` built from it.
       A registry file that does not parse is index's business: here it names no db. */
    static char from_registry[4096];
    const char *reg = registry_file_path(NULL);
    registry_file *rf = NULL;
    apidex_error err;
    core_error_clear(&err);
    if (access(reg, R_OK) == 0 && registry_file_load(reg, &rf, &err) == 0 && rf->db &&
        strlen(rf->db) < sizeof from_registry) {
        memcpy(from_registry, rf->db, strlen(rf->db) + 1);
        registry_file_free(rf);
        return from_registry;
    }
    registry_file_free(rf);
    return STORE_DEFAULT_DB;
}

const char *cli_db_path_registry(const char *flag, const registry_file *rf)
{
    if (!rf) return cli_db_path(flag);
    if (flag) return flag;
    const char *env = getenv("APIDEX_DB");
    if (env && *env) return env;
    return rf->db ? rf->db : STORE_DEFAULT_DB;
}

unsigned cli_index_test_delay_ms(void)
{
    const char *delay = getenv("APIDEX_TEST_INDEX_DELAY_MS");
    return delay ? (unsigned)strtoul(delay, NULL, 10) : 0;
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

/* An API without operations is indexed, but no search can find it: say so by default
   (warnings of a load wait for --verbose, this one would surprise). */
static void warn_empty(void *ctx, const char *api, const char *file)
{
    (void)ctx;
    fprintf(stderr,
            "%s: warning: no operations (an empty 'paths'): indexed as '%s', but no "
            "search will find it\n",
            file, api);
}

/* Builds db from the loaded reg and reports its diagnostics; frees reg. */
static int build_loaded(const char *db, spec_registry *reg, const build_options *opt,
                        const cli_index_flags *flags, store_build_report *rep, apidex_error *err)
{
    int rc;
    progress_state prog = {.on = flags->progress};
    build_options o = opt ? *opt : (build_options){0};
    o.progress = progress_draw;
    o.progress_ctx = &prog;
    if (!flags->quiet && !o.on_empty) o.on_empty = warn_empty;
    rc = build_index(db, reg, &o, rep, err);
    if (prog.on && prog.last_width) progress_draw(&prog, 0, 0, NULL);
    size_t hidden = report_diags(reg, flags->verbose, flags->quiet, flags->errors_json);
    if (hidden && !flags->quiet && !flags->verbose)
        fprintf(stderr, "apidex: %zu warning%s (--verbose shows them)\n", hidden,
                hidden == 1 ? "" : "s");
    spec_registry_free(reg);
    if (rc) return cli_build_status(rc);
    return rep->failed ? CLI_PROBLEMS : CLI_OK;
}

int cli_build_index(const char *db, char *const *paths, size_t n_paths, const build_options *opt,
                    const cli_index_flags *flags, store_build_report *rep, apidex_error *err)
{
    spec_registry *reg = NULL;
    /* Deferred: documents are parsed while the build goes, a few at a time, never all. */
    spec_options so = {
        .api_id = flags->api_name, .deferred = true, .load_memory_factor = flags->load_memory};
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
    return build_loaded(db, reg, opt, flags, rep, err);
}

int cli_build_registry(const char *db, const registry_file *rf, const build_options *opt,
                       const cli_index_flags *flags, store_build_report *rep, apidex_error *err)
{
    spec_registry *reg = NULL;
    registry_loaded *loaded = NULL;
    /* Deferred, as for PATH...: a registry of thousands of documents is never all loaded. */
    spec_options so = {.deferred = true, .load_memory_factor = flags->load_memory};
    int rc = spec_registry_new(&so, &reg, err);
    if (rc) return CLI_FAILURE;
    /* A source that is not there stops everything, as a PATH does. */
    rc = registry_file_add_specs(rf, reg, &loaded, err);
    if (rc) {
        spec_registry_free(reg);
        return rc == APIDEX_ENOMEM ? CLI_FAILURE : CLI_USAGE;
    }
    build_options o = opt ? *opt : (build_options){0};
    o.overrides = registry_overrides;
    o.overrides_ctx = loaded;
    int code = build_loaded(db, reg, &o, flags, rep, err);
    registry_loaded_free(loaded);
    return code;
}

/* One build of `apidex index`, from PATH... or a registry file (the watch loop calls it). */
typedef struct index_run {
    const char *db;
    char **paths;
    size_t n_paths;
    build_options opt;
    cli_index_flags flags;
    bool json, quiet, embedded;
} index_run;

static int index_once(void *ctx, const registry_file *rf)
{
    index_run *r = ctx;
    core_buf errors;
    core_buf_init(&errors, 0);
    cli_index_flags flags = r->flags;
    flags.errors_json = r->json ? &errors : NULL;
    apidex_error err;
    core_error_clear(&err);
    store_build_report rep = {0};
    build_options opt = r->opt;
    cli_changes changes;
    cli_changes_collect(&changes, &opt);
    /* the registry's settings, where no flag gave them */
    if (rf && !opt.strategy) opt.strategy = rf->strategy;
    if (rf && !opt.filters) opt.filters = rf->filters;
    int code = rf && !r->n_paths
                   ? cli_build_registry(r->db, rf, &opt, &flags, &rep, &err)
                   : cli_build_index(r->db, r->paths, r->n_paths, &opt, &flags, &rep, &err);
    if (code != CLI_OK && code != CLI_PROBLEMS)
        cli_print_error(&err);
    else
        cli_print_build("indexed into", r->db, &rep, &changes, &errors, r->json, r->quiet,
                        r->embedded);
    fflush(stdout);
    core_buf_free(&errors);
    cli_changes_free(&changes);
    return code;
}

/* --watch: SIGINT/SIGTERM end the loop through a pipe, after the build that runs. */
static int watch_stop[2] = {-1, -1};

static void on_watch_signal(int sig)
{
    /* the first signal ends the loop after the build that runs; a second one now (the
       build is atomic: the previous index stays, the next build removes the temp file) */
    static volatile sig_atomic_t signals;
    if (++signals > 1) _exit(128 + sig);
    unsigned char b = (unsigned char)sig;
    ssize_t w = write(watch_stop[1], &b, 1);
    (void)w;
}

static int index_watch(index_run *run, const char *registry_path, const registry_file *rf)
{
    if (core_sys_pipe_cloexec(watch_stop) != 0) {
        fprintf(stderr, "apidex index: pipe: %s\n", strerror(errno));
        return CLI_FAILURE;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_watch_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    registry_mcp *mcp = NULL; /* the stdio MCP servers kept open for tools/list_changed */
    registry_watch_options wo = {.registry_path = registry_path,
                                 .rf = rf,
                                 .build = index_once,
                                 .build_ctx = run,
                                 .stop_fd = watch_stop[0],
                                 .build_first = true,
                                 .mcp = &mcp};
    apidex_error err;
    core_error_clear(&err);
    int rc = registry_watch_run(&wo, &err);
    registry_mcp_free(mcp);
    close(watch_stop[0]);
    close(watch_stop[1]);
    if (rc) {
        cli_print_error(&err);
        return rc == APIDEX_EINVAL || rc == APIDEX_ENOTFOUND ? CLI_USAGE : CLI_FAILURE;
    }
    return CLI_OK;
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

#define HELP_WAIT                                                                                  \
    "  --wait SECONDS    wait this long for another writer of the same index\n"                    \
    "                    (default 300; it says once whom it waits for)\n"
#define HELP_NO_WAIT "  --no-wait         fail at once (exit 5) when another writer has the index\n"

static int take_wait(const char *cmd, const char *flag, const char *value, void *opts)
{
    store_lock_options *lock = opts;
    double s = 0;
    if (!cli_arg_double(cmd, flag, value, 0, 1e7, false, &s)) return CLI_USAGE;
    lock->wait_seconds = s;
    lock->no_wait = s == 0;
    return CLI_OK;
}

static const cli_flag write_rows[] = {
    CLI_HANDLER("--wait", NULL, take_wait, NULL, HELP_WAIT),
    CLI_SWITCH("--no-wait", NULL, store_lock_options, no_wait, HELP_NO_WAIT),
};
const cli_flag_table cli_write_table = {write_rows, sizeof write_rows / sizeof *write_rows};

static void tell_wait(void *ctx, long holder, double seconds)
{
    char shown[1024];
    ctx = (void *)store_display(ctx, shown, sizeof shown);
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

void cli_changes_collect(cli_changes *c, build_options *opt)
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
    char shown[1024];
    db = store_display(db, shown, sizeof shown); /* a URL without its password */
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
    index_opts io = {0};
    char **paths = io.paths = calloc((size_t)argc, sizeof *paths);
    if (!paths) return CLI_FAILURE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_flags_take("index", &cli_index_table, index_usage, argc, argv, &i, &io);
        if (r == CLI_FLAGS_HELP || r < 0) {
            free(paths);
            return r == CLI_FLAGS_HELP ? CLI_OK : CLI_USAGE;
        }
        if (r) continue;
        if (a[0] == '-' && a[1]) {
            free(paths);
            return cli_arg_unknown("index", a);
        }
        paths[io.n_paths++] = argv[i];
    }
    const char *db = io.db, *registry_flag = io.registry, *api_name = io.api_name;
    unsigned load_memory = io.load_memory;
    build_options opt = io.opt;
    bool json = io.json, quiet = io.quiet, verbose = io.verbose, no_llm = io.no_llm;
    bool prune = io.prune, watch = io.watch;
    cli_llm_flags llm_flags = io.llm;
    cli_embed_flags embed_flags = io.embed;
    size_t n_paths = io.n_paths;
    if (n_paths && registry_flag) {
        free(paths);
        return cli_usage_error("index", "give PATH... or --registry FILE, not both");
    }
    if (api_name && !n_paths) {
        free(paths);
        return cli_usage_error("index", "--name gives the id of the one document PATH holds "
                                        "(a registry file gives ids with 'id:')");
    }
    /* No PATH: the registry file (--registry, $APIDEX_REGISTRY or ./apidex.yaml). */
    registry_file *rf = NULL;
    const char *registry_path = NULL;
    if (!n_paths) {
        registry_path = registry_file_path(registry_flag);
        bool named = registry_flag || (getenv("APIDEX_REGISTRY") && *getenv("APIDEX_REGISTRY"));
        if (!named && access(registry_path, F_OK) != 0) {
            free(paths);
            return cli_usage_error("index",
                                   "name the OpenAPI files or folders to index, or list them in "
                                   "./%s (docs/REGISTRY.md)",
                                   REGISTRY_DEFAULT_FILE);
        }
        apidex_error rerr;
        core_error_clear(&rerr);
        int rrc = registry_file_load(registry_path, &rf, &rerr);
        if (rrc) {
            cli_print_error(&rerr);
            free(paths);
            return rrc == APIDEX_ENOMEM || rrc == APIDEX_EIO ? CLI_FAILURE : CLI_USAGE;
        }
    }
    db = cli_db_path_registry(db, rf);
    opt.delay_ms = cli_index_test_delay_ms();
    opt.guard = !prune;
    if (!quiet) cli_write_tell_wait(&opt.lock, db);

    index_run run = {.db = db,
                     .paths = paths,
                     .n_paths = n_paths,
                     .json = json,
                     .quiet = quiet,
                     .embedded = embed_flags.given,
                     .flags = {.progress = !json && !quiet && !watch && cli_stderr_is_tty(),
                               .quiet = quiet,
                               .verbose = verbose,
                               .api_name = api_name,
                               .load_memory = load_memory}};
    cli_llm_refine *llm_texts = NULL;
    embed_provider *embedder = NULL;
    int code = CLI_OK;
    if (embed_flags.given) {
        code = cli_embed_open(&embed_flags, &embedder);
        opt.embedder = embedder;
    }
    if (code == CLI_OK) {
        code = cli_llm_refine_begin(&opt, &llm_flags, no_llm, run.flags.progress, &llm_texts);
        if (code != CLI_OK)
            fprintf(stderr, "apidex index: the LLM for the summary/query texts is not usable "
                            "(--no-llm indexes without it)\n");
    }
    run.opt = opt;
    if (code == CLI_OK && watch) {
        /* PATH... are watched as a registry of those paths */
        registry_file *from_paths = NULL;
        if (n_paths) {
            apidex_error perr;
            core_error_clear(&perr);
            if (registry_file_from_paths((const char *const *)paths, n_paths, &from_paths, &perr)) {
                cli_print_error(&perr);
                code = CLI_FAILURE;
            }
        }
        if (code == CLI_OK)
            code = index_watch(&run, n_paths ? NULL : registry_path, n_paths ? from_paths : rf);
        registry_file_free(from_paths);
    } else if (code == CLI_OK) {
        code = index_once(&run, rf);
    }
    cli_llm_refine_end(llm_texts, quiet || json);
    embed_provider_close(embedder);
    registry_file_free(rf);
    free(paths);
    return code;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_index(FILE *out)
{
    index_usage(out);
}
