/*
 * The system calls that differ between systems, each behind one function: the Linux call
 * where it exists (unless APIDEX_PORTABLE_ONLY forces the fallbacks, for testing them),
 * a POSIX fallback otherwise.
 */
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__linux__) && !defined(APIDEX_PORTABLE_ONLY)
#define SYS_LINUX 1
#include <linux/fs.h>
#include <sched.h>
#include <sys/ioctl.h>
#else
#define SYS_LINUX 0
#endif

int core_sys_cpu_count(void)
{
#if SYS_LINUX
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int core_sys_pipe_cloexec(int fds[2])
{
#if SYS_LINUX
    return pipe2(fds, O_CLOEXEC);
#else
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        int flags = fcntl(fds[i], F_GETFD);
        if (flags < 0 || fcntl(fds[i], F_SETFD, flags | FD_CLOEXEC) != 0) {
            int e = errno;
            close(fds[0]);
            close(fds[1]);
            errno = e;
            return -1;
        }
    }
    return 0;
#endif
}

/* realpath of path into out[cap] when it is an executable regular file. */
static int exe_realpath(const char *path, char *out, size_t cap)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0) return -1;
    char *real = realpath(path, NULL);
    if (!real) return -1;
    size_t n = strlen(real);
    int rc = n < cap ? 0 : -1;
    if (rc == 0) memcpy(out, real, n + 1);
    free(real);
    return rc;
}

int core_sys_exe_from_argv0(const char *argv0, char *out, size_t cap)
{
    if (!argv0 || !*argv0 || !out || cap == 0) return -1;
    if (strchr(argv0, '/')) return exe_realpath(argv0, out, cap);
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        size_t len = strcspn(p, ":");
        char cand[PATH_MAX];
        /* an empty entry is the current folder, as in a shell */
        int w = len ? snprintf(cand, sizeof cand, "%.*s/%s", (int)len, p, argv0)
                    : snprintf(cand, sizeof cand, "./%s", argv0);
        if (w > 0 && (size_t)w < sizeof cand && exe_realpath(cand, out, cap) == 0) return 0;
        if (!p[len]) break;
        p += len + 1;
    }
    return -1;
}

int core_sys_self_exe(const char *argv0, char *out, size_t cap)
{
#if SYS_LINUX
    if (cap > 1) {
        ssize_t n = readlink("/proc/self/exe", out, cap - 1);
        if (n > 0 && (size_t)n < cap - 1) {
            out[n] = '\0';
            return 0;
        }
    }
#endif
    return core_sys_exe_from_argv0(argv0, out, cap);
}

int core_sys_copy_file(int in, int out, int64_t size)
{
    int64_t left = size;
#if SYS_LINUX
    /* A reflink shares the blocks until either side writes; else the kernel copies. */
    if (ioctl(out, FICLONE, in) == 0) return 0;
    while (left > 0) {
        ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)left, 0);
        if (n <= 0) break;
        left -= n;
    }
    /* No copy_file_range (an old kernel, another filesystem): read and write. */
#endif
    if (left > 0 && lseek(in, (off_t)(size - left), SEEK_SET) >= 0 &&
        lseek(out, (off_t)(size - left), SEEK_SET) >= 0) {
        char buf[1 << 16];
        while (left > 0) {
            ssize_t n = read(in, buf, sizeof buf);
            if (n <= 0 || write(out, buf, (size_t)n) != n) break;
            left -= n;
        }
    }
    return left == 0 ? 0 : -1;
}
