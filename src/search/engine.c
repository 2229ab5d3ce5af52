/*
 * The search engine: from a task to the endpoints that do it, by relevance, and the plan
 * that calls them.
 *
 * Design (each step in its own file; every weight in params.c, measured in docs/SEARCH.md)
 * - Reading (query.c): the task's words once: intent or name or value (quoted strings,
 *   #tags, @handles, e-mails, URLs), literal numbers and ids, stems, verbs and their
 *   actions, the index terms each matches (typos corrected), "my".
 * - Intents (intent.c): a task may ask several things ("retrieve ..., configure ..., and
 *   submit ..."); it is split into clauses that each open with an action verb.
 * - Ranking (rank.c, lexical.c, dense.c): the whole task and each intent are ranked on
 *   their own words by BM25F over the operation fields the store keeps, each field with
 *   its weight and length normalisation, postings in memory (read from the index's
 *   search image, image.c, or when it has none built from the chunk terms the store
 *   streams, while the producer edges load on a second thread; no text is kept). Dense and hybrid
 * modes fuse the whole task's ranking with the embedding scores.
 * - Routing (routing.c): an API the words name is preferred for them; otherwise each API
 *   is weighed by the share of the words it has, and a ranking that is one request
 *   focuses on its best API. No constant damping of other APIs across a task's intents.
 * - Actions (action.c): an operation whose action (read, create, update, delete: from its
 *   summary's verb at index time) is not the one its intent asks for weighs less; a
 *   destructive one much less, and never enters an answer unless the task asks to delete.
 * - Answer (answer.c): the adaptive set takes each intent's best (or, for one request, the
 *   best and those close to it) and closes it under producers (compose.c): per input, unless
 *   the task gives it, the best producer by the edge's features, its relevance and the
 *   task's signals, never destructive, never a cycle. That, in call order, is the plan
 *   (plan.c), built for every query; the answer lists it by relevance. Ranked lists
 *   interleave the intents' rankings with the whole task's, each endpoint on its own
 *   evidence: producers stand in the plan, not in the list.
 * - Context (context.c): the operations and their schemas within a token budget.
 * Operation facts (action, destructive, text query, about the caller) and producer edges
 * come from the index; the engine never reads the specs.
 */
#include "search/search_int.h"

#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void search_engine_close(search_engine *e)
{
    if (!e) return;
    image_ops_free(e); /* before lex_free: the image may be both's */
    lex_free(e);
    if (e->info) /* each op's own array (engine_producers, or decoded: image.c) */
        for (size_t i = 0; i < e->n_ops; i++) free(e->info[i].producers);
    pthread_mutex_destroy(&e->prod_lock);
    free(e->info);
    if (!e->learned) free(e->verb_counts); /* else section LEARN's */
    free(e->opposites);
    free(e->verbs);
    free(e->verb_table);
    if (!e->learned) free(e->superseded);
    if (e->names_owned) free(e->names);
    free(e->doc_api);
    free(e->op_api);
    free(e->doc_op);
    free(e->doc_len8);
    free(e->brief);
    free(e->by_len);
    free(e->op_bar);
    core_arena_free(e->arena);
    pthread_mutex_destroy(&e->embed_lock);
    match_index_free(e->match);
    pthread_mutex_destroy(&e->match_lock);
    free(e->last_text);
    free(e->last_vec);
    free(e);
}

size_t search_engine_open_work(const search_engine *eng)
{
    return eng ? eng->work : 0;
}

bool search_engine_learned(const search_engine *eng)
{
    return eng && eng->learned;
}

size_t search_engine_producers_decoded(const search_engine *eng)
{
    size_t n = 0;
    for (size_t i = 0; eng && eng->info && i < eng->n_ops; i++)
        n += __atomic_load_n(&eng->info[i].producers, __ATOMIC_ACQUIRE) != NULL;
    return n;
}

const store_operation *search_engine_operations(const search_engine *eng, size_t *n)
{
    *n = eng->n_ops;
    return eng->ops;
}

const char *search_engine_op_summary(const search_engine *eng, size_t i)
{
    return image_op_summary(eng, i);
}

/* The first operation of API ai: the operations are in API order. */
static size_t first_of_api(const search_engine *e, size_t ai)
{
    size_t lo = 0, hi = e->n_ops;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->ops[mid].api_index < ai)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

long search_engine_find_operation(const search_engine *eng, const char *id)
{
    /* "api:operationId" or "api:METHOD /path": the API is the part before one of the
       colons (an API id may hold one itself), then its run of operations is scanned */
    for (const char *c = strchr(id, ':'); c; c = strchr(c + 1, ':')) {
        char api[512];
        size_t len = (size_t)(c - id);
        if (len >= sizeof api) break;
        memcpy(api, id, len);
        api[len] = '\0';
        long ai = store_find_api(eng->idx, api);
        if (ai < 0) continue;
        for (size_t i = first_of_api(eng, (size_t)ai);
             i < eng->n_ops && eng->ops[i].api_index == (size_t)ai; i++)
            if (!strcmp(eng->ops[i].id, id)) return (long)i;
    }
    return -1;
}

bool search_engine_image_mapped(const search_engine *eng)
{
    return eng && eng->image_mapped && eng->image == eng->ops_image;
}

void search_engine_set_embedder(search_engine *eng, embed_provider *p)
{
    search_engine_share_embedder(eng, p, NULL);
}

void search_engine_share_embedder(search_engine *eng, embed_provider *p, pthread_mutex_t *lock)
{
    if (!eng) return;
    eng->embedder = p;
    eng->embed_held = lock ? lock : &eng->embed_lock;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* How many of the sorted strings s[0..n) equal key: two binary searches (a walk from one
   match to the ends of its run costs the run's length per producer, and on a large API
   the run of a common entity is thousands long). */
static size_t equal_range(const char *const *s, size_t n, const char *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(s[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t first = lo;
    hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(s[mid], key) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - first;
}

/* The producer edges, grouped per consumer (counted, then placed), with the share of
   the consumer's API's operations that take the same entity as an input. */
int engine_producers(search_engine *e, const store_edge *edges, size_t n_edges)
{
    for (size_t pass = 0; pass < 2; pass++) {
        e->work += n_edges + e->n_ops;
        for (size_t i = 0; i < n_edges; i++) {
            const store_edge *ed = &edges[i];
            if (ed->kind != STORE_EDGE_PRODUCER || ed->src_index < 0 || ed->dst_index < 0 ||
                (size_t)ed->src_index >= e->n_ops || (size_t)ed->dst_index >= e->n_ops)
                continue;
            op_info *c = &e->info[ed->src_index];
            if (pass == 0) {
                c->n_producers++;
            } else {
                c->producers[c->n_producers++] =
                    (producer_ref){.producer = (uint32_t)ed->dst_index,
                                   .features = ed->features,
                                   .param = ed->param ? ed->param : "",
                                   .entity = ed->field ? ed->field : ""};
            }
        }
        for (size_t i = 0; pass == 0 && i < e->n_ops; i++) {
            op_info *c = &e->info[i];
            if (c->n_producers && !(c->producers = malloc(c->n_producers * sizeof *c->producers)))
                return APIDEX_ENOMEM;
            c->n_producers = 0;
        }
    }
    /* ambient inputs: the share of each API's operations that take each entity (the
       entities of an API's inputs, one per operation, sorted: a count is a range) */
    const char **ents = malloc((e->n_ops ? e->n_ops : 1) * 4 * sizeof *ents);
    if (!ents) return APIDEX_ENOMEM;
    for (size_t a = 0, first = 0; a < e->n_apis; a++) {
        size_t end = first, m = 0;
        while (end < e->n_ops && e->info[end].api == a) end++;
        e->work += 1 + (end - first);
        size_t n = end - first;
        for (size_t i = first; i < end; i++) {
            const store_operation *o = &e->ops[i];
            for (size_t k = 0, took = 0; k < o->n_inputs && took < 4; k++) {
                const char *f = o->inputs[k].field;
                bool dup = !f;
                e->work += 1 + k;
                for (size_t j = 0; j < k && !dup; j++)
                    dup = o->inputs[j].field && !strcmp(o->inputs[j].field, f);
                if (dup) continue;
                ents[m++] = f;
                took++;
            }
        }
        qsort(ents, m, sizeof *ents, cmp_str);
        for (size_t i = first; i < end; i++) {
            op_info *c = &e->info[i];
            for (size_t k = 0; k < c->n_producers; k++) {
                producer_ref *r = &c->producers[k];
                e->work++;
                size_t takes = equal_range(ents, m, r->entity);
                r->share = n ? (double)takes / (double)n : 0;
                r->api_ops = n;
            }
        }
        first = end;
    }
    free(ents);
    return 0;
}

/* Loading the edges, on a thread beside lex_build (the index is thread-safe). */
typedef struct edges_load {
    store_index *idx;
    pthread_t thread;
    const store_edge *edges;
    size_t n_edges;
    int rc;
    apidex_error err;
} edges_load;

static void *edges_run(void *arg)
{
    edges_load *el = arg;
    el->rc = store_edges(el->idx, &el->edges, &el->n_edges, &el->err);
    return NULL;
}

/* Opens the engine on idx; img (len bytes, not owned): the search image to use instead of
   the index's (the builder's, just encoded), NULL: the index's. */
static int engine_open(store_index *idx, const void *img, size_t len, search_engine **out,
                       apidex_error *err)
{
    *out = NULL;
    search_engine *e = calloc(1, sizeof *e);
    if (!e || !(e->arena = core_arena_new(0))) {
        free(e);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&e->embed_lock, NULL);
    pthread_mutex_init(&e->match_lock, NULL);
    pthread_mutex_init(&e->prod_lock, NULL);
    e->embed_held = &e->embed_lock;
    e->idx = idx;
    if (img) {
        e->ops_image = (void *)img;
        e->ops_image_len = len;
        e->image_mapped = true; /* not the engine's to free */
    }
    int rc = store_apis(idx, &e->apis, &e->n_apis, err);
    store_info info; /* read now: lex_build asks for it while the edges load */
    if (!rc) rc = store_index_info(idx, &info, err);
    /* the operations and the chunks' endpoints: from the search image's section OPS when it
       has a valid one, else the rows */
    int ops_rows = rc ? 0 : image_ops_open(e, &info, err);
    if (ops_rows < 0) rc = ops_rows;
    if (!rc && ops_rows == 1) rc = store_operations(idx, &e->ops, &e->n_ops, err);
    if (!rc && ops_rows == 1) rc = lex_docs(e, err);
    /* the rows (or records) read: lex_build counts the chunk terms, engine_producers the
       edges */
    if (!rc) e->work += e->n_ops + e->n_apis + e->n_docs;
    if (!rc) {
        e->info = calloc(e->n_ops ? e->n_ops : 1, sizeof *e->info);
        if (!e->info) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    for (size_t i = 0; !rc && i < e->n_ops; i++) {
        const store_operation *op = &e->ops[i];
        e->info[i].api = (uint32_t)op->api_index;
        e->info[i].action = op->action;
        e->info[i].flags = op->flags;
    }
    /* the lexical index and the producers: from the search image when it is there and
       valid, else built (the edges load on a thread of their own while the postings are) */
    int from_rows = rc ? 0 : image_open(e, err);
    if (from_rows < 0) rc = from_rows;
    if (from_rows == 1 && lex_table_grow(e))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    bool edges = !rc && !e->prod;
    edges_load el = {.idx = idx};
    bool threaded = edges && pthread_create(&el.thread, NULL, edges_run, &el) == 0;
    if (edges && !threaded) edges_run(&el);
    if (!rc && from_rows == 1) rc = lex_build(e, err);
    if (threaded) pthread_join(el.thread, NULL);
    if (!rc && edges && el.rc) {
        rc = el.rc;
        if (err) *err = el.err;
    }
    int mrc = 0;
    if (!rc && edges) mrc = engine_producers(e, el.edges, el.n_edges);
    if (!rc && !mrc && from_rows == 1) mrc = lex_sort_terms(e);
    if (!rc && !mrc && !e->learned) mrc = action_learn(e);
    if (!rc && !mrc) mrc = opposite_learn(e);
    /* the learned verbs, API names, owners and superseded copies: section LEARN when the
       image has it (image_open), else learned here; then the query tables over them */
    if (!rc && !mrc && !e->learned) mrc = route_api_names(e);
    if (!rc && !mrc && !e->learned) mrc = owner_learn(e);
    if (!rc && !mrc && !e->learned) mrc = dupes_mark(e);
    if (!rc && !mrc) mrc = lex_query_prep(e);
    if (!rc && mrc) rc = core_error_set(err, mrc, "out of memory");
    if (rc) {
        search_engine_close(e);
        return rc;
    }
    *out = e;
    return 0;
}

int search_engine_open(store_index *idx, search_engine **out, apidex_error *err)
{
    return engine_open(idx, NULL, 0, out, err);
}

int engine_open_image(store_index *idx, const void *img, size_t len, search_engine **out,
                      apidex_error *err)
{
    return engine_open(idx, img, len, out, err);
}

static bool in_list(const char *const *list, const char *s)
{
    if (!list) return true;
    for (; *list; list++)
        if (s && !strcasecmp(*list, s)) return true;
    return false;
}

static bool op_allowed(const search_engine *e, const search_query *q, uint8_t bar, size_t i)
{
    if (e->op_bar[i] & bar) return false;
    const store_operation *op = &e->ops[i];
    if (!in_list(q->apis, op->api)) return false;
    if (!in_list(q->methods, op->method)) return false;
    if (q->tags) {
        bool any = false;
        for (size_t t = 0; t < op->n_tags && !any; t++) any = in_list(q->tags, op->tags[t]);
        if (!any) return false;
    }
    return true;
}

/* Each operation: does it pass the query's filters? Without lists to match, the bars
   (deprecated, superseded) alone say, and the operations themselves are not read. */
static void ops_allowed(const search_engine *e, const search_query *q, const search_params *p,
                        bool *allowed)
{
    uint8_t bar = (uint8_t)((q->include_deprecated ? 0 : OP_BAR_DEPRECATED) |
                            (p->answer_duplicates > 0 ? OP_BAR_SUPERSEDED : 0));
    if (q->apis || q->methods || q->tags) {
        for (size_t i = 0; i < e->n_ops; i++) allowed[i] = op_allowed(e, q, bar, i);
        return;
    }
    for (size_t i = 0; i < e->n_ops; i++) allowed[i] = !(e->op_bar[i] & bar);
}

/* The whole task, then each intent. */
static int rank_all(query_state *st)
{
    const search_engine *e = st->e;
    st->whole.w0 = 0;
    st->whole.w1 = (uint32_t)st->n_words;
    int rc = rank_run(st, &st->whole, true);
    if (rc) return rc;
    for (size_t i = 0; i < e->n_ops; i++)
        if (st->whole.raw[i] > st->max_raw) st->max_raw = st->whole.raw[i];
    /* an intent that names no API takes the APIs the nearest earlier intent names: a name
       sets the context for what follows it ("on Contoso, create a server and attach a
       disk"), not for what comes before */
    const bool *context = NULL;
    for (size_t k = 0; k < st->n_intents && !rc; k++) {
        ranking *r = &st->intents[k];
        bool own = false;
        for (size_t i = r->w0; i < r->w1 && !own; i++) own = st->words[i].name >= 0;
        if (!own && context) {
            r->named = malloc(e->n_apis * sizeof *r->named);
            if (!r->named) return APIDEX_ENOMEM;
            memcpy(r->named, context, e->n_apis * sizeof *r->named);
        }
        rc = rank_run(st, r, false);
        if (own && r->only_name < 0 && r->named) context = r->named;
    }
    return rc;
}

/* APIDEX_SEARCH_TRACE=1: how the task was read, on stderr (a maintainer's aid). */
static void trace(const query_state *st)
{
    const search_engine *e = st->e;
    const char *t = st->q->text;
    fprintf(stderr, "task: names_things=%d mine=%d wants_delete=%d action=%s\n", st->names_things,
            st->mine, st->wants_delete, text_action_name(st->whole.action));
    for (size_t k = 0; k < st->n_intents + 1; k++) {
        const ranking *r = k < st->n_intents ? &st->intents[k] : &st->whole;
        fprintf(stderr, "%s %zu [%s] \"%.*s\" idf_total=%.2f\n",
                k < st->n_intents ? "intent" : "whole", k, text_action_name(r->action),
                (int)(r->w1 > r->w0 ? st->words[r->w1 - 1].end - st->words[r->w0].start : 0),
                r->w1 > r->w0 ? t + st->words[r->w0].start : "", r->idf_total);
        for (size_t i = 0; i < r->m && i < 3; i++) {
            uint32_t o = rank_op(r, i);
            const store_operation *op = &e->ops[o];
            fprintf(stderr, "    %.3f (raw %.3f, %.2f of a perfect match) %s %s [%s]\n",
                    r->score[o], r->raw[o], r->idf_total > 0 ? r->raw[o] / r->idf_total : 0,
                    op->method, op->path, op->api);
        }
    }
}

static void query_free(query_state *st)
{
    rank_free(&st->whole);
    for (size_t k = 0; k < st->n_intents; k++) rank_free(&st->intents[k]);
    free(st->intents);
    free(st->words);
    free(st->occ);
    free(st->allowed);
    free(st->bonus);
    free(st->bonus_word);
    free(st->usage);
    free(st->usage_bonus);
    free(st->dense);
    free(st->dense_doc);
    free(st->planned);
    free(st->out);
    free(st->role);
    free(st->links);
    free(st->inputs);
    lex_query_free(st);
}

/* A hit's one line for readers: the summary as plain text, else the description's first
   sentence (specs that describe operations only in their description); NULL when neither
   says anything. Display only: ranking never reads it. */
enum { HIT_SUMMARY_TOKENS = 60 };
static const char *hit_summary(const search_engine *e, size_t i, core_arena *a)
{
    core_buf b;
    core_buf_init(&b, 0);
    text_plain_summary(image_op_summary(e, i), image_op_description(e, i), HIT_SUMMARY_TOKENS, &b);
    const char *s = b.len ? core_arena_strndup(a, b.data, b.len) : NULL;
    core_buf_free(&b);
    return s;
}

int search_engine_run(search_engine *e, const search_query *q, search_result **out,
                      apidex_error *err)
{
    *out = NULL;
    if (!q || !q->text) return core_error_set(err, APIDEX_EINVAL, "empty query");
    if (q->mode != SEARCH_LEXICAL && q->mode != SEARCH_DENSE && q->mode != SEARCH_HYBRID)
        return core_error_set(err, APIDEX_EINVAL, "unknown search mode %d", (int)q->mode);
    if (q->hybrid_weight < 0 || q->hybrid_weight > 1 || q->hybrid_weight != q->hybrid_weight)
        return core_error_set(err, APIDEX_EINVAL, "the hybrid weight must be in [0, 1]");
    double t0 = core_now();
    query_state st = {.e = e, .q = q, .p = q->params ? q->params : search_params_defaults()};
    st.whole.only_name = -1;
    size_t n = e->n_ops ? e->n_ops : 1;
    if (q->mode != SEARCH_LEXICAL) {
        st.dense = malloc(n * sizeof *st.dense);
        st.dense_doc = calloc(n, sizeof *st.dense_doc);
        int drc = st.dense && st.dense_doc ? dense_scores(e, q->text, st.dense, st.dense_doc, err)
                                           : core_error_set(err, APIDEX_ENOMEM, "out of memory");
        if (drc) {
            query_free(&st);
            return drc;
        }
    }
    st.allowed = calloc(n, sizeof *st.allowed);
    search_result *res = calloc(1, sizeof *res);
    int rc = (!st.allowed || !res || !(res->arena = core_arena_new(0))) ? APIDEX_ENOMEM : 0;
    if (!rc) {
        ops_allowed(e, q, st.p, st.allowed);
        rc = query_read(&st);
    }
    if (!rc) rc = owner_read(&st);
    if (!rc) rc = values_read(&st);
    if (!rc) rc = usage_read(&st);
    if (!rc) rc = intent_split(&st);
    if (!rc) rc = intent_by_names(&st);
    if (!rc) rc = rank_all(&st);
    if (!rc && getenv("APIDEX_SEARCH_TRACE")) trace(&st);
    /* the plan (the adaptive answer in call order), then the list by relevance: the same
       operations for an adaptive query, the k most relevant for a fixed-k one; nothing
       matched: nothing to answer */
    if (!rc && st.whole.m) rc = answer_adaptive(&st);
    if (!rc) rc = plan_build(&st, res);
    if (!rc && q->adaptive) answer_order(&st);
    if (!rc && !q->adaptive) {
        /* the hits' links are the plan's */
        size_t plan_links = st.n_links;
        st.n_out = 0;
        rc = answer_ranked(&st, q->k ? q->k : 10);
        st.n_links = plan_links;
    }
    if (!rc) {
        res->hits = core_arena_calloc(res->arena, st.n_out ? st.n_out : 1, sizeof *res->hits);
        if (!res->hits) rc = APIDEX_ENOMEM;
        for (size_t i = 0; i < st.n_out && !rc; i++) {
            const store_operation *op = &e->ops[st.out[i]];
            search_hit *h = &res->hits[i];
            h->id = op->id;
            h->api = op->api;
            h->method = op->method;
            h->path = op->path;
            h->operation_id = op->operation_id;
            h->summary = hit_summary(e, st.out[i], res->arena);
            h->score = st.whole.raw[st.out[i]];
            h->role = st.role[i];
            h->why = context_explain(&st, st.out[i], res->arena);
            size_t nl = 0;
            for (size_t l = 0; l < st.n_links; l++)
                if (!strcmp(st.links[l].consumer_id, op->id)) nl++;
            if (nl) {
                h->links = core_arena_calloc(res->arena, nl, sizeof *h->links);
                if (!h->links) {
                    rc = APIDEX_ENOMEM;
                    break;
                }
                for (size_t l = 0; l < st.n_links; l++)
                    if (!strcmp(st.links[l].consumer_id, op->id))
                        h->links[h->n_links++] = st.links[l];
            }
        }
        res->n_hits = st.n_out;
        if (!rc) rc = confidence_fill(&st, res);
        if (!rc && q->budget) rc = context_assemble(&st, res);
    }
    query_free(&st);
    if (rc) {
        search_result_free(res);
        return core_error_set(err, rc, "out of memory");
    }
    res->elapsed_ms = (core_now() - t0) * 1000.0;
    *out = res;
    return 0;
}

void search_result_free(search_result *res)
{
    if (!res) return;
    free(res->context);
    core_arena_free(res->arena);
    search_engine_close(res->owned);
    free(res);
}

int search_run(store_index *idx, const search_query *q, search_result **out, apidex_error *err)
{
    search_engine *e;
    int rc = search_engine_open(idx, &e, err);
    if (rc) return rc;
    rc = search_engine_run(e, q, out, err);
    if (rc) {
        search_engine_close(e);
        return rc;
    }
    (*out)->owned = e; /* the hits point into it */
    return 0;
}
