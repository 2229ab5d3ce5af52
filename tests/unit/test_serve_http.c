/* The HTTP server in process, on a free loopback port, driven by libcurl and by raw
   sockets for what curl will not do: bearer auth, body/header/connection limits, slow
   and stalled clients, Host/Origin checks, CORS, metrics and the access log. */
#include "serve_testutil.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct server {
    char *dir, *db, *log;
    serve_db *sdb;
    mcp_server *mcp;
    serve_http *http;
    unsigned port;
    int log_fd;
} server;

/* header_timeout 0: the default (10 s); per_client 0: no per-client limit */
static server *start_limits(const char *token, const char *const *cors, double header_timeout,
                            int per_client)
{
    server *s = calloc(1, sizeof *s);
    s->db = sv_fixture(&s->dir);
    s->log = tu_path(s->dir, "access.log");
    s->log_fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    apidex_error err;
    assert_int_equal(serve_db_open(s->db, 0, &s->sdb, &err), 0);
    assert_int_equal(mcp_server_new(s->sdb, NULL, &s->mcp, &err), 0);
    serve_http_options o = {.listen = "127.0.0.1:0",
                            .token = token,
                            .threads = 2,
                            .max_body = 1024,
                            .max_header = 2048,
                            .max_connections = 8,
                            .timeout_s = 2,
                            .header_timeout_s = header_timeout,
                            .max_conns_per_client = per_client ? per_client : -1,
                            .cors_origins = cors,
                            .access_log_fd = s->log_fd};
    int rc = serve_http_start(s->sdb, s->mcp, &o, &s->http, &err);
    if (rc) fail_msg("start: %s", err.message);
    s->port = serve_http_port(s->http);
    assert_true(s->port > 0);
    return s;
}

static server *start(const char *token, const char *const *cors)
{
    return start_limits(token, cors, 0, 0);
}

static void stop(server *s)
{
    serve_http_stop(s->http);
    mcp_server_free(s->mcp);
    serve_db_close(s->sdb);
    close(s->log_fd);
    tu_rmtree(s->dir);
    free(s->dir);
    free(s->db);
    free(s->log);
    free(s);
}

/* ---------------------------------------------------------------- libcurl */

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

/* One request; extra is a NULL-terminated list of header lines. */
static reply request(server *s, const char *method, const char *path, const char *body,
                     const char *const *extra)
{
    reply r = {0};
    core_buf_init(&r.body, 1 << 24);
    core_buf_init(&r.headers, 1 << 20);
    CURL *c = curl_easy_init();
    size_t url_size = strlen(path) + 64;
    char *url = malloc(url_size);
    snprintf(url, url_size, "http://127.0.0.1:%u%s", s->port, path);
    struct curl_slist *hl = NULL;
    for (size_t i = 0; extra && extra[i]; i++) hl = curl_slist_append(hl, extra[i]);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (!strcmp(method, "HEAD")) curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r.headers);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK) fail_msg("%s %s: %s", method, path, curl_easy_strerror(rc));
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    free(url);
    return r;
}

static bool has_header(const reply *r, const char *line)
{
    return r->headers.data && strcasestr(r->headers.data, line) != NULL;
}

/* ---------------------------------------------------------------- raw sockets */

/* A connection from source (an address in 127.0.0.0/8: another client). */
static int raw_connect_from(server *s, const char *source)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in from = {.sin_family = AF_INET};
    inet_pton(AF_INET, source, &from.sin_addr);
    assert_int_equal(bind(fd, (struct sockaddr *)&from, sizeof from), 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

static int raw_connect(server *s)
{
    return raw_connect_from(s, "127.0.0.1");
}

static void raw_send(int fd, const char *text)
{
    size_t n = strlen(text);
    assert_int_equal(send(fd, text, n, MSG_NOSIGNAL), (ssize_t)n);
}

/* Reads until the peer closes or timeout_ms passes; returns bytes read, -1 on timeout. */
static ssize_t raw_read_all(int fd, char *buf, size_t size, int timeout_ms)
{
    size_t got = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int pr = poll(&p, 1, timeout_ms);
        if (pr == 0) return -1;
        ssize_t n = recv(fd, buf + got, size - 1 - got, 0);
        if (n <= 0) break;
        got += (size_t)n;
        if (got + 1 >= size) break;
    }
    buf[got] = '\0';
    return (ssize_t)got;
}

/* ---------------------------------------------------------------- tests */

static void test_auth(void **state)
{
    (void)state;
    server *s = start("s3cret-token", NULL);
    reply r = request(s, "GET", "/healthz", NULL, NULL); /* open to probes */
    assert_int_equal(r.status, 200);
    reply_free(&r);
    const char *paths[] = {"/v1/apis",
                           "/v1/search?q=movie",
                           "/metrics",
                           "/openapi.json",
                           "/v1/endpoints/films%3AlistTopRated",
                           NULL};
    const char *wrong[] = {NULL,
                           "Authorization: Bearer s3cret-toke",
                           "Authorization: Bearer s3cret-token2",
                           "Authorization: Basic czNjcmV0LXRva2Vu",
                           "Authorization: Bearer",
                           NULL};
    for (size_t p = 0; paths[p]; p++) {
        for (size_t w = 0; w < 5; w++) {
            const char *h[] = {wrong[w], NULL};
            r = request(s, "GET", paths[p], NULL, wrong[w] ? h : NULL);
            if (r.status != 401)
                fail_msg("%s with '%s': %ld", paths[p], wrong[w] ? wrong[w] : "-", r.status);
            assert_true(has_header(&r, "WWW-Authenticate: Bearer"));
            reply_free(&r);
        }
        const char *ok[] = {"Authorization: bearer  s3cret-token ", NULL};
        r = request(s, "GET", paths[p], NULL, ok);
        assert_int_equal(r.status, 200);
        reply_free(&r);
    }
    /* MCP too */
    const char *mcp_h[] = {"Content-Type: application/json", NULL};
    r = request(s, "POST", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", mcp_h);
    assert_int_equal(r.status, 401);
    reply_free(&r);
    stop(s);
}

static void test_routes_and_errors(void **state)
{
    (void)state;
    server *s = start(NULL, NULL);
    reply r = request(s, "GET", "/v1/search?q=cast%20and%20crew&k=3&api=films", NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_true(has_header(&r, "Content-Type: application/json"));
    struct json_object *o = sv_parse(r.body.data);
    assert_string_equal(sv_str(o, "query"), "cast and crew");
    assert_string_equal(sv_str(o, "results.0.api"), "films");
    assert_non_null(sv_at(o, "results.0.rank"));
    json_object_put(o);
    reply_free(&r);
    r = request(s, "HEAD", "/v1/apis", NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.body.len, 0);
    reply_free(&r);

    struct {
        const char *method, *path, *body;
        long status;
    } cases[] = {{"GET", "/v1/search", NULL, 400},
                 {"GET", "/v1/search?q=x&k=0", NULL, 400},
                 {"GET", "/v1/search?q=x&k=abc", NULL, 400},
                 {"GET", "/v1/search?q=x&adaptive=maybe", NULL, 400},
                 {"GET", "/v1/search?q=x&api=nope", NULL, 400},
                 {"GET", "/v1/search?q=x&method=FETCH", NULL, 400},
                 {"GET", "/v1/search?query=x", NULL, 400},
                 {"GET", "/v1/search?q=%20%20", NULL, 400},
                 {"POST", "/v1/search?q=x", "{}", 405},
                 {"GET", "/v1/endpoints/nope", NULL, 404},
                 {"GET", "/v1/endpoints/", NULL, 400},
                 {"GET", "/v1/endpoints?method=GET&path=%2Fgenres", NULL, 400}, /* ambiguous */
                 {"GET", "/v1/endpoints?method=GET", NULL, 400},
                 {"GET", "/v1/ask", NULL, 405},
                 {"POST", "/v1/ask", "{\"task\":", 400},
                 {"POST", "/v1/ask", "[1]", 400},
                 {"POST", "/v1/ask", "{}", 400},
                 {"POST", "/v1/ask", "{\"task\":\"x\",\"budget\":5}", 400},
                 {"POST", "/v1/ask", "{\"task\":\"x\",\"budget\":\"big\"}", 400},
                 {"POST", "/v1/ask", "{\"task\":\"x\",\"apis\":\"films\"}", 400},
                 {"POST", "/v1/ask", "{\"task\":\"x\",\"other\":1}", 400},
                 {"DELETE", "/v1/apis", NULL, 405},
                 {"GET", "/nope", NULL, 404},
                 {"GET", "/v1", NULL, 404},
                 {"GET", "/mcp", NULL, 405},
                 {NULL, NULL, NULL, 0}};
    const char *json_h[] = {"Content-Type: application/json", NULL};
    for (size_t i = 0; cases[i].method; i++) {
        r = request(s, cases[i].method, cases[i].path, cases[i].body,
                    cases[i].body ? json_h : NULL);
        if (r.status != cases[i].status)
            fail_msg("%s %s: %ld, wanted %ld (%s)", cases[i].method, cases[i].path, r.status,
                     cases[i].status, r.body.data ? r.body.data : "");
        if (r.status != 405 || strcmp(cases[i].path, "/mcp")) {
            o = sv_parse(r.body.data);
            assert_int_equal(sv_int(o, "error.status"), r.status);
            assert_non_null(sv_str(o, "error.message"));
            json_object_put(o);
        }
        if (r.status == 405) assert_true(has_header(&r, "Allow: "));
        reply_free(&r);
    }
    /* wrong content type for ask */
    const char *text_h[] = {"Content-Type: text/plain", NULL};
    r = request(s, "POST", "/v1/ask", "{\"task\":\"x\"}", text_h);
    assert_int_equal(r.status, 415);
    reply_free(&r);
    /* ask works */
    r = request(s, "POST", "/v1/ask", "{\"task\":\"cast and crew of a movie\",\"budget\":800}",
                json_h);
    assert_int_equal(r.status, 200);
    o = sv_parse(r.body.data);
    assert_true(sv_int(o, "context_tokens") <= 800);
    assert_non_null(strstr(sv_str(o, "context"), "/movie/{movie_id}/credits"));
    json_object_put(o);
    reply_free(&r);
    stop(s);
}

static void test_limits(void **state)
{
    (void)state;
    server *s = start(NULL, NULL);
    const char *json_h[] = {"Content-Type: application/json", NULL};
    /* body over max_body (1024) with a Content-Length: refused before it is read */
    char big[4096];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    reply r = request(s, "POST", "/v1/ask", big, json_h);
    assert_int_equal(r.status, 413);
    reply_free(&r);
    /* the same chunked: counted and refused at its end */
    const char *chunked_h[] = {"Content-Type: application/json", "Transfer-Encoding: chunked",
                               NULL};
    r = request(s, "POST", "/mcp", big, chunked_h);
    assert_int_equal(r.status, 413);
    reply_free(&r);
    /* headers over max_header (2048) */
    char huge[6000];
    snprintf(huge, sizeof huge, "X-Filler: ");
    memset(huge + 10, 'x', sizeof huge - 11);
    huge[sizeof huge - 1] = '\0';
    const char *huge_h[] = {huge, NULL};
    r = request(s, "GET", "/healthz", NULL, huge_h);
    assert_int_equal(r.status, 431);
    reply_free(&r);
    /* far past the pool: the library's own 431 */
    char *giant = malloc(200000);
    snprintf(giant, 200000, "X-Giant: ");
    memset(giant + 9, 'g', 200000 - 10);
    giant[199999] = '\0';
    const char *giant_h[] = {giant, NULL};
    r = request(s, "GET", "/healthz", NULL, giant_h);
    assert_int_equal(r.status, 431);
    reply_free(&r);
    free(giant);
    /* a long URL is refused the same way */
    char long_url[9000] = "/v1/search?q=";
    memset(long_url + 13, 'q', sizeof long_url - 14);
    long_url[sizeof long_url - 1] = '\0';
    r = request(s, "GET", long_url, NULL, NULL);
    assert_int_equal(r.status, 414);
    reply_free(&r);
    /* the server still answers */
    r = request(s, "GET", "/healthz", NULL, NULL);
    assert_int_equal(r.status, 200);
    reply_free(&r);
    stop(s);
}

static void test_slow_clients(void **state)
{
    (void)state;
    server *s = start(NULL, NULL);
    char buf[4096];
    /* stalls inside the headers: closed after the idle timeout (2 s) */
    int stalled = raw_connect(s);
    raw_send(stalled, "GET /v1/apis HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    /* meanwhile others are served */
    reply r = request(s, "GET", "/v1/apis", NULL, NULL);
    assert_int_equal(r.status, 200);
    reply_free(&r);
    double t0 = core_now();
    ssize_t n = raw_read_all(stalled, buf, sizeof buf, 6000);
    assert_true(n >= 0); /* closed, not hanging */
    assert_true(core_now() - t0 < 5.0);
    close(stalled);
    /* drips a body past the deadline (2 s): answered 408 once it is complete */
    int slow = raw_connect(s);
    raw_send(slow, "POST /v1/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   "Content-Length: 39\r\n\r\n{\"task\":");
    for (int i = 0; i < 3; i++) {
        usleep(900 * 1000);
        send(slow, " ", 1, MSG_NOSIGNAL);
    }
    send(slow, "\"x\"}                          ", 28, MSG_NOSIGNAL);
    n = raw_read_all(slow, buf, sizeof buf, 6000);
    assert_true(n >= 0);
    assert_true(n > 0);
    assert_non_null(strstr(buf, " 408 "));
    close(slow);
    /* garbage instead of HTTP: a 400, not a crash */
    int junk = raw_connect(s);
    raw_send(junk, "\x01\x02 nonsense\r\n\r\n");
    n = raw_read_all(junk, buf, sizeof buf, 6000);
    assert_true(n >= 0);
    if (n > 0) assert_non_null(strstr(buf, " 400 "));
    close(junk);
    r = request(s, "GET", "/healthz", NULL, NULL);
    assert_int_equal(r.status, 200);
    reply_free(&r);
    stop(s);
}

/* The header deadline is absolute: a byte every 0.2 s does not keep a connection whose
   headers never end past it (the inactivity timeout never trips on it). */
static void test_header_deadline(void **state)
{
    (void)state;
    server *s = start_limits(NULL, NULL, 1.0, 0);
    const char *head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
                       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    int fd = raw_connect(s);
    double t0 = core_now(), closed_at = 0;
    char buf[256];
    for (size_t i = 0; head[i] && core_now() - t0 < 8.0; i++) {
        if (send(fd, head + i, 1, MSG_NOSIGNAL) != 1) {
            closed_at = core_now();
            break;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 200) == 1 && recv(fd, buf, sizeof buf, 0) <= 0) {
            closed_at = core_now();
            break;
        }
    }
    close(fd);
    if (!closed_at)
        fail_msg("still open %.1f s after it opened (header deadline 1 s)", core_now() - t0);
    assert_true(closed_at - t0 >= 0.9);
    assert_true(closed_at - t0 < 4.0);
    /* a request whose headers come in time is served as before */
    reply r = request(s, "GET", "/healthz", NULL, NULL);
    assert_int_equal(r.status, 200);
    reply_free(&r);
    stop(s);
}

/* One address holding its share of connections leaves room for another address. */
static void test_per_client_limit(void **state)
{
    (void)state;
    server *s = start_limits(NULL, NULL, 0, 3);
    int held[3];
    for (int i = 0; i < 3; i++) {
        held[i] = raw_connect(s);
        raw_send(held[i], "GET /healthz HTTP/1.1\r\n"); /* never finished */
    }
    usleep(200 * 1000);
    char buf[4096];
    /* the fourth from the same address is closed at once, unanswered */
    int over = raw_connect(s);
    send(over, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 41, MSG_NOSIGNAL);
    assert_int_equal(raw_read_all(over, buf, sizeof buf, 3000), 0);
    close(over);
    /* another address is served */
    int other = raw_connect_from(s, "127.0.0.2");
    raw_send(other, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    ssize_t n = raw_read_all(other, buf, sizeof buf, 3000);
    assert_true(n > 0);
    assert_non_null(strstr(buf, " 200 "));
    close(other);
    for (int i = 0; i < 3; i++) close(held[i]);
    stop(s);
}

/* A NUL character, %00 in the path or a parameter or \u0000 in a JSON body, is refused
   naming where it is; cut at the NUL it would have asked something else. */
static void test_nul_refused(void **state)
{
    (void)state;
    server *s = start(NULL, NULL);
    reply r = request(s, "GET", "/v1/search?q=movie%00credits", NULL, NULL);
    assert_int_equal(r.status, 400);
    assert_non_null(strstr(r.body.data, "parameter 'q' contains a NUL character"));
    reply_free(&r);
    r = request(s, "GET", "/v1/search?q=movie&api=films%00zz", NULL, NULL);
    assert_int_equal(r.status, 400);
    assert_non_null(strstr(r.body.data, "parameter 'api'"));
    reply_free(&r);
    r = request(s, "GET", "/v1/endpoints/films%3Adiscover%00zz", NULL, NULL);
    assert_int_equal(r.status, 400);
    assert_non_null(strstr(r.body.data, "the path contains a NUL character"));
    reply_free(&r);
    const char *json[] = {"Content-Type: application/json", NULL};
    r = request(s, "POST", "/v1/ask", "{\"task\\u0000zz\":\"movie credits\"}", json);
    assert_int_equal(r.status, 400);
    assert_non_null(strstr(r.body.data, "a member name contains a NUL character"));
    reply_free(&r);
    r = request(s, "POST", "/v1/ask", "{\"task\":\"movie\",\"apis\":[\"films\\u0000\"]}", json);
    assert_int_equal(r.status, 400);
    assert_non_null(strstr(r.body.data, "member 'apis[0]' contains a NUL character"));
    reply_free(&r);
    /* %2500 is the text "%00", not a NUL */
    r = request(s, "GET", "/v1/search?q=movie%2500credits", NULL, NULL);
    assert_int_equal(r.status, 200);
    reply_free(&r);
    stop(s);
}

static void test_connection_limit(void **state)
{
    (void)state;
    server *s = start(NULL, NULL);
    int fds[8];
    for (int i = 0; i < 8; i++) {
        fds[i] = raw_connect(s);
        raw_send(fds[i], "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    }
    char buf[4096];
    for (int i = 0; i < 8; i++) { /* keep-alive: each gets its answer and stays open */
        struct pollfd p = {.fd = fds[i], .events = POLLIN};
        assert_int_equal(poll(&p, 1, 3000), 1);
        assert_true(recv(fds[i], buf, sizeof buf, 0) > 0);
    }
    /* the ninth waits: nothing is read from it while eight are open... */
    int extra = raw_connect(s);
    raw_send(extra, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    struct pollfd p = {.fd = extra, .events = POLLIN};
    assert_int_equal(poll(&p, 1, 700), 0);
    /* ...and is served as soon as one closes */
    close(fds[0]);
    ssize_t n = raw_read_all(extra, buf, sizeof buf, 3000);
    assert_true(n > 0);
    assert_non_null(strstr(buf, " 200 "));
    close(extra);
    for (int i = 1; i < 8; i++) close(fds[i]);
    usleep(200 * 1000);
    reply r = request(s, "GET", "/healthz", NULL, NULL);
    assert_int_equal(r.status, 200);
    reply_free(&r);
    stop(s);
}

static void test_origin_host_cors(void **state)
{
    (void)state;
    server *s = start(NULL, NULL);
    const char *evil_host[] = {"Host: evil.example:80", NULL};
    reply r = request(s, "GET", "/v1/apis", NULL, evil_host);
    assert_int_equal(r.status, 403);
    reply_free(&r);
    const char *evil_origin[] = {"Origin: http://evil.example", NULL};
    r = request(s, "GET", "/v1/apis", NULL, evil_origin);
    assert_int_equal(r.status, 403);
    reply_free(&r);
    const char *local_origin[] = {"Origin: http://localhost:5173", NULL};
    r = request(s, "GET", "/v1/apis", NULL, local_origin);
    assert_int_equal(r.status, 200);
    assert_false(has_header(&r, "Access-Control-Allow-Origin")); /* CORS is off */
    reply_free(&r);
    const char *preflight[] = {"Origin: http://localhost:5173",
                               "Access-Control-Request-Method: POST", NULL};
    r = request(s, "OPTIONS", "/v1/ask", NULL, preflight);
    assert_int_equal(r.status, 405);
    reply_free(&r);
    stop(s);

    const char *cors[] = {"https://app.example", NULL};
    s = start(NULL, cors);
    const char *app[] = {"Origin: https://app.example", NULL};
    r = request(s, "GET", "/v1/apis", NULL, app);
    assert_int_equal(r.status, 200);
    assert_true(has_header(&r, "Access-Control-Allow-Origin: https://app.example"));
    reply_free(&r);
    const char *app_pre[] = {"Origin: https://app.example", "Access-Control-Request-Method: POST",
                             NULL};
    r = request(s, "OPTIONS", "/mcp", NULL, app_pre);
    assert_int_equal(r.status, 204);
    assert_true(has_header(&r, "Access-Control-Allow-Headers:"));
    assert_true(has_header(&r, "Mcp-Session-Id"));
    reply_free(&r);
    const char *other[] = {"Origin: https://other.example", NULL};
    r = request(s, "GET", "/v1/apis", NULL, other);
    assert_int_equal(r.status, 403);
    reply_free(&r);
    stop(s);
}

static void test_metrics_and_log(void **state)
{
    (void)state;
    server *s = start(NULL, NULL);
    for (int i = 0; i < 3; i++) {
        reply r = request(s, "GET", "/v1/search?q=genres", NULL, NULL);
        reply_free(&r);
    }
    reply r = request(s, "GET", "/nope", NULL, NULL);
    reply_free(&r);
    const char *mcp_h[] = {"Content-Type: application/json", "MCP-Protocol-Version: 2026-07-28",
                           "Mcp-Method: tools/list", NULL};
    r = request(s, "POST", "/mcp",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                "\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
                mcp_h);
    assert_int_equal(r.status, 200);
    reply_free(&r);
    r = request(s, "GET", "/metrics", NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_true(has_header(&r, "Content-Type: text/plain; version=0.0.4"));
    const char *m = r.body.data;
    assert_non_null(strstr(m, "apidex_http_requests_total{route=\"/v1/search\",code=\"200\"} 3\n"));
    assert_non_null(strstr(m, "apidex_http_requests_total{route=\"other\",code=\"404\"} 1\n"));
    assert_non_null(strstr(
        m, "apidex_http_request_duration_seconds_bucket{route=\"/v1/search\",le=\"+Inf\"} 3\n"));
    assert_non_null(
        strstr(m, "apidex_http_request_duration_seconds_count{route=\"/v1/search\"} 3\n"));
    assert_non_null(strstr(m, "apidex_mcp_requests_total{method=\"tools/list\"} 1\n"));
    assert_non_null(strstr(m, "apidex_index_operations 9\n"));
    assert_non_null(strstr(m, "apidex_index_apis 2\n"));
    reply_free(&r);
    /* the index is rebuilt under the running server: the next request sees it */
    sv_fixture_write(s->db, 2);
    r = request(s, "GET", "/v1/apis", NULL, NULL);
    struct json_object *o = sv_parse(r.body.data);
    assert_int_equal(sv_int(o, "count"), 3);
    json_object_put(o);
    reply_free(&r);
    r = request(s, "GET", "/healthz", NULL, NULL);
    o = sv_parse(r.body.data);
    assert_int_equal(sv_int(o, "index.apis"), 3);
    json_object_put(o);
    reply_free(&r);
    /* one JSON line per request in the access log (written when a request completes,
       which may be just after its client has the answer) */
    char *log = NULL;
    size_t len = 0;
    apidex_error err;
    for (int tries = 0; tries < 100; tries++) {
        free(log);
        assert_int_equal(core_file_read(s->log, 1 << 20, &log, &len, &err), 0);
        size_t n = 0;
        for (size_t i = 0; i < len; i++) n += log[i] == '\n';
        if (n >= 8) break;
        usleep(20 * 1000);
    }
    size_t lines = 0;
    char *save = NULL;
    for (char *line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        o = sv_parse(line);
        assert_non_null(sv_str(o, "time"));
        assert_string_equal(sv_str(o, "remote"), "127.0.0.1");
        assert_true(sv_int(o, "status") >= 200);
        assert_non_null(sv_at(o, "duration_ms"));
        json_object_put(o);
        lines++;
    }
    assert_int_equal(lines, 8);
    free(log);
    stop(s);
}

/* Reads from fd into b until needle shows up (true) or timeout_ms passes / EOF (false). */
static bool read_until(int fd, core_buf *b, const char *needle, int timeout_ms)
{
    double end = core_now() + timeout_ms / 1000.0;
    while (!b->data || !strstr(b->data, needle)) {
        int left = (int)((end - core_now()) * 1000);
        if (left <= 0) return false;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, left) <= 0) return false;
        char buf[4096];
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return b->data && strstr(b->data, needle);
        core_buf_append(b, buf, (size_t)n);
    }
    return true;
}

static void test_listen_stream(void **state)
{
    (void)state;
    server *s = start(NULL, NULL);
    const char *body = "{\"jsonrpc\":\"2.0\",\"id\":\"sub-1\",\"method\":\"subscriptions/listen\","
                       "\"params\":{\"notifications\":{\"resourcesListChanged\":true},\"_meta\":{"
                       "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                       "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
    char head[512];
    snprintf(head, sizeof head,
             "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
             "Mcp-Method: subscriptions/listen\r\nContent-Length: %zu\r\n\r\n",
             strlen(body));
    int fd = raw_connect(s);
    raw_send(fd, head);
    raw_send(fd, body);
    core_buf b;
    core_buf_init(&b, 1 << 20);
    /* an event stream whose first event is the acknowledgement */
    assert_true(read_until(fd, &b, "notifications/subscriptions/acknowledged", 3000));
    assert_non_null(strcasestr(b.data, "Content-Type: text/event-stream"));
    assert_non_null(strstr(
        b.data,
        "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\""));
    /* other requests are served meanwhile */
    reply r = request(s, "GET", "/v1/apis", NULL, NULL);
    assert_int_equal(r.status, 200);
    reply_free(&r);
    /* keep-alive comments, then the change after a rebuild */
    core_buf_reset(&b);
    assert_true(read_until(fd, &b, ":\n\n", 3000));
    sv_fixture_write(s->db, 2);
    assert_true(read_until(fd, &b, "notifications/resources/list_changed", 4000));
    assert_non_null(strstr(b.data, "\"io.modelcontextprotocol/subscriptionId\":\"sub-1\""));
    /* shutting the server down ends the stream with the listen result */
    core_buf_reset(&b);
    serve_http_stop(s->http);
    s->http = NULL;
    assert_true(read_until(fd, &b, "\"resultType\":\"complete\"", 3000));
    assert_non_null(strstr(b.data, "\"id\":\"sub-1\""));
    core_buf_free(&b);
    close(fd);
    stop(s);
}

static void test_listen_checks(void **state)
{
    (void)state;
    char *dir = NULL;
    char *db = sv_fixture(&dir);
    apidex_error err;
    serve_db *sdb;
    mcp_server *mcp;
    serve_http *h = NULL;
    assert_int_equal(serve_db_open(db, 0, &sdb, &err), 0);
    assert_int_equal(mcp_server_new(sdb, NULL, &mcp, &err), 0);
    const char *bad[] = {"0.0.0.0:0", "10.1.2.3:0", "127.0.0.1", "127.0.0.1:70000",
                         "host:1",    "[::g]:0",    NULL};
    for (size_t i = 0; bad[i]; i++) {
        serve_http_options o = {.listen = bad[i], .access_log_fd = -1};
        assert_int_equal(serve_http_start(sdb, mcp, &o, &h, &err), APIDEX_EINVAL);
        assert_null(h);
    }
    serve_http_options o = {.listen = "[::1]:0", .access_log_fd = -1};
    if (serve_http_start(sdb, mcp, &o, &h, &err) == 0) serve_http_stop(h); /* IPv6 may be off */
    mcp_server_free(mcp);
    serve_db_close(sdb);
    tu_rmtree(dir);
    free(dir);
    free(db);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auth),
        cmocka_unit_test(test_routes_and_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_slow_clients),
        cmocka_unit_test(test_header_deadline),
        cmocka_unit_test(test_per_client_limit),
        cmocka_unit_test(test_nul_refused),
        cmocka_unit_test(test_connection_limit),
        cmocka_unit_test(test_origin_host_cors),
        cmocka_unit_test(test_metrics_and_log),
        cmocka_unit_test(test_listen_stream),
        cmocka_unit_test(test_listen_checks),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
