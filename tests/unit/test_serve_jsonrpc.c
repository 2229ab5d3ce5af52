/* JSON-RPC framing: what is a request, a notification, a response, and which error code
   each malformed message gets (with the id echoed when it could be read). */
#include "testutil.h"

#include "serve/serve.h"

#include <json-c/json.h>
#include <string.h>

static int parse(const char *text, jrpc_msg *m)
{
    char why[200];
    return jrpc_parse(text, strlen(text), m, why, sizeof why);
}

static void test_kinds(void **state)
{
    (void)state;
    jrpc_msg m;
    assert_int_equal(parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}", &m), 0);
    assert_int_equal(m.kind, JRPC_REQUEST);
    assert_string_equal(m.method, "tools/list");
    assert_int_equal(json_object_get_int(m.id), 7);
    assert_null(m.params);
    jrpc_msg_free(&m);

    assert_int_equal(
        parse(" {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"x\",\"params\":{}}\r\n", &m), 0);
    assert_int_equal(m.kind, JRPC_REQUEST);
    assert_string_equal(json_object_get_string(m.id), "a");
    assert_non_null(m.params);
    jrpc_msg_free(&m);

    assert_int_equal(parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &m),
                     0);
    assert_int_equal(m.kind, JRPC_NOTIFICATION);
    assert_null(m.id);
    jrpc_msg_free(&m);

    assert_int_equal(parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", &m), 0);
    assert_int_equal(m.kind, JRPC_RESPONSE);
    jrpc_msg_free(&m);
    assert_int_equal(
        parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1,\"message\":\"x\"}}", &m), 0);
    assert_int_equal(m.kind, JRPC_RESPONSE);
    jrpc_msg_free(&m);

    assert_int_equal(parse("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", &m), 0);
    assert_int_equal(m.kind, JRPC_BATCH);
    jrpc_msg_free(&m);
}

static void test_parse_errors(void **state)
{
    (void)state;
    const char *bad_json[] = {"",         "   ",   "{",           "{\"jsonrpc\":\"2.0\",}",
                              "nul",      "{} {}", "{\"a\":1} x", "{\"jsonrpc\":'2.0'}",
                              "\xff\xfe", NULL};
    for (size_t i = 0; bad_json[i]; i++) {
        jrpc_msg m;
        int rc = parse(bad_json[i], &m);
        if (rc != JRPC_PARSE_ERROR) fail_msg("'%s' gave %d, not a parse error", bad_json[i], rc);
        assert_null(m.id);
        jrpc_msg_free(&m);
    }
    /* A NUL byte inside the text ends nothing: it is garbage. */
    jrpc_msg m;
    char why[100];
    assert_int_equal(jrpc_parse("{\"jsonrpc\":\"2.0\"}\0x", 19, &m, why, sizeof why),
                     JRPC_PARSE_ERROR);
    jrpc_msg_free(&m);
    /* Nesting past the limit is refused, not recursed into. */
    char deep[2 * (JRPC_MAX_DEPTH + 10) + 1];
    for (int i = 0; i < JRPC_MAX_DEPTH + 10; i++) deep[i] = '[';
    for (int i = 0; i < JRPC_MAX_DEPTH + 10; i++) deep[JRPC_MAX_DEPTH + 10 + i] = ']';
    deep[sizeof deep - 1] = '\0';
    assert_int_equal(parse(deep, &m), JRPC_PARSE_ERROR);
    jrpc_msg_free(&m);
}

static void test_invalid_requests(void **state)
{
    (void)state;
    struct {
        const char *text;
        bool id_readable;
    } cases[] = {
        {"42", false},
        {"\"ping\"", false},
        {"{\"id\":1,\"method\":\"ping\"}", true},                     /* no jsonrpc */
        {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", true}, /* wrong version */
        {"{\"jsonrpc\":2,\"id\":1,\"method\":\"ping\"}", true},
        {"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", false}, /* MCP: no null ids */
        {"{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", false},
        {"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", false},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", true},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}", true},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\\u0000b\"}", true},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"result\":{}}", true},
        {"{\"jsonrpc\":\"2.0\",\"id\":1}", true},                           /* nothing */
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"error\":{}}", true}, /* both */
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":5}", true},
        {NULL, false}};
    for (size_t i = 0; cases[i].text; i++) {
        jrpc_msg m;
        int rc = parse(cases[i].text, &m);
        if (rc != JRPC_INVALID_REQUEST)
            fail_msg("'%s' gave %d, not invalid request", cases[i].text, rc);
        if (cases[i].id_readable)
            assert_non_null(m.id);
        else
            assert_null(m.id);
        jrpc_msg_free(&m);
    }
}

/* Messages that are JSON but not an object or array: Invalid Request naming what they
   are (the JSON null once answered "Parse error: success"). */
static void test_not_objects(void **state)
{
    (void)state;
    const char *cases[][2] = {{"null", "not null"},      {" null \n", "not null"},
                              {"42", "not a number"},    {"1.5", "not a number"},
                              {"true", "not a boolean"}, {"\"ping\"", "not a string"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        jrpc_msg m;
        char why[200];
        int rc = jrpc_parse(cases[i][0], strlen(cases[i][0]), &m, why, sizeof why);
        if (rc != JRPC_INVALID_REQUEST)
            fail_msg("'%s' gave %d, not invalid request", cases[i][0], rc);
        if (!strstr(why, cases[i][1]) || strstr(why, "success"))
            fail_msg("'%s' said '%s'", cases[i][0], why);
        assert_null(m.id);
        jrpc_msg_free(&m);
    }
}

/* Where a NUL character (\u0000) sits, so that the MCP layer can refuse it by name. */
static void test_nul_at(void **state)
{
    (void)state;
    const char *cases[][2] = {
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":{\"task\":\"x\\u0000y\"}"
         "}}",
         "params.a.task"},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"l\":[\"ok\",\"\\u0000\"]}}",
         "params.l[1]"},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"k\\u0000\":1}}",
         "a member name"},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"k\":\"\\\\u0000\"}}", ""},
        {"{\"jsonrpc\":\"2.0\",\"id\":\"a\\u0000\",\"method\":\"m\"}", ""}, /* echoed whole */
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"k\":\"\\u00001\"}}",
         "params.k"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        jrpc_msg m;
        assert_int_equal(parse(cases[i][0], &m), 0);
        if (strcmp(m.nul_at, cases[i][1]))
            fail_msg("'%s': nul_at '%s', wanted '%s'", cases[i][0], m.nul_at, cases[i][1]);
        jrpc_msg_free(&m);
    }
}

static void test_encode(void **state)
{
    (void)state;
    jrpc_msg m;
    assert_int_equal(parse("{\"jsonrpc\":\"2.0\",\"id\":\"x/1\",\"method\":\"m\"}", &m), 0);
    size_t len;
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "ok", json_object_new_boolean(1));
    char *s = jrpc_result(m.id, r, &len);
    assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"id\":\"x/1\",\"result\":{\"ok\":true}}");
    assert_int_equal(len, strlen(s));
    free(s);
    s = jrpc_error(m.id, JRPC_METHOD_NOT_FOUND, "Method not found: m", NULL, &len);
    assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"id\":\"x/1\",\"error\":{\"code\":-32601,"
                           "\"message\":\"Method not found: m\"}}");
    free(s);
    jrpc_msg_free(&m);
    /* No id: the member is left out (MCP's RequestId has no null). */
    struct json_object *data = json_object_new_object();
    json_object_object_add(data, "k", json_object_new_int(1));
    s = jrpc_error(NULL, JRPC_PARSE_ERROR, "bad", data, &len);
    assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"bad\","
                           "\"data\":{\"k\":1}}}");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_invalid_requests),
        cmocka_unit_test(test_not_objects),
        cmocka_unit_test(test_nul_at),
        cmocka_unit_test(test_encode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
