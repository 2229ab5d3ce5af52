/* serve --watch: the registry's indexer loop on a thread beside the server; the server's
   hot reload (serve/db.c) picks up each new index file. */
#include "cli/cli.h"

#include "build/build.h"
#include "registry/registry.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cli_serve_watch {
    registry_file *rf;
    registry_mcp *mcp; /* the stdio MCP servers kept open for tools/list_changed */
    const char *registry_path;
    const char *db;
    build_options opt;
    int stop[2];
    pthread_t thread;
    bool started;
};

static int build_once(void *ctx, const registry_file *rf)
{
    cli_serve_watch *sw = ctx;
    build_options opt = sw->opt;
    opt.strategy = rf->strategy;
    opt.filters = rf->filters;
    cli_index_flags flags = {.quiet = false};
    store_build_report rep = {0};
    apidex_error err;
    core_error_clear(&err);
    int code = cli_build_registry(sw->db, rf, &opt, &flags, &rep, &err);
    if (code != CLI_OK && code != CLI_PROBLEMS) {
        cli_print_error(&err);
        return code;
    }
    char shown[1024];
    fprintf(stderr,
            "apidex serve: indexed into %s: %zu added, %zu updated, %zu removed, %zu unchanged, "
            "%zu failed (%.2f s)\n",
            store_display(sw->db, shown, sizeof shown), rep.added, rep.updated, rep.removed,
            rep.unchanged, rep.failed, rep.seconds);
    return code;
}

static void *watch_thread(void *arg)
{
    cli_serve_watch *sw = arg;
    registry_watch_options wo = {.registry_path = sw->registry_path,
                                 .rf = sw->rf,
                                 .build = build_once,
                                 .build_ctx = sw,
                                 .stop_fd = sw->stop[0],
                                 .mcp = &sw->mcp};
    apidex_error err;
    core_error_clear(&err);
    if (registry_watch_run(&wo, &err)) {
        cli_print_error(&err);
        fprintf(stderr, "apidex serve: no longer watching; serving the last index\n");
    }
    return NULL;
}

void cli_serve_watch_stop(cli_serve_watch *sw)
{
    if (!sw) return;
    if (sw->started) {
        ssize_t w = write(sw->stop[1], "x", 1);
        (void)w;
        pthread_join(sw->thread, NULL);
    }
    if (sw->stop[0] >= 0) close(sw->stop[0]);
    if (sw->stop[1] >= 0) close(sw->stop[1]);
    registry_mcp_free(sw->mcp);
    registry_file_free(sw->rf);
    free(sw);
}

int cli_serve_watch_start(const char *registry_flag, const char *db_flag, const char **db_out,
                          cli_serve_watch **out)
{
    *out = NULL;
    cli_serve_watch *sw = calloc(1, sizeof *sw);
    if (!sw) return CLI_FAILURE;
    sw->stop[0] = sw->stop[1] = -1;
    sw->registry_path = registry_file_path(registry_flag);
    apidex_error err;
    core_error_clear(&err);
    int rc = registry_file_load(sw->registry_path, &sw->rf, &err);
    if (rc) {
        cli_print_error(&err);
        cli_serve_watch_stop(sw);
        return rc == APIDEX_ENOMEM || rc == APIDEX_EIO ? CLI_FAILURE : CLI_USAGE;
    }
    sw->db = cli_db_path_registry(db_flag, sw->rf);
    sw->opt.delay_ms = cli_index_test_delay_ms();
    /* The MCP servers kept open first, so the first build reads them from their sessions;
       the first build before the server opens the index; then the loop. */
    if (registry_mcp_sync(&sw->mcp, sw->rf, stderr)) {
        cli_serve_watch_stop(sw);
        return CLI_FAILURE;
    }
    int code = build_once(sw, sw->rf);
    if (code != CLI_OK && code != CLI_PROBLEMS) {
        cli_serve_watch_stop(sw);
        return code;
    }
    if (core_sys_pipe_cloexec(sw->stop) != 0 ||
        pthread_create(&sw->thread, NULL, watch_thread, sw)) {
        fprintf(stderr, "apidex serve: cannot start watching: %s\n", strerror(errno));
        cli_serve_watch_stop(sw);
        return CLI_FAILURE;
    }
    sw->started = true;
    *db_out = sw->db;
    *out = sw;
    return CLI_OK;
}
