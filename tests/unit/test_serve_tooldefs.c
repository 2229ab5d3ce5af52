/* Function definitions for endpoints (apidex tools): names, descriptions and the JSON
   Schema of parameters and bodies, from OpenAPI 3.0 and Swagger 2.0 documents with refs,
   nullable fields, exclusive bounds, allOf and a recursive schema; names, grouping by
   location, calling details and OpenAI's strict mode. */
#include "serve_testutil.h"

#include "build/build.h"
#include "oas/oas.h"

static const char oas3[] =
    "openapi: 3.0.3\n"
    "info: {title: Shop, version: '1'}\n"
    "paths:\n"
    "  /items/{item_id}:\n"
    "    parameters:\n"
    "      - $ref: '#/components/parameters/ItemId'\n"
    "    get:\n"
    "      operationId: getItem\n"
    "      summary: Get an item\n"
    "      description: The item with its category tree\n"
    "      parameters:\n"
    "        - {name: expand, in: query, schema: {type: boolean}}\n"
    "        - {name: X-Trace, in: header, schema: {type: string, nullable: true}}\n"
    "        - {name: region, in: query, description: '<p>Where the <b>item</b> &amp; its "
    "parts ship</p>', schema: {type: string, enum: [r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, "
    "r11, r12, r13, r14, r15, r16, r17, r18, r19, r20, r21, r22, r23, r24, r25, r26, r27, r28, "
    "r29, r30, r31, r32, r33, r34, r35, r36, r37, r38, r39, r40, r41, r42, r43, r44, r45, r46, "
    "r47, r48, r49, r50, r51, r52, r53, r54, r55, r56, r57, r58, r59, r60, r61, r62, r63, r64, "
    "r65, r66, r67, r68, r69, r70, r71, r72, r73, r74, r75, r76, r77, r78, r79, r80, r81, r82, "
    "r83, r84, r85, r86, r87, r88, r89, r90, r91, r92, r93, r94, r95, r96, r97, r98, r99, r100, "
    "r101, r102, r103, r104, r105, r106, r107, r108, r109, r110, r111, r112, r113, r114, r115, "
    "r116, r117, r118, r119]}}\n"
    "      responses: {'200': {description: ok}}\n"
    "    put:\n"
    "      operationId: 'put item/v2 (beta)'\n"
    "      requestBody:\n"
    "        required: true\n"
    "        content:\n"
    "          application/xml: {schema: {type: string}}\n"
    "          application/json: {schema: {$ref: '#/components/schemas/ItemUpdate'}}\n"
    "      responses: {'204': {description: ok}}\n"
    "  /categories:\n"
    "    post:\n"
    "      requestBody:\n"
    "        content:\n"
    "          application/json: {schema: {$ref: '#/components/schemas/Category'}}\n"
    "      responses: {'201': {description: ok}}\n"
    "components:\n"
    "  parameters:\n"
    "    ItemId: {name: item_id, in: path, required: true, description: The item, schema: {type: "
    "integer, minimum: 0, exclusiveMinimum: true}}\n"
    "  schemas:\n"
    "    Base: {type: object, required: [name], properties: {name: {type: string, maxLength: "
    "80}}}\n"
    "    ItemUpdate:\n"
    "      allOf:\n"
    "        - $ref: '#/components/schemas/Base'\n"
    "        - type: object\n"
    "          properties:\n"
    "            price: {type: number, minimum: 0}\n"
    "            color: {type: string, enum: [red, green], x-internal: true, example: red}\n"
    "    Category:\n"
    "      type: object\n"
    "      properties:\n"
    "        title: {type: string}\n"
    "        children: {type: array, items: {$ref: '#/components/schemas/Category'}}\n";

static const char swagger2[] =
    "{\"swagger\":\"2.0\",\"info\":{\"title\":\"Files\",\"version\":\"1\"},\"paths\":{\"/upload\":{"
    "\"post\":{\"operationId\":\"getItem\",\"summary\":\"Upload a "
    "file.\",\"consumes\":[\"multipart/form-data\"],"
    "\"parameters\":[{\"name\":\"file\",\"in\":\"formData\",\"type\":\"file\",\"required\":true},"
    "{\"name\":\"tags\",\"in\":\"query\",\"type\":\"array\",\"items\":{\"type\":\"string\"},"
    "\"collectionFormat\":\"csv\"}],"
    "\"responses\":{\"200\":{\"description\":\"ok\"}}}}}}";

static struct json_object *defs(store_index *idx, const char *const *ids, size_t n,
                                view_tool_format f)
{
    struct json_object *out = NULL;
    apidex_error err;
    int rc = serve_tooldefs(idx, ids, n, f, &out, &err);
    if (rc) fail_msg("tooldefs: %s", err.message);
    return out;
}

static void test_tooldefs(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    free(tu_write(dir, "specs/shop.yaml", oas3));
    free(tu_write(dir, "specs/files.json", swagger2));
    char *specs = tu_path(dir, "specs"), *db = tu_path(dir, "idx.db");
    apidex_error err;
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, specs, &err), 0);
    assert_int_equal(build_index(db, reg, NULL, NULL, &err), 0);
    spec_registry_free(reg);
    store_index *idx = NULL;
    assert_int_equal(store_open(db, true, &idx, &err), 0);

    const char *ids[] = {"shop:getItem", "shop:put item/v2 (beta)", "shop:POST /categories",
                         "files:getItem", "shop:getItem"};
    struct json_object *o = defs(idx, ids, 5, VIEW_TOOL_OPENAI);
    /* the id asked for twice is defined once */
    assert_int_equal(json_object_array_length(sv_at(o, "tools")), 4);
    /* getItem: names API__operationId; path-level $ref parameter merged, arguments grouped by
       location, strict mode: optional ones nullable, every object closed */
    assert_string_equal(sv_str(o, "tools.0.type"), "function");
    assert_string_equal(sv_str(o, "tools.0.function.name"), "shop__getItem");
    assert_true(json_object_get_boolean(sv_at(o, "tools.0.function.strict")));
    assert_string_equal(sv_str(o, "tools.0.function.description"),
                        "GET /items/{item_id}. Get an item. The item with its category tree.");
    struct json_object *p = sv_at(o, "tools.0.function.parameters");
    assert_string_equal(sv_str(p, "type"), "object");
    assert_false(json_object_get_boolean(sv_at(p, "additionalProperties")));
    assert_string_equal(sv_str(p, "properties.path.properties.item_id.type"), "integer");
    assert_int_equal(sv_int(p, "properties.path.properties.item_id.exclusiveMinimum"), 0);
    assert_null(sv_at(p, "properties.path.properties.item_id.minimum"));
    assert_string_equal(sv_str(p, "properties.path.properties.item_id.description"), "The item");
    assert_string_equal(sv_str(p, "properties.path.required.0"), "item_id");
    assert_string_equal(sv_str(p, "properties.query.properties.expand.type.1"), "null");
    assert_string_equal(sv_str(p, "properties.query.required.0"), "expand");
    assert_string_equal(sv_str(p, "properties.header.properties.X-Trace.type.1"), "null");
    /* descriptions are plain text; an enum too long to copy is described, not cut (a cut
       enum would reject valid values) */
    const char *rd = sv_str(p, "properties.query.properties.region.description");
    assert_non_null(rd);
    assert_non_null(strstr(rd, "Where the item & its parts ship"));
    assert_non_null(strstr(rd, "One of 120 allowed values"));
    assert_null(sv_at(p, "properties.query.properties.region.enum"));
    assert_string_equal(sv_str(p, "required.0"), "path");
    assert_string_equal(sv_str(p, "required.2"), "header");
    assert_null(sv_at(p, "properties.body"));
    struct json_object *call = sv_at(o, "calls.shop__getItem");
    assert_string_equal(sv_str(call, "id"), "shop:getItem");
    assert_string_equal(sv_str(call, "method"), "GET");
    assert_string_equal(sv_str(call, "path"), "/items/{item_id}");
    assert_null(sv_at(call, "content_type"));
    assert_null(sv_at(call, "auth")); /* the spec declares none */
    /* an operationId that is not a safe name: made safe, with a hash of the endpoint id */
    char put_name[65], cat_name[65];
    const char *name = sv_str(o, "tools.1.function.name");
    snprintf(put_name, sizeof put_name, "%s", name);
    assert_int_equal(strlen(name), strlen("shop__put_item_v2_beta_") + 8);
    assert_memory_equal(name, "shop__put_item_v2_beta_", strlen("shop__put_item_v2_beta_"));
    /* the JSON body chosen; strict: required kept, optional nullable, keywords it lacks gone */
    p = sv_at(o, "tools.1.function.parameters");
    assert_string_equal(sv_str(p, "properties.body.type"), "object");
    assert_string_equal(sv_str(p, "properties.body.properties.name.type"), "string");
    assert_null(sv_at(p, "properties.body.properties.name.maxLength"));
    assert_string_equal(sv_str(p, "properties.body.properties.color.type.1"), "null");
    /* null added to the enum */
    assert_int_equal(json_object_array_length(sv_at(p, "properties.body.properties.color.enum")),
                     3);
    assert_string_equal(sv_str(p, "required.1"), "body");
    /* no operationId: method_path and a hash; the recursive schema becomes a JSON string */
    name = sv_str(o, "tools.2.function.name");
    snprintf(cat_name, sizeof cat_name, "%s", name);
    assert_memory_equal(name, "shop__post_categories_", strlen("shop__post_categories_"));
    struct json_object *calls = sv_at(o, "calls");
    call = NULL;
    json_object_object_get_ex(calls, name, &call);
    assert_non_null(call);
    assert_string_equal(sv_str(call, "content_type"), "application/json");
    assert_string_equal(sv_str(call, "json_strings.0"), "/body/children/*");
    /* Swagger 2.0: another API's getItem does not clash; formData is the body */
    assert_string_equal(sv_str(o, "tools.3.function.name"), "files__getItem");
    p = sv_at(o, "tools.3.function.parameters");
    assert_string_equal(sv_str(p, "properties.query.properties.tags.anyOf.0.type"), "array");
    assert_string_equal(sv_str(p, "properties.query.properties.tags.anyOf.0.items.type"), "string");
    assert_null(sv_at(p, "properties.query.properties.tags.collectionFormat"));
    assert_string_equal(sv_str(o, "calls.files__getItem.content_type"), "multipart/form-data");
    json_object_put(o);

    /* Anthropic shape: plain JSON Schema, constraints kept, optional arguments not required;
       the same names when asked for alone */
    const char *two[] = {"shop:put item/v2 (beta)", "shop:POST /categories"};
    o = defs(idx, two, 2, VIEW_TOOL_ANTHROPIC);
    assert_string_equal(sv_str(o, "tools.0.name"), put_name);
    p = sv_at(o, "tools.0.input_schema");
    assert_string_equal(sv_str(p, "type"), "object");
    assert_int_equal(sv_int(p, "properties.body.properties.name.maxLength"), 80);
    assert_string_equal(sv_str(p, "properties.body.properties.color.enum.1"), "green");
    assert_null(sv_at(p, "properties.body.properties.color.x-internal"));
    assert_null(sv_at(p, "properties.body.properties.color.example"));
    assert_string_equal(sv_str(p, "properties.body.required.0"), "name");
    assert_null(sv_at(p, "properties.body.required.1"));
    assert_null(sv_at(o, "tools.0.type"));
    assert_string_equal(sv_str(o, "tools.1.name"), cat_name);
    p = sv_at(o, "tools.1.input_schema.properties.body.properties.children.items");
    assert_non_null(strstr(sv_str(p, "description"), "recursive"));
    assert_null(sv_at(o, "calls.json_strings"));
    json_object_put(o);

    /* MCP shape */
    o = defs(idx, ids, 1, VIEW_TOOL_MCP);
    assert_string_equal(sv_str(o, "tools.0.name"), "shop__getItem");
    assert_string_equal(sv_str(o, "tools.0.inputSchema.type"), "object");
    assert_null(sv_at(o, "tools.0.input_schema"));
    json_object_put(o);

    /* unknown id */
    const char *bad[] = {"shop:nope"};
    struct json_object *out = NULL;
    assert_int_equal(serve_tooldefs(idx, bad, 1, VIEW_TOOL_OPENAI, &out, &err), APIDEX_ENOTFOUND);
    assert_null(out);
    store_close(idx);
    tu_rmtree(dir);
    free(dir);
    free(specs);
    free(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_tooldefs)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
