/* The search parameter table: every entry is reachable by name, its default lies in its
 * range and is what search_params_default gives; setting by name checks names and ranges;
 * a parameter set on a query changes its answer. */
#include "search_testutil.h"

#include <math.h>

static void test_table(void **state)
{
    (void)state;
    search_params p;
    search_params_default(&p);
    const search_params *d = search_params_defaults();
    assert_memory_equal(&p, d, sizeof p);
    assert_true(search_param_count() > 20);
    for (size_t i = 0; i < search_param_count(); i++) {
        const search_param_info *pi = search_param_at(i);
        assert_non_null(pi->name);
        assert_true(pi->doc && *pi->doc);
        assert_true(pi->def >= pi->min && pi->def <= pi->max);
        assert_true(pi->offset + sizeof(double) <= sizeof(search_params));
        assert_true(*(const double *)((const char *)d + pi->offset) == pi->def);
        for (size_t j = 0; j < i; j++) assert_string_not_equal(pi->name, search_param_at(j)->name);
    }
    assert_null(search_param_at(search_param_count()));
}

static void test_set_and_parse(void **state)
{
    (void)state;
    search_params p;
    search_params_default(&p);
    apidex_error err;
    assert_int_equal(search_params_parse(&p, "answer.ratio=0.5", &err), 0);
    assert_true(fabs(p.adaptive_ratio - 0.5) < 1e-12);
    assert_int_equal(search_params_parse(&p, "field.summary=4", &err), 0);
    assert_true(p.field_weight[STORE_FIELD_SUMMARY] == 4);
    assert_int_equal(search_params_parse(&p, "answer.ratio=7", &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "answer.ratio must be in"));
    assert_int_equal(search_params_parse(&p, "nosuch=1", &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "no search parameter 'nosuch'"));
    assert_int_equal(search_params_parse(&p, "answer.ratio=abc", &err), APIDEX_EINVAL);
    assert_int_equal(search_params_parse(&p, "answer.ratio", &err), APIDEX_EINVAL);
    assert_int_equal(search_params_parse(&p, "=1", &err), APIDEX_EINVAL);
    assert_int_equal(search_params_parse(&p, "answer.ratio=nan", &err), APIDEX_EINVAL);
}

static void test_a_parameter_changes_the_answer(void **state)
{
    (void)state;
    static const char *const specs[] = {"tests/data/search/music.yaml", "examples/recipes.yaml",
                                        NULL};
    search_fixture *f = search_fixture_new(specs);
    /* two requests: the cookbook creation is one of them */
    search_params p;
    search_params_default(&p);
    search_result *r =
        search_fixture_run(f, (search_query){.text = "Create a new cookbook for me and add the "
                                                     "lasagna recipe to it",
                                             .adaptive = true});
    long with = search_hit_index(r, "recipe-box:createCookbook");
    assert_true(with >= 0);
    assert_int_equal(r->hits[with].role, SEARCH_ROLE_PRIMARY);
    search_result_free(r);
    apidex_error err;
    /* read as one request with one primary, the creation is no request of its own, but
       still the producer of the new cookbook the task asks for */
    assert_int_equal(search_params_parse(&p, "intent.max=1", &err), 0);
    assert_int_equal(search_params_parse(&p, "answer.max_primaries=1", &err), 0);
    r = search_fixture_run(f, (search_query){.text = "Create a new cookbook for me and add the "
                                                     "lasagna recipe to it",
                                             .adaptive = true,
                                             .params = &p});
    long without = search_hit_index(r, "recipe-box:createCookbook");
    assert_true(without >= 0);
    assert_int_equal(r->hits[without].role, SEARCH_ROLE_PRODUCER);
    search_result_free(r);
    void *fs = f;
    search_fixture_teardown(&fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_set_and_parse),
        cmocka_unit_test(test_a_parameter_changes_the_answer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
