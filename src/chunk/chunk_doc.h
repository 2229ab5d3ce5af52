/* Whole-document texts (compact JSON, JSON leaf lines) with operation spans. */
#ifndef APIDEX_CHUNK_DOC_H
#define APIDEX_CHUNK_DOC_H

#include "chunk/chunk.h"

/** A byte range [a, b) of a document text tied to an index (operation or path). */
typedef struct chunk_span {
    size_t idx;
    size_t a, b;
} chunk_span;

typedef struct chunk_doc_text {
    core_buf text;
    chunk_span *spans; /* idx = operation index: where its text lies (in text order) */
    size_t n_spans, cap_spans;
    chunk_span *occ; /* idx = path id (chunk_doc_path_index): where the path string is */
    size_t n_occ, cap_occ;
} chunk_doc_text;

/** The compact JSON of root (which must be api's document, maybe filtered). */
int chunk_doc_json(const spec_api *api, const jt_node *root, chunk_doc_text *out);
/** LlamaIndex JSONNodeParser lines: "key key ... value" per leaf, depth-first. */
int chunk_doc_lines(const spec_api *api, const jt_node *root, chunk_doc_text *out);
void chunk_doc_free(chunk_doc_text *d);
/** Path id of a path key: the index of the first operation with that path, or (size_t)-1. */
size_t chunk_doc_path_index(const spec_api *api, const char *path, size_t len);

#endif /* APIDEX_CHUNK_DOC_H */
