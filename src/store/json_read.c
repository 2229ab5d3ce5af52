/*
 * The JSON columns a reader turns into records: string lists (operation tags, chunk
 * endpoints) and an API's servers and tags. A list of plain strings (no escapes, which is
 * what the writer leaves for nearly every row) is split in place of a JSON parse: opening
 * a large index reads hundreds of thousands of them.
 */
#include "store/store_int.h"

#include <json-c/json.h>
#include <string.h>

/* ["a","b"] with no backslash and no control character: the strings, or -1 when the text
   is anything else (json-c reads it then). */
static int plain_strings(core_arena *a, const char *text, const char ***out, size_t *n)
{
    const char *p = text;
    while (*p == ' ') p++;
    if (*p++ != '[') return -1;
    size_t count = 0;
    for (const char *q = p; *q; q++) {
        if (*q == '\\' || (unsigned char)*q < 0x20) return -1;
        if (*q == '"') count++;
    }
    if (count % 2) return -1;
    count /= 2;
    const char **items = count ? core_arena_calloc(a, count, sizeof *items) : NULL;
    if (count && !items) return APIDEX_ENOMEM;
    size_t got = 0;
    while (*p == ' ') p++;
    while (*p == '"') {
        const char *end = strchr(p + 1, '"');
        if (!end || got == count) return -1;
        if (!(items[got++] = core_arena_strndup(a, p + 1, (size_t)(end - p - 1))))
            return APIDEX_ENOMEM;
        p = end + 1;
        while (*p == ' ') p++;
        if (*p != ',') break;
        p++;
        while (*p == ' ') p++;
        if (*p != '"') return -1;
    }
    if (*p++ != ']') return -1;
    while (*p == ' ') p++;
    if (*p || got != count) return -1;
    *out = items;
    *n = got;
    return 0;
}

int store_json_strings(core_arena *a, const char *text, const char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!text || !*text) return 0;
    int plain = plain_strings(a, text, out, n);
    if (plain >= 0) return plain;
    *out = NULL;
    *n = 0;
    json_object *arr = json_tokener_parse(text);
    if (!arr) return 0; /* not written by us: treat as empty */
    int rc = 0;
    if (json_object_is_type(arr, json_type_array)) {
        size_t len = json_object_array_length(arr);
        const char **items = len ? core_arena_calloc(a, len, sizeof *items) : NULL;
        if (len && !items) rc = APIDEX_ENOMEM;
        for (size_t i = 0; i < len && !rc; i++) {
            const char *s = json_object_get_string(json_object_array_get_idx(arr, i));
            items[*n] = core_arena_strdup(a, s ? s : "");
            if (!items[*n])
                rc = APIDEX_ENOMEM;
            else
                (*n)++;
        }
        *out = items;
    }
    json_object_put(arr);
    return rc;
}

static const char *json_member_str(core_arena *a, json_object *o, const char *key, bool *fail)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    char *s = core_arena_strdup(a, json_object_get_string(v));
    if (!s) *fail = true;
    return s;
}

int store_json_api(core_arena *arena, store_api *a, const char *servers, const char *tags)
{
    bool fail = false;
    json_object *arr = servers ? json_tokener_parse(servers) : NULL;
    if (arr && json_object_is_type(arr, json_type_array)) {
        size_t n = json_object_array_length(arr);
        a->servers = n ? core_arena_calloc(arena, n, sizeof *a->servers) : NULL;
        if (n && !a->servers) fail = true;
        for (size_t i = 0; i < n && !fail; i++) {
            json_object *o = json_object_array_get_idx(arr, i);
            a->servers[a->n_servers].url = json_member_str(arena, o, "url", &fail);
            a->servers[a->n_servers].description = json_member_str(arena, o, "description", &fail);
            a->n_servers++;
        }
    }
    json_object_put(arr);
    arr = tags ? json_tokener_parse(tags) : NULL;
    if (arr && json_object_is_type(arr, json_type_array)) {
        size_t n = json_object_array_length(arr);
        a->tags = n ? core_arena_calloc(arena, n, sizeof *a->tags) : NULL;
        if (n && !a->tags) fail = true;
        for (size_t i = 0; i < n && !fail; i++) {
            json_object *o = json_object_array_get_idx(arr, i);
            store_tag *t = &a->tags[a->n_tags];
            t->name = json_member_str(arena, o, "name", &fail);
            t->description = json_member_str(arena, o, "description", &fail);
            json_object *v = NULL;
            if (json_object_object_get_ex(o, "n_ops", &v))
                t->n_ops = (size_t)json_object_get_int64(v);
            if (t->name) a->n_tags++;
        }
    }
    json_object_put(arr);
    return fail ? APIDEX_ENOMEM : 0;
}
