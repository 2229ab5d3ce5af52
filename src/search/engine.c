/*
 * The search engine: lexical ranking, API routing, composition and the
 * adaptive answer set.
 *
 * Design
 * - Lexical: BM25F over the operation fields the store keeps (path,
 *   operationId, summary, description, parameters, response fields, tags), each
 *   with its own weight and length normalisation; terms come from the same
 *   pipeline at index and query time (identifier splitting + Snowball stems).
 *   Postings live in memory, one array per term, so a query touches only the
 *   operations that share a term with it.
 * - Typos: a long lower-case word the index has never seen is read as the index
 *   word one edit away (capitalised words are names, never corrected).
 * - Routing: a task is nearly always about one API. Each API is scored by the
 *   sum of its three best operations times (the share of the task's words it has)^0.25;
 *   operations of other APIs are damped, and
 *   the adaptive answer set keeps to the best API. A task that names an API by
 *   the distinctive word of its title goes to that API.
 * - Composition: an operation that needs an identifier the task does not give
 *   (no id-like literal in the text) gets the best producer of it placed before
 *   it. Producers come from the index's data-flow edges (structure only) and
 *   are ranked by the edge's structural score plus their own relevance to the
 *   task, so "top rated" picks the top-rated list and a bare name picks search.
 * - Adaptive answer set: the best operation, plus those within a ratio of its
 *   score (at most three, same API), closed under producers. This is what an
 *   agent wants to read and what F1 measures.
 * - Ranked lists (fixed k) are read for recall: each consumer brings its best
 *   producer not listed yet, and a list the text cannot fill is filled from the
 *   data-flow graph around what is listed.
 * - Dense and hybrid: the query is embedded with the provider the index was
 *   built with and scanned exactly against every chunk vector (SIMD inner
 *   products, top-k heap); an endpoint scores as its best chunk, as in the
 *   lexical path. Hybrid fuses the two endpoint rankings (reciprocal ranks, or a
 *   weighted sum). The fused score replaces the lexical one before routing, so
 *   routing, composition, the adaptive set and the context run unchanged.
 */
#include "search/search.h"

#include "chunk/dataflow.h"
#include "embed/embed.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Field weights for BM25F (index: store_field). */
static const double field_weight[STORE_FIELD_COUNT] = {
    [STORE_FIELD_PATH] = 3.0,    [STORE_FIELD_OPERATION_ID] = 1.0,
    [STORE_FIELD_SUMMARY] = 3.0, [STORE_FIELD_DESCRIPTION] = 1.0,
    [STORE_FIELD_PARAMS] = 0.5,  [STORE_FIELD_RESPONSES] = 0.3,
    [STORE_FIELD_TAGS] = 0.5,    [STORE_FIELD_OTHER] = 1.0,
};
static const double bm25_k1 = 1.2, bm25_b = 0.75;
static const double route_damping = 0.6;   /* score factor for operations of other APIs */
static const double route_coverage = 0.25; /* exponent of an API's share of the task's words */
static const double named_damping = 0.1;   /* the same when the task names its API */
static const double name_weight = 0.3;     /* a capitalised word inside a sentence (a name) */
static const double adaptive_ratio = 0.8;  /* primaries within this ratio of the best */
static const size_t adaptive_max_primaries = 3;
static const double producer_relevance = 1.0; /* weight of task relevance in producer choice */
static const double producer_search_bonus =
    1.0; /* text-search producers when the task names things */
static const double producer_mine_bonus = 1.0; /* the caller's own lists when the task says "my" */
static const double rrf_k = 60.0;    /* reciprocal-rank fusion constant (Cormack et al. 2009) */
static const double no_dense = -2.0; /* below any cosine: the endpoint has no vector */

/* Ordinary English words that carry no intent; removed from queries only. */
static const char *const stop_words[] = {
    "a",     "an",    "the",    "of",   "to",    "in",    "on",   "for",  "and",   "or",   "is",
    "are",   "was",   "be",     "by",   "with",  "from",  "at",   "as",   "it",    "this", "that",
    "these", "those", "me",     "my",   "i",     "you",   "your", "what", "which", "who",  "whom",
    "how",   "when",  "where",  "give", "get",   "tell",  "show", "some", "any",   "all",  "do",
    "does",  "did",   "please", "can",  "could", "would", "will", "want", "need",  "let",  NULL};

typedef struct posting {
    uint32_t doc; /* chunk index */
    uint16_t field;
    uint16_t tf;
} posting;

typedef struct term_entry {
    const char *term; /* in the engine arena */
    uint32_t len;
    uint32_t df;   /* chunks containing it */
    posting *post; /* sorted by op */
    size_t n_post, cap_post;
} term_entry;

typedef struct producer_ref {
    uint32_t producer;
    double score;
    const char *param;
} producer_ref;

/* A ranked document: one chunk, and the operations (endpoints) it covers. */
typedef struct doc_info {
    uint32_t field_len[STORE_FIELD_COUNT];
    const long *ops; /* store_chunk.endpoint_ops */
    size_t n_ops;
} doc_info;

typedef struct op_info {
    uint32_t api;
    bool text_query;         /* takes a free-text search parameter (q, query, ...) */
    bool mine;               /* its path is about the caller: /me, /users/@me, /my, /self */
    producer_ref *producers; /* edges where this op is the consumer */
    size_t n_producers;
    size_t fan; /* edges where it is the producer: how many inputs it can feed */
} op_info;

struct search_engine {
    store_index *idx;
    const store_operation *ops;
    size_t n_ops;
    const store_api *apis;
    size_t n_apis;
    op_info *info;
    const store_chunk *chunks;
    size_t n_docs;
    size_t n_ranked; /* chunks that cover endpoints: the N of idf */
    doc_info *docs;
    term_entry *terms;
    size_t n_terms, cap_terms;
    uint32_t *table; /* open addressing: term index + 1 */
    size_t table_size;
    double avg_len[STORE_FIELD_COUNT];
    size_t max_fan;      /* the largest op_info.fan */
    long *name_term;     /* per API: a term of its title that (nearly) only it uses, or -1 */
    bool *name_is_vocab; /* per API: that term is also in its paths or operation ids */
    char **stop;         /* stop words through the term pipeline */
    size_t n_stop;
    core_arena *arena;
    embed_provider *embedder;    /* not owned; NULL: lexical only */
    pthread_mutex_t embed_lock;  /* providers are not thread-safe */
    pthread_mutex_t *embed_held; /* the lock taken around the provider: embed_lock, or one
                                    shared by every engine using the same provider */
    /* The last query's vector (under embed_lock): the same task is often run twice in a
       row (a ranked list, then the adaptive answer), and a remote embedding costs a round trip. */
    char *last_text;
    float *last_vec;
    size_t last_dim;
};

static uint64_t term_hash(const char *s, size_t n)
{
    return core_hash64(s, n);
}

static long term_find(const search_engine *e, const char *s, size_t n)
{
    if (!e->table_size) return -1;
    size_t h = term_hash(s, n) & (e->table_size - 1);
    while (e->table[h]) {
        const term_entry *t = &e->terms[e->table[h] - 1];
        if (t->len == n && memcmp(t->term, s, n) == 0) return (long)e->table[h] - 1;
        h = (h + 1) & (e->table_size - 1);
    }
    return -1;
}

static int table_grow(search_engine *e)
{
    size_t size = e->table_size ? e->table_size * 2 : 4096;
    uint32_t *t = calloc(size, sizeof *t);
    if (!t) return APIDEX_ENOMEM;
    for (size_t i = 0; i < e->n_terms; i++) {
        size_t h = term_hash(e->terms[i].term, e->terms[i].len) & (size - 1);
        while (t[h]) h = (h + 1) & (size - 1);
        t[h] = (uint32_t)i + 1;
    }
    free(e->table);
    e->table = t;
    e->table_size = size;
    return 0;
}

static long term_intern(search_engine *e, const char *s, size_t n)
{
    long found = term_find(e, s, n);
    if (found >= 0) return found;
    if ((e->n_terms + 1) * 2 > e->table_size && table_grow(e)) return -1;
    if (e->n_terms == e->cap_terms) {
        size_t cap = e->cap_terms ? e->cap_terms * 2 : 1024;
        term_entry *t = realloc(e->terms, cap * sizeof *t);
        if (!t) return -1;
        e->terms = t;
        e->cap_terms = cap;
    }
    term_entry *t = &e->terms[e->n_terms];
    memset(t, 0, sizeof *t);
    t->term = core_arena_strndup(e->arena, s, n);
    if (!t->term) return -1;
    t->len = (uint32_t)n;
    size_t h = term_hash(s, n) & (e->table_size - 1);
    while (e->table[h]) h = (h + 1) & (e->table_size - 1);
    e->table[h] = (uint32_t)e->n_terms + 1;
    return (long)e->n_terms++;
}

/* Adds one occurrence of a term in (doc, field). Postings arrive in doc order. */
static int posting_add(search_engine *e, long ti, uint32_t doc, uint16_t field)
{
    term_entry *t = &e->terms[ti];
    for (size_t k = t->n_post; k-- > 0 && t->post[k].doc == doc;)
        if (t->post[k].field == field) {
            if (t->post[k].tf < UINT16_MAX) t->post[k].tf++;
            return 0;
        }
    if (!t->n_post || t->post[t->n_post - 1].doc != doc) t->df++;
    if (t->n_post == t->cap_post) {
        size_t cap = t->cap_post ? t->cap_post * 2 : 4;
        posting *p = realloc(t->post, cap * sizeof *p);
        if (!p) return APIDEX_ENOMEM;
        t->post = p;
        t->cap_post = cap;
    }
    t->post[t->n_post++] = (posting){doc, field, 1};
    return 0;
}

static bool is_stop(const search_engine *e, const char *s, size_t n)
{
    for (size_t i = 0; i < e->n_stop; i++)
        if (strlen(e->stop[i]) == n && memcmp(e->stop[i], s, n) == 0) return true;
    return false;
}

void search_engine_close(search_engine *e)
{
    if (!e) return;
    for (size_t i = 0; i < e->n_terms; i++) free(e->terms[i].post);
    free(e->terms);
    free(e->table);
    if (e->info)
        for (size_t i = 0; i < e->n_ops; i++) free(e->info[i].producers);
    free(e->info);
    free(e->docs);
    core_arena_free(e->arena);
    pthread_mutex_destroy(&e->embed_lock);
    free(e->last_text);
    free(e->last_vec);
    free(e);
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

/*
 * The name of each API as the index uses it: the rarest term of its title whose
 * chunks (nine in ten or more) belong to that API alone ("stripe", "twilio"; not
 * "api" or "http"). A task that says "my Stripe balance" is routed to Stripe.
 */
static int api_name_terms(search_engine *e)
{
    e->name_term = core_arena_calloc(e->arena, e->n_apis ? e->n_apis : 1, sizeof *e->name_term);
    e->name_is_vocab =
        core_arena_calloc(e->arena, e->n_apis ? e->n_apis : 1, sizeof *e->name_is_vocab);
    if (!e->name_term || !e->name_is_vocab) return APIDEX_ENOMEM;
    store_terms *tp = store_terms_new();
    if (!tp) return APIDEX_ENOMEM;
    int rc = 0;
    for (size_t a = 0; a < e->n_apis && !rc; a++) {
        e->name_term[a] = -1;
        const char *title = e->apis[a].title;
        if (!title || e->n_apis < 2) continue;
        core_buf b;
        core_buf_init(&b, 1 << 16);
        store_terms_append(tp, title, strlen(title), &b);
        for (const char *t = b.data ? b.data : ""; *t;) {
            while (*t == ' ') t++;
            const char *end = t;
            while (*end && *end != ' ') end++;
            long ti = end - t >= 3 ? term_find(e, t, (size_t)(end - t)) : -1;
            t = end;
            if (ti < 0) continue;
            const term_entry *te = &e->terms[ti];
            size_t mine = 0, all = 0;
            for (size_t p = 0; p < te->n_post; p++) {
                if (p && te->post[p].doc == te->post[p - 1].doc) continue;
                const doc_info *d = &e->docs[te->post[p].doc];
                if (!d->n_ops || d->ops[0] < 0 || (size_t)d->ops[0] >= e->n_ops) continue;
                all++;
                if (e->info[d->ops[0]].api == a) mine++;
            }
            if (all && mine * 10 >= all * 9 &&
                (e->name_term[a] < 0 || te->df < e->terms[e->name_term[a]].df))
                e->name_term[a] = ti;
        }
        if (b.failed) rc = APIDEX_ENOMEM;
        core_buf_free(&b);
        /* "recipe" in a Recipe Box API is what its operations are about, not only a name */
        const term_entry *te = e->name_term[a] >= 0 ? &e->terms[e->name_term[a]] : NULL;
        for (size_t p = 0; te && p < te->n_post; p++) {
            int f = te->post[p].field;
            if (f == STORE_FIELD_PATH || f == STORE_FIELD_OPERATION_ID) e->name_is_vocab[a] = true;
        }
    }
    store_terms_free(tp);
    return rc;
}

/* Does the task speak of the caller's own things ("my playlist", "our invoices")? */
static bool says_mine(const char *s)
{
    static const char *const words[] = {"my", "mine", "our", "ours", NULL};
    for (const char *p = s; *p;) {
        while (*p && !isalpha((unsigned char)*p)) p++;
        const char *w = p;
        while (isalpha((unsigned char)*p)) p++;
        for (const char *const *k = words; *k && p > w; k++)
            if ((size_t)(p - w) == strlen(*k) && !strncasecmp(w, *k, (size_t)(p - w))) return true;
    }
    return false;
}

int search_engine_open(store_index *idx, search_engine **out, apidex_error *err)
{
    *out = NULL;
    search_engine *e = calloc(1, sizeof *e);
    if (!e || !(e->arena = core_arena_new(0))) {
        free(e);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&e->embed_lock, NULL);
    e->embed_held = &e->embed_lock;
    e->idx = idx;
    int rc = store_operations(idx, &e->ops, &e->n_ops, err);
    if (!rc) rc = store_apis(idx, &e->apis, &e->n_apis, err);
    const store_edge *edges = NULL;
    size_t n_edges = 0;
    if (!rc) rc = store_edges(idx, &edges, &n_edges, err);
    if (rc) {
        search_engine_close(e);
        return rc;
    }
    e->info = calloc(e->n_ops ? e->n_ops : 1, sizeof *e->info);
    if (!e->info || table_grow(e)) {
        search_engine_close(e);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < e->n_ops; i++) {
        const store_operation *op = &e->ops[i];
        e->info[i].api = (uint32_t)op->api_index;
        e->info[i].mine = dataflow_path_is_mine(op->path);
        static const char *const search_params[] = {"q",       "query",    "search", "term",
                                                    "keyword", "keywords", "text",   NULL};
        for (size_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k].location && !strcmp(op->inputs[k].location, "query"))
                for (const char *const *sp = search_params; *sp; sp++)
                    if (!strcasecmp(op->inputs[k].name, *sp)) e->info[i].text_query = true;
    }
    /* Documents are the chunks that cover endpoints (schema chunks are context only).
       A chunk with per-field text (an operation chunk) is ranked on its fields; one
       without (a window of a whole document, a JSON split) on its whole text. */
    rc = store_chunks(idx, &e->chunks, &e->n_docs, err);
    if (rc) {
        search_engine_close(e);
        return rc;
    }
    e->docs = calloc(e->n_docs ? e->n_docs : 1, sizeof *e->docs);
    if (!e->docs) {
        search_engine_close(e);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    /* The hybrid strategy (the default) is ranked field by field; the paper's strategies
       are ranked on the text each chunk was built to expose, as the paper does. */
    store_info info;
    bool use_fields = true;
    if (store_index_info(idx, &info, err) == 0 && info.strategy && *info.strategy &&
        strncmp(info.strategy, "hybrid", 6) != 0)
        use_fields = false;
    double total_len[STORE_FIELD_COUNT] = {0};
    size_t with_field[STORE_FIELD_COUNT] = {0};
    for (size_t d = 0; d < e->n_docs && !rc; d++) {
        const store_chunk *c = &e->chunks[d];
        e->docs[d].ops = c->endpoint_ops;
        e->docs[d].n_ops = c->n_endpoints;
        if (!c->n_endpoints) continue;
        e->n_ranked++;
        bool specific = false;
        for (int f = 0; f < STORE_FIELD_TAGS && use_fields; f++) /* tags: API title everywhere */
            if (c->terms[f] && *c->terms[f]) specific = true;
        for (int f = 0; f < STORE_FIELD_COUNT && !rc; f++) {
            if (specific == (f == STORE_FIELD_OTHER)) continue;
            const char *t = c->terms[f];
            if (!t) continue;
            while (*t && !rc) {
                while (*t == ' ') t++;
                const char *end = t;
                while (*end && *end != ' ') end++;
                if (end > t) {
                    long ti = term_intern(e, t, (size_t)(end - t));
                    rc = ti < 0 ? APIDEX_ENOMEM : posting_add(e, ti, (uint32_t)d, (uint16_t)f);
                    e->docs[d].field_len[f]++;
                }
                t = end;
            }
            if (e->docs[d].field_len[f]) {
                total_len[f] += e->docs[d].field_len[f];
                with_field[f]++;
            }
        }
    }
    for (int f = 0; f < STORE_FIELD_COUNT; f++)
        e->avg_len[f] = with_field[f] ? total_len[f] / (double)with_field[f] : 0;
    /* producer edges, grouped per consumer: counted, then placed */
    for (size_t pass = 0; pass < 2 && !rc; pass++) {
        for (size_t i = 0; i < n_edges; i++) {
            const store_edge *ed = &edges[i];
            if (ed->kind != STORE_EDGE_PRODUCER || ed->src_index < 0 || ed->dst_index < 0 ||
                (size_t)ed->src_index >= e->n_ops || (size_t)ed->dst_index >= e->n_ops)
                continue;
            op_info *c = &e->info[ed->src_index];
            if (pass == 0) {
                c->n_producers++;
                e->info[ed->dst_index].fan++;
            } else {
                c->producers[c->n_producers++] =
                    (producer_ref){(uint32_t)ed->dst_index, ed->score, ed->param ? ed->param : ""};
            }
        }
        for (size_t i = 0; pass == 0 && i < e->n_ops && !rc; i++) {
            op_info *c = &e->info[i];
            if (c->fan > e->max_fan) e->max_fan = c->fan;
            if (c->n_producers && !(c->producers = malloc(c->n_producers * sizeof *c->producers)))
                rc = APIDEX_ENOMEM;
            c->n_producers = 0;
        }
    }
    if (!rc) rc = api_name_terms(e);
    /* stop words through the same term pipeline */
    store_terms *tp = store_terms_new();
    size_t n_sw = 0;
    while (stop_words[n_sw]) n_sw++;
    e->stop = core_arena_calloc(e->arena, n_sw * 2 + 1, sizeof(char *));
    if (!tp || !e->stop) rc = APIDEX_ENOMEM;
    for (size_t i = 0; i < n_sw && !rc; i++) {
        core_buf b;
        core_buf_init(&b, 4096);
        store_terms_append(tp, stop_words[i], strlen(stop_words[i]), &b);
        if (b.len && !strchr(b.data, ' '))
            e->stop[e->n_stop++] = core_arena_strdup(e->arena, b.data);
        core_buf_free(&b);
    }
    store_terms_free(tp);
    if (rc) {
        search_engine_close(e);
        return core_error_set(err, rc, "out of memory");
    }
    *out = e;
    return 0;
}

/* ---------------------------------------------------------------- query */

typedef struct qterm {
    long term;
    double idf;
} qterm;

typedef struct query_state {
    const search_engine *e;
    const search_query *q;
    qterm *terms;
    size_t n_terms, cap_terms;
    double *score;      /* per op, lexical (routed) */
    double *raw;        /* per op, lexical before routing */
    uint32_t *best_doc; /* per op, the chunk that gave raw */
    bool *allowed;      /* per op, passes the filters */
    uint32_t best_api;
    bool api_named; /* the task names an API ("my Stripe balance"): named_api */
    uint32_t named_api;
    bool literal_id;     /* the task names an identifier value itself */
    bool names_things;   /* the task names something by name (capitalised, quoted, unknown words) */
    bool mine;           /* the task speaks of the caller's own things ("my playlist") */
    double max_raw;      /* best lexical score */
    double *dense;       /* per op, best chunk cosine (no_dense when none); NULL: lexical mode */
    uint32_t *dense_doc; /* per op, the chunk that gave dense */
    uint32_t *out;       /* result ops in call order */
    search_role *role;
    size_t n_out, cap_out;
    search_link *links;
    size_t n_links, cap_links;
} query_state;

static bool in_list(const char *const *list, const char *s)
{
    if (!list) return true;
    for (; *list; list++)
        if (s && !strcasecmp(*list, s)) return true;
    return false;
}

static bool op_allowed(const search_engine *e, const search_query *q, size_t i)
{
    const store_operation *op = &e->ops[i];
    if (op->deprecated && !q->include_deprecated) return false;
    if (!in_list(q->apis, op->api)) return false;
    if (!in_list(q->methods, op->method)) return false;
    if (q->tags) {
        bool any = false;
        for (size_t t = 0; t < op->n_tags && !any; t++) any = in_list(q->tags, op->tags[t]);
        if (!any) return false;
    }
    return true;
}

/* Does the task name something: a quoted string, or a capitalised word that does not
   start a sentence (titles, people, places)? */
static bool names_something(const char *s)
{
    for (const char *p = s; *p; p++) {
        if ((*p == '"' || *p == '\'') && p[1]) {
            const char *close = strchr(p + 1, *p);
            if (close && close - p > 2 && (*p == '"' || p == s || !isalnum((unsigned char)p[-1])))
                return true;
        }
    }
    bool sentence_start = true;
    for (const char *p = s; *p;) {
        while (*p && !isalnum((unsigned char)*p)) {
            if (*p == '.' || *p == '?' || *p == '!' || *p == ':') sentence_start = true;
            p++;
        }
        const char *w = p;
        while (*p && (isalnum((unsigned char)*p) || *p == '\'' || *p == '-')) p++;
        if (p == w) break;
        bool cap = isupper((unsigned char)w[0]);
        bool single_i = p - w == 1 && w[0] == 'I';
        if (cap && !sentence_start && !single_i) return true;
        sentence_start = false;
    }
    return false;
}

/* Does the task carry an identifier value itself (a number of 3+ digits, a UUID, a long
   mixed-case/digit token)? Then producers are not needed. */
static bool has_literal_id(const char *s)
{
    const char *p = s;
    while (*p) {
        while (*p && !isalnum((unsigned char)*p)) p++;
        const char *start = p;
        size_t digits = 0, alpha = 0, upper = 0;
        while (*p && (isalnum((unsigned char)*p) || *p == '-' || *p == '_')) {
            if (isdigit((unsigned char)*p))
                digits++;
            else if (isalpha((unsigned char)*p)) {
                alpha++;
                if (isupper((unsigned char)*p)) upper++;
            }
            p++;
        }
        size_t len = (size_t)(p - start);
        if (digits >= 3 && alpha == 0) return true;
        if (len >= 16 && digits >= 2 && alpha >= 4) return true; /* uuid, base62 ids */
        (void)upper;
    }
    return false;
}

/* Is the Damerau-Levenshtein distance of a and b (bytes) at most one? */
static bool within_one_edit(const char *a, size_t na, const char *b, size_t nb)
{
    if (na > nb + 1 || nb > na + 1) return false;
    size_t i = 0;
    while (i < na && i < nb && a[i] == b[i]) i++;
    if (i == na && i == nb) return true;
    if (na == nb) {
        if (!memcmp(a + i + 1, b + i + 1, na - i - 1)) return true; /* substitution */
        return i + 1 < na && a[i] == b[i + 1] && a[i + 1] == b[i] &&
               !memcmp(a + i + 2, b + i + 2, na - i - 2); /* transposition */
    }
    if (na > nb) return !memcmp(a + i + 1, b + i, na - i - 1); /* deletion */
    return !memcmp(a + i, b + i + 1, nb - i - 1);              /* insertion */
}

/*
 * A lower-case word the index has never seen, one edit away from a word it has
 * ("bitrhday"), not at its last letter: the most frequent such word, or -1. Capitalised words are
 * names (titles, people) and are left alone, as are short words, where one edit reaches too many
 * others.
 */
static long term_correct(const search_engine *e, const char *s, size_t n)
{
    enum { min_len = 7 };
    if (n < min_len) return -1;
    long best = -1;
    for (size_t i = 0; i < e->n_terms; i++) {
        const term_entry *t = &e->terms[i];
        if (t->len < min_len || !within_one_edit(s, n, t->term, t->len)) continue;
        /* an edit at the last letter is a word's other form, not a typo: "director" is
           not the stem of "directory" ("directori") */
        size_t same = 0, shorter = n < t->len ? n : t->len;
        while (same < shorter && s[same] == t->term[same]) same++;
        if (same + 1 >= shorter) continue;
        if (best < 0 || t->df > e->terms[best].df) best = (long)i;
    }
    return best;
}

/* Adds term ti with weight w (its idf is scaled by it); a repeat keeps the larger weight. */
static int qterm_add(query_state *st, long ti, double w)
{
    const search_engine *e = st->e;
    double df = e->terms[ti].df, N = (double)e->n_ranked;
    double idf = log(1.0 + (N - df + 0.5) / (df + 0.5));
    for (size_t i = 0; i < st->n_terms; i++)
        if (st->terms[i].term == ti) {
            if (idf * w > st->terms[i].idf) st->terms[i].idf = idf * w;
            return 0;
        }
    if (st->n_terms == st->cap_terms) {
        size_t cap = st->cap_terms ? st->cap_terms * 2 : 16;
        qterm *nt = realloc(st->terms, cap * sizeof *nt);
        if (!nt) return APIDEX_ENOMEM;
        st->terms = nt;
        st->cap_terms = cap;
    }
    st->terms[st->n_terms++] = (qterm){ti, idf * w};
    return 0;
}

/* Length of the quote mark at p (ASCII ' and ", or UTF-8 curly quotes), 0 if none. */
static size_t quote_at(const char *p, bool *single)
{
    const unsigned char *u = (const unsigned char *)p;
    *single = false;
    if (*u == '"') return 1;
    if (*u == '\'') return *single = true, 1;
    if (u[0] == 0xE2 && u[1] == 0x80 && (u[2] == 0x9C || u[2] == 0x9D)) return 3; /* “ ” */
    if (u[0] == 0xE2 && u[1] == 0x80 && (u[2] == 0x98 || u[2] == 0x99))           /* ‘ ’ */
        return *single = true, 3;
    return 0;
}

/*
 * Marks the bytes of text that are values, not intent: quoted strings ("name it 'Love
 * Mariah'", the message to post) and tokens such as #channel, @user, e-mail addresses
 * and URLs. Their words are not matched against the index; they still tell that the
 * task names something. A single quote opens only after a non-letter and closes only
 * before one, so "DiCaprio's" and "don't" are no quotes.
 */
static void mark_values(const char *text, bool *value)
{
    size_t n = strlen(text);
    /* once a quote of a kind finds no close, none after it can: linear time */
    bool unclosed[2] = {false, false};
    for (size_t i = 0; i < n; i++) {
        bool single;
        size_t ql = quote_at(text + i, &single);
        if (!ql || unclosed[single] || (single && i && isalnum((unsigned char)text[i - 1])))
            continue;
        unclosed[single] = true;
        for (size_t j = i + ql; j < n; j++) {
            bool s2;
            size_t cl = quote_at(text + j, &s2);
            if (!cl || s2 != single) continue;
            if (single && j + cl < n && isalnum((unsigned char)text[j + cl])) continue;
            for (size_t k = i; k < j + cl; k++) value[k] = true;
            unclosed[single] = false;
            i = j + cl - 1;
            break;
        }
    }
    for (size_t i = 0; i < n;) {
        while (i < n && isspace((unsigned char)text[i])) i++;
        size_t start = i;
        bool tokenish = text[i] == '#' || text[i] == '@';
        while (i < n && !isspace((unsigned char)text[i])) {
            if (text[i] == '@' ||
                (text[i] == ':' && i + 2 < n && text[i + 1] == '/' && text[i + 2] == '/'))
                tokenish = true;
            i++;
        }
        if (tokenish)
            for (size_t k = start; k < i; k++) value[k] = true;
    }
}

/* The task's terms, word by word (a word's case decides whether a typo is corrected). */
static int query_terms(query_state *st)
{
    const search_engine *e = st->e;
    store_terms *tp = store_terms_new();
    if (!tp) return APIDEX_ENOMEM;
    core_buf b;
    core_buf_init(&b, 1 << 20);
    enum { max_corrections = 8 };
    size_t tries = 0;
    const char *text = st->q->text;
    bool *value = calloc(strlen(text) + 1, sizeof *value);
    int rc = value ? 0 : APIDEX_ENOMEM;
    if (value) mark_values(text, value);
    bool sentence_start = true;
    for (const char *w = text; *w && !rc;) {
        while (*w && isspace((unsigned char)*w)) w++;
        const char *we = w;
        while (*we && !isspace((unsigned char)*we)) we++;
        if (we == w) break;
        if (value[w - text]) {
            sentence_start = false;
            st->names_things = true;
            w = we;
            continue;
        }
        bool lower = !isupper((unsigned char)*w);
        /* A capitalised word inside a sentence is a name ("Star Wars", "The Shawshank
           Redemption"): it still counts, but little, so that "stars" and "redemptions"
           of other APIs do not outrank the task's own words. Acronyms (TV, MMS) count. */
        bool name = !lower && !sentence_start && we - w > 1 && islower((unsigned char)w[1]);
        double weight = name ? name_weight : 1.0;
        char last = we[-1];
        sentence_start = last == '.' || last == '?' || last == '!' || last == ':';
        core_buf_reset(&b);
        store_terms_append(tp, w, (size_t)(we - w), &b);
        if (b.failed) rc = APIDEX_ENOMEM;
        for (const char *t = b.data ? b.data : ""; *t && !rc;) {
            while (*t == ' ') t++;
            const char *end = t;
            while (*end && *end != ' ') end++;
            size_t n = (size_t)(end - t);
            if (n && !is_stop(e, t, n)) {
                long ti = term_find(e, t, n);
                if (ti < 0 && lower && tries < max_corrections) {
                    tries++; /* each try scans the vocabulary: a long task gets a few */
                    ti = term_correct(e, t, n);
                }
                if (ti < 0) st->names_things = true; /* a word the index has never seen */
                if (ti >= 0) rc = qterm_add(st, ti, weight);
            }
            t = end;
        }
        w = we;
    }
    free(value);
    store_terms_free(tp);
    core_buf_free(&b);
    return rc;
}

static int cmp_score_desc(const void *a, const void *b, void *ctx);

/* Replaces the lexical raw scores with the dense or fused ones (filters apply first:
   ranks count only the endpoints the query allows). */
static void fuse_scores(query_state *st)
{
    const search_engine *e = st->e;
    const search_query *q = st->q;
    if (q->mode == SEARCH_DENSE) {
        for (size_t i = 0; i < e->n_ops; i++) {
            st->raw[i] = st->dense[i] > 0 ? st->dense[i] : 0;
            if (st->raw[i] > 0) st->best_doc[i] = st->dense_doc[i];
        }
        return;
    }
    double max_lex = 0;
    for (size_t i = 0; i < e->n_ops; i++)
        if (st->allowed[i] && st->raw[i] > max_lex) max_lex = st->raw[i];
    if (q->hybrid_weight > 0) {
        double w = q->hybrid_weight > 1 ? 1 : q->hybrid_weight;
        for (size_t i = 0; i < e->n_ops; i++) {
            double lex = max_lex > 0 ? st->raw[i] / max_lex : 0;
            double cos = st->dense[i] > 0 ? st->dense[i] : 0;
            if (st->raw[i] <= 0 && cos > 0) st->best_doc[i] = st->dense_doc[i];
            st->raw[i] = w * lex + (1 - w) * cos;
        }
        return;
    }
    /* Reciprocal-rank fusion: each list adds 1 / (k + rank), rank from 1. */
    uint32_t *order = malloc((e->n_ops ? e->n_ops : 1) * sizeof *order);
    double *fused = calloc(e->n_ops ? e->n_ops : 1, sizeof *fused);
    if (!order || !fused) {
        free(order);
        free(fused);
        return; /* out of memory: keep the lexical scores */
    }
    for (int list = 0; list < 2; list++) {
        double *s = list == 0 ? st->raw : st->dense;
        size_t m = 0;
        for (size_t i = 0; i < e->n_ops; i++)
            if (st->allowed[i] && (list == 0 ? s[i] > 0 : s[i] > no_dense))
                order[m++] = (uint32_t)i;
        qsort_r(order, m, sizeof *order, cmp_score_desc, s);
        for (size_t r = 0; r < m; r++) fused[order[r]] += 1.0 / (rrf_k + (double)(r + 1));
    }
    for (size_t i = 0; i < e->n_ops; i++) {
        if (st->raw[i] <= 0 && fused[i] > 0) st->best_doc[i] = st->dense_doc[i];
        st->raw[i] = fused[i];
    }
    free(order);
    free(fused);
}

/*
 * A task that names exactly one API by name ("my Stripe balance") goes to it. The name
 * then has done its work: it is dropped from the terms (unless it is the only one, or
 * the API's paths or operation ids use it too: "recipe" in a recipe API), so that inside
 * the API the operations whose texts happen to say "Stripe" gain nothing.
 */
static void find_named_api(query_state *st)
{
    const search_engine *e = st->e;
    long named = -1;
    size_t at = 0;
    for (size_t a = 0; a < e->n_apis && named != -2; a++)
        for (size_t qi = 0; qi < st->n_terms; qi++)
            if (e->name_term[a] >= 0 && st->terms[qi].term == e->name_term[a]) {
                named = named == -1 ? (long)a : -2;
                at = qi;
                break;
            }
    if (named < 0) return;
    st->api_named = true;
    st->named_api = (uint32_t)named;
    if (st->n_terms > 1 && !e->name_is_vocab[named]) st->terms[at] = st->terms[--st->n_terms];
}

static void score_ops(query_state *st)
{
    const search_engine *e = st->e;
    find_named_api(st);
    double *doc_score = calloc(e->n_docs ? e->n_docs : 1, sizeof *doc_score);
    double *cover = calloc(e->n_apis ? e->n_apis : 1, sizeof *cover);
    bool *seen = calloc(e->n_apis ? e->n_apis : 1, sizeof *seen);
    double idf_total = 0;
    if (!doc_score || !cover || !seen) {
        free(doc_score);
        free(cover);
        free(seen);
        return;
    }
    for (size_t qi = 0; qi < st->n_terms; qi++) {
        const term_entry *t = &e->terms[st->terms[qi].term];
        size_t p = 0;
        memset(seen, 0, e->n_apis * sizeof *seen);
        idf_total += st->terms[qi].idf;
        while (p < t->n_post) {
            uint32_t doc = t->post[p].doc;
            if (e->docs[doc].n_ops && e->docs[doc].ops[0] >= 0 &&
                (size_t)e->docs[doc].ops[0] < e->n_ops) {
                uint32_t a = e->info[e->docs[doc].ops[0]].api;
                if (a < e->n_apis && !seen[a]) {
                    seen[a] = true;
                    cover[a] += st->terms[qi].idf;
                }
            }
            double tf = 0;
            for (; p < t->n_post && t->post[p].doc == doc; p++) {
                int f = t->post[p].field;
                double avg = e->avg_len[f] > 0 ? e->avg_len[f] : 1;
                double norm = 1 - bm25_b + bm25_b * e->docs[doc].field_len[f] / avg;
                tf += field_weight[f] * t->post[p].tf / norm;
            }
            if (tf > 0) doc_score[doc] += st->terms[qi].idf * tf / (bm25_k1 + tf);
        }
    }
    /* an endpoint scores as its best chunk */
    for (size_t d = 0; d < e->n_docs; d++) {
        if (doc_score[d] <= 0) continue;
        for (size_t k = 0; k < e->docs[d].n_ops; k++) {
            long op = e->docs[d].ops[k];
            if (op < 0 || (size_t)op >= e->n_ops) continue;
            if (doc_score[d] > st->raw[op]) {
                st->raw[op] = doc_score[d];
                st->best_doc[op] = (uint32_t)d;
            }
        }
    }
    free(doc_score);
    if (st->dense) fuse_scores(st);
    /* routing: the API whose three best operations score highest */
    double *api_top = calloc(e->n_apis ? e->n_apis * 3 : 3, sizeof *api_top);
    if (api_top) {
        for (size_t i = 0; i < e->n_ops; i++) {
            if (!st->allowed[i] || e->info[i].api >= e->n_apis) continue;
            double *top = api_top + 3 * e->info[i].api, s = st->raw[i];
            if (s > top[0]) {
                top[2] = top[1];
                top[1] = top[0];
                top[0] = s;
            } else if (s > top[1]) {
                top[2] = top[1];
                top[1] = s;
            } else if (s > top[2]) {
                top[2] = s;
            }
        }
        double best = -1;
        for (size_t a = 0; a < e->n_apis; a++) {
            double sum = api_top[3 * a] + api_top[3 * a + 1] + api_top[3 * a + 2];
            /* times the share of the task's words (by idf) the API has at all, mildly: a
               "lead" that is a sales lead does not route a task about actors and movies */
            if (idf_total > 0) sum *= pow(cover[a] / idf_total, route_coverage);
            if (sum > best) {
                best = sum;
                st->best_api = (uint32_t)a;
            }
        }
        free(api_top);
        if (st->api_named) st->best_api = st->named_api;
    }
    free(cover);
    free(seen);
    for (size_t i = 0; i < e->n_ops; i++)
        st->score[i] = st->allowed[i] ? st->raw[i] * (e->info[i].api == st->best_api ? 1.0
                                                      : st->api_named                ? named_damping
                                                                      : route_damping)
                                      : -1.0;
}

static bool out_has(const query_state *st, uint32_t op)
{
    for (size_t i = 0; i < st->n_out; i++)
        if (st->out[i] == op) return true;
    return false;
}

static int out_push(query_state *st, uint32_t op, search_role role)
{
    if (st->n_out == st->cap_out) {
        size_t cap = st->cap_out ? st->cap_out * 2 : 32;
        uint32_t *o = realloc(st->out, cap * sizeof *o);
        if (!o) return APIDEX_ENOMEM;
        st->out = o;
        search_role *r = realloc(st->role, cap * sizeof *r);
        if (!r) return APIDEX_ENOMEM;
        st->role = r;
        st->cap_out = cap;
    }
    st->out[st->n_out] = op;
    st->role[st->n_out++] = role;
    return 0;
}

static int link_push(query_state *st, const char *param, uint32_t producer, uint32_t consumer)
{
    if (st->n_links == st->cap_links) {
        size_t cap = st->cap_links ? st->cap_links * 2 : 16;
        search_link *l = realloc(st->links, cap * sizeof *l);
        if (!l) return APIDEX_ENOMEM;
        st->links = l;
        st->cap_links = cap;
    }
    st->links[st->n_links++] =
        (search_link){param, st->e->ops[producer].id, st->e->ops[consumer].id};
    return 0;
}

/* Adds op with, before it, the best producer of each input it needs. */
static int add_with_producers(query_state *st, uint32_t op, search_role role, unsigned depth)
{
    const search_engine *e = st->e;
    if (out_has(st, op)) return 0;
    const op_info *in = &e->info[op];
    double max_raw = st->max_raw > 0 ? st->max_raw : 1;
    for (size_t p = 0; p < in->n_producers && depth < 3 && !st->literal_id; p++) {
        const char *param = in->producers[p].param;
        /* one producer per input: handle each param once, at its first edge */
        bool seen = false;
        for (size_t k = 0; k < p && !seen; k++) seen = !strcmp(in->producers[k].param, param);
        if (seen) continue;
        /* The adaptive answer is minimal: a producer already listed serves. A ranked list
           is read for recall: each consumer brings its best producer not listed yet, so
           the alternatives (search by name, the popular list, the current user) show. */
        long best = -1, best_listed = -1;
        double best_s = -1e9, listed_s = -1e9;
        for (size_t k = p; k < in->n_producers; k++) {
            if (strcmp(in->producers[k].param, param)) continue;
            uint32_t cand = in->producers[k].producer;
            if (!st->allowed[cand]) continue;
            double s = in->producers[k].score + producer_relevance * st->raw[cand] / max_raw;
            if (st->names_things && e->info[cand].text_query) s += producer_search_bonus;
            if (st->mine && e->info[cand].mine) s += producer_mine_bonus;
            if (out_has(st, cand)) {
                if (s > listed_s) {
                    listed_s = s;
                    best_listed = cand;
                }
            } else if (s > best_s) {
                best_s = s;
                best = cand;
            }
        }
        if (best_listed >= 0 && (st->q->adaptive || best < 0)) {
            /* served by one already listed: say which */
            int rc = link_push(st, param, (uint32_t)best_listed, op);
            if (rc) return rc;
            continue;
        }
        if (best < 0) continue;
        int rc = add_with_producers(st, (uint32_t)best, SEARCH_ROLE_PRODUCER, depth + 1);
        if (rc) return rc;
        if ((rc = link_push(st, param, (uint32_t)best, op))) return rc;
    }
    if (out_has(st, op)) return 0;
    return out_push(st, op, role);
}

/*
 * The adaptive answer set: the best operation, then up to two more of the same API
 * scoring within adaptive_ratio of it, each closed under producers. (Also tried, on
 * RestBench and the examples: adding lower-scored operations that carry a share of the
 * task's still-unmatched terms, as a second intent; it lowered F1 from 0.463 to 0.449.)
 */
static int adaptive_set(query_state *st, const uint32_t *order, size_t m)
{
    const search_engine *e = st->e;
    double top = st->score[order[0]];
    size_t prim = 0;
    int rc = 0;
    for (size_t i = 0; i < m && prim < adaptive_max_primaries && !rc; i++) {
        if (st->score[order[i]] < adaptive_ratio * top) break;
        if (e->info[order[i]].api != e->info[order[0]].api) continue;
        rc = add_with_producers(st, order[i], SEARCH_ROLE_PRIMARY, 0);
        prim++;
    }
    return rc;
}

/*
 * When the text matches fewer than k endpoints, the list is filled from the data-flow
 * graph rather than left short: each remaining endpoint scores by its links to those
 * already listed (it produces an input of one, or consumes what one produces), weighted
 * by the listed one's rank, and then by how many endpoints it feeds in all (search
 * and "current user" endpoints start most call chains). Routed API first.
 */
static int fill_from_graph(query_state *st, size_t k)
{
    const search_engine *e = st->e;
    size_t n = e->n_ops;
    double *near = calloc(n ? n : 1, sizeof *near);
    uint32_t *cand = malloc((n ? n : 1) * sizeof *cand);
    long *rank = malloc((n ? n : 1) * sizeof *rank);
    int rc = near && cand && rank ? 0 : APIDEX_ENOMEM;
    for (size_t i = 0; i < n && !rc; i++) rank[i] = -1;
    for (size_t r = 0; r < st->n_out && !rc; r++) rank[st->out[r]] = (long)r;
    for (size_t c = 0; c < n && !rc; c++) {
        const op_info *in = &e->info[c];
        for (size_t p = 0; p < in->n_producers; p++) {
            uint32_t prod = in->producers[p].producer;
            if (rank[c] >= 0) near[prod] += 1.0 / (1.0 + (double)rank[c]);
            if (rank[prod] >= 0) near[c] += 1.0 / (1.0 + (double)rank[prod]);
        }
    }
    size_t m = 0;
    double max_fan = e->max_fan > 1 ? (double)e->max_fan : 1.0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!st->allowed[i] || rank[i] >= 0) continue;
        near[i] +=
            0.5 * (double)e->info[i].fan / max_fan + (e->info[i].api == st->best_api ? 10.0 : 0.0);
        cand[m++] = (uint32_t)i;
    }
    if (!rc) qsort_r(cand, m, sizeof *cand, cmp_score_desc, near);
    for (size_t i = 0; i < m && st->n_out < k && !rc; i++)
        if (!out_has(st, cand[i])) rc = out_push(st, cand[i], SEARCH_ROLE_PRIMARY);
    free(near);
    free(cand);
    free(rank);
    return rc;
}

static int cmp_score_desc(const void *a, const void *b, void *ctx)
{
    const double *s = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (s[x] > s[y]) return -1;
    if (s[x] < s[y]) return 1;
    return x < y ? -1 : x > y;
}

/* "summary(top, rated) path(movie)": the query terms in the fields of op's best chunk. */
static const char *explain(query_state *st, uint32_t op, core_arena *a)
{
    const search_engine *e = st->e;
    if (st->raw[op] <= 0) return core_arena_strdup(a, "");
    uint32_t doc = st->best_doc[op];
    core_buf b;
    core_buf_init(&b, 4096);
    for (int f = 0; f < STORE_FIELD_COUNT; f++) {
        size_t hits = 0;
        for (size_t qi = 0; qi < st->n_terms; qi++) {
            const term_entry *t = &e->terms[st->terms[qi].term];
            bool hit = false;
            for (size_t p = 0; p < t->n_post && !hit; p++)
                hit = t->post[p].doc == doc && t->post[p].field == f;
            if (!hit) continue;
            if (hits++ == 0)
                core_buf_printf(&b, "%s%s(", b.len ? " " : "", store_field_names[f]);
            else
                core_buf_puts(&b, ", ");
            core_buf_append(&b, t->term, t->len);
        }
        if (hits) core_buf_putc(&b, ')');
    }
    if (st->dense && st->dense[op] > no_dense)
        core_buf_printf(&b, "%sdense(%.3f)", b.len ? " " : "", st->dense[op]);
    const char *s = core_arena_strdup(a, b.data ? b.data : "");
    core_buf_free(&b);
    return s;
}

/* Appends piece to b when its exact cl100k count still fits the budget. */
static int context_add(core_buf *b, const char *piece, size_t budget, size_t *used)
{
    const text_bpe *bpe = text_bpe_default();
    size_t n = bpe ? text_bpe_count(bpe, piece, strlen(piece)) : strlen(piece);
    if (*used + n > budget) return 0;
    *used += n;
    return core_buf_puts(b, piece);
}

/*
 * The context an agent reads: the hits' rendered operations in call order (producers
 * labelled), then the schemas they reference, each piece kept only when its exact
 * cl100k count fits what is left of the budget. Pieces end in a blank line, so the
 * count of the whole is the sum of the pieces'.
 */
static int assemble_context(query_state *st, search_result *res)
{
    const search_engine *e = st->e;
    size_t budget = st->q->budget, used = 0;
    core_buf b, piece;
    core_buf_init(&b, 64 << 20);
    core_buf_init(&piece, 64 << 20);
    const store_schema *schemas = NULL;
    size_t n_schemas = 0;
    const store_edge *edges = NULL;
    size_t n_edges = 0;
    apidex_error ignore;
    store_schemas(e->idx, &schemas, &n_schemas, &ignore);
    store_edges(e->idx, &edges, &n_edges, &ignore);
    bool *seen = calloc(n_schemas ? n_schemas : 1, sizeof *seen);
    int rc = seen ? context_add(&b, "# Endpoints\n\n", budget, &used) : APIDEX_ENOMEM;
    for (size_t i = 0; i < st->n_out && !rc; i++) {
        const store_operation *op = &e->ops[st->out[i]];
        core_buf_reset(&piece);
        core_buf_printf(&piece, "## %s %s (%s)%s\n\n%s\n\n", op->method, op->path, op->id,
                        st->role[i] == SEARCH_ROLE_PRODUCER ? " [producer]" : "",
                        op->content ? op->content : "");
        rc = piece.failed ? APIDEX_ENOMEM : context_add(&b, piece.data, budget, &used);
    }
    bool header = false;
    for (size_t i = 0; i < st->n_out && !rc; i++) {
        const store_operation *op = &e->ops[st->out[i]];
        for (size_t k = 0; k < n_edges && !rc; k++) {
            const store_edge *ed = &edges[k];
            if (ed->kind != STORE_EDGE_OP_SCHEMA || ed->src_index != (long)st->out[i] ||
                ed->dst_index < 0 || seen[ed->dst_index])
                continue;
            const store_schema *s = &schemas[ed->dst_index];
            core_buf_reset(&piece);
            core_buf_printf(&piece, "%s## %s (used by %s)\n\n%s\n\n", header ? "" : "# Schemas\n\n",
                            s->id, op->id, s->content ? s->content : "");
            size_t before = used;
            rc = piece.failed ? APIDEX_ENOMEM : context_add(&b, piece.data, budget, &used);
            if (used > before) {
                seen[ed->dst_index] = true;
                header = true;
            }
        }
    }
    free(seen);
    core_buf_free(&piece);
    if (rc) {
        core_buf_free(&b);
        return rc;
    }
    res->context = core_buf_steal(&b, NULL);
    res->context_tokens = used;
    return res->context ? 0 : APIDEX_ENOMEM;
}

/* The signature part the index build added for its vectors ("+embed=FP"), or NULL. */
static const char *index_embed_fingerprint(search_engine *e)
{
    store_info info;
    apidex_error ignore;
    if (store_index_info(e->idx, &info, &ignore) != 0 || !info.strategy) return NULL;
    const char *p = strstr(info.strategy, "+embed=");
    return p ? p + 7 : NULL;
}

/* Embeds the query and scores every endpoint by its best chunk's cosine. dense and
   dense_doc (n_ops each) are filled; no_dense where an endpoint has no vector. */
static int dense_scores(search_engine *e, const char *text, double *dense, uint32_t *dense_doc,
                        apidex_error *err)
{
    static const char how[] = "build them with `apidex index SPECS... --model M` (or --embed-url "
                              "URL), using the same model for search";
    if (!e->embedder)
        return core_error_set(err, APIDEX_EUNSUPPORTED,
                              "dense and hybrid search need an embedding model: give --model M "
                              "or --embed-url URL (the one the index was built with)");
    const char *fp = index_embed_fingerprint(e);
    const char *model = embed_provider_model_id(e->embedder);
    if (!fp) return core_error_set(err, APIDEX_EUNSUPPORTED, "the index has no vectors: %s", how);
    if (strcmp(fp, e->embedder->fingerprint))
        return core_error_set(err, APIDEX_EUNSUPPORTED,
                              "the index's vectors were made by %s, this search embeds with %s: "
                              "search with that model, or re-index with this one (apidex index "
                              "SPECS... --model %s)",
                              fp, e->embedder->fingerprint, model);
    const store_vectors *v = NULL;
    int rc = store_vectors_load(e->idx, model, &v, err);
    if (rc) return rc;
    if (!v || v->n == 0)
        return core_error_set(err, APIDEX_EUNSUPPORTED, "the index has no vectors of model %s: %s",
                              model, how);
    float *qv = malloc(v->dim * sizeof *qv);
    embed_hit *hits = malloc(v->n * sizeof *hits);
    if (!qv || !hits) {
        free(qv);
        free(hits);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    size_t dim = 0;
    pthread_mutex_lock(e->embed_held);
    rc = embed_provider_dim(e->embedder, &dim, err);
    if (!rc && dim != v->dim)
        rc = core_error_set(err, APIDEX_EUNSUPPORTED,
                            "the index's vectors of %s have %zu dimensions, the model gives %zu: "
                            "re-index with it",
                            model, v->dim, dim);
    const char *texts[1] = {text};
    if (!rc && e->last_text && e->last_dim == dim && !strcmp(e->last_text, text)) {
        memcpy(qv, e->last_vec, dim * sizeof *qv);
    } else if (!rc) {
        rc = embed_provider_embed(e->embedder, texts, 1, true, qv, err);
        char *t = rc ? NULL : strdup(text);
        float *cv = t ? malloc(dim * sizeof *cv) : NULL;
        if (cv) { /* no cache when out of memory: only slower */
            memcpy(cv, qv, dim * sizeof *cv);
            free(e->last_text);
            free(e->last_vec);
            e->last_text = t;
            e->last_vec = cv;
            e->last_dim = dim;
        } else {
            free(t);
        }
    }
    pthread_mutex_unlock(e->embed_held);
    if (!rc) {
        embed_l2_normalize(qv, v->dim);
        /* Every chunk: an endpoint's score is its best chunk, and composition wants the
           relevance of producers far down the list too. */
        size_t n = embed_vecscan_topk(v->data, v->n, v->dim, qv, v->n, NULL, hits);
        for (size_t i = 0; i < e->n_ops; i++) dense[i] = no_dense;
        for (size_t h = 0; h < n; h++) { /* best first: the first hit of an op is its max */
            size_t d = v->rows[hits[h].row];
            if (d >= e->n_docs) continue;
            for (size_t k = 0; k < e->docs[d].n_ops; k++) {
                long op = e->docs[d].ops[k];
                if (op < 0 || (size_t)op >= e->n_ops || dense[op] > no_dense) continue;
                dense[op] = hits[h].score;
                dense_doc[op] = (uint32_t)d;
            }
        }
    }
    free(qv);
    free(hits);
    return rc;
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
    query_state st = {.e = e, .q = q};
    size_t n = e->n_ops ? e->n_ops : 1;
    if (q->mode != SEARCH_LEXICAL) {
        st.dense = malloc(n * sizeof *st.dense);
        st.dense_doc = calloc(n, sizeof *st.dense_doc);
        int drc = st.dense && st.dense_doc ? dense_scores(e, q->text, st.dense, st.dense_doc, err)
                                           : core_error_set(err, APIDEX_ENOMEM, "out of memory");
        if (drc) {
            free(st.dense);
            free(st.dense_doc);
            return drc;
        }
    }
    st.score = calloc(n, sizeof *st.score);
    st.raw = calloc(n, sizeof *st.raw);
    st.allowed = calloc(n, sizeof *st.allowed);
    st.best_doc = calloc(n, sizeof *st.best_doc);
    uint32_t *order = malloc(n * sizeof *order);
    search_result *res = calloc(1, sizeof *res);
    int rc = (!st.score || !st.raw || !st.allowed || !st.best_doc || !order || !res ||
              !(res->arena = core_arena_new(0)))
                 ? APIDEX_ENOMEM
                 : 0;
    if (!rc) rc = query_terms(&st);
    if (!rc) {
        for (size_t i = 0; i < e->n_ops; i++) st.allowed[i] = op_allowed(e, q, i);
        st.literal_id = has_literal_id(q->text);
        if (names_something(q->text)) st.names_things = true;
        st.mine = says_mine(q->text);
        score_ops(&st);
        for (size_t i = 0; i < e->n_ops; i++)
            if (st.raw[i] > st.max_raw) st.max_raw = st.raw[i];
        size_t m = 0;
        for (size_t i = 0; i < e->n_ops; i++)
            if (st.allowed[i] && st.score[i] > 0) order[m++] = (uint32_t)i;
        qsort_r(order, m, sizeof *order, cmp_score_desc, st.score);
        size_t k = q->k ? q->k : 10;
        if (q->adaptive) {
            if (m) rc = adaptive_set(&st, order, m); /* nothing matched: nothing to answer */
        } else {
            for (size_t i = 0; i < m && st.n_out < k && !rc; i++)
                rc = add_with_producers(&st, order[i], SEARCH_ROLE_PRIMARY, 0);
            if (!rc && st.n_out < k) rc = fill_from_graph(&st, k);
            /* producers may push the list past k: keep the first k in call order */
            if (st.n_out > k) st.n_out = k;
        }
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
            h->summary = op->summary;
            h->score = st.raw[st.out[i]];
            h->role = st.role[i];
            h->why = explain(&st, st.out[i], res->arena);
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
        if (!rc && q->budget) rc = assemble_context(&st, res);
    }
    free(st.score);
    free(st.raw);
    free(st.allowed);
    free(st.best_doc);
    free(st.dense);
    free(st.dense_doc);
    free(st.terms);
    free(st.out);
    free(st.role);
    free(st.links);
    free(order);
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
    free(res);
}

int search_run(store_index *idx, const search_query *q, search_result **out, apidex_error *err)
{
    search_engine *e;
    int rc = search_engine_open(idx, &e, err);
    if (rc) return rc;
    rc = search_engine_run(e, q, out, err);
    search_engine_close(e);
    return rc;
}
