/* Which --db values name a PostgreSQL database, and how they are shown: never with the
   password (in the userinfo or a password= parameter), files untouched. */
#include "testutil.h"

#include "store/store.h"

#include <string.h>

static void test_is_server(void **state)
{
    (void)state;
    assert_true(store_is_server("postgres://h/db"));
    assert_true(store_is_server("postgresql://u:p@h:5432/db?sslmode=require"));
    assert_false(store_is_server("apidex.db"));
    assert_false(store_is_server("/tmp/postgres://x"));
    assert_false(store_is_server("postgres:/h"));
    assert_false(store_is_server(NULL));
}

static void test_display(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"postgres://u:secret@h/db", "postgres://u:***@h/db"},
        {"postgresql://u:se:cret@h:5432/db", "postgresql://u:***@h:5432/db"},
        {"postgres://u@h/db", "postgres://u@h/db"},
        {"postgres://h/db", "postgres://h/db"},
        {"postgres://u:p@ss@h/db", "postgres://u:***@h/db"},
        {"postgres://u:p%40ss@h/db?sslmode=require", "postgres://u:***@h/db?sslmode=require"},
        {"postgres://h/db?password=secret&user=u", "postgres://h/db?password=***&user=u"},
        {"postgres://h/db?user=u&password=secret", "postgres://h/db?user=u&password=***"},
        {"postgres://u:secret@/db?host=/run/pg", "postgres://u:***@/db?host=/run/pg"},
        {"idx/apidex.db", "idx/apidex.db"},
    };
    char buf[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = store_display(cases[i][0], buf, sizeof buf);
        assert_string_equal(got, cases[i][1]);
        assert_null(strstr(got, "secret"));
    }
    /* too small a buffer truncates, never overflows or leaks */
    char tiny[20];
    const char *got = store_display("postgres://user:secret@host/db", tiny, sizeof tiny);
    assert_true(strlen(got) < sizeof tiny);
    assert_null(strstr(got, "sec"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_server),
        cmocka_unit_test(test_display),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
