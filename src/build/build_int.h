/* build internals shared by build.c, ids.c and prefetch.c: the load-ahead of a deferred
   registry and the ids of one build. */
#ifndef APIDEX_BUILD_INT_H
#define APIDEX_BUILD_INT_H

#include "build/build.h"

/* ---------------------------------------------------------------- load-ahead (prefetch.c) */

/** Load-ahead of a deferred registry's APIs, in registry order (see prefetch.c). */
typedef struct build_prefetch build_prefetch;
/** Starts jobs - 1 worker threads (jobs >= 1; the caller's thread is the last job). A load
    starts only while the memory budgets of the APIs loaded and not yet written fit in
    mem_cap bytes (0: half the RAM, or $APIDEX_MAX_LOAD_MEMORY_TOTAL MiB), or none is held. */
int build_prefetch_start(spec_registry *reg, unsigned jobs, size_t mem_cap, build_prefetch **out);
/** Waits until API i is loaded (loading it on this thread when no worker took it). Call in
    ascending i. Returns spec_registry_load's status. */
int build_prefetch_wait(build_prefetch *p, size_t i);
/** API i is written: unloads it and lets the workers load further. */
void build_prefetch_done(build_prefetch *p, size_t i);
/** Stops and joins the workers, frees p. NULL is a no-op. held_peak, reserved_peak (each may
    be NULL) get the most APIs that held a budget at once, and the most bytes they held. */
void build_prefetch_stop(build_prefetch *p, size_t *held_peak, size_t *reserved_peak);

/* ---------------------------------------------------------------- API ids (ids.c) */

/** The ids of one build, settled API by API in registry order (ids.c). */
typedef struct build_ids build_ids;
/**
 * Before any API is written: the given ids (APIDEX_EINVAL when one is not valid or two
 * documents have the same), the ids the old index keeps, and the ids proposals may not
 * take. doc_keys[i]: the documents-table key of API i.
 */
int build_ids_begin(store_writer *w, spec_registry *reg, const char *const *doc_keys,
                    const build_options *opt, build_ids **out, apidex_error *err);
/** API i is loaded: gives it its id (renaming it in reg) before any row of it is written.
    Call in ascending i, on one thread. */
int build_ids_settle(build_ids *ids, spec_registry *reg, size_t i, apidex_error *err);
/** The id API i was settled with, or NULL. */
const char *build_ids_final(const build_ids *ids, size_t i);
/** API i was settled but is not in the new index (it failed, with no version to keep). */
void build_ids_unwritten(build_ids *ids, size_t i);
/** After the last API: writes the aliases of the new index. */
int build_ids_finish(build_ids *ids, apidex_error *err);
void build_ids_free(build_ids *ids);

#endif /* APIDEX_BUILD_INT_H */
