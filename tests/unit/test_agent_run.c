/*
 * Tests for the RestGPT loop (agent/run_loop.c): plan → select → call → parse against the scripted
 * OpenAI mock, with the executor's operations given by the test (a canned API), so what the
 * loop does with each answer is checked exactly.
 */
#include "agent_testutil.h"

#include <json-c/json.h>

/* ---------------------------------------------------------------- a canned API */

typedef struct fake_api {
    int calls;
    char called[8][128];
    char params[8][256];
} fake_api;

static int fake_describe(void *ctx, const char *id, core_buf *out, apidex_error *err)
{
    (void)ctx;
    (void)err;
    core_buf_printf(out, "details of %s: parameters and response schema", id);
    return 0;
}

static int fake_call(void *ctx, const char *id, json_object *params, json_object *body,
                     core_arena *a, long *status, const char **request, const char **body_out,
                     const char **shaped, apidex_error *err)
{
    (void)body;
    fake_api *f = ctx;
    const char *p = params ? json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN) : "{}";
    if (f->calls < 8) {
        snprintf(f->called[f->calls], sizeof f->called[0], "%s", id);
        snprintf(f->params[f->calls], sizeof f->params[0], "%s", p);
    }
    f->calls++;
    *request = core_arena_printf(a, "GET %s %s", id, p);
    if (strstr(id, "topRatedBooks")) {
        *status = 200;
        *body_out = "{\"results\":[{\"id\":7,\"title\":\"Dune\",\"author_id\":42},"
                    "{\"id\":8,\"title\":\"Emma\",\"author_id\":5}],\"total\":2}";
    } else if (strstr(id, "getAuthor")) {
        json_object *aid = NULL;
        if (!params || !json_object_object_get_ex(params, "author_id", &aid))
            return core_error_set(err, APIDEX_EINVAL,
                                  "author_id: required path parameter is missing");
        *status = json_object_get_int(aid) == 42 ? 200 : 404; /* "42" is 42 too */
        *body_out = *status == 200 ? "{\"id\":42,\"name\":\"Frank Herbert\"}"
                                   : "{\"error\":\"no such author\"}";
    } else {
        *status = 404;
        *body_out = "{\"error\":\"not found\"}";
    }
    *shaped = core_arena_printf(a, "{\"status\":%ld,\"body\":%s}", *status, *body_out);
    return 0;
}

/* $ then .name and [N] steps: enough for the test's selections. */
static int fake_select(void *ctx, const char *body, const char *sel, core_arena *a,
                       const char **out, apidex_error *err)
{
    (void)ctx;
    json_object *root = json_tokener_parse(body), *cur = root;
    const char *p = sel;
    if (*p++ != '$') cur = NULL;
    while (cur && *p) {
        if (*p == '.') {
            size_t n = strcspn(++p, ".[");
            char key[64];
            snprintf(key, sizeof key, "%.*s", (int)n, p);
            if (!json_object_object_get_ex(cur, key, &cur)) cur = NULL;
            p += n;
        } else if (*p == '[') {
            int i = atoi(p + 1);
            cur = json_object_is_type(cur, json_type_array) ? json_object_array_get_idx(cur, i)
                                                            : NULL;
            p = strchr(p, ']');
            p = p ? p + 1 : "";
        } else {
            cur = NULL;
        }
    }
    int rc = 0;
    if (!cur)
        rc = core_error_set(err, APIDEX_EINVAL, "%s selects nothing", sel);
    else
        *out = core_arena_strdup(a, json_object_to_json_string_ext(cur, JSON_C_TO_STRING_PLAIN));
    json_object_put(root);
    return rc;
}

static agent_run_ops fake_ops(fake_api *f)
{
    return (agent_run_ops){fake_describe, fake_call, fake_select, f};
}

/* ---------------------------------------------------------------- tests */

/* Two steps and an answer; the caller's first call of step 2 misses a parameter, is told
   why and calls again; the planner sees each step's selected result. */
static void test_two_steps_with_a_corrected_call(void **state)
{
    (void)state;
    test_index ti;
    test_index_open(&ti, NULL);
    mock_llm m;
    mock_llm_start(
        &m,
        "{\"steps\": ["
        "{\"content\": \"Plan step 1: get the top rated books\", \"expect\": \"first step\"},"
        "{\"tool_calls\": [{\"name\": \"call_endpoint\", \"arguments\": "
        "{\"endpoint\": \"bookshop:topRatedBooks\"}}], \"expect\": \"topRatedBooks\"},"
        "{\"tool_calls\": [{\"name\": \"extract\", \"arguments\": "
        "{\"select\": \"$.results[0].author_id\", \"note\": \"author of the top book\"}}],"
        " \"expect\": \"author_id\"},"
        "{\"content\": \"Plan step 2: get the author {{1}}\", "
        "\"capture\": \"author of the top book: ([0-9]+)\"},"
        "{\"tool_calls\": [{\"name\": \"call_endpoint\", \"arguments\": "
        "{\"endpoint\": \"GET /authors/{author_id}\"}}]},"
        "{\"tool_calls\": [{\"name\": \"call_endpoint\", \"arguments\": "
        "{\"endpoint\": \"GET /authors/{author_id}\", \"params\": {\"author_id\": \"{{1}}\"}}}],"
        " \"expect\": \"required path parameter is missing\", "
        "\"capture\": \"Sub-task: get the author ([0-9]+)\"},"
        "{\"tool_calls\": [{\"name\": \"extract\", \"arguments\": {\"select\": \"$.name\"}}]},"
        "{\"content\": \"Final Answer: Frank Herbert wrote it.\", \"expect\": \"Frank Herbert\"}"
        "]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    fake_api f = {0};
    agent_run_ops ops = fake_ops(&f);
    agent_run *run = NULL;
    apidex_error err;
    core_error_clear(&err);
    int rc = agent_run_task(llm, ti.eng, "Who wrote the top rated book?", &ops, NULL, &run, &err);
    if (rc) fail_msg("agent_run_task: %s", err.message);
    assert_non_null(run->answer);
    assert_string_equal(run->answer, "Frank Herbert wrote it.");
    assert_null(run->note);
    assert_int_equal(run->n_steps, 3);
    assert_int_equal(run->llm_calls, 8);
    assert_int_equal(f.calls, 3);
    assert_string_equal(f.called[0], "bookshop:topRatedBooks");
    assert_string_equal(f.called[1], "bookshop:getAuthor");
    assert_string_equal(f.params[2], "{\"author_id\":\"42\"}");
    const agent_run_step *s1 = &run->steps[0], *s2 = &run->steps[1];
    assert_string_equal(s1->plan, "get the top rated books");
    assert_true(s1->n_candidates >= 1);
    assert_string_equal(s1->result, "author of the top book: 42");
    assert_int_equal(s1->status, 200);
    assert_int_equal(s2->attempts, 2);
    assert_null(s2->error);
    assert_string_equal(s2->result, "\"Frank Herbert\"");
    assert_true(s1->prompt_tokens > 50 && s1->completion_tokens > 5);
    /* every expectation of the script held (the mock answers 400 otherwise) */
    assert_int_equal(mock_llm_count(&m, NULL), 8);
    core_buf j;
    core_buf_init(&j, 0);
    assert_int_equal(agent_run_write_json(run, &j), 0);
    json_object *o = json_tokener_parse(j.data);
    assert_non_null(o);
    json_object *steps = NULL, *st0 = NULL, *tok = NULL;
    assert_true(json_object_object_get_ex(o, "steps", &steps));
    assert_int_equal(json_object_array_length(steps), 3);
    st0 = json_object_array_get_idx(steps, 0);
    assert_true(json_object_object_get_ex(st0, "tokens", &tok));
    json_object_put(o);
    core_buf_reset(&j);
    assert_int_equal(agent_run_write_text(run, &j), 0);
    assert_non_null(strstr(j.data, "Answer: Frank Herbert wrote it."));
    core_buf_free(&j);
    agent_run_free(run);
    agent_llm_close(llm);
    mock_llm_stop(&m);
    test_index_close(&ti);
}

/* The caller may only call what apidex's search offered for the sub-task: a destructive
   endpoint the search did not offer is refused and never reaches the API. */
static void test_only_candidates_are_called(void **state)
{
    (void)state;
    test_index ti;
    test_index_open(&ti, NULL);
    mock_llm m;
    mock_llm_start(&m, "{\"steps\": ["
                       "{\"content\": \"Plan step 1: get the top rated books\"},"
                       "{\"tool_calls\": [{\"name\": \"call_endpoint\", \"arguments\": "
                       "{\"endpoint\": \"bookshop:deleteBook\", \"params\": {\"book_id\": 7}}}]},"
                       "{\"tool_calls\": [{\"name\": \"call_endpoint\", \"arguments\": "
                       "{\"endpoint\": \"bookshop:deleteBook\", \"params\": {\"book_id\": 7}}}],"
                       " \"expect\": \"not one of the candidate endpoints\"},"
                       "{\"content\": \"Final Answer: cannot\"}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    fake_api f = {0};
    agent_run_ops ops = fake_ops(&f);
    agent_run *run = NULL;
    apidex_error err;
    core_error_clear(&err);
    if (agent_run_task(llm, ti.eng, "Which books are top rated?", &ops, NULL, &run, &err))
        fail_msg("agent_run_task: %s", err.message);
    assert_int_equal(f.calls, 0);
    assert_int_equal(run->api_calls, 0);
    assert_non_null(run->steps[0].error);
    assert_non_null(strstr(run->steps[0].error, "not one of the candidate endpoints"));
    for (size_t i = 0; i < run->steps[0].n_candidates; i++)
        assert_string_not_equal(run->steps[0].candidates[i], "bookshop:deleteBook");
    assert_string_equal(run->answer, "cannot");
    agent_run_free(run);
    agent_llm_close(llm);
    mock_llm_stop(&m);
    test_index_close(&ti);
}

/* A planner that never answers stops at --max-steps with a note saying so. */
static void test_step_limit(void **state)
{
    (void)state;
    test_index ti;
    test_index_open(&ti, NULL);
    mock_llm m;
    mock_llm_start(&m,
                   "{\"rules\": ["
                   "{\"when\": \"Your line for step\", \"content\": \"Plan step: search "
                   "books by title dune\"},"
                   "{\"when\": \"Candidate endpoints\", \"tool_calls\": [{\"name\": "
                   "\"call_endpoint\", \"arguments\": {\"endpoint\": \"bookshop:searchBooks\"}}]},"
                   "{\"when\": \"The API answered\", \"tool_calls\": [{\"name\": "
                   "\"call_endpoint\", \"arguments\": {\"endpoint\": \"bookshop:searchBooks\"}}]},"
                   "{\"when\": \"Response:\", \"tool_calls\": [{\"name\": \"extract\", "
                   "\"arguments\": {\"select\": \"$.error\"}}]}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    fake_api f = {0};
    agent_run_ops ops = fake_ops(&f);
    agent_run_options o = {.max_steps = 3};
    agent_run *run = NULL;
    apidex_error err;
    core_error_clear(&err);
    if (agent_run_task(llm, ti.eng, "Find dune", &ops, &o, &run, &err))
        fail_msg("agent_run_task: %s", err.message);
    assert_null(run->answer);
    assert_non_null(run->note);
    assert_non_null(strstr(run->note, "step limit (3)"));
    assert_int_equal(run->n_steps, 3);
    /* the API answered 404 each time: nothing is parsed from an error answer */
    assert_int_equal(run->steps[0].status, 404);
    assert_null(run->steps[0].selection);
    agent_run_free(run);
    agent_llm_close(llm);
    mock_llm_stop(&m);
    test_index_close(&ti);
}

static void test_refuses_missing_pieces(void **state)
{
    (void)state;
    agent_run *run = (agent_run *)1;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(agent_run_task(NULL, NULL, "t", NULL, NULL, &run, &err), APIDEX_EINVAL);
    assert_null(run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_steps_with_a_corrected_call),
        cmocka_unit_test(test_only_candidates_are_called),
        cmocka_unit_test(test_step_limit),
        cmocka_unit_test(test_refuses_missing_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
