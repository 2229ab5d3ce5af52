/* Tests for snippets (snippet.c): curl, Python, JavaScript and Go from the same request
   builder, credentials as environment references, never a secret; the Python and JavaScript
   ones are checked by their own parsers (py_compile, node --check), the curl one by bash -n. */
#include "exec_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static spec_registry *reg;
static const spec_api *api;

static int setup(void **state)
{
    (void)state;
    reg = ex_fixture("tests/data/exec/pets.yaml");
    api = spec_registry_api(reg, 0);
    setenv("HOME", "/nonexistent-apidex-test-home", 1);
    unsetenv("APIDEX_CREDENTIALS");
    unsetenv("XDG_CONFIG_HOME");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    spec_registry_free(reg);
    return 0;
}

static char *snippet(const char *operation_id, const char *const *params, size_t n,
                     const char *body, bool placeholders, exec_snippet_lang lang)
{
    exec_request r;
    apidex_error err;
    exec_build_options o = {
        .params = params, .n_params = n, .body = body, .placeholders = placeholders};
    if (exec_build(api, ex_op(api, operation_id), &o, &r, &err)) fail_msg("%s", err.message);
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(exec_snippet(&r, lang, &b), 0);
    exec_build_free(&r);
    return core_buf_steal(&b, NULL);
}

/* Runs `cmd FILE` on text written to a temp file named name; 0 when it accepts it. */
static int check_with(const char *cmd, const char *name, const char *text)
{
    char *dir = tu_tempdir();
    char *file = tu_write(dir, name, text);
    char line[4096];
    snprintf(line, sizeof line, "%s '%s' >/dev/null 2>&1", cmd, file);
    int rc = system(line);
    free(file);
    tu_rmtree(dir);
    free(dir);
    return rc;
}

static bool have(const char *prog)
{
    char line[256];
    snprintf(line, sizeof line, "command -v %s >/dev/null 2>&1", prog);
    return system(line) == 0;
}

static void test_lang_parse(void **state)
{
    (void)state;
    exec_snippet_lang l;
    assert_int_equal(exec_snippet_lang_parse("curl", &l), 0);
    assert_int_equal(l, EXEC_SNIPPET_CURL);
    assert_int_equal(exec_snippet_lang_parse("js", &l), 0);
    assert_int_equal(l, EXEC_SNIPPET_JAVASCRIPT);
    assert_int_equal(exec_snippet_lang_parse("cobol", &l), -1);
}

static void test_curl(void **state)
{
    (void)state;
    const char *const in[] = {"petId=1", "name=it's", "tags=a,b"};
    char *s = snippet("updatePetForm", in, 3, NULL, true, EXEC_SNIPPET_CURL);
    assert_string_equal(s, "curl -X POST 'https://eu.api.example.com/v1/pets/1/form' \\\n"
                           "  -H 'Content-Type: application/x-www-form-urlencoded' \\\n"
                           "  -H 'Authorization: Basic '\"$(printf %s \"$APIDEX_AUTH_PETS_BASIC\" "
                           "| base64 | tr -d '\\n')\" \\\n"
                           "  --data-binary 'name=it%27s&tags=a&tags=b'\n");
    assert_int_equal(check_with("bash -n", "s.sh", s), 0);
    free(s);
    const char *const lim[] = {"limit=5"};
    s = snippet("listPets", lim, 1, NULL, true, EXEC_SNIPPET_CURL);
    assert_string_equal(s, "curl 'https://eu.api.example.com/v1/pets?limit=5&api_key='"
                           "\"$APIDEX_AUTH_PETS_KEYQUERY\" \\\n  -H 'Accept: application/json'\n");
    free(s);
}

static void test_python(void **state)
{
    (void)state;
    const char *const in[] = {"petId=7"};
    char *s = snippet("getPet", in, 1, NULL, true, EXEC_SNIPPET_PYTHON);
    assert_non_null(strstr(s, "url = \"https://eu.api.example.com/v1/pets/7\"\n"));
    assert_non_null(strstr(s, "\"X-Api-Key\": os.environ[\"APIDEX_AUTH_PETS_KEYHEADER\"],\n"));
    assert_non_null(strstr(s, "method=\"GET\""));
    if (have("python3")) assert_int_equal(check_with("python3 -m py_compile", "s.py", s), 0);
    free(s);
    s = snippet("updatePetForm", in, 1, NULL, true, EXEC_SNIPPET_PYTHON);
    assert_non_null(strstr(s, "import base64\n"));
    assert_non_null(
        strstr(s, "\"Basic \" + "
                  "base64.b64encode((os.environ[\"APIDEX_AUTH_PETS_BASIC\"]).encode()).decode()"));
    if (have("python3")) assert_int_equal(check_with("python3 -m py_compile", "s.py", s), 0);
    free(s);
    /* a JSON body with quotes and a newline stays one valid literal */
    s = snippet("createPet", NULL, 0, "{\"name\":\"a \\\"b\\\"\\n\"}", true, EXEC_SNIPPET_PYTHON);
    assert_non_null(
        strstr(s, "body = \"{\\\"name\\\":\\\"a \\\\\\\"b\\\\\\\"\\\\n\\\"}\".encode()"));
    if (have("python3")) assert_int_equal(check_with("python3 -m py_compile", "s.py", s), 0);
    free(s);
}

static void test_javascript(void **state)
{
    (void)state;
    const char *const in[] = {"theme=dark"};
    char *s = snippet("getSession", in, 1, NULL, true, EXEC_SNIPPET_JAVASCRIPT);
    assert_non_null(strstr(
        s, "\"Cookie\": \"theme=dark; session=\" + process.env[\"APIDEX_AUTH_PETS_KEYCOOKIE\"],"));
    if (have("node")) assert_int_equal(check_with("node --check", "s.js", s), 0);
    free(s);
    s = snippet("createPet", NULL, 0, "{\"name\":\"rex\"}", true, EXEC_SNIPPET_JAVASCRIPT);
    assert_non_null(strstr(s, "method: \"POST\""));
    assert_non_null(strstr(s, "body: \"{\\\"name\\\":\\\"rex\\\"}\","));
    assert_non_null(
        strstr(s, "\"Authorization\": \"Bearer \" + process.env[\"APIDEX_AUTH_PETS_BEARER\"],"));
    if (have("node")) assert_int_equal(check_with("node --check", "s.js", s), 0);
    free(s);
}

static void test_go(void **state)
{
    (void)state;
    const char *const in[] = {"petId=1", "name=rex"};
    char *s = snippet("updatePetForm", in, 2, NULL, true, EXEC_SNIPPET_GO);
    assert_non_null(strstr(s, "package main\n"));
    /* every import is used (Go refuses unused ones) */
    assert_non_null(strstr(s, "\t\"encoding/base64\"\n"));
    assert_non_null(strstr(
        s, "base64.StdEncoding.EncodeToString([]byte(os.Getenv(\"APIDEX_AUTH_PETS_BASIC\")))"));
    assert_non_null(strstr(s, "\t\"strings\"\n"));
    assert_non_null(strstr(s, "body := strings.NewReader(\"name=rex\")\n"));
    assert_non_null(strstr(
        s, "http.NewRequest(\"POST\", \"https://eu.api.example.com/v1/pets/1/form\", body)"));
    if (have("gofmt")) assert_int_equal(check_with("gofmt -e", "s.go", s), 0);
    free(s);
    const char *const lim[] = {"limit=2"};
    s = snippet("listPets", lim, 1, NULL, false, EXEC_SNIPPET_GO);
    assert_null(strstr(s, "\"os\""));
    assert_null(strstr(s, "\"strings\""));
    assert_non_null(
        strstr(s, "http.NewRequest(\"GET\", \"https://eu.api.example.com/v1/pets?limit=2\", nil)"));
    free(s);
}

/* The registry's variable names go into snippets; one that is no variable name is ignored. */
static void test_override_variable_names(void **state)
{
    (void)state;
    const char *const in[] = {"petId=7"};
    const char *ov[] = {"{\"auth\":{\"keyHeader\":\"PET_KEY\"}}",
                        "{\"auth\":{\"keyHeader\":\"x$(touch /tmp/pwned)\"}}"};
    const char *want[] = {"'X-Api-Key: '\"$PET_KEY\"",
                          "'X-Api-Key: '\"$APIDEX_AUTH_PETS_KEYHEADER\""};
    for (size_t i = 0; i < 2; i++) {
        exec_request r;
        apidex_error err;
        exec_build_options o = {
            .params = in, .n_params = 1, .overrides = ov[i], .placeholders = true};
        assert_int_equal(exec_build(api, ex_op(api, "getPet"), &o, &r, &err), 0);
        core_buf b;
        core_buf_init(&b, 0);
        assert_int_equal(exec_snippet(&r, EXEC_SNIPPET_CURL, &b), 0);
        if (!strstr(b.data, want[i])) fail_msg("no %s in\n%s", want[i], b.data);
        assert_null(strstr(b.data, "pwned"));
        core_buf_free(&b);
        exec_build_free(&r);
    }
}

/* Built with real credentials (not placeholders), a snippet still shows none. */
static void test_real_secret_masked(void **state)
{
    (void)state;
    setenv("APIDEX_AUTH_PETS_KEYHEADER", "real-s3cret", 1);
    const char *const in[] = {"petId=7"};
    for (int l = EXEC_SNIPPET_CURL; l <= EXEC_SNIPPET_GO; l++) {
        char *s = snippet("getPet", in, 1, NULL, false, (exec_snippet_lang)l);
        assert_null(strstr(s, "real-s3cret"));
        assert_non_null(strstr(s, "****"));
        free(s);
    }
    unsetenv("APIDEX_AUTH_PETS_KEYHEADER");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lang_parse),
        cmocka_unit_test(test_curl),
        cmocka_unit_test(test_python),
        cmocka_unit_test(test_javascript),
        cmocka_unit_test(test_go),
        cmocka_unit_test(test_override_variable_names),
        cmocka_unit_test(test_real_secret_masked),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
