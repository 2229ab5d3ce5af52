/* The JSON/YAML document tree: parsing (json-c, libfyaml events) into one arena, lookups. */
#include "core/core.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <libfyaml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

enum {
    JT_DEFAULT_MAX_BYTES = 64 << 20,
    JT_DEFAULT_MAX_DEPTH = 512,
    JT_DEFAULT_MAX_NODES = 20000000,
    JT_INDEX_MIN = 16 /* objects with at least this many members get a hash index */
};

static void limits_fill(jt_limits *out, const jt_limits *in)
{
    out->max_bytes = in && in->max_bytes ? in->max_bytes : JT_DEFAULT_MAX_BYTES;
    out->max_depth = in && in->max_depth ? in->max_depth : JT_DEFAULT_MAX_DEPTH;
    out->max_nodes = in && in->max_nodes ? in->max_nodes : JT_DEFAULT_MAX_NODES;
    out->budget = in ? in->budget : NULL;
}

/* ---------------------------------------------------------------- node builders */

static jt_node *node_new(core_arena *a, jt_type t)
{
    jt_node *n = core_arena_alloc(a, sizeof *n);
    if (!n) return NULL;
    memset(n, 0, sizeof *n);
    n->type = (uint8_t)t;
    return n;
}

jt_node *jt_new_string(core_arena *a, const char *s, size_t len)
{
    jt_node *n = node_new(a, JT_STRING);
    if (!n || len > UINT32_MAX) return NULL;
    n->u.s = core_arena_strndup(a, s, len);
    if (!n->u.s) return NULL;
    n->len = (uint32_t)len;
    return n;
}

jt_node *jt_new_bool(core_arena *a, bool v)
{
    jt_node *n = node_new(a, JT_BOOL);
    if (n) n->boolean = v;
    return n;
}

jt_node *jt_new_array(core_arena *a, size_t count)
{
    jt_node *n = node_new(a, JT_ARRAY);
    if (!n || count > UINT32_MAX) return NULL;
    if (count) {
        n->u.items = core_arena_calloc(a, count, sizeof(jt_node *));
        if (!n->u.items) return NULL;
    }
    n->len = (uint32_t)count;
    return n;
}

jt_node *jt_new_object(core_arena *a, size_t count)
{
    jt_node *n = node_new(a, JT_OBJECT);
    if (!n || count > UINT32_MAX) return NULL;
    if (count) {
        n->u.members = core_arena_calloc(a, count, sizeof(jt_member));
        if (!n->u.members) return NULL;
    }
    n->len = (uint32_t)count;
    return n;
}

static uint64_t key_hash(const char *k, size_t n)
{
    return XXH3_64bits(k, n);
}

void jt_object_finish(core_arena *a, jt_node *obj)
{
    if (!obj || obj->type != JT_OBJECT || obj->len < JT_INDEX_MIN) return;
    size_t slots = 32;
    while (slots < (size_t)obj->len * 2) slots *= 2;
    uint32_t *idx = core_arena_calloc(a, slots + 1, sizeof(uint32_t));
    if (!idx) return; /* lookups fall back to a linear scan */
    idx[0] = (uint32_t)slots;
    uint32_t *tab = idx + 1;
    for (uint32_t i = 0; i < obj->len; i++) {
        const jt_member *m = &obj->u.members[i];
        if (!m->key) continue;
        size_t h = key_hash(m->key, m->key_len) & (slots - 1);
        /* Keep the first occurrence of a duplicate key, as a linear scan would. */
        bool dup = false;
        while (tab[h]) {
            const jt_member *o = &obj->u.members[tab[h] - 1];
            if (o->key_len == m->key_len && memcmp(o->key, m->key, m->key_len) == 0) {
                dup = true;
                break;
            }
            h = (h + 1) & (slots - 1);
        }
        if (!dup) tab[h] = i + 1;
    }
    obj->index = idx;
}

/* ---------------------------------------------------------------- lookups */

const jt_node *jt_getn(const jt_node *obj, const char *key, size_t key_len)
{
    if (!obj || obj->type != JT_OBJECT || !key) return NULL;
    if (obj->index) {
        size_t slots = obj->index[0];
        const uint32_t *tab = obj->index + 1;
        size_t h = key_hash(key, key_len) & (slots - 1);
        while (tab[h]) {
            const jt_member *m = &obj->u.members[tab[h] - 1];
            if (m->key_len == key_len && memcmp(m->key, key, key_len) == 0) return m->value;
            h = (h + 1) & (slots - 1);
        }
        return NULL;
    }
    for (uint32_t i = 0; i < obj->len; i++) {
        const jt_member *m = &obj->u.members[i];
        if (m->key_len == key_len && m->key && memcmp(m->key, key, key_len) == 0) return m->value;
    }
    return NULL;
}

const jt_node *jt_get(const jt_node *obj, const char *key)
{
    return key ? jt_getn(obj, key, strlen(key)) : NULL;
}

const jt_node *jt_at(const jt_node *arr, size_t i)
{
    if (!arr || arr->type != JT_ARRAY || i >= arr->len) return NULL;
    return arr->u.items[i];
}

const char *jt_str(const jt_node *n)
{
    return n && n->type == JT_STRING ? n->u.s : NULL;
}

const char *jt_get_str(const jt_node *obj, const char *key)
{
    return jt_str(jt_get(obj, key));
}

bool jt_get_bool(const jt_node *obj, const char *key, bool dflt)
{
    const jt_node *n = jt_get(obj, key);
    return n && n->type == JT_BOOL ? n->boolean : dflt;
}

double jt_num(const jt_node *n, double dflt)
{
    if (!n) return dflt;
    if (n->type == JT_INT) return (double)n->u.i;
    if (n->type == JT_REAL) return n->u.d;
    return dflt;
}

bool jt_is(const jt_node *n, jt_type t)
{
    return n && n->type == t;
}

/* Decodes one pointer token (~1 → '/', ~0 → '~') into out; false if malformed. */
static bool pointer_token(const char *p, size_t n, core_buf *out)
{
    core_buf_reset(out);
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '~') {
            if (i + 1 >= n || (p[i + 1] != '0' && p[i + 1] != '1')) return false;
            c = p[i + 1] == '0' ? '~' : '/';
            i++;
        }
        if (core_buf_putc(out, c)) return false;
    }
    return true;
}

static bool parse_index(const char *s, size_t n, size_t *out)
{
    if (n == 0 || n > 10 || (n > 1 && s[0] == '0')) return false;
    size_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (size_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

const jt_node *jt_pointer(const jt_node *root, const char *pointer)
{
    if (!root || !pointer) return NULL;
    if (!*pointer) return root;
    if (*pointer != '/') return NULL;
    core_buf tok;
    core_buf_init(&tok, 1 << 20);
    const jt_node *cur = root;
    const char *p = pointer;
    while (cur && *p == '/') {
        p++;
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (!pointer_token(p, n, &tok)) {
            cur = NULL;
            break;
        }
        if (cur->type == JT_OBJECT) {
            cur = jt_getn(cur, tok.data ? tok.data : "", tok.len);
        } else if (cur->type == JT_ARRAY) {
            size_t i;
            cur = parse_index(tok.data, tok.len, &i) ? jt_at(cur, i) : NULL;
        } else {
            cur = NULL;
        }
        p += n;
    }
    core_buf_free(&tok);
    return cur;
}

int jt_pointer_append(core_buf *b, const char *key, size_t key_len)
{
    int rc = core_buf_putc(b, '/');
    for (size_t i = 0; i < key_len && !rc; i++) {
        if (key[i] == '~')
            rc = core_buf_append(b, "~0", 2);
        else if (key[i] == '/')
            rc = core_buf_append(b, "~1", 2);
        else
            rc = core_buf_putc(b, key[i]);
    }
    return rc;
}

/* ---------------------------------------------------------------- positions */

/* 1-based line and column (in code points) of byte offset off. */
static void offset_to_linecol(const char *text, size_t len, size_t off, unsigned *line,
                              unsigned *col)
{
    unsigned l = 1, c = 1;
    if (off > len) off = len;
    for (size_t i = 0; i < off; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n') {
            l++;
            c = 1;
        } else if ((ch & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static size_t json_skip_ws(const char *t, size_t n, size_t i)
{
    while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) i++;
    return i;
}

/* Skips a JSON string starting at t[i] == '"'; returns the index after the closing quote. */
static size_t json_skip_string(const char *t, size_t n, size_t i)
{
    for (i++; i < n; i++) {
        if (t[i] == '\\')
            i++;
        else if (t[i] == '"')
            return i + 1;
    }
    return n;
}

/* Skips any JSON value at t[i] without recursion. */
static size_t json_skip_value(const char *t, size_t n, size_t i)
{
    size_t depth = 0;
    while (i < n) {
        char c = t[i];
        if (c == '"') {
            i = json_skip_string(t, n, i);
            if (depth == 0) return i;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']') {
            if (depth == 0) return i; /* end of the enclosing container */
            depth--;
            if (depth == 0) return i + 1;
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t'))
            return i;
        i++;
    }
    return n;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void utf8_put(core_buf *b, unsigned cp)
{
    char s[4];
    size_t n;
    if (cp < 0x80) {
        s[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        s[0] = (char)(0xC0 | (cp >> 6));
        s[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        s[0] = (char)(0xE0 | (cp >> 12));
        s[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        s[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        s[0] = (char)(0xF0 | (cp >> 18));
        s[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        s[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        s[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    core_buf_append(b, s, n);
}

static unsigned read_hex4(const char *t, size_t n, size_t i)
{
    unsigned v = 0;
    for (size_t k = 0; k < 4; k++) {
        int h = i + k < n ? hexval(t[i + k]) : -1;
        if (h < 0) return 0xFFFD;
        v = v * 16 + (unsigned)h;
    }
    return v;
}

/* Decodes the JSON string at t[i] == '"' into out (for comparing keys). */
static void json_decode_string(const char *t, size_t n, size_t i, core_buf *out)
{
    core_buf_reset(out);
    for (i++; i < n && t[i] != '"'; i++) {
        if (t[i] != '\\') {
            core_buf_putc(out, t[i]);
            continue;
        }
        if (++i >= n) break;
        switch (t[i]) {
        case 'n':
            core_buf_putc(out, '\n');
            break;
        case 't':
            core_buf_putc(out, '\t');
            break;
        case 'r':
            core_buf_putc(out, '\r');
            break;
        case 'b':
            core_buf_putc(out, '\b');
            break;
        case 'f':
            core_buf_putc(out, '\f');
            break;
        case 'u': {
            unsigned cp = read_hex4(t, n, i + 1);
            i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 2 < n && t[i + 1] == '\\' && t[i + 2] == 'u') {
                unsigned lo = read_hex4(t, n, i + 3);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            utf8_put(out, cp);
            break;
        }
        default:
            core_buf_putc(out, t[i]);
        }
    }
}

/* Byte offset of the value at pointer in JSON text, or SIZE_MAX. */
static size_t json_locate(const char *t, size_t n, const char *pointer)
{
    core_buf tok, key;
    core_buf_init(&tok, 1 << 20);
    core_buf_init(&key, 1 << 20);
    size_t i = json_skip_ws(t, n, 0);
    const char *p = pointer;
    while (i < n && *p == '/') {
        p++;
        const char *end = strchr(p, '/');
        size_t tl = end ? (size_t)(end - p) : strlen(p);
        if (!pointer_token(p, tl, &tok)) {
            i = SIZE_MAX;
            break;
        }
        p += tl;
        size_t want_index = 0;
        bool is_arr = t[i] == '[';
        if (t[i] != '{' && !is_arr) {
            i = SIZE_MAX;
            break;
        }
        if (is_arr && !parse_index(tok.data, tok.len, &want_index)) {
            i = SIZE_MAX;
            break;
        }
        i = json_skip_ws(t, n, i + 1);
        bool found = false;
        for (size_t k = 0; i < n && t[i] != '}' && t[i] != ']'; k++) {
            if (!is_arr) {
                if (t[i] != '"') break;
                json_decode_string(t, n, i, &key);
                i = json_skip_string(t, n, i);
                i = json_skip_ws(t, n, i);
                if (i < n && t[i] == ':') i = json_skip_ws(t, n, i + 1);
                if (key.len == tok.len &&
                    memcmp(key.data ? key.data : "", tok.data ? tok.data : "", tok.len) == 0) {
                    found = true;
                    break;
                }
            } else if (k == want_index) {
                found = true;
                break;
            }
            i = json_skip_ws(t, n, json_skip_value(t, n, i));
            if (i < n && t[i] == ',') i = json_skip_ws(t, n, i + 1);
        }
        if (!found) {
            i = SIZE_MAX;
            break;
        }
    }
    core_buf_free(&tok);
    core_buf_free(&key);
    return i >= n ? SIZE_MAX : i;
}

bool jt_doc_locate(const jt_doc *doc, const char *pointer, unsigned *line, unsigned *col)
{
    if (!doc || !pointer) return false;
    const jt_node *node = jt_pointer(doc->root, pointer);
    if (node && node->line) {
        *line = node->line;
        *col = node->col;
        return true;
    }
    if (doc->format != JT_FORMAT_JSON || !doc->text) return false;
    size_t off = json_locate(doc->text, doc->text_len, pointer);
    if (off == SIZE_MAX) return false;
    offset_to_linecol(doc->text, doc->text_len, off, line, col);
    return true;
}

/* ---------------------------------------------------------------- JSON via json-c */

typedef struct build_ctx {
    core_arena *arena;
    jt_limits lim;
    size_t nodes;
    apidex_error *err;
    const char *file;
    size_t jc_charged; /* json-c's tree, charged to lim.budget until it is freed */
} build_ctx;

/* What json-c 0.16 allocates for each kind of value (measured with mallinfo2 on x86-64,
   rounded up): an object is a struct and a hash table of 16 entries of 40 bytes (even
   when empty) that doubles at 66% load, each key a strdup; an array a struct and a growing
   list of pointers; a string a struct with the bytes inline. The JSON pre-scan and the
   copy into the apidex tree count with the same numbers, so what is charged is given
   back. An empty object costs 784 bytes for 2 of text: a file of them is the worst case. */
enum {
    JC_OBJECT = 144 + 16 * 40,
    JC_ENTRY = 40,
    JC_KEY = 32,
    JC_ARRAY = 144,
    JC_ITEM = 16,
    JC_STRING = 72,
    JC_NUMBER = 96,
    JC_BOOL = 64
};

/* Entries of an object's hash table once it has count members. */
static size_t jc_table_size(size_t count)
{
    size_t size = 16;
    while (count && (count - 1) * 100 >= size * 66) size *= 2;
    return size;
}

/* Bytes the hash table grows by when an object gets its member number n (1-based). */
static size_t jc_member_growth(size_t n)
{
    return (jc_table_size(n) - jc_table_size(n - 1)) * JC_ENTRY;
}

/* The cost of a json-c value once built (its children not included). */
static size_t jc_cost(struct json_object *jo)
{
    switch (json_object_get_type(jo)) {
    case json_type_null:
        return 0;
    case json_type_boolean:
        return JC_BOOL;
    case json_type_int:
    case json_type_double:
        return JC_NUMBER;
    case json_type_string:
        return JC_STRING + (size_t)json_object_get_string_len(jo);
    case json_type_array:
        return JC_ARRAY + JC_ITEM * json_object_array_length(jo);
    case json_type_object: {
        size_t n = (size_t)json_object_object_length(jo), c = JC_OBJECT;
        for (size_t i = 1; i <= n; i++) c += jc_member_growth(i);
        json_object_object_foreach(jo, k, v)
        {
            (void)v;
            c += JC_KEY + strlen(k);
        }
        return c;
    }
    }
    return 0;
}

/* Gives back what json-c's value jo cost, now that it is about to be freed. */
static void jc_release(build_ctx *bc, struct json_object *jo)
{
    size_t c = jc_cost(jo);
    if (c > bc->jc_charged) c = bc->jc_charged;
    core_budget_release(bc->lim.budget, c);
    bc->jc_charged -= c;
}

/* Charges lim.budget with what json-c's tree of text will cost, scanning the text once
   (strings skipped, containers counted on a stack). Returns 0, or APIDEX_ELIMIT with *at
   the offset where the cost passed what the budget has left. Malformed text is json-c's
   to report: the scan stops at what it cannot read, having charged what it saw. */
static int jc_precharge(build_ctx *bc, const char *t, size_t n, size_t *at)
{
    core_budget *b = bc->lim.budget;
    if (!b || !b->limit) return 0;
    size_t room = b->used < b->limit ? b->limit - b->used : 0;
    size_t depth_cap = (size_t)bc->lim.max_depth + 2, depth = 0;
    size_t *members = malloc(depth_cap * sizeof *members); /* of each open container */
    bool *is_obj = malloc(depth_cap * sizeof *is_obj);
    if (!members || !is_obj) {
        free(members);
        free(is_obj);
        return 0; /* json-c will not get far either */
    }
    size_t cost = 0;
    int rc = 0;
    bool key_next = false;
    for (size_t i = 0; i < n && !rc;) {
        char c = t[i];
        size_t add = 0, start = i;
        if (c == '"') {
            size_t end = json_skip_string(t, n, i);
            size_t len = end - i - 2 < end ? end - i - 2 : 0;
            if (key_next) {
                add = JC_KEY + len + jc_member_growth(++members[depth - 1]);
                key_next = false;
            } else {
                add = JC_STRING + len;
            }
            i = end;
        } else if (c == '{' || c == '[') {
            if (depth + 1 >= depth_cap) break; /* deeper than the limit: json-c says so */
            if (depth && !is_obj[depth - 1]) add += JC_ITEM;
            add += c == '{' ? JC_OBJECT : JC_ARRAY;
            is_obj[depth] = c == '{';
            members[depth++] = 0;
            key_next = c == '{';
            i++;
        } else if (c == '}' || c == ']') {
            if (depth) depth--;
            key_next = false;
            i++;
        } else if (c == ',') {
            key_next = depth && is_obj[depth - 1];
            i++;
        } else if (c == 't' || c == 'f') {
            add = JC_BOOL;
            while (i < n && t[i] >= 'a' && t[i] <= 'z') i++;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            add = JC_NUMBER;
            while (i < n && (t[i] == '-' || t[i] == '+' || t[i] == '.' || t[i] == 'e' ||
                             t[i] == 'E' || (t[i] >= '0' && t[i] <= '9')))
                i++;
        } else {
            i++; /* white space, ':', null */
        }
        /* a scalar in an array takes a slot of the list */
        if (add && c != '{' && c != '[' && depth && !is_obj[depth - 1]) add += JC_ITEM;
        cost += add;
        if (cost > room) {
            *at = start;
            rc = APIDEX_ELIMIT;
        }
    }
    free(members);
    free(is_obj);
    if (!rc && core_budget_charge(b, cost)) {
        bc->jc_charged = cost;
        return 0;
    }
    if (!rc) *at = n;
    b->over = true;
    if (cost > b->over_by) b->over_by = cost;
    return APIDEX_ELIMIT;
}

/* Converts a json-c tree; depth is bounded by the tokener's depth limit. */
static jt_node *from_jsonc(build_ctx *bc, struct json_object *jo)
{
    if (++bc->nodes > bc->lim.max_nodes) return NULL;
    switch (json_object_get_type(jo)) {
    case json_type_null:
        return node_new(bc->arena, JT_NULL);
    case json_type_boolean:
        return jt_new_bool(bc->arena, json_object_get_boolean(jo));
    case json_type_int: {
        jt_node *n = node_new(bc->arena, JT_INT);
        if (n) n->u.i = json_object_get_int64(jo);
        return n;
    }
    case json_type_double: {
        jt_node *n = node_new(bc->arena, JT_REAL);
        if (n) n->u.d = json_object_get_double(jo);
        return n;
    }
    case json_type_string:
        return jt_new_string(bc->arena, json_object_get_string(jo),
                             (size_t)json_object_get_string_len(jo));
    case json_type_array: {
        size_t cnt = json_object_array_length(jo);
        jt_node *n = jt_new_array(bc->arena, cnt);
        if (!n) return NULL;
        for (size_t i = 0; i < cnt; i++) {
            struct json_object *child = json_object_array_get_idx(jo, i);
            n->u.items[i] = from_jsonc(bc, child);
            if (!n->u.items[i]) return NULL;
            /* each json-c child freed once copied: the peak is one tree, not two */
            jc_release(bc, child);
            json_object_array_put_idx(jo, i, NULL);
        }
        return n;
    }
    case json_type_object: {
        size_t cnt = (size_t)json_object_object_length(jo);
        jt_node *n = jt_new_object(bc->arena, cnt);
        if (!n) return NULL;
        size_t i = 0;
        json_object_object_foreach(jo, k, v)
        {
            if (i >= cnt) break;
            jt_member *m = &n->u.members[i++];
            m->key_len = (uint32_t)strlen(k);
            m->key = core_arena_strndup(bc->arena, k, m->key_len);
            m->value = from_jsonc(bc, v);
            if (!m->key || !m->value) return NULL;
            /* replaces the value in its entry (no rehash: the walk goes on) and frees it */
            jc_release(bc, v);
            json_object_object_add(jo, k, NULL);
        }
        n->len = (uint32_t)i;
        jt_object_finish(bc->arena, n);
        return n;
    }
    }
    return NULL;
}

static int parse_json(jt_doc *doc, build_ctx *bc)
{
    if (doc->text_len > INT32_MAX)
        return core_error_set(bc->err, APIDEX_ELIMIT, "document too large for the JSON parser");
    size_t over_at = 0;
    if (jc_precharge(bc, doc->text, doc->text_len, &over_at)) {
        unsigned line, col;
        offset_to_linecol(doc->text, doc->text_len, over_at, &line, &col);
        core_budget_error(bc->lim.budget, bc->err);
        core_error_at(bc->err, bc->file, line, col, NULL);
        return APIDEX_ELIMIT;
    }
    struct json_tokener *tok = json_tokener_new_ex((int)bc->lim.max_depth);
    if (!tok) {
        core_budget_release(bc->lim.budget, bc->jc_charged);
        bc->jc_charged = 0;
        return core_error_set(bc->err, APIDEX_ENOMEM, "out of memory");
    }
    struct json_object *jo = json_tokener_parse_ex(tok, doc->text, (int)doc->text_len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    int rc = 0;
    if (!jo || jerr != json_tokener_success) {
        if (jerr == json_tokener_continue) end = doc->text_len;
        unsigned line, col;
        offset_to_linecol(doc->text, doc->text_len, end, &line, &col);
        rc = core_error_set(
            bc->err, jerr == json_tokener_error_depth ? APIDEX_ELIMIT : APIDEX_EPARSE,
            "invalid JSON: %s%s",
            jerr == json_tokener_continue ? "unexpected end of input"
                                          : json_tokener_error_desc(jerr),
            jerr == json_tokener_error_depth ? core_arena_printf(doc->arena,
                                                                 " (nesting deeper than the "
                                                                 "limit of %u levels)",
                                                                 bc->lim.max_depth)
                                             : "");
        core_error_at(bc->err, bc->file, line, col, NULL);
    } else {
        size_t rest = json_skip_ws(doc->text, doc->text_len, end);
        if (rest < doc->text_len && doc->text[rest] != '\0') {
            unsigned line, col;
            offset_to_linecol(doc->text, doc->text_len, rest, &line, &col);
            rc = core_error_set(bc->err, APIDEX_EPARSE,
                                "invalid JSON: unexpected data after the document");
            core_error_at(bc->err, bc->file, line, col, NULL);
        } else {
            doc->root = from_jsonc(bc, jo);
            if (!doc->root) {
                rc = bc->nodes > bc->lim.max_nodes
                         ? core_error_set(bc->err, APIDEX_ELIMIT,
                                          "document has more than %zu nodes", bc->lim.max_nodes)
                     : bc->lim.budget && bc->lim.budget->over
                         ? core_budget_error(bc->lim.budget, bc->err)
                         : core_error_set(bc->err, APIDEX_ENOMEM, "out of memory");
                core_error_at(bc->err, bc->file, 0, 0, NULL);
            }
        }
    }
    json_object_put(jo);
    json_tokener_free(tok);
    core_budget_release(bc->lim.budget, bc->jc_charged);
    bc->jc_charged = 0;
    return rc;
}

/* ---------------------------------------------------------------- YAML via libfyaml events */

typedef struct yaml_frame {
    jt_node *node;   /* the collection being built */
    size_t base;     /* index of its first child on the value stack */
    uint64_t weight; /* nodes it expands to (aliases counted in full) */
    const char *anchor;
    size_t anchor_len;
} yaml_frame;

typedef struct yaml_anchor {
    char *name;
    size_t name_len;
    jt_node *node;
    uint64_t weight;
} yaml_anchor;

typedef struct yaml_builder {
    build_ctx *bc;
    yaml_frame *frames;
    size_t n_frames, cap_frames;
    jt_node **stack; /* children of open collections; maps push key, value, key, value */
    uint64_t *weights;
    size_t n_stack, cap_stack;
    yaml_anchor *anchors;
    size_t n_anchors, cap_anchors;
} yaml_builder;

static int yb_push(yaml_builder *yb, jt_node *n, uint64_t w)
{
    if (yb->n_stack == yb->cap_stack) {
        size_t cap = yb->cap_stack ? yb->cap_stack * 2 : 256;
        jt_node **s = realloc(yb->stack, cap * sizeof *s);
        if (!s) return APIDEX_ENOMEM;
        yb->stack = s;
        uint64_t *ws = realloc(yb->weights, cap * sizeof *ws);
        if (!ws) return APIDEX_ENOMEM;
        yb->weights = ws;
        yb->cap_stack = cap;
    }
    yb->stack[yb->n_stack] = n;
    yb->weights[yb->n_stack++] = w;
    return 0;
}

static int yb_anchor(yaml_builder *yb, const char *name, size_t len, jt_node *n, uint64_t w)
{
    if (!name) return 0;
    /* A redefined anchor replaces the old one for later aliases (YAML spec). */
    if (yb->n_anchors == yb->cap_anchors) {
        size_t cap = yb->cap_anchors ? yb->cap_anchors * 2 : 16;
        yaml_anchor *a = realloc(yb->anchors, cap * sizeof *a);
        if (!a) return APIDEX_ENOMEM;
        yb->anchors = a;
        yb->cap_anchors = cap;
    }
    yaml_anchor *a = &yb->anchors[yb->n_anchors];
    a->name = core_arena_strndup(yb->bc->arena, name, len);
    if (!a->name) return APIDEX_ENOMEM;
    a->name_len = len;
    a->node = n;
    a->weight = w;
    yb->n_anchors++;
    return 0;
}

static const yaml_anchor *yb_find_anchor(const yaml_builder *yb, const char *name, size_t len)
{
    for (size_t i = yb->n_anchors; i-- > 0;) {
        const yaml_anchor *a = &yb->anchors[i];
        if (a->name_len == len && memcmp(a->name, name, len) == 0) return a;
    }
    return NULL;
}

static bool str_in(const char *s, size_t n, const char *const *list)
{
    for (; *list; list++)
        if (strlen(*list) == n && memcmp(*list, s, n) == 0) return true;
    return false;
}

/* YAML 1.2 core schema resolution of a plain scalar. */
static jt_node *yaml_plain_scalar(core_arena *a, const char *s, size_t n)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
    static const char *const trues[] = {"true", "True", "TRUE", NULL};
    static const char *const falses[] = {"false", "False", "FALSE", NULL};
    if (str_in(s, n, nulls)) return node_new(a, JT_NULL);
    if (str_in(s, n, trues)) return jt_new_bool(a, true);
    if (str_in(s, n, falses)) return jt_new_bool(a, false);
    if (n > 0 && n < 64) {
        char buf[64];
        memcpy(buf, s, n);
        buf[n] = '\0';
        char *end;
        /* integers: [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+ */
        const char *d = buf + (buf[0] == '-' || buf[0] == '+');
        bool digits = *d != '\0';
        for (const char *q = d; *q; q++)
            if (*q < '0' || *q > '9') digits = false;
        if (digits) {
            errno = 0;
            long long v = strtoll(buf, &end, 10);
            if (!*end && errno == 0) {
                jt_node *x = node_new(a, JT_INT);
                if (x) x->u.i = v;
                return x;
            }
        }
        if (n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'o')) {
            errno = 0;
            long long v = strtoll(buf + 2, &end, buf[1] == 'x' ? 16 : 8);
            if (!*end && errno == 0) {
                jt_node *x = node_new(a, JT_INT);
                if (x) x->u.i = v;
                return x;
            }
        }
        /* floats: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, .inf, .nan */
        static const char *const infs[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", NULL};
        static const char *const ninfs[] = {"-.inf", "-.Inf", "-.INF", NULL};
        static const char *const nans[] = {".nan", ".NaN", ".NAN", NULL};
        if (str_in(s, n, infs) || str_in(s, n, ninfs) || str_in(s, n, nans)) {
            jt_node *x = node_new(a, JT_REAL);
            if (x) x->u.d = str_in(s, n, nans) ? NAN : str_in(s, n, infs) ? INFINITY : -INFINITY;
            return x;
        }
        bool numeric = true, seen_digit = false;
        for (const char *q = d; *q && numeric; q++) {
            if (*q >= '0' && *q <= '9')
                seen_digit = true;
            else if (*q != '.' && *q != 'e' && *q != 'E' && *q != '-' && *q != '+')
                numeric = false;
        }
        if (numeric && seen_digit && (isdigit((unsigned char)*d) || *d == '.')) {
            double v = strtod(buf, &end);
            if (!*end) {
                jt_node *x = node_new(a, JT_REAL);
                if (x) x->u.d = v;
                return x;
            }
        }
    }
    return jt_new_string(a, s, n);
}

static const char *token_text(struct fy_token *t, size_t *len)
{
    *len = 0;
    if (!t) return NULL;
    const char *s = fy_token_get_text(t, len);
    return s;
}

/* Closes the innermost collection: moves its children from the stack into the node. */
static int yb_close(yaml_builder *yb, apidex_error *err, const char *file)
{
    yaml_frame *f = &yb->frames[--yb->n_frames];
    size_t count = yb->n_stack - f->base;
    jt_node *n = f->node;
    core_arena *a = yb->bc->arena;
    if (n->type == JT_ARRAY) {
        n->u.items = count ? core_arena_alloc(a, count * sizeof(jt_node *)) : NULL;
        if (count && !n->u.items) return APIDEX_ENOMEM;
        if (count) memcpy(n->u.items, yb->stack + f->base, count * sizeof(jt_node *));
        n->len = (uint32_t)count;
    } else {
        size_t pairs = count / 2;
        /* Merge keys ("<<": mapping or list of mappings) bring in members the map lacks. */
        size_t extra = 0;
        for (size_t i = 0; i < pairs; i++) {
            jt_node *k = yb->stack[f->base + 2 * i], *v = yb->stack[f->base + 2 * i + 1];
            if (k->len == 2 && memcmp(k->u.s, "<<", 2) == 0 && k->reserved) {
                if (v->type == JT_OBJECT)
                    extra += v->len;
                else if (v->type == JT_ARRAY)
                    for (uint32_t j = 0; j < v->len; j++)
                        if (v->u.items[j]->type == JT_OBJECT) extra += v->u.items[j]->len;
            }
        }
        jt_member *m = core_arena_calloc(a, pairs + extra ? pairs + extra : 1, sizeof *m);
        if (!m) return APIDEX_ENOMEM;
        size_t out = 0;
        for (size_t i = 0; i < pairs; i++) {
            jt_node *k = yb->stack[f->base + 2 * i], *v = yb->stack[f->base + 2 * i + 1];
            if (k->len == 2 && memcmp(k->u.s, "<<", 2) == 0 && k->reserved) continue;
            m[out].key = k->u.s;
            m[out].key_len = k->len;
            m[out].value = v;
            out++;
        }
        n->u.members = m;
        n->len = (uint32_t)out;
        for (size_t i = 0; i < pairs && extra; i++) {
            jt_node *k = yb->stack[f->base + 2 * i], *v = yb->stack[f->base + 2 * i + 1];
            if (!(k->len == 2 && memcmp(k->u.s, "<<", 2) == 0 && k->reserved)) continue;
            size_t nsrc = v->type == JT_OBJECT ? 1 : v->len;
            for (size_t s = 0; s < nsrc; s++) {
                const jt_node *src = v->type == JT_OBJECT ? v : v->u.items[s];
                if (!src || src->type != JT_OBJECT) continue;
                for (uint32_t j = 0; j < src->len; j++) {
                    bool have = false;
                    for (size_t q = 0; q < out && !have; q++)
                        have = m[q].key_len == src->u.members[j].key_len &&
                               memcmp(m[q].key, src->u.members[j].key, m[q].key_len) == 0;
                    if (!have) m[out++] = src->u.members[j];
                }
            }
        }
        n->len = (uint32_t)out;
        jt_object_finish(a, n);
    }
    yb->n_stack = f->base;
    if (yb_anchor(yb, f->anchor, f->anchor_len, n, f->weight)) return APIDEX_ENOMEM;
    (void)err;
    (void)file;
    return 0;
}

/* Adds a finished value to the innermost open collection (or makes it the root). */
static int yb_add(yaml_builder *yb, jt_node *n, uint64_t w, jt_node **root)
{
    if (yb->n_frames == 0) {
        *root = n;
        return 0;
    }
    yaml_frame *f = &yb->frames[yb->n_frames - 1];
    f->weight += w;
    if (f->weight > yb->bc->lim.max_nodes) return APIDEX_ELIMIT;
    return yb_push(yb, n, w);
}

/* The first error libfyaml reports, as "LINE:COL: error: MESSAGE". Collecting errors in
   the diag object instead leaks them in libfyaml 0.7.12, so the text is captured here. */
typedef struct yaml_diag_capture {
    char text[512];
    bool have;
} yaml_diag_capture;

static void yaml_diag_output(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
    (void)diag;
    yaml_diag_capture *cap = user;
    if (cap->have || !buf) return;
    if (len >= sizeof cap->text) len = sizeof cap->text - 1;
    memcpy(cap->text, buf, len);
    cap->text[len] = '\0';
    cap->have = true;
}

/* Splits a captured "SOURCE:L:C: error: msg" into its parts (line/col 0 when absent). */
static const char *yaml_diag_parse(char *text, unsigned *line, unsigned *col)
{
    *line = *col = 0;
    char *msg = strstr(text, "error:");
    if (!msg) return "syntax error";
    /* walk back over ": " and "L:C" */
    char *p = msg;
    while (p > text && (p[-1] == ' ' || p[-1] == ':')) p--;
    char *c_end = p;
    while (p > text && isdigit((unsigned char)p[-1])) p--;
    if (p < c_end && p > text && p[-1] == ':') {
        char *c_start = p;
        p--;
        char *l_end = p;
        while (p > text && isdigit((unsigned char)p[-1])) p--;
        if (p < l_end) {
            *line = (unsigned)strtoul(p, NULL, 10);
            *col = (unsigned)strtoul(c_start, NULL, 10);
        }
    }
    msg += 6;
    while (*msg == ' ') msg++;
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = '\0';
    return *msg ? msg : "syntax error";
}

/* Length of the valid UTF-8 sequence at t[i] (RFC 3629), 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *t, size_t n, size_t i)
{
    unsigned char c = t[i];
    size_t len = c < 0x80             ? 1
                 : (c & 0xE0) == 0xC0 ? 2
                 : (c & 0xF0) == 0xE0 ? 3
                 : (c & 0xF8) == 0xF0 ? 4
                                      : 0;
    if (!len || i + len > n || (len == 2 && c < 0xC2) || (len == 4 && c > 0xF4)) return 0;
    for (size_t k = 1; k < len; k++)
        if ((t[i + k] & 0xC0) != 0x80) return 0;
    if (len == 3 && ((c == 0xE0 && t[i + 1] < 0xA0) || (c == 0xED && t[i + 1] >= 0xA0))) return 0;
    if (len == 4 && ((c == 0xF0 && t[i + 1] < 0x90) || (c == 0xF4 && t[i + 1] >= 0x90))) return 0;
    return len;
}

static int parse_yaml(jt_doc *doc, build_ctx *bc)
{
    apidex_error *err = bc->err;
    yaml_diag_capture cap = {.have = false};
    struct fy_diag_cfg dcfg;
    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.output_fn = yaml_diag_output;
    dcfg.user = &cap;
    dcfg.level = FYET_ERROR;
    dcfg.colorize = false;
    dcfg.show_source = false;
    dcfg.show_position = true;
    dcfg.show_type = true;
    dcfg.show_module = false;
    dcfg.source_width = 0;
    dcfg.position_width = 0;
    dcfg.type_width = 0;
    struct fy_diag *diag = fy_diag_create(&dcfg);
    if (!diag) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    struct fy_parse_cfg cfg = {0};
    cfg.flags =
        FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2 | FYPCF_JSON_NONE | FYPCF_ALLOW_DUPLICATE_KEYS;
    cfg.diag = diag;
    struct fy_parser *fyp = fy_parser_create(&cfg);
    if (!fyp) {
        fy_diag_unref(diag);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    int rc = fy_parser_set_string(fyp, doc->text, doc->text_len) == 0 ? 0 : APIDEX_EPARSE;
    yaml_builder yb = {.bc = bc};
    jt_node *root = NULL;
    unsigned docs = 0, err_line = 0, err_col = 0, yb_line = 0, yb_col = 0;
    const char *why = NULL;
    struct fy_event *ev;
    while (!rc && (ev = fy_parser_parse(fyp)) != NULL) {
        const struct fy_mark *mk = fy_event_start_mark(ev);
        unsigned line = mk ? (unsigned)mk->line + 1 : 0, col = mk ? (unsigned)mk->column + 1 : 0;
        yb_line = line;
        yb_col = col;
        switch (ev->type) {
        case FYET_DOCUMENT_START:
            if (++docs > 1) {
                rc = APIDEX_EPARSE;
                why = "more than one YAML document in the file";
                err_line = line;
                err_col = col;
            }
            break;
        case FYET_MAPPING_START:
        case FYET_SEQUENCE_START: {
            bool is_map = ev->type == FYET_MAPPING_START;
            if (yb.n_frames >= bc->lim.max_depth) {
                rc = APIDEX_ELIMIT;
                why = core_arena_printf(bc->arena, "nesting deeper than the limit of %u levels",
                                        bc->lim.max_depth);
                err_line = line;
                err_col = col;
                break;
            }
            if (yb.n_frames > 0 && yb.frames[yb.n_frames - 1].node->type == JT_OBJECT &&
                ((yb.n_stack - yb.frames[yb.n_frames - 1].base) % 2) == 0) {
                rc = APIDEX_EUNSUPPORTED;
                why = "a mapping key that is itself a collection is not supported";
                err_line = line;
                err_col = col;
                break;
            }
            if (++bc->nodes > bc->lim.max_nodes) {
                rc = APIDEX_ELIMIT;
                why = "too many nodes";
                break;
            }
            jt_node *n = node_new(bc->arena, is_map ? JT_OBJECT : JT_ARRAY);
            if (!n) {
                rc = APIDEX_ENOMEM;
                break;
            }
            n->line = line;
            n->col = col;
            if (yb.n_frames == yb.cap_frames) {
                size_t ncap = yb.cap_frames ? yb.cap_frames * 2 : 32;
                yaml_frame *fr = realloc(yb.frames, ncap * sizeof *fr);
                if (!fr) {
                    rc = APIDEX_ENOMEM;
                    break;
                }
                yb.frames = fr;
                yb.cap_frames = ncap;
            }
            yaml_frame *f = &yb.frames[yb.n_frames++];
            f->node = n;
            f->base = yb.n_stack;
            f->weight = 1;
            f->anchor = token_text(is_map ? ev->mapping_start.anchor : ev->sequence_start.anchor,
                                   &f->anchor_len);
            break;
        }
        case FYET_MAPPING_END:
        case FYET_SEQUENCE_END: {
            if (yb.n_frames == 0) break;
            jt_node *n = yb.frames[yb.n_frames - 1].node;
            uint64_t w = yb.frames[yb.n_frames - 1].weight;
            rc = yb_close(&yb, err, doc->file);
            if (!rc) rc = yb_add(&yb, n, w, &root);
            if (rc == APIDEX_ELIMIT) why = "aliases expand to more nodes than the limit";
            break;
        }
        case FYET_SCALAR: {
            if (++bc->nodes > bc->lim.max_nodes) {
                rc = APIDEX_ELIMIT;
                why = "too many nodes";
                break;
            }
            size_t len;
            const char *s = token_text(ev->scalar.value, &len);
            if (!s) s = "";
            bool is_key = yb.n_frames > 0 && yb.frames[yb.n_frames - 1].node->type == JT_OBJECT &&
                          ((yb.n_stack - yb.frames[yb.n_frames - 1].base) % 2) == 0;
            enum fy_scalar_style style = fy_token_scalar_style(ev->scalar.value);
            jt_node *n;
            if (is_key || style != FYSS_PLAIN || ev->scalar.tag) {
                n = jt_new_string(bc->arena, s, len);
                /* Only a plain "<<" key is a merge key. */
                if (n && is_key && style == FYSS_PLAIN && !ev->scalar.tag) n->reserved = 1;
            } else {
                n = yaml_plain_scalar(bc->arena, s, len);
            }
            if (!n) {
                rc = APIDEX_ENOMEM;
                break;
            }
            n->line = line;
            n->col = col;
            size_t alen;
            const char *an = token_text(ev->scalar.anchor, &alen);
            if (an) rc = yb_anchor(&yb, an, alen, n, 1);
            if (!rc) rc = yb_add(&yb, n, 1, &root);
            if (rc == APIDEX_ELIMIT) why = "aliases expand to more nodes than the limit";
            break;
        }
        case FYET_ALIAS: {
            size_t alen;
            const char *an = token_text(ev->alias.anchor, &alen);
            const yaml_anchor *a = an ? yb_find_anchor(&yb, an, alen) : NULL;
            if (!a) {
                rc = APIDEX_EPARSE;
                why = "alias to an unknown (or not yet complete) anchor";
                err_line = line;
                err_col = col;
                break;
            }
            bool is_key = yb.n_frames > 0 && yb.frames[yb.n_frames - 1].node->type == JT_OBJECT &&
                          ((yb.n_stack - yb.frames[yb.n_frames - 1].base) % 2) == 0;
            if (is_key && a->node->type != JT_STRING) {
                rc = APIDEX_EUNSUPPORTED;
                why = "an alias used as a mapping key must name a scalar";
                err_line = line;
                err_col = col;
                break;
            }
            jt_node *target = a->node;
            if (is_key && target->reserved) {
                /* keep the shared key node free of the merge-key mark */
                target = jt_new_string(bc->arena, target->u.s, target->len);
                if (!target) {
                    rc = APIDEX_ENOMEM;
                    break;
                }
            }
            rc = yb_add(&yb, target, a->weight, &root);
            if (rc == APIDEX_ELIMIT) {
                why = "aliases expand to more nodes than the limit (alias bomb?)";
                err_line = line;
                err_col = col;
            }
            break;
        }
        default:
            break;
        }
        fy_parser_event_free(fyp, ev);
    }
    if (!rc && fy_parser_get_stream_error(fyp)) {
        rc = APIDEX_EPARSE;
        why = NULL;
    }
    if (rc == APIDEX_EPARSE && !why) {
        if (cap.have) {
            unsigned line, col;
            const char *msg = yaml_diag_parse(cap.text, &line, &col);
            core_error_set(err, APIDEX_EPARSE, "invalid YAML: %s", msg);
            core_error_at(err, doc->file, line, col, NULL);
        } else {
            core_error_set(err, APIDEX_EPARSE, "invalid YAML");
            core_error_at(err, doc->file, 0, 0, NULL);
        }
    } else if (rc) {
        if (rc == APIDEX_ENOMEM && bc->lim.budget && bc->lim.budget->over) {
            /* where the parser was when the budget ran out */
            rc = core_budget_error(bc->lim.budget, err);
            core_error_at(err, doc->file, yb_line, yb_col, NULL);
        } else {
            if (rc == APIDEX_ENOMEM) why = "out of memory";
            core_error_set(err, rc, "%s%s", rc == APIDEX_EPARSE ? "invalid YAML: " : "",
                           why ? why : "YAML error");
            core_error_at(err, doc->file, err_line, err_col, NULL);
        }
    } else if (!root) {
        rc = core_error_set(err, APIDEX_EPARSE, "empty document");
        core_error_at(err, doc->file, 0, 0, NULL);
    }
    doc->root = root;
    free(yb.frames);
    free(yb.stack);
    free(yb.weights);
    free(yb.anchors);
    fy_parser_destroy(fyp);
    fy_diag_unref(diag);
    return rc;
}

/* ---------------------------------------------------------------- documents */

/* Replaces every byte that is not part of valid UTF-8 with '?', in place (positions and
   lengths stay as they were). Later stages may then rely on valid UTF-8, and libfyaml
   never sees invalid input (it leaks on some). Returns the number of bytes replaced. */
static size_t utf8_sanitize(char *text, size_t len, size_t *first)
{
    size_t fixed = 0;
    unsigned char *s = (unsigned char *)text;
    for (size_t i = 0; i < len;) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = utf8_seq_len(s, len, i);
        if (k) {
            i += k;
        } else {
            if (!fixed) *first = i;
            s[i++] = '?';
            fixed++;
        }
    }
    return fixed;
}

int jt_doc_parse(char *text, size_t len, const char *file, const jt_limits *lim_in, jt_doc **out,
                 apidex_error *err)
{
    *out = NULL;
    jt_limits lim;
    limits_fill(&lim, lim_in);
    if (len > lim.max_bytes) {
        free(text);
        core_error_set(err, APIDEX_ELIMIT, "document is %zu bytes, over the limit of %zu", len,
                       lim.max_bytes);
        core_error_at(err, file, 0, 0, NULL);
        return APIDEX_ELIMIT;
    }
    jt_doc *doc = calloc(1, sizeof *doc);
    core_arena *arena = core_arena_new(0);
    if (!doc || !arena) {
        free(doc);
        core_arena_free(arena);
        free(text);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    doc->arena = arena;
    doc->text = text;
    doc->text_len = len;
    /* the text stays with the document (for positions): it is charged like the tree */
    if (!core_budget_charge(lim.budget, len)) {
        int brc = core_budget_error(lim.budget, err);
        core_error_at(err, file, 0, 0, NULL);
        jt_doc_free(doc);
        return brc;
    }
    doc->budget = lim.budget;
    core_arena_set_budget(arena, lim.budget);
    doc->file = core_arena_strdup(arena, file ? file : "");
    build_ctx bc = {.arena = arena, .lim = lim, .err = err, .file = doc->file};

    size_t bad_at = 0;
    doc->invalid_utf8 = utf8_sanitize(text, len, &bad_at);
    if (doc->invalid_utf8)
        offset_to_linecol(text, len, bad_at, &doc->invalid_utf8_line, &doc->invalid_utf8_col);
    size_t i = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) i = 3; /* UTF-8 BOM */
    i = json_skip_ws(text, len, i);
    bool looks_json = i < len && (text[i] == '{' || text[i] == '[');
    int rc;
    if (looks_json) {
        doc->format = JT_FORMAT_JSON;
        if (i) {
            /* json-c does not skip a BOM */
            memset(text, ' ', i);
        }
        rc = parse_json(doc, &bc);
        if (rc == APIDEX_EPARSE) {
            /* A YAML flow document can start with '{' too: accept it if YAML does. */
            apidex_error yerr;
            core_error_clear(&yerr);
            build_ctx ybc = bc;
            ybc.err = &yerr;
            ybc.nodes = 0;
            doc->format = JT_FORMAT_YAML;
            if (parse_yaml(doc, &ybc) == 0)
                rc = 0;
            else
                doc->format = JT_FORMAT_JSON;
        }
    } else {
        doc->format = JT_FORMAT_YAML;
        rc = parse_yaml(doc, &bc);
    }
    if (rc) {
        jt_doc_free(doc);
        return rc;
    }
    *out = doc;
    return 0;
}

int jt_doc_load(const char *path, const jt_limits *lim_in, jt_doc **out, apidex_error *err)
{
    jt_limits lim;
    limits_fill(&lim, lim_in);
    char *text;
    size_t len;
    *out = NULL;
    int rc = core_file_read(path, lim.max_bytes, &text, &len, err);
    if (rc) return rc;
    return jt_doc_parse(text, len, path, &lim, out, err);
}

void jt_doc_free(jt_doc *doc)
{
    if (!doc) return;
    core_budget_release(doc->budget, doc->text_len);
    free(doc->text);
    core_arena_free(doc->arena);
    free(doc);
}

/* ---------------------------------------------------------------- writing */

static int write_indent(core_buf *b, int indent, int level)
{
    if (indent < 0) return 0;
    int rc = core_buf_putc(b, '\n');
    for (int i = 0; i < indent * level && !rc; i++) rc = core_buf_putc(b, ' ');
    return rc;
}

static int write_node(core_buf *b, const jt_node *n, int indent, int level)
{
    if (level > 4096) return APIDEX_ELIMIT;
    if (!n) return core_buf_puts(b, "null");
    switch ((jt_type)n->type) {
    case JT_NULL:
        return core_buf_puts(b, "null");
    case JT_BOOL:
        return core_buf_puts(b, n->boolean ? "true" : "false");
    case JT_INT:
        return core_buf_printf(b, "%lld", (long long)n->u.i);
    case JT_REAL:
        if (!isfinite(n->u.d)) return core_buf_puts(b, "null");
        return core_buf_printf(b, "%.17g", n->u.d);
    case JT_STRING:
        return core_buf_json_str(b, n->u.s, n->len);
    case JT_ARRAY: {
        int rc = core_buf_putc(b, '[');
        for (uint32_t i = 0; i < n->len && !rc; i++) {
            if (i) rc = core_buf_putc(b, ',');
            if (!rc) rc = write_indent(b, indent, level + 1);
            if (!rc) rc = write_node(b, n->u.items[i], indent, level + 1);
        }
        if (!rc && n->len) rc = write_indent(b, indent, level);
        return rc ? rc : core_buf_putc(b, ']');
    }
    case JT_OBJECT: {
        int rc = core_buf_putc(b, '{');
        for (uint32_t i = 0; i < n->len && !rc; i++) {
            if (i) rc = core_buf_putc(b, ',');
            if (!rc) rc = write_indent(b, indent, level + 1);
            if (!rc) rc = core_buf_json_str(b, n->u.members[i].key, n->u.members[i].key_len);
            if (!rc) rc = core_buf_append(b, indent >= 0 ? ": " : ":", indent >= 0 ? 2 : 1);
            if (!rc) rc = write_node(b, n->u.members[i].value, indent, level + 1);
        }
        if (!rc && n->len) rc = write_indent(b, indent, level);
        return rc ? rc : core_buf_putc(b, '}');
    }
    }
    return APIDEX_EINVAL;
}

int jt_write_json(core_buf *b, const jt_node *n, int indent)
{
    return write_node(b, n, indent, 0);
}
