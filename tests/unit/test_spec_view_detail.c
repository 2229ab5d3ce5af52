/* Tests for the parts of an operation read as written (view_detail.c): security schemes
   (OAS 3 and Swagger 2.0, $ref'd, undeclared, oauth2 flows), servers with variables (the
   operation's own, the document's, none), parameter extras and a media type's example. */
#include "testutil.h"

#include "spec/spec.h"

#include <stdlib.h>
#include <string.h>

static spec_registry *load_text(const char *text)
{
    spec_registry *reg = NULL;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, "t.json", text, strlen(text), NULL, &err), 0);
    assert_int_equal(spec_registry_count(reg), 1);
    assert_false(spec_registry_api(reg, 0)->failed);
    return reg;
}

static const spec_operation *op_named(const spec_api *api, const char *operation_id)
{
    for (size_t i = 0; i < api->n_ops; i++)
        if (api->ops[i].operation_id && !strcmp(api->ops[i].operation_id, operation_id))
            return &api->ops[i];
    fail_msg("no operation %s", operation_id);
    return NULL;
}

static const char *OAS3 =
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},"
    "\"servers\":[{\"url\":\"https://{region}.example.com/v1\",\"description\":\"main\","
    "\"variables\":{\"region\":{\"default\":\"eu\",\"enum\":[\"eu\",\"us\"],"
    "\"description\":\"where\"},\"bare\":{}}},{\"url\":7}],"
    "\"paths\":{\"/a\":{\"get\":{\"operationId\":\"getA\",\"parameters\":[{\"name\":\"q\","
    "\"in\":\"query\",\"style\":\"form\",\"explode\":false,\"example\":\"x\","
    "\"examples\":{\"one\":{\"value\":\"y\"}},\"schema\":{\"type\":\"string\"}}],"
    "\"responses\":{\"200\":{\"description\":\"ok\"}}},"
    "\"post\":{\"operationId\":\"postA\",\"servers\":[{\"url\":\"https://own.example.com\"}],"
    "\"requestBody\":{\"content\":{\"application/json\":{\"schema\":{\"type\":\"object\"},"
    "\"example\":{\"k\":1}}}},\"responses\":{\"200\":{\"description\":\"ok\"}}}}},"
    "\"components\":{\"securitySchemes\":{"
    "\"key\":{\"type\":\"apiKey\",\"in\":\"header\",\"name\":\"X-Key\"},"
    "\"bearer\":{\"$ref\":\"#/components/securitySchemes/http\"},"
    "\"http\":{\"type\":\"http\",\"scheme\":\"bearer\"},"
    "\"dangling\":{\"$ref\":\"#/components/securitySchemes/none\"},"
    "\"oauth\":{\"type\":\"oauth2\",\"flows\":{\"implicit\":{\"scopes\":{}},"
    "\"clientCredentials\":{\"tokenUrl\":\"https://t.example.com/token\",\"scopes\":{}},"
    "\"password\":{\"tokenUrl\":\"https://later.example.com\",\"scopes\":{}}}},"
    "\"oidc\":{\"type\":\"openIdConnect\",\"openIdConnectUrl\":\"https://o.example.com\"}}}}";

static void test_security_schemes_oas3(void **state)
{
    (void)state;
    spec_registry *reg = load_text(OAS3);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_auth_scheme s;
    assert_true(spec_auth_scheme_find(api, "key", 3, &s));
    assert_string_equal(s.type, "apiKey");
    assert_string_equal(s.in, "header");
    assert_string_equal(s.param, "X-Key");
    assert_null(s.scheme);
    /* a $ref'd scheme is read at its target; the name may be a prefix of a longer string */
    assert_true(spec_auth_scheme_find(api, "bearer-and-more", 6, &s));
    assert_string_equal(s.type, "http");
    assert_string_equal(s.scheme, "bearer");
    /* a dangling $ref is declared but says nothing */
    assert_true(spec_auth_scheme_find(api, "dangling", 8, &s));
    assert_non_null(s.node.node);
    assert_null(s.type);
    /* the first flow with a URL gives the URLs; the flows object is kept as written */
    assert_true(spec_auth_scheme_find(api, "oauth", 5, &s));
    assert_string_equal(s.type, "oauth2");
    assert_non_null(s.flows);
    assert_string_equal(s.flows_token_url, "https://t.example.com/token");
    assert_null(s.flows_authorization_url);
    assert_null(s.token_url);
    assert_true(spec_auth_scheme_find(api, "oidc", 4, &s));
    assert_string_equal(s.open_id_connect_url, "https://o.example.com");
    /* undeclared: false and all empty */
    assert_false(spec_auth_scheme_find(api, "nope", 4, &s));
    assert_null(s.node.node);
    assert_null(s.type);
    assert_false(spec_auth_scheme_find(api, NULL, 0, &s));
    spec_registry_free(reg);
}

static void test_security_schemes_swagger2(void **state)
{
    (void)state;
    spec_registry *reg = load_text(
        "{\"swagger\":\"2.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{},"
        "\"securityDefinitions\":{\"basic\":{\"type\":\"basic\"},"
        "\"o\":{\"type\":\"oauth2\",\"flow\":\"accessCode\","
        "\"authorizationUrl\":\"https://a.example.com\",\"tokenUrl\":\"https://t.example.com\"}}}");
    const spec_api *api = spec_registry_api(reg, 0);
    spec_auth_scheme s;
    assert_true(spec_auth_scheme_find(api, "basic", 5, &s));
    assert_string_equal(s.type, "basic");
    assert_true(spec_auth_scheme_find(api, "o", 1, &s));
    assert_string_equal(s.flow, "accessCode");
    assert_string_equal(s.authorization_url, "https://a.example.com");
    assert_string_equal(s.token_url, "https://t.example.com");
    assert_null(s.flows);
    spec_registry_free(reg);
}

static void test_servers_written(void **state)
{
    (void)state;
    spec_registry *reg = load_text(OAS3);
    const spec_api *api = spec_registry_api(reg, 0);
    core_arena *a = core_arena_new(0);
    assert_non_null(a);
    spec_server_written *sv;
    size_t n;
    /* the document's servers, variables in written order, a url that is not a string */
    assert_int_equal(spec_operation_servers_written(api, op_named(api, "getA"), a, &sv, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(sv[0].url, "https://{region}.example.com/v1");
    assert_string_equal(sv[0].description, "main");
    assert_int_equal(sv[0].n_vars, 2);
    assert_int_equal(sv[0].vars[0].name_len, 6);
    assert_memory_equal(sv[0].vars[0].name, "region", 6);
    assert_string_equal(jt_str(sv[0].vars[0].default_value), "eu");
    assert_int_equal(sv[0].vars[0].enum_values->len, 2);
    assert_string_equal(sv[0].vars[0].description, "where");
    assert_null(sv[0].vars[1].default_value);
    assert_null(sv[0].vars[1].enum_values);
    assert_null(sv[1].url);
    assert_int_equal(sv[1].n_vars, 0);
    /* the operation's own servers win */
    assert_int_equal(spec_operation_servers_written(api, op_named(api, "postA"), a, &sv, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(sv[0].url, "https://own.example.com");
    core_arena_free(a);
    spec_registry_free(reg);
}

static void test_servers_none_written(void **state)
{
    (void)state;
    spec_registry *reg =
        load_text("{\"swagger\":\"2.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"host\":\"h."
                  "example.com\","
                  "\"paths\":{\"/p\":{\"get\":{\"operationId\":\"g\",\"responses\":{\"200\":"
                  "{\"description\":\"ok\"}}}}}}");
    const spec_api *api = spec_registry_api(reg, 0);
    core_arena *a = core_arena_new(0);
    spec_server_written *sv = (spec_server_written *)1;
    size_t n = 9;
    assert_int_equal(spec_operation_servers_written(api, op_named(api, "g"), a, &sv, &n), 0);
    assert_int_equal(n, 0);
    assert_null(sv);
    assert_true(api->n_servers > 0); /* what the model derived from host */
    core_arena_free(a);
    spec_registry_free(reg);
}

static void test_param_extras_and_media_example(void **state)
{
    (void)state;
    spec_registry *reg = load_text(OAS3);
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *get = op_named(api, "getA");
    assert_int_equal(get->n_params, 1);
    spec_param_extras px;
    spec_param_extras_of(&get->params[0], &px);
    assert_string_equal(jt_str(px.style), "form");
    assert_int_equal(px.explode->type, JT_BOOL);
    assert_string_equal(jt_str(px.example), "x");
    assert_true(jt_is(px.examples, JT_OBJECT));
    spec_param_extras_of(NULL, &px);
    assert_null(px.style);
    assert_null(px.examples);
    const spec_operation *post = op_named(api, "postA");
    assert_non_null(post->body);
    assert_int_equal(post->body->n_media, 1);
    assert_true(jt_is(spec_media_example(&post->body->media[0]), JT_OBJECT));
    assert_null(spec_media_example(NULL));
    spec_registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_security_schemes_oas3),
        cmocka_unit_test(test_security_schemes_swagger2),
        cmocka_unit_test(test_servers_written),
        cmocka_unit_test(test_servers_none_written),
        cmocka_unit_test(test_param_extras_and_media_example),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
