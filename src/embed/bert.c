/*
 * The local BERT sentence encoder: loads a Hugging Face folder and runs the
 * post-LN transformer (embeddings, self-attention, GELU feed-forward) on the CPU.
 *
 * How a batch runs: texts are sorted by token count and cut into batches; the
 * tokens of a batch are packed into one [T x hidden] matrix with no padding
 * rows, so every linear layer is OpenBLAS sgemm over exactly T rows. Only
 * attention needs sequence boundaries: each (sequence, head) task attends over
 * its own tokens, which gives the same result as a padded batch with a padding
 * mask and wastes no work. Q, K and V are fused into one linear layer with the
 * 1/sqrt(head_dim) scale folded into Q. With CLS pooling the last layer runs
 * its attention output and feed-forward on the CLS rows only.
 *
 * Weights are repacked at load into panels of 64 output columns, each an
 * [in x 64] block stored contiguously (pack_panels), and every product is one
 * sgemm per panel. A short query has ~20 rows, so its cost is streaming 85 MB of
 * weights once: contiguous panels make that a sequential read (plain [in x out]
 * rows are pages apart and OpenBLAS then spends most of its time packing them).
 *
 * Parallelism is ours (embed_pool): OpenBLAS is set to one thread and each
 * worker multiplies its own tile, so GEMMs, attention and the elementwise
 * kernels share one set of threads without oversubscribing the cores.
 *
 * This file reads the model folder and encodes texts; the forward pass is bert_forward.c.
 */
#include "embed/bert_int.h"
#include "text/text.h"

#include <cblas.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------- config files */

static int file_error(apidex_error *err, int code, const char *file, const char *fmt,
                      const char *arg)
{
    core_error_set(err, code, fmt, arg);
    core_error_at(err, file, 0, 0, NULL);
    return code;
}

static char *path_join(const char *dir, const char *rel)
{
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

static bool file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Parses a small JSON file (configs are a few KB; 16 MB is a generous cap). */
static int json_load(const char *path, json_object **out, uint64_t *hash, apidex_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = core_file_read(path, 16u << 20, &text, &len, err);
    if (rc) return rc;
    if (hash) *hash = core_hash64(text, len);
    json_tokener *tok = json_tokener_new_ex(64);
    json_object *o = tok ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
    bool ok = tok && json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    free(text);
    if (!o || !ok) {
        json_object_put(o);
        return file_error(err, APIDEX_EPARSE, path, "%s", "not valid JSON");
    }
    *out = o;
    return 0;
}

static bool cfg_size(json_object *cfg, const char *key, size_t dflt, size_t max, size_t *v)
{
    json_object *o;
    if (!json_object_object_get_ex(cfg, key, &o)) {
        *v = dflt;
        return dflt != 0;
    }
    if (json_object_get_type(o) != json_type_int) return false;
    int64_t x = json_object_get_int64(o);
    if (x <= 0 || (uint64_t)x > max) return false;
    *v = (size_t)x;
    return true;
}

static const char *cfg_str(json_object *cfg, const char *key)
{
    json_object *o;
    if (!json_object_object_get_ex(cfg, key, &o) || !json_object_is_type(o, json_type_string))
        return NULL;
    return json_object_get_string(o);
}

static int read_config(const char *dir, embed_bert_config *c, apidex_error *err)
{
    char *path = path_join(dir, "config.json");
    if (!path) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!file_exists(path)) {
        file_error(err, APIDEX_ENOTFOUND, path, "%s",
                   "missing config.json (a Hugging Face BERT model folder needs it)");
        free(path);
        return APIDEX_ENOTFOUND;
    }
    json_object *cfg = NULL;
    int rc = json_load(path, &cfg, &c->fingerprint, err);
    if (rc) {
        free(path);
        return rc;
    }
    static const struct {
        const char *key;
        size_t dflt, max;
        size_t off;
    } fields[] = {
        {"hidden_size", 0, BERT_MAX_HIDDEN, offsetof(embed_bert_config, hidden)},
        {"num_hidden_layers", 0, BERT_MAX_LAYERS, offsetof(embed_bert_config, layers)},
        {"num_attention_heads", 0, BERT_MAX_HIDDEN, offsetof(embed_bert_config, heads)},
        {"intermediate_size", 0, 8 * BERT_MAX_HIDDEN, offsetof(embed_bert_config, intermediate)},
        {"vocab_size", 0, BERT_MAX_VOCAB, offsetof(embed_bert_config, vocab)},
        {"max_position_embeddings", 512, BERT_MAX_POS, offsetof(embed_bert_config, max_positions)},
        {"type_vocab_size", 2, 1024, offsetof(embed_bert_config, type_vocab)},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0] && !rc; i++) {
        size_t *dst = (size_t *)((char *)c + fields[i].off);
        if (!cfg_size(cfg, fields[i].key, fields[i].dflt, fields[i].max, dst)) {
            core_error_set(err, APIDEX_ESPEC, "config.json: '%s' is missing or out of range",
                           fields[i].key);
            core_error_at(err, path, 0, 0, NULL);
            rc = APIDEX_ESPEC;
        }
    }
    json_object *eps;
    c->layer_norm_eps = 1e-12f;
    if (!rc && json_object_object_get_ex(cfg, "layer_norm_eps", &eps)) {
        double e = json_object_get_double(eps);
        if (!(e > 0 && e < 1)) {
            rc = file_error(err, APIDEX_ESPEC, path, "%s", "config.json: bad layer_norm_eps");
        } else {
            c->layer_norm_eps = (float)e;
        }
    }
    const char *act = cfg_str(cfg, "hidden_act");
    const char *ptype = cfg_str(cfg, "position_embedding_type");
    const char *mtype = cfg_str(cfg, "model_type");
    if (!rc && act && strcmp(act, "gelu") != 0)
        rc = file_error(err, APIDEX_EUNSUPPORTED, path,
                        "config.json: hidden_act '%s' is not supported (only gelu)", act);
    if (!rc && ptype && strcmp(ptype, "absolute") != 0)
        rc = file_error(err, APIDEX_EUNSUPPORTED, path,
                        "config.json: position_embedding_type '%s' is not supported", ptype);
    if (!rc && mtype && strcmp(mtype, "bert") != 0)
        rc = file_error(err, APIDEX_EUNSUPPORTED, path,
                        "config.json: model_type '%s' is not supported (only bert)", mtype);
    if (!rc && c->hidden % c->heads != 0)
        rc = file_error(err, APIDEX_ESPEC, path, "%s",
                        "config.json: hidden_size is not a multiple of num_attention_heads");
    json_object_put(cfg);
    free(path);
    return rc;
}

/* 1_Pooling/config.json: sentence-transformers' flags, or the newer "pooling_mode" string. */
static int read_pooling(const char *dir, embed_pooling *pooling, apidex_error *err)
{
    *pooling = EMBED_POOL_MEAN; /* sentence-transformers' default without a pooling module */
    char *path = path_join(dir, "1_Pooling/config.json");
    if (!path) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!file_exists(path)) {
        free(path);
        return 0;
    }
    json_object *cfg = NULL;
    int rc = json_load(path, &cfg, NULL, err);
    if (rc) {
        free(path);
        return rc;
    }
    const char *mode = cfg_str(cfg, "pooling_mode");
    json_object *o;
    bool cls =
        json_object_object_get_ex(cfg, "pooling_mode_cls_token", &o) && json_object_get_boolean(o);
    bool mean = json_object_object_get_ex(cfg, "pooling_mode_mean_tokens", &o) &&
                json_object_get_boolean(o);
    static const char *const others[] = {
        "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens",
        "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken"};
    bool other = false;
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (json_object_object_get_ex(cfg, others[i], &o) && json_object_get_boolean(o))
            other = true;
    if (mode) {
        cls = !strcmp(mode, "cls");
        mean = !strcmp(mode, "mean");
        other = !cls && !mean;
    }
    if (other || (cls && mean) || (!cls && !mean)) {
        rc = file_error(err, APIDEX_EUNSUPPORTED, path, "%s",
                        "unsupported pooling: exactly one of CLS or mean pooling is supported");
    } else {
        *pooling = cls ? EMBED_POOL_CLS : EMBED_POOL_MEAN;
    }
    json_object_put(cfg);
    free(path);
    return rc;
}

/* modules.json lists the sentence-transformers pipeline; a Normalize step means unit vectors. */
static bool read_normalize(const char *dir)
{
    char *path = path_join(dir, "modules.json");
    bool norm = true; /* no pipeline file: unit vectors are what dense search wants */
    json_object *mods = NULL;
    apidex_error e;
    if (path && file_exists(path) && json_load(path, &mods, NULL, &e) == 0) {
        norm = false;
        if (json_object_is_type(mods, json_type_array)) {
            for (size_t i = 0; i < json_object_array_length(mods); i++) {
                const char *type = cfg_str(json_object_array_get_idx(mods, i), "type");
                if (type && strstr(type, "Normalize")) norm = true;
            }
        }
        json_object_put(mods);
    }
    free(path);
    return norm;
}

/* config_sentence_transformers.json may name a query prompt. */
static char *read_query_prompt(const char *dir)
{
    char *path = path_join(dir, "config_sentence_transformers.json");
    char *prompt = NULL;
    json_object *cfg = NULL, *prompts = NULL;
    apidex_error e;
    if (path && file_exists(path) && json_load(path, &cfg, NULL, &e) == 0) {
        if (json_object_object_get_ex(cfg, "prompts", &prompts)) {
            const char *q = cfg_str(prompts, "query");
            if (q && *q) prompt = strdup(q);
        }
        json_object_put(cfg);
    }
    free(path);
    return prompt;
}

const char *embed_default_query_prefix(const char *model_name)
{
    if (!model_name) return "";
    const char *base = strrchr(model_name, '/');
    base = base && base[1] ? base + 1 : model_name;
    char low[256];
    size_t n = 0;
    for (; base[n] && n < sizeof low - 1; n++)
        low[n] = (char)(base[n] >= 'A' && base[n] <= 'Z' ? base[n] + 32 : base[n]);
    low[n] = '\0';
    /* The bge English v1 / v1.5 family is trained with this instruction on queries. */
    if (!strncmp(low, "bge-", 4) && strstr(low, "-en")) return EMBED_BGE_QUERY_PREFIX;
    return "";
}

/* ---------------------------------------------------------------- weights */

typedef struct weight_loader {
    const embed_st *st;
    const char *prefix; /* "" or "bert." */
    float *next;        /* where the next tensor goes */
    apidex_error *err;
    int rc;
} weight_loader;

/* Loads tensor name (or alt) of the given shape (d1 = 0 for vectors). */
static float *load_tensor(weight_loader *wl, const char *name, const char *alt, size_t d0,
                          size_t d1)
{
    if (wl->rc) return NULL;
    char full[256];
    const embed_st_tensor *t = NULL;
    const char *names[2] = {name, alt};
    for (int i = 0; i < 2 && !t; i++) {
        if (!names[i]) continue;
        snprintf(full, sizeof full, "%s%s", wl->prefix, names[i]);
        t = embed_st_find(wl->st, full);
    }
    if (!t) {
        snprintf(full, sizeof full, "%s%s", wl->prefix, name);
        core_error_set(wl->err, APIDEX_ESPEC, "missing tensor '%s'", full);
        core_error_at(wl->err, wl->st->path, 0, 0, NULL);
        wl->rc = APIDEX_ESPEC;
        return NULL;
    }
    bool ok = d1 ? (t->ndim == 2 && t->shape[0] == d0 && t->shape[1] == d1)
                 : (t->ndim == 1 && t->shape[0] == d0);
    if (!ok) {
        char shape[96] = "";
        size_t used = 0;
        for (size_t i = 0; i < t->ndim && used < sizeof shape - 24; i++)
            used += (size_t)snprintf(shape + used, sizeof shape - used, "%s%llu", i ? ", " : "",
                                     (unsigned long long)t->shape[i]);
        if (d1)
            core_error_set(wl->err, APIDEX_ESPEC,
                           "tensor '%s' has shape [%s], config.json implies [%zu, %zu]", t->name,
                           shape, d0, d1);
        else
            core_error_set(wl->err, APIDEX_ESPEC,
                           "tensor '%s' has shape [%s], config.json implies [%zu]", t->name, shape,
                           d0);
        core_error_at(wl->err, wl->st->path, 0, 0, NULL);
        wl->rc = APIDEX_ESPEC;
        return NULL;
    }
    float *dst = wl->next;
    wl->rc = embed_st_read_f32(wl->st, t, dst, wl->err);
    if (wl->rc) return NULL;
    wl->next += d0 * (d1 ? d1 : 1);
    return dst;
}

/*
 * Repacks a PyTorch [out x in] weight in place into column panels: panel p holds outputs
 * p*64 .. p*64+63 as an [in x width] row-major block, contiguous. A product then reads each
 * panel as one sequential stream, which both OpenBLAS's packing and the memory system like:
 * for the few rows of a query this is ~1.8x faster than the plain [in x out] layout.
 */
static int pack_panels(float *w, size_t out, size_t in)
{
    float *tmp = malloc(out * in * sizeof *tmp);
    if (!tmp) return APIDEX_ENOMEM;
    memcpy(tmp, w, out * in * sizeof *tmp);
    for (size_t p0 = 0; p0 < out; p0 += BERT_PANEL) {
        size_t width = out - p0 < BERT_PANEL ? out - p0 : BERT_PANEL;
        float *panel = w + p0 * in;
        for (size_t k = 0; k < in; k++)
            for (size_t j = 0; j < width; j++) panel[k * width + j] = tmp[(p0 + j) * in + k];
    }
    free(tmp);
    return 0;
}

static size_t weights_floats(const embed_bert_config *c)
{
    size_t h = c->hidden, i = c->intermediate;
    size_t per_layer = 3 * h * h + 3 * h + h * h + h + 2 * h + i * h + i + h * i + h + 2 * h;
    return c->vocab * h + c->max_positions * h + c->type_vocab * h + 2 * h + c->layers * per_layer;
}

static int load_weights(embed_bert *m, const char *dir, apidex_error *err)
{
    char *path = path_join(dir, "model.safetensors");
    if (!path) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!file_exists(path)) {
        file_error(err, APIDEX_ENOTFOUND, path, "%s",
                   "missing model.safetensors (the weights; see `apidex model pull`)");
        free(path);
        return APIDEX_ENOTFOUND;
    }
    embed_st *st = NULL;
    int rc = embed_st_open(path, &st, err);
    free(path);
    if (rc) return rc;

    const embed_bert_config *c = &m->cfg;
    size_t total = weights_floats(c);
    if (posix_memalign((void **)&m->weights, 64, total * sizeof(float)) != 0) {
        m->weights = NULL;
        embed_st_close(st);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory for %zu MB of weights",
                              total * 4 >> 20);
    }
    /* Any change to the weights or the config changes the vectors, so both go in. */
    m->cfg.fingerprint =
        core_hash64(st->map, st->map_len) ^ (m->cfg.fingerprint * 0x9E3779B97F4A7C15ull);
    weight_loader wl = {st, "", m->weights, err, 0};
    if (!embed_st_find(st, "embeddings.word_embeddings.weight") &&
        embed_st_find(st, "bert.embeddings.word_embeddings.weight"))
        wl.prefix = "bert.";
    size_t h = c->hidden, in = c->intermediate;
    m->word = load_tensor(&wl, "embeddings.word_embeddings.weight", NULL, c->vocab, h);
    if (!wl.rc) {
        char pre[300];
        snprintf(pre, sizeof pre, "%sembeddings.word_embeddings.weight", wl.prefix);
        const embed_st_tensor *t = embed_st_find(st, pre);
        snprintf(m->weights_dtype, sizeof m->weights_dtype, "%s", t->dtype_name);
    }
    m->pos = load_tensor(&wl, "embeddings.position_embeddings.weight", NULL, c->max_positions, h);
    m->type = load_tensor(&wl, "embeddings.token_type_embeddings.weight", NULL, c->type_vocab, h);
    m->emb_ln_g =
        load_tensor(&wl, "embeddings.LayerNorm.weight", "embeddings.LayerNorm.gamma", h, 0);
    m->emb_ln_b = load_tensor(&wl, "embeddings.LayerNorm.bias", "embeddings.LayerNorm.beta", h, 0);
    m->layer = calloc(c->layers, sizeof *m->layer);
    if (!m->layer && !wl.rc) wl.rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    float scale = 1.0f / sqrtf((float)(h / c->heads));
    for (size_t l = 0; l < c->layers && !wl.rc; l++) {
        bert_layer *L = &m->layer[l];
        char n1[160], n2[160];
#define LNAME(buf, suffix) (snprintf(buf, sizeof buf, "encoder.layer.%zu.%s", l, suffix), buf)
        /* Q, K, V go into consecutive rows of one [3h x h] matrix (and one [3h] bias). */
        L->wqkv = load_tensor(&wl, LNAME(n1, "attention.self.query.weight"), NULL, h, h);
        load_tensor(&wl, LNAME(n1, "attention.self.key.weight"), NULL, h, h);
        load_tensor(&wl, LNAME(n1, "attention.self.value.weight"), NULL, h, h);
        L->bqkv = load_tensor(&wl, LNAME(n1, "attention.self.query.bias"), NULL, h, 0);
        load_tensor(&wl, LNAME(n1, "attention.self.key.bias"), NULL, h, 0);
        load_tensor(&wl, LNAME(n1, "attention.self.value.bias"), NULL, h, 0);
        L->wo = load_tensor(&wl, LNAME(n1, "attention.output.dense.weight"), NULL, h, h);
        L->bo = load_tensor(&wl, LNAME(n1, "attention.output.dense.bias"), NULL, h, 0);
        L->ln1_g = load_tensor(&wl, LNAME(n1, "attention.output.LayerNorm.weight"),
                               LNAME(n2, "attention.output.LayerNorm.gamma"), h, 0);
        L->ln1_b = load_tensor(&wl, LNAME(n1, "attention.output.LayerNorm.bias"),
                               LNAME(n2, "attention.output.LayerNorm.beta"), h, 0);
        L->w1 = load_tensor(&wl, LNAME(n1, "intermediate.dense.weight"), NULL, in, h);
        L->b1 = load_tensor(&wl, LNAME(n1, "intermediate.dense.bias"), NULL, in, 0);
        L->w2 = load_tensor(&wl, LNAME(n1, "output.dense.weight"), NULL, h, in);
        L->b2 = load_tensor(&wl, LNAME(n1, "output.dense.bias"), NULL, h, 0);
        L->ln2_g = load_tensor(&wl, LNAME(n1, "output.LayerNorm.weight"),
                               LNAME(n2, "output.LayerNorm.gamma"), h, 0);
        L->ln2_b = load_tensor(&wl, LNAME(n1, "output.LayerNorm.bias"),
                               LNAME(n2, "output.LayerNorm.beta"), h, 0);
#undef LNAME
        if (!wl.rc) {
            for (size_t k = 0; k < h * h; k++) L->wqkv[k] *= scale;
            for (size_t k = 0; k < h; k++) L->bqkv[k] *= scale;
            if (pack_panels(L->wqkv, 3 * h, h) || pack_panels(L->wo, h, h) ||
                pack_panels(L->w1, in, h) || pack_panels(L->w2, h, in))
                wl.rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
        }
    }
    embed_st_close(st);
    return wl.rc;
}

/* Elements of one matrix's bf16 panels: [in x out] f32 panels -> ceil(in/2) pair rows of 64. */
static size_t bf16_panels_size(size_t out, size_t in)
{
    return (out + BERT_PANEL - 1) / BERT_PANEL * ((in + 1) / 2) * 2 * BERT_PANEL;
}

static void pack_matrix_bf16(const float *w, size_t out, size_t in, uint16_t *dst)
{
    for (size_t p0 = 0; p0 < out; p0 += BERT_PANEL) {
        size_t width = out - p0 < BERT_PANEL ? out - p0 : BERT_PANEL;
        embed_k_pack_bf16(w + p0 * in, in, width, dst + (p0 / BERT_PANEL) * ((in + 1) / 2) * 128);
    }
}

/*
 * The bf16 copy of every layer's matrices (from the f32 panels), for a CPU with AVX-512
 * BF16. The products then read half the bytes and run about 1.5x faster; the vectors stay
 * within ~1e-3 of the f32 ones (tests/unit/test_embed_bert.c measures it).
 */
static int pack_bf16(embed_bert *m, apidex_error *err)
{
    if (!embed_k_has_bf16())
        return core_error_set(err, APIDEX_EUNSUPPORTED,
                              "bf16 products need a CPU with AVX-512 BF16, which this one "
                              "lacks: use the f32 precision");
    const embed_bert_config *c = &m->cfg;
    size_t h = c->hidden, in = c->intermediate;
    size_t per = bf16_panels_size(3 * h, h) + bf16_panels_size(h, h) + bf16_panels_size(in, h) +
                 bf16_panels_size(h, in);
    if (posix_memalign((void **)&m->wbf, 64, c->layers * per * sizeof(uint16_t)) != 0) {
        m->wbf = NULL;
        return core_error_set(err, APIDEX_ENOMEM, "out of memory for the bf16 weights");
    }
    uint16_t *o = m->wbf;
    for (size_t l = 0; l < c->layers; l++) {
        bert_layer *L = &m->layer[l];
        L->bwqkv = o;
        pack_matrix_bf16(L->wqkv, 3 * h, h, o);
        o += bf16_panels_size(3 * h, h);
        L->bwo = o;
        pack_matrix_bf16(L->wo, h, h, o);
        o += bf16_panels_size(h, h);
        L->bw1 = o;
        pack_matrix_bf16(L->w1, in, h, o);
        o += bf16_panels_size(in, h);
        L->bw2 = o;
        pack_matrix_bf16(L->w2, h, in, o);
        o += bf16_panels_size(h, in);
    }
    m->cfg.bf16 = true;
    return 0;
}

/* ---------------------------------------------------------------- open / close */

void embed_bert_close(embed_bert *m)
{
    if (!m) return;
    embed_pool_free(m->pool);
    text_wordpiece_close(m->wp);
    free(m->weights);
    free(m->wbf);
    free(m->abf);
    free(m->layer);
    free(m->query_prefix);
    free(m->x);
    free(m->qkv);
    free(m->ctx);
    free(m->tmp);
    free(m->ff);
    free(m->xc);
    free(m->scores);
    free(m);
}

static int open_tokenizer(embed_bert *m, const char *dir, apidex_error *err)
{
    const char *names[] = {"vocab.txt", "tokenizer.json"};
    for (size_t i = 0; i < 2; i++) {
        char *path = path_join(dir, names[i]);
        if (!path) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        if (file_exists(path)) {
            int rc = text_wordpiece_open(path, &m->wp, err);
            free(path);
            if (rc) return rc;
            if (text_wordpiece_vocab_size(m->wp) > m->cfg.vocab) {
                core_error_set(err, APIDEX_ESPEC,
                               "the tokenizer has %zu tokens but the model only %zu embeddings",
                               text_wordpiece_vocab_size(m->wp), m->cfg.vocab);
                core_error_at(err, dir, 0, 0, NULL);
                return APIDEX_ESPEC;
            }
            return 0;
        }
        free(path);
    }
    return file_error(err, APIDEX_ENOTFOUND, dir, "%s",
                      "no tokenizer: the model folder needs vocab.txt or tokenizer.json");
}

int embed_bert_open(const char *dir, const embed_bert_options *o, embed_bert **out,
                    apidex_error *err)
{
    *out = NULL;
    embed_bert_options dflt = {0};
    if (!o) o = &dflt;
    struct stat sb;
    if (!dir || stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return file_error(err, APIDEX_ENOTFOUND, dir ? dir : "", "%s", "model folder not found");
    embed_bert *m = calloc(1, sizeof *m);
    if (!m) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    int rc = read_config(dir, &m->cfg, err);
    if (!rc) rc = read_pooling(dir, &m->cfg.pooling, err);
    if (!rc) rc = load_weights(m, dir, err);
    if (!rc && o->bf16) rc = pack_bf16(m, err);
    if (!rc && !o->no_tokenizer) rc = open_tokenizer(m, dir, err);
    if (rc) {
        embed_bert_close(m);
        return rc;
    }
    m->cfg.weights_dtype = m->weights_dtype;
    m->cfg.normalize = o->normalize == EMBED_NORMALIZE_ON    ? true
                       : o->normalize == EMBED_NORMALIZE_OFF ? false
                                                             : read_normalize(dir);
    size_t cap = m->cfg.max_positions < 512 ? m->cfg.max_positions : 512;
    m->max_tokens = o->max_tokens && o->max_tokens < cap ? o->max_tokens : cap;
    if (m->max_tokens < 2) m->max_tokens = 2;
    m->batch_size = o->batch_size ? o->batch_size : 32;
    if (o->query_prefix) {
        m->query_prefix = strdup(o->query_prefix);
    } else {
        m->query_prefix = read_query_prompt(dir);
        if (!m->query_prefix) {
            /* The folder name is the model name (…/models/bge-small-en-v1.5). */
            char real[PATH_MAX];
            const char *name = realpath(dir, real) ? real : dir;
            m->query_prefix = strdup(embed_default_query_prefix(name));
        }
    }
    /* The encoder parallelises over its own pool; nested OpenBLAS threads would fight it. */
    openblas_set_num_threads(1);
    m->pool = embed_pool_new(o->threads);
    if (!m->query_prefix || !m->pool) {
        embed_bert_close(m);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    *out = m;
    return 0;
}

const embed_bert_config *embed_bert_info(const embed_bert *m)
{
    return &m->cfg;
}

const char *embed_bert_query_prefix(const embed_bert *m)
{
    return m->query_prefix;
}

embed_stats embed_bert_stats(const embed_bert *m)
{
    return m->stats;
}

/* ---------------------------------------------------------------- text input */

typedef struct tokenize_job {
    const embed_bert *m;
    const char *const *texts;
    bool is_query;
    uint32_t **ids;
    size_t *lens;
    bool *truncated;
    int *rcs;
} tokenize_job;

static void tokenize_task(void *ctx, size_t i, int worker)
{
    (void)worker;
    tokenize_job *j = ctx;
    const char *text = j->texts[i] ? j->texts[i] : "";
    const char *prefix = j->is_query ? j->m->query_prefix : "";
    size_t plen = strlen(prefix), tlen = strlen(text);
    char *joined = NULL;
    if (plen) {
        joined = malloc(plen + tlen + 1);
        if (!joined) {
            j->rcs[i] = APIDEX_ENOMEM;
            return;
        }
        memcpy(joined, prefix, plen);
        memcpy(joined + plen, text, tlen + 1);
        text = joined;
        tlen += plen;
    }
    j->rcs[i] = text_wordpiece_encode(j->m->wp, text, tlen, true, j->m->max_tokens, &j->ids[i],
                                      &j->lens[i], &j->truncated[i]);
    free(joined);
}

int embed_bert_encode(embed_bert *m, const char *const *texts, size_t n, bool is_query, float *out,
                      apidex_error *err)
{
    if (!n) return 0;
    if (!m->wp)
        return core_error_set(err, APIDEX_EINVAL, "the encoder was opened without a tokenizer");
    tokenize_job j = {m,
                      texts,
                      is_query,
                      calloc(n, sizeof(uint32_t *)),
                      calloc(n, sizeof(size_t)),
                      calloc(n, sizeof(bool)),
                      calloc(n, sizeof(int))};
    int rc = 0;
    if (!j.ids || !j.lens || !j.truncated || !j.rcs) {
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    } else {
        embed_pool_run(m->pool, n, tokenize_task, &j);
        for (size_t i = 0; i < n && !rc; i++) {
            if (j.rcs[i]) rc = core_error_set(err, j.rcs[i], "tokenizing text %zu failed", i);
            if (j.truncated[i]) m->stats.truncated++;
        }
        if (!rc) rc = embed_bert_encode_ids(m, (const uint32_t *const *)j.ids, j.lens, n, out, err);
    }
    if (j.ids)
        for (size_t i = 0; i < n; i++) free(j.ids[i]);
    free(j.ids);
    free(j.lens);
    free(j.truncated);
    free(j.rcs);
    return rc;
}
