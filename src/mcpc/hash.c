/* The hash of a server's document (what mcpc_list wrote): XXH3 over a canonical JSON form, so
   re-indexing sees a server as unchanged when only the order of its keys or of its tools
   changed, and as changed when anything the index shows (a tool, a schema, a description,
   the server's info, resources or prompts) did. */
#include "mcpc/mcpc_int.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static int canon(core_buf *b, json_object *v, int depth);
static int canon_set(core_buf *b, json_object *list);

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* An object with its keys sorted; top: the document itself, whose lists are sets. */
static int canon_object(core_buf *b, json_object *v, int depth, bool top)
{
    size_t n = (size_t)json_object_object_length(v), i = 0;
    const char **keys = n ? malloc(n * sizeof *keys) : NULL;
    if (n && !keys) return APIDEX_ENOMEM;
    json_object_object_foreach(v, k, ignored)
    {
        (void)ignored;
        keys[i++] = k;
    }
    if (n) qsort(keys, n, sizeof *keys, cmp_str); /* never qsort a NULL array */
    int rc = core_buf_putc(b, '{');
    for (i = 0; i < n && !rc; i++) {
        if (i) rc = core_buf_putc(b, ',');
        if (!rc) rc = core_buf_json_str(b, keys[i], strlen(keys[i]));
        if (!rc) rc = core_buf_putc(b, ':');
        json_object *item = json_object_object_get(v, keys[i]);
        if (!rc)
            rc = top && json_object_is_type(item, json_type_array) ? canon_set(b, item)
                                                                   : canon(b, item, depth + 1);
    }
    free(keys);
    return rc ? rc : core_buf_putc(b, '}');
}

static int canon(core_buf *b, json_object *v, int depth)
{
    if (depth > MCPC_MAX_DEPTH) return APIDEX_ELIMIT;
    switch (json_object_get_type(v)) {
    case json_type_object:
        return canon_object(b, v, depth, false);
    case json_type_array: {
        int rc = core_buf_putc(b, '[');
        size_t n = json_object_array_length(v);
        for (size_t i = 0; i < n && !rc; i++) {
            if (i) rc = core_buf_putc(b, ',');
            if (!rc) rc = canon(b, json_object_array_get_idx(v, i), depth + 1);
        }
        return rc ? rc : core_buf_putc(b, ']');
    }
    case json_type_string:
        return core_buf_json_str(b, json_object_get_string(v),
                                 (size_t)json_object_get_string_len(v));
    default: /* null, booleans, numbers: json-c writes them one way */
        return core_buf_puts(b, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
    }
}

/* One top-level list (tools, resources, prompts...) as a set: its items' canonical forms,
   sorted, so a server that lists the same tools in another order is unchanged. */
static int canon_set(core_buf *b, json_object *list)
{
    size_t n = json_object_array_length(list);
    char **items = n ? calloc(n, sizeof *items) : NULL;
    if (n && !items) return APIDEX_ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        core_buf one;
        core_buf_init(&one, MCPC_MAX_TOTAL);
        rc = canon(&one, json_object_array_get_idx(list, i), 1);
        items[i] = rc ? NULL : core_buf_steal(&one, NULL);
        if (!rc && !items[i]) rc = APIDEX_ENOMEM;
        core_buf_free(&one);
    }
    if (!rc && n) qsort(items, n, sizeof *items, cmp_str); /* qsort of NULL: undefined */
    if (!rc) rc = core_buf_putc(b, '[');
    for (size_t i = 0; i < n && !rc; i++) {
        if (i) rc = core_buf_putc(b, ',');
        if (!rc) rc = core_buf_puts(b, items[i]);
    }
    for (size_t i = 0; i < n; i++) free(items[i]);
    free(items);
    return rc ? rc : core_buf_putc(b, ']');
}

int mcpc_document_hash(const char *doc, size_t len, uint64_t *hash)
{
    *hash = 0;
    json_object *root = mcpc_json_parse(doc, len);
    int rc = json_object_is_type(root, json_type_object) ? 0 : APIDEX_ESPEC;
    core_buf b;
    core_buf_init(&b, MCPC_MAX_TOTAL);
    if (!rc) rc = canon_object(&b, root, 0, true);
    if (!rc) *hash = core_hash64(b.data, b.len);
    core_buf_free(&b);
    json_object_put(root);
    return rc;
}
