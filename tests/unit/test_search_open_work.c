/* The open-cost guard (docs/SCALE.md): opening the search engine does a bounded amount of
 * work per operation, whatever the size of the registry. Two registries written here, of
 * 50 and 400 APIs of the same shape (distinct names and hosts, some APIs sharing a cloud
 * host and some copies of one service, resources with owners, producers, verbs of the
 * lexicon, un- and de- pairs), are indexed and opened; search_engine_open_work counts the
 * rows read and the loop iterations of every open step. A step that compares all pairs of
 * APIs, words or operations makes the count per operation grow with the registry, and this
 * test fails. A count, not a time: it does not vary with the machine or its load. */
#include "search_testutil.h"

#include "search/search_int.h"

#include <stdio.h>

enum { PER_API = 9 };

/* A word of letters only for n (digits are version words to the analyzer). */
static void word_of(size_t n, char *out)
{
    char tmp[16];
    size_t k = 0;
    do {
        tmp[k++] = (char)('a' + n % 26);
        n /= 26;
    } while (n && k < sizeof tmp);
    out[0] = 'q';
    for (size_t i = 0; i < k; i++) out[1 + i] = tmp[k - 1 - i];
    out[1 + k] = '\0';
}

static const char *const resources[] = {"widget", "ticket", "invoice", "channel",  "device",
                                        "report", "member", "bucket",  "pipeline", NULL};

/* One API: its own name words and host (a tenth share one cloud host; every 25th is a
   copy of the one before, same title and paths). */
static char *api_spec(size_t a)
{
    char name[24], host[64];
    size_t self = a % 25 == 24 ? a - 1 : a;
    word_of(self * 7 + 3, name);
    if (a % 10 == 0)
        snprintf(host, sizeof host, "api.cloud.example/%s", name);
    else
        snprintf(host, sizeof host, "api.%s.example", name);
    const char *res = resources[self % 9];
    size_t cap = 8192, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
#define PUT(...) (len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__))
    PUT("{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"%s %s Service\",\"version\":\"%zu\"},"
        "\"servers\":[{\"url\":\"https://%s\"}],\"paths\":{",
        name, res, a == self ? (size_t)1 : (size_t)2, host);
    PUT("\"/%ss\":{\"get\":{\"operationId\":\"list%ss\",\"summary\":\"List the %ss\","
        "\"responses\":{\"200\":{\"description\":\"ok\",\"content\":{\"application/json\":"
        "{\"schema\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":"
        "{\"%s_id\":{\"type\":\"string\"},\"name\":{\"type\":\"string\"}}}}}}}}},"
        "\"post\":{\"operationId\":\"create%s\",\"summary\":\"Create a %s\","
        "\"responses\":{\"201\":{\"description\":\"created\"}}}},",
        res, res, res, res, res, res);
    PUT("\"/%ss/{%s_id}\":{\"parameters\":[{\"name\":\"%s_id\",\"in\":\"path\","
        "\"required\":true,\"schema\":{\"type\":\"string\"}}],"
        "\"get\":{\"operationId\":\"get%s\",\"summary\":\"Get a %s\","
        "\"responses\":{\"200\":{\"description\":\"ok\"}}},"
        "\"delete\":{\"operationId\":\"delete%s\",\"summary\":\"Delete a %s\","
        "\"responses\":{\"204\":{\"description\":\"gone\"}}}}",
        res, res, res, res, res, res, res);
    static const char *const verbs[] = {"register", "deregister", "lock", "unlock", "start", NULL};
    for (size_t v = 0; verbs[v]; v++)
        PUT(",\"/%ss/{%s_id}/%s\":{\"post\":{\"operationId\":\"%s%s\",\"summary\":\"%c%s the "
            "%s\",\"parameters\":[{\"name\":\"%s_id\",\"in\":\"path\",\"required\":true,"
            "\"schema\":{\"type\":\"string\"}}],\"responses\":{\"200\":{\"description\":\"ok\"}}}}",
            res, res, verbs[v], verbs[v], res, verbs[v][0] - 32, verbs[v] + 1, res, res);
    PUT("}}");
#undef PUT
    assert_true(len < cap);
    return s;
}

/* Indexes n APIs (with the search image or without it), opens the engine and returns its
   open work per operation. */
static double work_per_op(size_t n, bool image)
{
    char *dir = tu_tempdir();
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    for (size_t a = 0; a < n; a++) {
        char name[32];
        snprintf(name, sizeof name, "api%04zu.json", a);
        char *text = api_spec(a);
        char *p = tu_write(dir, name, text);
        if (spec_registry_add(reg, p, &err)) fail_msg("%s: %s", name, err.message);
        free(p);
        free(text);
    }
    char *db = tu_path(dir, "index.db");
    if (image) search_image_install();
    if (build_index(db, reg, NULL, NULL, &err)) fail_msg("build_index: %s", err.message);
    build_image_set_builder(NULL);
    spec_registry_free(reg);
    store_index *idx = NULL;
    search_engine *eng = NULL;
    if (store_open(db, true, &idx, &err)) fail_msg("store_open: %s", err.message);
    if (search_engine_open(idx, &eng, &err)) fail_msg("engine: %s", err.message);
    size_t work = search_engine_open_work(eng);
    /* the engine really holds the registry: a task finds its operation */
    search_query q = {.text = "deregister the invoice", .k = 5};
    search_result *r = NULL;
    assert_int_equal(search_engine_run(eng, &q, &r, &err), 0);
    bool found = false;
    for (size_t i = 0; i < r->n_hits && !found; i++)
        found = strstr(r->hits[i].path, "/invoices/{invoice_id}/deregister") != NULL;
    assert_true(found);
    /* with the image no operation, chunk or edge row is read (section OPS, PROD): opening,
       and the search with it, read the image and the APIs only */
    if (image) assert_int_equal(store_loaded(idx), 0);
    if (image) assert_true(eng->learned); /* section LEARN was used */
    search_result_free(r);
    search_engine_close(eng);
    store_close(idx);
    tu_rmtree(dir);
    free(dir);
    free(db);
    double per = (double)work / (double)(n * PER_API);
    print_message("open work%s: %zu APIs, %zu operations, %zu units, %.1f per operation\n",
                  image ? " with the image" : "", n, n * PER_API, work, per);
    return per;
}

/* The bound: what the open steps do per operation on these specs is about 52 units (rows,
   terms of its chunk, postings, verbs, path segments, producers); twice that leaves room for
   new steps of the same kind, and a step that compares all pairs passes it at 400 APIs. */
enum { MAX_PER_OP = 120 };

static void test_open_work_is_linear(void **state)
{
    (void)state;
    double small = work_per_op(50, false), large = work_per_op(400, false);
    assert_true(small > 0);
    assert_true(large <= MAX_PER_OP);
    /* eight times the registry, at most a quarter more per operation (fixed costs spread
       thinner; a term table that grows adds a little) */
    assert_true(large <= small * 1.25);
}

/* With the search image the postings are not rebuilt: no row of chunk terms is read and no
   term occurrence is counted, only each term's place in the image is set (docs/INDEX.md);
   the operations, the chunks' endpoints and the producers come from the image too (no row
   of those tables is loaded: store_loaded). Opening does less than from the rows, and still
   no more per operation as it grows. */
enum { MAX_PER_OP_IMAGE = 20 };

static void test_open_work_with_image(void **state)
{
    (void)state;
    double rows = work_per_op(400, false);
    double small = work_per_op(50, true), large = work_per_op(400, true);
    assert_true(small > 0);
    assert_true(large < rows * 0.8);
    assert_true(large <= small * 1.25);
    /* and nothing learned over the whole registry (section LEARN: API names, owners, verb
       counts, superseded copies) nor any producer record decoded: about 15 units per
       operation on these specs (25.5 when those were computed at open), the bound below */
    assert_true(large <= MAX_PER_OP_IMAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_work_is_linear),
        cmocka_unit_test(test_open_work_with_image),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
