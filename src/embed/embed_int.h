/*
 * Internals of the embed stage shared between its files: the safetensors
 * reader, the thread pool's task runner, and the SIMD kernels of the encoder.
 */
#ifndef APIDEX_EMBED_INT_H
#define APIDEX_EMBED_INT_H

#include "embed/embed.h"

/* ---------------------------------------------------------------- safetensors */

/* Safety limits: a header is JSON describing tensors, never megabytes of it. */
#define EMBED_ST_MAX_HEADER  (100u << 20)
#define EMBED_ST_MAX_DIMS    8
#define EMBED_ST_MAX_TENSORS 100000

typedef enum {
    EMBED_DT_F32 = 1,
    EMBED_DT_F16,
    EMBED_DT_BF16,
    EMBED_DT_F64,
    EMBED_DT_I64,
    EMBED_DT_I32,
    EMBED_DT_I16,
    EMBED_DT_I8,
    EMBED_DT_U8,
    EMBED_DT_BOOL,
    EMBED_DT_U16,
    EMBED_DT_U32,
    EMBED_DT_U64,
    EMBED_DT_F8_E4M3,
    EMBED_DT_F8_E5M2
} embed_dtype;

typedef struct embed_st_tensor {
    char *name;
    embed_dtype dtype;
    const char *dtype_name; /* static */
    size_t ndim;
    uint64_t shape[EMBED_ST_MAX_DIMS];
    uint64_t numel;
    uint64_t begin, end; /* byte offsets in the data section */
} embed_st_tensor;

typedef struct embed_st {
    char *path;
    uint8_t *map; /* NULL for images in memory (embed_st_open_mem) */
    size_t map_len;
    const uint8_t *data; /* data section (after the header) */
    uint64_t data_len;
    embed_st_tensor *tensors;
    size_t n_tensors;
} embed_st;

/**
 * Parses a safetensors JSON header (json, len bytes, not NUL-terminated) that
 * describes a data section of data_len bytes. Checks every entry: dtype known,
 * shape of non-negative integers without overflow, offsets inside the data,
 * sizes that match dtype * shape. file names the file in errors.
 * *out (n entries) is malloc'd: free with embed_st_tensors_free.
 */
int embed_st_parse_header(const char *json, size_t len, uint64_t data_len, const char *file,
                          embed_st_tensor **out, size_t *n, apidex_error *err);
void embed_st_tensors_free(embed_st_tensor *t, size_t n);
/** Opens (mmap) and checks a .safetensors file. */
int embed_st_open(const char *path, embed_st **out, apidex_error *err);
/** The same over a file image in memory (not copied: bytes must outlive the handle). */
int embed_st_open_mem(const uint8_t *bytes, size_t len, const char *name, embed_st **out,
                      apidex_error *err);
void embed_st_close(embed_st *st);
const embed_st_tensor *embed_st_find(const embed_st *st, const char *name);
/** Converts a F32/F16/BF16 tensor to f32 into dst (numel floats). */
int embed_st_read_f32(const embed_st *st, const embed_st_tensor *t, float *dst, apidex_error *err);
/** Bytes per element of a dtype. */
size_t embed_dtype_size(embed_dtype dt);

/* ---------------------------------------------------------------- pool */

/** One task of a parallel loop; worker is 0..threads-1 (for per-thread scratch). */
typedef void (*embed_pool_fn)(void *ctx, size_t task, int worker);

/**
 * Runs fn(ctx, t, worker) for t in [0, n_tasks) on the pool's threads and the
 * caller's, handing tasks out one by one; returns when all are done. A NULL
 * pool runs them on the caller. Not reentrant.
 */
void embed_pool_run(embed_pool *p, size_t n_tasks, embed_pool_fn fn, void *ctx);

/* ---------------------------------------------------------------- kernels */

/** Does this CPU run the bf16 products (AVX-512 F, BW, VL and BF16)? */
bool embed_k_has_bf16(void);
/** Packs one weight panel [k x width] (width <= 64) as bf16 [ceil(k/2)][64][2], zero-padded. */
void embed_k_pack_bf16(const float *panel, size_t k, size_t width, uint16_t *dst);
/** Rounds rows x k floats to bf16 rows of ld_dst (>= k, even; the rest zeroed). */
void embed_k_to_bf16(const float *src, size_t rows, size_t k, size_t ld_dst, uint16_t *dst);
/** c[rows x cols] = a[rows x 2*kpairs] * w (a packed panel); only with embed_k_has_bf16(). */
void embed_k_gemm_bf16(const uint16_t *a, size_t lda, const uint16_t *w, size_t kpairs, float *c,
                       size_t ldc, size_t rows, size_t cols);
/** f16 / bf16 → f32. */
void embed_k_f16_to_f32(const uint16_t *src, float *dst, size_t n);
void embed_k_bf16_to_f32(const uint16_t *src, float *dst, size_t n);
/** x[r][c] = gelu_erf(x[r][c] + bias[c]) for a rows x cols block with row stride ld. */
void embed_k_bias_gelu(float *x, const float *bias, size_t rows, size_t cols, size_t ld);
/** x[r][c] += bias[c]. */
void embed_k_bias(float *x, const float *bias, size_t rows, size_t cols, size_t ld);
/** One row: x = LayerNorm(y + bias + x) * gamma + beta (x is the residual, in place). */
void embed_k_residual_layernorm(float *x, const float *y, const float *bias, const float *gamma,
                                const float *beta, size_t n, float eps);
/** One row in place: x = LayerNorm(x) * gamma + beta. */
void embed_k_layernorm(float *x, const float *gamma, const float *beta, size_t n, float eps);
/** Softmax of each of rows rows of n floats (row stride ld), in place. */
void embed_k_softmax_rows(float *x, size_t rows, size_t n, size_t ld);
/**
 * Attention output: out[r][d] = sum_j p[r][j] * v[j][d] for rows x dh (p: rows x len, stride
 * ldp; v: len x dh, stride ldv). OpenBLAS's small-matrix path runs this shape at a tenth of
 * its speed, so it gets its own kernel.
 */
void embed_k_attn_pv(const float *p, size_t rows, size_t len, size_t ldp, const float *v,
                     size_t ldv, size_t dh, float *out, size_t ldo);
/** Scalar reference versions, exported for the kernel tests. */
float embed_k_gelu_ref(float x);
/** Vector erf used by the GELU kernel, over n values (for tests). */
void embed_k_erf(const float *x, float *y, size_t n);
/** Vector exp used by softmax, over n values (for tests). */
void embed_k_exp(const float *x, float *y, size_t n);
/** Set by tests to force the portable code path (false = auto). */
void embed_k_force_scalar(bool on);
/** Set by tests to pick the scan kernel: 0 auto, 1 scalar, 2 AVX2, 3 AVX-512, 4 NEON (arm64)
 * (only one this CPU has).
 */
void embed_vecscan_force_level(int level);

/* ---------------------------------------------------------------- providers */

/** Opens the OpenAI-compatible HTTP provider (no network traffic until the first call). */
int embed_http_open(const embed_options *o, embed_provider **out, apidex_error *err);
/** The /v1/embeddings URL for a base URL (malloc'd): adds "/v1/embeddings" or "/embeddings". */
char *embed_http_endpoint(const char *base_url);

/* ---------------------------------------------------------------- misc */

/** The query prefix a model name implies ("" when none): the bge English rule. */
const char *embed_default_query_prefix(const char *model_name);
/** Number of online CPUs (at least 1). */
int embed_cpu_count(void);

#endif /* APIDEX_EMBED_INT_H */
