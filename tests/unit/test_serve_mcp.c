/* The MCP server without a network: both eras over the stdio handler and the Streamable
   HTTP handler, revision negotiation, result shapes per revision, every tool and
   resource, and the JSON-RPC / MCP error codes. */
#include "serve_testutil.h"

#define META(v)                                                                                    \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"" v "\","                            \
    "\"io.modelcontextprotocol/clientCapabilities\":{},"                                           \
    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}"
#define MODERN META("2026-07-28")

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

/* One stdio exchange; returns the parsed reply (NULL when none was due). */
static struct json_object *io(fixture *f, mcp_stdio_state *st, const char *line)
{
    char *reply = NULL;
    size_t len = 0;
    assert_int_equal(mcp_handle_stdio(f->srv, st, line, strlen(line), &reply, &len), 0);
    if (!reply) return NULL;
    assert_int_equal(len, strlen(reply));
    assert_null(strchr(reply, '\n')); /* one message, one line */
    struct json_object *o = sv_parse(reply);
    free(reply);
    return o;
}

static void expect_error(struct json_object *o, int code)
{
    assert_non_null(o);
    struct json_object *c = sv_at(o, "error.code");
    if (!c) fail_msg("expected error %d, got %s", code, json_object_to_json_string(o));
    assert_int_equal(json_object_get_int(c), code);
    json_object_put(o);
}

static struct json_object *init(fixture *f, mcp_stdio_state *st, const char *version)
{
    char line[512];
    snprintf(
        line, sizeof line,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
        "\"%s\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
        version);
    return io(f, st, line);
}

static void test_negotiation(void **state)
{
    fixture *f = *state;
    struct {
        const char *asked, *got;
    } cases[] = {{"2025-11-25", "2025-11-25"},
                 {"2025-06-18", "2025-06-18"},
                 {"2025-03-26", "2025-03-26"},
                 {"2024-11-05", "2024-11-05"},
                 {"2099-01-01", "2025-11-25"},
                 {"1999-01-01", "2025-11-25"},
                 /* a modern revision without the _meta claim is still the legacy handshake */
                 {"2026-07-28", "2025-11-25"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mcp_stdio_state st = {.legacy_rev = -1};
        struct json_object *o = init(f, &st, cases[i].asked);
        assert_string_equal(sv_str(o, "result.protocolVersion"), cases[i].got);
        assert_string_equal(sv_str(o, "result.serverInfo.name"), "apidex");
        assert_non_null(sv_at(o, "result.capabilities.tools"));
        assert_non_null(sv_at(o, "result.capabilities.resources"));
        assert_non_null(sv_at(o, "result.capabilities.logging"));
        assert_non_null(sv_at(o, "result.capabilities.prompts"));
        assert_null(sv_at(o, "result.resultType")); /* 2026-07-28 only */
        json_object_put(o);
        assert_null(io(f, &st, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
        o = io(f, &st, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
        assert_non_null(sv_at(o, "result"));
        json_object_put(o);
    }
    /* initialize needs protocolVersion and capabilities */
    mcp_stdio_state st = {.legacy_rev = -1};
    expect_error(
        io(f, &st, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}"),
        JRPC_INVALID_PARAMS);
    expect_error(io(f, &st, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}"),
                 JRPC_INVALID_PARAMS);
    assert_int_equal(st.legacy_rev, -1);
}

static void test_tool_shapes_per_revision(void **state)
{
    fixture *f = *state;
    const char *revs[] = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"};
    for (size_t r = 0; r < 4; r++) {
        mcp_stdio_state st = {.legacy_rev = -1};
        json_object_put(init(f, &st, revs[r]));
        struct json_object *o =
            io(f, &st, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
        struct json_object *tools = sv_at(o, "result.tools");
        assert_int_equal(json_object_array_length(tools), 7);
        const char *names[] = {"search_endpoints",     "get_endpoint", "list_apis",   "ask_api",
                               "get_tool_definitions", "match_spec",   "report_usage"};
        for (size_t i = 0; i < 6; i++) {
            struct json_object *t = json_object_array_get_idx(tools, i);
            assert_string_equal(sv_str(t, "name"), names[i]);
            assert_string_equal(sv_str(t, "inputSchema.type"), "object");
            assert_non_null(sv_str(t, "description"));
            assert_true((sv_at(t, "annotations") != NULL) == (r >= 1));
            assert_true((sv_at(t, "outputSchema") != NULL) == (r >= 2));
            assert_true((sv_at(t, "title") != NULL) == (r >= 2));
        }
        assert_null(sv_at(o, "result.ttlMs"));
        json_object_put(o);
        o = io(f, &st,
               "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"list_apis\",\"arguments\":{}}}");
        assert_true((sv_at(o, "result.structuredContent") != NULL) == (r >= 2));
        struct json_object *text = sv_parse(sv_str(o, "result.content.0.text"));
        assert_int_equal(sv_int(text, "count"), 2);
        json_object_put(text);
        json_object_put(o);
    }
}

static void test_modern_requests(void **state)
{
    fixture *f = *state;
    mcp_stdio_state st = {.legacy_rev = -1}; /* no initialize: every request stands alone */
    struct json_object *o =
        io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" MODERN "}}");
    assert_string_equal(sv_str(o, "result.resultType"), "complete");
    assert_string_equal(sv_str(o, "result.supportedVersions.0"), "2026-07-28");
    assert_null(sv_at(o, "result.supportedVersions.1"));
    assert_non_null(sv_at(o, "result.capabilities.tools"));
    assert_true(json_object_get_boolean(sv_at(o, "result.capabilities.resources.subscribe")));
    assert_true(json_object_get_boolean(sv_at(o, "result.capabilities.resources.listChanged")));
    assert_non_null(sv_str(o, "result.instructions"));
    assert_int_equal(sv_int(o, "result.ttlMs"), 3600000);
    assert_string_equal(sv_str(o, "result.cacheScope"), "public");
    struct json_object *info = NULL;
    assert_true(json_object_object_get_ex(sv_at(o, "result._meta"),
                                          "io.modelcontextprotocol/serverInfo", &info));
    assert_string_equal(sv_str(info, "name"), "apidex");
    json_object_put(o);

    o = io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" MODERN "}}");
    assert_string_equal(sv_str(o, "result.resultType"), "complete");
    assert_int_equal(json_object_array_length(sv_at(o, "result.tools")), 7);
    assert_non_null(sv_at(o, "result.tools.0.outputSchema"));
    assert_non_null(sv_at(o, "result.ttlMs"));
    json_object_put(o);

    o = io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
           "\"search_endpoints\",\"arguments\":{\"task\":\"get the cast and crew of a movie\","
           "\"adaptive\":true}," MODERN "}}");
    assert_string_equal(sv_str(o, "result.resultType"), "complete");
    struct json_object *sc = sv_at(o, "result.structuredContent");
    assert_non_null(sc);
    assert_true(json_object_get_boolean(sv_at(sc, "adaptive")));
    /* the credits endpoint needs movie_id: it comes first by relevance, and in the plan its
       producer is the step before it */
    struct json_object *results = sv_at(sc, "results");
    size_t n = json_object_array_length(results);
    assert_true(n >= 2);
    long credits = -1, producer = -1;
    for (size_t i = 0; i < n; i++) {
        const char *id = sv_str(json_object_array_get_idx(results, i), "id");
        if (!strcmp(id, "films:getMovieCredits")) credits = (long)i;
        if (!strcmp(id, "films:listTopRated") || !strcmp(id, "films:searchMovie"))
            producer = (long)i;
    }
    assert_true(credits == 0 && producer > credits);
    struct json_object *plan = sv_at(sc, "plan");
    size_t steps = json_object_array_length(plan);
    assert_true(steps >= 2);
    struct json_object *last = json_object_array_get_idx(plan, steps - 1);
    assert_string_equal(sv_str(last, "id"), "films:getMovieCredits");
    assert_string_equal(sv_str(last, "inputs.0.param"), "movie_id");
    assert_string_equal(sv_str(last, "inputs.0.from"), "step");
    assert_string_equal(sv_str(json_object_array_get_idx(plan, 0), "role"), "producer");
    struct json_object *hit = json_object_array_get_idx(results, (size_t)credits);
    assert_string_equal(sv_str(hit, "endpoint"), "GET /movie/{movie_id}/credits");
    assert_string_equal(sv_str(hit, "api"), "films");
    assert_string_equal(sv_str(hit, "needs.0.param"), "movie_id");
    /* the text block is the same JSON, serialised */
    struct json_object *text = sv_parse(sv_str(o, "result.content.0.text"));
    assert_true(json_object_equal(text, sc));
    json_object_put(text);
    json_object_put(o);

    /* resources */
    o = io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/list\",\"params\":{" MODERN "}}");
    assert_string_equal(sv_str(o, "result.resources.0.uri"), "apidex://apis/films");
    assert_string_equal(sv_str(o, "result.resources.1.uri"), "apidex://apis/music");
    assert_null(sv_at(o, "result.nextCursor"));
    assert_non_null(sv_at(o, "result.ttlMs"));
    json_object_put(o);
    o = io(
        f, &st,
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/templates/list\",\"params\":{" MODERN
        "}}");
    assert_string_equal(sv_str(o, "result.resourceTemplates.0.uriTemplate"), "apidex://apis/{api}");
    assert_string_equal(sv_str(o, "result.resourceTemplates.1.uriTemplate"),
                        "apidex://endpoints/{id}");
    json_object_put(o);
    o = io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/read\",\"params\":{\"uri\":"
           "\"apidex://endpoints/films%3AgetMovieCredits\"," MODERN "}}");
    struct json_object *ep = sv_parse(sv_str(o, "result.contents.0.text"));
    assert_string_equal(sv_str(ep, "path"), "/movie/{movie_id}/credits");
    /* The fixture's documents are not on disk: the index's own rendering, and a note. */
    assert_string_equal(sv_str(ep, "detail"), "call");
    assert_non_null(strstr(sv_str(ep, "note"), "stored in the index"));
    assert_string_equal(sv_str(ep, "producers.0.producer"),
                        "films:searchMovie"); /* best score first */
    json_object_put(ep);
    json_object_put(o);
    expect_error(
        io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/read\",\"params\":{\"uri\":"
           "\"apidex://endpoints/nope\"," MODERN "}}"),
        JRPC_INVALID_PARAMS); /* -32602 since 2026-07-28 */
}

static void test_modern_errors(void **state)
{
    fixture *f = *state;
    mcp_stdio_state st = {.legacy_rev = -1};
    /* unsupported version: -32022 with the supported list */
    struct json_object *o =
        io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" META(
               "2099-01-01") "}}");
    assert_string_equal(sv_str(o, "error.data.supported.0"), "2026-07-28");
    assert_string_equal(sv_str(o, "error.data.requested"), "2099-01-01");
    expect_error(o, MCP_UNSUPPORTED_PROTOCOL_VERSION);
    /* a legacy revision in the per-request claim is not served per request */
    expect_error(io(f, &st,
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" META(
                        "2025-11-25") "}}"),
                 MCP_UNSUPPORTED_PROTOCOL_VERSION);
    /* the envelope must be complete */
    expect_error(
        io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
           "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}"),
        JRPC_INVALID_PARAMS);
    expect_error(
        io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
           "\"io.modelcontextprotocol/protocolVersion\":7,"
           "\"io.modelcontextprotocol/clientCapabilities\":{}}}}"),
        JRPC_INVALID_PARAMS);
    expect_error(
        io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
           "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
           "\"io.modelcontextprotocol/clientCapabilities\":{},"
           "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"x\"}}}}"),
        JRPC_INVALID_PARAMS);
    /* removed and unknown methods */
    expect_error(
        io(f, &st, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{" MODERN "}}"),
        JRPC_METHOD_NOT_FOUND);
    expect_error(
        io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"logging/setLevel\",\"params\":{" MODERN
           "}}"),
        JRPC_METHOD_NOT_FOUND);
    expect_error(io(f, &st,
                    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{" MODERN
                    "}}"),
                 JRPC_METHOD_NOT_FOUND);
    /* bad params */
    expect_error(io(f, &st,
                    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/"
                    "call\",\"params\":{\"name\":\"nope\"," MODERN "}}"),
                 JRPC_INVALID_PARAMS);
    expect_error(
        io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":3," MODERN
           "}}"),
        JRPC_INVALID_PARAMS);
    expect_error(io(f, &st,
                    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
                    "\"list_apis\",\"arguments\":[]," MODERN "}}"),
                 JRPC_INVALID_PARAMS);
    expect_error(
        io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{" MODERN "}}"),
        JRPC_INVALID_PARAMS);
    expect_error(io(f, &st,
                    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/"
                    "list\",\"params\":{\"cursor\":\"zz\"," MODERN "}}"),
                 JRPC_INVALID_PARAMS);
    /* a modern notification is accepted silently */
    assert_null(io(f, &st,
                   "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                   "cancelled\",\"params\":{\"requestId\":1}}"));
}

static void test_legacy_errors(void **state)
{
    fixture *f = *state;
    mcp_stdio_state st = {.legacy_rev = -1};
    /* before initialize, a request without the 2026-07-28 claim has no version */
    expect_error(io(f, &st, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"),
                 JRPC_INVALID_PARAMS);
    struct json_object *o = io(f, &st, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    assert_non_null(sv_at(o, "result")); /* ping is allowed before initialization */
    json_object_put(o);
    json_object_put(init(f, &st, "2025-11-25"));
    expect_error(io(f, &st, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\"}"),
                 JRPC_METHOD_NOT_FOUND);
    /* logging/setLevel: accepted with a valid level (no log messages are ever sent) */
    o = io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/"
           "setLevel\",\"params\":{\"level\":\"info\"}}");
    assert_int_equal(json_object_object_length(sv_at(o, "result")), 0);
    json_object_put(o);
    expect_error(io(f, &st,
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/"
                    "setLevel\",\"params\":{\"level\":\"loud\"}}"),
                 JRPC_INVALID_PARAMS);
    expect_error(
        io(f, &st, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":[]}"),
        JRPC_INVALID_PARAMS);
    o = io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/"
           "read\",\"params\":{\"uri\":\"apidex://apis/nope\"}}");
    assert_string_equal(sv_str(o, "error.data.uri"), "apidex://apis/nope");
    expect_error(o, MCP_RESOURCE_NOT_FOUND_2025);
    expect_error(io(f, &st,
                    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/"
                    "read\",\"params\":{\"uri\":\"apidex://apis/%zz\"}}"),
                 MCP_RESOURCE_NOT_FOUND_2025);
    expect_error(io(f, &st,
                    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/"
                    "read\",\"params\":{\"uri\":\"file:///etc/passwd\"}}"),
                 MCP_RESOURCE_NOT_FOUND_2025);
    /* malformed messages */
    expect_error(io(f, &st, "{\"jsonrpc\":\"2.0\",\"id\":4,"), JRPC_PARSE_ERROR);
    expect_error(io(f, &st, "[{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}]"),
                 JRPC_INVALID_REQUEST);
    o = io(f, &st, "{\"jsonrpc\":\"1.0\",\"id\":99,\"method\":\"ping\"}");
    assert_int_equal(sv_int(o, "id"), 99);
    expect_error(o, JRPC_INVALID_REQUEST);
    /* responses from the client need no answer */
    assert_null(io(f, &st, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}"));
}

static struct json_object *call_tool(fixture *f, const char *name, const char *args)
{
    mcp_stdio_state st = {.legacy_rev = -1};
    char line[2048];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":%s," MODERN "}}",
             name, args);
    struct json_object *o = io(f, &st, line);
    assert_non_null(sv_at(o, "result"));
    return o;
}

static bool is_tool_error(struct json_object *o)
{
    struct json_object *e = sv_at(o, "result.isError");
    return e && json_object_get_boolean(e);
}

static void test_listen_stdio(void **state)
{
    fixture *f = *state;
    mcp_stdio_state st = {.legacy_rev = -1};
    size_t len;
    assert_null(mcp_stdio_poll(f->srv, &st, &len)); /* the first poll only records the build */
    struct json_object *o =
        io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":\"L1\",\"method\":\"subscriptions/listen\","
           "\"params\":{\"notifications\":{\"resourcesListChanged\":true,"
           "\"toolsListChanged\":true,\"promptsListChanged\":true,"
           "\"resourceSubscriptions\":[\"apidex://apis/films\",7]}," MODERN "}}");
    /* the acknowledgement is a notification naming what is honoured */
    assert_string_equal(sv_str(o, "method"), "notifications/subscriptions/acknowledged");
    assert_null(sv_at(o, "id"));
    assert_true(json_object_get_boolean(sv_at(o, "params.notifications.resourcesListChanged")));
    assert_null(sv_at(o, "params.notifications.toolsListChanged"));
    assert_null(sv_at(o, "params.notifications.promptsListChanged"));
    assert_string_equal(sv_str(o, "params.notifications.resourceSubscriptions.0"),
                        "apidex://apis/films");
    assert_null(sv_at(o, "params.notifications.resourceSubscriptions.1"));
    struct json_object *sid = NULL;
    assert_true(json_object_object_get_ex(sv_at(o, "params._meta"),
                                          "io.modelcontextprotocol/subscriptionId", &sid));
    assert_string_equal(json_object_get_string(sid), "L1");
    json_object_put(o);
    assert_int_equal(st.n_listens, 1);
    assert_null(mcp_stdio_poll(f->srv, &st, &len)); /* nothing changed yet */
    /* a rebuild reaches the subscription (the fixture db reloads on every acquire) */
    sv_fixture_write(f->db, 2);
    char *notes = mcp_stdio_poll(f->srv, &st, &len);
    assert_non_null(notes);
    char *nl = strchr(notes, '\n');
    assert_non_null(nl);
    *nl = '\0';
    o = sv_parse(notes);
    assert_string_equal(sv_str(o, "method"), "notifications/resources/list_changed");
    json_object_put(o);
    o = sv_parse(nl + 1);
    assert_string_equal(sv_str(o, "method"), "notifications/resources/updated");
    assert_string_equal(sv_str(o, "params.uri"), "apidex://apis/films");
    json_object_put(o);
    free(notes);
    /* other requests go on meanwhile; cancelling ends the stream silently */
    o = io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" MODERN "}}");
    assert_non_null(sv_at(o, "result.tools"));
    json_object_put(o);
    assert_null(io(f, &st,
                   "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                   "cancelled\",\"params\":{\"requestId\":\"L1\"}}"));
    assert_int_equal(st.n_listens, 0);
    sv_fixture_write(f->db, 1);
    assert_null(mcp_stdio_poll(f->srv, &st, &len));
    /* bad filters */
    expect_error(
        io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"subscriptions/listen\",\"params\":{" MODERN
           "}}"),
        JRPC_INVALID_PARAMS);
    expect_error(io(f, &st,
                    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"subscriptions/listen\",\"params\":{"
                    "\"notifications\":{\"resourceSubscriptions\":\"x\"}," MODERN "}}"),
                 JRPC_INVALID_PARAMS);
    /* the 2025 era has no listen; an initialized stdio client is told of changes unsolicited */
    mcp_stdio_state legacy = {.legacy_rev = -1};
    o = init(f, &legacy, "2025-11-25");
    assert_true(json_object_get_boolean(sv_at(o, "result.capabilities.resources.listChanged")));
    assert_null(sv_at(o, "result.capabilities.resources.subscribe"));
    json_object_put(o);
    expect_error(io(f, &legacy,
                    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"subscriptions/"
                    "listen\",\"params\":{\"notifications\":{}}}"),
                 JRPC_METHOD_NOT_FOUND);
    assert_null(mcp_stdio_poll(f->srv, &legacy, &len));
    sv_fixture_write(f->db, 2);
    notes = mcp_stdio_poll(f->srv, &legacy, &len);
    assert_string_equal(
        notes, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/list_changed\"}");
    free(notes);
    mcp_stdio_state_clear(&legacy);
    mcp_stdio_state_clear(&st);
}

static void test_tools(void **state)
{
    fixture *f = *state;
    /* get_endpoint: by id, by method + path (placeholders may differ), loose ids */
    const char *ok_args[] = {
        "{\"id\":\"films:getMovieCredits\"}",
        "{\"method\":\"GET\",\"path\":\"/movie/{movie_id}/credits\"}",
        "{\"method\":\"get\",\"path\":\"/movie/{id}/credits\",\"api\":\"films\"}",
        "{\"id\":\"GET /movie/{movie_id}/credits\"}",
        "{\"id\":\"films:GET /movie/{movie_id}/credits\"}",
        NULL};
    for (size_t i = 0; ok_args[i]; i++) {
        struct json_object *o = call_tool(f, "get_endpoint", ok_args[i]);
        if (is_tool_error(o)) fail_msg("%s: %s", ok_args[i], json_object_to_json_string(o));
        assert_string_equal(sv_str(o, "result.structuredContent.id"), "films:getMovieCredits");
        assert_string_equal(sv_str(o, "result.structuredContent.servers.0.url"),
                            "https://api.example.com/3");
        assert_string_equal(sv_str(o, "result.structuredContent.inputs.0.name"), "movie_id");
        json_object_put(o);
    }
    struct json_object *o =
        call_tool(f, "get_endpoint", "{\"id\":\"films:POST /movie/{movie_id}/rating\"}");
    assert_false(is_tool_error(o));
    assert_null(json_object_get_string(sv_at(o, "result.structuredContent.operation_id")));
    json_object_put(o);
    /* failures the model can fix are tool errors, with a message */
    const char *bad_args[] = {"{}",
                              "{\"id\":\"nope\"}",
                              "{\"method\":\"GET\",\"path\":\"/genres\"}",
                              "{\"method\":\"FETCH\",\"path\":\"/x\"}",
                              "{\"id\":5}",
                              "{\"id\":\"films:x\",\"extra\":1}",
                              "{\"method\":\"GET\",\"path\":\"x\"}",
                              NULL};
    for (size_t i = 0; bad_args[i]; i++) {
        o = call_tool(f, "get_endpoint", bad_args[i]);
        if (!is_tool_error(o))
            fail_msg("%s should fail: %s", bad_args[i], json_object_to_json_string(o));
        assert_non_null(sv_str(o, "result.content.0.text"));
        assert_null(sv_at(o, "result.structuredContent"));
        json_object_put(o);
    }
    o = call_tool(f, "get_endpoint", "{\"method\":\"GET\",\"path\":\"/genres\"}");
    assert_non_null(strstr(sv_str(o, "result.content.0.text"), "ambiguous"));
    json_object_put(o);
    o = call_tool(f, "get_endpoint", "{\"method\":\"GET\",\"path\":\"/genres\",\"api\":\"music\"}");
    assert_string_equal(sv_str(o, "result.structuredContent.id"), "music:GET /genres");
    json_object_put(o);

    /* search_endpoints: k, filters, argument checks */
    struct json_object *res;
    o = call_tool(f, "search_endpoints", "{\"task\":\"search\",\"k\":2}");
    assert_int_equal(sv_int(o, "result.structuredContent.count"), 2);
    json_object_put(o);
    o = call_tool(f, "search_endpoints", "{\"task\":\"genres\",\"apis\":[\"music\"]}");
    assert_string_equal(sv_str(o, "result.structuredContent.results.0.id"), "music:GET /genres");
    res = sv_at(o, "result.structuredContent.results");
    for (size_t i = 0; i < json_object_array_length(res); i++)
        assert_string_equal(sv_str(json_object_array_get_idx(res, i), "api"), "music");
    json_object_put(o);
    o = call_tool(f, "search_endpoints", "{\"task\":\"movie rating\",\"methods\":[\"DELETE\"]}");
    assert_int_equal(sv_int(o, "result.structuredContent.count"), 0); /* deprecated ones hidden */
    json_object_put(o);
    o = call_tool(
        f, "search_endpoints",
        "{\"task\":\"movie rating\",\"methods\":[\"DELETE\"],\"include_deprecated\":true}");
    assert_string_equal(sv_str(o, "result.structuredContent.results.0.id"), "films:deleteRating");
    json_object_put(o);
    o = call_tool(f, "search_endpoints", "{\"task\":\"genres\",\"tags\":[\"search\"]}");
    res = sv_at(o, "result.structuredContent.results");
    for (size_t i = 0; i < json_object_array_length(res); i++)
        assert_null(strstr(sv_str(json_object_array_get_idx(res, i), "id"), "enres"));
    json_object_put(o);
    const char *bad_search[] = {"{}",
                                "{\"task\":\"\"}",
                                "{\"task\":\"  \"}",
                                "{\"task\":1}",
                                "{\"task\":\"x\",\"k\":0}",
                                "{\"task\":\"x\",\"k\":101}",
                                "{\"task\":\"x\",\"k\":2.5}",
                                "{\"task\":\"x\",\"k\":\"3\"}",
                                "{\"task\":\"x\",\"apis\":\"films\"}",
                                "{\"task\":\"x\",\"apis\":[\"nope\"]}",
                                "{\"task\":\"x\",\"methods\":[\"FETCH\"]}",
                                "{\"task\":\"x\",\"adaptive\":1}",
                                "{\"task\":\"x\",\"query\":\"y\"}",
                                "{\"task\":\"a\\u0000b\"}",
                                NULL};
    for (size_t i = 0; bad_search[i]; i++) {
        o = call_tool(f, "search_endpoints", bad_search[i]);
        if (!is_tool_error(o))
            fail_msg("%s should fail: %s", bad_search[i], json_object_to_json_string(o));
        json_object_put(o);
    }

    /* list_apis */
    o = call_tool(f, "list_apis", "{}");
    assert_int_equal(sv_int(o, "result.structuredContent.count"), 2);
    assert_int_equal(sv_int(o, "result.structuredContent.n_operations"), 9);
    /* compact: largest first, one line of facts each, no cursor when all fit */
    assert_string_equal(sv_str(o, "result.structuredContent.apis.0.id"), "films");
    const char *about = sv_str(o, "result.structuredContent.apis.0.about");
    assert_non_null(strstr(about, "6 operations"));
    assert_non_null(strstr(about, "tags movies"));
    assert_null(strchr(about, '\n'));
    assert_null(sv_at(o, "result.structuredContent.nextCursor"));
    json_object_put(o);
    o = call_tool(f, "list_apis", "{\"x\":1}");
    assert_true(is_tool_error(o));
    json_object_put(o);
    const char *bad_cursor[] = {"{\"cursor\":\"x\"}",     "{\"cursor\":\"apis:2\"}",
                                "{\"cursor\":\"apis:\"}", "{\"cursor\":\"apis:1x\"}",
                                "{\"cursor\":7}",         NULL};
    for (size_t i = 0; bad_cursor[i]; i++) {
        o = call_tool(f, "list_apis", bad_cursor[i]);
        if (!is_tool_error(o)) fail_msg("%s should fail", bad_cursor[i]);
        json_object_put(o);
    }
    /* the second page starts at the cursor's API */
    o = call_tool(f, "list_apis", "{\"cursor\":\"apis:1\"}");
    assert_false(is_tool_error(o));
    assert_int_equal(json_object_array_length(sv_at(o, "result.structuredContent.apis")), 1);
    assert_string_not_equal(sv_str(o, "result.structuredContent.apis.0.id"), "films");
    json_object_put(o);

    /* ask_api: endpoints plus the assembled context within the budget */
    o = call_tool(f, "ask_api", "{\"task\":\"cast and crew of a movie\",\"budget\":1000}");
    assert_false(is_tool_error(o));
    const char *ctx = sv_str(o, "result.structuredContent.context");
    assert_non_null(strstr(ctx, "GET /movie/{movie_id}/credits"));
    assert_non_null(strstr(ctx, "films:Credits"));
    assert_true(sv_int(o, "result.structuredContent.context_tokens") <= 1000);
    assert_int_equal(sv_int(o, "result.structuredContent.budget"), 1000);
    json_object_put(o);
    o = call_tool(f, "ask_api", "{\"task\":\"x\",\"budget\":10}");
    assert_true(is_tool_error(o));
    json_object_put(o);
}

/* ---------------------------------------------------------------- Streamable HTTP */

typedef struct http_case {
    const char *method, *ctype, *accept, *version, *session, *mcp_method, *mcp_name, *body;
    const char *client;
} http_case;

static struct json_object *http(fixture *f, const http_case *c, int *status, char **session)
{
    mcp_http_request req = {.client = c->client,
                            .http_method = c->method ? c->method : "POST",
                            .content_type = c->ctype ? c->ctype : "application/json",
                            .accept = c->accept ? c->accept : "application/json, text/event-stream",
                            .protocol_version = c->version,
                            .session_id = c->session,
                            .mcp_method = c->mcp_method,
                            .mcp_name = c->mcp_name,
                            .body = c->body,
                            .body_len = c->body ? strlen(c->body) : 0};
    mcp_http_response res;
    mcp_handle_http(f->srv, &req, &res);
    *status = res.status;
    if (session) *session = res.session_id ? strdup(res.session_id) : NULL;
    struct json_object *o = res.body ? sv_parse(res.body) : NULL;
    mcp_http_response_clear(&res);
    return o;
}

#define LIST_TOOLS                                                                                 \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" MODERN "}}"
#define CALL_APIS                                                                                  \
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"list_apis\","  \
    "\"arguments\":{}," MODERN "}}"

static void test_http_modern(void **state)
{
    fixture *f = *state;
    int status;
    struct json_object *o;
    http_case ok = {.version = "2026-07-28", .mcp_method = "tools/list", .body = LIST_TOOLS};
    o = http(f, &ok, &status, NULL);
    assert_int_equal(status, 200);
    assert_string_equal(sv_str(o, "result.resultType"), "complete");
    json_object_put(o);
    /* session headers are ignored by the modern era */
    http_case with_session = ok;
    with_session.session = "0123456789abcdef0123456789abcdef";
    o = http(f, &with_session, &status, NULL);
    assert_int_equal(status, 200);
    json_object_put(o);

    struct {
        http_case c;
        int status, code;
    } bad[] = {
        {{.mcp_method = "tools/list", .body = LIST_TOOLS}, 400, MCP_HEADER_MISMATCH},
        {{.version = "2026-07-28", .body = LIST_TOOLS}, 400, MCP_HEADER_MISMATCH},
        {{.version = "2026-07-28", .mcp_method = "tools/call", .body = LIST_TOOLS},
         400,
         MCP_HEADER_MISMATCH},
        {{.version = "2099-01-01", .mcp_method = "tools/list", .body = LIST_TOOLS},
         400,
         MCP_HEADER_MISMATCH},
        {{.version = "2026-07-28", .mcp_method = "tools/call", .body = CALL_APIS},
         400,
         MCP_HEADER_MISMATCH},
        {{.version = "2026-07-28",
          .mcp_method = "tools/call",
          .mcp_name = "search_endpoints",
          .body = CALL_APIS},
         400,
         MCP_HEADER_MISMATCH},
        {{.version = "2026-07-28",
          .mcp_method = "tools/call",
          .mcp_name = "=?base64?!!!?=",
          .body = CALL_APIS},
         400,
         MCP_HEADER_MISMATCH},
        {{.version = "2026-07-28",
          .mcp_method = "nope",
          .body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nope\",\"params\":{" MODERN "}}"},
         404,
         JRPC_METHOD_NOT_FOUND},
        {{.version = "2099-01-01",
          .mcp_method = "tools/list",
          .body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" META(
              "2099-01-01") "}}"},
         400,
         MCP_UNSUPPORTED_PROTOCOL_VERSION},
        {{.version = "2026-07-28",
          .mcp_method = "tools/list",
          .body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"},
         400,
         JRPC_INVALID_PARAMS},
        {{.version = "2026-07-28",
          .mcp_method = "tools/list",
          .body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/"
                  "list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/"
                  "protocolVersion\":\"2026-07-28\"}}}"},
         400,
         JRPC_INVALID_PARAMS},
        {{.version = "2026-07-28",
          .body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                  "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}"},
         400,
         MCP_HEADER_MISMATCH},
        {{.body = "{\"jsonrpc\":\"2.0\",\"id\":1,"}, 400, JRPC_PARSE_ERROR},
        {{.body = "[]"}, 400, JRPC_INVALID_REQUEST},
        {{.body = ""}, 400, JRPC_PARSE_ERROR},
        {{.ctype = "text/plain", .body = LIST_TOOLS}, 415, JRPC_INVALID_REQUEST},
        {{.accept = "text/html", .body = LIST_TOOLS}, 406, JRPC_INVALID_REQUEST},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o = http(f, &bad[i].c, &status, NULL);
        if (status != bad[i].status)
            fail_msg("case %zu: status %d, wanted %d", i, status, bad[i].status);
        expect_error(o, bad[i].code);
    }
    /* Mcp-Name may be Base64-encoded */
    http_case b64 = {.version = "2026-07-28",
                     .mcp_method = "tools/call",
                     .mcp_name = " =?base64?bGlzdF9hcGlz?= ",
                     .body = CALL_APIS};
    o = http(f, &b64, &status, NULL);
    assert_int_equal(status, 200);
    assert_int_equal(sv_int(o, "result.structuredContent.count"), 2);
    json_object_put(o);
    /* a tool failure is a result, on 200 */
    http_case tool_err = {
        .version = "2026-07-28",
        .mcp_method = "tools/call",
        .mcp_name = "get_endpoint",
        .body = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/"
                "call\",\"params\":{\"name\":\"get_endpoint\",\"arguments\":{\"id\":\"x\"}," MODERN
                "}}"};
    o = http(f, &tool_err, &status, NULL);
    assert_int_equal(status, 200);
    assert_true(is_tool_error(o));
    json_object_put(o);
    /* notifications: 202, no body */
    http_case note = {.version = "2026-07-28",
                      .mcp_method = "notifications/cancelled",
                      .body = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                              "cancelled\",\"params\":{\"requestId\":1," MODERN "}}"};
    o = http(f, &note, &status, NULL);
    assert_int_equal(status, 202);
    assert_null(o);
}

static void test_http_legacy_sessions(void **state)
{
    fixture *f = *state;
    int status;
    char *sid = NULL;
    http_case init = {.body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                              "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                              "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"};
    struct json_object *o = http(f, &init, &status, &sid);
    assert_int_equal(status, 200);
    assert_string_equal(sv_str(o, "result.protocolVersion"), "2025-06-18");
    assert_null(sv_at(o, "result.capabilities.resources.listChanged")); /* no GET stream */
    json_object_put(o);
    assert_non_null(sid);
    assert_int_equal(strlen(sid), 32);
    assert_int_equal(mcp_session_count(f->srv), 1);

    http_case initialized = {.version = "2025-06-18",
                             .session = sid,
                             .body =
                                 "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"};
    o = http(f, &initialized, &status, NULL);
    assert_int_equal(status, 202);
    assert_null(o);
    http_case list = {.version = "2025-06-18",
                      .session = sid,
                      .body = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"};
    o = http(f, &list, &status, NULL);
    assert_int_equal(status, 200);
    assert_null(sv_at(o, "result.resultType"));
    assert_non_null(sv_at(o, "result.tools.0.outputSchema"));
    json_object_put(o);
    /* no session, unknown session, bad version header */
    http_case no_session = list;
    no_session.session = NULL;
    expect_error(http(f, &no_session, &status, NULL), JRPC_INVALID_REQUEST);
    assert_int_equal(status, 400);
    http_case unknown = list;
    unknown.session = "ffffffffffffffffffffffffffffffff";
    expect_error(http(f, &unknown, &status, NULL), JRPC_INVALID_REQUEST);
    assert_int_equal(status, 404);
    http_case bad_version = list;
    bad_version.version = "2001-01-01";
    expect_error(http(f, &bad_version, &status, NULL), JRPC_INVALID_REQUEST);
    assert_int_equal(status, 400);
    /* a 2025 request under a modern header lacks the envelope */
    http_case modern_header = list;
    modern_header.version = "2026-07-28";
    expect_error(http(f, &modern_header, &status, NULL), JRPC_INVALID_PARAMS);
    assert_int_equal(status, 400);
    /* GET offers no stream; DELETE ends the session */
    http_case get = {.method = "GET", .session = sid};
    assert_null(http(f, &get, &status, NULL));
    assert_int_equal(status, 405);
    http_case del = {.method = "DELETE", .session = sid};
    assert_null(http(f, &del, &status, NULL));
    assert_int_equal(status, 200);
    assert_null(http(f, &del, &status, NULL));
    assert_int_equal(status, 404);
    o = http(f, &list, &status, NULL);
    assert_int_equal(status, 404);
    json_object_put(o);
    assert_int_equal(mcp_session_count(f->srv), 0);
    free(sid);
}

static void test_http_session_limit(void **state)
{
    (void)state;
    char *dir = NULL;
    char *db = sv_fixture(&dir);
    apidex_error err;
    serve_db *sdb;
    mcp_server *srv;
    assert_int_equal(serve_db_open(db, -1, &sdb, &err), 0);
    mcp_server_options opt = {.max_sessions = 3};
    assert_int_equal(mcp_server_new(sdb, &opt, &srv, &err), 0);
    fixture f = {.srv = srv};
    char *first = NULL;
    http_case init = {.body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                              "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}"};
    for (int i = 0; i < 5; i++) {
        int status;
        char *sid = NULL;
        json_object_put(http(&f, &init, &status, &sid));
        assert_int_equal(status, 200);
        if (i == 0)
            first = sid;
        else
            free(sid);
    }
    assert_int_equal(mcp_session_count(srv), 3); /* the oldest went */
    int status;
    http_case list = {.session = first,
                      .body = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"};
    json_object_put(http(&f, &list, &status, NULL));
    assert_int_equal(status, 404);
    free(first);
    mcp_server_free(srv);
    serve_db_close(sdb);
    tu_rmtree(dir);
    free(dir);
    free(db);
}

/* One address opening many sessions loses its own oldest, and a full table takes from
   the address holding the most: another address's session survives both. */
static void test_http_session_quota(void **state)
{
    (void)state;
    char *dir = NULL;
    char *db = sv_fixture(&dir);
    apidex_error err;
    serve_db *sdb;
    mcp_server *srv;
    assert_int_equal(serve_db_open(db, -1, &sdb, &err), 0);
    mcp_server_options opt = {.max_sessions = 8, .max_sessions_per_client = 3};
    assert_int_equal(mcp_server_new(sdb, &opt, &srv, &err), 0);
    fixture f = {.srv = srv};
    const char *init_body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                            "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}";
    int status;
    char *victim = NULL;
    http_case init = {.body = init_body, .client = "10.0.0.2"};
    json_object_put(http(&f, &init, &status, &victim));
    assert_int_equal(status, 200);
    assert_non_null(victim);
    http_case list = {.session = victim,
                      .client = "10.0.0.2",
                      .body = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"};
    /* a flood from one address: it keeps its newest three */
    init.client = "10.0.0.1";
    char *flood_first = NULL;
    for (int i = 0; i < 40; i++) {
        char *sid = NULL;
        json_object_put(http(&f, &init, &status, &sid));
        assert_int_equal(status, 200);
        assert_non_null(sid);
        if (i == 0)
            flood_first = sid;
        else
            free(sid);
    }
    assert_int_equal(mcp_session_count(srv), 4);
    json_object_put(http(&f, &list, &status, NULL));
    assert_int_equal(status, 200);
    http_case flood_list = list;
    flood_list.session = flood_first;
    flood_list.client = "10.0.0.1";
    json_object_put(http(&f, &flood_list, &status, NULL));
    assert_int_equal(status, 404); /* its own oldest went */
    /* a flood from a few addresses fills the table: those holding the most give way (from
       as many addresses as there are slots, each would hold one, and the oldest would go) */
    char client[32];
    for (int a = 3; a < 8; a++) {
        snprintf(client, sizeof client, "10.0.0.%d", a);
        init.client = client;
        for (int i = 0; i < 3; i++) {
            json_object_put(http(&f, &init, &status, NULL));
            assert_int_equal(status, 200);
        }
    }
    assert_int_equal(mcp_session_count(srv), 8);
    json_object_put(http(&f, &list, &status, NULL));
    assert_int_equal(status, 200);
    free(flood_first);
    free(victim);
    mcp_server_free(srv);
    serve_db_close(sdb);
    tu_rmtree(dir);
    free(dir);
    free(db);
}

/* A NUL character (\u0000) in a string is refused, naming where, never cut at. */
static void test_nul_refused(void **state)
{
    fixture *f = *state;
    mcp_stdio_state st = {.legacy_rev = -1};
    /* a member name cut at the NUL would read as "task" and run the search */
    struct json_object *o =
        io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"
           "\"name\":\"search_endpoints\",\"arguments\":{\"task\\u0000x\":"
           "\"weather\"}," MODERN "}}");
    assert_non_null(strstr(sv_str(o, "error.message"), "a member name contains a NUL character"));
    expect_error(o, JRPC_INVALID_PARAMS);
    o = call_tool(f, "search_endpoints", "{\"task\":\"movie\\u0000 credits\"}");
    assert_true(is_tool_error(o));
    assert_non_null(
        strstr(sv_str(o, "result.content.0.text"), "argument 'task' contains a NUL character"));
    json_object_put(o);
    o = call_tool(f, "search_endpoints", "{\"task\":\"movie\",\"apis\":[\"films\\u0000zz\"]}");
    assert_true(is_tool_error(o));
    assert_non_null(strstr(sv_str(o, "result.content.0.text"), "'apis[0]'"));
    json_object_put(o);
    /* a tool name cut at the NUL would run list_apis */
    o = io(f, &st,
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
           "\"list_apis\\u0000x\",\"arguments\":{}," MODERN "}}");
    assert_non_null(strstr(sv_str(o, "error.message"), "params.name contains a NUL character"));
    expect_error(o, JRPC_INVALID_PARAMS);
    /* an escaped backslash before u0000 is text, not a NUL */
    o = call_tool(f, "search_endpoints", "{\"task\":\"movie \\\\u0000 credits\"}");
    assert_false(is_tool_error(o));
    json_object_put(o);
    /* the JSON-RPC message null: Invalid Request that says so, never "success" */
    o = io(f, &st, "null");
    assert_non_null(strstr(sv_str(o, "error.message"), "not null"));
    expect_error(o, JRPC_INVALID_REQUEST);
    mcp_stdio_state_clear(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_negotiation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tool_shapes_per_revision, setup, teardown),
        cmocka_unit_test_setup_teardown(test_modern_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(test_modern_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_legacy_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_listen_stdio, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tools, setup, teardown),
        cmocka_unit_test_setup_teardown(test_http_modern, setup, teardown),
        cmocka_unit_test_setup_teardown(test_http_legacy_sessions, setup, teardown),
        cmocka_unit_test(test_http_session_limit),
        cmocka_unit_test(test_http_session_quota),
        cmocka_unit_test_setup_teardown(test_nul_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
