/* The index side and the query side make the same terms of the same text: the terms the
   index build stores for an operation's fields (store_build, read back from the file) and
   the terms the query reader makes of the same words (lex_query_terms) are pinned here, and
   the query's must be the index's without the stop words, each one in the engine's
   vocabulary. A change to either side alone fails this test. */
#include "search_testutil.h"

#include "search/search_int.h"

typedef struct fixture {
    char *dir, *db;
    store_index *idx;
    search_engine *eng;
    char *fields[STORE_FIELD_COUNT]; /* the operation chunk's terms per field */
} fixture;

#define SUMMARY     "Please get the user's playlists"
#define DESCRIPTION "Retrieving the Subscriptions of an account, by its accountId and x-rate-limit."

static const char spec[] = "openapi: 3.0.3\n"
                           "info: {title: Tuneful, version: '1'}\n"
                           "paths:\n"
                           "  /movie/{movie_id}/credits:\n"
                           "    get:\n"
                           "      operationId: getMovieCredits\n"
                           "      summary: \"" SUMMARY "\"\n"
                           "      description: \"" DESCRIPTION "\"\n"
                           "      parameters:\n"
                           "        - {name: movie_id, in: path, required: true, schema: {type: "
                           "string}}\n"
                           "      responses:\n"
                           "        '200': {description: ok}\n";

static int keep_endpoint(void *ctx, size_t i, const char *const *terms)
{
    fixture *f = ctx;
    const store_chunk *chunks;
    size_t n;
    if (store_chunks(f->idx, &chunks, &n, NULL) || i >= n || !chunks[i].n_endpoints ||
        !*terms[STORE_FIELD_SUMMARY])
        return 0;
    for (int k = 0; k < STORE_FIELD_COUNT; k++) {
        free(f->fields[k]);
        f->fields[k] = strdup(terms[k]);
    }
    return 0;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = tu_tempdir();
    char *path = tu_write(f->dir, "tuneful.yaml", spec);
    f->db = tu_path(f->dir, "index.db");
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, path, &err), 0);
    free(path);
    if (build_index(f->db, reg, NULL, NULL, &err)) fail_msg("build_index: %s", err.message);
    spec_registry_free(reg);
    if (store_open(f->db, true, &f->idx, &err)) fail_msg("store_open: %s", err.message);
    if (store_chunk_terms_scan(f->idx, keep_endpoint, f, &err)) fail_msg("terms: %s", err.message);
    assert_non_null(f->fields[STORE_FIELD_SUMMARY]);
    if (search_engine_open(f->idx, &f->eng, &err)) fail_msg("engine: %s", err.message);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    search_engine_close(f->eng);
    store_close(f->idx);
    for (int k = 0; k < STORE_FIELD_COUNT; k++) free(f->fields[k]);
    tu_rmtree(f->dir);
    free(f->dir);
    free(f->db);
    free(f);
    return 0;
}

/* The query side's terms of s (malloc'd). */
static char *query_terms(const char *s)
{
    text_analyzer *a = text_analyzer_new();
    assert_non_null(a);
    core_buf b;
    core_buf_init(&b, 0);
    lex_query_terms(a, s, strlen(s), &b);
    assert_false(b.failed);
    char *out = strndup(b.data ? b.data : "", b.len);
    core_buf_free(&b);
    text_analyzer_free(a);
    return out;
}

/* The index terms without the stop words (malloc'd). */
static char *without_stop_words(const char *terms)
{
    core_buf b;
    core_buf_init(&b, 0);
    for (const char *t = terms; *t;) {
        while (*t == ' ') t++;
        const char *end = t;
        while (*end && *end != ' ') end++;
        if (end > t && !text_term_is_stop(t, (size_t)(end - t))) {
            if (b.len) core_buf_putc(&b, ' ');
            core_buf_append(&b, t, (size_t)(end - t));
        }
        t = end;
    }
    char *out = strndup(b.data ? b.data : "", b.len);
    core_buf_free(&b);
    return out;
}

/* Both sides' terms of text, pinned, and the query's in the engine's vocabulary. */
static void expect_same_terms(fixture *f, int field, const char *text, const char *index_terms,
                              const char *query)
{
    assert_string_equal(f->fields[field], index_terms);
    char *q = query_terms(text);
    char *expect = without_stop_words(f->fields[field]);
    assert_string_equal(q, query);
    assert_string_equal(q, expect);
    for (const char *t = q; *t;) {
        const char *end = strchr(t, ' ');
        size_t n = end ? (size_t)(end - t) : strlen(t);
        if (lex_term_find(f->eng, t, n) < 0) fail_msg("'%.*s' is not in the index", (int)n, t);
        t += n + (end ? 1 : 0);
    }
    free(q);
    free(expect);
}

static void test_summary(void **state)
{
    expect_same_terms(*state, STORE_FIELD_SUMMARY, SUMMARY, "pleas get the user playlist",
                      "user playlist");
}

static void test_description(void **state)
{
    expect_same_terms(*state, STORE_FIELD_DESCRIPTION, DESCRIPTION,
                      "retriev the subscript of an account by it account id accountid and x "
                      "rate limit xratelimit",
                      "retriev subscript account account id accountid x rate limit xratelimit");
}

static void test_path(void **state)
{
    expect_same_terms(*state, STORE_FIELD_PATH, "/movie/{movie_id}/credits",
                      "movi movi id movieid credit", "movi movi id movieid credit");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_description),
        cmocka_unit_test(test_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
