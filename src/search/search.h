/*
 * search: from a task in natural language to the endpoints that solve it, by
 * relevance, and the plan that calls them, with what is needed to call them. Lexical retrieval
 * (BM25 over weighted fields), filters, composition (producers for the inputs a retrieved operation
 * needs), dependency expansion (schema chunks within a token budget) and the adaptive answer set.
 */
#ifndef APIDEX_SEARCH_H
#define APIDEX_SEARCH_H

#include "store/store.h"

#include <pthread.h>

typedef enum { SEARCH_LEXICAL = 0, SEARCH_DENSE = 1, SEARCH_HYBRID = 2 } search_mode;

/**
 * Every weight and threshold of the engine, one double each (counts and switches too, so
 * that one table serves them all). params.def defines them once: this struct, the table of
 * params.c (name, default, range, meaning), `apidex eval --list-params` and the table in
 * docs/SEARCH.md (which also holds the measured effect of each).
 */
typedef struct search_params {
#define SP(member, name, def, min, max, doc) double member;
#define SP_ARRAY(member, length)             double member[length];
#define SP_AT(member, index, name, def, min, max, doc)
#include "search/params.def"
#undef SP
#undef SP_ARRAY
#undef SP_AT
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

/** How well the registry fits the task (confidence.c): the calibrated confidence of the
    best operation against the parameters match.strong and match.weak. */
typedef enum { SEARCH_MATCH_NONE = 0, SEARCH_MATCH_WEAK = 1, SEARCH_MATCH_STRONG = 2 } search_match;

/** "strong", "weak", "none". */
const char *search_match_name(search_match m);

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
    search_link *links; /* inputs of this hit the plan's producers give, and who gives them */
    size_t n_links;
    double confidence; /* in [0, 1]: the calibrated chance that this operation does (part of)
                          the task, from its own evidence (confidence.c) */
} search_hit;

/** The source of a plan step's input value. */
typedef enum {
    SEARCH_FROM_STEP = 0,  /* the output of an earlier step (search_plan_input.step) */
    SEARCH_FROM_TASK = 1,  /* the task gives it: an id, a name, an e-mail address, ... */
    SEARCH_FROM_CALLER = 2 /* the caller supplies it: set up once (an account every call of
                              the API takes), or nothing in the index produces it */
} search_source;

/** One identifier input of a plan step: "movie_id <- step 1". */
typedef struct search_plan_input {
    const char *param; /* the input, as the step's operation names it */
    search_source from;
    size_t step;             /* SEARCH_FROM_STEP: index of the earlier step in the plan */
    const char *producer_id; /* SEARCH_FROM_STEP: that step's operation id; else NULL */
} search_plan_input;

/** One call of the plan: an endpoint and where each of its identifier inputs comes from. */
typedef struct search_plan_step {
    const char *id, *api, *method, *path;
    const char *operation_id; /* NULL if none */
    const char *summary;      /* NULL if none */
    search_role role;         /* PRIMARY: does (part of) the task; PRODUCER: feeds a later step */
    search_plan_input *inputs;
    size_t n_inputs;
} search_plan_step;

/**
 * The results, ordered by relevance to the task (the adaptive answer: what the task does,
 * most relevant first, then the producers its plan needs), and beside them the plan: the
 * adaptive answer in call order, producers before the steps that take their output. A
 * producer is in the plan only because a step needs an identifier the task does not give.
 * The plan is the same for a fixed-k and an adaptive query. The result owns its arrays
 * and the hits' summary and why; the other strings of hits, links and steps belong to the
 * index and stay valid while it is open.
 */
typedef struct search_result {
    search_hit *hits;
    size_t n_hits;
    search_plan_step *plan; /* call order; NULL when nothing matched */
    size_t n_plan;
    char *context; /* assembled markdown within the budget (NULL if budget == 0) */
    size_t context_tokens;
    double elapsed_ms;
    /* The answer's confidence (confidence.c): the calibrated share of dev tasks at the best
       operation's evidence level whose best operation was right; match from it. best_id:
       that operation (NULL when nothing matched); evidence: the uncalibrated level. */
    double confidence;
    search_match match;
    double evidence;
    const char *best_id;
    core_arena *arena;
    struct search_engine *owned; /* search_run's engine, closed with the result; else NULL */
} search_result;

/**
 * A search engine over one open index: the lexical index (postings of every
 * operation's fields), the producer graph and the API catalog, built once in
 * memory from the store. Read-only after open: search_engine_run is
 * thread-safe. The engine does not own idx; close the engine first.
 */
typedef struct search_engine search_engine;

int search_engine_open(store_index *idx, search_engine **out, apidex_error *err);
/**
 * Registers the search image's builder with the build stage (build_image_set_builder), so every
 * build, add and remove of this process writes the image search_engine_open reads
 * (docs/INDEX.md, "The search image"). Call once at start, before any build. An index
 * without a valid image still opens: built from its rows, with a note on stderr.
 */
void search_image_install(void);
/** How many images this process wrote by patching the old file's (after add or remove:
    its lexical index and its producers) rather than from the rows (tests and benches). */
size_t search_image_patched(void);
/** NULL is a no-op. */
void search_engine_close(search_engine *eng);
/**
 * The work search_engine_open did: rows read from the index (operations, APIs, chunks,
 * chunk terms, edges) and the iterations of every loop of every step that runs at open
 * (postings, producers, learned verbs and opposites, API names, owners, duplicate
 * services). A count, not a time: per operation it stays under a constant whatever the
 * size of the registry, and tests/unit/test_search_open_work.c fails when a step grows
 * faster than the registry (docs/SCALE.md).
 */
size_t search_engine_open_work(const search_engine *eng);
/* What opening left for later (the open-cost tests): whether the API names, owners, learned
   verbs and superseded copies came from the image's section LEARN, and how many operations'
   producer records have been decoded since (from the image they are decoded when a query
   first asks; from the rows all are built at open). */
bool search_engine_learned(const search_engine *eng);
size_t search_engine_producers_decoded(const search_engine *eng);
/**
 * The engine's operations, in the order and with the indexes of store_operations(), as it
 * opened them: from the search image (no row read) their ids, API, method, path, operationId,
 * tags, inputs, flags and api_index; summary, description, pointer, capability and content
 * are then NULL (search_engine_op_summary reads a summary; store_operations reads every
 * row). Owned by the engine, valid until close. Thread-safe.
 */
const store_operation *search_engine_operations(const search_engine *eng, size_t *n);
/** Operation i's summary: read from its row on first use when the engine opened from the
    image (kept until close), NULL when it has none or i is out of range. Thread-safe. */
const char *search_engine_op_summary(const search_engine *eng, size_t i);
/** The index (into search_engine_operations(), as store_find_operation) of the operation
    with this id, or -1: the run of its API only, reading no row. Thread-safe. */
long search_engine_find_operation(const search_engine *eng, const char *id);
/** Whether the engine uses the search image in place, mapped from the file beside the index
    (store_image_map), rather than a copy read out of the index. */
bool search_engine_image_mapped(const search_engine *eng);
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

/**
 * The calibration (confidence.c): the confidence of an evidence level in [0, 1] (the table
 * docs/SEARCH.md shows, made by bench/calibrate.py), and the match of a confidence under p's
 * match.strong and match.weak (p NULL: the defaults).
 */
double search_confidence_of(double evidence);
search_match search_match_of(const search_params *p, double confidence);

/** How many APIs the words for "nothing fits" name. */
#define SEARCH_CLOSEST_APIS 3

/** The distinct APIs of res's hits, the most confident hit's first, at most max into out
    (borrowed from res). Returns how many (verdict.c). */
size_t search_closest_apis(const search_result *res, const char **out, size_t max);
/**
 * The answer's match in words, appended to out: nothing for a strong match; "Weak match
 * (confidence 0.26): these endpoints may not do the task; ..." for a weak one; "Nothing in
 * this registry fits the task. Closest APIs: a, b, c." for none. Every front end shows these
 * words (verdict.c). Returns 0 or APIDEX_ENOMEM.
 */
int search_match_words(const search_result *res, core_buf *out);

/** One-shot convenience: open an engine on idx and run q. The hits' strings live in the
    engine (an engine opened from the search image holds them in the image), so the engine
    is closed with the result by search_result_free: free the result before closing idx. */
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
 * The capability manifest of the index appended to out: plain text (HTML and
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
