/* Unit tests of the chunking strategies on the golden petstore fixture: ids, endpoint
 * mappings, hybrid schema chunks, cycles, filters in the renderings, windows. */
#include "oas_fixture.h"
#include "testutil.h"

#include "chunk/chunk.h"

#include <stdlib.h>
#include <string.h>

static const spec_api *api;

static int setup(void **state)
{
    return oas_fixture_open(state, "tests/golden/hybrid_petstore/petstore.yaml", &api);
}

static chunk_list *run(chunk_strategy s, size_t size, size_t overlap, unsigned filters)
{
    chunk_list *l = NULL;
    assert_int_equal(chunk_list_new(&l), 0);
    chunk_options opt = {.strategy = s, .size = size, .overlap = overlap};
    opt.prep.filters = filters;
    apidex_error err;
    assert_int_equal(chunk_api(api, &opt, l, &err), 0);
    /* Ids are unique. */
    for (size_t i = 0; i < l->n; i++)
        for (size_t j = i + 1; j < l->n; j++)
            assert_string_not_equal(l->items[i].id, l->items[j].id);
    return l;
}

static const chunk *find(const chunk_list *l, const char *id)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->items[i].id, id)) return &l->items[i];
    return NULL;
}

static void test_per_operation(void **state)
{
    (void)state;
    chunk_strategy per_op[] = {CHUNK_ENDPOINT_RE, CHUNK_ENDPOINT_RF, CHUNK_SUMMARY, CHUNK_QUERY,
                               CHUNK_HYBRID};
    for (size_t s = 0; s < sizeof per_op / sizeof per_op[0]; s++) {
        chunk_list *l = run(per_op[s], 0, 0, 0);
        size_t ops = 0;
        for (size_t i = 0; i < l->n; i++) {
            const chunk *c = &l->items[i];
            if (c->type == CHUNK_TYPE_SCHEMA) {
                assert_int_equal(c->n_endpoints, 0);
                continue;
            }
            assert_int_equal(c->type, CHUNK_TYPE_ENDPOINT);
            assert_int_equal(c->n_endpoints, 1);
            assert_string_equal(c->id, api->ops[ops].id);
            assert_string_equal(c->endpoints[0].op_id, api->ops[ops].id);
            assert_true(c->meta.tokens > 0);
            assert_non_null(c->text);
            ops++;
        }
        assert_int_equal(ops, api->n_ops);
        chunk_list_free(l);
    }
}

static void test_hybrid(void **state)
{
    (void)state;
    chunk_list *l = run(CHUNK_HYBRID, 0, 0, 0);
    const chunk *show = find(l, "pet-store:showPetById");
    assert_non_null(show);
    const char *c = show->content;
    assert_non_null(strstr(c, "GET /pets/{petId} - Info for a specific pet"));
    assert_non_null(strstr(c, "server: https://api.petstore.example.com/v1"));
    assert_non_null(strstr(c, "Auth: api_key (apiKey in header \"X-API-Key\")"));
    assert_non_null(strstr(c, "- petId (path, string, required): The id of the pet to retrieve"));
    /* allOf merged: fields of NewPet and of the inline part. */
    assert_non_null(strstr(c, "- name: string, required, max length: 100: The pet's name"));
    assert_non_null(strstr(c, "- id: integer (int64), required, read-only"));
    /* Pet.parent is Pet itself: a cycle, printed once with a marker. */
    assert_non_null(strstr(c, "(circular: Pet, see above)"));
    /* Depth 2: Owner.address is listed, address.geo is not expanded. */
    assert_non_null(strstr(c, "- address: object"));
    assert_null(strstr(c, "- lat:"));
    /* Pet is used by three operations: it gets a schema chunk, named by ref_ids. */
    const chunk *pet = find(l, "pet-store:Pet");
    assert_non_null(pet);
    assert_int_equal(pet->type, CHUNK_TYPE_SCHEMA);
    assert_true(pet->meta.n_used_by >= 2);
    bool listed = false;
    for (size_t i = 0; i < show->meta.n_ref_ids; i++)
        if (!strcmp(show->meta.ref_ids[i], "pet-store:Pet")) listed = true;
    assert_true(listed);
    /* Every ref id names a chunk of the list. */
    for (size_t i = 0; i < l->n; i++)
        for (size_t k = 0; k < l->items[i].meta.n_ref_ids; k++)
            assert_non_null(find(l, l->items[i].meta.ref_ids[k]));
    /* Deprecated, operation-level security [] and the 4xx line. */
    const chunk *del = find(l, "pet-store:deletePet");
    assert_true(del->meta.deprecated);
    assert_non_null(strstr(del->content, "Auth: none"));
    /* No operationId: the model's "api:METHOD /path" id. */
    assert_non_null(find(l, "pet-store:GET /pets/{petId}/photos"));
    /* Fields for BM25. */
    const chunk *list = find(l, "pet-store:listPets");
    assert_non_null(list->fields.params);
    assert_non_null(strstr(list->fields.params, "limit: How many items"));
    assert_string_equal(list->fields.operation_id, "listPets");
    assert_non_null(strstr(list->fields.response, "name"));
    chunk_list_free(l);
}

static void test_filters_in_renderings(void **state)
{
    (void)state;
    chunk_list *l = run(CHUNK_HYBRID, 0, 0, PREP_ERRORS | PREP_REQUEST_BODY | PREP_HTML);
    const chunk *create = find(l, "pet-store:createPet");
    assert_null(strstr(create->content, "Request body"));
    assert_null(strstr(create->content, "500"));
    const chunk *show = find(l, "pet-store:showPetById");
    assert_null(strstr(show->content, "<p>"));
    chunk_list_free(l);
}

static void test_windows(void **state)
{
    (void)state;
    chunk_strategy ws[] = {CHUNK_NOSPLIT, CHUNK_JSON, CHUNK_ENDPOINT};
    for (size_t s = 0; s < 3; s++) {
        chunk_list *l = run(ws[s], 96, 16, 0);
        bool *covered = calloc(api->n_ops, sizeof *covered);
        for (size_t i = 0; i < l->n; i++) {
            const chunk *c = &l->items[i];
            assert_true(c->meta.tokens <= 96);
            assert_int_equal(c->meta.tokens, c->meta.tok_end - c->meta.tok_start);
            if (c->meta.window) {
                const chunk *p = c - 1;
                assert_int_equal(c->meta.tok_start, p->meta.tok_end - 16);
                size_t ov = p->meta.byte_end - c->meta.byte_start;
                assert_memory_equal(c->content, p->content + p->content_len - ov, ov);
            }
            for (size_t e = 0; e < c->n_endpoints; e++) {
                const spec_operation *op = spec_api_find_operation(api, c->endpoints[e].op_id);
                assert_non_null(op);
                covered[op - api->ops] = true;
            }
        }
        for (size_t k = 0; k < api->n_ops; k++) assert_true(covered[k]);
        free(covered);
        chunk_list_free(l);
    }
    /* Bad options are refused. */
    chunk_list *l = NULL;
    assert_int_equal(chunk_list_new(&l), 0);
    chunk_options opt = {.strategy = CHUNK_NOSPLIT, .size = 10, .overlap = 10};
    apidex_error err;
    assert_int_equal(chunk_api(api, &opt, l, &err), APIDEX_EINVAL);
    assert_int_equal(l->n, 0);
    chunk_list_free(l);
    chunk_list_free(NULL);
}

static void test_json_output(void **state)
{
    (void)state;
    chunk_list *l = run(CHUNK_ENDPOINT, 7, 3, 0);
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(chunk_list_write_json(l, true, -1, &b), 0);
    jt_doc *d = NULL;
    apidex_error err;
    size_t len;
    char *text = core_buf_steal(&b, &len);
    /* Small windows cut characters; the output still parses. */
    assert_int_equal(jt_doc_parse(text, len, "out.json", NULL, &d, &err), 0);
    const jt_node *chunks = jt_get(d->root, "chunks");
    assert_int_equal(chunks->len, l->n);
    assert_string_equal(jt_get_str(jt_at(chunks, 0), "type"), "endpoint");
    jt_doc_free(d);
    chunk_list_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_operation),         cmocka_unit_test(test_hybrid),
        cmocka_unit_test(test_filters_in_renderings), cmocka_unit_test(test_windows),
        cmocka_unit_test(test_json_output),
    };
    return cmocka_run_group_tests(tests, setup, oas_fixture_close);
}
