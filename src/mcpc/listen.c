/* Stdio servers kept open (serve --watch): the session stays up after the first read so the
   server can say notifications/tools/list_changed; its tools are then read again over that
   same session (a server whose tools depend on its state keeps that state), and mcpc_list
   of the same server answers from here instead of starting another process. */
#include "mcpc/mcpc_int.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum {
    LISTEN_FIRST_ID = 1000000, /* ids after the first read's (which count from 1) */
    LISTEN_READ_MS = 20        /* how long one mcpc_listen_read waits for the rest of a line */
};

struct mcpc_listener {
    core_arena *arena; /* the server's copy */
    mcpc_server srv;
    mcpc_conn c;
    char *key;        /* which server this is (mcpc_listen_is) */
    json_object *doc; /* the document as last read */
    char *text;       /* doc written out, under live_lock */
    size_t len;
    long next_id;
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
    if (srv->url || !srv->argv || !srv->argv[0] || !*srv->argv[0])
        return core_error_set(err, APIDEX_EINVAL, "only a stdio server is kept open");
    mcpc_listener *l = calloc(1, sizeof *l);
    if (!l || !(l->arena = core_arena_new(0)) || mcpc_server_copy(l->arena, srv, &l->srv) ||
        !(l->key = mcpc_server_key(srv)) || !(l->doc = json_object_new_object())) {
        if (l) core_arena_free(l->arena), free(l->key), free(l);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    l->next_id = LISTEN_FIRST_ID;
    int rc = mcpc_session_open(&l->c, &l->srv, opt, err);
    if (!rc) rc = mcpc_session_read(&l->c, l->doc, err);
    if (!rc && publish(l) < 0) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
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
    fds[0] = l->c.from_child;
    fds[1] = l->c.child_err;
}

const char *mcpc_listen_label(const mcpc_listener *l)
{
    return l->c.label;
}

bool mcpc_listen_is(const mcpc_listener *l, const mcpc_server *srv)
{
    char *key = srv->url ? NULL : mcpc_server_key(srv);
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

int mcpc_listen_read(mcpc_listener *l, apidex_error *err)
{
    bool changed = false;
    int rc = mcpc_session_drain(&l->c, LISTEN_READ_MS, &changed, err);
    return rc ? rc : changed ? reread_tools(l, err) : 0;
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
    mcpc_session_end(&l->c); /* also frees the protocol version read at start */
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
