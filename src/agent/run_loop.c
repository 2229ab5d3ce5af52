/*
 * The RestGPT loop (Song et al., 2023): plan → select → call → parse, online, until the planner
 * answers.
 *
 * - Planner (the model): from the task and the results so far, one line: the next sub-task
 *   in plain words, "Continue" (the last sub-task needs another call), or the final answer.
 * - Selector (apidex's search, not the model): the sub-task is a query; the best k
 *   endpoints are the candidates. The paper's selector reads every endpoint's description
 *   in a prompt; a search keeps the prompt the same size whatever the registry's size.
 * - Caller (the model): picks one candidate and fills its parameters from the candidates'
 *   call-level details and the earlier results, through one tool call. The executor
 *   validates and sends; a refusal or an error status goes back to the caller, who may try
 *   once more (the paper's feedback for wrong parameters).
 * - Parser (the model): sees the sub-task and the response shaped for it (long arrays
 *   summarised, long text cut) and answers with a selection that apidex evaluates on the
 *   whole body, so the model never reads or copies a long response.
 * Every step records its prompts' and answers' cl100k tokens.
 */
#include "agent/agent.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum {
    RUN_DEFAULT_STEPS = 10,
    RUN_MAX_STEPS = 50,
    RUN_DEFAULT_K = 5,
    RUN_DESCRIBE_CHARS = 6000,
    RUN_RESULT_CHARS = 3000,
    RUN_CALL_ATTEMPTS = 2,  /* the caller's first call and one corrected one */
    RUN_PARSE_ATTEMPTS = 2, /* the parser's first selection and one corrected one */
};

static const char *const planner_system =
    "You are the planner of an agent that solves a user's task by calling REST APIs, one "
    "call at a time. Each turn you read the task and the results so far and answer with "
    "exactly one line:\n"
    "Plan step N: <the next sub-task in plain words> - one thing one API call can do, "
    "naming the concrete values it needs from earlier results (ids, names);\n"
    "Continue - the last sub-task is not done yet and needs another call;\n"
    "Final Answer: <the answer to the task> - when the results so far answer it.\n"
    "Never invent a value that no result gave.";

static const char *const caller_system =
    "You are the caller of an agent that solves a user's task by calling REST APIs. You make "
    "the one HTTP call that does the current sub-task: choose the best of the candidate "
    "endpoints and call the tool call_endpoint with its id and the parameter values, taken "
    "from the sub-task and the earlier results. Leave out optional parameters you have no "
    "value for. When a call fails, read why and call again with corrected values.";

static const char *const call_params =
    "{\"type\":\"object\",\"properties\":{"
    "\"endpoint\":{\"type\":\"string\",\"description\":\"the candidate's id, or METHOD /path\"},"
    "\"params\":{\"type\":\"object\",\"description\":\"parameter name -> value (path, query, "
    "header and cookie parameters)\"},"
    "\"body\":{\"description\":\"the request body, when the endpoint takes one\"}},"
    "\"required\":[\"endpoint\"]}";

static const char *const parser_system =
    "You are the response parser of an agent that solves a user's task by calling REST "
    "APIs. You see a sub-task and the API's response to it, shaped for you: long arrays are "
    "summarised and long texts cut. Do not copy values out of it: call the tool extract with "
    "a selection that is evaluated on the whole response. $ is the body; .name a field; [N] "
    "the item at N (from 0); [*] every item; for example $.results[0].id or "
    "$.items[*].name. Select exactly what the task's next steps and its answer need.";

static const char *const extract_params =
    "{\"type\":\"object\",\"properties\":{"
    "\"select\":{\"type\":\"string\",\"description\":\"the selection, e.g. $.results[0].id\"},"
    "\"note\":{\"type\":\"string\",\"description\":\"what the selected value is, in a few "
    "words\"}},\"required\":[\"select\"]}";

typedef struct run_state {
    agent_llm *llm;
    search_engine *eng;
    const agent_run_ops *ops;
    const agent_run_options *opt;
    agent_run *run;
    size_t cap_steps;
    apidex_error *err;
} run_state;

static void trace(run_state *st, const char *event, const char *detail)
{
    if (st->opt->trace) st->opt->trace(st->opt->trace_ctx, event, detail ? detail : "");
}

static const char *cut_copy(core_arena *a, const char *s, size_t max)
{
    if (!s) return NULL;
    size_t n = strlen(s);
    if (n <= max) return core_arena_strdup(a, s);
    return core_arena_printf(a, "%.*s ... (%zu more characters cut)", (int)max, s, n - max);
}

/* ---------------------------------------------------------------- the model */

/* One model call; the step's token counts and the run's usage follow it. prompt_tokens:
   cl100k of the texts this request carries (the caller passes what it added). */
static int ask(run_state *st, agent_chat *chat, const agent_call_options *co, size_t prompt_tokens,
               agent_run_step *step, agent_reply *r)
{
    int rc = agent_llm_chat(st->llm, chat, co, r, st->err);
    if (rc) return rc;
    st->run->llm_calls++;
    agent_usage_add(&st->run->usage, &r->usage);
    step->prompt_tokens += prompt_tokens;
    if (r->content) step->completion_tokens += agent_count_tokens(r->content);
    for (size_t i = 0; i < r->n_tool_calls; i++)
        if (r->tool_calls[i].arguments)
            step->completion_tokens += agent_count_tokens(r->tool_calls[i].arguments);
    return 0;
}

/* The results so far, for the planner and the caller. */
static void put_history(const agent_run *run, size_t upto, core_buf *b)
{
    if (!upto) {
        core_buf_puts(b, "Results so far: none (this is the first step).\n");
        return;
    }
    core_buf_puts(b, "Results so far:\n");
    for (size_t i = 0; i < upto; i++) {
        const agent_run_step *s = &run->steps[i];
        core_buf_printf(b, "%u. %s\n", s->n, s->plan ? s->plan : "");
        if (s->operation_id)
            core_buf_printf(b, "   called %s (HTTP %ld)\n", s->operation_id, s->status);
        if (s->result) core_buf_printf(b, "   result: %s\n", s->result);
        if (s->error) core_buf_printf(b, "   failed: %s\n", s->error);
    }
}

/* ---------------------------------------------------------------- planner */

typedef enum { PLAN_STEP, PLAN_CONTINUE, PLAN_ANSWER } plan_kind;

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '*' || *s == '`') s++;
    return s;
}

/* The planner's answer: "Final Answer:" anywhere ends; a line opening with "Continue"
   continues; otherwise the text after "Plan step N:" (or the first non-empty line). */
static plan_kind read_plan(core_arena *a, const char *text, const char **out)
{
    *out = NULL;
    if (!text) text = "";
    const char *fa = strcasestr(text, "final answer:");
    if (fa) {
        const char *s = skip_space(fa + 13);
        size_t n = strlen(s);
        while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r')) n--;
        *out = core_arena_strndup(a, s, n);
        return PLAN_ANSWER;
    }
    const char *s = skip_space(text);
    if (!strncasecmp(s, "continue", 8)) return PLAN_CONTINUE;
    const char *ps = strcasestr(text, "plan step");
    if (ps) {
        const char *colon = strchr(ps, ':');
        if (colon) s = skip_space(colon + 1);
    }
    size_t n = strcspn(s, "\n");
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r')) n--;
    *out = core_arena_strndup(a, s, n);
    return PLAN_STEP;
}

static int plan(run_state *st, agent_run_step *step, plan_kind *kind, const char **text)
{
    agent_run *run = st->run;
    core_buf u;
    core_buf_init(&u, 1u << 20);
    core_buf_printf(&u, "Task: %s\n\n", run->task);
    put_history(run, run->n_steps - 1, &u);
    core_buf_printf(&u, "\nYour line for step %u:", step->n);
    agent_chat *chat = agent_chat_new();
    int rc = chat && !u.failed ? 0 : APIDEX_ENOMEM;
    if (!rc) rc = agent_chat_add(chat, "system", planner_system);
    if (!rc) rc = agent_chat_add(chat, "user", u.data);
    agent_reply r = {0};
    agent_call_options co = {.tool_choice = NULL};
    if (!rc)
        rc = ask(st, chat, &co, agent_count_tokens(planner_system) + agent_count_tokens(u.data),
                 step, &r);
    if (!rc) {
        *kind = read_plan(run->arena, r.content, text);
        if (!*text && *kind != PLAN_CONTINUE) rc = APIDEX_ENOMEM;
        trace(st, "plan", r.content);
    }
    agent_reply_free(&r);
    agent_chat_free(chat);
    core_buf_free(&u);
    return rc;
}

/* ---------------------------------------------------------------- selector */

typedef struct candidate {
    const char *id, *method, *path;
} candidate;

static int select_candidates(run_state *st, agent_run_step *step, candidate **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    search_query q = {.text = step->plan,
                      .k = st->opt->k ? st->opt->k : RUN_DEFAULT_K,
                      .apis = st->opt->apis,
                      .mode = SEARCH_LEXICAL};
    search_result *res = NULL;
    int rc = search_engine_run(st->eng, &q, &res, st->err);
    if (rc) return rc;
    core_arena *a = st->run->arena;
    size_t m = res->n_hits;
    candidate *c = core_arena_calloc(a, m ? m : 1, sizeof *c);
    step->candidates = core_arena_calloc(a, m ? m : 1, sizeof *step->candidates);
    if (!c || !step->candidates) rc = APIDEX_ENOMEM;
    for (size_t i = 0; !rc && i < m; i++) {
        const search_hit *h = &res->hits[i];
        c[i] = (candidate){core_arena_strdup(a, h->id), core_arena_strdup(a, h->method),
                           core_arena_strdup(a, h->path)};
        if (!c[i].id || !c[i].method || !c[i].path) rc = APIDEX_ENOMEM;
        step->candidates[i] = c[i].id;
    }
    search_result_free(res);
    if (rc) return core_error_set(st->err, rc, "out of memory");
    step->n_candidates = m;
    *out = c;
    *n = m;
    trace(st, "select", m ? c[0].id : "no endpoint");
    return 0;
}

/* The candidate the caller named: its id, or METHOD and path (either order of case). */
static const candidate *find_candidate(const candidate *c, size_t n, const char *named)
{
    if (!named) return NULL;
    while (*named == ' ') named++;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(c[i].id, named)) return &c[i];
    for (size_t i = 0; i < n; i++) {
        size_t ml = strlen(c[i].method);
        if (!strncasecmp(named, c[i].method, ml) && named[ml] == ' ' &&
            !strcmp(skip_space(named + ml), c[i].path))
            return &c[i];
    }
    for (size_t i = 0; i < n; i++) { /* an id without its API ("opId") */
        const char *colon = strchr(c[i].id, ':');
        if (colon && !strcmp(colon + 1, named)) return &c[i];
    }
    return NULL;
}

/* ---------------------------------------------------------------- caller */

static json_object *tool_args(const agent_reply *r, const char *name)
{
    for (size_t i = 0; i < r->n_tool_calls; i++) {
        if (!r->tool_calls[i].name || strcmp(r->tool_calls[i].name, name)) continue;
        json_object *o =
            json_tokener_parse(r->tool_calls[i].arguments ? r->tool_calls[i].arguments : "");
        if (json_object_is_type(o, json_type_object)) return o;
        json_object_put(o);
    }
    return NULL;
}

static const char *tool_call_id(const agent_reply *r)
{
    return r->n_tool_calls && r->tool_calls[0].id ? r->tool_calls[0].id : "call";
}

/* Shows the model why its last answer r did not work: as the result of its tool call, or as
   a user message when it called none. *sent counts the tokens. */
static int give_feedback(run_state *st, agent_chat *chat, const agent_reply *r,
                         const char *feedback, size_t *sent)
{
    trace(st, "retry", feedback);
    int rc = agent_chat_add_reply(chat, r);
    if (!rc && r->n_tool_calls)
        rc = agent_chat_add_tool_result(chat, tool_call_id(r), feedback);
    else if (!rc)
        rc = agent_chat_add(chat, "user", feedback);
    *sent += agent_count_tokens(feedback);
    return rc;
}

static const char *obj_str(json_object *o, const char *key)
{
    json_object *v = NULL;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

/* The caller's prompt: the task, the sub-task, the results so far and the candidates. */
static int caller_prompt(run_state *st, agent_run_step *step, const candidate *c, size_t n,
                         core_buf *u)
{
    agent_run *run = st->run;
    size_t max = st->opt->describe_chars ? st->opt->describe_chars : RUN_DESCRIBE_CHARS;
    core_buf_printf(u, "Task: %s\nSub-task: %s\n\n", run->task, step->plan);
    put_history(run, run->n_steps - 1, u);
    core_buf_puts(u, "\nCandidate endpoints (best first):\n");
    core_buf d;
    core_buf_init(&d, 8u << 20);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        core_buf_reset(&d);
        rc = st->ops->describe(st->ops->ctx, c[i].id, &d, st->err);
        if (rc) break;
        core_buf_printf(u, "\n### %zu. %s (%s %s)\n", i + 1, c[i].id, c[i].method, c[i].path);
        const char *text = cut_copy(run->arena, d.data ? d.data : "", max);
        if (!text) rc = APIDEX_ENOMEM;
        if (!rc) core_buf_printf(u, "%s\n", text);
    }
    core_buf_free(&d);
    if (!rc && u->failed) rc = core_error_set(st->err, APIDEX_ENOMEM, "out of memory");
    return rc;
}

/* One call the caller asked for; *feedback: what to tell it when it failed. */
static int make_call(run_state *st, agent_run_step *step, const candidate *c, size_t n,
                     json_object *args, const char **body, const char **feedback)
{
    agent_run *run = st->run;
    core_arena *a = run->arena;
    *feedback = NULL;
    const char *named = obj_str(args, "endpoint");
    const candidate *pick = find_candidate(c, n, named);
    if (!pick) {
        *feedback = core_arena_printf(a,
                                      "\"%s\" is not one of the candidate endpoints; use a "
                                      "candidate's id.",
                                      named ? named : "");
        step->error = *feedback;
        return *feedback ? 0 : APIDEX_ENOMEM;
    }
    json_object *params = NULL, *jbody = NULL;
    json_object_object_get_ex(args, "params", &params);
    json_object_object_get_ex(args, "body", &jbody);
    if (params && !json_object_is_type(params, json_type_object)) params = NULL;
    step->operation_id = pick->id;
    step->params = core_arena_strdup(
        a, params ? json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN) : "{}");
    step->attempts++;
    run->api_calls++;
    trace(st, "call", pick->id);
    apidex_error cerr;
    core_error_clear(&cerr);
    const char *request = NULL, *shaped = NULL;
    long status = 0;
    int rc = st->ops->call(st->ops->ctx, pick->id, params, jbody, a, &status, &request, body,
                           &shaped, &cerr);
    if (rc == APIDEX_ENOMEM) return core_error_set(st->err, rc, "out of memory");
    step->request = request;
    step->status = rc ? 0 : status;
    step->response = shaped;
    if (rc) { /* refused before sending: the inputs or the safety rules */
        *feedback = core_arena_printf(a, "The call was not sent: %s", cerr.message);
        step->error = *feedback;
    } else if (status >= 400) {
        *feedback = core_arena_printf(a, "The API answered HTTP %ld: %s", status,
                                      cut_copy(a, shaped ? shaped : "", 1500));
        step->error = *feedback;
    } else {
        step->error = NULL;
    }
    return 0;
}

static int call_step(run_state *st, agent_run_step *step, const candidate *c, size_t n,
                     const char **body)
{
    core_buf u;
    core_buf_init(&u, 16u << 20);
    int rc = caller_prompt(st, step, c, n, &u);
    agent_chat *chat = rc ? NULL : agent_chat_new();
    if (!rc && !chat) rc = core_error_set(st->err, APIDEX_ENOMEM, "out of memory");
    if (!rc) rc = agent_chat_add(chat, "system", caller_system);
    if (!rc) rc = agent_chat_add(chat, "user", u.data);
    if (!rc)
        rc =
            agent_chat_add_tool(chat, "call_endpoint", "Call one candidate endpoint.", call_params);
    size_t sent = rc ? 0 : agent_count_tokens(caller_system) + agent_count_tokens(u.data);
    *body = NULL;
    for (unsigned attempt = 0; !rc && attempt < RUN_CALL_ATTEMPTS; attempt++) {
        agent_reply r = {0};
        agent_call_options co = {.tool_choice = "call_endpoint"};
        rc = ask(st, chat, &co, sent, step, &r);
        if (rc) {
            agent_reply_free(&r);
            break;
        }
        json_object *args = tool_args(&r, "call_endpoint");
        const char *feedback = NULL;
        if (!args) {
            feedback = "Call the tool call_endpoint with {\"endpoint\": ..., \"params\": {...}}.";
            step->error = "the caller made no call";
        } else {
            rc = make_call(st, step, c, n, args, body, &feedback);
        }
        json_object_put(args);
        if (!rc && feedback && attempt + 1 < RUN_CALL_ATTEMPTS)
            rc = give_feedback(st, chat, &r, feedback, &sent);
        agent_reply_free(&r);
        if (!feedback) break;
    }
    agent_chat_free(chat);
    core_buf_free(&u);
    return rc;
}

/* ---------------------------------------------------------------- parser */

static int parse_step(run_state *st, agent_run_step *step, const char *body)
{
    agent_run *run = st->run;
    core_arena *a = run->arena;
    size_t max = st->opt->result_chars ? st->opt->result_chars : RUN_RESULT_CHARS;
    core_buf u;
    core_buf_init(&u, 16u << 20);
    core_buf_printf(&u, "Task: %s\nSub-task: %s\nCalled: %s (HTTP %ld)\n\nResponse:\n%s\n",
                    run->task, step->plan, step->operation_id, step->status,
                    step->response ? step->response : "(empty)");
    agent_chat *chat = agent_chat_new();
    int rc = chat && !u.failed ? 0 : core_error_set(st->err, APIDEX_ENOMEM, "out of memory");
    if (!rc) rc = agent_chat_add(chat, "system", parser_system);
    if (!rc) rc = agent_chat_add(chat, "user", u.data);
    if (!rc) rc = agent_chat_add_tool(chat, "extract", "Select from the response.", extract_params);
    size_t sent = rc ? 0 : agent_count_tokens(parser_system) + agent_count_tokens(u.data);
    for (unsigned attempt = 0; !rc && attempt < RUN_PARSE_ATTEMPTS; attempt++) {
        agent_reply r = {0};
        agent_call_options co = {.tool_choice = "extract"};
        rc = ask(st, chat, &co, sent, step, &r);
        if (rc) {
            agent_reply_free(&r);
            break;
        }
        json_object *args = tool_args(&r, "extract");
        const char *sel = obj_str(args, "select"), *note = obj_str(args, "note");
        const char *feedback = NULL, *value = NULL;
        if (!sel) {
            feedback = "Call the tool extract with {\"select\": \"$....\"}.";
        } else {
            step->selection = core_arena_strdup(a, sel);
            trace(st, "parse", sel);
            apidex_error serr;
            core_error_clear(&serr);
            int src = st->ops->select(st->ops->ctx, body ? body : "", sel, a, &value, &serr);
            if (src == APIDEX_ENOMEM) rc = core_error_set(st->err, src, "out of memory");
            if (src && !rc)
                feedback =
                    core_arena_printf(a, "The selection %s gave nothing: %s", sel, serr.message);
        }
        if (!rc && value) {
            const char *v = cut_copy(a, value, max);
            step->result = note && *note ? core_arena_printf(a, "%s: %s", note, v) : v;
        }
        json_object_put(args);
        if (!rc && feedback && attempt + 1 < RUN_PARSE_ATTEMPTS)
            rc = give_feedback(st, chat, &r, feedback, &sent);
        else if (!rc && feedback) {
            step->error = feedback;
        }
        agent_reply_free(&r);
        if (!feedback) break;
    }
    agent_chat_free(chat);
    core_buf_free(&u);
    return rc;
}

/* ---------------------------------------------------------------- the loop */

static agent_run_step *new_step(run_state *st)
{
    agent_run *run = st->run;
    if (core_arena_array_grow(run->arena, &run->steps, &st->cap_steps, run->n_steps,
                              sizeof *run->steps, 8))
        return NULL;
    agent_run_step *s = &run->steps[run->n_steps++];
    memset(s, 0, sizeof *s);
    s->n = (unsigned)run->n_steps;
    return s;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int loop(run_state *st)
{
    agent_run *run = st->run;
    unsigned max = st->opt->max_steps ? st->opt->max_steps : RUN_DEFAULT_STEPS;
    if (max > RUN_MAX_STEPS) max = RUN_MAX_STEPS;
    int rc = 0;
    while (!rc) {
        if (run->n_steps >= max) {
            run->note = core_arena_printf(run->arena,
                                          "step limit (%u) reached before the "
                                          "planner answered",
                                          max);
            break;
        }
        agent_run_step *step = new_step(st);
        if (!step) return core_error_set(st->err, APIDEX_ENOMEM, "out of memory");
        plan_kind kind;
        const char *text = NULL;
        rc = plan(st, step, &kind, &text);
        if (rc) break;
        if (kind == PLAN_ANSWER) {
            run->answer = text;
            step->plan = "(final answer)";
            trace(st, "answer", text);
            break;
        }
        if (kind == PLAN_CONTINUE) {
            /* the same sub-task once more, with what the last try gave */
            step->plan = run->n_steps > 1 ? run->steps[run->n_steps - 2].plan : run->task;
        } else {
            step->plan = text && *text ? text : run->task;
        }
        candidate *c = NULL;
        size_t n = 0;
        rc = select_candidates(st, step, &c, &n);
        if (rc) break;
        if (!n) {
            step->error = "apidex found no endpoint for this sub-task";
            continue;
        }
        const char *body = NULL;
        rc = call_step(st, step, c, n, &body);
        if (!rc && step->operation_id && step->status && step->status < 400)
            rc = parse_step(st, step, body);
    }
    return rc;
}

int agent_run_task(agent_llm *llm, search_engine *eng, const char *task, const agent_run_ops *ops,
                   const agent_run_options *opt, agent_run **out, apidex_error *err)
{
    *out = NULL;
    if (!llm || !eng || !task || !*task || !ops || !ops->describe || !ops->call || !ops->select)
        return core_error_set(err, APIDEX_EINVAL,
                              "agent_run_task: a model, an index, a task "
                              "and the executor's operations are needed");
    agent_run_options defaults = {0};
    agent_run *run = calloc(1, sizeof *run);
    if (!run || !(run->arena = core_arena_new(0))) {
        free(run);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    run->task = core_arena_strdup(run->arena, task);
    double t0 = now_ms();
    run_state st = {
        .llm = llm, .eng = eng, .ops = ops, .opt = opt ? opt : &defaults, .run = run, .err = err};
    int rc = run->task ? loop(&st) : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    run->elapsed_ms = now_ms() - t0;
    *out = run;
    return rc;
}

void agent_run_free(agent_run *r)
{
    if (!r) return;
    core_arena_free(r->arena);
    free(r);
}
