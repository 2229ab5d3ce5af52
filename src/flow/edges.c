/* Data flow, edges: for each input, the operations producing its entity, ranked by
   structure (flow_score), the best kept. The design is in flow.c. */
#include "flow/flow_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Index of the operation "METHOD /path" named at s (same API), or -1. */
static long find_named_op(const spec_api *api, const char *s)
{
    for (size_t i = 0; i < api->n_ops; i++) {
        const spec_operation *op = &api->ops[i];
        size_t ml = strlen(op->method), pl = strlen(op->path);
        if (!strncasecmp(s, op->method, ml) && s[ml] == ' ' && !strncmp(s + ml + 1, op->path, pl)) {
            char after = s[ml + 1 + pl];
            if (!after || !(after == '/' || after == '{' || (after >= 'a' && after <= 'z') ||
                            (after >= 'A' && after <= 'Z') || after == '_' || after == '-'))
                return (long)i;
        }
    }
    return -1;
}

/* The operation a consumer's description tells to call first ("call GET /me"), or -1. */
static long hinted_op(const spec_api *api, const spec_operation *cons)
{
    static const char *const methods[] = {"GET ", "POST ", "PUT ", "DELETE ", "PATCH ", NULL};
    const char *desc = cons->description ? cons->description : "";
    for (const char *q = desc; *q; q++)
        for (const char *const *m = methods; *m; m++)
            if (!strncmp(q, *m, strlen(*m))) {
                long h = find_named_op(api, q);
                if (h >= 0) return h;
            }
    return -1;
}

double flow_score(unsigned f)
{
    static const double by_kind[8] = {0, 1.0, 1.0, 0.75, 0.5, 0.25, 0, 0};
    double s = by_kind[f & FLOW_KIND_MASK];
    if (f & FLOW_F_PATH_NAMES) s += 0.5;
    if (f & FLOW_F_TEXT_QUERY) s += 0.3;
    if (f & FLOW_F_CALLER) s += 0.5;
    if (f & FLOW_F_HINT) s += 2.0;
    if (f & FLOW_F_DEPRECATED) s -= 0.5;
    if (f & FLOW_F_CREATES) s -= 0.5;
    if (f & FLOW_F_PARENT) s += 0.5;
    s += 0.25 * (double)((f >> FLOW_F_OVERLAP_SHIFT) & 3u);
    s -= 0.25 * (double)((f >> FLOW_F_INPUTS_SHIFT) & 15u);
    return s;
}

/* A candidate producer of one entity. */
typedef struct candidate {
    size_t op;
    unsigned features;
    double score;
} candidate;

static int cmp_candidate(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->op < y->op ? -1 : x->op > y->op;
}

static int add_edge(flow_graph *df, size_t *cap, flow_edge e)
{
    if (core_array_grow(&df->edges, cap, df->n_edges, sizeof *df->edges, 64)) return APIDEX_ENOMEM;
    df->edges[df->n_edges++] = e;
    return 0;
}

/* The features of op p as a producer of ent (0 when it cannot be one). */
static unsigned producer_features(flow_ctx *d, const flow_graph *df, const output_set *outs,
                                  const flow_op_facts *facts, size_t p, const char *ent)
{
    const spec_operation *prod = &d->api->ops[p];
    const output *o = NULL;
    for (size_t k = 0; k < outs[p].n && !o; k++)
        if (!strcmp(outs[p].o[k].entity, ent)) o = &outs[p].o[k];
    if (!o || facts[p].destructive || facts[p].action == TEXT_ACTION_UPDATE) return 0;
    for (size_t k = 0; k < df->n_inputs[p]; k++) /* it needs the same entity: an echo */
        if (!strcmp(df->inputs[p][k].entity, ent)) return 0;
    unsigned f = o->kind;
    word_set pw;
    flow_path_words(d, prod->path, &pw);
    bool names = flow_set_has(&pw, ent);
    if (names) f |= FLOW_F_PATH_NAMES;
    if (facts[p].action == TEXT_ACTION_CREATE) {
        /* a creation serves only for the thing it creates: what its own path names
           ("POST /refunds" creates refunds; "POST /charges/{id}/capture" creates none of
           the things its response holds) */
        if ((o->kind != FLOW_KIND_RETURNS && o->kind != FLOW_KIND_LISTS) || !names) return 0;
        f |= FLOW_F_CREATES;
    }
    if (facts[p].text_query) f |= FLOW_F_TEXT_QUERY;
    if (df->n_inputs[p] == 0 && o->kind == FLOW_KIND_RETURNS && facts[p].mine) f |= FLOW_F_CALLER;
    if (prod->deprecated) f |= FLOW_F_DEPRECATED;
    size_t own = df->n_inputs[p] > 15 ? 15 : df->n_inputs[p];
    f |= (unsigned)own << FLOW_F_INPUTS_SHIFT;
    return f;
}

/* Is a path segment a version or a generic prefix ("v2", "2010-04-01", "api")? */
static bool generic_segment(const char *s, size_t n)
{
    bool digits = true;
    for (size_t i = 0; i < n && digits; i++) digits = (s[i] >= '0' && s[i] <= '9') || s[i] == '-';
    if (digits) return true;
    if (n >= 2 && (s[0] == 'v' || s[0] == 'V') && s[1] >= '0' && s[1] <= '9') return true;
    return n == 3 && !strncasecmp(s, "api", 3);
}

/* Literal path segments two paths share (at most 3). */
static unsigned path_overlap(const char *a, const char *b)
{
    unsigned n = 0;
    for (const char *p = a; *p && n < 3;) {
        while (*p == '/') p++;
        const char *e = p;
        while (*e && *e != '/') e++;
        size_t len = (size_t)(e - p);
        if (len && *p != '{' && !generic_segment(p, len)) {
            bool found = false;
            for (const char *q = b; *q && !found;) {
                while (*q == '/') q++;
                const char *f = q;
                while (*f && *f != '/') f++;
                found = (size_t)(f - q) == len && !strncasecmp(p, q, len);
                q = f;
            }
            n += found;
        }
        p = e;
    }
    return n;
}

/* Is prod's path the consumer's path up to the placeholder of input `name`? */
static bool parent_path(const char *consumer, const char *name, const char *prod)
{
    size_t nl = strlen(name);
    for (const char *q = strchr(consumer, '{'); q; q = strchr(q + 1, '{'))
        if (!strncmp(q + 1, name, nl) && q[1 + nl] == '}') {
            size_t len = (size_t)(q - consumer);
            while (len && consumer[len - 1] == '/') len--;
            size_t pl = strlen(prod);
            while (pl && prod[pl - 1] == '/') pl--;
            return len && pl == len && !strncmp(consumer, prod, len);
        }
    return false;
}

/* An (operation, index) pair: a producer of an entity, or an input needing it. */
typedef struct op_ref {
    size_t op, k;
} op_ref;

typedef struct ref_list {
    op_ref *r;
    size_t n, cap;
} ref_list;

static int ref_push(ref_list *l, size_t op, size_t k)
{
    if (core_array_grow(&l->r, &l->cap, l->n, sizeof *l->r, 4)) return APIDEX_ENOMEM;
    l->r[l->n++] = (op_ref){op, k};
    return 0;
}

/* The edges of one entity: its producers ranked once, the best kept for each input. */
static int entity_edges(flow_ctx *d, flow_graph *df, const output_set *outs,
                        const flow_op_facts *facts, const char *ent, const ref_list *prods,
                        const ref_list *needs, candidate *cand, candidate *view, size_t *cap)
{
    const spec_api *api = d->api;
    size_t m = 0;
    bool strong = false;
    for (size_t q = 0; q < prods->n; q++) {
        size_t p = prods->r[q].op;
        unsigned f = producer_features(d, df, outs, facts, p, ent);
        if (!f) continue;
        cand[m++] = (candidate){p, f, flow_score(f)};
        strong |= (f & FLOW_KIND_MASK) <= FLOW_KIND_SHAPE;
    }
    /* An entity that some operation returns, lists or is typed as by shape takes its
       producers from those: an id met only inside another entity's object, or as another
       object's "<entity>_id", is that other entity's, and serves only when nothing better
       exists. */
    if (strong) {
        size_t kept = 0;
        for (size_t q = 0; q < m; q++)
            if ((cand[q].features & FLOW_KIND_MASK) <= FLOW_KIND_SHAPE) cand[kept++] = cand[q];
        m = kept;
    }
    qsort(cand, m, sizeof *cand, cmp_candidate);
    int rc = 0;
    for (size_t x = 0; x < needs->n && !rc; x++) {
        size_t c = needs->r[x].op, k = needs->r[x].k;
        const spec_operation *cons = &api->ops[c];
        long hinted = hinted_op(api, cons);
        unsigned takes = df->inputs[c][k].accepts_name ? FLOW_F_TAKES_NAME : 0;
        /* this consumer's view: where each producer sits relative to its path */
        for (size_t q = 0; q < m; q++) {
            const char *pp = api->ops[cand[q].op].path;
            unsigned f = cand[q].features & ~(FLOW_F_PARENT | (3u << FLOW_F_OVERLAP_SHIFT));
            f |= path_overlap(pp, cons->path) << FLOW_F_OVERLAP_SHIFT;
            if (!strcmp(df->inputs[c][k].in, "path") &&
                parent_path(cons->path, df->inputs[c][k].name, pp))
                f |= FLOW_F_PARENT;
            if ((long)cand[q].op == hinted) f |= FLOW_F_HINT;
            view[q] = (candidate){cand[q].op, f | takes, flow_score(f)};
        }
        qsort(view, m, sizeof *view, cmp_candidate);
        size_t kept = 0;
        bool hint_kept = false;
        for (size_t q = 0; q < m && kept < FLOW_MAX_PRODUCERS && !rc; q++) {
            if (view[q].op == c) continue;
            bool hint = (view[q].features & FLOW_F_HINT) != 0;
            hint_kept |= hint;
            rc = add_edge(df, cap,
                          (flow_edge){c, k, view[q].op, view[q].score, hint, view[q].features});
            kept++;
        }
        /* the operation the description names is kept whatever its rank */
        if (!rc && hinted >= 0 && !hint_kept && (size_t)hinted != c && !facts[hinted].destructive) {
            unsigned f = producer_features(d, df, outs, facts, (size_t)hinted, ent);
            f = (f ? f : FLOW_KIND_REFERS) | FLOW_F_HINT | takes;
            rc = add_edge(df, cap, (flow_edge){c, k, (size_t)hinted, flow_score(f), true, f});
        }
    }
    return rc;
}

/* Edges: for each input, the best producers of its entity (and the one its consumer's
   description names). Producers and inputs are grouped by entity first, so the work is
   linear in the operations' inputs and outputs. */
int flow_build_edges(flow_ctx *d, flow_graph *df, const output_set *outs,
                     const flow_op_facts *facts)
{
    size_t n = d->api->n_ops, cap = 0;
    str_set ents = {.arena = d->arena};
    ref_list *prods = NULL, *needs = NULL;
    size_t n_lists = 0;
    int rc = 0;
    for (size_t c = 0; c < n && !rc; c++)
        for (size_t k = 0; k < df->n_inputs[c] && !rc; k++) {
            long e = flow_sset_add(&ents, df->inputs[c][k].entity);
            if (e < 0) {
                rc = APIDEX_ENOMEM;
                break;
            }
            if ((size_t)e >= n_lists) {
                size_t nl = ents.cap_items;
                ref_list *np = realloc(prods, nl * sizeof *np);
                if (np) prods = np;
                ref_list *nn = np ? realloc(needs, nl * sizeof *nn) : NULL;
                if (nn) needs = nn;
                if (!np || !nn) {
                    rc = APIDEX_ENOMEM;
                    break;
                }
                memset(prods + n_lists, 0, (nl - n_lists) * sizeof *prods);
                memset(needs + n_lists, 0, (nl - n_lists) * sizeof *needs);
                n_lists = nl;
            }
            rc = ref_push(&needs[e], c, k);
        }
    for (size_t p = 0; p < n && !rc; p++)
        for (size_t k = 0; k < outs[p].n && !rc; k++) {
            long e = flow_sset_find(&ents, outs[p].o[k].entity);
            if (e >= 0) rc = ref_push(&prods[e], p, k);
        }
    candidate *cand = calloc(n ? n : 1, sizeof *cand);
    candidate *view = calloc(n ? n : 1, sizeof *view);
    if (!cand || !view) rc = APIDEX_ENOMEM;
    for (size_t e = 0; e < ents.n && !rc; e++)
        rc =
            entity_edges(d, df, outs, facts, ents.items[e], &prods[e], &needs[e], cand, view, &cap);
    free(view);
    for (size_t e = 0; e < n_lists; e++) {
        free(prods[e].r);
        free(needs[e].r);
    }
    free(prods);
    free(needs);
    free(cand);
    flow_sset_free(&ents);
    return rc;
}
