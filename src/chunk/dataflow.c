/*
 * Data flow analysis: which operation produces the identifiers another needs.
 *
 * Inputs. Every path parameter is an input (REST: "/collection/{key}" addresses one item
 * of the collection), except one with an enum or a non-scalar type (a value from a fixed
 * set, not an identifier). Its entity is the literal segment before it when the name is a
 * bare key ("id", "sid", "slug", ...), names that segment ("subscription_exposed_id" after
 * "/subscriptions"), or is no identifier name at all ("/users/{username}"); else the last
 * word of the name without its identifier suffix ("/users/{user_id}/orders": user).
 * Required query and body parameters are inputs when their names are identifiers
 * ("invoice_id", "ids") or name an entity the API returns objects of ("channel").
 *
 * Outputs. An operation produces entity E when its 2xx response holds an object with an
 * identifier property (id, uuid, sid, guid) whose nearest naming context is E: the
 * schema names and property keys on the way to it, read innermost first, stopping at the
 * nearest enclosing object that has an identifier of its own. The first context word that
 * is an entity of the API's paths wins ("ShortAlbumRecord": album); else the object's
 * shape (the entity whose canonical object, what "GET /things/{thing_id}" returns, holds
 * most of its property names); else, for the response's own object, the operation's path
 * words; else the innermost word that is not a container ("items", "data", "results",
 * "page": general JSON and REST envelope words). How it is held is the kind: the response
 * object itself (returns), items of a list (lists), inside another entity (nested), or a
 * "<entity>_id" property (refers).
 *
 * Edges. For each input, the operations producing its entity, ranked by structure
 * (dataflow_score): a producer must read, list or search the entity, or create it (marked:
 * it serves only when the task creates the thing too); it is never destructive, never an
 * update, and never needs the same entity itself. The best DATAFLOW_MAX_PRODUCERS per input
 * are kept, so edges grow linearly with the API (an API of 20,000 operations gets a few
 * per input, not one per pair). Words are compared after identifier splitting and Snowball
 * stemming ("orders", "Order" and "order_id" meet at "order"). Nothing here knows any API.
 */
#include "chunk/dataflow.h"
#include "text/lexicon.h"

#include "chunk/chunk.h"
#include "text/text.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    DF_MAX_DEPTH = 6,
    DF_MAX_VISITS = 4000,
    DF_MAX_WORDS = 64,
    DF_MAX_CTX = 48,
    DF_MAX_BODY_INPUTS = 8,
    DF_MAX_KEYS = 128,
    DF_MAX_SHAPES = 256,
    DF_MAX_OUTPUTS = 32
};

typedef struct word_set {
    const char *w[DF_MAX_WORDS];
    size_t n;
} word_set;

/* The property names of one object schema (top level, allOf merged). */
typedef struct key_set {
    const char *k[DF_MAX_KEYS];
    size_t n;
} key_set;

/* An entity's canonical shape: the object "GET /things/{thing_id}" returns. */
typedef struct shape {
    const char *entity;
    key_set keys;
} shape;

/* What one operation produces: an entity and how (DATAFLOW_KIND_*, lower is stronger). */
typedef struct output {
    const char *entity;
    unsigned kind;
} output;

typedef struct output_set {
    output o[DF_MAX_OUTPUTS];
    size_t n;
} output_set;

/* Naming context on the way down a response schema, innermost last. */
typedef struct ctx_words {
    const char *w[DF_MAX_CTX];
    bool last[DF_MAX_CTX]; /* the word ends its item (a property key or a schema name) */
    size_t n;
} ctx_words;

/* A set of words without a size limit (an API's entities), in insertion order. */
typedef struct str_set {
    const char **items;
    size_t n, cap_items;
    uint32_t *slot; /* open addressing: index + 1 */
    size_t cap;     /* a power of two */
    core_arena *arena;
} str_set;

static long sset_find(const str_set *s, const char *w)
{
    if (!s->cap || !w) return -1;
    size_t h = (size_t)core_hash64(w, strlen(w)) & (s->cap - 1);
    while (s->slot[h]) {
        if (!strcmp(s->items[s->slot[h] - 1], w)) return (long)s->slot[h] - 1;
        h = (h + 1) & (s->cap - 1);
    }
    return -1;
}

static bool sset_has(const str_set *s, const char *w)
{
    return sset_find(s, w) >= 0;
}

/* Adds w (copied); returns its index, or -1 when out of memory. */
static long sset_add(str_set *s, const char *w)
{
    long found = sset_find(s, w);
    if (found >= 0) return found;
    if ((s->n + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        uint32_t *slot = calloc(nc, sizeof *slot);
        if (!slot) return -1;
        for (size_t i = 0; i < s->n; i++) {
            size_t h = (size_t)core_hash64(s->items[i], strlen(s->items[i])) & (nc - 1);
            while (slot[h]) h = (h + 1) & (nc - 1);
            slot[h] = (uint32_t)i + 1;
        }
        free(s->slot);
        s->slot = slot;
        s->cap = nc;
    }
    if (s->n == s->cap_items) {
        size_t nc = s->cap_items ? s->cap_items * 2 : 64;
        const char **it = realloc(s->items, nc * sizeof *it);
        if (!it) return -1;
        s->items = it;
        s->cap_items = nc;
    }
    const char *copy = core_arena_strdup(s->arena, w);
    if (!copy) return -1;
    size_t h = (size_t)core_hash64(w, strlen(w)) & (s->cap - 1);
    while (s->slot[h]) h = (h + 1) & (s->cap - 1);
    s->items[s->n] = copy;
    s->slot[h] = (uint32_t)s->n + 1;
    return (long)s->n++;
}

static void sset_free(str_set *s)
{
    free(s->items);
    free(s->slot);
}

typedef struct df_ctx {
    const spec_api *api;
    core_arena *arena;
    text_analyzer *ta;
    str_set vocab;       /* entities of the API's path parameters and identifier inputs */
    word_set envelope;   /* container words (stemmed) */
    output_set *out;     /* outputs of the operation being analysed */
    word_set path_words; /* literal path words of that operation */
    bool sub_resource;   /* its path ends in a literal segment after a placeholder */
    size_t visits;
    shape *shapes;
    size_t n_shapes;
    str_set words; /* every word met, stored once: schemas are walked again for each
                      operation, and a copy per visit grew with operations x visits */
} df_ctx;

/* The one stored copy of w[0..n) (NULL when out of memory). */
static const char *word_intern(df_ctx *d, const char *w, size_t n)
{
    char small[128];
    char *key = n < sizeof small ? small : malloc(n + 1);
    if (!key) return NULL;
    memcpy(key, w, n);
    key[n] = '\0';
    long k = sset_add(&d->words, key);
    if (key != small) free(key);
    return k >= 0 ? d->words.items[k] : NULL;
}

static void set_add(word_set *s, df_ctx *d, const char *w, size_t n)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->w[i]) == n && memcmp(s->w[i], w, n) == 0) return;
    if (s->n < DF_MAX_WORDS) {
        const char *c = word_intern(d, w, n);
        if (c) s->w[s->n++] = c;
    }
}

static bool set_has(const word_set *s, const char *w)
{
    for (size_t i = 0; w && i < s->n; i++)
        if (!strcmp(s->w[i], w)) return true;
    return false;
}

typedef struct collect_ctx {
    word_set *set;
    df_ctx *d;
} collect_ctx;

static int collect_word(const char *w, size_t n, void *ctx)
{
    collect_ctx *c = ctx;
    set_add(c->set, c->d, w, n);
    return 0;
}

/* Adds the stemmed words of s to set. */
static void add_words(df_ctx *d, word_set *set, const char *s)
{
    if (!s) return;
    collect_ctx c = {set, d};
    text_analyzer_each(d->ta, s, strlen(s), TEXT_TERMS_STEMS, collect_word, &c);
}

/* Words that name containers in JSON and REST responses, or the kind of a generated
   schema ("ProductInterface", "OrderDto"), not entities: unless the API has them as
   entities of its own paths. */
static void envelope_words(df_ctx *d)
{
    static const char *const words[] = {TEXT_LEX_ENVELOPE_WORDS, NULL};
    for (const char *const *w = words; *w; w++) add_words(d, &d->envelope, *w);
}

/* Length of an identifier suffix (id, ids, key, sid, uuid with a separator or in camel
   case), 0 if none. */
static size_t id_suffix(const char *name)
{
    size_t n = strlen(name);
    static const char *const sfx[] = {"_ids",  "-ids", "Ids",  "IDs",   "_id",  "-id",
                                      "Id",    "ID",   "_key", "Key",   "_sid", "Sid",
                                      "_uuid", "Uuid", "UUID", "_guid", "Guid", NULL};
    for (const char *const *s = sfx; *s; s++) {
        size_t k = strlen(*s);
        if (n > k && !strcmp(name + n - k, *s)) return k;
    }
    return 0;
}

/* A name that is a key and nothing else. */
static bool bare_id(const char *name)
{
    static const char *const bare[] = {TEXT_LEX_BARE_IDS, NULL};
    for (const char *const *b = bare; *b; b++)
        if (!strcasecmp(name, *b)) return true;
    return false;
}

/* Is a property name an object's own identifier? */
static bool own_id_key(const char *key)
{
    return !strcasecmp(key, "id") || !strcasecmp(key, "uuid") || !strcasecmp(key, "sid") ||
           !strcasecmp(key, "guid");
}

/* Last stemmed word of s[0..n), or NULL. */
static const char *last_word(df_ctx *d, const char *s, size_t n)
{
    word_set tmp = {.n = 0};
    char *copy = strndup(s, n); /* only read here: the words kept are interned */
    if (!copy) return NULL;
    add_words(d, &tmp, copy);
    free(copy);
    return tmp.n ? tmp.w[tmp.n - 1] : NULL;
}

/* Is the parameter's schema a free value from a fixed set or no scalar (enum, boolean,
   object, array of objects)? Then it is no identifier. */
static bool not_an_identifier(const df_ctx *d, const spec_param *p)
{
    spec_loc s;
    if (!p->schema.node || spec_deref(d->api, p->schema, &s) != 0 || !s.node) return false;
    if (jt_get(s.node, "enum")) return true;
    const char *type = jt_str(jt_get(s.node, "type"));
    if (type && (!strcmp(type, "boolean") || !strcmp(type, "object") || !strcmp(type, "number")))
        return true;
    const char *format = jt_str(jt_get(s.node, "format"));
    return format && (!strcmp(format, "date") || !strcmp(format, "date-time"));
}

/* The literal path segment that ends just before the placeholder {name}: "/users/{id}" -> users. */
static const char *segment_before(df_ctx *d, const char *path, const char *name)
{
    size_t nl = strlen(name);
    const char *ph = NULL;
    for (const char *q = strchr(path, '{'); q; q = strchr(q + 1, '{'))
        if (!strncmp(q + 1, name, nl) && q[1 + nl] == '}') {
            ph = q;
            break;
        }
    if (!ph || ph == path || ph[-1] != '/') return NULL;
    const char *end = ph - 1, *start = end;
    while (start > path && start[-1] != '/') start--;
    if (end == start || *start == '{') return NULL;
    return last_word(d, start, (size_t)(end - start));
}

/* The last literal path segment ("/me/books" -> book), or NULL. */
static const char *last_segment(df_ctx *d, const char *path)
{
    const char *seg = NULL, *seg_end = NULL;
    for (const char *q = path; *q; q++) {
        if (*q != '/') continue;
        const char *e = q + 1;
        while (*e && *e != '/') e++;
        if (e > q + 1 && q[1] != '{') {
            seg = q + 1;
            seg_end = e;
        }
    }
    return seg ? last_word(d, seg, (size_t)(seg_end - seg)) : NULL;
}

/* The entity of a path parameter (see the essay), or NULL. */
static const char *path_entity_of(df_ctx *d, const spec_operation *op, const spec_param *p)
{
    const char *seg = segment_before(d, op->path, p->name);
    if (bare_id(p->name)) return seg;
    size_t k = id_suffix(p->name);
    word_set words = {.n = 0};
    char *stripped = core_arena_strndup(d->arena, p->name, strlen(p->name) - k);
    if (!stripped) return NULL;
    add_words(d, &words, stripped);
    if (!words.n) return seg;
    if (seg && set_has(&words, seg)) return seg;
    if (k) return words.w[words.n - 1];
    return seg ? seg : words.w[words.n - 1];
}

/* The entity of an identifier-named query or body input ("invoice_id", bare "ids"). */
static const char *named_entity_of(df_ctx *d, const spec_operation *op, const char *name)
{
    if (bare_id(name)) return last_segment(d, op->path);
    size_t k = id_suffix(name);
    /* outside a path, "public_key", "api_key", "secret_key" are values, not references */
    if (!k || (k >= 3 && !strcasecmp(name + strlen(name) - 3, "key"))) return NULL;
    return last_word(d, name, strlen(name) - k);
}

/* Does a text say the value is an identifier ("Room ID to read", "the key of")? */
static bool mentions_word(const char *s, const char *const *words)
{
    for (const char *p = s; p && *p;) {
        while (*p && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) p++;
        const char *w = p;
        while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) p++;
        for (const char *const *k = words; *k && p > w; k++)
            if ((size_t)(p - w) == strlen(*k) && !strncasecmp(w, *k, (size_t)(p - w))) return true;
    }
    return false;
}

static bool says_identifier(const char *s)
{
    static const char *const words[] = {TEXT_LEX_IDENTIFIER_WORDS, NULL};
    return mentions_word(s, words);
}

/* "Can be an encoded ID, or a name": the input takes the thing's name as well as its id. */
static bool accepts_name(const char *desc)
{
    static const char *const words[] = {TEXT_LEX_NAME_WORDS, NULL};
    return says_identifier(desc) && mentions_word(desc, words);
}

static void add_input(dataflow *df, size_t op, const char *name, const char *in, const char *ent,
                      const char *desc)
{
    for (size_t k = 0; k < df->n_inputs[op]; k++)
        if (!strcmp(df->inputs[op][k].name, name)) return;
    dataflow_input *x = &df->inputs[op][df->n_inputs[op]++];
    x->name = name;
    x->in = in;
    x->entity = ent;
    x->accepts_name = accepts_name(desc);
}

static const char *schema_description(const df_ctx *d, spec_loc schema)
{
    spec_loc s;
    if (!schema.node || spec_deref(d->api, schema, &s) != 0 || !s.node) return NULL;
    return jt_str(jt_get(s.node, "description"));
}

/* The top-level fields of op's request body: the required ones first, then (when
   optional_too) the others, as (name, schema) pairs. */
static size_t body_fields(const df_ctx *d, const spec_operation *op, bool optional_too,
                          const char **names, spec_loc *schemas, size_t cap)
{
    if (!op->body || !op->body->n_media) return 0;
    spec_loc schema;
    if (spec_deref(d->api, op->body->media[0].schema, &schema) != 0 || !schema.node) return 0;
    const jt_node *required = jt_get(schema.node, "required");
    const jt_node *props = jt_get(schema.node, "properties");
    size_t n = 0;
    for (size_t r = 0; required && r < required->len && n < cap; r++) {
        const char *name = jt_str(jt_at(required, r));
        const jt_node *prop = name ? jt_get(props, name) : NULL;
        if (!prop) continue;
        names[n] = name;
        schemas[n++] = (spec_loc){prop, schema.doc};
    }
    for (uint32_t i = 0; optional_too && jt_is(props, JT_OBJECT) && i < props->len && n < cap;
         i++) {
        const char *name = props->u.members[i].key;
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++) dup = !strcmp(names[k], name);
        if (dup) continue;
        names[n] = name;
        schemas[n++] = (spec_loc){props->u.members[i].value, schema.doc};
    }
    return n;
}

/* Is name a required field of op's request body? */
static bool body_required(const df_ctx *d, const spec_operation *op, const char *name)
{
    const char *names[DF_MAX_BODY_INPUTS];
    spec_loc schemas[DF_MAX_BODY_INPUTS];
    size_t n = body_fields(d, op, false, names, schemas, DF_MAX_BODY_INPUTS);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return true;
    return false;
}

/* Identifier inputs of every operation; their entities make the API's vocabulary. */
static void find_inputs(df_ctx *d, dataflow *df)
{
    const spec_api *api = d->api;
    for (size_t i = 0; i < api->n_ops; i++) {
        const spec_operation *op = &api->ops[i];
        for (size_t p = 0; p < op->n_params; p++) {
            const spec_param *pp = &op->params[p];
            if (!pp->name || !pp->in) continue;
            const char *ent = NULL;
            if (!strcmp(pp->in, "path")) {
                if (!not_an_identifier(d, pp)) ent = path_entity_of(d, op, pp);
            } else if (!strcmp(pp->in, "query") && pp->required) {
                ent = named_entity_of(d, op, pp->name);
            }
            if (!ent) continue;
            add_input(df, i, pp->name, pp->in, ent, pp->description);
            sset_add(&d->vocab, ent);
        }
        const char *names[DF_MAX_BODY_INPUTS];
        spec_loc schemas[DF_MAX_BODY_INPUTS];
        size_t nb = body_fields(d, op, false, names, schemas, DF_MAX_BODY_INPUTS);
        for (size_t b = 0; b < nb; b++) {
            if (bare_id(names[b])) continue; /* a new object's own id, not a reference */
            const char *ent = named_entity_of(d, op, names[b]);
            if (!ent) continue;
            add_input(df, i, names[b], "body", ent, schema_description(d, schemas[b]));
            sset_add(&d->vocab, ent);
        }
    }
}

/* A required query or body parameter named as an entity the API returns objects of
   ("channel", "customer") is an input too. */
static void find_entity_named_inputs(df_ctx *d, dataflow *df, const str_set *produced)
{
    const spec_api *api = d->api;
    for (size_t i = 0; i < api->n_ops; i++) {
        const spec_operation *op = &api->ops[i];
        for (size_t p = 0; p < op->n_params; p++) {
            const spec_param *pp = &op->params[p];
            /* required, or described as an id (specs do not always mark what they need) */
            if (!pp->name || !pp->in || strcmp(pp->in, "query") ||
                !(pp->required || says_identifier(pp->description)) || not_an_identifier(d, pp))
                continue;
            word_set w = {.n = 0};
            add_words(d, &w, pp->name);
            if (w.n == 1 && sset_has(produced, w.w[0]))
                add_input(df, i, pp->name, "query", w.w[0], pp->description);
        }
        const char *names[DF_MAX_BODY_INPUTS];
        spec_loc schemas[DF_MAX_BODY_INPUTS];
        size_t nb = body_fields(d, op, true, names, schemas, DF_MAX_BODY_INPUTS);
        for (size_t b = 0; b < nb && df->n_inputs[i] < api->ops[i].n_params + DF_MAX_BODY_INPUTS;
             b++) {
            spec_loc s;
            if (spec_deref(api, schemas[b], &s) != 0 || !s.node || jt_get(s.node, "enum")) continue;
            if (!body_required(d, op, names[b]) &&
                !says_identifier(jt_str(jt_get(s.node, "description"))))
                continue;
            const char *type = jt_str(jt_get(s.node, "type"));
            if (type && strcmp(type, "string") && strcmp(type, "integer")) continue;
            word_set w = {.n = 0};
            add_words(d, &w, names[b]);
            if (w.n == 1 && sset_has(produced, w.w[0]))
                add_input(df, i, names[b], "body", w.w[0], schema_description(d, schemas[b]));
        }
    }
}

/*
 * A bare "ids" query parameter takes its entity from the last literal path segment, which
 * may name no entity at all ("PUT /me/watching?ids=": "watching" is a relation). Then
 * the first word of the parameter's description, else the operation's summary, else its
 * description, that is an entity of the API wins ("Watch projects or teams": project).
 */
static void refine_query_ids(df_ctx *d, dataflow *df)
{
    const spec_api *api = d->api;
    for (size_t i = 0; i < df->n_ops; i++) {
        const spec_operation *op = &api->ops[i];
        for (size_t k = 0; k < df->n_inputs[i]; k++) {
            dataflow_input *in = &df->inputs[i][k];
            if (strcmp(in->in, "query") || !bare_id(in->name)) continue;
            bool is_path_entity = false;
            for (size_t o = 0; o < df->n_ops && !is_path_entity; o++)
                for (size_t m = 0; m < df->n_inputs[o] && !is_path_entity; m++)
                    is_path_entity = !strcmp(df->inputs[o][m].in, "path") &&
                                     !strcmp(df->inputs[o][m].entity, in->entity);
            if (is_path_entity) continue;
            const char *param_desc = NULL;
            for (size_t p = 0; p < op->n_params; p++)
                if (!strcmp(op->params[p].name, in->name)) param_desc = op->params[p].description;
            const char *texts[] = {param_desc, op->summary, op->description};
            const char *found = NULL;
            for (size_t t = 0; t < 3 && !found; t++) {
                word_set words = {.n = 0};
                add_words(d, &words, texts[t]);
                for (size_t w = 0; w < words.n && !found; w++)
                    if (sset_has(&d->vocab, words.w[w]) && !set_has(&d->envelope, words.w[w]) &&
                        strcmp(words.w[w], in->entity))
                        found = words.w[w];
            }
            if (found) in->entity = found;
        }
    }
}

static void keys_add(key_set *ks, const char *k)
{
    for (size_t i = 0; i < ks->n; i++)
        if (!strcmp(ks->k[i], k)) return;
    if (ks->n < DF_MAX_KEYS) ks->k[ks->n++] = k;
}

static bool keys_has(const key_set *ks, const char *k)
{
    for (size_t i = 0; i < ks->n; i++)
        if (!strcmp(ks->k[i], k)) return true;
    return false;
}

/* The property names of the object at loc, with those of its allOf parts. */
static void object_keys(const df_ctx *d, spec_loc loc, key_set *ks, unsigned depth)
{
    if (depth > 3 || !loc.node) return;
    spec_loc t;
    if (spec_ref_target(loc)) {
        if (spec_deref(d->api, loc, &t) != 0) return;
        loc = t;
    }
    if (!jt_is(loc.node, JT_OBJECT)) return;
    const jt_node *all = jt_get(loc.node, "allOf");
    for (size_t i = 0; all && i < all->len; i++)
        object_keys(d, (spec_loc){jt_at(all, i), loc.doc}, ks, depth + 1);
    const jt_node *props = jt_get(loc.node, "properties");
    if (!jt_is(props, JT_OBJECT)) return;
    for (uint32_t i = 0; i < props->len; i++) keys_add(ks, props->u.members[i].key);
}

/*
 * Which entity an object with an id is, judged by its shape: the entity whose canonical
 * object shares most of this object's property names. At least three shared names, and at
 * least half of the object's own; the best entity wins only if it is clearly ahead (a
 * book summary shares many names with a magazine too). NULL when no entity fits.
 */
static const char *shape_entity(const df_ctx *d, const key_set *ks)
{
    const char *best = NULL;
    double best_c = 0, second = 0;
    for (size_t s = 0; s < d->n_shapes; s++) {
        size_t common = 0;
        for (size_t i = 0; i < ks->n; i++)
            if (keys_has(&d->shapes[s].keys, ks->k[i])) common++;
        double c = ks->n ? (double)common / (double)ks->n : 0;
        if (common < 3) c = 0;
        if (c > best_c) {
            second = best_c;
            best_c = c;
            best = d->shapes[s].entity;
        } else if (c > second) {
            second = c;
        }
    }
    return best_c >= 0.5 && best_c >= second + 0.15 ? best : NULL;
}

static void output_add(output_set *s, const char *entity, unsigned kind)
{
    if (!entity) return;
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->o[i].entity, entity)) {
            if (kind < s->o[i].kind) s->o[i].kind = kind;
            return;
        }
    if (s->n < DF_MAX_OUTPUTS) s->o[s->n++] = (output){entity, kind};
}

static void ctx_push_words(df_ctx *d, ctx_words *c, const char *s)
{
    word_set w = {.n = 0};
    add_words(d, &w, s);
    for (size_t i = 0; i < w.n && c->n < DF_MAX_CTX; i++) {
        c->last[c->n] = i + 1 == w.n;
        c->w[c->n++] = w.w[i];
    }
    if (w.n && c->n == DF_MAX_CTX) c->last[c->n - 1] = true;
}

/* The head of the item that ends at word `end` (inclusive), scanning back no further than
   `from`: its last word that is no container word. English compounds put the head last:
   a "VideoChannel" is a channel, a "ShortAlbumRecord" an album. NULL when none. Sets
   *start to the item's first word. */
static const char *item_head(const df_ctx *d, const ctx_words *c, size_t end, size_t from,
                             size_t *start)
{
    size_t s = end;
    while (s > from && !c->last[s - 1]) s--;
    *start = s;
    /* a container word heads a compound the API has as an entity ("DomainRecord" where
       /records/{id} exists); alone ("items", "records") it is a wrapper */
    for (size_t i = end + 1; i-- > s;)
        if (!set_has(&d->envelope, c->w[i]) || (end > s && sset_has(&d->vocab, c->w[i])))
            return c->w[i];
    return NULL;
}

/*
 * Records what an object with an id stands for (see the essay): the heads of its local
 * naming context's items (property keys and schema names, innermost first) that are
 * entities of the API (an object may be known by several names: a "vpcs" list of "vpc"
 * objects); else its shape; else those heads whatever they are (a "channels" list of
 * "conversation" objects); else, for the response's own object, the operation's path.
 */
static void type_object(df_ctx *d, spec_loc loc, const ctx_words *c, size_t from, bool nested,
                        unsigned kind)
{
    /* the heads of the local context's items, innermost first */
    const char *heads[DF_MAX_CTX];
    size_t n_heads = 0;
    for (size_t end = c->n; end > from;) {
        size_t start;
        const char *h = item_head(d, c, end - 1, from, &start);
        if (h) heads[n_heads++] = h;
        end = start;
    }
    bool any = false;
    for (size_t i = 0; i < n_heads; i++)
        if (sset_has(&d->vocab, heads[i])) {
            output_add(d->out, heads[i], kind);
            any = true;
        }
    if (any) return;
    if (d->n_shapes) {
        key_set ks = {.n = 0};
        object_keys(d, loc, &ks, 0);
        const char *ent = shape_entity(d, &ks);
        if (ent) {
            output_add(d->out, ent, nested ? DATAFLOW_KIND_NESTED : DATAFLOW_KIND_SHAPE);
            return;
        }
    }
    for (size_t i = 0; i < n_heads; i++) {
        output_add(d->out, heads[i], kind);
        any = true;
    }
    if (any || nested) return;
    /* the response's own object or list, named by nothing but containers: what the
       operation's path says ("/search/book", "/v1/customers") */
    for (size_t i = d->path_words.n; i-- > 0;)
        if (sset_has(&d->vocab, d->path_words.w[i])) {
            output_add(d->out, d->path_words.w[i], kind);
            return;
        }
    for (size_t i = d->path_words.n; i-- > 0;)
        if (!set_has(&d->envelope, d->path_words.w[i])) {
            output_add(d->out, d->path_words.w[i], kind);
            return;
        }
}

/* Walks a response schema; every object with an id adds what it stands for. from: where
   the context of the nearest enclosing entity ends; nested: there is one. */
static void walk_schema(df_ctx *d, spec_loc loc, ctx_words c, size_t from, bool in_array,
                        bool nested, bool top, unsigned depth)
{
    if (depth > DF_MAX_DEPTH || ++d->visits > DF_MAX_VISITS || !loc.node) return;
    if (spec_ref_target(loc)) {
        long si = spec_schema_index(d->api, loc);
        if (si >= 0) ctx_push_words(d, &c, d->api->schemas[si].name);
        spec_loc t;
        if (spec_deref(d->api, loc, &t) != 0) return;
        loc = t;
    }
    const jt_node *s = loc.node;
    if (!jt_is(s, JT_OBJECT)) return;
    static const char *const alts[] = {"allOf", "oneOf", "anyOf", NULL};
    for (const char *const *k = alts; *k; k++) {
        const jt_node *arr = jt_get(s, *k);
        for (size_t i = 0; arr && i < arr->len; i++)
            walk_schema(d, (spec_loc){jt_at(arr, i), loc.doc}, c, from, in_array, nested, top,
                        depth + 1);
    }
    const jt_node *items = jt_get(s, "items");
    if (jt_is(items, JT_ARRAY)) /* the tuple form: one schema per position */
        for (size_t i = 0; i < items->len; i++)
            walk_schema(d, (spec_loc){jt_at(items, i), loc.doc}, c, from, true, nested, false,
                        depth + 1);
    else if (items)
        walk_schema(d, (spec_loc){items, loc.doc}, c, from, true, nested, false, depth + 1);
    const jt_node *props = jt_get(s, "properties");
    if (!jt_is(props, JT_OBJECT)) return;
    bool has_id = false;
    for (uint32_t i = 0; i < props->len && !has_id; i++)
        has_id = own_id_key(props->u.members[i].key);
    if (has_id) {
        unsigned kind = nested     ? DATAFLOW_KIND_NESTED
                        : in_array ? DATAFLOW_KIND_LISTS
                                   : DATAFLOW_KIND_RETURNS;
        type_object(d, loc, &c, from, nested, kind);
    }
    for (uint32_t i = 0; i < props->len; i++) {
        const jt_member *m = &props->u.members[i];
        if (own_id_key(m->key)) continue;
        size_t k = id_suffix(m->key);
        if (k && k < m->key_len) { /* "owner_id": a reference to another entity */
            const char *e = last_word(d, m->key, m->key_len - k);
            if (e && sset_has(&d->vocab, e)) output_add(d->out, e, DATAFLOW_KIND_REFERS);
            continue;
        }
        ctx_words sub = c;
        /* The response of a sub-resource ("/films/{id}/cast") is a container around what
           it is about: its own id echoes the request, and what it holds is its content,
           not objects nested inside another entity. */
        bool container = has_id && top && d->sub_resource;
        if (has_id && !container) {
            sub.n = 0; /* the enclosing entity's context does not name what it holds */
            ctx_push_words(d, &sub, m->key);
            walk_schema(d, (spec_loc){m->value, loc.doc}, sub, 0, in_array, true, false, depth + 1);
        } else {
            ctx_push_words(d, &sub, m->key);
            walk_schema(d, (spec_loc){m->value, loc.doc}, sub, from, in_array, nested, false,
                        depth + 1);
        }
    }
}

bool dataflow_path_is_mine(const char *path)
{
    static const char *const words[] = {TEXT_LEX_PATH_MINE, NULL};
    for (const char *p = path; p && *p;) {
        while (*p == '/') p++;
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        for (const char *const *w = words; *w; w++)
            if (n == strlen(*w) && !strncasecmp(p, *w, n)) return true;
        p = end;
    }
    return false;
}

/* Literal words of a path (placeholders skipped). */
static void path_words(df_ctx *d, const char *path, word_set *out)
{
    out->n = 0;
    for (const char *q = path; *q;) {
        if (*q == '{') {
            const char *e = strchr(q, '}');
            q = e ? e + 1 : q + strlen(q);
            continue;
        }
        const char *e = q;
        while (*e && *e != '{') e++;
        char *seg = core_arena_strndup(d->arena, q, (size_t)(e - q));
        if (seg) add_words(d, out, seg);
        q = e;
    }
}

/* Index of the operation "METHOD /path" named at s (same API), or -1. */
static long find_named_op(const spec_api *api, const char *s)
{
    for (size_t i = 0; i < api->n_ops; i++) {
        const spec_operation *op = &api->ops[i];
        size_t ml = strlen(op->method), pl = strlen(op->path);
        if (!strncasecmp(s, op->method, ml) && s[ml] == ' ' && !strncmp(s + ml + 1, op->path, pl)) {
            char after = s[ml + 1 + pl];
            if (!after || !(after == '/' || after == '{' || (after >= 'a' && after <= 'z') ||
                            (after >= 'A' && after <= 'Z') || after == '_' || after == '-'))
                return (long)i;
        }
    }
    return -1;
}

/* The operation a consumer's description tells to call first ("call GET /me"), or -1. */
static long hinted_op(const spec_api *api, const spec_operation *cons)
{
    static const char *const methods[] = {"GET ", "POST ", "PUT ", "DELETE ", "PATCH ", NULL};
    const char *desc = cons->description ? cons->description : "";
    for (const char *q = desc; *q; q++)
        for (const char *const *m = methods; *m; m++)
            if (!strncmp(q, *m, strlen(*m))) {
                long h = find_named_op(api, q);
                if (h >= 0) return h;
            }
    return -1;
}

/*
 * The canonical shape of each entity: for every GET whose path ends in the placeholder
 * of an identifier input ("/people/{person_id}", "/books/{id}"), the property names
 * of the object its first 2xx response returns.
 */
static int collect_shapes(df_ctx *d, const dataflow *df)
{
    const spec_api *api = d->api;
    for (size_t i = 0; i < api->n_ops; i++) {
        const spec_operation *op = &api->ops[i];
        size_t pl = strlen(op->path);
        if (strcmp(op->method, "GET") || !pl || op->path[pl - 1] != '}') continue;
        const char *open = strrchr(op->path, '{');
        const char *entity = NULL;
        for (size_t k = 0; k < df->n_inputs[i] && !entity; k++) {
            const dataflow_input *in = &df->inputs[i][k];
            size_t nl = strlen(in->name);
            if (!strcmp(in->in, "path") && !strncmp(open + 1, in->name, nl) && open[1 + nl] == '}')
                entity = in->entity;
        }
        if (!entity) continue;
        const spec_response *ok = NULL;
        for (size_t r = 0; r < op->n_responses && !ok; r++)
            if (op->responses[r].status[0] == '2' && op->responses[r].n_media)
                ok = &op->responses[r];
        if (!ok) continue;
        key_set ks = {.n = 0};
        object_keys(d, ok->media[0].schema, &ks, 0);
        if (ks.n < 3) continue;
        shape *sh = NULL;
        for (size_t s = 0; s < d->n_shapes && !sh; s++)
            if (!strcmp(d->shapes[s].entity, entity)) sh = &d->shapes[s];
        if (!sh) {
            if (d->n_shapes == DF_MAX_SHAPES) continue;
            shape *ns = realloc(d->shapes, (d->n_shapes + 1) * sizeof *ns);
            if (!ns) return APIDEX_ENOMEM;
            d->shapes = ns;
            sh = &d->shapes[d->n_shapes++];
            sh->entity = entity;
            sh->keys.n = 0;
        }
        for (size_t k = 0; k < ks.n; k++) keys_add(&sh->keys, ks.k[k]);
    }
    return 0;
}

double dataflow_score(unsigned f)
{
    static const double by_kind[8] = {0, 1.0, 1.0, 0.75, 0.5, 0.25, 0, 0};
    double s = by_kind[f & DATAFLOW_KIND_MASK];
    if (f & DATAFLOW_F_PATH_NAMES) s += 0.5;
    if (f & DATAFLOW_F_TEXT_QUERY) s += 0.3;
    if (f & DATAFLOW_F_CALLER) s += 0.5;
    if (f & DATAFLOW_F_HINT) s += 2.0;
    if (f & DATAFLOW_F_DEPRECATED) s -= 0.5;
    if (f & DATAFLOW_F_CREATES) s -= 0.5;
    if (f & DATAFLOW_F_PARENT) s += 0.5;
    s += 0.25 * (double)((f >> DATAFLOW_F_OVERLAP_SHIFT) & 3u);
    s -= 0.25 * (double)((f >> DATAFLOW_F_INPUTS_SHIFT) & 15u);
    return s;
}

/* A candidate producer of one entity. */
typedef struct candidate {
    size_t op;
    unsigned features;
    double score;
} candidate;

static int cmp_candidate(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->op < y->op ? -1 : x->op > y->op;
}

static int add_edge(dataflow *df, size_t *cap, dataflow_edge e)
{
    if (df->n_edges == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        dataflow_edge *ne = realloc(df->edges, nc * sizeof *ne);
        if (!ne) return APIDEX_ENOMEM;
        df->edges = ne;
        *cap = nc;
    }
    df->edges[df->n_edges++] = e;
    return 0;
}

/* The features of op p as a producer of ent (0 when it cannot be one). */
static unsigned producer_features(df_ctx *d, const dataflow *df, const output_set *outs,
                                  const chunk_op_facts *facts, size_t p, const char *ent)
{
    const spec_operation *prod = &d->api->ops[p];
    const output *o = NULL;
    for (size_t k = 0; k < outs[p].n && !o; k++)
        if (!strcmp(outs[p].o[k].entity, ent)) o = &outs[p].o[k];
    if (!o || facts[p].destructive || facts[p].action == TEXT_ACTION_UPDATE) return 0;
    for (size_t k = 0; k < df->n_inputs[p]; k++) /* it needs the same entity: an echo */
        if (!strcmp(df->inputs[p][k].entity, ent)) return 0;
    unsigned f = o->kind;
    word_set pw;
    path_words(d, prod->path, &pw);
    bool names = set_has(&pw, ent);
    if (names) f |= DATAFLOW_F_PATH_NAMES;
    if (facts[p].action == TEXT_ACTION_CREATE) {
        /* a creation serves only for the thing it creates: what its own path names
           ("POST /refunds" creates refunds; "POST /charges/{id}/capture" creates none of
           the things its response holds) */
        if ((o->kind != DATAFLOW_KIND_RETURNS && o->kind != DATAFLOW_KIND_LISTS) || !names)
            return 0;
        f |= DATAFLOW_F_CREATES;
    }
    if (facts[p].text_query) f |= DATAFLOW_F_TEXT_QUERY;
    if (df->n_inputs[p] == 0 && o->kind == DATAFLOW_KIND_RETURNS && facts[p].mine)
        f |= DATAFLOW_F_CALLER;
    if (prod->deprecated) f |= DATAFLOW_F_DEPRECATED;
    size_t own = df->n_inputs[p] > 15 ? 15 : df->n_inputs[p];
    f |= (unsigned)own << DATAFLOW_F_INPUTS_SHIFT;
    return f;
}

/* Is a path segment a version or a generic prefix ("v2", "2010-04-01", "api")? */
static bool generic_segment(const char *s, size_t n)
{
    bool digits = true;
    for (size_t i = 0; i < n && digits; i++) digits = (s[i] >= '0' && s[i] <= '9') || s[i] == '-';
    if (digits) return true;
    if (n >= 2 && (s[0] == 'v' || s[0] == 'V') && s[1] >= '0' && s[1] <= '9') return true;
    return n == 3 && !strncasecmp(s, "api", 3);
}

/* Literal path segments two paths share (at most 3). */
static unsigned path_overlap(const char *a, const char *b)
{
    unsigned n = 0;
    for (const char *p = a; *p && n < 3;) {
        while (*p == '/') p++;
        const char *e = p;
        while (*e && *e != '/') e++;
        size_t len = (size_t)(e - p);
        if (len && *p != '{' && !generic_segment(p, len)) {
            bool found = false;
            for (const char *q = b; *q && !found;) {
                while (*q == '/') q++;
                const char *f = q;
                while (*f && *f != '/') f++;
                found = (size_t)(f - q) == len && !strncasecmp(p, q, len);
                q = f;
            }
            n += found;
        }
        p = e;
    }
    return n;
}

/* Is prod's path the consumer's path up to the placeholder of input `name`? */
static bool parent_path(const char *consumer, const char *name, const char *prod)
{
    size_t nl = strlen(name);
    for (const char *q = strchr(consumer, '{'); q; q = strchr(q + 1, '{'))
        if (!strncmp(q + 1, name, nl) && q[1 + nl] == '}') {
            size_t len = (size_t)(q - consumer);
            while (len && consumer[len - 1] == '/') len--;
            size_t pl = strlen(prod);
            while (pl && prod[pl - 1] == '/') pl--;
            return len && pl == len && !strncmp(consumer, prod, len);
        }
    return false;
}

/* An (operation, index) pair: a producer of an entity, or an input needing it. */
typedef struct op_ref {
    size_t op, k;
} op_ref;

typedef struct ref_list {
    op_ref *r;
    size_t n, cap;
} ref_list;

static int ref_push(ref_list *l, size_t op, size_t k)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 4;
        op_ref *nr = realloc(l->r, nc * sizeof *nr);
        if (!nr) return APIDEX_ENOMEM;
        l->r = nr;
        l->cap = nc;
    }
    l->r[l->n++] = (op_ref){op, k};
    return 0;
}

/* The edges of one entity: its producers ranked once, the best kept for each input. */
static int entity_edges(df_ctx *d, dataflow *df, const output_set *outs,
                        const chunk_op_facts *facts, const char *ent, const ref_list *prods,
                        const ref_list *needs, candidate *cand, candidate *view, size_t *cap)
{
    const spec_api *api = d->api;
    size_t m = 0;
    bool strong = false;
    for (size_t q = 0; q < prods->n; q++) {
        size_t p = prods->r[q].op;
        unsigned f = producer_features(d, df, outs, facts, p, ent);
        if (!f) continue;
        cand[m++] = (candidate){p, f, dataflow_score(f)};
        strong |= (f & DATAFLOW_KIND_MASK) <= DATAFLOW_KIND_SHAPE;
    }
    /* An entity that some operation returns, lists or is typed as by shape takes its
       producers from those: an id met only inside another entity's object, or as another
       object's "<entity>_id", is that other entity's, and serves only when nothing better
       exists. */
    if (strong) {
        size_t kept = 0;
        for (size_t q = 0; q < m; q++)
            if ((cand[q].features & DATAFLOW_KIND_MASK) <= DATAFLOW_KIND_SHAPE)
                cand[kept++] = cand[q];
        m = kept;
    }
    qsort(cand, m, sizeof *cand, cmp_candidate);
    int rc = 0;
    for (size_t x = 0; x < needs->n && !rc; x++) {
        size_t c = needs->r[x].op, k = needs->r[x].k;
        const spec_operation *cons = &api->ops[c];
        long hinted = hinted_op(api, cons);
        unsigned takes = df->inputs[c][k].accepts_name ? DATAFLOW_F_TAKES_NAME : 0;
        /* this consumer's view: where each producer sits relative to its path */
        for (size_t q = 0; q < m; q++) {
            const char *pp = api->ops[cand[q].op].path;
            unsigned f = cand[q].features & ~(DATAFLOW_F_PARENT | (3u << DATAFLOW_F_OVERLAP_SHIFT));
            f |= path_overlap(pp, cons->path) << DATAFLOW_F_OVERLAP_SHIFT;
            if (!strcmp(df->inputs[c][k].in, "path") &&
                parent_path(cons->path, df->inputs[c][k].name, pp))
                f |= DATAFLOW_F_PARENT;
            if ((long)cand[q].op == hinted) f |= DATAFLOW_F_HINT;
            view[q] = (candidate){cand[q].op, f | takes, dataflow_score(f)};
        }
        qsort(view, m, sizeof *view, cmp_candidate);
        size_t kept = 0;
        bool hint_kept = false;
        for (size_t q = 0; q < m && kept < DATAFLOW_MAX_PRODUCERS && !rc; q++) {
            if (view[q].op == c) continue;
            bool hint = (view[q].features & DATAFLOW_F_HINT) != 0;
            hint_kept |= hint;
            rc = add_edge(df, cap,
                          (dataflow_edge){c, k, view[q].op, view[q].score, hint, view[q].features});
            kept++;
        }
        /* the operation the description names is kept whatever its rank */
        if (!rc && hinted >= 0 && !hint_kept && (size_t)hinted != c && !facts[hinted].destructive) {
            unsigned f = producer_features(d, df, outs, facts, (size_t)hinted, ent);
            f = (f ? f : DATAFLOW_KIND_REFERS) | DATAFLOW_F_HINT | takes;
            rc = add_edge(df, cap,
                          (dataflow_edge){c, k, (size_t)hinted, dataflow_score(f), true, f});
        }
    }
    return rc;
}

/* Edges: for each input, the best producers of its entity (and the one its consumer's
   description names). Producers and inputs are grouped by entity first, so the work is
   linear in the operations' inputs and outputs. */
static int build_edges(df_ctx *d, dataflow *df, const output_set *outs, const chunk_op_facts *facts)
{
    size_t n = d->api->n_ops, cap = 0;
    str_set ents = {.arena = d->arena};
    ref_list *prods = NULL, *needs = NULL;
    size_t n_lists = 0;
    int rc = 0;
    for (size_t c = 0; c < n && !rc; c++)
        for (size_t k = 0; k < df->n_inputs[c] && !rc; k++) {
            long e = sset_add(&ents, df->inputs[c][k].entity);
            if (e < 0) {
                rc = APIDEX_ENOMEM;
                break;
            }
            if ((size_t)e >= n_lists) {
                size_t nl = ents.cap_items;
                ref_list *np = realloc(prods, nl * sizeof *np);
                if (np) prods = np;
                ref_list *nn = np ? realloc(needs, nl * sizeof *nn) : NULL;
                if (nn) needs = nn;
                if (!np || !nn) {
                    rc = APIDEX_ENOMEM;
                    break;
                }
                memset(prods + n_lists, 0, (nl - n_lists) * sizeof *prods);
                memset(needs + n_lists, 0, (nl - n_lists) * sizeof *needs);
                n_lists = nl;
            }
            rc = ref_push(&needs[e], c, k);
        }
    for (size_t p = 0; p < n && !rc; p++)
        for (size_t k = 0; k < outs[p].n && !rc; k++) {
            long e = sset_find(&ents, outs[p].o[k].entity);
            if (e >= 0) rc = ref_push(&prods[e], p, k);
        }
    candidate *cand = calloc(n ? n : 1, sizeof *cand);
    candidate *view = calloc(n ? n : 1, sizeof *view);
    if (!cand || !view) rc = APIDEX_ENOMEM;
    for (size_t e = 0; e < ents.n && !rc; e++)
        rc =
            entity_edges(d, df, outs, facts, ents.items[e], &prods[e], &needs[e], cand, view, &cap);
    free(view);
    for (size_t e = 0; e < n_lists; e++) {
        free(prods[e].r);
        free(needs[e].r);
    }
    free(prods);
    free(needs);
    free(cand);
    sset_free(&ents);
    return rc;
}

int dataflow_build(const spec_api *api, dataflow **out, apidex_error *err)
{
    *out = NULL;
    dataflow *df = calloc(1, sizeof *df);
    core_arena *a = core_arena_new(0);
    text_analyzer *ta = text_analyzer_new();
    if (!df || !a || !ta) {
        free(df);
        core_arena_free(a);
        text_analyzer_free(ta);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    df->arena = a;
    size_t n = api->n_ops;
    df->n_ops = n;
    df->inputs = core_arena_calloc(a, n ? n : 1, sizeof *df->inputs);
    df->n_inputs = core_arena_calloc(a, n ? n : 1, sizeof *df->n_inputs);
    df->outputs = core_arena_calloc(a, n ? n : 1, sizeof *df->outputs);
    df->n_outputs = core_arena_calloc(a, n ? n : 1, sizeof *df->n_outputs);
    output_set *outs = calloc(n ? n : 1, sizeof *outs);
    chunk_op_facts *facts = calloc(n ? n : 1, sizeof *facts);
    int rc = (!df->inputs || !df->n_inputs || !df->outputs || !df->n_outputs || !outs || !facts)
                 ? APIDEX_ENOMEM
                 : 0;
    df_ctx d = {.api = api, .arena = a, .ta = ta};
    d.vocab.arena = a;
    d.words.arena = a;
    envelope_words(&d);
    for (size_t i = 0; i < n && !rc; i++) {
        const spec_operation *op = &api->ops[i];
        df->inputs[i] =
            core_arena_calloc(a, op->n_params + 2 * DF_MAX_BODY_INPUTS + 1, sizeof(dataflow_input));
        if (!df->inputs[i] || chunk_op_read_facts(op, ta, a, &facts[i])) rc = APIDEX_ENOMEM;
    }
    if (!rc) find_inputs(&d, df);
    if (!rc) refine_query_ids(&d, df);
    if (!rc) rc = collect_shapes(&d, df);
    str_set produced = {.arena = a};
    for (size_t i = 0; i < n && !rc; i++) {
        const spec_operation *op = &api->ops[i];
        d.out = &outs[i];
        d.visits = 0;
        path_words(&d, op->path, &d.path_words);
        {
            size_t pl = strlen(op->path);
            while (pl && op->path[pl - 1] == '/') pl--;
            d.sub_resource = pl && op->path[pl - 1] != '}' && strchr(op->path, '{');
        }
        for (size_t r = 0; r < op->n_responses; r++) {
            const spec_response *resp = &op->responses[r];
            if (resp->status[0] != '2') continue;
            for (size_t m = 0; m < resp->n_media; m++) {
                ctx_words c = {.n = 0};
                walk_schema(&d, resp->media[m].schema, c, 0, false, false, true, 0);
            }
        }
        df->outputs[i] = core_arena_calloc(a, outs[i].n ? outs[i].n : 1, sizeof(char *));
        if (!df->outputs[i]) {
            rc = APIDEX_ENOMEM;
            break;
        }
        for (size_t k = 0; k < outs[i].n; k++) {
            df->outputs[i][k] = outs[i].o[k].entity;
            if (outs[i].o[k].kind <= DATAFLOW_KIND_LISTS)
                if (sset_add(&produced, outs[i].o[k].entity) < 0) rc = APIDEX_ENOMEM;
        }
        df->n_outputs[i] = outs[i].n;
    }
    if (!rc) find_entity_named_inputs(&d, df, &produced);
    if (!rc) rc = build_edges(&d, df, outs, facts);
    free(outs);
    free(facts);
    free(d.shapes);
    sset_free(&produced);
    sset_free(&d.vocab);
    sset_free(&d.words);
    text_analyzer_free(ta);
    if (rc) {
        dataflow_free(df);
        return core_error_set(err, rc, "out of memory");
    }
    *out = df;
    return 0;
}

void dataflow_free(dataflow *df)
{
    if (!df) return;
    free(df->edges);
    core_arena_free(df->arena);
    free(df);
}
