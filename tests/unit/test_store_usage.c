/* The usage sidecar (src/store/usage_sidecar.c, usage_feedback.c): path shapes, recording and
 * reading with decay, writers at once lose nothing, and endpoints resolve (or name the
 * closest). Feedback on a built index, kept across a rebuild: test_build_usage.c. */
#include "testutil.h"

#include "oas/oas.h"
#include "store/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_path_shape(void **state)
{
    (void)state;
    core_buf b;
    core_buf_init(&b, 0);
    store_path_shape("/pets/{petId}/toys/{toy}", &b);
    assert_string_equal(b.data, "/pets/{}/toys/{}");
    store_path_shape("/a/{unclosed", &b);
    assert_string_equal(b.data, "/a/{unclosed");
    store_path_shape("", &b);
    assert_string_equal(b.data, "");
    core_buf_free(&b);
}

static void test_record_and_decay(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = tu_path(dir, "x.db"); /* no index needed to record */
    apidex_error err;
    store_usage_use u[] = {{"api", "GET", "/pets/{petId}"}, {"api", "POST", "/pets"}};
    double day = 86400;
    assert_int_equal(store_usage_record(db, u, 2, "task one", 1000 * day, &err), 0);
    assert_int_equal(store_usage_record(db, u, 1, NULL, 1030 * day, &err), 0);
    store_usage *s = NULL;
    assert_int_equal(store_usage_load(db, 30 * day, 1030 * day, &s, &err), 0);
    assert_int_equal(s->n, 2);
    /* another parameter name: the same endpoint */
    const store_usage_entry *e = store_usage_find(s, "api", "GET", "/pets/{}");
    assert_non_null(e);
    assert_int_equal(e->uses, 2);
    assert_true(fabs(e->count - 1.5) < 1e-9); /* one now, one a half-life ago */
    e = store_usage_find(s, "api", "POST", "/pets");
    assert_true(fabs(e->count - 0.5) < 1e-9);
    assert_null(store_usage_find(s, "api", "DELETE", "/pets"));
    store_usage_free(s);
    /* no decay */
    assert_int_equal(store_usage_load(db, 0, 1030 * day, &s, &err), 0);
    assert_true(fabs(store_usage_find(s, "api", "GET", "/pets/{}")->count - 2) < 1e-9);
    store_usage_free(s);
    /* no sidecar: an empty set */
    char *other = tu_path(dir, "none.db");
    assert_int_equal(store_usage_load(other, 1, 0, &s, &err), 0);
    assert_int_equal(s->n, 0);
    store_usage_free(s);
    free(other);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

/* Several processes record at once, the first of them on a file that does not exist yet:
 * creating the sidecar races too (switching to WAL and making the tables), so each round
 * starts on a new file. */
static void test_concurrent_writers_lose_nothing(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    enum { ROUNDS = 8, WRITERS = 4, EACH = 6 };
    for (int r = 0; r < ROUNDS; r++) {
        char name[32];
        snprintf(name, sizeof name, "x%d.db", r);
        char *db = tu_path(dir, name);
        pid_t kids[WRITERS];
        for (int w = 0; w < WRITERS; w++) {
            kids[w] = fork();
            assert_true(kids[w] >= 0);
            if (kids[w] == 0) {
                apidex_error err;
                store_usage_use u = {"api", "GET", "/things"};
                for (int i = 0; i < EACH; i++)
                    if (store_usage_record(db, &u, 1, "t", 100.0, &err)) {
                        fprintf(stderr, "round %d, writer %d, use %d: %s\n", r, w, i, err.message);
                        _exit(1);
                    }
                _exit(0);
            }
        }
        for (int w = 0; w < WRITERS; w++) {
            int status = 0;
            waitpid(kids[w], &status, 0);
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        store_usage *s = NULL;
        apidex_error err;
        assert_int_equal(store_usage_load(db, 0, 100.0, &s, &err), 0);
        assert_int_equal(store_usage_find(s, "api", "GET", "/things")->uses, WRITERS * EACH);
        store_usage_free(s);
        free(db);
    }
    tu_rmtree(dir);
    free(dir);
}

static void test_resolve_ambiguous_method_path(void **state)
{
    (void)state;
    store_operation ops[2] = {{.id = "a:getX", .api = "a", .method = "GET", .path = "/x"},
                              {.id = "b:getX", .api = "b", .method = "GET", .path = "/x"}};
    long oi = -1;
    apidex_error err;
    assert_int_equal(store_usage_resolve(ops, 2, "GET /x", NULL, &oi, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "'GET /x' is in 2 APIs"));
    assert_int_equal(store_usage_resolve(ops, 2, "GET /x", "b", &oi, &err), 0);
    assert_int_equal(oi, 1);
    assert_int_equal(store_usage_resolve(ops, 2, "a:getX", NULL, &oi, &err), 0);
    assert_int_equal(oi, 0);
    assert_int_equal(store_usage_resolve(ops, 2, "", NULL, &oi, &err), APIDEX_EINVAL);
}

static void test_server_database_keeps_no_sidecar(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0); /* a relative "postgres:" file would land here */
    const char *url = "postgres://me:s3cret@127.0.0.1:1/reg";
    store_usage_use u[] = {{"api", "GET", "/pets"}};
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(store_usage_record(url, u, 1, NULL, 1, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "PostgreSQL"));
    assert_null(strstr(err.message, "s3cret"));
    store_usage *s = NULL;
    assert_int_equal(store_usage_load(url, 1, 0, &s, &err), 0); /* nothing to weigh */
    assert_int_equal(s->n, 0);
    store_usage_free(s);
    assert_int_equal(access("postgres:", F_OK), -1); /* no file named after the URL */
    assert_int_equal(chdir(cwd), 0);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_shape),
        cmocka_unit_test(test_record_and_decay),
        cmocka_unit_test(test_concurrent_writers_lose_nothing),
        cmocka_unit_test(test_resolve_ambiguous_method_path),
        cmocka_unit_test(test_server_database_keeps_no_sidecar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
