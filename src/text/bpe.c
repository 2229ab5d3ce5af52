/*
 * cl100k_base byte-level BPE, byte-exact with OpenAI's tiktoken (as the npm package
 * tiktoken runs it): split the text with tiktoken's pattern, then merge the bytes of
 * each piece by rank.
 *
 * Design
 * - Data. The ranks, the split pattern and the special tokens come from the npm package
 *   tiktoken (encoders/cl100k_base.json); tools/gen_cl100k.c turns them into a C source
 *   at build time, so the library embeds them (bpe_int.h). text_bpe_open indexes the
 *   100,256 tokens in an open-addressing hash table (keyed by xxh3 of the bytes; a slot
 *   packs a hash tag, the id and the bytes' offset, so a miss rarely touches the token
 *   bytes) plus a direct 65,536-entry table for two-byte tokens, the most frequent
 *   lookup while merging.
 * - Splitting. PCRE2 with UTF and UCP, JIT-compiled, runs tiktoken's pat_str with two
 *   mechanical rewrites that make PCRE2 classify characters as the Rust regex engine in
 *   the npm package does: \s there is exactly Unicode White_Space, while PCRE2's UCP \s
 *   also matches U+180E, so \s / \S become an explicit White_Space class; and the Rust
 *   tables are Unicode 16 while Debian 12's PCRE2 10.42 has Unicode 14, so \p{L} / \p{N}
 *   gain the letters and numbers assigned since (extra_letters / extra_numbers). The
 *   rest of the pattern is used verbatim. Those lists came from classifying every code
 *   point both ways; the parity test's code point sweep (tools/node/bpe_parity.mjs
 *   --sweep) keeps checking them and names the block of any disagreement. The extra
 *   ranges make PCRE2 about half as fast, so a second compiled pattern without them
 *   serves every text that contains none of those code points (almost all).
 * - Merging. As tiktoken: a piece that is itself a token is emitted directly; otherwise
 *   its bytes are merged repeatedly at the adjacent pair with the lowest rank, the
 *   leftmost one on ties, until no adjacent pair is a token. Short pieces use tiktoken's
 *   own linear scan (fast for the usual handful of bytes); long pieces use a binary heap
 *   keyed by (rank, position) over a linked list of parts, so a 1 MB run of one character
 *   costs O(n log n) instead of O(n^2). Both give identical results: each step merges the
 *   global minimum (rank, leftmost).
 * - Invalid UTF-8. tiktoken takes JS strings, so bytes reach it only after UTF-8
 *   decoding. We decode the same way as the WHATWG TextDecoder (and Node's Buffer):
 *   each maximal invalid subsequence becomes U+FFFD; valid input is used in place.
 *   Hence ids equal tiktoken's ids for new TextDecoder().decode(bytes).
 * - Threads. The tokenizer is immutable after open; each call creates its own PCRE2
 *   match data, so calls on one shared instance are thread-safe.
 */
#include "text/text.h"

#include "text/bpe_int.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* xxh3 inlined: hashing short pieces is on the hot path. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#define BPE_NONE       UINT32_MAX  /* "no rank": pair is not a token */
#define BPE_TABLE_BITS 18          /* 262,144 slots for 100,256 tokens: load ~0.38 */
#define BPE_LINEAR_MAX 192         /* pieces up to this many bytes use the linear scan */
#define BPE_INPUT_MAX  0xFFFFFFFFu /* part positions are 32-bit */

/* Letters and numbers of Unicode 15.0-16.0, which tiktoken's regex tables know and
 * PCRE2 10.42 (Unicode 14) does not. Listing them again is harmless on a newer PCRE2.
 * Sorted, inclusive ranges. */
typedef struct bpe_range {
    uint32_t lo, hi;
} bpe_range;

static const bpe_range extra_letters[] = {
    {0x1C89, 0x1C8A},   {0xA7CB, 0xA7CD},   {0xA7DA, 0xA7DC},   {0x105C0, 0x105F3},
    {0x10D4A, 0x10D65}, {0x10D6F, 0x10D85}, {0x10EC2, 0x10EC4}, {0x1123F, 0x11240},
    {0x11380, 0x11389}, {0x1138B, 0x1138B}, {0x1138E, 0x1138E}, {0x11390, 0x113B5},
    {0x113B7, 0x113B7}, {0x113D1, 0x113D1}, {0x113D3, 0x113D3}, {0x11BC0, 0x11BE0},
    {0x11F02, 0x11F02}, {0x11F04, 0x11F10}, {0x11F12, 0x11F33}, {0x1342F, 0x1342F},
    {0x13441, 0x13446}, {0x13460, 0x143FA}, {0x16100, 0x1611D}, {0x16D40, 0x16D6C},
    {0x18CFF, 0x18CFF}, {0x1B132, 0x1B132}, {0x1B155, 0x1B155}, {0x1DF25, 0x1DF2A},
    {0x1E030, 0x1E06D}, {0x1E4D0, 0x1E4EB}, {0x1E5D0, 0x1E5ED}, {0x1E5F0, 0x1E5F0},
    {0x2B739, 0x2B739}, {0x2EBF0, 0x2EE5D}, {0x31350, 0x323AF},
};
static const bpe_range extra_numbers[] = {
    {0x10D40, 0x10D49}, {0x116D0, 0x116E3}, {0x11BF0, 0x11BF9}, {0x11F50, 0x11F59},
    {0x16130, 0x16139}, {0x16D70, 0x16D79}, {0x1CCF0, 0x1CCF9}, {0x1D2C0, 0x1D2D3},
    {0x1E4F0, 0x1E4F9}, {0x1E5F1, 0x1E5FA},
};

/* Unicode White_Space, the meaning of \s in the Rust regex crate (tiktoken). */
#define BPE_WHITE_SPACE                                                                            \
    "\\t\\n\\x0B\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"      \
    "\\x{205F}\\x{3000}"

/* A hash slot packs, so that a hit costs one cache miss in the table and one in the
 * token bytes: bits 0-19 the token's offset in text_cl100k_blob (never 0, so 0 marks an
 * empty slot), bits 20-36 the token id, bits 37-63 the top 27 bits of the hash. */
typedef uint64_t bpe_slot;
#define SLOT_OFF_BITS  20
#define SLOT_ID_BITS   17
#define SLOT_TAG_SHIFT (SLOT_OFF_BITS + SLOT_ID_BITS)

struct text_bpe {
    pcre2_code *re_fast, *re_exact; /* see compile_patterns */
    bool jit_fast, jit_exact;
    pcre2_match_context *limits; /* no match limit: see compile_patterns */
    uint32_t n_ranks;
    size_t max_token_len;
    uint32_t *offsets;      /* n_ranks: where token bytes start in text_cl100k_blob */
    bpe_slot *table;        /* 1 << BPE_TABLE_BITS */
    uint32_t *pair;         /* 65,536: rank of the two-byte token (a << 8 | b), or BPE_NONE */
    uint32_t byte_tok[256]; /* rank of each single byte (all 256 are tokens) */
};

/* Where encoded ids go: an array, or only a count. */
typedef struct bpe_sink {
    uint32_t *ids;
    size_t n, cap;
    bool count_only;
    bool failed; /* out of memory */
} bpe_sink;

/* ---------------------------------------------------------------- tables */

static inline size_t token_len(uint32_t off)
{
    return text_cl100k_blob[off - 1];
}

static inline uint32_t table_lookup(const text_bpe *bpe, const unsigned char *p, size_t n)
{
    if (n > bpe->max_token_len) return BPE_NONE;
    if (n == 1) return bpe->byte_tok[p[0]];
    if (n == 2) return bpe->pair[(unsigned)p[0] << 8 | p[1]];
    uint64_t h = XXH3_64bits(p, n);
    uint64_t tag = h >> SLOT_TAG_SHIFT;
    size_t mask = ((size_t)1 << BPE_TABLE_BITS) - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        bpe_slot e = bpe->table[i];
        if (e == 0) return BPE_NONE;
        if (e >> SLOT_TAG_SHIFT != tag) continue;
        uint32_t off = (uint32_t)(e & ((1u << SLOT_OFF_BITS) - 1));
        if (token_len(off) == n && memcmp(text_cl100k_blob + off, p, n) == 0)
            return (uint32_t)(e >> SLOT_OFF_BITS) & ((1u << SLOT_ID_BITS) - 1);
    }
}

static int build_tables(text_bpe *bpe, apidex_error *err)
{
    bpe->n_ranks = text_cl100k_n_ranks;
    bpe->offsets = malloc(sizeof *bpe->offsets * bpe->n_ranks);
    bpe->table = calloc((size_t)1 << BPE_TABLE_BITS, sizeof *bpe->table);
    bpe->pair = malloc(sizeof *bpe->pair * 65536);
    if (!bpe->offsets || !bpe->table || !bpe->pair)
        return core_error_set(err, APIDEX_ENOMEM, "cl100k: out of memory building the rank table");
    if (text_cl100k_blob_len >= (size_t)1 << SLOT_OFF_BITS || bpe->n_ranks >= 1u << SLOT_ID_BITS)
        return core_error_set(err, APIDEX_EINVAL, "cl100k: the rank table outgrew its index");
    for (size_t i = 0; i < 65536; i++) bpe->pair[i] = BPE_NONE;

    size_t mask = ((size_t)1 << BPE_TABLE_BITS) - 1;
    size_t pos = 0;
    for (uint32_t id = 0; id < bpe->n_ranks; id++) {
        if (pos >= text_cl100k_blob_len) break;
        size_t len = text_cl100k_blob[pos];
        uint32_t off = (uint32_t)(pos + 1);
        if (len == 0 || off + len > text_cl100k_blob_len) break;
        bpe->offsets[id] = off;
        if (len > bpe->max_token_len) bpe->max_token_len = len;
        const unsigned char *p = text_cl100k_blob + off;
        if (len == 1) bpe->byte_tok[p[0]] = id;
        if (len == 2) bpe->pair[(unsigned)p[0] << 8 | p[1]] = id;
        uint64_t h = XXH3_64bits(p, len);
        size_t i = (size_t)h & mask;
        while (bpe->table[i] != 0) i = (i + 1) & mask;
        bpe->table[i] =
            (h >> SLOT_TAG_SHIFT) << SLOT_TAG_SHIFT | (uint64_t)id << SLOT_OFF_BITS | off;
        pos = off + len;
    }
    if (pos != text_cl100k_blob_len)
        return core_error_set(err, APIDEX_EINVAL, "cl100k: the embedded rank table is corrupt");
    return 0;
}

/* ---------------------------------------------------------------- pattern */

/* A bounded string builder for the rewritten pattern. */
typedef struct bpe_pattern {
    char *p;
    size_t len, cap;
    bool full;
} bpe_pattern;

static void pattern_put(bpe_pattern *t, const char *str)
{
    size_t l = strlen(str);
    if (t->full || t->len + l >= t->cap) {
        t->full = true;
        return;
    }
    memcpy(t->p + t->len, str, l + 1);
    t->len += l;
}

static void pattern_put_ranges(bpe_pattern *t, const bpe_range *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char one[40];
        if (r[i].lo == r[i].hi)
            snprintf(one, sizeof one, "\\x{%X}", (unsigned)r[i].lo);
        else
            snprintf(one, sizeof one, "\\x{%X}-\\x{%X}", (unsigned)r[i].lo, (unsigned)r[i].hi);
        pattern_put(t, one);
    }
}

/* Rewrites \s, \S and (with extras) \p{L}, \p{N} of tiktoken's pattern as the design
 * notes explain; everything else is copied. Returns false if out is too small or the
 * pattern has \S inside a class (not expressible this way; cl100k has none). */
static bool rewrite_pattern(const char *src, bool extras, char *out, size_t cap)
{
    bpe_pattern t = {out, 0, cap, false};
    out[0] = '\0';
    bool in_class = false;
    for (size_t i = 0; src[i] && !t.full; i++) {
        char c = src[i];
        if (c == '\\' && src[i + 1]) {
            char e = src[++i];
            if (e == 's') {
                pattern_put(&t, in_class ? BPE_WHITE_SPACE : "[" BPE_WHITE_SPACE "]");
            } else if (e == 'S') {
                if (in_class) return false;
                pattern_put(&t, "[^" BPE_WHITE_SPACE "]");
            } else if (extras && e == 'p' &&
                       (strncmp(src + i + 1, "{L}", 3) == 0 ||
                        strncmp(src + i + 1, "{N}", 3) == 0)) {
                bool letter = src[i + 2] == 'L';
                if (!in_class) pattern_put(&t, "[");
                pattern_put(&t, letter ? "\\p{L}" : "\\p{N}");
                if (letter)
                    pattern_put_ranges(&t, extra_letters,
                                       sizeof extra_letters / sizeof *extra_letters);
                else
                    pattern_put_ranges(&t, extra_numbers,
                                       sizeof extra_numbers / sizeof *extra_numbers);
                if (!in_class) pattern_put(&t, "]");
                i += 3;
            } else {
                char esc[3] = {'\\', e, '\0'};
                pattern_put(&t, esc);
            }
            continue;
        }
        char one[2] = {c, '\0'};
        pattern_put(&t, one);
        if (!in_class && c == '[') {
            in_class = true;
            /* A ']' right after '[' or '[^' is a literal, not the end of the class. */
            if (src[i + 1] == '^') {
                pattern_put(&t, "^");
                i++;
            }
            if (src[i + 1] == ']') {
                pattern_put(&t, "]");
                i++;
            }
        } else if (in_class && c == ']') {
            in_class = false;
        }
    }
    return !t.full;
}

static int compile_one(const char *pat, pcre2_code **re, bool *jit, apidex_error *err)
{
    int code = 0;
    PCRE2_SIZE at = 0;
    *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &code, &at,
                        NULL);
    if (!*re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return core_error_set(err, APIDEX_EINVAL, "cl100k: split pattern: %s at offset %zu",
                              (const char *)msg, (size_t)at);
    }
    /* Without JIT (some platforms) the interpreter gives the same matches, slower. */
    *jit = pcre2_jit_compile(*re, PCRE2_JIT_COMPLETE) == 0;
    return 0;
}

/* Two compiled forms of the pattern: with the Unicode 15-16 extras (exact everywhere)
 * and without (PCRE2 runs it about twice as fast). They differ only on the extra code
 * points, so the fast one is used for every text that contains none of them. */
static int compile_patterns(text_bpe *bpe, apidex_error *err)
{
    char pat[8192];
    if (!rewrite_pattern(text_cl100k_pattern, false, pat, sizeof pat))
        return core_error_set(err, APIDEX_EINVAL, "cl100k: cannot adapt the split pattern");
    int rc = compile_one(pat, &bpe->re_fast, &bpe->jit_fast, err);
    if (rc != 0) return rc;
    if (!rewrite_pattern(text_cl100k_pattern, true, pat, sizeof pat))
        return core_error_set(err, APIDEX_EINVAL, "cl100k: cannot adapt the split pattern");
    rc = compile_one(pat, &bpe->re_exact, &bpe->jit_exact, err);
    if (rc != 0) return rc;
    /* \s*[\r\n]+ tries a whole whitespace run before giving up, so a 10 MB run of
     * spaces passes PCRE2's default match limit (10 million steps). The work per run is
     * linear (the next alternative consumes the run), so the limits are lifted, not
     * tuned. The interpreter's heap limit matters only when JIT is unavailable. */
    bpe->limits = pcre2_match_context_create(NULL);
    if (!bpe->limits) return core_error_set(err, APIDEX_ENOMEM, "cl100k: out of memory");
    pcre2_set_match_limit(bpe->limits, UINT32_MAX);
    pcre2_set_depth_limit(bpe->limits, UINT32_MAX);
    pcre2_set_heap_limit(bpe->limits, UINT32_MAX);
    return 0;
}

static bool in_ranges(uint32_t cp, const bpe_range *r, size_t n)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < r[mid].lo)
            hi = mid;
        else if (cp > r[mid].hi)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

/* Whether valid UTF-8 s[0..n) holds a code point of extra_letters / extra_numbers. All
 * of them are at U+1C89 or above: three-byte sequences from E1 and four-byte ones. */
static bool has_extra_code_point(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c < 0xE1) {
            i++;
            continue;
        }
        uint32_t cp;
        if (c < 0xF0) {
            cp = (uint32_t)(c & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
            i += 3;
        } else {
            cp = (uint32_t)(c & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3F) << 12 |
                 (uint32_t)(s[i + 2] & 0x3F) << 6 | (s[i + 3] & 0x3F);
            i += 4;
        }
        if (in_ranges(cp, extra_letters, sizeof extra_letters / sizeof *extra_letters) ||
            in_ranges(cp, extra_numbers, sizeof extra_numbers / sizeof *extra_numbers))
            return true;
    }
    return false;
}

/* ---------------------------------------------------------------- open / close */

int text_bpe_open(text_bpe **out, apidex_error *err)
{
    *out = NULL;
    text_bpe *bpe = calloc(1, sizeof *bpe);
    if (!bpe) return core_error_set(err, APIDEX_ENOMEM, "cl100k: out of memory");
    int rc = build_tables(bpe, err);
    if (rc == 0) rc = compile_patterns(bpe, err);
    if (rc != 0) {
        text_bpe_close(bpe);
        return rc;
    }
    *out = bpe;
    return 0;
}

void text_bpe_close(text_bpe *bpe)
{
    if (!bpe) return;
    pcre2_code_free(bpe->re_fast);
    pcre2_code_free(bpe->re_exact);
    pcre2_match_context_free(bpe->limits);
    free(bpe->offsets);
    free(bpe->table);
    free(bpe->pair);
    free(bpe);
}

static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static text_bpe *default_bpe;

static void open_default(void)
{
    /* Lives until exit on purpose: shared by every caller of text_bpe_default. */
    if (text_bpe_open(&default_bpe, NULL) != 0) default_bpe = NULL;
}

const text_bpe *text_bpe_default(void)
{
    pthread_once(&default_once, open_default);
    return default_bpe;
}

/* ---------------------------------------------------------------- output */

static inline void sink_put(bpe_sink *k, uint32_t id)
{
    if (k->count_only) {
        k->n++;
        return;
    }
    if (core_array_grow(&k->ids, &k->cap, k->n, sizeof *k->ids, 64)) {
        k->failed = true;
        return;
    }
    k->ids[k->n++] = id;
}

/* ---------------------------------------------------------------- merging */

/* tiktoken's merge for short pieces: an array of parts, rescanned for the minimum. */
static void merge_linear(const text_bpe *bpe, const unsigned char *p, size_t n, bpe_sink *k)
{
    uint32_t start[BPE_LINEAR_MAX + 1]; /* part i is p[start[i] .. start[i+1]) */
    uint32_t rank[BPE_LINEAR_MAX];      /* rank of part i merged with part i+1 */
    uint32_t tok[BPE_LINEAR_MAX];       /* token of part i */
    size_t parts = n;
    for (size_t i = 0; i < n; i++) {
        start[i] = (uint32_t)i;
        tok[i] = bpe->byte_tok[p[i]];
        rank[i] = i + 1 < n ? bpe->pair[(unsigned)p[i] << 8 | p[i + 1]] : BPE_NONE;
    }
    start[n] = (uint32_t)n;

    for (;;) {
        uint32_t best = BPE_NONE;
        size_t at = 0;
        for (size_t i = 0; i + 1 < parts; i++)
            if (rank[i] < best) {
                best = rank[i];
                at = i;
            }
        if (best == BPE_NONE) break;
        /* Merge part at with part at+1. */
        tok[at] = best;
        memmove(start + at + 1, start + at + 2, (parts - at - 1) * sizeof *start);
        memmove(tok + at + 1, tok + at + 2, (parts - at - 2) * sizeof *tok);
        memmove(rank + at + 1, rank + at + 2, (parts - at - 2) * sizeof *rank);
        parts--;
        rank[at] =
            at + 1 < parts ? table_lookup(bpe, p + start[at], start[at + 2] - start[at]) : BPE_NONE;
        if (at > 0)
            rank[at - 1] = table_lookup(bpe, p + start[at - 1], start[at + 1] - start[at - 1]);
    }
    for (size_t i = 0; i < parts; i++) sink_put(k, tok[i]);
}

/* A binary min-heap of (rank << 32 | part), the part named by its first byte's index. */
typedef struct bpe_heap {
    uint64_t *v;
    size_t n;
} bpe_heap;

static void heap_push(bpe_heap *h, uint64_t x)
{
    size_t i = h->n++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (h->v[up] <= x) break;
        h->v[i] = h->v[up];
        i = up;
    }
    h->v[i] = x;
}

/* Moves x down from slot i to where it belongs. */
static void heap_sift_down(bpe_heap *h, size_t i, uint64_t x)
{
    size_t n = h->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && h->v[c + 1] < h->v[c]) c++;
        if (x <= h->v[c]) break;
        h->v[i] = h->v[c];
        i = c;
    }
    h->v[i] = x;
}

static uint64_t heap_pop(bpe_heap *h)
{
    uint64_t top = h->v[0];
    uint64_t last = h->v[--h->n];
    if (h->n > 0) heap_sift_down(h, 0, last);
    return top;
}

/* Orders h->v[0 .. h->n) into a heap in O(n). */
static void heap_build(bpe_heap *h)
{
    for (size_t i = h->n / 2; i-- > 0;) heap_sift_down(h, i, h->v[i]);
}

/* The same merge for long pieces: a linked list of parts and a heap of candidate pairs.
 * A heap entry is stale when its part has since been merged away or grown (then the
 * part's current pair rank differs: a longer byte sequence is a different token). */
static int merge_heap(const text_bpe *bpe, const unsigned char *p, size_t n, bpe_sink *k)
{
    /* Per part (indexed by its first byte): next part, previous part, token, pair rank. */
    uint32_t *next = malloc(n * sizeof *next);
    uint32_t *prev = malloc(n * sizeof *prev);
    uint32_t *tok = malloc(n * sizeof *tok);
    uint32_t *rank = malloc(n * sizeof *rank);
    /* n-1 entries at first; each merge pops at least one and pushes at most two, and
     * there are at most n-1 merges: never more than 2n entries. */
    bpe_heap h = {malloc(2 * n * sizeof *h.v), 0};
    int rc = 0;
    if (!next || !prev || !tok || !rank || !h.v) {
        rc = APIDEX_ENOMEM;
        goto done;
    }
    uint32_t end = (uint32_t)n; /* "no part": the end of the piece */
    for (size_t i = 0; i < n; i++) {
        next[i] = (uint32_t)(i + 1);
        prev[i] = i == 0 ? end : (uint32_t)(i - 1);
        tok[i] = bpe->byte_tok[p[i]];
        rank[i] = i + 1 < n ? bpe->pair[(unsigned)p[i] << 8 | p[i + 1]] : BPE_NONE;
        if (rank[i] != BPE_NONE) h.v[h.n++] = (uint64_t)rank[i] << 32 | i;
    }
    heap_build(&h);
    while (h.n > 0) {
        uint64_t e = heap_pop(&h);
        uint32_t r = (uint32_t)(e >> 32), at = (uint32_t)e;
        if (rank[at] != r) continue; /* stale */
        /* Merge part at with its next part. */
        uint32_t gone = next[at];
        tok[at] = r;
        next[at] = next[gone];
        if (next[at] != end) prev[next[at]] = at;
        rank[gone] = BPE_NONE;
        /* A part ends where the next begins; the last part's next is end == n. */
        rank[at] = next[at] == end ? BPE_NONE : table_lookup(bpe, p + at, next[next[at]] - at);
        if (rank[at] != BPE_NONE) heap_push(&h, (uint64_t)rank[at] << 32 | at);
        if (prev[at] != end) {
            uint32_t pv = prev[at];
            rank[pv] = table_lookup(bpe, p + pv, next[at] - pv);
            if (rank[pv] != BPE_NONE) heap_push(&h, (uint64_t)rank[pv] << 32 | pv);
        }
    }
    for (uint32_t i = 0; i != end; i = next[i]) sink_put(k, tok[i]);
done:
    free(next);
    free(prev);
    free(tok);
    free(rank);
    free(h.v);
    return rc;
}

static int encode_piece(const text_bpe *bpe, const unsigned char *p, size_t n, bpe_sink *k)
{
    uint32_t id = table_lookup(bpe, p, n);
    if (id != BPE_NONE) {
        sink_put(k, id);
        return 0;
    }
    if (n <= BPE_LINEAR_MAX) {
        merge_linear(bpe, p, n, k);
        return 0;
    }
    return merge_heap(bpe, p, n, k);
}

/* ---------------------------------------------------------------- splitting */

/* A compiled split pattern and whether it was JIT-compiled. */
typedef struct bpe_regex {
    const pcre2_code *re;
    bool jit;
} bpe_regex;

static int encode_ordinary(const text_bpe *bpe, bpe_regex rx, const char *s, size_t n,
                           pcre2_match_data *md, bpe_sink *k)
{
    size_t pos = 0;
    while (pos < n && !k->failed) {
        /* The text is valid UTF-8 by now (see encode_into): skip PCRE2's own check. */
        int rc = rx.jit ? pcre2_jit_match(rx.re, (PCRE2_SPTR)s, n, pos, 0, md, bpe->limits)
                        : PCRE2_ERROR_JIT_STACKLIMIT;
        /* No JIT, or its stack ran out: the interpreter keeps its frames on the heap. */
        if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
            rc = pcre2_match(rx.re, (PCRE2_SPTR)s, n, pos, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, md,
                             bpe->limits);
        if (rc == PCRE2_ERROR_NOMATCH) break; /* cannot happen: every character matches */
        if (rc < 0) return rc == PCRE2_ERROR_NOMEMORY ? APIDEX_ENOMEM : APIDEX_ELIMIT;
        const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        if (ov[1] <= ov[0]) { /* an empty match cannot happen either; never loop on one */
            pos++;
            while (pos < n && ((unsigned char)s[pos] & 0xC0) == 0x80) pos++;
            continue;
        }
        int erc = encode_piece(bpe, (const unsigned char *)s + ov[0], ov[1] - ov[0], k);
        if (erc != 0) return erc;
        pos = ov[1];
    }
    return k->failed ? APIDEX_ENOMEM : 0;
}

/* ---------------------------------------------------------------- UTF-8 */

/* Length of the valid UTF-8 prefix of s[0..n) (n when all of it is valid). */
static size_t utf8_valid_prefix(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        /* ASCII runs, eight bytes at a time. */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ull) break;
            i += 8;
        }
        if (i >= n) break;
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t need;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF)
            need = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F; /* no surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else
            return i;
        if (need >= n - i) return i; /* truncated at the end */
        if (s[i + 1] < lo || s[i + 1] > hi) return i;
        for (size_t j = 2; j <= need; j++)
            if (s[i + j] < 0x80 || s[i + j] > 0xBF) return i;
        i += need + 1;
    }
    return n;
}

/* Decodes s[0..n) as the WHATWG UTF-8 decoder does (each maximal invalid subsequence
 * becomes U+FFFD) and writes the result back as UTF-8. Output at most 3n bytes. */
static char *utf8_sanitize(const unsigned char *s, size_t n, size_t *out_len)
{
    if (n > SIZE_MAX / 3) return NULL;
    char *out = malloc(3 * n + 1);
    if (!out) return NULL;
    static const char repl[3] = {(char)0xEF, (char)0xBF, (char)0xBD};
    size_t o = 0, i = 0;
    while (i < n) {
        size_t ok = utf8_valid_prefix(s + i, n - i);
        memcpy(out + o, s + i, ok);
        o += ok;
        i += ok;
        if (i >= n) break;
        /* s[i] starts an invalid sequence: consume its maximal subpart. */
        unsigned char c = s[i];
        size_t need = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF)
            need = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        }
        i++;
        for (size_t j = 0; j < need && i < n; j++) {
            unsigned char b = s[i];
            if (b < lo || b > hi) break;
            lo = 0x80;
            hi = 0xBF;
            i++;
        }
        memcpy(out + o, repl, 3);
        o += 3;
    }
    out[o] = '\0';
    *out_len = o;
    return out;
}

/* ---------------------------------------------------------------- encoding */

/* The next special token in s[from..n): its index in text_cl100k_specials and position. */
static bool find_special(const char *s, size_t n, size_t from, size_t *at, size_t *which)
{
    while (from < n) {
        const char *lt = memchr(s + from, '<', n - from);
        if (!lt) return false;
        size_t i = (size_t)(lt - s);
        for (size_t j = 0; j < text_cl100k_n_specials; j++) {
            const text_bpe_special *sp = &text_cl100k_specials[j];
            if (sp->len <= n - i && memcmp(s + i, sp->text, sp->len) == 0) {
                *at = i;
                *which = j;
                return true;
            }
        }
        from = i + 1;
    }
    return false;
}

static int encode_into(const text_bpe *bpe, const char *s, size_t n, bool allow_special,
                       bpe_sink *k)
{
    if (n > BPE_INPUT_MAX) return APIDEX_ELIMIT;
    char *clean = NULL;
    if (utf8_valid_prefix((const unsigned char *)s, n) != n) {
        clean = utf8_sanitize((const unsigned char *)s, n, &n);
        if (!clean) return APIDEX_ENOMEM;
        if (n > BPE_INPUT_MAX) {
            free(clean);
            return APIDEX_ELIMIT;
        }
        s = clean;
    }
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    if (!md) {
        free(clean);
        return APIDEX_ENOMEM;
    }
    bpe_regex rx = {bpe->re_fast, bpe->jit_fast};
    if (has_extra_code_point((const unsigned char *)s, n))
        rx = (bpe_regex){bpe->re_exact, bpe->jit_exact};
    int rc = 0;
    size_t pos = 0;
    while (rc == 0) {
        size_t at = n, which = 0;
        bool special = allow_special && find_special(s, n, pos, &at, &which);
        rc = encode_ordinary(bpe, rx, s + pos, at - pos, md, k);
        if (rc != 0 || !special) break;
        sink_put(k, text_cl100k_specials[which].id);
        pos = at + text_cl100k_specials[which].len;
    }
    if (rc == 0 && k->failed) rc = APIDEX_ENOMEM;
    pcre2_match_data_free(md);
    free(clean);
    return rc;
}

int text_bpe_encode(const text_bpe *bpe, const char *s, size_t n, bool allow_special,
                    uint32_t **ids, size_t *n_ids)
{
    *ids = NULL;
    *n_ids = 0;
    if (!bpe || (!s && n > 0)) return APIDEX_EINVAL;
    /* Tokens average ~4 bytes; start there and grow by doubling. */
    bpe_sink k = {NULL, 0, 0, false, false};
    k.cap = n / 4 + 16;
    k.ids = malloc(k.cap * sizeof *k.ids);
    if (!k.ids) return APIDEX_ENOMEM;
    int rc = n > 0 ? encode_into(bpe, s, n, allow_special, &k) : 0;
    if (rc != 0) {
        free(k.ids);
        return rc;
    }
    *ids = k.ids;
    *n_ids = k.n;
    return 0;
}

size_t text_bpe_count(const text_bpe *bpe, const char *s, size_t n)
{
    if (!bpe || !s || n == 0) return 0;
    bpe_sink k = {NULL, 0, 0, true, false};
    /* On failure (out of memory) the byte count is a safe upper bound: no token is empty. */
    if (encode_into(bpe, s, n, false, &k) != 0) return n;
    return k.n;
}

size_t text_bpe_decode_token(const text_bpe *bpe, uint32_t id, char *out, size_t out_cap)
{
    if (!bpe) return 0;
    const void *src = NULL;
    size_t len = 0;
    if (id < bpe->n_ranks) {
        src = text_cl100k_blob + bpe->offsets[id];
        len = token_len(bpe->offsets[id]);
    } else {
        for (size_t j = 0; j < text_cl100k_n_specials; j++)
            if (text_cl100k_specials[j].id == id) {
                src = text_cl100k_specials[j].text;
                len = text_cl100k_specials[j].len;
            }
    }
    if (!src) return 0;
    if (out && out_cap > 0) memcpy(out, src, len < out_cap ? len : out_cap);
    return len;
}
