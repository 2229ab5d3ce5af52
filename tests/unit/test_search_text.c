/* What a person reads of a hit: the summary, or the description's first sentence when the
 * spec gives none, and `why`'s words, which are the spec's own words (or the task's), never
 * the index's stems. */
#include "search_testutil.h"

#include "text/text.h"

#include <stdio.h>

typedef search_fixture fixture;

static int setup(void **state)
{
    static const char *const specs[] = {"tests/data/search/parcels.yaml", "examples/recipes.yaml",
                                        NULL};
    *state = search_fixture_new(specs);
    return 0;
}

static const search_hit *hit(const search_result *r, const char *id)
{
    long i = search_hit_index(r, id);
    if (i < 0) fail_msg("%s not in the result", id);
    return &r->hits[i];
}

static void test_summary_falls_back_to_the_description(void **state)
{
    fixture *f = *state;
    search_result *r = search_fixture_run(f, (search_query){.text = "shipments", .k = 10});
    /* no summary: the description's first sentence, plain ("e.g." does not end it, the
       link keeps its text, the tags go) */
    assert_string_equal(hit(r, "parcel-courier:PostShipments")->summary,
                        "Creates a shipment, e.g. a box or an envelope, for a parcel going to "
                        "an address.");
    /* a leading markdown heading is skipped */
    assert_string_equal(hit(r, "parcel-courier:GetShipments")->summary,
                        "Returns the shipments you created, newest first.");
    /* a summary wins */
    assert_string_equal(hit(r, "parcel-courier:PostShipmentsShipmentCancel")->summary,
                        "Cancel a shipment");
    search_result_free(r);
}

/* "|word|word|...|": the words of the fixture specs and of text, as the index splits them
   (identifier-aware, lower case, not stemmed): the words a reader may be shown. */
static int add_word(const char *w, size_t n, void *ctx)
{
    core_buf *b = ctx;
    core_buf_append(b, w, n);
    core_buf_putc(b, '|');
    return 0;
}

static void spec_words(const char *text, core_buf *out)
{
    static const char *const files[] = {"tests/data/search/parcels.yaml", "examples/recipes.yaml"};
    text_words *tw = text_words_new();
    assert_non_null(tw);
    core_buf_putc(out, '|');
    for (size_t i = 0; i < 2; i++) {
        char *path = tu_path(tu_source_dir(), files[i]);
        FILE *fp = fopen(path, "rb");
        assert_non_null(fp);
        char buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        free(path);
        text_words_split(tw, buf, n, TEXT_WORDS_KEEP_IDENT, add_word, out);
    }
    text_words_split(tw, text, strlen(text), TEXT_WORDS_KEEP_IDENT, add_word, out);
    text_words_free(tw);
}

/* Every word between the parentheses of why ("summary(create, cookbook) path(...)") is a
   word of the specs or of the task. */
static void assert_why_words(const char *why, const char *words)
{
    for (const char *p = strchr(why, '('); p; p = strchr(p, '(')) {
        const char *end = strchr(p, ')');
        assert_non_null(end);
        if (p - why < 5 || (strncmp(p - 5, "dense", 5) && strncmp(p - 5, "usage", 5))) {
            for (const char *w = p + 1; w < end;) {
                const char *e = w;
                while (e < end && *e != ',') e++;
                char word[130];
                int n = snprintf(word, sizeof word, "|%.*s|", (int)(e - w), w);
                assert_true(n > 2 && (size_t)n < sizeof word);
                if (!strstr(words, word))
                    fail_msg("why shows \"%s\", not a word of the spec", word);
                w = e < end ? e + 2 : end;
            }
        }
        p = end;
    }
}

static void test_why_names_the_spec_words(void **state)
{
    fixture *f = *state;
    const char *tasks[] = {"creating cookbooks and adding recipes", "creating shipment",
                           "cancelled shipments of recipients", "searching recipe ingredients"};
    for (size_t t = 0; t < sizeof tasks / sizeof *tasks; t++) {
        core_buf words;
        core_buf_init(&words, 0);
        spec_words(tasks[t], &words);
        search_result *r = search_fixture_run(f, (search_query){.text = tasks[t], .k = 5});
        assert_true(r->n_hits > 0);
        for (size_t i = 0; i < r->n_hits; i++) assert_why_words(r->hits[i].why, words.data);
        search_result_free(r);
        core_buf_free(&words);
    }
    /* the stems the index holds ("creat", "recip") are not what a reader sees */
    search_result *r = search_fixture_run(
        f, (search_query){.text = "creating cookbooks and adding recipes", .k = 5});
    const char *why = hit(r, "recipe-box:createCookbook")->why;
    assert_non_null(strstr(why, "create"));
    assert_null(strstr(why, "creat,"));
    assert_null(strstr(why, "creat)"));
    search_result_free(r);
    /* words of a description count as the operation's own ("creates") */
    r = search_fixture_run(f, (search_query){.text = "creating shipment", .k = 3});
    why = hit(r, "parcel-courier:PostShipments")->why;
    assert_non_null(strstr(why, "creates"));
    assert_non_null(strstr(why, "shipment"));
    search_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_falls_back_to_the_description),
        cmocka_unit_test(test_why_names_the_spec_words),
    };
    return cmocka_run_group_tests(tests, setup, search_fixture_teardown);
}
