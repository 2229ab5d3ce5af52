/*
 * The writer the view's renderers share (render.c, detail.c, detail_text.c): text and JSON
 * appended to a buffer, the first failure kept, nothing written after it, so a renderer writes
 * on without a check per call and returns the code once.
 */
#include "view/view_int.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

void view_put(view_emit *e, const char *s)
{
    if (!e->rc && s && core_buf_puts(e->out, s)) e->rc = APIDEX_ENOMEM;
}

void view_putn(view_emit *e, const char *s, size_t n)
{
    if (!e->rc && core_buf_append(e->out, s, n)) e->rc = APIDEX_ENOMEM;
}

void view_putf(view_emit *e, const char *fmt, ...)
{
    if (e->rc) return;
    va_list ap;
    va_start(ap, fmt);
    if (core_buf_vprintf(e->out, fmt, ap)) e->rc = APIDEX_ENOMEM;
    va_end(ap);
}

void view_indent(view_emit *e, unsigned n)
{
    for (unsigned i = 0; i < n; i++) view_put(e, " ");
}

void view_put_json_str(view_emit *e, const char *s)
{
    if (!s)
        view_put(e, "null");
    else
        view_put_json_strn(e, s, strlen(s));
}

void view_put_json_strn(view_emit *e, const char *s, size_t n)
{
    if (!e->rc && core_buf_json_str(e->out, s, n)) e->rc = APIDEX_ENOMEM;
}

void view_put_json(view_emit *e, const jt_node *n)
{
    if (!e->rc && jt_write_json(e->out, n, -1)) e->rc = APIDEX_ENOMEM;
}

void view_put_value(view_emit *e, const jt_node *v, size_t brief)
{
    if (!v) return;
    switch ((jt_type)v->type) {
    case JT_INT:
        view_putf(e, "%lld", (long long)v->u.i);
        break;
    case JT_REAL:
        if (isfinite(v->u.d)) view_putf(e, "%g", v->u.d);
        break;
    case JT_STRING: {
        size_t n = v->len, k = n;
        if (brief) {
            k = 0;
            while (k < n && k < brief && v->u.s[k] != '\n') k++;
            while (k < n && k > 0 && ((unsigned char)v->u.s[k] & 0xC0) == 0x80) k--;
        }
        view_putn(e, v->u.s, k);
        if (k < n) view_put(e, "...");
        break;
    }
    case JT_ARRAY:
    case JT_OBJECT:
        if (brief)
            view_put(e, v->type == JT_ARRAY ? "[...]" : "{...}");
        else
            view_put_json(e, v);
        break;
    default: /* null, true, false */
        view_put_json(e, v);
    }
}
