/*
 * The MCP protocol core, dual-era: the 2026-07-28 revision (stateless: every
 * request carries its protocol version and client capabilities in _meta,
 * server/discover, resultType, cacheable lists) and the 2025-era revisions
 * (initialize handshake). Transports (mcp_transport.c) hand decoded messages
 * here and get back a JSON-RPC reply plus the HTTP status it deserves.
 *
 * How a message is classified follows the specification's dual-era rules:
 * a request whose params._meta holds io.modelcontextprotocol/protocolVersion
 * is modern, whatever its method; an `initialize` without that claim opens the
 * 2025-era handshake; anything else is served by the revision the process or
 * session negotiated. Each result carries exactly the members its revision's
 * schema defines.
 */
#include "serve/serve_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define META_VERSION  "io.modelcontextprotocol/protocolVersion"
#define META_CAPS     "io.modelcontextprotocol/clientCapabilities"
#define META_CLIENT   "io.modelcontextprotocol/clientInfo"
#define META_LOGLEVEL "io.modelcontextprotocol/logLevel"
#define META_SERVER   "io.modelcontextprotocol/serverInfo"

/* Newest first; index 0 is the only modern one. */
const mcp_rev_info mcp_revs[] = {
    {"2026-07-28", true, true, true, true, JRPC_INVALID_PARAMS},
    {"2025-11-25", false, true, true, true, MCP_RESOURCE_NOT_FOUND_2025},
    {"2025-06-18", false, true, true, true, MCP_RESOURCE_NOT_FOUND_2025},
    {"2025-03-26", false, false, true, false, MCP_RESOURCE_NOT_FOUND_2025},
    {"2024-11-05", false, false, false, false, MCP_RESOURCE_NOT_FOUND_2025},
};
const size_t mcp_n_revs = sizeof mcp_revs / sizeof mcp_revs[0];
const char *const mcp_supported_revisions[] = {"2026-07-28", "2025-11-25", "2025-06-18",
                                               "2025-03-26", "2024-11-05", NULL};
enum { REV_MODERN = 0, REV_LATEST_LEGACY = 1, REV_2025_11_25 = 1 };

/* The first modern revision; revision names are dates, so they sort as strings. */
#define FIRST_MODERN "2026-07-28"

static const char instructions[] =
    "apidex finds the API endpoints a task needs among the OpenAPI documents it has indexed, "
    "and hands over the details needed to call them. Typical use: search_endpoints with the "
    "task in plain words (adaptive=true returns just what the task needs, producers of "
    "required inputs first), then get_endpoint for the ids you will call. ask_api returns the "
    "documentation of a whole task at once, within a token budget; list_apis shows the APIs "
    "and the ids the filters take. Endpoints are named exactly as their spec names them "
    "(METHOD /path, operationId, API id). Resources apidex://apis/{api} and "
    "apidex://endpoints/{id} browse the same data; the prompt plan_api_calls starts a plan for "
    "a task from what the index knows.";

/* RFC 5424 severities, as MCP names them. */
static const char *const log_levels[] = {"debug",    "info",  "notice",    "warning", "error",
                                         "critical", "alert", "emergency", NULL};

static bool is_log_level(const char *lvl)
{
    for (size_t i = 0; lvl && log_levels[i]; i++)
        if (!strcmp(lvl, log_levels[i])) return true;
    return false;
}

/* Method names the metrics count; anything else is "other". */
static const char *const known_methods[] = {"initialize",
                                            "notifications/initialized",
                                            "ping",
                                            "server/discover",
                                            "tools/list",
                                            "tools/call",
                                            "resources/list",
                                            "resources/templates/list",
                                            "resources/read",
                                            "prompts/list",
                                            "prompts/get",
                                            "completion/complete",
                                            "logging/setLevel",
                                            "notifications/cancelled",
                                            "subscriptions/listen",
                                            NULL};

static const char *static_method(const char *m)
{
    for (size_t i = 0; m && known_methods[i]; i++)
        if (!strcmp(m, known_methods[i])) return known_methods[i];
    return m ? "other" : NULL;
}

int mcp_legacy_rev_index(const char *name)
{
    for (size_t i = REV_LATEST_LEGACY; name && i < mcp_n_revs; i++)
        if (!strcmp(name, mcp_revs[i].name)) return (int)i;
    return -1;
}

static bool names_modern(const char *version)
{
    return version && strcmp(version, FIRST_MODERN) >= 0;
}

static struct json_object *meta_of(struct json_object *params)
{
    struct json_object *meta;
    if (!params || !json_object_is_type(params, json_type_object) ||
        !json_object_object_get_ex(params, "_meta", &meta) ||
        !json_object_is_type(meta, json_type_object))
        return NULL;
    return meta;
}

/* The 2026-07-28 claim: the reserved protocol-version key is present in _meta
   (whatever its value; a malformed envelope is then an error, never legacy). */
static bool has_claim(struct json_object *params)
{
    struct json_object *meta = meta_of(params);
    return meta && json_object_object_get_ex(meta, META_VERSION, NULL);
}

static const char *claim_version(struct json_object *params)
{
    return serve_jget_str(meta_of(params), META_VERSION);
}

mcp_msg_class mcp_classify(const jrpc_msg *msg)
{
    if (msg->kind == JRPC_REQUEST || msg->kind == JRPC_NOTIFICATION) {
        if (has_claim(msg->params)) {
            /* An initialize only counts as modern when its claim names a modern
               revision; otherwise it stays the legacy handshake (as the SDKs do). */
            if (msg->kind == JRPC_REQUEST && !strcmp(msg->method, "initialize") &&
                !names_modern(claim_version(msg->params)))
                return MCP_MSG_INITIALIZE;
            return MCP_MSG_MODERN;
        }
        if (msg->kind == JRPC_REQUEST && !strcmp(msg->method, "initialize"))
            return MCP_MSG_INITIALIZE;
    }
    return MCP_MSG_LEGACY;
}

void mcp_outcome_error(mcp_outcome *out, struct json_object *id, int code, const char *message,
                       struct json_object *data, int status)
{
    out->reply = jrpc_error(id, code, message, data, &out->len);
    out->status = status;
}

/* ---------------------------------------------------------------- results */

static struct json_object *server_info(int rev)
{
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    serve_jadd(o, "name", json_object_new_string("apidex"));
    serve_jadd(o, "version", json_object_new_string(apidex_version()));
    if (mcp_revs[rev].tool_title) serve_jadd(o, "title", json_object_new_string("apidex"));
    if (rev <= REV_2025_11_25)
        serve_jadd(o, "description",
                   json_object_new_string("Finds the API endpoints a task needs in indexed "
                                          "OpenAPI documents"));
    return o;
}

/* Resource changes (index rebuilds) reach a 2026-07-28 client on its
   subscriptions/listen stream, and a 2025-era stdio client unsolicited; a
   2025-era HTTP client would need the GET stream, which is not offered. */
static struct json_object *capabilities(int rev, const mcp_ctx *ctx)
{
    struct json_object *caps = json_object_new_object(), *res = json_object_new_object();
    if (!caps || !res) {
        json_object_put(caps);
        json_object_put(res);
        return NULL;
    }
    serve_jadd(caps, "tools", json_object_new_object());
    if (mcp_revs[rev].modern) {
        serve_jadd(res, "subscribe", json_object_new_boolean(1));
        serve_jadd(res, "listChanged", json_object_new_boolean(1));
    } else if (!ctx->http) {
        serve_jadd(res, "listChanged", json_object_new_boolean(1));
    }
    serve_jadd(caps, "resources", res);
    /* The prompt set only changes with the binary: no listChanged. Completion has its
       capability from 2025-03-26 on (2024-11-05 had the method without one). */
    serve_jadd(caps, "prompts", json_object_new_object());
    /* 2025 era: logging/setLevel is accepted (apidex sends no log messages at any level);
       2026-07-28 replaced it with the per-request logLevel. */
    if (!mcp_revs[rev].modern) serve_jadd(caps, "logging", json_object_new_object());
    if (strcmp(mcp_revs[rev].name, "2025-03-26") >= 0)
        serve_jadd(caps, "completions", json_object_new_object());
    return caps;
}

/* Cache hints (2026-07-28 CacheableResult): the tool set only changes with the
   binary; the catalog can change with every index rebuild. */
static void add_cache(mcp_server *srv, struct json_object *r, int64_t ttl_ms)
{
    serve_jadd(r, "ttlMs", json_object_new_int64(ttl_ms));
    serve_jadd(r, "cacheScope", json_object_new_string(srv->private_cache ? "private" : "public"));
}

enum { TTL_STATIC_MS = 3600 * 1000, TTL_INDEX_MS = 60 * 1000, RESOURCES_PAGE = 200 };

/* ---------------------------------------------------------------- handlers */

typedef struct call {
    mcp_server *srv;
    int rev; /* index into mcp_revs */
    struct json_object *params;
    const mcp_ctx *ctx;
    const char *nul_at; /* jrpc_msg.nul_at: a NUL inside params.arguments of tools/call */
} call;

static int params_object(const call *c, mcp_error *e)
{
    if (c->params && !json_object_is_type(c->params, json_type_object))
        return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: params must be an object");
    return 0;
}

/* A cursor we handed out: "o<offset>". Anything else is invalid (-32602). */
static int parse_cursor(const call *c, size_t *offset, mcp_error *e)
{
    *offset = 0;
    struct json_object *cur;
    if (!c->params || !json_object_object_get_ex(c->params, "cursor", &cur) || !cur) return 0;
    const char *s = json_object_is_type(cur, json_type_string) ? json_object_get_string(cur) : NULL;
    char *end = NULL;
    unsigned long long v =
        s && s[0] == 'o' && s[1] >= '0' && s[1] <= '9' ? strtoull(s + 1, &end, 10) : 0;
    if (!end || *end || v > 100000000ULL) return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid cursor");
    *offset = (size_t)v;
    return 0;
}

static int h_ping(call *c, struct json_object **r, mcp_error *e)
{
    (void)c;
    (void)e;
    *r = json_object_new_object();
    return 0;
}

static int h_discover(call *c, struct json_object **r, mcp_error *e)
{
    (void)e;
    struct json_object *o = json_object_new_object(), *versions = json_object_new_array();
    if (!o || !versions) {
        json_object_put(o);
        json_object_put(versions);
        return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    }
    /* Only modern revisions: the 2025-era ones are reached through initialize. */
    for (size_t i = 0; i < mcp_n_revs; i++)
        if (mcp_revs[i].modern)
            json_object_array_add(versions, json_object_new_string(mcp_revs[i].name));
    serve_jadd(o, "supportedVersions", versions);
    serve_jadd(o, "capabilities", capabilities(c->rev, c->ctx));
    serve_jadd(o, "instructions", json_object_new_string(instructions));
    add_cache(c->srv, o, TTL_STATIC_MS);
    *r = o;
    return 0;
}

static int h_initialize(call *c, struct json_object **r, mcp_error *e)
{
    if (params_object(c, e)) return -1;
    const char *requested = serve_jget_str(c->params, "protocolVersion");
    if (!requested)
        return mcp_fail(e, JRPC_INVALID_PARAMS,
                        "Invalid params: initialize needs a \"protocolVersion\" string");
    struct json_object *caps;
    if (!json_object_object_get_ex(c->params, "capabilities", &caps) ||
        !json_object_is_type(caps, json_type_object))
        return mcp_fail(e, JRPC_INVALID_PARAMS,
                        "Invalid params: initialize needs a \"capabilities\" object");
    /* The requested revision when we speak it, else the latest 2025-era one (the
       client then decides whether it can go on). */
    int rev = mcp_legacy_rev_index(requested);
    if (rev < 0) rev = REV_LATEST_LEGACY;
    struct json_object *o = json_object_new_object();
    if (!o) return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    serve_jadd(o, "protocolVersion", json_object_new_string(mcp_revs[rev].name));
    serve_jadd(o, "capabilities", capabilities(rev, c->ctx));
    serve_jadd(o, "serverInfo", server_info(rev));
    serve_jadd(o, "instructions", json_object_new_string(instructions));
    c->rev = rev;
    *r = o;
    return 0;
}

/* The tools, templates and prompts fit one page: no nextCursor is ever issued for
   them, so only the cursor of their first page ("o0") is valid. */
static int static_list_cursor(const call *c, mcp_error *e)
{
    size_t offset;
    if (params_object(c, e) || parse_cursor(c, &offset, e)) return -1;
    if (offset != 0) return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid cursor");
    return 0;
}

static int h_tools_list(call *c, struct json_object **r, mcp_error *e)
{
    if (static_list_cursor(c, e)) return -1;
    struct json_object *o = json_object_new_object();
    if (!o) return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    serve_jadd(o, "tools", mcp_tools_list(c->srv, &mcp_revs[c->rev]));
    if (mcp_revs[c->rev].modern) add_cache(c->srv, o, TTL_STATIC_MS);
    *r = o;
    return 0;
}

#define ARGS_PREFIX "params.arguments."

static int h_tools_call(call *c, struct json_object **r, mcp_error *e)
{
    if (!c->params || !json_object_is_type(c->params, json_type_object))
        return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: tools/call needs params");
    if (c->nul_at && c->nul_at[0]) {
        /* A tool argument the model wrote: told as a tool error, which the model reads. */
        char text[200];
        snprintf(text, sizeof text,
                 "argument '%s' contains a NUL character (\\u0000): refused rather than cut "
                 "at it",
                 c->nul_at + strlen(ARGS_PREFIX));
        struct json_object *o = json_object_new_object(), *content = json_object_new_array(),
                           *item = json_object_new_object();
        if (!o || !content || !item) {
            json_object_put(o);
            json_object_put(content);
            json_object_put(item);
            return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
        }
        serve_jadd(item, "type", json_object_new_string("text"));
        serve_jadd(item, "text", json_object_new_string(text));
        json_object_array_add(content, item);
        serve_jadd(o, "content", content);
        serve_jadd(o, "isError", json_object_new_boolean(1));
        *r = o;
        return 0;
    }
    return mcp_tools_call(c->srv, &mcp_revs[c->rev], c->params, r, e);
}

static int h_resources_list(call *c, struct json_object **r, mcp_error *e)
{
    size_t offset, next = 0;
    if (params_object(c, e) || parse_cursor(c, &offset, e)) return -1;
    struct json_object *list = NULL;
    if (mcp_resources_list(c->srv->db, offset, RESOURCES_PAGE, &list, &next, e)) return -1;
    struct json_object *o = json_object_new_object();
    if (!o) {
        json_object_put(list);
        return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    }
    serve_jadd(o, "resources", list);
    if (next) {
        char cursor[32];
        snprintf(cursor, sizeof cursor, "o%zu", next);
        serve_jadd(o, "nextCursor", json_object_new_string(cursor));
    }
    if (mcp_revs[c->rev].modern) add_cache(c->srv, o, TTL_INDEX_MS);
    *r = o;
    return 0;
}

static int h_templates_list(call *c, struct json_object **r, mcp_error *e)
{
    if (static_list_cursor(c, e)) return -1;
    struct json_object *o = json_object_new_object();
    if (!o) return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    serve_jadd(o, "resourceTemplates", mcp_resource_templates());
    if (mcp_revs[c->rev].modern) add_cache(c->srv, o, TTL_STATIC_MS);
    *r = o;
    return 0;
}

static int h_resources_read(call *c, struct json_object **r, mcp_error *e)
{
    if (params_object(c, e)) return -1;
    struct json_object *uri;
    if (!c->params || !json_object_object_get_ex(c->params, "uri", &uri) ||
        !json_object_is_type(uri, json_type_string) ||
        !serve_text_ok(json_object_get_string(uri), (size_t)json_object_get_string_len(uri)))
        return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: \"uri\" must be a string");
    struct json_object *contents = NULL;
    if (mcp_resources_read(c->srv->db, &mcp_revs[c->rev], json_object_get_string(uri), &contents,
                           e))
        return -1;
    struct json_object *o = json_object_new_object();
    if (!o) {
        json_object_put(contents);
        return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    }
    serve_jadd(o, "contents", contents);
    if (mcp_revs[c->rev].modern) add_cache(c->srv, o, TTL_INDEX_MS);
    *r = o;
    return 0;
}

static int h_prompts_list(call *c, struct json_object **r, mcp_error *e)
{
    if (static_list_cursor(c, e)) return -1;
    struct json_object *o = json_object_new_object();
    if (!o) return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    serve_jadd(o, "prompts", mcp_prompts_list(&mcp_revs[c->rev]));
    if (mcp_revs[c->rev].modern) add_cache(c->srv, o, TTL_STATIC_MS);
    *r = o;
    return 0;
}

static int h_prompts_get(call *c, struct json_object **r, mcp_error *e)
{
    if (!c->params || !json_object_is_type(c->params, json_type_object))
        return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: prompts/get needs params");
    return mcp_prompts_get(c->srv, &mcp_revs[c->rev], c->params, r, e);
}

static int h_complete(call *c, struct json_object **r, mcp_error *e)
{
    if (params_object(c, e)) return -1;
    return mcp_complete(c->srv, c->params, r, e);
}

static int h_set_level(call *c, struct json_object **r, mcp_error *e)
{
    if (params_object(c, e)) return -1;
    if (!is_log_level(serve_jget_str(c->params, "level")))
        return mcp_fail(e, JRPC_INVALID_PARAMS,
                        "Invalid params: \"level\" must be a logging level (debug, info, notice, "
                        "warning, error, critical, alert, emergency)");
    *r = json_object_new_object();
    return *r ? 0 : mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
}

typedef int (*handler_fn)(call *, struct json_object **, mcp_error *);

typedef struct method_entry {
    const char *name;
    handler_fn fn;
    bool modern, legacy; /* which eras define it */
} method_entry;

static const method_entry methods[] = {
    {"server/discover", h_discover, true, false},
    {"ping", h_ping, false, true}, /* removed in 2026-07-28 */
    {"tools/list", h_tools_list, true, true},
    {"tools/call", h_tools_call, true, true},
    {"resources/list", h_resources_list, true, true},
    {"resources/templates/list", h_templates_list, true, true},
    {"resources/read", h_resources_read, true, true},
    {"prompts/list", h_prompts_list, true, true},
    {"prompts/get", h_prompts_get, true, true},
    {"completion/complete", h_complete, true, true},
    {"logging/setLevel", h_set_level, false, true}, /* removed in 2026-07-28 */
};

static const method_entry *find_method(const char *name, bool modern)
{
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (!strcmp(methods[i].name, name) && (modern ? methods[i].modern : methods[i].legacy))
            return &methods[i];
    return NULL;
}

/* ---------------------------------------------------------------- the 2026-07-28 envelope */

/* Checks the per-request _meta; returns NULL when fine, else what is wrong. */
static const char *envelope_problem(struct json_object *meta)
{
    struct json_object *v;
    if (!json_object_object_get_ex(meta, META_VERSION, &v) ||
        !json_object_is_type(v, json_type_string))
        return META_VERSION " must be a protocol version string";
    if (!json_object_object_get_ex(meta, META_CAPS, &v))
        return META_CAPS " is required (an empty object declares no capabilities)";
    if (!json_object_is_type(v, json_type_object)) return META_CAPS " must be an object";
    if (json_object_object_get_ex(meta, META_CLIENT, &v)) {
        if (!json_object_is_type(v, json_type_object) || !serve_jget_str(v, "name") ||
            !serve_jget_str(v, "version"))
            return META_CLIENT " must be an object with \"name\" and \"version\" strings";
    }
    if (json_object_object_get_ex(meta, META_LOGLEVEL, &v)) {
        if (!json_object_is_type(v, json_type_string) || !is_log_level(json_object_get_string(v)))
            return META_LOGLEVEL " must be a logging level";
    }
    return NULL;
}

/* Decodes an Mcp-Name / Mcp-Param value: plain, or "=?base64?...?=". NULL when invalid. */
static char *decode_header_value(const char *v)
{
    while (*v == ' ' || *v == '\t') v++;
    size_t n = strlen(v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
    static const char pre[] = "=?base64?", suf[] = "?=";
    if (n >= sizeof pre - 1 + sizeof suf - 1 && !strncmp(v, pre, sizeof pre - 1) &&
        !strncmp(v + n - (sizeof suf - 1), suf, sizeof suf - 1)) {
        const char *b = v + sizeof pre - 1;
        size_t bn = n - (sizeof pre - 1) - (sizeof suf - 1);
        if (bn % 4) return NULL;
        char *out = malloc(bn / 4 * 3 + 1);
        if (!out) return NULL;
        size_t o = 0;
        for (size_t i = 0; i < bn; i += 4) {
            int q[4];
            for (int k = 0; k < 4; k++) {
                char ch = b[i + k];
                q[k] = ch >= 'A' && ch <= 'Z'               ? ch - 'A'
                       : ch >= 'a' && ch <= 'z'             ? ch - 'a' + 26
                       : ch >= '0' && ch <= '9'             ? ch - '0' + 52
                       : ch == '+'                          ? 62
                       : ch == '/'                          ? 63
                       : ch == '=' && i + 4 == bn && k >= 2 ? -2
                                                            : -1;
                if (q[k] == -1 || (k == 3 && q[2] == -2 && q[3] != -2)) {
                    free(out);
                    return NULL;
                }
            }
            out[o++] = (char)(q[0] << 2 | q[1] >> 4);
            if (q[2] >= 0) out[o++] = (char)((q[1] & 15) << 4 | q[2] >> 2);
            if (q[3] >= 0) out[o++] = (char)((q[2] & 3) << 6 | q[3]);
        }
        out[o] = '\0';
        if (!serve_text_ok(out, o)) {
            free(out);
            return NULL;
        }
        return out;
    }
    char *out = malloc(n + 1);
    if (!out) return NULL;
    memcpy(out, v, n);
    out[n] = '\0';
    return out;
}

/* The Streamable HTTP header rules of 2026-07-28 (MCP-Protocol-Version,
   Mcp-Method, Mcp-Name must be present and agree with the body). */
static bool http_headers_agree(const mcp_http_request *h, const jrpc_msg *m, const char *version,
                               mcp_outcome *out)
{
    char why[400];
    if (!h->protocol_version) {
        snprintf(why, sizeof why,
                 "Header mismatch: the body names protocol version %.40s but the required "
                 "MCP-Protocol-Version header is absent",
                 version);
    } else if (!h->mcp_method) {
        snprintf(why, sizeof why,
                 "Header mismatch: the body names method %.80s but the required Mcp-Method header "
                 "is absent",
                 m->method);
    } else {
        const char *field = !strcmp(m->method, "tools/call") || !strcmp(m->method, "prompts/get")
                                ? "name"
                            : !strcmp(m->method, "resources/read") ? "uri"
                                                                   : NULL;
        const char *body = field ? serve_jget_str(m->params, field) : NULL;
        if (!body) return true;
        if (!h->mcp_name) {
            snprintf(why, sizeof why,
                     "Header mismatch: the body carries params.%s but the required Mcp-Name header "
                     "is absent",
                     field);
        } else {
            char *decoded = decode_header_value(h->mcp_name);
            bool same = decoded && !strcmp(decoded, body);
            if (same) {
                free(decoded);
                return true;
            }
            snprintf(
                why, sizeof why,
                decoded
                    ? "Header mismatch: Mcp-Name header value '%.100s' does not match "
                      "body value '%.100s'"
                    : "Header mismatch: Mcp-Name header carries an invalid Base64 value%.0s%.0s",
                decoded ? decoded : "", body);
            free(decoded);
        }
    }
    mcp_outcome_error(out, m->id, MCP_HEADER_MISMATCH, why, NULL, 400);
    return false;
}

/* ---------------------------------------------------------------- subscriptions/listen */

enum { MAX_LISTEN_URIS = 64, MAX_URI = 2048 };

#define META_SUBSCRIPTION "io.modelcontextprotocol/subscriptionId"

void mcp_listen_free(mcp_listen *l)
{
    if (!l) return;
    for (size_t i = 0; i < l->n_uris; i++) free(l->uris[i]);
    free(l->uris);
    free(l->id_json);
    free(l);
}

void mcp_outcome_clear(mcp_outcome *o)
{
    if (!o) return;
    free(o->reply);
    mcp_listen_free(o->listen);
    free(o->cancelled_id);
    memset(o, 0, sizeof *o);
}

/* A notification whose params carry the subscription id (and maybe a uri). */
static bool listen_note(core_buf *b, const mcp_listen *l, const char *method, const char *uri)
{
    struct json_object *o = json_object_new_object(), *params = json_object_new_object(),
                       *meta = json_object_new_object();
    if (!o || !params || !meta) {
        json_object_put(o);
        json_object_put(params);
        json_object_put(meta);
        return false;
    }
    serve_jadd(o, "jsonrpc", json_object_new_string("2.0"));
    serve_jadd(o, "method", json_object_new_string(method));
    if (uri) serve_jadd(params, "uri", json_object_new_string(uri));
    serve_jadd(meta, META_SUBSCRIPTION, json_tokener_parse(l->id_json));
    serve_jadd(params, "_meta", meta);
    serve_jadd(o, "params", params);
    size_t n = 0;
    char *text = serve_json_dump(o, &n);
    json_object_put(o);
    if (!text) return false;
    if (b->len) core_buf_putc(b, '\n');
    core_buf_append(b, text, n);
    free(text);
    return !b->failed;
}

char *mcp_listen_changes(const mcp_listen *l, size_t *len)
{
    core_buf b;
    core_buf_init(&b, 1 << 20);
    bool ok = true;
    if (l->resources_list) ok = listen_note(&b, l, "notifications/resources/list_changed", NULL);
    /* A rebuild may have changed any resource: every subscribed one is reported. */
    for (size_t i = 0; ok && i < l->n_uris; i++)
        ok = listen_note(&b, l, "notifications/resources/updated", l->uris[i]);
    if (!ok || !b.len) {
        core_buf_free(&b);
        *len = 0;
        return NULL;
    }
    *len = b.len;
    return core_buf_steal(&b, NULL);
}

char *mcp_listen_close(const mcp_listen *l, size_t *len)
{
    struct json_object *id = json_tokener_parse(l->id_json);
    struct json_object *r = json_object_new_object(), *meta = json_object_new_object();
    if (!r || !meta) {
        json_object_put(id);
        json_object_put(r);
        json_object_put(meta);
        return NULL;
    }
    serve_jadd(r, "resultType", json_object_new_string("complete"));
    serve_jadd(meta, META_SUBSCRIPTION, json_object_get(id));
    serve_jadd(meta, META_SERVER, server_info(REV_MODERN));
    serve_jadd(r, "_meta", meta);
    char *text = jrpc_result(id, r, len);
    json_object_put(id);
    return text;
}

/* Opens a subscription: the reply is the acknowledgement notification, naming
   the subset of the filter we honour (resource changes; the prompt and
   tool lists never change). The request itself stays open. */
static void open_listen(const jrpc_msg *m, mcp_outcome *out, bool http)
{
    struct json_object *filter = NULL;
    if (!json_object_object_get_ex(m->params, "notifications", &filter) ||
        !json_object_is_type(filter, json_type_object)) {
        mcp_outcome_error(out, m->id, JRPC_INVALID_PARAMS,
                          "Invalid params: subscriptions/listen needs a \"notifications\" object",
                          NULL, http ? 400 : 200);
        return;
    }
    mcp_listen *l = calloc(1, sizeof *l);
    struct json_object *honored = json_object_new_object();
    if (!l || !honored) goto oom;
    const char *id_text = json_object_to_json_string_ext(m->id, JSON_C_TO_STRING_PLAIN);
    if (!id_text || !(l->id_json = strdup(id_text))) goto oom;
    struct json_object *v;
    if (json_object_object_get_ex(filter, "resourcesListChanged", &v) &&
        json_object_get_boolean(v)) {
        l->resources_list = true;
        serve_jadd(honored, "resourcesListChanged", json_object_new_boolean(1));
    }
    if (json_object_object_get_ex(filter, "resourceSubscriptions", &v)) {
        size_t n = json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
        if (!json_object_is_type(v, json_type_array) || n > MAX_LISTEN_URIS) {
            mcp_listen_free(l);
            json_object_put(honored);
            mcp_outcome_error(out, m->id, JRPC_INVALID_PARAMS,
                              "Invalid params: resourceSubscriptions must be an array of at most "
                              "64 URIs",
                              NULL, http ? 400 : 200);
            return;
        }
        struct json_object *uris = json_object_new_array();
        l->uris = calloc(n ? n : 1, sizeof *l->uris);
        if (!uris || !l->uris) {
            json_object_put(uris);
            goto oom;
        }
        for (size_t i = 0; i < n; i++) {
            struct json_object *u = json_object_array_get_idx(v, i);
            size_t ul = json_object_is_type(u, json_type_string)
                            ? (size_t)json_object_get_string_len(u)
                            : 0;
            if (!ul || ul > MAX_URI || !serve_text_ok(json_object_get_string(u), ul)) continue;
            if (!(l->uris[l->n_uris] = strdup(json_object_get_string(u)))) break;
            json_object_array_add(uris, json_object_new_string(l->uris[l->n_uris++]));
        }
        if (l->n_uris)
            serve_jadd(honored, "resourceSubscriptions", uris);
        else
            json_object_put(uris);
    }
    struct json_object *o = json_object_new_object(), *params = json_object_new_object(),
                       *meta = json_object_new_object();
    if (!o || !params || !meta) {
        json_object_put(o);
        json_object_put(params);
        json_object_put(meta);
        goto oom;
    }
    serve_jadd(o, "jsonrpc", json_object_new_string("2.0"));
    serve_jadd(o, "method", json_object_new_string("notifications/subscriptions/acknowledged"));
    serve_jadd(params, "notifications", honored);
    honored = NULL;
    serve_jadd(meta, META_SUBSCRIPTION, json_object_get(m->id));
    serve_jadd(params, "_meta", meta);
    serve_jadd(o, "params", params);
    out->reply = serve_json_dump(o, &out->len);
    json_object_put(o);
    if (!out->reply) goto oom;
    out->listen = l;
    out->status = 200;
    return;
oom:
    json_object_put(honored);
    mcp_listen_free(l);
    mcp_outcome_error(out, m->id, JRPC_INTERNAL_ERROR, "out of memory", NULL, 500);
}

/* notifications/cancelled: the transport ends a listen stream it names. */
static void note_cancel(const jrpc_msg *m, mcp_outcome *out)
{
    struct json_object *rid;
    if (!m->params || !json_object_object_get_ex(m->params, "requestId", &rid) ||
        !(json_object_is_type(rid, json_type_string) || json_object_is_type(rid, json_type_int)))
        return;
    const char *text = json_object_to_json_string_ext(rid, JSON_C_TO_STRING_PLAIN);
    if (text) out->cancelled_id = strdup(text);
}

/* ---------------------------------------------------------------- dispatch */

static void finish(call *c, const jrpc_msg *m, int rc, struct json_object *result, mcp_error *e,
                   mcp_outcome *out, bool http_modern)
{
    if (rc) {
        int status = 200;
        if (http_modern && e->code == JRPC_METHOD_NOT_FOUND) status = 404;
        mcp_outcome_error(out, m->id, e->code, e->message, e->data, status);
        e->data = NULL;
        return;
    }
    if (!result) {
        mcp_outcome_error(out, m->id, JRPC_INTERNAL_ERROR, "out of memory", NULL, 500);
        return;
    }
    if (mcp_revs[c->rev].modern) {
        serve_jadd(result, "resultType", json_object_new_string("complete"));
        struct json_object *meta = NULL;
        if (!json_object_object_get_ex(result, "_meta", &meta)) {
            meta = json_object_new_object();
            serve_jadd(result, "_meta", meta);
        }
        if (meta) serve_jadd(meta, META_SERVER, server_info(c->rev));
    }
    out->reply = jrpc_result(m->id, result, &out->len);
    out->status = out->reply ? 200 : 500;
}

static void dispatch_modern(mcp_server *srv, const mcp_ctx *ctx, jrpc_msg *m, mcp_outcome *out)
{
    const mcp_http_request *h = ctx->http;
    struct json_object *meta = meta_of(m->params);
    const char *problem = meta ? envelope_problem(meta) : "_meta must be an object";
    if (problem) {
        char why[300];
        snprintf(why, sizeof why, "Invalid params: %s", problem);
        mcp_outcome_error(out, m->id, JRPC_INVALID_PARAMS, why, NULL, 400);
        return;
    }
    const char *version = claim_version(m->params);
    if (h) {
        char why[300];
        if (h->protocol_version && strcmp(h->protocol_version, version)) {
            snprintf(why, sizeof why,
                     "Header mismatch: MCP-Protocol-Version header value '%.40s' does not match "
                     "body value '%.40s'",
                     h->protocol_version, version);
            mcp_outcome_error(out, m->id, MCP_HEADER_MISMATCH, why, NULL, 400);
            return;
        }
        if (h->mcp_method && strcmp(h->mcp_method, m->method)) {
            snprintf(why, sizeof why,
                     "Header mismatch: Mcp-Method header value '%.80s' does not match body value "
                     "'%.80s'",
                     h->mcp_method, m->method);
            mcp_outcome_error(out, m->id, MCP_HEADER_MISMATCH, why, NULL, 400);
            return;
        }
    }
    int rev = -1;
    for (size_t i = 0; i < mcp_n_revs; i++)
        if (mcp_revs[i].modern && !strcmp(mcp_revs[i].name, version)) rev = (int)i;
    if (rev < 0) {
        struct json_object *data = json_object_new_object(), *sup = json_object_new_array();
        for (size_t i = 0; sup && i < mcp_n_revs; i++)
            if (mcp_revs[i].modern)
                json_object_array_add(sup, json_object_new_string(mcp_revs[i].name));
        if (data) {
            serve_jadd(data, "supported", sup);
            serve_jadd(data, "requested", json_object_new_string(version));
        } else {
            json_object_put(sup);
        }
        mcp_outcome_error(out, m->id, MCP_UNSUPPORTED_PROTOCOL_VERSION,
                          "Unsupported protocol version", data, 400);
        return;
    }
    if (h && m->kind == JRPC_REQUEST && !http_headers_agree(h, m, version, out)) return;
    if (m->kind == JRPC_NOTIFICATION) {
        if (!strcmp(m->method, "notifications/cancelled")) note_cancel(m, out);
        out->status = 202;
        return;
    }
    if (!strcmp(m->method, "subscriptions/listen")) {
        open_listen(m, out, h != NULL);
        return;
    }
    const method_entry *me = find_method(m->method, true);
    if (!me) {
        char why[300];
        snprintf(why, sizeof why, "Method not found: %.200s", m->method);
        mcp_outcome_error(out, m->id, JRPC_METHOD_NOT_FOUND, why, NULL, h ? 404 : 200);
        return;
    }
    call c = {.srv = srv, .rev = rev, .params = m->params, .ctx = ctx, .nul_at = m->nul_at};
    struct json_object *result = NULL;
    mcp_error e = {0};
    int rc = me->fn(&c, &result, &e);
    finish(&c, m, rc, result, &e, out, h != NULL);
}

static void dispatch_legacy(mcp_server *srv, const mcp_ctx *ctx, jrpc_msg *m, mcp_outcome *out)
{
    out->legacy = true;
    const mcp_http_request *h = ctx->http;
    if (h && names_modern(h->protocol_version)) {
        /* A modern header without the body envelope: the envelope is what is missing. */
        if (m->kind == JRPC_NOTIFICATION) {
            out->status = 202;
            return;
        }
        mcp_outcome_error(out, m->id, JRPC_INVALID_PARAMS,
                          "Invalid params: the MCP-Protocol-Version header names a 2026-07-28 "
                          "revision but params._meta lacks " META_VERSION " and " META_CAPS,
                          NULL, 400);
        return;
    }
    if (m->kind != JRPC_REQUEST) { /* notifications and responses: nothing to answer */
        if (m->kind == JRPC_NOTIFICATION && !strcmp(m->method, "notifications/cancelled"))
            note_cancel(m, out);
        out->status = 202;
        return;
    }
    if (!strcmp(m->method, "initialize")) {
        call c = {.srv = srv, .rev = REV_LATEST_LEGACY, .params = m->params, .ctx = ctx};
        struct json_object *result = NULL;
        mcp_error e = {0};
        int rc = h_initialize(&c, &result, &e);
        if (!rc) out->new_legacy_rev = c.rev;
        finish(&c, m, rc, result, &e, out, false);
        return;
    }
    const method_entry *me = find_method(m->method, false);
    if (ctx->legacy_rev < 0 && (!me || strcmp(m->method, "ping"))) {
        mcp_outcome_error(out, m->id, JRPC_INVALID_PARAMS,
                          "Invalid params: no protocol version: send initialize first (2025-11-25 "
                          "and earlier), or put " META_VERSION " and " META_CAPS
                          " in params._meta (2026-07-28)",
                          NULL, 400);
        return;
    }
    if (!me) {
        char why[300];
        snprintf(why, sizeof why, "Method not found: %.200s", m->method);
        mcp_outcome_error(out, m->id, JRPC_METHOD_NOT_FOUND, why, NULL, 200);
        return;
    }
    call c = {.srv = srv,
              .rev = ctx->legacy_rev >= 0 ? ctx->legacy_rev : REV_LATEST_LEGACY,
              .params = m->params,
              .ctx = ctx,
              .nul_at = m->nul_at};
    struct json_object *result = NULL;
    mcp_error e = {0};
    int rc = me->fn(&c, &result, &e);
    finish(&c, m, rc, result, &e, out, false);
}

void mcp_dispatch(mcp_server *srv, const mcp_ctx *ctx, jrpc_msg *m, mcp_outcome *out)
{
    memset(out, 0, sizeof *out);
    out->new_legacy_rev = -1;
    out->status = 200;
    out->rpc_method = static_method(m->method);
    if (m->kind == JRPC_BATCH) {
        mcp_outcome_error(out, NULL, JRPC_INVALID_REQUEST,
                          "Invalid Request: JSON-RPC batches are not supported by these protocol "
                          "revisions",
                          NULL, 400);
        return;
    }
    if (m->kind == JRPC_RESPONSE) { /* we never send requests, so nothing awaits it */
        out->status = 202;
        return;
    }
    /* A NUL in a string: C strings would act on the value cut at it (a tool name, a
       uri, a protocol version), so the message is refused, naming where. A tool's own
       argument is the tool's error instead (h_tools_call). */
    if (m->nul_at[0] && !(!strcmp(m->method, "tools/call") &&
                          !strncmp(m->nul_at, ARGS_PREFIX, strlen(ARGS_PREFIX)))) {
        if (m->kind == JRPC_NOTIFICATION) {
            out->status = 202;
            return;
        }
        char why[200];
        snprintf(why, sizeof why,
                 "Invalid params: %s contains a NUL character (\\u0000): refused rather than cut "
                 "at it",
                 m->nul_at);
        mcp_outcome_error(out, m->id, JRPC_INVALID_PARAMS, why, NULL, ctx->http ? 400 : 200);
        return;
    }
    switch (mcp_classify(m)) {
    case MCP_MSG_MODERN:
        dispatch_modern(srv, ctx, m, out);
        break;
    case MCP_MSG_INITIALIZE:
        if (ctx->http && names_modern(ctx->http->protocol_version)) {
            mcp_outcome_error(out, m->id, MCP_HEADER_MISMATCH,
                              "Header mismatch: an initialize request (2025-era handshake) was "
                              "sent with a 2026-07-28 MCP-Protocol-Version header",
                              NULL, 400);
            break;
        }
        dispatch_legacy(srv, ctx, m, out);
        break;
    case MCP_MSG_LEGACY:
        dispatch_legacy(srv, ctx, m, out);
        break;
    }
}
