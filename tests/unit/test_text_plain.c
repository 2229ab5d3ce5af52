/* Plain text from HTML and markdown descriptions, and the sentence-aware shortener (plain.c). */
#include "testutil.h"

#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* text_plain of s with flags, into a static buffer. */
static const char *plain(const char *s, unsigned flags)
{
    static char out[8192];
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(text_plain(s, strlen(s), flags, &b), 0);
    assert_non_null(b.data);
    assert_true(b.len < sizeof out);
    memcpy(out, b.data, b.len + 1);
    core_buf_free(&b);
    return out;
}

static const char *line(const char *s)
{
    return plain(s, TEXT_PLAIN_ONE_LINE);
}

static void test_html_tags_and_entities(void **state)
{
    (void)state;
    assert_string_equal(line("<p>Accepts a request.</p> <p>The VPC attachment.</p>"),
                        "Accepts a request. The VPC attachment.");
    assert_string_equal(plain("<p>One.</p><p>Two.</p>", 0), "One.\n\nTwo.");
    assert_string_equal(line("Tom &amp; Jerry &lt;3 &quot;x&quot; &#39;y&#39; &#x41;&#66;"),
                        "Tom & Jerry <3 \"x\" 'y' AB");
    assert_string_equal(line("a&nbsp;b &unknown; &#0; &#xD800; & c"),
                        "a b &unknown; &#0; &#xD800; & c");
    assert_string_equal(line("See <a href=\"https://docs.aws.amazon.com/x\">AWS VPN</a> in the "
                             "<i>guide</i>."),
                        "See AWS VPN in the guide.");
    /* AWS's own tags: closed later, so they are markup */
    assert_string_equal(line("<note> <p>Reserved in <code>us-east-1</code>.</p> </note>"),
                        "Reserved in us-east-1.");
    /* placeholders are text */
    assert_string_equal(line("Send Authorization: Bearer <token> with each call"),
                        "Send Authorization: Bearer <token> with each call");
    assert_string_equal(line("if a < b and c > d"), "if a < b and c > d");
    assert_string_equal(line("x<!-- hidden -->y <script>alert(1)</script>z"), "xy z");
    assert_string_equal(line("<style>p { color: red }</style>Text"), "Text");
    assert_string_equal(line("Line one<br>line two<br/>three"), "Line one. line two. three");
    assert_string_equal(plain("Line one<br>line two", 0), "Line one\n\nline two");
    /* HTML newlines are spaces; tags with attributes holding '>' */
    assert_string_equal(line("<p>A\nwrapped\n\n line</p>"), "A wrapped line");
    assert_string_equal(line("<span title=\"a > b\">ok</span>"), "ok");
    assert_string_equal(line("<unclosed"), "<unclosed");
}

/* The shared entity decoder: the two sets differ only in their names. */
static void test_entity_sets(void **state)
{
    (void)state;
    char u[8];
    size_t n = 0;
    const char *in = "&ndash; &copy; &#x263A; &#39; &#0; &amp x";
    assert_int_equal(text_html_entity(in, strlen(in), TEXT_ENTITIES_ASCII, u, &n), 7);
    assert_memory_equal(u, "-", n);
    assert_int_equal(text_html_entity(in, strlen(in), TEXT_ENTITIES_UNICODE, u, &n), 7);
    assert_memory_equal(u, "\u2013", n);
    assert_int_equal(text_html_entity(in + 8, strlen(in + 8), TEXT_ENTITIES_ASCII, u, &n), 0);
    assert_int_equal(text_html_entity(in + 8, strlen(in + 8), TEXT_ENTITIES_UNICODE, u, &n), 6);
    assert_memory_equal(u, "\u00a9", n);
    for (int set = TEXT_ENTITIES_ASCII; set <= TEXT_ENTITIES_UNICODE; set++) {
        assert_int_equal(text_html_entity(in + 15, strlen(in + 15), set, u, &n), 8);
        assert_memory_equal(u, "\u263a", n);
        assert_int_equal(text_html_entity(in + 24, strlen(in + 24), set, u, &n), 5);
        assert_memory_equal(u, "'", n);
        assert_int_equal(text_html_entity(in + 30, strlen(in + 30), set, u, &n), 0); /* &#0; */
        assert_int_equal(text_html_entity(in + 35, strlen(in + 35), set, u, &n), 0); /* no ';' */
    }
}

static void test_html_lists(void **state)
{
    (void)state;
    const char *html = "<p>Types:</p><ul><li>snapshot</li><li>resize</li><li>reboot</li></ul>";
    assert_string_equal(line(html), "Types: snapshot; resize; reboot");
    assert_string_equal(plain(html, 0), "Types:\n\n- snapshot\n- resize\n- reboot");
    assert_string_equal(line("<ul><li>a</li><li>b</li></ul><p>After.</p>"), "a; b. After.");
}

static void test_markdown_inline(void **state)
{
    (void)state;
    assert_string_equal(line("**Bold** and *em* and _under_ and ~~gone~~ text"),
                        "Bold and em and under and gone text");
    assert_string_equal(line("snake_case_name and a*b*c and 2 * 3 stay"),
                        "snake_case_name and a*b*c and 2 * 3 stay");
    assert_string_equal(line("Use `GET /v1/items` with `limit`."), "Use GET /v1/items with limit.");
    assert_string_equal(line("Code ``a ` b`` here"), "Code a ` b here");
    assert_string_equal(line("See the [filter guide](#section/Using-filter) for more."),
                        "See the filter guide for more.");
    assert_string_equal(line("A [ref link][1] and ![logo](logo.png) and [plain] text"),
                        "A ref link and logo and [plain] text");
    assert_string_equal(line("[**nested** `code`](http://x.y/(a)b)"), "nested code");
    assert_string_equal(line("Mail <mailto:a@b.c> or <https://x.io/a>"), "Mail mailto:a@b.c or "
                                                                         "https://x.io/a");
    assert_string_equal(line("Escaped \\*stars\\* and \\_ and \\\\"),
                        "Escaped *stars* and _ and \\");
    assert_string_equal(line("a lone ` tick"), "a lone tick");
}

static void test_markdown_blocks(void **state)
{
    (void)state;
    const char *md = "# Title ##\n\nFirst paragraph\ncontinues here.\n\n"
                     "- one\n* two\n+ three\n\n1. first\n2. second\n\n"
                     "> quoted\n\n---\n\n[1]: http://example.com\n";
    assert_string_equal(line(md), "Title. First paragraph continues here. one; two; three; 1. "
                                  "first; 2. second. quoted");
    assert_string_equal(plain(md, 0), "Title\n\nFirst paragraph continues here.\n\n- one\n- "
                                      "two\n- three\n\n1. first\n2. second\n\nquoted");
    const char *table = "| name | type |\n|------|:----:|\n| id | string |\n";
    assert_string_equal(plain(table, 0), "name, type\nid, string");
    const char *code = "Example:\n```json\n{\"a\": 1}\n```\nDone.";
    assert_string_equal(line(code), "Example: Done.");
    assert_string_equal(plain(code, 0), "Example:\n\n{\"a\": 1}\n\nDone.");
}

static void test_whitespace_and_edges(void **state)
{
    (void)state;
    assert_string_equal(line(""), "");
    assert_string_equal(line("   \n\t \r\n "), "");
    assert_string_equal(line("  many   spaces\there  "), "many spaces here");
    assert_string_equal(line("caf\xc3\xa9 \xe2\x80\x94 ok"), "caf\xc3\xa9 \xe2\x80\x94 ok");
    /* invalid UTF-8 passes through, NUL too */
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(text_plain("a\xff\0b", 4, TEXT_PLAIN_ONE_LINE, &b), 0);
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.data, "a\xff\0b", 4);
    /* appends to what out holds */
    core_buf_reset(&b);
    core_buf_puts(&b, "X: ");
    assert_int_equal(text_plain("<b>y</b>", 8, TEXT_PLAIN_ONE_LINE, &b), 0);
    assert_string_equal(b.data, "X: y");
    assert_int_equal(text_plain(NULL, 0, 0, &b), APIDEX_EINVAL);
    core_buf_free(&b);
    /* a capped buffer fails cleanly and keeps what it had */
    core_buf_init(&b, 8);
    core_buf_puts(&b, "ab");
    assert_int_equal(text_plain("<p>a long text</p>", 18, 0, &b), APIDEX_ENOMEM);
    assert_string_equal(b.data, "ab");
    core_buf_free(&b);
}

static void test_keep_lines(void **state)
{
    (void)state;
    const char *rendered = "POST /v1/x\n<p>Initiate <b>3D</b> Secure.</p>\nParameters:\n"
                           "  - currency: string: Three-letter [ISO code](https://iso.org), "
                           "`lowercase`.\n    - nested: **yes**\n";
    assert_string_equal(plain(rendered, TEXT_PLAIN_KEEP_LINES),
                        "POST /v1/x\nInitiate 3D Secure.\nParameters:\n"
                        "  - currency: string: Three-letter ISO code, lowercase.\n"
                        "    - nested: yes");
}

static void test_cut_bytes(void **state)
{
    (void)state;
    const char *s = "Returns a list. Each item is a customer object with many fields.";
    size_t n = strlen(s);
    bool sentence = false;
    assert_int_equal(text_plain_cut(s, n, 500, &sentence), n);
    assert_true(sentence);
    /* the first sentence is less than half of what a word cut keeps: word cut */
    size_t k = text_plain_cut(s, n, 50, &sentence);
    assert_false(sentence);
    assert_true(k <= 50);
    assert_true(s[k] == ' ' || s[k] == ',');
    assert_int_equal(strncmp(s, "Returns a list. Each item is a customer object", k), 0);
    /* a sentence end close enough wins */
    k = text_plain_cut(s, n, 20, &sentence);
    assert_true(sentence);
    assert_int_equal(k, strlen("Returns a list."));
    /* never inside a word, never before ",;:" */
    const char *t = "alpha, beta; gamma";
    assert_int_equal(text_plain_cut(t, strlen(t), 9, NULL), 5);
    assert_int_equal(text_plain_cut(t, strlen(t), 14, NULL), 11);
    assert_int_equal(text_plain_cut("Supercalifragilistic", 20, 5, NULL), 0);
    /* abbreviations do not end sentences */
    const char *u = "Use e.g. the id. Then more words follow here.";
    assert_int_equal(text_plain_sentence(u, strlen(u)), strlen("Use e.g. the id."));
    assert_int_equal(text_plain_sentence("No end", 6), 6);
    assert_int_equal(text_plain_sentence("Version 1.5 is out. Yes", 23), 19);
}

static size_t count(const char *s)
{
    return text_bpe_count(text_bpe_default(), s, strlen(s));
}

static void test_shorten_tokens(void **state)
{
    (void)state;
    const char *s = "Creates a new customer object. The customer can then be charged, "
                    "subscribed to plans and given payment methods that are reused later.";
    core_buf b;
    core_buf_init(&b, 0);
    bool cut = true;
    assert_int_equal(text_plain_shorten(s, strlen(s), 1000, &b, &cut), 0);
    assert_false(cut);
    assert_string_equal(b.data, s);
    for (size_t max = 1; max <= count(s); max++) {
        core_buf_reset(&b);
        assert_int_equal(text_plain_shorten(s, strlen(s), max, &b, &cut), 0);
        const char *got = b.data ? b.data : "";
        assert_true(count(got) <= max);
        if (max < count(s)) assert_true(cut);
        /* a prefix of s at a word end, plus the ellipsis when not at a sentence end */
        size_t len = strlen(got);
        const char *ell = "\xe2\x80\xa6";
        bool has_ell = len >= 3 && !strcmp(got + len - 3, ell);
        size_t body = has_ell ? len - 3 : len;
        assert_int_equal(strncmp(got, s, body), 0);
        assert_true(body == 0 || body == strlen(s) || s[body] == ' ' || s[body] == ',');
        if (!has_ell && body && body < strlen(s)) assert_int_equal(s[body - 1], '.');
    }
    core_buf_reset(&b);
    assert_int_equal(text_plain_shorten(s, strlen(s), 9, &b, &cut), 0);
    assert_string_equal(b.data, "Creates a new customer object.");
    core_buf_free(&b);
}

static void test_plain_line(void **state)
{
    (void)state;
    core_buf b;
    core_buf_init(&b, 0);
    bool cut;
    const char *d = "<p>Retrieves the details of an existing customer. You need only supply "
                    "the unique customer identifier that was returned upon customer "
                    "creation.</p>";
    assert_int_equal(text_plain_line(d, strlen(d), 12, &b, &cut), 0);
    assert_true(cut);
    assert_string_equal(b.data, "Retrieves the details of an existing customer.");
    core_buf_reset(&b);
    assert_int_equal(text_plain_line(d, strlen(d), 0, &b, &cut), 0);
    assert_false(cut);
    assert_null(strchr(b.data, '<'));
    core_buf_free(&b);
}

/* text_plain_summary of (summary, description, max_tokens) into a static buffer. */
static const char *summary_of(const char *summary, const char *description, size_t max_tokens)
{
    static char out[1024];
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(text_plain_summary(summary, description, max_tokens, &b), 0);
    assert_true(b.len < sizeof out);
    memcpy(out, b.data ? b.data : "", b.len);
    out[b.len] = '\0';
    core_buf_free(&b);
    return out;
}

static void test_summary_fallback(void **state)
{
    (void)state;
    /* a summary wins, as plain text */
    assert_string_equal(summary_of("Create a **charge**", "Ignored. Really.", 0),
                        "Create a charge");
    /* no summary (or only markup): the description's first sentence */
    assert_string_equal(summary_of(NULL, "Creates a refund. Refunds go to the card.", 0),
                        "Creates a refund.");
    assert_string_equal(summary_of("", "Lists charges. Newest first.", 0), "Lists charges.");
    assert_string_equal(summary_of("<br/>", "Lists charges. Newest first.", 0), "Lists charges.");
    /* abbreviations and versions do not end the sentence */
    assert_string_equal(
        summary_of(NULL, "Sends a message, e.g. a text, to a number. Then more.", 0),
        "Sends a message, e.g. a text, to a number.");
    assert_string_equal(summary_of(NULL, "Works with v. 2 of the API. Then more.", 0),
                        "Works with v. 2 of the API.");
    /* markdown and HTML go: link text stays, its target and the tags do not */
    assert_string_equal(summary_of(NULL,
                                   "<p>Sends an SMS to an [E.164](https://en.wikipedia.org/"
                                   "wiki/E.164) number.</p><p>More.</p>",
                                   0),
                        "Sends an SMS to an E.164 number.");
    /* a leading heading is a section's name, not what the operation does */
    assert_string_equal(summary_of(NULL, "## Charges\n\nReturns a *list* of charges. Paged.", 0),
                        "Returns a list of charges.");
    assert_string_equal(summary_of(NULL, "# Only a heading", 0), "Only a heading");
    /* nothing to say: nothing appended */
    assert_string_equal(summary_of(NULL, NULL, 0), "");
    assert_string_equal(summary_of("", "  ", 0), "");
    /* a long first sentence is cut at a word within the token limit */
    const char *w = summary_of(NULL,
                               "Returns one two three four five six seven eight nine ten "
                               "eleven twelve thirteen fourteen. Next.",
                               6);
    assert_true(strlen(w) > 0 && strlen(w) < 40);
    assert_null(strstr(w, "Next"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_html_tags_and_entities),
        cmocka_unit_test(test_entity_sets),
        cmocka_unit_test(test_html_lists),
        cmocka_unit_test(test_markdown_inline),
        cmocka_unit_test(test_markdown_blocks),
        cmocka_unit_test(test_whitespace_and_edges),
        cmocka_unit_test(test_keep_lines),
        cmocka_unit_test(test_cut_bytes),
        cmocka_unit_test(test_shorten_tokens),
        cmocka_unit_test(test_plain_line),
        cmocka_unit_test(test_summary_fallback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
