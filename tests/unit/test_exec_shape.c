/* Tests for exec_shape and exec_select: field selection, array summaries, the token budget,
   the response-schema check and pagination hints. */
#include "testutil.h"

#include "exec/exec.h"
#include "text/text.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *spec_text =
    "openapi: 3.0.3\n"
    "info: {title: Items, version: '1'}\n"
    "servers: [{url: 'https://api.example.com'}]\n"
    "paths:\n"
    "  /items:\n"
    "    get:\n"
    "      operationId: listItems\n"
    "      parameters:\n"
    "        - {name: cursor, in: query, schema: {type: string}}\n"
    "        - {name: offset, in: query, schema: {type: integer}}\n"
    "      responses:\n"
    "        '200':\n"
    "          description: ok\n"
    "          content:\n"
    "            application/json:\n"
    "              schema:\n"
    "                type: object\n"
    "                required: [items]\n"
    "                properties:\n"
    "                  items:\n"
    "                    type: array\n"
    "                    items:\n"
    "                      type: object\n"
    "                      required: [id]\n"
    "                      properties:\n"
    "                        id: {type: integer}\n"
    "                        name: {type: string}\n"
    "                  next_cursor: {type: string}\n"
    "        '4XX':\n"
    "          description: client error\n"
    "          content:\n"
    "            application/json:\n"
    "              schema: {type: object, required: [message], properties: {message: {type: "
    "string}}}\n";

static char *dir;
static spec_registry *reg;
static const spec_api *api;
static const spec_operation *op;

static int setup(void **state)
{
    (void)state;
    dir = tu_tempdir();
    char *path = tu_write(dir, "items.yaml", spec_text);
    apidex_error err = {0};
    if (spec_load_file(path, NULL, &reg, &err)) return -1;
    free(path);
    api = spec_registry_api(reg, 0);
    op = api ? spec_api_find_operation(api, "items:listItems") : NULL;
    return op ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    spec_registry_free(reg);
    tu_rmtree(dir);
    free(dir);
    return 0;
}

static exec_header json_headers[] = {{"Content-Type", "application/json; charset=utf-8", false},
                                     {"X-RateLimit-Remaining", "7", false},
                                     {"Retry-After", "30", false},
                                     {"Set-Cookie", "session=abc", false}};

static exec_response response(long status, const char *body, exec_header *headers, size_t n)
{
    exec_response r = {.status = status,
                       .headers = headers,
                       .n_headers = n,
                       .body = body,
                       .body_len = strlen(body),
                       .final_url = "https://api.example.com/items"};
    return r;
}

static json_object *shape(const exec_response *r, const exec_shape_options *opt)
{
    json_object *out = NULL;
    apidex_error err = {0};
    if (exec_shape(r, api, op, opt, &out, &err)) fail_msg("%s", err.message);
    return out;
}

/* The member at a dotted path ("body.items.0.id"); NULL when absent. */
static json_object *at(json_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *seg = strtok_r(buf, ".", &save); seg && o; seg = strtok_r(NULL, ".", &save)) {
        if (json_object_is_type(o, json_type_array)) {
            char *end;
            long i = strtol(seg, &end, 10);
            o = *end ? NULL : json_object_array_get_idx(o, (size_t)i);
        } else if (!json_object_object_get_ex(o, seg, &o)) {
            o = NULL;
        }
    }
    return o;
}

static const char *str_at(json_object *o, const char *path)
{
    json_object *v = at(o, path);
    return v ? json_object_get_string(v) : NULL;
}

static char *select_json(const char *doc, const char *expr)
{
    json_object *v = json_tokener_parse(doc), *out = NULL;
    apidex_error err = {0};
    if (exec_select(v, expr, &out, &err)) fail_msg("%s: %s", expr, err.message);
    char *text =
        strdup(out ? json_object_to_json_string_ext(out, JSON_C_TO_STRING_PLAIN) : "(none)");
    json_object_put(out);
    json_object_put(v);
    return text;
}

static void test_select(void **state)
{
    (void)state;
    const char *doc = "{\"items\":[{\"id\":1,\"name\":\"a\",\"owner\":{\"id\":9}},{\"id\":2,"
                      "\"name\":\"b\"},{\"id\":3,\"name\":\"c\"}],\"total\":3,\"odd key\":true}";
    const struct {
        const char *expr, *want;
    } cases[] = {
        {"$", NULL},
        {"$.total", "3"},
        {"$.items[0].id", "1"},
        {"items[1].name", "\"b\""},
        {"$.items[-1].name", "\"c\""},
        {"$['items'][0]['owner'].id", "9"},
        {"$[\"odd key\"]", "true"},
        {"$.items[*].id", "[1,2,3]"},
        {"$.items[*].owner.id", "[9]"},
        {"$..id", "[1,9,2,3]"},
        {"$.items[0].owner.*", "[9]"},
        {"$..owner..id", "[9]"},
        {"$.missing", "(none)"},
        {"$.items[7]", "(none)"},
        {"$.items[*].missing", "[]"},
        {"$.total, $.items[0].name", "{\"$.total\":3,\"$.items[0].name\":\"a\"}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = select_json(doc, cases[i].expr);
        const char *want = cases[i].want;
        if (!want) { /* "$": the whole document */
            json_object *v = json_tokener_parse(doc);
            assert_string_equal(got, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
            json_object_put(v);
        } else if (strcmp(got, want)) {
            fail_msg("%s: got %s, expected %s", cases[i].expr, got, want);
        }
        free(got);
    }
    const char *bad[] = {"$.items[",  "$.items[x]", "$.",  "$..",
                         "$.items[0", "$['a",       "$ x", "$items"};
    json_object *v = json_tokener_parse(doc);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_object *out = NULL;
        apidex_error err = {0};
        if (exec_select(v, bad[i], &out, &err) != APIDEX_EINVAL)
            fail_msg("%s was accepted", bad[i]);
        if (!strstr(err.message, "at column")) fail_msg("%s: %s", bad[i], err.message);
        assert_null(out);
    }
    json_object_put(v);
}

static char *items_body(size_t n, size_t words, const char *extra)
{
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, "{\"items\":[");
    for (size_t i = 0; i < n; i++) {
        core_buf_printf(&b, "%s{\"id\":%zu,\"name\":\"", i ? "," : "", i + 1);
        for (size_t w = 0; w < words; w++) core_buf_printf(&b, "%sword%zu", w ? " " : "", w);
        core_buf_puts(&b, "\"}");
    }
    core_buf_printf(&b, "]%s}", extra ? extra : "");
    return core_buf_steal(&b, NULL);
}

static void test_array_summary(void **state)
{
    (void)state;
    char *body = items_body(50, 1, ",\"total\":50");
    exec_response r = response(200, body, json_headers, 4);
    exec_shape_options opt = {.max_items = 5};
    json_object *o = shape(&r, &opt);
    assert_int_equal(json_object_get_int(at(o, "status")), 200);
    assert_string_equal(str_at(o, "body_type"), "json");
    assert_int_equal(json_object_array_length(at(o, "body.items")), 5);
    assert_int_equal(json_object_get_int(at(o, "body.items.4.id")), 5);
    assert_int_equal(json_object_get_int(at(o, "body.total")), 50);
    assert_string_equal(str_at(o, "arrays.0.path"), "$.items");
    assert_int_equal(json_object_get_int(at(o, "arrays.0.shown")), 5);
    assert_int_equal(json_object_get_int(at(o, "arrays.0.total")), 50);
    assert_non_null(strstr(str_at(o, "notes.0"), "first 5 items"));
    /* the headers that matter, and only those */
    assert_string_equal(str_at(o, "headers.content-type"), "application/json; charset=utf-8");
    assert_string_equal(str_at(o, "headers.x-ratelimit-remaining"), "7");
    assert_string_equal(str_at(o, "headers.retry-after"), "30");
    assert_null(at(o, "headers.set-cookie"));
    json_object_put(o);
    /* a short array stays whole, with no note */
    free(body);
    body = items_body(3, 1, NULL);
    r = response(200, body, json_headers, 1);
    o = shape(&r, &opt);
    assert_int_equal(json_object_array_length(at(o, "body.items")), 3);
    assert_null(at(o, "arrays"));
    assert_null(at(o, "notes"));
    json_object_put(o);
    free(body);
}

static size_t tokens_of(json_object *v)
{
    const char *s = json_object_get_string(v);
    if (!json_object_is_type(v, json_type_string))
        s = json_object_to_json_string_ext(v,
                                           JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    return text_bpe_count(text_bpe_default(), s, strlen(s));
}

static void test_budget(void **state)
{
    (void)state;
    /* 200 items of 30 words: far over 300 tokens even at 10 items */
    char *body = items_body(200, 30, NULL);
    exec_response r = response(200, body, json_headers, 1);
    exec_shape_options opt = {.budget = 300};
    json_object *o = shape(&r, &opt);
    assert_string_equal(str_at(o, "body_type"), "json");
    size_t shown = tokens_of(at(o, "body"));
    assert_true(shown <= 300);
    assert_int_equal((size_t)json_object_get_int(at(o, "tokens.shown")), shown);
    assert_true(json_object_get_int(at(o, "tokens.full")) > 5000);
    assert_true(json_object_array_length(at(o, "body.items")) < 10);
    assert_int_equal(json_object_get_int(at(o, "arrays.0.total")), 200);
    json_object_put(o);
    /* one long string: cut inside the JSON, which stays JSON */
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, "{\"id\":1,\"text\":\"");
    for (int i = 0; i < 2000; i++) core_buf_puts(&b, "lorem ipsum dolor ");
    core_buf_puts(&b, "\"}");
    r = response(200, b.data, json_headers, 1);
    opt.budget = 100;
    o = shape(&r, &opt);
    assert_string_equal(str_at(o, "body_type"), "json");
    assert_int_equal(json_object_get_int(at(o, "body.id")), 1);
    assert_true(tokens_of(at(o, "body")) <= 100);
    assert_non_null(strstr(str_at(o, "body.text"), "…"));
    assert_non_null(strstr(str_at(o, "notes.0"), "long string"));
    json_object_put(o);
    /* many keys, no array or string to cut: the JSON text, cut, with a note */
    core_buf_reset(&b);
    core_buf_putc(&b, '{');
    for (int i = 0; i < 500; i++) core_buf_printf(&b, "%s\"key%d\":%d", i ? "," : "", i, i);
    core_buf_putc(&b, '}');
    r = response(200, b.data, json_headers, 1);
    opt.budget = 50;
    o = shape(&r, &opt);
    assert_string_equal(str_at(o, "body_type"), "json-text");
    assert_true(tokens_of(at(o, "body")) <= 50);
    assert_non_null(strstr(str_at(o, "notes.0"), "use select"));
    json_object_put(o);
    /* select first: the fields asked for fit */
    opt.select = "$.key7, $.key499";
    o = shape(&r, &opt);
    assert_string_equal(str_at(o, "body_type"), "json");
    json_object *sel = at(o, "body");
    json_object *v;
    assert_true(json_object_object_get_ex(sel, "$.key499", &v));
    assert_int_equal(json_object_get_int(v), 499);
    json_object_put(o);
    core_buf_free(&b);
    free(body);
}

static void test_text_and_binary(void **state)
{
    (void)state;
    core_buf b;
    core_buf_init(&b, 0);
    for (int i = 0; i < 300; i++) core_buf_printf(&b, "Sentence number %d is here. ", i);
    exec_header text_h[] = {{"Content-Type", "text/plain", false}};
    exec_response r = response(200, b.data, text_h, 1);
    exec_shape_options opt = {.budget = 60};
    json_object *o = shape(&r, &opt);
    assert_string_equal(str_at(o, "body_type"), "text");
    assert_true(tokens_of(at(o, "body")) <= 60);
    assert_true(strlen(str_at(o, "body")) > 100);
    assert_non_null(strstr(str_at(o, "notes.0"), "text cut to the budget"));
    json_object_put(o);
    static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    exec_header png_h[] = {{"Content-Type", "image/png", false}};
    exec_response bin = {
        .status = 200, .headers = png_h, .n_headers = 1, .body = png, .body_len = sizeof png - 1};
    o = shape(&bin, NULL);
    assert_string_equal(str_at(o, "body_type"), "binary");
    assert_string_equal(str_at(o, "binary.content_type"), "image/png");
    assert_int_equal(json_object_get_int(at(o, "binary.bytes")), sizeof png - 1);
    assert_null(at(o, "body"));
    json_object_put(o);
    /* no type, not UTF-8: binary too */
    exec_response raw = {.status = 200, .body = "\xff\xfe\x01", .body_len = 3};
    o = shape(&raw, NULL);
    assert_string_equal(str_at(o, "body_type"), "binary");
    json_object_put(o);
    core_buf_free(&b);
}

static void test_schema_check(void **state)
{
    (void)state;
    exec_response r = response(200, "{\"items\":[{\"id\":1},{\"id\":\"two\"}]}", json_headers, 1);
    json_object *o = shape(&r, NULL);
    assert_true(json_object_get_boolean(at(o, "schema.checked")));
    assert_false(json_object_get_boolean(at(o, "schema.valid")));
    assert_string_equal(str_at(o, "schema.response"), "200");
    if (!strstr(str_at(o, "schema.problem"), "/items/1/id"))
        fail_msg("%s", str_at(o, "schema.problem"));
    json_object_put(o);
    r = response(200, "{\"items\":[{\"id\":1,\"name\":\"x\"}]}", json_headers, 1);
    o = shape(&r, NULL);
    assert_true(json_object_get_boolean(at(o, "schema.valid")));
    assert_null(at(o, "schema.problem"));
    json_object_put(o);
    /* 404 is checked against 4XX */
    r = response(404, "{\"error\":\"nope\"}", json_headers, 1);
    o = shape(&r, NULL);
    assert_string_equal(str_at(o, "schema.response"), "4XX");
    assert_false(json_object_get_boolean(at(o, "schema.valid")));
    assert_non_null(strstr(str_at(o, "schema.problem"), "message"));
    json_object_put(o);
    /* a status the spec does not declare: reported, not an error */
    r = response(503, "{}", json_headers, 1);
    o = shape(&r, NULL);
    assert_false(json_object_get_boolean(at(o, "schema.checked")));
    assert_non_null(strstr(str_at(o, "schema.reason"), "no response for status 503"));
    json_object_put(o);
    /* a body cut by the size cap is not JSON any more: shown as text, not checked */
    r = response(200, "{\"items\":[{\"id\":1},{\"id\":", json_headers, 1);
    r.truncated = true;
    o = shape(&r, NULL);
    assert_string_equal(str_at(o, "body_type"), "text");
    assert_false(json_object_get_boolean(at(o, "schema.checked")));
    assert_string_equal(str_at(o, "schema.reason"), "the body was cut by the size cap");
    json_object_put(o);
}

static void test_pagination(void **state)
{
    (void)state;
    exec_header link_h[] = {{"Content-Type", "application/json", false},
                            {"Link",
                             "<https://api.example.com/items?page=3>; rel=\"next\", "
                             "<https://api.example.com/items?page=9>; rel=\"last\"",
                             false}};
    exec_response r = response(200, "{\"items\":[]}", link_h, 2);
    json_object *o = shape(&r, NULL);
    assert_string_equal(str_at(o, "pagination.links.next"), "https://api.example.com/items?page=3");
    assert_string_equal(str_at(o, "pagination.links.last"), "https://api.example.com/items?page=9");
    assert_string_equal(str_at(o, "pagination.next.url"), "https://api.example.com/items?page=3");
    assert_non_null(strstr(str_at(o, "headers.link"), "rel=\"next\""));
    json_object_put(o);
    /* a cursor in the body, handed back through the operation's cursor parameter */
    r = response(200, "{\"items\":[],\"next_cursor\":\"abc\",\"has_more\":true}", link_h, 1);
    o = shape(&r, NULL);
    assert_string_equal(str_at(o, "pagination.next.param"), "cursor");
    assert_string_equal(str_at(o, "pagination.next.value"), "abc");
    assert_string_equal(str_at(o, "pagination.next.from"), "$.next_cursor");
    json_object *f = at(o, "pagination.fields");
    json_object *e;
    assert_true(json_object_object_get_ex(f, "$.has_more", &e));
    assert_true(json_object_get_boolean(at(e, "value")));
    json_object_put(o);
    /* offset/limit/total under meta: the next offset */
    r = response(200, "{\"items\":[],\"meta\":{\"offset\":20,\"limit\":10,\"total\":95}}", link_h,
                 1);
    o = shape(&r, NULL);
    assert_string_equal(str_at(o, "pagination.next.param"), "offset");
    assert_int_equal(json_object_get_int(at(o, "pagination.next.value")), 30);
    assert_true(json_object_object_get_ex(at(o, "pagination.fields"), "$.meta.total", &e));
    json_object_put(o);
    /* nextPageToken without such a parameter: the value, param null */
    r = response(200, "{\"items\":[],\"nextPageToken\":\"t2\"}", link_h, 1);
    json_object *out = NULL;
    apidex_error err = {0};
    assert_int_equal(exec_shape(&r, NULL, NULL, NULL, &out, &err), 0);
    assert_string_equal(str_at(out, "pagination.next.value"), "t2");
    assert_true(json_object_is_type(at(out, "pagination.next.param"), json_type_null));
    assert_null(at(out, "schema")); /* no operation: not checked */
    json_object_put(out);
    /* nothing to page: no pagination member */
    r = response(200, "{\"items\":[]}", link_h, 1);
    o = shape(&r, NULL);
    assert_null(at(o, "pagination"));
    json_object_put(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select),       cmocka_unit_test(test_array_summary),
        cmocka_unit_test(test_budget),       cmocka_unit_test(test_text_and_binary),
        cmocka_unit_test(test_schema_check), cmocka_unit_test(test_pagination),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
