/* The safetensors header parser and reader: valid files, and every malformed header we can
   think of (each must be a clean error naming the file, never a crash or a wild read). */
#include "testutil.h"

#include "embed/embed_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(const char *json, uint64_t data_len, apidex_error *err)
{
    embed_st_tensor *t = NULL;
    size_t n = 0;
    int rc = embed_st_parse_header(json, strlen(json), data_len, "x.safetensors", &t, &n, err);
    embed_st_tensors_free(t, n);
    return rc;
}

static void expect_bad(const char *json, uint64_t data_len, const char *needle)
{
    apidex_error err = {0};
    int rc = parse(json, data_len, &err);
    if (rc == 0 || !strstr(err.message, needle))
        fail_msg("'%s': expected error with '%s', got %d '%s'", json, needle, rc, err.message);
    assert_string_equal(err.file, "x.safetensors");
}

static void test_parse_valid(void **state)
{
    (void)state;
    const char *json = "{\"__metadata__\":{\"format\":\"pt\"},"
                       "\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
                       "\"b\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[24,32]},"
                       "\"s\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[32,40]},"
                       "\"z\":{\"dtype\":\"BF16\",\"shape\":[0,5],\"data_offsets\":[40,40]}}   ";
    embed_st_tensor *t = NULL;
    size_t n = 0;
    apidex_error err = {0};
    assert_int_equal(embed_st_parse_header(json, strlen(json), 40, "f", &t, &n, &err), 0);
    assert_int_equal(n, 4);
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(t[i].name, "a")) {
            assert_int_equal(t[i].dtype, EMBED_DT_F32);
            assert_int_equal(t[i].ndim, 2);
            assert_int_equal(t[i].numel, 6);
        }
        if (!strcmp(t[i].name, "s")) assert_int_equal(t[i].numel, 1); /* a scalar */
        if (!strcmp(t[i].name, "z")) assert_int_equal(t[i].numel, 0);
    }
    embed_st_tensors_free(t, n);
    embed_st_tensors_free(NULL, 0);
}

static void test_parse_invalid(void **state)
{
    (void)state;
    expect_bad("", 0, "not valid JSON");
    expect_bad("{", 0, "not valid JSON");
    expect_bad("[1,2]", 0, "not a JSON object");
    expect_bad("{} x", 0, "trailing bytes");
    expect_bad("{\"a\":1}", 0, "not an object");
    expect_bad("{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "missing dtype");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, "missing shape");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, "data_offsets");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 4, "data_offsets");
    expect_bad("{\"a\":{\"dtype\":\"Q4\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
               "unknown dtype");
    expect_bad("{\"a\":{\"dtype\":7,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "missing dtype");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4,
               "non-negative");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 4,
               "non-negative");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[\"1\"],\"data_offsets\":[0,4]}}", 4,
               "non-negative");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}",
               4, "too many dimensions");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4294967296],"
               "\"data_offsets\":[0,4]}}",
               4, "overflows");
    expect_bad("{\"a\":{\"dtype\":\"F64\",\"shape\":[4611686018427387904],\"data_offsets\":[0,4]}}",
               4, "size overflows");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[9223372036854775807],\"data_offsets\":[0,4]}}",
               4, "non-negative");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}", 4,
               "outside the file");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 4,
               "outside the file");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 8,
               "does not match");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]}}", 8,
               "non-negative");
    expect_bad(
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,99999999999999999999]}}", 8,
        "non-negative");
    /* Deep nesting is refused by the tokenizer's depth limit, not by the stack. */
    char deep[4096];
    size_t at = 0;
    for (int i = 0; i < 1000; i++) deep[at++] = '[';
    deep[at] = '\0';
    expect_bad(deep, 0, "not valid JSON");
    char *huge = malloc((EMBED_ST_MAX_HEADER) + 2);
    memset(huge, ' ', EMBED_ST_MAX_HEADER + 1);
    huge[EMBED_ST_MAX_HEADER + 1] = '\0';
    huge[0] = '{';
    expect_bad(huge, 0, "too large");
    free(huge);
}

static void test_open_and_read(void **state)
{
    (void)state;
    char *dir = tu_tempdir();
    char *path = tu_path(dir, "m.safetensors");
    /* Header not padded to 8 so the data is misaligned: conversion must cope. */
    const char *hdr = "{\"w\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[0,6]},"
                      "\"v\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[6,10]},"
                      "\"f\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[10,14]},"
                      "\"i\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[14,18]}}";
    uint64_t hl = strlen(hdr);
    FILE *f = fopen(path, "wb");
    for (int i = 0; i < 8; i++) fputc((int)((hl >> (8 * i)) & 0xff), f);
    fputs(hdr, f);
    const uint8_t data[18] = {0x00, 0x3c, 0x00, 0xc0, 0x00, 0x00, /* f16 1, -2, 0 */
                              0x80, 0x3f, 0x40, 0xc0,             /* bf16 1, -3 */
                              0x00, 0x00, 0x20, 0x41,             /* f32 10 */
                              1,    0,    0,    0};
    fwrite(data, 1, sizeof data, f);
    fclose(f);
    embed_st *st = NULL;
    apidex_error err = {0};
    assert_int_equal(embed_st_open(path, &st, &err), 0);
    float out[3];
    assert_int_equal(embed_st_read_f32(st, embed_st_find(st, "w"), out, &err), 0);
    assert_true(out[0] == 1.0f && out[1] == -2.0f && out[2] == 0.0f);
    assert_int_equal(embed_st_read_f32(st, embed_st_find(st, "v"), out, &err), 0);
    assert_true(out[0] == 1.0f && out[1] == -3.0f);
    assert_int_equal(embed_st_read_f32(st, embed_st_find(st, "f"), out, &err), 0);
    assert_true(out[0] == 10.0f);
    assert_int_equal(embed_st_read_f32(st, embed_st_find(st, "i"), out, &err), APIDEX_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "dtype I32"));
    assert_string_equal(err.file, path);
    assert_null(embed_st_find(st, "nope"));
    embed_st_close(st);
    embed_st_close(NULL);

    /* Missing, empty, and not-a-file. */
    assert_int_equal(embed_st_open("/no/such.safetensors", &st, &err), APIDEX_ENOTFOUND);
    assert_string_equal(err.file, "/no/such.safetensors");
    f = fopen(path, "wb");
    fclose(f);
    assert_int_equal(embed_st_open(path, &st, &err), APIDEX_EPARSE);
    assert_int_equal(embed_st_open(dir, &st, &err), APIDEX_EIO);
    tu_rmtree(dir);
    free(path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_valid),
        cmocka_unit_test(test_parse_invalid),
        cmocka_unit_test(test_open_and_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
