/*
 * build: the indexer. A loaded registry (src/oas) becomes an index (src/store): per API,
 * discovery of what changed (content hash, id), rendering (src/chunk), the data-flow
 * analysis (producer edges) and operation facts (src/flow), chunking, terms, embedding
 * (src/embed), the rows written through store_writer, and at the end the search image
 * (the builder the program registers, src/search/image.c). The store below it is the
 * codec (the SQLite file, or generations in PostgreSQL): it knows rows and files, not
 * OpenAPI.
 *
 * Files: build.c the build (options, one API's rows, the registry loop, registry changes:
 * add and remove), ids.c each API's id as it is written (stable across rebuilds and
 * renames), prefetch.c the load-ahead of a deferred registry on worker threads.
 * docs/INDEX.md describes the build protocol; docs/ARCHITECTURE.md the stage's place.
 */
#ifndef APIDEX_BUILD_H
#define APIDEX_BUILD_H

#include "chunk/chunk.h"
#include "core/core.h"
#include "embed/embed.h"
#include "oas/oas.h"
#include "store/store.h"

#include <stdbool.h>
#include <stddef.h>

/** What build_index does; zero = defaults. */
typedef struct build_options {
    const char *strategy; /* NAME[:SIZE[:OVERLAP]] (chunk strategy names; NULL = "hybrid") */
    const char *filters;  /* preprocessing filter list (prep_parse_filters; NULL = none) */
    bool full;            /* rebuild everything, reuse nothing */
    /** Called before each document (doc = its file) and once at the end (doc = NULL). */
    void (*progress)(void *ctx, size_t done, size_t total, const char *doc);
    void *progress_ctx;
    unsigned delay_ms; /* test hook: sleep after each document (kill-during-build tests) */
    /* LLM-written texts for the summary and query strategies (the agent stage's refiner):
       chunk_setup may set copt->describe once the strategy is parsed; when it does,
       describe_signature ("llm:MODEL:p1") joins the index signature and describe_prepare
       runs with reg before anything is chunked (e.g. a concurrent LLM prefetch). */
    void (*chunk_setup)(void *ctx, struct chunk_options *copt);
    void *chunk_setup_ctx;
    const char *describe_signature;
    int (*describe_prepare)(void *ctx, const spec_registry *reg, apidex_error *err);
    /* Dense vectors: when set, each new or changed chunk's text (its content when it has
       none) is embedded (passages, L2-normalised) and stored under the provider's model
       id. The provider's fingerprint joins the index signature ("+embed=FP"), so another
       model or prefix rebuilds everything; reused documents keep their vectors, and a
       changed document re-embeds only the chunks whose text changed. Not thread-safe:
       the build makes one call at a time. */
    struct embed_provider *embedder;
    /* Registry changes (add, remove). keep_unlisted: the documents of the current index
       that reg does not hold are copied as they are (reg adds or updates documents), except
       the APIs named in drop_apis, which are removed. Needs an index whose rows can be
       reused; with inherit, the strategy and filters are the current index's (strategy and
       filters above are then ignored). */
    bool keep_unlisted, inherit;
    const char *const *drop_apis;
    size_t n_drop_apis;
    /* The guard of `apidex index` (without --prune): refuse (APIDEX_EREFUSED, nothing
       written) a build from zero documents (or from documents that all failed, leaving an
       empty index), or one that would remove more than half of the indexed APIs; the
       message names how many and the first few ids. */
    bool guard;
    /* Called for each API written (new, changed or unchanged) that has no operation: it
       is indexed, but nothing can find it (a file with an empty paths object). */
    void (*on_empty)(void *ctx, const char *api, const char *file);
    void *on_empty_ctx;
    store_lock_options lock; /* waiting for another writer (every build takes the lock) */
    void (*on_change)(void *ctx, store_change kind, const char *api); /* store_writer_options */
    void *on_change_ctx;
    /* Per-API settings of the registry file (store_api.overrides): when set, every API of
       the new index gets what it returns (a JSON object, or NULL for none), reused ones
       included; when NULL, reused and kept APIs keep the overrides they had. */
    const char *(*overrides)(void *ctx, const spec_api *api);
    void *overrides_ctx;
    /* Threads for a deferred registry (spec_options.deferred): jobs - 1 of them parse the
       next documents while this one renders, chunks and writes in registry order, so the
       index is the same for every value. 0 = $APIDEX_JOBS, else the online CPUs (at most
       8). Ignored (one document at a time on this thread) for an eager registry. */
    unsigned jobs;
    /* What the jobs' loads may hold together: a load starts only while the memory budgets
       (spec_options.load_memory_*) of the APIs loaded and not yet written fit, or when
       none is. 0 = $APIDEX_MAX_LOAD_MEMORY_TOTAL (MiB), else half the machine's RAM. */
    size_t load_memory_total;
} build_options;

/**
 * Builds (or incrementally rebuilds) the index at db_path from every API of
 * reg (a deferred registry is loaded a few documents at a time and each API is
 * unloaded once written; reg's ids, diagnostics and failed flags stay): unchanged documents are
 * copied from the current index, changed and new ones are chunked, documents no longer in reg are
 * dropped. A failed document is counted in rep->failed (its errors are in its api->diags) and its
 * previous version, if any, is kept. Each API's id is settled right before its rows
 * are written, in registry order (ids.c): a given name, else the id the
 * old index had for the path (or, for a rename, the content), else the one the
 * document proposes, made unique; reg's APIs are renamed to it and old ids stay
 * as aliases. Atomic: on any error, or if the process
 * dies, the current index stays as it was. opt and rep may be NULL.
 * db_path may be a postgres:// URL: the build then starts from the current generation and
 * publishes a new one (store_target_begin decides, the build never asks). Takes the writer
 * lock (opt->lock: how long to wait) before it reads the current index: APIDEX_EBUSY when
 * another build held it too long. APIDEX_EREFUSED:
 * the guard, or a file at db_path that is not an apidex index (never replaced).
 */
int build_index(const char *db_path, spec_registry *reg, const build_options *opt,
                store_build_report *rep, apidex_error *err);

/**
 * Parses a strategy NAME[:SIZE[:OVERLAP]] into chunk options (zeroed first);
 * canon (may be NULL) gets the canonical spelling. APIDEX_EINVAL when bad.
 */
int build_strategy_parse(const char *spec, struct chunk_options *out, core_buf *canon,
                         apidex_error *err);

/**
 * Registers the search image's builder (search_image_install does): every build, add and
 * remove of this process then hands it to its writer (store_writer_options.image), which
 * stores the bytes in the index before the rename. NULL: builds write no image (and drop a
 * copied one). Call once at start, before any build.
 */
void build_image_set_builder(store_image_builder fn);
/** The builder registered last (NULL: none), for a program that writes through store_writer
    itself and wants the image a build would write (store_writer_options.image). */
store_image_builder build_image_builder(void);

#endif /* APIDEX_BUILD_H */
