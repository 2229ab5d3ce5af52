/* The search engine on small fixtures: producer links and plan steps (generic {id}, current user,
 * typed ids, body ids), literal ids, filters, deprecated operations, routing across APIs, the
 * adaptive set and context assembly within a token budget. */
#include "search_testutil.h"

typedef search_fixture fixture;

static int setup(void **state)
{
    static const char *const specs[] = {"tests/data/search/music.yaml", "examples/library.yaml",
                                        "examples/recipes.yaml", "examples/weather.json", NULL};
    *state = search_fixture_new(specs);
    return 0;
}

#define teardown  search_fixture_teardown
#define run       search_fixture_run
#define hit_index search_hit_index

/* producer `p` is a step of the plan before consumer `c` and gives its `param`; both are in
   the result, and c's links name p for `param` */
static void assert_produced(const search_result *r, const char *p, const char *c, const char *param)
{
    long pi = hit_index(r, p), ci = hit_index(r, c);
    if (pi < 0 || ci < 0) fail_msg("%s or %s missing", p, c);
    long ps = search_step_index(r, p), cs = search_step_index(r, c);
    if (ps < 0 || cs < 0) fail_msg("%s or %s not in the plan", p, c);
    assert_true(ps < cs);
    const search_plan_input *in = search_step_input(r, c, param);
    if (!in) fail_msg("step %s has no input %s", c, param);
    assert_int_equal(in->from, SEARCH_FROM_STEP);
    assert_int_equal(in->step, (size_t)ps);
    const search_hit *h = &r->hits[ci];
    bool linked = false;
    for (size_t l = 0; l < h->n_links; l++)
        if (!strcmp(h->links[l].producer_id, p) && !strcmp(h->links[l].param, param)) linked = true;
    if (!linked) fail_msg("%s has no link %s <- %s", c, param, p);
    assert_int_equal(r->hits[pi].role, SEARCH_ROLE_PRODUCER);
}

static void test_generic_id_is_produced_by_search(void **state)
{
    fixture *f = *state;
    /* "/albums/{id}": the album comes from the catalog search, since the task names it */
    search_result *r =
        run(f, (search_query){.text = "list the tracks of the album Abbey Road", .adaptive = true});
    assert_produced(r, "tune-cloud:searchCatalog", "tune-cloud:getAlbumTracks", "id");
    search_result_free(r);
}

static void test_current_user_pattern(void **state)
{
    fixture *f = *state;
    search_result *r =
        run(f, (search_query){.text = "create a playlist called Road Trip", .adaptive = true});
    assert_produced(r, "tune-cloud:getCurrentUser", "tune-cloud:createPlaylist", "user_id");
    search_result_free(r);
    /* Swagger 2.0 fixture: /members/{member_id}/loans <- /members/me */
    r = run(f, (search_query){.text = "which books have I borrowed? list my loans", .k = 5});
    assert_produced(r, "city-library:getCurrentMember", "city-library:listLoans", "member_id");
    search_result_free(r);
}

static void test_chains_and_body_ids(void **state)
{
    fixture *f = *state;
    /* cookbook_id <- createCookbook <- user_id <- getMe: a chain of two producers */
    search_result *r =
        run(f, (search_query){.text = "add a recipe to a new cookbook", .adaptive = true, .k = 0});
    assert_produced(r, "recipe-box:createCookbook", "recipe-box:addRecipeToCookbook",
                    "cookbook_id");
    assert_produced(r, "recipe-box:getMe", "recipe-box:createCookbook", "user_id");
    search_result_free(r);
    /* a required id in the request body ({"book_id"} of a Swagger 2.0 formData body)
       comes from the book search when the task names the book */
    r = run(f, (search_query){.text = "borrow the book Dune", .adaptive = true});
    assert_produced(r, "city-library:searchBooks", "city-library:borrowBook", "book_id");
    search_result_free(r);
}

static void test_listed_producer_is_linked(void **state)
{
    fixture *f = *state;
    /* Both operations are primaries here; the cookbook the second one needs comes from the
       first, already in the answer, and its link says so. */
    search_result *r = run(
        f, (search_query){.text = "Create a new cookbook for me and add the lasagna recipe to it",
                          .adaptive = true});
    long c = hit_index(r, "recipe-box:createCookbook"),
         a = hit_index(r, "recipe-box:addRecipeToCookbook");
    assert_true(c >= 0 && a >= 0);
    /* the plan calls the creation first */
    assert_true(search_step_index(r, "recipe-box:createCookbook") <
                search_step_index(r, "recipe-box:addRecipeToCookbook"));
    bool linked = false;
    for (size_t l = 0; l < r->hits[a].n_links; l++)
        linked |= !strcmp(r->hits[a].links[l].producer_id, "recipe-box:createCookbook") &&
                  !strcmp(r->hits[a].links[l].param, "cookbook_id");
    assert_true(linked);
    /* "recipe" names the Recipe API but is also what its paths are about: it still counts */
    assert_non_null(strstr(r->hits[a].why, "recip"));
    search_result_free(r);
}

static void test_literal_id_needs_no_producer(void **state)
{
    fixture *f = *state;
    search_result *r =
        run(f, (search_query){.text = "list the tracks of album 4aawyAB9vmqN3uQ7FjRGTy",
                              .adaptive = true});
    long t = hit_index(r, "tune-cloud:getAlbumTracks");
    assert_true(t >= 0);
    /* the id is in the task: no producer is put before the consumer */
    assert_int_equal(r->hits[t].n_links, 0);
    for (size_t i = 0; i < r->n_hits; i++) assert_int_equal(r->hits[i].role, SEARCH_ROLE_PRIMARY);
    search_result_free(r);
}

static void test_routing_keeps_one_api(void **state)
{
    fixture *f = *state;
    search_result *r =
        run(f, (search_query){.text = "current temperature and wind at a weather station",
                              .adaptive = true});
    assert_true(r->n_hits >= 1);
    for (size_t i = 0; i < r->n_hits; i++)
        assert_string_equal(r->hits[i].api, "open-weather-station");
    assert_true(hit_index(r, "open-weather-station:getLatestObservation") >= 0);
    search_result_free(r);
}

static void test_filters_and_deprecated(void **state)
{
    fixture *f = *state;
    const char *apis[] = {"city-library", NULL};
    search_result *r = run(f, (search_query){.text = "search", .k = 20, .apis = apis});
    assert_true(r->n_hits > 0);
    for (size_t i = 0; i < r->n_hits; i++) assert_string_equal(r->hits[i].api, "city-library");
    search_result_free(r);

    const char *methods[] = {"POST", NULL};
    r = run(f, (search_query){.text = "book loan reservation", .k = 20, .methods = methods});
    assert_true(r->n_hits > 0);
    for (size_t i = 0; i < r->n_hits; i++)
        if (r->hits[i].role == SEARCH_ROLE_PRIMARY) assert_string_equal(r->hits[i].method, "POST");
    search_result_free(r);

    const char *tags[] = {"alerts", NULL};
    r = run(f, (search_query){.text = "open-weather-station", .k = 20, .tags = tags});
    for (size_t i = 0; i < r->n_hits; i++)
        if (r->hits[i].role == SEARCH_ROLE_PRIMARY)
            assert_string_equal(r->hits[i].api, "open-weather-station");
    assert_true(hit_index(r, "open-weather-station:getForecast") < 0);
    search_result_free(r);

    /* deprecated operations are indexed but only returned on request */
    r = run(f, (search_query){.text = "renew loan due date", .k = 20});
    assert_int_equal(hit_index(r, "city-library:renewLoan"), -1);
    search_result_free(r);
    r = run(f, (search_query){.text = "renew loan due date", .k = 20, .include_deprecated = true});
    assert_true(hit_index(r, "city-library:renewLoan") >= 0);
    search_result_free(r);
}

static void test_fixed_k_and_nothing_found(void **state)
{
    fixture *f = *state;
    search_result *r = run(f, (search_query){.text = "book", .k = 3});
    assert_true(r->n_hits <= 3 && r->n_hits > 0);
    for (size_t i = 0; i < r->n_hits; i++)
        for (size_t j = i + 1; j < r->n_hits; j++)
            assert_string_not_equal(r->hits[i].id, r->hits[j].id);
    search_result_free(r);
    r = run(f, (search_query){.text = "zzzqqq xxyyzz", .adaptive = true});
    assert_int_equal(r->n_hits, 0);
    search_result_free(r);
    search_result *out = NULL;
    apidex_error err;
    search_query dense = {.text = "open-weather-station", .mode = SEARCH_DENSE};
    assert_int_not_equal(search_engine_run(f->eng, &dense, &out, &err), 0);
    assert_null(out);
}

static void test_context_within_budget(void **state)
{
    fixture *f = *state;
    const text_bpe *bpe = text_bpe_default();
    assert_non_null(bpe);
    size_t budgets[] = {150, 600, 5000};
    size_t prev = 0;
    for (size_t b = 0; b < 3; b++) {
        search_result *r = run(f, (search_query){.text = "borrow a book for a member",
                                                 .adaptive = true,
                                                 .budget = budgets[b]});
        assert_non_null(r->context);
        assert_true(r->context_tokens <= budgets[b]);
        size_t real = text_bpe_count(bpe, r->context, strlen(r->context));
        /* pieces end in a blank line: the count of the whole is the sum of the pieces' */
        assert_int_equal(real, r->context_tokens);
        assert_true(r->context_tokens >= prev);
        prev = r->context_tokens;
        if (budgets[b] == 5000) {
            assert_non_null(strstr(r->context, "borrowBook"));
            assert_non_null(strstr(r->context, "# Schemas"));
        }
        search_result_free(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generic_id_is_produced_by_search),
        cmocka_unit_test(test_current_user_pattern),
        cmocka_unit_test(test_chains_and_body_ids),
        cmocka_unit_test(test_listed_producer_is_linked),
        cmocka_unit_test(test_literal_id_needs_no_producer),
        cmocka_unit_test(test_routing_keeps_one_api),
        cmocka_unit_test(test_filters_and_deprecated),
        cmocka_unit_test(test_fixed_k_and_nothing_found),
        cmocka_unit_test(test_context_within_budget),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
