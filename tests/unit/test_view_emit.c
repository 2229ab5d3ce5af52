/* Unit tests of the view's emitter (view/emit.c): view_put_value, the one writer of a value
 * as a reader types it, brief in a rendering (render.c) and whole in a detail level's text
 * (detail_text.c); and that the first failure stops the writing. */
#include "testutil.h"

#include "view/view_int.h"

#include <stdlib.h>
#include <string.h>

static jt_doc *values;

/* Each member of the array, written with view_put_value(brief), separated by "|". */
static char *written(size_t brief)
{
    core_buf b;
    core_buf_init(&b, 0);
    view_emit e = {.out = &b};
    for (size_t i = 0; i < values->root->len; i++) {
        if (i) view_put(&e, "|");
        view_put_value(&e, jt_at(values->root, i), brief);
    }
    view_put_value(&e, NULL, brief);
    assert_int_equal(e.rc, 0);
    char *s = strdup(b.data ? b.data : "");
    core_buf_free(&b);
    return s;
}

static int setup(void **state)
{
    (void)state;
    /* "caf\u00e9 au lait" puts the two bytes of é across a 4-byte cut. */
    static const char json[] = "[\"short\", \"line one\\nline two\", \"caf\\u00e9 au lait\", 42, "
                               "-7, 2.5, 1e300, null, true, false, [1, \"a\"], {\"k\": [null]}, "
                               "\"\"]";
    char *text = strdup(json);
    apidex_error err;
    return text && jt_doc_parse(text, strlen(text), "values.json", NULL, &values, &err) == 0 ? 0
                                                                                             : -1;
}

static int teardown(void **state)
{
    (void)state;
    jt_doc_free(values);
    return 0;
}

static void test_whole(void **state)
{
    (void)state;
    char *s = written(0);
    assert_string_equal(s, "short|line one\nline two|caf\xc3\xa9 au lait|42|-7|2.5|1e+300|null|"
                           "true|false|[1,\"a\"]|{\"k\":[null]}|");
    free(s);
}

static void test_brief(void **state)
{
    (void)state;
    char *s = written(4);
    assert_string_equal(s, "shor...|line...|caf...|42|-7|2.5|1e+300|null|true|false|[...]|{...}|");
    free(s);
    s = written(40);
    assert_string_equal(s, "short|line one...|caf\xc3\xa9 au lait|42|-7|2.5|1e+300|null|true|false|"
                           "[...]|{...}|");
    free(s);
}

static void test_first_failure_stops(void **state)
{
    (void)state;
    core_buf b;
    core_buf_init(&b, 0);
    view_emit e = {.out = &b, .rc = APIDEX_ELIMIT};
    view_put_value(&e, values->root, 0);
    view_put(&e, "x");
    assert_int_equal(e.rc, APIDEX_ELIMIT);
    assert_int_equal(b.len, 0);
    core_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole),
        cmocka_unit_test(test_brief),
        cmocka_unit_test(test_first_failure_stops),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
