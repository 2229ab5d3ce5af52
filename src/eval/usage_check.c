/*
 * The usage prior's safety check (apidex eval --usage-check W): can reported uses push an
 * irrelevant endpoint above a relevant one? Per task, the ranked top 20 without the prior
 * is the baseline. Adversarial: every endpoint of the baseline's top 20 that is not gold
 * gets a huge reported use count (1000, f = 0.999); a pair (gold g above non-gold x in the
 * baseline) is inverted when x comes before g afterwards (or g left the top 20 while x
 * stayed). Since the prior of x does not depend on the others' uses, this one run covers
 * every single-endpoint adversary too. Honest: the task's gold endpoints (every API's
 * operation with that method and path shape) get one use each; recall at 5 and 10 says
 * whether true feedback helps.
 */
#include "eval/eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHECK_K = 20 };

/* Distinct endpoint keys of a result, in order (at most CHECK_K), with their hits. */
typedef struct ranked_keys {
    char *key[CHECK_K];
    const search_hit *hit[CHECK_K];
    size_t n;
} ranked_keys;

static void keys_free(ranked_keys *r)
{
    for (size_t i = 0; i < r->n; i++) free(r->key[i]);
    r->n = 0;
}

static int keys_of(const search_result *res, ranked_keys *out)
{
    out->n = 0;
    core_buf raw, key;
    core_buf_init(&raw, 0);
    core_buf_init(&key, 0);
    int rc = 0;
    for (size_t i = 0; i < res->n_hits && out->n < CHECK_K && !rc; i++) {
        core_buf_reset(&raw);
        core_buf_reset(&key);
        core_buf_printf(&raw, "%s %s", res->hits[i].method, res->hits[i].path);
        if ((rc = eval_endpoint_key(raw.data ? raw.data : "", &key)) != 0) break;
        bool seen = false;
        for (size_t j = 0; j < out->n && !seen; j++) seen = !strcmp(out->key[j], key.data);
        if (seen) continue;
        if (!(out->key[out->n] = strdup(key.data)))
            rc = APIDEX_ENOMEM;
        else
            out->hit[out->n++] = &res->hits[i];
    }
    core_buf_free(&raw);
    core_buf_free(&key);
    return rc;
}

static long pos_of(const ranked_keys *r, const char *key)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->key[i], key)) return (long)i;
    return -1;
}

/* Is key one of the query's gold endpoints? */
static bool is_gold(const eval_query *q, const char *key, core_buf *tmp)
{
    for (size_t g = 0; g < q->n_gold; g++) {
        core_buf_reset(tmp);
        if (eval_endpoint_key(q->gold[g], tmp) == 0 && tmp->data && !strcmp(tmp->data, key))
            return true;
    }
    return false;
}

static double recall_at(const eval_query *q, const search_result *res, size_t k)
{
    const char **list = calloc(res->n_hits ? res->n_hits : 1, sizeof *list);
    char **own = calloc(res->n_hits ? res->n_hits : 1, sizeof *own);
    double r = 0;
    if (list && own) {
        for (size_t i = 0; i < res->n_hits; i++) {
            size_t n = strlen(res->hits[i].method) + strlen(res->hits[i].path) + 2;
            if ((own[i] = malloc(n)) != NULL)
                snprintf(own[i], n, "%s %s", res->hits[i].method, res->hits[i].path);
            list[i] = own[i] ? own[i] : "";
        }
        eval_scores s;
        if (!eval_score(q->gold, q->n_gold, list, res->n_hits, k, &s)) r = s.recall;
        for (size_t i = 0; i < res->n_hits; i++) free(own[i]);
    }
    free(list);
    free(own);
    return r;
}

static int run_k(search_engine *eng, const eval_query *q, const search_params *p,
                 const store_usage *u, search_result **res, apidex_error *err)
{
    search_query sq = {.text = q->text, .k = CHECK_K, .params = p, .usage = u};
    return search_engine_run(eng, &sq, res, err);
}

int eval_usage_check(search_engine *eng, store_index *idx, const eval_set *set,
                     const search_params *base, double weight, eval_usage_report *out,
                     apidex_error *err)
{
    memset(out, 0, sizeof *out);
    out->weight = weight;
    search_params off = *base, on = *base;
    off.usage_weight = 0;
    on.usage_weight = weight;
    const store_operation *ops = NULL;
    size_t n_ops = 0;
    int rc = store_operations(idx, &ops, &n_ops, err);
    core_buf tmp, raw;
    core_buf_init(&tmp, 0);
    core_buf_init(&raw, 0);
    store_usage_use *uses = calloc(n_ops ? n_ops : 1, sizeof *uses);
    double *counts = calloc(n_ops ? n_ops : 1, sizeof *counts);
    if (!rc && (!uses || !counts)) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; set && i < set->n && !rc; i++) {
        const eval_query *q = &set->items[i];
        search_result *base_res = NULL, *adv_res = NULL, *hon_res = NULL;
        ranked_keys before = {0}, after = {0};
        store_usage *adv = NULL, *hon = NULL;
        rc = run_k(eng, q, &off, NULL, &base_res, err);
        if (!rc) rc = keys_of(base_res, &before);
        /* adversarial: every non-gold endpoint of the baseline's top 20 */
        size_t nu = 0;
        for (size_t j = 0; !rc && j < before.n; j++) {
            if (is_gold(q, before.key[j], &tmp)) continue;
            const search_hit *h = before.hit[j];
            uses[nu] = (store_usage_use){h->api, h->method, h->path};
            counts[nu++] = 1000.0;
        }
        if (!rc && store_usage_from(uses, counts, nu, &adv)) rc = APIDEX_ENOMEM;
        if (!rc) rc = run_k(eng, q, &on, adv, &adv_res, err);
        if (!rc) rc = keys_of(adv_res, &after);
        for (size_t g = 0; !rc && g < before.n; g++) {
            if (!is_gold(q, before.key[g], &tmp)) continue;
            long pg = pos_of(&after, before.key[g]);
            if (pg < 0) out->gold_dropped++;
            for (size_t x = g + 1; x < before.n; x++) {
                if (is_gold(q, before.key[x], &tmp)) continue;
                out->pairs++;
                long px = pos_of(&after, before.key[x]);
                if (px >= 0 && (pg < 0 || px < pg)) out->inversions++;
            }
        }
        /* honest: the gold endpoints, one use each, in every API that has them */
        nu = 0;
        for (size_t o = 0; !rc && o < n_ops; o++) {
            core_buf_reset(&raw);
            core_buf_reset(&tmp);
            core_buf_printf(&raw, "%s %s", ops[o].method, ops[o].path);
            if (eval_endpoint_key(raw.data ? raw.data : "", &tmp) || !tmp.data) continue;
            char *key = strdup(tmp.data);
            if (!key) {
                rc = APIDEX_ENOMEM;
                break;
            }
            if (is_gold(q, key, &tmp)) {
                uses[nu] = (store_usage_use){ops[o].api, ops[o].method, ops[o].path};
                counts[nu++] = 1.0;
            }
            free(key);
        }
        if (!rc && store_usage_from(uses, counts, nu, &hon)) rc = APIDEX_ENOMEM;
        if (!rc) rc = run_k(eng, q, &on, hon, &hon_res, err);
        if (!rc) {
            out->r5_base += recall_at(q, base_res, 5);
            out->r10_base += recall_at(q, base_res, 10);
            out->r5_adversarial += recall_at(q, adv_res, 5);
            out->r10_adversarial += recall_at(q, adv_res, 10);
            out->r5_honest += recall_at(q, hon_res, 5);
            out->r10_honest += recall_at(q, hon_res, 10);
            out->queries++;
        }
        keys_free(&before);
        keys_free(&after);
        store_usage_free(adv);
        store_usage_free(hon);
        search_result_free(base_res);
        search_result_free(adv_res);
        search_result_free(hon_res);
    }
    if (rc == APIDEX_ENOMEM) core_error_set(err, rc, "out of memory");
    if (out->queries) {
        double n = (double)out->queries;
        out->r5_base /= n;
        out->r10_base /= n;
        out->r5_adversarial /= n;
        out->r10_adversarial /= n;
        out->r5_honest /= n;
        out->r10_honest /= n;
    }
    free(uses);
    free(counts);
    core_buf_free(&tmp);
    core_buf_free(&raw);
    return rc;
}

int eval_usage_json(const eval_usage_report *r, core_buf *out)
{
    core_buf_printf(out,
                    "{\"usage_weight\":%g,\"queries\":%zu,\"pairs\":%zu,\"inversions\":%zu,"
                    "\"gold_dropped\":%zu,\"r5\":%.4f,\"r10\":%.4f,\"r5_adversarial\":%.4f,"
                    "\"r10_adversarial\":%.4f,\"r5_honest\":%.4f,\"r10_honest\":%.4f}\n",
                    r->weight, r->queries, r->pairs, r->inversions, r->gold_dropped, r->r5_base,
                    r->r10_base, r->r5_adversarial, r->r10_adversarial, r->r5_honest,
                    r->r10_honest);
    return out->failed ? APIDEX_ENOMEM : 0;
}
