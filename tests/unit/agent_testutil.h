/* Helpers of the agent tests: the scripted OpenAI mock (tests/agent/mock_openai.py) and a
 * small index built from tests/agent/bookshop.json. */
#ifndef APIDEX_AGENT_TESTUTIL_H
#define APIDEX_AGENT_TESTUTIL_H

#include "testutil.h"

#include "build/build.h"
#include "agent/agent.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AGENT_PY "/usr/bin/python3"

typedef struct mock_llm {
    pid_t pid;
    int port;
    char url[64];
    char *dir;      /* port file, script and log */
    char *log_path; /* one JSON line per request */
} mock_llm;

/* Starts the mock replaying script (JSON text); fails the test if it will not start. */
static inline void mock_llm_start(mock_llm *m, const char *script)
{
    memset(m, 0, sizeof *m);
    if (access(AGENT_PY, X_OK) != 0) {
        print_message(AGENT_PY " not found: skipped\n");
        skip();
    }
    m->dir = tu_tempdir();
    char *port_file = tu_path(m->dir, "port");
    char *script_path = tu_write(m->dir, "script.json", script);
    m->log_path = tu_path(m->dir, "log.jsonl");
    char *py = tu_path(tu_source_dir(), "tests/agent/mock_openai.py");
    char *const argv[] = {AGENT_PY,      py,        "--script", script_path,
                          "--port-file", port_file, "--log",    m->log_path,
                          "--lifetime",  "120",     NULL};
    m->pid = tu_server_start(argv, m->dir, port_file, &m->port);
    snprintf(m->url, sizeof m->url, "http://127.0.0.1:%d/v1", m->port);
    free(port_file);
    free(script_path);
    free(py);
}

static inline void mock_llm_stop(mock_llm *m)
{
    tu_server_stop(m->pid);
    if (m->dir) tu_rmtree(m->dir);
    free(m->dir);
    free(m->log_path);
    memset(m, 0, sizeof *m);
}

/* Requests logged so far whose line contains needle (NULL: all). */
static inline int mock_llm_count(const mock_llm *m, const char *needle)
{
    FILE *f = fopen(m->log_path, "r");
    if (!f) return 0;
    static char line[1 << 20];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (!needle || strstr(line, needle)) n++;
    fclose(f);
    return n;
}

/* The whole log (malloc'd), "" when empty. */
static inline char *mock_llm_log(const mock_llm *m)
{
    FILE *f = fopen(m->log_path, "r");
    if (!f) return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

/* A client for the mock: no retries delay to speak of, short timeouts. */
static inline agent_llm *mock_llm_client(const mock_llm *m, double timeout_s, int retries)
{
    agent_llm_config c;
    agent_llm_config_defaults(&c);
    snprintf(c.base_url, sizeof c.base_url, "%s", m->url);
    snprintf(c.model, sizeof c.model, "mock-model");
    c.timeout_s = timeout_s;
    c.max_retries = retries;
    c.backoff_ms = 10;
    c.max_backoff_ms = 2000;
    agent_llm *llm = NULL;
    apidex_error err;
    core_error_clear(&err);
    if (agent_llm_open(&c, &llm, &err)) fail_msg("agent_llm_open: %s", err.message);
    return llm;
}

/* A fresh index of tests/agent/bookshop.json in a temp dir, opened with an engine. */
typedef struct test_index {
    char *dir, *db;
    store_index *idx;
    search_engine *eng;
} test_index;

static inline void test_index_open(test_index *t, const char *strategy)
{
    memset(t, 0, sizeof *t);
    t->dir = tu_tempdir();
    t->db = tu_path(t->dir, "index.db");
    char *spec = tu_path(tu_source_dir(), "tests/agent/bookshop.json");
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_add(reg, spec, &err), 0);
    build_options bo = {.strategy = strategy};
    if (build_index(t->db, reg, &bo, NULL, &err)) fail_msg("build_index: %s", err.message);
    spec_registry_free(reg);
    free(spec);
    if (store_open(t->db, true, &t->idx, &err)) fail_msg("store_open: %s", err.message);
    if (search_engine_open(t->idx, &t->eng, &err)) fail_msg("engine: %s", err.message);
}

static inline void test_index_close(test_index *t)
{
    search_engine_close(t->eng);
    store_close(t->idx);
    tu_rmtree(t->dir);
    free(t->dir);
    free(t->db);
    memset(t, 0, sizeof *t);
}

#endif
