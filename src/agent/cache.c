/*
 * The disk caches of the agent stage (askAPI answers, LLM chunk texts): one
 * small JSON file per entry under <cache dir>/<kind>/<key>.json. Entries are
 * written to a temp file and renamed, so a reader never sees half of one and
 * concurrent writers of the same key just replace each other.
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAX_ENTRY (16u << 20)

int agent_cache_dir(char *out, size_t cap, apidex_error *err)
{
    const char *d = getenv(AGENT_ENV_CACHE), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    int n;
    if (d && *d)
        n = snprintf(out, cap, "%s", d);
    else if (xdg && *xdg)
        n = snprintf(out, cap, "%s/apidex", xdg);
    else if (home && *home)
        n = snprintf(out, cap, "%s/.cache/apidex", home);
    else
        return core_error_set(err, APIDEX_ENOTFOUND, "no cache folder: set %s (or HOME)",
                              AGENT_ENV_CACHE);
    if (n < 0 || (size_t)n >= cap)
        return core_error_set(err, APIDEX_EINVAL, "the cache folder path is too long");
    return 0;
}

int agent_cache_entry_path(const char *dir, const char *kind, uint64_t key, core_buf *out,
                           apidex_error *err)
{
    char def[4096];
    if (!dir) {
        int rc = agent_cache_dir(def, sizeof def, err);
        if (rc) return rc;
        dir = def;
    }
    char hex[17];
    core_hash_hex(key, hex);
    core_buf_reset(out);
    core_buf_printf(out, "%s/%s/%s.json", dir, kind, hex);
    return out->failed ? core_error_set(err, APIDEX_ENOMEM, "out of memory") : 0;
}

/* mkdir -p of the folder holding path. */
static int make_parents(const char *path)
{
    char *copy = strdup(path);
    if (!copy) return -1;
    int rc = 0;
    for (char *p = copy + 1; *p && !rc; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(copy, 0700) != 0 && errno != EEXIST) rc = -1;
        *p = '/';
    }
    free(copy);
    return rc;
}

char *agent_cache_read(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    if (core_file_read(path, CACHE_MAX_ENTRY, &text, &len, NULL)) return NULL;
    return text;
}

int agent_cache_write(const char *path, const char *text, size_t n)
{
    if (make_parents(path)) return APIDEX_EIO;
    static unsigned long counter;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    unsigned long c = ++counter;
    pthread_mutex_unlock(&lock);
    core_buf tmp;
    core_buf_init(&tmp, 8192);
    core_buf_printf(&tmp, "%s.tmp-%ld-%lu", path, (long)getpid(), c);
    if (tmp.failed) {
        core_buf_free(&tmp);
        return APIDEX_ENOMEM;
    }
    int fd = open(tmp.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int rc = fd < 0 ? APIDEX_EIO : 0;
    for (size_t off = 0; !rc && off < n;) {
        ssize_t w = write(fd, text + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            rc = APIDEX_EIO;
        else
            off += (size_t)w;
    }
    if (fd >= 0 && close(fd) != 0) rc = APIDEX_EIO;
    if (!rc && rename(tmp.data, path) != 0) rc = APIDEX_EIO;
    if (rc) unlink(tmp.data);
    core_buf_free(&tmp);
    return rc;
}
