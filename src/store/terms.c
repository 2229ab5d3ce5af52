/* The term pipeline shared by the index build and the query side: split, lower-case, stem. */
#include "store/store.h"

#include <stdlib.h>

struct store_terms {
    text_words *words;
};

typedef struct terms_sink {
    core_buf *out;
    size_t n;
} terms_sink;

store_terms *store_terms_new(void)
{
    store_terms *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->words = text_words_new();
    if (!t->words) {
        free(t);
        return NULL;
    }
    return t;
}

void store_terms_free(store_terms *t)
{
    if (!t) return;
    text_words_free(t->words);
    free(t);
}

static int terms_emit(const char *word, size_t len, void *ctx)
{
    terms_sink *s = ctx;
    if (len == 0) return 0;
    if (s->out->len) core_buf_putc(s->out, ' ');
    core_buf_append(s->out, word, len);
    s->n++;
    /* A full buffer stops the split: the caller sees out->failed. */
    return s->out->failed ? 1 : 0;
}

size_t store_terms_append(store_terms *t, const char *s, size_t n, core_buf *out)
{
    if (!t || !s || n == 0) return 0;
    terms_sink sink = {out, 0};
    text_words_split(t->words, s, n, STORE_TERM_FLAGS, terms_emit, &sink);
    return sink.n;
}
