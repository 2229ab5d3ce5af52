/* The list by relevance and the plan beside it: a producer enters the plan only when a step
 * needs an input the task does not give; the endpoint that does the task comes first in
 * every list; a producer is listed after the endpoint it serves, and with
 * answer.list_producers=1 only when the task's words match it; the plan is the same for a
 * fixed-k and an adaptive query. */
#include "search_testutil.h"

typedef search_fixture fixture;

static int setup(void **state)
{
    static const char *const specs[] = {"tests/data/search/music.yaml", "examples/library.yaml",
                                        "examples/recipes.yaml", NULL};
    *state = search_fixture_new(specs);
    return 0;
}

#define TRACKS "tune-cloud:getAlbumTracks"
#define SEARCH "tune-cloud:searchCatalog"

static void test_producer_only_for_a_missing_input(void **state)
{
    fixture *f = *state;
    /* the album is named, not identified: its id comes from the search, a step before */
    search_result *r = search_fixture_run(
        f, (search_query){.text = "list the tracks of the album Abbey Road", .adaptive = true});
    long s = search_step_index(r, SEARCH), t = search_step_index(r, TRACKS);
    assert_true(s >= 0 && t > s);
    assert_int_equal(r->plan[s].role, SEARCH_ROLE_PRODUCER);
    assert_int_equal(r->plan[t].role, SEARCH_ROLE_PRIMARY);
    const search_plan_input *in = search_step_input(r, TRACKS, "id");
    assert_non_null(in);
    assert_int_equal(in->from, SEARCH_FROM_STEP);
    assert_int_equal(in->step, (size_t)s);
    assert_string_equal(in->producer_id, SEARCH);
    search_result_free(r);

    /* the task gives the id: no producer, the input is the task's */
    r = search_fixture_run(f,
                           (search_query){.text = "list the tracks of album 4aawyAB9vmqN3uQ7FjRGTy",
                                          .adaptive = true});
    assert_int_equal(r->n_plan, 1);
    assert_string_equal(r->plan[0].id, TRACKS);
    in = search_step_input(r, TRACKS, "id");
    assert_non_null(in);
    assert_int_equal(in->from, SEARCH_FROM_TASK);
    assert_null(in->producer_id);
    search_result_free(r);
}

static void test_the_endpoint_that_does_the_task_first(void **state)
{
    fixture *f = *state;
    const char *task = "list the tracks of the album Abbey Road";
    search_result *a = search_fixture_run(f, (search_query){.text = task, .adaptive = true});
    search_result *k = search_fixture_run(f, (search_query){.text = task, .k = 5});
    /* the adaptive answer: primaries (by relevance) before the producers the plan needs */
    assert_true(a->n_hits >= 2);
    assert_string_equal(a->hits[0].id, TRACKS);
    for (size_t i = 1; i < a->n_hits; i++)
        if (a->hits[i].role == SEARCH_ROLE_PRIMARY)
            assert_int_equal(a->hits[i - 1].role, SEARCH_ROLE_PRIMARY);
    /* the ranked list: the album's tracks first, its producer after it */
    assert_string_equal(k->hits[0].id, TRACKS);
    long p = search_hit_index(k, SEARCH);
    assert_true(p > 0);
    /* one plan for both */
    assert_int_equal(a->n_plan, k->n_plan);
    for (size_t i = 0; i < a->n_plan; i++) {
        assert_string_equal(a->plan[i].id, k->plan[i].id);
        assert_int_equal(a->plan[i].n_inputs, k->plan[i].n_inputs);
    }
    search_result_free(a);
    search_result_free(k);
}

/* Every hit of a list for task at k under answer.list_producers=v. */
static search_result *ranked(fixture *f, const char *task, size_t k, const char *v)
{
    static search_params p;
    search_params_default(&p);
    apidex_error err;
    if (search_params_parse(&p, v, &err)) fail_msg("%s", err.message);
    return search_fixture_run(f, (search_query){.text = task, .k = k, .params = &p});
}

static void test_no_list_padded_without_evidence(void **state)
{
    fixture *f = *state;
    /* a task the text matches few endpoints for: the list stays short (no fill from the
       data-flow graph), and with list_producers=1 every endpoint listed has a score */
    const char *task = "list the tracks of the album Abbey Road";
    search_result *r = ranked(f, task, 50, "answer.list_producers=1");
    assert_true(r->n_hits > 0 && r->n_hits < 50);
    for (size_t i = 0; i < r->n_hits; i++) assert_true(r->hits[i].score > 0);
    search_result_free(r);
    /* 0: producers only in the plan */
    r = ranked(f, task, 50, "answer.list_producers=0");
    for (size_t i = 0; i < r->n_hits; i++) assert_int_equal(r->hits[i].role, SEARCH_ROLE_PRIMARY);
    assert_true(search_step_index(r, SEARCH) >= 0);
    search_result_free(r);
    /* 2 (the default): a producer is never first; it follows the endpoint it serves */
    r = ranked(f, task, 50, "answer.list_producers=2");
    assert_true(r->n_hits > 0);
    assert_int_equal(r->hits[0].role, SEARCH_ROLE_PRIMARY);
    assert_true(search_hit_index(r, SEARCH) > search_hit_index(r, TRACKS));
    search_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_producer_only_for_a_missing_input),
        cmocka_unit_test(test_the_endpoint_that_does_the_task_first),
        cmocka_unit_test(test_no_list_padded_without_evidence),
    };
    return cmocka_run_group_tests(tests, setup, search_fixture_teardown);
}
