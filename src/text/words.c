/*
 * text: identifier-aware word splitting for lexical (BM25) search, with optional Snowball
 * English stemming (libstemmer).
 *
 * API text mixes prose with identifiers: "/movie/{movie_id}/credits", "getHTTPResponse",
 * "x-rate-limit", "IPv4", "oauth2". A word is a maximal run of letters, digits and combining
 * marks, split further where the case or the letter/digit kind changes:
 *   getHTTPResponse -> get http response   (a capital run keeps all but its last letter,
 *                                           which starts the next word...)
 *   listURLs, IDsList -> list urls; ids list (...unless only a plural "s" follows it)
 *   oauth2, v2 -> oauth 2; v 2              (letter/digit boundaries always split, and so
 *   APIキー -> api キー                        do cased/caseless script boundaries)
 * An identifier is a chain of such words joined directly or by '_' / '-' (snake_case,
 * kebab-case, camelCase). With TEXT_WORDS_KEEP_IDENT a chain of two or more words is also
 * emitted whole, with the separators dropped ("movie_id", "movieId", "movie-id" and "MovieID"
 * all give "movieid"), so identifiers written in different conventions still match each other
 * while their parts match prose. Dots, slashes, braces and every other character separate
 * identifiers. CJK ideographs are one word each; a possessive "'s" is dropped.
 *
 * Words are case-folded with compatibility decomposition and lose their nonspacing marks
 * ("Ｃafé" -> "cafe", "Straße" -> "strasse"). Words (and whole identifiers) longer than
 * WORDS_MAX_BYTES after folding are skipped: hashes and encoded blobs are useless as terms.
 */
#include "text/text.h"

#include <libstemmer.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#define WORDS_MAX_BYTES 100
#define WORDS_FOLD_CAP  (WORDS_MAX_BYTES + 4 * 18 + 4) /* room for one more folded char */

typedef enum {
    WC_SEP = 0, /* anything that separates words and identifiers */
    WC_JOIN,    /* '_' and '-': separate words, join identifiers */
    WC_APOS,    /* ' and U+2019: separators, except in a possessive "'s" */
    WC_UPPER,   /* Lu, Lt */
    WC_LOWER,   /* Ll */
    WC_LETTER,  /* caseless letters: Lo, Lm */
    WC_DIGIT,   /* Nd, Nl, No */
    WC_MARK,    /* Mn, Mc, Me: belong to the preceding character */
    WC_CJK      /* ideographs: a word each */
} word_class;

struct text_words {
    struct sb_stemmer *stemmer;
    uint32_t *cps;
    uint8_t *cls;
    size_t cap;
    char part[WORDS_FOLD_CAP];
    size_t part_len;
    char ident[WORDS_FOLD_CAP];
    size_t ident_len;
    bool ident_over; /* the joined identifier got too long */
    size_t ident_parts;
    /* per call */
    unsigned flags;
    text_word_fn fn;
    void *ctx;
    size_t emitted;
    bool stop;
};

text_words *text_words_new(void)
{
    text_words *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->stemmer = sb_stemmer_new("english", NULL);
    if (!w->stemmer) {
        free(w);
        return NULL;
    }
    return w;
}

void text_words_free(text_words *w)
{
    if (!w) return;
    sb_stemmer_delete(w->stemmer);
    free(w->cps);
    free(w->cls);
    free(w);
}

static bool is_cjk(uint32_t c)
{
    return (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) ||
           (c >= 0xf900 && c <= 0xfaff) || (c >= 0x20000 && c <= 0x2fa1f);
}

static word_class classify(uint32_t c)
{
    if (c < 0x80) {
        if (c >= 'a' && c <= 'z') return WC_LOWER;
        if (c >= 'A' && c <= 'Z') return WC_UPPER;
        if (c >= '0' && c <= '9') return WC_DIGIT;
        if (c == '_' || c == '-') return WC_JOIN;
        if (c == '\'') return WC_APOS;
        return WC_SEP;
    }
    if (c == 0x2019) return WC_APOS;
    if (is_cjk(c)) return WC_CJK;
    switch (utf8proc_category((utf8proc_int32_t)c)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LT:
        return WC_UPPER;
    case UTF8PROC_CATEGORY_LL:
        return WC_LOWER;
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
        return WC_LETTER;
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
        return WC_DIGIT;
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
        return WC_MARK;
    default:
        return WC_SEP;
    }
}

static bool is_wordish(uint8_t c)
{
    return c >= WC_UPPER && c <= WC_MARK;
}

static bool is_letter(uint8_t c)
{
    return c == WC_UPPER || c == WC_LOWER || c == WC_LETTER;
}

/* Decodes s into w->cps / w->cls; invalid bytes become separators. */
static bool words_decode(text_words *w, const char *s, size_t n, size_t *count)
{
    if (n > w->cap) {
        uint32_t *cps = realloc(w->cps, n * sizeof *cps);
        if (!cps) return false;
        w->cps = cps;
        uint8_t *cls = realloc(w->cls, n);
        if (!cls) return false;
        w->cls = cls;
        w->cap = n;
    }
    const uint8_t *p = (const uint8_t *)s;
    size_t i = 0, k = 0;
    while (i < n) {
        utf8proc_int32_t c = p[i];
        utf8proc_ssize_t len = 1;
        if (c >= 0x80) {
            len = utf8proc_iterate(p + i, (utf8proc_ssize_t)(n - i), &c);
            if (len <= 0) {
                c = 0xfffd;
                len = 1;
            }
        }
        w->cps[k] = (uint32_t)c;
        w->cls[k] = (uint8_t)classify((uint32_t)c);
        k++;
        i += (size_t)len;
    }
    *count = k;
    return true;
}

static void words_emit(text_words *w, const char *word, size_t len, bool stem)
{
    if (w->stop || len == 0) return;
    if (stem) {
        const sb_symbol *st = sb_stemmer_stem(w->stemmer, (const sb_symbol *)word, (int)len);
        /* NULL only when the stemmer is out of memory: fall back to the unstemmed word. */
        if (st) {
            word = (const char *)st;
            len = (size_t)sb_stemmer_length(w->stemmer);
        }
    }
    w->emitted++;
    if (w->fn(word, len, w->ctx) != 0) w->stop = true;
}

/* Case-folds cps[a..b) into w->part: NFKD + case fold, nonspacing marks and non-alphanumerics
 * that compatibility mappings introduce (U+2044 of "½") dropped. False when too long. */
static bool words_fold(text_words *w, const uint32_t *cps, size_t a, size_t b)
{
    w->part_len = 0;
    for (size_t i = a; i < b; i++) {
        uint32_t c = cps[i];
        if (c < 0x80) {
            if (c >= 'A' && c <= 'Z') c += 32;
            w->part[w->part_len++] = (char)c;
        } else {
            utf8proc_int32_t buf[24];
            int bc = 0;
            utf8proc_ssize_t k = utf8proc_decompose_char(
                (utf8proc_int32_t)c, buf, 24,
                UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD, &bc);
            if (k < 0 || k > 24) continue;
            for (utf8proc_ssize_t t = 0; t < k; t++) {
                uint8_t cl = (uint8_t)classify((uint32_t)buf[t]);
                if (!is_wordish(cl) && cl != WC_CJK) continue;
                if (cl == WC_MARK && utf8proc_category(buf[t]) == UTF8PROC_CATEGORY_MN) continue;
                w->part_len +=
                    (size_t)utf8proc_encode_char(buf[t], (utf8proc_uint8_t *)w->part + w->part_len);
            }
        }
        if (w->part_len > WORDS_MAX_BYTES) return false;
    }
    return true;
}

static void words_part(text_words *w, size_t a, size_t b)
{
    bool ok = words_fold(w, w->cps, a, b);
    if (!ok || w->ident_len + w->part_len > WORDS_MAX_BYTES) w->ident_over = true;
    if (!ok || w->part_len == 0) return;
    if (!w->ident_over) {
        memcpy(w->ident + w->ident_len, w->part, w->part_len);
        w->ident_len += w->part_len;
    }
    w->ident_parts++;
    words_emit(w, w->part, w->part_len, w->flags & TEXT_WORDS_STEM);
}

/* The class of the first non-mark at or after i in [i, end), or WC_SEP. */
static uint8_t base_at(const text_words *w, size_t i, size_t end, size_t *at)
{
    while (i < end && w->cls[i] == WC_MARK) i++;
    if (at) *at = i;
    return i < end ? w->cls[i] : WC_SEP;
}

/* Whether the lower-case run at i is a lone plural "s" ("URLs", "IDsList"). */
static bool plural_s(const text_words *w, size_t i, size_t end)
{
    if (w->cps[i] != 's') return false;
    size_t next;
    return base_at(w, i + 1, end, &next) != WC_LOWER;
}

/* Splits the run of letters/digits/marks [a, end) into words at case and kind changes. */
static void words_segment(text_words *w, size_t a, size_t end)
{
    size_t start = a;
    uint8_t prev = w->cls[a] == WC_MARK ? WC_LETTER : w->cls[a];
    for (size_t t = a + 1; t < end && !w->stop; t++) {
        uint8_t cur = w->cls[t];
        if (cur == WC_MARK) continue;
        bool cut = false;
        if ((is_letter(prev) && cur == WC_DIGIT) || (prev == WC_DIGIT && is_letter(cur))) {
            cut = true;
        } else if ((prev == WC_LOWER || prev == WC_LETTER) && cur == WC_UPPER) {
            cut = true;
        } else if ((prev == WC_LETTER) != (cur == WC_LETTER) && is_letter(prev) && is_letter(cur)) {
            cut = true; /* cased script meets a caseless one: "APIキー" */
        } else if (prev == WC_UPPER && cur == WC_UPPER) {
            size_t next;
            if (base_at(w, t + 1, end, &next) == WC_LOWER && !plural_s(w, next, end)) cut = true;
        }
        if (cut) {
            words_part(w, start, t);
            start = t;
        }
        prev = cur;
    }
    if (!w->stop) words_part(w, start, end);
}

size_t text_words_split(text_words *w, const char *s, size_t n, unsigned flags, text_word_fn fn,
                        void *ctx)
{
    size_t count;
    if (!w || !fn || (!s && n > 0) || !words_decode(w, s, n, &count)) return 0;
    w->flags = flags;
    w->fn = fn;
    w->ctx = ctx;
    w->emitted = 0;
    w->stop = false;
    size_t i = 0;
    while (i < count && !w->stop) {
        uint8_t c = w->cls[i];
        if (c == WC_CJK) {
            words_part(w, i, i + 1);
            i++;
            continue;
        }
        if (!is_wordish(c)) {
            i++;
            continue;
        }
        /* One identifier: segments chained by '_' / '-'. */
        w->ident_len = 0;
        w->ident_parts = 0;
        w->ident_over = false;
        for (;;) {
            size_t j = i;
            while (j < count && is_wordish(w->cls[j])) j++;
            words_segment(w, i, j);
            i = j;
            if (w->stop) break;
            if (j + 1 < count && w->cls[j] == WC_APOS && (w->cps[j + 1] | 0x20) == 's' &&
                (j + 2 == count || !is_wordish(w->cls[j + 2]))) {
                i = j + 2; /* possessive: "user's" is "user" */
                break;
            }
            size_t k = j;
            while (k < count && w->cls[k] == WC_JOIN) k++;
            if (k == j || k == count || !is_wordish(w->cls[k])) break;
            i = k;
        }
        if ((flags & TEXT_WORDS_KEEP_IDENT) && w->ident_parts >= 2 && !w->ident_over)
            words_emit(w, w->ident, w->ident_len, flags & TEXT_WORDS_STEM);
    }
    return w->emitted;
}
