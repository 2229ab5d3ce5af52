/* Tests for exec_build's request side: every parameter style (the corpus's
   parameters-style spec), Swagger 2.0 collection formats, server variables, bodies by media
   type, and validation errors naming the input and the rule. */
#include "exec_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Builds operation_id with params (NULL-terminated) and body; returns the rc; *r filled. */
static int build(const spec_api *api, const char *operation_id, const char *const *params,
                 const char *body, exec_request *r, apidex_error *err)
{
    size_t n = 0;
    while (params && params[n]) n++;
    exec_build_options o = {.params = params, .n_params = n, .body = body};
    core_error_clear(err);
    return exec_build(api, ex_op(api, operation_id), &o, r, err);
}

/* ---------------------------------------------------------------- styles */

typedef struct style_case {
    const char *op;
    const char *where; /* "url", or a header name */
    const char *want;
} style_case;

static void test_parameter_styles(void **state)
{
    (void)state;
    TU_REQUIRE_SHARED();
    char *p =
        tu_path(tu_shared_dir(),
                "corpus/specs/readme_examples__3.0_json_parameters-style/parameters-style.json");
    spec_registry *reg = ex_load(p);
    free(p);
    const spec_api *api = spec_registry_api(reg, 0);
    const char *const in[] = {"primitive=5", "array=[\"blue\",\"black\"]",
                              "object={\"R\":\"100\",\"G\":\"200\"}", NULL};
    const char *const obj_only[] = {"object={\"R\":\"100\",\"G\":\"200\"}", NULL};
    const char *const arr_obj[] = {"array=[\"blue\",\"black\"]",
                                   "object={\"R\":\"100\",\"G\":\"200\"}", NULL};
    static const style_case cases[] = {
        /* path: simple (default), label, matrix; exploded or not (OAS 3.0.3 style table) */
        {"paths_standard", "url", "https://httpbin.org/anything/path/5/blue,black/R,100,G,200"},
        {"paths_simple_nonExploded", "url",
         "https://httpbin.org/anything/path/simple/5/blue,black/R,100,G,200"},
        {"paths_simple_exploded", "url",
         "https://httpbin.org/anything/path/simple/5/blue,black/R=100,G=200"},
        {"paths_label_nonExploded", "url",
         "https://httpbin.org/anything/path/label/.5/.blue,black/.R,100,G,200"},
        {"paths_label_exploded", "url",
         "https://httpbin.org/anything/path/label/.5/.blue.black/.R=100.G=200"},
        {"paths_matrix_nonExploded", "url",
         "https://httpbin.org/anything/path/matrix/;primitive=5/;array=blue,black/"
         ";object=R,100,G,200"},
        {"paths_matrix_exploded", "url",
         "https://httpbin.org/anything/path/matrix/;primitive=5/;array=blue;array=black/"
         ";R=100;G=200"},
        /* query: form (default, exploded) */
        {"query_standard", "url",
         "https://httpbin.org/anything/query?primitive=5&array=blue&array=black&R=100&G=200"},
        {"query_form_nonExploded", "url",
         "https://httpbin.org/anything/query/form?primitive=5&array=blue,black&object=R,100,G,200"},
        {"query_form_exploded", "url",
         "https://httpbin.org/anything/query/form?primitive=5&array=blue&array=black&R=100&G=200"},
        /* header: simple */
        {"headers_standard", "array", "blue,black"},
        {"headers_simple_nonExploded", "object", "R,100,G,200"},
        {"headers_simple_exploded", "object", "R=100,G=200"},
        {"headers_simple_exploded", "primitive", "5"},
        /* cookie: form */
        {"cookies_form_nonExploded", "Cookie", "primitive=5; array=blue,black; object=R,100,G,200"},
        {"cookies_form_exploded", "Cookie", "primitive=5; array=blue; array=black; R=100; G=200"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        exec_request r;
        apidex_error err;
        int rc = build(api, cases[i].op, in, NULL, &r, &err);
        if (rc) fail_msg("%s: %s", cases[i].op, err.message);
        const char *got = !strcmp(cases[i].where, "url") ? r.url : ex_header(&r, cases[i].where);
        if (!got || strcmp(got, cases[i].want))
            fail_msg("%s %s:\n  got  %s\n  want %s", cases[i].op, cases[i].where,
                     got ? got : "(none)", cases[i].want);
        exec_build_free(&r);
    }
    /* spaceDelimited, pipeDelimited, deepObject */
    exec_request r;
    apidex_error err;
    assert_int_equal(build(api, "query_spaceDelimited_nonExploded", arr_obj, NULL, &r, &err), 0);
    assert_string_equal(r.url, "https://httpbin.org/anything/query/spaceDelimited"
                               "?array=blue%20black&object=R%20100%20G%20200");
    exec_build_free(&r);
    assert_int_equal(build(api, "query_pipeDelimited_nonExploded", arr_obj, NULL, &r, &err), 0);
    assert_string_equal(r.url, "https://httpbin.org/anything/query/pipeDelimited"
                               "?array=blue%7Cblack&object=R%7C100%7CG%7C200");
    exec_build_free(&r);
    assert_int_equal(build(api, "query_deepObject_nonExploded", obj_only, NULL, &r, &err), 0);
    assert_string_equal(
        r.url, "https://httpbin.org/anything/query/deepObject?object%5BR%5D=100&object%5BG%5D=200");
    exec_build_free(&r);
    spec_registry_free(reg);
}

static void test_percent_encoding(void **state)
{
    (void)state;
    spec_registry *reg = ex_fixture("tests/data/exec/pets.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    exec_request r;
    apidex_error err;
    const char *const in[] = {"tags=a b,c&d,ü", "X-Request-Id=r 1", NULL};
    assert_int_equal(build(api, "listPets", in, NULL, &r, &err), 0);
    assert_string_equal(r.url, "https://eu.api.example.com/v1/pets?tags=a%20b,c%26d,%C3%BC");
    assert_string_equal(ex_header(&r, "X-Request-Id"), "r 1");
    assert_string_equal(ex_header(&r, "Accept"), "application/json");
    exec_build_free(&r);
    /* a header value cannot carry a line break (header injection) */
    const char *const crlf[] = {"X-Request-Id=a\r\nHost: evil", NULL};
    assert_int_equal(build(api, "listPets", crlf, NULL, &r, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "control character 0x0D"));
    assert_non_null(strstr(err.message, "'X-Request-Id' (header)"));
    spec_registry_free(reg);
}

static void test_swagger2_collection_formats(void **state)
{
    (void)state;
    setenv("APIDEX_AUTH_SWAGGER2_BASICAUTH", "u:p", 1);
    spec_registry *reg = ex_fixture("tests/data/exec/swagger2.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    exec_request r;
    apidex_error err;
    const char *const in[] = {"ids=1,2",
                              "csv=a,b",
                              "ssv=a,b",
                              "tsv=a,b",
                              "pipes=a,b",
                              "multi=a,b",
                              "X-Trace=[\"x\",\"y\"]",
                              NULL};
    assert_int_equal(build(api, "getItems", in, NULL, &r, &err), 0);
    assert_string_equal(r.url, "https://api.example.com/v2/items/1,2?csv=a,b&ssv=a%20b&tsv=a%09b"
                               "&pipes=a%7Cb&multi=a&multi=b");
    assert_string_equal(ex_header(&r, "X-Trace"), "x,y");
    exec_build_free(&r);
    /* formData becomes a form body; -p fields fill it */
    const char *const form[] = {"user=ann", "remember=true", NULL};
    assert_int_equal(build(api, "login", form, NULL, &r, &err), 0);
    assert_string_equal(r.content_type, "application/x-www-form-urlencoded");
    assert_string_equal(r.body, "user=ann&remember=true");
    exec_build_free(&r);
    const char *const big[] = {"ids=1", "size=51", NULL};
    assert_int_equal(build(api, "getItems", big, NULL, &r, &err), APIDEX_EINVAL);
    assert_string_equal(err.message, "parameter 'size' (query): 51 is above the maximum");
    spec_registry_free(reg);
    unsetenv("APIDEX_AUTH_SWAGGER2_BASICAUTH");
}

/* ---------------------------------------------------------------- servers */

static void test_server_variables(void **state)
{
    (void)state;
    spec_registry *reg = ex_fixture("tests/data/exec/pets.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    exec_request r;
    apidex_error err;
    const char *const us[] = {"petId=7", "region=us", "version=v2", NULL};
    setenv("APIDEX_AUTH_PETS_KEYHEADER", "k", 1);
    assert_int_equal(build(api, "getPet", us, NULL, &r, &err), 0);
    assert_string_equal(r.url, "https://us.api.example.com/v2/pets/7");
    exec_build_free(&r);
    const char *const bad[] = {"petId=7", "region=mars", NULL};
    assert_int_equal(build(api, "getPet", bad, NULL, &r, &err), APIDEX_EINVAL);
    assert_string_equal(err.message, "server variable 'region': \"mars\" is not one of the enum "
                                     "values (one of: eu|us)");
    /* --server replaces the spec's servers; the registry's override too */
    const char *const id[] = {"petId=7", NULL};
    exec_build_options o = {.params = id, .n_params = 1, .server = "http://127.0.0.1:8080/api/"};
    assert_int_equal(exec_build(api, ex_op(api, "getPet"), &o, &r, &err), 0);
    assert_string_equal(r.url, "http://127.0.0.1:8080/api/pets/7");
    exec_build_free(&r);
    o = (exec_build_options){
        .params = id, .n_params = 1, .overrides = "{\"server\":\"https://mirror.example.org\"}"};
    assert_int_equal(exec_build(api, ex_op(api, "getPet"), &o, &r, &err), 0);
    assert_string_equal(r.url, "https://mirror.example.org/pets/7");
    exec_build_free(&r);
    o.server = "ftp://x";
    assert_int_equal(exec_build(api, ex_op(api, "getPet"), &o, &r, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "not http(s)"));
    unsetenv("APIDEX_AUTH_PETS_KEYHEADER");
    spec_registry_free(reg);
}

/* ---------------------------------------------------------------- bodies */

static void test_bodies(void **state)
{
    (void)state;
    spec_registry *reg = ex_fixture("tests/data/exec/pets.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    exec_request r;
    apidex_error err;
    /* JSON: --body, with -p fields merged in */
    const char *const age[] = {"age=3", NULL};
    assert_int_equal(build(api, "createPet", age, "{\"name\": \"Rex\"}", &r, &err), 0);
    assert_string_equal(r.method, "POST");
    assert_string_equal(r.body, "{\"name\":\"Rex\",\"age\":3}");
    assert_int_equal(r.body_len, strlen(r.body));
    assert_string_equal(ex_header(&r, "Content-Type"), "application/json");
    exec_build_free(&r);
    /* form-urlencoded from -p fields; arrays exploded */
    const char *const form[] = {"petId=1", "name=Rex the 2nd", "tags=a,b", NULL};
    assert_int_equal(build(api, "updatePetForm", form, NULL, &r, &err), 0);
    assert_string_equal(r.body, "name=Rex%20the%202nd&tags=a&tags=b");
    assert_string_equal(r.content_type, "application/x-www-form-urlencoded");
    exec_build_free(&r);
    /* multipart: text, JSON and file parts, repeated parts for an array */
    char *dir = tu_tempdir();
    char *file = tu_write(dir, "rex.png", "PNGDATA");
    char *photo = malloc(strlen(file) + 16);
    snprintf(photo, strlen(file) + 16, "photo=@%s", file);
    const char *const multi[] = {"petId=1",        "caption=hi", photo,
                                 "meta={\"k\":1}", "labels=x,y", NULL};
    assert_int_equal(build(api, "uploadPhoto", multi, NULL, &r, &err), 0);
    assert_string_equal(r.content_type,
                        "multipart/form-data; boundary=apidex-form-boundary-7MA4YWxkTrZu0gW");
    const char *want =
        "--apidex-form-boundary-7MA4YWxkTrZu0gW\r\n"
        "Content-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n"
        "--apidex-form-boundary-7MA4YWxkTrZu0gW\r\n"
        "Content-Disposition: form-data; name=\"photo\"; filename=\"rex.png\"\r\n"
        "Content-Type: application/octet-stream\r\n\r\nPNGDATA\r\n"
        "--apidex-form-boundary-7MA4YWxkTrZu0gW\r\n"
        "Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n"
        "{\"k\":1}\r\n"
        "--apidex-form-boundary-7MA4YWxkTrZu0gW\r\n"
        "Content-Disposition: form-data; name=\"labels\"\r\n\r\nx\r\n"
        "--apidex-form-boundary-7MA4YWxkTrZu0gW\r\n"
        "Content-Disposition: form-data; name=\"labels\"\r\n\r\ny\r\n"
        "--apidex-form-boundary-7MA4YWxkTrZu0gW--\r\n";
    assert_int_equal(r.body_len, strlen(want));
    assert_memory_equal(r.body, want, r.body_len);
    exec_build_free(&r);
    free(photo);
    free(file);
    tu_rmtree(dir);
    free(dir);
    /* a text body is sent as it is */
    assert_int_equal(build(api, "postReport", NULL, "all good", &r, &err), 0);
    assert_string_equal(r.body, "all good");
    assert_string_equal(r.content_type, "text/plain");
    exec_build_free(&r);
    spec_registry_free(reg);
}

/* One name at several locations: "query:id", "body:id" say which. */
static void test_qualified_names(void **state)
{
    (void)state;
    spec_registry *reg = ex_fixture("tests/data/exec/pets.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    exec_request r;
    apidex_error err;
    const char *const in[] = {"id=a b", "query:id=7", "body:id=x", "label=y", NULL};
    assert_int_equal(build(api, "putThing", in, NULL, &r, &err), 0);
    assert_string_equal(r.url, "https://eu.api.example.com/v1/things/a%20b?id=7");
    assert_string_equal(r.body, "{\"id\":\"x\",\"label\":\"y\"}");
    exec_build_free(&r);
    const char *const bad[] = {"id=a", "query:id=seven", NULL};
    assert_int_equal(build(api, "putThing", bad, NULL, &r, &err), APIDEX_EINVAL);
    assert_string_equal(err.message, "parameter 'id' (query): expected integer, got string");
    spec_registry_free(reg);
}

/* ---------------------------------------------------------------- validation */

typedef struct bad_case {
    const char *op;
    const char *params[4];
    const char *body;
    const char *message;
} bad_case;

/* A schema whose items are itself: the enum list shown beside a problem ("enumx" holds the
   word) must end, not recurse until the stack overflows. */
static void test_enum_of_a_cyclic_schema(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},"
        "\"servers\":[{\"url\":\"https://api.example.com\"}],\"paths\":{\"/a\":{\"post\":{"
        "\"operationId\":\"post\",\"requestBody\":{\"content\":{\"application/json\":{"
        "\"schema\":{\"$ref\":\"#/components/schemas/A\"}}}},"
        "\"responses\":{\"200\":{\"description\":\"ok\"}}}}},"
        "\"components\":{\"schemas\":{\"A\":{\"properties\":{\"enumx\":{\"type\":"
        "\"integer\"}},\"items\":{\"$ref\":\"#/components/schemas/A\"}}}}}";
    spec_registry *reg = NULL;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, "cyclic", doc, strlen(doc), NULL, &err), 0);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    exec_request r;
    assert_int_equal(build(api, "post", NULL, "{\"enumx\": \"s\"}", &r, &err), APIDEX_EINVAL);
    assert_string_equal(err.message, "the request body: /enumx: expected integer, got string");
    spec_registry_free(reg);
}

static void test_validation_errors(void **state)
{
    (void)state;
    spec_registry *reg = ex_fixture("tests/data/exec/pets.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    static const bad_case cases[] = {
        {"getPet", {NULL}, NULL, "missing required parameter 'petId' (path): give -p petId=VALUE"},
        {"getPet", {"petId=abc"}, NULL, "parameter 'petId' (path): expected integer, got string"},
        {"getPet", {"petId=0"}, NULL, "parameter 'petId' (path): 0 is below the minimum"},
        {"listPets", {"limit=101"}, NULL, "parameter 'limit' (query): 101 is above the maximum"},
        {"listPets",
         {"status=lost"},
         NULL,
         "parameter 'status' (query): \"lost\" is not one of the enum values (one of: "
         "available|sold)"},
        {"listPets",
         {"name=Rex1"},
         NULL,
         "parameter 'name' (query): does not match the pattern ^[a-z]+$"},
        {"listPets",
         {"flag=maybe"},
         NULL,
         "parameter 'flag' (query): expected boolean, got string"},
        {"listPets",
         {"limt=5"},
         NULL,
         "unknown parameter 'limt' for GET /pets (did you mean 'limit'?)"},
        {"listPets",
         {"zzzzzz=1"},
         NULL,
         "unknown parameter 'zzzzzz' for GET /pets; it takes: limit, status, tags, name, "
         "X-Request-Id, flag"},
        {"listPets",
         {"limit=1", "limit=2"},
         NULL,
         "parameter 'limit' (query) is given 2 times; it takes one value"},
        {"listPets", {"limit"}, NULL, "input 'limit' is not name=value (e.g. -p limit=10)"},
        {"createPet",
         {NULL},
         NULL,
         "missing required request body (application/json): give --body JSON or -p FIELD=VALUE "
         "for its fields"},
        {"createPet",
         {NULL},
         "{\"tag\": \"x\"}",
         "the request body: required property \"name\" is missing"},
        {"createPet",
         {NULL},
         "{\"name\": \"\"}",
         "the request body: /name: is 0 characters, shorter than minLength"},
        {"createPet",
         {"age=-1"},
         "{\"name\": \"a\"}",
         "the request body: /age: -1 is below the minimum"},
        {"createPet",
         {NULL},
         "{\"name\": ",
         "the request body is not valid JSON: unexpected end of data at byte 9"},
        {"createPet",
         {NULL},
         "{\"name\": \"a\"} x",
         "the request body is not valid JSON: unexpected text after the value at byte 14"},
        {"getPet", {"petId=1"}, "{}", "GET /pets/{petId} takes no request body"},
    };
    setenv("APIDEX_AUTH_PETS_KEYHEADER", "k", 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        exec_request r;
        apidex_error err;
        int rc = build(api, cases[i].op, cases[i].params, cases[i].body, &r, &err);
        if (rc != APIDEX_EINVAL || strcmp(err.message, cases[i].message))
            fail_msg("case %zu (%s): rc %d\n  got  %s\n  want %s", i, cases[i].op, rc, err.message,
                     cases[i].message);
        assert_null(r.arena);
    }
    unsetenv("APIDEX_AUTH_PETS_KEYHEADER");
    spec_registry_free(reg);
}

int main(void)
{
    unsetenv("APIDEX_CREDENTIALS");
    setenv("HOME", "/nonexistent-apidex-test-home", 1);
    unsetenv("XDG_CONFIG_HOME");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parameter_styles),
        cmocka_unit_test(test_percent_encoding),
        cmocka_unit_test(test_swagger2_collection_formats),
        cmocka_unit_test(test_server_variables),
        cmocka_unit_test(test_bodies),
        cmocka_unit_test(test_qualified_names),
        cmocka_unit_test(test_validation_errors),
        cmocka_unit_test(test_enum_of_a_cyclic_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
