/* Tests for exec_send against a real HTTP server on 127.0.0.1: the safety rules (methods,
   hosts, resolved addresses, redirects, credentials, size cap, timeout) and masking. */
#include "testutil.h"

#include "exec/exec.h"
#include "exec_testserver.h"

#include <curl/curl.h>
#include <json-c/json.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int hits; /* requests the server answered */

#define SECRET "s3cr3t-key-123"

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             const char *body, const char *location)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "X-RateLimit-Remaining", "41");
    if (location) MHD_add_response_header(r, "Location", location);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* The request as JSON: method, the credential-bearing headers, the query and the body. */
static enum MHD_Result echo(struct MHD_Connection *c, const char *method, const char *body)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "method", json_object_new_string(method));
    const char *names[] = {"Authorization", "X-Api-Key", "Cookie", "Content-Type"};
    for (size_t i = 0; i < 4; i++) {
        const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, names[i]);
        if (v) json_object_object_add(o, names[i], json_object_new_string(v));
    }
    const char *key = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "api_key");
    if (key) json_object_object_add(o, "api_key", json_object_new_string(key));
    json_object_object_add(o, "body", json_object_new_string(body ? body : ""));
    enum MHD_Result ret = reply(c, 200, "application/json", json_object_to_json_string(o), NULL);
    json_object_put(o);
    return ret;
}

static enum MHD_Result answer(struct MHD_Connection *c, const char *url, const char *method,
                              const char *body)
{
    atomic_fetch_add(&hits, 1);
    if (!strcmp(url, "/hello")) return reply(c, 200, "application/json", "{\"hello\":1}", NULL);
    if (!strcmp(url, "/echo")) return echo(c, method, body);
    if (!strcmp(url, "/redirect")) {
        const char *to = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "to");
        const char *code = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "code");
        return reply(c, code ? (unsigned)atoi(code) : 302, "text/plain", "moved", to);
    }
    if (!strncmp(url, "/chain/", 7)) {
        int n = atoi(url + 7);
        if (n <= 0) return reply(c, 200, "text/plain", "end of chain", NULL);
        char next[64];
        snprintf(next, sizeof next, "/chain/%d", n - 1);
        return reply(c, 302, "text/plain", "", next);
    }
    if (!strcmp(url, "/big")) {
        static char big[100000];
        memset(big, 'x', sizeof big - 1);
        return reply(c, 200, "text/plain", big, NULL);
    }
    if (!strcmp(url, "/slow")) {
        usleep(1500 * 1000);
        return reply(c, 200, "text/plain", "late", NULL);
    }
    return reply(c, 404, "text/plain", "not found", NULL);
}

static int start_server(void **state)
{
    (void)state;
    return et_start(answer);
}

static int stop_server(void **state)
{
    (void)state;
    et_stop();
    return 0;
}

/* A policy for the test server: its hosts allowed, and exactly 127.0.0.1 among the
   private addresses. */
static const char *test_hosts[] = {"127.0.0.1", "localhost", "10.0.0.1",        "169.254.169.254",
                                   "127.0.0.2", "[::1]",     "::ffff:127.0.0.1"};
static const char *test_addrs[] = {"127.0.0.1"};

static exec_policy test_policy(void)
{
    exec_policy p = {.allowed_hosts = test_hosts,
                     .n_allowed_hosts = sizeof test_hosts / sizeof test_hosts[0],
                     .allowed_addresses = test_addrs,
                     .n_allowed_addresses = 1,
                     .timeout_ms = 5000};
    return p;
}

static char *url_of(const char *host, const char *path)
{
    static char buf[8][640];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "http://%s:%d%s", host, et_port, path);
    return b;
}

static void test_get(void **state)
{
    (void)state;
    exec_request r = {.method = "GET", .url = url_of("127.0.0.1", "/hello")};
    exec_policy p = test_policy();
    exec_response *resp = NULL;
    apidex_error err = {0};
    int rc = exec_send(&r, &p, &resp, &err);
    if (rc) fail_msg("%s", err.message);
    assert_int_equal(resp->status, 200);
    assert_string_equal(resp->body, "{\"hello\":1}");
    assert_int_equal(resp->body_len, 11);
    assert_false(resp->truncated);
    assert_int_equal(resp->redirects, 0);
    assert_string_equal(exec_response_header(resp, "content-type"), "application/json");
    assert_string_equal(exec_response_header(resp, "x-ratelimit-remaining"), "41");
    exec_response_free(resp);
}

static void expect_refused(exec_request *r, const exec_policy *p, const char *words)
{
    exec_response *resp = NULL;
    apidex_error err = {0};
    int before = atomic_load(&hits);
    int rc = exec_send(r, p, &resp, &err);
    if (rc != APIDEX_EREFUSED)
        fail_msg("%s %s: expected a refusal, got %d: %s", r->method, r->url, rc, err.message);
    assert_null(resp);
    if (!strstr(err.message, words)) fail_msg("'%s' does not say '%s'", err.message, words);
    assert_null(strstr(err.message, SECRET));
    (void)before;
}

static void test_refused_write(void **state)
{
    (void)state;
    exec_policy p = test_policy();
    const char *methods[] = {"POST", "PUT", "PATCH", "DELETE"};
    int before = atomic_load(&hits);
    for (size_t i = 0; i < 4; i++) {
        exec_request r = {.method = methods[i],
                          .url = url_of("127.0.0.1", "/echo"),
                          .body = "{}",
                          .body_len = 2,
                          .content_type = "application/json"};
        expect_refused(&r, &p, "rule: read-only");
    }
    assert_int_equal(atomic_load(&hits), before); /* nothing was sent */
    /* with allow_write the same request goes out, body and type included */
    p.allow_write = true;
    exec_request r = {.method = "PUT",
                      .url = url_of("127.0.0.1", "/echo"),
                      .body = "{\"a\":1}",
                      .body_len = 7,
                      .content_type = "application/json"};
    exec_response *resp = NULL;
    apidex_error err = {0};
    if (exec_send(&r, &p, &resp, &err)) fail_msg("%s", err.message);
    json_object *o = json_tokener_parse(resp->body);
    json_object *v;
    assert_true(json_object_object_get_ex(o, "method", &v));
    assert_string_equal(json_object_get_string(v), "PUT");
    assert_true(json_object_object_get_ex(o, "body", &v));
    assert_string_equal(json_object_get_string(v), "{\"a\":1}");
    assert_true(json_object_object_get_ex(o, "Content-Type", &v));
    assert_string_equal(json_object_get_string(v), "application/json");
    json_object_put(o);
    exec_response_free(resp);
    /* HEAD and OPTIONS are read-only */
    p.allow_write = false;
    exec_request head = {.method = "HEAD", .url = url_of("127.0.0.1", "/hello")};
    if (exec_send(&head, &p, &resp, &err)) fail_msg("%s", err.message);
    assert_int_equal(resp->status, 200);
    assert_int_equal(resp->body_len, 0);
    exec_response_free(resp);
}

static void test_refused_host(void **state)
{
    (void)state;
    const char *hosts[] = {"api.example.com"};
    exec_policy p = {.allowed_hosts = hosts, .n_allowed_hosts = 1, .allow_private = true};
    exec_request r = {.method = "GET", .url = url_of("127.0.0.1", "/hello")};
    int before = atomic_load(&hits);
    expect_refused(&r, &p, "host 127.0.0.1 refused (rule: allowed hosts");
    /* no suffix or prefix matching: exact host names only */
    exec_request sub = {.method = "GET", .url = "http://evil.api.example.com/x"};
    expect_refused(&sub, &p, "rule: allowed hosts");
    exec_request longer = {.method = "GET", .url = "http://api.example.com.evil.net/x"};
    expect_refused(&longer, &p, "rule: allowed hosts");
    /* no policy at all: nothing is allowed */
    expect_refused(&r, NULL, "rule: allowed hosts");
    assert_int_equal(atomic_load(&hits), before);
    /* the host is compared case-insensitively */
    const char *upper[] = {"LOCALHOST"};
    exec_policy q = {.allowed_hosts = upper, .n_allowed_hosts = 1, .allow_private = true};
    exec_request ok = {.method = "GET", .url = url_of("localhost", "/hello")};
    /* an entry written host:port names its host */
    const char *with_port[] = {"127.0.0.1:1"};
    exec_policy hp = {.allowed_hosts = with_port, .n_allowed_hosts = 1, .allow_private = true};
    exec_response *hp_resp = NULL;
    apidex_error hp_err = {0};
    if (exec_send(&r, &hp, &hp_resp, &hp_err)) fail_msg("%s", hp_err.message);
    exec_response_free(hp_resp);
    exec_response *resp = NULL;
    apidex_error err = {0};
    if (exec_send(&ok, &q, &resp, &err)) fail_msg("%s", err.message);
    assert_int_equal(resp->status, 200);
    exec_response_free(resp);
}

static void test_scheme_refused(void **state)
{
    (void)state;
    exec_policy p = test_policy();
    exec_request r = {.method = "GET", .url = "ftp://127.0.0.1/file"};
    expect_refused(&r, &p, "rule: http and https only");
    /* a redirect to another scheme too */
    char path[256];
    snprintf(path, sizeof path, "/redirect?to=file:///etc/passwd");
    exec_request red = {.method = "GET", .url = url_of("127.0.0.1", path)};
    expect_refused(&red, &p, "rule: http and https only");
}

/* localhost is an allowed host here, but it resolves to a loopback address. */
static void test_localhost_refused(void **state)
{
    (void)state;
    const char *hosts[] = {"localhost", "127.0.0.1"};
    exec_policy p = {.allowed_hosts = hosts, .n_allowed_hosts = 2, .timeout_ms = 5000};
    int before = atomic_load(&hits);
    exec_request r = {.method = "GET", .url = url_of("localhost", "/hello")};
    expect_refused(&r, &p,
                   "localhost resolves to 127.0.0.1, a loopback address (rule: no "
                   "private addresses");
    exec_request lit = {.method = "GET", .url = url_of("127.0.0.1", "/hello")};
    expect_refused(&lit, &p, "a loopback address");
    assert_int_equal(atomic_load(&hits), before);
    /* allowed: with allow_private, or with exactly this address listed */
    p.allow_private = true;
    exec_response *resp = NULL;
    apidex_error err = {0};
    if (exec_send(&r, &p, &resp, &err)) fail_msg("%s", err.message);
    assert_int_equal(resp->status, 200);
    exec_response_free(resp);
    p.allow_private = false;
    p.allowed_addresses = test_addrs;
    p.n_allowed_addresses = 1;
    if (exec_send(&r, &p, &resp, &err)) fail_msg("%s", err.message);
    assert_int_equal(resp->status, 200);
    exec_response_free(resp);
}

static void test_redirect_to_private_refused(void **state)
{
    (void)state;
    exec_policy p = test_policy(); /* 127.0.0.1 allowed, no other private address */
    char other[64];
    snprintf(other, sizeof other, "127.0.0.2:%d", et_port);
    const struct {
        const char *to, *why;
    } cases[] = {
        {"http://10.0.0.1/admin", "10.0.0.1, a private address"},
        {"http://169.254.169.254/latest/meta-data/", "169.254.169.254, a link-local address"},
        {NULL, "127.0.0.2, a loopback address"},
        {"http://[::1]/x", "::1, a loopback address"},
        {"http://[::ffff:127.0.0.1]/x", "::ffff:127.0.0.1, a loopback address"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char to[128], path[256];
        if (cases[i].to)
            snprintf(to, sizeof to, "%s", cases[i].to);
        else
            snprintf(to, sizeof to, "http://%s/hello", other);
        char *esc = curl_easy_escape(NULL, to, 0);
        snprintf(path, sizeof path, "/redirect?to=%s", esc);
        curl_free(esc);
        exec_request r = {.method = "GET", .url = url_of("127.0.0.1", path)};
        expect_refused(&r, &p, cases[i].why);
    }
}

static void test_redirects_limited(void **state)
{
    (void)state;
    exec_policy p = test_policy();
    exec_request r = {.method = "GET", .url = url_of("127.0.0.1", "/chain/3")};
    exec_response *resp = NULL;
    apidex_error err = {0};
    if (exec_send(&r, &p, &resp, &err)) fail_msg("%s", err.message);
    assert_int_equal(resp->status, 200);
    assert_int_equal(resp->redirects, 3);
    assert_string_equal(resp->body, "end of chain");
    assert_string_equal(resp->final_url, url_of("127.0.0.1", "/chain/0"));
    exec_response_free(resp);
    exec_request four = {.method = "GET", .url = url_of("127.0.0.1", "/chain/4")};
    expect_refused(&four, &p, "more than 3 redirects (rule: at most 3 redirects)");
    p.max_redirects = 1;
    expect_refused(&r, &p, "more than 1 redirects");
}

static json_object *send_json(exec_request *r, const exec_policy *p, exec_response **resp)
{
    apidex_error err = {0};
    if (exec_send(r, p, resp, &err)) fail_msg("%s", err.message);
    json_object *o = json_tokener_parse((*resp)->body);
    if (!o) fail_msg("not JSON: %s", (*resp)->body);
    return o;
}

static const char *member(json_object *o, const char *name)
{
    json_object *v;
    return json_object_object_get_ex(o, name, &v) ? json_object_get_string(v) : NULL;
}

/* Credentials go to their own host, through a same-host redirect, and never to another
   host (127.0.0.1 -> localhost: the same server under another name). */
static void test_credentials_not_forwarded(void **state)
{
    (void)state;
    exec_policy p = test_policy();
    const char *secrets[] = {SECRET, "Bearer tok-999", "tok-999", "session=abc"};
    exec_header headers[] = {{"Authorization", "Bearer tok-999", true},
                             {"X-Api-Key", SECRET, true},
                             {"Cookie", "session=abc", false},
                             {"Accept", "application/json", false}};
    char path[512], to[256];
    /* the same host: everything arrives */
    snprintf(to, sizeof to, "/echo?api_key=%s", SECRET);
    char *esc = curl_easy_escape(NULL, to, 0);
    snprintf(path, sizeof path, "/redirect?to=%s&api_key=%s", esc, SECRET);
    curl_free(esc);
    exec_request r = {.method = "GET",
                      .url = url_of("127.0.0.1", path),
                      .headers = headers,
                      .n_headers = 4,
                      .secrets = secrets,
                      .n_secrets = 4};
    exec_response *resp = NULL;
    json_object *o = send_json(&r, &p, &resp);
    assert_int_equal(resp->redirects, 1);
    /* (the server echoes them; exec_send masks what the response echoes) */
    assert_string_equal(member(o, "Authorization"), "****");
    assert_string_equal(member(o, "X-Api-Key"), "****");
    assert_string_equal(member(o, "Cookie"), "****");
    assert_string_equal(member(o, "api_key"), "****");
    assert_null(strstr(resp->body, SECRET));
    assert_null(strstr(resp->final_url, SECRET));
    json_object_put(o);
    exec_response_free(resp);
    /* another host: none of it, not even the key the server put into the Location */
    snprintf(to, sizeof to, "http://localhost:%d/echo?api_key=%s&page=2", et_port, SECRET);
    esc = curl_easy_escape(NULL, to, 0);
    snprintf(path, sizeof path, "/redirect?to=%s", esc);
    curl_free(esc);
    r.url = url_of("127.0.0.1", path);
    o = send_json(&r, &p, &resp);
    assert_int_equal(resp->redirects, 1);
    assert_null(member(o, "Authorization"));
    assert_null(member(o, "X-Api-Key"));
    assert_null(member(o, "Cookie"));
    assert_null(member(o, "api_key"));
    assert_null(strstr(resp->body, SECRET));
    assert_non_null(strstr(resp->final_url, "page=2"));
    assert_null(strstr(resp->final_url, SECRET));
    json_object_put(o);
    exec_response_free(resp);
}

/* 303 turns into GET without the body; 307 keeps both; a 307 to another host would
   resend a body carrying a credential: refused. */
static void test_redirect_methods(void **state)
{
    (void)state;
    exec_policy p = test_policy();
    p.allow_write = true;
    exec_request r = {.method = "POST",
                      .url = url_of("127.0.0.1", "/redirect?to=/echo&code=303"),
                      .body = "{\"a\":1}",
                      .body_len = 7,
                      .content_type = "application/json"};
    exec_response *resp = NULL;
    json_object *o = send_json(&r, &p, &resp);
    assert_string_equal(member(o, "method"), "GET");
    assert_string_equal(member(o, "body"), "");
    assert_null(member(o, "Content-Type"));
    json_object_put(o);
    exec_response_free(resp);
    r.url = url_of("127.0.0.1", "/redirect?to=/echo&code=307");
    o = send_json(&r, &p, &resp);
    assert_string_equal(member(o, "method"), "POST");
    assert_string_equal(member(o, "body"), "{\"a\":1}");
    json_object_put(o);
    exec_response_free(resp);
    /* without allow_write, a 307 from a read-only call can never become a write */
    const char *secrets[] = {SECRET};
    char to[128], path[256];
    snprintf(to, sizeof to, "http://localhost:%d/echo", et_port);
    char *esc = curl_easy_escape(NULL, to, 0);
    snprintf(path, sizeof path, "/redirect?to=%s&code=307", esc);
    curl_free(esc);
    exec_request cred = {.method = "POST",
                         .url = url_of("127.0.0.1", path),
                         .body = "client_secret=" SECRET,
                         .body_len = strlen("client_secret=" SECRET),
                         .content_type = "application/x-www-form-urlencoded",
                         .secrets = secrets,
                         .n_secrets = 1};
    expect_refused(&cred, &p, "rule: credentials stay with their host");
}

static void test_size_cap(void **state)
{
    (void)state;
    exec_policy p = test_policy();
    p.max_bytes = 1000;
    exec_request r = {.method = "GET", .url = url_of("127.0.0.1", "/big")};
    exec_response *resp = NULL;
    apidex_error err = {0};
    if (exec_send(&r, &p, &resp, &err)) fail_msg("%s", err.message);
    assert_int_equal(resp->status, 200);
    assert_true(resp->truncated);
    assert_int_equal(resp->body_len, 1000);
    assert_int_equal(strlen(resp->body), 1000);
    exec_response_free(resp);
    p.max_bytes = 200000; /* the whole body fits: not truncated */
    if (exec_send(&r, &p, &resp, &err)) fail_msg("%s", err.message);
    assert_false(resp->truncated);
    assert_int_equal(resp->body_len, 99999);
    exec_response_free(resp);
}

static void test_timeout(void **state)
{
    (void)state;
    exec_policy p = test_policy();
    p.timeout_ms = 300;
    exec_request r = {.method = "GET", .url = url_of("127.0.0.1", "/slow")};
    exec_response *resp = NULL;
    apidex_error err = {0};
    int rc = exec_send(&r, &p, &resp, &err);
    assert_int_equal(rc, APIDEX_ENET);
    assert_null(resp);
    if (!strstr(err.message, "timed out after 300 ms")) fail_msg("%s", err.message);
}

static void test_secrets_masked_in_errors(void **state)
{
    (void)state;
    const char *secrets[] = {SECRET};
    exec_policy p = test_policy();
    exec_response *resp = NULL;
    apidex_error err = {0};
    /* a refusal naming the URL */
    exec_request r = {.method = "GET",
                      .url = "ftp://127.0.0.1/x?api_key=" SECRET,
                      .secrets = secrets,
                      .n_secrets = 1};
    assert_int_equal(exec_send(&r, &p, &resp, &err), APIDEX_EREFUSED);
    assert_null(strstr(err.message, SECRET));
    assert_non_null(strstr(err.message, "api_key=****"));
    /* a network failure naming the URL: nothing listens on port 1 */
    r.url = "http://127.0.0.1:1/x?api_key=" SECRET;
    assert_int_equal(exec_send(&r, &p, &resp, &err), APIDEX_ENET);
    assert_null(strstr(err.message, SECRET));
    assert_non_null(strstr(err.message, "api_key=****"));
    /* a timeout naming the URL */
    p.timeout_ms = 200;
    char path[128];
    snprintf(path, sizeof path, "/slow?api_key=%s", SECRET);
    r.url = url_of("127.0.0.1", path);
    assert_int_equal(exec_send(&r, &p, &resp, &err), APIDEX_ENET);
    assert_null(strstr(err.message, SECRET));
    assert_non_null(strstr(err.message, "api_key=****"));
}

static void test_address_classes(void **state)
{
    (void)state;
    const struct {
        const char *ip, *why;
    } cases[] = {
        {"127.0.0.1", "loopback"},
        {"127.9.9.9", "loopback"},
        {"10.1.2.3", "private"},
        {"172.16.0.1", "private"},
        {"172.31.255.255", "private"},
        {"192.168.1.1", "private"},
        {"169.254.169.254", "link-local"},
        {"0.0.0.0", "unspecified"},
        {"100.64.0.1", "shared (carrier-grade NAT)"},
        {"224.0.0.1", "multicast"},
        {"255.255.255.255", "reserved"},
        {"::", "unspecified"},
        {"::1", "loopback"},
        {"fe80::1", "link-local"},
        {"fc00::1", "unique-local"},
        {"fd12:3456::1", "unique-local"},
        {"ff02::1", "multicast"},
        {"::ffff:10.0.0.1", "private"},
        {"::ffff:127.0.0.1", "loopback"},
        {"64:ff9b::a9fe:a9fe", "link-local"},
        {"2002:7f00:1::", "loopback"},
        {"8.8.8.8", NULL},
        {"172.32.0.1", NULL},
        {"2606:4700::1111", NULL},
        {"::ffff:8.8.8.8", NULL},
        {"example.com", "not an IP address"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = exec_address_refusal(NULL, cases[i].ip);
        if (!cases[i].why ? got != NULL : !got || strcmp(got, cases[i].why))
            fail_msg("%s: %s, expected %s", cases[i].ip, got ? got : "allowed",
                     cases[i].why ? cases[i].why : "allowed");
    }
    exec_policy p = {.allowed_addresses = test_addrs, .n_allowed_addresses = 1};
    assert_null(exec_address_refusal(&p, "127.0.0.1"));
    assert_string_equal(exec_address_refusal(&p, "127.0.0.2"), "loopback");
    assert_string_equal(exec_address_refusal(&p, "::ffff:127.0.0.1"), "loopback");
    p.allow_private = true;
    assert_null(exec_address_refusal(&p, "10.0.0.1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get),
        cmocka_unit_test(test_refused_write),
        cmocka_unit_test(test_refused_host),
        cmocka_unit_test(test_scheme_refused),
        cmocka_unit_test(test_localhost_refused),
        cmocka_unit_test(test_redirect_to_private_refused),
        cmocka_unit_test(test_redirects_limited),
        cmocka_unit_test(test_credentials_not_forwarded),
        cmocka_unit_test(test_redirect_methods),
        cmocka_unit_test(test_size_cap),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_secrets_masked_in_errors),
        cmocka_unit_test(test_address_classes),
    };
    return cmocka_run_group_tests(tests, start_server, stop_server);
}
