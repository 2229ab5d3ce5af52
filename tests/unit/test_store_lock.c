/* The writer lock (lock.c), what is at an index path (probe.c), and the registry-change rules
   of store_build: the guard, keep-unlisted (add) and drop (remove). */
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

static spec_registry *load(const char *const *paths, size_t n, const char *name)
{
    spec_registry *reg = NULL;
    apidex_error err;
    spec_options so = {.api_id = name};
    assert_int_equal(spec_registry_new(&so, &reg, &err), 0);
    for (size_t i = 0; i < n; i++) assert_int_equal(spec_registry_add(reg, paths[i], &err), 0);
    return reg;
}

static size_t n_apis(const char *db)
{
    store_index *idx = NULL;
    apidex_error err;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    const store_api *apis;
    size_t n = 0;
    assert_int_equal(store_apis(idx, &apis, &n, &err), 0);
    store_close(idx);
    return n;
}

static void test_registry_changes(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = tu_path(dir, "x.db");
    char pet[1024], notes[1024];
    snprintf(pet, sizeof pet, "%s/tests/data/store/petstore.yaml", tu_source_dir());
    snprintf(notes, sizeof notes, "%s/tests/data/store/notes.json", tu_source_dir());
    apidex_error err;
    store_build_report rep;
    const char *both[] = {pet, notes};
    spec_registry *reg = load(both, 2, NULL);
    store_build_options guard = {.guard = true};
    assert_int_equal(store_build(db, reg, &guard, &rep, &err), 0);
    spec_registry_free(reg);

    /* the guard: all of it, or more than half, is refused; half is not */
    reg = load(NULL, 0, NULL);
    assert_int_equal(store_build(db, reg, &guard, &rep, &err), APIDEX_EREFUSED);
    assert_non_null(strstr(err.message, "remove all 2 APIs"));
    spec_registry_free(reg);
    reg = load(both, 1, NULL);
    assert_int_equal(store_build(db, reg, &guard, &rep, &err), 0);
    assert_int_equal(rep.removed, 1);
    spec_registry_free(reg);

    /* add (keep_unlisted) under a given name; the other API is copied */
    const char *one[] = {notes};
    reg = load(one, 1, "my-notes");
    store_build_options add = {.keep_unlisted = true, .inherit = true, .guard = true};
    assert_int_equal(store_build(db, reg, &add, &rep, &err), 0);
    assert_int_equal(rep.added, 1);
    assert_int_equal(rep.unchanged, 1);
    assert_int_equal(rep.removed, 0);
    assert_int_equal(n_apis(db), 2);
    spec_registry_free(reg);

    /* remove: an unknown id is refused, a known one goes alone */
    reg = load(NULL, 0, NULL);
    const char *gone[] = {"nope"};
    store_build_options rm = {
        .keep_unlisted = true, .inherit = true, .drop_apis = gone, .n_drop_apis = 1};
    assert_int_equal(store_build(db, reg, &rm, &rep, &err), APIDEX_ENOTFOUND);
    gone[0] = "my-notes";
    assert_int_equal(store_build(db, reg, &rm, &rep, &err), 0);
    assert_int_equal(rep.removed, 1);
    assert_int_equal(rep.unchanged, 1);
    assert_int_equal(n_apis(db), 1);
    spec_registry_free(reg);

    free(db);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lock),
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_registry_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
