/* core_array_grow and core_arena_array_grow (src/core/array.c): doubling growth and
   overflow-safe size math, on the heap and in an arena. */
#include "testutil.h"

#include "core/core.h"

#include <stdint.h>
#include <stdlib.h>

static void test_grows_by_doubling(void **state)
{
    (void)state;
    int *items = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 100; i++) {
        assert_int_equal(core_array_grow(&items, &cap, n, sizeof *items, 8), 0);
        assert_true(n < cap);
        items[n++] = i;
    }
    assert_int_equal(cap, 128); /* 8, 16, 32, 64, 128 */
    for (int i = 0; i < 100; i++) assert_int_equal(items[i], i);
    /* room left: nothing moves */
    int *before = items;
    assert_int_equal(core_array_grow(&items, &cap, 100, sizeof *items, 8), 0);
    assert_ptr_equal(items, before);
    assert_int_equal(cap, 128);
    free(items);
}

static void test_overflow_refused(void **state)
{
    (void)state;
    char *items = malloc(4);
    assert_non_null(items);
    /* doubling the capacity would pass SIZE_MAX */
    size_t cap = SIZE_MAX / 2 + 1;
    assert_int_equal(core_array_grow(&items, &cap, cap, 1, 8), APIDEX_ENOMEM);
    assert_int_equal(cap, SIZE_MAX / 2 + 1);
    /* the doubled capacity fits, its bytes do not */
    cap = SIZE_MAX / 16;
    assert_int_equal(core_array_grow(&items, &cap, cap, 16, 8), APIDEX_ENOMEM);
    assert_int_equal(cap, SIZE_MAX / 16);
    /* the first allocation's bytes do not fit */
    char *none = NULL;
    size_t zero = 0;
    assert_int_equal(core_array_grow(&none, &zero, 0, SIZE_MAX / 2, 4), APIDEX_ENOMEM);
    assert_null(none);
    assert_int_equal(zero, 0);
    /* a zero element size or first capacity is refused, not a zero-byte array */
    assert_int_equal(core_array_grow(&none, &zero, 0, 0, 4), APIDEX_ENOMEM);
    assert_int_equal(core_array_grow(&none, &zero, 0, 1, 0), APIDEX_ENOMEM);
    /* the array is untouched after a refusal */
    items[0] = 'x';
    size_t small = 4;
    assert_int_equal(core_array_grow(&items, &small, 4, 1, 8), 0);
    assert_int_equal(small, 8);
    assert_int_equal(items[0], 'x');
    free(items);
}

static void test_paired_arrays(void **state)
{
    (void)state;
    int *keys = NULL;
    double *vals = NULL;
    size_t cap = 0;
    for (size_t n = 0; n < 100; n++) {
        assert_int_equal(core_array_grow2(&keys, sizeof *keys, &vals, sizeof *vals, &cap, n, 4), 0);
        assert_true(n < cap);
        keys[n] = (int)n;
        vals[n] = (double)n / 2;
    }
    assert_int_equal(cap, 128);
    for (size_t n = 0; n < 100; n++) {
        assert_int_equal(keys[n], (int)n);
        assert_true(vals[n] == (double)n / 2);
    }
    /* the second array's bytes do not fit: *cap as it was, both arrays still usable */
    size_t at = cap;
    char *small = malloc(1);
    assert_non_null(small);
    assert_int_equal(core_array_grow2(&keys, sizeof *keys, &small, SIZE_MAX / 200, &cap, at, 4),
                     APIDEX_ENOMEM);
    assert_int_equal(cap, at);
    assert_int_equal(keys[99], 99);
    free(small);
    free(keys);
    free(vals);
}

static void test_arena_arrays(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    assert_non_null(a);
    const char **list = NULL;
    size_t n = 0, cap = 0;
    static const char *const words[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
    for (size_t i = 0; i < 10; i++) {
        assert_int_equal(core_arena_array_grow(a, &list, &cap, n, sizeof *list, 4), 0);
        assert_true(n < cap);
        /* zeroed past what is kept, one item past the capacity too: NULL-terminated */
        for (size_t k = n; k <= cap; k++) assert_null(list[k]);
        list[n++] = words[i];
    }
    assert_int_equal(cap, 16); /* 4, 8, 16 */
    for (size_t i = 0; i < 10; i++) assert_string_equal(list[i], words[i]);
    /* room left: nothing moves */
    const char **before = list;
    assert_int_equal(core_arena_array_grow(a, &list, &cap, 10, sizeof *list, 4), 0);
    assert_ptr_equal(list, before);
    /* too large: refused, the array and its capacity as they were */
    size_t big = SIZE_MAX / 2 + 1;
    assert_int_equal(core_arena_array_grow(a, &list, &big, big, sizeof *list, 4), APIDEX_ENOMEM);
    assert_int_equal(big, SIZE_MAX / 2 + 1);
    /* the capacity's bytes fit, with the NULL item past it they do not */
    const char **none = NULL;
    size_t zero = 0;
    assert_int_equal(
        core_arena_array_grow(a, &none, &zero, 0, sizeof *none, SIZE_MAX / sizeof *none),
        APIDEX_ENOMEM);
    assert_null(none);
    assert_int_equal(zero, 0);
    assert_ptr_equal(list, before);
    assert_string_equal(list[9], "j");
    core_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grows_by_doubling),
        cmocka_unit_test(test_overflow_refused),
        cmocka_unit_test(test_paired_arrays),
        cmocka_unit_test(test_arena_arrays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
