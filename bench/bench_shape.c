/* Response shaping on realistic bodies: every JSON response example of the given specs
   (TMDB's are real API responses) shaped as `apidex call` shapes them, with the cl100k
   tokens of the raw body and of the shaped body, and whether the example matches its own
   response schema. Deterministic (a size measurement, not a timing). */
#include "exec/exec.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static size_t median(size_t *v, size_t n)
{
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_size);
    return v[n / 2];
}

typedef struct totals {
    size_t n, raw, shaped, valid, invalid, over_budget, cut_arrays;
    size_t *raws, *shapeds;
} totals;

static void shape_one(const spec_api *api, const spec_operation *op, const spec_response *resp,
                      const jt_node *example, const exec_shape_options *opt, totals *t)
{
    core_buf body;
    core_buf_init(&body, 0);
    if (jt_write_json(&body, example, 0) || !body.len) {
        core_buf_free(&body);
        return;
    }
    exec_header h[] = {{"Content-Type", "application/json", false}};
    exec_response r = {.status = strtol(resp->status, NULL, 10),
                       .headers = h,
                       .n_headers = 1,
                       .body = body.data,
                       .body_len = body.len};
    json_object *out = NULL;
    apidex_error err = {0};
    if (!r.status || exec_shape(&r, api, op, opt, &out, &err)) {
        core_buf_free(&body);
        return;
    }
    json_object *tokens, *full, *shown, *schema, *valid, *arrays;
    json_object_object_get_ex(out, "tokens", &tokens);
    if (tokens && json_object_object_get_ex(tokens, "full", &full) &&
        json_object_object_get_ex(tokens, "shown", &shown)) {
        size_t raw = (size_t)json_object_get_int64(full);
        size_t shaped = (size_t)json_object_get_int64(shown);
        t->raws[t->n] = raw;
        t->shapeds[t->n] = shaped;
        t->n++;
        t->raw += raw;
        t->shaped += shaped;
        if (raw > opt->budget) t->over_budget++;
        if (json_object_object_get_ex(out, "arrays", &arrays)) t->cut_arrays++;
        if (json_object_object_get_ex(out, "schema", &schema) &&
            json_object_object_get_ex(schema, "valid", &valid)) {
            if (json_object_get_boolean(valid))
                t->valid++;
            else
                t->invalid++;
        }
    }
    json_object_put(out);
    core_buf_free(&body);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_shape SPEC... \n");
        return 2;
    }
    exec_shape_options opt = {.budget = 2000, .max_items = 10};
    totals t = {.raws = calloc(100000, sizeof(size_t)), .shapeds = calloc(100000, sizeof(size_t))};
    for (int a = 1; a < argc; a++) {
        spec_registry *reg = NULL;
        apidex_error err = {0};
        if (spec_load_file(argv[a], NULL, &reg, &err)) {
            fprintf(stderr, "%s: %s\n", argv[a], err.message);
            continue;
        }
        const spec_api *api = spec_registry_api(reg, 0);
        for (size_t i = 0; api && i < api->n_ops; i++) {
            const spec_operation *op = &api->ops[i];
            for (size_t k = 0; k < op->n_responses; k++) {
                const spec_response *resp = &op->responses[k];
                for (size_t m = 0; m < resp->n_media; m++) {
                    const jt_node *media = resp->media[m].node.node;
                    if (!media || !strstr(resp->media[m].type, "json")) continue;
                    const jt_node *ex = jt_get(media, "example");
                    if (ex && t.n < 100000) shape_one(api, op, resp, ex, &opt, &t);
                    const jt_node *exs = jt_get(media, "examples");
                    for (size_t e = 0; exs && jt_is(exs, JT_OBJECT) && e < exs->len; e++) {
                        const jt_node *value = jt_get(exs->u.members[e].value, "value");
                        if (value && t.n < 100000) shape_one(api, op, resp, value, &opt, &t);
                    }
                }
            }
        }
        spec_registry_free(reg);
    }
    size_t sum_raw = t.raw, sum_shaped = t.shaped;
    size_t med_raw = median(t.raws, t.n), med_shaped = median(t.shapeds, t.n);
    printf("examples shaped           %zu (budget %zu tokens, %zu items per array)\n", t.n,
           opt.budget, opt.max_items);
    printf("tokens raw / shaped       %zu / %zu (%.1f%%)\n", sum_raw, sum_shaped,
           sum_raw ? 100.0 * (double)sum_shaped / (double)sum_raw : 0.0);
    printf("median raw / shaped       %zu / %zu\n", med_raw, med_shaped);
    printf("largest raw, largest shaped %zu, %zu\n", t.n ? t.raws[t.n - 1] : 0,
           t.n ? t.shapeds[t.n - 1] : 0);
    printf("over the budget raw       %zu\n", t.over_budget);
    printf("with long arrays cut      %zu\n", t.cut_arrays);
    printf("schema check valid/not    %zu / %zu\n", t.valid, t.invalid);
    free(t.raws);
    free(t.shapeds);
    return 0;
}
