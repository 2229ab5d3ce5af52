/* Helpers of the search image tests: copying an index file, reading its image, and writing
   a changed image back with its checksum recomputed (a section that lies yet passes it). */
#ifndef APIDEX_IMAGE_TESTUTIL_H
#define APIDEX_IMAGE_TESTUTIL_H

#include "testutil.h"

#include "core/core.h"

#include <sqlite3.h>
#include <xxhash.h>
#include <stdbool.h>
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

/* The path of the image file db names (meta.image_file, beside db), malloc'd; NULL when
   it names none. */
static inline char *image_tu_path(const char *db)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    char *path = NULL;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    if (sqlite3_prepare_v2(h, "SELECT value FROM meta WHERE key = 'image_file'", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *slash = strrchr(db, '/');
        int dn = slash ? (int)(slash - db) : 1;
        size_t n = (size_t)dn + strlen(name) + 2;
        path = malloc(n);
        snprintf(path, n, "%.*s/%s", dn, slash ? db : ".", name);
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return path;
}

/* Whether db holds table `image` (the image stored in the index file, as before). */
static inline bool image_tu_has_table(const char *db)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    bool has = sqlite3_prepare_v2(h, "SELECT 1 FROM sqlite_master WHERE name = 'image'", -1, &st,
                                  NULL) == SQLITE_OK &&
               sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    sqlite3_close(h);
    return has;
}

/* The image of db (the file it names, or an older index's rows concatenated) appended to
   out; nothing when it has none. */
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
    char *path = image_tu_path(db);
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (f) {
        char part[65536];
        for (size_t n; (n = fread(part, 1, sizeof part, f)) > 0;) core_buf_append(out, part, n);
        fclose(f);
    }
    free(path);
}

/* Writes img, as it is, as db's image: a file of db's own (`<db>.image-tu`, never the file
   a copy shares with the index it was copied from) that db's meta then names. */
static inline void image_tu_put(const char *db, const core_buf *img)
{
    size_t n = strlen(db) + 16;
    char *path = malloc(n);
    snprintf(path, n, "%s.image-tu", db);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(img->data, 1, img->len, f), img->len);
    fclose(f);
    const char *slash = strrchr(path, '/');
    char sql[1024];
    snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO meta(key, value) VALUES('image_file', '%s')",
             slash ? slash + 1 : path);
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    free(path);
}

/* Writes img as db's image (image_tu_put), its checksum (the header's bytes 32-39: XXH3-64
   of the bytes after the 48-byte header) recomputed. */
static inline void image_tu_write(const char *db, core_buf *img)
{
    uint64_t sum = XXH3_64bits(img->data + 48, img->len - 48);
    memcpy(img->data + 32, &sum, 8);
    image_tu_put(db, img);
}

#endif
