/* apidex snippet: a ready-to-run call of an endpoint in curl, Python, JavaScript or Go,
   from the same request builder as `call`, with credentials read from their variables. */
#include "cli/cli.h"

#include "exec/exec.h"

#include <stdio.h>
#include <stdlib.h>

static void snippet_usage(FILE *out)
{
    fprintf(out,
            "usage: apidex snippet ID | \"METHOD /path\" [--lang curl|python|javascript|go]\n"
            "                      [--api A] [-p name=value]... [--body JSON|@file]\n"
            "                      [--content-type TYPE] [--server URL] [--db FILE]\n"
            "  --lang curl|python|javascript|go\n"
            "                    the language (default curl; python: urllib, javascript: fetch\n"
            "                    in Node 18+, go: net/http)\n"
            "  -p, --param name=value, --body, --content-type, --server, --api, --db\n"
            "                    as for `apidex call`; inputs are validated the same way\n"
            "Credentials are never written: the snippet reads them from the variables\n"
            "(APIDEX_AUTH_<API>_<SCHEME>, or the registry's auth variables).\n");
}

int cli_cmd_snippet(int argc, char **argv)
{
    cli_call_args a;
    int code = cli_call_parse("snippet", argc, argv, snippet_usage, &a);
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
