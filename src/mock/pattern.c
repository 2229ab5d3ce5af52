/*
 * Strings that match a simple regular expression (a schema's `pattern`): the expression is
 * walked once per repetition, making one choice at each alternative, class and
 * quantifier; the result is checked with PCRE2. Lookarounds, back-references and other
 * constructs we cannot make strings for give up (NULL), and the caller makes a plain one.
 */
#include "mock/mock.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

enum { PAT_MAX_OUT = 256, PAT_MAX_DEPTH = 32, PAT_MAX_STEPS = 20000 };

typedef struct pgen {
    const char *p;
    uint64_t *rng;
    char out[PAT_MAX_OUT + 1];
    size_t n;
    bool bad;
    unsigned steps;
} pgen;

static unsigned pick(pgen *g, unsigned n)
{
    return n ? (unsigned)(mock_rng_next(g->rng) % n) : 0;
}

static void emit(pgen *g, char c)
{
    if (g->n < PAT_MAX_OUT)
        g->out[g->n++] = c;
    else
        g->bad = true;
}

/* The characters an escape stands for, into set; false when it is no character class. */
static bool escape_set(char e, bool set[128])
{
    switch (e) {
    case 'd':
        for (int c = '0'; c <= '9'; c++) set[c] = true;
        return true;
    case 'w':
        for (int c = 0; c < 128; c++)
            set[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '_';
        return true;
    case 's':
        set[' '] = true;
        return true;
    case 'D':
    case 'S':
        set['a'] = true;
        return true;
    case 'W':
        set['-'] = true;
        return true;
    default:
        return false;
    }
}

static char escape_char(char e)
{
    switch (e) {
    case 'n':
        return '\n';
    case 't':
        return '\t';
    case 'r':
        return '\r';
    default:
        return e;
    }
}

/* One character from set; for a negated class one printable character not in it. */
static void emit_from_set(pgen *g, const bool set[128], bool negate)
{
    char cand[128];
    unsigned n = 0;
    for (int c = 32; c < 127; c++)
        if (set[c] != negate) cand[n++] = (char)c;
    if (!n) {
        g->bad = true;
        return;
    }
    emit(g, cand[pick(g, n)]);
}

/* [...] starting at p (after '['); returns the position after ']'. */
static const char *gen_class(pgen *g, const char *p)
{
    bool set[128] = {0}, negate = false;
    if (*p == '^') {
        negate = true;
        p++;
    }
    bool first = true;
    while (*p && (*p != ']' || first)) {
        first = false;
        unsigned char c = (unsigned char)*p;
        if (c == '\\' && p[1]) {
            if (escape_set(p[1], set)) {
                p += 2;
                continue;
            }
            c = (unsigned char)escape_char(p[1]);
            p++;
        } else if (c == '[' && p[1] == ':') {
            g->bad = true; /* POSIX classes */
            return p;
        }
        p++;
        if (*p == '-' && p[1] && p[1] != ']') {
            unsigned char hi = (unsigned char)p[1];
            if (hi == '\\' && p[2]) {
                hi = (unsigned char)escape_char(p[2]);
                p++;
            }
            p += 2;
            for (unsigned x = c; x <= hi && x < 128; x++) set[x] = true;
        } else if (c < 128) {
            set[c] = true;
        }
    }
    if (*p != ']') {
        g->bad = true;
        return p;
    }
    emit_from_set(g, set, negate);
    return p + 1;
}

static const char *gen_alt(pgen *g, const char *p, unsigned depth, bool emit_it);

/* One atom at p, made once (emit_it) or only skipped; returns the position after it. */
static const char *gen_atom(pgen *g, const char *p, unsigned depth, bool emit_it)
{
    if (++g->steps > PAT_MAX_STEPS) g->bad = true;
    if (g->bad) return p;
    char c = *p;
    if (c == '(') {
        p++;
        if (*p == '?') {
            if (p[1] != ':') { /* lookarounds, named groups, flags */
                g->bad = true;
                return p;
            }
            p += 2;
        }
        p = gen_alt(g, p, depth + 1, emit_it);
        if (*p != ')') {
            g->bad = true;
            return p;
        }
        return p + 1;
    }
    if (c == '[') {
        if (!emit_it) { /* skip to the closing bracket */
            pgen skip = {.rng = g->rng};
            const char *e = gen_class(&skip, p + 1);
            if (skip.bad) g->bad = true;
            return e;
        }
        return gen_class(g, p + 1);
    }
    if (c == '\\') {
        char e = p[1];
        if (!e || (e >= '1' && e <= '9') || e == 'x' || e == 'u' || e == 'p' || e == 'P' ||
            e == 'k') {
            g->bad = true;
            return p + (e ? 2 : 1);
        }
        if (e == 'b' || e == 'B' || e == 'A' || e == 'z' || e == 'Z') return p + 2;
        bool set[128] = {0};
        if (emit_it) {
            if (escape_set(e, set))
                emit_from_set(g, set, false);
            else
                emit(g, escape_char(e));
        }
        return p + 2;
    }
    if (c == '.') {
        if (emit_it) emit(g, (char)('a' + pick(g, 26)));
        return p + 1;
    }
    if (c == '^' || c == '$') return p + 1;
    if ((unsigned char)c >= 128) { /* UTF-8: copy the whole character */
        const char *q = p + 1;
        while (((unsigned char)*q & 0xC0) == 0x80) q++;
        for (const char *x = p; emit_it && x < q; x++) emit(g, *x);
        return q;
    }
    if (emit_it) emit(g, c);
    return p + 1;
}

/* A quantifier at p: *lo..*hi repetitions; returns the position after it. */
static const char *quantifier(const char *p, unsigned *lo, unsigned *hi)
{
    *lo = *hi = 1;
    if (*p == '?') {
        *lo = 0;
        p++;
    } else if (*p == '*') {
        *lo = 0;
        *hi = 2;
        p++;
    } else if (*p == '+') {
        *hi = 3;
        p++;
    } else if (*p == '{' && p[1] >= '0' && p[1] <= '9') {
        char *end;
        unsigned long a = strtoul(p + 1, &end, 10), b = a;
        if (*end == ',') {
            if (end[1] == '}')
                b = a + 2, end++;
            else
                b = strtoul(end + 1, &end, 10);
        }
        if (*end != '}') return p; /* a literal '{' */
        *lo = a > PAT_MAX_OUT ? PAT_MAX_OUT : (unsigned)a;
        *hi = b > PAT_MAX_OUT ? PAT_MAX_OUT : (unsigned)b;
        if (*hi > *lo + 3) *hi = *lo + 3;
        if (*hi < *lo) *hi = *lo;
        p = end + 1;
    } else {
        return p;
    }
    if (*p == '?' || *p == '+') p++; /* lazy / possessive */
    return p;
}

/* A sequence up to '|', ')' or the end. */
static const char *gen_seq(pgen *g, const char *p, unsigned depth, bool emit_it)
{
    while (*p && *p != '|' && *p != ')' && !g->bad) {
        const char *start = p;
        const char *end = gen_atom(g, p, depth, false);
        if (g->bad) return end;
        unsigned lo, hi;
        const char *next = quantifier(end, &lo, &hi);
        unsigned times = emit_it ? lo + pick(g, hi - lo + 1) : 0;
        for (unsigned i = 0; i < times && !g->bad; i++) gen_atom(g, start, depth, true);
        p = next;
    }
    return p;
}

static const char *gen_alt(pgen *g, const char *p, unsigned depth, bool emit_it)
{
    if (depth > PAT_MAX_DEPTH) {
        g->bad = true;
        return p;
    }
    /* count the alternatives at this level, choose one, walk them all */
    unsigned n = 1;
    {
        pgen probe = {.rng = g->rng};
        const char *q = gen_seq(&probe, p, depth, false);
        while (*q == '|' && !probe.bad) {
            n++;
            q = gen_seq(&probe, q + 1, depth, false);
        }
        if (probe.bad) {
            g->bad = true;
            return q;
        }
    }
    unsigned chosen = emit_it ? pick(g, n) : n;
    for (unsigned i = 0;; i++) {
        p = gen_seq(g, p, depth, emit_it && i == chosen);
        if (*p != '|' || g->bad) break;
        p++;
    }
    return p;
}

char *mock_pattern_string(const char *pattern, uint64_t *rng)
{
    if (!pattern || strlen(pattern) > 1024) return NULL;
    pgen g = {.p = pattern, .rng = rng};
    const char *end = gen_alt(&g, pattern, 0, true);
    if (g.bad || *end) return NULL;
    g.out[g.n] = '\0';
    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errcode,
                                   &erroff, NULL);
    if (!re) return NULL;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = md ? pcre2_match(re, (PCRE2_SPTR)g.out, g.n, 0, 0, md, NULL) : -1;
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc >= 0 ? strdup(g.out) : NULL;
}
