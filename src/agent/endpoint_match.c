/*
 * Which indexed operation a model means by "METHOD /path". Models paraphrase
 * placeholders ({id} for {movie_id}), fill them in (/movie/550), prefix the
 * server (https://api.example.com/3/movie/...) or add a query string; the
 * agent must still never return an endpoint that is not in the index.
 */
#include "agent/agent_int.h"

#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { MATCH_MAX_SEGS = 64 };

typedef struct seg {
    const char *s;
    size_t n;
} seg;

static size_t split_path(const char *p, size_t n, seg *out, size_t cap)
{
    size_t k = 0, i = 0;
    while (i < n) {
        while (i < n && p[i] == '/') i++;
        size_t start = i;
        while (i < n && p[i] != '/') i++;
        if (i > start) {
            if (k == cap) return cap + 1;
            out[k].s = p + start;
            out[k].n = i - start;
            k++;
        }
    }
    return k;
}

static bool has_brace(const seg *s)
{
    return memchr(s->s, '{', s->n) && memchr(s->s, '}', s->n);
}

/*
 * Score of matching one template segment against a given segment: 3 literal,
 * 2 placeholder for placeholder (names may differ), 1 a concrete value in a
 * placeholder, 0 no match. "{id}.json" keeps its literal prefix and suffix.
 */
static int seg_score(const seg *t, const seg *g)
{
    if (t->n == g->n && !memcmp(t->s, g->s, t->n)) return 3;
    if (!has_brace(t)) return 0;
    const char *open = memchr(t->s, '{', t->n);
    const char *close = memchr(open, '}', t->n - (size_t)(open - t->s));
    if (!close) return 0;
    size_t pre = (size_t)(open - t->s), suf = t->n - (size_t)(close - t->s) - 1;
    if (g->n < pre + suf || memcmp(g->s, t->s, pre) || memcmp(g->s + g->n - suf, close + 1, suf))
        return 0;
    if (g->n == pre + suf) return 0; /* an empty value fills no placeholder */
    seg inner = {g->s + pre, g->n - pre - suf};
    return has_brace(&inner) ? 2 : 1;
}

/* Sum of segment scores, or -1 when the shapes differ. */
static int path_score(const seg *t, size_t nt, const seg *g, size_t ng)
{
    if (nt != ng || nt > MATCH_MAX_SEGS) return -1;
    int total = 0;
    for (size_t i = 0; i < nt; i++) {
        int s = seg_score(&t[i], &g[i]);
        if (!s) return -1;
        total += s;
    }
    return total;
}

/* The path part of what a model wrote: no scheme/host, no query or fragment, trimmed. */
static void clean_path(const char *in, const char **p, size_t *n)
{
    while (isspace((unsigned char)*in) || *in == '`' || *in == '"' || *in == '\'') in++;
    const char *scheme = strstr(in, "://");
    if (scheme && (size_t)(scheme - in) <= 5) {
        in = scheme + 3;
        in += strcspn(in, "/");
    }
    size_t len = strcspn(in, "?# \t\r\n`\"'");
    *p = in;
    *n = len;
}

/* Path component of a server URL ("https://h/3" -> "/3"), length 0 when none. */
static void server_base(const char *url, const char **p, size_t *n)
{
    *p = "";
    *n = 0;
    if (!url) return;
    const char *s = strstr(url, "://");
    s = s ? s + 3 : url;
    s += strcspn(s, "/");
    size_t len = strcspn(s, "?#");
    while (len && s[len - 1] == '/') len--;
    *p = s;
    *n = len;
}

long agent_match_endpoint(store_index *idx, const char *api, const char *method, const char *path)
{
    if (!idx || !path) return -1;
    const store_operation *ops = NULL;
    const store_api *apis = NULL;
    size_t n_ops = 0, n_apis = 0;
    if (store_operations(idx, &ops, &n_ops, NULL) || store_apis(idx, &apis, &n_apis, NULL))
        return -1;
    char m[16] = "";
    if (method) {
        while (isspace((unsigned char)*method)) method++;
        size_t ml = strcspn(method, " \t");
        if (ml >= sizeof m) return -1;
        for (size_t i = 0; i < ml; i++) m[i] = (char)toupper((unsigned char)method[i]);
        m[ml] = '\0';
    }
    const char *p;
    size_t pn;
    clean_path(path, &p, &pn);
    seg given[MATCH_MAX_SEGS + 1], tmpl[MATCH_MAX_SEGS + 1];
    size_t ng = split_path(p, pn, given, MATCH_MAX_SEGS);
    if (ng > MATCH_MAX_SEGS) return -1;

    long best = -1;
    int best_score = -1;
    bool tie = false;
    for (size_t i = 0; i < n_ops; i++) {
        const store_operation *op = &ops[i];
        if (api && *api && strcmp(op->api, api)) continue;
        if (m[0] && strcmp(op->method, m)) continue;
        size_t nt = split_path(op->path, strlen(op->path), tmpl, MATCH_MAX_SEGS);
        int score = path_score(tmpl, nt, given, ng);
        /* A server's base path written in front ("/3/movie/...") is not part of the key. */
        const store_api *a = op->api_index < n_apis ? &apis[op->api_index] : NULL;
        for (size_t s = 0; a && s < a->n_servers && score < 0; s++) {
            const char *bp;
            size_t bn;
            server_base(a->servers[s].url, &bp, &bn);
            seg base[MATCH_MAX_SEGS + 1];
            size_t nb = bn ? split_path(bp, bn, base, MATCH_MAX_SEGS) : 0;
            if (!nb || nb > ng) continue;
            bool prefix = true;
            for (size_t k = 0; k < nb && prefix; k++)
                prefix = base[k].n == given[k].n && !memcmp(base[k].s, given[k].s, base[k].n);
            if (prefix) score = path_score(tmpl, nt, given + nb, ng - nb);
        }
        if (score < 0) continue;
        if (strlen(op->path) == pn && !memcmp(op->path, p, pn)) score += 1000; /* as written */
        if (score > best_score) {
            best = (long)i;
            best_score = score;
            tie = false;
        } else if (score == best_score) {
            tie = true;
        }
    }
    /* Equally good: without a method (GET and DELETE /pets/{id}) that is a guess, so no;
       with one, the same endpoint in two APIs, and either is in the index (the first wins). */
    return tie && !m[0] ? -1 : best;
}
