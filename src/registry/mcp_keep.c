/* The MCP servers a watched registry names (stdio and Streamable HTTP), kept open
   (mcpc/listen.c) so their notifications/tools/list_changed start a build like a changed
   file does; the build reads their documents from the open sessions, and the content hash
   re-uses every server whose tools did not change. */
#include "registry/registry.h"

#include "mcpc/mcpc.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>

struct registry_mcp {
    mcpc_listener **items;
    bool *named; /* sync: still named by the registry */
    size_t n, cap;
};

void registry_mcp_free(registry_mcp *set)
{
    if (!set) return;
    for (size_t i = 0; i < set->n; i++) mcpc_listen_close(set->items[i]);
    free(set->items);
    free(set->named);
    free(set);
}

static void drop(registry_mcp *set, size_t i)
{
    mcpc_listen_close(set->items[i]);
    set->items[i] = set->items[--set->n];
    set->named[i] = set->named[set->n];
}

/* What a server's listener has to say (its event stream opened, closed...), one line each. */
static void say_news(mcpc_listener *l, FILE *log)
{
    char news[4096];
    if (!mcpc_listen_news(l, news, sizeof news)) return;
    char *save = NULL;
    for (char *line = strtok_r(news, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        fprintf(log, "apidex: %s\n", line);
}

static int keep(registry_mcp *set, const mcpc_server *srv, const char *source, FILE *log)
{
    for (size_t i = 0; i < set->n; i++)
        if (mcpc_listen_is(set->items[i], srv)) {
            set->named[i] = true;
            return 0;
        }
    if (core_array_grow2(&set->items, sizeof *set->items, &set->named, sizeof *set->named,
                         &set->cap, set->n, 8))
        return APIDEX_ENOMEM;
    mcpc_listener *l = NULL;
    apidex_error err;
    core_error_clear(&err);
    int rc = mcpc_listen_open(srv, NULL, &l, &err);
    if (rc == APIDEX_ENOMEM) return rc;
    if (rc) {
        /* not kept: the build starts it as usual and reports its error */
        fprintf(log, "apidex: %s: cannot keep the server open: %s\n", source, err.message);
        return 0;
    }
    fprintf(log, "apidex: %s: server '%s' kept open for tools/list_changed\n", source,
            mcpc_listen_label(l));
    say_news(l, log);
    set->items[set->n] = l;
    set->named[set->n++] = true;
    return 0;
}

int registry_mcp_sync(registry_mcp **setp, const registry_file *rf, FILE *log)
{
    registry_mcp *set = *setp;
    if (!set && !(set = *setp = calloc(1, sizeof *set))) return APIDEX_ENOMEM;
    for (size_t i = 0; i < set->n; i++) set->named[i] = false;
    int rc = 0;
    for (size_t i = 0; rf && i < rf->n_sources && !rc; i++) {
        const registry_source *s = &rf->sources[i];
        if (s->kind != REGISTRY_SOURCE_URL || !mcpc_is_source(s->resolved)) continue;
        core_arena *a = core_arena_new(0);
        if (!a) return APIDEX_ENOMEM;
        mcpc_servers ss;
        apidex_error err;
        core_error_clear(&err);
        /* a source that does not parse is the build's error to report */
        if (mcpc_source_parse(s->resolved, a, &ss, &err) == 0)
            for (size_t k = 0; k < ss.n && !rc; k++) rc = keep(set, &ss.items[k], s->written, log);
        core_arena_free(a);
    }
    for (size_t i = set->n; i-- > 0;)
        if (!set->named[i]) drop(set, i);
    fflush(log);
    return rc;
}

size_t registry_mcp_poll_fds(const registry_mcp *set, struct pollfd *fds)
{
    size_t n = 0;
    for (size_t i = 0; set && i < set->n; i++) {
        int two[2];
        mcpc_listen_fds(set->items[i], two);
        fds[n++] = (struct pollfd){.fd = two[0], .events = POLLIN};
        fds[n++] = (struct pollfd){.fd = two[1], .events = POLLIN};
    }
    return n;
}

bool registry_mcp_read(registry_mcp *set, const struct pollfd *fds, char *what, size_t what_cap,
                       FILE *log)
{
    bool changed = false;
    /* fds were filled by registry_mcp_poll_fds in this order; a server dropped below moves
       the last one into its place, so walk from the end */
    for (size_t i = set ? set->n : 0; i-- > 0;) {
        if (!(fds[2 * i].revents | fds[2 * i + 1].revents)) continue;
        apidex_error err;
        core_error_clear(&err);
        int rc = mcpc_listen_read(set->items[i], &err);
        say_news(set->items[i], log);
        if (rc == 1) {
            if (!changed && what_cap)
                snprintf(what, what_cap, "the tools of MCP server '%s'",
                         mcpc_listen_label(set->items[i]));
            changed = true;
        } else if (rc < 0) {
            /* gone: its tools stay indexed as last read, and the sync before the next build
               (for any other change) starts it again; no build now, so a server that dies
               at once cannot make the watcher loop */
            fprintf(log, "apidex: MCP server '%s' is no longer open: %s\n",
                    mcpc_listen_label(set->items[i]), err.message);
            drop(set, i);
        }
    }
    fflush(log);
    return changed;
}

size_t registry_mcp_count(const registry_mcp *set)
{
    return set ? set->n : 0;
}
