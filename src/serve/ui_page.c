/*
 * The web page's files: index.html at / and the rest at /ui/<file>, embedded in the binary
 * at build time (tools/embed_ui.cmake writes ui_assets.c from web/), so the server needs no
 * file and no network to serve them. Each answer carries its type, an ETag (the bytes' hash,
 * so a browser revalidates and gets 304) and a Content-Security-Policy that allows the page's
 * own scripts, styles and API calls and nothing else.
 */
#include "serve/serve_int.h"

#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

/* No inline script or style, no other origin, no frames, no forms posting elsewhere. */
static const char csp[] = "default-src 'none'; script-src 'self'; style-src 'self'; "
                          "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
                          "form-action 'none'; frame-ancestors 'none'";

static const serve_ui_asset *find_asset(const char *url)
{
    for (size_t i = 0; i < serve_ui_n_assets; i++)
        if (!strcmp(serve_ui_assets[i].url, url)) return &serve_ui_assets[i];
    return NULL;
}

/* Does If-None-Match (a list, or "*") name etag? */
static bool etag_matches(const char *inm, const char *etag)
{
    if (!inm) return false;
    if (!strcmp(inm, "*")) return true;
    size_t n = strlen(etag);
    for (const char *p = strstr(inm, etag); p; p = strstr(p + 1, etag)) {
        bool starts = p == inm || p[-1] == ' ' || p[-1] == ',' || p[-1] == '/';
        bool ends = p[n] == '\0' || p[n] == ',' || p[n] == ' ';
        if (starts && ends) return true;
    }
    return false;
}

void serve_ui_page(struct MHD_Connection *conn, const char *url, serve_ui_reply *out)
{
    memset(out, 0, sizeof *out);
    const serve_ui_asset *a = find_asset(!strcmp(url, "/index.html") ? "/" : url);
    if (!a) {
        static const char missing[] = "{\"error\":{\"status\":404,\"message\":\"no such file\"}}";
        out->status = 404;
        out->content_type = "application/json";
        out->body = strdup(missing);
        out->len = out->body ? strlen(missing) : 0;
        return;
    }
    size_t h = 0;
    out->headers[h++] = "ETag";
    out->headers[h++] = a->etag;
    /* revalidate every time: the ETag makes that a 304 without a body */
    out->headers[h++] = "Cache-Control";
    out->headers[h++] = "no-cache";
    out->headers[h++] = "Content-Security-Policy";
    out->headers[h++] = csp;
    out->headers[h++] = "Referrer-Policy";
    out->headers[h++] = "no-referrer";
    out->headers[h++] = "X-Frame-Options";
    out->headers[h++] = "DENY";
    out->headers[h] = NULL;
    const char *inm = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "If-None-Match");
    if (etag_matches(inm, a->etag)) {
        out->status = 304;
        return;
    }
    out->status = 200;
    out->content_type = a->content_type;
    out->body = malloc(a->len ? a->len : 1);
    if (!out->body) {
        out->status = 500;
        out->content_type = NULL;
        return;
    }
    memcpy(out->body, a->data, a->len);
    out->len = a->len;
}
