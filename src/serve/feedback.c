/*
 * Feedback, the query behind POST /v1/feedback and MCP report_usage: the endpoints a caller
 * used for a task, checked here and recorded in the index's usage sidecar
 * (store_usage_feedback); the searches see them through usage_cache.c.
 */
#include "serve/serve_int.h"

#include <string.h>

enum { USAGE_MAX_ENDPOINTS = 256 };

int serve_query_feedback(serve_snapshot *snap, struct json_object *args, struct json_object **out,
                         apidex_error *err)
{
    *out = NULL;
    if (!json_object_is_type(args, json_type_object))
        return core_error_set(err, APIDEX_EINVAL, "the arguments must be a JSON object");
    const char *endpoints[USAGE_MAX_ENDPOINTS];
    size_t n = 0;
    const char *api = NULL, *task = NULL;
    json_object_object_foreach(args, key, val)
    {
        bool is_str =
            json_object_is_type(val, json_type_string) &&
            serve_text_ok(json_object_get_string(val), (size_t)json_object_get_string_len(val));
        if (!strcmp(key, "endpoints")) {
            size_t len = json_object_is_type(val, json_type_array) ? json_object_array_length(val)
                                                                   : USAGE_MAX_ENDPOINTS + 1;
            if (len == 0 || len > USAGE_MAX_ENDPOINTS)
                return core_error_set(err, APIDEX_EINVAL,
                                      "endpoints must be an array of 1 to %d endpoint ids or "
                                      "\"METHOD /path\" strings",
                                      USAGE_MAX_ENDPOINTS);
            for (size_t i = 0; i < len; i++) {
                struct json_object *it = json_object_array_get_idx(val, i);
                if (!json_object_is_type(it, json_type_string) ||
                    !serve_text_ok(json_object_get_string(it),
                                   (size_t)json_object_get_string_len(it)))
                    return core_error_set(err, APIDEX_EINVAL, "endpoints[%zu] must be a string", i);
                endpoints[n++] = json_object_get_string(it);
            }
        } else if (!strcmp(key, "api") || !strcmp(key, "task")) {
            if (!is_str) return core_error_set(err, APIDEX_EINVAL, "%s must be a string", key);
            *(!strcmp(key, "api") ? &api : &task) = json_object_get_string(val);
        } else {
            return core_error_set(err, APIDEX_EINVAL,
                                  "unknown member '%.40s' (endpoints, api, task)", key);
        }
    }
    if (!n) return core_error_set(err, APIDEX_EINVAL, "endpoints is required");
    int rc = store_usage_feedback(serve_db_path(snap->db), snap->idx, endpoints, n, api, task, err);
    if (rc) return rc;
    struct json_object *o = json_object_new_object();
    if (!o || !serve_jadd(o, "recorded", json_object_new_int64((int64_t)n))) {
        json_object_put(o);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    *out = o;
    return 0;
}
