/* Unit tests of the prep text filters: base64, HTML, markdown, URLs. */
#include "testutil.h"

#include "prep/prep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs the filters on s and returns the result (static buffer of the test). */
static char *run(unsigned filters, const char *s, prep_report *rep)
{
    static core_buf out;
    core_buf_free(&out);
    core_buf_init(&out, 0);
    prep_options opt = {.filters = filters};
    assert_int_equal(prep_text(&opt, s, strlen(s), &out, rep), 0);
    return out.data ? out.data : (char *)"";
}

static void test_filter_names(void **state)
{
    (void)state;
    unsigned f = 0;
    apidex_error err;
    assert_int_equal(prep_parse_filters("html, markdown,errors", &f, &err), 0);
    assert_int_equal(f, PREP_HTML | PREP_MARKDOWN | PREP_ERRORS);
    assert_int_equal(prep_parse_filters("remove-examples", &f, &err), 0);
    assert_int_equal(f, PREP_EXAMPLES | PREP_REQUEST_BODY);
    assert_int_equal(prep_parse_filters("", &f, &err), 0);
    assert_int_equal(f, 0);
    assert_int_equal(prep_parse_filters("all", &f, &err), 0);
    assert_int_equal(f, PREP_ALL_CLEANING);
    assert_int_equal(prep_parse_filters("html,bogus", &f, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "bogus"));
    for (int i = 0; i < PREP_N_FILTERS; i++) {
        const char *name = prep_filter_name(1u << i);
        assert_non_null(name);
        assert_int_equal(prep_parse_filters(name, &f, &err), 0);
        assert_int_equal(f, 1u << i);
    }
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(prep_format_filters(PREP_HTML | PREP_REQUEST_BODY, &b), 0);
    assert_string_equal(b.data, "html,request-body");
    core_buf_free(&b);
}

static void test_base64(void **state)
{
    (void)state;
    prep_report rep = {0};
    const char *blob =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kg"
        "AAAABJRU5ErkJggg==";
    char in[512];
    snprintf(in, sizeof in, "Photo: data:image/png;base64,%s end", blob);
    assert_string_equal(run(PREP_BASE64, in, &rep), "Photo: end");
    assert_int_equal(rep.count[0], 1);
    snprintf(in, sizeof in, "raw %s tail", blob);
    assert_string_equal(run(PREP_BASE64, in, NULL), "raw tail");
    /* Paths, hex digests and ordinary words are not blobs. */
    const char *keep[] = {
        "/v1/accounts/{accountId}/subscriptions/items/usage_records/summaries/list/all",
        "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ok",
        "short aGVsbG8gd29ybGQ= stays",
        "Supercalifragilisticexpialidocious is a long word but only letters in one case"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        assert_string_equal(run(PREP_BASE64, keep[i], NULL), keep[i]);
}

static void test_html(void **state)
{
    (void)state;
    prep_report rep = {0};
    assert_string_equal(run(PREP_HTML, "<p>Hello <b>world</b></p><p>Again</p>", &rep),
                        "Hello world\nAgain\n");
    assert_true(rep.count[1] >= 6);
    assert_string_equal(
        run(PREP_HTML, "a <a href=\"x>y\">link</a> &amp; &lt;b&gt; &#39;q&#x27;", NULL),
        "a link & <b> 'q'");
    /* Placeholders and comparisons are not tags. */
    assert_string_equal(run(PREP_HTML, "Bearer <token> if a < b and <id>", NULL),
                        "Bearer <token> if a < b and <id>");
    assert_string_equal(run(PREP_HTML, "x<!-- hidden -->y", NULL), "xy");
    assert_string_equal(run(PREP_HTML, "unterminated <b class='x", NULL),
                        "unterminated <b class='x");
}

static void test_markdown(void **state)
{
    (void)state;
    assert_string_equal(run(PREP_MARKDOWN, "# Title\nSome **bold** and *it* and `code`.", NULL),
                        "Title\nSome bold and it and code.");
    assert_string_equal(run(PREP_MARKDOWN, "See [the docs](https://x.io/a_(b)) now", NULL),
                        "See the docs now");
    assert_string_equal(run(PREP_MARKDOWN, "![logo](img.png) and [ref][1]\n[1]: http://a.b", NULL),
                        "logo and ref\n");
    assert_string_equal(run(PREP_MARKDOWN, "- one\n- two\n> quoted\n---\nafter", NULL),
                        "one\ntwo\nquoted\nafter");
    assert_string_equal(run(PREP_MARKDOWN, "| a | b |\n|---|:-:|\n| 1 | 2 |", NULL),
                        "a | b\n1 | 2");
    /* Identifiers and arithmetic keep their underscores and stars. */
    assert_string_equal(run(PREP_MARKDOWN, "use snake_case_name and a*b*c, __init__ ok", NULL),
                        "use snake_case_name and a*b*c, init ok");
    /* ... also next to non-ASCII letters (every UTF-8 byte is a word byte) */
    assert_string_equal(run(PREP_MARKDOWN, "keys prix_é_ttc and é_x_é stay", NULL),
                        "keys prix_é_ttc and é_x_é stay");
    assert_string_equal(run(PREP_MARKDOWN, "```json\n{\"a\": 1}\n```", NULL), "{\"a\": 1}\n");
    assert_string_equal(run(PREP_MARKDOWN, "~~old~~ new", NULL), "old new");
}

static void test_urls(void **state)
{
    (void)state;
    prep_report rep = {0};
    assert_string_equal(
        run(PREP_URLS, "See https://bit.ly/x1 and https://api.example.com/docs.", &rep),
        "See and https://api.example.com/docs.");
    assert_int_equal(rep.count[3], 1);
    assert_string_equal(run(PREP_URLS, "go to https://www.postman.com/collections/1 now", NULL),
                        "go to now");
    assert_string_equal(run(PREP_URLS, "not https://notpostman.com/x", NULL),
                        "not https://notpostman.com/x");
    assert_string_equal(run(PREP_URLS_ALL, "a https://x.io/p?q=1, b (www.y.org/z) c", NULL),
                        "a, b () c");
    /* A custom blacklist replaces the default one. */
    const char *const list[] = {"example.com", NULL};
    prep_options opt = {.filters = PREP_URLS, .url_blacklist = list};
    core_buf out;
    core_buf_init(&out, 0);
    const char *in = "x http://docs.example.com/a y https://bit.ly/b";
    assert_int_equal(prep_text(&opt, in, strlen(in), &out, NULL), 0);
    assert_string_equal(out.data, "x y https://bit.ly/b");
    core_buf_free(&out);
}

static void test_combined_and_hostile(void **state)
{
    (void)state;
    unsigned all = PREP_BASE64 | PREP_HTML | PREP_MARKDOWN | PREP_URLS_ALL;
    assert_string_equal(run(all, "<p>**Read** [this](https://bit.ly/q)</p>", NULL), "Read this\n");
    /* Long hostile inputs finish quickly and never grow the text. */
    size_t n = 200000;
    char *s = malloc(n + 1);
    const char pat[] = "*a [b <i _c` ](x https://";
    for (size_t i = 0; i < n; i++) s[i] = pat[i % (sizeof pat - 1)];
    s[n] = 0;
    double t0 = core_now();
    char *r = run(all, s, NULL);
    assert_true(strlen(r) <= n);
    assert_true(core_now() - t0 < 5.0);
    free(s);
    /* Empty input and no filters. */
    assert_string_equal(run(all, "", NULL), "");
    assert_string_equal(run(0, "<b>x</b>", NULL), "<b>x</b>");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_names), cmocka_unit_test(test_base64),
        cmocka_unit_test(test_html),         cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_urls),         cmocka_unit_test(test_combined_and_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
