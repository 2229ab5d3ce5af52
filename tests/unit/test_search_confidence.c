/* The confidence (confidence.c) and its words (verdict.c): the calibration maps evidence into
 * [0, 1] without ever going down; the match follows match.strong and match.weak; an engine run
 * gives a task its words fit a strong match and a task about something no spec speaks of none;
 * the words name the closest APIs, most confident first, once each. */
#include "search_testutil.h"

#include <math.h>

static void test_calibration_is_a_monotone_map_into_0_1(void **state)
{
    (void)state;
    double prev = search_confidence_of(0);
    assert_true(prev >= 0 && prev <= 1);
    for (int i = 1; i <= 1000; i++) {
        double c = search_confidence_of(i / 1000.0);
        assert_true(c >= 0 && c <= 1);
        assert_true(c >= prev - 1e-12);
        prev = c;
    }
    /* the ends: something that matches everything is likelier right than nothing at all */
    assert_true(search_confidence_of(1) > search_confidence_of(0) + 0.5);
    /* out of range and NaN are held at the ends */
    assert_true(search_confidence_of(-1) == search_confidence_of(0));
    assert_true(search_confidence_of(2) == search_confidence_of(1));
    assert_true(search_confidence_of(NAN) == search_confidence_of(0));
}

static void test_match_follows_the_thresholds(void **state)
{
    (void)state;
    search_params p;
    search_params_default(&p);
    apidex_error err;
    assert_int_equal(search_params_parse(&p, "match.strong=0.6", &err), 0);
    assert_int_equal(search_params_parse(&p, "match.weak=0.2", &err), 0);
    assert_int_equal(search_match_of(&p, 0.6), SEARCH_MATCH_STRONG);
    assert_int_equal(search_match_of(&p, 0.95), SEARCH_MATCH_STRONG);
    assert_int_equal(search_match_of(&p, 0.599), SEARCH_MATCH_WEAK);
    assert_int_equal(search_match_of(&p, 0.2), SEARCH_MATCH_WEAK);
    assert_int_equal(search_match_of(&p, 0.199), SEARCH_MATCH_NONE);
    assert_int_equal(search_match_of(&p, 0), SEARCH_MATCH_NONE);
    /* NULL: the defaults */
    const search_params *d = search_params_defaults();
    assert_int_equal(search_match_of(NULL, d->match_strong), SEARCH_MATCH_STRONG);
    assert_int_equal(search_match_of(NULL, d->match_weak), SEARCH_MATCH_WEAK);
    assert_int_equal(search_match_of(NULL, d->match_weak / 2), SEARCH_MATCH_NONE);
    assert_true(d->match_weak < d->match_strong);
    assert_string_equal(search_match_name(SEARCH_MATCH_STRONG), "strong");
    assert_string_equal(search_match_name(SEARCH_MATCH_WEAK), "weak");
    assert_string_equal(search_match_name(SEARCH_MATCH_NONE), "none");
}

static void test_the_engine_tells_fit_from_nothing(void **state)
{
    (void)state;
    static const char *const specs[] = {"examples/weather.json", "examples/library.yaml",
                                        "examples/recipes.yaml", NULL};
    search_fixture *f = search_fixture_new(specs);
    search_result *fit =
        search_fixture_run(f, (search_query){.text = "get the weather forecast for a station"});
    assert_non_null(fit->best_id);
    assert_int_equal(fit->match, SEARCH_MATCH_STRONG);
    assert_true(fit->confidence == search_confidence_of(fit->evidence));
    for (size_t i = 0; i < fit->n_hits; i++)
        assert_true(fit->hits[i].confidence >= 0 && fit->hits[i].confidence <= 1);
    /* the best operation's own confidence is the answer's */
    long best = search_hit_index(fit, fit->best_id);
    assert_true(best >= 0);
    assert_true(fit->hits[best].confidence == fit->confidence);

    search_result *none =
        search_fixture_run(f, (search_query){.text = "check the status of my flight"});
    assert_int_equal(none->match, SEARCH_MATCH_NONE);
    assert_true(none->confidence < fit->confidence);
    /* words the index has never seen pull the evidence down; without them it rises */
    search_params p;
    search_params_default(&p);
    apidex_error err;
    assert_int_equal(search_params_parse(&p, "confidence.unknown=0", &err), 0);
    search_result *lax = search_fixture_run(
        f, (search_query){.text = "check the status of my flight", .params = &p});
    assert_true(lax->evidence > none->evidence);
    /* the thresholds decide the match alone */
    assert_int_equal(search_params_parse(&p, "match.strong=0", &err), 0);
    search_result *all = search_fixture_run(
        f, (search_query){.text = "check the status of my flight", .params = &p});
    assert_int_equal(all->match, SEARCH_MATCH_STRONG);

    /* nothing matched at all: no best operation, no match */
    search_result *empty = search_fixture_run(f, (search_query){.text = "zzqx wvvy"});
    assert_null(empty->best_id);
    assert_int_equal(empty->match, SEARCH_MATCH_NONE);
    assert_true(empty->evidence == 0);
    search_result_free(fit);
    search_result_free(none);
    search_result_free(lax);
    search_result_free(all);
    search_result_free(empty);
    void *fs = f;
    search_fixture_teardown(&fs);
}

static void test_words_name_the_closest_apis(void **state)
{
    (void)state;
    search_hit hits[5] = {
        {.id = "a:1", .api = "alpha", .score = 1.0, .confidence = 0.05},
        {.id = "b:1", .api = "beta", .score = 2.0, .confidence = 0.09},
        {.id = "a:2", .api = "alpha", .score = 1.5, .confidence = 0.08},
        {.id = "g:1", .api = "gamma", .score = 0.0, .confidence = 0.0}, /* no evidence */
        {.id = "d:1", .api = "delta", .score = 0.5, .confidence = 0.01},
    };
    search_result res = {.hits = hits, .n_hits = 5, .match = SEARCH_MATCH_NONE, .confidence = 0.09};
    const char *apis[3];
    assert_int_equal(search_closest_apis(&res, apis, 3), 3);
    assert_string_equal(apis[0], "beta");
    assert_string_equal(apis[1], "alpha");
    assert_string_equal(apis[2], "delta");
    assert_int_equal(search_closest_apis(&res, apis, 1), 1);
    assert_string_equal(apis[0], "beta");
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(search_match_words(&res, &b), 0);
    assert_string_equal(b.data,
                        "Nothing in this registry fits the task. Closest APIs: beta, alpha, "
                        "delta.");
    core_buf_reset(&b);
    res.n_hits = 0;
    assert_int_equal(search_match_words(&res, &b), 0);
    assert_string_equal(b.data, "Nothing in this registry fits the task.");
    core_buf_reset(&b);
    res.n_hits = 5;
    res.match = SEARCH_MATCH_WEAK;
    res.confidence = 0.259;
    assert_int_equal(search_match_words(&res, &b), 0);
    assert_non_null(strstr(b.data, "Weak match (confidence 0.26)"));
    core_buf_reset(&b);
    res.match = SEARCH_MATCH_STRONG;
    assert_int_equal(search_match_words(&res, &b), 0);
    assert_int_equal(b.len, 0);
    core_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calibration_is_a_monotone_map_into_0_1),
        cmocka_unit_test(test_match_follows_the_thresholds),
        cmocka_unit_test(test_the_engine_tells_fit_from_nothing),
        cmocka_unit_test(test_words_name_the_closest_apis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
