/* build_index on the tests/data/store fixtures: first build, incremental re-index, failures. */
#include "testutil.h"
#include "store_testutil.h"

#include "build/build.h"
#include "chunk/chunk.h"
#include "store/store.h"

#include <stdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* Copies fixture rel into dir/specs/rel. */
static void copy_fixture(const char *dir, const char *rel)
{
    char src[1024], dst[1024];
    snprintf(src, sizeof src, "%s/tests/data/store/%s", tu_source_dir(), rel);
    snprintf(dst, sizeof dst, "specs/%s", rel);
    char *text = read_text(src);
    free(tu_write(dir, dst, text));
    free(text);
}

/* Builds db from inputs (files or directories, relative to dir). */
static int build_inputs(const char *dir, const char *const *inputs, size_t n, const char *db,
                        const char *strategy, store_build_report *rep)
{
    spec_registry *reg = NULL;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, inputs[i]);
        assert_int_equal(spec_registry_add(reg, path, &err), 0);
    }
    build_options opt = {.strategy = strategy};
    int rc = build_index(db, reg, &opt, rep, &err);
    if (rc) print_message("build_index: %s\n", err.message);
    spec_registry_free(reg);
    return rc;
}

static int build_dir(const char *dir, const char *db, const char *strategy, store_build_report *rep)
{
    const char *specs[] = {"specs"};
    return build_inputs(dir, specs, 1, db, strategy, rep);
}

static void assert_counts(const store_build_report *r, size_t added, size_t updated, size_t removed,
                          size_t unchanged, size_t failed)
{
    if (r->added != added || r->updated != updated || r->removed != removed ||
        r->unchanged != unchanged || r->failed != failed)
        fail_msg("added/updated/removed/unchanged/failed = %zu/%zu/%zu/%zu/%zu, want "
                 "%zu/%zu/%zu/%zu/%zu",
                 r->added, r->updated, r->removed, r->unchanged, r->failed, added, updated, removed,
                 unchanged, failed);
}

/* The summary of an operation in the index at db ("" when absent). */
static char *summary_of(const char *db, const char *op_id)
{
    store_index *idx = NULL;
    apidex_error err;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    const store_operation *ops;
    size_t n;
    assert_int_equal(store_operations(idx, &ops, &n, &err), 0);
    long i = store_find_operation(idx, op_id);
    char *s = strdup(i >= 0 && ops[i].summary ? ops[i].summary : "");
    store_close(idx);
    return s;
}

static void replace_in_file(const char *path, const char *from, const char *to)
{
    char *text = read_text(path);
    char *at = strstr(text, from);
    assert_non_null(at);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    FILE *f = fopen(path, "wb");
    fputs(out, f);
    fclose(f);
    free(text);
    free(out);
}

/* A digest of every row of every table but meta (build id and time differ), in rowid
   order: two indexes with the same digest hold the same bytes. */
static uint64_t index_digest(const char *db)
{
    static const char *const tables[] = {"documents", "apis",   "operations", "inputs",
                                         "schemas",   "chunks", "edges",      "vectors"};
    sqlite3 *raw = NULL;
    assert_int_equal(sqlite3_open_v2(db, &raw, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    uint64_t h = 0;
    size_t rows = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        char sql[128];
        /* edges have no rowid (WITHOUT ROWID, clustered by api, seq) */
        snprintf(sql, sizeof sql, "SELECT * FROM %s ORDER BY %s", tables[t],
                 strcmp(tables[t], "edges") ? "rowid" : "api, seq");
        sqlite3_stmt *st = NULL;
        assert_int_equal(sqlite3_prepare_v2(raw, sql, -1, &st, NULL), SQLITE_OK);
        while (sqlite3_step(st) == SQLITE_ROW) {
            rows++;
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                const void *b = sqlite3_column_blob(st, c);
                uint64_t v[3] = {h, (uint64_t)sqlite3_column_type(st, c),
                                 b ? core_hash64(b, (size_t)sqlite3_column_bytes(st, c)) : 0};
                h = core_hash64(v, sizeof v);
            }
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(raw);
    assert_true(rows > 0);
    return h;
}

/* Builds db from dir/specs with a deferred registry (documents parsed during the build,
   on `jobs` threads); checks what the registry keeps of each API afterwards. */
static void build_deferred_capped(const char *dir, const char *db, unsigned jobs, size_t mem_total,
                                  store_build_report *rep)
{
    spec_options so = {.deferred = true};
    spec_registry *reg = NULL;
    apidex_error err;
    assert_int_equal(spec_registry_new(&so, &reg, &err), 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/specs", dir);
    assert_int_equal(spec_registry_add(reg, path, &err), 0);
    assert_true(spec_registry_deferred(reg));
    build_options opt = {.jobs = jobs, .load_memory_total = mem_total};
    assert_int_equal(build_index(db, reg, &opt, rep, &err), 0);
    bool skipped = false;
    for (size_t i = 0; i < spec_registry_count(reg); i++) {
        const spec_api *api = spec_registry_api(reg, i);
        assert_non_null(api->id);
        assert_non_null(api->file);
        assert_int_equal(api->n_ops, 0); /* unloaded once written */
        if (api->skipped) skipped = true;
        if (!api->skipped) assert_true(api->failed || api->content_hash != 0);
    }
    assert_true(skipped); /* frag.yaml: sniffed as a root, parsed as none */
    spec_registry_free(reg);
}

static void build_deferred(const char *dir, const char *db, unsigned jobs)
{
    store_build_report rep;
    build_deferred_capped(dir, db, jobs, 0, &rep);
    assert_true(rep.loads_at_once >= 1 && rep.loads_at_once <= jobs + 1); /* the window */
}

/* Parsing documents during the build, on any number of threads, writes the same index
   as loading the whole registry first. */
static void test_deferred_same_index(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    copy_fixture(dir, "petstore.yaml");
    copy_fixture(dir, "books/books.yaml");
    copy_fixture(dir, "notes.json");
    free(tu_write(dir, "specs/broken.yaml", "openapi: 3.0.0\ninfo: [unclosed\n"));
    free(tu_write(dir, "specs/frag.yaml", "info:\n  openapi: not a root\n"));
    char *db0 = tu_path(dir, "eager.db"), *db1 = tu_path(dir, "one.db"),
         *db3 = tu_path(dir, "three.db");
    store_build_report rep;
    assert_int_equal(build_dir(dir, db0, NULL, &rep), 0);
    build_deferred(dir, db1, 1);
    build_deferred(dir, db3, 3);
    uint64_t h0 = index_digest(db0);
    assert_true(h0 == index_digest(db1));
    assert_true(h0 == index_digest(db3));
    /* What the loads may hold together below one document's budget (64 MiB + 32x): with
       4 jobs, one document is loaded at a time, and the index is the same. */
    char *dbc = tu_path(dir, "capped.db");
    build_deferred_capped(dir, dbc, 4, 1, &rep);
    assert_int_equal(rep.loads_at_once, 1);
    assert_true(rep.load_memory_at_once >= (size_t)64 << 20);
    assert_true(rep.load_memory_at_once < (size_t)65 << 20);
    assert_true(h0 == index_digest(dbc));
    /* room for two budgets: never more than two at once */
    build_deferred_capped(dir, dbc, 4, (size_t)129 << 20, &rep);
    assert_true(rep.loads_at_once >= 1 && rep.loads_at_once <= 2);
    assert_true(rep.load_memory_at_once <= (size_t)129 << 20);
    assert_true(h0 == index_digest(dbc));
    free(dbc);
    free(db0);
    free(db1);
    free(db3);
    tu_rmtree(dir);
    free(dir);
}

static void test_first_build(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    copy_fixture(dir, "petstore.yaml");
    copy_fixture(dir, "notes.json");
    copy_fixture(dir, "books/books.yaml");
    copy_fixture(dir, "books/schemas.yaml");
    char *db = tu_path(dir, "apidex.db");
    store_build_report rep;
    assert_int_equal(build_dir(dir, db, NULL, &rep), 0);
    assert_counts(&rep, 3, 0, 0, 0, 0);
    assert_int_equal(rep.n_apis, 3);
    assert_int_equal(rep.n_operations, 7);

    store_index *idx = NULL;
    apidex_error err;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    const store_api *apis;
    size_t n;
    assert_int_equal(store_apis(idx, &apis, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(apis[0].id, "library");
    assert_int_equal(apis[0].n_files, 2); /* the $ref'd schemas.yaml counts */
    assert_non_null(strstr(apis[0].document, "/specs/books/books.yaml"));
    assert_int_equal(apis[2].n_servers, 1);

    const store_operation *ops;
    assert_int_equal(store_operations(idx, &ops, &n, &err), 0);
    long show = store_find_operation(idx, "pet-store:showPetById");
    assert_true(show >= 0);
    const store_operation *op = &ops[show];
    assert_string_equal(op->method, "GET");
    assert_true(op->tokens > 0);
    assert_non_null(strstr(store_operation_content(idx, (size_t)show), "/pets/{petId}"));
    assert_non_null(op->capability);
    assert_int_equal(op->n_inputs, 1);
    assert_string_equal(op->inputs[0].name, "petId");
    assert_string_equal(op->inputs[0].location, "path");

    /* producer edge from the data-flow analysis; op -> schema and schema -> schema edges */
    const store_edge *edges;
    assert_int_equal(store_edges(idx, &edges, &n, &err), 0);
    bool producer = false, op_schema = false, schema_schema = false;
    for (size_t i = 0; i < n; i++) {
        const store_edge *e = &edges[i];
        if (e->kind == STORE_EDGE_PRODUCER && !strcmp(e->src, "library:getBookReviews") &&
            !strcmp(e->dst, "library:searchBooks") && !strcmp(e->param, "book_id"))
            producer = true;
        if (e->kind == STORE_EDGE_OP_SCHEMA && e->src_index == show) op_schema = true;
        if (e->kind == STORE_EDGE_SCHEMA_SCHEMA && !strcmp(e->src, "pet-store:Pet") &&
            !strcmp(e->dst, "pet-store:Owner"))
            schema_schema = true;
        assert_true(e->src_index >= 0 && e->dst_index >= 0);
    }
    assert_true(producer);
    assert_true(op_schema);
    assert_true(schema_schema);

    /* every chunk names operations that exist, and its terms are there */
    const store_chunk *chunks;
    assert_int_equal(store_chunks(idx, &chunks, &n, &err), 0);
    assert_true(n >= 7);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < chunks[i].n_endpoints; k++)
            assert_true(chunks[i].endpoint_ops[k] >= 0);
    bool reviews = false;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(chunks[i].id, "library:getBookReviews")) {
            char *t = chunk_terms(idx, i, STORE_FIELD_PATH);
            reviews = strstr(t, "review") != NULL;
            free(t);
        }
    assert_true(reviews);
    store_close(idx);
    free(db);
    tu_rmtree(dir);
    free(dir);
}

static void test_incremental(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    copy_fixture(dir, "petstore.yaml");
    copy_fixture(dir, "notes.json");
    copy_fixture(dir, "books/books.yaml");
    copy_fixture(dir, "books/schemas.yaml");
    char *db = tu_path(dir, "apidex.db");
    store_build_report rep;
    assert_int_equal(build_dir(dir, db, NULL, &rep), 0);
    uint64_t first = rep.build_id;

    /* nothing changed: everything reused, same content */
    assert_int_equal(build_dir(dir, db, NULL, &rep), 0);
    assert_counts(&rep, 0, 0, 0, 3, 0);
    assert_int_equal(rep.n_operations, 7);
    assert_true(rep.build_id != first);
    assert_false(rep.full_rebuild);

    /* an index whose producer edges came from an older data-flow analysis (its signature
       has no "dataflow=" part) is rebuilt, not carried over */
    sqlite3 *sdb = NULL;
    assert_int_equal(sqlite3_open(db, &sdb), SQLITE_OK);
    assert_int_equal(sqlite3_exec(sdb,
                                  "UPDATE meta SET value = replace(value, ';dataflow=' || "
                                  "substr(value, instr(value, ';dataflow=') + 10, 1), '') "
                                  "WHERE key = 'signature'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(sdb);
    assert_int_equal(build_dir(dir, db, NULL, &rep), 0);
    assert_true(rep.full_rebuild);
    assert_counts(&rep, 0, 3, 0, 0, 0);
    assert_int_equal(build_dir(dir, db, NULL, &rep), 0);
    assert_false(rep.full_rebuild);

    /* a change in a $ref'd file (not a root document) updates its API only */
    char *schemas = tu_path(dir, "specs/books/schemas.yaml");
    replace_in_file(schemas, "One to five stars", "One to ten stars");
    /* a changed root document, a new one, a removed one */
    char *pet = tu_path(dir, "specs/petstore.yaml");
    replace_in_file(pet, "summary: List all pets", "summary: List every pet");
    char *notes = tu_path(dir, "specs/notes.json");
    assert_int_equal(unlink(notes), 0);
    free(tu_write(dir, "specs/todo.yaml",
                  "openapi: 3.0.0\ninfo: {title: Todo, version: '1'}\npaths:\n"
                  "  /todos:\n    get:\n      operationId: listTodos\n      summary: List todos\n"
                  "      responses: {'200': {description: ok}}\n"));
    assert_int_equal(build_dir(dir, db, NULL, &rep), 0);
    assert_counts(&rep, 1, 2, 1, 0, 0);
    assert_int_equal(rep.n_apis, 3);
    assert_int_equal(rep.n_operations, 6);
    char *s = summary_of(db, "pet-store:listPets");
    assert_string_equal(s, "List every pet");
    free(s);
    s = summary_of(db, "notes:listNotes");
    assert_string_equal(s, "");
    free(s);
    s = summary_of(db, "todo:listTodos");
    assert_string_equal(s, "List todos");
    free(s);

    /* a document that breaks keeps its previous version and is reported (named one by
       one: a directory scan skips files that do not parse as an OpenAPI document) */
    free(tu_write(dir, "specs/todo.yaml",
                  "openapi: 7.0.0\ninfo: {title: Todo, version: '2'}\npaths: {}\n"));
    const char *files[] = {"specs/petstore.yaml", "specs/books/books.yaml", "specs/todo.yaml"};
    assert_int_equal(build_inputs(dir, files, 3, db, NULL, &rep), 0);
    assert_counts(&rep, 0, 0, 0, 2, 1);
    assert_int_equal(rep.kept, 1);
    s = summary_of(db, "todo:listTodos");
    assert_string_equal(s, "List todos");
    free(s);

    /* another strategy: a full rebuild (nothing reused) */
    char *todo = tu_path(dir, "specs/todo.yaml");
    assert_int_equal(unlink(todo), 0);
    free(todo);
    assert_int_equal(build_dir(dir, db, "endpoint", &rep), 0);
    assert_true(rep.full_rebuild);
    assert_int_equal(rep.unchanged, 0);
    assert_int_equal(rep.updated, 2);
    assert_int_equal(rep.removed, 1);
    store_index *idx = NULL;
    apidex_error err;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    store_info info;
    assert_int_equal(store_index_info(idx, &info, &err), 0);
    assert_string_equal(info.strategy, "endpoint");
    store_close(idx);
    /* a bad strategy is a usage error and leaves the index alone */
    assert_int_equal(build_dir(dir, db, "no-such-strategy", &rep), APIDEX_EINVAL);

    free(schemas);
    free(pet);
    free(notes);
    free(db);
    tu_rmtree(dir);
    free(dir);
}

static void test_strategy_parse(void **state)
{
    (void)state;
    chunk_options o;
    core_buf b;
    core_buf_init(&b, 0);
    apidex_error err;
    assert_int_equal(build_strategy_parse("endpoint:8191:50", &o, &b, &err), 0);
    assert_int_equal(o.strategy, CHUNK_ENDPOINT);
    assert_int_equal(o.size, 8191);
    assert_int_equal(o.overlap, 50);
    assert_string_equal(b.data, "endpoint:8191:50");
    core_buf_reset(&b);
    assert_int_equal(build_strategy_parse(NULL, &o, &b, &err), 0);
    assert_string_equal(b.data, "hybrid");
    assert_int_equal(build_strategy_parse("json:100:100", &o, NULL, &err), APIDEX_EINVAL);
    assert_int_equal(build_strategy_parse("json:x", &o, NULL, &err), APIDEX_EINVAL);
    assert_int_equal(build_strategy_parse("json:0", &o, NULL, &err), APIDEX_EINVAL);
    assert_int_equal(build_strategy_parse("json:10:2:3", &o, NULL, &err), APIDEX_EINVAL);
    core_buf_free(&b);
}

/* The whole shared corpus (38 real specs) indexes, and re-indexes with everything reused. */
static void test_corpus(void **state)
{
    (void)state;
    TU_REQUIRE_SHARED();
    if (getenv("APIDEX_SANITIZED")) {
        print_message("sanitized build: corpus build skipped (the fixtures cover the logic)\n");
        skip();
    }
    char specs[1024];
    snprintf(specs, sizeof specs, "%s/corpus/specs", tu_shared_dir());
    char *dir = tu_tempdir();
    char *db = tu_path(dir, "corpus.db");
    spec_registry *reg = NULL;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, specs, &err), 0);
    size_t n_docs = spec_registry_count(reg);
    store_build_report rep;
    assert_int_equal(build_index(db, reg, NULL, &rep, &err), 0);
    assert_int_equal(rep.added + rep.failed, n_docs);
    assert_true(rep.n_operations > 1000);
    assert_int_equal(build_index(db, reg, NULL, &rep, &err), 0);
    assert_int_equal(rep.unchanged + rep.failed, n_docs);
    assert_int_equal(rep.added + rep.updated, 0);
    spec_registry_free(reg);
    free(db);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_build),         cmocka_unit_test(test_incremental),
        cmocka_unit_test(test_strategy_parse),      cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_deferred_same_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
