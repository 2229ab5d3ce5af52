/* Tests for the origin rules of exec_build and exec_call (docs/EXECUTE.md, Origins): a
   hostile caller's server variables, server overrides, path values, headers, control
   characters and NUL bytes, against tests/data/exec/origin.yaml with an API key in the
   environment. Nothing is sent: every refusal happens before the transport. */
#include "exec_testutil.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY "origin-unit-s3cret"

static spec_registry *reg;
static const spec_api *api;

static int setup(void **state)
{
    (void)state;
    reg = ex_fixture("tests/data/exec/origin.yaml");
    api = spec_registry_api(reg, 0);
    unsetenv("APIDEX_CREDENTIALS");
    setenv("HOME", "/nonexistent-apidex-home", 1);
    unsetenv("XDG_CONFIG_HOME");
    core_arena *a = core_arena_new(0);
    setenv(exec_creds_env_name(api->id, "key", NULL, a), KEY, 1);
    setenv(exec_creds_env_name(api->id, "hostkey", NULL, a), KEY, 1);
    core_arena_free(a);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    spec_registry_free(reg);
    return 0;
}

typedef struct call {
    const char *op;
    const char *const *params; /* NULL-terminated */
    const char *server;
    const char *const *allow; /* NULL-terminated --allow-host entries */
    bool untrusted;
} call;

static int build(const call *c, exec_request *r, apidex_error *err)
{
    size_t n = 0, na = 0;
    while (c->params && c->params[n]) n++;
    while (c->allow && c->allow[na]) na++;
    exec_build_options o = {.params = c->params,
                            .n_params = n,
                            .server = c->server,
                            .allow_hosts = c->allow,
                            .n_allow_hosts = na,
                            .untrusted_server = c->untrusted};
    core_error_clear(err);
    return exec_build(api, ex_op(api, c->op), &o, r, err);
}

/* Whether r carries the key anywhere (header, URL). */
static bool has_key(const exec_request *r)
{
    for (size_t i = 0; i < r->n_headers; i++)
        if (strstr(r->headers[i].value, KEY)) return true;
    return strstr(r->url, KEY) != NULL;
}

static bool has_note(const exec_request *r, const char *text)
{
    for (size_t i = 0; i < r->n_notes; i++)
        if (strstr(r->notes[i], text)) return true;
    return false;
}

/* ---------------------------------------------------------------- exec_url_origin */

static void test_url_origin(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    static const struct {
        const char *url, *want;
    } cases[] = {
        {"https://API.Example.com/v1?x#y", "https://api.example.com:443"},
        {"http://api.example.com", "http://api.example.com:80"},
        {"HTTP://h:8080/", "http://h:8080"},
        {"http://[::1]:8080/x", "http://[::1]:8080"},
        {"http://h:/x", "http://h:80"},
        /* what parsers disagree on, or what is no host: refused */
        {"http://x@evil.example/", NULL},
        {"http://evil.example\\@api.example.com/", NULL},
        {"http://h:99999/", NULL},
        {"http://h:0/", NULL},
        {"http://h:8a/", NULL},
        {"http://h h/", NULL},
        {"http://{sub}.example.com/", NULL},
        {"http:///x", NULL},
        {"ftp://h/", NULL},
        {"h/x", NULL},
        {"http://[::1/", NULL},
        /* IPv4 addresses in short, octal or hex form (URL parsers read "2" as 0.0.0.2): the
           name compared would not be the address connected to */
        {"http://127.0.0.1:8/", "http://127.0.0.1:8"},
        {"http://api2.example.com/", "http://api2.example.com:80"},
        {"http://v1.2x/", "http://v1.2x:80"},
        {"http://2/", NULL},
        {"http://127.1/", NULL},
        {"http://2130706433/", NULL},
        {"http://0x7f.0.0.1/", NULL},
        {"http://0x7f000001/", NULL},
        {"http://0177.0.0.1/", NULL},
        {"http://127.0.0.01/", NULL},
        {"http://127.0.0.256/", NULL},
        {"http://1.2.3.4.5/", NULL},
        {"http://a.2/", NULL},
        {"http://0x/", NULL},
        {"http://1.2.3.4./", NULL},
        {"http://example.com./", "http://example.com.:80"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = exec_url_origin(cases[i].url, a);
        if (!cases[i].want) {
            if (got) fail_msg("%s: got %s, want NULL", cases[i].url, got);
        } else {
            assert_non_null(got);
            assert_string_equal(got, cases[i].want);
        }
    }
    bool exact;
    assert_true(exec_allow_entry_matches("http://h:8080", "http://h:8080", &exact) && exact);
    assert_false(exec_allow_entry_matches("http://h:8080", "https://h:8080", &exact));
    assert_true(exec_allow_entry_matches("H", "https://h:8443", &exact) && !exact);
    assert_true(exec_allow_entry_matches("h:8443", "http://h:8443", &exact) && !exact);
    assert_false(exec_allow_entry_matches("h:8443", "http://h:80", &exact));
    assert_false(exec_allow_entry_matches("h", "http://evil.h:80", &exact));
    assert_true(exec_allow_entry_matches("[::1]:80", "http://[::1]:80", &exact));
    assert_true(exec_allow_entry_matches("http://h:8080/", "http://h:8080", &exact) && exact);
    /* an entry apidex does not read allows nothing: a path, a query, a control character or
       a byte outside printable ASCII anywhere (curl refuses such a URL; apidex read only
       its authority and sent the API key there), an empty or oversized entry */
    static const struct {
        const char *entry, *origin;
    } bad[] = {
        {"http://4/v0\xf3http:%:%8/\bhttp://4/v0", "http://4:80"},
        {"http://h/\b", "http://h:80"},
        {"http://h:8080/v1", "http://h:8080"},
        {"http://h?x", "http://h:80"},
        {"http://h#x", "http://h:80"},
        {"h/", "http://h:80"},
        {"h/v1", "http://h:80"},
        {"h\t", "http://h:80"},
        {" h", "http://h:80"},
        {"h\x7f", "http://h:80"},
        {"", "http://h:80"},
        {"*", "http://h:80"},
        {"http://x@h", "http://h:80"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (exec_allow_entry_valid(bad[i].entry))
            fail_msg("entry '%s' read as valid", bad[i].entry);
        if (exec_allow_entry_matches(bad[i].entry, bad[i].origin, &exact) || exact)
            fail_msg("entry '%s' allows %s", bad[i].entry, bad[i].origin);
    }
    char big[600];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_false(exec_allow_entry_valid(big));
    core_arena_free(a);
}

static void test_api_origins(void **state)
{
    (void)state;
    core_arena *a = core_arena_new(0);
    const char **o = NULL;
    size_t n = 0;
    /* every enum combination of the variables in the authority */
    assert_int_equal(exec_api_origins(api, ex_op(api, "getRegional"), a, &o, &n), 0);
    assert_int_equal(n, 4);
    const char *want[] = {"https://eu.example.com:443", "https://us.example.com:443",
                          "https://eu.example.com:8443", "https://us.example.com:8443"};
    for (size_t i = 0; i < 4; i++) {
        bool found = false;
        for (size_t j = 0; j < n; j++) found = found || !strcmp(o[j], want[i]);
        if (!found) fail_msg("no origin %s", want[i]);
    }
    /* a variable without an enum: its default only */
    assert_int_equal(exec_api_origins(api, ex_op(api, "getTenant"), a, &o, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(o[0], "https://acme.tenant.example.net:443");
    assert_int_equal(exec_api_origins(api, ex_op(api, "getItem"), a, &o, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(o[0], "https://api.example.com:443");
    core_arena_free(a);
}

/* ---------------------------------------------------------------- server variables */

static void test_server_variable_injection(void **state)
{
    (void)state;
    static const char *const attacks[] = {"tenant=evil.example:443/#",
                                          "tenant=x@evil.example/",
                                          "tenant=evil.example?",
                                          "tenant=evil.example\\",
                                          "tenant=a b",
                                          "tenant=a\tb",
                                          "tenant=evil.example:8443",
                                          "tenant=.",
                                          "tenant=.."};
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++) {
        const char *p[] = {attacks[i], NULL};
        exec_request r;
        apidex_error err;
        assert_int_equal(build(&(call){.op = "getTenant", .params = p}, &r, &err), APIDEX_EINVAL);
        if (!strstr(err.message, "server variable 'tenant'"))
            fail_msg("%s: %s", attacks[i], err.message);
    }
    /* the path variable too: no / to climb with */
    const char *ver[] = {"version=../../admin", NULL};
    exec_request r;
    apidex_error err;
    assert_int_equal(build(&(call){.op = "getTenant", .params = ver}, &r, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "server variable 'version'"));
    /* an enum variable: only its values */
    const char *bad_enum[] = {"region=evil.example/#", NULL};
    assert_int_equal(build(&(call){.op = "getRegional", .params = bad_enum}, &r, &err),
                     APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "server variable 'region'"));
    assert_non_null(strstr(err.message, "eu|us"));
    const char *us[] = {"region=us", "port=8443", NULL};
    assert_int_equal(build(&(call){.op = "getRegional", .params = us}, &r, &err), 0);
    assert_string_equal(r.url, "https://us.example.com:8443/v1/regional");
    assert_true(r.origin_allowed);
    assert_true(has_key(&r));
    exec_build_free(&r);
}

static void test_server_variable_other_host(void **state)
{
    (void)state;
    /* a value that cannot change the authority but names another host: built, no
       credential, and exec_call refuses it before the transport */
    const char *p[] = {"tenant=other", NULL};
    exec_request r;
    apidex_error err;
    assert_int_equal(build(&(call){.op = "getTenant", .params = p}, &r, &err), 0);
    assert_string_equal(r.url, "https://other.tenant.example.net/v2/tenant");
    assert_false(r.origin_allowed);
    assert_false(has_key(&r));
    assert_int_equal(r.n_secrets, 0);
    assert_true(has_note(&r, "no credentials attached"));
    struct json_object *shaped = NULL;
    assert_int_equal(exec_call(&r, api, ex_op(api, "getTenant"), NULL, NULL, &shaped, &err),
                     APIDEX_EREFUSED);
    assert_non_null(strstr(err.message, "rule: origin"));
    assert_null(shaped);
    exec_build_free(&r);
    /* percent-encoded, a host no longer: the address is not read, refused */
    const char *pct[] = {"tenant=other%", NULL};
    assert_int_equal(build(&(call){.op = "getTenant", .params = pct}, &r, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "does not read safely"));
    /* the default: the API's origin, with the key */
    assert_int_equal(build(&(call){.op = "getTenant"}, &r, &err), 0);
    assert_true(r.origin_allowed);
    assert_true(has_key(&r));
    exec_build_free(&r);
}

/* ---------------------------------------------------------------- server overrides */

static void test_server_override(void **state)
{
    (void)state;
    const char *id[] = {"id=1", NULL};
    exec_request r;
    apidex_error err;
    static const char *const refused[] = {"http://api.example.com/v1",
                                          "https://api.example.com:8443/v1",
                                          "http://API.example.com:443/v1"};
    for (size_t i = 0; i < 3; i++) {
        for (int untrusted = 0; untrusted < 2; untrusted++) {
            call c = {.op = "getItem", .params = id, .server = refused[i], .untrusted = untrusted};
            assert_int_equal(build(&c, &r, &err), APIDEX_EREFUSED);
            assert_non_null(strstr(err.message, "a scheme downgrade or a port change"));
        }
    }
    /* a bare host allows nothing more on the API's host; the full origin does */
    const char *bare[] = {"api.example.com", NULL}, *full[] = {"http://api.example.com", NULL};
    call c = {.op = "getItem", .params = id, .server = refused[0], .allow = bare};
    assert_int_equal(build(&c, &r, &err), APIDEX_EREFUSED);
    c.allow = full;
    assert_int_equal(build(&c, &r, &err), 0);
    assert_true(r.origin_allowed);
    assert_true(has_key(&r));
    exec_build_free(&r);
    /* another host from the command line: reached, without the key */
    c = (call){.op = "getItem", .params = id, .server = "http://127.0.0.1:9/v1"};
    assert_int_equal(build(&c, &r, &err), 0);
    assert_true(r.origin_allowed);
    assert_false(has_key(&r));
    assert_true(has_note(&r, "--allow-host http://127.0.0.1:9"));
    exec_build_free(&r);
    /* ... from a model: refused unless allowed; a bare host allows it without the key */
    c.untrusted = true;
    assert_int_equal(build(&c, &r, &err), APIDEX_EREFUSED);
    assert_non_null(strstr(err.message, "not an origin of the API"));
    const char *host[] = {"127.0.0.1:9", NULL}, *origin[] = {"http://127.0.0.1:9", NULL};
    c.allow = host;
    assert_int_equal(build(&c, &r, &err), 0);
    assert_false(has_key(&r));
    exec_build_free(&r);
    c.allow = origin;
    assert_int_equal(build(&c, &r, &err), 0);
    assert_true(has_key(&r));
    exec_build_free(&r);
    /* a {variable} in the command line's server is filled by a caller's value: that origin
       is not the user's choice */
    const char *hv[] = {"id=1", "hostname=other.example", NULL};
    c = (call){.op = "getItem", .params = hv, .server = "https://{hostname}/v1"};
    int hrc = build(&c, &r, &err);
    if (hrc != APIDEX_EREFUSED) fail_msg("%d: %s", hrc, err.message);
    assert_non_null(strstr(err.message, "not an origin of the API"));
    /* user info or a backslash in a server: not read, refused */
    c = (call){.op = "getItem", .params = id, .server = "https://api.example.com@evil.example/v1"};
    assert_int_equal(build(&c, &r, &err), APIDEX_EINVAL);
    c.server = "https://evil.example\\.api.example.com/v1";
    assert_int_equal(build(&c, &r, &err), APIDEX_EINVAL);
}

/* ---------------------------------------------------------------- path values */

static void test_dot_segments(void **state)
{
    (void)state;
    exec_request r;
    apidex_error err;
    static const char *const dots[] = {"id=..", "id=."};
    for (size_t i = 0; i < 2; i++) {
        const char *p[] = {dots[i], NULL};
        assert_int_equal(build(&(call){.op = "getItem", .params = p}, &r, &err), APIDEX_EINVAL);
        assert_non_null(strstr(err.message, "parameter 'id' (path)"));
        assert_non_null(strstr(err.message, "dot segment"));
    }
    /* label style writes ".": a value "." would make ".." */
    const char *label[] = {"v=.", NULL};
    assert_int_equal(build(&(call){.op = "getLabel", .params = label}, &r, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "parameter 'v' (path)"));
    /* one segment: / encoded, and dots inside a segment are fine */
    const char *p[] = {"id=../a/..b", NULL};
    assert_int_equal(build(&(call){.op = "getItem", .params = p}, &r, &err), 0);
    assert_string_equal(r.url, "https://api.example.com/v1/items/..%2Fa%2F..b");
    exec_build_free(&r);
}

/* ---------------------------------------------------------------- headers and values */

static void test_framing_headers(void **state)
{
    (void)state;
    exec_request r;
    apidex_error err;
    const char *ok[] = {"id=1", NULL};
    assert_int_equal(build(&(call){.op = "getItem", .params = ok}, &r, &err), 0);
    assert_null(ex_header(&r, "Host"));
    assert_true(has_note(&r, "header parameter 'Host' is not sent"));
    exec_build_free(&r);
    static const char *const given[] = {"Host=evil.example", "host=evil.example",
                                        "Transfer-Encoding=chunked", "header:Host=x"};
    for (size_t i = 0; i < 4; i++) {
        const char *p[] = {"id=1", given[i], NULL};
        assert_int_equal(build(&(call){.op = "getItem", .params = p}, &r, &err), APIDEX_EINVAL);
        assert_non_null(strstr(err.message, "apidex never sends"));
    }
    /* an apiKey scheme in the Host header is not applied */
    assert_int_equal(build(&(call){.op = "getHostKey"}, &r, &err), 0);
    assert_false(has_key(&r));
    assert_true(has_note(&r, "security scheme 'hostkey'"));
    exec_build_free(&r);
    /* the last line: exec_request_add_header itself */
    assert_int_equal(build(&(call){.op = "getItem", .params = ok}, &r, &err), 0);
    assert_int_equal(exec_request_add_header(&r, "Content-Length", "0", false), APIDEX_EINVAL);
    assert_int_equal(exec_request_add_header(&r, "Proxy-Authorization", "x", false), APIDEX_EINVAL);
    assert_int_equal(exec_request_add_header(&r, "X-A", "a\vb", false), APIDEX_EINVAL);
    assert_int_equal(exec_request_add_header(&r, "X-A: b", "a", false), APIDEX_EINVAL);
    assert_int_equal(exec_request_add_header(&r, "X-A", "a\tb", false), APIDEX_EINVAL);
    assert_int_equal(exec_request_add_header(&r, "X-A", "fine", false), 0);
    exec_build_free(&r);
}

static void test_control_characters(void **state)
{
    (void)state;
    static const struct {
        const char *input, *name;
    } cases[] = {
        {"X-Trace=a\vb", "'X-Trace' (header)"},
        {"X-Trace=a\x7f", "'X-Trace' (header)"},
        {"q=a\x7f", "'q' (query)"},
        {"q=a\nb", "'q' (query)"},
        {"sid=a\rb", "'sid' (cookie)"},
        {"id=a\x01", "'id' (path)"},
        {"tags=[\"a\\u000bb\"]", "'tags' (query)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p[] = {strncmp(cases[i].input, "id=", 3) ? "id=1" : cases[i].input,
                           cases[i].input, NULL};
        if (p[0] == p[1]) p[1] = NULL;
        exec_request r;
        apidex_error err;
        assert_int_equal(build(&(call){.op = "getItem", .params = p}, &r, &err), APIDEX_EINVAL);
        if (!strstr(err.message, cases[i].name) || !strstr(err.message, "control character"))
            fail_msg("%s: %s", cases[i].input, err.message);
    }
}

static void test_nul_bytes(void **state)
{
    (void)state;
    /* a model's params: "\u0000" survives JSON parsing with its length */
    core_arena *a = core_arena_new(0);
    json_object *params = json_tokener_parse("{\"id\": \"1\", \"q\": \"a\\u0000b\"}");
    size_t n = 9;
    apidex_error err;
    core_error_clear(&err);
    assert_null(exec_params_from_json(a, params, &n, &err));
    assert_int_equal(err.code, APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "parameter 'q'"));
    assert_non_null(strstr(err.message, "NUL"));
    json_object_put(params);
    /* nested in an array value (written as JSON, parsed again by exec_build) */
    params = json_tokener_parse("{\"id\": \"1\", \"tags\": [\"a\\u0000b\"]}");
    const char **in = exec_params_from_json(a, params, &n, &err);
    assert_non_null(in);
    exec_request r;
    size_t k = n;
    exec_build_options o = {.params = in, .n_params = k};
    assert_int_equal(exec_build(api, ex_op(api, "getItem"), &o, &r, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "'tags' (query)"));
    assert_non_null(strstr(err.message, "NUL"));
    json_object_put(params);
    core_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_origin),
        cmocka_unit_test(test_api_origins),
        cmocka_unit_test(test_server_variable_injection),
        cmocka_unit_test(test_server_variable_other_host),
        cmocka_unit_test(test_server_override),
        cmocka_unit_test(test_dot_segments),
        cmocka_unit_test(test_framing_headers),
        cmocka_unit_test(test_control_characters),
        cmocka_unit_test(test_nul_bytes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
