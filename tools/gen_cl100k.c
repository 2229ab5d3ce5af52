/*
 * Build-time converter: tiktoken's encoders/cl100k_base.json (npm package tiktoken, MIT),
 * carried zstd-compressed in tools/cl100k/, into a C source holding the split pattern, the
 * special tokens and the ranks in a compact form, so the apidex library embeds them and
 * needs no data file at run time.
 *
 * Usage: gen_cl100k IN.json[.zst] OUT.c   (a name ending in .zst is decompressed first)
 *
 * The JSON holds "pat_str", "special_tokens" ({text: id}) and "bpe_ranks": one string
 * "! 0 <base64> <base64> ...", i.e. a marker, the first rank, then the token bytes of
 * consecutive ranks. The output blob stores, in rank order, one length byte followed by
 * the token bytes (every cl100k token is 1..255 bytes long; the converter checks it).
 */
#include <json-c/json.h>
#include <zstd.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decoded token bytes of every rank, appended as <len><bytes>. */
typedef struct blob {
    unsigned char *data;
    size_t len, cap;
} blob;

static int die(const char *msg, const char *detail)
{
    fprintf(stderr, "gen_cl100k: %s%s%s\n", msg, detail ? ": " : "", detail ? detail : "");
    return 1;
}

static bool blob_push(blob *b, unsigned char c)
{
    if (b->len == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1u << 20;
        unsigned char *p = realloc(b->data, cap);
        if (!p) return false;
        b->data = p;
        b->cap = cap;
    }
    b->data[b->len++] = c;
    return true;
}

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Decodes standard padded base64 s[0..n) into out (at most 255 bytes); returns length or -1. */
static int b64_decode(const char *s, size_t n, unsigned char out[255])
{
    if (n == 0 || n % 4 != 0) return -1;
    int len = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            unsigned char c = (unsigned char)s[i + k];
            if (c == '=' && i + 4 == n && k >= 2) {
                v[k] = 0;
                pad++;
            } else {
                if (pad) return -1; /* data after padding */
                v[k] = b64_value(c);
                if (v[k] < 0) return -1;
            }
        }
        uint32_t w =
            (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        unsigned char bytes[3] = {(unsigned char)(w >> 16), (unsigned char)(w >> 8),
                                  (unsigned char)w};
        for (int k = 0; k < 3 - pad; k++) {
            if (len == 255) return -1;
            out[len++] = bytes[k];
        }
    }
    return len;
}

/* Writes s[0..n) as the body of a C string literal, split over lines of ~100 bytes.
 * Non-printable bytes, quotes, backslashes and '?' (trigraphs under -std=c11) become
 * three-digit octal escapes, which can never swallow a following digit. */
static void write_literal(FILE *f, const unsigned char *s, size_t n, const char *indent)
{
    size_t col = 0;
    fprintf(f, "%s\"", indent);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?') {
            fputc(c, f);
            col++;
        } else {
            fprintf(f, "\\%03o", c);
            col += 4;
        }
        if (col >= 100 && i + 1 < n) {
            fprintf(f, "\"\n%s\"", indent);
            col = 0;
        }
    }
    fputs("\"", f);
}

/* Reads a whole file; a name ending in ".zst" is one zstd frame, decompressed (the frame's
 * checksum catches a damaged file). Returns a NUL-terminated buffer the caller frees. */
static char *read_input(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    blob raw = {0};
    int c;
    while ((c = fgetc(f)) != EOF)
        if (!blob_push(&raw, (unsigned char)c)) break;
    bool read_ok = !ferror(f) && c == EOF;
    fclose(f);
    if (!read_ok || !blob_push(&raw, 0)) {
        free(raw.data);
        return NULL;
    }
    size_t n = strlen(path);
    if (n < 4 || strcmp(path + n - 4, ".zst") != 0) return (char *)raw.data;

    unsigned long long size = ZSTD_getFrameContentSize(raw.data, raw.len - 1);
    /* the ranks are about 1 MB; 64 MB bounds what a wrong file can make us allocate */
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > 64u << 20) {
        free(raw.data);
        return NULL;
    }
    char *out = malloc((size_t)size + 1);
    size_t got = out ? ZSTD_decompress(out, (size_t)size, raw.data, raw.len - 1) : 0;
    free(raw.data);
    if (!out || ZSTD_isError(got) || got != size) {
        free(out);
        return NULL;
    }
    out[got] = 0;
    return out;
}

static int compare_special(const void *a, const void *b)
{
    const json_object *const *x = a, *const *y = b;
    int64_t ix = json_object_get_int64(*x), iy = json_object_get_int64(*y);
    return (ix > iy) - (ix < iy);
}

int main(int argc, char **argv)
{
    if (argc != 3) return die("usage: gen_cl100k IN.json[.zst] OUT.c", NULL);
    char *text = read_input(argv[1]);
    if (!text) return die("cannot read or decompress", argv[1]);
    json_object *root = json_tokener_parse(text);
    free(text);
    if (!root) return die("cannot parse", argv[1]);

    json_object *pat = NULL, *specials = NULL, *ranks = NULL;
    if (!json_object_object_get_ex(root, "pat_str", &pat) ||
        !json_object_is_type(pat, json_type_string) ||
        !json_object_object_get_ex(root, "special_tokens", &specials) ||
        !json_object_is_type(specials, json_type_object) ||
        !json_object_object_get_ex(root, "bpe_ranks", &ranks) ||
        !json_object_is_type(ranks, json_type_string))
        return die("missing pat_str, special_tokens or bpe_ranks", argv[1]);

    const char *r = json_object_get_string(ranks);
    size_t rlen = (size_t)json_object_get_string_len(ranks);
    if (rlen < 4 || memcmp(r, "! 0 ", 4) != 0)
        return die("bpe_ranks does not start with \"! 0 \" (unknown layout)", argv[1]);

    blob b = {0};
    uint32_t n_ranks = 0;
    bool seen_byte[256] = {false};
    for (size_t i = 4; i < rlen;) {
        size_t j = i;
        while (j < rlen && r[j] != ' ') j++;
        unsigned char tok[255];
        int len = b64_decode(r + i, j - i, tok);
        if (len <= 0) return die("bad base64 token in bpe_ranks", NULL);
        if (len == 1) seen_byte[tok[0]] = true;
        if (!blob_push(&b, (unsigned char)len)) return die("out of memory", NULL);
        for (int k = 0; k < len; k++)
            if (!blob_push(&b, tok[k])) return die("out of memory", NULL);
        n_ranks++;
        i = j + 1;
    }
    /* Byte-level BPE needs every single byte as a token: the encoder relies on it. */
    for (int c = 0; c < 256; c++)
        if (!seen_byte[c]) return die("a single-byte token is missing from bpe_ranks", NULL);

    size_t n_special = (size_t)json_object_object_length(specials);
    json_object **sp = calloc(n_special ? n_special : 1, sizeof *sp);
    const char **sp_key = calloc(n_special ? n_special : 1, sizeof *sp_key);
    if (!sp || !sp_key) return die("out of memory", NULL);
    size_t k = 0;
    json_object_object_foreach(specials, key, val)
    {
        if (!json_object_is_type(val, json_type_int))
            return die("special token id not an int", key);
        int64_t id = json_object_get_int64(val);
        if (id < (int64_t)n_ranks || id > UINT32_MAX)
            return die("special token id out of range", key);
        sp[k] = val;
        sp_key[k] = key;
        k++;
    }
    /* Order the specials by id so the generated file is stable whatever the JSON order. */
    for (size_t a = 1; a < n_special; a++)
        for (size_t c = a; c > 0 && compare_special(&sp[c - 1], &sp[c]) > 0; c--) {
            json_object *t = sp[c];
            sp[c] = sp[c - 1];
            sp[c - 1] = t;
            const char *tk = sp_key[c];
            sp_key[c] = sp_key[c - 1];
            sp_key[c - 1] = tk;
        }

    FILE *f = fopen(argv[2], "wb");
    if (!f) return die("cannot write", argv[2]);
    fputs("/* Generated by tools/gen_cl100k.c from tiktoken's encoders/cl100k_base.json (MIT):\n"
          " * do not edit. Layout: see text/bpe_int.h. */\n"
          "#include \"text/bpe_int.h\"\n\n",
          f);
    fputs("const char text_cl100k_pattern[] =\n", f);
    write_literal(f, (const unsigned char *)json_object_get_string(pat),
                  (size_t)json_object_get_string_len(pat), "    ");
    fputs(";\n\n", f);
    fprintf(f, "const uint32_t text_cl100k_n_ranks = %u;\n", n_ranks);
    fprintf(f, "const size_t text_cl100k_blob_len = %zu;\n", b.len);
    fputs("const unsigned char text_cl100k_blob[] =\n", f);
    write_literal(f, b.data, b.len, "    ");
    fputs(";\n\n", f);
    fprintf(f, "const size_t text_cl100k_n_specials = %zu;\n", n_special);
    fputs("const text_bpe_special text_cl100k_specials[] = {\n", f);
    for (size_t a = 0; a < n_special; a++) {
        fprintf(f, "    {");
        write_literal(f, (const unsigned char *)sp_key[a], strlen(sp_key[a]), "");
        fprintf(f, ", %zu, %u},\n", strlen(sp_key[a]), (unsigned)json_object_get_int64(sp[a]));
    }
    if (n_special == 0) fputs("    {\"\", 0, 0},\n", f);
    fputs("};\n", f);
    if (fclose(f) != 0) return die("write failed", argv[2]);

    free(sp);
    free(sp_key);
    free(b.data);
    json_object_put(root);
    return 0;
}
