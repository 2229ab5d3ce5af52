/* Private to the local BERT encoder (bert.c, bert_forward.c): its limits, the loaded
   model and its scratch. The design is in bert.c. */
#ifndef APIDEX_EMBED_BERT_INT_H
#define APIDEX_EMBED_BERT_INT_H

#include "embed/embed_int.h"
#include "text/text.h"

#include <stdint.h>

#define BERT_MAX_HIDDEN   8192
#define BERT_MAX_LAYERS   128
#define BERT_MAX_POS      8192
#define BERT_MAX_VOCAB    (4u << 20)
#define BERT_BATCH_TOKENS 4096 /* tokens per forward pass (bounds scratch: ~70 MB at bge-small) */
#define BERT_PANEL        64   /* output columns per weight panel */
#define BERT_ROW_TILE     256  /* rows per GEMM task when there are many */

typedef struct bert_layer {
    /* Weights are [in x out] in column panels (pack_panels); Q, K, V side by side. */
    float *wqkv, *bqkv;             /* [h x 3h], [3h]; Q columns pre-scaled */
    float *wo, *bo, *ln1_g, *ln1_b; /* wo [h x h] */
    float *w1, *b1;                 /* [h x i] */
    float *w2, *b2;                 /* [i x h] */
    float *ln2_g, *ln2_b;
    /* bf16 products (embed_bert_options.bf16): the same four matrices, packed per panel as
       [ceil(in/2)][64][2] bf16 (embed_k_pack_bf16); NULL otherwise */
    uint16_t *bwqkv, *bwo, *bw1, *bw2;
} bert_layer;

struct embed_bert {
    embed_bert_config cfg;
    float *weights; /* one block holding every tensor below */
    float *word, *pos, *type, *emb_ln_g, *emb_ln_b;
    bert_layer *layer;
    text_wordpiece *wp;
    char *query_prefix;
    size_t max_tokens, batch_size;
    embed_pool *pool;
    embed_stats stats;
    /* scratch, grown on demand (cap_tokens rows) */
    size_t cap_tokens;
    float *x, *qkv, *ctx, *tmp, *ff, *xc;
    float *scores; /* threads * max_tokens^2 */
    size_t scores_cap;
    uint16_t *wbf; /* the bf16 panels of every layer (one block); NULL: f32 products */
    uint16_t *abf; /* the activations of one product, rounded to bf16 (cap_tokens rows) */
    char weights_dtype[8];
};

#endif /* APIDEX_EMBED_BERT_INT_H */
