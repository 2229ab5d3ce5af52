/*
 * build_index: a loaded registry into an index. Per API: reuse the old rows
 * when its content hash and id did not change; otherwise render operations and
 * schemas, run the data-flow analysis (producer edges) and chunk it.
 */
#include "build/build_int.h"

#include "flow/flow.h"
#include "prep/prep.h"
#include "text/text.h"
#include "view/view.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- options */

int build_strategy_parse(const char *spec, struct chunk_options *out, core_buf *canon,
                         apidex_error *err)
{
    /* NAME[:SIZE[:OVERLAP]], e.g. "endpoint:8191:50" for the paper's token windows. */
    memset(out, 0, sizeof *out);
    const char *s = spec && *spec ? spec : "hybrid";
    char name[64];
    size_t n = strcspn(s, ":");
    if (n == 0 || n >= sizeof name)
        return core_error_set(err, APIDEX_EINVAL, "bad strategy '%s'", s);
    memcpy(name, s, n);
    name[n] = '\0';
    int rc = chunk_strategy_parse(name, &out->strategy, err);
    if (rc) return rc;
    const char *p = s + n;
    for (int part = 0; *p == ':' && part < 2; part++) {
        char *end = NULL;
        long v = strtol(p + 1, &end, 10);
        if (end == p + 1 || v < 0 || v > 1000000 || (part == 0 && v == 0))
            return core_error_set(err, APIDEX_EINVAL,
                                  "bad strategy '%s': expected NAME[:SIZE[:OVERLAP]]", s);
        if (part == 0)
            out->size = (size_t)v;
        else
            out->overlap = (size_t)v;
        p = end;
    }
    if (*p)
        return core_error_set(err, APIDEX_EINVAL,
                              "bad strategy '%s': expected NAME[:SIZE[:OVERLAP]]", s);
    if (out->size && out->overlap >= out->size)
        return core_error_set(err, APIDEX_EINVAL, "bad strategy '%s': overlap must be < size", s);
    if (canon) {
        core_buf_puts(canon, chunk_strategy_name(out->strategy));
        if (out->size) core_buf_printf(canon, ":%zu:%zu", out->size, out->overlap);
        if (canon->failed) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    return 0;
}

/* ---------------------------------------------------------------- helpers */

/* The search image's builder the program registered (build_image_set_builder). */
static store_image_builder image_builder;

typedef struct build_ctx {
    store_writer *w;
    const chunk_options *copt;
    core_arena *arena; /* per API */
    core_buf buf;
    const text_bpe *bpe;
    embed_provider *embedder; /* NULL: no vectors */
    size_t dim;               /* the embedder's */
    size_t embedded, vectors_reused;
} build_ctx;

static int oom(apidex_error *err)
{
    return core_error_set(err, APIDEX_ENOMEM, "out of memory while indexing");
}

static const char *arena_buf(build_ctx *b, const core_buf *buf)
{
    return core_arena_strndup(b->arena, buf->len ? buf->data : "", buf->len);
}

/* Joins two optional texts with a newline. */
static const char *join2(core_arena *a, const char *x, const char *y)
{
    if (!x || !*x) return y;
    if (!y || !*y) return x;
    return core_arena_printf(a, "%s\n%s", x, y);
}

static size_t count_tokens(build_ctx *b, const char *s)
{
    return s && b->bpe ? text_bpe_count(b->bpe, s, strlen(s)) : 0;
}

/* The absolute form of a local document path (the documents table key), so the
   same file given as "specs/a.json" or "/abs/specs/a.json" is one document. */
static const char *document_key(core_arena *a, const char *file)
{
    if (!file) return "";
    /* Always a copy in the build's arena: an API's own strings go with it when the streaming
       build unloads it (spec_registry_unload), and the key is used after that. */
    char *real = strstr(file, "://") ? NULL : realpath(file, NULL);
    const char *k = core_arena_strdup(a, real ? real : file);
    free(real);
    return k;
}

/* ---------------------------------------------------------------- one API */

static void map_fields(build_ctx *b, const view_fields *cf, const char **fields)
{
    core_arena *a = b->arena;
    fields[STORE_FIELD_PATH] = cf->path;
    fields[STORE_FIELD_OPERATION_ID] = cf->operation_id;
    fields[STORE_FIELD_SUMMARY] = cf->summary;
    fields[STORE_FIELD_DESCRIPTION] = cf->description;
    fields[STORE_FIELD_PARAMS] = join2(a, cf->params, cf->body);
    fields[STORE_FIELD_RESPONSES] = cf->response;
    fields[STORE_FIELD_TAGS] = join2(a, cf->tags, cf->api);
}

/* The inputs an operation needs: required and path parameters, a required body,
   with the entity the data-flow analysis found for identifier inputs. */
static int op_inputs(build_ctx *b, const spec_operation *op, const flow_graph *df, size_t oi,
                     store_operation *rec)
{
    size_t cap = op->n_params + 1;
    store_input *in = core_arena_calloc(b->arena, cap, sizeof *in);
    if (!in) return APIDEX_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < op->n_params; i++) {
        const spec_param *p = &op->params[i];
        bool is_path = p->in && !strcmp(p->in, "path");
        const char *entity = NULL;
        if (df && oi < df->n_ops)
            for (size_t k = 0; k < df->n_inputs[oi] && !entity; k++)
                if (!strcmp(df->inputs[oi][k].name, p->name)) entity = df->inputs[oi][k].entity;
        if (!p->name || (!p->required && !is_path && !entity)) continue;
        in[n++] = (store_input){p->name, p->in ? p->in : "query", entity, p->required || is_path};
    }
    if (op->body && op->body->required) in[n++] = (store_input){"body", "body", NULL, true};
    rec->inputs = in;
    rec->n_inputs = n;
    return 0;
}

/* One operation's row: its rendering, fields, inputs and facts, and its schema edges. */
static int add_operation_row(build_ctx *b, const spec_api *api, const spec_operation *op,
                             const flow_graph *df, size_t i, text_analyzer *ta, apidex_error *err)
{
    view_render_options ropt = {.prep = b->copt->prep};
    store_operation rec = {0};
    rec.id = op->id;
    rec.api = api->id;
    rec.method = op->method;
    rec.path = op->path;
    rec.operation_id = op->operation_id;
    rec.summary = op->summary;
    rec.description = op->description;
    rec.tags = op->tags;
    rec.n_tags = op->n_tags;
    rec.deprecated = op->deprecated;
    rec.pointer = op->pointer;
    core_buf_reset(&b->buf);
    if (view_render_operation(api, op, &ropt, &b->buf, NULL) || b->buf.failed) return oom(err);
    rec.content = arena_buf(b, &b->buf);
    core_buf_reset(&b->buf);
    if (view_describe_operation(api, op, &b->copt->prep, &b->buf) || b->buf.failed) return oom(err);
    rec.capability = arena_buf(b, &b->buf);
    if (!rec.content || !rec.capability) return oom(err);
    rec.tokens = count_tokens(b, rec.content);
    if (op_inputs(b, op, df, i, &rec)) return oom(err);
    flow_op_facts facts;
    if (flow_op_read_facts(op, ta, b->arena, &facts)) return oom(err);
    rec.action = (int)facts.action;
    rec.verb = facts.verb;
    rec.flags = (facts.text_query ? STORE_OP_TEXT_QUERY : 0) | (facts.mine ? STORE_OP_MINE : 0) |
                (facts.destructive ? STORE_OP_DESTRUCTIVE : 0) |
                (facts.collection ? STORE_OP_COLLECTION : 0);
    int rc = store_writer_add_operation(b->w, &rec, err);
    if (rc) return rc;
    for (size_t k = 0; k < op->n_schemas; k++) {
        if (op->schemas[k] >= api->n_schemas) continue;
        store_edge e = {
            .kind = STORE_EDGE_OP_SCHEMA, .src = op->id, .dst = api->schemas[op->schemas[k]].id};
        rc = store_writer_add_edge(b->w, api->id, &e, err);
        if (rc) return rc;
    }
    return 0;
}

/* Runs one row's work in an arena of its own, freed once the row is written: what a row
   renders is in the index then, and keeping every row's text until the API is done grew
   with operations x rendering (20,000 operations that $ref one wide schema: 1.4 GB). */
static core_arena *row_arena_begin(build_ctx *b)
{
    core_arena *keep = b->arena, *row = core_arena_new(0);
    if (row) b->arena = row;
    return row ? keep : NULL;
}

static void row_arena_end(build_ctx *b, core_arena *keep)
{
    core_arena_free(b->arena);
    b->arena = keep;
}

static int add_operation(build_ctx *b, const spec_api *api, const spec_operation *op,
                         const flow_graph *df, size_t i, text_analyzer *ta, apidex_error *err)
{
    core_arena *keep = row_arena_begin(b);
    if (!keep) return oom(err);
    int rc = add_operation_row(b, api, op, df, i, ta, err);
    row_arena_end(b, keep);
    return rc;
}

static int add_operations(build_ctx *b, const spec_api *api, const flow_graph *df,
                          apidex_error *err)
{
    text_analyzer *ta = text_analyzer_new();
    if (!ta) return oom(err);
    int rc = 0;
    for (size_t i = 0; i < api->n_ops && !rc; i++)
        rc = add_operation(b, api, &api->ops[i], df, i, ta, err);
    text_analyzer_free(ta);
    return rc;
}

static int add_schemas(build_ctx *b, const spec_api *api, apidex_error *err)
{
    view_render_options ropt = {.prep = b->copt->prep};
    for (size_t i = 0; i < api->n_schemas; i++) {
        const spec_schema *s = &api->schemas[i];
        core_buf_reset(&b->buf);
        if (view_render_schema(api, i, &ropt, &b->buf, NULL) || b->buf.failed) return oom(err);
        core_arena *keep = row_arena_begin(b);
        if (!keep) return oom(err);
        store_schema rec = {.id = s->id,
                            .api = api->id,
                            .name = s->name,
                            .pointer = s->pointer,
                            .content = arena_buf(b, &b->buf),
                            .used_by = s->used_by,
                            .in_cycle = s->in_cycle};
        int rc = rec.content ? 0 : oom(err);
        if (!rc) rec.tokens = count_tokens(b, rec.content);
        if (!rc) rc = store_writer_add_schema(b->w, &rec, err);
        row_arena_end(b, keep);
        if (rc) return rc;
        for (size_t k = 0; k < s->n_refs; k++) {
            if (s->refs[k] >= api->n_schemas) continue;
            store_edge e = {
                .kind = STORE_EDGE_SCHEMA_SCHEMA, .src = s->id, .dst = api->schemas[s->refs[k]].id};
            rc = store_writer_add_edge(b->w, api->id, &e, err);
            if (rc) return rc;
        }
    }
    return 0;
}

static int add_producers(build_ctx *b, const spec_api *api, const flow_graph *df, apidex_error *err)
{
    for (size_t i = 0; df && i < df->n_edges; i++) {
        const flow_edge *d = &df->edges[i];
        if (d->consumer >= api->n_ops || d->producer >= api->n_ops ||
            d->input >= df->n_inputs[d->consumer])
            continue;
        const flow_input *in = &df->inputs[d->consumer][d->input];
        store_edge e = {.kind = STORE_EDGE_PRODUCER,
                        .src = api->ops[d->consumer].id,
                        .dst = api->ops[d->producer].id,
                        .param = in->name,
                        .field = in->entity,
                        .score = d->score,
                        .explicit_hint = d->explicit_hint,
                        .features = d->features};
        int rc = store_writer_add_edge(b->w, api->id, &e, err);
        if (rc) return rc;
    }
    return 0;
}

/* Vectors for the chunks of one API: copied from the old index where the chunk's text
   did not change, else embedded in one call (the provider batches it). */
static int add_vectors(build_ctx *b, const char *api, const char **ids, const char **texts,
                       size_t n, apidex_error *err)
{
    /* Asked here, not at the start: an http provider learns it with a request, and a
       build that reuses every document should not talk to the server at all. */
    if (!b->dim) {
        int drc = embed_provider_dim(b->embedder, &b->dim, err);
        if (drc) return drc;
    }
    size_t dim = b->dim;
    float *vecs = n ? malloc(n * dim * sizeof *vecs) : NULL;
    size_t *todo = n ? malloc(n * sizeof *todo) : NULL;
    const char **todo_texts = n ? malloc(n * sizeof *todo_texts) : NULL;
    float *fresh = NULL;
    int rc = n && (!vecs || !todo || !todo_texts) ? oom(err) : 0;
    const char *model = embed_provider_model_id(b->embedder);
    size_t n_todo = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (store_writer_old_vector(b->w, ids[i], model, texts[i], vecs + i * dim, dim)) {
            b->vectors_reused++;
            continue;
        }
        todo_texts[n_todo] = texts[i];
        todo[n_todo++] = i;
    }
    if (!rc && n_todo) {
        fresh = malloc(n_todo * dim * sizeof *fresh);
        rc = fresh ? embed_provider_embed(b->embedder, todo_texts, n_todo, false, fresh, err)
                   : oom(err);
        for (size_t k = 0; k < n_todo && !rc; k++) {
            float *v = vecs + todo[k] * dim;
            memcpy(v, fresh + k * dim, dim * sizeof *v);
            /* Unit length, so the search's inner product is the cosine. */
            embed_l2_normalize(v, dim);
        }
        if (!rc) b->embedded += n_todo;
    }
    for (size_t i = 0; i < n && !rc; i++)
        rc = store_writer_add_vector(b->w, api, ids[i], model, vecs + i * dim, dim, err);
    free(fresh);
    free(todo_texts);
    free(todo);
    free(vecs);
    return rc;
}

/* One chunk's row; vec_id and vec_text (when embedding) get its id and the text to embed. */
static int add_chunk_row(build_ctx *b, const spec_api *api, const chunk *c, const char **vec_id,
                         const char **vec_text, apidex_error *err)
{
    store_chunk rec = {0};
    rec.id = c->id;
    rec.api = api->id;
    rec.type = chunk_type_name(c->type);
    rec.content = core_arena_strndup(b->arena, c->content ? c->content : "", c->content_len);
    rec.text = c->text ? core_arena_strndup(b->arena, c->text, c->text_len) : NULL;
    if (!rec.content || (c->text && !rec.text)) return oom(err);
    rec.tokens = c->meta.tokens;
    rec.n_endpoints = c->n_endpoints;
    rec.endpoints =
        c->n_endpoints ? core_arena_calloc(b->arena, c->n_endpoints, sizeof *rec.endpoints) : NULL;
    if (c->n_endpoints && !rec.endpoints) return oom(err);
    for (size_t k = 0; k < c->n_endpoints; k++) rec.endpoints[k] = c->endpoints[k].op_id;
    map_fields(b, &c->fields, rec.fields);
    rec.fields[STORE_FIELD_OTHER] = rec.text ? rec.text : rec.content;
    /* A small JSON object with what the reader cannot get from the columns. */
    core_buf_reset(&b->buf);
    core_buf_puts(&b->buf, "{\"strategy\":");
    const char *st = c->meta.strategy ? c->meta.strategy : "";
    core_buf_json_str(&b->buf, st, strlen(st));
    if (c->meta.schema) {
        core_buf_puts(&b->buf, ",\"schema\":");
        core_buf_json_str(&b->buf, c->meta.schema, strlen(c->meta.schema));
    }
    core_buf_printf(&b->buf, ",\"window\":%zu,\"n_windows\":%zu", c->meta.window,
                    c->meta.n_windows);
    if (c->meta.n_ref_ids) {
        core_buf_puts(&b->buf, ",\"refs\":[");
        for (size_t k = 0; k < c->meta.n_ref_ids; k++) {
            if (k) core_buf_putc(&b->buf, ',');
            core_buf_json_str(&b->buf, c->meta.ref_ids[k], strlen(c->meta.ref_ids[k]));
        }
        core_buf_putc(&b->buf, ']');
    }
    core_buf_putc(&b->buf, '}');
    rec.metadata = arena_buf(b, &b->buf);
    if (b->buf.failed || !rec.metadata) return oom(err);
    if (vec_id) {
        *vec_id = rec.id;
        *vec_text = rec.text ? rec.text : rec.content;
    }
    return store_writer_add_chunk(b->w, &rec, err);
}

static int add_chunks(build_ctx *b, const spec_api *api, apidex_error *err)
{
    chunk_list *list = NULL;
    int rc = chunk_list_new(&list);
    if (rc) return oom(err);
    rc = chunk_api(api, b->copt, list, err);
    const char **vec_ids = NULL, **vec_texts = NULL;
    if (!rc && b->embedder && list->n) {
        vec_ids = core_arena_calloc(b->arena, list->n, sizeof *vec_ids);
        vec_texts = core_arena_calloc(b->arena, list->n, sizeof *vec_texts);
        if (!vec_ids || !vec_texts) rc = oom(err);
    }
    for (size_t i = 0; i < list->n && !rc; i++) {
        /* a row's copies live until it is written, unless embedding needs the texts */
        core_arena *keep = NULL;
        if (!vec_ids && !(keep = row_arena_begin(b))) {
            rc = oom(err);
            break;
        }
        rc = add_chunk_row(b, api, &list->items[i], vec_ids ? &vec_ids[i] : NULL,
                           vec_ids ? &vec_texts[i] : NULL, err);
        if (keep) row_arena_end(b, keep);
    }
    if (!rc && vec_ids) rc = add_vectors(b, api->id, vec_ids, vec_texts, list->n, err);
    chunk_list_free(list);
    return rc;
}

static int index_api(build_ctx *b, const spec_api *api, const char *doc, const char *overrides,
                     apidex_error *err)
{
    store_api rec = {0};
    rec.overrides = overrides;
    rec.id = api->id;
    rec.document = doc;
    rec.title = api->title;
    rec.provider = api->provider;
    rec.version = api->version;
    rec.description = api->description;
    rec.spec_version = api->spec_version;
    rec.content_hash = api->content_hash;
    rec.n_files = api->n_files;
    size_t snapshot_len;
    rec.snapshot = spec_api_generated_text(api, &snapshot_len);
    rec.n_servers = api->n_servers;
    rec.servers =
        api->n_servers ? core_arena_calloc(b->arena, api->n_servers, sizeof *rec.servers) : NULL;
    rec.n_tags = api->n_tags;
    rec.tags = api->n_tags ? core_arena_calloc(b->arena, api->n_tags, sizeof *rec.tags) : NULL;
    if ((api->n_servers && !rec.servers) || (api->n_tags && !rec.tags)) return oom(err);
    for (size_t i = 0; i < api->n_servers; i++)
        rec.servers[i] = (store_server){api->servers[i].url, api->servers[i].description};
    for (size_t i = 0; i < api->n_tags; i++)
        rec.tags[i] = (store_tag){api->tags[i].name, api->tags[i].description, 0};
    int rc = store_writer_add_api(b->w, &rec, err);
    if (rc) return rc;

    /* The data-flow analysis is an enrichment: without it the index still works. */
    flow_graph *df = NULL;
    apidex_error dferr;
    core_error_clear(&dferr);
    if (flow_build(api, &df, &dferr) != 0) df = NULL;

    rc = add_operations(b, api, df, err);
    if (!rc) rc = add_schemas(b, api, err);
    if (!rc) rc = add_producers(b, api, df, err);
    if (!rc) rc = add_chunks(b, api, err);
    flow_free(df);
    return rc;
}

/* ---------------------------------------------------------------- the build */

/* Documents handled in this build (the same file may be reached twice): an open-
   addressing set of paths, sized for every document of the registry. */
typedef struct path_set {
    const char **slots;
    size_t mask;
} path_set;

static int path_set_init(path_set *s, size_t n)
{
    size_t cap = 16;
    while (cap < n * 2) cap *= 2;
    s->slots = calloc(cap, sizeof *s->slots);
    s->mask = cap - 1;
    return s->slots ? 0 : APIDEX_ENOMEM;
}

static bool path_set_has(const path_set *s, const char *path)
{
    size_t h = (size_t)core_hash64(path, strlen(path)) & s->mask;
    for (; s->slots[h]; h = (h + 1) & s->mask)
        if (!strcmp(s->slots[h], path)) return true;
    return false;
}

/* Adds path; false when it was there already. */
static bool path_set_add(path_set *s, const char *path)
{
    size_t h = (size_t)core_hash64(path, strlen(path)) & s->mask;
    while (s->slots[h]) {
        if (!strcmp(s->slots[h], path)) return false;
        h = (h + 1) & s->mask;
    }
    s->slots[h] = path;
    return true;
}

/* ---------------------------------------------------------------- registry changes */

static bool is_dropped(const build_options *opt, const char *api)
{
    for (size_t i = 0; i < opt->n_drop_apis; i++)
        if (api && !strcmp(opt->drop_apis[i], api)) return true;
    return false;
}

/* Whether old document i leaves the index in this build. */
static bool leaves(const build_options *opt, const path_set *listed, const char *path,
                   const char *api)
{
    return opt->keep_unlisted ? is_dropped(opt, api) : !path_set_has(listed, path);
}

/* Before any document is touched: the ids to drop exist, an add does not take the id of
   another document, and the guard of `index` (zero documents, more than half removed). */
static int check_plan(store_writer *w, const char *db_path, const spec_registry *reg,
                      const path_set *listed, const build_options *opt, apidex_error *err)
{
    size_t n_old = store_writer_old_count(w);
    for (size_t k = 0; k < opt->n_drop_apis; k++) {
        bool found = false;
        for (size_t i = 0; i < n_old && !found; i++) {
            const char *api = NULL;
            store_writer_old_doc(w, i, &api, NULL);
            found = api && !strcmp(api, opt->drop_apis[k]);
        }
        if (!found)
            return core_error_set(err, APIDEX_ENOTFOUND, "no API '%s' in %s", opt->drop_apis[k],
                                  db_path);
    }
    char why[256];
    if (opt->keep_unlisted && n_old && !store_writer_reusable(w, why, sizeof why))
        return core_error_set(err, APIDEX_EVERSION,
                              "%s cannot be changed in place: %s; rebuild it with "
                              "'apidex index PATH...' (the paths 'apidex list' shows)",
                              db_path, why);
    size_t n = reg ? spec_registry_count(reg) : 0;
    if (opt->keep_unlisted && !opt->n_drop_apis && n == 0)
        return core_error_set(err, APIDEX_EINVAL,
                              "no OpenAPI documents in the given paths: nothing to add");
    /* A given id (--name, the registry file's id) another document of the index keeps is
       refused; a derived one would get a suffix (ids.c). */
    for (size_t r = 0; opt->keep_unlisted && r < n; r++) {
        const spec_api *api = spec_registry_api(reg, r);
        const char *given = spec_registry_given_id(reg, r);
        for (size_t i = 0; given && i < n_old; i++) {
            const char *old_api = NULL;
            const char *path = store_writer_old_doc(w, i, &old_api, NULL);
            if (old_api && !strcmp(old_api, given) && !path_set_has(listed, path) &&
                !is_dropped(opt, old_api))
                return core_error_set(err, APIDEX_EINVAL,
                                      "%s: the API id '%s' is taken by %s in the index: give it "
                                      "another with --name ID",
                                      api->file, given, path);
        }
    }
    if (!opt->guard) return 0;
    size_t n_gone = 0;
    core_buf names;
    core_buf_init(&names, 0);
    for (size_t i = 0; i < n_old; i++) {
        const char *api = NULL;
        const char *path = store_writer_old_doc(w, i, &api, NULL);
        if (!leaves(opt, listed, path, api)) continue;
        if (++n_gone <= 5) core_buf_printf(&names, "%s%s", n_gone > 1 ? ", " : "", api);
    }
    if (n_gone > 5) core_buf_printf(&names, " and %zu more", n_gone - 5);
    int rc = 0;
    if (names.failed)
        rc = oom(err);
    else if (n == 0 && n_old)
        rc = core_error_set(err, APIDEX_EREFUSED,
                            "no OpenAPI documents in the given paths: this would remove all %zu "
                            "APIs of %s (%s); nothing was changed (--prune allows it)",
                            n_old, db_path, names.data);
    else if (n == 0)
        rc = core_error_set(err, APIDEX_EREFUSED,
                            "no OpenAPI documents in the given paths; nothing was written "
                            "(--prune builds an empty index)");
    else if (n_gone * 2 > n_old)
        rc = core_error_set(err, APIDEX_EREFUSED,
                            "this would remove %zu of the %zu APIs of %s (%s); nothing was "
                            "changed: check the paths, or give --prune to remove them",
                            n_gone, n_old, db_path, names.data);
    core_buf_free(&names);
    return rc;
}

/* add and remove: every old document that is neither listed nor dropped is copied. */
static int keep_unlisted(store_writer *w, const path_set *listed, const build_options *opt,
                         apidex_error *err)
{
    for (size_t i = 0; i < store_writer_old_count(w); i++) {
        const char *api = NULL;
        bool used = false;
        const char *path = store_writer_old_doc(w, i, &api, &used);
        if (used || path_set_has(listed, path) || is_dropped(opt, api)) continue;
        int rc = store_writer_reuse(w, path, err);
        if (rc) return rc;
        if (opt->delay_ms) core_sleep_ms(opt->delay_ms);
    }
    return 0;
}

/* ---------------------------------------------------------------- the build */

/* Threads for a deferred registry: the option, else $APIDEX_JOBS, else the CPUs (<= 8). */
static unsigned build_jobs(const build_options *opt)
{
    if (opt->jobs) return opt->jobs;
    const char *env = getenv("APIDEX_JOBS");
    long n = env && *env ? strtol(env, NULL, 10) : 0;
    if (n <= 0) n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1u : n > 8 ? 8u : (unsigned)n;
}

static int build_locked(const char *db_path, spec_registry *reg, const build_options *opt,
                        store_build_report *rep, apidex_error *err)
{
    double t0 = core_now();
    char *inherited_strategy = NULL, *inherited_filters = NULL;
    const char *strategy_arg = opt->strategy, *filters_arg = opt->filters;
    if (opt->inherit) {
        int irc = store_index_settings(db_path, &inherited_strategy, &inherited_filters, err);
        if (irc) return irc;
        strategy_arg = inherited_strategy;
        filters_arg = inherited_filters;
    }

    chunk_options copt;
    core_buf strategy, filters;
    core_buf_init(&strategy, 0);
    core_buf_init(&filters, 0);
    int rc = build_strategy_parse(strategy_arg, &copt, &strategy, err);
    if (!rc && filters_arg && *filters_arg) {
        rc = prep_parse_filters(filters_arg, &copt.prep.filters, err);
        if (!rc && prep_format_filters(copt.prep.filters, &filters)) rc = oom(err);
    }
    free(inherited_strategy);
    free(inherited_filters);
    if (!rc && opt->chunk_setup) opt->chunk_setup(opt->chunk_setup_ctx, &copt);
    if (!rc && copt.describe) {
        /* LLM texts: part of the signature, so a change of model or prompt re-chunks. */
        if (opt->describe_signature && core_buf_printf(&strategy, "+%s", opt->describe_signature))
            rc = oom(err);
        /* The LLM prefetch reads every API: a deferred registry is loaded whole for it. */
        for (size_t i = 0; !rc && opt->describe_prepare && i < spec_registry_count(reg); i++)
            if (spec_registry_load(reg, i)) rc = oom(err);
        if (!rc && opt->describe_prepare)
            rc = opt->describe_prepare(opt->chunk_setup_ctx, reg, err);
    }
    if (!rc && opt->embedder) {
        /* The vectors are part of what the index is: another provider means a clean
           rebuild, never a mix of two models' vectors. */
        if (core_buf_printf(&strategy, "+embed=%s", opt->embedder->fingerprint)) rc = oom(err);
    }
    if (rc) {
        core_buf_free(&strategy);
        core_buf_free(&filters);
        return rc;
    }
    store_writer_options wopt = {.strategy = strategy.data,
                                 .filters = filters.len ? filters.data : "",
                                 .full = opt->full,
                                 .patch = opt->keep_unlisted,
                                 .on_change = opt->on_change,
                                 .on_change_ctx = opt->on_change_ctx,
                                 .image = image_builder,
                                 .dataflow = FLOW_VERSION};
    store_writer *w = NULL;
    rc = store_writer_begin(db_path, &wopt, &w, err);
    core_buf_free(&strategy);
    core_buf_free(&filters);
    if (rc) return rc;

    build_ctx b = {.w = w, .copt = &copt, .bpe = text_bpe_default(), .embedder = opt->embedder};
    core_buf_init(&b.buf, 0);
    size_t n = reg ? spec_registry_count(reg) : 0;
    core_arena *keys = core_arena_new(0);
    path_set seen = {0}, listed = {0};
    const char **doc_keys = calloc(n ? n : 1, sizeof *doc_keys);
    if (!keys || !doc_keys || path_set_init(&seen, n) || path_set_init(&listed, n)) rc = oom(err);
    for (size_t i = 0; i < n && !rc; i++) {
        doc_keys[i] = document_key(keys, spec_registry_api(reg, i)->file);
        if (!doc_keys[i]) {
            rc = oom(err);
            break;
        }
        path_set_add(&listed, doc_keys[i]);
    }
    if (!rc) rc = check_plan(w, db_path, reg, &listed, opt, err);
    build_ids *ids = NULL;
    if (!rc) rc = build_ids_begin(w, reg, doc_keys, opt, &ids, err);
    build_prefetch *ahead = NULL;
    size_t n_written = 0; /* APIs new, changed, unchanged or kept from the last build */
    /* A deferred registry streams: parsed ahead on worker threads, written here in order. */
    if (!rc && spec_registry_deferred(reg) &&
        build_prefetch_start(reg, build_jobs(opt), opt->load_memory_total, &ahead))
        rc = oom(err);
    for (size_t i = 0; i < n && !rc; i++) {
        if (ahead && build_prefetch_wait(ahead, i)) {
            rc = oom(err);
            break;
        }
        const spec_api *api = spec_registry_api(reg, i);
        const char *doc = doc_keys[i];
        if (opt->progress) opt->progress(opt->progress_ctx, i, n, api->file);
        if (api->skipped || !path_set_add(&seen, doc)) {
            if (ahead) build_prefetch_done(ahead, i);
            continue;
        }
        /* The API's id, now that it is parsed, before any row of it: on this thread, in
           registry order, so the same for every number of jobs (ids.c). */
        if ((rc = build_ids_settle(ids, reg, i, err)) != 0) break;
        if (!api->failed && api->n_ops == 0 && opt->on_empty)
            opt->on_empty(opt->on_empty_ctx, build_ids_final(ids, i), api->file);
        if (api->failed) {
            rep->failed++;
            /* Keep the last good version, unless its id now belongs to another API. */
            const char *old = store_writer_old_api(w, doc);
            bool keep = old && !strcmp(old, build_ids_final(ids, i));
            if (!keep) build_ids_unwritten(ids, i);
            n_written += keep;
            if (keep) {
                rc = store_writer_keep(w, doc, err);
                if (!rc && opt->overrides)
                    rc = store_writer_set_overrides(w, old, opt->overrides(opt->overrides_ctx, api),
                                                    err);
            }
        } else if (store_writer_can_reuse(w, doc, api->id, api->content_hash, NULL)) {
            n_written++;
            rc = store_writer_reuse(w, doc, err);
            if (!rc && opt->overrides)
                rc = store_writer_set_overrides(w, api->id, opt->overrides(opt->overrides_ctx, api),
                                                err);
        } else {
            const char *ov = opt->overrides ? opt->overrides(opt->overrides_ctx, api) : NULL;
            n_written++;
            b.arena = core_arena_new(0);
            rc = b.arena ? index_api(&b, api, doc, ov, err) : oom(err);
            if (rc && err && !err->file[0]) core_error_at(err, api->file, 0, 0, NULL);
            core_arena_free(b.arena);
            b.arena = NULL;
        }
        if (ahead) build_prefetch_done(ahead, i);
        /* Test hook: lets tests kill the build while it is half done. */
        if (opt->delay_ms) core_sleep_ms(opt->delay_ms);
    }
    build_prefetch_stop(ahead, &rep->loads_at_once, &rep->load_memory_at_once);
    if (!rc && opt->keep_unlisted) rc = keep_unlisted(w, &listed, opt, err);
    if (!rc && ids) rc = build_ids_finish(ids, err);
    build_ids_free(ids);
    if (reg && spec_registry_reindex_ids(reg) && !rc) rc = oom(err);
    if (opt->progress && !rc) opt->progress(opt->progress_ctx, n, n, NULL);
    free(seen.slots);
    free(listed.slots);
    free(doc_keys);
    core_arena_free(keys);
    core_buf_free(&b.buf);
    /* Every document given failed (a single file that is no spec): the same refusal as a
       folder without specs, rather than an empty index. */
    if (!rc && opt->guard && !opt->keep_unlisted && n && !n_written)
        rc = core_error_set(err, APIDEX_EREFUSED,
                            "no OpenAPI documents in the given paths; nothing was written "
                            "(--prune builds an empty index)");
    if (rc) {
        store_writer_abort(w);
        return rc;
    }
    size_t failed = rep->failed, at_once = rep->loads_at_once, mem = rep->load_memory_at_once;
    rc = store_writer_commit(w, rep, err);
    rep->failed = failed;
    rep->loads_at_once = at_once;
    rep->load_memory_at_once = mem;
    rep->embedded = b.embedded;
    rep->vectors_reused = b.vectors_reused;
    rep->seconds = core_now() - t0;
    return rc;
}

int build_index(const char *db_path, spec_registry *reg, const build_options *opt,
                store_build_report *rep, apidex_error *err)
{
    build_options defaults = {0};
    if (!opt) opt = &defaults;
    store_build_report local;
    if (!rep) rep = &local;
    memset(rep, 0, sizeof *rep);
    if (!db_path || !*db_path) return core_error_set(err, APIDEX_EINVAL, "no index path given");
    double t0 = core_now();
    /* The file, or a server's private copy of its current generation: the build is the same. */
    store_target *t = NULL;
    int rc = store_target_begin(db_path, &opt->lock, opt->full, &t, err);
    if (rc) return rc;
    rc = build_locked(store_target_path(t), reg, opt, rep, err);
    if (!rc) rc = store_target_commit(t, err);
    if (store_target_server(t)) rep->seconds = core_now() - t0; /* the publish included */
    store_target_end(t, rc, err);
    return rc;
}

void build_image_set_builder(store_image_builder fn)
{
    image_builder = fn;
}

store_image_builder build_image_builder(void)
{
    return image_builder;
}
