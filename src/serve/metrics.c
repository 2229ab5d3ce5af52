/*
 * Prometheus metrics: request counts by route and status, a latency histogram
 * per route, MCP requests by method, and the size of the served index. Counters
 * are lock-free atomics; labels come from fixed sets so cardinality is bounded.
 */
#include "serve/serve_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const serve_route_names[ROUTE_COUNT] = {
    "/v1/search", "/v1/endpoints/{id}", "/v1/apis",     "/v1/ask",   "/healthz",
    "/metrics",   "/openapi.json",      "/mcp",         "/v1/tools", "/",
    "/v1/ui",     "/v1/match",          "/v1/feedback", "/v1/call",  "other"};

/* Latency bucket upper bounds, seconds. */
static const double buckets[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                 0.05,   0.1,   0.25,   0.5,   1.0,  2.5};
enum { N_BUCKETS = sizeof buckets / sizeof buckets[0], N_STATUS = 600 };

static const char *const mcp_methods[] = {"initialize",     "notifications/initialized",
                                          "ping",           "server/discover",
                                          "tools/list",     "tools/call",
                                          "resources/list", "resources/templates/list",
                                          "resources/read", "notifications/cancelled",
                                          "other"};
enum { N_MCP = sizeof mcp_methods / sizeof mcp_methods[0] };

struct serve_metrics {
    atomic_uint_fast64_t requests[ROUTE_COUNT][N_STATUS];
    atomic_uint_fast64_t hist[ROUTE_COUNT][N_BUCKETS + 1]; /* last = +Inf */
    atomic_uint_fast64_t sum_ns[ROUTE_COUNT];
    atomic_uint_fast64_t mcp[N_MCP];
    atomic_int_fast64_t connections;
    double started;
};

serve_metrics *serve_metrics_new(void)
{
    serve_metrics *m = calloc(1, sizeof *m); /* all-zero bits are valid atomics here */
    if (m) m->started = core_now();
    return m;
}

void serve_metrics_free(serve_metrics *m)
{
    free(m);
}

void serve_metrics_observe(serve_metrics *m, serve_route route, int status, double seconds)
{
    if ((unsigned)route >= ROUTE_COUNT) route = ROUTE_OTHER;
    if (status < 100 || status >= N_STATUS) status = 500;
    atomic_fetch_add(&m->requests[route][status], 1);
    size_t b = 0;
    while (b < N_BUCKETS && seconds > buckets[b]) b++;
    atomic_fetch_add(&m->hist[route][b], 1);
    if (seconds < 0) seconds = 0;
    atomic_fetch_add(&m->sum_ns[route], (uint_fast64_t)(seconds * 1e9));
}

void serve_metrics_mcp(serve_metrics *m, const char *rpc_method)
{
    if (!rpc_method) return;
    size_t i = 0;
    while (i + 1 < N_MCP && strcmp(mcp_methods[i], rpc_method)) i++;
    atomic_fetch_add(&m->mcp[i], 1);
}

void serve_metrics_connection(serve_metrics *m, int delta)
{
    atomic_fetch_add(&m->connections, delta);
}

int serve_metrics_render(serve_metrics *m, serve_db *db, mcp_server *mcp, core_buf *out)
{
    core_buf_puts(out, "# HELP apidex_http_requests_total HTTP requests by route and status.\n"
                       "# TYPE apidex_http_requests_total counter\n");
    for (size_t r = 0; r < ROUTE_COUNT; r++)
        for (int s = 100; s < N_STATUS; s++) {
            uint64_t v = atomic_load(&m->requests[r][s]);
            if (v)
                core_buf_printf(out, "apidex_http_requests_total{route=\"%s\",code=\"%d\"} %llu\n",
                                serve_route_names[r], s, (unsigned long long)v);
        }
    core_buf_puts(out,
                  "# HELP apidex_http_request_duration_seconds Time from request to response.\n"
                  "# TYPE apidex_http_request_duration_seconds histogram\n");
    for (size_t r = 0; r < ROUTE_COUNT; r++) {
        uint64_t cum = 0;
        for (size_t b = 0; b <= N_BUCKETS; b++) {
            cum += atomic_load(&m->hist[r][b]);
            if (b < N_BUCKETS)
                core_buf_printf(
                    out,
                    "apidex_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} "
                    "%llu\n",
                    serve_route_names[r], buckets[b], (unsigned long long)cum);
            else
                core_buf_printf(
                    out,
                    "apidex_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} "
                    "%llu\n",
                    serve_route_names[r], (unsigned long long)cum);
        }
        core_buf_printf(out, "apidex_http_request_duration_seconds_sum{route=\"%s\"} %.9f\n",
                        serve_route_names[r], (double)atomic_load(&m->sum_ns[r]) / 1e9);
        core_buf_printf(out, "apidex_http_request_duration_seconds_count{route=\"%s\"} %llu\n",
                        serve_route_names[r], (unsigned long long)cum);
    }
    core_buf_puts(out, "# HELP apidex_mcp_requests_total MCP messages by JSON-RPC method.\n"
                       "# TYPE apidex_mcp_requests_total counter\n");
    for (size_t i = 0; i < N_MCP; i++)
        core_buf_printf(out, "apidex_mcp_requests_total{method=\"%s\"} %llu\n", mcp_methods[i],
                        (unsigned long long)atomic_load(&m->mcp[i]));
    core_buf_printf(out,
                    "# HELP apidex_http_connections Open HTTP connections.\n"
                    "# TYPE apidex_http_connections gauge\napidex_http_connections %lld\n",
                    (long long)atomic_load(&m->connections));
    core_buf_printf(out,
                    "# HELP apidex_mcp_sessions Open 2025-era MCP sessions.\n"
                    "# TYPE apidex_mcp_sessions gauge\napidex_mcp_sessions %zu\n",
                    mcp ? mcp_session_count(mcp) : 0);

    serve_snapshot *snap = serve_db_acquire(db);
    const store_info *info = serve_snapshot_info(snap);
    char build[17];
    core_hash_hex(info->build_id, build);
    core_buf_printf(out,
                    "# HELP apidex_index_apis APIs in the served index.\n"
                    "# TYPE apidex_index_apis gauge\napidex_index_apis %zu\n"
                    "# HELP apidex_index_operations Operations in the served index.\n"
                    "# TYPE apidex_index_operations gauge\napidex_index_operations %zu\n"
                    "# HELP apidex_index_schemas Schemas in the served index.\n"
                    "# TYPE apidex_index_schemas gauge\napidex_index_schemas %zu\n"
                    "# HELP apidex_index_chunks Chunks in the served index.\n"
                    "# TYPE apidex_index_chunks gauge\napidex_index_chunks %zu\n"
                    "# HELP apidex_index_info The served index build.\n"
                    "# TYPE apidex_index_info gauge\napidex_index_info{build_id=\"%s\"} 1\n",
                    info->n_apis, info->n_operations, info->n_schemas, info->n_chunks, build);
    store_doc_stats docs = store_doc_cache_stats(snap->idx);
    core_buf_printf(out,
                    "# HELP apidex_documents_loaded API documents the served index has loaded "
                    "again (details, snippets, tool definitions, calls).\n"
                    "# TYPE apidex_documents_loaded gauge\napidex_documents_loaded %zu\n"
                    "# HELP apidex_documents_kept API documents kept loaded for the served "
                    "index.\n"
                    "# TYPE apidex_documents_kept gauge\napidex_documents_kept %zu\n"
                    "# HELP apidex_documents_kept_bytes Memory of the documents kept.\n"
                    "# TYPE apidex_documents_kept_bytes gauge\napidex_documents_kept_bytes %zu\n",
                    docs.parses, docs.kept, docs.bytes);
    serve_snapshot_release(snap);
    core_buf_printf(
        out,
        "# HELP apidex_index_reloads_total Index reloads after a rebuild.\n"
        "# TYPE apidex_index_reloads_total counter\napidex_index_reloads_total %llu\n"
        "# HELP apidex_index_reload_failures_total Reloads that failed (old index kept).\n"
        "# TYPE apidex_index_reload_failures_total counter\n"
        "apidex_index_reload_failures_total %llu\n"
        "# HELP apidex_uptime_seconds Seconds since the server started.\n"
        "# TYPE apidex_uptime_seconds gauge\napidex_uptime_seconds %.3f\n",
        (unsigned long long)serve_db_reloads(db), (unsigned long long)serve_db_reload_failures(db),
        core_now() - m->started);
    if (serve_metrics_store(db, out)) return APIDEX_ENOMEM;
    return out->failed ? APIDEX_ENOMEM : 0;
}
