/* Corpus-wide invariants of every chunking strategy over ../shared/corpus and the
 * RestBench specs: windows never exceed s and overlap by exactly l tokens, every
 * operation lands in exactly one chunk of each per-operation strategy, every
 * endpoint keeps at least one chunk, ids are unique and references resolve.
 * Under sanitizers (APIDEX_SANITIZED=1) only the smaller specs are chunked. */
#include "testutil.h"

#include "chunk/chunk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static spec_registry *reg;

static int setup(void **state)
{
    (void)state;
    const char *shared = tu_shared_dir();
    if (!shared) return 0;
    apidex_error err;
    if (spec_registry_new(NULL, &reg, &err)) return -1;
    const char *dirs[] = {"corpus/specs", "benchmarks/restbench/specs"};
    for (size_t i = 0; i < 2; i++) {
        char *p = tu_path(shared, dirs[i]);
        int rc = spec_registry_add(reg, p, &err);
        free(p);
        if (rc) return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    spec_registry_free(reg);
    return 0;
}

static bool sanitized(void)
{
    const char *s = getenv("APIDEX_SANITIZED");
    return s && *s && strcmp(s, "0") != 0;
}

/* Under sanitizers only APIs up to this many operations (the big ones take minutes). */
static bool skip_api(const spec_api *api)
{
    return api->failed || (sanitized() && api->n_ops > 120);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void check_unique_ids(const chunk_list *l, size_t from)
{
    size_t n = l->n - from;
    const char **ids = malloc((n + 1) * sizeof *ids);
    for (size_t i = 0; i < n; i++) ids[i] = l->items[from + i].id;
    qsort(ids, n, sizeof *ids, cmp_str);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(ids[i - 1], ids[i])) fail_msg("duplicate chunk id %s", ids[i]);
    free(ids);
}

typedef struct strat_case {
    chunk_strategy s;
    size_t size, overlap;
} strat_case;

static void check_api(const spec_api *api, const strat_case *sc, size_t *n_chunks)
{
    chunk_list *l = NULL;
    assert_int_equal(chunk_list_new(&l), 0);
    chunk_options opt = {.strategy = sc->s, .size = sc->size, .overlap = sc->overlap};
    apidex_error err;
    core_error_clear(&err);
    int rc = chunk_api(api, &opt, l, &err);
    if (rc) fail_msg("%s %s: %s", api->id, chunk_strategy_name(sc->s), err.message);
    check_unique_ids(l, 0);
    size_t *hits = calloc(api->n_ops + 1, sizeof *hits);
    bool per_op = sc->s != CHUNK_NOSPLIT && sc->s != CHUNK_JSON;
    for (size_t i = 0; i < l->n; i++) {
        const chunk *c = &l->items[i];
        assert_non_null(c->content);
        assert_non_null(c->text);
        if (sc->size) {
            if (c->meta.tokens > sc->size)
                fail_msg("%s: window of %zu tokens > %zu", c->id, c->meta.tokens, sc->size);
            assert_int_equal(c->meta.tokens, c->meta.tok_end - c->meta.tok_start);
            assert_int_equal(c->content_len, c->meta.byte_end - c->meta.byte_start);
            if (c->meta.window) {
                const chunk *p = c - 1;
                assert_int_equal(p->meta.window + 1, c->meta.window);
                if (c->meta.tok_start + sc->overlap != p->meta.tok_end)
                    fail_msg("%s: overlap %zu, expected %zu", c->id,
                             p->meta.tok_end - c->meta.tok_start, sc->overlap);
                size_t ov = p->meta.byte_end - c->meta.byte_start;
                assert_true(ov <= p->content_len && ov <= c->content_len);
                if (memcmp(c->content, p->content + p->content_len - ov, ov))
                    fail_msg("%s: overlap bytes differ from the previous window", c->id);
                if (sc->overlap) assert_true(ov > 0);
            }
            if (c->meta.window + 1 == c->meta.n_windows && i + 1 < l->n &&
                l->items[i + 1].meta.window != 0)
                fail_msg("%s: window sequence broken", c->id);
        }
        for (size_t e = 0; e < c->n_endpoints; e++) {
            const spec_operation *op = spec_api_find_operation(api, c->endpoints[e].op_id);
            if (!op) fail_msg("%s maps to unknown endpoint %s", c->id, c->endpoints[e].op_id);
            assert_string_equal(op->method, c->endpoints[e].method);
            assert_string_equal(op->path, c->endpoints[e].path);
            /* Window chunks of one operation count once. */
            if (!per_op || c->meta.window == 0) hits[op - api->ops]++;
        }
        if (per_op && c->type != CHUNK_TYPE_SCHEMA && c->n_endpoints != 1)
            fail_msg("%s: %zu endpoints in a per-operation chunk", c->id, c->n_endpoints);
        if (c->type == CHUNK_TYPE_SCHEMA) assert_int_equal(c->n_endpoints, 0);
    }
    for (size_t k = 0; k < api->n_ops; k++) {
        if (per_op && hits[k] != 1)
            fail_msg("%s %s: %s is in %zu chunks", api->id, chunk_strategy_name(sc->s),
                     api->ops[k].id, hits[k]);
        if (!per_op && hits[k] == 0)
            fail_msg("%s %s: %s lost its chunk", api->id, chunk_strategy_name(sc->s),
                     api->ops[k].id);
    }
    /* Hybrid references resolve to chunks of the same list. */
    if (sc->s == CHUNK_HYBRID) {
        const char **ids = malloc((l->n + 1) * sizeof *ids);
        for (size_t i = 0; i < l->n; i++) ids[i] = l->items[i].id;
        qsort(ids, l->n, sizeof *ids, cmp_str);
        for (size_t i = 0; i < l->n; i++)
            for (size_t r = 0; r < l->items[i].meta.n_ref_ids; r++) {
                const char *key = l->items[i].meta.ref_ids[r];
                if (!bsearch(&key, ids, l->n, sizeof *ids, cmp_str))
                    fail_msg("%s: dangling ref %s", l->items[i].id, key);
            }
        free(ids);
    }
    *n_chunks += l->n;
    free(hits);
    chunk_list_free(l);
}

static void run_strategy(const strat_case *sc)
{
    if (!tu_shared_dir()) {
        print_message("../shared not found: skipped\n");
        skip();
    }
    double t0 = core_now();
    size_t apis = 0, chunks = 0;
    for (size_t i = 0; i < spec_registry_count(reg); i++) {
        const spec_api *api = spec_registry_api(reg, i);
        if (skip_api(api)) continue;
        check_api(api, sc, &chunks);
        apis++;
    }
    assert_true(apis >= (sanitized() ? 10u : 30u));
    print_message("%-12s s=%-5zu l=%-3zu %3zu APIs %7zu chunks %6.2f s\n",
                  chunk_strategy_name(sc->s), sc->size, sc->overlap, apis, chunks, core_now() - t0);
}

static void test_nosplit(void **state)
{
    (void)state;
    strat_case sc = {CHUNK_NOSPLIT, 8191, 128};
    run_strategy(&sc);
}

static void test_json(void **state)
{
    (void)state;
    strat_case sc = {CHUNK_JSON, 1024, 50};
    run_strategy(&sc);
}

static void test_endpoint(void **state)
{
    (void)state;
    strat_case sc = {CHUNK_ENDPOINT, 512, 64};
    run_strategy(&sc);
}

static void test_endpoint_re(void **state)
{
    (void)state;
    strat_case sc = {CHUNK_ENDPOINT_RE, 0, 0};
    run_strategy(&sc);
}

static void test_endpoint_rf(void **state)
{
    (void)state;
    strat_case sc = {CHUNK_ENDPOINT_RF, 0, 0};
    run_strategy(&sc);
}

static void test_summary(void **state)
{
    (void)state;
    strat_case sc = {CHUNK_SUMMARY, 0, 0};
    run_strategy(&sc);
}

static void test_query(void **state)
{
    (void)state;
    strat_case sc = {CHUNK_QUERY, 0, 0};
    run_strategy(&sc);
}

static void test_hybrid(void **state)
{
    (void)state;
    strat_case sc = {CHUNK_HYBRID, 0, 0};
    run_strategy(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hybrid),      cmocka_unit_test(test_endpoint_re),
        cmocka_unit_test(test_endpoint_rf), cmocka_unit_test(test_summary),
        cmocka_unit_test(test_query),       cmocka_unit_test(test_endpoint),
        cmocka_unit_test(test_json),        cmocka_unit_test(test_nosplit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
