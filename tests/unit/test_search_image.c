/* The search image (docs/INDEX.md, "The search image"): a build writes it, the engine opens
 * from it, and the answers are those of the engine built from the rows, field for field
 * (ids, scores bit for bit, roles, why, links, confidence). A damaged image (one byte
 * flipped), one of another build, and an index without one all open from the rows and
 * answer the same. */
#include "image_testutil.h"
#include "search_testutil.h"

#include "search/search_int.h"

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

/* Writes the n bytes of value over the first record of an array of the section in
   directory slot (of this kind), the array's offset being the u64 at field of the section's
   header: a section that passes the checksum (recomputed) yet lies. */
static void lie_at(const char *db, size_t slot, uint32_t kind, size_t field, const void *value,
                   size_t n)
{
    core_buf img;
    core_buf_init(&img, 0);
    image_payload(db, &img);
    uint32_t got;
    uint64_t off, arr;
    memcpy(&got, img.data + 48 + slot * 24, 4);
    assert_int_equal(got, kind);
    memcpy(&off, img.data + 48 + slot * 24 + 8, 8);
    memcpy(&arr, img.data + off + field * 8, 8);
    memcpy(img.data + arr, value, n);
    image_tu_write(db, &img);
    core_buf_free(&img);
}

/* PROD's first producer record names an operation the index does not have. */
static void lie_in_prod(const char *db)
{
    uint32_t bad = 0xfffffff0u;
    lie_at(db, 2, 3, 4, &bad, sizeof bad); /* SECTION_PROD, its refs */
}

/* LEX's first posting names a chunk past the index's. */
static void lie_in_postings(const char *db)
{
    uint32_t bad = 0xfffffff0u;
    lie_at(db, 0, 1, 8, &bad, sizeof bad); /* SECTION_LEX, its postings */
}

/* LEARN's first owner names a term past the index's. */
static void lie_in_learn(const char *db)
{
    int64_t bad = 1 << 30;
    lie_at(db, 4, 5, 8, &bad, sizeof bad); /* SECTION_LEARN, its owners */
}

/* Opens db's engine and counts: the terms whose postings lex_postings refuses (terms), or
   the operations that have producers, each asked for them (engine_op_producers). */
static size_t engine_count(const char *db, bool terms)
{
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    search_engine *eng = NULL;
    if (store_open(db, true, &idx, &err)) fail_msg("store_open: %s", err.message);
    if (search_engine_open(idx, &eng, &err)) fail_msg("engine: %s", err.message);
    size_t count = 0;
    if (terms) {
        assert_non_null(eng->post_state); /* the image's postings, checked when read */
        for (size_t t = 0; t < eng->n_terms; t++) {
            const posting *p = NULL;
            size_t n = lex_postings(eng, (long)t, &p);
            count += n != eng->terms[t].n_post;
            for (size_t k = 0; k < n; k++) assert_true(p[k].doc < eng->n_docs);
        }
    }
    for (size_t i = 0; !terms && i < eng->n_ops; i++) {
        const producer_ref *p = NULL;
        size_t n = engine_op_producers(eng, i, &p);
        for (size_t k = 0; k < n; k++) assert_true(p[k].producer < eng->n_ops);
        count += n > 0;
    }
    search_engine_close(eng);
    store_close(idx);
    return count;
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

    /* a producer record that lies: the producers are decoded when a query asks for an
       operation's (never at open), so the image is used, and the operation whose record
       lies has none; nothing is read outside the image */
    image_tu_copy_file(db, bad);
    lie_in_prod(bad);
    core_buf lie;
    core_buf_init(&lie, 0);
    size_t w_lie = 0;
    answers(bad, &lie, &w_lie);
    assert_int_equal(w_lie, w_img);
    size_t good_ops = 0, lie_ops = 0;
    assert_true(engine_count(db, false) > 0);
    good_ops = engine_count(db, false);
    lie_ops = engine_count(bad, false);
    assert_int_equal(lie_ops + 1, good_ops);
    core_buf_free(&lie);

    /* a posting that names no chunk: postings are checked when a term is first read, so
       the image is used and that term has none; the searches touch it, nothing crashes */
    image_tu_copy_file(db, bad);
    lie_in_postings(bad);
    core_buf post_lie;
    core_buf_init(&post_lie, 0);
    size_t w_post_lie = 0;
    answers(bad, &post_lie, &w_post_lie);
    assert_int_equal(w_post_lie, w_img);
    assert_true(post_lie.len > 1000);
    assert_int_equal(engine_count(db, true), 0);
    assert_int_equal(engine_count(bad, true), 1);
    core_buf_free(&post_lie);

    /* section LEARN (owners and API names learned at build time): the same answers as
       learning them at open; one that lies is not used (a note) and they are learned */
    core_buf learned;
    core_buf_init(&learned, 0);
    size_t w_learned = 0;
    setenv("APIDEX_IMAGE_LEARN", "0", 1);
    answers(db, &learned, &w_learned);
    unsetenv("APIDEX_IMAGE_LEARN");
    assert_string_equal(with.data, learned.data);
    assert_true(w_img < w_learned);
    image_tu_copy_file(db, bad);
    lie_in_learn(bad);
    core_buf_reset(&learned);
    size_t w_lie_learn = 0;
    answers(bad, &learned, &w_lie_learn);
    assert_string_equal(with.data, learned.data);
    assert_int_equal(w_lie_learn, w_learned);
    core_buf_free(&learned);

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
