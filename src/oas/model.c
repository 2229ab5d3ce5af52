/*
 * The schema graph and the ids, in two phases: schemas are found and
 * linked by natural names (component names, or names derived from the file and
 * pointer of other $ref targets), then every operation and schema gets its
 * prefixed id "api:name".
 */
#include "oas/oas_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- schema registry */

static long schema_new(spec_api_int *ai, spec_loc node, const char *name, const char *pointer,
                       bool component)
{
    spec_api *api = &ai->pub;
    if (core_array_grow(&api->schemas, &ai->cap_schemas, api->n_schemas, sizeof *api->schemas, 64))
        return -1;
    size_t idx = api->n_schemas;
    spec_schema *s = &api->schemas[idx];
    memset(s, 0, sizeof *s);
    s->name = name;
    s->node = node;
    s->pointer = pointer;
    s->component = component;
    if (spec_strmap_put(&ai->schema_by_name, name, strlen(name), idx)) return -1;
    if (node.node && !spec_ptrmap_get(&ai->schema_by_node, node.node, NULL) &&
        spec_ptrmap_put(&ai->schema_by_node, node.node, idx))
        return -1;
    api->n_schemas++;
    return (long)idx;
}

static bool name_taken(const spec_api_int *ai, const char *name)
{
    return spec_strmap_get(&ai->schema_by_name, name, strlen(name), NULL);
}

/* The stem of a document's file name ("pet" for .../models/pet.yaml). */
static const char *doc_stem(spec_api_int *ai, const spec_doc *doc, const char **parent)
{
    const char *real = doc->real;
    const char *end = real + strlen(real);
    const char *q = strpbrk(real, "?#");
    if (doc->remote && q) end = q;
    const char *base = end;
    while (base > real && base[-1] != '/') base--;
    const char *dot = NULL;
    for (const char *p = base; p < end; p++)
        if (*p == '.') dot = p;
    size_t n = dot && dot != base ? (size_t)(dot - base) : (size_t)(end - base);
    *parent = NULL;
    if (base > real + 1) {
        const char *pe = base - 1, *ps = pe;
        while (ps > real && ps[-1] != '/') ps--;
        if (pe > ps) *parent = core_arena_strndup(ai->arena, ps, (size_t)(pe - ps));
    }
    return core_arena_strndup(ai->arena, base, n);
}

/* "a.b.c" from the tokens of a JSON pointer (decoded), after dropping a prefix. */
static char *pointer_name(spec_api_int *ai, const char *ptr)
{
    static const char *const prefixes[] = {"/components/schemas/", "/definitions/", "/$defs/"};
    for (size_t i = 0; i < 3; i++) {
        size_t l = strlen(prefixes[i]);
        if (strncmp(ptr, prefixes[i], l) == 0) {
            ptr += l - 1;
            break;
        }
    }
    core_buf b;
    core_buf_init(&b, 1 << 16);
    for (const char *p = ptr; *p; p++) {
        if (*p == '/') {
            if (p != ptr) core_buf_putc(&b, '.');
            continue;
        }
        if (*p == '~' && (p[1] == '0' || p[1] == '1')) {
            core_buf_putc(&b, p[1] == '0' ? '~' : '/');
            p++;
            continue;
        }
        core_buf_putc(&b, *p);
    }
    char *s = b.failed ? NULL : core_arena_strndup(ai->arena, b.data ? b.data : "", b.len);
    core_buf_free(&b);
    return s;
}

/*
 * A deterministic natural name for a $ref target that is not a component:
 * the file stem for a whole file, the component name for another file's
 * component, else the file stem and the pointer ("pages.pagination"); a taken
 * name is qualified with the parent directory, then numbered.
 */
static const char *derived_name(spec_api_int *ai, const spec_doc *doc, const char *ptr)
{
    const char *parent = NULL, *base;
    bool other_file = doc != ai->docs[0];
    const char *stem = doc_stem(ai, doc, &parent);
    if (!stem) return NULL;
    if (!ptr || !*ptr) {
        base = stem;
    } else {
        char *pn = pointer_name(ai, ptr);
        if (!pn) return NULL;
        bool component = !strncmp(ptr, "/components/schemas/", 20) ||
                         !strncmp(ptr, "/definitions/", 13) || !strncmp(ptr, "/$defs/", 7);
        base = !other_file || (component && !strchr(pn, '.'))
                   ? pn
                   : core_arena_printf(ai->arena, "%s.%s", stem, pn);
    }
    if (!base) return NULL;
    if (!*base) base = "schema";
    if (!name_taken(ai, base)) return base;
    if (other_file && parent) {
        const char *q = core_arena_printf(ai->arena, "%s/%s", parent, base);
        if (!q) return NULL;
        if (!name_taken(ai, q)) return q;
    }
    for (unsigned k = 2;; k++) {
        const char *q = core_arena_printf(ai->arena, "%s~%u", base, k);
        if (!q || !name_taken(ai, q)) return q;
    }
}

/* The schema a resolved reference lands on, registering a derived one the first time. */
static long schema_for_ref(spec_api_int *ai, const spec_refent *e)
{
    if (e->status || !e->final.node) return -1;
    size_t idx;
    if (spec_ptrmap_get(&ai->schema_by_node, e->final.node, &idx)) return (long)idx;
    const jt_node *t = e->final.node;
    if (t->type != JT_OBJECT && t->type != JT_BOOL) return -1; /* not a schema */
    const char *name = derived_name(ai, e->final.doc, e->final_ptr);
    const char *ptr = e->final_ptr ? e->final_ptr : "";
    if (!name) return -2;
    return schema_new(ai, e->final, name, ptr, false);
}

/* ---------------------------------------------------------------- edges */

typedef struct edge_sink {
    size_t *v;
    size_t n, cap;
    unsigned *mark; /* mark[schema] == gen: already an edge of the current source */
    size_t mark_cap;
    unsigned gen;
} edge_sink;

static int sink_add(edge_sink *s, size_t target)
{
    if (target >= s->mark_cap) {
        size_t cap = s->mark_cap ? s->mark_cap : 256;
        while (cap <= target) cap *= 2;
        unsigned *m = realloc(s->mark, cap * sizeof *m);
        if (!m) return APIDEX_ENOMEM;
        memset(m + s->mark_cap, 0, (cap - s->mark_cap) * sizeof *m);
        s->mark = m;
        s->mark_cap = cap;
    }
    if (s->mark[target] == s->gen) return 0;
    s->mark[target] = s->gen;
    if (core_array_grow(&s->v, &s->cap, s->n, sizeof *s->v, 64)) return APIDEX_ENOMEM;
    s->v[s->n++] = target;
    return 0;
}

enum { GRAPH_MAX_INLINED = 64 }; /* referenced maps inlined per walk (they could loop) */

typedef struct gframe {
    const jt_node *node;
    uint32_t next;
    uint8_t ctx;
} gframe;

typedef struct graph_walk {
    spec_api_int *ai;
    gframe *st;
    size_t cap;
    edge_sink sink;
} graph_walk;

/* Edges out of one node when it is entered: its $ref, its discriminator mapping. */
static int enter_schema_node(graph_walk *g, const jt_node *n, uint8_t ctx)
{
    spec_api_int *ai = g->ai;
    if (n->type != JT_OBJECT || (ctx & SPEC_CTX_NAMES)) return 0;
    const spec_refent *e = spec_ref_lookup(ai, n);
    if (e) {
        long t = schema_for_ref(ai, e);
        if (t == -2) return APIDEX_ENOMEM;
        if (t >= 0 && sink_add(&g->sink, (size_t)t)) return APIDEX_ENOMEM;
    }
    const jt_node *disc = jt_getn(n, "discriminator", 13);
    const jt_node *map = disc ? jt_getn(disc, "mapping", 7) : NULL;
    if (map && map->type == JT_OBJECT)
        for (uint32_t i = 0; i < map->len; i++) {
            const spec_refent *me = spec_ref_lookup(ai, map->u.members[i].value);
            if (!me) continue;
            long t = schema_for_ref(ai, me);
            if (t == -2) return APIDEX_ENOMEM;
            if (t >= 0 && sink_add(&g->sink, (size_t)t)) return APIDEX_ENOMEM;
        }
    return 0;
}

/*
 * Collects the schemas that the schema (or inline schema) at start references
 * directly: refs inside it are edges and are not followed; an inline subschema
 * that is itself a registered schema is an edge too. self is start's own
 * schema index (or -1), so its own node is walked rather than linked.
 */
static int collect_edges(graph_walk *g, const jt_node *start, long self)
{
    spec_api_int *ai = g->ai;
    if (!start || (start->type != JT_OBJECT && start->type != JT_ARRAY)) return 0;
    size_t n = 0;
    if (core_array_grow(&g->st, &g->cap, n, sizeof *g->st, 64)) return APIDEX_ENOMEM;
    g->st[n++] = (gframe){start, 0, 0};
    unsigned inlined = 0;
    int rc = enter_schema_node(g, start, 0);
    while (!rc && n) {
        gframe *f = &g->st[n - 1];
        const jt_node *node = f->node;
        if (f->next >= node->len) {
            n--;
            continue;
        }
        uint32_t i = f->next++;
        uint8_t cctx;
        const jt_node *child = spec_walk_child(node, i, f->ctx, &cctx);
        if (cctx == SPEC_CTX_SKIP || (cctx & SPEC_CTX_DATA_REF)) continue;
        if (cctx & SPEC_CTX_NAMES) {
            /* `properties: {$ref: ...}`: the referenced map stands in for this one */
            const spec_refent *e = spec_ref_lookup(ai, child);
            if (e) {
                if (e->status || !e->final.node || ++inlined > GRAPH_MAX_INLINED) continue;
                child = e->final.node;
                if (child->type != JT_OBJECT) continue;
            }
        }
        size_t idx;
        if (!(cctx & SPEC_CTX_NAMES) && spec_ptrmap_get(&ai->schema_by_node, child, &idx) &&
            (long)idx != self) {
            rc = sink_add(&g->sink, idx);
            continue;
        }
        if (core_array_grow(&g->st, &g->cap, n, sizeof *g->st, 64)) return APIDEX_ENOMEM;
        g->st[n++] = (gframe){child, 0, cctx};
        rc = enter_schema_node(g, child, cctx);
    }
    return rc;
}

static size_t *copy_edges(spec_api_int *ai, const edge_sink *s)
{
    if (!s->n) return NULL;
    size_t *v = core_arena_alloc(ai->arena, s->n * sizeof *v);
    if (v) memcpy(v, s->v, s->n * sizeof *v);
    return v;
}

static int walk_schema(graph_walk *g, size_t idx)
{
    spec_api_int *ai = g->ai;
    g->sink.n = 0;
    g->sink.gen++;
    const jt_node *node = ai->pub.schemas[idx].node.node;
    int rc = collect_edges(g, node, (long)idx);
    if (rc) return rc;
    spec_schema *s = &ai->pub.schemas[idx]; /* the array may have grown */
    s->n_refs = g->sink.n;
    s->refs = copy_edges(ai, &g->sink);
    return g->sink.n && !s->refs ? APIDEX_ENOMEM : 0;
}

/* One entry point of an operation (a parameter, media type or header schema). */
static int op_entry(graph_walk *g, spec_loc l)
{
    spec_api_int *ai = g->ai;
    if (!l.node) return 0;
    size_t idx;
    if (spec_ptrmap_get(&ai->schema_by_node, l.node, &idx)) return sink_add(&g->sink, idx);
    return collect_edges(g, l.node, -1);
}

static int walk_op(graph_walk *g, size_t oi)
{
    spec_api_int *ai = g->ai;
    g->sink.n = 0;
    g->sink.gen++;
    spec_operation *o = &ai->pub.ops[oi];
    int rc = 0;
    for (size_t i = 0; i < o->n_params && !rc; i++) rc = op_entry(g, o->params[i].schema);
    if (o->body)
        for (size_t i = 0; i < o->body->n_media && !rc; i++)
            rc = op_entry(g, o->body->media[i].schema);
    for (size_t r = 0; r < o->n_responses && !rc; r++) {
        const spec_response *res = &o->responses[r];
        for (size_t i = 0; i < res->n_media && !rc; i++) rc = op_entry(g, res->media[i].schema);
        const jt_node *h = res->headers.node;
        if (!rc && h && h->type == JT_OBJECT)
            for (uint32_t i = 0; i < h->len && !rc; i++) {
                spec_loc hl;
                if (spec_deref(&ai->pub, (spec_loc){h->u.members[i].value, res->headers.doc}, &hl))
                    continue;
                rc = op_entry(g, ai->pub.major == 3 ? (spec_loc){jt_get(hl.node, "schema"), hl.doc}
                                                    : hl);
            }
    }
    if (rc) return rc;
    o = &ai->pub.ops[oi];
    o->n_schemas = g->sink.n;
    o->schemas = copy_edges(ai, &g->sink);
    return g->sink.n && !o->schemas ? APIDEX_ENOMEM : 0;
}

/* ---------------------------------------------------------------- components */

static int add_components(spec_api_int *ai)
{
    spec_api *api = &ai->pub;
    spec_loc comps = api->root;
    const char *prefix;
    if (api->major == 2) {
        comps.node = jt_get(api->root.node, "definitions");
        prefix = "/definitions";
    } else {
        comps.node = jt_get(jt_get(api->root.node, "components"), "schemas");
        prefix = "/components/schemas";
    }
    if (!comps.node || comps.node->type != JT_OBJECT) return 0;
    size_t first = api->n_schemas;
    /* phase 1: every name gets its slot, in document order; inline ones their node */
    for (uint32_t i = 0; i < comps.node->len; i++) {
        const jt_member *m = &comps.node->u.members[i];
        if (name_taken(ai, m->key)) continue; /* duplicate key: the first one wins */
        core_buf b;
        core_buf_init(&b, 1 << 16);
        core_buf_puts(&b, prefix);
        jt_pointer_append(&b, m->key, m->key_len);
        const char *ptr = b.failed ? NULL : core_arena_strndup(ai->arena, b.data, b.len);
        core_buf_free(&b);
        if (!ptr) return APIDEX_ENOMEM;
        bool is_ref = spec_ref_lookup(ai, m->value) != NULL;
        spec_loc node = is_ref ? (spec_loc){0} : (spec_loc){m->value, comps.doc};
        if (schema_new(ai, node, m->key, ptr, true) < 0) return APIDEX_ENOMEM;
    }
    /* phase 2: a component that is a $ref takes its target's node, unless the target
       is already a schema (then it is an alias: its node is the $ref, one edge) */
    for (size_t i = first; i < api->n_schemas; i++) {
        spec_schema *s = &api->schemas[i];
        if (s->node.node) continue;
        const jt_node *v = jt_get(comps.node, s->name);
        const spec_refent *e = spec_ref_lookup(ai, v);
        spec_loc t = e && !e->status ? e->final : (spec_loc){0};
        if (!t.node || spec_ptrmap_get(&ai->schema_by_node, t.node, NULL))
            t = (spec_loc){v, comps.doc};
        s->node = t;
        if (!spec_ptrmap_get(&ai->schema_by_node, t.node, NULL) &&
            spec_ptrmap_put(&ai->schema_by_node, t.node, i))
            return APIDEX_ENOMEM;
    }
    return 0;
}

/* ---------------------------------------------------------------- operation ids */

static int assign_op_names(spec_api_int *ai)
{
    spec_api *api = &ai->pub;
    ai->op_nat = core_arena_calloc(ai->arena, api->n_ops + 1, sizeof *ai->op_nat);
    if (!ai->op_nat) return APIDEX_ENOMEM;
    for (size_t i = 0; i < api->n_ops; i++) {
        spec_operation *o = &api->ops[i];
        const char *mp = core_arena_printf(ai->arena, "%s %s", o->method, o->path);
        if (!mp) return APIDEX_ENOMEM;
        const char *nat = o->operation_id && *o->operation_id ? o->operation_id : mp;
        size_t prev;
        if (spec_strmap_get(&ai->op_by_nat, nat, strlen(nat), &prev)) {
            if (o->operation_id)
                spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ESPEC, o->node.doc,
                          jt_get(o->node.node, "operationId"), o->pointer,
                          "duplicate operationId '%s' (first used by %s %s); this operation is "
                          "'%s'",
                          o->operation_id, api->ops[prev].method, api->ops[prev].path, mp);
            nat = mp;
            for (unsigned k = 2; spec_strmap_get(&ai->op_by_nat, nat, strlen(nat), NULL); k++) {
                nat = core_arena_printf(ai->arena, "%s~%u", mp, k);
                if (!nat) return APIDEX_ENOMEM;
            }
        }
        ai->op_nat[i] = nat;
        if (spec_strmap_put(&ai->op_by_nat, nat, strlen(nat), i)) return APIDEX_ENOMEM;
    }
    /* "METHOD /path" finds an operation even when it has an operationId */
    for (size_t i = 0; i < api->n_ops; i++) {
        spec_operation *o = &api->ops[i];
        char *mp = core_arena_printf(ai->arena, "%s %s", o->method, o->path);
        if (!mp) return APIDEX_ENOMEM;
        if (!spec_strmap_get(&ai->op_by_nat, mp, strlen(mp), NULL) &&
            spec_strmap_put(&ai->op_by_nat, mp, strlen(mp), i))
            return APIDEX_ENOMEM;
    }
    return 0;
}

int spec_model_set_ids(spec_api_int *ai)
{
    spec_api *api = &ai->pub;
    const char *id = api->id ? api->id : ai->stem;
    for (size_t i = 0; i < api->n_ops && ai->op_nat; i++) {
        api->ops[i].id = core_arena_printf(ai->arena, "%s:%s", id, ai->op_nat[i]);
        if (!api->ops[i].id) return APIDEX_ENOMEM;
    }
    for (size_t i = 0; i < api->n_schemas; i++) {
        api->schemas[i].id = core_arena_printf(ai->arena, "%s:%s", id, api->schemas[i].name);
        if (!api->schemas[i].id) return APIDEX_ENOMEM;
    }
    return 0;
}

int spec_model_build(spec_api_int *ai)
{
    spec_api *api = &ai->pub;
    int rc = add_components(ai);
    graph_walk g = {.ai = ai};
    size_t done = 0;
    /* components first (deriving schemas for other targets as they are met), then
       operations, then whatever the operations brought in */
    while (!rc && done < api->n_schemas) rc = walk_schema(&g, done++);
    for (size_t i = 0; i < api->n_ops && !rc; i++) rc = walk_op(&g, i);
    while (!rc && done < api->n_schemas) rc = walk_schema(&g, done++);
    free(g.st);
    free(g.sink.v);
    free(g.sink.mark);
    if (!rc) rc = assign_op_names(ai);
    if (!rc) rc = spec_graph_analyse(ai);
    if (!rc) rc = spec_model_set_ids(ai);
    return rc;
}

/* ---------------------------------------------------------------- look-ups */

long spec_schema_index(const spec_api *api, spec_loc loc)
{
    if (!api || !loc.node) return -1;
    spec_loc t;
    if (spec_deref(api, loc, &t)) return -1;
    size_t idx;
    if (!spec_ptrmap_get(&spec_api_priv(api)->schema_by_node, t.node, &idx)) return -1;
    return (long)idx;
}

const spec_operation *spec_api_find_operation(const spec_api *api, const char *id)
{
    if (!api || !id || !api->id) return NULL;
    const spec_api_int *ai = spec_api_priv(api);
    size_t l = strlen(api->id);
    if (strncmp(id, api->id, l) != 0 || id[l] != ':') return NULL;
    const char *nat = id + l + 1;
    size_t idx;
    if (!spec_strmap_get(&ai->op_by_nat, nat, strlen(nat), &idx)) return NULL;
    return &api->ops[idx];
}
