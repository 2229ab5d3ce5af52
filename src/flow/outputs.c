/* Data flow, outputs: the entities each operation's 2xx response returns, lists or
   refers to, typed by naming context or shape. The design is in flow.c. */
#include "flow/flow_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void keys_add(key_set *ks, const char *k)
{
    for (size_t i = 0; i < ks->n; i++)
        if (!strcmp(ks->k[i], k)) return;
    if (ks->n < FLOW_MAX_KEYS) ks->k[ks->n++] = k;
}

static bool keys_has(const key_set *ks, const char *k)
{
    for (size_t i = 0; i < ks->n; i++)
        if (!strcmp(ks->k[i], k)) return true;
    return false;
}

/* The property names of the object at loc, with those of its allOf parts. */
static void object_keys(const flow_ctx *d, spec_loc loc, key_set *ks, unsigned depth)
{
    if (depth > 3 || !loc.node) return;
    spec_schema_view v;
    if (spec_schema_view_open(d->api, loc, NULL, &v) != 0 || !jt_is(v.loc.node, JT_OBJECT)) return;
    const jt_node *all = v.kw[SPEC_KW_ALL_OF];
    for (size_t i = 0; all && i < all->len; i++)
        object_keys(d, spec_schema_view_at(&v, jt_at(all, i)), ks, depth + 1);
    const jt_node *props = v.kw[SPEC_KW_PROPERTIES];
    if (!jt_is(props, JT_OBJECT)) return;
    for (uint32_t i = 0; i < props->len; i++) keys_add(ks, props->u.members[i].key);
}

/*
 * Which entity an object with an id is, judged by its shape: the entity whose canonical
 * object shares most of this object's property names. At least three shared names, and at
 * least half of the object's own; the best entity wins only if it is clearly ahead (a
 * book summary shares many names with a magazine too). NULL when no entity fits.
 */
static const char *shape_entity(const flow_ctx *d, const key_set *ks)
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
    if (s->n < FLOW_MAX_OUTPUTS) s->o[s->n++] = (output){entity, kind};
}

static void ctx_push_words(flow_ctx *d, ctx_words *c, const char *s)
{
    word_set w = {.n = 0};
    flow_add_words(d, &w, s);
    for (size_t i = 0; i < w.n && c->n < FLOW_MAX_CTX; i++) {
        c->last[c->n] = i + 1 == w.n;
        c->w[c->n++] = w.w[i];
    }
    if (w.n && c->n == FLOW_MAX_CTX) c->last[c->n - 1] = true;
}

/* The head of the item that ends at word `end` (inclusive), scanning back no further than
   `from`: its last word that is no container word. English compounds put the head last:
   a "VideoChannel" is a channel, a "ShortAlbumRecord" an album. NULL when none. Sets
   *start to the item's first word. */
static const char *item_head(const flow_ctx *d, const ctx_words *c, size_t end, size_t from,
                             size_t *start)
{
    size_t s = end;
    while (s > from && !c->last[s - 1]) s--;
    *start = s;
    /* a container word heads a compound the API has as an entity ("DomainRecord" where
       /records/{id} exists); alone ("items", "records") it is a wrapper */
    for (size_t i = end + 1; i-- > s;)
        if (!flow_set_has(&d->envelope, c->w[i]) || (end > s && flow_sset_has(&d->vocab, c->w[i])))
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
static void type_object(flow_ctx *d, spec_loc loc, const ctx_words *c, size_t from, bool nested,
                        unsigned kind)
{
    /* the heads of the local context's items, innermost first */
    const char *heads[FLOW_MAX_CTX];
    size_t n_heads = 0;
    for (size_t end = c->n; end > from;) {
        size_t start;
        const char *h = item_head(d, c, end - 1, from, &start);
        if (h) heads[n_heads++] = h;
        end = start;
    }
    bool any = false;
    for (size_t i = 0; i < n_heads; i++)
        if (flow_sset_has(&d->vocab, heads[i])) {
            output_add(d->out, heads[i], kind);
            any = true;
        }
    if (any) return;
    if (d->n_shapes) {
        key_set ks = {.n = 0};
        object_keys(d, loc, &ks, 0);
        const char *ent = shape_entity(d, &ks);
        if (ent) {
            output_add(d->out, ent, nested ? FLOW_KIND_NESTED : FLOW_KIND_SHAPE);
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
        if (flow_sset_has(&d->vocab, d->path_words.w[i])) {
            output_add(d->out, d->path_words.w[i], kind);
            return;
        }
    for (size_t i = d->path_words.n; i-- > 0;)
        if (!flow_set_has(&d->envelope, d->path_words.w[i])) {
            output_add(d->out, d->path_words.w[i], kind);
            return;
        }
}

/* Walks a response schema; every object with an id adds what it stands for. from: where
   the context of the nearest enclosing entity ends; nested: there is one. */
void flow_walk_schema(flow_ctx *d, spec_loc loc, ctx_words c, size_t from, bool in_array,
                      bool nested, bool top, unsigned depth)
{
    if (depth > FLOW_MAX_DEPTH || ++d->visits > FLOW_MAX_VISITS || !loc.node) return;
    spec_schema_view v;
    int bad = spec_schema_view_open(d->api, loc, NULL, &v);
    /* a named schema reached by $ref names what it holds */
    if (v.ref && v.index >= 0) ctx_push_words(d, &c, d->api->schemas[v.index].name);
    if (bad || !jt_is(v.loc.node, JT_OBJECT)) return;
    loc = v.loc;
    static const spec_schema_kw alts[] = {SPEC_KW_ALL_OF, SPEC_KW_ONE_OF, SPEC_KW_ANY_OF};
    for (size_t k = 0; k < sizeof alts / sizeof *alts; k++) {
        const jt_node *arr = v.kw[alts[k]];
        for (size_t i = 0; arr && i < arr->len; i++)
            flow_walk_schema(d, (spec_loc){jt_at(arr, i), loc.doc}, c, from, in_array, nested, top,
                             depth + 1);
    }
    const jt_node *items = v.kw[SPEC_KW_ITEMS];
    if (jt_is(items, JT_ARRAY)) /* the tuple form: one schema per position */
        for (size_t i = 0; i < items->len; i++)
            flow_walk_schema(d, (spec_loc){jt_at(items, i), loc.doc}, c, from, true, nested, false,
                             depth + 1);
    else if (items)
        flow_walk_schema(d, (spec_loc){items, loc.doc}, c, from, true, nested, false, depth + 1);
    const jt_node *props = v.kw[SPEC_KW_PROPERTIES];
    if (!jt_is(props, JT_OBJECT)) return;
    bool has_id = false;
    for (uint32_t i = 0; i < props->len && !has_id; i++)
        has_id = flow_own_id_key(props->u.members[i].key);
    if (has_id) {
        unsigned kind = nested ? FLOW_KIND_NESTED : in_array ? FLOW_KIND_LISTS : FLOW_KIND_RETURNS;
        type_object(d, loc, &c, from, nested, kind);
    }
    for (uint32_t i = 0; i < props->len; i++) {
        const jt_member *m = &props->u.members[i];
        if (flow_own_id_key(m->key)) continue;
        size_t k = flow_id_suffix(m->key);
        if (k && k < m->key_len) { /* "owner_id": a reference to another entity */
            const char *e = flow_last_word(d, m->key, m->key_len - k);
            if (e && flow_sset_has(&d->vocab, e)) output_add(d->out, e, FLOW_KIND_REFERS);
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
            flow_walk_schema(d, (spec_loc){m->value, loc.doc}, sub, 0, in_array, true, false,
                             depth + 1);
        } else {
            ctx_push_words(d, &sub, m->key);
            flow_walk_schema(d, (spec_loc){m->value, loc.doc}, sub, from, in_array, nested, false,
                             depth + 1);
        }
    }
}
/*
 * The canonical shape of each entity: for every GET whose path ends in the placeholder
 * of an identifier input ("/people/{person_id}", "/books/{id}"), the property names
 * of the object its first 2xx response returns.
 */
int flow_collect_shapes(flow_ctx *d, const flow_graph *df)
{
    const spec_api *api = d->api;
    for (size_t i = 0; i < api->n_ops; i++) {
        const spec_operation *op = &api->ops[i];
        size_t pl = strlen(op->path);
        if (strcmp(op->method, "GET") || !pl || op->path[pl - 1] != '}') continue;
        const char *open = strrchr(op->path, '{');
        const char *entity = NULL;
        for (size_t k = 0; k < df->n_inputs[i] && !entity; k++) {
            const flow_input *in = &df->inputs[i][k];
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
            if (d->n_shapes == FLOW_MAX_SHAPES) continue;
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
