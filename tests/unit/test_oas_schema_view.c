/* Tests for the typed schema view (schema_view.c): $ref chains, cycles, allOf merging,
   the guard, the bounded walk and hostile schemas (deep, shared, huge enums); and the typed
   questions beside it (a property by name, types, null; view_mcp.c: an operation's MCP kind;
   tree_keys.c: the roles of the keys of a raw tree; view_params.c: parameter styles and
   examples; view_servers.c: a server variable's default). */
#include "testutil.h"

#include "oas/oas.h"

#include <stdio.h>
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
    return reg;
}

static spec_loc schema_loc(const spec_api *api, const char *name)
{
    for (size_t i = 0; i < api->n_schemas; i++)
        if (!strcmp(api->schemas[i].name, name)) return api->schemas[i].node;
    fail_msg("no schema %s", name);
    return (spec_loc){0};
}

#define HEAD "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{},"

static const char *DOC =
    HEAD "\"components\":{\"schemas\":{"
         "\"A\":{\"$ref\":\"#/components/schemas/B\"},"
         "\"B\":{\"$ref\":\"#/components/schemas/C\"},"
         "\"C\":{\"type\":\"string\",\"format\":\"uuid\",\"enum\":[\"x\",\"y\"],\"minLength\":2,"
         "\"pattern\":\"^[a-z]+$\",\"nullable\":true,\"readOnly\":true,\"description\":\"c\"},"
         "\"Node\":{\"type\":\"object\",\"required\":[\"next\"],\"properties\":{"
         "\"next\":{\"$ref\":\"#/components/schemas/Node\"},\"v\":{\"type\":\"integer\"}}},"
         "\"Base\":{\"type\":\"object\",\"required\":[\"id\"],\"properties\":{"
         "\"id\":{\"type\":\"string\"},\"name\":{\"type\":\"string\",\"description\":\"base\"}}},"
         "\"Pet\":{\"allOf\":[{\"$ref\":\"#/components/schemas/Base\"},{\"required\":[\"id\","
         "\"tag\"],\"properties\":{\"name\":{\"type\":\"integer\"},\"tag\":{\"type\":\"string\"}}},"
         "{\"$ref\":\"#/components/schemas/Pet\"}]},"
         "\"Loop1\":{\"$ref\":\"#/components/schemas/Loop2\"},"
         "\"Loop2\":{\"$ref\":\"#/components/schemas/Loop1\"},"
         "\"Dangling\":{\"$ref\":\"#/components/schemas/Nowhere\"},"
         "\"Alt\":{\"oneOf\":[],\"anyOf\":[{\"type\":\"string\"},{\"type\":\"array\",\"items\":"
         "{\"enum\":[1,2]}}]}}}}";

static void test_ref_chain_and_keywords(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_schema_view v;
    assert_int_equal(spec_schema_view_open(api, schema_loc(api, "A"), NULL, &v), 0);
    assert_string_equal(v.ref, "#/components/schemas/B");
    assert_false(v.unresolved);
    assert_string_equal(v.type, "string");
    assert_string_equal(v.format, "uuid");
    assert_string_equal(v.description, "c");
    assert_true(v.nullable && v.read_only && !v.write_only);
    assert_non_null(spec_schema_view_enum(&v));
    assert_int_equal(spec_schema_view_enum(&v)->len, 2);
    assert_int_equal(v.kw[SPEC_KW_MIN_LENGTH]->u.i, 2);
    assert_string_equal(jt_str(v.kw[SPEC_KW_PATTERN]), "^[a-z]+$");
    assert_null(v.kw[SPEC_KW_MAXIMUM]);
    assert_string_equal(spec_schema_kw_name(SPEC_KW_ADDITIONAL_PROPERTIES), "additionalProperties");
    assert_null(spec_schema_kw_name(SPEC_KW_COUNT));
    for (int k = 0; k < SPEC_KW_COUNT; k++) assert_non_null(spec_schema_kw_name(k));
    spec_registry_free(reg);
}

static void test_cycles_and_dangling(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_schema_view v;
    assert_int_equal(spec_schema_view_open(api, schema_loc(api, "Loop1"), NULL, &v), APIDEX_EREF);
    assert_true(v.unresolved);
    assert_null(v.loc.node);
    assert_null(v.kw[SPEC_KW_TYPE]);
    assert_int_equal(spec_schema_view_open(api, schema_loc(api, "Dangling"), NULL, &v),
                     APIDEX_EREF);
    assert_string_equal(v.ref, "#/components/schemas/Nowhere");
    /* a self-referencing object is a schema like any other; its property is the cycle */
    assert_int_equal(spec_schema_view_open(api, schema_loc(api, "Node"), NULL, &v), 0);
    assert_true(spec_schema_view_has_properties(&v));
    assert_true(spec_schema_view_requires(&v, "next", 4));
    assert_false(spec_schema_view_requires(&v, "v", 1));
    assert_false(spec_schema_view_requires(&v, "nex", 3));
    spec_schema_view none;
    assert_int_equal(spec_schema_view_open(api, (spec_loc){0}, NULL, &none), 0);
    assert_null(none.loc.node);
    assert_int_equal(none.index, -1);
    spec_registry_free(reg);
}

static void test_allof_merge(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC);
    const spec_api *api = spec_registry_api(reg, 0);
    core_arena *arena = core_arena_new(0);
    spec_schema_view v;
    assert_int_equal(spec_schema_view_open(api, schema_loc(api, "Pet"), arena, &v), 0);
    assert_non_null(v.all_of);
    assert_int_equal(v.all_of->len, 3);
    const jt_node *p = v.kw[SPEC_KW_PROPERTIES];
    assert_non_null(p);
    /* duplicated properties: the first member wins; the self-reference adds nothing */
    assert_int_equal(p->len, 3);
    assert_string_equal(jt_get_str(jt_get(p, "name"), "type"), "string");
    assert_non_null(jt_get(p, "tag"));
    /* required lists united without duplicates */
    assert_int_equal(v.kw[SPEC_KW_REQUIRED]->len, 2);
    assert_true(spec_schema_view_requires(&v, "tag", 3));
    assert_null(v.kw[SPEC_KW_ALL_OF]);
    /* no arena: not merged, the allOf array is a keyword */
    assert_int_equal(spec_schema_view_open(api, schema_loc(api, "Pet"), NULL, &v), 0);
    assert_null(v.all_of);
    assert_non_null(v.kw[SPEC_KW_ALL_OF]);
    assert_null(v.kw[SPEC_KW_PROPERTIES]);
    core_arena_free(arena);
    spec_registry_free(reg);
}

static void test_alternatives_and_node_views(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_schema_view v;
    assert_int_equal(spec_schema_view_open(api, schema_loc(api, "Alt"), NULL, &v), 0);
    bool any = false;
    const jt_node *alt = spec_schema_view_alternatives(&v, &any);
    assert_true(any); /* the empty oneOf does not count */
    assert_int_equal(alt->len, 2);
    spec_schema_view item;
    spec_schema_view_open(api, spec_schema_view_at(&v, alt->u.items[1]), NULL, &item);
    assert_true(spec_schema_view_is_array(&item));
    assert_int_equal(spec_schema_view_enum(&item)->len, 2); /* the items' enum */
    /* a free-standing node: nothing followed */
    spec_schema_view_node(schema_loc(api, "A").node, &v);
    assert_string_equal(v.ref, "#/components/schemas/B");
    assert_null(v.type);
    assert_non_null(v.kw[SPEC_KW_REF]);
    spec_schema_view_node(NULL, &v);
    assert_null(v.loc.node);
    spec_registry_free(reg);
}

/* The keywords read in one pass over the members are what a look-up of each finds, in
   small objects and in hashed (16+ members) ones, duplicated keys included. */
static void test_keywords_as_looked_up(void **state)
{
    (void)state;
    static const char *const docs[] = {
        HEAD "\"components\":{\"schemas\":{\"S\":{\"type\":\"string\",\"type\":\"integer\","
             "\"maxLength\":3,\"x-type\":1,\"minLength\":1,\"minLength\":2}}}}",
        HEAD
        "\"components\":{\"schemas\":{\"S\":{\"x-a\":1,\"x-b\":1,\"x-c\":1,\"x-d\":1,"
        "\"x-e\":1,\"x-f\":1,\"x-g\":1,\"x-h\":1,\"x-i\":1,\"x-j\":1,\"x-k\":1,\"x-l\":1,"
        "\"enum\":[1],\"enum\":[2],\"items\":{},\"$ref2\":1,\"format\":\"f\",\"pattern\":\"p\","
        "\"required\":[\"a\"],\"uniqueItems\":true,\"readOnly\":true,\"readOnly\":false}}}}",
    };
    for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
        spec_registry *reg = load_text(docs[d]);
        const spec_api *api = spec_registry_api(reg, 0);
        spec_schema_view v;
        assert_int_equal(spec_schema_view_open(api, schema_loc(api, "S"), NULL, &v), 0);
        for (int k = 0; k < SPEC_KW_COUNT; k++)
            assert_ptr_equal(v.kw[k], jt_get(v.loc.node, spec_schema_kw_name((spec_schema_kw)k)));
        assert_non_null(v.kw[d ? SPEC_KW_ENUM : SPEC_KW_TYPE]);
        spec_registry_free(reg);
    }
}

static void test_guard(void **state)
{
    (void)state;
    spec_schema_guard g;
    spec_schema_guard_init(&g, 3);
    assert_false(spec_schema_guard_has(&g, 1));
    assert_true(spec_schema_guard_push(&g, 1));
    assert_true(spec_schema_guard_push(&g, -1));
    assert_true(spec_schema_guard_push(&g, 2));
    assert_false(spec_schema_guard_push(&g, 3)); /* full */
    assert_true(spec_schema_guard_has(&g, 1));
    assert_false(spec_schema_guard_has(&g, -1)); /* inline schemas never form a cycle */
    spec_schema_guard_pop(&g);
    assert_false(spec_schema_guard_has(&g, 2));
    spec_schema_guard_pop(&g);
    spec_schema_guard_pop(&g);
    spec_schema_guard_pop(&g); /* empty: a no-op */
    assert_int_equal(g.n, 0);
    spec_schema_guard_init(&g, 1000);
    assert_int_equal(g.cap, SPEC_SCHEMA_GUARD_MAX);
}

typedef struct counts {
    size_t schema, circular, unresolved, deep;
    unsigned max_depth;
    int stop_after;
} counts;

static int count_visit(const spec_schema_view *v, spec_schema_kw via, const char *name,
                       unsigned depth, spec_schema_visit what, void *ctx)
{
    (void)v;
    (void)via;
    (void)name;
    counts *c = ctx;
    if (depth > c->max_depth) c->max_depth = depth;
    switch (what) {
    case SPEC_VISIT_SCHEMA:
        c->schema++;
        break;
    case SPEC_VISIT_CIRCULAR:
        c->circular++;
        break;
    case SPEC_VISIT_UNRESOLVED:
        c->unresolved++;
        break;
    case SPEC_VISIT_TOO_DEEP:
        c->deep++;
        break;
    }
    if (c->stop_after && (int)c->schema >= c->stop_after) return APIDEX_EINVAL;
    return 0;
}

static void test_walk_cycles(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC);
    const spec_api *api = spec_registry_api(reg, 0);
    counts c = {0};
    assert_int_equal(spec_schema_walk(api, schema_loc(api, "Node"), 10, NULL, count_visit, &c), 0);
    assert_int_equal(c.schema, 2);   /* Node, v */
    assert_int_equal(c.circular, 1); /* next -> Node */
    counts d = {0};
    assert_int_equal(spec_schema_walk(api, schema_loc(api, "Loop1"), 10, NULL, count_visit, &d), 0);
    assert_int_equal(d.unresolved, 1);
    counts e = {.stop_after = 1};
    assert_int_equal(spec_schema_walk(api, schema_loc(api, "Node"), 10, NULL, count_visit, &e),
                     APIDEX_EINVAL);
    assert_int_equal(spec_schema_walk(NULL, schema_loc(api, "Node"), 10, NULL, count_visit, &e),
                     APIDEX_EINVAL);
    spec_registry_free(reg);
}

/* 200 nested inline objects (400 JSON levels, under the parser limit), 40 schemas each referencing
   the next twice (2^40 paths) and a 100000-value enum: the walk ends within its depth and budget,
   the view reads the enum. */
static void test_hostile(void **state)
{
    (void)state;
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(core_buf_puts(&b, HEAD "\"components\":{\"schemas\":{\"Deep\":"), 0);
    for (int i = 0; i < 200; i++) assert_int_equal(core_buf_puts(&b, "{\"properties\":{\"a\":"), 0);
    assert_int_equal(core_buf_puts(&b, "{}"), 0);
    for (int i = 0; i < 200; i++) assert_int_equal(core_buf_puts(&b, "}}"), 0);
    for (int i = 0; i < 40; i++)
        assert_int_equal(core_buf_printf(&b,
                                         ",\"S%d\":{\"properties\":{\"l\":{\"$ref\":\"#/components/"
                                         "schemas/S%d\"},\"r\":{\"$ref\":\"#/components/schemas/"
                                         "S%d\"}}}",
                                         i, i + 1, i + 1),
                         0);
    assert_int_equal(core_buf_puts(&b, ",\"S40\":{\"type\":\"string\"},\"Big\":{\"enum\":["), 0);
    for (int i = 0; i < 100000; i++)
        assert_int_equal(core_buf_printf(&b, "%s%d", i ? "," : "", i), 0);
    assert_int_equal(core_buf_puts(&b, "]}}}}"), 0);
    spec_registry *reg = load_text(b.data);
    core_buf_free(&b);
    const spec_api *api = spec_registry_api(reg, 0);
    counts c = {0};
    assert_int_equal(spec_schema_walk(api, schema_loc(api, "Deep"), 1000, NULL, count_visit, &c),
                     0);
    assert_true(c.max_depth <= SPEC_SCHEMA_GUARD_MAX);
    assert_int_equal(c.deep, 1);
    counts s = {0};
    assert_int_equal(spec_schema_walk(api, schema_loc(api, "S0"), 60, NULL, count_visit, &s),
                     APIDEX_ELIMIT);
    assert_true(s.schema <= SPEC_SCHEMA_WALK_BUDGET);
    spec_schema_view v;
    assert_int_equal(spec_schema_view_open(api, schema_loc(api, "Big"), NULL, &v), 0);
    assert_int_equal(spec_schema_view_enum(&v)->len, 100000);
    spec_registry_free(reg);
}

/* ---------------------------------------------------------------- view_chunk.c */

static const char *MCP_DOC =
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
    spec_registry *reg = load_text(MCP_DOC);
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *op = op_named(api, "tool");
    spec_schema_view v;
    assert_int_equal(spec_schema_view_open(api, op->body->media[0].schema, NULL, &v), 0);
    const jt_node *id = spec_schema_view_property(&v, "id").node;
    assert_non_null(id);
    assert_string_equal(jt_get_str(id, "type"), "string");
    assert_null(spec_schema_view_property(&v, "missing").node);
    assert_null(spec_schema_view_property(&v, NULL).node);
    spec_schema_view none;
    spec_schema_view_node(NULL, &none);
    assert_null(spec_schema_view_property(&none, "id").node);
    spec_registry_free(reg);
}

/* The name of the first MCP mark op carries, of any value (spec_mcp_entry.marked). */
static const char *marked_name(const spec_operation *op)
{
    spec_mcp_entry e;
    spec_operation_mcp(op, &e);
    return spec_mcp_kind_name(e.marked);
}

static void test_mcp_kind(void **state)
{
    (void)state;
    spec_registry *reg = load_text(MCP_DOC);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_null(marked_name(op_named(api, "plain")));
    assert_string_equal(marked_name(op_named(api, "tool")), "tool");
    /* written, whatever its value: chunking has always asked whether the key is there */
    assert_string_equal(marked_name(op_named(api, "res")), "resource");
    assert_string_equal(marked_name(op_named(api, "prompt")), "prompt");
    assert_null(marked_name(NULL));
    assert_null(spec_mcp_kind_name(SPEC_MCP_NONE));
    assert_null(spec_mcp_kind_name((spec_mcp_kind)99));
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

/* ---------------------------------------------------------------- the mock's questions
   (view_mock.c): properties by name, declared types, parameter styles, a response's
   examples and server variable defaults, on OAS 3.1 and Swagger 2.0 documents */

static const char *OAS31 =
    "{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},"
    "\"servers\":[{\"url\":\"https://{host}/v{major}\",\"variables\":{\"host\":{\"default\":"
    "\"api.example.com\"},\"major\":{\"enum\":[\"1\"]}}}],"
    "\"paths\":{\"/a\":{\"get\":{\"parameters\":[{\"name\":\"f\",\"in\":\"query\",\"style\":"
    "\"deepObject\",\"schema\":{\"type\":\"object\"}},{\"name\":\"g\",\"in\":\"query\","
    "\"schema\":{\"type\":\"string\"}}],\"responses\":{\"200\":{\"description\":\"ok\","
    "\"content\":{\"application/json\":{\"schema\":{\"$ref\":\"#/components/schemas/T\"},"
    "\"example\":{\"a\":1},\"examples\":{\"one\":{\"$ref\":\"#/components/examples/E\"}}},"
    "\"text/plain\":{\"schema\":{\"type\":\"string\"}}}}}}}},"
    "\"components\":{\"examples\":{\"E\":{\"value\":{\"a\":2}}},\"schemas\":{"
    "\"T\":{\"type\":[\"null\",\"object\"],\"properties\":{\"a\":{\"$ref\":"
    "\"#/components/schemas/N\"}}},"
    "\"N\":{\"type\":\"integer\",\"nullable\":true},"
    "\"Only\":{\"type\":[\"null\"]},\"Arr\":{\"items\":{}},\"Odd\":{\"type\":7}}}}";

static void test_schema_questions(void **state)
{
    (void)state;
    spec_registry *reg = load_text(OAS31);
    const spec_api *api = spec_registry_api(reg, 0);
    spec_schema_view v, p;
    assert_int_equal(spec_schema_view_open(api, schema_loc(api, "T"), NULL, &v), 0);
    assert_string_equal(spec_schema_view_first_type(&v), "object");
    assert_true(spec_schema_view_allows_null(&v));
    spec_loc a = spec_schema_view_property(&v, "a");
    assert_non_null(a.node);
    assert_ptr_equal(a.doc, v.loc.doc);
    assert_null(spec_schema_view_property(&v, "b").node);
    assert_int_equal(spec_schema_view_open(api, a, NULL, &p), 0); /* its $ref followed */
    assert_string_equal(spec_schema_view_first_type(&p), "integer");
    assert_true(spec_schema_view_allows_null(&p)); /* 3.0 nullable */
    assert_int_equal(spec_schema_view_open(api, schema_loc(api, "Only"), NULL, &v), 0);
    assert_null(spec_schema_view_first_type(&v));
    assert_true(spec_schema_view_allows_null(&v));
    const char *none[] = {"Arr", "Odd"};
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(spec_schema_view_open(api, schema_loc(api, none[i]), NULL, &v), 0);
        assert_null(spec_schema_view_first_type(&v));
        assert_false(spec_schema_view_allows_null(&v));
        assert_null(spec_schema_view_property(&v, "a").node);
    }
    spec_registry_free(reg);
}

static void test_params_examples_servers(void **state)
{
    (void)state;
    spec_registry *reg = load_text(OAS31);
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *op = &api->ops[0];
    assert_int_equal(op->n_params, 2);
    assert_string_equal(spec_param_serialization(&op->params[0]).style, "deepObject");
    assert_null(spec_param_serialization(&op->params[1]).style);
    assert_null(spec_param_serialization(&op->params[0]).collection_format);

    const spec_response *r = &op->responses[0];
    assert_int_equal(r->n_media, 2);
    const jt_node *ex[SPEC_MEDIA_EXAMPLES_MAX];
    assert_int_equal(spec_media_examples(api, r, &r->media[0], ex), 2);
    assert_int_equal(jt_get(ex[0], "a")->u.i, 1); /* the example, then the examples' first */
    assert_int_equal(jt_get(ex[1], "a")->u.i, 2); /* ($ref followed) */
    assert_int_equal(spec_media_examples(api, r, &r->media[1], ex), 0);
    assert_int_equal(spec_media_examples(api, NULL, NULL, ex), 0);

    spec_server_var var;
    assert_true(spec_server_var_find(api, 0, "host", &var));
    assert_string_equal(var.default_value, "api.example.com");
    assert_true(spec_server_var_find(api, 0, "major", &var));
    assert_null(var.default_value); /* no default */
    assert_false(spec_server_var_find(api, 0, "nope", &var));
    assert_null(var.default_value);
    assert_false(spec_server_var_find(api, 1, "host", &var));
    assert_null(var.default_value);
    spec_registry_free(reg);
}

static const char *SWAGGER =
    "{\"swagger\":\"2.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"host\":\"h\","
    "\"paths\":{\"/a\":{\"get\":{\"produces\":[\"application/json\"],\"parameters\":[{"
    "\"name\":\"ids\",\"in\":\"query\",\"type\":\"array\",\"items\":{\"type\":\"string\"},"
    "\"collectionFormat\":\"pipes\"}],\"responses\":{\"200\":{\"description\":\"ok\","
    "\"schema\":{\"type\":\"string\"},\"examples\":{\"application/json\":\"hi\"}}}}}}}";

static void test_swagger2(void **state)
{
    (void)state;
    spec_registry *reg = load_text(SWAGGER);
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *op = &api->ops[0];
    assert_string_equal(spec_param_serialization(&op->params[0]).collection_format, "pipes");
    assert_null(spec_param_serialization(&op->params[0]).style);
    const spec_response *r = &op->responses[0];
    assert_int_equal(r->n_media, 1);
    const jt_node *ex[SPEC_MEDIA_EXAMPLES_MAX];
    assert_int_equal(spec_media_examples(api, r, &r->media[0], ex), 1);
    assert_string_equal(jt_str(ex[0]), "hi");
    spec_server_var var;
    assert_false(spec_server_var_find(api, 0, "host", &var)); /* no servers written */
    assert_null(var.default_value);
    spec_registry_free(reg);
}

/* nullable and x-nullable schemas beside a plain one */
static const char *NULLABLE_DOC =
    HEAD "\"components\":{\"schemas\":{\"N\":{\"type\":\"string\",\"x-nullable\":true},"
         "\"M\":{\"type\":\"string\",\"nullable\":true},\"P\":{\"type\":\"string\"}}}}";

static void test_nullable_keyword_or_extension(void **state)
{
    (void)state;
    spec_registry *reg = load_text(NULLABLE_DOC);
    const spec_api *api = spec_registry_api(reg, 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ref_chain_and_keywords),
        cmocka_unit_test(test_cycles_and_dangling),
        cmocka_unit_test(test_allof_merge),
        cmocka_unit_test(test_alternatives_and_node_views),
        cmocka_unit_test(test_keywords_as_looked_up),
        cmocka_unit_test(test_guard),
        cmocka_unit_test(test_walk_cycles),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_property_by_name),
        cmocka_unit_test(test_mcp_kind),
        cmocka_unit_test(test_tree_key_roles),
        cmocka_unit_test(test_tree_param_in_body),
        cmocka_unit_test(test_schema_questions),
        cmocka_unit_test(test_params_examples_servers),
        cmocka_unit_test(test_nullable_keyword_or_extension),
        cmocka_unit_test(test_swagger2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
