/*
 * A document tree's node as a json-c value: the one conversion from jt_node to json-c, for
 * what the tree holds and a json-c consumer takes (validation, tool definitions, mocks); and
 * the one member adder that puts the value when json-c cannot take it.
 */
#include "core/core.h"

#include <json-c/json.h>

static struct json_object *to_json(const jt_node *n, unsigned depth, unsigned max_depth)
{
    if (!n || depth > max_depth) return NULL;
    switch (n->type) {
    case JT_BOOL:
        return json_object_new_boolean(n->boolean);
    case JT_INT:
        return json_object_new_int64(n->u.i);
    case JT_REAL:
        return json_object_new_double(n->u.d);
    case JT_STRING:
        return json_object_new_string_len(n->u.s, (int)n->len);
    case JT_ARRAY: {
        struct json_object *a = json_object_new_array();
        for (uint32_t i = 0; a && i < n->len; i++) {
            struct json_object *v = to_json(n->u.items[i], depth + 1, max_depth);
            if (json_object_array_add(a, v)) json_object_put(v);
        }
        return a;
    }
    case JT_OBJECT: {
        struct json_object *o = json_object_new_object();
        for (uint32_t i = 0; o && i < n->len; i++) {
            struct json_object *v = to_json(n->u.members[i].value, depth + 1, max_depth);
            if (json_object_object_add(o, n->u.members[i].key, v)) json_object_put(v);
        }
        return o;
    }
    default:
        return NULL; /* JSON null */
    }
}

struct json_object *jt_to_json_object(const jt_node *n, unsigned max_depth)
{
    return to_json(n, 0, max_depth);
}

bool core_json_add(struct json_object *obj, const char *key, struct json_object *value)
{
    if (json_object_object_add(obj, key, value) != 0) {
        json_object_put(value);
        return false;
    }
    return true;
}
