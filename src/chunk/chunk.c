/*
 * chunk: the strategies and the chunk list.
 *
 * Design. The chunking paper (Pesl et al., "Analyzing OpenAPI Chunking for
 * Retrieval-Augmented Generation", Table 1) splits an OpenAPI document
 * into intermediate chunks (whole document, one per endpoint, or JSON leaf
 * lines) and refines them (token windows, remove examples, relevant fields, or
 * an LLM summary/query used only for the embedding). apidex's hybrid adds
 * what an agent needs to call an endpoint: one chunk per operation with its
 * $ref'd schemas inlined two levels deep, and separate chunks for schemas that
 * are big (> 100 tokens) or shared (>= 3 operations), linked by id.
 *
 * Every chunk keeps content (what is handed over) apart from text (what is
 * embedded and indexed), and names the endpoints it covers. For per-operation
 * strategies that is the operation. For whole-document windows it follows the
 * paper's code (a window covers every endpoint whose path string it contains)
 * plus every operation whose text it overlaps, so that no endpoint is left
 * without a chunk when a window boundary cuts a path key.
 *
 * Ids are stable: "api:operationId" (the model's operation id), "api:Schema",
 * windows add "#k"; whole-document windows are "api:nosplit#k" / "api:json#k".
 * Order follows the model (operations, then schemas), which is deterministic.
 * A list owns every string it hands out (one arena), so it outlives the model.
 */
#include "chunk/chunk_doc.h"

#include <stdlib.h>
#include <string.h>

static const char *const strategy_names[] = {NULL,          "nosplit",     "endpoint",
                                             "endpoint-re", "endpoint-rf", "json",
                                             "summary",     "query",       "hybrid"};

const char *chunk_strategy_name(chunk_strategy s)
{
    return (s >= CHUNK_NOSPLIT && s <= CHUNK_HYBRID) ? strategy_names[s] : NULL;
}

int chunk_strategy_parse(const char *name, chunk_strategy *out, apidex_error *err)
{
    for (int s = CHUNK_NOSPLIT; s <= CHUNK_HYBRID; s++)
        if (name && !strcmp(name, strategy_names[s])) {
            *out = (chunk_strategy)s;
            return 0;
        }
    return core_error_set(err, APIDEX_EINVAL,
                          "unknown strategy '%s' (known: nosplit, endpoint, endpoint-re, "
                          "endpoint-rf, json, summary, query, hybrid)",
                          name ? name : "");
}

const char *chunk_type_name(chunk_type t)
{
    switch (t) {
    case CHUNK_TYPE_ENDPOINT:
        return "endpoint";
    case CHUNK_TYPE_SCHEMA:
        return "schema";
    case CHUNK_TYPE_API:
        return "api";
    case CHUNK_TYPE_FRAGMENT:
        return "fragment";
    }
    return "?";
}

int chunk_list_new(chunk_list **out)
{
    *out = NULL;
    chunk_list *l = calloc(1, sizeof *l);
    if (!l) return APIDEX_ENOMEM;
    l->arena = core_arena_new(0);
    if (!l->arena) {
        free(l);
        return APIDEX_ENOMEM;
    }
    *out = l;
    return 0;
}

void chunk_list_free(chunk_list *l)
{
    if (!l) return;
    free(l->items);
    core_arena_free(l->arena);
    free(l);
}

/* ---------------------------------------------------------------- building chunks */

typedef struct build {
    const spec_api *api;
    const chunk_options *opt;
    chunk_list *l;
    const text_bpe *bpe;
    const char *strategy;
    size_t size, overlap;
    apidex_error *err;
} build;

static const char *dup(build *b, const char *s)
{
    return s ? core_arena_strdup(b->l->arena, s) : NULL;
}

static chunk *push(build *b)
{
    chunk_list *l = b->l;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        chunk *p = realloc(l->items, cap * sizeof *p);
        if (!p) return NULL;
        l->items = p;
        l->cap = cap;
    }
    chunk *c = &l->items[l->n++];
    memset(c, 0, sizeof *c);
    c->meta.api = dup(b, b->api->id);
    c->meta.strategy = b->strategy;
    c->meta.n_windows = 1;
    return c;
}

static int set_content(build *b, chunk *c, const char *s, size_t n, bool text_too)
{
    char *p = core_arena_strndup(b->l->arena, s ? s : "", n);
    if (!p) return APIDEX_ENOMEM;
    c->content = p;
    c->content_len = n;
    if (text_too) {
        c->text = p;
        c->text_len = n;
    }
    return 0;
}

static int set_text(build *b, chunk *c, const char *s, size_t n)
{
    char *p = core_arena_strndup(b->l->arena, s ? s : "", n);
    if (!p) return APIDEX_ENOMEM;
    c->text = p;
    c->text_len = n;
    return 0;
}

static int set_endpoints(build *b, chunk *c, const size_t *ops, size_t n)
{
    c->endpoints = n ? core_arena_calloc(b->l->arena, n, sizeof *c->endpoints) : NULL;
    if (n && !c->endpoints) return APIDEX_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const spec_operation *op = &b->api->ops[ops[i]];
        c->endpoints[i] =
            (chunk_endpoint){c->meta.api, dup(b, op->method), dup(b, op->path), dup(b, op->id)};
    }
    c->n_endpoints = n;
    return 0;
}

/* Metadata and fields of an operation chunk. */
static int op_meta(build *b, chunk *c, size_t oi)
{
    const spec_operation *op = &b->api->ops[oi];
    c->type = CHUNK_TYPE_ENDPOINT;
    c->meta.method = dup(b, op->method);
    c->meta.path = dup(b, op->path);
    c->meta.operation_id = dup(b, op->operation_id);
    c->meta.deprecated = op->deprecated;
    if (op->n_tags) {
        const char **tags = core_arena_calloc(b->l->arena, op->n_tags, sizeof *tags);
        if (!tags) return APIDEX_ENOMEM;
        for (size_t i = 0; i < op->n_tags; i++) tags[i] = dup(b, op->tags[i]);
        c->meta.tags = tags;
        c->meta.n_tags = op->n_tags;
    }
    int rc = set_endpoints(b, c, &oi, 1);
    if (!rc) rc = view_operation_fields(b->api, op, &b->opt->prep, b->l->arena, &c->fields);
    return rc;
}

static const char *op_window_id(build *b, size_t oi, size_t k, size_t n)
{
    const char *id = b->api->ops[oi].id;
    return n > 1 ? core_arena_printf(b->l->arena, "%s#%zu", id, k) : dup(b, id);
}

/* ---------------------------------------------------------------- token-window strategies */

/* Endpoints of a window over a whole-document text: the paper's rule (a path
 * string fully inside the window maps every operation of that path) plus every
 * operation whose text the window overlaps. Spans and occurrences are in text
 * order and do not overlap, so each window binary-searches its first one. */
static int window_endpoints(build *b, chunk *c, const chunk_doc_text *d, const size_t *path_of,
                            size_t a, size_t z, bool *mark, size_t *ops)
{
    size_t n_ops = b->api->n_ops;
    bool *path_mark = mark + n_ops;
    memset(mark, 0, 2 * n_ops * sizeof *mark);
    size_t lo = 0, hi = d->n_occ;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->occ[mid].a < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < d->n_occ && d->occ[i].a < z; i++)
        if (d->occ[i].b <= z && d->occ[i].idx < n_ops) path_mark[d->occ[i].idx] = true;
    lo = 0;
    hi = d->n_spans;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->spans[mid].b <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < d->n_spans && d->spans[i].a < z; i++) mark[d->spans[i].idx] = true;
    size_t n = 0;
    for (size_t k = 0; k < n_ops; k++)
        if (mark[k] || (path_of[k] < n_ops && path_mark[path_of[k]])) ops[n++] = k;
    return set_endpoints(b, c, ops, n);
}

static int whole_document(build *b, bool lines)
{
    const spec_api *api = b->api;
    core_arena *tmp = core_arena_new(0);
    if (!tmp) return APIDEX_ENOMEM;
    const jt_node *root = api->root.node;
    int rc = prep_tree(&b->opt->prep, root, tmp, &root, &b->l->prep);
    chunk_doc_text d;
    memset(&d, 0, sizeof d);
    if (!rc) rc = lines ? chunk_doc_lines(api, root, &d) : chunk_doc_json(api, root, &d);
    chunk_window *w = NULL;
    size_t n_w = 0;
    if (!rc)
        rc = chunk_token_windows(b->bpe, d.text.data ? d.text.data : "", d.text.len, b->size,
                                 b->overlap, &w, &n_w);
    size_t n_ops = api->n_ops;
    bool *mark = calloc(2 * n_ops + 1, sizeof *mark);
    size_t *ops = calloc(n_ops + 1, sizeof *ops);
    size_t *path_of = calloc(n_ops + 1, sizeof *path_of);
    if (!rc && (!mark || !ops || !path_of)) rc = APIDEX_ENOMEM;
    for (size_t k = 0; k < n_ops && !rc; k++)
        path_of[k] = chunk_doc_path_index(api, api->ops[k].path, strlen(api->ops[k].path));
    for (size_t k = 0; k < n_w && !rc; k++) {
        chunk *c = push(b);
        if (!c) {
            rc = APIDEX_ENOMEM;
            break;
        }
        c->id = core_arena_printf(b->l->arena, "%s:%s#%zu", api->id, lines ? "json" : "nosplit", k);
        c->type = n_w == 1 ? CHUNK_TYPE_API : CHUNK_TYPE_FRAGMENT;
        rc =
            set_content(b, c, d.text.data + w[k].byte_start, w[k].byte_end - w[k].byte_start, true);
        c->meta.tokens = w[k].tok_end - w[k].tok_start;
        c->meta.window = k;
        c->meta.n_windows = n_w;
        c->meta.tok_start = w[k].tok_start;
        c->meta.tok_end = w[k].tok_end;
        c->meta.byte_start = w[k].byte_start;
        c->meta.byte_end = w[k].byte_end;
        if (!rc)
            rc = window_endpoints(b, c, &d, path_of, w[k].byte_start, w[k].byte_end, mark, ops);
        if (!rc && api->title) c->fields.api = dup(b, api->title);
    }
    free(mark);
    free(ops);
    free(path_of);
    free(w);
    chunk_doc_free(&d);
    core_arena_free(tmp);
    return rc;
}

/* "METHOD /path\n" + the operation object as compact JSON, after the filters. */
static int op_json(build *b, size_t oi, unsigned extra_filters, core_buf *out)
{
    const spec_operation *op = &b->api->ops[oi];
    prep_options po = b->opt->prep;
    po.filters |= extra_filters;
    core_arena *tmp = core_arena_new(0);
    if (!tmp) return APIDEX_ENOMEM;
    const jt_node *n = op->node.node;
    int rc = prep_tree(&po, n, tmp, &n, &b->l->prep);
    if (!rc) rc = core_buf_printf(out, "%s %s\n", op->method, op->path);
    if (!rc) rc = jt_write_json(out, n, -1);
    core_arena_free(tmp);
    return rc;
}

static int endpoint_windows(build *b)
{
    core_buf buf;
    core_buf_init(&buf, 0);
    int rc = 0;
    for (size_t oi = 0; oi < b->api->n_ops && !rc; oi++) {
        core_buf_reset(&buf);
        rc = op_json(b, oi, 0, &buf);
        chunk_window *w = NULL;
        size_t n_w = 0;
        if (!rc) rc = chunk_token_windows(b->bpe, buf.data, buf.len, b->size, b->overlap, &w, &n_w);
        for (size_t k = 0; k < n_w && !rc; k++) {
            chunk *c = push(b);
            if (!c) {
                rc = APIDEX_ENOMEM;
                break;
            }
            c->id = op_window_id(b, oi, k, n_w);
            rc = op_meta(b, c, oi);
            if (!rc)
                rc = set_content(b, c, buf.data + w[k].byte_start, w[k].byte_end - w[k].byte_start,
                                 true);
            c->meta.tokens = w[k].tok_end - w[k].tok_start;
            c->meta.window = k;
            c->meta.n_windows = n_w;
            c->meta.tok_start = w[k].tok_start;
            c->meta.tok_end = w[k].tok_end;
            c->meta.byte_start = w[k].byte_start;
            c->meta.byte_end = w[k].byte_end;
        }
        free(w);
    }
    core_buf_free(&buf);
    return rc;
}

/* ---------------------------------------------------------------- per-operation strategies */

static int count_tokens(build *b, chunk *c)
{
    c->meta.tokens = text_bpe_count(b->bpe, c->content, c->content_len);
    return 0;
}

/* Adds the chunk of operation oi: its id, metadata, content (n bytes; text_too: its text
   too) and token count. NULL with *rc set on error. */
static chunk *push_op(build *b, size_t oi, const char *s, size_t n, bool text_too, int *rc)
{
    chunk *c = push(b);
    if (!c) {
        *rc = APIDEX_ENOMEM;
        return NULL;
    }
    c->id = dup(b, b->api->ops[oi].id);
    *rc = op_meta(b, c, oi);
    if (!*rc) *rc = set_content(b, c, s, n, text_too);
    if (!*rc) *rc = count_tokens(b, c);
    return *rc ? NULL : c;
}

static int endpoint_re(build *b)
{
    core_buf buf;
    core_buf_init(&buf, 0);
    int rc = 0;
    for (size_t oi = 0; oi < b->api->n_ops && !rc; oi++) {
        core_buf_reset(&buf);
        rc = op_json(b, oi, PREP_REMOVE_EXAMPLES, &buf);
        if (!rc) push_op(b, oi, buf.data, buf.len, true, &rc);
    }
    core_buf_free(&buf);
    return rc;
}

static int endpoint_rf(build *b)
{
    const spec_api *api = b->api;
    const prep_options *po = &b->opt->prep;
    core_buf buf;
    core_buf_init(&buf, 0);
    int rc = 0;
    for (size_t oi = 0; oi < api->n_ops && !rc; oi++) {
        const spec_operation *op = &api->ops[oi];
        core_buf_reset(&buf);
        if (api->title) {
            rc = view_clean_text(po, api->title, 0, &buf, &b->l->prep);
            if (!rc) rc = core_buf_putc(&buf, '\n');
        }
        if (!rc && api->description) {
            size_t before = buf.len;
            rc = view_clean_text(po, api->description, 0, &buf, &b->l->prep);
            if (!rc && buf.len > before) rc = core_buf_putc(&buf, '\n');
        }
        if (!rc) rc = core_buf_printf(&buf, "%s %s\n", op->method, op->path);
        const char *parts[2] = {op->summary, op->description};
        for (int i = 0; i < 2 && !rc; i++) {
            if (!parts[i] || !*parts[i]) continue;
            size_t before = buf.len;
            rc = view_clean_text(po, parts[i], 0, &buf, &b->l->prep);
            if (!rc && buf.len > before) rc = core_buf_putc(&buf, '\n');
        }
        if (!rc) push_op(b, oi, buf.data, buf.len, true, &rc);
    }
    core_buf_free(&buf);
    return rc;
}

static int described(build *b)
{
    const spec_api *api = b->api;
    const chunk_options *opt = b->opt;
    view_render_options ro = {.depth = opt->inline_depth, .prep = opt->prep, .report = &b->l->prep};
    core_buf content, text;
    core_buf_init(&content, 0);
    core_buf_init(&text, 0);
    int rc = 0;
    for (size_t oi = 0; oi < api->n_ops && !rc; oi++) {
        const spec_operation *op = &api->ops[oi];
        core_buf_reset(&content);
        core_buf_reset(&text);
        rc = view_render_operation(api, op, &ro, &content, NULL);
        if (!rc && opt->describe)
            rc = opt->describe(opt->describe_ctx, api, op, opt->strategy, &text, b->err);
        else if (!rc && opt->strategy == CHUNK_QUERY)
            rc = view_example_query(api, op, &opt->prep, &text);
        else if (!rc)
            rc = view_describe_operation(api, op, &opt->prep, &text);
        chunk *c = rc ? NULL : push_op(b, oi, content.data, content.len, false, &rc);
        if (c) rc = set_text(b, c, text.data, text.len);
    }
    core_buf_free(&content);
    core_buf_free(&text);
    return rc;
}

/* ---------------------------------------------------------------- hybrid */

static const char *schema_chunk_id(build *b, size_t si)
{
    const spec_schema *s = &b->api->schemas[si];
    /* An operation could be named like a schema; the operation keeps the plain id. */
    if (spec_api_find_operation(b->api, s->id))
        return core_arena_printf(b->l->arena, "%s:schema/%s", b->api->id, s->name);
    return dup(b, s->id);
}

static int ref_ids(build *b, chunk *c, const view_refs *refs, const bool *has_chunk,
                   const char **ids)
{
    size_t n = 0;
    for (size_t i = 0; i < refs->n; i++)
        if (has_chunk[refs->idx[i]]) n++;
    if (!n) return 0;
    const char **out = core_arena_calloc(b->l->arena, n, sizeof *out);
    if (!out) return APIDEX_ENOMEM;
    /* In schema order, not discovery order: stable under rendering changes. */
    size_t k = 0;
    for (size_t si = 0; si < b->api->n_schemas && k < n; si++) {
        if (!has_chunk[si]) continue;
        for (size_t i = 0; i < refs->n; i++)
            if (refs->idx[i] == si) {
                out[k++] = ids[si];
                break;
            }
    }
    c->meta.ref_ids = out;
    c->meta.n_ref_ids = k;
    return 0;
}

enum { USED_BY_MAX = 50 };

/* An object, an array, or a composition: something with fields to look up. */
static bool structured(const spec_api *api, size_t si)
{
    spec_schema_view v;
    if (spec_schema_view_open(api, api->schemas[si].node, NULL, &v) || !v.loc.node) return false;
    const char *t = v.type;
    return (t && (!strcmp(t, "object") || !strcmp(t, "array"))) || v.kw[SPEC_KW_PROPERTIES] ||
           v.kw[SPEC_KW_ALL_OF] || v.kw[SPEC_KW_ONE_OF] || v.kw[SPEC_KW_ANY_OF];
}

static int hybrid(build *b)
{
    const spec_api *api = b->api;
    const chunk_options *opt = b->opt;
    size_t ns = api->n_schemas;
    size_t min_tokens = opt->schema_min_tokens ? opt->schema_min_tokens : 100;
    unsigned min_uses = opt->schema_min_uses ? opt->schema_min_uses : 3;
    bool *has_chunk = calloc(ns + 1, sizeof *has_chunk);
    const char **ids = calloc(ns + 1, sizeof *ids);
    core_buf buf;
    core_buf_init(&buf, 0);
    view_refs refs = {0};
    int rc = (has_chunk && ids) ? 0 : APIDEX_ENOMEM;
    view_render_options ro = {.depth = opt->inline_depth, .prep = opt->prep};
    /* Pass 1: which schemas get a chunk (their size does not depend on markers). */
    for (size_t si = 0; si < ns && !rc; si++) {
        const spec_schema *s = &api->schemas[si];
        if (!s->used_by) continue;
        /* Shared structured schemas get a chunk; a shared string type does not. */
        if (s->used_by >= min_uses && structured(api, si)) {
            has_chunk[si] = true;
            continue;
        }
        core_buf_reset(&buf);
        rc = view_render_schema(api, si, &ro, &buf, NULL);
        if (!rc && text_bpe_count(b->bpe, buf.data, buf.len) > min_tokens) has_chunk[si] = true;
    }
    for (size_t si = 0; si < ns && !rc; si++)
        if (has_chunk[si] && !(ids[si] = schema_chunk_id(b, si))) rc = APIDEX_ENOMEM;
    ro.has_chunk = has_chunk;
    ro.report = &b->l->prep; /* pass 1 only sized the schemas: not counted */
    /* Pass 2: operation chunks, recording which schema chunks each one names. */
    size_t first_op_chunk = b->l->n;
    for (size_t oi = 0; oi < api->n_ops && !rc; oi++) {
        core_buf_reset(&buf);
        refs.n = 0;
        rc = view_render_operation(api, &api->ops[oi], &ro, &buf, &refs);
        chunk *c = rc ? NULL : push_op(b, oi, buf.data, buf.len, true, &rc);
        if (c) rc = ref_ids(b, c, &refs, has_chunk, ids);
    }
    size_t n_op_chunks = b->l->n - first_op_chunk;
    /* Pass 3: schema chunks. */
    for (size_t si = 0; si < ns && !rc; si++) {
        if (!has_chunk[si]) continue;
        const spec_schema *s = &api->schemas[si];
        core_buf_reset(&buf);
        refs.n = 0;
        rc = view_render_schema(api, si, &ro, &buf, &refs);
        chunk *c = rc ? NULL : push(b);
        if (!rc && !c) rc = APIDEX_ENOMEM;
        if (rc) break;
        c->id = ids[si];
        c->type = CHUNK_TYPE_SCHEMA;
        c->meta.schema = dup(b, s->name);
        rc = set_content(b, c, buf.data, buf.len, true);
        if (!rc) rc = count_tokens(b, c);
        /* A schema does not point at itself. */
        for (size_t i = 0; i < refs.n; i++)
            if (refs.idx[i] == si) refs.idx[i] = refs.idx[--refs.n];
        if (!rc) rc = ref_ids(b, c, &refs, has_chunk, ids);
        /* Used by: operations whose chunk names this schema (in operation order). */
        const char **used = rc ? NULL : core_arena_calloc(b->l->arena, USED_BY_MAX, sizeof *used);
        if (!rc && !used) rc = APIDEX_ENOMEM;
        size_t nu = 0;
        for (size_t k = 0; k < n_op_chunks && !rc && nu < USED_BY_MAX; k++) {
            const chunk *oc = &b->l->items[first_op_chunk + k];
            for (size_t r = 0; r < oc->meta.n_ref_ids; r++)
                if (oc->meta.ref_ids[r] == ids[si]) {
                    used[nu++] = oc->id;
                    break;
                }
        }
        c->meta.used_by = used;
        c->meta.n_used_by = nu;
        /* Fields: the name, its description and its property names. */
        c->fields.api = dup(b, api->title);
        c->fields.summary = dup(b, s->name);
        core_buf_reset(&buf);
        spec_schema_view v;
        if (!rc && spec_schema_view_open(api, s->node, NULL, &v) == 0) {
            const char *desc = v.description;
            if (desc) {
                rc = view_clean_text(&opt->prep, desc, 0, &buf, NULL);
                c->fields.description = buf.len ? dup(b, buf.data) : NULL;
                core_buf_reset(&buf);
            }
            const jt_node *props = v.kw[SPEC_KW_PROPERTIES];
            for (uint32_t i = 0; jt_is(props, JT_OBJECT) && i < props->len && !rc; i++) {
                if (i) rc = core_buf_putc(&buf, ' ');
                if (!rc)
                    rc =
                        core_buf_append(&buf, props->u.members[i].key, props->u.members[i].key_len);
            }
            if (buf.len) c->fields.response = dup(b, buf.data);
        }
    }
    view_refs_free(&refs);
    core_buf_free(&buf);
    free(has_chunk);
    free(ids);
    return rc;
}

int chunk_api(const spec_api *api, const chunk_options *opt_in, chunk_list *out, apidex_error *err)
{
    chunk_options opt = opt_in ? *opt_in : (chunk_options){0};
    if (!opt.strategy) opt.strategy = CHUNK_HYBRID;
    if (!chunk_strategy_name(opt.strategy))
        return core_error_set(err, APIDEX_EINVAL, "unknown chunking strategy %d",
                              (int)opt.strategy);
    size_t size = opt.size ? opt.size : 1024;
    if (opt.overlap >= size)
        return core_error_set(err, APIDEX_EINVAL,
                              "overlap (%zu) must be smaller than the chunk size (%zu)",
                              opt.overlap, size);
    if (!api || api->failed || !api->root.node) return 0;
    const text_bpe *bpe = text_bpe_default();
    if (!bpe) return core_error_set(err, APIDEX_ENOMEM, "cannot open the cl100k tokenizer");
    build b = {api, &opt, out, bpe, chunk_strategy_name(opt.strategy), size, opt.overlap, err};
    size_t start = out->n;
    out->filters |= opt.prep.filters;
    int rc;
    switch (opt.strategy) {
    case CHUNK_NOSPLIT:
        rc = whole_document(&b, false);
        break;
    case CHUNK_JSON:
        rc = whole_document(&b, true);
        break;
    case CHUNK_ENDPOINT:
        rc = endpoint_windows(&b);
        break;
    case CHUNK_ENDPOINT_RE:
        rc = endpoint_re(&b);
        break;
    case CHUNK_ENDPOINT_RF:
        rc = endpoint_rf(&b);
        break;
    case CHUNK_SUMMARY:
    case CHUNK_QUERY:
        rc = described(&b);
        break;
    default:
        rc = hybrid(&b);
        break;
    }
    if (rc) out->n = start; /* all of an API or nothing */
    if (rc && err && !err->code)
        core_error_set(err, rc, "%s: chunking failed (%s)", api->id, apidex_strerror(rc));
    if (rc && err) core_error_at(err, api->file, 0, 0, NULL);
    return rc;
}
