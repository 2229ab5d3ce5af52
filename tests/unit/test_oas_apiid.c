/* Tests for API ids: what a document proposes (apiid.c) and how a registry makes them unique. */
#include "testutil.h"

#include "oas/oas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The id the document `text`, saved as `file` in a fresh directory, gets alone. */
static void id_of(const char *file, const char *text, char out[SPEC_ID_MAX + 1])
{
    char *dir = tu_tempdir();
    char *path = tu_write(dir, file, text);
    spec_registry *reg = NULL;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(spec_load_file(path, NULL, &reg, &err), 0);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_id_propose(api, out);
    /* alone in a registry, the proposal is the id */
    assert_string_equal(api->id, out);
    assert_true(spec_id_valid(out));
    spec_registry_free(reg);
    free(path);
    tu_rmtree(dir);
    free(dir);
}

static void assert_id(const char *file, const char *text, const char *want)
{
    char got[SPEC_ID_MAX + 1];
    id_of(file, text, got);
    if (strcmp(got, want) != 0) fail_msg("%s: id '%s', want '%s'", file, got, want);
}

static void test_apisguru_fields(void **state)
{
    (void)state;
    assert_id("openapi.json",
              "{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"Amazon Simple Storage Service\","
              "\"version\":\"1\",\"x-providerName\":\"amazonaws.com\",\"x-serviceName\":\"s3\"},"
              "\"paths\":{}}",
              "amazonaws-s3");
    /* no service: the provider alone; a country's second level is part of the suffix */
    assert_id("swagger.yaml",
              "swagger: '2.0'\ninfo: {title: Radio, version: '1', x-providerName: bbc.co.uk}\n"
              "paths: {}\n",
              "bbc");
    /* the provider is not repeated when the service starts with it */
    assert_id("a.yaml",
              "openapi: 3.0.0\ninfo: {title: Hotel, version: '1', x-providerName: amadeus.com,\n"
              "  x-serviceName: amadeus-hotel-search}\npaths: {}\n",
              "amadeus-hotel-search");
    /* "api.video": dropping the suffix would leave a generic word */
    assert_id("a.yaml",
              "openapi: 3.0.0\ninfo: {title: T, version: '1', x-providerName: api.video}\n"
              "paths: {}\n",
              "api.video");
    /* service names are slugged: case, and characters outside [a-z0-9._-] */
    assert_id("a.yaml",
              "openapi: 3.0.0\ninfo: {title: T, version: '1', x-providerName: adyen.com,\n"
              "  x-serviceName: 'Checkout Service/v2'}\npaths: {}\n",
              "adyen-checkout-service-v2");
}

static void test_title_slug(void **state)
{
    (void)state;
    assert_id("spec3.json",
              "{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"Stripe API\",\"version\":\"1\"},"
              "\"paths\":{}}",
              "stripe");
    assert_id("x.yaml",
              "openapi: 3.0.0\ninfo: {title: 'The GitHub v3 REST API', version: '1'}\npaths: {}\n",
              "github");
    assert_id("x.yaml",
              "openapi: 3.0.0\ninfo: {title: 'Café & Crème: Orders!', version: '1'}\npaths: {}\n",
              "caf-cr-me-orders");
    /* inner dots stay: a brand like "Shorten.REST" */
    assert_id("x.yaml",
              "openapi: 3.0.0\ninfo: {title: Shorten.REST API, version: '1'}\npaths: {}\n",
              "shorten.rest");
}

static void test_long_title(void **state)
{
    (void)state;
    char got[SPEC_ID_MAX + 1];
    id_of("x.yaml",
          "openapi: 3.0.0\ninfo: {title: 'U.S. EPA Enforcement and Compliance History Online "
          "(ECHO) - Effluent Charting and Reporting Services for Water', version: '1'}\n"
          "paths: {}\n",
          got);
    /* five words at most, cut at a word */
    assert_string_equal(got, "u.s-epa-enforcement-compliance-history");
    char long_word[200];
    memset(long_word, 'q', sizeof long_word - 1);
    long_word[sizeof long_word - 1] = '\0';
    char doc[400];
    snprintf(doc, sizeof doc, "openapi: 3.0.0\ninfo: {title: '%s x', version: '1'}\npaths: {}\n",
             long_word);
    id_of("x.yaml", doc, got);
    assert_true(strlen(got) <= SPEC_ID_MAX);
    assert_true(spec_id_valid(got));
}

static void test_host_and_file(void **state)
{
    (void)state;
    /* a title of filler words only: the server's host */
    assert_id("tmdb_oas.json",
              "{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"API\",\"version\":\"3\"},"
              "\"servers\":[{\"url\":\"https://api.themoviedb.org/3\"}],\"paths\":{}}",
              "themoviedb");
    /* no title, a templated host: the file name */
    assert_id("My Spec_v2.yaml",
              "openapi: 3.0.0\ninfo: {version: '1'}\nservers: [{url: 'https://{region}.x.com'}]\n"
              "paths: {}\n",
              "my-spec_v2");
    /* nothing usable at all */
    assert_id("___.yaml", "openapi: 3.0.0\ninfo: {title: '!!!', version: '1'}\npaths: {}\n", "api");
}

static void test_valid(void **state)
{
    (void)state;
    assert_true(spec_id_valid("stripe"));
    assert_true(spec_id_valid("a"));
    assert_true(spec_id_valid("amazonaws-s3"));
    assert_true(spec_id_valid("api.video"));
    assert_false(spec_id_valid(""));
    assert_false(spec_id_valid(NULL));
    assert_false(spec_id_valid("Stripe"));
    assert_false(spec_id_valid("a:b"));
    assert_false(spec_id_valid("a/b"));
    assert_false(spec_id_valid("-a"));
    assert_false(spec_id_valid("a-"));
    char big[SPEC_ID_MAX + 2];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_false(spec_id_valid(big));
    big[SPEC_ID_MAX] = '\0';
    assert_true(spec_id_valid(big));
}

static bool taken_in(void *ctx, const char *id)
{
    for (const char *const *p = ctx; *p; p++)
        if (!strcmp(*p, id)) return true;
    return false;
}

static void test_unique(void **state)
{
    (void)state;
    char out[SPEC_ID_MAX + 1];
    const char *none[] = {NULL};
    assert_int_equal(spec_id_unique("stripe", taken_in, (void *)none, out), 0);
    assert_string_equal(out, "stripe");
    const char *some[] = {"stripe", "stripe-2", NULL};
    assert_int_equal(spec_id_unique("stripe", taken_in, (void *)some, out), 0);
    assert_string_equal(out, "stripe-3");
    /* a full-length id is cut to make room for the suffix */
    char big[SPEC_ID_MAX + 1];
    memset(big, 'b', SPEC_ID_MAX);
    big[SPEC_ID_MAX] = '\0';
    const char *full[] = {big, NULL};
    assert_int_equal(spec_id_unique(big, taken_in, (void *)full, out), 0);
    assert_int_equal(strlen(out), SPEC_ID_MAX);
    assert_string_equal(out + SPEC_ID_MAX - 2, "-2");
}

/* Collisions in a registry: "-2" by sorted path, whatever the order the inputs came in. */
static void test_registry_collisions(void **state)
{
    (void)state;
    const char *doc = "openapi: 3.0.0\ninfo: {title: Pet Store, version: '1'}\npaths: {}\n";
    char *dir = tu_tempdir();
    free(tu_write(dir, "b/petstore.yaml", doc));
    free(tu_write(dir, "a/petstore.yaml", doc));
    free(tu_write(dir, "c/other.yaml", doc));
    const char *orders[2][3] = {{"a", "b", "c"}, {"c", "b", "a"}};
    for (int o = 0; o < 2; o++) {
        spec_registry *reg = NULL;
        apidex_error err;
        core_error_clear(&err);
        assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
        for (int k = 0; k < 3; k++) {
            char *p = tu_path(dir, orders[o][k]);
            assert_int_equal(spec_registry_add(reg, p, &err), 0);
            free(p);
        }
        assert_int_equal(spec_registry_count(reg), 3);
        const spec_api *a = spec_registry_find(reg, "pet-store");
        assert_non_null(a);
        assert_non_null(strstr(a->file, "/a/petstore.yaml"));
        a = spec_registry_find(reg, "pet-store-2");
        assert_non_null(a);
        assert_non_null(strstr(a->file, "/b/petstore.yaml"));
        assert_non_null(spec_registry_find(reg, "pet-store-3"));
        spec_registry_free(reg);
    }
    tu_rmtree(dir);
    free(dir);
}

/* Renaming an API renames its operations and schemas; a bad id is refused; the look-up
   follows once reindexed. Given ids win over proposals, in any order. */
static void test_set_id(void **state)
{
    (void)state;
    const char *doc = "openapi: 3.0.0\ninfo: {title: Pet Store, version: '1'}\n"
                      "paths:\n  /pets:\n    get:\n      operationId: listPets\n"
                      "      responses: {'200': {description: ok}}\n";
    char *dir = tu_tempdir();
    free(tu_write(dir, "a.yaml", doc));
    free(tu_write(dir, "b.yaml", doc));
    spec_registry *reg = NULL;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, dir, &err), 0);
    assert_null(spec_registry_given_id(reg, 0));
    assert_int_equal(spec_registry_set_id(reg, 0, "pets", &err), 0);
    assert_int_equal(spec_registry_reindex_ids(reg), 0);
    const spec_api *a = spec_registry_find(reg, "pets");
    assert_non_null(a);
    assert_string_equal(a->ops[0].id, "pets:listPets");
    assert_null(spec_registry_find(reg, "pet-store"));
    assert_int_equal(spec_registry_set_id(reg, 1, "Bad Id", &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "not a valid API id"));
    spec_registry_free(reg);

    /* b.yaml given "pet-store": a.yaml, first in order, yields and gets "-2" */
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    char *pa = tu_path(dir, "a.yaml"), *pb = tu_path(dir, "b.yaml");
    spec_input_options io = {.name = "pet-store"};
    assert_int_equal(spec_registry_add(reg, pa, &err), 0);
    assert_int_equal(spec_registry_add_input(reg, pb, &io, &err), 0);
    assert_string_equal(spec_registry_given_id(reg, 1), "pet-store");
    assert_string_equal(spec_registry_api(reg, 1)->id, "pet-store");
    assert_string_equal(spec_registry_api(reg, 0)->id, "pet-store-2");
    spec_registry_free(reg);
    free(pa);
    free(pb);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apisguru_fields),
        cmocka_unit_test(test_title_slug),
        cmocka_unit_test(test_long_title),
        cmocka_unit_test(test_host_and_file),
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_unique),
        cmocka_unit_test(test_registry_collisions),
        cmocka_unit_test(test_set_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
