/*
 * An indexed API's document for the readers that need more than the index keeps (show at
 * full detail, tool definitions, snippets, the page): the snapshot the index holds of a
 * document that only a running source can give (an MCP server's tool list), else the
 * document read again from its path or URL.
 */
#include "store/store_int.h"

#include <string.h>

int store_api_registry(store_index *idx, size_t i, spec_registry **out, apidex_error *err)
{
    *out = NULL;
    const store_api *apis = NULL;
    size_t n = 0;
    int rc = store_apis(idx, &apis, &n, err);
    if (rc) return rc;
    if (i >= n) return core_error_set(err, APIDEX_EINVAL, "no such API");
    const store_api *sapi = &apis[i];
    const char *kept = store_api_snapshot(idx, i);
    spec_input_options io = {.name = sapi->id, .text = kept, .text_len = kept ? strlen(kept) : 0};
    rc = spec_registry_new(NULL, out, err);
    if (!rc) rc = spec_registry_add_input(*out, sapi->document, &io, err);
    return rc;
}
