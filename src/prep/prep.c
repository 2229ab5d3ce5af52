/*
 * prep: filter names and the tree filter.
 *
 * Design. Real OpenAPI documents are cleaned before chunking: it strips
 * base64 blobs, HTML tags, markdown markup and blacklisted URLs from text, then
 * removes subtrees that cost many tokens but say little about what a service
 * does: 4xx/5xx responses, response headers, and (the paper's "remove examples"
 * refinement) request bodies and every example. We keep the two kinds apart:
 * text filters (prep_text.c) rewrite one string; the tree filter here walks a
 * jt_node tree and decides per object member.
 *
 * The loaded model is read-only and shared, so the walk never writes to it. It
 * returns the input node itself whenever a subtree is unchanged and allocates
 * a new node (in the caller's arena) only along paths where something was
 * removed or rewritten; a filtered tree is therefore cheap when little changes.
 *
 * Context decides what a key means: "example" under "properties" is a property
 * name, not an example; "404" is an error response only directly under
 * "responses". Functional strings ($ref, url, operationId, pattern, enum
 * values, ...) are never rewritten, so a filtered document still resolves.
 */
#include "prep/prep.h"
#include "oas/oas.h"

#include <stdio.h>
#include <string.h>

static const char *const filter_names[PREP_N_FILTERS] = {"base64",  "html",     "markdown",
                                                         "urls",    "urls-all", "errors",
                                                         "headers", "examples", "request-body"};

const char *prep_filter_name(unsigned bit)
{
    int i = prep_filter_index(bit);
    return i < 0 ? NULL : filter_names[i];
}

int prep_filter_index(unsigned bit)
{
    for (int i = 0; i < PREP_N_FILTERS; i++)
        if (bit == (1u << i)) return i;
    return -1;
}

int prep_parse_filters(const char *list, unsigned *out, apidex_error *err)
{
    unsigned f = 0;
    const char *p = list ? list : "";
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && (*p == ' ')) p++, n--;
        while (n && p[n - 1] == ' ') n--;
        if (n) {
            bool found = false;
            for (int i = 0; i < PREP_N_FILTERS && !found; i++)
                if (strlen(filter_names[i]) == n && !memcmp(filter_names[i], p, n)) {
                    f |= 1u << i;
                    found = true;
                }
            if (!found) {
                if (n == 15 && !memcmp(p, "remove-examples", 15))
                    f |= PREP_REMOVE_EXAMPLES;
                else if (n == 3 && !memcmp(p, "all", 3))
                    f |= PREP_ALL_CLEANING;
                else if (n == 4 && !memcmp(p, "none", 4))
                    f |= 0;
                else
                    return core_error_set(err, APIDEX_EINVAL,
                                          "unknown filter '%.*s' (known: base64, html, "
                                          "markdown, urls, urls-all, errors, headers, examples, "
                                          "request-body, remove-examples, all, none)",
                                          (int)n, p);
            }
        }
        if (!e) break;
        p = e + 1;
    }
    *out = f;
    return 0;
}

int prep_format_filters(unsigned filters, core_buf *out)
{
    int rc = 0;
    bool first = true;
    for (int i = 0; i < PREP_N_FILTERS && !rc; i++) {
        if (!(filters & (1u << i))) continue;
        if (!first) rc = core_buf_putc(out, ',');
        if (!rc) rc = core_buf_puts(out, filter_names[i]);
        first = false;
    }
    return rc;
}

void prep_report_add(prep_report *a, const prep_report *b)
{
    for (int i = 0; i < PREP_N_FILTERS; i++) {
        a->count[i] += b->count[i];
        a->bytes[i] += b->bytes[i];
    }
}

/* ---------------------------------------------------------------- sizes */

enum { PREP_MAX_DEPTH = 1024 };

static size_t tree_bytes(const jt_node *n, unsigned depth)
{
    if (!n) return 4;
    switch ((jt_type)n->type) {
    case JT_NULL:
        return 4;
    case JT_BOOL:
        return n->boolean ? 4 : 5;
    case JT_INT: {
        char tmp[32];
        return (size_t)snprintf(tmp, sizeof tmp, "%lld", (long long)n->u.i);
    }
    case JT_REAL: {
        char tmp[40];
        return (size_t)snprintf(tmp, sizeof tmp, "%.17g", n->u.d);
    }
    case JT_STRING:
        return n->len + 2;
    case JT_ARRAY: {
        size_t s = 2 + (n->len ? n->len - 1 : 0);
        if (depth >= PREP_MAX_DEPTH) return s;
        for (uint32_t i = 0; i < n->len; i++) s += tree_bytes(n->u.items[i], depth + 1);
        return s;
    }
    case JT_OBJECT: {
        size_t s = 2 + (n->len ? n->len - 1 : 0);
        if (depth >= PREP_MAX_DEPTH) return s;
        for (uint32_t i = 0; i < n->len; i++)
            s += n->u.members[i].key_len + 3 + tree_bytes(n->u.members[i].value, depth + 1);
        return s;
    }
    }
    return 0;
}

size_t prep_tree_bytes(const jt_node *n)
{
    return tree_bytes(n, 0);
}

/* ---------------------------------------------------------------- tree filter */

typedef struct walk_ctx {
    const prep_options *opt;
    core_arena *arena;
    prep_report *rep;
    core_buf scratch;
    int rc;
} walk_ctx;

/* What each key is (a name map, a functional string, an example, ...) is the model's
   knowledge: spec_tree_key_roles. */
static bool key_has(const char *k, size_t n, unsigned role)
{
    return (spec_tree_key_roles(k, n) & role) != 0;
}

static bool is_error_status(const char *k, size_t n)
{
    if (n != 3 || (k[0] != '4' && k[0] != '5')) return false;
    bool digits = k[1] >= '0' && k[1] <= '9' && k[2] >= '0' && k[2] <= '9';
    bool xx = (k[1] == 'X' || k[1] == 'x') && (k[2] == 'X' || k[2] == 'x');
    return digits || xx;
}

static void note_removed(walk_ctx *w, unsigned bit, const jt_member *m)
{
    if (!w->rep) return;
    int i = prep_filter_index(bit);
    w->rep->count[i]++;
    w->rep->bytes[i] += m->key_len + 3 + prep_tree_bytes(m->value);
}

/* Which filter (bit) removes member m of an object reached by a key of roles `parent`
 * (spec_tree_key_roles), whose own key had the roles `grand`; 0 to keep it. */
static unsigned member_removed_by(const walk_ctx *w, const jt_member *m, unsigned parent,
                                  unsigned grand)
{
    unsigned f = w->opt->filters;
    const char *k = m->key;
    size_t n = m->key_len;
    if (!k) return 0;
    bool in_name_map = parent & SPEC_TREE_KEY_NAMES;
    if ((f & PREP_ERRORS) && (parent & SPEC_TREE_KEY_RESPONSES) && is_error_status(k, n))
        return PREP_ERRORS;
    if (!(f & (PREP_HEADERS | PREP_EXAMPLES | PREP_REQUEST_BODY))) return 0;
    unsigned key = spec_tree_key_roles(k, n);
    if ((f & PREP_HEADERS) && (key & SPEC_TREE_KEY_HEADERS) && (grand & SPEC_TREE_KEY_RESPONSES) &&
        !in_name_map)
        return PREP_HEADERS;
    if ((f & PREP_EXAMPLES) && !in_name_map && (key & SPEC_TREE_KEY_EXAMPLE)) return PREP_EXAMPLES;
    if ((f & PREP_REQUEST_BODY) && !in_name_map && (key & SPEC_TREE_KEY_REQUEST_BODY))
        return PREP_REQUEST_BODY;
    if ((f & PREP_REQUEST_BODY) && (key & SPEC_TREE_KEY_REQUEST_BODIES) &&
        (parent & SPEC_TREE_KEY_COMPONENTS))
        return PREP_REQUEST_BODY;
    return 0;
}

static const jt_node *walk(walk_ctx *w, const jt_node *n, const char *key, size_t key_len,
                           const char *parent, size_t parent_len, unsigned depth);

static const jt_node *walk_string(walk_ctx *w, const jt_node *n, const char *key, size_t key_len)
{
    if (!(w->opt->filters & PREP_TEXT_FILTERS) ||
        (key && key_has(key, key_len, SPEC_TREE_KEY_FUNCTIONAL)))
        return n;
    core_buf_reset(&w->scratch);
    int rc = prep_text(w->opt, n->u.s, n->len, &w->scratch, w->rep);
    if (rc) {
        w->rc = rc;
        return n;
    }
    if (w->scratch.len == n->len && (!n->len || !memcmp(w->scratch.data, n->u.s, n->len))) return n;
    jt_node *s = jt_new_string(w->arena, w->scratch.data ? w->scratch.data : "", w->scratch.len);
    if (!s) w->rc = APIDEX_ENOMEM;
    return s ? s : n;
}

static const jt_node *walk_array(walk_ctx *w, const jt_node *n, const char *key, size_t key_len,
                                 const char *parent, size_t parent_len, unsigned depth)
{
    /* enum and required lists are values the API checks: keep them verbatim. */
    if (key_has(key, key_len, SPEC_TREE_KEY_VALUE_LIST)) return n;
    /* Only operations and path items have parameter *arrays* (components and
     * Swagger 2.0's root `parameters` are maps). */
    bool drop_body =
        (w->opt->filters & PREP_REQUEST_BODY) && key_has(key, key_len, SPEC_TREE_KEY_PARAMETERS);
    const jt_node **items = NULL;
    size_t kept = 0;
    for (uint32_t i = 0; i < n->len && !w->rc; i++) {
        const jt_node *it = n->u.items[i];
        const jt_node *nv;
        bool drop = drop_body && spec_tree_param_in_body(it);
        /* Items are not named members: "[]" keeps "example" inside a parameter
         * object from looking like a name under "parameters". */
        nv = drop ? NULL : walk(w, it, "[]", 2, key, key_len, depth + 1);
        if (drop && w->rep) {
            int bi = prep_filter_index(PREP_REQUEST_BODY);
            w->rep->count[bi]++;
            w->rep->bytes[bi] += prep_tree_bytes(it) + 1;
        }
        if (!items && nv != it) {
            items = core_arena_calloc(w->arena, n->len ? n->len : 1, sizeof *items);
            if (!items) {
                w->rc = APIDEX_ENOMEM;
                return n;
            }
            for (uint32_t j = 0; j < i; j++) items[kept++] = n->u.items[j];
        }
        if (items && nv) items[kept++] = nv;
    }
    if (!items || w->rc) return n;
    jt_node *a = jt_new_array(w->arena, kept);
    if (!a) {
        w->rc = APIDEX_ENOMEM;
        return n;
    }
    for (size_t i = 0; i < kept; i++) a->u.items[i] = (jt_node *)items[i];
    a->line = n->line;
    a->col = n->col;
    return a;
}

static const jt_node *walk_object(walk_ctx *w, const jt_node *n, const char *key, size_t key_len,
                                  const char *parent, size_t parent_len, unsigned depth)
{
    jt_member *members = NULL;
    size_t kept = 0;
    unsigned roles = spec_tree_key_roles(key, key_len);
    unsigned parent_roles = spec_tree_key_roles(parent, parent_len);
    for (uint32_t i = 0; i < n->len && !w->rc; i++) {
        const jt_member *m = &n->u.members[i];
        unsigned bit = member_removed_by(w, m, roles, parent_roles);
        const jt_node *nv = NULL;
        if (bit)
            note_removed(w, bit, m);
        else
            nv = walk(w, m->value, m->key, m->key_len, key, key_len, depth + 1);
        if (!members && (bit || nv != m->value)) {
            members = core_arena_calloc(w->arena, n->len ? n->len : 1, sizeof *members);
            if (!members) {
                w->rc = APIDEX_ENOMEM;
                return n;
            }
            for (uint32_t j = 0; j < i; j++) members[kept++] = n->u.members[j];
        }
        if (members && !bit) {
            members[kept] = *m;
            members[kept].value = (jt_node *)nv;
            kept++;
        }
    }
    if (!members || w->rc) return n;
    jt_node *o = jt_new_object(w->arena, kept);
    if (!o) {
        w->rc = APIDEX_ENOMEM;
        return n;
    }
    if (kept) memcpy(o->u.members, members, kept * sizeof *members);
    o->line = n->line;
    o->col = n->col;
    jt_object_finish(w->arena, o);
    return o;
}

static const jt_node *walk(walk_ctx *w, const jt_node *n, const char *key, size_t key_len,
                           const char *parent, size_t parent_len, unsigned depth)
{
    if (!n || w->rc || depth > PREP_MAX_DEPTH) return n;
    switch ((jt_type)n->type) {
    case JT_STRING:
        return walk_string(w, n, key, key_len);
    case JT_ARRAY:
        return walk_array(w, n, key, key_len, parent, parent_len, depth);
    case JT_OBJECT:
        return walk_object(w, n, key, key_len, parent, parent_len, depth);
    default:
        return n;
    }
}

int prep_tree(const prep_options *opt, const jt_node *in, core_arena *arena, const jt_node **out,
              prep_report *rep)
{
    *out = in;
    if (!opt || !opt->filters || !in) return 0;
    walk_ctx w = {.opt = opt, .arena = arena, .rep = rep};
    core_buf_init(&w.scratch, 0);
    const jt_node *r = walk(&w, in, NULL, 0, NULL, 0, 0);
    core_buf_free(&w.scratch);
    if (w.rc) return w.rc;
    *out = r;
    return 0;
}
