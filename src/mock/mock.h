/*
 * mock: a mock HTTP server for any OpenAPI document, so calls can be tried and tested
 * without the real service (docs/MOCK.md).
 *
 * `apidex mock SPEC...` answers every operation of the given specs the way the spec says
 * a real server would: responses are generated from the response's examples and schema
 * (gen.c, pattern.c), requests are checked against the operation's parameters and body
 * (request.c, with spec_validate_json, the same validator the executor uses), and a small
 * in-memory store (state.c) makes REST conventions hold: what is created can be read back,
 * updated and deleted (handle.c). route.c maps a URL to an operation; server.c is the
 * libmicrohttpd glue.
 *
 * Design
 * - Deterministic: a response depends only on the seed, the request (method, path, query)
 *   and what the store holds. The generator's random numbers come from a splitmix64 stream
 *   seeded by a hash of both, so two runs with the same --seed answer the same requests
 *   with the same bytes, and tests can rely on it.
 * - Always schema-valid where the spec allows it: examples are used first but only when
 *   they validate against their schema (real specs ship wrong examples); generated values
 *   honour type, format, enum, const, bounds, lengths, item counts, simple patterns,
 *   required properties and allOf/oneOf/anyOf. $ref cycles and large schemas are bounded:
 *   past a depth or node budget only required properties and minItems items are made.
 * - handle.c works on plain structs (mock_request -> mock_response), so the whole
 *   behaviour is unit-tested without sockets; server.c only moves bytes.
 * - Several specs at once: each is mounted under the path of its first server URL
 *   ("https://api.themoviedb.org/3" -> /3); a spec whose mount is already taken gets
 *   "/<api id>" in front of it. The mounts are printed at start.
 */
#ifndef APIDEX_MOCK_H
#define APIDEX_MOCK_H

#include "core/core.h"
#include "oas/oas.h"

struct json_object;

/* ---------------------------------------------------------------- generation (gen.c) */

/** Limits of one generated value (zero = default). */
enum {
    MOCK_GEN_MAX_DEPTH = 32,    /* nesting; past it a minimal value */
    MOCK_GEN_LEAN_DEPTH = 10,   /* past it only required properties, minItems items */
    MOCK_GEN_MAX_NODES = 4000,  /* values made for one response before going lean */
    MOCK_GEN_DEFAULT_ITEMS = 2, /* array length when the schema does not constrain it */
    MOCK_GEN_MAX_STRING = 4096  /* longest string made for minLength */
};

/**
 * A value for schema (of api; $refs followed), from its example when that validates,
 * else generated. request: the value is a request body (readOnly properties left out),
 * else a response (writeOnly ones left out). Deterministic in (schema, seed). Returns a new
 * json-c value (json_object_put it; NULL stands for JSON null).
 */
struct json_object *mock_gen_schema(const spec_api *api, spec_loc schema, uint64_t seed,
                                    bool request);
/**
 * The body of a response's media type: the media type's example / examples (first one),
 * the Swagger 2.0 response's examples for that type, then the schema; each example only
 * when it validates. *out: a new value. Returns 0 (*out is the body; NULL stands for JSON null) or
 * 1 when there is no body to send (neither schema nor example).
 */
int mock_gen_media(const spec_api *api, const spec_response *resp, const spec_media *media,
                   uint64_t seed, struct json_object **out);
/** Mixes n bytes of p into a seed (FNV-1a then splitmix64); for per-request seeds. */
uint64_t mock_seed_mix(uint64_t seed, const void *p, size_t n);
/**
 * A string matching a simple regular expression (literals, escapes \d \w \s, classes,
 * groups with alternatives, ?, *, +, {n,m}, anchors), or NULL when pattern is not that
 * simple or the result does not match (checked with PCRE2). The string is malloc'd.
 */
char *mock_pattern_string(const char *pattern, uint64_t *rng);
/** The next number of a splitmix64 stream. */
uint64_t mock_rng_next(uint64_t *state);

/* ---------------------------------------------------------------- routing (route.c) */

typedef struct mock_router mock_router;

/** One spec and where it is served. */
typedef struct mock_mount {
    const spec_api *api;
    const char *base; /* "" or "/3": the path prefix of every operation */
} mock_mount;

/** The operation a request is for, with its path parameters (percent-decoded). */
typedef struct mock_match {
    const spec_api *api;
    const spec_operation *op;
    const char *base;
    const char **param_names; /* path parameters, in template order */
    const char **param_values;
    size_t n_params;
    bool item; /* the template's last segment is one whole parameter ("/movie/{id}") */
} mock_match;

typedef enum { MOCK_ROUTE_OK = 0, MOCK_ROUTE_NO_PATH = 1, MOCK_ROUTE_NO_METHOD = 2 } mock_route_rc;

/**
 * A router over every operation of every loaded (not failed) API of reg; reg must outlive
 * it. order (n_order registry indexes; NULL = registry order) is the mount order: an API
 * whose base path an earlier one took is mounted under /<api id><base>. Returns 0,
 * APIDEX_ENOMEM.
 */
int mock_router_new(const spec_registry *reg, const size_t *order, size_t n_order,
                    mock_router **out, apidex_error *err);
void mock_router_free(mock_router *r);
/** The mounts, in registry order. */
const mock_mount *mock_router_mounts(const mock_router *r, size_t *n);
/** s[0..n) percent-decoded into the arena (a '+' is a space when plus_is_space: form
    bodies); a malformed escape stays as it is. NULL on OOM. */
char *mock_percent_decode(core_arena *a, const char *s, size_t n, bool plus_is_space);
/** Operations served. */
size_t mock_router_count(const mock_router *r);
/**
 * Finds the operation for method and path (no query string; segments are split first,
 * then percent-decoded). The path picks the most literal matching template (compared
 * segment by segment from the left: literal > mixed > parameter; OpenAPI's "concrete
 * paths first"), then the method picks its operation; HEAD falls back to GET.
 * MOCK_ROUTE_NO_METHOD: the path has no such method; *allow (in arena) lists those it
 * has. Strings live in arena.
 */
mock_route_rc mock_route(const mock_router *r, const char *method, const char *path,
                         core_arena *arena, mock_match *m, const char **allow);

/* ---------------------------------------------------------------- requests (request.c) */

typedef struct mock_pair {
    const char *name;
    const char *value;
} mock_pair;

/** An incoming request, as the server received it. */
typedef struct mock_request {
    const char *method;     /* upper case */
    const char *path;       /* without the query string */
    const mock_pair *query; /* in the order received, percent-decoded */
    size_t n_query;
    const mock_pair *headers;
    size_t n_headers;
    const mock_pair *cookies;
    size_t n_cookies;
    const char *body; /* NULL or body_len bytes */
    size_t body_len;
    const char *content_type; /* the Content-Type header, NULL if none */
} mock_request;

/** Why a request is refused: the status, a message and where. Strings in an arena. */
typedef struct mock_problem {
    int status;          /* 400, 404, 405, 413, 415 */
    const char *message; /* one line */
    const char *in;      /* "path", "query", "header", "cookie", "body" or NULL */
    const char *name;    /* the parameter, NULL for the body */
    const char *pointer; /* JSON pointer inside the value ("" = the value itself) */
    const char *rule;    /* "required", "type", "enum", "minimum", "json", ... */
} mock_problem;

/**
 * Checks rq against m->op: every parameter (required, then its value coerced from text to
 * its schema's type and validated), then the body (required, content type, JSON syntax
 * with a depth limit, schema). *body: the parsed JSON or form body (new value; NULL when
 * none or not JSON). Returns 0 when the request is valid, 1 with *p filled when it is
 * not, APIDEX_ENOMEM.
 */
int mock_request_check(const mock_match *m, const mock_request *rq, core_arena *arena,
                       struct json_object **body, mock_problem *p);
/** The rule a spec_validate_json problem text names ("type", "enum", "required", ...). */
const char *mock_problem_rule(const char *problem);

/* ---------------------------------------------------------------- state (state.c) */

typedef struct mock_state mock_state;

enum { MOCK_STATE_MAX = 10000 }; /* resources held at once */

int mock_state_new(mock_state **out);
void mock_state_free(mock_state *st);
/**
 * The resource stored under collection/id (a borrowed value, valid until the next change
 * of that entry), NULL when none. *deleted: it was deleted (then the result is NULL). When
 * collection has no such id, a resource with that id in another collection whose last
 * segment is the same ("/users/7/playlists" and "/playlists") is found.
 */
struct json_object *mock_state_get(mock_state *st, const char *collection, const char *id,
                                   bool *deleted);
/** Stores obj (a reference is taken) as collection/id, replacing or undeleting. Returns 0,
    APIDEX_ELIMIT (the store is full) or APIDEX_ENOMEM. */
int mock_state_put(mock_state *st, const char *collection, const char *id, struct json_object *obj);
/** Marks collection/id deleted (it need not have been stored: generated resources exist
    too). Returns 0, APIDEX_ELIMIT or APIDEX_ENOMEM. */
int mock_state_delete(mock_state *st, const char *collection, const char *id);
/** The stored (not deleted) resources of collection in creation order, into a new array
    (json_object_put it). */
struct json_object *mock_state_list(mock_state *st, const char *collection);
/** A new id for collection: "1", "2", ... (per store). */
unsigned long mock_state_next_id(mock_state *st);
/** Serialises state changes and reads across server threads. */
void mock_state_lock(mock_state *st);
void mock_state_unlock(mock_state *st);

/* ---------------------------------------------------------------- handling (handle.c) */

typedef struct mock mock;

typedef struct mock_options {
    uint64_t seed;       /* default 0 */
    size_t max_body;     /* largest request body; default 1 MiB */
    const size_t *order; /* registry indexes in mount order (the order the specs were given:
                            the first takes a contested base path); NULL = registry order */
    size_t n_order;
} mock_options;

/** A response to send. Everything lives in the arena given to mock_handle. */
typedef struct mock_response {
    int status;
    const char *content_type; /* NULL when there is no body */
    const char *body;
    size_t body_len;
    const char *allow;     /* for 405 / OPTIONS */
    const char *location;  /* for created resources */
    const char *operation; /* the operation's id, NULL when none matched */
} mock_response;

/** A mock over reg's APIs (reg must outlive it). */
int mock_new(const spec_registry *reg, const mock_options *opt, mock **out, apidex_error *err);
void mock_free(mock *mk);
const mock_router *mock_get_router(const mock *mk);
const mock_options *mock_get_options(const mock *mk);
/**
 * Answers one request: route, check, state, generate. Thread-safe. Returns 0 (with *out
 * filled, also for 4xx answers) or APIDEX_ENOMEM.
 */
int mock_handle(mock *mk, const mock_request *rq, core_arena *arena, mock_response *out);

/* ---------------------------------------------------------------- the server (server.c) */

typedef struct mock_server mock_server;

typedef struct mock_server_options {
    const char *listen; /* HOST:PORT, default 127.0.0.1:4010; port 0 picks one */
    bool allow_remote;  /* a non-loopback address */
    bool quiet;         /* no access log line per request on stderr */
    unsigned timeout_s; /* per connection, default 30 */
} mock_server_options;

/** Starts serving mk on its own threads. */
int mock_server_start(mock *mk, const mock_server_options *opt, mock_server **out,
                      apidex_error *err);
/** The bound port. */
unsigned mock_server_port(const mock_server *s);
/** Stops and frees (NULL is a no-op). */
void mock_server_stop(mock_server *s);

#endif
