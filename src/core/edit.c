/*
 * Edit distance for "did you mean" suggestions (unknown flags, keys, API ids, endpoints,
 * parameters): one implementation for every place that names the closest candidates.
 */
#include "core/core.h"

#include <ctype.h>

size_t core_edit_distance(const char *a, size_t la, const char *b, size_t lb, size_t cap)
{
    if (la > CORE_EDIT_MAX || lb > CORE_EDIT_MAX) return cap;
    /* three rows: the one two back serves transpositions */
    size_t rows[3][CORE_EDIT_MAX + 1];
    size_t *back2 = rows[0], *back = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++) back[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        size_t best = i;
        int x = tolower((unsigned char)a[i - 1]);
        for (size_t j = 1; j <= lb; j++) {
            int y = tolower((unsigned char)b[j - 1]);
            size_t v = back[j - 1] + (x != y);
            if (back[j] + 1 < v) v = back[j] + 1;
            if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && x == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == y && back2[j - 2] + 1 < v)
                v = back2[j - 2] + 1;
            cur[j] = v;
            if (v < best) best = v;
        }
        if (best >= cap) return cap; /* every cell only grows from here */
        size_t *t = back2;
        back2 = back;
        back = cur;
        cur = t;
    }
    return back[lb] < cap ? back[lb] : cap;
}
