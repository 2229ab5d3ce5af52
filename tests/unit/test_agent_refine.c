/* LLM chunk refinement: summary and query texts written by the scripted mock at index time,
 * concurrently, cached on disk so re-indexing asks nothing for unchanged endpoints; a failing
 * LLM leaves the old index as it was. */
#include "agent_testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const rules =
    "{\"rules\": [{\"when\": \"Summarize what this API endpoint does\", \"delay\": 0.4,"
    "              \"content\": \"  Summary: \\\"{{endpoint}}, summarized.\\\"\\n\"},"
    "             {\"when\": \"Write one request a user\", \"content\": \"How can I "
    "{{endpoint}}?\"}]}";

typedef struct progress_log {
    size_t calls, last_done, total;
} progress_log;

static void on_progress(void *ctx, size_t done, size_t total)
{
    progress_log *p = ctx;
    p->calls++;
    p->last_done = done;
    p->total = total;
}

static void build(const char *db, const char *spec, const char *strategy, agent_refiner *r,
                  int expect_rc)
{
    spec_registry *reg = NULL;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, spec, &err), 0);
    build_options bo = {.strategy = strategy, .full = true};
    if (r) agent_refiner_attach(r, &bo);
    int rc = build_index(db, reg, &bo, NULL, &err);
    if (rc != expect_rc) fail_msg("build_index returned %d: %s", rc, err.message);
    spec_registry_free(reg);
}

/* The indexed text of the chunk of operation id. */
static const char *chunk_text(store_index *idx, const char *id)
{
    const store_chunk *c = NULL;
    size_t n = 0;
    assert_int_equal(store_chunks(idx, &c, &n, NULL), 0);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(c[i].id, id)) continue;
        const char *text = store_chunk_text(idx, i); /* NULL: indexed on its content */
        return text ? text : store_chunk_content(idx, i);
    }
    return NULL;
}

static void test_summary_texts_cached(void **state)
{
    (void)state;
    char *dir = tu_tempdir(), *cache = tu_path(dir, "cache"), *db = tu_path(dir, "i.db");
    char *spec = tu_path(tu_source_dir(), "tests/agent/bookshop.json");
    mock_llm m;
    mock_llm_start(&m, rules);
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    progress_log prog = {0};
    agent_refine_options ro = {
        .concurrency = 4, .cache_dir = cache, .progress = on_progress, .progress_ctx = &prog};
    agent_refiner *r = NULL;
    apidex_error err;
    assert_int_equal(agent_refiner_new(llm, &ro, &r, &err), 0);
    assert_string_equal(agent_refiner_signature(r), "llm:mock-model:p1");
    double t0 = core_now();
    build(db, spec, "summary", r, 0);
    double took = core_now() - t0;
    /* 8 calls of 0.4 s, four at a time: not one after another (natively: tu_emulated_cpu) */
    if (!tu_emulated_cpu()) assert_true(took < 2.4);
    agent_refine_stats s = agent_refiner_stats(r);
    assert_int_equal(s.llm_calls, 8);
    assert_int_equal(s.failures, 0);
    assert_true(s.usage.total > 0);
    assert_int_equal(prog.calls, 8);
    assert_int_equal(prog.last_done, 8);
    assert_int_equal(prog.total, 8);
    assert_int_equal(mock_llm_count(&m, NULL), 8);
    assert_int_equal(mock_llm_count(&m, "\"max_tokens\": 200"), 8);
    agent_refiner_free(r);

    store_index *idx = NULL;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    assert_string_equal(chunk_text(idx, "bookshop:searchBooks"), "GET /books, summarized.");
    assert_string_equal(chunk_text(idx, "bookshop:createOrder"), "POST /orders, summarized.");
    store_info info;
    assert_int_equal(store_index_info(idx, &info, &err), 0);
    assert_non_null(strstr(info.strategy, "summary"));
    assert_non_null(strstr(info.strategy, "llm:mock-model:p1"));
    /* The content handed to readers stays the whole endpoint. */
    const store_chunk *c = NULL;
    size_t n = 0;
    assert_int_equal(store_chunks(idx, &c, &n, NULL), 0);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(c[i].id, "bookshop:searchBooks"))
            assert_non_null(strstr(store_chunk_content(idx, i), "Text to search in titles"));
    store_close(idx);

    /* Re-indexing with a new refiner: every text comes from the disk cache. */
    assert_int_equal(agent_refiner_new(llm, &ro, &r, &err), 0);
    build(db, spec, "summary", r, 0);
    s = agent_refiner_stats(r);
    assert_int_equal(s.llm_calls, 0);
    assert_true(s.cache_hits >= 8);
    assert_int_equal(mock_llm_count(&m, NULL), 8);
    agent_refiner_free(r);

    /* One endpoint changed: only it is asked again. */
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(core_file_read(spec, 1 << 20, &text, &len, NULL), 0);
    char *at = strstr(text, "Reader reviews of one book");
    assert_non_null(at);
    memcpy(at, "Reader ratings", 14);
    char *changed = tu_write(dir, "bookshop.json", text);
    free(text);
    assert_int_equal(agent_refiner_new(llm, &ro, &r, &err), 0);
    build(db, changed, "summary", r, 0);
    s = agent_refiner_stats(r);
    assert_int_equal(s.llm_calls, 1);
    assert_int_equal(mock_llm_count(&m, NULL), 9);
    agent_refiner_free(r);

    /* The query strategy asks for a likely user request instead. */
    assert_int_equal(agent_refiner_new(llm, &ro, &r, &err), 0);
    build(db, spec, "query", r, 0);
    agent_refiner_free(r);
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    assert_string_equal(chunk_text(idx, "bookshop:getAuthor"),
                        "How can I GET /authors/{author_id}?");
    store_close(idx);
    /* Other strategies are left alone (and ask nothing). */
    int before = mock_llm_count(&m, NULL);
    assert_int_equal(agent_refiner_new(llm, &ro, &r, &err), 0);
    build(db, spec, "hybrid", r, 0);
    assert_int_equal(agent_refiner_stats(r).requested, 0);
    agent_refiner_free(r);
    assert_int_equal(mock_llm_count(&m, NULL), before);

    agent_llm_close(llm);
    mock_llm_stop(&m);
    free(changed);
    free(spec);
    free(db);
    free(cache);
    tu_rmtree(dir);
    free(dir);
}

static void test_failure_keeps_old_index(void **state)
{
    (void)state;
    char *dir = tu_tempdir(), *db = tu_path(dir, "i.db");
    char *spec = tu_path(tu_source_dir(), "tests/agent/bookshop.json");
    build(db, spec, "summary", NULL, 0); /* the deterministic default */
    store_index *idx = NULL;
    apidex_error err;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    uint64_t version = store_index_version(idx);
    const char *t = chunk_text(idx, "bookshop:searchBooks");
    assert_non_null(t);
    assert_null(strstr(t, "summarized"));
    store_close(idx);

    mock_llm m;
    mock_llm_start(&m, "{\"default\": {\"status\": 401, \"error\": \"Incorrect API key\"}}");
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    agent_refine_options ro = {.concurrency = 2, .cache_dir = ""};
    agent_refiner *r = NULL;
    assert_int_equal(agent_refiner_new(llm, &ro, &r, &err), 0);
    build(db, spec, "summary", r, APIDEX_EINVAL);
    /* It stopped early instead of sending every endpoint to a server that refuses. */
    assert_true(mock_llm_count(&m, NULL) <= 2);
    assert_true(agent_refiner_stats(r).failures >= 1);
    agent_refiner_free(r);
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    assert_true(store_index_version(idx) == version);
    store_close(idx);

    /* Only summary and query can be refined. */
    agent_refine_options bad = {.strategy = CHUNK_HYBRID};
    assert_int_equal(agent_refiner_new(llm, &bad, &r, &err), APIDEX_EINVAL);
    assert_int_equal(agent_refiner_new(NULL, NULL, &r, &err), APIDEX_EINVAL);
    agent_llm_close(llm);
    mock_llm_stop(&m);
    free(spec);
    free(db);
    tu_rmtree(dir);
    free(dir);
}

static void test_describe_hook_directly(void **state)
{
    (void)state;
    mock_llm m;
    mock_llm_start(&m, rules);
    agent_llm *llm = mock_llm_client(&m, 10, 0);
    char *cache = tu_tempdir();
    agent_refine_options ro = {.cache_dir = cache};
    agent_refiner *r = NULL;
    apidex_error err;
    assert_int_equal(agent_refiner_new(llm, &ro, &r, &err), 0);
    char *spec = tu_path(tu_source_dir(), "tests/agent/bookshop.json");
    spec_registry *reg = NULL;
    assert_int_equal(spec_load_file(spec, NULL, &reg, &err), 0);
    chunk_options co = {
        .strategy = CHUNK_QUERY, .describe = agent_refine_describe, .describe_ctx = r};
    chunk_list *l = NULL;
    assert_int_equal(chunk_list_new(&l), 0);
    assert_int_equal(chunk_api(spec_registry_api(reg, 0), &co, l, &err), 0);
    assert_int_equal(l->n, 8);
    assert_non_null(strstr(l->items[0].text, "How can I "));
    assert_int_equal(agent_refiner_stats(r).llm_calls, 8);
    chunk_list_free(l);
    spec_registry_free(reg);
    agent_refiner_free(r);
    agent_llm_close(llm);
    mock_llm_stop(&m);
    free(spec);
    tu_rmtree(cache);
    free(cache);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_texts_cached),
        cmocka_unit_test(test_failure_keeps_old_index),
        cmocka_unit_test(test_describe_hook_directly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
