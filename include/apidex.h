/*
 * apidex: find the API endpoints a task needs in any number of OpenAPI documents.
 *
 * The public C API. Handles are opaque; every fallible function returns an int
 * status (APIDEX_OK = 0, negative APIDEX_E* codes otherwise) and fills a
 * caller-provided apidex_error with a message and, where known, the location
 * (file, line:col, JSON pointer) of the problem. Enums only ever grow.
 */
#ifndef APIDEX_H
#define APIDEX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version, in this one place: CMakeLists.txt reads these three lines for the project
   version (apidex.pc, the shared library's version), and apidex_version(), --version, MCP
   serverInfo and /healthz show APIDEX_VERSION_STRING. CHANGELOG.md says what changed. */
#define APIDEX_VERSION_MAJOR   0
#define APIDEX_VERSION_MINOR   2
#define APIDEX_VERSION_PATCH   0
#define APIDEX_VERSION_STR_(x) #x
#define APIDEX_VERSION_STR(x)  APIDEX_VERSION_STR_(x)
/** "MAJOR.MINOR.PATCH" */
#define APIDEX_VERSION_STRING                                                                      \
    APIDEX_VERSION_STR(APIDEX_VERSION_MAJOR)                                                       \
    "." APIDEX_VERSION_STR(APIDEX_VERSION_MINOR) "." APIDEX_VERSION_STR(APIDEX_VERSION_PATCH)

/** Status codes. 0 is success; errors are negative and only ever added to. */
enum apidex_status {
    APIDEX_OK = 0,
    APIDEX_EINVAL = -1,        /* bad argument or usage */
    APIDEX_ENOMEM = -2,        /* out of memory */
    APIDEX_EIO = -3,           /* file or network I/O failed */
    APIDEX_EPARSE = -4,        /* document is not valid JSON/YAML */
    APIDEX_ELIMIT = -5,        /* a safety limit was exceeded (size, depth, aliases, refs) */
    APIDEX_EREF = -6,          /* a $ref could not be resolved or was refused */
    APIDEX_ESPEC = -7,         /* valid JSON/YAML but not an OpenAPI/Swagger document */
    APIDEX_ENOTFOUND = -8,     /* the named thing does not exist */
    APIDEX_EVERSION = -9,      /* index or file format of another version */
    APIDEX_EDB = -10,          /* database error */
    APIDEX_ENET = -11,         /* network error or refused remote access */
    APIDEX_EUNSUPPORTED = -12, /* not available in this build or on this input */
    APIDEX_EBUSY = -13,        /* another process holds the index's writer lock */
    APIDEX_EREFUSED = -14      /* refused by a safety rule (a build that would remove most of
                                  the index, or a file that is not an apidex index) */
};

/** Where and why something failed. Fixed-size so it can live on the stack. */
typedef struct apidex_error {
    int code;           /* an apidex_status; 0 when nothing went wrong */
    char message[512];  /* human-readable, one line */
    char file[1024];    /* file or URL the problem is in, "" if none */
    unsigned line, col; /* 1-based; 0 when unknown */
    char pointer[512];  /* JSON pointer inside the document, "" if none */
} apidex_error;

/** The library version as "MAJOR.MINOR.PATCH". Static storage; thread-safe. */
const char *apidex_version(void);

/** A short constant description of a status code ("out of memory", ...). */
const char *apidex_strerror(int code);

/* ------------------------------------------------------------------ searching an index */

/** An open index (built by `apidex index`). Thread-safe: searches may run concurrently. */
typedef struct apidex_index apidex_index;

/**
 * Opens the index file at path read-only and prepares its search engine. path may also be
 * a PostgreSQL URL ("postgres://..."): the generation published there is loaded.
 * Errors: APIDEX_ENOTFOUND, APIDEX_EVERSION (another index format), APIDEX_EDB, APIDEX_ENET.
 * *out is owned by the caller: apidex_index_close.
 */
int apidex_index_open(const char *path, apidex_index **out, apidex_error *err);
/** NULL is a no-op. Results of this index must be freed before. */
void apidex_index_close(apidex_index *idx);

/** Search options; zero means the default for every field. */
typedef struct apidex_search_options {
    size_t k;        /* distinct endpoints to return (default 10) */
    int adaptive;    /* non-zero: only what the task needs (primaries and their producers) */
    const char *api; /* only this API id (NULL = all) */
    size_t budget;   /* > 0: also assemble the endpoints and their schemas as markdown
                        within this many cl100k tokens */
} apidex_search_options;

/** One endpoint of a result, in call order. Strings live as long as the index. */
typedef struct apidex_hit {
    const char *id; /* "api:operationId" or "api:METHOD /path" */
    const char *api;
    const char *method;  /* "GET", "POST", ... */
    const char *path;    /* as written in the spec */
    const char *summary; /* NULL if none */
    double score;
    int producer;      /* non-zero: added because a later hit needs what it returns */
    const char *needs; /* "movie_id <- api:opId; ..." or "" */
    double confidence; /* in [0, 1], calibrated: about that share of test tasks at the same
                          evidence had this endpoint right (docs/SEARCH.md) */
} apidex_hit;

typedef struct apidex_results apidex_results;

/** Finds the endpoints that solve task. *out: apidex_results_free. Thread-safe. */
int apidex_search(apidex_index *idx, const char *task, const apidex_search_options *opt,
                  apidex_results **out, apidex_error *err);
size_t apidex_results_count(const apidex_results *res);
/** The i-th hit (NULL when out of range). Owned by res. */
const apidex_hit *apidex_results_hit(const apidex_results *res, size_t i);
/** How well the index fits the task: "strong", "weak" (the hits may not do it) or "none"
    (nothing in the index fits), and the answer's calibrated confidence in [0, 1]. */
const char *apidex_results_match(const apidex_results *res);
double apidex_results_confidence(const apidex_results *res);
/** The assembled context (markdown), or NULL when no budget was given. Owned by res. */
const char *apidex_results_context(const apidex_results *res);
/** NULL is a no-op. */
void apidex_results_free(apidex_results *res);

#ifdef __cplusplus
}
#endif
#endif /* APIDEX_H */
