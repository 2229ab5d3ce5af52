/*
 * JSON-RPC 2.0 framing for MCP: decode one message strictly (the shapes MCP's
 * schema allows), and encode results and errors. The MCP layer above decides
 * what methods mean; this file only decides what a well-formed message is.
 */
#include "serve/serve_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int invalid(jrpc_msg *m, char *why, size_t why_size, int code, const char *text)
{
    (void)m;
    if (why && why_size) snprintf(why, why_size, "%s", text);
    return code;
}

/* MCP's RequestId: a string or an integer (JSON-RPC's null is excluded). */
static bool id_ok(struct json_object *id)
{
    if (json_object_is_type(id, json_type_string)) return true;
    if (json_object_is_type(id, json_type_int)) return true;
    /* numbers with a fraction are legal JSON-RPC ids, if discouraged */
    return json_object_is_type(id, json_type_double);
}

/* Whether the JSON text holds the escape \u0000 (any case of hex digits) in a string.
   The text is valid JSON, so a backslash is always inside a string and starts an
   escape: skipping each escape whole keeps "\\u0000" (a backslash, then text) apart. */
static bool has_nul_escape(const char *text, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (text[i] != '\\') continue;
        if (text[i + 1] == 'u' && i + 5 < len && !memcmp(text + i + 2, "0000", 4)) return true;
        i++; /* past the escaped character */
    }
    return false;
}

/* The first string value holding a NUL, as a path below `at` (at[0..size) grows and is
   restored on the way out). Depth is bounded by the parser's limit. */
static bool find_nul_value(struct json_object *v, char *at, size_t size)
{
    size_t base = strlen(at);
    if (json_object_is_type(v, json_type_string))
        return strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v);
    if (json_object_is_type(v, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(v); i++) {
            snprintf(at + base, size - base, "[%zu]", i);
            if (find_nul_value(json_object_array_get_idx(v, i), at, size)) return true;
        }
    } else if (json_object_is_type(v, json_type_object)) {
        json_object_object_foreach(v, key, val)
        {
            snprintf(at + base, size - base, "%s%.60s", base ? "." : "", key);
            if (find_nul_value(val, at, size)) return true;
        }
    }
    at[base] = '\0';
    return false;
}

bool serve_json_nul_at(const char *text, size_t len, struct json_object *root, const char *prefix,
                       char *at, size_t size)
{
    if (!size) return false;
    at[0] = '\0';
    if (!text || !has_nul_escape(text, len)) return false;
    snprintf(at, size, "%s", prefix ? prefix : "");
    if (root && find_nul_value(root, at, size)) return true;
    /* Present in the text, in no value: json-c cut a member name at it. */
    snprintf(at, size, "a member name");
    return true;
}

static const char *json_type_said(struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        return "null";
    case json_type_boolean:
        return "a boolean";
    case json_type_double:
    case json_type_int:
        return "a number";
    case json_type_string:
        return "a string";
    default:
        return "another JSON value";
    }
}

int jrpc_parse(const char *text, size_t len, jrpc_msg *m, char *why, size_t why_size)
{
    memset(m, 0, sizeof *m);
    if (why && why_size) why[0] = '\0';
    if (len > (size_t)INT32_MAX)
        return invalid(m, why, why_size, JRPC_PARSE_ERROR, "message too large");
    struct json_tokener *tok = json_tokener_new_ex(JRPC_MAX_DEPTH);
    if (!tok) return invalid(m, why, why_size, JRPC_INTERNAL_ERROR, "out of memory");
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    struct json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = (size_t)json_tokener_get_parse_end(tok);
    if (jerr == json_tokener_continue && !root) {
        /* A bare number or literal ends only at a delimiter: give it one. */
        root = json_tokener_parse_ex(tok, " ", 1);
        jerr = json_tokener_get_error(tok);
        used = len;
    }
    json_tokener_free(tok);
    if (jerr == json_tokener_success && !root) /* the text was `null` (json-c's NULL object) */
        return invalid(m, why, why_size, JRPC_INVALID_REQUEST,
                       "Invalid Request: a message must be a JSON object, not null");
    if (jerr != json_tokener_success || !root) {
        json_object_put(root);
        char msg[160];
        snprintf(msg, sizeof msg, "Parse error: %s",
                 jerr == json_tokener_continue ? "unexpected end of input"
                                               : json_tokener_error_desc(jerr));
        return invalid(m, why, why_size, JRPC_PARSE_ERROR, msg);
    }
    /* Only whitespace may follow the value (one message per line or body). */
    for (size_t i = used; i < len; i++)
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '\n') {
            json_object_put(root);
            return invalid(m, why, why_size, JRPC_PARSE_ERROR,
                           "Parse error: trailing data after the JSON value");
        }
    m->root = root;
    /* (an id is echoed whole, never read as a C string: a NUL there harms nothing) */
    if (serve_json_nul_at(text, len, root, NULL, m->nul_at, sizeof m->nul_at) &&
        !strcmp(m->nul_at, "id"))
        m->nul_at[0] = '\0';
    if (json_object_is_type(root, json_type_array)) {
        m->kind = JRPC_BATCH;
        return 0;
    }
    if (!json_object_is_type(root, json_type_object)) {
        char msg[96];
        snprintf(msg, sizeof msg, "Invalid Request: a message must be a JSON object, not %s",
                 json_type_said(root));
        return invalid(m, why, why_size, JRPC_INVALID_REQUEST, msg);
    }

    struct json_object *v = NULL, *id = NULL, *method = NULL;
    bool has_id = json_object_object_get_ex(root, "id", &id);
    if (has_id && id && id_ok(id)) m->id = id;
    if (!json_object_object_get_ex(root, "jsonrpc", &v) ||
        !json_object_is_type(v, json_type_string) || strcmp(json_object_get_string(v), "2.0") != 0)
        return invalid(m, why, why_size, JRPC_INVALID_REQUEST,
                       "Invalid Request: \"jsonrpc\" must be \"2.0\"");
    if (has_id && !m->id)
        return invalid(m, why, why_size, JRPC_INVALID_REQUEST,
                       "Invalid Request: \"id\" must be a string or an integer (not null)");

    if (json_object_object_get_ex(root, "method", &method)) {
        if (!json_object_is_type(method, json_type_string))
            return invalid(m, why, why_size, JRPC_INVALID_REQUEST,
                           "Invalid Request: \"method\" must be a string");
        size_t mlen = (size_t)json_object_get_string_len(method);
        if (mlen == 0 || mlen > 256 || !serve_text_ok(json_object_get_string(method), mlen))
            return invalid(m, why, why_size, JRPC_INVALID_REQUEST,
                           "Invalid Request: \"method\" must be a short non-empty text");
        if (json_object_object_get_ex(root, "result", NULL) ||
            json_object_object_get_ex(root, "error", NULL))
            return invalid(m, why, why_size, JRPC_INVALID_REQUEST,
                           "Invalid Request: a request cannot carry \"result\" or \"error\"");
        m->method = json_object_get_string(method);
        if (json_object_object_get_ex(root, "params", &v)) m->params = v;
        m->kind = has_id ? JRPC_REQUEST : JRPC_NOTIFICATION;
        return 0;
    }
    bool has_result = json_object_object_get_ex(root, "result", NULL);
    struct json_object *error = NULL;
    bool has_error = json_object_object_get_ex(root, "error", &error);
    if (has_result != has_error && (has_id || has_error)) {
        if (has_error && !json_object_is_type(error, json_type_object))
            return invalid(m, why, why_size, JRPC_INVALID_REQUEST,
                           "Invalid Request: \"error\" must be an object");
        m->kind = JRPC_RESPONSE;
        return 0;
    }
    return invalid(m, why, why_size, JRPC_INVALID_REQUEST,
                   "Invalid Request: neither a request, a notification nor a response");
}

void jrpc_msg_free(jrpc_msg *m)
{
    if (!m) return;
    json_object_put(m->root);
    memset(m, 0, sizeof *m);
}

char *serve_json_dump(struct json_object *obj, size_t *len)
{
    size_t n = 0;
    const char *s = json_object_to_json_string_length(
        obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
    if (!s) return NULL;
    char *copy = malloc(n + 1);
    if (!copy) return NULL;
    memcpy(copy, s, n + 1);
    if (len) *len = n;
    return copy;
}

static struct json_object *envelope(struct json_object *id)
{
    struct json_object *o = json_object_new_object();
    if (!o) return NULL;
    json_object_object_add(o, "jsonrpc", json_object_new_string("2.0"));
    if (id) json_object_object_add(o, "id", json_object_get(id));
    return o;
}

char *jrpc_result(struct json_object *id, struct json_object *result, size_t *len)
{
    struct json_object *o = envelope(id);
    if (!o) {
        json_object_put(result);
        return NULL;
    }
    json_object_object_add(o, "result", result);
    char *s = serve_json_dump(o, len);
    json_object_put(o);
    return s;
}

char *jrpc_error(struct json_object *id, int code, const char *message, struct json_object *data,
                 size_t *len)
{
    struct json_object *o = envelope(id), *e = json_object_new_object();
    if (!o || !e) {
        json_object_put(o);
        json_object_put(e);
        json_object_put(data);
        return NULL;
    }
    json_object_object_add(e, "code", json_object_new_int(code));
    json_object_object_add(e, "message", json_object_new_string(message ? message : ""));
    if (data) json_object_object_add(e, "data", data);
    json_object_object_add(o, "error", e);
    char *s = serve_json_dump(o, len);
    json_object_put(o);
    return s;
}

struct json_object *serve_json_object_parse(const char *text, size_t len)
{
    struct json_tokener *tok = json_tokener_new_ex(JRPC_MAX_DEPTH);
    if (!tok) return NULL;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    struct json_object *o = json_tokener_parse_ex(tok, text ? text : "", (int)len);
    bool parsed = json_tokener_get_error(tok) == json_tokener_success;
    size_t end = (size_t)json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    for (size_t i = end; parsed && i < len; i++)
        if (!strchr(" \t\r\n", text[i])) parsed = false;
    if (!parsed || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return NULL;
    }
    return o;
}
