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
#include "search/search_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

enum { IMAGE_VERSION = 1, IMAGE_ENDIAN = 0x01020304, SECTION_LEX = 1 };
static const char image_magic[8] = {'A', 'P', 'D', 'X', 'I', 'M', 'G', 0};

typedef struct image_header {
    char magic[8];
    uint32_t version; /* IMAGE_VERSION */
    uint32_t endian;  /* IMAGE_ENDIAN as the writer stored it */
    uint64_t build_id;
    uint64_t length;   /* of the whole image, header included */
    uint64_t checksum; /* XXH3-64 of the bytes after the header */
    uint32_t n_sections;
    uint32_t reserved;
} image_header;

typedef struct image_section {
    uint32_t kind; /* SECTION_* */
    uint32_t reserved;
    uint64_t offset, length;
} image_section;

typedef struct image_lex {
    uint64_t n_docs, n_ranked, n_terms, n_postings, table_size, pool_len;
    uint64_t doc_len, terms, postings, table, sorted, pool; /* offsets */
    uint32_t field_count;                                   /* STORE_FIELD_COUNT */
    uint32_t posting_size;
    double avg_len[STORE_FIELD_COUNT];
} image_lex;

typedef struct image_term {
    uint32_t str, len; /* in the pool, NUL-terminated */
    uint32_t df, reserved;
    uint64_t post, n_post; /* first posting (index into the postings array), count */
} image_term;

_Static_assert(sizeof(posting) == 8, "a posting is a fixed 8-byte record");
_Static_assert(sizeof(image_header) % 8 == 0 && sizeof(image_section) % 8 == 0 &&
                   sizeof(image_lex) % 8 == 0 && sizeof(image_term) % 8 == 0,
               "image records keep 8-byte alignment");

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

int search_image_encode(const search_engine *e, uint64_t build_id, core_buf *out)
{
    if (out->len) return APIDEX_EINVAL; /* offsets are from the buffer's first byte */
    image_header h = {
        .version = IMAGE_VERSION, .endian = IMAGE_ENDIAN, .build_id = build_id, .n_sections = 1};
    memcpy(h.magic, image_magic, sizeof h.magic);
    size_t lex_at = sizeof h + sizeof(image_section);
    image_section s = {.kind = SECTION_LEX, .offset = lex_at};
    int rc = put(out, &h, sizeof h);
    if (!rc) rc = put(out, &s, sizeof s);
    if (!rc) rc = write_lex(e, out, lex_at);
    if (rc) return rc;
    image_header *hp = (image_header *)out->data;
    image_section *sp = (image_section *)(out->data + sizeof h);
    sp->length = out->len - lex_at;
    hp->length = out->len;
    hp->checksum = XXH3_64bits(out->data + sizeof h, out->len - sizeof h);
    return 0;
}

/* The builder the store calls at the end of every build (store_image_set_builder): the
   lexical index of the finished file, as opening would build it. */
static int image_build(store_index *idx, uint64_t build_id, core_buf *out, apidex_error *err)
{
    search_engine e = {.idx = idx};
    if (!(e.arena = core_arena_new(0)))
        return core_error_set(err, APIDEX_ENOMEM, "out of memory building the search image");
    int rc = lex_table_grow(&e) ? core_error_set(err, APIDEX_ENOMEM, "out of memory") : 0;
    if (!rc) rc = lex_docs(&e, err);
    if (!rc) rc = lex_build(&e, err);
    if (!rc && lex_sort_terms(&e)) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!rc && search_image_encode(&e, build_id, out))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory building the search image");
    lex_free(&e);
    core_arena_free(e.arena);
    return rc;
}

void search_image_install(void)
{
    store_image_set_builder(image_build);
}

/* ---------------------------------------------------------------- reading */

/* [off, off + n * size) inside the image, aligned for records of 8 bytes or less. */
static bool within(uint64_t len, uint64_t off, uint64_t n, uint64_t size)
{
    if (off % 8 || off > len) return false;
    if (size && n > (len - off) / size) return false;
    return true;
}

/* Why the image cannot be used, or NULL when the section is valid (every offset and
   index checked, so a file that passes the checksum yet lies cannot make a reader
   touch memory outside the buffer). */
static const char *check_lex(const search_engine *e, const unsigned char *img, uint64_t len,
                             const image_section *s)
{
    if (!within(len, s->offset, 1, sizeof(image_lex))) return "the lexical section is cut";
    const image_lex *lx = (const image_lex *)(img + s->offset);
    if (lx->field_count != STORE_FIELD_COUNT || lx->posting_size != sizeof(posting))
        return "another record layout";
    if (lx->n_docs != e->n_docs) return "another number of chunks than the index";
    if (!within(len, lx->doc_len, lx->n_docs, STORE_FIELD_COUNT * sizeof(uint32_t)) ||
        !within(len, lx->terms, lx->n_terms, sizeof(image_term)) ||
        !within(len, lx->postings, lx->n_postings, sizeof(posting)) ||
        !within(len, lx->table, lx->table_size, sizeof(uint32_t)) ||
        !within(len, lx->sorted, lx->n_terms, sizeof(uint32_t)) ||
        !within(len, lx->pool, lx->pool_len, 1) || lx->n_terms > UINT32_MAX ||
        (lx->table_size & (lx->table_size - 1)) || lx->table_size < lx->n_terms)
        return "a section's bounds are wrong";
    return NULL;
}

static const char *use_lex(search_engine *e, const unsigned char *img, const image_section *s)
{
    const image_lex *lx = (const image_lex *)(img + s->offset);
    const image_term *it = (const image_term *)(img + lx->terms);
    const char *pool = (const char *)(img + lx->pool);
    posting *post = (posting *)(img + lx->postings);
    e->terms = calloc(lx->n_terms ? lx->n_terms : 1, sizeof *e->terms);
    if (!e->terms) return "out of memory";
    e->n_terms = e->cap_terms = lx->n_terms;
    for (size_t t = 0; t < lx->n_terms; t++) {
        if ((uint64_t)it[t].str + it[t].len >= lx->pool_len || pool[it[t].str + it[t].len] ||
            it[t].post > lx->n_postings || it[t].n_post > lx->n_postings - it[t].post)
            return "a term's bounds are wrong";
        for (size_t p = 0; p < it[t].n_post; p++)
            if (post[it[t].post + p].doc >= lx->n_docs) return "a posting names no chunk";
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

/* Drops what use_lex set, so the rows can be read as if there were no image. */
static void unuse(search_engine *e)
{
    free(e->terms);
    e->terms = NULL;
    e->n_terms = e->cap_terms = 0;
    e->table = NULL;
    e->table_size = 0;
    e->sorted = NULL;
    e->n_ranked = 0;
    memset(e->avg_len, 0, sizeof e->avg_len);
    for (size_t d = 0; d < e->n_docs; d++)
        memset(e->docs[d].field_len, 0, sizeof e->docs[d].field_len);
}

int image_open(search_engine *e, apidex_error *err)
{
    e->work++;
    /* APIDEX_SEARCH_IMAGE=0: built from the rows, silently (comparisons and benches) */
    const char *env = getenv("APIDEX_SEARCH_IMAGE");
    if (env && !strcmp(env, "0")) return 1;
    void *data = NULL;
    size_t len = 0;
    apidex_error rerr = {0};
    int rc = store_image_read(e->idx, &data, &len, &rerr);
    if (rc == APIDEX_ENOMEM) {
        if (err) *err = rerr;
        return rc;
    }
    const char *why = NULL;
    const unsigned char *img = data;
    const image_header *h = data;
    if (rc)
        why = "it cannot be read";
    else if (!data)
        why = "it has none (written by an older apidex, or by a program without the search stage)";
    else if (len < sizeof *h || memcmp(h->magic, image_magic, sizeof h->magic))
        why = "it is not a search image";
    else if (h->version != IMAGE_VERSION || h->endian != IMAGE_ENDIAN)
        why = "another format version or byte order";
    else if (h->build_id != store_index_version(e->idx))
        why = "it belongs to another build";
    else if (h->length != len || XXH3_64bits(img + sizeof *h, len - sizeof *h) != h->checksum)
        why = "its checksum does not match (damaged)";
    else if (!within(len, sizeof *h, h->n_sections, sizeof(image_section)))
        why = "its sections are cut";
    const image_section *lex = NULL;
    for (size_t i = 0; !why && i < h->n_sections; i++) {
        const image_section *s = (const image_section *)(img + sizeof *h) + i;
        if (s->kind == SECTION_LEX) lex = s;
    }
    if (!why && !lex) why = "it has no lexical section";
    if (!why) why = check_lex(e, img, len, lex);
    if (!why) {
        e->image = data; /* the engine's arrays point into it from here */
        why = use_lex(e, img, lex);
        if (why) {
            unuse(e);
            e->image = NULL;
        }
    }
    if (why) {
        free(data);
        fprintf(stderr,
                "apidex: note: the index's search image is not used (%s); the search structure "
                "is built from its rows, which takes longer ('apidex index' writes a new one)\n",
                why);
        return 1;
    }
    return 0;
}
