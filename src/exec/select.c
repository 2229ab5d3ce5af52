/*
 * The JSONPath-like subset that picks fields from a response (--select; the RestGPT
 * parser's selections): $ . name [n] [-n] ['name'] * [*] ..name ..* and several paths
 * separated by commas. docs/EXECUTE.md ("Responses") is the reference.
 */
#include "exec/exec.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#define SELECT_MAX_MATCHES 100000
#define SELECT_MAX_DEPTH   256

typedef struct matches {
    json_object **v;
    size_t n, cap;
    bool overflow;
} matches;

static void matches_add(matches *m, json_object *v)
{
    if (m->n == m->cap) {
        if (m->cap >= SELECT_MAX_MATCHES) {
            m->overflow = true;
            return;
        }
        size_t cap = m->cap ? 2 * m->cap : 16;
        json_object **grown = realloc(m->v, cap * sizeof *grown);
        if (!grown) {
            m->overflow = true;
            return;
        }
        m->v = grown;
        m->cap = cap;
    }
    m->v[m->n++] = v;
}

/* Every value below v (v itself included when self), pre-order: the targets of "..". */
static void descend(json_object *v, bool self, int depth, matches *out)
{
    if (self) matches_add(out, v);
    if (depth > SELECT_MAX_DEPTH) return;
    if (json_object_is_type(v, json_type_object)) {
        json_object_object_foreach(v, key, child)
        {
            (void)key;
            if (child) descend(child, true, depth + 1, out);
        }
    } else if (json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);
        for (size_t i = 0; i < n; i++) {
            json_object *child = json_object_array_get_idx(v, i);
            if (child) descend(child, true, depth + 1, out);
        }
    }
}

/* One step applied to every current value. kind: 'n' name, 'i' index, '*' wildcard. */
static void step(const matches *in, char kind, const char *name, size_t name_len, long index,
                 bool recursive, matches *out)
{
    matches scope = {0};
    const matches *from = in;
    if (recursive) {
        for (size_t i = 0; i < in->n; i++) descend(in->v[i], true, 0, &scope);
        from = &scope;
    }
    for (size_t i = 0; i < from->n; i++) {
        json_object *v = from->v[i];
        if (kind == 'n' && json_object_is_type(v, json_type_object)) {
            char key[512];
            if (name_len >= sizeof key) continue;
            memcpy(key, name, name_len);
            key[name_len] = 0;
            json_object *child;
            if (json_object_object_get_ex(v, key, &child)) matches_add(out, child);
        } else if (kind == 'i' && json_object_is_type(v, json_type_array)) {
            long n = (long)json_object_array_length(v);
            long at = index < 0 ? n + index : index;
            if (at >= 0 && at < n) matches_add(out, json_object_array_get_idx(v, (size_t)at));
        } else if (kind == '*' && !recursive) {
            descend(v, false, SELECT_MAX_DEPTH, out); /* depth cap: direct children only */
        } else if (kind == '*') {
            /* "..*": every value below the start, each once */
            if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
                descend(v, false, SELECT_MAX_DEPTH, out);
        }
    }
    free(scope.v);
}

static bool name_char(char c)
{
    return c && !strchr(".[],' \t\"", c);
}

static int syntax(apidex_error *err, const char *expr, const char *at, const char *what)
{
    return core_error_set(err, APIDEX_EINVAL, "select: %s at column %ld of \"%s\"", what,
                          (long)(at - expr) + 1, expr);
}

/* Evaluates one path expr[p..end); *multi says whether it can match several values. */
static int eval_path(json_object *root, const char *expr, const char *p, const char *end,
                     matches *result, bool *multi, apidex_error *err)
{
    matches cur = {0};
    matches_add(&cur, root);
    *multi = false;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    bool implicit = false; /* "items[0].id" means "$.items[0].id" */
    if (p < end && *p == '$')
        p++;
    else if (p < end && name_char(*p))
        implicit = true;
    int rc = 0;
    while (!rc && p < end && !(*p == ' ' || *p == '\t')) {
        bool recursive = false, bracket = false;
        char kind = 0;
        const char *name = NULL;
        size_t name_len = 0;
        long index = 0;
        if (implicit || *p == '.') {
            if (!implicit && ++p < end && *p == '.') {
                recursive = true;
                p++;
            }
            implicit = false;
            if (p < end && *p == '*') {
                kind = '*';
                p++;
            } else if (p < end && *p == '[' && recursive) {
                bracket = true;
            } else {
                name = p;
                while (p < end && name_char(*p)) p++;
                if (p == name) rc = syntax(err, expr, p, "a field name expected");
                kind = 'n';
                name_len = (size_t)(p - name);
            }
        } else if (*p == '[') {
            bracket = true;
        } else {
            rc = syntax(err, expr, p, "'.' or '[' expected");
        }
        if (!rc && bracket) {
            p++;
            if (p < end && (*p == '\'' || *p == '"')) {
                char q = *p++;
                name = p;
                while (p < end && *p != q) p++;
                name_len = (size_t)(p - name);
                kind = 'n';
                if (p < end)
                    p++;
                else
                    rc = syntax(err, expr, p, "an unclosed quote");
            } else if (p < end && *p == '*') {
                kind = '*';
                p++;
            } else {
                char *num_end;
                index = strtol(p, &num_end, 10);
                if (num_end == p || num_end > end)
                    rc = syntax(err, expr, p, "an index, '*' or a quoted name expected");
                kind = 'i';
                p = num_end;
            }
            if (!rc && (p >= end || *p != ']')) rc = syntax(err, expr, p, "']' expected");
            p++;
        }
        if (rc) break;
        if (kind == '*' || recursive) *multi = true;
        matches next = {0};
        step(&cur, kind, name, name_len, index, recursive, &next);
        free(cur.v);
        cur = next;
        if (cur.overflow)
            rc = core_error_set(err, APIDEX_ELIMIT, "select: more than %d matches",
                                SELECT_MAX_MATCHES);
    }
    while (!rc && p < end && (*p == ' ' || *p == '\t')) p++;
    if (!rc && p < end) rc = syntax(err, expr, p, "unexpected text");
    if (rc) {
        free(cur.v);
        return rc;
    }
    *result = cur;
    return 0;
}

static json_object *path_value(const matches *m, bool multi)
{
    if (!multi) return m->n ? json_object_get(m->v[0]) : NULL;
    json_object *arr = json_object_new_array_ext((int)m->n);
    for (size_t i = 0; arr && i < m->n; i++) json_object_array_add(arr, json_object_get(m->v[i]));
    return arr;
}

/* The end of the path starting at p: the next comma outside brackets and quotes. */
static const char *path_end(const char *p)
{
    char quote = 0;
    int depth = 0;
    for (; *p; p++) {
        if (quote) {
            if (*p == quote) quote = 0;
        } else if (*p == '\'' || *p == '"') {
            quote = *p;
        } else if (*p == '[') {
            depth++;
        } else if (*p == ']') {
            depth--;
        } else if (*p == ',' && depth <= 0) {
            break;
        }
    }
    return p;
}

int exec_select(struct json_object *v, const char *expr, struct json_object **out,
                apidex_error *err)
{
    *out = NULL;
    if (!expr || !*expr) return core_error_set(err, APIDEX_EINVAL, "select: empty expression");
    const char *first_end = path_end(expr);
    if (!*first_end) { /* one path */
        matches m = {0};
        bool multi;
        int rc = eval_path(v, expr, expr, first_end, &m, &multi, err);
        if (rc) return rc;
        *out = path_value(&m, multi);
        free(m.v);
        return 0;
    }
    json_object *obj = json_object_new_object();
    if (!obj) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (const char *p = expr; *p;) {
        const char *end = path_end(p);
        matches m = {0};
        bool multi;
        int rc = eval_path(v, expr, p, end, &m, &multi, err);
        if (rc) {
            json_object_put(obj);
            return rc;
        }
        while (p < end && (*p == ' ' || *p == '\t')) p++;
        const char *key_end = end;
        while (key_end > p && (key_end[-1] == ' ' || key_end[-1] == '\t')) key_end--;
        char key[512];
        size_t n = (size_t)(key_end - p) < sizeof key - 1 ? (size_t)(key_end - p) : sizeof key - 1;
        memcpy(key, p, n);
        key[n] = 0;
        json_object_object_add(obj, key, path_value(&m, multi));
        free(m.v);
        p = *end ? end + 1 : end;
    }
    *out = obj;
    return 0;
}
