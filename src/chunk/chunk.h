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
 * The renderers (operation, schema, capability description) are public: the
 * search stage, `apidex show` and MCP get_endpoint print the same text.
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
 * The default (describe == NULL) is deterministic: chunk_describe_operation for
 * CHUNK_SUMMARY, chunk_example_query for CHUNK_QUERY. An LLM plugs in here.
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

/** Per-field text for a lexical index (each NULL when empty). */
typedef struct chunk_fields {
    const char *api; /* API title */
    const char *path;
    const char *operation_id;
    const char *summary;     /* operation summary; schema chunks: the schema name */
    const char *description; /* operation or schema description */
    const char *tags;        /* tag names, one per line */
    const char *params;      /* "name: description" per parameter, one per line */
    const char *body;        /* request body fields: "name: description" per line */
    const char *response; /* 2xx response: description, then field names (schema: its properties) */
} chunk_fields;

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
    chunk_fields fields;
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

/* ---------------------------------------------------------------- renderers */

/** Options of the readable renderings; zero = defaults. */
typedef struct chunk_render_options {
    unsigned depth;        /* schema nesting inlined (0 = 2, at most 8) */
    prep_options prep;     /* text filters for descriptions; structural ones hide parts */
    const bool *has_chunk; /* per api->schemas index: schema has its own chunk ("see" marker) */
    prep_report *report;   /* what the filters removed from the rendering is added here (NULL) */
} chunk_render_options;

/** Schema indexes a rendering mentioned (expanded, or named at the depth cut-off). */
typedef struct chunk_refs {
    size_t *idx;
    size_t n, cap;
} chunk_refs;

void chunk_refs_free(chunk_refs *r);

/**
 * Appends the compact readable rendering of op: method, path, summary, API and
 * server URL, operationId, tags, description, auth, parameters (in, type,
 * required, enum, default, description), request body fields and the 2xx
 * response fields, schemas inlined to opt->depth; cycles are printed once with
 * a "(circular: Name)" marker. refs (may be NULL) collects the schemas mentioned.
 */
int chunk_render_operation(const spec_api *api, const spec_operation *op,
                           const chunk_render_options *opt, core_buf *out, chunk_refs *refs);

/** Appends the rendering of api->schemas[index] (a schema chunk's content). */
int chunk_render_schema(const spec_api *api, size_t index, const chunk_render_options *opt,
                        core_buf *out, chunk_refs *refs);

/**
 * Appends the deterministic capability description of op: summary
 * or first sentence of the description, an action verb + resource from the
 * method and path, the parameters it accepts and what it returns.
 */
int chunk_describe_operation(const spec_api *api, const spec_operation *op,
                             const prep_options *prep, core_buf *out);

/** Appends a deterministic example user query for op ("How do I get ...?"). */
int chunk_example_query(const spec_api *api, const spec_operation *op, const prep_options *prep,
                        core_buf *out);

/** Fills the per-field text of op; strings are allocated in arena. */
int chunk_operation_fields(const spec_api *api, const spec_operation *op, const prep_options *prep,
                           core_arena *arena, chunk_fields *out);

/* ---------------------------------------------------------------- detail levels */

/** How much of an operation `show`, MCP get_endpoint and /v1/endpoints hand over (chunk_detail.c).
 */
typedef enum chunk_detail {
    CHUNK_DETAIL_SUMMARY = 1, /* one line: method, URL, summary */
    CHUNK_DETAIL_CALL,        /* what a call needs: servers with variables, auth, every parameter,
                                 the body's content types and schema (refs resolved to a depth,
                                 cycles marked), required inputs, the success response in brief */
    CHUNK_DETAIL_FULL         /* everything as written, each referenced schema once */
} chunk_detail;
/** OR'd into a level for chunk_detail_json: descriptions as the spec wrote them (markdown and
    HTML kept) instead of their plain text; for a renderer that makes them safe itself (the
    web page: serve/markup.c). */
enum { CHUNK_DETAIL_AS_WRITTEN = 0x100, CHUNK_DETAIL_LEVEL_MASK = 0xff };

/** "summary", "call", "full". */
const char *chunk_detail_name(chunk_detail d);
/** Parses a level name; APIDEX_EINVAL (the message names the levels) otherwise. */
int chunk_detail_parse(const char *name, chunk_detail *out, apidex_error *err);

/**
 * Appends op at the given level as one JSON object (compact): id, api, detail, method, path,
 * url, summary; from `call` on also servers (with variables), auth (alternatives of schemes,
 * each saying where the credential goes), parameters, request_body, inputs (every required
 * parameter and body field) and response (call) or responses + schemas (full). Enums and
 * fields are never cut; a depth cut is marked "x-apidex-omitted", a cycle {"$circular": Name}.
 * Returns 0, APIDEX_ENOMEM or APIDEX_ELIMIT (over 4 MiB); on error out is left as it was.
 */
int chunk_detail_json(const spec_api *api, const spec_operation *op, chunk_detail level,
                      core_buf *out);

/**
 * Appends the readable text of a chunk_detail_json object (json[0..len), which may carry a
 * "producers" array added by the caller): the same content, one line per parameter or field.
 * Returns 0, APIDEX_EPARSE (not such an object) or APIDEX_ENOMEM.
 */
int chunk_detail_text(const char *json, size_t len, core_buf *out, apidex_error *err);

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
