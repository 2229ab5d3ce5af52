/* Helpers of the embed tests: start/stop tests/embed/mock_server.py, check for numpy, and a
   fake provider with known answers. */
#ifndef APIDEX_EMBED_TESTUTIL_H
#define APIDEX_EMBED_TESTUTIL_H

#include "testutil.h"

#include "embed/embed.h"

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

/* ---- a fake provider, for tests that need vectors with known answers ----
   Its vector counts a few topic words: "recipe" texts point one way, "book" texts another,
   so the expected dense answers over the examples are known. */
enum { FAKE_DIM = 4 };

typedef struct fake_provider {
    embed_provider base;
    size_t calls, texts, query_calls;
} fake_provider;

static inline int fake_embed(embed_provider *p, const char *const *texts, size_t n, bool is_query,
                             float *out, apidex_error *err)
{
    static const char *const topics[FAKE_DIM] = {"recipe", "book", "open-weather-station", "user"};
    (void)err;
    fake_provider *f = (fake_provider *)p;
    f->calls++;
    f->texts += n;
    if (is_query) f->query_calls++;
    for (size_t i = 0; i < n; i++)
        for (size_t d = 0; d < FAKE_DIM; d++) {
            float c = 0.01f;
            for (const char *s = texts[i]; (s = strstr(s, topics[d])) != NULL; s++) c += 1;
            out[i * FAKE_DIM + d] = c;
        }
    return 0;
}

static inline int fake_dim(embed_provider *p, size_t *dim, apidex_error *err)
{
    (void)p;
    (void)err;
    *dim = FAKE_DIM;
    return 0;
}

static inline void fake_close(embed_provider *p)
{
    (void)p;
}

static inline void fake_init(fake_provider *f, const char *model)
{
    static const embed_provider_vtable vt = {"fake", fake_embed, fake_dim, fake_close};
    memset(f, 0, sizeof *f);
    f->base.vt = &vt;
    f->base.dim = FAKE_DIM;
    snprintf(f->base.model_id, sizeof f->base.model_id, "%s", model);
    snprintf(f->base.fingerprint, sizeof f->base.fingerprint, "fake:%s", model);
}

#endif
