/*
 * The LLM client: OpenAI-compatible Chat Completions through the outbound layer (net/net.h),
 * with tool calling, optional streaming (server-sent events), retries with backoff and
 * token accounting. The base URL the user configured is the one origin it may reach (loopback
 * included: a local Ollama or llama.cpp is common); nothing is followed elsewhere.
 */
#include "agent/agent_int.h"

#include "net/net.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define LLM_MAX_REPLY (64u << 20) /* a chat answer is KBs; a cap keeps a bad server harmless */
#define LLM_MAX_LINE  (16u << 20) /* one SSE line */

/* ---------------------------------------------------------------- usage */

void agent_usage_add(agent_usage *sum, const agent_usage *u)
{
    sum->prompt += u->prompt;
    sum->completion += u->completion;
    sum->total += u->total;
    sum->calls += u->calls;
    sum->estimated = sum->estimated || u->estimated;
}

size_t agent_count_tokens(const char *s)
{
    const text_bpe *bpe = text_bpe_default();
    if (!s || !*s) return 0;
    /* Without the tokenizer, about four bytes a token is the usual rule of thumb. */
    return bpe ? text_bpe_count(bpe, s, strlen(s)) : (strlen(s) + 3) / 4;
}

/* ---------------------------------------------------------------- conversations */

struct agent_chat {
    json_object *messages;
    json_object *tools;
};

agent_chat *agent_chat_new(void)
{
    agent_chat *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->messages = json_object_new_array();
    c->tools = json_object_new_array();
    if (!c->messages || !c->tools) {
        agent_chat_free(c);
        return NULL;
    }
    return c;
}

void agent_chat_free(agent_chat *c)
{
    if (!c) return;
    json_object_put(c->messages);
    json_object_put(c->tools);
    free(c);
}

size_t agent_chat_count(const agent_chat *c)
{
    return c ? json_object_array_length(c->messages) : 0;
}

static json_object *jstr(const char *s)
{
    return json_object_new_string(s ? s : "");
}

static int push_message(agent_chat *c, json_object *m)
{
    if (!m) return APIDEX_ENOMEM;
    if (json_object_array_add(c->messages, m)) {
        json_object_put(m);
        return APIDEX_ENOMEM;
    }
    return 0;
}

int agent_chat_add(agent_chat *c, const char *role, const char *content)
{
    json_object *m = json_object_new_object();
    if (!m) return APIDEX_ENOMEM;
    json_object_object_add(m, "role", jstr(role));
    json_object_object_add(m, "content", jstr(content));
    return push_message(c, m);
}

int agent_chat_add_reply(agent_chat *c, const agent_reply *r)
{
    json_object *m = json_object_new_object();
    if (!m) return APIDEX_ENOMEM;
    json_object_object_add(m, "role", jstr("assistant"));
    if (r->content || !r->n_tool_calls)
        json_object_object_add(m, "content", jstr(r->content));
    else
        json_object_object_add(m, "content", NULL);
    if (r->n_tool_calls) {
        json_object *calls = json_object_new_array();
        for (size_t i = 0; calls && i < r->n_tool_calls; i++) {
            json_object *call = json_object_new_object(), *fn = json_object_new_object();
            json_object_object_add(call, "id", jstr(r->tool_calls[i].id));
            json_object_object_add(call, "type", jstr("function"));
            json_object_object_add(fn, "name", jstr(r->tool_calls[i].name));
            json_object_object_add(fn, "arguments", jstr(r->tool_calls[i].arguments));
            json_object_object_add(call, "function", fn);
            json_object_array_add(calls, call);
        }
        json_object_object_add(m, "tool_calls", calls);
    }
    return push_message(c, m);
}

int agent_chat_add_tool_result(agent_chat *c, const char *tool_call_id, const char *content)
{
    json_object *m = json_object_new_object();
    if (!m) return APIDEX_ENOMEM;
    json_object_object_add(m, "role", jstr("tool"));
    json_object_object_add(m, "tool_call_id", jstr(tool_call_id));
    json_object_object_add(m, "content", jstr(content));
    return push_message(c, m);
}

int agent_chat_add_tool(agent_chat *c, const char *name, const char *description,
                        const char *parameters_json)
{
    json_object *params = json_tokener_parse(parameters_json ? parameters_json : "{}");
    if (!params || !json_object_is_type(params, json_type_object)) {
        json_object_put(params);
        return APIDEX_EINVAL;
    }
    json_object *t = json_object_new_object(), *fn = json_object_new_object();
    json_object_object_add(fn, "name", jstr(name));
    json_object_object_add(fn, "description", jstr(description));
    json_object_object_add(fn, "parameters", params);
    json_object_object_add(t, "type", jstr("function"));
    json_object_object_add(t, "function", fn);
    if (json_object_array_add(c->tools, t)) {
        json_object_put(t);
        return APIDEX_ENOMEM;
    }
    return 0;
}

void agent_reply_free(agent_reply *r)
{
    if (!r) return;
    free(r->content);
    for (size_t i = 0; i < r->n_tool_calls; i++) {
        free(r->tool_calls[i].id);
        free(r->tool_calls[i].name);
        free(r->tool_calls[i].arguments);
    }
    free(r->tool_calls);
    memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- client */

struct agent_llm {
    agent_llm_config cfg;
    char *url;
    char *auth; /* "Bearer ..." or NULL */
    char host[256];
    /* Set once a server said it wants max_completion_tokens and its default temperature
       (OpenAI's reasoning models): later requests are built that way from the start. */
    atomic_int reasoning_params;
};

/* Splits "scheme://host[:port]/path" into host and whether a path follows. */
static bool url_parts(const char *url, char *host, size_t cap, bool *has_path)
{
    const char *p = strstr(url, "://");
    if (!p) return false;
    size_t sl = (size_t)(p - url);
    if (!((sl == 4 && !strncasecmp(url, "http", 4)) || (sl == 5 && !strncasecmp(url, "https", 5))))
        return false;
    p += 3;
    const char *end = p + strcspn(p, "/?#");
    const char *at = memchr(p, '@', (size_t)(end - p));
    if (at) p = at + 1;
    const char *colon = *p == '[' ? strchr(p, ']') : memchr(p, ':', (size_t)(end - p));
    const char *hend = colon && colon < end ? (*p == '[' ? colon + 1 : colon) : end;
    size_t hl = (size_t)(hend - p);
    if (!hl || hl >= cap) return false;
    memcpy(host, p, hl);
    host[hl] = '\0';
    size_t rest = strspn(end, "/");
    *has_path = end[rest] != '\0' && end[rest] != '?' && end[rest] != '#';
    return true;
}

/* {base}/chat/completions; a bare host gets the usual /v1 first. */
static char *chat_url(const char *base, bool has_path)
{
    size_t n = strlen(base);
    while (n > 0 && base[n - 1] == '/') n--;
    const char *suffix = has_path ? "/chat/completions" : "/v1/chat/completions";
    if (n >= 17 && !memcmp(base + n - 17, "/chat/completions", 17)) suffix = "";
    size_t sl = strlen(suffix);
    char *url = malloc(n + sl + 1);
    if (!url) return NULL;
    memcpy(url, base, n);
    memcpy(url + n, suffix, sl + 1);
    return url;
}

/* Hosted APIs that always need a key: refuse early instead of sending a keyless request. */
static bool needs_key(const char *host)
{
    static const char *const hosted[] = {"api.openai.com",
                                         "api.anthropic.com",
                                         "openrouter.ai",
                                         "api.groq.com",
                                         "api.mistral.ai",
                                         "api.deepseek.com",
                                         "api.together.xyz",
                                         "generativelanguage.googleapis.com",
                                         NULL};
    for (size_t i = 0; hosted[i]; i++)
        if (!strcasecmp(host, hosted[i])) return true;
    return false;
}

int agent_llm_open(const agent_llm_config *c, agent_llm **out, apidex_error *err)
{
    *out = NULL;
    if (!agent_llm_configured(c))
        return core_error_set(err, APIDEX_EINVAL, "%s", agent_llm_setup_hint());
    agent_llm *llm = calloc(1, sizeof *llm);
    if (!llm) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    llm->cfg = *c;
    bool has_path = false;
    if (!url_parts(c->base_url, llm->host, sizeof llm->host, &has_path)) {
        free(llm);
        return core_error_set(err, APIDEX_EINVAL,
                              "bad LLM base URL '%s': expected http(s)://host[:port][/path] "
                              "(%s)",
                              c->base_url, AGENT_ENV_BASE_URL);
    }
    const char *problem = net_base_url_problem(c->base_url);
    if (problem) {
        free(llm);
        return core_error_set(err, APIDEX_EINVAL, "bad LLM base URL '%s': %s (%s)", c->base_url,
                              problem, AGENT_ENV_BASE_URL);
    }
    if (!c->api_key[0] && needs_key(llm->host)) {
        free(llm);
        return core_error_set(err, APIDEX_EINVAL,
                              "%s needs an API key: set %s (or api_key in the config file)",
                              c->base_url, AGENT_ENV_API_KEY);
    }
    llm->url = chat_url(c->base_url, has_path);
    if (c->api_key[0]) {
        core_buf a;
        core_buf_init(&a, 4096);
        core_buf_printf(&a, "Bearer %s", c->api_key);
        llm->auth = a.failed ? NULL : core_buf_steal(&a, NULL);
        core_buf_free(&a);
    }
    if (!llm->url || (c->api_key[0] && !llm->auth)) {
        agent_llm_close(llm);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    *out = llm;
    return 0;
}

void agent_llm_close(agent_llm *llm)
{
    if (!llm) return;
    if (llm->auth) memset(llm->auth, 0, strlen(llm->auth));
    free(llm->auth);
    free(llm->url);
    memset(&llm->cfg.api_key, 0, sizeof llm->cfg.api_key);
    free(llm);
}

const agent_llm_config *agent_llm_get_config(const agent_llm *llm)
{
    return &llm->cfg;
}

const char *agent_llm_url(const agent_llm *llm)
{
    return llm->url;
}

/* ---------------------------------------------------------------- request */

static int tool_exists(const agent_chat *chat, const char *name)
{
    size_t n = json_object_array_length(chat->tools);
    for (size_t i = 0; i < n; i++) {
        json_object *t = json_object_array_get_idx(chat->tools, i), *fn, *nm;
        if (json_object_object_get_ex(t, "function", &fn) &&
            json_object_object_get_ex(fn, "name", &nm) && !strcmp(json_object_get_string(nm), name))
            return 1;
    }
    return 0;
}

static char *build_request(const agent_llm *llm, const agent_chat *chat,
                           const agent_call_options *opt, bool stream, apidex_error *err)
{
    json_object *req = json_object_new_object();
    if (!req) return NULL;
    json_object_object_add(req, "model", jstr(llm->cfg.model));
    json_object_object_add(req, "messages", json_object_get(chat->messages));
    bool reasoning = atomic_load(&((agent_llm *)llm)->reasoning_params) != 0;
    if (!reasoning)
        json_object_object_add(req, "temperature", json_object_new_double(llm->cfg.temperature));
    int max_tokens = opt->max_tokens > 0 ? opt->max_tokens : llm->cfg.max_tokens;
    if (max_tokens > 0)
        json_object_object_add(req, reasoning ? "max_completion_tokens" : "max_tokens",
                               json_object_new_int(max_tokens));
    if (json_object_array_length(chat->tools)) {
        json_object_object_add(req, "tools", json_object_get(chat->tools));
        const char *tc = opt->tool_choice ? opt->tool_choice : "auto";
        if (!strcmp(tc, "auto") || !strcmp(tc, "none") || !strcmp(tc, "required")) {
            json_object_object_add(req, "tool_choice", jstr(tc));
        } else if (tool_exists(chat, tc)) {
            json_object *choice = json_object_new_object(), *fn = json_object_new_object();
            json_object_object_add(fn, "name", jstr(tc));
            json_object_object_add(choice, "type", jstr("function"));
            json_object_object_add(choice, "function", fn);
            json_object_object_add(req, "tool_choice", choice);
        } else {
            json_object_put(req);
            core_error_set(err, APIDEX_EINVAL, "tool_choice names no offered tool: %s", tc);
            return NULL;
        }
    }
    if (opt->json_mode) {
        json_object *rf = json_object_new_object();
        json_object_object_add(rf, "type", jstr("json_object"));
        json_object_object_add(req, "response_format", rf);
    }
    if (stream) {
        json_object_object_add(req, "stream", json_object_new_boolean(1));
        json_object *so = json_object_new_object();
        json_object_object_add(so, "include_usage", json_object_new_boolean(1));
        json_object_object_add(req, "stream_options", so);
    }
    const char *s = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN |
                                                            JSON_C_TO_STRING_NOSLASHESCAPE);
    char *copy = s ? strdup(s) : NULL;
    json_object_put(req);
    if (!copy) core_error_set(err, APIDEX_ENOMEM, "out of memory");
    return copy;
}

/* ---------------------------------------------------------------- reply parsing */

/* Accumulates an answer, whether it arrives whole or as stream deltas. */
typedef struct reply_acc {
    core_buf content;
    bool has_content;
    struct {
        core_buf id, name, args;
    } calls[AGENT_MAX_TOOL_CALLS];
    size_t n_calls;
    char finish_reason[32];
    long prompt_tokens, completion_tokens, total_tokens; /* -1 = not sent */
    char error[512]; /* an error object inside a 200 answer or a stream */
    bool done;
} reply_acc;

static void acc_init(reply_acc *a)
{
    memset(a, 0, sizeof *a);
    core_buf_init(&a->content, LLM_MAX_REPLY);
    a->prompt_tokens = a->completion_tokens = a->total_tokens = -1;
}

static void acc_free(reply_acc *a)
{
    core_buf_free(&a->content);
    for (size_t i = 0; i < AGENT_MAX_TOOL_CALLS; i++) {
        core_buf_free(&a->calls[i].id);
        core_buf_free(&a->calls[i].name);
        core_buf_free(&a->calls[i].args);
    }
}

/* Content is a string, or (some servers) an array of {"type":"text","text":...} parts. */
static void acc_content(reply_acc *a, json_object *content, const agent_call_options *opt)
{
    if (!content) return;
    if (json_object_is_type(content, json_type_string)) {
        const char *s = json_object_get_string(content);
        size_t n = (size_t)json_object_get_string_len(content);
        core_buf_append(&a->content, s, n);
        a->has_content = true;
        if (opt->on_delta && n) opt->on_delta(opt->on_delta_ctx, s, n);
    } else if (json_object_is_type(content, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(content); i++) {
            json_object *part = json_object_array_get_idx(content, i), *t;
            if (json_object_object_get_ex(part, "text", &t)) acc_content(a, t, opt);
        }
    }
}

static void set_error_from(reply_acc *a, json_object *e)
{
    json_object *m = NULL;
    if (json_object_is_type(e, json_type_string))
        snprintf(a->error, sizeof a->error, "%s", json_object_get_string(e));
    else if (json_object_object_get_ex(e, "message", &m))
        snprintf(a->error, sizeof a->error, "%s", json_object_get_string(m));
    else
        snprintf(a->error, sizeof a->error, "%s", json_object_to_json_string(e));
    if (!a->error[0]) snprintf(a->error, sizeof a->error, "error without a message");
}

static void acc_usage(reply_acc *a, json_object *root)
{
    json_object *u, *v;
    if (!json_object_object_get_ex(root, "usage", &u) || !json_object_is_type(u, json_type_object))
        return;
    if (json_object_object_get_ex(u, "prompt_tokens", &v))
        a->prompt_tokens = json_object_get_int64(v);
    if (json_object_object_get_ex(u, "completion_tokens", &v))
        a->completion_tokens = json_object_get_int64(v);
    if (json_object_object_get_ex(u, "total_tokens", &v))
        a->total_tokens = json_object_get_int64(v);
}

/* Tool calls of a message or of a stream delta (then pieces are appended by index). */
static int acc_tool_calls(reply_acc *a, json_object *calls, bool delta)
{
    if (!json_object_is_type(calls, json_type_array)) return calls ? -1 : 0;
    for (size_t i = 0; i < json_object_array_length(calls); i++) {
        json_object *call = json_object_array_get_idx(calls, i), *v, *fn = NULL;
        size_t slot = delta ? a->n_calls : i;
        if (delta) {
            if (json_object_object_get_ex(call, "index", &v))
                slot = (size_t)json_object_get_int(v);
            else if (a->n_calls)
                slot = a->n_calls - 1;
        }
        if (slot >= AGENT_MAX_TOOL_CALLS) return -1;
        if (slot + 1 > a->n_calls) {
            for (size_t k = a->n_calls; k <= slot; k++) {
                core_buf_init(&a->calls[k].id, 4096);
                core_buf_init(&a->calls[k].name, 4096);
                core_buf_init(&a->calls[k].args, LLM_MAX_REPLY);
            }
            a->n_calls = slot + 1;
        }
        if (json_object_object_get_ex(call, "id", &v) && json_object_is_type(v, json_type_string) &&
            !a->calls[slot].id.len)
            core_buf_puts(&a->calls[slot].id, json_object_get_string(v));
        json_object_object_get_ex(call, "function", &fn);
        if (!fn) continue;
        if (json_object_object_get_ex(fn, "name", &v) && json_object_is_type(v, json_type_string)) {
            if (!delta || !a->calls[slot].name.len)
                core_buf_puts(&a->calls[slot].name, json_object_get_string(v));
        }
        if (json_object_object_get_ex(fn, "arguments", &v)) {
            /* A few servers send the arguments as an object rather than JSON text. */
            const char *s = json_object_is_type(v, json_type_string)
                                ? json_object_get_string(v)
                                : json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
            if (s) core_buf_puts(&a->calls[slot].args, s);
        }
    }
    return 0;
}

static void acc_finish(reply_acc *a, json_object *choice)
{
    json_object *fr;
    if (json_object_object_get_ex(choice, "finish_reason", &fr) &&
        json_object_is_type(fr, json_type_string))
        snprintf(a->finish_reason, sizeof a->finish_reason, "%s", json_object_get_string(fr));
}

/* A whole (non-streamed) chat completion. */
static int parse_completion(reply_acc *a, const char *body, size_t len,
                            const agent_call_options *opt, char *why, size_t why_cap)
{
    json_tokener *tok = json_tokener_new();
    json_object *root = tok ? json_tokener_parse_ex(tok, body, (int)len) : NULL;
    bool ok = tok && json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    int rc = 0;
    json_object *choices, *choice, *msg, *v;
    if (!root || !ok || !json_object_is_type(root, json_type_object)) {
        snprintf(why, why_cap, "the reply is not JSON");
        rc = -1;
    } else if (json_object_object_get_ex(root, "error", &v) && v &&
               !json_object_is_type(v, json_type_null)) {
        set_error_from(a, v);
        snprintf(why, why_cap, "the server answered with an error: %s", a->error);
        rc = -1;
    } else if (!json_object_object_get_ex(root, "choices", &choices) ||
               !json_object_is_type(choices, json_type_array) ||
               !(choice = json_object_array_get_idx(choices, 0)) ||
               !json_object_object_get_ex(choice, "message", &msg) ||
               !json_object_is_type(msg, json_type_object)) {
        snprintf(why, why_cap, "the reply has no choices[0].message");
        rc = -1;
    } else {
        if (json_object_object_get_ex(msg, "content", &v)) acc_content(a, v, opt);
        if (json_object_object_get_ex(msg, "tool_calls", &v) && v && acc_tool_calls(a, v, false)) {
            snprintf(why, why_cap, "the reply's tool_calls are malformed");
            rc = -1;
        }
        acc_finish(a, choice);
        acc_usage(a, root);
    }
    json_object_put(root);
    return rc;
}

/* One server-sent event's data: a chat.completion.chunk. */
static int parse_stream_chunk(reply_acc *a, const char *data, size_t len,
                              const agent_call_options *opt)
{
    if (len == 6 && !memcmp(data, "[DONE]", 6)) {
        a->done = true;
        return 0;
    }
    json_tokener *tok = json_tokener_new();
    json_object *root = tok ? json_tokener_parse_ex(tok, data, (int)len) : NULL;
    bool ok = tok && json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    if (!root || !ok) {
        json_object_put(root);
        return -1;
    }
    json_object *v, *choices, *choice, *delta;
    if (json_object_object_get_ex(root, "error", &v) && v &&
        !json_object_is_type(v, json_type_null))
        set_error_from(a, v);
    /* json-c asserts on array calls with anything else: check every type a server sends. */
    if (json_object_object_get_ex(root, "choices", &choices) &&
        json_object_is_type(choices, json_type_array) &&
        (choice = json_object_array_get_idx(choices, 0))) {
        if (json_object_object_get_ex(choice, "delta", &delta)) {
            if (json_object_object_get_ex(delta, "content", &v)) acc_content(a, v, opt);
            if (json_object_object_get_ex(delta, "tool_calls", &v) && v &&
                acc_tool_calls(a, v, true)) {
                json_object_put(root);
                return -1;
            }
        }
        acc_finish(a, choice);
    }
    acc_usage(a, root);
    json_object_put(root);
    return 0;
}

/* ---------------------------------------------------------------- transfer */

typedef struct transfer {
    bool stream_requested;
    int mode;       /* 0 = undecided, 1 = SSE, 2 = plain body */
    core_buf body;  /* plain body (errors, non-streamed answers) */
    core_buf line;  /* the SSE line being read */
    core_buf event; /* data of the current event (several data: lines join with \n) */
    reply_acc *acc;
    const agent_call_options *opt;
    bool bad_event;
} transfer;

static void sse_dispatch(transfer *t)
{
    if (!t->event.len) return;
    if (parse_stream_chunk(t->acc, t->event.data, t->event.len, t->opt)) t->bad_event = true;
    core_buf_reset(&t->event);
}

static int sse_line(transfer *t, const char *s, size_t n)
{
    if (n && s[n - 1] == '\r') n--;
    if (!n) {
        sse_dispatch(t);
        return 0;
    }
    if (n >= 5 && !memcmp(s, "data:", 5)) {
        s += 5;
        n -= 5;
        if (n && *s == ' ') s++, n--;
        if (t->event.len) core_buf_putc(&t->event, '\n');
        return core_buf_append(&t->event, s, n);
    }
    return 0; /* comments (":"), event:, id:, retry: carry nothing we need */
}

/* The reply as it arrives (net_body_fn): SSE lines, or one plain body. false stops it. */
static bool on_data(void *ctx, long code, const char *ctype, const char *p, size_t n)
{
    transfer *t = ctx;
    if (!t->mode) /* A server that ignores "stream" answers with one JSON body: accept that too. */
        t->mode =
            (t->stream_requested && code == 200 && ctype && strstr(ctype, "event-stream")) ? 1 : 2;
    if (t->mode == 2) return core_buf_append(&t->body, p, n) == 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            if (sse_line(t, t->line.data ? t->line.data : "", t->line.len)) return false;
            core_buf_reset(&t->line);
        } else if (core_buf_putc(&t->line, p[i])) {
            return false;
        }
    }
    return true;
}

/* The fallback count: what the server would have counted, roughly, in cl100k. */
static void estimate_usage(const agent_chat *chat, const reply_acc *a, agent_usage *u)
{
    size_t prompt = 3;
    size_t n = json_object_array_length(chat->messages);
    for (size_t i = 0; i < n; i++) {
        json_object *m = json_object_array_get_idx(chat->messages, i), *v;
        prompt += 4; /* role and separators per message */
        if (json_object_object_get_ex(m, "content", &v) && json_object_is_type(v, json_type_string))
            prompt += agent_count_tokens(json_object_get_string(v));
        if (json_object_object_get_ex(m, "tool_calls", &v))
            prompt += agent_count_tokens(json_object_to_json_string(v));
    }
    if (json_object_array_length(chat->tools))
        prompt += agent_count_tokens(json_object_to_json_string(chat->tools));
    size_t completion = agent_count_tokens(a->content.data);
    for (size_t i = 0; i < a->n_calls; i++)
        completion += agent_count_tokens(a->calls[i].name.data) +
                      agent_count_tokens(a->calls[i].args.data) + 3;
    if (a->prompt_tokens < 0 || (a->prompt_tokens == 0 && prompt > 0)) {
        u->prompt = prompt;
        u->estimated = true;
    } else {
        u->prompt = (size_t)a->prompt_tokens;
    }
    if (a->completion_tokens < 0) {
        u->completion = completion;
        u->estimated = true;
    } else {
        u->completion = (size_t)a->completion_tokens;
    }
    u->total =
        a->total_tokens >= 0 && !u->estimated ? (size_t)a->total_tokens : u->prompt + u->completion;
    u->calls = 1;
}

static char *steal_or_null(core_buf *b)
{
    if (!b->data) return strdup("");
    return core_buf_steal(b, NULL);
}

static int take_reply(reply_acc *a, const agent_chat *chat, agent_reply *out, apidex_error *err)
{
    estimate_usage(chat, a, &out->usage);
    snprintf(out->finish_reason, sizeof out->finish_reason, "%s", a->finish_reason);
    out->truncated = !strcmp(a->finish_reason, "length");
    if (a->has_content && a->content.len) {
        out->content = steal_or_null(&a->content);
        if (!out->content) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    if (a->n_calls) {
        out->tool_calls = calloc(a->n_calls, sizeof *out->tool_calls);
        if (!out->tool_calls) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        for (size_t i = 0; i < a->n_calls; i++) {
            agent_tool_call *c = &out->tool_calls[i];
            out->n_tool_calls++;
            if (a->calls[i].id.len) {
                c->id = steal_or_null(&a->calls[i].id);
            } else { /* some local servers leave ids out; the protocol still wants one */
                c->id = malloc(32);
                if (c->id) snprintf(c->id, 32, "call_%zu", i);
            }
            c->name = steal_or_null(&a->calls[i].name);
            c->arguments = steal_or_null(&a->calls[i].args);
            if (!c->id || !c->name || !c->arguments)
                return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        }
    }
    return 0;
}

/* A received 200 answer (whole or streamed, already fed through on_data) into out. */
static int finish_reply(transfer *t, const agent_chat *chat, agent_reply *out, const char *url,
                        apidex_error *err)
{
    reply_acc *acc = t->acc;
    char why[600] = "";
    int prc = 0;
    if (t->mode == 1) {
        if (t->bad_event)
            snprintf(why, sizeof why, "a streamed event is not JSON");
        else if (acc->error[0])
            snprintf(why, sizeof why, "the stream carried an error: %s", acc->error);
        else if (!acc->done && !acc->finish_reason[0])
            snprintf(why, sizeof why, "the stream ended before the answer did");
        prc = why[0] ? -1 : 0;
    } else {
        prc = parse_completion(acc, t->body.data ? t->body.data : "", t->body.len, t->opt, why,
                               sizeof why);
    }
    if (prc)
        return core_error_set(err, APIDEX_EPARSE, "malformed reply from the LLM at %s: %s", url,
                              why);
    return take_reply(acc, chat, out, err);
}

int agent_reply_parse(const char *data, size_t n, bool sse, const agent_chat *chat,
                      agent_reply *out, apidex_error *err)
{
    memset(out, 0, sizeof *out);
    agent_call_options opt = {0};
    reply_acc acc;
    acc_init(&acc);
    transfer t = {.mode = sse ? 1 : 2, .stream_requested = sse, .acc = &acc, .opt = &opt};
    core_buf_init(&t.body, LLM_MAX_REPLY);
    core_buf_init(&t.line, LLM_MAX_LINE);
    core_buf_init(&t.event, LLM_MAX_LINE);
    int rc = on_data(&t, sse ? 200 : 0, NULL, data, n) ? 0 : APIDEX_ELIMIT;
    if (rc) core_error_set(err, rc, "reply over the size caps");
    if (!rc && t.mode == 1 && t.line.len) sse_line(&t, t.line.data, t.line.len);
    if (!rc && t.mode == 1) sse_dispatch(&t);
    if (!rc) rc = finish_reply(&t, chat, out, "(parsed)", err);
    if (rc) agent_reply_free(out);
    core_buf_free(&t.body);
    core_buf_free(&t.line);
    core_buf_free(&t.event);
    acc_free(&acc);
    return rc;
}

static bool retryable_status(long code)
{
    return code == 408 || code == 409 || code == 425 || code == 429 || code == 500 || code == 502 ||
           code == 503 || code == 504 || code == 520 || code == 529;
}

/* The outbound policy of the LLM client: the configured base URL's origin only (the user named
   it, loopback included), no redirects, the configured timeouts, the reply cap. */
static net_policy llm_policy(const agent_llm *llm, const char *const *origin)
{
    const agent_llm_config *c = &llm->cfg;
    return (net_policy){.allowed_origins = origin,
                        .n_allowed_origins = 1,
                        .max_redirects = NET_NO_REDIRECTS,
                        .timeout_ms = (long)(c->timeout_s * 1000),
                        .connect_timeout_ms =
                            (long)((c->connect_timeout_s > 0 ? c->connect_timeout_s : 10) * 1000),
                        .max_bytes = LLM_MAX_REPLY,
                        .hosts_hint = "the LLM base URL (" AGENT_ENV_BASE_URL ") only"};
}

int agent_llm_chat(agent_llm *llm, const agent_chat *chat, const agent_call_options *opt,
                   agent_reply *out, apidex_error *err)
{
    agent_call_options defaults = {0};
    if (!opt) opt = &defaults;
    memset(out, 0, sizeof *out);
    if (!llm || !chat || !agent_chat_count(chat))
        return core_error_set(err, APIDEX_EINVAL, "nothing to send to the LLM");
    bool stream = opt->stream > 0 || (opt->stream == 0 && llm->cfg.stream);
    char *body = build_request(llm, chat, opt, stream, err);
    if (!body) return err && err->code ? err->code : APIDEX_ENOMEM;

    net_session *session = net_session_new();
    if (!session) {
        free(body);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    net_header hdr[3] = {{"Content-Type", "application/json", false}};
    size_t n_hdr = 1;
    if (stream) hdr[n_hdr++] = (net_header){"Accept", "text/event-stream", false};
    if (llm->auth) hdr[n_hdr++] = (net_header){"Authorization", llm->auth, true};
    const char *secrets[2] = {llm->cfg.api_key, llm->auth};
    const agent_llm_config *c = &llm->cfg;
    const char *origin[1] = {c->base_url};
    net_policy policy = llm_policy(llm, origin);
    int rc = APIDEX_ENET;
    unsigned delay = c->backoff_ms ? c->backoff_ms : 1;
    for (int attempt = 0;; attempt++) {
        reply_acc acc;
        acc_init(&acc);
        transfer t = {.stream_requested = stream, .acc = &acc, .opt = opt};
        core_buf_init(&t.body, LLM_MAX_REPLY);
        core_buf_init(&t.line, LLM_MAX_LINE);
        core_buf_init(&t.event, LLM_MAX_LINE);
        net_request req = {.method = "POST",
                           .url = llm->url,
                           .headers = hdr,
                           .n_headers = n_hdr,
                           .body = body,
                           .body_len = strlen(body),
                           .secrets = secrets,
                           .n_secrets = llm->auth ? 2 : 0,
                           .on_body = on_data,
                           .body_ctx = &t,
                           .session = session};
        net_response *resp = NULL;
        net_fail why = NET_FAIL_NONE;
        apidex_error nerr;
        core_error_clear(&nerr);
        int nrc = net_send(&req, &policy, &resp, &why, &nerr);
        if (t.mode == 1 && t.line.len) sse_line(&t, t.line.data, t.line.len);
        if (t.mode == 1) sse_dispatch(&t);
        long code = resp ? resp->status : 0;
        long long retry_after = resp ? net_retry_after_ms(resp) : -1;
        bool retry = false, rebuilt = false;
        char msg[512] = "";
        if (nrc) {
            if (why == NET_FAIL_URL) {
                rc = core_error_set(err, APIDEX_EINVAL, "bad LLM base URL '%s' (%s): %s",
                                    c->base_url, AGENT_ENV_BASE_URL, nerr.message);
            } else if (why == NET_FAIL_REFUSED) {
                rc = core_error_set(err, APIDEX_EREFUSED, "the LLM request was refused: %s",
                                    nerr.message);
            } else if (why == NET_FAIL_TIMEOUT) {
                rc = core_error_set(err, APIDEX_ENET, "the LLM at %s did not answer within %g s",
                                    llm->url, c->timeout_s);
                retry = true;
            } else if (why == NET_FAIL_CONNECT || why == NET_FAIL_RESOLVE) {
                rc = core_error_set(err, APIDEX_ENET,
                                    "cannot reach the LLM at %s (%s): is the server running and "
                                    "%s right?",
                                    llm->url, nerr.message, AGENT_ENV_BASE_URL);
            } else if (why == NET_FAIL_SINK &&
                       (t.body.failed || t.line.failed || t.event.failed || acc.content.failed)) {
                rc = core_error_set(err, APIDEX_ELIMIT, "the LLM reply from %s is over %u MiB",
                                    llm->url, LLM_MAX_REPLY >> 20);
            } else if (why == NET_FAIL_NOMEM) {
                rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            } else {
                rc = core_error_set(err, APIDEX_ENET, "LLM request to %s failed: %s", llm->url,
                                    nerr.message);
                retry = why == NET_FAIL_TRANSFER;
            }
        } else if (resp->truncated) {
            rc = core_error_set(err, APIDEX_ELIMIT, "the LLM reply from %s is over %u MiB",
                                llm->url, LLM_MAX_REPLY >> 20);
        } else if (code != 200) {
            core_api_error_message(t.body.data, t.body.len, msg, sizeof msg);
            const char *sep = msg[0] ? ": " : "";
            if (code == 401 || code == 403)
                rc = core_error_set(err, APIDEX_EINVAL,
                                    "the LLM server refused the API key (HTTP %ld)%s%s; check %s",
                                    code, sep, msg, AGENT_ENV_API_KEY);
            else if (code == 404)
                rc = core_error_set(err, APIDEX_EINVAL,
                                    "HTTP 404 from %s%s%s; check %s and the model name (%s)",
                                    llm->url, sep, msg, AGENT_ENV_BASE_URL, c->model);
            else if (code == 429)
                rc = core_error_set(err, APIDEX_ENET, "rate limited by %s (HTTP 429)%s%s", llm->url,
                                    sep, msg);
            else if (code == 400 && strstr(msg, "max_completion_tokens") &&
                     !atomic_exchange(&llm->reasoning_params, 1)) {
                /* Rebuild the request the way this model wants it and try again at once. */
                char *again = build_request(llm, chat, opt, stream, err);
                if (again) {
                    free(body);
                    body = again;
                    rc = core_error_set(err, APIDEX_EINVAL, "retrying with max_completion_tokens");
                    rebuilt = true;
                } else {
                    rc = err && err->code ? err->code : APIDEX_ENOMEM;
                }
            } else if (code >= 400 && code < 500 && !retryable_status(code))
                rc = core_error_set(err, APIDEX_EINVAL,
                                    "the LLM server rejected the request "
                                    "(HTTP %ld)%s%s",
                                    code, sep, msg);
            else
                rc = core_error_set(err, APIDEX_ENET, "the LLM server failed (HTTP %ld)%s%s", code,
                                    sep, msg);
            retry = rebuilt || retryable_status(code);
        } else {
            rc = finish_reply(&t, chat, out, llm->url, err);
            if (!rc) out->attempts = attempt + 1;
        }
        net_response_free(resp);
        core_buf_free(&t.body);
        core_buf_free(&t.line);
        core_buf_free(&t.event);
        acc_free(&acc);
        if (rc == 0) break;
        if (rebuilt) {
            attempt--; /* not a failure of the server: the same attempt, asked properly */
            continue;
        }
        if (!retry || attempt >= c->max_retries) {
            if (retry && attempt > 0 && err) {
                size_t l = strlen(err->message);
                snprintf(err->message + l, sizeof err->message - l, " (after %d attempts)",
                         attempt + 1);
            }
            agent_reply_free(out);
            break;
        }
        unsigned wait = delay;
        if (retry_after > 0 && retry_after > (long long)wait)
            wait = (unsigned)(retry_after < UINT32_MAX ? retry_after : UINT32_MAX);
        unsigned cap = c->max_backoff_ms ? c->max_backoff_ms : 30000;
        if (wait > cap) wait = cap;
        core_sleep_ms(wait);
        delay = delay > cap / 2 ? cap : delay * 2;
    }
    net_session_free(session);
    free(body);
    if (rc == 0 && err) core_error_clear(err);
    return rc;
}
