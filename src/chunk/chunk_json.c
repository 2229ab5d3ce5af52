/*
 * JSON output of a chunk list (`apidex chunk --json`, golden tests). Token
 * windows may cut a UTF-8 character in two; such bytes become U+FFFD so the
 * output is always valid JSON.
 */
#include "chunk/chunk.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s (0 if invalid). */
static size_t utf8_valid(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

static int json_str(core_buf *b, const char *s, size_t n)
{
    if (!s) return core_buf_puts(b, "null");
    core_buf clean;
    core_buf_init(&clean, 0);
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, copied = 0;
    int rc = 0;
    while (i < n && !rc) {
        size_t k = utf8_valid(u + i, n - i);
        if (k) {
            i += k;
            continue;
        }
        rc = core_buf_append(&clean, s + copied, i - copied);
        if (!rc) rc = core_buf_puts(&clean, "\xEF\xBF\xBD");
        i++;
        copied = i;
    }
    if (!rc && copied == 0)
        rc = core_buf_json_str(b, s, n);
    else if (!rc) {
        rc = core_buf_append(&clean, s + copied, n - copied);
        if (!rc) rc = core_buf_json_str(b, clean.data, clean.len);
    }
    core_buf_free(&clean);
    return rc;
}

typedef struct jout {
    core_buf *b;
    int indent;
    int rc;
} jout;

static void nl(jout *o, int level)
{
    if (o->rc || o->indent < 0) return;
    o->rc = core_buf_putc(o->b, '\n');
    for (int i = 0; i < o->indent * level && !o->rc; i++) o->rc = core_buf_putc(o->b, ' ');
}

static void raw(jout *o, const char *s)
{
    if (!o->rc) o->rc = core_buf_puts(o->b, s);
}

/* Writes `"key": ` on a new line (with a comma unless first). */
static void key(jout *o, int level, bool *first, const char *k)
{
    if (!*first) raw(o, ",");
    *first = false;
    nl(o, level);
    if (!o->rc) o->rc = core_buf_json_str(o->b, k, strlen(k));
    raw(o, o->indent < 0 ? ":" : ": ");
}

static void str(jout *o, const char *s)
{
    if (!o->rc) o->rc = json_str(o->b, s, s ? strlen(s) : 0);
}

static void strn(jout *o, const char *s, size_t n)
{
    if (!o->rc) o->rc = json_str(o->b, s, n);
}

static void num(jout *o, size_t v)
{
    if (!o->rc) o->rc = core_buf_printf(o->b, "%zu", v);
}

/* A list of strings on one line: ["a", "b"]. */
static void str_array(jout *o, const char *const *v, size_t n)
{
    raw(o, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) raw(o, o->indent < 0 ? "," : ", ");
        str(o, v[i]);
    }
    raw(o, "]");
}

static bool windowed(const chunk *c)
{
    const char *s = c->meta.strategy;
    return s && (!strcmp(s, "nosplit") || !strcmp(s, "endpoint") || !strcmp(s, "json"));
}

static void write_fields(jout *o, const view_fields *f, int level)
{
    struct {
        const char *name, *value;
    } items[] = {{"api", f->api},
                 {"path", f->path},
                 {"operation_id", f->operation_id},
                 {"summary", f->summary},
                 {"description", f->description},
                 {"tags", f->tags},
                 {"params", f->params},
                 {"body", f->body},
                 {"response", f->response}};
    bool first = true;
    raw(o, "{");
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        if (!items[i].value) continue;
        key(o, level + 1, &first, items[i].name);
        str(o, items[i].value);
    }
    if (!first) nl(o, level);
    raw(o, "}");
}

static void write_chunk(jout *o, const chunk *c, bool with_fields, int level)
{
    bool first = true;
    raw(o, "{");
    key(o, level + 1, &first, "id");
    str(o, c->id);
    key(o, level + 1, &first, "type");
    str(o, chunk_type_name(c->type));
    key(o, level + 1, &first, "endpoints");
    raw(o, "[");
    for (size_t i = 0; i < c->n_endpoints; i++) {
        const chunk_endpoint *e = &c->endpoints[i];
        if (i) raw(o, o->indent < 0 ? "," : ", ");
        core_buf tmp;
        core_buf_init(&tmp, 0);
        if (!o->rc && core_buf_printf(&tmp, "%s %s %s", e->api, e->method, e->path))
            o->rc = APIDEX_ENOMEM;
        strn(o, tmp.data, tmp.len);
        core_buf_free(&tmp);
    }
    raw(o, "]");
    key(o, level + 1, &first, "tokens");
    num(o, c->meta.tokens);
    key(o, level + 1, &first, "content");
    strn(o, c->content, c->content_len);
    key(o, level + 1, &first, "text");
    strn(o, c->text, c->text_len);
    key(o, level + 1, &first, "metadata");
    bool mf = true;
    raw(o, "{");
    key(o, level + 2, &mf, "api");
    str(o, c->meta.api);
    key(o, level + 2, &mf, "strategy");
    str(o, c->meta.strategy);
    if (c->meta.method) {
        key(o, level + 2, &mf, "method");
        str(o, c->meta.method);
        key(o, level + 2, &mf, "path");
        str(o, c->meta.path);
        key(o, level + 2, &mf, "operationId");
        str(o, c->meta.operation_id);
        key(o, level + 2, &mf, "tags");
        str_array(o, c->meta.tags, c->meta.n_tags);
        key(o, level + 2, &mf, "deprecated");
        raw(o, c->meta.deprecated ? "true" : "false");
    }
    if (c->meta.schema) {
        key(o, level + 2, &mf, "schema");
        str(o, c->meta.schema);
        key(o, level + 2, &mf, "used_by");
        str_array(o, c->meta.used_by, c->meta.n_used_by);
    }
    key(o, level + 2, &mf, "ref_ids");
    str_array(o, c->meta.ref_ids, c->meta.n_ref_ids);
    key(o, level + 2, &mf, "tokens");
    num(o, c->meta.tokens);
    if (windowed(c)) {
        key(o, level + 2, &mf, "window");
        num(o, c->meta.window);
        key(o, level + 2, &mf, "windows");
        num(o, c->meta.n_windows);
        key(o, level + 2, &mf, "token_range");
        raw(o, "[");
        num(o, c->meta.tok_start);
        raw(o, o->indent < 0 ? "," : ", ");
        num(o, c->meta.tok_end);
        raw(o, "]");
    }
    nl(o, level + 1);
    raw(o, "}");
    if (with_fields) {
        key(o, level + 1, &first, "fields");
        write_fields(o, &c->fields, level + 1);
    }
    nl(o, level);
    raw(o, "}");
}

int chunk_list_write_json(const chunk_list *l, bool with_fields, int indent, core_buf *out)
{
    jout o = {out, indent, 0};
    raw(&o, "{");
    nl(&o, 1);
    raw(&o, indent < 0 ? "\"chunks\":[" : "\"chunks\": [");
    for (size_t i = 0; l && i < l->n && !o.rc; i++) {
        if (i) raw(&o, ",");
        nl(&o, 2);
        write_chunk(&o, &l->items[i], with_fields, 2);
    }
    if (l && l->n) nl(&o, 1);
    raw(&o, "]");
    if (l && l->filters) {
        /* What the preprocessing filters removed (structural ones hidden from renderings
         * count items only). */
        raw(&o, ",");
        nl(&o, 1);
        raw(&o, indent < 0 ? "\"filters\":{" : "\"filters\": {");
        bool first = true;
        for (int i = 0; i < PREP_N_FILTERS && !o.rc; i++) {
            if (!(l->filters & (1u << i))) continue;
            key(&o, 2, &first, prep_filter_name(1u << i));
            if (!o.rc)
                o.rc = core_buf_printf(out,
                                       indent < 0 ? "{\"count\":%zu,\"bytes\":%zu}"
                                                  : "{\"count\": %zu, \"bytes\": %zu}",
                                       l->prep.count[i], l->prep.bytes[i]);
        }
        nl(&o, 1);
        raw(&o, "}");
    }
    nl(&o, 0);
    raw(&o, "}");
    if (indent >= 0) raw(&o, "\n");
    return o.rc ? APIDEX_ENOMEM : 0;
}
