/* Tests for the registry file (apidex.yaml): every key, bad types, unknown keys with
   suggestions, line:col in errors, globs and sources into a spec registry (ids, tag
   filters, overrides). */
#include "testutil.h"

#include "registry/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static registry_file *parse_ok(const char *text, const char *path)
{
    registry_file *rf = NULL;
    apidex_error err;
    core_error_clear(&err);
    int rc = registry_file_parse(text, strlen(text), path, &rf, &err);
    if (rc) fail_msg("parse failed: %s:%u:%u: %s", err.file, err.line, err.col, err.message);
    return rf;
}

/* Parses text that must fail; checks line:col and that the message has `want`. */
static void parse_bad(const char *text, unsigned line, unsigned col, const char *want)
{
    registry_file *rf = NULL;
    apidex_error err;
    core_error_clear(&err);
    int rc = registry_file_parse(text, strlen(text), "dir/apidex.yaml", &rf, &err);
    if (!rc) fail_msg("expected an error for:\n%s", text);
    assert_null(rf);
    assert_int_equal(rc, APIDEX_EINVAL);
    assert_string_equal(err.file, "dir/apidex.yaml");
    if (!strstr(err.message, want)) fail_msg("message '%s' lacks '%s'", err.message, want);
    if (err.line != line || err.col != col)
        fail_msg("'%s' at %u:%u, expected %u:%u", err.message, err.line, err.col, line, col);
}

static void test_every_key(void **state)
{
    (void)state;
    registry_file *rf = parse_ok("version: 1\n"
                                 "db: build/api.db\n"
                                 "strategy: endpoint:512:64\n"
                                 "filters: html,markdown\n"
                                 "sources:\n"
                                 "  - specs/\n"
                                 "  - https://example.com/openapi.json\n"
                                 "  - vendor/*.yaml\n"
                                 "  - /abs/one.yaml\n"
                                 "  - path: stripe/spec3.yaml\n"
                                 "    id: stripe\n"
                                 "    tags:\n"
                                 "      include: [Customers, 'Pay*']\n"
                                 "      exclude: Deprecated\n"
                                 "    server: https://api.stripe.com\n"
                                 "    auth:\n"
                                 "      bearerAuth: STRIPE_KEY\n"
                                 "      basic: {username: S_USER, password: S_PASS}\n"
                                 "  - url: https://example.org/api.yaml\n"
                                 "    id: example.org\n"
                                 "    auth: {key: EX_KEY}\n",
                                 "conf/apidex.yaml");
    assert_string_equal(rf->path, "conf/apidex.yaml");
    assert_string_equal(rf->db, "conf/build/api.db"); /* relative to the registry file */
    assert_string_equal(rf->strategy, "endpoint:512:64");
    assert_string_equal(rf->filters, "html,markdown");
    assert_int_equal(rf->n_sources, 6);
    const registry_source *s = rf->sources;
    assert_int_equal(s[0].kind, REGISTRY_SOURCE_PATH);
    assert_string_equal(s[0].written, "specs/");
    assert_string_equal(s[0].resolved, "conf/specs/");
    assert_int_equal(s[0].line, 6);
    assert_int_equal(s[0].col, 5);
    assert_int_equal(s[1].kind, REGISTRY_SOURCE_URL);
    assert_string_equal(s[1].resolved, "https://example.com/openapi.json");
    assert_int_equal(s[2].kind, REGISTRY_SOURCE_GLOB);
    assert_string_equal(s[2].resolved, "conf/vendor/*.yaml");
    assert_string_equal(s[3].resolved, "/abs/one.yaml");
    assert_string_equal(s[4].id, "stripe");
    assert_string_equal(s[4].include_tags[0], "Customers");
    assert_string_equal(s[4].include_tags[1], "Pay*");
    assert_null(s[4].include_tags[2]);
    assert_string_equal(s[4].exclude_tags[0], "Deprecated");
    assert_null(s[4].exclude_tags[1]);
    assert_string_equal(s[4].overrides,
                        "{\"server\":\"https://api.stripe.com\",\"auth\":{\"bearerAuth\":"
                        "\"STRIPE_KEY\",\"basic\":{\"username\":\"S_USER\",\"password\":"
                        "\"S_PASS\"}}}");
    assert_int_equal(s[4].line, 10);
    assert_int_equal(s[5].kind, REGISTRY_SOURCE_URL);
    assert_string_equal(s[5].id, "example.org");
    assert_string_equal(s[5].overrides, "{\"auth\":{\"key\":\"EX_KEY\"}}");
    assert_null(s[0].overrides);
    assert_null(s[0].id);
    registry_file_free(rf);

    /* a file in the current folder: paths stay as written; nothing optional given */
    rf = parse_ok("sources: [a.yaml]\n", "apidex.yaml");
    assert_string_equal(rf->sources[0].resolved, "a.yaml");
    assert_null(rf->db);
    assert_null(rf->strategy);
    assert_null(rf->filters);
    registry_file_free(rf);
}

static void test_unknown_keys(void **state)
{
    (void)state;
    parse_bad("sourcs:\n  - a.yaml\n", 1, 1,
              "unknown key 'sourcs' in the registry file (did you mean 'sources'?)");
    parse_bad("sources:\n  - path: a.yaml\n    tag:\n      include: x\n", 3, 5,
              "unknown key 'tag' in a source (did you mean 'tags'?)");
    parse_bad("sources:\n  - path: a.yaml\n    tags: {inclde: x}\n", 3, 12,
              "unknown key 'inclde' in tags (did you mean 'include'?)");
    parse_bad("sources:\n  - path: a.yaml\n    auth:\n      basic: {user: U, password: P}\n", 4, 15,
              "unknown key 'user' in a basic auth entry (did you mean 'username'?)");
    /* nothing close: the known keys, no guess */
    parse_bad("sources: [a.yaml]\nzzzzzzzz: 1\n", 2, 1, "expected one of: version, db");
    registry_file *rf = NULL;
    apidex_error err;
    core_error_clear(&err);
    const char *t = "sources: [a.yaml]\nzzzzzzzz: 1\n";
    assert_int_not_equal(registry_file_parse(t, strlen(t), "x.yaml", &rf, &err), 0);
    assert_null(strstr(err.message, "did you mean"));
}

static void test_bad_types(void **state)
{
    (void)state;
    parse_bad("", 1, 1, "the registry file is empty");
    parse_bad("- a.yaml\n", 1, 1, "must be a mapping with 'sources:', got a list");
    parse_bad("db: x.db\n", 1, 1, "has no 'sources:' list");
    parse_bad("sources: a.yaml\n", 1, 10, "'sources' must be a list");
    parse_bad("sources: []\n", 1, 10, "'sources' is empty");
    parse_bad("db: [x]\nsources: [a.yaml]\n", 1, 5, "'db' must be a string, got a list");
    parse_bad("version: 2\nsources: [a.yaml]\n", 1, 10, "'version' must be 1");
    parse_bad("strategy: bogus\nsources: [a.yaml]\n", 1, 11, "bogus");
    parse_bad("filters: html,nope\nsources: [a.yaml]\n", 1, 10, "nope");
    parse_bad("sources:\n  - 42\n", 2, 5, "a source must be a path, a URL or a mapping");
    parse_bad("sources:\n  - id: x\n", 2, 5, "a source needs a path or a url");
    parse_bad("sources:\n  - path: a.yaml\n    url: https://x.org/a.json\n", 3, 10,
              "one path or url, not both");
    parse_bad("sources:\n  - url: ftp://x.org/a.json\n", 2, 10, "must start with http://");
    parse_bad("sources:\n  - path: https://x.org/a.json\n", 2, 11, "write it as url:");
    parse_bad("sources:\n  - path: a.yaml\n    id: Stripe\n", 3, 9, "'id' must be 1 to 64");
    parse_bad("sources:\n  - path: a.yaml\n    id: [x]\n", 3, 9, "'id' must be a string");
    parse_bad("sources:\n  - path: '*.yaml'\n    id: x\n", 3, 9, "is a glob");
    parse_bad("sources:\n  - path: a.yaml\n    id: x\n  - path: b.yaml\n    id: x\n", 4, 5,
              "id 'x' is already used by the source at line 2");
    parse_bad("sources:\n  - path: a.yaml\n    tags: [x]\n", 3, 11, "'tags' must be a mapping");
    parse_bad("sources:\n  - path: a.yaml\n    tags: {}\n", 3, 11, "needs include and/or exclude");
    parse_bad("sources:\n  - path: a.yaml\n    tags: {include: []}\n", 3, 21, "empty list");
    parse_bad("sources:\n  - path: a.yaml\n    tags: {exclude: [a, 3]}\n", 3, 25,
              "'exclude' must be a string, got a number");
    parse_bad("sources:\n  - path: a.yaml\n    server: api.example.com\n", 3, 13,
              "'server' must be an http:// or https:// URL");
    parse_bad("sources:\n  - path: a.yaml\n    auth: KEY\n", 3, 11, "'auth' must be a mapping");
    parse_bad("sources:\n  - path: a.yaml\n    auth: {k: 'not a var'}\n", 3, 16,
              "'not a var' is not an environment variable name");
    parse_bad("sources:\n  - path: a.yaml\n    auth: {k: [A]}\n", 3, 15,
              "auth 'k' must name an environment variable");
    parse_bad("sources:\n  - path: a.yaml\n    auth: {b: {username: U}}\n", 3, 15,
              "needs both username and password");
    parse_bad("sources:\n  - path: ''\n", 2, 12, "'path' must not be empty");
    /* a YAML syntax error: located by the parser */
    registry_file *rf = NULL;
    apidex_error err;
    core_error_clear(&err);
    const char *t = "sources:\n  - [\n";
    assert_int_equal(registry_file_parse(t, strlen(t), "y.yaml", &rf, &err), APIDEX_EINVAL);
    assert_string_equal(err.file, "y.yaml");
    assert_true(err.line > 0);
}

static void test_path_env(void **state)
{
    (void)state;
    unsetenv("APIDEX_REGISTRY");
    assert_string_equal(registry_file_path(NULL), "apidex.yaml");
    setenv("APIDEX_REGISTRY", "/etc/reg.yaml", 1);
    assert_string_equal(registry_file_path(NULL), "/etc/reg.yaml");
    assert_string_equal(registry_file_path("mine.yaml"), "mine.yaml");
    unsetenv("APIDEX_REGISTRY");
}

/* ---------------------------------------------------------------- sources into specs */

static const char *const pets_yaml =
    "openapi: 3.0.3\n"
    "info: {title: Pets, version: '1'}\n"
    "paths:\n"
    "  /pets:\n"
    "    get: {operationId: listPets, tags: [pets], responses: {'200': {description: ok}}}\n"
    "    post: {operationId: addPet, tags: [pets, admin], responses: {'200': {description: ok}}}\n"
    "  /stores:\n"
    "    get: {operationId: listStores, tags: [Store], responses: {'200': {description: ok}}}\n"
    "  /health:\n"
    "    get: {operationId: health, responses: {'200': {description: ok}}}\n";

static const spec_api *api_by_title(const spec_registry *reg, const char *title)
{
    for (size_t i = 0; i < spec_registry_count(reg); i++) {
        const spec_api *a = spec_registry_api(reg, i);
        if (a->title && !strcmp(a->title, title)) return a;
    }
    return NULL;
}

static void test_sources_ids_tags_overrides(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    free(tu_write(dir, "specs/pets.yaml", pets_yaml));
    char *other = strdup(pets_yaml);
    memcpy(strstr(other, "title: Pets"), "title: Pers", 11);
    free(tu_write(dir, "specs/sub/other.yaml", other));
    free(tu_write(dir, "glob/a1.yaml", pets_yaml));
    free(other);
    char *p = tu_path(dir, "apidex.yaml");
    /* the file is also under the folder: its own entry (id, tags, overrides) wins */
    free(tu_write(dir, "apidex.yaml",
                  "sources:\n"
                  "  - specs\n"
                  "  - path: specs/pets.yaml\n"
                  "    id: zoo\n"
                  "    tags: {include: [PETS, 'st*'], exclude: [admin]}\n"
                  "    server: https://zoo.example.com\n"));
    registry_file *rf = NULL;
    apidex_error err;
    core_error_clear(&err);
    assert_int_equal(registry_file_load(p, &rf, &err), 0);
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    registry_loaded *loaded = NULL;
    assert_int_equal(registry_file_add_specs(rf, reg, &loaded, &err), 0);
    assert_int_equal(spec_registry_count(reg), 2);
    const spec_api *zoo = spec_registry_find(reg, "zoo");
    assert_non_null(zoo);
    /* include pets or st* (case-insensitive), exclude admin: listPets and listStores */
    assert_int_equal(zoo->n_ops, 2);
    assert_string_equal(zoo->ops[0].id, "zoo:listPets");
    assert_string_equal(zoo->ops[1].id, "zoo:listStores");
    assert_string_equal(registry_overrides(loaded, zoo),
                        "{\"server\":\"https://zoo.example.com\"}");
    const spec_api *pers = api_by_title(reg, "Pers");
    assert_non_null(pers);
    assert_string_equal(pers->id, "pers"); /* from its title */
    assert_int_equal(pers->n_ops, 4);
    assert_null(registry_overrides(loaded, pers));
    /* the same document without a filter has another content hash (the filter is in it) */
    spec_registry *plain = NULL;
    char *pets = tu_path(dir, "specs/pets.yaml");
    assert_int_equal(spec_load_file(pets, NULL, &plain, &err), 0);
    assert_true(spec_registry_api(plain, 0)->content_hash != zoo->content_hash);
    assert_int_equal(spec_registry_api(plain, 0)->n_ops, 4);
    spec_registry_free(plain);
    registry_loaded_free(loaded);
    spec_registry_free(reg);
    registry_file_free(rf);

    /* a glob and a missing path: the error names the entry's line:col */
    free(tu_write(dir, "apidex.yaml", "sources:\n  - glob/*.yaml\n  - path: specs/nope.yaml\n"));
    assert_int_equal(registry_file_load(p, &rf, &err), 0);
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(registry_file_add_specs(rf, reg, NULL, &err), APIDEX_ENOTFOUND);
    assert_int_equal(err.line, 3);
    assert_int_equal(err.col, 5);
    assert_non_null(strstr(err.message, "specs/nope.yaml"));
    spec_registry_free(reg);
    registry_file_free(rf);

    free(tu_write(dir, "apidex.yaml", "sources:\n  - glob/*.yaml\n  - glob/z*.json\n"));
    assert_int_equal(registry_file_load(p, &rf, &err), 0);
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(registry_file_add_specs(rf, reg, NULL, &err), APIDEX_ENOTFOUND);
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.message, "the glob matches no file"));
    spec_registry_free(reg);
    registry_file_free(rf);

    free(tu_write(dir, "apidex.yaml", "sources:\n  - glob/*.yaml\n"));
    assert_int_equal(registry_file_load(p, &rf, &err), 0);
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(registry_file_add_specs(rf, reg, NULL, &err), 0);
    assert_int_equal(spec_registry_count(reg), 1);
    assert_string_equal(spec_registry_api(reg, 0)->id, "pets"); /* from its title */
    spec_registry_free(reg);
    registry_file_free(rf);

    /* an id on a folder */
    free(tu_write(dir, "apidex.yaml", "sources:\n  - {path: specs, id: all}\n"));
    assert_int_equal(registry_file_load(p, &rf, &err), 0);
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(registry_file_add_specs(rf, reg, NULL, &err), APIDEX_EINVAL);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.message, "folder"));
    spec_registry_free(reg);
    registry_file_free(rf);

    /* a derived id that equals a given one yields to it */
    free(tu_write(dir, "apidex.yaml",
                  "sources:\n  - glob/a1.yaml\n  - {path: specs/pets.yaml, id: pets}\n"));
    assert_int_equal(registry_file_load(p, &rf, &err), 0);
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(registry_file_add_specs(rf, reg, NULL, &err), 0);
    const spec_api *named = spec_registry_find(reg, "pets");
    assert_non_null(named);
    assert_non_null(strstr(named->file, "specs/pets.yaml"));
    assert_int_equal(spec_registry_count(reg), 2);
    const spec_api *derived = spec_registry_find(reg, "pets-2");
    assert_non_null(derived);
    assert_non_null(strstr(derived->file, "glob/a1.yaml"));
    spec_registry_free(reg);
    registry_file_free(rf);

    free(pets);
    free(p);
    tu_rmtree(dir);
    free(dir);
}

/* The example in README.md parses, and says what the README says it does. */
static void test_readme_example(void **state)
{
    (void)state;
    char *readme = tu_path(tu_source_dir(), "README.md");
    FILE *f = fopen(readme, "r");
    assert_non_null(f);
    char line[512];
    char yaml[8192] = "";
    size_t used = 0;
    bool in = false, done = false;
    while (!done && fgets(line, sizeof line, f)) {
        if (!in && !strncmp(line, "```yaml", 7)) {
            in = true;
        } else if (in && !strncmp(line, "```", 3)) {
            done = true;
        } else if (in) {
            size_t l = strlen(line);
            assert_true(used + l < sizeof yaml);
            memcpy(yaml + used, line, l + 1);
            used += l;
        }
    }
    fclose(f);
    free(readme);
    assert_true(done);
    registry_file *rf = parse_ok(yaml, "apidex.yaml");
    assert_string_equal(rf->db, "build/apis.db");
    assert_int_equal(rf->n_sources, 4);
    assert_int_equal(rf->sources[1].kind, REGISTRY_SOURCE_GLOB);
    assert_int_equal(rf->sources[2].kind, REGISTRY_SOURCE_URL);
    assert_string_equal(rf->sources[3].id, "stripe");
    assert_non_null(rf->sources[3].overrides);
    assert_non_null(strstr(rf->sources[3].overrides, "STRIPE_API_KEY"));
    registry_file_free(rf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_key),
        cmocka_unit_test(test_unknown_keys),
        cmocka_unit_test(test_bad_types),
        cmocka_unit_test(test_path_env),
        cmocka_unit_test(test_sources_ids_tags_overrides),
        cmocka_unit_test(test_readme_example),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
