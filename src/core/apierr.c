/* Error messages from the bodies of OpenAI-compatible HTTP APIs (chat, embeddings). */
#include "core/core.h"

#include <json-c/json.h>
#include <stdio.h>

void core_api_error_message(const char *body, size_t len, char *out, size_t cap)
{
    if (!cap) return;
    out[0] = '\0';
    json_object *root = len ? json_tokener_parse(body) : NULL;
    json_object *e = NULL, *m = NULL;
    if (root && json_object_object_get_ex(root, "error", &e)) {
        if (json_object_is_type(e, json_type_string))
            snprintf(out, cap, "%s", json_object_get_string(e));
        else if (json_object_object_get_ex(e, "message", &m))
            snprintf(out, cap, "%s", json_object_get_string(m));
    } else if (root && json_object_object_get_ex(root, "detail", &m)) {
        snprintf(out, cap, "%s",
                 json_object_is_type(m, json_type_string) ? json_object_get_string(m)
                                                          : json_object_to_json_string(m));
    } else if (len) {
        size_t n = len < 200 ? len : 200;
        snprintf(out, cap, "%.*s", (int)n, body);
    }
    json_object_put(root);
    for (char *c = out; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
}
