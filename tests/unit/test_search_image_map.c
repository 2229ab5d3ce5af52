/* The search image's file (docs/INDEX.md, "The search image"): the image is stored once,
 * in a file beside the index named per build (`<index>.image-<build id>`) that the index's
 * meta names, never also in the index file. An open maps it and uses it in place with the
 * same answers as the image read into memory and as the rows. A file that is damaged, cut,
 * another build's or missing is not used: the engine is built from the rows, the answers
 * are the same, nothing crashes. `add` writes a new generation and removes the old one; a
 * build without an image names none and leaves none; a killed writer's file is removed by
 * the next build; an older index's image (its BLOB rows) is still read. */
#include "image_testutil.h"
#include "search_testutil.h"

#include <dirent.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const specs[] = {"tests/data/search/films.yaml", "tests/data/search/music.yaml",
                                    "tests/data/search/crm.yaml", "tests/data/search/notify.yaml",
                                    NULL};

static const char *const tasks[] = {
    "find a movie by its title and show its cast",
    "list my playlists and add a track to one",
    "create a contact and attach a note to the deal",
    "send an sms notification to a customer",
};

/* An index of specs[first..last) at dir/name (first > 0: added to the index there). */
static char *build_from(const char *dir, const char *name, size_t first, size_t last)
{
    return search_tu_build_from(dir, name, specs, first, last);
}

/* Every answer over db into out; returns whether the engine used the mapped image. */
static bool answers(const char *db, core_buf *out)
{
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    search_engine *eng = NULL;
    if (store_open(db, true, &idx, &err)) fail_msg("store_open: %s", err.message);
    if (search_engine_open(idx, &eng, &err)) fail_msg("engine: %s", err.message);
    search_tu_answers(eng, tasks, sizeof tasks / sizeof *tasks, out);
    bool mapped = search_engine_image_mapped(eng);
    search_engine_close(eng);
    store_close(idx);
    return mapped;
}

/* The bytes of the file at path (appended to out); false when there is none. */
static bool read_file(const char *path, core_buf *out)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char part[65536];
    for (size_t n; (n = fread(part, 1, sizeof part, f)) > 0;) core_buf_append(out, part, n);
    fclose(f);
    return true;
}

static void write_file(const char *path, const core_buf *b)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b->data, 1, b->len, f), b->len);
    fclose(f);
}

/* The image files beside db in dir (`<base>.image*`), counted. */
static int image_files(const char *dir, const char *base)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    size_t b = strlen(base);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += !strncmp(e->d_name, base, b) && !strncmp(e->d_name + b, ".image", 6);
    closedir(d);
    return n;
}

/* db's meta.build_id. */
static void build_id_of(const char *db, char out[17])
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    assert_int_equal(
        sqlite3_prepare_v2(h, "SELECT value FROM meta WHERE key = 'build_id'", -1, &st, NULL),
        SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(out, 17, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
}

/* db's image is stored once: no table in the index, one file beside it, named after the
   build; the path of that file. */
static char *stored_once(const char *dir, const char *db, const char *base)
{
    assert_false(image_tu_has_table(db));
    assert_int_equal(image_files(dir, base), 1);
    char *path = image_tu_path(db);
    assert_non_null(path);
    char id[17], want[256];
    build_id_of(db, id);
    snprintf(want, sizeof want, "%s/%s.image-%s", dir, base, id);
    assert_string_equal(path, want);
    return path;
}

/* The answers over a copy of db (bad, beside it) whose image is img: not mapped, the same
   answers. */
static void refused(const char *db, const char *bad, const core_buf *img, const char *want)
{
    image_tu_copy_file(db, bad);
    image_tu_put(bad, img);
    core_buf got;
    core_buf_init(&got, 0);
    assert_false(answers(bad, &got));
    assert_string_equal(want, got.data);
    core_buf_free(&got);
}

static void test_image_map(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    search_image_install();
    char *db = build_from(dir, "index.db", 0, 99);
    char *image = stored_once(dir, db, "index.db");
    core_buf file;
    core_buf_init(&file, 0);
    assert_true(read_file(image, &file));
    assert_true(file.len > 1000);

    /* mapped and used in place; the same answers as the image read into memory and the rows */
    core_buf mapped, copied, rows;
    core_buf_init(&mapped, 0);
    core_buf_init(&copied, 0);
    core_buf_init(&rows, 0);
    assert_true(answers(db, &mapped));
    setenv("APIDEX_IMAGE_MAP", "0", 1);
    assert_false(answers(db, &copied));
    unsetenv("APIDEX_IMAGE_MAP");
    setenv("APIDEX_SEARCH_IMAGE", "0", 1);
    assert_false(answers(db, &rows));
    unsetenv("APIDEX_SEARCH_IMAGE");
    assert_true(mapped.len > 500);
    assert_string_equal(mapped.data, copied.data);
    assert_string_equal(mapped.data, rows.data);

    /* a flipped byte past the header (the checksum fails), a flipped byte in it (the build
       id is not the index's), a cut file, an empty one: the rows instead, the same answers */
    char *bad = tu_path(dir, "bad.db");
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_append(&b, file.data, file.len);
    b.data[file.len / 2] ^= 1;
    refused(db, bad, &b, mapped.data);
    b.data[file.len / 2] ^= 1;
    b.data[20] ^= 1; /* the build id */
    refused(db, bad, &b, mapped.data);
    b.data[20] ^= 1;
    b.len = file.len - 8;
    refused(db, bad, &b, mapped.data);
    b.len = 0;
    refused(db, bad, &b, mapped.data);
    /* another build's image (same specs, another build id) */
    char *sub = tu_path(dir, "other");
    mkdir(sub, 0700);
    char *other = build_from(sub, "index.db", 0, 99);
    core_buf theirs;
    core_buf_init(&theirs, 0);
    image_tu_read(other, &theirs);
    assert_int_equal(theirs.len, file.len);
    refused(db, bad, &theirs, mapped.data);
    /* none at all (an index copied without its image) */
    unlink(image);
    core_buf none;
    core_buf_init(&none, 0);
    assert_false(answers(db, &none));
    assert_string_equal(mapped.data, none.data);

    /* add writes the patched image as a new generation, removes the old one, and it is used */
    char *small = tu_path(dir, "small.db");
    free(build_from(dir, "small.db", 0, 2));
    char *first = stored_once(dir, small, "small.db");
    /* a writer killed after writing its image and before its rename leaves a generation no
       index names: the index keeps its own, and the next build removes the stray one */
    char *stray = tu_path(dir, "small.db.image-0123456789abcdef");
    core_buf junk;
    core_buf_init(&junk, 0);
    core_buf_append(&junk, "junk", 4);
    write_file(stray, &junk);
    free(build_from(dir, "small.db", 2, 99));
    char *second = stored_once(dir, small, "small.db");
    assert_string_not_equal(first, second);
    core_buf sans;
    core_buf_init(&sans, 0);
    assert_true(answers(small, &sans));
    assert_string_equal(mapped.data, sans.data);

    /* an index written before the image had a file of its own: its BLOB rows are read (not
       mapped), the same answers; the next build drops them and the old `<index>.image` copy */
    char *legacy = tu_path(dir, "legacy.db"), *legacy_copy = tu_path(dir, "legacy.db.image");
    image_tu_copy_file(small, legacy);
    core_buf limg;
    core_buf_init(&limg, 0);
    image_tu_read(small, &limg);
    write_file(legacy_copy, &limg);
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open(legacy, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h,
                                  "DELETE FROM meta WHERE key = 'image_file'; CREATE TABLE "
                                  "image(id INTEGER PRIMARY KEY, data BLOB NOT NULL)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(h, "INSERT INTO image VALUES(1, ?)", -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_blob(st, 1, limg.data, (int)limg.len, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(h);
    core_buf lans;
    core_buf_init(&lans, 0);
    assert_false(answers(legacy, &lans));
    assert_string_equal(mapped.data, lans.data);
    free(build_from(dir, "legacy.db", 0, 99));
    free(stored_once(dir, legacy, "legacy.db"));

    /* a build that writes no image names none and leaves none */
    build_image_set_builder(NULL);
    free(build_from(dir, "small.db", 0, 99));
    assert_int_equal(image_files(dir, "small.db"), 0);
    char *named = image_tu_path(small);
    assert_null(named);

    core_buf_free(&file);
    core_buf_free(&mapped);
    core_buf_free(&copied);
    core_buf_free(&rows);
    core_buf_free(&b);
    core_buf_free(&theirs);
    core_buf_free(&none);
    core_buf_free(&junk);
    core_buf_free(&sans);
    core_buf_free(&limg);
    core_buf_free(&lans);
    tu_rmtree(dir);
    free(dir);
    free(db);
    free(image);
    free(bad);
    free(sub);
    free(other);
    free(small);
    free(first);
    free(second);
    free(stray);
    free(legacy);
    free(legacy_copy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_image_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
