/* A caller's request to a server (tools/call, resources/read, prompts/get): one session that
   starts (or connects to) the server, initializes, asks and ends, or a session of a pool
   (pool.c); the result object comes back as the server wrote it. */
#include "mcpc/mcpc_int.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

int mcpc_result_text(json_object *result, char **out, size_t *len, apidex_error *err)
{
    size_t n = 0;
    const char *text = json_object_to_json_string_length(result, JSON_C_TO_STRING_PLAIN, &n);
    *out = text ? malloc(n + 1) : NULL;
    if (!*out) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    memcpy(*out, text, n + 1);
    *len = n;
    return 0;
}

int mcpc_call(const mcpc_server *srv, const mcpc_options *opt, mcpc_pool *pool, const char *method,
              const char *params_text, char **out, size_t *len, apidex_error *err)
{
    *out = NULL;
    *len = 0;
    static const char *const methods[] = {"tools/call", "resources/read", "prompts/get"};
    bool known = false;
    for (size_t i = 0; method && i < sizeof methods / sizeof *methods; i++)
        known = known || !strcmp(method, methods[i]);
    if (!known)
        return core_error_set(err, APIDEX_EINVAL, "'%s' is not a call apidex makes",
                              method ? method : "(none)");
    json_object *params =
        params_text ? mcpc_json_parse(params_text, strlen(params_text)) : json_object_new_object();
    if (!json_object_is_type(params, json_type_object)) {
        json_object_put(params);
        return core_error_set(err, APIDEX_EINVAL, "the parameters of %s are not a JSON object",
                              method);
    }
    if (pool) {
        int rc = mcpc_pool_call(pool, srv, opt, method, params, out, len, err);
        json_object_put(params);
        return rc;
    }
    mcpc_conn c;
    int rc = mcpc_session_start(&c, srv, opt, err);
    if (rc) {
        json_object_put(params);
        return rc;
    }
    json_object *answer = NULL, *result = NULL;
    rc = mcpc_session_request(&c, 2, method, params, &answer, &result, err);
    if (!rc) rc = mcpc_result_text(result, out, len, err);
    json_object_put(answer);
    mcpc_session_end(&c);
    return rc;
}
