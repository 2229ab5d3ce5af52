/*
 * The elementwise kernels of the encoder (GELU, LayerNorm, softmax, f16/bf16
 * conversion): AVX2+FMA versions chosen at run time, and portable C versions.
 * libm's erff/expf would cost as much as the matrix products, hence the
 * vector approximations (erf: Eigen's rational fit, |err| < 1e-7; exp: Cephes).
 */
#include "embed/embed_int.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define EMBED_X86 1
#endif

static bool k_forced_scalar;

void embed_k_force_scalar(bool on)
{
    __atomic_store_n(&k_forced_scalar, on, __ATOMIC_RELAXED);
}

#ifdef EMBED_X86
/* 0 unknown, 1 scalar, 2 avx2+fma+f16c. Written once; racing writers store the same value. */
static int k_level;

static int level(void)
{
    if (__atomic_load_n(&k_forced_scalar, __ATOMIC_RELAXED)) return 1;
    int l = __atomic_load_n(&k_level, __ATOMIC_RELAXED);
    if (l) return l;
    l = 1;
    __builtin_cpu_init();
    unsigned a, b, c, d; /* clang 14 has no "f16c" for __builtin_cpu_supports: ask cpuid */
    bool f16c = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c) l = 2;
    __atomic_store_n(&k_level, l, __ATOMIC_RELAXED);
    return l;
}
#endif

/* ---------------------------------------------------------------- portable */

static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else { /* subnormal: renormalise */
            int e = -1;
            do {
                e++;
                mant <<= 1;
            } while (!(mant & 0x400));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

float embed_k_gelu_ref(float x)
{
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
}

/* ---------------------------------------------------------------- AVX2 */

#ifdef EMBED_X86
#define AVX2 __attribute__((target("avx2,fma,f16c")))

static const float erf_a[7] = {
    -1.60960333262415e-02f, -2.95459980854025e-03f, -7.34990630326855e-04f, -5.69250639462346e-05f,
    -2.10102402082508e-06f, 2.77068142495902e-08f,  -2.72614225801306e-10f};
static const float erf_b[5] = {-1.42647390514189e-02f, -7.37332916720468e-03f,
                               -1.68282697438203e-03f, -2.13374055278905e-04f,
                               -1.45660718464996e-05f};

AVX2 static inline __m256 exp8(__m256 x)
{
    /* ln(FLT_MIN) as lower clamp keeps 2^n a normal float. */
    x = _mm256_min_ps(x, _mm256_set1_ps(88.3762626647949f));
    x = _mm256_max_ps(x, _mm256_set1_ps(-87.3365447505531f));
    __m256 fx = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f));
    fx = _mm256_floor_ps(fx);
    x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
    x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), x);
    __m256 z = _mm256_mul_ps(x, x);
    __m256 y = _mm256_set1_ps(1.9875691500E-4f);
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.3981999507E-3f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(8.3334519073E-3f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(4.1665795894E-2f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.6666665459E-1f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(5.0000001201E-1f));
    y = _mm256_fmadd_ps(y, z, x);
    y = _mm256_add_ps(y, _mm256_set1_ps(1.0f));
    __m256i n = _mm256_cvttps_epi32(fx);
    n = _mm256_slli_epi32(_mm256_add_epi32(n, _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(y, _mm256_castsi256_ps(n));
}

AVX2 static inline __m256 erf8(__m256 x)
{
    x = _mm256_min_ps(x, _mm256_set1_ps(4.0f));
    x = _mm256_max_ps(x, _mm256_set1_ps(-4.0f));
    __m256 x2 = _mm256_mul_ps(x, x);
    __m256 p = _mm256_fmadd_ps(x2, _mm256_set1_ps(erf_a[6]), _mm256_set1_ps(erf_a[5]));
    for (int i = 4; i >= 0; i--) p = _mm256_fmadd_ps(x2, p, _mm256_set1_ps(erf_a[i]));
    p = _mm256_mul_ps(x, p);
    __m256 q = _mm256_fmadd_ps(x2, _mm256_set1_ps(erf_b[4]), _mm256_set1_ps(erf_b[3]));
    for (int i = 2; i >= 0; i--) q = _mm256_fmadd_ps(x2, q, _mm256_set1_ps(erf_b[i]));
    return _mm256_div_ps(p, q);
}

AVX2 static inline float hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

AVX2 static inline float hmax8(__m256 v)
{
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* Loads the first n (< 8) floats of p, the rest filled with fill. */
AVX2 static inline __m256 load_tail(const float *p, size_t n, float fill)
{
    float tmp[8];
    for (size_t i = 0; i < 8; i++) tmp[i] = i < n ? p[i] : fill;
    return _mm256_loadu_ps(tmp);
}

AVX2 static inline void store_tail(float *p, __m256 v, size_t n)
{
    float tmp[8];
    _mm256_storeu_ps(tmp, v);
    memcpy(p, tmp, n * sizeof *p);
}

AVX2 static void f16_avx2(const uint16_t *src, float *dst, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
    for (; i < n; i++) dst[i] = f16_to_f32(src[i]);
}

AVX2 static inline __m256 gelu8(__m256 v)
{
    __m256 e = erf8(_mm256_mul_ps(v, _mm256_set1_ps(0.70710678118654752f)));
    return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v),
                         _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

AVX2 static void bias_gelu_avx2(float *x, const float *bias, size_t rows, size_t cols, size_t ld)
{
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * ld;
        size_t c = 0;
        for (; c + 8 <= cols; c += 8) {
            __m256 v = _mm256_add_ps(_mm256_loadu_ps(row + c), _mm256_loadu_ps(bias + c));
            _mm256_storeu_ps(row + c, gelu8(v));
        }
        if (c < cols) {
            __m256 v =
                _mm256_add_ps(load_tail(row + c, cols - c, 0), load_tail(bias + c, cols - c, 0));
            store_tail(row + c, gelu8(v), cols - c);
        }
    }
}

AVX2 static void erf_avx2(const float *x, float *y, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, erf8(_mm256_loadu_ps(x + i)));
    if (i < n) store_tail(y + i, erf8(load_tail(x + i, n - i, 0)), n - i);
}

AVX2 static void exp_avx2(const float *x, float *y, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, exp8(_mm256_loadu_ps(x + i)));
    if (i < n) store_tail(y + i, exp8(load_tail(x + i, n - i, 0)), n - i);
}

/* LayerNorm of x[0..n) (already summed with residual and bias), two-pass variance. */
AVX2 static void layernorm_avx2(float *x, const float *g, const float *b, size_t n, float eps)
{
    __m256 acc = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) acc = _mm256_add_ps(acc, _mm256_loadu_ps(x + i));
    float sum = hsum8(acc);
    for (; i < n; i++) sum += x[i];
    float mean = sum / (float)n;
    __m256 vm = _mm256_set1_ps(mean);
    acc = _mm256_setzero_ps();
    for (i = 0; i + 8 <= n; i += 8) {
        __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), vm);
        acc = _mm256_fmadd_ps(d, d, acc);
    }
    float var = hsum8(acc);
    for (; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
    float inv = 1.0f / sqrtf(var / (float)n + eps);
    __m256 vi = _mm256_set1_ps(inv);
    for (i = 0; i + 8 <= n; i += 8) {
        __m256 d = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm), vi);
        _mm256_storeu_ps(x + i, _mm256_fmadd_ps(d, _mm256_loadu_ps(g + i), _mm256_loadu_ps(b + i)));
    }
    for (; i < n; i++) x[i] = (x[i] - mean) * inv * g[i] + b[i];
}

AVX2 static void residual_sum_avx2(float *x, const float *y, const float *bias, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_add_ps(_mm256_loadu_ps(y + i), _mm256_loadu_ps(bias + i));
        _mm256_storeu_ps(x + i, _mm256_add_ps(v, _mm256_loadu_ps(x + i)));
    }
    for (; i < n; i++) x[i] += y[i] + bias[i];
}

AVX2 static void softmax_avx2(float *x, size_t n)
{
    __m256 vmax = _mm256_set1_ps(-INFINITY);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(x + i));
    float mx = hmax8(vmax);
    for (; i < n; i++) mx = x[i] > mx ? x[i] : mx;
    __m256 vm = _mm256_set1_ps(mx), acc = _mm256_setzero_ps();
    for (i = 0; i + 8 <= n; i += 8) {
        __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm));
        _mm256_storeu_ps(x + i, e);
        acc = _mm256_add_ps(acc, e);
    }
    float sum = hsum8(acc);
    if (i < n) {
        /* Lanes past the row hold mx (exp = 1): only the first n - i are stored and summed. */
        __m256 e = exp8(_mm256_sub_ps(load_tail(x + i, n - i, mx), vm));
        float tmp[8];
        _mm256_storeu_ps(tmp, e);
        for (size_t j = 0; j < n - i; j++) {
            x[i + j] = tmp[j];
            sum += tmp[j];
        }
    }
    __m256 vi = _mm256_set1_ps(1.0f / sum);
    for (i = 0; i + 8 <= n; i += 8)
        _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), vi));
    float inv = 1.0f / sum;
    for (; i < n; i++) x[i] *= inv;
}

/* out[r][0..dh) = sum_j p[r][j] * v[j][0..dh) for two rows at a time; dh % 8 == 0. */
AVX2 static void attn_pv_avx2(const float *p, size_t rows, size_t len, size_t ldp, const float *v,
                              size_t ldv, size_t dh, float *out, size_t ldo)
{
    for (size_t r = 0; r < rows; r += 2) {
        bool two = r + 1 < rows;
        const float *p0 = p + r * ldp, *p1 = p + (two ? r + 1 : r) * ldp;
        for (size_t d0 = 0; d0 < dh; d0 += 32) {
            size_t nv = (dh - d0) / 8 < 4 ? (dh - d0) / 8 : 4;
            __m256 a0[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                            _mm256_setzero_ps()};
            __m256 a1[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                            _mm256_setzero_ps()};
            if (nv == 4) { /* the common case (head size 32 or 64), fully unrolled */
                for (size_t j = 0; j < len; j++) {
                    const float *vj = v + j * ldv + d0;
                    __m256 w0 = _mm256_set1_ps(p0[j]), w1 = _mm256_set1_ps(p1[j]);
                    __m256 x0 = _mm256_loadu_ps(vj), x1 = _mm256_loadu_ps(vj + 8);
                    __m256 x2 = _mm256_loadu_ps(vj + 16), x3 = _mm256_loadu_ps(vj + 24);
                    a0[0] = _mm256_fmadd_ps(w0, x0, a0[0]);
                    a0[1] = _mm256_fmadd_ps(w0, x1, a0[1]);
                    a0[2] = _mm256_fmadd_ps(w0, x2, a0[2]);
                    a0[3] = _mm256_fmadd_ps(w0, x3, a0[3]);
                    a1[0] = _mm256_fmadd_ps(w1, x0, a1[0]);
                    a1[1] = _mm256_fmadd_ps(w1, x1, a1[1]);
                    a1[2] = _mm256_fmadd_ps(w1, x2, a1[2]);
                    a1[3] = _mm256_fmadd_ps(w1, x3, a1[3]);
                }
            } else {
                for (size_t j = 0; j < len; j++) {
                    const float *vj = v + j * ldv + d0;
                    __m256 w0 = _mm256_set1_ps(p0[j]), w1 = _mm256_set1_ps(p1[j]);
                    for (size_t q = 0; q < nv; q++) {
                        __m256 x = _mm256_loadu_ps(vj + 8 * q);
                        a0[q] = _mm256_fmadd_ps(w0, x, a0[q]);
                        a1[q] = _mm256_fmadd_ps(w1, x, a1[q]);
                    }
                }
            }
            for (size_t q = 0; q < nv; q++) {
                _mm256_storeu_ps(out + r * ldo + d0 + 8 * q, a0[q]);
                if (two) _mm256_storeu_ps(out + (r + 1) * ldo + d0 + 8 * q, a1[q]);
            }
        }
    }
}
#endif /* EMBED_X86 */

/* ---------------------------------------------------------------- dispatch */

void embed_k_f16_to_f32(const uint16_t *src, float *dst, size_t n)
{
#ifdef EMBED_X86
    if (level() >= 2) {
        f16_avx2(src, dst, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++) dst[i] = f16_to_f32(src[i]);
}

void embed_k_bf16_to_f32(const uint16_t *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t bits = (uint32_t)src[i] << 16;
        memcpy(&dst[i], &bits, 4);
    }
}

void embed_k_bias_gelu(float *x, const float *bias, size_t rows, size_t cols, size_t ld)
{
#ifdef EMBED_X86
    if (level() >= 2) {
        bias_gelu_avx2(x, bias, rows, cols, ld);
        return;
    }
#endif
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) x[r * ld + c] = embed_k_gelu_ref(x[r * ld + c] + bias[c]);
}

void embed_k_bias(float *x, const float *bias, size_t rows, size_t cols, size_t ld)
{
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * ld;
        for (size_t c = 0; c < cols; c++) row[c] += bias[c];
    }
}

void embed_k_layernorm(float *x, const float *gamma, const float *beta, size_t n, float eps)
{
#ifdef EMBED_X86
    if (level() >= 2) {
        layernorm_avx2(x, gamma, beta, n, eps);
        return;
    }
#endif
    float sum = 0;
    for (size_t i = 0; i < n; i++) sum += x[i];
    float mean = sum / (float)n, var = 0;
    for (size_t i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
    float inv = 1.0f / sqrtf(var / (float)n + eps);
    for (size_t i = 0; i < n; i++) x[i] = (x[i] - mean) * inv * gamma[i] + beta[i];
}

void embed_k_residual_layernorm(float *x, const float *y, const float *bias, const float *gamma,
                                const float *beta, size_t n, float eps)
{
#ifdef EMBED_X86
    if (level() >= 2) {
        residual_sum_avx2(x, y, bias, n);
        layernorm_avx2(x, gamma, beta, n, eps);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++) x[i] += y[i] + bias[i];
    embed_k_layernorm(x, gamma, beta, n, eps);
}

void embed_k_softmax_rows(float *x, size_t rows, size_t n, size_t ld)
{
#ifdef EMBED_X86
    if (level() >= 2) {
        for (size_t r = 0; r < rows; r++) softmax_avx2(x + r * ld, n);
        return;
    }
#endif
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * ld, mx = -INFINITY, sum = 0;
        for (size_t i = 0; i < n; i++) mx = row[i] > mx ? row[i] : mx;
        for (size_t i = 0; i < n; i++) sum += (row[i] = expf(row[i] - mx));
        for (size_t i = 0; i < n; i++) row[i] /= sum;
    }
}

void embed_k_erf(const float *x, float *y, size_t n)
{
#ifdef EMBED_X86
    if (level() >= 2) {
        erf_avx2(x, y, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++) y[i] = erff(x[i]);
}

void embed_k_exp(const float *x, float *y, size_t n)
{
#ifdef EMBED_X86
    if (level() >= 2) {
        exp_avx2(x, y, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++) y[i] = expf(x[i]);
}

void embed_k_attn_pv(const float *p, size_t rows, size_t len, size_t ldp, const float *v,
                     size_t ldv, size_t dh, float *out, size_t ldo)
{
#ifdef EMBED_X86
    if (level() >= 2 && dh % 8 == 0) {
        attn_pv_avx2(p, rows, len, ldp, v, ldv, dh, out, ldo);
        return;
    }
#endif
    for (size_t r = 0; r < rows; r++) {
        float *o = out + r * ldo;
        for (size_t d = 0; d < dh; d++) o[d] = 0;
        for (size_t j = 0; j < len; j++) {
            float w = p[r * ldp + j];
            const float *vj = v + j * ldv;
            for (size_t d = 0; d < dh; d++) o[d] += w * vj[d];
        }
    }
}

/* ---------------------------------------------------------------- bf16 products */

/*
 * Matrix products with bf16 inputs and f32 sums (AVX-512 BF16: vdpbf16ps multiplies
 * pairs of bf16 and adds both products to an f32 lane). Weights are packed at load into
 * panels of 64 output columns as [k/2][64][2] (each pair of k next to each other, a
 * k-pair row of the panel is four zmm); activations are rounded to bf16 once per product,
 * rows padded to an even length. One step of the kernel takes one k-pair: four weight
 * loads and, per row, one 32-bit broadcast and four vdpbf16ps. Rounding both inputs to
 * bf16 costs ~2e-3 relative error per product; sums stay f32.
 */

static uint16_t f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
    return (uint16_t)(u >> 16);
}

bool embed_k_has_bf16(void)
{
    if (__atomic_load_n(&k_forced_scalar, __ATOMIC_RELAXED)) return false;
#ifdef EMBED_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
#else
    return false;
#endif
}

void embed_k_pack_bf16(const float *panel, size_t k, size_t width, uint16_t *dst)
{
    for (size_t kk = 0; kk < k; kk += 2)
        for (size_t c = 0; c < 64; c++) {
            uint16_t *o = dst + (kk / 2) * 128 + c * 2;
            o[0] = c < width ? f32_to_bf16(panel[kk * width + c]) : 0;
            o[1] = c < width && kk + 1 < k ? f32_to_bf16(panel[(kk + 1) * width + c]) : 0;
        }
}

#ifdef EMBED_X86
#define BF16 __attribute__((target("avx512f,avx512bf16,avx512bw,avx512vl")))

BF16 static void to_bf16_row(const float *src, size_t k, uint16_t *dst)
{
    size_t i = 0;
    for (; i + 32 <= k; i += 32) {
        __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + i + 16), _mm512_loadu_ps(src + i));
        _mm512_storeu_si512((void *)(dst + i), (__m512i)v);
    }
    for (; i < k; i++) dst[i] = f32_to_bf16(src[i]);
}

/* Four rows of one panel: c[4 x cols] = a[4 x 2*kp] * w[kp pairs x 64], the sixteen sums in
   named registers (an array of them is not kept in registers at -O2). */
BF16 static void bf16_rows4(const uint16_t *a, size_t lda, const uint16_t *w, size_t kp, float *c,
                            size_t ldc, const __mmask16 *mask)
{
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c03 = c00;
    __m512 c10 = c00, c11 = c00, c12 = c00, c13 = c00;
    __m512 c20 = c00, c21 = c00, c22 = c00, c23 = c00;
    __m512 c30 = c00, c31 = c00, c32 = c00, c33 = c00;
    const uint16_t *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda;
    for (size_t p = 0; p < kp; p++) {
        const uint16_t *wp = w + p * 128;
        __m512bh w0 = (__m512bh)_mm512_loadu_si512((const void *)wp);
        __m512bh w1 = (__m512bh)_mm512_loadu_si512((const void *)(wp + 32));
        __m512bh w2 = (__m512bh)_mm512_loadu_si512((const void *)(wp + 64));
        __m512bh w3 = (__m512bh)_mm512_loadu_si512((const void *)(wp + 96));
        uint32_t v;
#define BF16_ROW(ap, r0, r1, r2, r3)                                                               \
    memcpy(&v, (ap) + 2 * p, sizeof v);                                                            \
    {                                                                                              \
        __m512bh b = (__m512bh)_mm512_set1_epi32((int)v);                                          \
        r0 = _mm512_dpbf16_ps(r0, b, w0);                                                          \
        r1 = _mm512_dpbf16_ps(r1, b, w1);                                                          \
        r2 = _mm512_dpbf16_ps(r2, b, w2);                                                          \
        r3 = _mm512_dpbf16_ps(r3, b, w3);                                                          \
    }
        BF16_ROW(a0, c00, c01, c02, c03)
        BF16_ROW(a1, c10, c11, c12, c13)
        BF16_ROW(a2, c20, c21, c22, c23)
        BF16_ROW(a3, c30, c31, c32, c33)
#undef BF16_ROW
    }
#define BF16_STORE(row, r0, r1, r2, r3)                                                            \
    _mm512_mask_storeu_ps(c + (row)*ldc, mask[0], r0);                                             \
    _mm512_mask_storeu_ps(c + (row)*ldc + 16, mask[1], r1);                                        \
    _mm512_mask_storeu_ps(c + (row)*ldc + 32, mask[2], r2);                                        \
    _mm512_mask_storeu_ps(c + (row)*ldc + 48, mask[3], r3);
    BF16_STORE(0, c00, c01, c02, c03)
    BF16_STORE(1, c10, c11, c12, c13)
    BF16_STORE(2, c20, c21, c22, c23)
    BF16_STORE(3, c30, c31, c32, c33)
#undef BF16_STORE
}

/* One row (the last rows % 4). */
BF16 static void bf16_row1(const uint16_t *a, const uint16_t *w, size_t kp, float *c,
                           const __mmask16 *mask)
{
    __m512 r0 = _mm512_setzero_ps(), r1 = r0, r2 = r0, r3 = r0;
    for (size_t p = 0; p < kp; p++) {
        const uint16_t *wp = w + p * 128;
        uint32_t v;
        memcpy(&v, a + 2 * p, sizeof v);
        __m512bh b = (__m512bh)_mm512_set1_epi32((int)v);
        r0 = _mm512_dpbf16_ps(r0, b, (__m512bh)_mm512_loadu_si512((const void *)wp));
        r1 = _mm512_dpbf16_ps(r1, b, (__m512bh)_mm512_loadu_si512((const void *)(wp + 32)));
        r2 = _mm512_dpbf16_ps(r2, b, (__m512bh)_mm512_loadu_si512((const void *)(wp + 64)));
        r3 = _mm512_dpbf16_ps(r3, b, (__m512bh)_mm512_loadu_si512((const void *)(wp + 96)));
    }
    _mm512_mask_storeu_ps(c, mask[0], r0);
    _mm512_mask_storeu_ps(c + 16, mask[1], r1);
    _mm512_mask_storeu_ps(c + 32, mask[2], r2);
    _mm512_mask_storeu_ps(c + 48, mask[3], r3);
}

BF16 static void gemm_bf16(const uint16_t *a, size_t lda, const uint16_t *w, size_t kp, float *c,
                           size_t ldc, size_t rows, size_t cols)
{
    __mmask16 mask[4];
    for (size_t j = 0; j < 4; j++) {
        size_t have = cols > 16 * j ? cols - 16 * j : 0;
        mask[j] = have >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << have) - 1u);
    }
    size_t r = 0;
    for (; r + 4 <= rows; r += 4) bf16_rows4(a + r * lda, lda, w, kp, c + r * ldc, ldc, mask);
    for (; r < rows; r++) bf16_row1(a + r * lda, w, kp, c + r * ldc, mask);
}
#endif

void embed_k_to_bf16(const float *src, size_t rows, size_t k, size_t ld_dst, uint16_t *dst)
{
    for (size_t r = 0; r < rows; r++) {
        uint16_t *d = dst + r * ld_dst;
#ifdef EMBED_X86
        to_bf16_row(src + r * k, k, d);
#else
        for (size_t i = 0; i < k; i++) d[i] = f32_to_bf16(src[r * k + i]);
#endif
        for (size_t i = k; i < ld_dst; i++) d[i] = 0;
    }
}

void embed_k_gemm_bf16(const uint16_t *a, size_t lda, const uint16_t *w, size_t kpairs, float *c,
                       size_t ldc, size_t rows, size_t cols)
{
#ifdef EMBED_X86
    gemm_bf16(a, lda, w, kpairs, c, ldc, rows, cols);
#else
    (void)a, (void)lda, (void)w, (void)kpairs, (void)c, (void)ldc, (void)rows, (void)cols;
#endif
}
