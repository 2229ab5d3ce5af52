/*
 * Opposite and destructive operations: what an answer must not hold unasked.
 *
 * - Two verbs oppose when one undoes what the other does: start/stop, enable/disable,
 *   add/remove, follow/unfollow. A small lexicon of general English names the pairs whose
 *   words share nothing; a verb and the same verb after "un" (unfollow, unsubscribe,
 *   unarchive) always oppose. The prefixes "de" and "dis" make opposites too (deregister,
 *   disconnect) but also unrelated words (display, detail), so a pair of that form counts
 *   only when the registry itself shows it: two operations of one API on one resource
 *   (the path up to its last parameter) whose verbs are such a pair (opposite_learn).
 * - A verb destroys when it deletes its object for good: delete, destroy, purge, ban,
 *   revoke, erase, wipe, terminate. An operation that is not a safe read (GET, HEAD) and
 *   whose summary, operationId or path has such a word destroys, whatever word opens its
 *   summary ("Retry a destroy request", "Bulk delete messages").
 * The engine keeps such operations out of an answer that does not ask for them (answer.c,
 * action.c); eval counts the answers that still hold one (src/eval/harm.c).
 */
#include "search/search_int.h"
#include "text/lexicon.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Pairs whose words share nothing (or whose prefix alone would be ambiguous). */
static const char *const pairs[][2] = {TEXT_LEX_OPPOSITE_PAIRS, {NULL, NULL}};

static const char *const destroy_words[] = {TEXT_LEX_DESTROY_WORDS, NULL};

enum { STEM_CAP = 32, MAX_PAIRS = sizeof pairs / sizeof pairs[0] };

static char pair_stem[MAX_PAIRS][2][STEM_CAP];
static size_t n_pairs;
static char destroy_stem[sizeof destroy_words / sizeof destroy_words[0]][STEM_CAP];
static size_t n_destroy;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void lexicon_init(void)
{
    text_words *tw = text_words_new();
    if (!tw) return;
    for (size_t k = 0; pairs[k][0]; k++) {
        bool ok = true;
        for (int s = 0; s < 2 && ok; s++)
            ok = text_words_first_stem(tw, pairs[k][s], strlen(pairs[k][s]), pair_stem[n_pairs][s],
                                       STEM_CAP) > 0;
        if (ok) n_pairs++;
    }
    for (size_t k = 0; destroy_words[k]; k++)
        if (text_words_first_stem(tw, destroy_words[k], strlen(destroy_words[k]),
                                  destroy_stem[n_destroy], STEM_CAP))
            n_destroy++;
    text_words_free(tw);
}

/* Is a the verb b after prefix ("unfollow" = "un" + "follow")? */
static bool prefixed(const char *a, const char *b, const char *prefix, size_t min_base)
{
    size_t np = strlen(prefix), nb = strlen(b);
    return nb >= min_base && !strncmp(a, prefix, np) && !strcmp(a + np, b);
}

bool search_verbs_oppose(const char *a, const char *b)
{
    if (!a || !b || !a[0] || !b[0] || !strcmp(a, b)) return false;
    pthread_once(&once, lexicon_init);
    for (size_t k = 0; k < n_pairs; k++)
        if ((!strcmp(a, pair_stem[k][0]) && !strcmp(b, pair_stem[k][1])) ||
            (!strcmp(a, pair_stem[k][1]) && !strcmp(b, pair_stem[k][0])))
            return true;
    return prefixed(a, b, "un", 3) || prefixed(b, a, "un", 3);
}

bool search_verb_destroys(const char *stem, size_t n)
{
    pthread_once(&once, lexicon_init);
    for (size_t k = 0; k < n_destroy && n; k++)
        if (strlen(destroy_stem[k]) == n && !memcmp(destroy_stem[k], stem, n)) return true;
    return false;
}

/* ---------------------------------------------------------------- the engine's side */

/* Is the op's first parameter-free stretch of path one resource with b's? The path up to
   and including its last parameter ("/instances/{id}" of "/instances/{id}/stop"). */
static size_t resource_len(const char *path)
{
    const char *last = strrchr(path, '}');
    return last ? (size_t)(last - path) + 1 : strlen(path);
}

typedef struct verb_at {
    uint32_t api;
    const char *path;
    size_t len;
    const char *verb;
    uint32_t id;
} verb_at;

static int cmp_verb_at(const void *x, const void *y)
{
    const verb_at *a = x, *b = y;
    if (a->api != b->api) return a->api < b->api ? -1 : 1;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->path, b->path, n);
    if (c) return c;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return strcmp(a->verb, b->verb);
}

/*
 * The operations' verbs, interned once at open (a hash table: linear in the operations).
 * A ranking marks the ids of the verbs that oppose its own (opposite_read), and each
 * operation is then one lookup: comparing each operation's verb string instead reads memory
 * all over the index, and on a registry of thousands of APIs that doubled search latency.
 */
static long verb_find(const search_engine *e, const char *s)
{
    if (!e->verb_table_size) return -1;
    size_t mask = e->verb_table_size - 1;
    for (size_t h = core_hash64(s, strlen(s)) & mask; e->verb_table[h]; h = (h + 1) & mask)
        if (!strcmp(e->verbs[e->verb_table[h] - 1], s)) return (long)e->verb_table[h] - 1;
    return -1;
}

static int verb_table_grow(search_engine *e)
{
    size_t size = e->verb_table_size ? e->verb_table_size * 2 : 256;
    uint32_t *t = calloc(size, sizeof *t);
    const char **v = realloc(e->verbs, (size / 2) * sizeof *v);
    if (!t || !v) {
        free(t);
        if (v) e->verbs = v;
        return APIDEX_ENOMEM;
    }
    e->verbs = v;
    for (size_t i = 0; i < e->n_verbs; i++) {
        size_t h = core_hash64(v[i], strlen(v[i])) & (size - 1);
        while (t[h]) h = (h + 1) & (size - 1);
        t[h] = (uint32_t)i + 1;
    }
    free(e->verb_table);
    e->verb_table = t;
    e->verb_table_size = size;
    return 0;
}

/* Sets op's verb_id from its verb (a new id for a verb not seen yet). */
static int verb_intern(search_engine *e, size_t op)
{
    const char *s = e->info[op].verb;
    if (!s || !s[0]) return 0;
    long id = verb_find(e, s);
    e->work++;
    if (id < 0) {
        if ((e->n_verbs + 1) * 2 > e->verb_table_size && verb_table_grow(e)) return APIDEX_ENOMEM;
        size_t h = core_hash64(s, strlen(s)) & (e->verb_table_size - 1);
        while (e->verb_table[h]) h = (h + 1) & (e->verb_table_size - 1);
        e->verbs[e->n_verbs] = s;
        e->verb_table[h] = (uint32_t)e->n_verbs + 1;
        id = (long)e->n_verbs++;
    }
    e->info[op].verb_id = (uint32_t)id + 1;
    return 0;
}

static bool learned_has(search_engine *e, uint32_t a, uint32_t b)
{
    e->work += e->n_opposites;
    for (size_t k = 0; k < e->n_opposites; k++)
        if ((e->opposites[k][0] == a && e->opposites[k][1] == b) ||
            (e->opposites[k][0] == b && e->opposites[k][1] == a))
            return true;
    return false;
}

static int learned_push(search_engine *e, uint32_t a, uint32_t b)
{
    if (learned_has(e, a, b) || e->n_opposites >= 256) return 0;
    uint32_t(*p)[2] = realloc(e->opposites, (e->n_opposites + 1) * sizeof *p);
    if (!p) return APIDEX_ENOMEM;
    e->opposites = p;
    e->opposites[e->n_opposites][0] = a;
    e->opposites[e->n_opposites][1] = b;
    e->n_opposites++;
    return 0;
}

/* Marks the destructive operations the summary's first word did not tell, through the
   postings (the words of each operation's summary, operationId and path). */
typedef struct mark_ctx {
    search_engine *e;
} mark_ctx;

static bool mark_destructive(void *ctx, uint32_t op, long term)
{
    (void)term;
    search_engine *e = ((mark_ctx *)ctx)->e;
    e->work++;
    const char *m = e->ops[op].method;
    if (m && strcasecmp(m, "GET") && strcasecmp(m, "HEAD")) e->info[op].flags |= OP_DESTROY_WORDS;
    return false;
}

static bool is_method_word(const char *w, size_t n)
{
    static const char *const m[] = {"get", "post", "put", "patch", "delet", "delete", "head", NULL};
    for (size_t k = 0; m[k]; k++)
        if (strlen(m[k]) == n && !memcmp(m[k], w, n)) return true;
    return false;
}

typedef struct verb_pick {
    char stem[STEM_CAP];
    size_t seen;
} verb_pick;

/* The first word of an operationId after its leading method words. */
static int pick_verb(const char *w, size_t n, void *ctx)
{
    verb_pick *v = ctx;
    if (v->seen++ > 3) return 1;
    if (is_method_word(w, n) || n >= STEM_CAP) return 0;
    memcpy(v->stem, w, n);
    v->stem[n] = '\0';
    return 1;
}

/* Each operation's verb: the index's, unless it is only the method an operationId starts
   with ("POST_StopInstances"): then the operationId's next word. */
static int read_verbs(search_engine *e)
{
    text_words *tw = NULL;
    int rc = 0;
    e->work += e->n_ops;
    for (size_t i = 0; i < e->n_ops && !rc; i++) {
        const store_operation *o = &e->ops[i];
        e->info[i].verb = o->verb;
        if (!o->verb || !is_method_word(o->verb, strlen(o->verb)) || !o->operation_id) {
            rc = verb_intern(e, i);
            continue;
        }
        if (!tw && !(tw = text_words_new())) return APIDEX_ENOMEM;
        verb_pick v = {.stem = "", .seen = 0};
        text_words_split(tw, o->operation_id, strlen(o->operation_id), TEXT_WORDS_STEM, pick_verb,
                         &v);
        if (v.stem[0]) {
            const char *c = core_arena_strdup(e->arena, v.stem);
            if (!c) rc = APIDEX_ENOMEM;
            e->info[i].verb = c;
        }
        if (!rc) rc = verb_intern(e, i);
    }
    text_words_free(tw);
    return rc;
}

int opposite_learn(search_engine *e)
{
    pthread_once(&once, lexicon_init);
    int vrc = read_verbs(e);
    if (vrc) return vrc;
    mark_ctx mc = {e};
    static const int fields[] = {STORE_FIELD_SUMMARY, STORE_FIELD_OPERATION_ID, STORE_FIELD_PATH};
    for (size_t k = 0; k < n_destroy; k++) {
        long t = lex_term_find(e, destroy_stem[k], strlen(destroy_stem[k]));
        for (size_t f = 0; t >= 0 && f < sizeof fields / sizeof fields[0]; f++)
            lex_field_ops(e, t, fields[f], mark_destructive, &mc);
    }
    /* de-/dis- pairs shown by the registry: two verbs of one resource */
    verb_at *v = malloc((e->n_ops ? e->n_ops : 1) * sizeof *v);
    if (!v) return APIDEX_ENOMEM;
    size_t m = 0;
    e->work += e->n_ops;
    for (size_t i = 0; i < e->n_ops; i++) {
        const store_operation *o = &e->ops[i];
        const char *verb = e->info[i].verb;
        if (!verb || !verb[0] || !o->path) continue;
        v[m++] =
            (verb_at){e->info[i].api, o->path, resource_len(o->path), verb, e->info[i].verb_id};
    }
    qsort(v, m, sizeof *v, cmp_verb_at);
    int rc = 0;
    for (size_t i = 0; i < m && !rc;) {
        size_t j = i + 1;
        while (j < m && v[j].api == v[i].api && v[j].len == v[i].len &&
               !memcmp(v[j].path, v[i].path, v[i].len))
            j++;
        e->work += j - i;
        for (size_t a = i; a < j && a < i + 64 && !rc; a++)
            for (size_t b = a + 1; b < j && b < i + 64 && !rc; b++) {
                e->work++;
                const char *x = v[a].verb, *y = v[b].verb;
                if (prefixed(x, y, "de", 4) || prefixed(y, x, "de", 4) ||
                    prefixed(x, y, "dis", 4) || prefixed(y, x, "dis", 4))
                    rc = learned_push(e, v[a].id, v[b].id);
            }
        i = j;
    }
    free(v);
    return rc;
}

/* The verb of a ranking: the first request verb of its words (none for the whole of a task
   of several intents: each intent has its own). */
static const char *ranking_verb(const query_state *st, const ranking *r)
{
    if (r == &st->whole && st->n_intents > 1) return NULL;
    for (uint32_t i = r->w0; i < r->w1 && i < st->n_words; i++) {
        const qword *w = &st->words[i];
        if (w->verb && !w->negated && w->stem[0]) return w->stem;
    }
    return NULL;
}

/* Does the task itself ask for the verb (a request's verb, not negated)? "stop the old server
   and start a new one" asks for both; "start a stopped server" only starts. */
static bool task_says(const query_state *st, const char *verb)
{
    for (size_t i = 0; i < st->n_words; i++)
        if (st->words[i].verb && !st->words[i].negated && !strcmp(st->words[i].stem, verb))
            return true;
    return false;
}

/* Marks verb in r->opp_verb when some operation has it, it is not r's own verb and the task
   does not ask for it. */
static int opp_mark(const query_state *st, ranking *r, const char *verb)
{
    if (!strcmp(verb, r->verb) || task_says(st, verb)) return 0;
    long id = verb_find(st->e, verb);
    if (id < 0) return 0;
    if (!r->opp_verb && !(r->opp_verb = calloc(st->e->n_verbs + 1, sizeof *r->opp_verb)))
        return APIDEX_ENOMEM;
    r->opp_verb[id + 1] = true;
    return 0;
}

int opposite_read(const query_state *st, ranking *r)
{
    r->verb = ranking_verb(st, r);
    r->n_opp = 0;
    r->opp_verb = NULL;
    if (!r->verb) return 0;
    pthread_once(&once, lexicon_init);
    for (size_t k = 0; k < n_pairs && r->n_opp < sizeof r->opp / sizeof r->opp[0]; k++)
        for (int s = 0; s < 2; s++)
            if (!strcmp(r->verb, pair_stem[k][s])) r->opp[r->n_opp++] = pair_stem[k][1 - s];
    if (st->p->action_opposite >= 1) return 0;
    /* the operations' verbs that oppose it: the lexicon's, the verb after "un" and the verb
       an "un" opens (prefixed, with a base of 3 letters at least), and the learned pairs */
    int rc = 0;
    for (size_t k = 0; k < r->n_opp && !rc; k++) rc = opp_mark(st, r, r->opp[k]);
    size_t n = strlen(r->verb);
    char un[2 + sizeof st->words->stem] = "un";
    if (!rc && n >= 3 && n + 3 <= sizeof un) {
        memcpy(un + 2, r->verb, n + 1);
        rc = opp_mark(st, r, un);
    }
    if (!rc && !strncmp(r->verb, "un", 2) && n >= 5) rc = opp_mark(st, r, r->verb + 2);
    long id = verb_find(st->e, r->verb);
    for (size_t k = 0; k < st->e->n_opposites && id >= 0 && !rc; k++)
        for (int s = 0; s < 2 && !rc; s++)
            if (st->e->opposites[k][s] == (uint32_t)id + 1)
                rc = opp_mark(st, r, st->e->verbs[st->e->opposites[k][1 - s] - 1]);
    return rc;
}

bool opposite_destructive(const query_state *st, uint32_t op)
{
    unsigned f = st->e->brief[op].flags;
    return (f & STORE_OP_DESTRUCTIVE) ||
           (st->p->action_destroy_words > 0 && (f & OP_DESTROY_WORDS));
}

bool opposite_unasked_destructive(const query_state *st, uint32_t op)
{
    return st->p->action_destructive < 1 && !st->wants_delete && opposite_destructive(st, op);
}

bool opposite_of_request(const query_state *st, const ranking *r, uint32_t op)
{
    return st->p->action_opposite < 1 && r->opp_verb && r->opp_verb[st->e->brief[op].verb_id];
}
