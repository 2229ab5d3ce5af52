/*
 * core: the pieces every stage uses. Arenas (one per document or request, freed
 * in one call), capped growable buffers, errors and diagnostics with locations,
 * an immutable JSON/YAML tree with source positions, file reading and hashing.
 *
 * Design notes
 * - Parsed documents are read-only trees that live in one arena. JSON is parsed
 *   by jt_parse_json.c straight into the tree (what json-c 0.16 accepted, the same
 *   trees: no document reads differently since apidex stopped parsing with json-c
 *   and copying its tree) and YAML by libfyaml's event parser; both become the same
 *   jt_node tree, so later stages never care which syntax a spec was written in.
 * - YAML nodes carry their line:col from the parser. JSON nodes do not, so JSON
 *   positions are found on demand (jt_doc_locate) by scanning the source text
 *   along the JSON pointer: diagnostics are rare, parsing is not.
 * - YAML aliases share the anchored node (the tree is a DAG, never a copy). A
 *   document whose aliases would expand past a limit (billion laughs) is refused.
 * - Every buffer that input can grow has a cap; exceeding it is an error, not an
 *   allocation.
 */
#ifndef APIDEX_CORE_H
#define APIDEX_CORE_H

#include "apidex.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- errors */

/** Fill err (may be NULL) with code and a printf-style message; returns code. */
int core_error_set(apidex_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Set the location part of err (file may be NULL, pointer may be NULL). */
void core_error_at(apidex_error *err, const char *file, unsigned line, unsigned col,
                   const char *pointer);
/** Reset err to "no error". */
void core_error_clear(apidex_error *err);

/* ---------------------------------------------------------------- arena */

/** A bump allocator: many small allocations, one free. Not thread-safe. */
typedef struct core_arena core_arena;

/** A new arena; cap_bytes > 0 limits its total size (0 = unlimited). NULL on OOM. */
core_arena *core_arena_new(size_t cap_bytes);
/** Frees every allocation of the arena. NULL is a no-op. */
void core_arena_free(core_arena *a);
/** size bytes aligned to 16; NULL when out of memory or over the cap. */
void *core_arena_alloc(core_arena *a, size_t size);
/** Zeroed allocation. */
void *core_arena_calloc(core_arena *a, size_t n, size_t size);
/** Copy of s[0..n) plus a NUL terminator. */
char *core_arena_strndup(core_arena *a, const char *s, size_t n);
char *core_arena_strdup(core_arena *a, const char *s);
char *core_arena_printf(core_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Bytes handed out so far. */
size_t core_arena_used(const core_arena *a);

/* ---------------------------------------------------------------- memory budget (budget.c) */

/**
 * Bytes charged against a limit: what one document may hold while it is loaded and
 * indexed (docs/INDEX.md, "Load limits"). Arenas with a budget charge every block they
 * allocate and release it when freed; the JSON parser charges its scratch. Used by one
 * thread at a time (the one loading or indexing that document); not thread-safe.
 */
typedef struct core_budget {
    size_t limit;   /* bytes; 0 = unlimited */
    size_t used;    /* charged now */
    size_t peak;    /* the most charged at once */
    size_t over_by; /* the largest charge refused (0: none) */
    bool over;      /* a charge was refused */
    char note[160]; /* how the limit was set, for the error ("64 MiB + 32 x ...") */
} core_budget;

/** Charges n bytes: false (nothing charged, over set) when used + n would pass the limit.
    A NULL budget takes everything. */
bool core_budget_charge(core_budget *b, size_t n);
/** Gives n charged bytes back. NULL is a no-op. */
void core_budget_release(core_budget *b, size_t n);
/** Sets err to APIDEX_ELIMIT "loading needs more memory than its budget of N MiB (note)";
    returns APIDEX_ELIMIT. */
int core_budget_error(const core_budget *b, apidex_error *err);
/** Charges every allocation of a from now on to b (NULL: none), released when a is freed.
    b must outlive a. An allocation the budget refuses returns NULL. */
void core_arena_set_budget(core_arena *a, core_budget *b);

/* ---------------------------------------------------------------- growable arrays */

/**
 * Makes room for item n of a growable array: when n == *cap, *items_ptr (the address of a
 * T * array, NULL when empty) is reallocated to `first` items when empty, else to twice
 * *cap, and *cap updated. The size math is overflow-checked: a capacity or byte count past
 * SIZE_MAX is APIDEX_ENOMEM, as is a failed realloc, and then the array and *cap are as they
 * were. Returns 0 or APIDEX_ENOMEM. Callers keep their own limits on n (input caps).
 */
int core_array_grow(void *items_ptr, size_t *cap, size_t n, size_t elem, size_t first);
/** core_array_grow for two arrays of one count and capacity (paired arrays, items of elem_a
    and elem_b bytes): both grown, or *cap as it was (an array already grown stays so, and is
    still owned by its pointer). 0 or APIDEX_ENOMEM. */
int core_array_grow2(void *a_ptr, size_t elem_a, void *b_ptr, size_t elem_b, size_t *cap, size_t n,
                     size_t first);

/**
 * core_array_grow for an array taken from arena a: when n == *cap, a new array of `first`
 * items (when empty) or twice *cap is taken from a, zeroed, with one more zeroed item past
 * the new capacity (a list of pointers stays NULL-terminated), and the *cap items of the old
 * one copied in (the old one stays in the arena until it is freed). Overflow-checked like
 * core_array_grow; on failure the array and *cap are as they were. 0 or APIDEX_ENOMEM.
 */
int core_arena_array_grow(core_arena *a, void *items_ptr, size_t *cap, size_t n, size_t elem,
                          size_t first);

/* ---------------------------------------------------------------- buffer */

/** A growable, always NUL-terminated byte buffer with a hard cap (curl's dynbuf). */
typedef struct core_buf {
    char *data;
    size_t len, cap_alloc, max; /* max = 0: default cap (1 GiB) */
    bool failed;                /* set once an append hit the cap or OOM */
} core_buf;

void core_buf_init(core_buf *b, size_t max);
void core_buf_free(core_buf *b);
void core_buf_reset(core_buf *b);
/** Appends; returns 0 or APIDEX_ENOMEM/APIDEX_ELIMIT (and sets b->failed). */
int core_buf_append(core_buf *b, const void *p, size_t n);
int core_buf_puts(core_buf *b, const char *s);
int core_buf_putc(core_buf *b, char c);
int core_buf_printf(core_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int core_buf_vprintf(core_buf *b, const char *fmt, va_list ap);
/** Appends s as a JSON string literal (quotes included, UTF-8 passed through). */
int core_buf_json_str(core_buf *b, const char *s, size_t n);
/** The NUL-terminated s as a JSON string literal, or `null` when s is NULL. */
int core_buf_json_str_or_null(core_buf *b, const char *s);
/** Hands the data to the caller (malloc'd, NUL-terminated) and resets b. */
char *core_buf_steal(core_buf *b, size_t *len);

/* ---------------------------------------------------------------- edit distance (edit.c) */

/** Longest string core_edit_distance compares (longer ones are cap away). */
#define CORE_EDIT_MAX 256
/** Case-insensitive optimal-string-alignment distance (insert, delete, substitute, swap two
    neighbours) between a[0..la) and b[0..lb), or cap when it is cap or more. */
size_t core_edit_distance(const char *a, size_t la, const char *b, size_t lb, size_t cap);

/* ---------------------------------------------------------------- files */

/**
 * Opens a regular file for reading: FIFOs, sockets, devices and directories are refused at
 * once (never waited on) with err naming the path and what it is. Returns NULL on failure;
 * the caller fcloses the FILE.
 */
FILE *core_file_open_regular(const char *path, apidex_error *err);
/** Reads a whole file into malloc'd memory (NUL-terminated), refusing files over max_bytes
    and anything that is not a regular file (core_file_open_regular). */
int core_file_read(const char *path, size_t max_bytes, char **out, size_t *out_len,
                   apidex_error *err);
/** 64-bit content hash (xxh3). */
uint64_t core_hash64(const void *p, size_t n);
/** Hex of a 64-bit hash into out[17]. */
void core_hash_hex(uint64_t h, char out[17]);
/** Monotonic clock in seconds. */
double core_now(void);
/** Sleeps ms milliseconds (resumed after signals). */
void core_sleep_ms(unsigned ms);
/**
 * The server's own words from the error body of an OpenAI-compatible API:
 * {"error": {"message": ...}}, {"error": "..."} (TEI, Ollama), {"detail": ...} (vLLM,
 * FastAPI), else the first 200 bytes of the body. One line (newlines become spaces);
 * "" when the body is empty.
 */
void core_api_error_message(const char *body, size_t len, char *out, size_t cap);

/* ---------------------------------------------------------------- diagnostics */

typedef enum { CORE_DIAG_WARNING = 1, CORE_DIAG_ERROR = 2 } core_diag_level;

/** One warning or error with its location. Strings are owned by the list. */
typedef struct core_diag {
    core_diag_level level;
    int code;
    const char *message;
    const char *file;    /* "" if none */
    unsigned line, col;  /* 0 when unknown */
    const char *pointer; /* "" if none */
} core_diag;

/** A list of diagnostics (at most `max`, further ones are counted, not stored). */
typedef struct core_diags {
    core_diag *items;
    size_t n, cap, max, dropped;
    core_arena *arena;
} core_diags;

void core_diags_init(core_diags *d, size_t max);
void core_diags_free(core_diags *d);
void core_diags_add(core_diags *d, core_diag_level level, int code, const char *file, unsigned line,
                    unsigned col, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
/** Adds an apidex_error as a diagnostic of the given level. */
void core_diags_add_error(core_diags *d, core_diag_level level, const apidex_error *e);
size_t core_diags_count(const core_diags *d, core_diag_level level);

/* ---------------------------------------------------------------- JSON/YAML tree */

typedef enum { JT_NULL = 0, JT_BOOL, JT_INT, JT_REAL, JT_STRING, JT_ARRAY, JT_OBJECT } jt_type;

typedef struct jt_node jt_node;

typedef struct jt_member {
    const char *key;
    uint32_t key_len;
    jt_node *value;
} jt_member;

struct jt_node {
    uint8_t type;    /* jt_type */
    uint8_t boolean; /* JT_BOOL value */
    uint16_t reserved;
    uint32_t len;  /* string bytes, array items, object members */
    uint32_t line; /* 1-based source line, 0 = unknown (JSON: see jt_doc_locate) */
    uint32_t col;  /* 1-based source column */
    union {
        int64_t i;
        double d;
        const char *s; /* NUL-terminated, len bytes (may contain NUL for JSON "\u0000") */
        jt_node **items;
        jt_member *members;
    } u;
    uint32_t *index; /* objects with many members: open-addressing hash of member slots */
};

/** Limits applied while parsing; 0 in a field means "use the default". */
typedef struct jt_limits {
    size_t max_bytes;    /* default 64 MiB */
    unsigned max_depth;  /* default 512 */
    size_t max_nodes;    /* default 20 million (counting alias expansion) */
    core_budget *budget; /* charged for the text, the tree and (JSON) the parser's scratch
                            while it lives; NULL = none. Must outlive the document */
} jt_limits;

typedef enum { JT_FORMAT_JSON = 1, JT_FORMAT_YAML = 2 } jt_format;

/** A parsed document: the tree, its arena and (for locating) its source text. */
typedef struct jt_doc {
    jt_node *root;
    jt_format format;
    const char *file; /* path or URL as given; owned by the arena */
    char *text;       /* the source (malloc'd), kept for jt_doc_locate */
    size_t text_len;
    core_arena *arena;
    core_budget *budget;                          /* charged for text (see jt_limits) */
    size_t invalid_utf8;                          /* bytes not valid UTF-8, replaced by '?' */
    unsigned invalid_utf8_line, invalid_utf8_col; /* where the first of them was */
} jt_doc;

/**
 * Parses text (JSON or YAML, detected by content: JSON when the first
 * non-blank byte is '{' or '[' and the JSON parser accepts it, YAML otherwise).
 * Takes ownership of text (malloc'd) in every case. On failure err names the
 * file and line:col of the syntax error. *out is owned by the caller: jt_doc_free.
 */
int jt_doc_parse(char *text, size_t len, const char *file, const jt_limits *lim, jt_doc **out,
                 apidex_error *err);
/** Reads and parses a file (size checked against lim->max_bytes first). */
int jt_doc_load(const char *path, const jt_limits *lim, jt_doc **out, apidex_error *err);
/** NULL is a no-op. */
void jt_doc_free(jt_doc *doc);

/**
 * The 1-based line:col of the value at `pointer` (RFC 6901) in doc's source.
 * Uses the node's own position when the parser recorded one. Returns false
 * when the pointer does not lead anywhere.
 */
bool jt_doc_locate(const jt_doc *doc, const char *pointer, unsigned *line, unsigned *col);

/** Member value of an object by key (NULL if absent or not an object). */
const jt_node *jt_get(const jt_node *obj, const char *key);
const jt_node *jt_getn(const jt_node *obj, const char *key, size_t key_len);
/** Array item (NULL if out of range or not an array). */
const jt_node *jt_at(const jt_node *arr, size_t i);
/** The string of a JT_STRING node, or NULL. */
const char *jt_str(const jt_node *n);
/** Member string value, or NULL. */
const char *jt_get_str(const jt_node *obj, const char *key);
/** Boolean value of a member (dflt when absent or not a boolean). */
bool jt_get_bool(const jt_node *obj, const char *key, bool dflt);
/** Number value as double (JT_INT or JT_REAL), dflt otherwise. */
double jt_num(const jt_node *n, double dflt);
bool jt_is(const jt_node *n, jt_type t);

/**
 * Follows a JSON pointer ("" = root, "/a/b~1c/0") from node. Handles ~0/~1
 * (RFC 6901); a pointer taken from a URI fragment must be percent-decoded by the
 * caller first (spec does). NULL if it leads nowhere.
 */
const jt_node *jt_pointer(const jt_node *root, const char *pointer);
/** Appends one escaped pointer token ("/" + key with ~ and / escaped) to b. */
int jt_pointer_append(core_buf *b, const char *key, size_t key_len);

/* Building nodes (for normalisation, e.g. Swagger 2.0 → OAS 3 shapes). */
jt_node *jt_new_string(core_arena *a, const char *s, size_t len);
jt_node *jt_new_bool(core_arena *a, bool v);
jt_node *jt_new_array(core_arena *a, size_t n);  /* items zeroed; len = n */
jt_node *jt_new_object(core_arena *a, size_t n); /* members zeroed; len = n */
/** Builds the hash index of an object with many members (call after filling it). */
void jt_object_finish(core_arena *a, jt_node *obj);

/** Serialises n as JSON (compact when indent < 0, else pretty with that many spaces). */
int jt_write_json(core_buf *b, const jt_node *n, int indent);

struct json_object;
/**
 * n as a json-c value (jt_json.c): members in document order, integers as int64, reals as
 * doubles. NULL stands for JSON null, for n NULL, and for a node nested deeper than
 * max_depth levels below n (n itself is level 0), so the recursion is bounded. The caller owns the
 * result (json_object_put).
 */
struct json_object *jt_to_json_object(const jt_node *n, unsigned max_depth);
/**
 * Adds key: value to json-c object obj (jt_json.c), taking value; on failure (out of
 * memory) value is put and false returned. The one json-c member adder of the stages that
 * write json-c (serve_jadd is this one under serve's name).
 */
bool core_json_add(struct json_object *obj, const char *key, struct json_object *value);

/* ---------------------------------------------------------------- listen (listen.c) */

struct sockaddr_storage;
/** --listen HOST:PORT (numeric IPv4, [IPv6], localhost; empty host = 127.0.0.1) into *ss
    (*len its size) and whether it is a loopback address. APIDEX_EINVAL names the problem. */
int core_listen_parse(const char *listen, struct sockaddr_storage *ss, size_t *len, bool *loopback,
                      apidex_error *err);

/* ---------------------------------------------------------------- system (sys.c) */
/* What differs between systems, behind one call each: the Linux calls where there are
   any, a POSIX fallback everywhere else (and in a build with -DAPIDEX_PORTABLE_ONLY=ON,
   which tests the fallbacks on Linux). docs/INSTALL.md lists them. */

/** Processors this process may run on (sched_getaffinity; else the online processors), >= 1. */
int core_sys_cpu_count(void);
/** pipe(2) with both ends close-on-exec (pipe2 where there is one). 0 or -1 with errno. */
int core_sys_pipe_cloexec(int fds[2]);
/**
 * The running program's own file into out[cap] (/proc/self/exe on Linux; else argv0 as
 * core_sys_exe_from_argv0 resolves it). 0, or -1 when it cannot be found.
 */
int core_sys_self_exe(const char *argv0, char *out, size_t cap);
/**
 * The file a shell would have run for argv0: a name with a '/' as a real path, else the
 * first executable regular file of that name in the folders of $PATH (as a real path).
 * 0, or -1 when there is none. The fallback of core_sys_self_exe (tested on every system).
 */
int core_sys_exe_from_argv0(const char *argv0, char *out, size_t cap);
/**
 * Copies the size bytes of file in into file out (both at offset 0): a reflink
 * (FICLONE) or copy_file_range on Linux, read/write everywhere. 0, or -1 with errno.
 */
int core_sys_copy_file(int in, int out, int64_t size);

#endif /* APIDEX_CORE_H */
