/*
 * The pairwise scorer's pieces: path shape, method, and the overlap of weighted term
 * sets. Each gives a similarity in [0, 1]; match.c weighs them (match_params).
 */
#include "search/match_int.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* "v1", "v2beta1", "3", "1.0", "api", "rest": a base path's version or prefix, which an
   agent's document changes freely and which says nothing about the operation. */
static bool version_like(const char *s, size_t n)
{
    if ((n == 3 && !strncasecmp(s, "api", 3)) || (n == 4 && !strncasecmp(s, "rest", 4)))
        return true;
    size_t i = 0;
    if (n > 1 && (s[0] == 'v' || s[0] == 'V')) i = 1;
    if (i >= n || !isdigit((unsigned char)s[i])) return false;
    while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '.')) i++;
    if (i == n) return true;
    /* v1beta1, v2alpha */
    return s[0] == 'v' || s[0] == 'V';
}

/* A walk over the segments of a path (query and fragment cut off), leading version-like
   segments ("v1", "2.0") passed over until the first other one. */
typedef struct path_walk {
    const char *path;
    size_t len, i;
    bool leading;
} path_walk;

static void walk_start(path_walk *w, const char *path)
{
    const char *q = strpbrk(path, "?#");
    *w = (path_walk){.path = path, .len = q ? (size_t)(q - path) : strlen(path), .leading = true};
}

/* The next segment (*s, *n bytes; *param: a template or ":name" segment); false at the end. */
static bool walk_next(path_walk *w, const char **s, size_t *n, bool *param)
{
    while (w->i < w->len) {
        while (w->i < w->len && w->path[w->i] == '/') w->i++;
        size_t start = w->i;
        while (w->i < w->len && w->path[w->i] != '/') w->i++;
        if (w->i == start) return false;
        *s = w->path + start;
        *n = w->i - start;
        *param = memchr(*s, '{', *n) != NULL || (*s)[0] == ':';
        if (w->leading && !*param && version_like(*s, *n)) continue;
        w->leading = false;
        return true;
    }
    return false;
}

void match_path_shape(const char *path, match_path *out)
{
    memset(out, 0, sizeof *out);
    if (!path) return;
    path_walk w;
    walk_start(&w, path);
    const char *s;
    size_t n;
    bool param;
    while (out->n < MATCH_MAX_SEGS && walk_next(&w, &s, &n, &param)) out->param[out->n++] = param;
}

int match_path_literals(const char *path, core_buf *out)
{
    if (!path) return 0;
    path_walk w;
    walk_start(&w, path);
    const char *s;
    size_t n;
    bool param;
    while (walk_next(&w, &s, &n, &param)) {
        if (param) continue;
        if (out->len) core_buf_putc(out, ' ');
        core_buf_append(out, s, n);
    }
    return out->failed ? APIDEX_ENOMEM : 0;
}

double match_path_similarity(const match_path *a, const match_path *b)
{
    size_t longer = a->n > b->n ? a->n : b->n;
    if (!longer) return 1.0;
    size_t shorter = a->n < b->n ? a->n : b->n, same = 0;
    for (size_t i = 1; i <= shorter; i++)
        if (a->param[a->n - i] == b->param[b->n - i]) same++;
    return (double)same / (double)longer;
}

double match_method_similarity(const char *a, const char *b)
{
    if (!a || !b) return 0;
    if (!strcasecmp(a, b)) return 1.0;
    bool a_put = !strcasecmp(a, "PUT") || !strcasecmp(a, "PATCH");
    bool b_put = !strcasecmp(b, "PUT") || !strcasecmp(b, "PATCH");
    if (a_put && b_put) return 0.5;
    bool a_read = !strcasecmp(a, "GET") || !strcasecmp(a, "HEAD");
    bool b_read = !strcasecmp(b, "GET") || !strcasecmp(b, "HEAD");
    if (a_read && b_read) return 0.5;
    /* POST creates what PUT may create too */
    if ((a_put && !strcasecmp(b, "POST")) || (b_put && !strcasecmp(a, "POST"))) return 0.25;
    return 0;
}

static double common_weight(const match_term *a, size_t na, const match_term *b, size_t nb)
{
    double w = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        if (a[i].id < b[j].id)
            i++;
        else if (a[i].id > b[j].id)
            j++;
        else {
            w += a[i].w;
            i++;
            j++;
        }
    }
    return w;
}

static double total_weight(const match_term *a, size_t n)
{
    double w = 0;
    for (size_t i = 0; i < n; i++) w += a[i].w;
    return w;
}

double match_overlap_dice(const match_term *a, size_t na, const match_term *b, size_t nb)
{
    double ta = total_weight(a, na), tb = total_weight(b, nb);
    if (ta + tb <= 0) return 0;
    double d = 2.0 * common_weight(a, na, b, nb) / (ta + tb);
    return d > 1 ? 1 : d;
}

double match_overlap_share(const match_term *a, size_t na, const match_term *b, size_t nb)
{
    double ta = total_weight(a, na);
    if (ta <= 0) return 0;
    double s = common_weight(a, na, b, nb) / ta;
    return s > 1 ? 1 : s;
}
