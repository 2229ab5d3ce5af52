/* Reading whole files with a size cap, content hashes, a monotonic clock. */
#include "core/core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <xxhash.h>

int core_file_read(const char *path, size_t max_bytes, char **out, size_t *out_len,
                   apidex_error *err)
{
    *out = NULL;
    *out_len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        core_error_set(err, errno == ENOENT ? APIDEX_ENOTFOUND : APIDEX_EIO, "cannot open: %s",
                       strerror(errno));
        core_error_at(err, path, 0, 0, NULL);
        return err ? err->code : APIDEX_EIO;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        core_error_set(err, APIDEX_EIO, "is a directory");
        core_error_at(err, path, 0, 0, NULL);
        return APIDEX_EIO;
    }
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
