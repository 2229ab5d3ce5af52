/*
 * text: the analyzer, the one chain that turns text into the terms of the lexical index and
 * of a query: identifier-aware split, case fold, Snowball stem and whole identifiers
 * (words.c with TEXT_WORDS_STEM | TEXT_WORDS_KEEP_IDENT), the stop words a query drops, and
 * the word families a query term reaches in the index's vocabulary; and the stemmed words a
 * verb is read from (an operation's at index time, a task's at query time).
 *
 * Why one place: a query finds an operation only when its words become the very terms the
 * index builder stored. The index (store/writer.c) and the query reader (search/) used to
 * each carry their part of the chain (the flags in store.h, the stop words and suffixes in
 * search/lexical.c), so one side could change without the other; now both ask this file,
 * and tests/unit/test_search_analyzer.c pins that the two sides make the same terms.
 */
#include "text/text.h"
#include "text/lexicon.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The split flags of every term, at index and at query time. */
#define ANALYZER_FLAGS (TEXT_WORDS_STEM | TEXT_WORDS_KEEP_IDENT)

struct text_analyzer {
    text_words *words;
};

/* Ordinary English words that carry no intent; dropped from queries only. */
static const char *const stop_words[] = {TEXT_LEX_STOP_WORDS, NULL};

/* Derivational suffixes of English as Snowball leaves them ("payment", "subscription" ->
   "subscript", "activity" -> "activ" + "iti"). */
static const char *const suffixes[] = {TEXT_LEX_SUFFIXES, NULL};

/* The suffixes that make a verb's action noun (pay -> payment, subscribe -> subscription). */
static const char *const noun_suffixes[] = {TEXT_LEX_NOUN_SUFFIXES, NULL};

/* The stop words through the chain itself, so they compare with a query's terms. A stop
   word that makes more than one term (none today) is left out. */
static char stop_terms[sizeof stop_words / sizeof stop_words[0]][32];
static size_t n_stop_terms;
static pthread_once_t stop_once = PTHREAD_ONCE_INIT;

text_analyzer *text_analyzer_new(void)
{
    text_analyzer *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->words = text_words_new();
    if (!a->words) {
        free(a);
        return NULL;
    }
    return a;
}

void text_analyzer_free(text_analyzer *a)
{
    if (!a) return;
    text_words_free(a->words);
    free(a);
}

/* What text_analyzer_each carries through the split. */
typedef struct each_ctx {
    text_terms_use use;
    text_word_fn fn;
    void *ctx;
    size_t n;
} each_ctx;

static int each_term(const char *word, size_t len, void *ctx)
{
    each_ctx *c = ctx;
    if (len == 0) return 0;
    if (c->use == TEXT_TERMS_QUERY && text_term_is_stop(word, len)) return 0;
    c->n++;
    return c->fn(word, len, c->ctx);
}

size_t text_analyzer_each(text_analyzer *a, const char *s, size_t n, text_terms_use use,
                          text_word_fn fn, void *ctx)
{
    if (!a || !fn || !s || n == 0) return 0;
    each_ctx c = {use, fn, ctx, 0};
    text_words_split(a->words, s, n, use == TEXT_TERMS_STEMS ? TEXT_WORDS_STEM : ANALYZER_FLAGS,
                     each_term, &c);
    return c.n;
}

size_t text_analyzer_first_stem(text_analyzer *a, const char *s, size_t n, char *out, size_t cap)
{
    if (!a) {
        if (cap) out[0] = '\0';
        return 0;
    }
    return text_words_first_stem(a->words, s, n, out, cap);
}

static int append_term(const char *word, size_t len, void *ctx)
{
    core_buf *out = ctx;
    if (out->len) core_buf_putc(out, ' ');
    core_buf_append(out, word, len);
    /* A full buffer stops the split: the caller sees out->failed. */
    return out->failed ? 1 : 0;
}

size_t text_analyzer_terms(text_analyzer *a, const char *s, size_t n, text_terms_use use,
                           core_buf *out)
{
    return out ? text_analyzer_each(a, s, n, use, append_term, out) : 0;
}

/* Keeps the first term, if it is the only one. */
typedef struct one_term {
    char *out;
    size_t cap, n;
} one_term;

static int keep_one(const char *word, size_t len, void *ctx)
{
    one_term *o = ctx;
    if (o->n++ == 0 && len < o->cap) {
        memcpy(o->out, word, len);
        o->out[len] = '\0';
    } else {
        o->out[0] = '\0';
    }
    return 0;
}

static void stop_init(void)
{
    text_words *w = text_words_new();
    if (!w) return; /* out of memory: no stop words, as a query with none */
    for (size_t i = 0; stop_words[i]; i++) {
        char *slot = stop_terms[n_stop_terms];
        one_term o = {slot, sizeof stop_terms[0], 0};
        slot[0] = '\0';
        text_words_split(w, stop_words[i], strlen(stop_words[i]), ANALYZER_FLAGS, keep_one, &o);
        if (o.n == 1 && slot[0]) n_stop_terms++;
    }
    text_words_free(w);
}

bool text_term_is_stop(const char *term, size_t n)
{
    pthread_once(&stop_once, stop_init);
    for (size_t i = 0; i < n_stop_terms; i++)
        if (strlen(stop_terms[i]) == n && memcmp(stop_terms[i], term, n) == 0) return true;
    return false;
}

/* ---------------------------------------------------------------- word families */

static bool action_noun_suffix(const char *s)
{
    for (const char *const *k = noun_suffixes; *k; k++)
        if (!strcmp(*k, s)) return true;
    return false;
}

static size_t family_add(long *out, bool *noun, size_t n, size_t cap, long t, long self,
                         bool is_noun)
{
    if (t < 0 || t == self || n >= cap) return n;
    for (size_t i = 0; i < n; i++)
        if (out[i] == t) {
            noun[i] |= is_noun;
            return n;
        }
    out[n] = t;
    noun[n] = is_noun;
    return n + 1;
}

size_t text_term_family(const text_vocab *v, const text_family_rule *r, long self, const char *term,
                        size_t len, long *out, bool *noun, size_t cap)
{
    size_t n = 0;
    char buf[96];
    if (len < r->stem || len + 8 >= sizeof buf) return 0;
    for (const char *const *s = suffixes; *s; s++) {
        size_t sl = strlen(*s);
        memcpy(buf, term, len);
        memcpy(buf + len, *s, sl);
        n = family_add(out, noun, n, cap, v->find(v->ctx, buf, len + sl), self,
                       action_noun_suffix(*s));
        if (len >= sl + r->stem && !memcmp(term + len - sl, *s, sl))
            n = family_add(out, noun, n, cap, v->find(v->ctx, term, len - sl), self, false);
    }
    if (len >= r->min_len && len > r->tail && v->sorted) {
        /* the terms that share all but the last r->tail letters (term is NUL-terminated
           after len, as the vocabulary's terms are) */
        size_t keep = len - r->tail, lo = 0, hi = v->n_sorted;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            size_t ul;
            long id;
            if (strncmp(v->sorted(v->ctx, mid, &ul, &id), term, keep) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t i = lo; i < v->n_sorted && n < cap; i++) {
            size_t ul;
            long id;
            const char *u = v->sorted(v->ctx, i, &ul, &id);
            if (strncmp(u, term, keep)) break;
            if (ul <= len + r->tail && ul + r->tail >= len && ul >= keep)
                n = family_add(out, noun, n, cap, id, self,
                               ul > len); /* subscrib -> subscript: the longer is the noun */
        }
    }
    return n;
}
