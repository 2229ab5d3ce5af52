/* Tests for the OAuth2 client-credentials token cache against a real token endpoint on
   127.0.0.1: fetch, cache, refresh, the form-body fallback, the disk cache, masking. */
#include "testutil.h"

#include "exec/exec.h"
#include "exec_testserver.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_int issued; /* tokens the endpoint handed out */
static atomic_int requests;

#define CLIENT_ID     "client-1"
#define CLIENT_SECRET "s3cret/1+x"
/* base64("client-1:s3cret%2F1%2Bx"): RFC 6749 form-encodes id and secret before Basic */
#define BASIC "Basic Y2xpZW50LTE6czNjcmV0JTJGMSUyQng="

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result answer(struct MHD_Connection *c, const char *url, const char *method,
                              const char *form)
{
    atomic_fetch_add(&requests, 1);
    if (strcmp(url, "/token") || strcmp(method, "POST"))
        return reply(c, 404, "{\"error\":\"not found\"}");
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    const char *mode = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "mode");
    const char *ttl = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "ttl");
    if (!type || strcmp(type, "application/x-www-form-urlencoded") ||
        !strstr(form, "grant_type=client_credentials"))
        return reply(c, 400, "{\"error\":\"invalid_request\"}");
    bool ok;
    if (mode && !strcmp(mode, "post")) /* this server reads only the form body */
        ok = !auth && strstr(form, "client_id=" CLIENT_ID) &&
             strstr(form, "client_secret=s3cret%2F1%2Bx");
    else
        ok = auth && !strcmp(auth, BASIC);
    if (!ok) {
        char body[512];
        /* a careless server echoing what it got: the client must mask it */
        snprintf(body, sizeof body,
                 "{\"error\":\"invalid_client\",\"error_description\":\"bad credentials %.200s\"}",
                 form);
        return reply(c, 401, body);
    }
    const char *scope = strstr(form, "scope=");
    int n = atomic_fetch_add(&issued, 1) + 1;
    char body[256];
    snprintf(body, sizeof body,
             "{\"access_token\":\"tok-%d%s%.*s\",\"token_type\":\"Bearer\",\"expires_in\":%s}", n,
             scope ? "-" : "", scope ? (int)strcspn(scope + 6, "&") : 0, scope ? scope + 6 : "",
             ttl ? ttl : "3600");
    return reply(c, 200, body);
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

static const char *test_addrs[] = {"127.0.0.1"};

/* The API's own hosts only: the token endpoint's host is added by the cache. */
static exec_oauth *new_cache(const char *dir)
{
    static const char *hosts[] = {"api.example.com"};
    exec_policy p = {.allowed_hosts = hosts,
                     .n_allowed_hosts = 1,
                     .allowed_addresses = test_addrs,
                     .n_allowed_addresses = 1,
                     .timeout_ms = 5000};
    exec_oauth *o = NULL;
    apidex_error err = {0};
    if (exec_oauth_new(&p, dir, &o, &err)) fail_msg("%s", err.message);
    return o;
}

static const char *token_url(const char *query)
{
    static char buf[4][256];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "http://127.0.0.1:%d/token%s", et_port, query);
    return b;
}

static const char *get_token(exec_oauth *o, const char *url, const char *scope)
{
    exec_token_fn fn = exec_oauth_token; /* the request helper's callback type */
    const char *token = NULL;
    apidex_error err = {0};
    if (fn(o, url, CLIENT_ID, CLIENT_SECRET, scope, &token, &err)) fail_msg("%s", err.message);
    assert_non_null(token);
    return token;
}

static void test_fetch_and_cache(void **state)
{
    (void)state;
    exec_oauth *o = new_cache(NULL);
    int before = atomic_load(&issued);
    const char *a = get_token(o, token_url(""), NULL);
    char expected[32];
    snprintf(expected, sizeof expected, "tok-%d", before + 1);
    assert_string_equal(a, expected);
    const char *b = get_token(o, token_url(""), NULL);
    assert_ptr_equal(a, b); /* from the cache */
    assert_int_equal(atomic_load(&issued), before + 1);
    assert_int_equal(exec_oauth_fetches(o), 1);
    /* another scope is another token */
    const char *c = get_token(o, token_url(""), "read");
    assert_non_null(strstr(c, "-read"));
    assert_int_equal(atomic_load(&issued), before + 2);
    exec_oauth_free(o);
}

static void test_refresh(void **state)
{
    (void)state;
    exec_oauth *o = new_cache(NULL);
    const char *url = token_url("?ttl=1"); /* fresh for 0.9 s */
    const char *a = get_token(o, url, NULL);
    char first[32];
    snprintf(first, sizeof first, "%s", a);
    assert_string_equal(get_token(o, url, NULL), first);
    assert_int_equal(exec_oauth_fetches(o), 1);
    usleep(1000 * 1000);
    const char *b = get_token(o, url, NULL);
    assert_string_not_equal(b, first);
    assert_int_equal(exec_oauth_fetches(o), 2);
    assert_string_equal(a, first); /* a token handed out earlier stays valid */
    exec_oauth_free(o);
}

static void test_form_body_fallback(void **state)
{
    (void)state;
    exec_oauth *o = new_cache(NULL);
    int before = atomic_load(&requests);
    const char *t = get_token(o, token_url("?mode=post"), NULL);
    assert_non_null(strstr(t, "tok-"));
    assert_int_equal(atomic_load(&requests), before + 2); /* Basic refused, then the form */
    exec_oauth_free(o);
}

static void test_errors_masked(void **state)
{
    (void)state;
    exec_oauth *o = new_cache(NULL);
    const char *token = NULL;
    apidex_error err = {0};
    int rc = exec_oauth_token(o, token_url(""), CLIENT_ID, "wrong-secret-77", NULL, &token, &err);
    assert_int_equal(rc, APIDEX_ENET);
    assert_null(token);
    if (!strstr(err.message, "HTTP 401: invalid_client")) fail_msg("%s", err.message);
    assert_null(strstr(err.message, "wrong-secret-77"));
    /* the secret as the form carried it (percent-encoded) is masked too */
    rc = exec_oauth_token(o, token_url(""), CLIENT_ID, "bad/secret+8", NULL, &token, &err);
    assert_int_equal(rc, APIDEX_ENET);
    assert_null(strstr(err.message, "bad%2Fsecret%2B8"));
    assert_non_null(strstr(err.message, "****"));
    /* a token endpoint on a private address nobody allowed is refused like any call */
    exec_policy none = {.timeout_ms = 5000};
    exec_oauth *strict = NULL;
    assert_int_equal(exec_oauth_new(&none, NULL, &strict, &err), 0);
    rc = exec_oauth_token(strict, token_url(""), CLIENT_ID, CLIENT_SECRET, NULL, &token, &err);
    assert_int_equal(rc, APIDEX_EREFUSED);
    assert_non_null(strstr(err.message, "loopback"));
    assert_null(strstr(err.message, CLIENT_SECRET));
    exec_oauth_free(strict);
    exec_oauth_free(o);
}

static void test_disk_cache(void **state)
{
    (void)state;
    char *tmp = tu_tempdir();
    char *dir = tu_path(tmp, "cache/apidex/oauth");
    exec_oauth *o = new_cache(dir);
    char first[32];
    snprintf(first, sizeof first, "%s", get_token(o, token_url(""), NULL));
    exec_oauth_free(o);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    /* one file, private to us, without the client secret in it */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls %s/*.json", dir);
    FILE *ls = popen(cmd, "r");
    char file[1024] = "";
    assert_non_null(fgets(file, sizeof file, ls));
    pclose(ls);
    file[strcspn(file, "\n")] = 0;
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char text[1024] = "";
    FILE *f = fopen(file, "r");
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    assert_null(strstr(text, CLIENT_SECRET));
    /* a new process (a new cache) reuses it without a request */
    int before = atomic_load(&issued);
    o = new_cache(dir);
    assert_string_equal(get_token(o, token_url(""), NULL), first);
    assert_int_equal(atomic_load(&issued), before);
    assert_int_equal(exec_oauth_fetches(o), 0);
    exec_oauth_free(o);
    /* a file others can read is not trusted: fetched again */
    chmod(file, 0644);
    o = new_cache(dir);
    assert_string_not_equal(get_token(o, token_url(""), NULL), first);
    assert_int_equal(atomic_load(&issued), before + 1);
    exec_oauth_free(o);
    /* another secret never reuses the token of the first */
    o = new_cache(dir);
    const char *t = NULL;
    apidex_error err = {0};
    assert_int_equal(exec_oauth_token(o, token_url(""), CLIENT_ID, "other", NULL, &t, &err),
                     APIDEX_ENET);
    exec_oauth_free(o);
    free(dir);
    tu_rmtree(tmp);
    free(tmp);
}

static void test_default_dir(void **state)
{
    (void)state;
    char buf[512];
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    assert_string_equal(exec_oauth_default_dir(buf, sizeof buf), "/x/cache/apidex/oauth");
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/u", 1);
    assert_string_equal(exec_oauth_default_dir(buf, sizeof buf), "/home/u/.cache/apidex/oauth");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fetch_and_cache),    cmocka_unit_test(test_refresh),
        cmocka_unit_test(test_form_body_fallback), cmocka_unit_test(test_errors_masked),
        cmocka_unit_test(test_disk_cache),         cmocka_unit_test(test_default_dir),
    };
    return cmocka_run_group_tests(tests, start_server, stop_server);
}
