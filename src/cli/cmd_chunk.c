/* apidex chunk: load specs, chunk them with one strategy and print the chunks
 * (readable, or JSON with ids, endpoints, content, text and metadata). */
#include "cli/cli.h"

#include "chunk/chunk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "a.com, B.io" -> {"a.com", "b.io", NULL} in one allocation (lower case: hosts compare so). */
static char **split_hosts(const char *list)
{
    size_t n = 1, len = strlen(list);
    for (const char *p = list; *p; p++) n += *p == ',';
    char **v = malloc((n + 1) * sizeof *v + len + 1);
    if (!v) return NULL;
    char *s = (char *)(v + n + 1);
    memcpy(s, list, len + 1);
    size_t k = 0;
    for (char *tok = s; tok;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = 0;
        while (*tok == ' ') tok++;
        char *end = tok + strlen(tok);
        while (end > tok && end[-1] == ' ') *--end = 0;
        for (char *c = tok; *c; c++)
            if (*c >= 'A' && *c <= 'Z') *c = (char)(*c + 32);
        if (*tok) v[k++] = tok;
        tok = comma ? comma + 1 : NULL;
    }
    v[k] = NULL;
    return v;
}

typedef struct chunk_opts {
    chunk_options opt;
    char **blacklist; /* --url-blacklist, split (freed by the command) */
    size_t depth;
    bool json, fields, out_of_memory;
} chunk_opts;

static int take_strategy(const char *cmd, const char *flag, const char *value, void *opts)
{
    apidex_error err;
    if (!cli_arg_strategy(cmd, flag, value) ||
        chunk_strategy_parse(value, &((chunk_opts *)opts)->opt.strategy, &err))
        return CLI_USAGE;
    return CLI_OK;
}

static int take_filters(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)flag;
    apidex_error err;
    if (prep_parse_filters(value, &((chunk_opts *)opts)->opt.prep.filters, &err))
        return cli_usage_error(cmd, "%s", err.message);
    return CLI_OK;
}

static int take_blacklist(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)cmd, (void)flag;
    chunk_opts *o = opts;
    free(o->blacklist);
    o->blacklist = split_hosts(value);
    o->out_of_memory = !o->blacklist;
    o->opt.prep.url_blacklist = (const char *const *)o->blacklist;
    return o->blacklist ? CLI_OK : CLI_FAILURE;
}

static const cli_flag chunk_rows[] = {
    CLI_TEXT("usage: apidex chunk PATH... [--strategy NAME] [--size S] [--overlap L]\n"
             "                    [--filters LIST] [--depth N] [--json] [--fields]\n"
             "\n"
             "Chunks the OpenAPI documents in PATH (files, directories, URLs) and prints them.\n"),
    CLI_HANDLER(
        "--strategy", NULL, take_strategy, NULL,
        "  --strategy NAME  hybrid (default), nosplit, endpoint, endpoint-re, endpoint-rf,\n"
        "                   json, summary, query\n"),
    CLI_SIZE("--size", NULL, chunk_opts, opt.size, 1, (size_t)1 << 40,
             "  --size S         token window size in cl100k tokens (nosplit, endpoint, json;\n"
             "                   default 1024)\n"),
    CLI_SIZE("--overlap", NULL, chunk_opts, opt.overlap, 0, (size_t)1 << 40,
             "  --overlap L      tokens shared by consecutive windows (default 0, < S)\n"),
    CLI_HANDLER("--filters", NULL, take_filters, NULL,
                "  --filters LIST   preprocessing, comma-separated: base64, html, markdown, urls,\n"
                "                   urls-all, errors, headers, examples, request-body,\n"
                "                   remove-examples, all (base64 to headers), none (default)\n"),
    CLI_HANDLER("--url-blacklist", NULL, take_blacklist, NULL,
                "  --url-blacklist HOSTS  hosts (and their subdomains) the urls filter removes,\n"
                "                   comma-separated (default: postman.com and URL shorteners)\n"),
    CLI_SIZE("--depth", NULL, chunk_opts, depth, 1, 8,
             "  --depth N        schema levels inlined in renderings (default 2, at most 8)\n"),
    CLI_SWITCH("--json", NULL, chunk_opts, json,
               "  --json           print {\"chunks\": [...]} (pretty JSON)\n"),
    CLI_SWITCH("--fields", NULL, chunk_opts, fields,
               "  --fields         with --json: add each chunk's per-field text\n"),
};
const cli_flag_table cli_chunk_table = {chunk_rows, sizeof chunk_rows / sizeof *chunk_rows};

static void chunk_usage(FILE *out)
{
    cli_flags_help(&cli_chunk_table, out);
}

static void print_diags(const spec_api *api)
{
    for (size_t i = 0; i < api->diags.n; i++) {
        const core_diag *d = &api->diags.items[i];
        if (d->level != CORE_DIAG_ERROR) continue;
        fprintf(stderr, "apidex: %s", d->file && *d->file ? d->file : api->file);
        if (d->line) fprintf(stderr, ":%u:%u", d->line, d->col);
        fprintf(stderr, ": %s", d->message);
        if (d->pointer && *d->pointer) fprintf(stderr, " (at %s)", d->pointer);
        fputc('\n', stderr);
    }
}

static void print_text(const chunk_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const chunk *c = &l->items[i];
        printf("=== %s (%s, %zu tokens)", c->id, chunk_type_name(c->type), c->meta.tokens);
        for (size_t k = 0; k < c->n_endpoints && k < 8; k++)
            printf("%s%s %s", k ? ", " : " covers ", c->endpoints[k].method, c->endpoints[k].path);
        if (c->n_endpoints > 8) printf(", ... (%zu endpoints)", c->n_endpoints);
        if (c->meta.n_ref_ids) {
            printf("\n    refs:");
            for (size_t k = 0; k < c->meta.n_ref_ids; k++) printf(" %s", c->meta.ref_ids[k]);
        }
        printf("\n");
        fwrite(c->content, 1, c->content_len, stdout);
        if (c->content_len && c->content[c->content_len - 1] != '\n') printf("\n");
        if (c->text != c->content &&
            (c->text_len != c->content_len || memcmp(c->text, c->content, c->text_len))) {
            printf("--- text:\n");
            fwrite(c->text, 1, c->text_len, stdout);
            printf("\n");
        }
    }
}

int cli_cmd_chunk(int argc, char **argv)
{
    chunk_opts co = {0};
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    size_t n_paths = 0;
    apidex_error err;
    core_error_clear(&err);
    if (!paths) return CLI_FAILURE;
    int status = CLI_OK;
    for (int i = 1; i < argc && !status; i++) {
        int r = cli_flags_take("chunk", &cli_chunk_table, chunk_usage, argc, argv, &i, &co);
        if (r == CLI_FLAGS_HELP) {
            free(paths);
            free(co.blacklist);
            return CLI_OK;
        }
        if (r < 0) status = co.out_of_memory ? CLI_FAILURE : CLI_USAGE;
        if (r) continue;
        const char *a = argv[i];
        if (a[0] == '-' && a[1])
            status = cli_arg_unknown("chunk", a);
        else
            paths[n_paths++] = a;
    }
    chunk_options opt = co.opt;
    if (co.depth) opt.inline_depth = (unsigned)co.depth;
    char **blacklist = co.blacklist;
    bool json = co.json, fields = co.fields;
    if (!status && !n_paths)
        status = cli_usage_error("chunk", "name the OpenAPI files or folders to chunk");
    size_t size = opt.size ? opt.size : 1024;
    if (!status && opt.overlap >= size) {
        fprintf(stderr, "apidex chunk: --overlap (%zu) must be smaller than --size (%zu)\n",
                opt.overlap, size);
        status = CLI_USAGE;
    }
    if (status) {
        free(paths);
        free(blacklist);
        return status;
    }

    spec_registry *reg = NULL;
    chunk_list *list = NULL;
    if (spec_registry_new(NULL, &reg, &err) || chunk_list_new(&list)) {
        cli_print_error(&err);
        free(paths);
        free(blacklist);
        spec_registry_free(reg);
        return CLI_FAILURE;
    }
    /* A missing input is a usage error: nothing is printed but the error. */
    for (size_t i = 0; i < n_paths; i++) {
        if (spec_registry_add(reg, paths[i], &err)) {
            cli_print_error(&err);
            status = CLI_USAGE;
            core_error_clear(&err);
        }
    }
    if (status) {
        chunk_list_free(list);
        spec_registry_free(reg);
        free(paths);
        free(blacklist);
        return status;
    }
    for (size_t i = 0; i < spec_registry_count(reg); i++) {
        const spec_api *api = spec_registry_api(reg, i);
        if (api->failed) {
            print_diags(api);
            status = CLI_PROBLEMS;
            continue;
        }
        if (chunk_api(api, &opt, list, &err)) {
            cli_print_error(&err);
            core_error_clear(&err);
            status = CLI_PROBLEMS;
        }
    }
    if (json) {
        core_buf out;
        core_buf_init(&out, 0);
        if (chunk_list_write_json(list, fields, 2, &out)) {
            fprintf(stderr, "apidex chunk: out of memory\n");
            status = CLI_FAILURE;
        } else {
            fwrite(out.data, 1, out.len, stdout);
        }
        core_buf_free(&out);
    } else {
        print_text(list);
        for (int i = 0; i < PREP_N_FILTERS; i++)
            if (list->filters & (1u << i))
                printf("--- filter %s removed %zu items (%zu bytes)\n", prep_filter_name(1u << i),
                       list->prep.count[i], list->prep.bytes[i]);
    }
    if (fflush(stdout)) status = CLI_FAILURE;
    chunk_list_free(list);
    spec_registry_free(reg);
    free(paths);
    free(blacklist);
    return status;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_chunk(FILE *out)
{
    chunk_usage(out);
}
