/* The apidex command: one function per subcommand, shared option helpers. */
#ifndef APIDEX_CLI_H
#define APIDEX_CLI_H

#include "core/core.h"

/* Exit codes: 0 ok, 1 the work found problems (e.g. a document failed), 2 usage error,
   3 runtime failure (I/O, database, out of memory). */
enum { CLI_OK = 0, CLI_PROBLEMS = 1, CLI_USAGE = 2, CLI_FAILURE = 3 };

typedef int (*cli_cmd_fn)(int argc, char **argv);

/* Subcommands (argv[0] is the subcommand name). */
int cli_cmd_inspect(int argc, char **argv);

/** Prints "apidex: <message>" and the location of err to stderr. */
void cli_print_error(const apidex_error *err);
/** True when stderr is a terminal (progress bars). */
int cli_stderr_is_tty(void);

#endif
