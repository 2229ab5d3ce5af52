/* The search image (docs/INDEX.md, "The search image"): a build writes it, the engine opens
 * from it, and the answers are those of the engine built from the rows, field for field
 * (ids, scores bit for bit, roles, why, links, confidence). A damaged image (one byte
 * flipped), one of another build, and an index without one all open from the rows and
 * answer the same. */
#include "image_testutil.h"
#include "search_testutil.h"

static const char *const specs[] = {"tests/data/search/films.yaml",
                                    "tests/data/search/music.yaml",
                                    "tests/data/search/crm.yaml",
                                    "tests/data/search/notify.yaml",
                                    "tests/data/search/parcels.yaml",
                                    "tests/data/search/routing/words_a.yaml",
                                    "tests/data/search/routing/words_b.yaml",
                                    NULL};

static const char *const tasks[] = {
    "find a movie by its title and show its cast",
    "list my playlists and add a track to one",
    "create a contact and attach a note to the deal",
    "send an sms notification to a customer",
    "track a parcel and get its delivery estimate",
    "delete the playlist",
    "search for albums released in 1999",
    "update the customer's e-mail address",
    "subscribe to webhook events for shipments",
    "bitrhday of the actor", /* a typo, corrected against the vocabulary */
    "what is the weather today",
};

static char *build_from(const char *dir, const char *name, size_t first);

static char *build(const char *dir, const char *name)
{
    return build_from(dir, name, 0);
}

/* An index of specs[first..]. */
static char *build_from(const char *dir, const char *name, size_t first)
{
    char *db = tu_path(dir, name);
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    for (size_t i = first; specs[i]; i++) {
        char *p = tu_path(tu_source_dir(), specs[i]);
        assert_int_equal(spec_registry_add(reg, p, &err), 0);
        free(p);
    }
    if (build_index(db, reg, NULL, NULL, &err)) fail_msg("build_index: %s", err.message);
    spec_registry_free(reg);
    return db;
}

/* Every answer of the engine over db, one line per hit, into out. */
static void answers(const char *db, core_buf *out, size_t *work)
{
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    search_engine *eng = NULL;
    if (store_open(db, true, &idx, &err)) fail_msg("store_open: %s", err.message);
    if (search_engine_open(idx, &eng, &err)) fail_msg("engine: %s", err.message);
    *work = search_engine_open_work(eng);
    search_tu_answers(eng, tasks, sizeof tasks / sizeof *tasks, out);
    search_engine_close(eng);
    store_close(idx);
}

/* Flips the low bit of the byte at off of db's image (a file of db's own, image_tu_put). */
static void flip_byte(const char *db, int off)
{
    core_buf img;
    core_buf_init(&img, 0);
    image_tu_read(db, &img);
    assert_true(img.len > (size_t)off);
    img.data[off] ^= 1;
    image_tu_put(db, &img);
    core_buf_free(&img);
}

static void image_payload(const char *db, core_buf *out);

/* A PROD section that passes the checksum yet names an operation the index does not have
   (its first producer record's operation set out of range, the checksum recomputed). */
static void lie_in_prod(const char *db)
{
    core_buf img;
    core_buf_init(&img, 0);
    image_payload(db, &img);
    uint32_t kind;
    uint64_t off, refs, n_refs;
    memcpy(&kind, img.data + 48 + 48, 4);
    assert_int_equal(kind, 3); /* SECTION_PROD */
    memcpy(&off, img.data + 48 + 48 + 8, 8);
    memcpy(&n_refs, img.data + off + 8, 8);
    memcpy(&refs, img.data + off + 32, 8);
    assert_true(n_refs > 0);
    uint32_t bad = 0xfffffff0u;
    memcpy(img.data + refs, &bad, 4);
    image_tu_write(db, &img);
    core_buf_free(&img);
}

static void test_image_same_answers(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    search_image_install();
    char *db = build(dir, "index.db");
    build_image_set_builder(NULL);
    char *plain = build(dir, "plain.db"); /* no builder: no image */

    core_buf with, rows, none;
    core_buf_init(&with, 0);
    core_buf_init(&rows, 0);
    core_buf_init(&none, 0);
    size_t w_img = 0, w_rows = 0, w_none = 0;
    answers(db, &with, &w_img);
    setenv("APIDEX_SEARCH_IMAGE", "0", 1);
    answers(db, &rows, &w_rows);
    unsetenv("APIDEX_SEARCH_IMAGE");
    answers(plain, &none, &w_none);
    assert_true(with.len > 1000);
    assert_string_equal(with.data, rows.data);
    /* the other build has its own ids only where they do not show: the same answers */
    assert_string_equal(with.data, none.data);
    /* the image was used: opening read no chunk terms */
    print_message("open work: image %zu, rows %zu, no image %zu\n", w_img, w_rows, w_none);
    assert_true(w_img < w_rows);
    assert_int_equal(w_rows, w_none);

    /* a flipped byte in the image: the checksum fails, the rows are read, same answers */
    char *bad = tu_path(dir, "bad.db");
    image_tu_copy_file(db, bad);
    flip_byte(bad, 200);
    core_buf flipped;
    core_buf_init(&flipped, 0);
    size_t w_bad = 0;
    answers(bad, &flipped, &w_bad);
    assert_string_equal(with.data, flipped.data);
    assert_int_equal(w_bad, w_rows);

    /* the image of another build (a file's rows with a copied image): not used */
    char *other = tu_path(dir, "other.db");
    image_tu_copy_file(plain, other);
    core_buf theirs;
    core_buf_init(&theirs, 0);
    image_tu_read(db, &theirs);
    image_tu_put(other, &theirs);
    core_buf_free(&theirs);
    core_buf stale;
    core_buf_init(&stale, 0);
    size_t w_stale = 0;
    answers(other, &stale, &w_stale);
    assert_string_equal(with.data, stale.data);
    assert_int_equal(w_stale, w_rows);

    /* a truncated image (its length no longer matches the header) */
    image_tu_copy_file(db, bad);
    core_buf short_img;
    core_buf_init(&short_img, 0);
    image_tu_read(bad, &short_img);
    short_img.len -= 8;
    image_tu_put(bad, &short_img);
    core_buf_free(&short_img);
    core_buf cut;
    core_buf_init(&cut, 0);
    size_t w_cut = 0;
    answers(bad, &cut, &w_cut);
    assert_string_equal(with.data, cut.data);
    assert_int_equal(w_cut, w_rows);

    /* a producers section that lies: the image is not used (a note), the same answers */
    image_tu_copy_file(db, bad);
    lie_in_prod(bad);
    core_buf lie;
    core_buf_init(&lie, 0);
    size_t w_lie = 0;
    answers(bad, &lie, &w_lie);
    assert_string_equal(with.data, lie.data);
    assert_int_equal(w_lie, w_rows);
    core_buf_free(&lie);

    core_buf_free(&with);
    core_buf_free(&rows);
    core_buf_free(&none);
    core_buf_free(&flipped);
    core_buf_free(&stale);
    core_buf_free(&cut);
    tu_rmtree(dir);
    free(dir);
    free(db);
    free(plain);
    free(bad);
    free(other);
}

/* 1 when db names an image file that exists (and holds no image table of its own), else 0. */
static int image_rows(const char *db)
{
    assert_false(image_tu_has_table(db));
    char *path = image_tu_path(db);
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (f) fclose(f);
    free(path);
    return f != NULL;
}

/* Removes API nth (by id) of db (an `apidex remove`: a patched copy of the file). */
static void remove_nth(const char *db, size_t nth)
{
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    const store_api *apis = NULL;
    size_t n = 0;
    if (store_open(db, true, &idx, &err)) fail_msg("store_open: %s", err.message);
    assert_int_equal(store_apis(idx, &apis, &n, &err), 0);
    assert_true(n > nth + 1);
    char *id = strdup(apis[nth].id);
    store_close(idx);
    const char *drop[] = {id};
    build_options o = {.keep_unlisted = true, .inherit = true, .drop_apis = drop, .n_drop_apis = 1};
    if (build_index(db, NULL, &o, NULL, &err)) fail_msg("remove: %s", err.message);
    free(id);
}

static void remove_first(const char *db)
{
    remove_nth(db, 0);
}

/* Adds a spec to db (an `apidex add`). */
static void add_spec(const char *db, const char *spec)
{
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    char *p = tu_path(tu_source_dir(), spec);
    assert_int_equal(spec_registry_add(reg, p, &err), 0);
    free(p);
    build_options o = {.keep_unlisted = true, .inherit = true};
    if (build_index(db, reg, &o, NULL, &err)) fail_msg("add: %s", err.message);
    spec_registry_free(reg);
}

/* The image of db past its header (which holds the build id and the checksum). */
static void image_payload(const char *db, core_buf *out)
{
    image_tu_read(db, out);
    assert_true(out->len > 48);
}

/* The images x (patched) and y (from the rows) hold the same LEX, APIS and PROD sections,
   byte for byte: the header's 48 bytes (the number of sections at 40), then a directory of
   24-byte entries (LEX, APIS, PROD, then OPS, which only y has: a patched image's
   operations and chunks are read from the rows), then the sections in that order, PROD
   included (the producers per operation, their order and shares). */
static void same_sections(const core_buf *x, const core_buf *y)
{
    uint32_t n_sections, prod_kind;
    memcpy(&n_sections, x->data + 40, 4);
    size_t start = 48 + (size_t)n_sections * 24;
    memcpy(&prod_kind, x->data + 48 + 2 * 24, 4);
    assert_int_equal(prod_kind, 3); /* SECTION_PROD */
    uint64_t prod_off = 0, prod_len = 0, n_refs = 0;
    memcpy(&prod_off, x->data + 48 + 2 * 24 + 8, 8);
    memcpy(&prod_len, x->data + 48 + 2 * 24 + 16, 8);
    size_t end = (size_t)(prod_off + prod_len);
    assert_true(end <= x->len && end <= y->len && prod_off + 16 <= end && prod_off >= start);
    memcpy(&n_refs, x->data + prod_off + 8, 8);
    assert_true(n_refs > 0); /* producers to move and to compute, not an empty section */
    assert_memory_equal(x->data + 48, y->data + 48, 3 * 24); /* LEX, APIS and PROD entries */
    assert_memory_equal(x->data + start, y->data + start, end - start);
}

/* The same add or remove on a (the old image patched) and b (the image from the rows,
   APIDEX_IMAGE_PATCH=0): the images are the same bytes past the header (terms, their
   numbers, postings, table, order, field lengths, the APIs' chunks, every operation's
   producers), and a answers with
   its image as from its rows. */
static void same_image(const char *a, const char *b, void (*op)(const char *, const void *),
                       const void *arg)
{
    size_t patched = search_image_patched();
    op(a, arg);
    assert_int_equal(search_image_patched(), patched + 1);
    setenv("APIDEX_IMAGE_PATCH", "0", 1);
    op(b, arg);
    unsetenv("APIDEX_IMAGE_PATCH");
    assert_int_equal(search_image_patched(), patched + 1);
    core_buf x, y;
    core_buf_init(&x, 0);
    core_buf_init(&y, 0);
    image_payload(a, &x);
    image_payload(b, &y);
    same_sections(&x, &y);
    core_buf_free(&x);
    core_buf_free(&y);
    core_buf with, rows;
    core_buf_init(&with, 0);
    core_buf_init(&rows, 0);
    size_t w_img = 0, w_rows = 0;
    answers(a, &with, &w_img);
    setenv("APIDEX_SEARCH_IMAGE", "0", 1);
    answers(a, &rows, &w_rows);
    unsetenv("APIDEX_SEARCH_IMAGE");
    assert_true(w_img < w_rows);
    assert_string_equal(with.data, rows.data);
    core_buf_free(&with);
    core_buf_free(&rows);
}

static void op_add(const char *db, const void *spec)
{
    add_spec(db, spec);
}

static void op_remove(const char *db, const void *nth)
{
    remove_nth(db, *(const size_t *)nth);
}

/* add and remove patch the old image instead of rebuilding it from every row, and the
   patched image is the one the rows give: a new API (its terms after the others'), then
   APIs removed at the start and in the middle (terms first seen in their chunks move to
   their next chunk, read again). */
static void test_image_patch(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    search_image_install();
    char *a = build_from(dir, "a.db", 1), *b = tu_path(dir, "b.db");
    image_tu_copy_file(a, b);
    same_image(a, b, op_add, specs[0]);
    static const size_t first = 0, middle = 2;
    same_image(a, b, op_remove, &middle);
    same_image(a, b, op_remove, &first);
    same_image(a, b, op_add, specs[1]); /* already there: unchanged, nothing read */
    /* an old PROD that passes the checksum yet names an operation outside its API is not
       patched: the producers come from the rows, the same bytes */
    lie_in_prod(a);
    size_t before = search_image_patched();
    add_spec(a, specs[1]);
    assert_int_equal(search_image_patched(), before);
    add_spec(b, specs[1]);
    core_buf x0, y0;
    core_buf_init(&x0, 0);
    core_buf_init(&y0, 0);
    image_payload(a, &x0);
    image_payload(b, &y0);
    same_sections(&x0, &y0);
    core_buf_free(&x0);
    core_buf_free(&y0);
    /* an image of another format version is not patched: built from the rows */
    core_buf v1;
    core_buf_init(&v1, 0);
    image_tu_read(a, &v1);
    memcpy(v1.data + 8, "\x01\x00\x00\x00", 4);
    image_tu_put(a, &v1);
    core_buf_free(&v1);
    size_t patched = search_image_patched();
    remove_first(a);
    assert_int_equal(search_image_patched(), patched);
    remove_first(b);
    core_buf x, y;
    core_buf_init(&x, 0);
    core_buf_init(&y, 0);
    image_payload(a, &x);
    image_payload(b, &y);
    same_sections(&x, &y);
    core_buf_free(&x);
    core_buf_free(&y);
    tu_rmtree(dir);
    free(dir);
    free(a);
    free(b);
}

/* `add` and `remove` write the image of the new file (never the old one's); a program
   without the search stage drops the copied image instead of leaving a stale one. */
static void test_image_after_remove(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    search_image_install();
    char *db = build(dir, "index.db");
    remove_first(db);
    build_image_set_builder(NULL);
    assert_int_equal(image_rows(db), 1);
    core_buf with, rows;
    core_buf_init(&with, 0);
    core_buf_init(&rows, 0);
    size_t w_img = 0, w_rows = 0;
    answers(db, &with, &w_img);
    setenv("APIDEX_SEARCH_IMAGE", "0", 1);
    answers(db, &rows, &w_rows);
    unsetenv("APIDEX_SEARCH_IMAGE");
    assert_true(w_img < w_rows); /* the new image is used: its build id is the new file's */
    assert_string_equal(with.data, rows.data);
    remove_first(db); /* no builder now */
    assert_int_equal(image_rows(db), 0);
    core_buf_free(&with);
    core_buf_free(&rows);
    tu_rmtree(dir);
    free(dir);
    free(db);
}

static size_t builder_cap;

static int cap_probe(store_index *idx, uint64_t build_id, core_buf *out, apidex_error *err)
{
    (void)idx;
    (void)build_id;
    (void)err;
    builder_cap = out->max;
    return 0;
}

/* The image's buffer may grow past core_buf's default cap of 1 GiB (the synthetic 10x
   registry's image is about 1.5 GB and failed to build): the builder gets a buffer whose
   cap is larger, checked without allocating it. */
static void test_image_cap(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    build_image_set_builder(cap_probe);
    char *db = build(dir, "index.db");
    search_image_install();
    assert_true(builder_cap > ((size_t)1 << 30));
    tu_rmtree(dir);
    free(dir);
    free(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_image_same_answers),
        cmocka_unit_test(test_image_after_remove),
        cmocka_unit_test(test_image_patch),
        cmocka_unit_test(test_image_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
