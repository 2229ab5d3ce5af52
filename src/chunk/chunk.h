/*
 * chunk: turns one loaded API into chunks for retrieval. Eight strategies: the
 * seven of the chunking paper (Table 1: nosplit/endpoint/json + token windows,
 * endpoint with "remove examples" or "relevant fields", LLM summary and query)
 * and apidex's hybrid (the default): one chunk per operation with its schemas
 * inlined to depth 2, plus separate chunks for big or shared schemas.
 *
 * A chunk separates what a user or LLM receives (content) from what is
 * embedded and indexed (text), names the endpoints it covers, and carries
 * per-field text so a lexical index can weight path, summary, parameters, ...
 * The texts of an operation or schema come from the view stage (view/view.h:
 * renderings, descriptions, per-field text), which the index and the faces
 * call too, so a chunk holds the very text they print.
 *
 * Everything here is deterministic: the same API and options give the same
 * chunks, ids and order. Nothing mutates the loaded model.
 */
#ifndef APIDEX_CHUNK_H
#define APIDEX_CHUNK_H

#include "core/core.h"
#include "prep/prep.h"
#include "oas/oas.h"
#include "text/text.h"
#include "view/view.h"

/** Strategies (values only ever grow). */
typedef enum chunk_strategy {
    CHUNK_NOSPLIT = 1, /* whole document, token windows (s, l) */
    CHUNK_ENDPOINT,    /* one intermediate chunk per operation, token windows (s, l) */
    CHUNK_ENDPOINT_RE, /* per operation, requestBody and all examples removed */
    CHUNK_ENDPOINT_RF, /* per operation, relevant fields only */
    CHUNK_JSON,        /* LlamaIndex-style JSON leaf lines, token windows (s, l) */
    CHUNK_SUMMARY,     /* per operation: text = summary, content = full operation */
    CHUNK_QUERY,       /* per operation: text = an example user query */
    CHUNK_HYBRID       /* per operation with schemas inlined, plus schema chunks */
} chunk_strategy;

/** "nosplit", "endpoint", "endpoint-re", "endpoint-rf", "json", "summary", "query", "hybrid". */
const char *chunk_strategy_name(chunk_strategy s);
/** Parses a strategy name; APIDEX_EINVAL (message lists the names) when unknown. */
int chunk_strategy_parse(const char *name, chunk_strategy *out, apidex_error *err);

typedef enum chunk_type {
    CHUNK_TYPE_ENDPOINT = 1, /* one operation (or a window of one operation) */
    CHUNK_TYPE_SCHEMA,       /* one named schema */
    CHUNK_TYPE_API,          /* a whole API that fits one window */
    CHUNK_TYPE_FRAGMENT      /* a window of a document or of its JSON lines */
} chunk_type;

/** "endpoint", "schema", "api", "fragment". */
const char *chunk_type_name(chunk_type t);

/**
 * Produces the lexical/embedding text of a summary or query chunk into out.
 * The default (describe == NULL) is deterministic: view_describe_operation for
 * CHUNK_SUMMARY, view_example_query for CHUNK_QUERY. An LLM plugs in here.
 */
typedef int (*chunk_describe_fn)(void *ctx, const spec_api *api, const spec_operation *op,
                                 chunk_strategy strategy, core_buf *out, apidex_error *err);

/** Options; zero means the default for every field. */
typedef struct chunk_options {
    chunk_strategy strategy;    /* 0 = CHUNK_HYBRID */
    size_t size;                /* window size s in cl100k tokens (0 = 1024) */
    size_t overlap;             /* overlap l in tokens (must be < size) */
    prep_options prep;          /* preprocessing filters applied before chunking */
    unsigned inline_depth;      /* schema nesting rendered inline (0 = 2, at most 8) */
    size_t schema_min_tokens;   /* hybrid: a schema over this many tokens gets a chunk (0 = 100) */
    unsigned schema_min_uses;   /* hybrid: ... or one used by this many operations (0 = 3) */
    chunk_describe_fn describe; /* summary/query text generator (NULL = deterministic) */
    void *describe_ctx;
} chunk_options;

/** An endpoint a chunk covers. Strings live as long as the chunk list or the model. */
typedef struct chunk_endpoint {
    const char *api;    /* API id */
    const char *method; /* "GET" */
    const char *path;   /* path key as written, "/pets/{id}" */
    const char *op_id;  /* the operation's id: "api:operationId" or "api:METHOD /path" */
} chunk_endpoint;

typedef struct chunk_meta {
    const char *api;           /* API id */
    const char *strategy;      /* strategy name */
    const char *method, *path; /* operation chunks; NULL otherwise */
    const char *operation_id;  /* as written in the spec; NULL if none */
    const char *schema;        /* schema chunks: the schema name */
    const char *const *tags;
    size_t n_tags;
    bool deprecated;
    const char **ref_ids; /* ids of the schema chunks this chunk references */
    size_t n_ref_ids;
    const char **used_by; /* schema chunks: ids of operations using it (capped) */
    size_t n_used_by;
    size_t tokens;               /* cl100k tokens of content */
    size_t window, n_windows;    /* token windows: 0-based index and count (else 0 and 1) */
    size_t tok_start, tok_end;   /* the window's token range in its source text */
    size_t byte_start, byte_end; /* ... and its byte range there */
} chunk_meta;

typedef struct chunk {
    const char *id; /* stable and unique within the list, e.g. "petstore:getPetById" */
    chunk_type type;
    const char *content; /* what a user or LLM receives */
    size_t content_len;
    const char *text; /* what is embedded and indexed (may equal content) */
    size_t text_len;
    chunk_endpoint *endpoints;
    size_t n_endpoints;
    chunk_meta meta;
    view_fields fields;
} chunk;

/** Chunks of one or more APIs, in a deterministic order. Owns all its strings. */
typedef struct chunk_list {
    chunk *items;
    size_t n, cap;
    core_arena *arena;
    prep_report prep; /* what the preprocessing filters removed, summed over chunk_api calls */
    unsigned filters; /* the filters of those calls (or-ed) */
} chunk_list;

/** A new empty list. *out: chunk_list_free. */
int chunk_list_new(chunk_list **out);
/** Frees the list and everything it owns. NULL is a no-op. */
void chunk_list_free(chunk_list *l);

/**
 * Appends the chunks of api (per opt) to out. A failed API adds nothing and
 * returns 0. Not thread-safe for one list; different lists may be filled from
 * different threads. Returns 0, APIDEX_EINVAL (bad options) or APIDEX_ENOMEM.
 */
int chunk_api(const spec_api *api, const chunk_options *opt, chunk_list *out, apidex_error *err);

/**
 * Writes the list as {"chunks": [...]} (pretty with indent >= 0, compact when
 * < 0). with_fields adds each chunk's "fields". Invalid UTF-8 (a window may cut
 * a character) is written as U+FFFD.
 */
int chunk_list_write_json(const chunk_list *l, bool with_fields, int indent, core_buf *out);

/* ---------------------------------------------------------------- token windows */

/** One window: bytes [byte_start, byte_end) of the text = tokens [tok_start, tok_end). */
typedef struct chunk_window {
    size_t byte_start, byte_end;
    size_t tok_start, tok_end;
} chunk_window;

/**
 * Splits s[0..n) into cl100k windows of `size` tokens where window i+1 starts
 * `overlap` tokens before window i ends (the last may be shorter). A window's
 * text is exactly the bytes of its tokens. Empty text gives no windows.
 * *out is malloc'd (caller frees). Returns 0, APIDEX_EINVAL (overlap >= size,
 * size == 0) or APIDEX_ENOMEM.
 */
int chunk_token_windows(const text_bpe *bpe, const char *s, size_t n, size_t size, size_t overlap,
                        chunk_window **out, size_t *n_out);

#endif /* APIDEX_CHUNK_H */
