/*
 * What every command writes to stderr besides its output: an error with its location
 * (file:line:col, JSON pointer), the agents' progress trace, and whether stderr is a
 * terminal.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

void cli_trace_stderr(void *cmd, const char *event, const char *detail)
{
    size_t n = strcspn(detail, "\n");
    fprintf(stderr, "apidex %s: %s: %.*s%s\n", cmd ? (const char *)cmd : "", event,
            (int)(n > 200 ? 200 : n), detail, n > 200 || detail[n] ? " ..." : "");
}

int cli_stderr_is_tty(void)
{
    return isatty(STDERR_FILENO);
}
