/* Tests for spec loading: inputs, formats, ids, failures, limits against hostile input. */
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
    int rc = spec_load_file(path, opt, &reg, &err);
    if (rc) fail_msg("loading %s failed: %s", path, err.message);
    assert_int_equal(spec_registry_count(reg), 1);
    return reg;
}

static spec_registry *load_fixture(const char *rel, const spec_options *opt)
{
    char *p = fixture(rel);
    spec_registry *reg = load(p, opt);
    free(p);
    return reg;
}

/* The first diagnostic of this level whose message contains `text`, or NULL. */
static const core_diag *find_diag(const spec_api *api, core_diag_level level, const char *text)
{
    for (size_t i = 0; i < api->diags.n; i++)
        if (api->diags.items[i].level == level && strstr(api->diags.items[i].message, text))
            return &api->diags.items[i];
    return NULL;
}

static void test_load_file(void **state)
{
    (void)state;
    spec_registry *reg = load_fixture("petstore30.yaml", NULL);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_string_equal(api->id, "pet-store");
    assert_string_equal(api->title, "Pet Store");
    assert_string_equal(api->version, "1.2");
    assert_string_equal(api->description, "A small store of pets.");
    assert_string_equal(api->spec_version, "3.0.3");
    assert_int_equal(api->major, 3);
    assert_int_equal(api->n_servers, 2);
    assert_string_equal(api->servers[0].url, "https://pets.example.com/v1");
    assert_string_equal(api->servers[0].description, "production");
    assert_string_equal(api->servers[1].url, "/relative");
    assert_int_equal(api->n_files, 1);
    assert_true(api->content_hash != 0);
    assert_ptr_equal(spec_registry_find(reg, "pet-store"), api);
    assert_null(spec_registry_find(reg, "nope"));
    assert_non_null(strstr(spec_doc_file(api->root.doc), "petstore30.yaml"));
    assert_ptr_equal(spec_doc_tree(api->root.doc)->root, api->root.node);
    spec_registry_free(reg);
    spec_registry_free(NULL);
}

static void test_format_detected_by_content(void **state)
{
    (void)state;
    /* YAML text in a .json file */
    spec_registry *reg = load_fixture("format/yaml_content.json", NULL);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_string_equal(api->title, "Yaml in json");
    assert_int_equal(spec_doc_tree(api->root.doc)->format, JT_FORMAT_YAML);
    spec_registry_free(reg);
    /* JSON text in a .yml file */
    reg = load_fixture("dirscan/c/swagger.yml", NULL);
    api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_int_equal(api->major, 2);
    assert_int_equal(spec_doc_tree(api->root.doc)->format, JT_FORMAT_JSON);
    spec_registry_free(reg);
}

static void expect_failed(const char *rel, int code, const char *text)
{
    spec_registry *reg = load_fixture(rel, NULL);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_true(api->failed);
    assert_int_equal(api->major, 0);
    assert_int_equal(api->n_ops, 0);
    const core_diag *d = find_diag(api, CORE_DIAG_ERROR, text);
    if (!d) fail_msg("%s: no error containing '%s'", rel, text);
    assert_int_equal(d->code, code);
    assert_non_null(strstr(d->file, rel));
    spec_registry_free(reg);
}

static void test_not_openapi_documents_fail_cleanly(void **state)
{
    (void)state;
    expect_failed("format/not_openapi.yaml", APIDEX_ESPEC, "not an OpenAPI or Swagger document");
    expect_failed("format/list_root.json", APIDEX_ESPEC, "a list");
    expect_failed("format/swagger12.yaml", APIDEX_ESPEC, "unsupported specification version");
    expect_failed("format/broken.yaml", APIDEX_EPARSE, "invalid YAML");
    spec_registry *reg = load_fixture("format/broken.yaml", NULL);
    const core_diag *d = find_diag(spec_registry_api(reg, 0), CORE_DIAG_ERROR, "invalid YAML");
    assert_true(d->line >= 2);
    spec_registry_free(reg);
}

static void test_missing_input(void **state)
{
    (void)state;
    spec_registry *reg;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, "/nonexistent/dir/x.yaml", &err), APIDEX_ENOTFOUND);
    assert_string_equal(err.file, "/nonexistent/dir/x.yaml");
    assert_int_equal(spec_registry_add(reg, "", &err), APIDEX_EINVAL);
    assert_int_equal(spec_registry_count(reg), 0);
    assert_null(spec_registry_api(reg, 0));
    spec_registry_free(reg);
}

static void test_directory_scan(void **state)
{
    (void)state;
    spec_registry *reg;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    char *dir = fixture("dirscan");
    assert_int_equal(spec_registry_add(reg, dir, &err), 0);
    /* a/openapi.yaml, b/openapi.json, c/swagger.yml; not .hidden/, fragments, notes.txt */
    assert_int_equal(spec_registry_count(reg), 3);
    const spec_api *a = spec_registry_api(reg, 0), *b = spec_registry_api(reg, 1),
                   *c = spec_registry_api(reg, 2);
    assert_non_null(strstr(a->file, "dirscan/a/openapi.yaml"));
    assert_non_null(strstr(b->file, "dirscan/b/openapi.json"));
    assert_non_null(strstr(c->file, "dirscan/c/swagger.yml"));
    /* ids come from the documents (titles "openapi", "B", "C"), not from the file names */
    assert_string_equal(a->id, "openapi");
    assert_string_equal(b->id, "b");
    assert_string_equal(c->id, "c");
    assert_string_equal(a->ops[0].id, "openapi:getA");
    assert_string_equal(b->ops[0].id, "b:GET /b");
    /* b's response lives in a fragment next to it */
    assert_int_equal(b->n_files, 2);
    assert_string_equal(b->ops[0].responses[0].description, "a response kept in a fragment file");
    /* adding the same files again changes nothing */
    assert_int_equal(spec_registry_add(reg, dir, &err), 0);
    assert_int_equal(spec_registry_count(reg), 3);
    free(dir);
    spec_registry_free(reg);
}

static void test_ids_do_not_depend_on_order(void **state)
{
    (void)state;
    char *tmp = tu_tempdir();
    const char *doc = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n"
                      "  /x: {get: {operationId: op, responses: {'200': {description: ok}}}}\n";
    char *p1 = tu_write(tmp, "one/x/api.yaml", doc);
    char *p2 = tu_write(tmp, "two/x/api.yaml", doc);
    char *p3 = tu_write(tmp, "three/api.json", "{\"openapi\": \"3.0.0\", \"paths\": {}}");
    char *p4 = tu_write(tmp, "solo/we:ird.yaml", doc);
    const char *orders[2][4] = {{p1, p2, p3, p4}, {p4, p3, p2, p1}};
    for (int o = 0; o < 2; o++) {
        spec_registry *reg;
        apidex_error err;
        assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
        for (int i = 0; i < 4; i++) assert_int_equal(spec_registry_add(reg, orders[o][i], &err), 0);
        assert_int_equal(spec_registry_count(reg), 4);
        /* sorted by path: one/x, solo, three, two/x; the title "t" three times gets
           "-2", "-3" in that order, whichever order the files came in */
        assert_string_equal(spec_registry_api(reg, 0)->id, "t");
        assert_string_equal(spec_registry_api(reg, 1)->id, "t-2");
        assert_string_equal(spec_registry_api(reg, 2)->id, "api");
        assert_string_equal(spec_registry_api(reg, 3)->id, "t-3");
        assert_string_equal(spec_registry_api(reg, 3)->ops[0].id, "t-3:op");
        assert_non_null(spec_api_find_operation(spec_registry_api(reg, 3), "t-3:op"));
        assert_null(spec_api_find_operation(spec_registry_api(reg, 3), "t:op"));
        spec_registry_free(reg);
    }
    /* documents from memory with the same stem and no directory: numbered */
    spec_registry *reg;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, "a.yaml", doc, strlen(doc), NULL, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, "a.json", doc, strlen(doc), NULL, &err), 0);
    assert_int_equal(spec_registry_count(reg), 2);
    assert_string_not_equal(spec_registry_api(reg, 0)->id, spec_registry_api(reg, 1)->id);
    assert_non_null(strstr(spec_registry_api(reg, 0)->id, "a"));
    spec_registry_free(reg);
    free(p1);
    free(p2);
    free(p3);
    free(p4);
    tu_rmtree(tmp);
    free(tmp);
}

static void test_same_file_twice(void **state)
{
    (void)state;
    spec_registry *reg;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    char *p = fixture("petstore30.yaml");
    char *q = fixture("format/../petstore30.yaml");
    assert_int_equal(spec_registry_add(reg, p, &err), 0);
    assert_int_equal(spec_registry_add(reg, q, &err), 0);
    assert_int_equal(spec_registry_count(reg), 1);
    free(p);
    free(q);
    spec_registry_free(reg);
}

static void test_limit_file_size(void **state)
{
    (void)state;
    spec_options opt = {0};
    opt.limits.max_bytes = 100;
    spec_registry *reg = load_fixture("petstore30.yaml", &opt);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_true(api->failed);
    const core_diag *d = find_diag(api, CORE_DIAG_ERROR, "limit");
    assert_non_null(d);
    assert_int_equal(d->code, APIDEX_ELIMIT);
    spec_registry_free(reg);
    /* in a directory scan a root that is too big is reported, a big fragment skipped */
    char *tmp = tu_tempdir();
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, "openapi: 3.0.0\ninfo: {title: big, version: '1'}\npaths: {}\nx-pad: '");
    for (int i = 0; i < 300; i++) core_buf_putc(&b, 'x');
    core_buf_puts(&b, "'\n");
    free(tu_write(tmp, "big.yaml", b.data));
    free(tu_write(tmp, "fragment.yaml", b.data + 15)); /* no openapi key */
    core_buf_free(&b);
    opt.limits.max_bytes = 200;
    apidex_error err;
    assert_int_equal(spec_registry_new(&opt, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, tmp, &err), 0);
    assert_int_equal(spec_registry_count(reg), 1);
    api = spec_registry_api(reg, 0);
    assert_string_equal(api->id, "big");
    assert_true(api->failed);
    assert_non_null(find_diag(api, CORE_DIAG_ERROR, "limit"));
    spec_registry_free(reg);
    tu_rmtree(tmp);
    free(tmp);
}

/* A deferred registry's scan sniffs a file's first 64 KiB and reads the whole only when they
   do not say: it finds exactly the roots an eager scan finds (a key past 64 KiB, a big
   fragment, a root over the size limit), and each loads to the same document. */
static void test_deferred_scan_same_roots(void **state)
{
    (void)state;
    char *tmp = tu_tempdir();
    core_buf pad;
    core_buf_init(&pad, 0);
    core_buf_puts(&pad, "x-pad: '");
    for (int i = 0; i < 70000; i++) core_buf_putc(&pad, 'x');
    core_buf_puts(&pad, "'\n");
    const char *root = "openapi: 3.0.0\ninfo: {title: T, version: '1'}\npaths: {}\n";
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, root);
    core_buf_puts(&b, pad.data);
    free(tu_write(tmp, "a_head.yaml", b.data)); /* key in the head */
    core_buf_free(&b);
    core_buf_init(&b, 0);
    core_buf_puts(&b, pad.data);
    core_buf_puts(&b, root);
    free(tu_write(tmp, "b_tail.yaml", b.data)); /* key only past 64 KiB */
    core_buf_free(&b);
    free(tu_write(tmp, "c_fragment.yaml", pad.data)); /* big, no key: skipped */
    free(tu_write(tmp, "d_small.yaml", root));
    free(tu_write(tmp, "e_note.yaml", "description: a fragment\n"));
    core_buf_init(&b, 0);
    core_buf_puts(&b, root);
    for (int i = 0; i < 3; i++) core_buf_puts(&b, pad.data);
    free(tu_write(tmp, "f_huge.yaml", b.data)); /* over the limit below: reported */
    core_buf_free(&b);
    core_buf_free(&pad);
    spec_registry *regs[2];
    for (int deferred = 0; deferred < 2; deferred++) {
        spec_options opt = {.deferred = deferred};
        opt.limits.max_bytes = 150000;
        apidex_error err;
        assert_int_equal(spec_registry_new(&opt, &regs[deferred], &err), 0);
        assert_int_equal(spec_registry_add(regs[deferred], tmp, &err), 0);
        assert_int_equal(spec_registry_deferred(regs[deferred]), deferred);
    }
    size_t n = spec_registry_count(regs[0]);
    assert_int_equal(n, 4); /* a_head, b_tail, d_small, f_huge */
    assert_int_equal(spec_registry_count(regs[1]), n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(spec_registry_load(regs[1], i), 0);
        const spec_api *e = spec_registry_api(regs[0], i), *d = spec_registry_api(regs[1], i);
        assert_string_equal(e->file, d->file);
        assert_int_equal(e->failed, d->failed);
        assert_int_equal(e->content_hash, d->content_hash);
        assert_int_equal(e->n_ops, d->n_ops);
        assert_int_equal(e->diags.n, d->diags.n);
    }
    assert_non_null(strstr(spec_registry_api(regs[0], 3)->file, "f_huge"));
    assert_true(spec_registry_api(regs[1], 3)->failed);
    spec_registry_free(regs[0]);
    spec_registry_free(regs[1]);
    tu_rmtree(tmp);
    free(tmp);
}

/* A document nested `depth` levels deep, as JSON or as YAML flow collections. */
static char *deep_doc(int depth, bool yaml)
{
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, yaml ? "openapi: 3.0.0\ninfo: {title: deep, version: '1'}\nx-deep: "
                           : "{\"openapi\": \"3.0.0\", \"x-deep\": ");
    for (int i = 0; i < depth; i++) core_buf_puts(&b, i % 2 ? "[" : "{\"a\": ");
    core_buf_puts(&b, "1");
    for (int i = depth; i-- > 0;) core_buf_puts(&b, i % 2 ? "]" : "}");
    core_buf_puts(&b, yaml ? "\npaths: {}\n" : ", \"paths\": {}}");
    return core_buf_steal(&b, NULL);
}

static void test_limit_nesting_10000(void **state)
{
    (void)state;
    char *tmp = tu_tempdir();
    for (int yaml = 0; yaml < 2; yaml++) {
        char *text = deep_doc(10000, yaml);
        char *p = tu_write(tmp, yaml ? "deep.yaml" : "deep.json", text);
        free(text);
        spec_registry *reg = load(p, NULL);
        const spec_api *api = spec_registry_api(reg, 0);
        assert_true(api->failed);
        const core_diag *d = find_diag(api, CORE_DIAG_ERROR, "nesting deeper than the limit");
        if (!d) fail_msg("no nesting error for %s", p);
        assert_int_equal(d->code, APIDEX_ELIMIT);
        assert_true(d->line >= 1);
        spec_registry_free(reg);
        /* with the limit raised the same document loads, and no walk recurses on it */
        spec_options opt = {0};
        opt.limits.max_depth = 12000;
        reg = load(p, &opt);
        api = spec_registry_api(reg, 0);
        assert_false(api->failed);
        spec_registry_free(reg);
        free(p);
    }
    tu_rmtree(tmp);
    free(tmp);
}

static void test_alias_bomb(void **state)
{
    (void)state;
    char *tmp = tu_tempdir();
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, "openapi: 3.0.0\ninfo: {title: lol, version: '1'}\nx-a0: &a0 [lol, lol]\n");
    for (int i = 1; i < 40; i++)
        core_buf_printf(&b, "x-a%d: &a%d [*a%d, *a%d, *a%d, *a%d]\n", i, i, i - 1, i - 1, i - 1,
                        i - 1);
    core_buf_puts(&b, "paths: {}\n");
    char *p = tu_write(tmp, "bomb.yaml", b.data);
    core_buf_free(&b);
    double t0 = core_now();
    spec_registry *reg = load(p, NULL);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_true(api->failed);
    const core_diag *d = find_diag(api, CORE_DIAG_ERROR, "alias");
    assert_non_null(d);
    assert_int_equal(d->code, APIDEX_ELIMIT);
    assert_true(core_now() - t0 < 30);
    spec_registry_free(reg);
    /* a few shared anchors are fine, and a $ref inside one is resolved once */
    const char *ok = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\n"
                     "x-shared: &s {$ref: '#/components/schemas/A'}\n"
                     "paths:\n"
                     "  /a: {get: {responses: {'200': {description: a, content: {application/json: "
                     "{schema: *s}}}}}}\n"
                     "  /b: {get: {responses: {'200': {description: b, content: {application/json: "
                     "{schema: *s}}}}}}\n"
                     "components: {schemas: {A: {type: object}}}\n";
    free(p);
    p = tu_write(tmp, "shared.yaml", ok);
    reg = load(p, NULL);
    api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_int_equal(api->n_ops, 2);
    assert_int_equal(api->schemas[0].used_by, 2);
    assert_int_equal(spec_schema_index(api, api->ops[1].responses[0].media[0].schema), 0);
    spec_registry_free(reg);
    free(p);
    tu_rmtree(tmp);
    free(tmp);
}

static void test_limit_documents(void **state)
{
    (void)state;
    char *tmp = tu_tempdir();
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, "openapi: 3.0.0\ninfo: {title: many, version: '1'}\npaths: {}\n"
                      "components:\n  schemas:\n");
    for (int i = 0; i < 6; i++) {
        core_buf_printf(&b, "    S%d: {$ref: 'part%d.yaml'}\n", i, i);
        char name[32], body[64];
        snprintf(name, sizeof name, "part%d.yaml", i);
        snprintf(body, sizeof body, "type: object\ndescription: part %d\n", i);
        free(tu_write(tmp, name, body));
    }
    char *p = tu_write(tmp, "root.yaml", b.data);
    core_buf_free(&b);
    spec_options opt = {0};
    opt.max_documents = 3; /* the root and two parts */
    spec_registry *reg = load(p, &opt);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_int_equal(api->n_files, 3);
    const core_diag *d = find_diag(api, CORE_DIAG_ERROR, "more than 3 documents");
    assert_non_null(d);
    assert_int_equal(d->code, APIDEX_ELIMIT);
    assert_string_equal(d->pointer, "/components/schemas/S2");
    spec_registry_free(reg);
    reg = load(p, NULL);
    assert_int_equal(spec_registry_api(reg, 0)->n_files, 7);
    assert_int_equal(spec_registry_api(reg, 0)->diags.n, 0);
    spec_registry_free(reg);
    free(p);
    tu_rmtree(tmp);
    free(tmp);
}

static void test_limit_ref_chain(void **state)
{
    (void)state;
    char *tmp = tu_tempdir();
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, "{\"openapi\": \"3.0.0\", \"info\": {\"title\": \"c\", \"version\": \"1\"}, "
                      "\"paths\": {}, \"components\": {\"schemas\": {\n");
    for (int i = 0; i < 10; i++)
        core_buf_printf(&b, "  \"C%d\": {\"$ref\": \"#/components/schemas/C%d\"},\n", i, i + 1);
    core_buf_puts(&b, "  \"C10\": {\"type\": \"string\"}}}}\n");
    char *p = tu_write(tmp, "chain.json", b.data);
    core_buf_free(&b);
    spec_options opt = {0};
    opt.max_ref_chain = 4;
    spec_registry *reg = load(p, &opt);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    const core_diag *d = find_diag(api, CORE_DIAG_ERROR, "chain of more than 4");
    assert_non_null(d);
    assert_int_equal(d->code, APIDEX_ELIMIT);
    /* a JSON document: the location comes from the text */
    assert_string_equal(d->pointer, "/components/schemas/C0");
    assert_int_equal(d->line, 2);
    /* C6 is 4 hops from C10: fine; C5 is 5: refused */
    spec_loc out;
    const jt_node *schemas = jt_pointer(api->root.node, "/components/schemas");
    assert_int_equal(spec_deref(api, (spec_loc){jt_get(schemas, "C6"), api->root.doc}, &out), 0);
    assert_string_equal(jt_get_str(out.node, "type"), "string");
    assert_int_equal(spec_deref(api, (spec_loc){jt_get(schemas, "C5"), api->root.doc}, &out),
                     APIDEX_EREF);
    spec_registry_free(reg);
    reg = load(p, NULL); /* the default allows 64 */
    assert_int_equal(spec_registry_api(reg, 0)->diags.n, 0);
    spec_registry_free(reg);
    free(p);
    tu_rmtree(tmp);
    free(tmp);
}

static void test_add_text(void **state)
{
    (void)state;
    const char *doc = "openapi: 3.0.0\ninfo: {title: mem, version: '1'}\npaths:\n"
                      "  /x: {get: {responses: {'200': {$ref: 'other.yaml#/ok'}}}}\n";
    spec_registry *reg;
    apidex_error err;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, "mem.yaml", doc, strlen(doc), NULL, &err), 0);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_string_equal(api->id, "mem");
    assert_non_null(find_diag(api, CORE_DIAG_WARNING, "without a directory"));
    spec_registry_free(reg);
    char *tmp = tu_tempdir();
    free(tu_write(tmp, "other.yaml", "ok: {description: from the directory}\n"));
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add_text(reg, "mem.yaml", doc, strlen(doc), tmp, &err), 0);
    api = spec_registry_api(reg, 0);
    assert_int_equal(api->diags.n, 0);
    assert_string_equal(api->ops[0].responses[0].description, "from the directory");
    spec_registry_free(reg);
    tu_rmtree(tmp);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_format_detected_by_content),
        cmocka_unit_test(test_not_openapi_documents_fail_cleanly),
        cmocka_unit_test(test_missing_input),
        cmocka_unit_test(test_directory_scan),
        cmocka_unit_test(test_ids_do_not_depend_on_order),
        cmocka_unit_test(test_same_file_twice),
        cmocka_unit_test(test_limit_file_size),
        cmocka_unit_test(test_deferred_scan_same_roots),
        cmocka_unit_test(test_limit_nesting_10000),
        cmocka_unit_test(test_alias_bomb),
        cmocka_unit_test(test_limit_documents),
        cmocka_unit_test(test_limit_ref_chain),
        cmocka_unit_test(test_add_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
