/* mock routing, request checks and state, through mock_handle (no sockets): the
   tests/data/mock specs, then the TMDB top_rated -> credits flow on the real spec. */
#include "testutil.h"

#include "mock/mock.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    spec_registry *reg;
    mock *mk;
    core_arena *arena;
} fixture;

/* A mock over the specs of tests/data/mock named (NULL-terminated). */
static fixture *fixture_new(const char *const *specs)
{
    fixture *f = calloc(1, sizeof *f);
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &f->reg, &err), 0);
    for (size_t i = 0; specs[i]; i++) {
        char *p = tu_path(tu_source_dir(), specs[i]);
        assert_int_equal(spec_registry_add(f->reg, p, &err), 0);
        free(p);
    }
    mock_options o = {.seed = 7};
    assert_int_equal(mock_new(f->reg, &o, &f->mk, &err), 0);
    f->arena = core_arena_new(0);
    return f;
}

static int setup(void **state)
{
    static const char *const specs[] = {"tests/data/mock/store.yaml", "tests/data/mock/other.json",
                                        NULL};
    *state = fixture_new(specs);
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    mock_free(f->mk);
    spec_registry_free(f->reg);
    core_arena_free(f->arena);
    free(f);
    return 0;
}

/* One request: "GET /path?a=1&b=2" with an optional JSON body; returns the response and
   (when the body is JSON) its parsed value in *json (json_object_put it). */
static mock_response call(fixture *f, const char *method, const char *url, const char *body,
                          const char *ctype, json_object **json)
{
    static mock_pair query[16], headers[4];
    size_t nq = 0;
    char *u = core_arena_strdup(f->arena, url);
    char *qs = strchr(u, '?');
    if (qs) {
        *qs++ = '\0';
        char *save = NULL;
        for (char *t = strtok_r(qs, "&", &save); t && nq < 16; t = strtok_r(NULL, "&", &save)) {
            char *eq = strchr(t, '=');
            if (eq) *eq++ = '\0';
            query[nq++] = (mock_pair){t, eq};
        }
    }
    headers[0] = (mock_pair){"X-Trace", "abcd"};
    mock_request rq = {.method = method,
                       .path = u,
                       .query = query,
                       .n_query = nq,
                       .headers = headers,
                       .n_headers = 1,
                       .body = body,
                       .body_len = body ? strlen(body) : 0,
                       .content_type = body ? (ctype ? ctype : "application/json") : NULL};
    mock_response r;
    assert_int_equal(mock_handle(f->mk, &rq, f->arena, &r), 0);
    if (json) *json = r.body ? json_tokener_parse(r.body) : NULL;
    return r;
}

static const char *jstr(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static void test_routing(void **state)
{
    fixture *f = *state;
    size_t n;
    const mock_mount *mounts = mock_router_mounts(mock_get_router(f->mk), &n);
    assert_int_equal(n, 2);
    /* server variables take their defaults; a taken base gets the API id in front */
    const char *bases[2] = {mounts[0].base, mounts[1].base};
    assert_true((!strcmp(bases[0], "/api/v1") && !strcmp(bases[1], "/store/api/v1")) ||
                (!strcmp(bases[1], "/api/v1") && !strcmp(bases[0], "/store/api/v1")));
    const char *other = !strcmp(mounts[0].api->id, "other") ? mounts[0].base : mounts[1].base;
    const char *store = !strcmp(mounts[0].api->id, "store") ? mounts[0].base : mounts[1].base;
    char url[128];
    /* the literal /pets/mine beats /pets/{petId} */
    snprintf(url, sizeof url, "%s/pets/mine", store);
    mock_response r = call(f, "GET", url, NULL, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.operation, "store:myPets");
    snprintf(url, sizeof url, "%s/pets/12/", store); /* a trailing slash is the same path */
    r = call(f, "GET", url, NULL, NULL, NULL);
    assert_string_equal(r.operation, "store:getPet");
    snprintf(url, sizeof url, "%s/files/report.json", store); /* a mixed segment */
    json_object *j;
    r = call(f, "GET", url, NULL, NULL, &j);
    assert_string_equal(r.operation, "store:getFile");
    json_object_put(j);
    snprintf(url, sizeof url, "%s/pets", other);
    r = call(f, "GET", url, NULL, NULL, NULL);
    assert_string_equal(r.operation, "other:otherPets");
    /* unknown path 404, wrong method 405 with Allow, HEAD as GET */
    snprintf(url, sizeof url, "%s/nothing/here", store);
    r = call(f, "GET", url, NULL, NULL, &j);
    assert_int_equal(r.status, 404);
    assert_string_equal(jstr(j, "rule"), "path");
    json_object_put(j);
    snprintf(url, sizeof url, "%s/pets/mine", store);
    r = call(f, "DELETE", url, NULL, NULL, &j);
    assert_int_equal(r.status, 405);
    assert_string_equal(r.allow, "GET");
    json_object_put(j);
    snprintf(url, sizeof url, "%s/pets/3", store);
    r = call(f, "DELETE", url, NULL, NULL, NULL);
    assert_int_equal(r.status, 204);
    r = call(f, "HEAD", "/api/v1/pets/mine", NULL, NULL, NULL);
    assert_true(r.status == 200 || r.status == 404);
    /* odd paths do not match and do not crash */
    const char *odd[] = {"", "/", "//", "/%", "/%zz/%00", "/api/v1/pets/%2F", "/../../etc"};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        r = call(f, "GET", odd[i], NULL, NULL, NULL);
        assert_true(r.status == 404 || r.status == 400);
    }
}

/* The fixture's mount of the store spec. */
static const char *store_base(fixture *f)
{
    size_t n;
    const mock_mount *m = mock_router_mounts(mock_get_router(f->mk), &n);
    return !strcmp(m[0].api->id, "store") ? m[0].base : m[1].base;
}

static void expect_400(fixture *f, const char *method, const char *path, const char *body,
                       const char *ctype, const char *in, const char *param, const char *rule,
                       const char *pointer)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", store_base(f), path);
    json_object *j;
    mock_response r = call(f, method, url, body, ctype, &j);
    if (r.status != 400) fail_msg("%s %s: %d %s", method, path, r.status, r.body ? r.body : "");
    assert_string_equal(jstr(j, "in"), in);
    if (param) assert_string_equal(jstr(j, "parameter"), param);
    assert_string_equal(jstr(j, "rule"), rule);
    if (pointer) assert_string_equal(jstr(j, "pointer"), pointer);
    assert_non_null(jstr(j, "message"));
    json_object_put(j);
}

static void test_request_checks(void **state)
{
    fixture *f = *state;
    expect_400(f, "GET", "/pets?limit=abc", NULL, NULL, "query", "limit", "type", "");
    expect_400(f, "GET", "/pets?limit=0", NULL, NULL, "query", "limit", "minimum", "");
    expect_400(f, "GET", "/pets?limit=101", NULL, NULL, "query", "limit", "maximum", "");
    expect_400(f, "GET", "/pets?status=lost", NULL, NULL, "query", "status", "enum", "");
    expect_400(f, "GET", "/pets/abc", NULL, NULL, "path", "petId", "type", "");
    expect_400(f, "GET", "/files/ABC.json", NULL, NULL, "path", "name", "pattern", "");
    expect_400(f, "GET", "/search", NULL, NULL, "query", "q", "required", "");
    expect_400(f, "POST", "/pets", "{\"age\":2}", NULL, "body", NULL, "required", "");
    expect_400(f, "POST", "/pets", "{\"name\":\"x\",\"age\":-1}", NULL, "body", NULL, "minimum",
               "/age");
    expect_400(f, "POST", "/pets", "{\"name\":\"x\",\"kind\":\"cow\"}", NULL, "body", NULL, "enum",
               "/kind");
    expect_400(f, "POST", "/pets", "{\"name\":1}", NULL, "body", NULL, "type", "/name");
    expect_400(f, "POST", "/pets", "{\"name\":", NULL, "body", NULL, "json", NULL);
    expect_400(f, "POST", "/pets", "{\"name\":\"a\"} x", NULL, "body", NULL, "json", NULL);
    expect_400(f, "POST", "/pets", "", NULL, "body", NULL, "required", NULL);
    expect_400(f, "POST", "/form", "count=12", "application/x-www-form-urlencoded", "body", NULL,
               "maximum", "/count");
    /* too deep for the parser's limit */
    char deep[4096];
    size_t n = 0;
    for (int i = 0; i < 1000; i++) deep[n++] = '[';
    deep[n] = '\0';
    expect_400(f, "POST", "/pets", deep, NULL, "body", NULL, "json", NULL);
    /* valid ones pass: comma lists, repeated names, a form, the header and cookie */
    char url[256];
    snprintf(url, sizeof url, "%s/pets?limit=5&tags=a,b&status=sold", store_base(f));
    assert_int_equal(call(f, "GET", url, NULL, NULL, NULL).status, 200);
    snprintf(url, sizeof url, "%s/form", store_base(f));
    assert_int_equal(
        call(f, "POST", url, "count=3", "application/x-www-form-urlencoded", NULL).status, 200);
    snprintf(url, sizeof url, "%s/search?q=cat", store_base(f));
    assert_int_equal(call(f, "GET", url, NULL, NULL, NULL).status, 200);
    /* a wrong content type: 415 */
    snprintf(url, sizeof url, "%s/pets", store_base(f));
    json_object *j;
    mock_response r = call(f, "POST", url, "name=x", "text/plain", &j);
    assert_int_equal(r.status, 415);
    assert_string_equal(jstr(j, "rule"), "content-type");
    json_object_put(j);
}

static void test_state_flow(void **state)
{
    fixture *f = *state;
    char url[256], item[512]; /* url, "/" and an id */
    json_object *j, *v;
    snprintf(url, sizeof url, "%s/pets", store_base(f));
    mock_response r = call(f, "POST", url, "{\"name\":\"Rex\",\"age\":3}", NULL, &j);
    assert_int_equal(r.status, 201);
    assert_string_equal(jstr(j, "name"), "Rex");
    assert_true(json_object_object_get_ex(j, "id", &v));
    assert_true(json_object_is_type(v, json_type_int)); /* the schema's id is an integer */
    int64_t id = json_object_get_int64(v);
    json_object_put(j);
    snprintf(item, sizeof item, "%s/%lld", url, (long long)id);
    assert_non_null(r.location);
    assert_string_equal(r.location, item);
    /* read back */
    r = call(f, "GET", item, NULL, NULL, &j);
    assert_int_equal(r.status, 200);
    assert_string_equal(jstr(j, "name"), "Rex");
    assert_int_equal(json_object_get_int(json_object_object_get(j, "age")), 3);
    json_object_put(j);
    /* the list shows it first */
    r = call(f, "GET", url, NULL, NULL, &j);
    assert_int_equal(r.status, 200);
    assert_string_equal(jstr(json_object_array_get_idx(j, 0), "name"), "Rex");
    json_object_put(j);
    /* PATCH merges, PUT replaces */
    r = call(f, "PATCH", item, "{\"age\":4}", NULL, &j);
    assert_int_equal(r.status, 200);
    assert_string_equal(jstr(j, "name"), "Rex");
    assert_int_equal(json_object_get_int(json_object_object_get(j, "age")), 4);
    json_object_put(j);
    r = call(f, "PUT", item, "{\"name\":\"Max\"}", NULL, &j);
    json_object_put(j);
    r = call(f, "GET", item, NULL, NULL, &j);
    assert_string_equal(jstr(j, "name"), "Max");
    json_object_put(j);
    /* DELETE, then 404 for read, patch and a second delete */
    assert_int_equal(call(f, "DELETE", item, NULL, NULL, NULL).status, 204);
    r = call(f, "GET", item, NULL, NULL, &j);
    assert_int_equal(r.status, 404);
    assert_string_equal(jstr(j, "rule"), "deleted");
    json_object_put(j);
    assert_int_equal(call(f, "PATCH", item, "{\"age\":1}", NULL, NULL).status, 404);
    assert_int_equal(call(f, "DELETE", item, NULL, NULL, NULL).status, 404);
    /* and the list no longer has it */
    r = call(f, "GET", url, NULL, NULL, &j);
    for (size_t i = 0; i < json_object_array_length(j); i++) {
        const char *name = jstr(json_object_array_get_idx(j, i), "name");
        assert_true(!name || strcmp(name, "Max"));
    }
    json_object_put(j);
    /* an item never created is generated, with the id asked for */
    snprintf(item, sizeof item, "%s/pets/4242/photos", store_base(f));
    r = call(f, "GET", item, NULL, NULL, &j);
    assert_int_equal(json_object_get_int(json_object_object_get(j, "id")), 4242);
    json_object_put(j);
    /* the item route's parameter names the id: POST /lists answers list_id */
    snprintf(url, sizeof url, "%s/lists", store_base(f));
    r = call(f, "POST", url, "{\"name\":\"faves\"}", NULL, &j);
    assert_true(json_object_object_get_ex(j, "list_id", &v));
    snprintf(item, sizeof item, "%s/%s", url, json_object_get_string(v));
    json_object_put(j);
    r = call(f, "GET", item, NULL, NULL, &j);
    assert_int_equal(r.status, 200);
    assert_string_equal(jstr(j, "name"), "faves");
    json_object_put(j);
}

static void test_deterministic(void **state)
{
    fixture *f = *state;
    char url[256];
    snprintf(url, sizeof url, "%s/pets/77/photos", store_base(f));
    mock_response a = call(f, "GET", url, NULL, NULL, NULL);
    mock_response b = call(f, "GET", url, NULL, NULL, NULL);
    assert_string_equal(a.body, b.body);
    snprintf(url, sizeof url, "%s/pets/78/photos", store_base(f));
    mock_response c = call(f, "GET", url, NULL, NULL, NULL);
    assert_string_not_equal(a.body, c.body);
}

/* TMDB: every id the top-rated list returns has credits, both schema-valid. */
static void test_tmdb_flow(void **state)
{
    (void)state;
    TU_REQUIRE_SHARED();
    fixture f = {0};
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &f.reg, &err), 0);
    char *p = tu_path(tu_shared_dir(), "benchmarks/restbench/specs/tmdb_oas.json");
    assert_int_equal(spec_registry_add(f.reg, p, &err), 0);
    free(p);
    assert_int_equal(mock_new(f.reg, NULL, &f.mk, &err), 0);
    f.arena = core_arena_new(0);
    const spec_api *api = spec_registry_api(f.reg, 0);
    const spec_operation *credits = NULL;
    for (size_t i = 0; i < api->n_ops; i++)
        if (!strcmp(api->ops[i].path, "/movie/{movie_id}/credits")) credits = &api->ops[i];
    assert_non_null(credits);
    json_object *list, *results;
    for (int page = 1; page <= 3; page++) {
        char url[128];
        snprintf(url, sizeof url, "/3/movie/top_rated?page=%d", page);
        mock_response r = call(&f, "GET", url, NULL, NULL, &list);
        assert_int_equal(r.status, 200);
        assert_true(json_object_object_get_ex(list, "results", &results));
        assert_true(json_object_array_length(results) > 0);
        for (size_t i = 0; i < json_object_array_length(results); i++) {
            json_object *id = json_object_object_get(json_object_array_get_idx(results, i), "id");
            assert_non_null(id);
            snprintf(url, sizeof url, "/3/movie/%s/credits", json_object_get_string(id));
            json_object *c;
            r = call(&f, "GET", url, NULL, NULL, &c);
            assert_int_equal(r.status, 200);
            assert_int_equal(json_object_get_int64(json_object_object_get(c, "id")),
                             json_object_get_int64(id));
            const char *problem = NULL;
            assert_int_equal(spec_validate_json(api, credits->responses[0].media[0].schema, c,
                                                false, f.arena, &problem),
                             0);
            assert_null(problem);
            json_object_put(c);
        }
        json_object_put(list);
    }
    mock_free(f.mk);
    spec_registry_free(f.reg);
    core_arena_free(f.arena);
}

/* Query styles: spaceDelimited and pipeDelimited arrays split at their separator, deepObject
   objects read from name[key]=value and checked against the object schema. */
static void test_query_styles(void **state)
{
    (void)state;
    static const char *const specs[] = {"tests/data/mock/styles.yaml", NULL};
    fixture *f = fixture_new(specs);
    size_t n;
    const char *base = mock_router_mounts(mock_get_router(f->mk), &n)[0].base;
    char url[512];
    static const char *const good[] = {"ids=1 2 3",
                                       "tags=a|b|c",
                                       "filter[color]=red&filter[min]=2",
                                       "ids=7&tags=x",
                                       "plain=1,2&filter[color]=blue",
                                       ""};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(url, sizeof url, "%s/search?%s", base, good[i]);
        mock_response r = call(f, "GET", url, NULL, NULL, NULL);
        if (r.status != 200) fail_msg("%s: %d %s", good[i], r.status, r.body ? r.body : "");
    }
    static const struct {
        const char *query, *param, *rule, *pointer;
    } bad[] = {
        {"ids=1 x 3", "ids", "type", "/1"},       /* split at spaces: the second is no integer */
        {"ids=1,2", "ids", "type", "/0"},         /* commas are not its separator */
        {"tags=a|b|c|d", "tags", "maxItems", ""}, /* split at pipes: four items */
        {"filter[color]=green", "filter", "enum", "/color"},
        {"filter[color]=red&filter[min]=-1", "filter", "minimum", "/min"},
        {"filter[min]=3", "filter", "required", ""}, /* an object checked as a whole */
        {"plain=1 2", "plain", "type", "/0"},        /* form style splits at commas only */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(url, sizeof url, "%s/search?%s", base, bad[i].query);
        json_object *j = NULL;
        mock_response r = call(f, "GET", url, NULL, NULL, &j);
        if (r.status != 400 || strcmp(jstr(j, "parameter"), bad[i].param) ||
            strcmp(jstr(j, "rule"), bad[i].rule) || strcmp(jstr(j, "pointer"), bad[i].pointer))
            fail_msg("%s: %d %s", bad[i].query, r.status, r.body ? r.body : "");
        assert_string_equal(jstr(j, "in"), "query");
        json_object_put(j);
    }
    teardown((void **)&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_routing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_request_checks, setup, teardown),
        cmocka_unit_test(test_query_styles),
        cmocka_unit_test_setup_teardown(test_state_flow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deterministic, setup, teardown),
        cmocka_unit_test(test_tmdb_flow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
