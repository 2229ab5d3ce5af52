/* The apidex command: one function per subcommand, shared option helpers. */
#ifndef APIDEX_CLI_H
#define APIDEX_CLI_H

#include "core/core.h"

/* Exit codes: 0 ok, 1 the work found problems (e.g. a document failed), 2 usage error,
   3 runtime failure (I/O, database, out of memory). */
enum { CLI_OK = 0, CLI_PROBLEMS = 1, CLI_USAGE = 2, CLI_FAILURE = 3 };

typedef int (*cli_cmd_fn)(int argc, char **argv);

/* Subcommands (argv[0] is the subcommand name). */
int cli_cmd_inspect(int argc, char **argv);
int cli_cmd_search(int argc, char **argv);
int cli_cmd_tokens(int argc, char **argv);
int cli_cmd_embed(int argc, char **argv);
int cli_cmd_model(int argc, char **argv);
int cli_cmd_chunk(int argc, char **argv);
int cli_cmd_stats(int argc, char **argv);
int cli_cmd_index(int argc, char **argv);
int cli_cmd_show(int argc, char **argv);
int cli_cmd_list(int argc, char **argv);
int cli_cmd_eval(int argc, char **argv);
int cli_cmd_serve(int argc, char **argv);
int cli_cmd_mcp(int argc, char **argv);
int cli_cmd_tools(int argc, char **argv);
int cli_cmd_agent(int argc, char **argv);
int cli_cmd_ask(int argc, char **argv);

/** The index file: the --db value if given, else $APIDEX_DB, else ./apidex.db (cmd_index.c). */
const char *cli_db_path(const char *flag);
/** How cli_build_index reports: progress bar, diagnostics, errors as JSON objects. */
typedef struct cli_index_flags {
    bool progress, quiet, verbose;
    core_buf *errors_json; /* NULL, or gets one JSON object per error, comma-separated */
} cli_index_flags;
struct store_build_options;
struct store_build_report;
/** Loads paths and builds the index db (cmd_index.c); returns a CLI_* exit code. */
int cli_build_index(const char *db, char *const *paths, size_t n_paths,
                    const struct store_build_options *opt, const cli_index_flags *flags,
                    struct store_build_report *rep, apidex_error *err);

/* ---- embedding options shared by index, search, eval, serve and mcp (embed_flags.c) */
typedef struct cli_embed_flags {
    const char *model, *url, *key;
    const char *precision;  /* --precision f32|bf16 (local model) */
    const char *weight_arg; /* --hybrid-weight as given */
    double hybrid_weight;   /* search_query.hybrid_weight (0 = reciprocal-rank fusion) */
    int mode;               /* --mode: a search_mode (search, eval, serve, mcp) */
    bool mode_given;
    bool given; /* --model, --embed-url or --embed-key was given */
} cli_embed_flags;
struct embed_provider;
/** The embedding flags' help lines. */
const char *cli_embed_flags_help(void);
/** Consumes argv[*i] (and its value) if it is an embedding flag or --mode: 1 taken, 0 not
    one, -1 bad. */
int cli_embed_parse_flag(int argc, char **argv, int *i, cli_embed_flags *f);
/** Opens the provider of the flags (env fills the rest); prints errors; a CLI_* code. */
int cli_embed_open(const cli_embed_flags *f, struct embed_provider **out);
struct serve_search_config;
/** How serve and mcp search (--mode and the embedding flags; cmd_serve.c): opens the
    provider for dense and hybrid (out->embedder, the caller closes it); a CLI_* code. */
int cli_search_config(const cli_embed_flags *f, struct serve_search_config *out);

/* ---- LLM options shared by agent, ask, eval --agent and index (cmd_agent.c) */
typedef struct cli_llm_flags {
    const char *base_url, *model, *key_env, *config;
    double temperature, timeout;
    bool has_temperature, stream;
    int max_tokens, retries; /* retries: N + 1 (0 = not given) */
} cli_llm_flags;
struct agent_llm;
struct agent_llm_config;
struct eval_set;
/** The LLM flags' help lines. */
const char *cli_llm_flags_help(void);
/** Consumes argv[*i] (and its value) if it is an LLM flag: 1 taken, 0 not one, -1 bad value. */
int cli_llm_parse_flag(int argc, char **argv, int *i, cli_llm_flags *f);
/** Flags over env over config file. */
int cli_llm_resolve(const cli_llm_flags *f, struct agent_llm_config *c, apidex_error *err);
/** Opens the configured LLM (*out NULL when none and !required); prints why not. CLI_* code. */
int cli_llm_open(const cli_llm_flags *f, bool required, struct agent_llm **out);
/** index --strategy summary|query with an LLM configured (and not no_llm): LLM texts. */
typedef struct cli_llm_refine cli_llm_refine;
int cli_llm_refine_begin(struct store_build_options *opt, const cli_llm_flags *f, bool no_llm,
                         bool progress, cli_llm_refine **out);
/** Prints what the LLM wrote (unless quiet) and frees. NULL is a no-op. */
void cli_llm_refine_end(cli_llm_refine *s, bool quiet);
/** eval --agent: the Discovery Agent on a query set over the index db (Table 4). */
typedef struct cli_eval_agent_args {
    int tools; /* agent_tools_mode */
    size_t k, limit;
    unsigned max_steps;
    bool json, per_query;
    cli_llm_flags llm;
} cli_eval_agent_args;
int cli_eval_agent(const char *db, const struct eval_set *set, const cli_eval_agent_args *a);

/** Prints "apidex: <message>" and the location of err to stderr. */
void cli_print_error(const apidex_error *err);
/** True when stderr is a terminal (progress bars). */
int cli_stderr_is_tty(void);

#endif
