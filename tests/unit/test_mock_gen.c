/* mock generation: every keyword, examples first, determinism by seed, and every 2xx
   response of real specs valid against its schema (spec_validate_json). */
#include "testutil.h"

#include "mock/mock.h"

#include <dirent.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Loads a spec from text into a registry; *api gets its one API. */
static spec_registry *load_text(const char *text, const spec_api **api)
{
    spec_registry *reg = NULL;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, "t.json", text, strlen(text), NULL, &err), 0);
    *api = spec_registry_api(reg, 0);
    assert_false((*api)->failed);
    return reg;
}

static const char *SPEC =
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{},"
    "\"components\":{\"schemas\":{"
    "\"Str\":{\"type\":\"object\",\"required\":[\"d\",\"dt\",\"u\",\"e\",\"uri\",\"s\",\"p\","
    "\"n\",\"i32\",\"i64\",\"num\",\"en\",\"arr\",\"b\"],\"properties\":{"
    "\"d\":{\"type\":\"string\",\"format\":\"date\"},"
    "\"dt\":{\"type\":\"string\",\"format\":\"date-time\"},"
    "\"u\":{\"type\":\"string\",\"format\":\"uuid\"},"
    "\"e\":{\"type\":\"string\",\"format\":\"email\"},"
    "\"uri\":{\"type\":\"string\",\"format\":\"uri\"},"
    "\"s\":{\"type\":\"string\",\"minLength\":30,\"maxLength\":40},"
    "\"p\":{\"type\":\"string\",\"pattern\":\"^[A-Z]{3}-\\\\d{4}$\"},"
    "\"n\":{\"type\":\"integer\",\"minimum\":5,\"maximum\":7},"
    "\"i32\":{\"type\":\"integer\",\"format\":\"int32\",\"minimum\":2147483000},"
    "\"i64\":{\"type\":\"integer\",\"format\":\"int64\",\"exclusiveMinimum\":true,\"minimum\":0,"
    "\"exclusiveMaximum\":true,\"maximum\":2},"
    "\"num\":{\"type\":\"number\",\"minimum\":0.5,\"maximum\":0.75},"
    "\"en\":{\"type\":\"string\",\"enum\":[\"red\",\"green\"]},"
    "\"arr\":{\"type\":\"array\",\"minItems\":3,\"maxItems\":4,\"items\":{\"type\":\"integer\"}},"
    "\"b\":{\"type\":\"boolean\"},"
    "\"ro\":{\"type\":\"string\",\"readOnly\":true},"
    "\"wo\":{\"type\":\"string\",\"writeOnly\":true},"
    "\"nul\":{\"type\":\"string\",\"nullable\":true}}},"
    "\"Ex\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"example\":\"hello\"},"
    "\"bad\":{\"type\":\"integer\",\"example\":\"not a number\"}},"
    "\"example\":null},"
    "\"Whole\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"}},"
    "\"example\":{\"x\":42}},"
    "\"All\":{\"allOf\":[{\"$ref\":\"#/components/schemas/Base\"},{\"type\":\"object\","
    "\"required\":[\"extra\"],\"properties\":{\"extra\":{\"type\":\"integer\",\"minimum\":100}}}]},"
    "\"Base\":{\"type\":\"object\",\"required\":[\"id\"],\"properties\":{\"id\":{\"type\":"
    "\"string\",\"format\":\"uuid\"}}},"
    "\"One\":{\"oneOf\":[{\"type\":\"integer\",\"minimum\":1000},{\"type\":\"string\","
    "\"enum\":[\"x\"]}]},"
    "\"Any\":{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"boolean\"}]},"
    "\"Node\":{\"type\":\"object\",\"required\":[\"name\"],\"properties\":{\"name\":{\"type\":"
    "\"string\"},\"children\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/components/schemas/"
    "Node\"}},\"parent\":{\"$ref\":\"#/components/schemas/Node\"}}},"
    "\"Mult\":{\"type\":\"integer\",\"multipleOf\":7,\"minimum\":20},"
    "\"Uniq\":{\"type\":\"array\",\"uniqueItems\":true,\"minItems\":3,\"items\":{\"type\":"
    "\"string\",\"enum\":[\"a\",\"b\",\"c\"]}},"
    "\"Addl\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"}},"
    "\"T31\":{\"type\":[\"null\",\"integer\"],\"minimum\":3},"
    "\"StrBound\":{\"type\":\"integer\",\"minimum\":\"3\",\"maximum\":\"5\"},"
    "\"Wide\":{\"type\":\"object\",\"required\":[\"a\",\"b\",\"c\"],\"properties\":{"
    "\"a\":{\"$ref\":\"#/components/schemas/Wide\"},\"b\":{\"$ref\":\"#/components/schemas/Wide\"},"
    "\"c\":{\"$ref\":\"#/components/schemas/Wide\"}}},"
    "\"Loop\":{\"oneOf\":[{\"$ref\":\"#/components/schemas/Loop\"}]}"
    "}}}";

static spec_loc schema_of(const spec_api *api, const char *name)
{
    char ptr[128];
    snprintf(ptr, sizeof ptr, "/components/schemas/%s", name);
    spec_loc l = {jt_pointer(api->root.node, ptr), api->root.doc};
    assert_non_null(l.node);
    return l;
}

/* The value is valid for its schema: the validator the executor and request checks use. */
static void assert_valid(const spec_api *api, spec_loc s, json_object *x, bool request)
{
    core_arena *a = core_arena_new(0);
    const char *problem = NULL;
    assert_int_equal(spec_validate_json(api, s, x, request, a, &problem), 0);
    if (problem) fail_msg("%s is invalid: %s", json_object_to_json_string(x), problem);
    core_arena_free(a);
}

static json_object *gen_valid(const spec_api *api, const char *name, uint64_t seed)
{
    spec_loc s = schema_of(api, name);
    json_object *x = mock_gen_schema(api, s, seed, false);
    assert_valid(api, s, x, false);
    return x;
}

static void test_keywords(void **state)
{
    (void)state;
    const spec_api *api;
    spec_registry *reg = load_text(SPEC, &api);
    for (uint64_t seed = 0; seed < 50; seed++) {
        json_object *x = gen_valid(api, "Str", seed), *v;
        assert_true(json_object_object_get_ex(x, "p", &v));
        assert_int_equal(strlen(json_object_get_string(v)), 8);
        assert_true(json_object_object_get_ex(x, "n", &v));
        assert_true(json_object_get_int(v) >= 5 && json_object_get_int(v) <= 7);
        assert_true(json_object_object_get_ex(x, "i64", &v));
        assert_int_equal(json_object_get_int(v), 1);
        assert_true(json_object_object_get_ex(x, "e", &v));
        assert_non_null(strchr(json_object_get_string(v), '@'));
        assert_true(json_object_object_get_ex(x, "uri", &v));
        assert_int_equal(strncmp(json_object_get_string(v), "https://", 8), 0);
        assert_false(json_object_object_get_ex(x, "wo", NULL)); /* response: no writeOnly */
        assert_true(json_object_object_get_ex(x, "ro", NULL));
        json_object_put(x);
        json_object_put(gen_valid(api, "All", seed));
        json_object_put(gen_valid(api, "One", seed));
        json_object_put(gen_valid(api, "Any", seed));
        json_object_put(gen_valid(api, "Mult", seed));
        json_object_put(gen_valid(api, "Uniq", seed));
        json_object_put(gen_valid(api, "Addl", seed));
        json_object_put(gen_valid(api, "T31", seed));
    }
    /* bounds written as strings (Spotify's "maximum": "100") bound both sides */
    for (uint64_t seed = 0; seed < 20; seed++) {
        json_object *b = gen_valid(api, "StrBound", seed);
        assert_true(json_object_get_int(b) >= 3 && json_object_get_int(b) <= 5);
        json_object_put(b);
    }
    core_arena *ar = core_arena_new(0);
    const char *problem = NULL;
    json_object *ten = json_object_new_int(10), *four = json_object_new_int(4);
    assert_int_equal(spec_validate_json(api, schema_of(api, "StrBound"), ten, true, ar, &problem),
                     0);
    assert_non_null(strstr(problem, "above the maximum"));
    assert_int_equal(spec_validate_json(api, schema_of(api, "StrBound"), four, true, ar, &problem),
                     0);
    assert_null(problem);
    json_object_put(ten);
    json_object_put(four);
    core_arena_free(ar);
    /* a request body leaves readOnly properties out and keeps writeOnly ones */
    json_object *rq = mock_gen_schema(api, schema_of(api, "Str"), 1, true);
    assert_false(json_object_object_get_ex(rq, "ro", NULL));
    assert_true(json_object_object_get_ex(rq, "wo", NULL));
    assert_valid(api, schema_of(api, "Str"), rq, true);
    json_object_put(rq);
    /* allOf: both parts' required properties */
    json_object *all = gen_valid(api, "All", 3), *v;
    assert_true(json_object_object_get_ex(all, "id", &v));
    assert_true(json_object_object_get_ex(all, "extra", &v));
    assert_true(json_object_get_int(v) >= 100);
    json_object_put(all);
    json_object *mult = gen_valid(api, "Mult", 3);
    assert_int_equal(json_object_get_int(mult) % 7, 0);
    json_object_put(mult);
    spec_registry_free(reg);
}

static void test_examples_first(void **state)
{
    (void)state;
    const spec_api *api;
    spec_registry *reg = load_text(SPEC, &api);
    /* a whole-schema example wins */
    json_object *w = gen_valid(api, "Whole", 9), *v;
    assert_string_equal(json_object_to_json_string_ext(w, JSON_C_TO_STRING_PLAIN), "{\"x\":42}");
    json_object_put(w);
    /* property examples are used; an example that does not validate is not */
    json_object *x = gen_valid(api, "Ex", 9);
    assert_true(json_object_object_get_ex(x, "a", &v));
    assert_string_equal(json_object_get_string(v), "hello");
    assert_true(json_object_object_get_ex(x, "bad", &v));
    assert_true(json_object_is_type(v, json_type_int));
    json_object_put(x);
    spec_registry_free(reg);
}

static void test_media_examples(void **state)
{
    (void)state;
    const char *text =
        "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{"
        "\"/a\":{\"get\":{\"responses\":{\"200\":{\"description\":\"ok\",\"content\":{"
        "\"application/json\":{\"schema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":"
        "\"integer\"}}},\"examples\":{\"first\":{\"$ref\":\"#/components/examples/E\"}}}}}}}},"
        "\"/b\":{\"get\":{\"responses\":{\"200\":{\"description\":\"ok\",\"content\":{"
        "\"application/json\":{\"schema\":{\"type\":\"integer\"},\"example\":\"wrong\"}}}}}}},"
        "\"components\":{\"examples\":{\"E\":{\"value\":{\"n\":7}}}}}";
    const spec_api *api;
    spec_registry *reg = load_text(text, &api);
    for (size_t i = 0; i < api->n_ops; i++) {
        const spec_operation *op = &api->ops[i];
        json_object *x = NULL;
        assert_int_equal(mock_gen_media(api, &op->responses[0], &op->responses[0].media[0], 5, &x),
                         0);
        if (!strcmp(op->path, "/a"))
            assert_string_equal(json_object_to_json_string_ext(x, JSON_C_TO_STRING_PLAIN),
                                "{\"n\":7}");
        else
            assert_true(json_object_is_type(x, json_type_int)); /* the bad example skipped */
        json_object_put(x);
    }
    spec_registry_free(reg);
}

static void test_determinism_and_cycles(void **state)
{
    (void)state;
    const spec_api *api;
    spec_registry *reg = load_text(SPEC, &api);
    const char *names[] = {"Str", "Node", "One", "All"};
    bool differs = false;
    for (size_t i = 0; i < 4; i++) {
        json_object *a = gen_valid(api, names[i], 77), *b = gen_valid(api, names[i], 77);
        json_object *c = gen_valid(api, names[i], 78);
        assert_string_equal(json_object_to_json_string(a), json_object_to_json_string(b));
        differs |= strcmp(json_object_to_json_string(a), json_object_to_json_string(c)) != 0;
        json_object_put(a);
        json_object_put(b);
        json_object_put(c);
    }
    assert_true(differs); /* another seed, other values */
    /* schemas no value can satisfy still end: required in a cycle 3^32 wide, a oneOf of
       itself */
    const char *endless[] = {"Wide", "Loop"};
    for (size_t i = 0; i < 2; i++) {
        json_object *x = mock_gen_schema(api, schema_of(api, endless[i]), 1, false);
        assert_true(strlen(json_object_to_json_string(x) ? json_object_to_json_string(x) : "") <
                    4000000);
        json_object_put(x);
    }
    /* a self-referencing schema ends, and stays small */
    json_object *node = gen_valid(api, "Node", 1);
    assert_true(strlen(json_object_to_json_string(node)) < 200000);
    json_object_put(node);
    spec_registry_free(reg);
}

static void test_patterns(void **state)
{
    (void)state;
    const char *pats[] = {
        "^[a-z]{2,5}$",          "^\\d{3}-\\d{2}$", "^(foo|bar)+baz?$", "^[A-Za-z0-9_.-]+@x\\.io$",
        "^v[0-9]+(\\.[0-9]+)*$", "[^0-9]{4}",       "^(?:[a-f0-9]{8})$"};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++)
        for (uint64_t seed = 0; seed < 20; seed++) {
            uint64_t r = seed;
            char *s = mock_pattern_string(pats[i], &r);
            if (!s) fail_msg("no string for %s", pats[i]);
            free(s);
        }
    uint64_t r = 1;
    assert_null(mock_pattern_string("^(?=a)b$", &r)); /* lookahead: not simple */
    assert_null(mock_pattern_string("(a)\\1", &r));   /* back-reference */
}

/* Every 2xx JSON response of a spec, three seeds each: all must validate. */
static size_t check_spec(const char *path, size_t *checked)
{
    spec_registry *reg = NULL;
    apidex_error err;
    if (spec_registry_new(NULL, &reg, &err) || spec_registry_add(reg, path, &err)) {
        spec_registry_free(reg);
        return 0;
    }
    size_t bad = 0;
    for (size_t k = 0; k < spec_registry_count(reg); k++) {
        const spec_api *api = spec_registry_api(reg, k);
        if (api->failed) continue;
        for (size_t i = 0; i < api->n_ops; i++) {
            const spec_operation *op = &api->ops[i];
            for (size_t r = 0; r < op->n_responses; r++) {
                const spec_response *resp = &op->responses[r];
                if (!resp->status || resp->status[0] != '2') continue;
                for (size_t m = 0; m < resp->n_media; m++) {
                    const spec_media *md = &resp->media[m];
                    if (!md->schema.node || !md->type || !strstr(md->type, "json")) continue;
                    for (uint64_t seed = 1; seed <= 3; seed++) {
                        json_object *x = NULL;
                        if (mock_gen_media(api, resp, md, seed, &x)) continue;
                        core_arena *a = core_arena_new(0);
                        const char *problem = NULL;
                        spec_validate_json(api, md->schema, x, false, a, &problem);
                        (*checked)++;
                        if (problem) {
                            if (bad < 5)
                                print_message("%s %s %s: %s\n", api->id, op->id, resp->status,
                                              problem);
                            bad++;
                        }
                        core_arena_free(a);
                        json_object_put(x);
                    }
                }
            }
        }
    }
    spec_registry_free(reg);
    return bad;
}

static void test_real_specs_valid(void **state)
{
    (void)state;
    TU_REQUIRE_SHARED();
    const char *rel[] = {"benchmarks/restbench/specs/tmdb_oas.json",
                         "benchmarks/restbench/specs/spotify_oas.json",
                         "corpus/specs/apisguru2020__cpy.re_peertube_1.3.1",
                         "corpus/specs/apisguru2020__nytimes.com_article_search_1.0.0",
                         "corpus/specs/readme_examples__3.1_yaml_train-travel",
                         "corpus/specs/readme_examples__2.0_json_petstore",
                         "corpus/specs/apisguru2020__slack.com_1.2.0",
                         "corpus/specs/digitalocean__DigitalOcean-public.v2",
                         "corpus/specs/stripe__spec3",
                         "corpus/specs/twilio__spec_json_twilio_api_v2010",
                         "corpus/specs/apisguru2020__spotify.com_v1",
                         "corpus/specs/discord__specs_openapi"};
    size_t bad = 0, total = 0;
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char *p = tu_path(tu_shared_dir(), rel[i]);
        size_t checked = 0, b = check_spec(p, &checked);
        print_message("%s: %zu responses checked, %zu invalid\n", rel[i], checked, b);
        total += checked;
        bad += b;
        free(p);
    }
    assert_true(total > 1000);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keywords),       cmocka_unit_test(test_examples_first),
        cmocka_unit_test(test_media_examples), cmocka_unit_test(test_determinism_and_cycles),
        cmocka_unit_test(test_patterns),       cmocka_unit_test(test_real_specs_valid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
