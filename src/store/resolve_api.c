/*
 * Which API a person means: one resolver for every place that takes an API id
 * (CLI --api, HTTP and MCP parameters), so they all accept the same names.
 */
#include "store/store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void store_nearest_keep(long *best, size_t *dist, size_t *n, size_t max, long item, size_t d)
{
    size_t pos = *n < max ? (*n)++ : max;
    if (pos == max) {
        if (d >= dist[max - 1]) return;
        pos = max - 1;
    }
    while (pos > 0 && dist[pos - 1] > d) {
        best[pos] = best[pos - 1];
        dist[pos] = dist[pos - 1];
        pos--;
    }
    best[pos] = item;
    dist[pos] = d;
}

enum { RESOLVE_MAX_NAMED = 5 };

static bool prefix_ci(const char *s, const char *prefix, size_t n)
{
    return s && strncasecmp(s, prefix, n) == 0;
}

static size_t edit_distance(const char *a, const char *b, size_t cap)
{
    return core_edit_distance(a, strlen(a), b, strlen(b), cap);
}

/* The APIs matching by `how`: 0 id or alias, 1 title, 2 prefix of id or alias, 3 prefix of
   title. Up to RESOLVE_MAX_NAMED indexes go to hits; returns how many matched in all. */
static size_t match(const store_api *apis, size_t n, const char *name, int how, long *hits)
{
    size_t found = 0, len = strlen(name);
    for (size_t i = 0; i < n; i++) {
        const store_api *a = &apis[i];
        bool ok = false;
        if (how == 0 || how == 2) {
            ok = how == 0 ? !strcasecmp(a->id, name) : prefix_ci(a->id, name, len);
            for (size_t k = 0; k < a->n_aliases && !ok; k++)
                ok = how == 0 ? !strcasecmp(a->aliases[k], name)
                              : prefix_ci(a->aliases[k], name, len);
        } else if (a->title) {
            ok = how == 1 ? !strcasecmp(a->title, name) : prefix_ci(a->title, name, len);
        }
        if (!ok) continue;
        if (found < RESOLVE_MAX_NAMED) hits[found] = (long)i;
        found++;
    }
    return found;
}

/* ", 'a', 'b'" for hits into b. */
static void name_hits(core_buf *b, const store_api *apis, const long *hits, size_t n)
{
    for (size_t k = 0; k < n && k < RESOLVE_MAX_NAMED; k++)
        core_buf_printf(b, "%s'%s'", k ? ", " : "", apis[hits[k]].id);
}

/* How far name is from one id or alias: edits, less for a shared start of three or more
   characters, or for one word of it within a few edits ("weathr" → "open-weather-station"). */
static size_t distance(const char *name, const char *cand, size_t cap)
{
    size_t len = strlen(name);
    size_t d = edit_distance(name, cand, cap);
    size_t common = 0;
    while (name[common] && cand[common] && (name[common] | 32) == (cand[common] | 32)) common++;
    if (common >= 3 && common >= len / 2 && d > 1) d = 1 + (d > 1);
    for (const char *w = cand; *w && d > 1;) {
        size_t wl = strcspn(w, "-._");
        char word[SPEC_ID_MAX + 1];
        snprintf(word, sizeof word, "%.*s", (int)wl, w);
        if (wl >= 3 && edit_distance(name, word, cap) + 1 < d)
            d = edit_distance(name, word, cap) + 1;
        w += wl;
        if (*w) w++;
    }
    return d;
}

/* The ids nearest to name (by their ids and aliases): sharing its start, or within a few
   edits. */
static void nearest(core_buf *b, const store_api *apis, size_t n, const char *name)
{
    size_t len = strlen(name), cap = len / 3 + 2;
    long best[RESOLVE_MAX_NAMED];
    size_t dist[RESOLVE_MAX_NAMED], nb = 0;
    for (size_t i = 0; i < n; i++) {
        const store_api *a = &apis[i];
        size_t d = distance(name, a->id, cap);
        for (size_t k = 0; k < a->n_aliases; k++) {
            size_t dk = distance(name, a->aliases[k], cap);
            if (dk < d) d = dk;
        }
        if (d >= cap) continue;
        store_nearest_keep(best, dist, &nb, RESOLVE_MAX_NAMED, (long)i, d);
    }
    if (nb) {
        core_buf_puts(b, "; did you mean ");
        name_hits(b, apis, best, nb);
        core_buf_putc(b, '?');
        return;
    }
    /* nothing close: the first ids, and how many there are */
    core_buf_printf(b, "; the index has %zu: ", n);
    for (size_t i = 0; i < n && i < 12; i++) core_buf_printf(b, "%s%s", i ? ", " : "", apis[i].id);
    if (n > 12) core_buf_printf(b, " and %zu more", n - 12);
}

int store_resolve_api(store_index *idx, const char *name, long *out, apidex_error *err)
{
    *out = -1;
    if (!name || !*name) return core_error_set(err, APIDEX_EINVAL, "an API id is empty");
    long i = store_find_api(idx, name);
    if (i >= 0) {
        *out = i;
        return 0;
    }
    const store_api *apis = NULL;
    size_t n = 0;
    int rc = store_apis(idx, &apis, &n, err);
    if (rc) return rc;
    long hits[RESOLVE_MAX_NAMED];
    for (int how = 0; how < 4; how++) {
        size_t found = match(apis, n, name, how, hits);
        if (found == 1) {
            *out = hits[0];
            return 0;
        }
        if (found > 1) {
            core_buf b;
            core_buf_init(&b, 0);
            name_hits(&b, apis, hits, found);
            core_error_set(err, APIDEX_EINVAL, "API '%.200s' is ambiguous: it could be %s%s", name,
                           b.failed ? "" : b.data, found > RESOLVE_MAX_NAMED ? ", ..." : "");
            core_buf_free(&b);
            return APIDEX_EINVAL;
        }
    }
    core_buf b;
    core_buf_init(&b, 0);
    nearest(&b, apis, n, name);
    if (!n)
        core_error_set(err, APIDEX_ENOTFOUND, "unknown API '%.200s': the index has no API", name);
    else
        core_error_set(err, APIDEX_ENOTFOUND, "unknown API '%.200s'%s", name,
                       b.failed || !b.len ? "" : b.data);
    core_buf_free(&b);
    return APIDEX_ENOTFOUND;
}
