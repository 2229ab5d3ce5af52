/* Reading whole files with a size cap, content hashes, a monotonic clock. */
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

FILE *core_file_open_regular(const char *path, apidex_error *err)
{
    /* O_NONBLOCK: opening a FIFO for reading waits for a writer; checked before any read */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        core_error_set(err, e == ENOENT ? APIDEX_ENOTFOUND : APIDEX_EIO, "cannot open: %s",
                       strerror(e));
        core_error_at(err, path, 0, 0, NULL);
        return NULL;
    }
    struct stat st;
    const char *what = NULL;
    if (fstat(fd, &st) != 0)
        what = "cannot be examined";
    else if (S_ISDIR(st.st_mode))
        what = "is a directory";
    else if (S_ISFIFO(st.st_mode))
        what = "is not a regular file (a FIFO); only regular files are read";
    else if (S_ISSOCK(st.st_mode))
        what = "is not a regular file (a socket); only regular files are read";
    else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        what = "is not a regular file (a device); only regular files are read";
    else if (!S_ISREG(st.st_mode))
        what = "is not a regular file; only regular files are read";
    int flags = what ? 0 : fcntl(fd, F_GETFL);
    if (!what && (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0))
        what = "cannot be read";
    FILE *f = what ? NULL : fdopen(fd, "rb");
    if (!f) {
        close(fd);
        core_error_set(err, APIDEX_EIO, "%s", what ? what : "cannot be read");
        core_error_at(err, path, 0, 0, NULL);
    }
    return f;
}

int core_file_read(const char *path, size_t max_bytes, char **out, size_t *out_len,
                   apidex_error *err)
{
    *out = NULL;
    *out_len = 0;
    FILE *f = core_file_open_regular(path, err);
    if (!f) return err ? err->code : APIDEX_EIO;
    struct stat st;
    if (max_bytes && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        (size_t)st.st_size > max_bytes) {
        fclose(f);
        core_error_set(err, APIDEX_ELIMIT, "file is %lld bytes, over the limit of %zu",
                       (long long)st.st_size, max_bytes);
        core_error_at(err, path, 0, 0, NULL);
        return APIDEX_ELIMIT;
    }
    core_buf b;
    core_buf_init(&b, max_bytes ? max_bytes : 0);
    char chunk[65536];
    size_t n;
    int rc = 0;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if ((rc = core_buf_append(&b, chunk, n)) != 0) break;
    }
    if (!rc && ferror(f)) rc = APIDEX_EIO;
    fclose(f);
    if (rc) {
        core_buf_free(&b);
        if (rc == APIDEX_ELIMIT)
            core_error_set(err, rc, "file is over the limit of %zu bytes", max_bytes);
        else
            core_error_set(err, rc, "cannot read: %s",
                           rc == APIDEX_EIO ? strerror(errno) : "out of memory");
        core_error_at(err, path, 0, 0, NULL);
        return rc;
    }
    *out = core_buf_steal(&b, out_len);
    return *out ? 0 : core_error_set(err, APIDEX_ENOMEM, "out of memory");
}

uint64_t core_hash64(const void *p, size_t n)
{
    return XXH3_64bits(p, n);
}

void core_hash_hex(uint64_t h, char out[17])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--) {
        out[i] = hex[h & 15];
        h >>= 4;
    }
    out[16] = '\0';
}

void core_sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

double core_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
