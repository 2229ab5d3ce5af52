/* The analyzer (src/text/analyzer.c): the terms it makes of a few texts, for the index and
   for a query, its stop words and the word families it finds in a vocabulary. */
#include "testutil.h"

#include "text/text.h"

#include <stdlib.h>
#include <string.h>

static int setup(void **state)
{
    *state = text_analyzer_new();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    text_analyzer_free(*state);
    return 0;
}

/* The terms of s for use, space-separated (static: valid until the next call). */
static const char *terms(text_analyzer *a, const char *s, text_terms_use use)
{
    static char out[1024];
    core_buf b;
    core_buf_init(&b, 0);
    size_t n = text_analyzer_terms(a, s, strlen(s), use, &b);
    assert_false(b.failed);
    assert_true(b.len < sizeof out);
    memcpy(out, b.data ? b.data : "", b.len);
    out[b.len] = '\0';
    core_buf_free(&b);
    /* the count is the number of terms in the string */
    size_t words = 0;
    for (const char *p = out; *p; p++)
        if (*p != ' ' && (p == out || p[-1] == ' ')) words++;
    assert_int_equal(n, words);
    return out;
}

static void test_identifiers_split_and_kept_whole(void **state)
{
    text_analyzer *a = *state;
    assert_string_equal(terms(a, "getHTTPResponse", TEXT_TERMS_INDEX),
                        "get http respons gethttprespons");
    assert_string_equal(terms(a, "movie_id", TEXT_TERMS_INDEX), "movi id movieid");
    assert_string_equal(terms(a, "movieId", TEXT_TERMS_INDEX), "movi id movieid");
    assert_string_equal(terms(a, "/movie/{movie_id}/credits", TEXT_TERMS_INDEX),
                        "movi movi id movieid credit");
    assert_string_equal(terms(a, "x-rate-limit", TEXT_TERMS_INDEX), "x rate limit xratelimit");
    assert_string_equal(terms(a, "oauth2", TEXT_TERMS_INDEX), "oauth 2 oauth2");
}

static void test_case_fold_and_stems(void **state)
{
    text_analyzer *a = *state;
    assert_string_equal(terms(a, "Retrieving Subscriptions", TEXT_TERMS_INDEX),
                        "retriev subscript");
    assert_string_equal(terms(a, "Café PAYMENTS", TEXT_TERMS_INDEX), "cafe payment");
    assert_string_equal(terms(a, "the user's playlists", TEXT_TERMS_INDEX), "the user playlist");
}

static void test_a_query_drops_the_stop_words(void **state)
{
    text_analyzer *a = *state;
    const char *task = "Please give me the list of my playlists for this user";
    assert_string_equal(terms(a, task, TEXT_TERMS_INDEX),
                        "pleas give me the list of my playlist for this user");
    assert_string_equal(terms(a, task, TEXT_TERMS_QUERY), "list playlist user");
    /* a stop word inside an identifier is a term of the identifier */
    assert_string_equal(terms(a, "get_the_user", TEXT_TERMS_QUERY), "user gettheus");
    assert_true(text_term_is_stop("pleas", 5)); /* stop words are compared as terms */
    assert_false(text_term_is_stop("please", 6));
    assert_true(text_term_is_stop("the", 3));
    assert_false(text_term_is_stop("user", 4));
    assert_string_equal(terms(a, "", TEXT_TERMS_QUERY), "");
}

/* The stemmed words a verb is read from: no whole identifiers, no stop words dropped. */
static void test_stems_for_verbs(void **state)
{
    text_analyzer *a = *state;
    assert_string_equal(terms(a, "getHTTPResponse", TEXT_TERMS_STEMS), "get http respons");
    assert_string_equal(terms(a, "Please list the movie_id", TEXT_TERMS_STEMS),
                        "pleas list the movi id");
    char stem[32];
    assert_int_equal(text_analyzer_first_stem(a, "Retrieving all", 14, stem, sizeof stem), 7);
    assert_string_equal(stem, "retriev");
    assert_int_equal(text_analyzer_first_stem(a, "--", 2, stem, sizeof stem), 0);
    assert_string_equal(stem, "");
    assert_int_equal(text_analyzer_first_stem(a, "subscriptions", 13, stem, 4), 0);
}

/* Each term, as text_analyzer_each gives it, and stopping. */
static int count_until_two(const char *w, size_t n, void *ctx)
{
    (void)w;
    (void)n;
    size_t *c = ctx;
    return ++*c == 2;
}

static void test_each_stops_when_asked(void **state)
{
    size_t c = 0;
    text_analyzer_each(*state, "create new invoice items", 24, TEXT_TERMS_INDEX, count_until_two,
                       &c);
    assert_int_equal(c, 2);
}

/* A sorted vocabulary of a few terms, ids in order. */
static const char *const vocab_terms[] = {"notif",         "notifi",   "pay",
                                          "payment",       "subscrib", "subscript",
                                          "subscriptionx", "user",     "usernam"};
enum { N_VOCAB = sizeof vocab_terms / sizeof vocab_terms[0] };

static long vocab_find(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    for (size_t i = 0; i < N_VOCAB; i++)
        if (strlen(vocab_terms[i]) == n && !memcmp(vocab_terms[i], s, n)) return (long)i;
    return -1;
}

static const char *vocab_sorted(void *ctx, size_t i, size_t *len, long *id)
{
    (void)ctx;
    *len = strlen(vocab_terms[i]);
    *id = (long)i;
    return vocab_terms[i];
}

static size_t family(const char *term, long *out, bool *noun)
{
    text_vocab v = {NULL, vocab_find, vocab_sorted, N_VOCAB};
    text_family_rule r = {.stem = 3, .min_len = 6, .tail = 2};
    return text_term_family(&v, &r, vocab_find(NULL, term, strlen(term)), term, strlen(term), out,
                            noun, 8);
}

static void test_word_families(void **state)
{
    (void)state;
    long out[8];
    bool noun[8];
    /* pay + "ment": the action noun */
    assert_int_equal(family("pay", out, noun), 1);
    assert_string_equal(vocab_terms[out[0]], "payment");
    assert_true(noun[0]);
    /* payment - "ment" */
    assert_int_equal(family("payment", out, noun), 1);
    assert_string_equal(vocab_terms[out[0]], "pay");
    assert_false(noun[0]);
    /* by shared stem: all but the last two letters, the longer the noun */
    assert_int_equal(family("subscrib", out, noun), 1);
    assert_string_equal(vocab_terms[out[0]], "subscript");
    assert_true(noun[0]);
    /* "notifi" less "i"... is no suffix; "notif" + "i" is not one either: no family; too
       short for the shared stem */
    assert_int_equal(family("notif", out, noun), 0);
    /* a name is not a family of its word: "usernam" is "user" + "nam" */
    assert_int_equal(family("user", out, noun), 0);
    /* without a sorted order, suffixes only */
    text_vocab v = {NULL, vocab_find, NULL, 0};
    text_family_rule r = {.stem = 3, .min_len = 6, .tail = 2};
    assert_int_equal(text_term_family(&v, &r, 4, "subscrib", 8, out, noun, 8), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_identifiers_split_and_kept_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(test_case_fold_and_stems, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_query_drops_the_stop_words, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stems_for_verbs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_each_stops_when_asked, setup, teardown),
        cmocka_unit_test(test_word_families),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
