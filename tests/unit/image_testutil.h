/* Helpers of the search image tests: copying an index file, reading its image, and writing
   a changed image back with its checksum recomputed (a section that lies yet passes it). */
#ifndef APIDEX_IMAGE_TESTUTIL_H
#define APIDEX_IMAGE_TESTUTIL_H

#include "testutil.h"

#include "core/core.h"

#include <sqlite3.h>
#include <xxhash.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void image_tu_copy_file(const char *from, const char *to)
{
    FILE *f = fopen(from, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc(n ? n : 1);
    assert_int_equal(fread(text, 1, n, f), n);
    fclose(f);
    f = fopen(to, "wb");
    assert_int_equal(fwrite(text, 1, n, f), n);
    fclose(f);
    free(text);
}

/* The image of db (its rows concatenated) appended to out; nothing when it has none. */
static inline void image_tu_read(const char *db, core_buf *out)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    if (sqlite3_prepare_v2(h, "SELECT data FROM image ORDER BY id", -1, &st, NULL) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW)
            core_buf_append(out, sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
}

/* Writes img as db's image, its checksum (the header's bytes 32-39: XXH3-64 of the bytes
   after the 48-byte header) recomputed. */
static inline void image_tu_write(const char *db, core_buf *img)
{
    uint64_t sum = XXH3_64bits(img->data + 48, img->len - 48);
    memcpy(img->data + 32, &sum, 8);
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, "DELETE FROM image", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(
        sqlite3_prepare_v2(h, "INSERT INTO image(id, data) VALUES(1, ?)", -1, &st, NULL),
        SQLITE_OK);
    sqlite3_bind_blob64(st, 1, img->data, img->len, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(h);
}

#endif
