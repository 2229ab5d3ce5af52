/* Parity of the cl100k BPE with the npm package tiktoken: tools/node/bpe_parity.mjs
 * draws 10,000+ strings from ../shared/corpus (plus a code point sweep) and writes
 * tiktoken's ids; every one must equal text_bpe_encode's. Needs node and `make deps`. */
#include "testutil.h"

#include "text/text.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

#define MIN_CASES 10000

static bool file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Runs node on the parity script; returns its exit status (or -1). */
static int run_node(const char *script, const char *corpus, const char *out, bool sweep)
{
    char *argv[] = {"node",      (char *)script, "--corpus", (char *)corpus,           "--out",
                    (char *)out, "--count",      "12000",    sweep ? "--sweep" : NULL, NULL};
    pid_t pid;
    if (posix_spawnp(&pid, "node", NULL, NULL, argv, environ) != 0) return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Prints s[0..n) with escapes, at most 240 bytes. */
static void print_escaped(const char *s, size_t n)
{
    size_t shown = n < 240 ? n : 240;
    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n')
            print_message("\\n");
        else if (c == '\r')
            print_message("\\r");
        else if (c == '\t')
            print_message("\\t");
        else if (c < 0x20 || c == 0x7f)
            print_message("\\x%02x", c);
        else
            print_message("%c", c);
    }
    if (shown < n) print_message("... (%zu bytes)", n);
}

typedef struct reader {
    const unsigned char *p, *end;
} reader;

static bool take(reader *r, size_t n, const unsigned char **out)
{
    if ((size_t)(r->end - r->p) < n) return false;
    *out = r->p;
    r->p += n;
    return true;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_parity_with_tiktoken(void **state)
{
    (void)state;
    TU_REQUIRE_SHARED();
    const char *src = tu_source_dir();
    char *script = tu_path(src, "tools/node/bpe_parity.mjs");
    char *pkg = tu_path(src, "tools/node/node_modules/tiktoken/package.json");
    char *corpus = tu_path(tu_shared_dir(), "corpus");
    if (!file_exists(pkg)) fail_msg("%s is missing: run `make deps`", pkg);

    char *dir = tu_tempdir();
    char *out = tu_path(dir, "parity.bin");
    /* The sweep checks classification, not memory safety: the sanitizer build skips it. */
    bool sweep = getenv("APIDEX_SANITIZED") == NULL;
    int rc = run_node(script, corpus, out, sweep);
    if (rc != 0) fail_msg("node %s failed (exit %d): is node installed (make deps)?", script, rc);

    char *data = NULL;
    size_t len = 0;
    apidex_error err;
    assert_int_equal(core_file_read(out, (size_t)1 << 30, &data, &len, &err), 0);
    reader r = {(const unsigned char *)data, (const unsigned char *)data + len};
    const unsigned char *p = NULL;
    assert_true(take(&r, 8, &p) && memcmp(p, "APXBPE1\n", 8) == 0);

    const text_bpe *bpe = text_bpe_default();
    assert_non_null(bpe);
    size_t cases = 0, corpus_cases = 0, bad = 0;
    while (r.p < r.end) {
        const unsigned char *kind = NULL, *flags = NULL, *bytes = NULL, *count = NULL, *want = NULL;
        assert_true(take(&r, 1, &p));
        size_t kind_len = p[0];
        assert_true(take(&r, kind_len, &kind) && take(&r, 1, &flags) && take(&r, 4, &p));
        size_t n = le32(p);
        assert_true(take(&r, n, &bytes) && take(&r, 4, &count));
        size_t n_want = le32(count);
        assert_true(take(&r, 4 * n_want, &want));

        bool special = flags[0] & 1;
        uint32_t *ids = NULL;
        size_t n_ids = 0;
        assert_int_equal(text_bpe_encode(bpe, (const char *)bytes, n, special, &ids, &n_ids), 0);
        size_t diff = 0;
        while (diff < n_ids && diff < n_want && ids[diff] == le32(want + 4 * diff)) diff++;
        bool same = n_ids == n_want && diff == n_ids;
        if (same && !special && text_bpe_count(bpe, (const char *)bytes, n) != n_ids) same = false;
        if (!same && ++bad <= 10) {
            print_message("mismatch in case %zu (%.*s, %zu bytes) at token %zu: ", cases,
                          (int)kind_len, (const char *)kind, n, diff);
            print_message("ours %u, tiktoken %u\n  string: ", diff < n_ids ? ids[diff] : 0,
                          diff < n_want ? le32(want + 4 * diff) : 0);
            print_escaped((const char *)bytes, n);
            print_message("\n");
        }
        free(ids);
        cases++;
        if (!(kind_len >= 5 && memcmp(kind, "sweep", 5) == 0)) corpus_cases++;
    }
    print_message("cl100k parity: %zu cases (%zu from the corpus), %zu mismatches\n", cases,
                  corpus_cases, bad);
    assert_true(corpus_cases >= MIN_CASES);
    assert_int_equal(bad, 0);

    free(data);
    tu_rmtree(dir);
    free(dir);
    free(out);
    free(corpus);
    free(pkg);
    free(script);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_parity_with_tiktoken)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
