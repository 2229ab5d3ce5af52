/*
 * The Discovery Agent (the chunking paper, §3.1, Fig. 2, Table 4): an LLM that splits a
 * task into fine-grained sub-tasks, retrieves endpoints for each through tools,
 * and returns the endpoints that solve the task, in call order.
 *
 * Two tool sets, as in the paper. "query": one tool returning the retrieval
 * results with full endpoint chunks (simple, but every result lands in the
 * chat history). "summary" (default, the paper's best): search_endpoints
 * returns method, path and one line per endpoint, and get_endpoint returns the
 * details of one endpoint only when the model asks. Both end with
 * submit_endpoints, a structured answer the agent validates against the index:
 * an endpoint the index does not have is dropped and reported, never returned.
 * A model that answers in prose instead is read for "METHOD /path" lines.
 */
#include "agent/agent_int.h"

#include <stdio.h>
#include <ctype.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

enum {
    DISCOVER_DEFAULT_K = 10,
    DISCOVER_DEFAULT_STEPS = 12,
    DISCOVER_MAX_STEPS = 64,
    DISCOVER_MAX_CUTS = 2,       /* replies cut by max_tokens before giving up */
    DISCOVER_MAX_ENDPOINTS = 64, /* submitted endpoints kept */
    DISCOVER_LINE_CHARS = 200    /* one-line summaries */
};

static const char *const summary_system =
    "You are the Discovery Agent. You find the API endpoints needed to accomplish a user's "
    "task, in the order they must be called. You do not call the endpoints; you select them.\n"
    "Work like this:\n"
    "1. Split the task into fine-grained sub-tasks, one per API call (for example: find the id "
    "of a thing by its name, then fetch details with that id).\n"
    "2. For each sub-task, call search_endpoints with a short description of that step. It "
    "returns candidate endpoints: method, path and a one-line summary.\n"
    "3. Call get_endpoint only when a summary is not enough to decide (for example to see which "
    "parameters an endpoint needs and which endpoint provides them).\n"
    "4. When you know every endpoint, call submit_endpoints once, with the endpoints in call "
    "order and a one-sentence rationale each. Submit only endpoints the tools returned, with "
    "method and path exactly as shown, and no more endpoints than the task needs.";

static const char *const query_system =
    "You are the Discovery Agent. You find the API endpoints needed to accomplish a user's "
    "task, in the order they must be called. You do not call the endpoints; you select them.\n"
    "Work like this:\n"
    "1. Split the task into fine-grained sub-tasks, one per API call (for example: find the id "
    "of a thing by its name, then fetch details with that id).\n"
    "2. For each sub-task, call query_endpoints with a short description of that step. It "
    "returns the documentation of the best matching endpoints.\n"
    "3. When you know every endpoint, call submit_endpoints once, with the endpoints in call "
    "order and a one-sentence rationale each. Submit only endpoints the tools returned, with "
    "method and path exactly as shown, and no more endpoints than the task needs.";

static const char *const query_params =
    "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\",\"description\":"
    "\"One sub-task in plain words, e.g. 'find a movie by its title'\"}},"
    "\"required\":[\"query\"]}";

static const char *const endpoint_params =
    "{\"type\":\"object\",\"properties\":{"
    "\"method\":{\"type\":\"string\",\"description\":\"HTTP method, e.g. GET\"},"
    "\"path\":{\"type\":\"string\",\"description\":\"The path exactly as search_endpoints showed "
    "it\"},"
    "\"api\":{\"type\":\"string\",\"description\":\"The API id shown in brackets (optional)\"}},"
    "\"required\":[\"method\",\"path\"]}";

static const char *const submit_params =
    "{\"type\":\"object\",\"properties\":{\"endpoints\":{\"type\":\"array\",\"description\":"
    "\"The endpoints that accomplish the task, in call order\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"method\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"
    "\"api\":{\"type\":\"string\"},\"rationale\":{\"type\":\"string\",\"description\":"
    "\"One sentence: what this call contributes\"}},"
    "\"required\":[\"method\",\"path\",\"rationale\"]}}},\"required\":[\"endpoints\"]}";

const char *agent_tools_mode_name(agent_tools_mode m)
{
    return m == AGENT_TOOLS_QUERY ? "query" : "summary";
}

/* ---------------------------------------------------------------- state */

typedef struct discover_state {
    agent_llm *llm;
    store_index *idx;
    search_engine *eng;
    const agent_discover_options *opt;
    const store_operation *ops;
    size_t n_ops;
    const store_chunk *chunks; /* non-NULL when the index holds LLM/summary texts */
    size_t n_chunks;
    agent_discovery *d;
    size_t cap_endpoints, cap_dropped, cap_subqueries;
    bool submitted;
    apidex_error *err;
} discover_state;

static void trace(discover_state *st, const char *event, const char *detail)
{
    if (st->opt->trace) st->opt->trace(st->opt->trace_ctx, event, detail ? detail : "");
}

static int push_str(core_arena *a, const char ***list, size_t *n, size_t *cap, const char *s)
{
    if (core_arena_array_grow(a, list, cap, *n, sizeof **list, 8)) return APIDEX_ENOMEM;
    const char *copy = core_arena_strdup(a, s ? s : "");
    if (!copy) return APIDEX_ENOMEM;
    (*list)[(*n)++] = copy;
    return 0;
}

/* ---------------------------------------------------------------- one-line summaries */

/* Appends at most DISCOVER_LINE_CHARS of the first line of s, cut on a UTF-8 boundary. */
static void put_line(core_buf *b, const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    size_t n = strcspn(s, "\r\n");
    if (n > DISCOVER_LINE_CHARS) {
        n = DISCOVER_LINE_CHARS;
        while (n && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
        core_buf_append(b, s, n);
        core_buf_puts(b, "...");
        return;
    }
    core_buf_append(b, s, n);
}

/* The index's summary text of an operation (summary/query strategy chunks), or NULL. */
static const char *chunk_text_of(const discover_state *st, const char *op_id)
{
    for (size_t i = 0; st->chunks && i < st->n_chunks; i++) {
        const store_chunk *c = &st->chunks[i];
        if (c->n_endpoints != 1 || strcmp(c->endpoints[0], op_id)) continue;
        const char *text = store_chunk_text(st->idx, i);
        if (text) return text;
    }
    return NULL;
}

static void put_summary(const discover_state *st, const store_operation *op, core_buf *b)
{
    const char *s = chunk_text_of(st, op->id);
    if (!s || !*s) s = op->summary;
    if (!s || !*s) s = op->capability;
    if (!s || !*s) s = op->description;
    if (s && *s) {
        core_buf_puts(b, " - ");
        put_line(b, s);
    }
}

/* ---------------------------------------------------------------- tools */

static const char *arg_str(json_object *args, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(args, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    const char *s = json_object_get_string(v);
    return s && *s ? s : NULL;
}

static int run_search(discover_state *st, const char *query, search_result **res)
{
    search_query q = {.text = query,
                      .k = st->opt->k ? st->opt->k : DISCOVER_DEFAULT_K,
                      .apis = st->opt->apis,
                      .mode = SEARCH_LEXICAL};
    return search_engine_run(st->eng, &q, res, st->err);
}

static int tool_search(discover_state *st, json_object *args, bool full, core_buf *out)
{
    const char *query = arg_str(args, "query");
    if (!query) query = arg_str(args, "task");
    if (!query) {
        core_buf_puts(out, "error: give {\"query\": \"one sub-task in plain words\"}");
        return 1;
    }
    agent_discovery *d = st->d;
    if (push_str(d->arena, &d->subqueries, &d->n_subqueries, &st->cap_subqueries, query))
        return APIDEX_ENOMEM;
    trace(st, "tool", query);
    search_result *res = NULL;
    int rc = run_search(st, query, &res);
    if (rc) return rc;
    if (!res->n_hits) {
        core_buf_puts(out, "No endpoint matches this sub-task; describe it in other words.");
    } else {
        core_buf_printf(out, "%zu endpoints for \"%s\":\n", res->n_hits, query);
        for (size_t i = 0; i < res->n_hits; i++) {
            const search_hit *h = &res->hits[i];
            long oi = store_find_operation(st->idx, h->id);
            const store_operation *op = oi >= 0 ? &st->ops[oi] : NULL;
            if (full) {
                core_buf_printf(out, "\n### %s %s [%s]\n", h->method, h->path, h->api);
                core_buf_puts(out, op ? store_operation_content(st->idx, (size_t)oi) : "");
                core_buf_putc(out, '\n');
            } else {
                core_buf_printf(out, "%zu. %s %s [%s]", i + 1, h->method, h->path, h->api);
                if (op) put_summary(st, op, out);
                core_buf_putc(out, '\n');
            }
        }
    }
    search_result_free(res);
    return out->failed ? APIDEX_ENOMEM : 0;
}

/* "GET /path" in one string (the "endpoint" or "id" argument) into method and path. */
static bool split_endpoint(const char *s, char *method, size_t mcap, const char **path)
{
    while (isspace((unsigned char)*s)) s++;
    size_t ml = 0;
    while (isalpha((unsigned char)s[ml])) ml++;
    if (!ml || ml >= mcap || !isspace((unsigned char)s[ml])) return false;
    memcpy(method, s, ml);
    method[ml] = '\0';
    s += ml;
    while (isspace((unsigned char)*s)) s++;
    *path = s;
    return *s != '\0';
}

static long resolve_args(discover_state *st, json_object *args, char *shown, size_t cap)
{
    const char *method = arg_str(args, "method"), *path = arg_str(args, "path");
    const char *api = arg_str(args, "api");
    char mbuf[16];
    const char *one = arg_str(args, "endpoint");
    if (!one) one = arg_str(args, "id");
    if (one && !path) {
        long oi = store_find_operation(st->idx, one); /* an operation id as such */
        if (oi >= 0) {
            snprintf(shown, cap, "%s", one);
            return oi;
        }
        if (split_endpoint(one, mbuf, sizeof mbuf, &path)) method = mbuf;
    }
    if (!path) {
        shown[0] = '\0';
        return -2;
    }
    snprintf(shown, cap, "%s %s", method ? method : "", path);
    long oi = agent_match_endpoint(st->idx, api, method, path);
    if (oi < 0 && api) oi = agent_match_endpoint(st->idx, NULL, method, path);
    return oi;
}

static int tool_get(discover_state *st, json_object *args, core_buf *out)
{
    char shown[512];
    long oi = resolve_args(st, args, shown, sizeof shown);
    trace(st, "tool", shown);
    if (oi == -2) {
        core_buf_puts(out, "error: give {\"method\": \"GET\", \"path\": \"/path/as/shown\"}");
        return 1;
    }
    if (oi < 0) {
        core_buf_printf(out,
                        "error: the index has no endpoint %s. Use search_endpoints to find "
                        "endpoints and copy method and path exactly.",
                        shown);
        return 1;
    }
    const store_operation *op = &st->ops[oi];
    core_buf_printf(out, "%s %s [%s]\n", op->method, op->path, op->api);
    core_buf_puts(out, store_operation_content(st->idx, (size_t)oi));
    return out->failed ? APIDEX_ENOMEM : 0;
}

static int add_endpoint(discover_state *st, long oi, const char *rationale)
{
    agent_discovery *d = st->d;
    const store_operation *op = &st->ops[oi];
    for (size_t i = 0; i < d->n_endpoints; i++)
        if (!strcmp(d->endpoints[i].id, op->id)) return 0; /* distinct, first position wins */
    if (d->n_endpoints >= DISCOVER_MAX_ENDPOINTS) return 0;
    if (core_arena_array_grow(d->arena, &d->endpoints, &st->cap_endpoints, d->n_endpoints,
                              sizeof *d->endpoints, 8))
        return APIDEX_ENOMEM;
    agent_endpoint *e = &d->endpoints[d->n_endpoints++];
    e->id = op->id;
    e->api = op->api;
    e->method = op->method;
    e->path = op->path;
    e->rationale = core_arena_strdup(d->arena, rationale ? rationale : "");
    return e->rationale ? 0 : APIDEX_ENOMEM;
}

/* Validates one named endpoint: kept when the index has it, dropped (and reported) if not. */
static int take_endpoint(discover_state *st, const char *api, const char *method, const char *path,
                         const char *rationale, size_t *dropped)
{
    long oi = agent_match_endpoint(st->idx, api, method, path);
    if (oi < 0 && api) oi = agent_match_endpoint(st->idx, NULL, method, path);
    if (oi >= 0) return add_endpoint(st, oi, rationale);
    core_buf b;
    core_buf_init(&b, 4096);
    core_buf_printf(&b, "%s %s", method ? method : "?", path);
    int rc = b.failed ? APIDEX_ENOMEM
                      : push_str(st->d->arena, &st->d->dropped, &st->d->n_dropped, &st->cap_dropped,
                                 b.data);
    if (!rc) trace(st, "drop", b.data);
    core_buf_free(&b);
    (*dropped)++;
    return rc;
}

static int tool_submit(discover_state *st, json_object *args, core_buf *out)
{
    json_object *list = NULL;
    if (json_object_is_type(args, json_type_array))
        list = args;
    else
        json_object_object_get_ex(args, "endpoints", &list);
    if (!list || !json_object_is_type(list, json_type_array)) {
        core_buf_puts(out, "error: give {\"endpoints\": [{\"method\", \"path\", \"rationale\"}, "
                           "...]} in call order");
        return 1;
    }
    size_t dropped = 0, before = st->d->n_endpoints;
    int rc = 0;
    for (size_t i = 0; i < json_object_array_length(list) && !rc; i++) {
        json_object *it = json_object_array_get_idx(list, i);
        if (json_object_is_type(it, json_type_string)) {
            char m[16];
            const char *path;
            if (split_endpoint(json_object_get_string(it), m, sizeof m, &path))
                rc = take_endpoint(st, NULL, m, path, "", &dropped);
            else
                dropped++;
            continue;
        }
        const char *path = arg_str(it, "path");
        if (!path) {
            dropped++;
            continue;
        }
        const char *why = arg_str(it, "rationale");
        if (!why) why = arg_str(it, "reason");
        rc = take_endpoint(st, arg_str(it, "api"), arg_str(it, "method"), path, why, &dropped);
    }
    if (rc) return rc;
    size_t kept = st->d->n_endpoints - before;
    st->submitted = true;
    core_buf_printf(out, "Received %zu endpoint%s.", kept, kept == 1 ? "" : "s");
    if (dropped) core_buf_printf(out, " Dropped %zu that the index does not have.", dropped);
    return 0;
}

/* ---------------------------------------------------------------- prose answers */

static bool is_method(const char *s, size_t n)
{
    static const char *const methods[] = {"GET",  "PUT",     "POST",  "DELETE", "PATCH",
                                          "HEAD", "OPTIONS", "TRACE", NULL};
    for (size_t i = 0; methods[i]; i++)
        if (strlen(methods[i]) == n && !memcmp(methods[i], s, n)) return true;
    return false;
}

/* A model that answers in text: every "METHOD /path" in it, in order, rest of line as reason. */
static int take_prose(discover_state *st, const char *text)
{
    size_t dropped = 0;
    const char *p = text;
    int rc = 0;
    while (*p && !rc) {
        const char *eol = p + strcspn(p, "\n");
        for (const char *s = p; s < eol; s++) {
            if (!isupper((unsigned char)*s) || (s > p && isalnum((unsigned char)s[-1]))) continue;
            size_t wn = 0;
            while (s + wn < eol && isupper((unsigned char)s[wn])) wn++;
            if (!is_method(s, wn)) continue;
            const char *q = s + wn;
            while (q < eol && (*q == ' ' || *q == '\t' || *q == '`')) q++;
            if (q == s + wn || q >= eol || (*q != '/' && strncmp(q, "http", 4))) continue;
            size_t pl = strcspn(q, " \t\r\n`\"',)*");
            if ((size_t)(eol - q) < pl) pl = (size_t)(eol - q);
            char method[16], path[1024];
            snprintf(method, sizeof method, "%.*s", (int)wn, s);
            snprintf(path, sizeof path, "%.*s", (int)pl, q);
            const char *why = q + pl;
            for (;;) { /* separators before the reason: " - ", ": ", dashes, markdown */
                if (why < eol && strchr(" \t`*)-:.,", *why))
                    why++;
                else if (eol - why >= 3 && !memcmp(why, "\xe2\x80", 2) &&
                         (why[2] == '\x93' || why[2] == '\x94'))
                    why += 3;
                else
                    break;
            }
            char reason[512];
            snprintf(reason, sizeof reason, "%.*s", (int)(eol - why), why);
            rc = take_endpoint(st, NULL, method, path, reason, &dropped);
            break; /* one endpoint per line */
        }
        p = *eol ? eol + 1 : eol;
    }
    return rc;
}

/* ---------------------------------------------------------------- the loop */

static int dispatch(discover_state *st, const agent_tool_call *call, bool cut, core_buf *out,
                    bool *tool_error)
{
    *tool_error = false;
    json_tokener *tok = json_tokener_new();
    const char *a = call->arguments && *call->arguments ? call->arguments : "{}";
    json_object *args = tok ? json_tokener_parse_ex(tok, a, (int)strlen(a)) : NULL;
    bool complete = tok && json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    int rc = 0;
    if (!args || !complete ||
        !(json_object_is_type(args, json_type_object) ||
          (json_object_is_type(args, json_type_array) &&
           !strcmp(call->name, "submit_endpoints")))) {
        core_buf_printf(out,
                        "error: the arguments of %s are not a valid JSON object%s. Call the "
                        "tool again with a JSON object.",
                        call->name, cut ? " (your reply was cut off by the token limit)" : "");
        rc = 1;
    } else if (!strcmp(call->name, "search_endpoints") && st->opt->tools == AGENT_TOOLS_SUMMARY) {
        rc = tool_search(st, args, false, out);
    } else if (!strcmp(call->name, "query_endpoints") && st->opt->tools == AGENT_TOOLS_QUERY) {
        rc = tool_search(st, args, true, out);
    } else if (!strcmp(call->name, "get_endpoint") && st->opt->tools == AGENT_TOOLS_SUMMARY) {
        rc = tool_get(st, args, out);
    } else if (!strcmp(call->name, "submit_endpoints")) {
        rc = tool_submit(st, args, out);
    } else {
        core_buf_printf(out,
                        "error: there is no tool named '%s'; the tools are %s and "
                        "submit_endpoints.",
                        call->name,
                        st->opt->tools == AGENT_TOOLS_QUERY ? "query_endpoints"
                                                            : "search_endpoints, get_endpoint");
        rc = 1;
    }
    json_object_put(args);
    if (rc == 1) {
        *tool_error = true;
        rc = 0;
    }
    if (!rc && out->failed) rc = APIDEX_ENOMEM;
    return rc;
}

static int setup_chat(discover_state *st, const char *task, agent_chat **out)
{
    agent_chat *c = agent_chat_new();
    if (!c) return APIDEX_ENOMEM;
    bool q = st->opt->tools == AGENT_TOOLS_QUERY;
    int rc = agent_chat_add(c, "system", q ? query_system : summary_system);
    if (!rc) rc = agent_chat_add(c, "user", task);
    if (!rc && q)
        rc = agent_chat_add_tool(c, "query_endpoints",
                                 "Retrieve the documentation of the endpoints best matching one "
                                 "sub-task.",
                                 query_params);
    if (!rc && !q)
        rc = agent_chat_add_tool(c, "search_endpoints",
                                 "Find candidate endpoints for one sub-task: method, path and a "
                                 "one-line summary each.",
                                 query_params);
    if (!rc && !q)
        rc = agent_chat_add_tool(c, "get_endpoint",
                                 "Get the full documentation of one endpoint (parameters, request "
                                 "body, responses).",
                                 endpoint_params);
    if (!rc)
        rc = agent_chat_add_tool(c, "submit_endpoints",
                                 "Submit the final answer: the endpoints that accomplish the task, "
                                 "in call order, each with a one-sentence rationale.",
                                 submit_params);
    if (rc) {
        agent_chat_free(c);
        return rc == APIDEX_EINVAL ? APIDEX_ENOMEM : rc;
    }
    *out = c;
    return 0;
}

static int loop(discover_state *st, agent_chat *chat)
{
    agent_discovery *d = st->d;
    unsigned max_steps = st->opt->max_steps ? st->opt->max_steps : DISCOVER_DEFAULT_STEPS;
    if (max_steps > DISCOVER_MAX_STEPS) max_steps = DISCOVER_MAX_STEPS;
    unsigned cuts = 0;
    core_buf result;
    core_buf_init(&result, 16u << 20);
    int rc = 0;
    while (!rc && !st->submitted) {
        if (d->steps >= max_steps) {
            d->note = "step limit reached before the model submitted endpoints";
            break;
        }
        /* The last call may only submit: the agent always ends with an answer. The words
           are for servers that ignore tool_choice. */
        bool last = d->steps + 1 == max_steps;
        if (last && d->steps)
            rc = agent_chat_add(chat, "user",
                                "This is the last step: call submit_endpoints now with the "
                                "endpoints found so far.");
        if (rc) break;
        agent_call_options co = {.tool_choice = last ? "submit_endpoints" : "auto"};
        agent_reply r;
        char detail[64];
        snprintf(detail, sizeof detail, "step %u", d->steps + 1);
        trace(st, "call", detail);
        rc = agent_llm_chat(st->llm, chat, &co, &r, st->err);
        if (rc == APIDEX_EINVAL && last) {
            /* Some servers refuse a named tool_choice: ask once more without forcing. */
            trace(st, "retry", "the server refused tool_choice; asking without it");
            co.tool_choice = "auto";
            rc = agent_llm_chat(st->llm, chat, &co, &r, st->err);
        }
        if (rc) break;
        d->steps++;
        agent_usage_add(&d->usage, &r.usage);
        if (r.truncated) cuts++;
        if (!r.n_tool_calls) {
            if (r.truncated && cuts <= DISCOVER_MAX_CUTS) {
                /* Cut off mid-answer: ask again, shorter, rather than read half a list. */
                rc = agent_chat_add_reply(chat, &r);
                if (!rc)
                    rc = agent_chat_add(chat, "user",
                                        "Your reply was cut off by the token limit. Answer again, "
                                        "shorter: call one tool at a time.");
                agent_reply_free(&r);
                continue;
            }
            if (r.truncated) {
                rc = core_error_set(st->err, APIDEX_ELIMIT,
                                    "the model's replies were cut by max_tokens (%d) %u times; "
                                    "raise --max-tokens",
                                    agent_llm_get_config(st->llm)->max_tokens, cuts);
                agent_reply_free(&r);
                break;
            }
            trace(st, "answer", r.content);
            if (r.content) rc = take_prose(st, r.content);
            st->submitted = true;
            if (!d->n_endpoints && !d->n_dropped) d->note = "the model answered without endpoints";
            agent_reply_free(&r);
            break;
        }
        rc = agent_chat_add_reply(chat, &r);
        for (size_t i = 0; i < r.n_tool_calls && !rc; i++) {
            core_buf_reset(&result);
            bool tool_error = false;
            rc = dispatch(st, &r.tool_calls[i], r.truncated, &result, &tool_error);
            if (tool_error) {
                d->tool_errors++;
                trace(st, "tool-error", result.data);
            }
            if (!rc)
                rc = agent_chat_add_tool_result(chat, r.tool_calls[i].id,
                                                result.data ? result.data : "");
        }
        agent_reply_free(&r);
    }
    core_buf_free(&result);
    return rc;
}

int agent_discover(agent_llm *llm, store_index *idx, search_engine *eng, const char *task,
                   const agent_discover_options *opt, agent_discovery **out, apidex_error *err)
{
    *out = NULL;
    agent_discover_options defaults = {0};
    if (!opt) opt = &defaults;
    if (!llm || !idx || !eng) return core_error_set(err, APIDEX_EINVAL, "agent: no LLM or index");
    if (!task || !*task) return core_error_set(err, APIDEX_EINVAL, "agent: empty task");
    double t0 = core_now();
    discover_state st = {.llm = llm, .idx = idx, .eng = eng, .opt = opt, .err = err};
    int rc = store_operations(idx, &st.ops, &st.n_ops, err);
    if (rc) return rc;
    /* Summary/query indexes keep a (possibly LLM-written) text per endpoint: the best line. */
    store_info info;
    if (!store_index_info(idx, &info, NULL) && info.strategy &&
        (!strncmp(info.strategy, "summary", 7) || !strncmp(info.strategy, "query", 5)) &&
        store_chunks(idx, &st.chunks, &st.n_chunks, NULL))
        st.chunks = NULL;
    agent_discovery *d = calloc(1, sizeof *d);
    if (!d || !(d->arena = core_arena_new(0))) {
        free(d);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    st.d = d;
    agent_chat *chat = NULL;
    rc = setup_chat(&st, task, &chat);
    if (rc) core_error_set(err, rc, "out of memory");
    if (!rc) rc = loop(&st, chat);
    agent_chat_free(chat);
    d->elapsed_ms = (core_now() - t0) * 1000.0;
    if (rc) {
        if (err && !err->code) core_error_set(err, rc, "%s", apidex_strerror(rc));
        agent_discovery_free(d);
        return rc;
    }
    *out = d;
    return 0;
}

void agent_discovery_free(agent_discovery *d)
{
    if (!d) return;
    core_arena_free(d->arena);
    free(d);
}

static void json_strs(core_buf *b, const char *key, const char *const *v, size_t n)
{
    core_buf_printf(b, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++) {
        if (i) core_buf_putc(b, ',');
        core_buf_json_str(b, v[i], strlen(v[i]));
    }
    core_buf_putc(b, ']');
}

int agent_discovery_write_json(const agent_discovery *d, const char *task, agent_tools_mode tools,
                               core_buf *b)
{
    core_buf_puts(b, "{\"task\":");
    core_buf_json_str(b, task ? task : "", task ? strlen(task) : 0);
    core_buf_printf(b, ",\"tools\":\"%s\",\"endpoints\":[", agent_tools_mode_name(tools));
    for (size_t i = 0; i < d->n_endpoints; i++) {
        const agent_endpoint *e = &d->endpoints[i];
        core_buf_puts(b, i ? ",{\"id\":" : "{\"id\":");
        core_buf_json_str(b, e->id, strlen(e->id));
        core_buf_puts(b, ",\"api\":");
        core_buf_json_str(b, e->api, strlen(e->api));
        core_buf_puts(b, ",\"method\":");
        core_buf_json_str(b, e->method, strlen(e->method));
        core_buf_puts(b, ",\"path\":");
        core_buf_json_str(b, e->path, strlen(e->path));
        core_buf_puts(b, ",\"rationale\":");
        core_buf_json_str(b, e->rationale, strlen(e->rationale));
        core_buf_putc(b, '}');
    }
    core_buf_putc(b, ']');
    json_strs(b, "dropped", d->dropped, d->n_dropped);
    json_strs(b, "subqueries", d->subqueries, d->n_subqueries);
    core_buf_printf(b,
                    ",\"tokens\":{\"prompt\":%zu,\"completion\":%zu,\"total\":%zu,"
                    "\"estimated\":%s},\"llm_calls\":%zu,\"steps\":%u,\"tool_errors\":%u,"
                    "\"elapsed_ms\":%.1f,\"note\":",
                    d->usage.prompt, d->usage.completion, d->usage.total,
                    d->usage.estimated ? "true" : "false", d->usage.calls, d->steps, d->tool_errors,
                    d->elapsed_ms);
    if (d->note)
        core_buf_json_str(b, d->note, strlen(d->note));
    else
        core_buf_puts(b, "null");
    core_buf_puts(b, "}\n");
    return b->failed ? APIDEX_ENOMEM : 0;
}
