/*
 * Section LEARN of the search image (docs/INDEX.md, "The search image"): what opening the
 * engine would learn over the whole registry, learned once at build time. Per operation the
 * owner of its path and what the owner has (owner.c) and whether an older copy of a service
 * holds it (dupes.c), per term the verbs learned from summaries (action.c), and the names a
 * task can call APIs by (routing.c: each with its APIs, shares and labels, and the names'
 * hash table). The builder opens an engine on the image it has just encoded (its other
 * sections, as `apidex search` would open it), lets those steps run on it as they would at
 * every open, and appends their results: opening reads them in place, so an answer is the
 * same with the section as without it (APIDEX_IMAGE_LEARN=0 learns them at open).
 */
#include "search/image_int.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

_Static_assert(sizeof(long) == sizeof(int64_t), "op_info.has points at the image's int64 terms");

/* ---------------------------------------------------------------- writing */

static int write_learn(const search_engine *e, core_buf *b, size_t at)
{
    image_learn lx = {.n_ops = e->n_ops,
                      .n_apis = e->n_apis,
                      .n_terms = e->n_terms,
                      .n_names = e->n_names,
                      .name_table_size = e->name_table_size};
    for (size_t i = 0; i < e->n_ops; i++) lx.n_has += e->info[i].n_has;
    for (size_t i = 0; i < e->n_names; i++) {
        lx.n_name_apis += e->names[i].n_apis;
        lx.pool_len += strlen(e->names[i].stem) + 1;
    }
    if (lx.n_has >= IMAGE_NONE || lx.n_name_apis >= IMAGE_NONE || lx.pool_len >= IMAGE_NONE)
        return APIDEX_ELIMIT;
    lx.owners = at + sizeof lx;
    lx.has = lx.owners + e->n_ops * sizeof(image_owner);
    lx.names = lx.has + lx.n_has * sizeof(int64_t);
    lx.name_apis = lx.names + e->n_names * sizeof(image_name);
    lx.name_table = lx.name_apis + ((lx.n_name_apis * sizeof(uint32_t) + 7) & ~(uint64_t)7);
    lx.pool = lx.name_table + ((lx.name_table_size * sizeof(uint32_t) + 7) & ~(uint64_t)7);
    lx.verb_counts = lx.pool + ((lx.pool_len + 7) & ~(uint64_t)7);
    size_t vc_len = e->n_terms * sizeof *e->verb_counts;
    uint64_t sup = lx.verb_counts + ((vc_len + 7) & ~(uint64_t)7);
    lx.superseded = e->superseded ? sup : 0;
    int rc = image_put(b, &lx, sizeof lx);
    for (size_t i = 0, h = 0; i < e->n_ops && !rc; i++) {
        const op_info *in = &e->info[i];
        image_owner o = {
            .owner = in->owner, .first_has = (uint32_t)h, .n_has = (uint32_t)in->n_has};
        rc = core_buf_append(b, &o, sizeof o) ? APIDEX_ENOMEM : 0;
        h += in->n_has;
    }
    for (size_t i = 0; i < e->n_ops && !rc; i++)
        for (size_t k = 0; k < e->info[i].n_has && !rc; k++) {
            int64_t t = e->info[i].has[k];
            rc = core_buf_append(b, &t, sizeof t) ? APIDEX_ENOMEM : 0;
        }
    for (size_t i = 0, a = 0, s = 0; i < e->n_names && !rc; i++) {
        const api_name *nm = &e->names[i];
        image_name r = {.stem = (uint32_t)s,
                        .first_api = (uint32_t)a,
                        .n_apis = (uint32_t)nm->n_apis,
                        .vocab = nm->vocab,
                        .label = nm->label,
                        .share = nm->share,
                        .spread = nm->spread,
                        .n_services = nm->n_services};
        rc = core_buf_append(b, &r, sizeof r) ? APIDEX_ENOMEM : 0;
        a += nm->n_apis;
        s += strlen(nm->stem) + 1;
    }
    for (size_t i = 0; i < e->n_names && !rc; i++)
        rc = core_buf_append(b, e->names[i].apis, e->names[i].n_apis * sizeof(uint32_t))
                 ? APIDEX_ENOMEM
                 : 0;
    if (!rc) rc = image_put(b, "", 0);
    if (!rc) rc = image_put(b, e->name_table, e->name_table_size * sizeof(uint32_t));
    for (size_t i = 0; i < e->n_names && !rc; i++)
        rc = core_buf_append(b, e->names[i].stem, strlen(e->names[i].stem) + 1) ? APIDEX_ENOMEM : 0;
    if (!rc) rc = image_put(b, "", 0);
    if (!rc) rc = image_put(b, e->verb_counts, e->verb_counts ? vc_len : 0);
    if (!rc && e->superseded) rc = image_put(b, e->superseded, e->n_ops);
    if (!rc && b->len != (e->superseded ? (sup + e->n_ops + 7) & ~(uint64_t)7 : sup))
        rc = APIDEX_EINVAL; /* layout slip */
    return rc;
}

int image_add_learn(store_index *idx, core_buf *img, apidex_error *err)
{
    search_engine *e = NULL;
    int rc = engine_open_image(idx, img->data, img->len, &e, err);
    if (rc) return rc;
    image_header *h = (image_header *)img->data;
    image_section *dir = (image_section *)(img->data + sizeof *h);
    size_t slot = h->n_sections;
    for (size_t i = 0; i < h->n_sections; i++)
        if (dir[i].kind == 0 && slot == h->n_sections) slot = i;
    size_t at = img->len;
    if (slot == h->n_sections) /* image_encode always leaves the entry */
        rc = core_error_set(err, APIDEX_EINVAL, "the search image has no room for LEARN");
    if (!rc && write_learn(e, img, at))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory building the search image");
    search_engine_close(e); /* after: the engine read the buffer, which may have moved */
    if (rc) return rc;
    h = (image_header *)img->data;
    dir = (image_section *)(img->data + sizeof *h);
    dir[slot] = (image_section){.kind = SECTION_LEARN, .offset = at, .length = img->len - at};
    h->length = img->len;
    h->checksum = XXH3_64bits(img->data + sizeof *h, img->len - sizeof *h);
    return 0;
}

/* ---------------------------------------------------------------- reading */

const char *image_use_learn(search_engine *e, const unsigned char *img, uint64_t len,
                            const image_section *s)
{
    if (!image_within(len, s->offset, 1, sizeof(image_learn))) return "the learned part is cut";
    const image_learn *lx = (const image_learn *)(img + s->offset);
    if (lx->n_ops != e->n_ops || lx->n_apis != e->n_apis || lx->n_terms != e->n_terms)
        return "another number of operations, APIs or terms than the index";
    if (!image_within(len, lx->owners, lx->n_ops, sizeof(image_owner)) ||
        !image_within(len, lx->has, lx->n_has, sizeof(int64_t)) ||
        !image_within(len, lx->names, lx->n_names, sizeof(image_name)) ||
        !image_within(len, lx->name_apis, lx->n_name_apis, sizeof(uint32_t)) ||
        !image_within(len, lx->name_table, lx->name_table_size, sizeof(uint32_t)) ||
        !image_within(len, lx->pool, lx->pool_len, 1) ||
        (lx->pool_len && img[lx->pool + lx->pool_len - 1]) ||
        (lx->name_table_size & (lx->name_table_size - 1)) || lx->name_table_size < lx->n_names ||
        (lx->n_names && !lx->name_table_size) ||
        !image_within(len, lx->verb_counts, lx->n_terms, sizeof *e->verb_counts) ||
        (lx->superseded && !image_within(len, lx->superseded, lx->n_ops, 1)))
        return "a section's bounds are wrong";
    const image_owner *own = (const image_owner *)(img + lx->owners);
    const int64_t *has = (const int64_t *)(img + lx->has);
    const image_name *nr = (const image_name *)(img + lx->names);
    const uint32_t *na = (const uint32_t *)(img + lx->name_apis);
    const uint32_t *table = (const uint32_t *)(img + lx->name_table);
    const char *pool = (const char *)(img + lx->pool);
    /* every index checked before anything is set: a lying file leaves e as it was */
    for (size_t i = 0; i < lx->n_ops; i++)
        if (own[i].owner < -1 || own[i].owner >= (int64_t)e->n_terms ||
            own[i].first_has > lx->n_has || own[i].n_has > lx->n_has - own[i].first_has)
            return "an owner is out of bounds";
    for (size_t k = 0; k < lx->n_has; k++)
        if (has[k] < 0 || has[k] >= (int64_t)e->n_terms) return "an owner's term is out of bounds";
    for (size_t i = 0; i < lx->n_names; i++)
        if (nr[i].stem >= lx->pool_len || nr[i].first_api > lx->n_name_apis ||
            nr[i].n_apis > lx->n_name_apis - nr[i].first_api)
            return "a name is out of bounds";
    for (size_t k = 0; k < lx->n_name_apis; k++)
        if (na[k] >= e->n_apis) return "a name's API is out of bounds";
    for (size_t k = 0; k < lx->name_table_size; k++)
        if (table[k] > lx->n_names) return "the name table names no name";
    const unsigned char *sup = lx->superseded ? img + lx->superseded : NULL;
    for (size_t i = 0; sup && i < lx->n_ops; i++)
        if (sup[i] > 1) return "a superseded mark is neither 0 nor 1";
    api_name *names = calloc(lx->n_names ? lx->n_names : 1, sizeof *names);
    if (!names) return "out of memory";
    for (size_t i = 0; i < lx->n_names; i++)
        names[i] = (api_name){.stem = pool + nr[i].stem,
                              .apis = (uint32_t *)(na + nr[i].first_api),
                              .n_apis = nr[i].n_apis,
                              .vocab = nr[i].vocab != 0,
                              .share = nr[i].share,
                              .spread = nr[i].spread,
                              .n_services = (size_t)nr[i].n_services,
                              .label = (uint8_t)nr[i].label};
    for (size_t i = 0; i < lx->n_ops; i++) {
        op_info *in = &e->info[i];
        in->owner = (long)own[i].owner;
        in->has = own[i].n_has ? (long *)(has + own[i].first_has) : NULL;
        in->n_has = own[i].n_has;
    }
    e->names = names;
    e->names_owned = true;
    e->verb_counts = (uint16_t(*)[5])(img + lx->verb_counts);
    e->superseded = lx->superseded ? (bool *)(img + lx->superseded) : NULL;
    e->n_names = lx->n_names;
    e->name_table = (uint32_t *)table;
    e->name_table_size = lx->name_table_size;
    e->work += lx->n_ops + lx->n_names;
    return NULL;
}
