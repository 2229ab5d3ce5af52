/*
 * Routing: which API each request of a task is about.
 *
 * Names. A task may name an API: by a word of its title, its provider (x-providerName),
 * its servers' host names or its id ("my Contoso balance", "on Fabrikam"), written as a
 * name (capitalised inside a sentence, or in capitals). Such a word is a name when few APIs
 * carry it (at most a tenth of the registry, at least four) and nine in ten index chunks
 * that use it belong to them, or few other APIs use it (route.name_spread: on a large
 * registry, integrations mention the services they connect to), so "Contoso" names the
 * Contoso API while "API" or "Cloud" name nothing. A ranking whose words name APIs prefers them
 * (the others are damped by route.named_damping; an MCP server's tools, which act on the one
 * service their server reaches, by route.named_damping_tools), and the name stops counting
 * inside them: the operations whose texts happen to say "Contoso" should not gain from it. A
 * request that names no API takes the APIs the nearest earlier request names (a name sets the
 * context for what follows it); a request that names several asks something of each (intent.c).
 *
 * Lower-case names. People write many service names in lower case ("upload it to s3"), and a
 * lower-case word is usually just a word. The names that are not are the ones a service
 * calls itself by in its addresses: a whole label of a server host or of the provider's
 * domain ("s3" of s3.amazonaws.com; a label's "api" suffix dropped), not a word out of a
 * descriptive title or a hyphenated host ("fleet-status-monitor.com"), nor a label the API's
 * own description writes as an ordinary word (route.label_prose). Such a label names
 * its APIs in lower case too when it is specific across the registry's names: few APIs
 * carry it (at most route.lower_names of the registry, at least one: an idf over the APIs'
 * names; versions and copies of one service, by title, count once), and it passes the name
 * tests above, where other APIs may use it a little more (route.label_spread): a service's
 * own address is stronger evidence than a word of its title.
 *
 * Coverage. Otherwise each API's operations are weighed by (the share of the ranking's
 * words, by idf, that the API has at all)^route.coverage: an API that has every word of the
 * request is likelier to be the one meant than one that matches a single word well. A
 * ranking that is one request (a one-intent task, or one intent) also focuses on the API
 * whose three best operations score highest: the others are damped by route.damping.
 */
#include "search/search_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A whole label of a host or of the provider's domain; ... that the API's own description
   does not write as an ordinary word */
enum { ROUTE_LABEL = 1, ROUTE_LABEL_NOT_PROSE = 2 };

/* The candidates the engine keeps when it opens: every word a query's parameters may let
   name APIs (route.name_share, route.name_spread, route.label_spread, route.name_group and
   route.name_group_min anywhere in their ranges); route_name_of judges with the query's. */
static double param_bound(const char *name, bool most)
{
    for (size_t i = 0; i < search_param_count(); i++) {
        const search_param_info *pi = search_param_at(i);
        if (!strcmp(pi->name, name)) return most ? pi->max : pi->min;
    }
    return most ? 1e300 : -1e300; /* unreachable: every name below is in params.def */
}

/* The most APIs a word's names may be carried by and still name them (whole APIs). */
static double name_group_most(double share, double least, size_t n_apis)
{
    double most = floor(share * (double)n_apis + 1e-9);
    return most > least ? most : least;
}

static size_t name_slot(const search_engine *e, const char *stem)
{
    return (size_t)core_hash64(stem, strlen(stem)) & (e->name_table_size - 1);
}

static long name_find(const search_engine *e, const char *stem)
{
    if (!e->name_table_size) return -1;
    size_t h = name_slot(e, stem);
    while (e->name_table[h]) {
        if (!strcmp(e->names[e->name_table[h] - 1].stem, stem)) return (long)e->name_table[h] - 1;
        h = (h + 1) & (e->name_table_size - 1);
    }
    return -1;
}

long route_name_of(const search_engine *e, const search_params *p, const char *stem, bool lower)
{
    long nm = name_find(e, stem);
    if (nm < 0) return -1;
    const api_name *x = &e->names[nm];
    int need = p->route_label_prose > 0 ? ROUTE_LABEL_NOT_PROSE : ROUTE_LABEL;
    if ((double)x->n_apis >
        name_group_most(p->route_name_group, p->route_name_group_min, e->n_apis))
        return -1;
    double most = p->route_lower_names * (double)e->n_apis;
    bool specific_label = (x->label & need) && (double)x->n_services <= (most > 1 ? most : 1);
    /* route.name_spread 0 turns the spread rule off for every name */
    double spread =
        specific_label && p->route_name_spread > 0 && p->route_label_spread > p->route_name_spread
            ? p->route_label_spread
            : p->route_name_spread;
    if (!(x->share >= p->route_name_share || x->spread <= spread)) return -1;
    if (lower && (!specific_label || p->route_lower_names <= 0)) return -1;
    return nm;
}

typedef struct cand_ctx {
    char (*stems)[32];
    uint8_t *label; /* per stem: ROUTE_LABEL bits */
    size_t n, cap;
    uint8_t labels; /* take_stem: the ROUTE_LABEL bits of the words now taken */
} cand_ctx;

/* A word worth judging as a name: three characters or more, or two of letters and digits
   ("s3"); not a number, not a version ("v2"). */
static bool name_word(const char *w, size_t n)
{
    size_t digits = 0;
    for (size_t i = 0; i < n; i++) digits += isdigit((unsigned char)w[i]) != 0;
    if (digits == n || n >= 32 || n < 2 || (n == 2 && !digits)) return false;
    return !(w[0] == 'v' && digits == n - 1);
}

static int take_stem(const char *w, size_t n, void *ctx)
{
    cand_ctx *c = ctx;
    if (!name_word(w, n) || c->n == c->cap) return 0;
    for (size_t i = 0; i < c->n; i++)
        if (!strncmp(c->stems[i], w, n) && !c->stems[i][n]) {
            c->label[i] |= c->labels;
            return 0;
        }
    memcpy(c->stems[c->n], w, n);
    c->stems[c->n][n] = '\0';
    c->label[c->n++] = c->labels;
    return 0;
}

typedef struct last_word {
    char w[32];
    size_t n;
} last_word;

static int keep_last(const char *w, size_t n, void *ctx)
{
    last_word *l = ctx;
    l->n = n < sizeof l->w ? n : 0;
    if (l->n) memcpy(l->w, w, n);
    return 0;
}

/* Does the API's own prose (its description) write w[0..n) in lower case as a word of a
   sentence ("monitors potential threats")? Not inside a host, a path, an e-mail address or
   an identifier. A service writes its own brand as a name; a label it writes as an
   ordinary word is a descriptive domain ("threats.example"), not a name. */
static bool prose_word(const store_api *a, const char *w, size_t n)
{
    const char *d = a->description;
    for (const char *p = d; p && n && *p;) {
        const char *hit = NULL;
        for (const char *q = p; *q && !hit; q++)
            if (!strncmp(q, w, n)) hit = q;
        if (!hit) return false;
        char before = hit > d ? hit[-1] : ' ', after = hit[n];
        bool joined_before = isalnum((unsigned char)before) || (before && strchr("./@-_:", before));
        bool joined_after = isalnum((unsigned char)after) || (after && strchr("/@-_", after)) ||
                            ((after == '.' || after == ':') && isalnum((unsigned char)hit[n + 1]));
        if (!joined_before && !joined_after) return true;
        p = hit + 1;
    }
    return false;
}

/* The labels of a host or domain name h[0..n) ("s3.us-east-1.amazonaws.com"): each label
   that is one identifier (no hyphen or underscore: those join descriptive words), but the
   last (the top-level domain), as its stem; a label that ends in "api" or "apis" also
   without it ("exampleapi.com": the service is "example"). */
static void host_labels(text_analyzer *ta, const store_api *a, const char *h, size_t n, cand_ctx *c)
{
    size_t end = n;
    while (end && h[end - 1] != '.') end--;
    if (!end) return; /* one label: a local name, no domain */
    for (size_t s = 0; s < end;) {
        size_t e = s;
        bool word = true;
        size_t len = 0;
        while (e < end && h[e] != '.') {
            if (h[e] == '{' && !len) len = e - s; /* s3{dash-or-dot}{region}: "s3" */
            word = word && (isalnum((unsigned char)h[e]) || len);
            e++;
        }
        if (!len) len = e - s;
        for (int pass = 0; word && pass < 2 && len; pass++) {
            last_word l = {.n = 0};
            text_analyzer_each(ta, h + s, len, TEXT_TERMS_INDEX, keep_last, &l);
            /* one word, or the identifier joined from its parts ("s3": s, 3, s3) */
            c->labels =
                prose_word(a, h + s, len) ? ROUTE_LABEL : ROUTE_LABEL | ROUTE_LABEL_NOT_PROSE;
            if (l.n) take_stem(l.w, l.n, c);
            c->labels = 0;
            if (len > 6 && !strncasecmp(h + s + len - 4, "apis", 4))
                len -= 4;
            else if (len > 5 && !strncasecmp(h + s + len - 3, "api", 3))
                len -= 3;
            else
                break;
        }
        s = e + 1;
    }
}

/* The words an API may be called by: its provider, server hosts, id and title. A word
   is a name only where the task writes it as one (capitalised inside a sentence, or in
   capitals: query.c), so that a title's ordinary words ("Order Management", "Weather
   Data") or a descriptive host or file name ("fleet-status-monitor.com",
   "customer_support_service") name nothing when a task uses them as words. */
static void api_words(text_analyzer *ta, const store_api *a, cand_ctx *c)
{
    const char *texts[3] = {a->provider, a->id, a->title};
    for (int i = 0; i < 3; i++) {
        if (!texts[i]) continue;
        text_analyzer_each(ta, texts[i], strlen(texts[i]), TEXT_TERMS_INDEX, take_stem, c);
    }
    for (size_t s = 0; s < a->n_servers; s++) {
        const char *u = a->servers[s].url;
        if (!u) continue;
        const char *h = strstr(u, "://");
        if (!h) continue; /* a relative server names no host */
        h += 3;
        size_t n = strcspn(h, "/:?#{");
        text_analyzer_each(ta, h, n, TEXT_TERMS_STEMS, take_stem, c);
        /* a template's variable ends the host: s3{dash-or-dot}{region}.amazonaws.com */
        host_labels(ta, a, h, strcspn(h, "/:?#"), c);
    }
    if (a->provider) host_labels(ta, a, a->provider, strcspn(a->provider, "/:?#"), c);
}

/* Share of a term's chunks that belong to the given APIs (1 when the index lacks it), and
   the number of other APIs that use it (stamp: per API, the last word that counted it). */
static double share_in(search_engine *e, const char *stem, const bool *in_group, uint32_t *stamp,
                       uint32_t word, size_t *outside)
{
    *outside = 0;
    long ti = lex_term_find(e, stem, strlen(stem));
    if (ti < 0) return 1.0;
    const posting *post;
    size_t n_post = lex_postings(e, ti, &post);
    e->work += n_post;
    size_t mine = 0, all = 0;
    for (size_t p = 0; p < n_post; p++) {
        if (p && post[p].doc == post[p - 1].doc) continue;
        const doc_info *d = &e->docs[post[p].doc];
        if (!d->n_ops || d->ops[0] < 0 || (size_t)d->ops[0] >= e->n_ops) continue;
        all++;
        uint32_t a = e->info[d->ops[0]].api;
        if (in_group[a]) {
            mine++;
        } else if (stamp[a] != word) {
            stamp[a] = word;
            (*outside)++;
        }
    }
    return all ? (double)mine / (double)all : 1.0;
}

/* Is the stem in the path or operation ids of the group's operations? */
static bool in_vocab(search_engine *e, const char *stem, const bool *in_group)
{
    long ti = lex_term_find(e, stem, strlen(stem));
    if (ti < 0) return false;
    const posting *post;
    size_t n_post = lex_postings(e, ti, &post);
    for (size_t p = 0; p < n_post; p++) {
        e->work++;
        int f = post[p].field;
        const doc_info *d = &e->docs[post[p].doc];
        if ((f == STORE_FIELD_PATH || f == STORE_FIELD_OPERATION_ID) && d->n_ops &&
            d->ops[0] >= 0 && (size_t)d->ops[0] < e->n_ops && in_group[e->info[d->ops[0]].api])
            return true;
    }
    return false;
}

static int cmp_word_at(const void *a, const void *b, void *ctx)
{
    const char(*words)[32] = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(words[x], words[y]);
    return c ? c : (x > y) - (x < y);
}

/* Chains the occurrences of each word in order: next[i] is the next index of words[i]'s
   word (UINT32_MAX: none), first[i] whether i is its first. */
static int chain_words(const char (*words)[32], size_t n, uint32_t *next, bool *first)
{
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order) return APIDEX_ENOMEM;
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    qsort_r(order, n, sizeof *order, cmp_word_at, (void *)words);
    for (size_t k = 0; k < n; k++) {
        uint32_t i = order[k];
        first[i] = k == 0 || strcmp(words[order[k - 1]], words[i]);
        next[i] = k + 1 < n && !strcmp(words[order[k + 1]], words[i]) ? order[k + 1] : UINT32_MAX;
    }
    free(order);
    return 0;
}

static int cmp_title(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Adds the word at index i as a name of the APIs of its chain (ascending: the words were
   read API by API) and counts their services (distinct titles; an untitled API counts
   once itself). */
static int name_add(search_engine *e, const char *word, size_t i, const uint32_t *next,
                    const uint32_t *owner, const bool *in_group, size_t group, const char **titles,
                    double share, double spread, uint8_t is_label)
{
    api_name *nm = &e->names[e->n_names];
    nm->stem = core_arena_strdup(e->arena, word);
    nm->apis = core_arena_calloc(e->arena, group, sizeof *nm->apis);
    if (!nm->stem || !nm->apis) return APIDEX_ENOMEM;
    size_t n_titles = 0;
    for (uint32_t j = (uint32_t)i; j != UINT32_MAX; j = next[j]) {
        e->work++;
        uint32_t a = owner[j];
        if (nm->n_apis && nm->apis[nm->n_apis - 1] == a) continue;
        nm->apis[nm->n_apis++] = a;
        const char *t = e->apis[a].title;
        if (t)
            titles[n_titles++] = t;
        else
            nm->n_services++;
    }
    qsort(titles, n_titles, sizeof *titles, cmp_title);
    e->work += n_titles;
    for (size_t k = 0; k < n_titles; k++)
        nm->n_services += k == 0 || strcmp(titles[k - 1], titles[k]);
    nm->vocab = in_vocab(e, nm->stem, in_group);
    nm->share = share;
    nm->spread = spread;
    nm->label = is_label;
    size_t h = name_slot(e, nm->stem);
    while (e->name_table[h]) h = (h + 1) & (e->name_table_size - 1);
    e->name_table[h] = (uint32_t)++e->n_names;
    return 0;
}

int route_api_names(search_engine *e)
{
    if (e->n_apis < 2) return 0;
    text_analyzer *ta = text_analyzer_new();
    cand_ctx c = {.cap = 64};
    c.stems = calloc(c.cap, sizeof *c.stems);
    c.label = calloc(c.cap, sizeof *c.label);
    /* every candidate word with the APIs that carry it */
    size_t cap = 0, n = 0;
    char(*words)[32] = NULL;
    uint32_t *owner = NULL;
    uint8_t *label = NULL;
    bool *in_group = calloc(e->n_apis, sizeof *in_group);
    uint32_t *stamp = calloc(e->n_apis, sizeof *stamp);
    int rc = ta && c.stems && c.label && in_group && stamp ? 0 : APIDEX_ENOMEM;
    for (size_t a = 0; a < e->n_apis && !rc; a++) {
        c.n = 0;
        api_words(ta, &e->apis[a], &c);
        e->work += 1 + c.n;
        for (size_t i = 0; i < c.n && !rc; i++) {
            if (text_term_is_stop(c.stems[i], strlen(c.stems[i]))) continue;
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 256;
                char(*nw)[32] = realloc(words, nc * sizeof *nw);
                if (nw) words = nw;
                uint32_t *no = nw ? realloc(owner, nc * sizeof *no) : NULL;
                if (no) owner = no;
                uint8_t *nl = no ? realloc(label, nc * sizeof *nl) : NULL;
                if (nl) label = nl;
                if (!nw || !no || !nl) {
                    rc = APIDEX_ENOMEM;
                    break;
                }
                cap = nc;
            }
            memcpy(words[n], c.stems[i], 32);
            label[n] = c.label[i];
            owner[n++] = (uint32_t)a;
        }
    }
    double max_group = name_group_most(param_bound("route.name_group", true),
                                       param_bound("route.name_group_min", true), e->n_apis);
    double min_share = param_bound("route.name_share", false);
    double max_spread = param_bound("route.name_spread", true);
    if (param_bound("route.label_spread", true) > max_spread)
        max_spread = param_bound("route.label_spread", true);
    e->name_table_size = 64;
    while (e->name_table_size < 2 * n + 2) e->name_table_size *= 2;
    e->name_table = rc ? NULL : core_arena_calloc(e->arena, e->name_table_size, sizeof(uint32_t));
    e->names = rc ? NULL : core_arena_calloc(e->arena, n ? n : 1, sizeof *e->names);
    if (!rc && (!e->name_table || !e->names)) rc = APIDEX_ENOMEM;
    /* each word's occurrences, chained in order (sorted once: comparing each word with
       all before it, and scanning all words and all APIs per word, was quadratic in the
       registry); a word is judged once, at its first occurrence */
    uint32_t *next = rc ? NULL : malloc((n ? n : 1) * sizeof *next);
    bool *first = rc ? NULL : calloc(n ? n : 1, sizeof *first);
    const char **titles = rc ? NULL : malloc(e->n_apis * sizeof *titles);
    if (!rc && (!next || !first || !titles)) rc = APIDEX_ENOMEM;
    if (!rc) rc = chain_words(words, n, next, first);
    e->work += n;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!first[i]) continue;
        size_t group = 0;
        uint8_t is_label = 0;
        for (uint32_t j = (uint32_t)i; j != UINT32_MAX; j = next[j]) {
            e->work++;
            is_label |= label[j];
            if (!in_group[owner[j]]) group++;
            in_group[owner[j]] = true;
        }
        size_t outside = 0;
        double share = (double)group > max_group
                           ? 0
                           : share_in(e, words[i], in_group, stamp, (uint32_t)i + 1, &outside);
        double spread = (double)outside / (double)e->n_apis;
        /* a candidate; whether it names (share, or spread under route.name_spread) is the
           query's to say (route_names_ok) */
        if (!((double)group > max_group || (share < min_share && spread > max_spread)))
            rc = name_add(e, words[i], i, next, owner, in_group, group, titles, share, spread,
                          is_label);
        for (uint32_t j = (uint32_t)i; j != UINT32_MAX; j = next[j]) in_group[owner[j]] = false;
    }
    free(next);
    free(first);
    free(titles);
    free(words);
    free(owner);
    free(label);
    free(in_group);
    free(stamp);
    free(c.stems);
    free(c.label);
    text_analyzer_free(ta);
    return rc;
}

bool route_same_apis(const search_engine *e, long a, long b)
{
    const api_name *x = &e->names[a], *y = &e->names[b];
    if (a == b) return true;
    if (x->n_apis != y->n_apis) return false;
    for (size_t i = 0; i < x->n_apis; i++)
        if (x->apis[i] != y->apis[i]) return false;
    return true;
}

int route_named(query_state *st, ranking *r, size_t *found)
{
    const search_engine *e = st->e;
    *found = 0;
    for (size_t i = r->w0; i < r->w1; i++) {
        const qword *w = &st->words[i];
        if (w->name < 0) continue;
        if (r->only_name >= 0 && !route_same_apis(e, w->name, r->only_name)) continue;
        if (!r->named) {
            r->named = calloc(e->n_apis ? e->n_apis : 1, sizeof *r->named);
            if (!r->named) return APIDEX_ENOMEM;
        }
        const api_name *nm = &e->names[w->name];
        for (size_t k = 0; k < nm->n_apis; k++) r->named[nm->apis[k]] = true;
        (*found)++;
    }
    return 0;
}

/* Is the API an MCP server's tools (oas/mcp.c: spec version "mcp" or "mcp-<protocol>")? */
static bool route_is_tools(const store_api *a)
{
    return a->spec_version && !strncmp(a->spec_version, "mcp", 3) &&
           (!a->spec_version[3] || a->spec_version[3] == '-');
}

void route_weigh(query_state *st, ranking *r, const double *cover)
{
    const search_engine *e = st->e;
    const search_params *p = st->p;
    double *factor = calloc(e->n_apis ? e->n_apis : 1, sizeof *factor);
    double *top = calloc(e->n_apis ? e->n_apis * 3 : 3, sizeof *top);
    bool focus = r != &st->whole || st->n_intents < 2;
    if (!factor || !top) { /* out of memory: unrouted */
        free(factor);
        free(top);
        for (size_t i = 0; i < e->n_ops; i++) r->score[i] = st->allowed[i] ? r->raw[i] : -1.0;
        return;
    }
    for (size_t a = 0; a < e->n_apis; a++) {
        factor[a] = r->idf_total > 0 ? pow(cover[a] / r->idf_total, p->route_coverage) : 1.0;
        if (r->named && !r->named[a])
            factor[a] *= route_is_tools(&e->apis[a]) ? p->named_damping_tools : p->named_damping;
    }
    long best_api = -1;
    if (focus && e->n_apis > 1) {
        /* the API whose three best operations score highest */
        for (size_t i = 0; i < e->n_ops; i++) {
            /* a score of 0 or less moves none of the three */
            if (!(r->raw[i] > 0) || !st->allowed[i] || e->op_api[i] >= e->n_apis) continue;
            double *t = top + 3 * e->op_api[i], s = r->raw[i];
            if (s > t[0]) {
                t[2] = t[1];
                t[1] = t[0];
                t[0] = s;
            } else if (s > t[1]) {
                t[2] = t[1];
                t[1] = s;
            } else if (s > t[2]) {
                t[2] = s;
            }
        }
        double best = 0;
        for (size_t a = 0; a < e->n_apis; a++) {
            size_t nt = (size_t)p->route_top_ops;
            double sum = top[3 * a] + (nt > 1 ? top[3 * a + 1] : 0) + (nt > 2 ? top[3 * a + 2] : 0);
            sum *= factor[a];
            top[3 * a] = sum; /* from here on: the API's routing score */
            if (sum > best) {
                best = sum;
                best_api = (long)a;
            }
        }
        /* each API weighs by its routing score relative to the best's: close seconds stay
           close, far ones sink (route.relative; 0: off) */
        for (size_t a = 0; a < e->n_apis && best > 0 && p->route_relative > 0; a++)
            factor[a] *= pow(top[3 * a] / best, p->route_relative);
    }
    for (size_t i = 0; i < e->n_ops; i++) {
        if (!st->allowed[i]) {
            r->score[i] = -1.0;
            continue;
        }
        uint32_t a = e->op_api[i];
        if (r->raw[i] == 0) { /* the other factors are finite and in [0, 1]: a zero stays */
            r->score[i] = r->raw[i] * factor[a];
            continue;
        }
        double s = r->raw[i] * factor[a] * action_factor(st, r, (uint32_t)i);
        if (best_api >= 0 && a != (uint32_t)best_api) s *= p->route_damping;
        r->score[i] = s;
    }
    free(factor);
    free(top);
}
