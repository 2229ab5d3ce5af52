/* Helpers shared by the cmocka unit tests: where data lives, temp dirs, fixtures. */
#ifndef APIDEX_TESTUTIL_H
#define APIDEX_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/** ../shared (APIDEX_SHARED_DIR), or NULL when it is not there. */
const char *tu_shared_dir(void);
/** The source tree root (APIDEX_SOURCE_DIR). */
const char *tu_source_dir(void);
/**
 * The CPU model the test runs on under QEMU user mode (APIDEX_TEST_EMULATED_CPU, set by
 * CTest's qemu_haswell_* runs and the arm64 cross build), or NULL natively. Emulation runs
 * programs many times slower: a check of wall-clock time that tests concurrency (not a
 * hang) holds only natively.
 */
const char *tu_emulated_cpu(void);
/** Joins dir and rel into a static-free malloc'd path. */
char *tu_path(const char *dir, const char *rel);
/** A fresh empty temporary directory (malloc'd path); removed by tu_rmtree. */
char *tu_tempdir(void);
/** Writes text to dir/rel (creating parent directories); returns the malloc'd path. */
char *tu_write(const char *dir, const char *rel, const char *text);
/** rm -rf path. */
void tu_rmtree(const char *path);
/**
 * Starts a local test server: forks and execs argv (argv[0] is the program path),
 * its stdout and stderr going to dir/server.out (a server left running must not
 * hold the test's pipes), then waits up to 10 s for it to write its port number
 * into port_file. Fails the test when it does not start. Returns the pid; *port
 * gets the port.
 */
int tu_server_start(char *const argv[], const char *dir, const char *port_file, int *port);
/** Stops a server from tu_server_start: SIGTERM, and SIGKILL when it has not ended 5 s later
 *  (a server that ignores SIGTERM, or a stuck emulator, never hangs a test). pid <= 0: no-op. */
void tu_server_stop(int pid);
/** Skips the current test (cmocka skip) when ../shared is missing. */
#define TU_REQUIRE_SHARED()                                                                        \
    do {                                                                                           \
        if (!tu_shared_dir()) {                                                                    \
            print_message("../shared not found: skipped\n");                                       \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

#endif
