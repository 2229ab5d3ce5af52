/*
 * Reading the task: which words are intent and which are values (quoted strings, #tags,
 * @handles, e-mail addresses, URLs), which are names (capitalised inside a sentence),
 * typo correction, literal identifiers, and "my". The result is the query's terms with
 * their weights and the task-level signals in query_state.
 */
#include "search/search_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Does the task speak of the caller's own things ("my playlist", "our invoices")? */
bool query_says_mine(const char *s)
{
    static const char *const words[] = {"my", "mine", "our", "ours", NULL};
    for (const char *p = s; *p;) {
        while (*p && !isalpha((unsigned char)*p)) p++;
        const char *w = p;
        while (isalpha((unsigned char)*p)) p++;
        for (const char *const *k = words; *k && p > w; k++)
            if ((size_t)(p - w) == strlen(*k) && !strncasecmp(w, *k, (size_t)(p - w))) return true;
    }
    return false;
}

/* Does the task name something: a quoted string, or a capitalised word that does not
   start a sentence (titles, people, places)? */
static bool names_something(const char *s)
{
    for (const char *p = s; *p; p++) {
        if ((*p == '"' || *p == '\'') && p[1]) {
            const char *close = strchr(p + 1, *p);
            if (close && close - p > 2 && (*p == '"' || p == s || !isalnum((unsigned char)p[-1])))
                return true;
        }
    }
    bool sentence_start = true;
    for (const char *p = s; *p;) {
        while (*p && !isalnum((unsigned char)*p)) {
            if (*p == '.' || *p == '?' || *p == '!' || *p == ':') sentence_start = true;
            p++;
        }
        const char *w = p;
        while (*p && (isalnum((unsigned char)*p) || *p == '\'' || *p == '-')) p++;
        if (p == w) break;
        bool cap = isupper((unsigned char)w[0]);
        bool single_i = p - w == 1 && w[0] == 'I';
        if (cap && !sentence_start && !single_i) return true;
        sentence_start = false;
    }
    return false;
}

/* Does the task carry an identifier value itself (a number of 3+ digits, a UUID, a long
   mixed-case/digit token)? Then producers are not needed. */
static bool has_literal_id(const char *s)
{
    const char *p = s;
    while (*p) {
        while (*p && !isalnum((unsigned char)*p)) p++;
        const char *start = p;
        size_t digits = 0, alpha = 0, upper = 0;
        while (*p && (isalnum((unsigned char)*p) || *p == '-' || *p == '_')) {
            if (isdigit((unsigned char)*p))
                digits++;
            else if (isalpha((unsigned char)*p)) {
                alpha++;
                if (isupper((unsigned char)*p)) upper++;
            }
            p++;
        }
        size_t len = (size_t)(p - start);
        if (digits >= 3 && alpha == 0) return true;
        if (len >= 16 && digits >= 2 && alpha >= 4) return true; /* uuid, base62 ids */
        (void)upper;
    }
    return false;
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
 * Marks the bytes of text that are values, not intent: quoted strings ("name it 'Love
 * Mariah'", the message to post) and tokens such as #channel, @user, e-mail addresses
 * and URLs. Their words are not matched against the index; they still tell that the
 * task names something. A single quote opens only after a non-letter and closes only
 * before one, so "DiCaprio's" and "don't" are no quotes.
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

/* The task's terms, word by word (a word's case decides whether a typo is corrected). */
static int query_terms(query_state *st)
{
    const search_engine *e = st->e;
    store_terms *tp = store_terms_new();
    if (!tp) return APIDEX_ENOMEM;
    core_buf b;
    core_buf_init(&b, 1 << 20);
    size_t max_corrections = (size_t)st->p->typo_max;
    size_t min_len = (size_t)st->p->typo_min_len;
    size_t tries = 0;
    const char *text = st->q->text;
    bool *value = calloc(strlen(text) + 1, sizeof *value);
    int rc = value ? 0 : APIDEX_ENOMEM;
    if (value) mark_values(text, value);
    bool sentence_start = true;
    for (const char *w = text; *w && !rc;) {
        while (*w && isspace((unsigned char)*w)) w++;
        const char *we = w;
        while (*we && !isspace((unsigned char)*we)) we++;
        if (we == w) break;
        if (value[w - text]) {
            sentence_start = false;
            st->names_things = true;
            w = we;
            continue;
        }
        bool lower = !isupper((unsigned char)*w);
        /* A capitalised word inside a sentence is a name ("Star Wars", "The Shawshank
           Redemption"): it still counts, but little, so that "stars" and "redemptions"
           of other APIs do not outrank the task's own words. Acronyms (TV, MMS) count. */
        bool name = !lower && !sentence_start && we - w > 1 && islower((unsigned char)w[1]);
        double weight = name ? st->p->name_weight : 1.0;
        char last = we[-1];
        sentence_start = last == '.' || last == '?' || last == '!' || last == ':';
        core_buf_reset(&b);
        store_terms_append(tp, w, (size_t)(we - w), &b);
        if (b.failed) rc = APIDEX_ENOMEM;
        for (const char *t = b.data ? b.data : ""; *t && !rc;) {
            while (*t == ' ') t++;
            const char *end = t;
            while (*end && *end != ' ') end++;
            size_t n = (size_t)(end - t);
            if (n && !lex_is_stop(e, t, n)) {
                long ti = lex_term_find(e, t, n);
                if (ti < 0 && lower && tries < max_corrections) {
                    tries++; /* each try scans the vocabulary: a long task gets a few */
                    ti = lex_term_correct(e, t, n, min_len);
                }
                if (ti < 0) st->names_things = true; /* a word the index has never seen */
                if (ti >= 0) rc = lex_qterm_add(st, ti, weight);
            }
            t = end;
        }
        w = we;
    }
    free(value);
    store_terms_free(tp);
    core_buf_free(&b);
    return rc;
}

int query_read(query_state *st)
{
    int rc = query_terms(st);
    if (rc) return rc;
    st->literal_id = has_literal_id(st->q->text);
    if (names_something(st->q->text)) st->names_things = true;
    st->mine = query_says_mine(st->q->text);
    return 0;
}
