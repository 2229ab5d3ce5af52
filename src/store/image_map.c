/*
 * The search image's file (docs/INDEX.md, "The search image"): the image's only copy is a
 * file beside the index named per build, `<index>.image-<build id>`, written and fsynced
 * before the index's rename and named by the index's `meta.image_file`, so the index that
 * becomes visible names an image that is already complete. Old generations are removed
 * after the rename. A reader maps the file the index names (mmap, read-only) and uses it in
 * place; the search stage checks its build id (the index's) and checksum before using it.
 * A missing, cut or damaged file costs the image (the engine is built from the rows, with
 * the same answers), never the index or an answer.
 */
#include "store/store_int.h"
#include "store/writer_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory of path ("." when it has none) in dir, and its last component. */
static const char *split_dir(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, cap, ".");
        return path;
    }
    size_t n = (size_t)(slash - path);
    if (n >= cap) n = cap - 1;
    memcpy(dir, path, n);
    dir[n] = '\0';
    if (n == 0) snprintf(dir, cap, "/");
    return slash + 1;
}

/* Whether name is `<base>.image-` and 16 lowercase hex digits (a generation of base's). */
static bool is_generation(const char *name, const char *base)
{
    size_t b = strlen(base);
    if (strncmp(name, base, b) != 0 || strncmp(name + b, ".image-", 7) != 0) return false;
    const char *h = name + b + 7;
    for (int i = 0; i < 16; i++)
        if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f'))) return false;
    return h[16] == '\0';
}

/* Writes all of buf to fd; false on any error. */
static bool write_all(int fd, const char *buf, size_t len)
{
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, buf + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        off += (size_t)w;
    }
    return true;
}

int store_w_write_image_file(const char *target, uint64_t build_id, const core_buf *img,
                             char **name, apidex_error *err)
{
    *name = NULL;
    size_t n = strlen(target) + 48;
    char *path = malloc(n), *tmp = malloc(n);
    if (!path || !tmp) {
        free(path);
        free(tmp);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory writing the search image");
    }
    snprintf(path, n, "%s.image-%016llx", target, (unsigned long long)build_id);
    /* `<target>.tmp-<pid>-image`: the next writer removes it if this process dies before
       the rename, as it does the index's own temp file (writer.c, remove_stale_temps) */
    snprintf(tmp, n, "%s.tmp-%ld-image", target, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = fd >= 0 && write_all(fd, img->data, img->len) && fsync(fd) == 0;
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    /* durable under its final name before the index that names it is renamed into place */
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        saved = errno;
    }
    int rc = 0;
    if (!ok) {
        unlink(tmp);
        rc = core_error_set(err, APIDEX_EIO, "cannot write the search image %s: %s", path,
                            strerror(saved));
    } else {
        char dir[4096];
        const char *base = split_dir(path, dir, sizeof dir);
        if (!(*name = malloc(strlen(base) + 1)))
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory writing the search image");
        else
            memcpy(*name, base, strlen(base) + 1);
        if (rc) unlink(path);
    }
    free(tmp);
    free(path);
    return rc;
}

void store_w_prune_image_files(const char *target, const char *keep)
{
    char dir[4096];
    const char *base = split_dir(target, dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d) return;
    char legacy[1024];
    snprintf(legacy, sizeof legacy, "%s.image", base); /* an older apidex's copy */
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (keep && !strcmp(e->d_name, keep)) continue;
        if (strcmp(e->d_name, legacy) != 0 && !is_generation(e->d_name, base)) continue;
        char full[8192];
        int n = snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        if (n > 0 && (size_t)n < sizeof full) unlink(full);
    }
    closedir(d);
}

char *store_image_file_path(store_index *idx)
{
    sqlite3_stmt *st = NULL;
    char *path = NULL;
    if (sqlite3_prepare_v2(store_index_db(idx), "SELECT value FROM meta WHERE key = 'image_file'",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        char dir[4096];
        const char *file = store_index_file(idx);
        /* a plain name beside the index: never a path elsewhere, whatever the file says */
        if (name && *name && *name != '.' && !strchr(name, '/') && file) {
            split_dir(file, dir, sizeof dir);
            size_t n = strlen(dir) + strlen(name) + 2;
            if ((path = malloc(n)) != NULL) snprintf(path, n, "%s/%s", dir, name);
        }
    }
    sqlite3_finalize(st);
    return path;
}

static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

void store_image_map(store_index *idx, const void **data, size_t *len)
{
    store_mapping *m = store_index_image_map(idx);
    pthread_mutex_lock(&map_lock);
    if (!m->tried) {
        m->tried = true;
        const char *env = getenv("APIDEX_IMAGE_MAP"); /* =0: read into memory (comparisons) */
        char *path = env && !strcmp(env, "0") ? NULL : store_image_file_path(idx);
        int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
            /* populate: the checksum reads every byte next anyway. A generation's file is
               never rewritten in place (a build writes a new name), so the mapping stays. */
            size_t total = (size_t)st.st_size;
            void *p = mmap(NULL, total, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
            if (p != MAP_FAILED) {
                m->data = p;
                m->len = total;
            }
        }
        if (fd >= 0) close(fd);
        free(path);
    }
    *data = m->data;
    *len = m->len;
    pthread_mutex_unlock(&map_lock);
}

void store_mapping_release(store_mapping *m)
{
    if (m->data) munmap(m->data, m->len);
    m->data = NULL;
    m->len = 0;
}
