/*
 * The command table and what is generated from each command's flag table (flags.c): the
 * flags it knows (for "did you mean"), shell completion for bash, zsh and fish, and the man
 * page. The table is the one source of a command's flags and of the values a flag takes
 * (its choice set); the man page prints each command's --help, which is the table's too.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* completion and man take no flags but --help */
static const cli_flag completion_rows[] = {
    CLI_TEXT("usage: apidex completion bash|zsh|fish\n"
             "  Prints a completion script for the shell: commands, their flags and the\n"
             "  values of flags that take a fixed set of values (as their help spells them).\n"
             "  bash: source <(apidex completion bash)\n"
             "  zsh:  apidex completion zsh > \"${fpath[1]}/_apidex\"\n"
             "  fish: apidex completion fish > ~/.config/fish/completions/apidex.fish\n"
             "  (make install puts all three where the shells look.)\n"),
};
static const cli_flag_table completion_table = {completion_rows, 1};

static const cli_flag man_rows[] = {
    CLI_TEXT("usage: apidex man\n"
             "  Prints the manual page (roff), built from every command's --help text:\n"
             "  apidex man | man -l -   (make install puts it in share/man/man1/apidex.1)\n"),
};
static const cli_flag_table man_table = {man_rows, 1};

static const cli_command commands[] = {
    {"inspect", cli_cmd_inspect, cli_usage_inspect,
     "load specs and report what was found (and what is wrong)", &cli_inspect_table},
    {"search", cli_cmd_search, cli_usage_search,
     "find the endpoints a task needs, by relevance, and the plan that calls them",
     &cli_search_table},
    {"index", cli_cmd_index, cli_usage_index, "build or update the index (incremental, atomic)",
     &cli_index_table},
    {"add", cli_cmd_add, cli_usage_add, "add or update APIs, keeping the rest of the index",
     &cli_add_table},
    {"remove", cli_cmd_remove, cli_usage_remove, "remove APIs from the index by id",
     &cli_remove_table},
    {"show", cli_cmd_show, cli_usage_show, "one operation, resolved, with the schemas it needs",
     &cli_show_table},
    {"feedback", cli_cmd_feedback, cli_usage_feedback,
     "report the endpoints used for a task (the usage prior of search)", &cli_feedback_table},
    {"call", cli_cmd_call, cli_usage_call,
     "call an endpoint (validated, safe by default) or show the call (--dry-run)", &cli_call_table},
    {"run", cli_cmd_run, cli_usage_run,
     "solve a task by calling the APIs: plan, select, call, parse (RestGPT)", &cli_run_table},
    {"snippet", cli_cmd_snippet, cli_usage_snippet,
     "a ready-to-run call in curl, Python, JavaScript or Go", &cli_snippet_table},
    {"match", cli_cmd_match, cli_usage_match,
     "the registry operations an OpenAPI document describes, or no match", &cli_match_table},
    {"list", cli_cmd_list, cli_usage_list,
     "the APIs and their operations, or a capability manifest", &cli_list_table},
    {"agent", cli_cmd_agent, cli_usage_agent,
     "the Discovery Agent: an LLM picks the endpoints a task needs", &cli_agent_table},
    {"ask", cli_cmd_ask, cli_usage_ask, "answer a question about the APIs from their docs (askAPI)",
     &cli_ask_table},
    {"eval", cli_cmd_eval, cli_usage_eval,
     "recall / precision / F1, tokens and latency on query sets", &cli_eval_table},
    {"tokens", cli_cmd_tokens, cli_usage_tokens,
     "count or print the tokens of a file (cl100k or WordPiece)", &cli_tokens_table},
    {"embed", cli_cmd_embed, cli_usage_embed,
     "print the embeddings of texts (local model or HTTP provider)", &cli_embed_cmd_table},
    {"model", cli_cmd_model, cli_usage_model, "install (pull), locate or list embedding models",
     &cli_model_table},
    {"chunk", cli_cmd_chunk, cli_usage_chunk,
     "split specs into chunks with one of eight strategies", &cli_chunk_table},
    {"stats", cli_cmd_stats, cli_usage_stats,
     "token statistics per document and operation, per filter", &cli_stats_table},
    {"serve", cli_cmd_serve, cli_usage_serve,
     "HTTP JSON API and MCP (Streamable HTTP) over the index", &cli_serve_table},
    {"mcp", cli_cmd_mcp, cli_usage_mcp, "MCP server on stdio, for Claude Desktop, Cursor, VS Code",
     &cli_mcp_table},
    {"mock", cli_cmd_mock, cli_usage_mock,
     "a mock server for specs: examples, schema-valid answers, checked requests", &cli_mock_table},
    {"tools", cli_cmd_tools, cli_usage_tools,
     "OpenAI / Anthropic function definitions for endpoints", &cli_tools_table},
    {"completion", cli_cmd_completion, cli_usage_completion,
     "print shell completion for bash, zsh or fish", &completion_table},
    {"man", cli_cmd_man, cli_usage_man, "print this manual as a man page (roff)", &man_table},
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

const cli_command *cli_commands(size_t *n)
{
    *n = N_COMMANDS;
    return commands;
}

const cli_command *cli_command_find(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(commands[i].name, name)) return &commands[i];
    return NULL;
}

void cli_usage_main(FILE *out)
{
    fprintf(out, "usage: apidex COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "  %-10s %s\n", "version", "print the version");
    fprintf(out, "\nRun 'apidex COMMAND --help' for the options of a command.\n"
                 "Exit status: 0 ok, 1 problems found (reported), 2 usage error, 3 failure;\n"
                 "index, add and remove also 4 refused (nothing changed), 5 another writer.\n");
}

/* ---------------------------------------------------------------- flags from the tables */

typedef struct help_flag {
    const char *name;
    const char *values[16]; /* NULL-terminated */
} help_flag;

typedef struct help_info {
    bool loaded;
    char *text;
    help_flag flags[CLI_MAX_FLAGS];
    size_t n_flags;
} help_info;

static help_info infos[N_COMMANDS];

static char *usage_text(cli_usage_fn fn)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fn(f);
    fclose(f);
    return buf;
}

/* A table's flag (and its alias) with the values of its set, once each. */
static void add_table_flag(const cli_flag *f, void *ctx)
{
    help_info *h = ctx;
    if (f->unlisted) return;
    const char *names[2] = {f->name, f->alias};
    for (size_t k = 0; k < 2; k++) {
        bool seen = !names[k];
        for (size_t i = 0; i < h->n_flags && !seen; i++) seen = !strcmp(h->flags[i].name, names[k]);
        if (seen || h->n_flags == CLI_MAX_FLAGS) continue;
        help_flag *hf = &h->flags[h->n_flags++];
        hf->name = names[k];
        size_t n = 0;
        for (; f->choices && f->choices[n] && n + 1 < sizeof hf->values / sizeof *hf->values; n++)
            hf->values[n] = f->choices[n];
        hf->values[n] = NULL;
    }
}

static help_info *help_load(const char *cmd)
{
    const cli_command *c = cli_command_find(cmd);
    if (!c) return NULL;
    help_info *h = &infos[c - commands];
    if (h->loaded) return h;
    h->loaded = true;
    h->text = usage_text(c->usage);
    cli_flags_each(c->flags, add_table_flag, h);
    add_table_flag(&(cli_flag){.kind = CLI_F_SWITCH, .name = "--help"}, h);
    return h;
}

size_t cli_command_flags(const char *cmd, const char **flags, size_t cap)
{
    help_info *h = cmd ? help_load(cmd) : NULL;
    size_t n = 0;
    for (size_t i = 0; h && i < h->n_flags && n < cap; i++) flags[n++] = h->flags[i].name;
    return n;
}

size_t cli_flag_values(const char *cmd, const char *flag, const char **vals, size_t cap)
{
    help_info *h = help_load(cmd);
    size_t n = 0;
    for (size_t i = 0; h && i < h->n_flags; i++)
        if (!strcmp(h->flags[i].name, flag))
            for (size_t v = 0; h->flags[i].values[v] && n + 1 < cap; v++)
                vals[n++] = h->flags[i].values[v];
    if (cap) vals[n] = NULL;
    return n;
}

/* ---------------------------------------------------------------- completion */

void cli_usage_completion(FILE *out)
{
    cli_flags_help(&completion_table, out);
}

static void bash_completion(FILE *out)
{
    fprintf(out, "# bash completion for apidex (generated by `apidex completion bash`)\n"
                 "_apidex() {\n"
                 "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts=\n"
                 "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
                 "    COMPREPLY=($(compgen -W \"");
    for (size_t i = 0; i < N_COMMANDS; i++) fprintf(out, "%s ", commands[i].name);
    fprintf(out, "version help\" -- \"$cur\"))\n    return\n  fi\n"
                 "  case \"${COMP_WORDS[1]} $prev\" in\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        help_info *h = help_load(commands[i].name);
        for (size_t f = 0; h && f < h->n_flags; f++) {
            if (!h->flags[f].values[0]) continue;
            fprintf(out, "    \"%s %s\") COMPREPLY=($(compgen -W \"", commands[i].name,
                    h->flags[f].name);
            for (size_t v = 0; h->flags[f].values[v]; v++)
                fprintf(out, "%s%s", v ? " " : "", h->flags[f].values[v]);
            fprintf(out, "\" -- \"$cur\")); return ;;\n");
        }
    }
    fprintf(out, "  esac\n  case \"${COMP_WORDS[1]}\" in\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        help_info *h = help_load(commands[i].name);
        fprintf(out, "    %s) opts=\"", commands[i].name);
        for (size_t f = 0; h && f < h->n_flags; f++)
            fprintf(out, "%s%s", f ? " " : "", h->flags[f].name);
        fprintf(out, "\" ;;\n");
    }
    fprintf(out, "  esac\n"
                 "  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); fi\n"
                 "}\n"
                 "complete -o default -F _apidex apidex\n");
}

/* A summary in single quotes for zsh and fish ('\'' ends, escapes and reopens). */
static void put_quoted(FILE *out, const char *s)
{
    fputc('\'', out);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", out);
        else
            fputc(*s, out);
    fputc('\'', out);
}

static void zsh_completion(FILE *out)
{
    fprintf(out, "#compdef apidex\n"
                 "# zsh completion for apidex (generated by `apidex completion zsh`)\n"
                 "_apidex() {\n"
                 "  local -a cmds opts vals\n"
                 "  cmds=(\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        char line[256];
        snprintf(line, sizeof line, "%s:%s", commands[i].name, commands[i].summary);
        fprintf(out, "    ");
        put_quoted(out, line);
        fputc('\n', out);
    }
    fprintf(out, "    'version:print the version'\n  )\n"
                 "  if (( CURRENT == 2 )); then\n    _describe 'command' cmds\n    return\n  fi\n"
                 "  case \"$words[2] $words[CURRENT-1]\" in\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        help_info *h = help_load(commands[i].name);
        for (size_t f = 0; h && f < h->n_flags; f++) {
            if (!h->flags[f].values[0]) continue;
            fprintf(out, "    \"%s %s\") vals=(", commands[i].name, h->flags[f].name);
            for (size_t v = 0; h->flags[f].values[v]; v++)
                fprintf(out, "%s%s", v ? " " : "", h->flags[f].values[v]);
            fprintf(out, "); compadd -a vals; return ;;\n");
        }
    }
    fprintf(out, "  esac\n  case $words[2] in\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        help_info *h = help_load(commands[i].name);
        fprintf(out, "    %s) opts=(", commands[i].name);
        for (size_t f = 0; h && f < h->n_flags; f++)
            fprintf(out, "%s%s", f ? " " : "", h->flags[f].name);
        fprintf(out, ") ;;\n");
    }
    fprintf(out, "  esac\n"
                 "  if [[ $PREFIX == -* ]]; then compadd -a opts; else _files; fi\n"
                 "}\n"
                 "_apidex \"$@\"\n");
}

static void fish_completion(FILE *out)
{
    fprintf(out, "# fish completion for apidex (generated by `apidex completion fish`)\n"
                 "complete -c apidex -f\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        fprintf(out, "complete -c apidex -n __fish_use_subcommand -a %s -d ", commands[i].name);
        put_quoted(out, commands[i].summary);
        fputc('\n', out);
    }
    fprintf(out, "complete -c apidex -n __fish_use_subcommand -a version -d 'print the version'\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        help_info *h = help_load(commands[i].name);
        for (size_t f = 0; h && f < h->n_flags; f++) {
            const help_flag *hf = &h->flags[f];
            bool longf = hf->name[1] == '-';
            fprintf(out, "complete -c apidex -n '__fish_seen_subcommand_from %s' -%c %s",
                    commands[i].name, longf ? 'l' : 's', hf->name + (longf ? 2 : 1));
            if (hf->values[0]) {
                fprintf(out, " -x -a '");
                for (size_t v = 0; hf->values[v]; v++)
                    fprintf(out, "%s%s", v ? " " : "", hf->values[v]);
                fputc('\'', out);
            }
            fputc('\n', out);
        }
        fprintf(out, "complete -c apidex -n '__fish_seen_subcommand_from %s' -F\n",
                commands[i].name);
    }
}

int cli_cmd_completion(int argc, char **argv)
{
    static const char *const shells[] = {"bash", "zsh", "fish", NULL};
    const char *name = NULL;
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_flags_take("completion", &completion_table, cli_usage_completion, argc, argv, &i,
                           NULL) == CLI_FLAGS_HELP)
            return CLI_OK;
        if (argv[i][0] == '-' && argv[i][1]) return cli_arg_unknown("completion", argv[i]);
        name = argv[i];
        n++;
    }
    if (n != 1) return cli_usage_error("completion", "name one shell: bash, zsh or fish");
    int shell = cli_arg_choice("completion", "SHELL", name, shells);
    if (shell < 0) return CLI_USAGE;
    if (shell == 0) bash_completion(stdout);
    if (shell == 1) zsh_completion(stdout);
    if (shell == 2) fish_completion(stdout);
    return CLI_OK;
}

/* ---------------------------------------------------------------- man page */

void cli_usage_man(FILE *out)
{
    cli_flags_help(&man_table, out);
}

/* Text as roff lines: backslashes doubled, a leading '.' or '\'' guarded. */
static void put_roff(FILE *out, const char *text)
{
    bool bol = true;
    for (const char *p = text; p && *p; p++) {
        if (bol && (*p == '.' || *p == '\'')) fputs("\\&", out);
        if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-')
            fputs("\\-", out);
        else
            fputc(*p, out);
        bol = *p == '\n';
    }
    if (!bol) fputc('\n', out);
}

int cli_cmd_man(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (cli_flags_take("man", &man_table, cli_usage_man, argc, argv, &i, NULL) ==
            CLI_FLAGS_HELP)
            return CLI_OK;
        return cli_arg_unknown("man", argv[i]);
    }
    FILE *out = stdout;
    fprintf(out, ".TH APIDEX 1 \"\" \"apidex %s\" \"User Commands\"\n", apidex_version());
    fprintf(out, ".SH NAME\napidex \\- find the API endpoints a task needs, for agents\n"
                 ".SH SYNOPSIS\n.B apidex\n.I COMMAND\n[\\fIARGS\\fR...]\n"
                 ".SH DESCRIPTION\n"
                 "apidex indexes OpenAPI documents and finds the endpoints a task needs, in\n"
                 "call order, with what each one needs from another. It answers on the\n"
                 "command line, over MCP and as an HTTP JSON API.\n"
                 ".SH COMMANDS\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        fprintf(out, ".TP\n.B %s\n", commands[i].name);
        put_roff(out, commands[i].summary);
    }
    fprintf(out, ".TP\n.B version\nprint the version\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        help_info *h = help_load(commands[i].name);
        fprintf(out, ".SS apidex %s\n", commands[i].name);
        put_roff(out, commands[i].summary);
        fprintf(out, ".PP\n.nf\n");
        put_roff(out, h ? h->text : "");
        fprintf(out, ".fi\n");
    }
    fprintf(out,
            ".SH OPTIONS COMMON TO MANY COMMANDS\n"
            ".TP\n.BI \\-\\-color \" WHEN\"\n"
            "auto (default: colour when the output is a terminal and NO_COLOR is unset),\n"
            "always or never; for search results and show.\n"
            ".TP\n.B \\-\\-help\nthe command's options.\n"
            ".SH ENVIRONMENT\n"
            ".TP\n.B APIDEX_DB\nthe index file when \\-\\-db is not given (else the registry\n"
            "file's db, else ./apidex.db). \\-\\-db and APIDEX_DB also take a PostgreSQL URL\n"
            "(postgres://user@host/db): builds publish there and readers load what was\n"
            "published (docs/SCALE.md).\n"
            ".TP\n.B APIDEX_REGISTRY\nthe registry file when \\-\\-registry is not given (else\n"
            "./apidex.yaml).\n"
            ".TP\n.B NO_COLOR\nwhen set and not empty, \\-\\-color auto prints no colour.\n"
            ".SH EXIT STATUS\n"
            "0 ok, 1 problems found (reported), 2 usage error (the message says which\n"
            "argument and what it takes), 3 failure (I/O, database, out of memory).\n"
            ".SH SEE ALSO\n"
            "apidex completion bash|zsh|fish; docs/ in the source tree.\n");
    return CLI_OK;
}
