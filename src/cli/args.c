/*
 * Argument checks every command shares: numbers in a range, values from a fixed set,
 * unknown commands and flags with the nearest known one, empty tasks, --color; the index
 * and search engine commands open, and the text a writer built printed.
 *
 * Each check prints one line that names the command, the flag, what it takes and what it
 * got, then a one-line pointer to --help (never the whole usage: it buries the reason).
 * The known flags of a command come from its flag table (flags.c; help.c reads the help
 * text of a command not converted yet), so a new flag is suggested, completed and
 * documented as soon as its row is written.
 */
#include "cli/cli.h"

#include "chunk/chunk.h"
#include "exec/exec.h"
#include "net/net.h"
#include "search/search.h"
#include "store/store.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static void print_hint(const char *cmd)
{
    if (cmd)
        fprintf(stderr, "Run 'apidex %s --help' for its options.\n", cmd);
    else
        fprintf(stderr, "Run 'apidex --help' for the commands.\n");
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    fprintf(stderr, "apidex%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    print_hint(cmd);
    return CLI_USAGE;
}

bool cli_arg_long(const char *cmd, const char *flag, const char *value, long min, long max,
                  long *out)
{
    char *end = NULL;
    errno = 0;
    long v = value && *value && !isspace((unsigned char)*value) ? strtol(value, &end, 10) : 0;
    if (!end || *end || errno || v < min || v > max) {
        if (max == LONG_MAX)
            cli_usage_error(cmd, "%s takes a whole number of at least %ld, got '%s'", flag, min,
                            value ? value : "");
        else
            cli_usage_error(cmd, "%s takes a whole number from %ld to %ld, got '%s'", flag, min,
                            max, value ? value : "");
        return false;
    }
    *out = v;
    return true;
}

bool cli_arg_size(const char *cmd, const char *flag, const char *value, size_t min, size_t max,
                  size_t *out)
{
    long v = 0;
    long lmax = max > (size_t)LONG_MAX ? LONG_MAX : (long)max;
    if (!cli_arg_long(cmd, flag, value, (long)min, lmax, &v)) return false;
    *out = (size_t)v;
    return true;
}

bool cli_arg_address(const char *cmd, const char *value)
{
    if (value && net_address_valid(value)) return true;
    cli_usage_error(cmd, "--allow-address wants an IP address (such as 127.0.0.1 or ::1), not '%s'",
                    value ? value : "");
    return false;
}

bool cli_arg_allow_host(const char *cmd, const char *value)
{
    if (value && exec_allow_entry_valid(value)) return true;
    cli_usage_error(cmd,
                    "--allow-host wants HOST, HOST:PORT or scheme://HOST[:PORT] (an origin, no "
                    "path; printable ASCII), not '%s'",
                    value ? value : "");
    return false;
}

bool cli_arg_api_id(const char *cmd, const char *flag, const char *value)
{
    if (spec_id_valid(value)) return true;
    cli_usage_error(cmd,
                    "%s '%s': an id is 1-%d of a-z 0-9 . _ - and starts and ends with a letter or "
                    "digit",
                    flag, value, SPEC_ID_MAX);
    return false;
}

bool cli_arg_load_memory(const char *cmd, const char *value, unsigned *out)
{
    char *end = NULL;
    unsigned long v = value && *value >= '0' && *value <= '9' ? strtoul(value, &end, 10) : 0;
    if (v >= 1 && v <= 100000 && end && (!*end || (end[0] == 'x' && !end[1]))) {
        *out = (unsigned)v;
        return true;
    }
    cli_usage_error(cmd,
                    "--max-load-memory wants a multiple of the file size from 1 to 100000 "
                    "(such as 32), not '%s'",
                    value ? value : "");
    return false;
}

bool cli_arg_double(const char *cmd, const char *flag, const char *value, double min, double max,
                    bool above_min, double *out)
{
    char *end = NULL;
    double v = value && *value && !isspace((unsigned char)*value) ? strtod(value, &end) : NAN;
    bool ok = end && !*end && isfinite(v) && (above_min ? v > min : v >= min) && v <= max;
    if (!ok) {
        const char *got = value ? value : "";
        if (isinf(max))
            cli_usage_error(cmd, "%s takes a number %s %g, got '%s'", flag,
                            above_min ? "above" : "of at least", min, got);
        else if (above_min)
            cli_usage_error(cmd, "%s takes a number above %g and at most %g, got '%s'", flag, min,
                            max, got);
        else
            cli_usage_error(cmd, "%s takes a number from %g to %g, got '%s'", flag, min, max, got);
        return false;
    }
    *out = v;
    return true;
}

int cli_arg_choice(const char *cmd, const char *flag, const char *value, const char *const *choices)
{
    size_t n = 0;
    for (; choices[n]; n++)
        if (value && !strcasecmp(value, choices[n])) return (int)n;
    char list[512];
    size_t len = 0;
    list[0] = '\0';
    for (size_t i = 0; i < n && len < sizeof list; i++) {
        int w = snprintf(list + len, sizeof list - len, "%s%s",
                         i == 0       ? ""
                         : i + 1 == n ? " or "
                                      : ", ",
                         choices[i]);
        if (w < 0) break;
        len += (size_t)w;
    }
    const char *near = value ? cli_nearest(value, choices, n) : NULL;
    if (near)
        cli_usage_error(cmd, "%s takes %s, got '%s'; did you mean '%s'?", flag, list, value, near);
    else
        cli_usage_error(cmd, "%s takes %s, got '%s'", flag, list, value ? value : "");
    return -1;
}

static size_t edit_distance(const char *a, const char *b)
{
    return core_edit_distance(a, strlen(a), b, strlen(b), (size_t)-1);
}

const char *cli_nearest(const char *word, const char *const *candidates, size_t n)
{
    /* A third of the word may be wrong (at least one letter): 'serach' -> 'search' (a
       swap), '--jsn' -> '--json'; farther than that a guess misleads more than it helps. */
    size_t len = strlen(word), limit = len / 3 ? len / 3 : 1, best = (size_t)-1;
    const char *found = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t dist = edit_distance(word, candidates[i]);
        if (dist <= limit && dist < best) {
            best = dist;
            found = candidates[i];
        }
    }
    /* A prefix of exactly one candidate (--adapt) is as good a guess as a typo. */
    if (!found && len >= 3) {
        for (size_t i = 0; i < n; i++)
            if (!strncmp(candidates[i], word, len)) {
                if (found) return NULL;
                found = candidates[i];
            }
    }
    return found;
}

int cli_arg_unknown(const char *cmd, const char *arg)
{
    const char *flags[CLI_MAX_FLAGS];
    size_t n = cli_command_flags(cmd, flags, CLI_MAX_FLAGS);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(flags[i], arg))
            return cli_usage_error(cmd, "%s needs a value (see --help)", arg);
    if (arg[0] != '-' || !arg[1]) return cli_usage_error(cmd, "unexpected argument '%s'", arg);
    const char *near = cli_nearest(arg, flags, n);
    /* Other tools' words for a flag this command spells its own way. */
    static const char *const synonyms[][2] = {
        {"--top", "-k"},     {"--limit", "-k"},      {"-n", "-k"},          {"--count", "-k"},
        {"--index", "--db"}, {"--database", "--db"}, {"--port", "--listen"}};
    for (size_t s = 0; !near && s < sizeof synonyms / sizeof *synonyms; s++)
        for (size_t i = 0; i < n && !strcmp(arg, synonyms[s][0]); i++)
            if (!strcmp(flags[i], synonyms[s][1])) near = flags[i];
    if (near) return cli_usage_error(cmd, "unknown option '%s'; did you mean '%s'?", arg, near);
    return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_arg_unquoted(const char *cmd, const char *task, int argc, char **argv, int i)
{
    /* The words after the task that are no flag: the rest of an unquoted task. */
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, task);
    for (int k = i; k < argc && argv[k][0] != '-'; k++) core_buf_printf(&b, " %s", argv[k]);
    int rc =
        cli_usage_error(cmd, "unexpected argument '%s': quote the task, as in apidex %s \"%s\"",
                        argv[i], cmd, b.data ? b.data : task);
    core_buf_free(&b);
    return rc;
}

int cli_check_task(const char *cmd, const char *task)
{
    for (const char *p = task; p && *p; p++)
        if (!isspace((unsigned char)*p)) return CLI_OK;
    return cli_usage_error(cmd, "task is empty: describe what you want to do in plain words");
}

/* ---------------------------------------------------------------- --color */

const char *const cli_color_names[] = {"auto", "always", "never", NULL};

int cli_color_parse(const char *cmd, const char *value, cli_color *out)
{
    int c = cli_arg_choice(cmd, "--color", value, cli_color_names);
    if (c < 0) return CLI_USAGE;
    *out = (cli_color)c;
    return CLI_OK;
}

bool cli_color_enabled(cli_color when, FILE *out)
{
    if (when == CLI_COLOR_ALWAYS) return true;
    if (when == CLI_COLOR_NEVER) return false;
    /* https://no-color.org: a non-empty NO_COLOR turns colour off unless asked for. */
    const char *no = getenv("NO_COLOR");
    if (no && *no) return false;
    const char *term = getenv("TERM");
    if (term && !strcmp(term, "dumb")) return false;
    return isatty(fileno(out));
}

/* ---------------------------------------------------------------- --api ids */

int cli_check_apis(const char *cmd, store_index *idx, const char **apis, size_t n_apis)
{
    const store_api *all = NULL;
    size_t n = 0;
    for (size_t i = 0; i < n_apis; i++) {
        long at = -1;
        apidex_error err;
        core_error_clear(&err);
        int rc = store_resolve_api(idx, apis[i], &at, &err);
        if (rc == APIDEX_ENOTFOUND || rc == APIDEX_EINVAL) {
            cli_usage_error(cmd, "%s ('apidex list' shows the APIs)", err.message);
            return CLI_USAGE;
        }
        if (!rc) rc = store_apis(idx, &all, &n, &err);
        if (rc) {
            cli_print_error(&err);
            return CLI_FAILURE;
        }
        apis[i] = all[at].id; /* the id from here on: filters compare ids */
    }
    return CLI_OK;
}

int cli_index_search_open(const char *db, store_index **idx, search_engine **eng, apidex_error *err)
{
    *eng = NULL;
    int rc = store_open(db, true, idx, err);
    if (!rc) rc = search_engine_open(*idx, eng, err);
    if (rc) {
        search_engine_close(*eng);
        store_close(*idx);
        *eng = NULL;
        *idx = NULL;
    }
    return rc;
}

int cli_buf_print(core_buf *b, int failed)
{
    if (!failed) fputs(b->data ? b->data : "", stdout);
    core_buf_free(b);
    return failed ? CLI_FAILURE : CLI_OK;
}

bool cli_arg_strategy(const char *cmd, const char *flag, const char *value)
{
    const char *names[CHUNK_HYBRID - CHUNK_NOSPLIT + 2];
    size_t n = 0;
    for (int s = CHUNK_NOSPLIT; s <= CHUNK_HYBRID; s++)
        names[n++] = chunk_strategy_name((chunk_strategy)s);
    names[n] = NULL;
    return cli_arg_choice(cmd, flag, value, names) >= 0;
}

const char *cli_mcp_config_source(const char *file)
{
    /* kept reachable until exit: a command's source list borrows it */
    static char *made[64];
    static size_t n_made;
    if (n_made == sizeof made / sizeof *made) return NULL;
    size_t l = strlen(file) + 12;
    char *s = malloc(l);
    if (s) snprintf(s, l, "mcp+config:%s", file);
    if (s) made[n_made++] = s;
    return s;
}
