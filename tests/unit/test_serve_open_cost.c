/* The open cost of a served index: opening a snapshot reads no operation, chunk,
 * schema or edge row (the engine opens from the search image), learns nothing over the
 * whole registry (section LEARN) and decodes no producer record, and a search, an API's page
 * and an endpoint found by id or route read none either; their answers are those of an
 * open that reads the rows (APIDEX_IMAGE_OPS=0). Counts what was read, not seconds. */
#include "serve_testutil.h"

#include "search/search.h"
#include "serve/serve_int.h"

enum { ROWS = STORE_LOADED_OPERATIONS | STORE_LOADED_CHUNKS | STORE_LOADED_EDGES };

/* What the requests answer, one line each, into out; *loaded: the tables read after the
   open (open_loaded) and after every request (loaded). */
static void answers(const char *db, core_buf *out, unsigned *open_loaded, unsigned *loaded)
{
    apidex_error err;
    core_error_clear(&err);
    serve_db *sdb = NULL;
    if (serve_db_open(db, -1, &sdb, &err)) fail_msg("open: %s", err.message);
    serve_snapshot *snap = serve_db_acquire(sdb);
    *open_loaded = store_loaded(serve_snapshot_index(snap));
    /* what opening leaves for later (APIDEX_IMAGE_OPS=0 reads the rows: not asked then):
       the API names and owners come from section LEARN, not learned over the registry, and
       no operation's producers are decoded before a query asks for them */
    const search_engine *eng = serve_snapshot_engine(snap);
    if (!getenv("APIDEX_IMAGE_OPS")) {
        assert_true(search_engine_learned(eng));
        assert_int_equal(search_engine_producers_decoded(eng), 0);
    }
    static const char *const tasks[] = {"get the cast and crew of a movie",
                                        "search artists by name", "rate a movie", NULL};
    for (size_t t = 0; tasks[t]; t++) {
        serve_search_args a = {.task = tasks[t], .k = 5};
        struct json_object *o = NULL;
        assert_int_equal(serve_query_search(snap, &a, &o, &err), 0);
        json_object_object_del(o, "elapsed_ms"); /* the one value that differs */
        core_buf_printf(out, "search %s\n", json_object_to_json_string(o));
        json_object_put(o);
    }
    static const char *const apis[] = {"films", "music", NULL};
    for (size_t i = 0; apis[i]; i++) {
        struct json_object *o = NULL;
        assert_int_equal(serve_query_api(snap, apis[i], &o, &err), 0);
        core_buf_printf(out, "api %s\n", json_object_to_json_string(o));
        json_object_put(o);
    }
    /* by id, a loose id (api:METHOD /path) and a route with other placeholder names */
    long found[4] = {-1, -1, -1, -1};
    assert_int_equal(
        serve_find_endpoint(snap, "music:getArtist", NULL, NULL, NULL, &found[0], &err), 0);
    assert_int_equal(
        serve_find_endpoint(snap, "films:GET /genres", NULL, NULL, NULL, &found[1], &err), 0);
    assert_int_equal(
        serve_find_endpoint(snap, NULL, "GET", "/movie/{id}/credits", NULL, &found[2], &err), 0);
    assert_int_equal(serve_find_endpoint(snap, "nosuch:op", NULL, NULL, NULL, &found[3], &err),
                     APIDEX_ENOTFOUND);
    size_t n_ops = 0;
    const store_operation *ops = search_engine_operations(serve_snapshot_engine(snap), &n_ops);
    for (size_t i = 0; i < 3; i++) {
        assert_true(found[i] >= 0 && (size_t)found[i] < n_ops);
        core_buf_printf(out, "found %ld %s\n", found[i], ops[found[i]].id);
    }
    *loaded = store_loaded(serve_snapshot_index(snap));
    serve_snapshot_release(snap);
    serve_db_close(sdb);
}

static void test_open_reads_no_rows(void **state)
{
    (void)state;
    search_image_install();
    char *dir = NULL;
    char *db = sv_fixture(&dir);
    core_buf img, rows;
    core_buf_init(&img, 0);
    core_buf_init(&rows, 0);
    unsigned open_img = ROWS, img_loaded = ROWS, open_rows = 0, rows_loaded = 0;
    answers(db, &img, &open_img, &img_loaded);
    assert_int_equal(open_img, 0);   /* the open */
    assert_int_equal(img_loaded, 0); /* and the requests */
    assert_non_null(strstr(img.data, "found "));
    assert_non_null(strstr(img.data, "Get the cast and crew of a movie")); /* summaries shown */

    /* the same answers from the rows */
    setenv("APIDEX_IMAGE_OPS", "0", 1);
    answers(db, &rows, &open_rows, &rows_loaded);
    unsetenv("APIDEX_IMAGE_OPS");
    assert_true(rows_loaded & STORE_LOADED_OPERATIONS);
    assert_string_equal(img.data, rows.data);

    core_buf_free(&img);
    core_buf_free(&rows);
    tu_rmtree(dir);
    free(dir);
    free(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_reads_no_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
