/* The Discovery Agent against the scripted mock and a small index: multi-step tool loops,
 * invented and unknown endpoints, malformed arguments, cut replies, prose answers, limits,
 * and the endpoint matcher the agent validates with. */
#include "agent_testutil.h"

#include <stdlib.h>
#include <string.h>

static long op_index(test_index *t, const char *id)
{
    return store_find_operation(t->idx, id);
}

static void test_match_endpoint(void **state)
{
    (void)state;
    test_index t;
    test_index_open(&t, NULL);
    store_index *x = t.idx;
    long get_book = op_index(&t, "bookshop:getBook"), top = op_index(&t, "bookshop:topRatedBooks");
    long reviews = op_index(&t, "bookshop:listReviews");
    assert_true(get_book >= 0 && top >= 0 && reviews >= 0);
    assert_int_equal(agent_match_endpoint(x, NULL, "GET", "/books/{book_id}"), get_book);
    assert_int_equal(agent_match_endpoint(x, NULL, "get", " /books/{id} "), get_book);
    assert_int_equal(agent_match_endpoint(x, NULL, "GET", "/books/42"), get_book);
    assert_int_equal(agent_match_endpoint(x, NULL, "GET", "/books/top_rated"), top);
    assert_int_equal(agent_match_endpoint(x, NULL, "GET", "/books/42/reviews/"), reviews);
    assert_int_equal(agent_match_endpoint(x, "bookshop", "GET",
                                          "https://shop.example.com/api/v2/books/top_rated?x=1"),
                     top);
    assert_int_equal(agent_match_endpoint(x, NULL, "GET", "/api/v2/books/{book_id}"), get_book);
    assert_int_equal(agent_match_endpoint(x, NULL, NULL, "/books/{book_id}/reviews"), reviews);
    /* GET and DELETE share the path: without a method that is a guess. */
    assert_int_equal(agent_match_endpoint(x, NULL, NULL, "/books/{book_id}"), -1);
    assert_int_equal(agent_match_endpoint(x, NULL, "DELETE", "/books/{x}"),
                     op_index(&t, "bookshop:deleteBook"));
    assert_int_equal(agent_match_endpoint(x, NULL, "PUT", "/books/1"), -1);
    assert_int_equal(agent_match_endpoint(x, NULL, "GET", "/nowhere"), -1);
    assert_int_equal(agent_match_endpoint(x, NULL, "GET", "/books/{book_id}/reviews/extra"), -1);
    assert_int_equal(agent_match_endpoint(x, "other-api", "GET", "/books"), -1);
    assert_int_equal(agent_match_endpoint(x, NULL, "GET", "/"), -1);
    test_index_close(&t);
}

static agent_discovery *discover(test_index *t, agent_llm *llm, const char *task,
                                 const agent_discover_options *o, int expect_rc)
{
    agent_discovery *d = NULL;
    apidex_error err;
    core_error_clear(&err);
    int rc = agent_discover(llm, t->idx, t->eng, task, o, &d, &err);
    if (rc != expect_rc) fail_msg("agent_discover returned %d (%s)", rc, err.message);
    return d;
}

static void test_multi_step_loop(void **state)
{
    (void)state;
    test_index t;
    test_index_open(&t, NULL);
    mock_llm m;
    mock_llm_start(
        &m,
        "{\"steps\": ["
        "{\"tool_calls\": [{\"name\": \"search_endpoints\", \"arguments\": {\"query\": \"the top "
        "rated books\"}}], \"usage\": {\"prompt_tokens\": 100, \"completion_tokens\": 10}},"
        "{\"expect\": \"GET /books/top_rated [bookshop] - Top rated books\","
        " \"tool_calls\": [{\"name\": \"search_endpoints\", \"arguments\": {\"query\": \"reviews "
        "of a book\"}},"
        "                  {\"name\": \"get_endpoint\", \"arguments\": {\"method\": \"GET\", "
        "\"path\": \"/books/{book_id}/reviews\"}}],"
        " \"usage\": {\"prompt_tokens\": 200, \"completion_tokens\": 20}},"
        "{\"expect\": \"Reader reviews of one book\","
        " \"tool_calls\": [{\"name\": \"submit_endpoints\", \"arguments\": {\"endpoints\": ["
        "  {\"method\": \"GET\", \"path\": \"/books/top_rated\", \"rationale\": \"best books\"},"
        "  {\"method\": \"GET\", \"path\": \"/books/{id}/reviews\", \"rationale\": \"their "
        "reviews\"},"
        "  {\"method\": \"POST\", \"path\": \"/reviews/{id}/likes\", \"rationale\": \"invented\"},"
        "  {\"method\": \"GET\", \"path\": \"/api/v2/books/top_rated\", \"rationale\": \"dup\"}"
        "]}}], \"usage\": {\"prompt_tokens\": 300, \"completion_tokens\": 30}}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    agent_discovery *d =
        discover(&t, llm, "What do readers say about the top rated book?", NULL, 0);
    assert_int_equal(d->n_endpoints, 2);
    assert_string_equal(d->endpoints[0].id, "bookshop:topRatedBooks");
    assert_string_equal(d->endpoints[0].rationale, "best books");
    assert_string_equal(d->endpoints[1].id, "bookshop:listReviews");
    assert_string_equal(d->endpoints[1].path, "/books/{book_id}/reviews"); /* as indexed */
    assert_int_equal(d->n_dropped, 1);
    assert_string_equal(d->dropped[0], "POST /reviews/{id}/likes");
    assert_int_equal(d->n_subqueries, 2);
    assert_string_equal(d->subqueries[1], "reviews of a book");
    assert_int_equal(d->steps, 3);
    assert_int_equal(d->tool_errors, 0);
    assert_int_equal(d->usage.prompt, 600);
    assert_int_equal(d->usage.completion, 60);
    assert_int_equal(d->usage.total, 660);
    assert_int_equal(d->usage.calls, 3);
    assert_null(d->note);
    /* The tools were offered with the summary configuration. */
    assert_int_equal(mock_llm_count(&m, "\"name\": \"get_endpoint\""), 3);
    assert_int_equal(mock_llm_count(&m, "query_endpoints"), 0);
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(agent_discovery_write_json(d, "task", AGENT_TOOLS_SUMMARY, &b), 0);
    assert_non_null(strstr(b.data, "\"dropped\":[\"POST /reviews/{id}/likes\"]"));
    assert_non_null(strstr(b.data, "\"total\":660"));
    core_buf_free(&b);
    agent_discovery_free(d);
    agent_llm_close(llm);
    mock_llm_stop(&m);
    test_index_close(&t);
}

static void test_unknown_endpoint_and_bad_arguments(void **state)
{
    (void)state;
    test_index t;
    test_index_open(&t, NULL);
    mock_llm m;
    mock_llm_start(
        &m,
        "{\"steps\": ["
        "{\"tool_calls\": [{\"name\": \"get_endpoint\", \"arguments\": {\"method\": \"GET\", "
        "\"path\": \"/books/{book_id}/translations\"}}]},"
        "{\"expect\": \"the index has no endpoint GET /books/{book_id}/translations\","
        " \"tool_calls\": [{\"name\": \"search_endpoints\", \"arguments\": \"{\\\"query\\\": \"},"
        "                  {\"name\": \"call_api\", \"arguments\": {}},"
        "                  {\"name\": \"search_endpoints\", \"arguments\": {\"q\": \"x\"}}]},"
        "{\"expect\": \"not a valid JSON object\","
        " \"tool_calls\": [{\"name\": \"submit_endpoints\", \"arguments\": {\"endpoints\": "
        "[\"GET /books\", \"GET /books/{book_id}/translations\"]}}]}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    agent_discovery *d = discover(&t, llm, "Find a book", NULL, 0);
    assert_int_equal(d->tool_errors, 4);
    assert_int_equal(d->n_endpoints, 1);
    assert_string_equal(d->endpoints[0].id, "bookshop:searchBooks");
    assert_int_equal(d->n_dropped, 1);
    char *log = mock_llm_log(&m);
    assert_non_null(strstr(log, "there is no tool named 'call_api'"));
    assert_non_null(strstr(log, "one sub-task in plain words"));
    free(log);
    agent_discovery_free(d);
    agent_llm_close(llm);
    mock_llm_stop(&m);
    test_index_close(&t);
}

static void test_cut_reply_and_prose_answer(void **state)
{
    (void)state;
    test_index t;
    test_index_open(&t, NULL);
    mock_llm m;
    mock_llm_start(&m, "{\"steps\": ["
                       "{\"content\": \"1. GET /books/top\", \"finish_reason\": \"length\"},"
                       "{\"expect\": \"cut off by the token limit\", \"content\": "
                       "\"You need:\\n1. `GET /books/top_rated` \\u2014 the best books\\n"
                       "2. **GET /books/{id}/reviews**: what readers say\\n"
                       "3. GET /books/top_rated again\\nDone.\"}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    agent_discovery *d =
        discover(&t, llm, "What do readers say about the top rated book?", NULL, 0);
    assert_int_equal(d->steps, 2);
    assert_int_equal(d->n_endpoints, 2);
    assert_string_equal(d->endpoints[0].id, "bookshop:topRatedBooks");
    assert_string_equal(d->endpoints[0].rationale, "the best books");
    assert_string_equal(d->endpoints[1].id, "bookshop:listReviews");
    assert_string_equal(d->endpoints[1].rationale, "what readers say");
    agent_discovery_free(d);
    agent_llm_close(llm);
    mock_llm_stop(&m);

    /* Every reply cut: a clear error instead of half an answer. */
    mock_llm_start(&m,
                   "{\"default\": {\"content\": \"1. GET /bo\", \"finish_reason\": \"length\"}}");
    llm = mock_llm_client(&m, 10, 0);
    agent_discovery *none = NULL;
    apidex_error err;
    assert_int_equal(agent_discover(llm, t.idx, t.eng, "task", NULL, &none, &err), APIDEX_ELIMIT);
    assert_null(none);
    assert_non_null(strstr(err.message, "max_tokens"));
    agent_llm_close(llm);
    mock_llm_stop(&m);
    test_index_close(&t);
}

static void test_step_limit_forces_submit(void **state)
{
    (void)state;
    test_index t;
    test_index_open(&t, NULL);
    mock_llm m;
    mock_llm_start(&m, "{\"steps\": ["
                       "{\"tool_calls\": [{\"name\": \"search_endpoints\", \"arguments\": "
                       "{\"query\": \"order\"}}]},"
                       "{\"expect\": \"\\\"tool_choice\\\":{\\\"type\\\":\\\"function\\\","
                       "\\\"function\\\":{\\\"name\\\":\\\"submit_endpoints\\\"}}\","
                       " \"tool_calls\": [{\"name\": \"submit_endpoints\", \"arguments\": "
                       "{\"endpoints\": [{\"method\": \"POST\", \"path\": \"/orders\", "
                       "\"rationale\": \"order\"}]}}]}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    agent_discover_options o = {.max_steps = 2};
    agent_discovery *d = discover(&t, llm, "Order two copies of a book", &o, 0);
    assert_int_equal(d->n_endpoints, 1);
    assert_string_equal(d->endpoints[0].id, "bookshop:createOrder");
    assert_int_equal(mock_llm_count(&m, "\"tool_choice\": \"auto\""), 1);
    agent_discovery_free(d);
    agent_llm_close(llm);
    mock_llm_stop(&m);

    /* A server that refuses a named tool_choice is asked again without it. */
    mock_llm_start(&m,
                   "{\"steps\": ["
                   "{\"tool_calls\": [{\"name\": \"search_endpoints\", \"arguments\": "
                   "{\"query\": \"order\"}}]},"
                   "{\"status\": 400, \"error\": \"tool_choice object not supported\"},"
                   "{\"expect\": \"This is the last step\", \"tool_calls\": [{\"name\": "
                   "\"submit_endpoints\", \"arguments\": {\"endpoints\": [\"POST /orders\"]}}]}]}");
    llm = mock_llm_client(&m, 10, 0);
    d = discover(&t, llm, "Order two copies of a book", &o, 0);
    assert_int_equal(d->n_endpoints, 1);
    assert_int_equal(mock_llm_count(&m, "\"tool_choice\": \"auto\""), 2);
    agent_discovery_free(d);
    agent_llm_close(llm);
    mock_llm_stop(&m);

    /* A model that never submits still ends, with a note. */
    mock_llm_start(&m, "{\"default\": {\"tool_calls\": [{\"name\": \"search_endpoints\", "
                       "\"arguments\": {\"query\": \"order\"}}]}}");
    llm = mock_llm_client(&m, 10, 0);
    o.max_steps = 3;
    d = discover(&t, llm, "Order", &o, 0);
    assert_int_equal(d->steps, 3);
    assert_int_equal(d->n_endpoints, 0);
    assert_non_null(d->note);
    agent_discovery_free(d);
    agent_llm_close(llm);
    mock_llm_stop(&m);
    test_index_close(&t);
}

static void test_query_mode_and_errors(void **state)
{
    (void)state;
    test_index t;
    test_index_open(&t, NULL);
    mock_llm m;
    mock_llm_start(&m, "{\"steps\": ["
                       "{\"status\": 429, \"error\": \"slow down\"},"
                       "{\"expect\": \"query_endpoints\", \"tool_calls\": [{\"name\": "
                       "\"query_endpoints\", \"arguments\": {\"query\": \"author of a book\"}}]},"
                       "{\"expect\": \"biography\", \"tool_calls\": [{\"name\": "
                       "\"submit_endpoints\", \"arguments\": {\"endpoints\": [{\"method\": "
                       "\"GET\", \"path\": \"/authors/{author_id}\", \"rationale\": \"a\"}]}}]}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 2);
    agent_discover_options o = {.tools = AGENT_TOOLS_QUERY, .k = 3};
    agent_discovery *d = discover(&t, llm, "Who wrote it?", &o, 0);
    assert_int_equal(d->n_endpoints, 1);
    assert_string_equal(d->endpoints[0].id, "bookshop:getAuthor");
    assert_int_equal(mock_llm_count(&m, "search_endpoints"), 0);
    agent_discovery_free(d);
    agent_llm_close(llm);
    mock_llm_stop(&m);

    /* LLM errors come back as errors. */
    mock_llm_start(&m, "{\"default\": {\"status\": 401, \"error\": \"bad key\"}}");
    llm = mock_llm_client(&m, 10, 0);
    d = discover(&t, llm, "task", NULL, APIDEX_EINVAL);
    assert_null(d);
    d = discover(&t, llm, "", NULL, APIDEX_EINVAL);
    agent_llm_close(llm);
    mock_llm_stop(&m);
    test_index_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_endpoint),
        cmocka_unit_test(test_multi_step_loop),
        cmocka_unit_test(test_unknown_endpoint_and_bad_arguments),
        cmocka_unit_test(test_cut_reply_and_prose_answer),
        cmocka_unit_test(test_step_limit_forces_submit),
        cmocka_unit_test(test_query_mode_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
