/*
 * What is at an index path, from its first 100 bytes: nothing, an apidex index
 * (damaged or not), another SQLite database, or something else. Builds replace
 * only what is clearly theirs: never a file another program wrote.
 */
#include "store/store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

store_file_kind store_probe(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return errno == ENOENT ? STORE_FILE_MISSING : STORE_FILE_OTHER;
    if (!S_ISREG(st.st_mode)) return STORE_FILE_OTHER;
    if (st.st_size == 0) return STORE_FILE_EMPTY;
    unsigned char head[100];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return STORE_FILE_OTHER;
    ssize_t n = pread(fd, head, sizeof head, 0);
    close(fd);
    /* The SQLite header: the magic string, and at offset 68 the application id (big-endian). */
    if (n < (ssize_t)sizeof head || memcmp(head, "SQLite format 3", 16) != 0)
        return STORE_FILE_OTHER;
    unsigned long app = (unsigned long)head[68] << 24 | (unsigned long)head[69] << 16 |
                        (unsigned long)head[70] << 8 | head[71];
    return app == STORE_APPLICATION_ID ? STORE_FILE_APIDEX : STORE_FILE_SQLITE;
}

int store_file_error(const char *path, int sqlite_rc, bool writing, apidex_error *err)
{
    switch (store_probe(path)) {
    case STORE_FILE_APIDEX:
        return core_error_set(err, APIDEX_EDB,
                              "%s is a damaged apidex index (%s): rebuild it with "
                              "'apidex index --full PATH...'",
                              path, sqlite3_errstr(sqlite_rc));
    case STORE_FILE_SQLITE:
        return core_error_set(err, writing ? APIDEX_EREFUSED : APIDEX_EVERSION,
                              "%s is an SQLite database but not an apidex index: check the "
                              "--db path%s",
                              path, writing ? " (apidex never replaces it, even with --full)" : "");
    default:
        return core_error_set(err, writing ? APIDEX_EREFUSED : APIDEX_EVERSION,
                              "%s is not an apidex index (not an SQLite database): check the "
                              "--db path%s",
                              path, writing ? " (apidex never replaces it, even with --full)" : "");
    }
}
