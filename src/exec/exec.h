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
    const char **notes; /* what the caller should know (a credential not found, ...); never
                           holds a secret (request.c, creds.c) */
    size_t n_notes;
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

/* ---------------------------------------------------------------- request side
   (request.c, params.c, body.c, creds.c, snippet.c) */

/** Fetches an OAuth2 client-credentials token (the transport's oauth.c provides one; tests
    pass a fake). *token: valid until the next call or the end of the process; it is a secret. */
typedef int (*exec_token_fn)(void *ctx, const char *token_url, const char *client_id,
                             const char *client_secret, const char *scope, const char **token,
                             apidex_error *err);

/** What exec_build needs besides the operation; zero = defaults. Strings are borrowed. */
typedef struct exec_build_options {
    const char *const *params; /* "name=value" inputs (-p): parameters, server variables, or
                                  fields of an object body; a value starting with [ or { is JSON */
    size_t n_params;
    const char *body;             /* --body: JSON text (or raw text for a non-JSON media type) */
    const char *server;           /* --server URL: replaces the spec's servers */
    const char *content_type;     /* pick this media type of the body; NULL: JSON, else form,
                                     else multipart, else the first */
    const char *overrides;        /* store_api.overrides: {"server": URL, "auth": {...}} or NULL */
    const char *credentials_file; /* NULL: $APIDEX_CREDENTIALS, else
                                     $XDG_CONFIG_HOME/apidex/credentials.yaml (~/.config) */
    bool placeholders;      /* snippets: credentials become references to the variables that hold
                               them (EXEC_PLACEHOLDER marks, see snippet.c); no secret is read */
    exec_token_fn token_fn; /* OAuth2 client credentials; NULL: only a token from the env */
    void *token_ctx;
    const char *operation_id; /* copied into exec_request.operation_id; NULL: op->id */
} exec_build_options;

/* In placeholder mode a credential is written into the URL or a header as
   EXEC_PLACEHOLDER "VAR" EXEC_PLACEHOLDER (the value of environment variable VAR), or
   EXEC_PLACEHOLDER "b:VAR" EXEC_PLACEHOLDER (base64 of VAR's "user:password"). */
#define EXEC_PLACEHOLDER "\x01"

/**
 * Builds the request for op of api from opt's inputs: the server URL (--server, the
 * registry's override, else the operation's or the API's servers, with their variables),
 * path/query/header/cookie parameters in their styles, the body in its media type, and the
 * credentials the operation's security asks for (creds.c). Every input is validated first:
 * a missing required parameter or body, an unknown parameter (naming the nearest known
 * one), a value its schema refuses (type, enum, pattern, min/max...) is APIDEX_EINVAL with
 * a message naming the parameter and the rule. *out is the caller's: exec_build_free.
 * On error *out is empty. Messages never hold a secret.
 */
int exec_build(const spec_api *api, const spec_operation *op, const exec_build_options *opt,
               exec_request *out, apidex_error *err);
/** Frees what exec_build made (its arena). NULL and an empty request are no-ops. */
void exec_build_free(exec_request *r);

/** Adds a note to r (copied into its arena); text must hold no secret. */
void exec_request_note(exec_request *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * The credentials step of exec_build: for the operation's effective security, finds each
 * scheme's credential (environment APIDEX_AUTH_<API>_<SCHEME>[_...], the registry's auth
 * override, the credentials file) and puts it into r (header, query or cookie), listing
 * every value in r->secrets. A requirement no credential satisfies adds a note naming the
 * variables to set. A credentials file readable by others is refused (APIDEX_EINVAL).
 */
int exec_creds_apply(const spec_api *api, const spec_operation *op, const exec_build_options *opt,
                     exec_request *r, apidex_error *err);
/** The environment variable named for api_id and scheme (upper case, every other character
    '_'), suffix appended when not NULL ("APIDEX_AUTH_TMDB_API_KEY"), in arena. */
const char *exec_creds_env_name(const char *api_id, const char *scheme, const char *suffix,
                                core_arena *arena);

/** Appends header name: value to r (copied), marked secret or not. */
int exec_request_add_header(exec_request *r, const char *name, const char *value, bool secret);
/** Lists value (copied) in r->secrets. */
int exec_request_add_secret(exec_request *r, const char *value);

typedef enum {
    EXEC_SNIPPET_CURL,
    EXEC_SNIPPET_PYTHON,
    EXEC_SNIPPET_JAVASCRIPT,
    EXEC_SNIPPET_GO
} exec_snippet_lang;
/** "curl", "python", "javascript" (or "js", "node"), "go" into *lang; -1 when unknown. */
int exec_snippet_lang_parse(const char *name, exec_snippet_lang *lang);
/**
 * A ready-to-run program (or curl command) sending r, into out. Placeholder credentials
 * (exec_build_options.placeholders) become reads of their environment variables; any
 * other secret of r is masked. Returns 0 or APIDEX_ENOMEM.
 */
int exec_snippet(const exec_request *r, exec_snippet_lang lang, core_buf *out);

#endif
