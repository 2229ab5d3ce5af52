/* The served index in dense and hybrid modes (serve_db_open_search): searches and asks use the
 * mode, an index without the model's vectors is refused at open, and a rebuilt index without
 * them is not swapped in by a reload (the old one keeps serving). */
#include "embed_testutil.h"

#include "build/build.h"
#include "serve/serve.h"
#include "oas/oas.h"

#include <json-c/json.h>

static int build(const char *specs, const char *db, embed_provider *p)
{
    spec_registry *reg = NULL;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, specs, &err), 0);
    build_options opt = {.embedder = p};
    int rc = build_index(db, reg, &opt, NULL, &err);
    if (rc) print_message("build_index: %s\n", err.message);
    spec_registry_free(reg);
    return rc;
}

/* The first result's id and the largest score of a served search (mode of the db). */
static void served_search(serve_db *db, const char *task, char *top, size_t n, double *max_score)
{
    serve_snapshot *snap = serve_db_acquire(db);
    serve_search_args a = {.task = task, .k = 5};
    struct json_object *o = NULL;
    apidex_error err;
    if (serve_query_search(snap, &a, &o, &err)) fail_msg("search: %s", err.message);
    serve_snapshot_release(snap);
    struct json_object *results = NULL, *r0 = NULL, *v = NULL;
    assert_true(json_object_object_get_ex(o, "results", &results));
    assert_true(json_object_array_length(results) > 0);
    r0 = json_object_array_get_idx(results, 0);
    assert_true(json_object_object_get_ex(r0, "id", &v));
    snprintf(top, n, "%s", json_object_get_string(v));
    *max_score = 0;
    for (size_t i = 0; i < json_object_array_length(results); i++) {
        assert_true(json_object_object_get_ex(json_object_array_get_idx(results, i), "score", &v));
        if (json_object_get_double(v) > *max_score) *max_score = json_object_get_double(v);
    }
    json_object_put(o);
}

static void test_served_modes_and_reload(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db_path = tu_path(dir, "d.db"), *plain = tu_path(dir, "p.db");
    char *specs = tu_path(tu_source_dir(), "examples");
    fake_provider fa;
    fake_init(&fa, "fake-a");
    assert_int_equal(build(specs, db_path, &fa.base), 0);
    assert_int_equal(build(specs, plain, NULL), 0);

    /* hybrid: reciprocal-rank fusion scores (at most 2 / 61), and the query is embedded */
    serve_search_config cfg = {.mode = SEARCH_HYBRID, .embedder = &fa.base};
    serve_db *db = NULL;
    apidex_error err;
    if (serve_db_open_search(db_path, 0, &cfg, &db, &err)) fail_msg("open: %s", err.message);
    assert_int_equal(serve_db_search(db)->mode, SEARCH_HYBRID);
    char top[256];
    double max_score;
    size_t q0 = fa.query_calls;
    served_search(db, "recipe kitchen", top, sizeof top, &max_score);
    assert_true(!strncmp(top, "recipe-box:", 11));
    assert_true(max_score > 0 && max_score <= 2.0 / 61 + 1e-9);
    assert_true(fa.query_calls > q0);

    /* a rebuilt index without vectors is not swapped in: the old one keeps serving */
    serve_snapshot *before = serve_db_acquire(db);
    uint64_t build_before = serve_snapshot_info(before)->build_id;
    serve_snapshot_release(before);
    assert_int_equal(build(specs, db_path, NULL), 0);
    serve_snapshot *after = serve_db_acquire(db);
    assert_true(serve_snapshot_info(after)->build_id == build_before);
    serve_snapshot_release(after);
    assert_int_equal(serve_db_reload_failures(db), 1);
    served_search(db, "recipe kitchen", top, sizeof top, &max_score);
    assert_true(max_score <= 2.0 / 61 + 1e-9);
    /* rebuilt with vectors again: swapped in */
    assert_int_equal(build(specs, db_path, &fa.base), 0);
    after = serve_db_acquire(db);
    assert_true(serve_snapshot_info(after)->build_id != build_before);
    serve_snapshot_release(after);
    assert_int_equal(serve_db_reloads(db), 1);
    serve_db_close(db);

    /* an index without vectors is refused at open, with the message that says what to do */
    db = NULL;
    cfg.mode = SEARCH_DENSE;
    assert_int_equal(serve_db_open_search(plain, 0, &cfg, &db, &err), APIDEX_EUNSUPPORTED);
    assert_null(db);
    assert_non_null(strstr(err.message, "has no vectors"));
    /* dense without a provider is a usage error */
    cfg.embedder = NULL;
    assert_int_equal(serve_db_open_search(db_path, 0, &cfg, &db, &err), APIDEX_EINVAL);
    /* lexical (the default) needs neither */
    if (serve_db_open_search(plain, 0, NULL, &db, &err)) fail_msg("open: %s", err.message);
    served_search(db, "recipe kitchen", top, sizeof top, &max_score);
    assert_true(max_score > 2.0 / 61);
    serve_db_close(db);

    tu_rmtree(dir);
    free(dir);
    free(db_path);
    free(plain);
    free(specs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_served_modes_and_reload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
