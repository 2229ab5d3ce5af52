/* search_order_by_score (src/search/answer.c): the radix sort gives exactly the order
   qsort_r with search_cmp_score_desc gives (score descending, ties by index), on arrays
   with ties, zeros of both signs, negative scores and sizes on both sides of the cut-over;
   indexes that do not come ascending, and NaN scores, take qsort_r. search_order_first
   (rank_run's order: the first k now, the rest when read) ends in that same order. */
#include "testutil.h"

#include "search/search_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A score from a small set (many ties), a wide range, or a special value. */
static double draw(int kind)
{
    uint64_t r = next();
    switch (kind) {
    case 0:
        return (double)(r % 7) / 4.0;
    case 1:
        return ldexp((double)(r % 1000003), (int)(r >> 40) % 80 - 40);
    default: {
        static const double special[] = {0.0, -0.0, -1.5, 1e-300, -1e300, 3.25, 3.25, 1.0};
        return special[r % 8];
    }
    }
}

static void check(size_t n, size_t m, int kind, bool ascending)
{
    double *score = malloc(n * sizeof *score);
    uint32_t *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b);
    assert_non_null(score);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++) score[i] = draw(kind);
    for (size_t i = 0; i < m; i++) a[i] = (uint32_t)(ascending ? i * (n / m) : next() % n);
    memcpy(b, a, m * sizeof *a);
    qsort_r(b, m, sizeof *b, search_cmp_score_desc, score);
    search_order_by_score(a, m, score);
    for (size_t i = 0; i < m; i++) {
        if (a[i] != b[i])
            fail_msg("n %zu m %zu kind %d: position %zu is %u, not %u", n, m, kind, i, a[i], b[i]);
    }
    free(score);
    free(a);
    free(b);
}

static void test_same_order_as_qsort(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 255, 256, 257, 1000, 4096, 70000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int kind = 0; kind < 3; kind++) {
            size_t m = sizes[s];
            check(m ? 2 * m : 1, m, kind, true);
            check(m ? 2 * m : 1, m, kind, false);
        }
}

static void test_nan_falls_back(void **state)
{
    (void)state;
    size_t m = 1000;
    double *score = malloc(m * sizeof *score);
    uint32_t *a = malloc(m * sizeof *a);
    assert_non_null(score);
    assert_non_null(a);
    for (size_t i = 0; i < m; i++) {
        score[i] = i == 500 ? NAN : (double)(m - i);
        a[i] = (uint32_t)i;
    }
    search_order_by_score(a, m, score);
    /* whatever qsort_r makes of the NaN, the other scores stay in order around it */
    size_t seen = 0;
    for (size_t i = 0; i < m; i++) seen += a[i] < m;
    assert_int_equal(seen, m);
    free(score);
    free(a);
}

/* The first k by search_order_first, then the rest by search_order_by_score: the order
   the whole sort makes, for every k, size and kind of scores. */
static void check_first(size_t n, size_t m, size_t k, int kind)
{
    double *score = malloc(n * sizeof *score);
    uint32_t *a = malloc((m ? m : 1) * sizeof *a), *b = malloc((m ? m : 1) * sizeof *b);
    assert_non_null(score);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++) score[i] = draw(kind);
    for (size_t i = 0; i < m; i++) a[i] = b[i] = (uint32_t)(i * (n / m));
    search_order_by_score(b, m, score);
    size_t sorted = search_order_first(a, m, score, k);
    assert_true(sorted == m || sorted == k);
    for (size_t i = sorted; i + 1 < m; i++) assert_true(a[i] < a[i + 1]); /* rest: ascending */
    search_order_by_score(a + sorted, m - sorted, score);
    for (size_t i = 0; i < m; i++) {
        if (a[i] != b[i])
            fail_msg("n %zu m %zu k %zu kind %d: position %zu is %u, not %u", n, m, k, kind, i,
                     a[i], b[i]);
    }
    free(score);
    free(a);
    free(b);
}

static void test_first_then_rest(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 100, 255, 256, 257, 1000, 4096, 70000};
    static const size_t ks[] = {1, 2, 63, 64, 65, 300};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++)
            for (int kind = 0; kind < 3; kind++)
                check_first(sizes[s] ? 2 * sizes[s] : 1, sizes[s], ks[j], kind);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_order_as_qsort),
        cmocka_unit_test(test_nan_falls_back),
        cmocka_unit_test(test_first_then_rest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
