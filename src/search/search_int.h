/*
 * search internals shared by the files of the stage: the engine (lexical index,
 * operation facts, producer graph, API names), the state of one query, and the
 * functions each file offers the others. engine.c's essay says how they fit.
 */
#ifndef APIDEX_SEARCH_INT_H
#define APIDEX_SEARCH_INT_H

#include "search/search.h"

#include "embed/embed.h"

#include <pthread.h>
#include <stdint.h>

/* ---------------------------------------------------------------- the engine */

typedef struct posting {
    uint32_t doc; /* chunk index */
    uint16_t field;
    uint16_t tf;
} posting;

typedef struct term_entry {
    const char *term; /* in the engine arena */
    uint32_t len;
    uint32_t df;   /* chunks containing it */
    posting *post; /* sorted by doc */
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

/* ---------------------------------------------------------------- one query */

typedef struct qterm {
    long term;
    double idf;
} qterm;

typedef struct query_state {
    const search_engine *e;
    const search_query *q;
    const search_params *p;
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
    double *dense;       /* per op, best chunk cosine (SEARCH_NO_DENSE when none); NULL: lexical */
    uint32_t *dense_doc; /* per op, the chunk that gave dense */
    uint32_t *out;       /* result ops in call order */
    search_role *role;
    size_t n_out, cap_out;
    search_link *links;
    size_t n_links, cap_links;
} query_state;

/* below any cosine: the endpoint has no vector */
#define SEARCH_NO_DENSE (-2.0)

/* lexical.c: the term table, postings and BM25F */
long lex_term_find(const search_engine *e, const char *s, size_t n);
int lex_table_grow(search_engine *e);
int lex_build(search_engine *e, apidex_error *err);
int lex_stop_words(search_engine *e);
bool lex_is_stop(const search_engine *e, const char *s, size_t n);
long lex_term_correct(const search_engine *e, const char *s, size_t n, size_t min_len);
/* Adds term ti with weight w to the query (its idf scaled by w); a repeat keeps the larger. */
int lex_qterm_add(query_state *st, long ti, double w);
/* raw[op] and best_doc[op]: each endpoint's best chunk under st's terms; cover[a] (n_apis,
   may be NULL): the idf of the terms API a has at all; *idf_total their sum. */
int lex_score(query_state *st, double *cover, double *idf_total);
void lex_free(search_engine *e);

/* query.c: reading the task */
int query_read(query_state *st);
bool query_says_mine(const char *s);

/* routing.c */
int route_api_names(search_engine *e);
void route_find_named_api(query_state *st);
void route_scores(query_state *st, const double *cover, double idf_total);

/* compose.c: producers before consumers */
int compose_add(query_state *st, uint32_t op, search_role role, unsigned depth);
bool compose_out_has(const query_state *st, uint32_t op);
int compose_out_push(query_state *st, uint32_t op, search_role role);

/* answer.c */
int answer_adaptive(query_state *st, const uint32_t *order, size_t m);
int answer_ranked(query_state *st, const uint32_t *order, size_t m, size_t k);
int search_cmp_score_desc(const void *a, const void *b, void *ctx);

/* context.c */
const char *context_explain(query_state *st, uint32_t op, core_arena *a);
int context_assemble(query_state *st, search_result *res);

/* dense.c */
int dense_scores(search_engine *e, const char *text, double *dense, uint32_t *dense_doc,
                 apidex_error *err);
void dense_fuse(query_state *st);

#endif /* APIDEX_SEARCH_INT_H */
