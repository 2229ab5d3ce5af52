/* The OpenAI-compatible HTTP provider against tests/embed/mock_server.py: batching, order,
   the query prefix, retries with backoff on 429/500, and clear errors. */
#include "embed_testutil.h"

#include "embed/embed_int.h"

#include <math.h>

#define REQUIRE_PYTHON()                                                                           \
    do {                                                                                           \
        if (!embed_have_python()) {                                                                \
            print_message("/usr/bin/python3 not found: skipped\n");                                \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* The mock's vector for text (see mock_server.py), L2-normalised as the client does. */
static void expected_vector(const char *text, size_t dim, float *out)
{
    embed_sha256 s;
    char hex[65];
    embed_sha256_init(&s);
    embed_sha256_update(&s, text, strlen(text));
    embed_sha256_final_hex(&s, hex);
    for (size_t d = 0; d < dim; d++) {
        unsigned byte;
        sscanf(hex + 2 * (d % 32), "%2x", &byte);
        out[d] = (float)(byte / 127.5 - 1.0);
    }
    embed_l2_normalize(out, dim);
}

static embed_provider *open_http(const mock_server *m, const char *model, const char *key,
                                 size_t batch, int retries)
{
    embed_options o = {.base_url = m->url,
                       .model = model,
                       .api_key = key,
                       .batch_size = batch,
                       .max_retries = retries,
                       .backoff_ms = 10};
    embed_provider *p = NULL;
    apidex_error err = {0};
    if (embed_provider_open(&o, &p, &err) != 0) fail_msg("open: %s", err.message);
    assert_string_equal(p->vt->kind, "http");
    return p;
}

static void test_endpoint_urls(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"http://localhost:11434", "http://localhost:11434/v1/embeddings"},
        {"http://localhost:11434/", "http://localhost:11434/v1/embeddings"},
        {"https://api.openai.com/v1", "https://api.openai.com/v1/embeddings"},
        {"https://api.openai.com/v1/", "https://api.openai.com/v1/embeddings"},
        {"http://h:8080/v1/embeddings", "http://h:8080/v1/embeddings"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *u = embed_http_endpoint(cases[i][0]);
        assert_string_equal(u, cases[i][1]);
        free(u);
    }
    embed_options o = {.provider = "http"};
    embed_provider *p = NULL;
    apidex_error err = {0};
    assert_int_equal(embed_provider_open(&o, &p, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "APIDEX_EMBED_URL"));
    o.base_url = "ftp://x";
    assert_int_equal(embed_provider_open(&o, &p, &err), APIDEX_EINVAL);
    assert_null(p);
}

static void test_batches_and_order(void **state)
{
    (void)state;
    REQUIRE_PYTHON();
    mock_server m;
    const char *args[] = {"--dim", "24", "--reverse", NULL};
    mock_start(&m, args);
    embed_provider *p = open_http(&m, "text-embedding-3-small", "sk-test", 2, 0);
    size_t dim = 0;
    apidex_error err = {0};
    assert_int_equal(embed_provider_dim(p, &dim, &err), 0);
    assert_int_equal(dim, 24);
    const char *texts[] = {"get a pet", "list orders", "héllo \"quoted\"\n", "", "five"};
    float got[5 * 24], want[24];
    assert_int_equal(embed_provider_embed(p, texts, 5, false, got, &err), 0);
    for (size_t i = 0; i < 5; i++) {
        expected_vector(texts[i], 24, want);
        for (size_t d = 0; d < 24; d++) assert_true(fabsf(got[i * 24 + d] - want[d]) < 1e-6f);
    }
    /* 1 probe + 3 batches of at most 2; the model and key go with every request. */
    assert_int_equal(mock_count(&m, "\"method\": \"POST\""), 4);
    assert_int_equal(mock_count(&m, "\"n\": 2"), 2);
    assert_int_equal(mock_count(&m, "\"model\": \"text-embedding-3-small\""), 4);
    assert_int_equal(mock_count(&m, "\"auth\": \"Bearer sk-test\""), 4);
    assert_int_equal(p->stats.requests, 4);
    assert_int_equal(p->stats.texts, 5);
    assert_string_equal(embed_provider_model_id(p), "text-embedding-3-small");
    assert_true(p->normalized);
    assert_non_null(strstr(p->fingerprint, "http:text-embedding-3-small:"));
    embed_provider_close(p);

    /* A bge model name gets the bge query prefix on queries only. */
    p = open_http(&m, "BAAI/bge-small-en-v1.5", NULL, 8, 0);
    assert_int_equal(embed_provider_embed(p, texts, 1, true, got, &err), 0);
    assert_int_equal(
        mock_count(&m, "Represent this sentence for searching relevant passages: get a pet"), 1);
    expected_vector(EMBED_BGE_QUERY_PREFIX "get a pet", 24, want);
    for (size_t d = 0; d < 24; d++) assert_true(fabsf(got[d] - want[d]) < 1e-6f);
    assert_int_equal(embed_provider_embed(p, texts, 1, false, got, &err), 0);
    expected_vector("get a pet", 24, want);
    for (size_t d = 0; d < 24; d++) assert_true(fabsf(got[d] - want[d]) < 1e-6f);
    assert_int_equal(mock_count(&m, "\"auth\": null"), 3);
    embed_provider_close(p);
    mock_stop(&m);
}

static void test_retries_then_success(void **state)
{
    (void)state;
    REQUIRE_PYTHON();
    mock_server m;
    const char *args[] = {"--fail-429", "2", "--fail-500", "1", NULL};
    mock_start(&m, args);
    embed_provider *p = open_http(&m, "m", NULL, 64, 5);
    const char *texts[] = {"a", "b", "c"};
    float out[3 * 8];
    size_t dim;
    apidex_error err = {0};
    assert_int_equal(embed_provider_dim(p, &dim, &err), 0);
    assert_int_equal(embed_provider_embed(p, texts, 3, false, out, &err), 0);
    assert_int_equal(p->stats.retries, 3);
    assert_int_equal(p->stats.requests, 5);
    embed_provider_close(p);
    mock_stop(&m);

    /* Retry-After is honoured (1 s here instead of the 10 ms backoff). */
    const char *args2[] = {"--fail-429", "1", "--retry-after", "1", NULL};
    mock_start(&m, args2);
    p = open_http(&m, "m", NULL, 64, 2);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(embed_provider_dim(p, &dim, &err), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_true(secs >= 0.9);
    embed_provider_close(p);
    mock_stop(&m);
}

static void expect_failure(const char *const *args, int retries, const char *key, int code,
                           const char *needle, int requests)
{
    mock_server m;
    mock_start(&m, args);
    embed_provider *p = open_http(&m, "m", key, 64, retries);
    const char *texts[] = {"a", "b"};
    float out[64];
    size_t dim = 0;
    apidex_error err = {0};
    int rc = embed_provider_dim(p, &dim, &err);
    if (!rc) rc = embed_provider_embed(p, texts, 2, false, out, &err);
    if (rc != code || !strstr(err.message, needle))
        fail_msg("expected %d '%s', got %d '%s'", code, needle, rc, err.message);
    assert_non_null(strstr(err.file, m.url)); /* the error names the URL */
    if (requests >= 0) assert_int_equal(mock_count(&m, "POST"), requests);
    embed_provider_close(p);
    mock_stop(&m);
}

static void test_clear_errors(void **state)
{
    (void)state;
    REQUIRE_PYTHON();
    const char *always429[] = {"--fail-429", "100", NULL};
    expect_failure(always429, 2, NULL, APIDEX_ENET, "gave up after 3 attempts: HTTP 429", 3);
    const char *always500[] = {"--status", "503", NULL};
    expect_failure(always500, 1, NULL, APIDEX_ENET, "gave up after 2 attempts: HTTP 503", 2);
    const char *key[] = {"--require-key", "right", NULL};
    expect_failure(key, 5, "wrong", APIDEX_ENET, "check the API key", 1);
    expect_failure(key, 5, NULL, APIDEX_ENET, "Incorrect API key provided", 1);
    const char *notfound[] = {"--status", "404", NULL};
    expect_failure(notfound, 5, NULL, APIDEX_ENET, "check the base URL and the model name", 1);
    const char *count[] = {"--wrong-count", NULL};
    expect_failure(count, 5, NULL, APIDEX_EPARSE, "answered 0 vectors for 1 texts", 1);
    const char *bad400[] = {"--status", "400", NULL};
    expect_failure(bad400, 5, NULL, APIDEX_ENET, "HTTP 400", 1);

    /* Nothing listening: a transport error, retried, then a clear message. */
    embed_options o = {.base_url = "http://127.0.0.1:1", .max_retries = 1, .backoff_ms = 5};
    embed_provider *p = NULL;
    apidex_error err = {0};
    assert_int_equal(embed_provider_open(&o, &p, &err), 0);
    size_t dim;
    assert_int_equal(embed_provider_dim(p, &dim, &err), APIDEX_ENET);
    assert_non_null(strstr(err.message, "cannot reach the embedding server"));
    assert_int_equal(p->stats.requests, 2);
    embed_provider_close(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endpoint_urls),
        cmocka_unit_test(test_batches_and_order),
        cmocka_unit_test(test_retries_then_success),
        cmocka_unit_test(test_clear_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
