/*
 * agent: what apidex does with an LLM, for users who have one. A client for any
 * OpenAI-compatible Chat Completions API (OpenAI, Anthropic's compatible
 * endpoint, Ollama, llama.cpp server, vLLM), the Discovery Agent of the chunking
 * paper (§3.1, Table 4), askAPI answers (ask.c), LLM-written summary/query texts for
 * the summary and query chunking strategies, and the RestGPT loop (run_loop.c), which
 * solves a task by calling the endpoints through the executor (src/exec) with apidex's
 * search as its selector.
 *
 * Design notes
 * - Optional by construction. Nothing here reads the environment or touches the
 *   network on its own: a caller resolves an agent_llm_config (flags > env >
 *   config file), and only a configured one opens a client. Without one, askAPI
 *   still retrieves and assembles the context and says that no LLM answered.
 * - One protocol. Every provider is spoken to through POST {base}/chat/completions
 *   with tools (function definitions), tool_choice and tool results, optionally
 *   streamed (server-sent events). Retries with exponential backoff cover 429,
 *   5xx and transport failures; every other failure becomes one clear message.
 * - Tokens are counted from the server's `usage`; when a server does not send
 *   it, cl100k counts of what was sent and received stand in (marked estimated).
 * - The agent never returns an endpoint that is not in the index: every endpoint
 *   the model names is matched against the index (path templates compared by
 *   position, concrete values matched against placeholders) and the rest are
 *   dropped and reported.
 * - Disk caches (askAPI answers with a TTL, LLM chunk texts keyed by model,
 *   prompt version and content hash) live under $APIDEX_CACHE_DIR or
 *   ~/.cache/apidex; entries are written to a temp file and renamed.
 */
#ifndef APIDEX_AGENT_H
#define APIDEX_AGENT_H

#include "build/build.h"
#include "chunk/chunk.h"
#include "exec/exec.h"
#include "search/search.h"
#include "store/store.h"

#include <stdbool.h>
#include <stddef.h>

/* ---------------------------------------------------------------- configuration */

/** Environment variables read by agent_llm_config_from_env. */
#define AGENT_ENV_BASE_URL "APIDEX_LLM_BASE_URL"
#define AGENT_ENV_MODEL    "APIDEX_LLM_MODEL"
#define AGENT_ENV_API_KEY  "APIDEX_LLM_API_KEY"
#define AGENT_ENV_CONFIG   "APIDEX_LLM_CONFIG"  /* path of a JSON config file */
#define AGENT_ENV_TIMEOUT  "APIDEX_LLM_TIMEOUT" /* seconds per request */
#define AGENT_ENV_CACHE    "APIDEX_CACHE_DIR"

/** How to reach an LLM. Plain value type (fixed-size strings): copy freely. */
typedef struct agent_llm_config {
    char base_url[1024]; /* "https://api.openai.com/v1", "http://127.0.0.1:11434/v1", ... */
    char model[256];
    char api_key[1024];       /* "" = send no Authorization header (Ollama, llama.cpp) */
    double temperature;       /* default 0: the most repeatable answers */
    int max_tokens;           /* completion cap per call (default 1024; 0 = server default) */
    double timeout_s;         /* whole request, default 120 */
    double connect_timeout_s; /* default 10 */
    int max_retries;         /* after the first attempt, for 429/5xx/transport errors (default 3) */
    unsigned backoff_ms;     /* first retry delay, doubled each time (default 1000) */
    unsigned max_backoff_ms; /* cap of one delay, Retry-After included (default 30000) */
    bool stream;             /* ask for server-sent events */
    char config_file[1024];  /* the config file that was read, "" if none */
} agent_llm_config;

/** Defaults, nothing configured (base_url and model empty). */
void agent_llm_config_defaults(agent_llm_config *c);

/**
 * Reads a JSON config file into c (only the keys present): base_url, model,
 * api_key, api_key_env (name of a variable holding the key), temperature,
 * max_tokens, timeout, connect_timeout, retries, backoff_ms, stream.
 * APIDEX_ENOTFOUND when the file does not exist, APIDEX_EPARSE/EINVAL when bad.
 */
int agent_llm_config_load_file(agent_llm_config *c, const char *path, apidex_error *err);

/**
 * Fills c from the environment: first the config file ($APIDEX_LLM_CONFIG, else
 * $XDG_CONFIG_HOME/apidex/llm.json or ~/.config/apidex/llm.json when it exists),
 * then APIDEX_LLM_BASE_URL, APIDEX_LLM_MODEL, APIDEX_LLM_API_KEY and
 * APIDEX_LLM_TIMEOUT over it. Callers apply their flags afterwards. Fails only
 * on a bad config file or value; an unconfigured LLM is not an error (see
 * agent_llm_configured).
 */
int agent_llm_config_from_env(agent_llm_config *c, apidex_error *err);

/** Only the variables (APIDEX_LLM_BASE_URL, _MODEL, _API_KEY, _TIMEOUT) over c. */
int agent_llm_config_apply_env(agent_llm_config *c, apidex_error *err);

/** True when c names a server and a model. */
bool agent_llm_configured(const agent_llm_config *c);

/** One line telling the user how to configure an LLM (the env vars and docs/LLM.md). */
const char *agent_llm_setup_hint(void);

/* ---------------------------------------------------------------- usage */

/** Tokens of one call or summed over a task. */
typedef struct agent_usage {
    size_t prompt, completion, total;
    size_t calls;   /* chat requests that got an answer */
    bool estimated; /* some count came from cl100k because the server sent no usage */
} agent_usage;

/** sum += u. */
void agent_usage_add(agent_usage *sum, const agent_usage *u);

/* ---------------------------------------------------------------- conversations */

/** A conversation: messages in order plus the tools offered. Not thread-safe. */
typedef struct agent_chat agent_chat;

typedef struct agent_tool_call {
    char *id;        /* the server's id, echoed in the tool result */
    char *name;      /* function name */
    char *arguments; /* JSON text as the model wrote it (may be malformed) */
} agent_tool_call;

/** One answer of the model. Owns its strings: agent_reply_free. */
typedef struct agent_reply {
    char *content; /* NULL when the model only called tools */
    agent_tool_call *tool_calls;
    size_t n_tool_calls;
    char finish_reason[32]; /* "stop", "tool_calls", "length", ... ("" if none) */
    bool truncated;         /* cut by max_tokens (finish_reason "length") */
    agent_usage usage;      /* of this call */
    int attempts;           /* HTTP requests it took (retries + 1) */
} agent_reply;

/** Frees what r owns and zeroes it. NULL is a no-op. */
void agent_reply_free(agent_reply *r);

/** A new empty conversation; NULL on OOM. */
agent_chat *agent_chat_new(void);
/** NULL is a no-op. */
void agent_chat_free(agent_chat *c);
/** Appends a "system", "user" or "assistant" message. */
int agent_chat_add(agent_chat *c, const char *role, const char *content);
/** Appends the assistant turn of r (its content and tool calls), as the protocol wants. */
int agent_chat_add_reply(agent_chat *c, const agent_reply *r);
/** Appends the result of tool call `tool_call_id` (role "tool"). */
int agent_chat_add_tool_result(agent_chat *c, const char *tool_call_id, const char *content);
/**
 * Offers a function tool. parameters_json is a JSON Schema object as text;
 * APIDEX_EINVAL when it does not parse.
 */
int agent_chat_add_tool(agent_chat *c, const char *name, const char *description,
                        const char *parameters_json);
/** Number of messages. */
size_t agent_chat_count(const agent_chat *c);

/* ---------------------------------------------------------------- client */

/** A client for one configured server and model. Thread-safe: calls may run concurrently. */
typedef struct agent_llm agent_llm;

/**
 * Opens a client (no network traffic yet). Refuses an unconfigured c, a base
 * URL that is not http(s), and a hosted API (api.openai.com, api.anthropic.com)
 * without a key, each with a message naming the variable to set. *out:
 * agent_llm_close. The config is copied.
 */
int agent_llm_open(const agent_llm_config *c, agent_llm **out, apidex_error *err);
/** NULL is a no-op. */
void agent_llm_close(agent_llm *llm);
/** The configuration the client was opened with. */
const agent_llm_config *agent_llm_get_config(const agent_llm *llm);
/** The chat completions URL the client posts to. */
const char *agent_llm_url(const agent_llm *llm);

/** Per-call options; zero = defaults. */
typedef struct agent_call_options {
    const char *tool_choice; /* NULL: "auto" when tools are offered; "none", "required",
                                or the name of one tool to force */
    int max_tokens;          /* 0 = the config's */
    int stream;              /* 0 = the config's, 1 = stream, -1 = do not */
    bool json_mode;          /* ask for response_format json_object */
    /** Called with each piece of content as it arrives (streaming) or once (not). */
    void (*on_delta)(void *ctx, const char *text, size_t n);
    void *on_delta_ctx;
} agent_call_options;

/**
 * Sends the conversation and parses the answer into *out (zeroed first; free
 * with agent_reply_free, also on error). Retries 429 (honouring Retry-After),
 * 5xx and transport failures with exponential backoff. Errors:
 * APIDEX_ENET (unreachable, timeout, 5xx after retries, 429 after retries),
 * APIDEX_EINVAL (401/403: the key; 400/404: the model or URL, with the
 * server's message), APIDEX_EPARSE (a reply that is not a chat completion).
 * Does not add the reply to chat. Thread-safe.
 */
int agent_llm_chat(agent_llm *llm, const agent_chat *chat, const agent_call_options *opt,
                   agent_reply *out, apidex_error *err);

/** cl100k tokens of a string (the fallback count). */
size_t agent_count_tokens(const char *s);

/* ---------------------------------------------------------------- endpoints */

/**
 * The operation (index into store_operations()) a model means by METHOD and
 * path, or -1. api (may be NULL) restricts to one API. Matching, best first:
 * the exact template; the template with placeholders compared by position
 * ("/movie/{id}" = "/movie/{movie_id}"); a concrete path matched against
 * placeholders ("/movie/550/credits"), literal segments beating placeholders.
 * A full URL, a server base path or a query string is stripped first. method
 * may be NULL or "" when the path has exactly one operation.
 */
long agent_match_endpoint(store_index *idx, const char *api, const char *method, const char *path);

/* ---------------------------------------------------------------- Discovery Agent */

typedef enum agent_tools_mode {
    AGENT_TOOLS_SUMMARY = 0, /* search_endpoints (method, path, one line) + get_endpoint */
    AGENT_TOOLS_QUERY = 1    /* query_endpoints: the retrieval results with full chunks */
} agent_tools_mode;

/** "summary" / "query". */
const char *agent_tools_mode_name(agent_tools_mode m);

typedef struct agent_discover_options {
    agent_tools_mode tools;  /* default AGENT_TOOLS_SUMMARY, the paper's best */
    size_t k;                /* results per retrieval (default 10, as in Table 4) */
    unsigned max_steps;      /* model calls before it must answer (default 12) */
    const char *const *apis; /* restrict retrieval to these APIs (NULL-terminated) */
    /** Progress/trace: event is "call", "tool", "answer", "drop", "retry". */
    void (*trace)(void *ctx, const char *event, const char *detail);
    void *trace_ctx;
} agent_discover_options;

typedef struct agent_endpoint {
    const char *id; /* operation id in the index */
    const char *api, *method, *path;
    const char *rationale; /* why, in the model's words ("" if it gave none) */
} agent_endpoint;

/** What the agent found. Everything lives in the arena (and the index's strings). */
typedef struct agent_discovery {
    agent_endpoint *endpoints; /* in call order, distinct, all in the index */
    size_t n_endpoints;
    const char **dropped; /* endpoints the model named that the index does not have */
    size_t n_dropped;
    const char **subqueries; /* the sub-tasks it retrieved for, in order */
    size_t n_subqueries;
    agent_usage usage;    /* summed over the task */
    unsigned steps;       /* model calls */
    unsigned tool_errors; /* tool calls answered with an error (bad arguments, unknown ...) */
    const char *note;     /* why it stopped early, or NULL */
    double elapsed_ms;
    core_arena *arena;
} agent_discovery;

/**
 * Runs the Discovery Agent on task: the model splits it into fine-grained
 * sub-tasks, calls the retrieval tools until done and submits the endpoints in
 * call order with a rationale each. eng must be open on idx. *out:
 * agent_discovery_free. Errors of the LLM call are returned (see
 * agent_llm_chat); a model that misbehaves (bad arguments, unknown tools or
 * endpoints) gets an error as the tool result and may try again.
 */
int agent_discover(agent_llm *llm, store_index *idx, search_engine *eng, const char *task,
                   const agent_discover_options *opt, agent_discovery **out, apidex_error *err);
/** NULL is a no-op. */
void agent_discovery_free(agent_discovery *d);
/** {"task", "tools", "endpoints": [{id, api, method, path, rationale}], "dropped", ...}. */
int agent_discovery_write_json(const agent_discovery *d, const char *task, agent_tools_mode tools,
                               core_buf *out);

/* ---------------------------------------------------------------- askAPI */

typedef struct agent_ask_options {
    const char *const *apis; /* restrict to these APIs (NULL-terminated), NULL = all */
    size_t budget;           /* cl100k tokens of context (default 4000) */
    size_t k;                /* endpoints retrieved before expansion (0 = adaptive answer set) */
    const char *cache_dir;   /* NULL = agent_cache_dir(); "" = no cache */
    long cache_ttl_s;        /* 0 = default (86400); < 0 = do not use the cache */
    bool context_only;       /* do not call the LLM even when one is given */
    search_mode mode;        /* retrieval: lexical (default), dense or hybrid (the engine's
                                embedder must be set for the last two) */
    double hybrid_weight;    /* search_query.hybrid_weight */
    void (*on_delta)(void *ctx, const char *text, size_t n); /* streamed answer */
    void *on_delta_ctx;
} agent_ask_options;

/** A JSON example found in an answer and what validating it said. */
typedef struct agent_example_check {
    const char *schema; /* what it claims to follow ("api:Pet", "response of api:getPet") */
    bool found;         /* the claim names a schema the index has */
    bool valid;
    const char *problem; /* first violation (with its JSON pointer) or NULL */
    size_t index;        /* 0-based position among the answer's JSON blocks */
} agent_example_check;

/** One piece of context and whether it fitted the budget. */
typedef struct agent_context_item {
    const char *id; /* operation or schema id */
    bool is_schema;
    bool producer; /* an endpoint added because another needs its output */
    size_t tokens;
    bool included;
} agent_context_item;

/** What agent_ask hands back. Everything lives in the arena. */
typedef struct agent_answer {
    const char *question;
    bool llm_used;       /* false: no LLM configured (or context_only): answer is NULL */
    const char *note;    /* e.g. "no LLM configured: ..." or NULL */
    const char *answer;  /* the LLM's answer, or NULL */
    bool truncated;      /* the answer was cut by max_tokens */
    bool cached;         /* served from the disk cache */
    const char *model;   /* the model that answered, or NULL */
    const char *context; /* the assembled context (markdown) */
    size_t context_tokens;
    agent_context_item *items; /* what was needed, in context order */
    size_t n_items;
    double completeness;    /* needed tokens that fitted / needed tokens (1 when none needed) */
    const char **endpoints; /* operation ids in the context, in order */
    size_t n_endpoints;
    const char **cited; /* ids the answer cites that are in the context */
    size_t n_cited;
    const char **unknown_citations; /* ids the answer cites that the context does not have */
    size_t n_unknown_citations;
    agent_example_check *examples;
    size_t n_examples;
    size_t invalid_examples;
    agent_usage usage;
    double elapsed_ms;
    core_arena *arena;
} agent_answer;

/**
 * askAPI: retrieves for question, expands (producers of needed inputs, the
 * schemas the endpoints reference), assembles the context within the budget
 * and, when llm is non-NULL, answers from that context only, citing endpoint
 * ids; JSON examples in the answer are validated against the schema each
 * claims to follow. Answers are cached on disk by (index version, question,
 * filters, budget, model) for the TTL. llm == NULL (no LLM configured) gives
 * the context with llm_used = false and a note saying so. eng may be NULL (one
 * is opened on idx for the call). *out: agent_answer_free. Thread-safe when
 * eng is shared (each call has its own state).
 */
int agent_ask(store_index *idx, search_engine *eng, agent_llm *llm, const char *question,
              const agent_ask_options *opt, agent_answer **out, apidex_error *err);
/** NULL is a no-op. */
void agent_answer_free(agent_answer *a);
/** The answer as one JSON object (question, llm_used, answer, context, completeness, ...). */
int agent_answer_write_json(const agent_answer *a, core_buf *out);

/**
 * Validates a JSON example (text) against the schema it claims: "api:Schema",
 * "request of <operation id>" or "response of <operation id>" (2xx JSON).
 * Loads the schema's API document from the index's record of it. Sets
 * *found (the claim names a known schema), *valid and a problem message (in
 * arena). Used by agent_ask; public for tests.
 */
int agent_validate_example(store_index *idx, const char *claim, const char *json_text,
                           core_arena *arena, bool *found, bool *valid, const char **problem,
                           apidex_error *err);

/* ---------------------------------------------------------------- chunk refinement */

/** Bumped whenever the refinement prompts change (invalidates cached texts). */
#define AGENT_REFINE_PROMPT_VERSION 1

typedef struct agent_refine_options {
    chunk_strategy strategy; /* CHUNK_SUMMARY or CHUNK_QUERY */
    unsigned concurrency;    /* parallel LLM calls (default 4, at most 32) */
    const char *cache_dir;   /* NULL = agent_cache_dir(); "" = no disk cache */
    /** Progress of agent_refine_prefetch (done of total endpoints). */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
} agent_refine_options;

/** Writes the summary or likely query of each endpoint with an LLM, with a disk cache. */
typedef struct agent_refiner agent_refiner;

typedef struct agent_refine_stats {
    size_t requested, cache_hits, llm_calls, failures;
    agent_usage usage;
} agent_refine_stats;

/** llm must outlive the refiner. *out: agent_refiner_free. */
int agent_refiner_new(agent_llm *llm, const agent_refine_options *opt, agent_refiner **out,
                      apidex_error *err);
/** NULL is a no-op. */
void agent_refiner_free(agent_refiner *r);

/**
 * Writes the texts of every operation of reg's loaded APIs (at most
 * `concurrency` calls at a time), into the disk cache and memory, so the
 * sequential chunking that follows finds them. Cached endpoints cost nothing.
 * Returns the first LLM error (other endpoints still complete).
 */
int agent_refine_prefetch(agent_refiner *r, const spec_registry *reg, apidex_error *err);

/**
 * A chunk_describe_fn (ctx = the refiner): the LLM text of op for the
 * summary/query strategy, from memory, the cache or one LLM call. Plug into
 * chunk_options.describe (or build_options.describe).
 */
int agent_refine_describe(void *ctx, const spec_api *api, const spec_operation *op,
                          chunk_strategy strategy, core_buf *out, apidex_error *err);

/**
 * Sets the refinement hooks of a store build (chunk_setup, describe_signature,
 * describe_prepare): an index built with the summary or query strategy gets
 * r's LLM texts (prefetched concurrently first), any other strategy is left
 * alone. r must outlive the build.
 */
void agent_refiner_attach(agent_refiner *r, build_options *opt);

/** "llm:<model>:p<prompt version>": goes into the index signature. Owned by r. */
const char *agent_refiner_signature(const agent_refiner *r);
/** Counters so far. */
agent_refine_stats agent_refiner_stats(const agent_refiner *r);

/* ---------------------------------------------------------------- caches */

/**
 * The cache folder: $APIDEX_CACHE_DIR, else $XDG_CACHE_HOME/apidex, else
 * $HOME/.cache/apidex, into out. APIDEX_ENOTFOUND when none can be named.
 */
int agent_cache_dir(char *out, size_t cap, apidex_error *err);

/* ---------------------------------------------------------------- the RestGPT loop (run_loop.c) */

/**
 * How the loop reaches the endpoints: run_call.c wires these to the executor (the request
 * builder, the safe transport, the response shaping); tests give their own.
 */
typedef struct agent_run_ops {
    /** The call-level details of an operation of the index (parameters, body, response
        schema) as text, appended to out. */
    int (*describe)(void *ctx, const char *operation_id, core_buf *out, apidex_error *err);
    /** Calls the operation with params ({name: value}) and body (NULL: none). An answer of
        the API, 4xx and 5xx included, is not an error of the function: *status says it.
        An input the spec refuses, or a call the safety rules refuse, is: err says why
        (APIDEX_EINVAL, APIDEX_EREFUSED) and the loop shows it to the model. On success:
        *request (what was sent, credentials masked), *body (the response body as
        received, possibly cut) and *shaped (the response shaped for a model, JSON text),
        all in arena. */
    int (*call)(void *ctx, const char *operation_id, struct json_object *params,
                struct json_object *body, core_arena *arena, long *status, const char **request,
                const char **body_out, const char **shaped, apidex_error *err);
    /** Evaluates a selection (the JSONPath-like subset of shape.c) on a response body; *out
        the selected value as JSON text in arena. APIDEX_EINVAL: the selection does not parse
        or selects nothing (err says which). */
    int (*select)(void *ctx, const char *body, const char *selection, core_arena *arena,
                  const char **out, apidex_error *err);
    void *ctx;
} agent_run_ops;

typedef struct agent_run_options {
    unsigned max_steps;      /* planner turns, default 10 (at most 50) */
    size_t k;                /* candidate endpoints apidex's search gives per step, default 5 */
    const char *const *apis; /* restrict the search to these APIs (NULL-terminated) */
    size_t describe_chars;   /* cut each candidate's details to this (default 6000) */
    size_t result_chars;     /* cut each step's selected result to this (default 3000) */
    /** Progress: event is "plan", "select", "call", "parse", "answer", "retry". */
    void (*trace)(void *ctx, const char *event, const char *detail);
    void *trace_ctx;
} agent_run_options;

/** One plan → select → call → parse turn. Strings live in the run's arena. */
typedef struct agent_run_step {
    unsigned n;              /* 1-based */
    const char *plan;        /* the planner's sub-task, in natural language */
    const char **candidates; /* operation ids apidex's search offered, best first */
    size_t n_candidates;
    const char *operation_id; /* what the caller called (NULL: nothing was called) */
    const char *params;       /* the caller's arguments, JSON text */
    const char *request;      /* what was sent, credentials masked */
    long status;              /* the API's HTTP status (0: nothing was answered) */
    const char *response;     /* the shaped response the parser saw (JSON text) */
    const char *selection;    /* the parser's selection */
    const char *result;       /* what the step found (JSON text), NULL when nothing */
    const char *error;        /* what went wrong, NULL when nothing */
    unsigned attempts;        /* calls the caller made for this step */
    size_t prompt_tokens;     /* cl100k tokens sent to the model in this step */
    size_t completion_tokens; /* cl100k tokens the model wrote in this step */
} agent_run_step;

/** A whole run. Everything lives in arena. */
typedef struct agent_run {
    const char *task;
    agent_run_step *steps;
    size_t n_steps;
    const char *answer; /* the planner's final answer, NULL when it gave none */
    const char *note;   /* why it stopped without an answer, or NULL */
    agent_usage usage;  /* the model's own counts, summed */
    unsigned llm_calls;
    unsigned api_calls;
    double elapsed_ms;
    core_arena *arena;
} agent_run;

/**
 * RestGPT's coarse-to-fine online planning (Song et al., 2023) with apidex's search as the API
 * selector: the planner (the model) proposes the next sub-task in plain words or ends with
 * an answer; apidex's search (not the model) picks the candidate endpoints for it; the
 * caller (the model) chooses one and fills its parameters from the candidates' details and
 * the earlier results; ops->call validates and sends; the parser (the model) writes a
 * selection guided by the response that ops->select evaluates, so the model never reads a
 * whole body. A failed call is shown to the caller, who may try once more. *out:
 * agent_run_free (also on error, when set). Errors: the model's (agent_llm_chat's).
 */
int agent_run_task(agent_llm *llm, search_engine *eng, const char *task, const agent_run_ops *ops,
                   const agent_run_options *opt, agent_run **out, apidex_error *err);
/** NULL is a no-op. */
void agent_run_free(agent_run *r);
/** The transcript as JSON: {"task", "answer", "note", "steps": [...], "usage", ...}. */
int agent_run_write_json(const agent_run *r, core_buf *out);
/** The transcript as text for a person. */
int agent_run_write_text(const agent_run *r, core_buf *out);

/* ---------------------------------------------------------------- the loop's executor
   (run_call.c) */

/** What the loop's calls may do. Strings and arrays are borrowed for the executor's life. */
typedef struct agent_run_executor_options {
    exec_policy policy; /* allowed_hosts: the extra ones (--allow-host); the request's own host
                           and the spec's servers are always added */
    const char *const *servers; /* "API=URL": that API's base URL instead of its spec's */
    size_t n_servers;
    exec_shape_options shape; /* how responses are shaped for the parser */
    exec_token_fn token_fn;   /* OAuth2 client credentials (an exec_oauth), or NULL */
    void *token_ctx;
} agent_run_executor_options;

typedef struct agent_run_executor agent_run_executor;
/**
 * The executor of agent_run_task over idx: *ops gets describe (the operation's call-level
 * details, view_detail_text of VIEW_DETAIL_CALL), call (exec_build with the model's
 * params as name=value inputs, exec_send under the policy, exec_shape) and select
 * (exec_select on the parsed body; nothing selected is APIDEX_EINVAL). Each API's
 * document is read once, when first needed. *out: agent_run_executor_free (after the run).
 */
int agent_run_executor_new(store_index *idx, const agent_run_executor_options *opt,
                           agent_run_executor **out, agent_run_ops *ops, apidex_error *err);
void agent_run_executor_free(agent_run_executor *x);
/* The three operations themselves (ctx = an agent_run_executor). */
int agent_run_describe(void *ctx, const char *operation_id, core_buf *out, apidex_error *err);
int agent_run_call(void *ctx, const char *operation_id, struct json_object *params,
                   struct json_object *body, core_arena *arena, long *status, const char **request,
                   const char **body_out, const char **shaped, apidex_error *err);
int agent_run_select(void *ctx, const char *body, const char *selection, core_arena *arena,
                     const char **out, apidex_error *err);

#endif /* APIDEX_AGENT_H */
