/*
 * The search image's mapped copy (docs/INDEX.md, "The search image"): every build also
 * writes the image's bytes to a file beside the index, `<index>.image`, after the index is
 * renamed into place, so a reader maps it (mmap, read-only) and uses it in place instead of
 * copying the BLOB out of SQLite's pages. The BLOB in the index stays the image: the file
 * is a copy, used only when its length and first bytes (magic, version, build id, length,
 * checksum) are the BLOB's; the search stage then checks its checksum and reads the BLOB
 * when that fails. A missing, stale (another build's), cut or damaged file costs the copy,
 * never an answer; the index is swapped by its own rename as before.
 */
#include "store/store_int.h"
#include "store/writer_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The bytes compared with the BLOB's before the file is used (the image header is 48). */
enum { IMAGE_HEAD_BYTES = 64 };

static char *image_path(const char *index_path)
{
    size_t n = strlen(index_path) + 8;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s.image", index_path);
    return p;
}

void store_w_put_image_file(const char *target, const core_buf *img)
{
    char *path = image_path(target);
    if (!path) return;
    if (!img->len) { /* no image: a file beside the index would be another build's */
        unlink(path);
        free(path);
        return;
    }
    /* `<target>.tmp-<pid>-image`: the next writer removes it if this process dies before
       the rename, as it does the index's own temp file (writer.c, remove_stale_temps) */
    size_t n = strlen(target) + 48;
    char *tmp = malloc(n);
    if (tmp) snprintf(tmp, n, "%s.tmp-%ld-image", target, (long)getpid());
    int fd = tmp ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    bool ok = fd >= 0;
    for (size_t off = 0; ok && off < img->len;) {
        ssize_t w = write(fd, img->data + off, img->len - off);
        if (w < 0 && errno == EINTR) continue;
        ok = w > 0;
        if (ok) off += (size_t)w;
    }
    if (fd >= 0 && close(fd) != 0) ok = false;
    /* no fsync: after a crash a cut or zeroed file fails the comparison or the checksum and
       the BLOB is read, as with no file */
    if (!ok || rename(tmp, path) != 0) {
        if (tmp) unlink(tmp);
        unlink(path); /* never leave the previous build's beside the new index */
    }
    free(tmp);
    free(path);
}

/* The BLOB's total length and its first bytes (head, *n_head of them); 0 when it has none. */
static size_t blob_head(sqlite3 *db, unsigned char *head, size_t *n_head)
{
    *n_head = 0;
    sqlite3_stmt *st = NULL;
    sqlite3_int64 total = 0;
    int rows = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'image'",
                           -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return 0;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT count(*), sum(length(data)) FROM image", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        rows = sqlite3_column_int(st, 0);
        total = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (rows < 1 || total <= 0) return 0;
    sqlite3_blob *b = NULL;
    if (sqlite3_blob_open(db, "main", "image", "data", 1, 0, &b) == SQLITE_OK) {
        int n = sqlite3_blob_bytes(b);
        if (n > IMAGE_HEAD_BYTES) n = IMAGE_HEAD_BYTES;
        if (n > 0 && sqlite3_blob_read(b, head, n, 0) == SQLITE_OK) *n_head = (size_t)n;
    }
    sqlite3_blob_close(b);
    return *n_head ? (size_t)total : 0;
}

static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

void store_image_map(store_index *idx, const void **data, size_t *len)
{
    store_mapping *m = store_index_image_map(idx);
    pthread_mutex_lock(&map_lock);
    if (!m->tried) {
        m->tried = true;
        const char *env = getenv("APIDEX_IMAGE_MAP"); /* =0: the BLOB (comparisons) */
        unsigned char head[IMAGE_HEAD_BYTES];
        size_t n_head = 0;
        size_t total = env && !strcmp(env, "0") ? 0 : blob_head(store_index_db(idx), head, &n_head);
        char *path = total ? image_path(store_index_file(idx)) : NULL;
        int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == total) {
            /* populate: the checksum reads every byte next anyway */
            void *p = mmap(NULL, total, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
            if (p != MAP_FAILED && !memcmp(p, head, n_head)) {
                m->data = p;
                m->len = total;
            } else if (p != MAP_FAILED) {
                munmap(p, total);
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
