/* One MCP session: initialize, notifications/initialized, the lists the server offers (every
   page), and the document oas/mcp.c loads. JSON-RPC requests are matched to answers by id;
   the server's own requests get "method not found" and its notifications are skipped. */
#include "mcpc/mcpc_int.h"

#include "apidex.h"

#include <json-c/json.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MCPC_PROTOCOL_VERSION "2025-06-18"

long long mcpc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

json_object *mcpc_json_parse(const char *text, size_t len)
{
    if (len > INT32_MAX) return NULL;
    json_tokener *tok = json_tokener_new_ex(MCPC_MAX_DEPTH);
    if (!tok) return NULL;
    json_object *o = json_tokener_parse_ex(tok, text, (int)len);
    if (json_tokener_get_error(tok) != json_tokener_success) {
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}

static bool is_http(const mcpc_conn *c)
{
    return c->srv->url != NULL;
}

int mcpc_session_refuse(mcpc_conn *c, json_object *id, apidex_error *err)
{
    /* a request of the server (roots/list, sampling...): we offer none of them */
    json_object *reply = json_object_new_object();
    json_object *e = json_object_new_object();
    json_object_object_add(reply, "jsonrpc", json_object_new_string("2.0"));
    json_object_object_add(reply, "id", json_object_get(id));
    json_object_object_add(e, "code", json_object_new_int(-32601));
    json_object_object_add(e, "message", json_object_new_string("method not found"));
    json_object_object_add(reply, "error", e);
    size_t rl = 0;
    const char *rt = json_object_to_json_string_length(reply, JSON_C_TO_STRING_PLAIN, &rl);
    int rc =
        rt ? mcpc_stdio_send(c, rt, rl, err) : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    json_object_put(reply);
    return rc;
}

/* Sends a message; for a request (id >= 0) waits for its answer. */
static int exchange(mcpc_conn *c, json_object *msg, long id, json_object **answer,
                    apidex_error *err)
{
    *answer = NULL;
    size_t len = 0;
    const char *text = json_object_to_json_string_length(msg, JSON_C_TO_STRING_PLAIN, &len);
    if (!text) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (is_http(c)) return mcpc_http_post(c, text, len, id, answer, err);
    int rc = mcpc_stdio_send(c, text, len, err);
    if (rc || id < 0) return rc;
    long long deadline = mcpc_now_ms() + c->timeout_ms;
    for (;;) {
        const char *line;
        size_t n;
        rc = mcpc_stdio_read(c, deadline, &line, &n, err);
        if (rc) return rc;
        while (n && (*line == ' ' || *line == '\t' || *line == '\r')) line++, n--;
        if (!n) continue;
        json_object *m = mcpc_json_parse(line, n);
        if (!m || !json_object_is_type(m, json_type_object)) {
            /* servers that log to stdout: not a message, skipped */
            json_object_put(m);
            continue;
        }
        json_object *mid = json_object_object_get(m, "id");
        json_object *method = json_object_object_get(m, "method");
        if (method && mid) {
            rc = mcpc_session_refuse(c, mid, err);
            json_object_put(m);
            if (rc) return rc;
            continue;
        }
        if (!method && mid && json_object_is_type(mid, json_type_int) &&
            json_object_get_int64(mid) == id) {
            *answer = m;
            return 0;
        }
        json_object_put(m); /* a notification, or an answer to nothing we asked */
    }
}

/* A request; *result: its result object (owned by *answer, which the caller puts). */
static int request(mcpc_conn *c, long id, const char *method, json_object *params,
                   json_object **answer, json_object **result, apidex_error *err)
{
    *result = NULL;
    json_object *msg = json_object_new_object();
    if (!msg) {
        json_object_put(params);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    json_object_object_add(msg, "jsonrpc", json_object_new_string("2.0"));
    json_object_object_add(msg, "id", json_object_new_int64(id));
    json_object_object_add(msg, "method", json_object_new_string(method));
    if (params) json_object_object_add(msg, "params", params);
    int rc = exchange(c, msg, id, answer, err);
    json_object_put(msg);
    if (rc) return rc;
    json_object *e = json_object_object_get(*answer, "error");
    if (e) {
        const char *em = json_object_get_string(json_object_object_get(e, "message"));
        return core_error_set(
            err, APIDEX_ESPEC, "server '%s' answered %s with error %d: %.300s", c->label, method,
            json_object_get_int(json_object_object_get(e, "code")), em ? em : "(no message)");
    }
    *result = json_object_object_get(*answer, "result");
    if (!json_object_is_type(*result, json_type_object))
        return core_error_set(err, APIDEX_ESPEC, "server '%s' answered %s without a result object",
                              c->label, method);
    return 0;
}

/* Every page of a list method ("tools/list" → key "tools"), appended to items. */
static int list_all(mcpc_conn *c, long *id, const char *method, const char *key, json_object *items,
                    apidex_error *err)
{
    char *cursor = NULL;
    int rc = 0;
    for (int page = 0; page < MCPC_MAX_PAGES && !rc; page++) {
        json_object *params = NULL;
        if (cursor) {
            params = json_object_new_object();
            json_object_object_add(params, "cursor", json_object_new_string(cursor));
        }
        json_object *answer = NULL, *result = NULL;
        rc = request(c, (*id)++, method, params, &answer, &result, err);
        free(cursor);
        cursor = NULL;
        if (!rc) {
            json_object *list = json_object_object_get(result, key);
            if (!json_object_is_type(list, json_type_array)) {
                rc =
                    core_error_set(err, APIDEX_ESPEC, "server '%s': the %s result has no '%s' list",
                                   c->label, method, key);
            } else {
                size_t n = json_object_array_length(list);
                for (size_t i = 0; i < n && json_object_array_length(items) < MCPC_MAX_ITEMS; i++)
                    json_object_array_add(items,
                                          json_object_get(json_object_array_get_idx(list, i)));
                const char *next =
                    json_object_get_string(json_object_object_get(result, "nextCursor"));
                if (next && *next && json_object_array_length(items) < MCPC_MAX_ITEMS) {
                    cursor = strdup(next);
                    if (!cursor) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
                }
            }
        }
        json_object_put(answer);
        if (!cursor) break;
    }
    free(cursor);
    return rc;
}

static json_object *initialize_params(void)
{
    json_object *p = json_object_new_object(), *info = json_object_new_object();
    json_object_object_add(p, "protocolVersion", json_object_new_string(MCPC_PROTOCOL_VERSION));
    json_object_object_add(p, "capabilities", json_object_new_object());
    json_object_object_add(info, "name", json_object_new_string("apidex"));
    json_object_object_add(info, "version", json_object_new_string(APIDEX_VERSION_STRING));
    json_object_object_add(p, "clientInfo", info);
    return p;
}

long mcpc_env_long(const char *name, long fallback)
{
    const char *e = getenv(name);
    char *end = NULL;
    long v = e ? strtol(e, &end, 10) : 0;
    return e && end && !*end && v > 0 ? v : fallback;
}

long mcpc_timeout_ms(const mcpc_options *opt)
{
    return opt && opt->timeout_ms > 0 ? opt->timeout_ms
                                      : mcpc_env_long("APIDEX_MCP_TIMEOUT_MS", 30000);
}

static int send_initialized(mcpc_conn *c, apidex_error *err)
{
    json_object *note = json_object_new_object(), *answer = NULL;
    json_object_object_add(note, "jsonrpc", json_object_new_string("2.0"));
    json_object_object_add(note, "method", json_object_new_string("notifications/initialized"));
    int rc = exchange(c, note, -1, &answer, err);
    json_object_put(note);
    return rc;
}

/* The session once connected: everything the document holds, into doc. */
static int read_server(mcpc_conn *c, json_object *doc, apidex_error *err)
{
    long id = 1;
    json_object *answer = NULL, *result = NULL;
    int rc = request(c, id++, "initialize", initialize_params(), &answer, &result, err);
    json_object *mcp = json_object_new_object();
    json_object_object_add(doc, "mcp", mcp);
    if (c->srv->name) json_object_object_add(mcp, "server", json_object_new_string(c->srv->name));
    json_object *caps = NULL;
    if (!rc) {
        json_object *pv = json_object_object_get(result, "protocolVersion");
        if (json_object_is_type(pv, json_type_string)) {
            json_object_object_add(mcp, "protocolVersion", json_object_get(pv));
            free(c->protocol_version);
            c->protocol_version = strdup(json_object_get_string(pv));
        }
        static const char *const keep[] = {"serverInfo", "instructions"};
        for (int k = 0; k < 2; k++) {
            json_object *v = json_object_object_get(result, keep[k]);
            if (v) json_object_object_add(mcp, keep[k], json_object_get(v));
        }
        caps = json_object_get(json_object_object_get(result, "capabilities"));
    }
    json_object_put(answer);
    if (rc) return rc;
    rc = send_initialized(c, err);
    json_object *tools = json_object_new_array();
    json_object_object_add(doc, "tools", tools);
    if (!rc) rc = list_all(c, &id, "tools/list", "tools", tools, err);
    /* resources and prompts only where offered; a failure there loses no tool */
    static const struct {
        const char *cap, *method, *key;
    } extra[] = {{"resources", "resources/list", "resources"},
                 {"resources", "resources/templates/list", "resourceTemplates"},
                 {"prompts", "prompts/list", "prompts"}};
    for (size_t k = 0; !rc && k < sizeof extra / sizeof *extra; k++) {
        if (!json_object_object_get(caps, extra[k].cap)) continue;
        json_object *items = json_object_new_array();
        apidex_error lerr;
        core_error_clear(&lerr);
        if (list_all(c, &id, extra[k].method, extra[k].key, items, &lerr) == 0)
            json_object_object_add(doc, extra[k].key, items);
        else
            json_object_put(items);
    }
    json_object_put(caps);
    return rc;
}

int mcpc_session_read(mcpc_conn *c, json_object *doc, apidex_error *err)
{
    return read_server(c, doc, err);
}

int mcpc_session_list(mcpc_conn *c, long *id, const char *method, const char *key,
                      json_object *items, apidex_error *err)
{
    return list_all(c, id, method, key, items, err);
}

int mcpc_session_drain(mcpc_conn *c, long wait_ms, bool *list_changed, apidex_error *err)
{
    enum { DRAIN_MAX_LINES = 1000 }; /* a chatty server cannot hold the caller */
    if (list_changed) *list_changed = false;
    struct pollfd pfd[2] = {{.fd = c->from_child, .events = POLLIN},
                            {.fd = c->child_err, .events = POLLIN}};
    if (c->from_child < 0)
        return core_error_set(err, APIDEX_ENET, "server '%s' is closed", c->label);
    /* nothing came (the usual case): no read, no wait */
    if (poll(pfd, c->child_err >= 0 ? 2 : 1, 0) == 0 && c->line.len == c->consumed) return 0;
    c->total = 0; /* the size limit holds per read, not over a kept-open session's life */
    long long deadline = mcpc_now_ms() + wait_ms;
    for (int k = 0; k < DRAIN_MAX_LINES; k++) {
        const char *line;
        size_t n;
        int rc = mcpc_stdio_read(c, deadline, &line, &n, err);
        if (rc && c->timed_out) {
            c->timed_out = false;
            core_error_clear(err);
            return 0;
        }
        if (rc) return rc;
        deadline = mcpc_now_ms(); /* the rest: only what has come already */
        json_object *m = mcpc_json_parse(line, n);
        json_object *method = json_object_object_get(m, "method");
        json_object *id = json_object_object_get(m, "id");
        const char *name = json_object_get_string(method);
        if (method && id)
            rc = mcpc_session_refuse(c, id, err);
        else if (name && list_changed && !strcmp(name, "notifications/tools/list_changed"))
            *list_changed = true;
        json_object_put(m);
        if (rc) return rc;
    }
    return 0;
}

/* ---------------------------------------------------------------- for call.c and pool.c */

int mcpc_session_request(mcpc_conn *c, long id, const char *method, json_object *params,
                         json_object **answer, json_object **result, apidex_error *err)
{
    return request(c, id, method, params, answer, result, err);
}

/* Connects c to srv (a stdio child or an HTTP endpoint) without a handshake: the one
 * place a connection's fields are set, for mcpc_list, mcpc_session_start and listen.c. */
int mcpc_session_open(mcpc_conn *c, const mcpc_server *srv, const mcpc_options *opt,
                      apidex_error *err)
{
    static const mcpc_options none = {0};
    *c = (mcpc_conn){
        .srv = srv, .opt = opt ? opt : &none, .to_child = -1, .from_child = -1, .child_err = -1};
    c->timeout_ms = mcpc_timeout_ms(c->opt);
    c->label = srv->name ? srv->name : srv->url ? srv->url : srv->argv ? srv->argv[0] : "?";
    if (!srv->url && (!srv->argv || !srv->argv[0] || !*srv->argv[0]))
        return core_error_set(err, APIDEX_EINVAL, "server '%s': no command and no url", c->label);
    return srv->url ? 0 : mcpc_stdio_open(c, err);
}

int mcpc_session_start(mcpc_conn *c, const mcpc_server *srv, const mcpc_options *opt,
                       apidex_error *err)
{
    int rc = mcpc_session_open(c, srv, opt, err);
    if (rc) return rc;
    json_object *answer = NULL, *result = NULL;
    rc = request(c, 1, "initialize", initialize_params(), &answer, &result, err);
    const char *pv =
        rc ? NULL : json_object_get_string(json_object_object_get(result, "protocolVersion"));
    if (pv && !(c->protocol_version = strdup(pv)))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    json_object_put(answer);
    if (!rc) rc = send_initialized(c, err);
    if (rc) mcpc_session_end(c);
    return rc;
}

void mcpc_session_end(mcpc_conn *c)
{
    if (c->srv && c->srv->url)
        mcpc_http_close(c);
    else
        mcpc_stdio_close(c);
    free(c->protocol_version);
    c->protocol_version = NULL;
}

int mcpc_list(const mcpc_server *srv, const mcpc_options *opt, char **out, size_t *len,
              apidex_error *err)
{
    *out = NULL;
    *len = 0;
    /* a server kept open (listen.c) answers from the session: its tools as last read */
    if (mcpc_live_document(srv, out, len)) return 0;
    mcpc_conn c;
    int rc = mcpc_session_open(&c, srv, opt, err);
    if (rc) return rc;
    json_object *doc = json_object_new_object();
    rc = doc ? read_server(&c, doc, err) : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    mcpc_session_end(&c);
    if (!rc) {
        size_t n = 0;
        const char *text = json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN, &n);
        *out = text ? malloc(n + 1) : NULL;
        if (*out) {
            memcpy(*out, text, n + 1);
            *len = n;
        } else {
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
        }
    }
    json_object_put(doc);
    return rc;
}
