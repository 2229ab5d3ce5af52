/* eval matching rules and metrics on tiny hand-computed cases. */
#include "testutil.h"

#include "eval/eval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void assert_near(double got, double want)
{
    if (fabs(got - want) > 1e-9) fail_msg("got %.12f, want %.12f", got, want);
}

static void assert_key(const char *in, const char *want)
{
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(eval_endpoint_key(in, &b), 0);
    assert_string_equal(b.data ? b.data : "", want);
    core_buf_free(&b);
}

static void test_key(void **state)
{
    (void)state;
    assert_key("GET /movie/{movie_id}", "GET /movie/{}");
    assert_key("  get   /movie/{movie_id}/credits \t", "GET /movie/{}/credits");
    assert_key(" GET /movie/now_playing", "GET /movie/now_playing");
    assert_key("GET /search/movie ", "GET /search/movie");
    assert_key("put /a/{x}/b/{y}", "PUT /a/{}/b/{}");
    assert_key("GET /a/{unclosed", "GET /a/{unclosed");
    assert_key("", "");
    assert_key("   ", "");
}

static void test_placeholders(void **state)
{
    (void)state;
    eval_scores s;
    /* the same path template with other placeholder names matches */
    const char *gold[] = {"GET /person/{movie_id}/movie_credits"};
    const char *ret[] = {"GET /person/{person_id}/movie_credits"};
    assert_int_equal(eval_score(gold, 1, ret, 1, 0, &s), 0);
    assert_int_equal(s.hits, 1);
    assert_near(s.recall, 1.0);
    /* position matters: a placeholder is not a literal segment, and depth counts */
    const char *ret2[] = {"GET /person/movie_id/movie_credits", "GET /person/{id}",
                          "GET /person/{a}/movie_credits/{b}"};
    assert_int_equal(eval_score(gold, 1, ret2, N(ret2), 0, &s), 0);
    assert_int_equal(s.hits, 0);
    assert_near(s.recall, 0.0);
    assert_near(s.precision, 0.0);
    assert_near(s.f1, 0.0);
    /* methods are compared after upper-casing, and must be equal */
    const char *gold2[] = {"delete /me/tracks"};
    const char *ret3[] = {"GET /me/tracks", "DELETE /me/tracks"};
    assert_int_equal(eval_score(gold2, 1, ret3, 2, 0, &s), 0);
    assert_int_equal(s.hits, 1);
    assert_near(s.precision, 0.5);
}

static void test_duplicates_and_whitespace(void **state)
{
    (void)state;
    eval_scores s;
    /* TMDB #78: a duplicated gold endpoint counts once */
    const char *gold[] = {"GET /search/movie", "GET /search/movie"};
    const char *ret[] = {"GET /search/movie", " get /search/movie ", "GET /movie/{movie_id}"};
    assert_int_equal(eval_score(gold, 2, ret, 3, 0, &s), 0);
    assert_int_equal(s.n_gold, 1);
    assert_int_equal(s.n_returned, 2); /* the second one is the same endpoint */
    assert_int_equal(s.hits, 1);
    assert_near(s.recall, 1.0);
    assert_near(s.precision, 0.5);
    assert_near(s.f1, 2.0 * 0.5 / 1.5);

    /* whitespace inside gold strings (TMDB #26, #29) */
    const char *gold2[] = {" GET /movie/now_playing", "GET /search/movie ",
                           "GET /movie/{movie_id}/credits"};
    const char *ret2[] = {"GET /movie/now_playing", "GET /search/movie", "GET /tv/popular",
                          "GET /movie/{id}"};
    assert_int_equal(eval_score(gold2, 3, ret2, 4, 0, &s), 0);
    assert_int_equal(s.hits, 2);
    assert_near(s.recall, 2.0 / 3.0);
    assert_near(s.precision, 0.5);
    assert_near(s.f1, 2.0 * (2.0 / 3.0) * 0.5 / (2.0 / 3.0 + 0.5));
}

static void test_cutoff_counts_distinct(void **state)
{
    (void)state;
    eval_scores s;
    const char *gold[] = {"GET /b", "GET /c"};
    /* k = 2 takes the first two DISTINCT endpoints: /a and /b (the repeated /a is skipped) */
    const char *ret[] = {"GET /a", "GET /a", "GET /b", "GET /c"};
    assert_int_equal(eval_score(gold, 2, ret, 4, 2, &s), 0);
    assert_int_equal(s.n_returned, 2);
    assert_int_equal(s.hits, 1);
    assert_near(s.recall, 0.5);
    assert_near(s.precision, 0.5);
    assert_int_equal(eval_score(gold, 2, ret, 4, 3, &s), 0);
    assert_near(s.recall, 1.0);
    assert_near(s.precision, 2.0 / 3.0);
    /* k larger than the list: everything */
    assert_int_equal(eval_score(gold, 2, ret, 4, 20, &s), 0);
    assert_int_equal(s.n_returned, 3);
    /* nothing returned: all zero, no division by zero */
    assert_int_equal(eval_score(gold, 2, NULL, 0, 10, &s), 0);
    assert_near(s.recall, 0.0);
    assert_near(s.precision, 0.0);
    assert_near(s.f1, 0.0);
    /* mean over two queries, by hand: (0.5 + 1.0) / 2 */
    eval_scores a, b;
    assert_int_equal(eval_score(gold, 2, ret, 4, 2, &a), 0);
    assert_int_equal(eval_score(gold, 2, ret, 4, 3, &b), 0);
    assert_near((a.recall + b.recall) / 2, 0.75);
}

static void test_percentile(void **state)
{
    (void)state;
    double v[] = {4, 1, 3, 2};
    assert_near(eval_percentile(v, 4, 50), 2.5);
    assert_near(eval_percentile(v, 4, 95), 3.85);
    assert_near(eval_percentile(v, 4, 99), 3.97);
    assert_near(eval_percentile(v, 4, 0), 1);
    assert_near(eval_percentile(v, 4, 100), 4);
    double one[] = {7};
    assert_near(eval_percentile(one, 1, 99), 7);
    assert_near(eval_percentile(NULL, 0, 50), 0);
}

static void test_query_files(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *good = tu_write(dir, "q.json",
                          "[\n {\"query\": \"Who directed it?\",\n"
                          "  \"solution\": [\"GET /search/movie\", \"GET /search/movie\"]},\n"
                          " {\"query\": \" x \", \"solution\": [\"GET /a\"]}\n]\n");
    char *bad = tu_write(dir, "bad.json",
                         "[\n {\"query\": \"ok\", \"solution\": [\"GET /a\"]},\n"
                         " {\"query\": \"no solution\", \"solution\": []}\n]\n");
    char *bad2 =
        tu_write(dir, "bad2.json", "[{\"query\": \"q\", \"solution\": [\"GET /a\", 3]}]\n");
    /* a task nothing in the index does: an empty solution only with the kind "none" */
    char *none = tu_write(dir, "none_ok.json",
                          "[{\"query\": \"weather?\", \"solution\": [], \"kind\": \"none\"}]\n");
    char *none_bad =
        tu_write(dir, "none_bad.json",
                 "[{\"query\": \"q\", \"solution\": [\"GET /a\"], \"kind\": \"none\"}]\n");
    eval_set *set = NULL;
    assert_int_equal(eval_set_new(&set), 0);
    apidex_error err;
    assert_int_equal(eval_set_load(set, good, &err), 0);
    assert_int_equal(set->n, 2);
    assert_string_equal(set->items[0].text, "Who directed it?");
    assert_int_equal(set->items[0].n_gold, 2); /* kept as written */
    assert_int_equal(set->items[1].index, 1);

    assert_int_equal(eval_set_load(set, bad, &err), APIDEX_EPARSE);
    assert_string_equal(err.pointer, "/1/solution");
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.file, "bad.json"));
    assert_int_equal(set->n, 2); /* nothing of the bad file was added */
    assert_int_equal(eval_set_load(set, bad2, &err), APIDEX_EPARSE);
    assert_string_equal(err.pointer, "/0/solution/1");
    assert_int_equal(eval_set_load(set, none, &err), 0);
    assert_int_equal(set->n, 3);
    assert_int_equal(set->items[2].n_gold, 0);
    assert_int_equal(eval_set_load(set, none_bad, &err), APIDEX_EPARSE);
    assert_string_equal(err.pointer, "/0/solution");
    assert_non_null(strstr(err.message, "empty"));
    assert_int_equal(set->n, 3);
    char *missing = tu_path(dir, "none.json");
    assert_int_not_equal(eval_set_load(set, missing, &err), 0);
    eval_set_free(set);
    eval_set_free(NULL);
    free(good);
    free(bad);
    free(bad2);
    free(none);
    free(none_bad);
    free(missing);
    tu_rmtree(dir);
    free(dir);
}

static void test_reports(void **state)
{
    (void)state;
    eval_sweep_row rows[] = {{"endpoint", {0.5, 0.7, 0.9}, {0.2, 0.15, 0.1}, {0.3, 0.25, 0.18}},
                             {"hybrid", {0.6, 0.7, 0.8}, {0.25, 0.1, 0.05}, {0.35, 0.2, 0.1}}};
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(eval_sweep_markdown(rows, 2, &b), 0);
    assert_non_null(strstr(b.data, "| Strategy | Recall | | | Precision | | | F1 | | |"));
    assert_non_null(strstr(b.data, "| endpoint | 50 | **70** | **90** | 20 | **15** | **10** |"));
    assert_non_null(strstr(b.data, "| hybrid | **60** | **70** | 80 | **25** | 10 | 5 |"));
    core_buf_free(&b);

    /* JSON layout of a report (built by hand: eval_run needs an engine) */
    eval_query q = {.text = "t \"quoted\"",
                    .gold = (const char *[]){"GET /a"},
                    .n_gold = 1,
                    .file = "/x/q.json",
                    .index = 3};
    const char *ranked[] = {"GET /a", "GET /b"};
    eval_query_result qr = {.query = &q, .ranked = ranked, .n_ranked = 2};
    eval_score(q.gold, 1, ranked, 2, 1, &qr.at_k);
    eval_report r = {.queries = 1,
                     .k = 1,
                     .recall = 1,
                     .precision = 1,
                     .f1 = 1,
                     .latency_ms = {1, 2, 3},
                     .per_query = &qr};
    core_buf_init(&b, 0);
    assert_int_equal(eval_report_json(&r, true, &b), 0);
    const char *keys[] = {"\"queries\":1",
                          "\"k\":1",
                          "\"recall\":1.0000",
                          "\"recall_at\":{\"5\":",
                          "\"adaptive\":{\"recall\":",
                          "\"mean_size\":",
                          "\"tokens_mean\":",
                          "\"latency_ms\":{\"p50\":1.000,\"p95\":2.000,\"p99\":3.000}",
                          "\"per_query\":[{",
                          "\"returned\":[\"GET /a\"]",
                          "\"query\":\"t \\\"quoted\\\"\""};
    for (size_t i = 0; i < N(keys); i++)
        if (!strstr(b.data, keys[i])) fail_msg("missing %s in %s", keys[i], b.data);
    core_buf_reset(&b);
    assert_int_equal(eval_report_json(&r, false, &b), 0);
    assert_null(strstr(b.data, "per_query"));
    core_buf_reset(&b);
    assert_int_equal(eval_report_text(&r, true, &b), 0);
    assert_non_null(strstr(b.data, "q.json#3"));
    core_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key),
        cmocka_unit_test(test_placeholders),
        cmocka_unit_test(test_duplicates_and_whitespace),
        cmocka_unit_test(test_cutoff_counts_distinct),
        cmocka_unit_test(test_percentile),
        cmocka_unit_test(test_query_files),
        cmocka_unit_test(test_reports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
