/* The registry-change rules of build_index: the guard, keep-unlisted (add) and drop
   (remove). */
#include "testutil.h"

#include "build/build.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static spec_registry *load(const char *const *paths, size_t n, const char *name)
{
    spec_registry *reg = NULL;
    apidex_error err;
    spec_options so = {.api_id = name};
    assert_int_equal(spec_registry_new(&so, &reg, &err), 0);
    for (size_t i = 0; i < n; i++) assert_int_equal(spec_registry_add(reg, paths[i], &err), 0);
    return reg;
}

static size_t n_apis(const char *db)
{
    store_index *idx = NULL;
    apidex_error err;
    assert_int_equal(store_open(db, true, &idx, &err), 0);
    const store_api *apis;
    size_t n = 0;
    assert_int_equal(store_apis(idx, &apis, &n, &err), 0);
    store_close(idx);
    return n;
}

static void test_registry_changes(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = tu_path(dir, "x.db");
    char pet[1024], notes[1024];
    snprintf(pet, sizeof pet, "%s/tests/data/store/petstore.yaml", tu_source_dir());
    snprintf(notes, sizeof notes, "%s/tests/data/store/notes.json", tu_source_dir());
    apidex_error err;
    store_build_report rep;
    const char *both[] = {pet, notes};
    spec_registry *reg = load(both, 2, NULL);
    build_options guard = {.guard = true};
    assert_int_equal(build_index(db, reg, &guard, &rep, &err), 0);
    spec_registry_free(reg);

    /* the guard: all of it, or more than half, is refused; half is not */
    reg = load(NULL, 0, NULL);
    assert_int_equal(build_index(db, reg, &guard, &rep, &err), APIDEX_EREFUSED);
    assert_non_null(strstr(err.message, "remove all 2 APIs"));
    spec_registry_free(reg);
    reg = load(both, 1, NULL);
    assert_int_equal(build_index(db, reg, &guard, &rep, &err), 0);
    assert_int_equal(rep.removed, 1);
    spec_registry_free(reg);

    /* add (keep_unlisted) under a given name; the other API is copied */
    const char *one[] = {notes};
    reg = load(one, 1, "my-notes");
    build_options add = {.keep_unlisted = true, .inherit = true, .guard = true};
    assert_int_equal(build_index(db, reg, &add, &rep, &err), 0);
    assert_int_equal(rep.added, 1);
    assert_int_equal(rep.unchanged, 1);
    assert_int_equal(rep.removed, 0);
    assert_int_equal(n_apis(db), 2);
    spec_registry_free(reg);

    /* remove: an unknown id is refused, a known one goes alone */
    reg = load(NULL, 0, NULL);
    const char *gone[] = {"nope"};
    build_options rm = {
        .keep_unlisted = true, .inherit = true, .drop_apis = gone, .n_drop_apis = 1};
    assert_int_equal(build_index(db, reg, &rm, &rep, &err), APIDEX_ENOTFOUND);
    gone[0] = "my-notes";
    assert_int_equal(build_index(db, reg, &rm, &rep, &err), 0);
    assert_int_equal(rep.removed, 1);
    assert_int_equal(rep.unchanged, 1);
    assert_int_equal(n_apis(db), 1);
    spec_registry_free(reg);

    free(db);
    tu_rmtree(dir);
    free(dir);
}

/* store_index_settings reads what the index was built with; a meta row without a value (a
   file whose meta table another tool rewrote without NOT NULL) is skipped, not taken for damage (it
   ended the read with SQLITE_ROW, which was reported as a damaged index, so `add` refused an index
   that searched fine). */
static void test_index_settings_null_value(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *db = tu_path(dir, "x.db");
    char pet[1024];
    snprintf(pet, sizeof pet, "%s/tests/data/store/petstore.yaml", tu_source_dir());
    const char *one[] = {pet};
    spec_registry *reg = load(one, 1, NULL);
    apidex_error err;
    store_build_report rep;
    build_options o = {0};
    assert_int_equal(build_index(db, reg, &o, &rep, &err), 0);
    spec_registry_free(reg);
    sqlite3 *s = NULL;
    assert_int_equal(sqlite3_open(db, &s), SQLITE_OK);
    assert_int_equal(sqlite3_exec(s,
                                  "ALTER TABLE meta RENAME TO meta0;"
                                  "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
                                  "INSERT INTO meta SELECT * FROM meta0 WHERE key <> 'filters';"
                                  "DROP TABLE meta0;"
                                  "INSERT INTO meta(key, value) VALUES ('filters', NULL)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(s);
    char *strategy = NULL, *filters = NULL;
    if (store_index_settings(db, &strategy, &filters, &err)) fail_msg("%s", err.message);
    assert_non_null(strategy);
    assert_null(filters);
    free(strategy);
    free(db);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_settings_null_value),
        cmocka_unit_test(test_registry_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
