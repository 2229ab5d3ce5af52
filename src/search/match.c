/*
 * apidex match: an OpenAPI document as the query (docs/MATCH.md).
 *
 * An agent that needs a service writes the OpenAPI document it imagines; the registry
 * should answer with the real operations that do the same, or say "no match" so the agent
 * can generate the service. The two documents differ the way two authors do: the agent
 * drops descriptions, names paths and parameters its own way (synonyms, camelCase or
 * snake_case), prefixes another version, keeps only the few operations it needs. So no
 * single feature decides; the scorer compares everything both sides have, each as a
 * similarity in [0, 1], and weighs them (match_params):
 *
 *   method       equal 1, PUT/PATCH or GET/HEAD 0.5, POST/PUT 0.25
 *   path         segment kinds compared from the end (a base path differs more than a
 *                tail) and the words of the literal segments (idf-weighted Dice)
 *   name         path words, operationId, summary (idf-weighted Dice)
 *   desc         the description, only when the query has one
 *   params       the query's parameter and body field words the candidate has (share)
 *   response     the query's success-response words the candidate has (share)
 *
 * Words go through the index's own term pipeline (split identifiers, lower-case, stem), so
 * movie_id, movieId and movie-id are one word, and a candidate's parameter and response
 * words are the very terms of its endpoint chunk. Features the query lacks are left out of
 * the weighted mean instead of counting as disagreement, so a bare document is not
 * punished for being bare.
 *
 * Candidates: one lexical search of the engine per query operation (its summary,
 * operationId and path words; fast, and it ranks the whole registry), cand_k of them.
 * Then the API step: the operations of one document usually come from one service, so an
 * API's coverage of the document (the mean over the query's operations of its best
 * pairwise score in that API) is part of each candidate's final score, and every operation
 * of the best APIs is scored too, so an operation the lexical search missed is still found
 * where the rest of the document is.
 */
#include "search/match_int.h"

#include <json-c/json.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MATCH_WORDS_MAX = 10 };

/* ---------------------------------------------------------------- loading the query */

static int loaded(spec_registry *reg, const char *what, spec_registry **out, apidex_error *err)
{
    if (spec_registry_count(reg) == 0) {
        spec_registry_free(reg);
        return core_error_set(err, APIDEX_ESPEC, "%s: not an OpenAPI or Swagger document", what);
    }
    const spec_api *api = spec_registry_api(reg, 0);
    if (api->failed || api->skipped) {
        const core_diag *d = NULL;
        for (size_t i = 0; i < api->diags.n && !d; i++)
            if (api->diags.items[i].level == CORE_DIAG_ERROR) d = &api->diags.items[i];
        int code = d && d->code ? d->code : APIDEX_ESPEC;
        core_error_set(err, code, "%s", d ? d->message : "not an OpenAPI or Swagger document");
        if (d) {
            snprintf(err->file, sizeof err->file, "%s", d->file && *d->file ? d->file : what);
            err->line = d->line;
            err->col = d->col;
            snprintf(err->pointer, sizeof err->pointer, "%s", d->pointer ? d->pointer : "");
        } else {
            snprintf(err->file, sizeof err->file, "%s", what);
        }
        spec_registry_free(reg);
        return code;
    }
    if (api->n_ops == 0) {
        spec_registry_free(reg);
        core_error_set(err, APIDEX_EINVAL, "the document has no operations to match");
        snprintf(err->file, sizeof err->file, "%s", what);
        return APIDEX_EINVAL;
    }
    *out = reg;
    return 0;
}

int match_load_file(const char *path, spec_registry **out, apidex_error *err)
{
    *out = NULL;
    spec_registry *reg = NULL;
    int rc = spec_registry_new(NULL, &reg, err);
    if (!rc) rc = spec_registry_add(reg, path, err);
    if (rc) {
        spec_registry_free(reg);
        return rc;
    }
    return loaded(reg, path, out, err);
}

int match_load_text(const char *text, size_t len, spec_registry **out, apidex_error *err)
{
    *out = NULL;
    spec_registry *reg = NULL;
    int rc = spec_registry_new(NULL, &reg, err);
    if (!rc) rc = spec_registry_add_text(reg, "document", text, len, NULL, err);
    if (rc) {
        spec_registry_free(reg);
        return rc;
    }
    return loaded(reg, "document", out, err);
}

/* ---------------------------------------------------------------- scoring */

typedef struct sims {
    double v[6]; /* method, path, name, desc, params, response; < 0: not compared */
} sims;

static const char *const sim_names[6] = {"method", "path", "name", "desc", "params", "response"};

typedef struct cand {
    uint32_t op;
    double pair, final;
    sims s;
} cand;

typedef struct qop {
    match_feat f;
    cand *c;
    size_t n, cap;
    char *text; /* the lexical query */
} qop;

static double pair_score(const match_params *p, const match_feat *q, const match_feat *r, sims *s)
{
    for (int i = 0; i < 6; i++) s->v[i] = -1;
    s->v[0] = match_method_similarity(q->method, r->method);
    double kind = match_path_similarity(&q->shape, &r->shape);
    double lit = q->n[MATCH_G_LIT] || r->n[MATCH_G_LIT]
                     ? match_overlap_dice(q->g[MATCH_G_LIT], q->n[MATCH_G_LIT], r->g[MATCH_G_LIT],
                                          r->n[MATCH_G_LIT])
                     : 1.0;
    s->v[1] = p->path_kind * kind + (1 - p->path_kind) * lit;
    s->v[2] = match_overlap_dice(q->g[MATCH_G_NAME], q->n[MATCH_G_NAME], r->g[MATCH_G_NAME],
                                 r->n[MATCH_G_NAME]);
    if (q->n[MATCH_G_DESC]) {
        int g = r->n[MATCH_G_DESC] ? MATCH_G_DESC : MATCH_G_NAME;
        s->v[3] = match_overlap_dice(q->g[MATCH_G_DESC], q->n[MATCH_G_DESC], r->g[g], r->n[g]);
    }
    if (q->n[MATCH_G_PARAMS])
        s->v[4] = match_overlap_share(q->g[MATCH_G_PARAMS], q->n[MATCH_G_PARAMS],
                                      r->g[MATCH_G_PARAMS], r->n[MATCH_G_PARAMS]);
    if (q->n[MATCH_G_RESP])
        s->v[5] = match_overlap_share(q->g[MATCH_G_RESP], q->n[MATCH_G_RESP], r->g[MATCH_G_RESP],
                                      r->n[MATCH_G_RESP]);
    const double w[6] = {p->w_method, p->w_path, p->w_name, p->w_desc, p->w_params, p->w_response};
    double sum = 0, wsum = 0;
    for (int i = 0; i < 6; i++)
        if (s->v[i] >= 0) {
            sum += w[i] * s->v[i];
            wsum += w[i];
        }
    return wsum > 0 ? sum / wsum : 0;
}

static int add_cand(qop *q, const match_params *p, const match_feat *r, uint32_t op)
{
    if (core_array_grow(&q->c, &q->cap, q->n, sizeof *q->c, 32)) return APIDEX_ENOMEM;
    cand *c = &q->c[q->n++];
    c->op = op;
    c->pair = pair_score(p, &q->f, r, &c->s);
    c->final = c->pair;
    return 0;
}

/* The lexical query of an operation: summary, operationId and path words, and the start
   of the description. */
static char *query_text(const spec_operation *op)
{
    core_buf b;
    core_buf_init(&b, 4096);
    if (op->summary) core_buf_printf(&b, "%s ", op->summary);
    if (op->operation_id) core_buf_printf(&b, "%s ", op->operation_id);
    match_path_literals(op->path, &b);
    if (op->description) core_buf_printf(&b, " %.300s", op->description);
    core_buf_putc(&b, '\0');
    if (b.failed && !b.len) {
        core_buf_free(&b);
        return NULL;
    }
    return core_buf_steal(&b, NULL);
}

static int cmp_id(const void *a, const void *b, void *ctx);

/* The index of an operation id in the engine's operations (the search hits name them). */
static long op_index(const search_engine *e, const uint32_t *by_id, const char *id)
{
    size_t lo = 0, hi = e->n_ops;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(e->ops[by_id[mid]].id, id);
        if (!c) return by_id[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int cmp_id(const void *a, const void *b, void *ctx)
{
    const search_engine *e = ctx;
    return strcmp(e->ops[*(const uint32_t *)a].id, e->ops[*(const uint32_t *)b].id);
}

static int lexical_candidates(search_engine *e, const match_index *mi, const uint32_t *by_id,
                              const match_params *p, qop *q, uint32_t *mark, uint32_t stamp,
                              apidex_error *err)
{
    if (!q->text || !*q->text) return 0;
    search_query sq = {.text = q->text, .k = (size_t)p->cand_k, .mode = SEARCH_LEXICAL};
    search_result *res = NULL;
    int rc = search_engine_run(e, &sq, &res, err);
    if (rc == APIDEX_EINVAL) { /* a query of stop words only: no lexical candidates */
        core_error_clear(err);
        return 0;
    }
    for (size_t h = 0; !rc && res && h < res->n_hits; h++) {
        if (res->hits[h].role != SEARCH_ROLE_PRIMARY) continue;
        long i = op_index(e, by_id, res->hits[h].id);
        if (i < 0 || mark[i] == stamp) continue;
        mark[i] = stamp;
        rc = add_cand(q, p, &mi->ops[i], (uint32_t)i);
    }
    search_result_free(res);
    return rc;
}

/* cover[a]: the mean over the query's operations of their best pairwise score in API a. */
static void api_cover(const search_engine *e, const qop *qs, size_t nq, double *cover, double *best)
{
    memset(cover, 0, e->n_apis * sizeof *cover);
    for (size_t i = 0; i < nq; i++) {
        for (size_t c = 0; c < qs[i].n; c++) best[e->info[qs[i].c[c].op].api] = 0;
        for (size_t c = 0; c < qs[i].n; c++) {
            uint32_t a = e->info[qs[i].c[c].op].api;
            if (qs[i].c[c].pair > best[a]) best[a] = qs[i].c[c].pair;
        }
        for (size_t c = 0; c < qs[i].n; c++) {
            uint32_t a = e->info[qs[i].c[c].op].api;
            cover[a] += best[a] / (double)nq;
            best[a] = 0;
        }
    }
}

static int cmp_cand(const void *a, const void *b, void *ctx)
{
    const search_engine *e = ctx;
    const cand *x = a, *y = b;
    if (x->final != y->final) return x->final > y->final ? -1 : 1;
    if (x->pair != y->pair) return x->pair > y->pair ? -1 : 1;
    return strcmp(e->ops[x->op].id, e->ops[y->op].id);
}

/* ---------------------------------------------------------------- the answer */

static double round3(double v)
{
    return round(v * 1000.0) / 1000.0;
}

/* A number with at most three decimals, written as such (0.54, not 0.54000000000000004). */
static struct json_object *num3(double v)
{
    char text[32];
    snprintf(text, sizeof text, "%.3f", round3(v));
    size_t n = strlen(text);
    while (n > 1 && text[n - 1] == '0' && text[n - 2] != '.') text[--n] = '\0';
    return json_object_new_double_s(round3(v), text);
}

static void put_str(struct json_object *o, const char *k, const char *v)
{
    if (v) json_object_object_add(o, k, json_object_new_string(v));
}

static struct json_object *words_json(const search_engine *e, const match_feat *q,
                                      const match_feat *r)
{
    struct json_object *arr = json_object_new_array();
    static const int groups[] = {MATCH_G_NAME, MATCH_G_PARAMS, MATCH_G_RESP};
    long seen[MATCH_WORDS_MAX];
    size_t n = 0;
    for (size_t gi = 0; gi < 3 && n < MATCH_WORDS_MAX; gi++) {
        int g = groups[gi];
        size_t i = 0, j = 0;
        while (i < q->n[g] && j < r->n[g] && n < MATCH_WORDS_MAX) {
            if (q->g[g][i].id < r->g[g][j].id)
                i++;
            else if (q->g[g][i].id > r->g[g][j].id)
                j++;
            else {
                long id = q->g[g][i].id;
                bool dup = false;
                for (size_t k = 0; k < n; k++) dup |= seen[k] == id;
                if (!dup && id >= 0) {
                    seen[n++] = id;
                    json_object_array_add(
                        arr, json_object_new_string_len(e->terms[id].term, (int)e->terms[id].len));
                }
                i++;
                j++;
            }
        }
    }
    return arr;
}

static struct json_object *cand_json(const search_engine *e, const match_index *mi, const qop *q,
                                     const cand *c, double cover)
{
    const store_operation *op = &e->ops[c->op];
    struct json_object *o = json_object_new_object();
    put_str(o, "id", op->id);
    put_str(o, "api", op->api);
    put_str(o, "method", op->method);
    put_str(o, "path", op->path);
    put_str(o, "summary", image_op_summary(e, c->op));
    json_object_object_add(o, "score", num3(c->final));
    json_object_object_add(o, "pair", num3(c->pair));
    json_object_object_add(o, "api_cover", num3(cover));
    struct json_object *why = json_object_new_object();
    for (int i = 0; i < 6; i++)
        if (c->s.v[i] >= 0) json_object_object_add(why, sim_names[i], num3(c->s.v[i]));
    json_object_object_add(o, "why", why);
    json_object_object_add(o, "words", words_json(e, &q->f, &mi->ops[c->op]));
    return o;
}

typedef struct api_row {
    uint32_t api;
    size_t covered;
    double score;
} api_row;

static int cmp_api_row(const void *a, const void *b, void *ctx)
{
    const search_engine *e = ctx;
    const api_row *x = a, *y = b;
    if (x->covered != y->covered) return x->covered > y->covered ? -1 : 1;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return strcmp(e->apis[x->api].id, e->apis[y->api].id);
}

static struct json_object *apis_json(const search_engine *e, const qop *qs, size_t nq,
                                     const double *cover, double threshold, size_t k_apis)
{
    /* covered[a]: the query's operations whose best candidate in API a is above threshold */
    size_t *covered = calloc(e->n_apis ? e->n_apis : 1, sizeof *covered);
    double *best = calloc(e->n_apis ? e->n_apis : 1, sizeof *best);
    api_row *rows = calloc(e->n_apis ? e->n_apis : 1, sizeof *rows);
    struct json_object *arr = json_object_new_array();
    if (!covered || !best || !rows) goto done;
    for (size_t i = 0; i < nq; i++) {
        for (size_t c = 0; c < qs[i].n; c++) {
            uint32_t a = e->info[qs[i].c[c].op].api;
            if (qs[i].c[c].final > best[a]) best[a] = qs[i].c[c].final;
        }
        for (size_t c = 0; c < qs[i].n; c++) {
            uint32_t a = e->info[qs[i].c[c].op].api;
            if (best[a] >= threshold) covered[a]++;
            best[a] = -1; /* counted once */
        }
        for (size_t c = 0; c < qs[i].n; c++) best[e->info[qs[i].c[c].op].api] = 0;
    }
    size_t n = 0;
    for (size_t a = 0; a < e->n_apis; a++)
        if (cover[a] > 0) rows[n++] = (api_row){(uint32_t)a, covered[a], cover[a]};
    qsort_r(rows, n, sizeof *rows, cmp_api_row, (void *)e);
    for (size_t i = 0; i < n && i < k_apis; i++) {
        const store_api *api = &e->apis[rows[i].api];
        struct json_object *o = json_object_new_object();
        put_str(o, "api", api->id);
        put_str(o, "title", api->title);
        json_object_object_add(o, "covered", json_object_new_int64((int64_t)rows[i].covered));
        json_object_object_add(o, "operations", json_object_new_int64((int64_t)nq));
        json_object_object_add(o, "coverage", num3((double)rows[i].covered / nq));
        json_object_object_add(o, "score", num3(rows[i].score));
        json_object_array_add(arr, o);
    }
done:
    free(covered);
    free(best);
    free(rows);
    return arr;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Scores every operation of the APIs that cover the document best (api_expand of them). */
static int expand_apis(const search_engine *e, const match_index *mi, const match_params *p,
                       qop *qs, size_t nq, const double *cover, uint32_t *mark, uint32_t *stamp)
{
    size_t want = (size_t)p->api_expand;
    uint32_t top[20];
    size_t n_top = 0;
    for (size_t k = 0; k < want && k < 20; k++) {
        long pick = -1;
        for (size_t a = 0; a < e->n_apis; a++) {
            bool taken = false;
            for (size_t t = 0; t < n_top; t++) taken |= top[t] == a;
            if (taken || cover[a] <= 0 || (double)e->apis[a].n_ops > p->api_max_ops) continue;
            if (pick < 0 || cover[a] > cover[pick]) pick = (long)a;
        }
        if (pick < 0) break;
        top[n_top++] = (uint32_t)pick;
    }
    if (!n_top) return 0;
    for (size_t i = 0; i < nq; i++) {
        (*stamp)++;
        for (size_t c = 0; c < qs[i].n; c++) mark[qs[i].c[c].op] = *stamp;
        for (size_t o = 0; o < e->n_ops; o++) {
            if (mark[o] == *stamp || e->ops[o].deprecated) continue;
            bool in = false;
            for (size_t t = 0; t < n_top && !in; t++) in = e->info[o].api == top[t];
            if (!in) continue;
            int rc = add_cand(&qs[i], p, &mi->ops[o], (uint32_t)o);
            if (rc) return rc;
        }
    }
    return 0;
}

int match_run(search_engine *e, const spec_registry *reg, const match_query *mq,
              struct json_object **out, apidex_error *err)
{
    *out = NULL;
    double t0 = now_ms();
    match_params defaults;
    match_params_default(&defaults);
    const match_params *p = mq && mq->params ? mq->params : &defaults;
    double threshold = mq && mq->threshold >= 0 ? mq->threshold : p->threshold;
    size_t k = mq && mq->k ? mq->k : 5, k_apis = mq && mq->k_apis ? mq->k_apis : 5;
    const match_index *mi = NULL;
    int rc = match_index_get(e, &mi, err);
    if (rc) return rc;
    double t_features = now_ms();
    const spec_api *api = spec_registry_count(reg) ? spec_registry_api(reg, 0) : NULL;
    if (!api || api->failed || !api->n_ops)
        return core_error_set(err, APIDEX_EINVAL, "the document has no operations to match");
    size_t nq = api->n_ops;
    if (nq > MATCH_MAX_OPS)
        return core_error_set(err, APIDEX_EINVAL,
                              "the document has %zu operations; match takes at most %d at once "
                              "(split it)",
                              nq, MATCH_MAX_OPS);
    qop *qs = calloc(nq, sizeof *qs);
    uint32_t *mark = calloc(e->n_ops ? e->n_ops : 1, sizeof *mark);
    uint32_t *by_id = malloc((e->n_ops ? e->n_ops : 1) * sizeof *by_id);
    double *cover = calloc(e->n_apis ? e->n_apis : 1, sizeof *cover);
    double *best = calloc(e->n_apis ? e->n_apis : 1, sizeof *best);
    core_arena *arena = core_arena_new(0);
    text_analyzer *st = text_analyzer_new();
    match_unknown unknown = {0};
    if (!qs || !mark || !by_id || !cover || !best || !arena || !st) rc = APIDEX_ENOMEM;
    for (size_t i = 0; !rc && i < e->n_ops; i++) by_id[i] = (uint32_t)i;
    if (!rc) qsort_r(by_id, e->n_ops, sizeof *by_id, cmp_id, e);
    uint32_t stamp = 0;
    for (size_t i = 0; !rc && i < nq; i++) {
        rc = match_feat_query(e, api, &api->ops[i], st, &unknown, arena, &qs[i].f);
        if (!rc && !(qs[i].text = query_text(&api->ops[i]))) rc = APIDEX_ENOMEM;
        if (!rc) rc = lexical_candidates(e, mi, by_id, p, &qs[i], mark, ++stamp, err);
    }
    if (!rc) api_cover(e, qs, nq, cover, best);
    if (!rc) rc = expand_apis(e, mi, p, qs, nq, cover, mark, &stamp);
    if (!rc) api_cover(e, qs, nq, cover, best);
    struct json_object *res = NULL, *ops = NULL;
    size_t matched = 0;
    if (!rc) {
        res = json_object_new_object();
        ops = json_object_new_array();
        json_object_object_add(res, "threshold", num3(threshold));
    }
    for (size_t i = 0; !rc && i < nq; i++) {
        qop *q = &qs[i];
        for (size_t c = 0; c < q->n; c++)
            q->c[c].final =
                (1 - p->api_weight) * q->c[c].pair + p->api_weight * cover[e->info[q->c[c].op].api];
        if (q->n > 1) qsort_r(q->c, q->n, sizeof *q->c, cmp_cand, e); /* c may be NULL */
        const spec_operation *op = &api->ops[i];
        struct json_object *o = json_object_new_object();
        put_str(o, "method", op->method);
        put_str(o, "path", op->path);
        put_str(o, "operation_id", op->operation_id);
        put_str(o, "summary", op->summary);
        bool ok = q->n && q->c[0].final >= threshold;
        matched += ok;
        json_object_object_add(o, "match", json_object_new_boolean(ok));
        json_object_object_add(o, "best", num3(q->n ? q->c[0].final : 0));
        struct json_object *cs = json_object_new_array();
        for (size_t c = 0; c < q->n && c < k; c++)
            json_object_array_add(cs,
                                  cand_json(e, mi, q, &q->c[c], cover[e->info[q->c[c].op].api]));
        json_object_object_add(o, "candidates", cs);
        json_object_array_add(ops, o);
    }
    if (!rc) {
        json_object_object_add(res, "operations", ops);
        json_object_object_add(res, "matched", json_object_new_int64((int64_t)matched));
        json_object_object_add(res, "unmatched", json_object_new_int64((int64_t)(nq - matched)));
        json_object_object_add(res, "apis", apis_json(e, qs, nq, cover, threshold, k_apis));
        /* the registry's features are built on the engine's first match (then reused) */
        json_object_object_add(res, "features_ms", num3(t_features - t0));
        json_object_object_add(res, "elapsed_ms", num3(now_ms() - t_features));
        *out = res;
    }
    for (size_t i = 0; qs && i < nq; i++) {
        free(qs[i].c);
        free(qs[i].text);
    }
    free(qs);
    free(mark);
    free(by_id);
    free(cover);
    free(best);
    core_arena_free(arena);
    text_analyzer_free(st);
    match_unknown_free(&unknown);
    if (rc && !err->code) core_error_set(err, rc, "out of memory");
    return rc;
}
