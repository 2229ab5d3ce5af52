/* Servers kept open (serve --watch): the session stays up after the first read so the server
   can say notifications/tools/list_changed; its tools are then read again over that same
   session (a server whose tools depend on its state keeps that state), and mcpc_list of the
   same server answers from here instead of starting another process or session. A stdio
   server says it on its stdout; a Streamable HTTP server on its GET event stream, which
   stream.c holds open on a thread of its own (the POSTs stay on the watcher's thread). */
#include "mcpc/mcpc_int.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum {
    LISTEN_FIRST_ID = 1000000, /* ids after the first read's (which count from 1) */
    LISTEN_READ_MS = 20,       /* how long one mcpc_listen_read waits for the rest of a line */
    LISTEN_NOTES_MAX = 4096    /* bytes of log lines kept until mcpc_listen_news */
};

struct mcpc_listener {
    core_arena *arena; /* the server's copy */
    mcpc_server srv;
    mcpc_options opt; /* the caller's time limit; no extra address (as the pool's) */
    mcpc_conn c;
    char *key;        /* which server this is (mcpc_listen_is) */
    json_object *doc; /* the document as last read */
    char *text;       /* doc written out, under live_lock */
    size_t len;
    long next_id;
    mcpc_stream *stream; /* HTTP: the GET event stream */
    core_buf notes;      /* HTTP: lines for the log (mcpc_listen_news) */
    mcpc_listener *next; /* in the live list */
};

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static mcpc_listener *live;

/* doc written out as l->text (under live_lock: mcpc_live_document reads it from any
   thread); returns 1 when the text changed, 0 when not, APIDEX_ENOMEM */
static int publish(mcpc_listener *l)
{
    size_t n = 0;
    const char *t = json_object_to_json_string_length(l->doc, JSON_C_TO_STRING_PLAIN, &n);
    char *copy = t ? malloc(n + 1) : NULL;
    if (!copy) return APIDEX_ENOMEM;
    memcpy(copy, t, n + 1);
    pthread_mutex_lock(&live_lock);
    bool same = l->text && l->len == n && !memcmp(l->text, copy, n);
    if (same) {
        free(copy);
    } else {
        free(l->text);
        l->text = copy;
        l->len = n;
    }
    pthread_mutex_unlock(&live_lock);
    return same ? 0 : 1;
}

int mcpc_listen_open(const mcpc_server *srv, const mcpc_options *opt, mcpc_listener **out,
                     apidex_error *err)
{
    *out = NULL;
    mcpc_listener *l = calloc(1, sizeof *l);
    if (!l || !(l->arena = core_arena_new(0)) || mcpc_server_copy(l->arena, srv, &l->srv) ||
        !(l->key = mcpc_server_key(srv)) || !(l->doc = json_object_new_object())) {
        if (l) core_arena_free(l->arena), free(l->key), free(l);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    l->next_id = LISTEN_FIRST_ID;
    l->opt = (mcpc_options){.timeout_ms = opt ? opt->timeout_ms : 0};
    core_buf_init(&l->notes, LISTEN_NOTES_MAX);
    int rc = mcpc_session_open(&l->c, &l->srv, &l->opt, err);
    if (!rc) rc = mcpc_session_read(&l->c, l->doc, err);
    if (!rc && publish(l) < 0) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!rc && l->srv.url &&
        (rc = mcpc_stream_start(&l->srv, l->c.label, l->c.session_id, l->c.protocol_version,
                                &l->stream)) != 0)
        rc = core_error_set(err, rc, "server '%s': cannot follow its event stream", l->c.label);
    if (rc) {
        mcpc_listen_close(l);
        return rc;
    }
    pthread_mutex_lock(&live_lock);
    l->next = live;
    live = l;
    pthread_mutex_unlock(&live_lock);
    *out = l;
    return 0;
}

void mcpc_listen_fds(const mcpc_listener *l, int fds[2])
{
    fds[0] = l->stream ? mcpc_stream_fd(l->stream) : l->c.from_child;
    fds[1] = l->stream ? -1 : l->c.child_err;
}

const char *mcpc_listen_label(const mcpc_listener *l)
{
    return l->c.label;
}

bool mcpc_listen_is(const mcpc_listener *l, const mcpc_server *srv)
{
    char *key = mcpc_server_key(srv);
    bool same = key && !strcmp(key, l->key);
    free(key);
    return same;
}

/* tools/list again over the session, into the document */
static int reread_tools(mcpc_listener *l, apidex_error *err)
{
    json_object *tools = json_object_new_array();
    if (!tools) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    int rc = mcpc_session_list(&l->c, &l->next_id, "tools/list", "tools", tools, err);
    if (rc) {
        json_object_put(tools);
        return rc;
    }
    json_object_object_add(l->doc, "tools", tools);
    rc = publish(l);
    return rc < 0 ? core_error_set(err, rc, "out of memory") : rc;
}

/* HTTP: the server forgot the session (404): a new one, read afresh (the document may have
   changed meanwhile), and the stream follows it */
static int restart_session(mcpc_listener *l, apidex_error *err)
{
    mcpc_session_end(&l->c);
    json_object *doc = json_object_new_object();
    if (!doc) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    int rc = mcpc_session_open(&l->c, &l->srv, &l->opt, err);
    if (!rc) rc = mcpc_session_read(&l->c, doc, err);
    if (rc) {
        json_object_put(doc);
        return rc;
    }
    json_object_put(l->doc);
    l->doc = doc;
    l->next_id = LISTEN_FIRST_ID;
    mcpc_stream_resume(l->stream, l->c.session_id, l->c.protocol_version);
    rc = publish(l);
    return rc < 0 ? core_error_set(err, rc, "out of memory") : rc;
}

int mcpc_listen_read(mcpc_listener *l, apidex_error *err)
{
    if (!l->stream) {
        bool changed = false;
        int rc = mcpc_session_drain(&l->c, LISTEN_READ_MS, &changed, err);
        return rc ? rc : changed ? reread_tools(l, err) : 0;
    }
    unsigned news = mcpc_stream_take(l->stream, &l->notes);
    if (news & MCPC_STREAM_GONE) return restart_session(l, err);
    if (!(news & MCPC_STREAM_RELIST)) return 0;
    l->c.total = 0; /* the size limit holds per read */
    l->c.session_gone = false;
    int rc = reread_tools(l, err);
    if (rc < 0 && l->c.session_gone) { /* forgotten since the stream last spoke */
        core_error_clear(err);
        return restart_session(l, err);
    }
    if (rc < 0 && rc != APIDEX_ENOMEM) {
        /* the session is still there (the stream says when it is not): the tools stay as
           last read, and the next notification or reconnection reads them again */
        core_buf_printf(&l->notes, "%s (its tools stay as last read)\n", err->message);
        core_error_clear(err);
        return 0;
    }
    return rc;
}

size_t mcpc_listen_news(mcpc_listener *l, char *buf, size_t cap)
{
    size_t n = l->notes.len < cap ? l->notes.len : cap ? cap - 1 : 0;
    if (cap) {
        memcpy(buf, l->notes.data ? l->notes.data : "", n);
        buf[n] = '\0';
    }
    core_buf_reset(&l->notes);
    return n;
}

void mcpc_listen_close(mcpc_listener *l)
{
    if (!l) return;
    pthread_mutex_lock(&live_lock);
    for (mcpc_listener **p = &live; *p; p = &(*p)->next)
        if (*p == l) {
            *p = l->next;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    mcpc_stream_stop(l->stream); /* before the session ends: no GET outlives it */
    mcpc_session_end(&l->c);     /* also frees the protocol version read at start */
    core_buf_free(&l->notes);
    json_object_put(l->doc);
    free(l->text);
    free(l->key);
    core_arena_free(l->arena);
    free(l);
}

bool mcpc_live_document(const mcpc_server *srv, char **doc, size_t *len)
{
    char *key = mcpc_server_key(srv);
    if (!key) return false;
    bool found = false;
    pthread_mutex_lock(&live_lock);
    for (mcpc_listener *l = live; l && !found; l = l->next) {
        if (strcmp(l->key, key) || !l->text) continue;
        *doc = malloc(l->len + 1);
        if (*doc) {
            memcpy(*doc, l->text, l->len + 1);
            *len = l->len;
            found = true;
        }
    }
    pthread_mutex_unlock(&live_lock);
    free(key);
    return found;
}
