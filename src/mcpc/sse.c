/* An event stream (text/event-stream) read as it arrives, in bounded memory: the lines of an
   event are gathered until its blank line and its data handed to a callback. A line or an
   event over the limit is skipped to its end (a line without end is read past, never kept),
   so a hostile server costs at most the limit however much it sends. */
#include "mcpc/mcpc_int.h"

#include <stdlib.h>
#include <string.h>

enum { SSE_FIELD_ROOM = 16 }; /* "data: " and the like on top of an event's data */

void mcpc_sse_init(mcpc_sse *s, size_t max)
{
    memset(s, 0, sizeof *s);
    s->max = max;
    s->retry_ms = -1;
    core_buf_init(&s->line, max + SSE_FIELD_ROOM + 1);
    core_buf_init(&s->data, max + 2);
}

void mcpc_sse_free(mcpc_sse *s)
{
    core_buf_free(&s->line);
    core_buf_free(&s->data);
}

void mcpc_sse_restart(mcpc_sse *s)
{
    core_buf_reset(&s->line);
    core_buf_reset(&s->data);
    s->skip_line = s->skip_event = s->after_cr = false;
}

/* The event's end (a blank line): its data to fn unless it was skipped. */
static bool dispatch(mcpc_sse *s, mcpc_sse_fn fn, void *ctx)
{
    bool go = true;
    if (s->skip_event)
        s->skipped++;
    else if (s->data.len) {
        size_t n = s->data.len - 1; /* the last line's '\n' */
        s->data.data[n] = '\0';
        go = fn(ctx, s->data.data, n);
    }
    core_buf_reset(&s->data);
    s->skip_event = false;
    return go;
}

/* One whole line (without its end) in s->line. */
static bool line_done(mcpc_sse *s, mcpc_sse_fn fn, void *ctx)
{
    const char *l = s->line.data;
    size_t n = s->line.len;
    bool go = true;
    if (s->skip_line) {
        s->skip_event = true; /* an overlong line spoils its event */
    } else if (n == 0) {
        go = dispatch(s, fn, ctx);
    } else if (l[0] != ':') { /* ':' starts a comment (a keep-alive) */
        const char *colon = memchr(l, ':', n);
        size_t fl = colon ? (size_t)(colon - l) : n;
        const char *v = colon ? colon + 1 : l + n;
        size_t vl = n - (size_t)(v - l);
        if (vl && *v == ' ') v++, vl--;
        if (fl == 4 && !memcmp(l, "data", 4)) {
            if (!s->skip_event &&
                (s->data.len + vl + 1 > s->max || core_buf_append(&s->data, v, vl) ||
                 core_buf_putc(&s->data, '\n'))) {
                s->skip_event = true;
                core_buf_reset(&s->data);
            }
        } else if (fl == 2 && !memcmp(l, "id", 2)) {
            if (vl < sizeof s->last_id && !memchr(v, '\0', vl)) {
                memcpy(s->last_id, v, vl);
                s->last_id[vl] = '\0';
            }
        } else if (fl == 5 && !memcmp(l, "retry", 5) && vl && vl < 10 &&
                   strspn(v, "0123456789") >= vl) {
            s->retry_ms = strtol(v, NULL, 10);
        } /* event: and unknown fields: ignored */
    }
    core_buf_reset(&s->line);
    s->skip_line = false;
    return go;
}

bool mcpc_sse_feed(mcpc_sse *s, const char *p, size_t n, mcpc_sse_fn fn, void *ctx)
{
    size_t i = 0;
    while (i < n) {
        if (s->after_cr) { /* "\r\n" is one line end */
            s->after_cr = false;
            if (p[i] == '\n') {
                i++;
                continue;
            }
        }
        size_t j = i;
        while (j < n && p[j] != '\n' && p[j] != '\r') j++;
        size_t take = j - i;
        if (take && !s->skip_line &&
            (s->line.len + take > s->max + SSE_FIELD_ROOM ||
             core_buf_append(&s->line, p + i, take))) {
            s->skip_line = true; /* read past the rest of the line */
            core_buf_reset(&s->line);
        }
        i = j;
        if (j == n) break;
        s->after_cr = p[j] == '\r';
        i++;
        if (!line_done(s, fn, ctx)) return false;
    }
    return true;
}

bool mcpc_sse_end(mcpc_sse *s, mcpc_sse_fn fn, void *ctx)
{
    /* a last event without its blank line is taken (servers that end the body after it) */
    if ((s->line.len || s->skip_line) && !line_done(s, fn, ctx)) return false;
    return dispatch(s, fn, ctx);
}
