/*
 * Tests for the outbound layer (src/net) against real local servers: two plain HTTP servers on
 * 127.0.0.1 (two origins of one host), an HTTPS one on 127.0.0.1 (a self-signed certificate
 * valid 2000-2100, trusted through net_policy.ca_pem) and a plain one on [::1].
 *   - credentials are dropped when a redirect changes the origin (another port, another
 *     scheme), not only the host; https -> http is refused;
 *   - IPv6 literal hosts ("[::1]:PORT" as the allowed-hosts list writes them) work when the
 *     address is allowed, and are refused like IPv4 loopback when it is not;
 *   - an explicitly configured origin is allowed whatever its address; a redirect away from
 *     it is checked (loopback refused);
 *   - an allowed address that is not an IP address is an error naming it;
 *   - schemes compare case-insensitively; base URLs with a query or fragment are refused;
 *   - redirects: none when asked, at most NET_MAX_REDIRECTS, a redirect's body never reaches
 *     the receiver.
 */
#include "testutil.h"

#include "net/net.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <json-c/json.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECRET "s3cr3t-key-net"

static const char cert_pem[] = "-----BEGIN CERTIFICATE-----\n"
                               "MIIBjDCCATKgAwIBAgIBATAKBggqhkjOPQQDAjAUMRIwEAYDVQQDDAkxMjcuMC4w\n"
                               "LjEwIBcNMDAwMTAxMDAwMDAwWhgPMjEwMDAxMDEwMDAwMDBaMBQxEjAQBgNVBAMM\n"
                               "CTEyNy4wLjAuMTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABHhzN3e1ccfC2CFG\n"
                               "DxWgFAhoKWEDrMOsy7ctI1q2L42/XA9fIeh9Zsp7XQSqUmIlRaK3DExRL2sG0qNA\n"
                               "irOuKgCjczBxMA8GA1UdEwEB/wQFMAMBAf8wGgYDVR0RBBMwEYcEfwAAAYIJbG9j\n"
                               "YWxob3N0MA4GA1UdDwEB/wQEAwIChDATBgNVHSUEDDAKBggrBgEFBQcDATAdBgNV\n"
                               "HQ4EFgQUpEYEsiXKE45Tq7XeddEYMlsDaMgwCgYIKoZIzj0EAwIDSAAwRQIgT1OQ\n"
                               "yBDna06hluKOxfdNhWXITGB+CUyqsPRl+PlosTwCIQDrNFipd5qL11wbja/aXd3P\n"
                               "SiNV3qAPVjeilaPCKrv03A==\n"
                               "-----END CERTIFICATE-----\n";
/* a test key for a loopback test server only */
static const char key_pem[] = "-----BEGIN PRIVATE KEY-----\n"
                              "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgnZtzdCzz5LU/gpYF\n"
                              "ypvX9eYx8d8L+cBsVrRxsq2cq0yhRANCAAR4czd3tXHHwtghRg8VoBQIaClhA6zD\n"
                              "rMu3LSNati+Nv1wPXyHofWbKe10EqlJiJUWitwxMUS9rBtKjQIqzrioA\n"
                              "-----END PRIVATE KEY-----\n";

static struct MHD_Daemon *srv_a, *srv_b, *srv_tls, *srv_v6;
static int port_a, port_b, port_tls, port_v6;

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body,
                             const char *location)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "text/plain");
    if (location) MHD_add_response_header(r, "Location", location);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* The credential-bearing parts of the request as JSON. */
static enum MHD_Result echo(struct MHD_Connection *c)
{
    json_object *o = json_object_new_object();
    const char *names[] = {"Authorization", "X-Api-Key", "Cookie"};
    for (size_t i = 0; i < 3; i++) {
        const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, names[i]);
        if (v) json_object_object_add(o, names[i], json_object_new_string(v));
    }
    const char *key = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "api_key");
    if (key) json_object_object_add(o, "api_key", json_object_new_string(key));
    enum MHD_Result ret = reply(c, 200, json_object_to_json_string(o), NULL);
    json_object_put(o);
    return ret;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *data,
                              size_t *size, void **con_cls)
{
    (void)cls, (void)method, (void)version, (void)data, (void)size;
    if (!*con_cls) { /* the headers: wait for the rest */
        *con_cls = (void *)1;
        return MHD_YES;
    }
    if (!strcmp(url, "/hello")) return reply(c, 200, "hello", NULL);
    if (!strcmp(url, "/echo")) return echo(c);
    if (!strcmp(url, "/redirect")) {
        const char *to = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "to");
        const char *code = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "code");
        return reply(c, code ? (unsigned)atoi(code) : 302, "redirect body", to);
    }
    if (!strncmp(url, "/chain/", 7)) {
        int n = atoi(url + 7);
        if (n <= 0) return reply(c, 200, "end of chain", NULL);
        char next[64];
        snprintf(next, sizeof next, "/chain/%d", n - 1);
        return reply(c, 302, "", next);
    }
    return reply(c, 404, "not found", NULL);
}

static struct MHD_Daemon *start(bool tls, bool v6, int *port)
{
    struct sockaddr_in a4 = {.sin_family = AF_INET};
    a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6};
    a6.sin6_addr = in6addr_loopback;
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD;
    if (tls) flags |= MHD_USE_TLS;
    if (v6) flags |= MHD_USE_IPv6;
    struct MHD_Daemon *d =
        tls ? MHD_start_daemon(flags, 0, NULL, NULL, answer, NULL, MHD_OPTION_SOCK_ADDR, &a4,
                               MHD_OPTION_HTTPS_MEM_KEY, key_pem, MHD_OPTION_HTTPS_MEM_CERT,
                               cert_pem, MHD_OPTION_END)
            : MHD_start_daemon(flags, 0, NULL, NULL, answer, NULL, MHD_OPTION_SOCK_ADDR,
                               v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4,
                               MHD_OPTION_END);
    if (!d) return NULL;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    *port = info ? info->port : 0;
    return d;
}

static int setup(void **state)
{
    (void)state;
    srv_a = start(false, false, &port_a);
    srv_b = start(false, false, &port_b);
    if (MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES)
        srv_tls = start(true, false, &port_tls);
    srv_v6 = start(false, true, &port_v6); /* NULL where the host has no IPv6 loopback */
    return srv_a && srv_b && port_a && port_b ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    struct MHD_Daemon *all[] = {srv_a, srv_b, srv_tls, srv_v6};
    for (size_t i = 0; i < 4; i++)
        if (all[i]) MHD_stop_daemon(all[i]);
    return 0;
}

static char *url(const char *scheme, const char *host, int port, const char *path)
{
    static char buf[8][768];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s://%s:%d%s", scheme, host, port, path);
    return b;
}

/* path /redirect?to=<to escaped>[&code=N][&api_key=SECRET] */
static char *redirect_path(const char *to, int code, bool key)
{
    static char buf[4][1024];
    static int next;
    char *b = buf[next++ % 4];
    char *esc = curl_easy_escape(NULL, to, 0);
    int n = snprintf(b, sizeof buf[0], "/redirect?to=%s", esc);
    if (code) n += snprintf(b + n, sizeof buf[0] - (size_t)n, "&code=%d", code);
    if (key) snprintf(b + n, sizeof buf[0] - (size_t)n, "&api_key=%s", SECRET);
    curl_free(esc);
    return b;
}

static const char *any_host[] = {"*"};
static const char *loopback4[] = {"127.0.0.1"};

/* Any host, 127.0.0.1 allowed, the test CA trusted. */
static net_policy local_policy(void)
{
    return (net_policy){.allowed_hosts = any_host,
                        .n_allowed_hosts = 1,
                        .allowed_addresses = loopback4,
                        .n_allowed_addresses = 1,
                        .timeout_ms = 5000,
                        .ca_pem = cert_pem};
}

static const char *secrets[] = {SECRET, "Bearer tok-net", "session=abc"};
static const net_header cred_headers[] = {{"Authorization", "Bearer tok-net", true},
                                          {"X-Api-Key", SECRET, true},
                                          {"Cookie", "session=abc", false}};

static json_object *send_json(const char *u, const net_policy *p, net_response **resp)
{
    net_request r = {
        .url = u, .headers = cred_headers, .n_headers = 3, .secrets = secrets, .n_secrets = 3};
    apidex_error err = {0};
    if (net_send(&r, p, resp, NULL, &err)) fail_msg("%s: %s", u, err.message);
    json_object *o = json_tokener_parse((*resp)->body);
    if (!o) fail_msg("not JSON: %s", (*resp)->body);
    return o;
}

static bool has(json_object *o, const char *name)
{
    return json_object_object_get_ex(o, name, NULL);
}

static void expect_refused(const char *u, const net_policy *p, const char *words)
{
    net_request r = {.url = u, .secrets = secrets, .n_secrets = 3};
    net_response *resp = NULL;
    net_fail why = NET_FAIL_NONE;
    apidex_error err = {0};
    int rc = net_send(&r, p, &resp, &why, &err);
    if (rc != APIDEX_EREFUSED) fail_msg("%s: expected a refusal, got %d: %s", u, rc, err.message);
    assert_int_equal(why, NET_FAIL_REFUSED);
    assert_null(resp);
    if (!strstr(err.message, words)) fail_msg("'%s' does not say '%s'", err.message, words);
    assert_null(strstr(err.message, SECRET));
}

/* The same origin keeps the credentials; another port of the same host is another origin. */
static void test_credentials_dropped_on_origin_change(void **state)
{
    (void)state;
    net_policy p = local_policy();
    net_response *resp = NULL;
    /* same origin: everything arrives (the echo is masked in the response) */
    char to[256];
    snprintf(to, sizeof to, "/echo?api_key=%s", SECRET);
    json_object *o =
        send_json(url("http", "127.0.0.1", port_a, redirect_path(to, 0, false)), &p, &resp);
    assert_int_equal(resp->redirects, 1);
    assert_true(has(o, "Authorization") && has(o, "X-Api-Key") && has(o, "Cookie"));
    assert_true(has(o, "api_key"));
    assert_null(strstr(resp->body, SECRET));
    json_object_put(o);
    net_response_free(resp);
    /* another port of the same host: none of them, not even the key the Location carries */
    snprintf(to, sizeof to, "http://127.0.0.1:%d/echo?api_key=%s&page=2", port_b, SECRET);
    o = send_json(url("http", "127.0.0.1", port_a, redirect_path(to, 307, true)), &p, &resp);
    assert_int_equal(resp->redirects, 1);
    assert_false(has(o, "Authorization") || has(o, "X-Api-Key") || has(o, "Cookie"));
    assert_false(has(o, "api_key"));
    assert_non_null(strstr(resp->final_url, "page=2"));
    assert_null(strstr(resp->final_url, SECRET));
    json_object_put(o);
    net_response_free(resp);
    /* and they stay dropped when a later hop comes back to the first origin */
    char back[256], via_b[512];
    snprintf(back, sizeof back, "http://127.0.0.1:%d/echo", port_a);
    snprintf(via_b, sizeof via_b, "http://127.0.0.1:%d%s", port_b, redirect_path(back, 0, false));
    o = send_json(url("http", "127.0.0.1", port_a, redirect_path(via_b, 0, false)), &p, &resp);
    assert_int_equal(resp->redirects, 2);
    assert_false(has(o, "Authorization") || has(o, "X-Api-Key") || has(o, "Cookie"));
    json_object_put(o);
    net_response_free(resp);
}

/* http -> https of the same host is another origin (credentials dropped); https -> http is
   refused before anything is sent over http. */
static void test_scheme_changes(void **state)
{
    (void)state;
    if (!srv_tls) skip();
    net_policy p = local_policy();
    net_response *resp = NULL;
    /* the HTTPS server itself, trusted through ca_pem */
    json_object *o = send_json(url("https", "127.0.0.1", port_tls, "/echo"), &p, &resp);
    assert_true(has(o, "Authorization"));
    json_object_put(o);
    net_response_free(resp);
    /* http -> https: followed, without the credentials */
    o = send_json(url("http", "127.0.0.1", port_a,
                      redirect_path(url("https", "127.0.0.1", port_tls, "/echo"), 0, false)),
                  &p, &resp);
    assert_int_equal(resp->redirects, 1);
    assert_false(has(o, "Authorization") || has(o, "X-Api-Key") || has(o, "Cookie"));
    json_object_put(o);
    net_response_free(resp);
    /* https -> http: refused */
    expect_refused(url("https", "127.0.0.1", port_tls,
                       redirect_path(url("http", "127.0.0.1", port_a, "/echo"), 0, false)),
                   &p, "from https to http refused");
    /* an https-only policy refuses plain http outright */
    p.schemes = NET_HTTPS;
    expect_refused(url("http", "127.0.0.1", port_a, "/hello"), &p, "rule: https only");
}

/* "[::1]:PORT" (how the allowed-hosts list of an API call writes an IPv6 server) names the
   host ::1; its address is loopback: allowed like 127.0.0.1 is, by address or allow_private. */
static void test_ipv6_literal(void **state)
{
    (void)state;
    if (!srv_v6) skip();
    char entry[64];
    snprintf(entry, sizeof entry, "[::1]:%d", port_v6);
    const char *hosts[] = {entry};
    const char *v6[] = {"::1"}, *v6b[] = {"[::1]"};
    net_policy p = {.allowed_hosts = hosts, .n_allowed_hosts = 1, .timeout_ms = 5000};
    const char *u = url("http", "[::1]", port_v6, "/hello");
    expect_refused(u, &p, "::1, a loopback address");
    p.allowed_addresses = loopback4; /* 127.0.0.1 is not ::1 */
    p.n_allowed_addresses = 1;
    expect_refused(u, &p, "::1, a loopback address");
    const char *const *allow[] = {v6, v6b};
    for (size_t i = 0; i < 2; i++) {
        p.allowed_addresses = allow[i];
        net_request r = {.url = u};
        net_response *resp = NULL;
        apidex_error err = {0};
        if (net_send(&r, &p, &resp, NULL, &err)) fail_msg("%s", err.message);
        assert_int_equal(resp->status, 200);
        assert_string_equal(resp->body, "hello");
        net_response_free(resp);
    }
    p.allowed_addresses = NULL;
    p.n_allowed_addresses = 0;
    p.allow_private = true;
    net_request r = {.url = u};
    net_response *resp = NULL;
    apidex_error err = {0};
    if (net_send(&r, &p, &resp, NULL, &err)) fail_msg("%s", err.message);
    assert_int_equal(resp->status, 200);
    net_response_free(resp);
    /* the entry forms name their host, not more: [::2] is another host */
    const char *other[] = {"[::2]:80"};
    p.allowed_hosts = other;
    expect_refused(u, &p, "host [::1] refused (rule: allowed hosts");
}

/* A URL the user configured (an LLM or embedding server, a model hub) allows its origin,
   loopback included; nothing else is widened. */
static void test_explicit_origin(void **state)
{
    (void)state;
    char origin[64];
    snprintf(origin, sizeof origin, "http://127.0.0.1:%d/v1", port_a); /* a path: ignored */
    const char *origins[] = {origin};
    net_policy p = {.allowed_origins = origins, .n_allowed_origins = 1, .timeout_ms = 5000};
    net_request r = {.url = url("HTTP", "127.0.0.1", port_a, "/hello")}; /* any case */
    net_response *resp = NULL;
    apidex_error err = {0};
    if (net_send(&r, &p, &resp, NULL, &err)) fail_msg("%s", err.message);
    assert_int_equal(resp->status, 200);
    net_response_free(resp);
    /* another port of the same address: another origin, not allowed */
    expect_refused(url("http", "127.0.0.1", port_b, "/hello"), &p, "rule: allowed hosts");
    /* with every host allowed, a redirect away from the origin meets the address rule */
    p.allowed_hosts = any_host;
    p.n_allowed_hosts = 1;
    p.private_hint = "--allow-address IP to allow";
    expect_refused(url("http", "127.0.0.1", port_a,
                       redirect_path(url("http", "localhost", port_b, "/hello"), 0, false)),
                   &p, "a loopback address (rule: no private addresses; --allow-address IP");
    expect_refused(url("http", "127.0.0.1", port_a,
                       redirect_path("http://169.254.169.254/latest/meta-data/", 0, false)),
                   &p, "169.254.169.254, a link-local address");
}

/* Policy entries that are not what they claim are errors naming them. */
static void test_invalid_policy(void **state)
{
    (void)state;
    const char *bad[] = {"127.0.0.1", "localhost"};
    net_policy p = local_policy();
    p.allowed_addresses = bad;
    p.n_allowed_addresses = 2;
    net_request r = {.url = url("http", "127.0.0.1", port_a, "/hello")};
    net_response *resp = NULL;
    net_fail why;
    apidex_error err = {0};
    assert_int_equal(net_send(&r, &p, &resp, &why, &err), APIDEX_EINVAL);
    assert_int_equal(why, NET_FAIL_URL);
    assert_non_null(strstr(err.message, "'localhost' is not an IP address"));
    const char *valid[] = {"10.0.0.1", "::1", "[fe80::1]", "::ffff:127.0.0.1"};
    for (size_t i = 0; i < 4; i++) assert_true(net_address_valid(valid[i]));
    const char *invalid[] = {"", "localhost", "[127.0.0.1]", "10.0.0.256", "1.2.3", "::1]", NULL};
    for (size_t i = 0; i < 7; i++) assert_false(net_address_valid(invalid[i]));
    const char *origins[] = {"ftp://x"};
    p = local_policy();
    p.allowed_origins = origins;
    p.n_allowed_origins = 1;
    assert_int_equal(net_send(&r, &p, &resp, NULL, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "'ftp://x'"));
}

static void test_base_urls(void **state)
{
    (void)state;
    assert_null(net_base_url_problem("https://api.example.com/v1"));
    assert_null(net_base_url_problem("HTTP://API.example.com"));
    assert_null(net_base_url_problem("http://[::1]:8080/x"));
    assert_non_null(strstr(net_base_url_problem("https://api.example.com/v1?key=1"), "query"));
    assert_non_null(strstr(net_base_url_problem("https://api.example.com/v1#top"), "fragment"));
    assert_non_null(strstr(net_base_url_problem("ftp://api.example.com"), "not http(s)"));
    assert_non_null(net_base_url_problem("http://"));
    assert_true(net_url_is_http("Https://x"));
    assert_false(net_url_is_http("file:///etc/passwd"));
}

typedef struct sink {
    char data[256];
    size_t len;
    long status;
    unsigned calls;
} sink;

static bool collect(void *ctx, long status, const char *type, const char *p, size_t n)
{
    (void)type;
    sink *s = ctx;
    s->status = status;
    s->calls++;
    if (s->len + n >= sizeof s->data) return false;
    memcpy(s->data + s->len, p, n);
    s->len += n;
    return true;
}

static void test_redirect_limits_and_sink(void **state)
{
    (void)state;
    net_policy p = local_policy();
    /* a receiver gets the final body only, never a redirect's */
    sink s = {0};
    net_request r = {.url = url("http", "127.0.0.1", port_a, redirect_path("/hello", 0, false)),
                     .on_body = collect,
                     .body_ctx = &s};
    net_response *resp = NULL;
    apidex_error err = {0};
    if (net_send(&r, &p, &resp, NULL, &err)) fail_msg("%s", err.message);
    assert_int_equal(resp->status, 200);
    assert_int_equal(resp->body_len, 0);
    assert_int_equal(s.status, 200);
    assert_int_equal(s.len, 5);
    assert_memory_equal(s.data, "hello", 5);
    net_response_free(resp);
    /* no redirects: the 3xx is the answer */
    p.max_redirects = NET_NO_REDIRECTS;
    net_request plain = {.url = r.url};
    if (net_send(&plain, &p, &resp, NULL, &err)) fail_msg("%s", err.message);
    assert_int_equal(resp->status, 302);
    assert_int_equal(resp->redirects, 0);
    assert_non_null(net_response_header(resp, "location"));
    net_response_free(resp);
    /* at most NET_MAX_REDIRECTS, whatever a use asks for */
    p.max_redirects = 50;
    plain.url = url("http", "127.0.0.1", port_a, "/chain/5");
    if (net_send(&plain, &p, &resp, NULL, &err)) fail_msg("%s", err.message);
    assert_int_equal(resp->redirects, 5);
    net_response_free(resp);
    expect_refused(url("http", "127.0.0.1", port_a, "/chain/6"), &p, "more than 5 redirects");
}

static void test_nothing_allowed_by_default(void **state)
{
    (void)state;
    expect_refused(url("http", "127.0.0.1", port_a, "/hello"), NULL, "rule: allowed hosts");
    net_policy p = {.allowed_hosts = any_host, .n_allowed_hosts = 1};
    expect_refused(url("http", "127.0.0.1", port_a, "/hello"), &p, "a loopback address");
    expect_refused("file:///etc/passwd", &p, "rule: http and https only");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_credentials_dropped_on_origin_change),
        cmocka_unit_test(test_scheme_changes),
        cmocka_unit_test(test_ipv6_literal),
        cmocka_unit_test(test_explicit_origin),
        cmocka_unit_test(test_invalid_policy),
        cmocka_unit_test(test_base_urls),
        cmocka_unit_test(test_redirect_limits_and_sink),
        cmocka_unit_test(test_nothing_allowed_by_default),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
