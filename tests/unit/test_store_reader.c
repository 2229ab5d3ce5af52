/* Index reader: edges come in API order (then seq) whatever order the APIs were written
   in, from one scan of the table; JSON string lists read with and without a parse. */
#include "testutil.h"

#include "store/store.h"
#include "store/store_int.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* API name with n operations; operation k > 0 is produced by operation k - 1 (param pK),
   and each operation references the API's schema. */
static void write_api(store_writer *w, const char *name, size_t n)
{
    apidex_error err;
    char doc[64], schema_id[64], ids[4][64], paths[4][32];
    snprintf(doc, sizeof doc, "/specs/%s.json", name);
    snprintf(schema_id, sizeof schema_id, "%s:Thing", name);
    store_api api = {.id = name, .document = doc, .title = name, .content_hash = 1};
    assert_int_equal(store_writer_add_api(w, &api, &err), 0);
    for (size_t k = 0; k < n; k++) {
        snprintf(ids[k], sizeof ids[k], "%s:op%zu", name, k);
        snprintf(paths[k], sizeof paths[k], "/things%zu", k);
        store_operation op = {.id = ids[k], .api = name, .method = "GET", .path = paths[k]};
        assert_int_equal(store_writer_add_operation(w, &op, &err), 0);
    }
    store_schema s = {.id = schema_id, .api = name, .name = "Thing", .content = "Thing"};
    assert_int_equal(store_writer_add_schema(w, &s, &err), 0);
    for (size_t k = 0; k < n; k++) {
        store_edge e = {.kind = STORE_EDGE_OP_SCHEMA, .src = ids[k], .dst = schema_id};
        assert_int_equal(store_writer_add_edge(w, name, &e, &err), 0);
        if (!k) continue;
        char param[32];
        snprintf(param, sizeof param, "p%zu", k);
        store_edge p = {.kind = STORE_EDGE_PRODUCER,
                        .src = ids[k],
                        .dst = ids[k - 1],
                        .param = param,
                        .field = "thing",
                        .score = (double)k};
        assert_int_equal(store_writer_add_edge(w, name, &p, &err), 0);
    }
}

static void test_edges_in_api_order(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = tu_path(dir, "idx.db");
    apidex_error err;
    store_writer *w = NULL;
    assert_int_equal(store_writer_begin(db, NULL, &w, &err), 0);
    /* written out of id order: rowid order is not API order */
    write_api(w, "zeta", 3);
    write_api(w, "alpha", 2);
    write_api(w, "mid", 4);
    store_build_report rep;
    assert_int_equal(store_writer_commit(w, &rep, &err), 0);

    /* what ORDER BY api, seq gives */
    sqlite3 *sq = NULL;
    assert_int_equal(sqlite3_open_v2(db, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(sq,
                                        "SELECT api, kind, coalesce(param, '') FROM edges "
                                        "ORDER BY api, seq",
                                        -1, &st, NULL),
                     SQLITE_OK);

    store_index *idx = NULL;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    const store_edge *edges;
    const store_operation *ops;
    size_t n, n_ops;
    assert_int_equal(store_edges(idx, &edges, &n, &err), 0);
    assert_int_equal(store_operations(idx, &ops, &n_ops, &err), 0);
    assert_int_equal(n, 3 + 2 + 2 + 1 + 4 + 3);
    size_t i = 0;
    for (; sqlite3_step(st) == SQLITE_ROW; i++) {
        assert_true(i < n);
        const char *api = (const char *)sqlite3_column_text(st, 0);
        assert_int_equal((int)edges[i].kind, sqlite3_column_int(st, 1));
        assert_int_equal(strncmp(edges[i].src, api, strlen(api)), 0);
        assert_true(edges[i].src_index >= 0 && edges[i].dst_index >= 0);
        if (edges[i].kind == STORE_EDGE_PRODUCER) {
            assert_string_equal(edges[i].param, (const char *)sqlite3_column_text(st, 2));
            assert_string_equal(ops[edges[i].src_index].api, api);
            assert_string_equal(ops[edges[i].dst_index].api, api);
            /* the producer of opK is op(K-1) of the same API */
            assert_int_equal(edges[i].dst_index + 1, edges[i].src_index);
        }
    }
    assert_int_equal(i, n);
    assert_string_equal(edges[0].src, "alpha:op0");
    assert_string_equal(edges[n - 1].dst, "zeta:op1");
    sqlite3_finalize(st);
    sqlite3_close(sq);
    store_close(idx);
    free(db);
    tu_rmtree(dir);
    free(dir);
}

/* A list of strings reads the same through the quick split and through json-c. */
static void test_json_strings(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    const char **s;
    size_t n;
    assert_int_equal(store_json_strings(a, "[\"a:GET /x\",\"b\"]", &s, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(s[0], "a:GET /x");
    assert_string_equal(s[1], "b");
    assert_int_equal(store_json_strings(a, "[ \"one\" , \"two\" ]", &s, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(s[1], "two");
    /* escapes go through the parser */
    assert_int_equal(store_json_strings(a, "[\"a:GET \\/x\",\"caf\\u00e9 \\\"q\\\"\"]", &s, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(s[0], "a:GET /x");
    assert_string_equal(s[1], "caf\xc3\xa9 \"q\"");
    assert_int_equal(store_json_strings(a, "[]", &s, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(store_json_strings(a, NULL, &s, &n), 0);
    assert_int_equal(n, 0);
    /* not a list of strings: what json-c makes of it, never a crash */
    assert_int_equal(store_json_strings(a, "[\"a\",\"b\"", &s, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(store_json_strings(a, "[\"a\" \"b\"]", &s, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(store_json_strings(a, "{\"a\":\"b\"}", &s, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(store_json_strings(a, "[\"a\",7]", &s, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(s[1], "7");
    assert_int_equal(store_json_strings(a, "[\"x\"] trailing", &s, &n), 0); /* json-c: a prefix */
    assert_int_equal(n, 1);
    core_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges_in_api_order),
        cmocka_unit_test(test_json_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
