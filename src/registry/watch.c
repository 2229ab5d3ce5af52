/*
 * Watching a registry: inotify on the folders its sources live in (or, where there
 * is no inotify, polling of their entries' modification times), a quiet period
 * (debounce) before each build, and a build after every batch of changes, including
 * changes made while a build runs.
 *
 * Why this shape: the build runs on this thread, and the kernel queues the
 * inotify events meanwhile, so a change during a build is read right after it
 * and starts the next build; nothing needs a lock. Watches are (re)added before
 * each build, walking the folders again: a folder created and filled before its
 * watch existed is still indexed, because the build scans after the watch is
 * in place, and any later change is an event. inotify_add_watch on a folder
 * already watched returns the same descriptor, so the walk is idempotent.
 *
 * The polling fallback (not Linux, a build with APIDEX_PORTABLE_ONLY, or
 * APIDEX_WATCH_POLL=1 in the environment) keeps the same folder set and, every
 * WATCH_POLL_MS, a signature of each folder's entries (names, types, sizes, mtimes,
 * ctimes, inodes of specs and subfolders); a folder whose signature changed is a
 * change. A change during a build shows in the first scan after it.
 */
#include "registry/registry.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__linux__) && !defined(APIDEX_PORTABLE_ONLY)
#define WATCH_HAVE_INOTIFY 1
#include <sys/inotify.h>
#else
#define WATCH_HAVE_INOTIFY 0
#endif

enum {
    WATCH_DEFAULT_DEBOUNCE_MS = 300,
    WATCH_MAX_WAIT_MS = 5000, /* a steady stream of changes still builds this often */
    WATCH_MAX_DIRS = 100000,
    WATCH_POLL_MS = 500, /* the polling fallback's scan interval */
#if WATCH_HAVE_INOTIFY
    WATCH_MASK = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO |
                 IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB
#endif
};

typedef struct watch_dir {
    int wd; /* inotify's descriptor; polling: a serial number */
    char *path;
    bool recursive;
    uint64_t sig; /* polling: the entries' signature at the last scan */
} watch_dir;

typedef struct watcher {
    int fd;       /* inotify; -1 when polling */
    bool polling; /* no inotify: scan the folders every WATCH_POLL_MS */
    int next_wd;  /* polling: the next serial number */
    watch_dir *dirs;
    size_t n, cap;
    const char *registry_path; /* followed and re-read; NULL = none */
    char *registry_dir;        /* its folder */
    const char *registry_name; /* its file name */
    bool registry_changed;
    char first_change[512]; /* for the log line */
    FILE *log;
} watcher;

/* ---------------------------------------------------------------- the watch set */

static watch_dir *dir_by_wd(watcher *w, int wd)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->dirs[i].wd == wd) return &w->dirs[i];
    return NULL;
}

static bool spec_name(const char *name);
static uint64_t dir_signature(const watcher *w, const char *path, bool recursive);

/* Polling's inotify_add_watch: a folder already in the set keeps its serial number. */
static int poll_add(watcher *w, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return -1;
    for (size_t i = 0; i < w->n; i++)
        if (!strcmp(w->dirs[i].path, path)) return w->dirs[i].wd;
    return w->next_wd++;
}

static int watch_one(watcher *w, const char *path, bool recursive)
{
    int wd;
    if (w->polling) {
        wd = poll_add(w, path);
        if (wd < 0) return 0; /* gone meanwhile: not an error */
    } else {
#if WATCH_HAVE_INOTIFY
        wd = inotify_add_watch(w->fd, path, WATCH_MASK | IN_ONLYDIR);
        if (wd < 0) return errno == ENOSPC ? APIDEX_ELIMIT : 0; /* gone meanwhile */
#else
        return APIDEX_EINVAL;
#endif
    }
    watch_dir *d = dir_by_wd(w, wd);
    if (d) {
        if (w->polling && recursive && !d->recursive) d->sig = dir_signature(w, path, true);
        d->recursive = d->recursive || recursive;
        return 0;
    }
    if (w->n == w->cap && w->cap >= WATCH_MAX_DIRS) return APIDEX_ELIMIT;
    if (core_array_grow(&w->dirs, &w->cap, w->n, sizeof *w->dirs, 16)) return APIDEX_ENOMEM;
    char *copy = strdup(path);
    if (!copy) return APIDEX_ENOMEM;
    w->dirs[w->n++] =
        (watch_dir){wd, copy, recursive, w->polling ? dir_signature(w, path, recursive) : 0};
    return 0;
}

/* path and every folder under it (hidden ones and symlinked folders skipped, as the
   loader's folder scan does). Iterative: a deep tree cannot overflow the stack. */
static int watch_tree(watcher *w, const char *root)
{
    size_t n = 1, cap = 16;
    char **todo = malloc(cap * sizeof *todo);
    if (!todo || !(todo[0] = strdup(root))) {
        free(todo);
        return APIDEX_ENOMEM;
    }
    int rc = 0;
    while (n) {
        char *dir = todo[--n];
        if (!rc) rc = watch_one(w, dir, true);
        DIR *dh = rc ? NULL : opendir(dir);
        struct dirent *de;
        while (dh && !rc && (de = readdir(dh)) != NULL) {
            if (de->d_name[0] == '.') continue;
            size_t l = strlen(dir) + strlen(de->d_name) + 2;
            char *p = malloc(l);
            if (!p) {
                rc = APIDEX_ENOMEM;
                break;
            }
            snprintf(p, l, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", de->d_name);
            struct stat st;
            if (lstat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
                free(p);
                continue;
            }
            if (core_array_grow(&todo, &cap, n, sizeof *todo, 16)) {
                free(p);
                rc = APIDEX_ENOMEM;
                break;
            }
            todo[n++] = p;
        }
        if (dh) closedir(dh);
        free(dir);
    }
    while (n) free(todo[--n]);
    free(todo);
    return rc;
}

/* The folder part of path ("." when none), malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

static int watch_source(watcher *w, const registry_source *s)
{
    if (s->kind == REGISTRY_SOURCE_URL) return 0;
    struct stat st;
    if (s->kind == REGISTRY_SOURCE_PATH && stat(s->resolved, &st) == 0 && S_ISDIR(st.st_mode))
        return watch_tree(w, s->resolved);
    /* a file (or one not there yet): its folder; a glob: the folder before the first
       wildcard, recursively when the wildcard is not in the last name */
    char *dir = NULL;
    bool recursive = false;
    if (s->kind == REGISTRY_SOURCE_GLOB) {
        size_t wild = strcspn(s->resolved, "*?[");
        const char *last = strrchr(s->resolved, '/');
        recursive = last && (size_t)(last - s->resolved) > wild;
        char *prefix = strndup(s->resolved, wild);
        if (prefix) {
            dir = dir_of(prefix);
            if (dir && !strchr(prefix, '/')) {
                free(dir);
                dir = strdup(".");
            }
        }
        free(prefix);
    } else {
        dir = dir_of(s->resolved);
    }
    if (!dir) return APIDEX_ENOMEM;
    int rc = recursive ? watch_tree(w, dir) : watch_one(w, dir, false);
    free(dir);
    return rc;
}

static int watch_sync(watcher *w, const registry_file *rf)
{
    int rc = 0;
    for (size_t i = 0; rf && i < rf->n_sources && !rc; i++) rc = watch_source(w, &rf->sources[i]);
    if (!rc && w->registry_dir) rc = watch_one(w, w->registry_dir, false);
    return rc;
}

/* ---------------------------------------------------------------- events */

static bool spec_name(const char *name)
{
    if (name[0] == '.') return false; /* editors' swap and temp files */
    const char *dot = strrchr(name, '.');
    return dot &&
           (!strcasecmp(dot, ".json") || !strcasecmp(dot, ".yaml") || !strcasecmp(dot, ".yml"));
}

static void note_change(watcher *w, const watch_dir *d, const char *name)
{
    if (w->first_change[0]) return;
    const char *dir = d ? d->path : "?";
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') dl--;
    snprintf(w->first_change, sizeof w->first_change, "%.*s%s%s", (int)dl, dir,
             name && *name ? "/" : "", name ? name : "");
}

/* FNV-1a over bytes, for the polling signatures. */
static uint64_t sig_mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t sig_stat(uint64_t h, const struct stat *st)
{
    int64_t v[7] = {
        (int64_t)st->st_mode,
        (int64_t)st->st_size,
        (int64_t)st->st_ino,
        (int64_t)st->st_mtime,
        (int64_t)st->st_ctime,
#if defined(__APPLE__)
        (int64_t)st->st_mtimespec.tv_nsec,
        (int64_t)st->st_ctimespec.tv_nsec
    };
#else
        (int64_t)st->st_mtim.tv_nsec,
        (int64_t)st->st_ctim.tv_nsec
    };
#endif
    return sig_mix(h, v, sizeof v);
}

/* The signature of what in folder path matters, as inotify's events would tell: its spec
   files, the registry file when path is its folder, and when recursive which subfolders
   there are (their contents are watched on their own); 0 when the folder is gone. */
static uint64_t dir_signature(const watcher *w, const char *path, bool recursive)
{
    DIR *dh = opendir(path);
    if (!dh) return 0;
    bool registry_here = w->registry_dir && !strcmp(path, w->registry_dir);
    uint64_t h = 0xcbf29ce484222325ull;
    struct dirent *de;
    while ((de = readdir(dh)) != NULL) {
        const char *name = de->d_name;
        if (name[0] == '.') continue;
        char p[4096];
        if (snprintf(p, sizeof p, "%s/%s", path, name) >= (int)sizeof p) continue;
        struct stat st;
        if (lstat(p, &st) != 0) continue;
        bool reg = registry_here && !strcmp(name, w->registry_name);
        uint64_t e = sig_mix(0xcbf29ce484222325ull, name, strlen(name) + 1);
        if (S_ISDIR(st.st_mode)) {
            if (!recursive) continue;
            e = sig_mix(e, &st.st_ino, sizeof st.st_ino);
        } else if (reg || spec_name(name)) {
            e = sig_stat(e, &st);
        } else {
            continue;
        }
        /* readdir's order is not sorted: combine entries with an order-free sum */
        h += e | 1;
    }
    closedir(dh);
    return h;
}

/* Polling: scans every watched folder; true when one of them changed. The registry file
   is compared on its own, so a change to it re-reads it. */
static bool scan_dirs(watcher *w, uint64_t *registry_sig)
{
    bool changed = false;
    for (size_t i = 0; i < w->n;) {
        watch_dir *d = &w->dirs[i];
        uint64_t sig = dir_signature(w, d->path, d->recursive);
        if (sig != d->sig) {
            changed = true;
            note_change(w, d, "");
            d->sig = sig;
        }
        if (!sig) { /* the folder is gone: drop it, as inotify's IN_IGNORED does */
            free(d->path);
            *d = w->dirs[--w->n];
            continue;
        }
        i++;
    }
    if (w->registry_path) {
        struct stat st;
        uint64_t sig = stat(w->registry_path, &st) == 0 ? sig_stat(1, &st) : 0;
        if (sig != *registry_sig) {
            *registry_sig = sig;
            w->registry_changed = true;
            changed = true;
        }
    }
    return changed;
}

#if WATCH_HAVE_INOTIFY
/* Reads what is queued; true when something that matters changed. */
static bool read_events(watcher *w)
{
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool changed = false;
    for (;;) {
        ssize_t len = read(w->fd, buf, sizeof buf);
        if (len <= 0) break;
        for (char *p = buf; p < buf + len;) {
            const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
            p += sizeof *ev + ev->len;
            if (ev->mask & IN_Q_OVERFLOW) {
                /* the kernel dropped events: rebuild, and walk every folder again */
                changed = true;
                note_change(w, NULL, "(many changes)");
                continue;
            }
            watch_dir *d = dir_by_wd(w, ev->wd);
            if (ev->mask & IN_IGNORED) {
                if (d) {
                    free(d->path);
                    *d = w->dirs[--w->n];
                }
                continue;
            }
            if (!d) continue;
            const char *name = ev->len ? ev->name : "";
            if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
                changed = true;
                note_change(w, d, "");
            } else if (ev->mask & IN_ISDIR) {
                if (d->recursive && name[0] != '.') {
                    changed = true;
                    note_change(w, d, name);
                }
            } else if (w->registry_dir && !strcmp(d->path, w->registry_dir) &&
                       !strcmp(name, w->registry_name)) {
                w->registry_changed = true;
                changed = true;
                note_change(w, d, name);
            } else if (spec_name(name)) {
                changed = true;
                note_change(w, d, name);
            }
        }
    }
    return changed;
}
#endif

/* ---------------------------------------------------------------- the loop */

static long ms_until(double deadline)
{
    double left = deadline - core_now();
    return left <= 0 ? 0 : (long)(left * 1000.0) + 1;
}

static void watcher_free(watcher *w)
{
    for (size_t i = 0; i < w->n; i++) free(w->dirs[i].path);
    free(w->dirs);
    free(w->registry_dir);
    if (w->fd >= 0) close(w->fd);
}

int registry_watch_run(const registry_watch_options *opt, apidex_error *err)
{
    if (!opt || !opt->build || (!opt->registry_path && !opt->rf))
        return core_error_set(err, APIDEX_EINVAL, "nothing to watch");
    watcher w = {.fd = -1, .log = opt->log ? opt->log : stderr};
    const char *force_poll = getenv("APIDEX_WATCH_POLL");
    w.polling = !WATCH_HAVE_INOTIFY || (force_poll && !strcmp(force_poll, "1"));
#if WATCH_HAVE_INOTIFY
    if (!w.polling) {
        w.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w.fd < 0) return core_error_set(err, APIDEX_EIO, "inotify: %s", strerror(errno));
    }
#endif
    registry_file *owned = NULL;
    const registry_file *rf = opt->rf;
    if (opt->registry_path) {
        w.registry_path = opt->registry_path;
        w.registry_dir = dir_of(opt->registry_path);
        const char *slash = strrchr(opt->registry_path, '/');
        w.registry_name = slash ? slash + 1 : opt->registry_path;
        if (!w.registry_dir) {
            watcher_free(&w);
            return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        }
        if (!rf) {
            int rc = registry_file_load(opt->registry_path, &owned, err);
            if (rc) {
                watcher_free(&w);
                return rc;
            }
            rf = owned;
        }
    }
    unsigned debounce = opt->debounce_ms ? opt->debounce_ms : WATCH_DEFAULT_DEBOUNCE_MS;
    int rc = watch_sync(&w, rf);
    if (rc) {
        registry_file_free(owned);
        watcher_free(&w);
        return core_error_set(err, rc,
                              rc == APIDEX_ELIMIT ? "inotify: too many folders to watch "
                                                    "(raise fs.inotify.max_user_watches)"
                                                  : "out of memory");
    }
    uint64_t registry_sig = 0;
    struct stat rst;
    if (w.registry_path && stat(w.registry_path, &rst) == 0) registry_sig = sig_stat(1, &rst);
    fprintf(w.log, "apidex: watching %zu folder%s for changes%s (Ctrl-C stops)\n", w.n,
            w.n == 1 ? "" : "s", w.polling ? " by polling" : "");
    fflush(w.log);
    bool pending = opt->build_first;
    double first = core_now(), last = first - 1.0; /* build_first: no quiet period */
    for (;;) {
        long timeout = w.polling ? WATCH_POLL_MS : -1;
        if (pending) {
            double due = last + debounce / 1000.0, cap = first + WATCH_MAX_WAIT_MS / 1000.0;
            long until = ms_until(due < cap ? due : cap);
            if (timeout < 0 || until < timeout) timeout = until;
        }
        /* fds[0] inotify (-1 when polling: poll ignores it), fds[1] the stop pipe (or -1),
           then two per MCP server kept open */
        size_t n_mcp = opt->mcp ? registry_mcp_count(*opt->mcp) : 0;
        struct pollfd *fds = calloc(2 + 2 * n_mcp, sizeof *fds);
        if (!fds) {
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            break;
        }
        fds[0] = (struct pollfd){.fd = w.fd, .events = POLLIN};
        fds[1] = (struct pollfd){.fd = opt->stop_fd, .events = POLLIN};
        if (n_mcp) registry_mcp_poll_fds(*opt->mcp, fds + 2);
        int pr = poll(fds, 2 + 2 * n_mcp, timeout > INT32_MAX ? INT32_MAX : (int)timeout);
        bool stop = pr > 0 && opt->stop_fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP));
        bool seen = false;
        if (pr > 0 && !stop && n_mcp) {
            bool unnamed = !w.first_change[0]; /* the log line names the first change */
            seen = registry_mcp_read(*opt->mcp, fds + 2, w.first_change,
                                     unnamed ? sizeof w.first_change : 0, w.log);
        }
        short inotify_events = fds[0].revents;
        free(fds);
        if (pr < 0 && errno != EINTR) {
            rc = core_error_set(err, APIDEX_EIO, "poll: %s", strerror(errno));
            break;
        }
        if (stop) {
            fprintf(w.log, "apidex: stopped watching\n");
            break;
        }
        if (w.polling) {
            seen = scan_dirs(&w, &registry_sig) || seen;
        } else {
#if WATCH_HAVE_INOTIFY
            seen = (pr > 0 && (inotify_events & POLLIN) && read_events(&w)) || seen;
#else
            (void)inotify_events;
#endif
        }
        if (seen) {
            double now = core_now();
            if (!pending) first = now;
            pending = true;
            last = now; /* wait for quiet, up to WATCH_MAX_WAIT_MS after the first change */
        }
        if (!pending) continue;
        double now = core_now();
        if (now < last + debounce / 1000.0 && now < first + WATCH_MAX_WAIT_MS / 1000.0) continue;
        pending = false;
        if (w.registry_changed && w.registry_path) {
            w.registry_changed = false;
            registry_file *fresh = NULL;
            apidex_error rerr;
            core_error_clear(&rerr);
            if (registry_file_load(w.registry_path, &fresh, &rerr) == 0) {
                registry_file_free(owned);
                owned = fresh;
                rf = owned;
            } else {
                /* keep building from the last good file; say what is wrong with this one */
                fprintf(w.log, "%s:%u:%u: error: %s (the previous registry stays in use)\n",
                        rerr.file[0] ? rerr.file : w.registry_path, rerr.line, rerr.col,
                        rerr.message);
            }
        }
        /* new folders are watched before the build looks at them */
        rc = watch_sync(&w, rf);
        if (rc) {
            core_error_set(err, rc, "%s: cannot watch the new folders",
                           w.polling ? "watch" : "inotify");
            break;
        }
        /* the MCP servers named now are open before the build reads them */
        if (opt->mcp && registry_mcp_sync(opt->mcp, rf, w.log)) {
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            break;
        }
        if (w.first_change[0]) {
            fprintf(w.log, "apidex: %s changed: re-indexing\n", w.first_change);
            fflush(w.log);
        }
        w.first_change[0] = '\0';
        opt->build(opt->build_ctx, rf);
        fflush(w.log);
    }
    registry_file_free(owned);
    watcher_free(&w);
    return rc;
}
