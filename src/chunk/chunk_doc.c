/*
 * Whole-document texts for the nosplit and JSON-split strategies: compact JSON
 * and LlamaIndex-style leaf lines, each recording where every operation's text
 * lies and where each path string occurs, so token windows can be mapped back
 * to the endpoints they cover.
 */
#include "chunk/chunk_doc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DOC_MAX_DEPTH = 1024, DOC_MAX_BYTES = 256 * 1024 * 1024 };

void chunk_doc_free(chunk_doc_text *d)
{
    if (!d) return;
    core_buf_free(&d->text);
    free(d->spans);
    free(d->occ);
    memset(d, 0, sizeof *d);
}

static int span_add(chunk_doc_text *d, size_t op, size_t a, size_t b)
{
    if (core_array_grow(&d->spans, &d->cap_spans, d->n_spans, sizeof *d->spans, 64))
        return APIDEX_ENOMEM;
    d->spans[d->n_spans++] = (chunk_span){op, a, b};
    return 0;
}

static int occ_add(chunk_doc_text *d, size_t path, size_t a, size_t b)
{
    if (core_array_grow(&d->occ, &d->cap_occ, d->n_occ, sizeof *d->occ, 64)) return APIDEX_ENOMEM;
    d->occ[d->n_occ++] = (chunk_span){path, a, b};
    return 0;
}

/* The operation of api at (path key, method key), or -1. */
static long find_op(const spec_api *api, const char *path, size_t path_len, const char *method,
                    size_t method_len)
{
    if (method_len > 7) return -1;
    char up[8];
    for (size_t i = 0; i < method_len; i++)
        up[i] = (method[i] >= 'a' && method[i] <= 'z') ? (char)(method[i] - 32) : method[i];
    up[method_len] = 0;
    for (size_t i = 0; i < api->n_ops; i++) {
        const spec_operation *op = &api->ops[i];
        if (strlen(op->path) == path_len && !memcmp(op->path, path, path_len) &&
            !strcmp(op->method, up))
            return (long)i;
    }
    return -1;
}

/* Distinct path keys of the API's operations, in operation order. */
size_t chunk_doc_path_index(const spec_api *api, const char *path, size_t len)
{
    for (size_t i = 0; i < api->n_ops; i++)
        if (strlen(api->ops[i].path) == len && !memcmp(api->ops[i].path, path, len)) return i;
    return (size_t)-1;
}

/* ---------------------------------------------------------------- compact JSON */

typedef struct json_writer {
    const spec_api *api;
    chunk_doc_text *d;
    int rc;
} json_writer;

static void jw_scalar(json_writer *w, const jt_node *n)
{
    core_buf *b = &w->d->text;
    int rc = 0;
    switch ((jt_type)n->type) {
    case JT_NULL:
        rc = core_buf_puts(b, "null");
        break;
    case JT_BOOL:
        rc = core_buf_puts(b, n->boolean ? "true" : "false");
        break;
    case JT_INT:
        rc = core_buf_printf(b, "%lld", (long long)n->u.i);
        break;
    case JT_REAL:
        rc = isfinite(n->u.d) ? core_buf_printf(b, "%.17g", n->u.d) : core_buf_puts(b, "null");
        break;
    case JT_STRING:
        rc = core_buf_json_str(b, n->u.s, n->len);
        break;
    default:
        break;
    }
    if (rc) w->rc = rc;
}

/* role: 0 plain, 1 the "paths" object, 2 a path item (of path key pk). */
static void jw_node(json_writer *w, const jt_node *n, unsigned depth, int role, const char *pk,
                    size_t pk_len)
{
    core_buf *b = &w->d->text;
    if (w->rc) return;
    if (!n) {
        w->rc = core_buf_puts(b, "null");
        return;
    }
    if (depth > DOC_MAX_DEPTH) {
        w->rc = core_buf_puts(b, "null");
        return;
    }
    if (n->type == JT_ARRAY) {
        w->rc = core_buf_putc(b, '[');
        for (uint32_t i = 0; i < n->len && !w->rc; i++) {
            if (i) w->rc = core_buf_putc(b, ',');
            jw_node(w, n->u.items[i], depth + 1, 0, NULL, 0);
        }
        if (!w->rc) w->rc = core_buf_putc(b, ']');
        return;
    }
    if (n->type != JT_OBJECT) {
        jw_scalar(w, n);
        return;
    }
    w->rc = core_buf_putc(b, '{');
    for (uint32_t i = 0; i < n->len && !w->rc; i++) {
        const jt_member *m = &n->u.members[i];
        if (i) w->rc = core_buf_putc(b, ',');
        size_t key_at = b->len;
        if (!w->rc) w->rc = core_buf_json_str(b, m->key, m->key_len);
        if (!w->rc) w->rc = core_buf_putc(b, ':');
        if (w->rc) return;
        int child = 0;
        size_t at = b->len;
        if (role == 1) {
            size_t p = chunk_doc_path_index(w->api, m->key, m->key_len);
            if (p != (size_t)-1) w->rc = occ_add(w->d, p, key_at, at - 1);
            child = 2;
        } else if (depth == 0 && m->key_len == 5 && !memcmp(m->key, "paths", 5)) {
            child = 1;
        }
        jw_node(w, m->value, depth + 1, child, m->key, m->key_len);
        if (role == 2 && !w->rc) {
            long op = find_op(w->api, pk, pk_len, m->key, m->key_len);
            if (op >= 0) w->rc = span_add(w->d, (size_t)op, at, b->len);
        }
        if (!w->rc && b->len > DOC_MAX_BYTES) w->rc = APIDEX_ELIMIT;
    }
    if (!w->rc) w->rc = core_buf_putc(b, '}');
}

int chunk_doc_json(const spec_api *api, const jt_node *root, chunk_doc_text *out)
{
    memset(out, 0, sizeof *out);
    core_buf_init(&out->text, DOC_MAX_BYTES + 1024);
    json_writer w = {api, out, 0};
    jw_node(&w, root, 0, 0, NULL, 0);
    return w.rc ? (w.rc == APIDEX_ELIMIT ? APIDEX_ELIMIT : w.rc) : 0;
}

/* ---------------------------------------------------------------- JSON leaf lines */

typedef struct key_ref {
    const char *key;
    size_t len;
} key_ref;

typedef struct line_writer {
    const spec_api *api;
    chunk_doc_text *d;
    key_ref path[DOC_MAX_DEPTH + 2];
    size_t depth;
    bool first;
    int rc;
    /* Leaves of one operation come in runs: remember the last lookups. */
    const char *last_path, *last_method;
    size_t last_path_idx;
    long last_op;
} line_writer;

/* Python's str() of a float: the shortest text that reads back the same. */
static int put_real(core_buf *b, double v)
{
    if (!isfinite(v)) return core_buf_puts(b, isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v) break;
    }
    int rc = core_buf_puts(b, tmp);
    if (!rc && !strpbrk(tmp, ".eE")) rc = core_buf_puts(b, ".0");
    return rc;
}

static void lw_leaf(line_writer *w, const jt_node *n)
{
    core_buf *b = &w->d->text;
    int rc = 0;
    if (!w->first) rc = core_buf_putc(b, '\n');
    w->first = false;
    size_t line_start = b->len;
    for (size_t i = 0; i < w->depth && !rc; i++) {
        size_t at = b->len;
        rc = core_buf_append(b, w->path[i].key, w->path[i].len);
        if (!rc) rc = core_buf_putc(b, ' ');
        /* The path key under "paths" is where the paper's rule finds the path. */
        if (!rc && i == 1 && w->path[0].len == 5 && !memcmp(w->path[0].key, "paths", 5)) {
            if (w->last_path != w->path[1].key) {
                w->last_path = w->path[1].key;
                w->last_path_idx = chunk_doc_path_index(w->api, w->path[1].key, w->path[1].len);
                w->last_method = NULL;
            }
            size_t p = w->last_path_idx;
            if (p != (size_t)-1) rc = occ_add(w->d, p, at, at + w->path[1].len);
        }
    }
    if (!rc && n) {
        switch ((jt_type)n->type) {
        case JT_NULL:
            rc = core_buf_puts(b, "None");
            break;
        case JT_BOOL:
            rc = core_buf_puts(b, n->boolean ? "True" : "False");
            break;
        case JT_INT:
            rc = core_buf_printf(b, "%lld", (long long)n->u.i);
            break;
        case JT_REAL:
            rc = put_real(b, n->u.d);
            break;
        case JT_STRING:
            rc = core_buf_append(b, n->u.s, n->len);
            break;
        default:
            break;
        }
    }
    if (!rc && w->depth >= 3 && w->path[0].len == 5 && !memcmp(w->path[0].key, "paths", 5)) {
        if (w->last_method != w->path[2].key) {
            w->last_method = w->path[2].key;
            w->last_op =
                find_op(w->api, w->path[1].key, w->path[1].len, w->path[2].key, w->path[2].len);
        }
        long op = w->last_op;
        if (op >= 0) rc = span_add(w->d, (size_t)op, line_start, b->len);
    }
    if (!rc && b->len > DOC_MAX_BYTES) rc = APIDEX_ELIMIT;
    if (rc) w->rc = rc;
}

static void lw_node(line_writer *w, const jt_node *n, unsigned depth)
{
    if (w->rc) return;
    if (depth > DOC_MAX_DEPTH || !n) return;
    if (n->type == JT_OBJECT) {
        for (uint32_t i = 0; i < n->len && !w->rc; i++) {
            w->path[w->depth++] = (key_ref){n->u.members[i].key, n->u.members[i].key_len};
            lw_node(w, n->u.members[i].value, depth + 1);
            w->depth--;
        }
    } else if (n->type == JT_ARRAY) {
        for (uint32_t i = 0; i < n->len && !w->rc; i++) lw_node(w, n->u.items[i], depth + 1);
    } else {
        lw_leaf(w, n);
    }
}

int chunk_doc_lines(const spec_api *api, const jt_node *root, chunk_doc_text *out)
{
    memset(out, 0, sizeof *out);
    core_buf_init(&out->text, DOC_MAX_BYTES + 1024);
    line_writer *w = calloc(1, sizeof *w);
    if (!w) return APIDEX_ENOMEM;
    w->api = api;
    w->d = out;
    w->first = true;
    lw_node(w, root, 0);
    int rc = w->rc;
    free(w);
    return rc;
}
