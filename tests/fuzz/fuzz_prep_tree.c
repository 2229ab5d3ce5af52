/* Fuzz target for the prep tree filter. The bytes describe a tree built directly
 * with jt_new_* (OpenAPI keywords as keys, strings from the input), so the fuzzer
 * explores the filter's context rules rather than a parser. Checks: the input tree
 * is left unchanged, and the filtered tree never grows. */
#include "prep/prep.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const keys[] = {"responses",  "200",
                                   "404",        "5XX",
                                   "default",    "headers",
                                   "example",    "examples",
                                   "x-examples", "requestBody",
                                   "properties", "parameters",
                                   "in",         "body",
                                   "formData",   "description",
                                   "$ref",       "enum",
                                   "components", "requestBodies",
                                   "schemas",    "paths",
                                   "/a",         "get",
                                   "url",        "x"};
enum { N_KEYS = sizeof keys / sizeof keys[0], MAX_DEPTH = 12 };

typedef struct reader {
    const uint8_t *p;
    size_t n;
    core_arena *arena;
} reader;

static unsigned next(reader *r)
{
    if (!r->n) return 0;
    r->n--;
    return *r->p++;
}

static jt_node *gen(reader *r, unsigned depth)
{
    unsigned op = next(r) % 6;
    if (depth >= MAX_DEPTH && op < 2) op = 2;
    switch (op) {
    case 0: {
        size_t k = next(r) % 6;
        jt_node *o = jt_new_object(r->arena, k);
        for (size_t i = 0; o && i < k; i++) {
            const char *key = keys[next(r) % N_KEYS];
            o->u.members[i].key = key;
            o->u.members[i].key_len = (uint32_t)strlen(key);
            o->u.members[i].value = gen(r, depth + 1);
        }
        if (o) jt_object_finish(r->arena, o);
        return o;
    }
    case 1: {
        size_t k = next(r) % 5;
        jt_node *a = jt_new_array(r->arena, k);
        for (size_t i = 0; a && i < k; i++) a->u.items[i] = gen(r, depth + 1);
        return a;
    }
    case 2:
    case 3: {
        size_t len = next(r) % 48;
        if (len > r->n) len = r->n;
        jt_node *s = jt_new_string(r->arena, (const char *)r->p, len);
        r->p += len;
        r->n -= len;
        return s;
    }
    case 4:
        return jt_new_bool(r->arena, next(r) & 1);
    default:
        return jt_new_string(r->arena, "in", 2);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > 65536) return 0;
    core_arena *arena = core_arena_new(0);
    if (!arena) return 0;
    reader r = {data + 2, size - 2, arena};
    jt_node *root = gen(&r, 0);
    core_buf before, after;
    core_buf_init(&before, 0);
    core_buf_init(&after, 0);
    jt_write_json(&before, root, -1);
    prep_options opt = {.filters = data[0] | ((unsigned)data[1] << 8)};
    const jt_node *out = NULL;
    if (prep_tree(&opt, root, arena, &out, NULL) == 0) {
        if (prep_tree_bytes(out) > prep_tree_bytes(root)) abort();
        jt_write_json(&after, root, -1);
        if (before.len != after.len || (before.len && memcmp(before.data, after.data, before.len)))
            abort();
    }
    core_buf_free(&before);
    core_buf_free(&after);
    core_arena_free(arena);
    return 0;
}
