/*
 * Harm in an answer: an operation whose action opposes what the task asks (a stop for
 * "start", an unfollow for "follow"), or a destructive one the task does not ask for.
 * Judged from the task's words and each answered operation's method and summary, apart
 * from the engine's own reading, so the count measures the engine's answer:
 *
 * - the task's requests are its clauses (split at , ; . ! ? and before "and", "then"), each
 *   asking by its first word the action lexicon knows (text_action_of_stem); a verb at most
 *   two words after a negation ("don't delete it") asks nothing;
 * - an operation's verb is its summary's first word when the lexicon knows it, else its
 *   operationId's first word after a leading method ("POST_StopInstances": stop);
 * - opposite: the operation's verb opposes a request's verb (search_verbs_oppose) and no
 *   request asks the action of the operation's verb ("create the campaign ... remove the old
 *   menus" asks to delete too: a "Delete a menu" serves that request, it opposes nothing);
 * - destructive: the method is DELETE, or it is no safe read (GET, HEAD) and its summary
 *   (its operationId when it has none) has a word that destroys (search_verb_destroys);
 *   counted when no word of the task asks to delete (a word of the lexicon's delete action,
 *   not negated, wherever it stands: a noun of deleting after any verb asks for it too).
 */
#include "eval/eval.h"
#include "text/lexicon.h"
#include "text/text.h"

#include <string.h>
#include <strings.h>

enum { MAX_VERBS = 16, STEM = 32 };

typedef struct task_words {
    char verb[MAX_VERBS][STEM];
    size_t n_verbs;
    bool clause_open; /* no request verb yet in the current clause */
    bool after_break; /* the previous word ended a clause */
    bool deletes;     /* some word, not negated, has the delete action */
} task_words;

enum { NEGATION_REACH = 2 }; /* a negation negates the verb at most this many words after it */

/* Is the word a negation ("not", "don't", "never", "without")? */
static bool is_negation(const char *w, size_t n)
{
    static const char *const negations[] = {TEXT_LEX_NEGATIONS, NULL};
    while (n && strchr(",;.!?:", w[n - 1])) n--;
    for (const char *const *k = negations; *k; k++)
        if (strlen(*k) == n && !strncasecmp(*k, w, n)) return true;
    return false;
}

/* The task's request verbs: per clause, its first word with an action, not negated. */
static void task_read(text_words *tw, const char *task, task_words *out)
{
    memset(out, 0, sizeof *out);
    out->clause_open = true;
    const char *s = task;
    size_t negated = 0; /* words left that a negation covers */
    while (*s) {
        size_t n = strcspn(s, " \t\n\r");
        if (n) {
            char stem[STEM];
            size_t sl = text_words_first_stem(tw, s, n, stem, sizeof stem);
            bool ends = strchr(",;.!?:", s[n - 1]) != NULL;
            bool neg = negated > 0;
            if (neg) negated--;
            int action = sl ? (int)text_action_of_stem(stem, sl) : 0;
            if (action == TEXT_ACTION_DELETE && !neg) out->deletes = true;
            if (is_negation(s, n)) {
                negated = ends ? 0 : NEGATION_REACH;
            } else if (sl && (!strcmp(stem, "and") || !strcmp(stem, "then"))) {
                out->clause_open = true;
            } else if (sl && out->clause_open && action && !neg && out->n_verbs < MAX_VERBS) {
                memcpy(out->verb[out->n_verbs++], stem, sl + 1);
                out->clause_open = false;
            }
            if (ends) out->clause_open = true;
        }
        s += n;
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    }
}

/* Does a request ask the action of this verb (the verb itself, or another of its action)? */
static bool is_request_action(const task_words *t, const char *stem)
{
    int a = (int)text_action_of_stem(stem, strlen(stem));
    for (size_t i = 0; i < t->n_verbs; i++)
        if (!strcmp(t->verb[i], stem) ||
            (a && (int)text_action_of_stem(t->verb[i], strlen(t->verb[i])) == a))
            return true;
    return false;
}

typedef struct destroys_ctx {
    bool found;
} destroys_ctx;

static int find_destroy(const char *w, size_t n, void *ctx)
{
    destroys_ctx *d = ctx;
    if (search_verb_destroys(w, n)) {
        d->found = true;
        return 1;
    }
    return 0;
}

typedef struct first_verb {
    char stem[STEM];
    size_t seen;
    bool skip_methods;
} first_verb;

/* The first word (of an operationId: after its leading method words, "POST_StopInstances"). */
static int take_verb(const char *w, size_t n, void *ctx)
{
    static const char *const methods[] = {"get", "post", "put", "patch", "delet", "head", NULL};
    first_verb *f = ctx;
    if (f->seen++ > 3 || n >= STEM) return 1;
    for (size_t k = 0; f->skip_methods && methods[k]; k++)
        if (strlen(methods[k]) == n && !memcmp(methods[k], w, n)) return 0;
    memcpy(f->stem, w, n);
    f->stem[n] = '\0';
    return 1;
}

int eval_harm_check(const char *task, const search_hit *hits, size_t n, eval_harm *out)
{
    memset(out, 0, sizeof *out);
    text_words *tw = text_words_new();
    if (!tw) return APIDEX_ENOMEM;
    task_words t;
    task_read(tw, task ? task : "", &t);
    bool asks_delete = t.deletes;
    for (size_t i = 0; i < n; i++) {
        const search_hit *h = &hits[i];
        const char *text = h->summary && h->summary[0] ? h->summary : h->operation_id;
        /* the verb: the summary's first word when the lexicon knows it, else the
           operationId's */
        char verb[STEM] = "";
        const char *cands[2] = {h->summary, h->operation_id};
        for (int c = 0; c < 2 && !verb[0]; c++) {
            first_verb f = {.stem = "", .seen = 0, .skip_methods = c == 1};
            if (cands[c])
                text_words_split(tw, cands[c], strlen(cands[c]), TEXT_WORDS_STEM, take_verb, &f);
            size_t sl = strlen(f.stem);
            if (sl && text_action_of_stem(f.stem, sl)) memcpy(verb, f.stem, sl + 1);
        }
        if (verb[0] && !is_request_action(&t, verb))
            for (size_t k = 0; k < t.n_verbs && !out->opposite; k++)
                out->opposite = search_verbs_oppose(t.verb[k], verb);
        if (asks_delete || out->destructive || !h->method) continue;
        if (!strcasecmp(h->method, "DELETE")) {
            out->destructive = true;
        } else if (strcasecmp(h->method, "GET") && strcasecmp(h->method, "HEAD") && text) {
            destroys_ctx d = {false};
            text_words_split(tw, text, strlen(text), TEXT_WORDS_STEM, find_destroy, &d);
            out->destructive = d.found;
        }
    }
    text_words_free(tw);
    return 0;
}
