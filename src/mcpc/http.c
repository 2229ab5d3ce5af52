/* The Streamable HTTP transport of the MCP client: each message is a POST through net_send;
   the answer is a JSON body or an event stream whose `data:` events carry messages. The
   URL the user named is the one origin allowed (loopback included), redirects are not
   followed, the configured headers are secrets. */
#include "mcpc/mcpc_int.h"

#include "net/net.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* The message with this id among the messages of an event stream (or NULL). */
static json_object *from_events(const char *body, size_t len, long id)
{
    core_buf data;
    core_buf_init(&data, (size_t)MCPC_MAX_MESSAGE + 1);
    json_object *found = NULL;
    const char *p = body, *end = body + len;
    while (p <= end && !found) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t ll = (size_t)(le - p);
        if (ll && p[ll - 1] == '\r') ll--;
        if (ll == 0) {
            /* an event ends: its data is one message */
            if (data.len) {
                json_object *m = mcpc_json_parse(data.data, data.len);
                json_object *mid = json_object_object_get(m, "id");
                if (m && !json_object_object_get(m, "method") &&
                    json_object_is_type(mid, json_type_int) && json_object_get_int64(mid) == id)
                    found = m;
                else
                    json_object_put(m);
            }
            core_buf_reset(&data);
        } else if (ll >= 5 && !memcmp(p, "data:", 5)) {
            const char *v = p + 5;
            size_t vl = ll - 5;
            if (vl && *v == ' ') v++, vl--;
            if (data.len) core_buf_putc(&data, '\n');
            core_buf_append(&data, v, vl);
        }
        if (!nl) {
            if (data.len && !found) {
                /* the stream ended without the blank line */
                json_object *m = mcpc_json_parse(data.data, data.len);
                json_object *mid = json_object_object_get(m, "id");
                if (m && json_object_is_type(mid, json_type_int) &&
                    json_object_get_int64(mid) == id)
                    found = m;
                else
                    json_object_put(m);
            }
            break;
        }
        p = nl + 1;
    }
    core_buf_free(&data);
    return found;
}

int mcpc_http_post(mcpc_conn *c, const char *msg, size_t len, long id, json_object **answer,
                   apidex_error *err)
{
    *answer = NULL;
    const mcpc_server *s = c->srv;
    net_header *h = calloc(s->n_headers + 4, sizeof *h);
    const char **secrets = calloc(s->n_headers + 1, sizeof *secrets);
    char **names = calloc(s->n_headers + 1, sizeof *names);
    if (!h || !secrets || !names) {
        free(h), free(secrets), free(names);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    size_t nh = 0, ns = 0;
    h[nh++] = (net_header){"Accept", "application/json, text/event-stream", false};
    if (c->session_id) h[nh++] = (net_header){"Mcp-Session-Id", c->session_id, false};
    if (c->protocol_version)
        h[nh++] = (net_header){"MCP-Protocol-Version", c->protocol_version, false};
    for (size_t i = 0; i < s->n_headers; i++) {
        const char *colon = strchr(s->headers[i], ':');
        if (!colon) continue;
        names[i] = strndup(s->headers[i], (size_t)(colon - s->headers[i]));
        const char *v = colon + 1;
        while (*v == ' ') v++;
        if (!names[i]) continue;
        h[nh++] = (net_header){names[i], v, true};
        if (*v) secrets[ns++] = v;
    }
    char *host = net_url_host(s->url);
    const char *hosts[1] = {host};
    const char *origins[1] = {s->url};
    size_t n_addrs = 0;
    while (c->opt->allowed_addresses && c->opt->allowed_addresses[n_addrs]) n_addrs++;
    net_policy p = {.allowed_hosts = hosts,
                    .n_allowed_hosts = host ? 1 : 0,
                    .allowed_origins = origins,
                    .n_allowed_origins = 1,
                    .allowed_addresses = c->opt->allowed_addresses,
                    .n_allowed_addresses = n_addrs,
                    .max_redirects = NET_NO_REDIRECTS,
                    .timeout_ms = c->timeout_ms,
                    .max_bytes = (size_t)MCPC_MAX_MESSAGE,
                    .private_hint = "--allow-address IP to allow"};
    net_request r = {.method = "POST",
                     .url = s->url,
                     .headers = h,
                     .n_headers = nh,
                     .body = msg,
                     .body_len = len,
                     .content_type = "application/json",
                     .secrets = secrets,
                     .n_secrets = ns};
    net_response *resp = NULL;
    apidex_error nerr;
    core_error_clear(&nerr);
    int rc = net_send(&r, &p, &resp, NULL, &nerr);
    free(host);
    for (size_t i = 0; i < s->n_headers; i++) free(names[i]);
    free(names), free(h), free(secrets);
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
    if (c->session_id) {
        char *host = net_url_host(c->srv->url);
        const char *hosts[1] = {host};
        const char *origins[1] = {c->srv->url};
        net_header h[1] = {{"Mcp-Session-Id", c->session_id, false}};
        net_policy p = {.allowed_hosts = hosts,
                        .n_allowed_hosts = host ? 1 : 0,
                        .allowed_origins = origins,
                        .n_allowed_origins = 1,
                        .max_redirects = NET_NO_REDIRECTS,
                        .timeout_ms = 2000,
                        .max_bytes = 65536};
        net_request r = {.method = "DELETE", .url = c->srv->url, .headers = h, .n_headers = 1};
        net_response *resp = NULL;
        net_send(&r, &p, &resp, NULL, NULL);
        net_response_free(resp);
        free(host);
    }
    free(c->session_id);
    free(c->protocol_version);
    c->session_id = c->protocol_version = NULL;
}
