/* One entry per service (src/store/dupes.c): version order, title and host keys, and the
 * groups (equal titles; a shared host only with shared endpoints). */
#include "testutil.h"

#include "store/store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_version_cmp(void **state)
{
    (void)state;
    assert_true(store_version_cmp("2.0.0", "1.9.9") > 0);
    assert_true(store_version_cmp("1.10", "1.9") > 0); /* numbers, not text */
    assert_true(store_version_cmp("v2", "1.5") > 0);   /* a leading v is ignored */
    assert_int_equal(store_version_cmp("v1.0", "1.0"), 0);
    assert_true(store_version_cmp("1.0.0-beta", "1.0.0") < 0); /* a pre-release is older */
    assert_true(store_version_cmp("1.0.0-beta", "1.0.0-alpha") > 0);
    assert_true(store_version_cmp("1.0.1", "1.0.0-rc1") > 0);
    assert_true(store_version_cmp("1.0.0", "1") > 0);
    assert_true(store_version_cmp("2019-10-01", "2019-08-01") > 0);
    assert_true(store_version_cmp("", "0.1") < 0);
    assert_true(store_version_cmp(NULL, NULL) == 0);
    assert_true(store_version_cmp("99999999999999999999999", "1") > 0); /* no overflow trap */
}

static void test_title_and_host(void **state)
{
    (void)state;
    core_buf b;
    core_buf_init(&b, 0);
    store_title_norm("Animal Shelter API v2", &b);
    assert_string_equal(b.data, "animal shelter api");
    store_title_norm("animal-shelter API (2.0.1)", &b);
    assert_string_equal(b.data, "animalshelter api");
    store_title_norm(NULL, &b);
    assert_string_equal(b.data, "");
    store_server_host("https://WWW.Example.org:8443/v1", &b);
    assert_string_equal(b.data, "example.org");
    store_server_host("https://user@api.x.test/", &b);
    assert_string_equal(b.data, "api.x.test");
    store_server_host("https://{region}.api.test", &b);
    assert_string_equal(b.data, "");
    store_server_host("http://localhost:8080", &b);
    assert_string_equal(b.data, "");
    store_server_host("/relative", &b);
    assert_string_equal(b.data, "");
    core_buf_free(&b);
}

static void test_groups(void **state)
{
    (void)state;
    store_server s1 = {"https://api.shelter.test/v1", NULL},
                 s2 = {"https://api.shelter.test/v2", NULL},
                 s3 = {"https://api.shelter.test/clinic", NULL}, s4 = {"https://other.test", NULL};
    store_api apis[5] = {
        {.id = "a", .title = "Shelter API", .version = "1.2.0", .servers = &s1, .n_servers = 1},
        {.id = "b", .title = "Shelter API v2", .version = "2.0.0", .servers = &s2, .n_servers = 1},
        {.id = "c", .title = "Clinic", .version = "9", .servers = &s3, .n_servers = 1},
        {.id = "d", .title = "Copy", .version = "1.0", .servers = &s1, .n_servers = 1},
        {.id = "e", .title = "shelter api", .version = "0.1", .servers = &s4, .n_servers = 1},
    };
    store_operation ops[] = {
        {.id = "a:1", .api = "a", .method = "GET", .path = "/animals/{x}"},
        {.id = "b:1", .api = "b", .method = "GET", .path = "/animals/{y}"},
        {.id = "c:1", .api = "c", .method = "GET", .path = "/appointments"},
        {.id = "d:1", .api = "d", .method = "GET", .path = "/animals/{z}"},
        {.id = "e:1", .api = "e", .method = "GET", .path = "/cats"},
    };
    store_dups *d = NULL;
    assert_int_equal(store_duplicates(apis, 5, ops, 5, &d), 0);
    assert_int_equal(d->n, 1);
    /* a, b (title), d (host and endpoint of a), e (title): c shares only the host */
    assert_int_equal(d->groups[0].n, 4);
    assert_int_equal(d->groups[0].apis[0], 1); /* b: 2.0.0 is the newest */
    assert_int_equal(d->group_of[2], SIZE_MAX);
    assert_int_equal(d->groups[0].apis[3], 4); /* e: 0.1 the oldest */
    store_dups_free(d);
    assert_int_equal(store_duplicates(apis, 0, ops, 0, &d), 0);
    assert_int_equal(d->n, 0);
    store_dups_free(d);
}

/* The open-cost guard: many APIs on one shared host (a cloud provider's) are compared
   pairwise, but each operation is read once, whatever the number of pairs (grouping once
   scanned every operation of the registry for each pair, minutes at directory scale). */
static void test_work_is_linear(void **state)
{
    (void)state;
    enum { N = 120, PER = 8 };
    static char ids[N][16], titles[N][24], opids[N * PER][24], paths[N * PER][32];
    store_server host = {"https://api.cloud.test/", NULL};
    store_api *apis = calloc(N, sizeof *apis);
    store_operation *ops = calloc(N * PER, sizeof *ops);
    assert_non_null(apis);
    assert_non_null(ops);
    for (size_t a = 0; a < N; a++) {
        snprintf(ids[a], sizeof ids[a], "svc%zu", a);
        /* distinct titles (digits alone are version words, so letters) */
        snprintf(titles[a], sizeof titles[a], "Service %c%c", 'a' + (int)(a / 26),
                 'a' + (int)(a % 26));
        apis[a] = (store_api){
            .id = ids[a], .title = titles[a], .version = "1", .servers = &host, .n_servers = 1};
        for (size_t j = 0; j < PER; j++) {
            size_t o = a * PER + j;
            snprintf(opids[o], sizeof opids[o], "svc%zu:%zu", a, j);
            /* the last two APIs are one service: the same endpoints */
            snprintf(paths[o], sizeof paths[o], "/r%zu/x%zu", a >= N - 2 ? N : a, j);
            ops[o] =
                (store_operation){.id = opids[o], .api = ids[a], .method = "GET", .path = paths[o]};
        }
    }
    store_dups *d = NULL;
    assert_int_equal(store_duplicates(apis, N, ops, N * PER, &d), 0);
    assert_true(d->work <= (size_t)N * PER);
    assert_int_equal(d->n, 1);
    assert_int_equal(d->groups[0].n, 2);
    assert_int_equal(d->group_of[N - 1], 0);
    assert_int_equal(d->group_of[0], SIZE_MAX);
    store_dups_free(d);
    free(apis);
    free(ops);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_cmp),
        cmocka_unit_test(test_title_and_host),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_work_is_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
