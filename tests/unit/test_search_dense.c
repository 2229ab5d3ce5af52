/* Dense and hybrid search over the examples with a fake embedding provider: vectors at index
   time, incremental reuse, fusion, the errors that say how to build vectors. */
#include "embed_testutil.h"

#include "build/build.h"
#include "embed/embed.h"
#include "search/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int build(const char *specs, const char *db, embed_provider *p, store_build_report *rep)
{
    spec_registry *reg = NULL;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, specs, &err), 0);
    build_options opt = {.embedder = p};
    int rc = build_index(db, reg, &opt, rep, &err);
    if (rc) print_message("build_index: %s\n", err.message);
    spec_registry_free(reg);
    return rc;
}

/* Runs q on db with provider p; returns the status, *top the first hit's api (static copy). */
static int run(const char *db, embed_provider *p, search_query *q, char *top, size_t top_size,
               apidex_error *err)
{
    store_index *idx = NULL;
    search_engine *eng = NULL;
    search_result *res = NULL;
    int rc = store_open(db, true, &idx, err);
    if (!rc) rc = search_engine_open(idx, &eng, err);
    if (!rc) search_engine_set_embedder(eng, p);
    if (!rc) rc = search_engine_run(eng, q, &res, err);
    if (!rc) snprintf(top, top_size, "%s", res->n_hits ? res->hits[0].id : "");
    search_result_free(res);
    search_engine_close(eng);
    store_close(idx);
    return rc;
}

static void test_dense_and_hybrid(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = tu_path(dir, "d.db"), *plain = tu_path(dir, "p.db");
    char *specs = tu_path(tu_source_dir(), "examples");
    fake_provider fa, fb;
    fake_init(&fa, "fake-a");
    fake_init(&fb, "fake-b");
    store_build_report rep;

    assert_int_equal(build(specs, db, &fa.base, &rep), 0);
    assert_true(rep.n_chunks > 0);
    assert_int_equal(rep.embedded, rep.n_chunks);
    assert_int_equal(fa.texts, rep.n_chunks);
    size_t calls = fa.calls;
    assert_int_equal(build(specs, db, &fa.base, &rep), 0); /* nothing changed */
    assert_int_equal(rep.embedded, 0);
    assert_int_equal(fa.calls, calls);
    assert_int_equal(build(specs, plain, NULL, &rep), 0);

    apidex_error err;
    char top[256];
    /* The query points where the recipe chunks do. */
    search_query q = {.text = "recipe kitchen", .k = 5, .mode = SEARCH_DENSE};
    assert_int_equal(run(db, &fa.base, &q, top, sizeof top, &err), 0);
    assert_true(!strncmp(top, "recipe-box:", 11));
    assert_true(fa.query_calls >= 1);
    q.mode = SEARCH_HYBRID;
    assert_int_equal(run(db, &fa.base, &q, top, sizeof top, &err), 0);
    assert_true(!strncmp(top, "recipe-box:", 11));
    q.hybrid_weight = 0.5;
    assert_int_equal(run(db, &fa.base, &q, top, sizeof top, &err), 0);
    assert_true(!strncmp(top, "recipe-box:", 11));
    q.hybrid_weight = 1.5;
    assert_int_equal(run(db, &fa.base, &q, top, sizeof top, &err), APIDEX_EINVAL);
    q.hybrid_weight = 0;

    /* Lexical is the same with or without vectors and an embedder. */
    search_query lq = {.text = "reserve a book", .k = 5};
    char top2[256];
    assert_int_equal(run(db, &fa.base, &lq, top, sizeof top, &err), 0);
    assert_int_equal(run(plain, NULL, &lq, top2, sizeof top2, &err), 0);
    assert_string_equal(top, top2);

    /* The errors say what to do. */
    assert_int_equal(run(plain, &fa.base, &q, top, sizeof top, &err), APIDEX_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "has no vectors"));
    assert_int_equal(run(db, NULL, &q, top, sizeof top, &err), APIDEX_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "--model"));
    assert_int_equal(run(db, &fb.base, &q, top, sizeof top, &err), APIDEX_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "fake:fake-a"));

    /* Another model: a clean rebuild with every chunk embedded by it. */
    assert_int_equal(build(specs, db, &fb.base, &rep), 0);
    assert_true(rep.full_rebuild);
    assert_int_equal(rep.embedded, rep.n_chunks);
    assert_int_equal(run(db, &fb.base, &q, top, sizeof top, &err), 0);

    tu_rmtree(dir);
    free(specs);
    free(plain);
    free(db);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense_and_hybrid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
