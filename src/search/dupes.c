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
    e->work += d->work + e->n_apis;
    if (!d->n) {
        store_dups_free(d);
        return 0;
    }
    /* the operations of each API that is in a group, found in one pass (counting sort):
       the work is linear in the operations, however many groups there are */
    size_t na = e->n_apis, *start = calloc(na + 2, sizeof *start);
    size_t *list = malloc((e->n_ops ? e->n_ops : 1) * sizeof *list);
    char **newest = malloc((e->n_ops ? e->n_ops : 1) * sizeof *newest);
    int rc = 0;
    if (!start || !list || !newest ||
        !(e->superseded = calloc(e->n_ops ? e->n_ops : 1, sizeof *e->superseded)))
        rc = APIDEX_ENOMEM;
    for (size_t i = 0; i < e->n_ops && !rc; i++) {
        uint32_t a = e->info[i].api;
        if (a < na && d->group_of[a] != SIZE_MAX) start[a + 2]++;
    }
    for (size_t a = 0; a < na && !rc; a++) start[a + 2] += start[a + 1];
    e->work += 2 * e->n_ops + na;
    for (size_t i = 0; i < e->n_ops && !rc; i++) {
        uint32_t a = e->info[i].api;
        if (a < na && d->group_of[a] != SIZE_MAX) list[start[a + 1]++] = i;
    }
    core_buf key, shape;
    core_buf_init(&key, 0);
    core_buf_init(&shape, 0);
    for (size_t g = 0; g < d->n && !rc; g++) {
        const store_dup_group *grp = &d->groups[g];
        size_t top = grp->apis[0], m = 0;
        for (size_t j = start[top]; j < start[top + 1] && !rc; j++) {
            op_key(&e->ops[list[j]], &key, &shape);
            e->work++;
            if (key.failed || !(newest[m] = strdup(key.data)))
                rc = APIDEX_ENOMEM;
            else
                m++;
        }
        qsort(newest, m, sizeof *newest, cmp_str);
        for (size_t k = 1; k < grp->n && !rc && m; k++) {
            size_t a = grp->apis[k];
            for (size_t j = start[a]; j < start[a + 1]; j++) {
                op_key(&e->ops[list[j]], &key, &shape);
                e->work++;
                const char *kk = key.data ? key.data : "";
                if (bsearch(&kk, newest, m, sizeof *newest, cmp_str)) e->superseded[list[j]] = true;
            }
        }
        for (size_t i = 0; i < m; i++) free(newest[i]);
    }
    core_buf_free(&key);
    core_buf_free(&shape);
    free(start);
    free(list);
    free(newest);
    store_dups_free(d);
    return rc;
}
