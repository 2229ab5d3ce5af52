/* The plan of a search answer as JSON, for /v1/search and search_endpoints: the steps in
   call order, each input with where its value comes from. The shape of `apidex search
   --json` (src/cli/search_plan.c). */
#include "serve/serve_int.h"

#include <json-c/json.h>

static const char *source_name(search_source from)
{
    return from == SEARCH_FROM_STEP ? "step" : from == SEARCH_FROM_TASK ? "task" : "caller";
}

static struct json_object *inputs_json(const search_plan_step *s)
{
    struct json_object *arr = json_object_new_array();
    for (size_t k = 0; arr && k < s->n_inputs; k++) {
        const search_plan_input *in = &s->inputs[k];
        struct json_object *o = json_object_new_object();
        if (!o || json_object_array_add(arr, o)) {
            json_object_put(o);
            json_object_put(arr);
            return NULL;
        }
        serve_jadd(o, "param", serve_jstr(in->param));
        serve_jadd(o, "from", json_object_new_string(source_name(in->from)));
        if (in->from == SEARCH_FROM_STEP) {
            serve_jadd(o, "step", json_object_new_int64((int64_t)in->step + 1));
            serve_jadd(o, "producer", serve_jstr(in->producer_id));
        }
    }
    return arr;
}

struct json_object *serve_plan_json(const search_result *res)
{
    struct json_object *arr = json_object_new_array();
    for (size_t i = 0; arr && i < res->n_plan; i++) {
        const search_plan_step *s = &res->plan[i];
        struct json_object *o = json_object_new_object();
        if (!o || json_object_array_add(arr, o)) {
            json_object_put(o);
            json_object_put(arr);
            return NULL;
        }
        serve_jadd(o, "step", json_object_new_int64((int64_t)i + 1));
        serve_jadd(o, "id", serve_jstr(s->id));
        serve_jadd(o, "api", serve_jstr(s->api));
        serve_jadd(o, "method", serve_jstr(s->method));
        serve_jadd(o, "path", serve_jstr(s->path));
        serve_jadd(
            o, "role",
            json_object_new_string(s->role == SEARCH_ROLE_PRODUCER ? "producer" : "primary"));
        struct json_object *in = inputs_json(s);
        if (!in || !serve_jadd(o, "inputs", in)) {
            json_object_put(arr);
            return NULL;
        }
    }
    return arr;
}
