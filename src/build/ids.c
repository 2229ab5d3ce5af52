/*
 * Stable API ids for a build: what the old index called a document wins over
 * what the document proposes now (docs/INDEX.md, "API ids").
 *
 * The build streams (documents are parsed a few at a time, each API written in
 * registry order), so an id is settled per API, on the build's thread, right
 * before the API's rows are written:
 * - a given id (a registry file's `id:`, --name) as it is;
 * - else the id the old index had for the same path;
 * - else, for a new path whose content hash is that of an old document that is
 *   gone (a rename or a move), that document's id;
 * - else the id the parsed document proposes (apiid.c), made unique ("-2",
 *   "-3") against every id settled before it, the ids kept by other documents
 *   and the aliases still in use.
 * The id of a document that is gone is free: an edited document moved to a new
 * path proposes it again. So a rename keeps its id unless a document before it
 * in the order proposed the same one (it then gets a suffix, like any other
 * collision).
 * Everything is decided in registry order from what is known before the loop
 * plus the APIs already settled, so the ids are the same for every --jobs N and
 * for an eager registry. An id that changes (a given name, or an index of an
 * older schema whose ids were file names) leaves the old one as an alias; the
 * aliases of an API follow it, and those of APIs that are gone are dropped.
 */
#include "build/build_int.h"

#include <stdlib.h>
#include <string.h>

/* A map of strings (open addressing, not owning them): name → value. */
typedef struct name_set {
    const char **slots;
    const char **vals;
    size_t mask, n;
} name_set;

static int set_init(name_set *s, size_t n)
{
    size_t cap = 16;
    while (cap < n * 2) cap *= 2;
    s->slots = calloc(cap, sizeof *s->slots);
    s->vals = calloc(cap, sizeof *s->vals);
    s->mask = cap - 1;
    s->n = 0;
    return s->slots && s->vals ? 0 : APIDEX_ENOMEM;
}

static void set_free(name_set *s)
{
    free(s->slots);
    free(s->vals);
    memset(s, 0, sizeof *s);
}

static size_t set_slot(const name_set *s, const char *k)
{
    size_t h = (size_t)core_hash64(k, strlen(k)) & s->mask;
    while (s->slots[h] && strcmp(s->slots[h], k) != 0) h = (h + 1) & s->mask;
    return h;
}

/* Adds k (the first value wins); grows as needed. */
static int set_put(name_set *s, const char *k, const char *v)
{
    if ((s->n + 1) * 2 > s->mask + 1) {
        name_set g;
        if (set_init(&g, (s->mask + 1) * 2)) return APIDEX_ENOMEM;
        for (size_t i = 0; i <= s->mask; i++)
            if (s->slots[i]) {
                size_t h = set_slot(&g, s->slots[i]);
                g.slots[h] = s->slots[i];
                g.vals[h] = s->vals[i];
                g.n++;
            }
        set_free(s);
        *s = g;
    }
    size_t h = set_slot(s, k);
    if (s->slots[h]) return 0;
    s->slots[h] = k;
    s->vals[h] = v;
    s->n++;
    return 0;
}

static const char *set_get(const name_set *s, const char *k)
{
    size_t h = set_slot(s, k);
    return s->slots[h] ? s->vals[h] : NULL;
}

static bool set_has(void *ctx, const char *k)
{
    const name_set *s = ctx;
    return s->slots[set_slot(s, k)] != NULL;
}

struct build_ids {
    store_writer *w;
    size_t n, n_old;
    bool legacy;
    core_arena *arena;
    const char **given; /* per API: the given id, or NULL */
    const char **fixed; /* per API: the id decided before the loop (given or same path) */
    const char **prev;  /* per API: its id in the old index (same path, or a rename) */
    const char **final; /* per API: the id it got (NULL: not settled, or not written) */
    bool *gone;         /* per old document: not in the new index (a rename may claim it) */
    bool *kept;         /* per old document: copied as it is (add/remove) */
    bool *claimed;      /* per old document: its id went to an API of the registry */
    name_set taken;     /* ids a proposal may not take */
};

static bool is_dropped(const build_options *opt, const char *api)
{
    for (size_t i = 0; i < opt->n_drop_apis; i++)
        if (api && !strcmp(opt->drop_apis[i], api)) return true;
    return false;
}

/* The old document with this path (they are sorted by path), or -1. */
static long old_find(const store_writer *w, const char *path)
{
    size_t lo = 0, hi = store_writer_old_count(w);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(store_writer_old_doc(w, mid, NULL, NULL), path);
        if (!c) return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

void build_ids_free(build_ids *ids)
{
    if (!ids) return;
    set_free(&ids->taken);
    free(ids->given);
    free(ids->fixed);
    free(ids->prev);
    free(ids->final);
    free(ids->gone);
    free(ids->kept);
    free(ids->claimed);
    core_arena_free(ids->arena);
    free(ids);
}

int build_ids_begin(store_writer *w, spec_registry *reg, const char *const *doc_keys,
                    const build_options *opt, build_ids **out, apidex_error *err)
{
    *out = NULL;
    build_ids *ids = calloc(1, sizeof *ids);
    if (!ids) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    size_t n = reg ? spec_registry_count(reg) : 0, n_old = store_writer_old_count(w);
    ids->w = w;
    ids->n = n;
    ids->n_old = n_old;
    ids->legacy = store_writer_old_ids_legacy(w);
    ids->arena = core_arena_new(0);
    ids->given = calloc(n + 1, sizeof *ids->given);
    ids->fixed = calloc(n + 1, sizeof *ids->fixed);
    ids->prev = calloc(n + 1, sizeof *ids->prev);
    ids->final = calloc(n + 1, sizeof *ids->final);
    ids->gone = calloc(n_old + 1, sizeof *ids->gone);
    ids->kept = calloc(n_old + 1, sizeof *ids->kept);
    ids->claimed = calloc(n_old + 1, sizeof *ids->claimed);
    name_set givens = {0};
    int rc = 0;
    if (!ids->arena || !ids->given || !ids->fixed || !ids->prev || !ids->final || !ids->gone ||
        !ids->kept || !ids->claimed || set_init(&ids->taken, n + n_old + 16) ||
        set_init(&givens, n + 1))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    /* given ids: as they are, and no two documents may have the same */
    for (size_t i = 0; i < n && !rc; i++) {
        const char *g = spec_registry_given_id(reg, i);
        if (!g) continue;
        if (!spec_id_valid(g)) {
            rc = core_error_set(err, APIDEX_EINVAL,
                                "'%.100s' is not a valid API id: 1-%d characters of a-z, 0-9, "
                                "'.', '_' and '-', starting and ending with a letter or digit",
                                g, SPEC_ID_MAX);
            break;
        }
        const char *other = set_get(&givens, g);
        if (other) {
            rc = core_error_set(err, APIDEX_EINVAL, "the API id '%s' is given to both %s and %s", g,
                                other, spec_registry_api(reg, i)->file);
            break;
        }
        ids->given[i] = core_arena_strdup(ids->arena, g);
        if (!ids->given[i] || set_put(&givens, ids->given[i], spec_registry_api(reg, i)->file))
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    /* old documents: listed again (same path), kept as they are (add/remove), or gone */
    bool *listed = calloc(n_old + 1, sizeof *listed);
    if (!rc && !listed) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && !rc; i++) {
        long j = old_find(w, doc_keys[i]);
        if (j < 0) continue;
        listed[j] = true;
        const char *api = NULL;
        store_writer_old_doc(w, (size_t)j, &api, NULL);
        ids->prev[i] = api;
        ids->claimed[j] = true;
    }
    for (size_t j = 0; j < n_old && !rc; j++) {
        const char *api = NULL;
        store_writer_old_doc(w, j, &api, NULL);
        if (listed[j]) continue;
        if (opt->keep_unlisted && !is_dropped(opt, api))
            ids->kept[j] = true;
        else if (!opt->keep_unlisted)
            ids->gone[j] = true;
    }
    free(listed);
    /* what is decided now: a given id, else the old id of the same path (unless a given id
       of another document took it, or the old index's ids were file names) */
    for (size_t i = 0; i < n && !rc; i++) {
        if (ids->given[i])
            ids->fixed[i] = ids->given[i];
        else if (ids->prev[i] && !ids->legacy && !set_get(&givens, ids->prev[i]))
            ids->fixed[i] = ids->prev[i];
    }
    /* taken: the fixed ids, the ids of kept documents, and the aliases of every old API
       that is not dropped */
    for (size_t i = 0; i < n && !rc; i++)
        if (ids->fixed[i]) rc = set_put(&ids->taken, ids->fixed[i], ids->fixed[i]);
    for (size_t j = 0; j < n_old && !rc; j++) {
        const char *api = NULL;
        store_writer_old_doc(w, j, &api, NULL);
        if (ids->kept[j]) rc = set_put(&ids->taken, api, api);
    }
    for (size_t k = 0; k < store_writer_old_alias_count(w) && !rc; k++) {
        const char *alias, *api;
        store_writer_old_alias(w, k, &alias, &api);
        if (!is_dropped(opt, api)) rc = set_put(&ids->taken, alias, alias);
    }
    set_free(&givens);
    if (rc == APIDEX_ENOMEM) rc = core_error_set(err, rc, "out of memory");
    if (rc) {
        build_ids_free(ids);
        return rc;
    }
    *out = ids;
    return 0;
}

int build_ids_settle(build_ids *ids, spec_registry *reg, size_t i, apidex_error *err)
{
    const spec_api *api = spec_registry_api(reg, i);
    const char *id = ids->fixed[i];
    /* a new path with the content of a document that is gone: a rename */
    for (size_t j = 0; !id && !ids->prev[i] && !api->failed && j < ids->n_old; j++) {
        if (!ids->gone[j] || ids->claimed[j] ||
            store_writer_old_hash(ids->w, j) != api->content_hash)
            continue;
        const char *old_api = NULL;
        store_writer_old_doc(ids->w, j, &old_api, NULL);
        ids->claimed[j] = true;
        ids->prev[i] = old_api;
        /* unless a document before it in the order took the id (it proposed the same) */
        if (!ids->legacy && !set_has(&ids->taken, old_api)) id = old_api;
    }
    char buf[SPEC_ID_MAX + 1];
    if (!id) {
        char proposed[SPEC_ID_MAX + 1];
        spec_id_propose(api, proposed);
        int rc = spec_id_unique(proposed, set_has, &ids->taken, buf);
        if (rc) return core_error_set(err, rc, "no free API id for %s", api->file);
        id = buf;
    }
    const char *copy = core_arena_strdup(ids->arena, id);
    if (!copy || set_put(&ids->taken, copy, copy))
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    ids->final[i] = copy;
    return spec_registry_set_id(reg, i, copy, err);
}

const char *build_ids_final(const build_ids *ids, size_t i)
{
    return ids && i < ids->n ? ids->final[i] : NULL;
}

void build_ids_unwritten(build_ids *ids, size_t i)
{
    if (ids && i < ids->n) ids->final[i] = NULL;
}

int build_ids_finish(build_ids *ids, apidex_error *err)
{
    store_writer *w = ids->w;
    size_t n = ids->n;
    /* live: every id of the new index; by_prev: an old id → the id its API has now */
    name_set live = {0}, by_prev = {0};
    int rc = 0;
    if (set_init(&live, n + ids->n_old + 1) || set_init(&by_prev, n + ids->n_old + 1))
        rc = APIDEX_ENOMEM;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!ids->final[i]) continue;
        rc = set_put(&live, ids->final[i], ids->final[i]);
        if (!rc && ids->prev[i]) rc = set_put(&by_prev, ids->prev[i], ids->final[i]);
    }
    for (size_t j = 0; j < ids->n_old && !rc; j++) {
        if (!ids->kept[j]) continue;
        const char *api = NULL;
        store_writer_old_doc(w, j, &api, NULL);
        rc = set_put(&live, api, api);
        if (!rc) rc = set_put(&by_prev, api, api);
    }
    if (rc) {
        set_free(&live);
        set_free(&by_prev);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    /* an API whose id changed answers to the old one */
    for (size_t i = 0; i < n && !rc; i++)
        if (ids->final[i] && ids->prev[i] && strcmp(ids->prev[i], ids->final[i]) != 0 &&
            !set_get(&live, ids->prev[i]))
            rc = store_writer_add_alias(w, ids->prev[i], ids->final[i], err);
    /* and keeps the aliases it had */
    for (size_t k = 0; k < store_writer_old_alias_count(w) && !rc; k++) {
        const char *alias, *api;
        store_writer_old_alias(w, k, &alias, &api);
        const char *now = set_get(&by_prev, api);
        if (now && !set_get(&live, alias)) rc = store_writer_add_alias(w, alias, now, err);
    }
    set_free(&live);
    set_free(&by_prev);
    return rc;
}
