/* The public C API of include/apidex.h over the store and the search engine. */
#include "search/search.h"

#include <stdlib.h>
#include <string.h>

struct apidex_index {
    store_index *store;
    search_engine *engine;
};

struct apidex_results {
    search_result *res;
    apidex_hit *hits;
    core_arena *arena;
};

int apidex_index_open(const char *path, apidex_index **out, apidex_error *err)
{
    *out = NULL;
    if (!path) return core_error_set(err, APIDEX_EINVAL, "no index path");
    apidex_index *idx = calloc(1, sizeof *idx);
    if (!idx) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    int rc = store_open(path, true, &idx->store, err);
    if (!rc) rc = search_engine_open(idx->store, &idx->engine, err);
    if (rc) {
        apidex_index_close(idx);
        return rc;
    }
    *out = idx;
    return 0;
}

void apidex_index_close(apidex_index *idx)
{
    if (!idx) return;
    search_engine_close(idx->engine);
    store_close(idx->store);
    free(idx);
}

int apidex_search(apidex_index *idx, const char *task, const apidex_search_options *opt,
                  apidex_results **out, apidex_error *err)
{
    *out = NULL;
    if (!idx || !task) return core_error_set(err, APIDEX_EINVAL, "no index or no task");
    apidex_search_options o = opt ? *opt : (apidex_search_options){0};
    const char *apis[2] = {o.api, NULL};
    search_query q = {.text = task,
                      .k = o.k,
                      .adaptive = o.adaptive != 0,
                      .budget = o.budget,
                      .apis = o.api ? apis : NULL};
    apidex_results *r = calloc(1, sizeof *r);
    if (!r || !(r->arena = core_arena_new(0))) {
        free(r);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    int rc = search_engine_run(idx->engine, &q, &r->res, err);
    if (!rc && r->res->n_hits &&
        !(r->hits = core_arena_calloc(r->arena, r->res->n_hits, sizeof *r->hits)))
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < r->res->n_hits; i++) {
        const search_hit *h = &r->res->hits[i];
        core_buf needs;
        core_buf_init(&needs, 1 << 16);
        for (size_t l = 0; l < h->n_links; l++)
            core_buf_printf(&needs, "%s%s <- %s", l ? "; " : "", h->links[l].param,
                            h->links[l].producer_id);
        r->hits[i] = (apidex_hit){h->id,
                                  h->api,
                                  h->method,
                                  h->path,
                                  h->summary,
                                  h->score,
                                  h->role == SEARCH_ROLE_PRODUCER,
                                  core_arena_strdup(r->arena, needs.data ? needs.data : ""),
                                  h->confidence};
        core_buf_free(&needs);
        if (!r->hits[i].needs) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    if (rc) {
        apidex_results_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

size_t apidex_results_count(const apidex_results *res)
{
    return res && res->res ? res->res->n_hits : 0;
}

const apidex_hit *apidex_results_hit(const apidex_results *res, size_t i)
{
    return i < apidex_results_count(res) ? &res->hits[i] : NULL;
}

const char *apidex_results_match(const apidex_results *res)
{
    return search_match_name(res && res->res ? res->res->match : SEARCH_MATCH_NONE);
}

double apidex_results_confidence(const apidex_results *res)
{
    return res && res->res ? res->res->confidence : 0;
}

const char *apidex_results_context(const apidex_results *res)
{
    return res && res->res ? res->res->context : NULL;
}

void apidex_results_free(apidex_results *res)
{
    if (!res) return;
    search_result_free(res->res);
    core_arena_free(res->arena);
    free(res);
}
