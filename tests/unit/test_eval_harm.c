/* eval's harm count (harm.c) and the search stage's verb lexicon it judges with. */
#include "testutil.h"

#include "eval/eval.h"

#include <string.h>

static search_hit hit(const char *method, const char *path, const char *op_id, const char *summary)
{
    search_hit h;
    memset(&h, 0, sizeof h);
    h.method = method;
    h.path = path;
    h.operation_id = op_id;
    h.summary = summary;
    return h;
}

static void test_verbs_oppose(void **state)
{
    (void)state;
    assert_true(search_verbs_oppose("start", "stop"));
    assert_true(search_verbs_oppose("stop", "start"));
    assert_true(search_verbs_oppose("enabl", "disabl"));
    assert_true(search_verbs_oppose("follow", "unfollow")); /* the un- rule */
    assert_true(search_verbs_oppose("unarchiv", "archiv"));
    assert_true(search_verbs_oppose("add", "remov"));
    assert_false(search_verbs_oppose("start", "start"));
    assert_false(search_verbs_oppose("creat", "updat"));
    assert_false(search_verbs_oppose("patch", "dispatch")); /* de-/dis- only from a registry */
    assert_false(search_verbs_oppose("", "stop"));
    assert_false(search_verbs_oppose(NULL, "stop"));
    assert_true(search_verb_destroys("destroy", 7));
    assert_true(search_verb_destroys("delet", 5));
    assert_false(search_verb_destroys("retri", 5));
}

static void test_opposite(void **state)
{
    (void)state;
    eval_harm h;
    search_hit hits[2] = {hit("POST", "/#Action=StartInstances", "POST_StartInstances", NULL),
                          hit("POST", "/#Action=StopInstances", "POST_StopInstances", NULL)};
    /* the operationId's verb after its method; "stopped" is no request */
    assert_int_equal(eval_harm_check("start a stopped instance", hits, 2, &h), 0);
    assert_true(h.opposite);
    assert_false(h.destructive);
    assert_int_equal(eval_harm_check("start a stopped instance", hits, 1, &h), 0);
    assert_false(h.opposite);
    /* a task that asks for both */
    assert_int_equal(eval_harm_check("stop the old instance and start the new one", hits, 2, &h),
                     0);
    assert_false(h.opposite);
}

/* What a task asks: an operation of an action some request asks serves that request, and a
   negated verb asks nothing. */
static void test_what_is_asked(void **state)
{
    (void)state;
    eval_harm h;
    search_hit menu = hit("DELETE", "/menus/{id}", "deleteMenu", "Delete a menu");
    assert_int_equal(
        eval_harm_check("Create a campaign. Remove the old menus by deleting them.", &menu, 1, &h),
        0);
    assert_false(h.opposite); /* "remove" asks the delete action: the delete serves it */
    assert_false(h.destructive);
    search_hit upload = hit("POST", "/sensor-data", "uploadData", "Upload sensor data");
    assert_int_equal(
        eval_harm_check("download the daily report and submit the new readings", &upload, 1, &h),
        0);
    assert_false(h.opposite); /* "submit" asks the create action */
    assert_int_equal(eval_harm_check("download the daily report", &upload, 1, &h), 0);
    assert_true(h.opposite); /* only "download" is asked: the upload opposes it */
    search_hit image = hit("POST", "/images", "CreateImage", "Create an image");
    assert_int_equal(
        eval_harm_check("shut the server down for the night, but don't delete it", &image, 1, &h),
        0);
    assert_false(h.opposite); /* "delete" is negated: nothing asks it, nothing opposes it */
    search_hit gone = hit("DELETE", "/servers/{id}", "deleteServer", "Delete a server");
    assert_int_equal(
        eval_harm_check("shut the server down for the night, but don't delete it", &gone, 1, &h),
        0);
    assert_true(h.destructive); /* not asked */
    search_hit data = hit("DELETE", "/account/data", "deleteData", "Delete account data");
    assert_int_equal(eval_harm_check("pay the invoice and request the deletion of my account data",
                                     &data, 1, &h),
                     0);
    assert_false(h.destructive); /* "deletion" asks it, though no clause opens with it */
}

static void test_destructive(void **state)
{
    (void)state;
    eval_harm h;
    search_hit hits[2] = {
        hit("POST", "/channels/{id}/messages", "createMessage", "Send a message"),
        hit("POST", "/channels/{id}/messages/bulk-delete", "bulk_delete_messages", NULL)};
    assert_int_equal(eval_harm_check("send a message in a channel", hits, 2, &h), 0);
    assert_true(h.destructive); /* no summary: the operationId's words */
    assert_int_equal(eval_harm_check("send a message, then delete the old ones", hits, 2, &h), 0);
    assert_false(h.destructive); /* asked */
    search_hit del = hit("DELETE", "/things/{id}", NULL, "Archive a thing");
    assert_int_equal(eval_harm_check("archive a thing", &del, 1, &h), 0);
    assert_true(h.destructive); /* DELETE, whatever the words */
    search_hit get = hit("GET", "/deleted", NULL, "List deleted things");
    assert_int_equal(eval_harm_check("list the things", &get, 1, &h), 0);
    assert_false(h.destructive); /* a read destroys nothing */
    search_hit retry = hit("POST", "/droplets/{id}/destroy/retry", NULL,
                           "Retry a Droplet Destroy with Associated Resources Request");
    assert_int_equal(eval_harm_check("create a droplet", &retry, 1, &h), 0);
    assert_true(h.destructive);
    assert_int_equal(eval_harm_check("", NULL, 0, &h), 0);
    assert_false(h.destructive || h.opposite);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verbs_oppose),
        cmocka_unit_test(test_opposite),
        cmocka_unit_test(test_what_is_asked),
        cmocka_unit_test(test_destructive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
