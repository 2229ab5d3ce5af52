/* Unit tests of the detail-level renderer (detail.c, detail_text.c) on
 * tests/data/detail/detail.yaml: server variables, a form body, a 20-value enum, a
 * $ref cycle, a depth cut, auth alternatives, and each schema once at the full level. */
#include "oas_fixture.h"
#include "testutil.h"

#include "view/view.h"

#include <stdlib.h>
#include <string.h>

static const spec_api *api;

static int setup(void **state)
{
    return oas_fixture_open(state, "tests/data/detail/detail.yaml", &api);
}

static const char *jt_pointer_str(const jt_node *root, const char *pointer)
{
    const char *s = jt_str(jt_pointer(root, pointer));
    return s ? s : "(missing)";
}

static const spec_operation *op_named(const char *operation_id)
{
    for (size_t i = 0; i < api->n_ops; i++)
        if (api->ops[i].operation_id && !strcmp(api->ops[i].operation_id, operation_id))
            return &api->ops[i];
    fail_msg("no operation %s", operation_id);
    return NULL;
}

/* The JSON of an operation at a level, parsed; *text gets the raw JSON (free it). */
static jt_doc *render(const char *operation_id, view_detail level, char **json)
{
    core_buf b;
    core_buf_init(&b, 0);
    assert_int_equal(view_detail_json(api, op_named(operation_id), level, &b), 0);
    jt_doc *doc = NULL;
    apidex_error err;
    char *copy = strndup(b.data, b.len);
    assert_non_null(copy);
    assert_int_equal(jt_doc_parse(copy, b.len, "detail", NULL, &doc, &err), 0);
    if (json)
        *json = core_buf_steal(&b, NULL);
    else
        core_buf_free(&b);
    return doc;
}

static char *text_of(const char *operation_id, view_detail level)
{
    char *json = NULL;
    jt_doc *doc = render(operation_id, level, &json);
    jt_doc_free(doc);
    core_buf t;
    core_buf_init(&t, 0);
    apidex_error err;
    assert_int_equal(view_detail_text(json, strlen(json), &t, &err), 0);
    free(json);
    return core_buf_steal(&t, NULL);
}

static void test_call_servers_and_url(void **state)
{
    (void)state;
    jt_doc *doc = render("sendMessage", VIEW_DETAIL_CALL, NULL);
    const jt_node *o = doc->root;
    assert_string_equal(jt_get_str(o, "detail"), "call");
    assert_string_equal(jt_get_str(o, "url"),
                        "https://{region}.api.example.com/v1/accounts/{account_id}/messages");
    const jt_node *region = jt_pointer(o, "/servers/0/variables/region");
    assert_non_null(region);
    assert_string_equal(jt_get_str(region, "default"), "eu-west");
    assert_int_equal(jt_get(region, "enum")->len, 3);
    jt_doc_free(doc);
}

static void test_call_form_body_complete(void **state)
{
    (void)state;
    jt_doc *doc = render("sendMessage", VIEW_DETAIL_CALL, NULL);
    const jt_node *b = jt_get(doc->root, "request_body");
    assert_string_equal(jt_get_str(b, "content_type"), "application/x-www-form-urlencoded");
    assert_true(jt_get_bool(b, "required", false));
    const jt_node *props = jt_pointer(b, "/schema/properties");
    /* Every field the client sends; the read-only one is not sent. */
    assert_non_null(jt_get(props, "To"));
    assert_non_null(jt_get(props, "Body"));
    assert_non_null(jt_get(props, "Channel"));
    assert_non_null(jt_get(props, "Thread"));
    assert_null(jt_get(props, "Sid"));
    /* The enum is whole: 20 values, longer than any old cut-off (12). */
    const jt_node *en = jt_pointer(props, "/Channel/enum");
    assert_int_equal(en->len, 20);
    assert_string_equal(jt_str(en->u.items[19]), "slack");
    assert_int_equal((int)jt_num(jt_pointer(props, "/Body/maxLength"), 0), 1600);
    /* Parameters: in, required, pattern, example. */
    const jt_node *p0 = jt_pointer(doc->root, "/parameters/0");
    assert_string_equal(jt_get_str(p0, "in"), "path");
    assert_true(jt_get_bool(p0, "required", false));
    assert_non_null(jt_pointer(p0, "/schema/pattern"));
    assert_non_null(jt_get(p0, "example"));
    jt_doc_free(doc);
}

static void test_call_inputs_cycles_depth(void **state)
{
    (void)state;
    jt_doc *doc = render("sendMessage", VIEW_DETAIL_CALL, NULL);
    const jt_node *in = jt_get(doc->root, "inputs");
    assert_int_equal(in->len, 3);
    assert_string_equal(jt_get_str(in->u.items[0], "name"), "account_id");
    assert_string_equal(jt_get_str(in->u.items[1], "name"), "To");
    assert_string_equal(jt_get_str(in->u.items[1], "in"), "body");
    assert_string_equal(jt_get_str(in->u.items[2], "name"), "Channel");
    const jt_node *thread = jt_pointer(doc->root, "/request_body/schema/properties/Thread");
    assert_string_equal(jt_get_str(thread, "title"), "Node");
    assert_string_equal(jt_pointer_str(thread, "/properties/parent/$circular"), "Node");
    assert_string_equal(jt_pointer_str(thread, "/properties/children/items/$circular"), "Node");
    /* Thread > meta > owner: the depth limit; owner says what it leaves out and where. */
    const jt_node *owner = jt_pointer(thread, "/properties/meta/properties/owner");
    assert_non_null(owner);
    assert_null(jt_get(owner, "properties"));
    assert_non_null(strstr(jt_get_str(owner, "x-apidex-omitted"), "detail=full"));
    /* The success response in brief, and it says so. */
    assert_string_equal(jt_pointer_str(doc->root, "/response/status"), "201");
    assert_non_null(jt_pointer(doc->root, "/response/x-apidex-brief"));
    assert_null(jt_get(doc->root, "responses"));
    jt_doc_free(doc);
}

static void test_auth(void **state)
{
    (void)state;
    jt_doc *doc = render("sendMessage", VIEW_DETAIL_CALL, NULL);
    const jt_node *s = jt_pointer(doc->root, "/auth/0/0");
    assert_string_equal(jt_get_str(s, "type"), "apiKey");
    assert_string_equal(jt_get_str(s, "in"), "header");
    assert_string_equal(jt_get_str(s, "param"), "X-Api-Key");
    jt_doc_free(doc);
    doc = render("getNode", VIEW_DETAIL_CALL, NULL);
    const jt_node *auth = jt_get(doc->root, "auth");
    assert_int_equal(auth->len, 2);
    assert_string_equal(jt_pointer_str(auth, "/0/0/tokenUrl"), "https://auth.example.com/token");
    assert_string_equal(jt_pointer_str(auth, "/0/0/scopes/0"), "read");
    assert_string_equal(jt_pointer_str(auth, "/1/0/param"), "Authorization");
    assert_non_null(strstr(jt_pointer_str(auth, "/1/0/format"), "Basic"));
    jt_doc_free(doc);
}

static void test_summary_and_full(void **state)
{
    (void)state;
    jt_doc *doc = render("sendMessage", VIEW_DETAIL_SUMMARY, NULL);
    assert_string_equal(jt_get_str(doc->root, "summary"), "Send a message");
    assert_null(jt_get(doc->root, "parameters"));
    jt_doc_free(doc);
    char *json = NULL;
    doc = render("sendMessage", VIEW_DETAIL_FULL, &json);
    assert_int_equal(jt_get(doc->root, "responses")->len, 2);
    const jt_node *sc = jt_get(doc->root, "schemas");
    /* Every schema reached, each once: Node (twice referenced, and by itself), Meta, Owner,
       Address, Message, Error. */
    assert_int_equal(sc->len, 6);
    assert_non_null(jt_get(sc, "#/components/schemas/Address"));
    const char *first = strstr(json, "\"#/components/schemas/Node\":");
    assert_non_null(first);
    assert_null(strstr(first + 1, "\"#/components/schemas/Node\":"));
    /* Schemas are as written: the cycle is a $ref. */
    assert_string_equal(jt_pointer_str(sc, "/#~1components~1schemas~1Node/properties/parent/$ref"),
                        "#/components/schemas/Node");
    free(json);
    jt_doc_free(doc);
}

static void test_text(void **state)
{
    (void)state;
    char *t = text_of("sendMessage", VIEW_DETAIL_CALL);
    assert_non_null(
        strstr(t, "POST https://{region}.api.example.com/v1/accounts/{account_id}/messages"));
    assert_non_null(strstr(t, "{region} default: eu-west, one of: eu-west|us-east|ap-south"));
    assert_non_null(strstr(t, "application/x-www-form-urlencoded"));
    assert_non_null(strstr(t, "|google|slack"));
    assert_non_null(strstr(t, "(circular: the fields of Node"));
    assert_non_null(strstr(t, "past the depth limit: detail=full"));
    assert_non_null(strstr(t, "Required inputs: account_id (path), To (body), Channel (body)"));
    assert_non_null(strstr(t, "X-Api-Key"));
    free(t);
    t = text_of("sendMessage", VIEW_DETAIL_SUMMARY);
    /* One line. */
    assert_non_null(strchr(t, '\n'));
    assert_int_equal(strchr(t, '\n')[1], '\0');
    free(t);
    t = text_of("sendMessage", VIEW_DETAIL_FULL);
    assert_non_null(strstr(t, "Schemas:\n"));
    assert_non_null(strstr(t, "  400"));
    free(t);
}

static void test_parse(void **state)
{
    (void)state;
    view_detail d = 0;
    apidex_error err;
    assert_int_equal(view_detail_parse("full", &d, &err), 0);
    assert_int_equal(d, VIEW_DETAIL_FULL);
    assert_int_equal(view_detail_parse("everything", &d, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "summary, call or full"));
    core_buf t;
    core_buf_init(&t, 0);
    assert_int_equal(view_detail_text("[1]", 3, &t, &err), APIDEX_EPARSE);
    core_buf_free(&t);
}

/* The text of an MCP server's entry (serve/detail.c writes "mcp", "content", "note" and
   "producers" beside the detail keys): arguments, annotations, responses with their content
   and headers, where inputs come from. */
static void test_text_mcp_entry(void **state)
{
    (void)state;
    const char *json =
        "{\"id\":\"files:read_file\",\"api\":\"files\",\"detail\":\"call\",\"method\":\"TOOL\","
        "\"summary\":\"Read a file\",\"api_title\":\"Files\",\"mcp\":{\"kind\":\"tool\","
        "\"annotations\":{\"readOnlyHint\":true,\"title\":\"Read\",\"n\":3,\"r\":1.5}},"
        "\"description\":\"Reads it\",\"content\":\"stored text\",\"note\":\"a note\","
        "\"parameters\":[{\"name\":\"path\",\"required\":true,\"schema\":{\"type\":\"string\","
        "\"description\":\"the path\"},\"example\":\"/x\"},{\"schema\":{\"type\":[\"string\","
        "\"null\"],\"enum\":[\"a\",1,2.5,null,{\"k\":1}]}}],\"inputs\":[{\"name\":\"path\","
        "\"in\":\"body\"}],\"producers\":[{\"param\":\"path\",\"endpoint\":\"files:list\","
        "\"producer\":\"list\"}],\"responses\":[{\"status\":\"200\",\"schema\":{\"type\":"
        "\"object\",\"properties\":{\"a\":{\"$circular\":\"X\"}}},\"content\":{"
        "\"application/json\":{\"schema\":{\"$ref\":\"#/x/Y\"}},\"text/plain\":{}},"
        "\"headers\":{\"X-A\":{},\"X-B\":{}},\"x-apidex-brief\":\"brief\"},{},7]}";
    const char *want = "MCP tool files:read_file - Read a file\n"
                       "Server: files (Files)\n"
                       "Reads it\n"
                       "stored text\n"
                       "(a note)\n"
                       "Annotations: readOnlyHint: true, title: Read, n: 3, r: 1.5\n"
                       "Arguments:\n"
                       "  - path (string, required, example: /x): the path\n"
                       "  - ? (string|null, enum: a|1|2.5|null|{\"k\":1})\n"
                       "Required inputs: path\n"
                       "Responses:\n"
                       "  200 (object)\n"
                       "    - a: X\n"
                       "      (circular: the fields of X, as above)\n"
                       "    (brief)\n"
                       "    as application/json:\n"
                       "      schema: Y\n"
                       "    as text/plain:\n"
                       "    headers: X-A, X-B\n"
                       "  ?\n"
                       "Where its inputs come from:\n"
                       "  - path <- files:list (list)\n"
                       "(detail call: every parameter, body field and enum value is above; "
                       "--detail full adds all responses and the schemas as written)\n";
    core_buf t;
    core_buf_init(&t, 0);
    apidex_error err;
    assert_int_equal(view_detail_text(json, strlen(json), &t, &err), 0);
    assert_string_equal(t.data, want);
    core_buf_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_call_servers_and_url),
                                       cmocka_unit_test(test_call_form_body_complete),
                                       cmocka_unit_test(test_call_inputs_cycles_depth),
                                       cmocka_unit_test(test_auth),
                                       cmocka_unit_test(test_summary_and_full),
                                       cmocka_unit_test(test_text),
                                       cmocka_unit_test(test_parse),
                                       cmocka_unit_test(test_text_mcp_entry)};
    return cmocka_run_group_tests(tests, setup, oas_fixture_close);
}
