/* BERT WordPiece: greedy matching, normalisation, truncation, loading, the bge vocabulary. */
#include "testutil.h"

#include "text/text.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A tiny vocabulary: ids are line numbers. */
static const char tiny_vocab[] = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n" /* 0-4 */
                                 "un\n##aff\n##able\na\n##a\n"          /* 5-9 */
                                 "##b\n,\n.\nhello\nworld\n"            /* 10-14 */
                                 "中\n文\n##x\n";                       /* 15-17 */

typedef struct fixture {
    char *dir;
    text_wordpiece *tiny;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = tu_tempdir();
    char *path = tu_write(f->dir, "vocab.txt", tiny_vocab);
    apidex_error err = {0};
    int rc = text_wordpiece_open(path, &f->tiny, &err);
    free(path);
    *state = f;
    return rc;
}

static int teardown(void **state)
{
    fixture *f = *state;
    text_wordpiece_close(f->tiny);
    tu_rmtree(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

/* Encodes and compares with the expected ids (terminated by -1). */
static void expect(const text_wordpiece *wp, const char *s, size_t n, bool special, size_t max_len,
                   bool want_trunc, const int *want)
{
    uint32_t *ids;
    size_t n_ids;
    bool trunc;
    assert_int_equal(text_wordpiece_encode(wp, s, n, special, max_len, &ids, &n_ids, &trunc), 0);
    size_t k = 0;
    while (want[k] >= 0) k++;
    if (n_ids != k) {
        for (size_t i = 0; i < n_ids; i++) print_message(" %u", ids[i]);
        print_message("\n");
    }
    assert_int_equal(n_ids, k);
    for (size_t i = 0; i < k; i++) assert_int_equal(ids[i], (uint32_t)want[i]);
    assert_int_equal(trunc, want_trunc);
    free(ids);
}

#define EXPECT(wp, s, special, max, trunc, ...)                                                    \
    expect(wp, s, strlen(s), special, max, trunc, (const int[]){__VA_ARGS__, -1})

static void test_greedy_longest_match(void **state)
{
    fixture *f = *state;
    EXPECT(f->tiny, "unaffable", false, 0, false, 5, 6, 7);
    EXPECT(f->tiny, "unaffable", true, 0, false, 2, 5, 6, 7, 3);
    /* Any unmatchable rest makes the whole word [UNK]. */
    EXPECT(f->tiny, "unaffablez hello", false, 0, false, 1, 13);
    EXPECT(f->tiny, "abab", false, 0, false, 8, 10, 9, 10);
    EXPECT(f->tiny, "ax", false, 0, false, 8, 17);
}

static void test_normalisation(void **state)
{
    fixture *f = *state;
    EXPECT(f->tiny, "HELLO, World.", false, 0, false, 13, 11, 14, 12);
    EXPECT(f->tiny, "h\xc3\xa9llo w\xc3\xb6rld", false, 0, false, 13, 14); /* accents */
    EXPECT(f->tiny, "he\x01l\x7flo", false, 0, false, 13);                 /* controls */
    EXPECT(f->tiny, "hel\xe2\x80\x8blo", false, 0, false, 13);             /* ZWSP (Cf) */
    EXPECT(f->tiny, "hello\xc2\xa0\t\r\n\xe3\x80\x80world", false, 0, false, 13, 14);
    EXPECT(f->tiny, "中文hello", false, 0, false, 15, 16, 13);             /* CJK as words */
    EXPECT(f->tiny, "hel\xfflo", false, 0, false, 13);                     /* bad UTF-8 */
    expect(f->tiny, "hel\0lo", 6, false, 0, false, (const int[]){13, -1}); /* NUL */
    EXPECT(f->tiny, "", true, 0, false, 2, 3);
    EXPECT(f->tiny, " \t\n", false, 0, false, -1);
    /* Literal special tokens in the text map to their ids; lower-case ones do not. */
    EXPECT(f->tiny, "hello[SEP]world [MASK]", false, 0, false, 13, 3, 14, 4);
}

static void test_long_words(void **state)
{
    fixture *f = *state;
    char word[128];
    int want[128];
    memset(word, 'a', 100);
    word[100] = '\0';
    want[0] = 8;
    for (int i = 1; i < 100; i++) want[i] = 9;
    want[100] = -1;
    expect(f->tiny, word, 100, false, 0, false, want); /* 100 characters: still split */
    memcpy(word,
           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
           "aaaaaaaaaaaaaaaaa",
           101);
    word[101] = '\0';
    EXPECT(f->tiny, word, false, 0, false, 1); /* 101: [UNK] */
    /* Characters, not bytes, count: 100 accented letters are 200 bytes but still split. */
    char acc[256] = {0};
    for (int i = 0; i < 100; i++) memcpy(acc + 2 * i, "\xc3\xa1", 2);
    expect(f->tiny, acc, 200, false, 0, false, want);
}

static void test_truncation(void **state)
{
    fixture *f = *state;
    const char *five = "a a a a a";
    EXPECT(f->tiny, five, true, 0, false, 2, 8, 8, 8, 8, 8, 3);
    EXPECT(f->tiny, five, true, 7, false, 2, 8, 8, 8, 8, 8, 3); /* exactly fits */
    EXPECT(f->tiny, five, true, 4, true, 2, 8, 8, 3);           /* [SEP] kept */
    EXPECT(f->tiny, five, true, 2, true, 2, 3);
    EXPECT(f->tiny, five, false, 2, true, 8, 8);
    EXPECT(f->tiny, five, false, 5, false, 8, 8, 8, 8, 8);
    /* The limit falls inside a word's pieces. */
    EXPECT(f->tiny, "a unaffable", false, 2, true, 8, 5);
    /* ...of a word that turns out [UNK]: that is one id, so nothing is dropped. */
    EXPECT(f->tiny, "a unaffablez", false, 2, false, 8, 1);
    EXPECT(f->tiny, "a unaffablez a", false, 2, true, 8, 1);
    uint32_t *ids;
    size_t n;
    bool trunc;
    assert_int_equal(text_wordpiece_encode(f->tiny, five, 9, true, 1, &ids, &n, &trunc),
                     APIDEX_EINVAL);
    assert_null(ids);
    assert_int_equal(text_wordpiece_encode(f->tiny, NULL, 3, true, 0, &ids, &n, &trunc),
                     APIDEX_EINVAL);
    /* truncated may be NULL. */
    assert_int_equal(text_wordpiece_encode(f->tiny, five, 9, false, 1, &ids, &n, NULL), 0);
    assert_int_equal(n, 1);
    free(ids);
}

static void test_lookup(void **state)
{
    fixture *f = *state;
    assert_int_equal(text_wordpiece_vocab_size(f->tiny), 18);
    assert_string_equal(text_wordpiece_token(f->tiny, 6), "##aff");
    assert_null(text_wordpiece_token(f->tiny, 18));
    assert_int_equal(text_wordpiece_id(f->tiny, "##able"), 7);
    assert_int_equal(text_wordpiece_id(f->tiny, "able"), -1);
    assert_int_equal(text_wordpiece_id(f->tiny, "中"), 15);
    assert_int_equal(text_wordpiece_vocab_size(NULL), 0);
    text_wordpiece_close(NULL);
}

static void expect_open_fails(const char *dir, const char *name, const char *text, int code)
{
    char *path = tu_write(dir, name, text);
    text_wordpiece *wp = (text_wordpiece *)1;
    apidex_error err = {0};
    int rc = text_wordpiece_open(path, &wp, &err);
    if (rc != code) print_message("%s: rc %d (%s)\n", name, rc, err.message);
    assert_int_equal(rc, code);
    assert_null(wp);
    assert_true(err.message[0] != '\0');
    free(path);
}

static void test_open_errors(void **state)
{
    fixture *f = *state;
    text_wordpiece *wp = NULL;
    apidex_error err = {0};
    assert_true(text_wordpiece_open("/nonexistent/vocab.txt", &wp, &err) < 0);
    assert_null(wp);
    expect_open_fails(f->dir, "empty.txt", "", APIDEX_ESPEC);
    expect_open_fails(f->dir, "nounk.txt", "a\nb\n", APIDEX_ESPEC);
    expect_open_fails(f->dir, "bpe.json",
                      "{\"model\":{\"type\":\"BPE\",\"vocab\":{}},"
                      "\"pre_tokenizer\":{\"type\":\"ByteLevel\"}}",
                      APIDEX_EUNSUPPORTED);
    expect_open_fails(f->dir, "badid.json",
                      "{\"model\":{\"type\":\"WordPiece\",\"vocab\":{\"[UNK]\":\"x\"}},"
                      "\"pre_tokenizer\":{\"type\":\"BertPreTokenizer\"}}",
                      APIDEX_ESPEC);
    expect_open_fails(f->dir, "sparse.json",
                      "{\"model\":{\"type\":\"WordPiece\",\"vocab\":{\"[UNK]\":0,\"a\":9000000}},"
                      "\"pre_tokenizer\":{\"type\":\"BertPreTokenizer\"}}",
                      APIDEX_ELIMIT);
    expect_open_fails(f->dir, "norm.json",
                      "{\"model\":{\"type\":\"WordPiece\",\"vocab\":{\"[UNK]\":0}},"
                      "\"normalizer\":{\"type\":\"NFKC\"},"
                      "\"pre_tokenizer\":{\"type\":\"BertPreTokenizer\"}}",
                      APIDEX_EUNSUPPORTED);
    expect_open_fails(f->dir, "notjson.json", "{\"model\": 1}", APIDEX_EUNSUPPORTED);
}

static void test_cased_tokenizer_json(void **state)
{
    fixture *f = *state;
    /* A cased BERT: no lower-casing, accents kept, unknown token named differently. */
    char *path = tu_write(f->dir, "cased.json",
                          "{\"model\":{\"type\":\"WordPiece\",\"unk_token\":\"<unk>\","
                          "\"continuing_subword_prefix\":\"@@\",\"max_input_chars_per_word\":5,"
                          "\"vocab\":{\"<unk>\":0,\"Hi\":1,\"hi\":2,\"@@x\":3,\"é\":4}},"
                          "\"normalizer\":{\"type\":\"BertNormalizer\",\"lowercase\":false},"
                          "\"pre_tokenizer\":{\"type\":\"BertPreTokenizer\"}}");
    text_wordpiece *wp = NULL;
    apidex_error err = {0};
    assert_int_equal(text_wordpiece_open(path, &wp, &err), 0);
    EXPECT(wp, "Hi hix \xc3\xa9 hixxxx HI", false, 0, false, 1, 2, 3, 4, 0, 0);
    /* No [CLS]/[SEP] in this vocabulary. */
    uint32_t *ids;
    size_t n;
    assert_int_equal(text_wordpiece_encode(wp, "Hi", 2, true, 0, &ids, &n, NULL), APIDEX_EINVAL);
    text_wordpiece_close(wp);
    free(path);
}

/* ---------------------------------------------------------------- bge-small-en-v1.5 */

typedef struct bge {
    text_wordpiece *json, *txt;
} bge;

static bool bge_open(bge *b)
{
    const char *shared = tu_shared_dir();
    if (!shared) return false;
    char *j = tu_path(shared, "models/bge-small-en-v1.5/tokenizer.json");
    char *t = tu_path(shared, "models/bge-small-en-v1.5/vocab.txt");
    apidex_error err = {0};
    assert_int_equal(text_wordpiece_open(j, &b->json, &err), 0);
    assert_int_equal(text_wordpiece_open(t, &b->txt, &err), 0);
    free(j);
    free(t);
    return true;
}

static void bge_close(bge *b)
{
    text_wordpiece_close(b->json);
    text_wordpiece_close(b->txt);
}

/* Both vocabularies must give the ids the reference gave (recorded from transformers.js). */
#define EXPECT_BGE(b, s, ...)                                                                      \
    do {                                                                                           \
        EXPECT((b)->json, s, true, 0, false, __VA_ARGS__);                                         \
        EXPECT((b)->txt, s, true, 0, false, __VA_ARGS__);                                          \
    } while (0)

static void test_bge_known_sequences(void **state)
{
    (void)state;
    TU_REQUIRE_SHARED();
    bge b;
    assert_true(bge_open(&b));
    assert_int_equal(text_wordpiece_vocab_size(b.json), 30522);
    assert_int_equal(text_wordpiece_vocab_size(b.txt), 30522);
    for (uint32_t id = 0; id < 30522; id += 97)
        assert_string_equal(text_wordpiece_token(b.json, id), text_wordpiece_token(b.txt, id));
    assert_string_equal(text_wordpiece_token(b.json, 101), "[CLS]");
    assert_int_equal(text_wordpiece_id(b.json, "##s"), 2015);

    EXPECT_BGE(&b, "Hello, my dog is cute", 101, 7592, 1010, 2026, 3899, 2003, 10140, 102);
    /* Final sigma is decided on the raw text, before controls are removed. */
    EXPECT_BGE(&b, "ΑΣ ΟΔΟΣ σς ΣΑ Σ", 101, 1155, 19579, 1169, 29722, 15297, 1173, 19579, 1173,
               14608, 1173, 102);
    EXPECT_BGE(&b, "ΑΣ\x01Β", 101, 1155, 19579, 29720, 102);
    EXPECT_BGE(&b, "İstanbul café naïve", 101, 9960, 7668, 15743, 102);
    /* \v \f U+0085 ZWSP BOM are controls (dropped); NBSP and U+3000 are spaces. */
    EXPECT_BGE(&b,
               "a\vb\fc\xc2\x85"
               "d\xe2\x80\x8b"
               "e\xef\xbb\xbfg\xc2\xa0h\xe3\x80\x80i",
               101, 5925, 3207, 2290, 1044, 1045, 102);
    EXPECT_BGE(&b, "[CLS] x [SEP]y[MASK]z [cls]", 101, 101, 1060, 102, 1061, 103, 1062, 1031, 18856,
               2015, 1033, 102);
    /* Astral ideographs are not isolated (the reference walks UTF-16 units); Hangul is NFD. */
    EXPECT_BGE(&b, "𠀀𠀁 中文 한국어", 101, 100, 1746, 1861, 1469, 30006, 30021, 29991, 30014,
               30020, 29999, 30008, 102);
    EXPECT_BGE(&b, "👍🏽 👨‍👩‍👧 🇫🇷 ❤️", 101, 100, 100, 100, 100, 102);
    bge_close(&b);
}

/* Encoding a long text in chunks must equal encoding its repeated unit. */
static void test_bge_chunking(void **state)
{
    (void)state;
    TU_REQUIRE_SHARED();
    bge b;
    assert_true(bge_open(&b));
    static const char *const units[] = {
        "hello world. ",        /* breaks everywhere */
        "ab.cd'ΑΣ.",            /* no separator: cut inside words */
        "e\xcc\x81\xcc\xa3x, ", /* combining marks right after a break */
        "\316\243\314\201a-",   /* sigma context across a cut (octal: a hex escape would eat 'a') */
    };
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t ulen = strlen(units[u]);
        size_t reps = 150000 / ulen + 1;
        char *text = malloc(reps * ulen + 1);
        for (size_t i = 0; i < reps; i++) memcpy(text + i * ulen, units[u], ulen);
        /* The first and last copies may differ (context at the text's ends); every copy in
         * between gives the same p ids, wherever the chunks were cut. */
        uint32_t *ids, *two, *three;
        size_t n, n2, n3;
        assert_int_equal(text_wordpiece_encode(b.json, text, 2 * ulen, false, 0, &two, &n2, NULL),
                         0);
        assert_int_equal(text_wordpiece_encode(b.json, text, 3 * ulen, false, 0, &three, &n3, NULL),
                         0);
        assert_int_equal(text_wordpiece_encode(b.json, text, reps * ulen, false, 0, &ids, &n, NULL),
                         0);
        size_t p = n3 - n2;
        assert_true(p > 0);
        assert_int_equal(n, n2 + (reps - 2) * p);
        for (size_t i = n2; i + n2 + p < n; i++) assert_int_equal(ids[i], ids[i + p]);
        free(ids);
        free(three);
        free(two);
        free(text);
    }
    bge_close(&b);
}

/* A word of 1 MB (cut into chunks inside) is still one [UNK]. */
static void test_bge_giant_word(void **state)
{
    (void)state;
    TU_REQUIRE_SHARED();
    bge b;
    assert_true(bge_open(&b));
    size_t len = 1u << 20;
    char *text = malloc(len + 8);
    for (size_t i = 0; i < len; i++) text[i] = "a1B"[i % 3];
    memcpy(text + len, " word", 5);
    uint32_t *ids;
    size_t n;
    assert_int_equal(text_wordpiece_encode(b.json, text, len + 5, true, 0, &ids, &n, NULL), 0);
    assert_int_equal(n, 4);
    assert_int_equal(ids[1], 100);
    assert_int_equal(ids[2], 2773); /* "word" */
    free(ids);
    free(text);
    bge_close(&b);
}

static void test_bge_truncation_large_input(void **state)
{
    (void)state;
    TU_REQUIRE_SHARED();
    bge b;
    assert_true(bge_open(&b));
    size_t len = 8u << 20;
    char *text = malloc(len);
    for (size_t i = 0; i < len; i++) text[i] = "the quick brown fox "[i % 20];
    uint32_t *ids, *small;
    size_t n, n_small;
    bool trunc;
    assert_int_equal(text_wordpiece_encode(b.json, text, len, true, 512, &ids, &n, &trunc), 0);
    assert_int_equal(n, 512);
    assert_true(trunc);
    assert_int_equal(ids[0], 101);
    assert_int_equal(ids[511], 102);
    assert_int_equal(text_wordpiece_encode(b.json, text, 4000, true, 0, &small, &n_small, &trunc),
                     0);
    assert_true(n_small > 512);
    assert_memory_equal(ids, small, 511 * sizeof *ids);
    free(small);
    free(ids);
    free(text);
    bge_close(&b);
}

typedef struct job {
    const text_wordpiece *wp;
    const char *text;
    size_t len;
    const uint32_t *want;
    size_t n_want;
    int failures;
} job;

static void *encode_many(void *arg)
{
    job *j = arg;
    for (int k = 0; k < 40; k++) {
        uint32_t *ids;
        size_t n;
        if (text_wordpiece_encode(j->wp, j->text, j->len, true, 0, &ids, &n, NULL) != 0 ||
            n != j->n_want || memcmp(ids, j->want, n * sizeof *ids) != 0)
            j->failures++;
        free(ids);
    }
    return NULL;
}

static void test_bge_threads(void **state)
{
    (void)state;
    TU_REQUIRE_SHARED();
    bge b;
    assert_true(bge_open(&b));
    const char *text = "Retrieves the ΟΔΟΣ café 中文 details of a movie by {movie_id}; 👍 "
                       "https://api.themoviedb.org/3/movie/550?api_key=x 123456789012345";
    uint32_t *want;
    size_t n_want;
    assert_int_equal(
        text_wordpiece_encode(b.json, text, strlen(text), true, 0, &want, &n_want, NULL), 0);
    pthread_t th[4];
    job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (job){b.json, text, strlen(text), want, n_want, 0};
        assert_int_equal(pthread_create(&th[i], NULL, encode_many, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(jobs[i].failures, 0);
    }
    free(want);
    bge_close(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_greedy_longest_match, setup, teardown),
        cmocka_unit_test_setup_teardown(test_normalisation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_words, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lookup, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cased_tokenizer_json, setup, teardown),
        cmocka_unit_test(test_bge_known_sequences),
        cmocka_unit_test(test_bge_chunking),
        cmocka_unit_test(test_bge_giant_word),
        cmocka_unit_test(test_bge_truncation_large_input),
        cmocka_unit_test(test_bge_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
