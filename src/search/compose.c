/*
 * Composition, the plan: an operation that needs an identifier the task does not give gets
 * the best producer of it placed before it, recursively; links say which input each producer
 * serves ("needs book_id <- GET /search/books"), and every input resolved is recorded with
 * where its value comes from (an earlier step, the task, the caller) for the plan (plan.c).
 *
 * Per input, in order:
 * - the task gives it (an id next to the entity's word, "its ID", "a specific X"), or it
 *   takes a name and the task names something, or it is ambient (nearly every operation
 *   of the API takes it: an account set up once): no producer;
 * - an operation of the answer produces it (a search already listed, or the creation the
 *   task also asks for: "order a pizza and pay for it"): that one serves, placed first;
 * - else the best producer by its edge's structure (weighed by the producer.* parameters),
 *   its own relevance to the task, and two task signals (the task names things: a search
 *   by text; the task says "my": the caller's own lists). A producer is never destructive
 *   (the index keeps none), never a creation the task does not ask for, and never needs an
 *   entity already being resolved on the way to it: no cycles.
 */
#include "search/search_int.h"

#include "flow/flow.h"

#include <stdlib.h>
#include <string.h>

bool compose_out_has(const query_state *st, uint32_t op)
{
    for (size_t i = 0; i < st->n_out; i++)
        if (st->out[i] == op) return true;
    return false;
}

int compose_out_push(query_state *st, uint32_t op, search_role role)
{
    if (core_array_grow2(&st->out, sizeof *st->out, &st->role, sizeof *st->role, &st->cap_out,
                         st->n_out, 32))
        return APIDEX_ENOMEM;
    st->out[st->n_out] = op;
    st->role[st->n_out++] = role;
    return 0;
}

static int link_push(query_state *st, const char *param, uint32_t producer, uint32_t consumer)
{
    if (core_array_grow(&st->links, &st->cap_links, st->n_links, sizeof *st->links, 16))
        return APIDEX_ENOMEM;
    st->links[st->n_links++] =
        (search_link){param, st->e->ops[producer].id, st->e->ops[consumer].id};
    return 0;
}

/* Where the value of consumer's input param comes from, for the plan. */
static int input_push(query_state *st, uint32_t consumer, const char *param, search_source from,
                      uint32_t producer)
{
    if (core_array_grow(&st->inputs, &st->cap_inputs, st->n_inputs, sizeof *st->inputs, 16))
        return APIDEX_ENOMEM;
    st->inputs[st->n_inputs++] = (plan_input){consumer, param, from, producer};
    return 0;
}

/* A producer serves param of consumer: the link, and where the input comes from. */
static int serve_input(query_state *st, const char *param, uint32_t producer, uint32_t consumer)
{
    int rc = link_push(st, param, producer, consumer);
    return rc ? rc : input_push(st, consumer, param, SEARCH_FROM_STEP, producer);
}

double compose_edge_score(const search_params *p, unsigned f)
{
    unsigned kind = f & FLOW_KIND_MASK;
    double s = kind < 6 ? p->producer_kind[kind] : 0;
    if (f & FLOW_F_PATH_NAMES) s += p->producer_path_names;
    if (f & FLOW_F_TEXT_QUERY) s += p->producer_text_query;
    if (f & FLOW_F_CALLER) s += p->producer_caller;
    if (f & FLOW_F_HINT) s += p->producer_hint;
    if (f & FLOW_F_DEPRECATED) s -= p->producer_deprecated;
    if (f & FLOW_F_PARENT) s += p->producer_parent;
    s += p->producer_overlap * (double)((f >> FLOW_F_OVERLAP_SHIFT) & 3u);
    s -= p->producer_own_input * (double)((f >> FLOW_F_INPUTS_SHIFT) & 15u);
    return s;
}

static bool planned(const query_state *st, uint32_t op)
{
    for (size_t i = 0; i < st->n_planned; i++)
        if (st->planned[i] == op) return true;
    return false;
}

/* The entities being resolved on the way to the current operation. */
typedef struct chain {
    const char *entity[8];
    size_t n;
} chain;

static bool chain_has(const chain *c, const char *entity)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->entity[i], entity)) return true;
    return false;
}

/* Would calling cand need an entity already being resolved (a cycle)? */
static bool closes_cycle(const query_state *st, uint32_t cand, const chain *c)
{
    const producer_ref *prods;
    size_t n = engine_op_producers(st->e, cand, &prods);
    for (size_t k = 0; k < n; k++)
        if (chain_has(c, prods[k].entity)) return true;
    return false;
}

/* Does the task already hold the value of this input (SEARCH_FROM_TASK), or is it the
   caller's, set up once (SEARCH_FROM_CALLER)? Else SEARCH_FROM_STEP: a producer is needed. */
static search_source input_source(const query_state *st, const producer_ref *r)
{
    if ((double)r->api_ops >= st->p->producer_ambient_ops && r->share >= st->p->producer_ambient)
        return SEARCH_FROM_CALLER;
    if ((r->features & FLOW_F_TAKES_NAME) && st->names_things) return SEARCH_FROM_TASK;
    if (values_give(st, r->param)) return SEARCH_FROM_TASK;
    return query_gives(st, r->entity, r->param) ? SEARCH_FROM_TASK : SEARCH_FROM_STEP;
}

static int add_op(query_state *st, uint32_t op, search_role role, unsigned depth, chain *c);

/* Resolves the input of op whose edges start at its producers[first]. */
static int resolve_input(query_state *st, uint32_t op, size_t first, unsigned depth, chain *c)
{
    const search_engine *e = st->e;
    const producer_ref *prods;
    size_t n_prods = engine_op_producers(e, op, &prods);
    const producer_ref *r0 = &prods[first];
    const char *param = r0->param;
    search_source from = input_source(st, r0);
    if (from != SEARCH_FROM_STEP) return input_push(st, op, param, from, 0);
    double max_raw = st->max_raw > 0 ? st->max_raw : 1;
    long best = -1, best_listed = -1, creator = -1;
    double best_s = -1e9, listed_s = -1e9;
    for (size_t k = first; k < n_prods && !strcmp(prods[k].param, param); k++) {
        const producer_ref *r = &prods[k];
        uint32_t cand = r->producer;
        if (!st->allowed[cand] || opposite_unasked_destructive(st, cand)) continue;
        bool creates = (r->features & FLOW_F_CREATES) != 0;
        if (creates) {
            /* a creation serves only when the task asks for it too: planned as a primary,
               or the task asks for a new one and the operation is relevant to it */
            bool asked = planned(st, cand) ||
                         (st->whole.raw[cand] > 0 && query_creates(st, r->entity, r->param));
            if (asked && !compose_out_has(st, cand) && creator < 0 && !closes_cycle(st, cand, c))
                creator = cand;
            if (!compose_out_has(st, cand)) continue;
        }
        double s = compose_edge_score(st->p, r->features) +
                   st->p->producer_relevance * st->whole.raw[cand] / max_raw;
        if (st->names_things && (e->info[cand].flags & STORE_OP_TEXT_QUERY))
            s += st->p->producer_search_bonus;
        if (st->mine && (e->info[cand].flags & STORE_OP_MINE)) s += st->p->producer_mine_bonus;
        if (compose_out_has(st, cand)) {
            /* listed already, but needing what is being resolved on the way here: no */
            if (s > listed_s && !closes_cycle(st, cand, c)) {
                listed_s = s;
                best_listed = cand;
            }
        } else if (s > best_s && !closes_cycle(st, cand, c)) {
            best_s = s;
            best = cand;
        }
    }
    if (creator >= 0) {
        /* "order a pizza and pay for it": the order the task creates is the producer */
        search_role role =
            planned(st, (uint32_t)creator) ? SEARCH_ROLE_PRIMARY : SEARCH_ROLE_PRODUCER;
        int rc = add_op(st, (uint32_t)creator, role, depth + 1, c);
        return rc ? rc : serve_input(st, param, (uint32_t)creator, op);
    }
    /* The plan is minimal: a producer already in it serves. A ranked list is read for
       recall: each consumer brings its best producer not listed yet, so the alternatives
       (search by name, the popular list, the current user) show. */
    if (best_listed >= 0 && (st->composing_plan || best < 0))
        return serve_input(st, param, (uint32_t)best_listed, op);
    if (best < 0 || depth + 1 > (unsigned)st->p->producer_depth)
        return input_push(st, op, param, SEARCH_FROM_CALLER, 0);
    int rc = add_op(st, (uint32_t)best, SEARCH_ROLE_PRODUCER, depth + 1, c);
    return rc ? rc : serve_input(st, param, (uint32_t)best, op);
}

static int add_op(query_state *st, uint32_t op, search_role role, unsigned depth, chain *c)
{
    if (compose_out_has(st, op)) return 0;
    int rc = 0;
    const producer_ref *prods;
    size_t n_prods = engine_op_producers(st->e, op, &prods);
    for (size_t p = 0; p < n_prods && !rc; p++) {
        if (p && !strcmp(prods[p].param, prods[p - 1].param)) continue;
        if (c->n == sizeof c->entity / sizeof c->entity[0]) break;
        c->entity[c->n++] = prods[p].entity;
        rc = resolve_input(st, op, p, depth, c);
        c->n--;
    }
    if (rc || compose_out_has(st, op)) return rc;
    return compose_out_push(st, op, role);
}

int compose_add(query_state *st, uint32_t op, search_role role, unsigned depth)
{
    chain c = {.n = 0};
    return add_op(st, op, role, depth, &c);
}
