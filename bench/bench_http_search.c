/* The cost of the search alone, for bench/bench_http.sh: the same queries the HTTP load
 * sends (k = 10, the /v1/search default), run in-process through the query layer the
 * server uses, on one thread. Prints median and p99 microseconds and queries/s.
 *
 *   bench_http_search DB QUERIES.txt [SECONDS]
 */
#include "serve/serve.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_http_search DB QUERIES.txt [SECONDS]\n");
        return 2;
    }
    double seconds = argc > 3 ? atof(argv[3]) : 3.0;
    if (seconds <= 0 || seconds > 600) seconds = 3.0;
    apidex_error err;
    char *text = NULL;
    size_t len = 0;
    if (core_file_read(argv[2], 16 << 20, &text, &len, &err) != 0) {
        fprintf(stderr, "bench_http_search: %s\n", err.message);
        return 1;
    }
    char *queries[4096];
    size_t n_queries = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && n_queries < 4096;
         line = strtok_r(NULL, "\n", &save))
        if (*line) queries[n_queries++] = line;
    serve_db *db = NULL;
    if (!n_queries || serve_db_open(argv[1], -1, &db, &err) != 0) {
        fprintf(stderr, "bench_http_search: %s\n", n_queries ? err.message : "no queries");
        free(text);
        return 1;
    }
    size_t cap = 1 << 20, n = 0;
    double *lat = malloc(cap * sizeof *lat);
    /* warm-up: one pass over the queries */
    for (size_t i = 0; i < n_queries; i++) {
        serve_snapshot *snap = serve_db_acquire(db);
        serve_search_args a = {.task = queries[i], .k = 10};
        struct json_object *out = NULL;
        if (serve_query_search(snap, &a, &out, &err) == 0) json_object_put(out);
        serve_snapshot_release(snap);
    }
    double start = core_now();
    while (lat && n < cap && core_now() - start < seconds) {
        /* what one /v1/search request does: snapshot, query, JSON, serialise */
        double t0 = core_now();
        serve_snapshot *snap = serve_db_acquire(db);
        serve_search_args a = {.task = queries[n % n_queries], .k = 10};
        struct json_object *out = NULL;
        if (serve_query_search(snap, &a, &out, &err) == 0) {
            size_t sl = 0;
            free(serve_json_dump(out, &sl));
            json_object_put(out);
        }
        serve_snapshot_release(snap);
        lat[n++] = (core_now() - t0) * 1e6;
    }
    double total = core_now() - start;
    qsort(lat, n, sizeof *lat, cmp_double);
    printf("search alone: %zu queries in %.2f s, median %.1f us, p99 %.1f us, %.0f queries/s "
           "(1 thread)\n",
           n, total, n ? lat[n / 2] : 0.0, n ? lat[(size_t)(n * 0.99)] : 0.0, n / total);
    free(lat);
    serve_db_close(db);
    free(text);
    return 0;
}
