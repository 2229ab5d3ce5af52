/* Shared by test_core_json_parity and fuzz_core_json: reads one text with jt_parse_json and
   with json-c 0.16 as apidex did before (tokener, trailing-data check, copy of the tree),
   and says where the two differ: acceptance, the kind of error, or the tree. */
#ifndef APIDEX_CORE_JSON_PARITY_H
#define APIDEX_CORE_JSON_PARITY_H

#include "core/jtree_int.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compares a json-c value with a jt node; 0 when equal, else writes why into why. */
static int parity_same(struct json_object *jo, const jt_node *n, char *why, size_t cap,
                       unsigned depth)
{
    if (!n) return snprintf(why, cap, "missing node"), 1;
    if (depth > 100000) return snprintf(why, cap, "too deep"), 1;
    switch (json_object_get_type(jo)) {
    case json_type_null:
        if (n->type != JT_NULL) return snprintf(why, cap, "null vs type %d", n->type), 1;
        return 0;
    case json_type_boolean:
        if (n->type != JT_BOOL || !n->boolean != !json_object_get_boolean(jo))
            return snprintf(why, cap, "boolean differs"), 1;
        return 0;
    case json_type_int:
        if (n->type != JT_INT || n->u.i != json_object_get_int64(jo))
            return snprintf(why, cap, "int %lld differs", (long long)json_object_get_int64(jo)), 1;
        return 0;
    case json_type_double: {
        double d = json_object_get_double(jo);
        if (n->type != JT_REAL || !(isnan(d) ? isnan(n->u.d) : memcmp(&d, &n->u.d, sizeof d) == 0))
            return snprintf(why, cap, "double %.17g differs", d), 1;
        return 0;
    }
    case json_type_string: {
        size_t len = (size_t)json_object_get_string_len(jo);
        if (n->type != JT_STRING || n->len != len ||
            memcmp(n->u.s, json_object_get_string(jo), len) || n->u.s[len])
            return snprintf(why, cap, "string \"%.40s\" differs", json_object_get_string(jo)), 1;
        return 0;
    }
    case json_type_array: {
        size_t cnt = json_object_array_length(jo);
        if (n->type != JT_ARRAY || n->len != cnt)
            return snprintf(why, cap, "array of %zu differs", cnt), 1;
        for (size_t i = 0; i < cnt; i++)
            if (parity_same(json_object_array_get_idx(jo, i), n->u.items[i], why, cap, depth + 1))
                return 1;
        return 0;
    }
    case json_type_object: {
        size_t cnt = (size_t)json_object_object_length(jo), i = 0;
        if (n->type != JT_OBJECT || n->len != cnt)
            return snprintf(why, cap, "object of %zu members differs", cnt), 1;
        json_object_object_foreach(jo, k, v)
        {
            const jt_member *m = &n->u.members[i++];
            if (m->key_len != strlen(k) || memcmp(m->key, k, m->key_len) || m->key[m->key_len])
                return snprintf(why, cap, "key %u \"%.40s\" differs", (unsigned)(i - 1), k), 1;
            if (jt_get(n, k) != m->value) return snprintf(why, cap, "lookup of \"%.40s\"", k), 1;
            if (parity_same(v, m->value, why, cap, depth + 1)) return 1;
        }
        return 0;
    }
    }
    return snprintf(why, cap, "unknown json-c type"), 1;
}

/* How json-c read text: 0 accepted (*out its tree), APIDEX_EPARSE or APIDEX_ELIMIT (depth),
   as apidex's json-c path decided before jt_parse_json.c. */
static int parity_jsonc(const char *text, size_t len, unsigned max_depth, struct json_object **out,
                        const char **what, size_t *at)
{
    *out = NULL;
    *what = NULL;
    struct json_tokener *tok = json_tokener_new_ex((int)max_depth);
    if (!tok) abort();
    struct json_object *jo = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    int rc = 0;
    *at = end;
    if (!jo || jerr != json_tokener_success) {
        rc = jerr == json_tokener_error_depth ? APIDEX_ELIMIT : APIDEX_EPARSE;
        /* the message jt_parse_json must give at the same place: json-c's own but where it
           was uninformative (the end of the text; a NUL byte, jt_parse_json says so and
           where it is) */
        if (jerr == json_tokener_continue) {
            *what = "unexpected end of input";
            *at = len;
        } else if (jerr == json_tokener_error_parse_eof || jerr == json_tokener_success) {
            *what = NULL;
        } else {
            *what = json_tokener_error_desc(jerr);
        }
    } else {
        while (end < len &&
               (text[end] == ' ' || text[end] == '\t' || text[end] == '\n' || text[end] == '\r'))
            end++;
        if (end < len && text[end] != '\0') {
            rc = APIDEX_EPARSE;
            *what = "unexpected data after the document";
            *at = end;
        }
    }
    if (rc)
        json_object_put(jo);
    else
        *out = jo;
    return rc;
}

/* NULL when jt_parse_json and json-c agree on text (which must start, after blanks, with
   '{' or '['), else what differs (in why). */
static const char *parity_check(const char *text, size_t len, unsigned max_depth, char *why,
                                size_t cap)
{
    struct json_object *jo;
    const char *what;
    size_t at = 0;
    int want = parity_jsonc(text, len, max_depth, &jo, &what, &at);
    jt_doc doc = {.text = (char *)text, .text_len = len, .file = "parity"};
    doc.arena = core_arena_new(0);
    apidex_error err;
    core_error_clear(&err);
    build_ctx bc = {.arena = doc.arena, .err = &err, .file = "parity"};
    bc.lim.max_bytes = SIZE_MAX;
    bc.lim.max_depth = max_depth;
    bc.lim.max_nodes = SIZE_MAX;
    int got = jt_parse_json(&doc, &bc);
    const char *res = NULL;
    if (got != want) {
        snprintf(why, cap, "json-c %d, jt_parse_json %d (%.200s at %u:%u)", want, got, err.message,
                 err.line, err.col);
        res = why;
    } else if (!got && parity_same(jo, doc.root, why, cap, 0)) {
        res = why;
    } else if (got && (strncmp(err.message, "invalid JSON: ", 14) || !err.line || !err.col)) {
        snprintf(why, cap, "error without its form or place: %.200s", err.message);
        res = why;
    } else if (got && what) {
        unsigned line, col;
        jt_offset_linecol(text, len, at, &line, &col);
        if (strncmp(err.message + 14, what, strlen(what)) || line != err.line || col != err.col) {
            snprintf(why, cap, "json-c '%s' at %u:%u, jt_parse_json '%.200s' at %u:%u", what, line,
                     col, err.message, err.line, err.col);
            res = why;
        }
    }
    json_object_put(jo);
    core_arena_free(doc.arena);
    return res;
}

#endif
