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

#endif /* APIDEX_CHUNK_INT_H */
