/*
 * Markdown emphasis markers and markup-only lines, shared by the two readers of Markdown: the
 * plain text of agent-facing answers (plain.c) and the markdown filter of preprocessing
 * (prep/prep_text.c).
 * A run of '*', '_' or '~' opens or closes emphasis only at a word's edge, so snake_case,
 * a*b and UTF-8 words around an underscore survive; a closing run is looked for on the same
 * line within TEXT_MD_SCAN_MAX bytes, which keeps hostile lines ("*a *a *a ...") linear.
 * And the lines that are only markup (rules, table separators, link definitions).
 */
#include "text/text.h"

#include <string.h>

static bool md_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* letters and digits, and every byte of a UTF-8 sequence (non-ASCII letters) */
static bool md_word(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

bool text_md_opens(const char *s, size_t n, size_t i, size_t k)
{
    bool prev_ok = i == 0 || !md_word((unsigned char)s[i - 1]);
    bool next_ok = i + k < n && !md_space((unsigned char)s[i + k]) && s[i + k] != s[i];
    return prev_ok && next_ok;
}

bool text_md_closes(const char *s, size_t n, size_t i, size_t k)
{
    bool prev_ok = i > 0 && !md_space((unsigned char)s[i - 1]) && s[i - 1] != s[i];
    bool next_ok = i + k >= n || !md_word((unsigned char)s[i + k]);
    return prev_ok && next_ok;
}

size_t text_md_find_close(const char *s, size_t n, size_t from, char c, size_t k)
{
    size_t lim = from + TEXT_MD_SCAN_MAX < n ? from + TEXT_MD_SCAN_MAX : n;
    for (size_t j = from; j < lim && s[j] != '\n'; j++) {
        if (s[j] != c) continue;
        size_t r = j;
        while (r < n && s[r] == c) r++;
        if (r - j == k && text_md_closes(s, n, j, k)) return j;
        j = r - 1;
    }
    return n;
}

bool text_md_markup_line(const char *s, size_t n, text_reader reader)
{
    bool index = reader == TEXT_READER_INDEX;
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    if (i >= n) return false;
    if (index && n - i >= 3 && (!memcmp(s + i, "```", 3) || !memcmp(s + i, "~~~", 3))) return true;
    /* a rule: three or more of the same -, * or _ (or = under a heading), spaces between */
    char r = s[i];
    if (r == '-' || r == '*' || r == '_' || (r == '=' && !index)) {
        size_t cnt = 0, j = i;
        while (j < n && (s[j] == r || s[j] == ' ' || s[j] == '\t' || s[j] == '\r')) {
            if (s[j] == r) cnt++;
            j++;
        }
        if (j == n && cnt >= 3) return true;
    }
    /* a table separator: only | - : and spaces, with a '-' and a '|' or ':' */
    bool dash = false, bar = false, other = false;
    for (size_t j = i; j < n; j++) {
        unsigned char c = (unsigned char)s[j];
        if (c == '-')
            dash = true;
        else if (c == '|' || c == ':')
            bar = true;
        else if (c != ' ' && c != '\t' && c != '\r' && (index || !md_space(c)))
            other = true;
    }
    if (dash && bar && !other) return true;
    /* [ref]: http://... */
    if (s[i] == '[') {
        size_t j = i + 1;
        while (j < n && s[j] != ']' && s[j] != '[') j++;
        if (j + 2 < n && s[j] == ']' && s[j + 1] == ':' && s[j + 2] == ' ') return true;
    }
    return false;
}
