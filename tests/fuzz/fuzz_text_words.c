/*
 * libFuzzer target for the BM25 word splitter: arbitrary bytes with every flag. Words must
 * be non-empty, at most 100 bytes, valid UTF-8 and free of ASCII upper case and separators.
 */
#include "text/text.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

static text_words *words;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    words = text_words_new();
    if (!words) abort();
    return 0;
}

static int check_word(const char *word, size_t len, void *ctx)
{
    size_t *count = ctx;
    if (len == 0) abort();
    const uint8_t *p = (const uint8_t *)word;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t c;
        utf8proc_ssize_t k = utf8proc_iterate(p + i, (utf8proc_ssize_t)(len - i), &c);
        if (k <= 0) abort();
        if (c < 0x80 && !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) abort();
        i += (size_t)k;
    }
    /* The stemmer only shortens words; unstemmed words are capped at 100 bytes. */
    if (len > 100) abort();
    (*count)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned flags = data[0] & 3u;
    size_t count = 0;
    size_t n = text_words_split(words, (const char *)data + 1, size - 1, flags, check_word, &count);
    if (n != count) abort();
    return 0;
}
