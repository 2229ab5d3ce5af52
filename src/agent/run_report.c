/*
 * The RestGPT loop's transcript (run_loop.c) for a program (JSON) and for a person (text): per
 * step the plan, the candidates apidex's search offered, the call, the shaped response the
 * parser saw, its selection and what it found, with cl100k tokens per step.
 */
#include "agent/agent.h"

#include <json-c/json.h>
#include <string.h>

static json_object *str_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

/* A JSON text as the value it is (a string when it does not parse). */
static json_object *json_or_text(const char *s)
{
    if (!s) return NULL;
    json_object *o = json_tokener_parse(s);
    return o ? o : json_object_new_string(s);
}

int agent_run_write_json(const agent_run *r, core_buf *out)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "task", str_or_null(r->task));
    json_object_object_add(o, "answer", str_or_null(r->answer));
    json_object_object_add(o, "note", str_or_null(r->note));
    json_object *steps = json_object_new_array();
    size_t prompt = 0, completion = 0;
    for (size_t i = 0; i < r->n_steps; i++) {
        const agent_run_step *s = &r->steps[i];
        json_object *j = json_object_new_object();
        json_object_object_add(j, "n", json_object_new_int((int)s->n));
        json_object_object_add(j, "plan", str_or_null(s->plan));
        json_object *c = json_object_new_array();
        for (size_t k = 0; k < s->n_candidates; k++)
            json_object_array_add(c, json_object_new_string(s->candidates[k]));
        json_object_object_add(j, "candidates", c);
        json_object_object_add(j, "endpoint", str_or_null(s->operation_id));
        json_object_object_add(j, "params", json_or_text(s->params));
        json_object_object_add(j, "request", str_or_null(s->request));
        json_object_object_add(j, "status", s->status ? json_object_new_int64(s->status) : NULL);
        json_object_object_add(j, "response", json_or_text(s->response));
        json_object_object_add(j, "selection", str_or_null(s->selection));
        json_object_object_add(j, "result", str_or_null(s->result));
        json_object_object_add(j, "error", str_or_null(s->error));
        json_object_object_add(j, "attempts", json_object_new_int((int)s->attempts));
        json_object *t = json_object_new_object();
        json_object_object_add(t, "prompt", json_object_new_int64((int64_t)s->prompt_tokens));
        json_object_object_add(t, "completion",
                               json_object_new_int64((int64_t)s->completion_tokens));
        json_object_object_add(j, "tokens", t);
        json_object_array_add(steps, j);
        prompt += s->prompt_tokens;
        completion += s->completion_tokens;
    }
    json_object_object_add(o, "steps", steps);
    json_object *t = json_object_new_object();
    json_object_object_add(t, "prompt", json_object_new_int64((int64_t)prompt));
    json_object_object_add(t, "completion", json_object_new_int64((int64_t)completion));
    json_object_object_add(o, "tokens", t);
    json_object *u = json_object_new_object();
    json_object_object_add(u, "prompt", json_object_new_int64((int64_t)r->usage.prompt));
    json_object_object_add(u, "completion", json_object_new_int64((int64_t)r->usage.completion));
    json_object_object_add(u, "estimated", json_object_new_boolean(r->usage.estimated));
    json_object_object_add(o, "usage", u);
    json_object_object_add(o, "llm_calls", json_object_new_int((int)r->llm_calls));
    json_object_object_add(o, "api_calls", json_object_new_int((int)r->api_calls));
    json_object_object_add(o, "elapsed_ms", json_object_new_double(r->elapsed_ms));
    int rc = core_buf_puts(out, json_object_to_json_string_ext(
                                    o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    if (!rc) rc = core_buf_putc(out, '\n');
    json_object_put(o);
    return rc;
}

int agent_run_write_text(const agent_run *r, core_buf *out)
{
    core_buf_printf(out, "Task: %s\n", r->task);
    size_t prompt = 0, completion = 0;
    for (size_t i = 0; i < r->n_steps; i++) {
        const agent_run_step *s = &r->steps[i];
        prompt += s->prompt_tokens;
        completion += s->completion_tokens;
        if (!s->operation_id && !s->error && s->plan && !strcmp(s->plan, "(final answer)"))
            continue;
        core_buf_printf(out, "\n%u. %s\n", s->n, s->plan ? s->plan : "");
        if (s->n_candidates)
            core_buf_printf(out, "   candidates: %zu, best %s\n", s->n_candidates,
                            s->candidates[0]);
        if (s->request) core_buf_printf(out, "   %s\n", s->request);
        if (s->status) core_buf_printf(out, "   HTTP %ld\n", s->status);
        if (s->selection) core_buf_printf(out, "   select %s\n", s->selection);
        if (s->result) core_buf_printf(out, "   -> %s\n", s->result);
        if (s->error) core_buf_printf(out, "   failed: %s\n", s->error);
        core_buf_printf(out, "   tokens: %zu in, %zu out\n", s->prompt_tokens,
                        s->completion_tokens);
    }
    if (r->answer) core_buf_printf(out, "\nAnswer: %s\n", r->answer);
    if (r->note) core_buf_printf(out, "\nStopped: %s\n", r->note);
    core_buf_printf(out, "\n%u model calls, %u API calls, %zu + %zu cl100k tokens, %.0f ms\n",
                    r->llm_calls, r->api_calls, prompt, completion, r->elapsed_ms);
    return out->failed ? APIDEX_ENOMEM : 0;
}
