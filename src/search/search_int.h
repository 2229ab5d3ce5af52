/*
 * search internals shared by the files of the stage: the engine (lexical index,
 * operation facts, producer graph, API names, learned verbs), the state of one query
 * (its words, intents and rankings), and the functions each file offers the others.
 * engine.c's essay says how they fit.
 */
#ifndef APIDEX_SEARCH_INT_H
#define APIDEX_SEARCH_INT_H

#include "search/search.h"

#include "embed/embed.h"

#include <pthread.h>
#include <stdint.h>

/* ---------------------------------------------------------------- the engine */

typedef struct posting {
    uint32_t doc; /* chunk index */
    uint16_t field;
    uint16_t tf;
} posting;

typedef struct term_entry {
    const char *term; /* in the engine arena */
    uint32_t len;
    uint32_t df;   /* chunks containing it */
    posting *post; /* sorted by doc */
    size_t n_post, cap_post;
} term_entry;

/* A producer edge, seen from its consumer. */
typedef struct producer_ref {
    uint32_t producer;
    unsigned features; /* FLOW_KIND_* | FLOW_F_* */
    const char *param; /* the consumer's input */
    const char *entity;
    double share;   /* of the API's operations that need this entity: near 1, it is ambient
                       (an account or tenant every call takes, set up once, never looked up) */
    size_t api_ops; /* the API's operations: a share of few says little (producer.ambient_ops) */
} producer_ref;

/* A ranked document: one chunk, and the operations (endpoints) it covers. */
typedef struct doc_info {
    uint32_t field_len[STORE_FIELD_COUNT];
    const long *ops; /* store_chunk.endpoint_ops */
    size_t n_ops;
    bool endpoint; /* the chunk's type is "endpoint" (match_feat.c) */
} doc_info;

/* What the weighing of every candidate reads of an op_info, packed. */
typedef struct op_brief {
    unsigned flags;
    uint32_t verb_id;
    int action;
} op_brief;

/* term lengths lex_term_correct finds in runs of their own */
#define LEX_TYPO_LENS 64
/* field lengths below this have their BM25F norm tabled per query (lex_score) */
#define LEX_NORM_LENS 255
/* search_engine.op_bar: why the filters may leave an operation out */
enum { OP_BAR_DEPRECATED = 1, OP_BAR_SUPERSEDED = 2 };

typedef struct op_info {
    uint32_t api;
    int action;              /* text_action: what it does (index time) */
    const char *verb;        /* stem of its verb: the index's, or (when that is only its
                                method: "POST_StopInstances") the operationId's next word */
    uint32_t verb_id;        /* verb's index in search_engine.verbs + 1; 0: none (opposite.c) */
    unsigned flags;          /* STORE_OP_* */
    producer_ref *producers; /* edges where this op is the consumer, grouped by param */
    size_t n_producers;
    long owner; /* term of the path segment before its first parameter, when a name can give
                   that parameter (owner.c); else -1 */
    long *has;  /* terms of the literal segments after it (in the engine arena) */
    size_t n_has;
} op_info;

/* A name a task can call APIs by (a distinctive word of their title, provider, host or
   id), and the APIs it names. */
typedef struct api_name {
    const char *stem;
    uint32_t *apis;
    size_t n_apis;
    bool vocab;        /* the APIs' own paths or operation ids use it: it also says what to do */
    double share;      /* share of the index chunks using it that belong to the APIs */
    double spread;     /* APIs outside these that use it, as a share of all APIs */
    size_t n_services; /* distinct titles among the APIs (versions and copies of one service
                          count once) */
    uint8_t
        label; /* ROUTE_LABEL bits (routing.c): a whole label of one of the APIs' hosts or provider
                  domains ("s3" of s3.amazonaws.com): it may name them written in lower case too */
} api_name;

struct search_engine {
    store_index *idx;
    bool *superseded; /* per op: an older version's copy of the newest's (dupes.c); NULL: none */
    const store_operation *ops;
    size_t n_ops;
    const store_api *apis;
    size_t n_apis;
    op_info *info;
    const store_chunk *chunks;
    size_t n_docs;
    size_t n_ranked; /* chunks that cover endpoints: the N of idf */
    doc_info *docs;
    term_entry *terms;
    size_t n_terms, cap_terms;
    uint8_t *post_state; /* per term when the postings are the image's: 0 not checked yet,
                            1 checked, 2 a posting names no chunk or field (lex_postings) */
    uint32_t *table;     /* open addressing: term index + 1 */
    size_t table_size;
    double avg_len[STORE_FIELD_COUNT];
    uint32_t *sorted; /* term indexes in byte order of their strings: prefix ranges */
    api_name *names;  /* in the arena, or (names_owned) one array whose strings and APIs are the
                         image's (section LEARN) */
    bool names_owned;
    bool learned; /* names and owners from section LEARN: not learned at open */
    size_t n_names;
    uint32_t *name_table; /* open addressing: name index + 1 */
    size_t name_table_size;
    /* verbs the lexicon does not know, learned from the indexed summaries: per verb stem
       (term index), how many operations start with it, by the action of their method */
    uint16_t (*verb_counts)[5];
    /* the distinct verbs of the operations (opposite.c): op_info.verb_id - 1 indexes them,
       verb_table (open addressing: verb index + 1) finds a stem's */
    const char **verbs;
    size_t n_verbs;
    uint32_t *verb_table;
    size_t verb_table_size;
    /* verb pairs of the de-/dis- form the registry shows on one resource (opposite.c), as
       verb ids */
    uint32_t (*opposites)[2];
    size_t n_opposites;
    core_arena *arena;
    /* The search image the lexical index points into (image.c): terms[].post, table and
       sorted are inside it, not allocated; NULL: built from the rows (lexical.c). */
    void *image;
    /* section PROD of the image (image.c): every op's count is set at open, its records
       are decoded when first asked for (engine_op_producers, under prod_lock); NULL: each
       op's own array (engine_producers) */
    const struct image_prod *prod;
    pthread_mutex_t prod_lock;
    /* The image as read at open (image_ops.c), when section OPS was used or the lexical
       index may use it; e->ops, the chunks' endpoints (ops_ends) and their strings point into
       it. NULL: the operations and chunks are the store's rows. */
    void *ops_image;
    size_t ops_image_len;
    bool image_mapped;        /* ops_image is the store's mapping of the image's file (not freed) */
    store_operation *own_ops; /* made from section OPS; e->ops then points here */
    store_input *own_inputs;
    const char **own_tags;
    long *own_ends;
    struct op_texts *texts; /* summaries and descriptions read by rowid (image_ops.c) */
    size_t work; /* what opening did: rows read and loop iterations (search_engine_open_work) */
    /* query-time facts computed once at open (lex_query_prep): per doc, the API of its first
       operation (UINT32_MAX: none); per op, its API (info[].api, packed for the scans of
       every operation) and the OP_BAR_* bits the filters read */
    uint32_t *doc_api;
    uint32_t *doc_op;  /* per doc, its one operation; UINT32_MAX: none or several (docs[]) */
    uint8_t *doc_len8; /* per doc and field, field_len capped at 255 */
    uint32_t *op_api;
    op_brief *brief;  /* per op, what action_factor reads of info[] */
    uint32_t *by_len; /* term indexes by length, ascending within a length (typo search) */
    size_t len_at[LEX_TYPO_LENS + 1]; /* by_len[len_at[n]..len_at[n + 1]): length n; the last
                                         run: every longer term */
    uint8_t *op_bar;
    embed_provider *embedder;    /* not owned; NULL: lexical only */
    pthread_mutex_t embed_lock;  /* providers are not thread-safe */
    pthread_mutex_t *embed_held; /* the lock taken around the provider: embed_lock, or one
                                    shared by every engine using the same provider */
    /* The last query's vector (under embed_lock): the same task is often run twice in a
       row (a ranked list, then the adaptive answer), and a remote embedding costs a round trip. */
    char *last_text;
    float *last_vec;
    size_t last_dim;
    /* apidex match: the operations' match features, built on first use (match_feat.c) */
    struct match_index *match;
    pthread_mutex_t match_lock;
};

struct match_index;
void match_index_free(struct match_index *mi);

/* ---------------------------------------------------------------- one query */

/* A word of the task. */
enum { QW_PLAIN = 0, QW_NAME = 1, QW_VALUE = 2 }; /* qword.kind */
enum { QL_NONE = 0, QL_NUMBER = 1, QL_ID = 2 };   /* qword.literal */
typedef struct qword {
    uint32_t start, end; /* bytes of the task, surrounding punctuation trimmed */
    uint8_t kind;        /* QW_*: intent, a name (capitalised inside a sentence), a value */
    uint8_t literal;     /* QL_*: a number, or an id-like token (digits and letters, uuid) */
    bool lower;          /* starts with a lower-case letter */
    bool sentence_start; /* first word of a sentence */
    char punct;          /* the punctuation that ends it: , ; . ? ! : or 0 */
    char stem[32];       /* its first stem ("retriev"), "" when it has none */
    int action;          /* text_action of the stem as a verb (lexicon, else learned) */
    int name;            /* the api_name it is (index into engine.names), or -1 */
    bool negated;        /* "don't delete it": no action, and no intent */
    bool verb;           /* the verb that opens a request (intent.c) */
    bool purpose;        /* in a purpose phrase ("... to ensure compliance"): intent.c */
    bool adjunct;        /* after the request's object, from a preposition on: intent.c */
    uint8_t n_unknown;   /* its terms the index has never seen (confidence.c weighs them) */
} qword;

/* One occurrence of an index term in the task. */
typedef struct qocc {
    long term;
    double weight; /* 1, or query.name_weight for a name; times query.morph_weight for family */
    uint32_t word;
    uint8_t family; /* 0: the word's own term; 1: of its family; 2: its action noun;
                       3: what the word sends as a verb ("text" -> message) */
} qocc;

typedef struct qterm {
    long term;
    double idf; /* idf times the occurrence's weight */
} qterm;

/* The whole task, or one of its intents, ranked. */
/* A ranking's ops with score > 0: ids[0..sorted) best first, the rest in index order until
   rank_op reads past them (most queries read a few of tens of thousands). */
typedef struct rank_order {
    uint32_t *ids;
    size_t sorted;
} rank_order;

typedef struct ranking {
    uint32_t w0, w1;     /* its words */
    uint32_t ref0, ref1; /* an antecedent's words ("pay for it": the previous request) */
    int action;          /* text_action of its verb (NONE for the whole task) */
    bool question;       /* a question: it reads, others weigh action.question (intent.c) */
    const char *verb;    /* stem of its request verb, or NULL (opposite.c; set by rank_run) */
    const char *opp[8];  /* the lexicon's opposites of verb */
    size_t n_opp;
    bool *opp_verb; /* per verb id: it opposes verb and the task does not ask for it
                       (opposite.c; NULL: no operation's verb does) */
    qterm *terms;
    size_t n_terms;
    double idf_total; /* the score of a perfect match (every term saturated) */
    bool *named;      /* per API: the ranking names it (NULL: names none) */
    int only_name;    /* >= 0: a part of an intent that names several APIs, for this name */
    double *raw;      /* per op: lexical (or fused) score, before routing */
    uint32_t *best_doc;
    double *score;     /* per op: routed and weighed by the action; -1 when filtered out */
    rank_order *order; /* read with rank_op */
    size_t m;          /* ops with score > 0 */
} ranking;

/* A literal the task gives (a number, an id, a quoted string, an e-mail, #tag, @handle). */
typedef struct qliteral {
    uint32_t word; /* its word (values spanning words: the first) */
    uint8_t kind;  /* QL_NUMBER, QL_ID, or 3 for a value */
} qliteral;

typedef struct query_state {
    const search_engine *e;
    const search_query *q;
    const search_params *p;
    qword *words;
    size_t n_words;
    qocc *occ;
    size_t n_occ, cap_occ;
    ranking whole;
    ranking *intents; /* n_intents > 1: the task asks for several things */
    size_t n_intents;
    bool names_things;    /* the task names something (quoted, capitalised, unknown words) */
    bool mine;            /* the task speaks of the caller's own things ("my playlist") */
    bool wants_delete;    /* an intent asks to delete, remove, cancel, ... */
    bool *allowed;        /* per op, passes the filters */
    double *bonus;        /* per op, a weight one task word earns it outside the word match
                             (owner.c, values.c); NULL: none */
    uint32_t *bonus_word; /* per op, the word that earned it */
    double max_raw;       /* best score of the whole ranking */
    double *usage;        /* per op, its decayed reported uses (usage prior on); NULL: off */
    double *usage_bonus;  /* per op, what the prior added to the whole ranking's score */
    double *dense;        /* per op, best chunk cosine (SEARCH_NO_DENSE when none); NULL: lexical */
    uint32_t *dense_doc;
    uint32_t *planned; /* primaries of the answer, chosen before composition */
    size_t n_planned;
    uint32_t *out; /* result ops in call order */
    search_role *role;
    size_t n_out, cap_out;
    search_link *links;
    size_t n_links, cap_links;
    struct plan_input *inputs; /* where each resolved input of the answer comes from */
    size_t n_inputs, cap_inputs;
    bool composing_plan; /* compose.c: the plan is minimal (a producer in it serves again);
                            a ranked list brings each consumer's best producer not listed */
    bool has_value[5];   /* values.c: the task holds a value of this kind (e-mail, URL, ...) */
    /* lex_score's scratch, reused by every ranking of the query: per doc its score (all 0
       between calls), a bit per doc scored, and BM25F's length norm per field and short
       field length for the query's parameters, with the weighed frequency of one
       occurrence (field weight / norm) */
    double *doc_score;
    uint64_t *doc_mark;
    double (*norm)[LEX_NORM_LENS];
    double (*once)[LEX_NORM_LENS];
} query_state;

/* One identifier input of an operation of the answer, as composition resolved it. */
typedef struct plan_input {
    uint32_t consumer;
    const char *param;
    search_source from;
    uint32_t producer; /* SEARCH_FROM_STEP */
} plan_input;

/* below any cosine: the endpoint has no vector */
#define SEARCH_NO_DENSE (-2.0)

/* lexical.c: the term table, postings and BM25F */
long lex_term_find(const search_engine *e, const char *s, size_t n);
int lex_table_grow(search_engine *e);
/* lex_docs: the ranked documents (the index's chunks) and the operations each covers;
   lex_build: their postings from the chunk-term rows (after lex_docs and lex_table_grow) */
int lex_docs(search_engine *e, apidex_error *err);
int lex_build(search_engine *e, apidex_error *err);
/* lex_query_prep: e->doc_api, op_api and op_bar (after dupes_mark); lex_query_free: the query's
   lex_score scratch */
int lex_query_prep(search_engine *e);
void lex_query_free(query_state *st);
/* lex_build_of: the postings of the chunk rows rowids[0..n) only, chunk docs[i] each
   (ascending), each term interned at its first occurrence as lex_build would; sets their
   docs[].n_ops to their endpoint counts (ops stays NULL: a scratch index, image_patch.c).
   lex_use_fields: ranked field by field */
int lex_build_of(search_engine *e, const int64_t *rowids, const size_t *docs, size_t n,
                 apidex_error *err);
bool lex_use_fields(search_engine *e);
/* The terms of s[0..n) as the query side reads them, appended to out (the analyzer with
   TEXT_TERMS_QUERY: the index's chain, stop words dropped): every query-side use of the
   analyzer goes through here, and tests/unit/test_search_analyzer.c pins it against the
   terms the index stores. Returns the number of terms. */
size_t lex_query_terms(text_analyzer *a, const char *s, size_t n, core_buf *out);
long lex_term_correct(const search_engine *e, const char *s, size_t n, size_t min_len);
/* The index terms of a term's word family (text_term_family over the engine's vocabulary):
   at most cap into out; noun[i]: out[i] is an action noun of the term as a verb (pay ->
   payment, subscribe -> subscription). */
size_t lex_family(const search_engine *e, const search_params *p, long term, long *out, bool *noun,
                  size_t cap);
int lex_sort_terms(search_engine *e);
/* image.c: the search image. image_open: 0 when the engine's lexical index now points
   into the index's image, 1 when it has none or it is not valid (a note on stderr says
   why; the caller builds it from the rows), else an error (image_int.h: the format). */
int image_open(search_engine *e, apidex_error *err);
/* engine.c: search_engine_open on the image img (len bytes, kept by the caller) instead of
   the index's: the builder's, to learn what section LEARN holds (image_learn.c). */
int engine_open_image(store_index *idx, const void *img, size_t len, search_engine **out,
                      apidex_error *err);
/* image_ops.c: the operations, the chunks' endpoints and e->docs from section OPS of the
   index's image (e->apis and the index's counts in info read before): 0 when used, 1 when
   the image has none or it is not valid (the caller reads the rows; the image read stays in
   e->ops_image for image_open), else an error. APIDEX_IMAGE_OPS=0: never used. */
int image_ops_open(search_engine *e, const store_info *info, apidex_error *err);
/* An operation's summary and description: e->ops's own when they are the rows, else read
   from its row on first use (kept until close). Thread-safe. */
const char *image_op_summary(const search_engine *e, size_t i);
const char *image_op_description(const search_engine *e, size_t i);
/* Before asking for every operation's texts (match_feat.c): reads every row at once. */
void image_op_texts_all(const search_engine *e);
void image_ops_free(search_engine *e);
double lex_idf(const search_engine *e, long term);
/* r->raw and r->best_doc: each endpoint's best chunk under r's terms; cover[a] (n_apis):
   the idf of the terms API a has at all; r->idf_total their sum. */
int lex_score(query_state *st, ranking *r, double *cover);
void lex_free(search_engine *e);

/* engine.c: each operation's producers (e->info[].producers) from the producer edges */
int engine_producers(search_engine *e, const store_edge *edges, size_t n_edges);
/* image.c: op's producers (*out; its count returned): e->info's, decoded from section PROD
   on first use when the image has them (thread-safe; a damaged record: none). */
size_t engine_op_producers(const search_engine *e, size_t op, const producer_ref **out);

/* dupes.c: e->superseded from the groups of duplicate APIs. */
int dupes_mark(search_engine *e);

/* usage_prior.c: the usage prior. usage_read: st->usage per op (nothing when the prior is off);
   usage_weigh: after routing, adds the prior to r's scores. */
int usage_read(query_state *st);
void usage_weigh(query_state *st, ranking *r);

/* query.c: reading the task into words, term occurrences and signals */
int query_read(query_state *st);
/* Is the input (entity stem, parameter name) given by the task itself (an id next to the
   entity's word, "its ID", "a specific project")? */
bool query_gives(const query_state *st, const char *entity, const char *param);
/* Does the task ask for a new one of the entity ("a new cookbook", "order a pizza")? Then an
   operation that creates it may serve as its producer. */
bool query_creates(const query_state *st, const char *entity, const char *param);

/* Is word i of the task one of words (case-insensitive)? */
bool query_word_in(const query_state *st, size_t i, const char *const *words);

/* owner.c: things a named thing has ("Contoso's invoices": /customers/{id}/invoices) */
int owner_learn(search_engine *e);
int owner_read(query_state *st);

/* values.c: what the task's values are (a phone number, an e-mail address, a URL, an IP
   address) weighs the operations whose inputs take one */
int values_read(query_state *st);

/* Does the task hold a value of the kind the input's name says (an "email" input and an
   e-mail address in the task, a "url" and a URL, ...)? */
bool values_give(const query_state *st, const char *param);

/* A weight word earns op outside the word match (the largest of a query's, query.c); added
   by rank_run to the rankings whose span holds the word. */
int query_bonus(query_state *st, uint32_t op, uint32_t word, double weight);

/* lexical.c: term t's postings (*out; their count returned). From the image they are
   checked against the chunks and fields when first read (thread-safe): a term with one that
   names no chunk or field has none. */
size_t lex_postings(const search_engine *e, long t, const posting **out);
/* The operations of the chunks whose field has term t, each once per chunk; f returns true
   to stop (lexical.c). */
bool lex_field_ops(const search_engine *e, long t, int field,
                   bool (*f)(void *ctx, uint32_t op, long term), void *ctx);

/* intent.c: the task's clauses that each ask for something */
int intent_split(query_state *st);
int intent_by_names(query_state *st);

/* action.c */
int action_learn(search_engine *e);
int action_of_stem(const search_engine *e, const search_params *p, const char *stem);
double action_factor(const query_state *st, const ranking *r, uint32_t op);

/* op_info.flags: destructive by a word of its summary, operationId or path (opposite.c) */
#define OP_DESTROY_WORDS (1u << 16)
/* opposite.c: opposite and destructive operations. opposite_learn marks the operations whose
   summary, operationId or path destroys (not GET, HEAD) and learns the de-/dis- pairs the
   registry shows; opposite_of_request: does op's verb oppose r's request verb (and the task
   does not say op's verb too)? */
int opposite_learn(search_engine *e);
bool opposite_of_request(const query_state *st, const ranking *r, uint32_t op);
/* Is op destructive (STORE_OP_DESTRUCTIVE; or by its words, with action.destroy_words)? */
bool opposite_destructive(const query_state *st, uint32_t op);
/* Is op destructive while no intent asks to delete, with the rule on (action.destructive
   below 1)? Such an operation is weighed down, and enters no answer and no plan. */
bool opposite_unasked_destructive(const query_state *st, uint32_t op);
/* r->verb and r->opp: its request verb and that verb's opposites in the lexicon; r->opp_verb:
   the operations' verbs that oppose it */
int opposite_read(const query_state *st, ranking *r);
/* routing.c */
int route_api_names(search_engine *e);
/* Do two names name the same APIs? */
bool route_same_apis(const search_engine *e, long a, long b);
/* The api_name a stem is, or -1; lower: the task writes the word in lower case (only a
   label name specific across the registry counts, route.lower_names). */
long route_name_of(const search_engine *e, const search_params *p, const char *stem, bool lower);
/* Marks the APIs the words [w0, w1) name in r->named (allocating it), and drops the name
   terms from r's terms. Returns the number of names found. */
int route_named(query_state *st, ranking *r, size_t *found);
void route_weigh(query_state *st, ranking *r, const double *cover);

/* rank.c */
int rank_run(query_state *st, ranking *r, bool fuse_dense);
void rank_free(ranking *r);
/* The i-th (i < r->m) op of the ranking, best first. */
uint32_t rank_op(const ranking *r, size_t i);

/* compose.c: producers before consumers */
int compose_add(query_state *st, uint32_t op, search_role role, unsigned depth);
bool compose_out_has(const query_state *st, uint32_t op);
int compose_out_push(query_state *st, uint32_t op, search_role role);
double compose_edge_score(const search_params *p, unsigned features);

/* answer.c: answer_adaptive composes the plan in st->out (call order); answer_order puts
   the adaptive answer in relevance order; answer_ranked lists the k most relevant. */
int answer_adaptive(query_state *st);
void answer_order(query_state *st);
int answer_ranked(query_state *st, size_t k);

/* plan.c: the plan of the result from st->out (call order) and st->inputs */
int plan_build(const query_state *st, search_result *res);
int search_cmp_score_desc(const void *a, const void *b, void *ctx);
/**
 * Sorts order[0..m) (operation indexes) as qsort_r with search_cmp_score_desc and score
 * does: score descending, ties by index. When the indexes come ascending and no score is
 * NaN, by a stable radix sort of the scores' bits, in linear time (the sort was a quarter
 * of a query's time on 125 k operations); else by qsort_r.
 */
void search_order_by_score(uint32_t *order, size_t m, const double *score);
/* The k first of that order at order[0..k), the others after them in the order they came
   (ascending indexes: search_order_by_score sorts them later in linear time); returns
   how many lead in order (m when it sorted them all: few, NaN, or indexes not ascending). */
size_t search_order_first(uint32_t *order, size_t m, const double *score, size_t k);

/* context.c */
const char *context_explain(query_state *st, uint32_t op, core_arena *a);
int context_assemble(query_state *st, search_result *res);

/* confidence.c: each hit's confidence and the answer's (confidence, match, evidence) */
int confidence_fill(query_state *st, search_result *res);

/* dense.c */
int dense_scores(search_engine *e, const char *text, double *dense, uint32_t *dense_doc,
                 apidex_error *err);
void dense_fuse(query_state *st, ranking *r);

#endif /* APIDEX_SEARCH_INT_H */
