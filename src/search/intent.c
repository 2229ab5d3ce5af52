/*
 * Intents: the clauses of a task that each ask for something. A task such as "list the open
 * tickets, assign the oldest to Ana, and email the summary" or "find the recipe, then add it
 * to my cookbook" is several requests; each is ranked on its own words as well as the task
 * as a whole, so that every request gets its endpoint.
 *
 * Clauses end at a sentence's end (. ? ! ;) and may end at a comma or before a connective
 * ("and", "then", "also", "additionally", ...) when what follows starts with an action verb
 * (the lexicon's, or one learned from the indexed summaries: "calibrate", "retrieving").
 * A clause with no verb of its own is no request: it stays with its neighbour ("the name
 * and address of the customer" is one thing to read).
 */
#include "search/search_int.h"
#include "text/lexicon.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Words that join clauses and may stand before a clause's verb. */
static const char *const connectives[] = {TEXT_LEX_CONNECTIVES, NULL};
/* Words that may stand between a clause's start and its verb ("I want to", "please"). */
static const char *const lead_ins[] = {TEXT_LEX_LEAD_INS, NULL};

static const char *const question_openers[] = {TEXT_LEX_QUESTION_OPENERS, NULL};
static const char *const modals[] = {TEXT_LEX_MODALS, NULL};
static const char *const how_to[] = {TEXT_LEX_HOW_TO, NULL};

/* Is word i one of words, read up to an apostrophe ("What's" is "what")? */
static bool word_head_in(const query_state *st, size_t i, const char *const *words)
{
    const qword *w = &st->words[i];
    const char *t = st->q->text + w->start;
    size_t n = w->end - w->start, k = 0;
    while (k < n && t[k] != '\'' && (unsigned char)t[k] != 0xE2) k++;
    for (const char *const *x = words; *x; x++)
        if (strlen(*x) == k && !strncasecmp(t, *x, k)) return true;
    return false;
}

/*
 * Is the sentence that holds word i a question? It ends with "?" or opens with a question
 * word ("what", "which", "who", "how"), and it is no polite request ("can you send ...?",
 * opened by a modal) and no how-to ("how do I cancel ...", "how to ..."). A question asks to
 * be told something: it reads (action.question).
 */
static bool question_at(const query_state *st, size_t i)
{
    size_t s = i, e = i;
    while (s > 0 && !st->words[s].sentence_start) s--;
    while (e + 1 < st->n_words && !st->words[e + 1].sentence_start) e++;
    if (word_head_in(st, s, modals)) return false;
    if (word_head_in(st, s, question_openers)) {
        static const char how[] = "how";
        const qword *w = &st->words[s];
        bool is_how = w->end - w->start == 3 && !strncasecmp(st->q->text + w->start, how, 3);
        return !(is_how && s + 1 <= e && word_head_in(st, s + 1, how_to));
    }
    return st->words[e].punct == '?';
}

/* Is word i a verb that can start a request? Not a value, a name or a literal; not an
   "-s" form ("logs", "records" are nouns there; a request says "log", "record"). */
static bool verb_at(const query_state *st, size_t i)
{
    const qword *w = &st->words[i];
    if (!w->action || w->kind != QW_PLAIN || w->literal) return false;
    if (!w->lower && !w->sentence_start) return false;
    const char *t = st->q->text + w->start;
    size_t n = w->end - w->start;
    if (n > 3 && tolower((unsigned char)t[n - 1]) == 's' &&
        tolower((unsigned char)t[n - 2]) != 's' && !w->sentence_start)
        return false;
    return true;
}

/* The verb that opens the clause starting at word i (after connectives and lead-ins), or
   -1. Only a few words may come before it. */
static long clause_verb(const query_state *st, size_t i, size_t end)
{
    for (size_t j = i, skipped = 0; j < end && skipped <= 4; j++) {
        if (verb_at(st, j)) return (long)j;
        if (!query_word_in(st, j, connectives) && !query_word_in(st, j, lead_ins)) return -1;
        skipped++;
    }
    return -1;
}

/*
 * Purpose phrases: after a request's verb, "to <verb>", "in order to", "so that", "so as
 * to" and "for <verb>ing" say why it is asked ("update the thresholds to ensure
 * compliance"), not what: their words are marked (query.purpose_weight) up to the clause's
 * end.
 */
static void mark_purpose(query_state *st, size_t w0, size_t w1)
{
    static const char *const so[] = {TEXT_LEX_PURPOSE_SO, NULL};
    static const char *const that_as[] = {TEXT_LEX_PURPOSE_THAT_AS, NULL};
    static const char *const to[] = {TEXT_LEX_PURPOSE_TO, NULL};
    static const char *const for_[] = {TEXT_LEX_PURPOSE_FOR, NULL};
    static const char *const order[] = {TEXT_LEX_PURPOSE_ORDER, NULL};
    static const char *const in[] = {TEXT_LEX_PURPOSE_IN, NULL};
    const char *text = st->q->text;
    bool seen_verb = false;
    for (size_t i = w0; i < w1; i++) {
        const qword *w = &st->words[i];
        if (w->verb) {
            seen_verb = true;
            continue;
        }
        if (!seen_verb || i + 1 >= w1) continue;
        const qword *next = &st->words[i + 1];
        bool start = false;
        if (query_word_in(st, i, to) && next->action && next->kind == QW_PLAIN && !next->verb)
            start = true; /* "to ensure", "to identify" */
        else if (query_word_in(st, i, so) && query_word_in(st, i + 1, that_as))
            start = true; /* "so that", "so as to" */
        else if (query_word_in(st, i, in) && query_word_in(st, i + 1, order))
            start = true; /* "in order to" */
        else if (query_word_in(st, i, for_) && next->action && next->end - next->start > 4 &&
                 !strncasecmp(text + next->end - 3, "ing", 3))
            start = true; /* "for improving" */
        if (!start) continue;
        for (size_t j = i; j < w1; j++) st->words[j].purpose = true;
        return;
    }
}

/*
 * Adjuncts: in "send a letter to the office", "create a server in a region using my key",
 * the object after the verb names the resource; what follows a preposition after it says
 * where, how or with what. Its words are marked (query.adjunct_weight). A preposition
 * right after the verb is part of it ("search for", "look up"); "of" binds to the object.
 */
static void mark_adjuncts(query_state *st, size_t w0, size_t w1)
{
    static const char *const preps[] = {TEXT_LEX_ADJUNCT_PREPOSITIONS, NULL};
    size_t i = w0;
    while (i < w1 && !st->words[i].verb) i++;
    if (i == w1) return;
    bool object = false;
    for (i++; i < w1; i++) {
        const qword *w = &st->words[i];
        if (w->purpose) return;
        if (object && query_word_in(st, i, preps)) {
            for (size_t j = i; j < w1 && !st->words[j].purpose; j++) st->words[j].adjunct = true;
            return;
        }
        /* the object must say what the resource is: a name or a value alone does not
           ("add Blue Moon by X to my list": the list is the resource) */
        if (w->kind == QW_PLAIN && !w->literal && w->stem[0] &&
            !text_term_is_stop(w->stem, strlen(w->stem)))
            object = true;
        if (w->punct) return;
    }
}

/* Does the clause take its object by a pronoun ("pay for it", "rename it", "share them")? */
static bool refers_back(const query_state *st, size_t w0, size_t w1)
{
    static const char *const pronouns[] = {TEXT_LEX_PRONOUNS, NULL};
    size_t content = 0;
    bool pronoun = false;
    for (size_t i = w0; i < w1; i++) {
        const qword *w = &st->words[i];
        if (query_word_in(st, i, pronouns))
            pronoun = true;
        else if (!w->verb && w->kind == QW_PLAIN && w->stem[0] &&
                 !text_term_is_stop(w->stem, strlen(w->stem)))
            content++;
    }
    return pronoun && content <= 2;
}

/* Is the comma piece starting at word i an item of a list: no subject of its own ("I'm
   heading out", "they were billed") and an "and" or "or" later in the sentence joining
   the last item ("A, B, and C")? */
static bool in_a_list(const query_state *st, size_t i, size_t n)
{
    static const char *const subjects[] = {TEXT_LEX_SUBJECTS, NULL};
    static const char *const joins[] = {TEXT_LEX_LIST_JOINS, NULL};
    if (query_word_in(st, i, subjects)) return false;
    for (size_t j = i; j < n; j++) {
        if (query_word_in(st, j, joins)) return true;
        if (st->words[j].punct && strchr(".?!;", st->words[j].punct)) break;
    }
    return false;
}

/* Content words of the clause from word i to its end (the next comma or sentence end). */
static size_t content_words(const query_state *st, size_t i, size_t n)
{
    size_t count = 0;
    for (; i < n; i++) {
        const qword *w = &st->words[i];
        if (w->kind == QW_PLAIN && w->stem[0] && !w->literal &&
            !text_term_is_stop(w->stem, strlen(w->stem)) && !query_word_in(st, i, connectives))
            count++;
        if (w->punct) break;
    }
    return count;
}

int intent_split(query_state *st)
{
    size_t n = st->n_words, max = (size_t)st->p->intent_max;
    st->n_intents = 0;
    for (size_t i = 0; i < n; i++)
        if (st->words[i].action == TEXT_ACTION_DELETE && verb_at(st, i)) st->wants_delete = true;
    /* the task's own action, for a task that asks one thing: its first clause's verb */
    for (size_t i = 0; i < n && !st->whole.action; i++) {
        long v = clause_verb(st, i, n);
        if (v >= 0) {
            st->whole.action = st->words[v].action;
            st->words[v].verb = true;
        }
        while (i + 1 < n && !(st->words[i].punct && strchr(".?!;,", st->words[i].punct))) i++;
    }
    /* a task that opens no request with a verb but asks a question reads */
    for (size_t i = 0; i < n && !st->whole.action && st->p->action_question < 1; i++)
        if (st->words[i].sentence_start && question_at(st, i)) {
            st->whole.action = TEXT_ACTION_READ;
            st->whole.question = true;
        }
    if (n == 0 || max < 2) {
        mark_purpose(st, 0, n);
        mark_adjuncts(st, 0, n);
        return 0;
    }
    uint32_t *start = calloc(n + 1, sizeof *start);
    long *verb = calloc(n + 1, sizeof *verb);
    bool *item = calloc(n + 1, sizeof *item);
    if (!start || !verb || !item) {
        free(start);
        free(verb);
        free(item);
        return APIDEX_ENOMEM;
    }
    /* candidate clause starts: after a sentence end, after a comma, at a connective, or
       at an enumeration mark ("1)", "2.") */
    size_t nc = 0;
    start[nc++] = 0;
    for (size_t i = 1; i < n; i++) {
        const qword *prev = &st->words[i - 1];
        bool sentence_end = prev->punct && strchr(".?!;", prev->punct);
        bool comma = prev->punct == ',' || prev->punct == ':';
        bool joined = query_word_in(st, i, connectives);
        if (!sentence_end && !comma && !joined) continue;
        bool list_item = false;
        if (!sentence_end && clause_verb(st, i, n) < 0) {
            /* "retrieve the orders, the stock levels, and the open invoices": an item of a
               list after a request's verb is a request of that verb (intent.lists) */
            if (!comma || st->p->intent_lists <= 0 || content_words(st, i, n) < 2 ||
                !in_a_list(st, i, n))
                continue;
            list_item = true;
        }
        item[nc] = list_item;
        start[nc++] = (uint32_t)i;
    }
    start[nc] = (uint32_t)n;
    /* each clause's verb; a clause without one joins its neighbour */
    size_t kept = 0;
    for (size_t c = 0; c < nc; c++) {
        long v = clause_verb(st, start[c], start[c + 1]);
        if (v < 0 && item[c] && kept > 0 && verb[kept - 1] >= 0) {
            start[kept] = start[c];
            verb[kept] = verb[kept - 1]; /* the list's verb */
            kept++;
            continue;
        }
        if (v < 0) {
            /* no request of its own: part of the previous clause (or of the next, first) */
            if (kept == 0 && c + 1 < nc) continue; /* the next clause starts here instead */
            if (kept > 0) continue;                /* the previous clause runs on */
        }
        if (kept == 0 && c > 0) {
            /* the first clause(s) had no verb: they belong to this one */
            start[kept] = 0;
        } else {
            start[kept] = start[c];
        }
        verb[kept++] = v;
    }
    if (kept < 2) {
        mark_purpose(st, 0, n);
        mark_adjuncts(st, 0, n);
        free(start);
        free(verb);
        free(item);
        return 0;
    }
    if (kept > max) kept = max; /* the last intent runs to the end */
    st->intents = calloc(kept, sizeof *st->intents);
    if (!st->intents) {
        free(start);
        free(verb);
        free(item);
        return APIDEX_ENOMEM;
    }
    for (size_t k = 0; k < kept; k++) {
        ranking *r = &st->intents[k];
        r->only_name = -1;
        r->w0 = start[k];
        r->w1 = k + 1 < kept ? start[k + 1] : (uint32_t)n;
        r->action = verb[k] >= 0 ? st->words[verb[k]].action : 0;
        if (verb[k] < 0 && st->p->action_question < 1 && question_at(st, r->w0)) {
            r->action = TEXT_ACTION_READ;
            r->question = true;
        }
        if (verb[k] >= 0) st->words[verb[k]].verb = true;
        mark_purpose(st, r->w0, r->w1);
        mark_adjuncts(st, r->w0, r->w1);
        if (k > 0 && refers_back(st, r->w0, r->w1)) {
            r->ref0 = st->intents[k - 1].w0;
            r->ref1 = st->intents[k - 1].w1;
        }
    }
    st->whole.action = TEXT_ACTION_NONE; /* several actions: the whole task has none */
    st->whole.question = false;
    st->n_intents = kept;
    free(start);
    free(verb);
    free(item);
    return 0;
}

/* The distinct names (by the APIs they name) among words [w0, w1), at most cap of them. */
static size_t distinct_names(const query_state *st, size_t w0, size_t w1, int *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = w0; i < w1; i++) {
        int nm = st->words[i].name;
        if (nm < 0) continue;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++) seen = route_same_apis(st->e, out[k], nm);
        if (!seen && n < cap) out[n++] = nm;
    }
    return n;
}

/*
 * A request that names several APIs asks something of each ("copy the Contoso invoice total
 * into the Fabrikam ledger"): it becomes one intent per API named, each ranked over its API on
 * the request's words, without the verb's action (it belongs to one of them).
 */
int intent_by_names(query_state *st)
{
    ranking one = {
        .w0 = 0, .w1 = (uint32_t)st->n_words, .action = st->whole.action, .only_name = -1};
    size_t n_in = st->n_intents ? st->n_intents : 1;
    const ranking *in = st->n_intents ? st->intents : &one;
    int names[8];
    size_t extra = 0;
    for (size_t k = 0; k < n_in; k++) {
        size_t d = distinct_names(st, in[k].w0, in[k].w1, names, 8);
        if (d > 1) extra += d - 1;
    }
    if (!extra) return 0;
    size_t total = n_in + extra;
    if (total > 64) return 0;
    ranking *out = calloc(total, sizeof *out);
    if (!out) return APIDEX_ENOMEM;
    size_t m = 0;
    for (size_t k = 0; k < n_in; k++) {
        size_t d = distinct_names(st, in[k].w0, in[k].w1, names, 8);
        if (d < 2) {
            out[m++] = in[k];
            continue;
        }
        for (size_t j = 0; j < d; j++) {
            out[m] = in[k];
            out[m].only_name = names[j];
            out[m].action = TEXT_ACTION_NONE;
            m++;
        }
    }
    free(st->intents);
    st->intents = out;
    st->n_intents = m;
    st->whole.action = TEXT_ACTION_NONE;
    return 0;
}
