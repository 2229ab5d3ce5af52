/*
 * Analysis of the finished schema graph: the cycle count, which schemas lie on
 * a cycle, and how many operations use each schema. All iterative, linear in
 * the graph except used-by (operations/64 words per edge).
 *
 * The cycle count is the number of back edges of a depth-first search that
 * starts from each schema in index order (components in document order, then
 * derived schemas) and follows edges in the order they were found. It is the
 * number of edges one must cut to make the graph acyclic along that search,
 * counts a self-reference as one, and is how MANIFEST.json counts
 * schema_cycles (it agrees exactly on the corpus except where the count
 * depends on the search order, see the corpus test).
 */
#include "oas/oas_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct dfs_frame {
    size_t v, next;
} dfs_frame;

static size_t count_back_edges(const spec_api *api, uint8_t *color, dfs_frame *st)
{
    size_t n = api->n_schemas, back = 0;
    memset(color, 0, n);
    for (size_t s = 0; s < n; s++) {
        if (color[s]) continue;
        size_t top = 0;
        st[top++] = (dfs_frame){s, 0};
        color[s] = 1;
        while (top) {
            dfs_frame *f = &st[top - 1];
            const spec_schema *sc = &api->schemas[f->v];
            if (f->next >= sc->n_refs) {
                color[f->v] = 2;
                top--;
                continue;
            }
            size_t w = sc->refs[f->next++];
            if (color[w] == 1)
                back++;
            else if (color[w] == 0) {
                color[w] = 1;
                st[top++] = (dfs_frame){w, 0};
            }
        }
    }
    return back;
}

/* Tarjan's strongly connected components, iteratively. comp[v] numbers components in the
   order they complete, which is a reverse topological order of the condensed graph. */
static size_t tarjan(const spec_api *api, size_t *comp, size_t *index, size_t *low, size_t *stack,
                     uint8_t *on_stack, dfs_frame *st)
{
    size_t n = api->n_schemas, counter = 0, sp = 0, ncomp = 0;
    const size_t none = SIZE_MAX;
    for (size_t v = 0; v < n; v++) index[v] = none;
    for (size_t s = 0; s < n; s++) {
        if (index[s] != none) continue;
        size_t top = 0;
        st[top++] = (dfs_frame){s, 0};
        index[s] = low[s] = counter++;
        stack[sp++] = s;
        on_stack[s] = 1;
        while (top) {
            dfs_frame *f = &st[top - 1];
            size_t v = f->v;
            const spec_schema *sc = &api->schemas[v];
            if (f->next < sc->n_refs) {
                size_t w = sc->refs[f->next++];
                if (index[w] == none) {
                    index[w] = low[w] = counter++;
                    stack[sp++] = w;
                    on_stack[w] = 1;
                    st[top++] = (dfs_frame){w, 0};
                } else if (on_stack[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            if (low[v] == index[v]) {
                size_t w;
                do {
                    w = stack[--sp];
                    on_stack[w] = 0;
                    comp[w] = ncomp;
                } while (w != v);
                ncomp++;
            }
            top--;
            if (top) {
                size_t u = st[top - 1].v;
                if (low[v] < low[u]) low[u] = low[v];
            }
        }
    }
    return ncomp;
}

/* used_by: operations reaching each schema, by propagating operation bit sets along the
   condensed graph in topological order, a batch of 64 * W operations at a time. */
static int count_used_by(spec_api *api, const size_t *comp, size_t ncomp)
{
    size_t n = api->n_schemas, nops = api->n_ops;
    if (!n || !nops) return 0;
    /* members of each component, grouped (counting sort) */
    size_t *start = calloc(ncomp + 1, sizeof *start);
    size_t *members = malloc(n * sizeof *members);
    if (!start || !members) {
        free(start);
        free(members);
        return APIDEX_ENOMEM;
    }
    for (size_t v = 0; v < n; v++) start[comp[v] + 1]++;
    for (size_t c = 0; c < ncomp; c++) start[c + 1] += start[c];
    size_t *fill = malloc((ncomp + 1) * sizeof *fill);
    if (!fill) {
        free(start);
        free(members);
        return APIDEX_ENOMEM;
    }
    memcpy(fill, start, (ncomp + 1) * sizeof *fill);
    for (size_t v = 0; v < n; v++) members[fill[comp[v]]++] = v;
    free(fill);
    size_t words_total = (nops + 63) / 64;
    size_t w = words_total;
    size_t budget = (size_t)32 << 20; /* bytes of bit sets at a time */
    if (ncomp * w * 8 > budget) w = budget / (ncomp * 8) ? budget / (ncomp * 8) : 1;
    uint64_t *bits = malloc(ncomp * w * sizeof *bits);
    if (!bits) {
        free(start);
        free(members);
        return APIDEX_ENOMEM;
    }
    for (size_t v = 0; v < n; v++) api->schemas[v].used_by = 0;
    for (size_t base = 0; base < words_total; base += w) {
        size_t ww = words_total - base < w ? words_total - base : w;
        memset(bits, 0, ncomp * w * sizeof *bits);
        size_t op_lo = base * 64, op_hi = (base + ww) * 64;
        if (op_hi > nops) op_hi = nops;
        for (size_t o = op_lo; o < op_hi; o++) {
            const spec_operation *op = &api->ops[o];
            size_t bit = o - op_lo;
            for (size_t k = 0; k < op->n_schemas; k++)
                bits[comp[op->schemas[k]] * w + bit / 64] |= (uint64_t)1 << (bit % 64);
        }
        /* higher component numbers come first in topological order */
        for (size_t c = ncomp; c-- > 0;) {
            const uint64_t *src = bits + c * w;
            for (size_t m = start[c]; m < start[c + 1]; m++) {
                const spec_schema *s = &api->schemas[members[m]];
                for (size_t k = 0; k < s->n_refs; k++) {
                    size_t d = comp[s->refs[k]];
                    if (d == c) continue;
                    uint64_t *dst = bits + d * w;
                    for (size_t x = 0; x < ww; x++) dst[x] |= src[x];
                }
            }
        }
        for (size_t v = 0; v < n; v++) {
            const uint64_t *b = bits + comp[v] * w;
            unsigned cnt = 0;
            for (size_t x = 0; x < ww; x++) cnt += (unsigned)__builtin_popcountll(b[x]);
            api->schemas[v].used_by += cnt;
        }
    }
    free(bits);
    free(start);
    free(members);
    return 0;
}

int spec_graph_analyse(spec_api_int *ai)
{
    spec_api *api = &ai->pub;
    size_t n = api->n_schemas;
    api->n_cycles = 0;
    if (!n) return 0;
    uint8_t *color = malloc(n);
    dfs_frame *st = malloc(n * sizeof *st);
    size_t *comp = malloc(n * sizeof *comp), *index = malloc(n * sizeof *index);
    size_t *low = malloc(n * sizeof *low), *stack = malloc(n * sizeof *stack);
    uint8_t *on_stack = calloc(n, 1);
    size_t *size = NULL;
    int rc = APIDEX_ENOMEM;
    if (!color || !st || !comp || !index || !low || !stack || !on_stack) goto out;
    api->n_cycles = count_back_edges(api, color, st);
    size_t ncomp = tarjan(api, comp, index, low, stack, on_stack, st);
    size = calloc(ncomp, sizeof *size);
    if (!size) goto out;
    for (size_t v = 0; v < n; v++) size[comp[v]]++;
    for (size_t v = 0; v < n; v++) {
        spec_schema *s = &api->schemas[v];
        s->in_cycle = size[comp[v]] > 1;
        for (size_t k = 0; k < s->n_refs && !s->in_cycle; k++) s->in_cycle = s->refs[k] == v;
    }
    rc = count_used_by(api, comp, ncomp);
out:
    free(color);
    free(st);
    free(comp);
    free(index);
    free(low);
    free(stack);
    free(on_stack);
    free(size);
    return rc;
}
