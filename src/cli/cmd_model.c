/* apidex model: install (pull), locate (path) and list the local embedding models. */
#include "cli/cli.h"
#include "embed/embed.h"

#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MODEL_MAX_SHA 32

static void model_usage(FILE *out)
{
    fprintf(out,
            "usage: apidex model pull NAME|ORG/REPO [--sha256 FILE=HEX]... [--name DIR]\n"
            "                         [--revision REV] [--hub-url URL]\n"
            "       apidex model path [NAME|PATH]\n"
            "       apidex model list\n\n"
            "pull   downloads a model from Hugging Face into the model cache\n"
            "       ($APIDEX_CACHE_DIR/models, else ~/.cache/apidex/models), checking sha256\n"
            "       sums (" EMBED_DEFAULT_MODEL " has its weights' sum built in). The hub URL\n"
            "       comes from --hub-url or APIDEX_HF_BASE_URL.\n"
            "path   prints the folder that --model NAME resolves to\n"
            "list   lists the models in the cache\n");
}

static int model_pull(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"sha256", required_argument, 0, 's'},   {"name", required_argument, 0, 'n'},
        {"revision", required_argument, 0, 'r'}, {"hub-url", required_argument, 0, 'u'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    const char *shas[MODEL_MAX_SHA + 1] = {0};
    size_t nsha = 0;
    embed_pull_options o = {0};
    int c;
    optind = 1;
    opterr = 0; /* cli_arg_unknown says what is wrong, with the nearest flag */
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (nsha == MODEL_MAX_SHA) {
                fprintf(stderr, "apidex model pull: too many --sha256\n");
                return CLI_USAGE;
            }
            shas[nsha++] = optarg;
            break;
        case 'n':
            o.dest_name = optarg;
            break;
        case 'r':
            o.revision = optarg;
            break;
        case 'u':
            o.base_url = optarg;
            break;
        case 'h':
            model_usage(stdout);
            return CLI_OK;
        default: /* ':' a value is missing, '?' an unknown flag */
            return cli_arg_unknown("model", argv[optind - 1]);
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error("model", "pull takes one model: a name or ORG/REPO");
    const char *name = argv[optind];
    if (!o.base_url) o.base_url = getenv("APIDEX_HF_BASE_URL");
    o.sha256_overrides = nsha ? shas : NULL;
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
