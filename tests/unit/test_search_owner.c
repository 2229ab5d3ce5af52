/* Things a named thing has (src/search/owner.c), on a small CRM (tests/data/search/crm.yaml):
 * companies and contacts are found by a text search; a company's invoices and a contact's
 * deals live under their owner's path, with summaries that do not use the task's words
 * ("List a company's bills"), so the words alone prefer the account-wide lists. */
#include "search_testutil.h"

#include <stdio.h>

typedef search_fixture fixture;

static int setup(void **state)
{
    static const char *const specs[] = {"tests/data/search/crm.yaml", NULL};
    *state = search_fixture_new(specs);
    return 0;
}

#define teardown search_fixture_teardown

/* The first primary of the adaptive answer with query.owner_weight = weight. */
static char *first_primary(fixture *f, const char *task, const char *weight)
{
    char set[64];
    snprintf(set, sizeof set, "query.owner_weight=%s", weight);
    char *id = search_fixture_first_primary(f, task, set);
    assert_non_null(id);
    return id;
}

static bool linked(const search_result *r, const char *producer, const char *consumer)
{
    long c = search_hit_index(r, consumer);
    if (c < 0) return false;
    for (size_t l = 0; l < r->hits[c].n_links; l++)
        if (!strcmp(r->hits[c].links[l].producer_id, producer)) return true;
    return false;
}

static void expect_owned(fixture *f, const char *task, const char *owned, const char *plain)
{
    char *on = first_primary(f, task, "1");
    char *off = first_primary(f, task, "0");
    assert_string_equal(on, owned);
    assert_string_equal(off, plain); /* the rule, not the words, makes the difference */
    free(on);
    free(off);
}

static void test_preposition_ties_a_name_to_its_resources(void **state)
{
    expect_owned(*state, "Show me the invoices of Fabrikam", "ledgerly-crm:listCompanyBills",
                 "ledgerly-crm:listInvoices");
    expect_owned(*state, "show the deals from Jane Roe", "ledgerly-crm:listContactPipeline",
                 "ledgerly-crm:listDeals");
}

static void test_possessive_ties_a_name_to_its_resources(void **state)
{
    expect_owned(*state, "What are Fabrikam's invoices?", "ledgerly-crm:listCompanyBills",
                 "ledgerly-crm:listInvoices");
    expect_owned(*state, "List Jane Roe\xe2\x80\x99s deals", "ledgerly-crm:listContactPipeline",
                 "ledgerly-crm:listDeals");
    /* the owner's id comes from the search by name */
    search_result *r = search_fixture_run(
        *state, (search_query){.text = "What are Fabrikam's invoices?", .adaptive = true});
    assert_true(linked(r, "ledgerly-crm:searchCompanies", "ledgerly-crm:listCompanyBills"));
    search_result_free(r);
}

static void test_no_tie_no_owner(void **state)
{
    fixture *f = *state;
    /* a name after the resource word is that resource, not its owner */
    char *id = first_primary(f, "Open the invoice Fabrikam", "1");
    assert_string_not_equal(id, "ledgerly-crm:listCompanyBills");
    free(id);
    /* "my" starts no name; no name, no owner */
    id = first_primary(f, "List the invoices of My Company", "1");
    assert_string_equal(id, "ledgerly-crm:listInvoices");
    free(id);
    id = first_primary(f, "List the open invoices", "1");
    assert_string_equal(id, "ledgerly-crm:listInvoices");
    free(id);
}

static void test_action_segments_are_not_resources(void **state)
{
    /* "/companies/{id}/send_invoice_reminders" is something done to a company, not
       invoices it has: the company's invoices come first, the reminder not at all */
    search_result *r = search_fixture_run(
        *state, (search_query){.text = "the invoices of Fabrikam", .adaptive = true});
    assert_true(search_hit_index(r, "ledgerly-crm:listCompanyBills") >= 0);
    assert_int_equal(search_hit_index(r, "ledgerly-crm:remindCompany"), -1);
    search_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preposition_ties_a_name_to_its_resources),
        cmocka_unit_test(test_possessive_ties_a_name_to_its_resources),
        cmocka_unit_test(test_no_tie_no_owner),
        cmocka_unit_test(test_action_segments_are_not_resources),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
