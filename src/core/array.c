/* Growable arrays: the one grow-by-doubling step with overflow-checked sizes, on the heap or in
   an arena (core.h). */
#include "core/core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The capacity after cap: first when empty, else twice cap; 0 when it (or its bytes, with
   `extra` more items) would pass SIZE_MAX, or elem or first is 0. */
static size_t next_cap(size_t cap, size_t elem, size_t first, size_t extra)
{
    size_t want = cap ? cap : first;
    if (cap) {
        if (want > SIZE_MAX / 2) return 0;
        want *= 2;
    }
    if (!elem || !want || want > SIZE_MAX - extra || want + extra > SIZE_MAX / elem) return 0;
    return want;
}

int core_array_grow(void *items_ptr, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap) return 0;
    size_t want = next_cap(*cap, elem, first, 0);
    if (!want) return APIDEX_ENOMEM;
    void *old;
    memcpy(&old, items_ptr, sizeof old);
    void *grown = realloc(old, want * elem);
    if (!grown) return APIDEX_ENOMEM;
    memcpy(items_ptr, &grown, sizeof grown);
    *cap = want;
    return 0;
}

int core_array_grow2(void *a_ptr, size_t elem_a, void *b_ptr, size_t elem_b, size_t *cap, size_t n,
                     size_t first)
{
    size_t cap_a = *cap, cap_b = *cap;
    if (core_array_grow(a_ptr, &cap_a, n, elem_a, first) ||
        core_array_grow(b_ptr, &cap_b, n, elem_b, first))
        return APIDEX_ENOMEM;
    *cap = cap_a;
    return 0;
}

int core_arena_array_grow(core_arena *a, void *items_ptr, size_t *cap, size_t n, size_t elem,
                          size_t first)
{
    if (n < *cap) return 0;
    size_t want = next_cap(*cap, elem, first, 1);
    if (!want) return APIDEX_ENOMEM;
    void *grown = core_arena_calloc(a, want + 1, elem);
    if (!grown) return APIDEX_ENOMEM;
    void *old;
    memcpy(&old, items_ptr, sizeof old);
    if (*cap && old) memcpy(grown, old, *cap * elem);
    memcpy(items_ptr, &grown, sizeof grown);
    *cap = want;
    return 0;
}
