/* core_sys_* (src/core/sys.c): the calls that differ between systems, and their POSIX
   fallbacks (the argv[0] resolution runs on every system, so Linux tests it too). */
#include "testutil.h"

#include "core/core.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *argv0;

static void test_cpu_count(void **state)
{
    (void)state;
    int n = core_sys_cpu_count();
    assert_true(n >= 1);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online > 0) assert_true(n <= online);
}

static void test_pipe_cloexec(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(core_sys_pipe_cloexec(fds), 0);
    for (int i = 0; i < 2; i++) assert_true(fcntl(fds[i], F_GETFD) & FD_CLOEXEC);
    assert_int_equal(write(fds[1], "x", 1), 1);
    char c = 0;
    assert_int_equal(read(fds[0], &c, 1), 1);
    assert_int_equal(c, 'x');
    close(fds[0]);
    close(fds[1]);
}

/* The test program finds itself, whichever way (its path ends in its own name). */
static void test_self_exe(void **state)
{
    (void)state;
    char self[PATH_MAX];
    assert_int_equal(core_sys_self_exe(argv0, self, sizeof self), 0);
    assert_true(self[0] == '/');
    size_t n = strlen(self), m = strlen("test_core_sys");
    assert_true(n >= m && !strcmp(self + n - m, "test_core_sys"));
    char small[4];
    assert_int_equal(core_sys_self_exe(argv0, small, sizeof small), -1);
}

/* Which way the build finds the program: /proc/self/exe on Linux, whatever argv[0] says; the
   fallback (other systems, and a build with -DAPIDEX_PORTABLE_ONLY=ON: make test-portable)
   only through argv[0], so a name that is nowhere finds nothing. This fails when the option
   does not reach src/core/sys.c (the fallbacks would go untested). */
static void test_which_path(void **state)
{
    (void)state;
    char self[PATH_MAX];
    int rc = core_sys_self_exe("apidex-no-such-program", self, sizeof self);
#if defined(__linux__) && !defined(APIDEX_PORTABLE_ONLY)
    assert_int_equal(rc, 0);
    size_t n = strlen(self), m = strlen("test_core_sys");
    assert_true(n >= m && !strcmp(self + n - m, "test_core_sys"));
#else
    assert_int_equal(rc, -1);
#endif
}

/* argv[0] with a slash is a path; without one, it is looked up in $PATH, in order, and
   only executable regular files count. */
static void test_exe_from_argv0(void **state)
{
    (void)state;
    char tmp[] = "/tmp/apidex_sys_XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char a[64], b[64], tool_a[80], tool_b[80], plain[80];
    snprintf(a, sizeof a, "%s/a", tmp);
    snprintf(b, sizeof b, "%s/b", tmp);
    snprintf(tool_a, sizeof tool_a, "%s/tool", a);
    snprintf(tool_b, sizeof tool_b, "%s/tool", b);
    snprintf(plain, sizeof plain, "%s/plain", b);
    assert_int_equal(mkdir(a, 0755), 0);
    assert_int_equal(mkdir(b, 0755), 0);
    FILE *f = fopen(tool_b, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(chmod(tool_b, 0755), 0);
    f = fopen(plain, "w"); /* not executable: never the answer */
    assert_non_null(f);
    fclose(f);
    assert_int_equal(mkdir(tool_a, 0755), 0); /* a folder named tool comes first: skipped */

    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    char path[160];
    snprintf(path, sizeof path, "%s:%s", a, b);
    setenv("PATH", path, 1);
    char out[PATH_MAX];
    assert_int_equal(core_sys_exe_from_argv0("tool", out, sizeof out), 0);
    char *real = realpath(tool_b, NULL);
    assert_string_equal(out, real);
    assert_int_equal(core_sys_exe_from_argv0("plain", out, sizeof out), -1);
    assert_int_equal(core_sys_exe_from_argv0("missing", out, sizeof out), -1);
    assert_int_equal(core_sys_exe_from_argv0(tool_b, out, sizeof out), 0); /* a path */
    assert_string_equal(out, real);
    assert_int_equal(core_sys_exe_from_argv0(plain, out, sizeof out), -1);
    assert_int_equal(core_sys_exe_from_argv0("", out, sizeof out), -1);
    if (saved) setenv("PATH", saved, 1);
    free(saved);
    free(real);
    remove(tool_b);
    remove(plain);
    rmdir(tool_a);
    rmdir(a);
    rmdir(b);
    rmdir(tmp);
}

static void test_copy_file(void **state)
{
    (void)state;
    char from[] = "/tmp/apidex_copy_XXXXXX", to[] = "/tmp/apidex_copy_XXXXXX";
    int in = mkstemp(from), out = mkstemp(to);
    assert_true(in >= 0 && out >= 0);
    static char data[300000];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (char)(i * 7 + i / 1000);
    assert_int_equal(write(in, data, sizeof data), (ssize_t)sizeof data);
    assert_int_equal(lseek(in, 0, SEEK_SET), 0);
    assert_int_equal(core_sys_copy_file(in, out, (int64_t)sizeof data), 0);
    static char back[sizeof data];
    assert_int_equal(pread(out, back, sizeof back, 0), (ssize_t)sizeof back);
    assert_memory_equal(back, data, sizeof data);
    close(in);
    close(out);
    unlink(from);
    unlink(to);
}

int main(int argc, char **argv)
{
    (void)argc;
    argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_count),      cmocka_unit_test(test_pipe_cloexec),
        cmocka_unit_test(test_self_exe),       cmocka_unit_test(test_which_path),
        cmocka_unit_test(test_exe_from_argv0), cmocka_unit_test(test_copy_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
