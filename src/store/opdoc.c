/*
 * The operation behind an index row, for every reader that needs more than the index keeps
 * (show and get_endpoint at a detail level, /v1/snippet and /v1/apis/{id}, tool definitions,
 * call_endpoint and the RestGPT loop's calls, askAPI's example check): the row's API
 * document loaded again (store_api_registry: the kept snapshot of an MCP server's list, else
 * the file or URL read again) and the operation with the row's method and path in it.
 *
 * Loading a document costs far more than anything done with it (Stripe's 4 MB: about 0.7 s),
 * and an agent asks for several endpoints of one API in a row, so each open index keeps the
 * documents it loaded in a cache of its own: a server's snapshot is one store_index, so a
 * reload (a new snapshot) starts with an empty cache and never answers from an older build.
 * A document is kept only while it is the version the index was built from (loaded without
 * failing, same content hash); any other answer is the caller's alone and freed on release,
 * so what a caller sees is what a fresh read would give. The cache is bounded by count and
 * by bytes (each document's load_memory_peak, what its load charged to its budget): the
 * least recently used documents go first, and one in use is freed when its last holder
 * releases it. One mutex guards the list; a loaded spec_api is read-only, so holders of the
 * same document use it at once on any number of threads. Two threads missing the same
 * document at once both load it; the second keeps the first's entry and frees its own.
 */
#include "store/store_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { DEFAULT_MAX_DOCS = 8 };
#define DEFAULT_MAX_BYTES ((size_t)512 << 20)

struct store_doc {
    store_doc_cache *cache; /* NULL: not kept (the caller's alone) */
    spec_registry *reg;
    size_t api_index;
    size_t bytes;
    unsigned refs;
    bool kept;       /* in the cache's list */
    store_doc *next; /* the list, most recently used first */
};

struct store_doc_cache {
    pthread_mutex_t lock;
    store_doc *head;
    size_t n, bytes, max_docs, max_bytes;
    size_t parses; /* documents loaded through the cache (hits do not count) */
};

store_doc_cache *store_doc_cache_new(void)
{
    store_doc_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    pthread_mutex_init(&c->lock, NULL);
    c->max_docs = DEFAULT_MAX_DOCS;
    c->max_bytes = DEFAULT_MAX_BYTES;
    return c;
}

static void doc_free(store_doc *d)
{
    spec_registry_free(d->reg);
    free(d);
}

void store_doc_cache_free(store_doc_cache *c)
{
    if (!c) return;
    for (store_doc *d = c->head; d;) {
        store_doc *next = d->next;
        /* a holder still using it past store_close is the holder's bug; never free it twice */
        if (d->refs) {
            d->kept = false;
            d->cache = NULL;
        } else {
            doc_free(d);
        }
        d = next;
    }
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Unlinks d from the list (lock held); freed now when nobody holds it. */
static void evict(store_doc_cache *c, store_doc **link)
{
    store_doc *d = *link;
    *link = d->next;
    d->next = NULL;
    d->kept = false;
    c->n--;
    c->bytes -= d->bytes;
    if (!d->refs) doc_free(d);
}

/* Evicts from the tail until the bound holds (lock held). The newest stays even when it alone
   is over the bytes: a document larger than the bound would be read on every request. */
static void trim(store_doc_cache *c)
{
    while (c->n && (c->n > c->max_docs || c->bytes > c->max_bytes)) {
        store_doc **link = &c->head;
        while ((*link)->next) link = &(*link)->next;
        if (*link == c->head && c->n <= c->max_docs && c->max_docs) break; /* one over bytes */
        evict(c, link);
    }
}

void store_doc_cache_limits(store_index *idx, size_t max_docs, size_t max_bytes)
{
    store_doc_cache *c = store_index_doc_cache(idx);
    if (!c) return;
    pthread_mutex_lock(&c->lock);
    c->max_docs = max_docs;
    c->max_bytes = max_bytes;
    trim(c);
    pthread_mutex_unlock(&c->lock);
}

store_doc_stats store_doc_cache_stats(store_index *idx)
{
    store_doc_stats s = {0};
    store_doc_cache *c = store_index_doc_cache(idx);
    if (!c) return s;
    pthread_mutex_lock(&c->lock);
    s.parses = c->parses;
    s.kept = c->n;
    s.bytes = c->bytes;
    pthread_mutex_unlock(&c->lock);
    return s;
}

/* The kept document of API ai (only the indexed version is kept), now the most recently used
   (lock held). */
static store_doc *find_kept(store_doc_cache *c, size_t ai)
{
    for (store_doc **link = &c->head; *link; link = &(*link)->next) {
        store_doc *d = *link;
        if (d->api_index != ai) continue;
        *link = d->next;
        d->next = c->head;
        c->head = d;
        return d;
    }
    return NULL;
}

int store_api_doc(store_index *idx, size_t ai, store_doc **out, const spec_api **api,
                  apidex_error *err)
{
    *out = NULL;
    *api = NULL;
    const store_api *apis = NULL;
    size_t n = 0;
    int rc = store_apis(idx, &apis, &n, err);
    if (rc) return rc;
    if (ai >= n) return core_error_set(err, APIDEX_EINVAL, "no such API");
    store_doc_cache *c = store_index_doc_cache(idx);
    if (c) {
        pthread_mutex_lock(&c->lock);
        store_doc *d = find_kept(c, ai);
        if (d) d->refs++;
        pthread_mutex_unlock(&c->lock);
        if (d) {
            *out = d;
            *api = spec_registry_api(d->reg, 0);
            return 0;
        }
    }
    store_doc *d = calloc(1, sizeof *d);
    if (!d) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    d->api_index = ai;
    d->refs = 1;
    rc = store_api_registry(idx, ai, &d->reg, err);
    if (!d->reg) {
        free(d);
        return rc;
    }
    *out = d;
    const spec_api *a = spec_registry_count(d->reg) ? spec_registry_api(d->reg, 0) : NULL;
    *api = a;
    if (!c) return rc;
    pthread_mutex_lock(&c->lock);
    c->parses++;
    bool keep = !rc && a && !a->failed && a->content_hash == apis[ai].content_hash;
    if (keep) {
        store_doc *other = find_kept(c, ai); /* another thread loaded it meanwhile */
        if (other) {
            other->refs++;
            pthread_mutex_unlock(&c->lock);
            doc_free(d);
            *out = other;
            *api = spec_registry_api(other->reg, 0);
            return 0;
        }
        d->cache = c;
        d->kept = true;
        d->bytes = a->load_memory_peak ? a->load_memory_peak : 1;
        d->next = c->head;
        c->head = d;
        c->n++;
        c->bytes += d->bytes;
        trim(c);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

void store_doc_release(store_doc *d)
{
    if (!d) return;
    store_doc_cache *c = d->cache;
    if (c) pthread_mutex_lock(&c->lock);
    bool gone = --d->refs == 0 && !d->kept;
    if (c) pthread_mutex_unlock(&c->lock);
    if (gone) doc_free(d);
}

const spec_operation *store_doc_operation(const spec_api *api, const char *method, const char *path)
{
    for (size_t i = 0; api && method && path && i < api->n_ops; i++)
        if (!strcmp(api->ops[i].method, method) && !strcmp(api->ops[i].path, path))
            return &api->ops[i];
    return NULL;
}

int store_operation_doc(store_index *idx, long oi, store_doc **out, const spec_api **api,
                        const spec_operation **op, apidex_error *err)
{
    *out = NULL;
    *api = NULL;
    *op = NULL;
    const store_operation *ops = NULL;
    size_t n = 0;
    int rc = store_operations(idx, &ops, &n, err);
    if (rc) return rc;
    if (oi < 0 || (size_t)oi >= n) return core_error_set(err, APIDEX_EINVAL, "no such endpoint");
    rc = store_api_doc(idx, ops[oi].api_index, out, api, err);
    if (!rc && *api && !(*api)->failed)
        *op = store_doc_operation(*api, ops[oi].method, ops[oi].path);
    return rc;
}
