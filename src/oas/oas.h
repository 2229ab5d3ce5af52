/*
 * oas: load OpenAPI documents (Swagger 2.0, OAS 3.0, 3.1; JSON or YAML; one
 * file or many joined by $ref), resolve references, and normalise every
 * version into one model: APIs, operations, parameters, bodies, responses and
 * the schema graph.
 *
 * The model points into the parsed trees instead of copying them. A node only
 * means something together with the file it came from (a relative $ref is
 * resolved against the *referring* file), so the model hands out spec_loc
 * values: a node plus its document. All $refs reachable from the root are
 * resolved once, at load time; spec_deref is then a lookup, and the whole
 * model is read-only and safe to share between threads.
 */
#ifndef APIDEX_OAS_H
#define APIDEX_OAS_H

#include "core/core.h"

/** One loaded file (the root document or a file reached by $ref). */
typedef struct spec_doc spec_doc;

/** A node together with the document it lives in. node == NULL means "none". */
typedef struct spec_loc {
    const jt_node *node;
    const spec_doc *doc;
} spec_loc;

/** Loader options; zero means "the safe default" for every field. */
typedef struct spec_options {
    jt_limits limits;       /* per file: bytes (64 MiB), depth (512), nodes (20 M incl. aliases) */
    size_t max_documents;   /* files loaded for one root document, default 10000 */
    unsigned max_ref_chain; /* $ref -> $ref -> ... hops, default 64 */
    bool allow_remote_refs; /* follow http(s) $refs (default off) */
    const char *const *remote_hosts; /* allow-list for remote refs (NULL-terminated, "*" = any
                                        host); NULL = none; a remote root's own host is allowed */
    long remote_timeout_ms;          /* default 10000 */
    size_t remote_max_bytes;         /* default 16 MiB */
    /* private addresses (IP literals, NULL-terminated; --allow-address) remote refs may reach:
       every other loopback, private, link-local... address is refused, whatever remote_hosts
       says (a remote root's own origin excepted: the user named it). Borrowed: must outlive
       the registry. NULL = none */
    const char *const *remote_addresses;
    const char *api_id; /* `--name ID`: the id of the registry's API when it holds exactly one
                           (else ids are derived as usual); the string must outlive the
                           registry */
    /* memory budget of one document (its root and every file its $refs load), enforced
       while it is loaded: load_memory_floor + load_memory_factor x the bytes of its files.
       0 = the defaults (64 MiB; $APIDEX_MAX_LOAD_MEMORY, else 32); docs/INDEX.md */
    unsigned load_memory_factor;
    size_t load_memory_floor;
    bool deferred; /* files are only found (and sniffed) by spec_registry_add; each is
                      parsed by spec_registry_load and freed by spec_registry_unload, so a
                      registry of thousands of documents never holds them all (URLs and
                      texts are still loaded at once) */
} spec_options;

typedef struct spec_server {
    const char *url;
    const char *description;
} spec_server;

typedef struct spec_tag {
    const char *name;
    const char *description;
} spec_tag;

typedef struct spec_param {
    const char *name;
    const char *in;          /* "path", "query", "header" or "cookie" */
    const char *description; /* NULL if none */
    bool required;
    bool deprecated;
    spec_loc schema; /* the parameter's schema (Swagger 2.0: the parameter itself) */
    spec_loc node;   /* the parameter object, $ref followed */
} spec_param;

typedef struct spec_media {
    const char *type; /* "application/json", ... */
    spec_loc schema;  /* may be a $ref: use spec_deref */
    spec_loc node;    /* the media type object (examples live here) */
} spec_media;

typedef struct spec_body {
    const char *description;
    bool required;
    spec_media *media;
    size_t n_media;
    spec_loc node; /* the requestBody object (synthesised for Swagger 2.0) */
} spec_body;

typedef struct spec_response {
    const char *status; /* "200", "4XX", "default" */
    const char *description;
    spec_media *media;
    size_t n_media;
    spec_loc headers; /* the headers object, or none */
    spec_loc node;    /* the response object, $ref followed */
} spec_response;

typedef struct spec_operation {
    const char *id;           /* "api:operationId", or "api:METHOD /path" without one; unique */
    const char *operation_id; /* as written, NULL if none */
    const char *method;       /* upper case: GET, PUT, POST, DELETE, OPTIONS, HEAD, PATCH, TRACE */
    const char *path;         /* the path key exactly as written */
    const char *summary;      /* NULL if none */
    const char *description;  /* NULL if none */
    const char **tags;
    size_t n_tags;
    bool deprecated;
    spec_param *params; /* path-level ones merged, overridden by operation-level ones */
    size_t n_params;
    spec_body *body; /* NULL if none (Swagger 2.0 body/formData become one) */
    spec_response *responses;
    size_t n_responses;
    spec_loc security;   /* effective security requirements (operation, else global) */
    spec_loc node;       /* the operation object, $ref followed (x- extensions are here) */
    const char *pointer; /* JSON pointer of the operation in the root document */
    size_t *schemas;     /* schemas it references directly (indexes into api->schemas) */
    size_t n_schemas;
} spec_operation;

typedef struct spec_schema {
    const char *id;      /* "api:Name" */
    const char *name;    /* "Name": the component name, or derived from the file/pointer */
    spec_loc node;       /* the schema object */
    const char *pointer; /* where it is defined, e.g. "/components/schemas/Name" */
    size_t *refs;        /* schemas it references directly (indexes into api->schemas) */
    size_t n_refs;
    unsigned used_by; /* operations that reference it, directly or through other schemas */
    bool in_cycle;    /* it is part of a reference cycle */
    bool component;   /* declared under components/schemas (Swagger: definitions); false:
                         derived from another $ref target (file stem + pointer) */
} spec_schema;

/** One API: a root document and everything it references. */
typedef struct spec_api {
    const char *id;   /* proposed from the document (apiid.c: "amazonaws-s3", "stripe"),
                         unique in the registry ("-2" in sorted path order), or given */
    const char *file; /* the root file or URL, as given */
    const char *title, *version, *description; /* info.*; NULL when absent */
    const char *provider;     /* info.x-providerName (APIs.guru: "stripe.com"); NULL when absent */
    const char *service;      /* info.x-serviceName (APIs.guru: "s3"); NULL when absent */
    const char *spec_version; /* "2.0", "3.0.3", "3.1.0", ... (NULL if unknown) */
    int major;                /* 2 or 3; 0 when the document failed */
    spec_server *servers;
    size_t n_servers;
    spec_tag *tags;
    size_t n_tags;
    spec_operation *ops;
    size_t n_ops;
    spec_schema *schemas;
    size_t n_schemas;
    size_t n_cycles;          /* cycles in the schema graph: back edges of a depth-first
                                 search in schema order (graph.c) */
    size_t n_files;           /* files loaded (root + $ref'd) */
    uint64_t content_hash;    /* over the bytes of every file loaded */
    size_t load_memory_peak;  /* the most bytes charged to its budget while it was loaded */
    size_t load_memory_limit; /* its budget (spec_options.load_memory_*) */
    spec_loc root;
    core_diags diags; /* warnings and errors, with file, line:col and pointer */
    bool failed;      /* could not be loaded at all: diags has the error(s); errors in
                         $ref'd files are diagnostics, they do not fail the API */
    bool skipped;     /* deferred directory scans only: the file passed the cheap sniff but
                         its root is not an OpenAPI object, so it is no API (not indexed) */
} spec_api;

/** All APIs loaded from a set of inputs. */
typedef struct spec_registry spec_registry;

/** A new empty registry (opt may be NULL). *out: spec_registry_free. */
int spec_registry_new(const spec_options *opt, spec_registry **out, apidex_error *err);
/** NULL is a no-op. Invalidates every pointer into the model. */
void spec_registry_free(spec_registry *reg);
/**
 * Loads one input: a file, a directory (recursively: *.json, *.yaml, *.yml whose
 * content is an OpenAPI/Swagger root document; the format is detected by
 * content), or an http(s) URL. A document that fails is still added (failed =
 * true, with its errors); only a missing input or a usage error returns non-zero.
 */
int spec_registry_add(spec_registry *reg, const char *input, apidex_error *err);
/**
 * What the documents of one input get (spec_registry_add_input); zero = what
 * spec_registry_add does. Strings are copied.
 */
typedef struct spec_input_options {
    /* The API id of the input's one document instead of the derived one (the
       registry file's `id`); never qualified or suffixed. A directory cannot have one. */
    const char *name;
    /* Operations kept by their tags: with include_tags, only operations with a tag
       matching one of the patterns; with exclude_tags, none with a matching tag (it wins
       over include). NULL-terminated fnmatch(3) patterns, compared case-insensitively;
       NULL = no filter. A filter is part of the API's content_hash, so changing it
       re-indexes the document. */
    const char *const *include_tags;
    const char *const *exclude_tags;
    /* An MCP source's document as an index kept it (spec_api_generated_text): loaded from
       these text_len bytes instead of starting the server, so an indexed tool can be shown
       without its server. NULL = run the source. Ignored for other inputs. */
    const char *text;
    size_t text_len;
} spec_input_options;
/**
 * The root document of an API made by running its source (an MCP server's tool list, as
 * oas/mcp.c reads it), for an index to keep: reading it again would start the server. NULL
 * for files and URLs (read again from where they are) and once the API is unloaded. The
 * text belongs to the API; *len its bytes.
 */
const char *spec_api_generated_text(const spec_api *api, size_t *len);
/** spec_registry_add with per-input options (io may be NULL). */
int spec_registry_add_input(spec_registry *reg, const char *input, const spec_input_options *io,
                            apidex_error *err);
size_t spec_registry_count(const spec_registry *reg);
/** The i-th API, in a deterministic order (sorted by file path). */
const spec_api *spec_registry_api(const spec_registry *reg, size_t i);
/** The API with this id, or NULL. */
const spec_api *spec_registry_find(const spec_registry *reg, const char *id);

/**
 * Renames API i (its operation and schema ids follow: "id:operationId").
 * APIDEX_EINVAL when id is not valid (spec_id_valid); uniqueness is the
 * caller's (build_index settles ids in registry order). Touches API i only:
 * safe while other APIs load; the id look-up of spec_registry_find is stale
 * until spec_registry_reindex_ids.
 */
int spec_registry_set_id(spec_registry *reg, size_t i, const char *id, apidex_error *err);
/** Rebuilds the id look-up of spec_registry_find after renames. APIDEX_ENOMEM. */
int spec_registry_reindex_ids(spec_registry *reg);
/** The id given to API i (spec_input_options.name, spec_options.api_id for a registry
    of one document, a valid name of spec_registry_add_text), or NULL: derived. */
const char *spec_registry_given_id(const spec_registry *reg, size_t i);

/* ---------------------------------------------------------------- API ids (apiid.c) */

enum { SPEC_ID_MAX = 64 };
/** True when id is 1-64 characters of [a-z0-9._-], starting and ending with [a-z0-9]. */
bool spec_id_valid(const char *id);
/**
 * The id one document proposes for itself: APIs.guru's info.x-providerName +
 * info.x-serviceName ("amazonaws-s3"), else a slug of info.title without filler
 * words ("stripe"), else the first server's host, else the file name; "api" at
 * worst. Always valid. Thread-safe (reads api only).
 */
void spec_id_propose(const spec_api *api, char out[SPEC_ID_MAX + 1]);
/**
 * proposed itself when taken(ctx, proposed) is false, else the first of
 * "proposed-2", "proposed-3", ... that is free (cut to fit 64 characters).
 * Deterministic when called in a deterministic order (sorted paths).
 */
int spec_id_unique(const char *proposed, bool (*taken)(void *ctx, const char *id), void *ctx,
                   char out[SPEC_ID_MAX + 1]);

/**
 * Adds one root document held in memory (copied), named `name` (a valid id is
 * the API id, as if given; else the document proposes one). Relative file
 * $refs resolve against base_dir and may not leave it;
 * with base_dir NULL they are refused. Same return rules as spec_registry_add.
 */
int spec_registry_add_text(spec_registry *reg, const char *name, const char *text, size_t len,
                           const char *base_dir, apidex_error *err);

/**
 * Deferred registries (spec_options.deferred): parses and builds the i-th API if it is
 * not loaded yet (a no-op for loaded ones and in eager registries). Loading different
 * APIs at the same time from several threads is safe; the registry itself (ids, order)
 * does not change. Returns APIDEX_ENOMEM only; a document that fails is api->failed.
 */
int spec_registry_load(spec_registry *reg, size_t i);
/** The memory budget (bytes) of a document whose files have `bytes` in all under o's
    load_memory_* (NULL or 0: the defaults); SIZE_MAX when it overflows. */
size_t spec_load_memory_budget(const spec_options *o, size_t bytes);
/** The registry's options, defaults filled in. */
const spec_options *spec_registry_options(const spec_registry *reg);
/**
 * Frees the i-th API's documents and model (deferred registries only), keeping its id,
 * file, content_hash, n_files, failed/skipped and diagnostics. Pointers into its model
 * become invalid. A later spec_registry_load loads it again.
 */
void spec_registry_unload(spec_registry *reg, size_t i);
/** Whether reg was made with spec_options.deferred. */
bool spec_registry_deferred(const spec_registry *reg);

/** Loads a single root document into a registry of its own (convenience for tests). */
int spec_load_file(const char *path, const spec_options *opt, spec_registry **out,
                   apidex_error *err);

/**
 * If loc.node is a {"$ref": ...} object, follows the chain to its target
 * (relative to the referring file); otherwise returns loc. Returns 0, or
 * APIDEX_EREF when the ref is dangling, refused or circular (then *out = loc).
 */
int spec_deref(const spec_api *api, spec_loc loc, spec_loc *out);
/** The schema (index into api->schemas) that loc is, after deref; -1 if none. */
long spec_schema_index(const spec_api *api, spec_loc loc);
/** The $ref string of a reference node, or NULL when loc is not a reference. */
const char *spec_ref_target(spec_loc loc);
/** Path or URL of a document. */
const char *spec_doc_file(const spec_doc *doc);
/** The parsed tree of a document (for jt_doc_locate). */
const jt_doc *spec_doc_tree(const spec_doc *doc);

/**
 * allOf merged on demand: a new schema node (in arena) whose properties and
 * required lists are the union of the allOf members (refs followed, cycles
 * stopped). oneOf/anyOf/discriminator are left as alternatives.
 */
int spec_schema_merge_allof(const spec_api *api, spec_loc schema, core_arena *arena, spec_loc *out);

/* ---------------------------------------------------------------- schema view (schema_view.c) */

/**
 * The JSON Schema keywords a schema view reads. Consumers name a keyword by this enum and
 * print its spelling with spec_schema_kw_name, so the spelling lives here only. The enum
 * only grows.
 */
typedef enum spec_schema_kw {
    SPEC_KW_TYPE,
    SPEC_KW_FORMAT,
    SPEC_KW_TITLE,
    SPEC_KW_DESCRIPTION,
    SPEC_KW_ENUM,
    SPEC_KW_CONST,
    SPEC_KW_DEFAULT,
    SPEC_KW_EXAMPLE,
    SPEC_KW_EXAMPLES,
    SPEC_KW_NULLABLE,
    SPEC_KW_MINIMUM,
    SPEC_KW_MAXIMUM,
    SPEC_KW_EXCLUSIVE_MINIMUM,
    SPEC_KW_EXCLUSIVE_MAXIMUM,
    SPEC_KW_MIN_LENGTH,
    SPEC_KW_MAX_LENGTH,
    SPEC_KW_PATTERN,
    SPEC_KW_MIN_ITEMS,
    SPEC_KW_MAX_ITEMS,
    SPEC_KW_UNIQUE_ITEMS,
    SPEC_KW_READ_ONLY,
    SPEC_KW_WRITE_ONLY,
    SPEC_KW_DEPRECATED,
    SPEC_KW_MULTIPLE_OF,
    SPEC_KW_REQUIRED,
    SPEC_KW_PROPERTIES,
    SPEC_KW_ADDITIONAL_PROPERTIES,
    SPEC_KW_ITEMS,
    SPEC_KW_ONE_OF,
    SPEC_KW_ANY_OF,
    SPEC_KW_ALL_OF,
    SPEC_KW_DISCRIMINATOR,
    SPEC_KW_REF,
    SPEC_KW_COUNT
} spec_schema_kw;

/** The keyword as JSON Schema spells it ("minLength"); NULL for an unknown k. */
const char *spec_schema_kw_name(spec_schema_kw k);

/**
 * A typed view of one schema: $ref followed, allOf merged (spec_schema_merge_allof), each
 * keyword looked up once. Made by spec_schema_view_open (a schema of an API) or
 * spec_schema_view_node (a free-standing JSON Schema node, e.g. a detail object's: nothing
 * is followed or merged). Holds pointers into the API's trees and the caller's arena: it
 * lives as long as both. Plain data; no free.
 */
typedef struct spec_schema_view {
    spec_loc written;      /* the schema as given (maybe a {"$ref"}) */
    spec_loc loc;          /* after $ref and allOf merge; node NULL when unresolved */
    long index;            /* the named schema written is (spec_schema_index), -1 inline */
    const char *ref;       /* written's $ref, NULL when it is none */
    bool unresolved;       /* written's $ref is dangling, refused or circular */
    const jt_node *all_of; /* the allOf array before the merge, NULL when none */
    const jt_node *kw[SPEC_KW_COUNT]; /* each keyword of loc as written, NULL when absent */
    const char *type;                 /* kw[SPEC_KW_TYPE] when it is a string (not a type array) */
    const char *format, *title, *description;         /* NULL when absent or not strings */
    bool nullable, read_only, write_only, deprecated; /* true only when written true */
    /* what written says beside its $ref (OAS 3.1 siblings win over the target's) */
    const char *written_description;
    bool written_read_only, written_write_only;
} spec_schema_view;

/**
 * The view of schema loc of api. arena NULL: $ref followed, allOf not merged (the allOf
 * array is then kw[SPEC_KW_ALL_OF]). Returns 0, or APIDEX_EREF when loc's $ref cannot be
 * followed (out->unresolved, out->loc.node NULL, keywords NULL). A failed merge (limits,
 * memory) leaves the schema unmerged. loc.node NULL gives an empty view. Thread-safe.
 */
int spec_schema_view_open(const spec_api *api, spec_loc loc, core_arena *arena,
                          spec_schema_view *out);
/** The view of a free-standing schema node n (no API: $ref not followed, no merge). */
void spec_schema_view_node(const jt_node *n, spec_schema_view *out);
/** Whether name (len bytes) is in the view's "required" list (an array of strings). */
bool spec_schema_view_requires(const spec_schema_view *v, const char *name, size_t len);
/** Whether the view has a non-empty properties object. */
bool spec_schema_view_has_properties(const spec_schema_view *v);
/** Whether the view's type is the string "array". */
bool spec_schema_view_is_array(const spec_schema_view *v);
/** The non-empty oneOf array, else the non-empty anyOf array, else NULL; *any says which. */
const jt_node *spec_schema_view_alternatives(const spec_schema_view *v, bool *any);
/** The view's enum, else its items' enum (an array of enum values); NULL when neither. */
const jt_node *spec_schema_view_enum(const spec_schema_view *v);
/** A node of the view's document (a property, items, an option) as a location. */
spec_loc spec_schema_view_at(const spec_schema_view *v, const jt_node *n);

/**
 * The cycle and depth guard of a walk over schemas: the named schemas (indexes) on the
 * path from the root, at most cap of them (<= SPEC_SCHEMA_GUARD_MAX). Plain data.
 */
enum { SPEC_SCHEMA_GUARD_MAX = 64 };
typedef struct spec_schema_guard {
    long stack[SPEC_SCHEMA_GUARD_MAX];
    unsigned n, cap;
} spec_schema_guard;
/** An empty guard holding up to cap entries (0 or more than the maximum: the maximum). */
void spec_schema_guard_init(spec_schema_guard *g, unsigned cap);
/** Whether named schema idx (>= 0) is on the path: expanding it again is a cycle. */
bool spec_schema_guard_has(const spec_schema_guard *g, long idx);
/** Pushes idx (-1: an inline schema, counted for depth); false when the guard is full. */
bool spec_schema_guard_push(spec_schema_guard *g, long idx);
/** Pops the last push (a no-op on an empty guard). */
void spec_schema_guard_pop(spec_schema_guard *g);

/** What a schema walk reports for one subschema. */
typedef enum spec_schema_visit {
    SPEC_VISIT_SCHEMA,     /* a schema, about to be descended into */
    SPEC_VISIT_CIRCULAR,   /* a named schema already on the path: not descended */
    SPEC_VISIT_UNRESOLVED, /* a $ref that cannot be followed */
    SPEC_VISIT_TOO_DEEP    /* past max_depth: not descended */
} spec_schema_visit;
/**
 * Called per subschema: via is the keyword it hangs under (SPEC_KW_COUNT for the root),
 * name the property name (NULL otherwise), depth its nesting. Returns 0 to go on, > 0 to
 * skip its subschemas, < 0 to stop the walk with that code.
 */
typedef int (*spec_schema_visit_fn)(const spec_schema_view *v, spec_schema_kw via, const char *name,
                                    unsigned depth, spec_schema_visit what, void *ctx);
enum { SPEC_SCHEMA_WALK_BUDGET = 100000 }; /* subschemas one walk visits at most */
/**
 * Walks schema root of api depth first in written order: the root, then each property,
 * items, additionalProperties (an object), oneOf, anyOf options (allOf is merged into the
 * view). Bounded: named schemas on the path are reported circular, nesting past max_depth
 * (at most SPEC_SCHEMA_GUARD_MAX - 1) too deep, and past SPEC_SCHEMA_WALK_BUDGET visits the
 * walk stops with APIDEX_ELIMIT, so a cyclic, deep or exponentially shared schema ends.
 * arena: for allOf merges (NULL: not merged). Returns 0, the callback's negative code,
 * APIDEX_ELIMIT or APIDEX_EINVAL (no api).
 */
int spec_schema_walk(const spec_api *api, spec_loc root, unsigned max_depth, core_arena *arena,
                     spec_schema_visit_fn fn, void *ctx);

/** The operation with this id ("api:opId" or "api:METHOD /path"), or NULL. */
const spec_operation *spec_api_find_operation(const spec_api *api, const char *id);

/**
 * A schema keyword's number (maximum, minLength, multipleOf, ...), written as a number or,
 * as some specs do ("maximum": "100"), as a numeric string; NAN when it is neither or absent
 * (then it constrains nothing). validate.c.
 */
double spec_keyword_num(const jt_node *n);
/** spec_keyword_num, dflt when absent or not a number. */
double spec_keyword_or(const jt_node *n, double dflt);

struct json_object;
/**
 * Validates the JSON value x against schema (a schema of api, $refs followed). request:
 * the value is sent (readOnly properties are not required); else it is received (writeOnly
 * ones are not). *problem: NULL when x is valid, else the first violation as
 * "JSON-pointer: what is wrong", allocated in arena. Returns 0, or APIDEX_ENOMEM.
 */
int spec_validate_json(const spec_api *api, spec_loc schema, struct json_object *x, bool request,
                       core_arena *arena, const char **problem);

/* ------------------------------------------- a schema view's own questions (schema_view.c) */

/** The schema of the view's property name (its properties object's member as written: maybe a
    $ref); node NULL when the view has no such property or name is NULL. */
spec_loc spec_schema_view_property(const spec_schema_view *v, const char *name);
/** The view's type when it is a string, else the first member of a type array (3.1) that is
    not "null"; NULL when neither. */
const char *spec_schema_view_first_type(const spec_schema_view *v);
/** Whether the view admits null: nullable written true, or "null" in a type array. */
bool spec_schema_view_allows_null(const spec_schema_view *v);
/** Whether the view's value may be null: OAS 3.0's nullable or Swagger 2.0's x-nullable
    written true (OAS 3.1 says so with a type array instead). */
bool spec_schema_view_nullable(const spec_schema_view *v);

/* ------------------------------------------------------ security schemes (view_security.c) */

/** What a security scheme is, by its type. */
typedef enum spec_security_kind {
    SPEC_SECURITY_NONE,           /* not declared, or without a type string */
    SPEC_SECURITY_API_KEY,        /* apiKey: in, param */
    SPEC_SECURITY_HTTP,           /* http: scheme ("bearer", "basic", as written), bearer_format */
    SPEC_SECURITY_BASIC,          /* Swagger 2.0's basic */
    SPEC_SECURITY_OAUTH2,         /* oauth2: token_url / flows */
    SPEC_SECURITY_OPENID_CONNECT, /* openIdConnect: openid_url */
    SPEC_SECURITY_OTHER           /* another type (mutualTLS, ...): type says which */
} spec_security_kind;

/**
 * One security scheme of an API as declared (OAS 3 components.securitySchemes, else Swagger
 * 2.0 securityDefinitions), its $ref followed. Strings point into the API's trees (NULL when
 * absent or not strings); plain data, lives as long as the API. Thread-safe.
 */
typedef struct spec_security_scheme {
    const char *name; /* its key in the schemes object (name_len bytes) */
    size_t name_len;
    spec_security_kind kind;
    const char *type;   /* as written ("apiKey", "http", "oauth2", "mutualTLS", 2.0 "basic") */
    const char *in;     /* apiKey: "header", "query" or "cookie" */
    const char *param;  /* apiKey: the header, query or cookie name */
    const char *scheme; /* http: the scheme as written ("Bearer", "basic") */
    const char *bearer_format, *description;
    const char *openid_url; /* openIdConnect: the discovery URL */
    /* oauth2, the scheme's own fields (Swagger 2.0) */
    const char *token_url, *authorization_url;
    const char *flow; /* "implicit", "password", "application", "accessCode" */
    /* oauth2, OAS 3 */
    const jt_node *flows;        /* the flows object as written (any type), NULL if absent */
    const char *flows_token_url; /* the first flow with a token or authorization URL: */
    const char *flows_authorization_url; /* its two URLs (either may be NULL) */
    const char *any_flow_token_url;      /* the first flow's tokenUrl that is a string */
    /* oauth2 client credentials: OAS 3 flows.clientCredentials' tokenUrl, Swagger 2.0 tokenUrl
       of flow "application" */
    const char *client_credentials_token_url;
    bool declared_for_version; /* under the key the document's version defines (securityDefinitions
                                  for 2.0, components for 3.x), not the other one */
    bool unresolved;           /* its $ref cannot be followed: the fields are the reference's own */
    spec_loc node;             /* the scheme object ($ref followed when it could be) */
} spec_security_scheme;

/** The number of security schemes api declares (0 when none or no api). */
size_t spec_security_scheme_count(const spec_api *api);
/** The i-th scheme in written order; false (out zeroed) when there is none. */
bool spec_security_scheme_at(const spec_api *api, size_t i, spec_security_scheme *out);
/** The scheme named name (len bytes), as a security requirement names it; false when api
    declares none by that name (out then holds the name only, kind SPEC_SECURITY_NONE). */
bool spec_security_scheme_find(const spec_api *api, const char *name, size_t len,
                               spec_security_scheme *out);
/** Whether op asks for credentials: its security array (else the document's, when the
    operation has no array) has an alternative that is not anonymous ({}). */
bool spec_operation_asks_credentials(const spec_api *api, const spec_operation *op);

/* ------------------------------------------ servers and their variables (view_servers.c) */

/** One variable of a server URL template (OAS 3 servers[].variables), as written. */
typedef struct spec_server_var {
    const char *name; /* name_len bytes */
    size_t name_len;
    const char *default_value;  /* its default when a string, else NULL */
    const jt_node *enum_values; /* its enum when an array (items may be any value), else NULL */
    const char *description;    /* NULL when absent or not a string */
    const jt_node *default_json, *enum_json; /* default and enum as written (any type), NULL
                                                when absent */
} spec_server_var;

/** The number of variables of the root document's server object `server` (written order,
    before servers without a url are left out of api->servers); 0 for Swagger 2.0. */
size_t spec_server_var_count(const spec_api *api, size_t server);
/** Variable i of that server object; false (out zeroed) when there is none. */
bool spec_server_var_at(const spec_api *api, size_t server, size_t i, spec_server_var *out);
/** Variable name of that server object; false (out zeroed) when it declares none. */
bool spec_server_var_find(const spec_api *api, size_t server, const char *name,
                          spec_server_var *out);
/** Variable name of server object server (as spec_api_server_object and
    spec_operation_servers give them); false (out zeroed) when it declares none. */
bool spec_server_object_var(const jt_node *server, const char *name, spec_server_var *out);

/** An operation's own servers array (OAS 3: they replace the API's), NULL when it has no
    non-empty one. Its items are server objects as written. */
const jt_node *spec_operation_servers(const spec_operation *op);
/** The url of a server object, NULL when it has no string url. */
const char *spec_server_url(const jt_node *server);
/** The API's server object (OAS 3 root servers, $ref followed) whose url is url, or NULL
    (Swagger 2.0 has none). */
const jt_node *spec_api_server_object(const spec_api *api, const char *url);

/** A server object as written (url and description NULL when absent or not strings). */
typedef struct spec_server_written {
    const char *url, *description;
    spec_server_var *vars; /* in written order; NULL when there are none */
    size_t n_vars;
} spec_server_written;
/**
 * The servers written for op: the operation's own non-empty "servers" array, else the
 * document's (OAS 3), not followed through $ref. *n 0 when neither: api->servers then holds
 * what the model derived (Swagger 2.0 host and basePath). *out lives in arena. Returns 0 or
 * APIDEX_ENOMEM.
 */
int spec_operation_servers_written(const spec_api *api, const spec_operation *op, core_arena *arena,
                                   spec_server_written **out, size_t *n);

/* ---------------------------------------------------------------- MCP entries (view_mcp.c) */

/** The schemas an MCP tool carries (oas/mcp.c copies them onto its operation). */
typedef enum spec_mcp_schema {
    SPEC_MCP_INPUT_SCHEMA,
    SPEC_MCP_OUTPUT_SCHEMA,
    SPEC_MCP_SCHEMA_COUNT
} spec_mcp_schema;

/** Which MCP entry an operation stands for. */
typedef enum spec_mcp_kind {
    SPEC_MCP_NONE,
    SPEC_MCP_TOOL,
    SPEC_MCP_RESOURCE,
    SPEC_MCP_PROMPT
} spec_mcp_kind;

/** What oas/mcp.c wrote on an operation made of an MCP tool, resource or prompt. */
typedef struct spec_mcp_entry {
    spec_mcp_kind kind;   /* the first of tool, resource, prompt whose name or URI is a string */
    spec_mcp_kind marked; /* the first of tool, resource, prompt marked, of any value */
    const char *tool;     /* the tool's name when the operation is a tool, else NULL */
    const char *resource; /* the resource's URI (template) when it is a resource */
    const char *prompt;   /* the prompt's name when it is a prompt */
    bool marked_tool, marked_resource, marked_prompt; /* the mark is there, of any value */
    const char *pointer;        /* where in the server's lists it was ("/resourceTemplates/0") */
    const char *title;          /* the tool's title, NULL when none */
    const jt_node *annotations; /* the tool's annotations object, NULL when none */
    bool annotated;             /* the tool has annotations (of any value) */
    bool read_only_hint, destructive_hint;  /* true only when written true */
    spec_loc schema[SPEC_MCP_SCHEMA_COUNT]; /* its input/output schema as kept; node NULL: none */
} spec_mcp_entry;

/** The MCP entry of op (kind SPEC_MCP_NONE and all unset for an operation of an OpenAPI
    document, or op NULL). */
void spec_operation_mcp(const spec_operation *op, spec_mcp_entry *out);
/** "tool", "resource" or "prompt" (static strings); NULL for SPEC_MCP_NONE. */
const char *spec_mcp_kind_name(spec_mcp_kind kind);
/**
 * Appends to out the JSON pointer ("#/paths/~1x/post/...") the $refs of op's kept schema
 * `which` were rebased onto when oas/mcp.c copied it: a $ref starting with it pointed into
 * the tool's own schema ("#..."). APIDEX_EINVAL (no op or which), APIDEX_ENOMEM.
 */
int spec_mcp_schema_base(const spec_operation *op, spec_mcp_schema which, core_buf *out);

/* ------------------------------------ serialisation and examples (view_params.c) */

/** How values are serialised, and a parameter's examples, as written: a parameter's
    style/explode/allowReserved (Swagger 2.0: collectionFormat), or a form or multipart
    field's encoding object (also its contentType). String fields NULL when absent or not
    strings; node fields NULL when absent. */
typedef struct spec_serialization {
    const char *style;
    int explode;                   /* 1 or 0 as written; -1 when absent or not a boolean */
    bool allow_reserved;           /* true only when written true */
    const char *collection_format; /* Swagger 2.0 parameters */
    const char *content_type;      /* encoding objects */
    const jt_node *style_json, *explode_json; /* style and explode as written (any type) */
    const jt_node *example, *examples;        /* a parameter's example and examples */
} spec_serialization;
/** How parameter p is serialised (its object, $ref followed); all unset for p NULL. */
spec_serialization spec_param_serialization(const spec_param *p);
/** The encoding of field `field` of media type m (OAS 3 encoding[field]); all unset when it
    has none. */
spec_serialization spec_media_field_encoding(const spec_media *m, const char *field);

/** The example a media type object gives beside its schema, as written; NULL when none. */
const jt_node *spec_media_example(const spec_media *m);
enum { SPEC_MEDIA_EXAMPLES_MAX = 3 };
/**
 * The example values a response's media type offers, in the order to try them: the media
 * type's example, the value of the first of its examples ($ref followed), the Swagger 2.0
 * response's examples for the type. Absent ones and repeats are left out; returns how many
 * are in out. resp or media may be NULL. Values point into the API's trees.
 */
size_t spec_media_examples(const spec_api *api, const spec_response *resp, const spec_media *media,
                           const jt_node *out[SPEC_MEDIA_EXAMPLES_MAX]);

/** Whether a media type is JSON-like (its name holds "json": application/problem+json too). */
bool spec_media_type_is_json(const char *type);
/** The media type to describe of media[0..n): the first JSON-like one with a schema, else the
    first with a schema, else the first; NULL when n is 0. */
const spec_media *spec_pick_media(const spec_media *media, size_t n);
/** The success response to describe of op: the first 2xx one whose picked media type
    (spec_pick_media) has a schema, else the first 2xx one, else NULL. */
const spec_response *spec_success_response(const spec_operation *op);

/* ------------------------------------------------- keys of a raw OpenAPI tree (tree_keys.c) */

/**
 * What a key of a raw OpenAPI tree is, for walks that filter a tree without the model (prep's
 * tree filter): a bit set of SPEC_TREE_KEY_*. The key is len bytes, not NUL-terminated; NULL
 * has no role.
 */
enum {
    SPEC_TREE_KEY_NAMES = 1u << 0,          /* under it, keys are names the author chose */
    SPEC_TREE_KEY_FUNCTIONAL = 1u << 1,     /* its string value makes the document work ($ref,
                                               operationId, pattern, ...): never rewritten */
    SPEC_TREE_KEY_VALUE_LIST = 1u << 2,     /* a list of values the API checks (enum, required) */
    SPEC_TREE_KEY_EXAMPLE = 1u << 3,        /* an example or examples (x- forms too) */
    SPEC_TREE_KEY_RESPONSES = 1u << 4,      /* the responses map */
    SPEC_TREE_KEY_HEADERS = 1u << 5,        /* a headers map */
    SPEC_TREE_KEY_REQUEST_BODY = 1u << 6,   /* an operation's request body */
    SPEC_TREE_KEY_REQUEST_BODIES = 1u << 7, /* the components' request bodies */
    SPEC_TREE_KEY_COMPONENTS = 1u << 8,     /* the components object */
    SPEC_TREE_KEY_PARAMETERS = 1u << 9      /* a parameters list or map */
};
unsigned spec_tree_key_roles(const char *key, size_t len);
/** Whether a parameter object of a raw tree is a Swagger 2.0 body or formData parameter. */
bool spec_tree_param_in_body(const jt_node *param);

#endif /* APIDEX_OAS_H */
