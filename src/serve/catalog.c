/*
 * The list_apis tool's catalog: compact and paginated for agents. One short line of facts
 * per API (plain text, HTML stripped), largest APIs first, a page at a time with an opaque
 * cursor as MCP's list methods use; the full detail of one API is the apidex://apis/{api}
 * resource.
 */
#include "serve/serve_int.h"

#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ABOUT_TOKENS = 24, TOP_TAGS = 4 };

/* The cursor is "apis:" then the offset; opaque to clients. */
static const char cursor_prefix[] = "apis:";

static int cmp_size(const void *a, const void *b, void *ctx)
{
    const store_api *apis = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (apis[x].n_ops != apis[y].n_ops) return apis[x].n_ops > apis[y].n_ops ? -1 : 1;
    return strcmp(apis[x].id, apis[y].id);
}

/* "DigitalOcean API 2.0: 659 operations; tags Droplets (40), Apps (39), ... +52; <about>" */
static void about_line(const store_api *api, core_buf *b)
{
    const char *title = api->title && *api->title ? api->title : api->id;
    text_plain_line(title, strlen(title), 0, b, NULL);
    if (api->version && *api->version) core_buf_printf(b, " %s", api->version);
    core_buf_printf(b, ": %zu operation%s", api->n_ops, api->n_ops == 1 ? "" : "s");
    /* the largest tags */
    size_t chosen[TOP_TAGS], shown = 0, n_tags = 0;
    for (size_t t = 0; t < api->n_tags; t++) n_tags += api->tags[t].n_ops > 0;
    while (shown < TOP_TAGS) {
        size_t best = SIZE_MAX;
        for (size_t t = 0; t < api->n_tags; t++) {
            bool taken = false;
            for (size_t k = 0; k < shown; k++) taken = taken || chosen[k] == t;
            if (!taken && api->tags[t].n_ops &&
                (best == SIZE_MAX || api->tags[t].n_ops > api->tags[best].n_ops))
                best = t;
        }
        if (best == SIZE_MAX) break;
        core_buf_printf(b, "%s%s", shown ? ", " : "; tags ", api->tags[best].name);
        chosen[shown++] = best;
    }
    if (n_tags > shown && shown) core_buf_printf(b, " +%zu more", n_tags - shown);
    if (api->description && *api->description) {
        core_buf desc;
        core_buf_init(&desc, 0);
        text_plain_line(api->description, strlen(api->description), 0, &desc, NULL);
        if (desc.len) {
            core_buf_puts(b, ". ");
            size_t before = b->len;
            text_plain_shorten(desc.data, desc.len, ABOUT_TOKENS, b, NULL);
            if (b->len == before) b->len -= 2, b->data[b->len] = 0;
        }
        core_buf_free(&desc);
    }
}

int serve_query_api_page(serve_snapshot *snap, const char *cursor, size_t page,
                         struct json_object **out, apidex_error *err)
{
    *out = NULL;
    size_t offset = 0;
    if (cursor) {
        char *end = NULL;
        unsigned long long v = 0;
        bool ok = !strncmp(cursor, cursor_prefix, strlen(cursor_prefix));
        if (ok) v = strtoull(cursor + strlen(cursor_prefix), &end, 10);
        ok = ok && end && !*end && end != cursor + strlen(cursor_prefix) && v < snap->n_apis;
        if (!ok)
            return core_error_set(err, APIDEX_EINVAL,
                                  "invalid cursor: pass the nextCursor of the previous page, or "
                                  "no cursor for the first page");
        offset = (size_t)v;
    }
    size_t *order = malloc((snap->n_apis + 1) * sizeof *order);
    struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
    bool ok = order && o && arr;
    size_t n_ops = 0;
    for (size_t i = 0; ok && i < snap->n_apis; i++) {
        order[i] = i;
        n_ops += snap->apis[i].n_ops;
    }
    if (ok) qsort_r(order, snap->n_apis, sizeof *order, cmp_size, (void *)snap->apis);
    size_t end = offset + page < snap->n_apis ? offset + page : snap->n_apis;
    core_buf b;
    core_buf_init(&b, 0);
    for (size_t i = offset; ok && i < end; i++) {
        const store_api *api = &snap->apis[order[i]];
        struct json_object *a = json_object_new_object();
        core_buf_reset(&b);
        about_line(api, &b);
        ok = a && !b.failed;
        if (ok) {
            serve_jadd(a, "id", serve_jstr(api->id));
            serve_jadd(a, "about", json_object_new_string_len(b.data ? b.data : "", (int)b.len));
            ok = json_object_array_add(arr, a) == 0;
        } else {
            json_object_put(a);
        }
    }
    core_buf_free(&b);
    free(order);
    if (ok) {
        serve_jadd(o, "count", json_object_new_int64((int64_t)snap->n_apis));
        serve_jadd(o, "n_operations", json_object_new_int64((int64_t)n_ops));
        ok = serve_jadd(o, "apis", arr);
        arr = NULL;
        if (ok && end < snap->n_apis) {
            char next[64];
            snprintf(next, sizeof next, "%s%zu", cursor_prefix, end);
            ok = serve_jadd(o, "nextCursor", json_object_new_string(next));
        }
    }
    json_object_put(arr);
    if (!ok) {
        json_object_put(o);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    *out = o;
    return 0;
}
