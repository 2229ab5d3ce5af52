/*
 * prep: preprocessing filters for OpenAPI documents (the cleaning of the
 * documents before chunking, and the chunking paper's "remove examples" refinement). Text filters
 * clean string values (base64 blobs, HTML tags, markdown markup, URLs); structural filters drop
 * parts of the tree (4xx/5xx responses, response headers, examples, request bodies). Filters never
 * touch the loaded model: prep_tree builds a new tree in a caller's arena that
 * shares every unchanged subtree with the input. Each filter reports what it
 * removed so `apidex stats` can show before/after numbers.
 */
#ifndef APIDEX_PREP_H
#define APIDEX_PREP_H

#include "core/core.h"

/** Filter bits (the order is the order they are applied in; values only ever grow). */
enum prep_filter {
    PREP_BASE64 = 1u << 0,      /* data: URIs and long base64 runs in strings */
    PREP_HTML = 1u << 1,        /* HTML tags and comments (text kept, entities decoded) */
    PREP_MARKDOWN = 1u << 2,    /* markdown markup (text kept) */
    PREP_URLS = 1u << 3,        /* URLs whose host is on the blacklist */
    PREP_URLS_ALL = 1u << 4,    /* every URL */
    PREP_ERRORS = 1u << 5,      /* 4xx/5xx entries of `responses` objects */
    PREP_HEADERS = 1u << 6,     /* `headers` of response objects */
    PREP_EXAMPLES = 1u << 7,    /* example / examples / x-examples */
    PREP_REQUEST_BODY = 1u << 8 /* requestBody (and Swagger 2.0 body/formData parameters) */
};

enum { PREP_N_FILTERS = 9 };

/** The paper's "remove examples" refinement: request bodies and every example. */
#define PREP_REMOVE_EXAMPLES (PREP_EXAMPLES | PREP_REQUEST_BODY)
/** Filters that rewrite string values. */
#define PREP_TEXT_FILTERS (PREP_BASE64 | PREP_HTML | PREP_MARKDOWN | PREP_URLS | PREP_URLS_ALL)
/** Filters that remove members of the tree. */
#define PREP_TREE_FILTERS (PREP_ERRORS | PREP_HEADERS | PREP_EXAMPLES | PREP_REQUEST_BODY)
/** The document cleaning before chunking, in its order: base64, HTML, markdown, URLs by
    blacklist, 4xx/5xx responses, response headers. */
#define PREP_ALL_CLEANING                                                                          \
    (PREP_BASE64 | PREP_HTML | PREP_MARKDOWN | PREP_URLS | PREP_ERRORS | PREP_HEADERS)

/** Options: which filters, and the URL host blacklist (NULL = prep_default_blacklist). */
typedef struct prep_options {
    unsigned filters;
    const char *const *url_blacklist; /* NULL-terminated host suffixes, lower case */
} prep_options;

/** What the filters removed: per filter bit index (0 = base64 ... 8 = request-body). */
typedef struct prep_report {
    size_t count[PREP_N_FILTERS]; /* items removed (matches, members) */
    size_t bytes[PREP_N_FILTERS]; /* bytes removed (text), or compact-JSON bytes (members) */
} prep_report;

/** The default URL blacklist: postman.com and URL shorteners (static, NULL-terminated). */
const char *const *prep_default_blacklist(void);

/** The name of a single filter bit ("base64", ...), or NULL. Static storage. */
const char *prep_filter_name(unsigned bit);
/** Bit index (0..PREP_N_FILTERS-1) of a single filter bit, or -1. */
int prep_filter_index(unsigned bit);

/**
 * Parses a comma-separated filter list: base64, html, markdown, urls, urls-all,
 * errors, headers, examples, request-body, remove-examples (= examples +
 * request-body), all (= PREP_ALL_CLEANING), none. Returns 0 or APIDEX_EINVAL with
 * the unknown name in err.
 */
int prep_parse_filters(const char *list, unsigned *out, apidex_error *err);

/** Writes the names of the bits in filters, comma-separated, into out (e.g. "html,urls"). */
int prep_format_filters(unsigned filters, core_buf *out);

/**
 * Applies the text filters of opt to s[0..n), appending the result to out.
 * Adds what it removed to rep (may be NULL). Returns 0 or a buffer error.
 * Deterministic and linear in n; safe on any bytes.
 */
int prep_text(const prep_options *opt, const char *s, size_t n, core_buf *out, prep_report *rep);

/**
 * Applies every filter of opt to the tree in: structural filters drop members,
 * text filters rewrite string values. *out is a new tree allocated in arena that
 * shares unchanged subtrees with in (in is never modified; *out == in when
 * nothing changed). Nesting deeper than 1024 levels is kept as is. Returns 0 or
 * APIDEX_ENOMEM. rep may be NULL.
 */
int prep_tree(const prep_options *opt, const jt_node *in, core_arena *arena, const jt_node **out,
              prep_report *rep);

/** Approximate compact-JSON size of a subtree in bytes (bounded depth). */
size_t prep_tree_bytes(const jt_node *n);

/** Adds b into a. */
void prep_report_add(prep_report *a, const prep_report *b);

#endif /* APIDEX_PREP_H */
