/* libFuzzer target for the JSON-RPC / MCP request handler: each input is one message,
   served over the stdio handler (after a 2025-era initialize or none) or over the
   Streamable HTTP handler with headers taken from the input, against a small index. */
#include "serve/serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static serve_db *db;
static mcp_server *srv;

static void add_op(store_writer *w, const char *api, const char *id, const char *method,
                   const char *path, const char *summary, const char *input)
{
    apidex_error err;
    store_input in = {input, "path", NULL, true};
    const char *tags[] = {"things"};
    store_operation op = {.id = id,
                          .api = api,
                          .method = method,
                          .path = path,
                          .operation_id = strchr(id, ' ') ? NULL : strchr(id, ':') + 1,
                          .summary = summary,
                          .tags = tags,
                          .n_tags = 1,
                          .content = summary,
                          .tokens = 5,
                          .inputs = input ? &in : NULL,
                          .n_inputs = input ? 1 : 0};
    op.fields[STORE_FIELD_PATH] = path;
    op.fields[STORE_FIELD_SUMMARY] = summary;
    if (store_writer_add_operation(w, &op, &err)) abort();
    char chunk_id[128];
    snprintf(chunk_id, sizeof chunk_id, "%s#0", id);
    const char *eps[] = {id};
    store_chunk c = {.id = chunk_id,
                     .api = api,
                     .type = "endpoint",
                     .content = summary,
                     .endpoints = eps,
                     .n_endpoints = 1,
                     .tokens = 5};
    for (int f = 0; f < STORE_FIELD_COUNT; f++) c.fields[f] = op.fields[f];
    if (store_writer_add_chunk(w, &c, &err)) abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char path[64];
    snprintf(path, sizeof path, "/tmp/apidex-fuzz-jsonrpc-%d.db", (int)getpid());
    apidex_error err;
    store_writer *w = NULL;
    store_writer_options opt = {.full = true};
    if (store_writer_begin(path, &opt, &w, &err)) abort();
    store_tag tags[] = {{"things", NULL, 0}};
    store_server servers[] = {{"https://example.com", NULL}};
    store_api api = {.id = "demo",
                     .document = "/specs/demo.json",
                     .title = "Demo",
                     .version = "1",
                     .servers = servers,
                     .n_servers = 1,
                     .tags = tags,
                     .n_tags = 1,
                     .content_hash = 1};
    if (store_writer_add_api(w, &api, &err)) abort();
    add_op(w, "demo", "demo:listThings", "GET", "/things", "List things", NULL);
    add_op(w, "demo", "demo:getThing", "GET", "/things/{id}", "Get a thing", "id");
    add_op(w, "demo", "demo:POST /things", "POST", "/things", "Create a thing", NULL);
    store_schema s = {
        .id = "demo:Thing", .api = "demo", .name = "Thing", .content = "Thing: id", .tokens = 3};
    if (store_writer_add_schema(w, &s, &err)) abort();
    store_edge e1 = {
        .kind = STORE_EDGE_OP_SCHEMA, .src = "demo:getThing", .dst = "demo:Thing", .score = 1};
    store_edge e2 = {.kind = STORE_EDGE_PRODUCER,
                     .src = "demo:getThing",
                     .dst = "demo:listThings",
                     .param = "id",
                     .field = "thing",
                     .score = 2};
    if (store_writer_add_edge(w, "demo", &e1, &err) || store_writer_add_edge(w, "demo", &e2, &err))
        abort();
    if (store_writer_commit(w, NULL, &err)) abort();
    if (serve_db_open(path, -1, &db, &err) || mcp_server_new(db, NULL, &srv, &err)) abort();
    unlink(path); /* the open snapshot keeps it readable */
    return 0;
}

/* Takes a NUL-terminated header value off the front of the input (up to a '\n'). */
static const char *take_line(const uint8_t **p, size_t *n, char *buf, size_t size)
{
    size_t i = 0;
    while (i < *n && (*p)[i] != '\n' && i + 1 < size) {
        buf[i] = (char)(*p)[i];
        i++;
    }
    buf[i] = '\0';
    size_t skip = i < *n ? i + 1 : i;
    *p += skip;
    *n -= skip;
    return buf[0] ? buf : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    if (mode & 1) { /* Streamable HTTP: four header lines, then the body */
        char version[64], method[64], name[256], session[64];
        mcp_http_request req = {.http_method = (mode & 2)   ? "POST"
                                               : (mode & 4) ? "DELETE"
                                                            : "GET",
                                .content_type = "application/json"};
        req.protocol_version = take_line(&data, &size, version, sizeof version);
        req.mcp_method = take_line(&data, &size, method, sizeof method);
        req.mcp_name = take_line(&data, &size, name, sizeof name);
        req.session_id = take_line(&data, &size, session, sizeof session);
        req.body = (const char *)data;
        req.body_len = size;
        mcp_http_response res;
        mcp_handle_http(srv, &req, &res);
        mcp_http_response_clear(&res);
    } else { /* stdio, before or after the 2025 handshake */
        mcp_stdio_state st = {.legacy_rev = (mode & 2) ? 1 : -1};
        char *reply = NULL;
        size_t len = 0;
        mcp_handle_stdio(srv, &st, (const char *)data, size, &reply, &len);
        free(reply);
        mcp_stdio_state_clear(&st); /* subscriptions a listen request opened */
    }
    return 0;
}
