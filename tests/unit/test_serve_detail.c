/* One endpoint at a detail level from the server side (src/serve/detail.c): the API's
   document is read again once and kept while it is the version the index was built from,
   so a second request for the same API renders from memory, even when the file on disk has
   changed since (the index's version is the one search answered from); a request for another
   API reads that one. */
#include "serve_testutil.h"

#include "build/build.h"
#include "chunk/chunk.h"
#include "spec/spec.h"

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
    assert_int_equal(serve_endpoint_detail(idx, op_index(idx, id), CHUNK_DETAIL_CALL, &o, &err), 0);
    assert_non_null(o);
    return o;
}

static const char *field(struct json_object *o, const char *k)
{
    struct json_object *v = NULL;
    return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

static void test_document_kept_while_indexed(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *a = tu_write(dir, "specs/a.yaml", doc_a), *b = tu_write(dir, "specs/b.yaml", doc_b);
    char *specs = tu_path(dir, "specs"), *db = tu_path(dir, "idx.db");
    apidex_error err;
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, specs, &err), 0);
    assert_int_equal(build_index(db, reg, NULL, NULL, &err), 0);
    spec_registry_free(reg);
    store_index *idx = NULL;
    assert_int_equal(store_open(db, true, &idx, &err), 0);

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
    /* another API is read; then A is read again, found changed, and said so */
    o = detail(idx, "b:listPets");
    assert_string_equal(field(o, "summary"), "List pets");
    json_object_put(o);
    o = detail(idx, "a:createNote");
    assert_non_null(field(o, "note"));
    assert_non_null(strstr(field(o, "note"), "changed since it was indexed"));
    json_object_put(o);

    store_close(idx);
    tu_rmtree(dir);
    free(a);
    free(b);
    free(specs);
    free(db);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_document_kept_while_indexed)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
