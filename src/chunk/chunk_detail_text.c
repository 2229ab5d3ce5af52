/*
 * The readable form of a detail-level object (chunk_detail.c): made from the
 * JSON itself, so `apidex show` prints exactly what --json, MCP get_endpoint
 * and /v1/endpoints hold, one line per parameter or field.
 */
#include "chunk/chunk_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TEXT_DEPTH = 24 }; /* nesting printed (the JSON is already bounded) */

typedef struct text_ctx {
    chunk_emit e;
} text_ctx;

/* A scalar as a reader would type it; arrays and objects as compact JSON. */
static void value(text_ctx *c, const jt_node *v)
{
    if (!v) return;
    switch ((jt_type)v->type) {
    case JT_STRING:
        chunk_putn(&c->e, v->u.s, v->len);
        break;
    case JT_INT:
        chunk_putf(&c->e, "%lld", (long long)v->u.i);
        break;
    case JT_REAL:
        if (isfinite(v->u.d)) chunk_putf(&c->e, "%g", v->u.d);
        break;
    default:
        chunk_put_json(&c->e, v);
    }
}

static void values(text_ctx *c, const jt_node *arr, const char *sep)
{
    for (uint32_t i = 0; jt_is(arr, JT_ARRAY) && i < arr->len; i++) {
        if (i) chunk_put(&c->e, sep);
        value(c, arr->u.items[i]);
    }
}

/* The last segment of a $ref: "#/components/schemas/Pet" -> "Pet". */
static const char *ref_name(const char *ref)
{
    const char *s = strrchr(ref, '/');
    return s ? s + 1 : ref;
}

/* The marker chunk_detail.c writes for a schema already expanded above. */
static const char *circular_of(const jt_node *s)
{
    return jt_get_str(s, "$circular");
}

static void type_of(text_ctx *c, const jt_node *s, unsigned lvl)
{
    spec_schema_view v;
    spec_schema_view_node(s, &v);
    const char *circ = circular_of(s);
    if (v.ref || circ) {
        chunk_put(&c->e, v.ref ? ref_name(v.ref) : circ);
        return;
    }
    const jt_node *t = v.kw[SPEC_KW_TYPE];
    const char *ts = v.type;
    if (jt_is(t, JT_ARRAY))
        values(c, t, "|");
    else if (ts && !spec_schema_view_is_array(&v))
        chunk_put(&c->e, ts);
    if (spec_schema_view_is_array(&v)) {
        chunk_put(&c->e, "array");
        const jt_node *items = v.kw[SPEC_KW_ITEMS];
        if (items && lvl < 4) {
            chunk_put(&c->e, " of ");
            type_of(c, items, lvl + 1);
        }
    } else if (!t) {
        const jt_node *alt = v.kw[SPEC_KW_ONE_OF];
        const char *kind = "one of ";
        if (!alt) {
            alt = v.kw[SPEC_KW_ANY_OF];
            kind = "any of ";
        }
        if (jt_is(alt, JT_ARRAY) && alt->len && lvl < 4) {
            chunk_put(&c->e, kind);
            for (uint32_t i = 0; i < alt->len; i++) {
                if (i) chunk_put(&c->e, " | ");
                type_of(c, alt->u.items[i], lvl + 1);
            }
        } else {
            chunk_put(&c->e, v.kw[SPEC_KW_PROPERTIES] ? "object"
                             : v.kw[SPEC_KW_ENUM]     ? "enum"
                                                      : "any");
        }
    }
    if (v.title && ts && !strcmp(ts, "object")) chunk_putf(&c->e, " %s", v.title);
}

/* ", format date-time, enum: a|b, default: x, ..." */
static void attrs(text_ctx *c, const jt_node *s, bool required)
{
    spec_schema_view v;
    spec_schema_view_node(s, &v);
    if (v.format) chunk_putf(&c->e, " (%s)", v.format);
    if (required) chunk_put(&c->e, ", required");
    if (v.nullable) chunk_put(&c->e, ", nullable");
    if (v.deprecated) chunk_put(&c->e, ", deprecated");
    if (v.read_only) chunk_put(&c->e, ", read-only");
    if (v.write_only) chunk_put(&c->e, ", write-only");
    const jt_node *e = spec_schema_view_enum(&v);
    if (jt_is(e, JT_ARRAY)) {
        chunk_put(&c->e, ", enum: ");
        values(c, e, "|");
    }
    static const struct {
        spec_schema_kw kw;
        const char *label;
    } keys[] = {{SPEC_KW_CONST, "const"},           {SPEC_KW_DEFAULT, "default"},
                {SPEC_KW_EXAMPLE, "example"},       {SPEC_KW_MINIMUM, "min"},
                {SPEC_KW_MAXIMUM, "max"},           {SPEC_KW_MIN_LENGTH, "min length"},
                {SPEC_KW_MAX_LENGTH, "max length"}, {SPEC_KW_MIN_ITEMS, "min items"},
                {SPEC_KW_MAX_ITEMS, "max items"},   {SPEC_KW_PATTERN, "pattern"}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const jt_node *k = v.kw[keys[i].kw];
        if (!k) continue;
        chunk_putf(&c->e, ", %s: ", keys[i].label);
        value(c, k);
    }
}

static void fields(text_ctx *c, const jt_node *s, unsigned ind, unsigned lvl);

static void field_line(text_ctx *c, const char *name, size_t len, const jt_node *s, bool required,
                       unsigned ind, unsigned lvl)
{
    chunk_indent(&c->e, ind);
    chunk_put(&c->e, "- ");
    chunk_putn(&c->e, name, len);
    chunk_put(&c->e, ": ");
    type_of(c, s, 0);
    attrs(c, s, required);
    spec_schema_view v;
    spec_schema_view_node(s, &v);
    const char *d = v.description;
    if (d && *d) {
        chunk_put(&c->e, ": ");
        chunk_put(&c->e, d);
    }
    chunk_put(&c->e, "\n");
    fields(c, s, ind + 2, lvl + 1);
}

/* The fields below a schema: its properties, an array's items', alternatives. */
static void fields(text_ctx *c, const jt_node *s, unsigned ind, unsigned lvl)
{
    if (!jt_is(s, JT_OBJECT) || lvl > TEXT_DEPTH || c->e.rc) return;
    const char *circ = circular_of(s);
    if (circ) {
        chunk_indent(&c->e, ind);
        chunk_putf(&c->e, "(circular: the fields of %s, as above)\n", circ);
        return;
    }
    spec_schema_view v;
    spec_schema_view_node(s, &v);
    const jt_node *items = v.kw[SPEC_KW_ITEMS];
    if (items) {
        fields(c, items, ind, lvl + 1);
        return;
    }
    const char *omitted = jt_get_str(s, "x-apidex-omitted");
    if (omitted) {
        chunk_indent(&c->e, ind);
        chunk_putf(&c->e, "(%s)\n", omitted);
    }
    const jt_node *props = v.kw[SPEC_KW_PROPERTIES];
    for (uint32_t i = 0; jt_is(props, JT_OBJECT) && i < props->len; i++) {
        const jt_member *m = &props->u.members[i];
        field_line(c, m->key, m->key_len, m->value,
                   spec_schema_view_requires(&v, m->key, m->key_len), ind, lvl);
    }
    const jt_node *ap = v.kw[SPEC_KW_ADDITIONAL_PROPERTIES];
    if (jt_is(ap, JT_OBJECT)) field_line(c, "(other keys)", 12, ap, false, ind, lvl);
    static const spec_schema_kw alts[] = {SPEC_KW_ONE_OF, SPEC_KW_ANY_OF};
    for (size_t k = 0; k < 2; k++) {
        const jt_node *a = v.kw[alts[k]];
        for (uint32_t i = 0; jt_is(a, JT_ARRAY) && i < a->len; i++) {
            char label[32];
            int n = snprintf(label, sizeof label, "(%s %u)", k ? "any of" : "one of", i + 1);
            field_line(c, label, (size_t)n, a->u.items[i], false, ind, lvl);
        }
    }
}

static void servers(text_ctx *c, const jt_node *sv)
{
    for (uint32_t i = 0; jt_is(sv, JT_ARRAY) && i < sv->len; i++) {
        const jt_node *s = sv->u.items[i];
        chunk_putf(&c->e, "%s", i ? "  or server " : "Server: ");
        chunk_put(&c->e, jt_get_str(s, "url"));
        chunk_put(&c->e, "\n");
        const jt_node *vars = jt_get(s, "variables");
        for (uint32_t v = 0; jt_is(vars, JT_OBJECT) && v < vars->len; v++) {
            const jt_node *var = vars->u.members[v].value;
            chunk_put(&c->e, "    {");
            chunk_putn(&c->e, vars->u.members[v].key, vars->u.members[v].key_len);
            chunk_put(&c->e, "}");
            if (jt_get(var, "default")) {
                chunk_put(&c->e, " default: ");
                value(c, jt_get(var, "default"));
            }
            if (jt_get(var, "enum")) {
                chunk_put(&c->e, ", one of: ");
                values(c, jt_get(var, "enum"), "|");
            }
            const char *d = jt_get_str(var, "description");
            if (d) chunk_putf(&c->e, ": %s", d);
            chunk_put(&c->e, "\n");
        }
    }
}

static void auth(text_ctx *c, const jt_node *a)
{
    if (!jt_is(a, JT_ARRAY)) return;
    chunk_put(&c->e, "Auth: ");
    if (!a->len) chunk_put(&c->e, "none");
    for (uint32_t i = 0; i < a->len; i++) {
        const jt_node *alt = a->u.items[i];
        if (i) chunk_put(&c->e, " or ");
        if (!jt_is(alt, JT_ARRAY) || !alt->len) chunk_put(&c->e, "none");
        for (uint32_t j = 0; jt_is(alt, JT_ARRAY) && j < alt->len; j++) {
            const jt_node *s = alt->u.items[j];
            if (j) chunk_put(&c->e, " + ");
            chunk_put(&c->e, jt_get_str(s, "name"));
            chunk_putf(&c->e, " (%s", jt_get_str(s, "type") ? jt_get_str(s, "type") : "?");
            const char *in = jt_get_str(s, "in"), *pn = jt_get_str(s, "param");
            const char *fmt = jt_get_str(s, "format");
            if (in && pn) chunk_putf(&c->e, ": %s %s", in, pn);
            if (fmt) chunk_putf(&c->e, ": %s", fmt);
            const char *tu = jt_get_str(s, "tokenUrl");
            if (tu) chunk_putf(&c->e, ", token URL %s", tu);
            if (jt_get(s, "scopes")) {
                chunk_put(&c->e, ", scopes: ");
                values(c, jt_get(s, "scopes"), " ");
            }
            chunk_put(&c->e, ")");
        }
    }
    chunk_put(&c->e, "\n");
}

/* The parameters; an MCP tool's (args) are its arguments, which go nowhere in a request. */
static void params(text_ctx *c, const jt_node *ps, bool args)
{
    if (!jt_is(ps, JT_ARRAY) || !ps->len) return;
    chunk_put(&c->e, args ? "Arguments:\n" : "Parameters:\n");
    for (uint32_t i = 0; i < ps->len; i++) {
        const jt_node *p = ps->u.items[i];
        const jt_node *s = jt_get(p, "schema");
        chunk_putf(&c->e, "  - %s (", jt_get_str(p, "name") ? jt_get_str(p, "name") : "?");
        if (!args) chunk_putf(&c->e, "%s, ", jt_get_str(p, "in") ? jt_get_str(p, "in") : "?");
        spec_schema_view v;
        spec_schema_view_node(s, &v);
        type_of(c, s, 0);
        attrs(c, s, jt_get_bool(p, "required", false));
        const jt_node *pex = jt_get(p, "example"); /* the parameter's own, beside its schema */
        if (pex && !v.kw[SPEC_KW_EXAMPLE]) {
            chunk_put(&c->e, ", example: ");
            value(c, pex);
        }
        chunk_put(&c->e, ")");
        const char *d = jt_get_str(p, "description");
        if (!d) d = v.description;
        if (d && *d) chunk_putf(&c->e, ": %s", d);
        chunk_put(&c->e, "\n");
        fields(c, s, 4, 1);
    }
}

/* One media type's schema under a heading line already printed. */
static void media_schema(text_ctx *c, const jt_node *s, unsigned ind)
{
    if (!jt_is(s, JT_OBJECT)) return;
    spec_schema_view v;
    spec_schema_view_node(s, &v);
    if (v.kw[SPEC_KW_REF] || (!v.kw[SPEC_KW_PROPERTIES] && !v.kw[SPEC_KW_ITEMS] &&
                              !v.kw[SPEC_KW_ONE_OF] && !v.kw[SPEC_KW_ANY_OF])) {
        chunk_indent(&c->e, ind);
        chunk_put(&c->e, "schema: ");
        type_of(c, s, 0);
        attrs(c, s, false);
        chunk_put(&c->e, "\n");
        return;
    }
    fields(c, s, ind, 0);
}

static void body(text_ctx *c, const jt_node *b)
{
    if (!jt_is(b, JT_OBJECT)) return;
    chunk_put(&c->e, "Request body (");
    values(c, jt_get(b, "content_types"), " or ");
    if (jt_get_bool(b, "required", false)) chunk_put(&c->e, ", required");
    chunk_put(&c->e, ")");
    const jt_node *s = jt_get(b, "schema");
    if (s) {
        chunk_put(&c->e, ": ");
        type_of(c, s, 0);
    }
    const char *d = jt_get_str(b, "description");
    if (d && *d) chunk_putf(&c->e, ". %s", d);
    chunk_put(&c->e, "\n");
    if (s) fields(c, s, 2, 0);
    const jt_node *content = jt_get(b, "content");
    for (uint32_t i = 0; jt_is(content, JT_OBJECT) && i < content->len; i++) {
        chunk_put(&c->e, "  as ");
        chunk_put(&c->e, content->u.members[i].key);
        chunk_put(&c->e, ":\n");
        media_schema(c, jt_get(content->u.members[i].value, "schema"), 4);
    }
}

static void response(text_ctx *c, const jt_node *r)
{
    if (!jt_is(r, JT_OBJECT)) return;
    chunk_putf(&c->e, "  %s", jt_get_str(r, "status") ? jt_get_str(r, "status") : "?");
    const jt_node *s = jt_get(r, "schema");
    if (s) {
        chunk_put(&c->e, " (");
        const char *ct = jt_get_str(r, "content_type");
        if (ct) chunk_putf(&c->e, "%s: ", ct);
        type_of(c, s, 0);
        chunk_put(&c->e, ")");
    }
    const char *d = jt_get_str(r, "description");
    if (d && *d) chunk_putf(&c->e, ": %s", d);
    chunk_put(&c->e, "\n");
    if (s) fields(c, s, 4, 0);
    const char *brief = jt_get_str(r, "x-apidex-brief");
    if (brief) chunk_putf(&c->e, "    (%s)\n", brief);
    const jt_node *content = jt_get(r, "content");
    for (uint32_t i = 0; jt_is(content, JT_OBJECT) && i < content->len; i++) {
        chunk_put(&c->e, "    as ");
        chunk_put(&c->e, content->u.members[i].key);
        chunk_put(&c->e, ":\n");
        media_schema(c, jt_get(content->u.members[i].value, "schema"), 6);
    }
    const jt_node *h = jt_get(r, "headers");
    if (jt_is(h, JT_OBJECT) && h->len) {
        chunk_put(&c->e, "    headers: ");
        for (uint32_t i = 0; i < h->len; i++)
            chunk_putf(&c->e, "%s%s", i ? ", " : "", h->u.members[i].key);
        chunk_put(&c->e, "\n");
    }
}

/* What an MCP server's entry says beside its arguments: the annotations of a tool. */
static void mcp_annotations(text_ctx *c, const jt_node *ann)
{
    if (!jt_is(ann, JT_OBJECT) || !ann->len) return;
    chunk_put(&c->e, "Annotations: ");
    for (uint32_t i = 0; i < ann->len; i++) {
        chunk_putf(&c->e, "%s%s: ", i ? ", " : "", ann->u.members[i].key);
        value(c, ann->u.members[i].value);
    }
    chunk_put(&c->e, "\n");
}

static void document(text_ctx *c, const jt_node *o)
{
    const char *summary = jt_get_str(o, "summary");
    const char *detail = jt_get_str(o, "detail");
    /* an MCP tool, resource or prompt: its id, not a method and path that mean nothing */
    const jt_node *mcp = jt_get(o, "mcp");
    if (!jt_is(mcp, JT_OBJECT)) mcp = NULL;
    if (mcp)
        chunk_putf(&c->e, "MCP %s %s", jt_get_str(mcp, "kind") ? jt_get_str(mcp, "kind") : "tool",
                   jt_get_str(o, "id"));
    else
        chunk_putf(&c->e, "%s %s", jt_get_str(o, "method"), jt_get_str(o, "url"));
    bool one_line = detail && !strcmp(detail, "summary");
    const char *what = summary && *summary ? summary
                       : one_line          ? jt_get_str(o, "description")
                                           : NULL;
    if (what && *what) chunk_putf(&c->e, " - %s", what);
    if (mcp)
        chunk_put(&c->e, "\n");
    else
        chunk_putf(&c->e, "  [%s]\n", jt_get_str(o, "id"));
    if (one_line) return;
    chunk_putf(&c->e, "%s: %s", mcp ? "Server" : "API", jt_get_str(o, "api"));
    if (jt_get_str(o, "api_title")) chunk_putf(&c->e, " (%s)", jt_get_str(o, "api_title"));
    if (!mcp && jt_get_str(o, "operation_id"))
        chunk_putf(&c->e, "; operationId: %s", jt_get_str(o, "operation_id"));
    const jt_node *tags = jt_get(o, "tags");
    if (jt_is(tags, JT_ARRAY) && tags->len) {
        chunk_put(&c->e, "; tags: ");
        values(c, tags, ", ");
    }
    if (jt_get_bool(o, "deprecated", false)) chunk_put(&c->e, "; DEPRECATED");
    chunk_put(&c->e, "\n");
    servers(c, jt_get(o, "servers"));
    const char *d = jt_get_str(o, "description");
    if (d && *d) chunk_putf(&c->e, "%s\n", d);
    const char *stored = jt_get_str(o, "content");
    if (stored && *stored) chunk_putf(&c->e, "%s\n", stored);
    const char *note = jt_get_str(o, "note");
    if (note) chunk_putf(&c->e, "(%s)\n", note);
    if (mcp)
        mcp_annotations(c, jt_get(mcp, "annotations"));
    else
        auth(c, jt_get(o, "auth"));
    params(c, jt_get(o, "parameters"), mcp != NULL);
    body(c, jt_get(o, "request_body"));
    const jt_node *in = jt_get(o, "inputs");
    if (jt_is(in, JT_ARRAY) && in->len) {
        chunk_put(&c->e, "Required inputs: ");
        for (uint32_t i = 0; i < in->len; i++) {
            chunk_putf(&c->e, "%s%s", i ? ", " : "", jt_get_str(in->u.items[i], "name"));
            if (!mcp) chunk_putf(&c->e, " (%s)", jt_get_str(in->u.items[i], "in"));
        }
        chunk_put(&c->e, "\n");
    }
    const jt_node *r = jt_get(o, "response");
    if (jt_is(r, JT_OBJECT)) {
        chunk_put(&c->e, "Success response:\n");
        response(c, r);
    }
    const jt_node *rs = jt_get(o, "responses");
    if (jt_is(rs, JT_ARRAY) && rs->len) {
        chunk_put(&c->e, "Responses:\n");
        for (uint32_t i = 0; i < rs->len; i++) response(c, rs->u.items[i]);
    }
    const jt_node *pr = jt_get(o, "producers");
    if (jt_is(pr, JT_ARRAY) && pr->len) {
        chunk_put(&c->e, "Where its inputs come from:\n");
        for (uint32_t i = 0; i < pr->len; i++)
            chunk_putf(&c->e, "  - %s <- %s (%s)\n", jt_get_str(pr->u.items[i], "param"),
                       jt_get_str(pr->u.items[i], "endpoint"),
                       jt_get_str(pr->u.items[i], "producer"));
    }
    const jt_node *sc = jt_get(o, "schemas");
    if (jt_is(sc, JT_OBJECT) && sc->len) {
        chunk_put(&c->e, "Schemas:\n");
        for (uint32_t i = 0; i < sc->len; i++) {
            const jt_node *s = sc->u.members[i].value;
            chunk_putf(&c->e, "  %s: ", ref_name(sc->u.members[i].key));
            type_of(c, s, 0);
            attrs(c, s, false);
            spec_schema_view v;
            spec_schema_view_node(s, &v);
            const char *sd = v.description;
            if (sd && *sd) chunk_putf(&c->e, ": %s", sd);
            chunk_put(&c->e, "\n");
            fields(c, s, 4, 0);
        }
    }
    if (detail && !strcmp(detail, "call"))
        chunk_put(&c->e, "(detail call: every parameter, body field and enum value is above; "
                         "--detail full adds all responses and the schemas as written)\n");
}

int chunk_detail_text(const char *json, size_t len, core_buf *out, apidex_error *err)
{
    char *copy = malloc(len + 1);
    if (!copy) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    memcpy(copy, json, len);
    copy[len] = '\0';
    jt_doc *doc = NULL;
    int rc = jt_doc_parse(copy, len, "detail", NULL, &doc, err);
    if (rc) return rc;
    if (!jt_is(doc->root, JT_OBJECT) || !jt_get_str(doc->root, "method")) {
        jt_doc_free(doc);
        return core_error_set(err, APIDEX_EPARSE, "not an endpoint detail object");
    }
    text_ctx c = {.e = {.out = out}};
    document(&c, doc->root);
    jt_doc_free(doc);
    return c.e.rc ? core_error_set(err, c.e.rc, "out of memory") : 0;
}
