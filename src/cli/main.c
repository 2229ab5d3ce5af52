/*
 * The apidex command: dispatches to one function per subcommand (cmd_*.c).
 *
 * OpenBLAS reads OPENBLAS_CORETYPE when the shared library loads, before main
 * runs; Debian's build does not recognise this machine's CPU and is 2x slower
 * without it. So when it is unset, main sets it and re-executes itself once.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct cli_command {
    const char *name;
    cli_cmd_fn fn;
    const char *summary;
} cli_command;

static const cli_command commands[] = {
    {"inspect", cli_cmd_inspect, "load specs and report what was found (and what is wrong)"},
    {"search", cli_cmd_search, "find the endpoints a task needs, in call order"},
    {"index", cli_cmd_index, "build or update the index (incremental, atomic)"},
    {"show", cli_cmd_show, "one operation, resolved, with the schemas it needs"},
    {"list", cli_cmd_list, "the catalog by API and tag, or a capability manifest"},
    {"agent", cli_cmd_agent, "the Discovery Agent: an LLM picks the endpoints a task needs"},
    {"ask", cli_cmd_ask, "answer a question about the APIs from their docs (askAPI)"},
    {"eval", cli_cmd_eval, "recall / precision / F1, tokens and latency on query sets"},
    {"tokens", cli_cmd_tokens, "count or print the tokens of a file (cl100k or WordPiece)"},
    {"embed", cli_cmd_embed, "print the embeddings of texts (local model or HTTP provider)"},
    {"model", cli_cmd_model, "install (pull), locate or list embedding models"},
    {"chunk", cli_cmd_chunk, "split specs into chunks with one of eight strategies"},
    {"stats", cli_cmd_stats, "token statistics per document and operation, per filter"},
    {"serve", cli_cmd_serve, "HTTP JSON API and MCP (Streamable HTTP) over the index"},
    {"mcp", cli_cmd_mcp, "MCP server on stdio, for Claude Desktop, Cursor, VS Code"},
    {"tools", cli_cmd_tools, "OpenAI / Anthropic function definitions for endpoints"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: apidex COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "  %-10s %s\n", "version", "print the version");
    fprintf(out, "\nRun 'apidex COMMAND --help' for the options of a command.\n"
                 "Exit status: 0 ok, 1 problems found (reported), 2 usage error, 3 failure.\n");
}

void cli_print_error(const apidex_error *err)
{
    fprintf(stderr, "apidex: ");
    if (err->file[0]) {
        fprintf(stderr, "%s", err->file);
        if (err->line) fprintf(stderr, ":%u:%u", err->line, err->col);
        fprintf(stderr, ": ");
    }
    fprintf(stderr, "%s", err->message[0] ? err->message : apidex_strerror(err->code));
    if (err->pointer[0]) fprintf(stderr, " (at %s)", err->pointer);
    fputc('\n', stderr);
}

int cli_stderr_is_tty(void)
{
    return isatty(STDERR_FILENO);
}

static void ensure_blas_env(char **argv)
{
    if (getenv("OPENBLAS_CORETYPE") || getenv("APIDEX_NO_REEXEC")) return;
    setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
    execv("/proc/self/exe", argv);
    /* exec failed: go on with the slower default */
}

int main(int argc, char **argv)
{
    ensure_blas_env(argv);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
        printf("apidex %s\n", apidex_version());
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "apidex: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
