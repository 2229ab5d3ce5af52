/*
 * Flag tables: one declarative table per command is the one source of its flags.
 *
 * A command's flags used to be written three times: a strcmp chain in its parse loop, the
 * lines of its --help, and (read back out of that help text) the list that did-you-mean,
 * shell completion and the man page used. A table row now says it once: the flag's name
 * and short alias, what its value is (none, a string, a whole number or a number in a
 * range, one of a set, a repeatable list, or a handler for the odd ones), where the value
 * goes (an offset into the command's options struct, checked for its type at compile time
 * by the CLI_* row makers in cli.h), and the help lines it adds. Prose rows (CLI_TEXT) hold
 * the synopsis and notes, so --help is the rows' help in table order, byte for byte what
 * the hand-written text said. Shared flags (embedding, LLM, writer flags) are tables of
 * their own that a command includes with the offset of their struct in its options.
 *
 * This is curl's option table (tool_getparam.c: name, letter, argument type) and Redis's
 * command table (a name, an arity and a handler per row) in small. What is generated from a
 * table: the parse (cli_flags_take, with the messages args.c has always given: a missing
 * value, a number out of range, a value not in the set with the nearest one), --help
 * (cli_flags_help), and in help.c the flags and value sets that did-you-mean, completion
 * and the man page use. A flag that takes a value takes it in the next word or, as
 * getopt_long allows, after '=' (--tokenizer=wordpiece). Every command has a table.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static bool is_named(const cli_flag *f, const char *arg)
{
    return (f->name && !strcmp(f->name, arg)) || (f->alias && !strcmp(f->alias, arg)) ||
           (f->also && !strcmp(f->also, arg));
}

/* The flag row of t (or a table it includes) named arg, with the offset of its table's
   struct in *base. */
static const cli_flag *find_row(const cli_flag_table *t, const char *arg, size_t *base)
{
    for (size_t r = 0; r < t->n; r++) {
        const cli_flag *f = &t->rows[r];
        if (f->kind == CLI_F_INCLUDE) {
            size_t inner = 0;
            const cli_flag *g = find_row(f->table, arg, &inner);
            if (g) {
                *base = f->at + inner;
                return g;
            }
        } else if (f->kind != CLI_F_TEXT && is_named(f, arg)) {
            *base = 0;
            return f;
        }
    }
    return NULL;
}

static int take_value(const char *cmd, const char *arg, const cli_flag *f, const char *v,
                      char *opts)
{
    void *slot = opts + f->at;
    long n = 0;
    switch (f->kind) {
    case CLI_F_STRING:
        *(const char **)slot = v;
        return 1;
    case CLI_F_SIZE:
        return cli_arg_size(cmd, arg, v, (size_t)f->lo, (size_t)f->hi, (size_t *)slot) ? 1 : -1;
    case CLI_F_LONG:
        if (!cli_arg_long(cmd, arg, v, (long)f->lo, (long)f->hi, &n)) return -1;
        *(long *)slot = n;
        return 1;
    case CLI_F_DOUBLE:
        return cli_arg_double(cmd, arg, v, f->lo, f->hi, f->above_lo, (double *)slot) ? 1 : -1;
    case CLI_F_CHOICE: {
        int c = cli_arg_choice(cmd, arg, v, f->choices);
        if (c < 0) return -1;
        *(int *)slot = c;
        return 1;
    }
    case CLI_F_LIST: {
        if (f->choices) {
            int c = cli_arg_choice(cmd, arg, v, f->choices);
            if (c < 0) return -1;
            v = f->choices[c];
        }
        size_t *count = (size_t *)(opts + f->count_at);
        if (*count >= f->cap) {
            cli_usage_error(cmd, f->too_many, arg, (int)f->cap);
            return -1;
        }
        ((const char **)slot)[(*count)++] = v;
        return 1;
    }
    case CLI_F_HANDLER:
        return f->take(cmd, arg, v, opts) == CLI_OK ? 1 : -1;
    default:
        return -1;
    }
}

int cli_flags_take(const char *cmd, const cli_flag_table *t, void (*usage)(FILE *), int argc,
                   char **argv, int *i, void *opts)
{
    const char *arg = argv[*i];
    if (usage && (!strcmp(arg, "--help") || !strcmp(arg, "-h"))) {
        usage(stdout);
        return CLI_FLAGS_HELP;
    }
    size_t base = 0;
    const cli_flag *f = find_row(t, arg, &base);
    /* --name=value, as getopt_long takes it, for a row that takes a value */
    const char *eq = f || strncmp(arg, "--", 2) ? NULL : strchr(arg, '=');
    char name[64];
    if (eq && (size_t)(eq - arg) < sizeof name) {
        memcpy(name, arg, (size_t)(eq - arg));
        name[eq - arg] = '\0';
        f = find_row(t, name, &base);
        if (f && (f->kind == CLI_F_SWITCH || f->kind == CLI_F_WORDS)) f = NULL;
        if (f) return take_value(cmd, name, f, eq + 1, (char *)opts + base);
    }
    if (!f) return 0;
    char *at = (char *)opts + base;
    if (f->kind == CLI_F_SWITCH) {
        *(bool *)(at + f->at) = true;
        return 1;
    }
    if (f->kind == CLI_F_WORDS) {
        char **list = *(char ***)(at + f->at);
        size_t *count = (size_t *)(at + f->count_at);
        int start = *i;
        while (*i + 1 < argc && !(argv[*i + 1][0] == '-' && argv[*i + 1][1]))
            list[(*count)++] = argv[++*i];
        if (*i > start) return 1;
        cli_arg_unknown(cmd, arg);
        return -1;
    }
    if (*i + 1 >= argc) {
        /* "needs a value" for a flag cmd's table (or, not converted yet, its help) names */
        cli_arg_unknown(cmd, arg);
        return -1;
    }
    return take_value(cmd, arg, f, argv[++*i], at);
}

int cli_flags_take_task(const char *cmd, const cli_flag_table *t, void (*usage)(FILE *), int argc,
                        char **argv, void *opts, const char **task, const char *missing)
{
    for (int i = 1; i < argc; i++) {
        int r = cli_flags_take(cmd, t, usage, argc, argv, &i, opts);
        if (r == CLI_FLAGS_HELP) return CLI_FLAGS_HELP;
        if (r < 0) return CLI_USAGE;
        if (r) continue;
        const char *a = argv[i];
        if (a[0] == '-' && a[1]) return cli_arg_unknown(cmd, a);
        if (*task) return cli_arg_unquoted(cmd, *task, argc, argv, i);
        *task = a;
    }
    if (!*task) return cli_usage_error(cmd, "%s", missing);
    return cli_check_task(cmd, *task);
}

void cli_flags_help(const cli_flag_table *t, FILE *out)
{
    for (size_t r = 0; r < t->n; r++) {
        const cli_flag *f = &t->rows[r];
        if (f->kind == CLI_F_INCLUDE)
            cli_flags_help(f->table, out);
        else if (f->help)
            fputs(f->help, out);
    }
}

void cli_flags_each(const cli_flag_table *t, void (*fn)(const cli_flag *f, void *ctx), void *ctx)
{
    for (size_t r = 0; r < t->n; r++) {
        const cli_flag *f = &t->rows[r];
        if (f->kind == CLI_F_INCLUDE)
            cli_flags_each(f->table, fn, ctx);
        else if (f->kind != CLI_F_TEXT)
            fn(f, ctx);
    }
}
