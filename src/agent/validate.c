/*
 * Validates a JSON example from an LLM answer against the OpenAPI schema it
 * claims to follow (askAPI's JSON examples are checked this way). The
 * schema comes from the API's own document, loaded again from where the index
 * says it lives (store_api_doc, once per open index), so $refs, allOf and
 * nullable mean what the spec says.
 * The checking itself (what is covered, how deep) is spec_validate_json (oas/validate.c).
 */
#include "agent/agent_int.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- claims */

static const char *skip_ws(const char *s)
{
    while (isspace((unsigned char)*s)) s++;
    return s;
}

/* The JSON media of a request body or the first 2xx response. */
static spec_loc json_media_schema(const spec_media *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].type && strstr(m[i].type, "json")) return m[i].schema;
    return n ? m[0].schema : (spec_loc){0};
}

int agent_validate_example(store_index *idx, const char *claim, const char *json_text,
                           core_arena *arena, bool *found, bool *valid, const char **problem,
                           apidex_error *err)
{
    *found = false;
    *valid = false;
    *problem = NULL;
    if (!claim || !*claim) {
        *problem = "the example names no schema";
        return 0;
    }
    /* What is claimed: "request of ID", "response of ID", or a schema id or name. */
    claim = skip_ws(claim);
    int kind = 0; /* 0 schema, 1 request, 2 response */
    if (!strncasecmp(claim, "request of ", 11))
        kind = 1, claim = skip_ws(claim + 11);
    else if (!strncasecmp(claim, "request body of ", 16))
        kind = 1, claim = skip_ws(claim + 16);
    else if (!strncasecmp(claim, "response of ", 12))
        kind = 2, claim = skip_ws(claim + 12);
    const store_api *apis = NULL;
    const store_operation *ops = NULL;
    const store_schema *schemas = NULL;
    size_t n_apis = 0, n_ops = 0, n_schemas = 0;
    int rc = store_apis(idx, &apis, &n_apis, err);
    if (!rc) rc = store_operations(idx, &ops, &n_ops, err);
    if (!rc) rc = store_schemas(idx, &schemas, &n_schemas, err);
    if (rc) return rc;
    const store_operation *op = NULL;
    const store_schema *sc = NULL;
    if (kind) {
        long oi = store_find_operation(idx, claim);
        if (oi < 0) {
            char m[16];
            size_t ml = strcspn(claim, " ");
            if (ml < sizeof m && claim[ml]) {
                memcpy(m, claim, ml);
                m[ml] = '\0';
                oi = agent_match_endpoint(idx, NULL, m, claim + ml);
            }
        }
        op = oi >= 0 ? &ops[oi] : NULL;
    } else {
        long si = store_find_schema(idx, claim);
        if (si < 0 && !strchr(claim, ':')) { /* a bare name: fine when one API has it */
            for (size_t i = 0; i < n_schemas; i++) {
                if (strcmp(schemas[i].name, claim)) continue;
                if (si >= 0) {
                    si = -1;
                    break;
                }
                si = (long)i;
            }
        }
        sc = si >= 0 ? &schemas[si] : NULL;
    }
    if (!op && !sc) {
        *problem = core_arena_printf(arena, "the index has no %s \"%s\"",
                                     kind ? "endpoint" : "schema", claim);
        return 0;
    }
    long ai = store_find_api(idx, op ? op->api : sc->api);
    const char *doc = ai >= 0 ? apis[ai].document : NULL;
    if (!doc || strstr(doc, "://")) {
        *problem = "the API document is not a local file; not validated";
        return 0;
    }
    json_tokener *tok = json_tokener_new();
    json_object *x = tok ? json_tokener_parse_ex(tok, json_text, (int)strlen(json_text)) : NULL;
    bool complete = tok && json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    if (!x || !complete) {
        json_object_put(x);
        *found = true;
        *problem = "the example is not valid JSON";
        return 0;
    }
    store_doc *sd = NULL;
    const spec_api *api = NULL;
    apidex_error lerr;
    core_error_clear(&lerr);
    if (store_api_doc(idx, (size_t)ai, &sd, &api, &lerr) || !api || api->failed) {
        store_doc_release(sd);
        json_object_put(x);
        *problem = core_arena_printf(arena, "cannot reload %s: %s", doc,
                                     lerr.message[0] ? lerr.message : "load failed");
        return 0;
    }
    spec_loc schema = {0};
    if (op) {
        const spec_operation *lop = store_doc_operation(api, op->method, op->path);
        if (lop && kind == 1 && lop->body)
            schema = json_media_schema(lop->body->media, lop->body->n_media);
        for (size_t i = 0; lop && kind == 2 && i < lop->n_responses && !schema.node; i++)
            if (lop->responses[i].status[0] == '2')
                schema = json_media_schema(lop->responses[i].media, lop->responses[i].n_media);
    } else {
        for (size_t i = 0; i < api->n_schemas && !schema.node; i++)
            if (!strcmp(api->schemas[i].name, sc->name)) schema = api->schemas[i].node;
    }
    if (!schema.node) {
        *problem = core_arena_printf(arena, "%s has no %s schema in its document", claim,
                                     kind == 1   ? "JSON request"
                                     : kind == 2 ? "2xx JSON response"
                                                 : "such");
    } else {
        *found = true;
        rc = spec_validate_json(api, schema, x, kind == 1, arena, problem);
        *valid = !rc && !*problem;
    }
    store_doc_release(sd);
    json_object_put(x);
    return rc ? core_error_set(err, rc, "out of memory") : 0;
}
