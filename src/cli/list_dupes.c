/* apidex list --duplicates: the APIs that are one service (store_duplicates), newest first,
 * and how many of each older one's operations the newest has (search leaves those out). */
#include "cli/cli.h"

#include "store/store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Operations of API `older` whose method and path shape API `newest` has too. */
static size_t covered(const store_api *apis, const store_operation *ops, size_t n_ops, size_t older,
                      size_t newest)
{
    size_t n = 0;
    core_buf a, b;
    core_buf_init(&a, 0);
    core_buf_init(&b, 0);
    for (size_t i = 0; i < n_ops; i++) {
        if (strcmp(ops[i].api, apis[older].id)) continue;
        store_path_shape(ops[i].path, &a);
        for (size_t j = 0; j < n_ops; j++) {
            if (strcmp(ops[j].api, apis[newest].id) || strcmp(ops[j].method, ops[i].method))
                continue;
            store_path_shape(ops[j].path, &b);
            if (a.data && b.data && !strcmp(a.data, b.data)) {
                n++;
                break;
            }
        }
    }
    core_buf_free(&a);
    core_buf_free(&b);
    return n;
}

int cli_list_duplicates(const store_api *apis, size_t n_apis, const store_operation *ops,
                        size_t n_ops, bool json)
{
    store_dups *d = NULL;
    if (store_duplicates(apis, n_apis, ops, n_ops, &d)) {
        fprintf(stderr, "apidex list: out of memory\n");
        return CLI_FAILURE;
    }
    core_buf b, key;
    core_buf_init(&b, 0);
    core_buf_init(&key, 0);
    if (json)
        core_buf_puts(&b, "{\"groups\":[");
    else if (!d->n)
        core_buf_printf(&b, "No duplicate services among %zu APIs.\n", n_apis);
    for (size_t g = 0; g < d->n; g++) {
        const store_dup_group *grp = &d->groups[g];
        size_t top = grp->apis[0];
        if (json) {
            core_buf_printf(&b, "%s{\"newest\":", g ? "," : "");
            core_buf_json_str_or_null(&b, apis[top].id);
            core_buf_puts(&b, ",\"apis\":[");
        } else {
            core_buf_printf(&b, "%s%zu. %zu APIs of one service; answers prefer %s\n",
                            g ? "\n" : "", g + 1, grp->n, apis[top].id);
        }
        for (size_t k = 0; k < grp->n; k++) {
            const store_api *a = &apis[grp->apis[k]];
            size_t cov = k ? covered(apis, ops, n_ops, grp->apis[k], top) : 0;
            store_title_norm(a->title, &key);
            const char *host = a->n_servers ? a->servers[0].url : NULL;
            if (json) {
                core_buf_puts(&b, k ? ",{\"id\":" : "{\"id\":");
                core_buf_json_str_or_null(&b, a->id);
                core_buf_puts(&b, ",\"title\":");
                core_buf_json_str_or_null(&b, a->title);
                core_buf_puts(&b, ",\"version\":");
                core_buf_json_str_or_null(&b, a->version);
                core_buf_puts(&b, ",\"document\":");
                core_buf_json_str_or_null(&b, a->document);
                core_buf_puts(&b, ",\"server\":");
                core_buf_json_str_or_null(&b, host);
                core_buf_printf(&b, ",\"operations\":%zu,\"newest\":%s,\"superseded\":%zu}",
                                a->n_ops, k ? "false" : "true", cov);
            } else {
                core_buf_printf(&b, "  %s %-28s %s %s (%zu operation%s)\n", k ? " " : "*", a->id,
                                a->title ? a->title : "", a->version ? a->version : "?", a->n_ops,
                                a->n_ops == 1 ? "" : "s");
                core_buf_printf(&b, "      %s%s%s\n", a->document ? a->document : "",
                                host ? "  server " : "", host ? host : "");
                if (k)
                    core_buf_printf(&b,
                                    "      %zu of its operations are in %s too: search leaves "
                                    "them out (--duplicates all keeps them)\n",
                                    cov, apis[top].id);
            }
        }
        if (json) core_buf_puts(&b, "]}");
    }
    if (json) core_buf_puts(&b, "]}\n");
    if (b.data) fputs(b.data, stdout);
    int code = b.failed ? CLI_FAILURE : CLI_OK;
    core_buf_free(&b);
    core_buf_free(&key);
    store_dups_free(d);
    return code;
}
