/* Tests for an MCP server's resources and prompts read through apidex (src/exec/mcp_entry.c):
   a template's variables filled as RFC 6570 says for every operator (values percent-encoded
   so they cannot leave their place), a prompt's arguments checked against its declared ones. */
#include "testutil.h"

#include "exec/exec_int.h"
#include "oas/oas.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static const char *const DOC =
    "{\"mcp\": {\"server\": \"demo\", \"protocolVersion\": \"2025-06-18\"}, \"tools\": [],\n"
    " \"resources\": [{\"name\": \"readme\", \"uri\": \"demo://readme\"}],\n"
    " \"resourceTemplates\": [{\"name\": \"t\", \"uriTemplate\":\n"
    "   \"x://a/{id}{/seg}{?q,limit}{&page}{+path}{#frag}{.ext}{;m}{id:3}\"}],\n"
    " \"prompts\": [{\"name\": \"weather\", \"arguments\": [{\"name\": \"city\", \"required\": "
    "true}, {\"name\": \"state\"}]}]}";

typedef struct fixture {
    spec_registry *reg;
    const spec_api *api;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &f->reg, &err), 0);
    assert_int_equal(spec_registry_add_text(f->reg, "demo.json", DOC, strlen(DOC), NULL, &err), 0);
    f->api = spec_registry_api(f->reg, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    spec_registry_free(f->reg);
    free(f);
    return 0;
}

static const spec_operation *op_of(const fixture *f, const char *path)
{
    const spec_operation *op = store_doc_operation(f->api, "GET", path);
    assert_non_null(op);
    return op;
}

/* The request's params for inputs; rc returned, *params the object (put by the caller). */
static int request(const spec_operation *op, const char *const *in, size_t n, const char *body,
                   const char **method, json_object **params, apidex_error *err)
{
    exec_tool_options o = {.params = in, .n_params = n, .body = body};
    json_object *shown = NULL;
    core_error_clear(err);
    int rc = exec_mcp_entry_request(op, op->id, &o, method, params, &shown, err);
    json_object_put(shown);
    return rc;
}

static void test_template_every_operator(void **state)
{
    const fixture *f = *state;
    const spec_operation *op = op_of(f, "/resource/t");
    const char *in[] = {"id=ab/c",   "seg=s t",  "q=x&y", "page=2",
                        "path=/p/q", "frag=f g", "ext=e", "m="};
    const char *method = NULL;
    json_object *p = NULL;
    apidex_error err;
    assert_int_equal(request(op, in, 8, NULL, &method, &p, &err), 0);
    assert_string_equal(method, "resources/read");
    /* limit not given: left out; {id:3} is the first three characters, encoded */
    assert_string_equal(json_object_get_string(json_object_object_get(p, "uri")),
                        "x://a/ab%2Fc/s%20t?q=x%26y&page=2/p/q#f%20g.e;mab%2F");
    json_object_put(p);
}

static void test_resource_takes_no_uri(void **state)
{
    const fixture *f = *state;
    const spec_operation *op = op_of(f, "/resource/readme");
    const char *in[] = {"uri=file:///etc/passwd"};
    const char *method = NULL;
    json_object *p = NULL;
    apidex_error err;
    assert_int_equal(request(op, in, 1, NULL, &method, &p, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "unknown argument 'uri' for resource"));
    assert_null(p);
    assert_int_equal(request(op, NULL, 0, NULL, &method, &p, &err), 0);
    assert_string_equal(json_object_get_string(json_object_object_get(p, "uri")), "demo://readme");
    json_object_put(p);
}

static void test_prompt_arguments(void **state)
{
    const fixture *f = *state;
    const spec_operation *op = op_of(f, "/prompt/weather");
    const char *method = NULL;
    json_object *p = NULL;
    apidex_error err;
    const char *state_only[] = {"state=Viken"};
    assert_int_equal(request(op, state_only, 1, NULL, &method, &p, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "missing required argument 'city'"));
    const char *typo[] = {"cty=Oslo"};
    assert_int_equal(request(op, typo, 1, NULL, &method, &p, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "(did you mean 'city'?)"));
    assert_int_equal(request(op, NULL, 0, "{\"city\": {\"a\": 1}}", &method, &p, &err),
                     APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "argument 'city': expected a string, got an object"));
    /* a number is sent as its text; -p on top of the body */
    const char *over[] = {"state=Viken"};
    assert_int_equal(request(op, over, 1, "{\"city\": 5}", &method, &p, &err), 0);
    assert_string_equal(method, "prompts/get");
    assert_string_equal(json_object_get_string(json_object_object_get(p, "name")), "weather");
    assert_string_equal(json_object_to_json_string_ext(json_object_object_get(p, "arguments"),
                                                       JSON_C_TO_STRING_PLAIN),
                        "{\"city\":\"5\",\"state\":\"Viken\"}");
    json_object_put(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_template_every_operator, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resource_takes_no_uri, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prompt_arguments, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
