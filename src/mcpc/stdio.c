/* The stdio transport of the MCP client: the server as a child process in a group of its
   own, newline-delimited JSON-RPC over its stdin and stdout, every read under a deadline
   and a size limit, its stderr drained (the tail kept for errors). */
#include "mcpc/mcpc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* apidex's environment with the server's KEY=VALUE entries set over it (NULL on OOM). */
static char **child_env(const mcpc_server *s)
{
    size_t n = 0;
    while (environ && environ[n]) n++;
    char **env = calloc(n + s->n_env + 1, sizeof *env);
    if (!env) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t kl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        bool over = false;
        for (size_t j = 0; j < s->n_env && !over; j++)
            over = !strncmp(s->env[j], environ[i], kl) && s->env[j][kl] == '=';
        if (!over) env[k++] = environ[i];
    }
    for (size_t j = 0; j < s->n_env; j++) env[k++] = (char *)s->env[j];
    env[k] = NULL;
    return env;
}

int mcpc_stdio_open(mcpc_conn *c, apidex_error *err)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(er, O_CLOEXEC)) {
        int e = errno;
        close_fd(&in[0]), close_fd(&in[1]), close_fd(&out[0]), close_fd(&out[1]);
        close_fd(&er[0]), close_fd(&er[1]);
        return core_error_set(err, APIDEX_EIO, "server '%s': cannot make pipes: %s", c->label,
                              strerror(e));
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, er[1], 2);
    /* its own process group (stopped as one), default signal dispositions */
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &def);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                        POSIX_SPAWN_SETSIGMASK);
    char **env = child_env(c->srv);
    int rc =
        env ? posix_spawnp(&c->pid, c->srv->argv[0], &fa, &attr, (char *const *)c->srv->argv, env)
            : ENOMEM;
    free(env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close_fd(&in[0]);
    close_fd(&out[1]);
    close_fd(&er[1]);
    if (rc) {
        c->pid = 0;
        close_fd(&in[1]), close_fd(&out[0]), close_fd(&er[0]);
        if (rc == ENOMEM) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        return core_error_set(err, rc == ENOENT ? APIDEX_ENOTFOUND : APIDEX_EIO,
                              "server '%s': cannot start '%s': %s", c->label, c->srv->argv[0],
                              strerror(rc));
    }
    c->to_child = in[1];
    c->from_child = out[0];
    c->child_err = er[0];
    fcntl(c->to_child, F_SETFL, fcntl(c->to_child, F_GETFL) | O_NONBLOCK);
    fcntl(c->from_child, F_SETFL, fcntl(c->from_child, F_GETFL) | O_NONBLOCK);
    fcntl(c->child_err, F_SETFL, fcntl(c->child_err, F_GETFL) | O_NONBLOCK);
    core_buf_init(&c->line, (size_t)MCPC_MAX_MESSAGE + 65536 + 1);
    return 0;
}

/* Keeps the last bytes of the server's stderr. */
static void drain_stderr(mcpc_conn *c)
{
    char buf[4096];
    for (;;) {
        ssize_t n = read(c->child_err, buf, sizeof buf);
        if (n == 0) {
            close_fd(&c->child_err);
            return;
        }
        if (n < 0) {
            if (errno != EINTR) return;
            continue;
        }
        size_t cap = sizeof c->err_tail - 1;
        if ((size_t)n >= cap) {
            memcpy(c->err_tail, buf + n - cap, cap);
            c->err_len = cap;
        } else {
            if (c->err_len + (size_t)n > cap) {
                size_t drop = c->err_len + (size_t)n - cap;
                memmove(c->err_tail, c->err_tail + drop, c->err_len - drop);
                c->err_len -= drop;
            }
            memcpy(c->err_tail + c->err_len, buf, (size_t)n);
            c->err_len += (size_t)n;
        }
        c->err_tail[c->err_len] = '\0';
    }
}

/* The last line of the server's stderr, for an error message ("" when none). */
static const char *err_last_line(mcpc_conn *c)
{
    if (c->child_err >= 0) drain_stderr(c);
    size_t n = c->err_len;
    while (n && (c->err_tail[n - 1] == '\n' || c->err_tail[n - 1] == '\r')) n--;
    c->err_tail[n] = '\0';
    const char *nl = strrchr(c->err_tail, '\n');
    return nl ? nl + 1 : c->err_tail;
}

/* Waits up to ms for the server to end, without reaping it (its process group id stays
   its own until close reaps it, so a signal to the group reaches no other process).
   Returns whether it ended; *status gets how. */
static bool wait_end(mcpc_conn *c, int ms, siginfo_t *info)
{
    for (int waited = 0;; waited += 10) {
        memset(info, 0, sizeof *info);
        if (waitid(P_PID, (id_t)c->pid, info, WEXITED | WNOHANG | WNOWAIT) == 0 && info->si_pid)
            return true;
        if (waited >= ms) return false;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static int exited(mcpc_conn *c, apidex_error *err)
{
    siginfo_t info;
    char how[64] = "closed its output";
    if (wait_end(c, 500, &info)) {
        if (info.si_code == CLD_EXITED)
            snprintf(how, sizeof how, "exited with status %d", info.si_status);
        else
            snprintf(how, sizeof how, "was killed by signal %d", info.si_status);
    }
    const char *tail = err_last_line(c);
    return core_error_set(err, APIDEX_ENET, "server '%s' %s before answering%s%s", c->label, how,
                          *tail ? ": " : "", tail);
}

int mcpc_stdio_send(mcpc_conn *c, const char *msg, size_t len, apidex_error *err)
{
    /* a server that died makes the write fail with EPIPE: SIGPIPE is held back and taken */
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    long long deadline = mcpc_now_ms() + c->timeout_ms;
    int rc = 0;
    size_t off = 0, total = len + 1;
    while (off < total && !rc) {
        const char *p = off < len ? msg + off : "\n";
        size_t n = off < len ? len - off : 1;
        ssize_t w = write(c->to_child, p, n);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EAGAIN) {
            long long left = deadline - mcpc_now_ms();
            struct pollfd pfd = {.fd = c->to_child, .events = POLLOUT};
            if (left <= 0 || poll(&pfd, 1, (int)left) == 0)
                rc =
                    core_error_set(err, APIDEX_ENET, "server '%s' does not read its input (%ld ms)",
                                   c->label, c->timeout_ms);
            continue;
        }
        if (w < 0 && errno == EPIPE) {
            struct timespec zero = {0, 0};
            sigtimedwait(&pipe_set, NULL, &zero);
            rc = exited(c, err);
        } else {
            rc = core_error_set(err, APIDEX_EIO, "server '%s': write failed: %s", c->label,
                                strerror(errno));
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int mcpc_stdio_read(mcpc_conn *c, long long deadline, const char **msg, size_t *msg_len,
                    apidex_error *err)
{
    if (c->consumed) {
        /* drop the message handed out last time */
        memmove(c->line.data, c->line.data + c->consumed, c->line.len - c->consumed);
        c->line.len -= c->consumed;
        c->line.data[c->line.len] = '\0';
        c->scanned = 0;
        c->consumed = 0;
    }
    for (;;) {
        char *nl = c->line.len > c->scanned
                       ? memchr(c->line.data + c->scanned, '\n', c->line.len - c->scanned)
                       : NULL;
        if (nl) {
            *nl = '\0';
            *msg = c->line.data;
            *msg_len = (size_t)(nl - c->line.data);
            c->consumed = *msg_len + 1;
            return 0;
        }
        c->scanned = c->line.len;
        if (c->line.len > MCPC_MAX_MESSAGE)
            return core_error_set(err, APIDEX_ELIMIT, "server '%s' sent a message over %d bytes",
                                  c->label, MCPC_MAX_MESSAGE);
        long long left = deadline - mcpc_now_ms();
        c->timed_out = left <= 0;
        if (left <= 0)
            return core_error_set(err, APIDEX_ENET, "server '%s' did not answer within %ld ms",
                                  c->label, c->timeout_ms);
        struct pollfd pfd[2] = {{.fd = c->from_child, .events = POLLIN},
                                {.fd = c->child_err, .events = POLLIN}};
        int pr = poll(pfd, c->child_err >= 0 ? 2 : 1, (int)(left > 1000 ? 1000 : left));
        if (pr < 0 && errno != EINTR)
            return core_error_set(err, APIDEX_EIO, "server '%s': poll failed: %s", c->label,
                                  strerror(errno));
        if (pr <= 0) continue;
        if (c->child_err >= 0 && pfd[1].revents) drain_stderr(c);
        if (!pfd[0].revents) continue;
        char buf[65536];
        ssize_t n = read(c->from_child, buf, sizeof buf);
        if (n == 0) return exited(c, err);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return core_error_set(err, APIDEX_EIO, "server '%s': read failed: %s", c->label,
                                  strerror(errno));
        }
        c->total += (size_t)n;
        if (c->total > MCPC_MAX_TOTAL)
            return core_error_set(err, APIDEX_ELIMIT, "server '%s' sent more than %d bytes",
                                  c->label, MCPC_MAX_TOTAL);
        if (core_buf_append(&c->line, buf, (size_t)n))
            return c->line.len + (size_t)n >= c->line.max
                       ? core_error_set(err, APIDEX_ELIMIT,
                                        "server '%s' sent a message over %d bytes", c->label,
                                        MCPC_MAX_MESSAGE)
                       : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
}

void mcpc_stdio_close(mcpc_conn *c)
{
    close_fd(&c->to_child); /* a well-behaved server exits when its input ends */
    close_fd(&c->from_child);
    if (c->pid > 0) {
        siginfo_t info;
        if (!wait_end(c, 500, &info)) {
            kill(-c->pid, SIGTERM);
            wait_end(c, 500, &info);
        }
        /* the group: what is left of it (a launcher's children, or the server itself) */
        kill(-c->pid, SIGKILL);
        int status;
        while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {
        }
        c->pid = 0;
    }
    close_fd(&c->child_err);
    core_buf_free(&c->line);
}
