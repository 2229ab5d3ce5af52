/*
 * The typed schema view: a schema with its $ref followed, its allOf merged and each
 * JSON Schema keyword looked up once, plus the cycle/depth guard and the bounded walk
 * that every consumer of schemas needs. Consumers (chunk rendering, details) read
 * keywords through spec_schema_kw and never spell them.
 */
#include "oas/oas_int.h"

#include <string.h>

/* Each keyword with its length, so that read_keywords matches a member in one compare. */
typedef struct kw_spelling {
    const char *name;
    size_t len;
} kw_spelling;
#define KW(s)                                                                                      \
    {                                                                                              \
        s, sizeof s - 1                                                                            \
    }

static const kw_spelling kw_table[SPEC_KW_COUNT] = {
    [SPEC_KW_TYPE] = KW("type"),
    [SPEC_KW_FORMAT] = KW("format"),
    [SPEC_KW_TITLE] = KW("title"),
    [SPEC_KW_DESCRIPTION] = KW("description"),
    [SPEC_KW_ENUM] = KW("enum"),
    [SPEC_KW_CONST] = KW("const"),
    [SPEC_KW_DEFAULT] = KW("default"),
    [SPEC_KW_EXAMPLE] = KW("example"),
    [SPEC_KW_EXAMPLES] = KW("examples"),
    [SPEC_KW_NULLABLE] = KW("nullable"),
    [SPEC_KW_MINIMUM] = KW("minimum"),
    [SPEC_KW_MAXIMUM] = KW("maximum"),
    [SPEC_KW_EXCLUSIVE_MINIMUM] = KW("exclusiveMinimum"),
    [SPEC_KW_EXCLUSIVE_MAXIMUM] = KW("exclusiveMaximum"),
    [SPEC_KW_MIN_LENGTH] = KW("minLength"),
    [SPEC_KW_MAX_LENGTH] = KW("maxLength"),
    [SPEC_KW_PATTERN] = KW("pattern"),
    [SPEC_KW_MIN_ITEMS] = KW("minItems"),
    [SPEC_KW_MAX_ITEMS] = KW("maxItems"),
    [SPEC_KW_UNIQUE_ITEMS] = KW("uniqueItems"),
    [SPEC_KW_READ_ONLY] = KW("readOnly"),
    [SPEC_KW_WRITE_ONLY] = KW("writeOnly"),
    [SPEC_KW_DEPRECATED] = KW("deprecated"),
    [SPEC_KW_MULTIPLE_OF] = KW("multipleOf"),
    [SPEC_KW_REQUIRED] = KW("required"),
    [SPEC_KW_PROPERTIES] = KW("properties"),
    [SPEC_KW_ADDITIONAL_PROPERTIES] = KW("additionalProperties"),
    [SPEC_KW_ITEMS] = KW("items"),
    [SPEC_KW_ONE_OF] = KW("oneOf"),
    [SPEC_KW_ANY_OF] = KW("anyOf"),
    [SPEC_KW_ALL_OF] = KW("allOf"),
    [SPEC_KW_DISCRIMINATOR] = KW("discriminator"),
    [SPEC_KW_REF] = KW("$ref"),
};
#undef KW

const char *spec_schema_kw_name(spec_schema_kw k)
{
    return (unsigned)k < SPEC_KW_COUNT ? kw_table[k].name : NULL;
}

static bool is_true(const jt_node *n)
{
    return n && n->type == JT_BOOL && n->boolean;
}

/* Fills the keywords of v->loc.node (an object; anything else has none). */
static void read_keywords(spec_schema_view *v)
{
    const jt_node *n = v->loc.node;
    memset(v->kw, 0, sizeof v->kw);
    v->type = v->format = v->title = v->description = NULL;
    v->nullable = v->read_only = v->write_only = v->deprecated = false;
    if (!jt_is(n, JT_OBJECT)) return;
    /* one pass over the members, the first of a duplicated key winning as in jt_get: a
       schema has a few members, so this is cheaper than a look-up per keyword */
    for (uint32_t i = 0; i < n->len; i++) {
        const jt_member *m = &n->u.members[i];
        for (int k = 0; k < SPEC_KW_COUNT; k++)
            if (m->key_len == kw_table[k].len && m->key[0] == kw_table[k].name[0] &&
                !memcmp(m->key, kw_table[k].name, m->key_len)) {
                if (!v->kw[k]) v->kw[k] = m->value;
                break;
            }
    }
    v->type = jt_str(v->kw[SPEC_KW_TYPE]);
    v->format = jt_str(v->kw[SPEC_KW_FORMAT]);
    v->title = jt_str(v->kw[SPEC_KW_TITLE]);
    v->description = jt_str(v->kw[SPEC_KW_DESCRIPTION]);
    v->nullable = is_true(v->kw[SPEC_KW_NULLABLE]);
    v->read_only = is_true(v->kw[SPEC_KW_READ_ONLY]);
    v->write_only = is_true(v->kw[SPEC_KW_WRITE_ONLY]);
    v->deprecated = is_true(v->kw[SPEC_KW_DEPRECATED]);
}

static void read_written(spec_schema_view *v)
{
    const jt_node *w = v->written.node;
    v->ref = jt_get_str(w, kw_table[SPEC_KW_REF].name);
    v->written_description = jt_get_str(w, kw_table[SPEC_KW_DESCRIPTION].name);
    v->written_read_only = is_true(jt_get(w, kw_table[SPEC_KW_READ_ONLY].name));
    v->written_write_only = is_true(jt_get(w, kw_table[SPEC_KW_WRITE_ONLY].name));
}

void spec_schema_view_node(const jt_node *n, spec_schema_view *out)
{
    memset(out, 0, sizeof *out);
    out->written = out->loc = (spec_loc){n, NULL};
    out->index = -1;
    read_written(out);
    read_keywords(out);
}

int spec_schema_view_open(const spec_api *api, spec_loc loc, core_arena *arena,
                          spec_schema_view *out)
{
    memset(out, 0, sizeof *out);
    out->written = out->loc = loc;
    out->index = -1;
    if (!loc.node) return 0;
    read_written(out);
    if (!api) {
        read_keywords(out);
        return 0;
    }
    out->index = spec_schema_index(api, loc);
    spec_loc d;
    if (spec_deref(api, loc, &d) != 0 || !d.node) {
        out->unresolved = true;
        out->loc.node = NULL;
        return APIDEX_EREF;
    }
    out->loc = d;
    const jt_node *all = jt_get(d.node, kw_table[SPEC_KW_ALL_OF].name);
    if (jt_is(all, JT_ARRAY) && arena) {
        out->all_of = all;
        spec_loc m;
        if (spec_schema_merge_allof(api, d, arena, &m) == 0 && m.node) out->loc = m;
    }
    read_keywords(out);
    return 0;
}

bool spec_schema_view_requires(const spec_schema_view *v, const char *name, size_t len)
{
    const jt_node *req = v->kw[SPEC_KW_REQUIRED];
    for (uint32_t i = 0; jt_is(req, JT_ARRAY) && i < req->len; i++) {
        const jt_node *r = req->u.items[i];
        if (r && r->type == JT_STRING && r->len == len && !memcmp(r->u.s, name, len)) return true;
    }
    return false;
}

bool spec_schema_view_has_properties(const spec_schema_view *v)
{
    const jt_node *p = v->kw[SPEC_KW_PROPERTIES];
    return jt_is(p, JT_OBJECT) && p->len > 0;
}

bool spec_schema_view_is_array(const spec_schema_view *v)
{
    return v->type && !strcmp(v->type, "array");
}

const jt_node *spec_schema_view_alternatives(const spec_schema_view *v, bool *any)
{
    const jt_node *a = v->kw[SPEC_KW_ONE_OF];
    *any = false;
    if (!jt_is(a, JT_ARRAY) || !a->len) {
        a = v->kw[SPEC_KW_ANY_OF];
        *any = true;
    }
    return jt_is(a, JT_ARRAY) && a->len ? a : NULL;
}

const jt_node *spec_schema_view_enum(const spec_schema_view *v)
{
    const jt_node *e = v->kw[SPEC_KW_ENUM];
    if (!e) {
        const jt_node *items = v->kw[SPEC_KW_ITEMS];
        e = jt_is(items, JT_OBJECT) ? jt_get(items, kw_table[SPEC_KW_ENUM].name) : NULL;
    }
    return e;
}

spec_loc spec_schema_view_at(const spec_schema_view *v, const jt_node *n)
{
    return (spec_loc){n, v->loc.doc};
}

/* ---------------------------------------------------------------- the guard */

void spec_schema_guard_init(spec_schema_guard *g, unsigned cap)
{
    g->n = 0;
    g->cap = cap && cap <= SPEC_SCHEMA_GUARD_MAX ? cap : SPEC_SCHEMA_GUARD_MAX;
}

bool spec_schema_guard_has(const spec_schema_guard *g, long idx)
{
    for (unsigned i = 0; idx >= 0 && i < g->n; i++)
        if (g->stack[i] == idx) return true;
    return false;
}

bool spec_schema_guard_push(spec_schema_guard *g, long idx)
{
    if (g->n >= g->cap) return false;
    g->stack[g->n++] = idx;
    return true;
}

void spec_schema_guard_pop(spec_schema_guard *g)
{
    if (g->n) g->n--;
}

/* ---------------------------------------------------------------- the walk */

typedef struct walk_ctx {
    const spec_api *api;
    core_arena *arena;
    unsigned max_depth;
    spec_schema_visit_fn fn;
    void *ctx;
    spec_schema_guard guard;
    size_t visits;
} walk_ctx;

static int walk(walk_ctx *w, spec_loc loc, spec_schema_kw via, const char *name, unsigned depth);

static int walk_list(walk_ctx *w, const spec_schema_view *v, spec_schema_kw k, unsigned depth)
{
    const jt_node *a = v->kw[k];
    int rc = 0;
    for (uint32_t i = 0; jt_is(a, JT_ARRAY) && i < a->len && !rc; i++)
        rc = walk(w, spec_schema_view_at(v, a->u.items[i]), k, NULL, depth + 1);
    return rc;
}

/* Recursion depth is bounded by max_depth (< SPEC_SCHEMA_GUARD_MAX), the work by the budget. */
static int walk(walk_ctx *w, spec_loc loc, spec_schema_kw via, const char *name, unsigned depth)
{
    if (++w->visits > SPEC_SCHEMA_WALK_BUDGET) return APIDEX_ELIMIT;
    spec_schema_view v;
    if (spec_schema_view_open(w->api, loc, w->arena, &v)) {
        int rc = w->fn(&v, via, name, depth, SPEC_VISIT_UNRESOLVED, w->ctx);
        return rc < 0 ? rc : 0;
    }
    spec_schema_visit what = SPEC_VISIT_SCHEMA;
    if (spec_schema_guard_has(&w->guard, v.index))
        what = SPEC_VISIT_CIRCULAR;
    else if (depth > w->max_depth)
        what = SPEC_VISIT_TOO_DEEP;
    int rc = w->fn(&v, via, name, depth, what, w->ctx);
    if (rc < 0) return rc;
    if (rc > 0 || what != SPEC_VISIT_SCHEMA || !spec_schema_guard_push(&w->guard, v.index))
        return 0;
    const jt_node *props = v.kw[SPEC_KW_PROPERTIES];
    rc = 0;
    for (uint32_t i = 0; jt_is(props, JT_OBJECT) && i < props->len && !rc; i++)
        rc = walk(w, spec_schema_view_at(&v, props->u.members[i].value), SPEC_KW_PROPERTIES,
                  props->u.members[i].key, depth + 1);
    const jt_node *items = v.kw[SPEC_KW_ITEMS];
    if (!rc && jt_is(items, JT_OBJECT))
        rc = walk(w, spec_schema_view_at(&v, items), SPEC_KW_ITEMS, NULL, depth + 1);
    const jt_node *ap = v.kw[SPEC_KW_ADDITIONAL_PROPERTIES];
    if (!rc && jt_is(ap, JT_OBJECT))
        rc = walk(w, spec_schema_view_at(&v, ap), SPEC_KW_ADDITIONAL_PROPERTIES, NULL, depth + 1);
    if (!rc) rc = walk_list(w, &v, SPEC_KW_ONE_OF, depth);
    if (!rc) rc = walk_list(w, &v, SPEC_KW_ANY_OF, depth);
    /* unmerged (no arena): the allOf members are subschemas too */
    if (!rc && !w->arena) rc = walk_list(w, &v, SPEC_KW_ALL_OF, depth);
    spec_schema_guard_pop(&w->guard);
    return rc;
}

int spec_schema_walk(const spec_api *api, spec_loc root, unsigned max_depth, core_arena *arena,
                     spec_schema_visit_fn fn, void *ctx)
{
    if (!api || !fn) return APIDEX_EINVAL;
    walk_ctx w = {.api = api, .arena = arena, .fn = fn, .ctx = ctx};
    w.max_depth = max_depth < SPEC_SCHEMA_GUARD_MAX - 1 ? max_depth : SPEC_SCHEMA_GUARD_MAX - 1;
    spec_schema_guard_init(&w.guard, SPEC_SCHEMA_GUARD_MAX);
    return walk(&w, root, SPEC_KW_COUNT, NULL, 0);
}

/* ---------------------------------------------------------------- a view's own questions */

spec_loc spec_schema_view_property(const spec_schema_view *v, const char *name)
{
    return spec_schema_view_at(v, name ? jt_get(v->kw[SPEC_KW_PROPERTIES], name) : NULL);
}

const char *spec_schema_view_first_type(const spec_schema_view *v)
{
    const jt_node *t = v->kw[SPEC_KW_TYPE];
    if (jt_is(t, JT_STRING)) return jt_str(t);
    for (uint32_t i = 0; jt_is(t, JT_ARRAY) && i < t->len; i++) {
        const char *x = jt_str(t->u.items[i]);
        if (x && strcmp(x, "null")) return x;
    }
    return NULL;
}

bool spec_schema_view_allows_null(const spec_schema_view *v)
{
    if (v->nullable) return true;
    const jt_node *t = v->kw[SPEC_KW_TYPE];
    for (uint32_t i = 0; jt_is(t, JT_ARRAY) && i < t->len; i++) {
        const char *x = jt_str(t->u.items[i]);
        if (x && !strcmp(x, "null")) return true;
    }
    return false;
}

bool spec_schema_view_nullable(const spec_schema_view *v)
{
    return v->nullable || jt_get_bool(v->loc.node, "x-nullable", false);
}
