/*
 * Things a named thing has. A task often asks for the resources of something it names
 * rather than for the thing itself: "the invoices of Fabrikam", "Contoso's open tickets",
 * "the tickets opened by Jane Roe". REST puts such resources under their owner's path,
 * `/<owners>/{owner_id}/<resources>`, and the owner's id comes from a search by name. The
 * task says the resource ("invoices") and names the owner ("Fabrikam"), but rarely says
 * what kind of thing the owner is; the words alone find `/invoices/{id}` and the lists of
 * invoices long before `/customers/{id}/invoices`.
 *
 * So, when a name is tied to a resource word by a possessive ("Fabrikam's invoices") or a
 * preposition ("invoices of / by / from / with Fabrikam"), the operations whose path has
 * that word after an owner's id get the weight of the owner's word (query.owner_weight times
 * its idf), as if the task had said it: the owner is what the name names. Only owners a name
 * can find count: the id has a producer that searches by free text, or the input takes
 * the name itself. A name right after a resource word is that resource ("the
 * invoice Q3 Retainer"), not its owner: no rule.
 *
 * Index side (owner_learn): per operation, the term of the literal segment before its
 * first path parameter (the owner), the terms of the literal segments after it (what
 * it has), and whether a name can give that parameter.
 */
#include "search/search_int.h"
#include "text/lexicon.h"

#include "flow/flow.h"
#include "text/text.h"

#include <stdlib.h>
#include <string.h>

/* The first term of a path segment as a query reads it (lex_query_terms), or -1. */
static long segment_terms(const search_engine *e, text_analyzer *tp, core_buf *b, const char *s,
                          size_t n, long *out, size_t cap, size_t *m)
{
    core_buf_reset(b);
    lex_query_terms(tp, s, n, b);
    if (b->failed) return -2;
    long first = -1;
    for (const char *t = b->data ? b->data : ""; *t;) {
        while (*t == ' ') t++;
        const char *end = t;
        while (*end && *end != ' ') end++;
        if (end > t) {
            long ti = lex_term_find(e, t, (size_t)(end - t));
            if (ti >= 0 && first < 0) first = ti;
            if (ti >= 0 && out && *m < cap) out[(*m)++] = ti;
        }
        t = end;
    }
    return first;
}

/* Can a name give the input param of op: a free-text search produces it, or it takes
   the name itself? */
static bool name_gives(const search_engine *e, size_t op, const char *param, size_t n)
{
    const producer_ref *prods;
    size_t n_prods = engine_op_producers(e, op, &prods);
    for (size_t k = 0; k < n_prods; k++) {
        const producer_ref *r = &prods[k];
        if (strlen(r->param) != n || memcmp(r->param, param, n)) continue;
        if (r->features & FLOW_F_TAKES_NAME) return true;
        if (e->info[r->producer].flags & STORE_OP_TEXT_QUERY) return true;
    }
    return false;
}

int owner_learn(search_engine *e)
{
    text_analyzer *tp = text_analyzer_new();
    if (!tp) return APIDEX_ENOMEM;
    core_buf b;
    core_buf_init(&b, 1 << 16);
    int rc = 0;
    for (size_t i = 0; i < e->n_ops && !rc; i++) {
        op_info *in = &e->info[i];
        e->work++;
        in->owner = -1;
        const char *path = e->ops[i].path ? e->ops[i].path : "";
        long owner = -1, has[8];
        size_t m = 0;
        const char *param = NULL;
        size_t param_len = 0;
        for (const char *s = path; *s && !rc;) {
            e->work++;
            while (*s == '/') s++;
            const char *end = s;
            while (*end && *end != '/') end++;
            size_t n = (size_t)(end - s);
            if (n && *s == '{' && s[n - 1] == '}') {
                if (!param && owner >= 0) {
                    param = s + 1;
                    param_len = n - 2;
                }
            } else if (n) {
                size_t m0 = m;
                long t = segment_terms(e, tp, &b, s, n, param ? has : NULL, 8, &m);
                if (t == -2) rc = APIDEX_ENOMEM;
                if (!param) owner = t;
                /* a segment of several words led by a verb is an action on the owner
                   ("apply_customer_balance"), not something it has */
                if (t >= 0 && m - m0 > 1 &&
                    text_action_of_stem(e->terms[t].term, e->terms[t].len) != TEXT_ACTION_NONE)
                    m = m0;
            }
            s = end;
        }
        if (rc || !param || !m || !name_gives(e, i, param, param_len)) continue;
        /* what the owner has, minus the owner's own word ("/users/{id}/user-groups") */
        size_t k = 0;
        for (size_t j = 0; j < m; j++)
            if (has[j] != owner) has[k++] = has[j];
        if (!k) continue;
        in->has = core_arena_alloc(e->arena, k * sizeof *in->has);
        if (!in->has) {
            rc = APIDEX_ENOMEM;
            break;
        }
        memcpy(in->has, has, k * sizeof *has);
        in->n_has = k;
        in->owner = owner;
    }
    text_analyzer_free(tp);
    core_buf_free(&b);
    return rc;
}

/* Is word i a name the index does not know as an API (capitalised, or a value)? */
static bool is_name(const query_state *st, size_t i)
{
    const qword *w = &st->words[i];
    if (w->kind == QW_VALUE) return true;
    return w->kind == QW_NAME && w->name < 0 && w->literal == QL_NONE;
}

/* Does the word end with a possessive ("Contoso's", "Contoso’s", "the Smiths'")? */
static bool possessive(const query_state *st, size_t i)
{
    const char *t = st->q->text;
    uint32_t s = st->words[i].start, e = st->words[i].end;
    if (e - s >= 3 && (t[e - 1] == 's' || t[e - 1] == 'S') && t[e - 2] == '\'') return true;
    if (e - s >= 5 && (t[e - 1] == 's' || t[e - 1] == 'S') && !memcmp(t + e - 4, "\xe2\x80\x99", 3))
        return true;
    /* "the Smiths' deals"; a quoted value's closing quote is no possessive */
    return st->words[i].kind != QW_VALUE && e < strlen(t) && t[e] == '\'' && e - s >= 2 &&
           t[e - 1] == 's';
}

typedef struct mark_ctx {
    query_state *st;
    uint32_t word;
    size_t marked;
    int rc;
} mark_ctx;

static bool mark_op(void *ctx, uint32_t i, long t)
{
    mark_ctx *c = ctx;
    const op_info *in = &c->st->e->info[i];
    if (in->owner < 0 || in->owner == t) return false;
    bool has = false;
    for (size_t k = 0; k < in->n_has && !has; k++) has = in->has[k] == t;
    if (!has) return false;
    double w = c->st->p->owner_weight * lex_idf(c->st->e, in->owner);
    c->rc = query_bonus(c->st, i, c->word, w);
    c->marked++;
    return c->rc != 0;
}

/* Marks the operations that have word wi after an owner a name can find; how many (0 on
   error, with *rc set). */
static size_t mark_word(query_state *st, size_t wi, int *rc)
{
    mark_ctx c = {st, (uint32_t)wi, 0, 0};
    for (size_t o = 0; o < st->n_occ && !c.rc; o++)
        if (st->occ[o].word == wi && st->occ[o].family == 0)
            lex_field_ops(st->e, st->occ[o].term, STORE_FIELD_PATH, mark_op, &c);
    *rc = c.rc;
    return c.rc ? 0 : c.marked;
}

static bool owned_by(void *ctx, uint32_t i, long t)
{
    return ((const search_engine *)ctx)->info[i].owner == t;
}

/* Is word wi the word of an owner a name can find (some operation's owner)? */
static bool is_owner_word(const query_state *st, size_t wi)
{
    if (st->words[wi].kind != QW_PLAIN) return false;
    for (size_t o = 0; o < st->n_occ; o++)
        if (st->occ[o].word == wi && st->occ[o].family == 0 &&
            lex_field_ops(st->e, st->occ[o].term, STORE_FIELD_PATH, owned_by, (void *)st->e))
            return true;
    return false;
}

/* Looks for the resource word from word `from` on, `step` at a time, up to
   query.owner_reach words, not across a sentence end, and marks its operations (*rc: an
   error). */
static bool find_resource(query_state *st, long from, int step, int *rc)
{
    for (int k = 0; k < (int)st->p->owner_reach; k++) {
        long i = from + step * k;
        if (i < 0 || (size_t)i >= st->n_words) return false;
        const qword *w = &st->words[i];
        if (w->kind != QW_PLAIN || w->literal != QL_NONE) return false;
        if (mark_word(st, (size_t)i, rc)) return true;
        if (*rc) return false;
        /* a sentence ends after this word (forwards) or before it (backwards) */
        const qword *edge = step > 0 ? w : (i > 0 ? &st->words[i - 1] : NULL);
        if (edge && (edge->punct == '.' || edge->punct == '?' || edge->punct == '!')) return false;
    }
    return false;
}

int owner_read(query_state *st)
{
    static const char *const ties[] = {TEXT_LEX_OWNER_TIES, NULL};
    static const char *const joiners[] = {TEXT_LEX_OWNER_JOINERS, NULL};
    static const char *const determiners[] = {TEXT_LEX_OWNER_DETERMINERS, NULL};
    if (st->p->owner_weight <= 0 || !st->names_things) return 0;
    for (size_t a = 0; a < st->n_words;) {
        if (!is_name(st, a)) {
            a++;
            continue;
        }
        /* a name runs across short joiners ("The Bank of the North", "Hammer and Tongs") */
        size_t b = a + 1;
        for (;;) {
            size_t j = b;
            while (j < st->n_words && j < b + (size_t)st->p->owner_joiners &&
                   !st->words[j - 1].punct && query_word_in(st, j, joiners))
                j++;
            if (j >= st->n_words || st->words[j - 1].punct || !is_name(st, j)) break;
            b = j + 1;
        }
        /* "My Music" is the caller's own, not a name to look up */
        if (query_word_in(st, a, determiners)) {
            a = b;
            continue;
        }
        bool tied = a > 0 && !st->words[a - 1].punct && query_word_in(st, a - 1, ties);
        bool owns = possessive(st, b - 1);
        /* "the Contoso account": the name is of the word after it, an owner itself */
        if (!owns && b < st->n_words && !st->words[b - 1].punct && is_owner_word(st, b)) {
            a = b;
            continue;
        }
        int rc = 0;
        /* "Fabrikam's latest invoices": after it; "invoices sent by Fabrikam": before the
           preposition, else after the name ("worked with Fabrikam on its ...") */
        if (owns)
            find_resource(st, (long)b, 1, &rc);
        else if (tied && !find_resource(st, (long)a - 2, -1, &rc) && !rc)
            find_resource(st, (long)b, 1, &rc);
        if (rc) return rc;
        a = b;
    }
    return 0;
}
