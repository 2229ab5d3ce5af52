/* The usage prior (src/search/usage_prior.c) on a small CRM (tests/data/search/crm.yaml): off it
 * changes nothing; on, a used endpoint moves up among near-ties only, never past a clearly
 * better one, and never enters a list the words did not put it in; why shows it. */
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

/* A usage set of one endpoint used `count` times. */
static store_usage *used(const char *method, const char *path, double count)
{
    store_usage_use u = {"ledgerly-crm", method, path};
    store_usage *s = NULL;
    assert_int_equal(store_usage_from(&u, &count, 1, &s), 0);
    return s;
}

static search_result *run(fixture *f, const char *task, size_t k, double weight,
                          const store_usage *u)
{
    search_params p;
    search_params_default(&p);
    p.usage_weight = weight;
    return search_fixture_run(f, (search_query){.text = task, .k = k, .params = &p, .usage = u});
}

static void test_off_changes_nothing(void **state)
{
    fixture *f = *state;
    store_usage *u = used("GET", "/deals", 1000);
    search_result *a = run(f, "list the invoices", 10, 0, NULL);
    search_result *b = run(f, "list the invoices", 10, 0, u);
    assert_int_equal(a->n_hits, b->n_hits);
    for (size_t i = 0; i < a->n_hits; i++) {
        assert_string_equal(a->hits[i].id, b->hits[i].id);
        assert_true(a->hits[i].score == b->hits[i].score);
        assert_string_equal(a->hits[i].why, b->hits[i].why);
    }
    search_result_free(a);
    search_result_free(b);
    store_usage_free(u);
}

static void test_near_tie_reorders_and_why_says_so(void **state)
{
    fixture *f = *state;
    /* getInvoice and listDeals are near (0.81 and 0.72 against a best of 1.54) */
    search_result *a = run(f, "list the invoices", 10, 0, NULL);
    long inv = search_hit_index(a, "ledgerly-crm:getInvoice");
    long deals = search_hit_index(a, "ledgerly-crm:listDeals");
    assert_true(inv >= 0 && deals >= 0 && inv < deals);
    store_usage *u = used("GET", "/deals", 5);
    search_result *b = run(f, "list the invoices", 10, 0.1, u);
    assert_true(search_hit_index(b, "ledgerly-crm:listDeals") <
                search_hit_index(b, "ledgerly-crm:getInvoice"));
    const char *why = b->hits[search_hit_index(b, "ledgerly-crm:listDeals")].why;
    assert_non_null(strstr(why, "usage(+"));
    assert_non_null(strstr(why, "5.00 uses"));
    /* the others' why has no usage term */
    assert_null(strstr(b->hits[search_hit_index(b, "ledgerly-crm:getInvoice")].why, "usage("));
    search_result_free(a);
    search_result_free(b);
    store_usage_free(u);
}

static void test_clear_winner_stays_first(void **state)
{
    fixture *f = *state;
    /* listCompanyBills scores 1.24 against listInvoices' 1.54: a 20% gap; at 0.05, a
       thousand uses do not close it */
    store_usage *u = used("GET", "/companies/{id}/invoices", 1000);
    search_result *r = run(f, "list the invoices", 10, 0.05, u);
    assert_true(r->n_hits > 0);
    assert_string_equal(r->hits[0].id, "ledgerly-crm:listInvoices");
    assert_non_null(
        strstr(r->hits[search_hit_index(r, "ledgerly-crm:listCompanyBills")].why, "usage(+"));
    search_result_free(r);
    store_usage_free(u);
}

static void test_uses_never_make_a_candidate(void **state)
{
    fixture *f = *state;
    /* remindCompany has none of the words: the most uses at the largest weight do not
       bring it into a short list */
    search_result *a = run(f, "list the invoices", 3, 0, NULL);
    assert_true(search_hit_index(a, "ledgerly-crm:remindCompany") < 0);
    store_usage *u = used("POST", "/companies/{company_id}/send_invoice_reminders", 1e6);
    search_result *b = run(f, "show all deals", 3, 0.2, u);
    assert_true(search_hit_index(b, "ledgerly-crm:remindCompany") < 0);
    search_result_free(a);
    search_result_free(b);
    store_usage_free(u);
}

static void test_weight_is_bounded(void **state)
{
    (void)state;
    search_params p;
    search_params_default(&p);
    assert_true(p.usage_weight == 0); /* off by default */
    apidex_error err;
    assert_int_equal(search_params_parse(&p, "usage.weight=0.5", &err), APIDEX_EINVAL);
    assert_int_equal(search_params_parse(&p, "usage.weight=0.2", &err), 0);
    assert_int_equal(search_params_parse(&p, "usage.half_life=-1", &err), APIDEX_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_changes_nothing),
        cmocka_unit_test(test_near_tie_reorders_and_why_says_so),
        cmocka_unit_test(test_clear_winner_stays_first),
        cmocka_unit_test(test_uses_never_make_a_candidate),
        cmocka_unit_test(test_weight_is_bounded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
