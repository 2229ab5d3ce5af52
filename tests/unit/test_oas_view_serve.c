/* Tests for the typed views tool definitions and the web page read (oas/view_serve.c):
   security schemes of OAS 3 and Swagger 2.0 ($ref'd, dangling, unknown types), server
   variables, x-nullable, and the MCP entry of an operation made of a tool. */
#include "testutil.h"

#include "oas/oas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static spec_registry *load_text(const char *name, const char *text)
{
    spec_registry *reg = NULL;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, name, text, strlen(text), NULL, &err), 0);
    assert_int_equal(spec_registry_count(reg), 1);
    assert_false(spec_registry_api(reg, 0)->failed);
    return reg;
}

static const char *const OAS3 =
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{},"
    "\"servers\":[{\"url\":\"https://{region}.example.com/{v}\",\"variables\":{"
    "\"region\":{\"default\":\"eu\",\"enum\":[\"eu\",\"us\"],\"description\":\"where\"},"
    "\"v\":{\"default\":\"v1\"}}},{\"url\":\"https://other.example.com\"}],"
    "\"components\":{\"schemas\":{\"N\":{\"type\":\"string\",\"x-nullable\":true},"
    "\"M\":{\"type\":\"string\",\"nullable\":true},\"P\":{\"type\":\"string\"}},"
    "\"securitySchemes\":{"
    "\"key\":{\"type\":\"apiKey\",\"in\":\"header\",\"name\":\"X-Key\",\"description\":\"k\"},"
    "\"bearer\":{\"type\":\"http\",\"scheme\":\"Bearer\",\"bearerFormat\":\"JWT\"},"
    "\"oauth\":{\"type\":\"oauth2\",\"flows\":{\"implicit\":{\"authorizationUrl\":\"https://a\","
    "\"scopes\":{}},\"clientCredentials\":{\"tokenUrl\":\"https://t\",\"scopes\":{}}}},"
    "\"oidc\":{\"type\":\"openIdConnect\",\"openIdConnectUrl\":\"https://o\"},"
    "\"alias\":{\"$ref\":\"#/components/securitySchemes/key\"},"
    "\"gone\":{\"$ref\":\"#/components/securitySchemes/nowhere\"},"
    "\"tls\":{\"type\":\"mutualTLS\"},"
    "\"untyped\":{\"in\":\"query\"}}}}";

static void test_oas3_schemes(void **state)
{
    (void)state;
    spec_registry *reg = load_text("t", OAS3);
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
    assert_string_equal(s.token_url, "https://t"); /* the first flow that has one */
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

    /* server variables, in written order, of the root's server objects */
    assert_int_equal(spec_server_var_count(api, 0), 2);
    assert_int_equal(spec_server_var_count(api, 1), 0);
    assert_int_equal(spec_server_var_count(api, 2), 0);
    spec_server_var v;
    assert_true(spec_server_var_at(api, 0, 0, &v));
    assert_string_equal(v.name, "region");
    assert_string_equal(v.default_value, "eu");
    assert_string_equal(v.description, "where");
    assert_non_null(v.enum_values);
    assert_int_equal(v.enum_values->len, 2);
    assert_true(spec_server_var_at(api, 0, 1, &v));
    assert_string_equal(v.name, "v");
    assert_null(v.enum_values);
    assert_false(spec_server_var_at(api, 0, 2, &v));
    assert_null(v.name);

    /* nullable: OAS 3.0's keyword or Swagger 2.0's extension */
    bool want[] = {true, true, false};
    for (size_t i = 0; i < api->n_schemas; i++) {
        spec_schema_view sv;
        assert_int_equal(spec_schema_view_open(api, api->schemas[i].node, NULL, &sv), 0);
        int k = api->schemas[i].name[0] == 'N' ? 0 : api->schemas[i].name[0] == 'M' ? 1 : 2;
        assert_int_equal(spec_schema_view_nullable(&sv), want[k]);
    }
    spec_registry_free(reg);
}

static void test_swagger2_schemes(void **state)
{
    (void)state;
    spec_registry *reg = load_text(
        "s", "{\"swagger\":\"2.0\",\"info\":{\"title\":\"s\",\"version\":\"1\"},\"paths\":{},"
             "\"host\":\"h.example.com\",\"securityDefinitions\":{"
             "\"b\":{\"type\":\"basic\"},"
             "\"o\":{\"type\":\"oauth2\",\"flow\":\"application\",\"tokenUrl\":\"https://t2\"}}}");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_int_equal(spec_security_scheme_count(api), 2);
    spec_security_scheme s;
    assert_true(spec_security_scheme_find(api, "b", 1, &s));
    assert_int_equal(s.kind, SPEC_SECURITY_BASIC);
    assert_true(spec_security_scheme_find(api, "o", 1, &s));
    assert_int_equal(s.kind, SPEC_SECURITY_OAUTH2);
    assert_string_equal(s.token_url, "https://t2");
    assert_int_equal(spec_server_var_count(api, 0), 0); /* servers come from host */
    spec_mcp_entry e;
    spec_operation_mcp(NULL, &e);
    assert_null(e.tool);
    spec_registry_free(reg);
}

static void test_mcp_entry(void **state)
{
    (void)state;
    spec_registry *reg = load_text(
        "files",
        "{\"mcp\": {\"server\": \"files\"}, \"tools\": [\n"
        " {\"name\": \"read\", \"title\": \"Read\", \"annotations\": {\"readOnlyHint\": true},\n"
        "  \"inputSchema\": {\"type\": \"object\", \"properties\": {\"r\": {\"$ref\": "
        "\"#/$defs/R\"}}, \"$defs\": {\"R\": {\"type\": \"integer\"}}},\n"
        "  \"outputSchema\": {\"type\": \"object\"}},\n"
        " {\"name\": \"bare\", \"inputSchema\": {\"type\": \"object\"}}],\n"
        " \"prompts\": [{\"name\": \"greet\"}]}");
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *read = spec_api_find_operation(api, "files:read");
    assert_non_null(read);
    spec_mcp_entry e;
    spec_operation_mcp(read, &e);
    assert_string_equal(e.tool, "read");
    assert_null(e.resource);
    assert_null(e.prompt);
    assert_string_equal(e.title, "Read");
    assert_non_null(e.annotations);
    assert_true(jt_is(e.schema[SPEC_MCP_INPUT_SCHEMA].node, JT_OBJECT));
    assert_true(jt_is(e.schema[SPEC_MCP_OUTPUT_SCHEMA].node, JT_OBJECT));
    /* the kept input schema's $ref was rebased onto the base pointer */
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(spec_mcp_schema_base(read, SPEC_MCP_INPUT_SCHEMA, &b), 0);
    assert_non_null(strstr(b.data, "/x-mcp-input-schema"));
    const jt_node *props = jt_get(e.schema[SPEC_MCP_INPUT_SCHEMA].node, "properties");
    const char *ref = jt_get_str(jt_get(props, "r"), "$ref");
    assert_non_null(ref);
    assert_int_equal(strncmp(ref, b.data, b.len), 0);
    assert_string_equal(ref + b.len, "/$defs/R");
    core_buf_free(&b);
    core_buf_init(&b, 0);
    assert_int_equal(spec_mcp_schema_base(read, SPEC_MCP_SCHEMA_COUNT, &b), APIDEX_EINVAL);
    core_buf_free(&b);

    const spec_operation *bare = spec_api_find_operation(api, "files:bare");
    assert_non_null(bare);
    spec_operation_mcp(bare, &e);
    assert_string_equal(e.tool, "bare");
    assert_null(e.title);
    assert_null(e.annotations);
    assert_null(e.schema[SPEC_MCP_OUTPUT_SCHEMA].node);
    bool prompt = false;
    for (size_t i = 0; i < api->n_ops; i++) {
        spec_operation_mcp(&api->ops[i], &e);
        if (e.prompt) {
            assert_string_equal(e.prompt, "greet");
            assert_null(e.tool);
            prompt = true;
        }
    }
    assert_true(prompt);
    spec_registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oas3_schemes),
        cmocka_unit_test(test_swagger2_schemes),
        cmocka_unit_test(test_mcp_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
