/* apidex snippet: a ready-to-run call of an endpoint in curl, Python, JavaScript or Go,
   from the same request builder as `call`, with credentials read from their variables. */
#include "cli/cli.h"

#include "exec/exec.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const lang_names[] = {"curl", "python", "javascript", "go", NULL};

static int take_lang(const char *cmd, const char *flag, const char *value, void *opts)
{
    exec_snippet_lang l;
    /* the set's names, or another spelling the builder takes (js, node) */
    if (exec_snippet_lang_parse(value, &l) && cli_arg_choice(cmd, flag, value, lang_names) < 0)
        return CLI_USAGE;
    ((cli_call_args *)opts)->lang = value;
    return CLI_OK;
}

static const cli_flag snippet_rows[] = {
    CLI_TEXT("usage: apidex snippet ID | \"METHOD /path\" [--lang curl|python|javascript|go]\n"
             "                      [--api A] [-p name=value]... [--body JSON|@file]\n"
             "                      [--content-type TYPE] [--server URL] [--db FILE]\n"),
    CLI_HANDLER("--lang", NULL, take_lang, lang_names,
                "  --lang curl|python|javascript|go\n"
                "                    the language (default curl; python: urllib, javascript: "
                "fetch\n"
                "                    in Node 18+, go: net/http)\n"),
    /* as call's rows; their help is one line */
    CLI_HANDLER("--param", "-p", cli_call_take_param, NULL,
                "  -p, --param name=value, --body, --content-type, --server, --api, --db\n"
                "                    as for `apidex call`; inputs are validated the same way\n"),
    CLI_STRING("--body", NULL, cli_call_args, body, NULL),
    CLI_STRING("--content-type", NULL, cli_call_args, content_type, NULL),
    CLI_STRING("--server", NULL, cli_call_args, server, NULL),
    CLI_STRING("--api", NULL, cli_call_args, api, NULL),
    CLI_STRING("--db", NULL, cli_call_args, db, NULL),
    CLI_TEXT("Credentials are never written: the snippet reads them from the variables\n"
             "(APIDEX_AUTH_<API>_<SCHEME>, or the registry's auth variables).\n"),
};
const cli_flag_table cli_snippet_table = {snippet_rows, sizeof snippet_rows / sizeof *snippet_rows};

static void snippet_usage(FILE *out)
{
    cli_flags_help(&cli_snippet_table, out);
}

int cli_cmd_snippet(int argc, char **argv)
{
    cli_call_args a;
    int code = cli_call_parse("snippet", &cli_snippet_table, snippet_usage, argc, argv, &a);
    if (code == CLI_OK) {
        exec_snippet_lang lang = EXEC_SNIPPET_CURL;
        if (a.lang) exec_snippet_lang_parse(a.lang, &lang);
        cli_call_target *t = NULL;
        exec_request *r = NULL;
        code = cli_call_build("snippet", &a, true, &t, &r);
        core_buf out;
        core_buf_init(&out, 0);
        if (code == CLI_OK && exec_snippet(r, lang, &out)) code = CLI_FAILURE;
        if (code == CLI_OK) fwrite(out.data ? out.data : "", 1, out.len, stdout);
        core_buf_free(&out);
        cli_call_target_free(t);
    }
    free(a.params);
    free(a.hosts);
    free(a.addresses);
    return code < 0 ? CLI_OK : code;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_snippet(FILE *out)
{
    snippet_usage(out);
}
