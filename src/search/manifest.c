/*
 * The capability manifest: what the indexed APIs can do, grouped by API and tag,
 * in plain text for a system prompt, most useful first and, with a budget, never longer
 * than that many cl100k tokens, ending with what was left out and how to get it.
 *
 * "Most useful first": APIs with more active (non-deprecated) operations first (they cover
 * more tasks); within an API, tags with more operations first; within a tag, the most
 * general endpoints first (fewer path parameters, then fewer path segments, then GET, POST,
 * PUT, PATCH, DELETE), so a collection's list and create come before one item's sub-resources.
 * A budget is spent breadth first: every API's line, then each tag's most general
 * operation, then up to 3, 10 and 30 per tag, then all, taking one tag of each API in turn,
 * so a small budget shows every API and its main tags rather than one API in full. Lines end
 * in a newline and the next starts with a visible character, so the token count of the
 * whole is (at most) the sum of the lines'; the whole is counted again at the end.
 */
#include "search/search_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { OP_TOKENS = 16, API_DESC_TOKENS = 24 };

static const char untagged[] = "untagged";

typedef struct m_group {
    const char *name;
    size_t *ops; /* indices into the operations, most general first */
    size_t n_ops;
    size_t shown; /* how many of ops are in the manifest (0 = the tag is not) */
    size_t tokens;
} m_group;

typedef struct m_api {
    const store_api *api;
    const char *line; /* "## Title (api id, N operations)\nDescription.\n" */
    size_t line_tokens;
    m_group *groups; /* most operations first */
    size_t n_groups;
    size_t n_active;
    bool shown;
} m_api;

typedef struct manifest {
    const store_operation *ops;
    const char **op_text; /* plain one-line text per operation, made on first use */
    m_api *apis;
    size_t n_apis, n_ops_total, n_groups_total;
    size_t budget;
    core_arena *arena;
    core_buf scratch;
} manifest;

static bool in_list(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(list[i], s)) return true;
    return false;
}

static size_t tokens(const char *s, size_t n)
{
    const text_bpe *bpe = text_bpe_default();
    return bpe ? text_bpe_count(bpe, s, n) : n;
}

/* ---------------------------------------------------------------- ordering */

static int method_rank(const char *m)
{
    static const char *const order[] = {"GET", "POST", "PUT", "PATCH", "DELETE"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(m, order[i])) return i;
    return 5;
}

static void generality(const store_operation *op, size_t key[3])
{
    size_t params = 0, segs = 0;
    for (const char *p = op->path; *p; p++) {
        params += *p == '{';
        segs += *p == '/';
    }
    key[0] = params;
    key[1] = segs;
    key[2] = (size_t)method_rank(op->method);
}

static int cmp_general(const void *a, const void *b, void *ctx)
{
    const store_operation *ops = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    size_t kx[3], ky[3];
    generality(&ops[x], kx);
    generality(&ops[y], ky);
    for (int i = 0; i < 3; i++)
        if (kx[i] != ky[i]) return kx[i] < ky[i] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_groups(const void *a, const void *b)
{
    const m_group *x = a, *y = b;
    if (x->n_ops != y->n_ops) return x->n_ops > y->n_ops ? -1 : 1;
    return x < y ? -1 : x > y; /* stable: declared order */
}

static int cmp_apis(const void *a, const void *b)
{
    const m_api *x = a, *y = b;
    if (x->n_active != y->n_active) return x->n_active > y->n_active ? -1 : 1;
    return strcmp(x->api->id, y->api->id);
}

/* ---------------------------------------------------------------- text */

/* Query, Modify or Remove, by what the operation's verb does, else its method. */
static int op_kind(const store_operation *op)
{
    switch (op->action) {
    case TEXT_ACTION_READ:
        return 0;
    case TEXT_ACTION_CREATE:
    case TEXT_ACTION_UPDATE:
        return 1;
    case TEXT_ACTION_DELETE:
        return 2;
    default:
        break;
    }
    if (!strcmp(op->method, "GET") || !strcmp(op->method, "HEAD")) return 0;
    return !strcmp(op->method, "DELETE") ? 2 : 1;
}

/* What an operation does in a few words: its summary, else its description's first
   sentence, else its operationId, else METHOD /path; plain text, no final period. */
static const char *op_text(manifest *m, size_t i)
{
    if (m->op_text[i]) return m->op_text[i];
    const store_operation *op = &m->ops[i];
    core_buf *b = &m->scratch;
    core_buf_reset(b);
    text_plain_summary(op->summary, op->description, 0, b);
    if (!b->len && op->operation_id) core_buf_puts(b, op->operation_id);
    if (!b->len) core_buf_printf(b, "%s %s", op->method, op->path);
    core_buf shortened;
    core_buf_init(&shortened, 0);
    text_plain_shorten(b->data, b->len, OP_TOKENS, &shortened, NULL);
    if (!shortened.len) core_buf_printf(&shortened, "%s %s", op->method, op->path);
    size_t n = shortened.len;
    while (n && (shortened.data[n - 1] == '.' || shortened.data[n - 1] == ' ')) n--;
    m->op_text[i] = core_arena_strndup(m->arena, shortened.data, n);
    core_buf_free(&shortened);
    return m->op_text[i] ? m->op_text[i] : "";
}

/* "- Tag: Query: a; b | Modify: c | Remove: d | +3 more\n" with the first k operations. */
static void group_line(manifest *m, const m_group *g, size_t k, core_buf *out)
{
    static const char *const kinds[3] = {"Query", "Modify", "Remove"};
    core_buf_printf(out, "- %s:", g->name);
    bool any_kind = false;
    for (int kind = 0; kind < 3; kind++) {
        bool first = true;
        for (size_t i = 0; i < k && i < g->n_ops; i++) {
            if (op_kind(&m->ops[g->ops[i]]) != kind) continue;
            if (first) core_buf_printf(out, "%s %s: ", any_kind ? " |" : "", kinds[kind]);
            core_buf_puts(out, first ? "" : "; ");
            core_buf_puts(out, op_text(m, g->ops[i]));
            first = false;
            any_kind = true;
        }
    }
    if (k < g->n_ops) core_buf_printf(out, " | +%zu more", g->n_ops - k);
    core_buf_putc(out, '\n');
}

static size_t group_tokens(manifest *m, const m_group *g, size_t k)
{
    if (!k) return 0;
    core_buf b;
    core_buf_init(&b, 0);
    group_line(m, g, k, &b);
    size_t t = b.failed ? SIZE_MAX / 4 : tokens(b.data, b.len);
    core_buf_free(&b);
    return t;
}

static void header(const manifest *m, core_buf *out)
{
    core_buf_printf(out,
                    "API capabilities: %zu APIs, %zu operations, by API and tag, largest "
                    "first. `apidex show ID` gives an endpoint's details, `apidex search "
                    "\"TASK\"` the endpoints of a task.\n",
                    m->n_apis, m->n_ops_total);
}

/* What was left out and how to get it; nothing when everything is in. */
static void footer(const manifest *m, core_buf *out)
{
    size_t apis = 0, groups = 0, ops = 0;
    for (size_t a = 0; a < m->n_apis; a++) {
        const m_api *api = &m->apis[a];
        if (!api->shown) apis++;
        for (size_t g = 0; g < api->n_groups; g++) {
            const m_group *gr = &api->groups[g];
            size_t shown = api->shown ? gr->shown : 0;
            groups += shown == 0;
            ops += gr->n_ops - shown;
        }
    }
    if (!apis && !groups && !ops) return;
    core_buf_printf(out,
                    "\nLeft out to stay within %zu tokens: %zu APIs, %zu tags, %zu operations. "
                    "`apidex list --manifest --api ID` shows one API, `apidex list --api ID "
                    "--tag TAG` a tag's operations with their ids; a larger --budget shows "
                    "more.\n",
                    m->budget, apis, groups, ops);
}

static void render(manifest *m, core_buf *out)
{
    header(m, out);
    for (size_t a = 0; a < m->n_apis; a++) {
        const m_api *api = &m->apis[a];
        if (!api->shown) continue;
        core_buf_puts(out, api->line);
        for (size_t g = 0; g < api->n_groups; g++)
            if (api->groups[g].shown) group_line(m, &api->groups[g], api->groups[g].shown, out);
    }
    footer(m, out);
}

static size_t footer_tokens(const manifest *m)
{
    core_buf b;
    core_buf_init(&b, 0);
    footer(m, &b);
    size_t t = b.len ? tokens(b.data, b.len) : 0;
    core_buf_free(&b);
    return t;
}

/* ---------------------------------------------------------------- building */

static int build(manifest *m, store_index *idx, const search_manifest_options *o, apidex_error *err)
{
    const store_api *apis;
    const store_operation *ops;
    size_t n_apis, n_ops;
    int rc = store_apis(idx, &apis, &n_apis, err);
    if (!rc) rc = store_operations(idx, &ops, &n_ops, err);
    if (rc) return rc;
    m->ops = ops;
    m->op_text = core_arena_calloc(m->arena, n_ops + 1, sizeof *m->op_text);
    m->apis = core_arena_calloc(m->arena, n_apis + 1, sizeof *m->apis);
    size_t *home = core_arena_calloc(m->arena, n_ops + 1, sizeof *home); /* group + 1 */
    if (!m->op_text || !m->apis || !home)
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    size_t lo = 0;
    for (size_t a = 0; a < n_apis; a++) {
        const store_api *api = &apis[a];
        size_t hi = lo;
        while (hi < n_ops && ops[hi].api_index == a) hi++;
        size_t first = lo;
        lo = hi;
        if (o->n_apis && !in_list(o->apis, o->n_apis, api->id)) continue;
        /* groups: declared tags, then untagged; each operation once, under its first tag
           that is wanted */
        size_t cap = api->n_tags + 1;
        m_group *groups = core_arena_calloc(m->arena, cap, sizeof *groups);
        if (!groups) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        for (size_t t = 0; t < api->n_tags; t++) groups[t].name = api->tags[t].name;
        groups[api->n_tags].name = untagged;
        size_t active = 0;
        for (size_t i = first; i < hi; i++) {
            const store_operation *op = &ops[i];
            home[i] = 0;
            if (op->deprecated) continue;
            size_t g = SIZE_MAX;
            for (size_t t = 0; t < op->n_tags && g == SIZE_MAX; t++) {
                if (o->n_tags && !in_list(o->tags, o->n_tags, op->tags[t])) continue;
                for (size_t d = 0; d < api->n_tags && g == SIZE_MAX; d++)
                    if (!strcmp(api->tags[d].name, op->tags[t])) g = d;
            }
            if (g == SIZE_MAX && op->n_tags == 0 &&
                (!o->n_tags || in_list(o->tags, o->n_tags, untagged)))
                g = api->n_tags;
            if (g == SIZE_MAX) continue;
            home[i] = g + 1;
            groups[g].n_ops++;
            active++;
        }
        for (size_t g = 0; g < cap; g++) {
            groups[g].ops = core_arena_calloc(m->arena, groups[g].n_ops + 1, sizeof(size_t));
            if (!groups[g].ops) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
            groups[g].n_ops = 0;
        }
        for (size_t i = first; i < hi; i++)
            if (home[i]) groups[home[i] - 1].ops[groups[home[i] - 1].n_ops++] = i;
        size_t n_groups = 0;
        for (size_t g = 0; g < cap; g++)
            if (groups[g].n_ops) groups[n_groups++] = groups[g];
        for (size_t g = 0; g < n_groups; g++)
            qsort_r(groups[g].ops, groups[g].n_ops, sizeof(size_t), cmp_general, (void *)ops);
        qsort(groups, n_groups, sizeof *groups, cmp_groups);
        if (!active && (o->n_tags || !api->n_ops)) continue;
        m_api *ma = &m->apis[m->n_apis++];
        ma->api = api;
        ma->groups = groups;
        ma->n_groups = n_groups;
        ma->n_active = active;
        m->n_ops_total += active;
        m->n_groups_total += n_groups;
        core_buf *b = &m->scratch;
        core_buf_reset(b);
        const char *title = api->title && *api->title ? api->title : api->id;
        core_buf_puts(b, "\n## ");
        text_plain_line(title, strlen(title), 0, b, NULL);
        core_buf_printf(b, " (api %s, %zu operation%s)\n", api->id, active, active == 1 ? "" : "s");
        if (api->description && *api->description) {
            core_buf desc;
            core_buf_init(&desc, 0);
            text_plain_line(api->description, strlen(api->description), 0, &desc, NULL);
            size_t before = b->len;
            if (desc.len) text_plain_shorten(desc.data, desc.len, API_DESC_TOKENS, b, NULL);
            if (b->len > before) core_buf_putc(b, '\n');
            core_buf_free(&desc);
        }
        if (b->failed) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        ma->line = core_arena_strndup(m->arena, b->data, b->len);
        if (!ma->line) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        ma->line_tokens = tokens(b->data, b->len);
    }
    qsort(m->apis, m->n_apis, sizeof *m->apis, cmp_apis);
    return 0;
}

/* One change of the selection, so it can be undone. */
typedef struct m_step {
    m_api *api;
    m_group *group; /* NULL: the API's line */
    size_t before;
} m_step;

/* Spends the budget breadth first; steps[] logs every change (at most n_steps_cap). */
static size_t select_within(manifest *m, size_t fixed, m_step *steps, size_t cap)
{
    size_t used = fixed, n = 0;
    for (size_t a = 0; a < m->n_apis && n < cap; a++) {
        m_api *api = &m->apis[a];
        api->shown = true;
        size_t t = used + api->line_tokens;
        if (t + footer_tokens(m) > m->budget) {
            api->shown = false; /* this one and every smaller API */
            break;
        }
        used = t;
        steps[n++] = (m_step){api, NULL, 0};
    }
    static const size_t levels[] = {1, 3, 10, 30, SIZE_MAX};
    size_t max_groups = 0;
    for (size_t a = 0; a < m->n_apis; a++)
        if (m->apis[a].n_groups > max_groups) max_groups = m->apis[a].n_groups;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++)
        for (size_t r = 0; r < max_groups; r++)
            for (size_t a = 0; a < m->n_apis && n < cap; a++) {
                m_api *api = &m->apis[a];
                if (!api->shown || r >= api->n_groups) continue;
                m_group *g = &api->groups[r];
                size_t k = levels[l] < g->n_ops ? levels[l] : g->n_ops;
                if (k <= g->shown) continue;
                /* a tag is only deepened once every shorter level fits */
                if (l && g->shown < (levels[l - 1] < g->n_ops ? levels[l - 1] : g->n_ops)) continue;
                size_t cost = group_tokens(m, g, k);
                size_t before = g->shown, old = g->tokens;
                g->shown = k;
                size_t t = used - old + cost;
                if (t + footer_tokens(m) <= m->budget) {
                    used = t;
                    g->tokens = cost;
                    steps[n++] = (m_step){api, g, before};
                } else {
                    g->shown = before;
                }
            }
    return n;
}

int search_manifest(store_index *idx, const search_manifest_options *o, core_buf *out,
                    search_manifest_report *rep, apidex_error *err)
{
    static const search_manifest_options none = {0};
    if (!o) o = &none;
    if (rep) memset(rep, 0, sizeof *rep);
    manifest m = {.budget = o->budget, .arena = core_arena_new(0)};
    core_buf_init(&m.scratch, 0);
    if (!m.arena) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    int rc = build(&m, idx, o, err);
    size_t start = out->len;
    if (!rc && !o->budget) {
        for (size_t a = 0; a < m.n_apis; a++) {
            m.apis[a].shown = true;
            for (size_t g = 0; g < m.apis[a].n_groups; g++)
                m.apis[a].groups[g].shown = m.apis[a].groups[g].n_ops;
        }
        render(&m, out);
    } else if (!rc) {
        core_buf b;
        core_buf_init(&b, 0);
        header(&m, &b);
        size_t fixed = tokens(b.data, b.len);
        core_buf_free(&b);
        size_t least = fixed + footer_tokens(&m);
        if (least > o->budget) {
            rc = core_error_set(err, APIDEX_ELIMIT,
                                "a budget of %zu tokens is too small: the manifest's header and "
                                "the note of what is left out alone take %zu",
                                o->budget, least);
        } else {
            size_t cap = m.n_apis + m.n_groups_total * 5 + 1;
            m_step *steps = malloc(cap * sizeof *steps);
            size_t n = steps ? select_within(&m, fixed, steps, cap) : 0;
            if (!steps) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            /* the sum of the lines bounds the whole; check the whole and undo if not */
            while (!rc) {
                out->len = start;
                if (out->data) out->data[start] = 0;
                render(&m, out);
                if (out->failed) {
                    rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
                    break;
                }
                if (tokens(out->data + start, out->len - start) <= o->budget || !n) break;
                m_step *s = &steps[--n];
                if (s->group)
                    s->group->shown = s->before;
                else
                    s->api->shown = false;
            }
            free(steps);
        }
    }
    if (!rc && out->failed) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!rc && rep) {
        rep->tokens = tokens(out->data + start, out->len - start);
        rep->apis = m.n_apis;
        rep->operations = m.n_ops_total;
        for (size_t a = 0; a < m.n_apis; a++) {
            if (!m.apis[a].shown) continue;
            rep->apis_shown++;
            for (size_t g = 0; g < m.apis[a].n_groups; g++)
                rep->operations_shown += m.apis[a].groups[g].shown;
        }
    }
    core_buf_free(&m.scratch);
    core_arena_free(m.arena);
    return rc;
}
