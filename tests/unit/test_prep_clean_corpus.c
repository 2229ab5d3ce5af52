/*
 * The two readers of HTML and markdown in descriptions, prep's filters (prep/prep_text.c, what
 * the index stores) and the plain text of answers (text/plain.c), run on every string of real
 * documents: the digest of their outputs (and of prep's report) must not move when their
 * shared core changes. tests/data always; ../shared's corpus when it is there.
 * APIDEX_CLEAN_DUMP=FILE writes every input and output to FILE, for a diff of two builds.
 */
#include "testutil.h"

#include "prep/prep.h"
#include "text/text.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct digest {
    uint64_t h;
    size_t strings;
    FILE *dump;
} digest;

static void mix(digest *d, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        d->h ^= b[i];
        d->h *= 0x100000001b3ull;
    }
}

static void mix_out(digest *d, const char *tag, const core_buf *b)
{
    mix(d, tag, strlen(tag) + 1);
    mix(d, b->data ? b->data : "", b->len);
    mix(d, "", 1);
    if (d->dump) {
        fprintf(d->dump, "--%s\n", tag);
        fwrite(b->data ? b->data : "", 1, b->len, d->dump);
        fputc('\n', d->dump);
    }
}

static const unsigned prep_sets[] = {
    PREP_HTML,
    PREP_MARKDOWN,
    PREP_BASE64 | PREP_HTML | PREP_MARKDOWN | PREP_URLS,
    PREP_HTML | PREP_MARKDOWN | PREP_URLS_ALL,
};
static const unsigned plain_flags[] = {0, TEXT_PLAIN_ONE_LINE, TEXT_PLAIN_KEEP_LINES};

static void clean_one(digest *d, const char *s, size_t n)
{
    d->strings++;
    if (d->dump) {
        fputs("==IN\n", d->dump);
        fwrite(s, 1, n, d->dump);
        fputc('\n', d->dump);
    }
    core_buf b;
    core_buf_init(&b, 0);
    for (size_t i = 0; i < sizeof prep_sets / sizeof prep_sets[0]; i++) {
        prep_options opt = {.filters = prep_sets[i]};
        prep_report rep;
        memset(&rep, 0, sizeof rep);
        core_buf_reset(&b);
        assert_int_equal(prep_text(&opt, s, n, &b, &rep), 0);
        mix_out(d, "prep", &b);
        mix(d, rep.count, sizeof rep.count);
        mix(d, rep.bytes, sizeof rep.bytes);
    }
    for (size_t i = 0; i < sizeof plain_flags / sizeof plain_flags[0]; i++) {
        core_buf_reset(&b);
        assert_int_equal(text_plain(s, n, plain_flags[i], &b), 0);
        mix_out(d, "plain", &b);
    }
    core_buf_free(&b);
}

/* Every string of the tree (keys too: they are text in Postman collections). */
static void clean_tree(digest *d, const jt_node *n, unsigned depth)
{
    if (!n || depth > 200) return;
    if (n->type == JT_STRING) {
        clean_one(d, n->u.s, n->len);
    } else if (n->type == JT_ARRAY) {
        for (uint32_t i = 0; i < n->len; i++) clean_tree(d, n->u.items[i], depth + 1);
    } else if (n->type == JT_OBJECT) {
        for (uint32_t i = 0; i < n->len; i++) clean_tree(d, n->u.members[i].value, depth + 1);
    }
}

static bool spec_file(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && !strcmp(name + n - 5, ".json")) || (n > 5 && !strcmp(name + n - 5, ".yaml")) ||
           (n > 4 && !strcmp(name + n - 4, ".yml"));
}

/* The documents under dir, in name order (the digest depends on it). */
static void clean_dir(digest *d, const char *dir)
{
    struct dirent **names = NULL;
    int k = scandir(dir, &names, NULL, alphasort);
    for (int i = 0; i < k; i++) {
        const char *name = names[i]->d_name;
        char *path = name[0] == '.' ? NULL : tu_path(dir, name);
        DIR *sub = path ? opendir(path) : NULL;
        if (sub) {
            closedir(sub);
            clean_dir(d, path);
        } else if (path && spec_file(name)) {
            jt_doc *doc = NULL;
            apidex_error err;
            if (!jt_doc_load(path, NULL, &doc, &err)) {
                if (d->dump) fprintf(d->dump, "==FILE %s\n", path);
                clean_tree(d, doc->root, 0);
            }
            jt_doc_free(doc);
        }
        free(path);
        free(names[i]);
    }
    free(names);
}

/* The digest of dir's documents, checked against the line `label HEX COUNT` of the expected
   file (tests/data/prep_clean_digests.txt). */
static void check_dir(const char *dir, const char *label)
{
    digest d = {.h = 0xcbf29ce484222325ull};
    const char *dump = getenv("APIDEX_CLEAN_DUMP");
    if (dump && *dump) {
        char p[4096];
        snprintf(p, sizeof p, "%s.%s", dump, label[0] == 't' ? "repo" : label);
        d.dump = fopen(p, "w");
    }
    clean_dir(&d, dir);
    if (d.dump) fclose(d.dump);
    char got[64];
    snprintf(got, sizeof got, "%016" PRIx64 " %zu", d.h, d.strings);
    print_message("%s %s\n", label, got);
    char *expected_path = tu_path(tu_source_dir(), "tests/data/prep_clean_digests.txt");
    FILE *f = fopen(expected_path, "r");
    free(expected_path);
    assert_non_null(f);
    char line[256], want[64] = "";
    size_t ll = strlen(label);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, label, ll) && line[ll] == ' ') {
            snprintf(want, sizeof want, "%s", line + ll + 1);
            want[strcspn(want, "\n")] = 0;
        }
    fclose(f);
    assert_true(d.strings > 0);
    assert_string_equal(got, want);
}

static void test_repo_documents(void **state)
{
    (void)state;
    char *dir = tu_path(tu_source_dir(), "tests/data");
    check_dir(dir, "tests/data");
    free(dir);
}

static void test_corpus_documents(void **state)
{
    (void)state;
    TU_REQUIRE_SHARED();
    if (tu_emulated_cpu()) skip(); /* no CPU-specific code here: the native run says it all */
    char *dir = tu_path(tu_shared_dir(), "corpus/specs");
    check_dir(dir, "corpus");
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repo_documents),
        cmocka_unit_test(test_corpus_documents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
