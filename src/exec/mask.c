/*
 * Secrets never shown: every credential value a request carries is replaced by "****" in
 * whatever is printed or logged about it.
 */
#include "exec/exec.h"

#include <string.h>

const char *exec_mask(const exec_request *r, const char *text, core_arena *arena)
{
    if (!text || !r || !r->n_secrets) return text;
    core_buf b;
    core_buf_init(&b, 4 * strlen(text) + 16); /* a cap: "****" may be longer than a secret */
    const char *p = text;
    while (*p) {
        size_t best = 0;
        for (size_t i = 0; i < r->n_secrets; i++) {
            size_t n = r->secrets[i] ? strlen(r->secrets[i]) : 0;
            if (n > best && !strncmp(p, r->secrets[i], n)) best = n;
        }
        if (best) {
            core_buf_append(&b, "****", 4);
            p += best;
        } else {
            core_buf_append(&b, p, 1);
            p++;
        }
    }
    const char *out = b.data ? core_arena_strndup(arena, b.data, b.len) : text;
    core_buf_free(&b);
    return out ? out : text;
}
