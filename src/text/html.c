/*
 * The pieces of HTML both readers of it share: the plain text of answers (plain.c) and
 * prep's html filter (prep/prep_text.c). Entities (named and numeric), comments and a
 * tag's attributes are recognised here once; which tags count, and what a tag becomes,
 * each reader decides (the index keeps layout, the plain text joins lines).
 */
#include "text/text.h"

#include <string.h>

static bool ascii_alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
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

size_t text_html_comment(const char *s, size_t n, size_t max)
{
    for (size_t i = 4; i + 2 < n && i < max; i++)
        if (!memcmp(s + i, "-->", 3)) return i + 3;
    return 0;
}

size_t text_html_attrs_end(const char *s, size_t n, size_t k)
{
    char quote = 0;
    for (size_t lim = 0; k < n && lim < TEXT_HTML_ATTRS_MAX; k++, lim++) {
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
