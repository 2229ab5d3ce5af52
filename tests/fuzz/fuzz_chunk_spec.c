/* Fuzz target for the chunker: the input (after two option bytes) is a root document
 * loaded from memory; every strategy chunks it with small windows and the filters the
 * option bytes pick. Checks: no crash or leak, windows within the size, every chunk's
 * endpoints exist in the model, and the JSON output is written. */
#include "chunk/chunk.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3 || size > 256 * 1024) return 0;
    spec_registry *reg = NULL;
    apidex_error err;
    if (spec_registry_new(NULL, &reg, &err)) return 0;
    if (spec_registry_add_text(reg, "fuzz.yaml", (const char *)data + 2, size - 2, NULL, &err) ||
        spec_registry_count(reg) == 0) {
        spec_registry_free(reg);
        return 0;
    }
    const spec_api *api = spec_registry_api(reg, 0);
    size_t win = 8 + data[0] % 64;
    for (int s = CHUNK_NOSPLIT; s <= CHUNK_HYBRID; s++) {
        chunk_list *l = NULL;
        if (chunk_list_new(&l)) break;
        chunk_options opt = {.strategy = (chunk_strategy)s,
                             .size = win,
                             .overlap = data[1] % win,
                             .inline_depth = 1 + data[1] % 4};
        opt.prep.filters = data[1] | ((unsigned)(data[0] & 1) << 8);
        if (chunk_api(api, &opt, l, &err) == 0) {
            for (size_t i = 0; i < l->n; i++) {
                const chunk *c = &l->items[i];
                bool windowed = s == CHUNK_NOSPLIT || s == CHUNK_JSON || s == CHUNK_ENDPOINT;
                if (windowed && c->meta.tokens > win) abort();
                for (size_t e = 0; e < c->n_endpoints; e++)
                    if (!spec_api_find_operation(api, c->endpoints[e].op_id)) abort();
            }
            core_buf out;
            core_buf_init(&out, 0);
            chunk_list_write_json(l, true, -1, &out);
            core_buf_free(&out);
        }
        chunk_list_free(l);
    }
    spec_registry_free(reg);
    return 0;
}
