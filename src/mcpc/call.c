/* tools/call: one session that starts (or connects to) the server, initializes, calls one
   tool with its arguments and ends; the result object comes back as the server wrote it. */
#include "mcpc/mcpc_int.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

int mcpc_call_tool(const mcpc_server *srv, const mcpc_options *opt, const char *tool,
                   const char *arguments, char **out, size_t *len, apidex_error *err)
{
    *out = NULL;
    *len = 0;
    json_object *args =
        arguments ? mcpc_json_parse(arguments, strlen(arguments)) : json_object_new_object();
    if (!json_object_is_type(args, json_type_object)) {
        json_object_put(args);
        return core_error_set(err, APIDEX_EINVAL,
                              "the arguments of tool '%s' are not a JSON object", tool);
    }
    mcpc_conn c;
    int rc = mcpc_session_start(&c, srv, opt, err);
    if (rc) {
        json_object_put(args);
        return rc;
    }
    json_object *params = json_object_new_object();
    json_object_object_add(params, "name", json_object_new_string(tool));
    json_object_object_add(params, "arguments", args);
    json_object *answer = NULL, *result = NULL;
    rc = mcpc_session_request(&c, 2, "tools/call", params, &answer, &result, err);
    if (!rc) {
        size_t n = 0;
        const char *text = json_object_to_json_string_length(result, JSON_C_TO_STRING_PLAIN, &n);
        *out = text ? malloc(n + 1) : NULL;
        if (*out) {
            memcpy(*out, text, n + 1);
            *len = n;
        } else {
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
        }
    }
    json_object_put(answer);
    mcpc_session_end(&c);
    return rc;
}
