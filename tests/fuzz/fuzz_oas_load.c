/*
 * Fuzz target for the spec loader: the input is a root document (JSON or YAML)
 * loaded from memory next to a fixed set of files it may $ref (refs back to the
 * root's neighbours, loops, a file outside the directory). Then every public
 * look-up runs over the model: deref, schema index, allOf merge, operation ids.
 * Checks: no crash, no leak, every index in the model is in range.
 */
#include "oas/oas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char base_dir[256];

static const struct {
    const char *name, *text;
} neighbours[] = {
    {"a.yaml", "A:\n  type: object\n  properties:\n    b: {$ref: 'b.json#/B'}\n"
               "    self: {$ref: '#/A'}\n    up: {$ref: '../outside.yaml'}\n"
               "R: {$ref: '#/R2'}\nR2: {$ref: '#/R'}\n"
               "P:\n  get:\n    responses: {'200': {description: ok}}\n"},
    {"b.json", "{\"B\": {\"allOf\": [{\"$ref\": \"a.yaml#/A\"}, {\"properties\": {\"x\": {}}}]},"
               " \"Op\": {\"operationId\": \"fromB\", \"responses\": {}}}"},
    {"sub/c.yaml", "type: array\nitems: {$ref: '../a.yaml#/A'}\n"},
    {"../outside.yaml", "type: string\n"},
};

static void remove_dir(void)
{
    char p[512];
    for (size_t i = 0; i < sizeof neighbours / sizeof neighbours[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", base_dir, neighbours[i].name);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/sub", base_dir);
    rmdir(p);
    rmdir(base_dir);
    snprintf(p, sizeof p, "%s/..", base_dir);
    rmdir(p);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char tmpl[] = "/tmp/apidex-fuzz-spec-XXXXXX";
    if (!mkdtemp(tmpl)) abort();
    snprintf(base_dir, sizeof base_dir, "%s/api", tmpl);
    mkdir(base_dir, 0755);
    char p[512];
    snprintf(p, sizeof p, "%s/sub", base_dir);
    mkdir(p, 0755);
    for (size_t i = 0; i < sizeof neighbours / sizeof neighbours[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", base_dir, neighbours[i].name);
        FILE *f = fopen(p, "w");
        if (!f) abort();
        fputs(neighbours[i].text, f);
        fclose(f);
    }
    atexit(remove_dir);
    return 0;
}

static void check_loc(const spec_api *api, spec_loc l, core_arena *arena)
{
    if (!l.node) return;
    spec_loc out;
    (void)spec_deref(api, l, &out);
    long s = spec_schema_index(api, l);
    if (s >= (long)api->n_schemas) abort();
    (void)spec_ref_target(l);
    (void)spec_schema_merge_allof(api, l, arena, &out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    spec_options opt = {0};
    opt.limits.max_bytes = 1 << 20;
    opt.limits.max_nodes = 200000;
    opt.limits.max_depth = 256;
    opt.max_documents = 16;
    opt.max_ref_chain = 16;
    spec_registry *reg;
    apidex_error err;
    if (spec_registry_new(&opt, &reg, &err)) return 0;
    if (spec_registry_add_text(reg, "fuzz.yaml", (const char *)data, size, base_dir, &err)) {
        spec_registry_free(reg);
        return 0;
    }
    core_arena *arena = core_arena_new(0);
    for (size_t a = 0; a < spec_registry_count(reg); a++) {
        const spec_api *api = spec_registry_api(reg, a);
        if (spec_registry_find(reg, api->id) != api) abort();
        for (size_t i = 0; i < api->n_ops; i++) {
            const spec_operation *o = &api->ops[i];
            if (spec_api_find_operation(api, o->id) != o) abort();
            for (size_t k = 0; k < o->n_schemas; k++)
                if (o->schemas[k] >= api->n_schemas) abort();
            for (size_t k = 0; k < o->n_params; k++) check_loc(api, o->params[k].schema, arena);
            for (size_t k = 0; o->body && k < o->body->n_media; k++)
                check_loc(api, o->body->media[k].schema, arena);
            for (size_t r = 0; r < o->n_responses; r++)
                for (size_t k = 0; k < o->responses[r].n_media; k++)
                    check_loc(api, o->responses[r].media[k].schema, arena);
        }
        for (size_t i = 0; i < api->n_schemas; i++) {
            const spec_schema *s = &api->schemas[i];
            for (size_t k = 0; k < s->n_refs; k++)
                if (s->refs[k] >= api->n_schemas) abort();
            if (s->used_by > api->n_ops) abort();
            check_loc(api, s->node, arena);
        }
        for (size_t i = 0; i < api->diags.n; i++)
            if (!api->diags.items[i].message || !api->diags.items[i].file) abort();
    }
    core_arena_free(arena);
    spec_registry_free(reg);
    return 0;
}
