/*
 * One entry per service (store/dupes.c groups the APIs): an operation of an older API of a
 * group whose method and path shape the group's newest API also has is superseded, and
 * search leaves it out while answer.duplicates is 1 (the default; 0 keeps every version).
 * Operations only the older versions have stay: nothing the registry can do is lost.
 */
#include "search/search_int.h"

#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "METHOD shape" of op into b. */
static void op_key(const store_operation *op, core_buf *b, core_buf *shape)
{
    store_path_shape(op->path, shape);
    core_buf_reset(b);
    core_buf_printf(b, "%s %s", op->method, shape->data ? shape->data : "");
}

int dupes_mark(search_engine *e)
{
    store_dups *d = NULL;
    if (store_duplicates(e->apis, e->n_apis, e->ops, e->n_ops, &d)) return APIDEX_ENOMEM;
    int rc = 0;
    if (d->n && !(e->superseded = calloc(e->n_ops ? e->n_ops : 1, sizeof *e->superseded)))
        rc = APIDEX_ENOMEM;
    core_buf key, shape;
    core_buf_init(&key, 0);
    core_buf_init(&shape, 0);
    char **newest = NULL;
    for (size_t g = 0; g < d->n && !rc; g++) {
        size_t top = d->groups[g].apis[0], m = 0;
        newest = calloc(e->n_ops ? e->n_ops : 1, sizeof *newest);
        if (!newest) {
            rc = APIDEX_ENOMEM;
            break;
        }
        for (size_t i = 0; i < e->n_ops && !rc; i++) {
            if (e->info[i].api != top) continue;
            op_key(&e->ops[i], &key, &shape);
            if (key.failed || !(newest[m++] = strdup(key.data))) rc = APIDEX_ENOMEM;
        }
        qsort(newest, m, sizeof *newest, cmp_str);
        for (size_t i = 0; i < e->n_ops && !rc; i++) {
            uint32_t a = e->info[i].api;
            if (a == top || d->group_of[a] != g) continue;
            op_key(&e->ops[i], &key, &shape);
            const char *k = key.data ? key.data : "";
            if (m && bsearch(&k, newest, m, sizeof *newest, cmp_str)) e->superseded[i] = true;
        }
        for (size_t i = 0; i < m; i++) free(newest[i]);
        free(newest);
        newest = NULL;
    }
    core_buf_free(&key);
    core_buf_free(&shape);
    store_dups_free(d);
    return rc;
}
