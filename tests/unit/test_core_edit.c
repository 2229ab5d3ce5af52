/* core_edit_distance (src/core/edit.c): the one edit distance behind every "did you mean". */
#include "testutil.h"

#include "core/core.h"

#include <string.h>

static size_t d(const char *a, const char *b, size_t cap)
{
    return core_edit_distance(a, strlen(a), b, strlen(b), cap);
}

static void test_edits(void **state)
{
    (void)state;
    assert_int_equal(d("search", "search", 99), 0);
    assert_int_equal(d("Search", "sEARCH", 99), 0); /* case does not count */
    assert_int_equal(d("serach", "search", 99), 1); /* two neighbours swapped: one edit */
    assert_int_equal(d("searc", "search", 99), 1);
    assert_int_equal(d("searchh", "search", 99), 1);
    assert_int_equal(d("seerch", "search", 99), 1);
    assert_int_equal(d("", "abc", 99), 3);
    assert_int_equal(d("abc", "", 99), 3);
    assert_int_equal(d("kitten", "sitting", 99), 3);
    assert_int_equal(d("ca", "abc", 99), 3); /* OSA: a swapped pair is not edited again */
}

static void test_cap_and_length(void **state)
{
    (void)state;
    assert_int_equal(d("kitten", "sitting", 2), 2); /* at or above the cap: the cap */
    assert_int_equal(d("kitten", "sitting", 3), 3);
    assert_int_equal(d("kitten", "sitting", 4), 3);
    char longer[CORE_EDIT_MAX + 2];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(d(longer, "a", 7), 7); /* too long to compare: the cap */
    assert_int_equal(core_edit_distance(longer, CORE_EDIT_MAX, longer, CORE_EDIT_MAX, 7), 0);
    /* a prefix of a longer string: only la characters are read */
    assert_int_equal(core_edit_distance("pets/extra", 4, "pets", 4, 99), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edits),
        cmocka_unit_test(test_cap_and_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
