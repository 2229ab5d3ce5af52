/* The Streamable HTTP transport of the MCP client: each message is a POST through net_send;
   the answer is a JSON body or an event stream whose `data:` events carry messages. The
   URL the user named is the one origin allowed (loopback included), redirects are not
   followed, the configured headers are secrets. */
#include "mcpc/mcpc_int.h"

#include "net/net.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

typedef struct find_answer {
    long id;
    json_object *found;
} find_answer;

static bool take_answer(void *ctx, const char *data, size_t len)
{
    find_answer *f = ctx;
    json_object *m = mcpc_json_parse(data, len);
    json_object *mid = json_object_object_get(m, "id");
    if (m && !json_object_object_get(m, "method") && json_object_is_type(mid, json_type_int) &&
        json_object_get_int64(mid) == f->id) {
        f->found = m;
        return false; /* found: the rest is not read */
    }
    json_object_put(m);
    return true;
}

/* The message with this id among the messages of an event stream (or NULL). */
static json_object *from_events(const char *body, size_t len, long id)
{
    mcpc_sse s;
    mcpc_sse_init(&s, (size_t)MCPC_MAX_MESSAGE);
    find_answer f = {.id = id};
    if (mcpc_sse_feed(&s, body, len, take_answer, &f)) mcpc_sse_end(&s, take_answer, &f);
    mcpc_sse_free(&s);
    return f.found;
}

int mcpc_http_parts_init(mcpc_http_parts *x, const mcpc_server *s,
                         const char *const *allowed_addresses, const net_header *first,
                         size_t n_first)
{
    memset(x, 0, sizeof *x);
    x->h = calloc(s->n_headers + n_first + 1, sizeof *x->h);
    x->secrets = calloc(s->n_headers + 1, sizeof *x->secrets);
    x->names = calloc(s->n_headers + 1, sizeof *x->names);
    if (!x->h || !x->secrets || !x->names) {
        mcpc_http_parts_free(x);
        return APIDEX_ENOMEM;
    }
    for (size_t i = 0; i < n_first; i++) x->h[x->nh++] = first[i];
    x->n_names = s->n_headers;
    for (size_t i = 0; i < s->n_headers; i++) {
        const char *colon = strchr(s->headers[i], ':');
        if (!colon) continue;
        x->names[i] = strndup(s->headers[i], (size_t)(colon - s->headers[i]));
        const char *v = colon + 1;
        while (*v == ' ') v++;
        if (!x->names[i]) continue;
        x->h[x->nh++] = (net_header){x->names[i], v, true};
        if (*v) x->secrets[x->ns++] = v;
    }
    x->host = net_url_host(s->url);
    x->hosts[0] = x->host;
    x->origins[0] = s->url;
    size_t n_addrs = 0;
    while (allowed_addresses && allowed_addresses[n_addrs]) n_addrs++;
    x->p = (net_policy){.allowed_hosts = x->hosts,
                        .n_allowed_hosts = x->host ? 1 : 0,
                        .allowed_origins = x->origins,
                        .n_allowed_origins = 1,
                        .allowed_addresses = allowed_addresses,
                        .n_allowed_addresses = n_addrs,
                        .max_redirects = NET_NO_REDIRECTS,
                        .private_hint = "--allow-address IP to allow"};
    return 0;
}

void mcpc_http_parts_free(mcpc_http_parts *x)
{
    for (size_t i = 0; x->names && i < x->n_names; i++) free(x->names[i]);
    free(x->names), free(x->h), free(x->secrets), free(x->host);
    memset(x, 0, sizeof *x);
}

int mcpc_http_post(mcpc_conn *c, const char *msg, size_t len, long id, json_object **answer,
                   apidex_error *err)
{
    *answer = NULL;
    const mcpc_server *s = c->srv;
    net_header first[3];
    size_t nf = 0;
    first[nf++] = (net_header){"Accept", "application/json, text/event-stream", false};
    if (c->session_id) first[nf++] = (net_header){"Mcp-Session-Id", c->session_id, false};
    if (c->protocol_version)
        first[nf++] = (net_header){"MCP-Protocol-Version", c->protocol_version, false};
    mcpc_http_parts x;
    if (mcpc_http_parts_init(&x, s, c->opt->allowed_addresses, first, nf))
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    x.p.timeout_ms = c->timeout_ms;
    x.p.max_bytes = (size_t)MCPC_MAX_MESSAGE;
    net_request r = {.method = "POST",
                     .url = s->url,
                     .headers = x.h,
                     .n_headers = x.nh,
                     .body = msg,
                     .body_len = len,
                     .content_type = "application/json",
                     .secrets = x.secrets,
                     .n_secrets = x.ns};
    net_response *resp = NULL;
    apidex_error nerr;
    core_error_clear(&nerr);
    int rc = net_send(&r, &x.p, &resp, NULL, &nerr);
    mcpc_http_parts_free(&x);
    if (rc == APIDEX_ENOMEM) return core_error_set(err, rc, "out of memory");
    if (rc)
        return core_error_set(err, rc == APIDEX_EREFUSED ? rc : APIDEX_ENET, "server '%s': %s",
                              c->label, nerr.message);
    c->total += resp->body_len;
    const char *sid = net_response_header(resp, "Mcp-Session-Id");
    if (sid && *sid && strlen(sid) < 1024 && (!c->session_id || strcmp(sid, c->session_id))) {
        free(c->session_id);
        c->session_id = strdup(sid);
    }
    const char *ctype = net_response_header(resp, "Content-Type");
    if (resp->truncated || c->total > MCPC_MAX_TOTAL) {
        rc = core_error_set(err, APIDEX_ELIMIT, "server '%s' sent a message over %d bytes",
                            c->label, MCPC_MAX_MESSAGE);
    } else if (resp->status >= 300 && resp->status < 400) {
        /* a redirect is not followed: the URL named is the one origin the session may reach,
           and its headers (credentials) must not go anywhere else */
        const char *to = net_response_header(resp, "Location");
        rc = core_error_set(err, APIDEX_EREFUSED,
                            "server '%s' answered HTTP %ld, a redirect to %.300s: refused (a "
                            "redirect is never followed; name the server's own URL as the source)",
                            c->label, resp->status, to && *to ? to : "(no Location)");
    } else if (resp->status < 200 || resp->status >= 300) {
        /* 404 to a session id: the server ended the session (the SDK's servers answer 400
           "No valid session ID"); the request was not handled, a new session may be started */
        c->session_gone = (resp->status == 404 || resp->status == 400) && c->session_id;
        rc = core_error_set(err, APIDEX_ENET, "server '%s' answered HTTP %ld%s", c->label,
                            resp->status, c->session_gone ? " (its session has ended)" : "");
    } else if (id >= 0) {
        if (ctype && !strncmp(ctype, "text/event-stream", 17))
            *answer = from_events(resp->body, resp->body_len, id);
        else
            *answer = mcpc_json_parse(resp->body, resp->body_len);
        if (!json_object_is_type(*answer, json_type_object)) {
            json_object_put(*answer);
            *answer = NULL;
            rc = core_error_set(err, APIDEX_ESPEC,
                                "server '%s' answered HTTP %ld without a JSON-RPC answer", c->label,
                                resp->status);
        }
    }
    net_response_free(resp);
    return rc;
}

void mcpc_http_close(mcpc_conn *c)
{
    /* the session ends with the client: a server that keeps sessions forgets it on DELETE */
    mcpc_http_parts x;
    net_header first[1] = {{"Mcp-Session-Id", c->session_id, false}};
    if (c->session_id &&
        !mcpc_http_parts_init(&x, c->srv, c->opt ? c->opt->allowed_addresses : NULL, first, 1)) {
        x.p.timeout_ms = 2000;
        x.p.max_bytes = 65536;
        net_request r = {.method = "DELETE",
                         .url = c->srv->url,
                         .headers = x.h,
                         .n_headers = x.nh,
                         .secrets = x.secrets,
                         .n_secrets = x.ns};
        net_response *resp = NULL;
        net_send(&r, &x.p, &resp, NULL, NULL);
        net_response_free(resp);
        mcpc_http_parts_free(&x);
    }
    free(c->session_id);
    free(c->protocol_version);
    c->session_id = c->protocol_version = NULL;
}
