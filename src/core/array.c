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
