/* Tests for exec_mask: a request's credential values never shown. */
#include "testutil.h"

#include "exec/exec.h"

#include <string.h>

static void test_mask_every_occurrence(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    const char *secrets[] = {"s3cr3t", "s3cr3t-longer", "k"};
    exec_request r = {.secrets = secrets, .n_secrets = 3, .arena = a};
    /* the longest secret at a position wins; a 1-byte secret becomes "****" too */
    assert_string_equal(exec_mask(&r, "Authorization: Bearer s3cr3t-longer?x=s3cr3t&k", a),
                        "Authorization: Bearer ****?x=****&****");
    assert_string_equal(exec_mask(&r, "", a), "");
    core_arena_free(a);
}

static void test_mask_nothing_to_hide(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    exec_request r = {.arena = a};
    const char *t = "GET https://api.example.com/v1/pets";
    assert_ptr_equal(exec_mask(&r, t, a), t);
    assert_null(exec_mask(&r, NULL, a));
    core_arena_free(a);
}

/* A key a server echoes JSON-escaped, percent-encoded or both: masked where it stands,
   whole escapes only, and the JSON stays JSON. */
static void test_mask_escaped_forms(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    const char *secrets[] = {"Tok/en\"q\\z"};
    exec_request r = {.secrets = secrets, .n_secrets = 1, .arena = a};
    /* JSON escapes: \/ \" \\ */
    assert_string_equal(exec_mask(&r, "{\"k\":\"Tok\\/en\\\"q\\\\z\"}", a), "{\"k\":\"****\"}");
    /* \u escapes, upper and lower case hex, mixed with plain bytes */
    assert_string_equal(exec_mask(&r, "x=\\u0054ok\\u002fen\\u0022q\\u005Cz;", a), "x=****;");
    /* percent-encoding, both cases */
    assert_string_equal(exec_mask(&r, "GET /a?t=Tok%2Fen%22q%5cz&n=1", a), "GET /a?t=****&n=1");
    /* JSON inside a JSON string: escaped twice */
    assert_string_equal(
        exec_mask(&r, "{\"m\":\"{\\\"k\\\":\\\"Tok\\\\\\/en\\\\\\\"q\\\\\\\\z\\\"}\"}", a),
        "{\"m\":\"{\\\"k\\\":\\\"****\\\"}\"}");
    /* a percent-encoded value inside JSON, as a Location header copied into a body */
    assert_string_equal(exec_mask(&r, "{\"next\":\"\\/a?t=Tok%2Fen%22q%5Cz\"}", a),
                        "{\"next\":\"\\/a?t=****\"}");
    /* as a key too */
    assert_string_equal(exec_mask(&r, "{\"Tok\\/en\\\"q\\\\z\":1}", a), "{\"****\":1}");
    /* the raw form still masked; text around an escape that spells nothing untouched */
    assert_string_equal(exec_mask(&r, "raw Tok/en\"q\\z \\u0041 %41", a), "raw **** \\u0041 %41");
    core_arena_free(a);
}

/* Non-ASCII keys: \u escapes (a surrogate pair too) decode to the UTF-8 the key is. */
static void test_mask_unicode_escapes(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    const char *secrets[] = {"cl\xc3\xa9-\xf0\x9f\x94\x91-k"}; /* "clé-🔑-k" */
    exec_request r = {.secrets = secrets, .n_secrets = 1, .arena = a};
    assert_string_equal(exec_mask(&r, "[\"cl\\u00e9-\\ud83d\\udd11-k\"]", a), "[\"****\"]");
    assert_string_equal(exec_mask(&r, "q=cl%C3%A9-%F0%9F%94%91-k", a), "q=****");
    core_arena_free(a);
}

/* The Basic credential: its base64, user:pass and the password each masked, escaped too. */
static void test_mask_basic_auth(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    /* base64("user:pa/ss") as creds.c lists it, with the pair and the password */
    const char *secrets[] = {"dXNlcjpwYS9zcw==", "user:pa/ss", "pa/ss"};
    exec_request r = {.secrets = secrets, .n_secrets = 3, .arena = a};
    assert_string_equal(exec_mask(&r, "{\"auth\":\"Basic dXNlcjpwYS9zcw\\u003d\\u003d\"}", a),
                        "{\"auth\":\"Basic ****\"}");
    assert_string_equal(exec_mask(&r, "{\"p\":\"pa\\/ss\",\"u\":\"user%3Apa%2Fss\"}", a),
                        "{\"p\":\"****\",\"u\":\"****\"}");
    core_arena_free(a);
}

/* Broken escapes are plain bytes: nothing read past the end, nothing lost. */
static void test_mask_broken_escapes(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    const char *secrets[] = {"zz"};
    exec_request r = {.secrets = secrets, .n_secrets = 1, .arena = a};
    const char *t[] = {"\\", "%", "%4", "\\u12", "\\ud83d", "\\ud83d\\u0041", "a\\q%zz"};
    const char *want[] = {"\\", "%", "%4", "\\u12", "\\ud83d", "\\ud83d\\u0041", "a\\q%****"};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        assert_string_equal(exec_mask(&r, t[i], a), want[i]);
    core_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mask_every_occurrence), cmocka_unit_test(test_mask_nothing_to_hide),
        cmocka_unit_test(test_mask_escaped_forms),    cmocka_unit_test(test_mask_unicode_escapes),
        cmocka_unit_test(test_mask_basic_auth),       cmocka_unit_test(test_mask_broken_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
