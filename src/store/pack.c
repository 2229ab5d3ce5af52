/*
 * Packed text columns: rendered text that only show, details and context read
 * (operation, chunk and schema content) is stored as a zstd frame (a BLOB); short
 * text stays TEXT. Readers call store_unpack_column and never care which it was.
 */
#include "store/store_int.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* Below this a zstd frame saves nothing worth a decompression. */
enum { PACK_MIN_BYTES = 96, PACK_LEVEL = 6, PACK_MAX_BYTES = 256 << 20 };

int store_pack_text(store_pack *pk, const char *s, size_t n)
{
    pk->len = 0;
    if (!s || n < PACK_MIN_BYTES || n > PACK_MAX_BYTES) return 0;
    size_t bound = ZSTD_compressBound(n);
    if (bound > pk->cap) {
        void *p = realloc(pk->data, bound);
        if (!p) return APIDEX_ENOMEM;
        pk->data = p;
        pk->cap = bound;
    }
    if (!pk->cctx && !(pk->cctx = ZSTD_createCCtx())) return APIDEX_ENOMEM;
    size_t got = ZSTD_compressCCtx(pk->cctx, pk->data, bound, s, n, PACK_LEVEL);
    if (ZSTD_isError(got) || got >= n) return 0; /* stored as text */
    pk->len = got;
    return 0;
}

void store_pack_free(store_pack *pk)
{
    if (!pk) return;
    ZSTD_freeCCtx(pk->cctx);
    free(pk->data);
    memset(pk, 0, sizeof *pk);
}

int store_bind_packed(sqlite3_stmt *st, int i, store_pack *pk, const char *s)
{
    if (!s) return sqlite3_bind_null(st, i);
    size_t n = strlen(s);
    if (store_pack_text(pk, s, n)) return SQLITE_NOMEM;
    if (pk->len) return sqlite3_bind_blob(st, i, pk->data, (int)pk->len, SQLITE_TRANSIENT);
    return sqlite3_bind_text(st, i, s, (int)n, SQLITE_STATIC);
}

const char *store_unpack_column(sqlite3_stmt *st, int i, core_arena *arena, size_t *len, bool *fail)
{
    if (len) *len = 0;
    int type = sqlite3_column_type(st, i);
    if (type == SQLITE_NULL) return NULL;
    if (type != SQLITE_BLOB) {
        const unsigned char *s = sqlite3_column_text(st, i);
        if (!s) return NULL;
        size_t n = (size_t)sqlite3_column_bytes(st, i);
        char *p = core_arena_strndup(arena, (const char *)s, n);
        if (!p) *fail = true;
        if (len) *len = n;
        return p;
    }
    const void *blob = sqlite3_column_blob(st, i);
    size_t n = (size_t)sqlite3_column_bytes(st, i);
    unsigned long long size = blob ? ZSTD_getFrameContentSize(blob, n) : 0;
    /* A frame we did not write (no size, or damaged) reads as empty text. */
    if (!blob || size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR ||
        size > PACK_MAX_BYTES)
        return "";
    char *p = core_arena_alloc(arena, (size_t)size + 1);
    if (!p) {
        *fail = true;
        return NULL;
    }
    size_t got = ZSTD_decompress(p, (size_t)size, blob, n);
    if (ZSTD_isError(got) || got != size) got = 0;
    p[got] = '\0';
    if (len) *len = got;
    return p;
}
