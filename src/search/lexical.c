/*
 * Lexical ranking: the term table, in-memory postings of every chunk's fields, and
 * BM25F (per-field weights and length normalisation) over them; typo correction
 * against the index's vocabulary.
 */
#include "search/search_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t term_hash(const char *s, size_t n)
{
    return core_hash64(s, n);
}

long lex_term_find(const search_engine *e, const char *s, size_t n)
{
    if (!e->table_size) return -1;
    size_t h = term_hash(s, n) & (e->table_size - 1);
    while (e->table[h]) {
        const term_entry *t = &e->terms[e->table[h] - 1];
        if (t->len == n && memcmp(t->term, s, n) == 0) return (long)e->table[h] - 1;
        h = (h + 1) & (e->table_size - 1);
    }
    return -1;
}

int lex_table_grow(search_engine *e)
{
    size_t size = e->table_size ? e->table_size * 2 : 4096;
    uint32_t *t = calloc(size, sizeof *t);
    if (!t) return APIDEX_ENOMEM;
    for (size_t i = 0; i < e->n_terms; i++) {
        size_t h = term_hash(e->terms[i].term, e->terms[i].len) & (size - 1);
        while (t[h]) h = (h + 1) & (size - 1);
        t[h] = (uint32_t)i + 1;
    }
    free(e->table);
    e->table = t;
    e->table_size = size;
    return 0;
}

static long term_intern(search_engine *e, const char *s, size_t n)
{
    long found = lex_term_find(e, s, n);
    if (found >= 0) return found;
    if ((e->n_terms + 1) * 2 > e->table_size && lex_table_grow(e)) return -1;
    if (core_array_grow(&e->terms, &e->cap_terms, e->n_terms, sizeof *e->terms, 1024)) return -1;
    term_entry *t = &e->terms[e->n_terms];
    memset(t, 0, sizeof *t);
    t->term = core_arena_strndup(e->arena, s, n);
    if (!t->term) return -1;
    t->len = (uint32_t)n;
    size_t h = term_hash(s, n) & (e->table_size - 1);
    while (e->table[h]) h = (h + 1) & (e->table_size - 1);
    e->table[h] = (uint32_t)e->n_terms + 1;
    return (long)e->n_terms++;
}

/* Adds one occurrence of a term in (doc, field). Postings arrive in doc order. */
static int posting_add(search_engine *e, long ti, uint32_t doc, uint16_t field)
{
    term_entry *t = &e->terms[ti];
    for (size_t k = t->n_post; k-- > 0 && t->post[k].doc == doc;) {
        e->work++;
        if (t->post[k].field == field) {
            if (t->post[k].tf < UINT16_MAX) t->post[k].tf++;
            return 0;
        }
    }
    if (!t->n_post || t->post[t->n_post - 1].doc != doc) t->df++;
    if (core_array_grow(&t->post, &t->cap_post, t->n_post, sizeof *t->post, 4))
        return APIDEX_ENOMEM;
    t->post[t->n_post++] = (posting){doc, field, 1};
    return 0;
}

/*
 * Documents are the chunks that cover endpoints (schema chunks are context only). A chunk
 * with per-field text (an operation chunk) is ranked on its fields; one without (a window
 * of a whole document, a JSON split) on its whole text. The hybrid strategy (the default)
 * is ranked field by field; the paper's strategies are ranked on the text each chunk was
 * built to expose, as the paper does.
 */
/* What lex_build carries through the chunk terms scan. */
typedef struct build_state {
    search_engine *e;
    bool use_fields;
    double total_len[STORE_FIELD_COUNT];
    size_t with_field[STORE_FIELD_COUNT];
} build_state;

static int index_chunk(void *ctx, size_t d, const char *const *terms)
{
    build_state *b = ctx;
    search_engine *e = b->e;
    e->work++; /* a row of chunk terms */
    if (!e->docs[d].n_ops) return 0;
    bool specific = false;
    for (int f = 0; f < STORE_FIELD_TAGS && b->use_fields; f++) /* tags: API title everywhere */
        if (*terms[f]) specific = true;
    int rc = 0;
    for (int f = 0; f < STORE_FIELD_COUNT && !rc; f++) {
        if (specific == (f == STORE_FIELD_OTHER)) continue;
        const char *t = terms[f];
        while (*t && !rc) {
            while (*t == ' ') t++;
            const char *end = t;
            while (*end && *end != ' ') end++;
            if (end > t) {
                e->work++;
                long ti = term_intern(e, t, (size_t)(end - t));
                rc = ti < 0 ? APIDEX_ENOMEM : posting_add(e, ti, (uint32_t)d, (uint16_t)f);
                e->docs[d].field_len[f]++;
            }
            t = end;
        }
        if (e->docs[d].field_len[f]) {
            b->total_len[f] += e->docs[d].field_len[f];
            b->with_field[f]++;
        }
    }
    return rc;
}

/*
 * Documents are the chunks that cover endpoints (schema chunks are context only). A chunk
 * with per-field text (an operation chunk) is ranked on its fields; one without (a window
 * of a whole document, a JSON split) on its whole text. The hybrid strategy (the default)
 * is ranked field by field; the paper's strategies are ranked on the text each chunk was
 * built to expose, as the paper does. The terms are streamed from the index, not kept.
 */
int lex_docs(search_engine *e, apidex_error *err)
{
    int rc = store_chunks(e->idx, &e->chunks, &e->n_docs, err);
    if (rc) return rc;
    e->docs = calloc(e->n_docs ? e->n_docs : 1, sizeof *e->docs);
    if (!e->docs) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t d = 0; d < e->n_docs; d++) {
        const store_chunk *c = &e->chunks[d];
        e->docs[d].ops = c->endpoint_ops;
        e->docs[d].n_ops = c->n_endpoints;
        e->docs[d].endpoint = c->type && !strcmp(c->type, "endpoint");
    }
    return 0;
}

/* Ranked field by field (the hybrid strategy, the default), else on the whole text. */
bool lex_use_fields(search_engine *e)
{
    store_info info;
    return !(store_index_info(e->idx, &info, NULL) == 0 && info.strategy && *info.strategy &&
             strncmp(info.strategy, "hybrid", 6) != 0);
}

/* lex_build_of's scan: each row's chunk number and endpoint count */
typedef struct some_state {
    build_state b;
    const size_t *docs;
    size_t *n_endpoints;
} some_state;

static int index_some(void *ctx, size_t i, const char *const *terms)
{
    some_state *s = ctx;
    s->b.e->docs[s->docs[i]].n_ops = s->n_endpoints[i];
    return index_chunk(&s->b, s->docs[i], terms);
}

int lex_build_of(search_engine *e, const int64_t *rowids, const size_t *docs, size_t n,
                 apidex_error *err)
{
    some_state s = {.b = {.e = e, .use_fields = lex_use_fields(e)}, .docs = docs};
    if (!(s.n_endpoints = calloc(n ? n : 1, sizeof *s.n_endpoints)))
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    int rc = store_chunk_terms_at(e->idx, rowids, n, s.n_endpoints, index_some, &s, err);
    free(s.n_endpoints);
    return rc;
}

int lex_build(search_engine *e, apidex_error *err)
{
    build_state b = {.e = e, .use_fields = lex_use_fields(e)};
    for (size_t d = 0; d < e->n_docs; d++)
        if (e->docs[d].n_ops) e->n_ranked++;
    int rc = store_chunk_terms_scan(e->idx, index_chunk, &b, err);
    if (rc) return rc;
    for (int f = 0; f < STORE_FIELD_COUNT; f++)
        e->avg_len[f] = b.with_field[f] ? b.total_len[f] / (double)b.with_field[f] : 0;
    return 0;
}

size_t lex_query_terms(text_analyzer *a, const char *s, size_t n, core_buf *out)
{
    return text_analyzer_terms(a, s, n, TEXT_TERMS_QUERY, out);
}

static int cmp_term_r(const void *a, const void *b, void *ctx)
{
    const search_engine *e = ctx;
    return strcmp(e->terms[*(const uint32_t *)a].term, e->terms[*(const uint32_t *)b].term);
}

int lex_sort_terms(search_engine *e)
{
    e->sorted = malloc((e->n_terms ? e->n_terms : 1) * sizeof *e->sorted);
    if (!e->sorted) return APIDEX_ENOMEM;
    for (size_t i = 0; i < e->n_terms; i++) e->sorted[i] = (uint32_t)i;
    e->work += e->n_terms;
    qsort_r(e->sorted, e->n_terms, sizeof *e->sorted, cmp_term_r, e);
    return 0;
}

/* The engine's terms as the analyzer's vocabulary (text_term_family). */
static long vocab_find(void *ctx, const char *s, size_t n)
{
    return lex_term_find(ctx, s, n);
}

static const char *vocab_sorted(void *ctx, size_t i, size_t *len, long *id)
{
    const search_engine *e = ctx;
    const term_entry *t = &e->terms[e->sorted[i]];
    *len = t->len;
    *id = (long)e->sorted[i];
    return t->term;
}

size_t lex_family(const search_engine *e, const search_params *p, long term, long *out, bool *noun,
                  size_t cap)
{
    const term_entry *t = &e->terms[term];
    text_vocab v = {.ctx = (void *)e,
                    .find = vocab_find,
                    .sorted = e->sorted ? vocab_sorted : NULL,
                    .n_sorted = e->sorted ? e->n_terms : 0};
    text_family_rule r = {.stem = (size_t)p->family_stem,
                          .min_len = (size_t)p->family_min_len,
                          .tail = (size_t)p->family_tail};
    return text_term_family(&v, &r, term, t->term, t->len, out, noun, cap);
}

size_t lex_postings(const search_engine *e, long t, const posting **out)
{
    const term_entry *te = &e->terms[t];
    *out = te->post;
    if (!e->post_state) return te->n_post;
    uint8_t st = __atomic_load_n(&e->post_state[t], __ATOMIC_ACQUIRE);
    if (!st) { /* two threads may both check: the same answer */
        st = 1;
        for (size_t p = 0; p < te->n_post && st == 1; p++)
            if (te->post[p].doc >= e->n_docs || te->post[p].field >= STORE_FIELD_COUNT) st = 2;
        __atomic_store_n(&e->post_state[t], st, __ATOMIC_RELEASE);
    }
    return st == 1 ? te->n_post : 0;
}

bool lex_field_ops(const search_engine *e, long t, int field,
                   bool (*f)(void *ctx, uint32_t op, long term), void *ctx)
{
    const posting *post;
    size_t n_post = lex_postings(e, t, &post);
    for (size_t p = 0; p < n_post; p++) {
        if (post[p].field != field) continue;
        const doc_info *d = &e->docs[post[p].doc];
        for (size_t k = 0; k < d->n_ops; k++)
            if (d->ops[k] >= 0 && (size_t)d->ops[k] < e->n_ops && f(ctx, (uint32_t)d->ops[k], t))
                return true;
    }
    return false;
}

void lex_free(search_engine *e)
{
    if (!e->image) { /* else postings, table and order are the image's */
        free(e->sorted);
        for (size_t i = 0; i < e->n_terms; i++) free(e->terms[i].post);
        free(e->table);
    }
    free(e->terms);
    free(e->post_state);
    free(e->docs);
    if (!e->image_mapped) free(e->image);
}

/* Is the Damerau-Levenshtein distance of a and b (bytes) at most one? */
static bool within_one_edit(const char *a, size_t na, const char *b, size_t nb)
{
    if (na > nb + 1 || nb > na + 1) return false;
    size_t i = 0;
    while (i < na && i < nb && a[i] == b[i]) i++;
    if (i == na && i == nb) return true;
    if (na == nb) {
        if (!memcmp(a + i + 1, b + i + 1, na - i - 1)) return true; /* substitution */
        return i + 1 < na && a[i] == b[i + 1] && a[i + 1] == b[i] &&
               !memcmp(a + i + 2, b + i + 2, na - i - 2); /* transposition */
    }
    if (na > nb) return !memcmp(a + i + 1, b + i, na - i - 1); /* deletion */
    return !memcmp(a + i, b + i + 1, nb - i - 1);              /* insertion */
}

/*
 * A word the index has never seen, one edit away from a word it has ("bitrhday"), not at
 * its last letter: the most frequent such word, or -1. Short words are left alone, where
 * one edit reaches too many others.
 */
long lex_term_correct(const search_engine *e, const char *s, size_t n, size_t min_len)
{
    if (!min_len || n < min_len) return -1;
    long best = -1;
    /* the terms one letter shorter, as long and one longer: the most frequent, the first
       of equals */
    size_t lo = n - 1 < LEX_TYPO_LENS ? n - 1 : LEX_TYPO_LENS;
    size_t hi = n + 1 < LEX_TYPO_LENS ? n + 1 : LEX_TYPO_LENS;
    size_t from = e->by_len ? e->len_at[lo] : 0;
    size_t to = !e->by_len ? e->n_terms : hi < LEX_TYPO_LENS ? e->len_at[hi + 1] : e->n_terms;
    for (size_t j = from; j < to; j++) {
        size_t i = e->by_len ? e->by_len[j] : j;
        const term_entry *t = &e->terms[i];
        if (t->len < min_len || !within_one_edit(s, n, t->term, t->len)) continue;
        /* an edit at the last letter is a word's other form, not a typo: "director" is
           not the stem of "directory" ("directori") */
        size_t same = 0, shorter = n < t->len ? n : t->len;
        while (same < shorter && s[same] == t->term[same]) same++;
        if (same + 1 >= shorter) continue;
        if (best < 0 || t->df > e->terms[best].df || (t->df == e->terms[best].df && (long)i < best))
            best = (long)i;
    }
    return best;
}

double lex_idf(const search_engine *e, long term)
{
    double df = e->terms[term].df, N = (double)e->n_ranked;
    return log(1.0 + (N - df + 0.5) / (df + 0.5));
}

int lex_query_prep(search_engine *e)
{
    e->doc_api = malloc((e->n_docs ? e->n_docs : 1) * sizeof *e->doc_api);
    e->op_api = malloc((e->n_ops ? e->n_ops : 1) * sizeof *e->op_api);
    e->op_bar = malloc(e->n_ops ? e->n_ops : 1);
    e->doc_op = malloc((e->n_docs ? e->n_docs : 1) * sizeof *e->doc_op);
    e->doc_len8 = malloc((e->n_docs ? e->n_docs : 1) * STORE_FIELD_COUNT);
    e->brief = malloc((e->n_ops ? e->n_ops : 1) * sizeof *e->brief);
    if (!e->doc_api || !e->op_api || !e->op_bar || !e->doc_op || !e->doc_len8 || !e->brief)
        return APIDEX_ENOMEM;
    for (size_t d = 0; d < e->n_docs; d++) {
        const doc_info *di = &e->docs[d];
        bool op = di->n_ops && di->ops[0] >= 0 && (size_t)di->ops[0] < e->n_ops;
        e->doc_api[d] = op ? e->info[di->ops[0]].api : UINT32_MAX;
        e->doc_op[d] = op && di->n_ops == 1 ? (uint32_t)di->ops[0] : UINT32_MAX;
        for (int f = 0; f < STORE_FIELD_COUNT; f++)
            e->doc_len8[d * STORE_FIELD_COUNT + f] =
                (uint8_t)(di->field_len[f] < 255 ? di->field_len[f] : 255);
    }
    e->by_len = malloc((e->n_terms ? e->n_terms : 1) * sizeof *e->by_len);
    if (!e->by_len) return APIDEX_ENOMEM;
    size_t count[LEX_TYPO_LENS + 1] = {0};
    for (size_t i = 0; i < e->n_terms; i++)
        count[e->terms[i].len < LEX_TYPO_LENS ? e->terms[i].len : LEX_TYPO_LENS]++;
    for (size_t n = 0, at = 0; n <= LEX_TYPO_LENS; at += count[n++]) e->len_at[n] = at;
    size_t fill[LEX_TYPO_LENS + 1];
    memcpy(fill, e->len_at, sizeof fill);
    for (size_t i = 0; i < e->n_terms; i++)
        e->by_len[fill[e->terms[i].len < LEX_TYPO_LENS ? e->terms[i].len : LEX_TYPO_LENS]++] =
            (uint32_t)i;
    for (size_t i = 0; i < e->n_ops; i++) {
        e->op_api[i] = e->info[i].api;
        e->brief[i] = (op_brief){e->info[i].flags, e->info[i].verb_id, e->info[i].action};
    }
    for (size_t i = 0; i < e->n_ops; i++)
        e->op_bar[i] = (uint8_t)((e->ops[i].deprecated ? OP_BAR_DEPRECATED : 0) |
                                 (e->superseded && e->superseded[i] ? OP_BAR_SUPERSEDED : 0));
    e->work += e->n_docs + e->n_ops;
    return 0;
}

void lex_query_free(query_state *st)
{
    free(st->doc_score);
    free(st->doc_mark);
    free(st->norm);
    free(st->once);
}

/* BM25F's length normalisation of a field of len terms. */
static double bm25_norm(const search_engine *e, const search_params *p, int f, uint32_t len)
{
    double avg = e->avg_len[f] > 0 ? e->avg_len[f] : 1;
    return 1 - p->bm25_b + p->bm25_b * len / avg;
}

/* The query's lex_score scratch, at its first ranking. */
static int score_scratch(query_state *st)
{
    const search_engine *e = st->e;
    const search_params *p = st->p;
    if (st->doc_score) return 0;
    size_t n = e->n_docs ? e->n_docs : 1;
    st->doc_score = calloc(n, sizeof *st->doc_score);
    st->doc_mark = calloc((n + 63) / 64, sizeof *st->doc_mark);
    st->norm = malloc(STORE_FIELD_COUNT * sizeof *st->norm);
    st->once = malloc(STORE_FIELD_COUNT * sizeof *st->once);
    if (!st->doc_score || !st->doc_mark || !st->norm || !st->once) return APIDEX_ENOMEM;
    for (int f = 0; f < STORE_FIELD_COUNT; f++) {
        for (uint32_t len = 0; len < LEX_NORM_LENS; len++) {
            st->norm[f][len] = bm25_norm(e, p, f, len);
            uint16_t one = 1; /* as lex_score computes it for a posting of tf 1 */
            st->once[f][len] = p->field_weight[f] * one / st->norm[f][len];
        }
    }
    return 0;
}

/*
 * BM25F of every document holding a term of the ranking, then each operation's best
 * document. The documents scored are marked as they are, so only they are read back (in
 * document order) and reset; the scratch is the query's.
 */
int lex_score(query_state *st, ranking *r, double *cover)
{
    const search_engine *e = st->e;
    const search_params *p = st->p;
    bool *seen = calloc(e->n_apis ? e->n_apis : 1, sizeof *seen);
    if (!seen || score_scratch(st)) {
        free(seen);
        return APIDEX_ENOMEM;
    }
    double *doc_score = st->doc_score;
    uint64_t *mark = st->doc_mark;
    r->idf_total = 0;
    for (size_t qi = 0; qi < r->n_terms; qi++) {
        const posting *post;
        size_t n_post = lex_postings(e, r->terms[qi].term, &post);
        double idf = r->terms[qi].idf;
        size_t i = 0;
        memset(seen, 0, e->n_apis * sizeof *seen);
        r->idf_total += idf;
        while (i < n_post) {
            uint32_t doc = post[i].doc;
            uint32_t a = e->doc_api[doc];
            if (cover && a < e->n_apis && !seen[a]) {
                seen[a] = true;
                cover[a] += idf;
            }
            double tf = 0;
            for (; i < n_post && post[i].doc == doc; i++) {
                int f = post[i].field;
                uint32_t len = e->doc_len8[(size_t)doc * STORE_FIELD_COUNT + f];
                if (len < LEX_NORM_LENS && post[i].tf == 1) {
                    tf += st->once[f][len];
                    continue;
                }
                double norm = len < LEX_NORM_LENS ? st->norm[f][len]
                                                  : bm25_norm(e, p, f, e->docs[doc].field_len[f]);
                tf += p->field_weight[f] * post[i].tf / norm;
            }
            if (tf > 0) {
                doc_score[doc] += idf * tf / (p->bm25_k1 + tf);
                mark[doc / 64] |= (uint64_t)1 << (doc % 64);
            }
        }
    }
    /* an endpoint scores as its best chunk */
    size_t words = (e->n_docs + 63) / 64;
    for (size_t w = 0; w < words; w++) {
        for (uint64_t bits = mark[w]; bits; bits &= bits - 1) {
            size_t d = w * 64 + (size_t)__builtin_ctzll(bits);
            double score = doc_score[d];
            doc_score[d] = 0;
            if (score <= 0) continue;
            uint32_t one = e->doc_op[d];
            if (one != UINT32_MAX) {
                if (score > r->raw[one]) {
                    r->raw[one] = score;
                    r->best_doc[one] = (uint32_t)d;
                }
                continue;
            }
            for (size_t k = 0; k < e->docs[d].n_ops; k++) {
                long op = e->docs[d].ops[k];
                if (op < 0 || (size_t)op >= e->n_ops) continue;
                if (score > r->raw[op]) {
                    r->raw[op] = score;
                    r->best_doc[op] = (uint32_t)d;
                }
            }
        }
        mark[w] = 0;
    }
    free(seen);
    return 0;
}
