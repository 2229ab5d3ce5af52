/*
 * Patching the search image's PROD section after `add` or `remove` (docs/INDEX.md, "The
 * search image"). An operation's producers depend on its own API alone: the API's producer
 * edges name two of its operations (src and dst are ordinals within the API, store_edges),
 * in the API's edge order, and each producer's ambient share counts the API's operations
 * that take the entity, over the API's operation count (engine_producers); nothing is
 * computed over the whole registry. So an API whose operation rows are the old file's
 * (same id, content hash, count, first and last rowid: add and remove keep a kept API's
 * rows and drop every row of an API that goes or changes) keeps its old records, their
 * producers moved by the shift of its first operation, and only the other APIs' rows are
 * read (their operations, inputs and producer edges) and given to engine_producers alone.
 * write_prod then writes the same bytes a build from the rows would.
 */
#include "search/image_int.h"

#include <stdlib.h>
#include <string.h>

int image_op_runs(search_engine *e, image_op_run **out, size_t *n, apidex_error *err)
{
    store_op_run *r = NULL;
    *out = NULL;
    *n = 0;
    int rc = store_op_runs(e->idx, e->arena, &r, n, err);
    if (!rc && !(*out = calloc(*n ? *n : 1, sizeof **out)))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < *n; i++) {
        long ai = store_find_api(e->idx, r[i].api);
        (*out)[i] =
            (image_op_run){.api = r[i].api,
                           .hash = ai >= 0 && (size_t)ai < e->n_apis ? e->apis[ai].content_hash : 0,
                           .first_rowid = r[i].first_rowid,
                           .last_rowid = r[i].last_rowid,
                           .n_ops = r[i].n};
    }
    free(r);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* The old PROD section, checked: every array and string in bounds, the API records in id
   order with their operations adding up. */
typedef struct old_prod {
    const image_prod *px;
    const uint64_t *starts;
    const image_pref *refs;
    const image_prod_api *apis;
    const char *pool;
    uint64_t *first; /* each API record's first operation */
} old_prod;

static bool old_prod_read(const void *old, size_t len, core_arena *arena, old_prod *o)
{
    const unsigned char *img = old;
    const image_section *s = image_section_of(old, SECTION_PROD);
    if (!s || !image_within(len, s->offset, 1, sizeof(image_prod))) return false;
    const image_prod *px = (const image_prod *)(img + s->offset);
    if (!image_within(len, px->starts, px->n_ops + 1, sizeof(uint64_t)) ||
        !image_within(len, px->refs, px->n_refs, sizeof(image_pref)) ||
        !image_within(len, px->apis, px->n_apis, sizeof(image_prod_api)) ||
        !image_within(len, px->pool, px->pool_len, 1) || !px->pool_len ||
        img[px->pool + px->pool_len - 1])
        return false;
    *o = (old_prod){.px = px,
                    .starts = (const uint64_t *)(img + px->starts),
                    .refs = (const image_pref *)(img + px->refs),
                    .apis = (const image_prod_api *)(img + px->apis),
                    .pool = core_arena_alloc(arena, px->pool_len)};
    /* the strings outlive the old image (freed before the new one is written) */
    if (!o->pool) return false;
    memcpy((char *)o->pool, img + px->pool, px->pool_len);
    if (o->starts[0] || o->starts[px->n_ops] != px->n_refs) return false;
    for (size_t i = 0; i < px->n_ops; i++)
        if (o->starts[i] > o->starts[i + 1]) return false;
    for (size_t k = 0; k < px->n_refs; k++)
        if (o->refs[k].param >= px->pool_len || o->refs[k].entity >= px->pool_len) return false;
    if (!(o->first = malloc((px->n_apis + 1) * sizeof *o->first))) return false;
    uint64_t at = 0;
    for (size_t a = 0; a < px->n_apis; a++) {
        const image_prod_api *r = &o->apis[a];
        if ((uint64_t)r->str + r->len >= px->pool_len || o->pool[r->str + r->len] ||
            r->n_ops > px->n_ops - at ||
            (a && strcmp(o->pool + o->apis[a - 1].str, o->pool + r->str) >= 0)) {
            free(o->first);
            return false;
        }
        o->first[a] = at;
        at += r->n_ops;
    }
    o->first[px->n_apis] = at;
    if (at != px->n_ops) {
        free(o->first);
        return false;
    }
    return true;
}

/* The old API record of this run when its operations are the old file's rows, or -1. */
static long kept_api(const old_prod *o, const image_op_run *r)
{
    size_t lo = 0, hi = o->px->n_apis;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const image_prod_api *a = &o->apis[mid];
        int c = strcmp(o->pool + a->str, r->api);
        if (!c)
            return a->hash == r->hash && a->n_ops == r->n_ops && a->first_rowid == r->first_rowid &&
                           a->last_rowid == r->last_rowid
                       ? (long)mid
                       : -1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* A kept API's producers, operations [at, at + n) of the new file, from old record a. */
static int keep(search_engine *e, const old_prod *o, size_t a, size_t at, bool *bad)
{
    uint64_t from = o->first[a], n = o->apis[a].n_ops;
    for (uint64_t i = 0; i < n; i++) {
        op_info *c = &e->info[at + i];
        uint64_t k0 = o->starts[from + i], k1 = o->starts[from + i + 1];
        if (k1 == k0) continue;
        if (!(c->producers = malloc((k1 - k0) * sizeof *c->producers))) return APIDEX_ENOMEM;
        for (uint64_t k = k0; k < k1; k++) {
            const image_pref *r = &o->refs[k];
            if (r->producer < from || r->producer >= from + n) { /* another API's operation */
                *bad = true;
                return 0;
            }
            c->producers[c->n_producers++] =
                (producer_ref){.producer = (uint32_t)(r->producer - from + at),
                               .features = r->features,
                               .param = o->pool + r->param,
                               .entity = o->pool + r->entity,
                               .share = r->share,
                               .api_ops = (size_t)r->api_ops};
        }
    }
    return 0;
}

/* A new or changed API's producers, operations [at, at + n) of the new file, from its own
   rows, by engine_producers on an engine of that API alone. */
static int fresh(search_engine *e, const image_op_run *r, size_t at, bool *bad, apidex_error *err)
{
    store_api_flow fl;
    int rc = store_api_flow_read(e->idx, r->api, e->arena, &fl, err);
    if (rc) return rc;
    if (fl.n_ops != r->n_ops) { /* the rows moved under us: not a file add or remove wrote */
        *bad = true;
        return 0;
    }
    size_t n = fl.n_ops, n_in = 0;
    for (size_t i = 0; i < n; i++) n_in += fl.n_fields[i];
    search_engine one = {.n_ops = n, .n_apis = 1};
    store_operation *ops = calloc(n ? n : 1, sizeof *ops);
    store_input *in = calloc(n_in ? n_in : 1, sizeof *in);
    one.info = calloc(n ? n : 1, sizeof *one.info);
    rc = ops && in && one.info ? 0 : APIDEX_ENOMEM;
    for (size_t i = 0, k = 0; !rc && i < n; i++) {
        ops[i].inputs = in + k;
        ops[i].n_inputs = fl.n_fields[i];
        for (size_t j = 0; j < fl.n_fields[i]; j++) in[k++].field = fl.fields[i][j];
    }
    one.ops = ops;
    if (!rc) rc = engine_producers(&one, fl.edges, fl.n_edges);
    for (size_t i = 0; one.info && i < n; i++) {
        op_info *c = &e->info[at + i];
        c->producers = one.info[i].producers;
        c->n_producers = one.info[i].n_producers;
        for (size_t k = 0; k < c->n_producers; k++) c->producers[k].producer += (uint32_t)at;
    }
    free(one.info);
    free(ops);
    free(in);
    return rc == APIDEX_ENOMEM ? core_error_set(err, rc, "out of memory patching the producers")
                               : rc;
}

int image_prod_patch(search_engine *e, const void *old, size_t len, const image_op_run *ops,
                     size_t n_op_runs, apidex_error *err)
{
    old_prod o;
    if (!old_prod_read(old, len, e->arena, &o)) return 1;
    size_t n_ops = 0;
    bool bad = false;
    for (size_t i = 0; i < n_op_runs && !bad; i++) {
        n_ops += ops[i].n_ops;
        /* operations of an API the index does not have: engine_producers would group them
           under another API; leave it to the build from the rows */
        bad = store_find_api(e->idx, ops[i].api) < 0 ||
              (i && strcmp(ops[i - 1].api, ops[i].api) >= 0);
    }
    int rc = 0;
    if (!bad && !(e->info = calloc(n_ops ? n_ops : 1, sizeof *e->info)))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory patching the producers");
    if (!rc && !bad) e->n_ops = n_ops;
    for (size_t i = 0, at = 0; !rc && !bad && i < n_op_runs; at += ops[i++].n_ops) {
        long a = kept_api(&o, &ops[i]), ai = store_find_api(e->idx, ops[i].api);
        for (size_t k = 0; k < ops[i].n_ops; k++) e->info[at + k].api = (uint32_t)ai;
        if (a >= 0 && keep(e, &o, (size_t)a, at, &bad))
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory patching the producers");
        else if (a < 0)
            rc = fresh(e, &ops[i], at, &bad, err);
    }
    free(o.first);
    if (!rc && !bad) return 0;
    for (size_t i = 0; e->info && i < e->n_ops; i++) free(e->info[i].producers);
    free(e->info);
    e->info = NULL;
    e->n_ops = 0;
    return rc ? rc : 1;
}
