/* Helpers of the search tests: an index of some fixture specs with its engine, a query run
   that fails the test on error, and finding a hit. */
#ifndef APIDEX_SEARCH_TESTUTIL_H
#define APIDEX_SEARCH_TESTUTIL_H

#include "testutil.h"

#include "build/build.h"
#include "search/search.h"
#include "oas/oas.h"

#include <stdlib.h>
#include <string.h>

typedef struct search_fixture {
    char *dir, *db;
    store_index *idx;
    search_engine *eng;
} search_fixture;

/* Indexes specs (paths under the source root, NULL-terminated) into a temp folder. */
static inline search_fixture *search_fixture_new(const char *const *specs)
{
    search_fixture *f = calloc(1, sizeof *f);
    f->dir = tu_tempdir();
    f->db = tu_path(f->dir, "index.db");
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    for (size_t i = 0; specs[i]; i++) {
        char *p = tu_path(tu_source_dir(), specs[i]);
        assert_int_equal(spec_registry_add(reg, p, &err), 0);
        free(p);
    }
    if (build_index(f->db, reg, NULL, NULL, &err)) fail_msg("build_index: %s", err.message);
    spec_registry_free(reg);
    if (store_open(f->db, true, &f->idx, &err)) fail_msg("store_open: %s", err.message);
    if (search_engine_open(f->idx, &f->eng, &err)) fail_msg("engine: %s", err.message);
    return f;
}

static inline int search_fixture_teardown(void **state)
{
    search_fixture *f = *state;
    search_engine_close(f->eng);
    store_close(f->idx);
    tu_rmtree(f->dir);
    free(f->dir);
    free(f->db);
    free(f);
    return 0;
}

static inline search_result *search_fixture_run(search_fixture *f, search_query q)
{
    search_result *r = NULL;
    apidex_error err;
    core_error_clear(&err);
    if (search_engine_run(f->eng, &q, &r, &err)) fail_msg("search: %s", err.message);
    return r;
}

/* The first primary of the adaptive answer to task with one search parameter set
   ("name=value"; NULL: the defaults), malloc'd; NULL when the answer has none. */
static inline char *search_fixture_first_primary(search_fixture *f, const char *task,
                                                 const char *set)
{
    search_params p;
    search_params_default(&p);
    apidex_error err;
    if (set && search_params_parse(&p, set, &err)) fail_msg("param %s: %s", set, err.message);
    search_result *r =
        search_fixture_run(f, (search_query){.text = task, .adaptive = true, .params = &p});
    char *id = NULL;
    for (size_t i = 0; i < r->n_hits && !id; i++)
        if (r->hits[i].role == SEARCH_ROLE_PRIMARY) id = strdup(r->hits[i].id);
    search_result_free(r);
    return id;
}

/* Step of the plan with this id, or -1. */
static inline long search_step_index(const search_result *r, const char *id)
{
    for (size_t i = 0; i < r->n_plan; i++)
        if (!strcmp(r->plan[i].id, id)) return (long)i;
    return -1;
}

/* The input param of the plan's step for id, or NULL. */
static inline const search_plan_input *search_step_input(const search_result *r, const char *id,
                                                         const char *param)
{
    long s = search_step_index(r, id);
    for (size_t i = 0; s >= 0 && i < r->plan[s].n_inputs; i++)
        if (!strcmp(r->plan[s].inputs[i].param, param)) return &r->plan[s].inputs[i];
    return NULL;
}

/* Position of the hit with this id, or -1. */
static inline long search_hit_index(const search_result *r, const char *id)
{
    for (size_t i = 0; i < r->n_hits; i++)
        if (!strcmp(r->hits[i].id, id)) return (long)i;
    return -1;
}

/* An index at dir/name of specs[first..last) (paths under the source root, NULL-terminated
   list), written with the search image when one is installed; first > 0: added to the
   index already there (keep_unlisted, inherit). The path: free(). */
static inline char *search_tu_build_from(const char *dir, const char *name,
                                         const char *const *specs, size_t first, size_t last)
{
    char *db = tu_path(dir, name);
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    for (size_t i = first; specs[i] && i < last; i++) {
        char *p = tu_path(tu_source_dir(), specs[i]);
        assert_int_equal(spec_registry_add(reg, p, &err), 0);
        free(p);
    }
    build_options o = {.keep_unlisted = first > 0, .inherit = first > 0};
    if (build_index(db, reg, &o, NULL, &err)) fail_msg("build_index: %s", err.message);
    spec_registry_free(reg);
    return db;
}

/* Every answer of eng to tasks[0..n) (k 10, plain and adaptive), appended to out one line per
   hit with all it carries (id, route, score and confidence bit for bit, role, why, summary,
   producer links) and one per plan step: the image tests compare these between opens. */
static inline void search_tu_answers(search_engine *eng, const char *const *tasks, size_t n,
                                     core_buf *out)
{
    apidex_error err;
    core_error_clear(&err);
    for (size_t t = 0; t < n; t++)
        for (int adaptive = 0; adaptive < 2; adaptive++) {
            search_query q = {.text = tasks[t], .k = 10, .adaptive = adaptive};
            search_result *r = NULL;
            assert_int_equal(search_engine_run(eng, &q, &r, &err), 0);
            core_buf_printf(out, "%s/%d: %zu hits, confidence %a\n", tasks[t], adaptive, r->n_hits,
                            r->confidence);
            for (size_t i = 0; i < r->n_hits; i++) {
                const search_hit *h = &r->hits[i];
                core_buf_printf(out, "  %s %s %s %a %d %a [%s] {%s} links %zu\n", h->id, h->method,
                                h->path, h->score, (int)h->role, h->confidence,
                                h->why ? h->why : "", h->summary ? h->summary : "(none)",
                                h->n_links);
                for (size_t l = 0; l < h->n_links; l++)
                    core_buf_printf(out, "    %s <- %s\n", h->links[l].param,
                                    h->links[l].producer_id ? h->links[l].producer_id : "");
            }
            for (size_t i = 0; i < r->n_plan; i++)
                core_buf_printf(out, "  plan %s {%s} %zu inputs\n", r->plan[i].id,
                                r->plan[i].summary ? r->plan[i].summary : "(none)",
                                r->plan[i].n_inputs);
            search_result_free(r);
        }
}

#endif
