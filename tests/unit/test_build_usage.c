/* The usage sidecar of a built index: feedback resolves the endpoints a caller names (or
 * names the closest), and a rebuild of the index (a new file renamed over it) keeps the
 * uses. The sidecar itself: test_store_usage.c. */
#include "testutil.h"

#include "build/build.h"

#include <stdlib.h>
#include <string.h>

static char *index_spec(const char *dir, const char *spec)
{
    char *db = tu_path(dir, "index.db");
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    char *p = tu_path(tu_source_dir(), spec);
    assert_int_equal(spec_registry_add(reg, p, &err), 0);
    free(p);
    build_options bo = {.full = true};
    if (build_index(db, reg, &bo, NULL, &err)) fail_msg("build_index: %s", err.message);
    spec_registry_free(reg);
    return db;
}

static void test_feedback_resolves_and_survives_rebuild(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = index_spec(dir, "tests/data/store/petstore.yaml");
    apidex_error err;
    store_index *idx = NULL;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    const char *ok[] = {"pet-store:showPetById", "post /pets", "GET /pets/{other}"};
    assert_int_equal(store_usage_feedback(db, idx, ok, 3, NULL, "a task", &err), 0);
    /* an unknown endpoint: nothing recorded, the closest named */
    const char *bad[] = {"pet-store:listPets", "GET /pet/{id}"};
    assert_int_equal(store_usage_feedback(db, idx, bad, 2, NULL, NULL, &err), APIDEX_ENOTFOUND);
    assert_non_null(strstr(err.message, "no endpoint 'GET /pet/{id}'"));
    assert_non_null(strstr(err.message, "closest: 'pet-store:showPetById'"));
    const char *unknown_api[] = {"GET /pets"};
    assert_int_equal(store_usage_feedback(db, idx, unknown_api, 1, "nope", NULL, &err),
                     APIDEX_ENOTFOUND);
    store_close(idx);
    /* the index is rebuilt (a new file renamed over it): the uses stay */
    free(index_spec(dir, "tests/data/store/petstore.yaml"));
    store_usage *s = NULL;
    assert_int_equal(store_usage_load(db, 0, 0, &s, &err), 0);
    assert_int_equal(s->n, 2);
    assert_int_equal(store_usage_find(s, "pet-store", "GET", "/pets/{}")->uses, 2);
    assert_int_equal(store_usage_find(s, "pet-store", "POST", "/pets")->uses, 1);
    assert_null(store_usage_find(s, "pet-store", "GET", "/pets"));
    store_usage_free(s);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_feedback_resolves_and_survives_rebuild),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
