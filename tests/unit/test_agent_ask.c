/* askAPI: context assembly within a budget and its completeness, answers from the scripted
 * mock with citations and JSON examples validated against schemas, the disk cache and TTL,
 * and the no-LLM path. */
#include "agent_testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_no_llm_gives_context(void **state)
{
    (void)state;
    test_index t;
    test_index_open(&t, NULL);
    agent_answer *a = NULL;
    apidex_error err;
    agent_ask_options o = {.budget = 4000};
    assert_int_equal(agent_ask(t.idx, t.eng, NULL, "How do I order books?", &o, &a, &err), 0);
    assert_false(a->llm_used);
    assert_null(a->answer);
    assert_non_null(strstr(a->note, AGENT_ENV_BASE_URL));
    assert_non_null(strstr(a->context, "## [endpoint] POST /orders (id: bookshop:createOrder)"));
    assert_non_null(strstr(a->context, "## [schema] bookshop:Order"));
    assert_non_null(strstr(a->context, "## [schema] bookshop:Address")); /* second level */
    assert_true(a->completeness == 1.0);
    assert_true(a->context_tokens > 0 && a->context_tokens <= 4000);
    assert_int_equal(a->context_tokens, agent_count_tokens(a->context));
    /* by relevance: the order itself first, then the producer of the book_id its body needs
       (the book search), listed after it */
    assert_true(a->n_endpoints >= 2);
    assert_string_equal(a->endpoints[0], "bookshop:createOrder");
    bool producer = false;
    for (size_t i = 1; i < a->n_endpoints; i++)
        producer |= !strcmp(a->endpoints[i], "bookshop:searchBooks");
    assert_true(producer);
    /* Endpoints come before schemas. */
    assert_true(strstr(a->context, "[endpoint]") < strstr(a->context, "[schema]"));
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(agent_answer_write_json(a, &b), 0);
    assert_non_null(strstr(b.data, "\"llm_used\":false"));
    assert_non_null(strstr(b.data, "\"completeness\":1.0000"));
    core_buf_free(&b);
    agent_answer_free(a);

    /* A small budget: less fits, completeness says how much, the budget holds. */
    agent_ask_options small = {.budget = 250};
    assert_int_equal(agent_ask(t.idx, NULL, NULL, "How do I order books?", &small, &a, &err), 0);
    assert_true(a->completeness < 1.0);
    assert_true(a->context_tokens <= 250);
    size_t included = 0;
    for (size_t i = 0; i < a->n_items; i++) included += a->items[i].included;
    assert_true(included < a->n_items);
    agent_answer_free(a);

    assert_int_equal(agent_ask(t.idx, t.eng, NULL, "  ", NULL, &a, &err), APIDEX_EINVAL);
    test_index_close(&t);
}

static const char *const answer_script =
    "{\"steps\": [{\"expect\": \"Question: How do I order books?\", \"usage\": "
    "{\"prompt_tokens\": 900, \"completion_tokens\": 120}, \"content\": "
    "\"Use [bookshop:createOrder] (see [the docs](https://x.example)); there is no "
    "[bookshop:deleteEverything]. Not a citation: [Note: maybe].\\n\\n"
    "Schema: request of bookshop:createOrder\\n```json\\n{\\\"book_id\\\": 7, \\\"quantity\\\": "
    "2, \\\"shipping\\\": {\\\"street\\\": \\\"Main 1\\\", \\\"city\\\": \\\"Rome\\\", "
    "\\\"country\\\": \\\"IT\\\"}}\\n```\\n\\n"
    "An address (Schema: `bookshop:Address`):\\n\\n```json\\n{\\\"street\\\": \\\"x\\\", "
    "\\\"city\\\": \\\"y\\\", \\\"country\\\": \\\"XX\\\"}\\n```\\n"
    "Schema: bookshop:Nope\\n```\\n{\\\"a\\\": 1}\\n```\\n"
    "```python\\nprint(1)\\n```\\n\"}]}";

static void test_answer_citations_examples_cache(void **state)
{
    (void)state;
    test_index t;
    test_index_open(&t, NULL);
    char *cache = tu_tempdir();
    mock_llm m;
    mock_llm_start(&m, answer_script);
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    agent_ask_options o = {.cache_dir = cache};
    agent_answer *a = NULL;
    apidex_error err;
    assert_int_equal(agent_ask(t.idx, t.eng, llm, "How do I order books?", &o, &a, &err), 0);
    assert_true(a->llm_used);
    assert_false(a->cached);
    assert_string_equal(a->model, "mock-model");
    assert_non_null(strstr(a->answer, "Use [bookshop:createOrder]"));
    assert_int_equal(a->usage.prompt, 900);
    assert_int_equal(a->n_cited, 1);
    assert_string_equal(a->cited[0], "bookshop:createOrder");
    assert_int_equal(a->n_unknown_citations, 1);
    assert_string_equal(a->unknown_citations[0], "bookshop:deleteEverything");
    assert_int_equal(a->n_examples, 3);
    assert_string_equal(a->examples[0].schema, "request of bookshop:createOrder");
    assert_true(a->examples[0].found && a->examples[0].valid);
    assert_string_equal(a->examples[1].schema, "bookshop:Address");
    assert_true(a->examples[1].found);
    assert_false(a->examples[1].valid);
    assert_non_null(strstr(a->examples[1].problem, "/country"));
    assert_non_null(strstr(a->examples[1].problem, "enum"));
    assert_false(a->examples[2].found);
    assert_int_equal(a->invalid_examples, 1);
    /* The system prompt restricts the model to the context and asks for ids. */
    assert_int_equal(mock_llm_count(&m, "using only the API documentation"), 1);
    agent_answer_free(a);

    /* Same question: from the cache, no request; checks are redone. */
    assert_int_equal(agent_ask(t.idx, t.eng, llm, "How do I order books?", &o, &a, &err), 0);
    assert_true(a->cached);
    assert_int_equal(a->usage.total, 0);
    assert_int_equal(a->invalid_examples, 1);
    assert_int_equal(mock_llm_count(&m, NULL), 1);
    agent_answer_free(a);
    /* Another budget is another key: the mock's script is used up, so this fails. */
    agent_ask_options o2 = {.cache_dir = cache, .budget = 3000};
    assert_int_equal(agent_ask(t.idx, t.eng, llm, "How do I order books?", &o2, &a, &err),
                     APIDEX_ENET);
    assert_non_null(strstr(err.message, "script exhausted"));
    /* A TTL in the past: the entry is stale. */
    sleep(1);
    agent_ask_options stale = {.cache_dir = cache, .cache_ttl_s = 1};
    assert_int_equal(agent_ask(t.idx, t.eng, llm, "How do I order books?", &stale, &a, &err),
                     APIDEX_ENET);
    /* No cache at all. */
    agent_ask_options off = {.cache_dir = ""};
    assert_int_equal(agent_ask(t.idx, t.eng, llm, "How do I order books?", &off, &a, &err),
                     APIDEX_ENET);
    agent_llm_close(llm);
    mock_llm_stop(&m);
    tu_rmtree(cache);
    free(cache);
    test_index_close(&t);
}

typedef struct collected {
    char text[512];
} collected;

static void on_delta(void *ctx, const char *s, size_t n)
{
    collected *c = ctx;
    size_t l = strlen(c->text);
    if (l + n < sizeof c->text) {
        memcpy(c->text + l, s, n);
        c->text[l + n] = '\0';
    }
}

static void test_streamed_truncated_and_no_match(void **state)
{
    (void)state;
    test_index t;
    test_index_open(&t, NULL);
    mock_llm m;
    mock_llm_start(&m, "{\"steps\": [{\"expect\": \"\\\"stream\\\":true\", \"content\": \"Call "
                       "[bookshop:getAuthor] with the author_id of the book\", \"finish_reason\":"
                       " \"length\"}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    char *cache = tu_tempdir();
    collected c = {0};
    agent_ask_options o = {.cache_dir = cache, .on_delta = on_delta, .on_delta_ctx = &c};
    agent_answer *a = NULL;
    apidex_error err;
    assert_int_equal(agent_ask(t.idx, t.eng, llm, "Who is the author of a book?", &o, &a, &err), 0);
    assert_string_equal(c.text, a->answer);
    assert_true(a->truncated);
    agent_answer_free(a);
    /* A truncated answer was not cached: asking again needs the (exhausted) server. */
    assert_int_equal(agent_ask(t.idx, t.eng, llm, "Who is the author of a book?", &o, &a, &err),
                     APIDEX_ENET);
    /* Nothing in the index matches: no LLM call, a note instead. */
    int before = mock_llm_count(&m, NULL);
    assert_int_equal(agent_ask(t.idx, t.eng, llm, "zqxj vwkp", &o, &a, &err), 0);
    assert_false(a->llm_used);
    assert_non_null(a->note);
    assert_int_equal(mock_llm_count(&m, NULL), before);
    agent_answer_free(a);
    /* context_only never calls the LLM. */
    agent_ask_options co = {.context_only = true};
    assert_int_equal(agent_ask(t.idx, t.eng, llm, "Order books", &co, &a, &err), 0);
    assert_false(a->llm_used);
    assert_int_equal(mock_llm_count(&m, NULL), before);
    agent_answer_free(a);
    agent_llm_close(llm);
    mock_llm_stop(&m);
    tu_rmtree(cache);
    free(cache);
    test_index_close(&t);
}

static void expect_valid(test_index *t, const char *claim, const char *json, bool found, bool valid,
                         const char *problem_part)
{
    core_arena *arena = core_arena_new(0);
    bool f = false, v = false;
    const char *problem = NULL;
    apidex_error err;
    assert_int_equal(agent_validate_example(t->idx, claim, json, arena, &f, &v, &problem, &err), 0);
    if (f != found || v != valid || (problem_part && (!problem || !strstr(problem, problem_part))))
        fail_msg("%s %s: found=%d valid=%d problem=%s", claim ? claim : "(null)", json, f, v,
                 problem ? problem : "(none)");
    core_arena_free(arena);
}

static void test_validate_examples(void **state)
{
    (void)state;
    test_index t;
    test_index_open(&t, NULL);
    const char *order = "request of bookshop:createOrder";
    expect_valid(&t, order,
                 "{\"book_id\": 1, \"quantity\": 1, \"shipping\": {\"street\": \"a\", "
                 "\"city\": \"b\", \"country\": \"DE\", \"zip\": \"12345\"}}",
                 true, true, NULL);
    /* id is readOnly: not required in a request, but allowed. */
    expect_valid(&t, order,
                 "{\"id\": \"o1\", \"book_id\": 1, \"quantity\": 10, \"notes\": [\"a\"], "
                 "\"shipping\": {\"street\": \"a\", \"city\": \"b\", \"country\": \"US\"}}",
                 true, true, NULL);
    expect_valid(&t, order, "{\"book_id\": 1, \"quantity\": 1}", true, false,
                 "required property \"shipping\"");
    expect_valid(&t, order, "{\"book_id\": \"7\", \"quantity\": 1, \"shipping\": {}}", true, false,
                 "/book_id: expected integer, got string");
    expect_valid(&t, order,
                 "{\"book_id\": 7, \"quantity\": 11, \"shipping\": {\"street\": \"a\", "
                 "\"city\": \"b\", \"country\": \"DE\"}}",
                 true, false, "above the maximum");
    expect_valid(&t, order,
                 "{\"book_id\": 7, \"quantity\": 1, \"notes\": 5, \"shipping\": "
                 "{\"street\": \"a\", \"city\": \"b\", \"country\": \"DE\"}}",
                 true, false, "oneOf");
    expect_valid(&t, "bookshop:Address", "{\"street\": \"\", \"city\": \"b\", \"country\": \"DE\"}",
                 true, false, "minLength");
    expect_valid(&t, "bookshop:Address",
                 "{\"street\": \"a\", \"city\": \"b\", \"country\": \"DE\", \"zip\": \"1234\"}",
                 true, false, "pattern");
    expect_valid(&t, "Address",
                 "{\"street\": \"a\", \"city\": \"b\", \"country\": \"DE\", \"floor\": 2}", true,
                 false, "not allowed");
    expect_valid(&t, "bookshop:Author", "{\"id\": 1, \"name\": \"A\", \"birth_year\": null}", true,
                 true, NULL);
    expect_valid(&t, "response of bookshop:searchBooks",
                 "[{\"id\": 1, \"title\": \"T\"}, {\"id\": 2}]", true, false,
                 "/1: required property \"title\"");
    expect_valid(&t, "response of GET /books/{book_id}",
                 "{\"id\": 1, \"title\": \"T\", "
                 "\"rating\": 4.5}",
                 true, true, NULL);
    expect_valid(&t, "bookshop:Author", "{\"id\": 1,", true, false, "not valid JSON");
    expect_valid(&t, "bookshop:Nope", "{}", false, false, "no schema");
    expect_valid(&t, NULL, "{}", false, false, "names no schema");
    expect_valid(&t, "request of bookshop:getBook", "{}", false, false, "no JSON request");
    test_index_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_llm_gives_context),
        cmocka_unit_test(test_answer_citations_examples_cache),
        cmocka_unit_test(test_streamed_truncated_and_no_match),
        cmocka_unit_test(test_validate_examples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
