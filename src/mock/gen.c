/*
 * Values for schemas: an example when it validates, else one generated from the schema's
 * keywords. Deterministic in (schema, seed); bounded in depth and size (mock.h).
 */
#include "mock/mock.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LITERAL_DEPTH = 64 }; /* nesting of a literal copied */

typedef struct gctx {
    const spec_api *api;
    uint64_t rng;
    bool request;
    size_t nodes;
    core_arena *arena; /* allOf merges */
    const jt_node *stack[MOCK_GEN_MAX_DEPTH + 2];
    unsigned depth;
} gctx;

static uint64_t rnd(gctx *g, uint64_t n)
{
    return n ? mock_rng_next(&g->rng) % n : 0;
}

/* A literal of the spec (example, enum member, default) as a json-c value. */
static json_object *literal_json(const jt_node *n)
{
    return jt_to_json_object(n, MAX_LITERAL_DEPTH);
}

/* The example value as JSON when it validates against schema; NULL otherwise (*ok tells
   a valid JSON null from no example). */
static json_object *valid_example(gctx *g, spec_loc schema, const jt_node *ex, bool *ok)
{
    *ok = false;
    if (!ex) return NULL;
    json_object *x = literal_json(ex);
    if (schema.node) {
        const char *problem = NULL;
        core_arena *a = core_arena_new(0);
        if (!a || spec_validate_json(g->api, schema, x, g->request, a, &problem) || problem) {
            core_arena_free(a);
            json_object_put(x);
            return NULL;
        }
        core_arena_free(a);
    }
    *ok = true;
    return x;
}

static json_object *gen(gctx *g, spec_loc s, const char *hint, bool lean);

/* The type to make: the first non-null one of a 3.1 list, else the declared one, else
   guessed from the keywords present. */
static const char *type_of(const spec_schema_view *v)
{
    const char *t = spec_schema_view_first_type(v);
    if (t) return t;
    const jt_node *types = v->kw[SPEC_KW_TYPE];
    if (jt_is(types, JT_ARRAY) && types->len) return "null";
    if (v->kw[SPEC_KW_PROPERTIES] || v->kw[SPEC_KW_ADDITIONAL_PROPERTIES] ||
        v->kw[SPEC_KW_REQUIRED])
        return "object";
    if (v->kw[SPEC_KW_ITEMS]) return "array";
    if (v->kw[SPEC_KW_MINIMUM] || v->kw[SPEC_KW_MAXIMUM]) return "number";
    if (v->kw[SPEC_KW_FORMAT] || v->kw[SPEC_KW_PATTERN] || v->kw[SPEC_KW_MIN_LENGTH] ||
        v->kw[SPEC_KW_MAX_LENGTH])
        return "string";
    return NULL;
}

/* ---------------------------------------------------------------- strings */

static const char *const words[] = {"alpha", "bravo",  "delta",  "echo",   "gamma", "lima",
                                    "nova",  "orbit",  "pixel",  "quartz", "river", "sierra",
                                    "tango", "violet", "willow", "zephyr"};
enum { N_WORDS = sizeof words / sizeof words[0] };

static void fmt_date(gctx *g, char *out, size_t cap, bool time)
{
    unsigned y = 2000 + (unsigned)rnd(g, 25), m = 1 + (unsigned)rnd(g, 12),
             d = 1 + (unsigned)rnd(g, 28);
    if (time)
        snprintf(out, cap, "%04u-%02u-%02uT%02u:%02u:%02uZ", y, m, d, (unsigned)rnd(g, 24),
                 (unsigned)rnd(g, 60), (unsigned)rnd(g, 60));
    else
        snprintf(out, cap, "%04u-%02u-%02u", y, m, d);
}

/* A value for a string format; false when the format is not one we know. */
static bool format_string(gctx *g, const char *fmt, const char *word, char *out, size_t cap)
{
    if (!strcmp(fmt, "date")) {
        fmt_date(g, out, cap, false);
    } else if (!strcmp(fmt, "date-time")) {
        fmt_date(g, out, cap, true);
    } else if (!strcmp(fmt, "time")) {
        snprintf(out, cap, "%02u:%02u:%02uZ", (unsigned)rnd(g, 24), (unsigned)rnd(g, 60),
                 (unsigned)rnd(g, 60));
    } else if (!strcmp(fmt, "uuid")) {
        uint64_t a = mock_rng_next(&g->rng), b = mock_rng_next(&g->rng);
        snprintf(out, cap, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32),
                 (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
                 0x8000 | ((unsigned)(b >> 48) & 0x3fff),
                 (unsigned long long)(b & 0xffffffffffffull));
    } else if (!strcmp(fmt, "email") || !strcmp(fmt, "idn-email")) {
        snprintf(out, cap, "%s%u@example.com", word, (unsigned)rnd(g, 1000));
    } else if (!strcmp(fmt, "uri") || !strcmp(fmt, "url") || !strcmp(fmt, "iri") ||
               !strcmp(fmt, "uri-reference")) {
        snprintf(out, cap, "https://example.com/%s/%u", word, (unsigned)rnd(g, 1000));
    } else if (!strcmp(fmt, "hostname") || !strcmp(fmt, "idn-hostname")) {
        snprintf(out, cap, "%s.example.com", word);
    } else if (!strcmp(fmt, "ipv4")) {
        snprintf(out, cap, "192.0.2.%u", 1 + (unsigned)rnd(g, 254));
    } else if (!strcmp(fmt, "ipv6")) {
        snprintf(out, cap, "2001:db8::%x", 1 + (unsigned)rnd(g, 0xfffe));
    } else if (!strcmp(fmt, "byte")) {
        snprintf(out, cap, "bW9jayBkYXRh"); /* base64 of "mock data" */
    } else if (!strcmp(fmt, "password")) {
        snprintf(out, cap, "secret-%u", (unsigned)rnd(g, 10000));
    } else {
        return false;
    }
    return true;
}

/* The word a string is made of: the property name when it is a plain one. */
static const char *hint_word(gctx *g, const char *hint)
{
    if (hint && *hint && strlen(hint) < 40) {
        for (const char *p = hint; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_'))
                return words[rnd(g, N_WORDS)];
        return hint;
    }
    return words[rnd(g, N_WORDS)];
}

static json_object *gen_string(gctx *g, const spec_schema_view *v, const char *hint)
{
    char buf[256];
    const char *word = hint_word(g, hint);
    const char *fmt = v->format;
    const char *pat = jt_str(v->kw[SPEC_KW_PATTERN]);
    double mn = spec_keyword_or(v->kw[SPEC_KW_MIN_LENGTH], 0),
           mx = spec_keyword_or(v->kw[SPEC_KW_MAX_LENGTH], -1);
    if (pat) {
        uint64_t r = g->rng;
        char *p = mock_pattern_string(pat, &r);
        g->rng = r;
        if (p) {
            size_t n = strlen(p);
            if ((double)n >= mn && (mx < 0 || (double)n <= mx)) {
                json_object *x = json_object_new_string(p);
                free(p);
                return x;
            }
            free(p);
        }
    }
    if (!(fmt && format_string(g, fmt, word, buf, sizeof buf)))
        snprintf(buf, sizeof buf, "%s %u", word, (unsigned)rnd(g, 1000));
    size_t n = strlen(buf);
    size_t want_min = mn > MOCK_GEN_MAX_STRING ? MOCK_GEN_MAX_STRING : (size_t)(mn > 0 ? mn : 0);
    if (mx >= 0 && (double)n > mx) n = (size_t)mx; /* ASCII only: bytes are characters */
    if (n >= want_min) return json_object_new_string_len(buf, (int)n);
    char *long_buf = malloc(want_min + 1);
    if (!long_buf) return json_object_new_string_len(buf, (int)n);
    memcpy(long_buf, buf, n);
    for (size_t i = n; i < want_min; i++) long_buf[i] = 'x';
    long_buf[want_min] = '\0';
    json_object *x = json_object_new_string_len(long_buf, (int)want_min);
    free(long_buf);
    return x;
}

/* ---------------------------------------------------------------- numbers */

/* The bounds of a number schema: [lo, hi] with exclusive forms applied for integers by
   the caller. */
static void bounds(const spec_schema_view *s, bool integer, double *lo, double *hi)
{
    const jt_node *mn = s->kw[SPEC_KW_MINIMUM], *mx = s->kw[SPEC_KW_MAXIMUM];
    const jt_node *emn = s->kw[SPEC_KW_EXCLUSIVE_MINIMUM], *emx = s->kw[SPEC_KW_EXCLUSIVE_MAXIMUM];
    double step = integer ? 1 : 0.01;
    bool has_lo = false, has_hi = false;
    if (!isnan(spec_keyword_num(mn))) {
        *lo = spec_keyword_num(mn);
        has_lo = true;
        if (jt_is(emn, JT_BOOL) && emn->boolean) *lo += step;
    }
    if (!isnan(spec_keyword_num(mx))) {
        *hi = spec_keyword_num(mx);
        has_hi = true;
        if (jt_is(emx, JT_BOOL) && emx->boolean) *hi -= step;
    }
    if (!isnan(spec_keyword_num(emn))) { /* 3.1: a number */
        double v = spec_keyword_num(emn) + step;
        if (!has_lo || v > *lo) *lo = v;
        has_lo = true;
    }
    if (!isnan(spec_keyword_num(emx))) {
        double v = spec_keyword_num(emx) - step;
        if (!has_hi || v < *hi) *hi = v;
        has_hi = true;
    }
    const char *fmt = s->format;
    if (!has_lo && !has_hi) {
        *lo = 1;
        *hi = 1000;
    } else if (!has_hi) {
        *hi = *lo + 1000;
    } else if (!has_lo) {
        *lo = *hi >= 1 ? 1 : *hi - 1000;
    }
    if (integer) {
        double cap = fmt && !strcmp(fmt, "int32") ? 2147483647.0 : 9007199254740991.0;
        if (*hi > cap) *hi = cap;
        if (*lo < -cap - 1) *lo = -cap - 1;
        *lo = ceil(*lo);
        *hi = floor(*hi);
    }
}

static json_object *gen_number(gctx *g, const spec_schema_view *s, bool integer, const char *hint)
{
    double lo = 1, hi = 1000;
    bounds(s, integer, &lo, &hi);
    if (hi < lo) hi = lo;
    double m = spec_keyword_or(s->kw[SPEC_KW_MULTIPLE_OF], 0);
    double v;
    if (m > 0) {
        double k = ceil(lo / m) + (double)rnd(g, 5);
        v = k * m;
        if (v > hi) v = ceil(lo / m) * m;
    } else if (integer) {
        double span = hi - lo + 1;
        if (span > 1e6) span = 1e6;
        (void)hint;
        v = lo + (double)rnd(g, (uint64_t)span);
    } else {
        double frac = (double)rnd(g, 10000) / 10000.0;
        double span = hi - lo;
        if (span > 1e6) span = 1e6;
        v = round((lo + span * frac) * 100) / 100;
        if (v < lo) v = lo;
        if (v > hi) v = hi;
    }
    if (integer) return json_object_new_int64((int64_t)v);
    return json_object_new_double(v);
}

/* ---------------------------------------------------------------- structures */

static bool skip_property(gctx *g, spec_loc p)
{
    spec_schema_view v;
    if (spec_schema_view_open(g->api, p, NULL, &v) || !jt_is(v.loc.node, JT_OBJECT)) return false;
    return g->request ? v.read_only : v.write_only;
}

static json_object *gen_object(gctx *g, const spec_schema_view *v, bool lean)
{
    json_object *o = json_object_new_object();
    if (!o) return NULL;
    const jt_node *props = v->kw[SPEC_KW_PROPERTIES];
    const jt_node *req = v->kw[SPEC_KW_REQUIRED];
    for (uint32_t i = 0; jt_is(props, JT_OBJECT) && i < props->len; i++) {
        const jt_member *mb = &props->u.members[i];
        bool required = spec_schema_view_requires(v, mb->key, mb->key_len);
        if (lean && !required) continue;
        spec_loc p = spec_schema_view_at(v, mb->value);
        if (!required && skip_property(g, p)) continue;
        json_object_object_add(o, mb->key, gen(g, p, mb->key, lean));
    }
    for (uint32_t i = 0; jt_is(req, JT_ARRAY) && i < req->len; i++) {
        const char *r = jt_str(req->u.items[i]);
        if (r && !json_object_object_get_ex(o, r, NULL))
            json_object_object_add(o, r, json_object_new_string(r));
    }
    const jt_node *addl = v->kw[SPEC_KW_ADDITIONAL_PROPERTIES];
    if (!lean && jt_is(addl, JT_OBJECT) && !spec_schema_view_has_properties(v))
        json_object_object_add(o, "key1", gen(g, spec_schema_view_at(v, addl), "value", lean));
    return o;
}

static json_object *gen_array(gctx *g, const spec_schema_view *v, bool lean, const char *hint)
{
    json_object *a = json_object_new_array();
    if (!a) return NULL;
    double mn = spec_keyword_or(v->kw[SPEC_KW_MIN_ITEMS], 0),
           mx = spec_keyword_or(v->kw[SPEC_KW_MAX_ITEMS], -1);
    size_t n = lean ? 0 : MOCK_GEN_DEFAULT_ITEMS;
    if ((double)n < mn) n = mn > 1000 ? 1000 : (size_t)mn;
    if (mx >= 0 && (double)n > mx) n = (size_t)mx;
    const jt_node *items = v->kw[SPEC_KW_ITEMS];
    if (!jt_is(items, JT_OBJECT)) {
        for (size_t i = 0; i < n; i++) json_object_array_add(a, json_object_new_string("item"));
        return a;
    }
    spec_loc is = spec_schema_view_at(v, items);
    const jt_node *uq = v->kw[SPEC_KW_UNIQUE_ITEMS];
    bool unique = jt_is(uq, JT_BOOL) && uq->boolean;
    spec_schema_view iv;
    if (unique && !spec_schema_view_open(g->api, is, NULL, &iv)) {
        const jt_node *en = iv.kw[SPEC_KW_ENUM];
        if (jt_is(en, JT_ARRAY) && n > en->len) n = en->len;
        if (jt_is(en, JT_ARRAY)) { /* distinct members, in order */
            for (size_t i = 0; i < n; i++) json_object_array_add(a, literal_json(en->u.items[i]));
            return a;
        }
    }
    for (size_t i = 0; i < n; i++) {
        json_object *x = gen(g, is, hint, lean);
        if (unique && i) { /* equal scalars happen with small ranges: try a few times */
            for (int t = 0; t < 8; t++) {
                bool dup = false;
                for (size_t j = 0; j < i && !dup; j++)
                    dup = json_object_equal(x, json_object_array_get_idx(a, j));
                if (!dup) break;
                json_object_put(x);
                x = gen(g, is, hint, lean);
            }
        }
        json_object_array_add(a, x);
    }
    return a;
}

/* Picks one of oneOf/anyOf's alternatives, not a null-only one when there is another. */
static spec_loc pick_alternative(gctx *g, const spec_schema_view *v, const jt_node *list, bool lean)
{
    uint32_t n = list->len, start = (uint32_t)rnd(g, n);
    spec_schema_view av;
    for (uint32_t k = 0; lean && k < n; k++) { /* lean: a scalar one keeps it small */
        spec_loc alt = spec_schema_view_at(v, list->u.items[k]);
        if (spec_schema_view_open(g->api, alt, NULL, &av)) continue;
        const char *t = av.type;
        if (t && strcmp(t, "null") && strcmp(t, "object") && strcmp(t, "array")) return alt;
    }
    for (uint32_t k = 0; k < n; k++) {
        spec_loc alt = spec_schema_view_at(v, list->u.items[(start + k) % n]);
        if (spec_schema_view_open(g->api, alt, NULL, &av) || !jt_is(av.loc.node, JT_OBJECT))
            continue;
        if (av.type && !strcmp(av.type, "null")) continue;
        return alt;
    }
    return spec_schema_view_at(v, list->u.items[start]);
}

static unsigned on_stack(const gctx *g, const jt_node *n)
{
    unsigned c = 0;
    for (unsigned i = 0; i < g->depth; i++) c += g->stack[i] == n;
    return c;
}

/* v: the schema with its $ref followed, allOf not merged yet (examples are its own). */
static json_object *gen_inner(gctx *g, const spec_schema_view *v, const char *hint, bool lean)
{
    /* examples (3.0 example, 3.1 examples), then the default */
    bool ok;
    json_object *x = valid_example(g, v->loc, v->kw[SPEC_KW_EXAMPLE], &ok);
    if (ok) return x;
    const jt_node *exs = v->kw[SPEC_KW_EXAMPLES];
    if (jt_is(exs, JT_ARRAY) && exs->len) {
        x = valid_example(g, v->loc, exs->u.items[0], &ok);
        if (ok) return x;
    }
    x = valid_example(g, v->loc, v->kw[SPEC_KW_DEFAULT], &ok);
    if (ok) return x;
    /* null is the smallest value; the validator reads alternatives before nullable */
    if (lean && spec_schema_view_allows_null(v) && !v->kw[SPEC_KW_ANY_OF] &&
        !v->kw[SPEC_KW_ONE_OF] && !v->kw[SPEC_KW_ALL_OF])
        return NULL;

    spec_schema_view merged;
    const spec_schema_view *s = v;
    if (jt_is(v->kw[SPEC_KW_ALL_OF], JT_ARRAY) &&
        !spec_schema_view_open(g->api, v->loc, g->arena, &merged))
        s = &merged;
    const jt_node *en = s->kw[SPEC_KW_ENUM];
    if (jt_is(en, JT_ARRAY) && en->len) {
        uint32_t start = (uint32_t)rnd(g, en->len);
        for (uint32_t k = 0; k < en->len; k++) { /* a non-null member first */
            const jt_node *e = en->u.items[(start + k) % en->len];
            if (e->type != JT_NULL) return literal_json(e);
        }
        return NULL;
    }
    const jt_node *cn = s->kw[SPEC_KW_CONST];
    if (cn) return literal_json(cn);
    bool any;
    const jt_node *alts = spec_schema_view_alternatives(s, &any);
    if (alts) {
        x = gen(g, pick_alternative(g, s, alts, lean), hint, lean);
        /* properties written beside the alternatives belong to every one of them */
        if (json_object_is_type(x, json_type_object) && s->kw[SPEC_KW_PROPERTIES]) {
            json_object *outer = gen_object(g, s, lean);
            json_object_object_foreach(outer, k, val)
            {
                if (!json_object_object_get_ex(x, k, NULL))
                    json_object_object_add(x, k, json_object_get(val));
            }
            json_object_put(outer);
        }
        return x;
    }
    const char *type = type_of(s);
    if (!type) return json_object_new_string(hint_word(g, hint));
    if (!strcmp(type, "object")) return gen_object(g, s, lean);
    if (!strcmp(type, "array")) return gen_array(g, s, lean, hint);
    if (!strcmp(type, "string")) return gen_string(g, s, hint);
    if (!strcmp(type, "integer")) return gen_number(g, s, true, hint);
    if (!strcmp(type, "number")) return gen_number(g, s, false, hint);
    if (!strcmp(type, "boolean")) return json_object_new_boolean(rnd(g, 2));
    if (!strcmp(type, "null")) return NULL;
    return json_object_new_string(hint_word(g, hint));
}

/* The smallest value of a schema's type, made without looking into any other schema, so
   that no input (deep, cyclic or exponentially wide) can make generation go on. */
static json_object *smallest(gctx *g, const spec_schema_view *v, const char *hint)
{
    g->nodes++;
    const jt_node *en = v->kw[SPEC_KW_ENUM];
    if (jt_is(en, JT_ARRAY) && en->len) return literal_json(en->u.items[0]);
    if (v->kw[SPEC_KW_CONST]) return literal_json(v->kw[SPEC_KW_CONST]);
    const char *t = type_of(v);
    if (spec_schema_view_allows_null(v) || !t || !strcmp(t, "null")) return NULL;
    if (!strcmp(t, "object")) return json_object_new_object();
    if (!strcmp(t, "array")) return json_object_new_array();
    if (!strcmp(t, "string")) return gen_string(g, v, hint);
    if (!strcmp(t, "integer")) return gen_number(g, v, true, hint);
    if (!strcmp(t, "number")) return gen_number(g, v, false, hint);
    if (!strcmp(t, "boolean")) return json_object_new_boolean(0);
    return NULL;
}

static json_object *gen(gctx *g, spec_loc s, const char *hint, bool lean)
{
    spec_schema_view v;
    if (spec_schema_view_open(g->api, s, NULL, &v) || !jt_is(v.loc.node, JT_OBJECT))
        return json_object_new_string(hint_word(g, hint)); /* `true`, {} or unresolved */
    if (g->depth >= MOCK_GEN_MAX_DEPTH || g->nodes > 10 * MOCK_GEN_MAX_NODES)
        return smallest(g, &v, hint); /* a required chain this deep never ends */
    if (++g->nodes > MOCK_GEN_MAX_NODES || g->depth >= MOCK_GEN_LEAN_DEPTH ||
        on_stack(g, v.loc.node) >= 2)
        lean = true;
    g->stack[g->depth++] = v.loc.node;
    json_object *x = gen_inner(g, &v, hint, lean);
    g->depth--;
    return x;
}

json_object *mock_gen_schema(const spec_api *api, spec_loc schema, uint64_t seed, bool request)
{
    gctx g = {.api = api, .rng = seed, .request = request, .arena = core_arena_new(0)};
    if (!g.arena) return NULL;
    json_object *x = gen(&g, schema, NULL, false);
    core_arena_free(g.arena);
    return x;
}

int mock_gen_media(const spec_api *api, const spec_response *resp, const spec_media *media,
                   uint64_t seed, struct json_object **out)
{
    *out = NULL;
    gctx g = {.api = api, .rng = seed, .arena = NULL};
    spec_loc schema = media ? media->schema : (spec_loc){0};
    const jt_node *cands[SPEC_MEDIA_EXAMPLES_MAX];
    size_t n = spec_media_examples(api, resp, media, cands);
    for (size_t i = 0; i < n; i++) {
        bool ok;
        json_object *x = valid_example(&g, schema, cands[i], &ok);
        if (ok) {
            *out = x;
            return 0;
        }
    }
    if (!schema.node) return 1;
    *out = mock_gen_schema(api, schema, seed, false);
    return 0;
}
