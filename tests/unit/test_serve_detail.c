/* One endpoint at a detail level from the server side (src/serve/detail.c) over the index's
   cache of documents (src/store/opdoc.c): the API's document is read again once and kept
   while it is the version the index was built from, so a second request for the same API
   renders from memory, even when the file on disk has changed since (the index's version is
   the one search answered from); a request for another API reads that one and keeps both; the
   bound (count, bytes) evicts the least recently used, which is then read again and found
   changed; threads asking at once load the document once. */
#include "serve_testutil.h"

#include "build/build.h"
#include "view/view.h"
#include "oas/oas.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static const char *const doc_a = "openapi: 3.0.3\n"
                                 "info: {title: A, version: '1'}\n"
                                 "paths:\n"
                                 "  /notes:\n"
                                 "    post:\n"
                                 "      operationId: createNote\n"
                                 "      summary: Create a note\n"
                                 "      responses: {'201': {description: ok}}\n"
                                 "    get:\n"
                                 "      operationId: listNotes\n"
                                 "      summary: List notes\n"
                                 "      responses: {'200': {description: ok}}\n";

static const char *const doc_b = "openapi: 3.0.3\n"
                                 "info: {title: B, version: '1'}\n"
                                 "paths:\n"
                                 "  /pets:\n"
                                 "    get:\n"
                                 "      operationId: listPets\n"
                                 "      summary: List pets\n"
                                 "      responses: {'200': {description: ok}}\n";

static long op_index(store_index *idx, const char *id)
{
    long i = store_find_operation(idx, id);
    assert_true(i >= 0);
    return i;
}

static struct json_object *detail(store_index *idx, const char *id)
{
    struct json_object *o = NULL;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(serve_endpoint_detail(idx, op_index(idx, id), VIEW_DETAIL_CALL, &o, &err), 0);
    assert_non_null(o);
    return o;
}

static const char *field(struct json_object *o, const char *k)
{
    struct json_object *v = NULL;
    return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

/* Indexes the documents under specs into db. */
static void index_specs(const char *specs, const char *db)
{
    apidex_error err;
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, specs, &err), 0);
    assert_int_equal(build_index(db, reg, NULL, NULL, &err), 0);
    spec_registry_free(reg);
}

typedef struct fixture {
    char *dir, *a, *b, *specs, *db;
} fixture;

static void fixture_make(fixture *f)
{
    f->dir = tu_tempdir();
    f->a = tu_write(f->dir, "specs/a.yaml", doc_a);
    f->b = tu_write(f->dir, "specs/b.yaml", doc_b);
    f->specs = tu_path(f->dir, "specs");
    f->db = tu_path(f->dir, "idx.db");
    index_specs(f->specs, f->db);
}

static void fixture_free(fixture *f)
{
    tu_rmtree(f->dir);
    free(f->a);
    free(f->b);
    free(f->specs);
    free(f->db);
    free(f->dir);
}

static size_t loads(store_index *idx)
{
    return store_doc_cache_stats(idx).parses;
}

static void test_document_kept_while_indexed(void **state)
{
    (void)state;
    fixture fx;
    fixture_make(&fx);
    char *a = fx.a;
    apidex_error err;
    store_index *idx = NULL;
    assert_int_equal(store_open(fx.db, true, &idx, &err), 0);
    store_doc_cache_limits(idx, 1, SIZE_MAX); /* one document: B's read evicts A */

    struct json_object *o = detail(idx, "a:createNote");
    assert_string_equal(field(o, "summary"), "Create a note");
    assert_null(field(o, "note"));
    json_object_put(o);
    /* the file changes on disk: the same API answers from the version read, as indexed */
    FILE *f = fopen(a, "w");
    assert_non_null(f);
    const char *at = strstr(doc_a, "Create a note");
    fprintf(f, "%.*sWrite a note%s", (int)(at - doc_a), doc_a, at + strlen("Create a note"));
    fclose(f);
    o = detail(idx, "a:listNotes");
    assert_string_equal(field(o, "summary"), "List notes");
    assert_null(field(o, "note"));
    o = (json_object_put(o), detail(idx, "a:createNote"));
    assert_string_equal(field(o, "summary"), "Create a note");
    json_object_put(o);
    assert_int_equal(loads(idx), 1);
    /* another API is read and evicts A; then A is read again, found changed, and said so */
    o = detail(idx, "b:listPets");
    assert_string_equal(field(o, "summary"), "List pets");
    json_object_put(o);
    assert_int_equal(loads(idx), 2);
    assert_int_equal(store_doc_cache_stats(idx).kept, 1);
    o = detail(idx, "a:createNote");
    assert_non_null(field(o, "note"));
    assert_non_null(strstr(field(o, "note"), "changed since it was indexed"));
    json_object_put(o);
    /* the changed version is not kept: read on every request, B stays */
    o = detail(idx, "a:createNote");
    assert_non_null(field(o, "note"));
    json_object_put(o);
    assert_int_equal(loads(idx), 4);
    o = detail(idx, "b:listPets");
    json_object_put(o);
    assert_int_equal(loads(idx), 4);
    store_close(idx);
    fixture_free(&fx);
}

/* The default bound keeps both APIs: repeated details of either load each document once; a
   bound of bytes below one document keeps only the newest; no bound of count keeps none. */
static void test_bounds(void **state)
{
    (void)state;
    fixture fx;
    fixture_make(&fx);
    apidex_error err;
    store_index *idx = NULL;
    assert_int_equal(store_open(fx.db, true, &idx, &err), 0);
    const char *ids[] = {"a:createNote", "b:listPets", "a:listNotes", "b:listPets"};
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < 4; i++) json_object_put(detail(idx, ids[i]));
    assert_int_equal(loads(idx), 2);
    store_doc_stats st = store_doc_cache_stats(idx);
    assert_int_equal(st.kept, 2);
    assert_true(st.bytes > 0);
    /* bytes: one byte keeps only the newest, so A and B alternate loads */
    store_doc_cache_limits(idx, 8, 1);
    assert_int_equal(store_doc_cache_stats(idx).kept, 1);
    json_object_put(detail(idx, "a:createNote"));
    json_object_put(detail(idx, "b:listPets"));
    json_object_put(detail(idx, "a:createNote"));
    assert_int_equal(store_doc_cache_stats(idx).kept, 1);
    size_t before = loads(idx);
    json_object_put(detail(idx, "a:listNotes")); /* the newest: kept */
    assert_int_equal(loads(idx), before);
    /* count 0: nothing kept, every request loads */
    store_doc_cache_limits(idx, 0, SIZE_MAX);
    assert_int_equal(store_doc_cache_stats(idx).kept, 0);
    json_object_put(detail(idx, "a:listNotes"));
    json_object_put(detail(idx, "a:listNotes"));
    assert_int_equal(loads(idx), before + 2);
    /* a new open (a server's new snapshot) starts empty */
    store_index *again = NULL;
    assert_int_equal(store_open(fx.db, true, &again, &err), 0);
    json_object_put(detail(again, "a:listNotes"));
    assert_int_equal(loads(again), 1);
    store_close(again);
    store_close(idx);
    fixture_free(&fx);
}

enum { THREADS = 8, ROUNDS = 20 };

typedef struct worker {
    store_index *idx;
    const char *id;
    char *first; /* the first answer, as JSON */
    bool same;   /* every later answer equal to it */
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    w->same = true;
    for (int r = 0; r < ROUNDS; r++) {
        struct json_object *o = NULL;
        apidex_error err;
        core_error_clear(&err);
        long oi = store_find_operation(w->idx, w->id);
        if (serve_endpoint_detail(w->idx, oi, VIEW_DETAIL_FULL, &o, &err) || !o) {
            w->same = false;
            break;
        }
        const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        if (!w->first)
            w->first = strdup(s);
        else if (strcmp(w->first, s))
            w->same = false;
        json_object_put(o);
    }
    return NULL;
}

/* Threads asking for endpoints of two APIs at once, with a bound of one document so that
   evictions happen while others render from the evicted document: every answer is the
   same as alone, nothing is freed under a holder (ASan), and with room for both each
   document is loaded at most once per thread that missed it at the same moment. */
static void test_threads(void **state)
{
    (void)state;
    fixture fx;
    fixture_make(&fx);
    apidex_error err;
    for (int bound = 1; bound <= 2; bound++) {
        store_index *idx = NULL;
        assert_int_equal(store_open(fx.db, true, &idx, &err), 0);
        store_doc_cache_limits(idx, (size_t)bound, SIZE_MAX);
        const char *ids[] = {"a:createNote", "b:listPets"};
        char *alone[2];
        for (int i = 0; i < 2; i++) {
            struct json_object *o = NULL;
            assert_int_equal(serve_endpoint_detail(idx, store_find_operation(idx, ids[i]),
                                                   VIEW_DETAIL_FULL, &o, &err),
                             0);
            alone[i] = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
            json_object_put(o);
        }
        worker w[THREADS];
        pthread_t t[THREADS];
        for (int i = 0; i < THREADS; i++) {
            w[i] = (worker){.idx = idx, .id = ids[i % 2]};
            assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
        }
        for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
        for (int i = 0; i < THREADS; i++) {
            assert_true(w[i].same);
            assert_non_null(w[i].first);
            assert_string_equal(w[i].first, alone[i % 2]);
            free(w[i].first);
        }
        if (bound == 2) assert_int_equal(loads(idx), 2); /* both kept before the threads */
        assert_true(store_doc_cache_stats(idx).kept <= (size_t)bound);
        free(alone[0]);
        free(alone[1]);
        store_close(idx);
    }
    fixture_free(&fx);
}

/* An example nested deeper than json-c's default parse depth (32) is rendered at the full
   level, not refused as "out of memory" (the renderer's text is read into json-c with a depth
   that fits whatever it writes). */
static void test_deep_example(void **state)
{
    (void)state;
    enum { LEVELS = 40 };
    core_buf doc;
    core_buf_init(&doc, 0);
    core_buf_puts(&doc, "openapi: 3.0.3\n"
                        "info: {title: D, version: '1'}\n"
                        "paths:\n"
                        "  /deep:\n"
                        "    get:\n"
                        "      operationId: getDeep\n"
                        "      summary: Deep example\n"
                        "      responses:\n"
                        "        '200':\n"
                        "          description: ok\n"
                        "          content:\n"
                        "            application/json:\n"
                        "              schema: {type: object, example: ");
    for (int i = 0; i < LEVELS; i++) core_buf_puts(&doc, "{a: ");
    core_buf_puts(&doc, "1");
    for (int i = 0; i < LEVELS; i++) core_buf_puts(&doc, "}");
    core_buf_puts(&doc, "}\n");
    char *dir = tu_tempdir();
    char *specs = tu_path(dir, "specs"), *db = tu_path(dir, "idx.db");
    free(tu_write(dir, "specs/d.yaml", doc.data));
    core_buf_free(&doc);
    index_specs(specs, db);
    apidex_error err;
    store_index *idx = NULL;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    struct json_object *o = NULL;
    core_error_clear(&err);
    int rc = serve_endpoint_detail(idx, op_index(idx, "d:getDeep"), VIEW_DETAIL_FULL, &o, &err);
    if (rc) fail_msg("detail full: %d %s", rc, err.message);
    assert_string_equal(field(o, "id"), "d:getDeep");
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    core_buf want;
    core_buf_init(&want, 0);
    core_buf_puts(&want, "\"example\":");
    for (int i = 0; i < LEVELS; i++) core_buf_puts(&want, "{\"a\":");
    core_buf_puts(&want, "1");
    for (int i = 0; i < LEVELS; i++) core_buf_puts(&want, "}");
    assert_non_null(strstr(text, want.data));
    core_buf_free(&want);
    json_object_put(o);
    store_close(idx);
    tu_rmtree(dir);
    free(specs);
    free(db);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_document_kept_while_indexed), cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_threads), cmocka_unit_test(test_deep_example)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
