/* apidex match: the scorer's pieces (path shape, method, weighted term overlap), the parameter
 * table, and whole runs on the examples: a renamed document finds its operations, an
 * unrelated one has no match, coverage names the API, a broken document names its line. */
#include "search_testutil.h"

#include "search/match.h"

#include <json-c/json.h>
#include <math.h>

static void test_path_shape(void **state)
{
    (void)state;
    match_path a, b;
    match_path_shape("/v3/movie/{movie_id}/credits", &a);
    assert_int_equal(a.n, 3);
    assert_false(a.param[0]);
    assert_true(a.param[1]);
    assert_false(a.param[2]);
    /* another version prefix and other names: the same shape */
    match_path_shape("/api/v1/films/{filmId}/cast", &b);
    assert_int_equal(b.n, 3);
    assert_true(match_path_similarity(&a, &b) == 1.0);
    /* ":id" is a placeholder too (Express style) */
    match_path_shape("/films/:id/cast", &b);
    assert_true(match_path_similarity(&a, &b) == 1.0);
    /* one segment more: compared from the end, over the longer */
    match_path_shape("/users/{user_id}/movie/{movie_id}/credits", &b);
    assert_int_equal(b.n, 5);
    assert_true(fabs(match_path_similarity(&a, &b) - 3.0 / 5.0) < 1e-12);
    /* the item against the collection: nothing lines up from the end */
    match_path_shape("/movie/{movie_id}", &b);
    assert_true(match_path_similarity(&a, &b) < 0.5);
    /* a version segment after a literal is a literal ("/movie/2/x" keeps its 2) */
    match_path_shape("/movie/2/credits", &b);
    assert_int_equal(b.n, 3);
    match_path_shape("/", &a);
    match_path_shape("", &b);
    assert_int_equal(a.n, 0);
    assert_true(match_path_similarity(&a, &b) == 1.0);
    /* more segments than the shape holds: cut, never overrun */
    char deep[4 * (MATCH_MAX_SEGS + 10) + 1] = "";
    for (int i = 0; i < MATCH_MAX_SEGS + 10; i++) strcat(deep, "/a{b");
    match_path_shape(deep, &a);
    assert_int_equal(a.n, MATCH_MAX_SEGS);
}

static void test_method(void **state)
{
    (void)state;
    assert_true(match_method_similarity("GET", "get") == 1.0);
    assert_true(match_method_similarity("PUT", "PATCH") == 0.5);
    assert_true(match_method_similarity("GET", "HEAD") == 0.5);
    assert_true(match_method_similarity("POST", "PUT") == 0.25);
    assert_true(match_method_similarity("GET", "DELETE") == 0);
    assert_true(match_method_similarity(NULL, "GET") == 0);
}

static void test_overlap(void **state)
{
    (void)state;
    const match_term a[] = {{-2, 1.0}, {3, 2.0}, {7, 1.0}};
    const match_term b[] = {{3, 2.0}, {9, 4.0}};
    /* common weight 2; totals 4 and 6 */
    assert_true(fabs(match_overlap_dice(a, 3, b, 2) - 2.0 * 2 / 10) < 1e-12);
    assert_true(fabs(match_overlap_share(a, 3, b, 2) - 2.0 / 4) < 1e-12);
    assert_true(fabs(match_overlap_share(b, 2, a, 3) - 2.0 / 6) < 1e-12);
    assert_true(match_overlap_dice(a, 3, a, 3) == 1.0);
    assert_true(match_overlap_share(a, 3, a, 3) == 1.0);
    assert_true(match_overlap_dice(a, 0, b, 0) == 0);
    assert_true(match_overlap_share(a, 0, b, 2) == 0);
    /* unknown words (negative ids) never meet a registry word */
    const match_term c[] = {{-2, 1.0}};
    const match_term d[] = {{2, 1.0}};
    assert_true(match_overlap_dice(c, 1, d, 1) == 0);
}

static void test_params(void **state)
{
    (void)state;
    match_params p;
    match_params_default(&p);
    for (size_t i = 0; i < match_param_count(); i++) {
        const match_param_info *pi = match_param_at(i);
        assert_true(pi->doc && *pi->doc);
        assert_true(pi->def >= pi->min && pi->def <= pi->max);
        assert_true(*(const double *)((const char *)&p + pi->offset) == pi->def);
    }
    assert_null(match_param_at(match_param_count()));
    apidex_error err;
    assert_int_equal(match_params_parse(&p, "match.threshold=0.3", &err), 0);
    assert_true(p.threshold == 0.3);
    assert_int_equal(match_params_parse(&p, "match.threshold=3", &err), APIDEX_EINVAL);
    assert_int_equal(match_params_parse(&p, "match.nosuch=1", &err), APIDEX_EINVAL);
    assert_int_equal(match_params_parse(&p, "match.name", &err), APIDEX_EINVAL);
}

/* ---------------------------------------------------------------- whole runs */

static int setup(void **state)
{
    static const char *const specs[] = {"examples/weather.json", "examples/library.yaml",
                                        "examples/recipes.yaml", NULL};
    *state = search_fixture_new(specs);
    return 0;
}

static struct json_object *run_text(search_fixture *f, const char *text, const match_query *q)
{
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    if (match_load_text(text, strlen(text), &reg, &err)) fail_msg("load: %s", err.message);
    struct json_object *res = NULL;
    if (match_run(f->eng, reg, q, &res, &err)) fail_msg("match: %s", err.message);
    spec_registry_free(reg);
    return res;
}

static struct json_object *op_at(struct json_object *res, size_t i)
{
    struct json_object *ops;
    assert_true(json_object_object_get_ex(res, "operations", &ops));
    return json_object_array_get_idx(ops, i);
}

static const char *get_str(struct json_object *o, const char *k)
{
    struct json_object *v;
    return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

static struct json_object *first_cand(struct json_object *op)
{
    struct json_object *cs;
    assert_true(json_object_object_get_ex(op, "candidates", &cs));
    return json_object_array_length(cs) ? json_object_array_get_idx(cs, 0) : NULL;
}

static bool matched(struct json_object *op)
{
    struct json_object *m;
    return json_object_object_get_ex(op, "match", &m) && json_object_get_boolean(m);
}

/* The weather API as another author would write it: no descriptions, other names and
   casing, a version prefix, the operations reordered. */
static const char renamed[] =
    "openapi: 3.0.0\n"
    "info: {title: Weather, version: '1'}\n"
    "paths:\n"
    "  /v2/stations/{stationId}/forecast:\n"
    "    get:\n"
    "      parameters: [{name: stationId, in: path, required: true, schema: {type: string}}]\n"
    "      responses: {'200': {description: ok}}\n"
    "  /v2/weather-stations:\n"
    "    get:\n"
    "      operationId: find_stations\n"
    "      responses: {'200': {description: ok}}\n";

static void test_renamed(void **state)
{
    search_fixture *f = *state;
    struct json_object *res = run_text(f, renamed, &(match_query){.threshold = -1});
    struct json_object *fc = first_cand(op_at(res, 0));
    assert_non_null(fc);
    assert_string_equal(get_str(fc, "id"), "open-weather-station:getForecast");
    assert_true(matched(op_at(res, 0)));
    fc = first_cand(op_at(res, 1));
    assert_string_equal(get_str(fc, "id"), "open-weather-station:findStations");
    /* the API that covers the document */
    struct json_object *apis, *a0;
    assert_true(json_object_object_get_ex(res, "apis", &apis));
    a0 = json_object_array_get_idx(apis, 0);
    assert_string_equal(get_str(a0, "api"), "open-weather-station");
    struct json_object *covered;
    assert_true(json_object_object_get_ex(a0, "covered", &covered));
    assert_int_equal(json_object_get_int(covered), 2);
    /* why: the features compared, each in [0, 1], and the shared words */
    struct json_object *why, *v;
    assert_true(json_object_object_get_ex(fc, "why", &why));
    assert_true(json_object_object_get_ex(why, "method", &v));
    assert_true(json_object_get_double(v) == 1.0);
    assert_true(json_object_object_get_ex(why, "path", &v));
    assert_false(json_object_object_get_ex(why, "desc", &v)); /* the query has none */
    json_object_put(res);
    /* a threshold above every score: nothing matches, the candidates stay */
    res = run_text(f, renamed, &(match_query){.threshold = 1.0});
    assert_false(matched(op_at(res, 0)));
    assert_non_null(first_cand(op_at(res, 0)));
    json_object_put(res);
}

static void test_unrelated(void **state)
{
    search_fixture *f = *state;
    static const char pizza[] =
        "{\"swagger\":\"2.0\",\"info\":{\"title\":\"Pizza\",\"version\":\"1\"},\"paths\":{"
        "\"/pizzas/{pizzaId}/toppings\":{\"put\":{\"parameters\":[{\"name\":\"pizzaId\","
        "\"in\":\"path\",\"required\":true,\"type\":\"string\"},{\"name\":\"body\",\"in\":"
        "\"body\",\"schema\":{\"type\":\"object\",\"properties\":{\"cheese\":{\"type\":"
        "\"string\"},\"crust\":{\"type\":\"string\"}}}}],\"responses\":{\"204\":{"
        "\"description\":\"done\"}}}}}}";
    struct json_object *res = run_text(f, pizza, &(match_query){.threshold = -1});
    assert_false(matched(op_at(res, 0)));
    struct json_object *n;
    assert_true(json_object_object_get_ex(res, "unmatched", &n));
    assert_int_equal(json_object_get_int(n), 1);
    json_object_put(res);
}

/* A document with more operations than MATCH_MAX_OPS is refused, not scored for minutes. */
static void test_too_many(void **state)
{
    search_fixture *f = *state;
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, "openapi: 3.0.0\ninfo: {title: x, version: '1'}\npaths:\n");
    for (int i = 0; i <= MATCH_MAX_OPS; i++)
        core_buf_printf(&b, "  /p%d:\n    get:\n      responses: {'200': {description: ok}}\n", i);
    core_buf_putc(&b, '\0');
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    assert_int_equal(match_load_text(b.data, strlen(b.data), &reg, &err), 0);
    struct json_object *res = NULL;
    assert_int_equal(match_run(f->eng, reg, NULL, &res, &err), APIDEX_EINVAL);
    assert_null(res);
    assert_non_null(strstr(err.message, "at most"));
    spec_registry_free(reg);
    core_buf_free(&b);
}

static void test_bad_document(void **state)
{
    (void)state;
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    const char *bad = "openapi: 3.0.0\npaths:\n  /a: [\n";
    assert_int_not_equal(match_load_text(bad, strlen(bad), &reg, &err), 0);
    assert_null(reg);
    assert_true(err.line >= 3);
    const char *none = "openapi: 3.0.0\ninfo: {title: x, version: '1'}\npaths: {}\n";
    core_error_clear(&err);
    assert_int_equal(match_load_text(none, strlen(none), &reg, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "no operations"));
    const char *prose = "just some words";
    core_error_clear(&err);
    assert_int_not_equal(match_load_text(prose, strlen(prose), &reg, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_shape),   cmocka_unit_test(test_method),
        cmocka_unit_test(test_overlap),      cmocka_unit_test(test_params),
        cmocka_unit_test(test_bad_document),
    };
    const struct CMUnitTest runs[] = {
        cmocka_unit_test(test_renamed),
        cmocka_unit_test(test_unrelated),
        cmocka_unit_test(test_too_many),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    return rc + cmocka_run_group_tests(runs, setup, search_fixture_teardown);
}
