/*
 * The apidex command: dispatches to one function per subcommand (cmd_*.c).
 *
 * OpenBLAS reads OPENBLAS_CORETYPE when the shared library loads, before main
 * runs. When it is unset and OpenBLAS's own detection missed this CPU's AVX-512
 * (embed_blas_core_advice, embed/cpu.c), main names the AVX-512 core and
 * re-executes itself once (its own file: /proc/self/exe, or argv[0] through $PATH
 * where there is no /proc: core_sys_self_exe); every other CPU keeps OpenBLAS's choice.
 */
#include "cli/cli.h"
#include "embed/embed.h"
#include "search/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void ensure_blas_env(char **argv)
{
    if (getenv("OPENBLAS_CORETYPE") || getenv("APIDEX_NO_REEXEC")) return;
    const char *core = embed_blas_core_advice();
    if (!core) return;
    char self[4096];
    if (core_sys_self_exe(argv[0], self, sizeof self) != 0) return; /* OpenBLAS's choice */
    setenv("OPENBLAS_CORETYPE", core, 1);
    execv(self, argv);
    /* exec failed: go on with OpenBLAS's own choice (the variable must not stay set) */
    unsetenv("OPENBLAS_CORETYPE");
}

int main(int argc, char **argv)
{
    ensure_blas_env(argv);
    search_image_install(); /* every build of this process writes the search image */
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        if (argc >= 3 && cli_command_find(argv[2])) {
            cli_command_find(argv[2])->usage(stdout);
            return CLI_OK;
        }
        cli_usage_main(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
        printf("apidex %s\n", apidex_version());
        return CLI_OK;
    }
    const cli_command *cmd = cli_command_find(argv[1]);
    if (cmd) return cmd->fn(argc - 1, argv + 1);
    size_t n = 0;
    const cli_command *all = cli_commands(&n);
    const char *names[64];
    size_t n_names = 0;
    for (size_t i = 0; i < n && n_names < 60; i++) names[n_names++] = all[i].name;
    names[n_names++] = "version";
    names[n_names++] = "help";
    names[n_names++] = "--version";
    names[n_names++] = "--help";
    const char *near = cli_nearest(argv[1], names, n_names);
    if (near)
        return cli_usage_error(NULL, "unknown command '%s'; did you mean '%s'?", argv[1], near);
    return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
}
