/* Small open-addressing hash maps for the loader: node pointer → index, string → index. */
#include "oas/oas_int.h"

#include <stdlib.h>
#include <string.h>

static size_t ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static int ptrmap_grow(spec_ptrmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    const void **keys = calloc(cap, sizeof *keys);
    size_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return APIDEX_ENOMEM;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t h = ptr_hash(m->keys[i]) & (cap - 1);
        while (keys[h]) h = (h + 1) & (cap - 1);
        keys[h] = m->keys[i];
        vals[h] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

int spec_ptrmap_put(spec_ptrmap *m, const void *key, size_t val)
{
    if (!key) return APIDEX_EINVAL;
    if ((m->n + 1) * 2 > m->cap && ptrmap_grow(m)) return APIDEX_ENOMEM;
    size_t h = ptr_hash(key) & (m->cap - 1);
    while (m->keys[h] && m->keys[h] != key) h = (h + 1) & (m->cap - 1);
    if (!m->keys[h]) {
        m->keys[h] = key;
        m->n++;
    }
    m->vals[h] = val;
    return 0;
}

bool spec_ptrmap_get(const spec_ptrmap *m, const void *key, size_t *val)
{
    if (!m->cap || !key) return false;
    size_t h = ptr_hash(key) & (m->cap - 1);
    while (m->keys[h]) {
        if (m->keys[h] == key) {
            if (val) *val = m->vals[h];
            return true;
        }
        h = (h + 1) & (m->cap - 1);
    }
    return false;
}

void spec_ptrmap_free(spec_ptrmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static int strmap_grow(spec_strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    char **keys = calloc(cap, sizeof *keys);
    size_t *lens = malloc(cap * sizeof *lens);
    size_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !lens || !vals) {
        free(keys);
        free(lens);
        free(vals);
        return APIDEX_ENOMEM;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t h = (size_t)core_hash64(m->keys[i], m->lens[i]) & (cap - 1);
        while (keys[h]) h = (h + 1) & (cap - 1);
        keys[h] = m->keys[i];
        lens[h] = m->lens[i];
        vals[h] = m->vals[i];
    }
    free(m->keys);
    free(m->lens);
    free(m->vals);
    m->keys = keys;
    m->lens = lens;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

int spec_strmap_put(spec_strmap *m, const char *key, size_t len, size_t val)
{
    if ((m->n + 1) * 2 > m->cap && strmap_grow(m)) return APIDEX_ENOMEM;
    size_t h = (size_t)core_hash64(key, len) & (m->cap - 1);
    while (m->keys[h]) {
        if (m->lens[h] == len && memcmp(m->keys[h], key, len) == 0) {
            m->vals[h] = val;
            return 0;
        }
        h = (h + 1) & (m->cap - 1);
    }
    char *k = malloc(len + 1);
    if (!k) return APIDEX_ENOMEM;
    if (len) memcpy(k, key, len);
    k[len] = '\0';
    m->keys[h] = k;
    m->lens[h] = len;
    m->vals[h] = val;
    m->n++;
    return 0;
}

bool spec_strmap_get(const spec_strmap *m, const char *key, size_t len, size_t *val)
{
    if (!m->cap) return false;
    size_t h = (size_t)core_hash64(key, len) & (m->cap - 1);
    while (m->keys[h]) {
        if (m->lens[h] == len && memcmp(m->keys[h], key, len) == 0) {
            if (val) *val = m->vals[h];
            return true;
        }
        h = (h + 1) & (m->cap - 1);
    }
    return false;
}

void spec_strmap_free(spec_strmap *m)
{
    for (size_t i = 0; i < m->cap; i++) free(m->keys[i]);
    free(m->keys);
    free(m->lens);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
