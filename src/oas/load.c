/*
 * The loader's front door: the registry and the documents of each API (its
 * inputs, files, directories, URLs, MCP configs and texts, are read in load_input.c).
 *
 * Design
 * - An API is one root document plus every file its $refs reach. Each file is
 *   parsed once into a jt_doc (core), and never copied: the model (spec.h)
 *   points into the trees, and a node always travels with its document
 *   (spec_loc), because a relative $ref means something only next to the file
 *   that wrote it.
 * - Loading runs four passes, each linear in the size of the input:
 *     1. parse the root (core: json-c or libfyaml; limits on size, depth and
 *        alias expansion apply per file);
 *     2. resolve (refs.c): walk every loaded document once with an explicit
 *        stack, record every reference site (a {"$ref"} object or a
 *        discriminator mapping value) in a table keyed by the site's node, and
 *        load the files those references name (appending them to the list being
 *        walked). A whole file is walked, not only the parts reached, so no
 *        subtree is walked twice. Then ref → ref chains are followed once,
 *        iteratively, marking loops and chains over the limit; spec_deref is
 *        afterwards a hash look-up and the model is read-only (thread-safe);
 *     3. normalise (normalize.c): Swagger 2.0 and OAS 3.x into one model of
 *        servers, tags and operations (Swagger bodies, form data, produces and
 *        consumes become OAS 3 shapes, synthesised in the API's arena);
 *     4. the schema graph (model.c, graph.c), in two phases: schemas
 *        are found and linked by natural names (component names, or names
 *        derived from the file and pointer of other $ref targets: "pages.meta",
 *        "Thing.$defs.Part"), then get prefixed ids "api:Name". Cycles are
 *        counted (DFS back edges, as the corpus manifest counts them) and marked
 *        (strongly connected components); used-by counts come from one pass over
 *        the condensed graph with bit sets of operations.
 * - Which members are keywords is decided by one rule set (spec_child_ctx): an
 *   object under `properties` is a property, `example`, `enum`, `default`,
 *   `const` and an Example's `value` are data. Two forms real specs use are
 *   honoured: a map given by a string "$ref" (`properties: {$ref: f.yaml}`;
 *   a property schema is never a string) and `example: {$ref: ...}` alone,
 *   which is followed (DigitalOcean keeps examples in files) but never taken
 *   for a schema.
 * - Safety: every walk is iterative; every file, the number of files, the
 *   length of $ref chains and (for remote refs) sizes and time are capped; file
 *   refs may not leave the root file's directory (checked on the realpath, so
 *   symlinks cannot escape; a lexical ".." is only trusted where it climbs out
 *   of an already-real directory); remote refs are off unless asked for, and
 *   then limited to an allow-list of hosts (a remote root's own host included).
 *   A problem in one place is a diagnostic (file, line:col, JSON pointer) and
 *   loading goes on; only a root that cannot be read, parsed or recognised
 *   fails its API. Positions in JSON and node → pointer searches cost a scan
 *   each, so they are capped per API (later diagnostics may lack line:col).
 * - Speed: realpath costs a readlink per path component, so directory
 *   realpaths are cached and each new file is then one lstat (DigitalOcean:
 *   ~300 directory realpaths for ~8,000 file $refs to 2,850 files).
 * - API ids are proposed by each document from what it says about itself
 *   (apiid.c: "amazonaws-s3", "stripe") and made unique with "-2", "-3" in the
 *   registry's sorted order, so they depend only on the set of files, not on the
 *   order they were added; a given id (spec_input_options.name, --name) is
 *   taken as it is, first. A deferred document proposes once it is parsed
 *   (spec_registry_load). The index keeps ids stable across rebuilds and
 *   renames (build: ids.c), renaming through spec_registry_set_id.
 *   Operation ids: "api:operationId"; without one, or for the second use of a
 *   duplicate one (a warning), "api:METHOD /path".
 */
#include "oas/oas_int.h"

#include "mcpc/mcpc.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    SPEC_DEFAULT_MAX_BYTES = 64 << 20,
    SPEC_DEFAULT_MAX_DEPTH = 512,
    SPEC_MAX_DEPTH_CAP = 20000, /* core converts JSON recursively: keep the stack safe */
    SPEC_DEFAULT_MAX_NODES = 20000000,
    SPEC_DEFAULT_MAX_DOCS = 10000,
    SPEC_DEFAULT_MAX_CHAIN = 64,
    SPEC_DEFAULT_TIMEOUT_MS = 10000,
    SPEC_DEFAULT_REMOTE_MAX = 16 << 20,
    SPEC_DEFAULT_LOAD_FACTOR = 32, /* measured: docs/INDEX.md, "Load limits" */
    SPEC_DEFAULT_LOAD_FLOOR = 64 << 20,
    SPEC_MAX_DIAGS = 1000
};

/* ---------------------------------------------------------------- memory budget */

unsigned spec_load_memory_factor_default(void)
{
    const char *env = getenv("APIDEX_MAX_LOAD_MEMORY");
    char *end = NULL;
    unsigned long v = env && *env ? strtoul(env, &end, 10) : 0;
    return v >= 1 && v <= 100000 && end && !*end ? (unsigned)v : SPEC_DEFAULT_LOAD_FACTOR;
}

size_t spec_load_memory_budget(const spec_options *o, size_t bytes)
{
    unsigned factor =
        o && o->load_memory_factor ? o->load_memory_factor : spec_load_memory_factor_default();
    size_t floor = o && o->load_memory_floor ? o->load_memory_floor : SPEC_DEFAULT_LOAD_FLOOR;
    if (bytes > (SIZE_MAX - floor) / factor) return SIZE_MAX;
    return floor + bytes * factor;
}

/* Sets the budget's limit for files of `bytes` in all, and how it was set (for errors). */
static void budget_set(core_budget *b, const spec_options *o, size_t bytes)
{
    b->limit = spec_load_memory_budget(o, bytes);
    snprintf(b->note, sizeof b->note,
             "%zu MiB + %u x the %zu bytes of its files; --max-load-memory",
             o->load_memory_floor >> 20, o->load_memory_factor, bytes);
}

/* The limits for one of ai's files: the registry's, charged to ai's budget. */
static jt_limits api_limits(const spec_api_int *ai)
{
    jt_limits lim = ai->set->opt.limits;
    lim.budget = ai->budget;
    return lim;
}

/* A file of len bytes joins ai: its budget grows by the factor times len. */
static void api_budget_grow(spec_api_int *ai, size_t len)
{
    ai->loaded_bytes += len;
    budget_set(ai->budget, &ai->set->opt, ai->loaded_bytes);
}

/* Parses a root document of len bytes (text owned from now on) charged to a new budget
   for its API, which *budget_out returns (NULL when out of memory) for api_new. */
int spec_parse_root(const spec_registry *reg, char *text, size_t len, const char *file,
                    jt_doc **tree, core_budget **budget_out, apidex_error *perr)
{
    core_budget *b = calloc(1, sizeof *b);
    *budget_out = b;
    if (!b) {
        free(text);
        return core_error_set(perr, APIDEX_ENOMEM, "out of memory");
    }
    budget_set(b, &reg->set.opt, len);
    jt_limits lim = reg->set.opt.limits;
    lim.budget = b;
    return jt_doc_parse(text, len, file, &lim, tree, perr);
}

/* ---------------------------------------------------------------- registry */

int spec_registry_new(const spec_options *opt, spec_registry **out, apidex_error *err)
{
    *out = NULL;
    spec_registry *reg = calloc(1, sizeof *reg);
    core_arena *arena = core_arena_new(0);
    if (!reg || !arena) {
        free(reg);
        core_arena_free(arena);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    reg->arena = arena;
    spec_options *o = &reg->set.opt;
    if (opt) *o = *opt;
    if (!o->limits.max_bytes) o->limits.max_bytes = SPEC_DEFAULT_MAX_BYTES;
    if (!o->limits.max_depth) o->limits.max_depth = SPEC_DEFAULT_MAX_DEPTH;
    if (o->limits.max_depth > SPEC_MAX_DEPTH_CAP) o->limits.max_depth = SPEC_MAX_DEPTH_CAP;
    if (!o->limits.max_nodes) o->limits.max_nodes = SPEC_DEFAULT_MAX_NODES;
    if (!o->max_documents) o->max_documents = SPEC_DEFAULT_MAX_DOCS;
    if (!o->max_ref_chain) o->max_ref_chain = SPEC_DEFAULT_MAX_CHAIN;
    if (o->remote_timeout_ms <= 0) o->remote_timeout_ms = SPEC_DEFAULT_TIMEOUT_MS;
    if (!o->remote_max_bytes) o->remote_max_bytes = SPEC_DEFAULT_REMOTE_MAX;
    if (!o->load_memory_factor) o->load_memory_factor = spec_load_memory_factor_default();
    if (!o->load_memory_floor) o->load_memory_floor = SPEC_DEFAULT_LOAD_FLOOR;
    if (opt && opt->remote_hosts) {
        size_t n = 0;
        while (opt->remote_hosts[n]) n++;
        const char **hosts = core_arena_calloc(arena, n + 1, sizeof *hosts);
        if (!hosts) {
            spec_registry_free(reg);
            return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++) {
            char *h = core_arena_strdup(arena, opt->remote_hosts[i]);
            if (!h) {
                spec_registry_free(reg);
                return core_error_set(err, APIDEX_ENOMEM, "out of memory");
            }
            for (char *p = h; *p; p++)
                if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
            hosts[i] = h;
        }
        o->remote_hosts = hosts;
    }
    *out = reg;
    return 0;
}

/* Frees an API's documents and model (not its arena, names or diagnostics). */
static void api_release_model(spec_api_int *ai)
{
    for (size_t i = 0; i < ai->n_docs; i++) jt_doc_free(ai->docs[i]->tree);
    free(ai->docs);
    ai->docs = NULL;
    ai->n_docs = ai->cap_docs = 0;
    spec_strmap_free(&ai->doc_by_path);
    spec_strmap_free(&ai->dir_real);
    free(ai->refs);
    ai->refs = NULL;
    ai->n_refs = ai->cap_refs = 0;
    spec_ptrmap_free(&ai->ref_by_site);
    spec_ptrmap_free(&ai->schema_by_node);
    spec_strmap_free(&ai->schema_by_name);
    spec_strmap_free(&ai->op_by_nat);
    free(ai->pub.ops);
    free(ai->pub.schemas);
    ai->pub.ops = NULL;
    ai->pub.schemas = NULL;
    ai->pub.n_ops = ai->pub.n_schemas = 0;
    ai->cap_ops = ai->cap_schemas = 0;
}

void spec_api_free(spec_api_int *ai)
{
    if (!ai) return;
    api_release_model(ai);
    core_diags_free(&ai->pub.diags);
    free(ai->stem);
    free(ai->sort_key);
    free(ai->real);
    free(ai->root_dir);
    free(ai->root_host);
    core_arena_free(ai->arena);
    free(ai->budget);
    free(ai);
}

void spec_registry_free(spec_registry *reg)
{
    if (!reg) return;
    for (size_t i = 0; i < reg->n; i++) spec_api_free(reg->apis[i]);
    free(reg->apis);
    spec_strmap_free(&reg->by_real);
    spec_strmap_free(&reg->by_id);
    core_arena_free(reg->arena);
    free(reg);
}

const spec_options *spec_registry_options(const spec_registry *reg)
{
    return reg ? &reg->set.opt : NULL;
}

size_t spec_registry_count(const spec_registry *reg)
{
    return reg ? reg->n : 0;
}

const spec_api *spec_registry_api(const spec_registry *reg, size_t i)
{
    return reg && i < reg->n ? &reg->apis[i]->pub : NULL;
}

const spec_api *spec_registry_find(const spec_registry *reg, const char *id)
{
    size_t i;
    if (!reg || !id || !spec_strmap_get(&reg->by_id, id, strlen(id), &i) || i >= reg->n)
        return NULL;
    return &reg->apis[i]->pub;
}

/* ---------------------------------------------------------------- documents */

/* The display name of a file reached by $ref: under the root's directory as given. */
static const char *display_path(spec_api_int *ai, const char *real)
{
    size_t rl = strlen(ai->root_dir);
    if (ai->given_dir && strncmp(real, ai->root_dir, rl) == 0 && real[rl] == '/')
        return core_arena_printf(ai->arena, "%s%s", ai->given_dir, real + rl + 1);
    return core_arena_strdup(ai->arena, real);
}

static spec_doc *doc_add(spec_api_int *ai, jt_doc *tree, const char *file, const char *real,
                         bool remote)
{
    if (core_array_grow(&ai->docs, &ai->cap_docs, ai->n_docs, sizeof *ai->docs, 16)) return NULL;
    spec_doc *doc = core_arena_calloc(ai->arena, 1, sizeof *doc);
    if (!doc) return NULL;
    doc->tree = tree;
    doc->file = file;
    doc->real = core_arena_strdup(ai->arena, real);
    doc->remote = remote;
    if (remote) {
        doc->dir = doc->real;
    } else {
        const char *slash = strrchr(real, '/');
        doc->dir =
            slash ? core_arena_strndup(ai->arena, real, slash == real ? 1 : (size_t)(slash - real))
                  : core_arena_strdup(ai->arena, ".");
    }
    if (!doc->real || !doc->dir) return NULL;
    doc->index = ai->n_docs;
    if (tree && tree->invalid_utf8)
        /* once per file, where the first bad byte was (README: replaced, with a warning) */
        core_diags_add(&ai->pub.diags, CORE_DIAG_WARNING, APIDEX_EPARSE, file,
                       tree->invalid_utf8_line, tree->invalid_utf8_col, "",
                       "invalid UTF-8: %zu byte%s replaced by '?' (the first here)",
                       tree->invalid_utf8, tree->invalid_utf8 == 1 ? "" : "s");
    if (spec_strmap_put(&ai->doc_by_path, real, strlen(real), doc->index)) return NULL;
    ai->docs[ai->n_docs++] = doc;
    return doc;
}

spec_doc *spec_doc_open(spec_api_int *ai, const char *real, bool remote, const char *file,
                        const spec_doc *from, const char *site_ptr)
{
    size_t idx;
    if (spec_strmap_get(&ai->doc_by_path, real, strlen(real), &idx) && idx < ai->n_docs)
        return ai->docs[idx];
    const spec_options *o = &ai->set->opt;
    if (ai->n_docs >= o->max_documents) {
        if (!ai->docs_limit_reported) {
            ai->docs_limit_reported = true;
            spec_diag(ai, CORE_DIAG_ERROR, APIDEX_ELIMIT, from, NULL, site_ptr,
                      "more than %zu documents would be loaded; further $refs to other files "
                      "are not followed",
                      o->max_documents);
        }
        return NULL;
    }
    const char *shown = file     ? file
                        : remote ? core_arena_strdup(ai->arena, real)
                                 : display_path(ai, real);
    if (!shown) return NULL;
    apidex_error err;
    core_error_clear(&err);
    jt_doc *tree = NULL;
    int rc;
    if (remote) {
        char *text = NULL;
        size_t len = 0;
        rc = spec_fetch_url(o, ai->root_host ? ai->real : NULL, real, o->remote_timeout_ms,
                            o->remote_max_bytes, false, &text, &len, &err);
        if (!rc) api_budget_grow(ai, len);
        jt_limits lim = api_limits(ai);
        if (!rc) rc = jt_doc_parse(text, len, shown, &lim, &tree, &err);
    } else {
        char *text = NULL;
        size_t len = 0;
        rc = core_file_read(real, o->limits.max_bytes, &text, &len, &err);
        if (!rc) api_budget_grow(ai, len);
        jt_limits lim = api_limits(ai);
        if (!rc) rc = jt_doc_parse(text, len, shown, &lim, &tree, &err);
    }
    spec_doc *doc = doc_add(ai, rc ? NULL : tree, shown, real, remote);
    if (!doc) {
        jt_doc_free(tree);
        return NULL;
    }
    if (rc) {
        /* The error names the file; the $ref that asked for it is in the message. A file
           that is not there (or a server that does not answer) is a dangling ref: a
           warning. One that is there but bad (too big, too deep, invalid) is an error. */
        core_diag_level level = err.code == APIDEX_ENOTFOUND || err.code == APIDEX_ENET
                                    ? CORE_DIAG_WARNING
                                    : CORE_DIAG_ERROR;
        core_diags_add(&ai->pub.diags, level, err.code, shown, err.line, err.col, err.pointer,
                       "%s (referenced from %s%s%s)", err.message, from ? from->file : "?",
                       site_ptr ? " at " : "", site_ptr ? site_ptr : "");
    }
    return doc;
}

/* ---------------------------------------------------------------- one API */

static char *stem_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!*base) base = "api";
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *s = strndup(base, n);
    if (s)
        for (char *p = s; *p; p++)
            if (*p == ':' || *p == '/' || (unsigned char)*p < 0x20) *p = '_';
    return s;
}

static const char **copy_list(core_arena *a, const char *const *list)
{
    size_t n = 0;
    while (list[n]) n++;
    const char **out = core_arena_calloc(a, n + 1, sizeof *out);
    for (size_t i = 0; out && i < n; i++)
        if (!(out[i] = core_arena_strdup(a, list[i]))) return NULL;
    return out;
}

/* The input's options (spec_registry_add_input) into the API's arena. */
static int copy_input(spec_api_int *ai, const spec_input_options *io)
{
    if (io->name && !(ai->name = core_arena_strdup(ai->arena, io->name))) return APIDEX_ENOMEM;
    if (io->include_tags && !(ai->include_tags = copy_list(ai->arena, io->include_tags)))
        return APIDEX_ENOMEM;
    if (io->exclude_tags && !(ai->exclude_tags = copy_list(ai->arena, io->exclude_tags)))
        return APIDEX_ENOMEM;
    return 0;
}

/* A new API; budget (owned from now on, even on failure) is the one its root was parsed
   with, or NULL for a new one. */
spec_api_int *spec_api_new(spec_registry *reg, const char *given, const char *real, bool remote,
                           bool no_files, core_budget *budget)
{
    spec_api_int *ai = calloc(1, sizeof *ai);
    if (!ai) {
        free(budget);
        return NULL;
    }
    ai->set = &reg->set;
    ai->no_files = no_files;
    ai->budget = budget ? budget : calloc(1, sizeof *ai->budget);
    ai->arena = core_arena_new(0);
    core_arena_set_budget(ai->arena, ai->budget);
    core_diags_init(&ai->pub.diags, SPEC_MAX_DIAGS);
    ai->sort_key = strdup(given);
    ai->real = strdup(real);
    ai->pub.file = ai->arena ? core_arena_strdup(ai->arena, given) : NULL;
    if (remote) {
        /* the stem of a URL is its last path segment, query and fragment dropped */
        char *copy = strdup(real);
        if (copy) {
            char *q = strpbrk(copy + 8, "?#");
            if (q) *q = '\0';
            size_t l = strlen(copy);
            while (l > 8 && copy[l - 1] == '/') copy[--l] = '\0';
            ai->stem = stem_of(strchr(copy + 8, '/') ? copy : "api");
            free(copy);
        }
        ai->root_dir = strdup(real);
        ai->root_host = spec_url_host(real);
    } else {
        ai->stem = stem_of(given);
        const char *slash = strrchr(real, '/');
        ai->root_dir =
            slash ? strndup(real, slash == real ? 1 : (size_t)(slash - real)) : strdup(".");
        const char *gs = strrchr(given, '/');
        if (ai->arena)
            ai->given_dir = core_arena_strndup(ai->arena, given, gs ? (size_t)(gs - given) + 1 : 0);
    }
    if (!ai->budget || !ai->arena || !ai->sort_key || !ai->real || !ai->pub.file || !ai->stem ||
        !ai->root_dir || (!remote && !ai->given_dir)) {
        spec_api_free(ai);
        return NULL;
    }
    if (reg->input && copy_input(ai, reg->input)) {
        spec_api_free(ai);
        return NULL;
    }
    ai->pub.id = ai->stem;
    return ai;
}

static void api_fail(spec_api_int *ai, int code, const spec_doc *doc, const char *fmt,
                     const char *what)
{
    ai->pub.failed = true;
    ai->pub.major = 0;
    spec_diag(ai, CORE_DIAG_ERROR, code, doc, doc && doc->tree ? doc->tree->root : NULL, "", fmt,
              what);
}

/* Whether a diagnostic already says the budget ran out (a $ref'd file's parse). */
static bool budget_said(const spec_api_int *ai)
{
    for (size_t i = 0; i < ai->pub.diags.n; i++)
        if (ai->pub.diags.items[i].code == APIDEX_ELIMIT &&
            strstr(ai->pub.diags.items[i].message, "memory than its budget"))
            return true;
    return false;
}

/* Builds the API from its parsed root (tree NULL: perr says why it could not be parsed). */
int spec_api_from_root(spec_api_int *ai, jt_doc *tree, const apidex_error *perr)
{
    spec_api *api = &ai->pub;
    api->load_memory_limit = ai->budget->limit;
    if (!tree) {
        api->failed = true;
        api->load_memory_peak = ai->budget->peak;
        core_diags_add_error(&api->diags, CORE_DIAG_ERROR, perr);
        return 0;
    }
    ai->loaded_bytes = tree->text_len;
    spec_doc *d0 = doc_add(ai, tree, api->file, ai->real, ai->root_host != NULL);
    if (!d0) {
        jt_doc_free(tree);
        api->failed = true;
        core_diags_add(&api->diags, CORE_DIAG_ERROR, APIDEX_ENOMEM, api->file, 0, 0, "",
                       "out of memory");
        return APIDEX_ENOMEM;
    }
    api->content_hash = core_hash64(tree->text, tree->text_len);
    api->n_files = 1;
    api->root = (spec_loc){tree->root, d0};
    const jt_node *root = tree->root;
    if (root->type != JT_OBJECT) {
        api_fail(ai, APIDEX_ESPEC, d0, "the document root is %s, not an OpenAPI object",
                 root->type == JT_ARRAY ? "a list" : "a scalar");
        return 0;
    }
    /* A Postman collection becomes an OpenAPI 3 tree (postman.c) in place of its root;
       the text stays, so diagnostics still find the collection's lines. */
    int postman = spec_postman_detect(root);
    /* So does an MCP server's tool list (mcp.c). */
    const char *mcp_version = NULL;
    if (!postman && spec_mcp_detect(root)) {
        jt_node *oas = NULL;
        mcp_version = spec_mcp_version(root, ai->arena);
        if (!mcp_version || spec_mcp_translate(ai, d0, &oas)) {
            api->failed = true;
            api->major = 0;
            core_diags_add(&api->diags, CORE_DIAG_ERROR, APIDEX_ENOMEM, api->file, 0, 0, "",
                           "out of memory");
            return APIDEX_ENOMEM;
        }
        tree->root = oas;
        root = oas;
        api->root.node = oas;
    }
    if (postman) {
        jt_node *oas = NULL;
        int prc = spec_postman_translate(ai, d0, postman, &oas);
        if (prc) {
            api->failed = true;
            api->major = 0;
            if (prc == APIDEX_ENOMEM)
                core_diags_add(&api->diags, CORE_DIAG_ERROR, prc, api->file, 0, 0, "",
                               "out of memory");
            return prc == APIDEX_ENOMEM ? prc : 0;
        }
        tree->root = oas;
        root = oas;
        api->root.node = oas;
    }
    const jt_node *sw = jt_get(root, "swagger"), *oa = jt_get(root, "openapi");
    const char *v = jt_str(oa ? oa : sw);
    char num[32];
    if (!v && (oa ? oa : sw) && (oa ? oa : sw)->type == JT_REAL) {
        /* `swagger: 2.0` unquoted is a number in YAML */
        snprintf(num, sizeof num, "%.1f", (oa ? oa : sw)->u.d);
        v = num;
    }
    if (!oa && !sw) {
        api_fail(ai, APIDEX_ESPEC, d0, "%s",
                 "not an OpenAPI or Swagger document: no 'openapi' or 'swagger' member");
        return 0;
    }
    if (!v) {
        api_fail(ai, APIDEX_ESPEC, d0, "the '%s' member is not a version string",
                 oa ? "openapi" : "swagger");
        return 0;
    }
    api->spec_version =
        core_arena_strdup(ai->arena, mcp_version ? mcp_version
                                     : postman   ? (postman == 20 ? "postman-2.0" : "postman-2.1")
                                                 : v);
    if (oa && strncmp(v, "3.", 2) == 0) {
        api->major = 3;
    } else if (!oa && strcmp(v, "2.0") == 0) {
        api->major = 2;
    } else {
        api_fail(ai, APIDEX_ESPEC, d0, "unsupported specification version '%s' (2.0 and 3.x are)",
                 v);
        return 0;
    }
    int rc = spec_resolve_all(ai);
    if (!rc) rc = spec_normalize(ai);
    /* an imported request is where the collection has it */
    for (size_t i = 0; (postman || mcp_version) && !rc && i < api->n_ops; i++) {
        const char *at =
            jt_get_str(api->ops[i].node.node, postman ? "x-postman-pointer" : "x-mcp-pointer");
        if (at) api->ops[i].pointer = at;
    }
    if (!rc) rc = spec_model_build(ai);
    /* files loaded, and a hash over their bytes in load order */
    uint64_t *hashes = calloc(ai->n_docs, sizeof *hashes);
    api->n_files = 0;
    for (size_t i = 0; i < ai->n_docs; i++) {
        const jt_doc *t = ai->docs[i]->tree;
        if (!t) continue;
        uint64_t h = core_hash64(t->text, t->text_len);
        if (hashes) hashes[api->n_files] = h;
        api->n_files++;
    }
    if (hashes) api->content_hash = core_hash64(hashes, api->n_files * sizeof *hashes);
    free(hashes);
    api->content_hash = spec_select_hash(ai, api->content_hash);
    api->load_memory_peak = ai->budget->peak;
    api->load_memory_limit = ai->budget->limit;
    if (ai->budget->over) {
        /* Past its memory budget (a file's parse said where; the model's arena cannot):
           the whole API fails, whatever was still built. */
        if (rc != APIDEX_ELIMIT && !budget_said(ai)) {
            apidex_error berr;
            core_error_clear(&berr);
            core_budget_error(ai->budget, &berr);
            core_diags_add(&api->diags, CORE_DIAG_ERROR, APIDEX_ELIMIT, api->file, 0, 0, "", "%s",
                           berr.message);
        }
        api->failed = true;
        api->major = 0;
        return 0;
    }
    if (rc == APIDEX_ELIMIT) {
        /* over a limit of one document: said where (spec_int.h), and the others go on */
        api->failed = true;
        api->major = 0;
        return 0;
    }
    if (rc) {
        api->failed = true;
        core_diags_add(&api->diags, CORE_DIAG_ERROR, rc, api->file, 0, 0, "", "%s",
                       apidex_strerror(rc));
    }
    return rc;
}

/* ---------------------------------------------------------------- ids and order */

static int cmp_api(const void *a, const void *b)
{
    const spec_api_int *x = *(spec_api_int *const *)a, *y = *(spec_api_int *const *)b;
    return strcmp(x->sort_key, y->sort_key);
}

static bool id_taken(void *ctx, const char *id)
{
    size_t j;
    return spec_strmap_get(ctx, id, strlen(id), &j);
}

/* Gives API i the id `id` (and its operations and schemas theirs). */
static int set_api_id(spec_api_int *ai, const char *id)
{
    if (ai->pub.id && strcmp(ai->pub.id, id) == 0) return 0;
    const char *copy = core_arena_strdup(ai->arena, id);
    if (!copy) return APIDEX_ENOMEM;
    ai->pub.id = copy;
    return spec_model_set_ids(ai);
}

static int rebuild_by_id(spec_registry *reg)
{
    spec_strmap_free(&reg->by_id);
    int rc = 0;
    for (size_t i = 0; i < reg->n && !rc; i++)
        rc = spec_strmap_put(&reg->by_id, reg->apis[i]->pub.id, strlen(reg->apis[i]->pub.id), i);
    return rc;
}

/* The id given to API ai, or NULL: its input's name (a registry file's `id:`), --name when
   the registry holds one document, or the name of a document from memory when that is a
   valid id. */
static const char *given_id(const spec_registry *reg, const spec_api_int *ai)
{
    if (ai->name) return ai->name;
    if (reg->n == 1 && reg->set.opt.api_id) return reg->set.opt.api_id;
    return ai->named ? ai->stem : NULL;
}

const char *spec_registry_given_id(const spec_registry *reg, size_t i)
{
    return reg && i < reg->n ? given_id(reg, reg->apis[i]) : NULL;
}

/* Given ids first, as they are; then every other document proposes one (apiid.c; a
   document not parsed yet proposes from its file name) and a taken id gets "-2", "-3", in
   the registry's sorted order, so the ids depend only on the set of documents. */
static int assign_ids(spec_registry *reg)
{
    size_t n = reg->n;
    char(*ids)[SPEC_ID_MAX + 1] = calloc(n ? n : 1, sizeof *ids);
    if (!ids) return APIDEX_ENOMEM;
    spec_strmap taken = {0};
    int rc = 0;
    for (int pass = 0; pass < 2 && !rc; pass++)
        for (size_t i = 0; i < n && !rc; i++) {
            spec_api_int *ai = reg->apis[i];
            const char *given = given_id(reg, ai);
            if ((given != NULL) != (pass == 0)) continue;
            char proposed[SPEC_ID_MAX + 1];
            if (given)
                snprintf(proposed, sizeof proposed, "%s", given);
            else
                spec_id_propose(&ai->pub, proposed);
            rc = spec_id_unique(proposed, id_taken, &taken, ids[i]);
            if (!rc) rc = spec_strmap_put(&taken, ids[i], strlen(ids[i]), i);
        }
    for (size_t i = 0; i < n && !rc; i++) rc = set_api_id(reg->apis[i], ids[i]);
    spec_strmap_free(&taken);
    free(ids);
    return rc ? rc : rebuild_by_id(reg);
}

int spec_registry_set_id(spec_registry *reg, size_t i, const char *id, apidex_error *err)
{
    if (!reg || i >= reg->n) return core_error_set(err, APIDEX_EINVAL, "no API %zu", i);
    if (!spec_id_valid(id))
        return core_error_set(err, APIDEX_EINVAL,
                              "'%.100s' is not a valid API id: 1-%d characters of a-z, 0-9, "
                              "'.', '_' and '-', starting and ending with a letter or digit",
                              id ? id : "", SPEC_ID_MAX);
    return set_api_id(reg->apis[i], id) ? core_error_set(err, APIDEX_ENOMEM, "out of memory") : 0;
}

int spec_registry_reindex_ids(spec_registry *reg)
{
    return reg ? rebuild_by_id(reg) : 0;
}

int spec_registry_insert(spec_registry *reg, spec_api_int *ai)
{
    if (core_array_grow(&reg->apis, &reg->cap, reg->n, sizeof *reg->apis, 16)) return APIDEX_ENOMEM;
    reg->apis[reg->n++] = ai;
    ai->pub.id = NULL; /* assigned by assign_ids */
    return spec_strmap_put(&reg->by_real, ai->real, strlen(ai->real), 1);
}

int spec_registry_finish(spec_registry *reg)
{
    if (reg->n > 1) qsort(reg->apis, reg->n, sizeof *reg->apis, cmp_api);
    return assign_ids(reg);
}

/* ---------------------------------------------------------------- deferred loading */

bool spec_registry_deferred(const spec_registry *reg)
{
    return reg && reg->set.opt.deferred;
}

int spec_registry_load(spec_registry *reg, size_t i)
{
    if (!reg || i >= reg->n || !reg->apis[i]->deferred) return 0;
    spec_api_int *ai = reg->apis[i];
    ai->deferred = false;
    /* What add_file does for an eager registry, from the read on. */
    const spec_options *o = &reg->set.opt;
    const char *path = ai->sort_key;
    apidex_error perr;
    core_error_clear(&perr);
    char *text = NULL;
    size_t len = 0;
    jt_doc *tree = NULL;
    int rc = core_file_read(path, o->limits.max_bytes, &text, &len, &perr);
    if (!rc) {
        /* a load again after an unload starts afresh (what the kept names hold stays) */
        ai->budget->over = false;
        ai->budget->over_by = 0;
        ai->budget->peak = ai->budget->used;
        budget_set(ai->budget, o, len);
        jt_limits lim = api_limits(ai);
        rc = jt_doc_parse(text, len, path, &lim, &tree, &perr);
        if (!ai->explicit_root && !rc && !spec_root_is_openapi(tree)) {
            jt_doc_free(tree);
            ai->pub.skipped = true;
            return 0;
        }
    }
    int brc = spec_api_from_root(ai, rc ? NULL : tree, &perr);
    if (brc == APIDEX_ENOMEM) return brc;
    /* The id it proposes now that it is parsed (a given id as it is); the build makes it
       unique in registry order (build ids.c). Only this API is touched: thread-safe
       with loads of other APIs. */
    const char *given = given_id(reg, ai);
    char proposed[SPEC_ID_MAX + 1];
    if (given)
        snprintf(proposed, sizeof proposed, "%s", given);
    else
        spec_id_propose(&ai->pub, proposed);
    if (!ai->pub.id || strcmp(ai->pub.id, proposed) != 0) {
        const char *copy = core_arena_strdup(ai->arena, proposed);
        if (!copy) return APIDEX_ENOMEM;
        ai->pub.id = copy;
    }
    return spec_model_set_ids(ai);
}

void spec_registry_unload(spec_registry *reg, size_t i)
{
    if (!reg || !reg->set.opt.deferred || i >= reg->n) return;
    spec_api_int *ai = reg->apis[i];
    if (ai->deferred) return;
    api_release_model(ai);
    /* The id, file and display directory live in the arena: keep copies in a new one. */
    core_arena *keep = core_arena_new(0);
    if (!keep) return; /* the model is gone; the arena stays until the registry is freed */
    spec_api *p = &ai->pub;
    const char *id = p->id ? core_arena_strdup(keep, p->id) : NULL;
    const char *file = p->file ? core_arena_strdup(keep, p->file) : NULL;
    const char *dir = ai->given_dir ? core_arena_strdup(keep, ai->given_dir) : NULL;
    if ((p->id && !id) || (p->file && !file) || (ai->given_dir && !dir)) {
        core_arena_free(keep);
        return;
    }
    core_arena_free(ai->arena);
    ai->arena = keep;
    core_arena_set_budget(keep, ai->budget);
    spec_api kept = {.id = id,
                     .file = file,
                     .n_files = p->n_files,
                     .content_hash = p->content_hash,
                     .load_memory_peak = p->load_memory_peak,
                     .load_memory_limit = p->load_memory_limit,
                     .diags = p->diags,
                     .failed = p->failed,
                     .skipped = p->skipped};
    *p = kept;
    ai->given_dir = dir;
    /* the input's options lived in the old arena; the id they gave is assigned by now */
    ai->name = NULL;
    ai->include_tags = ai->exclude_tags = NULL;
    ai->op_nat = NULL;
    ai->locates = ai->searches = 0;
    ai->docs_limit_reported = false;
}

/* ---------------------------------------------------------------- small accessors */

const char *spec_api_generated_text(const spec_api *api, size_t *len)
{
    *len = 0;
    const spec_api_int *ai = api ? spec_api_priv(api) : NULL;
    if (!ai || !ai->generated || api->failed || !ai->n_docs || !ai->docs[0]->tree) return NULL;
    *len = ai->docs[0]->tree->text_len;
    return ai->docs[0]->tree->text;
}

const char *spec_doc_file(const spec_doc *doc)
{
    return doc ? doc->file : NULL;
}

const jt_doc *spec_doc_tree(const spec_doc *doc)
{
    return doc ? doc->tree : NULL;
}
