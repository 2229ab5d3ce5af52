/*
 * exec: calling an endpoint the index has (issue 15).
 *
 * From an operation and the caller's inputs to an HTTP request (request.c: server URL and
 * its variables, parameter styles, request bodies by content type; inputs validated against
 * their schemas), credentials (creds.c: env/config file, OAuth2 client credentials), the
 * safe transport (transport.c: allowed methods, hosts and resolved addresses, redirects,
 * timeouts, a size cap), and the response shaped for an agent (shape.c: field selection,
 * array summaries, a token budget, a check against the response schema, pagination hints).
 * Snippets (snippet.c) print the same request for curl, Python, JavaScript and Go.
 *
 * The types below are shared by every part; each part declares its own functions in the
 * section it owns. Secrets: every credential value that goes into a request is listed in
 * exec_request.secrets, and exec_mask replaces each occurrence with "****" in anything
 * that is shown (output, logs, errors, --dry-run).
 */
#ifndef APIDEX_EXEC_H
#define APIDEX_EXEC_H

#include "core/core.h"
#include "spec/spec.h"

typedef struct exec_header {
    const char *name;
    const char *value;
    bool secret; /* carries a credential: shown masked */
} exec_header;

/** A request ready to send. Everything lives in arena. */
typedef struct exec_request {
    const char *method; /* upper case */
    const char *url;    /* absolute, percent-encoded, query string included */
    exec_header *headers;
    size_t n_headers;
    const char *body; /* NULL when none */
    size_t body_len;
    const char *content_type; /* of the body; NULL when none */
    const char **secrets;     /* credential values to mask wherever the request is shown */
    size_t n_secrets;
    const char *operation_id; /* the index's id of the operation called ("api:opId") */
    core_arena *arena;
} exec_request;

/** What the transport may do (zero = the safe default for every field). */
typedef struct exec_policy {
    bool allow_write;                 /* methods other than GET/HEAD (and OPTIONS) */
    bool allow_private;               /* private, loopback, link-local, unique-local addresses */
    const char *const *allowed_hosts; /* the hosts of the spec's servers plus --allow-host */
    size_t n_allowed_hosts;
    long timeout_ms;        /* whole exchange; default 30000 */
    size_t max_bytes;       /* response body cap; default 8 MiB (the rest is cut) */
    unsigned max_redirects; /* default 3 */
} exec_policy;

/** A response as received. Everything lives in arena. */
typedef struct exec_response {
    long status;
    exec_header *headers; /* as received, in order */
    size_t n_headers;
    const char *body; /* NUL-terminated; body_len bytes */
    size_t body_len;
    bool truncated;        /* the body was cut at exec_policy.max_bytes */
    const char *final_url; /* after redirects */
    unsigned redirects;
    double elapsed_ms;
    core_arena *arena;
} exec_response;

/** text with every secret of r replaced by "****", allocated in arena (text itself when r
    has no secrets or text has none of them). */
const char *exec_mask(const exec_request *r, const char *text, core_arena *arena);

#endif
