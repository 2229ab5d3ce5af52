/* The test helpers' own promises (tests/unit/testutil.c): a test server that will not end on
   SIGTERM (one that ignores it, or an emulator stuck in a lock) is killed, never waited on
   forever, so a hung child cannot hang the suite. */
#include "testutil.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static void test_server_ignoring_sigterm_is_killed(void **state)
{
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0) skip();
    char *dir = tu_tempdir();
    char *port_file = tu_path(dir, "port");
    char *script = tu_write(dir, "stubborn.py",
                            "import signal, sys, time\n"
                            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                            "open(sys.argv[1] + '.tmp', 'w').write('4242')\n"
                            "import os; os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
                            "time.sleep(600)\n");
    char *const argv[] = {"/usr/bin/python3", script, port_file, NULL};
    int port = 0;
    int pid = tu_server_start(argv, dir, port_file, &port);
    assert_int_equal(port, 4242);
    tu_server_stop(pid);
    /* reaped: the pid no longer names a process of ours */
    assert_int_equal(kill(pid, 0), -1);
    assert_int_equal(errno, ESRCH);
    tu_rmtree(dir);
    free(port_file);
    free(script);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_ignoring_sigterm_is_killed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
