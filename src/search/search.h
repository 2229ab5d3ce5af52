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

/**
 * Every weight and threshold of the engine (params.c holds the table: name, default,
 * range, meaning; docs/SEARCH.md the measured effect of each). Counts are doubles too,
 * so that one table serves them all.
 */
typedef struct search_params {
    double field_weight[STORE_FIELD_COUNT]; /* BM25F weight per store_field */
    double bm25_k1, bm25_b;
    double name_weight;             /* a capitalised word inside a sentence */
    double verb_weight;             /* the verb that opens a request */
    double purpose_weight;          /* words of a purpose phrase ("to ensure ...") */
    double adjunct_weight;          /* words after the object: "to a phone number" */
    double morph_weight;            /* index words of the same family: subscribe/subscription */
    double verb_noun_weight;        /* a request verb's action noun: subscribe -> subscription */
    double anaphora_weight;         /* "pay for it": the previous request's words */
    double owner_weight;            /* "Contoso's invoices": the owner's word, times its idf */
    double value_weight;            /* "+1 555 0100": inputs that take a phone number */
    double typo_min_len, typo_max;  /* typo correction */
    double intent_max;              /* most intents a task is split into (1: no split) */
    double intent_bar;              /* adaptive: an intent's best must match this share */
    double intent_context;          /* an intent's score adds this share of the task's */
    double intent_lists;            /* 1: items of a list after a request's verb are requests */
    double intent_second;           /* adaptive: an intent's second within this ratio */
    double action_mismatch;         /* an operation whose action is not the intent's */
    double action_destructive;      /* a destructive operation when nothing asks to delete */
    double action_opposite;         /* an operation whose verb opposes its request's verb */
    double action_destroy_words;    /* 1: a non-GET whose words destroy is destructive */
    double action_learn_min;        /* learned verbs: operations that start with the verb */
    double action_learn_share;      /* learned verbs: share of one action among them */
    double route_damping;           /* other APIs than the routed one, one-intent tasks */
    double route_coverage;          /* exponent of an API's share of the words */
    double route_relative;          /* other APIs weigh (their routing score / best)^this */
    double route_top_ops;           /* an API's routing score sums its best 1 to 3 operations */
    double named_damping;           /* other APIs when the words name one */
    double adaptive_ratio;          /* further primaries: share of the best score */
    double adaptive_max_primaries;  /* primaries of a one-intent task */
    double answer_name_searches;    /* ranked lists: text searches after the first request */
    double answer_same_api;         /* 1: a one-intent answer keeps to its best's API */
    double route_name_spread;       /* a name: other APIs using it, share of the registry */
    double route_lower_names;       /* a lower-case label name: most APIs it names, share */
    double route_label_prose;       /* 1: a label its API's prose uses as a word is none */
    double route_label_spread;      /* route_name_spread of a specific label name */
    double answer_one_per_service;  /* 1: a ranked list skips copies of listed operations */
    double answer_api_cap;          /* ranked list: most primaries of one API (0: no cap) */
    double producer_relevance;      /* a producer's own relevance in the choice */
    double producer_search_bonus;   /* text-search producers when the task names things */
    double producer_mine_bonus;     /* caller's producers when the task says "my" */
    double producer_depth;          /* longest producer chain */
    double producer_kind[6];        /* by DATAFLOW_KIND_*: returns, lists, shape, nested, refers */
    double producer_path_names;     /* the producer's path names the entity */
    double producer_text_query;     /* it takes a free-text query */
    double producer_caller;         /* the caller's own object */
    double producer_hint;           /* the consumer's description names it */
    double producer_own_input;      /* per identifier the producer needs itself (subtracted) */
    double producer_deprecated;     /* subtracted */
    double producer_parent;         /* the item's own collection: GET /things for /things/{id} */
    double producer_overlap;        /* per literal path segment producer and consumer share */
    double producer_ambient;        /* inputs needed by this share of an API's operations */
    double producer_given_specific; /* 1: "a specific X" gives X */
    double fill_fan_weight;         /* graph fill: inputs an endpoint can feed */
    double answer_graph_fill;       /* 1: a list the text cannot fill is filled from the graph */
    double rrf_k;                   /* reciprocal-rank fusion constant */
    double usage_weight;            /* the usage prior: share of the best score (0: off) */
    double usage_half_life;         /* days after which a reported use counts half */
    double answer_duplicates;       /* 1: an older version's copy of the newest's is left out */
} search_params;

/** One entry of the parameter table. */
typedef struct search_param_info {
    const char *name; /* "answer.ratio" */
    size_t offset;    /* of the double in search_params */
    double def;       /* default */
    double min, max;  /* accepted range */
    const char *doc;  /* one line: what it does */
} search_param_info;

/** Entries of the table, and the i-th of them (NULL past the end). */
size_t search_param_count(void);
const search_param_info *search_param_at(size_t i);
/** Fills p with the defaults. */
void search_params_default(search_params *p);
/** The defaults, shared and read-only. */
const search_params *search_params_defaults(void);
/** Sets one parameter by name; APIDEX_EINVAL for an unknown name or a value out of range. */
int search_params_set(search_params *p, const char *name, double value, apidex_error *err);
/** "NAME=VALUE" (a command-line --param): search_params_set, or APIDEX_EINVAL. */
int search_params_parse(search_params *p, const char *assignment, apidex_error *err);

/** A table of named doubles in a struct (the search parameters above, the match parameters
    of match_params.c): one set of rules for defaults, set-by-name and NAME=VALUE. kind names
    the table in messages ("search"), listed_by says where the names are listed. */
typedef struct search_param_table {
    const search_param_info *entries;
    size_t n;
    const char *kind;
    const char *listed_by;
} search_param_table;
/** Zeroes p[0..size) and fills every entry's default. */
void search_param_table_default(const search_param_table *t, void *p, size_t size);
/** Sets one entry by name; APIDEX_EINVAL for an unknown name or a value out of range. */
int search_param_table_set(const search_param_table *t, void *p, const char *name, double value,
                           apidex_error *err);
/** "NAME=VALUE": search_param_table_set, or APIDEX_EINVAL. */
int search_param_table_parse(const search_param_table *t, void *p, const char *assignment,
                             apidex_error *err);

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
    const search_params *params; /* NULL: search_params_defaults() */
    /* the usage prior (params usage.weight > 0): decayed uses per endpoint, read with
       store_usage_load; NULL: none. Borrowed for the run. */
    const store_usage *usage;
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
    const char *summary;      /* plain text: the summary, else the description's first
                                 sentence; NULL if neither says anything */
    double score;
    search_role role;
    const char *why;    /* matched fields, human-readable */
    search_link *links; /* inputs of this hit and who produces them */
    size_t n_links;
} search_hit;

/**
 * Results in call order (producers before their consumers). The result owns its
 * arrays and the hits' summary and why; the other strings of hits and links belong to
 * the index and stay valid while it is open.
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

/**
 * Do two verbs, given as Snowball stems (text_words_split with TEXT_WORDS_STEM), oppose: one
 * undoes what the other does (start/stop, enable/disable, add/remove, follow/unfollow)? A
 * small lexicon of general English, and a verb against itself after "un". Thread-safe.
 */
bool search_verbs_oppose(const char *a, const char *b);
/** Does the verb (a Snowball stem of n bytes) destroy its object: delete, destroy, purge, ban,
    revoke, erase, wipe, terminate? Thread-safe. */
bool search_verb_destroys(const char *stem, size_t n);

/** One-shot convenience: open an engine on idx, run q, close it. */
int search_run(store_index *idx, const search_query *q, search_result **out, apidex_error *err);
/** NULL is a no-op. */
void search_result_free(search_result *res);

/* ---------------------------------------------------------------- manifest (manifest.c) */

/** What search_manifest writes. Borrowed strings. */
typedef struct search_manifest_options {
    const char *const *apis; /* only these API ids (case-insensitive); NULL/0 = all */
    size_t n_apis;
    const char *const *tags; /* only operations with one of these tags ("untagged" too) */
    size_t n_tags;
    size_t budget; /* most cl100k tokens of the whole; 0 = no limit */
} search_manifest_options;

typedef struct search_manifest_report {
    size_t tokens;                       /* cl100k tokens written */
    size_t apis, apis_shown;             /* APIs with active operations, and shown */
    size_t operations, operations_shown; /* active operations, and shown */
} search_manifest_report;

/**
 * The capability manifest of the index (seed 003) appended to out: plain text (HTML and
 * markdown stripped, each operation in a few words cut at a sentence or word end),
 * grouped by API and tag, most useful first (the essay of manifest.c says what that
 * means), deprecated operations left out. With a budget the whole is at most that many
 * cl100k tokens and ends with what was left out and how to get it. rep may be NULL.
 * Returns 0, APIDEX_ELIMIT (budget below the header and the left-out note; err says how
 * many tokens they take), APIDEX_ENOMEM or a store error.
 */
int search_manifest(store_index *idx, const search_manifest_options *o, core_buf *out,
                    search_manifest_report *rep, apidex_error *err);

#endif /* APIDEX_SEARCH_H */
