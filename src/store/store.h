/*
 * store: the index. One SQLite file holds every API, operation, schema and
 * chunk of a registry, the edges between them and room for chunk vectors.
 * The store is the codec (the file, or generations in PostgreSQL): rows in and
 * out. What the rows are made from (rendering, analysis, chunking, embedding,
 * the ids) is the build stage's (src/build, build_index).
 *
 * Design notes
 * - Builds never touch the live file. A build writes a new database next to
 *   it (same directory, so rename() is atomic), fsyncs it and renames it over
 *   the target. A reader (a running server) keeps the file it opened; a crash
 *   or kill -9 mid-build leaves the previous index as it was, plus a stale
 *   temp file that the next build removes.
 * - One build at a time: a build holds `<db>.lock` (flock, lock.c) from before
 *   it reads the current index until the rename, so concurrent builds run one
 *   after the other and none is lost. Readers take no lock.
 * - Because the file is never modified in place, readers open it with
 *   `immutable=1`: no locks, no journal, no WAL (renaming over a WAL database
 *   in use is unsafe, so the index never uses WAL).
 * - Incremental: a document whose content hash (over every file its API is
 *   made of) and API id did not change is copied row by row from the old index
 *   (ATTACH); only changed and new documents are chunked again. Everything is
 *   keyed by text ids (api, "api:opId", "api:Schema", chunk ids), so copied
 *   rows need no renumbering. Options that change chunking (strategy, filters,
 *   the apidex version) force a full rebuild.
 * - Readers load whole tables into memory once (the search stage ranks over
 *   arrays, not SQL), without the rendered text (content of operations, schemas
 *   and chunks), which is read row by row when shown.
 * - Small: rendered text that only show, details and context read is stored
 *   zstd-packed (pack.c) and decoded where a column is read; operations keep no
 *   lexical text (their endpoint chunks carry the terms); a chunk ranked field
 *   by field keeps no copy of its whole text's terms.
 *
 * The file format (tables, columns, build protocol) is documented in
 * docs/INDEX.md; keep it in step with schema.c.
 */
#ifndef APIDEX_STORE_H
#define APIDEX_STORE_H

#include "core/core.h"
#include "oas/oas.h"
#include "text/text.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The index schema version (PRAGMA user_version). Bumped on every incompatible change. */
#define STORE_SCHEMA_VERSION 6
/** The default index file when neither --db nor APIDEX_DB is given. */
#define STORE_DEFAULT_DB "apidex.db"

/** An open index (read side). Thread-safe: loaders and queries may run concurrently. */
typedef struct store_index store_index;

/* ---------------------------------------------------------------- lexical fields */

/**
 * The lexical fields of a chunk: one terms column each, so ranking can weight
 * them. The set is part of the schema (a new field is a new version).
 */
typedef enum {
    STORE_FIELD_PATH = 0,     /* the path template */
    STORE_FIELD_OPERATION_ID, /* operationId */
    STORE_FIELD_SUMMARY,
    STORE_FIELD_DESCRIPTION,
    STORE_FIELD_PARAMS,    /* parameter and request-body field names and descriptions */
    STORE_FIELD_RESPONSES, /* response field names */
    STORE_FIELD_TAGS,      /* tag names (and the API title) */
    STORE_FIELD_OTHER,     /* chunks: the whole indexed text; operations: the capability line */
    STORE_FIELD_COUNT
} store_field;

/** Column names of the fields ("path", "operation_id", ...), indexed by store_field. */
extern const char *const store_field_names[STORE_FIELD_COUNT];

/* ---------------------------------------------------------------- records */

/* Every record below is used both ways: the build fills one and hands it to a
   store_writer_add_* call (which copies what it needs), and a reader gets
   arrays of them back, owned by the index and valid until store_close. Strings
   are NUL-terminated UTF-8; optional ones are NULL when absent. */

typedef struct store_server {
    const char *url;
    const char *description;
} store_server;

typedef struct store_tag {
    const char *name;
    const char *description;
    size_t n_ops; /* operations carrying it (filled by the writer) */
} store_tag;

typedef struct store_api {
    const char *id;       /* the registry's API id */
    const char *document; /* the root document (absolute path or URL) */
    const char *title, *version, *description, *spec_version;
    const char *provider; /* info.x-providerName, or NULL */
    store_server *servers;
    size_t n_servers;
    store_tag *tags; /* declared tags plus tags used by operations, in spec order */
    size_t n_tags;
    size_t n_ops, n_schemas; /* filled by the writer on output */
    uint64_t content_hash;   /* over every file the API is made of */
    size_t n_files;          /* files the API is made of (root + $ref'd) */
    const char *overrides;   /* the registry file's settings for the API, a JSON object
                                ({"server": URL, "auth": {scheme: ENV}}, docs/REGISTRY.md),
                                or NULL */
    const char **aliases;    /* other names it answers to (reader output only), sorted */
    size_t n_aliases;
    const char *snapshot; /* writer input: the document itself when it cannot be read again
                             without running its source (spec_api_generated_text: an MCP
                             server's tool list), or NULL; readers leave it NULL and read it
                             with store_api_snapshot */
} store_api;

/** An input an operation needs to be called. */
typedef struct store_input {
    const char *name;     /* parameter name, or the body field name */
    const char *location; /* "path", "query", "header", "cookie" or "body" */
    const char *field;    /* identifier inputs: the entity the data-flow analysis found
                             (stemmed, "movi" for movie_id); NULL otherwise */
    bool required;
} store_input;

/** Facts about an operation found at index time (flow_op_facts), as store_operation.flags. */
enum {
    STORE_OP_TEXT_QUERY = 1u << 0,  /* takes a free-text search parameter (q, query, search...) */
    STORE_OP_MINE = 1u << 1,        /* its path is about the caller (/me, /users/@me, /my) */
    STORE_OP_DESTRUCTIVE = 1u << 2, /* DELETE, or its summary deletes, cancels, revokes... */
    STORE_OP_COLLECTION = 1u << 3   /* a GET whose path ends in a literal segment (lists or
                                       reads a collection, not one item by its key) */
};

typedef struct store_operation {
    const char *id; /* "api:operationId" or "api:METHOD /path" */
    const char *api;
    const char *method; /* upper case */
    const char *path;   /* the path key exactly as written */
    const char *operation_id, *summary, *description;
    const char **tags;
    size_t n_tags;
    bool deprecated;
    const char *pointer;    /* JSON pointer of the operation in its root document */
    const char *capability; /* one line "what it does" for catalogs and manifests */
    const char *content;    /* the whole operation rendered, schemas resolved (show); on
                               output read it with store_operation_content */
    size_t tokens;          /* cl100k tokens of content */
    /* Input only, and not stored (since schema 3 the lexical text lives in the
       chunks): raw text per field, a convenience for callers that build an
       operation and its endpoint chunk from one set. A reader leaves both NULL. */
    const char *fields[STORE_FIELD_COUNT];
    store_input *inputs;
    size_t n_inputs;
    int action;       /* text_action of its summary's verb, else of its method */
    const char *verb; /* stem of the verb its summary (or operationId) starts with, or NULL */
    unsigned flags;   /* STORE_OP_* */
    size_t api_index; /* output only: index into store_apis() */
} store_operation;

typedef struct store_schema {
    const char *id; /* "api:Name" */
    const char *api;
    const char *name;
    const char *pointer; /* where it is defined */
    const char *content; /* rendered (resolved one level, refs by name); on output read
                            it with store_schema_content */
    size_t tokens;
    size_t used_by; /* operations that reference it, directly or not */
    bool in_cycle;
    size_t api_index; /* output only */
} store_schema;

typedef struct store_chunk {
    const char *id; /* unique in the index */
    const char *api;
    const char *type;       /* "endpoint", "schema", "summary", "text", ... (from chunk) */
    const char *content;    /* what is handed to a reader or an LLM (output: NULL, read
                               it with store_chunk_content) */
    const char *text;       /* what was embedded/indexed (may equal content; output:
                               NULL, read it with store_chunk_text: NULL when it is the
                               content) */
    const char *metadata;   /* a JSON object, or NULL (output: NULL, read it with
                               store_chunk_metadata) */
    const char **endpoints; /* operation ids the chunk belongs to */
    size_t n_endpoints;
    size_t tokens; /* cl100k tokens of content */
    /* Per-field raw text on input (the writer turns it into terms; NULL =
       empty); on output both are NULL (store_chunk_terms_scan streams the terms). In an
       index ranked field by field (strategy hybrid, the default), a chunk with terms in
       any field before STORE_FIELD_TAGS is ranked on those fields only, so its
       STORE_FIELD_OTHER terms are not stored (streamed as ""). */
    const char *fields[STORE_FIELD_COUNT];
    const char *terms[STORE_FIELD_COUNT];
    long *endpoint_ops; /* output only: index into store_operations() per endpoint, -1 unknown */
    size_t api_index;   /* output only */
} store_chunk;

typedef enum {
    STORE_EDGE_OP_SCHEMA = 0,     /* src operation references schema dst */
    STORE_EDGE_SCHEMA_SCHEMA = 1, /* src schema references schema dst */
    STORE_EDGE_PRODUCER = 2       /* src operation's input `param` is produced by operation dst */
} store_edge_kind;

typedef struct store_edge {
    store_edge_kind kind;
    const char *src, *dst; /* ids (operation or schema, by kind) */
    const char *param;     /* PRODUCER: the consumer's input name; else NULL */
    const char *field;     /* PRODUCER: the entity of param ("movi"); else NULL */
    double score;          /* PRODUCER: plausibility, higher is better (about 0..4); else 1 */
    bool explicit_hint;    /* PRODUCER: the consumer's description names the producer */
    unsigned features;     /* PRODUCER: what the score is made of (FLOW_F_*, flow/flow.h),
                              so search can weigh it with its own parameters */
    /* output only: index into store_operations() / store_schemas(); -1 when dangling */
    long src_index, dst_index;
} store_edge;

/* ---------------------------------------------------------------- reading */

/**
 * Opens the index at path. readonly opens it immutable (the normal case: builds
 * never modify a file in place). Errors: APIDEX_ENOTFOUND (no file),
 * APIDEX_EVERSION (another schema version, or not an apidex index; the message
 * says which and what to do), APIDEX_EDB. *out: store_close.
 */
int store_open(const char *path, bool readonly, store_index **out, apidex_error *err);
/** NULL is a no-op. Invalidates every pointer handed out by the index. */
void store_close(store_index *idx);

/** The build id of the open file: a new random value on every build (never 0). */
uint64_t store_index_version(const store_index *idx);
/**
 * The search image (docs/INDEX.md, "The search image"): bytes the search stage builds from
 * a finished index, stored once in a file beside it (`<index>.image-<build id>`) that the
 * index names (meta.image_file) and swapped in with it. A writer given a builder
 * (store_writer_options.image; the build stage passes the one the program registered with
 * build_image_set_builder) calls it on the complete temp file (build_id: the new index's
 * store_index_version), writes the file and names it before the rename. Without one, a
 * writer names no image.
 */
typedef int (*store_image_builder)(store_index *idx, uint64_t build_id, core_buf *out,
                                   apidex_error *err);
/** The image's bytes in one malloc'd buffer (*data: free): an older index's or a PostgreSQL
    replica's BLOB rows (table `image`), else the file the index names; *data NULL when it
    has none or the file is missing. The caller checks them (build id, checksum). Errors:
    APIDEX_ENOMEM, APIDEX_EDB. */
int store_image_read(store_index *idx, void **data, size_t *len, apidex_error *err);
/** The image file the index names mapped read-only; *data NULL when there is none
    (APIDEX_IMAGE_MAP=0: never). Owned by idx until store_close; the caller checks the whole
    image (build id, checksum) and reads store_image_read when that fails. Cheap after the
    first call (the same mapping). */
void store_image_map(store_index *idx, const void **data, size_t *len);
/**
 * True when the file at path is no longer the one idx has open (replaced by a
 * rebuild, or removed): compares device, inode, size and mtime. Cheap (one stat).
 */
bool store_index_changed(const char *path, const store_index *idx);

/* ---------------------------------------------------------------- server database */

/* The index can live in PostgreSQL (docs/SCALE.md): every function taking an index path
   also takes a "postgres://" or "postgresql://" URL (credentials from the URL, PG*
   variables or a service file, as libpq reads them). A build publishes a new generation;
   store_open loads the current one. */

/** True when path names a PostgreSQL database rather than a file. */
bool store_is_server(const char *path);
/** path as messages show it: a URL with its password masked (into buf), a file as is. */
const char *store_display(const char *path, char *buf, size_t cap);
/** The generation idx was loaded from (server database), 0 for a file. */
long long store_index_generation(const store_index *idx);
/** What a PostgreSQL replica has read from the server so far (at open, and the rows read
    on demand since): false (and zeros) for an index file. */
bool store_index_fetched(store_index *idx, size_t *rows, size_t *bytes);

/** Follows the published generation of a server database on a thread of its own:
    LISTEN for publishes, a poll every poll_s seconds as the fallback, reconnecting with
    backoff when the connection is lost (pg_follow.c). */
typedef struct store_follow store_follow;
typedef struct store_follow_status {
    bool connected;
    long long generation;   /* the last one seen published (0 = none yet) */
    uint64_t reconnects;    /* connections made after the first */
    uint64_t notifications; /* publishes heard by LISTEN */
    char error[256];        /* why it is disconnected ("" when connected) */
} store_follow_status;
/** Starts following url; on_tick(ctx, generation) runs on the follower's thread after
    every notification or poll that read the generation. *out: store_follow_stop. */
int store_follow_start(const char *url, double poll_s,
                       void (*on_tick)(void *ctx, long long generation), void *ctx,
                       store_follow **out, apidex_error *err);
void store_follow_get(store_follow *f, store_follow_status *out);
/** Stops the thread and frees f. NULL is a no-op. */
void store_follow_stop(store_follow *f);

/** Facts about an open index. Strings owned by the index. */
typedef struct store_info {
    int schema_version;
    uint64_t build_id;
    const char *apidex_version; /* of the build */
    const char *strategy;       /* chunking strategy ("" = default) */
    const char *filters;        /* preprocessing filters ("" = default) */
    const char *created;        /* ISO-8601 UTC */
    size_t n_apis, n_operations, n_schemas, n_chunks, n_edges, n_documents;
} store_info;
int store_index_info(store_index *idx, store_info *out, apidex_error *err);

/*
 * Load-all accessors. The first call loads the table (under a lock), later
 * calls return the same array. Arrays are ordered by API id, then spec order.
 * Owned by the index; valid until store_close.
 */
int store_apis(store_index *idx, const store_api **out, size_t *n, apidex_error *err);
int store_operations(store_index *idx, const store_operation **out, size_t *n, apidex_error *err);
int store_schemas(store_index *idx, const store_schema **out, size_t *n, apidex_error *err);
int store_chunks(store_index *idx, const store_chunk **out, size_t *n, apidex_error *err);
int store_edges(store_index *idx, const store_edge **out, size_t *n, apidex_error *err);

/** Index into store_operations() of the operation with this id, or -1 (loads if needed). */
long store_find_operation(store_index *idx, const char *id);
/** Index into store_schemas() of the schema with this id, or -1. */
long store_find_schema(store_index *idx, const char *id);
/** Index into store_apis() of the API with this id, or -1. */
long store_find_api(store_index *idx, const char *id);
/**
 * The API a person means by `name` (resolve_api.c): its id, an alias, a unique
 * prefix of an id or alias, or its title (case-insensitive throughout, in that
 * order of preference). *out: index into store_apis(). An unknown name is
 * APIDEX_ENOTFOUND, an ambiguous one APIDEX_EINVAL; the message names the
 * closest ids (edit distance, prefix). Thread-safe like store_apis.
 */
int store_resolve_api(store_index *idx, const char *name, long *out, apidex_error *err);

/*
 * Text read when it is shown, not when the index is opened: the loaders above leave
 * store_operation.content, store_schema.content, store_chunk.content and .text NULL (the
 * rendered text is most of the file; a search needs none of it), and these read one
 * row's on first use. The text stays in the index until store_close (a server shows the
 * same endpoints again and again). "" when i is out of range or the row cannot be read.
 * Thread-safe.
 */
const char *store_operation_content(store_index *idx, size_t i);
/** API i's kept document (store_api.snapshot), or NULL when the index keeps none. */
const char *store_api_snapshot(store_index *idx, size_t i);
/**
 * A new registry holding API i's document as it was indexed: the kept snapshot (an MCP
 * server's tool list: no server is started), else the document read again from its path
 * or URL, with the API's id as its name. *out (set even on an error: what was read, maybe a
 * failed API) is the caller's: spec_registry_free. Returns the spec_registry_add code.
 */
int store_api_registry(store_index *idx, size_t i, spec_registry **out, apidex_error *err);

/*
 * The operation behind an index row (opdoc.c), the one lookup of every reader that needs
 * the loaded document (detail, snippet, tool definitions, call, the agent): API ai's
 * document as store_api_registry gives it, kept in idx's cache of documents while it is
 * the version the index was built from (loaded, not failed, same content hash), so a second
 * request loads nothing. Each store_index has its own cache (a server's new snapshot starts
 * empty), bounded by count and bytes (store_doc_cache_limits), least recently used out
 * first; thread-safe, and a document in use is freed only when its last holder releases it.
 * *out (set whenever a document was read, even with an error: maybe a failed API; NULL
 * otherwise) is released by store_doc_release; *api is its API (NULL when the registry is
 * empty) and lives as long. Returns store_api_registry's status, APIDEX_EINVAL for no such
 * API, APIDEX_ENOMEM.
 */
typedef struct store_doc store_doc;
int store_api_doc(store_index *idx, size_t ai, store_doc **out, const spec_api **api,
                  apidex_error *err);
/** store_api_doc for operation row oi's API, and *op the operation with the row's method
    and path (NULL when the document failed or no longer has it). */
int store_operation_doc(store_index *idx, long oi, store_doc **out, const spec_api **api,
                        const spec_operation **op, apidex_error *err);
/** The operation of api with this method and path template, or NULL (the document changed:
    an index row's operation is matched by its method and path). */
const spec_operation *store_doc_operation(const spec_api *api, const char *method,
                                          const char *path);
/** Ends the use of d (NULL: no-op). */
void store_doc_release(store_doc *d);
/** The cache's bounds: at most max_docs documents and max_bytes of their loads (the newest
    stays even alone over the bytes); 0 documents keeps none. Default 8 and 512 MiB. */
void store_doc_cache_limits(store_index *idx, size_t max_docs, size_t max_bytes);
/** What the cache has done: documents loaded through it (hits not counted), kept now, and
    their bytes (/metrics shows them; tests count loads with it). */
typedef struct store_doc_stats {
    size_t parses, kept, bytes;
} store_doc_stats;
store_doc_stats store_doc_cache_stats(store_index *idx);
const char *store_schema_content(store_index *idx, size_t i);
const char *store_chunk_content(store_index *idx, size_t i);
/** The text chunk i was indexed and embedded on when it has its own (summary and query
    strategies), NULL when that is its content. */
const char *store_chunk_text(store_index *idx, size_t i);
/** Chunk i's metadata (a JSON object), or NULL; read from the file when asked for. */
const char *store_chunk_metadata(store_index *idx, size_t i);

/** Called with chunk i of store_chunks() and its terms per field ("" when empty; valid
    during the call only). Non-zero stops the scan and is returned. */
typedef int (*store_terms_fn)(void *ctx, size_t i, const char *const *terms);
/**
 * Streams every chunk's terms in store_chunks() order to fn (the lexical ranker builds
 * its postings from them without keeping the text). Loads the chunks first if needed.
 */
int store_chunk_terms_scan(store_index *idx, store_terms_fn fn, void *ctx, apidex_error *err);
/** The rowid of operation i of store_operations() (loaded before), or -1 (the search image
    keeps it, to read an operation's texts without loading every operation). */
int64_t store_operation_rowid(const store_index *idx, size_t i);
/**
 * The summary and description of the operation in row rowid, into arena a (NULL when the
 * column is NULL or the row cannot be read): the search reads them for the endpoints it
 * shows when it opened from the search image and never loaded the operations. Returns 0,
 * or APIDEX_ENOMEM. Thread-safe.
 */
int store_operation_texts_at(store_index *idx, int64_t rowid, core_arena *a, const char **summary,
                             const char **description);
/** Which tables store_operations(), store_chunks() and store_edges() have loaded
    (STORE_LOADED_*): the open-cost guard checks that an open from the image reads none. */
enum { STORE_LOADED_OPERATIONS = 1u, STORE_LOADED_CHUNKS = 2u, STORE_LOADED_EDGES = 4u };
unsigned store_loaded(const store_index *idx);
/** The rowid of chunk i of store_chunks() (loaded before), or -1. A kept row keeps its rowid
    when `add` or `remove` patches the file (the search image's patch matches APIs by it). */
int64_t store_chunk_rowid(const store_index *idx, size_t i);
/** The chunks of each API, in rowid order: a run of rows [first_rowid, last_rowid] holding
    n chunks (an API whose rows are not consecutive shows as first > the previous last
    failing, or last - first + 1 != n). *out: free(); api strings in a. */
typedef struct store_chunk_run {
    const char *api;
    int64_t first_rowid, last_rowid;
    size_t n;
} store_chunk_run;
int store_chunk_runs(store_index *idx, core_arena *a, store_chunk_run **out, size_t *n,
                     apidex_error *err);
/** The operations of each API, in API order (the order of store_operations()): a run of n
    rows, the lowest and highest rowid (an API's rows that add or remove kept keep theirs).
    *out: free(); api strings in a. */
typedef store_chunk_run store_op_run;
int store_op_runs(store_index *idx, core_arena *a, store_op_run **out, size_t *n,
                  apidex_error *err);
/** One API's data flow as store_operations() and store_edges() would give it, read from its
    rows alone: its n_ops operations in rowid order, each one's input entities
    (store_input.field, NULL for none) in input order, and its producer edges in edge order
    (src_index/dst_index: the operations' positions in this API, -1 when out of range). In a. */
typedef struct store_api_flow {
    size_t n_ops;
    size_t *n_fields;     /* per operation */
    const char ***fields; /* per operation, n_fields[i] of them */
    store_edge *edges;    /* kind STORE_EDGE_PRODUCER only */
    size_t n_edges;
} store_api_flow;
int store_api_flow_read(store_index *idx, const char *api, core_arena *a, store_api_flow *out,
                        apidex_error *err);
/** store_chunk_terms_scan for the chunk rows rowids[0..n) only, in that order (fn's i is the
    index into rowids), one row read by rowid each; n_endpoints[i]: its endpoint count, set
    before fn is called. */
int store_chunk_terms_at(store_index *idx, const int64_t *rowids, size_t n, size_t *n_endpoints,
                         store_terms_fn fn, void *ctx, apidex_error *err);
/** Vectors of one model: a row-major n x dim float matrix and the chunk index of each row. */
typedef struct store_vectors {
    const char *model;
    size_t dim, n;
    const float *data;  /* n * dim */
    const size_t *rows; /* chunk index (store_chunks()) of each row */
} store_vectors;
/** Loads (once) the vectors stored for model; n == 0 when there are none. Owned by the index. */
int store_vectors_load(store_index *idx, const char *model, const store_vectors **out,
                       apidex_error *err);

/* ---------------------------------------------------------------- files and the writer lock */

/** What is at an index path (store_probe). */
typedef enum {
    STORE_FILE_MISSING = 0,
    STORE_FILE_EMPTY,  /* a zero-length file */
    STORE_FILE_APIDEX, /* an SQLite file with apidex's application id (maybe damaged) */
    STORE_FILE_SQLITE, /* another program's SQLite database */
    STORE_FILE_OTHER   /* anything else (not SQLite, a truncated header, a directory) */
} store_file_kind;
/** Looks at the first 100 bytes of path (the SQLite header): never opens it as a database. */
store_file_kind store_probe(const char *path);

/** How long a writer waits for another by default (seconds). */
#define STORE_LOCK_DEFAULT_WAIT 300.0

/** The writer lock of an index (`<db>.lock`, flock): see lock.c. */
typedef struct store_lock store_lock;
typedef struct store_lock_options {
    double wait_seconds; /* how long to wait for the holder; 0 = STORE_LOCK_DEFAULT_WAIT */
    bool no_wait;        /* fail at once when another process holds it */
    /** Called once when the lock is held by another process (pid holder, 0 if unknown),
        before waiting up to `seconds` for it. */
    void (*on_wait)(void *ctx, long holder, double seconds);
    void *on_wait_ctx;
} store_lock_options;
/**
 * Takes the writer lock of the index at db_path: waits for another holder as opt says
 * (NULL = defaults), then APIDEX_EBUSY naming the holder's pid. The kernel releases it
 * if the process dies. *out: store_lock_release.
 */
int store_lock_acquire(const char *db_path, const store_lock_options *opt, store_lock **out,
                       apidex_error *err);
/** Removes the lock file and lets go. NULL is a no-op. */
void store_lock_release(store_lock *l);

/* ---------------------------------------------------------------- writing */

/** How a build went. */
typedef struct store_build_report {
    size_t added, updated, removed, unchanged; /* documents */
    size_t failed;                             /* documents that could not be indexed */
    size_t kept; /* of the failed ones: previous version kept from the old index */
    size_t n_apis, n_operations, n_schemas, n_chunks, n_edges; /* in the new index */
    size_t embedded;       /* chunks embedded in this build (build_options.embedder) */
    size_t vectors_reused; /* chunks of changed documents whose vector was copied */
    bool full_rebuild;     /* the old index could not be reused (see reason) */
    char reason[256];      /* why a full rebuild ("" for none / first build) */
    uint64_t build_id;
    double seconds;
    size_t loads_at_once;       /* most APIs loaded and not yet written at once (deferred) */
    size_t load_memory_at_once; /* the most bytes of load budgets they held together */
} store_build_report;

/** Builds a new index into a temp file; nothing is visible until store_writer_commit. */
typedef struct store_writer store_writer;

/** What a build did to one API (store_writer_options.on_change). */
typedef enum { STORE_CHANGE_ADDED = 1, STORE_CHANGE_UPDATED, STORE_CHANGE_REMOVED } store_change;

typedef struct store_writer_options {
    const char *strategy; /* chunking strategy name (NULL = default): part of the signature */
    const char *filters;  /* preprocessing filters (NULL = default): part of the signature */
    bool full;            /* ignore the old index (force a full rebuild); a damaged apidex
                             index is then replaced instead of refused */
    bool patch;           /* few APIs change (add, remove): start from a copy of the current
                             index file and change only their rows, instead of copying every
                             kept API row by row. The same rows and guarantees; the kept
                             APIs keep their row order and the written ones come last. */
    /** Called after the new index is in place, once per API added, updated or removed
        (in that order), with its id. Never called for a build that did not commit. */
    void (*on_change)(void *ctx, store_change kind, const char *api);
    void *on_change_ctx;
    store_image_builder image; /* the search image's builder (NULL: none written) */
    /* The version of the builder's data-flow analysis (FLOW_VERSION): part of the
       signature, so new producer edges re-analyse unchanged documents. */
    int dataflow;
} store_writer_options;

/**
 * Starts a build of the index at db_path: creates `<db_path>.tmp-<pid>` in
 * the same directory (removing temp files of dead builds), and attaches the
 * current index at db_path, if any, for reuse when its schema version and
 * signature (strategy, filters, apidex version) match. opt may be NULL.
 * *out: store_writer_commit or store_writer_abort.
 */
int store_writer_begin(const char *db_path, const store_writer_options *opt, store_writer **out,
                       apidex_error *err);

/**
 * Whether the old index holds document `path` with this API id and content
 * hash, so store_writer_reuse can copy it. Sets *known (may be NULL) when the
 * old index has the path at all.
 */
bool store_writer_can_reuse(store_writer *w, const char *path, const char *api_id,
                            uint64_t content_hash, bool *known);
/** Copies every row of the document's API from the old index (counted "unchanged"). */
int store_writer_reuse(store_writer *w, const char *path, apidex_error *err);
/**
 * Like store_writer_reuse, for a document that failed to load this time: its
 * previous version stays in the index (counted "kept", not "removed").
 */
int store_writer_keep(store_writer *w, const char *path, apidex_error *err);
/** The API id document `path` has in the old index (if reusable), or NULL. Owned by w. */
const char *store_writer_old_api(store_writer *w, const char *path);
/** The documents of the old index (listed even when it cannot be reused, e.g. --full). */
size_t store_writer_old_count(const store_writer *w);
/** The i-th old document's path (sorted), its API id and whether the new index has it yet. */
const char *store_writer_old_doc(const store_writer *w, size_t i, const char **api, bool *used);
/** Whether old rows can be copied; else why not (a full rebuild) into why[0..cap). */
bool store_writer_reusable(const store_writer *w, char *why, size_t cap);

/**
 * Adds a document (api->document) and its API, counted "updated" when the old
 * index had the path, "added" otherwise. Operations, schemas, chunks and edges
 * of the API follow with the calls below (in any order, before the next API).
 */
int store_writer_add_api(store_writer *w, const store_api *api, apidex_error *err);
int store_writer_add_operation(store_writer *w, const store_operation *op, apidex_error *err);
int store_writer_add_schema(store_writer *w, const store_schema *s, apidex_error *err);
int store_writer_add_chunk(store_writer *w, const store_chunk *c, apidex_error *err);
/** api: the API the edge belongs to (its src's). */
int store_writer_add_edge(store_writer *w, const char *api, const store_edge *e, apidex_error *err);
/** A vector for chunk_id (any model; replaces an existing one of the same model). */
int store_writer_add_vector(store_writer *w, const char *api, const char *chunk_id,
                            const char *model, const float *v, size_t dim, apidex_error *err);

/**
 * The vector the old index holds for chunk_id and model, when that chunk's text
 * (its content when it has no text) was exactly `text` and its dimension dim:
 * copied into out (dim floats), returns 1; else 0. Only when the old index is
 * reused (same signature), so a changed document re-embeds only changed chunks.
 */
int store_writer_old_vector(store_writer *w, const char *chunk_id, const char *model,
                            const char *text, float *out, size_t dim);

/**
 * Finishes: counts removed documents (in the old index, neither replaced nor
 * reused), writes the metadata, fsyncs and renames the
 * temp file over db_path. rep (may be NULL) gets every count except `failed`
 * and `seconds`, which stay as the caller set them. Frees w in every case.
 */
int store_writer_commit(store_writer *w, store_build_report *rep, apidex_error *err);
/**
 * Sets the overrides (store_api.overrides; json NULL = none) of an API already in the
 * new index (added, reused or kept), so settings that changed without the document
 * are current.
 */
int store_writer_set_overrides(store_writer *w, const char *api_id, const char *json,
                               apidex_error *err);
/** Drops the temp file and frees w. NULL is a no-op. */
void store_writer_abort(store_writer *w);

/* What the build stage's id rules (src/build/ids.c) read from the old index and write. */
/** Old document i's content hash (writer_old.c; 0 when out of range). */
uint64_t store_writer_old_hash(const store_writer *w, size_t i);
/** True when the old index is of an older schema, whose ids were file names. */
bool store_writer_old_ids_legacy(const store_writer *w);
/** The aliases of the old index (none in an index of an older schema); strings owned by w. */
size_t store_writer_old_alias_count(const store_writer *w);
void store_writer_old_alias(const store_writer *w, size_t i, const char **alias, const char **api);
/** Records that `alias` names API `api` in the new index (the first one given wins). */
int store_writer_add_alias(store_writer *w, const char *alias, const char *api, apidex_error *err);

/**
 * The strategy (without its "+llm"/"+embed" parts) and filters the index at db_path was
 * built with, from its meta table (add and remove build as the index was built): malloc'd
 * strings, NULL when the file is missing, empty or lacks them. A file that is not an apidex
 * index: APIDEX_EREFUSED (store_file_error, writing).
 */
int store_index_settings(const char *db_path, char **strategy, char **filters, apidex_error *err);

/* ---------------------------------------------------------------- where a build writes (target.c)
 */

/**
 * The one place a writer tells a file from a server database (store_is_server). Begin takes
 * the builders' lock (`<db>.lock` for a file, PostgreSQL's advisory lock for a server; lock:
 * how long to wait) and names the SQLite file a store_writer builds (store_target_path): db
 * itself, or for a postgres:// URL a private file that starts as a copy of the current
 * generation (none when full, or when it is of another schema version), so unchanged
 * documents are reused either way. Commit, after store_writer_commit: nothing more for a
 * file (the writer renamed it into place); for a server, publishes the file as the next
 * generation. *out: store_target_end (rc: the build's status; for a server an error that
 * names the private file names the URL instead), which releases the lock.
 */
typedef struct store_target store_target;
int store_target_begin(const char *db, const store_lock_options *lock, bool full,
                       store_target **out, apidex_error *err);
const char *store_target_path(const store_target *t);
/** True for a server database (the build's time then counts the publish too). */
bool store_target_server(const store_target *t);
int store_target_commit(store_target *t, apidex_error *err);
void store_target_end(store_target *t, int rc, apidex_error *err);

/* ------------------------------------------------------------ usage sidecar (usage_sidecar.c) */

/** One reported use of an endpoint. Borrowed strings. */
typedef struct store_usage_use {
    const char *api, *method, *path;
} store_usage_use;

/** The uses of one endpoint, decayed to the time the set was read. */
typedef struct store_usage_entry {
    const char *api, *method;
    const char *shape; /* the path with every {parameter} as {}: store_path_shape */
    double count;      /* sum over the uses of 2^(-age / half-life) */
    size_t uses;       /* uses recorded (undecayed) */
} store_usage_entry;

/** Decayed uses per endpoint, sorted by (api, method, shape). */
typedef struct store_usage {
    store_usage_entry *entries;
    size_t n;
    core_arena *arena;
} store_usage;

/** path with every "{...}" as "{}" ("/pets/{petId}" -> "/pets/{}"), into out (reset first). */
void store_path_shape(const char *path, core_buf *out);
/** The usage sidecar of an index: db_path + ".usage", into out (reset first). */
int store_usage_path(const char *db_path, core_buf *out);
/**
 * Records one use of each endpoint (at time now, seconds since the epoch; task may be
 * NULL) in the sidecar of db_path, made when absent. One transaction; safe beside other
 * writers (WAL, a busy timeout). APIDEX_EIO when the file cannot be written.
 */
int store_usage_record(const char *db_path, const store_usage_use *uses, size_t n, const char *task,
                       double now, apidex_error *err);
/**
 * Reads the sidecar of db_path, each use decayed by its age at now (half_life_s <= 0: no
 * decay). No sidecar: an empty set. *out: store_usage_free.
 */
int store_usage_load(const char *db_path, double half_life_s, double now, store_usage **out,
                     apidex_error *err);
/** A set made in memory (counts[i] for uses[i]; NULL: 1 each; a repeated key adds up). */
int store_usage_from(const store_usage_use *uses, const double *counts, size_t n,
                     store_usage **out);
/** The entry of an endpoint (shape: store_path_shape of its path), or NULL. */
const store_usage_entry *store_usage_find(const store_usage *u, const char *api, const char *method,
                                          const char *shape);
/** NULL is a no-op. */
void store_usage_free(store_usage *u);

/* ---------------------------------------------------------------- duplicate services (dupes.c) */

/** APIs that are one service: indexes into the API array, newest first. */
typedef struct store_dup_group {
    size_t *apis;
    size_t n; /* at least 2 */
} store_dup_group;

typedef struct store_dups {
    store_dup_group *groups;
    size_t n;
    size_t *group_of; /* per API: its group, or SIZE_MAX */
    size_t work;      /* operations read while grouping: at most one read per operation
                         (the open-cost guard in test_store_dupes checks it) */
} store_dups;

/**
 * The groups of APIs that are the same service: the same normalised title
 * (store_title_norm), or the same host of the first server (store_server_host) with shared
 * endpoints (method and path shape: at least one and a fifth of the smaller API's; ops:
 * every API's operations), closed transitively; newest first by store_version_cmp of
 * info.version, then the document's modification time, then the later index.
 * *out: store_dups_free.
 */
int store_duplicates(const store_api *apis, size_t n, const store_operation *ops, size_t n_ops,
                     store_dups **out);
/** NULL is a no-op. */
void store_dups_free(store_dups *d);
/** Semver-ish: numbers compare as numbers, a leading v is ignored, a pre-release tail is
    older (1.0.0-beta < 1.0.0 < 1.0.1), an empty version is the oldest. <0, 0, >0. */
int store_version_cmp(const char *a, const char *b);
/** A title's words, lower case, without punctuation and version words ("Petstore API v2"
    -> "petstore api"), into out (reset first). */
void store_title_norm(const char *title, core_buf *out);
/** The host of a server URL, lower case, without "www." (empty for a templated or local
    host), into out (reset first). */
void store_server_host(const char *url, core_buf *out);
/**
 * The operation an endpoint names (usage_feedback.c): an operation id, or "METHOD /path"
 * (placeholders by position) in api (NULL: any API; exactly one may have it). *out: its
 * index into ops. APIDEX_ENOTFOUND naming the closest endpoints; APIDEX_EINVAL when several
 * APIs have it.
 */
int store_usage_resolve(const store_operation *ops, size_t n, const char *what, const char *api,
                        long *out, apidex_error *err);
/**
 * Resolves every endpoint (store_usage_resolve; api: an id, alias or title, or NULL) and,
 * when all resolve, records one use of each in the sidecar of db_path (store_usage_record,
 * now). Nothing is recorded when one fails.
 */
int store_usage_feedback(const char *db_path, store_index *idx, const char *const *endpoints,
                         size_t n, const char *api, const char *task, apidex_error *err);

#endif /* APIDEX_STORE_H */
