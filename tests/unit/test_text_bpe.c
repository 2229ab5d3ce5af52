/* Unit tests of the cl100k BPE: known id sequences (from the npm tiktoken package),
 * special tokens on and off, empty input, long runs against a naive reference merge,
 * invalid UTF-8, count == len(encode), token decoding and sharing across threads. */
#include "testutil.h"

#include "text/text.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const text_bpe *bpe(void)
{
    const text_bpe *b = text_bpe_default();
    assert_non_null(b);
    return b;
}

static void expect_ids(const char *s, size_t n, bool special, const uint32_t *want, size_t n_want)
{
    uint32_t *ids = NULL;
    size_t n_ids = 0;
    assert_int_equal(text_bpe_encode(bpe(), s, n, special, &ids, &n_ids), 0);
    if (n_ids != n_want || memcmp(ids, want, n_want * sizeof *want) != 0) {
        print_message("encoding of \"%.*s\": got", (int)n, s);
        for (size_t i = 0; i < n_ids; i++) print_message(" %u", ids[i]);
        print_message("\n");
        fail_msg("ids differ from tiktoken's");
    }
    if (!special) assert_int_equal(text_bpe_count(bpe(), s, n), n_ids);
    free(ids);
}

#define EXPECT(str, special, ...)                                                                  \
    do {                                                                                           \
        static const uint32_t want_[] = {__VA_ARGS__};                                             \
        expect_ids(str, sizeof(str) - 1, special, want_, sizeof want_ / sizeof *want_);            \
    } while (0)

/* Expected ids: tiktoken 1.0.22 (npm), encode_ordinary / encode(s, "all"). */
static void test_known_sequences(void **state)
{
    (void)state;
    EXPECT("hello world", false, 15339, 1917);
    EXPECT("I'm here, they'LL go; it's 1234567 o'clock!", false, 40, 2846, 1618, 11, 814, 6, 4178,
           733, 26, 433, 596, 220, 4513, 10961, 22, 297, 63510, 0);
    EXPECT("  \n\n\t x   y\r\n", false, 19124, 197, 865, 256, 379, 319);
    EXPECT("GET /v1/customers/{customer}/sources?limit=10", false, 3891, 611, 85, 16, 35765, 388,
           9573, 11296, 4572, 40751, 30, 9696, 28, 605);
    EXPECT("na\xc3\xafve caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x98\x80\xf0\x9f"
           "\x91\x8d\xf0\x9f\x8f\xbd",
           false, 3458, 38672, 588, 53050, 76502, 22656, 45918, 252, 91416, 9468, 239, 235, 9468,
           237, 121);
    EXPECT("a\0b", false, 64, 188, 65);
    EXPECT("12345678901", false, 4513, 10961, 16474, 1721);
    /* U+180E is not White_Space for tiktoken (PCRE2's \s would say it is). */
    EXPECT("x\xe1\xa0\x8ey", false, 87, 157, 254, 236, 88);
}

static void test_special_tokens(void **state)
{
    (void)state;
    EXPECT("hello world <|endoftext|>", true, 15339, 1917, 220, 100257);
    EXPECT("hello world <|endoftext|>", false, 15339, 1917, 83739, 8862, 728, 428, 91, 29);
    EXPECT("<|fim_prefix|>a<|fim_middle|>b<|fim_suffix|>c<|endofprompt|>", true, 100258, 64, 100259,
           65, 100260, 66, 100276);
    EXPECT("<|endoftext", true, 27, 91, 8862, 728, 428);
    EXPECT("<|endoftext|><|endoftext|>", true, 100257, 100257);

    char buf[64];
    assert_int_equal(text_bpe_decode_token(bpe(), 100257, buf, sizeof buf), 13);
    assert_memory_equal(buf, "<|endoftext|>", 13);
    assert_int_equal(text_bpe_decode_token(bpe(), 100276, buf, sizeof buf), 15);
    assert_memory_equal(buf, "<|endofprompt|>", 15);
    /* Ids between the ranks and the specials, and past them, are not tokens. */
    assert_int_equal(text_bpe_decode_token(bpe(), 100256, buf, sizeof buf), 0);
    assert_int_equal(text_bpe_decode_token(bpe(), 100261, buf, sizeof buf), 0);
    assert_int_equal(text_bpe_decode_token(bpe(), 1u << 30, buf, sizeof buf), 0);
}

static void test_empty_and_decode(void **state)
{
    (void)state;
    uint32_t *ids = NULL;
    size_t n = 99;
    assert_int_equal(text_bpe_encode(bpe(), "", 0, true, &ids, &n), 0);
    assert_int_equal(n, 0);
    free(ids);
    assert_int_equal(text_bpe_encode(bpe(), NULL, 0, false, &ids, &n), 0);
    assert_int_equal(n, 0);
    free(ids);
    assert_int_equal(text_bpe_count(bpe(), "", 0), 0);
    assert_int_equal(text_bpe_count(bpe(), NULL, 0), 0);
    assert_int_equal(text_bpe_encode(NULL, "x", 1, false, &ids, &n), APIDEX_EINVAL);

    char buf[8];
    assert_int_equal(text_bpe_decode_token(bpe(), 15339, buf, sizeof buf), 5);
    assert_memory_equal(buf, "hello", 5);
    /* A short buffer gets a prefix; the return value still says the full length. */
    memset(buf, 0, sizeof buf);
    assert_int_equal(text_bpe_decode_token(bpe(), 15339, buf, 2), 5);
    assert_memory_equal(buf, "he\0", 3);
    assert_int_equal(text_bpe_decode_token(bpe(), 0, buf, sizeof buf), 1);
    assert_int_equal(buf[0], '!');
}

static void test_open_close(void **state)
{
    (void)state;
    apidex_error err;
    text_bpe *b = NULL;
    assert_int_equal(text_bpe_open(&b, &err), 0);
    assert_non_null(b);
    assert_int_equal(text_bpe_count(b, "hello world", 11), 2);
    text_bpe_close(b);
    text_bpe_close(NULL);
    assert_ptr_equal(text_bpe_default(), text_bpe_default());
}

/* ---- a naive reference merge, built only from text_bpe_decode_token */

typedef struct ref_tok {
    char bytes[256];
    size_t len;
    uint32_t id;
} ref_tok;

static ref_tok *ref_table;
static size_t ref_n;

static int ref_cmp(const void *a, const void *b)
{
    const ref_tok *x = a, *y = b;
    size_t m = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->bytes, y->bytes, m);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static void ref_build(void)
{
    if (ref_table) return;
    ref_table = calloc(100256, sizeof *ref_table);
    assert_non_null(ref_table);
    for (uint32_t id = 0; id < 100256; id++) {
        ref_tok *t = &ref_table[ref_n];
        t->len = text_bpe_decode_token(bpe(), id, t->bytes, sizeof t->bytes);
        assert_true(t->len > 0 && t->len <= sizeof t->bytes);
        t->id = id;
        ref_n++;
    }
    qsort(ref_table, ref_n, sizeof *ref_table, ref_cmp);
}

static uint32_t ref_rank(const char *p, size_t n)
{
    if (n > 255) return UINT32_MAX;
    ref_tok key;
    memcpy(key.bytes, p, n);
    key.len = n;
    const ref_tok *t = bsearch(&key, ref_table, ref_n, sizeof *ref_table, ref_cmp);
    return t ? t->id : UINT32_MAX;
}

/* tiktoken's byte_pair_merge, literally: parts with the rank of each adjacent pair,
 * rescanned for the lowest (leftmost on ties) after every merge. */
static size_t ref_merge(const char *p, size_t n, uint32_t *out)
{
    size_t *start = malloc((n + 1) * sizeof *start);
    uint32_t *rank = malloc((n + 1) * sizeof *rank);
    assert_non_null(start);
    assert_non_null(rank);
    size_t parts = n;
    for (size_t i = 0; i <= n; i++) start[i] = i;
    for (size_t i = 0; i < n; i++) rank[i] = i + 1 < n ? ref_rank(p + i, 2) : UINT32_MAX;
    for (;;) {
        uint32_t best = UINT32_MAX;
        size_t at = 0;
        for (size_t i = 0; i + 1 < parts; i++)
            if (rank[i] < best) {
                best = rank[i];
                at = i;
            }
        if (best == UINT32_MAX) break;
        memmove(start + at + 1, start + at + 2, (parts - at - 1) * sizeof *start);
        memmove(rank + at + 1, rank + at + 2, (parts - at - 2) * sizeof *rank);
        parts--;
        rank[at] = at + 1 < parts ? ref_rank(p + start[at], start[at + 2] - start[at]) : UINT32_MAX;
        if (at > 0) rank[at - 1] = ref_rank(p + start[at - 1], start[at + 1] - start[at - 1]);
    }
    for (size_t i = 0; i < parts; i++) out[i] = ref_rank(p + start[i], start[i + 1] - start[i]);
    free(start);
    free(rank);
    return parts;
}

static void check_against_reference(const char *s, size_t n)
{
    uint32_t *ids = NULL, *want = malloc(n * sizeof *want);
    size_t n_ids = 0;
    assert_non_null(want);
    size_t n_want =
        ref_rank(s, n) != UINT32_MAX ? (want[0] = ref_rank(s, n), 1) : ref_merge(s, n, want);
    assert_int_equal(text_bpe_encode(bpe(), s, n, false, &ids, &n_ids), 0);
    if (n_ids != n_want || memcmp(ids, want, n_ids * sizeof *ids) != 0)
        fail_msg("a %zu-byte piece starting \"%.20s\" merges differently from the reference", n, s);
    free(ids);
    free(want);
}

/* One piece each (one letter run, one punctuation run), short and long: the linear and
 * the heap merge must both equal the reference. */
static void test_runs_match_reference(void **state)
{
    (void)state;
    ref_build();
    static const char *units[] = {"a", "ab", "abc", "\xc3\xa9", "\xe6\x97\xa5",
                                  "=", "-=", "!?",  "Aa",       "xyzzy"};
    /* Repetitions; 191-194 straddle the switch from the linear to the heap merge. */
    static const size_t lens[] = {1, 2, 3, 7, 50, 191, 192, 193, 194, 300, 1000};
    char *buf = malloc(4000);
    assert_non_null(buf);
    for (size_t u = 0; u < sizeof units / sizeof *units; u++)
        for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
            size_t ul = strlen(units[u]), n = 0;
            while (n + ul <= lens[l] * ul && n + ul <= 3000) {
                memcpy(buf + n, units[u], ul);
                n += ul;
            }
            check_against_reference(buf, n);
        }
    free(buf);
}

/* Long runs of one character: must finish quickly (no quadratic merge) and round-trip.
 * The first two are 1 MB, the others 64 KB; all 64 KB under the (slow) sanitizers. */
static void test_long_runs(void **state)
{
    (void)state;
    static const char *units[] = {"a", " ", "1", "\n", "!", "\xf0\x9f\x98\x80", "\xc3\xa9", "\t "};
    size_t n = getenv("APIDEX_SANITIZED") ? 1u << 16 : 1u << 20;
    char *buf = malloc(n + 8), *back = malloc(n + 8);
    assert_non_null(buf);
    assert_non_null(back);
    for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
        size_t ul = strlen(units[u]), len = 0, want = u < 2 ? n : 1u << 16;
        if (want > n) want = n;
        while (len + ul <= want) {
            memcpy(buf + len, units[u], ul);
            len += ul;
        }
        uint32_t *ids = NULL;
        size_t n_ids = 0;
        assert_int_equal(text_bpe_encode(bpe(), buf, len, false, &ids, &n_ids), 0);
        assert_true(n_ids > 0);
        assert_int_equal(text_bpe_count(bpe(), buf, len), n_ids);
        size_t o = 0;
        for (size_t i = 0; i < n_ids; i++) {
            size_t tl = text_bpe_decode_token(bpe(), ids[i], back + o, n + 8 - o);
            assert_true(tl > 0 && o + tl <= len);
            o += tl;
        }
        assert_int_equal(o, len);
        assert_memory_equal(back, buf, len);
        free(ids);
    }
    free(buf);
    free(back);
}

/* Invalid UTF-8 is decoded as TextDecoder does: U+FFFD per maximal invalid subsequence. */
static void expect_same(const char *a, size_t na, const char *b, size_t nb)
{
    uint32_t *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    assert_int_equal(text_bpe_encode(bpe(), a, na, false, &x, &nx), 0);
    assert_int_equal(text_bpe_encode(bpe(), b, nb, false, &y, &ny), 0);
    assert_int_equal(nx, ny);
    assert_memory_equal(x, y, nx * sizeof *x);
    assert_int_equal(text_bpe_count(bpe(), a, na), nx);
    free(x);
    free(y);
}

#define SAME(a, b) expect_same(a, sizeof(a) - 1, b, sizeof(b) - 1)
#define FFFD       "\xef\xbf\xbd"

static void test_invalid_utf8(void **state)
{
    (void)state;
    SAME("\xff", FFFD);
    SAME("ab\xff\xfe", "ab" FFFD FFFD);
    SAME("\xc3(", FFFD "(");                       /* lead byte without continuation */
    SAME("\xe2\x82 x", FFFD " x");                 /* truncated 3-byte: one U+FFFD */
    SAME("\xf0\x9f\x98", FFFD);                    /* truncated 4-byte at the end */
    SAME("\xed\xa0\x80z", FFFD FFFD FFFD "z");     /* surrogate: each byte */
    SAME("\xc0\xaf", FFFD FFFD);                   /* overlong */
    SAME("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD); /* above U+10FFFF */
    SAME("\xf8\x88\x80\x80\x80", FFFD FFFD FFFD FFFD FFFD);
    SAME("x\x80y", "x" FFFD "y");
    SAME("12\xe0\x80\x80", "12" FFFD FFFD FFFD);
    EXPECT(FFFD, false, 5809);

    /* Every byte string of length 1..3 over a mix of bytes: no crash, count agrees. */
    static const unsigned char bytes[] = {0x00, 0x20, 0x41, 0x7f, 0x80, 0xbf, 0xc2, 0xdf,
                                          0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff};
    size_t nb = sizeof bytes;
    char s[3];
    for (size_t a = 0; a < nb; a++)
        for (size_t b = 0; b < nb; b++)
            for (size_t c = 0; c < nb; c++) {
                s[0] = (char)bytes[a];
                s[1] = (char)bytes[b];
                s[2] = (char)bytes[c];
                for (size_t len = 1; len <= 3; len++) {
                    uint32_t *ids = NULL;
                    size_t n_ids = 0;
                    assert_int_equal(text_bpe_encode(bpe(), s, len, true, &ids, &n_ids), 0);
                    assert_true(n_ids >= 1 && n_ids <= 3 * len);
                    assert_int_equal(text_bpe_count(bpe(), s, len), n_ids);
                    free(ids);
                }
            }
}

static void test_count_equals_encode(void **state)
{
    (void)state;
    static const char *texts[] = {
        "Returns a list of your customers. The customers are returned sorted by creation date.",
        "/v1/accounts/{account}/external_accounts/{id}",
        "{\"get\": {\"operationId\": \"GetCustomers\", \"parameters\": []}}\r\n\r\n",
        "   leading and trailing   \n\n   ",
        "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe8\xaa\xac\xe6\x98\x8e 123456789",
        "<|endoftext|> treated as text here",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        uint32_t *ids = NULL;
        size_t n = 0;
        assert_int_equal(text_bpe_encode(bpe(), texts[i], strlen(texts[i]), false, &ids, &n), 0);
        assert_int_equal(text_bpe_count(bpe(), texts[i], strlen(texts[i])), n);
        free(ids);
    }
}

/* One shared instance, two threads, same text: same ids (and clean under TSan/ASan). */
typedef struct thread_job {
    const char *text;
    size_t n_ids;
    uint64_t sum;
} thread_job;

static void *encode_many(void *arg)
{
    thread_job *job = arg;
    for (int r = 0; r < 50; r++) {
        uint32_t *ids = NULL;
        size_t n = 0;
        if (text_bpe_encode(text_bpe_default(), job->text, strlen(job->text), true, &ids, &n) != 0)
            return NULL;
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++) sum = sum * 31 + ids[i];
        job->n_ids = n;
        job->sum = sum;
        free(ids);
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    const char *text = "Lists all webhooks <|endoftext|> for a repository. 12345 \xf0\x9f\x98\x80";
    thread_job a = {text, 0, 0}, b = {text, 0, 0};
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, encode_many, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, encode_many, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    assert_true(a.n_ids > 0);
    assert_int_equal(a.n_ids, b.n_ids);
    assert_true(a.sum == b.sum);
}

static int teardown_all(void **state)
{
    (void)state;
    free(ref_table);
    ref_table = NULL;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_sequences),
        cmocka_unit_test(test_special_tokens),
        cmocka_unit_test(test_empty_and_decode),
        cmocka_unit_test(test_open_close),
        cmocka_unit_test(test_runs_match_reference),
        cmocka_unit_test(test_long_runs),
        cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_count_equals_encode),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, teardown_all);
}
