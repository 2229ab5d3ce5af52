/* Tests for the core JSON/YAML tree: parsing, typing, positions, pointers, limits. */
#include "testutil.h"

#include "core/core.h"

#include <json-c/json.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jt_doc *parse_ok(const char *text, const jt_limits *lim)
{
    apidex_error err;
    core_error_clear(&err);
    jt_doc *doc = NULL;
    int rc = jt_doc_parse(strdup(text), strlen(text), "mem.txt", lim, &doc, &err);
    if (rc) fail_msg("parse failed: %s at %u:%u", err.message, err.line, err.col);
    return doc;
}

static int parse_err(const char *text, const jt_limits *lim, apidex_error *err)
{
    core_error_clear(err);
    jt_doc *doc = NULL;
    int rc = jt_doc_parse(strdup(text), strlen(text), "bad.txt", lim, &doc, err);
    assert_null(doc);
    return rc;
}

static void test_json_basic(void **state)
{
    (void)state;
    jt_doc *d = parse_ok(
        "{\"a\": 1, \"b\": [true, null, 2.5, \"x\\u00e9\"], \"c\": {\"d~e/f\": -7}}", NULL);
    assert_int_equal(d->format, JT_FORMAT_JSON);
    assert_int_equal(jt_get(d->root, "a")->type, JT_INT);
    assert_int_equal(jt_get(d->root, "a")->u.i, 1);
    const jt_node *b = jt_get(d->root, "b");
    assert_int_equal(b->len, 4);
    assert_true(jt_at(b, 0)->boolean);
    assert_int_equal(jt_at(b, 1)->type, JT_NULL);
    assert_true(jt_num(jt_at(b, 2), 0) == 2.5);
    assert_string_equal(jt_str(jt_at(b, 3)), "x\xc3\xa9");
    assert_int_equal(jt_pointer(d->root, "/c/d~0e~1f")->u.i, -7);
    assert_null(jt_pointer(d->root, "/c/missing"));
    assert_null(jt_pointer(d->root, "/b/9"));
    assert_null(jt_pointer(d->root, "/b/01"));
    assert_ptr_equal(jt_pointer(d->root, ""), d->root);
    jt_doc_free(d);
}

static void test_json_locate(void **state)
{
    (void)state;
    jt_doc *d =
        parse_ok("{\n  \"paths\": {\n    \"/a/{id}\": {\n      \"get\": {\"x\": [1, {\"y\": 2}]}\n"
                 "    }\n  },\n  \"k\\\"q\": 3\n}\n",
                 NULL);
    unsigned line = 0, col = 0;
    assert_true(jt_doc_locate(d, "/paths/~1a~1{id}/get", &line, &col));
    assert_int_equal(line, 4);
    assert_int_equal(col, 14);
    assert_true(jt_doc_locate(d, "/paths/~1a~1{id}/get/x/1/y", &line, &col));
    assert_int_equal(line, 4);
    assert_int_equal(col, 30);
    assert_true(jt_doc_locate(d, "/k\"q", &line, &col));
    assert_int_equal(line, 7);
    assert_false(jt_doc_locate(d, "/nope", &line, &col));
    jt_doc_free(d);
}

static void test_yaml_typing_and_positions(void **state)
{
    (void)state;
    const char *y = "openapi: 3.0.0\n"
                    "info:\n"
                    "  title: T\n"
                    "  version: 1.0\n"
                    "paths:\n"
                    "  /x:\n"
                    "    get:\n"
                    "      responses:\n"
                    "        200:\n"
                    "          description: ok\n"
                    "n: ~\n"
                    "b: yes\n"
                    "t: True\n"
                    "h: 0x1F\n"
                    "q: \"42\"\n"
                    "eq: =\n"
                    "date: 2019-02-30\n"
                    "f: -1.5e3\n";
    jt_doc *d = parse_ok(y, NULL);
    assert_int_equal(d->format, JT_FORMAT_YAML);
    assert_string_equal(jt_get_str(d->root, "openapi"), "3.0.0");
    assert_int_equal(jt_pointer(d->root, "/info/version")->type, JT_REAL);
    /* integer-looking keys stay strings, as written */
    const jt_node *r = jt_pointer(d->root, "/paths/~1x/get/responses/200");
    assert_non_null(r);
    assert_int_equal(r->line, 10);
    assert_int_equal(r->col, 11);
    assert_int_equal(jt_get(d->root, "n")->type, JT_NULL);
    /* YAML 1.2: "yes" is a string */
    assert_string_equal(jt_get_str(d->root, "b"), "yes");
    assert_true(jt_get(d->root, "t")->boolean);
    assert_int_equal(jt_get(d->root, "h")->u.i, 31);
    assert_string_equal(jt_get_str(d->root, "q"), "42");
    assert_string_equal(jt_get_str(d->root, "eq"), "=");
    assert_string_equal(jt_get_str(d->root, "date"), "2019-02-30");
    assert_true(jt_num(jt_get(d->root, "f"), 0) == -1500.0);
    unsigned line, col;
    assert_true(jt_doc_locate(d, "/paths/~1x/get", &line, &col));
    assert_int_equal(line, 8);
    jt_doc_free(d);
}

static void test_yaml_anchors_and_merge(void **state)
{
    (void)state;
    const char *y = "base: &b {x: 1, y: 2}\n"
                    "derived:\n"
                    "  <<: *b\n"
                    "  y: 3\n"
                    "list: [*b, *b]\n";
    jt_doc *d = parse_ok(y, NULL);
    const jt_node *der = jt_get(d->root, "derived");
    assert_int_equal(der->len, 2);
    assert_int_equal(jt_get(der, "x")->u.i, 1);
    assert_int_equal(jt_get(der, "y")->u.i, 3);
    const jt_node *list = jt_get(d->root, "list");
    /* aliases share the anchored node */
    assert_ptr_equal(jt_at(list, 0), jt_get(d->root, "base"));
    assert_ptr_equal(jt_at(list, 1), jt_get(d->root, "base"));
    jt_doc_free(d);
}

static void test_alias_bomb(void **state)
{
    (void)state;
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i < 12; i++)
        core_buf_printf(&b,
                        "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n",
                        i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
    apidex_error err;
    int rc = parse_err(b.data, NULL, &err);
    assert_int_equal(rc, APIDEX_ELIMIT);
    assert_non_null(strstr(err.message, "alias"));
    assert_string_equal(err.file, "bad.txt");
    assert_true(err.line > 0);
    core_buf_free(&b);
}

static void test_deep_nesting(void **state)
{
    (void)state;
    core_buf b;
    core_buf_init(&b, 0);
    for (int i = 0; i < 10000; i++) core_buf_puts(&b, "{\"a\":");
    core_buf_puts(&b, "1");
    for (int i = 0; i < 10000; i++) core_buf_putc(&b, '}');
    apidex_error err;
    assert_int_equal(parse_err(b.data, NULL, &err), APIDEX_ELIMIT);
    core_buf_reset(&b);
    for (int i = 0; i < 10000; i++) core_buf_puts(&b, "- ");
    core_buf_puts(&b, "x\n");
    assert_int_equal(parse_err(b.data, NULL, &err), APIDEX_ELIMIT);
    core_buf_reset(&b);
    for (int i = 0; i < 10000; i++) core_buf_putc(&b, '[');
    assert_int_not_equal(parse_err(b.data, NULL, &err), 0);
    core_buf_free(&b);
    /* within a raised limit the same depth parses */
    jt_limits lim = {.max_depth = 20000};
    core_buf_init(&b, 0);
    for (int i = 0; i < 10000; i++) core_buf_putc(&b, '[');
    for (int i = 0; i < 10000; i++) core_buf_putc(&b, ']');
    jt_doc *d = parse_ok(b.data, &lim);
    assert_int_equal(d->root->type, JT_ARRAY);
    jt_doc_free(d);
    core_buf_free(&b);
}

static void test_errors_have_positions(void **state)
{
    (void)state;
    apidex_error err;
    assert_int_equal(parse_err("{\n  \"a\": 1,\n  \"b\": ]\n}", NULL, &err), APIDEX_EPARSE);
    assert_int_equal(err.line, 3);
    assert_string_equal(err.file, "bad.txt");
    assert_int_equal(parse_err("a: [1, 2\nb: c\n", NULL, &err), APIDEX_EPARSE);
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.message, "bracket"));
    /* broken JSON falls back to YAML, whose diagnostics must not leak (ASan checks) */
    assert_int_equal(parse_err("{\"model\":", NULL, &err), APIDEX_EPARSE);
    assert_non_null(strstr(err.message, "JSON"));
    assert_int_equal(parse_err("{\"a\": 1} trailing", NULL, &err), APIDEX_EPARSE);
    assert_int_equal(parse_err("x: *undefined\n", NULL, &err), APIDEX_EPARSE);
    assert_non_null(strstr(err.message, "alias"));
    assert_int_equal(parse_err("a: 1\n---\nb: 2\n", NULL, &err), APIDEX_EPARSE);
    jt_limits lim = {.max_bytes = 8};
    assert_int_equal(parse_err("{\"abc\": 12345}", &lim, &err), APIDEX_ELIMIT);
}

static void test_flow_yaml_and_bom(void **state)
{
    (void)state;
    /* starts like JSON but is YAML flow syntax */
    jt_doc *d = parse_ok("{a: 1, b: [x, y]}", NULL);
    assert_int_equal(d->format, JT_FORMAT_YAML);
    assert_int_equal(jt_get(d->root, "a")->u.i, 1);
    jt_doc_free(d);
    d = parse_ok("\xEF\xBB\xBF{\"a\": 2}", NULL);
    assert_int_equal(jt_get(d->root, "a")->u.i, 2);
    jt_doc_free(d);
}

static void test_invalid_utf8_is_replaced(void **state)
{
    (void)state;
    jt_doc *d = parse_ok("a: \"x\xcf\xcfy\"\nb: \xe2\x82\xac\n", NULL);
    assert_string_equal(jt_get_str(d->root, "a"), "x??y");
    assert_string_equal(jt_get_str(d->root, "b"), "\xe2\x82\xac");
    jt_doc_free(d);
    d = parse_ok("{\"k\": \"\xff\xc0\x80\"}", NULL);
    assert_string_equal(jt_get_str(d->root, "k"), "???");
    jt_doc_free(d);
    /* libfyaml 0.7.12 loops forever on invalid UTF-8 in a directive line: after the
       replacement it only sees "%?", an unknown directive it skips */
    apidex_error derr;
    core_error_clear(&derr);
    jt_doc *dd = NULL;
    const char *directive = "%\xdd\nopenapi: 3.0.0\n";
    assert_int_equal(
        jt_doc_parse(strdup(directive), strlen(directive), "dir.yaml", NULL, &dd, &derr), 0);
    assert_string_equal(jt_get_str(dd->root, "openapi"), "3.0.0");
    jt_doc_free(dd);
    /* libfyaml leaked on invalid UTF-8 inside a quoted scalar (found by fuzzing) */
    char bomb[160];
    memset(bomb, '\'', sizeof bomb);
    memset(bomb + 14, 0xcf, 70);
    apidex_error err;
    core_error_clear(&err);
    jt_doc *out = NULL;
    char *copy = malloc(sizeof bomb);
    memcpy(copy, bomb, sizeof bomb);
    assert_int_equal(jt_doc_parse(copy, sizeof bomb, "fuzz", NULL, &out, &err), APIDEX_EPARSE);
    assert_null(out);
}

static void test_big_object_index_and_write(void **state)
{
    (void)state;
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_putc(&b, '{');
    for (int i = 0; i < 1000; i++) core_buf_printf(&b, "%s\"k%d\":%d", i ? "," : "", i, i);
    core_buf_putc(&b, '}');
    jt_doc *d = parse_ok(b.data, NULL);
    assert_non_null(d->root->index);
    for (int i = 0; i < 1000; i += 37) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        assert_int_equal(jt_get(d->root, k)->u.i, i);
    }
    assert_null(jt_get(d->root, "k1000"));
    core_buf out;
    core_buf_init(&out, 0);
    assert_int_equal(jt_write_json(&out, d->root, -1), 0);
    assert_string_equal(out.data, b.data);
    core_buf_free(&out);
    jt_doc_free(d);
    core_buf_free(&b);
}

/* jt_to_json_object: every kind of node, members in order, and the depth cap as nulls. */
static void test_to_json_object(void **state)
{
    (void)state;
    jt_doc *d = parse_ok("{\"i\": -7, \"r\": 2.5, \"s\": \"x y\", \"b\": [true, false, null],"
                         " \"o\": {\"deep\": {\"deeper\": [1]}}}",
                         NULL);
    struct json_object *o = jt_to_json_object(d->root, 64);
    assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                        "{\"i\":-7,\"r\":2.5,\"s\":\"x y\",\"b\":[true,false,null],"
                        "\"o\":{\"deep\":{\"deeper\":[1]}}}");
    json_object_put(o);
    /* the root is level 0: "o" is level 1, "deep" 2, "deeper" 3 (cut at 2) */
    o = jt_to_json_object(d->root, 2);
    assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                        "{\"i\":-7,\"r\":2.5,\"s\":\"x y\",\"b\":[true,false,null],"
                        "\"o\":{\"deep\":{\"deeper\":null}}}");
    json_object_put(o);
    assert_null(jt_to_json_object(NULL, 2));
    assert_null(jt_to_json_object(jt_at(jt_get(d->root, "b"), 2), 2)); /* JSON null */
    jt_doc_free(d);
}

static void test_buf_cap_and_arena(void **state)
{
    (void)state;
    core_buf b;
    core_buf_init(&b, 10);
    assert_int_equal(core_buf_puts(&b, "12345"), 0);
    assert_int_equal(core_buf_puts(&b, "123456"), APIDEX_ELIMIT);
    assert_true(b.failed);
    core_buf_free(&b);
    core_buf_init(&b, 0);
    core_buf_json_str(&b, "a\"b\\c\n\x01", 7);
    assert_string_equal(b.data, "\"a\\\"b\\\\c\\n\\u0001\"");
    core_buf_free(&b);

    core_arena *a = core_arena_new(1024);
    assert_non_null(core_arena_alloc(a, 512));
    assert_null(core_arena_alloc(a, 1024));
    core_arena_free(a);
    a = core_arena_new(0);
    for (int i = 0; i < 10000; i++) assert_non_null(core_arena_alloc(a, (size_t)(i % 300) + 1));
    assert_non_null(core_arena_alloc(a, 1 << 20));
    assert_string_equal(core_arena_printf(a, "%s-%d", "x", 5), "x-5");
    core_arena_free(a);
    core_arena_free(NULL);
    jt_doc_free(NULL);
}

/* A text of n copies of item in a list, as JSON ("[a,a,...]") or YAML ("- a" lines). */
static char *repeated(const char *item, size_t n, bool yaml)
{
    size_t il = strlen(item), cap = n * (il + 4) + 8, k = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    if (!yaml) s[k++] = '[';
    for (size_t i = 0; i < n; i++) {
        if (yaml) {
            memcpy(s + k, "- ", 2);
            k += 2;
        } else if (i) {
            s[k++] = ',';
        }
        memcpy(s + k, item, il);
        k += il;
        if (yaml) s[k++] = '\n';
    }
    if (!yaml) s[k++] = ']';
    s[k] = '\0';
    return s;
}

/* The memory budget: what a parse charges stays under the limit, everything is given back
   when the document is freed, and past the limit the parse fails naming where. */
static void test_memory_budget(void **state)
{
    (void)state;
    /* a fair document: charged (text, tree, the parser's scratch while it lives), all given
       back */
    core_budget b = {.limit = 64 << 20};
    jt_limits lim = {.budget = &b};
    char *fair = repeated("{\"name\": \"a\", \"n\": 1}", 1000, false);
    jt_doc *d = parse_ok(fair, &lim);
    assert_true(b.peak > strlen(fair) * 2);     /* the tree was charged, not only the text */
    assert_true(b.used > 0 && b.used < b.peak); /* the scratch given back, the tree kept */
    jt_doc_free(d);
    assert_int_equal(b.used, 0);
    assert_false(b.over);

    /* empty objects: 3 bytes of text each, a node and a slot of their array (~70 bytes)
       each in the parse. Past the budget the parse stops where it ran out. */
    char *objs = repeated("{}", 400000, false); /* 1.2 MB of text, ~28 MB to parse */
    core_budget small = {.limit = 8 << 20};
    lim.budget = &small;
    apidex_error err;
    assert_int_equal(parse_err(objs, &lim, &err), APIDEX_ELIMIT);
    assert_non_null(strstr(err.message, "memory than its budget of 8 MiB"));
    assert_string_equal(err.file, "bad.txt");
    assert_int_equal(err.line, 1);
    size_t col = err.col;
    assert_true(col > 100000 && col < 1000000); /* ~110,000 objects fit in 8 MiB */
    assert_true(small.over);
    assert_int_equal(small.used, 0);
    assert_true(small.peak <= small.limit);

    /* the same as YAML: the tree is charged as it grows, the parse stops at that line */
    char *yobjs = repeated("{}", 400000, true);
    core_budget ysmall = {.limit = 8 << 20};
    lim.budget = &ysmall;
    assert_int_equal(parse_err(yobjs, &lim, &err), APIDEX_ELIMIT);
    assert_non_null(strstr(err.message, "memory than its budget of 8 MiB"));
    assert_true(err.line > 1000 && err.line < 400000);
    assert_true(ysmall.over && ysmall.peak <= ysmall.limit);
    assert_int_equal(ysmall.used, 0);

    /* within the budget the same YAML loads, and every byte is given back */
    core_budget big = {.limit = 512 << 20};
    lim.budget = &big;
    d = parse_ok(yobjs, &lim);
    assert_true(big.peak <= big.limit && big.used > strlen(yobjs));
    jt_doc_free(d);
    assert_int_equal(big.used, 0);

    /* an arena charges its blocks and gives them back */
    core_budget ab = {.limit = 1 << 20};
    core_arena *a = core_arena_new(0);
    core_arena_set_budget(a, &ab);
    assert_non_null(core_arena_alloc(a, 100));
    assert_true(ab.used >= 100);
    assert_null(core_arena_alloc(a, 2 << 20));
    assert_true(ab.over);
    core_arena_free(a);
    assert_int_equal(ab.used, 0);
    free(fair);
    free(objs);
    free(yobjs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_basic),
        cmocka_unit_test(test_json_locate),
        cmocka_unit_test(test_yaml_typing_and_positions),
        cmocka_unit_test(test_yaml_anchors_and_merge),
        cmocka_unit_test(test_alias_bomb),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_errors_have_positions),
        cmocka_unit_test(test_flow_yaml_and_bom),
        cmocka_unit_test(test_invalid_utf8_is_replaced),
        cmocka_unit_test(test_big_object_index_and_write),
        cmocka_unit_test(test_to_json_object),
        cmocka_unit_test(test_buf_cap_and_arena),
        cmocka_unit_test(test_memory_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
