/* Arena: a bump allocator over a chain of blocks, freed in one call, with an optional cap. */
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct arena_block {
    struct arena_block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} arena_block;

struct core_arena {
    arena_block *head;
    size_t total, cap;
    core_budget *budget; /* charged for each block, or NULL */
    size_t charged;      /* bytes handed out since budget was set (given back on free) */
};

enum { ARENA_MIN_BLOCK = 64 * 1024, ARENA_MAX_BLOCK = 4 * 1024 * 1024 };

core_arena *core_arena_new(size_t cap_bytes)
{
    core_arena *a = calloc(1, sizeof *a);
    if (a) a->cap = cap_bytes;
    return a;
}

void core_arena_free(core_arena *a)
{
    if (!a) return;
    core_budget_release(a->budget, a->charged);
    arena_block *b = a->head;
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    free(a);
}

void *core_arena_alloc(core_arena *a, size_t size)
{
    if (!a) return NULL;
    size_t need = (size + 15) & ~(size_t)15;
    if (need < size) return NULL; /* overflow */
    if (a->cap && (need > a->cap || a->total > a->cap - need)) return NULL;
    arena_block *b = a->head;
    if (!b || b->size - b->used < need) {
        /* Big requests get a block of their own behind the head, so the head keeps its tail. */
        bool dedicated = need > ARENA_MIN_BLOCK / 4;
        size_t bsize = need;
        if (!dedicated) {
            bsize = ARENA_MIN_BLOCK;
            if (b && b->size >= ARENA_MIN_BLOCK)
                bsize = b->size < ARENA_MAX_BLOCK ? b->size * 2 : b->size;
        }
        arena_block *nb = malloc(sizeof *nb + bsize);
        if (!nb) return NULL;
        nb->size = bsize;
        nb->used = 0;
        if (dedicated && b) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    /* What is handed out is charged, not the block: a document of a few hundred bytes
       (one of thousands a spec's $refs load) touches only that much of its first block. */
    if (!core_budget_charge(a->budget, need)) return NULL;
    if (a->budget) a->charged += need;
    void *p = b->data + b->used;
    b->used += need;
    a->total += need;
    return p;
}

void *core_arena_calloc(core_arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    void *p = core_arena_alloc(a, n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

char *core_arena_strndup(core_arena *a, const char *s, size_t n)
{
    char *p = core_arena_alloc(a, n + 1);
    if (!p) return NULL;
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *core_arena_strdup(core_arena *a, const char *s)
{
    return s ? core_arena_strndup(a, s, strlen(s)) : NULL;
}

char *core_arena_printf(core_arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = n >= 0 ? core_arena_alloc(a, (size_t)n + 1) : NULL;
    if (p) vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void core_arena_set_budget(core_arena *a, core_budget *b)
{
    if (!a) return;
    core_budget_release(a->budget, a->charged);
    a->charged = 0;
    a->budget = b;
    /* what it holds already counts too (when the budget can take it; else later blocks
       are refused) */
    if (b && core_budget_charge(b, a->total)) a->charged = a->total;
}

size_t core_arena_used(const core_arena *a)
{
    return a ? a->total : 0;
}
