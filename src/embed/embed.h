/*
 * embed: text → vector providers behind one interface, plus the exact dense scan.
 *
 * Design notes
 * - An embed_provider is a small vtable (embed, dim, model id, close). Two kinds
 *   exist: the local BERT encoder (a Hugging Face sentence-embedding folder run
 *   on the CPU with OpenBLAS) and an OpenAI-compatible /v1/embeddings client
 *   (OpenAI, Ollama, llama.cpp server, vLLM, TEI). Later stages (index, search)
 *   only see the vtable, so either provider can build or query an index.
 * - Queries and passages are embedded differently: bge-style models want an
 *   instruction prefix on queries only, so every call says is_query.
 * - The local encoder packs the tokens of a batch into one matrix (no padding
 *   rows at all); attention runs per sequence over its own tokens, which is the
 *   same math as a padded batch with a padding mask. Batches are formed from
 *   texts sorted by length so each attention task costs about the same.
 * - The library never reads configuration from the environment on its own,
 *   except where files live (HOME, XDG_CACHE_HOME, APIDEX_CACHE_DIR);
 *   embed_options_from_env() is the one place flags meet env vars.
 * - The dense scan (embed_vecscan_*) is an exact inner-product top-k over a
 *   row-major float matrix, with AVX-512 / AVX2 kernels chosen at run time and
 *   a portable fallback; it lives here so the store and search stages can use it.
 */
#ifndef APIDEX_EMBED_H
#define APIDEX_EMBED_H

#include "core/core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** The model used when none is named. */
#define EMBED_DEFAULT_MODEL "bge-small-en-v1.5"
/** The query instruction of the bge English v1.5 models. */
#define EMBED_BGE_QUERY_PREFIX "Represent this sentence for searching relevant passages: "

/* ---------------------------------------------------------------- options */

typedef enum {
    EMBED_NORMALIZE_AUTO = 0, /* local: as the model's modules.json says (on if absent); http: on */
    EMBED_NORMALIZE_ON = 1,
    EMBED_NORMALIZE_OFF = 2
} embed_normalize_mode;

/**
 * How to open a provider. Zero-initialise and set what you need; NULL / 0
 * fields take the documented defaults. Strings are copied by the open call.
 */
typedef struct embed_options {
    const char *provider;     /* "local", "http", or NULL: http when base_url is set, else local */
    const char *model;        /* local: folder path or name (resolved, see embed_model_resolve);
                                 http: the remote model name. NULL: EMBED_DEFAULT_MODEL */
    const char *base_url;     /* http: "http://host:port" or ".../v1" (the /v1/embeddings root) */
    const char *api_key;      /* http: sent as "Authorization: Bearer KEY" when set */
    const char *query_prefix; /* NULL: the model's own (bge English: EMBED_BGE_QUERY_PREFIX
                                 for local and remote bge-*-en models), "": none */
    int threads;              /* local: worker threads, 0 = number of CPUs (at most 64) */
    const char *precision;    /* local: "f32" (NULL: the default) or "bf16" (products in bf16
                                 on a CPU with AVX-512 BF16, ~1.4x faster, vectors within
                                 ~1e-3; part of the fingerprint). http: ignored */
    size_t batch_size;        /* texts per forward pass or request; 0 = 32 (local), 64 (http) */
    size_t max_tokens;        /* local: truncation length incl. [CLS]/[SEP]; 0 = min(512,
                                 max_position_embeddings) */
    embed_normalize_mode normalize;
    int max_retries;     /* http: retries on 429/5xx/transport errors; 0 = 5, <0 = none */
    unsigned backoff_ms; /* http: first retry delay, doubled each time; 0 = 500 */
    unsigned timeout_s;  /* http: per request; 0 = 120 */
} embed_options;

/**
 * Fills the NULL/0 fields of o from the environment: APIDEX_MODEL,
 * APIDEX_EMBED_URL, APIDEX_EMBED_KEY (then OPENAI_API_KEY), APIDEX_EMBED_PROVIDER,
 * APIDEX_THREADS, APIDEX_EMBED_PRECISION. The strings point into the environment (valid until it
 * changes). Flags set before the call win.
 */
void embed_options_from_env(embed_options *o);

/* ---------------------------------------------------------------- providers */

typedef struct embed_provider embed_provider;

/** Counters since the provider was opened (for reports and the CLI). */
typedef struct embed_stats {
    uint64_t texts;     /* texts embedded */
    uint64_t tokens;    /* local: tokens run through the encoder (incl. specials) */
    uint64_t truncated; /* local: texts cut at max_tokens */
    uint64_t requests;  /* http: requests sent (incl. retries) */
    uint64_t retries;   /* http: retried requests */
} embed_stats;

/** What a provider kind implements. All entries are required. */
typedef struct embed_provider_vtable {
    const char *kind; /* "local" or "http" */
    /* n texts (NUL-terminated UTF-8) → n * dim floats in out, row i for texts[i]. */
    int (*embed)(embed_provider *p, const char *const *texts, size_t n, bool is_query, float *out,
                 apidex_error *err);
    /* The vector size; an http provider that does not know it yet asks the server once. */
    int (*dim)(embed_provider *p, size_t *dim, apidex_error *err);
    void (*close)(embed_provider *p);
} embed_provider_vtable;

/** The common head of every provider (implementations embed it first). */
struct embed_provider {
    const embed_provider_vtable *vt;
    size_t dim;            /* 0 while unknown (http before its first answer) */
    char model_id[256];    /* "bge-small-en-v1.5", or the remote model name */
    char fingerprint[128]; /* changes whenever the vectors would: kind, model, weights, prefix */
    bool normalized;       /* rows are L2-normalised */
    embed_stats stats;
};

/**
 * Opens the provider that o describes (see embed_options). For local models
 * this loads the weights (hundreds of ms for bge-small); for http it only
 * checks the options. *out is owned by the caller: embed_provider_close.
 */
int embed_provider_open(const embed_options *o, embed_provider **out, apidex_error *err);

/**
 * Embeds n texts; out receives n * dim floats (call embed_provider_dim first to
 * size it). Not thread-safe: one call at a time per provider (the local encoder
 * already uses every configured thread inside one call).
 */
int embed_provider_embed(embed_provider *p, const char *const *texts, size_t n, bool is_query,
                         float *out, apidex_error *err);
/** The vector size (an http provider may make one request to learn it). */
int embed_provider_dim(embed_provider *p, size_t *dim, apidex_error *err);
/** The model id (static for the provider's lifetime). */
const char *embed_provider_model_id(const embed_provider *p);
/** NULL is a no-op. */
void embed_provider_close(embed_provider *p);

/* ---------------------------------------------------------------- local BERT encoder */

typedef enum { EMBED_POOL_CLS = 1, EMBED_POOL_MEAN = 2 } embed_pooling;

/** The shape of a loaded encoder (from config.json and 1_Pooling/config.json). */
typedef struct embed_bert_config {
    size_t hidden, layers, heads, intermediate;
    size_t vocab, max_positions, type_vocab;
    float layer_norm_eps;
    embed_pooling pooling;
    bool normalize;
    const char *weights_dtype; /* "F32", "F16" or "BF16" (as stored; computed in f32) */
    uint64_t fingerprint;      /* hash of config.json and model.safetensors */
    bool bf16;                 /* products in bf16 (embed_bert_options.bf16) */
} embed_bert_config;

/** A loaded encoder: immutable weights plus per-call scratch. Not thread-safe. */
typedef struct embed_bert embed_bert;

/** Load options; NULL means all defaults. */
typedef struct embed_bert_options {
    int threads;              /* 0 = number of CPUs */
    size_t max_tokens;        /* 0 = min(512, max_positions) */
    size_t batch_size;        /* texts per forward pass; 0 = 32 */
    const char *query_prefix; /* NULL: bge rule (see embed_options), "": none */
    embed_normalize_mode normalize;
    bool no_tokenizer; /* load only the weights (tests feeding token ids) */
    bool bf16;         /* matrix products in bf16 with f32 sums (needs AVX-512 BF16: else the
                          open fails with APIDEX_EUNSUPPORTED); vectors within ~1e-3 of f32 */
} embed_bert_options;

/**
 * Loads a Hugging Face BERT sentence-embedding folder: config.json,
 * model.safetensors (F32/F16/BF16), vocab.txt or tokenizer.json, optional
 * 1_Pooling/config.json (CLS or mean; mean when absent) and modules.json
 * (a Normalize module turns normalisation on). Every problem (missing file,
 * bad shape, dtype, truncated or hostile safetensors) is an error naming the
 * file. Sets OpenBLAS to one thread (process-wide): the encoder parallelises
 * itself. *out is owned by the caller: embed_bert_close.
 */
int embed_bert_open(const char *dir, const embed_bert_options *o, embed_bert **out,
                    apidex_error *err);
/** NULL is a no-op. */
void embed_bert_close(embed_bert *m);
/** The loaded shape (lives as long as m). */
const embed_bert_config *embed_bert_info(const embed_bert *m);
/** The query prefix in use ("" when none). */
const char *embed_bert_query_prefix(const embed_bert *m);

/**
 * Tokenizes (WordPiece, [CLS] ... [SEP], truncation at max_tokens), embeds and
 * pools n texts into out (n * hidden floats). is_query prepends the query prefix.
 */
int embed_bert_encode(embed_bert *m, const char *const *texts, size_t n, bool is_query, float *out,
                      apidex_error *err);
/**
 * Embeds n token-id sequences as given (they must already hold [CLS]/[SEP]).
 * Sequences are processed in length-sorted batches of batch_size; each
 * batch is one packed forward pass. Lengths must be 1..max_tokens
 * (min(512, max_positions) unless the options lowered it).
 */
int embed_bert_encode_ids(embed_bert *m, const uint32_t *const *ids, const size_t *lens, size_t n,
                          float *out, apidex_error *err);
/** Counters (texts, tokens, truncated). */
embed_stats embed_bert_stats(const embed_bert *m);

/* ---------------------------------------------------------------- model files */

/**
 * The folder holding named models: $APIDEX_CACHE_DIR/models, else
 * $XDG_CACHE_HOME/apidex/models, else $HOME/.cache/apidex/models. malloc'd.
 */
int embed_model_cache_dir(char **out, apidex_error *err);

/**
 * Resolves a model argument: NULL → EMBED_DEFAULT_MODEL; an existing folder
 * (or anything with a '/') is used as is; otherwise a name looked up in the
 * cache folder. The folder must hold config.json and model.safetensors; when it
 * does not, the error says what is missing and how to get it
 * (`apidex model pull NAME`, or which files to place where). *dir is malloc'd.
 */
int embed_model_resolve(const char *model, char **dir, apidex_error *err);

/** One file of a model to fetch. */
typedef struct embed_pull_file {
    const char *path;   /* relative to the repository root, e.g. "1_Pooling/config.json" */
    const char *sha256; /* lower-case hex, or NULL when no checksum is known */
    bool required;      /* a 404 on an optional file is skipped */
} embed_pull_file;

typedef struct embed_pull_options {
    const char *base_url;                /* NULL: "https://huggingface.co" */
    const char *revision;                /* NULL: "main" */
    const char *dest_name;               /* NULL: the known name, or the repository's last part */
    const char *cache_dir;               /* NULL: embed_model_cache_dir() */
    const char *const *sha256_overrides; /* NULL-terminated "FILE=HEX" strings */
    FILE *progress;                      /* NULL: quiet; else one line per file */
    unsigned connect_timeout_s;          /* 0 = 15 */
} embed_pull_options;

/**
 * Downloads a model into cache_dir/NAME: `name` is a known model
 * ("bge-small-en-v1.5" = BAAI/bge-small-en-v1.5, with a pinned sha256 for its
 * weights) or any "org/repo" of Hugging Face. Files go to a temporary folder,
 * are checked (sha256 where known, JSON files must parse), and only then
 * replace cache_dir/NAME in one rename. On failure nothing is left behind and
 * the message says how to place the files by hand. *dir (may be NULL) gets the
 * final folder (malloc'd).
 */
int embed_model_pull(const char *name, const embed_pull_options *o, char **dir, apidex_error *err);

/**
 * Appends to out the steps to install a model by hand (which files, from
 * where, into which folder, with their checksums), for when pull cannot reach
 * the hub. APIDEX_ENOTFOUND for an unknown name.
 */
int embed_model_manual_steps(const char *name, core_buf *out);

/** The files fetched for a model name (NULL-path terminated; static). */
const embed_pull_file *embed_model_manifest(const char *name, const char **repo);

/* ---------------------------------------------------------------- sha256 */

typedef struct embed_sha256 {
    uint32_t h[8];
    uint64_t len;
    uint8_t block[64];
    size_t fill;
} embed_sha256;

void embed_sha256_init(embed_sha256 *s);
void embed_sha256_update(embed_sha256 *s, const void *p, size_t n);
/** Writes 64 lower-case hex digits plus NUL into hex. */
void embed_sha256_final_hex(embed_sha256 *s, char hex[65]);
/** sha256 of a whole file as hex. */
int embed_sha256_file(const char *path, char hex[65], apidex_error *err);

/* ---------------------------------------------------------------- dense scan */

/** One result of a scan: row index and inner product. */
typedef struct embed_hit {
    uint32_t row;
    float score;
} embed_hit;

/** Worker threads for scans; NULL-safe: a NULL pool scans on the caller's thread. */
typedef struct embed_pool embed_pool;

/**
 * A pool of threads-1 workers (the caller is the last one); threads <= 0 means
 * one per CPU. With more than one thread it sets OpenBLAS to one thread
 * (process-wide): each worker runs its own sgemm tiles. NULL on failure.
 */
embed_pool *embed_pool_new(int threads);
void embed_pool_free(embed_pool *p);
int embed_pool_threads(const embed_pool *p);

/**
 * Exact top-k by inner product of query (dim floats) against the n rows of
 * mat (row-major, n * dim). hits gets min(k, n) results, best first; equal
 * scores rank the lower row first. Vectors should be L2-normalised for cosine.
 * pool may be NULL. Returns the number of hits.
 */
size_t embed_vecscan_topk(const float *mat, size_t n, size_t dim, const float *query, size_t k,
                          embed_pool *pool, embed_hit *hits);
/**
 * nq queries at once (queries row-major, nq * dim; hits nq * k, row q at
 * hits + q*k). Reads the matrix once per block of queries. Returns hits per query.
 */
size_t embed_vecscan_topk_batch(const float *mat, size_t n, size_t dim, const float *queries,
                                size_t nq, size_t k, embed_pool *pool, embed_hit *hits);
/** Inner product with the best kernel of this CPU. */
float embed_dot(const float *a, const float *b, size_t dim);
/** Scales v to unit length (left alone when its norm is 0). */
void embed_l2_normalize(float *v, size_t dim);
/** The kernel chosen at run time: "avx512", "avx2", "neon" (arm64) or "scalar". */
const char *embed_simd_name(void);

/* ---------------------------------------------------------------- the BLAS core (cpu.c) */

/** Does this CPU have the AVX-512 subsets (F, CD, BW, DQ, VL) OpenBLAS's SkylakeX kernels use? */
bool embed_cpu_has_avx512(void);
/**
 * The OPENBLAS_CORETYPE to name given OpenBLAS's own choice (`detected`, its core name) and
 * the CPU's AVX-512 support: "SkylakeX" when the CPU has AVX-512 and the choice is not an
 * AVX-512 core, else NULL (leave OpenBLAS to its detection). Never an AVX-512 core without it.
 */
const char *embed_blas_core_for(const char *detected, bool cpu_avx512);
/** embed_blas_core_for of the loaded OpenBLAS and this CPU (NULL with another BLAS). */
const char *embed_blas_core_advice(void);

#endif /* APIDEX_EMBED_H */
