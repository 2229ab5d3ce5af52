/*
 * text: tokenizers. cl100k_base byte-level BPE (byte-exact with tiktoken) for
 * token counts and budgets, BERT WordPiece (as bge-small-en-v1.5 uses) for the
 * encoder, identifier-aware word splitting plus Snowball stemming, and the analyzer: the
 * one chain from text to the terms of BM25, shared by the index builder and the query reader.
 */
#ifndef APIDEX_TEXT_H
#define APIDEX_TEXT_H

#include "core/core.h"

/* ---------------------------------------------------------------- cl100k BPE */

/** cl100k_base ranks and split pattern. Immutable after open; thread-safe to share. */
typedef struct text_bpe text_bpe;

/**
 * Opens the cl100k_base tokenizer. The ranks are built into the binary from the
 * npm package tiktoken (encoders/cl100k_base.json). Returns 0 or an error.
 * *out is owned by the caller: text_bpe_close.
 */
int text_bpe_open(text_bpe **out, apidex_error *err);
/** NULL is a no-op. */
void text_bpe_close(text_bpe *bpe);
/** A process-wide shared instance (opened on first use, thread-safe); NULL on failure. */
const text_bpe *text_bpe_default(void);
/**
 * Encodes s[0..n) into token ids. When allow_special is true the special
 * tokens (<|endoftext|>, <|fim_prefix|>, ...) are recognised; otherwise they are
 * encoded as ordinary text. *ids is malloc'd (caller frees). Thread-safe.
 * Invalid UTF-8 is read as the WHATWG TextDecoder reads it (U+FFFD per maximal
 * invalid subsequence), so ids equal tiktoken's for the decoded string. Returns 0,
 * APIDEX_EINVAL (bpe NULL), APIDEX_ENOMEM, or APIDEX_ELIMIT (n of 4 GiB or more).
 */
int text_bpe_encode(const text_bpe *bpe, const char *s, size_t n, bool allow_special,
                    uint32_t **ids, size_t *n_ids);
/**
 * Number of tokens of s[0..n) (ordinary text, no special tokens), without building
 * the id array. Thread-safe. If memory runs out it returns n, an upper bound.
 */
size_t text_bpe_count(const text_bpe *bpe, const char *s, size_t n);
/**
 * Bytes of token id (special tokens included) into out, at most out_cap of them;
 * returns the token's full length (more than out_cap if truncated), or 0 if unknown.
 */
size_t text_bpe_decode_token(const text_bpe *bpe, uint32_t id, char *out, size_t out_cap);

/* ---------------------------------------------------------------- WordPiece */

/** A BERT WordPiece vocabulary (uncased). Immutable after open; thread-safe to share. */
typedef struct text_wordpiece text_wordpiece;

/**
 * Loads vocab.txt, or the vocab of a tokenizer.json (chosen by content: JSON starts
 * with '{'). A tokenizer.json must describe a BERT WordPiece tokenizer (BertNormalizer,
 * optionally after Lowercase; BertPreTokenizer); its flags (lowercase, strip_accents,
 * clean_text, handle_chinese_chars), unk token, ## prefix and word limit are honoured,
 * anything else is APIDEX_EUNSUPPORTED. A vocab.txt gets bge-small's uncased pipeline.
 * Literal special tokens ([CLS], [SEP], [PAD], [UNK], [MASK], or tokenizer.json's
 * non-normalized added tokens) in the input map to their ids, as in Hugging Face.
 * *out is owned by the caller: text_wordpiece_close.
 */
int text_wordpiece_open(const char *path, text_wordpiece **out, apidex_error *err);
/** NULL is a no-op. */
void text_wordpiece_close(text_wordpiece *wp);
/**
 * Encodes s[0..n) (UTF-8; invalid bytes are dropped): basic tokenizer (clean,
 * lower-case, strip accents, split punctuation, CJK as words), greedy
 * longest-match-first with ## continuations, [UNK] for words over 100 chars.
 * Ids equal those of the Hugging Face tokenizer in @huggingface/transformers.
 * With add_special, [CLS] ... [SEP]. At most max_len ids (0 = no limit; the
 * special tokens count, and [SEP] is kept: content is cut, as the Rust/Python
 * tokenizers do; max_len must then be >= 2); *truncated (may be NULL) says whether
 * ids were dropped. Encoding stops early once the limit is reached. *ids is
 * malloc'd (caller frees, also when empty). Returns 0 or APIDEX_EINVAL/ENOMEM.
 * Thread-safe: wp is only read.
 */
int text_wordpiece_encode(const text_wordpiece *wp, const char *s, size_t n, bool add_special,
                          size_t max_len, uint32_t **ids, size_t *n_ids, bool *truncated);
/** The vocabulary entry of id (owned by wp, NUL-terminated), or NULL. */
const char *text_wordpiece_token(const text_wordpiece *wp, uint32_t id);
/** Id of a token string ("##ing" for a continuation), or -1. */
int64_t text_wordpiece_id(const text_wordpiece *wp, const char *tok);
/** Number of distinct token strings (30522 for bge-small). */
size_t text_wordpiece_vocab_size(const text_wordpiece *wp);

/* ---------------------------------------------------------------- words for BM25 */

enum {
    TEXT_WORDS_STEM = 1u << 0,      /* Snowball English stem each word */
    TEXT_WORDS_KEEP_IDENT = 1u << 1 /* also emit the whole identifier (lower-cased) */
};
/*
 * TEXT_WORDS_KEEP_IDENT: after the words of an identifier of two or more words,
 * emit them joined without separators, so conventions meet: "movie_id", "movieId",
 * "movie-id" and "MovieID" all add "movieid" (stemmed too with TEXT_WORDS_STEM).
 */

/** Called per word; word is lower-case UTF-8, not NUL-terminated. Return non-zero to stop. */
typedef int (*text_word_fn)(const char *word, size_t len, void *ctx);

/** A word splitter with its own stemmer. Not thread-safe: one per thread. */
typedef struct text_words text_words;

/** A new splitter (Snowball English stemmer, reusable buffers); NULL on OOM. */
text_words *text_words_new(void);
/** NULL is a no-op. */
void text_words_free(text_words *w);
/**
 * Splits s[0..n) into words for lexical search: identifier-aware (camelCase,
 * PascalCase, snake_case, kebab-case, dotted names, path segments, {placeholders},
 * letter/digit boundaries: "getHTTPResponse" -> get http response, "oauth2" ->
 * oauth 2, "/movie/{movie_id}" -> movie movie id), case-folded with accents removed
 * (NFKD + case fold, Mn dropped), optionally stemmed. CJK ideographs are one word
 * each; words over 100 bytes are skipped; no stop words are removed. Returns the
 * number of words emitted (fn's word is valid only during the call).
 */
size_t text_words_split(text_words *w, const char *s, size_t n, unsigned flags, text_word_fn fn,
                        void *ctx);
/**
 * The first stemmed word of s[0..n) into out (NUL-terminated, at most cap - 1 bytes);
 * returns its length, 0 when s has no word or the word does not fit.
 */
size_t text_words_first_stem(text_words *w, const char *s, size_t n, char *out, size_t cap);

/* ---------------------------------------------------------------- the analyzer (analyzer.c) */

/*
 * The one chain from text to the terms of lexical search, used by the index builder
 * (store/writer.c: every field of every chunk) and by the query reader (search/: a task's
 * words, and every text a query term is compared with), so the two cannot drift: split
 * identifier-aware, case-fold, Snowball-stem, add whole identifiers (text_words_split with
 * TEXT_WORDS_STEM | TEXT_WORDS_KEEP_IDENT), and, for a query, drop the stop words. The
 * chain is the same for every field.
 */

/** What the terms are for. Values only grow. */
typedef enum {
    TEXT_TERMS_INDEX = 0, /* every term, as the index stores it */
    TEXT_TERMS_QUERY = 1, /* the same terms but the stop words (text_term_is_stop) */
    /* the stemmed words alone (no whole identifiers, no stop words dropped): what a verb is
       read from, at index time (flow/opfacts.c, data flow) and in a task (search/query.c) */
    TEXT_TERMS_STEMS = 2
} text_terms_use;

/** An analyzer (its own splitter and stemmer). Not thread-safe: one per thread. */
typedef struct text_analyzer text_analyzer;

/** A new analyzer; NULL on OOM. Free with text_analyzer_free. */
text_analyzer *text_analyzer_new(void);
/** NULL is a no-op. */
void text_analyzer_free(text_analyzer *a);
/**
 * Calls fn with each term of s[0..n) for use, in text order (term is valid only during the
 * call; non-zero from fn stops). Returns the number of terms given to fn.
 */
size_t text_analyzer_each(text_analyzer *a, const char *s, size_t n, text_terms_use use,
                          text_word_fn fn, void *ctx);
/**
 * Appends the terms of s[0..n) for use to out, separated by single spaces (a space goes
 * before the first one when out is not empty). Returns the number of terms; a full out
 * stops early (out->failed).
 */
size_t text_analyzer_terms(text_analyzer *a, const char *s, size_t n, text_terms_use use,
                           core_buf *out);
/**
 * The first stemmed word of s[0..n) (TEXT_TERMS_STEMS) into out (NUL-terminated, at most
 * cap - 1 bytes); returns its length, 0 when s has no word or the word does not fit.
 */
size_t text_analyzer_first_stem(text_analyzer *a, const char *s, size_t n, char *out, size_t cap);
/** Whether term[0..n) (a term as the analyzer makes it) is a stop word. Thread-safe. */
bool text_term_is_stop(const char *term, size_t n);

/** The index vocabulary a word family is looked up in (the search engine's term table). */
typedef struct text_vocab {
    void *ctx;
    /** The id of term s[0..n), or -1. */
    long (*find)(void *ctx, const char *s, size_t n);
    /** The i-th term in byte order (NUL-terminated), its length and id; NULL when the
        vocabulary has no sorted order (no families by shared stem then). */
    const char *(*sorted)(void *ctx, size_t i, size_t *len, long *id);
    size_t n_sorted;
} text_vocab;

/** When two terms are one family (search parameters query.family_*). */
typedef struct text_family_rule {
    size_t stem;    /* a suffix is added or taken off only when the shorter keeps this many */
    size_t min_len; /* terms of this many letters or more also meet by shared stem ... */
    size_t tail;    /* ... when they differ only in their last tail letters or fewer */
} text_family_rule;

/**
 * The vocabulary's terms of the same word family as term[0..len) (NUL-terminated after
 * len), whose id is self: the term with a derivational suffix of English added or removed
 * (pay/payment, notify -> "notifi"/"notif"), or, for terms of rule->min_len letters or
 * more, one that differs from it only in its last rule->tail letters or fewer
 * ("subscrib"/"subscript": Snowball keeps the Latin alternation apart). At most cap ids
 * into out; noun[i] says whether out[i] is the action noun of term as a verb (payment of
 * pay; the longer of a shared-stem pair). Returns how many. Thread-safe.
 */
size_t text_term_family(const text_vocab *v, const text_family_rule *rule, long self,
                        const char *term, size_t len, long *out, bool *noun, size_t cap);

/* ---------------------------------------------------------------- action words */

/** What a request does to its object, by its verb (actions.c). Values only grow. */
typedef enum {
    TEXT_ACTION_NONE = 0,
    TEXT_ACTION_READ = 1,   /* get, list, find, search, check, download, ... */
    TEXT_ACTION_CREATE = 2, /* create, add, send, post, upload, book, subscribe, invite, ... */
    TEXT_ACTION_UPDATE = 3, /* update, change, rename, set, edit, move, configure, ... */
    TEXT_ACTION_DELETE = 4  /* delete, remove, cancel, revoke, ban, destroy, ... */
} text_action;

/**
 * The action of a verb given as its Snowball stem (as text_words_split with
 * TEXT_WORDS_STEM makes it: "retriev" for retrieve/retrieving), from a lexicon of general
 * English; TEXT_ACTION_NONE for words it does not hold. Thread-safe.
 */
text_action text_action_of_stem(const char *stem, size_t n);
/** For a verb that names what it sends or moves ("text someone": send a message; "wire
    money": a transfer; "bill a customer": an invoice), those words in plain English; NULL
    for other stems. Keyed by Snowball stem like text_action_of_stem. Thread-safe. */
const char *text_verb_sense(const char *stem, size_t n);
/** The action an HTTP method performs by convention (GET read, POST create, PUT/PATCH
    update, DELETE delete); NONE for others or NULL. */
text_action text_action_of_method(const char *method);
/** "read", "create", "update", "delete" or "none". */
const char *text_action_name(text_action a);

/* ---------------------------------------------------------------- markdown markers (markdown.c) */

/** How far a closing emphasis run is looked for (bytes, same line). */
enum { TEXT_MD_SCAN_MAX = 512 };
/** Whether the run of k markers at s[i] opens emphasis (at a word's start, text follows). */
bool text_md_opens(const char *s, size_t n, size_t i, size_t k);
/** Whether the run of k markers at s[i] closes emphasis (text before it, a word's end). */
bool text_md_closes(const char *s, size_t n, size_t i, size_t k);
/** The index of the closing run of exactly k markers c after from, on the same line, or n. */
size_t text_md_find_close(const char *s, size_t n, size_t from, char c, size_t k);

/* ---------------------------------------------------------------- HTML pieces (html.c) */

/** Which named entities are decoded: the ASCII few of the index text (prep: "&ndash;" is
    "-"), or the characters themselves for the plain text of answers. */
typedef enum { TEXT_ENTITIES_ASCII, TEXT_ENTITIES_UNICODE } text_entity_set;
/**
 * An entity at s[0] == '&' (a name of set, "&#N;" or "&#xH;") decoded into out (room for 8
 * bytes; *out_len its length): its length in s, 0 when there is none.
 */
size_t text_html_entity(const char *s, size_t n, text_entity_set set, char *out, size_t *out_len);
/** Who reads a description's markup: which HTML element names count as tags, and what a tag
    becomes. */
typedef enum {
    /* prep's filters, the text the index stores: tags of the elements a document may style
       text with go, a block element's tag starts a new line; entities decoded to ASCII */
    TEXT_READER_INDEX = 0,
    /* the plain text of answers: paragraphs are blank lines, list items "- " lines, table
       cells spaces, a newline inside HTML a space, <script>/<style>/... go with their
       content, an unknown tag goes when it is closed later; entities are the characters */
    TEXT_READER_PLAIN = 1,
    /* the plain text keeping the source's lines: every tag but an inline one is a space
       (never at a line's start), source newlines stay */
    TEXT_READER_PLAIN_LINES = 2
} text_reader;
/** What text_html_strip removed: tags and entities, and the bytes of the tags. */
typedef struct text_html_stats {
    size_t removed;
    size_t bytes;
} text_html_stats;
/**
 * Appends s[0..n) to out with its HTML tags, comments and entities turned into text the way
 * reader reads them (text_reader). Linear in n (look-aheads are bounded); hostile markup is
 * text. stats (may be NULL) is added to. 0 or APIDEX_ENOMEM.
 */
int text_html_strip(const char *s, size_t n, text_reader reader, core_buf *out,
                    text_html_stats *stats);
/**
 * Whether the line s[0..n) (no newline) is only markdown markup: a rule, a table separator
 * or a reference-link definition (markdown.c). For TEXT_READER_INDEX also a code fence (the
 * plain text lays out fenced code itself), but not a "===" rule.
 */
bool text_md_markup_line(const char *s, size_t n, text_reader reader);
/** Whether the n bytes at s start with lit (lower-case ASCII), ignoring ASCII case. */
bool text_prefix_ci(const char *s, size_t n, const char *lit);

/* ---------------------------------------------------------------- plain text (plain.c) */

enum {
    /* everything on one line: paragraphs and lines joined with ". " (or a space after
       punctuation), list items with "; ", code blocks dropped */
    TEXT_PLAIN_ONE_LINE = 1u << 0,
    /* keep the line structure and indentation of s (text apidex rendered itself, whose
       descriptions may hold HTML and markdown): tags become spaces, inline markup goes */
    TEXT_PLAIN_KEEP_LINES = 1u << 1
};

/**
 * The plain text of s[0..n), HTML and markdown mixed (descriptions in OpenAPI documents),
 * appended to out. HTML: tags of HTML elements go (and tags closed later, like AWS's
 * <note>; "Bearer <token>" stays), <script>/<style> with their content, comments;
 * entities are decoded; links keep their text; <p>, headings and tables break paragraphs,
 * <li> makes a "- " line, <br> a new line. Markdown: headings, emphasis, strikethrough,
 * code spans (their text stays), links and images (text and alt stay), autolinks,
 * escapes, rules, table rows (cells joined by ", "), list bullets ("- "), blockquotes.
 * Whitespace runs collapse to one space, paragraphs are separated by one blank line, and
 * the result is trimmed (flags: TEXT_PLAIN_*). Never cuts a word. Linear in n; safe on
 * any bytes (invalid UTF-8 passes through). Returns 0, APIDEX_EINVAL or APIDEX_ENOMEM
 * (out then holds what it held before). Thread-safe.
 */
int text_plain(const char *s, size_t n, unsigned flags, core_buf *out);
/**
 * How many bytes of s[0..n) to keep for at most max_bytes: all of it when it fits, else
 * the end of the last whole sentence if that keeps at least half of what a word cut
 * would (*sentence set true; may be NULL), else the end of the last whole word (trailing
 * ",;:" and spaces dropped). 0 when the first word alone is longer. Never splits a word
 * or a UTF-8 sequence.
 */
size_t text_plain_cut(const char *s, size_t n, size_t max_bytes, bool *sentence);
/** The length of the first sentence of s[0..n) ("e.g." and "v. 2" do not end one), or n. */
size_t text_plain_sentence(const char *s, size_t n);
/**
 * Appends s[0..n) to out within max_tokens cl100k tokens: whole when it fits; else cut at
 * the last sentence end (when that keeps at least half of a word cut), or at the last
 * word end followed by "…" (counted). Nothing is appended when the first word alone
 * does not fit. *cut (may be NULL) says whether anything was left out. Returns 0,
 * APIDEX_EINVAL or APIDEX_ENOMEM. Thread-safe (the shared tokenizer).
 */
int text_plain_shorten(const char *s, size_t n, size_t max_tokens, core_buf *out, bool *cut);
/** text_plain with TEXT_PLAIN_ONE_LINE, then text_plain_shorten (max_tokens 0 = no limit). */
int text_plain_line(const char *s, size_t n, size_t max_tokens, core_buf *out, bool *cut);
/**
 * What an operation does in one line, appended to out: its summary as plain text, else
 * (summary NULL, empty or only markup) the first sentence of its description's plain text
 * after any leading markdown heading lines
 * ("e.g." and "v. 2" do not end one), each within max_tokens (0 = no limit). Appends
 * nothing when both are empty. Returns 0, APIDEX_EINVAL or APIDEX_ENOMEM. Thread-safe.
 */
int text_plain_summary(const char *summary, const char *description, size_t max_tokens,
                       core_buf *out);

#endif /* APIDEX_TEXT_H */
