/* Unit tests of cl100k token windows: exact bytes, sizes, overlaps, edge cases. */
#include "testutil.h"

#include "chunk/chunk.h"

#include <stdlib.h>
#include <string.h>

static void check_windows(const char *s, size_t size, size_t overlap)
{
    const text_bpe *bpe = text_bpe_default();
    assert_non_null(bpe);
    size_t n = strlen(s);
    uint32_t *ids = NULL;
    size_t n_ids = 0;
    assert_int_equal(text_bpe_encode(bpe, s, n, false, &ids, &n_ids), 0);
    chunk_window *w = NULL;
    size_t nw = 0;
    assert_int_equal(chunk_token_windows(bpe, s, n, size, overlap, &w, &nw), 0);
    assert_true(nw >= 1);
    assert_int_equal(w[0].tok_start, 0);
    assert_int_equal(w[0].byte_start, 0);
    assert_int_equal(w[nw - 1].tok_end, n_ids);
    assert_int_equal(w[nw - 1].byte_end, n);
    for (size_t k = 0; k < nw; k++) {
        size_t len = w[k].tok_end - w[k].tok_start;
        assert_true(len <= size);
        if (k + 1 < nw) assert_int_equal(len, size); /* only the last may be short */
        if (k) assert_int_equal(w[k].tok_start, w[k - 1].tok_end - overlap);
        /* A window's text is exactly the bytes of its tokens. */
        core_buf b;
        core_buf_init(&b, 0);
        char tmp[512];
        for (size_t t = w[k].tok_start; t < w[k].tok_end; t++) {
            size_t tl = text_bpe_decode_token(bpe, ids[t], tmp, sizeof tmp);
            assert_true(tl > 0);
            core_buf_append(&b, tmp, tl);
        }
        assert_int_equal(b.len, w[k].byte_end - w[k].byte_start);
        assert_memory_equal(b.data, s + w[k].byte_start, b.len);
        core_buf_free(&b);
    }
    /* The last window is the first to reach the end. */
    if (nw > 1) assert_true(w[nw - 2].tok_end < n_ids);
    free(w);
    free(ids);
}

static void test_windows(void **state)
{
    (void)state;
    const char *text =
        "{\"paths\":{\"/pets/{petId}\":{\"get\":{\"summary\":\"Info for a specific "
        "pet\",\"operationId\":\"showPetById\",\"responses\":{\"200\":{\"description\":"
        "\"Expected response to a valid request\"}}}}}} Ünïcödé ✓ 日本語のテキスト 🐶🐱";
    check_windows(text, 8, 0);
    check_windows(text, 8, 3);
    check_windows(text, 8, 7);
    check_windows(text, 1, 0);
    check_windows(text, 1000, 100);
    check_windows("x", 5, 2);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    const text_bpe *bpe = text_bpe_default();
    chunk_window *w = (chunk_window *)1;
    size_t nw = 9;
    assert_int_equal(chunk_token_windows(bpe, "abc", 3, 4, 4, &w, &nw), APIDEX_EINVAL);
    assert_int_equal(chunk_token_windows(bpe, "abc", 3, 0, 0, &w, &nw), APIDEX_EINVAL);
    assert_int_equal(chunk_token_windows(bpe, "", 0, 4, 1, &w, &nw), 0);
    assert_null(w);
    assert_int_equal(nw, 0);
}

static void test_names(void **state)
{
    (void)state;
    apidex_error err;
    for (int s = CHUNK_NOSPLIT; s <= CHUNK_HYBRID; s++) {
        chunk_strategy back;
        assert_int_equal(chunk_strategy_parse(chunk_strategy_name((chunk_strategy)s), &back, &err),
                         0);
        assert_int_equal(back, s);
    }
    chunk_strategy x;
    assert_int_equal(chunk_strategy_parse("bogus", &x, &err), APIDEX_EINVAL);
    assert_string_equal(chunk_type_name(CHUNK_TYPE_SCHEMA), "schema");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
