/* What a task's values are (src/search/values.c) and verbs that name what they send
 * (text_verb_sense in src/text/actions.c), on a small spec (tests/data/search/notify.yaml):
 * two operations create "a message" (an SMS one whose input is a phone number, an
 * assistant whose input is a text), two add "a member to a team" (by e-mail, by user id),
 * and a document has a "text". Each rule is shown to make the difference by switching its
 * parameter off. */
#include "search_testutil.h"

#include "text/text.h"

#include <stdio.h>

typedef search_fixture fixture;

static int setup(void **state)
{
    static const char *const specs[] = {"tests/data/search/notify.yaml", NULL};
    *state = search_fixture_new(specs);
    return 0;
}

#define teardown search_fixture_teardown

/* task's first primary is want with `on`, and something else with `off` */
static void expect_rule(fixture *f, const char *task, const char *want, const char *on,
                        const char *off)
{
    char *a = search_fixture_first_primary(f, task, on);
    char *b = search_fixture_first_primary(f, task, off);
    assert_non_null(a);
    assert_string_equal(a, want);
    assert_false(b && !strcmp(b, want));
    free(a);
    free(b);
}

static void expect_first(fixture *f, const char *task, const char *want)
{
    char *a = search_fixture_first_primary(f, task, "query.value_weight=1");
    assert_non_null(a);
    assert_string_equal(a, want);
    free(a);
}

static void test_sense_lexicon(void **state)
{
    (void)state;
    assert_string_equal(text_verb_sense("text", 4), "send message");
    assert_string_equal(text_verb_sense("wire", 4), "transfer");
    assert_null(text_verb_sense("send", 4)); /* a verb that names no medium */
    assert_null(text_verb_sense("tex", 3));
    assert_null(text_verb_sense("", 0));
    /* the verbs with a sense are request verbs */
    assert_int_equal(text_action_of_stem("wire", 4), TEXT_ACTION_CREATE);
}

static void test_phone_number_takes_the_sms(void **state)
{
    expect_rule(*state, "Text Jane Roe at +1 415 555 0134 that dinner is ready",
                "relay-notify:createMessage", "query.value_weight=1", "query.value_weight=0");
    expect_rule(*state, "Text Jane Roe at (415) 555-0134 that dinner is ready",
                "relay-notify:createMessage", "query.value_weight=1", "query.value_weight=0");
}

static void test_email_takes_the_invitation(void **state)
{
    expect_rule(*state, "Add jane@example.com to the Design team", "relay-notify:inviteToTeam",
                "query.value_weight=1", "query.value_weight=0");
}

static void test_not_values(void **state)
{
    /* a handle is no e-mail address, ten digits in one run are no phone number */
    expect_first(*state, "Add @jane to the Design team", "relay-notify:addTeamMember");
    expect_first(*state, "Add the user 4155550134 to the Design team",
                 "relay-notify:addTeamMember");
}

static void test_verb_sense(void **state)
{
    expect_rule(*state, "Wire 300 dollars to my landlord", "relay-notify:createTransfer",
                "query.verb_noun_weight=0.6", "query.verb_noun_weight=0");
    /* "text" as a noun is the document's text, not a message */
    expect_first(*state, "Get the text of document D-17", "relay-notify:getDocumentText");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sense_lexicon),
        cmocka_unit_test_setup_teardown(test_phone_number_takes_the_sms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_email_takes_the_invitation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verb_sense, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
