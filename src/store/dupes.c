/*
 * One entry per service: a registry often holds one service more than once (two versions
 * of its document, a copy from another source). Two APIs are the same service when their
 * titles match once normalised (case, punctuation and version words aside), or when their
 * first servers have the same host and they share endpoints (method and path shape: at
 * least one, and a fifth of the smaller API's); a shared host alone is not enough (one
 * cloud host serves many services). The groups are closed under that (union-find). In a group,
 * the newest is the one with the highest info.version (semver-ish, below), then the most
 * recently modified document, then the later in the index's order. Answers prefer it: an
 * older API's operation whose method and path shape the newest also has is left out of
 * search (search/engine.c, answer.duplicates).
 */
#include "store/store_int.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* A version word: "v2", "2", "2.0", "2020-01-01" (digits, dots, dashes, after an optional v). */
static bool version_word(const char *w, size_t n)
{
    size_t i = (n > 1 && (w[0] == 'v' || w[0] == 'V')) ? 1 : 0;
    if (i == n || !isdigit((unsigned char)w[i])) return false;
    for (; i < n; i++)
        if (!isdigit((unsigned char)w[i]) && w[i] != '.' && w[i] != '-') return false;
    return true;
}

void store_title_norm(const char *title, core_buf *out)
{
    core_buf_reset(out);
    const char *p = title ? title : "";
    while (*p) {
        while (*p && !isalnum((unsigned char)*p)) p++;
        const char *w = p;
        while (*p && (isalnum((unsigned char)*p) || *p == '.' || *p == '-')) p++;
        size_t n = (size_t)(p - w);
        while (n && (w[n - 1] == '.' || w[n - 1] == '-')) n--;
        if (!n || version_word(w, n)) continue;
        if (out->len) core_buf_putc(out, ' ');
        for (size_t i = 0; i < n; i++)
            if (isalnum((unsigned char)w[i]))
                core_buf_putc(out, (char)tolower((unsigned char)w[i]));
    }
    if (!out->data) core_buf_puts(out, "");
}

void store_server_host(const char *url, core_buf *out)
{
    core_buf_reset(out);
    const char *p = url ? strstr(url, "://") : NULL;
    if (p) {
        p += 3;
        size_t n = strcspn(p, "/:?#");
        const char *at = memchr(p, '@', n);
        if (at) {
            n -= (size_t)(at + 1 - p);
            p = at + 1;
        }
        if (n > 4 && !strncasecmp(p, "www.", 4)) {
            p += 4;
            n -= 4;
        }
        /* a placeholder host ({region}.example.com) or a local one names no service */
        bool generic = memchr(p, '{', n) || (n == 9 && !strncasecmp(p, "localhost", 9)) ||
                       (n >= 9 && !strncasecmp(p, "127.0.0.1", 9));
        for (size_t i = 0; i < n && !generic; i++)
            core_buf_putc(out, (char)tolower((unsigned char)p[i]));
        if (generic) core_buf_reset(out);
    }
    if (!out->data) core_buf_puts(out, "");
}

/* The next token of a version: a run of digits (*num set) or of letters; separators are
   skipped. Returns its start, or NULL at the end. */
static const char *version_token(const char **s, size_t *len, bool *num, uint64_t *value)
{
    const char *p = *s;
    while (*p && !isalnum((unsigned char)*p)) p++;
    if (!*p) return NULL;
    const char *start = p;
    *num = isdigit((unsigned char)*p);
    *value = 0;
    while (*p && (*num ? isdigit((unsigned char)*p) : isalpha((unsigned char)*p))) {
        if (*num && *value < UINT64_MAX / 10) *value = *value * 10 + (uint64_t)(*p - '0');
        p++;
    }
    *len = (size_t)(p - start);
    *s = p;
    return start;
}

int store_version_cmp(const char *a, const char *b)
{
    if (!a || !*a) return (!b || !*b) ? 0 : -1;
    if (!b || !*b) return 1;
    if (*a == 'v' || *a == 'V') a++;
    if (*b == 'v' || *b == 'V') b++;
    for (;;) {
        size_t la = 0, lb = 0;
        bool na = false, nb = false;
        uint64_t va = 0, vb = 0;
        const char *ta = version_token(&a, &la, &na, &va);
        const char *tb = version_token(&b, &lb, &nb, &vb);
        if (!ta && !tb) return 0;
        /* one ends: a pre-release tail (1.0.0-beta) is older, a further number newer */
        if (!ta) return nb ? -1 : 1;
        if (!tb) return na ? 1 : -1;
        if (na != nb) return na ? 1 : -1; /* 1.0.1 > 1.0.beta */
        if (na && va != vb) return va < vb ? -1 : 1;
        if (!na) {
            size_t n = la < lb ? la : lb;
            int c = strncasecmp(ta, tb, n);
            if (c) return c < 0 ? -1 : 1;
            if (la != lb) return la < lb ? -1 : 1;
        }
    }
}

static double doc_mtime(const char *document)
{
    struct stat st;
    if (!document || strstr(document, "://") || stat(document, &st)) return 0;
    return (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9;
}

/* Is API i newer than API j? mtime: each API's document time, read once (NAN: not yet). */
static bool newer(const store_api *apis, size_t i, size_t j, double *mtime)
{
    int c = store_version_cmp(apis[i].version, apis[j].version);
    if (c) return c > 0;
    if (isnan(mtime[i])) mtime[i] = doc_mtime(apis[i].document);
    if (isnan(mtime[j])) mtime[j] = doc_mtime(apis[j].document);
    if (mtime[i] != mtime[j]) return mtime[i] > mtime[j];
    return i > j;
}

static size_t uf_find(size_t *parent, size_t i)
{
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

typedef struct keyed {
    char *key;
    size_t api;
} keyed;

static int keyed_str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->api < y->api ? -1 : x->api > y->api);
}

/* Every API's operations, found once: op_start[a]..op_start[a + 1] in op_list, and each
   API's sorted "METHOD shape" keys, made the first time a host run asks for them. The
   whole grouping so reads each operation at most once (d->work counts the reads). */
typedef struct op_index {
    size_t *op_start, *op_list;
    char ***keys;
    size_t *n_keys;
    bool *made;
} op_index;

static int api_id_cmp(const void *a, const void *b, void *apis)
{
    const store_api *v = apis;
    return strcmp(v[*(const size_t *)a].id, v[*(const size_t *)b].id);
}

/* The API whose id is `id`, by binary search over ids (sorted: API indexes by id). */
static size_t api_of(const store_api *apis, const size_t *by_id, size_t n, const char *id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(apis[by_id[mid]].id, id ? id : "");
        if (!c) return by_id[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

static void op_index_free(op_index *x, size_t n)
{
    for (size_t a = 0; x->keys && a < n; a++) {
        for (size_t i = 0; x->keys[a] && i < x->n_keys[a]; i++) free(x->keys[a][i]);
        free(x->keys[a]);
    }
    free(x->keys);
    free(x->n_keys);
    free(x->made);
    free(x->op_start);
    free(x->op_list);
}

static int op_index_make(const store_api *apis, size_t n, const store_operation *ops, size_t n_ops,
                         op_index *x)
{
    memset(x, 0, sizeof *x);
    size_t *by_id = malloc((n ? n : 1) * sizeof *by_id);
    size_t *api = malloc((n_ops ? n_ops : 1) * sizeof *api);
    x->op_start = calloc(n + 2, sizeof *x->op_start);
    x->op_list = malloc((n_ops ? n_ops : 1) * sizeof *x->op_list);
    x->keys = calloc(n ? n : 1, sizeof *x->keys);
    x->n_keys = calloc(n ? n : 1, sizeof *x->n_keys);
    x->made = calloc(n ? n : 1, sizeof *x->made);
    if (!by_id || !api || !x->op_start || !x->op_list || !x->keys || !x->n_keys || !x->made) {
        free(by_id);
        free(api);
        op_index_free(x, n);
        return APIDEX_ENOMEM;
    }
    for (size_t a = 0; a < n; a++) by_id[a] = a;
    qsort_r(by_id, n, sizeof *by_id, api_id_cmp, (void *)apis);
    /* counting sort of the operations by API (ops usually come grouped: reuse the last) */
    for (size_t i = 0; i < n_ops; i++) {
        if (i && ops[i].api && ops[i - 1].api &&
            (ops[i].api == ops[i - 1].api || !strcmp(ops[i].api, ops[i - 1].api)))
            api[i] = api[i - 1];
        else
            api[i] = api_of(apis, by_id, n, ops[i].api);
        if (api[i] != SIZE_MAX) x->op_start[api[i] + 2]++;
    }
    for (size_t a = 0; a < n; a++) x->op_start[a + 2] += x->op_start[a + 1];
    for (size_t i = 0; i < n_ops; i++)
        if (api[i] != SIZE_MAX) x->op_list[x->op_start[api[i] + 1]++] = i;
    free(by_id);
    free(api);
    return 0;
}

/* The sorted "METHOD shape" keys of API a's operations, made once. */
static int api_keys(op_index *x, size_t a, const store_operation *ops, size_t *work)
{
    if (x->made[a]) return 0;
    x->made[a] = true;
    size_t from = x->op_start[a], to = x->op_start[a + 1];
    char **k = calloc(to > from ? to - from : 1, sizeof *k);
    if (!k) return APIDEX_ENOMEM;
    core_buf b, shape;
    core_buf_init(&b, 0);
    core_buf_init(&shape, 0);
    size_t m = 0;
    int rc = 0;
    for (size_t j = from; j < to && !rc; j++) {
        const store_operation *op = &ops[x->op_list[j]];
        (*work)++;
        store_path_shape(op->path, &shape);
        core_buf_reset(&b);
        core_buf_printf(&b, "%s %s", op->method, shape.data ? shape.data : "");
        if (b.failed || !(k[m] = strdup(b.data)))
            rc = APIDEX_ENOMEM;
        else
            m++;
    }
    core_buf_free(&b);
    core_buf_free(&shape);
    qsort(k, m, sizeof *k, keyed_str_cmp);
    x->keys[a] = k;
    x->n_keys[a] = m;
    return rc;
}

/* Do APIs a and b share enough endpoints to be one service? */
static int share_endpoints(op_index *x, size_t a, size_t b, const store_operation *ops,
                           size_t *work, bool *yes)
{
    *yes = false;
    int rc = api_keys(x, a, ops, work);
    if (!rc) rc = api_keys(x, b, ops, work);
    if (rc) return rc;
    char **ka = x->keys[a], **kb = x->keys[b];
    size_t na = x->n_keys[a], nb = x->n_keys[b], shared = 0;
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        int c = strcmp(ka[i], kb[j]);
        if (!c) shared++;
        if (c <= 0) i++;
        if (c >= 0) j++;
    }
    size_t smaller = na < nb ? na : nb;
    *yes = shared >= 1 && shared * 5 >= smaller;
    return 0;
}

/* Joins the APIs whose key (0 title, 1 host) is equal and not empty; hosts only with shared
   endpoints (each API is compared with at most HOST_PAIRS APIs of its host before it). */
enum { HOST_PAIRS = 64 };
static int join_by(const store_api *apis, size_t n, int which, size_t *parent,
                   const store_operation *ops, op_index *x, size_t *work)
{
    keyed *k = calloc(n ? n : 1, sizeof *k);
    if (!k) return APIDEX_ENOMEM;
    core_buf b;
    core_buf_init(&b, 0);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (which == 0)
            store_title_norm(apis[i].title, &b);
        else
            store_server_host(apis[i].n_servers ? apis[i].servers[0].url : NULL, &b);
        k[i].api = i;
        if (b.failed || !(k[i].key = strdup(b.data ? b.data : ""))) rc = APIDEX_ENOMEM;
    }
    core_buf_free(&b);
    if (!rc) qsort(k, n, sizeof *k, keyed_cmp);
    for (size_t i = 1; i < n && !rc; i++) {
        if (!k[i].key[0]) continue;
        size_t first = i; /* the run of APIs with this key before i */
        while (first > 0 && !strcmp(k[first - 1].key, k[i].key) && i - first < HOST_PAIRS) first--;
        for (size_t j = first; j < i && !rc; j++) {
            if (which == 1) {
                bool yes = false;
                rc = share_endpoints(x, k[i].api, k[j].api, ops, work, &yes);
                if (rc || !yes) continue;
            }
            size_t a = uf_find(parent, k[i].api), c = uf_find(parent, k[j].api);
            if (a != c) parent[a < c ? c : a] = a < c ? a : c;
            if (which == 0) break; /* equal titles: one link joins the run */
        }
    }
    for (size_t i = 0; i < n; i++) free(k[i].key);
    free(k);
    return rc;
}

int store_duplicates(const store_api *apis, size_t n, const store_operation *ops, size_t n_ops,
                     store_dups **out)
{
    *out = NULL;
    store_dups *d = calloc(1, sizeof *d);
    size_t *parent = malloc((n ? n : 1) * sizeof *parent);
    size_t *count = calloc(n ? n : 1, sizeof *count);
    size_t *group_at = malloc((n ? n : 1) * sizeof *group_at); /* per root: its group */
    double *mtime = malloc((n ? n : 1) * sizeof *mtime);
    size_t cap = 0;
    op_index x = {0};
    if (!d || !parent || !count || !group_at || !mtime ||
        !(d->group_of = malloc((n ? n : 1) * sizeof *d->group_of)) ||
        op_index_make(apis, n, ops, n_ops, &x)) {
        free(parent);
        free(count);
        free(group_at);
        free(mtime);
        store_dups_free(d);
        return APIDEX_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        parent[i] = i;
        mtime[i] = NAN;
    }
    int rc = join_by(apis, n, 0, parent, ops, &x, &d->work);
    if (!rc) rc = join_by(apis, n, 1, parent, ops, &x, &d->work);
    op_index_free(&x, n);
    for (size_t i = 0; i < n && !rc; i++) count[uf_find(parent, i)]++;
    for (size_t i = 0; i < n && !rc; i++) {
        d->group_of[i] = SIZE_MAX;
        group_at[i] = SIZE_MAX;
    }
    /* one pass over the APIs: a group is opened at its root's first member */
    for (size_t i = 0; i < n && !rc; i++) {
        size_t r = uf_find(parent, i);
        if (count[r] < 2) continue;
        if (group_at[r] == SIZE_MAX) {
            if (d->n == cap) {
                size_t nc = cap ? 2 * cap : 16;
                store_dup_group *ng = realloc(d->groups, nc * sizeof *ng);
                if (!ng) {
                    rc = APIDEX_ENOMEM;
                    break;
                }
                d->groups = ng;
                cap = nc;
            }
            store_dup_group *ng = &d->groups[d->n];
            ng->n = 0;
            if (!(ng->apis = malloc(count[r] * sizeof *ng->apis))) {
                rc = APIDEX_ENOMEM;
                break;
            }
            group_at[r] = d->n++;
        }
        store_dup_group *g = &d->groups[group_at[r]];
        /* insertion by age: newest first */
        size_t at = g->n++;
        while (at > 0 && newer(apis, i, g->apis[at - 1], mtime)) {
            g->apis[at] = g->apis[at - 1];
            at--;
        }
        g->apis[at] = i;
        d->group_of[i] = group_at[r];
    }
    free(parent);
    free(count);
    free(group_at);
    free(mtime);
    if (rc) {
        store_dups_free(d);
        return rc;
    }
    *out = d;
    return 0;
}

void store_dups_free(store_dups *d)
{
    if (!d) return;
    for (size_t i = 0; i < d->n; i++) free(d->groups[i].apis);
    free(d->groups);
    free(d->group_of);
    free(d);
}
