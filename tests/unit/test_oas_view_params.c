/* Tests for serialisation and examples (view_params.c): a parameter's style, explode,
   allowReserved, collectionFormat and examples (parsed and as written), a form field's
   encoding, a media type's example; a form schema's property and type name. */
#include "oas_view_testdoc.h"

static void test_serialization_and_schemas(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC_REQUEST);
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
    assert_string_equal(spec_schema_view_first_type(&v), "integer");
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

static void test_swagger2_collection_format(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC_REQUEST_SWAGGER2);
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *x = op_by_path(api, "GET", "/x");
    assert_string_equal(spec_param_serialization(param(x, "ids")).collection_format, "pipes");
    spec_registry_free(reg);
}

static void test_param_extras_and_media_example(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC_WRITTEN);
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *get = op_named(api, "getA");
    assert_int_equal(get->n_params, 1);
    spec_serialization px = spec_param_serialization(&get->params[0]);
    assert_string_equal(jt_str(px.style_json), "form");
    assert_int_equal(px.explode_json->type, JT_BOOL);
    assert_string_equal(jt_str(px.example), "x");
    assert_true(jt_is(px.examples, JT_OBJECT));
    px = spec_param_serialization(NULL);
    assert_null(px.style_json);
    assert_null(px.examples);
    const spec_operation *post = op_named(api, "postA");
    assert_non_null(post->body);
    assert_int_equal(post->body->n_media, 1);
    assert_true(jt_is(spec_media_example(&post->body->media[0]), JT_OBJECT));
    assert_null(spec_media_example(NULL));
    spec_registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serialization_and_schemas),
        cmocka_unit_test(test_swagger2_collection_format),
        cmocka_unit_test(test_param_extras_and_media_example),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
