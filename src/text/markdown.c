/*
 * Markdown emphasis markers, shared by the two readers of Markdown: the plain text of
 * agent-facing answers (plain.c) and the markdown filter of preprocessing (prep/prep_text.c).
 * A run of '*', '_' or '~' opens or closes emphasis only at a word's edge, so snake_case,
 * a*b and UTF-8 words around an underscore survive; a closing run is looked for on the same
 * line within TEXT_MD_SCAN_MAX bytes, which keeps hostile lines ("*a *a *a ...") linear.
 */
#include "text/text.h"

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
