/* call_endpoint and POST /v1/call without a network (serve/call.c): off unless the server
   allows calls (not listed, refused naming --allow-calls), the annotations following
   --allow-write, argument checks, an unknown endpoint, and the HTTP statuses. Calls that
   reach an API are tested end to end (tests/e2e/test_mcp_call.sh, test_http_call.sh). */
#include "serve_testutil.h"

#include "serve/serve_int.h"

#define MODERN                                                                                     \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                       \
    "\"io.modelcontextprotocol/clientCapabilities\":{},"                                           \
    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}"

typedef sv_served fixture;

static int setup(void **state)
{
    *state = sv_serve();
    return 0;
}

static int teardown(void **state)
{
    sv_served_free(*state);
    return 0;
}

/* One stdio exchange with a server made with calls; the parsed reply. */
static struct json_object *exchange(fixture *f, const serve_call_config *calls, const char *line)
{
    mcp_server *srv = NULL;
    apidex_error err;
    mcp_server_options o = {.calls = calls};
    assert_int_equal(mcp_server_new(f->sdb, &o, &srv, &err), 0);
    mcp_stdio_state st = {.legacy_rev = -1};
    char *reply = NULL;
    size_t len = 0;
    assert_int_equal(mcp_handle_stdio(srv, &st, line, strlen(line), &reply, &len), 0);
    mcp_stdio_state_clear(&st);
    mcp_server_free(srv);
    assert_non_null(reply);
    struct json_object *r = sv_parse(reply);
    free(reply);
    return r;
}

/* The call_endpoint entry of tools/list, or NULL. */
static struct json_object *listed(struct json_object *reply)
{
    struct json_object *tools = sv_at(reply, "result.tools");
    assert_non_null(tools);
    for (size_t i = 0; i < json_object_array_length(tools); i++) {
        struct json_object *t = json_object_array_get_idx(tools, i);
        if (!strcmp(serve_jget_str(t, "name"), "call_endpoint")) return t;
    }
    return NULL;
}

static bool hint(struct json_object *tool, const char *name)
{
    struct json_object *an = NULL, *v = NULL;
    assert_true(json_object_object_get_ex(tool, "annotations", &an));
    assert_true(json_object_object_get_ex(an, name, &v));
    return json_object_get_boolean(v);
}

static void test_listed_only_when_allowed(void **state)
{
    fixture *f = *state;
    const char *list =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" MODERN "}}";
    serve_call_config off = {0}, ro = {.enabled = true},
                      rw = {.enabled = true, .policy = {.allow_write = true}};
    const serve_call_config *none = NULL;
    struct json_object *r = exchange(f, none, list);
    assert_null(listed(r));
    json_object_put(r);
    r = exchange(f, &off, list); /* a config that is not enabled is off too */
    assert_null(listed(r));
    json_object_put(r);
    r = exchange(f, &ro, list);
    struct json_object *t = listed(r);
    assert_non_null(t);
    assert_true(hint(t, "readOnlyHint"));
    assert_false(hint(t, "destructiveHint"));
    assert_true(hint(t, "openWorldHint"));
    json_object_put(r);
    r = exchange(f, &rw, list);
    t = listed(r);
    assert_false(hint(t, "readOnlyHint"));
    assert_true(hint(t, "destructiveHint"));
    assert_true(hint(t, "openWorldHint"));
    json_object_put(r);
}

static void test_call_refused_when_off(void **state)
{
    fixture *f = *state;
    const char *call = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{" MODERN
                       ",\"name\":\"call_endpoint\",\"arguments\":{\"endpoint\":"
                       "\"films:listTopRated\"}}}";
    struct json_object *r = exchange(f, NULL, call);
    assert_int_equal(json_object_get_int(sv_at(r, "error.code")), JRPC_INVALID_PARAMS);
    assert_non_null(strstr(serve_jget_str(sv_at(r, "error"), "message"), "--allow-calls"));
    json_object_put(r);
    /* the query itself refuses too, whoever calls it */
    serve_snapshot *snap = serve_db_acquire(f->sdb);
    struct json_object *args = sv_parse("{\"endpoint\":\"films:listTopRated\"}"), *out = NULL;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(serve_query_call(snap, NULL, args, &out, &err), APIDEX_EREFUSED);
    assert_non_null(strstr(err.message, "--allow-calls"));
    assert_null(out);
    json_object_put(args);
    serve_snapshot_release(snap);
    assert_int_equal(serve_call_http_status(APIDEX_EREFUSED), 403);
}

/* serve_query_call on args with calls on: the status, and the message in *why. */
static int query(fixture *f, const char *args_json, char *why, size_t cap)
{
    serve_call_config on = {.enabled = true};
    serve_snapshot *snap = serve_db_acquire(f->sdb);
    struct json_object *args = sv_parse(args_json), *out = NULL;
    apidex_error err;
    core_error_clear(&err);
    int rc = serve_query_call(snap, &on, args, &out, &err);
    snprintf(why, cap, "%s", err.message);
    json_object_put(out);
    json_object_put(args);
    serve_snapshot_release(snap);
    return rc;
}

static void test_arguments_checked(void **state)
{
    fixture *f = *state;
    char why[sizeof((apidex_error *)0)->message];
    static const struct {
        const char *args, *words;
        int rc, status;
    } cases[] = {
        {"{}", "missing required argument 'endpoint'", APIDEX_EINVAL, 400},
        {"{\"endpoint\":\"films:listTopRated\",\"bogus\":1}", "unknown argument 'bogus'",
         APIDEX_EINVAL, 400},
        {"{\"endpoint\":\"films:listTopRated\",\"params\":[1]}", "'params' must be an object",
         APIDEX_EINVAL, 400},
        {"{\"endpoint\":\"films:listTopRated\",\"budget\":0}", "'budget' must be an integer",
         APIDEX_EINVAL, 400},
        {"{\"endpoint\":\"films:listTopRated\",\"dry_run\":\"yes\"}", "'dry_run' must be true",
         APIDEX_EINVAL, 400},
        {"{\"endpoint\":7}", "'endpoint' must be a string", APIDEX_EINVAL, 400},
        {"{\"endpoint\":\"films:noSuchThing\"}", "no endpoint with id", APIDEX_ENOTFOUND, 404},
        {"{\"endpoint\":\"GET /nowhere\",\"api\":\"films\"}", "", APIDEX_ENOTFOUND, 404},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = query(f, cases[i].args, why, sizeof why);
        if (rc != cases[i].rc || !strstr(why, cases[i].words))
            fail_msg("%s: rc %d (%s), want %d with '%s'", cases[i].args, rc, why, cases[i].rc,
                     cases[i].words);
        assert_int_equal(serve_call_http_status(rc), cases[i].status);
    }
    assert_int_equal(serve_call_http_status(APIDEX_ENET), 502);
    assert_int_equal(serve_call_http_status(0), 200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listed_only_when_allowed),
        cmocka_unit_test(test_call_refused_when_off),
        cmocka_unit_test(test_arguments_checked),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
