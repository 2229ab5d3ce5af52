/*
 * Dense search speed: exact top-k by inner product over a float matrix (bench_vecscan.sh
 * writes 100,000 random unit vectors of 384-d and 1,000 queries), one query per call and all
 * queries in one call. Writes its hits so the FAISS baseline can check it finds the same rows.
 *
 *   bench_vecscan MATRIX.f32 QUERIES.f32 N DIM NQ K THREADS HITS_OUT
 */
#include "embed/embed.h"

#include <stdio.h>
#include <stdlib.h>

static float *load(const char *path, size_t n)
{
    float *v = malloc(n * sizeof *v);
    FILE *f = fopen(path, "rb");
    if (!v || !f || fread(v, sizeof *v, n, f) != n) {
        fprintf(stderr, "bench_vecscan: cannot read %zu floats from %s\n", n, path);
        exit(1);
    }
    fclose(f);
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 9) {
        fprintf(stderr, "usage: bench_vecscan MATRIX QUERIES N DIM NQ K THREADS HITS_OUT\n");
        return 2;
    }
    size_t n = strtoul(argv[3], NULL, 10), dim = strtoul(argv[4], NULL, 10);
    size_t nq = strtoul(argv[5], NULL, 10), k = strtoul(argv[6], NULL, 10);
    int threads = atoi(argv[7]);
    float *mat = load(argv[1], n * dim), *q = load(argv[2], nq * dim);
    embed_pool *pool = embed_pool_new(threads);
    embed_hit *hits = calloc(nq * k, sizeof *hits);
    enum { REPS = 3 };
    double single[REPS], batch[REPS];
    embed_vecscan_topk(mat, n, dim, q, k, pool, hits); /* warm-up: page in the matrix */
    for (int r = 0; r < REPS; r++) {
        double t0 = core_now();
        for (size_t i = 0; i < nq; i++)
            embed_vecscan_topk(mat, n, dim, q + i * dim, k, pool, hits + i * k);
        single[r] = core_now() - t0;
    }
    FILE *f = fopen(argv[8], "wb");
    for (size_t i = 0; i < nq * k; i++) fwrite(&hits[i].row, sizeof hits[i].row, 1, f);
    fclose(f);
    for (int r = 0; r < REPS; r++) {
        double t0 = core_now();
        embed_vecscan_topk_batch(mat, n, dim, q, nq, k, pool, hits);
        batch[r] = core_now() - t0;
    }
    qsort(single, REPS, sizeof(double), cmp_double);
    qsort(batch, REPS, sizeof(double), cmp_double);
    printf("apidex vecscan one query per call: %.0f queries/s (median of %d, %s, %d threads)\n",
           (double)nq / single[REPS / 2], REPS, embed_simd_name(), embed_pool_threads(pool));
    printf("apidex vecscan %zu queries per call: %.0f queries/s\n", nq,
           (double)nq / batch[REPS / 2]);
    embed_pool_free(pool);
    free(hits);
    free(mat);
    free(q);
    return 0;
}
