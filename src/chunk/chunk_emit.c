/*
 * The writer the chunk renderers share (chunk_render.c, chunk_detail.c, chunk_detail_text.c):
 * text and JSON appended to a buffer, the first failure kept, nothing written after it, so a
 * renderer writes on without a check per call and returns the code once.
 */
#include "chunk/chunk_int.h"

#include <stdarg.h>
#include <string.h>

void chunk_put(chunk_emit *e, const char *s)
{
    if (!e->rc && s && core_buf_puts(e->out, s)) e->rc = APIDEX_ENOMEM;
}

void chunk_putn(chunk_emit *e, const char *s, size_t n)
{
    if (!e->rc && core_buf_append(e->out, s, n)) e->rc = APIDEX_ENOMEM;
}

void chunk_putf(chunk_emit *e, const char *fmt, ...)
{
    if (e->rc) return;
    va_list ap;
    va_start(ap, fmt);
    if (core_buf_vprintf(e->out, fmt, ap)) e->rc = APIDEX_ENOMEM;
    va_end(ap);
}

void chunk_indent(chunk_emit *e, unsigned n)
{
    for (unsigned i = 0; i < n; i++) chunk_put(e, " ");
}

void chunk_put_json_str(chunk_emit *e, const char *s)
{
    if (!s)
        chunk_put(e, "null");
    else
        chunk_put_json_strn(e, s, strlen(s));
}

void chunk_put_json_strn(chunk_emit *e, const char *s, size_t n)
{
    if (!e->rc && core_buf_json_str(e->out, s, n)) e->rc = APIDEX_ENOMEM;
}

void chunk_put_json(chunk_emit *e, const jt_node *n)
{
    if (!e->rc && jt_write_json(e->out, n, -1)) e->rc = APIDEX_ENOMEM;
}
