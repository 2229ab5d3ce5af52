/*
 * askAPI: question -> retrieval -> expansion (producers of needed
 * inputs, referenced schemas) -> context assembly within a token budget ->
 * an answer from that context only, citing endpoint ids -> JSON examples
 * validated against the schemas they claim.
 *
 * The context puts primary endpoints first, in call order (producers before
 * their consumers), then the schemas they reference, then the schemas those
 * reference; each piece carries a type label. Pieces that do not fit are
 * skipped (a smaller one later may still fit), and the completeness score is
 * the share of the needed tokens that made it in. Without an LLM the same
 * context is the result, with a note saying no LLM answered.
 *
 * Answers are cached on disk by (index build, question, filters, budget,
 * server, model) for a TTL; the retrieval and the checks are redone on a hit
 * (they cost milliseconds), only the LLM call is saved.
 */
#include "agent/agent_int.h"

#include <stdio.h>
#include <ctype.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum {
    ASK_DEFAULT_BUDGET = 4000,
    ASK_DEFAULT_TTL = 86400,
    ASK_SCHEMA_DEPTH = 2, /* referenced schemas, then the schemas they reference */
    ASK_MAX_EXAMPLES = 32
};

static const char *const ask_system =
    "You are an API expert. Answer the question using only the API documentation in the "
    "context. If the context does not contain what is needed, say what is missing; never "
    "invent endpoints, parameters or fields. Cite every endpoint you mention by its id in "
    "square brackets, for example [petstore:getPetById]. When you give a JSON example, put it "
    "in a ```json code block and write on the line right above the block which schema it "
    "follows, as `Schema: <schema id>`, `Schema: request of <endpoint id>` or "
    "`Schema: response of <endpoint id>`. Be concise.";

/* ---------------------------------------------------------------- assembly */

typedef struct ask_state {
    store_index *idx;
    const store_operation *ops;
    const store_schema *schemas;
    const store_edge *edges;
    size_t n_ops, n_schemas, n_edges;
    agent_answer *a;
    size_t cap_items;
} ask_state;

static int push_item(ask_state *st, const char *id, bool is_schema, bool producer, size_t tokens)
{
    agent_answer *a = st->a;
    for (size_t i = 0; i < a->n_items; i++)
        if (!strcmp(a->items[i].id, id)) return 0;
    if (core_arena_array_grow(a->arena, &a->items, &st->cap_items, a->n_items, sizeof *a->items,
                              16))
        return APIDEX_ENOMEM;
    a->items[a->n_items++] = (agent_context_item){
        .id = id, .is_schema = is_schema, .producer = producer, .tokens = tokens};
    return 0;
}

/* The schemas the endpoints reference, then what those reference (breadth first, bounded). */
static int expand_schemas(ask_state *st, size_t first_op_item)
{
    size_t level_start = first_op_item, level_end = st->a->n_items;
    for (int depth = 0; depth < ASK_SCHEMA_DEPTH && level_start < level_end; depth++) {
        for (size_t i = level_start; i < level_end; i++) {
            const agent_context_item *it = &st->a->items[i];
            long src = it->is_schema ? store_find_schema(st->idx, it->id)
                                     : store_find_operation(st->idx, it->id);
            store_edge_kind kind = it->is_schema ? STORE_EDGE_SCHEMA_SCHEMA : STORE_EDGE_OP_SCHEMA;
            for (size_t e = 0; src >= 0 && e < st->n_edges; e++) {
                const store_edge *ed = &st->edges[e];
                if (ed->kind != kind || ed->src_index != src || ed->dst_index < 0 ||
                    (size_t)ed->dst_index >= st->n_schemas)
                    continue;
                const store_schema *s = &st->schemas[ed->dst_index];
                int rc = push_item(st, s->id, true, false, s->tokens);
                if (rc) return rc;
            }
        }
        level_start = level_end;
        level_end = st->a->n_items;
    }
    return 0;
}

static void header(const agent_context_item *it, const ask_state *st, core_buf *b)
{
    if (it->is_schema) {
        core_buf_printf(b, "## [schema] %s\n\n", it->id);
        return;
    }
    long oi = store_find_operation(st->idx, it->id);
    const store_operation *op = oi >= 0 ? &st->ops[oi] : NULL;
    core_buf_printf(b, "## [endpoint%s] %s %s (id: %s)\n\n", it->producer ? ", producer" : "",
                    op ? op->method : "", op ? op->path : "", it->id);
}

static const char *item_content(const agent_context_item *it, const ask_state *st)
{
    if (it->is_schema) {
        long si = store_find_schema(st->idx, it->id);
        return si >= 0 ? store_schema_content(st->idx, (size_t)si) : "";
    }
    long oi = store_find_operation(st->idx, it->id);
    return oi >= 0 ? store_operation_content(st->idx, (size_t)oi) : "";
}

static int render(const ask_state *st, core_buf *b)
{
    core_buf_reset(b);
    for (size_t i = 0; i < st->a->n_items; i++) {
        const agent_context_item *it = &st->a->items[i];
        if (!it->included) continue;
        header(it, st, b);
        const char *c = item_content(it, st);
        core_buf_puts(b, c);
        core_buf_puts(b, "\n\n");
    }
    return b->failed ? APIDEX_ENOMEM : 0;
}

/* Greedy fill in priority order, then an exact count; trims from the end if BPE disagrees. */
static int assemble(ask_state *st, size_t budget)
{
    agent_answer *a = st->a;
    core_buf b, h;
    core_buf_init(&b, 256u << 20);
    core_buf_init(&h, 1 << 16);
    size_t used = 0, needed = 0, got = 0;
    for (size_t i = 0; i < a->n_items; i++) {
        agent_context_item *it = &a->items[i];
        core_buf_reset(&h);
        header(it, st, &h);
        size_t cost = it->tokens + agent_count_tokens(h.data) + 1;
        needed += it->tokens;
        if (used + cost <= budget) {
            it->included = true;
            used += cost;
            got += it->tokens;
        }
    }
    int rc = render(st, &b);
    size_t exact = rc ? 0 : agent_count_tokens(b.data);
    for (size_t i = a->n_items; !rc && exact > budget && i-- > 0;) {
        if (!a->items[i].included) continue;
        a->items[i].included = false;
        got -= a->items[i].tokens;
        rc = render(st, &b);
        exact = rc ? 0 : agent_count_tokens(b.data);
    }
    core_buf_free(&h);
    if (!rc) {
        a->context = core_arena_strdup(a->arena, b.data ? b.data : "");
        if (!a->context) rc = APIDEX_ENOMEM;
    }
    core_buf_free(&b);
    a->context_tokens = exact;
    a->completeness = needed ? (double)got / (double)needed : 1.0;
    size_t n = 0;
    for (size_t i = 0; i < a->n_items; i++) n += !a->items[i].is_schema && a->items[i].included;
    a->endpoints = n ? core_arena_calloc(a->arena, n, sizeof *a->endpoints) : NULL;
    if (n && !a->endpoints) return APIDEX_ENOMEM;
    for (size_t i = 0; i < a->n_items; i++)
        if (!a->items[i].is_schema && a->items[i].included)
            a->endpoints[a->n_endpoints++] = a->items[i].id;
    return rc;
}

static int retrieve(ask_state *st, search_engine *eng, const char *question,
                    const agent_ask_options *opt, apidex_error *err)
{
    search_query q = {.text = question,
                      .k = opt->k,
                      .adaptive = opt->k == 0,
                      .apis = opt->apis,
                      .mode = opt->mode,
                      .hybrid_weight = opt->hybrid_weight};
    search_result *res = NULL;
    int rc = search_engine_run(eng, &q, &res, err);
    if (rc) return rc;
    for (size_t i = 0; i < res->n_hits && !rc; i++) {
        long oi = store_find_operation(st->idx, res->hits[i].id);
        if (oi < 0) continue;
        rc = push_item(st, st->ops[oi].id, false, res->hits[i].role == SEARCH_ROLE_PRODUCER,
                       st->ops[oi].tokens);
    }
    search_result_free(res);
    if (!rc) rc = expand_schemas(st, 0);
    return rc ? (err && err->code ? rc : core_error_set(err, rc, "out of memory")) : 0;
}

/* ---------------------------------------------------------------- answer checks */

static bool in_context(const agent_answer *a, const char *id, size_t n)
{
    for (size_t i = 0; i < a->n_items; i++)
        if (a->items[i].included && strlen(a->items[i].id) == n && !memcmp(a->items[i].id, id, n))
            return true;
    return false;
}

static bool list_has(const char **list, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(list[i]) == len && !memcmp(list[i], s, len)) return true;
    return false;
}

/* An id-looking citation: "api:rest" where api has no spaces and rest starts at once. */
static bool looks_like_id(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    if (!colon || colon == s || (size_t)(colon - s) + 1 >= n || isspace((unsigned char)colon[1]))
        return false;
    for (const char *p = s; p < colon; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_.-", *p)) return false;
    return true;
}

static int add_citation(agent_answer *a, const char *s, size_t n, size_t *cap_c, size_t *cap_u)
{
    while (n && (isspace((unsigned char)*s) || *s == '`')) s++, n--;
    while (n && (isspace((unsigned char)s[n - 1]) || s[n - 1] == '`')) n--;
    if (!looks_like_id(s, n)) return 0;
    bool known = in_context(a, s, n);
    const char ***list = known ? &a->cited : &a->unknown_citations;
    size_t *len = known ? &a->n_cited : &a->n_unknown_citations;
    size_t *cap = known ? cap_c : cap_u;
    if (list_has(*list, *len, s, n)) return 0;
    if (core_arena_array_grow(a->arena, list, cap, *len, sizeof **list, 8)) return APIDEX_ENOMEM;
    const char *copy = core_arena_strndup(a->arena, s, n);
    if (!copy) return APIDEX_ENOMEM;
    (*list)[(*len)++] = copy;
    return 0;
}

/* [id], [id1, id2]; markdown links [text](url) are not citations. */
static int find_citations(agent_answer *a)
{
    size_t cap_c = 0, cap_u = 0;
    for (const char *p = a->answer; (p = strchr(p, '[')) != NULL; p++) {
        const char *close = strchr(p + 1, ']');
        if (!close) break;
        const char *nl = memchr(p + 1, '\n', (size_t)(close - p - 1));
        if (nl || close[1] == '(') continue;
        const char *s = p + 1;
        while (s < close) {
            size_t n = strcspn(s, ",;]");
            if (s + n > close) n = (size_t)(close - s);
            int rc = add_citation(a, s, n, &cap_c, &cap_u);
            if (rc) return rc;
            s += n + 1;
        }
        p = close;
    }
    return 0;
}

/* The "Schema: X" claim in the few lines above a code fence at `fence`. */
static const char *claim_before(const char *start, const char *fence, core_arena *arena)
{
    const char *line_end = fence;
    for (int lines = 0; lines < 3 && line_end > start; lines++) {
        const char *ls = line_end - 1;
        while (ls > start && ls[-1] != '\n') ls--;
        size_t n = (size_t)(line_end - ls);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), ls);
        char *hit = strcasestr(buf, "schema:");
        if (hit) {
            char *c = hit + 7;
            while (*c && (isspace((unsigned char)*c) || *c == '*')) c++;
            size_t cl;
            if (*c == '`') { /* `id` quoted: exactly what is between the backticks */
                c++;
                cl = strcspn(c, "`");
            } else {
                cl = strlen(c);
                while (cl && strchr(" \t\r\n`*.:)", c[cl - 1])) cl--;
            }
            return core_arena_strndup(arena, c, cl);
        }
        line_end = ls > start ? ls - 1 : start;
    }
    return NULL;
}

static int check_examples(store_index *idx, agent_answer *a, apidex_error *err)
{
    const char *text = a->answer;
    agent_example_check *ex = core_arena_calloc(a->arena, ASK_MAX_EXAMPLES, sizeof *ex);
    if (!ex) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    a->examples = ex;
    size_t block = 0;
    for (const char *p = text; *p && a->n_examples < ASK_MAX_EXAMPLES;) {
        const char *ls = p;
        while (*p == ' ' || *p == '\t') p++;
        const char *eol = p + strcspn(p, "\n");
        if (strncmp(p, "```", 3)) {
            p = *eol ? eol + 1 : eol;
            continue;
        }
        const char *lang = p + 3;
        size_t ll = (size_t)(eol - lang);
        while (ll && isspace((unsigned char)lang[ll - 1])) ll--;
        const char *body = *eol ? eol + 1 : eol, *end = body;
        while (*end) { /* the closing fence: a line starting with ``` */
            const char *q = end;
            while (*q == ' ' || *q == '\t') q++;
            if (!strncmp(q, "```", 3)) break;
            end += strcspn(end, "\n");
            if (*end) end++;
        }
        const char *after = end;
        if (*after) after += strcspn(after, "\n");
        p = *after ? after + 1 : after;
        const char *b0 = body;
        while (b0 < end && isspace((unsigned char)*b0)) b0++;
        bool json_lang = ll == 4 && !strncasecmp(lang, "json", 4);
        if (!json_lang && !(ll == 0 && b0 < end && (*b0 == '{' || *b0 == '['))) continue;
        agent_example_check *c = &ex[a->n_examples++];
        c->index = block++;
        c->schema = claim_before(text, ls, a->arena);
        char *json = core_arena_strndup(a->arena, body, (size_t)(end - body));
        if (!json) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        int rc = agent_validate_example(idx, c->schema, json, a->arena, &c->found, &c->valid,
                                        &c->problem, err);
        if (rc) return rc;
        if (c->found && !c->valid) a->invalid_examples++;
    }
    return 0;
}

/* ---------------------------------------------------------------- cache */

static uint64_t cache_key(const agent_ask_options *opt, store_index *idx, const char *question,
                          const agent_llm_config *cfg, core_buf *b)
{
    core_buf_reset(b);
    core_buf_printf(b, "ask/1\n%016llx\n%s\n%s\n%s\n%zu\n%zu\n",
                    (unsigned long long)store_index_version(idx), cfg->base_url, cfg->model,
                    question, opt->budget, opt->k);
    for (size_t i = 0; opt->apis && opt->apis[i]; i++) core_buf_printf(b, "api=%s\n", opt->apis[i]);
    if (opt->mode != SEARCH_LEXICAL) /* lexical keys stay as they were */
        core_buf_printf(b, "mode=%d/%g\n", (int)opt->mode, opt->hybrid_weight);
    return core_hash64(b->data, b->len);
}

/* A cached answer for exactly this key text, not older than ttl; malloc'd or NULL. */
static char *cache_get(const char *path, const char *key_text, long ttl)
{
    char *text = agent_cache_read(path);
    if (!text) return NULL;
    json_object *root = json_tokener_parse(text);
    free(text);
    json_object *k, *c, *ans;
    char *out = NULL;
    if (root && json_object_object_get_ex(root, "key", &k) &&
        !strcmp(json_object_get_string(k), key_text) &&
        json_object_object_get_ex(root, "created", &c) &&
        json_object_object_get_ex(root, "answer", &ans) &&
        (double)time(NULL) - json_object_get_double(c) < (double)ttl)
        out = strdup(json_object_get_string(ans));
    json_object_put(root);
    return out;
}

static void cache_put(const char *path, const char *key_text, const char *model, const char *answer)
{
    core_buf b;
    core_buf_init(&b, 32u << 20);
    core_buf_printf(&b, "{\"created\":%lld,\"model\":", (long long)time(NULL));
    core_buf_json_str(&b, model, strlen(model));
    core_buf_puts(&b, ",\"key\":");
    core_buf_json_str(&b, key_text, strlen(key_text));
    core_buf_puts(&b, ",\"answer\":");
    core_buf_json_str(&b, answer, strlen(answer));
    core_buf_puts(&b, "}\n");
    if (!b.failed) agent_cache_write(path, b.data, b.len); /* a cache that cannot write is off */
    core_buf_free(&b);
}

/* ---------------------------------------------------------------- askAPI */

static int answer_with_llm(ask_state *st, agent_llm *llm, const char *question,
                           const agent_ask_options *opt, apidex_error *err)
{
    agent_answer *a = st->a;
    const agent_llm_config *cfg = agent_llm_get_config(llm);
    a->model = core_arena_strdup(a->arena, cfg->model);
    long ttl = opt->cache_ttl_s ? opt->cache_ttl_s : ASK_DEFAULT_TTL;
    bool use_cache = ttl > 0 && !(opt->cache_dir && !*opt->cache_dir);
    core_buf key, path;
    core_buf_init(&key, 1u << 20);
    core_buf_init(&path, 8192);
    if (use_cache) {
        uint64_t h = cache_key(opt, st->idx, question, cfg, &key);
        use_cache = !key.failed && !agent_cache_entry_path(opt->cache_dir, "ask", h, &path, NULL);
    }
    char *hit = use_cache ? cache_get(path.data, key.data, ttl) : NULL;
    int rc = 0;
    if (hit) {
        a->answer = core_arena_strdup(a->arena, hit);
        a->cached = true;
        free(hit);
        if (opt->on_delta && a->answer)
            opt->on_delta(opt->on_delta_ctx, a->answer, strlen(a->answer));
    } else {
        agent_chat *chat = agent_chat_new();
        core_buf user;
        core_buf_init(&user, 0);
        core_buf_printf(&user, "Context:\n\n%s\nQuestion: %s", a->context, question);
        rc = !chat || user.failed ? core_error_set(err, APIDEX_ENOMEM, "out of memory") : 0;
        if (!rc) rc = agent_chat_add(chat, "system", ask_system);
        if (!rc) rc = agent_chat_add(chat, "user", user.data);
        core_buf_free(&user);
        agent_reply r;
        memset(&r, 0, sizeof r);
        if (!rc) {
            agent_call_options co = {.stream = opt->on_delta ? 1 : 0,
                                     .on_delta = opt->on_delta,
                                     .on_delta_ctx = opt->on_delta_ctx};
            rc = agent_llm_chat(llm, chat, &co, &r, err);
        }
        if (!rc) {
            a->usage = r.usage;
            a->truncated = r.truncated;
            a->answer = core_arena_strdup(a->arena, r.content ? r.content : "");
            if (!a->answer) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            /* A cut answer is not worth keeping: the next ask may get a whole one. */
            if (!rc && use_cache && !r.truncated && *a->answer)
                cache_put(path.data, key.data, cfg->model, a->answer);
        }
        agent_reply_free(&r);
        agent_chat_free(chat);
    }
    core_buf_free(&key);
    core_buf_free(&path);
    if (!rc) rc = find_citations(a) ? core_error_set(err, APIDEX_ENOMEM, "out of memory") : 0;
    if (!rc) rc = check_examples(st->idx, a, err);
    return rc;
}

int agent_ask(store_index *idx, search_engine *eng, agent_llm *llm, const char *question,
              const agent_ask_options *opt, agent_answer **out, apidex_error *err)
{
    *out = NULL;
    agent_ask_options o = {0};
    if (opt) o = *opt;
    if (!o.budget) o.budget = ASK_DEFAULT_BUDGET;
    if (!idx) return core_error_set(err, APIDEX_EINVAL, "ask: no index");
    while (question && isspace((unsigned char)*question)) question++;
    if (!question || !*question) return core_error_set(err, APIDEX_EINVAL, "ask: empty question");
    double t0 = core_now();
    search_engine *own = NULL;
    int rc = eng ? 0 : search_engine_open(idx, &own, err);
    if (rc) return rc;
    if (!eng) eng = own;
    ask_state st = {.idx = idx};
    rc = store_operations(idx, &st.ops, &st.n_ops, err);
    if (!rc) rc = store_schemas(idx, &st.schemas, &st.n_schemas, err);
    if (!rc) rc = store_edges(idx, &st.edges, &st.n_edges, err);
    agent_answer *a = rc ? NULL : calloc(1, sizeof *a);
    if (!rc && (!a || !(a->arena = core_arena_new(0)))) {
        free(a);
        a = NULL;
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    st.a = a;
    if (!rc) {
        a->question = core_arena_strdup(a->arena, question);
        rc = retrieve(&st, eng, question, &o, err);
    }
    if (!rc) rc = assemble(&st, o.budget) ? core_error_set(err, APIDEX_ENOMEM, "out of memory") : 0;
    if (!rc) {
        if (!llm || o.context_only) {
            a->note = o.context_only
                          ? "context only: no LLM was asked"
                          : core_arena_printf(a->arena, "%s; here is the assembled context",
                                              agent_llm_setup_hint());
        } else if (!a->n_endpoints) {
            a->note = a->n_items ? "no endpoint fitted the budget: the LLM was not asked"
                                 : "no endpoint in the index matches the question: the LLM was "
                                   "not asked";
        } else {
            a->llm_used = true;
            rc = answer_with_llm(&st, llm, question, &o, err);
        }
    }
    search_engine_close(own);
    if (rc) {
        agent_answer_free(a);
        return rc;
    }
    a->elapsed_ms = (core_now() - t0) * 1000.0;
    *out = a;
    return 0;
}

void agent_answer_free(agent_answer *a)
{
    if (!a) return;
    core_arena_free(a->arena);
    free(a);
}

static void json_list(core_buf *b, const char *key, const char *const *v, size_t n)
{
    core_buf_printf(b, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++) {
        if (i) core_buf_putc(b, ',');
        core_buf_json_str(b, v[i], strlen(v[i]));
    }
    core_buf_putc(b, ']');
}

int agent_answer_write_json(const agent_answer *a, core_buf *b)
{
    core_buf_puts(b, "{\"question\":");
    core_buf_json_str_or_null(b, a->question);
    core_buf_printf(b, ",\"llm_used\":%s,\"model\":", a->llm_used ? "true" : "false");
    core_buf_json_str_or_null(b, a->model);
    core_buf_printf(b, ",\"cached\":%s,\"truncated\":%s,\"note\":", a->cached ? "true" : "false",
                    a->truncated ? "true" : "false");
    core_buf_json_str_or_null(b, a->note);
    core_buf_puts(b, ",\"answer\":");
    core_buf_json_str_or_null(b, a->answer);
    core_buf_printf(b, ",\"completeness\":%.4f,\"context_tokens\":%zu", a->completeness,
                    a->context_tokens);
    json_list(b, "endpoints", a->endpoints, a->n_endpoints);
    core_buf_puts(b, ",\"items\":[");
    for (size_t i = 0; i < a->n_items; i++) {
        const agent_context_item *it = &a->items[i];
        core_buf_puts(b, i ? ",{\"id\":" : "{\"id\":");
        core_buf_json_str(b, it->id, strlen(it->id));
        core_buf_printf(b, ",\"type\":\"%s\",\"tokens\":%zu,\"included\":%s}",
                        it->is_schema  ? "schema"
                        : it->producer ? "producer"
                                       : "endpoint",
                        it->tokens, it->included ? "true" : "false");
    }
    core_buf_putc(b, ']');
    json_list(b, "cited", a->cited, a->n_cited);
    json_list(b, "unknown_citations", a->unknown_citations, a->n_unknown_citations);
    core_buf_puts(b, ",\"examples\":[");
    for (size_t i = 0; i < a->n_examples; i++) {
        const agent_example_check *e = &a->examples[i];
        core_buf_printf(b, "%s{\"index\":%zu,\"schema\":", i ? "," : "", e->index);
        core_buf_json_str_or_null(b, e->schema);
        core_buf_printf(b, ",\"found\":%s,\"valid\":%s,\"problem\":", e->found ? "true" : "false",
                        e->valid ? "true" : "false");
        core_buf_json_str_or_null(b, e->problem);
        core_buf_putc(b, '}');
    }
    core_buf_printf(b,
                    "],\"invalid_examples\":%zu,\"tokens\":{\"prompt\":%zu,\"completion\":%zu,"
                    "\"total\":%zu,\"estimated\":%s},\"elapsed_ms\":%.1f,\"context\":",
                    a->invalid_examples, a->usage.prompt, a->usage.completion, a->usage.total,
                    a->usage.estimated ? "true" : "false", a->elapsed_ms);
    core_buf_json_str_or_null(b, a->context);
    core_buf_puts(b, "}\n");
    return b->failed ? APIDEX_ENOMEM : 0;
}
