/* The BERT forward pass (bert.c loads the model): packed token rows through the layers,
   sgemm per weight panel on our worker pool, then pooled and normalised embeddings. */
#include "embed/bert_int.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int grow_scratch(embed_bert *m, size_t tokens)
{
    const embed_bert_config *c = &m->cfg;
    if (tokens > m->cap_tokens) {
        size_t h = c->hidden, i = c->intermediate;
        free(m->x);
        free(m->qkv);
        free(m->ctx);
        free(m->tmp);
        free(m->ff);
        free(m->xc);
        m->x = malloc(tokens * h * sizeof(float));
        m->qkv = malloc(tokens * 3 * h * sizeof(float));
        m->ctx = malloc(tokens * h * sizeof(float));
        m->tmp = malloc(tokens * h * sizeof(float));
        m->ff = malloc(tokens * i * sizeof(float));
        m->xc = malloc(tokens * h * sizeof(float));
        if (m->wbf) {
            free(m->abf);
            size_t widest = (i > h ? i : h) + 1;
            m->abf = malloc(tokens * widest * sizeof(uint16_t));
            if (!m->abf) return APIDEX_ENOMEM;
        }
        m->cap_tokens = tokens;
        if (!m->x || !m->qkv || !m->ctx || !m->tmp || !m->ff || !m->xc) {
            m->cap_tokens = 0;
            return APIDEX_ENOMEM;
        }
    }
    size_t need = (size_t)embed_pool_threads(m->pool) * m->max_tokens * m->max_tokens;
    if (need > m->scores_cap) {
        free(m->scores);
        m->scores = malloc(need * sizeof(float));
        m->scores_cap = m->scores ? need : 0;
        if (!m->scores) return APIDEX_ENOMEM;
    }
    return 0;
}

typedef enum { EPI_NONE, EPI_BIAS, EPI_BIAS_GELU } gemm_epilogue;

/* C[M x N] = A[M x K] * W[K x N] (+ epilogue); W in panels. One task = rows x one panel.
   With bf16 weights (wb), A is first rounded to ab (rows of ldab, even) and the panels
   are multiplied by the bf16 kernel. */
typedef struct gemm_job {
    const float *a, *w, *bias;
    float *c;
    size_t m, n, k, lda, ldc;
    size_t row_step, panels;
    gemm_epilogue epi;
    const uint16_t *wb;
    uint16_t *ab;
    size_t ldab;
} gemm_job;

static void gemm_task(void *ctx, size_t task, int worker)
{
    (void)worker;
    const gemm_job *j = ctx;
    size_t r0 = (task / j->panels) * j->row_step, c0 = (task % j->panels) * BERT_PANEL;
    size_t rows = j->m - r0 < j->row_step ? j->m - r0 : j->row_step;
    size_t cols = j->n - c0 < BERT_PANEL ? j->n - c0 : BERT_PANEL;
    float *c = j->c + r0 * j->ldc + c0;
    if (j->wb) {
        size_t kp = j->ldab / 2;
        embed_k_gemm_bf16(j->ab + r0 * j->ldab, j->ldab,
                          j->wb + (c0 / BERT_PANEL) * kp * 2 * BERT_PANEL, kp, c, j->ldc, rows,
                          cols);
    } else {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)cols, (int)j->k,
                    1.0f, j->a + r0 * j->lda, (int)j->lda, j->w + c0 * j->k, (int)cols, 0.0f, c,
                    (int)j->ldc);
    }
    if (j->epi == EPI_BIAS) embed_k_bias(c, j->bias + c0, rows, cols, j->ldc);
    if (j->epi == EPI_BIAS_GELU) embed_k_bias_gelu(c, j->bias + c0, rows, cols, j->ldc);
}

/* Rounds the rows of A to bf16, 64 rows a task. */
static void round_task(void *ctx, size_t task, int worker)
{
    (void)worker;
    const gemm_job *j = ctx;
    size_t r0 = task * 64, rows = j->m - r0 < 64 ? j->m - r0 : 64;
    embed_k_to_bf16(j->a + r0 * j->lda, rows, j->k, j->ldab, j->ab + r0 * j->ldab);
}

static void gemm(embed_bert *m, const float *a, size_t rows, size_t k, const float *w,
                 const uint16_t *wb, size_t n, const float *bias, gemm_epilogue epi, float *c)
{
    gemm_job j = {a,   w,    bias, c, rows, n, k, k, n, rows, (n + BERT_PANEL - 1) / BERT_PANEL,
                  epi, NULL, NULL, 0};
    if (m->wbf && wb && m->abf) {
        j.wb = wb;
        j.ab = m->abf;
        j.ldab = (k + 1) & ~(size_t)1;
        embed_pool_run(m->pool, (rows + 63) / 64, round_task, &j);
    }
    /* Threads take tasks in order, so consecutive panels reuse the same rows of A from cache. */
    if (rows > 2 * BERT_ROW_TILE) {
        size_t tiles = (rows + BERT_ROW_TILE - 1) / BERT_ROW_TILE;
        j.row_step = ((rows + tiles - 1) / tiles + 7) & ~(size_t)7;
    }
    size_t row_tiles = (rows + j.row_step - 1) / j.row_step;
    embed_pool_run(m->pool, row_tiles * j.panels, gemm_task, &j);
}

/* The packed batch: nseq sequences, sequence s at rows off[s] .. off[s]+len[s]. */
typedef struct bert_pass {
    embed_bert *m;
    const uint32_t *ids;
    const size_t *len, *off;
    size_t nseq, tokens;
    size_t rows_per_task;
    const bert_layer *layer;
    bool cls_only; /* attention output for the first row of each sequence only */
    float *resid;  /* residual rows for the LayerNorm pass */
    const float *y, *bias, *gamma, *beta;
    size_t ln_rows;
} bert_pass;

static void embed_task(void *ctx, size_t task, int worker)
{
    (void)worker;
    bert_pass *p = ctx;
    const embed_bert *m = p->m;
    size_t h = m->cfg.hidden;
    size_t s = task;
    for (size_t t = 0; t < p->len[s]; t++) {
        size_t row = p->off[s] + t;
        const float *we = m->word + (size_t)p->ids[row] * h;
        const float *pe = m->pos + t * h;
        float *x = m->x + row * h;
        for (size_t i = 0; i < h; i++) x[i] = we[i] + pe[i] + m->type[i];
        embed_k_layernorm(x, m->emb_ln_g, m->emb_ln_b, h, m->cfg.layer_norm_eps);
    }
}

static void attention_task(void *ctx, size_t task, int worker)
{
    bert_pass *p = ctx;
    embed_bert *m = p->m;
    size_t h = m->cfg.hidden, heads = m->cfg.heads, dh = h / heads;
    size_t s = task / heads, head = task % heads;
    size_t len = p->len[s], q_rows = p->cls_only ? 1 : len;
    const float *q = m->qkv + p->off[s] * 3 * h + head * dh;
    const float *k = q + h, *v = q + 2 * h;
    float *scores = m->scores + (size_t)worker * m->max_tokens * m->max_tokens;
    float *out = m->ctx + (p->cls_only ? s : p->off[s]) * h + head * dh;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)q_rows, (int)len, (int)dh, 1.0f, q,
                (int)(3 * h), k, (int)(3 * h), 0.0f, scores, (int)len);
    embed_k_softmax_rows(scores, q_rows, len, len);
    embed_k_attn_pv(scores, q_rows, len, len, v, 3 * h, dh, out, h);
}

static void layernorm_task(void *ctx, size_t task, int worker)
{
    (void)worker;
    bert_pass *p = ctx;
    size_t h = p->m->cfg.hidden;
    size_t r0 = task * p->rows_per_task;
    size_t r1 = r0 + p->rows_per_task < p->ln_rows ? r0 + p->rows_per_task : p->ln_rows;
    for (size_t r = r0; r < r1; r++)
        embed_k_residual_layernorm(p->resid + r * h, p->y + r * h, p->bias, p->gamma, p->beta, h,
                                   p->m->cfg.layer_norm_eps);
}

static void residual_layernorm(bert_pass *p, float *resid, const float *y, size_t rows,
                               const float *bias, const float *gamma, const float *beta)
{
    p->resid = resid;
    p->y = y;
    p->bias = bias;
    p->gamma = gamma;
    p->beta = beta;
    p->ln_rows = rows;
    size_t threads = (size_t)embed_pool_threads(p->m->pool);
    p->rows_per_task = (rows + 2 * threads - 1) / (2 * threads);
    if (!p->rows_per_task) p->rows_per_task = 1;
    embed_pool_run(p->m->pool, (rows + p->rows_per_task - 1) / p->rows_per_task, layernorm_task, p);
}

/* Runs one packed batch and writes the pooled (and maybe normalised) rows to out[s]. */
static int forward(embed_bert *m, bert_pass *p, float *const *out)
{
    const embed_bert_config *c = &m->cfg;
    size_t h = c->hidden, in = c->intermediate, T = p->tokens, S = p->nseq;
    embed_pool_run(m->pool, S, embed_task, p);
    for (size_t l = 0; l < c->layers; l++) {
        const bert_layer *L = &m->layer[l];
        bool last_cls = l + 1 == c->layers && c->pooling == EMBED_POOL_CLS;
        gemm(m, m->x, T, h, L->wqkv, L->bwqkv, 3 * h, L->bqkv, EPI_BIAS, m->qkv);
        p->cls_only = last_cls;
        embed_pool_run(m->pool, S * c->heads, attention_task, p);
        float *x = m->x;
        size_t rows = T;
        if (last_cls) {
            /* From here on only the CLS rows matter: gather their residuals. */
            for (size_t s = 0; s < S; s++) memcpy(m->xc + s * h, m->x + p->off[s] * h, h * 4);
            x = m->xc;
            rows = S;
        }
        gemm(m, m->ctx, rows, h, L->wo, L->bwo, h, NULL, EPI_NONE, m->tmp);
        residual_layernorm(p, x, m->tmp, rows, L->bo, L->ln1_g, L->ln1_b);
        gemm(m, x, rows, h, L->w1, L->bw1, in, L->b1, EPI_BIAS_GELU, m->ff);
        gemm(m, m->ff, rows, in, L->w2, L->bw2, h, NULL, EPI_NONE, m->tmp);
        residual_layernorm(p, x, m->tmp, rows, L->b2, L->ln2_g, L->ln2_b);
    }
    for (size_t s = 0; s < S; s++) {
        float *dst = out[s];
        if (c->pooling == EMBED_POOL_CLS) {
            memcpy(dst, m->xc + s * h, h * sizeof(float)); /* gathered by the last layer */
        } else {
            /* Mean over the sequence's own tokens: padding never existed. */
            for (size_t i = 0; i < h; i++) dst[i] = 0;
            for (size_t t = 0; t < p->len[s]; t++) {
                const float *row = m->x + (p->off[s] + t) * h;
                for (size_t i = 0; i < h; i++) dst[i] += row[i];
            }
            float inv = 1.0f / (float)p->len[s];
            for (size_t i = 0; i < h; i++) dst[i] *= inv;
        }
        if (c->normalize) embed_l2_normalize(dst, h);
    }
    return 0;
}

typedef struct len_index {
    size_t len, index;
} len_index;

static int by_len_desc(const void *a, const void *b)
{
    const len_index *x = a, *y = b;
    if (x->len != y->len) return x->len < y->len ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

int embed_bert_encode_ids(embed_bert *m, const uint32_t *const *ids, const size_t *lens, size_t n,
                          float *out, apidex_error *err)
{
    if (!n) return 0;
    const embed_bert_config *c = &m->cfg;
    size_t maxpos = m->max_tokens;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] < 1 || lens[i] > maxpos)
            return core_error_set(err, APIDEX_EINVAL,
                                  "sequence %zu has %zu tokens (must be 1..%zu)", i, lens[i],
                                  maxpos);
        for (size_t t = 0; t < lens[i]; t++)
            if (ids[i][t] >= c->vocab)
                return core_error_set(err, APIDEX_EINVAL, "token id %u is outside the vocabulary",
                                      ids[i][t]);
    }
    len_index *order = malloc(n * sizeof *order);
    if (!order) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) order[i] = (len_index){lens[i], i};
    /* Longest first: equal lengths batch together and the biggest scratch is sized at once. */
    qsort(order, n, sizeof *order, by_len_desc);

    size_t bmax = m->batch_size;
    size_t *len = malloc(bmax * sizeof *len), *off = malloc(bmax * sizeof *off);
    float **dst = malloc(bmax * sizeof *dst);
    uint32_t *packed = NULL;
    int rc = (len && off && dst) ? 0 : APIDEX_ENOMEM;
    size_t packed_cap = 0;
    for (size_t i = 0; i < n && !rc;) {
        size_t budget = BERT_BATCH_TOKENS > order[i].len ? BERT_BATCH_TOKENS : order[i].len;
        size_t S = 0, T = 0;
        while (i + S < n && S < bmax && T + order[i + S].len <= budget) T += order[i + S++].len;
        if (T > packed_cap) {
            free(packed);
            packed = malloc(T * sizeof *packed);
            packed_cap = packed ? T : 0;
            if (!packed) {
                rc = APIDEX_ENOMEM;
                break;
            }
        }
        size_t at = 0;
        for (size_t s = 0; s < S; s++) {
            size_t idx = order[i + s].index;
            len[s] = lens[idx];
            off[s] = at;
            dst[s] = out + idx * c->hidden;
            memcpy(packed + at, ids[idx], lens[idx] * sizeof *packed);
            at += lens[idx];
        }
        rc = grow_scratch(m, T);
        if (rc) break;
        bert_pass p = {.m = m, .ids = packed, .len = len, .off = off, .nseq = S, .tokens = T};
        rc = forward(m, &p, dst);
        m->stats.tokens += T;
        i += S;
    }
    free(packed);
    free(order);
    free(len);
    free(off);
    free(dst);
    if (rc) return core_error_set(err, rc, "out of memory while encoding");
    m->stats.texts += n;
    return 0;
}
