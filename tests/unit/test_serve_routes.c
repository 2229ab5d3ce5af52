/* The route table (routes.c) and what it drives: the dispatch (404, 405 with the row's Allow,
   on a real server over 127.0.0.1) and /openapi.json, which must be the document served
   before the table existed (tests/data/serve/openapi_self_before.json, captured from the
   C string it replaced) and have exactly the table's paths and methods. */
#include "serve_testutil.h"

#include "serve/http_int.h"

#include <ctype.h>
#include <curl/curl.h>
#include <strings.h>

static struct json_object *served_document(void)
{
    apidex_error err;
    core_error_clear(&err);
    const char *doc = serve_openapi_document(&err);
    if (!doc) fail_msg("no document: %s", err.message);
    return sv_parse(doc);
}

static char *source_file(const char *rel)
{
    char *path = tu_path(tu_source_dir(), rel);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot read %s", path);
    core_buf b;
    core_buf_init(&b, 1 << 24);
    char part[4096];
    size_t n;
    while ((n = fread(part, 1, sizeof part, f)) > 0) core_buf_append(&b, part, n);
    fclose(f);
    free(path);
    return core_buf_steal(&b, NULL);
}

static void test_document_is_the_one_served_before(void **state)
{
    (void)state;
    char *text = source_file("tests/data/serve/openapi_self_before.json");
    struct json_object *before = sv_parse(text);
    free(text);
    json_object_object_add(sv_at(before, "info"), "version",
                           json_object_new_string(apidex_version()));
    struct json_object *now = served_document();
    if (!json_object_equal(before, now)) {
        /* name the first path that differs, to say where to look */
        json_object_object_foreach(sv_at(before, "paths"), path, item)
        {
            struct json_object *other = NULL;
            json_object_object_get_ex(sv_at(now, "paths"), path, &other);
            if (!json_object_equal(item, other)) fail_msg("paths/%s differs", path);
        }
        fail_msg("the document differs outside its paths");
    }
    json_object_put(before);
    json_object_put(now);
}

/* The methods /openapi.json documents for a row: its Allow list but HEAD, lower-cased. */
static size_t row_methods(const serve_route_def *r, char out[][8])
{
    size_t n = 0;
    char allow[64];
    snprintf(allow, sizeof allow, "%s", r->allow);
    char *save = NULL;
    for (char *m = strtok_r(allow, ", ", &save); m; m = strtok_r(NULL, ", ", &save)) {
        if (!strcmp(m, "HEAD")) continue;
        for (size_t i = 0; i <= strlen(m); i++) out[n][i] = (char)tolower((unsigned char)m[i]);
        n++;
    }
    return n;
}

static void test_table_and_document_name_the_same_routes(void **state)
{
    (void)state;
    struct json_object *doc = served_document();
    struct json_object *paths = sv_at(doc, "paths");
    assert_non_null(paths);
    for (size_t i = 0; i < serve_n_routes; i++) {
        const serve_route_def *r = &serve_routes[i];
        assert_non_null(r->handler);
        struct json_object *item = NULL;
        if (!json_object_object_get_ex(paths, r->path, &item))
            fail_msg("route %s is not in /openapi.json", r->path);
        char methods[4][8];
        size_t n = row_methods(r, methods);
        assert_int_equal(json_object_object_length(item), (int)n);
        for (size_t m = 0; m < n; m++)
            if (!json_object_object_get_ex(item, methods[m], NULL))
                fail_msg("route %s: %s is not in /openapi.json", r->path, methods[m]);
    }
    json_object_object_foreach(paths, path, item)
    {
        (void)item;
        bool found = false;
        for (size_t i = 0; i < serve_n_routes && !found; i++)
            found = !strcmp(serve_routes[i].path, path);
        if (!found) fail_msg("/openapi.json path %s has no route", path);
    }
    json_object_put(doc);
}

/* The data with one edit: the build refuses it, naming the path. */
static void expect_refused(struct json_object *data, const char *names)
{
    const char *text = json_object_to_json_string(data);
    char *out = NULL;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(serve_openapi_build(text, strlen(text), &out, &err), APIDEX_EINVAL);
    assert_null(out);
    if (!strstr(err.message, names)) fail_msg("'%s' does not name %s", err.message, names);
}

static void test_a_route_without_its_document_is_refused(void **state)
{
    (void)state;
    char *text = source_file("src/serve/openapi_self.json");
    char *out = NULL;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(serve_openapi_build(text, strlen(text), &out, &err), 0);
    free(out);
    /* a path no route serves */
    struct json_object *data = sv_parse(text);
    json_object_object_add(sv_at(data, "paths"), "/v1/extra",
                           json_object_get(sv_at(data, "paths./healthz")));
    expect_refused(data, "/v1/extra");
    json_object_put(data);
    /* a route whose path is not documented */
    data = sv_parse(text);
    json_object_object_del(sv_at(data, "paths"), "/healthz");
    expect_refused(data, "/healthz");
    json_object_put(data);
    /* a method the route does not take */
    data = sv_parse(text);
    json_object_object_add(sv_at(data, "paths./v1/search"), "put",
                           json_object_get(sv_at(data, "paths./v1/search.get")));
    expect_refused(data, "/v1/search");
    json_object_put(data);
    /* not JSON */
    out = NULL;
    assert_int_equal(serve_openapi_build("{\"paths\":", 9, &out, &err), APIDEX_EINVAL);
    assert_null(out);
    free(text);
}

static void test_urls_find_their_rows(void **state)
{
    (void)state;
    struct {
        const char *url, *path; /* NULL: no route (404) */
    } cases[] = {{"/v1/search", "/v1/search"},
                 {"/v1/search/", NULL},
                 {"/v1/endpoints", "/v1/endpoints"},
                 {"/v1/endpoints/", "/v1/endpoints/{id}"}, /* 400 from the handler */
                 {"/v1/endpoints/films:GET /a/b", "/v1/endpoints/{id}"},
                 {"/v1/apis", "/v1/apis"},
                 {"/v1/apis/", NULL},
                 {"/v1/apis/films", "/v1/apis/{id}"},
                 {"/v1/index", "/v1/index"},
                 {"/v1/snippet", "/v1/snippet"},
                 {"/", "/"},
                 {"/index.html", "/"},
                 {"/ui/", "/"},
                 {"/ui/app.js", "/"},
                 {"/uix", NULL},
                 {"/mcp", "/mcp"},
                 {"/mcp/", NULL},
                 {"/healthz", "/healthz"},
                 {"/openapi.json", "/openapi.json"},
                 {"/nope", NULL},
                 {"", NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const serve_route_def *r = serve_route_find(cases[i].url);
        if (!cases[i].path != !r || (r && strcmp(r->path, cases[i].path)))
            fail_msg("%s: %s, want %s", cases[i].url, r ? r->path : "none",
                     cases[i].path ? cases[i].path : "none");
    }
}

/* The MCP tools take the inputs they share with a route from the document: their input
   schemas are the ones they had before (tests/data/serve/mcp_tool_inputs_before.json). */
static void test_mcp_tools_share_the_routes_schemas(void **state)
{
    (void)state;
    char *text = source_file("tests/data/serve/mcp_tool_inputs_before.json");
    struct json_object *before = sv_parse(text);
    free(text);
    const mcp_rev_info *rev = &mcp_revs[0];
    struct json_object *tools = mcp_tools_list(NULL, rev);
    assert_int_equal(json_object_array_length(tools), json_object_object_length(before));
    for (size_t i = 0; i < json_object_array_length(tools); i++) {
        struct json_object *t = json_object_array_get_idx(tools, i);
        const char *name = sv_str(t, "name");
        struct json_object *want = NULL;
        if (!json_object_object_get_ex(before, name, &want)) fail_msg("new tool %s", name);
        const char *got = json_object_to_json_string(sv_at(t, "inputSchema"));
        if (strstr(got, "x-route")) fail_msg("%s: an input left unresolved: %s", name, got);
        if (!json_object_equal(want, sv_at(t, "inputSchema")))
            fail_msg("%s: input schema differs: %s", name, got);
    }
    /* the same schema object as the route's: search_endpoints' k is GET /v1/search's k */
    struct json_object *doc = served_document();
    struct json_object *k = serve_openapi_schema(doc, "/v1/search", "get", "k");
    assert_non_null(k);
    json_object_object_add(k, "description",
                           json_object_get(sv_at(tools, "0.inputSchema.properties.k.description")));
    assert_true(json_object_equal(k, sv_at(tools, "0.inputSchema.properties.k")));
    json_object_put(k);
    assert_null(serve_openapi_schema(doc, "/v1/search", "get", "nope"));
    assert_null(serve_openapi_schema(doc, "/v1/nope", "get", "k"));
    assert_non_null(k = serve_openapi_schema(doc, "/v1/ask", "post", "budget")); /* via $ref */
    json_object_put(k);
    json_object_put(doc);
    json_object_put(tools);
    json_object_put(before);
}

/* ---------------------------------------------------------------- on a real server */

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    core_buf_append(ud, p, size * n);
    return size * n;
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    (void)p;
    (void)ud;
    return size * n;
}

static long request(unsigned port, const char *method, const char *path, core_buf *headers)
{
    CURL *c = curl_easy_init();
    char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", port, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK) fail_msg("%s %s: %s", method, path, curl_easy_strerror(rc));
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(c);
    return status;
}

static void test_every_route_refuses_other_methods_with_its_allow(void **state)
{
    (void)state;
    sv_served *s = sv_serve();
    apidex_error err;
    mcp_server *mcp = NULL;
    serve_http *http = NULL;
    assert_int_equal(mcp_server_new(s->sdb, NULL, &mcp, &err), 0);
    serve_http_options o = {.listen = "127.0.0.1:0", .threads = 2, .access_log_fd = -1};
    if (serve_http_start(s->sdb, mcp, &o, &http, &err)) fail_msg("start: %s", err.message);
    unsigned port = serve_http_port(http);
    for (size_t i = 0; i < serve_n_routes; i++) {
        const serve_route_def *r = &serve_routes[i];
        char path[128];
        const char *brace = strchr(r->path, '{');
        snprintf(path, sizeof path, "%.*s%s", brace ? (int)(brace - r->path) : (int)strlen(r->path),
                 r->path, brace ? "films" : "");
        core_buf headers;
        core_buf_init(&headers, 1 << 16);
        long status = request(port, "PUT", path, &headers);
        char want[96];
        snprintf(want, sizeof want, "Allow: %s\r\n", r->allow);
        if (status != 405 || !headers.data || !strcasestr(headers.data, want))
            fail_msg("PUT %s: %ld, want 405 with '%s'", path, status, r->allow);
        core_buf_free(&headers);
    }
    core_buf headers;
    core_buf_init(&headers, 1 << 16);
    assert_int_equal(request(port, "PUT", "/nope", &headers), 404);
    assert_int_equal(request(port, "GET", "/v1/apis/", &headers), 404);
    core_buf_free(&headers);
    serve_http_stop(http);
    mcp_server_free(mcp);
    sv_served_free(s);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_document_is_the_one_served_before),
        cmocka_unit_test(test_table_and_document_name_the_same_routes),
        cmocka_unit_test(test_a_route_without_its_document_is_refused),
        cmocka_unit_test(test_urls_find_their_rows),
        cmocka_unit_test(test_mcp_tools_share_the_routes_schemas),
        cmocka_unit_test(test_every_route_refuses_other_methods_with_its_allow),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
