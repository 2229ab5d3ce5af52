/* eval: running a query set against a search engine, and the JSON, text and sweep reports. */
#include "eval/eval.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t at_k[3] = {5, 10, 20};

/* Distinct endpoint strings ("METHOD /path") of a result, in its order, and (when apis is
   not NULL) the API of each. */
static int hit_list(const search_result *res, bool by_id, core_arena *a, const char ***out,
                    size_t *n, const char ***apis)
{
    *out = NULL;
    *n = 0;
    if (apis) *apis = NULL;
    if (!res || !res->n_hits) return 0;
    const char **list = core_arena_calloc(a, res->n_hits, sizeof *list);
    const char **api = apis ? core_arena_calloc(a, res->n_hits, sizeof *api) : NULL;
    if (!list || (apis && !api)) return APIDEX_ENOMEM;
    for (size_t i = 0; i < res->n_hits; i++) {
        /* a task whose gold are operation ids is scored on the hits' ids */
        list[i] = by_id && res->hits[i].id
                      ? core_arena_strdup(a, res->hits[i].id)
                      : core_arena_printf(a, "%s %s", res->hits[i].method, res->hits[i].path);
        if (!list[i]) return APIDEX_ENOMEM;
        if (api && !(api[i] = core_arena_strdup(a, res->hits[i].api ? res->hits[i].api : "")))
            return APIDEX_ENOMEM;
    }
    if (apis) *apis = api;
    *out = list;
    *n = res->n_hits;
    return 0;
}

/* Tokens of the rendered operations of the first k distinct endpoints of res. */
static size_t tokens_first_k(store_index *idx, const search_result *res, size_t k)
{
    const store_operation *ops = NULL;
    size_t n_ops = 0;
    apidex_error ignore;
    if (!idx || store_operations(idx, &ops, &n_ops, &ignore)) return 0;
    size_t total = 0;
    for (size_t i = 0; i < res->n_hits && i < k; i++) {
        long oi = store_find_operation(idx, res->hits[i].id);
        if (oi >= 0) total += ops[oi].tokens;
    }
    return total;
}

/* Normalised endpoint keys of every operation of idx (eval_endpoint_key), for gold_api;
   NULL when the index holds fewer than two APIs. */
static const char **op_keys(store_index *idx, core_arena *a, size_t *n_out)
{
    const store_operation *ops = NULL;
    const store_api *apis = NULL;
    size_t n_ops = 0, n_apis = 0;
    apidex_error ignore;
    *n_out = 0;
    if (!idx || store_operations(idx, &ops, &n_ops, &ignore) ||
        store_apis(idx, &apis, &n_apis, &ignore) || n_apis < 2)
        return NULL;
    const char **keys = core_arena_calloc(a, n_ops ? n_ops : 1, sizeof *keys);
    core_buf raw, key;
    core_buf_init(&raw, 1 << 16);
    core_buf_init(&key, 1 << 16);
    for (size_t i = 0; keys && i < n_ops; i++) {
        core_buf_reset(&raw);
        core_buf_reset(&key);
        core_buf_printf(&raw, "%s %s", ops[i].method, ops[i].path);
        keys[i] = eval_endpoint_key(raw.data ? raw.data : "", &key) == 0
                      ? core_arena_strdup(a, key.data ? key.data : "")
                      : "";
    }
    core_buf_free(&raw);
    core_buf_free(&key);
    if (keys) *n_out = n_ops;
    return keys;
}

/* The API of every gold operation id of q, when they are all of one; else NULL. */
static const char *gold_api_by_id(store_index *idx, const eval_query *q)
{
    const store_operation *ops = NULL;
    const store_api *apis = NULL;
    size_t n_ops = 0, n_apis = 0;
    apidex_error ignore;
    if (!q->n_gold || store_operations(idx, &ops, &n_ops, &ignore) ||
        store_apis(idx, &apis, &n_apis, &ignore))
        return NULL;
    size_t api = SIZE_MAX;
    for (size_t g = 0; g < q->n_gold; g++) {
        long oi = store_find_operation(idx, q->gold[g]);
        if (oi < 0 || (size_t)oi >= n_ops || ops[oi].api_index >= n_apis ||
            (api != SIZE_MAX && ops[oi].api_index != api))
            return NULL;
        api = ops[oi].api_index;
    }
    return apis[api].id;
}

/* The API holding every gold endpoint of q, when exactly one does; else NULL. */
static const char *gold_api(store_index *idx, const char **keys, size_t n_keys, const eval_query *q)
{
    if (q->by_id) return gold_api_by_id(idx, q);
    const store_operation *ops = NULL;
    const store_api *apis = NULL;
    size_t n_ops = 0, n_apis = 0;
    apidex_error ignore;
    if (!keys || !q->n_gold || store_operations(idx, &ops, &n_ops, &ignore) ||
        store_apis(idx, &apis, &n_apis, &ignore) || n_ops != n_keys)
        return NULL;
    size_t *counts = calloc(n_apis, sizeof *counts);
    bool *seen = calloc(n_apis, sizeof *seen);
    const char *found = NULL;
    core_buf key;
    core_buf_init(&key, 1 << 16);
    for (size_t g = 0; counts && seen && g < q->n_gold; g++) {
        core_buf_reset(&key);
        if (eval_endpoint_key(q->gold[g], &key)) break;
        memset(seen, 0, n_apis * sizeof *seen);
        for (size_t i = 0; i < n_ops; i++) {
            size_t a = ops[i].api_index;
            if (a < n_apis && !seen[a] && keys[i] && !strcmp(keys[i], key.data ? key.data : "")) {
                seen[a] = true;
                counts[a]++;
            }
        }
    }
    for (size_t a = 0; counts && a < n_apis; a++)
        if (counts[a] == q->n_gold) {
            if (found) { /* more than one API could serve it */
                found = NULL;
                break;
            }
            found = apis[a].id;
        }
    core_buf_free(&key);
    free(counts);
    free(seen);
    return found;
}

/* The answer's confidence and whether its best operation is a gold one. */
static int answer_confidence(store_index *idx, const search_result *res, const eval_query *q,
                             core_arena *a, eval_query_result *qr)
{
    qr->evidence = res->evidence;
    qr->confidence = res->confidence;
    qr->match = res->match;
    qr->best = NULL;
    qr->best_right = false;
    if (!res->best_id) return 0;
    const store_operation *ops = NULL;
    size_t n_ops = 0;
    apidex_error ignore;
    long oi = idx ? store_find_operation(idx, res->best_id) : -1;
    if (q->by_id) {
        qr->best = core_arena_strdup(a, res->best_id);
    } else if (oi >= 0 && !store_operations(idx, &ops, &n_ops, &ignore) && (size_t)oi < n_ops) {
        qr->best = core_arena_printf(a, "%s %s", ops[oi].method, ops[oi].path);
    }
    for (size_t i = 0; !qr->best && i < res->n_hits; i++)
        if (!strcmp(res->hits[i].id, res->best_id))
            qr->best = core_arena_printf(a, "%s %s", res->hits[i].method, res->hits[i].path);
    if (!qr->best) return 0;
    eval_scores s;
    const char *one[1] = {qr->best};
    int rc = eval_score(q->gold, q->n_gold, one, 1, 0, &s);
    qr->best_right = !rc && s.hits > 0;
    return rc;
}

static double now_ms(void)
{
    return core_now() * 1000.0;
}

int eval_run(search_engine *eng, store_index *idx, const eval_set *set, const eval_options *opt,
             eval_report **out, apidex_error *err)
{
    *out = NULL;
    eval_options defaults = {0};
    if (!opt) opt = &defaults;
    size_t k = opt->k ? opt->k : 10;
    size_t k_run = k > 20 ? k : 20;
    size_t budget = opt->budget ? opt->budget : EVAL_DEFAULT_BUDGET;
    size_t n = set ? set->n : 0;

    eval_report *r = calloc(1, sizeof *r);
    double *lat = calloc(n ? n : 1, sizeof *lat);
    double *alat = calloc(n ? n : 1, sizeof *alat);
    if (!r || !lat || !alat || !(r->arena = core_arena_new(0)) ||
        !(r->per_query = core_arena_calloc(r->arena, n ? n : 1, sizeof *r->per_query))) {
        free(lat);
        free(alat);
        eval_report_free(r);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    r->queries = n;
    r->k = k;
    r->budget = budget;
    const text_bpe *bpe = text_bpe_default();
    size_t n_keys = 0;
    const char **keys = op_keys(idx, r->arena, &n_keys);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const eval_query *q = &set->items[i];
        eval_query_result *qr = &r->per_query[i];
        qr->query = q;
        const char *const *gold = q->gold;

        /* fixed k: one ranked list of max(k, 20) endpoints serves every cut-off */
        search_query sq = {.text = q->text,
                           .k = k_run,
                           .mode = opt->mode,
                           .hybrid_weight = opt->hybrid_weight,
                           .params = opt->params};
        search_result *res = NULL;
        double t0 = now_ms();
        rc = search_engine_run(eng, &sq, &res, err);
        lat[i] = qr->latency_ms = now_ms() - t0;
        if (!rc)
            rc = hit_list(res, q->by_id, r->arena, &qr->ranked, &qr->n_ranked, &qr->ranked_apis);
        if (!rc) rc = answer_confidence(idx, res, q, r->arena, qr);
        if (!rc) {
            const char *const *ranked = qr->ranked;
            rc = eval_score(gold, q->n_gold, ranked, qr->n_ranked, k, &qr->at_k);
            for (int j = 0; j < 3 && !rc; j++)
                rc = eval_score(gold, q->n_gold, ranked, qr->n_ranked, at_k[j], &qr->at[j]);
            qr->tokens_at_k = tokens_first_k(idx, res, k);
        }
        search_result_free(res);
        res = NULL;
        if (rc) break;

        /* adaptive: the engine decides how many; the context is what a caller gets */
        search_query aq = {.text = q->text,
                           .adaptive = true,
                           .budget = budget,
                           .mode = opt->mode,
                           .hybrid_weight = opt->hybrid_weight,
                           .params = opt->params};
        t0 = now_ms();
        rc = search_engine_run(eng, &aq, &res, err);
        alat[i] = qr->adaptive_latency_ms = now_ms() - t0;
        if (!rc) rc = hit_list(res, q->by_id, r->arena, &qr->adaptive, &qr->n_adaptive, NULL);
        if (!rc) rc = eval_harm_check(q->text, res->hits, res->n_hits, &qr->harm);
        if (!rc && res->n_hits) qr->routed_api = core_arena_strdup(r->arena, res->hits[0].api);
        if (!rc) {
            qr->gold_api = gold_api(idx, keys, n_keys, q);
            /* the report outlives the index: keep its own copy of the name */
            if (qr->gold_api && !(qr->gold_api = core_arena_strdup(r->arena, qr->gold_api)))
                rc = APIDEX_ENOMEM;
            if (qr->gold_api) {
                r->routing_tasks++;
                r->routing_correct += qr->routed_api && !strcmp(qr->routed_api, qr->gold_api);
            }
        }
        if (!rc) {
            const char *const *ad = qr->adaptive;
            rc = eval_score(gold, q->n_gold, ad, qr->n_adaptive, 0, &qr->adaptive_scores);
            if (res->context && bpe)
                qr->tokens = text_bpe_count(bpe, res->context, strlen(res->context));
        }
        search_result_free(res);
    }
    if (rc) {
        if (rc == APIDEX_ENOMEM && err && !err->message[0])
            core_error_set(err, rc, "out of memory");
        free(lat);
        free(alat);
        eval_report_free(r);
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        const eval_query_result *qr = &r->per_query[i];
        r->answerable += qr->query->n_gold > 0;
        r->matches[qr->match]++;
        r->best_right += qr->best_right;
        r->recall += qr->at_k.recall;
        r->precision += qr->at_k.precision;
        r->f1 += qr->at_k.f1;
        for (int j = 0; j < 3; j++) {
            r->recall_at[j] += qr->at[j].recall;
            r->precision_at[j] += qr->at[j].precision;
            r->f1_at[j] += qr->at[j].f1;
            if (qr->at[j].n_gold && qr->at[j].hits == qr->at[j].n_gold) r->complete_at[j] += 1;
        }
        r->adaptive_recall += qr->adaptive_scores.recall;
        r->adaptive_precision += qr->adaptive_scores.precision;
        r->adaptive_f1 += qr->adaptive_scores.f1;
        r->adaptive_mean_size += (double)qr->adaptive_scores.n_returned;
        r->adaptive_opposite += qr->harm.opposite;
        r->adaptive_destructive += qr->harm.destructive;
        r->tokens_mean += (double)qr->tokens;
        r->tokens_at_k_mean += (double)qr->tokens_at_k;
    }
    if (r->answerable) { /* a task nothing does has no recall: it scores 0 and counts not */
        double d = (double)r->answerable;
        r->recall /= d;
        r->precision /= d;
        r->f1 /= d;
        for (int j = 0; j < 3; j++) {
            r->recall_at[j] /= d;
            r->precision_at[j] /= d;
            r->f1_at[j] /= d;
            r->complete_at[j] /= d;
        }
        r->adaptive_recall /= d;
        r->adaptive_precision /= d;
        r->adaptive_f1 /= d;
    }
    if (n) {
        double d = (double)n;
        r->adaptive_mean_size /= d;
        r->tokens_mean /= d;
        r->tokens_at_k_mean /= d;
    }
    static const double pct[3] = {50, 95, 99};
    for (int j = 0; j < 3; j++) {
        r->latency_ms[j] = eval_percentile(lat, n, pct[j]);
        r->adaptive_latency_ms[j] = eval_percentile(alat, n, pct[j]);
    }
    free(lat);
    free(alat);
    *out = r;
    return 0;
}

void eval_report_free(eval_report *r)
{
    if (!r) return;
    core_arena_free(r->arena);
    free(r);
}

/* ---------------------------------------------------------------- JSON */

static void json_strs(core_buf *b, const char *const *list, size_t n, size_t limit)
{
    core_buf_putc(b, '[');
    for (size_t i = 0; i < n && i < limit; i++) {
        if (i) core_buf_putc(b, ',');
        core_buf_json_str(b, list[i], strlen(list[i]));
    }
    core_buf_putc(b, ']');
}

static void json_pcts(core_buf *b, const char *key, const double v[3])
{
    core_buf_printf(b, ",\"%s\":{\"p50\":%.3f,\"p95\":%.3f,\"p99\":%.3f}", key, v[0], v[1], v[2]);
}

static void json_at(core_buf *b, const char *key, const double v[3])
{
    core_buf_printf(b, ",\"%s\":{\"5\":%.4f,\"10\":%.4f,\"20\":%.4f}", key, v[0], v[1], v[2]);
}

int eval_report_json(const eval_report *r, bool per_query, core_buf *out)
{
    core_buf_printf(out,
                    "{\"queries\":%zu,\"k\":%zu,\"recall\":%.4f,\"precision\":%.4f,\"f1\":%.4f",
                    r->queries, r->k, r->recall, r->precision, r->f1);
    json_at(out, "recall_at", r->recall_at);
    json_at(out, "precision_at", r->precision_at);
    json_at(out, "f1_at", r->f1_at);
    json_at(out, "complete_at", r->complete_at);
    core_buf_printf(out,
                    ",\"adaptive\":{\"recall\":%.4f,\"precision\":%.4f,\"f1\":%.4f,"
                    "\"mean_size\":%.4f,\"opposite\":%zu,\"destructive\":%zu",
                    r->adaptive_recall, r->adaptive_precision, r->adaptive_f1,
                    r->adaptive_mean_size, r->adaptive_opposite, r->adaptive_destructive);
    json_pcts(out, "latency_ms", r->adaptive_latency_ms);
    core_buf_printf(out, "},\"tokens_mean\":%.1f,\"tokens_at_k_mean\":%.1f,\"budget\":%zu",
                    r->tokens_mean, r->tokens_at_k_mean, r->budget);
    json_pcts(out, "latency_ms", r->latency_ms);
    core_buf_printf(out, ",\"engine_open_ms\":%.3f", r->engine_open_ms);
    if (r->routing_tasks)
        core_buf_printf(out, ",\"routing\":{\"tasks\":%zu,\"correct\":%zu}", r->routing_tasks,
                        r->routing_correct);
    core_buf_printf(out,
                    ",\"answerable\":%zu,\"match\":{\"strong\":%zu,\"weak\":%zu,\"none\":%zu},"
                    "\"best_right\":%zu",
                    r->answerable, r->matches[SEARCH_MATCH_STRONG], r->matches[SEARCH_MATCH_WEAK],
                    r->matches[SEARCH_MATCH_NONE], r->best_right);
    if (per_query) {
        core_buf_puts(out, ",\"per_query\":[");
        for (size_t i = 0; i < r->queries; i++) {
            const eval_query_result *qr = &r->per_query[i];
            const eval_query *q = qr->query;
            core_buf_puts(out, i ? ",{\"file\":" : "{\"file\":");
            core_buf_json_str(out, q->file, strlen(q->file));
            core_buf_printf(out, ",\"index\":%zu,\"query\":", q->index);
            core_buf_json_str(out, q->text, strlen(q->text));
            core_buf_puts(out, ",\"gold\":");
            json_strs(out, q->gold, q->n_gold, q->n_gold);
            core_buf_puts(out, ",\"returned\":");
            json_strs(out, qr->ranked, qr->n_ranked, r->k);
            if (qr->ranked_apis) {
                core_buf_puts(out, ",\"returned_apis\":");
                json_strs(out, qr->ranked_apis, qr->n_ranked, r->k);
            }
            core_buf_printf(out, ",\"recall\":%.4f,\"precision\":%.4f,\"f1\":%.4f", qr->at_k.recall,
                            qr->at_k.precision, qr->at_k.f1);
            double rat[3] = {qr->at[0].recall, qr->at[1].recall, qr->at[2].recall};
            json_at(out, "recall_at", rat);
            core_buf_puts(out, ",\"adaptive\":{\"returned\":");
            json_strs(out, qr->adaptive, qr->n_adaptive, qr->n_adaptive);
            core_buf_printf(out,
                            ",\"recall\":%.4f,\"precision\":%.4f,\"f1\":%.4f,"
                            "\"opposite\":%s,\"destructive\":%s,\"latency_ms\":%.3f}",
                            qr->adaptive_scores.recall, qr->adaptive_scores.precision,
                            qr->adaptive_scores.f1, qr->harm.opposite ? "true" : "false",
                            qr->harm.destructive ? "true" : "false", qr->adaptive_latency_ms);
            if (qr->gold_api) {
                core_buf_puts(out, ",\"gold_api\":");
                core_buf_json_str(out, qr->gold_api, strlen(qr->gold_api));
                core_buf_puts(out, ",\"routed_api\":");
                if (qr->routed_api)
                    core_buf_json_str(out, qr->routed_api, strlen(qr->routed_api));
                else
                    core_buf_puts(out, "null");
            }
            core_buf_printf(out, ",\"match\":\"%s\",\"confidence\":%.4f,\"evidence\":%.4f,",
                            search_match_name(qr->match), qr->confidence, qr->evidence);
            core_buf_puts(out, "\"best\":");
            if (qr->best)
                core_buf_json_str(out, qr->best, strlen(qr->best));
            else
                core_buf_puts(out, "null");
            core_buf_printf(out, ",\"best_right\":%s", qr->best_right ? "true" : "false");
            core_buf_printf(out, ",\"tokens\":%zu,\"tokens_at_k\":%zu,\"latency_ms\":%.3f}",
                            qr->tokens, qr->tokens_at_k, qr->latency_ms);
        }
        core_buf_putc(out, ']');
    }
    core_buf_puts(out, "}\n");
    return out->failed ? APIDEX_ENOMEM : 0;
}

/* ---------------------------------------------------------------- text */

int eval_report_text(const eval_report *r, bool per_query, core_buf *out)
{
    if (per_query) {
        for (size_t i = 0; i < r->queries; i++) {
            const eval_query_result *qr = &r->per_query[i];
            const eval_query *q = qr->query;
            const char *base = strrchr(q->file, '/');
            core_buf_printf(out, "%s#%zu  R=%.2f P=%.2f  adaptive R=%.2f P=%.2f n=%zu  %s\n",
                            base ? base + 1 : q->file, q->index, qr->at_k.recall,
                            qr->at_k.precision, qr->adaptive_scores.recall,
                            qr->adaptive_scores.precision, qr->adaptive_scores.n_returned, q->text);
            core_buf_printf(out, "    match %s, confidence %.2f (evidence %.2f)%s\n",
                            search_match_name(qr->match), qr->confidence, qr->evidence,
                            q->n_gold ? (qr->best_right ? ", best right" : ", best wrong") : "");
            if (qr->harm.opposite)
                core_buf_puts(out, "    adaptive answer holds an opposite operation\n");
            if (qr->harm.destructive)
                core_buf_puts(out,
                              "    adaptive answer holds a destructive operation not asked for\n");
            /* what was missed, so a reader sees why without --json */
            if (qr->gold_api && (!qr->routed_api || strcmp(qr->gold_api, qr->routed_api)))
                core_buf_printf(out, "    routed to %s, gold in %s\n",
                                qr->routed_api ? qr->routed_api : "(nothing)", qr->gold_api);
            for (size_t g = 0; g < q->n_gold; g++) {
                const char *one[1] = {q->gold[g]};
                eval_scores s;
                if (eval_score(one, 1, qr->ranked, qr->n_ranked, r->k, &s) == 0 && !s.hits)
                    core_buf_printf(out, "    missed at k: %s\n", q->gold[g]);
            }
        }
        core_buf_putc(out, '\n');
    }
    core_buf_printf(out,
                    "queries      %zu\n"
                    "at k=%-7zu recall %.3f  precision %.3f  F1 %.3f\n"
                    "recall@k     5: %.3f  10: %.3f  20: %.3f\n"
                    "all gold in  5: %.3f  10: %.3f  20: %.3f (share of tasks)\n"
                    "adaptive     recall %.3f  precision %.3f  F1 %.3f  mean size %.2f\n"
                    "harm         %zu adaptive answers hold an opposite operation, %zu a "
                    "destructive one not asked for\n"
                    "tokens       adaptive context %.0f (budget %zu); first k operations %.0f\n"
                    "latency ms   p50 %.3f  p95 %.3f  p99 %.3f  (adaptive p50 %.3f  p95 %.3f  "
                    "p99 %.3f)\n",
                    r->queries, r->k, r->recall, r->precision, r->f1, r->recall_at[0],
                    r->recall_at[1], r->recall_at[2], r->complete_at[0], r->complete_at[1],
                    r->complete_at[2], r->adaptive_recall, r->adaptive_precision, r->adaptive_f1,
                    r->adaptive_mean_size, r->adaptive_opposite, r->adaptive_destructive,
                    r->tokens_mean, r->budget, r->tokens_at_k_mean, r->latency_ms[0],
                    r->latency_ms[1], r->latency_ms[2], r->adaptive_latency_ms[0],
                    r->adaptive_latency_ms[1], r->adaptive_latency_ms[2]);
    if (r->routing_tasks)
        core_buf_printf(out,
                        "routing      %zu of %zu tasks answered first from the API of their gold\n",
                        r->routing_correct, r->routing_tasks);
    core_buf_printf(out,
                    "match        strong %zu  weak %zu  none %zu  (%zu of %zu tasks have gold; "
                    "best operation right for %zu)\n",
                    r->matches[SEARCH_MATCH_STRONG], r->matches[SEARCH_MATCH_WEAK],
                    r->matches[SEARCH_MATCH_NONE], r->answerable, r->queries, r->best_right);
    return out->failed ? APIDEX_ENOMEM : 0;
}

/* ---------------------------------------------------------------- sweep table */

int eval_sweep_markdown(const eval_sweep_row *rows, size_t n, core_buf *out)
{
    /* The paper prints whole percents and bolds the best value of each column. */
    core_buf_puts(out, "| Strategy | Recall | | | Precision | | | F1 | | |\n"
                       "|---|---|---|---|---|---|---|---|---|---|\n"
                       "| k | 5 | 10 | 20 | 5 | 10 | 20 | 5 | 10 | 20 |\n");
    double best[9] = {0};
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 3; j++) {
            double v[3] = {rows[i].recall[j], rows[i].precision[j], rows[i].f1[j]};
            for (int m = 0; m < 3; m++) {
                double p = (double)(long)(v[m] * 100.0 + 0.5);
                if (p > best[m * 3 + j]) best[m * 3 + j] = p;
            }
        }
    for (size_t i = 0; i < n; i++) {
        core_buf_printf(out, "| %s |", rows[i].strategy);
        for (int m = 0; m < 3; m++)
            for (int j = 0; j < 3; j++) {
                const double *col = m == 0   ? rows[i].recall
                                    : m == 1 ? rows[i].precision
                                             : rows[i].f1;
                long p = (long)(col[j] * 100.0 + 0.5);
                bool bold = n > 1 && (double)p == best[m * 3 + j];
                core_buf_printf(out, bold ? " **%ld** |" : " %ld |", p);
            }
        core_buf_putc(out, '\n');
    }
    return out->failed ? APIDEX_ENOMEM : 0;
}
