/*
 * search: from a task in natural language to the endpoints that solve it, in
 * call order, with what is needed to call them. Lexical retrieval (BM25 over
 * weighted fields), filters, composition (producers for the inputs a retrieved
 * operation needs), dependency expansion (schema chunks within a token budget)
 * and the adaptive answer set.
 */
#ifndef APIDEX_SEARCH_H
#define APIDEX_SEARCH_H

#include "store/store.h"

#include <pthread.h>

typedef enum { SEARCH_LEXICAL = 0, SEARCH_DENSE = 1, SEARCH_HYBRID = 2 } search_mode;

/** A query. Zeroed fields mean defaults. */
typedef struct search_query {
    const char *text;        /* the task */
    size_t k;                /* distinct endpoints to return when !adaptive (default 10) */
    bool adaptive;           /* return only what the task needs */
    const char *const *apis; /* filters: NULL-terminated lists, NULL = no filter */
    const char *const *tags;
    const char *const *methods;
    bool include_deprecated;
    size_t budget; /* cl100k tokens for the assembled context (0 = no context) */
    search_mode mode;
    /* SEARCH_HYBRID: 0 = reciprocal-rank fusion (k = 60) of the lexical and dense
       endpoint rankings; in (0, 1]: w * lexical / best lexical + (1 - w) * cosine. */
    double hybrid_weight;
} search_query;

typedef enum {
    SEARCH_ROLE_PRIMARY = 0, /* matched the task */
    SEARCH_ROLE_PRODUCER = 1 /* added because a primary result needs an input it produces */
} search_role;

/** "needs movie_id <- GET /search/movie" */
typedef struct search_link {
    const char *param;       /* the input the consumer needs */
    const char *producer_id; /* operation id of the producer */
    const char *consumer_id; /* operation id of the consumer */
} search_link;

typedef struct search_hit {
    const char *id; /* operation id: "api:operationId" or "api:METHOD /path" */
    const char *api;
    const char *method;
    const char *path;
    const char *operation_id; /* NULL if none */
    const char *summary;      /* NULL if none */
    double score;
    search_role role;
    const char *why;    /* matched fields, human-readable */
    search_link *links; /* inputs of this hit and who produces them */
    size_t n_links;
} search_hit;

/**
 * Results in call order (producers before their consumers). The result owns its
 * arrays; the strings of hits and links belong to the index and stay valid while
 * it is open.
 */
typedef struct search_result {
    search_hit *hits;
    size_t n_hits;
    char *context; /* assembled markdown within the budget (NULL if budget == 0) */
    size_t context_tokens;
    double elapsed_ms;
    core_arena *arena;
} search_result;

/**
 * A search engine over one open index: the lexical index (postings of every
 * operation's fields), the producer graph and the API catalog, built once in
 * memory from the store. Read-only after open: search_engine_run is
 * thread-safe. The engine does not own idx; close the engine first.
 */
typedef struct search_engine search_engine;

int search_engine_open(store_index *idx, search_engine **out, apidex_error *err);
/** NULL is a no-op. */
void search_engine_close(search_engine *eng);
struct embed_provider;
/**
 * Gives the engine the provider that embeds queries for SEARCH_DENSE and
 * SEARCH_HYBRID (it must be the one the index's vectors were built with: the
 * run fails with a message saying how to build them otherwise). Not owned:
 * close the engine first. Calls into it are serialised by the engine, so runs
 * stay thread-safe. Set it before the first run; NULL turns dense modes off.
 */
void search_engine_set_embedder(search_engine *eng, struct embed_provider *p);
/**
 * The same, for a provider several engines use at once (a server keeps the engines of the
 * old and the new index while it reloads): calls into it are serialised by lock, which
 * must outlive the engine.
 */
void search_engine_share_embedder(search_engine *eng, struct embed_provider *p,
                                  pthread_mutex_t *lock);

/** Runs a query. *out: search_result_free. Thread-safe. */
int search_engine_run(search_engine *eng, const search_query *q, search_result **out,
                      apidex_error *err);

/** One-shot convenience: open an engine on idx, run q, close it. */
int search_run(store_index *idx, const search_query *q, search_result **out, apidex_error *err);
/** NULL is a no-op. */
void search_result_free(search_result *res);

#endif /* APIDEX_SEARCH_H */
