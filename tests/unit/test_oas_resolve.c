/* Tests for $ref resolution: pointers, files, chains, loops, refusals, cycles. */
#include "testutil.h"

#include "oas/oas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *fixture(const char *rel)
{
    char *dir = tu_path(tu_source_dir(), "tests/data/oas");
    char *p = tu_path(dir, rel);
    free(dir);
    return p;
}

static spec_registry *load(const char *path, const spec_options *opt)
{
    spec_registry *reg = NULL;
    apidex_error err;
    core_error_clear(&err);
    if (spec_load_file(path, opt, &reg, &err)) fail_msg("loading %s: %s", path, err.message);
    return reg;
}

static spec_registry *load_fixture(const char *rel)
{
    char *p = fixture(rel);
    spec_registry *reg = load(p, NULL);
    free(p);
    return reg;
}

static const core_diag *find_diag(const spec_api *api, core_diag_level level, const char *text)
{
    for (size_t i = 0; i < api->diags.n; i++)
        if (api->diags.items[i].level == level && strstr(api->diags.items[i].message, text))
            return &api->diags.items[i];
    return NULL;
}

static size_t count_diags(const spec_api *api, const char *text)
{
    size_t n = 0;
    for (size_t i = 0; i < api->diags.n; i++)
        if (strstr(api->diags.items[i].message, text)) n++;
    return n;
}

static const spec_operation *op(const spec_api *api, const char *nat)
{
    char id[256];
    snprintf(id, sizeof id, "%s:%s", api->id, nat);
    const spec_operation *o = spec_api_find_operation(api, id);
    if (!o) fail_msg("no operation %s", id);
    return o;
}

static spec_loc deref_ok(const spec_api *api, spec_loc l)
{
    spec_loc out;
    assert_int_equal(spec_deref(api, l, &out), 0);
    assert_non_null(out.node);
    return out;
}

static long schema_named(const spec_api *api, const char *name)
{
    for (size_t i = 0; i < api->n_schemas; i++)
        if (!strcmp(api->schemas[i].name, name)) return (long)i;
    fail_msg("no schema %s", name);
    return -1;
}

static void test_local_pointers_escaped(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("refs_local.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *o = op(api, "escaped");
    /* ~1 and ~0 */
    spec_loc s = deref_ok(api, o->responses[0].media[0].schema);
    assert_string_equal(jt_get_str(s.node, "description"), "escaped");
    assert_string_equal(spec_ref_target(o->responses[0].media[0].schema),
                        "#/components/schemas/we~1ird~0name");
    /* percent-encoding in the fragment */
    s = deref_ok(api, o->responses[1].media[0].schema);
    assert_string_equal(jt_get_str(s.node, "description"), "spaced");
    /* not a reference: spec_deref hands it back */
    spec_loc same;
    assert_int_equal(spec_deref(api, s, &same), 0);
    assert_ptr_equal(same.node, s.node);
    assert_null(spec_ref_target(s));
    spec_registry_free(reg);
}

static void test_refs_to_refs(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("refs_local.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    const spec_operation *o = op(api, "chained");
    /* responses R1 → R2 → R3 */
    assert_int_equal(o->n_responses, 1);
    assert_string_equal(o->responses[0].description, "the end of the chain");
    /* the schema Alias → Target: the alias is a schema whose node is the $ref */
    spec_loc media_schema = o->responses[0].media[0].schema;
    long target = schema_named(api, "Target");
    assert_int_equal(spec_schema_index(api, media_schema), target);
    long alias = schema_named(api, "Alias");
    assert_int_equal(api->schemas[alias].n_refs, 1);
    assert_int_equal(api->schemas[alias].refs[0], target);
    assert_int_equal(api->schemas[target].used_by, 1);
    spec_registry_free(reg);
}

static void test_loops_and_dangling(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("refs_local.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    /* a ↔ b: both reported, neither resolves */
    assert_int_equal(count_diags(api, "'#/components/schemas/LoopB' is circular"), 1);
    assert_int_equal(count_diags(api, "'#/components/schemas/LoopA' is circular"), 1);
    long la = schema_named(api, "LoopA");
    spec_loc out;
    assert_int_equal(spec_deref(api, api->schemas[la].node, &out), APIDEX_EREF);
    /* the operation using it is still there */
    assert_int_equal(op(api, "fine")->n_schemas, 0);
    /* a path item that refers to itself */
    const core_diag *d = find_diag(api, CORE_DIAG_WARNING, "'#/paths/~1loop' is circular");
    assert_non_null(d);
    assert_string_equal(d->pointer, "/paths/~1loop");
    assert_int_equal(d->line, 25);
    assert_int_equal(api->n_ops, 3);
    /* dangling: a warning with file, line:col and pointer */
    d = find_diag(api, CORE_DIAG_WARNING, "'#/components/schemas/Nowhere' is dangling");
    assert_non_null(d);
    assert_string_equal(d->pointer, "/components/schemas/Missing");
    assert_int_equal(d->line, 51);
    assert_true(d->col > 0);
    assert_non_null(strstr(d->file, "refs_local.yaml"));
    assert_int_equal(core_diags_count(&api->diags, CORE_DIAG_ERROR), 0);
    spec_registry_free(reg);
}

static void test_multi_file(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("multi/api/root.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_int_equal(api->n_ops, 7);
    /* root, paths/items, ops/get_item, ops/create_item, schemas/item, common, "my file" */
    assert_int_equal(api->n_files, 7);
    /* a whole path item in another file, and an operation of it in a third */
    const spec_operation *list = op(api, "listItems"), *create = op(api, "createItem");
    assert_string_equal(list->path, "/items");
    assert_string_equal(list->pointer, "/paths/~1items/get");
    assert_non_null(strstr(spec_doc_file(list->node.doc), "multi/api/paths/items.yaml"));
    assert_non_null(
        strstr(spec_doc_file(create->node.doc), "multi/api/paths/ops/create_item.yaml"));
    /* a whole operation in another file; its refs are relative to that file */
    const spec_operation *get = op(api, "getItem");
    assert_string_equal(get->method, "GET");
    assert_string_equal(get->path, "/items/{id}");
    assert_int_equal(get->n_params, 1);
    spec_loc err404 = deref_ok(api, get->responses[1].media[0].schema);
    assert_non_null(strstr(spec_doc_file(err404.doc), "multi/api/schemas/common.yaml"));
    assert_non_null(jt_pointer(err404.node, "/properties/message"));
    /* the component Item is the file schemas/item.yaml; it refers to itself */
    long item = schema_named(api, "Item");
    assert_true(api->schemas[item].component);
    assert_true(api->schemas[item].in_cycle);
    assert_int_equal(spec_schema_index(api, get->responses[0].media[0].schema), item);
    assert_int_equal(spec_schema_index(api, create->body->media[0].schema), item);
    assert_int_equal(api->schemas[item].used_by, 3);
    /* schemas of other files get names from the file stem and the pointer */
    long name = schema_named(api, "common.Name");
    assert_false(api->schemas[name].component);
    assert_string_equal(api->schemas[name].pointer, "/Name");
    assert_string_equal(api->schemas[name].id, "multi:common.Name");
    schema_named(api, "common.Error");
    long spaced = schema_named(api, "my file.Spaced");
    assert_int_equal(api->schemas[spaced].used_by, 1);
    /* refused and dangling refs are warnings with the referring location */
    const core_diag *d = find_diag(api, CORE_DIAG_WARNING, "'../outside.yaml' refused");
    assert_non_null(d);
    assert_string_equal(d->pointer,
                        "/paths/~1escape/get/responses/200/content/application~1json/schema");
    assert_int_equal(d->line, 18);
    assert_non_null(find_diag(api, CORE_DIAG_WARNING, "'/etc/passwd' refused"));
    d = find_diag(api, CORE_DIAG_WARNING, "'responses/none.yaml' is dangling");
    assert_non_null(d);
    assert_string_equal(d->pointer, "/paths/~1dangling/get/responses/200");
    assert_int_equal(api->diags.n, 3);
    spec_registry_free(reg);
}

static void test_symlinks_cannot_escape(void **state)
{
    (void)state;
    char *tmp = tu_tempdir();
    const char *root = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n"
                       "components:\n  schemas:\n"
                       "    A: {$ref: 'link.yaml'}\n"
                       "    B: {$ref: 'linkdir/x.yaml'}\n"
                       "    C: {$ref: 'linkdir/../x.yaml'}\n"
                       "    D: {$ref: 'sub/../x.yaml'}\n";
    char *p = tu_write(tmp, "api/root.yaml", root);
    free(tu_write(tmp, "secret.yaml", "type: string\ndescription: secret\n"));
    free(tu_write(tmp, "x.yaml", "type: string\ndescription: outer x\n"));
    free(tu_write(tmp, "api/x.yaml", "type: string\ndescription: inner x\n"));
    free(tu_write(tmp, "api/sub/keep", ""));
    free(tu_write(tmp, "outside/x.yaml", "type: string\ndescription: outside\n"));
    char *a = tu_path(tmp, "api/link.yaml"), *sa = tu_path(tmp, "secret.yaml");
    char *b = tu_path(tmp, "api/linkdir"), *sb = tu_path(tmp, "outside");
    assert_int_equal(symlink(sa, a), 0);
    assert_int_equal(symlink(sb, b), 0);
    spec_registry *reg = load(p, NULL);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_non_null(find_diag(api, CORE_DIAG_WARNING, "'link.yaml' refused"));
    assert_non_null(find_diag(api, CORE_DIAG_WARNING, "'linkdir/x.yaml' refused"));
    /* linkdir/.. is tmp/, not tmp/api/: tmp/x.yaml is outside */
    assert_non_null(find_diag(api, CORE_DIAG_WARNING, "'linkdir/../x.yaml' refused"));
    /* a real directory: sub/../x.yaml is api/x.yaml */
    spec_loc d = deref_ok(api, api->schemas[3].node);
    assert_string_equal(jt_get_str(d.node, "description"), "inner x");
    assert_int_equal(api->n_files, 2);
    spec_registry_free(reg);
    free(a);
    free(sa);
    free(b);
    free(sb);
    free(p);
    tu_rmtree(tmp);
    free(tmp);
}

static void test_remote_refs_off_by_default(void **state)
{
    (void)state;
    char *tmp = tu_tempdir();
    char *p = tu_write(tmp, "root.yaml",
                       "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n"
                       "components: {schemas: {R: {$ref: 'https://example.invalid/s.yaml#/R'}, "
                       "F: {$ref: 'file:///etc/passwd'}}}\n");
    spec_registry *reg = load(p, NULL);
    const spec_api *api = spec_registry_api(reg, 0);
    const core_diag *d = find_diag(api, CORE_DIAG_WARNING, "remote references are off");
    assert_non_null(d);
    assert_string_equal(d->pointer, "/components/schemas/R");
    assert_non_null(find_diag(api, CORE_DIAG_WARNING, "only relative files and http(s)"));
    assert_int_equal(api->n_files, 1);
    spec_registry_free(reg);
    /* allowed, but not to this host */
    spec_options opt = {0};
    opt.allow_remote_refs = true;
    const char *hosts[] = {"api.example.com", NULL};
    opt.remote_hosts = hosts;
    reg = load(p, &opt);
    api = spec_registry_api(reg, 0);
    assert_non_null(
        find_diag(api, CORE_DIAG_WARNING, "host 'example.invalid' is not in the allow-list"));
    spec_registry_free(reg);
    free(p);
    tu_rmtree(tmp);
    free(tmp);
}

static void test_circular_schemas(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore30.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    long tree = schema_named(api, "Tree"), pet = schema_named(api, "Pet"),
         newpet = schema_named(api, "NewPet"), owner = schema_named(api, "Owner"),
         err = schema_named(api, "Error");
    /* self-recursive and mutually recursive (Pet → NewPet → Owner → Pet) */
    assert_true(api->schemas[tree].in_cycle);
    assert_true(api->schemas[pet].in_cycle);
    assert_true(api->schemas[newpet].in_cycle);
    assert_true(api->schemas[owner].in_cycle);
    assert_false(api->schemas[err].in_cycle);
    assert_int_equal(api->n_cycles, 2);
    assert_int_equal(api->schemas[tree].n_refs, 1);
    assert_int_equal(api->schemas[tree].refs[0], tree);
    /* following refs from any schema always ends: every target is a known schema */
    for (size_t i = 0; i < api->n_schemas; i++)
        for (size_t k = 0; k < api->schemas[i].n_refs; k++)
            assert_true(api->schemas[i].refs[k] < api->n_schemas);
    spec_registry_free(reg);
}

static void test_example_data_is_not_resolved(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore30.yaml");
    const spec_api *api = spec_registry_api(reg, 0);
    /* `example: {$ref: ..., note: ...}` and an Example Object's `value` are data */
    assert_null(find_diag(api, CORE_DIAG_WARNING, "DoesNotExist"));
    assert_null(find_diag(api, CORE_DIAG_WARNING, "AlsoNotARef"));
    /* a property called "$ref" is a property */
    const spec_operation *post = op(api, "POST /pets");
    spec_loc s = post->responses[0].media[0].schema;
    const jt_node *props = jt_get(s.node, "properties");
    spec_loc p = {props, s.doc}, out;
    assert_int_equal(spec_deref(api, p, &out), 0);
    assert_ptr_equal(out.node, props);
    /* an Example Object given by $ref is followed */
    const spec_operation *trees = op(api, "listTrees");
    const jt_node *kept = jt_pointer(trees->responses[0].media[0].node.node, "/examples/kept");
    spec_loc ex = deref_ok(api, (spec_loc){kept, api->root.doc});
    assert_non_null(jt_get(ex.node, "value"));
    /* OAS 3.1 `examples` arrays are data */
    spec_registry_free(reg);
    reg = load_fixture("oas31.json");
    assert_int_equal(spec_registry_api(reg, 0)->diags.n, 0);
    spec_registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_local_pointers_escaped),
        cmocka_unit_test(test_refs_to_refs),
        cmocka_unit_test(test_loops_and_dangling),
        cmocka_unit_test(test_multi_file),
        cmocka_unit_test(test_symlinks_cannot_escape),
        cmocka_unit_test(test_remote_refs_off_by_default),
        cmocka_unit_test(test_circular_schemas),
        cmocka_unit_test(test_example_data_is_not_resolved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
