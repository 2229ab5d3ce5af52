/* Data flow, inputs: the identifiers each operation needs (path parameters, identifier
   query and body parameters) and the entity each stands for. The design is in flow.c. */
#include "flow/flow_int.h"
#include "text/lexicon.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Is the parameter's schema a free value from a fixed set or no scalar (enum, boolean,
   object, array of objects)? Then it is no identifier. */
static bool not_an_identifier(const flow_ctx *d, const spec_param *p)
{
    spec_schema_view v;
    if (spec_schema_view_open(d->api, p->schema, NULL, &v) != 0 || !v.loc.node) return false;
    if (v.kw[SPEC_KW_ENUM]) return true;
    const char *type = v.type;
    if (type && (!strcmp(type, "boolean") || !strcmp(type, "object") || !strcmp(type, "number")))
        return true;
    const char *format = v.format;
    return format && (!strcmp(format, "date") || !strcmp(format, "date-time"));
}

/* The literal path segment that ends just before the placeholder {name}: "/users/{id}" -> users. */
static const char *segment_before(flow_ctx *d, const char *path, const char *name)
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
    return flow_last_word(d, start, (size_t)(end - start));
}

/* The last literal path segment ("/me/books" -> book), or NULL. */
static const char *last_segment(flow_ctx *d, const char *path)
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
    return seg ? flow_last_word(d, seg, (size_t)(seg_end - seg)) : NULL;
}

/* The entity of a path parameter (see the essay), or NULL. */
static const char *path_entity_of(flow_ctx *d, const spec_operation *op, const spec_param *p)
{
    const char *seg = segment_before(d, op->path, p->name);
    if (flow_bare_id(p->name)) return seg;
    size_t k = flow_id_suffix(p->name);
    word_set words = {.n = 0};
    char *stripped = core_arena_strndup(d->arena, p->name, strlen(p->name) - k);
    if (!stripped) return NULL;
    flow_add_words(d, &words, stripped);
    if (!words.n) return seg;
    if (seg && flow_set_has(&words, seg)) return seg;
    if (k) return words.w[words.n - 1];
    return seg ? seg : words.w[words.n - 1];
}

/* The entity of an identifier-named query or body input ("invoice_id", bare "ids"). */
static const char *named_entity_of(flow_ctx *d, const spec_operation *op, const char *name)
{
    if (flow_bare_id(name)) return last_segment(d, op->path);
    size_t k = flow_id_suffix(name);
    /* outside a path, "public_key", "api_key", "secret_key" are values, not references */
    if (!k || (k >= 3 && !strcasecmp(name + strlen(name) - 3, "key"))) return NULL;
    return flow_last_word(d, name, strlen(name) - k);
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
bool flow_accepts_name(const char *desc)
{
    static const char *const words[] = {TEXT_LEX_NAME_WORDS, NULL};
    return says_identifier(desc) && mentions_word(desc, words);
}

static void add_input(flow_graph *df, size_t op, const char *name, const char *in, const char *ent,
                      const char *desc)
{
    for (size_t k = 0; k < df->n_inputs[op]; k++)
        if (!strcmp(df->inputs[op][k].name, name)) return;
    flow_input *x = &df->inputs[op][df->n_inputs[op]++];
    x->name = name;
    x->in = in;
    x->entity = ent;
    x->accepts_name = flow_accepts_name(desc);
}

static const char *schema_description(const flow_ctx *d, spec_loc schema)
{
    spec_schema_view v;
    if (spec_schema_view_open(d->api, schema, NULL, &v) != 0) return NULL;
    return v.description;
}

/* The top-level fields of op's request body: the required ones first, then (when
   optional_too) the others, as (name, schema) pairs. */
static size_t body_fields(const flow_ctx *d, const spec_operation *op, bool optional_too,
                          const char **names, spec_loc *schemas, size_t cap)
{
    if (!op->body || !op->body->n_media) return 0;
    spec_schema_view v;
    if (spec_schema_view_open(d->api, op->body->media[0].schema, NULL, &v) != 0 || !v.loc.node)
        return 0;
    const jt_node *required = v.kw[SPEC_KW_REQUIRED];
    const jt_node *props = v.kw[SPEC_KW_PROPERTIES];
    size_t n = 0;
    for (size_t r = 0; required && r < required->len && n < cap; r++) {
        const char *name = jt_str(jt_at(required, r));
        const jt_node *prop = spec_schema_view_property(&v, name).node;
        if (!prop) continue;
        names[n] = name;
        schemas[n++] = spec_schema_view_at(&v, prop);
    }
    for (uint32_t i = 0; optional_too && jt_is(props, JT_OBJECT) && i < props->len && n < cap;
         i++) {
        const char *name = props->u.members[i].key;
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++) dup = !strcmp(names[k], name);
        if (dup) continue;
        names[n] = name;
        schemas[n++] = spec_schema_view_at(&v, props->u.members[i].value);
    }
    return n;
}

/* Is name a required field of op's request body? */
static bool body_required(const flow_ctx *d, const spec_operation *op, const char *name)
{
    const char *names[FLOW_MAX_BODY_INPUTS];
    spec_loc schemas[FLOW_MAX_BODY_INPUTS];
    size_t n = body_fields(d, op, false, names, schemas, FLOW_MAX_BODY_INPUTS);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return true;
    return false;
}

/* Identifier inputs of every operation; their entities make the API's vocabulary. */
void flow_find_inputs(flow_ctx *d, flow_graph *df)
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
            flow_sset_add(&d->vocab, ent);
        }
        const char *names[FLOW_MAX_BODY_INPUTS];
        spec_loc schemas[FLOW_MAX_BODY_INPUTS];
        size_t nb = body_fields(d, op, false, names, schemas, FLOW_MAX_BODY_INPUTS);
        for (size_t b = 0; b < nb; b++) {
            if (flow_bare_id(names[b])) continue; /* a new object's own id, not a reference */
            const char *ent = named_entity_of(d, op, names[b]);
            if (!ent) continue;
            add_input(df, i, names[b], "body", ent, schema_description(d, schemas[b]));
            flow_sset_add(&d->vocab, ent);
        }
    }
}

/* A required query or body parameter named as an entity the API returns objects of
   ("channel", "customer") is an input too. */
void flow_find_entity_named_inputs(flow_ctx *d, flow_graph *df, const str_set *produced)
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
            flow_add_words(d, &w, pp->name);
            if (w.n == 1 && flow_sset_has(produced, w.w[0]))
                add_input(df, i, pp->name, "query", w.w[0], pp->description);
        }
        const char *names[FLOW_MAX_BODY_INPUTS];
        spec_loc schemas[FLOW_MAX_BODY_INPUTS];
        size_t nb = body_fields(d, op, true, names, schemas, FLOW_MAX_BODY_INPUTS);
        for (size_t b = 0; b < nb && df->n_inputs[i] < api->ops[i].n_params + FLOW_MAX_BODY_INPUTS;
             b++) {
            spec_schema_view v;
            if (spec_schema_view_open(api, schemas[b], NULL, &v) != 0 || !v.loc.node ||
                v.kw[SPEC_KW_ENUM])
                continue;
            if (!body_required(d, op, names[b]) && !says_identifier(v.description)) continue;
            const char *type = v.type;
            if (type && strcmp(type, "string") && strcmp(type, "integer")) continue;
            word_set w = {.n = 0};
            flow_add_words(d, &w, names[b]);
            if (w.n == 1 && flow_sset_has(produced, w.w[0]))
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
void flow_refine_query_ids(flow_ctx *d, flow_graph *df)
{
    const spec_api *api = d->api;
    for (size_t i = 0; i < df->n_ops; i++) {
        const spec_operation *op = &api->ops[i];
        for (size_t k = 0; k < df->n_inputs[i]; k++) {
            flow_input *in = &df->inputs[i][k];
            if (strcmp(in->in, "query") || !flow_bare_id(in->name)) continue;
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
                flow_add_words(d, &words, texts[t]);
                for (size_t w = 0; w < words.n && !found; w++)
                    if (flow_sset_has(&d->vocab, words.w[w]) &&
                        !flow_set_has(&d->envelope, words.w[w]) && strcmp(words.w[w], in->entity))
                        found = words.w[w];
            }
            if (found) in->entity = found;
        }
    }
}
