/* eval's gold given as operation ids ("API:operationId", the form MCP tools are named in,
   SERVER:TOOL): scored against the ids of the ranked operations, never their METHOD /path;
   a task mixing ids and endpoint strings is refused with its JSON pointer. */
#include "search_testutil.h"

#include "eval/eval.h"

static void test_gold_by_operation_id(void **state)
{
    (void)state;
    static const char *const specs[] = {"tests/data/search/films.yaml",
                                        "tests/data/search/music.yaml", NULL};
    search_fixture *f = search_fixture_new(specs);
    char *qpath = tu_write(f->dir, "q.json",
                           "[{\"query\": \"photos of the actor Jane Doe\","
                           "  \"solution\": [\"reel-index:searchPeople\", "
                           "\"reel-index:getPersonPhotos\"]},"
                           " {\"query\": \"photos of the actor Jane Doe\","
                           "  \"solution\": [\"tune-cloud:searchPeople\"]},"
                           " {\"query\": \"photos of the actor Jane Doe\","
                           "  \"solution\": [\"GET /search/people\"]}]");
    eval_set *set = NULL;
    apidex_error err;
    assert_int_equal(eval_set_new(&set), 0);
    if (eval_set_load(set, qpath, &err)) fail_msg("load: %s", err.message);
    assert_true(set->items[0].by_id);
    assert_true(set->items[1].by_id);
    assert_false(set->items[2].by_id);
    eval_report *r = NULL;
    if (eval_run(f->eng, f->idx, set, NULL, &r, &err)) fail_msg("run: %s", err.message);
    /* both ids found, and listed as ids */
    assert_int_equal(r->per_query[0].at[0].hits, 2);
    assert_non_null(strchr(r->per_query[0].ranked[0], ':'));
    assert_null(strchr(r->per_query[0].ranked[0], ' '));
    /* the routing and the best operation judged on ids too */
    assert_string_equal(r->per_query[0].gold_api, "reel-index");
    assert_non_null(strchr(r->per_query[0].best, ':'));
    /* the operation's name under another API is not it */
    assert_int_equal(r->per_query[1].at[2].hits, 0);
    assert_null(r->per_query[1].gold_api);
    assert_false(r->per_query[1].best_right);
    /* endpoint strings are scored as before */
    assert_int_equal(r->per_query[2].at[0].hits, 1);
    assert_int_equal(strncmp(r->per_query[2].ranked[0], "GET /", 5), 0);
    eval_report_free(r);
    eval_set_free(set);
    free(qpath);

    qpath = tu_write(f->dir, "mixed.json",
                     "[{\"query\": \"a\", \"solution\": [\"GET /films/{film_id}\"]},\n"
                     " {\"query\": \"b\", \"solution\": [\"reel-index:getFilm\", "
                     "\"GET /films/{film_id}\"]}]");
    assert_int_equal(eval_set_new(&set), 0);
    assert_int_equal(eval_set_load(set, qpath, &err), APIDEX_EPARSE);
    assert_non_null(strstr(err.message, "operation ids"));
    assert_string_equal(err.pointer, "/1/solution/1");
    assert_int_equal(set->n, 0);
    eval_set_free(set);
    free(qpath);
    void *fs = f;
    search_fixture_teardown(&fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gold_by_operation_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
