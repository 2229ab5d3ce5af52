/*
 * Fuzz target for the Postman collection importer (src/oas/postman*.c): the input is
 * loaded from memory as a root document; a collection is translated into OpenAPI and
 * normalised. Then the model is walked: every operation found by its id, every schema
 * and media node read, every diagnostic complete.
 * Checks: no crash, no leak, every index in the model is in range.
 */
#include "oas/oas.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads every node under n (iteratively): a dangling pointer in the tree shows here. */
static size_t touch(const jt_node *n)
{
    const jt_node *stack[256];
    size_t sp = 0, seen = 0;
    if (n) stack[sp++] = n;
    while (sp) {
        const jt_node *x = stack[--sp];
        seen += x->len;
        if (x->type == JT_STRING && x->len && !x->u.s) abort();
        for (uint32_t i = 0; i < x->len && (x->type == JT_OBJECT || x->type == JT_ARRAY); i++) {
            const jt_node *c = x->type == JT_OBJECT ? x->u.members[i].value : x->u.items[i];
            if (x->type == JT_OBJECT && !x->u.members[i].key) abort();
            if (c && sp < 256) stack[sp++] = c;
        }
    }
    return seen;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    spec_options opt = {0};
    opt.limits.max_bytes = 1 << 20;
    opt.limits.max_nodes = 200000;
    opt.limits.max_depth = 256;
    opt.max_documents = 4;
    spec_registry *reg;
    apidex_error err;
    if (spec_registry_new(&opt, &reg, &err)) return 0;
    if (spec_registry_add_text(reg, "fuzz.postman_collection.json", (const char *)data, size, NULL,
                               &err)) {
        spec_registry_free(reg);
        return 0;
    }
    volatile size_t sink = 0;
    for (size_t a = 0; a < spec_registry_count(reg); a++) {
        const spec_api *api = spec_registry_api(reg, a);
        sink += touch(api->root.node);
        for (size_t i = 0; i < api->n_ops; i++) {
            const spec_operation *o = &api->ops[i];
            if (spec_api_find_operation(api, o->id) != o) abort();
            if (!o->method || !o->path || !o->pointer) abort();
            for (size_t k = 0; k < o->n_params; k++)
                if (!o->params[k].name || !o->params[k].in) abort();
            for (size_t k = 0; o->body && k < o->body->n_media; k++)
                sink += touch(o->body->media[k].schema.node);
            for (size_t r = 0; r < o->n_responses; r++)
                for (size_t k = 0; k < o->responses[r].n_media; k++)
                    sink += touch(o->responses[r].media[k].node.node);
            for (size_t k = 0; k < o->n_schemas; k++)
                if (o->schemas[k] >= api->n_schemas) abort();
        }
        for (size_t i = 0; i < api->n_tags; i++)
            if (!api->tags[i].name) abort();
        for (size_t i = 0; i < api->diags.n; i++)
            if (!api->diags.items[i].message || !api->diags.items[i].file) abort();
    }
    (void)sink;
    spec_registry_free(reg);
    return 0;
}
