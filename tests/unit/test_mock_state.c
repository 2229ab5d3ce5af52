/* mock state: create -> read -> update -> delete -> 404 on the store itself, lookup by the
   same resource name, creation order in lists, and the cap. */
#include "testutil.h"

#include "mock/mock.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

static json_object *pet(const char *name)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(name));
    return o;
}

static const char *name_of(json_object *o)
{
    json_object *v;
    return json_object_object_get_ex(o, "name", &v) ? json_object_get_string(v) : NULL;
}

static void test_lifecycle(void **state)
{
    (void)state;
    mock_state *st;
    assert_int_equal(mock_state_new(&st), 0);
    bool deleted;
    assert_null(mock_state_get(st, "/pets", "1", &deleted));
    assert_false(deleted);
    json_object *a = pet("Rex");
    assert_int_equal(mock_state_put(st, "/pets", "1", a), 0);
    json_object_put(a); /* the store holds its own reference */
    assert_string_equal(name_of(mock_state_get(st, "/pets", "1", &deleted)), "Rex");
    json_object *b = pet("Max");
    assert_int_equal(mock_state_put(st, "/pets", "1", b), 0); /* replace */
    json_object_put(b);
    assert_string_equal(name_of(mock_state_get(st, "/pets", "1", &deleted)), "Max");
    assert_int_equal(mock_state_delete(st, "/pets", "1"), 0);
    assert_null(mock_state_get(st, "/pets", "1", &deleted));
    assert_true(deleted);
    /* deleting what was never stored leaves a tombstone too */
    assert_int_equal(mock_state_delete(st, "/pets", "9"), 0);
    assert_null(mock_state_get(st, "/pets", "9", &deleted));
    assert_true(deleted);
    /* a put undeletes */
    json_object *c = pet("Back");
    assert_int_equal(mock_state_put(st, "/pets", "1", c), 0);
    json_object_put(c);
    assert_string_equal(name_of(mock_state_get(st, "/pets", "1", &deleted)), "Back");
    assert_false(deleted);
    mock_state_free(st);
}

static void test_lists_and_names(void **state)
{
    (void)state;
    mock_state *st;
    assert_int_equal(mock_state_new(&st), 0);
    const char *names[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        char id[8];
        snprintf(id, sizeof id, "%lu", mock_state_next_id(st));
        json_object *o = pet(names[i]);
        assert_int_equal(mock_state_put(st, "/users/7/playlists", id, o), 0);
        json_object_put(o);
    }
    assert_int_equal(mock_state_delete(st, "/users/7/playlists", "2"), 0);
    json_object *list = mock_state_list(st, "/users/7/playlists");
    assert_int_equal(json_object_array_length(list), 2);
    assert_string_equal(name_of(json_object_array_get_idx(list, 0)), "a");
    assert_string_equal(name_of(json_object_array_get_idx(list, 1)), "c");
    json_object_put(list);
    list = mock_state_list(st, "/playlists");
    assert_int_equal(json_object_array_length(list), 0);
    json_object_put(list);
    /* read by the same resource name from another collection path */
    bool deleted;
    assert_string_equal(name_of(mock_state_get(st, "/v1/playlists", "3", &deleted)), "c");
    assert_null(mock_state_get(st, "/v1/playlists", "2", &deleted));
    assert_true(deleted);
    assert_null(mock_state_get(st, "/v1/albums", "3", &deleted));
    mock_state_free(st);
}

static void test_cap(void **state)
{
    (void)state;
    mock_state *st;
    assert_int_equal(mock_state_new(&st), 0);
    json_object *o = pet("x");
    char id[16];
    for (int i = 0; i < MOCK_STATE_MAX; i++) {
        snprintf(id, sizeof id, "%d", i);
        assert_int_equal(mock_state_put(st, "/c", id, o), 0);
    }
    assert_int_equal(mock_state_put(st, "/c", "one-more", o), APIDEX_ELIMIT);
    assert_int_equal(mock_state_put(st, "/c", "5", o), 0); /* replacing still works */
    json_object_put(o);
    mock_state_free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lifecycle),
        cmocka_unit_test(test_lists_and_names),
        cmocka_unit_test(test_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
