/*
 * libFuzzer target for plain text (plain.c): arbitrary bytes, HTML and markdown, with every
 * flag. The result never grows past twice the input, has no trailing space (one
 * line: no leading one and no newline at all), and the cuts stay within their limits at word ends.
 */
#include "text/text.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    unsigned flags = data[0] & 3u;
    size_t limit = data[1];
    const char *s = (const char *)data + 2;
    size_t n = size - 2;
    core_buf b;
    core_buf_init(&b, 0);
    if (text_plain(s, n, flags, &b)) abort();
    if (b.len > 2 * n + 8) abort();
    if (b.len && space(b.data[b.len - 1])) abort();
    if (b.len && flags == TEXT_PLAIN_ONE_LINE && space(b.data[0])) abort();
    if ((flags & TEXT_PLAIN_ONE_LINE) && !(flags & TEXT_PLAIN_KEEP_LINES) &&
        memchr(b.data, '\n', b.len))
        abort();
    bool sentence;
    size_t k = text_plain_cut(s, n, limit, &sentence);
    if (k > n || (k > limit && k != n)) abort();
    if (k && k < n && !space(s[k]) && !strchr(",;:-(", s[k])) abort();
    core_buf_reset(&b);
    bool cut;
    if (n <= 512) {
        if (text_plain_shorten(s, n, limit % 32 + 1, &b, &cut)) abort();
        if (text_bpe_count(text_bpe_default(), b.data ? b.data : "", b.len) > limit % 32 + 1)
            abort();
    }
    core_buf_free(&b);
    return 0;
}
