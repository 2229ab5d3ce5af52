/*
 * Token windows: the paper's "token chunking" refinement. BPE is lossless, so
 * the bytes of a text's tokens concatenate back to the text; a window is then
 * simply the byte range of its tokens, exact to the byte.
 */
#include "chunk/chunk.h"

#include <stdlib.h>

int chunk_token_windows(const text_bpe *bpe, const char *s, size_t n, size_t size, size_t overlap,
                        chunk_window **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (size == 0 || overlap >= size || !bpe) return APIDEX_EINVAL;
    if (n == 0) return 0;
    uint32_t *ids = NULL;
    size_t n_ids = 0;
    int rc = text_bpe_encode(bpe, s, n, false, &ids, &n_ids);
    if (rc) return rc;
    /* offs[i] = byte offset where token i starts; offs[n_ids] = n. */
    size_t *offs = malloc((n_ids + 1) * sizeof *offs);
    if (!offs) {
        free(ids);
        return APIDEX_ENOMEM;
    }
    size_t pos = 0;
    char tmp[512];
    for (size_t i = 0; i < n_ids; i++) {
        offs[i] = pos;
        size_t len = text_bpe_decode_token(bpe, ids[i], tmp, sizeof tmp);
        if (len == 0) {
            free(ids);
            free(offs);
            return APIDEX_EINVAL;
        }
        pos += len;
    }
    offs[n_ids] = pos;
    free(ids);
    if (pos != n) {
        /* The encoder must be lossless; anything else is a bug, not bad input. */
        free(offs);
        return APIDEX_EINVAL;
    }
    size_t step = size - overlap;
    size_t count = n_ids <= size ? 1 : 1 + (n_ids - size + step - 1) / step;
    chunk_window *w = calloc(count, sizeof *w);
    if (!w) {
        free(offs);
        return APIDEX_ENOMEM;
    }
    for (size_t k = 0; k < count; k++) {
        size_t a = k * step;
        size_t b = a + size < n_ids ? a + size : n_ids;
        w[k].tok_start = a;
        w[k].tok_end = b;
        w[k].byte_start = offs[a];
        w[k].byte_end = offs[b];
    }
    free(offs);
    *out = w;
    *n_out = count;
    return 0;
}
