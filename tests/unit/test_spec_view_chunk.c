/* Tests for chunking's typed questions (view_chunk.c): a property by name, the MCP entry an
   operation stands for, and the roles of the keys of a raw tree that prep's filter reads. */
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
    return reg;
}

static const char *DOC =
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{"
    "\"/a\":{\"get\":{\"operationId\":\"plain\",\"responses\":{\"200\":{\"description\":\"ok\"}}},"
    "\"post\":{\"operationId\":\"tool\",\"x-mcp-tool\":\"run\",\"requestBody\":{\"content\":{"
    "\"application/json\":{\"schema\":{\"$ref\":\"#/components/schemas/In\"}}}},"
    "\"responses\":{\"200\":{\"description\":\"ok\"}}},"
    "\"put\":{\"operationId\":\"res\",\"x-mcp-resource\":7,"
    "\"responses\":{\"200\":{\"description\":\"ok\"}}},"
    "\"patch\":{\"operationId\":\"prompt\",\"x-mcp-prompt\":\"p\","
    "\"responses\":{\"200\":{\"description\":\"ok\"}}}}},"
    "\"components\":{\"schemas\":{\"In\":{\"type\":\"object\",\"required\":[\"id\"],"
    "\"properties\":{\"id\":{\"type\":\"string\"},\"n\":{\"type\":\"integer\"}}}}}}";

static const spec_operation *op_named(const spec_api *api, const char *op_id)
{
    for (size_t i = 0; i < api->n_ops; i++)
        if (api->ops[i].operation_id && !strcmp(api->ops[i].operation_id, op_id))
            return &api->ops[i];
    fail_msg("no operation %s", op_id);
    return NULL;
}

static void test_property_by_name(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC);
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *op = op_named(api, "tool");
    spec_schema_view v;
    assert_int_equal(spec_schema_view_open(api, op->body->media[0].schema, NULL, &v), 0);
    const jt_node *id = spec_schema_view_property(&v, "id");
    assert_non_null(id);
    assert_string_equal(jt_get_str(id, "type"), "string");
    assert_null(spec_schema_view_property(&v, "missing"));
    assert_null(spec_schema_view_property(&v, NULL));
    spec_schema_view none;
    spec_schema_view_node(NULL, &none);
    assert_null(spec_schema_view_property(&none, "id"));
    spec_registry_free(reg);
}

static void test_mcp_kind(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_null(spec_operation_mcp_kind(op_named(api, "plain")));
    assert_string_equal(spec_operation_mcp_kind(op_named(api, "tool")), "tool");
    /* written, whatever its value: chunking has always asked whether the key is there */
    assert_string_equal(spec_operation_mcp_kind(op_named(api, "res")), "resource");
    assert_string_equal(spec_operation_mcp_kind(op_named(api, "prompt")), "prompt");
    assert_null(spec_operation_mcp_kind(NULL));
    spec_registry_free(reg);
}

static void test_tree_key_roles(void **state)
{
    (void)state;
    assert_int_equal(spec_tree_key_roles(NULL, 0), 0);
    assert_int_equal(spec_tree_key_roles("summary", 7), 0);
    assert_true(spec_tree_key_roles("properties", 10) & SPEC_TREE_KEY_NAMES);
    assert_true(spec_tree_key_roles("content", 7) & SPEC_TREE_KEY_NAMES);
    assert_true(spec_tree_key_roles("$ref", 4) & SPEC_TREE_KEY_FUNCTIONAL);
    assert_true(spec_tree_key_roles("operationId", 11) & SPEC_TREE_KEY_FUNCTIONAL);
    assert_false(spec_tree_key_roles("description", 11) & SPEC_TREE_KEY_FUNCTIONAL);
    assert_int_equal(spec_tree_key_roles("enum", 4), SPEC_TREE_KEY_VALUE_LIST);
    assert_int_equal(spec_tree_key_roles("required", 8), SPEC_TREE_KEY_VALUE_LIST);
    assert_int_equal(spec_tree_key_roles("x-example", 9), SPEC_TREE_KEY_EXAMPLE);
    assert_int_equal(spec_tree_key_roles("responses", 9),
                     SPEC_TREE_KEY_NAMES | SPEC_TREE_KEY_RESPONSES);
    assert_int_equal(spec_tree_key_roles("headers", 7),
                     SPEC_TREE_KEY_NAMES | SPEC_TREE_KEY_HEADERS);
    assert_int_equal(spec_tree_key_roles("parameters", 10),
                     SPEC_TREE_KEY_NAMES | SPEC_TREE_KEY_PARAMETERS);
    assert_int_equal(spec_tree_key_roles("requestBody", 11), SPEC_TREE_KEY_REQUEST_BODY);
    assert_int_equal(spec_tree_key_roles("requestBodies", 13),
                     SPEC_TREE_KEY_NAMES | SPEC_TREE_KEY_REQUEST_BODIES);
    assert_int_equal(spec_tree_key_roles("components", 10), SPEC_TREE_KEY_COMPONENTS);
    /* the length counts, not a terminator: a prefix is another key */
    assert_int_equal(spec_tree_key_roles("enumeration", 4), SPEC_TREE_KEY_VALUE_LIST);
    assert_int_equal(spec_tree_key_roles("enum", 3), 0);
    assert_int_equal(spec_tree_key_roles("[]", 2), 0);
}

static void test_tree_param_in_body(void **state)
{
    (void)state;
    jt_doc *doc = NULL;
    apidex_error err;
    core_error_clear(&err);
    const char *text = "[{\"in\":\"body\"},{\"in\":\"formData\"},{\"in\":\"query\"},{\"in\":1},3]";
    char *copy = strdup(text);
    assert_int_equal(jt_doc_parse(copy, strlen(text), "p.json", NULL, &doc, &err), 0);
    assert_true(spec_tree_param_in_body(jt_at(doc->root, 0)));
    assert_true(spec_tree_param_in_body(jt_at(doc->root, 1)));
    assert_false(spec_tree_param_in_body(jt_at(doc->root, 2)));
    assert_false(spec_tree_param_in_body(jt_at(doc->root, 3)));
    assert_false(spec_tree_param_in_body(jt_at(doc->root, 4)));
    assert_false(spec_tree_param_in_body(NULL));
    jt_doc_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_property_by_name),
        cmocka_unit_test(test_mcp_kind),
        cmocka_unit_test(test_tree_key_roles),
        cmocka_unit_test(test_tree_param_in_body),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
