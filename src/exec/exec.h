/*
 * exec: calling an endpoint the index has, safely: the request built from the spec, the
 * credentials kept to their origin, the response shaped for a reader (docs/EXECUTE.md).
 *
 * From an operation and the caller's inputs to an HTTP request (request.c: server URL and
 * its variables, parameter styles, request bodies by content type; inputs validated against
 * their schemas), credentials (creds.c: env/config file, OAuth2 client credentials), sending
 * (transport.c: the read-only rule for methods, then the outbound layer, src/net: hosts,
 * resolved and pinned addresses, redirects, timeouts, a size cap), and the response shaped
 * for an agent (shape.c: field selection, array summaries, a token budget, a check against
 * the response schema, pagination hints).
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
#include "oas/oas.h"
#include "net/net.h"
#include "store/store.h"

/* A header: name, value, and whether it carries a credential (shown masked, never sent to
   another origin). The outbound layer's type (net/net.h). */
typedef net_header exec_header;

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
    /* origins (hosts.c, request.c): "scheme://host:port" */
    const char *origin;       /* of url */
    bool origin_allowed;      /* origin is the API's, the registry's server, a trusted
                                 --server, or allowed with --allow-host */
    const char **api_origins; /* the API's (its servers with their variables' defaults
                                 and enum values): credentials go only to these and to
                                 the registry's server and --allow-host ORIGIN entries */
    size_t n_api_origins;
} exec_request;

/** What the transport may do (zero = the safe default for every field). */
typedef struct exec_policy {
    bool allow_write;                 /* methods other than GET/HEAD (and OPTIONS) */
    bool allow_private;               /* private, loopback, link-local, unique-local addresses */
    const char *const *allowed_hosts; /* the hosts of the spec's servers plus --allow-host */
    size_t n_allowed_hosts;
    long timeout_ms;        /* whole exchange; default 30000 */
    size_t max_bytes;       /* response body cap; default 8 MiB (the rest is cut) */
    unsigned max_redirects; /* default 3; at most NET_MAX_REDIRECTS (5) */
    /* (transport) addresses allowed although private, exactly as written ("127.0.0.1",
       "::1"): tests allow their own server and still see every other private address
       refused. allow_private allows them all. */
    const char *const *allowed_addresses;
    size_t n_allowed_addresses;
    long connect_timeout_ms; /* per connection; default 10000 (never above timeout_ms) */
} exec_policy;

/** A response as received (net/net.h's): status, headers, body (cut at max_bytes: truncated),
    final_url (after redirects, masked), redirects, elapsed_ms; everything lives in arena. */
typedef net_response exec_response;

/** text with every secret of r replaced by "****", allocated in arena (text itself when r
    has no secrets or text has none of them). */
const char *exec_mask(const exec_request *r, const char *text, core_arena *arena);

/* ---------------------------------------------------------------- transport (transport.c) */

/**
 * Sends r under policy p (NULL = every default) through the outbound layer (net_send, whose
 * rules net/net.h lists) and hands out the final response in *out (exec_response_free).
 * What exec adds: a method other than GET/HEAD/OPTIONS is refused without allow_write (a
 * redirect only ever turns a method into GET); the hosts are p's allowed_hosts (exact,
 * case-insensitive; "host:port" and "[v6]:port" name their host); the private-address rule
 * is widened only by allow_private and allowed_addresses (an entry that is not an IP
 * address is APIDEX_EINVAL naming it); at most max_redirects (default 3) redirects;
 * refusals (APIDEX_EREFUSED) name the rule and the flag that widens it. Credentials
 * (secret headers, Authorization, Cookie, query values holding a secret) never leave the
 * first request's origin (scheme, host and port); an https request never continues over
 * http. Network failures and timeouts are APIDEX_ENET. A body over max_bytes is cut
 * (truncated = true), not an error. Messages and the response (final URL, header values,
 * text body) have r's secrets masked with exec_mask. Thread-safe (one call per request).
 */
int exec_send(const exec_request *r, const exec_policy *p, exec_response **out, apidex_error *err);
/** The hosts a call of r may reach (hosts.c): the host of r's origin when r->origin_allowed
    (never a host a caller's value put into the URL), the hosts of r's and api's origins, then
    extra[0..n_extra) (an origin entry by its host); *out in arena. 0 or APIDEX_ENOMEM. */
int exec_allowed_hosts(const exec_request *r, const spec_api *api, const char *const *extra,
                       size_t n_extra, core_arena *arena, const char ***out, size_t *n);
/** The origin of an absolute http(s) URL, "scheme://host:port" (scheme and host in lower case,
    the default port written), in arena; NULL when url is not http(s) or its authority is not
    read strictly: user info, a backslash, a character no host name holds, a bad port. */
const char *exec_url_origin(const char *url, core_arena *arena);
/** The origins of the API's servers (op's own servers instead when it has some, as they
    replace the API's; op may be NULL), each server URL with
    its variables' enum values (every combination, at most 64 a server) or else their
    default; a relative server on the document's origin. *out in arena. 0 or APIDEX_ENOMEM. */
int exec_api_origins(const spec_api *api, const spec_operation *op, core_arena *arena,
                     const char ***out, size_t *n);
/** Whether the --allow-host entry allows origin: "scheme://host[:port]" that exact origin
    (*exact = true: credentials may go there too); "host:port" that host on that port, "host"
    that host, either scheme (the request may go there; credentials do not). */
bool exec_allow_entry_matches(const char *entry, const char *origin, bool *exact);
/** Whether entry is an --allow-host entry apidex reads: "host", "host:port" or
    "scheme://host[:port]" with at most a "/" after it, printable ASCII only, at most 512
    bytes. Any other entry allows nothing (exec_allow_entry_matches is false for it). */
bool exec_allow_entry_valid(const char *entry);
/** Frees a response from exec_send (its arena). NULL is a no-op. */
void exec_response_free(exec_response *resp);
/**
 * Why the address text ip ("10.0.0.1", "::ffff:127.0.0.1") is refused under p: the
 * class ("loopback", "private", "link-local", "unique-local", "unspecified",
 * "multicast", "reserved", "shared (carrier-grade NAT)"), or NULL when it may be
 * connected to. Not an address: "not an IP address".
 */
const char *exec_address_refusal(const exec_policy *p, const char *ip);
/** The value of the first header named name (case-insensitive) of resp, or NULL. */
const char *exec_response_header(const exec_response *resp, const char *name);

/* ---------------------------------------------------------------- OAuth2 (oauth.c) */

/** How the request side fetches an OAuth2 client-credentials access token (exec_oauth_token
    below is one; tests pass a fake). *token lives as long as the token source (ctx); it is
    a secret. Returns 0 or an error (err filled). */
typedef int (*exec_token_fn)(void *ctx, const char *token_url, const char *client_id,
                             const char *client_secret, const char *scope, const char **token,
                             apidex_error *err);

/** A cache of client-credentials tokens, shared by the calls of one process. */
typedef struct exec_oauth exec_oauth;

/**
 * A new token cache. Token requests go through exec_send under a copy of policy (NULL =
 * defaults) that allows POST and adds the token URL's host; every other rule (addresses,
 * redirects, timeouts) stays. disk_dir: NULL keeps tokens in memory only; else tokens are
 * also kept in files under disk_dir (created 0700; files 0600, ignored when others can
 * read them), so one-shot commands reuse a token until it expires. policy and disk_dir
 * are copied. *out: exec_oauth_free. Returns 0 or APIDEX_ENOMEM.
 */
int exec_oauth_new(const exec_policy *policy, const char *disk_dir, exec_oauth **out,
                   apidex_error *err);
/** NULL is a no-op. Tokens handed out become invalid. */
void exec_oauth_free(exec_oauth *o);
/** $XDG_CACHE_HOME/apidex/oauth (else ~/.cache/apidex/oauth) in buf; NULL when neither is set. */
const char *exec_oauth_default_dir(char *buf, size_t cap);
/**
 * An exec_token_fn (ctx = an exec_oauth): a cached token for (token_url, client_id,
 * scope, client_secret) while it is valid (until expires_in minus a margin of a tenth of
 * the lifetime, at most 60 s), else a new one from the token endpoint (grant_type
 * client_credentials; client authenticated by HTTP Basic, retried in the form body when
 * the server answers invalid_client). *token lives until exec_oauth_free. Errors never
 * hold the secret or a token. Thread-safe.
 */
int exec_oauth_token(void *ctx, const char *token_url, const char *client_id,
                     const char *client_secret, const char *scope, const char **token,
                     apidex_error *err);
/** Token requests sent so far (cache misses), for tests and diagnostics. */
unsigned exec_oauth_fetches(const exec_oauth *o);

/* ---------------------------------------------------------------- responses (shape.c) */

/** How a response is shaped (zero = defaults). */
typedef struct exec_shape_options {
    const char *select; /* JSONPath subset (docs/EXECUTE.md); NULL = the whole body */
    size_t budget;      /* cl100k tokens for the body; default 2000 */
    size_t max_items;   /* items kept of a long array; default 10 */
} exec_shape_options;

/**
 * The response shaped for an agent as a JSON object (*out, json_object_put): status,
 * url, redirects, the headers that matter (content type, length, rate limits,
 * Retry-After, Link, Location), the body (JSON: selected, long arrays summarised, cut to
 * the budget; text: cut to the budget; binary: type and size), notes saying what was cut,
 * the check of the body against op's response schema for the status (api and op may be
 * NULL: not checked; a mismatch is reported, never an error), and pagination hints (Link
 * rel=next, body fields such as next_cursor, nextPageToken, has_more, offset/limit/total).
 * Errors: APIDEX_EINVAL for a select expression that does not parse (the message says
 * where), APIDEX_ENOMEM.
 */
struct json_object;
int exec_shape(const exec_response *resp, const spec_api *api, const spec_operation *op,
               const exec_shape_options *opt, struct json_object **out, apidex_error *err);
/**
 * Evaluates a select expression on v: the single value for a path without wildcards
 * (NULL when absent), else an array of the matches; several comma-separated paths give an
 * object keyed by path. *out is a new reference (json_object_put). Returns 0,
 * APIDEX_EINVAL (syntax; message with the column) or APIDEX_ENOMEM.
 */
int exec_select(struct json_object *v, const char *expr, struct json_object **out,
                apidex_error *err);

/* ---------------------------------------------------------------- one call (call.c) */

/**
 * The document of the index's API number ai (store_apis) as indexed, under the index's API id
 * (the credential variables are named by it): the snapshot the index keeps of a document only
 * a running source gives (an MCP server's list: no server started), else the file or URL read
 * again, once per open index (store_api_doc). *doc: store_doc_release; *api lives as long; the
 * operation of a row: store_doc_operation. APIDEX_EINVAL when it cannot be read or failed (the
 * message names the API, the document and why), APIDEX_ENOMEM.
 */
int exec_api_reload(store_index *idx, size_t ai, store_doc **doc, const spec_api **api,
                    apidex_error *err);
/** params ({name: value}) as exec_build's "name=value" inputs (array and strings in a; *n of
    them): strings as they are, other values as JSON, null left out. NULL with err set: a
    string holding a NUL byte (APIDEX_EINVAL, naming the parameter: a C string would cut it),
    or APIDEX_ENOMEM. */
const char **exec_params_from_json(core_arena *a, struct json_object *params, size_t *n,
                                   apidex_error *err);

/** How exec_call sends and shapes (zero = defaults). */
typedef struct exec_call_options {
    exec_policy policy; /* allowed_hosts: only the extra ones (--allow-host); the hosts of the
                           API's origins are always added, and the request's own host when
                           exec_build allowed its origin (exec_request.origin_allowed) */
    exec_shape_options shape;
    bool foreign_server; /* the request's server came from an untrusted caller (a model's
                            "server" argument): build it with exec_build_options.
                            untrusted_server too; here its host is allowed only when the
                            request's origin is the API's or policy names it */
} exec_call_options;

/**
 * Sends r (built for op of api) under o's policy and shapes the response (exec_send, then
 * exec_shape). First the origin rule: a request whose origin exec_build did not allow (a
 * server variable or a model's server that leads elsewhere) and that no --allow-host entry
 * of o->policy names is APIDEX_EREFUSED before anything is sent: *shaped is the object `apidex call
 * --json` prints (json_object_put). resp_out (may be NULL) gets the response as received
 * (exec_response_free). Errors as exec_send's (APIDEX_EREFUSED naming the rule, APIDEX_ENET) and
 * exec_shape's; messages hold no secret.
 */
int exec_call(const exec_request *r, const spec_api *api, const spec_operation *op,
              const exec_call_options *o, exec_response **resp_out, struct json_object **shaped,
              apidex_error *err);
/** A dry run's answer: r as JSON (dry_run, operation, method, url, headers, content_type, body,
    notes; secrets masked) with the curl command curl. New object (json_object_put). */
struct json_object *exec_request_json(const exec_request *r, const char *curl);

/* ---------------------------------------------------------------- MCP tools (tool.c) */

struct mcpc_pool;

/** Whether op is an MCP server's tool, resource or prompt (oas/mcp.c), called over MCP
    instead of HTTP. */
bool exec_tool_is(const spec_operation *op);

/** What op is of its MCP server: "tool", "resource" (a resource or a resource template) or
    "prompt"; NULL when it is no MCP entry. */
const char *exec_mcp_kind(const spec_operation *op);

/** How exec_tool_call builds, checks and shapes (zero = defaults). Strings are borrowed. */
typedef struct exec_tool_options {
    const char *const *params; /* "name=value" inputs (-p), read as exec_build reads them */
    size_t n_params;
    const char *body;              /* --body: the arguments as a JSON object; -p on top */
    struct json_object *arguments; /* instead of body: the arguments (servers' params) */
    const char *operation_id;      /* the index's id, for messages; NULL: op->id */
    bool allow_write;              /* tools not marked readOnlyHint: true */
    long timeout_ms;               /* the server's start and its answer; 0: mcpc's default */
    exec_shape_options shape;      /* the result's body, as an HTTP response's */
    bool dry_run;                  /* validate and show the call; start nothing */
    struct mcpc_pool *sessions;    /* sessions kept open between calls (serve), or NULL */
} exec_tool_options;

/**
 * Calls the MCP entry op of api (docs/MCP-SOURCES.md "Calling a tool"). A tool: over
 * tools/call, the arguments built from o and validated against the tool's inputSchema
 * (APIDEX_EINVAL naming the argument; nothing started), the read-only rule (a tool not marked
 * readOnlyHint: true without o->allow_write: APIDEX_EREFUSED). A resource: resources/read of
 * the URI the index holds (a template's variables from the arguments, each declared, the
 * required ones given). A prompt: prompts/get of its name with its arguments (strings, each
 * declared, the required ones given). Both are reads (no write rule). Then the server api->file
 * names (the index's source, never a caller's) is started, initialized, asked and ended (or
 * a session of o->sessions used). *out: the result shaped as exec_shape shapes a body
 * (body_type, body, tokens, notes; schema when the body is a tool's structuredContent) with
 * "tool" and "is_error" (the tool's isError, *is_error), "resource" and "uri", or "prompt";
 * a dry run: {dry_run, operation, server, tool | uri | prompt, arguments}. The
 * server config's secrets (header values, env values named like credentials) are masked in
 * *out and in errors. Errors of the server: mcpc_call's (APIDEX_ENET, APIDEX_ESPEC, ...).
 */
int exec_tool_call(const spec_api *api, const spec_operation *op, const exec_tool_options *o,
                   struct json_object **out, bool *is_error, apidex_error *err);

/* ---------------------------------------------------------------- request side
   (request.c, params.c, body.c, creds.c, snippet.c) */

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
    const char *operation_id;       /* copied into exec_request.operation_id; NULL: op->id */
    const char *const *allow_hosts; /* --allow-host entries (exec_allow_entry_matches) */
    size_t n_allow_hosts;
    bool untrusted_server; /* server came from a model (MCP/HTTP "server"): its origin must be
                              the API's or allowed with --allow-host */
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
