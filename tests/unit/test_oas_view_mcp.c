/* Tests for the MCP entry of an operation (view_mcp.c): tools (title, annotations, kept
   schemas and their rebased $refs), resources, prompts, marks of any value, hints. */
#include "oas_view_testdoc.h"

static void test_mcp_tool_entry(void **state)
{
    (void)state;
    spec_registry *reg = load_named(
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

static void test_mcp_marks(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC_REQUEST);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_mcp_entry e;
    spec_operation_mcp(op_by_path(api, "GET", "/a"), &e);
    assert_int_equal(e.kind, SPEC_MCP_NONE);
    assert_false(e.marked_tool || e.marked_resource || e.marked_prompt || e.annotated);
    spec_operation_mcp(op_by_path(api, "GET", "/c"), &e);
    assert_int_equal(e.kind, SPEC_MCP_RESOURCE);
    assert_string_equal(e.resource, "file:///{name}");
    assert_string_equal(e.pointer, "/resourceTemplates/0");
    assert_true(e.marked_resource);
    assert_null(e.schema[SPEC_MCP_INPUT_SCHEMA].node);
    spec_operation_mcp(op_by_path(api, "POST", "/d"), &e);
    assert_int_equal(e.kind, SPEC_MCP_TOOL);
    assert_string_equal(e.tool, "write_file");
    assert_null(e.prompt);        /* 7 is no name... */
    assert_true(e.marked_prompt); /* ...but the mark is there */
    assert_true(e.marked_tool);
    assert_true(jt_is(e.annotations, JT_OBJECT));
    assert_non_null(e.schema[SPEC_MCP_INPUT_SCHEMA].node);
    assert_true(e.annotated);
    assert_false(e.read_only_hint); /* the string "true" is not true */
    assert_true(e.destructive_hint);
    spec_operation_mcp(NULL, &e);
    assert_int_equal(e.kind, SPEC_MCP_NONE);
    spec_registry_free(reg);
}

static void test_mcp_no_operation(void **state)
{
    (void)state;
    spec_mcp_entry e;
    spec_operation_mcp(NULL, &e);
    assert_null(e.tool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mcp_tool_entry),
        cmocka_unit_test(test_mcp_marks),
        cmocka_unit_test(test_mcp_no_operation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
