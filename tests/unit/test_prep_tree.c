/* Unit tests of the prep tree filter: structural removals by context, text
 * filters on prose only, sharing of unchanged subtrees, the input left intact. */
#include "testutil.h"

#include "prep/prep.h"

#include <stdlib.h>
#include <string.h>

static const char *doc_json =
    "{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"T\",\"description\":\"<b>Bold</b> "
    "https://bit.ly/x\"},"
    "\"servers\":[{\"url\":\"https://bit.ly/api\"}],"
    "\"paths\":{\"/a\":{\"get\":{\"parameters\":["
    "{\"name\":\"q\",\"in\":\"query\",\"example\":\"x\",\"schema\":{\"type\":\"string\","
    "\"enum\":[\"<b>\",\"https://bit.ly/e\"]}},"
    "{\"name\":\"body\",\"in\":\"body\",\"schema\":{\"$ref\":\"#/definitions/X\"}},"
    "{\"name\":\"f\",\"in\":\"formData\",\"type\":\"string\"}],"
    "\"requestBody\":{\"content\":{\"application/json\":{\"examples\":{\"a\":{\"value\":1}}}}},"
    "\"responses\":{\"200\":{\"description\":\"ok\",\"headers\":{\"X-Rate\":{\"schema\":{}}},"
    "\"content\":{\"application/json\":{\"example\":{\"a\":1},\"x-examples\":[1]}}},"
    "\"404\":{\"description\":\"nf\"},\"5XX\":{\"description\":\"err\"},"
    "\"default\":{\"description\":\"d\"}}}}},"
    "\"components\":{\"schemas\":{\"S\":{\"type\":\"object\",\"properties\":{"
    "\"example\":{\"type\":\"string\",\"example\":\"e\"},\"404\":{\"type\":\"string\"},"
    "\"requestBody\":{\"type\":\"string\"},\"headers\":{\"type\":\"string\"}}}},"
    "\"requestBodies\":{\"B\":{\"content\":{}}},\"examples\":{\"E\":{\"value\":1}}}}";

static jt_doc *parse(const char *text)
{
    jt_doc *d = NULL;
    apidex_error err;
    char *copy = strdup(text);
    assert_int_equal(jt_doc_parse(copy, strlen(copy), "t.json", NULL, &d, &err), 0);
    return d;
}

static char *to_json(const jt_node *n)
{
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(jt_write_json(&b, n, -1), 0);
    return core_buf_steal(&b, NULL);
}

static const jt_node *filtered(const jt_doc *d, unsigned filters, core_arena *a, prep_report *rep)
{
    prep_options opt = {.filters = filters};
    const jt_node *out = NULL;
    assert_int_equal(prep_tree(&opt, d->root, a, &out, rep), 0);
    return out;
}

static void test_structural(void **state)
{
    (void)state;
    jt_doc *d = parse(doc_json);
    char *before = to_json(d->root);
    core_arena *a = core_arena_new(0);
    prep_report rep = {0};
    const jt_node *t =
        filtered(d, PREP_ERRORS | PREP_HEADERS | PREP_EXAMPLES | PREP_REQUEST_BODY, a, &rep);
    const jt_node *get = jt_pointer(t, "/paths/~1a/get");
    assert_non_null(get);
    const jt_node *resp = jt_get(get, "responses");
    assert_non_null(jt_get(resp, "200"));
    assert_non_null(jt_get(resp, "default"));
    assert_null(jt_get(resp, "404"));
    assert_null(jt_get(resp, "5XX"));
    assert_null(jt_pointer(resp, "/200/headers"));
    assert_null(jt_pointer(resp, "/200/content/application~1json/example"));
    assert_null(jt_pointer(resp, "/200/content/application~1json/x-examples"));
    assert_null(jt_get(get, "requestBody"));
    const jt_node *params = jt_get(get, "parameters");
    assert_int_equal(params->len, 1); /* body and formData parameters dropped */
    assert_string_equal(jt_get_str(jt_at(params, 0), "name"), "q");
    assert_null(jt_get(jt_at(params, 0), "example"));
    /* Names chosen by the author survive: properties called example, 404, requestBody. */
    const jt_node *props = jt_pointer(t, "/components/schemas/S/properties");
    assert_non_null(jt_get(props, "example"));
    assert_non_null(jt_get(props, "404"));
    assert_non_null(jt_get(props, "requestBody"));
    assert_non_null(jt_get(props, "headers"));
    assert_null(jt_get(jt_get(props, "example"), "example")); /* its own example keyword goes */
    assert_null(jt_pointer(t, "/components/requestBodies"));
    assert_null(jt_pointer(t, "/components/examples"));
    /* Reports: errors 2, headers 1, examples >= 4, request-body 4. */
    assert_int_equal(rep.count[prep_filter_index(PREP_ERRORS)], 2);
    assert_int_equal(rep.count[prep_filter_index(PREP_HEADERS)], 1);
    assert_true(rep.count[prep_filter_index(PREP_EXAMPLES)] >= 4);
    assert_int_equal(rep.count[prep_filter_index(PREP_REQUEST_BODY)], 4);
    assert_true(rep.bytes[prep_filter_index(PREP_ERRORS)] > 20);
    /* The input is untouched, and unchanged subtrees are shared. */
    char *after = to_json(d->root);
    assert_string_equal(before, after);
    assert_ptr_equal(jt_get(t, "info"), jt_get(d->root, "info"));
    free(before);
    free(after);
    core_arena_free(a);
    jt_doc_free(d);
}

static void test_text_in_tree(void **state)
{
    (void)state;
    jt_doc *d = parse(doc_json);
    core_arena *a = core_arena_new(0);
    prep_report rep = {0};
    const jt_node *t = filtered(d, PREP_HTML | PREP_URLS, a, &rep);
    assert_string_equal(jt_str(jt_pointer(t, "/info/description")), "Bold ");
    /* Functional strings and enum values are never rewritten. */
    assert_string_equal(jt_str(jt_pointer(t, "/servers/0/url")), "https://bit.ly/api");
    assert_string_equal(jt_str(jt_pointer(t, "/paths/~1a/get/parameters/0/schema/enum/0")), "<b>");
    assert_string_equal(jt_str(jt_pointer(t, "/paths/~1a/get/parameters/1/schema/$ref")),
                        "#/definitions/X");
    assert_int_equal(rep.count[prep_filter_index(PREP_URLS)], 1);
    assert_int_equal(rep.count[prep_filter_index(PREP_HTML)], 2);
    /* No filter, or nothing to do: the same tree back. */
    assert_ptr_equal(filtered(d, 0, a, NULL), d->root);
    assert_ptr_equal(filtered(d, PREP_BASE64, a, NULL), d->root);
    core_arena_free(a);
    jt_doc_free(d);
}

static void test_deep_tree(void **state)
{
    (void)state;
    /* 400 nested arrays (within the parser's limit) with an example at the bottom. */
    core_buf b;
    core_buf_init(&b, 0);
    for (int i = 0; i < 400; i++) core_buf_puts(&b, "{\"x\":");
    core_buf_puts(&b, "{\"example\":1,\"k\":2}");
    for (int i = 0; i < 400; i++) core_buf_puts(&b, "}");
    jt_doc *d = parse(b.data);
    core_buf_free(&b);
    core_arena *a = core_arena_new(0);
    const jt_node *t = filtered(d, PREP_EXAMPLES, a, NULL);
    const jt_node *n = t;
    for (int i = 0; i < 400; i++) n = jt_get(n, "x");
    assert_null(jt_get(n, "example"));
    assert_non_null(jt_get(n, "k"));
    assert_true(prep_tree_bytes(t) < prep_tree_bytes(d->root));
    core_arena_free(a);
    jt_doc_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_structural),
        cmocka_unit_test(test_text_in_tree),
        cmocka_unit_test(test_deep_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
