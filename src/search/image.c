/*
 * The search image (docs/INDEX.md, "The search image"): what opening the engine would
 * otherwise rebuild from the index's rows, built once at the end of every build and
 * stored in the index (src/store/image.c keeps the bytes), then used in place.
 *
 * Layout (little-endian, native sizes; every offset from the image's first byte, every
 * array 8-byte aligned): a header (magic, format version, the index's build id, the
 * payload's length and its XXH3-64 checksum), a directory of sections, then the
 * sections. Section LEX holds the lexical index exactly as lex_build leaves it: per
 * chunk its field lengths, per term its string (in a pool), df and postings (one array
 * of fixed 8-byte records, each term's run sorted by chunk), the open-addressing term
 * table and the terms in byte order. Readers check the magic, version, byte order,
 * build id, checksum and every offset, then point the engine's arrays into the buffer:
 * postings, table and order are not copied; per term only its pointers are set.
 * Anything wrong and the engine is built from the rows as before, with a one-line note.
 */
#include "search/image_int.h"

#include "build/build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

const char image_magic[8] = {'A', 'P', 'D', 'X', 'I', 'M', 'G', 0};

/* ---------------------------------------------------------------- writing */

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static int put(core_buf *b, const void *p, size_t n)
{
    if (core_buf_append(b, p, n)) return APIDEX_ENOMEM;
    static const char zero[8];
    return core_buf_append(b, zero, align8(b->len) - b->len) ? APIDEX_ENOMEM : 0;
}

int image_put(core_buf *b, const void *p, size_t n)
{
    return put(b, p, n);
}

static int write_lex(const search_engine *e, core_buf *b, size_t at)
{
    image_lex lx = {.n_docs = e->n_docs,
                    .n_ranked = e->n_ranked,
                    .n_terms = e->n_terms,
                    .table_size = e->table_size,
                    .field_count = STORE_FIELD_COUNT,
                    .posting_size = sizeof(posting)};
    memcpy(lx.avg_len, e->avg_len, sizeof lx.avg_len);
    for (size_t t = 0; t < e->n_terms; t++) {
        lx.n_postings += e->terms[t].n_post;
        lx.pool_len += e->terms[t].len + 1;
    }
    size_t off = at + align8(sizeof lx);
    lx.doc_len = off;
    off += align8(e->n_docs * STORE_FIELD_COUNT * sizeof(uint32_t));
    lx.terms = off;
    off += e->n_terms * sizeof(image_term);
    lx.postings = off;
    off += lx.n_postings * sizeof(posting);
    lx.table = off;
    off += align8(e->table_size * sizeof(uint32_t));
    lx.sorted = off;
    off += align8(e->n_terms * sizeof(uint32_t));
    lx.pool = off;
    if (lx.pool_len > UINT32_MAX) return APIDEX_ELIMIT; /* a term's string offset is a u32 */
    int rc = put(b, &lx, sizeof lx);
    for (size_t d = 0; d < e->n_docs && !rc; d++)
        rc = core_buf_append(b, e->docs[d].field_len, sizeof e->docs[d].field_len);
    if (!rc) rc = put(b, "", 0);
    for (size_t t = 0, post = 0, str = 0; t < e->n_terms && !rc; t++) {
        const term_entry *te = &e->terms[t];
        image_term it = {
            .str = (uint32_t)str, .len = te->len, .df = te->df, .post = post, .n_post = te->n_post};
        rc = put(b, &it, sizeof it);
        post += te->n_post;
        str += te->len + 1;
    }
    for (size_t t = 0; t < e->n_terms && !rc; t++)
        if (e->terms[t].n_post)
            rc = core_buf_append(b, e->terms[t].post, e->terms[t].n_post * sizeof(posting));
    if (!rc) rc = put(b, e->table, e->table_size * sizeof(uint32_t));
    if (!rc) rc = put(b, e->sorted, e->n_terms * sizeof(uint32_t));
    for (size_t t = 0; t < e->n_terms && !rc; t++)
        rc = core_buf_append(b, e->terms[t].term, e->terms[t].len + 1);
    if (!rc) rc = put(b, "", 0);
    if (!rc && b->len != align8(lx.pool + lx.pool_len)) rc = APIDEX_EINVAL; /* layout slip */
    return rc;
}

/* The APIs in chunk order with their runs of chunks (section APIS). */
static int write_apis(const search_engine *e, const image_run *runs, size_t n_runs, core_buf *b,
                      size_t at)
{
    image_apis ax = {
        .n_apis = n_runs, .n_docs = e->n_docs, .use_fields = lex_use_fields((search_engine *)e)};
    for (size_t i = 0; i < n_runs; i++) ax.pool_len += strlen(runs[i].api) + 1;
    ax.recs = at + align8(sizeof ax);
    ax.pool = ax.recs + n_runs * sizeof(image_api);
    int rc = put(b, &ax, sizeof ax);
    for (size_t i = 0, str = 0; i < n_runs && !rc; i++) {
        size_t len = strlen(runs[i].api);
        image_api r = {.str = (uint32_t)str,
                       .len = (uint32_t)len,
                       .hash = runs[i].hash,
                       .first_rowid = runs[i].first_rowid,
                       .last_rowid = runs[i].last_rowid,
                       .n_docs = runs[i].n_docs,
                       .n_ranked = runs[i].n_ranked};
        rc = put(b, &r, sizeof r);
        str += len + 1;
    }
    for (size_t i = 0; i < n_runs && !rc; i++)
        rc = core_buf_append(b, runs[i].api, strlen(runs[i].api) + 1);
    if (!rc) rc = put(b, "", 0);
    if (!rc && b->len != align8(ax.pool + ax.pool_len)) rc = APIDEX_EINVAL; /* layout slip */
    return rc;
}

/* The runs of chunks of an engine built from the rows (lex_docs). */
static image_run *runs_of_chunks(const search_engine *e, size_t *n_runs)
{
    image_run *runs = malloc((e->n_docs ? e->n_docs : 1) * sizeof *runs);
    if (!runs) return NULL;
    size_t n = 0;
    for (size_t d = 0; d < e->n_docs;) {
        size_t end = d + 1, ai = e->chunks[d].api_index, ranked = 0;
        while (end < e->n_docs && e->chunks[end].api_index == ai) end++;
        for (size_t k = d; k < end; k++) ranked += e->docs[k].n_ops > 0;
        runs[n++] = (image_run){.api = e->chunks[d].api,
                                .hash = ai < e->n_apis ? e->apis[ai].content_hash : 0,
                                .first_rowid = store_chunk_rowid(e->idx, d),
                                .last_rowid = store_chunk_rowid(e->idx, end - 1),
                                .n_docs = end - d,
                                .n_ranked = ranked};
        d = end;
    }
    *n_runs = n;
    return runs;
}

static int pool_grow(image_strpool *p)
{
    size_t size = p->size ? p->size * 2 : 4096;
    uint32_t *t = calloc(size, sizeof *t);
    if (!t) return APIDEX_ENOMEM;
    for (size_t i = 0; i < p->size; i++)
        if (p->slot[i]) {
            const char *s = p->b.data + p->slot[i] - 1;
            size_t h = core_hash64(s, strlen(s)) & (size - 1);
            while (t[h]) h = (h + 1) & (size - 1);
            t[h] = p->slot[i];
        }
    free(p->slot);
    p->slot = t;
    p->size = size;
    return 0;
}

void image_pool_free(image_strpool *p)
{
    free(p->slot);
    core_buf_free(&p->b);
}

int image_pool_add(image_strpool *p, const char *s, uint32_t *off)
{
    if ((p->n + 1) * 2 > p->size && pool_grow(p)) return APIDEX_ENOMEM;
    size_t len = strlen(s), h = core_hash64(s, len) & (p->size - 1);
    for (; p->slot[h]; h = (h + 1) & (p->size - 1))
        if (!strcmp(p->b.data + p->slot[h] - 1, s)) {
            *off = p->slot[h] - 1;
            return 0;
        }
    if (p->b.len + len + 1 >= UINT32_MAX) return APIDEX_ENOMEM;
    *off = (uint32_t)p->b.len;
    if (core_buf_append(&p->b, s, len + 1)) return APIDEX_ENOMEM;
    p->slot[h] = *off + 1;
    p->n++;
    return 0;
}

/* Every operation's producers and the APIs' runs of operations (section PROD). */
static int write_prod(const search_engine *e, const image_op_run *ops, size_t n_op_runs,
                      core_buf *b, size_t at)
{
    image_prod px = {.n_ops = e->n_ops, .n_apis = n_op_runs};
    for (size_t i = 0; i < e->n_ops; i++) px.n_refs += e->info[i].n_producers;
    image_strpool sp = {0};
    core_buf_init(&sp.b, 0);
    image_pref *refs = malloc((px.n_refs ? px.n_refs : 1) * sizeof *refs);
    uint64_t *starts = malloc((e->n_ops + 1) * sizeof *starts);
    image_prod_api *apis = calloc(n_op_runs ? n_op_runs : 1, sizeof *apis);
    int rc = refs && starts && apis ? 0 : APIDEX_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < e->n_ops && !rc; i++) {
        starts[i] = k;
        for (size_t j = 0; j < e->info[i].n_producers && !rc; j++, k++) {
            const producer_ref *r = &e->info[i].producers[j];
            refs[k] = (image_pref){.producer = r->producer,
                                   .features = r->features,
                                   .share = r->share,
                                   .api_ops = r->api_ops};
            rc = image_pool_add(&sp, r->param, &refs[k].param);
            if (!rc) rc = image_pool_add(&sp, r->entity, &refs[k].entity);
        }
    }
    for (size_t i = 0; i < n_op_runs && !rc; i++) {
        apis[i] = (image_prod_api){.len = (uint32_t)strlen(ops[i].api),
                                   .hash = ops[i].hash,
                                   .first_rowid = ops[i].first_rowid,
                                   .last_rowid = ops[i].last_rowid,
                                   .n_ops = ops[i].n_ops};
        rc = image_pool_add(&sp, ops[i].api, &apis[i].str);
    }
    if (!rc) {
        starts[e->n_ops] = k;
        px.pool_len = sp.b.len;
        px.starts = at + align8(sizeof px);
        px.refs = px.starts + (e->n_ops + 1) * sizeof *starts;
        px.apis = px.refs + px.n_refs * sizeof *refs;
        px.pool = px.apis + n_op_runs * sizeof *apis;
        rc = put(b, &px, sizeof px);
    }
    if (!rc) rc = put(b, starts, (e->n_ops + 1) * sizeof *starts);
    if (!rc) rc = put(b, refs, px.n_refs * sizeof *refs);
    if (!rc) rc = put(b, apis, n_op_runs * sizeof *apis);
    if (!rc) rc = put(b, sp.b.data ? sp.b.data : "", sp.b.len);
    if (!rc && b->len != align8(px.pool + px.pool_len)) rc = APIDEX_EINVAL; /* layout slip */
    free(refs);
    free(starts);
    free(apis);
    image_pool_free(&sp);
    return rc;
}

enum { N_SECTIONS = 5 };

int image_encode(const search_engine *e, const image_run *runs, size_t n_runs,
                 const image_op_run *ops, size_t n_op_runs, uint64_t build_id, core_buf *out)
{
    if (out->len) return APIDEX_EINVAL; /* offsets are from the buffer's first byte */
    /* PROD only with the producers (image_build always has them; an image without them
       is read with the producers built from the rows); its entry is always there (kind 0
       when absent), so the other sections' offsets are the same either way */
    size_t n_sections = N_SECTIONS;
    image_header h = {.version = IMAGE_VERSION,
                      .endian = IMAGE_ENDIAN,
                      .build_id = build_id,
                      .n_sections = (uint32_t)n_sections};
    memcpy(h.magic, image_magic, sizeof h.magic);
    image_section dir[N_SECTIONS] = {
        {.kind = SECTION_LEX},
        {.kind = SECTION_APIS},
        {.kind = e->info ? SECTION_PROD : 0},
        /* OPS from the rows only (a patched image has none: the open reads the rows) */
        {.kind = e->ops && e->chunks ? SECTION_OPS : 0},
        {.kind = 0}}; /* LEARN: image_add_learn, on the image encoded */
    int rc = put(out, &h, sizeof h);
    if (!rc) rc = put(out, dir, n_sections * sizeof *dir);
    for (size_t i = 0; i < n_sections && !rc; i++) {
        dir[i].offset = out->len;
        rc = dir[i].kind == SECTION_LEX    ? write_lex(e, out, out->len)
             : dir[i].kind == SECTION_APIS ? write_apis(e, runs, n_runs, out, out->len)
             : dir[i].kind == SECTION_PROD ? write_prod(e, ops, n_op_runs, out, out->len)
             : dir[i].kind == SECTION_OPS  ? image_write_ops(e, out, out->len)
                                           : 0;
        dir[i].length = out->len - dir[i].offset;
    }
    if (rc) return rc;
    memcpy(out->data + sizeof h, dir, n_sections * sizeof *dir);
    image_header *hp = (image_header *)out->data;
    hp->length = out->len;
    hp->checksum = XXH3_64bits(out->data + sizeof h, out->len - sizeof h);
    return 0;
}

/* The operations' producers, as opening from the rows computes them (engine.c). */
static int build_producers(search_engine *e, apidex_error *err)
{
    const store_edge *edges = NULL;
    size_t n_edges = 0;
    int rc = store_operations(e->idx, &e->ops, &e->n_ops, err);
    if (!rc) rc = store_edges(e->idx, &edges, &n_edges, err);
    if (!rc && !(e->info = calloc(e->n_ops ? e->n_ops : 1, sizeof *e->info)))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < e->n_ops; i++) e->info[i].api = (uint32_t)e->ops[i].api_index;
    if (!rc && engine_producers(e, edges, n_edges))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    return rc;
}

static size_t images_patched;

size_t search_image_patched(void)
{
    return __atomic_load_n(&images_patched, __ATOMIC_RELAXED);
}
/* The builder the store calls at the end of every build (build_image_set_builder): the
   lexical index of the finished file, as opening would build it. After `add` or `remove`
   the temp file still holds the old file's image: that is patched with the chunks that
   changed (image_patch.c), else (a full build, no usable old image) built from the rows. */
static int image_build(store_index *idx, uint64_t build_id, core_buf *out, apidex_error *err)
{
    search_engine e = {.idx = idx};
    if (!(e.arena = core_arena_new(0)))
        return core_error_set(err, APIDEX_ENOMEM, "out of memory building the search image");
    int rc = store_apis(idx, &e.apis, &e.n_apis, err);
    void *old = NULL;
    size_t old_len = 0;
    const char *env = getenv("APIDEX_IMAGE_PATCH");
    if (!rc && !(env && !strcmp(env, "0")) && /* =0: always from the rows (comparisons) */
        store_image_read(idx, &old, &old_len, err) == APIDEX_ENOMEM)
        rc = APIDEX_ENOMEM;
    image_run *runs = NULL;
    image_op_run *ops = NULL;
    size_t n_runs = 0, n_op_runs = 0;
    int patched = rc || !old ? 1 : image_patch(&e, old, old_len, &runs, &n_runs, err);
    if (patched < 0) rc = patched;
    if (!rc && patched == 1) {
        rc = lex_docs(&e, err);
        if (!rc && !(runs = runs_of_chunks(&e, &n_runs)))
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
        if (!rc && lex_table_grow(&e)) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
        if (!rc) rc = lex_build(&e, err);
        if (!rc && lex_sort_terms(&e)) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    /* the producers: the old image's for the APIs it had (when its lexical index could be
       patched), else from the operations and edges as an open from the rows */
    if (!rc) rc = image_op_runs(&e, &ops, &n_op_runs, err);
    int prod = rc || patched ? 1 : image_prod_patch(&e, old, old_len, ops, n_op_runs, err);
    free(old);
    if (prod < 0) rc = prod;
    if (!rc && prod == 1) rc = build_producers(&e, err);
    if (!rc && !patched && !prod) __atomic_add_fetch(&images_patched, 1, __ATOMIC_RELAXED);
    if (!rc && image_encode(&e, runs, n_runs, ops, n_op_runs, build_id, out))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory building the search image");
    if (!rc) rc = image_add_learn(idx, out, err);
    free(ops);
    free(runs);
    if (e.info)
        for (size_t i = 0; i < e.n_ops; i++) free(e.info[i].producers);
    free(e.info);
    lex_free(&e);
    core_arena_free(e.arena);
    return rc;
}

void search_image_install(void)
{
    build_image_set_builder(image_build);
}

/* ---------------------------------------------------------------- reading */

bool image_within(uint64_t len, uint64_t off, uint64_t n, uint64_t size)
{
    if (off % 8 || off > len) return false;
    if (size && n > (len - off) / size) return false;
    return true;
}

/* The LEX section's bounds against n_docs chunks (every offset and index checked, so a
   file that passes the checksum yet lies cannot make a reader touch memory outside the
   buffer), or why not. */
static const char *check_lex(uint64_t n_docs, const unsigned char *img, uint64_t len,
                             const image_section *s)
{
    if (!image_within(len, s->offset, 1, sizeof(image_lex))) return "the lexical section is cut";
    const image_lex *lx = (const image_lex *)(img + s->offset);
    if (lx->field_count != STORE_FIELD_COUNT || lx->posting_size != sizeof(posting))
        return "another record layout";
    if (lx->n_docs != n_docs) return "another number of chunks than the index";
    if (!image_within(len, lx->doc_len, lx->n_docs, STORE_FIELD_COUNT * sizeof(uint32_t)) ||
        !image_within(len, lx->terms, lx->n_terms, sizeof(image_term)) ||
        !image_within(len, lx->postings, lx->n_postings, sizeof(posting)) ||
        !image_within(len, lx->table, lx->table_size, sizeof(uint32_t)) ||
        !image_within(len, lx->sorted, lx->n_terms, sizeof(uint32_t)) ||
        !image_within(len, lx->pool, lx->pool_len, 1) || lx->n_terms > UINT32_MAX ||
        (lx->table_size & (lx->table_size - 1)) || lx->table_size < lx->n_terms)
        return "a section's bounds are wrong";
    return NULL;
}

const char *image_use_lex(search_engine *e, const unsigned char *img, uint64_t len,
                          const image_section *s)
{
    const char *why = check_lex(e->n_docs, img, len, s);
    if (why) return why;
    const image_lex *lx = (const image_lex *)(img + s->offset);
    const image_term *it = (const image_term *)(img + lx->terms);
    const char *pool = (const char *)(img + lx->pool);
    posting *post = (posting *)(img + lx->postings);
    e->terms = calloc(lx->n_terms ? lx->n_terms : 1, sizeof *e->terms);
    /* a term's postings are checked when first read (lex_postings), not here */
    e->post_state = calloc(lx->n_terms ? lx->n_terms : 1, 1);
    if (!e->terms || !e->post_state) return "out of memory";
    e->n_terms = e->cap_terms = lx->n_terms;
    for (size_t t = 0; t < lx->n_terms; t++) {
        if ((uint64_t)it[t].str + it[t].len >= lx->pool_len || pool[it[t].str + it[t].len] ||
            it[t].post > lx->n_postings || it[t].n_post > lx->n_postings - it[t].post)
            return "a term's bounds are wrong";
        e->terms[t] = (term_entry){.term = pool + it[t].str,
                                   .len = it[t].len,
                                   .df = it[t].df,
                                   .post = post + it[t].post,
                                   .n_post = it[t].n_post};
    }
    e->work += lx->n_terms;
    e->table = (uint32_t *)(img + lx->table);
    e->table_size = lx->table_size;
    e->sorted = (uint32_t *)(img + lx->sorted);
    for (size_t i = 0; i < lx->table_size; i++)
        if (e->table[i] > lx->n_terms) return "the term table names no term";
    for (size_t i = 0; i < lx->n_terms; i++)
        if (e->sorted[i] >= lx->n_terms) return "the term order names no term";
    const uint32_t *lens = (const uint32_t *)(img + lx->doc_len);
    for (size_t d = 0; d < lx->n_docs; d++)
        memcpy(e->docs[d].field_len, lens + d * STORE_FIELD_COUNT, sizeof e->docs[d].field_len);
    e->n_ranked = lx->n_ranked;
    memcpy(e->avg_len, lx->avg_len, sizeof e->avg_len);
    return NULL;
}

bool image_postings_all_ok(const search_engine *e)
{
    for (size_t t = 0; t < e->n_terms; t++) {
        const posting *post;
        if (lex_postings(e, (long)t, &post) != e->terms[t].n_post) return false;
    }
    return true;
}

/* Section PROD checked as far as opening needs (its bounds, every operation's count) and
   kept for engine_op_producers, which decodes an operation's records when a query first
   asks for them (checked then); NULL, or why not (nothing set then). */
static const char *use_prod(search_engine *e, const unsigned char *img, uint64_t len,
                            const image_section *s)
{
    if (!image_within(len, s->offset, 1, sizeof(image_prod))) return "the producers are cut";
    const image_prod *px = (const image_prod *)(img + s->offset);
    if (px->n_ops != e->n_ops) return "another number of operations than the index";
    if (!image_within(len, px->starts, px->n_ops + 1, sizeof(uint64_t)) ||
        !image_within(len, px->refs, px->n_refs, sizeof(image_pref)) ||
        !image_within(len, px->pool, px->pool_len, 1) ||
        (px->pool_len && img[px->pool + px->pool_len - 1]))
        return "a section's bounds are wrong";
    const uint64_t *starts = (const uint64_t *)(img + px->starts);
    if (starts[0] || starts[px->n_ops] != px->n_refs) return "the producers' counts are wrong";
    for (size_t i = 0; i < e->n_ops; i++)
        if (starts[i] > starts[i + 1]) return "the producers' counts are wrong";
    for (size_t i = 0; i < e->n_ops; i++) {
        e->info[i].n_producers = starts[i + 1] - starts[i];
        e->info[i].producers = NULL;
    }
    e->work += e->n_ops;
    e->prod = px;
    return NULL;
}

size_t engine_op_producers(const search_engine *e, size_t op, const producer_ref **out)
{
    op_info *in = &e->info[op];
    const producer_ref *got = __atomic_load_n(&in->producers, __ATOMIC_ACQUIRE);
    *out = got;
    if (got || !in->n_producers || !e->prod) return got ? in->n_producers : 0;
    const image_prod *px = e->prod;
    const unsigned char *img = e->image;
    const uint64_t *starts = (const uint64_t *)(img + px->starts);
    const image_pref *refs = (const image_pref *)(img + px->refs) + starts[op];
    const char *pool = (const char *)(img + px->pool);
    size_t n = in->n_producers;
    for (size_t k = 0; k < n; k++) /* a lying record: the operation has no producers */
        if (refs[k].producer >= e->n_ops || refs[k].param >= px->pool_len ||
            refs[k].entity >= px->pool_len)
            return 0;
    pthread_mutex_lock((pthread_mutex_t *)&e->prod_lock);
    producer_ref *all = in->producers;
    if (!all && (all = malloc(n * sizeof *all))) {
        for (size_t k = 0; k < n; k++)
            all[k] = (producer_ref){.producer = refs[k].producer,
                                    .features = refs[k].features,
                                    .param = pool + refs[k].param,
                                    .entity = pool + refs[k].entity,
                                    .share = refs[k].share,
                                    .api_ops = (size_t)refs[k].api_ops};
        __atomic_store_n(&in->producers, all, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock((pthread_mutex_t *)&e->prod_lock);
    *out = all;
    return all ? n : 0;
}

/* Drops what image_use_lex set, so the rows can be read as if there were no image. */
static void unuse(search_engine *e)
{
    e->prod = NULL;
    free(e->terms);
    e->terms = NULL;
    free(e->post_state);
    e->post_state = NULL;
    e->n_terms = e->cap_terms = 0;
    e->table = NULL;
    e->table_size = 0;
    e->sorted = NULL;
    e->n_ranked = 0;
    memset(e->avg_len, 0, sizeof e->avg_len);
    for (size_t d = 0; d < e->n_docs; d++)
        memset(e->docs[d].field_len, 0, sizeof e->docs[d].field_len);
}

const char *image_check(const void *data, size_t len, uint64_t build_id, const image_section **lex,
                        const image_section **apis)
{
    const unsigned char *img = data;
    const image_header *h = data;
    *lex = *apis = NULL;
    if (len < sizeof *h || memcmp(h->magic, image_magic, sizeof h->magic))
        return "it is not a search image";
    if (h->version != IMAGE_VERSION || h->endian != IMAGE_ENDIAN)
        return "another format version or byte order";
    if (build_id && h->build_id != build_id) return "it belongs to another build";
    if (h->length != len || XXH3_64bits(img + sizeof *h, len - sizeof *h) != h->checksum)
        return "its checksum does not match (damaged)";
    if (!image_within(len, sizeof *h, h->n_sections, sizeof(image_section)))
        return "its sections are cut";
    for (size_t i = 0; i < h->n_sections; i++) {
        const image_section *s = (const image_section *)(img + sizeof *h) + i;
        if (s->kind == SECTION_LEX) *lex = s;
        if (s->kind == SECTION_APIS) *apis = s;
    }
    return *lex ? NULL : "it has no lexical section";
}

const image_section *image_section_of(const void *data, uint32_t kind)
{
    const image_header *h = data;
    for (size_t i = 0; i < h->n_sections; i++) {
        const image_section *s =
            (const image_section *)((const unsigned char *)data + sizeof *h) + i;
        if (s->kind == kind) return s;
    }
    return NULL;
}

int image_open(search_engine *e, apidex_error *err)
{
    e->work++;
    /* APIDEX_SEARCH_IMAGE=0: built from the rows, silently (comparisons and benches) */
    const char *env = getenv("APIDEX_SEARCH_IMAGE");
    if (env && !strcmp(env, "0")) return 1;
    void *data = e->ops_image; /* read once: image_ops_open read it before */
    size_t len = e->ops_image_len;
    apidex_error rerr = {0};
    int rc = data ? 0 : store_image_read(e->idx, &data, &len, &rerr);
    if (rc == APIDEX_ENOMEM) {
        if (err) *err = rerr;
        return rc;
    }
    const char *why = NULL;
    const image_section *lex = NULL, *apis = NULL;
    if (rc)
        why = "it cannot be read";
    else if (!data)
        why = "it has none (written by an older apidex, or by a program without the search stage)";
    else if (data == e->ops_image) /* image_ops_open checked it (checksum included) */
        why = (lex = image_section_of(data, SECTION_LEX)) ? NULL : "it has no lexical section";
    else
        why = image_check(data, len, store_index_version(e->idx), &lex, &apis);
    size_t work = e->work; /* a refused image counts as no image */
    if (!why) {
        e->image = data; /* the engine's arrays point into it from here */
        why = image_use_lex(e, data, len, lex);
        /* the producers when the image has them (a patched one may not: read from the rows) */
        const image_section *prod = why ? NULL : image_section_of(data, SECTION_PROD);
        if (prod && e->info) why = use_prod(e, data, len, prod);
        /* the owners and API names (APIDEX_IMAGE_LEARN=0: learned at open, comparisons) */
        const image_section *learn = why ? NULL : image_section_of(data, SECTION_LEARN);
        const char *lenv = getenv("APIDEX_IMAGE_LEARN");
        if (learn && e->info && !(lenv && !strcmp(lenv, "0"))) {
            const char *lwhy = image_use_learn(e, data, len, learn);
            e->learned = !lwhy; /* else learned at open (out of memory: it says so) */
            if (lwhy && strcmp(lwhy, "out of memory"))
                fprintf(stderr,
                        "apidex: note: what the index's search image learned is not used (%s); "
                        "it is learned again ('apidex index' writes a new image)\n",
                        lwhy);
        }
        if (why) {
            unuse(e);
            e->image = NULL;
            e->work = work;
        }
    }
    if (why) {
        if (data != e->ops_image) free(data); /* else section OPS points into it */
        fprintf(stderr,
                "apidex: note: the index's search image is not used (%s); the search structure "
                "is built from its rows, which takes longer ('apidex index' writes a new one)\n",
                why);
        return 1;
    }
    return 0;
}
