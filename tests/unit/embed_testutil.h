/* Helpers of the embed tests: start/stop tests/embed/mock_server.py, check for numpy. */
#ifndef APIDEX_EMBED_TESTUTIL_H
#define APIDEX_EMBED_TESTUTIL_H

#include "testutil.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#define EMBED_PY "/usr/bin/python3"

typedef struct mock_server {
    pid_t pid;
    int port;
    char url[64];
    char *dir;      /* temp folder for the port file and the log */
    char *log_path; /* one JSON line per request */
} mock_server;

static inline bool embed_have_python(void)
{
    return access(EMBED_PY, X_OK) == 0;
}

/* Starts the mock with extra arguments (NULL-terminated list); fails the test if it won't. */
static inline void mock_start(mock_server *m, const char *const *args)
{
    memset(m, 0, sizeof *m);
    m->dir = tu_tempdir();
    char *port_file = tu_path(m->dir, "port");
    m->log_path = tu_path(m->dir, "log.jsonl");
    char *script = tu_path(tu_source_dir(), "tests/embed/mock_server.py");
    const char *argv[40] = {EMBED_PY, script,      "--port-file", port_file,
                            "--log",  m->log_path, "--lifetime",  "60"};
    size_t n = 8;
    for (size_t i = 0; args && args[i] && n < 38; i++) argv[n++] = args[i];
    argv[n] = NULL;
    m->pid = tu_server_start((char *const *)argv, m->dir, port_file, &m->port);
    snprintf(m->url, sizeof m->url, "http://127.0.0.1:%d", m->port);
    free(port_file);
    free(script);
}

static inline void mock_stop(mock_server *m)
{
    tu_server_stop(m->pid);
    tu_rmtree(m->dir);
    free(m->dir);
    free(m->log_path);
    m->pid = 0;
}

/* Number of requests logged so far whose line contains needle (NULL: all). */
static inline int mock_count(const mock_server *m, const char *needle)
{
    FILE *f = fopen(m->log_path, "r");
    if (!f) return 0;
    char line[1 << 16];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (!needle || strstr(line, needle)) n++;
    fclose(f);
    return n;
}

#endif
