/* Helpers shared by the cmocka unit tests. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tu_shared_dir(void)
{
    const char *d = getenv("APIDEX_SHARED_DIR");
    struct stat st;
    if (!d || stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return d;
}

const char *tu_source_dir(void)
{
    const char *d = getenv("APIDEX_SOURCE_DIR");
    return d ? d : APIDEX_SOURCE_DIR;
}

const char *tu_emulated_cpu(void)
{
    const char *c = getenv("APIDEX_TEST_EMULATED_CPU");
    return c && *c ? c : NULL;
}

char *tu_path(const char *dir, const char *rel)
{
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

char *tu_tempdir(void)
{
    char tmpl[] = "/tmp/apidex-test-XXXXXX";
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

static void mkdirs_for(const char *path)
{
    char *copy = strdup(path);
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(copy, 0755) != 0 && errno != EEXIST) fail_msg("mkdir %s failed", copy);
        *p = '/';
    }
    free(copy);
}

char *tu_write(const char *dir, const char *rel, const char *text)
{
    char *p = tu_path(dir, rel);
    mkdirs_for(p);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fwrite(text, 1, strlen(text), f);
    fclose(f);
    return p;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void tu_rmtree(const char *path)
{
    if (path) nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int tu_server_start(char *const argv[], const char *dir, const char *port_file, int *port)
{
    *port = 0;
    /* Everything the child needs is made before fork: between fork and exec a child of a
     * threaded process (the engine's threads, QEMU's own) may only make async-signal-safe
     * calls, or it can wait forever on a lock another thread held at the fork. */
    char *out = tu_path(dir, "server.out");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    free(out);
    for (int i = 0; i < 500; i++) { /* up to 10 s for the interpreter to start */
        FILE *f = fopen(port_file, "r");
        if (f) {
            int ok = fscanf(f, "%d", port);
            fclose(f);
            if (ok == 1 && *port > 0) break;
        }
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (*port <= 0) {
        tu_server_stop(pid);
        fail_msg("test server %s did not start", argv[1] ? argv[1] : argv[0]);
    }
    return (int)pid;
}

void tu_server_stop(int pid)
{
    if (pid <= 0) return;
    kill(pid, SIGTERM);
    for (int i = 0; i < 250; i++) { /* up to 5 s to end on SIGTERM */
        if (waitpid(pid, NULL, WNOHANG) != 0) return;
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL); /* one that ignores or cannot act on SIGTERM (a stuck emulator) */
    waitpid(pid, NULL, 0);
}
