/*
 * Secrets never shown: every credential value a request carries is replaced by "****" in
 * whatever is printed or logged about it, in clear and in its escaped forms.
 *
 * A server may echo a key escaped: JSON writes "Tok\/en", "\u0054oken", "a\"b"; a URL
 * writes "Tok%2Fen"; a JSON string may hold another JSON text ("Tok\\\/en"). Parsing the
 * body and re-serialising it would change what the caller sees (key order, spacing,
 * numbers), so the text is searched in views instead: the raw bytes, then the bytes with
 * JSON escapes and %XX decoded once, then twice. Each decoded byte remembers the raw offset
 * it came from, so a secret found in a view masks exactly the raw span that spells it (whole
 * escapes, never half of one), and the result stays valid JSON when the text was: every
 * string value and key that decodes to contain a secret is masked where it stands.
 * Base64 of user:pass (Basic auth) is among the request's secrets itself (creds.c).
 */
#include "exec/exec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Decoded views after the raw text: JSON-in-JSON and a percent-encoded value in JSON. */
#define MASK_DECODE_ROUNDS 2

/* A view of the text: bytes s[0..n) and, for each, the raw offset it was decoded from. */
typedef struct {
    char *s;
    uint32_t *from;
    size_t n;
} mask_view;

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The 4 hex digits at p as a number, or -1. */
static long hex4(const char *p, size_t avail)
{
    if (avail < 4) return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(p[i]);
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t utf8_put(char *out, unsigned long cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* One escape at in->s[i]: its decoded bytes into out (up to 4), its length in the view into
 *used. Returns the number of decoded bytes, 0 when in->s[i] starts no escape. */
static size_t decode_one(const mask_view *in, size_t i, char *out, size_t *used)
{
    const char *p = in->s + i;
    size_t avail = in->n - i;
    if (p[0] == '%' && avail >= 3 && hex_digit(p[1]) >= 0 && hex_digit(p[2]) >= 0) {
        out[0] = (char)(hex_digit(p[1]) * 16 + hex_digit(p[2]));
        *used = 3;
        return 1;
    }
    if (p[0] != '\\' || avail < 2) return 0;
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = memchr(from, p[1], sizeof from - 1);
    if (k && p[1]) {
        out[0] = to[k - from];
        *used = 2;
        return 1;
    }
    if (p[1] != 'u') return 0;
    long cp = hex4(p + 2, avail - 2);
    if (cp < 0) return 0;
    *used = 6;
    if (cp >= 0xD800 && cp < 0xDC00 && avail >= 12 && p[6] == '\\' && p[7] == 'u') {
        long lo = hex4(p + 8, avail - 8);
        if (lo >= 0xDC00 && lo < 0xE000) {
            *used = 12;
            return utf8_put(out, 0x10000 + (((unsigned long)cp - 0xD800) << 10) +
                                     ((unsigned long)lo - 0xDC00));
        }
    }
    return utf8_put(out, (unsigned long)cp);
}

/* in decoded once into *out (raw offsets carried through). Returns false when nothing
   decoded (out is then empty) or on no memory. */
static bool view_decode(const mask_view *in, mask_view *out)
{
    *out = (mask_view){0};
    if (!memchr(in->s, '\\', in->n) && !memchr(in->s, '%', in->n)) return false;
    out->s = malloc(in->n + 1);
    out->from = malloc((in->n + 1) * sizeof *out->from);
    if (!out->s || !out->from) goto none;
    bool changed = false;
    for (size_t i = 0; i < in->n;) {
        char dec[4];
        size_t used = 0, k = decode_one(in, i, dec, &used);
        if (!k) {
            dec[0] = in->s[i];
            k = used = 1;
        } else {
            changed = true;
        }
        /* the decoded bytes of one escape are never longer than the escape itself */
        for (size_t j = 0; j < k; j++) {
            out->s[out->n] = dec[j];
            out->from[out->n++] = in->from[i];
        }
        i += used;
    }
    out->from[out->n] = in->from[in->n]; /* the end of the text */
    if (changed) return true;
none:
    free(out->s);
    free(out->from);
    *out = (mask_view){0};
    return false;
}

/* Marks in hide[] every raw byte that spells a secret in view v. */
static void view_mark(const exec_request *r, const mask_view *v, unsigned char *hide)
{
    for (size_t k = 0; k < r->n_secrets; k++) {
        const char *sec = r->secrets[k];
        size_t len = sec ? strlen(sec) : 0;
        if (!len || len > v->n) continue;
        const char *p = v->s, *end = v->s + v->n;
        while ((p = memmem(p, (size_t)(end - p), sec, len))) {
            size_t i = (size_t)(p - v->s), j = i + len;
            /* a match ending inside one escape's bytes takes the whole escape */
            while (j < v->n && v->from[j] == v->from[j - 1]) j++;
            memset(hide + v->from[i], 1, v->from[j] - v->from[i]);
            p++;
        }
    }
}

const char *exec_mask(const exec_request *r, const char *text, core_arena *arena)
{
    if (!text || !r || !r->n_secrets) return text;
    size_t n = strlen(text);
    if (n >= UINT32_MAX) return "****"; /* never shown whole: nothing would be checked */
    unsigned char *hide = calloc(n + 1, 1);
    mask_view raw = {(char *)text, malloc((n + 1) * sizeof(uint32_t)), n};
    if (!hide || !raw.from) {
        free(hide);
        free(raw.from);
        return "****"; /* no memory to look: show nothing rather than a secret */
    }
    for (size_t i = 0; i <= n; i++) raw.from[i] = (uint32_t)i;
    view_mark(r, &raw, hide);
    mask_view cur = raw;
    for (int round = 0; round < MASK_DECODE_ROUNDS; round++) {
        mask_view next;
        if (!view_decode(&cur, &next)) break;
        view_mark(r, &next, hide);
        if (cur.s != text) free(cur.s);
        free(cur.from);
        cur = next;
    }
    if (cur.s != text) free(cur.s);
    free(cur.from);

    core_buf b;
    core_buf_init(&b, 4 * n + 16); /* a cap: "****" may be longer than a secret */
    size_t i = 0;
    while (i < n) {
        if (hide[i]) {
            core_buf_append(&b, "****", 4);
            while (i < n && hide[i]) i++;
        } else {
            size_t j = i;
            while (j < n && !hide[j]) j++;
            core_buf_append(&b, text + i, j - i);
            i = j;
        }
    }
    free(hide);
    const char *out = b.data ? core_arena_strndup(arena, b.data, b.len) : "";
    core_buf_free(&b);
    return out ? out : "****";
}
