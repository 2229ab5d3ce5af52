/*
 * apidex's own HTTP API as an OpenAPI 3.1 document, served at /openapi.json (apidex indexes
 * it). The words, parameters, bodies and responses are data, src/serve/openapi_self.json,
 * embedded at build time (tools/embed_file.cmake); the paths and their methods are the
 * route table's (routes.c), in its order. A path or method that only one of the two has is
 * a mistake of the source, refused here with a message naming it, so that a route cannot
 * be added without its documentation or the other way round.
 */
#include "serve/http_int.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char serve_openapi_data[];
extern const size_t serve_openapi_data_len;

/* The document's methods of a row: its Allow list but HEAD, lower-cased ("get", "post"). */
static size_t documented_methods(const serve_route_def *r, char out[][8], size_t max)
{
    size_t n = 0;
    for (const char *p = r->allow; *p && n < max;) {
        size_t len = strcspn(p, ", ");
        if (len < 8 && strncmp(p, "HEAD", len)) {
            for (size_t i = 0; i < len; i++) out[n][i] = (char)tolower((unsigned char)p[i]);
            out[n++][len] = '\0';
        }
        p += len;
        p += strspn(p, ", ");
    }
    return n;
}

static const serve_route_def *row_of(const char *path)
{
    for (size_t i = 0; i < serve_n_routes; i++)
        if (!strcmp(serve_routes[i].path, path)) return &serve_routes[i];
    return NULL;
}

/* The paths object in the table's order, from the data's; an error names what only one has. */
static int table_paths(struct json_object *data_paths, struct json_object **out, apidex_error *err)
{
    *out = NULL;
    json_object_object_foreach(data_paths, path, path_item)
    {
        if (!row_of(path))
            return core_error_set(err, APIDEX_EINVAL,
                                  "openapi_self.json: /paths/%s: no route serves it (routes.c)",
                                  path);
        (void)path_item;
    }
    struct json_object *paths = json_object_new_object();
    if (!paths) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; i < serve_n_routes; i++) {
        const serve_route_def *r = &serve_routes[i];
        struct json_object *ops = NULL, *item = NULL;
        if (!json_object_object_get_ex(data_paths, r->path, &ops) ||
            !json_object_is_type(ops, json_type_object)) {
            json_object_put(paths);
            return core_error_set(err, APIDEX_EINVAL,
                                  "routes.c: route %s has no operations in openapi_self.json",
                                  r->path);
        }
        char methods[4][8];
        size_t n = documented_methods(r, methods, 4);
        if ((size_t)json_object_object_length(ops) != n) {
            json_object_put(paths);
            return core_error_set(err, APIDEX_EINVAL,
                                  "openapi_self.json: /paths/%s documents %d methods, the route "
                                  "takes %s (routes.c)",
                                  r->path, json_object_object_length(ops), r->allow);
        }
        item = json_object_new_object();
        for (size_t m = 0; item && m < n; m++) {
            struct json_object *op = NULL;
            if (!json_object_object_get_ex(ops, methods[m], &op)) {
                json_object_put(item);
                json_object_put(paths);
                return core_error_set(err, APIDEX_EINVAL,
                                      "openapi_self.json: /paths/%s has no %s operation, the "
                                      "route takes %s (routes.c)",
                                      r->path, methods[m], r->allow);
            }
            json_object_object_add(item, methods[m], json_object_get(op));
        }
        if (!item || json_object_object_add(paths, r->path, item)) {
            json_object_put(paths);
            return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        }
    }
    *out = paths;
    return 0;
}

int serve_openapi_build(const char *data, size_t len, char **out, apidex_error *err)
{
    *out = NULL;
    struct json_tokener *tok = json_tokener_new_ex(128);
    if (!tok) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    struct json_object *doc = json_tokener_parse_ex(tok, data, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    json_tokener_free(tok);
    struct json_object *info = NULL, *data_paths = NULL, *paths = NULL;
    int rc = 0;
    if (jerr != json_tokener_success || !json_object_is_type(doc, json_type_object))
        rc = core_error_set(err, APIDEX_EINVAL, "openapi_self.json: not a JSON object (%s)",
                            json_tokener_error_desc(jerr));
    else if (!json_object_object_get_ex(doc, "info", &info) ||
             !json_object_object_get_ex(doc, "paths", &data_paths) ||
             !json_object_is_type(data_paths, json_type_object))
        rc = core_error_set(err, APIDEX_EINVAL, "openapi_self.json: no info or paths");
    if (!rc) rc = table_paths(data_paths, &paths, err);
    if (!rc) {
        json_object_object_add(info, "version", json_object_new_string(apidex_version()));
        json_object_object_add(doc, "paths", paths);
        const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
        *out = text ? strdup(text) : NULL;
        if (!*out) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    json_object_put(doc);
    return rc;
}

static char *document;
static apidex_error document_err;
static pthread_once_t document_once = PTHREAD_ONCE_INIT;

static void document_build(void)
{
    core_error_clear(&document_err);
    serve_openapi_build(serve_openapi_data, serve_openapi_data_len, &document, &document_err);
}

const char *serve_openapi_document(apidex_error *err)
{
    pthread_once(&document_once, document_build);
    if (!document && err) *err = document_err;
    return document;
}

/* A local "$ref" ("#/components/schemas/X") of doc followed once; other nodes as they are. */
static struct json_object *follow_ref(struct json_object *doc, struct json_object *node)
{
    struct json_object *ref = NULL, *at = doc;
    if (!json_object_object_get_ex(node, "$ref", &ref)) return node;
    const char *p = json_object_get_string(ref);
    if (strncmp(p, "#/", 2)) return NULL;
    char seg[128];
    for (p += 2; *p && at;) {
        size_t n = strcspn(p, "/");
        if (n >= sizeof seg) return NULL;
        memcpy(seg, p, n);
        seg[n] = '\0';
        if (!json_object_object_get_ex(at, seg, &at)) return NULL;
        p += n;
        p += *p == '/';
    }
    return at;
}

struct json_object *serve_openapi_schema(struct json_object *doc, const char *path,
                                         const char *method, const char *name)
{
    struct json_object *paths = NULL, *item = NULL, *op = NULL, *params = NULL, *body = NULL;
    if (!json_object_object_get_ex(doc, "paths", &paths) ||
        !json_object_object_get_ex(paths, path, &item) ||
        !json_object_object_get_ex(item, method, &op))
        return NULL;
    if (json_object_object_get_ex(op, "parameters", &params))
        for (size_t i = 0; i < json_object_array_length(params); i++) {
            struct json_object *p = json_object_array_get_idx(params, i), *pname = NULL,
                               *schema = NULL;
            if (json_object_object_get_ex(p, "name", &pname) &&
                !strcmp(json_object_get_string(pname), name) &&
                json_object_object_get_ex(p, "schema", &schema)) {
                struct json_object *copy = NULL;
                return json_object_deep_copy(schema, &copy, NULL) ? NULL : copy;
            }
        }
    struct json_object *content = NULL, *json = NULL, *schema = NULL, *props = NULL, *prop = NULL,
                       *copy = NULL;
    if (json_object_object_get_ex(op, "requestBody", &body) &&
        json_object_object_get_ex(body, "content", &content) &&
        json_object_object_get_ex(content, "application/json", &json) &&
        json_object_object_get_ex(json, "schema", &schema) && (schema = follow_ref(doc, schema)) &&
        json_object_object_get_ex(schema, "properties", &props) &&
        json_object_object_get_ex(props, name, &prop) && !json_object_deep_copy(prop, &copy, NULL))
        return copy;
    return NULL;
}
