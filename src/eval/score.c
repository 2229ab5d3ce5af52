/*
 * eval: matching endpoint strings and the per-query metrics. Everything here is
 * pure so the rules (whitespace, case, placeholders, duplicates) are tested on
 * hand-computed cases.
 */
#include "eval/eval.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int eval_endpoint_key(const char *s, core_buf *out)
{
    if (!s) s = "";
    while (*s && isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) n--;
    /* the method: the first word, upper-cased */
    size_t i = 0;
    while (i < n && !isspace((unsigned char)s[i]) && s[i] != '/') {
        core_buf_putc(out, (char)toupper((unsigned char)s[i]));
        i++;
    }
    size_t j = i;
    while (j < n && isspace((unsigned char)s[j])) j++;
    if (j < n) {
        if (i > 0) core_buf_putc(out, ' ');
        /* the path: placeholders by position */
        while (j < n) {
            if (s[j] == '{') {
                const char *close = memchr(s + j, '}', n - j);
                if (close) {
                    core_buf_puts(out, "{}");
                    j = (size_t)(close - s) + 1;
                    continue;
                }
            }
            core_buf_putc(out, s[j]);
            j++;
        }
    }
    return out->failed ? APIDEX_ENOMEM : 0;
}

/* Keys of list[0..n), de-duplicated in first-seen order, at most `limit` (0 = all).
   Keys are NUL-separated in buf; offsets in off. */
static int distinct_keys(const char *const *list, size_t n, size_t limit, core_buf *buf,
                         size_t *off, size_t *n_out)
{
    *n_out = 0;
    core_buf key;
    core_buf_init(&key, 0);
    int rc = 0;
    for (size_t i = 0; i < n && (limit == 0 || *n_out < limit); i++) {
        core_buf_reset(&key);
        if ((rc = eval_endpoint_key(list[i], &key)) != 0) break;
        const char *k = key.data ? key.data : "";
        bool dup = false;
        for (size_t j = 0; j < *n_out && !dup; j++) dup = !strcmp(buf->data + off[j], k);
        if (dup) continue;
        off[(*n_out)++] = buf->len;
        core_buf_append(buf, k, key.len);
        core_buf_putc(buf, '\0');
        if (buf->failed) {
            rc = APIDEX_ENOMEM;
            break;
        }
    }
    core_buf_free(&key);
    return rc;
}

int eval_score(const char *const *gold, size_t n_gold, const char *const *returned,
               size_t n_returned, size_t k, eval_scores *out)
{
    memset(out, 0, sizeof *out);
    core_buf gb, rb;
    core_buf_init(&gb, 0);
    core_buf_init(&rb, 0);
    size_t *goff = malloc((n_gold ? n_gold : 1) * sizeof *goff);
    size_t *roff = malloc((n_returned ? n_returned : 1) * sizeof *roff);
    size_t ng = 0, nr = 0;
    int rc = (!goff || !roff) ? APIDEX_ENOMEM : 0;
    if (!rc) rc = distinct_keys(gold, n_gold, 0, &gb, goff, &ng);
    if (!rc) rc = distinct_keys(returned, n_returned, k, &rb, roff, &nr);
    size_t hits = 0;
    for (size_t i = 0; !rc && i < nr; i++)
        for (size_t j = 0; j < ng; j++)
            if (!strcmp(rb.data + roff[i], gb.data + goff[j])) {
                hits++;
                break;
            }
    if (!rc) {
        out->n_gold = ng;
        out->n_returned = nr;
        out->hits = hits;
        out->recall = ng ? (double)hits / (double)ng : 0.0;
        out->precision = nr ? (double)hits / (double)nr : 0.0;
        double s = out->recall + out->precision;
        out->f1 = s > 0 ? 2.0 * out->recall * out->precision / s : 0.0;
    }
    free(goff);
    free(roff);
    core_buf_free(&gb);
    core_buf_free(&rb);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double eval_percentile(double *values, size_t n, double p)
{
    if (n == 0) return 0.0;
    qsort(values, n, sizeof *values, cmp_double);
    if (p <= 0) return values[0];
    if (p >= 100) return values[n - 1];
    double pos = p / 100.0 * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double frac = pos - (double)lo;
    return values[lo] + (values[hi] - values[lo]) * frac;
}
