/*
 * oas internals shared by the loader's files: the private parts of an API
 * (documents, the $ref table, lookup maps), small hash maps, and the walk that
 * tells keywords from names and data in an OpenAPI tree.
 */
#ifndef APIDEX_OAS_INT_H
#define APIDEX_OAS_INT_H

#include "oas/oas.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- hash maps */

/** Open-addressing map from a pointer (a node) to a size_t. Not thread-safe to build. */
typedef struct spec_ptrmap {
    const void **keys;
    size_t *vals;
    size_t n, cap; /* cap is 0 or a power of two */
} spec_ptrmap;

int spec_ptrmap_put(spec_ptrmap *m, const void *key, size_t val);
/** true and *val when key is present. */
bool spec_ptrmap_get(const spec_ptrmap *m, const void *key, size_t *val);
void spec_ptrmap_free(spec_ptrmap *m);

/** Open-addressing map from a string (copied into the map's own storage) to a size_t. */
typedef struct spec_strmap {
    char **keys;
    size_t *lens;
    size_t *vals;
    size_t n, cap;
} spec_strmap;

int spec_strmap_put(spec_strmap *m, const char *key, size_t len, size_t val);
bool spec_strmap_get(const spec_strmap *m, const char *key, size_t len, size_t *val);
void spec_strmap_free(spec_strmap *m);

/* ---------------------------------------------------------------- documents and refs */

struct spec_doc {
    jt_doc *tree;     /* NULL when the file could not be loaded (the error is in diags) */
    const char *file; /* path or URL for people: the root as given, others relative to it */
    const char *real; /* realpath, or the URL */
    const char *dir;  /* realpath of the directory (files) or the URL itself (remote) */
    bool remote;
    size_t index; /* in spec_api_int.docs */
};

enum { SPEC_REF_TODO = 0, SPEC_REF_ACTIVE, SPEC_REF_DONE };

/** One reference site: a {"$ref": ...} object or a discriminator mapping value. */
typedef struct spec_refent {
    const jt_node *site;
    const spec_doc *site_doc;
    const char *ref;       /* the reference as written */
    spec_loc hop;          /* what it points at (which may be another reference) */
    const char *hop_ptr;   /* JSON pointer of hop in its document (decoded) */
    spec_loc final;        /* the end of the chain; node NULL when unresolved */
    const char *final_ptr; /* JSON pointer of final */
    int status;            /* 0, APIDEX_EREF (dangling, refused, circular) or APIDEX_ELIMIT */
    unsigned hops;         /* references followed to reach final */
    uint8_t state;         /* SPEC_REF_* while chains are being followed */
} spec_refent;

typedef struct spec_api_int spec_api_int;

/* The registry-wide settings an API needs while loading. */
typedef struct spec_settings {
    spec_options opt; /* defaults filled in; remote_hosts deep-copied */
} spec_settings;

/** The private side of an API; pub comes first so a spec_api* converts to it. */
struct spec_api_int {
    spec_api pub;
    const spec_settings *set;
    core_arena *arena;
    char *stem;            /* the root file's stem, before registry-wide disambiguation */
    char *sort_key;        /* the root file as given (registry order) */
    char *real;            /* realpath of the root file, or its URL (duplicate detection) */
    char *root_dir;        /* realpath of the root's directory: refs may not leave it */
    char *root_host;       /* host of a remote root, allowed for remote refs when those are on */
    const char *given_dir; /* directory of the root file as given, with its '/' (display) */
    bool no_files;         /* loaded from memory without a directory: no file refs */
    bool deferred;         /* found but not parsed yet (spec_registry_load) */
    bool explicit_root;    /* named by the user, not found by a directory scan */
    bool named;            /* from memory with a valid id for a name: stem is the id */
    core_budget *budget;   /* memory of this API's load (spec_options.load_memory_*) */
    size_t loaded_bytes;   /* of the files it loaded, which set the budget's limit */
    spec_doc **docs;
    size_t n_docs, cap_docs;
    spec_strmap doc_by_path; /* realpath / URL / normalised path → doc index */
    spec_strmap dir_real;    /* directory as written → its realpath (arena string) or 0 */
    bool docs_limit_reported;
    spec_refent *refs;
    size_t n_refs, cap_refs;
    spec_ptrmap ref_by_site;    /* site node → index in refs */
    spec_ptrmap schema_by_node; /* schema node → index in pub.schemas */
    spec_strmap schema_by_name;
    size_t cap_schemas;
    size_t cap_ops;
    spec_strmap op_by_nat; /* natural operation id ("listPets", "GET /pets") → op index */
    const char **op_nat;   /* natural id of each operation */
    unsigned locates;      /* JSON position look-ups done (capped: each scans the text) */
    unsigned searches;     /* node → pointer searches done (capped likewise) */
    const char *name;      /* spec_input_options.name (arena), or NULL */
    const char **include_tags, **exclude_tags; /* NULL-terminated (arena), or NULL */
    bool generated; /* the root was made by running the source (an MCP server's tool list),
                       so it cannot be read again without it: spec_api_generated_text */
};

static inline spec_api_int *spec_api_priv(const spec_api *api)
{
    return (spec_api_int *)(void *)api;
}

/* load.c */
/** The default load_memory_factor: $APIDEX_MAX_LOAD_MEMORY (1..100000), else 32. */
unsigned spec_load_memory_factor_default(void);
/** Loads (once) the file or URL at real; returns the doc, or NULL with a diagnostic. */
spec_doc *spec_doc_open(spec_api_int *ai, const char *real, bool remote, const char *file,
                        const spec_doc *from, const char *site_ptr);

/* diag.c */
/** Adds a diagnostic located at node (and/or pointer) in doc. */
void spec_diag(spec_api_int *ai, core_diag_level level, int code, const spec_doc *doc,
               const jt_node *node, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/** The JSON pointer of node in doc (searched; for diagnostics only), in ai's arena. */
const char *spec_node_pointer(spec_api_int *ai, const spec_doc *doc, const jt_node *node);

/* fetch.c */
/**
 * GET url through the outbound layer (net/net.h) into malloc'd memory (NUL-terminated);
 * max_bytes and timeout enforced. root: the URL the user gave for this API (a URL source),
 * or NULL (a local root): its origin is allowed whatever its addresses, loopback included.
 * source (follow_redirects): url is a URL source the user gave: any host, redirects
 * followed (each hop re-checked). Otherwise url is a remote $ref: only o->remote_hosts and
 * root's host, no redirects. Either way every other origin's private, loopback and
 * link-local addresses are refused unless listed in o->remote_addresses (APIDEX_EREFUSED).
 * Errors: APIDEX_ENOTFOUND (404, 410), APIDEX_ELIMIT (over max_bytes), APIDEX_ENET.
 */
int spec_fetch_url(const spec_options *o, const char *root, const char *url, long timeout_ms,
                   size_t max_bytes, bool follow_redirects, char **out, size_t *out_len,
                   apidex_error *err);
/** The host part of an http(s) URL (malloc'd), or NULL. */
char *spec_url_host(const char *url);
/** url resolved against base (malloc'd), or NULL. */
char *spec_url_join(const char *base, const char *rel);

/* refs.c */
/** Finds and resolves every reference in every loaded document (loading more as needed). */
int spec_resolve_all(spec_api_int *ai);
/** The reference entry for a site node, or NULL. */
const spec_refent *spec_ref_lookup(const spec_api_int *ai, const jt_node *site);
/** Percent-decodes s[0..n) into the arena. */
char *spec_percent_decode(core_arena *a, const char *s, size_t n);

/* normalize.c */
/** Fills info, servers, tags and operations from the root document. */
int spec_normalize(spec_api_int *ai);
/** A member that may be written as a $ref (e.g. a description): the string it leads to. */
const char *spec_get_str(const spec_api_int *ai, spec_loc obj, const char *key);

/* postman.c */
/** Whether root is a Postman collection: 20 (v2.0), 21 (v2.1), -1 (another collection
    version: not supported), 0 (not a collection). By content only. */
int spec_postman_detect(const jt_node *root);
/**
 * Translates the collection at doc's root (detected as `version`) into an OpenAPI 3 tree
 * in doc's arena (*out). Diagnostics name doc's file and the collection's pointers.
 * Returns 0, APIDEX_ESPEC (not usable: an error diagnostic says why) or APIDEX_ENOMEM.
 */
int spec_postman_translate(spec_api_int *ai, const spec_doc *doc, int version, jt_node **out);

/* mcp.c */
/** Whether root is an MCP tool list (the MCP client's document, or a bare `tools/list`
    result): 1, else 0. By content only. */
int spec_mcp_detect(const jt_node *root);
/**
 * Translates the tool list at doc's root into an OpenAPI 3 tree in doc's arena (*out), one
 * operation per tool (docs/MCP-SOURCES.md). Tools without a usable name are warnings.
 * Returns 0 or APIDEX_ENOMEM.
 */
int spec_mcp_translate(spec_api_int *ai, const spec_doc *doc, jt_node **out);
/** "mcp-<protocolVersion>" (or "mcp") for apis.spec_version, in a. */
const char *spec_mcp_version(const jt_node *root, core_arena *a);

/* select.c */
/** Drops the operations the input's tag filter does not keep (before the model is built). */
int spec_select_ops(spec_api_int *ai);
/** The content hash mixed with the tag filter (unchanged without one). */
uint64_t spec_select_hash(const spec_api_int *ai, uint64_t content_hash);

/* model.c */
/** Registers schemas, builds the schema graph, ids, cycles and used-by counts. */
int spec_model_build(spec_api_int *ai);
/** (Re)makes the prefixed ids of operations and schemas after the API id changed. */
int spec_model_set_ids(spec_api_int *ai);

/* graph.c */
/** Cycle count (DFS back edges), in_cycle (SCCs) and used_by over the finished graph. */
int spec_graph_analyse(spec_api_int *ai);

/* ---------------------------------------------------------------- the keyword walk */

/*
 * Limits of one document past which it fails alone (APIDEX_ELIMIT from a build step: the
 * error is already in its diagnostics, with the file, a pointer and the limit named; the
 * registry and the index go on with the other documents). docs/INDEX.md "Load limits".
 */
enum {
    SPEC_MAX_PATH_BYTES = 16384 /* one key of `paths`: real ones are under 300 bytes */
};

/*
 * Which members of an OpenAPI object are keywords, which are names, which are
 * data. A $ref is only a reference where a keyword can be: inside
 * `properties` a member called "$ref" is a property, and inside `example` it is
 * just data. Every walk over a tree uses the same rules.
 */
enum {
    SPEC_CTX_NAMES = 1,       /* the object's keys are names (properties, paths, ...) */
    SPEC_CTX_EXAMPLE_MAP = 2, /* an `examples` map: its values are Example Objects */
    SPEC_CTX_EXAMPLE_OBJ = 4, /* an Example Object: its `value` is data */
    SPEC_CTX_DATA_REF = 8,    /* `example: {$ref: ...}`: resolved, but data, not a schema */
    SPEC_CTX_SKIP = 0x80      /* not a child to walk */
};

/** The context of the child at key in an object of context ctx (SPEC_CTX_SKIP: data). */
uint8_t spec_child_ctx(uint8_t ctx, const char *key, uint32_t key_len, const jt_node *child);
/** The i-th child of an object or array met in context ctx, and *cctx its context
    (array items that are scalars are SPEC_CTX_SKIP). Used by the iterative walks. */
const jt_node *spec_walk_child(const jt_node *node, uint32_t i, uint8_t ctx, uint8_t *cctx);
/** The $ref string of an object, or NULL when it is not a reference. */
const char *spec_ref_of(const jt_node *obj);

/* ---------------------------------------------------------------- the registry (load*.c) */

struct spec_registry {
    spec_settings set;
    core_arena *arena; /* copies of the options' strings */
    spec_api_int **apis;
    size_t n, cap;
    spec_strmap by_real;             /* realpath or URL of each root: added once */
    spec_strmap by_id;               /* API id → index in apis (rebuilt when the order changes) */
    const spec_input_options *input; /* of the spec_registry_add_input call running, or NULL */
};

/* load.c */
/** Parses a root document of len bytes (text owned from now on) charged to a new budget
    for its API, which *budget_out returns (NULL when out of memory) for spec_api_new. */
int spec_parse_root(const spec_registry *reg, char *text, size_t len, const char *file,
                    jt_doc **tree, core_budget **budget_out, apidex_error *perr);
/** A new API; budget (owned from now on, even on failure) is the one its root was parsed
    with, or NULL for a new one. */
spec_api_int *spec_api_new(spec_registry *reg, const char *given, const char *real, bool remote,
                           bool no_files, core_budget *budget);
void spec_api_free(spec_api_int *ai);
/** Builds the API from its parsed root (tree NULL: perr says why it could not be parsed). */
int spec_api_from_root(spec_api_int *ai, jt_doc *tree, const apidex_error *perr);
/** Appends ai (owned from now on) to the registry; its id comes with spec_registry_finish. */
int spec_registry_insert(spec_registry *reg, spec_api_int *ai);
/** Sorts the registry's APIs and gives them their ids. */
int spec_registry_finish(spec_registry *reg);

/* load_input.c */
/** Adds one file; in a directory scan (explicit false) a file that is no OpenAPI root is
    skipped quietly. */
int spec_registry_add_file(spec_registry *reg, const char *path, bool explicit, apidex_error *err);
/** Is the parsed root an OpenAPI, Swagger, Postman or MCP document? */
bool spec_root_is_openapi(const jt_doc *doc);

#endif /* APIDEX_OAS_INT_H */
