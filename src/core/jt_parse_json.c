/* JSON text straight into jt nodes, in one pass without recursion: the parser of every JSON
   document apidex loads (YAML is jt_yaml.c's). */
#include "core/jtree_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/*
 * It accepts exactly what json-c 0.16's default tokener accepted when apidex parsed with
 * json-c and copied the tree, and builds the same tree (test_core_json_parity and
 * fuzz_core_json compare the two), so no document reads differently:
 * - non-strict JSON: comments (slash-star, slash-slash to the end of the line) wherever white
 *   space may be, strings and keys in single quotes, a trailing comma before ']' or '}',
 *   true/false/null/NaN/Infinity in any letter case, -Infinity, leading zeros, "1.", "-.5",
 *   an exponent or sign left dangling at the end of a number ("1e+" is 1.0);
 * - integers as int64 (a larger one is INT64_MAX, a smaller one INT64_MIN), every number
 *   with '.', 'e' or 'E' a double (strtod);
 * - a key ends at its first NUL ("a\u0000b" is "a"); a repeated key keeps the first
 *   position and takes the last value; a lone or unpaired surrogate is U+FFFD;
 * - a NUL byte ends the text after the document; inside it, it is an error, except inside
 *   a comment right after a value, where json-c stopped and that value became the
 *   document (so "[1 /<star>\0" is the number 1; a JSON null there is an error);
 * - nesting: the document is level 0 and no value may sit at level max_depth or deeper;
 *   json-c checked that before looking at the value, so "[[,]]" at the limit is a depth
 *   error (APIDEX_ELIMIT, no YAML fallback), not a syntax error (but a NUL byte there is).
 * Containers being read keep their members on one scratch stack (charged to the budget,
 * like the arena that holds the tree); a container is built in the arena when it closes.
 * The node limit counts the finished tree (a repeated key's first value does not count),
 * as the copy from json-c's tree did; the text bounds what a parse can create meanwhile.
 */

typedef struct slot {
    const char *key; /* NULL in an array */
    jt_node *value;
    uint32_t key_len;
    uint32_t nodes; /* of value's subtree (saturating: 2^32 nodes outgrow any budget) */
} slot;

typedef struct frame {
    size_t first; /* its first slot */
    bool object;
    const char *key; /* of the member being read */
    uint32_t key_len;
} frame;

typedef struct jparse {
    const char *t;
    size_t n, i;
    build_ctx *bc;
    slot *slots;
    size_t n_slots, cap_slots;
    frame *frames;
    size_t n_frames, cap_frames;
    char *buf; /* a decoded string or a number's text */
    size_t buf_len, buf_cap;
    size_t charged; /* scratch bytes charged to the budget */
    /* the outcome */
    int rc;
    const char *what;
    size_t at;
} jparse;

enum { SKIP_OK = 0, SKIP_NUL = 1, SKIP_FAIL = -1 };

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Records the first error. json-c took any error at a NUL byte for the end of the data (a
   syntax error), except where it had just finished a value (nul_kept). */
static int fail_as(jparse *p, int rc, const char *what, size_t at, bool nul_kept)
{
    if (what && !nul_kept && at < p->n && !p->t[at]) {
        rc = APIDEX_EPARSE;
        what = "unexpected NUL byte";
    }
    if (!p->rc) {
        p->rc = rc;
        p->what = what;
        p->at = at;
    }
    return SKIP_FAIL;
}

static int fail(jparse *p, int rc, const char *what, size_t at)
{
    return fail_as(p, rc, what, at, false);
}

/* End of input before the document was whole. */
static int fail_eof(jparse *p)
{
    return fail(p, APIDEX_EPARSE, "unexpected end of input", p->n);
}

/* Out of memory or budget, at the place the parse got to. */
static int fail_mem(jparse *p)
{
    return fail(p, p->bc->lim.budget && p->bc->lim.budget->over ? APIDEX_ELIMIT : APIDEX_ENOMEM,
                NULL, p->i);
}

/* Grows a scratch array (items_ptr: the address of a T * array) to hold want elements,
   charging the budget for the growth before it is allocated. */
static bool scratch_grow(jparse *p, void *items_ptr, size_t *cap, size_t want, size_t size)
{
    while (want > *cap) {
        size_t before = *cap, after = before ? before * 2 : 16; /* core_array_grow's step */
        if (after < before || after > SIZE_MAX / size) return false;
        size_t add = (after - before) * size;
        if (!core_budget_charge(p->bc->lim.budget, add)) return false;
        if (core_array_grow(items_ptr, cap, before, size, 16)) {
            core_budget_release(p->bc->lim.budget, add);
            return false;
        }
        p->charged += add;
    }
    return true;
}

static bool buf_put(jparse *p, const char *s, size_t len)
{
    if (len > SIZE_MAX - p->buf_len - 1 ||
        !scratch_grow(p, &p->buf, &p->buf_cap, p->buf_len + len + 1, 1))
        return false;
    memcpy(p->buf + p->buf_len, s, len);
    p->buf_len += len;
    p->buf[p->buf_len] = '\0';
    return true;
}

static bool buf_put_cp(jparse *p, unsigned cp)
{
    char s[4];
    return buf_put(p, s, jt_utf8_encode(cp, s));
}

/* Skips white space and comments (after_value: right after a value). SKIP_OK at a byte that
   is neither (or the end); SKIP_NUL when a NUL byte inside a comment stopped the reading
   (p->i just past it). */
static int skip_blank(jparse *p, bool after_value)
{
    const char *t = p->t;
    size_t n = p->n;
    for (;;) {
        while (p->i < n && is_ws(t[p->i])) p->i++;
        if (p->i >= n || t[p->i] != '/') return SKIP_OK;
        if (++p->i >= n) return fail_eof(p);
        if (t[p->i] == '/') {
            for (p->i++; p->i < n && t[p->i] != '\n'; p->i++)
                if (!t[p->i]) return p->i++, SKIP_NUL;
            if (p->i >= n) return fail_eof(p);
        } else if (t[p->i] == '*') {
            p->i++;
            for (;;) {
                for (; p->i < n && t[p->i] != '*'; p->i++)
                    if (!t[p->i]) return p->i++, SKIP_NUL;
                /* json-c takes the byte after each '*' as the comment's end or skips it,
                   so a comment can end only at a '/' right after the first of its stars */
                if (p->i + 1 >= n) return fail_eof(p);
                char after = t[p->i + 1];
                p->i += 2;
                if (after == '/') break;
                if (!after) return SKIP_NUL;
            }
        } else {
            return fail_as(p, APIDEX_EPARSE, "expected comment", p->i, after_value);
        }
    }
}

/* Skips blanks where a NUL byte in a comment is an error (not right after a value). */
static int skip_blank_strict(jparse *p)
{
    int s = skip_blank(p, false);
    if (s == SKIP_NUL) return fail(p, APIDEX_EPARSE, "unexpected NUL byte", p->i - 1);
    return s;
}

/* Four hex digits at p->i into *out; p->i past them. */
static int read_hex4(jparse *p, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++, p->i++) {
        if (p->i >= p->n) return fail_eof(p);
        int h = jt_hex_digit(p->t[p->i]);
        if (h < 0) return fail(p, APIDEX_EPARSE, "invalid string sequence", p->i);
        v = v * 16 + (unsigned)h;
    }
    *out = v;
    return SKIP_OK;
}

static const char utf8_replacement[] = "\xEF\xBF\xBD";

/* Reads the string whose quote is at p->i into *s, *len (in the text when it has no escape,
   else in p->buf); p->i past the closing quote. */
static int read_string(jparse *p, const char **s, size_t *len)
{
    const char *t = p->t;
    size_t n = p->n;
    char quote = t[p->i++];
    size_t start = p->i;
    while (p->i < n && t[p->i] != quote && t[p->i] != '\\' && t[p->i]) p->i++;
    if (p->i >= n) return fail_eof(p);
    if (t[p->i] == quote) {
        *s = t + start;
        *len = p->i - start;
        p->i++;
        return SKIP_OK;
    }
    p->buf_len = 0;
    p->i = start;      /* the slow way from the start */
    unsigned high = 0; /* a high surrogate waiting for its low half */
    for (;;) {
        size_t run = p->i;
        while (p->i < n && t[p->i] != quote && t[p->i] != '\\' && t[p->i]) p->i++;
        if (p->i >= n) return fail_eof(p);
        if (p->i > run && !buf_put(p, t + run, p->i - run)) return fail_mem(p);
        char c = t[p->i];
        if (!c) return fail(p, APIDEX_EPARSE, "unexpected NUL byte", p->i);
        if (c == quote) {
            p->i++;
            break;
        }
        if (++p->i >= n) return fail_eof(p);
        c = t[p->i];
        if (c != 'u' && high) {
            /* a high surrogate followed by another escape: U+FFFD, then that escape */
            if (!buf_put(p, utf8_replacement, 3)) return fail_mem(p);
            high = 0;
        }
        const char *plain = c == '"'    ? "\""
                            : c == '\\' ? "\\"
                            : c == '/'  ? "/"
                            : c == 'b'  ? "\b"
                            : c == 'f'  ? "\f"
                            : c == 'n'  ? "\n"
                            : c == 'r'  ? "\r"
                            : c == 't'  ? "\t"
                                        : NULL;
        if (plain) {
            if (!buf_put(p, plain, 1)) return fail_mem(p);
            p->i++;
            continue;
        }
        if (c != 'u') return fail(p, APIDEX_EPARSE, "invalid string sequence", p->i);
        p->i++;
        unsigned cp;
        if (read_hex4(p, &cp)) return SKIP_FAIL;
        if (high) {
            if (cp >= 0xDC00 && cp < 0xE000) {
                cp = 0x10000 + ((high & 0x3FF) << 10) + (cp & 0x3FF);
            } else if (!buf_put(p, utf8_replacement, 3)) {
                return fail_mem(p);
            }
            high = 0;
        }
        bool ok;
        if (cp >= 0xD800 && cp < 0xDC00) {
            high = cp;
            ok = true;
        } else if (cp >= 0xDC00 && cp < 0xE000) {
            ok = buf_put(p, utf8_replacement, 3);
        } else {
            ok = buf_put_cp(p, cp);
        }
        if (!ok) return fail_mem(p);
        /* json-c wanted "\u" right after a high surrogate; anything else ends the wait */
        if (high && p->i < n && t[p->i] != '\\') {
            if (!buf_put(p, utf8_replacement, 3)) return fail_mem(p);
            high = 0;
        }
    }
    *s = p->buf;
    *len = p->buf_len;
    return SKIP_OK;
}

static jt_node *new_scalar(jparse *p, jt_type type)
{
    jt_node *v = jt_node_new(p->bc->arena, type);
    if (!v) fail_mem(p);
    return v;
}

/* true/false, null/NaN (json-c matched them letter by letter, in any case, and decided when
   the byte after the word came: so that byte must exist, whatever it is). */
static jt_node *read_word(jparse *p)
{
    const char *t = p->t;
    bool truth = lower(t[p->i]) == 't' || lower(t[p->i]) == 'f';
    const char *w1 = truth ? "true" : "null", *w2 = truth ? "false" : "nan";
    size_t l1 = strlen(w1), l2 = strlen(w2);
    bool ok1 = true, ok2 = true;
    for (size_t k = 0;; k++) {
        if (p->i + k >= p->n) return fail_eof(p), NULL;
        char c = lower(t[p->i + k]);
        if (k < l1) ok1 = ok1 && c == w1[k];
        if (k < l2) ok2 = ok2 && c == w2[k];
        if (ok1 && k == l1) {
            p->i += k;
            if (!truth) return new_scalar(p, JT_NULL);
            jt_node *v = new_scalar(p, JT_BOOL);
            if (v) v->boolean = true;
            return v;
        }
        if (!ok1 && ok2 && k == l2) {
            p->i += k;
            jt_node *v = new_scalar(p, truth ? JT_BOOL : JT_REAL);
            if (v && !truth) v->u.d = NAN;
            return v;
        }
        if (!ok1 && !ok2)
            return fail(p, APIDEX_EPARSE, truth ? "boolean expected" : "null expected", p->i + k),
                   NULL;
    }
}

/* "Infinity" in any case at p->i (after a '-' when negative), and the byte after it. */
static jt_node *read_infinity(jparse *p, bool negative)
{
    static const char word[] = "infinity";
    for (size_t k = 0; k < 8; k++, p->i++) {
        if (p->i >= p->n) return fail_eof(p), NULL;
        if (lower(p->t[p->i]) != word[k])
            return fail(p, APIDEX_EPARSE, "unexpected character", p->i), NULL;
    }
    if (p->i >= p->n) return fail_eof(p), NULL;
    jt_node *v = new_scalar(p, JT_REAL);
    if (v) v->u.d = negative ? -INFINITY : INFINITY;
    return v;
}

static jt_node *read_number(jparse *p)
{
    const char *t = p->t;
    size_t start = p->i;
    bool is_double = false, is_exp = false, neg_ok = true, pos_ok = false;
    for (; p->i < p->n; p->i++) {
        char c = t[p->i];
        if (!((c >= '0' && c <= '9') || (!is_exp && (c == 'e' || c == 'E')) ||
              (neg_ok && c == '-') || (pos_ok && c == '+') || (!is_double && c == '.')))
            break;
        neg_ok = pos_ok = false;
        if (c == '.') {
            is_double = neg_ok = pos_ok = true;
        } else if (c == 'e' || c == 'E') {
            is_exp = is_double = neg_ok = pos_ok = true;
        }
    }
    if (p->i >= p->n) return fail_eof(p), NULL;
    char next = t[p->i];
    if (next != ',' && next != ']' && next != '}' && next != '/' && next != 'I' && next != 'i' &&
        !is_ws(next))
        return fail(p, APIDEX_EPARSE, "number expected", p->i), NULL;
    size_t len = p->i - start;
    if (t[start] == '-' && len == 1 && (next == 'I' || next == 'i')) return read_infinity(p, true);
    if (is_double)
        while (len > 1 && strchr("eE-+", t[start + len - 1])) len--;
    p->buf_len = 0;
    if (!buf_put(p, t + start, len)) return fail_mem(p), NULL;
    char *end;
    if (!is_double && p->buf[0] == '-') {
        errno = 0;
        long long v = strtoll(p->buf, &end, 10); /* saturates at INT64_MIN, as json-c kept */
        if (end != p->buf && !(v == 0 && errno)) {
            jt_node *n = new_scalar(p, JT_INT);
            if (n) n->u.i = v;
            return n;
        }
    } else if (!is_double) {
        errno = 0;
        unsigned long long v = strtoull(p->buf, &end, 10);
        if (end != p->buf && !(v == 0 && errno)) {
            jt_node *n = new_scalar(p, JT_INT);
            if (n) n->u.i = v > INT64_MAX ? INT64_MAX : (int64_t)v;
            return n;
        }
    }
    double d = strtod(p->buf, &end);
    if (end != p->buf + len) return fail(p, APIDEX_EPARSE, "number expected", p->i), NULL;
    jt_node *n = new_scalar(p, JT_REAL);
    if (n) n->u.d = d;
    return n;
}

/* A value starting at p->i that is not a container. */
static jt_node *read_scalar(jparse *p)
{
    char c = p->t[p->i];
    if (c == '"' || c == '\'') {
        const char *s;
        size_t len;
        if (read_string(p, &s, &len)) return NULL;
        jt_node *v = jt_new_string(p->bc->arena, s, len);
        if (!v) fail_mem(p);
        return v;
    }
    char l = lower(c);
    if (l == 'n' || l == 't' || l == 'f') return read_word(p);
    if (l == 'i') return read_infinity(p, false);
    if (c == '-' || (c >= '0' && c <= '9')) return read_number(p);
    return fail(p, APIDEX_EPARSE, "unexpected character", p->i), NULL;
}

static bool push_frame(jparse *p, bool object)
{
    if (!scratch_grow(p, &p->frames, &p->cap_frames, p->n_frames + 1, sizeof(frame))) return false;
    p->frames[p->n_frames++] = (frame){.first = p->n_slots, .object = object};
    return true;
}

/* Keeps the first position and the last value of each repeated key among n slots (json-c's
   object_add); returns how many slots are left, in order. */
static size_t merge_repeated_keys(jparse *p, slot *s, size_t n, bool *ok)
{
    *ok = true;
    if (n < 2) return n;
    uint32_t *tab = NULL;
    size_t slots = 32;
    while (slots < n * 2) slots *= 2;
    if (n >= 16) {
        if (!core_budget_charge(p->bc->lim.budget, slots * sizeof *tab)) return *ok = false, n;
        tab = calloc(slots, sizeof *tab);
        if (!tab) {
            core_budget_release(p->bc->lim.budget, slots * sizeof *tab);
            return *ok = false, n;
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        slot *same = NULL;
        if (tab) {
            size_t h = XXH3_64bits(s[i].key, s[i].key_len) & (slots - 1);
            for (; tab[h]; h = (h + 1) & (slots - 1)) {
                slot *o = &s[tab[h] - 1];
                if (o->key_len == s[i].key_len && !memcmp(o->key, s[i].key, s[i].key_len)) {
                    same = o;
                    break;
                }
            }
            if (!same) tab[h] = (uint32_t)kept + 1;
        } else {
            for (size_t k = 0; k < kept && !same; k++)
                if (s[k].key_len == s[i].key_len && !memcmp(s[k].key, s[i].key, s[i].key_len))
                    same = &s[k];
        }
        if (same) {
            same->value = s[i].value;
            same->nodes = s[i].nodes;
        } else {
            s[kept++] = s[i];
        }
    }
    if (tab) {
        free(tab);
        core_budget_release(p->bc->lim.budget, slots * sizeof *tab);
    }
    return kept;
}

/* Builds the innermost open container from its slots; *nodes its subtree's node count. */
static jt_node *close_frame(jparse *p, size_t *nodes)
{
    frame *f = &p->frames[--p->n_frames];
    slot *s = p->slots ? p->slots + f->first : NULL; /* none yet: an empty container */
    size_t n = p->n_slots - f->first;
    p->n_slots = f->first;
    jt_node *v;
    *nodes = 1;
    if (f->object) {
        bool ok;
        n = merge_repeated_keys(p, s, n, &ok);
        if (!ok) return fail_mem(p), NULL;
        v = jt_new_object(p->bc->arena, n);
        if (!v) return fail_mem(p), NULL;
        for (size_t k = 0; k < n; k++) {
            v->u.members[k] = (jt_member){s[k].key, s[k].key_len, s[k].value};
            *nodes += s[k].nodes;
        }
        jt_object_finish(p->bc->arena, v);
    } else {
        v = jt_new_array(p->bc->arena, n);
        if (!v) return fail_mem(p), NULL;
        for (size_t k = 0; k < n; k++) {
            v->u.items[k] = s[k].value;
            *nodes += s[k].nodes;
        }
    }
    return v;
}

/* Before a value inside a container: json-c refused a value at level max_depth first. */
static bool depth_ok(jparse *p)
{
    if (p->n_frames < p->bc->lim.max_depth) return true;
    fail(p, APIDEX_ELIMIT, "nesting too deep", p->i);
    return false;
}

/* After '{' or ',' in an object: a key and its ':', or the '}' (*closed). */
static bool read_key(jparse *p, bool *closed)
{
    *closed = false;
    if (skip_blank_strict(p)) return false;
    if (p->i >= p->n) return fail_eof(p), false;
    char c = p->t[p->i];
    if (c == '}') return *closed = true, p->i++, true;
    if (c != '"' && c != '\'')
        return fail(p, APIDEX_EPARSE, "quoted object property name expected", p->i), false;
    const char *s;
    size_t len;
    if (read_string(p, &s, &len)) return false;
    len = strnlen(s, len); /* json-c kept keys as C strings */
    frame *f = &p->frames[p->n_frames - 1];
    f->key = core_arena_strndup(p->bc->arena, s, len);
    f->key_len = (uint32_t)len;
    if (!f->key || len > UINT32_MAX) return fail_mem(p), false;
    if (skip_blank_strict(p)) return false;
    if (p->i >= p->n) return fail_eof(p), false;
    if (p->t[p->i] != ':')
        return fail(p, APIDEX_EPARSE, "object property name separator ':' expected", p->i), false;
    p->i++;
    if (skip_blank_strict(p)) return false;
    if (p->i >= p->n) return fail_eof(p), false;
    return depth_ok(p);
}

/* After '[' or ',' in an array: the ']' (*closed) or the start of a value. */
static bool array_next(jparse *p, bool *closed)
{
    *closed = false;
    if (skip_blank_strict(p)) return false;
    if (p->i >= p->n) return fail_eof(p), false;
    if (p->t[p->i] == ']') return *closed = true, p->i++, true;
    return depth_ok(p);
}

/* The document from p->i (its first '{' or '['); the root, or NULL with p->rc set. */
static jt_node *parse_document(jparse *p)
{
    jt_node *v = NULL;
    size_t v_nodes = 0;
    for (;;) {
        /* a value starts at p->i */
        char c = p->t[p->i];
        bool closed = false;
        if (c == '{' || c == '[') {
            if (!push_frame(p, c == '{')) return fail_mem(p), NULL;
            p->i++;
            if (!(c == '{' ? read_key(p, &closed) : array_next(p, &closed))) return NULL;
            if (!closed) continue;
            if (!(v = close_frame(p, &v_nodes))) return NULL;
        } else {
            if (!(v = read_scalar(p))) return NULL;
            v_nodes = 1;
        }
        /* v is complete: add it to its container, closing those that end here */
        for (;;) {
            int s = skip_blank(p, true);
            if (s == SKIP_FAIL) return NULL;
            if (s == SKIP_NUL) {
                /* json-c stopped here and returned the value it had just read */
                if (v->type == JT_NULL)
                    return fail_as(p, APIDEX_EPARSE, "unexpected NUL byte in a comment", p->i - 1,
                                   true),
                           NULL;
                p->n_frames = 0;
                p->bc->nodes = v_nodes;
                return v;
            }
            if (!p->n_frames) {
                p->bc->nodes = v_nodes;
                return v;
            }
            if (p->i >= p->n) return fail_eof(p), NULL;
            frame *f = &p->frames[p->n_frames - 1];
            if (!scratch_grow(p, &p->slots, &p->cap_slots, p->n_slots + 1, sizeof(slot)))
                return fail_mem(p), NULL;
            p->slots[p->n_slots++] = (slot){f->key, v, f->key_len,
                                            v_nodes > UINT32_MAX ? UINT32_MAX : (uint32_t)v_nodes};
            c = p->t[p->i];
            char end = f->object ? '}' : ']';
            if (c == ',') {
                p->i++;
                if (!(f->object ? read_key(p, &closed) : array_next(p, &closed))) return NULL;
            } else if (c == end) {
                p->i++;
                closed = true;
            } else {
                return fail(p, APIDEX_EPARSE,
                            f->object ? "object value separator ',' expected"
                                      : "array value separator ',' expected",
                            p->i),
                       NULL;
            }
            if (!closed) break; /* the next value starts at p->i */
            if (!(v = close_frame(p, &v_nodes))) return NULL;
        }
    }
}

int jt_parse_json(jt_doc *doc, build_ctx *bc)
{
    jparse p = {.t = doc->text, .n = doc->text_len, .bc = bc};
    jt_node *root = NULL;
    if (!skip_blank_strict(&p)) root = p.i < p.n ? parse_document(&p) : (fail_eof(&p), NULL);
    if (root) {
        while (p.i < p.n && is_ws(p.t[p.i])) p.i++;
        if (p.i < p.n && p.t[p.i] != '\0') {
            fail(&p, APIDEX_EPARSE, "unexpected data after the document", p.i);
            root = NULL;
        } else if (bc->nodes > bc->lim.max_nodes) {
            root = NULL;
        }
    }
    free(p.slots);
    free(p.frames);
    free(p.buf);
    core_budget_release(bc->lim.budget, p.charged);
    if (root) {
        doc->root = root;
        return 0;
    }
    unsigned line = 0, col = 0;
    if (!p.rc) {
        core_error_set(bc->err, APIDEX_ELIMIT, "document has more than %zu nodes",
                       bc->lim.max_nodes);
        core_error_at(bc->err, bc->file, 0, 0, NULL);
        return APIDEX_ELIMIT;
    }
    jt_offset_linecol(doc->text, doc->text_len, p.at, &line, &col);
    if (!p.what) {
        if (p.rc == APIDEX_ELIMIT)
            core_budget_error(bc->lim.budget, bc->err);
        else
            core_error_set(bc->err, APIDEX_ENOMEM, "out of memory");
    } else if (p.rc == APIDEX_ELIMIT) {
        core_error_set(bc->err, APIDEX_ELIMIT,
                       "invalid JSON: %s (nesting deeper than the limit of %u levels)", p.what,
                       bc->lim.max_depth);
    } else {
        core_error_set(bc->err, p.rc, "invalid JSON: %s", p.what);
    }
    core_error_at(bc->err, bc->file, line, col, NULL);
    return p.rc;
}
