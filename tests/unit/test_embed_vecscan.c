/* The exact dense scan: SIMD top-k (one query and batches, with and without threads) against a
   brute-force double-precision reference, including ties, k > n, odd dimensions, NaN rows. */
#include "testutil.h"

#include "embed/embed_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rng_state = 12345;

static float frand(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)((rng_state >> 8) / 16777216.0 * 2.0 - 1.0);
}

typedef struct ref_hit {
    double score;
    uint32_t row;
} ref_hit;

static int cmp_ref(const void *a, const void *b)
{
    const ref_hit *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* Checks hits against an exact ranking; scores within float error may swap places. */
static void check_hits(const float *mat, size_t n, size_t dim, const float *q, size_t k,
                       const embed_hit *hits, size_t got)
{
    ref_hit *ref = malloc(n * sizeof *ref);
    size_t valid = 0;
    for (size_t r = 0; r < n; r++) {
        double s = 0;
        for (size_t d = 0; d < dim; d++) s += (double)mat[r * dim + d] * q[d];
        if (s == s) ref[valid++] = (ref_hit){s, (uint32_t)r};
    }
    qsort(ref, valid, sizeof *ref, cmp_ref);
    size_t want = k < valid ? k : valid;
    assert_int_equal(got, want);
    for (size_t i = 0; i < got; i++) {
        assert_true(fabs(hits[i].score - ref[i].score) < 1e-4);
        if (i) assert_true(hits[i - 1].score >= hits[i].score);
        double s = 0;
        for (size_t d = 0; d < dim; d++) s += (double)mat[hits[i].row * dim + d] * q[d];
        assert_true(fabs(s - hits[i].score) < 1e-4);
    }
    free(ref);
}

static void run_case(size_t n, size_t dim, size_t k, embed_pool *pool)
{
    float *mat = malloc(n * dim * sizeof *mat);
    enum { NQ = 9 };
    float *q = malloc(NQ * dim * sizeof *q);
    for (size_t i = 0; i < n * dim; i++) mat[i] = frand();
    for (size_t i = 0; i < NQ * dim; i++) q[i] = frand();
    for (size_t r = 0; r < n; r++) embed_l2_normalize(mat + r * dim, dim);
    embed_hit *hits = calloc(NQ * (k ? k : 1), sizeof *hits);
    for (size_t j = 0; j < 2; j++) {
        size_t got = embed_vecscan_topk(mat, n, dim, q + j * dim, k, pool, hits);
        check_hits(mat, n, dim, q + j * dim, k, hits, got);
    }
    size_t per = embed_vecscan_topk_batch(mat, n, dim, q, NQ, k, pool, hits);
    for (size_t j = 0; j < NQ; j++) check_hits(mat, n, dim, q + j * dim, k, hits + j * k, per);
    free(hits);
    free(q);
    free(mat);
}

static void test_matches_brute_force(void **state)
{
    (void)state;
    embed_pool *pool = embed_pool_new(3);
    assert_non_null(pool);
    assert_int_equal(embed_pool_threads(pool), 3);
    static const size_t shapes[][3] = {{1, 1, 1},       {5, 3, 10},     {100, 384, 10},
                                       {1000, 17, 5},   {5000, 384, 1}, {20000, 64, 50},
                                       {4097, 31, 100}, {3, 16, 0}};
    /* every kernel this CPU can run: scalar, then avx2 and avx512, or neon (level 4) */
    int levels[4] = {1}, nlevels = 1;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) levels[nlevels++] = 2;
    if (__builtin_cpu_supports("avx512f")) levels[nlevels++] = 3;
#elif defined(__aarch64__)
    levels[nlevels++] = 4;
#endif
    for (int li = 0; li < nlevels; li++) {
        embed_vecscan_force_level(levels[li]);
        print_message("vecscan level %s\n", embed_simd_name());
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            run_case(shapes[i][0], shapes[i][1], shapes[i][2], NULL);
            run_case(shapes[i][0], shapes[i][1], shapes[i][2], pool);
        }
    }
    embed_vecscan_force_level(0);
#if defined(__aarch64__)
    assert_string_equal(embed_simd_name(), "neon"); /* chosen without being forced */
#endif
    embed_pool_free(pool);
    embed_pool_free(NULL);
    print_message("simd: %s\n", embed_simd_name());
}

static void test_ties_and_nan(void **state)
{
    (void)state;
    enum { N = 9000, D = 8 };
    float *mat = calloc(N * D, sizeof *mat);
    /* Every row scores 1 except a few: ties must rank the lower row first. */
    for (size_t r = 0; r < N; r++) mat[r * D] = 1.0f;
    mat[7000 * D] = 2.0f;
    mat[8999 * D] = 3.0f;
    mat[5 * D] = NAN;
    float q[D] = {1};
    embed_pool *pool = embed_pool_new(2);
    embed_hit hits[5];
    for (int use_pool = 0; use_pool < 2; use_pool++) {
        size_t got = embed_vecscan_topk(mat, N, D, q, 5, use_pool ? pool : NULL, hits);
        assert_int_equal(got, 5);
        assert_int_equal(hits[0].row, 8999);
        assert_int_equal(hits[1].row, 7000);
        assert_int_equal(hits[2].row, 0);
        assert_int_equal(hits[3].row, 1);
        assert_int_equal(hits[4].row, 2); /* row 5 (NaN) never ranks */
    }
    float qs[8 * D] = {0};
    for (int j = 0; j < 8; j++) qs[j * D] = 1;
    embed_hit bh[8 * 5];
    assert_int_equal(embed_vecscan_topk_batch(mat, N, D, qs, 8, 5, pool, bh), 5);
    for (int j = 0; j < 8; j++) {
        assert_int_equal(bh[j * 5].row, 8999);
        assert_int_equal(bh[j * 5 + 2].row, 0);
        assert_int_equal(bh[j * 5 + 4].row, 2);
    }
    assert_int_equal(embed_vecscan_topk(mat, 0, D, q, 5, pool, hits), 0);
    embed_pool_free(pool);
    free(mat);
}

static void test_dot_and_normalize(void **state)
{
    (void)state;
    for (size_t dim = 1; dim < 100; dim += 7) {
        float a[100], b[100];
        double want = 0;
        for (size_t i = 0; i < dim; i++) {
            a[i] = frand();
            b[i] = frand();
            want += (double)a[i] * b[i];
        }
        assert_true(fabs(embed_dot(a, b, dim) - want) < 1e-5);
        embed_l2_normalize(a, dim);
        assert_true(fabs(embed_dot(a, a, dim) - 1.0) < 1e-5);
    }
    float z[4] = {0};
    embed_l2_normalize(z, 4);
    assert_true(z[0] == 0.0f);
}

/* The pool runs every task exactly once, from any thread count. */
static void count_task(void *ctx, size_t task, int worker)
{
    (void)worker;
    int *hits = ctx;
    __atomic_add_fetch(&hits[task], 1, __ATOMIC_RELAXED);
}

static void test_pool(void **state)
{
    (void)state;
    for (int threads = 1; threads <= 4; threads++) {
        embed_pool *p = embed_pool_new(threads);
        for (int round = 0; round < 200; round++) {
            int hits[37] = {0};
            size_t n = (size_t)(round % 37) + 1;
            embed_pool_run(p, n, count_task, hits);
            for (size_t i = 0; i < 37; i++) assert_int_equal(hits[i], i < n ? 1 : 0);
        }
        embed_pool_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_brute_force),
        cmocka_unit_test(test_ties_and_nan),
        cmocka_unit_test(test_dot_and_normalize),
        cmocka_unit_test(test_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
