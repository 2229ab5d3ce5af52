/*
 * The sources of a registry file into a spec registry: paths, folders, globs and
 * URLs, most specific first, each with its id and tag filter; and which source
 * each loaded API came from, for its overrides.
 */
#include "registry/registry.h"

#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct registry_loaded {
    const registry_file *rf;
    const spec_api **apis; /* sorted by address */
    size_t *source;        /* index into rf->sources, parallel to apis */
    size_t n, cap;
};

void registry_loaded_free(registry_loaded *l)
{
    if (!l) return;
    free(l->apis);
    free(l->source);
    free(l);
}

static long loaded_find(const registry_loaded *l, const spec_api *api)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->apis[mid] == api) return (long)mid;
        if ((uintptr_t)l->apis[mid] < (uintptr_t)api)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Records every API of reg not seen before as coming from source k. */
static int loaded_note(registry_loaded *l, const spec_registry *reg, size_t k)
{
    size_t n = spec_registry_count(reg);
    if (n > l->cap) {
        size_t cap = n * 2;
        const spec_api **a = realloc(l->apis, cap * sizeof *a);
        if (!a) return APIDEX_ENOMEM;
        l->apis = a;
        size_t *s = realloc(l->source, cap * sizeof *s);
        if (!s) return APIDEX_ENOMEM;
        l->source = s;
        l->cap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        const spec_api *api = spec_registry_api(reg, i);
        if (loaded_find(l, api) >= 0) continue;
        /* insertion keeps the array sorted; new APIs per source are few or come in bulk
           from one folder, where the memmove is cheap next to parsing the documents */
        size_t pos = l->n;
        while (pos > 0 && (uintptr_t)l->apis[pos - 1] > (uintptr_t)api) pos--;
        memmove(l->apis + pos + 1, l->apis + pos, (l->n - pos) * sizeof *l->apis);
        memmove(l->source + pos + 1, l->source + pos, (l->n - pos) * sizeof *l->source);
        l->apis[pos] = api;
        l->source[pos] = k;
        l->n++;
    }
    return 0;
}

const char *registry_overrides(void *ctx, const spec_api *api)
{
    const registry_loaded *l = ctx;
    long i = l ? loaded_find(l, api) : -1;
    return i >= 0 ? l->rf->sources[l->source[i]].overrides : NULL;
}

/* ---------------------------------------------------------------- adding */

static int at_source(const registry_file *rf, const registry_source *s, apidex_error *err)
{
    if (err) core_error_at(err, rf->path, s->line, s->col, NULL);
    return err ? err->code : APIDEX_EINVAL;
}

static int add_one(const registry_file *rf, const registry_source *s, const char *input,
                   spec_registry *reg, apidex_error *err)
{
    spec_input_options io = {
        .name = s->id, .include_tags = s->include_tags, .exclude_tags = s->exclude_tags};
    apidex_error e;
    core_error_clear(&e);
    int rc = spec_registry_add_input(reg, input, &io, &e);
    if (!rc) return 0;
    if (err) *err = e;
    if (rc == APIDEX_ENOMEM) return rc;
    /* the entry's position says more than the path alone */
    core_error_set(err, rc, "source '%s': %s", s->written, e.message);
    return at_source(rf, s, err);
}

static int add_source(const registry_file *rf, const registry_source *s, spec_registry *reg,
                      apidex_error *err)
{
    if (s->kind == REGISTRY_SOURCE_URL) return add_one(rf, s, s->resolved, reg, err);
    if (s->kind == REGISTRY_SOURCE_PATH) {
        struct stat st;
        if (stat(s->resolved, &st) != 0) {
            core_error_set(err, errno == ENOENT ? APIDEX_ENOTFOUND : APIDEX_EIO,
                           "source '%s': cannot open %s: %s", s->written, s->resolved,
                           strerror(errno));
            return at_source(rf, s, err);
        }
        if (S_ISDIR(st.st_mode) && s->id) {
            core_error_set(err, APIDEX_EINVAL,
                           "source '%s': an id names one document, and this is a folder",
                           s->written);
            return at_source(rf, s, err);
        }
        return add_one(rf, s, s->resolved, reg, err);
    }
    glob_t g;
    memset(&g, 0, sizeof g);
    int grc = glob(s->resolved, GLOB_ERR, NULL, &g);
    if (grc == GLOB_NOMATCH || (grc == 0 && g.gl_pathc == 0)) {
        globfree(&g);
        core_error_set(err, APIDEX_ENOTFOUND, "source '%s': the glob matches no file", s->written);
        return at_source(rf, s, err);
    }
    if (grc != 0) {
        globfree(&g);
        core_error_set(err, grc == GLOB_NOSPACE ? APIDEX_ENOMEM : APIDEX_EIO,
                       "source '%s': cannot read the folders of the glob", s->written);
        return at_source(rf, s, err);
    }
    int rc = 0;
    for (size_t i = 0; i < g.gl_pathc && !rc; i++) rc = add_one(rf, s, g.gl_pathv[i], reg, err);
    globfree(&g);
    return rc;
}

/* Files and URLs first, then globs, then folders: a document reached twice keeps the
   settings of its most specific source. Folders are known only by looking. */
static int source_rank(const registry_source *s)
{
    if (s->kind == REGISTRY_SOURCE_URL) return 0;
    if (s->kind == REGISTRY_SOURCE_GLOB) return 1;
    struct stat st;
    return stat(s->resolved, &st) == 0 && S_ISDIR(st.st_mode) ? 2 : 0;
}

int registry_file_add_specs(const registry_file *rf, spec_registry *reg, registry_loaded **out,
                            apidex_error *err)
{
    if (out) *out = NULL;
    registry_loaded *l = calloc(1, sizeof *l);
    if (!l) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    l->rf = rf;
    int rc = 0;
    for (int rank = 0; rank < 3 && !rc; rank++)
        for (size_t k = 0; k < rf->n_sources && !rc; k++) {
            const registry_source *s = &rf->sources[k];
            if (source_rank(s) != rank) continue;
            rc = add_source(rf, s, reg, err);
            if (!rc && loaded_note(l, reg, k))
                rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
        }
    if (rc || !out) {
        registry_loaded_free(l);
        return rc;
    }
    *out = l;
    return 0;
}
