/*
 * Text filters of prep: base64 blobs, HTML tags, markdown markup and URLs are
 * removed from one string. Each filter is a single linear pass over bytes (no
 * regex engine, no backtracking), so hostile input costs O(n).
 */
#include "prep/prep.h"

#include "text/text.h"

#include <stdlib.h>
#include <string.h>

/* postman.com (a collection's links to its own parts) and URL shorteners (bit.ly, t.ly):
 * links whose host and path say nothing about the service. */
static const char *const default_blacklist[] = {
    "postman.com", "getpostman.com", "pstmn.io", "postman.co", "bit.ly", "bitly.com", "t.ly",
    "tinyurl.com", "goo.gl",         "ow.ly",    "t.co",       "is.gd",  "buff.ly",   "rebrand.ly",
    "cutt.ly",     "shorturl.at",    "tiny.cc",  "rb.gy",      NULL};

const char *const *prep_default_blacklist(void)
{
    return default_blacklist;
}

static bool is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool is_alnum(unsigned char c)
{
    return is_alpha(c) || is_digit(c);
}

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static void note(prep_report *rep, unsigned bit, size_t bytes)
{
    if (!rep) return;
    int i = prep_filter_index(bit);
    if (i < 0) return;
    rep->count[i]++;
    rep->bytes[i] += bytes;
}

/* After a removal, "see <url> for" would become "see  for" and "at <url>." "at .":
 * drop the second space, or the space before the punctuation. */
static size_t skip_double_space(core_buf *out, const char *s, size_t n, size_t i)
{
    bool prev_space =
        out->len == 0 || out->data[out->len - 1] == ' ' || out->data[out->len - 1] == '\n';
    if (prev_space && i < n && s[i] == ' ') return i + 1;
    if (out->len && out->data[out->len - 1] == ' ' && i < n && s[i] && strchr(".,;:!?)", s[i])) {
        out->len--;
        out->data[out->len] = 0;
    }
    return i;
}

/* ---------------------------------------------------------------- base64 */

static bool is_b64(unsigned char c)
{
    return is_alnum(c) || c == '+' || c == '/' || c == '=';
}

enum { B64_MIN_RUN = 64 };

/* A run of base64 characters that is long and mixes digits and both cases is an
 * encoded blob; paths (many '/') and hex digests (one case) are kept. */
static bool b64_blob(const char *s, size_t n)
{
    if (n < B64_MIN_RUN) return false;
    size_t up = 0, lo = 0, dig = 0, slash = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z')
            up++;
        else if (c >= 'a' && c <= 'z')
            lo++;
        else if (is_digit(c))
            dig++;
        else if (c == '/')
            slash++;
    }
    return up && lo && dig && slash * 16 <= n;
}

/* "data:" [mediatype] [;param]* ";base64," then the payload; returns its length or 0. */
static size_t data_uri_len(const char *s, size_t n)
{
    if (!text_prefix_ci(s, n, "data:")) return 0;
    size_t i = 5;
    while (i < n && i < 256 && s[i] != ',' && !is_space((unsigned char)s[i]) && s[i] != '"') i++;
    if (i >= n || s[i] != ',') return 0;
    if (i < 12 || !text_prefix_ci(s + i - 7, 7, ";base64")) return 0;
    i++;
    size_t start = i;
    while (i < n && is_b64((unsigned char)s[i])) i++;
    return i - start >= 4 ? i : 0;
}

static int filter_base64(const char *s, size_t n, core_buf *out, prep_report *rep)
{
    size_t i = 0, copied = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if ((c == 'd' || c == 'D') && (i == 0 || !is_alnum((unsigned char)s[i - 1]))) {
            size_t k = data_uri_len(s + i, n - i);
            if (k) {
                if (core_buf_append(out, s + copied, i - copied)) return APIDEX_ENOMEM;
                note(rep, PREP_BASE64, k);
                i = skip_double_space(out, s, n, i + k);
                copied = i;
                continue;
            }
        }
        if (is_b64(c)) {
            size_t j = i;
            while (j < n && is_b64((unsigned char)s[j])) j++;
            bool bounded = (i == 0 || !is_alnum((unsigned char)s[i - 1]));
            if (bounded && b64_blob(s + i, j - i)) {
                if (core_buf_append(out, s + copied, i - copied)) return APIDEX_ENOMEM;
                note(rep, PREP_BASE64, j - i);
                i = skip_double_space(out, s, n, j);
                copied = i;
                continue;
            }
            i = j;
            continue;
        }
        i++;
    }
    return core_buf_append(out, s + copied, n - copied) ? APIDEX_ENOMEM : 0;
}

/* ---------------------------------------------------------------- HTML */

/* Tags, comments and entities: the index's reading of text/html.c. */
static int filter_html(const char *s, size_t n, core_buf *out, prep_report *rep)
{
    text_html_stats st = {0, 0};
    int rc = text_html_strip(s, n, TEXT_READER_INDEX, out, &st);
    int i = prep_filter_index(PREP_HTML);
    if (rep && i >= 0) {
        rep->count[i] += st.removed;
        rep->bytes[i] += st.bytes;
    }
    return rc;
}

/* ---------------------------------------------------------------- markdown */

/* Length of the line-leading markup to strip: heading #s, blockquote >s, bullets,
 * a table row's leading '|'. Leading indentation is dropped with it. */
static size_t md_line_prefix(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    size_t start = i;
    while (i < n && s[i] == '>') {
        i++;
        while (i < n && s[i] == ' ') i++;
    }
    if (i < n && s[i] == '#') {
        size_t j = i;
        while (j < n && s[j] == '#') j++;
        if (j - i <= 6 && (j == n || s[j] == ' ')) {
            while (j < n && s[j] == ' ') j++;
            return j;
        }
    }
    if (i + 1 < n && (s[i] == '-' || s[i] == '*' || s[i] == '+') && s[i + 1] == ' ') {
        i += 2;
        while (i < n && s[i] == ' ') i++;
        return i;
    }
    if (i < n && s[i] == '|') {
        i++;
        while (i < n && s[i] == ' ') i++;
        return i;
    }
    return i > start ? i : 0;
}

/* Searches for a closing marker or bracket stop after this many bytes, keeping
 * hostile lines ("*a *a *a ...") linear. */
enum { MD_SCAN_MAX = TEXT_MD_SCAN_MAX, MD_LINK_DEPTH = 4 };

/* Inline markup of one line: links, images, code spans, emphasis, strikethrough. */
static int md_inline(const char *s, size_t n, core_buf *out, unsigned char *skip, unsigned depth,
                     prep_report *rep)
{
    size_t i = 0;
    int rc = 0;
    while (i < n && !rc) {
        unsigned char c = (unsigned char)s[i];
        if (skip[i]) {
            note(rep, PREP_MARKDOWN, skip[i]);
            i += skip[i];
            continue;
        }
        if (c == '!' && i + 1 < n && s[i + 1] == '[') {
            note(rep, PREP_MARKDOWN, 1);
            i++;
            continue;
        }
        if (c == '[' && depth < MD_LINK_DEPTH) {
            /* [text](url) or [text][ref]: keep text, drop the target. */
            size_t j = i + 1, lim = i + MD_SCAN_MAX < n ? i + MD_SCAN_MAX : n;
            int bd = 1;
            while (j < lim && s[j] != '\n' && bd) {
                if (s[j] == '[')
                    bd++;
                else if (s[j] == ']')
                    bd--;
                if (bd) j++;
            }
            if (j < n && s[j] == ']' && j + 1 < n && (s[j + 1] == '(' || s[j + 1] == '[')) {
                char close = s[j + 1] == '(' ? ')' : ']';
                size_t e = j + 2;
                int pd = 1;
                lim = j + MD_SCAN_MAX < n ? j + MD_SCAN_MAX : n;
                while (e < lim && s[e] != '\n' && pd) {
                    if (s[e] == s[j + 1])
                        pd++;
                    else if (s[e] == close)
                        pd--;
                    if (pd) e++;
                }
                if (e < lim && s[e] == close) {
                    rc = md_inline(s + i + 1, j - i - 1, out, skip + i + 1, depth + 1, rep);
                    note(rep, PREP_MARKDOWN, e + 1 - j + 1);
                    i = e + 1;
                    continue;
                }
            }
        }
        if (c == '`') {
            size_t r = i;
            while (r < n && s[r] == '`') r++;
            note(rep, PREP_MARKDOWN, r - i);
            i = r;
            continue;
        }
        if ((c == '*' || c == '_' || c == '~') && !skip[i]) {
            size_t r = i;
            while (r < n && s[r] == (char)c) r++;
            size_t k = r - i;
            bool ok = k <= 3 && (c != '~' || k == 2) && text_md_opens(s, n, i, k);
            size_t close = ok ? text_md_find_close(s, n, r, (char)c, k) : n;
            if (close < n) {
                skip[close] = (unsigned char)k;
                note(rep, PREP_MARKDOWN, k);
                i = r;
                continue;
            }
            rc = core_buf_append(out, s + i, k);
            i = r;
            continue;
        }
        rc = core_buf_putc(out, (char)c);
        i++;
    }
    return rc;
}

static int filter_markdown(const char *s, size_t n, core_buf *out, prep_report *rep)
{
    unsigned char *skip = calloc(n ? n : 1, 1);
    if (!skip) return APIDEX_ENOMEM;
    int rc = 0;
    size_t i = 0;
    while (i < n && !rc) {
        size_t e = i;
        while (e < n && s[e] != '\n') e++;
        const char *line = s + i;
        size_t len = e - i;
        if (text_md_markup_line(line, len, TEXT_READER_INDEX)) {
            note(rep, PREP_MARKDOWN, len);
        } else {
            size_t p = md_line_prefix(line, len);
            if (p) note(rep, PREP_MARKDOWN, p);
            size_t body = len - p;
            /* A table row ("| a | b |") also loses its trailing '|'. */
            size_t lead = 0;
            while (lead < len && (line[lead] == ' ' || line[lead] == '\t')) lead++;
            if (lead < len && line[lead] == '|') {
                while (body && (line[p + body - 1] == ' ' || line[p + body - 1] == '\r')) body--;
                if (body && line[p + body - 1] == '|') body--;
                while (body && line[p + body - 1] == ' ') body--;
            }
            rc = md_inline(line + p, body, out, skip + i + p, 0, rep);
            if (!rc && e < n) rc = core_buf_putc(out, '\n');
        }
        i = e + 1;
    }
    free(skip);
    return rc ? APIDEX_ENOMEM : 0;
}

/* ---------------------------------------------------------------- URLs */

static bool url_char(unsigned char c)
{
    return c > 0x20 && c != '"' && c != '\'' && c != '<' && c != '>' && c != '`' && c != 0x7f;
}

/* Length of a URL at s[0] ("http://", "https://" or "www."), trailing punctuation excluded. */
static size_t url_len(const char *s, size_t n, size_t *host_start, size_t *host_len)
{
    size_t i;
    if (text_prefix_ci(s, n, "https://"))
        i = 8;
    else if (text_prefix_ci(s, n, "http://"))
        i = 7;
    else if (text_prefix_ci(s, n, "www."))
        i = 0;
    else
        return 0;
    *host_start = i;
    size_t paren = 0, brack = 0, j = i;
    for (; j < n && url_char((unsigned char)s[j]); j++) {
        if (s[j] == '(')
            paren++;
        else if (s[j] == ')') {
            if (!paren) break;
            paren--;
        } else if (s[j] == '[')
            brack++;
        else if (s[j] == ']') {
            if (!brack) break;
            brack--;
        }
    }
    while (j > i && strchr(".,;:!?*", s[j - 1])) j--;
    size_t h = i;
    while (h < j && s[h] != '/' && s[h] != '?' && s[h] != '#') h++;
    /* user:pass@host:port -> host */
    size_t at = i;
    for (size_t k = i; k < h; k++)
        if (s[k] == '@') at = k + 1;
    size_t hend = at;
    while (hend < h && s[hend] != ':') hend++;
    *host_start = at;
    *host_len = hend - at;
    return (*host_len > 0) ? j : 0;
}

static bool host_blacklisted(const char *h, size_t n, const char *const *list)
{
    for (size_t i = 0; list[i]; i++) {
        size_t k = strlen(list[i]);
        if (n < k) continue;
        const char *tail = h + n - k;
        bool eq = true;
        for (size_t j = 0; j < k && eq; j++)
            eq = lower((unsigned char)tail[j]) == (unsigned char)list[i][j];
        if (eq && (n == k || h[n - k - 1] == '.')) return true;
    }
    return false;
}

static int filter_urls(const char *s, size_t n, bool all, const char *const *list, core_buf *out,
                       prep_report *rep)
{
    size_t i = 0, copied = 0;
    unsigned bit = all ? PREP_URLS_ALL : PREP_URLS;
    while (i < n) {
        unsigned char c = lower((unsigned char)s[i]);
        if ((c == 'h' || c == 'w') && (i == 0 || !is_alnum((unsigned char)s[i - 1]))) {
            size_t hs = 0, hl = 0;
            size_t k = url_len(s + i, n - i, &hs, &hl);
            if (k && (all || host_blacklisted(s + i + hs, hl, list))) {
                if (core_buf_append(out, s + copied, i - copied)) return APIDEX_ENOMEM;
                note(rep, bit, k);
                i = skip_double_space(out, s, n, i + k);
                copied = i;
                continue;
            }
            if (k) {
                i += k;
                continue;
            }
        }
        i++;
    }
    return core_buf_append(out, s + copied, n - copied) ? APIDEX_ENOMEM : 0;
}

/* ---------------------------------------------------------------- driver */

static bool has_byte(const char *s, size_t n, const char *set)
{
    for (size_t i = 0; i < n; i++)
        if (strchr(set, s[i]) && s[i]) return true;
    return false;
}

static bool may_have_url(const char *s, size_t n)
{
    for (size_t i = 0; i + 3 < n; i++)
        if ((s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/') ||
            ((s[i] == 'w' || s[i] == 'W') && text_prefix_ci(s + i, n - i, "www.")))
            return true;
    return false;
}

static bool may_have_base64(const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        run = is_b64((unsigned char)s[i]) ? run + 1 : 0;
        if (run >= B64_MIN_RUN) return true;
        if (s[i] == ':' && i >= 4 && text_prefix_ci(s + i - 4, 5, "data:")) return true;
    }
    return false;
}

typedef int (*text_pass)(const char *s, size_t n, core_buf *out, prep_report *rep);

int prep_text(const prep_options *opt, const char *s, size_t n, core_buf *out, prep_report *rep)
{
    unsigned f = opt ? opt->filters : 0;
    const char *const *list =
        (opt && opt->url_blacklist) ? opt->url_blacklist : prep_default_blacklist();
    /* Two scratch buffers ping-pong between passes; the last pass writes to out. */
    core_buf a, b;
    core_buf_init(&a, out->max);
    core_buf_init(&b, out->max);
    const char *cur = s;
    size_t cur_len = n;
    core_buf *dst = &a;
    int rc = 0;
    for (unsigned step = 0; step < 4 && !rc; step++) {
        bool run = false;
        switch (step) {
        case 0:
            run = (f & PREP_BASE64) && may_have_base64(cur, cur_len);
            break;
        case 1:
            run = (f & PREP_HTML) && has_byte(cur, cur_len, "<&");
            break;
        case 2:
            run = (f & PREP_MARKDOWN) && has_byte(cur, cur_len, "*_`#[>|-~");
            break;
        case 3:
            run = (f & (PREP_URLS | PREP_URLS_ALL)) && may_have_url(cur, cur_len);
            break;
        }
        if (!run) continue;
        core_buf_reset(dst);
        switch (step) {
        case 0:
            rc = filter_base64(cur, cur_len, dst, rep);
            break;
        case 1:
            rc = filter_html(cur, cur_len, dst, rep);
            break;
        case 2:
            rc = filter_markdown(cur, cur_len, dst, rep);
            break;
        default:
            rc = filter_urls(cur, cur_len, (f & PREP_URLS_ALL) != 0, list, dst, rep);
            break;
        }
        cur = dst->data ? dst->data : "";
        cur_len = dst->len;
        dst = dst == &a ? &b : &a;
    }
    if (!rc) rc = core_buf_append(out, cur, cur_len);
    core_buf_free(&a);
    core_buf_free(&b);
    return rc ? APIDEX_ENOMEM : 0;
}
