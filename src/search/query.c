/*
 * Reading the task, once, into words with what each is: intent, a name (capitalised inside
 * a sentence), or a value (quoted strings, #tags, @handles, e-mail addresses, URLs); which
 * words are literal numbers and ids; each word's stem and, as a verb, its action; the index
 * terms it matches (typos corrected); and the task-level signals: it names things, it says
 * "my". query_gives then answers, per input of an operation, whether the task already
 * holds its value.
 */
#include "search/search_int.h"
#include "text/lexicon.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Does the word at s[0..n) equal one of words, case-insensitively? */
static bool word_is(const char *s, size_t n, const char *const *words)
{
    for (const char *const *k = words; *k; k++)
        if (n == strlen(*k) && !strncasecmp(s, *k, n)) return true;
    return false;
}

bool query_word_in(const query_state *st, size_t i, const char *const *words)
{
    const qword *w = &st->words[i];
    return word_is(st->q->text + w->start, w->end - w->start, words);
}

/* Length of the quote mark at p (ASCII ' and ", or UTF-8 curly quotes), 0 if none. */
static size_t quote_at(const char *p, bool *single)
{
    const unsigned char *u = (const unsigned char *)p;
    *single = false;
    if (*u == '"') return 1;
    if (*u == '\'') return *single = true, 1;
    if (u[0] == 0xE2 && u[1] == 0x80 && (u[2] == 0x9C || u[2] == 0x9D)) return 3; /* “ ” */
    if (u[0] == 0xE2 && u[1] == 0x80 && (u[2] == 0x98 || u[2] == 0x99))           /* ‘ ’ */
        return *single = true, 3;
    return 0;
}

/*
 * Marks the bytes of text that are values, not intent: quoted strings ("call it 'Spring
 * Sale'", the message to post) and tokens such as #channel, @user, e-mail addresses
 * and URLs. Their words are not matched against the index; they still tell that the
 * task names something. A single quote opens only after a non-letter and closes only
 * before one, so "O'Brien's" and "don't" are no quotes.
 */
static void mark_values(const char *text, bool *value)
{
    size_t n = strlen(text);
    /* once a quote of a kind finds no close, none after it can: linear time */
    bool unclosed[2] = {false, false};
    for (size_t i = 0; i < n; i++) {
        bool single;
        size_t ql = quote_at(text + i, &single);
        if (!ql || unclosed[single] || (single && i && isalnum((unsigned char)text[i - 1])))
            continue;
        unclosed[single] = true;
        for (size_t j = i + ql; j < n; j++) {
            bool s2;
            size_t cl = quote_at(text + j, &s2);
            if (!cl || s2 != single) continue;
            if (single && j + cl < n && isalnum((unsigned char)text[j + cl])) continue;
            for (size_t k = i; k < j + cl; k++) value[k] = true;
            unclosed[single] = false;
            i = j + cl - 1;
            break;
        }
    }
    for (size_t i = 0; i < n;) {
        while (i < n && isspace((unsigned char)text[i])) i++;
        size_t start = i;
        bool tokenish = text[i] == '#' || text[i] == '@';
        while (i < n && !isspace((unsigned char)text[i])) {
            if (text[i] == '@' ||
                (text[i] == ':' && i + 2 < n && text[i + 1] == '/' && text[i + 2] == '/'))
                tokenish = true;
            i++;
        }
        if (tokenish)
            for (size_t k = start; k < i; k++) value[k] = true;
    }
}

/* A number ("567", "8812345") or an id-like token ("cus_Ab12Cd", a uuid, "a1b2c3d4"). */
static int literal_kind(const search_params *p, const char *s, size_t n)
{
    size_t digits = 0, alpha = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isdigit(c))
            digits++;
        else if (isalpha(c))
            alpha++;
        else if (c != '-' && c != '_' && c != '#')
            return QL_NONE;
    }
    if (!digits) return QL_NONE;
    if (!alpha) return QL_NUMBER;
    /* letters and digits mixed, long enough not to be a word ("mp3", "v2", "3rd", "top-10"):
       "cus_Ab12Cd34Ef56", a uuid, "KX-20931" */
    if ((n >= (size_t)p->id_len && digits >= 2) ||
        (digits >= (size_t)p->id_digits && alpha <= (size_t)p->id_digits))
        return QL_ID;
    return QL_NONE;
}

typedef struct name_ctx {
    const search_engine *e;
    const search_params *p;
    long name;
    bool written_as_name; /* capitalised inside a sentence, or in capitals */
    bool lower;           /* written in lower case: only specific label names count */
} name_ctx;

static int find_name(const char *w, size_t n, void *ctx)
{
    name_ctx *c = ctx;
    char buf[32];
    if (n >= sizeof buf || !(c->written_as_name || c->lower)) return 0;
    memcpy(buf, w, n);
    buf[n] = '\0';
    c->name = route_name_of(c->e, c->p, buf, !c->written_as_name);
    return c->name >= 0;
}

/* Splits the task into words and classifies each. */
static int read_words(query_state *st, const bool *value, text_analyzer *ta)
{
    const char *text = st->q->text;
    size_t n = strlen(text), cap = n / 2 + 2;
    st->words = calloc(cap, sizeof *st->words);
    if (!st->words) return APIDEX_ENOMEM;
    bool sentence_start = true;
    for (size_t i = 0; i < n && st->n_words < cap;) {
        while (i < n && isspace((unsigned char)text[i])) i++;
        size_t ws = i;
        while (i < n && !isspace((unsigned char)text[i])) i++;
        if (i == ws) break;
        size_t s = ws, e = i;
        /* trim punctuation, keeping what a value or a literal starts or ends with */
        while (s < e && !isalnum((unsigned char)text[s]) && !value[s] && text[s] != '#' &&
               !((unsigned char)text[s] & 0x80))
            s++;
        char punct = 0;
        while (e > s && !isalnum((unsigned char)text[e - 1]) && !value[e - 1] &&
               !((unsigned char)text[e - 1] & 0x80)) {
            if (strchr(",;.?!:", text[e - 1]) && !punct) punct = text[e - 1];
            e--;
        }
        if (!punct && i > ws && strchr(",;.?!:", text[i - 1])) punct = text[i - 1];
        qword *w = &st->words[st->n_words];
        memset(w, 0, sizeof *w);
        w->start = (uint32_t)s;
        w->end = (uint32_t)(e > s ? e : s);
        w->punct = punct;
        w->sentence_start = sentence_start;
        bool is_value = false;
        for (size_t k = ws; k < i && !is_value; k++) is_value = value[k];
        w->lower = s < e && !isupper((unsigned char)text[s]);
        if (is_value) {
            w->kind = QW_VALUE;
        } else if (s < e && !w->lower && !sentence_start && e - s > 1 &&
                   islower((unsigned char)text[s + 1])) {
            /* a capitalised word inside a sentence is a name; acronyms (TV, MMS) are not */
            w->kind = QW_NAME;
        }
        w->literal = (uint8_t)literal_kind(st->p, text + s, e - s);
        if (e > s && !is_value)
            text_analyzer_first_stem(ta, text + s, e - s, w->stem, sizeof w->stem);
        w->action = w->stem[0] ? action_of_stem(st->e, st->p, w->stem) : 0;
        w->name = -1;
        if (e > s && !is_value && st->e->n_names) {
            bool caps =
                e - s > 1 && isupper((unsigned char)text[s]) && isupper((unsigned char)text[s + 1]);
            name_ctx nc = {st->e, st->p, -1, w->kind == QW_NAME || caps, w->lower};
            text_analyzer_each(ta, text + s, e - s, TEXT_TERMS_INDEX, find_name, &nc);
            w->name = (int)nc.name;
        }
        sentence_start = punct == '.' || punct == '?' || punct == '!' || punct == ':';
        st->n_words++;
    }
    return 0;
}

/* "don't delete it", "without deleting", "never cancel": a negated verb asks nothing. */
static void mark_negated(query_state *st)
{
    static const char *const negations[] = {TEXT_LEX_NEGATIONS, NULL};
    const char *text = st->q->text;
    size_t reach = (size_t)st->p->negation_reach;
    for (size_t i = 0; i < st->n_words; i++) {
        qword *w = &st->words[i];
        for (size_t j = i >= reach ? i - reach : 0; j < i && !w->negated; j++)
            w->negated = word_is(text + st->words[j].start, st->words[j].end - st->words[j].start,
                                 negations) &&
                         !st->words[j].punct;
        if (w->negated) w->action = 0;
    }
}

static int occ_add(query_state *st, long term, double weight, uint32_t word, uint8_t family)
{
    if (core_array_grow(&st->occ, &st->cap_occ, st->n_occ, sizeof *st->occ, 32))
        return APIDEX_ENOMEM;
    st->occ[st->n_occ++] = (qocc){term, weight, word, family};
    return 0;
}

/* The index terms of what a verb sends ("text" -> send message), as occurrences of the
   verb's word (family 3, counted only when the word is a request's verb: rank.c). */
static int sense_add(query_state *st, text_analyzer *tp, const char *sense, double weight,
                     uint32_t word)
{
    core_buf b;
    core_buf_init(&b, 64);
    lex_query_terms(tp, sense, strlen(sense), &b);
    int rc = b.failed ? APIDEX_ENOMEM : 0;
    for (const char *t = b.data ? b.data : ""; *t && !rc;) {
        while (*t == ' ') t++;
        const char *end = t;
        while (*end && *end != ' ') end++;
        long si = end > t ? lex_term_find(st->e, t, (size_t)(end - t)) : -1;
        if (si >= 0) rc = occ_add(st, si, weight, word, 3);
        t = end;
    }
    core_buf_free(&b);
    return rc;
}

/* Each word's index terms: names count little (query.name_weight), so that other APIs'
   "stars" and "redemptions" do not outrank the words that say what to do; values not at
   all; a lower-case word the index has never seen is read as a typo of one it has. */
static int read_terms(query_state *st)
{
    const search_engine *e = st->e;
    text_analyzer *tp = text_analyzer_new();
    if (!tp) return APIDEX_ENOMEM;
    core_buf b;
    core_buf_init(&b, 1 << 20);
    size_t max_corrections = (size_t)st->p->typo_max;
    size_t min_len = (size_t)st->p->typo_min_len;
    size_t tries = 0;
    int rc = 0;
    const char *text = st->q->text;
    for (size_t wi = 0; wi < st->n_words && !rc; wi++) {
        const qword *w = &st->words[wi];
        if (w->kind == QW_VALUE) {
            st->names_things = true;
            continue;
        }
        if (w->literal != QL_NONE) continue; /* a number or an id is a value, not intent */
        if (w->negated && w->stem[0] && text_action_of_stem(w->stem, strlen(w->stem)))
            continue; /* "but don't delete it" */
        double weight = w->kind == QW_NAME ? st->p->name_weight : 1.0;
        core_buf_reset(&b);
        lex_query_terms(tp, text + w->start, w->end - w->start, &b);
        if (b.failed) rc = APIDEX_ENOMEM;
        for (const char *t = b.data ? b.data : ""; *t && !rc;) {
            while (*t == ' ') t++;
            const char *end = t;
            while (*end && *end != ' ') end++;
            size_t n = (size_t)(end - t);
            if (n) {
                long ti = lex_term_find(e, t, n);
                if (ti < 0 && w->lower && tries < max_corrections) {
                    tries++; /* each try scans the vocabulary: a long task gets a few */
                    ti = lex_term_correct(e, t, n, min_len);
                }
                if (ti < 0) { /* a word the index has never seen */
                    st->names_things = true;
                    if (st->words[wi].n_unknown < UINT8_MAX) st->words[wi].n_unknown++;
                }
                if (ti >= 0) rc = occ_add(st, ti, weight, (uint32_t)wi, 0);
                if (ti >= 0 && !rc && w->kind == QW_PLAIN) {
                    long fam[8];
                    bool noun[8];
                    size_t nf = lex_family(e, st->p, ti, fam, noun, 8);
                    for (size_t f = 0; f < nf && !rc; f++)
                        rc = occ_add(st, fam[f], weight, (uint32_t)wi, noun[f] ? 2 : 1);
                }
            }
            t = end;
        }
        const char *sense = w->kind == QW_PLAIN ? text_verb_sense(w->stem, strlen(w->stem)) : NULL;
        if (sense && !rc) rc = sense_add(st, tp, sense, weight, (uint32_t)wi);
    }
    text_analyzer_free(tp);
    core_buf_free(&b);
    return rc;
}

int query_read(query_state *st)
{
    const char *text = st->q->text;
    bool *value = calloc(strlen(text) + 1, sizeof *value);
    text_analyzer *ta = text_analyzer_new();
    int rc = value && ta ? 0 : APIDEX_ENOMEM;
    if (!rc) {
        mark_values(text, value);
        rc = read_words(st, value, ta);
    }
    free(value);
    text_analyzer_free(ta);
    if (!rc) mark_negated(st);
    if (!rc) rc = read_terms(st);
    static const char *const mine[] = {TEXT_LEX_MINE, NULL};
    for (size_t i = 0; i < st->n_words && !rc; i++) {
        const qword *w = &st->words[i];
        if (w->kind != QW_PLAIN) st->names_things = true;
        /* an acronym inside a sentence names something too ("the HBO series") */
        if (w->kind == QW_PLAIN && !w->lower && !w->sentence_start &&
            !(w->end - w->start == 1 && text[w->start] == 'I'))
            st->names_things = true;
        if (word_is(text + w->start, w->end - w->start, mine)) st->mine = true;
    }
    return rc;
}

int query_bonus(query_state *st, uint32_t op, uint32_t word, double weight)
{
    if (!st->bonus) {
        size_t n = st->e->n_ops ? st->e->n_ops : 1;
        st->bonus = calloc(n, sizeof *st->bonus);
        st->bonus_word = calloc(n, sizeof *st->bonus_word);
        if (!st->bonus || !st->bonus_word) return APIDEX_ENOMEM;
    }
    if (weight > st->bonus[op]) {
        st->bonus[op] = weight;
        st->bonus_word[op] = word;
    }
    return 0;
}

/* Is word i one of the entity's words (its stem, or a word of the parameter's name)? */
static bool word_means(const query_state *st, size_t i, const char *entity, const char *param)
{
    const qword *w = &st->words[i];
    if (!w->stem[0] || w->kind == QW_VALUE) return false;
    if (!strcmp(w->stem, entity)) return true;
    /* "user_id" for the word "user": the parameter's own words */
    size_t n = strlen(w->stem);
    for (const char *p = param; p && *p;) {
        while (*p && !isalpha((unsigned char)*p)) p++;
        const char *s = p;
        while (isalpha((unsigned char)*p) && !(p > s && isupper((unsigned char)*p))) p++;
        if ((size_t)(p - s) >= n && n >= 3 && !strncasecmp(s, w->stem, n)) return true;
    }
    return false;
}

bool query_gives(const query_state *st, const char *entity, const char *param)
{
    static const char *const id_words[] = {TEXT_LEX_ID_WORDS, NULL};
    static const char *const glue[] = {TEXT_LEX_ID_GLUE, NULL};
    static const char *const specific[] = {TEXT_LEX_SPECIFIC, NULL};
    const char *text = st->q->text;
    size_t reach = (size_t)st->p->id_reach, before = (size_t)st->p->id_before;
    size_t specific_reach = (size_t)st->p->specific_reach;
    for (size_t i = 0; i < st->n_words; i++) {
        if (!word_means(st, i, entity, param)) continue;
        /* "invoice 48213", "order ID 77", "the device with ID 12" */
        for (size_t j = i + 1, hops = 0; j < st->n_words && hops < reach; j++, hops++) {
            const qword *w = &st->words[j];
            if (w->literal != QL_NONE) return true;
            if (!word_is(text + w->start, w->end - w->start, glue)) break;
        }
        /* "the report by its unique ID", "ID of the report" */
        for (size_t j = i + 1; j < st->n_words && j <= i + reach; j++)
            if (word_is(text + st->words[j].start, st->words[j].end - st->words[j].start, id_words))
                return true;
        for (size_t j = i >= before ? i - before : 0; j < i; j++) {
            const qword *w = &st->words[j];
            if (word_is(text + w->start, w->end - w->start, id_words)) return true;
            if (st->p->producer_given_specific > 0 &&
                word_is(text + w->start, w->end - w->start, specific) && j + specific_reach >= i)
                return true;
        }
    }
    return false;
}

bool query_creates(const query_state *st, const char *entity, const char *param)
{
    static const char *const fresh[] = {TEXT_LEX_FRESH, NULL};
    const char *text = st->q->text;
    size_t reach = (size_t)st->p->fresh_reach;
    for (size_t i = 0; i < st->n_words; i++) {
        if (!word_means(st, i, entity, param)) continue;
        const qword *w = &st->words[i];
        if (w->verb && w->action == TEXT_ACTION_CREATE) return true; /* "order a pizza" */
        for (size_t j = i >= reach ? i - reach : 0; j < i; j++) {
            const qword *v = &st->words[j];
            if (v->punct) break;
            if (word_is(text + v->start, v->end - v->start, fresh)) return true;
        }
    }
    return false;
}
