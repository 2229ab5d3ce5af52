/*
 * Operations kept by their tags (spec_input_options: the registry file's `tags:
 * include/exclude`). Runs after the operations are normalised and before the
 * schema graph is built, so schemas, used-by counts and tags describe only the
 * operations that stay.
 */
#include "oas/oas_int.h"

#include <fnmatch.h>
#include <string.h>

static bool any_match(const char *const *patterns, const spec_operation *op)
{
    for (size_t p = 0; patterns && patterns[p]; p++)
        for (size_t t = 0; t < op->n_tags; t++)
            if (op->tags[t] && fnmatch(patterns[p], op->tags[t], FNM_CASEFOLD) == 0) return true;
    return false;
}

/* Whether the filter keeps op: a tag in include (when there is one), none in exclude. */
static bool keeps(const spec_api_int *ai, const spec_operation *op)
{
    if (ai->include_tags && !any_match(ai->include_tags, op)) return false;
    return !any_match(ai->exclude_tags, op);
}

int spec_select_ops(spec_api_int *ai)
{
    spec_api *api = &ai->pub;
    if (!ai->include_tags && !ai->exclude_tags) return 0;
    size_t kept = 0, all = api->n_ops;
    for (size_t i = 0; i < all; i++)
        if (keeps(ai, &api->ops[i])) api->ops[kept++] = api->ops[i];
    api->n_ops = kept;
    if (all && !kept)
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ESPEC, api->root.doc, NULL, "",
                  "the tag filter keeps none of the %zu operations", all);
    return 0;
}

uint64_t spec_select_hash(const spec_api_int *ai, uint64_t content_hash)
{
    if (!ai->include_tags && !ai->exclude_tags) return content_hash;
    /* "+a\0+b\0-c\0": the lists in order, so another filter is another hash */
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_append(&b, &content_hash, sizeof content_hash);
    for (size_t i = 0; ai->include_tags && ai->include_tags[i]; i++) {
        core_buf_putc(&b, '+');
        core_buf_append(&b, ai->include_tags[i], strlen(ai->include_tags[i]) + 1);
    }
    for (size_t i = 0; ai->exclude_tags && ai->exclude_tags[i]; i++) {
        core_buf_putc(&b, '-');
        core_buf_append(&b, ai->exclude_tags[i], strlen(ai->exclude_tags[i]) + 1);
    }
    uint64_t h = b.failed ? content_hash ^ 1 : core_hash64(b.data, b.len);
    core_buf_free(&b);
    return h;
}
