/*
 * Patching the search image after `add` or `remove` (docs/INDEX.md, "The search image"):
 * the patched file keeps the rows of every API that did not change, with their rowids, in
 * their order, and writes the new or changed APIs' rows after them. So the old image's
 * postings of the kept chunks stay valid once their chunk numbers are shifted, and only
 * the new chunks' terms are read from the rows: time in the size of the image (a pass
 * over its postings) plus the change, not a rebuild from every row.
 *
 * The result is the lexical index lex_build and lex_sort_terms would make from the
 * patched file's rows, term numbers included (a term's number breaks ties, as in the typo
 * correction): lex_build numbers terms in the order of their first occurrence, by chunk,
 * then field, then position. A kept term whose first chunk is still there keeps its place
 * among the terms first seen in that chunk (their old order is their order there); a term
 * first seen in a chunk that is gone ("displaced") moves to its first remaining chunk, and
 * the order of first occurrences in each such chunk is read again from its row, as it is
 * for the new chunks. Anything unexpected (an old image of another version or strategy, a
 * kept API whose chunks moved) and the caller builds from the rows.
 */
#include "search/image_int.h"

#include <stdlib.h>
#include <string.h>

/* A term of the patched index. */
typedef struct mterm {
    const char *term;
    uint32_t len;
    int64_t old, fresh; /* its number in the old image, in the new chunks' scan; -1: none */
    uint32_t first;     /* its first chunk, new numbering */
    uint64_t sub;       /* its order among the terms first seen in that chunk */
    uint64_t n_kept;    /* postings of kept chunks */
    uint32_t kept_df;
} mterm;

static int cmp_mterm(const void *a, const void *b)
{
    const mterm *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return (x->sub > y->sub) - (x->sub < y->sub);
}

typedef struct old_api {
    const char *id;
    const image_api *r;
    size_t start; /* its first chunk in the old image */
    bool used;
} old_api;

static int cmp_old_api(const void *a, const void *b)
{
    return strcmp(((const old_api *)a)->id, ((const old_api *)b)->id);
}

static int cmp_term_str(const void *a, const void *b, void *ctx)
{
    const term_entry *t = ctx;
    return strcmp(t[*(const uint32_t *)a].term, t[*(const uint32_t *)b].term);
}

/* The file's chunks as runs of rows per API: which row chunk d is. */
typedef struct chunk_map {
    const store_chunk_run *runs;
    const size_t *start; /* each run's first chunk; [n_runs] = the chunks */
    size_t n_runs;
} chunk_map;

static int64_t rowid_of(const chunk_map *cm, size_t d)
{
    size_t lo = 0, hi = cm->n_runs;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (cm->start[mid] <= d)
            lo = mid;
        else
            hi = mid;
    }
    return cm->runs[lo].first_rowid + (int64_t)(d - cm->start[lo]);
}

/* A scratch engine over the new file's chunks docs[0..n) (ascending): their postings, their
   endpoint counts and the order each term is first seen in them. */
static int scan(const search_engine *e, const chunk_map *cm, search_engine *s, const size_t *docs,
                size_t n, apidex_error *err)
{
    *s = (search_engine){.idx = e->idx, .n_docs = e->n_docs};
    s->arena = core_arena_new(0);
    s->docs = calloc(e->n_docs ? e->n_docs : 1, sizeof *s->docs);
    int64_t *rowids = malloc((n ? n : 1) * sizeof *rowids);
    int rc = !s->arena || !s->docs || !rowids || lex_table_grow(s)
                 ? core_error_set(err, APIDEX_ENOMEM, "out of memory")
                 : 0;
    for (size_t i = 0; !rc && i < n; i++) rowids[i] = rowid_of(cm, docs[i]);
    if (!rc) rc = lex_build_of(s, rowids, docs, n, err);
    free(rowids);
    return rc;
}

static void scan_free(search_engine *s)
{
    lex_free(s);
    core_arena_free(s->arena);
}

/* The old image's APIs, sorted by id, each with its first chunk; NULL when the section
   does not hold together. */
static old_api *old_apis(const unsigned char *img, uint64_t len, const image_section *s, size_t *n,
                         size_t *n_docs, bool *use_fields)
{
    if (!image_within(len, s->offset, 1, sizeof(image_apis))) return NULL;
    const image_apis *ax = (const image_apis *)(img + s->offset);
    if (!image_within(len, ax->recs, ax->n_apis, sizeof(image_api)) ||
        !image_within(len, ax->pool, ax->pool_len, 1))
        return NULL;
    const image_api *r = (const image_api *)(img + ax->recs);
    const char *pool = (const char *)(img + ax->pool);
    old_api *a = calloc(ax->n_apis ? ax->n_apis : 1, sizeof *a);
    if (!a) return NULL;
    size_t start = 0;
    for (size_t i = 0; i < ax->n_apis; i++) {
        if ((uint64_t)r[i].str + r[i].len >= ax->pool_len || pool[r[i].str + r[i].len] ||
            r[i].n_docs > ax->n_docs - start) {
            free(a);
            return NULL;
        }
        if (r[i].n_ranked > r[i].n_docs) {
            free(a);
            return NULL;
        }
        a[i] = (old_api){.id = pool + r[i].str, .r = &r[i], .start = start};
        start += r[i].n_docs;
    }
    if (start != ax->n_docs) {
        free(a);
        return NULL;
    }
    qsort(a, ax->n_apis, sizeof *a, cmp_old_api);
    *n = ax->n_apis;
    *n_docs = ax->n_docs;
    *use_fields = ax->use_fields;
    return a;
}

/* omap[old chunk] = new chunk (UINT32_MAX: gone), inv[new chunk] = old chunk for the kept
   ones, runs[] with the kept runs' ranked counts; *fresh_base: the first new chunk not kept
   (all after it are new). false: the kept chunks are not a prefix in their old order, or
   an API's rows are not consecutive (not a file add or remove patched). */
static bool map_chunks(const search_engine *e, const chunk_map *cm, old_api *oa, size_t n_oa,
                       uint32_t *omap, uint32_t *inv, image_run *runs, size_t *fresh_base)
{
    size_t base = e->n_docs, last_start = 0;
    bool any = false;
    for (size_t i = 0; i < cm->n_runs; i++) {
        const store_chunk_run *cr = &cm->runs[i];
        if (cr->last_rowid - cr->first_rowid + 1 != (int64_t)cr->n ||
            (i && cr->first_rowid <= cm->runs[i - 1].last_rowid))
            return false;
        long ai = store_find_api(e->idx, cr->api);
        uint64_t hash = ai >= 0 && (size_t)ai < e->n_apis ? e->apis[ai].content_hash : 0;
        runs[i] = (image_run){.api = cr->api,
                              .hash = hash,
                              .first_rowid = cr->first_rowid,
                              .last_rowid = cr->last_rowid,
                              .n_docs = cr->n};
        old_api key = {.id = cr->api};
        old_api *o = bsearch(&key, oa, n_oa, sizeof *oa, cmp_old_api);
        bool kept = o && !o->used && ai >= 0 && o->r->hash == hash && o->r->n_docs == cr->n &&
                    o->r->first_rowid == cr->first_rowid && o->r->last_rowid == cr->last_rowid &&
                    (!any || o->start > last_start);
        size_t d = cm->start[i];
        if (kept) {
            if (base < e->n_docs) return false; /* a kept API after a new one */
            o->used = any = true;
            last_start = o->start;
            runs[i].n_ranked = o->r->n_ranked;
            for (size_t k = 0; k < cr->n; k++) {
                omap[o->start + k] = (uint32_t)(d + k);
                inv[d + k] = (uint32_t)(o->start + k);
            }
        } else if (base == e->n_docs) {
            base = d;
        }
    }
    *fresh_base = base;
    return true;
}

/* The merged terms in lex_build's order; NULL on no memory. *bad: an inconsistency. */
static mterm *merge_terms(const search_engine *e, const chunk_map *cm, const search_engine *o,
                          const search_engine *f, const uint32_t *omap, size_t fresh_base,
                          size_t *n_out, apidex_error *err, bool *bad)
{
    size_t cap = o->n_terms + f->n_terms;
    mterm *m = malloc((cap ? cap : 1) * sizeof *m);
    int64_t *fr_of_old = malloc((o->n_terms ? o->n_terms : 1) * sizeof *fr_of_old);
    bool *fresh_linked = calloc(f->n_terms ? f->n_terms : 1, 1);
    bool *in_r = calloc(e->n_docs ? e->n_docs : 1, 1);
    size_t *r_docs = NULL, n = 0, n_r = 0;
    search_engine r = {0};
    int rc = m && fr_of_old && fresh_linked && in_r ? 0 : APIDEX_ENOMEM;
    for (size_t t = 0; !rc && t < o->n_terms; t++) fr_of_old[t] = -1;
    for (size_t u = 0; !rc && u < f->n_terms; u++) {
        long ot = lex_term_find(o, f->terms[u].term, f->terms[u].len);
        if (ot >= 0) {
            fr_of_old[ot] = (int64_t)u;
            fresh_linked[u] = true;
        }
    }
    for (size_t t = 0; !rc && t < o->n_terms; t++) {
        const term_entry *te = &o->terms[t];
        mterm x = {.term = te->term, .len = te->len, .old = (int64_t)t, .fresh = fr_of_old[t]};
        uint32_t last = UINT32_MAX;
        for (size_t p = 0; p < te->n_post; p++) {
            uint32_t nd = omap[te->post[p].doc];
            if (nd == UINT32_MAX) continue;
            if (!x.n_kept) x.first = nd;
            x.n_kept++;
            if (nd != last) x.kept_df++;
            last = nd;
        }
        if (!x.n_kept && x.fresh < 0) continue;
        if (!x.n_kept) x.first = f->terms[x.fresh].post[0].doc;
        x.sub = (uint64_t)t;
        if (x.n_kept && omap[te->post[0].doc] == UINT32_MAX && !in_r[x.first]) { /* displaced */
            in_r[x.first] = true;
            n_r++;
        }
        m[n++] = x;
    }
    for (size_t u = 0; !rc && u < f->n_terms; u++)
        if (!fresh_linked[u])
            m[n++] = (mterm){.term = f->terms[u].term,
                             .len = f->terms[u].len,
                             .old = -1,
                             .fresh = (int64_t)u,
                             .first = f->terms[u].post[0].doc};
    /* the order of first occurrences in the chunks displaced terms moved to, from their rows */
    if (!rc && n_r) {
        r_docs = malloc(n_r * sizeof *r_docs);
        if (!r_docs) rc = APIDEX_ENOMEM;
        for (size_t d = 0, k = 0; !rc && d < e->n_docs; d++)
            if (in_r[d]) r_docs[k++] = d;
        if (!rc) rc = scan(e, cm, &r, r_docs, n_r, err);
    }
    for (size_t i = 0; !rc && i < n; i++) {
        mterm *x = &m[i];
        if (x->first >= fresh_base) {
            if (x->fresh < 0) *bad = true;
            x->sub = (uint64_t)x->fresh;
        } else if (in_r[x->first]) {
            long s = lex_term_find(&r, x->term, x->len);
            if (s < 0) *bad = true;
            x->sub = (uint64_t)s;
        }
    }
    if (!rc) qsort(m, n, sizeof *m, cmp_mterm);
    if (n_r) scan_free(&r);
    free(r_docs);
    free(in_r);
    free(fresh_linked);
    free(fr_of_old);
    if (rc || *bad) {
        free(m);
        if (rc) core_error_set(err, rc, "out of memory patching the search image");
        return NULL;
    }
    *n_out = n;
    return m;
}

/* e's terms from the merged ones, in one buffer: postings, table, byte order, strings. */
static int place(search_engine *e, const search_engine *o, const search_engine *f,
                 const uint32_t *omap, const mterm *m, size_t n)
{
    size_t n_post = 0, pool = 0, size = 4096;
    for (size_t i = 0; i < n; i++) {
        n_post += m[i].n_kept + (m[i].fresh >= 0 ? f->terms[m[i].fresh].n_post : 0);
        pool += m[i].len + 1;
    }
    while (n * 2 > size) size *= 2; /* the table lex_build's growth leaves */
    char *buf = malloc(n_post * sizeof(posting) + (size + n) * sizeof(uint32_t) + pool + 8);
    e->terms = calloc(n ? n : 1, sizeof *e->terms);
    if (!buf || !e->terms) {
        free(buf);
        return APIDEX_ENOMEM;
    }
    e->image = buf;
    posting *post = (posting *)buf;
    e->table = (uint32_t *)(post + n_post);
    e->table_size = size;
    e->sorted = e->table + size;
    char *str = (char *)(e->sorted + n);
    memset(e->table, 0, size * sizeof *e->table);
    for (size_t i = 0; i < n; i++) {
        const mterm *x = &m[i];
        term_entry *t = &e->terms[i];
        memcpy(str, x->term, x->len + 1);
        *t = (term_entry){.term = str, .len = x->len, .df = x->kept_df, .post = post};
        str += x->len + 1;
        if (x->old >= 0)
            for (size_t p = 0; p < o->terms[x->old].n_post; p++) {
                posting ps = o->terms[x->old].post[p];
                if (omap[ps.doc] == UINT32_MAX) continue;
                ps.doc = omap[ps.doc];
                t->post[t->n_post++] = ps;
            }
        if (x->fresh >= 0) {
            const term_entry *ft = &f->terms[x->fresh];
            memcpy(t->post + t->n_post, ft->post, ft->n_post * sizeof *ft->post);
            t->n_post += ft->n_post;
            t->df += ft->df;
        }
        post += t->n_post;
        size_t h = core_hash64(t->term, t->len) & (size - 1);
        while (e->table[h]) h = (h + 1) & (size - 1);
        e->table[h] = (uint32_t)i + 1;
    }
    e->n_terms = e->cap_terms = n;
    return 0;
}

/* e->sorted: the old terms in their old byte order merged with the new terms sorted. */
static int order(search_engine *e, const search_engine *o, const mterm *m)
{
    size_t n = e->n_terms, n_new = 0, n_old = 0;
    int64_t *new_of_old = malloc((o->n_terms ? o->n_terms : 1) * sizeof *new_of_old);
    uint32_t *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    if (!new_of_old || !a || !b) {
        free(new_of_old);
        free(a);
        free(b);
        return APIDEX_ENOMEM;
    }
    for (size_t t = 0; t < o->n_terms; t++) new_of_old[t] = -1;
    for (size_t i = 0; i < n; i++)
        if (m[i].old >= 0)
            new_of_old[m[i].old] = (int64_t)i;
        else
            b[n_new++] = (uint32_t)i;
    for (size_t i = 0; i < o->n_terms; i++)
        if (new_of_old[o->sorted[i]] >= 0) a[n_old++] = (uint32_t)new_of_old[o->sorted[i]];
    qsort_r(b, n_new, sizeof *b, cmp_term_str, e->terms);
    for (size_t i = 0, j = 0, k = 0; k < n; k++)
        e->sorted[k] =
            j == n_new || (i < n_old && strcmp(e->terms[a[i]].term, e->terms[b[j]].term) < 0)
                ? a[i++]
                : b[j++];
    free(new_of_old);
    free(a);
    free(b);
    return 0;
}

int image_patch(search_engine *e, const void *old, size_t len, image_run **runs_out, size_t *n_runs,
                apidex_error *err)
{
    const image_section *lex = NULL, *apis = NULL;
    if (image_check(old, len, 0, &lex, &apis) || !apis) return 1;
    size_t n_oa = 0, old_docs = 0;
    bool use_fields = false;
    old_api *oa = old_apis(old, len, apis, &n_oa, &old_docs, &use_fields);
    if (!oa) return 1;
    search_engine o = {.n_docs = old_docs}, f = {0};
    store_chunk_run *cr = NULL;
    size_t n_cr = 0, *start = NULL, *fresh = NULL, fresh_base = 0, n = 0;
    image_run *runs = NULL;
    uint32_t *omap = NULL, *inv = NULL;
    mterm *m = NULL;
    bool bad = use_fields != lex_use_fields(e);
    int rc = bad ? 0 : store_chunk_runs(e->idx, e->arena, &cr, &n_cr, err);
    if (!rc && !bad) {
        start = malloc((n_cr + 1) * sizeof *start);
        runs = malloc((n_cr ? n_cr : 1) * sizeof *runs);
        o.docs = calloc(old_docs ? old_docs : 1, sizeof *o.docs);
        omap = malloc((old_docs ? old_docs : 1) * sizeof *omap);
        if (!start || !runs || !o.docs || !omap) rc = APIDEX_ENOMEM;
    }
    if (!rc && !bad) {
        start[0] = 0;
        for (size_t i = 0; i < n_cr; i++) start[i + 1] = start[i] + cr[i].n;
        e->n_docs = start[n_cr];
        e->docs = calloc(e->n_docs ? e->n_docs : 1, sizeof *e->docs);
        inv = malloc((e->n_docs ? e->n_docs : 1) * sizeof *inv);
        if (!e->docs || !inv) rc = APIDEX_ENOMEM;
    }
    chunk_map cm = {.runs = cr, .start = start, .n_runs = n_cr};
    if (!rc && !bad) {
        for (size_t d = 0; d < old_docs; d++) omap[d] = UINT32_MAX;
        bad = image_use_lex(&o, old, len, lex) || !image_postings_all_ok(&o) ||
              !map_chunks(e, &cm, oa, n_oa, omap, inv, runs, &fresh_base);
    }
    if (!rc && !bad) {
        fresh = malloc((e->n_docs - fresh_base + 1) * sizeof *fresh);
        if (!fresh) rc = APIDEX_ENOMEM;
        for (size_t d = fresh_base; !rc && d < e->n_docs; d++) fresh[d - fresh_base] = d;
        if (!rc) rc = scan(e, &cm, &f, fresh, e->n_docs - fresh_base, err);
    }
    if (!rc && !bad) {
        m = merge_terms(e, &cm, &o, &f, omap, fresh_base, &n, err, &bad);
        if (!m && !bad) rc = APIDEX_ENOMEM;
    }
    if (!rc && !bad && (place(e, &o, &f, omap, m, n) || order(e, &o, m))) rc = APIDEX_ENOMEM;
    if (!rc && !bad) {
        /* field lengths, their means and the ranked chunks, as lex_build sums them */
        const image_lex *lx = (const image_lex *)((const unsigned char *)old + lex->offset);
        const uint32_t *lens = (const uint32_t *)((const unsigned char *)old + lx->doc_len);
        double total[STORE_FIELD_COUNT] = {0};
        size_t with[STORE_FIELD_COUNT] = {0};
        for (size_t i = 0; i < n_cr; i++) {
            for (size_t d = start[i]; d < start[i + 1] && d >= fresh_base; d++)
                runs[i].n_ranked += f.docs[d].n_ops > 0;
            e->n_ranked += runs[i].n_ranked;
        }
        for (size_t d = 0; d < e->n_docs; d++) {
            uint32_t *fl = e->docs[d].field_len;
            memcpy(fl,
                   d < fresh_base ? lens + (size_t)inv[d] * STORE_FIELD_COUNT : f.docs[d].field_len,
                   sizeof e->docs[d].field_len);
            for (int k = 0; k < STORE_FIELD_COUNT; k++)
                if (fl[k]) {
                    total[k] += fl[k];
                    with[k]++;
                }
        }
        for (int k = 0; k < STORE_FIELD_COUNT; k++)
            e->avg_len[k] = with[k] ? total[k] / (double)with[k] : 0;
    }
    if (f.arena) scan_free(&f);
    free(m);
    free(fresh);
    free(inv);
    free(omap);
    free(o.terms);
    free(o.post_state);
    free(o.docs);
    free(oa);
    free(start);
    free(cr);
    if (rc == APIDEX_ENOMEM) core_error_set(err, rc, "out of memory patching the search image");
    if (rc || bad) { /* e goes back as it was: built from the rows */
        free(runs);
        free(e->docs);
        e->docs = NULL;
        e->n_docs = 0;
        e->n_ranked = 0;
        return rc ? rc : 1;
    }
    *runs_out = runs;
    *n_runs = n_cr;
    return 0;
}
