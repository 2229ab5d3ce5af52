/* net_resolve (src/net/dns.c): getaddrinfo with a deadline. Answers within the deadline are
   getaddrinfo's own; a lookup still running at the deadline is left to finish on its own
   thread, which frees it (no leak, no use after free: the sanitizer build checks). */
#include "testutil.h"

#include "net/net.h"

#include <netdb.h>
#include <string.h>
#include <unistd.h>

static void test_resolves(void **state)
{
    (void)state;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    assert_int_equal(net_resolve("127.0.0.1", "80", &hints, 10000, &res), 0);
    assert_non_null(res);
    assert_int_equal(res->ai_family, AF_INET);
    freeaddrinfo(res);
    res = NULL;
    assert_int_equal(net_resolve("localhost", "8080", &hints, 10000, &res), 0);
    assert_non_null(res);
    freeaddrinfo(res);
    /* a name that cannot be resolved: getaddrinfo's error (or, where DNS does not answer,
       the deadline), never an address */
    res = NULL;
    int rc = net_resolve("no-such-host.invalid", "80", &hints, 3000, &res);
    assert_true(rc < 0 || rc == NET_RESOLVE_TIMEOUT);
    assert_null(res);
}

/* With no time at all, a lookup is given up at once (or was already done): never a crash,
   and the abandoned lookups clean up after themselves. */
static void test_deadline(void **state)
{
    (void)state;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    unsigned timeouts = 0;
    for (int i = 0; i < 50; i++) {
        struct addrinfo *res = NULL;
        int rc = net_resolve("localhost", "80", &hints, 0, &res);
        if (rc == NET_RESOLVE_TIMEOUT) {
            assert_null(res);
            timeouts++;
        } else {
            assert_int_equal(rc, 0);
            freeaddrinfo(res);
        }
    }
    assert_true(timeouts > 0); /* a lookup on another thread is never done before we look */
    usleep(300 * 1000);        /* let the abandoned lookups finish (the leak check runs at exit) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolves),
        cmocka_unit_test(test_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
