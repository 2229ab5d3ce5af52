/* apidex inspect: placeholder replaced by the loader work (see src/spec). */
#include "cli/cli.h"
int cli_cmd_inspect(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return CLI_USAGE;
}
