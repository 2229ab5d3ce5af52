/* apidex model: install (pull), locate (path) and list the local embedding models. */
#include "cli/cli.h"
#include "embed/embed.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MODEL_MAX_SHA 32

typedef struct pull_opts {
    const char *shas[MODEL_MAX_SHA + 1];
    size_t nsha;
    embed_pull_options o;
} pull_opts;

static int take_sha(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)cmd, (void)flag;
    pull_opts *p = opts;
    if (p->nsha == MODEL_MAX_SHA) {
        fprintf(stderr, "apidex model pull: too many --sha256\n");
        return CLI_USAGE;
    }
    p->shas[p->nsha++] = value;
    return CLI_OK;
}

/* The flags are pull's; path and list take none. */
static const cli_flag model_rows[] = {
    CLI_TEXT("usage: apidex model pull NAME|ORG/REPO [--sha256 FILE=HEX]... [--name DIR]\n"
             "                         [--revision REV] [--hub-url URL]\n"
             "       apidex model path [NAME|PATH]\n"
             "       apidex model list\n\n"
             "pull   downloads a model from Hugging Face into the model cache\n"
             "       ($APIDEX_CACHE_DIR/models, else ~/.cache/apidex/models), checking sha256\n"
             "       sums (" EMBED_DEFAULT_MODEL " has its weights' sum built in). The hub URL\n"
             "       comes from --hub-url or APIDEX_HF_BASE_URL.\n"
             "path   prints the folder that --model NAME resolves to\n"
             "list   lists the models in the cache\n"),
    CLI_HANDLER("--sha256", NULL, take_sha, NULL, NULL),
    CLI_STRING("--name", NULL, pull_opts, o.dest_name, NULL),
    CLI_STRING("--revision", NULL, pull_opts, o.revision, NULL),
    CLI_STRING("--hub-url", NULL, pull_opts, o.base_url, NULL),
};
const cli_flag_table cli_model_table = {model_rows, sizeof model_rows / sizeof *model_rows};

static void model_usage(FILE *out)
{
    cli_flags_help(&cli_model_table, out);
}

static int model_pull(int argc, char **argv)
{
    pull_opts p = {0};
    const char *name = NULL;
    size_t n_names = 0;
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || !a[1]) {
            name = n_names++ ? name : a;
            continue;
        }
        if (!strcmp(a, "--")) { /* the words after it are names */
            opts_done = true;
            continue;
        }
        int r = cli_flags_take("model", &cli_model_table, model_usage, argc, argv, &i, &p);
        if (r == CLI_FLAGS_HELP) return CLI_OK;
        if (r < 0) return CLI_USAGE;
        if (!r) return cli_arg_unknown("model", a);
    }
    if (n_names != 1) return cli_usage_error("model", "pull takes one model: a name or ORG/REPO");
    embed_pull_options o = p.o;
    if (!o.base_url) o.base_url = getenv("APIDEX_HF_BASE_URL");
    o.sha256_overrides = p.nsha ? p.shas : NULL;
    o.progress = stderr;
    apidex_error err = {0};
    char *dir = NULL;
    int rc = embed_model_pull(name, &o, &dir, &err);
    if (rc) {
        cli_print_error(&err);
        if (rc == APIDEX_ENET || rc == APIDEX_EIO) {
            core_buf help;
            core_buf_init(&help, 0);
            if (embed_model_manual_steps(name, &help) == 0 && help.data) fputs(help.data, stderr);
            core_buf_free(&help);
        }
        return rc == APIDEX_EINVAL || rc == APIDEX_ENOTFOUND ? CLI_USAGE : CLI_FAILURE;
    }
    printf("%s\n", dir);
    free(dir);
    return CLI_OK;
}

static int model_path(int argc, char **argv)
{
    const char *model = argc > 1 ? argv[1] : getenv("APIDEX_MODEL");
    apidex_error err = {0};
    char *dir = NULL;
    int rc = embed_model_resolve(model, &dir, &err);
    if (rc) {
        cli_print_error(&err);
        return CLI_FAILURE;
    }
    printf("%s\n", dir);
    free(dir);
    return CLI_OK;
}

static int model_list(void)
{
    apidex_error err = {0};
    char *cache = NULL;
    if (embed_model_cache_dir(&cache, &err) != 0) {
        cli_print_error(&err);
        return CLI_FAILURE;
    }
    DIR *d = opendir(cache);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue; /* also skips partial downloads */
            char *dir = NULL;
            size_t n = strlen(cache) + strlen(e->d_name) + 2;
            char *path = malloc(n);
            if (!path) break;
            snprintf(path, n, "%s/%s", cache, e->d_name);
            int rc = embed_model_resolve(path, &dir, &err);
            if (rc)
                printf("%-32s %s  (incomplete: %s)\n", e->d_name, path, err.message);
            else
                printf("%-32s %s\n", e->d_name, path);
            free(dir);
            free(path);
        }
        closedir(d);
    }
    free(cache);
    return CLI_OK;
}

int cli_cmd_model(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        model_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    if (argv[1][0] == '-' && argv[1][1]) {
        /* a flag before the action: pull's flags are named as before, others get the nearest */
        const char *flags[CLI_MAX_FLAGS];
        size_t n = cli_command_flags("model", flags, CLI_MAX_FLAGS), k = 0;
        while (k < n && strcmp(flags[k], argv[1])) k++;
        if (k == n) return cli_arg_unknown("model", argv[1]);
    }
    if (!strcmp(argv[1], "pull")) return model_pull(argc - 1, argv + 1);
    if (!strcmp(argv[1], "path")) return model_path(argc - 1, argv + 1);
    if (!strcmp(argv[1], "list")) return model_list();
    static const char *const actions[] = {"pull", "path", "list", NULL};
    cli_arg_choice("model", "the action", argv[1], actions);
    return CLI_USAGE;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_model(FILE *out)
{
    model_usage(out);
}
