/* The writer lock (lock.c) and what is at an index path (probe.c). The registry-change rules
   of a build are in test_build_changes.c. */
#include "testutil.h"

#include "store/store.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A child process that takes the lock of db, says so through a pipe, then sleeps. */
static pid_t holder_start(const char *db)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        store_lock *l = NULL;
        apidex_error err;
        if (store_lock_acquire(db, NULL, &l, &err)) _exit(1);
        if (write(fds[1], "x", 1) != 1) _exit(1);
        pause();
        _exit(0);
    }
    close(fds[1]);
    char c;
    assert_int_equal(read(fds[0], &c, 1), 1);
    close(fds[0]);
    return pid;
}

static long waited_for;
static int n_waits;
static void on_wait(void *ctx, long holder, double seconds)
{
    (void)ctx;
    (void)seconds;
    waited_for = holder;
    n_waits++;
}

static void test_lock(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = tu_path(dir, "x.db");
    char *lockfile = tu_path(dir, "x.db.lock");
    apidex_error err;
    store_lock *l = NULL;

    /* free: taken at once, and the file goes with the lock */
    assert_int_equal(store_lock_acquire(db, NULL, &l, &err), 0);
    assert_int_equal(access(lockfile, F_OK), 0);
    store_lock_release(l);
    assert_int_not_equal(access(lockfile, F_OK), 0);

    /* held by another process: --no-wait fails at once naming its pid */
    pid_t pid = holder_start(db);
    store_lock_options nowait = {.no_wait = true};
    assert_int_equal(store_lock_acquire(db, &nowait, &l, &err), APIDEX_EBUSY);
    char want[64];
    snprintf(want, sizeof want, "pid %ld", (long)pid);
    assert_non_null(strstr(err.message, want));
    /* a short wait: told once, then busy */
    store_lock_options shortwait = {.wait_seconds = 0.3, .on_wait = on_wait};
    double t0 = core_now();
    assert_int_equal(store_lock_acquire(db, &shortwait, &l, &err), APIDEX_EBUSY);
    assert_true(core_now() - t0 >= 0.29);
    assert_int_equal(n_waits, 1);
    assert_int_equal(waited_for, (long)pid);
    assert_non_null(strstr(err.message, "still writing"));

    /* the holder is killed: the kernel released it; the stale file is taken over and removed */
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    assert_int_equal(access(lockfile, F_OK), 0);
    assert_int_equal(store_lock_acquire(db, &nowait, &l, &err), 0);
    store_lock_release(l);
    assert_int_not_equal(access(lockfile, F_OK), 0);

    free(lockfile);
    free(db);
    tu_rmtree(dir);
    free(dir);
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void test_probe(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *missing = tu_path(dir, "none.db");
    assert_int_equal(store_probe(missing), STORE_FILE_MISSING);
    char *empty = tu_write(dir, "empty.db", "");
    assert_int_equal(store_probe(empty), STORE_FILE_EMPTY);
    char *text = tu_write(dir, "t.db", "openapi: 3.0.0\n");
    assert_int_equal(store_probe(text), STORE_FILE_OTHER);
    assert_int_equal(store_probe(dir), STORE_FILE_OTHER);
    /* the SQLite header, with and without apidex's application id at offset 68 */
    char head[100] = "SQLite format 3"; /* with its NUL: 16 bytes of magic */
    memset(head + 16, ' ', 84);
    char *foreign = tu_path(dir, "f.db");
    write_bytes(foreign, head, sizeof head);
    assert_int_equal(store_probe(foreign), STORE_FILE_SQLITE);
    memcpy(head + 68, "APDX", 4);
    char *ours = tu_path(dir, "o.db");
    write_bytes(ours, head, sizeof head);
    assert_int_equal(store_probe(ours), STORE_FILE_APIDEX);
    write_bytes(ours, head, 80); /* a header cut short is not clearly ours */
    assert_int_equal(store_probe(ours), STORE_FILE_OTHER);
    free(missing);
    free(empty);
    free(text);
    free(foreign);
    free(ours);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lock),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
