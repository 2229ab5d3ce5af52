/* Documents and helpers the tests of spec's typed views share (test_oas_view_*.c). */
#ifndef APIDEX_SPEC_VIEW_TESTDOC_H
#define APIDEX_SPEC_VIEW_TESTDOC_H

#include "testutil.h"

#include "oas/oas.h"

#include <string.h>

static inline spec_registry *load_named(const char *name, const char *text)
{
    spec_registry *reg = NULL;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, name, text, strlen(text), NULL, &err), 0);
    assert_int_equal(spec_registry_count(reg), 1);
    assert_false(spec_registry_api(reg, 0)->failed);
    return reg;
}

static inline spec_registry *load_text(const char *text)
{
    return load_named("t.json", text);
}

static inline const spec_operation *op_named(const spec_api *api, const char *operation_id)
{
    for (size_t i = 0; i < api->n_ops; i++)
        if (api->ops[i].operation_id && !strcmp(api->ops[i].operation_id, operation_id))
            return &api->ops[i];
    fail_msg("no operation %s", operation_id);
    return NULL;
}

static inline const spec_operation *op_by_path(const spec_api *api, const char *method,
                                               const char *path)
{
    for (size_t i = 0; i < api->n_ops; i++)
        if (!strcmp(api->ops[i].method, method) && !strcmp(api->ops[i].path, path))
            return &api->ops[i];
    fail_msg("no operation %s %s", method, path);
    return NULL;
}

static inline const spec_param *param(const spec_operation *op, const char *name)
{
    for (size_t i = 0; i < op->n_params; i++)
        if (!strcmp(op->params[i].name, name)) return &op->params[i];
    fail_msg("no parameter %s", name);
    return NULL;
}

/* Servers with descriptions and variables (one url no string), an operation with its own,
   parameter extras, a media type's example, schemes ($ref'd, dangling, two oauth2 flows). */
#define DOC_WRITTEN                                                                                \
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},"                         \
    "\"servers\":[{\"url\":\"https://{region}.example.com/v1\",\"description\":\"main\","          \
    "\"variables\":{\"region\":{\"default\":\"eu\",\"enum\":[\"eu\",\"us\"],"                      \
    "\"description\":\"where\"},\"bare\":{}}},{\"url\":7}],"                                       \
    "\"paths\":{\"/a\":{\"get\":{\"operationId\":\"getA\",\"parameters\":[{\"name\":\"q\","        \
    "\"in\":\"query\",\"style\":\"form\",\"explode\":false,\"example\":\"x\","                     \
    "\"examples\":{\"one\":{\"value\":\"y\"}},\"schema\":{\"type\":\"string\"}}],"                 \
    "\"responses\":{\"200\":{\"description\":\"ok\"}}},"                                           \
    "\"post\":{\"operationId\":\"postA\",\"servers\":[{\"url\":\"https://own.example.com\"}],"     \
    "\"requestBody\":{\"content\":{\"application/json\":{\"schema\":{\"type\":\"object\"},"        \
    "\"example\":{\"k\":1}}}},\"responses\":{\"200\":{\"description\":\"ok\"}}}}},"                \
    "\"components\":{\"securitySchemes\":{"                                                        \
    "\"key\":{\"type\":\"apiKey\",\"in\":\"header\",\"name\":\"X-Key\"},"                          \
    "\"bearer\":{\"$ref\":\"#/components/securitySchemes/http\"},"                                 \
    "\"http\":{\"type\":\"http\",\"scheme\":\"bearer\"},"                                          \
    "\"dangling\":{\"$ref\":\"#/components/securitySchemes/none\"},"                               \
    "\"oauth\":{\"type\":\"oauth2\",\"flows\":{\"implicit\":{\"scopes\":{}},"                      \
    "\"clientCredentials\":{\"tokenUrl\":\"https://t.example.com/token\",\"scopes\":{}},"          \
    "\"password\":{\"tokenUrl\":\"https://later.example.com\",\"scopes\":{}}}},"                   \
    "\"oidc\":{\"type\":\"openIdConnect\",\"openIdConnectUrl\":\"https://o.example.com\"}}}}"

/* What a request builder reads: server variables (a default no string, an enum with a
   number), operation servers (empty too), parameter and form-field serialisation, security
   requirements, schemes ($ref'd, dangling, client credentials or not), MCP marks. */
#define DOC_REQUEST                                                                                \
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},"                         \
    "\"servers\":[{\"url\":\"https://{region}.example.com/{base}\",\"variables\":{"                \
    "\"region\":{\"default\":\"eu\",\"enum\":[\"eu\",\"us\",7]},\"base\":{\"default\":3}}},"       \
    "{\"url\":\"http://plain.example.com\"}],"                                                     \
    "\"security\":[{\"key\":[]}],"                                                                 \
    "\"paths\":{"                                                                                  \
    "\"/a\":{\"get\":{\"servers\":[{\"url\":\"https://op.example.com\"}],"                         \
    "\"parameters\":[{\"name\":\"q\",\"in\":\"query\",\"style\":\"pipeDelimited\","                \
    "\"explode\":false,\"allowReserved\":true,\"schema\":{\"type\":[\"null\",\"integer\"]}},"      \
    "{\"name\":\"h\",\"in\":\"header\",\"explode\":\"yes\",\"schema\":{\"type\":\"string\"}}],"    \
    "\"responses\":{\"200\":{\"description\":\"ok\"}}}},"                                          \
    "\"/b\":{\"post\":{\"servers\":[],\"security\":[{}],"                                          \
    "\"requestBody\":{\"content\":{\"multipart/form-data\":{\"schema\":{\"type\":\"object\","      \
    "\"properties\":{\"file\":{\"type\":\"string\",\"format\":\"binary\"},\"meta\":{"              \
    "\"$ref\":\"#/components/schemas/Meta\"}}},\"encoding\":{\"meta\":{\"contentType\":"           \
    "\"application/json\",\"style\":\"form\",\"explode\":true}}}}},"                               \
    "\"responses\":{\"200\":{\"description\":\"ok\"}}}},"                                          \
    "\"/c\":{\"get\":{\"security\":[],\"x-mcp-resource\":\"file:///{name}\","                      \
    "\"x-mcp-pointer\":\"/resourceTemplates/"                                                      \
    "0\",\"responses\":{\"200\":{\"description\":\"ok\"}}}},"                                      \
    "\"/d\":{\"post\":{\"security\":\"bad\",\"x-mcp-tool\":\"write_file\",\"x-mcp-prompt\":7,"     \
    "\"x-mcp-input-schema\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}" \
    ","                                                                                            \
    "\"x-mcp-annotations\":{\"readOnlyHint\":\"true\",\"destructiveHint\":true},"                  \
    "\"responses\":{\"200\":{\"description\":\"ok\"}}}}},"                                         \
    "\"components\":{\"schemas\":{\"Meta\":{\"type\":\"object\"}},\"securitySchemes\":{"           \
    "\"key\":{\"type\":\"apiKey\",\"in\":\"header\",\"name\":\"X-Key\"},"                          \
    "\"basic\":{\"type\":\"http\",\"scheme\":\"basic\"},"                                          \
    "\"alias\":{\"$ref\":\"#/components/securitySchemes/basic\"},"                                 \
    "\"gone\":{\"$ref\":\"#/components/securitySchemes/nowhere\"},"                                \
    "\"oauth\":{\"type\":\"oauth2\",\"flows\":{\"clientCredentials\":{\"tokenUrl\":"               \
    "\"https://auth.example.com/token\",\"scopes\":{}}}},"                                         \
    "\"code\":{\"type\":\"oauth2\",\"flows\":{\"authorizationCode\":{\"tokenUrl\":\"https://"      \
    "x\"}}}"                                                                                       \
    "}}}"

/* The same for Swagger 2.0: collectionFormat, basic, oauth2 application and implicit flows. */
#define DOC_REQUEST_SWAGGER2                                                                       \
    "{\"swagger\":\"2.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"host\":\"api.example."    \
    "com\","                                                                                       \
    "\"paths\":{\"/x\":{\"get\":{\"parameters\":[{\"name\":\"ids\",\"in\":\"query\","              \
    "\"type\":\"array\",\"items\":{\"type\":\"string\"},\"collectionFormat\":\"pipes\"}],"         \
    "\"responses\":{\"200\":{\"description\":\"ok\"}}}}},"                                         \
    "\"securityDefinitions\":{\"basic\":{\"type\":\"basic\"},"                                     \
    "\"app\":{\"type\":\"oauth2\",\"flow\":\"application\",\"tokenUrl\":\"https://"                \
    "t.example.com\"},"                                                                            \
    "\"implicit\":{\"type\":\"oauth2\",\"flow\":\"implicit\",\"tokenUrl\":\"https://i\"}}}"

/* Schemes of every type (with description, bearerFormat, unknown type, untyped), two
   servers' variables, nullable and x-nullable schemas. */
#define DOC_SCHEMES                                                                                \
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{},"            \
    "\"servers\":[{\"url\":\"https://{region}.example.com/{v}\",\"variables\":{"                   \
    "\"region\":{\"default\":\"eu\",\"enum\":[\"eu\",\"us\"],\"description\":\"where\"},"          \
    "\"v\":{\"default\":\"v1\"}}},{\"url\":\"https://other.example.com\"}],"                       \
    "\"components\":{\"schemas\":{\"N\":{\"type\":\"string\",\"x-nullable\":true},"                \
    "\"M\":{\"type\":\"string\",\"nullable\":true},\"P\":{\"type\":\"string\"}},"                  \
    "\"securitySchemes\":{"                                                                        \
    "\"key\":{\"type\":\"apiKey\",\"in\":\"header\",\"name\":\"X-Key\",\"description\":\"k\"},"    \
    "\"bearer\":{\"type\":\"http\",\"scheme\":\"Bearer\",\"bearerFormat\":\"JWT\"},"               \
    "\"oauth\":{\"type\":\"oauth2\",\"flows\":{\"implicit\":{\"authorizationUrl\":\"https://a\","  \
    "\"scopes\":{}},\"clientCredentials\":{\"tokenUrl\":\"https://t\",\"scopes\":{}}}},"           \
    "\"oidc\":{\"type\":\"openIdConnect\",\"openIdConnectUrl\":\"https://o\"},"                    \
    "\"alias\":{\"$ref\":\"#/components/securitySchemes/key\"},"                                   \
    "\"gone\":{\"$ref\":\"#/components/securitySchemes/nowhere\"},"                                \
    "\"tls\":{\"type\":\"mutualTLS\"},"                                                            \
    "\"untyped\":{\"in\":\"query\"}}}}"

/* Swagger 2.0 schemes (basic, oauth2 application) and a host instead of servers. */
#define DOC_SCHEMES_SWAGGER2                                                                       \
    "{\"swagger\":\"2.0\",\"info\":{\"title\":\"s\",\"version\":\"1\"},\"paths\":{},"              \
    "\"host\":\"h.example.com\",\"securityDefinitions\":{"                                         \
    "\"b\":{\"type\":\"basic\"},"                                                                  \
    "\"o\":{\"type\":\"oauth2\",\"flow\":\"application\",\"tokenUrl\":\"https://t2\"}}}"

#endif /* APIDEX_SPEC_VIEW_TESTDOC_H */
