/*
 * WordPiece parity: our ids against the Hugging Face tokenizer of @huggingface/transformers
 * (run through node, tests/parity/wordpiece_ref.mjs) on >= 10,000 strings drawn from
 * ../shared/corpus (descriptions, paths, whole operations, other strings) plus mutated ones
 * (non-ASCII scripts, emoji, controls, long digit and whitespace runs, literal special tokens).
 */
#include "testutil.h"

#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utf8proc.h>

#define SAMPLE_MIN  10000
#define MAX_TEXT    6000 /* bytes per string: enough for > 512 tokens */
#define MAX_LEN     512
#define WALK_NODES  2000000
#define SHOW_MISSES 5
#define LONG_TEXTS  8

/* ---------------------------------------------------------------- deterministic randomness */

static uint64_t rng_state = 0x5eed1234abcdULL;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t rng_below(size_t n)
{
    return n ? (size_t)(rng_next() % n) : 0;
}

/* ---------------------------------------------------------------- sample pools */

typedef struct pool {
    char **items;
    size_t n, cap, seen;
} pool;

/* Reservoir sampling keeps pools uniform over the whole corpus and deterministic. */
static bool pool_wants(pool *p, size_t *slot)
{
    p->seen++;
    if (p->n < p->cap) {
        *slot = p->n++;
        return true;
    }
    size_t j = rng_below(p->seen);
    if (j >= p->cap) return false;
    *slot = j;
    return true;
}

/* Cuts at most MAX_TEXT bytes without splitting a UTF-8 sequence. */
static char *clip_dup(const char *s, size_t n)
{
    if (n > MAX_TEXT) {
        n = MAX_TEXT;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80) n--;
    }
    char *d = malloc(n + 1);
    assert_non_null(d);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static void pool_put(pool *p, size_t slot, char *s)
{
    free(p->items[slot]); /* NULL for a fresh slot, the evicted string otherwise */
    p->items[slot] = s;
}

static void pool_offer(pool *p, const char *s, size_t n)
{
    size_t slot;
    if (n == 0 || !pool_wants(p, &slot)) return;
    pool_put(p, slot, clip_dup(s, n));
}

static void pool_init(pool *p, size_t cap)
{
    p->items = calloc(cap, sizeof *p->items);
    assert_non_null(p->items);
    p->cap = cap;
    p->n = p->seen = 0;
}

static void pool_free(pool *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->items[i]);
    free(p->items);
}

typedef struct pools {
    pool desc, path, op, misc;
} pools;

static bool is_method(const char *k)
{
    static const char *const m[] = {"get",   "put",     "post", "delete",
                                    "patch", "options", "head", "trace"};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (strcmp(k, m[i]) == 0) return true;
    return false;
}

static void offer_operation(pools *ps, const jt_node *op)
{
    size_t slot;
    if (!pool_wants(&ps->op, &slot)) return;
    core_buf b;
    core_buf_init(&b, 0);
    /* Alternate compact and pretty JSON: the latter brings newlines and space runs. */
    assert_int_equal(jt_write_json(&b, op, (ps->op.seen & 1) ? -1 : 2), 0);
    pool_put(&ps->op, slot, clip_dup(b.data, b.len));
    core_buf_free(&b);
}

/* Walks a spec tree without recursion, offering strings to the pools. */
static void collect_spec(pools *ps, const jt_node *root)
{
    const jt_node *paths = jt_get(root, "paths");
    if (jt_is(paths, JT_OBJECT)) {
        for (size_t i = 0; i < paths->len; i++) {
            const jt_member *pm = &paths->u.members[i];
            pool_offer(&ps->path, pm->key, pm->key_len);
            const jt_node *item = pm->value;
            if (!jt_is(item, JT_OBJECT)) continue;
            for (size_t k = 0; k < item->len; k++)
                if (is_method(item->u.members[k].key) && jt_is(item->u.members[k].value, JT_OBJECT))
                    offer_operation(ps, item->u.members[k].value);
        }
    }
    typedef struct frame {
        const jt_node *node;
        const char *key;
    } frame;
    size_t cap = 1024, top = 0, visited = 0;
    frame *stack = malloc(cap * sizeof *stack);
    assert_non_null(stack);
    stack[top++] = (frame){root, ""};
    while (top > 0 && visited++ < WALK_NODES) {
        frame f = stack[--top];
        const jt_node *n = f.node;
        if (!n) continue;
        if (n->type == JT_STRING) {
            bool prose = strcmp(f.key, "description") == 0 || strcmp(f.key, "summary") == 0 ||
                         strcmp(f.key, "title") == 0;
            pool_offer(prose ? &ps->desc : &ps->misc, n->u.s, n->len);
            continue;
        }
        if (n->type != JT_OBJECT && n->type != JT_ARRAY) continue;
        if (top + n->len > cap) {
            while (top + n->len > cap) cap *= 2;
            stack = realloc(stack, cap * sizeof *stack);
            assert_non_null(stack);
        }
        for (size_t i = 0; i < n->len; i++) {
            if (n->type == JT_OBJECT) {
                stack[top++] = (frame){n->u.members[i].value, n->u.members[i].key};
                /* Keys are text too (property names, status codes, media types). */
                if (rng_below(8) == 0)
                    pool_offer(&ps->misc, n->u.members[i].key, n->u.members[i].key_len);
            } else {
                stack[top++] = (frame){n->u.items[i], f.key};
            }
        }
    }
    free(stack);
}

/* ---------------------------------------------------------------- mutations */

static const char *const exotic[] = {
    "café naïve Ångström résumé",
    "e\xcc\x81t\xc3\xa9",
    "ΟΔΟΣ ΣΑΣ ΑΣ'Β ΑΣ. Σ\xcc\x81 ΌΣΟΣ",
    "ПРИВЕТ мир Ёлка",
    "中文字符测试",
    "𠀀𠮷𡈽",
    "ひらがな カタカナ",
    "한국어 테스트",
    "مرحبا بالعالم",
    "שלום",
    "हिन्दी भाषा",
    "ภาษาไทย",
    "👍🏽",
    "👨‍👩‍👧",
    "🇫🇷🇩🇪",
    "❤️",
    "1️⃣",
    "∑∫≈≠ ±×÷",
    "ＡＢＣ１２３",
    "ﬁﬂ",
    "Straße",
    "İSTANBUL ıi",
    "ǅǄǆ",
    "ⅫⅪ ⓐⒶ",
    "🄰🅐",
    "x² H₂O",
    "soft\xc2\xadhyphen",
    "zero\xe2\x80\x8bwidth",
    "zw\xe2\x80\x8cnj",
    "\357\273\277bom", /* octal: a hex escape would eat 'b' */
    "nb\xc2\xa0sp",
    "ideo\xe3\x80\x80space",
    "line\xe2\x80\xa8sep",
    "nel\xc2\x85",
    "ctl\x01\x7f\x1b",
    "tab\there",
    "cr\r\nlf",
    "repl\xef\xbf\xbd",
    "pua\xee\x80\x80",
    "nonchar\xef\xbf\xbf",
    "[SEP]",
    "[MASK] [UNK]",
    "[cls]",
    "[CLS][PAD]",
    "##ing",
    "https://example.com/a?b=c&d=e#f",
    "!!!???...",
    "«quoted» „low“ ‹x›",
    "— – ‐ … ‧ ·",
    "ʰʲ ˈstress",
    "Ω℃№™",
    "ＡＰＩキー",
    "½ ¾ ⅓",
    "∀x∈ℝ",
    "ﷺ",
    "ᾈ ᾼ ῼ",
    "ǰ ΐ",
    "Ꭰ ꭰ",
    "𝐀𝐁𝐂 𝔸",
    "ꙮ",
    "Ⴀ ⴀ",
    "ß ẞ",
    "ﬀ ﬃ",
    "Ǳ ǲ",
};

static void append(core_buf *b, const char *s)
{
    assert_int_equal(core_buf_puts(b, s), 0);
}

static void append_cp(core_buf *b, uint32_t cp)
{
    uint8_t u[4];
    utf8proc_ssize_t k = utf8proc_encode_char((utf8proc_int32_t)cp, u);
    assert_int_equal(core_buf_append(b, u, (size_t)k), 0);
}

/* Random code points from long-assigned blocks (Unicode versions agree on them). */
static void append_random_cps(core_buf *b, size_t count)
{
    static const uint32_t ranges[][2] = {
        {0x20, 0x7e},     {0xa0, 0x17f},    {0x300, 0x36f},     {0x391, 0x3a1},
        {0x3a3, 0x3c9},   {0x400, 0x44f},   {0x2010, 0x2027},   {0x3000, 0x303f},
        {0x4e00, 0x4fff}, {0xac00, 0xad00}, {0x1f600, 0x1f64f}, {0x20000, 0x20100},
        {0x30a0, 0x30ff}, {0x600, 0x64a},   {0x900, 0x939},     {0xff01, 0xff5e},
    };
    for (size_t i = 0; i < count; i++) {
        const uint32_t *r = ranges[rng_below(sizeof ranges / sizeof ranges[0])];
        append_cp(b, r[0] + (uint32_t)rng_below(r[1] - r[0] + 1));
    }
}

static void append_snippet(core_buf *b)
{
    switch (rng_below(6)) {
    case 0: { /* long digit run */
        size_t n = 20 + rng_below(400);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(core_buf_putc(b, (char)('0' + rng_below(10))), 0);
        break;
    }
    case 1: { /* whitespace run */
        static const char *const ws[] = {
            " ", "\t", "\n", "\r\n", "\xc2\xa0", "\xe3\x80\x80", "\xe2\x80\x83", "\x0b", "\x0c"};
        size_t n = 2 + rng_below(200);
        for (size_t i = 0; i < n; i++) append(b, ws[rng_below(sizeof ws / sizeof ws[0])]);
        break;
    }
    case 2: { /* one long word around the 100-character limit */
        size_t n = 95 + rng_below(12);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(core_buf_putc(b, (char)('a' + rng_below(3))), 0);
        break;
    }
    case 3:
        append_random_cps(b, 3 + rng_below(40));
        break;
    default:
        append(b, exotic[rng_below(sizeof exotic / sizeof exotic[0])]);
        break;
    }
}

/* A corpus string with snippets spliced in at character boundaries (and maybe upper-cased). */
static char *mutate(const char *src)
{
    core_buf b;
    core_buf_init(&b, 0);
    size_t n = strlen(src);
    size_t cuts = 1 + rng_below(3);
    size_t pos = 0;
    bool upper = rng_below(4) == 0;
    for (size_t c = 0; c <= cuts; c++) {
        size_t end = c == cuts ? n : pos + rng_below(n - pos + 1);
        while (end < n && ((unsigned char)src[end] & 0xc0) == 0x80) end++;
        for (size_t i = pos; i < end; i++) {
            char ch = src[i];
            if (upper && ch >= 'a' && ch <= 'z') ch = (char)(ch - 32);
            assert_int_equal(core_buf_putc(&b, ch), 0);
        }
        pos = end;
        if (c < cuts) append_snippet(&b);
    }
    char *out = clip_dup(b.data, b.len);
    core_buf_free(&b);
    return out;
}

/* A text of 40-100 KB glued from sample strings: long enough to be encoded in chunks. When
 * no_breaks, ASCII separators become letters, so chunks must be cut inside words. */
static char *long_text(char *const *texts, size_t n_texts, bool no_breaks)
{
    core_buf b;
    core_buf_init(&b, 0);
    size_t want = 40000 + rng_below(60000);
    while (b.len < want) {
        append(&b, texts[rng_below(n_texts)]);
        append(&b, no_breaks ? "'\xce\xa3\xcc\x81." : " ");
    }
    if (no_breaks)
        for (size_t i = 0; i < b.len; i++)
            if (strchr(" \t\n\r,;!?/(){}<>\"#&*+=|~@%-_$[]", b.data[i])) b.data[i] = 'q';
    return core_buf_steal(&b, NULL);
}

/* ---------------------------------------------------------------- the sample */

typedef struct sample {
    char **texts;
    size_t n, cap;
} sample;

static void sample_add(sample *s, char *text)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->texts = realloc(s->texts, s->cap * sizeof *s->texts);
        assert_non_null(s->texts);
    }
    s->texts[s->n++] = text;
}

static void build_sample(const char *shared, sample *out, size_t target)
{
    pools ps;
    pool_init(&ps.desc, target * 40 / 100);
    pool_init(&ps.path, target * 15 / 100);
    pool_init(&ps.op, target * 12 / 100);
    pool_init(&ps.misc, target * 10 / 100);
    char *manifest_path = tu_path(shared, "corpus/MANIFEST.json");
    jt_doc *manifest = NULL;
    apidex_error err = {0};
    assert_int_equal(jt_doc_load(manifest_path, NULL, &manifest, &err), 0);
    size_t specs = 0;
    for (size_t i = 0; i < manifest->root->len; i++) {
        const char *root = jt_get_str(jt_at(manifest->root, i), "root");
        if (!root) continue;
        char rel[1024];
        snprintf(rel, sizeof rel, "corpus/specs/%s", root);
        char *path = tu_path(shared, rel);
        jt_doc *doc = NULL;
        apidex_error derr = {0};
        if (jt_doc_load(path, NULL, &doc, &derr) == 0) {
            collect_spec(&ps, doc->root);
            specs++;
        }
        jt_doc_free(doc);
        free(path);
    }
    jt_doc_free(manifest);
    free(manifest_path);
    assert_true(specs >= 30);
    pool *all[] = {&ps.desc, &ps.path, &ps.op, &ps.misc};
    print_message("sample: %zu specs; %zu descriptions, %zu paths, %zu operations, %zu other "
                  "strings",
                  specs, ps.desc.n, ps.path.n, ps.op.n, ps.misc.n);
    for (size_t k = 0; k < 4; k++) {
        for (size_t i = 0; i < all[k]->n; i++) sample_add(out, all[k]->items[i]);
        all[k]->n = 0;
    }
    /* Fixed edge cases, then mutated descriptions up to the target size. */
    for (size_t i = 0; i < sizeof exotic / sizeof exotic[0]; i++)
        sample_add(out, strdup(exotic[i]));
    sample_add(out, strdup(""));
    size_t base = out->n;
    for (size_t i = 0; i < LONG_TEXTS; i++) sample_add(out, long_text(out->texts, base, i & 1));
    while (out->n < target) sample_add(out, mutate(out->texts[rng_below(base)]));
    print_message(", %zu fixed edge cases, %d long texts (40-100 KB), %zu mutated\n",
                  sizeof exotic / sizeof exotic[0] + 1, LONG_TEXTS, out->n - base - LONG_TEXTS);
    for (size_t k = 0; k < 4; k++) pool_free(all[k]);
}

static void write_jsonl(const char *path, const sample *s)
{
    core_buf b;
    core_buf_init(&b, 0);
    for (size_t i = 0; i < s->n; i++) {
        assert_int_equal(core_buf_json_str(&b, s->texts[i], strlen(s->texts[i])), 0);
        assert_int_equal(core_buf_putc(&b, '\n'), 0);
    }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
    fclose(f);
    core_buf_free(&b);
}

/* Parses one line of space-separated ids. */
static size_t parse_ids(char *line, uint32_t **ids)
{
    size_t n = 0, cap = 64;
    *ids = malloc(cap * sizeof **ids);
    assert_non_null(*ids);
    char *p = line;
    while (*p) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p) break;
        if (n == cap) {
            cap *= 2;
            *ids = realloc(*ids, cap * sizeof **ids);
            assert_non_null(*ids);
        }
        (*ids)[n++] = (uint32_t)v;
        p = end;
    }
    return n;
}

static bool same_ids(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

static void show_miss(const text_wordpiece *wp, const char *what, const char *text,
                      const uint32_t *ref, size_t nref, const uint32_t *got, size_t ngot)
{
    size_t d = 0;
    while (d < nref && d < ngot && ref[d] == got[d]) d++;
    print_message("MISMATCH (%s) at id %zu of %zu/%zu: %.200s\n", what, d, nref, ngot, text);
    for (size_t k = d; k < d + 8 && k < nref; k++)
        print_message("  ref %u %s\n", ref[k], text_wordpiece_token(wp, ref[k]));
    for (size_t k = d; k < d + 8 && k < ngot; k++)
        print_message("  got %u %s\n", got[k], text_wordpiece_token(wp, got[k]));
}

/* Encodes text with every variant and compares each with what the reference implies. */
static size_t check_one(const text_wordpiece *wp, const char *name, const char *text,
                        const uint32_t *ref, size_t nref, size_t *shown)
{
    size_t misses = 0;
    size_t len = strlen(text);
    uint32_t *got;
    size_t ngot;
    bool trunc;
    /* 1. [CLS] ... [SEP], no limit: exactly the reference. */
    assert_int_equal(text_wordpiece_encode(wp, text, len, true, 0, &got, &ngot, &trunc), 0);
    if (!same_ids(ref, nref, got, ngot) || trunc) {
        if ((*shown)++ < SHOW_MISSES) show_miss(wp, name, text, ref, nref, got, ngot);
        misses++;
    }
    free(got);
    /* 2. Truncated to 512 with specials: the reference's first 511 ids, then [SEP]. */
    assert_int_equal(text_wordpiece_encode(wp, text, len, true, MAX_LEN, &got, &ngot, &trunc), 0);
    bool over = nref > MAX_LEN;
    bool ok = trunc == over && ngot == (over ? MAX_LEN : nref) && ngot >= 2 &&
              memcmp(got, ref, (ngot - 1) * sizeof *got) == 0 && got[ngot - 1] == ref[nref - 1];
    if (!ok) {
        if ((*shown)++ < SHOW_MISSES) show_miss(wp, "truncated", text, ref, nref, got, ngot);
        misses++;
    }
    free(got);
    /* 3. No specials, truncated to 512: the reference without [CLS]/[SEP], cut. */
    assert_int_equal(text_wordpiece_encode(wp, text, len, false, MAX_LEN, &got, &ngot, &trunc), 0);
    size_t inner = nref - 2;
    size_t want = inner > MAX_LEN ? MAX_LEN : inner;
    if (trunc != (inner > MAX_LEN) || !same_ids(ref + 1, want, got, ngot)) {
        if ((*shown)++ < SHOW_MISSES) show_miss(wp, "no specials", text, ref + 1, want, got, ngot);
        misses++;
    }
    free(got);
    return misses;
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_parity_with_transformers_js(void **state)
{
    (void)state;
    TU_REQUIRE_SHARED();
    const char *shared = tu_shared_dir();
    const char *src = tu_source_dir();
    char *node_dir = tu_path(src, "tools/node");
    char *pkg = tu_path(node_dir, "node_modules/@huggingface/transformers/package.json");
    if (!file_exists(pkg) || system("node --version >/dev/null 2>&1") != 0) {
        print_message("node or @huggingface/transformers missing (run scripts/deps.sh): skipped\n");
        free(pkg);
        free(node_dir);
        skip();
    }
    char *model_dir = tu_path(shared, "models/bge-small-en-v1.5");
    char *tok_json = tu_path(model_dir, "tokenizer.json");
    char *vocab_txt = tu_path(model_dir, "vocab.txt");
    char *script = tu_path(src, "tests/parity/wordpiece_ref.mjs");

    double t0 = core_now();
    sample s = {0};
    build_sample(shared, &s, SAMPLE_MIN);
    assert_true(s.n >= SAMPLE_MIN);
    double t_sample = core_now() - t0;

    char *dir = tu_tempdir();
    char *in_path = tu_path(dir, "in.jsonl");
    char *out_path = tu_path(dir, "ref.txt");
    write_jsonl(in_path, &s);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "node '%s' '%s' '%s' '%s' '%s'", script, node_dir, model_dir, in_path,
             out_path);
    t0 = core_now();
    assert_int_equal(system(cmd), 0);
    double t_node = core_now() - t0;

    apidex_error err = {0};
    text_wordpiece *wp_json = NULL, *wp_txt = NULL;
    assert_int_equal(text_wordpiece_open(tok_json, &wp_json, &err), 0);
    assert_int_equal(text_wordpiece_open(vocab_txt, &wp_txt, &err), 0);

    FILE *f = fopen(out_path, "rb");
    assert_non_null(f);
    char *line = NULL;
    size_t line_cap = 0;
    size_t misses_json = 0, misses_txt = 0, shown = 0, n_long = 0, total_ids = 0;
    t0 = core_now();
    for (size_t i = 0; i < s.n; i++) {
        assert_true(getline(&line, &line_cap, f) > 0);
        uint32_t *ref;
        size_t nref = parse_ids(line, &ref);
        assert_true(nref >= 2);
        total_ids += nref;
        if (nref > MAX_LEN) n_long++;
        misses_json += check_one(wp_json, "tokenizer.json", s.texts[i], ref, nref, &shown) != 0;
        misses_txt += check_one(wp_txt, "vocab.txt", s.texts[i], ref, nref, &shown) != 0;
        free(ref);
    }
    double t_ours = core_now() - t0;
    assert_int_equal(getline(&line, &line_cap, f), -1);
    free(line);
    fclose(f);

    print_message("wordpiece parity: %zu strings (%zu over %d tokens, %zu reference ids); "
                  "mismatches: tokenizer.json %zu, vocab.txt %zu; sample %.1fs, node %.1fs, "
                  "ours %.2fs (x6 encodes)\n",
                  s.n, n_long, MAX_LEN, total_ids, misses_json, misses_txt, t_sample, t_node,
                  t_ours);
    assert_true(n_long > 100);
    assert_int_equal(misses_json, 0);
    assert_int_equal(misses_txt, 0);

    text_wordpiece_close(wp_json);
    text_wordpiece_close(wp_txt);
    for (size_t i = 0; i < s.n; i++) free(s.texts[i]);
    free(s.texts);
    tu_rmtree(dir);
    free(dir);
    free(in_path);
    free(out_path);
    free(script);
    free(vocab_txt);
    free(tok_json);
    free(model_dir);
    free(pkg);
    free(node_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parity_with_transformers_js),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
