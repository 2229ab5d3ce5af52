/*
 * A defensive reader of the safetensors format: an 8-byte little-endian header
 * length, a JSON header naming each tensor's dtype, shape and byte range, then
 * the raw data. Every number in the header is checked before it is trusted.
 */
#include "embed/embed_int.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *name;
    embed_dtype dt;
    size_t size;
} dtypes[] = {
    {"F32", EMBED_DT_F32, 4},   {"F16", EMBED_DT_F16, 2},         {"BF16", EMBED_DT_BF16, 2},
    {"F64", EMBED_DT_F64, 8},   {"I64", EMBED_DT_I64, 8},         {"I32", EMBED_DT_I32, 4},
    {"I16", EMBED_DT_I16, 2},   {"I8", EMBED_DT_I8, 1},           {"U8", EMBED_DT_U8, 1},
    {"BOOL", EMBED_DT_BOOL, 1}, {"U16", EMBED_DT_U16, 2},         {"U32", EMBED_DT_U32, 4},
    {"U64", EMBED_DT_U64, 8},   {"F8_E4M3", EMBED_DT_F8_E4M3, 1}, {"F8_E5M2", EMBED_DT_F8_E5M2, 1},
};

size_t embed_dtype_size(embed_dtype dt)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].dt == dt) return dtypes[i].size;
    return 0;
}

void embed_st_tensors_free(embed_st_tensor *t, size_t n)
{
    if (!t) return;
    for (size_t i = 0; i < n; i++) free(t[i].name);
    free(t);
}

static int header_error(apidex_error *err, const char *file, const char *name, const char *what)
{
    core_error_set(err, APIDEX_EPARSE, "bad safetensors header: %s%s%s%s", name ? "tensor '" : "",
                   name ? name : "", name ? "': " : "", what);
    core_error_at(err, file, 0, 0, NULL);
    return APIDEX_EPARSE;
}

/* A JSON integer that fits in 0..INT64_MAX (json-c saturates, so reject the edges too). */
static bool json_uint(json_object *o, uint64_t *v)
{
    if (!o || json_object_get_type(o) != json_type_int) return false;
    errno = 0;
    int64_t x = json_object_get_int64(o);
    if (x < 0 || x == INT64_MAX) return false;
    *v = (uint64_t)x;
    return true;
}

static int parse_entry(const char *key, json_object *val, uint64_t data_len, const char *file,
                       embed_st_tensor *t, apidex_error *err)
{
    if (!json_object_is_type(val, json_type_object))
        return header_error(err, file, key, "entry is not an object");
    json_object *jd = NULL, *js = NULL, *jo = NULL;
    if (!json_object_object_get_ex(val, "dtype", &jd) || !json_object_is_type(jd, json_type_string))
        return header_error(err, file, key, "missing dtype");
    if (!json_object_object_get_ex(val, "shape", &js) || !json_object_is_type(js, json_type_array))
        return header_error(err, file, key, "missing shape");
    if (!json_object_object_get_ex(val, "data_offsets", &jo) ||
        !json_object_is_type(jo, json_type_array) || json_object_array_length(jo) != 2)
        return header_error(err, file, key, "data_offsets must be [begin, end]");

    const char *dname = json_object_get_string(jd);
    size_t esize = 0;
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
        if (!strcmp(dname, dtypes[i].name)) {
            t->dtype = dtypes[i].dt;
            t->dtype_name = dtypes[i].name;
            esize = dtypes[i].size;
        }
    }
    if (!esize) return header_error(err, file, key, "unknown dtype");

    size_t nd = json_object_array_length(js);
    if (nd > EMBED_ST_MAX_DIMS) return header_error(err, file, key, "too many dimensions");
    t->ndim = nd;
    uint64_t numel = 1;
    for (size_t d = 0; d < nd; d++) {
        if (!json_uint(json_object_array_get_idx(js, d), &t->shape[d]))
            return header_error(err, file, key, "shape entries must be non-negative integers");
        if (__builtin_mul_overflow(numel, t->shape[d], &numel))
            return header_error(err, file, key, "shape overflows");
    }
    t->numel = numel;
    uint64_t nbytes;
    if (__builtin_mul_overflow(numel, (uint64_t)esize, &nbytes))
        return header_error(err, file, key, "size overflows");
    if (!json_uint(json_object_array_get_idx(jo, 0), &t->begin) ||
        !json_uint(json_object_array_get_idx(jo, 1), &t->end))
        return header_error(err, file, key, "data_offsets must be non-negative integers");
    if (t->begin > t->end || t->end > data_len)
        return header_error(err, file, key, "data_offsets point outside the file (truncated?)");
    if (t->end - t->begin != nbytes)
        return header_error(err, file, key, "byte range does not match dtype and shape");
    return 0;
}

int embed_st_parse_header(const char *json, size_t len, uint64_t data_len, const char *file,
                          embed_st_tensor **out, size_t *n, apidex_error *err)
{
    *out = NULL;
    *n = 0;
    if (len > EMBED_ST_MAX_HEADER || len > INT32_MAX)
        return header_error(err, file, NULL, "header too large");
    /* The header is an object of objects; 8 levels are plenty and bound json-c's work. */
    json_tokener *tok = json_tokener_new_ex(8);
    if (!tok) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    json_object *root = json_tokener_parse_ex(tok, json, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = root ? json_tokener_get_parse_end(tok) : 0;
    json_tokener_free(tok);
    if (!root || jerr != json_tokener_success) {
        json_object_put(root);
        return header_error(err, file, NULL, "not valid JSON (truncated file?)");
    }
    /* The format pads the header with spaces; anything else after the object is garbage. */
    for (size_t i = end; i < len; i++) {
        if (json[i] != ' ' && json[i] != '\n' && json[i] != '\t' && json[i] != '\r') {
            json_object_put(root);
            return header_error(err, file, NULL, "trailing bytes after the JSON object");
        }
    }
    if (!json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        return header_error(err, file, NULL, "not a JSON object");
    }
    size_t cap = (size_t)json_object_object_length(root);
    if (cap > EMBED_ST_MAX_TENSORS) {
        json_object_put(root);
        return header_error(err, file, NULL, "too many tensors");
    }
    embed_st_tensor *ts = calloc(cap ? cap : 1, sizeof *ts);
    if (!ts) {
        json_object_put(root);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    size_t cnt = 0;
    int rc = 0;
    json_object_object_foreach(root, key, val)
    {
        if (!strcmp(key, "__metadata__")) continue;
        embed_st_tensor *t = &ts[cnt];
        rc = parse_entry(key, val, data_len, file, t, err);
        if (rc) break;
        t->name = strdup(key);
        if (!t->name) {
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            break;
        }
        cnt++;
    }
    json_object_put(root);
    if (rc) {
        embed_st_tensors_free(ts, cnt);
        return rc;
    }
    *out = ts;
    *n = cnt;
    return 0;
}

void embed_st_close(embed_st *st)
{
    if (!st) return;
    if (st->map) munmap(st->map, st->map_len);
    embed_st_tensors_free(st->tensors, st->n_tensors);
    free(st->path);
    free(st);
}

/* Checks the length prefix, then parses the header of a file image of size bytes. */
static int st_index(embed_st *st, const uint8_t *bytes, size_t size, const char *path,
                    apidex_error *err)
{
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = (hlen << 8) | bytes[i];
    if (hlen > EMBED_ST_MAX_HEADER)
        return header_error(err, path, NULL, "header length is implausibly large");
    if (hlen > size - 8)
        return header_error(err, path, NULL, "header length exceeds the file (truncated file?)");
    st->data = bytes + 8 + hlen;
    st->data_len = size - 8 - hlen;
    return embed_st_parse_header((const char *)bytes + 8, (size_t)hlen, st->data_len, path,
                                 &st->tensors, &st->n_tensors, err);
}

int embed_st_open(const char *path, embed_st **out, apidex_error *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int code = errno == ENOENT ? APIDEX_ENOTFOUND : APIDEX_EIO;
        core_error_set(err, code, "cannot open: %s", strerror(errno));
        core_error_at(err, path, 0, 0, NULL);
        return code;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        core_error_set(err, APIDEX_EIO, "not a regular file");
        core_error_at(err, path, 0, 0, NULL);
        return APIDEX_EIO;
    }
    size_t size = (size_t)sb.st_size;
    if (size < 8) {
        close(fd);
        return header_error(err, path, NULL, "file shorter than the 8-byte header length");
    }
    embed_st *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(path))) {
        free(st);
        close(fd);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        embed_st_close(st);
        core_error_set(err, APIDEX_EIO, "cannot map: %s", strerror(errno));
        core_error_at(err, path, 0, 0, NULL);
        return APIDEX_EIO;
    }
    st->map = map;
    st->map_len = size;
    int rc = st_index(st, map, size, path, err);
    if (rc) {
        embed_st_close(st);
        return rc;
    }
    *out = st;
    return 0;
}

int embed_st_open_mem(const uint8_t *bytes, size_t len, const char *name, embed_st **out,
                      apidex_error *err)
{
    *out = NULL;
    if (len < 8) return header_error(err, name, NULL, "file shorter than the 8-byte header length");
    embed_st *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(name))) {
        free(st);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    int rc = st_index(st, bytes, len, name, err);
    if (rc) {
        embed_st_close(st);
        return rc;
    }
    *out = st;
    return 0;
}

const embed_st_tensor *embed_st_find(const embed_st *st, const char *name)
{
    for (size_t i = 0; i < st->n_tensors; i++)
        if (!strcmp(st->tensors[i].name, name)) return &st->tensors[i];
    return NULL;
}

int embed_st_read_f32(const embed_st *st, const embed_st_tensor *t, float *dst, apidex_error *err)
{
    const uint8_t *src = st->data + t->begin;
    size_t n = (size_t)t->numel;
    switch (t->dtype) {
    case EMBED_DT_F32:
        memcpy(dst, src, n * 4);
        return 0;
    case EMBED_DT_F16:
    case EMBED_DT_BF16: {
        /* The data section need not be 2-byte aligned: convert through an aligned chunk. */
        uint16_t chunk[4096];
        for (size_t i = 0; i < n; i += 4096) {
            size_t m = n - i < 4096 ? n - i : 4096;
            memcpy(chunk, src + 2 * i, m * 2);
            if (t->dtype == EMBED_DT_F16)
                embed_k_f16_to_f32(chunk, dst + i, m);
            else
                embed_k_bf16_to_f32(chunk, dst + i, m);
        }
        return 0;
    }
    default:
        core_error_set(err, APIDEX_EUNSUPPORTED,
                       "tensor '%s' has dtype %s; weights must be F32, F16 or BF16", t->name,
                       t->dtype_name);
        core_error_at(err, st->path, 0, 0, NULL);
        return APIDEX_EUNSUPPORTED;
    }
}
