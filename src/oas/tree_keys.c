/*
 * What a key of a raw OpenAPI tree is (a name map, a functional string, an example, ...) and
 * whether a raw parameter object is a Swagger 2.0 body: for walks that filter a tree without
 * the model (prep's tree filter), so that they never spell keywords.
 */
#include "oas/oas_int.h"

#include <string.h>

/* ---------------------------------------------------------------- keys of a raw tree */

static bool key_is(const char *k, size_t n, const char *lit)
{
    return k && strlen(lit) == n && !memcmp(k, lit, n);
}

static bool key_in(const char *k, size_t n, const char *const *set)
{
    for (size_t i = 0; set[i]; i++)
        if (key_is(k, n, set[i])) return true;
    return false;
}

/* Parents under which a key is a name chosen by the author, not a keyword. */
static const char *const name_maps[] = {"properties",
                                        "patternProperties",
                                        "definitions",
                                        "schemas",
                                        "parameters",
                                        "responses",
                                        "requestBodies",
                                        "headers",
                                        "securitySchemes",
                                        "securityDefinitions",
                                        "links",
                                        "callbacks",
                                        "paths",
                                        "variables",
                                        "mapping",
                                        "webhooks",
                                        "encoding",
                                        "content",
                                        NULL};

/* String values that the document needs to work. */
static const char *const functional_keys[] = {"$ref",
                                              "url",
                                              "host",
                                              "basePath",
                                              "operationId",
                                              "pattern",
                                              "format",
                                              "type",
                                              "in",
                                              "name",
                                              "authorizationUrl",
                                              "tokenUrl",
                                              "refreshUrl",
                                              "openIdConnectUrl",
                                              "$id",
                                              "$schema",
                                              "propertyName",
                                              "$anchor",
                                              "$dynamicRef",
                                              "$dynamicAnchor",
                                              "style",
                                              "collectionFormat",
                                              "openapi",
                                              "swagger",
                                              "version",
                                              "$comment",
                                              NULL};

static const char *const example_keys[] = {"example", "examples", "x-examples", "x-example", NULL};

unsigned spec_tree_key_roles(const char *key, size_t len)
{
    if (!key) return 0;
    unsigned r = 0;
    if (key_in(key, len, name_maps)) r |= SPEC_TREE_KEY_NAMES;
    if (key_in(key, len, functional_keys)) r |= SPEC_TREE_KEY_FUNCTIONAL;
    if (key_is(key, len, "enum") || key_is(key, len, "required")) r |= SPEC_TREE_KEY_VALUE_LIST;
    if (key_in(key, len, example_keys)) r |= SPEC_TREE_KEY_EXAMPLE;
    if (key_is(key, len, "responses")) r |= SPEC_TREE_KEY_RESPONSES;
    if (key_is(key, len, "headers")) r |= SPEC_TREE_KEY_HEADERS;
    if (key_is(key, len, "requestBody")) r |= SPEC_TREE_KEY_REQUEST_BODY;
    if (key_is(key, len, "requestBodies")) r |= SPEC_TREE_KEY_REQUEST_BODIES;
    if (key_is(key, len, "components")) r |= SPEC_TREE_KEY_COMPONENTS;
    if (key_is(key, len, "parameters")) r |= SPEC_TREE_KEY_PARAMETERS;
    return r;
}

bool spec_tree_param_in_body(const jt_node *param)
{
    const char *in = jt_get_str(param, "in");
    return in && (!strcmp(in, "body") || !strcmp(in, "formData"));
}
