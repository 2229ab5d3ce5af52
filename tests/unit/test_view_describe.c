/* Unit tests of the deterministic descriptions of an operation (view/describe.c) on the
 * golden petstore fixture: the capability description, the example query, the per-field
 * text of an OpenAPI operation and of an MCP tool. */
#include "oas_fixture.h"
#include "testutil.h"

#include "view/view.h"

#include <stdlib.h>
#include <string.h>

static const spec_api *api;

static int setup(void **state)
{
    return oas_fixture_open(state, "tests/golden/hybrid_petstore/petstore.yaml", &api);
}

static void test_descriptions(void **state)
{
    (void)state;
    const spec_operation *show = spec_api_find_operation(api, "pet-store:showPetById");
    const spec_operation *photos =
        spec_api_find_operation(api, "pet-store:GET /pets/{petId}/photos");
    const spec_operation *list = spec_api_find_operation(api, "pet-store:listPets");
    assert_non_null(show);
    assert_non_null(photos);
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(view_describe_operation(api, show, NULL, &b), 0);
    assert_non_null(strstr(b.data, "Info for a specific pet. Retrieves pets by pet id."));
    assert_non_null(strstr(b.data, "Accepts: petId (required)."));
    assert_non_null(strstr(b.data, "Returns: Expected response to a valid request; fields: "));
    core_buf_reset(&b);
    assert_int_equal(view_example_query(api, show, NULL, &b), 0);
    assert_string_equal(b.data, "How do I get info for a specific pet?");
    core_buf_reset(&b);
    assert_int_equal(view_example_query(api, list, NULL, &b), 0);
    assert_string_equal(b.data, "How do I list all pets?");
    core_buf_reset(&b);
    assert_int_equal(view_describe_operation(api, photos, NULL, &b), 0);
    assert_non_null(strstr(b.data, "Retrieves pets photos by pet id."));
    core_buf_free(&b);
}

/* An MCP tool's path is its name again (oas/mcp.c): its fields carry the name once, as the
   operationId, and no path text; an OpenAPI operation keeps its path. */
static void test_mcp_tool_has_no_path_text(void **state)
{
    (void)state;
    static const char tools[] = "{\"mcp\": {\"server\": \"notes\"}, \"tools\": [{\"name\": "
                                "\"open_nodes\", \"description\": \"Open nodes by name.\", "
                                "\"inputSchema\": {\"type\": \"object\"}}]}";
    spec_registry *mreg = NULL;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &mreg, &err), 0);
    assert_int_equal(spec_registry_add_text(mreg, "notes", tools, strlen(tools), NULL, &err), 0);
    const spec_api *m = spec_registry_api(mreg, 0);
    assert_int_equal(m->n_ops, 1);
    core_arena *a = core_arena_new(0);
    view_fields f;
    assert_int_equal(view_operation_fields(m, &m->ops[0], NULL, a, &f), 0);
    assert_null(f.path);
    assert_string_equal(f.operation_id, "open_nodes");
    assert_string_equal(f.summary, "open nodes");
    assert_int_equal(view_operation_fields(api, &api->ops[0], NULL, a, &f), 0);
    assert_non_null(f.path);
    assert_string_equal(f.path, api->ops[0].path);
    core_arena_free(a);
    spec_registry_free(mreg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptions),
        cmocka_unit_test(test_mcp_tool_has_no_path_text),
    };
    return cmocka_run_group_tests(tests, setup, oas_fixture_close);
}
