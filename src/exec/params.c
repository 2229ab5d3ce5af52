/*
 * Parameter serialisation: a value (json-c) written in its parameter's style, as OAS 3.x
 * defines them (simple, label, matrix, form, spaceDelimited, pipeDelimited, deepObject, each
 * exploded or not) and as Swagger 2.0's collectionFormat (csv, ssv, tsv, pipes, multi) maps
 * onto them. Path and query text is percent-encoded here; header values are written as they
 * are. A control character (a line break, \v, 0x7f...) or a NUL byte in any value is refused,
 * naming the parameter.
 */
#include "exec/exec_int.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int exec_pct_encode(core_buf *b, const char *s, size_t n, bool keep_reserved)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                          (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
        bool reserved = c && strchr(":/?#[]@!$&'()*+,;=", c);
        if (unreserved || (keep_reserved && reserved)) {
            if (core_buf_putc(b, (char)c)) return APIDEX_ENOMEM;
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            if (core_buf_append(b, e, 3)) return APIDEX_ENOMEM;
        }
    }
    return 0;
}

const char *exec_value_text(json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        return "";
    case json_type_boolean:
        return json_object_get_boolean(v) ? "true" : "false";
    case json_type_string:
        return json_object_get_string(v);
    default:
        return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
                                                     JSON_C_TO_STRING_NOSLASHESCAPE);
    }
}

exec_style exec_param_style(const spec_api *api, const spec_param *p)
{
    exec_style st = {0};
    spec_serialization ser = spec_param_serialization(p);
    bool q = !strcmp(p->in, "query"), c = !strcmp(p->in, "cookie");
    if (api->major == 2) {
        /* Swagger 2.0: arrays are csv unless collectionFormat says otherwise */
        const char *cf = ser.collection_format;
        st.style = q || c ? "form" : "simple";
        if (cf && !strcmp(cf, "ssv")) st.style = "spaceDelimited";
        if (cf && !strcmp(cf, "tsv")) st.style = "tabDelimited";
        if (cf && !strcmp(cf, "pipes")) st.style = "pipeDelimited";
        st.explode = cf && !strcmp(cf, "multi");
        return st;
    }
    st.style = ser.style;
    if (!st.style) st.style = q || c ? "form" : "simple";
    st.explode = ser.explode >= 0 ? ser.explode : !strcmp(st.style, "form");
    st.allow_reserved = q && ser.allow_reserved;
    return st;
}

/* One value into out: percent-encoded (path, query, cookie) or checked (header). */
static int put_text(core_buf *out, const char *in, const char *s, bool keep_reserved,
                    apidex_error *err)
{
    if (!strcmp(in, "header")) {
        if (strpbrk(s, "\r\n"))
            return core_error_set(err, APIDEX_EINVAL, "a header value cannot hold a line break");
        return core_buf_puts(out, s) ? APIDEX_ENOMEM : 0;
    }
    return exec_pct_encode(out, s, strlen(s), keep_reserved);
}

/* The parts of a value: an array's items, an object's keys and values (alternating), or the
   one primitive. */
typedef struct parts {
    const char *text[256];
    size_t n;
    int kind; /* 0 primitive, 1 array, 2 object */
} parts;

/* Refuses a text of parameter name (at in) holding a control character or, for a JSON
   string v, a NUL byte (a C string would cut the value there). */
static int check_text(const char *name, const char *in, const char *t, json_object *v,
                      apidex_error *err)
{
    size_t n = strlen(t);
    if (json_object_is_type(v, json_type_string) && n != (size_t)json_object_get_string_len(v))
        return core_error_set(err, APIDEX_EINVAL,
                              "parameter '%s' (%s): the value holds a NUL byte (\\u0000), which "
                              "apidex does not send",
                              name, in);
    const char *c = exec_control_char(t, n);
    if (c)
        return core_error_set(err, APIDEX_EINVAL,
                              "parameter '%s' (%s): the value holds the control character 0x%02X, "
                              "which apidex does not send",
                              name, in, (unsigned)(unsigned char)*c);
    return 0;
}

static int split(json_object *v, parts *p, const char *name, const char *in, apidex_error *err)
{
    int rc = 0;
    p->n = 0;
    if (json_object_is_type(v, json_type_array)) {
        p->kind = 1;
        size_t n = json_object_array_length(v);
        if (n > sizeof p->text / sizeof p->text[0])
            return core_error_set(err, APIDEX_EINVAL, "parameter '%s' has %zu items, at most %zu",
                                  name, n, sizeof p->text / sizeof p->text[0]);
        for (size_t i = 0; i < n && !rc; i++) {
            json_object *x = json_object_array_get_idx(v, i);
            p->text[p->n++] = exec_value_text(x);
            rc = check_text(name, in, p->text[p->n - 1], x, err);
        }
    } else if (json_object_is_type(v, json_type_object)) {
        p->kind = 2;
        json_object_object_foreach(v, k, x)
        {
            if (p->n + 2 > sizeof p->text / sizeof p->text[0])
                return core_error_set(err, APIDEX_EINVAL, "parameter '%s' has too many fields",
                                      name);
            p->text[p->n++] = k;
            p->text[p->n++] = exec_value_text(x);
            if (!rc) rc = check_text(name, in, k, NULL, err);
            if (!rc) rc = check_text(name, in, p->text[p->n - 1], x, err);
        }
    } else {
        p->kind = 0;
        p->text[p->n++] = exec_value_text(v);
        rc = check_text(name, in, p->text[0], v, err);
    }
    return rc;
}

/* items joined by sep (sep written as is); objects as k<kv>v pairs when kv, else k,v. */
static int join(core_buf *out, const parts *p, const char *in, const char *sep, const char *kv,
                bool keep_reserved, apidex_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < p->n && !rc; i++) {
        if (i) {
            const char *s = p->kind == 2 && (i & 1) ? (kv ? kv : ",") : sep;
            rc = core_buf_puts(out, s) ? APIDEX_ENOMEM : 0;
        }
        if (!rc) rc = put_text(out, in, p->text[i], keep_reserved, err);
    }
    return rc;
}

/* name=<value> for the query or cookie, name percent-encoded. */
static int put_name(core_buf *out, const char *in, const char *name)
{
    if (exec_pct_encode(out, name, strlen(name), false)) return APIDEX_ENOMEM;
    (void)in;
    return core_buf_putc(out, '=') ? APIDEX_ENOMEM : 0;
}

static int write_path(const char *name, exec_style st, const parts *p, core_buf *out,
                      apidex_error *err)
{
    const char *in = "path";
    bool ex = st.explode;
    if (!strcmp(st.style, "label")) {
        if (core_buf_putc(out, '.')) return APIDEX_ENOMEM;
        return join(out, p, in, ex ? "." : ",", ex ? "=" : NULL, false, err);
    }
    if (!strcmp(st.style, "matrix")) {
        if (ex && p->kind == 1) {
            for (size_t i = 0; i < p->n; i++) {
                int rc = core_buf_putc(out, ';') || put_name(out, in, name) ? APIDEX_ENOMEM : 0;
                if (!rc) rc = put_text(out, in, p->text[i], false, err);
                if (rc) return rc;
            }
            return 0;
        }
        if (ex && p->kind == 2) {
            if (core_buf_putc(out, ';')) return APIDEX_ENOMEM;
            return join(out, p, in, ";", "=", false, err);
        }
        if (core_buf_putc(out, ';') || exec_pct_encode(out, name, strlen(name), false))
            return APIDEX_ENOMEM;
        if (p->n == 0 || (p->kind == 0 && !*p->text[0])) return 0;
        if (core_buf_putc(out, '=')) return APIDEX_ENOMEM;
        return join(out, p, in, ",", NULL, false, err);
    }
    if (strcmp(st.style, "simple"))
        return core_error_set(err, APIDEX_EINVAL,
                              "path parameter '%s' has style '%s' (path parameters take simple, "
                              "label or matrix)",
                              name, st.style);
    return join(out, p, in, ",", ex ? "=" : NULL, false, err);
}

/* The query and cookie styles. sep separates pairs ("&", or "; " in a cookie). */
static int write_form(const char *name, const char *in, exec_style st, const parts *p,
                      core_buf *out, const char *sep, apidex_error *err)
{
    bool keep = st.allow_reserved;
    const char *delim = NULL;
    if (!strcmp(st.style, "spaceDelimited")) delim = "%20";
    if (!strcmp(st.style, "pipeDelimited")) delim = "%7C";
    if (!strcmp(st.style, "tabDelimited")) delim = "%09";
    if (!strcmp(st.style, "deepObject")) {
        if (p->kind != 2)
            return core_error_set(err, APIDEX_EINVAL,
                                  "parameter '%s' has style deepObject, which takes an object",
                                  name);
        for (size_t i = 0; i + 1 < p->n; i += 2) {
            if (i && core_buf_puts(out, sep)) return APIDEX_ENOMEM;
            core_buf key;
            core_buf_init(&key, 0);
            int rc = core_buf_printf(&key, "%s[%s]", name, p->text[i]) ? APIDEX_ENOMEM : 0;
            if (!rc) rc = exec_pct_encode(out, key.data, key.len, false);
            core_buf_free(&key);
            if (!rc) rc = core_buf_putc(out, '=') ? APIDEX_ENOMEM : 0;
            if (!rc) rc = put_text(out, in, p->text[i + 1], keep, err);
            if (rc) return rc;
        }
        return 0;
    }
    if (!delim && strcmp(st.style, "form"))
        return core_error_set(err, APIDEX_EINVAL,
                              "%s parameter '%s' has style '%s' (it takes form, spaceDelimited, "
                              "pipeDelimited or deepObject)",
                              in, name, st.style);
    if (st.explode && p->kind == 1) {
        for (size_t i = 0; i < p->n; i++) {
            if (i && core_buf_puts(out, sep)) return APIDEX_ENOMEM;
            int rc = put_name(out, in, name);
            if (!rc) rc = put_text(out, in, p->text[i], keep, err);
            if (rc) return rc;
        }
        return 0;
    }
    if (st.explode && p->kind == 2) {
        for (size_t i = 0; i + 1 < p->n; i += 2) {
            if (i && core_buf_puts(out, sep)) return APIDEX_ENOMEM;
            int rc = put_name(out, in, p->text[i]);
            if (!rc) rc = put_text(out, in, p->text[i + 1], keep, err);
            if (rc) return rc;
        }
        return 0;
    }
    int rc = put_name(out, in, name);
    if (!rc) rc = join(out, p, in, delim ? delim : ",", delim ? delim : NULL, keep, err);
    return rc;
}

int exec_param_write(const char *name, const char *in, exec_style st, json_object *v, core_buf *out,
                     apidex_error *err)
{
    parts *p = calloc(1, sizeof *p);
    if (!p) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    int rc = split(v, p, name, in, err);
    if (!rc) {
        if (!strcmp(in, "path"))
            rc = write_path(name, st, p, out, err);
        else if (!strcmp(in, "header"))
            rc = join(out, p, in, ",", st.explode ? "=" : NULL, false, err);
        else
            rc = write_form(name, in, st, p, out, !strcmp(in, "cookie") ? "; " : "&", err);
    }
    free(p);
    if (rc == APIDEX_ENOMEM) core_error_set(err, rc, "out of memory");
    return rc;
}

size_t exec_edit_distance(const char *a, const char *b)
{
    return core_edit_distance(a, strlen(a), b, strlen(b), 99);
}
