/* The LLM client against the scripted mock: plain answers, tool calls, streaming, retries on
 * 429/500, timeouts, refused keys, malformed replies, replies cut by max_tokens, usage. */
#include "agent_testutil.h"

#include <stdlib.h>
#include <string.h>

static agent_chat *hello_chat(void)
{
    agent_chat *c = agent_chat_new();
    assert_non_null(c);
    assert_int_equal(agent_chat_add(c, "system", "You are terse."), 0);
    assert_int_equal(agent_chat_add(c, "user", "Say hello to GET /books please"), 0);
    return c;
}

static void test_plain_answer_and_usage(void **state)
{
    (void)state;
    mock_llm m;
    mock_llm_start(&m, "{\"steps\": [{\"content\": \"hello {{endpoint}}\", "
                       "\"usage\": {\"prompt_tokens\": 21, \"completion_tokens\": 4}}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    agent_chat *c = hello_chat();
    agent_reply r;
    apidex_error err;
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), 0);
    assert_string_equal(r.content, "hello GET /books");
    assert_string_equal(r.finish_reason, "stop");
    assert_false(r.truncated);
    assert_int_equal(r.n_tool_calls, 0);
    assert_int_equal(r.usage.prompt, 21);
    assert_int_equal(r.usage.completion, 4);
    assert_int_equal(r.usage.total, 25);
    assert_false(r.usage.estimated);
    assert_int_equal(r.attempts, 1);
    /* The request carried the model, both messages and no Authorization header. */
    assert_int_equal(mock_llm_count(&m, "\"model\": \"mock-model\""), 1);
    assert_int_equal(mock_llm_count(&m, "\"auth\": null"), 1);
    assert_int_equal(mock_llm_count(&m, "You are terse."), 1);
    agent_reply_free(&r);
    agent_reply_free(&r); /* idempotent */
    agent_chat_free(c);
    agent_llm_close(llm);
    mock_llm_stop(&m);
}

static void test_usage_fallback_cl100k(void **state)
{
    (void)state;
    mock_llm m;
    mock_llm_start(&m, "{\"steps\": [{\"content\": \"one two three\", \"usage\": null}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    agent_chat *c = hello_chat();
    agent_reply r;
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, NULL), 0);
    assert_true(r.usage.estimated);
    assert_int_equal(r.usage.completion, agent_count_tokens("one two three"));
    assert_true(r.usage.prompt > agent_count_tokens("Say hello to GET /books please"));
    assert_int_equal(r.usage.total, r.usage.prompt + r.usage.completion);
    agent_usage sum = {0};
    agent_usage_add(&sum, &r.usage);
    agent_usage_add(&sum, &r.usage);
    assert_int_equal(sum.calls, 2);
    assert_int_equal(sum.total, 2 * r.usage.total);
    assert_true(sum.estimated);
    agent_reply_free(&r);
    agent_chat_free(c);
    agent_llm_close(llm);
    mock_llm_stop(&m);
}

static const char *const tool_params = "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":"
                                       "\"string\"}},\"required\":[\"query\"]}";

static void test_tool_calls_multi_turn(void **state)
{
    (void)state;
    mock_llm m;
    mock_llm_start(&m,
                   "{\"steps\": ["
                   "{\"tool_calls\": [{\"name\": \"lookup\", \"arguments\": {\"query\": \"a\"}},"
                   "                  {\"name\": \"lookup\", \"arguments\": {\"query\": \"b\"}}]},"
                   "{\"expect\": \"RESULT-B\", \"content\": \"done\"}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    agent_chat *c = hello_chat();
    assert_int_equal(agent_chat_add_tool(c, "lookup", "Looks things up", tool_params), 0);
    assert_int_equal(agent_chat_add_tool(c, "bad", "x", "{not json"), APIDEX_EINVAL);
    agent_reply r;
    agent_call_options o = {.tool_choice = "required"};
    apidex_error err;
    assert_int_equal(agent_llm_chat(llm, c, &o, &r, &err), 0);
    assert_int_equal(r.n_tool_calls, 2);
    assert_string_equal(r.finish_reason, "tool_calls");
    assert_string_equal(r.tool_calls[0].name, "lookup");
    assert_string_equal(r.tool_calls[0].arguments, "{\"query\": \"a\"}");
    assert_string_equal(r.tool_calls[1].id, "call_1_1");
    assert_int_equal(mock_llm_count(&m, "\"tool_choice\": \"required\""), 1);
    assert_int_equal(agent_chat_add_reply(c, &r), 0);
    assert_int_equal(agent_chat_add_tool_result(c, r.tool_calls[0].id, "RESULT-A"), 0);
    assert_int_equal(agent_chat_add_tool_result(c, r.tool_calls[1].id, "RESULT-B"), 0);
    assert_int_equal(agent_chat_count(c), 5);
    agent_reply_free(&r);
    /* A forced tool must be one that is offered. */
    agent_call_options bad = {.tool_choice = "nope"};
    assert_int_equal(agent_llm_chat(llm, c, &bad, &r, &err), APIDEX_EINVAL);
    agent_call_options forced = {.tool_choice = "lookup"};
    assert_int_equal(agent_llm_chat(llm, c, &forced, &r, &err), 0);
    assert_string_equal(r.content, "done");
    char *log = mock_llm_log(&m);
    /* The second request replays the assistant turn with its tool calls and both results. */
    assert_non_null(strstr(log, "\"tool_call_id\": \"call_1_0\""));
    assert_non_null(strstr(log, "\"role\": \"tool\""));
    assert_non_null(strstr(log, "\"type\": \"function\", \"function\": {\"name\": \"lookup\", "
                                "\"arguments\": \"{\\\"query\\\": \\\"a\\\"}\"}"));
    free(log);
    agent_reply_free(&r);
    agent_chat_free(c);
    agent_llm_close(llm);
    mock_llm_stop(&m);
}

typedef struct deltas {
    char text[256];
    int calls;
} deltas;

static void on_delta(void *ctx, const char *s, size_t n)
{
    deltas *d = ctx;
    size_t l = strlen(d->text);
    if (l + n < sizeof d->text) {
        memcpy(d->text + l, s, n);
        d->text[l + n] = '\0';
    }
    d->calls++;
}

static void test_streaming(void **state)
{
    (void)state;
    mock_llm m;
    mock_llm_start(&m, "{\"steps\": ["
                       "{\"content\": \"A streamed answer, in pieces.\", \"chunk\": 4,"
                       " \"usage\": {\"prompt_tokens\": 30, \"completion_tokens\": 8}},"
                       "{\"tool_calls\": [{\"name\": \"lookup\", \"arguments\": {\"query\": "
                       "\"a long query split into pieces\"}}], \"chunk\": 5},"
                       "{\"content\": \"cut\", \"stream_cut\": true}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    agent_chat *c = hello_chat();
    assert_int_equal(agent_chat_add_tool(c, "lookup", "Looks things up", tool_params), 0);
    deltas d = {0};
    agent_call_options o = {.stream = 1, .on_delta = on_delta, .on_delta_ctx = &d};
    agent_reply r;
    apidex_error err;
    assert_int_equal(agent_llm_chat(llm, c, &o, &r, &err), 0);
    assert_string_equal(r.content, "A streamed answer, in pieces.");
    assert_string_equal(d.text, "A streamed answer, in pieces.");
    assert_true(d.calls >= 7);
    assert_int_equal(r.usage.prompt, 30);
    assert_int_equal(r.usage.completion, 8);
    assert_false(r.usage.estimated);
    assert_int_equal(mock_llm_count(&m, "\"include_usage\": true"), 1);
    agent_reply_free(&r);
    assert_int_equal(agent_llm_chat(llm, c, &o, &r, &err), 0);
    assert_int_equal(r.n_tool_calls, 1);
    assert_string_equal(r.tool_calls[0].arguments,
                        "{\"query\": \"a long query split into pieces\"}");
    assert_string_equal(r.finish_reason, "tool_calls");
    agent_reply_free(&r);
    /* A stream that stops before its end is an error, not half an answer. */
    assert_int_equal(agent_llm_chat(llm, c, &o, &r, &err), APIDEX_EPARSE);
    assert_non_null(strstr(err.message, "stream ended"));
    agent_chat_free(c);
    agent_llm_close(llm);
    mock_llm_stop(&m);
}

static void test_429_then_success(void **state)
{
    (void)state;
    mock_llm m;
    mock_llm_start(&m, "{\"steps\": ["
                       "{\"status\": 429, \"error\": \"Rate limit reached\"},"
                       "{\"status\": 500, \"error\": \"boom\"},"
                       "{\"status\": 429, \"error\": \"Rate limit reached\", "
                       "\"headers\": {\"Retry-After\": \"1\"}},"
                       "{\"content\": \"finally\"}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 3);
    agent_chat *c = hello_chat();
    agent_reply r;
    apidex_error err;
    double t0 = core_now();
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), 0);
    double took = core_now() - t0;
    assert_string_equal(r.content, "finally");
    assert_int_equal(r.attempts, 4);
    assert_true(took >= 0.9); /* Retry-After: 1 was honoured */
    assert_int_equal(mock_llm_count(&m, NULL), 4);
    agent_reply_free(&r);
    agent_chat_free(c);
    agent_llm_close(llm);
    mock_llm_stop(&m);
}

static void test_retries_exhausted(void **state)
{
    (void)state;
    mock_llm m;
    mock_llm_start(&m, "{\"default\": {\"status\": 429, \"error\": \"Rate limit reached\"}}");
    agent_llm *llm = mock_llm_client(&m, 10, 2);
    agent_chat *c = hello_chat();
    agent_reply r;
    apidex_error err;
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), APIDEX_ENET);
    assert_non_null(strstr(err.message, "429"));
    assert_non_null(strstr(err.message, "Rate limit reached"));
    assert_non_null(strstr(err.message, "after 3 attempts"));
    assert_null(r.content);
    assert_int_equal(mock_llm_count(&m, NULL), 3);
    agent_chat_free(c);
    agent_llm_close(llm);
    mock_llm_stop(&m);
}

static void test_timeout(void **state)
{
    (void)state;
    mock_llm m;
    mock_llm_start(&m, "{\"steps\": [{\"delay\": 3, \"content\": \"late\"},"
                       "{\"content\": \"in time\"}]}");
    agent_llm *llm = mock_llm_client(&m, 0.5, 0);
    agent_chat *c = hello_chat();
    agent_reply r;
    apidex_error err;
    double t0 = core_now();
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), APIDEX_ENET);
    assert_true(core_now() - t0 < 2.5);
    assert_non_null(strstr(err.message, "did not answer within 0.5 s"));
    agent_llm_close(llm);
    /* With one retry, the second attempt gets the next answer. */
    mock_llm_stop(&m);
    mock_llm_start(&m, "{\"steps\": [{\"delay\": 3, \"content\": \"late\"},"
                       "{\"content\": \"in time\"}]}");
    llm = mock_llm_client(&m, 0.5, 1);
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), 0);
    assert_string_equal(r.content, "in time");
    assert_int_equal(r.attempts, 2);
    agent_reply_free(&r);
    agent_chat_free(c);
    agent_llm_close(llm);
    mock_llm_stop(&m);
}

static void test_refused_key_and_bad_urls(void **state)
{
    (void)state;
    mock_llm m;
    mock_llm_start(&m, "{\"steps\": [{\"status\": 401, \"error\": \"Incorrect API key provided\"},"
                       "{\"status\": 404, \"error\": \"model 'mock-model' not found\"}]}");
    agent_llm_config cfg;
    agent_llm_config_defaults(&cfg);
    snprintf(cfg.base_url, sizeof cfg.base_url, "%s", m.url);
    snprintf(cfg.model, sizeof cfg.model, "mock-model");
    snprintf(cfg.api_key, sizeof cfg.api_key, "sk-test");
    cfg.max_retries = 3;
    cfg.backoff_ms = 10;
    agent_llm *llm = NULL;
    apidex_error err;
    assert_int_equal(agent_llm_open(&cfg, &llm, &err), 0);
    agent_chat *c = hello_chat();
    agent_reply r;
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "refused the API key"));
    assert_non_null(strstr(err.message, AGENT_ENV_API_KEY));
    assert_int_equal(mock_llm_count(&m, "Bearer sk-test"), 1); /* 401 is not retried */
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "404"));
    assert_non_null(strstr(err.message, "not found"));
    agent_llm_close(llm);

    /* Unconfigured, bad scheme, hosted API without a key: refused before any traffic. */
    agent_llm_config none;
    agent_llm_config_defaults(&none);
    assert_false(agent_llm_configured(&none));
    assert_int_equal(agent_llm_open(&none, &llm, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, AGENT_ENV_BASE_URL));
    snprintf(none.model, sizeof none.model, "m");
    snprintf(none.base_url, sizeof none.base_url, "ftp://127.0.0.1/v1");
    assert_int_equal(agent_llm_open(&none, &llm, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "bad LLM base URL"));
    snprintf(none.base_url, sizeof none.base_url, "https://api.openai.com/v1");
    assert_int_equal(agent_llm_open(&none, &llm, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, AGENT_ENV_API_KEY));
    /* Nothing listens on port 1 of loopback: a clear "cannot reach" without retries. */
    snprintf(none.base_url, sizeof none.base_url, "http://127.0.0.1:1");
    assert_int_equal(agent_llm_open(&none, &llm, &err), 0);
    assert_string_equal(agent_llm_url(llm), "http://127.0.0.1:1/v1/chat/completions");
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), APIDEX_ENET);
    assert_non_null(strstr(err.message, "cannot reach"));
    agent_llm_close(llm);
    agent_chat_free(c);
    mock_llm_stop(&m);
}

static void test_url_forms(void **state)
{
    (void)state;
    static const struct {
        const char *base, *url;
    } cases[] = {
        {"http://127.0.0.1:11434", "http://127.0.0.1:11434/v1/chat/completions"},
        {"http://127.0.0.1:11434/", "http://127.0.0.1:11434/v1/chat/completions"},
        {"http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1/chat/completions"},
        {"https://api.anthropic.com/v1/", "https://api.anthropic.com/v1/chat/completions"},
        {"http://h/v1/chat/completions", "http://h/v1/chat/completions"},
        {"https://g.example/v1beta/openai", "https://g.example/v1beta/openai/chat/completions"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        agent_llm_config c;
        agent_llm_config_defaults(&c);
        snprintf(c.base_url, sizeof c.base_url, "%s", cases[i].base);
        snprintf(c.model, sizeof c.model, "m");
        snprintf(c.api_key, sizeof c.api_key, "k");
        agent_llm *llm = NULL;
        assert_int_equal(agent_llm_open(&c, &llm, NULL), 0);
        assert_string_equal(agent_llm_url(llm), cases[i].url);
        agent_llm_close(llm);
    }
}

static void test_malformed_replies(void **state)
{
    (void)state;
    mock_llm m;
    mock_llm_start(&m,
                   "{\"steps\": [{\"raw\": \"<html>gateway</html>\"},"
                   "{\"raw\": \"{\\\"choices\\\": []}\"},"
                   "{\"raw\": \"{\\\"error\\\": {\\\"message\\\": \\\"context too long\\\"}}\"},"
                   "{\"content\": \"cut off in the mid\", \"finish_reason\": \"length\"}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 2);
    agent_chat *c = hello_chat();
    agent_reply r;
    apidex_error err;
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), APIDEX_EPARSE);
    assert_non_null(strstr(err.message, "not JSON"));
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), APIDEX_EPARSE);
    assert_non_null(strstr(err.message, "no choices"));
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), APIDEX_EPARSE);
    assert_non_null(strstr(err.message, "context too long"));
    assert_int_equal(mock_llm_count(&m, NULL), 3); /* malformed answers are not retried */
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), 0);
    assert_true(r.truncated);
    assert_string_equal(r.finish_reason, "length");
    agent_reply_free(&r);
    agent_chat_free(c);
    agent_llm_close(llm);
    mock_llm_stop(&m);
}

static void test_reasoning_model_parameters(void **state)
{
    (void)state;
    mock_llm m;
    mock_llm_start(&m,
                   "{\"steps\": [{\"status\": 400, \"error\": \"Unsupported parameter: "
                   "'max_tokens' is not supported with this model. Use "
                   "'max_completion_tokens' instead.\"},"
                   "{\"expect\": \"\\\"max_completion_tokens\\\":1024\", \"content\": \"a\"},"
                   "{\"expect\": \"\\\"max_completion_tokens\\\":1024\", \"content\": \"b\"}]}");
    agent_llm *llm = mock_llm_client(&m, 10, 0); /* no retries: the rebuild is not one */
    agent_chat *c = hello_chat();
    agent_reply r;
    apidex_error err;
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), 0);
    assert_string_equal(r.content, "a");
    agent_reply_free(&r);
    assert_int_equal(agent_llm_chat(llm, c, NULL, &r, &err), 0); /* built right at once */
    assert_string_equal(r.content, "b");
    agent_reply_free(&r);
    assert_int_equal(mock_llm_count(&m, NULL), 3);
    assert_int_equal(mock_llm_count(&m, "\"temperature\""), 1);
    agent_chat_free(c);
    agent_llm_close(llm);
    mock_llm_stop(&m);
}

static void test_config_file_and_env(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *good = tu_write(dir, "llm.json",
                          "{\"base_url\": \"http://127.0.0.1:9/v1\", \"model\": \"file-model\","
                          " \"api_key_env\": \"AGENT_TEST_KEY\", \"temperature\": 0.2,"
                          " \"max_tokens\": 333, \"timeout\": 7, \"stream\": true}");
    char *bad = tu_write(dir, "bad.json", "{\"base_url\": 3}");
    agent_llm_config c;
    apidex_error err;
    setenv("AGENT_TEST_KEY", "from-env", 1);
    agent_llm_config_defaults(&c);
    assert_int_equal(agent_llm_config_load_file(&c, good, &err), 0);
    assert_string_equal(c.model, "file-model");
    assert_string_equal(c.api_key, "from-env");
    assert_int_equal(c.max_tokens, 333);
    assert_true(c.stream);
    assert_true(c.timeout_s == 7.0);
    agent_llm_config_defaults(&c);
    assert_int_equal(agent_llm_config_load_file(&c, bad, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.file, "bad.json"));
    /* Env over file: the variables win, the rest comes from the file. */
    setenv(AGENT_ENV_CONFIG, good, 1);
    setenv(AGENT_ENV_MODEL, "env-model", 1);
    unsetenv(AGENT_ENV_BASE_URL);
    unsetenv(AGENT_ENV_API_KEY);
    agent_llm_config_defaults(&c);
    assert_int_equal(agent_llm_config_from_env(&c, &err), 0);
    assert_string_equal(c.model, "env-model");
    assert_string_equal(c.base_url, "http://127.0.0.1:9/v1");
    assert_true(agent_llm_configured(&c));
    setenv(AGENT_ENV_TIMEOUT, "soon", 1);
    assert_int_equal(agent_llm_config_from_env(&c, &err), APIDEX_EINVAL);
    unsetenv(AGENT_ENV_TIMEOUT);
    unsetenv(AGENT_ENV_CONFIG);
    unsetenv(AGENT_ENV_MODEL);
    free(good);
    free(bad);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_answer_and_usage),
        cmocka_unit_test(test_usage_fallback_cl100k),
        cmocka_unit_test(test_tool_calls_multi_turn),
        cmocka_unit_test(test_streaming),
        cmocka_unit_test(test_429_then_success),
        cmocka_unit_test(test_retries_exhausted),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_refused_key_and_bad_urls),
        cmocka_unit_test(test_url_forms),
        cmocka_unit_test(test_malformed_replies),
        cmocka_unit_test(test_reasoning_model_parameters),
        cmocka_unit_test(test_config_file_and_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
