/*
 * The plan of a result: the adaptive answer in call order (compose.c puts each producer
 * before the steps that take its output), each step with where its identifier inputs come
 * from: an earlier step's output (the data-flow edge composition chose), the task's own
 * values, or the caller. The list of a result is by relevance; the plan is how to call it.
 */
#include "search/search_int.h"

#include <string.h>

/* The step of op in the plan's first n steps, or -1. */
static long step_of(const query_state *st, size_t n, uint32_t op)
{
    for (size_t i = 0; i < n; i++)
        if (st->out[i] == op) return (long)i;
    return -1;
}

/* Has step s an input named param already (a consumer resolved twice keeps the first)? */
static bool has_input(const search_plan_step *s, const char *param)
{
    for (size_t i = 0; i < s->n_inputs; i++)
        if (!strcmp(s->inputs[i].param, param)) return true;
    return false;
}

int plan_build(const query_state *st, search_result *res)
{
    const search_engine *e = st->e;
    res->n_plan = 0;
    res->plan = NULL;
    if (!st->n_out) return 0;
    res->plan = core_arena_calloc(res->arena, st->n_out, sizeof *res->plan);
    if (!res->plan) return APIDEX_ENOMEM;
    for (size_t i = 0; i < st->n_out; i++) {
        const store_operation *op = &e->ops[st->out[i]];
        search_plan_step *s = &res->plan[i];
        *s = (search_plan_step){.id = op->id,
                                .api = op->api,
                                .method = op->method,
                                .path = op->path,
                                .operation_id = op->operation_id,
                                .summary = image_op_summary(e, st->out[i]),
                                .role = st->role[i]};
        size_t n = 0;
        for (size_t k = 0; k < st->n_inputs; k++) n += st->inputs[k].consumer == st->out[i];
        if (!n) continue;
        s->inputs = core_arena_calloc(res->arena, n, sizeof *s->inputs);
        if (!s->inputs) return APIDEX_ENOMEM;
        for (size_t k = 0; k < st->n_inputs; k++) {
            const plan_input *in = &st->inputs[k];
            if (in->consumer != st->out[i] || has_input(s, in->param)) continue;
            search_plan_input *pi = &s->inputs[s->n_inputs++];
            *pi = (search_plan_input){.param = in->param, .from = in->from};
            if (in->from != SEARCH_FROM_STEP) continue;
            long at = step_of(st, i, in->producer);
            if (at < 0) {
                /* a producer that is not an earlier step cannot serve: the caller's */
                pi->from = SEARCH_FROM_CALLER;
                continue;
            }
            pi->step = (size_t)at;
            pi->producer_id = e->ops[in->producer].id;
        }
    }
    res->n_plan = st->n_out;
    return 0;
}
