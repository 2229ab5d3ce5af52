/* Hot reload: requests running on several threads while the index is rebuilt (and
   removed) under them never fail, and new requests see the new index. */
#include "serve_testutil.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

typedef struct worker {
    serve_db *db;
    atomic_int *stop;
    size_t done, failed;
    size_t max_apis;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    while (!atomic_load(w->stop)) {
        serve_snapshot *s = serve_db_acquire(w->db);
        serve_search_args a = {.task = "get the cast and crew of a movie", .k = 5};
        struct json_object *out = NULL;
        apidex_error err;
        int rc = serve_query_search(s, &a, &out, &err);
        if (rc || json_object_array_length(sv_at(out, "results")) == 0) {
            if (!w->failed++)
                fprintf(stderr, "search failed (%zu ops, build %llx): rc %d %s: %s\n",
                        serve_snapshot_info(s)->n_operations,
                        (unsigned long long)serve_snapshot_info(s)->build_id, rc, err.message,
                        out ? json_object_to_json_string(out) : "");
        }
        struct json_object *apis = NULL;
        if (serve_query_apis(s, &apis, &err) == 0) {
            size_t n = (size_t)sv_int(apis, "count");
            if (n > w->max_apis) w->max_apis = n;
        } else {
            w->failed++;
        }
        json_object_put(apis);
        json_object_put(out);
        serve_snapshot_release(s);
        w->done++;
    }
    return NULL;
}

static void test_reload_under_load(void **state)
{
    (void)state;
    char *dir = NULL;
    char *db_path = sv_fixture(&dir);
    apidex_error err;
    serve_db *db;
    assert_int_equal(serve_db_open(db_path, 0, &db, &err), 0);
    serve_snapshot *old = serve_db_acquire(db);
    assert_int_equal(serve_snapshot_info(old)->n_apis, 2);

    enum { THREADS = 4 };
    atomic_int stop;
    atomic_init(&stop, 0);
    worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){.db = db, .stop = &stop};
        pthread_create(&t[i], NULL, work, &w[i]);
    }
    for (int gen = 0; gen < 4; gen++) {
        usleep(50 * 1000);
        sv_fixture_write(db_path, gen % 2 ? 1 : 2);
    }
    usleep(50 * 1000);
    atomic_store(&stop, 1);
    size_t done = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failed, 0);
        done += w[i].done;
    }
    assert_true(done > 0);
    assert_true(serve_db_reloads(db) >= 1);

    /* The last build had two APIs; a new one with three is picked up. */
    sv_fixture_write(db_path, 2);
    serve_snapshot *cur = serve_db_acquire(db);
    assert_int_equal(serve_snapshot_info(cur)->n_apis, 3);
    /* The snapshot taken before every rebuild still answers. */
    struct json_object *apis = NULL;
    assert_int_equal(serve_query_apis(old, &apis, &err), 0);
    assert_int_equal(sv_int(apis, "count"), 2);
    json_object_put(apis);
    serve_snapshot_release(old);
    serve_snapshot_release(cur);

    /* A removed file keeps the last index serving; a new build comes back. */
    uint64_t failures = serve_db_reload_failures(db);
    unlink(db_path);
    cur = serve_db_acquire(db);
    assert_int_equal(serve_snapshot_info(cur)->n_apis, 3);
    serve_snapshot_release(cur);
    assert_true(serve_db_reload_failures(db) > failures);
    sv_fixture_write(db_path, 1);
    cur = serve_db_acquire(db);
    assert_int_equal(serve_snapshot_info(cur)->n_apis, 2);
    serve_snapshot_release(cur);

    serve_db_close(db);
    tu_rmtree(dir);
    free(dir);
    free(db_path);
}

static void test_interval(void **state)
{
    (void)state;
    char *dir = NULL;
    char *db_path = sv_fixture(&dir);
    apidex_error err;
    serve_db *db;
    /* never: the first index stays */
    assert_int_equal(serve_db_open(db_path, -1, &db, &err), 0);
    sv_fixture_write(db_path, 2);
    serve_snapshot *s = serve_db_acquire(db);
    assert_int_equal(serve_snapshot_info(s)->n_apis, 2);
    serve_snapshot_release(s);
    serve_db_close(db);
    /* a long interval: not before it has passed */
    assert_int_equal(serve_db_open(db_path, 3600, &db, &err), 0);
    sv_fixture_write(db_path, 1);
    s = serve_db_acquire(db);
    assert_int_equal(serve_snapshot_info(s)->n_apis, 3);
    serve_snapshot_release(s);
    assert_int_equal(serve_db_reloads(db), 0);
    serve_db_close(db);
    /* a missing file is an error at open */
    char *missing = tu_path(dir, "missing.db");
    assert_int_equal(serve_db_open(missing, 0, &db, &err), APIDEX_ENOTFOUND);
    free(missing);
    tu_rmtree(dir);
    free(dir);
    free(db_path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reload_under_load),
        cmocka_unit_test(test_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
