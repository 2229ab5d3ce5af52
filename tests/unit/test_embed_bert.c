/* The local BERT encoder against an independent numpy implementation (tests/embed/ref_bert.py)
   on small random models written by tests/embed/gen_bert.py, plus its refusals of bad folders. */
#include "testutil.h"

#include "embed/embed_int.h"
#include "text/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PY "/usr/bin/python3"

static bool have_numpy(void)
{
    return system(PY " -c 'import numpy' >/dev/null 2>&1") == 0;
}

#define REQUIRE_NUMPY()                                                                            \
    do {                                                                                           \
        if (!have_numpy()) {                                                                       \
            print_message("/usr/bin/python3 with numpy not found: skipped\n");                     \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

static char *gen_model(const char *tmp, const char *name, const char *args)
{
    char *dir = tu_path(tmp, name);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, PY " '%s/tests/embed/gen_bert.py' --out '%s' %s", tu_source_dir(),
             dir, args);
    assert_int_equal(system(cmd), 0);
    return dir;
}

/* Deterministic token sequences: [CLS] body [SEP] with ids from a fixed LCG. */
static uint32_t **make_ids(const size_t *lens, size_t n, uint32_t vocab, uint32_t seed)
{
    uint32_t **ids = calloc(n, sizeof *ids);
    uint32_t state = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        ids[i] = calloc(lens[i], sizeof **ids);
        for (size_t t = 0; t < lens[i]; t++) {
            state = state * 1664525u + 1013904223u;
            ids[i][t] = 5 + (state >> 8) % (vocab - 5);
        }
        ids[i][0] = 2;                            /* [CLS] */
        if (lens[i] > 1) ids[i][lens[i] - 1] = 3; /* [SEP] */
    }
    return ids;
}

static void free_ids(uint32_t **ids, size_t n)
{
    for (size_t i = 0; i < n; i++) free(ids[i]);
    free(ids);
}

/* Runs the numpy reference on ids (padded batches of `batch`) and returns n * dim floats. */
static float *reference(const char *tmp, const char *model, uint32_t **ids, const size_t *lens,
                        size_t n, size_t dim, int batch)
{
    char *ids_path = tu_path(tmp, "ids.json");
    char *out_path = tu_path(tmp, "ref.f32");
    FILE *f = fopen(ids_path, "w");
    assert_non_null(f);
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s[", i ? "," : "");
        for (size_t t = 0; t < lens[i]; t++) fprintf(f, "%s%u", t ? "," : "", ids[i][t]);
        fputc(']', f);
    }
    fputc(']', f);
    fclose(f);
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             PY " '%s/tests/embed/ref_bert.py' --model '%s' --ids '%s' --out '%s' --batch %d",
             tu_source_dir(), model, ids_path, out_path, batch);
    assert_int_equal(system(cmd), 0);
    float *ref = malloc(n * dim * sizeof *ref);
    f = fopen(out_path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(ref, sizeof *ref, n * dim, f), n * dim);
    fclose(f);
    free(ids_path);
    free(out_path);
    return ref;
}

static float max_abs_diff(const float *a, const float *b, size_t n)
{
    float m = 0;
    for (size_t i = 0; i < n; i++) {
        float d = fabsf(a[i] - b[i]);
        if (!(d <= m)) m = d; /* NaN propagates as a failure */
    }
    return m;
}

typedef struct model_case {
    const char *name, *args;
    size_t lens[8];
    size_t n;
} model_case;

static void check_case(const model_case *mc)
{
    char *tmp = tu_tempdir();
    char *dir = gen_model(tmp, mc->name, mc->args);
    apidex_error err = {0};
    embed_bert *m = NULL;
    embed_bert_options opt = {.threads = 2};
    int rc = embed_bert_open(dir, &opt, &m, &err);
    if (rc) fail_msg("%s: %s (%s)", mc->name, err.message, err.file);
    const embed_bert_config *cfg = embed_bert_info(m);
    size_t dim = cfg->hidden;
    uint32_t **ids = make_ids(mc->lens, mc->n, (uint32_t)cfg->vocab, 7);
    float *ref = reference(tmp, dir, ids, mc->lens, mc->n, dim, 3);
    float *out = calloc(mc->n * dim, sizeof *out);
    assert_int_equal(
        embed_bert_encode_ids(m, (const uint32_t *const *)ids, mc->lens, mc->n, out, &err), 0);
    float d = max_abs_diff(out, ref, mc->n * dim);
    print_message("%s: max |C - numpy| = %.3g over %zu x %zu\n", mc->name, d, mc->n, dim);
    assert_true(d <= 1e-4f);
    /* Under QEMU (tu_emulated_cpu) a 12-layer model encodes many times slower (minutes):
       there the bge-sized cases check the batch above only (the small ones check the rest). */
    bool quick = tu_emulated_cpu() && dim >= 384;

    /* Another batch size, one thread: each text's vector must not depend on its batch-mates. */
    embed_bert *m1 = NULL;
    embed_bert_options opt1 = {.threads = 1, .batch_size = 2};
    assert_int_equal(embed_bert_open(dir, &opt1, &m1, &err), 0);
    float *out1 = calloc(mc->n * dim, sizeof *out1);
    if (!quick) {
        assert_int_equal(
            embed_bert_encode_ids(m1, (const uint32_t *const *)ids, mc->lens, mc->n, out1, &err),
            0);
        assert_true(max_abs_diff(out1, ref, mc->n * dim) <= 1e-4f);
        /* One at a time gives the same rows too. */
        for (size_t i = 0; i < mc->n; i++) {
            float *one = calloc(dim, sizeof *one);
            const uint32_t *p = ids[i];
            assert_int_equal(embed_bert_encode_ids(m1, &p, &mc->lens[i], 1, one, &err), 0);
            assert_true(max_abs_diff(one, ref + i * dim, dim) <= 1e-4f);
            free(one);
        }
        embed_stats st = embed_bert_stats(m1);
        assert_int_equal(st.texts, 2 * mc->n);
    }

    free(out1);
    embed_bert_close(m1);
    free(out);
    free(ref);
    free_ids(ids, mc->n);
    embed_bert_close(m);
    tu_rmtree(tmp);
    free(dir);
    free(tmp);
}

static void test_matches_numpy_small(void **state)
{
    (void)state;
    REQUIRE_NUMPY();
    static const model_case cases[] = {
        {"h32-l1-f32-cls",
         "--hidden 32 --layers 1 --heads 2 --vocab 200 --max-pos 512 --pooling cls --normalize 1",
         {512, 1, 2, 17, 64, 3, 100},
         7},
        {"h64-l3-f16-mean",
         "--hidden 64 --layers 3 --heads 4 --intermediate 256 --dtype f16 --pooling mean "
         "--normalize 0 --prefix bert. --ln-names gamma --pooling-style mode --seed 2",
         {40, 7, 7, 2, 33, 1},
         6},
        {"h128-l2-bf16-cls",
         "--hidden 128 --layers 2 --heads 8 --dtype bf16 --pooling cls --normalize 0 --seed 3",
         {9, 128, 31, 4},
         4},
        {"h96-l4-f32-mean",
         "--hidden 96 --layers 4 --heads 3 --intermediate 200 --pooling mean --normalize 1 "
         "--seed 4 --eps 1e-5",
         {5, 60, 61, 20, 2},
         5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_case(&cases[i]);
}

/* The bge-small shape: hidden 384, 12 layers, 12 heads, ffn 1536. */
static void test_matches_numpy_bge_shape(void **state)
{
    (void)state;
    REQUIRE_NUMPY();
    static const model_case c = {
        "h384-l12-f32-cls",
        "--hidden 384 --layers 12 --heads 12 --intermediate 1536 --vocab 1000 --max-pos 512 "
        "--pooling cls --normalize 1 --scale 0.05 --seed 5",
        {128, 77, 33, 9, 2},
        5};
    check_case(&c);
    if (tu_emulated_cpu()) return; /* f16 weights: checked on the small models */
    static const model_case f16 = {
        "h384-l12-f16-mean",
        "--hidden 384 --layers 12 --heads 12 --intermediate 1536 --vocab 1000 --max-pos 512 "
        "--pooling mean --normalize 1 --scale 0.05 --dtype f16 --seed 6",
        {50, 3, 21},
        3};
    check_case(&f16);
}

/* Text in: WordPiece ids, the bge query prefix, truncation counts. */
static void test_text_path(void **state)
{
    (void)state;
    REQUIRE_NUMPY();
    char *tmp = tu_tempdir();
    char *dir = gen_model(tmp, "bge-tiny-en-v1.5",
                          "--hidden 32 --layers 2 --heads 4 --vocab 300 --max-pos 64 --seed 9");
    apidex_error err = {0};
    embed_bert *m = NULL;
    embed_bert_options opt = {.threads = 2, .max_tokens = 16};
    assert_int_equal(embed_bert_open(dir, &opt, &m, &err), 0);
    assert_string_equal(embed_bert_query_prefix(m), EMBED_BGE_QUERY_PREFIX);

    char *vocab = tu_path(dir, "vocab.txt");
    text_wordpiece *wp = NULL;
    assert_int_equal(text_wordpiece_open(vocab, &wp, &err), 0);
    const char *texts[] = {"list the top rated movies", "who directed it?", "",
                           "a b c d e f g h i j k l m n o p q r s t u v w x y z"};
    size_t n = sizeof texts / sizeof texts[0], dim = 32;
    float *got = calloc(n * dim, sizeof *got), *want = calloc(n * dim, sizeof *want);
    for (int q = 0; q < 2; q++) {
        assert_int_equal(embed_bert_encode(m, texts, n, q == 1, got, &err), 0);
        for (size_t i = 0; i < n; i++) {
            char joined[512];
            snprintf(joined, sizeof joined, "%s%s", q ? EMBED_BGE_QUERY_PREFIX : "", texts[i]);
            uint32_t *ids = NULL;
            size_t nids = 0;
            bool trunc = false;
            assert_int_equal(
                text_wordpiece_encode(wp, joined, strlen(joined), true, 16, &ids, &nids, &trunc),
                0);
            const uint32_t *p = ids;
            assert_int_equal(embed_bert_encode_ids(m, &p, &nids, 1, want + i * dim, &err), 0);
            free(ids);
        }
        assert_true(max_abs_diff(got, want, n * dim) <= 1e-6f);
    }
    /* Queries differ from passages (the prefix is there). */
    float *pass = calloc(dim, sizeof *pass), *query = calloc(dim, sizeof *query);
    assert_int_equal(embed_bert_encode(m, texts, 1, false, pass, &err), 0);
    assert_int_equal(embed_bert_encode(m, texts, 1, true, query, &err), 0);
    assert_true(max_abs_diff(pass, query, dim) > 1e-3f);
    /* Unit vectors (modules.json has Normalize). */
    assert_true(fabsf(embed_dot(pass, pass, dim) - 1.0f) < 1e-5f);
    /* Truncation: the alphabet text has 28 tokens > 16, once as a passage, once as a query. */
    embed_stats st = embed_bert_stats(m);
    assert_int_equal(st.truncated, 2);

    /* An explicit empty prefix turns it off; tokenizer.json works as well as vocab.txt. */
    embed_bert *m2 = NULL;
    char *dir2 = gen_model(tmp, "json-tok",
                           "--hidden 32 --layers 1 --heads 2 --vocab 300 "
                           "--tokenizer json --seed 9");
    embed_bert_options opt2 = {.threads = 1, .query_prefix = ""};
    assert_int_equal(embed_bert_open(dir2, &opt2, &m2, &err), 0);
    assert_string_equal(embed_bert_query_prefix(m2), "");
    assert_int_equal(embed_bert_encode(m2, texts, n, true, got, &err), 0);

    embed_bert_close(m2);
    text_wordpiece_close(wp);
    free(pass);
    free(query);
    free(got);
    free(want);
    free(vocab);
    embed_bert_close(m);
    tu_rmtree(tmp);
    free(dir);
    free(dir2);
    free(tmp);
}

/* ---------------------------------------------------------------- refusals */

static void expect_open_error(const char *dir, int code, const char *needle, const char *file_part)
{
    apidex_error err = {0};
    embed_bert *m = NULL;
    int rc = embed_bert_open(dir, NULL, &m, &err);
    if (rc != code || !strstr(err.message, needle) || !strstr(err.file, file_part))
        fail_msg("expected %d '%s' in %s, got %d '%s' (%s)", code, needle, file_part, rc,
                 err.message, err.file);
    assert_null(m);
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n) assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
}

static char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)sz + 1);
    assert_int_equal(fread(p, 1, (size_t)sz, f), (size_t)sz);
    p[sz] = 0;
    fclose(f);
    *n = (size_t)sz;
    return p;
}

static void replace_in_file(const char *path, const char *from, const char *to)
{
    size_t n;
    char *s = read_all(path, &n);
    char *at = strstr(s, from);
    assert_non_null(at);
    FILE *f = fopen(path, "wb");
    fwrite(s, 1, (size_t)(at - s), f);
    fputs(to, f);
    fputs(at + strlen(from), f);
    fclose(f);
    free(s);
}

static void test_refuses_bad_folders(void **state)
{
    (void)state;
    REQUIRE_NUMPY();
    char *tmp = tu_tempdir();
    char *good = gen_model(tmp, "good", "--hidden 32 --layers 1 --heads 2 --vocab 200");
    char *weights = tu_path(good, "model.safetensors");
    size_t wlen;
    char *wdata = read_all(weights, &wlen);
    char *config = tu_path(good, "config.json");
    size_t clen;
    char *cdata = read_all(config, &clen);
    char *pool = tu_path(good, "1_Pooling/config.json");
    size_t plen;
    char *pdata = read_all(pool, &plen);

    expect_open_error("/nonexistent/model", APIDEX_ENOTFOUND, "not found", "/nonexistent/model");

    /* Missing files. */
    unlink(config);
    expect_open_error(good, APIDEX_ENOTFOUND, "missing config.json", "config.json");
    write_bytes(config, cdata, clen);
    unlink(weights);
    expect_open_error(good, APIDEX_ENOTFOUND, "missing model.safetensors", "model.safetensors");
    char *vocab = tu_path(good, "vocab.txt");
    size_t vlen;
    write_bytes(weights, wdata, wlen);
    char *vdata = read_all(vocab, &vlen);
    unlink(vocab);
    expect_open_error(good, APIDEX_ENOTFOUND, "no tokenizer", "good");
    write_bytes(vocab, vdata, vlen);

    /* Truncated weights: the header survives, the data does not. */
    write_bytes(weights, wdata, wlen - 100);
    expect_open_error(good, APIDEX_EPARSE, "outside the file", "model.safetensors");
    /* Truncated inside the header. */
    write_bytes(weights, wdata, 40);
    expect_open_error(good, APIDEX_EPARSE, "header", "model.safetensors");
    /* Shorter than the length field. */
    write_bytes(weights, wdata, 5);
    expect_open_error(good, APIDEX_EPARSE, "8-byte", "model.safetensors");
    /* A huge header length. */
    {
        char *bad = malloc(wlen);
        memcpy(bad, wdata, wlen);
        uint64_t huge = (uint64_t)1 << 60;
        for (int i = 0; i < 8; i++) bad[i] = (char)(huge >> (8 * i));
        write_bytes(weights, bad, wlen);
        expect_open_error(good, APIDEX_EPARSE, "implausibly large", "model.safetensors");
        free(bad);
    }
    write_bytes(weights, wdata, wlen);

    /* Shapes that disagree with config.json. */
    replace_in_file(config, "\"intermediate_size\": 128", "\"intermediate_size\": 64");
    expect_open_error(good, APIDEX_ESPEC, "has shape [128, 32], config.json implies [64, 32]",
                      "model.safetensors");
    write_bytes(config, cdata, clen);
    replace_in_file(config, "\"num_attention_heads\": 2", "\"num_attention_heads\": 5");
    expect_open_error(good, APIDEX_ESPEC, "multiple of num_attention_heads", "config.json");
    write_bytes(config, cdata, clen);
    replace_in_file(config, "\"hidden_act\": \"gelu\"", "\"hidden_act\": \"relu\"");
    expect_open_error(good, APIDEX_EUNSUPPORTED, "hidden_act 'relu'", "config.json");
    write_bytes(config, cdata, clen);
    replace_in_file(config, "\"hidden_size\": 32", "\"hidden_size\": -3");
    expect_open_error(good, APIDEX_ESPEC, "hidden_size", "config.json");
    write_bytes(config, cdata, clen);
    write_bytes(config, "{\"hidden_size\": ", 16);
    expect_open_error(good, APIDEX_EPARSE, "not valid JSON", "config.json");
    write_bytes(config, cdata, clen);

    /* Unsupported pooling. */
    replace_in_file(pool, "\"pooling_mode_max_tokens\": false",
                    "\"pooling_mode_max_tokens\": true");
    replace_in_file(pool, "\"pooling_mode_cls_token\": true", "\"pooling_mode_cls_token\": false");
    expect_open_error(good, APIDEX_EUNSUPPORTED, "pooling", "1_Pooling/config.json");
    write_bytes(pool, pdata, plen);

    /* A weight stored as an integer dtype. */
    {
        char *dt = tu_path(tmp, "dtype");
        char *args_dir = gen_model(tmp, "dtype", "--hidden 32 --layers 1 --heads 2 --vocab 200");
        char *w = tu_path(args_dir, "model.safetensors");
        size_t n;
        char *d = read_all(w, &n);
        /* Same byte size, other dtype: the word embeddings as I32 instead of F32. */
        char *at = strstr(d + 8, "\"embeddings.word_embeddings.weight\":{\"dtype\":\"F32\"");
        assert_non_null(at);
        memcpy(strstr(at, "F32"), "I32", 3);
        write_bytes(w, d, n);
        expect_open_error(args_dir, APIDEX_EUNSUPPORTED, "dtype I32", "model.safetensors");
        free(d);
        free(w);
        free(args_dir);
        free(dt);
    }

    /* And the pristine folder still opens. */
    apidex_error err = {0};
    embed_bert *m = NULL;
    assert_int_equal(embed_bert_open(good, NULL, &m, &err), 0);
    /* Token ids outside the vocabulary and empty sequences are refused. */
    uint32_t bad_ids[] = {2, 100000, 3};
    const uint32_t *p = bad_ids;
    size_t len = 3;
    float out[32];
    assert_int_equal(embed_bert_encode_ids(m, &p, &len, 1, out, &err), APIDEX_EINVAL);
    len = 0;
    assert_int_equal(embed_bert_encode_ids(m, &p, &len, 1, out, &err), APIDEX_EINVAL);
    embed_bert_close(m);
    embed_bert_close(NULL);

    free(vdata);
    free(vocab);
    free(wdata);
    free(cdata);
    free(pdata);
    free(weights);
    free(config);
    free(pool);
    tu_rmtree(tmp);
    free(good);
    free(tmp);
}

/* ---------------------------------------------------------------- kernels */

static void test_kernels(void **state)
{
    (void)state;
    for (int pass = 0; pass < 2; pass++) {
        embed_k_force_scalar(pass == 1);
        enum { N = 2001 };
        float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
        for (int i = 0; i < N; i++) x[i] = -9.0f + 18.0f * (float)i / (N - 1);
        embed_k_erf(x, y, N);
        for (int i = 0; i < N; i++) assert_true(fabs(y[i] - erf(x[i])) < 1e-6);
        for (int i = 0; i < N; i++) x[i] = -80.0f + 100.0f * (float)i / (N - 1);
        embed_k_exp(x, y, N);
        for (int i = 0; i < N; i++) assert_true(fabs(y[i] / exp(x[i]) - 1.0) < 1e-6);
        /* GELU with bias on a ragged block (tails of every width). */
        float bias[13], blk[3 * 13];
        for (int c = 0; c < 13; c++) bias[c] = 0.1f * (float)c - 0.6f;
        for (int i = 0; i < 3 * 13; i++) blk[i] = 0.37f * (float)i - 7.0f;
        float want[3 * 13];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 13; c++)
                want[r * 13 + c] = embed_k_gelu_ref(blk[r * 13 + c] + bias[c]);
        embed_k_bias_gelu(blk, bias, 3, 13, 13);
        for (int i = 0; i < 3 * 13; i++) assert_true(fabsf(blk[i] - want[i]) < 1e-6f);
        /* Softmax rows sum to 1 and keep order. */
        float sm[2 * 11];
        for (int i = 0; i < 22; i++) sm[i] = (float)(i % 11) - 3.0f;
        embed_k_softmax_rows(sm, 2, 11, 11);
        for (int r = 0; r < 2; r++) {
            double s = 0;
            for (int c = 0; c < 11; c++) s += sm[r * 11 + c];
            assert_true(fabs(s - 1.0) < 1e-6);
            assert_true(fabsf(sm[r * 11 + 10] / sm[r * 11 + 9] - expf(1.0f)) < 1e-4f);
        }
        /* LayerNorm: zero mean, unit variance before the affine part. */
        float v[37], g[37], b[37];
        for (int i = 0; i < 37; i++) {
            v[i] = (float)(i * i % 17) + 0.5f;
            g[i] = 1;
            b[i] = 0;
        }
        embed_k_layernorm(v, g, b, 37, 1e-12f);
        double mean = 0, var = 0;
        for (int i = 0; i < 37; i++) mean += v[i];
        mean /= 37;
        for (int i = 0; i < 37; i++) var += (v[i] - mean) * (v[i] - mean);
        assert_true(fabs(mean) < 1e-6 && fabs(var / 37 - 1) < 1e-5);
        /* f16 conversion: normals, subnormals, zero, infinity. */
        uint16_t h[10] = {0x3c00, 0xc000, 0x0001, 0x03ff, 0x0000,
                          0x7c00, 0x7bff, 0x3555, 0x8400, 0x1234};
        float f[10];
        embed_k_f16_to_f32(h, f, 10);
        assert_true(f[0] == 1.0f && f[1] == -2.0f && f[2] == ldexpf(1, -24) && f[4] == 0.0f);
        assert_true(f[3] == ldexpf(1023, -24) && isinf(f[5]) && f[6] == 65504.0f &&
                    f[8] == -ldexpf(1, -14));
        /* Attention output P*V on strided operands, odd shapes included. */
        static const size_t dhs[] = {8, 12, 24, 32, 40, 64}, lens[] = {1, 7, 33},
                            rows_[] = {1, 2, 5};
        for (size_t a = 0; a < 6; a++)
            for (size_t li = 0; li < 3; li++)
                for (size_t r = 0; r < 3; r++) {
                    size_t dh = dhs[a], len = lens[li], rows = rows_[r], ldv = dh + 5, ldo = dh + 3;
                    float *pm = malloc(rows * len * sizeof *pm),
                          *vm = malloc(len * ldv * sizeof *vm);
                    float *o = malloc(rows * ldo * sizeof *o);
                    for (size_t i = 0; i < rows * len; i++) pm[i] = (float)((i * 7) % 11) / 11.0f;
                    for (size_t i = 0; i < len * ldv; i++) vm[i] = (float)((i * 5) % 13) - 6.0f;
                    embed_k_attn_pv(pm, rows, len, len, vm, ldv, dh, o, ldo);
                    for (size_t i = 0; i < rows; i++)
                        for (size_t d = 0; d < dh; d++) {
                            double exact = 0;
                            for (size_t j = 0; j < len; j++)
                                exact += (double)pm[i * len + j] * vm[j * ldv + d];
                            assert_true(fabs(o[i * ldo + d] - exact) < 1e-4);
                        }
                    free(pm);
                    free(vm);
                    free(o);
                }
        free(x);
        free(y);
    }
    embed_k_force_scalar(false);
}

/* The bf16 kernel against f32 sums of the same bf16-rounded inputs: odd k, a short panel,
   rows that are not a multiple of four. */
static void test_bf16_kernel(void **state)
{
    (void)state;
    if (!embed_k_has_bf16()) {
        print_message("this CPU has no AVX-512 BF16: skipped\n");
        skip();
    }
    enum { ROWS = 7, K = 37, COLS = 50, LDA = K + 1 };
    float a[ROWS * K], w[K * COLS], c[ROWS * 64];
    uint32_t st = 11;
    for (size_t i = 0; i < ROWS * K; i++) {
        st = st * 1664525u + 1013904223u;
        a[i] = (float)((int)(st >> 9) % 2001 - 1000) / 997.0f;
    }
    for (size_t i = 0; i < K * COLS; i++) {
        st = st * 1664525u + 1013904223u;
        w[i] = (float)((int)(st >> 9) % 2001 - 1000) / 1013.0f;
    }
    uint16_t ab[ROWS * LDA], wb[(K + 1) / 2 * 128];
    embed_k_to_bf16(a, ROWS, K, LDA, ab);
    embed_k_pack_bf16(w, K, COLS, wb);
    for (size_t i = 0; i < ROWS * 64; i++) c[i] = -7; /* columns past COLS must stay as they are */
    embed_k_gemm_bf16(ab, LDA, wb, (K + 1) / 2, c, 64, ROWS, COLS);
    float ar[ROWS * LDA], wr[(K + 1) / 2 * 128];
    embed_k_bf16_to_f32(ab, ar, ROWS * LDA);
    embed_k_bf16_to_f32(wb, wr, (K + 1) / 2 * 128);
    for (size_t r = 0; r < ROWS; r++) {
        assert_true(ar[r * LDA + K] == 0); /* the pad */
        for (size_t j = 0; j < 64; j++) {
            if (j >= COLS) {
                assert_true(c[r * 64 + j] == -7);
                continue;
            }
            double want = 0, exact = 0;
            for (size_t k = 0; k < K; k++) {
                want += (double)ar[r * LDA + k] * wr[(k / 2) * 128 + j * 2 + k % 2];
                exact += (double)a[r * K + k] * w[k * COLS + j];
            }
            assert_true(fabs(c[r * 64 + j] - want) <= 1e-5 * (1 + fabs(want)));
            assert_true(fabs(want - exact) <= 2e-2 * (1 + fabs(exact))); /* bf16 rounding */
        }
    }
}

/* --precision bf16 end to end: vectors within a few 1e-3 of f32 (cosine > 0.999) on the
   bge-small shape; a CPU without it, or an unknown precision, is refused with a message. */
static void test_bf16_encoder(void **state)
{
    (void)state;
    REQUIRE_NUMPY();
    char *tmp = tu_tempdir();
    char *dir = gen_model(tmp, "h384-bf16",
                          "--hidden 384 --layers 12 --heads 12 --intermediate 1536 --vocab 1000 "
                          "--max-pos 512 --pooling cls --normalize 1 --scale 0.05 --seed 9");
    apidex_error err = {0};
    embed_bert *m32 = NULL, *m16 = NULL;
    embed_bert_options o32 = {.threads = 2}, o16 = {.threads = 2, .bf16 = true};
    assert_int_equal(embed_bert_open(dir, &o32, &m32, &err), 0);
    if (!embed_k_has_bf16()) {
        assert_int_equal(embed_bert_open(dir, &o16, &m16, &err), APIDEX_EUNSUPPORTED);
        assert_non_null(strstr(err.message, "AVX-512 BF16"));
        print_message("this CPU has no AVX-512 BF16: only the refusal is checked\n");
    } else {
        assert_int_equal(embed_bert_open(dir, &o16, &m16, &err), 0);
        assert_true(embed_bert_info(m16)->bf16);
        static const size_t lens[] = {128, 77, 33, 9, 2};
        uint32_t **ids = make_ids(lens, 5, 1000, 3);
        size_t dim = 384;
        float *a = calloc(5 * dim, sizeof *a), *b = calloc(5 * dim, sizeof *b);
        assert_int_equal(embed_bert_encode_ids(m32, (const uint32_t *const *)ids, lens, 5, a, &err),
                         0);
        assert_int_equal(embed_bert_encode_ids(m16, (const uint32_t *const *)ids, lens, 5, b, &err),
                         0);
        float d = max_abs_diff(a, b, 5 * dim);
        for (size_t i = 0; i < 5; i++) {
            double dot = 0, na = 0, nb = 0;
            for (size_t j = 0; j < dim; j++) {
                dot += (double)a[i * dim + j] * b[i * dim + j];
                na += (double)a[i * dim + j] * a[i * dim + j];
                nb += (double)b[i * dim + j] * b[i * dim + j];
            }
            assert_true(dot / sqrt(na * nb) > 0.999);
        }
        print_message("bf16: max |bf16 - f32| = %.3g\n", d);
        assert_true(d < 2e-2f);
        free(a);
        free(b);
        free_ids(ids, 5);
        embed_bert_close(m16);
        /* forced off, the kernels say there is no bf16, and the open says why */
        embed_k_force_scalar(true);
        m16 = NULL;
        assert_int_equal(embed_bert_open(dir, &o16, &m16, &err), APIDEX_EUNSUPPORTED);
        assert_non_null(strstr(err.message, "AVX-512 BF16"));
        embed_k_force_scalar(false);
    }
    embed_bert_close(m16);
    embed_bert_close(m32);
    tu_rmtree(tmp);
    free(dir);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_matches_numpy_small),
        cmocka_unit_test(test_matches_numpy_bge_shape),
        cmocka_unit_test(test_text_path),
        cmocka_unit_test(test_refuses_bad_folders),
        cmocka_unit_test(test_bf16_kernel),
        cmocka_unit_test(test_bf16_encoder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
