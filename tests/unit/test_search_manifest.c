/* The capability manifest (search/manifest.c): plain text, grouped by API and tag, most
   useful first, and within a budget counted with the cl100k tokenizer. */
#include "testutil.h"

#include "build/build.h"
#include "search/search.h"
#include "oas/oas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A shop API: HTML and markdown in its texts, a large tag, a small one, a deprecated and an
   untagged operation; and a tiny second API. */
static const char shop[] =
    "openapi: 3.0.3\n"
    "info: {title: Shop, version: '1', description: '<p>Sell <b>things</b> online. More "
    "details follow in a long paragraph.</p>'}\n"
    "tags: [{name: orders}, {name: items}]\n"
    "paths:\n"
    "  /items/{item_id}/reviews/{review_id}:\n"
    "    get: {tags: [items], summary: Get one review of an item, responses: {'200': "
    "{description: ok}}}\n"
    "  /items:\n"
    "    get: {tags: [items], summary: '<p>List <a href=\"https://x.io\">items</a></p>', "
    "responses: {'200': {description: ok}}}\n"
    "    post: {tags: [items], summary: '**Create** an item', responses: {'200': "
    "{description: ok}}}\n"
    "  /items/{item_id}:\n"
    "    get: {tags: [items], description: 'Returns one item by its id. Second sentence "
    "here.', responses: {'200': {description: ok}}}\n"
    "    delete: {tags: [items], summary: Delete an item, responses: {'200': {description: "
    "ok}}}\n"
    "    put: {tags: [items], summary: Old update, deprecated: true, responses: {'200': "
    "{description: ok}}}\n"
    "  /orders:\n"
    "    get: {tags: [orders], summary: List orders, responses: {'200': {description: ok}}}\n"
    "  /health:\n"
    "    get: {summary: Check health, responses: {'200': {description: ok}}}\n";
static const char tiny[] = "openapi: 3.0.3\n"
                           "info: {title: Tiny, version: '1'}\n"
                           "paths:\n"
                           "  /ping:\n"
                           "    get: {summary: Ping, responses: {'200': {description: ok}}}\n";

typedef struct fixture {
    char *dir;
    store_index *idx;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = tu_tempdir();
    char *a = tu_write(f->dir, "shop.yaml", shop), *b = tu_write(f->dir, "tiny.yaml", tiny);
    char *db = tu_path(f->dir, "index.db");
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, a, &err), 0);
    assert_int_equal(spec_registry_add(reg, b, &err), 0);
    if (build_index(db, reg, NULL, NULL, &err)) fail_msg("build_index: %s", err.message);
    spec_registry_free(reg);
    if (store_open(db, true, &f->idx, &err)) fail_msg("store_open: %s", err.message);
    free(a);
    free(b);
    free(db);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    store_close(f->idx);
    tu_rmtree(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

static char *manifest(fixture *f, search_manifest_options o, search_manifest_report *rep, int want)
{
    core_buf b;
    core_buf_init(&b, 0);
    apidex_error err;
    core_error_clear(&err);
    int rc = search_manifest(f->idx, &o, &b, rep, &err);
    if (rc != want) fail_msg("search_manifest: %d (%s)", rc, err.message);
    if (rc) {
        assert_non_null(strstr(err.message, "too small"));
        core_buf_free(&b);
        return NULL;
    }
    return core_buf_steal(&b, NULL);
}

static size_t tokens(const char *s)
{
    return text_bpe_count(text_bpe_default(), s, strlen(s));
}

static void test_full(void **state)
{
    fixture *f = *state;
    search_manifest_report rep;
    char *m = manifest(f, (search_manifest_options){0}, &rep, 0);
    /* plain text: no tags, no markdown marks, the link's text stays */
    assert_null(strstr(m, "<p>"));
    assert_null(strstr(m, "href"));
    assert_null(strstr(m, "**"));
    assert_non_null(strstr(m, "Sell things online."));
    /* largest API first, then its largest tag; general endpoints first within a tag */
    const char *shop_at = strstr(m, "## Shop (api "), *tiny_at = strstr(m, "## Tiny (api ");
    assert_non_null(shop_at);
    assert_non_null(tiny_at);
    assert_true(shop_at < tiny_at);
    assert_non_null(strstr(m, "7 operations)"));
    const char *items = strstr(m, "- items: Query: List items; Returns one item by its id; Get "
                                  "one review of an item | Modify: Create an item | Remove: "
                                  "Delete an item\n");
    if (!items) fail_msg("%s", m);
    const char *orders = strstr(m, "- orders: Query: List orders\n");
    assert_non_null(orders);
    assert_true(items < orders);
    assert_non_null(strstr(m, "- untagged: Query: Check health\n"));
    /* deprecated operations are left out; nothing is left out without a budget */
    assert_null(strstr(m, "Old update"));
    assert_null(strstr(m, "Left out"));
    assert_int_equal(rep.apis, 2);
    assert_int_equal(rep.apis_shown, 2);
    assert_int_equal(rep.operations, 8);
    assert_int_equal(rep.operations_shown, 8);
    assert_int_equal(rep.tokens, tokens(m));
    free(m);
}

static void test_budgets(void **state)
{
    fixture *f = *state;
    search_manifest_report full;
    free(manifest(f, (search_manifest_options){0}, &full, 0));
    size_t smallest = 0;
    /* find the smallest budget that works, then check every budget from there */
    for (size_t budget = 1; budget <= full.tokens + 5; budget++) {
        core_buf b;
        core_buf_init(&b, 0);
        apidex_error err;
        search_manifest_report rep;
        int rc =
            search_manifest(f->idx, &(search_manifest_options){.budget = budget}, &b, &rep, &err);
        if (rc) {
            assert_int_equal(rc, APIDEX_ELIMIT);
            assert_int_equal(smallest, 0); /* once a budget works, every larger one does */
            core_buf_free(&b);
            continue;
        }
        if (!smallest) smallest = budget;
        assert_true(tokens(b.data) <= budget);
        assert_int_equal(rep.tokens, tokens(b.data));
        if (rep.operations_shown < rep.operations || rep.apis_shown < rep.apis) {
            char want[64];
            snprintf(want, sizeof want, "Left out to stay within %zu tokens", budget);
            assert_non_null(strstr(b.data, want));
        } else {
            assert_null(strstr(b.data, "Left out"));
        }
        core_buf_free(&b);
    }
    assert_true(smallest > 10);
    assert_true(smallest < full.tokens);
}

static void test_filters(void **state)
{
    fixture *f = *state;
    const char *apis[] = {"tiny"}, *tags[] = {"orders"};
    char *m = manifest(f, (search_manifest_options){.apis = apis, .n_apis = 1}, NULL, 0);
    assert_null(strstr(m, "Shop"));
    assert_non_null(strstr(m, "Ping"));
    free(m);
    m = manifest(f, (search_manifest_options){.tags = tags, .n_tags = 1}, NULL, 0);
    assert_non_null(strstr(m, "List orders"));
    assert_null(strstr(m, "items"));
    assert_null(strstr(m, "Tiny"));
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_budgets),
        cmocka_unit_test(test_filters),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
