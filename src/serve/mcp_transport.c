/*
 * MCP transports: stdio (one message per line) and Streamable HTTP (one POST
 * per message, JSON answers), with the 2025-era sessions (Mcp-Session-Id) the
 * initialize handshake opens on HTTP. 2026-07-28 requests ignore sessions.
 *
 * Sessions are few (max_sessions) and each client address holds at most
 * per_client of them: a client opening more loses its own oldest, and when the
 * table is full the client holding the most gives up its oldest. So a flood of
 * initialize from one address (or from a few) never evicts another client's
 * session.
 */
#include "serve/serve_int.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

/* ---------------------------------------------------------------- sessions */

typedef struct session {
    char id[33];     /* 128 random bits in hex; "" = free slot */
    char client[48]; /* the address that opened it ("" = unknown) */
    int rev;
    double last_used;
} session;

struct mcp_sessions {
    pthread_mutex_t lock;
    session *items;
    size_t cap, per_client;
    double idle_s;
};

static int sessions_new(size_t cap, size_t per_client, double idle_s, mcp_sessions **out)
{
    mcp_sessions *s = calloc(1, sizeof *s);
    if (!s || !(s->items = calloc(cap, sizeof *s->items))) {
        free(s);
        return APIDEX_ENOMEM;
    }
    s->cap = cap;
    s->per_client = per_client;
    s->idle_s = idle_s;
    pthread_mutex_init(&s->lock, NULL);
    *out = s;
    return 0;
}

static void sessions_free(mcp_sessions *s)
{
    if (!s) return;
    pthread_mutex_destroy(&s->lock);
    free(s->items);
    free(s);
}

static bool random_id(char out[33])
{
    unsigned char b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t r = getrandom(b + got, sizeof b - got, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        got += (size_t)r;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof b; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[32] = '\0';
    return true;
}

static bool session_live(const mcp_sessions *s, const session *se, double now)
{
    return se->id[0] && now - se->last_used <= s->idle_s;
}

static int by_client(const void *a, const void *b)
{
    const session *x = *(const session *const *)a, *y = *(const session *const *)b;
    int c = strcmp(x->client, y->client);
    return c ? c : (x->last_used < y->last_used) - (x->last_used > y->last_used);
}

/* The slot a new session of `client` takes (call with the lock held): the client's own
   least recently used one once it holds per_client; else a free or expired slot; else
   the least recently used session of the client holding the most. */
static size_t session_slot(mcp_sessions *s, const char *client, double now)
{
    size_t own = 0, own_oldest = 0, free_slot = s->cap;
    for (size_t i = 0; i < s->cap; i++) {
        session *se = &s->items[i];
        if (!session_live(s, se, now)) {
            if (free_slot == s->cap) free_slot = i;
            continue;
        }
        if (strcmp(se->client, client)) continue;
        if (!own++ || se->last_used < s->items[own_oldest].last_used) own_oldest = i;
    }
    if (own >= s->per_client) return own_oldest;
    if (free_slot < s->cap) return free_slot;
    /* Full of live sessions: group them by client, newest first within each. */
    session **order = malloc(s->cap * sizeof *order);
    if (!order) return own ? own_oldest : 0;
    for (size_t i = 0; i < s->cap; i++) order[i] = &s->items[i];
    qsort(order, s->cap, sizeof *order, by_client);
    size_t best = 0, best_n = 0;
    for (size_t i = 0; i < s->cap;) {
        size_t j = i;
        while (j < s->cap && !strcmp(order[j]->client, order[i]->client)) j++;
        /* the group's oldest is its last; ties go to the older one */
        session *oldest = order[j - 1];
        if (j - i > best_n || (j - i == best_n && oldest->last_used < s->items[best].last_used)) {
            best_n = j - i;
            best = (size_t)(oldest - s->items);
        }
        i = j;
    }
    free(order);
    return best;
}

/* A new session for client (NULL: an unknown one). */
static bool session_create(mcp_sessions *s, int rev, const char *client, char id[33])
{
    if (!random_id(id)) return false;
    double now = core_now();
    pthread_mutex_lock(&s->lock);
    size_t slot = session_slot(s, client ? client : "", now);
    session *se = &s->items[slot];
    memcpy(se->id, id, 33);
    snprintf(se->client, sizeof se->client, "%s", client ? client : "");
    se->rev = rev;
    se->last_used = now;
    pthread_mutex_unlock(&s->lock);
    return true;
}

/* Constant-time comparison of two session ids (the id is the only credential
   a 2025-era session has when no token is configured). */
static bool id_equal(const char *a, const char *b)
{
    unsigned diff = 0;
    for (size_t i = 0; i < 32; i++) diff |= (unsigned)(a[i] ^ b[i]);
    return diff == 0 && b[32] == '\0';
}

static bool session_lookup(mcp_sessions *s, const char *id, int *rev, bool remove)
{
    if (strlen(id) != 32) return false;
    double now = core_now();
    bool ok = false;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->cap && !ok; i++) {
        session *se = &s->items[i];
        if (!se->id[0] || !id_equal(se->id, id)) continue;
        if (now - se->last_used > s->idle_s) {
            se->id[0] = '\0';
            break;
        }
        ok = true;
        *rev = se->rev;
        se->last_used = now;
        if (remove) se->id[0] = '\0';
    }
    pthread_mutex_unlock(&s->lock);
    return ok;
}

size_t mcp_session_count(mcp_server *srv)
{
    mcp_sessions *s = srv->sessions;
    double now = core_now();
    size_t n = 0;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->cap; i++)
        if (s->items[i].id[0] && now - s->items[i].last_used <= s->idle_s) n++;
    pthread_mutex_unlock(&s->lock);
    return n;
}

/* ---------------------------------------------------------------- server */

int mcp_server_new(serve_db *db, const mcp_server_options *opt, mcp_server **out, apidex_error *err)
{
    *out = NULL;
    mcp_server *srv = calloc(1, sizeof *srv);
    if (!srv) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    srv->db = db;
    size_t cap = opt && opt->max_sessions ? opt->max_sessions : 1024;
    size_t per_client = opt && opt->max_sessions_per_client ? opt->max_sessions_per_client
                                                            : MCP_SESSIONS_PER_CLIENT;
    if (per_client > cap) per_client = cap;
    double idle = opt && opt->session_idle_s > 0 ? opt->session_idle_s : 3600;
    srv->private_cache = opt && opt->private_cache;
    srv->llm = opt ? opt->llm : NULL;
    srv->calls = opt && opt->calls && opt->calls->enabled ? opt->calls : NULL;
    if (sessions_new(cap, per_client, idle, &srv->sessions)) {
        free(srv);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    *out = srv;
    return 0;
}

void mcp_server_free(mcp_server *srv)
{
    if (!srv) return;
    sessions_free(srv->sessions);
    free(srv);
}

/* ---------------------------------------------------------------- stdio */

enum { MAX_LISTENS = 32 };

void mcp_stdio_state_clear(mcp_stdio_state *st)
{
    for (size_t i = 0; i < st->n_listens; i++) mcp_listen_free(st->listens[i]);
    free(st->listens);
    st->listens = NULL;
    st->n_listens = 0;
}

/* Keeps a new subscription; refuses past MAX_LISTENS (the reply becomes an error). */
static void keep_listen(mcp_stdio_state *st, mcp_outcome *o)
{
    mcp_listen *l = o->listen;
    o->listen = NULL;
    mcp_listen **grown = st->n_listens < MAX_LISTENS
                             ? realloc(st->listens, (st->n_listens + 1) * sizeof *grown)
                             : NULL;
    if (!grown) {
        free(o->reply);
        struct json_object *id = json_tokener_parse(l->id_json);
        o->reply =
            jrpc_error(id, JRPC_INTERNAL_ERROR, "too many open subscriptions", NULL, &o->len);
        json_object_put(id);
        mcp_listen_free(l);
        return;
    }
    st->listens = grown;
    st->listens[st->n_listens++] = l;
}

static void drop_listen(mcp_stdio_state *st, const char *id_json)
{
    for (size_t i = 0; i < st->n_listens; i++) {
        if (strcmp(st->listens[i]->id_json, id_json)) continue;
        mcp_listen_free(st->listens[i]);
        st->listens[i] = st->listens[--st->n_listens];
        return;
    }
}

int mcp_handle_stdio(mcp_server *srv, mcp_stdio_state *st, const char *line, size_t len,
                     char **reply, size_t *reply_len)
{
    *reply = NULL;
    *reply_len = 0;
    jrpc_msg m;
    char why[200];
    int code = jrpc_parse(line, len, &m, why, sizeof why);
    if (code) {
        *reply = jrpc_error(m.id, code, why, NULL, reply_len);
        jrpc_msg_free(&m);
        return *reply ? 0 : APIDEX_ENOMEM;
    }
    mcp_ctx ctx = {.legacy_rev = st->legacy_rev, .http = NULL};
    mcp_outcome o;
    mcp_dispatch(srv, &ctx, &m, &o);
    if (o.new_legacy_rev >= 0) st->legacy_rev = o.new_legacy_rev;
    jrpc_msg_free(&m);
    if (o.listen) keep_listen(st, &o);
    /* On stdio a cancellation ends the listen stream it names; nothing more is sent for it. */
    if (o.cancelled_id) drop_listen(st, o.cancelled_id);
    *reply = o.reply;
    *reply_len = o.len;
    o.reply = NULL;
    mcp_outcome_clear(&o);
    return 0;
}

char *mcp_stdio_poll(mcp_server *srv, mcp_stdio_state *st, size_t *len)
{
    *len = 0;
    serve_snapshot *snap = serve_db_acquire(srv->db);
    uint64_t build = serve_snapshot_info(snap)->build_id;
    serve_snapshot_release(snap);
    bool changed = st->build_seen && build != st->build_seen;
    st->build_seen = build;
    if (!changed) return NULL;
    core_buf b;
    core_buf_init(&b, 1 << 24);
    if (st->legacy_rev >= 0) /* 2025 era: unsolicited, as its capabilities announced */
        core_buf_puts(&b,
                      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/list_changed\"}");
    for (size_t i = 0; i < st->n_listens; i++) {
        size_t n = 0;
        char *lines = mcp_listen_changes(st->listens[i], &n);
        if (!lines) continue;
        if (b.len) core_buf_putc(&b, '\n');
        core_buf_append(&b, lines, n);
        free(lines);
    }
    if (b.failed || !b.len) {
        core_buf_free(&b);
        return NULL;
    }
    *len = b.len;
    return core_buf_steal(&b, NULL);
}

static bool write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static bool send_line(int fd, char *text, size_t len)
{
    /* Messages never contain raw newlines (JSON escapes them), so the line is the frame. */
    bool ok = write_all(fd, text, len) && write_all(fd, "\n", 1);
    free(text);
    return ok;
}

int mcp_serve_stdio(mcp_server *srv, int in_fd, int out_fd, size_t max_line, volatile int *stop)
{
    mcp_stdio_state st = {.legacy_rev = -1};
    size_t dummy;
    free(mcp_stdio_poll(srv, &st, &dummy)); /* the build served from the start */
    double last_poll = core_now();
    core_buf line;
    core_buf_init(&line, max_line + 1);
    bool skipping = false; /* inside a line that went over max_line */
    char inbuf[65536];
    int rc = 0;
    while (!(stop && *stop)) {
        struct pollfd p = {.fd = in_fd, .events = POLLIN};
        int pr = poll(&p, 1, 200);
        if (pr < 0) {
            if (errno == EINTR) continue;
            rc = APIDEX_EIO;
            break;
        }
        if (core_now() - last_poll >= 1.0) { /* a rebuilt index reaches subscribers */
            last_poll = core_now();
            size_t nl = 0;
            char *notes = mcp_stdio_poll(srv, &st, &nl);
            if (notes && !send_line(out_fd, notes, nl)) {
                rc = APIDEX_EIO;
                break;
            }
        }
        if (pr == 0) continue;
        ssize_t n = read(in_fd, inbuf, sizeof inbuf);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            rc = APIDEX_EIO;
            break;
        }
        if (n == 0) break; /* EOF: the client closed stdin */
        const char *c = inbuf, *end = inbuf + n;
        while (c < end) {
            const char *nl = memchr(c, '\n', (size_t)(end - c));
            size_t take = (size_t)((nl ? nl : end) - c);
            if (!skipping && core_buf_append(&line, c, take) != 0) {
                skipping = true;
                core_buf_reset(&line);
                line.failed = false;
            }
            c += take;
            if (!nl) break;
            c++; /* past the newline */
            char *reply = NULL;
            size_t reply_len = 0;
            if (skipping) {
                char why[96];
                snprintf(why, sizeof why, "Parse error: message longer than %zu bytes", max_line);
                reply = jrpc_error(NULL, JRPC_PARSE_ERROR, why, NULL, &reply_len);
                skipping = false;
            } else {
                size_t len = line.len;
                while (len && (line.data[len - 1] == '\r' || line.data[len - 1] == ' ' ||
                               line.data[len - 1] == '\t'))
                    len--;
                size_t start = 0;
                while (start < len && (line.data[start] == ' ' || line.data[start] == '\t'))
                    start++;
                if (len > start)
                    mcp_handle_stdio(srv, &st, line.data + start, len - start, &reply, &reply_len);
            }
            core_buf_reset(&line);
            if (reply && !send_line(out_fd, reply, reply_len)) {
                rc = APIDEX_EIO;
                goto done;
            }
        }
    }
done:
    /* Stopped by a signal with the client still there: end its subscriptions gracefully. */
    for (size_t i = 0; stop && *stop && !rc && i < st.n_listens; i++) {
        size_t n = 0;
        char *last = mcp_listen_close(st.listens[i], &n);
        if (last && !send_line(out_fd, last, n)) break;
    }
    mcp_stdio_state_clear(&st);
    core_buf_free(&line);
    return rc;
}

/* ---------------------------------------------------------------- Streamable HTTP */

/* Media type of a Content-Type / Accept entry equals `type` (parameters ignored). */
static bool media_is(const char *value, size_t n, const char *type)
{
    while (n && (*value == ' ' || *value == '\t')) {
        value++;
        n--;
    }
    size_t m = 0;
    while (m < n && value[m] != ';' && value[m] != ' ' && value[m] != '\t') m++;
    return m == strlen(type) && !strncasecmp(value, type, m);
}

static bool accepts_json(const char *accept)
{
    if (!accept) return true; /* no preference stated */
    const char *p = accept;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (media_is(p, n, "application/json") || media_is(p, n, "*/*") ||
            media_is(p, n, "application/*"))
            return true;
        p += n;
        if (*p) p++;
    }
    return false;
}

static void http_error(mcp_http_response *out, int status, struct json_object *id, int code,
                       const char *message)
{
    out->status = status;
    out->body = jrpc_error(id, code, message, NULL, &out->body_len);
}

void mcp_http_response_clear(mcp_http_response *r)
{
    if (!r) return;
    free(r->body);
    free(r->session_id);
    mcp_listen_free(r->listen);
    memset(r, 0, sizeof *r);
}

void mcp_handle_http(mcp_server *srv, const mcp_http_request *req, mcp_http_response *out)
{
    memset(out, 0, sizeof *out);
    const char *hm = req->http_method ? req->http_method : "";
    if (!strcmp(hm, "DELETE")) {
        /* 2025-era clients end their session; 2026-07-28 has none to end. */
        int rev;
        if (!req->session_id)
            out->status = 400;
        else
            out->status = session_lookup(srv->sessions, req->session_id, &rev, true) ? 200 : 404;
        return;
    }
    if (strcmp(hm, "POST")) {
        /* No standalone SSE stream (GET) is offered: 405, as both eras allow. */
        out->status = 405;
        out->allow = "POST, DELETE";
        return;
    }
    if (!req->content_type ||
        !media_is(req->content_type, strlen(req->content_type), "application/json")) {
        http_error(out, 415, NULL, JRPC_INVALID_REQUEST,
                   "Unsupported Media Type: the body must be application/json");
        return;
    }
    if (!accepts_json(req->accept)) {
        http_error(out, 406, NULL, JRPC_INVALID_REQUEST,
                   "Not Acceptable: this endpoint answers with application/json");
        return;
    }
    jrpc_msg m;
    char why[200];
    int code = jrpc_parse(req->body ? req->body : "", req->body_len, &m, why, sizeof why);
    if (code) {
        http_error(out, 400, m.id, code, why);
        jrpc_msg_free(&m);
        return;
    }
    out->rpc_method = NULL;
    mcp_ctx ctx = {.legacy_rev = -1, .http = req};
    mcp_msg_class cls = mcp_classify(&m);
    bool modern_header = req->protocol_version && strcmp(req->protocol_version, "2026-07-28") >= 0;
    if (cls == MCP_MSG_LEGACY && m.kind != JRPC_BATCH && !modern_header) {
        /* 2025-era traffic after initialize: the session says which revision. */
        int rev = -1;
        if (!req->session_id) {
            http_error(out, 400, m.id, JRPC_INVALID_REQUEST,
                       "Bad Request: Mcp-Session-Id header is required (send initialize first, "
                       "or use the 2026-07-28 per-request _meta)");
            jrpc_msg_free(&m);
            return;
        }
        if (!session_lookup(srv->sessions, req->session_id, &rev, false)) {
            http_error(out, 404, m.id, JRPC_INVALID_REQUEST,
                       "Session not found: it expired or was ended; send a new initialize");
            jrpc_msg_free(&m);
            return;
        }
        if (req->protocol_version && mcp_legacy_rev_index(req->protocol_version) < 0) {
            http_error(out, 400, m.id, JRPC_INVALID_REQUEST,
                       "Bad Request: unsupported MCP-Protocol-Version header");
            jrpc_msg_free(&m);
            return;
        }
        ctx.legacy_rev = rev;
    }
    mcp_outcome o;
    mcp_dispatch(srv, &ctx, &m, &o);
    jrpc_msg_free(&m);
    out->status = o.status;
    out->body = o.reply;
    out->body_len = o.len;
    out->rpc_method = o.rpc_method;
    out->listen = o.listen; /* closing the stream is the cancellation on HTTP */
    int new_rev = o.new_legacy_rev;
    o.reply = NULL;
    o.listen = NULL;
    mcp_outcome_clear(&o);
    if (new_rev >= 0 && out->body) {
        char id[33];
        if (!session_create(srv->sessions, new_rev, req->client, id)) {
            free(out->body);
            out->body = NULL;
            http_error(out, 500, NULL, JRPC_INTERNAL_ERROR, "could not create a session");
            return;
        }
        out->session_id = strdup(id);
    }
}
