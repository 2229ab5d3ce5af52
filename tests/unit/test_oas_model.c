/* Tests for the model: operations, parameters, bodies, Swagger 2.0 normalisation, schema graph. */
#include "testutil.h"

#include "oas/oas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static spec_registry *load_fixture(const char *rel)
{
    char *dir = tu_path(tu_source_dir(), "tests/data/oas");
    char *p = tu_path(dir, rel);
    spec_registry *reg = NULL;
    apidex_error err;
    if (spec_load_file(p, NULL, &reg, &err)) fail_msg("loading %s: %s", p, err.message);
    free(dir);
    free(p);
    return reg;
}

static const spec_operation *op(const spec_api *api, const char *nat)
{
    char id[256];
    snprintf(id, sizeof id, "%s:%s", api->id, nat);
    const spec_operation *o = spec_api_find_operation(api, id);
    if (!o) fail_msg("no operation %s", id);
    return o;
}

static long schema_named(const spec_api *api, const char *name)
{
    for (size_t i = 0; i < api->n_schemas; i++)
        if (!strcmp(api->schemas[i].name, name)) return (long)i;
    fail_msg("no schema %s", name);
    return -1;
}

static const spec_param *param(const spec_operation *o, const char *name, const char *in)
{
    for (size_t i = 0; i < o->n_params; i++)
        if (!strcmp(o->params[i].name, name) && !strcmp(o->params[i].in, in)) return &o->params[i];
    return NULL;
}

static void test_operations_and_ids(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore30.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_int_equal(api->n_ops, 4);
    /* document order; x- members of paths and path items are not operations */
    assert_string_equal(api->ops[0].id, "pet-store:getPet");
    assert_string_equal(api->ops[1].id, "pet-store:DELETE /pets/{petId}"); /* duplicate id */
    assert_string_equal(api->ops[1].operation_id, "getPet");
    assert_string_equal(api->ops[2].id, "pet-store:POST /pets"); /* no operationId */
    assert_null(api->ops[2].operation_id);
    assert_string_equal(api->ops[3].id, "pet-store:listTrees");
    const spec_operation *get = &api->ops[0];
    assert_string_equal(get->method, "GET");
    assert_string_equal(get->path, "/pets/{petId}");
    assert_string_equal(get->summary, "Get a pet");
    assert_null(get->description);
    assert_string_equal(get->pointer, "/paths/~1pets~1{petId}/get");
    /* both id forms find operations */
    assert_ptr_equal(spec_api_find_operation(api, "pet-store:getPet"), get);
    assert_ptr_equal(spec_api_find_operation(api, "pet-store:GET /pets/{petId}"), get);
    assert_ptr_equal(spec_api_find_operation(api, "pet-store:DELETE /pets/{petId}"), &api->ops[1]);
    assert_null(spec_api_find_operation(api, "pet-store:nothing"));
    assert_null(spec_api_find_operation(api, "other:getPet"));
    /* the duplicate is a warning at the second operationId */
    const core_diag *d = &api->diags.items[0];
    assert_int_equal(api->diags.n, 1);
    assert_non_null(strstr(d->message, "duplicate operationId 'getPet'"));
    assert_string_equal(d->pointer, "/paths/~1pets~1{petId}/delete");
    /* x- extensions are kept on the node */
    assert_int_equal(jt_get(get->node.node, "x-rate-limit")->u.i, 10);
    spec_registry_free(reg);
}

static void test_string_booleans(void **state)
{
    (void)state;
    /* Some generators quote booleans ("required": "true"). They are read as what they
       spell, with one warning per place, however many operations use the parameter. */
    char *dir = tu_tempdir();
    char *path = tu_write(
        dir, "quoted.json",
        "{\"openapi\": \"3.0.3\", \"info\": {\"title\": \"Q\", \"version\": \"1\"},\n"
        " \"paths\": {\n"
        "  \"/a\": {\"get\": {\"operationId\": \"a\", \"parameters\": [\n"
        "    {\"$ref\": \"#/components/parameters/Ids\"},\n"
        "    {\"name\": \"x\", \"in\": \"query\", \"required\": \"false\"},\n"
        "    {\"name\": \"y\", \"in\": \"query\", \"required\": \"yes\"}],\n"
        "   \"responses\": {\"200\": {\"description\": \"ok\"}}}},\n"
        "  \"/b\": {\"get\": {\"operationId\": \"b\", \"parameters\": [\n"
        "    {\"$ref\": \"#/components/parameters/Ids\"}],\n"
        "   \"responses\": {\"200\": {\"description\": \"ok\"}}}}},\n"
        " \"components\": {\"parameters\": {\"Ids\": {\"name\": \"ids\", \"in\": \"query\",\n"
        "   \"required\": \"true\", \"schema\": {\"type\": \"string\"}}}}}\n");
    spec_registry *reg = NULL;
    apidex_error err;
    if (spec_load_file(path, NULL, &reg, &err)) fail_msg("load: %s", err.message);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_true(param(op(api, "a"), "ids", "query")->required);
    assert_true(param(op(api, "b"), "ids", "query")->required);
    assert_false(param(op(api, "a"), "x", "query")->required);
    assert_false(param(op(api, "a"), "y", "query")->required);
    size_t said_true = 0, said_false = 0;
    for (size_t i = 0; i < api->diags.n; i++) {
        const core_diag *d = &api->diags.items[i];
        if (strstr(d->message, "'required' is the string \"true\"")) {
            said_true++;
            assert_string_equal(d->pointer, "/components/parameters/Ids/required");
            assert_int_equal(d->line, 12);
            assert_int_equal(d->level, CORE_DIAG_WARNING);
        }
        if (strstr(d->message, "'required' is the string \"false\"")) said_false++;
    }
    assert_int_equal(said_true, 1);
    assert_int_equal(said_false, 1);
    spec_registry_free(reg);
    free(path);
    tu_rmtree(dir);
    free(dir);
}

static void test_path_level_parameters(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore30.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *get = op(api, "getPet");
    /* path-level first, the operation overrides petId, adds fields */
    assert_int_equal(get->n_params, 4);
    assert_string_equal(get->params[0].name, "petId");
    assert_string_equal(get->params[0].description, "operation-level id");
    assert_string_equal(jt_get_str(get->params[0].schema.node, "type"), "integer");
    assert_true(get->params[0].required);
    assert_string_equal(get->params[1].name, "verbose");
    assert_string_equal(get->params[2].name, "X-Trace"); /* from a $ref */
    assert_string_equal(get->params[2].in, "header");
    assert_string_equal(get->params[3].name, "fields");
    assert_true(get->params[3].deprecated);
    assert_false(get->params[3].required);
    const spec_operation *del = op(api, "DELETE /pets/{petId}");
    assert_int_equal(del->n_params, 3);
    const spec_param *id = param(del, "petId", "path");
    assert_non_null(id);
    assert_string_equal(id->description, "path-level id");
    assert_true(id->required); /* path parameters always are */
    spec_registry_free(reg);
}

static void test_many_parameters(void **state)
{
    (void)state;
    /* long lists are merged through an index: same result as the short-list scan */
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n"
                      "    parameters:\n");
    for (int i = 0; i < 40; i++)
        core_buf_printf(&b, "      - {name: p%d, in: query, description: path %d}\n", i, i);
    core_buf_puts(&b, "    get:\n      parameters:\n"
                      "        - {name: p5, in: query, description: overridden}\n"
                      "        - {name: p5, in: header}\n"
                      "        - {name: p40, in: query}\n"
                      "      responses: {'200': {description: ok}}\n");
    spec_registry *reg;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, "many.yaml", b.data, b.len, NULL, &err), 0);
    core_buf_free(&b);
    const spec_operation *o = &spec_registry_api(reg, 0)->ops[0];
    assert_int_equal(o->n_params, 42);
    assert_string_equal(o->params[5].description, "overridden");
    assert_string_equal(o->params[6].description, "path 6");
    assert_string_equal(o->params[40].in, "header");
    assert_string_equal(o->params[41].name, "p40");
    spec_registry_free(reg);
}

static void test_bodies_responses_security_tags(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore30.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *get = op(api, "getPet"), *del = op(api, "DELETE /pets/{petId}"),
                         *post = op(api, "POST /pets");
    /* requestBody by $ref */
    assert_null(get->body);
    assert_non_null(post->body);
    assert_true(post->body->required);
    assert_string_equal(post->body->description, "the pet to add");
    assert_int_equal(post->body->n_media, 2);
    assert_string_equal(post->body->media[1].type, "application/xml");
    assert_int_equal(spec_schema_index(api, post->body->media[0].schema),
                     schema_named(api, "NewPet"));
    /* responses: inline and by $ref, with headers */
    assert_int_equal(get->n_responses, 2);
    assert_string_equal(get->responses[0].status, "200");
    assert_string_equal(get->responses[0].description, "the pet");
    assert_non_null(jt_get(get->responses[0].headers.node, "X-Next"));
    assert_string_equal(get->responses[1].status, "default");
    assert_string_equal(get->responses[1].description, "an error");
    assert_int_equal(spec_schema_index(api, get->responses[1].media[0].schema),
                     schema_named(api, "Error"));
    /* security: the document's, unless the operation has its own (even empty) */
    assert_int_equal(get->security.node->type, JT_ARRAY);
    assert_non_null(jt_get(jt_at(get->security.node, 0), "api_key"));
    assert_int_equal(del->security.node->len, 0);
    /* tags: declared ones with descriptions, then ones only operations use */
    assert_int_equal(api->n_tags, 2);
    assert_string_equal(api->tags[0].name, "pets");
    assert_string_equal(api->tags[0].description, "Everything about pets");
    assert_string_equal(api->tags[1].name, "admin");
    assert_null(api->tags[1].description);
    assert_int_equal(get->n_tags, 1);
    assert_string_equal(get->tags[0], "pets");
    spec_registry_free(reg);
}

static void test_schema_graph(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore30.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    static const char *const names[] = {"NewPet", "Pet",    "Owner", "Tree",
                                        "Animal", "Cursor", "Error", "Unused"};
    assert_int_equal(api->n_schemas, 8);
    for (size_t i = 0; i < 8; i++) {
        assert_string_equal(api->schemas[i].name, names[i]);
        assert_true(api->schemas[i].component);
    }
    assert_string_equal(api->schemas[1].id, "pet-store:Pet");
    assert_string_equal(api->schemas[1].pointer, "/components/schemas/Pet");
    /* edges: Pet → NewPet (allOf); Animal → Pet, Owner (oneOf and the mapping) */
    assert_int_equal(api->schemas[1].n_refs, 1);
    assert_int_equal(api->schemas[1].refs[0], 0);
    assert_int_equal(api->schemas[4].n_refs, 2);
    assert_int_equal(api->schemas[4].refs[0], 1);
    assert_int_equal(api->schemas[4].refs[1], 2);
    /* operation → schema edges: media first, then headers */
    const spec_operation *get = op(api, "getPet");
    assert_int_equal(get->n_schemas, 3);
    assert_int_equal(get->schemas[0], 1); /* Pet */
    assert_int_equal(get->schemas[1], 5); /* Cursor (a header) */
    assert_int_equal(get->schemas[2], 6); /* Error (a response by $ref) */
    const spec_operation *post = op(api, "POST /pets");
    assert_int_equal(post->n_schemas, 2); /* NewPet twice (two media types), Pet inline */
    /* used by: getPet and POST reach Pet, NewPet, Owner; nobody reaches Animal */
    static const unsigned used[] = {2, 2, 2, 1, 0, 1, 1, 0};
    for (size_t i = 0; i < 8; i++) assert_int_equal(api->schemas[i].used_by, used[i]);
    spec_registry_free(reg);
}

static void test_allof_merge(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore30.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    core_arena *arena = core_arena_new(0);
    spec_loc merged;
    assert_int_equal(spec_schema_merge_allof(api, api->schemas[1].node, arena, &merged), 0);
    const jt_node *props = jt_get(merged.node, "properties");
    assert_int_equal(props->len, 4);
    assert_string_equal(props->u.members[0].key, "name");
    assert_null(jt_get_str(jt_get(props, "name"), "description")); /* the first one wins */
    assert_non_null(jt_get(props, "owner"));
    assert_non_null(jt_get(props, "id"));
    const jt_node *req = jt_get(merged.node, "required");
    assert_int_equal(req->len, 2);
    assert_string_equal(jt_str(jt_at(req, 0)), "name");
    assert_string_equal(jt_str(jt_at(req, 1)), "id");
    assert_string_equal(jt_get_str(merged.node, "description"), "a pet with an id");
    assert_string_equal(jt_get_str(merged.node, "type"), "object");
    assert_null(jt_get(merged.node, "allOf"));
    /* owner still is a $ref to follow */
    assert_int_equal(spec_schema_index(api, (spec_loc){jt_get(props, "owner"), merged.doc}), 2);
    /* oneOf/discriminator stay alternatives: no allOf, the schema itself */
    assert_int_equal(spec_schema_merge_allof(api, api->schemas[4].node, arena, &merged), 0);
    assert_ptr_equal(merged.node, api->schemas[4].node.node);
    assert_non_null(jt_get(merged.node, "oneOf"));
    /* through a $ref */
    const spec_operation *get = op(api, "getPet");
    assert_int_equal(
        spec_schema_merge_allof(api, get->responses[0].media[0].schema, arena, &merged), 0);
    assert_int_equal(jt_get(merged.node, "properties")->len, 4);
    core_arena_free(arena);
    spec_registry_free(reg);
}

static void test_allof_cycle_stops(void **state)
{
    (void)state;
    const char *doc = "{\"openapi\": \"3.0.0\", \"paths\": {}, \"components\": {\"schemas\": {"
                      "\"A\": {\"allOf\": [{\"$ref\": \"#/components/schemas/B\"}, "
                      "{\"properties\": {\"a\": {}}}]},"
                      "\"B\": {\"allOf\": [{\"$ref\": \"#/components/schemas/A\"}, "
                      "{\"properties\": {\"b\": {}}, \"required\": [\"b\"]}]}}}}";
    spec_registry *reg;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, "cyc.json", doc, strlen(doc), NULL, &err), 0);
    const spec_api *api = spec_registry_api(reg, 0);
    core_arena *arena = core_arena_new(0);
    spec_loc merged;
    assert_int_equal(spec_schema_merge_allof(api, api->schemas[0].node, arena, &merged), 0);
    assert_int_equal(jt_get(merged.node, "properties")->len, 2);
    assert_int_equal(api->n_cycles, 1);
    core_arena_free(arena);
    spec_registry_free(reg);
}

static void test_swagger20(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("swagger20.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_int_equal(api->major, 2);
    assert_string_equal(api->spec_version, "2.0");
    assert_int_equal(api->diags.n, 0);
    /* host/basePath/schemes → servers */
    assert_int_equal(api->n_servers, 2);
    assert_string_equal(api->servers[0].url, "https://api.example.com/v2");
    assert_string_equal(api->servers[1].url, "http://api.example.com/v2");
    /* definitions → component schemas */
    assert_int_equal(api->n_schemas, 2);
    assert_string_equal(api->schemas[0].name, "File");
    assert_string_equal(api->schemas[0].pointer, "/definitions/File");
    assert_true(api->schemas[0].in_cycle);
    assert_int_equal(api->n_cycles, 1);
    assert_int_equal(api->n_ops, 3);

    /* a body parameter → requestBody with the consumed media types */
    const spec_operation *put = op(api, "replaceFile");
    assert_int_equal(put->n_params, 1);
    assert_string_equal(put->params[0].name, "id");
    assert_string_equal(jt_get_str(put->params[0].schema.node, "type"), "string");
    assert_non_null(put->body);
    assert_true(put->body->required);
    assert_string_equal(put->body->description, "the new file");
    assert_int_equal(put->body->n_media, 1);
    assert_string_equal(put->body->media[0].type, "application/json");
    assert_int_equal(spec_schema_index(api, put->body->media[0].schema), 0);
    assert_non_null(jt_pointer(put->body->node.node, "/content/application~1json/schema"));
    /* responses → one media type per produced type; #/responses → a component */
    assert_int_equal(put->n_responses, 2);
    assert_int_equal(put->responses[0].n_media, 2);
    assert_string_equal(put->responses[0].media[1].type, "application/xml");
    assert_string_equal(jt_get_str(jt_get(put->responses[0].media[0].node.node, "example"), "id"),
                        "1");
    assert_null(jt_get(put->responses[0].media[1].node.node, "example"));
    assert_string_equal(put->responses[1].description, "not found");
    assert_int_equal(spec_schema_index(api, put->responses[1].media[0].schema), 1);

    /* formData → a multipart body whose schema is an object of the fields */
    const spec_operation *up = op(api, "uploadFile");
    assert_int_equal(up->n_params, 2); /* id (path level) and limit (#/parameters) */
    assert_non_null(param(up, "limit", "query"));
    assert_non_null(up->body);
    assert_true(up->body->required);
    assert_int_equal(up->body->n_media, 1);
    assert_string_equal(up->body->media[0].type, "multipart/form-data");
    const jt_node *schema = up->body->media[0].schema.node;
    assert_string_equal(jt_get_str(schema, "type"), "object");
    const jt_node *content = jt_pointer(schema, "/properties/content");
    assert_string_equal(jt_get_str(content, "type"), "string");
    assert_string_equal(jt_get_str(content, "format"), "binary");
    assert_string_equal(jt_get_str(content, "description"), "the bytes");
    assert_null(jt_get(content, "in"));
    assert_null(jt_get(content, "name"));
    assert_non_null(jt_pointer(schema, "/properties/note"));
    assert_int_equal(jt_get(schema, "required")->len, 1);
    assert_string_equal(jt_str(jt_at(jt_get(schema, "required"), 0)), "content");
    /* a form that does not say how it is sent: urlencoded */
    const spec_operation *form = op(api, "sendForm");
    assert_string_equal(form->body->media[0].type, "application/x-www-form-urlencoded");
    assert_int_equal(form->n_params, 0);
    /* the schema graph sees through the synthesised nodes */
    assert_int_equal(put->n_schemas, 2);
    assert_int_equal(api->schemas[0].used_by, 1);
    assert_int_equal(api->schemas[1].used_by, 1);
    spec_registry_free(reg);
}

static void test_oas31(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("oas31.json");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_string_equal(api->spec_version, "3.1.0");
    assert_int_equal(api->diags.n, 0);
    /* webhooks are not paths */
    assert_int_equal(api->n_ops, 1);
    assert_string_equal(api->ops[0].id, "three-one:GET /things");
    /* a $ref into $defs is a schema of its own; Thing ↔ Part is a cycle */
    assert_int_equal(api->n_schemas, 2);
    assert_string_equal(api->schemas[1].name, "Thing.$defs.Part");
    assert_false(api->schemas[1].component);
    assert_string_equal(api->schemas[1].pointer, "/components/schemas/Thing/$defs/Part");
    assert_true(api->schemas[0].in_cycle && api->schemas[1].in_cycle);
    assert_int_equal(api->n_cycles, 1);
    assert_int_equal(api->schemas[0].used_by, 1);
    /* type arrays are left as written */
    assert_int_equal(jt_get(api->schemas[0].node.node, "type")->type, JT_ARRAY);
    spec_registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_operations_and_ids),
        cmocka_unit_test(test_path_level_parameters),
        cmocka_unit_test(test_string_booleans),
        cmocka_unit_test(test_many_parameters),
        cmocka_unit_test(test_bodies_responses_security_tags),
        cmocka_unit_test(test_schema_graph),
        cmocka_unit_test(test_allof_merge),
        cmocka_unit_test(test_allof_cycle_stops),
        cmocka_unit_test(test_swagger20),
        cmocka_unit_test(test_oas31),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
