/*
 * The loader's findings: spec_diag records one diagnostic of an API (warnings of $ref
 * resolution, normalisation, the model) with its file, line:col and JSON pointer, found for
 * it when the caller has only the node (searches and position look-ups capped per API).
 */
#include "oas/oas_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    SPEC_MAX_LOCATES = 256, /* JSON position look-ups per API: each one scans the text */
    SPEC_MAX_SEARCHES = 256 /* node → pointer searches per API: each one walks a document */
};

const char *spec_node_pointer(spec_api_int *ai, const spec_doc *doc, const jt_node *node)
{
    if (!doc || !doc->tree || !node) return NULL;
    typedef struct {
        const jt_node *n;
        uint32_t next;
    } frame;
    const jt_node *root = doc->tree->root;
    if (root == node) return "";
    size_t cap = 0, n = 0;
    frame *st = NULL;
    if (core_array_grow(&st, &cap, n, sizeof *st, 64)) return NULL;
    st[n++] = (frame){root, 0};
    const char *result = NULL;
    bool found = false;
    while (n && !found) {
        frame *f = &st[n - 1];
        if ((f->n->type != JT_OBJECT && f->n->type != JT_ARRAY) || f->next >= f->n->len) {
            n--;
            continue;
        }
        uint32_t i = f->next++;
        const jt_node *c = f->n->type == JT_OBJECT ? f->n->u.members[i].value : f->n->u.items[i];
        if (!c || (c != node && c->type != JT_OBJECT && c->type != JT_ARRAY)) continue;
        if (core_array_grow(&st, &cap, n, sizeof *st, 64)) break;
        st[n++] = (frame){c, 0};
        if (c == node) found = true;
    }
    if (found) {
        core_buf b;
        core_buf_init(&b, 1 << 20);
        for (size_t k = 1; k < n; k++) {
            const jt_node *p = st[k - 1].n;
            uint32_t i = st[k - 1].next - 1;
            if (p->type == JT_OBJECT)
                jt_pointer_append(&b, p->u.members[i].key, p->u.members[i].key_len);
            else
                core_buf_printf(&b, "/%u", i);
        }
        if (!b.failed) result = core_arena_strndup(ai->arena, b.data ? b.data : "", b.len);
        core_buf_free(&b);
    }
    free(st);
    return result;
}

void spec_diag(spec_api_int *ai, core_diag_level level, int code, const spec_doc *doc,
               const jt_node *node, const char *pointer, const char *fmt, ...)
{
    core_diags *d = &ai->pub.diags;
    if (d->n >= d->max) {
        d->dropped++;
        return;
    }
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* every diagnostic gets a pointer when one can be found (searches are capped) */
    if (!pointer && node && doc && ai->searches < SPEC_MAX_SEARCHES) {
        ai->searches++;
        pointer = spec_node_pointer(ai, doc, node);
    }
    unsigned line = 0, col = 0;
    if (node && node->line) {
        line = node->line;
        col = node->col;
    } else if (doc && doc->tree && pointer && doc->tree->format == JT_FORMAT_JSON &&
               ai->locates < SPEC_MAX_LOCATES) {
        ai->locates++;
        if (!jt_doc_locate(doc->tree, pointer, &line, &col)) line = col = 0;
    }
    /* the same finding at the same place is said once (a $ref'd parameter is read by
       every operation that uses it) */
    const char *file = doc ? doc->file : ai->pub.file;
    for (size_t i = 0; i < d->n && line; i++) {
        const core_diag *o = &d->items[i];
        if (o->line == line && o->col == col && o->code == code && !strcmp(o->message, msg) &&
            !strcmp(o->file, file ? file : ""))
            return;
    }
    core_diags_add(d, level, code, file, line, col, pointer, "%s", msg);
}
