/* Private helpers shared by the files of the view stage: the depth cap and the emitter. */
#ifndef APIDEX_VIEW_INT_H
#define APIDEX_VIEW_INT_H

#include "view/view.h"

enum { VIEW_MAX_DEPTH = 8 };

/* ---------------------------------------------------------------- the emitter (emit.c) */

/**
 * A writer into out that keeps the first failure: once rc is set (APIDEX_ENOMEM by a write,
 * or any code the renderer sets itself) nothing more is written, so a renderer writes on and
 * returns rc once. Plain data: out is the caller's.
 */
typedef struct view_emit {
    core_buf *out;
    int rc;
} view_emit;
/** Appends s (NULL: nothing). */
void view_put(view_emit *e, const char *s);
/** Appends n bytes of s. */
void view_putn(view_emit *e, const char *s, size_t n);
/** Appends the printf-formatted text. */
void view_putf(view_emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Appends n spaces. */
void view_indent(view_emit *e, unsigned n);
/** Appends s as a JSON string; NULL as null. */
void view_put_json_str(view_emit *e, const char *s);
/** Appends n bytes of s as a JSON string. */
void view_put_json_strn(view_emit *e, const char *s, size_t n);
/** Appends the node as compact JSON. */
void view_put_json(view_emit *e, const jt_node *n);
/**
 * Appends a JSON value as a reader would type it: a string's bytes, an integer as %lld, a
 * finite real as %g (NaN, infinity: nothing), null, true, false; v NULL: nothing. brief 0: a
 * string whole, an array or object as compact JSON. brief > 0: a string cut at its first
 * newline or after brief bytes (back to a character boundary) and then followed by "...", an
 * array or object as "[...]" or "{...}".
 */
void view_put_value(view_emit *e, const jt_node *v, size_t brief);

#endif /* APIDEX_VIEW_INT_H */
