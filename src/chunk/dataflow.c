/*
 * Data flow analysis: which operation produces the identifiers another needs.
 *
 * An input is an identifier when its name says so: "id", "ids", "key", or a
 * name ending in id/ids/key ("movie_id", "playlistId"). Its entity is the word
 * before the suffix ("movie"), or for a bare "id" the path segment it follows
 * ("/albums/{id}" -> album); for an id list in the query, the last literal path
 * segment ("/me/tracks?ids=" -> track).
 *
 * An operation produces entity E when one of its 2xx response schemas holds an
 * object with an "id" property whose context names E: the schema names met on
 * the way (SimplifiedAlbumObject), the property keys leading to it (albums ->
 * items), or, for a top-level object or a bare result list, the operation's own
 * literal path words (/search/movie, /me). A property "<e>_id" also produces e.
 * An object with an "id" is also typed by its shape: the entity whose canonical
 * object (what "GET /people/{person_id}" returns) holds most of its property
 * names (shape_entity), so cast members produce person ids.
 * Words are compared after identifier splitting and Snowball stemming, so
 * "movies", "Movie" and "movie_id" meet at "movi". Nothing here knows any API.
 */
#include "chunk/dataflow.h"

#include "text/text.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    DF_MAX_DEPTH = 5,
    DF_MAX_VISITS = 4000,
    DF_MAX_WORDS = 64,
    DF_MAX_BODY_INPUTS = 8,
    DF_MAX_KEYS = 128,
    DF_MAX_SHAPES = 256
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

typedef struct df_ctx {
    const spec_api *api;
    core_arena *arena;
    text_words *tw;
    word_set *out;       /* entity words produced by the operation being analysed */
    word_set *shape_out; /* entity words it produces by shape alone (see shape_entity) */
    word_set *top_out;   /* entity words of the response object itself (depth 0 with an id) */
    word_set path_words; /* literal path words of that operation */
    size_t visits;
    shape *shapes;
    size_t n_shapes;
} df_ctx;

static void set_add(word_set *s, core_arena *a, const char *w, size_t n)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->w[i]) == n && memcmp(s->w[i], w, n) == 0) return;
    if (s->n < DF_MAX_WORDS) {
        const char *c = core_arena_strndup(a, w, n);
        if (c) s->w[s->n++] = c;
    }
}

static bool set_has(const word_set *s, const char *w)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->w[i], w)) return true;
    return false;
}

typedef struct collect_ctx {
    word_set *set;
    core_arena *arena;
} collect_ctx;

static int collect_word(const char *w, size_t n, void *ctx)
{
    collect_ctx *c = ctx;
    set_add(c->set, c->arena, w, n);
    return 0;
}

/* Adds the stemmed words of s to set. */
static void add_words(df_ctx *d, word_set *set, const char *s)
{
    if (!s) return;
    collect_ctx c = {set, d->arena};
    text_words_split(d->tw, s, strlen(s), TEXT_WORDS_STEM, collect_word, &c);
}

/* Words that name containers, not entities. */
static bool generic_word(const char *w)
{
    static const char *const generic[] = {
        "item", "result", "data",   "object", "page",   "list", "respons", "simplifi",
        "base", "full",   "public", "privat", "paging", "link", "href",    NULL};
    for (const char *const *g = generic; *g; g++)
        if (!strcmp(*g, w)) return true;
    return false;
}

/* Length of an identifier suffix (id, ids, key, Id, Ids, _id, -id), 0 if none. */
static size_t id_suffix(const char *name)
{
    size_t n = strlen(name);
    static const char *const sfx[] = {"_ids", "-ids", "Ids", "_id", "-id",
                                      "Id",   "_key", "Key", NULL};
    for (const char *const *s = sfx; *s; s++) {
        size_t k = strlen(*s);
        if (n > k && !strcmp(name + n - k, *s)) return k;
    }
    return 0;
}

static bool bare_id(const char *name)
{
    return !strcasecmp(name, "id") || !strcasecmp(name, "ids") || !strcasecmp(name, "key") ||
           !strcasecmp(name, "uuid");
}

/* Last stemmed word of s[0..n), or NULL. */
static const char *last_word(df_ctx *d, const char *s, size_t n)
{
    word_set tmp = {.n = 0};
    char *copy = core_arena_strndup(d->arena, s, n);
    if (!copy) return NULL;
    add_words(d, &tmp, copy);
    return tmp.n ? tmp.w[tmp.n - 1] : NULL;
}

/* Entity of an identifier input of op, or NULL when the input is no identifier. */
static const char *input_entity(df_ctx *d, const spec_operation *op, const spec_param *p)
{
    if (bare_id(p->name)) {
        /* the literal path segment before "{id}" (path) or the last literal one (query) */
        const char *path = op->path;
        const char *seg_start = NULL, *seg_end = NULL;
        const char *placeholder = NULL;
        if (!strcmp(p->in, "path")) {
            size_t nl = strlen(p->name);
            for (const char *q = strchr(path, '{'); q; q = strchr(q + 1, '{'))
                if (!strncmp(q + 1, p->name, nl) && q[1 + nl] == '}') {
                    placeholder = q;
                    break;
                }
            if (!placeholder) return NULL;
        } else {
            placeholder = path + strlen(path);
        }
        for (const char *q = path; q < placeholder; q++) {
            if (*q != '/') continue;
            const char *e = q + 1;
            while (e < placeholder && *e != '/') e++;
            if (e > q + 1 && q[1] != '{') {
                seg_start = q + 1;
                seg_end = e;
            }
        }
        return seg_start ? last_word(d, seg_start, (size_t)(seg_end - seg_start)) : NULL;
    }
    size_t k = id_suffix(p->name);
    if (!k) return NULL;
    return last_word(d, p->name, strlen(p->name) - k);
}

static bool param_text_query(const spec_param *p)
{
    static const char *const names[] = {"q",        "query", "search", "term", "keyword",
                                        "keywords", "text",  "name",   NULL};
    if (strcmp(p->in, "query")) return false;
    for (const char *const *n = names; *n; n++)
        if (!strcasecmp(p->name, *n)) return true;
    return false;
}

/* Required identifier fields of the request body ({"recipe_id": ...}) are inputs too. */
static void add_body_inputs(df_ctx *d, const spec_operation *op, dataflow_input *out, size_t *n)
{
    if (!op->body || !op->body->n_media) return;
    spec_loc schema;
    if (spec_deref(d->api, op->body->media[0].schema, &schema) != 0 || !schema.node) return;
    const jt_node *required = jt_get(schema.node, "required");
    const jt_node *props = jt_get(schema.node, "properties");
    size_t added = 0;
    for (size_t r = 0; required && r < required->len && added < DF_MAX_BODY_INPUTS; r++) {
        const char *name = jt_str(jt_at(required, r));
        if (!name || !jt_get(props, name)) continue;
        size_t k = id_suffix(name);
        if (!k) continue;
        const char *ent = last_word(d, name, strlen(name) - k);
        if (!ent) continue;
        out[*n].name = name;
        out[*n].in = "body";
        out[*n].entity = ent;
        (*n)++;
        added++;
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
 * object (what "GET /people/{person_id}" returns) shares most of this object's property
 * names. A cast member {id, name, gender, profile_path, character, ...} is a person
 * because most of its names are a person's. At least three shared names, and at least
 * half of the object's own; the best entity wins only if it is clearly ahead (a movie
 * summary shares many names with a TV show too). NULL when no entity fits.
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

/* Walks a response schema; every object with an "id" adds its context words. */
static void walk_schema(df_ctx *d, spec_loc loc, word_set *ctx, unsigned depth)
{
    if (depth > DF_MAX_DEPTH || ++d->visits > DF_MAX_VISITS || !loc.node) return;
    word_set here = *ctx;
    const char *ref = spec_ref_target(loc);
    if (ref) {
        long si = spec_schema_index(d->api, loc);
        if (si >= 0) add_words(d, &here, d->api->schemas[si].name);
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
            walk_schema(d, (spec_loc){jt_at(arr, i), loc.doc}, &here, depth + 1);
    }
    const jt_node *items = jt_get(s, "items");
    if (items) walk_schema(d, (spec_loc){items, loc.doc}, &here, depth + 1);
    const jt_node *props = jt_get(s, "properties");
    if (!jt_is(props, JT_OBJECT)) return;
    bool has_id = false;
    for (uint32_t i = 0; i < props->len; i++) {
        const jt_member *m = &props->u.members[i];
        if (!strcmp(m->key, "id")) {
            has_id = true;
            continue;
        }
        size_t k = id_suffix(m->key);
        if (k && k < m->key_len) {
            const char *e = last_word(d, m->key, m->key_len - k);
            if (e) set_add(d->out, d->arena, e, strlen(e));
        }
    }
    if (has_id && d->n_shapes && d->shape_out) {
        key_set ks = {.n = 0};
        object_keys(d, loc, &ks, 0);
        const char *ent = shape_entity(d, &ks);
        if (ent) set_add(d->shape_out, d->arena, ent, strlen(ent));
    }
    if (has_id) {
        bool specific = false;
        for (size_t i = 0; i < here.n; i++)
            if (!generic_word(here.w[i])) {
                specific = true;
                set_add(d->out, d->arena, here.w[i], strlen(here.w[i]));
                if (depth == 0 && d->top_out)
                    set_add(d->top_out, d->arena, here.w[i], strlen(here.w[i]));
            }
        if (!specific)
            for (size_t i = 0; i < d->path_words.n; i++)
                set_add(d->out, d->arena, d->path_words.w[i], strlen(d->path_words.w[i]));
    }
    for (uint32_t i = 0; i < props->len; i++) {
        const jt_member *m = &props->u.members[i];
        if (!strcmp(m->key, "id")) continue;
        word_set sub = here;
        add_words(d, &sub, m->key);
        walk_schema(d, (spec_loc){m->value, loc.doc}, &sub, depth + 1);
    }
}

bool dataflow_path_is_mine(const char *path)
{
    static const char *const words[] = {"me", "@me", "my", "self", "current", "mine", NULL};
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

/* Is w the entity of some path parameter of the API (a thing it has ids for)? */
static bool path_entity(const dataflow *df, const char *w)
{
    for (size_t i = 0; i < df->n_ops; i++)
        for (size_t k = 0; k < df->n_inputs[i]; k++)
            if (!strcmp(df->inputs[i][k].in, "path") && !strcmp(df->inputs[i][k].entity, w))
                return true;
    return false;
}

/*
 * A bare "ids" query parameter takes its entity from the last literal path segment, which
 * may name no entity at all ("PUT /me/following?ids=": "following" is a relation). Then
 * the first word of the parameter's description, else the operation's summary, else its
 * description, that is the entity of some path parameter of the API wins ("Follow Artists
 * or Users": artist).
 */
static void refine_query_ids(df_ctx *d, dataflow *df)
{
    const spec_api *api = d->api;
    for (size_t i = 0; i < df->n_ops; i++) {
        const spec_operation *op = &api->ops[i];
        for (size_t k = 0; k < df->n_inputs[i]; k++) {
            dataflow_input *in = &df->inputs[i][k];
            if (strcmp(in->in, "query") || !bare_id(in->name) || path_entity(df, in->entity))
                continue;
            const char *param_desc = NULL;
            for (size_t p = 0; p < op->n_params; p++)
                if (!strcmp(op->params[p].name, in->name)) param_desc = op->params[p].description;
            const char *texts[] = {param_desc, op->summary, op->description};
            const char *found = NULL;
            for (size_t t = 0; t < 3 && !found; t++) {
                word_set words = {.n = 0};
                add_words(d, &words, texts[t]);
                for (size_t w = 0; w < words.n && !found; w++)
                    if (!generic_word(words.w[w]) && path_entity(df, words.w[w]))
                        found = words.w[w];
            }
            if (found) in->entity = found;
        }
    }
}

/*
 * The canonical shape of each entity: for every GET whose path ends in the placeholder
 * of an identifier input ("/people/{person_id}", "/albums/{id}"), the property names
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

int dataflow_build(const spec_api *api, dataflow **out, apidex_error *err)
{
    *out = NULL;
    dataflow *df = calloc(1, sizeof *df);
    core_arena *a = core_arena_new(0);
    text_words *tw = text_words_new();
    if (!df || !a || !tw) {
        free(df);
        core_arena_free(a);
        text_words_free(tw);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    df->arena = a;
    size_t n = api->n_ops;
    df->n_ops = n;
    df->inputs = core_arena_calloc(a, n ? n : 1, sizeof *df->inputs);
    df->n_inputs = core_arena_calloc(a, n ? n : 1, sizeof *df->n_inputs);
    df->outputs = core_arena_calloc(a, n ? n : 1, sizeof *df->outputs);
    df->n_outputs = core_arena_calloc(a, n ? n : 1, sizeof *df->n_outputs);
    df->text_query = core_arena_calloc(a, n ? n : 1, sizeof *df->text_query);
    word_set *outs = calloc(n ? n : 1, sizeof *outs);
    word_set *shape_outs = calloc(n ? n : 1, sizeof *shape_outs);
    word_set *top_outs = calloc(n ? n : 1, sizeof *top_outs);
    int rc = (!df->inputs || !df->n_inputs || !df->outputs || !df->n_outputs || !df->text_query ||
              !outs || !shape_outs || !top_outs)
                 ? APIDEX_ENOMEM
                 : 0;
    df_ctx d = {.api = api, .arena = a, .tw = tw};
    for (size_t i = 0; i < n && !rc; i++) {
        const spec_operation *op = &api->ops[i];
        df->inputs[i] =
            core_arena_calloc(a, op->n_params + DF_MAX_BODY_INPUTS + 1, sizeof(dataflow_input));
        if (!df->inputs[i]) {
            rc = APIDEX_ENOMEM;
            break;
        }
        for (size_t p = 0; p < op->n_params; p++) {
            const spec_param *pp = &op->params[p];
            if (param_text_query(pp)) df->text_query[i] = true;
            bool needed = !strcmp(pp->in, "path") || (!strcmp(pp->in, "query") && pp->required);
            if (!needed) continue;
            const char *ent = input_entity(&d, op, pp);
            if (!ent) continue;
            dataflow_input *in = &df->inputs[i][df->n_inputs[i]++];
            in->name = pp->name;
            in->in = pp->in;
            in->entity = ent;
        }
        add_body_inputs(&d, op, df->inputs[i], &df->n_inputs[i]);
    }
    if (!rc) refine_query_ids(&d, df);
    if (!rc) rc = collect_shapes(&d, df);
    for (size_t i = 0; i < n && !rc; i++) {
        const spec_operation *op = &api->ops[i];
        d.out = &outs[i];
        d.shape_out = &shape_outs[i];
        d.top_out = &top_outs[i];
        d.visits = 0;
        path_words(&d, op->path, &d.path_words);
        for (size_t r = 0; r < op->n_responses; r++) {
            const spec_response *resp = &op->responses[r];
            if (resp->status[0] != '2') continue;
            for (size_t m = 0; m < resp->n_media; m++) {
                word_set ctx = {.n = 0};
                walk_schema(&d, resp->media[m].schema, &ctx, 0);
            }
        }
        df->outputs[i] = core_arena_calloc(a, outs[i].n ? outs[i].n : 1, sizeof(char *));
        if (!df->outputs[i])
            rc = APIDEX_ENOMEM;
        else {
            memcpy(df->outputs[i], outs[i].w, outs[i].n * sizeof(char *));
            df->n_outputs[i] = outs[i].n;
        }
    }
    size_t cap = 0;
    for (size_t c = 0; c < n && !rc; c++) {
        const spec_operation *cons = &api->ops[c];
        /* explicit hints: "call GET /me first" in the consumer's description */
        long hinted = -1;
        const char *desc = cons->description ? cons->description : "";
        static const char *const methods[] = {"GET ", "POST ", "PUT ", "DELETE ", "PATCH ", NULL};
        for (const char *q = desc; *q && hinted < 0; q++)
            for (const char *const *m = methods; *m && hinted < 0; m++)
                if (!strncmp(q, *m, strlen(*m))) hinted = find_named_op(api, q);
        for (size_t in = 0; in < df->n_inputs[c] && !rc; in++) {
            const char *ent = df->inputs[c][in].entity;
            for (size_t p = 0; p < n && !rc; p++) {
                if (p == c) continue;
                bool named = set_has(&outs[p], ent);
                if (!named && !set_has(&shape_outs[p], ent) && (long)p != hinted) continue;
                bool self_needs = false;
                for (size_t k = 0; k < df->n_inputs[p]; k++)
                    if (!strcmp(df->inputs[p][k].entity, ent)) self_needs = true;
                if (self_needs && (long)p != hinted) continue;
                const spec_operation *prod = &api->ops[p];
                word_set pw;
                path_words(&d, prod->path, &pw);
                double score = 1.0;
                if (set_has(&pw, ent)) score += 0.5;
                if (df->text_query[p]) score += 0.3;
                score -= 0.25 * (double)df->n_inputs[p];
                if (strcmp(prod->method, "GET")) score -= 0.5;
                if (prod->deprecated) score -= 0.5;
                if (!named) score -= 0.25; /* typed by shape only */
                /* the caller itself ("GET /me" returning the user): what "my" and a
                   user-scoped call without a named user mean */
                if (df->n_inputs[p] == 0 && set_has(&top_outs[p], ent) &&
                    dataflow_path_is_mine(prod->path))
                    score += 0.5;
                bool hint = (long)p == hinted;
                if (hint) score += 2.0;
                rc = add_edge(df, &cap, (dataflow_edge){c, in, p, score, hint});
            }
        }
    }
    free(outs);
    free(shape_outs);
    free(top_outs);
    free(d.shapes);
    text_words_free(tw);
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
