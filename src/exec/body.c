/*
 * Request bodies by media type: JSON as compact JSON; application/x-www-form-urlencoded as
 * the object's fields in their `encoding` style (form, exploded, by default); multipart/
 * form-data as one part per field (arrays of primitives as repeated parts, objects as JSON
 * parts, "@path" strings of binary fields as file parts); any other type: a string sent as
 * it is.
 */
#include "exec/exec_int.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BODY_BOUNDARY "apidex-form-boundary-7MA4YWxkTrZu0gW"

enum { BODY_MAX_FILE = 64 << 20, BODY_EBOUNDARY = 1 };

bool exec_media_is_json(const char *type)
{
    if (!type) return false;
    size_t n = strcspn(type, ";");
    return (n >= 4 && !strncasecmp(type + n - 4, "json", 4)) || !strncasecmp(type, "*/*", 3);
}

static int form_encode(const spec_media *media, json_object *v, exec_request *r, apidex_error *err)
{
    core_buf b;
    core_buf_init(&b, 0);
    int rc = 0;
    json_object_object_foreach(v, k, x)
    {
        spec_serialization enc = spec_media_field_encoding(media, k);
        exec_style st = {.style = enc.style ? enc.style : "form"};
        st.explode = enc.explode >= 0 ? enc.explode : !strcmp(st.style, "form");
        st.allow_reserved = enc.allow_reserved;
        if (b.len && core_buf_putc(&b, '&')) rc = APIDEX_ENOMEM;
        if (!rc) rc = exec_param_write(k, "query", st, x, &b, err);
        if (rc) break;
    }
    if (!rc) {
        r->body = core_arena_strndup(r->arena, b.data ? b.data : "", b.len);
        r->body_len = b.len;
        if (!r->body) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    core_buf_free(&b);
    return rc;
}

/* Whether field k of the body schema is a file (format binary or base64). */
static bool is_file_field(const spec_api *api, const spec_media *media, const char *k)
{
    spec_schema_view body, field;
    if (spec_schema_view_open(api, media->schema, NULL, &body) || !body.loc.node) return false;
    spec_loc prop = spec_schema_view_property(&body, k);
    if (!prop.node || spec_schema_view_open(api, prop, NULL, &field) || !field.loc.node)
        return false;
    /* an array of files: its items' format */
    if (jt_is(field.kw[SPEC_KW_ITEMS], JT_OBJECT))
        spec_schema_view_node(field.kw[SPEC_KW_ITEMS], &field);
    const char *f = field.format;
    return f && (!strcmp(f, "binary") || !strcmp(f, "base64"));
}

static int part(core_buf *b, const char *boundary, const char *name, const char *filename,
                const char *type, const char *data, size_t len)
{
    if (memmem(data, len, boundary, strlen(boundary))) return BODY_EBOUNDARY;
    int rc =
        core_buf_printf(b, "--%s\r\nContent-Disposition: form-data; name=\"%s\"", boundary, name);
    if (filename) rc |= core_buf_printf(b, "; filename=\"%s\"", filename);
    rc |= core_buf_puts(b, "\r\n");
    if (type) rc |= core_buf_printf(b, "Content-Type: %s\r\n", type);
    rc |= core_buf_puts(b, "\r\n");
    rc |= core_buf_append(b, data, len);
    rc |= core_buf_puts(b, "\r\n");
    return rc ? APIDEX_ENOMEM : 0;
}

/* One multipart field value: a file part ("@path" of a binary field), a JSON part (objects,
   nested arrays) or a text part. */
static int multipart_value(const spec_api *api, const spec_media *media, const char *boundary,
                           const char *k, json_object *x, core_buf *b, apidex_error *err)
{
    const char *ctype = spec_media_field_encoding(media, k).content_type;
    if (json_object_is_type(x, json_type_string) && json_object_get_string(x)[0] == '@' &&
        is_file_field(api, media, k)) {
        const char *path = json_object_get_string(x) + 1;
        char *data = NULL;
        size_t len = 0;
        int rc = core_file_read(path, BODY_MAX_FILE, &data, &len, err);
        if (rc) return rc;
        const char *slash = strrchr(path, '/');
        rc = part(b, boundary, k, slash ? slash + 1 : path,
                  ctype ? ctype : "application/octet-stream", data, len);
        free(data);
        return rc;
    }
    bool structured =
        json_object_is_type(x, json_type_object) || json_object_is_type(x, json_type_array);
    const char *text = exec_value_text(x);
    return part(b, boundary, k, NULL,
                ctype        ? ctype
                : structured ? "application/json"
                             : NULL,
                text, strlen(text));
}

static int multipart_encode(const spec_api *api, const spec_media *media, json_object *v,
                            exec_request *r, apidex_error *err)
{
    /* a fixed boundary keeps dry runs and snippets reproducible; a field holding it is refused
       (part), so no field can end the body early */
    const char *boundary = BODY_BOUNDARY;
    core_buf b;
    core_buf_init(&b, 0);
    int rc = 0;
    json_object_object_foreach(v, k, x)
    {
        bool primitives = json_object_is_type(x, json_type_array);
        for (size_t i = 0; primitives && i < json_object_array_length(x); i++) {
            json_type t = json_object_get_type(json_object_array_get_idx(x, i));
            primitives = t != json_type_object && t != json_type_array;
        }
        if (primitives && !spec_media_field_encoding(media, k).content_type) {
            for (size_t i = 0; i < json_object_array_length(x) && !rc; i++)
                rc = multipart_value(api, media, boundary, k, json_object_array_get_idx(x, i), &b,
                                     err);
        } else {
            rc = multipart_value(api, media, boundary, k, x, &b, err);
        }
        if (rc) break;
    }
    if (!rc && core_buf_printf(&b, "--%s--\r\n", boundary)) rc = APIDEX_ENOMEM;
    if (!rc) {
        r->body = core_arena_strndup(r->arena, b.data ? b.data : "", b.len);
        r->body_len = b.len;
        r->content_type = core_arena_printf(r->arena, "multipart/form-data; boundary=%s", boundary);
        if (!r->body || !r->content_type) rc = APIDEX_ENOMEM;
    }
    core_buf_free(&b);
    if (rc == BODY_EBOUNDARY)
        rc = core_error_set(err, APIDEX_EINVAL, "a multipart field holds the part boundary");
    if (rc == APIDEX_ENOMEM) core_error_set(err, rc, "out of memory");
    return rc;
}

int exec_body_encode(const spec_api *api, const spec_media *media, json_object *v, exec_request *r,
                     apidex_error *err)
{
    const char *type = media->type ? media->type : "application/json";
    r->content_type = core_arena_strdup(r->arena, type);
    if (exec_media_is_json(type) || !strncasecmp(type, "*/*", 3)) {
        if (!strncasecmp(type, "*/*", 3)) r->content_type = "application/json";
        size_t len = 0;
        const char *s = json_object_to_json_string_length(
            v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
        r->body = core_arena_strndup(r->arena, s, len);
        r->body_len = len;
        return r->body ? 0 : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    bool form = !strncasecmp(type, "application/x-www-form-urlencoded", 33);
    bool multi = !strncasecmp(type, "multipart/form-data", 19);
    if (form || multi) {
        if (!json_object_is_type(v, json_type_object))
            return core_error_set(err, APIDEX_EINVAL,
                                  "the body is %s: give its fields as a JSON object (--body "
                                  "'{\"field\": ...}') or as -p field=value",
                                  type);
        return form ? form_encode(media, v, r, err) : multipart_encode(api, media, v, r, err);
    }
    if (!json_object_is_type(v, json_type_string))
        return core_error_set(err, APIDEX_EINVAL,
                              "the body is %s: give it as text (--body TEXT or --body @file)",
                              type);
    r->body = core_arena_strndup(r->arena, json_object_get_string(v),
                                 (size_t)json_object_get_string_len(v));
    r->body_len = (size_t)json_object_get_string_len(v);
    return r->body ? 0 : core_error_set(err, APIDEX_ENOMEM, "out of memory");
}
