/* Descriptions as safe HTML for the page (serve/markup.c): markdown rendered from a fixed set
 * of elements, text escaped, http(s) links only, raw HTML of a spec never passed on. */
#include "testutil.h"

#include "serve/serve_int.h"

#include <string.h>

static const char *html(const char *md)
{
    static char out[8192];
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(serve_markup_html(md, strlen(md), &b), 0);
    assert_true(b.len < sizeof out);
    memcpy(out, b.data ? b.data : "", b.len);
    out[b.len] = '\0';
    core_buf_free(&b);
    return out;
}

static void test_markdown(void **state)
{
    (void)state;
    assert_string_equal(html("Send a **text** to an [E.164](https://en.wikipedia.org/wiki/E.164) "
                             "number, _now_."),
                        "<p>Send a <strong>text</strong> to an <a "
                        "href=\"https://en.wikipedia.org/wiki/E.164\">E.164</a> number, "
                        "<em>now</em>.</p>");
    assert_string_equal(html("- `a`\n- b"), "<ul><li><code>a</code></li><li>b</li></ul>");
    assert_string_equal(html("## Title\n\ntext"), "<p><strong>Title</strong></p><p>text</p>");
    assert_string_equal(html("```\nx < y\n```"), "<pre><code>x &lt; y\n</code></pre>");
    assert_string_equal(html("| a | b |\n|---|---|\n| 1 | 2 |"),
                        "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td>"
                        "<td>2</td></tr></tbody></table>");
    assert_string_equal(html("Tom &amp; Jerry &copy; 1 < 2 & 3"),
                        "<p>Tom &amp; Jerry &copy; 1 &lt; 2 &amp; 3</p>");
    assert_string_equal(html(""), "");
}

/* Every tag of h is one of the renderer's, and the only attribute an http(s) href. */
static void assert_only_allowed(const char *h)
{
    static const char *const tags[] = {"p",     "br", "em", "strong",     "del", "code",  "pre",
                                       "ul",    "ol", "li", "blockquote", "hr",  "table", "thead",
                                       "tbody", "tr", "th", "td",         "a"};
    for (const char *p = strchr(h, '<'); p; p = strchr(p + 1, '<')) {
        const char *t = p + 1 + (p[1] == '/');
        size_t n = strcspn(t, " >");
        bool known = false;
        for (size_t k = 0; k < sizeof tags / sizeof *tags; k++)
            known |= strlen(tags[k]) == n && !strncmp(tags[k], t, n);
        if (!known) fail_msg("unknown tag in %s", h);
        if (t[n] == ' ' && strncmp(t, "a href=\"http", 13)) fail_msg("attribute in %s", h);
    }
}

static void test_hostile(void **state)
{
    (void)state;
    /* links: only http(s) keep their href; the text stays */
    assert_string_equal(html("[x](javascript:alert(1)) [y](data:text/html,hi) [z](/rel) "
                             "[w](JAVASCRIPT:alert(1))"),
                        "<p>x y z w</p>");
    assert_string_equal(
        html("[q](https://a.example/?a=\"b\"&c=<d>)"),
        "<p><a href=\"https://a.example/?a=&quot;b&quot;&amp;c=&lt;d&gt;\">q</a></p>");
    /* images: their alt text, nothing loads */
    assert_string_equal(html("![a *cat*](https://x.example/c.png \"t\")"), "<p>a cat</p>");
    /* inline HTML: tags go (a script's text too), <br> breaks the line */
    assert_string_equal(html("a <script>alert(1)</script> b <img src=x onerror=alert(1)> "
                             "<a href=\"javascript:x\" onclick=\"y\">c</a><br/>d"),
                        "<p>a  b  c<br>d</p>");
    /* an HTML block: its plain text in paragraphs, escaped */
    assert_string_equal(html("<p>Creates a <fullname>user</fullname> &lt;ok&gt;.</p>"
                             "<p>Two</p>\n<script>alert(1)</script>"),
                        "<p>Creates a user &lt;ok&gt;.</p><p>Two</p>");
    assert_string_equal(html("<div onmouseover=\"x()\">\n<b>bold</b>\n</div>"), "<p>bold</p>");
    /* nothing that opens a tag survives anywhere */
    const char *nasty[] = {
        "<svg/onload=alert(1)>",     "<<script>>",        "`<script>`", "<iframe src=x></iframe>",
        "x\n\n<style>*{}</style>\n", "&#x3C;script&#x3E;"};
    for (size_t i = 0; i < sizeof nasty / sizeof *nasty; i++) assert_only_allowed(html(nasty[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
