/*
 * The search parameters: every weight and threshold of the engine, in one table with
 * a name, a default, the range it may take and what it does. docs/SEARCH.md describes
 * each and its measured effect; `apidex eval --param NAME=VALUE` and
 * `--sweep-param NAME=a,b,c` set them, so each rule can be switched off and measured.
 */
#include "search/search_int.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define P(field) offsetof(search_params, field)
#define FW(f)    (offsetof(search_params, field_weight) + (f) * sizeof(double))

static const search_param_info table[] = {
    /* lexical */
    {"field.path", FW(STORE_FIELD_PATH), 3.0, 0, 100, "BM25F weight of the path template"},
    {"field.operation_id", FW(STORE_FIELD_OPERATION_ID), 1.0, 0, 100,
     "BM25F weight of the operationId"},
    {"field.summary", FW(STORE_FIELD_SUMMARY), 3.0, 0, 100, "BM25F weight of the summary"},
    {"field.description", FW(STORE_FIELD_DESCRIPTION), 0.5, 0, 100,
     "BM25F weight of the description"},
    {"field.params", FW(STORE_FIELD_PARAMS), 0.5, 0, 100,
     "BM25F weight of parameter and body field names and descriptions"},
    {"field.responses", FW(STORE_FIELD_RESPONSES), 0.3, 0, 100,
     "BM25F weight of response field names"},
    {"field.tags", FW(STORE_FIELD_TAGS), 0.5, 0, 100, "BM25F weight of tags and the API title"},
    {"field.other", FW(STORE_FIELD_OTHER), 1.0, 0, 100,
     "weight of a chunk's whole text (strategies without fields)"},
    {"bm25.k1", P(bm25_k1), 1.2, 0, 10, "BM25 term-frequency saturation"},
    {"bm25.b", P(bm25_b), 0.75, 0, 1, "BM25 length normalisation"},
    {"query.name_weight", P(name_weight), 0.3, 0, 1,
     "weight of a capitalised word inside a sentence (a name) against a task word"},
    {"query.verb_weight", P(verb_weight), 1.0, 0, 1,
     "weight of the verb that opens a request against a task word: the verb says what to do "
     "(matched by the action), its object which endpoint"},
    {"query.purpose_weight", P(purpose_weight), 0.4, 0, 1,
     "weight of the words of a purpose phrase ('... to ensure compliance', 'so that ...', "
     "'in order to ...'): why a request is made, not what it asks"},
    {"query.adjunct_weight", P(adjunct_weight), 1.0, 0, 1,
     "weight of the words of a request after its object, from a preposition on ('send a "
     "letter to the office', 'create a server in a region using my key'); not 'of'"},
    {"query.morph_weight", P(morph_weight), 0.3, 0, 1,
     "weight of the index words of a task word's family (a derivational suffix: pay/payment, "
     "or one stem apart at the end: subscribe/subscription); 0: none"},
    {"query.verb_noun_weight", P(verb_noun_weight), 0.6, 0, 1,
     "weight of the action noun of the verb that opens a request (pay -> payment, subscribe "
     "-> subscription, book -> booking): what the request makes; and of what a verb that "
     "names it sends (text -> send message, wire -> transfer)"},
    {"query.anaphora_weight", P(anaphora_weight), 0.5, 0, 1,
     "an intent whose object is a pronoun ('pay for it') also takes the previous intent's "
     "words at this weight"},
    {"query.owner_weight", P(owner_weight), 1.0, 0, 4,
     "a name tied to a resource word ('Contoso's invoices', 'invoices of Contoso') adds, to "
     "the operations with that word after an owner's id a name can find "
     "(/customers/{id}/invoices), this times the idf of the owner's word; 0: off"},
    {"query.value_weight", P(value_weight), 1.0, 0, 4,
     "a value whose form says its kind (a phone number, an e-mail address, an IP address, a "
     "URL) adds, to the operations whose parameters name that kind, this times the idf of "
     "the kind's word; 0: off"},
    {"query.typo_min_len", P(typo_min_len), 7, 0, 64,
     "shortest unknown word (after stemming) read as a typo of an index word; 0: no typo "
     "correction"},
    {"query.typo_max", P(typo_max), 8, 0, 64, "most typo corrections tried per task"},
    /* intents and actions */
    {"intent.max", P(intent_max), 8, 1, 64,
     "most intents (clauses that each ask for something) a task is split into; 1: no split"},
    {"intent.bar", P(intent_bar), 0.1, 0, 1,
     "adaptive answer: an intent's best operation enters when its score is at least this "
     "share of a perfect match of the intent's words"},
    {"intent.context", P(intent_context), 0.15, 0, 1,
     "an intent's operations also score this share of their score for the whole task: the "
     "task's other words tell which of two close operations the request means"},
    {"intent.lists", P(intent_lists), 1, 0, 1,
     "1: an item of a comma list after a request's verb is a request of that verb "
     "('retrieve the orders, the stock levels, and the open invoices')"},
    {"intent.second", P(intent_second), 1.0, 0, 1,
     "adaptive answer: an intent's second operation enters when it scores at least this "
     "share of its best (1: never)"},
    {"action.mismatch", P(action_mismatch), 0.8, 0, 1,
     "score factor of an operation whose action (read, create, update, delete) is not the "
     "one its intent's verb asks for"},
    {"action.destructive", P(action_destructive), 0.3, 0, 1,
     "score factor of a destructive operation when no intent asks to delete or cancel "
     "(it never enters an adaptive answer or serves as a producer then)"},
    {"action.opposite", P(action_opposite), 0.3, 0, 1,
     "score factor of an operation whose verb opposes its request's (start/stop, add/remove, "
     "follow/unfollow: opposite.c) when the task does not say that verb too; it never enters "
     "an adaptive answer (1: the rule is off)"},
    {"action.destroy_words", P(action_destroy_words), 1, 0, 1,
     "1: an operation that is no safe read (GET, HEAD) and whose summary, operationId or path "
     "has a word that destroys (delete, destroy, purge, ban, revoke, erase, wipe, terminate) "
     "is destructive (0: only its summary's first verb or DELETE tells)"},
    {"action.learn_min", P(action_learn_min), 3, 1, 1000,
     "a verb the lexicon lacks is learned from the specs when at least this many summaries "
     "start with it"},
    {"action.learn_share", P(action_learn_share), 0.7, 0.5, 1,
     "... and at least this share of them have methods of one action"},
    /* routing */
    {"route.damping", P(route_damping), 1.0, 0, 1,
     "score factor of operations outside the routed API, in a one-intent ranking"},
    {"route.coverage", P(route_coverage), 0.25, 0, 4,
     "exponent of an API's share of the words (by idf) it has at all, applied to its "
     "operations and to its routing score"},
    {"route.relative", P(route_relative), 0.0, 0, 4,
     "in a ranking that is one request, each API's operations weigh (its routing score / the "
     "best API's)^route.relative: an API close to the best stays close, a far one sinks"},
    {"route.top_ops", P(route_top_ops), 3, 1, 3,
     "an API's routing score is the sum of its best this many operations (times its share "
     "of the words)"},
    {"route.named_damping", P(named_damping), 0.5, 0, 1,
     "score factor of the other APIs when the words name an API"},
    {"route.name_spread", P(route_name_spread), 0.02, 0, 0.1,
     "a word of APIs' names that other APIs' texts use too (an integration, a mention) still "
     "names them when at most this share of the registry's APIs use it; 0: only the nine in "
     "ten chunks rule"},
    {"route.label_spread", P(route_label_spread), 0.05, 0, 0.1,
     "route.name_spread of a label name specific across the registry (route.lower_names): "
     "other APIs' texts may use it this much (below route.name_spread: that; "
     "route.name_spread 0: no spread rule at all)"},
    {"route.label_prose", P(route_label_prose), 1, 0, 1,
     "1: a host label the API's own description writes in lower case as a word of a "
     "sentence ('monitors potential threats' for threats.example) is a descriptive domain, "
     "no lower-case name"},
    {"route.lower_names", P(route_lower_names), 0.001, 0, 0.1,
     "a word written in lower case names APIs when it is a whole label of their host or "
     "provider domain and at most this share of the registry's APIs (at least one) carry it "
     "(the word is specific across the registry's names); 0: lower-case words name nothing"},
    /* answer set */
    {"answer.ratio", P(adaptive_ratio), 0.8, 0, 1,
     "adaptive answer of a one-intent task: further primaries score at least this share of "
     "the best"},
    {"answer.max_primaries", P(adaptive_max_primaries), 3, 1, 20,
     "adaptive answer: most primaries of a one-intent task"},
    {"answer.name_searches", P(answer_name_searches), 0, 0, 10,
     "ranked lists of a task that names something: this many of the listed APIs' text "
     "searches follow its first request, most relevant first"},
    {"answer.same_api", P(answer_same_api), 0, 0, 1,
     "1: the primaries of a one-intent task come from its best operation's API"},
    {"answer.one_per_service", P(answer_one_per_service), 1, 0, 1,
     "1: a ranked list skips an operation with the method, path and operationId of one listed "
     "already from an API of the same provider or title (a version or copy of one service)"},
    {"answer.api_cap", P(answer_api_cap), 0, 0, 100,
     "ranked list: most primaries from one API while other APIs still have candidates (one "
     "large API cannot fill the list with near misses); 0: no cap"},
    {"answer.list_producers", P(answer_list_producers), 2, 0, 2,
     "ranked list: after each endpoint, the producers of the inputs it needs that the task does "
     "not give; 2: all of them, 1: those the task's words match, 0: none (producers only in "
     "the plan)"},
    /* composition */
    {"producer.relevance", P(producer_relevance), 1.0, 0, 10,
     "weight of a producer's own relevance to the task in the producer choice"},
    {"producer.search_bonus", P(producer_search_bonus), 1.0, 0, 10,
     "free-text search producers when the task names things"},
    {"producer.mine_bonus", P(producer_mine_bonus), 1.0, 0, 10,
     "producers about the caller when the task says 'my'"},
    {"producer.depth", P(producer_depth), 3, 0, 8, "longest producer chain before an operation"},
    {"producer.returns", P(producer_kind[1]), 1.0, -10, 10,
     "edge score: the producer's response object is the entity"},
    {"producer.lists", P(producer_kind[2]), 1.0, -10, 10,
     "edge score: the producer lists or searches the entity"},
    {"producer.shape", P(producer_kind[3]), 0.75, -10, 10,
     "edge score: an object typed as the entity by its property names"},
    {"producer.nested", P(producer_kind[4]), 0.5, -10, 10,
     "edge score: the entity inside another entity's object"},
    {"producer.refers", P(producer_kind[5]), 0.25, -10, 10,
     "edge score: a property '<entity>_id' of another object"},
    {"producer.path_names", P(producer_path_names), 0.5, -10, 10,
     "edge score: the producer's own path names the entity"},
    {"producer.text_query", P(producer_text_query), 0.3, -10, 10,
     "edge score: the producer takes a free-text query"},
    {"producer.caller", P(producer_caller), 0.5, -10, 10,
     "edge score: the caller's own object (GET /me for a user id)"},
    {"producer.hint", P(producer_hint), 2.0, -10, 10,
     "edge score: the consumer's description names the producer ('call GET /me first')"},
    {"producer.own_input", P(producer_own_input), 0.25, 0, 10,
     "edge score: subtracted per identifier the producer needs itself"},
    {"producer.deprecated", P(producer_deprecated), 0.5, 0, 10,
     "edge score: subtracted for a deprecated producer"},
    {"producer.parent", P(producer_parent), 0.5, -10, 10,
     "edge score: the producer is the collection the consumer's item belongs to (GET /things "
     "for /things/{id}/parts)"},
    {"producer.overlap", P(producer_overlap), 0.25, -10, 10,
     "edge score: per literal path segment producer and consumer share (versions and 'api' "
     "do not count): a video's collection comes from the video collections"},
    {"producer.ambient", P(producer_ambient), 0.8, 0, 1.01,
     "an input that at least this share of an API's operations take (an account, a tenant) "
     "is set up once, not looked up: no producer (above 1: always look up)"},
    {"producer.given_specific", P(producer_given_specific), 1, 0, 1,
     "1: 'a specific (particular, given) X' means the caller has X's id: no producer"},
    /* dense */
    {"dense.rrf_k", P(rrf_k), 60, 1, 1000, "reciprocal-rank fusion constant (Cormack et al.)"},
    {"answer.duplicates", P(answer_duplicates), 1, 0, 1,
     "1 (prefer-newest): of APIs that are one service (same normalised title or server "
     "host), an older version's operation the newest also has (method and path shape) is "
     "left out; 0 (all): every version answers"},
    /* usage prior */
    {"usage.weight", P(usage_weight), 0, 0, 0.2,
     "the usage prior (off at 0; --usage-prior W): an endpoint the ranking scores adds this "
     "share of the ranking's best score times u / (u + 1), u its decayed reported uses; "
     "it orders near-ties, it never makes a candidate"},
    {"usage.half_life", P(usage_half_life), 30, 0, 3650,
     "days after which a reported use counts half (0: uses never decay)"},
};

enum { n_table = sizeof table / sizeof table[0] };

size_t search_param_count(void)
{
    return n_table;
}

const search_param_info *search_param_at(size_t i)
{
    return i < n_table ? &table[i] : NULL;
}

static search_params defaults;
static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;

static void defaults_init(void)
{
    search_params_default(&defaults);
}

const search_params *search_params_defaults(void)
{
    pthread_once(&defaults_once, defaults_init);
    return &defaults;
}

int search_param_table_set(const search_param_table *t, void *p, const char *name, double value,
                           apidex_error *err)
{
    for (size_t i = 0; i < t->n; i++) {
        const search_param_info *e = &t->entries[i];
        if (strcmp(e->name, name)) continue;
        if (!(value >= e->min && value <= e->max))
            return core_error_set(err, APIDEX_EINVAL, "%s parameter %s must be in [%g, %g]",
                                  t->kind, name, e->min, e->max);
        *(double *)((char *)p + e->offset) = value;
        return 0;
    }
    return core_error_set(err, APIDEX_EINVAL, "no %s parameter '%s' (%s lists them)", t->kind, name,
                          t->listed_by);
}

int search_param_table_parse(const search_param_table *t, void *p, const char *assignment,
                             apidex_error *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment || !eq[1])
        return core_error_set(err, APIDEX_EINVAL, "a %s parameter is NAME=VALUE, not '%s'", t->kind,
                              assignment);
    char name[128];
    size_t n = (size_t)(eq - assignment);
    if (n >= sizeof name)
        return core_error_set(err, APIDEX_EINVAL, "no %s parameter '%.*s'", t->kind, (int)n,
                              assignment);
    memcpy(name, assignment, n);
    name[n] = '\0';
    char *end = NULL;
    double v = strtod(eq + 1, &end);
    if (*end || !isfinite(v))
        return core_error_set(err, APIDEX_EINVAL, "%s parameter %s: '%s' is not a number", t->kind,
                              name, eq + 1);
    return search_param_table_set(t, p, name, v, err);
}

void search_param_table_default(const search_param_table *t, void *p, size_t size)
{
    memset(p, 0, size);
    for (size_t i = 0; i < t->n; i++)
        *(double *)((char *)p + t->entries[i].offset) = t->entries[i].def;
}

static const search_param_table search_table = {table, n_table, "search",
                                                "apidex eval --list-params"};

void search_params_default(search_params *p)
{
    search_param_table_default(&search_table, p, sizeof *p);
}

int search_params_set(search_params *p, const char *name, double value, apidex_error *err)
{
    return search_param_table_set(&search_table, p, name, value, err);
}

int search_params_parse(search_params *p, const char *assignment, apidex_error *err)
{
    return search_param_table_parse(&search_table, p, assignment, err);
}
