/* The data-flow analysis on small specs written here: which inputs, which producers (readers,
 * never destroyers or updaters, creations marked, echoes excluded), weak producers only when
 * nothing better exists, the per-input cap (edges grow linearly), sub-resource containers,
 * and the operation facts (action, destructive) read at index time. */
#include "testutil.h"

#include "flow/flow.h"
#include "oas/oas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct loaded {
    spec_registry *reg;
    const spec_api *api;
    flow_graph *df;
} loaded;

static loaded load(const char *text)
{
    loaded l = {0};
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &l.reg, &err), 0);
    if (spec_registry_add_text(l.reg, "t.yaml", text, strlen(text), NULL, &err))
        fail_msg("load: %s", err.message);
    l.api = spec_registry_api(l.reg, 0);
    assert_false(l.api->failed);
    if (flow_build(l.api, &l.df, &err)) fail_msg("dataflow: %s", err.message);
    return l;
}

static void unload(loaded *l)
{
    flow_free(l->df);
    spec_registry_free(l->reg);
}

static long op_index(const loaded *l, const char *method, const char *path)
{
    for (size_t i = 0; i < l->api->n_ops; i++)
        if (!strcmp(l->api->ops[i].method, method) && !strcmp(l->api->ops[i].path, path))
            return (long)i;
    fail_msg("no operation %s %s", method, path);
    return -1;
}

/* The edge consumer.param <- producer, or NULL. */
static const flow_edge *edge(const loaded *l, const char *cm, const char *cp, const char *param,
                             const char *pm, const char *pp)
{
    long c = op_index(l, cm, cp), p = op_index(l, pm, pp);
    for (size_t i = 0; i < l->df->n_edges; i++) {
        const flow_edge *e = &l->df->edges[i];
        if (e->consumer == (size_t)c && e->producer == (size_t)p &&
            !strcmp(l->df->inputs[c][e->input].name, param))
            return e;
    }
    return NULL;
}

static const char shop[] = "openapi: 3.0.3\n"
                           "info: {title: Shop, version: '1'}\n"
                           "paths:\n"
                           "  /orders:\n"
                           "    get:\n"
                           "      summary: List orders\n"
                           "      parameters: [{name: q, in: query, schema: {type: string}}]\n"
                           "      responses:\n"
                           "        '200':\n"
                           "          description: ok\n"
                           "          content:\n"
                           "            application/json:\n"
                           "              schema:\n"
                           "                type: object\n"
                           "                properties:\n"
                           "                  data: {type: array, items: {$ref: "
                           "'#/components/schemas/Order'}}\n"
                           "    post:\n"
                           "      summary: Create an order\n"
                           "      responses:\n"
                           "        '201': {description: ok, content: {application/json: "
                           "{schema: {$ref: '#/components/schemas/Order'}}}}\n"
                           "  /orders/{order_id}:\n"
                           "    get:\n"
                           "      summary: Get an order\n"
                           "      parameters: [{name: order_id, in: path, required: true, "
                           "schema: {type: string}}]\n"
                           "      responses:\n"
                           "        '200': {description: ok, content: {application/json: "
                           "{schema: {$ref: '#/components/schemas/Order'}}}}\n"
                           "    patch:\n"
                           "      summary: Update an order\n"
                           "      parameters: [{name: order_id, in: path, required: true, "
                           "schema: {type: string}}]\n"
                           "      responses:\n"
                           "        '200': {description: ok, content: {application/json: "
                           "{schema: {$ref: '#/components/schemas/Order'}}}}\n"
                           "    delete:\n"
                           "      summary: Delete an order\n"
                           "      parameters: [{name: order_id, in: path, required: true, "
                           "schema: {type: string}}]\n"
                           "      responses:\n"
                           "        '200': {description: ok, content: {application/json: "
                           "{schema: {$ref: '#/components/schemas/Order'}}}}\n"
                           "  /orders/{order_id}/cancel:\n"
                           "    post:\n"
                           "      summary: Cancel an order\n"
                           "      parameters: [{name: order_id, in: path, required: true, "
                           "schema: {type: string}}]\n"
                           "      responses:\n"
                           "        '200': {description: ok, content: {application/json: "
                           "{schema: {$ref: '#/components/schemas/Order'}}}}\n"
                           "  /orders/{order_id}/items:\n"
                           "    get:\n"
                           "      summary: Items of an order\n"
                           "      parameters: [{name: order_id, in: path, required: true, "
                           "schema: {type: string}}]\n"
                           "      responses:\n"
                           "        '200':\n"
                           "          description: ok\n"
                           "          content:\n"
                           "            application/json:\n"
                           "              schema:\n"
                           "                type: object\n"
                           "                properties:\n"
                           "                  id: {type: string}\n"
                           "                  products:\n"
                           "                    type: array\n"
                           "                    items: {type: object, properties: {id: {type: "
                           "string}, name: {type: string}}}\n"
                           "  /products/{product_id}:\n"
                           "    get:\n"
                           "      summary: Get a product\n"
                           "      parameters:\n"
                           "        - {name: product_id, in: path, required: true, schema: "
                           "{type: string}}\n"
                           "        - {name: currency, in: query, required: true, schema: "
                           "{type: string, enum: [EUR, USD]}}\n"
                           "      responses: {'200': {description: ok}}\n"
                           "  /customers:\n"
                           "    get:\n"
                           "      summary: List customers\n"
                           "      responses:\n"
                           "        '200':\n"
                           "          description: ok\n"
                           "          content:\n"
                           "            application/json:\n"
                           "              schema:\n"
                           "                type: array\n"
                           "                items:\n"
                           "                  type: object\n"
                           "                  properties:\n"
                           "                    id: {type: string}\n"
                           "                    last_order: {type: object, properties: {id: "
                           "{type: string}}}\n"
                           "  /keys:\n"
                           "    post:\n"
                           "      summary: Add a key\n"
                           "      requestBody:\n"
                           "        content:\n"
                           "          application/json:\n"
                           "            schema: {type: object, required: [public_key], "
                           "properties: {public_key: {type: string}}}\n"
                           "      responses: {'201': {description: ok}}\n"
                           "components:\n"
                           "  schemas:\n"
                           "    Order:\n"
                           "      type: object\n"
                           "      properties: {id: {type: string}, total: {type: number}}\n";

static void test_producers_read_or_create(void **state)
{
    (void)state;
    loaded l = load(shop);
    /* the list reads orders; the creation is marked as one */
    const flow_edge *e = edge(&l, "GET", "/orders/{order_id}", "order_id", "GET", "/orders");
    assert_non_null(e);
    assert_int_equal(e->features & FLOW_KIND_MASK, FLOW_KIND_LISTS);
    assert_true(e->features & FLOW_F_PARENT); /* the item's own collection */
    assert_false(e->features & FLOW_F_CREATES);
    e = edge(&l, "GET", "/orders/{order_id}", "order_id", "POST", "/orders");
    assert_non_null(e);
    assert_true(e->features & FLOW_F_CREATES);
    /* never a delete, a cancel, an update, or an operation that needs the order itself */
    assert_null(
        edge(&l, "GET", "/orders/{order_id}/items", "order_id", "DELETE", "/orders/{order_id}"));
    assert_null(edge(&l, "GET", "/orders/{order_id}/items", "order_id", "POST",
                     "/orders/{order_id}/cancel"));
    assert_null(
        edge(&l, "GET", "/orders/{order_id}/items", "order_id", "PATCH", "/orders/{order_id}"));
    assert_null(
        edge(&l, "GET", "/orders/{order_id}/items", "order_id", "GET", "/orders/{order_id}"));
    /* an order met only inside a customer is not a producer while the list of orders is */
    assert_null(edge(&l, "GET", "/orders/{order_id}", "order_id", "GET", "/customers"));
    unload(&l);
}

static void test_inputs(void **state)
{
    (void)state;
    loaded l = load(shop);
    long p = op_index(&l, "GET", "/products/{product_id}");
    /* the product id is an input; a currency from an enum is no identifier */
    assert_int_equal(l.df->n_inputs[p], 1);
    assert_string_equal(l.df->inputs[p][0].name, "product_id");
    assert_string_equal(l.df->inputs[p][0].entity, "product");
    /* a public key in a body is a value, not a reference to anything */
    assert_int_equal(l.df->n_inputs[op_index(&l, "POST", "/keys")], 0);
    /* a sub-resource response holds its content: the order's products are listed, not
       nested, so the items endpoint produces product ids */
    const flow_edge *e =
        edge(&l, "GET", "/products/{product_id}", "product_id", "GET", "/orders/{order_id}/items");
    assert_non_null(e);
    assert_int_equal(e->features & FLOW_KIND_MASK, FLOW_KIND_LISTS);
    unload(&l);
}

/* An API of n collections that each list the same entity: the edges of one input stop at
   FLOW_MAX_PRODUCERS, so their number grows with the operations, not their square. */
static void test_edges_grow_linearly(void **state)
{
    (void)state;
    size_t counts[2] = {0, 0};
    const size_t sizes[2] = {40, 160};
    for (int round = 0; round < 2; round++) {
        size_t n = sizes[round];
        size_t cap = 4096 + n * 1024;
        char *text = malloc(cap);
        size_t len = (size_t)snprintf(text, cap,
                                      "openapi: 3.0.3\ninfo: {title: Big, version: '1'}\n"
                                      "paths:\n  /things/{thing_id}:\n    get:\n"
                                      "      parameters: [{name: thing_id, in: path, required: "
                                      "true, schema: {type: string}}]\n"
                                      "      responses: {'200': {description: ok}}\n");
        for (size_t i = 0; i < n; i++) {
            len += (size_t)snprintf(
                text + len, cap - len,
                "  /shelves%zu/things:\n    get:\n      responses:\n        '200':\n"
                "          description: ok\n          content:\n            application/json:\n"
                "              schema: {type: array, items: {type: object, properties: {id: "
                "{type: string}}}}\n"
                "  /shelves%zu/things/{thing_id}/tags:\n    get:\n"
                "      parameters: [{name: thing_id, in: path, required: true, schema: {type: "
                "string}}]\n      responses: {'200': {description: ok}}\n",
                i, i);
        }
        loaded l = load(text);
        counts[round] = l.df->n_edges;
        size_t per_input = 0;
        long c = op_index(&l, "GET", "/things/{thing_id}");
        for (size_t i = 0; i < l.df->n_edges; i++)
            per_input += l.df->edges[i].consumer == (size_t)c;
        assert_int_equal(per_input, FLOW_MAX_PRODUCERS);
        unload(&l);
        free(text);
    }
    /* four times the operations: about four times the edges, not sixteen */
    assert_true(counts[1] <= counts[0] * 5);
}

static void test_operation_facts(void **state)
{
    (void)state;
    loaded l = load(shop);
    text_analyzer *tw = text_analyzer_new();
    core_arena *a = core_arena_new(0);
    flow_op_facts f;
    struct {
        const char *method, *path;
        text_action action;
        bool destructive;
    } want[] = {
        {"GET", "/orders", TEXT_ACTION_READ, false},
        {"POST", "/orders", TEXT_ACTION_CREATE, false},
        {"PATCH", "/orders/{order_id}", TEXT_ACTION_UPDATE, false},
        {"DELETE", "/orders/{order_id}", TEXT_ACTION_DELETE, true},
        /* a POST whose summary cancels destroys something */
        {"POST", "/orders/{order_id}/cancel", TEXT_ACTION_DELETE, true},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const spec_operation *op = &l.api->ops[op_index(&l, want[i].method, want[i].path)];
        assert_int_equal(flow_op_read_facts(op, tw, a, &f), 0);
        assert_int_equal(f.action, want[i].action);
        assert_int_equal(f.destructive, want[i].destructive);
    }
    const spec_operation *list = &l.api->ops[op_index(&l, "GET", "/orders")];
    assert_int_equal(flow_op_read_facts(list, tw, a, &f), 0);
    assert_true(f.text_query && f.collection);
    /* the lexicon reads verbs by their stems, whatever the form */
    assert_int_equal(text_action_of_stem("retriev", 7), TEXT_ACTION_READ);
    assert_int_equal(text_action_of_stem("subscrib", 8), TEXT_ACTION_CREATE);
    assert_int_equal(text_action_of_stem("renam", 5), TEXT_ACTION_UPDATE);
    assert_int_equal(text_action_of_stem("revok", 5), TEXT_ACTION_DELETE);
    assert_int_equal(text_action_of_stem("zebra", 5), TEXT_ACTION_NONE);
    core_arena_free(a);
    text_analyzer_free(tw);
    unload(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_producers_read_or_create),
        cmocka_unit_test(test_inputs),
        cmocka_unit_test(test_edges_grow_linearly),
        cmocka_unit_test(test_operation_facts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
