/*
 * registry: the registry file (apidex.yaml) and watching it. A registry file
 * lists the sources of an index (files, folders, globs, URLs), each with an
 * optional API id, a tag filter and per-API settings for the callers of the
 * API (server URL, the environment variables holding credentials), plus the
 * index's own settings (db, strategy, filters). docs/REGISTRY.md is the
 * reference of the format.
 *
 * Design notes
 * - The file is parsed with core's YAML reader (libfyaml), so every node has
 *   its line:col: an error names file:line:col, says what was expected, and an
 *   unknown key names the closest known one. Parsing checks everything that can
 *   be checked without the file system; registry_file_add_specs then resolves
 *   the sources (a missing path or a glob that matches nothing is an error at
 *   the entry's line:col, so a typo never empties an index).
 * - Each source's settings reach the spec loader as spec_input_options (id and
 *   tag filter: both part of what an API is) and the store as the API's
 *   overrides JSON (store_api.overrides), which the executor reads back.
 * - A document reached by several sources takes the settings of the most
 *   specific one: a file or URL, then a glob, then a folder; the first listed
 *   among equals.
 * - Watching (watch.c) follows the folders of the sources with inotify and
 *   calls a build after a quiet period; a change that arrives during a build
 *   is seen by the kernel queue and causes one more build after it.
 */
#ifndef APIDEX_REGISTRY_H
#define APIDEX_REGISTRY_H

#include "core/core.h"
#include "oas/oas.h"
#include "store/store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/** The default registry file when neither --registry nor $APIDEX_REGISTRY is given. */
#define REGISTRY_DEFAULT_FILE "apidex.yaml"

typedef enum {
    REGISTRY_SOURCE_PATH = 0, /* a file or a folder (known once the path is looked at) */
    REGISTRY_SOURCE_GLOB,     /* a path with *, ? or [ in it (glob(3), no **) */
    REGISTRY_SOURCE_URL       /* http:// or https:// */
} registry_source_kind;

/** One entry of `sources:`. Strings live in the registry file's arena. */
typedef struct registry_source {
    registry_source_kind kind;
    const char *written;  /* the path or URL as written in the file */
    const char *resolved; /* relative paths joined to the registry file's folder */
    const char *id;       /* the API id of a single document, or NULL */
    const char **include_tags, **exclude_tags; /* NULL-terminated, or NULL */
    const char *overrides;                     /* {"server": URL, "auth": {...}} as JSON, or NULL */
    unsigned line, col;                        /* of the entry, for errors */
} registry_source;

/** A parsed registry file. */
typedef struct registry_file {
    const char *path;     /* the file as given */
    const char *db;       /* `db`, resolved against the file's folder; NULL when absent */
    const char *strategy; /* `strategy`, or NULL */
    const char *filters;  /* `filters`, or NULL */
    registry_source *sources;
    size_t n_sources;
    core_arena *arena; /* owns everything above */
} registry_file;

/** The registry file to use: flag if given, else $APIDEX_REGISTRY, else ./apidex.yaml. */
const char *registry_file_path(const char *flag);

/**
 * Reads and checks the registry file at path. Errors (APIDEX_EINVAL, APIDEX_ENOTFOUND,
 * APIDEX_EIO) carry file and line:col. *out: registry_file_free.
 */
int registry_file_load(const char *path, registry_file **out, apidex_error *err);
/** The same from text (copied) that came from `path` (used for locations and relative paths). */
int registry_file_parse(const char *text, size_t len, const char *path, registry_file **out,
                        apidex_error *err);
/** A registry of plain paths, URLs or globs (`index --watch PATH...`), relative to the
    current folder. */
int registry_file_from_paths(const char *const *paths, size_t n, registry_file **out,
                             apidex_error *err);
/** NULL is a no-op. */
void registry_file_free(registry_file *rf);

/** Which source each loaded API came from (registry_file_add_specs). */
typedef struct registry_loaded registry_loaded;

/**
 * Adds every source of rf to reg, most specific first (see above). A path that is not
 * there, a glob that matches nothing, or an id on a folder is an error at the entry's
 * line:col (APIDEX_ENOTFOUND / APIDEX_EINVAL) and nothing is indexed. *out (may be NULL)
 * maps the APIs back to their sources for registry_overrides; registry_loaded_free.
 */
int registry_file_add_specs(const registry_file *rf, spec_registry *reg, registry_loaded **out,
                            apidex_error *err);
void registry_loaded_free(registry_loaded *l);
/** build_options.overrides: the overrides JSON of api's source (ctx: registry_loaded). */
const char *registry_overrides(void *ctx, const spec_api *api);

/* ---------------------------------------------------------------- watch */

/**
 * Builds the index once from rf; returns a CLI-style exit code (0 ok, 1 some documents
 * failed, 2 usage, 3 failure), having reported what happened itself.
 */
typedef int (*registry_build_fn)(void *ctx, const registry_file *rf);

/** The MCP servers of a watched registry (stdio and Streamable HTTP), kept open (mcp_keep.c). */
typedef struct registry_mcp registry_mcp;

struct pollfd;

/**
 * Keeps open every MCP server rf's sources name (mcpc_listen_open: while open, the
 * build reads its document from the session) and closes those no longer named; *set is
 * made on first use. A server that cannot be kept open is a line on log (the build then
 * starts it as usual and reports its error). APIDEX_ENOMEM only.
 */
int registry_mcp_sync(registry_mcp **set, const registry_file *rf, FILE *log);
/** How many servers are open; the poll entries they need are twice that. */
size_t registry_mcp_count(const registry_mcp *set);
/** Fills fds with two entries per open server (stdio: its stdout and stderr; HTTP: its event
    stream's wake-up pipe and -1); returns how many. */
size_t registry_mcp_poll_fds(const registry_mcp *set, struct pollfd *fds);
/**
 * After poll on the entries registry_mcp_poll_fds filled: reads the servers that sent
 * something; returns true when a server's tools changed (tools/list_changed, read again),
 * with what set to say which. A server that ended is closed and logged.
 */
bool registry_mcp_read(registry_mcp *set, const struct pollfd *fds, char *what, size_t what_cap,
                       FILE *log);
void registry_mcp_free(registry_mcp *set);

typedef struct registry_watch_options {
    const char *registry_path; /* a registry file to follow and re-read; NULL: rf is fixed */
    const registry_file *rf;   /* the sources when registry_path is NULL (not owned) */
    registry_build_fn build;
    void *build_ctx;
    unsigned debounce_ms; /* quiet time before a build (default 300) */
    int stop_fd;          /* readable = stop after the current build; -1 = none */
    bool build_first;     /* build once at the start (else wait for a change) */
    FILE *log;            /* one line per change seen and build (NULL = stderr) */
    /* the MCP servers kept open, synced before each build and followed for
       notifications/tools/list_changed (registry_mcp_sync); NULL: none are kept open */
    registry_mcp **mcp;
} registry_watch_options;

/**
 * Follows the sources' folders (recursively for folder sources, new subfolders too), the
 * folders of file and glob sources, and the registry file; calls build after debounce_ms
 * without changes. Changes during a build are never lost: they start another build after
 * it. Returns 0 when stop_fd became readable, else an APIDEX_* error (no inotify, ...).
 */
int registry_watch_run(const registry_watch_options *opt, apidex_error *err);

#endif /* APIDEX_REGISTRY_H */
