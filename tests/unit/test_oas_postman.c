/* Tests for Postman collections as specs (src/oas/postman*.c): detection, each mapping
   rule, auth inheritance, diagnostics with locations, and hostile collections. */
#include "testutil.h"

#include "oas/oas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static spec_registry *load_fixture(const char *name)
{
    char *dir = tu_path(tu_source_dir(), "tests/data/postman");
    char *p = tu_path(dir, name);
    spec_registry *reg = NULL;
    apidex_error err;
    core_error_clear(&err);
    if (spec_load_file(p, NULL, &reg, &err)) fail_msg("loading %s failed: %s", p, err.message);
    free(dir);
    free(p);
    assert_int_equal(spec_registry_count(reg), 1);
    return reg;
}

static spec_registry *load_text(const char *text)
{
    spec_registry *reg = NULL;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, "c.json", text, strlen(text), NULL, &err), 0);
    assert_int_equal(spec_registry_count(reg), 1);
    return reg;
}

static const spec_operation *find_op(const spec_api *api, const char *method, const char *path)
{
    for (size_t i = 0; i < api->n_ops; i++)
        if (!strcmp(api->ops[i].method, method) && !strcmp(api->ops[i].path, path))
            return &api->ops[i];
    fail_msg("no operation %s %s", method, path);
    return NULL;
}

static const spec_param *find_param(const spec_operation *op, const char *name, const char *in)
{
    for (size_t i = 0; i < op->n_params; i++)
        if (!strcmp(op->params[i].name, name) && !strcmp(op->params[i].in, in))
            return &op->params[i];
    return NULL;
}

static const core_diag *find_diag(const spec_api *api, core_diag_level level, const char *text)
{
    for (size_t i = 0; i < api->diags.n; i++)
        if (api->diags.items[i].level == level && strstr(api->diags.items[i].message, text))
            return &api->diags.items[i];
    return NULL;
}

/* The string at pointer under node, or NULL. */
static const char *str_at(const jt_node *node, const char *pointer)
{
    return jt_str(jt_pointer(node, pointer));
}

static void test_v21_info_servers_and_detection(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore_v21.postman_collection.json");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_string_equal(api->spec_version, "postman-2.1");
    assert_int_equal(api->major, 3);
    assert_string_equal(api->title, "Pet Store");
    assert_string_equal(api->description, "A pet shop: pets, owners and orders.");
    assert_string_equal(api->id, "pet-store");
    /* {{baseUrl}} is the collection variable's value; the most used origin is the server */
    assert_int_equal(api->n_servers, 1);
    assert_string_equal(api->servers[0].url, "https://petstore.example.com/v1");
    assert_int_equal(api->n_ops, 9);
    /* folders are tags, nested ones a path of names, with their descriptions */
    assert_int_equal(api->n_tags, 3);
    assert_string_equal(api->tags[0].name, "Pets");
    assert_string_equal(api->tags[0].description, "Everything about pets");
    assert_string_equal(api->tags[1].name, "Pets/Admin");
    assert_string_equal(api->tags[2].name, "Owners");
    spec_registry_free(reg);
}

static void test_requests_become_operations(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore_v21.postman_collection.json");
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *list = find_op(api, "GET", "/pets");
    assert_string_equal(list->operation_id, "list-all-pets");
    assert_string_equal(list->id, "pet-store:list-all-pets");
    assert_string_equal(list->summary, "List all pets");
    assert_string_equal(list->description, "Lists the pets in the shop, newest first.");
    assert_int_equal(list->n_tags, 1);
    assert_string_equal(list->tags[0], "Pets");
    /* the model's pointer is where the collection has the request */
    assert_string_equal(list->pointer, "/item/0/item/0");
    /* a second request with the same name gets a unique operationId; no folder, no tag */
    const spec_operation *archived = find_op(api, "GET", "/pets/archived");
    assert_string_equal(archived->operation_id, "list-all-pets-2");
    assert_int_equal(archived->n_tags, 0);
    /* :var and {{var}} path segments are path parameters */
    const spec_operation *get = find_op(api, "GET", "/pets/{petId}");
    const spec_param *pet = find_param(get, "petId", "path");
    assert_non_null(pet);
    assert_true(pet->required);
    assert_string_equal(pet->description, "The pet's id");
    assert_string_equal(str_at(pet->node.node, "/example"), "42");
    const spec_operation *photo = find_op(api, "POST", "/pets/{petId}/photos");
    assert_non_null(find_param(photo, "petId", "path"));
    spec_registry_free(reg);
}

static void test_query_and_header_parameters(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore_v21.postman_collection.json");
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *list = find_op(api, "GET", "/pets");
    const spec_param *limit = find_param(list, "limit", "query");
    assert_non_null(limit);
    assert_false(limit->required);
    assert_string_equal(limit->description, "How many pets to return");
    assert_string_equal(str_at(limit->schema.node, "/type"), "string");
    /* a disabled entry stays, optional and marked */
    const spec_param *status = find_param(list, "status", "query");
    assert_non_null(status);
    assert_true(jt_get_bool(status->node.node, "x-postman-disabled", false));
    assert_null(jt_get(limit->node.node, "x-postman-disabled"));
    const spec_param *rid = find_param(list, "X-Request-Id", "header");
    assert_non_null(rid);
    assert_string_equal(rid->description, "trace id");
    /* Accept and Content-Type are said by responses and bodies, not parameters */
    assert_null(find_param(list, "Accept", "header"));
    assert_int_equal(list->n_params, 3);
    spec_registry_free(reg);
}

static void test_bodies(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore_v21.postman_collection.json");
    const spec_api *api = spec_registry_api(reg, 0);
    /* raw JSON (a {{placeholder}} outside strings included): schema inferred, example kept */
    const spec_operation *create = find_op(api, "POST", "/pets");
    assert_non_null(create->body);
    assert_int_equal(create->body->n_media, 1);
    const spec_media *m = &create->body->media[0];
    assert_string_equal(m->type, "application/json");
    assert_string_equal(str_at(m->schema.node, "/type"), "object");
    assert_string_equal(str_at(m->schema.node, "/properties/name/type"), "string");
    assert_string_equal(str_at(m->schema.node, "/properties/ownerId/type"), "string");
    assert_string_equal(str_at(m->node.node, "/example/tag"), "dog");
    /* formdata: file fields are binary strings */
    const spec_operation *photo = find_op(api, "POST", "/pets/{petId}/photos");
    m = &photo->body->media[0];
    assert_string_equal(m->type, "multipart/form-data");
    assert_string_equal(str_at(m->schema.node, "/properties/photo/format"), "binary");
    assert_string_equal(str_at(m->schema.node, "/properties/photo/description"), "JPEG or PNG");
    assert_string_equal(str_at(m->schema.node, "/properties/caption/type"), "string");
    assert_null(jt_pointer(m->schema.node, "/properties/caption/format"));
    /* urlencoded */
    const spec_operation *login = find_op(api, "POST", "/owners/login");
    m = &login->body->media[0];
    assert_string_equal(m->type, "application/x-www-form-urlencoded");
    assert_string_equal(str_at(m->node.node, "/example/username"), "ann");
    /* graphql is a JSON body {query, variables} */
    const spec_operation *gql = find_op(api, "POST", "/graphql");
    m = &gql->body->media[0];
    assert_string_equal(m->type, "application/json");
    assert_string_equal(str_at(m->node.node, "/example/query"), "query { owners { id name } }");
    assert_int_equal(jt_pointer(m->node.node, "/example/variables/first")->u.i, 10);
    /* GET without a body has none */
    assert_null(find_op(api, "GET", "/pets")->body);
    spec_registry_free(reg);
}

static void test_saved_responses(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore_v21.postman_collection.json");
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *list = find_op(api, "GET", "/pets");
    assert_int_equal(list->n_responses, 2);
    const spec_response *ok = &list->responses[0];
    assert_string_equal(ok->status, "200");
    assert_string_equal(ok->description, "OK");
    assert_int_equal(ok->n_media, 1);
    /* the content type without its parameters; two examples, the schema of the first */
    assert_string_equal(ok->media[0].type, "application/json");
    const jt_node *s = ok->media[0].schema.node;
    assert_string_equal(str_at(s, "/type"), "array");
    assert_string_equal(str_at(s, "/items/properties/id/type"), "integer");
    assert_string_equal(str_at(s, "/items/properties/price/type"), "number");
    assert_string_equal(str_at(s, "/items/properties/vaccinated/type"), "boolean");
    const jt_node *ex = jt_get(ok->media[0].node.node, "examples");
    assert_int_equal(ex->len, 2);
    assert_string_equal(str_at(ex, "/two pets/value/0/name"), "Rex");
    assert_int_equal(jt_pointer(ex, "/no pets/value")->len, 0);
    const spec_response *bad = &list->responses[1];
    assert_string_equal(bad->status, "400");
    assert_string_equal(bad->media[0].type, "text/plain");
    assert_string_equal(str_at(bad->media[0].node.node, "/examples/bad limit/value"),
                        "limit must be a number");
    spec_registry_free(reg);
}

static void test_auth_inheritance(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore_v21.postman_collection.json");
    const spec_api *api = spec_registry_api(reg, 0);
    const jt_node *root = api->root.node;
    assert_string_equal(str_at(root, "/components/securitySchemes/apiKeyAuth/type"), "apiKey");
    assert_string_equal(str_at(root, "/components/securitySchemes/apiKeyAuth/name"), "X-Api-Key");
    assert_string_equal(str_at(root, "/components/securitySchemes/apiKeyAuth/in"), "header");
    /* collection auth: the document's security, which requests inherit */
    const spec_operation *list = find_op(api, "GET", "/pets");
    assert_non_null(jt_pointer(list->security.node, "/0/apiKeyAuth"));
    /* a folder's auth covers its requests */
    const spec_operation *del = find_op(api, "DELETE", "/pets/{petId}");
    assert_non_null(jt_pointer(del->security.node, "/0/bearerAuth"));
    assert_string_equal(str_at(root, "/components/securitySchemes/bearerAuth/scheme"), "bearer");
    /* noauth: an empty requirement list */
    const spec_operation *health = find_op(api, "GET", "/admin/health");
    assert_int_equal(health->security.node->type, JT_ARRAY);
    assert_int_equal(health->security.node->len, 0);
    /* oauth2 with scopes, and a request on another host gets its own server */
    const spec_operation *gql = find_op(api, "POST", "/graphql");
    assert_string_equal(str_at(gql->security.node, "/0/oauth2Auth/1"), "owners:write");
    assert_string_equal(
        str_at(root, "/components/securitySchemes/oauth2Auth/flows/clientCredentials/tokenUrl"),
        "https://auth.example.com/token");
    assert_string_equal(str_at(gql->node.node, "/servers/0/url"), "https://graph.example.com");
    spec_registry_free(reg);
}

static void test_diagnostics_have_locations(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore_v21.postman_collection.json");
    const spec_api *api = spec_registry_api(reg, 0);
    const core_diag *d = find_diag(api, CORE_DIAG_WARNING, "method LOCK");
    assert_non_null(d);
    assert_string_equal(d->pointer, "/item/3/request/method");
    assert_non_null(strstr(d->file, "petstore_v21.postman_collection.json"));
    assert_int_equal(d->line, 169);
    assert_true(d->col > 0);
    d = find_diag(api, CORE_DIAG_WARNING, "neither 'request' nor 'item'");
    assert_non_null(d);
    assert_string_equal(d->pointer, "/item/4");
    assert_int_equal(api->diags.n, 2);
    spec_registry_free(reg);
}

static void test_v20(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("weather_v20.json");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_string_equal(api->spec_version, "postman-2.0");
    assert_string_equal(api->version, "1.4.2");
    assert_string_equal(api->servers[0].url, "https://api.weather.example.org");
    assert_int_equal(api->n_ops, 2);
    /* a URL string: {{city}} in the path, the query string as parameters */
    const spec_operation *f = find_op(api, "GET", "/forecast/{city}");
    assert_non_null(find_param(f, "city", "path"));
    const spec_param *days = find_param(f, "days", "query");
    assert_non_null(days);
    assert_string_equal(str_at(days->node.node, "/example"), "3");
    assert_string_equal(f->description, "Three-day forecast with temperatures and wind.");
    assert_string_equal(find_param(f, "Accept-Language", "header")->description,
                        "Language of the text");
    assert_string_equal(
        str_at(f->responses[0].media[0].schema.node, "/properties/days/items/properties/wind/type"),
        "number");
    /* v2.0 auth settings are an object */
    assert_string_equal(str_at(api->root.node, "/components/securitySchemes/basicAuth/scheme"),
                        "basic");
    /* a URL object with a string path, a lower-case method */
    find_op(api, "GET", "/stations");
    assert_int_equal(api->diags.n, 0);
    spec_registry_free(reg);
}

static void test_detection_by_content(void **state)
{
    (void)state;
    /* no schema URL, but _postman_id and item: a collection (any file name) */
    spec_registry *reg =
        load_text("{\"info\": {\"_postman_id\": \"x\", \"name\": \"Bare\"},"
                  " \"item\": [{\"name\": \"ping\", \"request\": \"http://h.example/ping\"}]}");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_string_equal(api->spec_version, "postman-2.1");
    assert_string_equal(api->ops[0].path, "/ping");
    assert_string_equal(api->ops[0].method, "GET");
    assert_string_equal(api->servers[0].url, "http://h.example");
    spec_registry_free(reg);
    /* an OpenAPI document that kept a collection's info is still OpenAPI */
    reg = load_text(
        "{\"openapi\": \"3.0.0\", \"info\": {\"_postman_id\": \"x\", \"title\": \"O\","
        " \"version\": \"1\", \"schema\": \"https://schema.getpostman.com/json/collection/"
        "v2.1.0/collection.json\"}, \"item\": [], \"paths\": {}}");
    api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_string_equal(api->spec_version, "3.0.0");
    spec_registry_free(reg);
    /* info alone is no collection: the usual "not an OpenAPI document" */
    reg = load_text("{\"info\": {\"name\": \"x\"}, \"item\": []}");
    api = spec_registry_api(reg, 0);
    assert_true(api->failed);
    assert_non_null(find_diag(api, CORE_DIAG_ERROR, "not an OpenAPI or Swagger document"));
    spec_registry_free(reg);
}

static void test_bad_collections_fail_with_location(void **state)
{
    (void)state;
    spec_registry *reg =
        load_text("{\"info\": {\"name\": \"old\", \"schema\": "
                  "\"https://schema.getpostman.com/json/collection/v1.0.0/collection.json\"},"
                  " \"requests\": []}");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_true(api->failed);
    const core_diag *d = find_diag(api, CORE_DIAG_ERROR, "unsupported Postman collection version");
    assert_non_null(d);
    assert_string_equal(d->pointer, "/info/schema");
    assert_int_equal(d->line, 1);
    spec_registry_free(reg);
    reg = load_text("{\"info\": {\"name\": \"x\", \"schema\": "
                    "\"https://schema.getpostman.com/json/collection/v2.1.0/collection.json\"},\n"
                    " \"item\": {\"name\": \"not a list\"}}");
    api = spec_registry_api(reg, 0);
    assert_true(api->failed);
    d = find_diag(api, CORE_DIAG_ERROR, "needs an 'item' list");
    assert_non_null(d);
    assert_string_equal(d->pointer, "/item");
    assert_int_equal(d->line, 2);
    assert_int_equal(d->col, 10);
    spec_registry_free(reg);
}

static void test_bad_requests_are_skipped(void **state)
{
    (void)state;
    spec_registry *reg = load_text(
        "{\"info\": {\"_postman_id\": \"x\", \"name\": \"Bad bits\"}, \"item\": ["
        "{\"name\": \"a\", \"request\": {\"method\": \"GET\", \"url\": \"http://h/a\"}},"
        "{\"name\": \"a again\", \"request\": {\"method\": \"GET\", \"url\": \"http://h/a\"}},"
        "{\"name\": \"no url\", \"request\": {\"method\": \"GET\"}},"
        "42,"
        "{\"name\": \"f\", \"item\": 7},"
        "{\"name\": \"aws\", \"request\": {\"method\": \"PUT\", \"url\": \"http://h/b\","
        " \"auth\": {\"type\": \"awsv4\"}}},"
        "{\"name\": \"junk body\", \"request\": {\"method\": \"POST\", \"url\": \"http://h/c\","
        " \"body\": {\"mode\": \"raw\", \"raw\": \"{not json\", \"options\": {\"raw\": "
        "{\"language\": \"json\"}}}}}"
        "]}");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_int_equal(api->n_ops, 3);
    const core_diag *d = find_diag(api, CORE_DIAG_WARNING, "GET /a is already a request");
    assert_non_null(d);
    assert_string_equal(d->pointer, "/item/1");
    assert_string_equal(find_diag(api, CORE_DIAG_WARNING, "has no URL")->pointer,
                        "/item/2/request");
    assert_string_equal(find_diag(api, CORE_DIAG_WARNING, "not an object")->pointer, "/item/3");
    assert_string_equal(find_diag(api, CORE_DIAG_WARNING, "not a list")->pointer, "/item/4/item");
    assert_string_equal(find_diag(api, CORE_DIAG_WARNING, "awsv4")->pointer,
                        "/item/5/request/auth");
    /* a raw body that does not parse is kept as a string example */
    const spec_operation *c = find_op(api, "POST", "/c");
    assert_string_equal(str_at(c->body->media[0].schema.node, "/type"), "string");
    assert_string_equal(str_at(c->body->media[0].node.node, "/example"), "{not json");
    spec_registry_free(reg);
}

static void test_fragment_tells_requests_apart(void **state)
{
    (void)state;
    /* Postman's converter writes a spec's "/cookies#form" as path + hash: the second
       request on the same path keeps its fragment in the path instead of being dropped */
    spec_registry *reg = load_text(
        "{\"info\": {\"_postman_id\": \"x\", \"name\": \"Frag\"}, \"item\": ["
        "{\"name\": \"plain\", \"request\": {\"url\": {\"host\": [\"h\"], \"path\": "
        "[\"cookies\"]}}},"
        "{\"name\": \"form\", \"request\": {\"url\": {\"host\": [\"h\"], \"path\": [\"cookies\"],"
        " \"hash\": \"form\"}}},"
        "{\"name\": \"raw\", \"request\": \"http://h/cookies#deep\"},"
        "{\"name\": \"alone\", \"request\": \"http://h/page#top\"},"
        "{\"name\": \"ec2 a\", \"request\": \"http://h/#Action=Accept\"},"
        "{\"name\": \"ec2 b\", \"request\": \"http://h/#Action=Reject\"},"
        "{\"name\": \"files\", \"request\": {\"method\": \"POST\", \"url\": {\"host\": [\"h\"],"
        " \"path\": [\"\", \"v1\", \"files\", \"\"]}}}]}");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_int_equal(api->n_ops, 7);
    /* when requests share a method and path, each one with a fragment keeps it, the first
       one too (EC2's "/#Action=..." paths) */
    find_op(api, "GET", "/#Action=Accept");
    find_op(api, "GET", "/#Action=Reject");
    /* a leading empty segment (a server URL's '/' before the path) is a doubled slash;
       a trailing one is a trailing slash */
    find_op(api, "POST", "/v1/files/");
    find_op(api, "GET", "/cookies");
    find_op(api, "GET", "/cookies#form");
    find_op(api, "GET", "/cookies#deep");
    /* a fragment that does not collide is not part of the path */
    find_op(api, "GET", "/page");
    assert_int_equal(api->diags.n, 0);
    spec_registry_free(reg);
}

static void test_deep_folders(void **state)
{
    (void)state;
    /* 2,000 nested folders: the walk is iterative and stops at its depth cap with a warning */
    enum { DEPTH = 2000 };
    size_t cap = DEPTH * 40 + 512;
    char *t = malloc(cap);
    assert_non_null(t);
    size_t n = (size_t)snprintf(
        t, cap, "{\"info\": {\"_postman_id\": \"x\", \"name\": \"deep\"}, \"item\": ");
    for (int i = 0; i < DEPTH; i++)
        n += (size_t)snprintf(t + n, cap - n, "[{\"name\": \"f\", \"item\": ");
    n += (size_t)snprintf(t + n, cap - n, "[{\"name\": \"r\", \"request\": \"http://h/x\"}]");
    for (int i = 0; i < DEPTH; i++) n += (size_t)snprintf(t + n, cap - n, "}]");
    snprintf(t + n, cap - n, "}");
    spec_options opt = {.limits.max_depth = 10000};
    spec_registry *reg = NULL;
    apidex_error err;
    assert_int_equal(spec_registry_new(&opt, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, "deep.json", t, strlen(t), NULL, &err), 0);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_int_equal(api->n_ops, 0);
    assert_non_null(find_diag(api, CORE_DIAG_WARNING, "folders nest deeper"));
    spec_registry_free(reg);
    free(t);
}

static void test_directory_with_a_bad_collection(void **state)
{
    (void)state;
    char *tmp = tu_tempdir();
    free(tu_write(tmp, "good.postman_collection.json",
                  "{\"info\": {\"_postman_id\": \"1\", \"name\": \"Good\"},"
                  " \"item\": [{\"name\": \"ping\", \"request\": \"http://h/ping\"}]}"));
    free(tu_write(tmp, "broken.json",
                  "{\"info\": {\"schema\": \"https://schema.getpostman.com/json/collection/"
                  "v2.1.0/collection.json\"}, \"item\": [,]}"));
    free(tu_write(tmp, "spec.yaml",
                  "openapi: 3.0.0\ninfo: {title: Spec, version: '1'}\n"
                  "paths: {/x: {get: {responses: {'200': {description: ok}}}}}\n"));
    free(tu_write(tmp, "notes.json", "{\"info\": {\"name\": \"not a collection\"}}"));
    spec_registry *reg = NULL;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, tmp, &err), 0);
    /* notes.json is skipped quietly; the broken collection fails alone */
    assert_int_equal(spec_registry_count(reg), 3);
    size_t failed = 0, ops = 0;
    for (size_t i = 0; i < 3; i++) {
        const spec_api *api = spec_registry_api(reg, i);
        failed += api->failed;
        ops += api->n_ops;
        if (api->failed) {
            assert_non_null(strstr(api->file, "broken.json"));
            assert_true(api->diags.items[0].line > 0);
        }
    }
    assert_int_equal(failed, 1);
    assert_int_equal(ops, 2);
    spec_registry_free(reg);
    tu_rmtree(tmp);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v21_info_servers_and_detection),
        cmocka_unit_test(test_requests_become_operations),
        cmocka_unit_test(test_query_and_header_parameters),
        cmocka_unit_test(test_bodies),
        cmocka_unit_test(test_saved_responses),
        cmocka_unit_test(test_auth_inheritance),
        cmocka_unit_test(test_diagnostics_have_locations),
        cmocka_unit_test(test_v20),
        cmocka_unit_test(test_detection_by_content),
        cmocka_unit_test(test_bad_collections_fail_with_location),
        cmocka_unit_test(test_bad_requests_are_skipped),
        cmocka_unit_test(test_fragment_tells_requests_apart),
        cmocka_unit_test(test_deep_folders),
        cmocka_unit_test(test_directory_with_a_bad_collection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
