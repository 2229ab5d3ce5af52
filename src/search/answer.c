/*
 * The answer, by relevance to the task, and its plan, in call order:
 *
 * - The adaptive answer is what the task needs and no more. A task that asks one thing gets
 *   its best operation, plus up to answer.max_primaries - 1 more scoring within answer.ratio
 *   of it (from the same API with answer.same_api). A task of several intents gets each
 *   intent's best operation (and its second within intent.second of it). Destructive operations
 *   enter only when the task asks to delete. Then each primary is closed under producers
 *   (compose.c): that is the plan, in call order. The answer lists the same operations by
 *   relevance: the primaries by their own score, then the producers the plan needs.
 * - A fixed-k list is read for recall: each intent's next best and the whole task's next
 *   best take turns (a one-intent task is simply its ranking), each followed by the
 *   producers of the inputs it needs that the task does not give (answer.list_producers).
 *   The endpoint that does the task comes before its producers, and a list the text
 *   cannot fill stays short: no endpoint without evidence pads it.
 */
#include "search/search_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int plan_push(query_state *st, uint32_t op)
{
    for (size_t i = 0; i < st->n_planned; i++)
        if (st->planned[i] == op) return 0;
    uint32_t *p = realloc(st->planned, (st->n_planned + 1) * sizeof *p);
    if (!p) return APIDEX_ENOMEM;
    st->planned = p;
    st->planned[st->n_planned++] = op;
    return 0;
}

/* May op be a primary of the adaptive answer for r? Nothing opposite to the request
   (opposite.c), nothing destructive unless the task asks to delete. Per task, not per
   request: a clause that names what to delete does not always hold the verb that deletes
   ("after identifying the obsolete ones, remove them"), and per request the SOCBench-D
   dev answers lost deletions they need (adaptive F1 0.795 -> 0.791). */
static bool answerable(const query_state *st, const ranking *r, uint32_t op)
{
    if (opposite_of_request(st, r, op)) return false;
    return !opposite_unasked_destructive(st, op);
}

/* The first operation of r's order that may enter the answer, or -1. */
static long best_of(const query_state *st, const ranking *r, size_t *at)
{
    for (size_t i = 0; i < r->m; i++)
        if (answerable(st, r, rank_op(r, i))) {
            if (at) *at = i;
            return rank_op(r, i);
        }
    return -1;
}

static int plan_one_intent(query_state *st)
{
    const search_engine *e = st->e;
    const ranking *r = &st->whole;
    size_t at = 0;
    long first = best_of(st, r, &at);
    if (first < 0) return 0;
    double top = r->score[first];
    int rc = plan_push(st, (uint32_t)first);
    size_t prim = 1;
    for (size_t i = at + 1; i < r->m && prim < (size_t)st->p->adaptive_max_primaries && !rc; i++) {
        uint32_t op = rank_op(r, i);
        if (r->score[op] < st->p->adaptive_ratio * top) break;
        if (!answerable(st, r, op)) continue;
        if (st->p->answer_same_api > 0 && e->info[op].api != e->info[first].api) continue;
        /* a request whose verb says what to do takes no second operation that does
           something else ("update a card" takes no card creation) */
        if (r->action && e->info[op].action && e->info[op].action != r->action) continue;
        rc = plan_push(st, op);
        prim++;
    }
    return rc;
}

static int plan_intents(query_state *st)
{
    int rc = 0;
    for (size_t k = 0; k < st->n_intents && !rc; k++) {
        const ranking *r = &st->intents[k];
        size_t at = 0;
        long best = best_of(st, r, &at);
        if (best < 0 || r->idf_total <= 0) continue;
        rc = plan_push(st, (uint32_t)best);
        for (size_t i = at + 1; i < r->m && !rc; i++) {
            uint32_t op = rank_op(r, i);
            if (r->score[op] < st->p->intent_second * r->score[best]) break;
            if (!answerable(st, r, op)) continue;
            rc = plan_push(st, op);
            break;
        }
    }
    return rc;
}

int answer_adaptive(query_state *st)
{
    int rc = st->n_intents > 1 ? plan_intents(st) : plan_one_intent(st);
    st->composing_plan = true;
    for (size_t i = 0; i < st->n_planned && !rc; i++)
        rc = compose_add(st, st->planned[i], SEARCH_ROLE_PRIMARY, 0);
    st->composing_plan = false;
    return rc;
}

/* An answer entry: its operation and role, and how it sorts. */
typedef struct answer_entry {
    uint32_t op;
    search_role role;
    double score;
    size_t at; /* its place in call order: ties keep it */
} answer_entry;

static int cmp_entry(const void *a, const void *b)
{
    const answer_entry *x = a, *y = b;
    if (x->role != y->role) return x->role == SEARCH_ROLE_PRIMARY ? -1 : 1;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

void answer_order(query_state *st)
{
    answer_entry *a = malloc((st->n_out ? st->n_out : 1) * sizeof *a);
    if (!a) return; /* call order is an answer too: only the order is lost */
    for (size_t i = 0; i < st->n_out; i++)
        a[i] = (answer_entry){st->out[i], st->role[i], st->whole.raw[st->out[i]], i};
    qsort(a, st->n_out, sizeof *a, cmp_entry);
    for (size_t i = 0; i < st->n_out; i++) {
        st->out[i] = a[i].op;
        st->role[i] = a[i].role;
    }
    free(a);
}

int search_cmp_score_desc(const void *a, const void *b, void *ctx)
{
    const double *s = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (s[x] > s[y]) return -1;
    if (s[x] < s[y]) return 1;
    return x < y ? -1 : x > y;
}

/* A score's bits as an unsigned key in the same order (negative scores below positive ones,
   -0 as +0); complemented for a descending sort. */
static uint64_t desc_key(double s)
{
    if (s == 0) s = 0; /* -0 compares equal to +0 */
    uint64_t u;
    memcpy(&u, &s, sizeof u);
    u = u >> 63 ? ~u : u | (1ull << 63);
    return ~u;
}

typedef struct keyed_op {
    uint64_t key;
    uint32_t op;
} keyed_op;

void search_order_by_score(uint32_t *order, size_t m, const double *score)
{
    enum { BITS = 11, BUCKETS = 1 << BITS };
    bool radix = m >= 256;
    for (size_t i = 0; radix && i < m; i++)
        radix = !isnan(score[order[i]]) && (i == 0 || order[i - 1] < order[i]);
    keyed_op *a = radix ? malloc(m * sizeof *a) : NULL;
    keyed_op *b = radix ? malloc(m * sizeof *b) : NULL;
    size_t *count = radix ? malloc((BUCKETS + 1) * sizeof *count) : NULL;
    if (!a || !b || !count) {
        free(a);
        free(b);
        free(count);
        qsort_r(order, m, sizeof *order, search_cmp_score_desc, (void *)score);
        return;
    }
    for (size_t i = 0; i < m; i++) a[i] = (keyed_op){desc_key(score[order[i]]), order[i]};
    /* least significant digit first; each pass is stable, so equal keys keep the
       ascending indexes they came in */
    for (unsigned shift = 0; shift < 64; shift += BITS) {
        memset(count, 0, (BUCKETS + 1) * sizeof *count);
        for (size_t i = 0; i < m; i++) count[((a[i].key >> shift) & (BUCKETS - 1)) + 1]++;
        if (count[((a[0].key >> shift) & (BUCKETS - 1)) + 1] == m) continue; /* one digit */
        for (size_t d = 0; d < BUCKETS; d++) count[d + 1] += count[d];
        for (size_t i = 0; i < m; i++) b[count[(a[i].key >> shift) & (BUCKETS - 1)]++] = a[i];
        keyed_op *t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < m; i++) order[i] = a[i].op;
    free(a);
    free(b);
    free(count);
}

/* (key, op) is before (x.key, x.op) in the order search_order_by_score makes */
static bool keyed_before(uint64_t key, uint32_t op, const keyed_op *x)
{
    return key < x->key || (key == x->key && op < x->op);
}

static void heap_down(keyed_op *h, size_t n, size_t i)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && keyed_before(h[c].key, h[c].op, &h[c + 1])) c++;
        if (!keyed_before(h[i].key, h[i].op, &h[c])) return;
        keyed_op t = h[i];
        h[i] = h[c];
        h[c] = t;
        i = c;
    }
}

static int cmp_keyed(const void *a, const void *b)
{
    const keyed_op *x = a, *y = b;
    return keyed_before(x->key, x->op, y) ? -1 : keyed_before(y->key, y->op, x);
}

size_t search_order_first(uint32_t *order, size_t m, const double *score, size_t k)
{
    bool ok = k && m > 4 * k;
    for (size_t i = 0; ok && i < m; i++)
        ok = !isnan(score[order[i]]) && (i == 0 || order[i - 1] < order[i]);
    keyed_op *h = ok ? malloc(k * sizeof *h) : NULL;
    uint32_t *rest = h ? malloc((m - k) * sizeof *rest) : NULL;
    if (!rest) {
        free(h);
        search_order_by_score(order, m, score);
        return m;
    }
    /* the k first: a heap whose root is the last of them so far */
    size_t n = 0;
    for (size_t i = 0; i < m; i++) {
        uint64_t key = desc_key(score[order[i]]);
        if (n < k) {
            size_t c = n++;
            h[c] = (keyed_op){key, order[i]};
            while (c && keyed_before(h[(c - 1) / 2].key, h[(c - 1) / 2].op, &h[c])) {
                keyed_op t = h[c];
                h[c] = h[(c - 1) / 2];
                h[(c - 1) / 2] = t;
                c = (c - 1) / 2;
            }
        } else if (keyed_before(key, order[i], &h[0])) {
            h[0] = (keyed_op){key, order[i]};
            heap_down(h, k, 0);
        }
    }
    qsort(h, k, sizeof *h, cmp_keyed);
    size_t r = 0;
    for (size_t i = 0; i < m; i++)
        if (keyed_before(h[k - 1].key, h[k - 1].op,
                         &(keyed_op){desc_key(score[order[i]]), order[i]}))
            rest[r++] = order[i];
    for (size_t i = 0; i < k; i++) order[i] = h[i].op;
    memcpy(order + k, rest, r * sizeof *rest);
    free(h);
    free(rest);
    return k;
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* Is op a copy of one listed already: the same method, path and operationId in an API of
   the same service (the same provider, or the same title)? Registries hold one service
   many times (its versions, regional or vendored copies); one entry stands for them. */
static bool copy_listed(const query_state *st, uint32_t op)
{
    const search_engine *e = st->e;
    const store_operation *o = &e->ops[op];
    const store_api *a = &e->apis[e->info[op].api];
    for (size_t i = 0; i < st->n_out; i++) {
        const store_operation *x = &e->ops[st->out[i]];
        if (e->info[st->out[i]].api == e->info[op].api || strcmp(x->method, o->method) ||
            strcmp(x->path, o->path) || !same_text(x->operation_id, o->operation_id))
            continue;
        const store_api *b = &e->apis[e->info[st->out[i]].api];
        if ((a->provider && b->provider && !strcmp(a->provider, b->provider)) ||
            (a->title && b->title && !strcasecmp(a->title, b->title)))
            return true;
    }
    return false;
}

/* The next operation of r not listed yet, from *pos on, or -1. With a per-API count
   (capped), an operation of an API that has cap primaries listed already is passed over:
   *pos stays on it, so that a later round without the cap still finds it. */
static long next_of(const query_state *st, const ranking *r, size_t *pos, const uint32_t *per_api,
                    size_t cap)
{
    for (size_t i = *pos; i < r->m; i++) {
        uint32_t op = rank_op(r, i);
        if (compose_out_has(st, op) || (st->p->answer_one_per_service > 0 && copy_listed(st, op))) {
            if (i == *pos) (*pos)++;
            continue;
        }
        if (per_api && per_api[st->e->info[op].api] >= cap) continue;
        if (i == *pos) (*pos)++;
        return op;
    }
    return -1;
}

/*
 * A task that names something the index does not know ("films by Jane Roe") finds it
 * with a search that takes text; which search (people, films, companies) the words
 * rarely say. A ranked list is read for recall: after its first request, the searches of
 * the APIs listed so far that the task's words match follow, most relevant first, up to
 * answer.name_searches.
 */
static int add_name_searches(query_state *st, size_t k)
{
    const search_engine *e = st->e;
    size_t max = (size_t)st->p->answer_name_searches, added = 0;
    if (!max || !st->names_things || !st->n_out) return 0;
    bool *api = calloc(e->n_apis ? e->n_apis : 1, sizeof *api);
    uint32_t *cand = malloc((e->n_ops ? e->n_ops : 1) * sizeof *cand);
    int rc = api && cand ? 0 : APIDEX_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < st->n_out && !rc; i++) api[e->info[st->out[i]].api] = true;
    for (size_t i = 0; i < e->n_ops && !rc; i++)
        if (st->allowed[i] && api[e->info[i].api] && (e->info[i].flags & STORE_OP_TEXT_QUERY) &&
            st->whole.raw[i] > 0 && !compose_out_has(st, (uint32_t)i))
            cand[m++] = (uint32_t)i;
    if (!rc) search_order_by_score(cand, m, st->whole.raw);
    for (size_t i = 0; i < m && added < max && st->n_out < k && !rc; i++, added++)
        rc = compose_out_push(st, cand[i], SEARCH_ROLE_PRODUCER);
    free(api);
    free(cand);
    return rc;
}

/*
 * One endpoint of a ranked list, and after it, by their score, the producers composition
 * brings for the inputs it needs that the task does not give: with answer.list_producers
 * 1 those the task's words match, with 2 all of them (RestBench's gold holds the lookups a
 * call needs, and their words are seldom the task's). The endpoint that does the task
 * comes first either way; a producer is never listed for an input the task gives.
 */
static int list_add(query_state *st, uint32_t op)
{
    if (st->p->answer_list_producers < 1) return compose_out_push(st, op, SEARCH_ROLE_PRIMARY);
    bool all = st->p->answer_list_producers >= 2;
    size_t from = st->n_out;
    int rc = compose_add(st, op, SEARCH_ROLE_PRIMARY, 0);
    if (rc || st->n_out == from) return rc;
    /* [from, n_out) holds op and its producers in call order: op first, then the producers
       with evidence, by score */
    size_t n = st->n_out - from, kept = 0;
    uint32_t *added = malloc(n * sizeof *added);
    if (!added) return APIDEX_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = st->out[from + i];
        if (x != op && (all || st->whole.raw[x] > 0)) added[kept++] = x;
    }
    search_order_by_score(added, kept, st->whole.score);
    st->out[from] = op;
    memcpy(st->out + from + 1, added, kept * sizeof *added);
    free(added);
    st->role[from] = SEARCH_ROLE_PRIMARY;
    for (size_t i = 0; i < kept; i++) st->role[from + 1 + i] = SEARCH_ROLE_PRODUCER;
    st->n_out = from + 1 + kept;
    return 0;
}

/*
 * The ranked list: the task's intents take turns, then the whole task. With
 * answer.api_cap, an API that has that many primaries listed gives no more
 * while the other APIs still have candidates: on a registry with one very large API, its
 * near misses would otherwise fill the list before the second-best API's first operation.
 * When no other candidate is left, the cap is lifted.
 */
int answer_ranked(query_state *st, size_t k)
{
    int rc = 0;
    size_t n_lists = st->n_intents > 1 ? st->n_intents + 1 : 1;
    size_t *pos = calloc(n_lists, sizeof *pos);
    size_t cap = (size_t)st->p->answer_api_cap;
    uint32_t *per_api = cap ? calloc(st->e->n_apis ? st->e->n_apis : 1, sizeof *per_api) : NULL;
    if (!pos || (cap && !per_api)) {
        free(pos);
        free(per_api);
        return APIDEX_ENOMEM;
    }
    bool any = true, searches = false;
    for (int pass = per_api ? 0 : 1; pass < 2 && !rc; pass++) {
        any = true;
        while (st->n_out < k && any && !rc) {
            any = false;
            for (size_t l = 0; l < n_lists && st->n_out < k && !rc; l++) {
                const ranking *r = l + 1 < n_lists ? &st->intents[l] : &st->whole;
                long op = next_of(st, r, &pos[l], pass ? NULL : per_api, cap);
                if (op < 0) continue;
                any = true;
                if (per_api) per_api[st->e->info[op].api]++;
                rc = list_add(st, (uint32_t)op);
                if (!rc && !searches) {
                    searches = true;
                    rc = add_name_searches(st, k);
                }
            }
        }
    }
    free(pos);
    free(per_api);
    /* producers may push the list past k */
    if (st->n_out > k) st->n_out = k;
    return rc;
}
