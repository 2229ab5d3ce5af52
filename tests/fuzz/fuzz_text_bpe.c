/* Fuzz target for the cl100k BPE: any bytes, special tokens on or off. Checks that
 * count == len(encode) and that valid UTF-8 decodes back to itself token by token. */
#include "text/text.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether s[0..n) is valid UTF-8 (then the ids must round-trip to the same bytes). */
static bool valid_utf8(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        size_t need;
        uint8_t lo = 0x80, hi = 0xBF;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else {
            return false;
        }
        if (need >= n - i) return false;
        if (s[i + 1] < lo || s[i + 1] > hi) return false;
        for (size_t j = 2; j <= need; j++)
            if (s[i + j] < 0x80 || s[i + j] > 0xBF) return false;
        i += need + 1;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const text_bpe *bpe = text_bpe_default();
    if (!bpe || size == 0) return 0;
    /* The first byte picks special-token handling; the rest is the text. */
    bool special = data[0] & 1;
    const char *s = (const char *)data + 1;
    size_t n = size - 1;

    uint32_t *ids = NULL;
    size_t n_ids = 0;
    if (text_bpe_encode(bpe, s, n, special, &ids, &n_ids) != 0) abort();
    if (!special && text_bpe_count(bpe, s, n) != n_ids) abort();
    if (valid_utf8((const uint8_t *)s, n)) {
        char *back = malloc(n + 1);
        size_t o = 0;
        if (!back) abort();
        for (size_t i = 0; i < n_ids; i++) {
            size_t len = text_bpe_decode_token(bpe, ids[i], back + o, n - o);
            if (len == 0 || o + len > n) abort();
            o += len;
        }
        if (o != n || memcmp(back, s, n) != 0) abort();
        free(back);
    }
    free(ids);
    return 0;
}
