/* Tests for the executor's typed questions (view_exec.c): servers and their variables,
   security schemes (OAS 3 and Swagger 2.0, $ref'd and dangling), serialisation of parameters
   and form fields, a schema's type name and property, and the MCP entry of an operation. */
#include "testutil.h"

#include "spec/spec.h"

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

static const spec_operation *op_by_path(const spec_api *api, const char *method, const char *path)
{
    for (size_t i = 0; i < api->n_ops; i++)
        if (!strcmp(api->ops[i].method, method) && !strcmp(api->ops[i].path, path))
            return &api->ops[i];
    fail_msg("no operation %s %s", method, path);
    return NULL;
}

static const spec_param *param(const spec_operation *op, const char *name)
{
    for (size_t i = 0; i < op->n_params; i++)
        if (!strcmp(op->params[i].name, name)) return &op->params[i];
    fail_msg("no parameter %s", name);
    return NULL;
}

static const char *OAS3 =
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},"
    "\"servers\":[{\"url\":\"https://{region}.example.com/{base}\",\"variables\":{"
    "\"region\":{\"default\":\"eu\",\"enum\":[\"eu\",\"us\",7]},\"base\":{\"default\":3}}},"
    "{\"url\":\"http://plain.example.com\"}],"
    "\"security\":[{\"key\":[]}],"
    "\"paths\":{"
    "\"/a\":{\"get\":{\"servers\":[{\"url\":\"https://op.example.com\"}],"
    "\"parameters\":[{\"name\":\"q\",\"in\":\"query\",\"style\":\"pipeDelimited\","
    "\"explode\":false,\"allowReserved\":true,\"schema\":{\"type\":[\"null\",\"integer\"]}},"
    "{\"name\":\"h\",\"in\":\"header\",\"explode\":\"yes\",\"schema\":{\"type\":\"string\"}}],"
    "\"responses\":{\"200\":{\"description\":\"ok\"}}}},"
    "\"/b\":{\"post\":{\"servers\":[],\"security\":[{}],"
    "\"requestBody\":{\"content\":{\"multipart/form-data\":{\"schema\":{\"type\":\"object\","
    "\"properties\":{\"file\":{\"type\":\"string\",\"format\":\"binary\"},\"meta\":{"
    "\"$ref\":\"#/components/schemas/Meta\"}}},\"encoding\":{\"meta\":{\"contentType\":"
    "\"application/json\",\"style\":\"form\",\"explode\":true}}}}},"
    "\"responses\":{\"200\":{\"description\":\"ok\"}}}},"
    "\"/c\":{\"get\":{\"security\":[],\"x-mcp-resource\":\"file:///{name}\","
    "\"x-mcp-pointer\":\"/resourceTemplates/0\",\"responses\":{\"200\":{\"description\":\"ok\"}}}},"
    "\"/d\":{\"post\":{\"security\":\"bad\",\"x-mcp-tool\":\"write_file\",\"x-mcp-prompt\":7,"
    "\"x-mcp-input-schema\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}},"
    "\"x-mcp-annotations\":{\"readOnlyHint\":\"true\",\"destructiveHint\":true},"
    "\"responses\":{\"200\":{\"description\":\"ok\"}}}}},"
    "\"components\":{\"schemas\":{\"Meta\":{\"type\":\"object\"}},\"securitySchemes\":{"
    "\"key\":{\"type\":\"apiKey\",\"in\":\"header\",\"name\":\"X-Key\"},"
    "\"basic\":{\"type\":\"http\",\"scheme\":\"basic\"},"
    "\"alias\":{\"$ref\":\"#/components/securitySchemes/basic\"},"
    "\"gone\":{\"$ref\":\"#/components/securitySchemes/nowhere\"},"
    "\"oauth\":{\"type\":\"oauth2\",\"flows\":{\"clientCredentials\":{\"tokenUrl\":"
    "\"https://auth.example.com/token\",\"scopes\":{}}}},"
    "\"code\":{\"type\":\"oauth2\",\"flows\":{\"authorizationCode\":{\"tokenUrl\":\"https://x\"}}}"
    "}}}";

static void test_servers(void **state)
{
    (void)state;
    spec_registry *reg = load_text(OAS3);
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *a = op_by_path(api, "GET", "/a"), *b = op_by_path(api, "POST", "/b");
    const jt_node *ops = spec_operation_servers(a);
    assert_non_null(ops);
    assert_string_equal(spec_server_url(jt_at(ops, 0)), "https://op.example.com");
    assert_null(spec_operation_servers(b)); /* an empty list: the API's servers */
    assert_null(spec_operation_servers(NULL));
    const jt_node *srv = spec_api_server_object(api, "https://{region}.example.com/{base}");
    assert_non_null(srv);
    assert_null(spec_api_server_object(api, "https://other.example.com"));
    spec_server_var v = spec_server_variable(srv, "region");
    assert_string_equal(v.default_value, "eu");
    assert_non_null(v.enum_values);
    assert_int_equal(v.enum_values->len, 3);
    v = spec_server_variable(srv, "base"); /* a default that is no string */
    assert_null(v.default_value);
    assert_null(v.enum_values);
    v = spec_server_variable(srv, "absent");
    assert_null(v.default_value);
    spec_registry_free(reg);
}

static void test_security_schemes(void **state)
{
    (void)state;
    spec_registry *reg = load_text(OAS3);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_security_scheme s;
    assert_true(spec_security_scheme_find(api, "key", &s));
    assert_string_equal(s.type, "apiKey");
    assert_string_equal(s.in, "header");
    assert_string_equal(s.key_name, "X-Key");
    assert_null(s.token_url);
    assert_true(spec_security_scheme_find(api, "alias", &s)); /* $ref followed */
    assert_string_equal(s.type, "http");
    assert_string_equal(s.scheme, "basic");
    assert_true(spec_security_scheme_find(api, "gone", &s)); /* declared, but names nothing */
    assert_null(s.type);
    assert_true(spec_security_scheme_find(api, "oauth", &s));
    assert_string_equal(s.token_url, "https://auth.example.com/token");
    assert_true(spec_security_scheme_find(api, "code", &s));
    assert_null(s.token_url); /* no client-credentials flow */
    assert_false(spec_security_scheme_find(api, "undeclared", &s));
    assert_null(s.node.node);
    /* the document's requirement; [{}] is anonymous; an operation's non-array security
       leaves the document's */
    assert_true(spec_operation_asks_credentials(api, op_by_path(api, "GET", "/a")));
    assert_false(spec_operation_asks_credentials(api, op_by_path(api, "POST", "/b")));
    assert_false(spec_operation_asks_credentials(api, op_by_path(api, "GET", "/c")));
    assert_true(spec_operation_asks_credentials(api, op_by_path(api, "POST", "/d")));
    spec_registry_free(reg);
}

static void test_serialization_and_schemas(void **state)
{
    (void)state;
    spec_registry *reg = load_text(OAS3);
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *a = op_by_path(api, "GET", "/a"), *b = op_by_path(api, "POST", "/b");
    spec_serialization q = spec_param_serialization(param(a, "q"));
    assert_string_equal(q.style, "pipeDelimited");
    assert_int_equal(q.explode, 0);
    assert_true(q.allow_reserved);
    spec_serialization h = spec_param_serialization(param(a, "h"));
    assert_null(h.style);
    assert_int_equal(h.explode, -1); /* "yes" is no boolean */
    assert_false(h.allow_reserved);
    spec_schema_view v;
    assert_int_equal(spec_schema_view_open(api, param(a, "q")->schema, NULL, &v), 0);
    assert_null(v.type);
    assert_string_equal(spec_schema_view_type_name(&v), "integer");
    assert_non_null(b->body);
    const spec_media *m = &b->body->media[0];
    spec_serialization e = spec_media_field_encoding(m, "meta");
    assert_string_equal(e.content_type, "application/json");
    assert_string_equal(e.style, "form");
    assert_int_equal(e.explode, 1);
    e = spec_media_field_encoding(m, "file");
    assert_null(e.content_type);
    assert_int_equal(e.explode, -1);
    assert_int_equal(spec_schema_view_open(api, m->schema, NULL, &v), 0);
    spec_loc meta = spec_schema_view_property(&v, "meta");
    assert_non_null(meta.node);
    assert_string_equal(spec_ref_target(meta), "#/components/schemas/Meta");
    assert_null(spec_schema_view_property(&v, "absent").node);
    spec_registry_free(reg);
}

static void test_mcp_entries(void **state)
{
    (void)state;
    spec_registry *reg = load_text(OAS3);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_mcp_entry e = spec_operation_mcp_entry(op_by_path(api, "GET", "/a"));
    assert_int_equal(e.kind, SPEC_MCP_NONE);
    assert_false(e.marked_resource || e.marked_prompt || e.annotated);
    e = spec_operation_mcp_entry(op_by_path(api, "GET", "/c"));
    assert_int_equal(e.kind, SPEC_MCP_RESOURCE);
    assert_string_equal(e.resource, "file:///{name}");
    assert_string_equal(e.pointer, "/resourceTemplates/0");
    assert_true(e.marked_resource);
    assert_null(e.input_schema.node);
    e = spec_operation_mcp_entry(op_by_path(api, "POST", "/d"));
    assert_int_equal(e.kind, SPEC_MCP_TOOL);
    assert_string_equal(e.tool, "write_file");
    assert_null(e.prompt);        /* 7 is no name... */
    assert_true(e.marked_prompt); /* ...but the mark is there */
    assert_non_null(e.input_schema.node);
    assert_true(e.annotated);
    assert_false(e.read_only_hint); /* the string "true" is not true */
    assert_true(e.destructive_hint);
    e = spec_operation_mcp_entry(NULL);
    assert_int_equal(e.kind, SPEC_MCP_NONE);
    spec_registry_free(reg);
}

static const char *SWAGGER =
    "{\"swagger\":\"2.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"host\":\"api.example."
    "com\","
    "\"paths\":{\"/x\":{\"get\":{\"parameters\":[{\"name\":\"ids\",\"in\":\"query\","
    "\"type\":\"array\",\"items\":{\"type\":\"string\"},\"collectionFormat\":\"pipes\"}],"
    "\"responses\":{\"200\":{\"description\":\"ok\"}}}}},"
    "\"securityDefinitions\":{\"basic\":{\"type\":\"basic\"},"
    "\"app\":{\"type\":\"oauth2\",\"flow\":\"application\",\"tokenUrl\":\"https://t.example.com\"},"
    "\"implicit\":{\"type\":\"oauth2\",\"flow\":\"implicit\",\"tokenUrl\":\"https://i\"}}}";

static void test_swagger2(void **state)
{
    (void)state;
    spec_registry *reg = load_text(SWAGGER);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_security_scheme s;
    assert_true(spec_security_scheme_find(api, "basic", &s));
    assert_string_equal(s.type, "basic");
    assert_true(spec_security_scheme_find(api, "app", &s));
    assert_string_equal(s.token_url, "https://t.example.com");
    assert_true(spec_security_scheme_find(api, "implicit", &s));
    assert_null(s.token_url);
    assert_null(spec_api_server_object(api, "https://api.example.com")); /* no server objects */
    const spec_operation *x = op_by_path(api, "GET", "/x");
    assert_string_equal(spec_param_serialization(param(x, "ids")).collection_format, "pipes");
    assert_false(spec_operation_asks_credentials(api, x));
    spec_registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_servers),
        cmocka_unit_test(test_security_schemes),
        cmocka_unit_test(test_serialization_and_schemas),
        cmocka_unit_test(test_mcp_entries),
        cmocka_unit_test(test_swagger2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
