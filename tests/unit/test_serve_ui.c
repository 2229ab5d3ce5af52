/* The web page's routes in process: every embedded file with its type, ETag (304), CSP and
   caching; the page without a token and its data only with one; GET /v1/index,
   /v1/apis/{id} and /v1/snippet, their errors, and their metrics label; /v1/index's bytes
   as json-c writes the object, from its cache too. The page in a
   browser is tests/e2e/test_web_ui.sh. */
#include "serve_testutil.h"

#include "serve/serve_int.h"

#include <curl/curl.h>
#include <unistd.h>

typedef struct server {
    char *dir, *db;
    serve_db *sdb;
    mcp_server *mcp;
    serve_http *http;
    unsigned port;
} server;

static server *start(const char *token)
{
    server *s = calloc(1, sizeof *s);
    s->db = sv_fixture(&s->dir);
    apidex_error err;
    assert_int_equal(serve_db_open(s->db, 0, &s->sdb, &err), 0);
    assert_int_equal(mcp_server_new(s->sdb, NULL, &s->mcp, &err), 0);
    serve_http_options o = {
        .listen = "127.0.0.1:0", .token = token, .threads = 2, .access_log_fd = -1};
    if (serve_http_start(s->sdb, s->mcp, &o, &s->http, &err)) fail_msg("start: %s", err.message);
    s->port = serve_http_port(s->http);
    return s;
}

static void stop(server *s)
{
    serve_http_stop(s->http);
    mcp_server_free(s->mcp);
    serve_db_close(s->sdb);
    tu_rmtree(s->dir);
    free(s->dir);
    free(s->db);
    free(s);
}

typedef struct reply {
    long status;
    core_buf body, headers;
} reply;

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
    core_buf_append(ud, p, size * n);
    return size * n;
}

static void reply_free(reply *r)
{
    core_buf_free(&r->body);
    core_buf_free(&r->headers);
}

/* GET path with up to two header lines (NULL-terminated). */
static reply get(server *s, const char *path, const char *h1, const char *h2)
{
    reply r = {0};
    core_buf_init(&r.body, 1 << 24);
    core_buf_init(&r.headers, 1 << 20);
    CURL *c = curl_easy_init();
    char url[1024];
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", s->port, path);
    struct curl_slist *hl = NULL;
    if (h1) hl = curl_slist_append(hl, h1);
    if (h2) hl = curl_slist_append(hl, h2);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r.headers);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK) fail_msg("GET %s: %s", path, curl_easy_strerror(rc));
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    return r;
}

static bool has_header(const reply *r, const char *line)
{
    return r->headers.data && strcasestr(r->headers.data, line) != NULL;
}

static void test_assets(void **state)
{
    (void)state;
    server *s = start(NULL);
    assert_true(serve_ui_n_assets >= 3);
    bool saw_index = false;
    for (size_t i = 0; i < serve_ui_n_assets; i++) {
        const serve_ui_asset *a = &serve_ui_assets[i];
        reply r = get(s, a->url, NULL, NULL);
        if (r.status != 200) fail_msg("%s: %ld", a->url, r.status);
        char line[200];
        snprintf(line, sizeof line, "Content-Type: %s", a->content_type);
        assert_true(has_header(&r, line));
        snprintf(line, sizeof line, "ETag: %s", a->etag);
        assert_true(has_header(&r, line));
        assert_true(has_header(&r, "Cache-Control: no-cache"));
        assert_false(has_header(&r, "no-store")); /* the API's default is replaced, not added */
        assert_true(
            has_header(&r, "Content-Security-Policy: default-src 'none'; script-src 'self'"));
        assert_true(has_header(&r, "X-Content-Type-Options: nosniff"));
        assert_int_equal(r.body.len, a->len);
        assert_memory_equal(r.body.data, a->data, a->len);
        reply_free(&r);
        /* the same ETag again: 304 without a body; another: the file */
        snprintf(line, sizeof line, "If-None-Match: \"x\", %s", a->etag);
        r = get(s, a->url, line, NULL);
        assert_int_equal(r.status, 304);
        assert_int_equal(r.body.len, 0);
        reply_free(&r);
        r = get(s, a->url, "If-None-Match: \"other\"", NULL);
        assert_int_equal(r.status, 200);
        reply_free(&r);
        if (!strcmp(a->url, "/")) {
            saw_index = true;
            assert_non_null(strstr((const char *)a->data, "src=\"/ui/app.js\""));
            assert_string_equal(a->content_type, "text/html; charset=utf-8");
        }
    }
    assert_true(saw_index);
    reply r = get(s, "/index.html", NULL, NULL);
    assert_int_equal(r.status, 200);
    reply_free(&r);
    r = get(s, "/ui/nope.js", NULL, NULL);
    assert_int_equal(r.status, 404);
    assert_true(has_header(&r, "Content-Type: application/json"));
    reply_free(&r);
    r = get(s, "/metrics", NULL, NULL);
    assert_non_null(strstr(r.body.data, "apidex_http_requests_total{route=\"/\",code=\"200\"}"));
    assert_non_null(strstr(r.body.data, "apidex_http_requests_total{route=\"/\",code=\"304\"}"));
    reply_free(&r);
    stop(s);
}

static void test_token(void **state)
{
    (void)state;
    server *s = start("ui-token");
    reply r = get(s, "/", NULL, NULL);
    assert_int_equal(r.status, 200); /* the page holds no data: it asks for the token */
    reply_free(&r);
    const char *data[] = {"/v1/index", "/v1/apis/films", "/v1/snippet?id=films:listTopRated"};
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++) {
        r = get(s, data[i], NULL, NULL);
        if (r.status != 401) fail_msg("%s without a token: %ld", data[i], r.status);
        reply_free(&r);
        r = get(s, data[i], "Authorization: Bearer ui-token", NULL);
        if (r.status == 401) fail_msg("%s with the token: 401", data[i]);
        reply_free(&r);
    }
    stop(s);
}

static void test_data(void **state)
{
    (void)state;
    server *s = start(NULL);
    reply r = get(s, "/v1/index", NULL, NULL);
    assert_int_equal(r.status, 200);
    struct json_object *o = sv_parse(r.body.data);
    assert_int_equal(sv_int(o, "apis"), 2);
    assert_int_equal(sv_int(o, "schema_version") > 0, 1);
    assert_true(sv_int(o, "size_bytes") > 0);
    assert_string_equal(sv_str(o, "file"), "idx.db"); /* the name, not where it lives */
    assert_non_null(sv_str(o, "created"));
    assert_int_equal(json_object_array_length(sv_at(o, "documents")), 2);
    /* the fixture's documents do not exist: each says so with an error, none is dropped */
    assert_string_equal(sv_str(o, "documents.0.state"), "unreadable");
    assert_int_equal(sv_int(o, "documents.0.n_errors"), 1);
    assert_string_equal(sv_str(o, "documents.0.warnings.0.level"), "error");
    json_object_put(o);
    reply_free(&r);

    r = get(s, "/v1/apis/films", NULL, NULL);
    assert_int_equal(r.status, 200);
    o = sv_parse(r.body.data);
    assert_string_equal(sv_str(o, "id"), "films");
    assert_non_null(sv_at(o, "operations.0.id"));
    assert_true(json_object_is_type(sv_at(o, "auth"), json_type_null)); /* unreadable */
    json_object_put(o);
    reply_free(&r);

    struct {
        const char *path;
        long status;
    } cases[] = {{"/v1/apis/nope", 404},
                 {"/v1/snippet", 400},
                 {"/v1/snippet?id=", 400},
                 {"/v1/snippet?id=films:listTopRated&lang=cobol", 400},
                 {"/v1/snippet?id=films:listTopRated&color=red", 400},
                 {"/v1/snippet?id=films:listTopRated&p=novalue", 400},
                 {"/v1/snippet?id=films:nope", 404},
                 {"/v1/snippet?id=films:listTopRated", 404}, /* the document is gone */
                 {NULL, 0}};
    for (size_t i = 0; cases[i].path; i++) {
        r = get(s, cases[i].path, NULL, NULL);
        if (r.status != cases[i].status)
            fail_msg("%s: %ld, wanted %ld (%s)", cases[i].path, r.status, cases[i].status,
                     r.body.data ? r.body.data : "");
        o = sv_parse(r.body.data);
        assert_int_equal(sv_int(o, "error.status"), r.status);
        assert_non_null(sv_str(o, "error.message"));
        json_object_put(o);
        reply_free(&r);
    }
    r = get(s, "/v1/snippet?id=films:listTopRated", NULL, NULL);
    assert_non_null(strstr(r.body.data, "index it again"));
    reply_free(&r);
    stop(s);
}

/* /v1/index splices its cached documents array into the reply as bytes: the reply is what
   json-c writes for the whole object (documents last), and the same from the cache. */
static void test_index_bytes(void **state)
{
    (void)state;
    server *s = start(NULL);
    reply first = get(s, "/v1/index", NULL, NULL), again = get(s, "/v1/index", NULL, NULL);
    assert_int_equal(first.status, 200);
    assert_int_equal(again.status, 200);
    assert_int_equal(first.body.len, again.body.len);
    assert_memory_equal(first.body.data, again.body.data, first.body.len);
    struct json_object *o = sv_parse(first.body.data);
    size_t len = 0;
    char *dump = serve_json_dump(o, &len);
    assert_int_equal(len, first.body.len);
    assert_memory_equal(dump, first.body.data, len);
    free(dump);
    struct json_object_iterator it = json_object_iter_begin(o), end = json_object_iter_end(o);
    const char *last = NULL;
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
        last = json_object_iter_peek_name(&it);
    assert_string_equal(last, "documents");
    assert_int_equal(json_object_array_length(sv_at(o, "documents")), 2);
    json_object_put(o);
    reply_free(&first);
    reply_free(&again);
    stop(s);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_assets), cmocka_unit_test(test_token),
                                       cmocka_unit_test(test_data),
                                       cmocka_unit_test(test_index_bytes)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
