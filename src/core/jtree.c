/* The JSON/YAML document tree: nodes in one arena, lookups, positions, documents and
   writing; JSON is read by jt_parse_json.c, YAML by jt_yaml.c. */
#include "core/jtree_int.h"

#include <ctype.h>
#include <errno.h>
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

jt_node *jt_node_new(core_arena *a, jt_type t)
{
    jt_node *n = core_arena_alloc(a, sizeof *n);
    if (!n) return NULL;
    memset(n, 0, sizeof *n);
    n->type = (uint8_t)t;
    return n;
}

jt_node *jt_new_string(core_arena *a, const char *s, size_t len)
{
    jt_node *n = jt_node_new(a, JT_STRING);
    if (!n || len > UINT32_MAX) return NULL;
    n->u.s = core_arena_strndup(a, s, len);
    if (!n->u.s) return NULL;
    n->len = (uint32_t)len;
    return n;
}

jt_node *jt_new_bool(core_arena *a, bool v)
{
    jt_node *n = jt_node_new(a, JT_BOOL);
    if (n) n->boolean = v;
    return n;
}

jt_node *jt_new_array(core_arena *a, size_t count)
{
    jt_node *n = jt_node_new(a, JT_ARRAY);
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
    jt_node *n = jt_node_new(a, JT_OBJECT);
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
void jt_offset_linecol(const char *text, size_t len, size_t off, unsigned *line, unsigned *col)
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

int jt_hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

size_t jt_utf8_encode(unsigned cp, char s[4])
{
    if (cp < 0x80) {
        s[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        s[0] = (char)(0xC0 | (cp >> 6));
        s[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        s[0] = (char)(0xE0 | (cp >> 12));
        s[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        s[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    s[0] = (char)(0xF0 | (cp >> 18));
    s[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    s[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    s[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static void utf8_put(core_buf *b, unsigned cp)
{
    char s[4];
    core_buf_append(b, s, jt_utf8_encode(cp, s));
}

static unsigned read_hex4(const char *t, size_t n, size_t i)
{
    unsigned v = 0;
    for (size_t k = 0; k < 4; k++) {
        int h = i + k < n ? jt_hex_digit(t[i + k]) : -1;
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
    jt_offset_linecol(doc->text, doc->text_len, off, line, col);
    return true;
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
        jt_offset_linecol(text, len, bad_at, &doc->invalid_utf8_line, &doc->invalid_utf8_col);
    size_t i = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) i = 3; /* UTF-8 BOM */
    i = json_skip_ws(text, len, i);
    bool looks_json = i < len && (text[i] == '{' || text[i] == '[');
    int rc;
    if (looks_json) {
        doc->format = JT_FORMAT_JSON;
        if (i) {
            /* the JSON parser reads no BOM (json-c read none either) */
            memset(text, ' ', i);
        }
        rc = jt_parse_json(doc, &bc);
        if (rc == APIDEX_EPARSE) {
            /* A YAML flow document can start with '{' too: accept it if YAML does. */
            apidex_error yerr;
            core_error_clear(&yerr);
            build_ctx ybc = bc;
            ybc.err = &yerr;
            ybc.nodes = 0;
            doc->format = JT_FORMAT_YAML;
            if (jt_parse_yaml(doc, &ybc) == 0)
                rc = 0;
            else
                doc->format = JT_FORMAT_JSON;
        }
    } else {
        doc->format = JT_FORMAT_YAML;
        rc = jt_parse_yaml(doc, &bc);
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
