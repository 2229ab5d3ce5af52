/* Index writer and reader on hand-made records: round trip, packed text, edge ordinals,
   incremental reuse, versions. */
#include "testutil.h"
#include "store_testutil.h"

#include "store/store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Collects the chunk terms scan: the order of the chunks and their operation-id terms. */
typedef struct scan_log {
    size_t order[8], n;
    char first_path[64];
} scan_log;

static int log_terms(void *ctx, size_t i, const char *const *terms)
{
    scan_log *l = ctx;
    if (l->n < 8) l->order[l->n++] = i;
    if (i == 0) snprintf(l->first_path, sizeof l->first_path, "%s", terms[STORE_FIELD_PATH]);
    return 0;
}

/* One API "name" with two operations, a schema and one chunk per operation. `flavour`
   changes the summaries (a new version of the document). */
static void write_api(store_writer *w, const char *name, uint64_t hash, const char *flavour)
{
    apidex_error err;
    char doc[256], get_id[128], post_id[128], schema_id[128], chunk_id[2][128];
    snprintf(doc, sizeof doc, "/specs/%s.json", name);
    snprintf(get_id, sizeof get_id, "%s:getThing", name);
    snprintf(post_id, sizeof post_id, "%s:POST /things", name);
    snprintf(schema_id, sizeof schema_id, "%s:Thing", name);
    snprintf(chunk_id[0], sizeof chunk_id[0], "%s:getThing#0", name);
    snprintf(chunk_id[1], sizeof chunk_id[1], "%s:post#0", name);

    store_server servers[] = {{"https://example.com/v1", "prod"}};
    store_tag tags[] = {{"things", "Thing operations", 0}, {"unused", NULL, 0}};
    store_api api = {.id = name,
                     .document = doc,
                     .title = "Thing API",
                     .version = "1.0",
                     .spec_version = "3.0.3",
                     .servers = servers,
                     .n_servers = 1,
                     .tags = tags,
                     .n_tags = 2,
                     .content_hash = hash,
                     .n_files = 2};
    assert_int_equal(store_writer_add_api(w, &api, &err), 0);

    char summary[128];
    snprintf(summary, sizeof summary, "Get a thing by its id %s", flavour);
    const char *op_tags[] = {"things", "extra"};
    store_input inputs[] = {{"thing_id", "path", "thing", true}};
    store_operation get = {.id = get_id,
                           .api = name,
                           .method = "GET",
                           .path = "/things/{thing_id}",
                           .operation_id = "getThing",
                           .summary = summary,
                           .tags = op_tags,
                           .n_tags = 2,
                           .content = "GET /things/{thing_id}\nGet a thing",
                           .tokens = 9,
                           .inputs = inputs,
                           .n_inputs = 1};
    get.fields[STORE_FIELD_PATH] = "/things/{thing_id}";
    get.fields[STORE_FIELD_OPERATION_ID] = "getThing";
    get.fields[STORE_FIELD_SUMMARY] = summary;
    assert_int_equal(store_writer_add_operation(w, &get, &err), 0);
    store_operation post = {.id = post_id,
                            .api = name,
                            .method = "POST",
                            .path = "/things",
                            .summary = "Create a thing",
                            .deprecated = true,
                            .tags = op_tags,
                            .n_tags = 1,
                            .content = "POST /things"};
    post.fields[STORE_FIELD_SUMMARY] = "Create a thing";
    assert_int_equal(store_writer_add_operation(w, &post, &err), 0);

    store_schema s = {
        .id = schema_id, .api = name, .name = "Thing", .content = "Thing: id", .used_by = 2};
    assert_int_equal(store_writer_add_schema(w, &s, &err), 0);

    const char *ep0[] = {get_id}, *ep1[] = {post_id};
    store_chunk c0 = {.id = chunk_id[0],
                      .api = name,
                      .type = "endpoint",
                      .content = "GET /things/{thing_id}",
                      .endpoints = ep0,
                      .n_endpoints = 1,
                      .tokens = 5};
    c0.fields[STORE_FIELD_SUMMARY] = summary;
    c0.fields[STORE_FIELD_PATH] = "/things/{thing_id}";
    store_chunk c1 = {.id = chunk_id[1],
                      .api = name,
                      .type = "endpoint",
                      .content = "POST /things",
                      .metadata = "{\"x\":1}",
                      .endpoints = ep1,
                      .n_endpoints = 1};
    c1.fields[STORE_FIELD_SUMMARY] = "Create a thing";
    assert_int_equal(store_writer_add_chunk(w, &c0, &err), 0);
    assert_int_equal(store_writer_add_chunk(w, &c1, &err), 0);

    store_edge e1 = {.kind = STORE_EDGE_OP_SCHEMA, .src = get_id, .dst = schema_id};
    store_edge e2 = {.kind = STORE_EDGE_PRODUCER,
                     .src = get_id,
                     .dst = post_id,
                     .param = "thing_id",
                     .field = "thing",
                     .score = 2.5,
                     .explicit_hint = true};
    assert_int_equal(store_writer_add_edge(w, name, &e1, &err), 0);
    assert_int_equal(store_writer_add_edge(w, name, &e2, &err), 0);
    float v[4] = {1, 0, 0, 0};
    assert_int_equal(store_writer_add_vector(w, name, chunk_id[0], "m1", v, 4, &err), 0);
}

static char *db_in(const char *dir)
{
    return tu_path(dir, "idx.db");
}

static void build(const char *db, const char *const *names, const uint64_t *hashes, size_t n,
                  store_build_report *rep)
{
    apidex_error err;
    store_writer *w = NULL;
    int rc = store_writer_begin(db, NULL, &w, &err);
    if (rc) fail_msg("begin: %s", err.message);
    for (size_t i = 0; i < n; i++) {
        char doc[256];
        snprintf(doc, sizeof doc, "/specs/%s.json", names[i]);
        if (store_writer_can_reuse(w, doc, names[i], hashes[i], NULL))
            assert_int_equal(store_writer_reuse(w, doc, &err), 0);
        else
            write_api(w, names[i], hashes[i], hashes[i] > 100 ? "(v2)" : "");
    }
    rc = store_writer_commit(w, rep, &err);
    if (rc) fail_msg("commit: %s", err.message);
}

static void test_round_trip(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = db_in(dir);
    const char *names[] = {"beta", "alpha"};
    uint64_t hashes[] = {1, 2};
    store_build_report rep;
    build(db, names, hashes, 2, &rep);
    assert_int_equal(rep.added, 2);
    assert_int_equal(rep.n_operations, 4);
    assert_int_equal(rep.n_chunks, 4);
    assert_int_equal(rep.n_edges, 4);
    assert_false(rep.full_rebuild);

    apidex_error err;
    store_index *idx = NULL;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    assert_true(store_index_version(idx) != 0);
    assert_false(store_index_changed(db, idx));

    const store_api *apis;
    size_t n;
    assert_int_equal(store_apis(idx, &apis, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(apis[0].id, "alpha"); /* ordered by id */
    assert_string_equal(apis[0].document, "/specs/alpha.json");
    assert_int_equal(apis[0].n_ops, 2);
    assert_int_equal(apis[0].n_schemas, 1);
    assert_int_equal(apis[0].n_servers, 1);
    assert_string_equal(apis[0].servers[0].url, "https://example.com/v1");
    assert_int_equal(apis[0].content_hash, 2);
    /* declared tags first, then tags only operations use; counts from operations */
    assert_int_equal(apis[0].n_tags, 3);
    assert_string_equal(apis[0].tags[0].name, "things");
    assert_string_equal(apis[0].tags[0].description, "Thing operations");
    assert_int_equal(apis[0].tags[0].n_ops, 2);
    assert_int_equal(apis[0].tags[1].n_ops, 0);
    assert_string_equal(apis[0].tags[2].name, "extra");
    assert_int_equal(apis[0].tags[2].n_ops, 1);

    const store_operation *ops;
    assert_int_equal(store_operations(idx, &ops, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_string_equal(ops[0].id, "alpha:getThing");
    assert_int_equal(ops[0].api_index, 0);
    assert_int_equal(ops[2].api_index, 1);
    assert_string_equal(ops[0].method, "GET");
    assert_int_equal(ops[0].n_tags, 2);
    assert_int_equal(ops[0].tokens, 9);
    assert_null(ops[0].description);
    /* the rendered content is read when asked for, once, and kept */
    assert_null(ops[0].content);
    const char *content = store_operation_content(idx, 0);
    assert_string_equal(content, "GET /things/{thing_id}\nGet a thing");
    assert_ptr_equal(store_operation_content(idx, 0), content);
    assert_string_equal(store_operation_content(idx, 3), "POST /things");
    assert_string_equal(store_operation_content(idx, 99), "");
    assert_int_equal(ops[0].n_inputs, 1);
    assert_string_equal(ops[0].inputs[0].name, "thing_id");
    assert_string_equal(ops[0].inputs[0].field, "thing");
    assert_true(ops[0].inputs[0].required);
    assert_true(ops[1].deprecated);
    assert_int_equal(ops[1].n_inputs, 0);

    assert_int_equal(store_find_operation(idx, "beta:POST /things"), 3);
    assert_int_equal(store_find_operation(idx, "nope"), -1);
    assert_int_equal(store_find_api(idx, "beta"), 1);
    assert_int_equal(store_find_schema(idx, "alpha:Thing"), 0);
    assert_string_equal(store_schema_content(idx, 0), "Thing: id");

    const store_chunk *chunks;
    assert_int_equal(store_chunks(idx, &chunks, &n, &err), 0);
    assert_int_equal(n, 4);
    /* insertion order: beta was written first */
    assert_string_equal(chunks[0].id, "beta:getThing#0");
    assert_int_equal(chunks[0].n_endpoints, 1);
    assert_int_equal(chunks[0].endpoint_ops[0], 2);
    assert_null(chunks[1].metadata); /* read when asked for */
    assert_string_equal(store_chunk_metadata(idx, 1), "{\"x\":1}");
    assert_null(store_chunk_metadata(idx, 0));
    assert_null(chunks[0].content);
    assert_string_equal(store_chunk_content(idx, 0), "GET /things/{thing_id}");
    assert_null(store_chunk_text(idx, 0)); /* no text of its own: indexed on its content */
    assert_null(store_chunk_text(idx, 99));
    assert_string_equal(store_chunk_content(idx, 99), "");
    /* the terms stream in chunk order */
    scan_log log = {0};
    assert_int_equal(store_chunk_terms_scan(idx, log_terms, &log, &err), 0);
    assert_int_equal(log.n, 4);
    for (size_t i = 0; i < 4; i++) assert_int_equal(log.order[i], i);
    assert_non_null(strstr(log.first_path, "thing"));

    const store_edge *edges;
    assert_int_equal(store_edges(idx, &edges, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_int_equal(edges[0].kind, STORE_EDGE_OP_SCHEMA);
    assert_int_equal(edges[0].src_index, 0);
    assert_int_equal(edges[0].dst_index, 0);
    assert_int_equal(edges[1].kind, STORE_EDGE_PRODUCER);
    assert_string_equal(edges[1].param, "thing_id");
    assert_true(edges[1].score > 2.4 && edges[1].score < 2.6);
    assert_true(edges[1].explicit_hint);
    assert_int_equal(edges[1].dst_index, 1);

    /* terms: split + stemmed ("create" -> "creat"), only in the POST chunks' summary */
    size_t n_creat = 0;
    for (size_t i = 0; i < 4; i++) {
        char *t = chunk_terms(idx, i, STORE_FIELD_SUMMARY);
        bool creat = strstr(t, "creat") != NULL;
        free(t);
        if (!creat) continue;
        n_creat++;
        assert_non_null(strstr(chunks[i].id, ":post#0"));
    }
    assert_int_equal(n_creat, 2);
    /* ranked field by field (hybrid): the whole-text terms are not stored */
    char *other = chunk_terms(idx, 0, STORE_FIELD_OTHER);
    assert_string_equal(other, "");
    free(other);

    const store_vectors *vec;
    assert_int_equal(store_vectors_load(idx, "m1", &vec, &err), 0);
    assert_int_equal(vec->n, 2);
    assert_int_equal(vec->dim, 4);
    assert_true(vec->data[0] == 1.0f);
    assert_int_equal(vec->rows[0], 0);
    assert_int_equal(store_vectors_load(idx, "m2", &vec, &err), 0);
    assert_int_equal(vec->n, 0);

    store_info info;
    assert_int_equal(store_index_info(idx, &info, &err), 0);
    assert_int_equal(info.n_documents, 2);
    assert_int_equal(info.schema_version, STORE_SCHEMA_VERSION);
    assert_string_equal(info.apidex_version, APIDEX_VERSION_STRING);

    /* A rebuild replaces the file: the open index notices, and keeps working. */
    uint64_t v1 = store_index_version(idx);
    build(db, names, hashes, 2, &rep);
    assert_int_equal(rep.unchanged, 2);
    assert_true(store_index_changed(db, idx));
    assert_int_equal(store_operations(idx, &ops, &n, &err), 0);
    store_close(idx);
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    assert_true(store_index_version(idx) != v1);
    store_close(idx);

    free(db);
    tu_rmtree(dir);
    free(dir);
}

static void test_incremental(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = db_in(dir);
    const char *v1[] = {"a", "b", "d"};
    uint64_t h1[] = {1, 2, 4};
    store_build_report rep;
    build(db, v1, h1, 3, &rep);
    assert_int_equal(rep.added, 3);

    /* a unchanged, b changed (new hash), c new, d gone */
    const char *v2[] = {"a", "b", "c"};
    uint64_t h2[] = {1, 202, 3};
    build(db, v2, h2, 3, &rep);
    assert_int_equal(rep.added, 1);
    assert_int_equal(rep.updated, 1);
    assert_int_equal(rep.unchanged, 1);
    assert_int_equal(rep.removed, 1);
    assert_int_equal(rep.n_apis, 3);
    assert_int_equal(rep.n_operations, 6);
    assert_int_equal(rep.n_chunks, 6);
    assert_int_equal(rep.n_edges, 6);

    apidex_error err;
    store_index *idx = NULL;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    const store_operation *ops;
    size_t n;
    assert_int_equal(store_operations(idx, &ops, &n, &err), 0);
    assert_int_equal(n, 6);
    long ia = store_find_operation(idx, "a:getThing");
    long ib = store_find_operation(idx, "b:getThing");
    assert_true(ia >= 0 && ib >= 0);
    assert_int_equal(store_find_operation(idx, "d:getThing"), -1);
    /* the copied rows are complete: inputs, tokens */
    assert_int_equal(ops[ia].n_inputs, 1);
    assert_int_equal(ops[ia].tokens, 9);
    assert_null(strstr(ops[ia].summary, "v2"));
    assert_non_null(strstr(ops[ib].summary, "(v2)"));
    const store_edge *edges;
    assert_int_equal(store_edges(idx, &edges, &n, &err), 0);
    /* ordinals of copied APIs still name their own rows */
    for (size_t i = 0; i < n; i++) {
        assert_true(edges[i].src_index >= 0);
        assert_true(edges[i].dst_index >= 0);
        const char *api = ops[edges[i].src_index].api;
        assert_int_equal(strncmp(edges[i].src, api, strlen(api)), 0);
        assert_int_equal(strncmp(edges[i].dst, api, strlen(api)), 0);
    }
    /* terms of copied and new chunks alike */
    const store_chunk *chunks;
    assert_int_equal(store_chunks(idx, &chunks, &n, &err), 0);
    size_t n_creat = 0;
    for (size_t i = 0; i < n; i++) {
        char *t = chunk_terms(idx, i, STORE_FIELD_SUMMARY);
        n_creat += strstr(t, "creat") != NULL;
        free(t);
    }
    assert_int_equal(n_creat, 3);
    const store_vectors *vec;
    assert_int_equal(store_vectors_load(idx, "m1", &vec, &err), 0);
    assert_int_equal(vec->n, 3);
    store_close(idx);

    /* A different signature (strategy) reuses nothing. */
    store_writer *w = NULL;
    store_writer_options o = {.strategy = "json"};
    assert_int_equal(store_writer_begin(db, &o, &w, &err), 0);
    bool known = false;
    assert_false(store_writer_can_reuse(w, "/specs/a.json", "a", 1, &known));
    assert_true(known);
    write_api(w, "a", 1, "");
    assert_int_equal(store_writer_commit(w, &rep, &err), 0);
    assert_true(rep.full_rebuild);
    assert_int_equal(rep.updated, 1);
    assert_int_equal(rep.removed, 2);

    free(db);
    tu_rmtree(dir);
    free(dir);
}

static void test_abort_and_stale_temps(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = db_in(dir);
    const char *names[] = {"a"};
    uint64_t h[] = {1};
    store_build_report rep;
    build(db, names, h, 1, &rep);
    struct stat before, after;
    assert_int_equal(stat(db, &before), 0);

    /* a temp file of a dead build (pid 2^22 + 1 is above the default pid_max) */
    char stale[512];
    snprintf(stale, sizeof stale, "%s.tmp-4194305", db);
    FILE *f = fopen(stale, "w");
    assert_non_null(f);
    fputs("garbage", f);
    fclose(f);

    apidex_error err;
    store_writer *w = NULL;
    assert_int_equal(store_writer_begin(db, NULL, &w, &err), 0);
    assert_int_not_equal(access(stale, F_OK), 0);
    char mine[512];
    snprintf(mine, sizeof mine, "%s.tmp-%ld", db, (long)getpid());
    assert_int_equal(access(mine, F_OK), 0);
    write_api(w, "zzz", 9, "");
    store_writer_abort(w);
    assert_int_not_equal(access(mine, F_OK), 0);
    assert_int_equal(stat(db, &after), 0);
    assert_int_equal(before.st_ino, after.st_ino);

    /* An API's rows must follow its api record. */
    assert_int_equal(store_writer_begin(db, NULL, &w, &err), 0);
    store_operation op = {.id = "x:y", .api = "x", .method = "GET", .path = "/"};
    assert_int_equal(store_writer_add_operation(w, &op, &err), APIDEX_EINVAL);
    store_writer_abort(w);

    free(db);
    tu_rmtree(dir);
    free(dir);
}

static void test_versions(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    apidex_error err;
    store_index *idx = NULL;

    char *missing = tu_path(dir, "none.db");
    assert_int_equal(store_open(missing, true, &idx, &err), APIDEX_ENOTFOUND);
    assert_non_null(strstr(err.message, "apidex index"));

    /* an index of another schema version */
    char *old = tu_path(dir, "old.db");
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(old, &db), SQLITE_OK);
    char sql[128];
    snprintf(sql, sizeof sql,
             "PRAGMA application_id = %d; PRAGMA user_version = 99;"
             "CREATE TABLE meta(key TEXT, value TEXT);",
             0x41504458);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(store_open(old, true, &idx, &err), APIDEX_EVERSION);
    assert_non_null(strstr(err.message, "schema version 99"));
    assert_non_null(strstr(err.message, "apidex index"));
    /* ... which a build replaces (full rebuild) */
    store_writer *w = NULL;
    assert_int_equal(store_writer_begin(old, NULL, &w, &err), 0);
    write_api(w, "a", 1, "");
    store_build_report rep;
    assert_int_equal(store_writer_commit(w, &rep, &err), 0);
    assert_true(rep.full_rebuild);
    assert_non_null(strstr(rep.reason, "99"));
    assert_int_equal(store_open(old, true, &idx, &err), 0);
    store_close(idx);

    /* some other SQLite database: never opened as an index, never replaced */
    char *other = tu_path(dir, "other.db");
    assert_int_equal(sqlite3_open(other, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(store_open(other, true, &idx, &err), APIDEX_EVERSION);
    assert_non_null(strstr(err.message, "not an apidex index"));
    assert_int_equal(store_writer_begin(other, NULL, &w, &err), APIDEX_EREFUSED);
    assert_non_null(strstr(err.message, "never replaces it"));
    /* not even with a full rebuild: only an apidex index (damaged or not) is replaced */
    store_writer_options full = {.full = true};
    assert_int_equal(store_writer_begin(other, &full, &w, &err), APIDEX_EREFUSED);
    /* a text file neither */
    char *txt = tu_write(dir, "notes.txt", "hello, this is not a database at all\n");
    assert_int_not_equal(store_writer_begin(txt, NULL, &w, &err), 0);
    FILE *f = fopen(txt, "r");
    char line[64] = {0};
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_string_equal(line, "hello, this is not a database at all\n");

    free(missing);
    free(old);
    free(other);
    free(txt);
    tu_rmtree(dir);
    free(dir);
}

/* Long rendered text is stored packed (a BLOB in the file) and reads back exactly; short
   text stays TEXT. */
/* An endpoint chunk whose content is its operation's keeps none of its own: the file holds
   the text once and readers hand out the operation's. */
static void test_chunk_content_once(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = db_in(dir);
    apidex_error err;
    store_writer *w = NULL;
    assert_int_equal(store_writer_begin(db, NULL, &w, &err), 0);
    store_api api = {.id = "p", .document = "/specs/p.json", .content_hash = 1};
    assert_int_equal(store_writer_add_api(w, &api, &err), 0);
    store_operation get = {
        .id = "p:get", .api = "p", .method = "GET", .path = "/x", .content = "GET /x\nRead the x"};
    store_operation post = {.id = "p:post",
                            .api = "p",
                            .method = "POST",
                            .path = "/x",
                            .content = "POST /x\nMake an x"};
    assert_int_equal(store_writer_add_operation(w, &get, &err), 0);
    assert_int_equal(store_writer_add_operation(w, &post, &err), 0);
    const char *ep_get[] = {"p:get"}, *ep_post[] = {"p:post"}, *ep_both[] = {"p:get", "p:post"};
    store_chunk same = {.id = "p:get#0",
                        .api = "p",
                        .type = "endpoint",
                        .content = "GET /x\nRead the x",
                        .endpoints = ep_get,
                        .n_endpoints = 1};
    store_chunk other = {.id = "p:post#0",
                         .api = "p",
                         .type = "endpoint",
                         .content = "POST /x (a window)",
                         .endpoints = ep_post,
                         .n_endpoints = 1};
    store_chunk both = {.id = "p:all#0",
                        .api = "p",
                        .type = "fragment",
                        .content = "GET /x\nRead the x",
                        .endpoints = ep_both,
                        .n_endpoints = 2};
    assert_int_equal(store_writer_add_chunk(w, &same, &err), 0);
    assert_int_equal(store_writer_add_chunk(w, &other, &err), 0);
    assert_int_equal(store_writer_add_chunk(w, &both, &err), 0);
    assert_int_equal(store_writer_commit(w, NULL, &err), 0);

    sqlite3 *raw = NULL;
    assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(raw,
                                        "SELECT group_concat(typeof(content), ',') FROM "
                                        "(SELECT content FROM chunks ORDER BY rowid)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "null,text,text");
    sqlite3_finalize(st);
    sqlite3_close(raw);

    store_index *idx = NULL;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    const store_chunk *chunks;
    size_t n;
    assert_int_equal(store_chunks(idx, &chunks, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(store_chunk_content(idx, 0), "GET /x\nRead the x");
    assert_string_equal(store_chunk_content(idx, 0), "GET /x\nRead the x");
    assert_string_equal(store_chunk_content(idx, 1), "POST /x (a window)");
    assert_string_equal(store_chunk_content(idx, 2), "GET /x\nRead the x");
    assert_null(store_chunk_text(idx, 0));
    store_close(idx);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

static void test_packed_text(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = db_in(dir);
    core_buf big;
    core_buf_init(&big, 0);
    for (int i = 0; i < 200; i++)
        core_buf_printf(&big, "GET /things/{thing_id} line %d: \u00e9t\u00e9 caf\u00e9\n", i);
    apidex_error err;
    store_writer *w = NULL;
    assert_int_equal(store_writer_begin(db, NULL, &w, &err), 0);
    store_api api = {.id = "p", .document = "/specs/p.json", .content_hash = 1};
    assert_int_equal(store_writer_add_api(w, &api, &err), 0);
    store_operation op = {
        .id = "p:get", .api = "p", .method = "GET", .path = "/x", .content = big.data};
    assert_int_equal(store_writer_add_operation(w, &op, &err), 0);
    store_schema sc = {.id = "p:S", .api = "p", .name = "S", .content = big.data};
    assert_int_equal(store_writer_add_schema(w, &sc, &err), 0);
    const char *ep[] = {"p:get"};
    store_chunk c = {.id = "p:get#0",
                     .api = "p",
                     .type = "endpoint",
                     .content = "short",
                     .text = big.data,
                     .endpoints = ep,
                     .n_endpoints = 1};
    assert_int_equal(store_writer_add_chunk(w, &c, &err), 0);
    /* a chunk of no operation is never ranked: no terms kept */
    store_chunk sc_chunk = {.id = "p:S#0", .api = "p", .type = "schema", .content = "S"};
    sc_chunk.fields[STORE_FIELD_DESCRIPTION] = "a schema of things";
    sc_chunk.fields[STORE_FIELD_OTHER] = "S: a schema of things";
    assert_int_equal(store_writer_add_chunk(w, &sc_chunk, &err), 0);
    assert_int_equal(store_writer_commit(w, NULL, &err), 0);

    sqlite3 *raw = NULL;
    assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(raw,
                                        "SELECT (SELECT typeof(content) FROM operations), "
                                        "(SELECT typeof(content) FROM schemas), "
                                        "(SELECT typeof(content) || typeof(text) FROM chunks), "
                                        "(SELECT length(content) FROM operations)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "blob");
    assert_string_equal((const char *)sqlite3_column_text(st, 1), "blob");
    assert_string_equal((const char *)sqlite3_column_text(st, 2), "textblob");
    assert_true((size_t)sqlite3_column_int64(st, 3) < big.len / 4);
    sqlite3_finalize(st);
    sqlite3_close(raw);

    store_index *idx = NULL;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    const store_operation *ops;
    const store_schema *schemas;
    const store_chunk *chunks;
    size_t n;
    assert_int_equal(store_operations(idx, &ops, &n, &err), 0);
    assert_string_equal(store_operation_content(idx, 0), big.data);
    assert_int_equal(store_schemas(idx, &schemas, &n, &err), 0);
    assert_string_equal(store_schema_content(idx, 0), big.data);
    assert_int_equal(store_chunks(idx, &chunks, &n, &err), 0);
    assert_string_equal(store_chunk_content(idx, 0), "short");
    assert_string_equal(store_chunk_text(idx, 0), big.data);
    assert_string_equal(chunks[1].id, "p:S#0");
    for (int f = 0; f < STORE_FIELD_COUNT; f++) {
        char *t = chunk_terms(idx, 1, f);
        assert_string_equal(t, "");
        free(t);
    }
    store_close(idx);
    core_buf_free(&big);
    tu_rmtree(dir);
    free(db);
    free(dir);
}

/* Edges are stored as ordinals within their API: one naming a row the API does not
   have fails the build instead of being written. */
static void test_edge_outside_api(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = db_in(dir);
    apidex_error err;
    store_writer *w = NULL;
    assert_int_equal(store_writer_begin(db, NULL, &w, &err), 0);
    store_api api = {.id = "p", .document = "/specs/p.json", .content_hash = 1};
    assert_int_equal(store_writer_add_api(w, &api, &err), 0);
    store_operation op = {.id = "p:get", .api = "p", .method = "GET", .path = "/x"};
    assert_int_equal(store_writer_add_operation(w, &op, &err), 0);
    store_edge e = {.kind = STORE_EDGE_PRODUCER, .src = "p:get", .dst = "q:other"};
    assert_int_equal(store_writer_add_edge(w, "p", &e, &err), 0);
    assert_int_equal(store_writer_commit(w, NULL, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "q:other"));
    assert_int_equal(access(db, F_OK), -1); /* nothing installed */
    tu_rmtree(dir);
    free(db);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_incremental),
        cmocka_unit_test(test_abort_and_stale_temps),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_packed_text),
        cmocka_unit_test(test_chunk_content_once),
        cmocka_unit_test(test_edge_outside_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
