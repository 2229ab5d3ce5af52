/* core_buf: a growable NUL-terminated byte buffer with a hard cap. */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BUF_DEFAULT_MAX = 1u << 30 };

void core_buf_init(core_buf *b, size_t max)
{
    memset(b, 0, sizeof *b);
    b->max = max ? max : BUF_DEFAULT_MAX;
}

void core_buf_free(core_buf *b)
{
    if (!b) return;
    free(b->data);
    b->data = NULL;
    b->len = b->cap_alloc = 0;
    b->failed = false;
}

void core_buf_reset(core_buf *b)
{
    b->len = 0;
    b->failed = false;
    if (b->data) b->data[0] = '\0';
}

static int buf_reserve(core_buf *b, size_t extra)
{
    if (b->failed) return APIDEX_ELIMIT;
    size_t max = b->max ? b->max : BUF_DEFAULT_MAX;
    if (extra > max || b->len > max - extra) {
        b->failed = true;
        return APIDEX_ELIMIT;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap_alloc) return 0;
    size_t cap = b->cap_alloc ? b->cap_alloc : 64;
    while (cap < need) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = true;
        return APIDEX_ENOMEM;
    }
    b->data = p;
    b->cap_alloc = cap;
    return 0;
}

int core_buf_append(core_buf *b, const void *p, size_t n)
{
    int rc = buf_reserve(b, n);
    if (rc) return rc;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int core_buf_puts(core_buf *b, const char *s)
{
    return core_buf_append(b, s, strlen(s));
}

int core_buf_putc(core_buf *b, char c)
{
    return core_buf_append(b, &c, 1);
}

int core_buf_vprintf(core_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return APIDEX_EINVAL;
    int rc = buf_reserve(b, (size_t)n);
    if (rc) return rc;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int core_buf_printf(core_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = core_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

int core_buf_json_str_or_null(core_buf *b, const char *s)
{
    return s ? core_buf_json_str(b, s, strlen(s)) : core_buf_puts(b, "null");
}

int core_buf_json_str(core_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    int rc = core_buf_putc(b, '"');
    size_t start = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        rc = core_buf_append(b, s + start, i - start);
        char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
        size_t elen = 2;
        switch (c) {
        case '"':
            esc[1] = '"';
            break;
        case '\\':
            esc[1] = '\\';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\t':
            esc[1] = 't';
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            elen = 6;
        }
        if (!rc) rc = core_buf_append(b, esc, elen);
        start = i + 1;
    }
    if (!rc) rc = core_buf_append(b, s + start, n - start);
    if (!rc) rc = core_buf_putc(b, '"');
    return rc;
}

char *core_buf_steal(core_buf *b, size_t *len)
{
    char *p = b->data;
    if (!p) {
        p = malloc(1);
        if (p) p[0] = '\0';
    }
    if (len) *len = b->len;
    b->data = NULL;
    b->len = b->cap_alloc = 0;
    b->failed = false;
    return p;
}
