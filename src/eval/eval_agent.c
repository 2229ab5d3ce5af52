/*
 * eval: the Discovery Agent on RestBench-format query sets, reported in the
 * layout of the paper's Table 4: per query file, the retrieval alone at k
 * ("RAG": the k endpoints' documentation is what an LLM would read) next to
 * the agent with the chosen tools, with recall, precision, F1 and the mean
 * prompt, completion and total tokens per query.
 */
#include "eval/eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The label of a query file: its name without folders and extension ("tmdb"). */
static const char *file_label(core_arena *a, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strcspn(base, ".");
    return core_arena_strndup(a, base, n ? n : strlen(base));
}

static int rag_scores(search_engine *eng, store_index *idx, const eval_query *q, size_t k,
                      const char *const *apis, core_arena *a, eval_scores *out, size_t *tokens,
                      apidex_error *err)
{
    search_query sq = {.text = q->text, .k = k, .apis = apis, .mode = SEARCH_LEXICAL};
    search_result *res = NULL;
    int rc = search_engine_run(eng, &sq, &res, err);
    if (rc) return rc;
    const char **list = core_arena_calloc(a, res->n_hits ? res->n_hits : 1, sizeof *list);
    const store_operation *ops = NULL;
    size_t n_ops = 0;
    store_operations(idx, &ops, &n_ops, NULL);
    *tokens = 0;
    for (size_t i = 0; list && i < res->n_hits; i++) {
        list[i] = core_arena_printf(a, "%s %s", res->hits[i].method, res->hits[i].path);
        long oi = store_find_operation(idx, res->hits[i].id);
        if (oi >= 0 && i < k) *tokens += ops[oi].tokens;
    }
    rc = list ? eval_score(q->gold, q->n_gold, list, res->n_hits, k, out) : APIDEX_ENOMEM;
    search_result_free(res);
    return rc ? core_error_set(err, rc, "out of memory") : 0;
}

/* Adds one query's numbers to a column (means are taken at the end). */
static void column_add(eval_agent_column *c, const eval_agent_query *q)
{
    c->queries++;
    c->failed += q->error != NULL;
    c->dropped += q->dropped;
    c->recall += q->scores.recall;
    c->precision += q->scores.precision;
    c->f1 += q->scores.f1;
    c->prompt += (double)q->usage.prompt;
    c->completion += (double)q->usage.completion;
    c->total += (double)q->usage.total;
    c->estimated = c->estimated || q->usage.estimated;
    c->rag_recall += q->rag.recall;
    c->rag_precision += q->rag.precision;
    c->rag_f1 += q->rag.f1;
    c->rag_tokens += (double)q->rag_tokens;
}

static void column_finish(eval_agent_column *c)
{
    if (!c->queries) return;
    double n = (double)c->queries;
    c->recall /= n;
    c->precision /= n;
    c->f1 /= n;
    c->prompt /= n;
    c->completion /= n;
    c->total /= n;
    c->rag_recall /= n;
    c->rag_precision /= n;
    c->rag_f1 /= n;
    c->rag_tokens /= n;
}

int eval_agent_run(agent_llm *llm, search_engine *eng, store_index *idx, const eval_set *set,
                   const eval_agent_options *opt, eval_agent_report **out, apidex_error *err)
{
    *out = NULL;
    eval_agent_options defaults = {0};
    if (!opt) opt = &defaults;
    size_t k = opt->discover.k ? opt->discover.k : 10;
    eval_agent_report *r = calloc(1, sizeof *r);
    size_t n = set ? set->n : 0;
    if (!r || !(r->arena = core_arena_new(0)) ||
        !(r->per_query = core_arena_calloc(r->arena, n ? n : 1, sizeof *r->per_query)) ||
        !(r->columns = core_arena_calloc(r->arena, n ? n : 1, sizeof *r->columns))) {
        eval_agent_report_free(r);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    r->tools = opt->discover.tools;
    r->k = k;
    r->model = core_arena_strdup(r->arena, agent_llm_get_config(llm)->model);
    double t0 = core_now();
    int rc = 0;
    size_t per_file = 0;
    const char *last_file = NULL;
    for (size_t i = 0; i < n && !rc; i++) {
        const eval_query *q = &set->items[i];
        if (!last_file || strcmp(last_file, q->file)) {
            last_file = q->file;
            per_file = 0;
            eval_agent_column *c = &r->columns[r->n_columns++];
            c->name = file_label(r->arena, q->file);
        }
        if (opt->limit && per_file >= opt->limit) continue;
        per_file++;
        eval_agent_query *qr = &r->per_query[r->n++];
        qr->query = q;
        qr->column = r->n_columns - 1;
        rc = rag_scores(eng, idx, q, k, opt->discover.apis, r->arena, &qr->rag, &qr->rag_tokens,
                        err);
        if (rc) break;
        agent_discovery *d = NULL;
        apidex_error qerr;
        core_error_clear(&qerr);
        int qrc = agent_discover(llm, idx, eng, q->text, &opt->discover, &d, &qerr);
        if (qrc == APIDEX_ENET || qrc == APIDEX_EINVAL || qrc == APIDEX_ENOMEM) {
            /* The server or its configuration failed: every other query would too. */
            if (err) *err = qerr;
            rc = qrc;
            break;
        }
        if (qrc) {
            qr->error = core_arena_strdup(r->arena, qerr.message);
        } else {
            qr->usage = d->usage;
            qr->dropped = d->n_dropped;
            qr->returned = core_arena_calloc(r->arena, d->n_endpoints ? d->n_endpoints : 1,
                                             sizeof *qr->returned);
            for (size_t e = 0; qr->returned && e < d->n_endpoints; e++)
                qr->returned[qr->n_returned++] = core_arena_printf(
                    r->arena, "%s %s", d->endpoints[e].method, d->endpoints[e].path);
            int src = qr->returned ? eval_score(q->gold, q->n_gold, qr->returned, qr->n_returned, 0,
                                                &qr->scores)
                                   : APIDEX_ENOMEM;
            agent_discovery_free(d);
            if (src) {
                rc = core_error_set(err, src, "out of memory");
                break;
            }
        }
        column_add(&r->columns[qr->column], qr);
        column_add(&r->all, qr);
        if (opt->progress) opt->progress(opt->progress_ctx, r->n, n, qr->scores.f1);
    }
    for (size_t c = 0; c < r->n_columns; c++) column_finish(&r->columns[c]);
    r->all.name = "all";
    column_finish(&r->all);
    r->seconds = core_now() - t0;
    if (rc) {
        eval_agent_report_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

void eval_agent_report_free(eval_agent_report *r)
{
    if (!r) return;
    core_arena_free(r->arena);
    free(r);
}

/* One table cell; the better of the pair is bold (higher accuracy, fewer tokens). */
static void cell(core_buf *b, double v, double other, bool higher_better, bool percent)
{
    bool best = higher_better ? v > other : v < other;
    double shown = percent ? v * 100.0 : v;
    core_buf_printf(b, best ? " **%.2f** |" : " %.2f |", shown);
}

int eval_agent_report_text(const eval_agent_report *r, bool per_query, core_buf *b)
{
    const char *mode = r->tools == AGENT_TOOLS_QUERY ? "Query" : "Summary";
    core_buf_printf(b,
                    "Discovery Agent, %s tools, k = %zu, model %s: %zu queries in %.1f s "
                    "(accuracy in percent; tokens are means per query)\n\n",
                    r->tools == AGENT_TOOLS_QUERY ? "query" : "summary", r->k,
                    r->model ? r->model : "?", r->n, r->seconds);
    const eval_agent_column *cols = r->columns;
    size_t nc = r->n_columns;
    core_buf_puts(b, "| | |");
    for (size_t c = 0; c < nc; c++) core_buf_printf(b, " %s | |", cols[c].name);
    core_buf_puts(b, "\n| | |");
    for (size_t c = 0; c < nc; c++) core_buf_printf(b, " RAG | %s |", mode);
    core_buf_puts(b, "\n|---|---|");
    for (size_t c = 0; c < nc; c++) core_buf_puts(b, "---:|---:|");
    core_buf_putc(b, '\n');
    static const char *const rows[] = {"Recall", "Precision",  "F1",
                                       "Prompt", "Completion", "Total"};
    for (int row = 0; row < 6; row++) {
        core_buf_printf(b, "| %s | %s |",
                        row == 0   ? "Accuracy"
                        : row == 3 ? "#Token"
                                   : "",
                        rows[row]);
        for (size_t c = 0; c < nc; c++) {
            const eval_agent_column *x = &cols[c];
            double rag = 0, agent = 0;
            switch (row) {
            case 0:
                rag = x->rag_recall, agent = x->recall;
                break;
            case 1:
                rag = x->rag_precision, agent = x->precision;
                break;
            case 2:
                rag = x->rag_f1, agent = x->f1;
                break;
            case 3:
                rag = x->rag_tokens, agent = x->prompt;
                break;
            case 4:
                rag = 0, agent = x->completion;
                break;
            default:
                rag = x->rag_tokens, agent = x->total;
                break;
            }
            cell(b, rag, agent, row < 3, row < 3);
            cell(b, agent, rag, row < 3, row < 3);
        }
        core_buf_putc(b, '\n');
    }
    const eval_agent_column *all = &r->all;
    core_buf_printf(b,
                    "\nall %zu queries: agent recall %.4f, precision %.4f, F1 %.4f; tokens per "
                    "query: prompt %.1f, completion %.1f, total %.1f%s; %zu invented endpoints "
                    "dropped; %zu queries failed\n",
                    all->queries, all->recall, all->precision, all->f1, all->prompt,
                    all->completion, all->total,
                    all->estimated ? " (some counted with cl100k: the server sent no usage)" : "",
                    all->dropped, all->failed);
    for (size_t i = 0; per_query && i < r->n; i++) {
        const eval_agent_query *q = &r->per_query[i];
        core_buf_printf(b, "\n[%s #%zu] F1 %.2f R %.2f P %.2f, %zu tokens: %s\n",
                        r->columns[q->column].name, q->query->index, q->scores.f1, q->scores.recall,
                        q->scores.precision, q->usage.total, q->query->text);
        for (size_t e = 0; e < q->n_returned; e++)
            core_buf_printf(b, "    -> %s\n", q->returned[e]);
        for (size_t g = 0; g < q->query->n_gold; g++)
            core_buf_printf(b, "    gold %s\n", q->query->gold[g]);
        if (q->error) core_buf_printf(b, "    error: %s\n", q->error);
    }
    return b->failed ? APIDEX_ENOMEM : 0;
}

static void column_json(core_buf *b, const eval_agent_column *c)
{
    core_buf_puts(b, "{\"name\":");
    core_buf_json_str(b, c->name, strlen(c->name));
    core_buf_printf(b,
                    ",\"queries\":%zu,\"failed\":%zu,\"dropped\":%zu,\"agent\":{\"recall\":%.4f,"
                    "\"precision\":%.4f,\"f1\":%.4f,\"tokens\":{\"prompt\":%.1f,\"completion\":"
                    "%.1f,\"total\":%.1f,\"estimated\":%s}},\"rag\":{\"recall\":%.4f,"
                    "\"precision\":%.4f,\"f1\":%.4f,\"tokens\":%.1f}}",
                    c->queries, c->failed, c->dropped, c->recall, c->precision, c->f1, c->prompt,
                    c->completion, c->total, c->estimated ? "true" : "false", c->rag_recall,
                    c->rag_precision, c->rag_f1, c->rag_tokens);
}

int eval_agent_report_json(const eval_agent_report *r, bool per_query, core_buf *b)
{
    core_buf_printf(b, "{\"agent\":\"%s\",\"k\":%zu,\"model\":",
                    r->tools == AGENT_TOOLS_QUERY ? "query" : "summary", r->k);
    core_buf_json_str(b, r->model ? r->model : "", r->model ? strlen(r->model) : 0);
    core_buf_printf(b, ",\"queries\":%zu,\"seconds\":%.2f,\"all\":", r->n, r->seconds);
    column_json(b, &r->all);
    core_buf_puts(b, ",\"datasets\":[");
    for (size_t c = 0; c < r->n_columns; c++) {
        if (c) core_buf_putc(b, ',');
        column_json(b, &r->columns[c]);
    }
    core_buf_putc(b, ']');
    if (per_query) {
        core_buf_puts(b, ",\"per_query\":[");
        for (size_t i = 0; i < r->n; i++) {
            const eval_agent_query *q = &r->per_query[i];
            core_buf_puts(b, i ? ",{\"query\":" : "{\"query\":");
            core_buf_json_str(b, q->query->text, strlen(q->query->text));
            core_buf_printf(b,
                            ",\"f1\":%.4f,\"recall\":%.4f,\"precision\":%.4f,\"tokens\":%zu,"
                            "\"returned\":[",
                            q->scores.f1, q->scores.recall, q->scores.precision, q->usage.total);
            for (size_t e = 0; e < q->n_returned; e++) {
                if (e) core_buf_putc(b, ',');
                core_buf_json_str(b, q->returned[e], strlen(q->returned[e]));
            }
            core_buf_puts(b, "],\"error\":");
            if (q->error)
                core_buf_json_str(b, q->error, strlen(q->error));
            else
                core_buf_puts(b, "null");
            core_buf_putc(b, '}');
        }
        core_buf_putc(b, ']');
    }
    core_buf_puts(b, "}\n");
    return b->failed ? APIDEX_ENOMEM : 0;
}
