/* Tests for credentials in exec_build (creds.c): each scheme (API key in header, query and
   cookie; HTTP bearer and basic; OAuth2 client credentials through the token callback),
   the three sources (environment, registry override, credentials file and its 0600 check),
   alternatives and AND-requirements, and masking: no secret in anything shown. */
#include "exec_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static spec_registry *reg;
static const spec_api *api;
static char *home;

static int setup(void **state)
{
    (void)state;
    reg = ex_fixture("tests/data/exec/pets.yaml");
    api = spec_registry_api(reg, 0);
    home = tu_tempdir();
    setenv("HOME", home, 1);
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("APIDEX_CREDENTIALS");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    spec_registry_free(reg);
    tu_rmtree(home);
    free(home);
    return 0;
}

/* Everything a request shows (URL, headers, body, notes) through exec_mask, one text. */
static char *shown(const exec_request *r)
{
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_printf(&b, "%s %s\n", r->method, exec_mask(r, r->url, r->arena));
    for (size_t i = 0; i < r->n_headers; i++)
        core_buf_printf(&b, "%s: %s\n", r->headers[i].name,
                        exec_mask(r, r->headers[i].value, r->arena));
    if (r->body) core_buf_printf(&b, "%s\n", exec_mask(r, r->body, r->arena));
    for (size_t i = 0; i < r->n_notes; i++) core_buf_printf(&b, "note: %s\n", r->notes[i]);
    return core_buf_steal(&b, NULL);
}

static void assert_hidden(const exec_request *r, const char *secret)
{
    char *s = shown(r);
    if (strstr(s, secret)) fail_msg("secret '%s' shown in:\n%s", secret, s);
    free(s);
}

static int build(const char *operation_id, const char *const *params, size_t n,
                 const char *overrides, exec_request *r, apidex_error *err)
{
    exec_build_options o = {.params = params, .n_params = n, .overrides = overrides};
    core_error_clear(err);
    return exec_build(api, ex_op(api, operation_id), &o, r, err);
}

static void test_env_name(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    assert_string_equal(exec_creds_env_name("themoviedb.org", "api-key", NULL, a),
                        "APIDEX_AUTH_THEMOVIEDB_ORG_API_KEY");
    assert_string_equal(exec_creds_env_name("pets", "basic", "USERNAME", a),
                        "APIDEX_AUTH_PETS_BASIC_USERNAME");
    core_arena_free(a);
}

static void test_api_key_header_query_cookie(void **state)
{
    (void)state;
    exec_request r;
    apidex_error err;
    const char *const pet[] = {"petId=7"};
    setenv("APIDEX_AUTH_PETS_KEYHEADER", "hdr-s3cret", 1);
    assert_int_equal(build("getPet", pet, 1, NULL, &r, &err), 0);
    assert_string_equal(ex_header(&r, "X-Api-Key"), "hdr-s3cret");
    assert_true(r.headers[r.n_headers - 1].secret);
    assert_hidden(&r, "hdr-s3cret");
    exec_build_free(&r);
    unsetenv("APIDEX_AUTH_PETS_KEYHEADER");

    setenv("APIDEX_AUTH_PETS_KEYQUERY", "q s3cret/+", 1);
    const char *const lim[] = {"limit=5"};
    assert_int_equal(build("listPets", lim, 1, NULL, &r, &err), 0);
    assert_string_equal(r.url,
                        "https://eu.api.example.com/v1/pets?limit=5&api_key=q%20s3cret%2F%2B");
    assert_hidden(&r, "s3cret");
    exec_build_free(&r);
    unsetenv("APIDEX_AUTH_PETS_KEYQUERY");
    /* [{keyQuery}, {}]: without the key the call is anonymous, no note */
    assert_int_equal(build("listPets", lim, 1, NULL, &r, &err), 0);
    assert_string_equal(r.url, "https://eu.api.example.com/v1/pets?limit=5");
    assert_int_equal(r.n_notes, 0);
    exec_build_free(&r);

    setenv("APIDEX_AUTH_PETS_KEYCOOKIE", "cookie-s3cret", 1);
    const char *const theme[] = {"theme=dark"};
    assert_int_equal(build("getSession", theme, 1, NULL, &r, &err), 0);
    assert_string_equal(ex_header(&r, "Cookie"), "theme=dark; session=cookie-s3cret");
    assert_hidden(&r, "cookie-s3cret");
    exec_build_free(&r);
    /* a credential given as a parameter (a header named for one) is masked too */
    const char *const tok[] = {"theme=dark", "X-Auth-Token=param s3cret"};
    assert_int_equal(build("getSession", tok, 2, NULL, &r, &err), 0);
    assert_string_equal(ex_header(&r, "X-Auth-Token"), "param s3cret");
    assert_true(r.headers[0].secret);
    assert_hidden(&r, "s3cret");
    exec_build_free(&r);
    unsetenv("APIDEX_AUTH_PETS_KEYCOOKIE");
}

static void test_bearer_and_basic(void **state)
{
    (void)state;
    exec_request r;
    apidex_error err;
    setenv("APIDEX_AUTH_PETS_BEARER", "tok-s3cret", 1);
    assert_int_equal(build("createPet", NULL, 0, NULL, &r, &err), APIDEX_EINVAL); /* no body */
    exec_build_options o = {.body = "{\"name\":\"a\"}"};
    assert_int_equal(exec_build(api, ex_op(api, "createPet"), &o, &r, &err), 0);
    assert_string_equal(ex_header(&r, "Authorization"), "Bearer tok-s3cret");
    assert_hidden(&r, "tok-s3cret");
    exec_build_free(&r);
    unsetenv("APIDEX_AUTH_PETS_BEARER");

    /* basic: user:password in one variable, or _USERNAME and _PASSWORD */
    const char *const pet[] = {"petId=1"};
    setenv("APIDEX_AUTH_PETS_BASIC", "ann:pw-s3cret", 1);
    assert_int_equal(build("updatePetForm", pet, 1, NULL, &r, &err), 0);
    assert_string_equal(ex_header(&r, "Authorization"), "Basic YW5uOnB3LXMzY3JldA==");
    assert_hidden(&r, "pw-s3cret");
    assert_hidden(&r, "YW5uOnB3LXMzY3JldA==");
    exec_build_free(&r);
    unsetenv("APIDEX_AUTH_PETS_BASIC");
    setenv("APIDEX_AUTH_PETS_BASIC_USERNAME", "bob", 1);
    setenv("APIDEX_AUTH_PETS_BASIC_PASSWORD", "x", 1);
    assert_int_equal(build("updatePetForm", pet, 1, NULL, &r, &err), 0);
    assert_string_equal(ex_header(&r, "Authorization"), "Basic Ym9iOng=");
    exec_build_free(&r);
    unsetenv("APIDEX_AUTH_PETS_BASIC_USERNAME");
    unsetenv("APIDEX_AUTH_PETS_BASIC_PASSWORD");
}

static void test_alternatives_and_and(void **state)
{
    (void)state;
    exec_request r;
    apidex_error err;
    /* [{bearer}, {basic}]: the first alternative with credentials wins */
    setenv("APIDEX_AUTH_PETS_BASIC", "u:p", 1);
    assert_int_equal(build("either", NULL, 0, NULL, &r, &err), 0);
    assert_string_equal(ex_header(&r, "Authorization"), "Basic dTpw");
    exec_build_free(&r);
    unsetenv("APIDEX_AUTH_PETS_BASIC");
    /* [{keyHeader, bearer}]: both or nothing (no half-applied requirement), and a note */
    setenv("APIDEX_AUTH_PETS_KEYHEADER", "k-s3cret", 1);
    assert_int_equal(build("needsBoth", NULL, 0, NULL, &r, &err), 0);
    assert_null(ex_header(&r, "X-Api-Key"));
    assert_int_equal(r.n_notes, 1);
    assert_string_equal(r.notes[0], "no credential for pets:needsBoth: set APIDEX_AUTH_PETS_BEARER "
                                    "(docs/EXECUTE.md, Credentials)");
    exec_build_free(&r);
    setenv("APIDEX_AUTH_PETS_BEARER", "b-s3cret", 1);
    assert_int_equal(build("needsBoth", NULL, 0, NULL, &r, &err), 0);
    assert_string_equal(ex_header(&r, "X-Api-Key"), "k-s3cret");
    assert_string_equal(ex_header(&r, "Authorization"), "Bearer b-s3cret");
    assert_hidden(&r, "s3cret");
    exec_build_free(&r);
    unsetenv("APIDEX_AUTH_PETS_KEYHEADER");
    unsetenv("APIDEX_AUTH_PETS_BEARER");
}

static void test_registry_override(void **state)
{
    (void)state;
    exec_request r;
    apidex_error err;
    const char *const pet[] = {"petId=1"};
    setenv("MY_PET_KEY", "ov-s3cret", 1);
    assert_int_equal(build("getPet", pet, 1, "{\"auth\":{\"keyHeader\":\"MY_PET_KEY\"}}", &r, &err),
                     0);
    assert_string_equal(ex_header(&r, "X-Api-Key"), "ov-s3cret");
    exec_build_free(&r);
    unsetenv("MY_PET_KEY");
    setenv("PU", "ann", 1);
    setenv("PP", "pw", 1);
    assert_int_equal(build("updatePetForm", pet, 1,
                           "{\"auth\":{\"basic\":{\"username\":\"PU\",\"password\":\"PP\"}}}", &r,
                           &err),
                     0);
    assert_string_equal(ex_header(&r, "Authorization"), "Basic YW5uOnB3");
    exec_build_free(&r);
    unsetenv("PU");
    unsetenv("PP");
}

static int fake_token_calls;
static int fake_token(void *ctx, const char *token_url, const char *client_id,
                      const char *client_secret, const char *scope, const char **token,
                      apidex_error *err)
{
    (void)err;
    fake_token_calls++;
    assert_string_equal((const char *)ctx, "ctx");
    assert_string_equal(token_url, "https://auth.example.com/token");
    assert_string_equal(client_id, "cid");
    assert_string_equal(client_secret, "csecret-s3cret");
    assert_string_equal(scope, "write");
    *token = "oauth-tok-s3cret";
    return 0;
}

static void test_oauth2_client_credentials(void **state)
{
    (void)state;
    exec_request r;
    apidex_error err;
    const char *const pet[] = {"petId=1", "caption=x"};
    setenv("APIDEX_AUTH_PETS_OAUTH_CLIENT_ID", "cid", 1);
    setenv("APIDEX_AUTH_PETS_OAUTH_CLIENT_SECRET", "csecret-s3cret", 1);
    exec_build_options o = {
        .params = pet, .n_params = 2, .token_fn = fake_token, .token_ctx = "ctx"};
    fake_token_calls = 0;
    assert_int_equal(exec_build(api, ex_op(api, "uploadPhoto"), &o, &r, &err), 0);
    assert_int_equal(fake_token_calls, 1);
    assert_string_equal(ex_header(&r, "Authorization"), "Bearer oauth-tok-s3cret");
    assert_hidden(&r, "s3cret");
    exec_build_free(&r);
    /* without a token function: a note, no header */
    o.token_fn = NULL;
    assert_int_equal(exec_build(api, ex_op(api, "uploadPhoto"), &o, &r, &err), 0);
    assert_null(ex_header(&r, "Authorization"));
    assert_true(r.n_notes >= 1);
    assert_non_null(strstr(r.notes[0], "needs the transport"));
    assert_hidden(&r, "s3cret");
    exec_build_free(&r);
    unsetenv("APIDEX_AUTH_PETS_OAUTH_CLIENT_ID");
    unsetenv("APIDEX_AUTH_PETS_OAUTH_CLIENT_SECRET");
    /* a token in the environment is used as it is */
    setenv("APIDEX_AUTH_PETS_OAUTH", "direct-s3cret", 1);
    assert_int_equal(exec_build(api, ex_op(api, "uploadPhoto"), &o, &r, &err), 0);
    assert_string_equal(ex_header(&r, "Authorization"), "Bearer direct-s3cret");
    exec_build_free(&r);
    unsetenv("APIDEX_AUTH_PETS_OAUTH");
}

static void test_credentials_file(void **state)
{
    (void)state;
    exec_request r;
    apidex_error err;
    const char *const pet[] = {"petId=1"};
    char *path = tu_write(home, ".config/apidex/credentials.yaml",
                          "pets:\n  keyHeader: file-s3cret\n"
                          "  basic: {username: fu, password: fp-s3cret}\n");
    chmod(path, 0644);
    assert_int_equal(build("getPet", pet, 1, NULL, &r, &err), APIDEX_EINVAL);
    char want[2048];
    snprintf(want, sizeof want,
             "credentials file %s has mode 0644: it holds secrets, so only its owner may read it "
             "(mode 0600 or stricter: chmod 600 %s)",
             path, path);
    assert_string_equal(err.message, want);
    assert_null(strstr(err.message, "s3cret"));
    chmod(path, 0600);
    assert_int_equal(build("getPet", pet, 1, NULL, &r, &err), 0);
    assert_string_equal(ex_header(&r, "X-Api-Key"), "file-s3cret");
    exec_build_free(&r);
    assert_int_equal(build("updatePetForm", pet, 1, NULL, &r, &err), 0);
    assert_string_equal(ex_header(&r, "Authorization"), "Basic ZnU6ZnAtczNjcmV0");
    assert_hidden(&r, "fp-s3cret");
    exec_build_free(&r);
    /* the environment wins over the file */
    setenv("APIDEX_AUTH_PETS_KEYHEADER", "env-key", 1);
    assert_int_equal(build("getPet", pet, 1, NULL, &r, &err), 0);
    assert_string_equal(ex_header(&r, "X-Api-Key"), "env-key");
    exec_build_free(&r);
    unsetenv("APIDEX_AUTH_PETS_KEYHEADER");
    /* $APIDEX_CREDENTIALS names another file, which must exist */
    char *other = tu_path(home, "nope.yaml");
    setenv("APIDEX_CREDENTIALS", other, 1);
    assert_int_equal(build("getPet", pet, 1, NULL, &r, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "not found"));
    unsetenv("APIDEX_CREDENTIALS");
    free(other);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_name),
        cmocka_unit_test(test_api_key_header_query_cookie),
        cmocka_unit_test(test_bearer_and_basic),
        cmocka_unit_test(test_alternatives_and_and),
        cmocka_unit_test(test_registry_override),
        cmocka_unit_test(test_oauth2_client_credentials),
        cmocka_unit_test(test_credentials_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
