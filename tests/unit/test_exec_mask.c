/* Tests for exec_mask: a request's credential values never shown. */
#include "testutil.h"

#include "exec/exec.h"

#include <string.h>

static void test_mask_every_occurrence(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    const char *secrets[] = {"s3cr3t", "s3cr3t-longer", "k"};
    exec_request r = {.secrets = secrets, .n_secrets = 3, .arena = a};
    /* the longest secret at a position wins; a 1-byte secret becomes "****" too */
    assert_string_equal(exec_mask(&r, "Authorization: Bearer s3cr3t-longer?x=s3cr3t&k", a),
                        "Authorization: Bearer ****?x=****&****");
    assert_string_equal(exec_mask(&r, "", a), "");
    core_arena_free(a);
}

static void test_mask_nothing_to_hide(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    exec_request r = {.arena = a};
    const char *t = "GET https://api.example.com/v1/pets";
    assert_ptr_equal(exec_mask(&r, t, a), t);
    assert_null(exec_mask(&r, NULL, a));
    core_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mask_every_occurrence),
        cmocka_unit_test(test_mask_nothing_to_hide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
