/* Growable arrays: the one grow-by-doubling step with overflow-checked sizes (core.h). */
#include "core/core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int core_array_grow(void *items_ptr, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap) return 0;
    size_t want = *cap ? *cap : first;
    if (*cap) {
        if (want > SIZE_MAX / 2) return APIDEX_ENOMEM;
        want *= 2;
    }
    if (!elem || !want || want > SIZE_MAX / elem) return APIDEX_ENOMEM;
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
