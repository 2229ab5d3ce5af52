/* Tests for MCP tool lists as specs (src/oas/mcp.c): detection, the mapping of a tool to
   an operation (id, method from annotations, parameters, $refs rebased, output schema),
   and hostile tool lists. */
#include "testutil.h"

#include "oas/oas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static spec_registry *load_text(const char *name, const char *text)
{
    spec_registry *reg = NULL;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, name, text, strlen(text), NULL, &err), 0);
    assert_int_equal(spec_registry_count(reg), 1);
    return reg;
}

static const spec_param *find_param(const spec_operation *op, const char *name)
{
    for (size_t i = 0; i < op->n_params; i++)
        if (!strcmp(op->params[i].name, name)) return &op->params[i];
    return NULL;
}

static bool has_diag(const spec_api *api, const char *text, const char *pointer)
{
    for (size_t i = 0; i < api->diags.n; i++)
        if (strstr(api->diags.items[i].message, text) &&
            (!pointer || !strcmp(api->diags.items[i].pointer, pointer)))
            return true;
    return false;
}

static const char *const TOOLS =
    "{\"mcp\": {\"server\": \"files\", \"protocolVersion\": \"2025-06-18\",\n"
    "  \"serverInfo\": {\"name\": \"secure-filesystem-server\", \"version\": \"0.2.0\"},\n"
    "  \"instructions\": \"Reads and writes files.\"},\n"
    " \"tools\": [\n"
    "  {\"name\": \"read_text_file\", \"title\": \"Read Text File\",\n"
    "   \"description\": \"Read a file as text.\",\n"
    "   \"inputSchema\": {\"type\": \"object\", \"properties\": {\n"
    "      \"path\": {\"type\": \"string\", \"description\": \"where\"},\n"
    "      \"mode\": {\"type\": \"string\", \"enum\": [\"utf8\", \"latin1\"]},\n"
    "      \"range\": {\"$ref\": \"#/$defs/Range\"}},\n"
    "    \"required\": [\"path\"],\n"
    "    \"$defs\": {\"Range\": {\"type\": \"object\", \"properties\": {\n"
    "      \"from\": {\"type\": \"integer\"}, \"next\": {\"$ref\": \"#/$defs/Range\"}}}}},\n"
    "   \"outputSchema\": {\"type\": \"object\", \"properties\": {\"content\": {\"type\": "
    "\"string\"}}},\n"
    "   \"annotations\": {\"readOnlyHint\": true}},\n"
    "  {\"name\": \"write_file\", \"inputSchema\": {\"type\": \"object\"},\n"
    "   \"annotations\": {\"destructiveHint\": true, \"idempotentHint\": true}},\n"
    "  {\"name\": \"createEntities\", \"inputSchema\": {\"type\": \"object\"},\n"
    "   \"annotations\": {\"destructiveHint\": false}},\n"
    "  {\"name\": \"delete_entities\", \"inputSchema\": {\"type\": \"object\"}},\n"
    "  {\"name\": \"odd/{name}?\", \"inputSchema\": {\"type\": \"object\"}},\n"
    "  {\"name\": \"odd_{name}_\", \"inputSchema\": {\"type\": \"object\"}}\n"
    " ]}\n";

static void test_tools_become_operations(void **state)
{
    (void)state;
    spec_registry *reg = load_text("files", TOOLS);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_string_equal(api->id, "files");
    assert_string_equal(api->spec_version, "mcp-2025-06-18");
    assert_string_equal(api->title, "secure-filesystem-server");
    assert_string_equal(api->version, "0.2.0");
    assert_string_equal(api->description, "Reads and writes files.");
    assert_int_equal(api->n_ops, 6);

    const spec_operation *rd = spec_api_find_operation(api, "files:read_text_file");
    assert_non_null(rd);
    assert_string_equal(rd->method, "GET"); /* readOnlyHint */
    assert_string_equal(rd->path, "/read_text_file");
    assert_string_equal(rd->summary, "Read Text File");
    assert_string_equal(rd->description, "Read a file as text.");
    assert_string_equal(rd->pointer, "/tools/0");
    assert_int_equal(rd->n_params, 3);
    const spec_param *path = find_param(rd, "path"), *mode = find_param(rd, "mode");
    assert_non_null(path);
    assert_true(path->required);
    assert_string_equal(path->description, "where");
    assert_false(mode->required);
    assert_int_equal(jt_get(mode->schema.node, "enum")->len, 2);
    /* the $ref into the input schema's $defs is rebased and resolves (recursion included) */
    spec_loc range = find_param(rd, "range")->schema, target;
    assert_int_equal(spec_deref(api, range, &target), 0);
    assert_non_null(jt_get(jt_get(target.node, "properties"), "from"));
    /* the output schema is the 200 response's */
    assert_int_equal(rd->n_responses, 1);
    assert_string_equal(rd->responses[0].status, "200");
    assert_non_null(rd->responses[0].media);
    assert_non_null(jt_get(jt_get(rd->responses[0].media[0].schema.node, "properties"), "content"));

    const spec_operation *wr = spec_api_find_operation(api, "files:write_file");
    assert_string_equal(wr->method, "PUT"); /* destructive and idempotent */
    assert_string_equal(wr->summary, "write file");
    const spec_operation *cr = spec_api_find_operation(api, "files:createEntities");
    assert_string_equal(cr->method, "POST");
    assert_string_equal(cr->summary, "create Entities");
    /* no annotations: MCP's defaults (destructive, not idempotent) */
    assert_string_equal(spec_api_find_operation(api, "files:delete_entities")->method, "POST");
    /* names a path template would misread become '_' in the path, never in the id */
    const spec_operation *odd = spec_api_find_operation(api, "files:odd/{name}?");
    assert_non_null(odd);
    assert_string_equal(odd->path, "/odd__name__");
    assert_string_equal(spec_api_find_operation(api, "files:odd_{name}_")->path, "/odd__name__-2");
    spec_registry_free(reg);
}

static void test_bare_tools_list_result(void **state)
{
    (void)state;
    /* the result of tools/list as saved by hand: the id comes from the file name */
    spec_registry *reg = load_text(
        "my-tools.json", "{\"tools\": [{\"name\": \"echo\", \"inputSchema\": {\"type\": \"object\","
                         " \"properties\": {\"message\": {\"type\": \"string\"}}}}]}");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_string_equal(api->spec_version, "mcp");
    assert_non_null(spec_api_find_operation(api, "my-tools:echo"));
    spec_registry_free(reg);
    /* a list of tools without inputSchema is no tool list: not detected */
    reg = load_text("x", "{\"tools\": [{\"name\": \"echo\"}]}");
    assert_true(spec_registry_api(reg, 0)->failed);
    spec_registry_free(reg);
}

static void test_hostile_tools_are_skipped(void **state)
{
    (void)state;
    char big[400];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_printf(&b,
                    "{\"mcp\": {\"server\": \"h\"}, \"tools\": [\n"
                    " 7, {\"title\": \"no name\"}, {\"name\": \"\"},\n"
                    " {\"name\": \"%s\", \"inputSchema\": {}},\n"
                    " {\"name\": \"ok\", \"inputSchema\": {\"type\": \"object\"}},\n"
                    " {\"name\": \"ok\", \"inputSchema\": {\"type\": \"object\"}},\n"
                    " {\"name\": \"no_schema\", \"inputSchema\": 3,"
                    " \"annotations\": \"bad\", \"outputSchema\": []},\n"
                    " {\"name\": \"deep\", \"inputSchema\": {\"type\": \"object\", \"properties\":"
                    " {\"x\": ",
                    big);
    for (int i = 0; i < 200; i++) core_buf_puts(&b, "{\"items\": ");
    core_buf_puts(&b, "{}");
    for (int i = 0; i < 200; i++) core_buf_puts(&b, "}");
    core_buf_puts(&b, "}}}]}");
    spec_registry *reg = load_text("h", b.data);
    core_buf_free(&b);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_int_equal(api->n_ops, 3); /* ok, no_schema, deep */
    assert_true(has_diag(api, "a tool needs a name", "/tools/0"));
    assert_true(has_diag(api, "a tool needs a name", "/tools/1"));
    assert_true(has_diag(api, "a tool needs a name", "/tools/2"));
    assert_true(has_diag(api, "tool name of 399 bytes", "/tools/3"));
    assert_true(has_diag(api, "listed twice", "/tools/5"));
    assert_true(has_diag(api, "no inputSchema object", "/tools/6"));
    assert_non_null(spec_api_find_operation(api, "h:deep"));
    spec_registry_free(reg);
}

/* A prefix every tool name of a list shares (the server's own name, "slack_") says which
   server, not what a tool does: the summary leaves it out and opens with the tool's verb.
   A word only some names start with, or a list of one tool, keeps the whole name. */
static void test_shared_name_prefix_left_out_of_summary(void **state)
{
    (void)state;
    spec_registry *reg =
        load_text("chat", "{\"mcp\": {\"server\": \"chat\"}, \"tools\": [\n"
                          " {\"name\": \"chat_post_message\", \"inputSchema\": {}},\n"
                          " {\"name\": \"chat-listChannels\", \"inputSchema\": {}},\n"
                          " {\"name\": \"chat_get_users\", \"title\": \"Get chat users\","
                          " \"inputSchema\": {}}]}");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_string_equal(spec_api_find_operation(api, "chat:chat_post_message")->summary,
                        "post message");
    assert_string_equal(spec_api_find_operation(api, "chat:chat-listChannels")->summary,
                        "list Channels");
    /* a title is the tool's own summary, whole */
    assert_string_equal(spec_api_find_operation(api, "chat:chat_get_users")->summary,
                        "Get chat users");
    /* the path and the id keep the whole name */
    assert_string_equal(spec_api_find_operation(api, "chat:chat_post_message")->path,
                        "/chat_post_message");
    spec_registry_free(reg);

    reg = load_text("mix", "{\"mcp\": {\"server\": \"mix\"}, \"tools\": [\n"
                           " {\"name\": \"get_user\", \"inputSchema\": {}},\n"
                           " {\"name\": \"get_team\", \"inputSchema\": {}},\n"
                           " {\"name\": \"search_users\", \"inputSchema\": {}},\n"
                           " {\"name\": \"get\", \"inputSchema\": {}}]}");
    api = spec_registry_api(reg, 0);
    assert_string_equal(spec_api_find_operation(api, "mix:get_user")->summary, "get user");
    spec_registry_free(reg);

    reg = load_text("one", "{\"mcp\": {\"server\": \"one\"}, \"tools\": [\n"
                           " {\"name\": \"run_query\", \"inputSchema\": {}}]}");
    api = spec_registry_api(reg, 0);
    assert_string_equal(spec_api_find_operation(api, "one:run_query")->summary, "run query");
    spec_registry_free(reg);
}

/* Resources, resource templates and prompts become read-only (GET) operations next to the
   tools, their template variables and arguments parameters. */
static void test_resources_and_prompts(void **state)
{
    (void)state;
    spec_registry *reg = load_text(
        "demo", "{\"mcp\": {\"server\": \"demo\"},\n"
                " \"tools\": [{\"name\": \"echo\", \"inputSchema\": {\"type\": \"object\"}}],\n"
                " \"resources\": [{\"uri\": \"demo://docs/a.md\", \"name\": \"a.md\", \"mimeType\":"
                " \"text/markdown\", \"description\": \"A document.\"},\n"
                "   {\"uri\": \"demo://docs/b.md\", \"name\": \"a.md\"},\n"
                "   {\"name\": \"no-uri\"}, {\"uri\": \"demo://x\"}],\n"
                " \"resourceTemplates\": [{\"name\": \"Dynamic Text\", \"uriTemplate\":"
                " \"demo://r/{id}/{+path}{?q,limit:3}{&id}\", \"title\": \"Dynamic text\"}],\n"
                " \"prompts\": [{\"name\": \"args-prompt\", \"description\": \"Two arguments.\",\n"
                "   \"arguments\": [{\"name\": \"city\", \"description\": \"The city\", "
                "\"required\": true},\n"
                "                 {\"name\": \"state\"}]},\n"
                "   {\"name\": \"simple-prompt\"}]}\n");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_int_equal(api->n_ops, 6); /* echo, two a.md, the template, two prompts */

    const spec_operation *r = spec_api_find_operation(api, "demo:resource:a.md");
    assert_non_null(r);
    assert_string_equal(r->method, "GET");
    assert_string_equal(r->path, "/resource/a.md");
    assert_int_equal(r->n_params, 0);
    assert_non_null(strstr(r->description, "URI: demo://docs/a.md (text/markdown)"));
    const spec_operation *r2 = spec_api_find_operation(api, "demo:resource:a.md-2");
    assert_non_null(r2);
    assert_string_equal(r2->path, "/resource/a.md-2");
    assert_true(has_diag(api, "has no uri", "/resources/2"));
    assert_true(has_diag(api, "needs a name", "/resources/3"));

    const spec_operation *t = spec_api_find_operation(api, "demo:resource:Dynamic Text");
    assert_non_null(t);
    assert_string_equal(t->method, "GET");
    assert_string_equal(t->path, "/resource/Dynamic_Text");
    assert_string_equal(t->summary, "Dynamic text");
    assert_int_equal(t->n_params, 4); /* id, path, q, limit; id once */
    assert_true(find_param(t, "id")->required);
    assert_true(find_param(t, "path")->required);
    assert_false(find_param(t, "q")->required);
    assert_false(find_param(t, "limit")->required);

    const spec_operation *p = spec_api_find_operation(api, "demo:prompt:args-prompt");
    assert_non_null(p);
    assert_string_equal(p->method, "GET");
    assert_string_equal(p->path, "/prompt/args-prompt");
    assert_int_equal(p->n_params, 2);
    assert_true(find_param(p, "city")->required);
    assert_string_equal(find_param(p, "city")->description, "The city");
    assert_false(find_param(p, "state")->required);
    assert_non_null(spec_api_find_operation(api, "demo:prompt:simple-prompt"));
    spec_registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tools_become_operations),
        cmocka_unit_test(test_bare_tools_list_result),
        cmocka_unit_test(test_hostile_tools_are_skipped),
        cmocka_unit_test(test_shared_name_prefix_left_out_of_summary),
        cmocka_unit_test(test_resources_and_prompts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
