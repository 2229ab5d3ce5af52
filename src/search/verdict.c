/*
 * The answer's match as a reader gets it: the words every front end (the CLI, HTTP, MCP and
 * the page) shows for a weak match or for none, and the closest APIs those words name. One
 * place, so the CLI, the server and the tools say the same thing.
 */
#include "search/search.h"

#include <stdlib.h>
#include <string.h>

size_t search_closest_apis(const search_result *res, const char **out, size_t max)
{
    size_t n = 0;
    /* the hits' APIs, most confident first (a stable pick: ties keep the hits' order) */
    bool *taken = res->n_hits ? calloc(res->n_hits, sizeof *taken) : NULL;
    if (res->n_hits && !taken) return 0;
    while (n < max) {
        long best = -1;
        for (size_t i = 0; i < res->n_hits; i++) {
            if (taken[i] || !res->hits[i].api || !(res->hits[i].score > 0)) continue;
            if (best < 0 || res->hits[i].confidence > res->hits[best].confidence) best = (long)i;
        }
        if (best < 0) break;
        const char *api = res->hits[best].api;
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++) dup = !strcmp(out[k], api);
        for (size_t i = 0; i < res->n_hits; i++) /* every hit of that API is done */
            if (res->hits[i].api && !strcmp(res->hits[i].api, api)) taken[i] = true;
        if (!dup) out[n++] = api;
    }
    free(taken);
    return n;
}

int search_match_words(const search_result *res, core_buf *out)
{
    if (res->match == SEARCH_MATCH_STRONG) return out->failed ? APIDEX_ENOMEM : 0;
    if (res->match == SEARCH_MATCH_WEAK) {
        core_buf_printf(out,
                        "Weak match (confidence %.2f): these endpoints may not do the task; "
                        "check them before calling one.",
                        res->confidence);
        return out->failed ? APIDEX_ENOMEM : 0;
    }
    core_buf_puts(out, "Nothing in this registry fits the task.");
    const char *apis[SEARCH_CLOSEST_APIS];
    size_t n = search_closest_apis(res, apis, SEARCH_CLOSEST_APIS);
    for (size_t i = 0; i < n; i++)
        core_buf_printf(out, "%s%s", i ? ", " : " Closest APIs: ", apis[i]);
    if (n) core_buf_putc(out, '.');
    return out->failed ? APIDEX_ENOMEM : 0;
}
