/* Section OPS of the search image (docs/INDEX.md, "The search image"): an open from a valid
 * image reads no operation, chunk or edge row and answers as the rows do, hit summaries and
 * plans included (the summaries are read by rowid when shown); a section that lies (the
 * checksum recomputed) is refused and the rows are read; after `add` the patched image has
 * no OPS section and the open reads the rows. */
#include "image_testutil.h"
#include "search_testutil.h"

static const char *const specs[] = {"tests/data/search/films.yaml", "tests/data/search/music.yaml",
                                    "tests/data/search/crm.yaml", "tests/data/search/notify.yaml",
                                    NULL};

static const char *const tasks[] = {
    "find a movie by its title and show its cast",
    "list my playlists and add a track to one",
    "create a contact and attach a note to the deal",
    "send an sms notification to a customer",
    "delete the playlist",
    "what is the weather today",
};

/* An index of specs[first..] written with the search image. */
static char *build_from(const char *dir, const char *name, size_t first, size_t last)
{
    return search_tu_build_from(dir, name, specs, first, last);
}

/* Every answer over db, one line per hit (summary and plan included), into out; *loaded:
   which tables the store loaded (store_loaded) after the open and every search. */
static void answers(const char *db, core_buf *out, unsigned *loaded)
{
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    search_engine *eng = NULL;
    if (store_open(db, true, &idx, &err)) fail_msg("store_open: %s", err.message);
    if (search_engine_open(idx, &eng, &err)) fail_msg("engine: %s", err.message);
    search_tu_answers(eng, tasks, sizeof tasks / sizeof *tasks, out);
    *loaded = store_loaded(idx);
    search_engine_close(eng);
    store_close(idx);
}

/* The offset of the section of this kind in img (header: 48 bytes, the section count at 40,
   then 24-byte entries: kind, reserved, offset, length), or 0. */
static uint64_t section_at(const core_buf *img, uint32_t kind)
{
    uint32_t n;
    memcpy(&n, img->data + 40, 4);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k;
        uint64_t off;
        memcpy(&k, img->data + 48 + 24 * i, 4);
        memcpy(&off, img->data + 48 + 24 * i + 8, 8);
        if (k == kind) return off;
    }
    return 0;
}

/* The answers over db from its image into with, from its rows into rows (equal), and the
   tables each open loaded. */
static void both_ways(const char *db, core_buf *with, core_buf *rows, unsigned *l_img,
                      unsigned *l_rows)
{
    answers(db, with, l_img);
    setenv("APIDEX_SEARCH_IMAGE", "0", 1);
    answers(db, rows, l_rows);
    unsetenv("APIDEX_SEARCH_IMAGE");
    assert_string_equal(with->data, rows->data);
}

enum { ROWS = STORE_LOADED_OPERATIONS | STORE_LOADED_CHUNKS | STORE_LOADED_EDGES };
static void test_ops_from_image(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    search_image_install();
    char *db = build_from(dir, "index.db", 0, 99);
    core_buf with, rows;
    core_buf_init(&with, 0);
    core_buf_init(&rows, 0);
    unsigned l_img = 0, l_rows = 0;
    both_ways(db, &with, &rows, &l_img, &l_rows);
    assert_true(with.len > 1000 && strstr(with.data, "plan "));
    /* from the image: no operation, chunk or edge row read, searches included */
    assert_int_equal(l_img, 0);
    assert_int_equal(l_rows & (STORE_LOADED_OPERATIONS | STORE_LOADED_CHUNKS),
                     STORE_LOADED_OPERATIONS | STORE_LOADED_CHUNKS);
    /* the section switched off alone: the rows, the same answers */
    setenv("APIDEX_IMAGE_OPS", "0", 1);
    core_buf off;
    core_buf_init(&off, 0);
    unsigned l_off = 0;
    answers(db, &off, &l_off);
    unsetenv("APIDEX_IMAGE_OPS");
    assert_string_equal(with.data, off.data);
    assert_true(l_off & STORE_LOADED_OPERATIONS);
    assert_false(l_off & STORE_LOADED_EDGES); /* the producers still come from the image */

    /* sections that lie, the checksum recomputed: refused one by one, never a crash */
    core_buf img;
    core_buf_init(&img, 0);
    image_tu_read(db, &img);
    uint64_t ops = section_at(&img, 4); /* SECTION_OPS */
    assert_true(ops > 0);
    uint64_t recs, n_ops, docs, ends, n_ends;
    memcpy(&n_ops, img.data + ops, 8);
    memcpy(&n_ends, img.data + ops + 32, 8);
    memcpy(&recs, img.data + ops + 48, 8);
    memcpy(&docs, img.data + ops + 72, 8);
    memcpy(&ends, img.data + ops + 80, 8);
    assert_true(n_ops > 10 && n_ends > 0);
    struct {
        uint64_t at;
        uint32_t value;
    } lies[] = {
        {recs + 12, 0xfffffff0u},                  /* the first operation's path: past the pool */
        {recs + 72 * 3 + 24, 0x7fffffffu},         /* the fourth's API index */
        {recs + 72 * 5 + 44, 0x7fffffffu},         /* the sixth's inputs: more than there are */
        {ends, (uint32_t)n_ops},                   /* an endpoint that names no operation */
        {docs + 16 * 2 + 8, (uint32_t)n_ends + 1}, /* a chunk's endpoints past the array */
        {ops, 3},                                  /* another number of operations */
    };
    char *bad = tu_path(dir, "bad.db");
    for (size_t k = 0; k < sizeof lies / sizeof *lies; k++) {
        image_tu_copy_file(db, bad);
        core_buf lie;
        core_buf_init(&lie, 0);
        core_buf_append(&lie, img.data, img.len);
        memcpy(lie.data + lies[k].at, &lies[k].value, 4);
        image_tu_write(bad, &lie);
        core_buf got;
        core_buf_init(&got, 0);
        unsigned l_bad = 0;
        answers(bad, &got, &l_bad);
        assert_string_equal(with.data, got.data);
        assert_true(l_bad & STORE_LOADED_OPERATIONS); /* the rows were read */
        core_buf_free(&lie);
        core_buf_free(&got);
    }
    /* cut short inside the section (the header's length follows, the checksum recomputed) */
    image_tu_copy_file(db, bad);
    core_buf cut;
    core_buf_init(&cut, 0);
    core_buf_append(&cut, img.data, (size_t)(ops + 64));
    uint64_t len = cut.len;
    memcpy(cut.data + 24, &len, 8);
    image_tu_write(bad, &cut);
    core_buf got;
    core_buf_init(&got, 0);
    unsigned l_cut = 0;
    answers(bad, &got, &l_cut);
    assert_string_equal(with.data, got.data);
    /* the operations from the rows, the sections before it still used (no edge row read) */
    assert_int_equal(l_cut & ROWS, STORE_LOADED_OPERATIONS | STORE_LOADED_CHUNKS);

    core_buf_free(&got);
    core_buf_free(&cut);
    core_buf_free(&img);
    core_buf_free(&with);
    core_buf_free(&rows);
    core_buf_free(&off);
    build_image_set_builder(NULL);
    tu_rmtree(dir);
    free(dir);
    free(db);
    free(bad);
}

/* `add` patches the image without section OPS: the open reads the operations and chunks
   from the rows, and answers as the rows do; the next full build writes it again. */
static void test_ops_after_add(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    search_image_install();
    char *db = build_from(dir, "index.db", 0, 2);
    free(build_from(dir, "index.db", 2, 99)); /* add the others */
    core_buf img;
    core_buf_init(&img, 0);
    image_tu_read(db, &img);
    assert_true(img.len > 48);
    assert_int_equal(section_at(&img, 4), 0);
    core_buf with, rows;
    core_buf_init(&with, 0);
    core_buf_init(&rows, 0);
    unsigned l_img = 0, l_rows = 0;
    both_ways(db, &with, &rows, &l_img, &l_rows);
    assert_true(l_img & STORE_LOADED_OPERATIONS);
    core_buf_free(&img);
    core_buf_free(&with);
    core_buf_free(&rows);
    build_image_set_builder(NULL);
    tu_rmtree(dir);
    free(dir);
    free(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_from_image),
        cmocka_unit_test(test_ops_after_add),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
