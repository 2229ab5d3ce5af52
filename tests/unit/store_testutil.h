/* Helpers of the store tests: what a reader streams instead of keeping (chunk terms). */
#ifndef APIDEX_STORE_TESTUTIL_H
#define APIDEX_STORE_TESTUTIL_H

#include "testutil.h"

#include "store/store.h"

#include <stdlib.h>
#include <string.h>

typedef struct term_pick {
    size_t want;
    int field;
    char *out;
} term_pick;

static int pick_terms(void *ctx, size_t i, const char *const *terms)
{
    term_pick *p = ctx;
    if (i == p->want) p->out = strdup(terms[p->field]);
    return 0;
}

/* The terms of chunk i's field (a malloc'd copy; readers stream terms, they keep none). */
static inline char *chunk_terms(store_index *idx, size_t i, int field)
{
    apidex_error err;
    term_pick p = {i, field, NULL};
    assert_int_equal(store_chunk_terms_scan(idx, pick_terms, &p, &err), 0);
    assert_non_null(p.out);
    return p.out;
}

#endif
