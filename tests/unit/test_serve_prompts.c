/* MCP prompts and completion without a network: prompts/list per revision, the
   plan_api_calls prompt built from the index, completion/complete for API ids, tags and
   endpoint ids, their errors, and the list cursors. */
#include "serve_testutil.h"

#define MODERN                                                                                     \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                       \
    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

typedef struct fixture {
    char *dir, *db;
    serve_db *sdb;
    mcp_server *srv;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->db = sv_fixture(&f->dir);
    apidex_error err;
    assert_int_equal(serve_db_open(f->db, 0, &f->sdb, &err), 0);
    assert_int_equal(mcp_server_new(f->sdb, NULL, &f->srv, &err), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    mcp_server_free(f->srv);
    serve_db_close(f->sdb);
    tu_rmtree(f->dir);
    free(f->dir);
    free(f->db);
    free(f);
    return 0;
}

/* One 2026-07-28 request over stdio: method and the params' members (without braces). */
static struct json_object *call(fixture *f, const char *method, const char *params)
{
    char line[2048];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"%s\",\"params\":{%s%s%s}}", method, params,
             *params ? "," : "", MODERN);
    mcp_stdio_state st = {.legacy_rev = -1};
    char *reply = NULL;
    size_t len = 0;
    assert_int_equal(mcp_handle_stdio(f->srv, &st, line, strlen(line), &reply, &len), 0);
    struct json_object *o = sv_parse(reply);
    free(reply);
    mcp_stdio_state_clear(&st);
    return o;
}

static void expect_error(struct json_object *o, int code, const char *words)
{
    struct json_object *c = sv_at(o, "error.code");
    if (!c) fail_msg("expected error %d, got %s", code, json_object_to_json_string(o));
    assert_int_equal(json_object_get_int(c), code);
    if (words && !strstr(sv_str(o, "error.message"), words))
        fail_msg("no '%s' in %s", words, sv_str(o, "error.message"));
    json_object_put(o);
}

/* The values of a completion result as one string "a,b,c". */
static void expect_values(struct json_object *o, const char *want, int64_t total)
{
    struct json_object *values = sv_at(o, "result.completion.values");
    if (!values) fail_msg("no completion in %s", json_object_to_json_string(o));
    char got[1024] = "";
    for (size_t i = 0; i < json_object_array_length(values); i++) {
        if (i) strncat(got, ",", sizeof got - strlen(got) - 1);
        strncat(got, json_object_get_string(json_object_array_get_idx(values, i)),
                sizeof got - strlen(got) - 1);
    }
    assert_string_equal(got, want);
    assert_int_equal(sv_int(o, "result.completion.total"), total);
    assert_false(json_object_get_boolean(sv_at(o, "result.completion.hasMore")));
    json_object_put(o);
}

static void test_prompts_list(void **state)
{
    fixture *f = *state;
    struct json_object *o = call(f, "prompts/list", "");
    assert_string_equal(sv_str(o, "result.prompts.0.name"), "plan_api_calls");
    assert_non_null(sv_at(o, "result.prompts.0.title"));
    assert_non_null(sv_at(o, "result.prompts.0.description"));
    assert_null(sv_at(o, "result.prompts.1"));
    assert_string_equal(sv_str(o, "result.prompts.0.arguments.0.name"), "task");
    assert_true(json_object_get_boolean(sv_at(o, "result.prompts.0.arguments.0.required")));
    assert_string_equal(sv_str(o, "result.prompts.0.arguments.1.name"), "api");
    assert_string_equal(sv_str(o, "result.prompts.0.arguments.2.name"), "tag");
    /* a cacheable list of 2026-07-28, one page */
    assert_int_equal(sv_int(o, "result.ttlMs"), 3600000);
    assert_string_equal(sv_str(o, "result.cacheScope"), "public");
    assert_string_equal(sv_str(o, "result.resultType"), "complete");
    assert_null(sv_at(o, "result.nextCursor"));
    json_object_put(o);
    json_object_put(call(f, "prompts/list", "\"cursor\":\"o0\"")); /* the first page's cursor */
    expect_error(call(f, "prompts/list", "\"cursor\":\"o1\""), JRPC_INVALID_PARAMS, "cursor");
    expect_error(call(f, "prompts/list", "\"cursor\":\"zz\""), JRPC_INVALID_PARAMS, "cursor");
    expect_error(call(f, "resources/templates/list", "\"cursor\":\"o2\""), JRPC_INVALID_PARAMS,
                 "cursor");
    /* resources/list: a cursor past the catalog was never issued */
    expect_error(call(f, "resources/list", "\"cursor\":\"o2\""), JRPC_INVALID_PARAMS, "cursor");
    o = call(f, "resources/list", "\"cursor\":\"o1\"");
    assert_string_equal(sv_str(o, "result.resources.0.name"), "music");
    json_object_put(o);

    /* capabilities: prompts everywhere, completions from 2025-03-26 on */
    o = call(f, "server/discover", "");
    assert_non_null(sv_at(o, "result.capabilities.prompts"));
    assert_null(sv_at(o, "result.capabilities.prompts.listChanged"));
    assert_non_null(sv_at(o, "result.capabilities.completions"));
    assert_null(sv_at(o, "result.capabilities.logging")); /* setLevel is gone in 2026-07-28 */
    json_object_put(o);
    const struct {
        const char *rev;
        bool completions, title;
    } revs[] = {{"2024-11-05", false, false},
                {"2025-03-26", true, false},
                {"2025-06-18", true, true},
                {"2025-11-25", true, true}};
    for (size_t r = 0; r < sizeof revs / sizeof revs[0]; r++) {
        mcp_stdio_state st = {.legacy_rev = -1};
        char line[512], *reply = NULL;
        size_t len;
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                 "\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
                 "\"version\":\"1\"}}}",
                 revs[r].rev);
        assert_int_equal(mcp_handle_stdio(f->srv, &st, line, strlen(line), &reply, &len), 0);
        o = sv_parse(reply);
        free(reply);
        assert_non_null(sv_at(o, "result.capabilities.prompts"));
        assert_int_equal(sv_at(o, "result.capabilities.completions") != NULL, revs[r].completions);
        json_object_put(o);
        const char *list = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/list\"}";
        assert_int_equal(mcp_handle_stdio(f->srv, &st, list, strlen(list), &reply, &len), 0);
        o = sv_parse(reply);
        free(reply);
        assert_string_equal(sv_str(o, "result.prompts.0.name"), "plan_api_calls");
        assert_int_equal(sv_at(o, "result.prompts.0.title") != NULL, revs[r].title);
        assert_null(sv_at(o, "result.ttlMs")); /* 2026-07-28 only */
        json_object_put(o);
        mcp_stdio_state_clear(&st);
    }
}

static void test_prompts_get(void **state)
{
    fixture *f = *state;
    struct json_object *o = call(f, "prompts/get",
                                 "\"name\":\"plan_api_calls\",\"arguments\":{\"task\":\"get the "
                                 "cast and crew of a movie\"}");
    const char *text = sv_str(o, "result.messages.0.content.text");
    if (!text) fail_msg("no prompt text: %s", json_object_to_json_string(o));
    assert_string_equal(sv_str(o, "result.messages.0.role"), "user");
    assert_string_equal(sv_str(o, "result.messages.0.content.type"), "text");
    assert_null(sv_at(o, "result.messages.1"));
    assert_non_null(strstr(sv_str(o, "result.description"), "cast and crew of a movie"));
    /* the search answer's plan, in call order, with calling details from the index */
    assert_non_null(strstr(text, "get the cast and crew of a movie"));
    assert_non_null(strstr(text, "searched the 2 indexed APIs"));
    const char *credits = strstr(text, "films:getMovieCredits (primary): GET "
                                       "https://api.example.com/3/movie/{movie_id}/credits");
    const char *producer = strstr(text, " (producer): GET https://api.example.com/3/");
    if (!credits) fail_msg("%s", text);
    assert_non_null(producer);
    assert_true(producer < credits);
    assert_non_null(strstr(text, "movie_id (path, required)"));
    assert_non_null(strstr(text, "movie_id comes from step 1 (films:"));
    assert_non_null(strstr(text, "get_endpoint"));
    json_object_put(o);

    /* the api and tag arguments filter */
    o = call(f, "prompts/get",
             "\"name\":\"plan_api_calls\",\"arguments\":{\"task\":\"search by name\",\"api\":"
             "\"music\"}");
    text = sv_str(o, "result.messages.0.content.text");
    assert_non_null(strstr(text, "searched the API music"));
    assert_non_null(strstr(text, "music:searchCatalog"));
    assert_null(strstr(text, "films:"));
    json_object_put(o);
    o = call(f, "prompts/get",
             "\"name\":\"plan_api_calls\",\"arguments\":{\"task\":\"xyzzy plugh\",\"tag\":"
             "\"artists\"}");
    text = sv_str(o, "result.messages.0.content.text");
    assert_non_null(strstr(text, "(endpoints tagged artists)"));
    assert_non_null(strstr(text, "found no endpoint"));
    json_object_put(o);

    /* mistakes are -32602 with a sentence saying what to do */
    expect_error(call(f, "prompts/get", "\"name\":\"nope\""), JRPC_INVALID_PARAMS,
                 "unknown prompt");
    expect_error(call(f, "prompts/get", ""), JRPC_INVALID_PARAMS, "name");
    expect_error(call(f, "prompts/get", "\"name\":\"plan_api_calls\""), JRPC_INVALID_PARAMS,
                 "'task'");
    expect_error(
        call(f, "prompts/get", "\"name\":\"plan_api_calls\",\"arguments\":{\"task\":\" \"}"),
        JRPC_INVALID_PARAMS, "empty");
    expect_error(call(f, "prompts/get", "\"name\":\"plan_api_calls\",\"arguments\":{\"task\":3}"),
                 JRPC_INVALID_PARAMS, "string");
    expect_error(call(f, "prompts/get", "\"name\":\"plan_api_calls\",\"arguments\":[]"),
                 JRPC_INVALID_PARAMS, "object");
    expect_error(
        call(f, "prompts/get",
             "\"name\":\"plan_api_calls\",\"arguments\":{\"task\":\"x\",\"api\":\"nope\"}"),
        JRPC_INVALID_PARAMS, "unknown API 'nope'");
    expect_error(call(f, "prompts/get",
                      "\"name\":\"plan_api_calls\",\"arguments\":{\"task\":\"x\",\"api\":\"films\","
                      "\"tag\":\"artists\"}"),
                 JRPC_INVALID_PARAMS, "tag 'artists' in films");
}

#define PROMPT_REF "\"ref\":{\"type\":\"ref/prompt\",\"name\":\"plan_api_calls\"}"
#define APIS_REF   "\"ref\":{\"type\":\"ref/resource\",\"uri\":\"apidex://apis/{api}\"}"
#define EPS_REF    "\"ref\":{\"type\":\"ref/resource\",\"uri\":\"apidex://endpoints/{id}\"}"

static void test_completion(void **state)
{
    fixture *f = *state;
    /* API ids: for the prompt's api argument and the apis template */
    expect_values(call(f, "completion/complete",
                       PROMPT_REF ",\"argument\":{\"name\":\"api\",\"value\":\"\"}"),
                  "films,music", 2);
    expect_values(call(f, "completion/complete",
                       PROMPT_REF ",\"argument\":{\"name\":\"api\",\"value\":\"MU\"}"),
                  "music", 1);
    expect_values(
        call(f, "completion/complete", APIS_REF ",\"argument\":{\"name\":\"api\",\"value\":\"f\"}"),
        "films", 1);
    /* tags: of every API (each once), or of the api already chosen */
    expect_values(call(f, "completion/complete",
                       PROMPT_REF ",\"argument\":{\"name\":\"tag\",\"value\":\"\"}"),
                  "movies,search,genres,artists", 4);
    expect_values(call(f, "completion/complete",
                       PROMPT_REF ",\"argument\":{\"name\":\"tag\",\"value\":\"\"},\"context\":{"
                                  "\"arguments\":{\"api\":\"music\"}}"),
                  "artists,search,genres", 3);
    /* the task is free text: nothing to offer */
    expect_values(call(f, "completion/complete",
                       PROMPT_REF ",\"argument\":{\"name\":\"task\",\"value\":\"get\"}"),
                  "", 0);
    /* endpoint ids: by the whole id, or by the part after the API */
    expect_values(call(f, "completion/complete",
                       EPS_REF ",\"argument\":{\"name\":\"id\",\"value\":\"music:get\"}"),
                  "music:getArtist,music:GET /genres", 2);
    expect_values(call(f, "completion/complete",
                       EPS_REF ",\"argument\":{\"name\":\"id\",\"value\":\"GETm\"}"),
                  "films:getMovieCredits", 1);
    expect_values(
        call(f, "completion/complete", EPS_REF ",\"argument\":{\"name\":\"id\",\"value\":\"zzz\"}"),
        "", 0);
    /* completion is not cacheable */
    struct json_object *o =
        call(f, "completion/complete", EPS_REF ",\"argument\":{\"name\":\"id\",\"value\":\"\"}");
    assert_int_equal(sv_int(o, "result.completion.total"), 9);
    assert_null(sv_at(o, "result.ttlMs"));
    json_object_put(o);

    expect_error(call(f, "completion/complete",
                      "\"ref\":{\"type\":\"ref/prompt\",\"name\":\"test_prompt_with_arguments\"},"
                      "\"argument\":{\"name\":\"arg1\",\"value\":\"x\"}"),
                 JRPC_INVALID_PARAMS, "unknown prompt");
    expect_error(call(f, "completion/complete",
                      "\"ref\":{\"type\":\"ref/resource\",\"uri\":\"apidex://x/{y}\"},"
                      "\"argument\":{\"name\":\"y\",\"value\":\"x\"}"),
                 JRPC_INVALID_PARAMS, "resource template");
    expect_error(
        call(f, "completion/complete", EPS_REF ",\"argument\":{\"name\":\"api\",\"value\":\"x\"}"),
        JRPC_INVALID_PARAMS, "no argument 'api'");
    expect_error(call(f, "completion/complete",
                      "\"ref\":{\"type\":\"ref/tool\",\"name\":\"x\"},"
                      "\"argument\":{\"name\":\"y\",\"value\":\"x\"}"),
                 JRPC_INVALID_PARAMS, "ref.type");
    expect_error(call(f, "completion/complete", PROMPT_REF), JRPC_INVALID_PARAMS, "argument");
    expect_error(
        call(f, "completion/complete", PROMPT_REF ",\"argument\":{\"name\":\"api\",\"value\":3}"),
        JRPC_INVALID_PARAMS, "strings");
}

/* An index of one operation whose rendered content has long parameter and body sections. */
static char *write_wide_index(char **dir_out)
{
    char *dir = tu_tempdir(), *db = tu_path(dir, "wide.db");
    core_buf content;
    core_buf_init(&content, 1 << 20);
    core_buf_puts(&content, "POST /orders - Create an order\nAPI: shop\nParameters:\n");
    for (int i = 0; i < 20; i++) core_buf_printf(&content, "  - opt%02d (query, string)\n", i);
    core_buf_puts(&content, "  - store (query, string, required): the store\n"
                            "Request body (application/json, required): object\n"
                            "  - item: string, required: ");
    for (int i = 0; i < 60; i++) core_buf_puts(&content, "long ");
    core_buf_puts(&content, "\nResponses:\n  201: the order\n");
    char *text = core_buf_steal(&content, NULL);
    apidex_error err;
    store_writer *w = NULL;
    store_writer_options opt = {.full = true};
    if (store_writer_begin(db, &opt, &w, &err)) fail_msg("begin: %s", err.message);
    sv_add_api(w, "shop", "Shop API", "orders", "misc");
    const char *tags[] = {"orders"};
    store_operation op = {.id = "shop:createOrder",
                          .api = "shop",
                          .method = "POST",
                          .path = "/orders",
                          .operation_id = "createOrder",
                          .summary = "Create an order",
                          .tags = tags,
                          .n_tags = 1,
                          .content = text,
                          .tokens = 200};
    op.fields[STORE_FIELD_PATH] = "/orders";
    op.fields[STORE_FIELD_SUMMARY] = "Create an order";
    if (store_writer_add_operation(w, &op, &err)) fail_msg("add op: %s", err.message);
    const char *eps[] = {"shop:createOrder"};
    store_chunk c = {.id = "shop:createOrder#0",
                     .api = "shop",
                     .type = "endpoint",
                     .content = text,
                     .endpoints = eps,
                     .n_endpoints = 1,
                     .tokens = 200};
    for (int f = 0; f < STORE_FIELD_COUNT; f++) c.fields[f] = op.fields[f];
    if (store_writer_add_chunk(w, &c, &err)) fail_msg("add chunk: %s", err.message);
    if (store_writer_commit(w, NULL, &err)) fail_msg("commit: %s", err.message);
    free(text);
    *dir_out = dir;
    return db;
}

static void test_plan_details(void **state)
{
    (void)state;
    fixture f = {0};
    f.db = write_wide_index(&f.dir);
    apidex_error err;
    assert_int_equal(serve_db_open(f.db, 0, &f.sdb, &err), 0);
    assert_int_equal(mcp_server_new(f.sdb, NULL, &f.srv, &err), 0);
    struct json_object *o = call(&f, "prompts/get",
                                 "\"name\":\"plan_api_calls\",\"arguments\":{\"task\":\"create "
                                 "an order\"}");
    const char *text = sv_str(o, "result.messages.0.content.text");
    if (!text || !strstr(text, "shop:createOrder (primary): POST https://api.example.com/3/orders"))
        fail_msg("%s", json_object_to_json_string(o));
    /* headers and required lines always; optional ones while 16 lines last; never silently */
    assert_non_null(strstr(text, "   Parameters:\n     - opt00 (query, string)\n"));
    assert_non_null(strstr(text, "- store (query, string, required): the store"));
    assert_non_null(strstr(text, "   Request body (application/json, required): object"));
    assert_non_null(strstr(text, "- item: string, required: long long"));
    assert_non_null(strstr(text, "- opt11 (query, string)"));
    assert_null(strstr(text, "- opt12 (query, string)")); /* 4 kept + 12 optional = 16 */
    assert_non_null(strstr(text, "(8 more optional lines, 1 line cut at 200 bytes: get_endpoint"));
    assert_null(strstr(text, "Responses"));
    json_object_put(o);
    mcp_server_free(f.srv);
    serve_db_close(f.sdb);
    tu_rmtree(f.dir);
    free(f.dir);
    free(f.db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_prompts_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prompts_get, setup, teardown),
        cmocka_unit_test_setup_teardown(test_completion, setup, teardown),
        cmocka_unit_test(test_plan_details),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
