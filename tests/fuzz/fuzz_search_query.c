/* libFuzzer target for the search engine's query side: each input is a task (quotes, #tags,
   @handles, URLs, typos, ids, any bytes) run as a ranked list, as an adaptive answer with a
   context budget, and with filters, against an index of the example and fixture specs
   (built once; run from the source root, as scripts/fuzz-smoke.sh does). */
#include "build/build.h"
#include "search/search.h"
#include "oas/oas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static store_index *idx;
static search_engine *eng;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char path[64];
    snprintf(path, sizeof path, "/tmp/apidex-fuzz-search-%d.db", (int)getpid());
    apidex_error err;
    spec_registry *reg = NULL;
    if (spec_registry_new(NULL, &reg, &err)) abort();
    const char *specs[] = {"examples", "tests/data/search/films.yaml",
                           "tests/data/search/music.yaml"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (spec_registry_add(reg, specs[i], &err)) {
            fprintf(stderr, "fuzz_search_query: %s (run from the source root)\n", err.message);
            abort();
        }
    if (build_index(path, reg, NULL, NULL, &err)) abort();
    spec_registry_free(reg);
    if (store_open(path, true, &idx, &err) || search_engine_open(idx, &eng, &err)) abort();
    unlink(path); /* the open index keeps its data */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    static const char *const apis[] = {"films", NULL};
    static const char *const methods[] = {"GET", NULL};
    search_query qs[] = {
        {.text = text, .k = 20},
        {.text = text, .adaptive = true, .budget = 600},
        {.text = text, .k = 5, .apis = apis, .methods = methods, .include_deprecated = true},
    };
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        search_result *res = NULL;
        apidex_error err;
        if (search_engine_run(eng, &qs[i], &res, &err) == 0) {
            if (res->n_hits > (qs[i].adaptive ? 64 : qs[i].k)) abort();
            for (size_t h = 0; h < res->n_hits; h++)
                if (!res->hits[h].id || !res->hits[h].why) abort();
            if (qs[i].budget && res->context_tokens > qs[i].budget) abort();
        }
        search_result_free(res);
    }
    free(text);
    return 0;
}
