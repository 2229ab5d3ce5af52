/* eval's routing count on an index of two APIs: which tasks are answered first from the API
   that holds their gold endpoints, in the text and JSON reports; none on a one-API index. */
#include "search_testutil.h"

#include "eval/eval.h"

static void test_routing_is_counted(void **state)
{
    (void)state;
    static const char *const specs[] = {"tests/data/search/films.yaml",
                                        "tests/data/search/music.yaml", NULL};
    search_fixture *f = search_fixture_new(specs);
    char *qpath = tu_write(f->dir, "q.json",
                           "[{\"query\": \"photos of the actor Jane Doe\","
                           "  \"solution\": [\"GET /search/people\", \"GET /people/{id}/photos\"]},"
                           " {\"query\": \"the birthday of a person\","
                           "  \"solution\": [\"GET /albums/{id}/tracks\"]},"
                           " {\"query\": \"nothing of this exists\","
                           "  \"solution\": [\"GET /nowhere\"]}]");
    eval_set *set = NULL;
    apidex_error err;
    assert_int_equal(eval_set_new(&set), 0);
    if (eval_set_load(set, qpath, &err)) fail_msg("load: %s", err.message);
    eval_report *r = NULL;
    if (eval_run(f->eng, f->idx, set, NULL, &r, &err)) fail_msg("run: %s", err.message);
    /* the report outlives the index it was made on (a caller closes the index first) */
    void *fs = f;
    search_fixture_teardown(&fs);
    /* the third task's gold is in no API: not counted */
    assert_int_equal(r->routing_tasks, 2);
    assert_int_equal(r->routing_correct, 1);
    assert_string_equal(r->per_query[0].gold_api, "reel-index");
    assert_string_equal(r->per_query[0].routed_api, "reel-index");
    assert_string_equal(r->per_query[1].gold_api, "tune-cloud");
    assert_string_equal(r->per_query[1].routed_api, "reel-index");
    assert_null(r->per_query[2].gold_api);
    core_buf b;
    core_buf_init(&b, 1 << 20);
    assert_int_equal(eval_report_text(r, true, &b), 0);
    assert_non_null(strstr(b.data, "routing      1 of 2 tasks"));
    assert_non_null(strstr(b.data, "routed to reel-index, gold in tune-cloud"));
    core_buf_reset(&b);
    assert_int_equal(eval_report_json(r, true, &b), 0);
    assert_non_null(strstr(b.data, "\"routing\":{\"tasks\":2,\"correct\":1}"));
    assert_non_null(strstr(b.data, "\"gold_api\":\"tune-cloud\",\"routed_api\":\"reel-index\""));
    core_buf_free(&b);
    eval_report_free(r);
    eval_set_free(set);
    free(qpath);

    /* one API: nothing to route */
    static const char *const one[] = {"tests/data/search/films.yaml", NULL};
    f = search_fixture_new(one);
    qpath = tu_write(f->dir, "q.json",
                     "[{\"query\": \"film details\", \"solution\": [\"GET /films/{film_id}\"]}]");
    assert_int_equal(eval_set_new(&set), 0);
    if (eval_set_load(set, qpath, &err)) fail_msg("load: %s", err.message);
    if (eval_run(f->eng, f->idx, set, NULL, &r, &err)) fail_msg("run: %s", err.message);
    assert_int_equal(r->routing_tasks, 0);
    assert_null(r->per_query[0].gold_api);
    core_buf_init(&b, 1 << 20);
    assert_int_equal(eval_report_text(r, false, &b), 0);
    assert_null(strstr(b.data, "routing"));
    core_buf_free(&b);
    eval_report_free(r);
    eval_set_free(set);
    free(qpath);
    fs = f;
    search_fixture_teardown(&fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routing_is_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
