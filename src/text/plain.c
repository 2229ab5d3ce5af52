/*
 * Plain text for agents: HTML and markdown in an API's descriptions turned into the words a
 * model reads (tags, entities, link targets, emphasis and code marks gone, lists and
 * paragraphs kept as lines or joined on one line), and a shortener that cuts at sentence or
 * word boundaries, never inside a word. The index keeps the raw text; outputs call this.
 *
 * Two linear passes without backtracking: HTML first (html.c, shared with prep's filter: a
 * tag is removed only when it names an HTML element or is closed later, so "Bearer <token>"
 * survives), then markdown line by line into an emitter that owns all whitespace (runs collapse,
 * breaks are written only between two visible characters, so the result is trimmed).
 */
#include "text/text.h"

#include <stdlib.h>
#include <string.h>

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

bool text_prefix_ci(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    if (n < k) return false;
    for (size_t i = 0; i < k; i++)
        if (lower((unsigned char)s[i]) != (unsigned char)lit[i]) return false;
    return true;
}

/* ---------------------------------------------------------------- emitter */

/* What separates the next visible character from the last one (strongest wins). */
enum { GAP_NONE = 0, GAP_SPACE, GAP_LINE, GAP_PARA, GAP_ITEM };

typedef struct emitter {
    core_buf *out;
    unsigned flags;
    int gap;
    bool any;       /* a visible character was written by this call */
    char last;      /* the last byte written */
    bool item_para; /* the GAP_ITEM pending also ends a paragraph */
    int rc;
} emitter;

static void emit_gap(emitter *e, int gap)
{
    if (gap == GAP_ITEM) e->item_para = e->gap == GAP_PARA;
    if (gap > e->gap) e->gap = gap;
}

static void emit_raw(emitter *e, const char *s, size_t n)
{
    if (e->rc || !n) return;
    e->rc = core_buf_append(e->out, s, n) ? APIDEX_ENOMEM : 0;
    e->last = s[n - 1];
}

static void emit_flush(emitter *e)
{
    int gap = e->gap;
    e->gap = GAP_NONE;
    if (e->flags & TEXT_PLAIN_ONE_LINE) {
        if (!e->any || gap == GAP_NONE) return;
        if (gap == GAP_SPACE) {
            emit_raw(e, " ", 1);
        } else if (strchr(".!?:;,", e->last)) {
            emit_raw(e, " ", 1);
        } else {
            emit_raw(e, gap == GAP_ITEM ? "; " : ". ", 2);
        }
        return;
    }
    if (gap == GAP_ITEM) {
        if (e->any) emit_raw(e, e->item_para ? "\n\n" : "\n", e->item_para ? 2 : 1);
        emit_raw(e, "- ", 2);
        return;
    }
    if (!e->any || gap == GAP_NONE) return;
    if (gap == GAP_SPACE)
        emit_raw(e, " ", 1);
    else if (gap == GAP_LINE)
        emit_raw(e, "\n", 1);
    else
        emit_raw(e, "\n\n", 2);
}

static void emit_text(emitter *e, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && !e->rc) {
        if (is_space((unsigned char)s[i])) {
            emit_gap(e, GAP_SPACE);
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && !is_space((unsigned char)s[j])) j++;
        emit_flush(e);
        emit_raw(e, s + i, j - i);
        e->any = true;
        i = j;
    }
}

/* ---------------------------------------------------------------- markdown */

enum { MD_SCAN_MAX = TEXT_MD_SCAN_MAX, MD_LINK_DEPTH = 4 };

/* Index of the bracket closing s[i] (open/close), on the same line, or n. */
static size_t md_match(const char *s, size_t n, size_t i, char open, char close)
{
    int depth = 0;
    size_t lim = i + MD_SCAN_MAX < n ? i + MD_SCAN_MAX : n;
    for (size_t j = i; j < lim; j++) {
        if (s[j] == '\\') {
            j++;
            continue;
        }
        if (s[j] == open) depth++;
        if (s[j] == close && --depth == 0) return j;
    }
    return n;
}

/* Inline markup of one line: escapes, code spans, links, images, autolinks, emphasis. skip
   marks closing emphasis runs already paired (their length). */
static void md_inline(emitter *e, const char *s, size_t n, unsigned char *skip, unsigned depth,
                      bool table)
{
    size_t i = 0, run = 0; /* s[run..i) is plain text not yet emitted */
#define FLUSH_RUN() (emit_text(e, s + run, i - run))
    while (i < n && !e->rc) {
        unsigned char c = (unsigned char)s[i];
        if (skip[i]) {
            FLUSH_RUN();
            i += skip[i];
            run = i;
            continue;
        }
        if (c == '\\' && i + 1 < n && strchr("\\`*_{}[]()#+-.!|~<>\"'", s[i + 1]) && s[i + 1]) {
            FLUSH_RUN();
            emit_text(e, s + i + 1, 1);
            i += 2;
            run = i;
            continue;
        }
        if (c == '`') {
            size_t r = i;
            while (r < n && s[r] == '`') r++;
            size_t k = r - i, close = n;
            for (size_t j = r; j < n && j < r + MD_SCAN_MAX; j++) {
                if (s[j] != '`') continue;
                size_t q = j;
                while (q < n && s[q] == '`') q++;
                if (q - j == k) {
                    close = j;
                    break;
                }
                j = q - 1;
            }
            FLUSH_RUN();
            if (close < n) {
                emit_text(e, s + r, close - r);
                i = close + k;
            } else {
                i = r; /* a lone backtick run is markup noise */
            }
            run = i;
            continue;
        }
        if ((c == '[' || (c == '!' && i + 1 < n && s[i + 1] == '[')) && depth < MD_LINK_DEPTH) {
            size_t open = c == '!' ? i + 1 : i;
            size_t close = md_match(s, n, open, '[', ']');
            if (close < n && close + 1 < n && (s[close + 1] == '(' || s[close + 1] == '[')) {
                char o = s[close + 1], cl = o == '(' ? ')' : ']';
                size_t end = md_match(s, n, close + 1, o, cl);
                if (end < n) {
                    FLUSH_RUN();
                    md_inline(e, s + open + 1, close - open - 1, skip + open + 1, depth + 1, table);
                    i = end + 1;
                    run = i;
                    continue;
                }
            }
        }
        if (c == '<' && i + 1 < n) {
            /* <https://...> and <mailto:...>: the address itself */
            size_t j = i + 1;
            while (j < n && j < i + MD_SCAN_MAX && s[j] != '>' && !is_space((unsigned char)s[j]))
                j++;
            if (j < n && s[j] == '>' &&
                (text_prefix_ci(s + i + 1, j - i - 1, "http://") ||
                 text_prefix_ci(s + i + 1, j - i - 1, "https://") ||
                 text_prefix_ci(s + i + 1, j - i - 1, "mailto:"))) {
                FLUSH_RUN();
                emit_text(e, s + i + 1, j - i - 1);
                i = j + 1;
                run = i;
                continue;
            }
        }
        if (c == '*' || c == '_' || c == '~') {
            size_t r = i;
            while (r < n && s[r] == (char)c) r++;
            size_t k = r - i;
            bool ok = k <= 3 && (c != '~' || k == 2) && text_md_opens(s, n, i, k);
            size_t close = ok ? text_md_find_close(s, n, r, (char)c, k) : n;
            if (close < n) {
                FLUSH_RUN();
                skip[close] = (unsigned char)k;
                i = r;
                run = i;
                continue;
            }
            i = r;
            continue;
        }
        if (c == '|' && table) {
            FLUSH_RUN();
            emit_raw(e, e->any ? "," : "", e->any ? 1 : 0);
            emit_gap(e, GAP_SPACE);
            i++;
            run = i;
            continue;
        }
        i++;
    }
    FLUSH_RUN();
#undef FLUSH_RUN
}

static bool md_fence(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && i < 4 && s[i] == ' ') i++;
    return n - i >= 3 && (!memcmp(s + i, "```", 3) || !memcmp(s + i, "~~~", 3));
}

/* One line of markdown: its block prefix sets the gap, the rest is inline text. */
static void md_line(emitter *e, const char *s, size_t n, unsigned char *skip)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    while (i < n && s[i] == '>') {
        i++;
        while (i < n && s[i] == ' ') i++;
    }
    bool table = false;
    int gap = GAP_SPACE; /* a soft line break */
    int after = GAP_NONE;
    if (i < n && s[i] == '#') {
        size_t j = i;
        while (j < n && s[j] == '#') j++;
        if (j - i <= 6 && (j == n || s[j] == ' ')) {
            while (j < n && s[j] == ' ') j++;
            /* closing hashes of "## Title ##" */
            while (n > j && (s[n - 1] == '#' || s[n - 1] == ' ')) n--;
            i = j;
            gap = after = GAP_PARA;
        }
    } else if (i + 1 < n && (s[i] == '-' || s[i] == '*' || s[i] == '+') && s[i + 1] == ' ') {
        i += 2;
        gap = GAP_ITEM;
    } else if (i < n && is_digit((unsigned char)s[i])) {
        size_t j = i;
        while (j < n && j < i + 9 && is_digit((unsigned char)s[j])) j++;
        if (j + 1 < n && (s[j] == '.' || s[j] == ')') && s[j + 1] == ' ')
            gap = (e->flags & TEXT_PLAIN_ONE_LINE) ? GAP_ITEM : GAP_LINE;
    } else if (i < n && s[i] == '|') {
        table = true;
        i++;
        while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t')) n--;
        if (n > i && s[n - 1] == '|' && (n < 2 || s[n - 2] != '\\')) n--;
        gap = GAP_LINE;
    }
    if (i >= n) return;
    emit_gap(e, gap);
    if (gap == GAP_ITEM && !(e->flags & TEXT_PLAIN_ONE_LINE)) emit_flush(e);
    md_inline(e, s + i, n - i, skip + i, 0, table);
    if (after) emit_gap(e, after);
}

/* keep_lines: indentation and bullets as written, inline markup cleaned. */
static void md_line_kept(emitter *e, const char *s, size_t n, unsigned char *skip)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    if (i) emit_raw(e, s, i);
    if (i + 1 < n && (s[i] == '-' || s[i] == '*') && s[i + 1] == ' ') {
        emit_raw(e, "- ", 2);
        i += 2;
    }
    e->gap = GAP_NONE;
    bool had = e->any;
    e->any = false; /* no leading space after the indentation */
    md_inline(e, s + i, n - i, skip + i, 0, false);
    e->any = had || e->any;
    e->gap = GAP_NONE;
}

static int md_pass(const char *s, size_t n, unsigned flags, core_buf *out)
{
    size_t start = out->len;
    unsigned char *skip = calloc(n ? n : 1, 1);
    if (!skip) return APIDEX_ENOMEM;
    emitter e = {.out = out, .flags = flags, .last = 0};
    bool keep = (flags & TEXT_PLAIN_KEEP_LINES) != 0, code = false;
    size_t i = 0;
    while (i < n && !e.rc) {
        size_t end = i;
        while (end < n && s[end] != '\n') end++;
        size_t len = end - i;
        while (len && s[i + len - 1] == '\r') len--;
        const char *line = s + i;
        if (keep) {
            if (i) emit_raw(&e, "\n", 1);
            if (md_fence(line, len))
                ; /* the fence itself goes, its content stays as lines */
            else if (code)
                emit_raw(&e, line, len);
            else
                md_line_kept(&e, line, len, skip + i);
            if (md_fence(line, len)) code = !code;
        } else if (md_fence(line, len)) {
            code = !code;
            emit_gap(&e, GAP_PARA);
        } else if (code) {
            /* code blocks are examples: one line gets none of them, lines keep them */
            if (!(flags & TEXT_PLAIN_ONE_LINE)) {
                while (len && is_space((unsigned char)line[len - 1])) len--;
                emit_gap(&e, GAP_LINE);
                emit_flush(&e);
                emit_raw(&e, line, len);
                e.any = e.any || len > 0;
            }
        } else {
            size_t k = 0;
            while (k < len && is_space((unsigned char)line[k])) k++;
            if (k == len)
                emit_gap(&e, GAP_PARA);
            else if (text_md_markup_line(line, len, TEXT_READER_PLAIN))
                emit_gap(&e, GAP_LINE);
            else
                md_line(&e, line, len, skip + i);
        }
        i = end + 1;
    }
    free(skip);
    /* trailing whitespace of the whole goes (blank code lines, kept indentation) */
    while (out->len > start && is_space((unsigned char)out->data[out->len - 1])) out->len--;
    if (out->data) out->data[out->len] = 0;
    return e.rc;
}

int text_plain(const char *s, size_t n, unsigned flags, core_buf *out)
{
    if (!s || !out) return APIDEX_EINVAL;
    size_t start = out->len;
    bool html = memchr(s, '<', n) || memchr(s, '&', n);
    core_buf tmp;
    core_buf_init(&tmp, out->max);
    int rc = 0;
    const char *src = s;
    size_t len = n;
    if (html) {
        text_reader reader =
            (flags & TEXT_PLAIN_KEEP_LINES) ? TEXT_READER_PLAIN_LINES : TEXT_READER_PLAIN;
        rc = text_html_strip(s, n, reader, &tmp, NULL);
        src = tmp.data ? tmp.data : "";
        len = tmp.len;
    }
    if (!rc) rc = md_pass(src, len, flags, out);
    core_buf_free(&tmp);
    if (rc) {
        out->len = start;
        if (out->data) out->data[start] = 0;
    } else if (!out->data) {
        rc = core_buf_append(out, "", 0) ? APIDEX_ENOMEM : 0;
    }
    return rc;
}

/* ---------------------------------------------------------------- shortening */

/* Abbreviations whose period does not end a sentence. */
static bool abbreviation(const char *s, size_t dot)
{
    size_t b = dot;
    while (b && !is_space((unsigned char)s[b - 1])) b--;
    size_t len = dot - b;
    if (len == 1 && is_alpha((unsigned char)s[b])) return true; /* "J. Smith", "U.S." */
    static const char *const abbr[] = {"e.g", "i.e", "etc", "vs",  "cf", "approx", "incl", "no",
                                       "nr",  "ex",  "mr",  "mrs", "dr", "st",     "fig"};
    for (size_t k = 0; k < sizeof abbr / sizeof abbr[0]; k++) {
        size_t al = strlen(abbr[k]);
        if (al == len && text_prefix_ci(s + b, len, abbr[k])) return true;
    }
    /* "e.g." ends with a one-letter part */
    return len >= 2 && s[dot - 2] == '.';
}

/* Does a sentence end at s[i] ('.', '!' or '?' followed by a space or the end)? */
static bool sentence_end(const char *s, size_t n, size_t i)
{
    char c = s[i];
    if (c != '.' && c != '!' && c != '?') return false;
    size_t j = i + 1;
    while (j < n && (s[j] == ')' || s[j] == '"' || s[j] == '\'')) j++;
    if (j < n && !is_space((unsigned char)s[j])) return false;
    return c != '.' || !abbreviation(s, i);
}

size_t text_plain_sentence(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sentence_end(s, n, i)) {
            size_t j = i + 1;
            while (j < n && (s[j] == ')' || s[j] == '"' || s[j] == '\'')) j++;
            return j;
        }
    return n;
}

/* The end of the last whole word in s[0..lim] (lim <= n): trailing spaces and ",;:" go. */
static size_t word_cut(const char *s, size_t n, size_t lim)
{
    if (lim >= n) return n;
    size_t k = lim;
    /* s[k] starts or continues a word: back to its start */
    while (k && !is_space((unsigned char)s[k])) k--;
    while (k && (is_space((unsigned char)s[k - 1]) || strchr(",;:-(", s[k - 1]))) k--;
    return k;
}

/* The end of the last sentence in s[0..lim], or 0. */
static size_t sentence_cut(const char *s, size_t n, size_t lim)
{
    size_t best = 0;
    for (size_t i = 0; i < lim && i < n; i++)
        if (sentence_end(s, n, i)) {
            size_t j = i + 1;
            while (j < n && (s[j] == ')' || s[j] == '"' || s[j] == '\'')) j++;
            if (j <= lim) best = j;
        }
    return best;
}

size_t text_plain_cut(const char *s, size_t n, size_t max_bytes, bool *sentence)
{
    if (sentence) *sentence = true;
    if (n <= max_bytes) return n;
    size_t w = word_cut(s, n, max_bytes);
    size_t st = sentence_cut(s, n, max_bytes);
    if (st && st * 2 >= w) return st;
    if (sentence) *sentence = false;
    return w;
}

static const char ellipsis[] = "\u2026";

int text_plain_shorten(const char *s, size_t n, size_t max_tokens, core_buf *out, bool *cut)
{
    if (cut) *cut = false;
    const text_bpe *bpe = text_bpe_default();
    if (!s || !out || !bpe) return APIDEX_EINVAL;
    if (text_bpe_count(bpe, s, n) <= max_tokens)
        return core_buf_append(out, s, n) ? APIDEX_ENOMEM : 0;
    if (cut) *cut = true;
    /* Binary search over byte lengths for the longest word cut whose count (plus one
       token for the ellipsis) fits; counts grow with the prefix, so this converges. */
    size_t lo = 0, hi = n, best = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        size_t w = word_cut(s, n, mid);
        if (w && text_bpe_count(bpe, s, w) + 1 <= max_tokens) {
            best = w;
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    size_t st = sentence_cut(s, n, best);
    bool at_sentence = st && st * 2 >= best;
    size_t keep = at_sentence ? st : best;
    while (keep && !at_sentence) {
        /* the ellipsis may merge with the word before it: verify the exact count */
        core_buf tmp;
        core_buf_init(&tmp, 0);
        core_buf_append(&tmp, s, keep);
        core_buf_puts(&tmp, ellipsis);
        size_t c = tmp.failed ? max_tokens + 1 : text_bpe_count(bpe, tmp.data, tmp.len);
        core_buf_free(&tmp);
        if (c <= max_tokens) break;
        keep = word_cut(s, n, keep ? keep - 1 : 0);
    }
    if (!keep) return 0;
    if (core_buf_append(out, s, keep)) return APIDEX_ENOMEM;
    if (!at_sentence && core_buf_puts(out, ellipsis)) return APIDEX_ENOMEM;
    return 0;
}

int text_plain_line(const char *s, size_t n, size_t max_tokens, core_buf *out, bool *cut)
{
    if (cut) *cut = false;
    if (!s || !out) return APIDEX_EINVAL;
    core_buf tmp;
    core_buf_init(&tmp, out->max);
    int rc = text_plain(s, n, TEXT_PLAIN_ONE_LINE, &tmp);
    if (!rc)
        rc = max_tokens ? text_plain_shorten(tmp.data, tmp.len, max_tokens, out, cut)
                        : (core_buf_append(out, tmp.data, tmp.len) ? APIDEX_ENOMEM : 0);
    core_buf_free(&tmp);
    return rc;
}

int text_plain_summary(const char *summary, const char *description, size_t max_tokens,
                       core_buf *out)
{
    if (!out) return APIDEX_EINVAL;
    size_t before = out->len;
    int rc = 0;
    if (summary && *summary) rc = text_plain_line(summary, strlen(summary), max_tokens, out, NULL);
    if (rc || out->len > before || !description || !*description) return rc;
    /* a leading markdown heading names a section, not what the operation does */
    const char *d = description;
    for (;;) {
        const char *p = d;
        while (is_space((unsigned char)*p)) p++;
        const char *nl = *p == '#' ? strchr(p, '\n') : NULL;
        if (!nl) break;
        d = nl + 1;
    }
    core_buf whole;
    core_buf_init(&whole, out->max);
    rc = text_plain(d, strlen(d), TEXT_PLAIN_ONE_LINE, &whole);
    if (!rc && whole.len) {
        size_t n = text_plain_sentence(whole.data, whole.len);
        rc = max_tokens ? text_plain_shorten(whole.data, n, max_tokens, out, NULL)
                        : (core_buf_append(out, whole.data, n) ? APIDEX_ENOMEM : 0);
    }
    core_buf_free(&whole);
    return rc;
}
