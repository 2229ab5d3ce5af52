/*
 * Section OPS of the search image (docs/INDEX.md, "The search image"): every operation's
 * values the engine ranks and filters on (id, API, method, path, operationId, verb,
 * action, flags, deprecated, tags, inputs) and every chunk's endpoints, written from the
 * rows at build time, so opening from a valid image reads no operation or chunk row. The
 * summaries and descriptions (shown, never ranked on at open) stay in the rows: read by
 * rowid for the endpoints a search shows (image_op_summary), all at once for `match`.
 */
#include "search/image_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- writing */

/* s in the pool, or IMAGE_NONE for NULL. */
static int str_of(image_strpool *sp, const char *s, uint32_t *off)
{
    if (!s) {
        *off = IMAGE_NONE;
        return 0;
    }
    return image_pool_add(sp, s, off);
}

int image_write_ops(const search_engine *e, core_buf *b, size_t at)
{
    /* the store's arrays themselves (loaded before: image_encode asks for this section only
       when they are), whatever the engine being written holds of them */
    const store_operation *ops = NULL;
    const store_chunk *chunks = NULL;
    size_t n_ops = 0, n_docs = 0;
    int rc = store_operations(e->idx, &ops, &n_ops, NULL);
    if (!rc) rc = store_chunks(e->idx, &chunks, &n_docs, NULL);
    if (rc) return rc;
    image_ops ox = {.n_ops = n_ops, .n_docs = n_docs};
    for (size_t i = 0; i < n_ops; i++) {
        ox.n_inputs += ops[i].n_inputs;
        ox.n_tags += ops[i].n_tags;
    }
    for (size_t d = 0; d < n_docs; d++) ox.n_ends += chunks[d].n_endpoints;
    if (ox.n_inputs >= IMAGE_NONE || ox.n_tags >= IMAGE_NONE || ox.n_ends >= IMAGE_NONE ||
        n_ops >= IMAGE_NONE)
        return APIDEX_ENOMEM;
    image_strpool sp = {0};
    core_buf_init(&sp.b, 0);
    image_op *recs = malloc((n_ops ? n_ops : 1) * sizeof *recs);
    image_input *ins = malloc((ox.n_inputs ? ox.n_inputs : 1) * sizeof *ins);
    uint32_t *tags = malloc((ox.n_tags ? ox.n_tags : 1) * sizeof *tags);
    image_doc *docs = malloc((n_docs ? n_docs : 1) * sizeof *docs);
    uint32_t *ends = malloc((ox.n_ends ? ox.n_ends : 1) * sizeof *ends);
    rc = recs && ins && tags && docs && ends ? 0 : APIDEX_ENOMEM;
    size_t ni = 0, nt = 0, ne = 0;
    for (size_t i = 0; i < n_ops && !rc; i++) {
        const store_operation *o = &ops[i];
        image_op *r = &recs[i];
        *r = (image_op){.api_index = (uint32_t)o->api_index,
                        .flags = o->flags,
                        .action = o->action,
                        .deprecated = o->deprecated,
                        .first_input = (uint32_t)ni,
                        .n_inputs = (uint32_t)o->n_inputs,
                        .first_tag = (uint32_t)nt,
                        .n_tags = (uint32_t)o->n_tags,
                        .tokens = o->tokens,
                        .rowid = store_operation_rowid(e->idx, i)};
        rc = str_of(&sp, o->id, &r->id);
        if (!rc) rc = str_of(&sp, o->api, &r->api);
        if (!rc) rc = str_of(&sp, o->method, &r->method);
        if (!rc) rc = str_of(&sp, o->path, &r->path);
        if (!rc) rc = str_of(&sp, o->operation_id, &r->operation_id);
        if (!rc) rc = str_of(&sp, o->verb, &r->verb);
        for (size_t k = 0; k < o->n_inputs && !rc; k++, ni++) {
            const store_input *in = &o->inputs[k];
            ins[ni] = (image_input){.required = in->required};
            rc = str_of(&sp, in->name, &ins[ni].name);
            if (!rc) rc = str_of(&sp, in->location, &ins[ni].location);
            if (!rc) rc = str_of(&sp, in->field, &ins[ni].field);
        }
        for (size_t k = 0; k < o->n_tags && !rc; k++) rc = str_of(&sp, o->tags[k], &tags[nt++]);
    }
    for (size_t d = 0; d < n_docs && !rc; d++) {
        const store_chunk *c = &chunks[d];
        docs[d] = (image_doc){.endpoint = c->type && !strcmp(c->type, "endpoint"),
                              .first_end = (uint32_t)ne,
                              .n_ends = (uint32_t)c->n_endpoints};
        for (size_t k = 0; k < c->n_endpoints; k++) {
            long op = c->endpoint_ops ? c->endpoint_ops[k] : -1;
            ends[ne++] = op >= 0 && (size_t)op < n_ops ? (uint32_t)op : IMAGE_NONE;
        }
    }
    if (!rc) {
        ox.pool_len = sp.b.len;
        ox.recs = at + sizeof ox;
        ox.inputs = ox.recs + n_ops * sizeof *recs;
        ox.tags = ox.inputs + ox.n_inputs * sizeof *ins;
        ox.docs = ox.tags + ((ox.n_tags * sizeof *tags + 7) & ~(size_t)7);
        ox.ends = ox.docs + n_docs * sizeof *docs;
        ox.pool = ox.ends + ((ox.n_ends * sizeof *ends + 7) & ~(size_t)7);
        rc = image_put(b, &ox, sizeof ox);
    }
    if (!rc) rc = image_put(b, recs, n_ops * sizeof *recs);
    if (!rc) rc = image_put(b, ins, ox.n_inputs * sizeof *ins);
    if (!rc) rc = image_put(b, tags, ox.n_tags * sizeof *tags);
    if (!rc) rc = image_put(b, docs, n_docs * sizeof *docs);
    if (!rc) rc = image_put(b, ends, ox.n_ends * sizeof *ends);
    if (!rc) rc = image_put(b, sp.b.data ? sp.b.data : "", sp.b.len);
    if (!rc && b->len != ((ox.pool + ox.pool_len + 7) & ~(uint64_t)7))
        rc = APIDEX_EINVAL; /* layout slip */
    free(recs);
    free(ins);
    free(tags);
    free(docs);
    free(ends);
    image_pool_free(&sp);
    return rc;
}

/* ---------------------------------------------------------------- reading */

/* Texts read by rowid (or, for match, from every row at once). */
typedef struct op_texts {
    pthread_mutex_t lock;
    core_arena *arena;
    int64_t *rowid;              /* per operation */
    const char *(*text)[2];      /* per operation: summary, description (read[i]) */
    bool *read;                  /* allocated on first use */
    const store_operation *rows; /* every row, once image_op_texts_all ran; NULL: not */
    size_t n_rows;
} op_texts;

/* The pool string at off (the pool ends with a NUL: every offset inside is terminated). */
static bool pool_str(const char *pool, uint64_t pool_len, uint32_t off, const char **out)
{
    if (off == IMAGE_NONE) {
        *out = NULL;
        return true;
    }
    if (off >= pool_len) return false;
    *out = pool + off;
    return true;
}

/* Builds e->ops, e->docs and their arrays from section s; NULL, or why not (then the
   caller frees what was set with image_ops_free). */
static const char *use_ops(search_engine *e, const store_info *info, const unsigned char *img,
                           uint64_t len, const image_section *s)
{
    if (!image_within(len, s->offset, 1, sizeof(image_ops))) return "the operations are cut";
    const image_ops *ox = (const image_ops *)(img + s->offset);
    if (ox->n_ops != info->n_operations || ox->n_docs != info->n_chunks)
        return "another number of operations or chunks than the index";
    if (!image_within(len, ox->recs, ox->n_ops, sizeof(image_op)) ||
        !image_within(len, ox->inputs, ox->n_inputs, sizeof(image_input)) ||
        !image_within(len, ox->tags, ox->n_tags, sizeof(uint32_t)) ||
        !image_within(len, ox->docs, ox->n_docs, sizeof(image_doc)) ||
        !image_within(len, ox->ends, ox->n_ends, sizeof(uint32_t)) ||
        !image_within(len, ox->pool, ox->pool_len, 1) || !ox->pool_len ||
        img[ox->pool + ox->pool_len - 1] || ox->n_ops >= IMAGE_NONE)
        return "a section's bounds are wrong";
    const image_op *recs = (const image_op *)(img + ox->recs);
    const image_input *ins = (const image_input *)(img + ox->inputs);
    const uint32_t *tags = (const uint32_t *)(img + ox->tags);
    const image_doc *docs = (const image_doc *)(img + ox->docs);
    const uint32_t *ends = (const uint32_t *)(img + ox->ends);
    const char *pool = (const char *)(img + ox->pool);
    e->own_ops = calloc(ox->n_ops ? ox->n_ops : 1, sizeof *e->own_ops);
    e->own_inputs = calloc(ox->n_inputs ? ox->n_inputs : 1, sizeof *e->own_inputs);
    e->own_tags = calloc(ox->n_tags ? ox->n_tags : 1, sizeof *e->own_tags);
    e->own_ends = calloc(ox->n_ends ? ox->n_ends : 1, sizeof *e->own_ends);
    e->docs = calloc(ox->n_docs ? ox->n_docs : 1, sizeof *e->docs);
    op_texts *t = e->texts = calloc(1, sizeof *t);
    if (t) {
        pthread_mutex_init(&t->lock, NULL);
        t->rowid = malloc((ox->n_ops ? ox->n_ops : 1) * sizeof *t->rowid);
    }
    if (!e->own_ops || !e->own_inputs || !e->own_tags || !e->own_ends || !e->docs || !t ||
        !t->rowid)
        return "out of memory";
    for (size_t k = 0; k < ox->n_inputs; k++) {
        store_input *in = &e->own_inputs[k];
        const char *name, *location;
        if (!pool_str(pool, ox->pool_len, ins[k].name, &name) ||
            !pool_str(pool, ox->pool_len, ins[k].location, &location) ||
            !pool_str(pool, ox->pool_len, ins[k].field, &in->field))
            return "an input is out of bounds";
        in->name = name ? name : "";
        in->location = location ? location : "";
        in->required = ins[k].required != 0;
    }
    for (size_t k = 0; k < ox->n_tags; k++)
        if (!pool_str(pool, ox->pool_len, tags[k], &e->own_tags[k]) || !e->own_tags[k])
            return "a tag is out of bounds";
    for (size_t i = 0; i < ox->n_ops; i++) {
        const image_op *r = &recs[i];
        store_operation *o = &e->own_ops[i];
        if (!pool_str(pool, ox->pool_len, r->id, &o->id) ||
            !pool_str(pool, ox->pool_len, r->api, &o->api) ||
            !pool_str(pool, ox->pool_len, r->method, &o->method) ||
            !pool_str(pool, ox->pool_len, r->path, &o->path) ||
            !pool_str(pool, ox->pool_len, r->operation_id, &o->operation_id) ||
            !pool_str(pool, ox->pool_len, r->verb, &o->verb) || !o->id || !o->api || !o->method ||
            !o->path || r->api_index >= e->n_apis || r->first_input > ox->n_inputs ||
            r->n_inputs > ox->n_inputs - r->first_input || r->first_tag > ox->n_tags ||
            r->n_tags > ox->n_tags - r->first_tag || (i && r->api_index < recs[i - 1].api_index))
            return "an operation is out of bounds";
        o->inputs = r->n_inputs ? e->own_inputs + r->first_input : NULL;
        o->n_inputs = r->n_inputs;
        o->tags = r->n_tags ? e->own_tags + r->first_tag : NULL;
        o->n_tags = r->n_tags;
        o->deprecated = r->deprecated != 0;
        o->action = r->action;
        o->flags = r->flags;
        o->tokens = (size_t)r->tokens;
        o->api_index = r->api_index;
        t->rowid[i] = r->rowid;
    }
    for (size_t k = 0; k < ox->n_ends; k++)
        e->own_ends[k] = ends[k] == IMAGE_NONE ? -1 : (long)ends[k];
    for (size_t k = 0; k < ox->n_ends; k++)
        if (ends[k] != IMAGE_NONE && ends[k] >= ox->n_ops) return "an endpoint names no operation";
    for (size_t d = 0; d < ox->n_docs; d++) {
        const image_doc *c = &docs[d];
        if (c->first_end > ox->n_ends || c->n_ends > ox->n_ends - c->first_end)
            return "a chunk's endpoints are out of bounds";
        e->docs[d].ops = c->n_ends ? e->own_ends + c->first_end : NULL;
        e->docs[d].n_ops = c->n_ends;
        e->docs[d].endpoint = c->endpoint != 0;
    }
    e->ops = e->own_ops;
    e->n_ops = ox->n_ops;
    e->n_docs = ox->n_docs;
    return NULL;
}

void image_ops_free(search_engine *e)
{
    if (e->ops == e->own_ops) e->ops = NULL;
    free(e->own_ops);
    free(e->own_inputs);
    free(e->own_tags);
    free(e->own_ends);
    e->own_ops = NULL;
    e->own_inputs = NULL;
    e->own_tags = NULL;
    e->own_ends = NULL;
    op_texts *t = e->texts;
    if (t) {
        pthread_mutex_destroy(&t->lock);
        free(t->rowid);
        free(t->text);
        free(t->read);
        core_arena_free(t->arena);
        free(t);
    }
    e->texts = NULL;
    if (e->ops_image != e->image && !e->image_mapped) free(e->ops_image);
    e->ops_image = NULL;
    e->ops_image_len = 0;
}

int image_ops_open(search_engine *e, const store_info *info, apidex_error *err)
{
    const char *env = getenv("APIDEX_SEARCH_IMAGE");
    if (env && !strcmp(env, "0")) return 1;
    const image_section *lex = NULL, *apis = NULL;
    uint64_t build = store_index_version(e->idx);
    /* the image's file beside the index, mapped and used in place when it checks (checksum
       included); else the copy in the index, read into memory */
    const void *mapped = NULL;
    size_t len = 0;
    void *data = NULL;
    if (e->image_mapped && e->ops_image) { /* given (engine_open_image): the builder's */
        data = e->ops_image;
        len = e->ops_image_len;
        if (image_check(data, len, 0, &lex, &apis)) {
            e->ops_image = NULL;
            e->image_mapped = false;
            return 1;
        }
    } else {
        store_image_map(e->idx, &mapped, &len);
        if (mapped && !image_check(mapped, len, build, &lex, &apis)) {
            data = (void *)mapped;
            e->image_mapped = true;
        } else {
            apidex_error rerr = {0};
            int rc = store_image_read(e->idx, &data, &len, &rerr);
            if (rc == APIDEX_ENOMEM) {
                if (err) *err = rerr;
                return rc;
            }
            if (rc || !data || image_check(data, len, build, &lex, &apis)) {
                free(data); /* image_open reads it again and says why it is not used */
                return 1;
            }
        }
    }
    e->ops_image = data; /* image_open uses it as it is */
    e->ops_image_len = len;
    const image_section *s = image_section_of(data, SECTION_OPS);
    env = getenv("APIDEX_IMAGE_OPS");               /* =0: the rows (comparisons and benches) */
    if (!s || (env && !strcmp(env, "0"))) return 1; /* a patched image: the rows */
    const char *why = use_ops(e, info, data, len, s);
    if (why) {
        void *keep = e->ops_image;
        e->ops_image = NULL; /* kept for image_open: only what use_ops set goes */
        image_ops_free(e);
        free(e->docs);
        e->docs = NULL;
        e->n_ops = e->n_docs = 0;
        e->ops_image = keep;
        e->ops_image_len = len;
        if (!strcmp(why, "out of memory"))
            return core_error_set(err, APIDEX_ENOMEM, "out of memory opening the search image");
        fprintf(stderr,
                "apidex: note: the operations of the index's search image are not used (%s); "
                "they are read from its rows, which takes longer ('apidex index' writes a new "
                "image)\n",
                why);
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- texts read when shown */

/* Operation i's summary (which 0) or description (1). */
static const char *op_text(const search_engine *e, size_t i, int which)
{
    op_texts *t = e->texts;
    if (!t || i >= e->n_ops) {
        if (i >= e->n_ops) return NULL;
        return which ? e->ops[i].description : e->ops[i].summary;
    }
    pthread_mutex_lock(&t->lock);
    const char *out = NULL;
    if (t->rows) {
        out = which ? t->rows[i].description : t->rows[i].summary;
    } else {
        if (!t->read) {
            t->read = calloc(e->n_ops ? e->n_ops : 1, sizeof *t->read);
            t->text = calloc(e->n_ops ? e->n_ops : 1, sizeof *t->text);
            t->arena = core_arena_new(0);
        }
        if (t->read && t->text && t->arena && !t->read[i] &&
            !store_operation_texts_at(e->idx, t->rowid[i], t->arena, &t->text[i][0],
                                      &t->text[i][1]))
            t->read[i] = true;
        if (t->read && t->text && t->read[i]) out = t->text[i][which];
    }
    pthread_mutex_unlock(&t->lock);
    return out;
}

const char *image_op_summary(const search_engine *e, size_t i)
{
    return op_text(e, i, 0);
}

const char *image_op_description(const search_engine *e, size_t i)
{
    return op_text(e, i, 1);
}

void image_op_texts_all(const search_engine *e)
{
    op_texts *t = e->texts;
    if (!t) return;
    pthread_mutex_lock(&t->lock);
    if (!t->rows) {
        const store_operation *rows = NULL;
        size_t n = 0;
        /* the rows are in the image's order (it was written from them): rowids agree */
        if (!store_operations(e->idx, &rows, &n, NULL) && n == e->n_ops) {
            bool same = true;
            for (size_t i = 0; i < n && same; i++)
                same = store_operation_rowid(e->idx, i) == t->rowid[i];
            if (same) t->rows = rows;
        }
    }
    pthread_mutex_unlock(&t->lock);
}
