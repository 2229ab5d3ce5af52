/* Tests for an API's security schemes (view_security.c): every type of OAS 3 and Swagger
   2.0, $ref'd, dangling, undeclared; the scheme's own URLs apart from its flows', the flows as
   written, the client-credentials token URL; where the document declares them; whether an
   operation asks for credentials. */
#include "oas_view_testdoc.h"

static void test_schemes_declared(void **state)
{
    (void)state;
    spec_registry *reg = load_named("t", DOC_SCHEMES);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_int_equal(spec_security_scheme_count(api), 8);
    spec_security_scheme s;
    assert_true(spec_security_scheme_at(api, 0, &s));
    assert_int_equal(s.name_len, 3);
    assert_memory_equal(s.name, "key", 3);
    assert_int_equal(s.kind, SPEC_SECURITY_API_KEY);
    assert_string_equal(s.in, "header");
    assert_string_equal(s.param, "X-Key");
    assert_string_equal(s.description, "k");
    assert_true(spec_security_scheme_find(api, "bearer", 6, &s));
    assert_int_equal(s.kind, SPEC_SECURITY_HTTP);
    assert_string_equal(s.scheme, "Bearer");
    assert_string_equal(s.bearer_format, "JWT");
    assert_true(spec_security_scheme_find(api, "oauth", 5, &s));
    assert_int_equal(s.kind, SPEC_SECURITY_OAUTH2);
    assert_null(s.token_url);                               /* the scheme's own (Swagger 2.0) */
    assert_string_equal(s.any_flow_token_url, "https://t"); /* the first flow that has one */
    assert_string_equal(s.client_credentials_token_url, "https://t");
    assert_null(s.flows_token_url); /* the first flow has an authorizationUrl only: */
    assert_string_equal(s.flows_authorization_url, "https://a"); /* its URLs */
    assert_true(spec_security_scheme_find(api, "oidc", 4, &s));
    assert_int_equal(s.kind, SPEC_SECURITY_OPENID_CONNECT);
    assert_string_equal(s.openid_url, "https://o");
    assert_true(spec_security_scheme_find(api, "alias", 5, &s)); /* $ref followed */
    assert_false(s.unresolved);
    assert_int_equal(s.kind, SPEC_SECURITY_API_KEY);
    assert_string_equal(s.param, "X-Key");
    assert_true(spec_security_scheme_find(api, "gone", 4, &s)); /* dangling: the ref's own */
    assert_true(s.unresolved);
    assert_int_equal(s.kind, SPEC_SECURITY_NONE);
    assert_true(spec_security_scheme_find(api, "tls", 3, &s));
    assert_int_equal(s.kind, SPEC_SECURITY_OTHER);
    assert_string_equal(s.type, "mutualTLS");
    assert_true(spec_security_scheme_find(api, "untyped", 7, &s));
    assert_int_equal(s.kind, SPEC_SECURITY_NONE);
    assert_false(spec_security_scheme_find(api, "missing", 7, &s));
    assert_int_equal(s.kind, SPEC_SECURITY_NONE);
    assert_int_equal(s.name_len, 7);
    assert_false(spec_security_scheme_at(api, 8, &s));
    assert_false(spec_security_scheme_find(NULL, "key", 3, &s));
    assert_int_equal(spec_security_scheme_count(NULL), 0);
    spec_registry_free(reg);
}

static void test_schemes_swagger2_kinds(void **state)
{
    (void)state;
    spec_registry *reg = load_named("s", DOC_SCHEMES_SWAGGER2);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_int_equal(spec_security_scheme_count(api), 2);
    spec_security_scheme s;
    assert_true(spec_security_scheme_find(api, "b", 1, &s));
    assert_int_equal(s.kind, SPEC_SECURITY_BASIC);
    assert_true(spec_security_scheme_find(api, "o", 1, &s));
    assert_int_equal(s.kind, SPEC_SECURITY_OAUTH2);
    assert_string_equal(s.token_url, "https://t2");
    assert_string_equal(s.client_credentials_token_url, "https://t2"); /* flow "application" */
    assert_true(s.declared_for_version);
    spec_registry_free(reg);
}

static void test_schemes_as_written(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC_WRITTEN);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_security_scheme s;
    assert_true(spec_security_scheme_find(api, "key", 3, &s));
    assert_string_equal(s.type, "apiKey");
    assert_string_equal(s.in, "header");
    assert_string_equal(s.param, "X-Key");
    assert_null(s.scheme);
    /* a $ref'd scheme is read at its target; the name may be a prefix of a longer string */
    assert_true(spec_security_scheme_find(api, "bearer-and-more", 6, &s));
    assert_string_equal(s.type, "http");
    assert_string_equal(s.scheme, "bearer");
    /* a dangling $ref is declared but says nothing */
    assert_true(spec_security_scheme_find(api, "dangling", 8, &s));
    assert_non_null(s.node.node);
    assert_null(s.type);
    /* the first flow with a URL gives the URLs; the flows object is kept as written */
    assert_true(spec_security_scheme_find(api, "oauth", 5, &s));
    assert_string_equal(s.type, "oauth2");
    assert_non_null(s.flows);
    assert_string_equal(s.flows_token_url, "https://t.example.com/token");
    assert_null(s.flows_authorization_url);
    assert_null(s.token_url);
    assert_true(spec_security_scheme_find(api, "oidc", 4, &s));
    assert_string_equal(s.openid_url, "https://o.example.com");
    /* undeclared: false and all empty */
    assert_false(spec_security_scheme_find(api, "nope", 4, &s));
    assert_null(s.node.node);
    assert_null(s.type);
    assert_false(spec_security_scheme_find(api, NULL, 0, &s));
    spec_registry_free(reg);
}

static void test_schemes_swagger2_flow(void **state)
{
    (void)state;
    spec_registry *reg = load_text(
        "{\"swagger\":\"2.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{},"
        "\"securityDefinitions\":{\"basic\":{\"type\":\"basic\"},"
        "\"o\":{\"type\":\"oauth2\",\"flow\":\"accessCode\","
        "\"authorizationUrl\":\"https://a.example.com\",\"tokenUrl\":\"https://t.example.com\"}}}");
    const spec_api *api = spec_registry_api(reg, 0);
    spec_security_scheme s;
    assert_true(spec_security_scheme_find(api, "basic", 5, &s));
    assert_string_equal(s.type, "basic");
    assert_true(spec_security_scheme_find(api, "o", 1, &s));
    assert_string_equal(s.flow, "accessCode");
    assert_string_equal(s.authorization_url, "https://a.example.com");
    assert_string_equal(s.token_url, "https://t.example.com");
    assert_null(s.flows);
    spec_registry_free(reg);
}

static void test_schemes_for_requests(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC_REQUEST);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_security_scheme s;
    assert_true(spec_security_scheme_find(api, "key", 3, &s));
    assert_string_equal(s.type, "apiKey");
    assert_string_equal(s.in, "header");
    assert_string_equal(s.param, "X-Key");
    assert_null(s.client_credentials_token_url);
    assert_true(spec_security_scheme_find(api, "alias", 5, &s)); /* $ref followed */
    assert_string_equal(s.type, "http");
    assert_string_equal(s.scheme, "basic");
    assert_true(spec_security_scheme_find(api, "gone", 4, &s)); /* declared, but names nothing */
    assert_null(s.type);
    assert_true(spec_security_scheme_find(api, "oauth", 5, &s));
    assert_string_equal(s.client_credentials_token_url, "https://auth.example.com/token");
    assert_true(s.declared_for_version);
    assert_true(spec_security_scheme_find(api, "code", 4, &s));
    assert_null(s.client_credentials_token_url); /* no client-credentials flow */
    assert_false(spec_security_scheme_find(api, "undeclared", 10, &s));
    assert_null(s.node.node);
    /* the document's requirement; [{}] is anonymous; an operation's non-array security
       leaves the document's */
    assert_true(spec_operation_asks_credentials(api, op_by_path(api, "GET", "/a")));
    assert_false(spec_operation_asks_credentials(api, op_by_path(api, "POST", "/b")));
    assert_false(spec_operation_asks_credentials(api, op_by_path(api, "GET", "/c")));
    assert_true(spec_operation_asks_credentials(api, op_by_path(api, "POST", "/d")));
    spec_registry_free(reg);
}

static void test_schemes_swagger2_client_credentials(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC_REQUEST_SWAGGER2);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_security_scheme s;
    assert_true(spec_security_scheme_find(api, "basic", 5, &s));
    assert_string_equal(s.type, "basic");
    assert_true(spec_security_scheme_find(api, "app", 3, &s));
    assert_string_equal(s.client_credentials_token_url, "https://t.example.com");
    assert_true(spec_security_scheme_find(api, "implicit", 8, &s));
    assert_null(s.client_credentials_token_url);
    assert_false(spec_operation_asks_credentials(api, op_by_path(api, "GET", "/x")));
    spec_registry_free(reg);
}

static void test_scheme_declared_for_version(void **state)
{
    (void)state;
    /* an OAS 3 document with Swagger 2.0's securityDefinitions: found, but not where its
       version declares schemes (the request builder then says undeclared) */
    spec_registry *reg = load_text(
        "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{},"
        "\"securityDefinitions\":{\"k\":{\"type\":\"apiKey\",\"in\":\"query\",\"name\":\"k\"}}}");
    const spec_api *api = spec_registry_api(reg, 0);
    spec_security_scheme s;
    assert_true(spec_security_scheme_find(api, "k", 1, &s));
    assert_int_equal(s.kind, SPEC_SECURITY_API_KEY);
    assert_false(s.declared_for_version);
    spec_registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schemes_declared),
        cmocka_unit_test(test_schemes_swagger2_kinds),
        cmocka_unit_test(test_schemes_as_written),
        cmocka_unit_test(test_schemes_swagger2_flow),
        cmocka_unit_test(test_schemes_for_requests),
        cmocka_unit_test(test_schemes_swagger2_client_credentials),
        cmocka_unit_test(test_scheme_declared_for_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
