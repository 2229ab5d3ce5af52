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

#define APIDEX_VERSION_MAJOR  0
#define APIDEX_VERSION_MINOR  1
#define APIDEX_VERSION_PATCH  0
#define APIDEX_VERSION_STRING "0.1.0"

/** Status codes. 0 is success; errors are negative and only ever added to. */
enum apidex_status {
    APIDEX_OK = 0,
    APIDEX_EINVAL = -1,       /* bad argument or usage */
    APIDEX_ENOMEM = -2,       /* out of memory */
    APIDEX_EIO = -3,          /* file or network I/O failed */
    APIDEX_EPARSE = -4,       /* document is not valid JSON/YAML */
    APIDEX_ELIMIT = -5,       /* a safety limit was exceeded (size, depth, aliases, refs) */
    APIDEX_EREF = -6,         /* a $ref could not be resolved or was refused */
    APIDEX_ESPEC = -7,        /* valid JSON/YAML but not an OpenAPI/Swagger document */
    APIDEX_ENOTFOUND = -8,    /* the named thing does not exist */
    APIDEX_EVERSION = -9,     /* index or file format of another version */
    APIDEX_EDB = -10,         /* database error */
    APIDEX_ENET = -11,        /* network error or refused remote access */
    APIDEX_EUNSUPPORTED = -12 /* not available in this build or on this input */
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

#ifdef __cplusplus
}
#endif
#endif /* APIDEX_H */
