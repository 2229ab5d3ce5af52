/*
 * HTML in descriptions, for both readers of it: the plain text of answers (plain.c) and
 * prep's html filter (prep/prep_text.c, what the index stores). Entities, comments, tags and
 * their attributes are recognised here once, in one linear pass (text_html_strip); the reader
 * (text_reader) picks which element names count as tags and what a tag becomes: the index
 * keeps a line per block, the plain text lays out paragraphs and list items.
 */
#include "text/text.h"

#include <stdlib.h>
#include <string.h>

/* How far a tag's attributes are scanned for its '>', and a comment for its end, by reader. */
enum { HTML_ATTRS_MAX = 4096, HTML_COMMENT_INDEX_MAX = 8192, HTML_SCAN_MAX = 65536 };

static bool ascii_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool ascii_alnum(unsigned char c)
{
    return ascii_alpha(c) || (c >= '0' && c <= '9');
}

typedef struct entity {
    const char *name, *text;
} entity;

/* What the index text decodes: ASCII only, so its terms stay ASCII ("&ndash;" is "-"). */
static const entity ascii_entities[] = {
    {"amp", "&"},   {"lt", "<"},    {"gt", ">"},     {"quot", "\""},  {"apos", "'"},
    {"nbsp", " "},  {"#39", "'"},   {"ndash", "-"},  {"mdash", "-"},  {"hellip", "..."},
    {"rsquo", "'"}, {"lsquo", "'"}, {"rdquo", "\""}, {"ldquo", "\""}, {NULL, NULL}};

/* What the plain text of answers decodes: the characters themselves. */
static const entity unicode_entities[] = {
    {"amp", "&"},         {"lt", "<"},         {"gt", ">"},          {"quot", "\""},
    {"apos", "'"},        {"nbsp", " "},       {"ndash", "\u2013"},  {"mdash", "\u2014"},
    {"hellip", "\u2026"}, {"rsquo", "\u2019"}, {"lsquo", "\u2018"},  {"rdquo", "\u201d"},
    {"ldquo", "\u201c"},  {"copy", "\u00a9"},  {"reg", "\u00ae"},    {"trade", "\u2122"},
    {"deg", "\u00b0"},    {"times", "\u00d7"}, {"middot", "\u00b7"}, {"bull", "\u2022"},
    {"larr", "\u2190"},   {"rarr", "\u2192"},  {"le", "\u2264"},     {"ge", "\u2265"},
    {"ne", "\u2260"},     {"euro", "\u20ac"},  {"pound", "\u00a3"},  {"sect", "\u00a7"},
    {"laquo", "\u00ab"},  {"raquo", "\u00bb"}, {"shy", ""},          {"zwj", ""},
    {"zwnj", ""},         {NULL, NULL}};

static size_t utf8_put(unsigned long cp, char *u)
{
    if (cp < 0x80) {
        u[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    u[0] = (char)(0xF0 | (cp >> 18));
    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t text_html_entity(const char *s, size_t n, text_entity_set set, char *out, size_t *out_len)
{
    size_t i = 1;
    while (i < n && i < 12 && (ascii_alnum((unsigned char)s[i]) || (i == 1 && s[i] == '#'))) i++;
    if (i >= n || s[i] != ';' || i == 1) return 0;
    const entity *table = set == TEXT_ENTITIES_ASCII ? ascii_entities : unicode_entities;
    for (size_t e = 0; table[e].name; e++) {
        size_t k = strlen(table[e].name);
        if (k == i - 1 && !memcmp(s + 1, table[e].name, k)) {
            *out_len = strlen(table[e].text);
            memcpy(out, table[e].text, *out_len);
            return i + 1;
        }
    }
    if (s[1] != '#') return 0;
    bool hex = i > 2 && (s[2] == 'x' || s[2] == 'X');
    size_t j = hex ? 3 : 2;
    if (j >= i) return 0;
    unsigned long cp = 0;
    for (; j < i; j++) {
        unsigned char c = (unsigned char)s[j], l = (unsigned char)(c | 0x20);
        unsigned v;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (hex && l >= 'a' && l <= 'f')
            v = (unsigned)(l - 'a' + 10);
        else
            return 0;
        cp = cp * (hex ? 16 : 10) + v;
        if (cp > 0x10FFFF) return 0;
    }
    if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    *out_len = utf8_put(cp, out);
    return i + 1;
}

/* The length of the comment at s[0] ("<!--", the caller checked) through "-->", or 0 when
   "-->" does not start within max bytes. */
static size_t html_comment(const char *s, size_t n, size_t max)
{
    for (size_t i = 4; i + 2 < n && i < max; i++)
        if (!memcmp(s + i, "-->", 3)) return i + 3;
    return 0;
}

/* A tag's attributes from s[k] to its '>' (quoted values may hold '>', a '<' means no tag):
   the index just past the '>', or 0 when there is none. */
static size_t html_attrs_end(const char *s, size_t n, size_t k)
{
    char quote = 0;
    for (size_t lim = 0; k < n && lim < HTML_ATTRS_MAX; k++, lim++) {
        char ch = s[k];
        if (quote) {
            if (ch == quote) quote = 0;
        } else if (ch == '"' || ch == '\'') {
            quote = ch;
        } else if (ch == '<') {
            return 0;
        } else if (ch == '>') {
            return k + 1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- tags */

/* What a tag becomes. The index knows two kinds (inline: nothing; block: a new line); the
   plain text more. */
enum { TAG_INLINE = 1, TAG_SPACE, TAG_BREAK, TAG_PARA, TAG_ITEM, TAG_DROP, TAG_BLOCK };

/* The element names each reader removes, sorted: a tag is only removed when it names an
   element, so placeholders such as "Bearer <token>" or "<id>" survive. 0: not a tag for
   that reader. */
static const struct html_element {
    const char *name;
    unsigned char index, plain;
} html_elements[] = {
    {"a", TAG_INLINE, TAG_INLINE},
    {"abbr", TAG_INLINE, TAG_INLINE},
    {"area", TAG_INLINE, 0},
    {"article", TAG_BLOCK, TAG_PARA},
    {"aside", TAG_BLOCK, TAG_PARA},
    {"audio", TAG_INLINE, 0},
    {"b", TAG_INLINE, TAG_INLINE},
    {"bdi", TAG_INLINE, 0},
    {"bdo", TAG_INLINE, 0},
    {"big", TAG_INLINE, TAG_INLINE},
    {"blockquote", TAG_BLOCK, TAG_PARA},
    {"body", TAG_INLINE, TAG_INLINE},
    {"br", TAG_BLOCK, TAG_BREAK},
    {"button", TAG_INLINE, 0},
    {"canvas", TAG_INLINE, 0},
    {"caption", TAG_INLINE, TAG_PARA},
    {"center", TAG_INLINE, TAG_PARA},
    {"cite", TAG_INLINE, TAG_INLINE},
    {"code", TAG_INLINE, TAG_INLINE},
    {"col", TAG_INLINE, 0},
    {"colgroup", TAG_INLINE, 0},
    {"dd", TAG_BLOCK, TAG_BREAK},
    {"del", TAG_INLINE, TAG_INLINE},
    {"details", TAG_BLOCK, TAG_PARA},
    {"dfn", TAG_INLINE, TAG_INLINE},
    {"div", TAG_BLOCK, TAG_PARA},
    {"dl", TAG_BLOCK, TAG_PARA},
    {"dt", TAG_BLOCK, TAG_ITEM},
    {"em", TAG_INLINE, TAG_INLINE},
    {"embed", TAG_INLINE, 0},
    {"figcaption", TAG_BLOCK, TAG_PARA},
    {"figure", TAG_BLOCK, TAG_PARA},
    {"font", TAG_INLINE, TAG_INLINE},
    {"footer", TAG_BLOCK, TAG_PARA},
    {"form", TAG_BLOCK, 0},
    {"h1", TAG_BLOCK, TAG_PARA},
    {"h2", TAG_BLOCK, TAG_PARA},
    {"h3", TAG_BLOCK, TAG_PARA},
    {"h4", TAG_BLOCK, TAG_PARA},
    {"h5", TAG_BLOCK, TAG_PARA},
    {"h6", TAG_BLOCK, TAG_PARA},
    {"head", TAG_INLINE, TAG_DROP},
    {"header", TAG_BLOCK, TAG_PARA},
    {"hr", TAG_BLOCK, TAG_PARA},
    {"html", TAG_INLINE, TAG_INLINE},
    {"i", TAG_INLINE, TAG_INLINE},
    {"iframe", TAG_INLINE, TAG_DROP},
    {"img", TAG_INLINE, TAG_INLINE},
    {"input", TAG_INLINE, TAG_INLINE},
    {"ins", TAG_INLINE, TAG_INLINE},
    {"kbd", TAG_INLINE, TAG_INLINE},
    {"label", TAG_INLINE, TAG_INLINE},
    {"li", TAG_BLOCK, TAG_ITEM},
    {"link", TAG_INLINE, TAG_INLINE},
    {"main", TAG_BLOCK, TAG_PARA},
    {"map", TAG_INLINE, 0},
    {"mark", TAG_INLINE, TAG_INLINE},
    {"meta", TAG_INLINE, TAG_INLINE},
    {"nav", TAG_BLOCK, TAG_PARA},
    {"nobr", 0, TAG_INLINE},
    {"noscript", TAG_INLINE, TAG_DROP},
    {"object", TAG_INLINE, 0},
    {"ol", TAG_BLOCK, TAG_PARA},
    {"option", TAG_INLINE, 0},
    {"p", TAG_BLOCK, TAG_PARA},
    {"param", TAG_INLINE, 0},
    {"path", TAG_INLINE, 0},
    {"picture", TAG_INLINE, 0},
    {"pre", TAG_BLOCK, TAG_PARA},
    {"q", TAG_INLINE, TAG_INLINE},
    {"s", TAG_INLINE, TAG_INLINE},
    {"samp", TAG_INLINE, TAG_INLINE},
    {"script", TAG_INLINE, TAG_DROP},
    {"section", TAG_BLOCK, TAG_PARA},
    {"select", TAG_INLINE, 0},
    {"small", TAG_INLINE, TAG_INLINE},
    {"source", TAG_INLINE, 0},
    {"span", TAG_INLINE, TAG_INLINE},
    {"strike", TAG_INLINE, TAG_INLINE},
    {"strong", TAG_INLINE, TAG_INLINE},
    {"style", TAG_INLINE, TAG_DROP},
    {"sub", TAG_INLINE, TAG_INLINE},
    {"summary", TAG_INLINE, TAG_INLINE},
    {"sup", TAG_INLINE, TAG_INLINE},
    {"svg", TAG_INLINE, TAG_DROP},
    {"table", TAG_BLOCK, TAG_PARA},
    {"tbody", TAG_BLOCK, TAG_PARA},
    {"td", TAG_BLOCK, TAG_SPACE},
    {"template", 0, TAG_DROP},
    {"textarea", TAG_INLINE, 0},
    {"tfoot", TAG_BLOCK, TAG_PARA},
    {"th", TAG_BLOCK, TAG_SPACE},
    {"thead", TAG_BLOCK, TAG_PARA},
    {"time", TAG_INLINE, TAG_INLINE},
    {"title", TAG_INLINE, 0},
    {"tr", TAG_BLOCK, TAG_BREAK},
    {"tt", TAG_INLINE, TAG_INLINE},
    {"u", TAG_INLINE, TAG_INLINE},
    {"ul", TAG_BLOCK, TAG_PARA},
    {"var", TAG_INLINE, TAG_INLINE},
    {"video", TAG_INLINE, 0},
    {"wbr", TAG_INLINE, TAG_INLINE},
};

static int element_cmp(const void *key, const void *item)
{
    return strcmp(key, ((const struct html_element *)item)->name);
}

static int tag_kind(const char *name, size_t n, text_reader reader)
{
    char low[16];
    if (n == 0 || n >= sizeof low) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        low[i] = (char)((c >= 'A' && c <= 'Z') ? c + 32 : c);
    }
    low[n] = 0;
    const struct html_element *e =
        bsearch(low, html_elements, sizeof html_elements / sizeof html_elements[0],
                sizeof html_elements[0], element_cmp);
    if (!e) return 0;
    return reader == TEXT_READER_INDEX ? e->index : e->plain;
}

static bool same_ci(const char *a, const char *b, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        unsigned char x = (unsigned char)a[k], y = (unsigned char)b[k];
        if ((x >= 'A' && x <= 'Z' ? x + 32 : x) != (y >= 'A' && y <= 'Z' ? y + 32 : y))
            return false;
    }
    return true;
}

/* Where "</name" starts in s[from..n), or n. Bounded, so a page of "<x>" stays linear
   enough. whole: the name must end there (not "</names"). */
static size_t close_tag_at(const char *s, size_t n, size_t from, const char *name, size_t len,
                           bool whole)
{
    size_t lim = from + HTML_SCAN_MAX < n ? from + HTML_SCAN_MAX : n;
    for (size_t i = from; i + 2 + len <= lim; i++) {
        if (s[i] != '<' || s[i + 1] != '/' || !same_ci(s + i + 2, name, len)) continue;
        if (!whole || i + 2 + len == n) return i;
        unsigned char c = (unsigned char)s[i + 2 + len];
        if (!ascii_alnum(c) && c < 0x80) return i;
    }
    return n;
}

/*
 * A tag at s[i] == '<': its length (0 = not a tag, keep the '<'), its kind, whether it
 * closes, and its name. Comments are inline. For the plain reader, a name it does not know
 * counts when it closes or is closed later (AWS's <note>...</note>).
 */
static size_t html_tag(const char *s, size_t n, size_t i, text_reader reader, int *kind,
                       bool *closing, size_t *name_at, size_t *name_len)
{
    const char *t = s + i;
    size_t m = n - i;
    *kind = 0;
    *closing = false;
    *name_at = *name_len = 0;
    if (m >= 4 && !memcmp(t, "<!--", 4)) {
        size_t k = html_comment(
            t, m, reader == TEXT_READER_INDEX ? HTML_COMMENT_INDEX_MAX : HTML_SCAN_MAX);
        if (k) *kind = TAG_INLINE;
        return k;
    }
    size_t k = 1;
    if (k < m && t[k] == '/') {
        *closing = true;
        k++;
    }
    size_t name = k;
    while (k < m && (ascii_alpha((unsigned char)t[k]) || (k > name && t[k] >= '0' && t[k] <= '9')))
        k++;
    if (k == name || k >= m) return 0;
    unsigned char c = (unsigned char)t[k];
    if (c != '>' && c != '/' && c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' &&
        c != '\v')
        return 0;
    int kd = tag_kind(t + name, k - name, reader);
    if (!kd && reader != TEXT_READER_INDEX &&
        (*closing || close_tag_at(s, n, i + k, t + name, k - name, true) < n))
        kd = TAG_SPACE;
    if (!kd) return 0;
    size_t end = html_attrs_end(t, m, k);
    if (end) {
        *kind = kd;
        *name_at = i + name;
        *name_len = k - name;
    }
    return end;
}

/* What a tag becomes in the text: for the index a new line after a block (none after a
   space or a line), for the plain text a paragraph, a line, an item or a space; keeping
   lines, a space where no line starts. */
static const char *tag_text(text_reader reader, int kind, bool closing, const core_buf *out,
                            size_t start)
{
    /* at a line's start or after a space: no break (index), no space (plain lines) */
    bool spaced =
        out->len <= start || out->data[out->len - 1] == '\n' || out->data[out->len - 1] == ' ';
    switch (reader) {
    case TEXT_READER_INDEX:
        return kind == TAG_BLOCK && !spaced ? "\n" : "";
    case TEXT_READER_PLAIN_LINES:
        return kind == TAG_INLINE || spaced ? "" : " ";
    default:
        break;
    }
    if (kind == TAG_PARA) return "\n\n";
    if (kind == TAG_BREAK) return closing ? " " : "\n\n";
    if (kind == TAG_ITEM) return closing ? " " : "\n- ";
    return kind == TAG_INLINE ? "" : " ";
}

int text_html_strip(const char *s, size_t n, text_reader reader, core_buf *out,
                    text_html_stats *stats)
{
    size_t i = 0, copied = 0, start = out->len;
    bool html_seen = false;
    text_entity_set set = reader == TEXT_READER_INDEX ? TEXT_ENTITIES_ASCII : TEXT_ENTITIES_UNICODE;
    int rc = 0;
    while (i < n && !rc) {
        char c = s[i];
        if (c == '<') {
            int kind;
            bool closing;
            size_t name_at, name_len;
            size_t k = html_tag(s, n, i, reader, &kind, &closing, &name_at, &name_len);
            if (!k) {
                i++;
                continue;
            }
            rc = core_buf_append(out, s + copied, i - copied);
            if (stats) {
                stats->removed++;
                stats->bytes += k;
            }
            html_seen = true;
            i += k;
            if (kind == TAG_DROP && !closing) {
                /* <script>, <style>...: their content goes too, through the close tag */
                size_t j = close_tag_at(s, n, i, s + name_at, name_len, false);
                if (j < n) {
                    size_t e = j + 2 + name_len;
                    while (e < n && s[e] != '>') e++;
                    i = e < n ? e + 1 : n;
                }
            }
            if (!rc) rc = core_buf_puts(out, tag_text(reader, kind, closing, out, start));
            copied = i;
            continue;
        }
        if (c == '&') {
            char u[8];
            size_t ulen = 0;
            size_t k = text_html_entity(s + i, n - i, set, u, &ulen);
            if (k) {
                rc = core_buf_append(out, s + copied, i - copied);
                if (!rc) rc = core_buf_append(out, u, ulen);
                if (stats) stats->removed++;
                i += k;
                copied = i;
                continue;
            }
        }
        if (c == '\n' && html_seen && reader == TEXT_READER_PLAIN) {
            /* inside HTML a newline is a space; a blank line would end a paragraph */
            rc = core_buf_append(out, s + copied, i - copied);
            if (!rc) rc = core_buf_putc(out, ' ');
            i++;
            copied = i;
            continue;
        }
        i++;
    }
    if (!rc) rc = core_buf_append(out, s + copied, n - copied);
    return rc ? APIDEX_ENOMEM : 0;
}
