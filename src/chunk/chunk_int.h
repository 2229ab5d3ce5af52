/* Private helpers shared by the files of the chunk stage. */
#ifndef APIDEX_CHUNK_INT_H
#define APIDEX_CHUNK_INT_H

#include "chunk/chunk.h"

enum { CHUNK_MAX_DEPTH = 8 };

/**
 * Appends s with the text filters of prep applied, whitespace collapsed to
 * single spaces, cut after max bytes (0 = no cut) at a word boundary with "...".
 */
int chunk_clean_text(const prep_options *prep, const char *s, size_t max, core_buf *out,
                     prep_report *rep);
/** The media type to describe: the first JSON-like one with a schema, else the first. */
const spec_media *chunk_pick_media(const spec_media *media, size_t n);
/** The first 2xx response with a schema, else the first 2xx one, else NULL. */
const spec_response *chunk_success_response(const spec_operation *op);
/** Appends identifier words: "movie_id" -> "movie id", "topRated" -> "top rated". */
int chunk_ident_words(const char *s, size_t n, core_buf *out);

/* ---------------------------------------------------------------- the emitter (chunk_emit.c) */

/**
 * A writer into out that keeps the first failure: once rc is set (APIDEX_ENOMEM by a write,
 * or any code the renderer sets itself) nothing more is written, so a renderer writes on and
 * returns rc once. Plain data: out is the caller's.
 */
typedef struct chunk_emit {
    core_buf *out;
    int rc;
} chunk_emit;
/** Appends s (NULL: nothing). */
void chunk_put(chunk_emit *e, const char *s);
/** Appends n bytes of s. */
void chunk_putn(chunk_emit *e, const char *s, size_t n);
/** Appends the printf-formatted text. */
void chunk_putf(chunk_emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Appends n spaces. */
void chunk_indent(chunk_emit *e, unsigned n);
/** Appends s as a JSON string; NULL as null. */
void chunk_put_json_str(chunk_emit *e, const char *s);
/** Appends n bytes of s as a JSON string. */
void chunk_put_json_strn(chunk_emit *e, const char *s, size_t n);
/** Appends the node as compact JSON. */
void chunk_put_json(chunk_emit *e, const jt_node *n);

#endif /* APIDEX_CHUNK_INT_H */
