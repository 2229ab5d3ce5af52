/*
 * The writer lock of an index: one build at a time per index file, so a second
 * `index`/`add`/`remove` never builds from an index that is about to be replaced.
 *
 * flock(LOCK_EX) on `<db>.lock`: the kernel releases it when the holder exits or
 * is killed, so a kill -9 never leaves the index locked. The holder writes its
 * pid into the file (for the "waiting for pid N" message) and unlinks the file
 * before it lets go; a waiter that then gets the lock on the unlinked inode sees
 * that the path names another file (or none) and tries again, so two processes
 * never both believe they hold it. Readers never take the lock: they open the
 * index immutable, and builds only ever rename a complete file over it.
 */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct store_lock {
    int fd;
    char *path;
};

static long lock_holder(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return 0;
    buf[n] = '\0';
    return strtol(buf, NULL, 10);
}

/* The fd still names the lock file at path (not one a previous holder unlinked). */
static bool lock_is_current(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

int store_lock_acquire(const char *db_path, const store_lock_options *opt, store_lock **out,
                       apidex_error *err)
{
    *out = NULL;
    store_lock_options defaults = {0};
    if (!opt) opt = &defaults;
    size_t n = strlen(db_path) + sizeof ".lock";
    store_lock *l = calloc(1, sizeof *l);
    char *path = malloc(n);
    if (!l || !path) {
        free(l);
        free(path);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    snprintf(path, n, "%s.lock", db_path);
    double wait = opt->no_wait            ? 0
                  : opt->wait_seconds > 0 ? opt->wait_seconds
                                          : STORE_LOCK_DEFAULT_WAIT;
    double deadline = core_now() + wait;
    bool told = false;
    for (;;) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            int e = errno;
            free(path);
            free(l);
            if (e == ENOENT)
                return core_error_set(err, APIDEX_EIO,
                                      "cannot create the index %s: its directory does not exist",
                                      db_path);
            return core_error_set(err, APIDEX_EIO, "cannot create the lock file %s.lock: %s",
                                  db_path, strerror(e));
        }
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            if (lock_is_current(fd, path)) {
                char pid[32];
                int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
                if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
                    /* only the waiting message loses its pid */
                }
                l->fd = fd;
                l->path = path;
                *out = l;
                return 0;
            }
            close(fd); /* the previous holder unlinked it: lock the new file */
            continue;
        }
        if (errno != EWOULDBLOCK && errno != EINTR) {
            int e = errno;
            close(fd);
            free(path);
            free(l);
            return core_error_set(err, APIDEX_EIO, "cannot lock %s.lock: %s", db_path, strerror(e));
        }
        long holder = lock_holder(fd);
        close(fd);
        double now = core_now();
        if (now >= deadline) {
            free(path);
            free(l);
            if (opt->no_wait)
                return core_error_set(err, APIDEX_EBUSY,
                                      "another apidex (pid %ld) is writing %s; nothing was done "
                                      "(without --no-wait this waits for it)",
                                      holder, db_path);
            return core_error_set(err, APIDEX_EBUSY,
                                  "another apidex (pid %ld) is still writing %s after %g s; "
                                  "nothing was done (--wait SECONDS waits longer)",
                                  holder, db_path, wait);
        }
        if (!told && opt->on_wait) opt->on_wait(opt->on_wait_ctx, holder, wait);
        told = true;
        double left = deadline - now;
        core_sleep_ms(left < 0.1 ? (unsigned)(left * 1000) + 1 : 100);
    }
}

void store_lock_release(store_lock *l)
{
    if (!l) return;
    /* Unlink first: whoever opens the path from now on gets a new file (see above). */
    unlink(l->path);
    close(l->fd);
    free(l->path);
    free(l);
}
