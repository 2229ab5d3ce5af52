/*
 * The readable form of a detail-level object (detail.c): made from the
 * JSON itself, so `apidex show` prints exactly what --json, MCP get_endpoint
 * and /v1/endpoints hold, one line per parameter or field.
 */
#include "view/view_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TEXT_DEPTH = 24 }; /* nesting printed (the JSON is already bounded) */

typedef struct text_ctx {
    view_emit e;
} text_ctx;

/* The keys of a detail object and of the objects inside it, as detail.c writes them
   (serve/detail.c adds an MCP entry's "mcp", "content", "note" and "producers"). */
typedef enum detail_key {
    DK_ID,
    DK_API,
    DK_API_TITLE,
    DK_DETAIL,
    DK_METHOD,
    DK_URL,
    DK_SUMMARY,
    DK_DESCRIPTION,
    DK_OPERATION_ID,
    DK_TAGS,
    DK_DEPRECATED,
    DK_SERVERS,
    DK_VARIABLES,
    DK_DEFAULT,
    DK_ENUM,
    DK_AUTH,
    DK_NAME,
    DK_TYPE,
    DK_IN,
    DK_PARAM,
    DK_FORMAT,
    DK_TOKEN_URL,
    DK_SCOPES,
    DK_PARAMETERS,
    DK_SCHEMA,
    DK_EXAMPLE,
    DK_REQUIRED,
    DK_REQUEST_BODY,
    DK_CONTENT_TYPES,
    DK_CONTENT_TYPE,
    DK_CONTENT,
    DK_STATUS,
    DK_BRIEF,
    DK_HEADERS,
    DK_INPUTS,
    DK_RESPONSE,
    DK_RESPONSES,
    DK_SCHEMAS,
    DK_PRODUCERS,
    DK_ENDPOINT,
    DK_PRODUCER,
    DK_MCP,
    DK_KIND,
    DK_ANNOTATIONS,
    DK_NOTE,
    DK_CIRCULAR,
    DK_OMITTED,
    DK_COUNT
} detail_key;

static const char *const dk_names[DK_COUNT] = {
    [DK_ID] = "id",
    [DK_API] = "api",
    [DK_API_TITLE] = "api_title",
    [DK_DETAIL] = "detail",
    [DK_METHOD] = "method",
    [DK_URL] = "url",
    [DK_SUMMARY] = "summary",
    [DK_DESCRIPTION] = "description",
    [DK_OPERATION_ID] = "operation_id",
    [DK_TAGS] = "tags",
    [DK_DEPRECATED] = "deprecated",
    [DK_SERVERS] = "servers",
    [DK_VARIABLES] = "variables",
    [DK_DEFAULT] = "default",
    [DK_ENUM] = "enum",
    [DK_AUTH] = "auth",
    [DK_NAME] = "name",
    [DK_TYPE] = "type",
    [DK_IN] = "in",
    [DK_PARAM] = "param",
    [DK_FORMAT] = "format",
    [DK_TOKEN_URL] = "tokenUrl",
    [DK_SCOPES] = "scopes",
    [DK_PARAMETERS] = "parameters",
    [DK_SCHEMA] = "schema",
    [DK_EXAMPLE] = "example",
    [DK_REQUIRED] = "required",
    [DK_REQUEST_BODY] = "request_body",
    [DK_CONTENT_TYPES] = "content_types",
    [DK_CONTENT_TYPE] = "content_type",
    [DK_CONTENT] = "content",
    [DK_STATUS] = "status",
    [DK_BRIEF] = "x-apidex-brief",
    [DK_HEADERS] = "headers",
    [DK_INPUTS] = "inputs",
    [DK_RESPONSE] = "response",
    [DK_RESPONSES] = "responses",
    [DK_SCHEMAS] = "schemas",
    [DK_PRODUCERS] = "producers",
    [DK_ENDPOINT] = "endpoint",
    [DK_PRODUCER] = "producer",
    [DK_MCP] = "mcp",
    [DK_KIND] = "kind",
    [DK_ANNOTATIONS] = "annotations",
    [DK_NOTE] = "note",
    [DK_CIRCULAR] = "$circular",
    [DK_OMITTED] = "x-apidex-omitted",
};

/* One object of the detail JSON with each key looked up once (NULL: absent, or n is no
   object); str/flag read a member as a string (NULL otherwise) or a boolean (false). */
typedef struct detail_obj {
    const jt_node *k[DK_COUNT];
} detail_obj;

static void obj_of(const jt_node *n, detail_obj *o)
{
    for (int k = 0; k < DK_COUNT; k++) o->k[k] = jt_get(n, dk_names[k]);
}

static const char *str(const detail_obj *o, detail_key k)
{
    return jt_str(o->k[k]);
}

static bool flag(const detail_obj *o, detail_key k)
{
    return jt_is(o->k[k], JT_BOOL) && o->k[k]->boolean;
}

/* A string member, or "?" when it is absent. */
static const char *str_or_q(const detail_obj *o, detail_key k)
{
    return str(o, k) ? str(o, k) : "?";
}

static void values(text_ctx *c, const jt_node *arr, const char *sep)
{
    for (uint32_t i = 0; jt_is(arr, JT_ARRAY) && i < arr->len; i++) {
        if (i) view_put(&c->e, sep);
        view_put_value(&c->e, arr->u.items[i], 0);
    }
}

/* The last segment of a $ref: "#/components/schemas/Pet" -> "Pet". */
static const char *ref_name(const char *ref)
{
    const char *s = strrchr(ref, '/');
    return s ? s + 1 : ref;
}

/* The marker detail.c writes for a schema already expanded above. */
static const char *circular_of(const jt_node *s)
{
    detail_obj o;
    obj_of(s, &o);
    return str(&o, DK_CIRCULAR);
}

static void type_of(text_ctx *c, const jt_node *s, unsigned lvl)
{
    spec_schema_view v;
    spec_schema_view_node(s, &v);
    const char *circ = circular_of(s);
    if (v.ref || circ) {
        view_put(&c->e, v.ref ? ref_name(v.ref) : circ);
        return;
    }
    const jt_node *t = v.kw[SPEC_KW_TYPE];
    const char *ts = v.type;
    if (jt_is(t, JT_ARRAY))
        values(c, t, "|");
    else if (ts && !spec_schema_view_is_array(&v))
        view_put(&c->e, ts);
    if (spec_schema_view_is_array(&v)) {
        view_put(&c->e, "array");
        const jt_node *items = v.kw[SPEC_KW_ITEMS];
        if (items && lvl < 4) {
            view_put(&c->e, " of ");
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
            view_put(&c->e, kind);
            for (uint32_t i = 0; i < alt->len; i++) {
                if (i) view_put(&c->e, " | ");
                type_of(c, alt->u.items[i], lvl + 1);
            }
        } else {
            view_put(&c->e, v.kw[SPEC_KW_PROPERTIES] ? "object"
                            : v.kw[SPEC_KW_ENUM]     ? "enum"
                                                     : "any");
        }
    }
    if (v.title && ts && !strcmp(ts, "object")) view_putf(&c->e, " %s", v.title);
}

/* ", format date-time, enum: a|b, default: x, ..." */
static void attrs(text_ctx *c, const jt_node *s, bool required)
{
    spec_schema_view v;
    spec_schema_view_node(s, &v);
    if (v.format) view_putf(&c->e, " (%s)", v.format);
    if (required) view_put(&c->e, ", required");
    if (v.nullable) view_put(&c->e, ", nullable");
    if (v.deprecated) view_put(&c->e, ", deprecated");
    if (v.read_only) view_put(&c->e, ", read-only");
    if (v.write_only) view_put(&c->e, ", write-only");
    const jt_node *e = spec_schema_view_enum(&v);
    if (jt_is(e, JT_ARRAY)) {
        view_put(&c->e, ", enum: ");
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
        view_putf(&c->e, ", %s: ", keys[i].label);
        view_put_value(&c->e, k, 0);
    }
}

static void fields(text_ctx *c, const jt_node *s, unsigned ind, unsigned lvl);

static void field_line(text_ctx *c, const char *name, size_t len, const jt_node *s, bool required,
                       unsigned ind, unsigned lvl)
{
    view_indent(&c->e, ind);
    view_put(&c->e, "- ");
    view_putn(&c->e, name, len);
    view_put(&c->e, ": ");
    type_of(c, s, 0);
    attrs(c, s, required);
    spec_schema_view v;
    spec_schema_view_node(s, &v);
    const char *d = v.description;
    if (d && *d) {
        view_put(&c->e, ": ");
        view_put(&c->e, d);
    }
    view_put(&c->e, "\n");
    fields(c, s, ind + 2, lvl + 1);
}

/* The fields below a schema: its properties, an array's items', alternatives. */
static void fields(text_ctx *c, const jt_node *s, unsigned ind, unsigned lvl)
{
    if (!jt_is(s, JT_OBJECT) || lvl > TEXT_DEPTH || c->e.rc) return;
    const char *circ = circular_of(s);
    if (circ) {
        view_indent(&c->e, ind);
        view_putf(&c->e, "(circular: the fields of %s, as above)\n", circ);
        return;
    }
    spec_schema_view v;
    spec_schema_view_node(s, &v);
    const jt_node *items = v.kw[SPEC_KW_ITEMS];
    if (items) {
        fields(c, items, ind, lvl + 1);
        return;
    }
    detail_obj o;
    obj_of(s, &o);
    const char *omitted = str(&o, DK_OMITTED);
    if (omitted) {
        view_indent(&c->e, ind);
        view_putf(&c->e, "(%s)\n", omitted);
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
        detail_obj s;
        obj_of(sv->u.items[i], &s);
        view_putf(&c->e, "%s", i ? "  or server " : "Server: ");
        view_put(&c->e, str(&s, DK_URL));
        view_put(&c->e, "\n");
        const jt_node *vars = s.k[DK_VARIABLES];
        for (uint32_t v = 0; jt_is(vars, JT_OBJECT) && v < vars->len; v++) {
            detail_obj var;
            obj_of(vars->u.members[v].value, &var);
            view_put(&c->e, "    {");
            view_putn(&c->e, vars->u.members[v].key, vars->u.members[v].key_len);
            view_put(&c->e, "}");
            if (var.k[DK_DEFAULT]) {
                view_put(&c->e, " default: ");
                view_put_value(&c->e, var.k[DK_DEFAULT], 0);
            }
            if (var.k[DK_ENUM]) {
                view_put(&c->e, ", one of: ");
                values(c, var.k[DK_ENUM], "|");
            }
            const char *d = str(&var, DK_DESCRIPTION);
            if (d) view_putf(&c->e, ": %s", d);
            view_put(&c->e, "\n");
        }
    }
}

static void auth(text_ctx *c, const jt_node *a)
{
    if (!jt_is(a, JT_ARRAY)) return;
    view_put(&c->e, "Auth: ");
    if (!a->len) view_put(&c->e, "none");
    for (uint32_t i = 0; i < a->len; i++) {
        const jt_node *alt = a->u.items[i];
        if (i) view_put(&c->e, " or ");
        if (!jt_is(alt, JT_ARRAY) || !alt->len) view_put(&c->e, "none");
        for (uint32_t j = 0; jt_is(alt, JT_ARRAY) && j < alt->len; j++) {
            detail_obj s;
            obj_of(alt->u.items[j], &s);
            if (j) view_put(&c->e, " + ");
            view_put(&c->e, str(&s, DK_NAME));
            view_putf(&c->e, " (%s", str_or_q(&s, DK_TYPE));
            const char *in = str(&s, DK_IN), *pn = str(&s, DK_PARAM);
            const char *fmt = str(&s, DK_FORMAT);
            if (in && pn) view_putf(&c->e, ": %s %s", in, pn);
            if (fmt) view_putf(&c->e, ": %s", fmt);
            const char *tu = str(&s, DK_TOKEN_URL);
            if (tu) view_putf(&c->e, ", token URL %s", tu);
            if (s.k[DK_SCOPES]) {
                view_put(&c->e, ", scopes: ");
                values(c, s.k[DK_SCOPES], " ");
            }
            view_put(&c->e, ")");
        }
    }
    view_put(&c->e, "\n");
}

/* The parameters; an MCP tool's (args) are its arguments, which go nowhere in a request. */
static void params(text_ctx *c, const jt_node *ps, bool args)
{
    if (!jt_is(ps, JT_ARRAY) || !ps->len) return;
    view_put(&c->e, args ? "Arguments:\n" : "Parameters:\n");
    for (uint32_t i = 0; i < ps->len; i++) {
        detail_obj p;
        obj_of(ps->u.items[i], &p);
        const jt_node *s = p.k[DK_SCHEMA];
        view_putf(&c->e, "  - %s (", str_or_q(&p, DK_NAME));
        if (!args) view_putf(&c->e, "%s, ", str_or_q(&p, DK_IN));
        spec_schema_view v;
        spec_schema_view_node(s, &v);
        type_of(c, s, 0);
        attrs(c, s, flag(&p, DK_REQUIRED));
        const jt_node *pex = p.k[DK_EXAMPLE]; /* the parameter's own, beside its schema */
        if (pex && !v.kw[SPEC_KW_EXAMPLE]) {
            view_put(&c->e, ", example: ");
            view_put_value(&c->e, pex, 0);
        }
        view_put(&c->e, ")");
        const char *d = str(&p, DK_DESCRIPTION);
        if (!d) d = v.description;
        if (d && *d) view_putf(&c->e, ": %s", d);
        view_put(&c->e, "\n");
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
        view_indent(&c->e, ind);
        view_put(&c->e, "schema: ");
        type_of(c, s, 0);
        attrs(c, s, false);
        view_put(&c->e, "\n");
        return;
    }
    fields(c, s, ind, 0);
}

/* The "content" of a body or response at the full level: each media type's schema. */
static void contents(text_ctx *c, const jt_node *content, unsigned ind)
{
    for (uint32_t i = 0; jt_is(content, JT_OBJECT) && i < content->len; i++) {
        detail_obj m;
        obj_of(content->u.members[i].value, &m);
        view_indent(&c->e, ind);
        view_put(&c->e, "as ");
        view_put(&c->e, content->u.members[i].key);
        view_put(&c->e, ":\n");
        media_schema(c, m.k[DK_SCHEMA], ind + 2);
    }
}

static void body(text_ctx *c, const jt_node *bn)
{
    if (!jt_is(bn, JT_OBJECT)) return;
    detail_obj b;
    obj_of(bn, &b);
    view_put(&c->e, "Request body (");
    values(c, b.k[DK_CONTENT_TYPES], " or ");
    if (flag(&b, DK_REQUIRED)) view_put(&c->e, ", required");
    view_put(&c->e, ")");
    const jt_node *s = b.k[DK_SCHEMA];
    if (s) {
        view_put(&c->e, ": ");
        type_of(c, s, 0);
    }
    const char *d = str(&b, DK_DESCRIPTION);
    if (d && *d) view_putf(&c->e, ". %s", d);
    view_put(&c->e, "\n");
    if (s) fields(c, s, 2, 0);
    contents(c, b.k[DK_CONTENT], 2);
}

static void response(text_ctx *c, const jt_node *rn)
{
    if (!jt_is(rn, JT_OBJECT)) return;
    detail_obj r;
    obj_of(rn, &r);
    view_putf(&c->e, "  %s", str_or_q(&r, DK_STATUS));
    const jt_node *s = r.k[DK_SCHEMA];
    if (s) {
        view_put(&c->e, " (");
        const char *ct = str(&r, DK_CONTENT_TYPE);
        if (ct) view_putf(&c->e, "%s: ", ct);
        type_of(c, s, 0);
        view_put(&c->e, ")");
    }
    const char *d = str(&r, DK_DESCRIPTION);
    if (d && *d) view_putf(&c->e, ": %s", d);
    view_put(&c->e, "\n");
    if (s) fields(c, s, 4, 0);
    const char *brief = str(&r, DK_BRIEF);
    if (brief) view_putf(&c->e, "    (%s)\n", brief);
    contents(c, r.k[DK_CONTENT], 4);
    const jt_node *h = r.k[DK_HEADERS];
    if (jt_is(h, JT_OBJECT) && h->len) {
        view_put(&c->e, "    headers: ");
        for (uint32_t i = 0; i < h->len; i++)
            view_putf(&c->e, "%s%s", i ? ", " : "", h->u.members[i].key);
        view_put(&c->e, "\n");
    }
}

/* What an MCP server's entry says beside its arguments: the annotations of a tool. */
static void mcp_annotations(text_ctx *c, const jt_node *ann)
{
    if (!jt_is(ann, JT_OBJECT) || !ann->len) return;
    view_put(&c->e, "Annotations: ");
    for (uint32_t i = 0; i < ann->len; i++) {
        view_putf(&c->e, "%s%s: ", i ? ", " : "", ann->u.members[i].key);
        view_put_value(&c->e, ann->u.members[i].value, 0);
    }
    view_put(&c->e, "\n");
}

static void document(text_ctx *c, const detail_obj *o)
{
    const char *summary = str(o, DK_SUMMARY);
    const char *detail = str(o, DK_DETAIL);
    /* an MCP tool, resource or prompt: its id, not a method and path that mean nothing */
    detail_obj mcp;
    bool is_mcp = jt_is(o->k[DK_MCP], JT_OBJECT);
    obj_of(is_mcp ? o->k[DK_MCP] : NULL, &mcp);
    if (is_mcp)
        view_putf(&c->e, "MCP %s %s", str(&mcp, DK_KIND) ? str(&mcp, DK_KIND) : "tool",
                  str(o, DK_ID));
    else
        view_putf(&c->e, "%s %s", str(o, DK_METHOD), str(o, DK_URL));
    bool one_line = detail && !strcmp(detail, "summary");
    const char *what = summary && *summary ? summary : one_line ? str(o, DK_DESCRIPTION) : NULL;
    if (what && *what) view_putf(&c->e, " - %s", what);
    if (is_mcp)
        view_put(&c->e, "\n");
    else
        view_putf(&c->e, "  [%s]\n", str(o, DK_ID));
    if (one_line) return;
    view_putf(&c->e, "%s: %s", is_mcp ? "Server" : "API", str(o, DK_API));
    if (str(o, DK_API_TITLE)) view_putf(&c->e, " (%s)", str(o, DK_API_TITLE));
    if (!is_mcp && str(o, DK_OPERATION_ID))
        view_putf(&c->e, "; operationId: %s", str(o, DK_OPERATION_ID));
    const jt_node *tags = o->k[DK_TAGS];
    if (jt_is(tags, JT_ARRAY) && tags->len) {
        view_put(&c->e, "; tags: ");
        values(c, tags, ", ");
    }
    if (flag(o, DK_DEPRECATED)) view_put(&c->e, "; DEPRECATED");
    view_put(&c->e, "\n");
    servers(c, o->k[DK_SERVERS]);
    const char *d = str(o, DK_DESCRIPTION);
    if (d && *d) view_putf(&c->e, "%s\n", d);
    const char *stored = str(o, DK_CONTENT);
    if (stored && *stored) view_putf(&c->e, "%s\n", stored);
    const char *note = str(o, DK_NOTE);
    if (note) view_putf(&c->e, "(%s)\n", note);
    if (is_mcp)
        mcp_annotations(c, mcp.k[DK_ANNOTATIONS]);
    else
        auth(c, o->k[DK_AUTH]);
    params(c, o->k[DK_PARAMETERS], is_mcp);
    body(c, o->k[DK_REQUEST_BODY]);
    const jt_node *in = o->k[DK_INPUTS];
    if (jt_is(in, JT_ARRAY) && in->len) {
        view_put(&c->e, "Required inputs: ");
        for (uint32_t i = 0; i < in->len; i++) {
            detail_obj inp;
            obj_of(in->u.items[i], &inp);
            view_putf(&c->e, "%s%s", i ? ", " : "", str(&inp, DK_NAME));
            if (!is_mcp) view_putf(&c->e, " (%s)", str(&inp, DK_IN));
        }
        view_put(&c->e, "\n");
    }
    const jt_node *r = o->k[DK_RESPONSE];
    if (jt_is(r, JT_OBJECT)) {
        view_put(&c->e, "Success response:\n");
        response(c, r);
    }
    const jt_node *rs = o->k[DK_RESPONSES];
    if (jt_is(rs, JT_ARRAY) && rs->len) {
        view_put(&c->e, "Responses:\n");
        for (uint32_t i = 0; i < rs->len; i++) response(c, rs->u.items[i]);
    }
    const jt_node *pr = o->k[DK_PRODUCERS];
    if (jt_is(pr, JT_ARRAY) && pr->len) {
        view_put(&c->e, "Where its inputs come from:\n");
        for (uint32_t i = 0; i < pr->len; i++) {
            detail_obj p;
            obj_of(pr->u.items[i], &p);
            view_putf(&c->e, "  - %s <- %s (%s)\n", str(&p, DK_PARAM), str(&p, DK_ENDPOINT),
                      str(&p, DK_PRODUCER));
        }
    }
    const jt_node *sc = o->k[DK_SCHEMAS];
    if (jt_is(sc, JT_OBJECT) && sc->len) {
        view_put(&c->e, "Schemas:\n");
        for (uint32_t i = 0; i < sc->len; i++) {
            const jt_node *s = sc->u.members[i].value;
            view_putf(&c->e, "  %s: ", ref_name(sc->u.members[i].key));
            type_of(c, s, 0);
            attrs(c, s, false);
            spec_schema_view v;
            spec_schema_view_node(s, &v);
            const char *sd = v.description;
            if (sd && *sd) view_putf(&c->e, ": %s", sd);
            view_put(&c->e, "\n");
            fields(c, s, 4, 0);
        }
    }
    if (detail && !strcmp(detail, "call"))
        view_put(&c->e, "(detail call: every parameter, body field and enum value is above; "
                        "--detail full adds all responses and the schemas as written)\n");
}

int view_detail_text(const char *json, size_t len, core_buf *out, apidex_error *err)
{
    char *copy = malloc(len + 1);
    if (!copy) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    memcpy(copy, json, len);
    copy[len] = '\0';
    jt_doc *doc = NULL;
    int rc = jt_doc_parse(copy, len, "detail", NULL, &doc, err);
    if (rc) return rc;
    detail_obj o;
    obj_of(doc->root, &o);
    if (!jt_is(doc->root, JT_OBJECT) || !str(&o, DK_METHOD)) {
        jt_doc_free(doc);
        return core_error_set(err, APIDEX_EPARSE, "not an endpoint detail object");
    }
    text_ctx c = {.e = {.out = out}};
    document(&c, &o);
    jt_doc_free(doc);
    return c.e.rc ? core_error_set(err, c.e.rc, "out of memory") : 0;
}
