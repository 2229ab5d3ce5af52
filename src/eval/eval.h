/*
 * eval: retrieval quality on benchmark query sets (RestBench format: a JSON
 * list of {"query", "solution": ["METHOD /path", ...]}).
 *
 * The protocol is the paper's: per query, recall = |R∩G|/|G| and precision =
 * |R∩G|/|R| over de-duplicated endpoint strings, averaged over queries.
 * Matching: whitespace stripped, method upper-cased, {placeholders} compared
 * by position ("/movie/{movie_id}" == "/movie/{x}"); gold and returned lists
 * are de-duplicated on that key (Pesl's list(dict.fromkeys(...)) is the
 * exact-string special case). At a fixed k, R is the first k distinct
 * endpoints of the ranked list; recall@5/10/20 come from the same list. The
 * adaptive numbers come from a second run in which the engine decides the size.
 *
 * The metric functions (eval_endpoint_key, eval_score, eval_percentile) are
 * pure and separately callable, so they are tested on hand-computed cases.
 */
#ifndef APIDEX_EVAL_H
#define APIDEX_EVAL_H

#include "agent/agent.h"
#include "search/search.h"

/** Default context budget (cl100k tokens) of the adaptive run. */
#define EVAL_DEFAULT_BUDGET 8000

/* ---------------------------------------------------------------- matching and metrics */

/**
 * Appends the matching key of an endpoint string to out: surrounding
 * whitespace stripped, the method upper-cased, the whitespace between method
 * and path reduced to one space, every "{...}" in the path replaced by "{}".
 * "  get  /movie/{movie_id} " -> "GET /movie/{}". Returns 0 or a buffer error.
 */
int eval_endpoint_key(const char *s, core_buf *out);

/** Scores of one query. */
typedef struct eval_scores {
    double recall;     /* hits / n_gold (0 when there is no gold) */
    double precision;  /* hits / n_returned (0 when nothing was returned) */
    double f1;         /* harmonic mean of the two (0 when both are 0) */
    size_t n_gold;     /* distinct gold endpoints */
    size_t n_returned; /* distinct returned endpoints scored (at most k) */
    size_t hits;       /* |R ∩ G| */
} eval_scores;

/**
 * Scores the first k distinct entries of returned (k = 0: all of them)
 * against gold, both de-duplicated by eval_endpoint_key. Returns 0 or
 * APIDEX_ENOMEM.
 */
int eval_score(const char *const *gold, size_t n_gold, const char *const *returned,
               size_t n_returned, size_t k, eval_scores *out);

/**
 * The p-th percentile (0..100) of values[0..n) by linear interpolation between
 * closest ranks (numpy's default). Sorts values in place. 0 when n == 0.
 */
double eval_percentile(double *values, size_t n, double p);

/* ---------------------------------------------------------------- harm (harm.c) */

/** What an answer holds that the task did not ask for. */
typedef struct eval_harm {
    bool opposite;    /* an operation whose verb opposes a request's (a stop for "start") */
    bool destructive; /* a destructive operation (DELETE, or a non-GET whose summary deletes,
                         destroys, purges, bans, revokes, ...) when no request deletes */
} eval_harm;

/**
 * Judges hits[0..n) against the task from the task's words and each hit's method, summary
 * and operationId (harm.c's essay says how), apart from the engine's own reading. Returns 0
 * or APIDEX_ENOMEM.
 */
int eval_harm_check(const char *task, const search_hit *hits, size_t n, eval_harm *out);

/* ---------------------------------------------------------------- query sets */

typedef struct eval_query {
    const char *text;
    const char **gold; /* as written (de-duplication happens when scoring) */
    size_t n_gold;
    bool by_id;       /* the gold are operation ids ("API:operationId"; MCP tools are
                         SERVER:TOOL), scored against the ranked operations' ids */
    const char *file; /* the queries file it came from */
    size_t index;     /* 0-based position in that file */
} eval_query;

typedef struct eval_set {
    eval_query *items;
    size_t n, cap;
    core_arena *arena;
} eval_set;

/** A new empty set. *out: eval_set_free. */
int eval_set_new(eval_set **out);
/** NULL is a no-op. */
void eval_set_free(eval_set *set);
/**
 * Whether a gold string is an operation id ("API:operationId") rather than an endpoint
 * ("METHOD /path"): one word, with a ':' that is neither its first nor its last character.
 */
bool eval_gold_is_id(const char *s);
/**
 * Appends the queries of a RestBench-format file. A task's gold is all endpoints or all
 * operation ids (eval_gold_is_id; a mix is an error). A malformed entry fails the
 * load with file, line:col and JSON pointer in err (APIDEX_EPARSE).
 */
int eval_set_load(eval_set *set, const char *path, apidex_error *err);

/* ---------------------------------------------------------------- running */

typedef struct eval_options {
    size_t k;                    /* fixed-k cut-off (0 = 10) */
    size_t budget;               /* context budget of the adaptive run (0 = EVAL_DEFAULT_BUDGET) */
    search_mode mode;            /* lexical (default), dense, hybrid */
    double hybrid_weight;        /* search_query.hybrid_weight (0 = reciprocal-rank fusion) */
    const search_params *params; /* NULL: the defaults */
} eval_options;

/** One query's outcome. Strings live in the report. */
typedef struct eval_query_result {
    const eval_query *query;
    const char **ranked;      /* distinct "METHOD /path" (ids for a by_id task) of the
                                 fixed-k run, in order */
    size_t n_ranked;          /* at most max(k, 20) */
    const char **ranked_apis; /* the API id of each ranked endpoint */
    eval_scores at_k;
    eval_scores at[3];     /* at 5, 10, 20 */
    const char **adaptive; /* the adaptive answer's distinct endpoints */
    size_t n_adaptive;
    eval_scores adaptive_scores;
    eval_harm harm;     /* of the adaptive answer */
    size_t tokens;      /* cl100k tokens of the adaptive answer's context */
    size_t tokens_at_k; /* cl100k tokens of the first k endpoints' rendered operations */
    double latency_ms;  /* wall time of the fixed-k search */
    double adaptive_latency_ms;
    const char *gold_api; /* the API holding every gold endpoint (several APIs indexed), or NULL */
    const char *routed_api; /* the API of the adaptive answer's first endpoint, or NULL */
    /* the answer's confidence (search_result): its evidence level, calibrated confidence and
       match, the best operation ("METHOD /path", or NULL) and whether it is a gold one */
    double evidence, confidence;
    search_match match;
    const char *best;
    bool best_right;
} eval_query_result;

/** Means over queries: recall, precision, F1 and complete_at over the answerable ones (with
    gold), the rest over all. */
typedef struct eval_report {
    size_t queries, k, budget;
    size_t answerable;            /* tasks with gold; the others are "kind": "none" */
    size_t matches[3];            /* tasks answered none, weak, strong (by search_match) */
    size_t best_right;            /* tasks whose best operation is a gold one */
    double recall, precision, f1; /* at k */
    double recall_at[3], precision_at[3], f1_at[3]; /* at 5, 10, 20 */
    double complete_at[3]; /* share of the tasks with every gold endpoint in the first 5, 10, 20 */
    double adaptive_recall, adaptive_precision, adaptive_f1, adaptive_mean_size;
    size_t adaptive_opposite;    /* adaptive answers holding an opposite operation */
    size_t adaptive_destructive; /* ... a destructive operation no request asks for */
    double tokens_mean;          /* adaptive answer's context */
    double tokens_at_k_mean;     /* the first k endpoints' operations */
    double latency_ms[3];        /* p50, p95, p99 of the fixed-k searches */
    double adaptive_latency_ms[3];
    double engine_open_ms;
    size_t routing_tasks;         /* tasks with a gold_api (0 when the index holds one API) */
    size_t routing_correct;       /* of them, those whose routed_api is it */
    eval_query_result *per_query; /* n = queries */
    core_arena *arena;
} eval_report;

/**
 * Runs every query of set twice against eng: at k' = max(k, 20) (fixed-k and
 * recall@5/10/20 numbers), then adaptive with the context budget. idx (the
 * index eng was opened on; may be NULL) gives operation token counts.
 * Latencies are the wall time of each search_engine_run call. *out:
 * eval_report_free. A failing search stops the run and returns its error.
 */
int eval_run(search_engine *eng, store_index *idx, const eval_set *set, const eval_options *opt,
             eval_report **out, apidex_error *err);
/** NULL is a no-op. */
void eval_report_free(eval_report *r);

/**
 * The report as one JSON object: {"queries", "k", "recall", "precision", "f1",
 * "recall_at": {"5", "10", "20"}, "adaptive": {"recall", "precision", "f1",
 * "mean_size"}, "tokens_mean", "latency_ms": {"p50", "p95", "p99"}, ...,
 * "per_query": [...] (only with per_query)}.
 */
int eval_report_json(const eval_report *r, bool per_query, core_buf *out);
/** A human-readable summary (and one line per query with per_query). */
int eval_report_text(const eval_report *r, bool per_query, core_buf *out);

/** One row of a sweep: a strategy's numbers at k = 5, 10, 20. */
typedef struct eval_sweep_row {
    const char *strategy;
    double recall[3], precision[3], f1[3];
} eval_sweep_row;

/**
 * A markdown table in the layout of the paper's Tables 2 and 3: one row per
 * strategy, column groups Recall / Precision / F1, each with k = 5, 10, 20, in
 * percent. The best value per column is bold.
 */
int eval_sweep_markdown(const eval_sweep_row *rows, size_t n, core_buf *out);

/* ---------------------------------------------------------------- the Discovery Agent */
/* (eval_agent.c) The agent on query sets, in the layout of the paper's Table 4. */

typedef struct eval_agent_options {
    agent_discover_options discover; /* tools, k (default 10), max_steps, apis */
    size_t limit;                    /* first N queries of each file (0 = all) */
    /** After each query: queries done, of n, and that query's F1. */
    void (*progress)(void *ctx, size_t done, size_t n, double f1);
    void *progress_ctx;
} eval_agent_options;

typedef struct eval_agent_query {
    const eval_query *query;
    const char **returned; /* the agent's endpoints, "METHOD /path", in call order */
    size_t n_returned;
    eval_scores scores; /* of the agent's list (all of it) */
    eval_scores rag;    /* of the first k search results */
    size_t rag_tokens;  /* cl100k tokens of those k endpoints' documentation */
    agent_usage usage;
    size_t dropped;    /* invented endpoints the agent dropped */
    const char *error; /* the agent failed on this query (scored 0), or NULL */
    size_t column;     /* index into the report's columns */
} eval_agent_query;

/** One query file's means (a column pair of Table 4). */
typedef struct eval_agent_column {
    const char *name; /* the file's stem, e.g. "tmdb" */
    size_t queries, failed, dropped;
    double recall, precision, f1;     /* agent */
    double prompt, completion, total; /* agent tokens per query */
    bool estimated;                   /* some token counts are cl100k estimates */
    double rag_recall, rag_precision, rag_f1, rag_tokens;
} eval_agent_column;

typedef struct eval_agent_report {
    agent_tools_mode tools;
    size_t k;
    const char *model;
    eval_agent_column *columns; /* one per query file, in order */
    size_t n_columns;
    eval_agent_column all; /* over every query */
    eval_agent_query *per_query;
    size_t n;
    double seconds;
    core_arena *arena;
} eval_agent_report;

/**
 * Runs the Discovery Agent (llm, over eng on idx) on every query of set and
 * the plain search at k next to it. An LLM that fails for reasons every query
 * would share (unreachable, refused key, bad model) stops the run with that
 * error; a query the model botches is scored 0 and noted. *out:
 * eval_agent_report_free.
 */
int eval_agent_run(agent_llm *llm, search_engine *eng, store_index *idx, const eval_set *set,
                   const eval_agent_options *opt, eval_agent_report **out, apidex_error *err);
/** NULL is a no-op. */
void eval_agent_report_free(eval_agent_report *r);
/** Table 4 as markdown (RAG and agent per query file), then totals (and per query). */
int eval_agent_report_text(const eval_agent_report *r, bool per_query, core_buf *out);
/** {"agent", "k", "model", "queries", "all", "datasets": [...], "per_query"?}. */
int eval_agent_report_json(const eval_agent_report *r, bool per_query, core_buf *out);

/* ---------------------------------------------------------------- usage prior check
 * (usage_check.c) */

/** What eval_usage_check measured (recalls are means over the queries). */
typedef struct eval_usage_report {
    double weight; /* usage.weight of the prior */
    size_t queries;
    size_t pairs;             /* (gold above non-gold) pairs in the baselines' top 20 */
    size_t inversions;        /* of those, the non-gold one first under the adversarial uses */
    size_t gold_dropped;      /* gold endpoints of a baseline top 20 that left it */
    double r5_base, r10_base; /* without the prior */
    double r5_adversarial, r10_adversarial; /* every non-gold top-20 endpoint used 1000 times */
    double r5_honest, r10_honest;           /* the gold endpoints used once */
} eval_usage_report;

/**
 * Runs every query of set three times (top 20, ranked): without the prior, with the
 * adversarial uses and with the honest ones, at usage.weight = weight (base: the other
 * parameters). See usage_check.c for the protocol.
 */
int eval_usage_check(search_engine *eng, store_index *idx, const eval_set *set,
                     const search_params *base, double weight, eval_usage_report *out,
                     apidex_error *err);
/** One JSON line of the report. */
int eval_usage_json(const eval_usage_report *r, core_buf *out);

#endif /* APIDEX_EVAL_H */
