/*
 * The route table: every path the HTTP server answers, with its methods, its handler and
 * whether it needs the bearer token. http.c dispatches from it (404 for a path no row
 * matches, 405 with the row's Allow for another method); openapi_self.c serves
 * /openapi.json with exactly these paths and methods, their operations read from
 * src/serve/openapi_self.json, and refuses a path or method only one of the two has.
 * Adding a route: a row here, its handler, and its operation in openapi_self.json.
 */
#include "serve/http_int.h"

#include <string.h>

static const char *const page_urls[] = {"/index.html", "/ui/*", NULL};
static const char *const endpoint_urls[] = {"/v1/endpoints/", NULL}; /* 400: missing id */

/* In the order of /openapi.json's paths. */
const serve_route_def serve_routes[] = {
    {"/v1/search", "GET, HEAD", serve_on_search, ROUTE_SEARCH, 0, NULL},
    {"/v1/endpoints/{id}", "GET, HEAD", serve_on_endpoint, ROUTE_ENDPOINT, 0, endpoint_urls},
    {"/v1/endpoints", "GET, HEAD", serve_on_endpoint, ROUTE_ENDPOINT, 0, NULL},
    {"/v1/apis", "GET, HEAD", serve_on_apis, ROUTE_APIS, 0, NULL},
    {"/v1/match", "POST", serve_on_match, ROUTE_MATCH, 0, NULL},
    {"/v1/tools", "GET, HEAD", serve_on_tools, ROUTE_TOOLS, 0, NULL},
    {"/v1/ask", "POST", serve_on_ask, ROUTE_ASK, 0, NULL},
    {"/v1/feedback", "POST", serve_on_feedback, ROUTE_FEEDBACK, 0, NULL},
    {"/v1/index", "GET, HEAD", serve_on_ui_data, ROUTE_UI_DATA, 0, NULL},
    {"/v1/apis/{id}", "GET, HEAD", serve_on_ui_data, ROUTE_UI_DATA, 0, NULL},
    {"/v1/snippet", "GET, HEAD", serve_on_ui_data, ROUTE_UI_DATA, 0, NULL},
    {"/", "GET, HEAD", serve_on_page, ROUTE_PAGE, SERVE_ROUTE_OPEN, page_urls},
    {"/v1/call", "POST", serve_on_call, ROUTE_CALL, 0, NULL},
    {"/healthz", "GET, HEAD", serve_on_healthz, ROUTE_HEALTHZ, SERVE_ROUTE_OPEN, NULL},
    {"/metrics", "GET, HEAD", serve_on_metrics, ROUTE_METRICS, 0, NULL},
    {"/openapi.json", "GET, HEAD", serve_on_openapi, ROUTE_OPENAPI, 0, NULL},
    /* the MCP transport answers GET and the rest with its own 405 */
    {"/mcp", "POST, DELETE", serve_on_mcp, ROUTE_MCP, SERVE_ROUTE_ANY_METHOD, NULL},
};
const size_t serve_n_routes = sizeof serve_routes / sizeof serve_routes[0];

/* A path template: literal up to a trailing "{name}", which takes a non-empty rest. */
static bool template_matches(const char *tpl, const char *url)
{
    const char *brace = strchr(tpl, '{');
    if (!brace) return !strcmp(tpl, url);
    size_t n = (size_t)(brace - tpl);
    return !strncmp(tpl, url, n) && url[n] != '\0';
}

/* Another URL of a row: exact, or a prefix when it ends in '*'. */
static bool alias_matches(const char *alias, const char *url)
{
    size_t n = strlen(alias);
    if (n && alias[n - 1] == '*') return !strncmp(alias, url, n - 1);
    return !strcmp(alias, url);
}

const serve_route_def *serve_route_find(const char *url)
{
    for (size_t i = 0; i < serve_n_routes; i++) {
        const serve_route_def *r = &serve_routes[i];
        if (template_matches(r->path, url)) return r;
        for (size_t a = 0; r->also && r->also[a]; a++)
            if (alias_matches(r->also[a], url)) return r;
    }
    return NULL;
}

bool serve_route_allows(const serve_route_def *r, const char *method)
{
    if (r->flags & SERVE_ROUTE_ANY_METHOD) return true;
    size_t n = strlen(method);
    for (const char *p = r->allow; *p;) {
        size_t len = strcspn(p, ", ");
        if (len == n && !strncmp(p, method, n)) return true;
        p += len;
        p += strspn(p, ", ");
    }
    return false;
}
