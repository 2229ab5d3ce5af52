/* Benchmark of the cl100k BPE: encode (and count) a text file several times and print
 * the median throughput. bench/bench_bpe.sh runs it next to the npm tiktoken baseline.
 *
 *   bench_bpe FILE [REPEATS]
 */
#include "core/core.h"
#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_bpe FILE [REPEATS]\n");
        return 2;
    }
    int repeats = argc > 2 ? atoi(argv[2]) : 7;
    if (repeats < 1 || repeats > 1000) repeats = 7;
    apidex_error err;
    char *text = NULL;
    size_t len = 0;
    if (core_file_read(argv[1], (size_t)1 << 30, &text, &len, &err) != 0) {
        fprintf(stderr, "bench_bpe: %s\n", err.message);
        return 1;
    }
    double t0 = core_now();
    text_bpe *bpe = NULL;
    if (text_bpe_open(&bpe, &err) != 0) {
        fprintf(stderr, "bench_bpe: %s\n", err.message);
        return 1;
    }
    double open_ms = (core_now() - t0) * 1e3;

    double *enc = calloc((size_t)repeats, sizeof *enc), *cnt = calloc((size_t)repeats, sizeof *cnt);
    if (!enc || !cnt) return 1;
    size_t n_ids = 0, n_count = 0;
    for (int r = 0; r < repeats; r++) {
        uint32_t *ids = NULL;
        t0 = core_now();
        if (text_bpe_encode(bpe, text, len, false, &ids, &n_ids) != 0) {
            fprintf(stderr, "bench_bpe: encode failed\n");
            return 1;
        }
        enc[r] = (double)len / 1e6 / (core_now() - t0);
        free(ids);
        t0 = core_now();
        n_count = text_bpe_count(bpe, text, len);
        cnt[r] = (double)len / 1e6 / (core_now() - t0);
    }
    /* One machine-readable line per measurement (bench_bpe.sh parses "encode"). */
    printf("apidex cl100k open: %.1f ms\n", open_ms);
    printf("apidex cl100k encode: %.2f MB/s median of %d, %zu bytes, %zu tokens\n",
           median(enc, (size_t)repeats), repeats, len, n_ids);
    printf("apidex cl100k count: %.2f MB/s median of %d, %zu tokens\n",
           median(cnt, (size_t)repeats), repeats, n_count);
    free(enc);
    free(cnt);
    text_bpe_close(bpe);
    free(text);
    return n_ids == n_count ? 0 : 1;
}
