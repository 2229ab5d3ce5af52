/*
 * text: BERT WordPiece tokenizer (uncased, as bge-small-en-v1.5 uses), id-exact with the
 * Hugging Face tokenizer in the npm package @huggingface/transformers on the same tokenizer.json.
 *
 * Pipeline, per section of the input (the text between literal special tokens such as
 * "[SEP]", which the reference matches on the raw text and maps straight to their ids):
 *   1. lower-case (JS String.prototype.toLowerCase: simple mappings, plus the context-dependent
 *      final sigma, decided on the raw text: "ΟΔΟΣ" -> "οδος")
 *   2. clean: drop NUL, U+FFFD and Cc/Cf/Co/Cs except \t \n \r; JS `\s` whitespace -> ' '
 *   3. put spaces around CJK ideographs. The reference walks UTF-16 code units, so only BMP
 *      ideographs are isolated; astral ones (U+20000...) stay inside their word. We copy that.
 *   4. strip accents: NFD, then drop nonspacing marks (Mn)
 *   5. split on whitespace; every punctuation character (\p{P} or ASCII punctuation) is a word
 *   6. greedy longest-match-first WordPiece with "##" continuations; a word of more than
 *      max_input_chars_per_word (100) code points, or one with an unmatchable rest, is [UNK]
 * Truncation keeps [CLS] ... [SEP] and drops content (as the Rust/Python tokenizers that the
 * model was used with do); transformers.js would cut the array blindly and lose [SEP].
 *
 * Long inputs are processed in chunks cut after ASCII separators: none of the steps above
 * looks across such a character (it is neither cased nor case-ignorable, a starter for NFD,
 * and a word boundary), so chunking changes nothing but lets truncation stop early and keeps
 * the scratch buffers small. Text without separators is cut between two ASCII letters or
 * digits instead, and the word cut in two is carried into the next chunk. The vocabulary is an
 * open-addressing hash (xxh3) over one blob of NUL-terminated strings; encode keeps all scratch
 * state on its own stack/heap, so one text_wordpiece is shared read-only between threads. Unicode
 * data comes from utf8proc (Unicode 15 on Debian 12); characters assigned after that may differ
 * from Node's ICU.
 */
#include "text/text.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include <xxhash.h>

#define WP_MAX_SPECIALS  16
#define WP_MAX_FILE      (64u << 20) /* vocab.txt / tokenizer.json size cap */
#define WP_MAX_WORD      100         /* default max_input_chars_per_word */
#define WP_MAX_WORD_CAP  1000        /* refuse configs that would make words huge */
#define WP_CHUNK_BYTES   4096        /* target chunk size before looking for a separator */
#define WP_CHUNK_MAX     65536       /* look this far for a separator before cutting a word */
#define WP_PREFIX_MAX    15
#define WP_MAX_VOCAB_IDS (1u << 24)

/* One vocabulary entry: a string in the blob and its id. */
typedef struct wp_entry {
    uint32_t off, len, id;
} wp_entry;

typedef struct wp_special {
    uint32_t off, len, id; /* content in blob */
} wp_special;

struct text_wordpiece {
    char *blob; /* every token, NUL-terminated */
    size_t blob_len, blob_cap;
    uint32_t *id_off; /* id -> offset in blob, UINT32_MAX for holes */
    uint32_t *id_len;
    size_t n_ids; /* highest id + 1 */
    size_t n_tokens;
    wp_entry *entries;
    size_t n_entries, entries_cap;
    uint32_t max_id;
    uint32_t *slots; /* hash slots: entry index + 1, 0 = empty */
    size_t mask;
    size_t max_tok_bytes;
    int64_t unk_id, cls_id, sep_id;
    size_t max_word_chars;
    char prefix[WP_PREFIX_MAX + 1];
    size_t prefix_len;
    bool lower_raw;     /* Lowercase normalizer before BertNormalizer (bge's tokenizer.json) */
    bool lower_clean;   /* BertNormalizer lowercase (after clean and CJK spacing) */
    bool strip_accents; /* NFD + drop Mn */
    bool clean_text;
    bool chinese;
    wp_special specials[WP_MAX_SPECIALS];
    size_t n_specials;
    uint8_t special_first[32]; /* bitset of first bytes of specials */
    int special_byte;          /* the first byte all specials share, or -1 */
};

/* ---------------------------------------------------------------- vocabulary */

static uint64_t wp_hash(const char *s, size_t n)
{
    return XXH3_64bits(s, n);
}

/* The entry index of s[0..n), or -1. */
static int64_t wp_find(const text_wordpiece *wp, const char *s, size_t n)
{
    if (!wp->slots) return -1;
    size_t i = (size_t)wp_hash(s, n) & wp->mask;
    for (;;) {
        uint32_t v = wp->slots[i];
        if (v == 0) return -1;
        const wp_entry *e = &wp->entries[v - 1];
        if (e->len == n && memcmp(wp->blob + e->off, s, n) == 0) return v - 1;
        i = (i + 1) & wp->mask;
    }
}

static int64_t wp_lookup(const text_wordpiece *wp, const char *s, size_t n)
{
    int64_t e = wp_find(wp, s, n);
    return e < 0 ? -1 : (int64_t)wp->entries[e].id;
}

static int wp_blob_add(text_wordpiece *wp, const char *s, size_t n, uint32_t *off)
{
    if (n > UINT32_MAX / 2 || wp->blob_len + n + 1 > UINT32_MAX) return APIDEX_ELIMIT;
    if (wp->blob_len + n + 1 > wp->blob_cap) {
        size_t cap = wp->blob_cap ? wp->blob_cap : 4096;
        while (cap < wp->blob_len + n + 1) cap *= 2;
        char *nb = realloc(wp->blob, cap);
        if (!nb) return APIDEX_ENOMEM;
        wp->blob = nb;
        wp->blob_cap = cap;
    }
    memcpy(wp->blob + wp->blob_len, s, n);
    wp->blob[wp->blob_len + n] = '\0';
    *off = (uint32_t)wp->blob_len;
    wp->blob_len += n + 1;
    return 0;
}

/* Appends (token, id); wp_index builds the lookup structures once everything is in. */
static int wp_add(text_wordpiece *wp, const char *s, size_t n, uint64_t id)
{
    if (id >= WP_MAX_VOCAB_IDS) return APIDEX_ELIMIT;
    if (core_array_grow(&wp->entries, &wp->entries_cap, wp->n_entries, sizeof *wp->entries, 1024))
        return APIDEX_ENOMEM;
    uint32_t off;
    int rc = wp_blob_add(wp, s, n, &off);
    if (rc) return rc;
    wp->entries[wp->n_entries++] = (wp_entry){off, (uint32_t)n, (uint32_t)id};
    if (id > wp->max_id) wp->max_id = (uint32_t)id;
    return 0;
}

/*
 * Builds the string hash and the id table. A later duplicate string takes over the earlier
 * one's slot (a JS Map / Python dict keeps the last value); an id's string is its last entry.
 */
static int wp_index(text_wordpiece *wp)
{
    if (wp->n_entries == 0) return APIDEX_ESPEC;
    /* Ids must be dense enough that the id table stays proportional to the vocabulary. */
    if (wp->max_id >= wp->n_entries * 4 + 1024) return APIDEX_ELIMIT;
    wp->n_ids = (size_t)wp->max_id + 1;
    wp->id_off = malloc(wp->n_ids * sizeof *wp->id_off);
    wp->id_len = calloc(wp->n_ids, sizeof *wp->id_len);
    size_t cap = 64;
    while (cap < wp->n_entries * 2) cap *= 2;
    wp->slots = calloc(cap, sizeof *wp->slots);
    if (!wp->id_off || !wp->id_len || !wp->slots) return APIDEX_ENOMEM;
    wp->mask = cap - 1;
    memset(wp->id_off, 0xff, wp->n_ids * sizeof *wp->id_off);
    for (size_t k = 0; k < wp->n_entries; k++) {
        wp_entry *e = &wp->entries[k];
        const char *s = wp->blob + e->off;
        wp->id_off[e->id] = e->off;
        wp->id_len[e->id] = e->len;
        if (e->len > wp->max_tok_bytes) wp->max_tok_bytes = e->len;
        int64_t old = wp_find(wp, s, e->len);
        if (old >= 0) {
            wp->entries[old].id = e->id;
            continue;
        }
        size_t i = (size_t)wp_hash(s, e->len) & wp->mask;
        while (wp->slots[i] != 0) i = (i + 1) & wp->mask;
        wp->slots[i] = (uint32_t)k + 1;
        wp->n_tokens++;
    }
    return 0;
}

static void wp_special_add(text_wordpiece *wp, const char *s, size_t n)
{
    int64_t e = wp_find(wp, s, n);
    if (e < 0 || n == 0 || wp->n_specials == WP_MAX_SPECIALS) return;
    for (size_t k = 0; k < wp->n_specials; k++)
        if (wp->specials[k].len == n && memcmp(wp->blob + wp->specials[k].off, s, n) == 0) return;
    const wp_entry *ent = &wp->entries[e];
    wp->specials[wp->n_specials++] = (wp_special){ent->off, ent->len, ent->id};
    uint8_t c = (uint8_t)s[0];
    wp->special_first[c >> 3] |= (uint8_t)(1u << (c & 7));
    wp->special_byte = wp->n_specials == 1 || wp->special_byte == c ? c : -1;
}

static void wp_set_defaults(text_wordpiece *wp)
{
    wp->max_word_chars = WP_MAX_WORD;
    memcpy(wp->prefix, "##", 3);
    wp->prefix_len = 2;
    wp->lower_raw = true;
    wp->lower_clean = false; /* idempotent after lower_raw */
    wp->strip_accents = true;
    wp->clean_text = true;
    wp->chinese = true;
    wp->unk_id = wp->cls_id = wp->sep_id = -1;
    wp->special_byte = -1;
}

static void wp_resolve_ids(text_wordpiece *wp, const char *unk)
{
    wp->unk_id = wp_lookup(wp, unk, strlen(unk));
    wp->cls_id = wp_lookup(wp, "[CLS]", 5);
    wp->sep_id = wp_lookup(wp, "[SEP]", 5);
}

static int wp_load_vocab_txt(text_wordpiece *wp, const char *path, const char *text, size_t len,
                             apidex_error *err)
{
    int rc = 0;
    size_t id = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t tl = end - i;
        if (tl > 0 && text[i + tl - 1] == '\r') tl--;
        if ((rc = wp_add(wp, text + i, tl, id++)) != 0) break;
        i = end + 1;
    }
    if (rc == 0) rc = wp_index(wp);
    if (rc) return core_error_set(err, rc, "%s: cannot build the vocabulary", path);
    /* BertTokenizer's special tokens, matched in raw text like tokenizer.json added tokens. */
    static const char *const names[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        wp_special_add(wp, names[k], strlen(names[k]));
    wp_resolve_ids(wp, "[UNK]");
    return 0;
}

static bool wp_str_is(const jt_node *n, const char *s)
{
    const char *v = jt_str(n);
    return v && strcmp(v, s) == 0;
}

/* Reads the normalizer: a BertNormalizer, optionally preceded by Lowercase in a Sequence. */
static int wp_read_normalizer(text_wordpiece *wp, const jt_node *norm, apidex_error *err)
{
    wp->lower_raw = wp->lower_clean = wp->strip_accents = wp->clean_text = wp->chinese = false;
    if (!norm || jt_is(norm, JT_NULL)) return 0;
    const jt_node *list = norm;
    size_t count = 1;
    if (wp_str_is(jt_get(norm, "type"), "Sequence")) {
        list = jt_get(norm, "normalizers");
        if (!jt_is(list, JT_ARRAY))
            return core_error_set(err, APIDEX_ESPEC, "tokenizer.json: bad normalizer sequence");
        count = list->len;
    }
    bool seen_bert = false;
    for (size_t k = 0; k < count; k++) {
        const jt_node *n = list == norm ? norm : jt_at(list, k);
        const jt_node *type = jt_get(n, "type");
        if (wp_str_is(type, "Lowercase") && !seen_bert) {
            wp->lower_raw = true;
        } else if (wp_str_is(type, "BertNormalizer") && !seen_bert) {
            seen_bert = true;
            wp->clean_text = jt_get_bool(n, "clean_text", true);
            wp->chinese = jt_get_bool(n, "handle_chinese_chars", true);
            wp->lower_clean = jt_get_bool(n, "lowercase", true);
            const jt_node *sa = jt_get(n, "strip_accents");
            /* null: strip accents exactly when lower-casing (BERT's rule). */
            wp->strip_accents = jt_is(sa, JT_BOOL) ? sa->boolean : wp->lower_clean;
        } else {
            return core_error_set(err, APIDEX_EUNSUPPORTED,
                                  "tokenizer.json: unsupported normalizer %s",
                                  jt_str(type) ? jt_str(type) : "(untyped)");
        }
    }
    /* Lower-casing twice is lower-casing once when the first pass saw the raw text. */
    if (wp->lower_raw) wp->lower_clean = false;
    return 0;
}

/* Takes ownership of text (jt_doc_parse does). */
static int wp_load_tokenizer_json(text_wordpiece *wp, const char *path, char *text, size_t len,
                                  apidex_error *err)
{
    jt_limits lim = {.max_bytes = WP_MAX_FILE};
    jt_doc *doc = NULL;
    int rc = jt_doc_parse(text, len, path, &lim, &doc, err);
    if (rc) return rc;
    const jt_node *model = jt_get(doc->root, "model");
    const jt_node *vocab = jt_get(model, "vocab");
    if (!wp_str_is(jt_get(model, "type"), "WordPiece") || !jt_is(vocab, JT_OBJECT)) {
        rc = core_error_set(err, APIDEX_EUNSUPPORTED, "%s: not a WordPiece tokenizer", path);
        goto out;
    }
    const jt_node *pre = jt_get(doc->root, "pre_tokenizer");
    if (!wp_str_is(jt_get(pre, "type"), "BertPreTokenizer")) {
        rc = core_error_set(err, APIDEX_EUNSUPPORTED, "%s: pre_tokenizer is not BertPreTokenizer",
                            path);
        goto out;
    }
    if ((rc = wp_read_normalizer(wp, jt_get(doc->root, "normalizer"), err)) != 0) goto out;
    const char *prefix = jt_get_str(model, "continuing_subword_prefix");
    if (prefix) {
        size_t pl = strlen(prefix);
        if (pl > WP_PREFIX_MAX) {
            rc = core_error_set(err, APIDEX_EUNSUPPORTED, "%s: subword prefix too long", path);
            goto out;
        }
        memcpy(wp->prefix, prefix, pl + 1);
        wp->prefix_len = pl;
    }
    double mw = jt_num(jt_get(model, "max_input_chars_per_word"), WP_MAX_WORD);
    if (mw < 1 || mw > WP_MAX_WORD_CAP) {
        rc = core_error_set(err, APIDEX_EUNSUPPORTED, "%s: bad max_input_chars_per_word", path);
        goto out;
    }
    wp->max_word_chars = (size_t)mw;

    for (size_t k = 0; k < vocab->len && rc == 0; k++) {
        const jt_member *m = &vocab->u.members[k];
        if (!jt_is(m->value, JT_INT) || m->value->u.i < 0)
            rc = APIDEX_ESPEC;
        else
            rc = wp_add(wp, m->key, m->key_len, (uint64_t)m->value->u.i);
    }
    /* Added tokens join the vocabulary; non-normalized ones are matched on the raw text. */
    const jt_node *added = jt_get(doc->root, "added_tokens");
    size_t n_added = jt_is(added, JT_ARRAY) ? added->len : 0;
    for (size_t k = 0; k < n_added && rc == 0; k++) {
        const jt_node *t = jt_at(added, k);
        const jt_node *content = jt_get(t, "content");
        const jt_node *id = jt_get(t, "id");
        if (!jt_is(content, JT_STRING) || !jt_is(id, JT_INT) || id->u.i < 0) continue;
        rc = wp_add(wp, content->u.s, content->len, (uint64_t)id->u.i);
    }
    if (rc == 0) rc = wp_index(wp);
    if (rc) core_error_set(err, rc, "%s: bad vocabulary (ids must be dense integers)", path);
    if (rc) goto out;
    for (size_t k = 0; k < n_added; k++) {
        const jt_node *t = jt_at(added, k);
        const jt_node *content = jt_get(t, "content");
        bool special = jt_get_bool(t, "special", false);
        bool normalized = jt_get_bool(t, "normalized", !special);
        if (!jt_is(content, JT_STRING)) continue;
        if (normalized || jt_get_bool(t, "lstrip", false) || jt_get_bool(t, "rstrip", false) ||
            jt_get_bool(t, "single_word", false)) {
            rc = core_error_set(err, APIDEX_EUNSUPPORTED,
                                "%s: added token %s needs options this tokenizer lacks", path,
                                content->u.s);
            goto out;
        }
        wp_special_add(wp, content->u.s, content->len);
    }
    const char *unk = jt_get_str(model, "unk_token");
    wp_resolve_ids(wp, unk ? unk : "[UNK]");
out:
    jt_doc_free(doc);
    return rc;
}

int text_wordpiece_open(const char *path, text_wordpiece **out, apidex_error *err)
{
    *out = NULL;
    text_wordpiece *wp = calloc(1, sizeof *wp);
    if (!wp) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    wp_set_defaults(wp);
    char *text = NULL;
    size_t len = 0;
    int rc = core_file_read(path, WP_MAX_FILE, &text, &len, err);
    if (rc == 0) {
        size_t i = 0;
        while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
            i++;
        /* tokenizer.json is a JSON object; vocab.txt starts with a token ([PAD] for BERT). */
        bool json = i < len && text[i] == '{';
        if (json) {
            rc = wp_load_tokenizer_json(wp, path, text, len, err);
            text = NULL;
        } else {
            rc = wp_load_vocab_txt(wp, path, text, len, err);
        }
    }
    free(text);
    if (rc == 0 && wp->unk_id < 0)
        rc = core_error_set(err, APIDEX_ESPEC, "%s: the vocabulary has no unknown token", path);
    if (rc) {
        text_wordpiece_close(wp);
        return rc;
    }
    *out = wp;
    return 0;
}

void text_wordpiece_close(text_wordpiece *wp)
{
    if (!wp) return;
    free(wp->blob);
    free(wp->id_off);
    free(wp->id_len);
    free(wp->slots);
    free(wp->entries);
    free(wp);
}

const char *text_wordpiece_token(const text_wordpiece *wp, uint32_t id)
{
    if (!wp || id >= wp->n_ids || wp->id_off[id] == UINT32_MAX) return NULL;
    return wp->blob + wp->id_off[id];
}

int64_t text_wordpiece_id(const text_wordpiece *wp, const char *tok)
{
    return wp && tok ? wp_lookup(wp, tok, strlen(tok)) : -1;
}

size_t text_wordpiece_vocab_size(const text_wordpiece *wp)
{
    return wp ? wp->n_tokens : 0;
}

/* ---------------------------------------------------------------- Unicode classes */

static bool wp_is_js_space(uint32_t c)
{
    /* ECMAScript \s: WhiteSpace + LineTerminator (Unicode Zs as of Node's ICU). */
    if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0d);
    return c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
           c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

static bool wp_is_punct(uint32_t c)
{
    if (c < 0x80)
        return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) ||
               (c >= 0x7b && c <= 0x7e);
    utf8proc_category_t cat = utf8proc_category((utf8proc_int32_t)c);
    return cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO;
}

/* Characters the reference drops in clean_text (NUL, U+FFFD, and controls other than \t\n\r). */
static bool wp_is_dropped(uint32_t c)
{
    if (c < 0x80) return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
    if (c == 0xfffd) return true;
    utf8proc_category_t cat = utf8proc_category((utf8proc_int32_t)c);
    return cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CF ||
           cat == UTF8PROC_CATEGORY_CO || cat == UTF8PROC_CATEGORY_CS;
}

/* The ideograph ranges the reference tests, restricted to the BMP (see the file comment). */
static bool wp_is_bmp_cjk(uint32_t c)
{
    return (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) ||
           (c >= 0xf900 && c <= 0xfaff);
}

/* Unicode Case_Ignorable: Mn Me Cf Lm Sk, and Word_Break MidLetter/MidNumLet/Single_Quote. */
static bool wp_is_case_ignorable(uint32_t c)
{
    /* The Word_Break members, plus ASCII ^ and ` (Sk) so ASCII needs no table lookup. */
    static const uint32_t mid[] = {0x27,   0x2e,   0x3a,   0x5e,   0x60,   0xb7,   0x387,
                                   0x55f,  0x5f4,  0x2018, 0x2019, 0x2024, 0x2027, 0xfe13,
                                   0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a};
    for (size_t i = 0; i < sizeof mid / sizeof mid[0]; i++)
        if (c == mid[i]) return true;
    if (c < 0x80) return false;
    utf8proc_category_t cat = utf8proc_category((utf8proc_int32_t)c);
    return cat == UTF8PROC_CATEGORY_MN || cat == UTF8PROC_CATEGORY_ME ||
           cat == UTF8PROC_CATEGORY_CF || cat == UTF8PROC_CATEGORY_LM ||
           cat == UTF8PROC_CATEGORY_SK;
}

/* Unicode Cased: Lu Ll Lt, anything with a case mapping, and Other_Lowercase/Uppercase. */
static bool wp_is_cased(uint32_t c)
{
    if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    if (c == 0xaa || c == 0xba || (c >= 0x1f130 && c <= 0x1f149) ||
        (c >= 0x1f150 && c <= 0x1f169) || (c >= 0x1f170 && c <= 0x1f189))
        return true;
    utf8proc_category_t cat = utf8proc_category((utf8proc_int32_t)c);
    if (cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LL || cat == UTF8PROC_CATEGORY_LT)
        return true;
    utf8proc_int32_t x = (utf8proc_int32_t)c;
    return utf8proc_tolower(x) != x || utf8proc_toupper(x) != x;
}

/* ---------------------------------------------------------------- encode */

typedef struct wp_vec {
    uint32_t *v;
    size_t n, cap;
} wp_vec;

static int wp_vec_reserve(wp_vec *a, size_t extra)
{
    if (a->n + extra <= a->cap) return 0;
    size_t cap = a->cap ? a->cap : 256;
    while (cap < a->n + extra) {
        if (cap > SIZE_MAX / 2 / sizeof *a->v) return APIDEX_ENOMEM;
        cap *= 2;
    }
    uint32_t *nv = realloc(a->v, cap * sizeof *nv);
    if (!nv) return APIDEX_ENOMEM;
    a->v = nv;
    a->cap = cap;
    return 0;
}

/* The scratch state of one encode call. */
typedef struct wp_run {
    const text_wordpiece *wp;
    wp_vec raw, low, cln, nfd; /* code points after each stage */
    wp_vec carry;              /* start of a word cut at the end of the previous chunk */
    wp_vec out;                /* ids */
    size_t limit;              /* content ids allowed */
    bool full;                 /* limit reached: stop */
    bool truncated;
    char word[(WP_MAX_WORD_CAP + 1) * 4 + WP_PREFIX_MAX + 1];
    uint16_t char_off[WP_MAX_WORD_CAP + 2];
} wp_run;

static int wp_emit(wp_run *r, uint32_t id)
{
    if (r->out.n >= r->limit) {
        r->full = r->truncated = true;
        return 0;
    }
    int rc = wp_vec_reserve(&r->out, 1);
    if (rc) return rc;
    r->out.v[r->out.n++] = id;
    return 0;
}

/* Decodes UTF-8; each byte of an invalid sequence becomes U+FFFD (which clean_text drops). */
static int wp_decode(wp_vec *dst, const char *s, size_t n)
{
    dst->n = 0;
    int rc = wp_vec_reserve(dst, n);
    if (rc) return rc;
    const uint8_t *p = (const uint8_t *)s;
    size_t i = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            dst->v[dst->n++] = p[i++];
            continue;
        }
        utf8proc_int32_t c;
        utf8proc_ssize_t k = utf8proc_iterate(p + i, (utf8proc_ssize_t)(n - i), &c);
        if (k <= 0) {
            dst->v[dst->n++] = 0xfffd;
            i++;
        } else {
            dst->v[dst->n++] = (uint32_t)c;
            i += (size_t)k;
        }
    }
    return 0;
}

/* Whether the Σ at src[i] is word-final (Unicode Final_Sigma, as ICU decides it). */
static bool wp_final_sigma(const uint32_t *src, size_t n, size_t i)
{
    size_t j = i;
    bool before = false;
    while (j > 0) {
        uint32_t c = src[--j];
        if (wp_is_case_ignorable(c)) continue;
        before = wp_is_cased(c);
        break;
    }
    if (!before) return false;
    for (size_t k = i + 1; k < n; k++) {
        uint32_t c = src[k];
        if (wp_is_case_ignorable(c)) continue;
        return !wp_is_cased(c);
    }
    return true;
}

/* Full lower-casing as JS toLowerCase does it: simple mappings, İ -> i + U+0307, final sigma. */
static int wp_lower(const wp_vec *src, wp_vec *dst)
{
    dst->n = 0;
    int rc = wp_vec_reserve(dst, src->n * 2);
    if (rc) return rc;
    for (size_t i = 0; i < src->n; i++) {
        uint32_t c = src->v[i];
        if (c < 0x80) {
            dst->v[dst->n++] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
        } else if (c == 0x130) {
            dst->v[dst->n++] = 'i';
            dst->v[dst->n++] = 0x307;
        } else if (c == 0x3a3) {
            dst->v[dst->n++] = wp_final_sigma(src->v, src->n, i) ? 0x3c2 : 0x3c3;
        } else {
            dst->v[dst->n++] = (uint32_t)utf8proc_tolower((utf8proc_int32_t)c);
        }
    }
    return 0;
}

static int wp_clean(const text_wordpiece *wp, const wp_vec *src, wp_vec *dst)
{
    dst->n = 0;
    int rc = wp_vec_reserve(dst, src->n * 3);
    if (rc) return rc;
    for (size_t i = 0; i < src->n; i++) {
        uint32_t c = src->v[i];
        if (wp->clean_text) {
            if (c == 0 || wp_is_dropped(c)) continue;
            if (wp_is_js_space(c)) c = ' ';
        }
        if (wp->chinese && wp_is_bmp_cjk(c)) {
            dst->v[dst->n++] = ' ';
            dst->v[dst->n++] = c;
            dst->v[dst->n++] = ' ';
        } else {
            dst->v[dst->n++] = c;
        }
    }
    return 0;
}

static int wp_ccc(uint32_t c)
{
    if (c < 0x300) return 0;
    return utf8proc_get_property((utf8proc_int32_t)c)->combining_class;
}

/* NFD (canonical decomposition + canonical ordering), then drop Mn. */
static int wp_strip_accents(const wp_vec *src, wp_vec *dst)
{
    dst->n = 0;
    int rc = wp_vec_reserve(dst, src->n + 16);
    if (rc) return rc;
    size_t run_start = 0; /* start of the current run of non-starters in dst */
    for (size_t i = 0; i < src->n; i++) {
        uint32_t c = src->v[i];
        utf8proc_int32_t buf[32];
        utf8proc_ssize_t k = 1;
        if (c < 0xc0) {
            buf[0] = (utf8proc_int32_t)c;
        } else {
            int last_bc = 0;
            k = utf8proc_decompose_char((utf8proc_int32_t)c, buf, 32, UTF8PROC_DECOMPOSE, &last_bc);
            if (k < 0 || k > 32) {
                buf[0] = (utf8proc_int32_t)c;
                k = 1;
            }
        }
        if ((rc = wp_vec_reserve(dst, (size_t)k)) != 0) return rc;
        for (utf8proc_ssize_t t = 0; t < k; t++) {
            uint32_t d = (uint32_t)buf[t];
            int cc = wp_ccc(d);
            if (cc == 0) {
                run_start = dst->n + 1;
                dst->v[dst->n++] = d;
                continue;
            }
            /* Stable insertion into the run by combining class (canonical ordering). */
            size_t pos = dst->n;
            while (pos > run_start && wp_ccc(dst->v[pos - 1]) > cc) {
                dst->v[pos] = dst->v[pos - 1];
                pos--;
            }
            dst->v[pos] = d;
            dst->n++;
        }
    }
    size_t w = 0;
    for (size_t i = 0; i < dst->n; i++) {
        uint32_t c = dst->v[i];
        if (c >= 0x300 && utf8proc_category((utf8proc_int32_t)c) == UTF8PROC_CATEGORY_MN) continue;
        dst->v[w++] = c;
    }
    dst->n = w;
    return 0;
}

/* Greedy longest-match-first over one word of code points. */
static int wp_word(wp_run *r, const uint32_t *cps, size_t n)
{
    const text_wordpiece *wp = r->wp;
    if (n > wp->max_word_chars) return wp_emit(r, (uint32_t)wp->unk_id);
    /* UTF-8 of the word after a gap that holds the continuation prefix. */
    size_t pl = wp->prefix_len;
    char *word = r->word + pl;
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        r->char_off[i] = (uint16_t)len;
        len += (size_t)utf8proc_encode_char((utf8proc_int32_t)cps[i], (uint8_t *)word + len);
    }
    r->char_off[n] = (uint16_t)len;
    size_t first = r->out.n; /* ids of this word, dropped again if it ends up [UNK] */
    size_t start = 0;
    while (start < n) {
        size_t plen = start > 0 ? pl : 0;
        int64_t id = -1;
        size_t end = n;
        /* Skip ends whose piece is longer than any vocabulary entry. */
        while (end > start && r->char_off[end] - r->char_off[start] + plen > wp->max_tok_bytes)
            end--;
        for (; end > start; end--) {
            const char *piece = word + r->char_off[start];
            size_t bytes = r->char_off[end] - r->char_off[start];
            if (plen) {
                /* Write the prefix right before the piece; restored below. */
                char saved[WP_PREFIX_MAX];
                memcpy(saved, piece - plen, plen);
                memcpy((char *)piece - plen, wp->prefix, plen);
                id = wp_lookup(wp, piece - plen, bytes + plen);
                memcpy((char *)piece - plen, saved, plen);
            } else {
                id = wp_lookup(wp, piece, bytes);
            }
            if (id >= 0) break;
        }
        if (id < 0) {
            /* The whole word is [UNK]; pieces dropped for the limit no longer count. */
            r->out.n = first;
            r->full = r->truncated = false;
            return wp_emit(r, (uint32_t)wp->unk_id);
        }
        int rc = wp_emit(r, (uint32_t)id);
        if (rc) return rc;
        start = end;
    }
    return 0;
}

static bool wp_is_boundary(uint32_t c)
{
    return wp_is_js_space(c) || wp_is_punct(c);
}

/*
 * Normalises one chunk of a section and emits its ids. When the chunk was cut inside a
 * word (open_end), its last word is kept in r->carry and finishes with the next chunk; a
 * carried word longer than the word limit keeps only limit + 1 characters (it is [UNK]).
 */
static int wp_chunk(wp_run *r, const char *s, size_t n, bool open_end)
{
    const text_wordpiece *wp = r->wp;
    int rc = wp_decode(&r->raw, s, n);
    if (rc) return rc;
    wp_vec *cur = &r->raw;
    if (wp->lower_raw) {
        if ((rc = wp_lower(cur, &r->low)) != 0) return rc;
        cur = &r->low;
    }
    if ((rc = wp_clean(wp, cur, &r->cln)) != 0) return rc;
    cur = &r->cln;
    if (wp->lower_clean) {
        if ((rc = wp_lower(cur, &r->low)) != 0) return rc;
        cur = &r->low;
    }
    if (wp->strip_accents) {
        if ((rc = wp_strip_accents(cur, &r->nfd)) != 0) return rc;
        cur = &r->nfd;
    }
    if (r->carry.n > 0) {
        /* carry + chunk, in the decode buffer (free again: clean always copies out of it) */
        wp_vec *joined = &r->raw;
        joined->n = 0;
        if ((rc = wp_vec_reserve(joined, r->carry.n + cur->n)) != 0) return rc;
        memcpy(joined->v, r->carry.v, r->carry.n * sizeof *joined->v);
        memcpy(joined->v + r->carry.n, cur->v, cur->n * sizeof *joined->v);
        joined->n = r->carry.n + cur->n;
        r->carry.n = 0;
        cur = joined;
    }
    size_t stop = cur->n;
    if (open_end) {
        while (stop > 0 && !wp_is_boundary(cur->v[stop - 1])) stop--;
        size_t keep = cur->n - stop;
        if (keep > wp->max_word_chars + 1) keep = wp->max_word_chars + 1;
        if ((rc = wp_vec_reserve(&r->carry, keep)) != 0) return rc;
        memcpy(r->carry.v, cur->v + stop, keep * sizeof *cur->v);
        r->carry.n = keep;
    }
    size_t i = 0;
    while (i < stop && !r->full) {
        uint32_t c = cur->v[i];
        if (wp_is_js_space(c)) {
            i++;
        } else if (wp_is_punct(c)) {
            if ((rc = wp_word(r, cur->v + i, 1)) != 0) return rc;
            i++;
        } else {
            size_t j = i + 1;
            while (j < stop && !wp_is_boundary(cur->v[j])) j++;
            if ((rc = wp_word(r, cur->v + i, j - i)) != 0) return rc;
            i = j;
        }
    }
    return 0;
}

/* ASCII bytes after which a chunk may end (see the file comment). */
static bool wp_is_chunk_break(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';' || c == '!' ||
           c == '?' || c == '/' || c == '(' || c == ')' || c == '{' || c == '}' || c == '<' ||
           c == '>' || c == '"' || c == '#' || c == '&' || c == '*' || c == '+' || c == '=' ||
           c == '|' || c == '~' || c == '@' || c == '%' || c == '-' || c == '_' || c == '$' ||
           c == '[' || c == ']';
}

static bool wp_is_ascii_alnum(uint8_t c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/*
 * Where the chunk starting at s[from] ends. Preferably right after a separator within
 * WP_CHUNK_MAX bytes; failing that, inside a long word between two ASCII letters/digits
 * (both uncased-context stoppers and NFD starters; *open_end tells wp_chunk to carry the
 * word over). A text with neither is processed in one piece.
 */
static size_t wp_chunk_end(const char *s, size_t n, size_t from, bool *open_end)
{
    *open_end = false;
    if (n - from <= WP_CHUNK_BYTES) return n;
    size_t lim = n - from > WP_CHUNK_MAX ? from + WP_CHUNK_MAX : n;
    for (size_t end = from + WP_CHUNK_BYTES; end <= lim; end++)
        if (wp_is_chunk_break((uint8_t)s[end - 1])) return end;
    for (size_t end = from + WP_CHUNK_BYTES; end < n; end++) {
        if (wp_is_ascii_alnum((uint8_t)s[end - 1]) && wp_is_ascii_alnum((uint8_t)s[end])) {
            *open_end = true;
            return end;
        }
    }
    return n;
}

static int wp_section(wp_run *r, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && !r->full) {
        bool open_end;
        size_t end = wp_chunk_end(s, n, i, &open_end);
        int rc = wp_chunk(r, s + i, end - i, open_end);
        if (rc) return rc;
        i = end;
    }
    r->carry.n = 0; /* consumed by the last chunk unless the limit stopped us early */
    return 0;
}

/* The longest special token starting at s[0..n), or NULL. */
static const wp_special *wp_special_at(const text_wordpiece *wp, const char *s, size_t n)
{
    uint8_t c = (uint8_t)s[0];
    if (!(wp->special_first[c >> 3] & (1u << (c & 7)))) return NULL;
    const wp_special *best = NULL;
    for (size_t k = 0; k < wp->n_specials; k++) {
        const wp_special *sp = &wp->specials[k];
        if (sp->len <= n && (!best || sp->len > best->len) &&
            memcmp(wp->blob + sp->off, s, sp->len) == 0)
            best = sp;
    }
    return best;
}

/* Position of the next special token at or after from (n if none; *sp says which). */
static size_t wp_next_special(const text_wordpiece *wp, const char *s, size_t n, size_t from,
                              const wp_special **sp)
{
    *sp = NULL;
    if (wp->n_specials == 0) return n;
    for (size_t i = from; i < n; i++) {
        if (wp->special_byte >= 0) {
            /* All specials start alike ('[' for BERT): let memchr skip ahead. */
            const char *p = memchr(s + i, wp->special_byte, n - i);
            if (!p) break;
            i = (size_t)(p - s);
        }
        if ((*sp = wp_special_at(wp, s + i, n - i)) != NULL) return i;
    }
    return n;
}

int text_wordpiece_encode(const text_wordpiece *wp, const char *s, size_t n, bool add_special,
                          size_t max_len, uint32_t **ids, size_t *n_ids, bool *truncated)
{
    *ids = NULL;
    *n_ids = 0;
    if (truncated) *truncated = false;
    if (!wp || (!s && n > 0)) return APIDEX_EINVAL;
    if (add_special && (wp->cls_id < 0 || wp->sep_id < 0)) return APIDEX_EINVAL;
    if (add_special && max_len > 0 && max_len < 2) return APIDEX_EINVAL;
    wp_run *r = calloc(1, sizeof *r);
    if (!r) return APIDEX_ENOMEM;
    r->wp = wp;
    r->limit = max_len == 0 ? SIZE_MAX : max_len;
    int rc = 0;
    if (add_special) {
        rc = wp_emit(r, (uint32_t)wp->cls_id);
        if (max_len) r->limit = max_len - 1; /* room for [SEP] */
    }
    for (size_t sec = 0; rc == 0 && !r->full;) {
        const wp_special *sp = NULL;
        size_t at = wp_next_special(wp, s, n, sec, &sp);
        if (at > sec) rc = wp_section(r, s + sec, at - sec);
        if (!sp) break;
        if (rc == 0 && !r->full) rc = wp_emit(r, sp->id);
        sec = at + sp->len;
    }
    if (rc == 0 && add_special) {
        r->limit = SIZE_MAX;
        rc = wp_emit(r, (uint32_t)wp->sep_id);
    }
    if (rc == 0) {
        if (truncated) *truncated = r->truncated;
        *n_ids = r->out.n;
        *ids = r->out.v;
        if (!*ids) *ids = malloc(sizeof **ids); /* never hand out NULL on success */
        if (!*ids) rc = APIDEX_ENOMEM;
        r->out.v = NULL;
    }
    free(r->out.v);
    free(r->raw.v);
    free(r->low.v);
    free(r->cln.v);
    free(r->nfd.v);
    free(r->carry.v);
    free(r);
    return rc;
}
