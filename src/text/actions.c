/*
 * Action words: a small lexicon of general English verbs that say what a request does to
 * its object (read it, create it, change it, delete it), keyed by their Snowball stems so
 * that "retrieving", "retrieves" and "retrieve" meet. Used at index time on operation
 * summaries and at query time on the clauses of a task; the search stage learns the verbs
 * the lexicon does not know from the indexed specs themselves.
 */
#include "text/text.h"
#include "text/lexicon.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The lexicon. Words that are mostly nouns in requests ("report", "list" as a noun is
   rare in a task's verb position, so it stays) are left out where their verb sense is
   not an action on an API object. */
static const char *const read_words[] = {TEXT_LEX_READ_VERBS, NULL};
static const char *const create_words[] = {TEXT_LEX_CREATE_VERBS, NULL};
static const char *const update_words[] = {TEXT_LEX_UPDATE_VERBS, NULL};
static const char *const delete_words[] = {TEXT_LEX_DELETE_VERBS, NULL};

/* Verbs whose object is not what they make: the medium or the act names it. "Text Jane"
   sends Jane a message; the message, not a text, is what an API creates. Only verbs whose
   verb sense has one such thing in general English. */
static const char *const verb_senses[][2] = {TEXT_LEX_VERB_SENSES, {NULL, NULL}};

typedef struct action_entry {
    char stem[32];
    text_action action;
} action_entry;

typedef struct sense_entry {
    char stem[32];
    const char *sense;
} sense_entry;

static sense_entry senses[sizeof verb_senses / sizeof verb_senses[0]];
static size_t n_senses;

static action_entry *entries;
static size_t n_entries;
static pthread_once_t once = PTHREAD_ONCE_INIT;

typedef struct first_word {
    char *out;
    size_t cap;
    bool done;
} first_word;

static int take_first(const char *w, size_t n, void *ctx)
{
    first_word *f = ctx;
    if (f->done || n >= f->cap) return 1;
    memcpy(f->out, w, n);
    f->out[n] = '\0';
    f->done = true;
    return 1;
}

size_t text_words_first_stem(text_words *w, const char *s, size_t n, char *out, size_t cap)
{
    first_word f = {out, cap, false};
    if (!cap) return 0;
    out[0] = '\0';
    text_words_split(w, s, n, TEXT_WORDS_STEM, take_first, &f);
    return f.done ? strlen(out) : 0;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const action_entry *)a)->stem, ((const action_entry *)b)->stem);
}

static void lexicon_init(void)
{
    const char *const *lists[4] = {read_words, create_words, update_words, delete_words};
    const text_action kinds[4] = {TEXT_ACTION_READ, TEXT_ACTION_CREATE, TEXT_ACTION_UPDATE,
                                  TEXT_ACTION_DELETE};
    size_t total = 0;
    for (int l = 0; l < 4; l++)
        for (const char *const *w = lists[l]; *w; w++) total++;
    action_entry *all = calloc(total ? total : 1, sizeof *all);
    text_words *tw = text_words_new();
    if (!all || !tw) {
        free(all);
        text_words_free(tw);
        return;
    }
    size_t n = 0;
    /* the first list to name a stem wins: delete over update only where listed there */
    for (int l = 3; l >= 0; l--)
        for (const char *const *w = lists[l]; *w; w++) {
            if (!text_words_first_stem(tw, *w, strlen(*w), all[n].stem, sizeof all[n].stem))
                continue;
            bool dup = false;
            for (size_t k = 0; k < n && !dup; k++) dup = !strcmp(all[k].stem, all[n].stem);
            if (dup) continue;
            all[n++].action = kinds[l];
        }
    for (size_t k = 0; verb_senses[k][0]; k++)
        if (text_words_first_stem(tw, verb_senses[k][0], strlen(verb_senses[k][0]),
                                  senses[n_senses].stem, sizeof senses[n_senses].stem))
            senses[n_senses++].sense = verb_senses[k][1];
    text_words_free(tw);
    qsort(all, n, sizeof *all, cmp_entry);
    entries = all;
    n_entries = n;
}

text_action text_action_of_stem(const char *stem, size_t n)
{
    pthread_once(&once, lexicon_init);
    if (!entries || !n || n >= sizeof entries[0].stem) return TEXT_ACTION_NONE;
    char key[sizeof entries[0].stem];
    memcpy(key, stem, n);
    key[n] = '\0';
    size_t lo = 0, hi = n_entries;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(entries[mid].stem, key);
        if (!c) return entries[mid].action;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return TEXT_ACTION_NONE;
}

const char *text_verb_sense(const char *stem, size_t n)
{
    pthread_once(&once, lexicon_init);
    for (size_t k = 0; k < n_senses; k++)
        if (n && strlen(senses[k].stem) == n && !memcmp(senses[k].stem, stem, n))
            return senses[k].sense;
    return NULL;
}

const char *text_action_name(text_action a)
{
    switch (a) {
    case TEXT_ACTION_READ:
        return "read";
    case TEXT_ACTION_CREATE:
        return "create";
    case TEXT_ACTION_UPDATE:
        return "update";
    case TEXT_ACTION_DELETE:
        return "delete";
    default:
        return "none";
    }
}

text_action text_action_of_method(const char *method)
{
    if (!method) return TEXT_ACTION_NONE;
    if (!strcmp(method, "GET") || !strcmp(method, "HEAD")) return TEXT_ACTION_READ;
    if (!strcmp(method, "POST")) return TEXT_ACTION_CREATE;
    if (!strcmp(method, "PUT") || !strcmp(method, "PATCH")) return TEXT_ACTION_UPDATE;
    if (!strcmp(method, "DELETE")) return TEXT_ACTION_DELETE;
    return TEXT_ACTION_NONE;
}
