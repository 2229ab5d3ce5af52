/* jt_parse_json against json-c 0.16 (what apidex parsed JSON with before): the same texts
   accepted, the same errors refused (syntax or depth), the same trees; over hand-picked
   corners of json-c's non-strict tokener and every JSON file of tests/data and
   ../shared/corpus ($APIDEX_JSON_PARITY_DIR adds a folder). */
#include "testutil.h"

#include "core_json_parity.h"

#include <ftw.h>

#define T(s)                                                                                       \
    {                                                                                              \
        s, sizeof(s) - 1                                                                           \
    }

static const struct {
    const char *text;
    size_t len;
} corners[] = {
    T("{}"),
    T("[]"),
    T(" \t\r\n{ } "),
    T("{\"a\":1,\"b\":[true,false,null]}"),
    /* literals in any case, NaN, Infinity, and their near misses */
    T("[TRUE,False,NULL,nUlL]"),
    T("[NaN,nan,NAN,Infinity,-Infinity,iNfInItY,-infinity]"),
    T("[tru]"),
    T("[truex]"),
    T("[nul]"),
    T("[nullx]"),
    T("[nan1]"),
    T("[na]"),
    T("[nu ]"),
    T("[Infinit]"),
    T("[Infinityx]"),
    T("[-Inf]"),
    T("[-I]"),
    T("[-]"),
    T("[- 1]"),
    T("[true"),
    T("[null"),
    T("[nan"),
    T("[Infinity"),
    T("[falsey]"),
    T("[fals]"),
    T("[t]"),
    T("[n]"),
    /* numbers */
    T("[0,-0,1,-1,0123,-007]"),
    T("[9223372036854775807,9223372036854775808]"),
    T("[18446744073709551615,18446744073709551616,99999999999999999999999]"),
    T("[-9223372036854775808,-9223372036854775809,-99999999999999999999999]"),
    T("[1.5,-0.0,1e5,1E+5,1e-5,1.,-.5,.5]"),
    T("[1e,1e+,1e-,1.e,1.-,1.+,1.-e]"),
    T("[1.-2]"),
    T("[1.5.3]"),
    T("[1e5e]"),
    T("[1e5.5]"),
    T("[0x10]"),
    T("[1-2]"),
    T("[+1]"),
    T("[1e999,-1e999,1e-999]"),
    T("[1 2]"),
    T("[1/**/]"),
    T("[1//x\n]"),
    T("[1i]"),
    T("[-e]"),
    T("[-.]"),
    T("[-e5]"),
    T("[1]"),
    T("[1"),
    T("[1,"),
    T("{\"a\":1"),
    T("{\"a\":-"),
    /* strings and escapes */
    T("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]"),
    T("[\"\\u0041\\u00e9\\u20ac\\ud83d\\ude00\"]"),
    T("[\"\\ud83d\"]"),
    T("[\"\\ud83dx\"]"),
    T("[\"\\ud83d\\n\"]"),
    T("[\"\\ud83d\\u0041\"]"),
    T("[\"\\ud83d\\ud83d\\ude00\"]"),
    T("[\"\\ude00\"]"),
    T("[\"\\ud83d\\\"]"),
    T("[\"\\ud83d\\x\"]"),
    T("[\"\\ud83d"),
    T("[\"\\ud83d\\"),
    T("[\"\\ud83d\\u"),
    T("[\"\\u12\"]"),
    T("[\"\\u12g4\"]"),
    T("[\"\\x\"]"),
    T("[\"\\'\"]"),
    T("['single', 'it''s', '\"']"),
    T("['\\'']"),
    T("[\"a\\u0000b\"]"),
    T("[\"tab\tnew\nline\"]"),
    T("[\"abc"),
    T("[\"abc\\"),
    T("[\"a\0b\"]"),
    T("{\"a\0b\":1}"),
    T("[\"\\u0000\"]"),
    /* keys: repeated, NUL-cut, single quotes, missing */
    T("{\"a\":1,\"b\":2,\"a\":3}"),
    T("{\"a\":{\"x\":1},\"a\":[1,2,3],\"c\":0}"),
    T("{\"a\\u0000b\":1,\"a\\u0000c\":2,\"a\":3}"),
    T("{'k':'v',\"k\":1}"),
    T("{k:1}"),
    T("{\"a\" 1}"),
    T("{\"a\":1 \"b\":2}"),
    T("{\"a\"}"),
    T("{\"a\":}"),
    T("{,}"),
    T("[,]"),
    T("{\"a\":1,}"),
    T("[1,]"),
    T("[1,,2]"),
    T("{\"a\":1,,}"),
    T("{\"\":1}"),
    T("{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,"
      "\"k9\":9,\"k10\":10,\"k11\":11,\"k12\":12,\"k13\":13,\"k14\":14,\"k15\":15,\"k3\":33,"
      "\"k16\":16,\"k0\":100}"),
    /* comments, and NUL bytes around them */
    T("/**/{}"),
    T("{/* c */\"a\"/**/:/**/1/**/}"),
    T("{// c\n\"a\":1}"),
    T("{} // c\n"),
    T("{} // c"),
    T("{} /* c"),
    T("{} /* c */"),
    T("{} /x"),
    T("{} /"),
    T("[1 /* a **/ ]"),
    T("[1 /* a **/ */]"),
    T("[1 /* a *x*/ ]"),
    T("[1 /***/]"),
    T("[1 /**/ /*/ */]"),
    T("{}\0garbage"),
    T("{} \0 x"),
    T("{} /*\0"),
    T("{} /*\0 x"),
    T("{} //\0\n"),
    T("{} /* *\0"),
    T("[1 /*\0"),
    T("[1 /*\0*/]"),
    T("[1 //\0"),
    T("[null /*\0"),
    T("[{\"a\":2} /*\0"),
    T("[\"s\" /* *\0  "),
    T("[1, /*\0"),
    T("[ /*\0"),
    T("{\"a\" /*\0"),
    T("{\"a\": /*\0"),
    T("{\"a\":1 /*\0"),
    T("[1\0]"),
    T("[\0]"),
    T("[5/\0*]"),
    T("{}/\0"),
    T("[ /\0"),
    T("[1,/\0"),
    T("[true\0]"),
    T("{\0}"),
    /* trailing data */
    T("{}x"),
    T("{} {}"),
    T("[] ]"),
    T("{}\n\n\t"),
    T("{}}"),
    /* other white space json-c may or may not skip */
    T("[\v1]"),
    T("[\f1]"),
    T("[1\v]"),
    T("{\"a\":\f1}"),
};

static void test_corners(void **state)
{
    (void)state;
    char why[512];
    size_t bad = 0;
    for (size_t i = 0; i < sizeof corners / sizeof corners[0]; i++) {
        for (unsigned depth = 2; depth <= 512; depth += 510) {
            const char *d = parity_check(corners[i].text, corners[i].len, depth, why, sizeof why);
            if (d) {
                print_message("corner %zu (depth %u) '%.*s': %s\n", i, depth, (int)corners[i].len,
                              corners[i].text, d);
                bad++;
            }
        }
    }
    assert_int_equal(bad, 0);
}

/* Nesting at and past the limit, with each kind of value (and junk) where the limit bites. */
static void test_depth_limit(void **state)
{
    (void)state;
    const char *inner[] = {"",      "1",     ",",    "]",          "}",        "{}",
                           "[]",    "\"a\"", "x",    "{\"a\":1}",  "{\"a\":}", "{\"a\"",
                           "/**/1", "{,}",   "\x01", "{\"a\":\x01"};
    char why[512];
    size_t bad = 0;
    for (unsigned limit = 1; limit <= 6; limit++)
        for (unsigned levels = 1; levels <= 8; levels++)
            for (size_t k = 0; k < sizeof inner / sizeof inner[0]; k++)
                for (int obj = 0; obj < 2; obj++) {
                    char text[256];
                    size_t n = 0;
                    for (unsigned l = 0; l < levels; l++) {
                        const char *open = obj && l ? "{\"k\":" : "[";
                        n += (size_t)snprintf(text + n, sizeof text - n, "%s", open);
                    }
                    n += (size_t)snprintf(text + n, sizeof text - n, "%s", inner[k]);
                    for (unsigned l = levels; l-- > 0;)
                        n +=
                            (size_t)snprintf(text + n, sizeof text - n, "%s", obj && l ? "}" : "]");
                    for (size_t c = 0; c < n; c++)
                        if (text[c] == '\x01')
                            text[c] = '\0'; /* a NUL byte where the limit bites */
                    const char *d = parity_check(text, n, limit, why, sizeof why);
                    if (d) {
                        print_message("limit %u '%s': %s\n", limit, text, d);
                        bad++;
                    }
                }
    assert_int_equal(bad, 0);
}

static size_t files_checked, files_bad;

static int check_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type != FTW_F) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char *text = NULL;
    size_t len = 0, cap = 0, got;
    char chunk[1 << 16];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + got > cap) {
            cap = (len + got) * 2;
            text = realloc(text, cap);
            assert_non_null(text);
        }
        memcpy(text + len, chunk, got);
        len += got;
    }
    fclose(f);
    size_t i = len >= 3 && text && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
    while (i < len && strchr(" \t\r\n", text[i])) i++;
    if (i < len && (text[i] == '{' || text[i] == '[')) {
        memset(text, ' ', i); /* as jt_doc_parse blanks a BOM */
        char why[512];
        const char *d = parity_check(text, len, 512, why, sizeof why);
        files_checked++;
        if (d) {
            print_message("%s: %s\n", path, d);
            files_bad++;
        }
    }
    free(text);
    return 0;
}

static void test_files(void **state)
{
    (void)state;
    files_checked = files_bad = 0;
    char *data = tu_path(tu_source_dir(), "tests/data");
    assert_int_equal(nftw(data, check_file, 16, FTW_PHYS), 0);
    free(data);
    size_t in_data = files_checked;
    assert_true(in_data > 5);
    if (tu_shared_dir()) {
        char *corpus = tu_path(tu_shared_dir(), "corpus");
        assert_int_equal(nftw(corpus, check_file, 16, FTW_PHYS), 0);
        free(corpus);
    }
    const char *extra = getenv("APIDEX_JSON_PARITY_DIR");
    if (extra && *extra) assert_int_equal(nftw(extra, check_file, 16, FTW_PHYS), 0);
    print_message("json parity: %zu JSON files (%zu in tests/data), %zu differ\n", files_checked,
                  in_data, files_bad);
    assert_int_equal(files_bad, 0);
}

/* The messages that are not json-c's: a NUL byte is named where it is (json-c said
   "unexpected end of data" one byte later, or "success" for "[null /<star>\0"); the rest keep
   json-c's words and place (test_corners compares them), in the form FILE:L:C. */
static void test_changed_messages(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t len;
        const char *message;
        unsigned line, col;
    } cases[] = {
        {"[1\0]", 4, "invalid JSON: unexpected NUL byte", 1, 3},
        {"{\n \"a\0\": 1}", 12, "invalid JSON: unexpected NUL byte", 2, 4},
        {"[null /*\0", 9, "invalid JSON: unexpected NUL byte in a comment", 1, 9},
        {"[1 /x", 5, "invalid JSON: expected comment", 1, 5}, /* "[1 /x]" is YAML */
        {"{\"a\" 1}", 7, "invalid JSON: object property name separator ':' expected", 1, 6},
        {"[1,\n", 4, "invalid JSON: unexpected end of input", 2, 1},
        {"{} x", 4, "invalid JSON: unexpected data after the document", 1, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = malloc(cases[i].len);
        assert_non_null(text);
        memcpy(text, cases[i].text, cases[i].len);
        jt_doc *doc = NULL;
        apidex_error err;
        core_error_clear(&err);
        assert_int_equal(jt_doc_parse(text, cases[i].len, "t.json", NULL, &doc, &err),
                         APIDEX_EPARSE);
        assert_string_equal(err.message, cases[i].message);
        assert_string_equal(err.file, "t.json");
        assert_int_equal(err.line, cases[i].line);
        assert_int_equal(err.col, cases[i].col);
    }
    /* what json-c stopped at: the value before a NUL byte in a comment became the document */
    char *text = malloc(9);
    assert_non_null(text);
    memcpy(text, "[{} /*\0 ", 9);
    jt_doc *doc = NULL;
    apidex_error err;
    assert_int_equal(jt_doc_parse(text, 9, "t.json", NULL, &doc, &err), 0);
    assert_int_equal(doc->root->type, JT_OBJECT);
    jt_doc_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corners),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_changed_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
