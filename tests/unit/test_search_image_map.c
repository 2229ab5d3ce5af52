/* The search image's mapped copy (docs/INDEX.md, "The search image"): every build writes
 * `<index>.image` beside the index, a byte-for-byte copy of the index's own image, and an
 * open maps it and uses it in place with the same answers as the copy read out of the
 * index and as the rows. A copy that is damaged, cut, another build's or missing is not
 * used: the image is read out of the index, the answers are the same, nothing crashes.
 * `add` rewrites it; a build without an image removes it. */
#include "image_testutil.h"
#include "search_testutil.h"

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

/* The answers over db with its copy's bytes set to img: not mapped, the same answers. */
static void refused(const char *db, const char *image, const core_buf *img, const char *want)
{
    write_file(image, img);
    core_buf got;
    core_buf_init(&got, 0);
    assert_false(answers(db, &got));
    assert_string_equal(want, got.data);
    core_buf_free(&got);
}

static void test_image_map(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    search_image_install();
    char *db = build_from(dir, "index.db", 0, 99);
    char *image = tu_path(dir, "index.db.image");
    /* the file beside the index is the index's image, byte for byte */
    core_buf blob, file;
    core_buf_init(&blob, 0);
    core_buf_init(&file, 0);
    image_tu_read(db, &blob);
    assert_true(read_file(image, &file));
    assert_true(blob.len > 1000);
    assert_int_equal(file.len, blob.len);
    assert_memory_equal(file.data, blob.data, blob.len);

    /* mapped and used in place; the same answers as the copy out of the index and the rows */
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

    /* a flipped byte past the header (the checksum fails), a flipped byte in it (the
       header is not the index's), a cut copy, an empty one: the index's image instead */
    core_buf bad;
    core_buf_init(&bad, 0);
    core_buf_append(&bad, file.data, file.len);
    bad.data[file.len / 2] ^= 1;
    refused(db, image, &bad, mapped.data);
    bad.data[file.len / 2] ^= 1;
    bad.data[20] ^= 1; /* the build id */
    refused(db, image, &bad, mapped.data);
    bad.data[20] ^= 1;
    bad.len = file.len - 8;
    refused(db, image, &bad, mapped.data);
    bad.len = 0;
    refused(db, image, &bad, mapped.data);
    /* another build's copy (same specs, another build id) */
    char *sub = tu_path(dir, "other");
    mkdir(sub, 0700);
    char *other = build_from(sub, "index.db", 0, 99);
    char *other_image = tu_path(sub, "index.db.image");
    core_buf theirs;
    core_buf_init(&theirs, 0);
    assert_true(read_file(other_image, &theirs));
    assert_int_equal(theirs.len, file.len);
    refused(db, image, &theirs, mapped.data);
    /* none at all */
    unlink(image);
    core_buf none;
    core_buf_init(&none, 0);
    assert_false(answers(db, &none));
    assert_string_equal(mapped.data, none.data);

    /* add writes the patched image's copy beside the index, and it is used */
    char *small = tu_path(dir, "small.db");
    free(build_from(dir, "small.db", 0, 2));
    free(build_from(dir, "small.db", 2, 99));
    char *small_image = tu_path(dir, "small.db.image");
    core_buf sblob, sfile, sans;
    core_buf_init(&sblob, 0);
    core_buf_init(&sfile, 0);
    core_buf_init(&sans, 0);
    image_tu_read(small, &sblob);
    assert_true(read_file(small_image, &sfile));
    assert_int_equal(sfile.len, sblob.len);
    assert_memory_equal(sfile.data, sblob.data, sblob.len);
    assert_true(answers(small, &sans));
    /* a build that writes no image removes the copy: it would be another build's */
    build_image_set_builder(NULL);
    free(build_from(dir, "small.db", 0, 99));
    struct stat st;
    assert_int_not_equal(stat(small_image, &st), 0);

    core_buf_free(&blob);
    core_buf_free(&file);
    core_buf_free(&mapped);
    core_buf_free(&copied);
    core_buf_free(&rows);
    core_buf_free(&bad);
    core_buf_free(&theirs);
    core_buf_free(&none);
    core_buf_free(&sblob);
    core_buf_free(&sfile);
    core_buf_free(&sans);
    tu_rmtree(dir);
    free(dir);
    free(db);
    free(image);
    free(sub);
    free(other);
    free(other_image);
    free(small);
    free(small_image);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_image_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
