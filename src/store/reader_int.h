/* The reader's private parts, shared by reader.c (open, the load-all accessors) and
   reader_text.c (text read when shown, vectors). */
#ifndef APIDEX_STORE_READER_INT_H
#define APIDEX_STORE_READER_INT_H

#include "store/store_int.h"

#include <pthread.h>
#include <sys/stat.h>

/* An id → array index map (open addressing; slots hold index + 1, 0 = empty). */
typedef struct id_map {
    size_t *slots;
    size_t mask;
} id_map;

typedef struct loaded_vectors {
    store_vectors v;
    struct loaded_vectors *next;
} loaded_vectors;

struct store_index {
    sqlite3 *db;
    char *path;
    struct stat st; /* of the file when it was opened */
    uint64_t build_id;
    pthread_mutex_t lock;
    long long generation; /* server database: the generation this copy was made from */
    core_arena *arena;
    store_info info;
    bool have_info;
    store_api *apis;
    int64_t *api_rowids; /* parallel to apis: where to read an API's snapshot */
    size_t n_apis;
    bool apis_loaded;
    store_operation *ops;
    int64_t *op_rowids; /* parallel to ops: where to read an operation's content */
    size_t n_ops;
    bool ops_loaded;
    store_schema *schemas;
    int64_t *schema_rowids; /* parallel to schemas */
    size_t n_schemas;
    bool schemas_loaded;
    store_chunk *chunks;
    int64_t *chunk_rowids; /* ascending, parallel to chunks */
    size_t n_chunks;
    bool chunks_loaded;
    store_edge *edges;
    size_t n_edges;
    size_t *op_starts, *schema_starts; /* per API: its first index in ops / schemas */
    bool edges_loaded;
    id_map api_map, op_map, schema_map;
    loaded_vectors *vectors;
    store_mapping image_map; /* the search image's file beside the index (image_map.c) */
    store_doc_cache *docs;   /* the documents loaded again (opdoc.c) */
    store_pg_lazy *lazy;     /* a PostgreSQL replica's rows on demand (pg_lazy.c), or NULL */
};

/* reader.c: helpers both files use */
int store_r_oom(apidex_error *err);
const char *store_r_col_str(store_index *idx, sqlite3_stmt *st, int i, bool *fail);
size_t store_r_col_size(sqlite3_stmt *st, int i);
int store_r_prepare(store_index *idx, const char *sql, sqlite3_stmt **st, apidex_error *err);
int store_r_need(store_index *idx, const char *table, bool full, apidex_error *err);

#endif /* APIDEX_STORE_READER_INT_H */
