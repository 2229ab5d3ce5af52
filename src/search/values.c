/*
 * What a task's values are. A task often hands over the very value an operation takes:
 * "send it to +1 555 0100", "invite jane@example.com", "point the name at 192.0.2.7",
 * "shorten https://example.com/a". The value's form says what kind of thing it is (a phone
 * number, an e-mail address, an IP address, a URL) even when the task never says the
 * word, and an operation that takes one names it among its inputs ("To: the recipient's
 * phone number", "email", "ip_address", "url"). So each recognised value weighs the
 * operations whose parameter field has the kind's word by query.value_weight times that
 * word's idf, in the request the value stands in: where several operations match the
 * task's words, the one that takes what the task gives comes first.
 *
 * Only the parameter field counts: a path or a summary that speaks of phone numbers
 * (buying one, listing them) manages them, it does not take one.
 */
#include "search/search_int.h"
#include "text/lexicon.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

typedef enum value_kind { VK_NONE, VK_EMAIL, VK_URL, VK_IP, VK_PHONE } value_kind;

/* The word an operation's inputs use for each kind. */
static const char *const kind_word[] = {NULL, TEXT_LEX_VALUE_KINDS};

static bool is_email(const char *s, size_t n)
{
    const char *at = memchr(s, '@', n);
    if (!at || at == s) return false; /* "@handle" is a handle */
    const char *dot = memchr(at, '.', n - (size_t)(at - s));
    return dot && dot > at + 1 && dot < s + n - 1;
}

static bool is_url(const char *s, size_t n)
{
    for (size_t i = 0; i + 3 <= n; i++)
        if (!memcmp(s + i, "://", 3)) return i > 0;
    return n > 4 && !strncasecmp(s, "www.", 4);
}

static bool is_ip(const char *s, size_t n)
{
    size_t groups = 0, digits = 0;
    for (size_t i = 0; i < n; i++) {
        if (isdigit((unsigned char)s[i])) {
            if (++digits > 3) return false;
        } else if (s[i] == '.' && digits) {
            groups++;
            digits = 0;
        } else {
            return false;
        }
    }
    return groups == 3 && digits;
}

/* A phone number from s: "+" and 8-15 digits in groups ("+1 415 555 0134", "+44 7700
   900123"), or the North American "415-555-0134" / "(415) 555-0134". Its length, or 0. */
static size_t phone_at(const char *s, size_t n)
{
    size_t i = 0, digits = 0, end = 0;
    bool plus = s[0] == '+';
    if (plus) i = 1;
    if (!plus && !isdigit((unsigned char)s[0]) && s[0] != '(') return 0;
    for (; i < n && i < 40; i++) { /* bounded: a long run of digits costs no more */
        unsigned char c = (unsigned char)s[i];
        if (isdigit(c)) {
            if (++digits > 15) return 0;
            end = i + 1;
        } else if (!(c == ' ' || c == '-' || c == '.' || c == '(' || c == ')')) {
            break;
        } else if (c == ' ' && i + 1 < n && !isdigit((unsigned char)s[i + 1]) && s[i + 1] != '(') {
            break;
        }
    }
    if (end < n && (isalnum((unsigned char)s[end]) || s[end] == '@')) return 0;
    if (plus) return digits >= 8 && digits <= 15 ? end : 0;
    /* without a country code: exactly 3-3-4 with separators */
    if (digits != 10) return 0;
    size_t groups[3] = {0}, g = 0;
    for (size_t k = 0; k < end && g < 3; k++) {
        if (isdigit((unsigned char)s[k]))
            groups[g]++;
        else if (groups[g])
            g++;
    }
    return groups[0] == 3 && groups[1] == 3 && groups[2] == 4 ? end : 0;
}

/* The first word that starts within [from, to), or -1. */
static long word_at(const query_state *st, size_t from, size_t to)
{
    for (size_t i = 0; i < st->n_words; i++)
        if (st->words[i].start >= from && st->words[i].start < to) return (long)i;
    return -1;
}

typedef struct weigh_ctx {
    query_state *st;
    uint32_t word;
    double weight;
    int rc;
} weigh_ctx;

static bool weigh_op(void *ctx, uint32_t op, long term)
{
    (void)term;
    weigh_ctx *c = ctx;
    c->rc = query_bonus(c->st, op, c->word, c->weight);
    return c->rc != 0;
}

/* Weighs the operations whose parameter field has the kind's word. */
static int weigh_kind(query_state *st, text_analyzer *tp, core_buf *b, value_kind k, long word)
{
    const char *kw = kind_word[k];
    core_buf_reset(b);
    lex_query_terms(tp, kw, strlen(kw), b);
    if (b->failed) return APIDEX_ENOMEM;
    const char *t = b->data ? b->data : "";
    const char *end = strchr(t, ' ');
    size_t n = end ? (size_t)(end - t) : strlen(t);
    long term = n ? lex_term_find(st->e, t, n) : -1;
    if (term < 0) return 0;
    weigh_ctx c = {st, (uint32_t)word, st->p->value_weight * lex_idf(st->e, term), 0};
    lex_field_ops(st->e, term, STORE_FIELD_PARAMS, weigh_op, &c);
    return c.rc;
}

bool values_give(const query_state *st, const char *param)
{
    if (!param) return false;
    for (int k = VK_EMAIL; k <= VK_PHONE; k++) {
        if (!st->has_value[k]) continue;
        /* the kind's word in the input's name: "email", "recipient_email", "callbackUrl" */
        size_t n = strlen(kind_word[k]);
        for (const char *p = param; *p; p++)
            if (!strncasecmp(p, kind_word[k], n)) {
                bool starts = p == param || !isalpha((unsigned char)p[-1]) ||
                              (islower((unsigned char)p[-1]) && isupper((unsigned char)*p));
                bool ends = !isalpha((unsigned char)p[n]) || isupper((unsigned char)p[n]);
                if (starts && ends) return true;
            }
    }
    return false;
}

int values_read(query_state *st)
{
    const char *text = st->q->text;
    size_t n = strlen(text);
    bool seen[5] = {false};
    text_analyzer *tp = NULL;
    core_buf b;
    core_buf_init(&b, 256);
    int rc = 0;
    for (size_t i = 0; i < n && !rc;) {
        while (i < n && isspace((unsigned char)text[i])) i++;
        size_t s = i;
        while (i < n && !isspace((unsigned char)text[i])) i++;
        /* the token without the punctuation around it */
        size_t a = s, z = i;
        while (a < z && strchr("\"'(<[", text[a])) a++;
        while (z > a && strchr("\"').,;:!?>]", text[z - 1])) z--;
        if (a >= z) continue;
        value_kind k = VK_NONE;
        size_t len = z - a;
        size_t ph = 0;
        if (is_email(text + a, len))
            k = VK_EMAIL;
        else if (is_url(text + a, len))
            k = VK_URL;
        else if (is_ip(text + a, len))
            k = VK_IP;
        else if ((ph = phone_at(text + s, n - s)) > 0) {
            k = VK_PHONE;
            i = s + ph; /* the number spans words */
            z = i;
        }
        if (k == VK_NONE || seen[k]) continue;
        long w = word_at(st, s, z);
        if (w < 0) continue;
        seen[k] = true; /* one weight per kind: two numbers are no more a phone's */
        st->has_value[k] = true;
        if (st->p->value_weight <= 0) continue;
        if (!tp && !(tp = text_analyzer_new())) rc = APIDEX_ENOMEM;
        if (!rc) rc = weigh_kind(st, tp, &b, k, w);
    }
    text_analyzer_free(tp);
    core_buf_free(&b);
    return rc;
}
