/* Tests for servers and their variables (view_servers.c): the root's servers by index,
   server objects by url ($ref followed), an operation's own servers, the servers written for
   an operation (its own, the document's, none), variables' defaults and enums as strings and
   as written. */
#include "oas_view_testdoc.h"

static void test_root_server_vars(void **state)
{
    (void)state;
    spec_registry *reg = load_named("t", DOC_SCHEMES);
    const spec_api *api = spec_registry_api(reg, 0);
    /* server variables, in written order, of the root's server objects */
    assert_int_equal(spec_server_var_count(api, 0), 2);
    assert_int_equal(spec_server_var_count(api, 1), 0);
    assert_int_equal(spec_server_var_count(api, 2), 0);
    spec_server_var v;
    assert_true(spec_server_var_at(api, 0, 0, &v));
    assert_string_equal(v.name, "region");
    assert_string_equal(v.default_value, "eu");
    assert_string_equal(v.description, "where");
    assert_non_null(v.enum_values);
    assert_int_equal(v.enum_values->len, 2);
    assert_true(spec_server_var_at(api, 0, 1, &v));
    assert_string_equal(v.name, "v");
    assert_null(v.enum_values);
    assert_false(spec_server_var_at(api, 0, 2, &v));
    assert_null(v.name);
    spec_registry_free(reg);
}

static void test_swagger2_no_server_vars(void **state)
{
    (void)state;
    spec_registry *reg = load_named("s", DOC_SCHEMES_SWAGGER2);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_int_equal(spec_server_var_count(api, 0), 0); /* servers come from host */
    spec_registry_free(reg);
}

static void test_server_objects(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC_REQUEST);
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *a = op_by_path(api, "GET", "/a"), *b = op_by_path(api, "POST", "/b");
    const jt_node *ops = spec_operation_servers(a);
    assert_non_null(ops);
    assert_string_equal(spec_server_url(jt_at(ops, 0)), "https://op.example.com");
    assert_null(spec_operation_servers(b)); /* an empty list: the API's servers */
    assert_null(spec_operation_servers(NULL));
    const jt_node *srv = spec_api_server_object(api, "https://{region}.example.com/{base}");
    assert_non_null(srv);
    assert_null(spec_api_server_object(api, "https://other.example.com"));
    spec_server_var v;
    assert_true(spec_server_object_var(srv, "region", &v));
    assert_string_equal(v.default_value, "eu");
    assert_non_null(v.enum_values);
    assert_int_equal(v.enum_values->len, 3);
    assert_true(spec_server_object_var(srv, "base", &v)); /* a default that is no string */
    assert_int_equal(v.default_json->type, JT_INT);
    assert_null(v.default_value);
    assert_null(v.enum_values);
    assert_false(spec_server_object_var(srv, "absent", &v));
    assert_null(v.default_value);
    spec_registry_free(reg);
}

static void test_swagger2_no_server_objects(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC_REQUEST_SWAGGER2);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_null(spec_api_server_object(api, "https://api.example.com")); /* no server objects */
    spec_registry_free(reg);
}

static void test_servers_written(void **state)
{
    (void)state;
    spec_registry *reg = load_text(DOC_WRITTEN);
    const spec_api *api = spec_registry_api(reg, 0);
    core_arena *a = core_arena_new(0);
    assert_non_null(a);
    spec_server_written *sv;
    size_t n;
    /* the document's servers, variables in written order, a url that is not a string */
    assert_int_equal(spec_operation_servers_written(api, op_named(api, "getA"), a, &sv, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(sv[0].url, "https://{region}.example.com/v1");
    assert_string_equal(sv[0].description, "main");
    assert_int_equal(sv[0].n_vars, 2);
    assert_int_equal(sv[0].vars[0].name_len, 6);
    assert_memory_equal(sv[0].vars[0].name, "region", 6);
    assert_string_equal(jt_str(sv[0].vars[0].default_json), "eu");
    assert_int_equal(sv[0].vars[0].enum_json->len, 2);
    assert_string_equal(sv[0].vars[0].description, "where");
    assert_null(sv[0].vars[1].default_json);
    assert_null(sv[0].vars[1].enum_json);
    assert_null(sv[1].url);
    assert_int_equal(sv[1].n_vars, 0);
    /* the operation's own servers win */
    assert_int_equal(spec_operation_servers_written(api, op_named(api, "postA"), a, &sv, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(sv[0].url, "https://own.example.com");
    core_arena_free(a);
    spec_registry_free(reg);
}

static void test_servers_none_written(void **state)
{
    (void)state;
    spec_registry *reg =
        load_text("{\"swagger\":\"2.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"host\":\"h."
                  "example.com\","
                  "\"paths\":{\"/p\":{\"get\":{\"operationId\":\"g\",\"responses\":{\"200\":"
                  "{\"description\":\"ok\"}}}}}}");
    const spec_api *api = spec_registry_api(reg, 0);
    core_arena *a = core_arena_new(0);
    spec_server_written *sv = (spec_server_written *)1;
    size_t n = 9;
    assert_int_equal(spec_operation_servers_written(api, op_named(api, "g"), a, &sv, &n), 0);
    assert_int_equal(n, 0);
    assert_null(sv);
    assert_true(api->n_servers > 0); /* what the model derived from host */
    core_arena_free(a);
    spec_registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_root_server_vars), cmocka_unit_test(test_swagger2_no_server_vars),
        cmocka_unit_test(test_server_objects),   cmocka_unit_test(test_swagger2_no_server_objects),
        cmocka_unit_test(test_servers_written),  cmocka_unit_test(test_servers_none_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
