/* Diagnostics: a bounded list of warnings and errors with their locations. */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void core_diags_init(core_diags *d, size_t max)
{
    memset(d, 0, sizeof *d);
    d->max = max ? max : 1000;
}

void core_diags_free(core_diags *d)
{
    if (!d) return;
    free(d->items);
    core_arena_free(d->arena);
    memset(d, 0, sizeof *d);
}

static void diags_push(core_diags *d, core_diag_level level, int code, const char *file,
                       unsigned line, unsigned col, const char *pointer, const char *msg)
{
    if (d->n >= d->max) {
        d->dropped++;
        return;
    }
    if (!d->arena && !(d->arena = core_arena_new(0))) {
        d->dropped++;
        return;
    }
    if (core_array_grow(&d->items, &d->cap, d->n, sizeof *d->items, 8)) {
        d->dropped++;
        return;
    }
    core_diag *g = &d->items[d->n];
    g->level = level;
    g->code = code;
    g->message = core_arena_strdup(d->arena, msg ? msg : "");
    g->file = core_arena_strdup(d->arena, file ? file : "");
    g->line = line;
    g->col = col;
    g->pointer = core_arena_strdup(d->arena, pointer ? pointer : "");
    if (!g->message || !g->file || !g->pointer) {
        d->dropped++;
        return;
    }
    d->n++;
}

void core_diags_add(core_diags *d, core_diag_level level, int code, const char *file, unsigned line,
                    unsigned col, const char *pointer, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diags_push(d, level, code, file, line, col, pointer, msg);
}

void core_diags_add_error(core_diags *d, core_diag_level level, const apidex_error *e)
{
    diags_push(d, level, e->code, e->file, e->line, e->col, e->pointer, e->message);
}

size_t core_diags_count(const core_diags *d, core_diag_level level)
{
    size_t c = 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->items[i].level == level) c++;
    return c;
}
