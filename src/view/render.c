/*
 * Readable renderings of operations and schemas: what a chunk hands to an agent
 * (the content of operation and schema chunks, kept by the index). Compact (one line per
 * parameter or field) yet enough to call the endpoint: method, path, server,
 * auth, parameters, request body fields and 2xx response fields, with $ref'd
 * schemas inlined to a fixed depth and cycles printed once with a marker.
 */
#include "view/view_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_PROPS = 60,         /* properties listed per object before "... N more" */
    MAX_ENUM = 12,          /* enum values listed */
    MAX_RENDER = 64 * 1024, /* bytes of one rendering before it is cut */
    DESC_OP = 2000,         /* operation description bytes */
    DESC_FIELD = 200,       /* parameter / property description bytes */
    DESC_NESTED = 100,      /* ... of a property inside a property */
    DESC_RESPONSE = 300,    /* response description bytes */
    TYPE_DEPTH = 4          /* nesting of "array of array of ..." spelled out */
};

typedef struct render_ctx {
    const spec_api *api;
    const view_render_options *opt;
    unsigned depth;
    view_emit e;  /* where the rendering goes, and its first failure */
    size_t start; /* out->len when the rendering began */
    bool cut;     /* MAX_RENDER reached */
    view_refs *refs;
    core_arena *arena;       /* allOf merges */
    spec_schema_guard guard; /* named schemas (-1: inline) being expanded */
    int mode;                /* MODE_*: which side of the exchange fields are listed for */
    bool readonly_top;       /* list only read-only top-level fields (response = request body) */
    long seen[64];           /* (schema index, mode) pairs already expanded in this rendering */
    unsigned n_seen;
} render_ctx;

/* A request body omits read-only fields and a response write-only ones (what the
 * client sends and receives); a schema chunk shows everything. */
enum { MODE_ALL = 0, MODE_REQUEST = 1, MODE_RESPONSE = 2 };

void view_refs_free(view_refs *r)
{
    if (!r) return;
    free(r->idx);
    r->idx = NULL;
    r->n = r->cap = 0;
}

static void refs_add(render_ctx *c, long idx)
{
    view_refs *r = c->refs;
    if (!r || idx < 0) return;
    for (size_t i = 0; i < r->n; i++)
        if (r->idx[i] == (size_t)idx) return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8;
        size_t *p = realloc(r->idx, cap * sizeof *p);
        if (!p) {
            c->e.rc = APIDEX_ENOMEM;
            return;
        }
        r->idx = p;
        r->cap = cap;
    }
    r->idx[r->n++] = (size_t)idx;
}

static bool over_budget(render_ctx *c)
{
    if (!c->cut && c->e.out->len - c->start > MAX_RENDER) {
        c->cut = true;
        view_put(&c->e, "... (rendering cut at 64 KiB)\n");
    }
    return c->cut;
}

/* ---------------------------------------------------------------- text helpers */

int view_clean_text(const prep_options *prep, const char *s, size_t max, core_buf *out,
                    prep_report *rep)
{
    if (!s || !*s) return 0;
    core_buf tmp;
    core_buf_init(&tmp, 0);
    size_t n = strlen(s);
    int rc = 0;
    if (prep && (prep->filters & PREP_TEXT_FILTERS)) {
        rc = prep_text(prep, s, n, &tmp, rep);
        if (rc) {
            core_buf_free(&tmp);
            return rc;
        }
        s = tmp.data ? tmp.data : "";
        n = tmp.len;
    }
    /* Collapse whitespace: one line, single spaces. */
    size_t start = out->len, written = 0;
    bool space = false, any = false;
    for (size_t i = 0; i < n && !rc; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t' || ch == '\f' || ch == '\v') {
            space = any;
            continue;
        }
        if (max && written >= max) {
            /* Cut at a character boundary, then back to the last space if one is near. */
            size_t len = out->len;
            while (len > start && ((unsigned char)out->data[len - 1] & 0xC0) == 0x80) len--;
            if (len > start && ((unsigned char)out->data[len - 1] & 0x80)) len--;
            size_t sp = len;
            while (sp > start && sp + 40 > len && out->data[sp - 1] != ' ') sp--;
            if (sp > start && out->data[sp - 1] == ' ') len = sp - 1;
            out->len = len;
            out->data[len] = 0;
            rc = core_buf_puts(out, "...");
            break;
        }
        if (space) {
            rc = core_buf_putc(out, ' ');
            written++;
        }
        space = false;
        any = true;
        if (!rc) rc = core_buf_putc(out, (char)ch);
        written++;
    }
    core_buf_free(&tmp);
    return rc ? APIDEX_ENOMEM : 0;
}

static void put_text(render_ctx *c, const char *s, size_t max)
{
    if (!c->e.rc) c->e.rc = view_clean_text(&c->opt->prep, s, max, c->e.out, c->opt->report);
}

/* ---------------------------------------------------------------- schemas */

/* The view of a schema ($ref followed, allOf merged: spec_schema_view_open); the merged
   members are mentioned too (Pet = NewPet + its own fields). */
static void resolve(render_ctx *c, spec_loc loc, spec_schema_view *v)
{
    spec_schema_view_open(c->api, loc, c->arena, v);
    for (uint32_t i = 0; v->all_of && i < v->all_of->len && i < 16; i++)
        refs_add(c, spec_schema_index(c->api, spec_schema_view_at(v, v->all_of->u.items[i])));
}

static const char *schema_name(render_ctx *c, long idx)
{
    return idx >= 0 && (size_t)idx < c->api->n_schemas ? c->api->schemas[idx].name : NULL;
}

static const jt_node *alternatives(const spec_schema_view *v, const char **kind)
{
    bool any;
    const jt_node *a = spec_schema_view_alternatives(v, &any);
    *kind = any ? "any of" : "one of";
    return a;
}

static void type_str(render_ctx *c, spec_loc loc, unsigned lvl);

static void type_core(render_ctx *c, const spec_schema_view *v, unsigned lvl)
{
    const jt_node *n = v->loc.node;
    const char *name = schema_name(c, v->index);
    if (!n) {
        view_put(&c->e, name ? name : "any");
        return;
    }
    const jt_node *t = v->kw[SPEC_KW_TYPE];
    const char *ts = v->type;
    const char *kind;
    const jt_node *alt = alternatives(v, &kind);
    if (jt_is(t, JT_ARRAY)) {
        for (uint32_t i = 0; i < t->len; i++) {
            if (i) view_put(&c->e, "|");
            view_put(&c->e, jt_str(t->u.items[i]) ? jt_str(t->u.items[i]) : "?");
        }
        ts = NULL;
        for (uint32_t i = 0; i < t->len && !ts; i++)
            if (jt_str(t->u.items[i]) && strcmp(jt_str(t->u.items[i]), "null"))
                ts = jt_str(t->u.items[i]);
        if (ts && !strcmp(ts, "array") && lvl < TYPE_DEPTH) {
            view_put(&c->e, " of ");
            type_str(c, spec_schema_view_at(v, v->kw[SPEC_KW_ITEMS]), lvl + 1);
        }
        return;
    }
    if (spec_schema_view_is_array(v)) {
        view_put(&c->e, "array");
        const jt_node *items = v->kw[SPEC_KW_ITEMS];
        if (items && lvl < TYPE_DEPTH) {
            view_put(&c->e, " of ");
            type_str(c, spec_schema_view_at(v, items), lvl + 1);
        }
        return;
    }
    if (name) {
        view_put(&c->e, name);
        return;
    }
    if (ts) {
        view_put(&c->e, ts);
        const jt_node *ap = v->kw[SPEC_KW_ADDITIONAL_PROPERTIES];
        if (!strcmp(ts, "object") && !spec_schema_view_has_properties(v) && jt_is(ap, JT_OBJECT) &&
            lvl < TYPE_DEPTH) {
            view_put(&c->e, " (map of ");
            type_str(c, spec_schema_view_at(v, ap), lvl + 1);
            view_put(&c->e, ")");
        }
        return;
    }
    if (alt && lvl < TYPE_DEPTH) {
        view_putf(&c->e, "%s ", kind);
        for (uint32_t i = 0; i < alt->len && i < 6; i++) {
            if (i) view_put(&c->e, " | ");
            type_str(c, spec_schema_view_at(v, alt->u.items[i]), lvl + 1);
        }
        if (alt->len > 6) view_putf(&c->e, " | ... (%u options)", alt->len);
        return;
    }
    if (spec_schema_view_has_properties(v))
        view_put(&c->e, "object");
    else if (v->kw[SPEC_KW_ENUM])
        view_put(&c->e, "enum");
    else
        view_put(&c->e, "any");
}

static void type_str(render_ctx *c, spec_loc loc, unsigned lvl)
{
    if (!loc.node) {
        view_put(&c->e, "any");
        return;
    }
    spec_schema_view v;
    resolve(c, loc, &v);
    type_core(c, &v, lvl);
}

/* ", format date-time, required, enum: a|b, default: x, min: 0" */
static void attrs(render_ctx *c, const spec_schema_view *v, bool required, bool deprecated)
{
    if (!v->loc.node) {
        if (required) view_put(&c->e, ", required");
        return;
    }
    if (v->format) view_putf(&c->e, " (%s)", v->format);
    if (required) view_put(&c->e, ", required");
    if (v->nullable) view_put(&c->e, ", nullable");
    if (deprecated || v->deprecated) view_put(&c->e, ", deprecated");
    if (v->read_only) view_put(&c->e, ", read-only");
    if (v->write_only) view_put(&c->e, ", write-only");
    const jt_node *e = spec_schema_view_enum(v);
    if (jt_is(e, JT_ARRAY) && e->len) {
        view_put(&c->e, ", enum: ");
        for (uint32_t i = 0; i < e->len && i < MAX_ENUM; i++) {
            if (i) view_put(&c->e, "|");
            view_put_value(&c->e, e->u.items[i], 40);
        }
        if (e->len > MAX_ENUM) view_putf(&c->e, "|... (%u values)", e->len);
    }
    const jt_node *d = v->kw[SPEC_KW_DEFAULT];
    if (d && d->type != JT_OBJECT && d->type != JT_ARRAY) {
        view_put(&c->e, ", default: ");
        view_put_value(&c->e, d, 40);
    }
    static const struct {
        spec_schema_kw kw;
        const char *label; /* "> " and "< " take no colon */
    } nums[] = {{SPEC_KW_MINIMUM, "min"},           {SPEC_KW_MAXIMUM, "max"},
                {SPEC_KW_EXCLUSIVE_MINIMUM, "> "},  {SPEC_KW_EXCLUSIVE_MAXIMUM, "< "},
                {SPEC_KW_MIN_LENGTH, "min length"}, {SPEC_KW_MAX_LENGTH, "max length"},
                {SPEC_KW_MIN_ITEMS, "min items"},   {SPEC_KW_MAX_ITEMS, "max items"}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        const jt_node *k = v->kw[nums[i].kw];
        if (!k || (k->type != JT_INT && k->type != JT_REAL)) continue;
        view_putf(&c->e, ", %s%s", nums[i].label, nums[i].label[1] == ' ' ? "" : ": ");
        view_put_value(&c->e, k, 40);
    }
    const jt_node *pat = v->kw[SPEC_KW_PATTERN];
    if (jt_str(pat)) {
        view_put(&c->e, ", pattern: ");
        view_put_value(&c->e, pat, 60);
    }
}

static void render_props(render_ctx *c, const spec_schema_view *v, unsigned ind,
                         unsigned depth_left);

/* Below a field line: its object (or array items, or alternatives) when depth
 * allows; a cut-off or circular reference is named instead. */
static void render_nested(render_ctx *c, spec_loc loc, unsigned ind, unsigned depth_left,
                          unsigned hops)
{
    if (!loc.node || c->e.rc || over_budget(c)) return;
    spec_schema_view r;
    resolve(c, loc, &r);
    if (!r.loc.node) return;
    if (spec_schema_view_is_array(&r)) {
        const jt_node *items = r.kw[SPEC_KW_ITEMS];
        /* "array of array of X" goes straight to X; the hop count bounds it. */
        if (items && hops < TYPE_DEPTH)
            render_nested(c, spec_schema_view_at(&r, items), ind, depth_left, hops + 1);
        return;
    }
    const char *kind;
    const jt_node *alt = alternatives(&r, &kind);
    bool object = spec_schema_view_has_properties(&r);
    if (!object && !alt) return;
    if (r.index >= 0) refs_add(c, r.index);
    /* Past the depth the field line's type names the schema; nothing more. */
    if (depth_left == 0) return;
    if (spec_schema_guard_has(&c->guard, r.index)) {
        view_indent(&c->e, ind);
        view_putf(&c->e, "(circular: %s, see above)\n", schema_name(c, r.index));
        return;
    }
    /* A schema listed once is not listed again (Spotify's ImageObject, addresses). */
    long key = r.index >= 0 ? r.index * 4 + c->mode : -1;
    for (unsigned i = 0; key >= 0 && i < c->n_seen; i++)
        if (c->seen[i] == key) {
            view_indent(&c->e, ind);
            view_putf(&c->e, "(fields of %s as above)\n", schema_name(c, r.index));
            return;
        }
    if (key >= 0 && c->n_seen < sizeof c->seen / sizeof c->seen[0]) c->seen[c->n_seen++] = key;
    if (!spec_schema_guard_push(&c->guard, r.index)) return;
    if (object) render_props(c, &r, ind, depth_left - 1);
    if (alt && !object) {
        for (uint32_t i = 0; i < alt->len && i < 6 && !c->e.rc; i++) {
            spec_loc al = spec_schema_view_at(&r, alt->u.items[i]);
            view_indent(&c->e, ind);
            view_putf(&c->e, "- %s option %u: ", kind, i + 1);
            type_str(c, al, 0);
            view_put(&c->e, "\n");
            render_nested(c, al, ind + 2, depth_left - 1, hops);
        }
    }
    spec_schema_guard_pop(&c->guard);
}

static void field_line_end(render_ctx *c, const spec_schema_view *v, const char *desc, size_t max)
{
    const char *name = schema_name(c, v->index);
    bool see = name && c->opt->has_chunk && c->opt->has_chunk[v->index];
    if (desc && *desc) {
        view_put(&c->e, ": ");
        put_text(c, desc, max);
    }
    if (see) view_putf(&c->e, " [schema %s:%s]", c->api->id, name);
    view_put(&c->e, "\n");
}

static void render_props(render_ctx *c, const spec_schema_view *v, unsigned ind,
                         unsigned depth_left)
{
    const jt_node *props = v->kw[SPEC_KW_PROPERTIES];
    if (!jt_is(props, JT_OBJECT)) return;
    for (uint32_t i = 0; i < props->len && !c->e.rc; i++) {
        if (over_budget(c)) return;
        if (i == MAX_PROPS) {
            view_indent(&c->e, ind);
            view_putf(&c->e, "- ... (%u more properties)\n", props->len - MAX_PROPS);
            return;
        }
        const jt_member *m = &props->u.members[i];
        spec_loc ploc = spec_schema_view_at(v, m->value);
        spec_schema_view pr;
        resolve(c, ploc, &pr);
        bool ro = pr.written_read_only || pr.read_only;
        bool wo = pr.written_write_only || pr.write_only;
        if ((c->mode == MODE_REQUEST && ro) || (c->mode == MODE_RESPONSE && wo) ||
            (c->readonly_top && c->guard.n == 1 && !ro))
            continue;
        view_indent(&c->e, ind);
        view_put(&c->e, "- ");
        view_putn(&c->e, m->key, m->key_len);
        view_put(&c->e, ": ");
        type_core(c, &pr, 0);
        attrs(c, &pr, spec_schema_view_requires(v, m->key, m->key_len), false);
        /* A description next to a $ref (3.1) wins over the target's. */
        const char *desc = pr.written_description;
        if (!desc) desc = pr.description;
        /* Nested fields get shorter descriptions: names matter more there. */
        field_line_end(c, &pr, desc, c->guard.n > 1 ? DESC_NESTED : DESC_FIELD);
        if (pr.index >= 0) refs_add(c, pr.index);
        render_nested(c, ploc, ind + 2, depth_left, 0);
    }
    const jt_node *ap = v->kw[SPEC_KW_ADDITIONAL_PROPERTIES];
    if (jt_is(ap, JT_OBJECT) && spec_schema_view_has_properties(v)) {
        view_indent(&c->e, ind);
        view_put(&c->e, "- (other keys): ");
        type_str(c, spec_schema_view_at(v, ap), 0);
        view_put(&c->e, "\n");
    }
}

/* A top-level schema (body, response, schema chunk): its fields at ind. */
static void render_schema_fields(render_ctx *c, spec_loc loc, unsigned ind)
{
    render_nested(c, loc, ind, c->depth, 0);
}

static void ctx_init(render_ctx *c, const spec_api *api, const view_render_options *opt,
                     const view_render_options *dflt, core_buf *out, view_refs *refs)
{
    memset(c, 0, sizeof *c);
    c->api = api;
    c->opt = opt ? opt : dflt;
    c->depth = c->opt->depth ? c->opt->depth : 2;
    if (c->depth > VIEW_MAX_DEPTH) c->depth = VIEW_MAX_DEPTH;
    c->e.out = out;
    c->start = out->len;
    c->refs = refs;
    spec_schema_guard_init(&c->guard, VIEW_MAX_DEPTH + 4);
    c->arena = core_arena_new(0);
    if (!c->arena) c->e.rc = APIDEX_ENOMEM;
}

/* ---------------------------------------------------------------- operations */

static void render_scheme(render_ctx *c, const char *name, size_t name_len, const jt_node *scopes)
{
    view_putn(&c->e, name, name_len);
    spec_security_scheme sc;
    spec_security_scheme_find(c->api, name, name_len, &sc);
    const char *type = sc.type;
    bool scoped = jt_is(scopes, JT_ARRAY) && scopes->len;
    if (!type && !scoped) return;
    view_put(&c->e, " (");
    if (type) view_put(&c->e, type);
    if (type && !strcmp(type, "apiKey")) {
        if (sc.in && sc.param) view_putf(&c->e, " in %s \"%s\"", sc.in, sc.param);
    } else if (type && !strcmp(type, "http")) {
        if (sc.scheme) view_putf(&c->e, " %s", sc.scheme);
    }
    if (scoped) {
        view_put(&c->e, type ? ", scopes: " : "scopes: ");
        for (uint32_t i = 0; i < scopes->len && i < 10; i++) {
            if (i) view_put(&c->e, " ");
            view_put_value(&c->e, scopes->u.items[i], 80);
        }
        if (scopes->len > 10) view_putf(&c->e, " ... (%u scopes)", scopes->len);
    }
    view_put(&c->e, ")");
}

/* A part of the operation a structural filter leaves out of the rendering. */
static void hidden(render_ctx *c, unsigned bit)
{
    if (c->opt->report) c->opt->report->count[prep_filter_index(bit)]++;
}

static void render_auth(render_ctx *c, const spec_operation *op)
{
    const jt_node *sec = op->security.node;
    if (!jt_is(sec, JT_ARRAY)) return;
    view_put(&c->e, "Auth: ");
    if (!sec->len) view_put(&c->e, "none");
    for (uint32_t i = 0; i < sec->len && i < 8; i++) {
        const jt_node *req = sec->u.items[i];
        if (i) view_put(&c->e, " or ");
        if (!jt_is(req, JT_OBJECT) || !req->len) {
            view_put(&c->e, "none");
            continue;
        }
        for (uint32_t j = 0; j < req->len; j++) {
            if (j) view_put(&c->e, " + ");
            render_scheme(c, req->u.members[j].key, req->u.members[j].key_len,
                          req->u.members[j].value);
        }
    }
    view_put(&c->e, "\n");
}

static void render_params(render_ctx *c, const spec_operation *op)
{
    if (!op->n_params) return;
    view_put(&c->e, "Parameters:\n");
    for (size_t i = 0; i < op->n_params && !c->e.rc; i++) {
        const spec_param *p = &op->params[i];
        if (over_budget(c)) return;
        spec_schema_view r;
        resolve(c, p->schema, &r);
        view_putf(&c->e, "  - %s (%s, ", p->name ? p->name : "?", p->in ? p->in : "?");
        type_core(c, &r, 0);
        attrs(c, &r, p->required, p->deprecated);
        if (!(c->opt->prep.filters & PREP_EXAMPLES)) {
            /* the parameter object's example, else its schema's */
            const jt_node *ex = spec_param_serialization(p).example;
            if (!ex) ex = r.kw[SPEC_KW_EXAMPLE];
            if (ex && ex->type != JT_OBJECT && ex->type != JT_ARRAY) {
                view_put(&c->e, ", example: ");
                view_put_value(&c->e, ex, 60);
            }
        }
        view_put(&c->e, ")");
        const char *desc = p->description ? p->description : r.description;
        field_line_end(c, &r, desc, DESC_FIELD);
        if (r.index >= 0) refs_add(c, r.index);
        render_nested(c, p->schema, 4, c->depth - 1, 0);
    }
}

static void render_body(render_ctx *c, const spec_operation *op)
{
    const spec_body *b = op->body;
    if (!b) return;
    if (c->opt->prep.filters & PREP_REQUEST_BODY) {
        hidden(c, PREP_REQUEST_BODY);
        return;
    }
    const spec_media *m = spec_pick_media(b->media, b->n_media);
    view_put(&c->e, "Request body (");
    view_put(&c->e, m && m->type ? m->type : "unspecified");
    if (b->n_media > 1) view_putf(&c->e, " or %zu other types", b->n_media - 1);
    if (b->required) view_put(&c->e, ", required");
    view_put(&c->e, ")");
    if (m && m->schema.node) {
        view_put(&c->e, ": ");
        spec_schema_view r;
        resolve(c, m->schema, &r);
        type_core(c, &r, 0);
        if (r.index >= 0) refs_add(c, r.index);
    }
    if (b->description && *b->description) {
        view_put(&c->e, ". ");
        put_text(c, b->description, DESC_RESPONSE);
    }
    view_put(&c->e, "\n");
    c->mode = MODE_REQUEST;
    if (m && m->schema.node) render_schema_fields(c, m->schema, 2);
    c->mode = MODE_ALL;
}

static void render_headers(render_ctx *c, const spec_response *r)
{
    const jt_node *h = r->headers.node;
    if (!jt_is(h, JT_OBJECT) || !h->len) return;
    if (c->opt->prep.filters & PREP_HEADERS) {
        hidden(c, PREP_HEADERS);
        return;
    }
    view_put(&c->e, "    headers: ");
    for (uint32_t i = 0; i < h->len && i < 12; i++) {
        if (i) view_put(&c->e, ", ");
        view_putn(&c->e, h->u.members[i].key, h->u.members[i].key_len);
    }
    if (h->len > 12) view_putf(&c->e, ", ... (%u headers)", h->len);
    view_put(&c->e, "\n");
}

static void render_responses(render_ctx *c, const spec_operation *op)
{
    if (!op->n_responses) return;
    const spec_response *ok = spec_success_response(op);
    view_put(&c->e, "Responses:\n");
    for (size_t i = 0; i < op->n_responses && !c->e.rc; i++) {
        const spec_response *r = &op->responses[i];
        const char *st = r->status ? r->status : "?";
        if ((c->opt->prep.filters & PREP_ERRORS) && (st[0] == '4' || st[0] == '5') &&
            strlen(st) == 3) {
            hidden(c, PREP_ERRORS);
            continue;
        }
        if (over_budget(c)) return;
        const spec_media *m = spec_pick_media(r->media, r->n_media);
        view_putf(&c->e, "  %s", st);
        spec_schema_view rr;
        spec_schema_view_node(NULL, &rr);
        if (m && m->schema.node) resolve(c, m->schema, &rr);
        /* Other responses name their schema only when it has a name ("Error"). */
        if (rr.loc.node && (r == ok || rr.index >= 0)) {
            view_put(&c->e, " (");
            if (m->type && !spec_media_type_is_json(m->type)) view_putf(&c->e, "%s, ", m->type);
            type_core(c, &rr, 0);
            if (r == ok && rr.index >= 0) refs_add(c, rr.index);
            view_put(&c->e, ")");
        }
        if (r->description && *r->description) {
            view_put(&c->e, ": ");
            put_text(c, r->description, DESC_RESPONSE);
        }
        view_put(&c->e, "\n");
        if (r == ok) {
            render_headers(c, r);
            /* The same schema as the request body: only what the body did not list. */
            long body = -1;
            if (op->body && !(c->opt->prep.filters & PREP_REQUEST_BODY)) {
                const spec_media *bm = spec_pick_media(op->body->media, op->body->n_media);
                if (bm && bm->schema.node) body = spec_schema_index(c->api, bm->schema);
            }
            c->mode = MODE_RESPONSE;
            if (rr.index >= 0 && rr.index == body) {
                view_put(&c->e, "    - (the request body's fields, and the read-only ones:)\n");
                c->readonly_top = true;
            }
            if (m && m->schema.node) render_schema_fields(c, m->schema, 4);
            c->readonly_top = false;
            c->mode = MODE_ALL;
        }
    }
}

static const view_render_options default_render;

int view_render_operation(const spec_api *api, const spec_operation *op,
                          const view_render_options *opt, core_buf *out, view_refs *refs)
{
    render_ctx c;
    ctx_init(&c, api, opt, &default_render, out, refs);
    view_putf(&c.e, "%s %s", op->method, op->path);
    if (op->summary && *op->summary) {
        view_put(&c.e, " - ");
        put_text(&c, op->summary, DESC_FIELD);
    }
    view_put(&c.e, "\n");
    view_putf(&c.e, "API: %s", api->id);
    if (api->title) {
        view_put(&c.e, " (");
        put_text(&c, api->title, 120);
        if (api->version) view_putf(&c.e, " %s", api->version);
        view_put(&c.e, ")");
    }
    if (api->n_servers && api->servers[0].url) view_putf(&c.e, "; server: %s", api->servers[0].url);
    view_put(&c.e, "\n");
    bool line = false;
    if (op->operation_id) {
        view_putf(&c.e, "operationId: %s", op->operation_id);
        line = true;
    }
    if (op->n_tags) {
        view_put(&c.e, line ? "; tags: " : "tags: ");
        for (size_t i = 0; i < op->n_tags; i++) view_putf(&c.e, "%s%s", i ? ", " : "", op->tags[i]);
        line = true;
    }
    if (op->deprecated) {
        view_put(&c.e, line ? "; deprecated" : "deprecated");
        line = true;
    }
    if (line) view_put(&c.e, "\n");
    if (op->description && *op->description) {
        size_t before = out->len;
        put_text(&c, op->description, DESC_OP);
        if (out->len > before) view_put(&c.e, "\n");
    }
    render_auth(&c, op);
    render_params(&c, op);
    render_body(&c, op);
    render_responses(&c, op);
    core_arena_free(c.arena);
    return c.e.rc;
}

int view_render_schema(const spec_api *api, size_t index, const view_render_options *opt,
                       core_buf *out, view_refs *refs)
{
    if (index >= api->n_schemas) return APIDEX_EINVAL;
    const spec_schema *s = &api->schemas[index];
    render_ctx c;
    ctx_init(&c, api, opt, &default_render, out, refs);
    spec_schema_view r;
    resolve(&c, s->node, &r);
    view_putf(&c.e, "Schema %s (API %s): ", s->name, api->id);
    /* The schema's own kind, not its name: "object", "array of Pet", ... */
    spec_schema_view bare = r;
    bare.index = -1;
    type_core(&c, &bare, 0);
    attrs(&c, &r, false, false);
    view_put(&c.e, "\n");
    const char *desc = r.description;
    if (desc && *desc) {
        put_text(&c, desc, DESC_OP);
        view_put(&c.e, "\n");
    }
    /* Expand its own fields one level deeper than an inlined use would. */
    spec_schema_guard_push(&c.guard, (long)index);
    if (spec_schema_view_has_properties(&r)) {
        render_props(&c, &r, 2, c.depth - 1);
    } else if (spec_schema_view_is_array(&r)) {
        render_nested(&c, spec_schema_view_at(&r, r.kw[SPEC_KW_ITEMS]), 2, c.depth - 1, 0);
    } else {
        const char *kind;
        const jt_node *alt = alternatives(&r, &kind);
        for (uint32_t i = 0; alt && i < alt->len && i < 6 && !c.e.rc; i++) {
            spec_loc al = spec_schema_view_at(&r, alt->u.items[i]);
            view_putf(&c.e, "  - %s option %u: ", kind, i + 1);
            type_str(&c, al, 0);
            view_put(&c.e, "\n");
            render_nested(&c, al, 4, c.depth - 1, 0);
        }
    }
    core_arena_free(c.arena);
    return c.e.rc;
}
