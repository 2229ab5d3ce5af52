/* The public C API (include/apidex.h): open an index, search it, read hits and context. */
#include "testutil.h"

#include "apidex.h"
#include "build/build.h"
#include "search/search.h"
#include "oas/oas.h"

#include <stdlib.h>
#include <string.h>

static void test_open_search_close(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = tu_path(dir, "x.db");
    char *spec = tu_path(tu_source_dir(), "examples/recipes.yaml");
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, spec, &err), 0);
    assert_int_equal(build_index(db, reg, NULL, NULL, &err), 0);
    spec_registry_free(reg);

    apidex_index *idx = NULL;
    assert_int_equal(apidex_index_open(db, &idx, &err), 0);
    apidex_results *res = NULL;
    apidex_search_options o = {.adaptive = 1, .budget = 2000};
    assert_int_equal(apidex_search(idx, "create a cookbook", &o, &res, &err), 0);
    assert_true(apidex_results_count(res) >= 2);
    /* by relevance: the endpoint that does the task, then the producer its input needs */
    const apidex_hit *first = apidex_results_hit(res, 0);
    assert_string_equal(first->method, "POST");
    assert_string_equal(first->path, "/users/{user_id}/cookbooks");
    assert_false(first->producer);
    assert_string_equal(first->needs, "user_id <- recipe-box:getMe");
    const apidex_hit *second = apidex_results_hit(res, 1);
    assert_string_equal(second->id, "recipe-box:getMe");
    assert_true(second->producer);
    assert_null(apidex_results_hit(res, 99));
    assert_non_null(strstr(apidex_results_context(res), "createCookbook"));
    /* the answer's match and confidence, and each hit's */
    assert_string_equal(apidex_results_match(res), "strong");
    assert_true(apidex_results_confidence(res) > 0.3 && apidex_results_confidence(res) <= 1);
    assert_true(first->confidence > second->confidence);
    apidex_results_free(res);

    apidex_search_options other = {.k = 3, .api = "nope"};
    assert_int_equal(apidex_search(idx, "create a cookbook", &other, &res, &err), 0);
    assert_int_equal(apidex_results_count(res), 0);
    assert_null(apidex_results_context(res));
    assert_string_equal(apidex_results_match(res), "none");
    apidex_results_free(res);
    assert_string_equal(apidex_results_match(NULL), "none");
    apidex_index_close(idx);
    apidex_results_free(NULL);
    apidex_index_close(NULL);

    assert_int_equal(apidex_index_open("/nonexistent/x.db", &idx, &err), APIDEX_ENOTFOUND);
    assert_null(idx);
    tu_rmtree(dir);
    free(dir);
    free(db);
    free(spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_open_search_close)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
