/* Tool definitions made by the view stage alone (src/view/tooldefs*.c): an OpenAPI operation
   and an MCP tool, loaded with src/oas and no index, defined in every format. The expected
   texts are what `apidex tools --compact` printed for the same two documents before the
   definitions moved out of serve (so the move changed no byte); names, the MCP entry. */
#include "testutil.h"

#include "oas/oas.h"
#include "view/view.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char shop[] =
    "openapi: 3.0.3\n"
    "info: {title: Shop, version: '1'}\n"
    "servers: [{url: 'https://{region}.shop.example/v1', variables: {region: {default: eu, enum: "
    "[eu, us]}}}]\n"
    "components:\n"
    "  securitySchemes:\n"
    "    key: {type: apiKey, in: header, name: X-Key}\n"
    "  schemas:\n"
    "    Item:\n"
    "      type: object\n"
    "      required: [name]\n"
    "      properties:\n"
    "        name: {type: string, maxLength: 80, description: 'The <b>name</b>'}\n"
    "        tags: {type: array, items: {type: string}}\n"
    "        meta: {type: object, additionalProperties: true}\n"
    "        parent: {$ref: '#/components/schemas/Item'}\n"
    "paths:\n"
    "  /items/{id}:\n"
    "    put:\n"
    "      operationId: putItem\n"
    "      summary: Replace an item\n"
    "      security: [{key: []}]\n"
    "      parameters:\n"
    "        - {name: id, in: path, required: true, schema: {type: integer, minimum: 0}}\n"
    "        - {name: dry, in: query, schema: {type: boolean, nullable: true}}\n"
    "      requestBody:\n"
    "        required: true\n"
    "        content:\n"
    "          application/json: {schema: {$ref: '#/components/schemas/Item'}}\n"
    "      responses: {'200': {description: ok}}\n";

static const char tools[] =
    "{\"tools\": [{\"name\": \"walk\", \"title\": \"Walk\", \"description\": \"Walks a tree.\",\n"
    "  \"annotations\": {\"readOnlyHint\": true},\n"
    "  \"inputSchema\": {\"type\": \"object\", \"properties\": {\"root\": {\"$ref\": "
    "\"#/$defs/Node\"}}, \"required\": [\"root\"],\n"
    "    \"$defs\": {\"Node\": {\"type\": \"object\", \"properties\": {\"name\": {\"type\": "
    "\"string\"}}}}},\n"
    "  \"outputSchema\": {\"type\": \"object\", \"properties\": {\"n\": {\"type\": "
    "\"integer\"}}}}]}\n";

static const char *const expected[] = {
    /* VIEW_TOOL_OPENAI */
    "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"shop__putItem\",\"description\":"
    "\"P"
    "UT /items/{id}. Replace an item.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"p"
    "ath\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"minimum\":0}},"
    "\"requir"
    "ed\":[\"id\"],\"additionalProperties\":false},\"query\":{\"type\":\"object\",\"properties\":{"
    "\"dry\":{\"type\":[\"boolean\",\"null\"]}},\"required\":[\"dry\"],\"additionalProperties\":fal"
    "se},\"body\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\","
    "\"description\":"
    "\"The "
    "name\"},\"tags\":{\"anyOf\":[{\"type\":\"array\",\"items\":{\"type\":\"string\"}},{\"type\":"
    "\"null\"}]},\"meta\":{\"type\":[\"string\",\"null\"],\"description\":\"(JSON-encoded value)\"}"
    ",\"parent\":{\"type\":[\"string\",\"null\"],\"description\":\"(recursive: same shape as #/c"
    "omponents/schemas/Item) (JSON-encoded value)\"}},\"required\":[\"name\",\"tags\",\"meta\""
    ",\"parent\"],\"additionalProperties\":false}},\"required\":[\"path\",\"query\",\"body\"],\"ad"
    "ditionalProperties\":false},\"strict\":true}},{\"type\":\"function\",\"function\":{\"name\""
    ":\"tools__walk\",\"description\":\"Walks a tree.\",\"parameters\":{\"type\":\"object\",\"prop"
    "erties\":{\"root\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":[\"string\","
    "\"null\"]}"
    "},\"required\":[\"name\"],\"additionalProperties\":false}},\"required\":[\"root\"],\"additi"
    "onalProperties\":false},\"strict\":true}}],\"calls\":{\"shop__putItem\":{\"id\":\"shop:put"
    "Item\",\"method\":\"PUT\",\"path\":\"/items/{id}\",\"server\":\"https://{region}.shop.exampl"
    "e/"
    "v1\",\"server_variables\":{\"region\":{\"default\":\"eu\",\"enum\":[\"eu\",\"us\"]}},\"content"
    "_type\":\"application/"
    "json\",\"auth\":[[{\"id\":\"key\",\"type\":\"apiKey\",\"in\":\"header\",\"na"
    "me\":\"X-Key\"}]],\"json_strings\":[\"/body/meta\",\"/body/parent\"]},\"tools__walk\":{\"id\""
    ":\"tools:walk\",\"mcp\":{\"server\":\"tools\",\"tool\":\"walk\"}}}}",
    /* VIEW_TOOL_ANTHROPIC */
    "{\"tools\":[{\"name\":\"shop__putItem\",\"description\":\"PUT /items/{id}. Replace an ite"
    "m.\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"object\","
    "\"prope"
    "rties\":{\"id\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"id\"],\"additionalProper"
    "ties\":false},\"query\":{\"type\":\"object\",\"properties\":{\"dry\":{\"type\":[\"boolean\","
    "\"nu"
    "ll\"]}},\"additionalProperties\":false},\"body\":{\"type\":\"object\",\"required\":[\"name\"]"
    ",\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":80,\"description\":\"The name\"},"
    "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"meta\":{\"type\":\"object\","
    "\"addit"
    "ionalProperties\":true},\"parent\":{\"description\":\"(recursive: same shape as #/comp"
    "onents/schemas/Item)\"}}}},\"required\":[\"path\",\"body\"],\"additionalProperties\":fals"
    "e}},{\"name\":\"tools__walk\",\"description\":\"Walks a tree.\",\"input_schema\":{\"type\":\""
    "object\",\"properties\":{\"root\":{\"$ref\":\"#/$defs/Node\"}},\"required\":[\"root\"],\"$defs"
    "\":{\"Node\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}}}],"
    "\"calls\":"
    "{\"shop__putItem\":{\"id\":\"shop:putItem\",\"method\":\"PUT\",\"path\":\"/items/"
    "{id}\",\"serve"
    "r\":\"https://{region}.shop.example/v1\",\"server_variables\":{\"region\":{\"default\":\"e"
    "u\",\"enum\":[\"eu\",\"us\"]}},\"content_type\":\"application/"
    "json\",\"auth\":[[{\"id\":\"key\",\""
    "type\":\"apiKey\",\"in\":\"header\",\"name\":\"X-Key\"}]]},\"tools__walk\":{\"id\":\"tools:"
    "walk\""
    ",\"mcp\":{\"server\":\"tools\",\"tool\":\"walk\"}}}}",
    /* VIEW_TOOL_MCP */
    "{\"tools\":[{\"name\":\"shop__putItem\",\"description\":\"PUT /items/{id}. Replace an ite"
    "m.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"object\","
    "\"proper"
    "ties\":{\"id\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"id\"],\"additionalPropert"
    "ies\":false},\"query\":{\"type\":\"object\",\"properties\":{\"dry\":{\"type\":[\"boolean\","
    "\"nul"
    "l\"]}},\"additionalProperties\":false},\"body\":{\"type\":\"object\",\"required\":[\"name\"],"
    "\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":80,\"description\":\"The "
    "name\"},\""
    "tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"meta\":{\"type\":\"object\","
    "\"additi"
    "onalProperties\":true},\"parent\":{\"description\":\"(recursive: same shape as #/compo"
    "nents/schemas/Item)\"}}}},\"required\":[\"path\",\"body\"],\"additionalProperties\":false"
    "}},{\"name\":\"tools__walk\",\"description\":\"Walks a tree.\",\"inputSchema\":{\"type\":\"ob"
    "ject\",\"properties\":{\"root\":{\"$ref\":\"#/$defs/"
    "Node\"}},\"required\":[\"root\"],\"$defs\":"
    "{\"Node\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}},\"title\":"
    "\"Wal"
    "k\",\"annotations\":{\"readOnlyHint\":true},\"outputSchema\":{\"type\":\"object\",\"properti"
    "es\":{\"n\":{\"type\":\"integer\"}}}}],\"calls\":{\"shop__putItem\":{\"id\":\"shop:putItem\","
    "\"m"
    "ethod\":\"PUT\",\"path\":\"/items/{id}\",\"server\":\"https://{region}.shop.example/v1\",\"s"
    "erver_variables\":{\"region\":{\"default\":\"eu\",\"enum\":[\"eu\",\"us\"]}},\"content_type\":"
    "\""
    "application/"
    "json\",\"auth\":[[{\"id\":\"key\",\"type\":\"apiKey\",\"in\":\"header\",\"name\":\"X-K"
    "ey\"}]]},\"tools__walk\":{\"id\":\"tools:walk\",\"mcp\":{\"server\":\"tools\",\"tool\":"
    "\"walk\"}}"
    "}}"};

static const spec_api *load(spec_registry *reg, const char *name, const char *text)
{
    apidex_error err;
    assert_int_equal(spec_registry_add_text(reg, name, text, strlen(text), NULL, &err), 0);
    const spec_api *api = spec_registry_api(reg, spec_registry_count(reg) - 1);
    assert_non_null(api);
    assert_false(api->failed);
    return api;
}

/* {"tools": [...], "calls": {...}} as `apidex tools` writes it, for ops of apis. */
static char *define_all(const spec_api *const *apis, const char *const *ids, size_t n,
                        view_tool_format fmt)
{
    struct json_object *result = json_object_new_object(), *defs = json_object_new_array(),
                       *calls = json_object_new_object();
    core_arena *arena = core_arena_new(1 << 20);
    for (size_t i = 0; i < n; i++) {
        const spec_operation *op = spec_api_find_operation(apis[i], ids[i]);
        assert_non_null(op);
        char name[VIEW_TOOL_NAME_MAX + 1];
        view_tool_name(apis[i]->id, op->id, op->operation_id, op->method, op->path, name);
        struct json_object *def = NULL, *call = NULL;
        apidex_error err;
        assert_int_equal(
            view_tool_define(apis[i], op, apis[i]->id, op->id, name, fmt, arena, &def, &call, &err),
            0);
        json_object_array_add(defs, def);
        core_json_add(calls, name, call);
    }
    core_json_add(result, "tools", defs);
    core_json_add(result, "calls", calls);
    char *text = strdup(json_object_to_json_string_ext(result, JSON_C_TO_STRING_PLAIN |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(result);
    core_arena_free(arena);
    return text;
}

static void test_define_every_format(void **state)
{
    (void)state;
    spec_registry *reg = NULL;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    const spec_api *apis[2] = {load(reg, "shop", shop), NULL};
    apis[1] = load(reg, "tools", tools);
    const char *const ids[] = {"shop:putItem", "tools:walk"};
    const view_tool_format fmts[] = {VIEW_TOOL_OPENAI, VIEW_TOOL_ANTHROPIC, VIEW_TOOL_MCP};
    for (size_t f = 0; f < 3; f++) {
        char *text = define_all(apis, ids, 2, fmts[f]);
        assert_string_equal(text, expected[f]);
        free(text);
    }
    /* what an operation from an MCP server is (serve's detail adds it); NULL for an endpoint */
    struct json_object *e =
        view_tool_mcp_entry(spec_api_find_operation(apis[1], "tools:walk"), "tools");
    assert_non_null(e);
    assert_string_equal(json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN),
                        "{\"kind\":\"tool\",\"server\":\"tools\",\"name\":\"walk\","
                        "\"annotations\":{\"readOnlyHint\":true}}");
    json_object_put(e);
    assert_null(view_tool_mcp_entry(spec_api_find_operation(apis[0], "shop:putItem"), "shop"));
    spec_registry_free(reg);
}

/* A name is the endpoint's own when it can be; else made safe, cut and given a hash. */
static void test_names(void **state)
{
    (void)state;
    char name[VIEW_TOOL_NAME_MAX + 1];
    view_tool_name("stripe", "stripe:PostCustomers", "PostCustomers", "POST", "/v1/customers",
                   name);
    assert_string_equal(name, "stripe__PostCustomers");
    /* without an operationId: method and path, lower-case, and the hash of the id */
    view_tool_name("shop", "shop:GET /items/{id}", NULL, "GET", "/items/{id}", name);
    assert_int_equal(strncmp(name, "shop__get_items_id_", 19), 0);
    assert_int_equal(strlen(name), 19 + 8);
    /* too long: cut to 64 characters, the hash kept */
    char op[200];
    memset(op, 'x', sizeof op - 1);
    op[sizeof op - 1] = '\0';
    char id[220];
    snprintf(id, sizeof id, "a:%s", op);
    view_tool_name("a", id, op, "GET", "/", name);
    assert_int_equal(strlen(name), VIEW_TOOL_NAME_MAX);
    assert_int_equal(name[VIEW_TOOL_NAME_MAX - 9], '_');
    /* the same endpoint always gets the same name */
    char again[VIEW_TOOL_NAME_MAX + 1];
    view_tool_name("a", id, op, "GET", "/", again);
    assert_string_equal(name, again);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_define_every_format),
                                       cmocka_unit_test(test_names)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
