/* apidex search: the plan beside the ranked list, as JSON ("plan": steps in call order, each
   input with where its value comes from) and as text. One shape with /v1/search and MCP. */
#include "cli/cli.h"

#include "search/search.h"

#include <string.h>

static const char *source_name(search_source from)
{
    return from == SEARCH_FROM_STEP ? "step" : from == SEARCH_FROM_TASK ? "task" : "caller";
}

void cli_search_plan_json(const search_result *res, core_buf *b)
{
    core_buf_puts(b, ",\"plan\":[");
    for (size_t i = 0; i < res->n_plan; i++) {
        const search_plan_step *s = &res->plan[i];
        core_buf_printf(b, "%s{\"step\":%zu,\"id\":", i ? "," : "", i + 1);
        core_buf_json_str_or_null(b, s->id);
        core_buf_puts(b, ",\"api\":");
        core_buf_json_str_or_null(b, s->api);
        core_buf_puts(b, ",\"method\":");
        core_buf_json_str_or_null(b, s->method);
        core_buf_puts(b, ",\"path\":");
        core_buf_json_str_or_null(b, s->path);
        core_buf_printf(b, ",\"role\":\"%s\",\"inputs\":[",
                        s->role == SEARCH_ROLE_PRODUCER ? "producer" : "primary");
        for (size_t k = 0; k < s->n_inputs; k++) {
            const search_plan_input *in = &s->inputs[k];
            core_buf_puts(b, k ? ",{\"param\":" : "{\"param\":");
            core_buf_json_str_or_null(b, in->param);
            core_buf_printf(b, ",\"from\":\"%s\"", source_name(in->from));
            if (in->from == SEARCH_FROM_STEP) {
                core_buf_printf(b, ",\"step\":%zu,\"producer\":", in->step + 1);
                core_buf_json_str_or_null(b, in->producer_id);
            }
            core_buf_putc(b, '}');
        }
        core_buf_puts(b, "]}");
    }
    core_buf_putc(b, ']');
}

void cli_search_plan_text(const search_result *res, core_buf *b)
{
    if (!res->n_plan) return;
    core_buf_puts(b, "\nplan (call order):\n");
    for (size_t i = 0; i < res->n_plan; i++) {
        const search_plan_step *s = &res->plan[i];
        core_buf_printf(b, "%2zu. %-7s %s  [%s]%s\n", i + 1, s->method, s->path, s->api,
                        s->role == SEARCH_ROLE_PRODUCER ? "  (producer)" : "");
        for (size_t k = 0; k < s->n_inputs; k++) {
            const search_plan_input *in = &s->inputs[k];
            if (in->from == SEARCH_FROM_STEP) {
                const search_plan_step *p = &res->plan[in->step];
                core_buf_printf(b, "    %s <- step %zu (%s %s)\n", in->param, in->step + 1,
                                p->method, p->path);
            } else {
                core_buf_printf(b, "    %s <- %s\n", in->param,
                                in->from == SEARCH_FROM_TASK ? "the task" : "the caller");
            }
        }
    }
}
