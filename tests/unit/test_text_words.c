/* Identifier-aware word splitting and stemming for BM25 (text_words_split). */
#include "testutil.h"

#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct collected {
    char out[4096];
    size_t len;
    size_t calls;
    size_t stop_after; /* 0 = never stop */
} collected;

static int collect(const char *word, size_t len, void *ctx)
{
    collected *c = ctx;
    assert_true(len > 0);
    assert_true(c->len + len + 2 < sizeof c->out);
    if (c->len) c->out[c->len++] = ' ';
    memcpy(c->out + c->len, word, len);
    c->len += len;
    c->out[c->len] = '\0';
    c->calls++;
    return c->stop_after && c->calls >= c->stop_after;
}

/* The words of s, space-separated. */
static const char *split(text_words *w, const char *s, unsigned flags)
{
    static collected c;
    memset(&c, 0, sizeof c);
    size_t n = text_words_split(w, s, strlen(s), flags, collect, &c);
    assert_int_equal(n, c.calls);
    return c.out;
}

static int setup(void **state)
{
    *state = text_words_new();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    text_words_free(*state);
    return 0;
}

static void test_camel_and_acronyms(void **state)
{
    text_words *w = *state;
    assert_string_equal(split(w, "getHTTPResponse", 0), "get http response");
    assert_string_equal(split(w, "PascalCaseName", 0), "pascal case name");
    assert_string_equal(split(w, "listURLs", 0), "list urls");
    assert_string_equal(split(w, "IDsList", 0), "ids list");
    assert_string_equal(split(w, "HTTPSConnection", 0), "https connection");
    assert_string_equal(split(w, "userID", 0), "user id");
    assert_string_equal(split(w, "ABC", 0), "abc");
    assert_string_equal(split(w, "iOS", 0), "i os");
}

static void test_snake_kebab_dotted(void **state)
{
    text_words *w = *state;
    assert_string_equal(split(w, "snake_case_name", 0), "snake case name");
    assert_string_equal(split(w, "x-rate-limit", 0), "x rate limit");
    assert_string_equal(split(w, "com.example.FooBar", 0), "com example foo bar");
    assert_string_equal(split(w, "__init__ --flag -", 0), "init flag");
    assert_string_equal(split(w, "SCREAMING_SNAKE", 0), "screaming snake");
}

static void test_paths_and_placeholders(void **state)
{
    text_words *w = *state;
    assert_string_equal(split(w, "/movie/{movie_id}/credits", 0), "movie movie id credits");
    assert_string_equal(split(w, "GET /users/{userId}/repos?per_page=10", 0),
                        "get users user id repos per page 10");
    assert_string_equal(split(w, "/movie/{movie_id}/credits", TEXT_WORDS_KEEP_IDENT),
                        "movie movie id movieid credits");
}

static void test_digits(void **state)
{
    text_words *w = *state;
    assert_string_equal(split(w, "oauth2 v2 ec2", 0), "oauth 2 v 2 ec 2");
    assert_string_equal(split(w, "123456789012345", 0), "123456789012345");
    assert_string_equal(split(w, "v1.2.3", 0), "v 1 2 3");
    assert_string_equal(split(w, "base64Encode", 0), "base 64 encode");
    assert_string_equal(split(w, "oauth2 v2", TEXT_WORDS_KEEP_IDENT), "oauth 2 oauth2 v 2 v2");
}

static void test_keep_ident_unifies_conventions(void **state)
{
    text_words *w = *state;
    const char *want = "movie id movieid";
    assert_string_equal(split(w, "movie_id", TEXT_WORDS_KEEP_IDENT), want);
    assert_string_equal(split(w, "movieId", TEXT_WORDS_KEEP_IDENT), want);
    assert_string_equal(split(w, "movie-id", TEXT_WORDS_KEEP_IDENT), want);
    assert_string_equal(split(w, "MovieID", TEXT_WORDS_KEEP_IDENT), want);
    /* A single word is not repeated. */
    assert_string_equal(split(w, "movies", TEXT_WORDS_KEEP_IDENT), "movies");
    /* Separate identifiers are not joined across spaces, dots or slashes. */
    assert_string_equal(split(w, "a.b c/d", TEXT_WORDS_KEEP_IDENT), "a b c d");
}

static void test_unicode(void **state)
{
    text_words *w = *state;
    assert_string_equal(split(w, "Café NAÏVE Straße", 0), "cafe naive strasse");
    assert_string_equal(split(w, "ＡＰＩキー ﬁle", 0), "api キー file");
    assert_string_equal(split(w, "ΟΔΟΣ Ελλάδα", 0), "οδοσ ελλαδα");
    assert_string_equal(split(w, "中文字 test", 0), "中 文 字 test");
    assert_string_equal(split(w, "emoji👍here ★ done", 0), "emoji here done");
    /* Invalid UTF-8 separates words and never crashes. */
    assert_string_equal(split(w,
                              "ab\xff\xfe"
                              "cd\xc3",
                              0),
                        "ab cd");
}

static void test_stemming(void **state)
{
    text_words *w = *state;
    assert_string_equal(split(w, "movies running", TEXT_WORDS_STEM), "movi run");
    assert_string_equal(split(w, "listMovies", TEXT_WORDS_STEM | TEXT_WORDS_KEEP_IDENT),
                        "list movi listmovi");
    assert_string_equal(split(w, "user's accounts", TEXT_WORDS_STEM), "user account");
    assert_string_equal(split(w, "2019 12", TEXT_WORDS_STEM), "2019 12");
}

static void test_stop_and_limits(void **state)
{
    text_words *w = *state;
    collected c = {.stop_after = 2};
    size_t n = text_words_split(w, "one two three four", 18, 0, collect, &c);
    assert_int_equal(n, 2);
    assert_string_equal(c.out, "one two");
    /* Words over 100 bytes are dropped; so is a joined identifier that long. */
    char long_word[160];
    memset(long_word, 'x', 150);
    memcpy(long_word + 150, " ok_go", 7);
    assert_string_equal(split(w, long_word, TEXT_WORDS_KEEP_IDENT), "ok go okgo");
    char long_ident[200];
    size_t k = 0;
    for (int i = 0; i < 30; i++)
        k += (size_t)snprintf(long_ident + k, sizeof long_ident - k, "abcd_");
    long_ident[k - 1] = '\0';
    collected d = {0};
    n = text_words_split(w, long_ident, strlen(long_ident), TEXT_WORDS_KEEP_IDENT, collect, &d);
    assert_int_equal(n, 30);
    assert_int_equal(text_words_split(w, "", 0, 0, collect, &d), 0);
    assert_int_equal(text_words_split(w, NULL, 0, 0, collect, &d), 0);
    text_words_free(NULL);
}

static int count_words(const char *word, size_t len, void *ctx)
{
    (void)word;
    assert_true(len > 0);
    (*(size_t *)ctx)++;
    return 0;
}

static void test_long_input(void **state)
{
    text_words *w = *state;
    /* A large input grows the splitter's buffers once; "getUserById" gives 5 words. */
    size_t reps = 20000;
    core_buf b;
    core_buf_init(&b, 0);
    for (size_t i = 0; i < reps; i++) assert_int_equal(core_buf_puts(&b, "getUserById, "), 0);
    size_t seen = 0;
    size_t n = text_words_split(w, b.data, b.len, TEXT_WORDS_KEEP_IDENT, count_words, &seen);
    assert_int_equal(n, reps * 5);
    assert_int_equal(seen, n);
    /* The same splitter then handles a small input correctly. */
    assert_string_equal(split(w, "byId", TEXT_WORDS_KEEP_IDENT), "by id byid");
    /* No callback: nothing to do. */
    assert_int_equal(text_words_split(w, b.data, b.len, 0, NULL, NULL), 0);
    core_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_camel_and_acronyms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snake_kebab_dotted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_paths_and_placeholders, setup, teardown),
        cmocka_unit_test_setup_teardown(test_digits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keep_ident_unifies_conventions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unicode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stemming, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_and_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_input, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
