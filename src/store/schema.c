/*
 * The index schema (PRAGMA user_version = STORE_SCHEMA_VERSION) and small SQLite helpers.
 * docs/INDEX.md describes the tables; keep it in step with the DDL below.
 */
#include "store/store_int.h"

#include <stdio.h>
#include <string.h>

const char *const store_field_names[STORE_FIELD_COUNT] = {
    "path", "operation_id", "summary", "description", "params", "responses", "tags", "other",
};

/* Tables holding rows of one API each (an `api` column), copied when the API is reused. */
const char *const store_table_names[] = {"operations", "inputs", "schemas",
                                         "chunks",     "edges",  "vectors"};
const size_t store_n_tables = sizeof store_table_names / sizeof store_table_names[0];

/* Field columns are generated from store_field_names so the two cannot drift. Columns
   written by store_bind_packed (operations.content, schemas.content, chunks.content and
   chunks.text) hold TEXT or a zstd BLOB (pack.c). */
static const char schema_head[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    /* One row per root document; content_hash covers every file its API is made of. */
    "CREATE TABLE documents(path TEXT PRIMARY KEY, api TEXT NOT NULL UNIQUE,\n"
    "  content_hash TEXT NOT NULL, n_files INTEGER NOT NULL DEFAULT 1);\n"
    "CREATE TABLE apis(id TEXT PRIMARY KEY, document TEXT NOT NULL, title TEXT, version TEXT,\n"
    "  description TEXT, spec_version TEXT, servers TEXT NOT NULL DEFAULT '[]',\n"
    "  tags TEXT NOT NULL DEFAULT '[]', n_ops INTEGER NOT NULL DEFAULT 0,\n"
    "  n_schemas INTEGER NOT NULL DEFAULT 0, content_hash TEXT NOT NULL,\n"
    "  n_files INTEGER NOT NULL DEFAULT 1, provider TEXT, overrides TEXT, snapshot TEXT);\n"
    /* Other names an API answers to: ids it had before (a --name, an older apidex). */
    "CREATE TABLE aliases(alias TEXT PRIMARY KEY, api TEXT NOT NULL);\n"
    "CREATE INDEX aliases_api ON aliases(api);\n";

static int schema_sql(core_buf *b)
{
    core_buf_puts(b, schema_head);
    core_buf_puts(
        b, "CREATE TABLE operations(id TEXT NOT NULL UNIQUE, api TEXT NOT NULL,\n"
           "  method TEXT NOT NULL, path TEXT NOT NULL, operation_id TEXT, summary TEXT,\n"
           "  description TEXT, tags TEXT NOT NULL DEFAULT '[]',\n"
           "  deprecated INTEGER NOT NULL DEFAULT 0, pointer TEXT, capability TEXT,\n"
           "  content TEXT, tokens INTEGER NOT NULL DEFAULT 0,\n"
           "  action INTEGER NOT NULL DEFAULT 0, verb TEXT, flags INTEGER NOT NULL DEFAULT 0);\n"
           "CREATE INDEX operations_api ON operations(api);\n");
    core_buf_puts(b, "CREATE TABLE inputs(operation TEXT NOT NULL, api TEXT NOT NULL,\n"
                     "  ord INTEGER NOT NULL, name TEXT NOT NULL, location TEXT NOT NULL,\n"
                     "  field TEXT, required INTEGER NOT NULL DEFAULT 0);\n"
                     "CREATE INDEX inputs_api ON inputs(api);\n"
                     "CREATE TABLE schemas(id TEXT NOT NULL UNIQUE, api TEXT NOT NULL,\n"
                     "  name TEXT NOT NULL, pointer TEXT, content TEXT,\n"
                     "  tokens INTEGER NOT NULL DEFAULT 0, used_by INTEGER NOT NULL DEFAULT 0,\n"
                     "  in_cycle INTEGER NOT NULL DEFAULT 0);\n"
                     "CREATE INDEX schemas_api ON schemas(api);\n"
                     "CREATE TABLE chunks(id TEXT NOT NULL UNIQUE, api TEXT NOT NULL,\n"
                     "  type TEXT NOT NULL, content TEXT, text TEXT, metadata TEXT,\n"
                     "  endpoints TEXT NOT NULL DEFAULT '[]', tokens INTEGER NOT NULL DEFAULT 0");
    for (int f = 0; f < STORE_FIELD_COUNT; f++)
        core_buf_printf(b, ",\n  t_%s TEXT NOT NULL DEFAULT ''", store_field_names[f]);
    core_buf_puts(b, ");\nCREATE INDEX chunks_api ON chunks(api);\n");
    /* kind: store_edge_kind. src/dst are ordinals within the API: the position of the
       operation (or schema, by kind) among the API's rows in rowid order, which copies of
       reused APIs keep; param/field/score/hint: producer edges only. seq: the edge's
       position among its API's edges. Clustered by (api, seq), so an API's edges are
       found, copied and deleted without an index of their own (a quarter of the table's
       size at scale). */
    core_buf_puts(
        b, "CREATE TABLE edges(api TEXT NOT NULL, kind INTEGER NOT NULL, src INTEGER NOT NULL,\n"
           "  dst INTEGER NOT NULL, param TEXT, field TEXT, score REAL NOT NULL DEFAULT 1,\n"
           "  hint INTEGER NOT NULL DEFAULT 0, features INTEGER NOT NULL DEFAULT 0,\n"
           "  seq INTEGER NOT NULL, PRIMARY KEY(api, seq)) WITHOUT ROWID;\n"
           /* data: dim little-endian float32 values. */
           "CREATE TABLE vectors(api TEXT NOT NULL, chunk TEXT NOT NULL,\n"
           "  model TEXT NOT NULL, dim INTEGER NOT NULL, data BLOB NOT NULL,\n"
           "  PRIMARY KEY(chunk, model));\n"
           "CREATE INDEX vectors_api ON vectors(api);\n");
    core_buf_printf(b, "PRAGMA user_version = %d;\nPRAGMA application_id = %d;\n",
                    STORE_SCHEMA_VERSION, STORE_APPLICATION_ID);
    return b->failed ? APIDEX_ENOMEM : 0;
}

int store_schema_create(sqlite3 *db, apidex_error *err)
{
    core_buf b;
    core_buf_init(&b, 0);
    int rc = schema_sql(&b);
    if (rc == 0)
        rc = store_exec(db, b.data, err);
    else
        core_error_set(err, rc, "out of memory building the index schema");
    core_buf_free(&b);
    return rc;
}

static int pragma_int(sqlite3 *db, const char *schema, const char *name, long *out)
{
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA %s.%s", schema, name);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return APIDEX_EDB;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *out = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : APIDEX_EDB;
}

int store_schema_check(sqlite3 *db, const char *schema, const char *path, int *version,
                       apidex_error *err)
{
    long app = 0, ver = 0;
    *version = -1;
    if (pragma_int(db, schema, "application_id", &app) ||
        pragma_int(db, schema, "user_version", &ver))
        return core_error_set(err, APIDEX_EVERSION,
                              "%s is not an apidex index (%s): check the --db path, or move "
                              "the file away and build one with 'apidex index'",
                              path, sqlite3_errstr(sqlite3_extended_errcode(db)));
    if (app != STORE_APPLICATION_ID)
        return core_error_set(err, APIDEX_EVERSION,
                              "%s is not an apidex index: check the --db path, or move the "
                              "file away and build one with 'apidex index'",
                              path);
    *version = (int)ver;
    if (ver != STORE_SCHEMA_VERSION)
        return core_error_set(err, APIDEX_EVERSION,
                              "%s is an index of schema version %ld, this apidex %s reads "
                              "version %d: rebuild it with 'apidex index'",
                              path, ver, APIDEX_VERSION_STRING, STORE_SCHEMA_VERSION);
    return 0;
}

int store_signature(const char *strategy, const char *filters, int dataflow, core_buf *out)
{
    /* The apidex version is part of it: a new release may chunk differently; so is the
       data-flow analysis version (the builder's), whose edges an unchanged document would
       carry over. */
    core_buf_printf(out, "apidex=%s;schema=%d;dataflow=%d;strategy=%s;filters=%s",
                    APIDEX_VERSION_STRING, STORE_SCHEMA_VERSION, dataflow, strategy ? strategy : "",
                    filters ? filters : "");
    return out->failed ? APIDEX_ENOMEM : 0;
}

int store_db_error(sqlite3 *db, const char *what, apidex_error *err)
{
    return core_error_set(err, APIDEX_EDB, "%s: %s", what, db ? sqlite3_errmsg(db) : "no database");
}

int store_damaged_error(const char *path, int rc, apidex_error *err)
{
    return core_error_set(err, APIDEX_EDB,
                          "%s is a damaged apidex index (%s): rebuild it with "
                          "'apidex index --full PATH...'",
                          path, sqlite3_errstr(rc));
}

int store_exec(sqlite3 *db, const char *sql, apidex_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK) return 0;
    core_error_set(err, APIDEX_EDB, "index database: %s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return APIDEX_EDB;
}

int store_uri_immutable(const char *path, core_buf *out)
{
    /* RFC 3986 unreserved characters and '/' pass; everything else is %XX so a path
       with '?', '#' or '%' cannot be read as URI syntax. */
    core_buf_puts(out, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            core_buf_putc(out, (char)*p);
        else
            core_buf_printf(out, "%%%02X", *p);
    }
    core_buf_puts(out, "?mode=ro&immutable=1");
    return out->failed ? APIDEX_ENOMEM : 0;
}

int store_columns(const char *prefix, core_buf *out)
{
    for (int f = 0; f < STORE_FIELD_COUNT; f++)
        core_buf_printf(out, "%s%s%s", f ? ", " : "", prefix, store_field_names[f]);
    return out->failed ? APIDEX_ENOMEM : 0;
}
