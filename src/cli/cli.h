/* The apidex command: one function per subcommand, shared option helpers. */
#ifndef APIDEX_CLI_H
#define APIDEX_CLI_H

#include "core/core.h"

#include <stddef.h>
#include <stdio.h>

/* Exit codes: 0 ok, 1 the work found problems (e.g. a document failed), 2 usage error,
   3 runtime failure (I/O, database, out of memory). */
/* Writers (index, add, remove) add: 4 refused by a safety rule, nothing changed (a build
   that would remove most of the index or has no documents: --prune; a --db file that is not
   an apidex index), 5 another writer held the index (--no-wait, or past --wait). */
enum {
    CLI_OK = 0,
    CLI_PROBLEMS = 1,
    CLI_USAGE = 2,
    CLI_FAILURE = 3,
    CLI_REFUSED = 4,
    CLI_BUSY = 5
};

typedef int (*cli_cmd_fn)(int argc, char **argv);

/* Subcommands (argv[0] is the subcommand name). */
int cli_cmd_inspect(int argc, char **argv);
int cli_cmd_search(int argc, char **argv);
struct search_result;
/** apidex search's plan (search_plan.c): `,"plan":[...]` for --json, and the text block. */
void cli_search_plan_json(const struct search_result *res, core_buf *b);
void cli_search_plan_text(const struct search_result *res, core_buf *b);
int cli_cmd_tokens(int argc, char **argv);
int cli_cmd_embed(int argc, char **argv);
int cli_cmd_model(int argc, char **argv);
int cli_cmd_chunk(int argc, char **argv);
int cli_cmd_stats(int argc, char **argv);
int cli_cmd_index(int argc, char **argv);
int cli_cmd_show(int argc, char **argv);
int cli_cmd_feedback(int argc, char **argv);
struct store_api;
struct store_operation;
/** apidex list --duplicates (list_dupes.c): the groups, as text or JSON; a CLI_* code. */
int cli_list_duplicates(const struct store_api *apis, size_t n_apis,
                        const struct store_operation *ops, size_t n_ops, bool json);
int cli_cmd_list(int argc, char **argv);
int cli_cmd_eval(int argc, char **argv);
int cli_cmd_serve(int argc, char **argv);
int cli_cmd_mcp(int argc, char **argv);
int cli_cmd_tools(int argc, char **argv);
int cli_cmd_agent(int argc, char **argv);
int cli_cmd_ask(int argc, char **argv);
int cli_cmd_add(int argc, char **argv);
int cli_cmd_remove(int argc, char **argv);
int cli_cmd_mock(int argc, char **argv);
int cli_cmd_call(int argc, char **argv);
int cli_cmd_run(int argc, char **argv);
int cli_cmd_snippet(int argc, char **argv);
int cli_cmd_match(int argc, char **argv);

/* ---- flag tables (flags.c): one declarative table per command drives its parsing, --help,
   did-you-mean, completion and the man page. A row is prose for --help, a flag (its name,
   short alias, value kind and where the value goes: an offset into the command's options
   struct) or a shared table (--db's siblings: embedding, LLM, writer flags). */
typedef enum {
    CLI_F_TEXT,    /* no flag: lines of --help (synopsis, notes) */
    CLI_F_SWITCH,  /* no value: sets the bool at `at` */
    CLI_F_STRING,  /* a value: the const char * at `at` points to argv */
    CLI_F_SIZE,    /* a whole number in [lo, hi] into the size_t at `at` */
    CLI_F_LONG,    /* the same into a long */
    CLI_F_DOUBLE,  /* a number in [lo, hi] ((lo, hi] with above_lo) into the double at `at` */
    CLI_F_CHOICE,  /* one of choices (any case): its index into the int at `at` */
    CLI_F_LIST,    /* repeatable: argv strings appended to the const char *[] at `at`, their
                      count in the size_t at `count_at`; cap values at most (too_many says so,
                      given the flag and cap); with choices, each value is one of them and the
                      list gets the canonical spelling */
    CLI_F_WORDS,   /* the words after the flag up to the next flag (one at least), appended
                      to the char ** at `at` (room for argc words), counted at `count_at` */
    CLI_F_HANDLER, /* a value given to take (which checks it and says what is wrong) */
    CLI_F_INCLUDE  /* the rows of table, their offsets relative to `at` */
} cli_flag_kind;
struct cli_flag_table;
typedef struct cli_flag {
    cli_flag_kind kind;
    const char *name;  /* "--db" (NULL for TEXT and INCLUDE) */
    const char *alias; /* "-k", "-v" or NULL */
    const char *also;  /* an older spelling still taken, never offered (agent's --k) */
    size_t at, count_at;
    double lo, hi;
    bool above_lo;
    /* a flag taken, but never offered (completion, did-you-mean, "needs a value") */
    bool unlisted;
    const char *const *choices; /* NULL-terminated */
    size_t cap;
    const char *too_many;
    /* HANDLER: CLI_OK or CLI_USAGE (said); opts is the struct the table's offsets are in.
       Its choices, when set, are only what completion offers. */
    int (*take)(const char *cmd, const char *flag, const char *value, void *opts);
    const struct cli_flag_table *table;
    const char *help; /* the lines this row adds to --help, verbatim (NULL: none) */
} cli_flag;
typedef struct cli_flag_table {
    const cli_flag *rows;
    size_t n;
} cli_flag_table;
/* Row makers. T is the options struct; the _Generic makes a field of the wrong type a
   compile error. */
#define CLI_FIELD_(T, f, type) _Generic(((T *)0)->f, type : offsetof(T, f))
#define CLI_TEXT(h)                                                                                \
    {                                                                                              \
        .kind = CLI_F_TEXT, .help = (h)                                                            \
    }
#define CLI_SWITCH(n, a, T, f, h)                                                                  \
    {                                                                                              \
        .kind = CLI_F_SWITCH, .name = (n), .alias = (a), .at = CLI_FIELD_(T, f, bool), .help = (h) \
    }
#define CLI_STRING(n, a, T, f, h)                                                                  \
    {                                                                                              \
        .kind = CLI_F_STRING, .name = (n), .alias = (a), .at = CLI_FIELD_(T, f, const char *),     \
        .help = (h)                                                                                \
    }
#define CLI_SIZE(n, a, T, f, l, u, h)                                                              \
    {                                                                                              \
        .kind = CLI_F_SIZE, .name = (n), .alias = (a), .at = CLI_FIELD_(T, f, size_t), .lo = (l),  \
        .hi = (u), .help = (h)                                                                     \
    }
#define CLI_LONG(n, a, T, f, l, u, h)                                                              \
    {                                                                                              \
        .kind = CLI_F_LONG, .name = (n), .alias = (a), .at = CLI_FIELD_(T, f, long), .lo = (l),    \
        .hi = (u), .help = (h)                                                                     \
    }
#define CLI_DOUBLE(n, a, T, f, l, u, above, h)                                                     \
    {                                                                                              \
        .kind = CLI_F_DOUBLE, .name = (n), .alias = (a), .at = CLI_FIELD_(T, f, double),           \
        .lo = (l), .hi = (u), .above_lo = (above), .help = (h)                                     \
    }
#define CLI_CHOICE(n, a, T, f, set, h)                                                             \
    {                                                                                              \
        .kind = CLI_F_CHOICE, .name = (n), .alias = (a), .at = CLI_FIELD_(T, f, int),              \
        .choices = (set), .help = (h)                                                              \
    }
#define CLI_LIST(n, a, T, f, cnt, set, max, msg, h)                                                \
    {                                                                                              \
        .kind = CLI_F_LIST, .name = (n), .alias = (a), .at = offsetof(T, f),                       \
        .count_at = CLI_FIELD_(T, cnt, size_t), .choices = (set), .cap = (max), .too_many = (msg), \
        .help = (h)                                                                                \
    }
#define CLI_WORDS(n, T, f, cnt, h)                                                                 \
    {                                                                                              \
        .kind = CLI_F_WORDS, .name = (n), .at = CLI_FIELD_(T, f, char **),                         \
        .count_at = CLI_FIELD_(T, cnt, size_t), .help = (h)                                        \
    }
#define CLI_HANDLER(n, a, fn, set, h)                                                              \
    {                                                                                              \
        .kind = CLI_F_HANDLER, .name = (n), .alias = (a), .take = (fn), .choices = (set),          \
        .help = (h)                                                                                \
    }
#define CLI_INCLUDE(T, f, tab)                                                                     \
    {                                                                                              \
        .kind = CLI_F_INCLUDE, .at = offsetof(T, f), .table = (tab)                                \
    }
enum { CLI_FLAGS_HELP = -2 };
/** Takes argv[*i] (and its value, *i then points at it) when it is a flag of t: 1 taken, 0 not
    one of t's flags (a positional word or an unknown flag: the caller decides), -1 after a
    usage error (said: a missing value, a value out of range or set), CLI_FLAGS_HELP when it is
    --help or -h and usage printed the help to stdout (usage NULL: not taken). opts: the
    struct the table's offsets are in. */
int cli_flags_take(const char *cmd, const cli_flag_table *t, void (*usage)(FILE *), int argc,
                   char **argv, int *i, void *opts);
/** Parses argv[1..argc) of a command that takes the flags of t and one task, a quoted
    phrase: *task (NULL on entry) gets it. CLI_OK; CLI_FLAGS_HELP after usage printed --help;
    CLI_USAGE after saying why (a flag's error, an unknown flag, an unquoted task, no task:
    the usage error `missing`, an empty one). */
int cli_flags_take_task(const char *cmd, const cli_flag_table *t, void (*usage)(FILE *), int argc,
                        char **argv, void *opts, const char **task, const char *missing);
/** The --help text of t: its rows' help lines in order. */
void cli_flags_help(const cli_flag_table *t, FILE *out);
/** Visits every flag row of t (through its includes), in order. */
void cli_flags_each(const cli_flag_table *t, void (*fn)(const cli_flag *f, void *ctx), void *ctx);
/* Shared tables: their rows fill the struct named (cli_embed_flags, cli_llm_flags, ...). */
extern const cli_flag_table cli_embed_table;       /* embed_flags.c: cli_embed_flags, with --mode */
extern const cli_flag_table cli_embed_model_table; /* the same without --mode, --hybrid-weight */
/* --mode and --hybrid-weight checked, then refused as search options (never offered): for
   commands that build (index, add); into cli_embed_flags */
extern const cli_flag_table cli_embed_refused_table;
extern const cli_flag_table cli_llm_table;         /* cmd_agent.c: cli_llm_flags */
extern const cli_flag_table cli_write_table;       /* cmd_index.c: store_lock_options */
extern const cli_flag_table cli_serve_calls_table; /* call_args.c: cli_serve_calls */
/* Commands' tables (in cmd_*.c). */
extern const cli_flag_table cli_search_table;
extern const cli_flag_table cli_list_table;
extern const cli_flag_table cli_agent_table;
extern const cli_flag_table cli_eval_table;
extern const cli_flag_table cli_index_table;
extern const cli_flag_table cli_ask_table;
extern const cli_flag_table cli_show_table;
extern const cli_flag_table cli_tools_table;
extern const cli_flag_table cli_serve_table;
extern const cli_flag_table cli_mcp_table;
extern const cli_flag_table cli_mock_table;
extern const cli_flag_table cli_call_table;
extern const cli_flag_table cli_snippet_table;
extern const cli_flag_table cli_run_table;
extern const cli_flag_table cli_chunk_table;
extern const cli_flag_table cli_match_table;
extern const cli_flag_table cli_inspect_table;
extern const cli_flag_table cli_tokens_table;
extern const cli_flag_table cli_embed_cmd_table; /* apidex embed's own (cmd_embed.c) */
extern const cli_flag_table cli_model_table;
extern const cli_flag_table cli_stats_table;
extern const cli_flag_table cli_feedback_table;
extern const cli_flag_table cli_add_table;
extern const cli_flag_table cli_remove_table;

/* ---- the command table and what is generated from the flag tables or help text (help.c) */
typedef void (*cli_usage_fn)(FILE *out);
typedef struct cli_command {
    const char *name;
    cli_cmd_fn fn;
    cli_usage_fn usage; /* the command's --help text */
    const char *summary;
    /* the command's flags: the one source of its parse, --help, did-you-mean, completion and
       man page */
    const cli_flag_table *flags;
} cli_command;
/** The commands in the order `apidex --help` lists them; *n gets their count. */
const cli_command *cli_commands(size_t *n);
/** The command named name, or NULL. */
const cli_command *cli_command_find(const char *name);
/** `apidex --help`. */
void cli_usage_main(FILE *out);
enum { CLI_MAX_FLAGS = 96 };
/** The flags cmd knows (--db, -k, ...): its flag table's (but the unlisted), and --help;
    each once, into flags[0..cap) (they live until exit); returns how many. */
size_t cli_command_flags(const char *cmd, const char **flags, size_t cap);
/** The fixed values a flag takes (its table row's set): written to vals[0..cap)
    (NULL-terminated, living until exit); returns how many (0: free). */
size_t cli_flag_values(const char *cmd, const char *flag, const char **vals, size_t cap);
int cli_cmd_completion(int argc, char **argv);
int cli_cmd_man(int argc, char **argv);
/* Usage texts of each command (defined beside the command, cmd_*.c). */
void cli_usage_inspect(FILE *out);
void cli_usage_search(FILE *out);
void cli_usage_tokens(FILE *out);
void cli_usage_embed(FILE *out);
void cli_usage_model(FILE *out);
void cli_usage_chunk(FILE *out);
void cli_usage_stats(FILE *out);
void cli_usage_index(FILE *out);
void cli_usage_show(FILE *out);
void cli_usage_feedback(FILE *out);
void cli_usage_list(FILE *out);
void cli_usage_eval(FILE *out);
void cli_usage_serve(FILE *out);
void cli_usage_mock(FILE *out);
void cli_usage_mcp(FILE *out);
void cli_usage_tools(FILE *out);
void cli_usage_agent(FILE *out);
void cli_usage_ask(FILE *out);
void cli_usage_add(FILE *out);
void cli_usage_remove(FILE *out);
void cli_usage_call(FILE *out);
void cli_usage_run(FILE *out);
void cli_usage_snippet(FILE *out);
void cli_usage_match(FILE *out);
void cli_usage_completion(FILE *out);
void cli_usage_man(FILE *out);

/* ---- argument checks every command shares (args.c). Each prints "apidex CMD: what is
   wrong" and a one-line pointer to --help on stderr. */
/** Prints "apidex CMD: <message>" and the --help hint (cmd NULL: the top level); CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** value as a whole number in [min, max] into *out; false (after saying so) otherwise. */
bool cli_arg_long(const char *cmd, const char *flag, const char *value, long min, long max,
                  long *out);
bool cli_arg_size(const char *cmd, const char *flag, const char *value, size_t min, size_t max,
                  size_t *out);
/** value as a finite number in [min, max] ((min, max] when above_min) into *out. */
bool cli_arg_double(const char *cmd, const char *flag, const char *value, double min, double max,
                    bool above_min, double *out);
/** value is an IP address as --allow-address takes it (IPv4, IPv6, [IPv6]); false after saying
    it is not (naming the value). */
bool cli_arg_address(const char *cmd, const char *value);
/** Whether value is an --allow-host entry (exec_allow_entry_valid); else prints a usage error. */
bool cli_arg_allow_host(const char *cmd, const char *value);
/** value is an API id (spec_id_valid); false after saying what an id is. */
bool cli_arg_api_id(const char *cmd, const char *flag, const char *value);
/** The source "mcp+config:FILE" of `--mcp-config FILE` (lives until exit; NULL on OOM). */
const char *cli_mcp_config_source(const char *file);
/** Parses --max-load-memory N (or Nx): the budget of a document is 64 MiB + N x the bytes of
    its files (spec_options.load_memory_factor); false after a usage error. */
bool cli_arg_load_memory(const char *cmd, const char *value, unsigned *out);
/** The index of value in the NULL-terminated choices; -1 after naming them (and the nearest). */
int cli_arg_choice(const char *cmd, const char *flag, const char *value,
                   const char *const *choices);
/** An argument cmd does not take: a known flag without its value, a near flag (did you
    mean), or a stray word. Prints why; returns CLI_USAGE. */
int cli_arg_unknown(const char *cmd, const char *arg);
/** argv[i], a word after cmd's task: the task was not quoted. Names the word and the command
    with the task quoted (task and the words that follow); returns CLI_USAGE. */
int cli_arg_unquoted(const char *cmd, const char *task, int argc, char **argv, int i);
/** The candidate nearest to word (edit distance at most a third of it, or a unique prefix),
    or NULL. */
const char *cli_nearest(const char *word, const char *const *candidates, size_t n);
/** CLI_OK, or CLI_USAGE after "task is empty" when task is NULL, empty or whitespace. */
int cli_check_task(const char *cmd, const char *task);
/** value is a chunking strategy's name (hybrid, endpoint, ...); else says which are. */
bool cli_arg_strategy(const char *cmd, const char *flag, const char *value);
struct store_index;
/** Each of apis[0..n_apis) must name an API of the index (an id, alias, unique prefix or
    title: store_resolve_api) and is replaced by its id (owned by idx); else a usage error
    naming the closest ids. A CLI_* code. */
int cli_check_apis(const char *cmd, struct store_index *idx, const char **apis, size_t n_apis);
struct search_engine;
/** Opens the index at db read-only and its search engine: 0, or an APIDEX_* code with err set
    and *idx and *eng NULL (nothing left open). store_close and search_engine_close after. */
int cli_index_search_open(const char *db, struct store_index **idx, struct search_engine **eng,
                          apidex_error *err);
/** Prints what a writer built into b to stdout (failed, the writer's status: nothing) and
    frees b: CLI_OK, or CLI_FAILURE when failed. */
int cli_buf_print(core_buf *b, int failed);
/** --color WHEN for human output. */
typedef enum { CLI_COLOR_AUTO, CLI_COLOR_ALWAYS, CLI_COLOR_NEVER } cli_color;
/** The --color values, indexed by cli_color (NULL-terminated). */
extern const char *const cli_color_names[];
/** Parses a --color value; CLI_OK or CLI_USAGE (said). */
int cli_color_parse(const char *cmd, const char *value, cli_color *out);
/** Whether to colour out: always, never, or auto = a terminal, TERM not dumb, NO_COLOR unset. */
bool cli_color_enabled(cli_color when, FILE *out);
/** Colour for human output (paint.c): begin catches stdout when colour is on (NULL when
    off); end paints what was printed (headings, endpoints, labels) to the real stdout. */
FILE *cli_paint_begin(cli_color when);
void cli_paint_end(FILE *mem);
/** Runs the statement call with its stdout painted per --color. */
#define CLI_PAINTED(when, call)                                                                    \
    do {                                                                                           \
        FILE *cli_painted_ = cli_paint_begin(when);                                                \
        call;                                                                                      \
        cli_paint_end(cli_painted_);                                                               \
    } while (0)

/** The index file: the --db value if given, else $APIDEX_DB, else the db of the registry file
    ($APIDEX_REGISTRY or ./apidex.yaml) when it has one, else ./apidex.db (cmd_index.c). */
const char *cli_db_path(const char *flag);
struct registry_file;
/** The same for a run that has loaded its registry file rf (index, serve --watch): --db, else
    $APIDEX_DB, else rf's db, else ./apidex.db; never the db of another registry file. */
const char *cli_db_path_registry(const char *flag, const struct registry_file *rf);
/** The pause after each document of a build, in ms, from $APIDEX_TEST_INDEX_DELAY_MS (0 when
    unset): the tests' hook to kill or race a build midway (index, add, remove, serve --watch;
    docs/INDEX.md). Read here alone (cmd_index.c). */
unsigned cli_index_test_delay_ms(void);
/** How cli_build_index reports: progress bar, diagnostics, errors as JSON objects. */
typedef struct cli_index_flags {
    bool progress, quiet, verbose;
    core_buf *errors_json; /* NULL, or gets one JSON object per error, comma-separated */
    const char *api_name;  /* --name: the id of the one API the paths hold (NULL: derived) */
    unsigned load_memory;  /* --max-load-memory (0: $APIDEX_MAX_LOAD_MEMORY, else 32) */
} cli_index_flags;
struct build_options;
struct store_build_report;
struct store_lock_options;
/** Loads paths and builds the index db (cmd_index.c); returns a CLI_* exit code. */
int cli_build_index(const char *db, char *const *paths, size_t n_paths,
                    const struct build_options *opt, const cli_index_flags *flags,
                    struct store_build_report *rep, apidex_error *err);
/** The CLI_* exit code of a build_index status. */
int cli_build_status(int rc);

/* ---- what the writers (index, add, remove) share (cmd_index.c) */
/** Makes lock announce the wait ("waiting for pid N") for db on stderr. */
void cli_write_tell_wait(struct store_lock_options *lock, const char *db);
/** The API ids a build added, updated and removed (build_options.on_change). */
typedef struct cli_changes {
    core_buf ids[3]; /* per store_change - 1: NUL-separated ids */
    size_t n[3];
} cli_changes;
/** Sets opt->on_change to collect into c (initialised here; cli_changes_free). */
void cli_changes_collect(cli_changes *c, struct build_options *opt);
void cli_changes_free(cli_changes *c);
/** The summary of a build: text on stderr (unless quiet) or JSON on stdout, with what was
    added, updated and removed. errors: the JSON error objects (may be NULL). */
void cli_print_build(const char *verb, const char *db, const struct store_build_report *rep,
                     const cli_changes *c, const core_buf *errors, bool json, bool quiet,
                     bool embedded);

struct registry_file;
/** Loads the sources of a registry file (ids, tag filters, overrides) and builds db
    (cmd_index.c); returns a CLI_* exit code. */
int cli_build_registry(const char *db, const struct registry_file *rf,
                       const struct build_options *opt, const cli_index_flags *flags,
                       struct store_build_report *rep, apidex_error *err);

/** serve --watch (serve_watch.c): loads the registry file (registry_flag, else the default),
    builds the index once, then follows the registry on a thread. *db_out: the index file
    (db_flag, $APIDEX_DB, the registry's db or ./apidex.db). A CLI_* code. */
typedef struct cli_serve_watch cli_serve_watch;
int cli_serve_watch_start(const char *registry_flag, const char *db_flag, const char **db_out,
                          cli_serve_watch **out);
/** Stops the loop after the build that runs, and frees. NULL is a no-op. */
void cli_serve_watch_stop(cli_serve_watch *sw);

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
/** Flags over env over config file. */
int cli_llm_resolve(const cli_llm_flags *f, struct agent_llm_config *c, apidex_error *err);
/** Opens the configured LLM (*out NULL when none and !required); prints why not. CLI_* code. */
int cli_llm_open(const cli_llm_flags *f, bool required, struct agent_llm **out);
/** index --strategy summary|query with an LLM configured (and not no_llm): LLM texts. */
typedef struct cli_llm_refine cli_llm_refine;
int cli_llm_refine_begin(struct build_options *opt, const cli_llm_flags *f, bool no_llm,
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

/* ---- stderr (error_print.c) */
/** A progress trace of the agents (agent, run): "apidex CMD: EVENT: detail" on stderr, the
    detail's first line cut to 200 bytes. cmd: the command's name (a const char *). */
void cli_trace_stderr(void *cmd, const char *event, const char *detail);
/** Prints "apidex: <message>" and the location of err to stderr. */
void cli_print_error(const apidex_error *err);

/* ---- call and snippet (call_args.c): the operation named on the command line, reloaded
   from its document, and the request built for it */
struct store_operation;
/** The operations of ops that `what` names: an id, "METHOD /path" (exact path first, then
    placeholders by position) or an operationId, optionally only API api. Returns how many;
    their indexes go to found[0..min(n, cap)) (cmd_show.c). */
size_t cli_find_operations(const struct store_operation *ops, size_t n_ops, const char *what,
                           const char *api, long *found, size_t cap);
/** Says on stderr that `what` (in API api, or any) names no operation of db, with the nearest
    ones ("did you mean ...?") or where ids come from (cmd_show.c). */
void cli_no_operation(const char *cmd, const struct store_operation *ops, size_t n_ops,
                      const char *what, const char *api, const char *db);
typedef struct cli_call_args {
    const char *what, *api, *db, *body, *server, *content_type, *lang;
    const char **params; /* -p name=value, argv strings */
    size_t n_params;
    bool dry_run, json;
    /* call only: the transport's rules and the response's shape */
    bool allow_write, allow_private;
    const char **hosts; /* --allow-host, argv strings */
    size_t n_hosts;
    const char **addresses; /* --allow-address, argv strings */
    size_t n_addresses;
    long timeout_ms;  /* --timeout SECONDS; 0: the default */
    size_t max_bytes; /* --max-bytes; 0: the default */
    const char *select;
    size_t budget, max_items;
    struct exec_oauth *oauth; /* OAuth2 tokens for the request (NULL: only env tokens) */
} cli_call_args;
/** Parses call's or snippet's flags (its table t, whose offsets are into cli_call_args).
    Returns CLI_OK, a usage error, or -1 after printing --help (exit 0). a->params, a->hosts,
    a->addresses: free() them. */
int cli_call_parse(const char *cmd, const cli_flag_table *t, void (*usage)(FILE *), int argc,
                   char **argv, cli_call_args *a);
/** The handlers of call's and snippet's table rows: -p/--param, --allow-host, --allow-address
    (checked), --timeout SECONDS and the sizes --max-bytes, --budget, --max-items (positive). */
int cli_call_take_param(const char *cmd, const char *flag, const char *value, void *opts);
int cli_call_take_host(const char *cmd, const char *flag, const char *value, void *opts);
int cli_call_take_address(const char *cmd, const char *flag, const char *value, void *opts);
int cli_call_take_timeout(const char *cmd, const char *flag, const char *value, void *opts);
int cli_call_take_max_bytes(const char *cmd, const char *flag, const char *value, void *opts);
int cli_call_take_budget(const char *cmd, const char *flag, const char *value, void *opts);
int cli_call_take_max_items(const char *cmd, const char *flag, const char *value, void *opts);
struct exec_request;
struct exec_build_options;
typedef struct cli_call_target cli_call_target;
/** Opens the index, finds the one operation a names, reloads its API's document and builds
    the request (placeholders: credentials as variable references, for snippets). Prints
    what is wrong ("apidex CMD: ..."); returns a CLI_* code. *out: cli_call_target_free. */
int cli_call_build(const char *cmd, const cli_call_args *a, bool placeholders,
                   cli_call_target **out, struct exec_request **request);
void cli_call_target_free(cli_call_target *t);
struct spec_api;
struct spec_operation;
/** The loaded API and operation the request was built for. */
const struct spec_api *cli_call_target_api(const cli_call_target *t);
const struct spec_operation *cli_call_target_op(const cli_call_target *t);
/** An MCP tool's id when the target is one (cli_call_build then builds no request: *request
    is NULL), with its --body (read from @file) in *body; else NULL. */
const char *cli_call_target_tool(const cli_call_target *t, const char **body);
/* ---- the servers' calls (call_args.c): serve and mcp's --allow-calls and the rules with it */
enum { CLI_MAX_ALLOW = 32 };
typedef struct cli_serve_calls {
    bool allow_calls, allow_write, allow_private;
    const char *hosts[CLI_MAX_ALLOW + 1]; /* --allow-host, argv strings */
    size_t n_hosts;
    const char *addresses[CLI_MAX_ALLOW + 1]; /* --allow-address, argv strings */
    size_t n_addresses;
    long timeout_ms;            /* --call-timeout SECONDS; 0: the default */
    struct exec_oauth *oauth;   /* made by cli_serve_calls_open */
    struct mcpc_pool *sessions; /* MCP sessions kept open, made by cli_serve_calls_open */
} cli_serve_calls;
struct serve_call_config;
/** After parsing: a rule flag without --allow-calls is APIDEX_EINVAL (err says so); else cfg
    is filled (enabled with --allow-calls, an OAuth2 token cache made) and 0 returned.
    cli_serve_calls_close after. */
int cli_serve_calls_open(cli_serve_calls *c, struct serve_call_config *cfg, apidex_error *err);
void cli_serve_calls_close(cli_serve_calls *c);
/* ---- what serve and mcp answer with (server_run.c) */
typedef struct cli_server cli_server;
struct agent_llm;
struct mcp_server_options;
struct serve_db;
struct mcp_server;
/** Opens what `apidex CMD` (serve, mcp) answers with: the search of embed (--mode) weighing
    reported uses by usage_prior, answering from all versions or the newest (all_versions),
    and the LLM of llm (NULL: none, context only). A CLI_* code (said); *out then NULL.
    cli_server_free after. */
int cli_server_new(const char *cmd, const cli_embed_flags *embed, double usage_prior,
                   int all_versions, const cli_llm_flags *llm, cli_server **out);
/** The LLM it answers with, NULL when none. */
struct agent_llm *cli_server_llm(const cli_server *s);
/** Opens the call rules of calls (borrowed until cli_server_free), the index at db_path
    (looked for again every interval seconds) and the MCP server of mo (its llm and calls set
    here). 0 or an APIDEX_* code with err set: cli_server_failed says it. */
int cli_server_open(cli_server *s, const char *db_path, double interval, cli_serve_calls *calls,
                    struct mcp_server_options *mo, apidex_error *err);
struct serve_db *cli_server_db(const cli_server *s);
struct mcp_server *cli_server_mcp(const cli_server *s);
const struct serve_call_config *cli_server_calls(const cli_server *s);
/** Prints err (and, for a missing index, how to build it at db_path); the CLI_* code. */
int cli_server_failed(const cli_server *s, const char *db_path, int rc, const apidex_error *err);
/** Appends "search: ...; ASK: ...; calls: ..." of the start line (ask: "ask", "ask_api"). */
void cli_server_describe(const cli_server *s, const char *ask, core_buf *out);
/** Closes the MCP server, the index, the call rules, the LLM and the embedder; NULL: no-op. */
void cli_server_free(cli_server *s);
/** Makes SIGINT and SIGTERM call on_stop and ignores SIGPIPE. */
void cli_signals_catch(void (*on_stop)(int sig));
/** Makes SIGINT and SIGTERM wake cli_stop_wait and ignores SIGPIPE: CLI_OK, or CLI_FAILURE
    after "apidex CMD: pipe: why". */
int cli_stop_on_signals(const char *cmd);
/** Waits for SIGINT or SIGTERM, then says "apidex CMD: stopping (signal N)" on stderr. */
void cli_stop_wait(const char *cmd);
/** Writes "PORT\n" to path (NULL, or a file that cannot be written: nothing). */
void cli_port_file_write(const char *path, unsigned port);

/** True when stderr is a terminal (progress bars). */
int cli_stderr_is_tty(void);

#endif
