/*
 * Local encoder speed: throughput of a batch of equal-length sequences and the latency of one
 * short query (tokenizer included), on a model folder (bench/bench_embed.sh makes one with the
 * bge-small shape and random weights). Writes the token ids and embeddings it used so the
 * PyTorch baseline runs the very same inputs and can check it computes the same vectors.
 *
 *   bench_embed MODEL_DIR OUT_DIR [BATCH SEQ REPS THREADS]
 */
#include "embed/embed.h"
#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void write_ids(const char *path, uint32_t *const *ids, const size_t *lens, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s[", i ? "," : "");
        for (size_t t = 0; t < lens[i]; t++) fprintf(f, "%s%u", t ? "," : "", ids[i][t]);
        fputc(']', f);
    }
    fputs("]\n", f);
    fclose(f);
}

static void write_floats(const char *path, const float *v, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(v, sizeof *v, n, f) != n) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_embed MODEL_DIR OUT_DIR [BATCH SEQ REPS THREADS [bf16]]\n");
        return 2;
    }
    const char *dir = argv[1], *out = argv[2];
    size_t batch = argc > 3 ? strtoul(argv[3], NULL, 10) : 32;
    size_t seq = argc > 4 ? strtoul(argv[4], NULL, 10) : 128;
    int reps = argc > 5 ? atoi(argv[5]) : 5;
    int threads = argc > 6 ? atoi(argv[6]) : 2;
    bool bf16 = argc > 7 && !strcmp(argv[7], "bf16");
    const char *label = bf16 ? "apidex-bf16" : "apidex";
    apidex_error err = {0};
    embed_bert *m = NULL;
    embed_bert_options o = {.threads = threads, .batch_size = batch, .bf16 = bf16};
    if (embed_bert_open(dir, &o, &m, &err) != 0) {
        fprintf(stderr, "bench_embed: %s: %s\n", err.file, err.message);
        return 1;
    }
    const embed_bert_config *c = embed_bert_info(m);
    char path[4096];

    /* Batch throughput: batch sequences of exactly seq tokens ([CLS] random [SEP]). */
    uint32_t **ids = calloc(batch, sizeof *ids);
    size_t *lens = calloc(batch, sizeof *lens);
    uint32_t state = 42;
    for (size_t i = 0; i < batch; i++) {
        ids[i] = calloc(seq, sizeof **ids);
        lens[i] = seq;
        for (size_t t = 0; t < seq; t++) {
            state = state * 1664525u + 1013904223u;
            ids[i][t] = 1000 + (state >> 8) % (uint32_t)(c->vocab - 1000);
        }
        ids[i][0] = 101;
        ids[i][seq - 1] = 102;
    }
    float *emb = calloc(batch * c->hidden, sizeof *emb);
    double *times = calloc((size_t)reps, sizeof *times);
    embed_bert_encode_ids(m, (const uint32_t *const *)ids, lens, batch, emb, &err); /* warm-up */
    for (int r = 0; r < reps; r++) {
        double t0 = core_now();
        if (embed_bert_encode_ids(m, (const uint32_t *const *)ids, lens, batch, emb, &err) != 0) {
            fprintf(stderr, "bench_embed: %s\n", err.message);
            return 1;
        }
        times[r] = core_now() - t0;
    }
    double med = median(times, (size_t)reps);
    printf("%s batch %zux%zu: median %.3f s over %d runs, %.0f tokens/s (%d threads)\n", label,
           batch, seq, med, reps, (double)(batch * seq) / med, threads);
    snprintf(path, sizeof path, "%s/batch_ids.json", out);
    write_ids(path, ids, lens, batch);
    snprintf(path, sizeof path, "%s/batch_%s.f32", out, bf16 ? "apidex_bf16" : "apidex");
    write_floats(path, emb, batch * c->hidden);

    /* Single-query latency, text in: WordPiece + prefix + forward pass + pooling. */
    static const char *const queries[] = {
        "Who directed the top-1 rated movie?",
        "find the playlists of a user and add the most popular tracks of an artist to one of them",
    };
    for (size_t qi = 0; qi < 2; qi++) {
        const char *q = queries[qi];
        enum { QREPS = 60 };
        double lat[QREPS];
        float *qv = calloc(c->hidden, sizeof *qv);
        embed_bert_encode(m, &q, 1, true, qv, &err); /* warm-up */
        embed_stats before = embed_bert_stats(m);
        for (int r = 0; r < QREPS; r++) {
            double t0 = core_now();
            if (embed_bert_encode(m, &q, 1, true, qv, &err) != 0) {
                fprintf(stderr, "bench_embed: %s\n", err.message);
                return 1;
            }
            lat[r] = core_now() - t0;
        }
        size_t qtok = (size_t)((embed_bert_stats(m).tokens - before.tokens) / QREPS);
        printf("%s query latency (%zu tokens with prefix): median %.2f ms over %d runs\n", label,
               qtok, 1e3 * median(lat, QREPS), QREPS);
        free(qv);
        /* The ids for the baseline: the same tokens the encoder saw. */
        text_wordpiece *wp = NULL;
        snprintf(path, sizeof path, "%s/vocab.txt", dir);
        if (text_wordpiece_open(path, &wp, &err) == 0) {
            char joined[1024];
            snprintf(joined, sizeof joined, "%s%s", embed_bert_query_prefix(m), q);
            uint32_t *qids = NULL;
            size_t nq = 0;
            bool trunc;
            text_wordpiece_encode(wp, joined, strlen(joined), true, 512, &qids, &nq, &trunc);
            snprintf(path, sizeof path, "%s/query%zu_ids.json", out, qi);
            write_ids(path, &qids, &nq, 1);
            free(qids);
            text_wordpiece_close(wp);
        }
    }
    for (size_t i = 0; i < batch; i++) free(ids[i]);
    free(ids);
    free(lens);
    free(emb);
    free(times);
    embed_bert_close(m);
    return 0;
}
