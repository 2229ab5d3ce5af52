/* The registry's inputs: a file, a directory of specs, a URL, an MCP config or a text
   becomes an API (or a deferred one) of the registry. The design is in load.c. */
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

static bool is_url(const char *s)
{
    return strncasecmp(s, "http://", 7) == 0 || strncasecmp(s, "https://", 8) == 0;
}

/* Is there a key `word` at s[i] (quoted or not, then optional blanks and ':')? */
static bool key_at(const char *t, size_t len, size_t i, size_t wl)
{
    char before = i ? t[i - 1] : '\n';
    if (!(before == '\n' || before == '"' || before == '\'' || before == '{' || before == ',' ||
          before == ' ' || before == '\t'))
        return false;
    size_t j = i + wl;
    if (j < len && (t[j] == '"' || t[j] == '\'')) j++;
    while (j < len && (t[j] == ' ' || t[j] == '\t')) j++;
    return j < len && t[j] == ':';
}

/*
 * Cheap pre-check for directory scans: does the text have an `openapi` or
 * `swagger` key? Fragments of multi-file specs are skipped without a parse; a
 * file that passes but fails to parse is reported (it is probably a broken root).
 */
static bool sniff_root(const char *text, size_t len)
{
    /* inputSchema: an MCP tool list (mcp.c) */
    static const char *const words[] = {"openapi", "swagger", "_postman_id", "inputSchema"};
    for (size_t w = 0; w < 4; w++) {
        const char *p = text, *end = text + len;
        size_t wl = strlen(words[w]);
        while ((p = memmem(p, (size_t)(end - p), words[w], wl)) != NULL) {
            if (key_at(text, len, (size_t)(p - text), wl)) return true;
            p += wl;
        }
    }
    /* a Postman collection names its schema */
    return memmem(text, len, "schema.getpostman.com", 21) != NULL;
}

enum { SNIFF_HEAD = 65536 };

/* sniff_root on the first 64 KiB of a file too big to load: a root is reported, not skipped. */
static bool sniff_head(const char *path)
{
    char head[SNIFF_HEAD];
    FILE *f = core_file_open_regular(path, NULL);
    if (!f) return false;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return sniff_root(head, n);
}

/*
 * A deferred registry's scan without reading the whole file (spec_registry_load reads it
 * when its turn comes): true when the file is within max_bytes and its first 64 KiB read,
 * and either it was named (explicit: no sniff) or sniff_root hits in those bytes. A hit in
 * a prefix is a hit in the whole text (key_at only looks at bytes before the prefix's end),
 * so the answer is the full read's. False sends the file down the full read: too big,
 * unreadable, or a head that does not say.
 */
static bool deferred_root_by_head(const char *path, size_t max_bytes, bool explicit)
{
    char head[SNIFF_HEAD];
    FILE *f = core_file_open_regular(path, NULL);
    if (!f) return false;
    struct stat st;
    bool ok = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
              !(max_bytes && (size_t)st.st_size > max_bytes);
    size_t n = ok ? fread(head, 1, sizeof head, f) : 0;
    ok = ok && !ferror(f);
    fclose(f);
    return ok && (explicit || sniff_root(head, n));
}

/* A root found by a deferred registry's scan: parsed later by spec_registry_load. */
static int add_deferred(spec_registry *reg, const char *path, const char *real, bool explicit,
                        apidex_error *err)
{
    spec_api_int *ai = spec_api_new(reg, path, real, false, false, NULL);
    if (!ai) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    ai->deferred = true;
    ai->explicit_root = explicit;
    if (spec_registry_insert(reg, ai)) {
        spec_api_free(ai);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    return 0;
}

bool spec_root_is_openapi(const jt_doc *doc)
{
    return doc && doc->root && doc->root->type == JT_OBJECT &&
           (jt_get(doc->root, "openapi") || jt_get(doc->root, "swagger") ||
            spec_postman_detect(doc->root) || spec_mcp_detect(doc->root));
}

/*
 * Adds one file. In a directory scan (explicit == false) files that are not
 * OpenAPI roots are skipped quietly: multi-file specs keep their fragments
 * next to the root.
 */
int spec_registry_add_file(spec_registry *reg, const char *path, bool explicit, apidex_error *err)
{
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        int e = errno;
        core_error_set(err, e == ENOENT ? APIDEX_ENOTFOUND : APIDEX_EIO, "cannot open: %s",
                       strerror(e));
        core_error_at(err, path, 0, 0, NULL);
        return err ? err->code : APIDEX_EIO;
    }
    if (spec_strmap_get(&reg->by_real, real, strlen(real), NULL)) return 0;
    const spec_options *o = &reg->set.opt;
    apidex_error perr;
    core_error_clear(&perr);
    char *text = NULL;
    size_t len = 0;
    jt_doc *tree = NULL;
    core_budget *budget = NULL;
    if (o->deferred && deferred_root_by_head(path, o->limits.max_bytes, explicit))
        return add_deferred(reg, path, real, explicit, err);
    int rc = core_file_read(path, o->limits.max_bytes, &text, &len, &perr);
    if (rc == APIDEX_ELIMIT && !explicit && !sniff_head(path)) return 0;
    if (rc && rc != APIDEX_ELIMIT && !explicit) return 0;
    if (rc == APIDEX_ENOTFOUND) {
        if (err) *err = perr;
        return rc;
    }
    if (!rc) {
        if (!explicit && !sniff_root(text, len)) {
            free(text);
            return 0;
        }
        if (o->deferred) {
            /* Found past its first 64 KiB: parsed later, one API at a time. */
            free(text);
            return add_deferred(reg, path, real, explicit, err);
        }
        rc = spec_parse_root(reg, text, len, path, &tree, &budget, &perr);
        if (!explicit && !rc && !spec_root_is_openapi(tree)) {
            jt_doc_free(tree);
            free(budget);
            return 0;
        }
    }
    spec_api_int *ai = spec_api_new(reg, path, real, false, false, budget);
    if (!ai) {
        jt_doc_free(tree);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    int brc = spec_api_from_root(ai, rc ? NULL : tree, &perr);
    if (brc == APIDEX_ENOMEM) {
        spec_api_free(ai);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    if (spec_registry_insert(reg, ai)) {
        spec_api_free(ai);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    return 0;
}

static bool has_spec_ext(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot &&
           (!strcasecmp(dot, ".json") || !strcasecmp(dot, ".yaml") || !strcasecmp(dot, ".yml"));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct str_vec {
    char **v;
    size_t n, cap;
} str_vec;

static int vec_push(str_vec *s, char *p)
{
    if (!p) return APIDEX_ENOMEM;
    if (core_array_grow(&s->v, &s->cap, s->n, sizeof *s->v, 64)) {
        free(p);
        return APIDEX_ENOMEM;
    }
    s->v[s->n++] = p;
    return 0;
}

static void vec_free(str_vec *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
}

/*
 * Adds every OpenAPI root under dir. The walk is iterative, skips hidden
 * entries and does not follow symlinked directories (no loops); files are
 * taken in sorted order so the result does not depend on readdir.
 */
static int add_dir(spec_registry *reg, const char *dir, apidex_error *err)
{
    str_vec todo = {0}, files = {0};
    int rc = vec_push(&todo, strdup(dir));
    while (!rc && todo.n) {
        char *d = todo.v[--todo.n];
        DIR *dh = opendir(d);
        if (!dh) {
            free(d);
            continue;
        }
        struct dirent *de;
        while (!rc && (de = readdir(dh)) != NULL) {
            if (de->d_name[0] == '.') continue;
            size_t l = strlen(d) + strlen(de->d_name) + 2;
            char *p = malloc(l);
            if (!p) {
                rc = APIDEX_ENOMEM;
                break;
            }
            snprintf(p, l, "%s%s%s", d, d[strlen(d) - 1] == '/' ? "" : "/", de->d_name);
            struct stat st;
            if (lstat(p, &st) != 0) {
                free(p);
                continue;
            }
            if (S_ISDIR(st.st_mode)) {
                rc = vec_push(&todo, p);
            } else if (has_spec_ext(de->d_name) && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
                rc = vec_push(&files, p);
            } else {
                free(p);
            }
        }
        closedir(dh);
        free(d);
    }
    if (!rc && files.n > 1) qsort(files.v, files.n, sizeof *files.v, cmp_str);
    for (size_t i = 0; i < files.n && !rc; i++) {
        struct stat st;
        if (stat(files.v[i], &st) != 0 || !S_ISREG(st.st_mode)) continue;
        rc = spec_registry_add_file(reg, files.v[i], false, err);
    }
    vec_free(&todo);
    vec_free(&files);
    if (rc == APIDEX_ENOMEM) return core_error_set(err, rc, "out of memory");
    return rc;
}

static int add_url(spec_registry *reg, const char *url, apidex_error *err)
{
    if (spec_strmap_get(&reg->by_real, url, strlen(url), NULL)) return 0;
    const spec_options *o = &reg->set.opt;
    char *text = NULL;
    size_t len = 0;
    int rc = spec_fetch_url(o, url, url, o->remote_timeout_ms, o->limits.max_bytes, true, &text,
                            &len, err);
    if (rc) return rc;
    apidex_error perr;
    core_error_clear(&perr);
    jt_doc *tree = NULL;
    core_budget *budget = NULL;
    rc = spec_parse_root(reg, text, len, url, &tree, &budget, &perr);
    spec_api_int *ai = spec_api_new(reg, url, url, true, false, budget);
    if (!ai) {
        jt_doc_free(tree);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    int brc = spec_api_from_root(ai, rc ? NULL : tree, &perr);
    if (brc == APIDEX_ENOMEM || spec_registry_insert(reg, ai)) {
        spec_api_free(ai);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    return 0;
}

/* A config entry's name as an API id: lower case, [a-z0-9._-] kept, the rest '-'; NULL
   when nothing valid is left. */
static char *server_slug(const char *name)
{
    size_t n = strlen(name);
    char *s = malloc(n + 1);
    if (!s) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n && k < SPEC_ID_MAX; i++) {
        char ch = name[i];
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch + 32);
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
                  ch == '-';
        s[k++] = ok ? ch : '-';
    }
    while (k && !((s[k - 1] >= 'a' && s[k - 1] <= 'z') || (s[k - 1] >= '0' && s[k - 1] <= '9')))
        k--;
    s[k] = '\0';
    size_t lead = 0;
    while (s[lead] && !((s[lead] >= 'a' && s[lead] <= 'z') || (s[lead] >= '0' && s[lead] <= '9')))
        lead++;
    memmove(s, s + lead, k - lead + 1);
    if (!spec_id_valid(s)) {
        free(s);
        return NULL;
    }
    return s;
}

/*
 * An MCP source (mcpc/mcpc.h): each server it names is started or connected to, its tool
 * list read and loaded as a document of its own (oas/mcp.c); a server that fails is that
 * API's error, and the other servers are still read. A config entry's name is its API id.
 */
/* An MCP source's document as an index kept it (spec_input_options.text): built as when it
   was read from the server, under the same name and key, without starting anything. */
static int add_mcp_text(spec_registry *reg, const char *input, const char *text, size_t len,
                        apidex_error *err)
{
    size_t kl = strlen(input) + 5;
    char *key = malloc(kl);
    char *copy = malloc(len + 1);
    if (!key || !copy) {
        free(key);
        free(copy);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    snprintf(key, kl, "mcp:%s", input);
    if (spec_strmap_get(&reg->by_real, key, strlen(key), NULL)) {
        free(key);
        free(copy);
        return 0;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    /* the same content hash as when the server itself was read (add_mcp), so a snapshot the
       index kept is recognised as the document it indexed */
    uint64_t mh = 0;
    bool has_mh = mcpc_document_hash(text, len, &mh) == 0;
    apidex_error perr;
    core_error_clear(&perr);
    jt_doc *tree = NULL;
    core_budget *budget = NULL;
    int lrc = spec_parse_root(reg, copy, len, input, &tree, &budget, &perr);
    spec_api_int *ai = spec_api_new(reg, input, key, false, true, budget);
    free(key);
    if (!ai) {
        jt_doc_free(tree);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    ai->generated = true;
    int brc = spec_api_from_root(ai, lrc ? NULL : tree, &perr);
    if (!brc && !ai->pub.failed && has_mh) ai->pub.content_hash = spec_select_hash(ai, mh);
    if (brc == APIDEX_ENOMEM || spec_registry_insert(reg, ai)) {
        spec_api_free(ai);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    return 0;
}

static int add_mcp(spec_registry *reg, const char *input, apidex_error *err)
{
    if (reg->input && reg->input->text)
        return add_mcp_text(reg, input, reg->input->text, reg->input->text_len, err);
    core_arena *a = core_arena_new(0);
    if (!a) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    mcpc_servers ss;
    int rc = mcpc_source_parse(input, a, &ss, err);
    if (rc) {
        core_arena_free(a);
        if (err && !err->file[0]) core_error_at(err, input, 0, 0, NULL);
        return rc;
    }
    bool config = ss.config != NULL;
    /* a config's servers are named by its absolute path and their name, so the index can
       read one of them again from anywhere (show, tool definitions) */
    char *cfg_real = ss.config ? realpath(ss.config, NULL) : NULL;
    const char *cfg = cfg_real ? cfg_real : ss.config;
    mcpc_options mo = {.allowed_addresses = reg->set.opt.remote_addresses};
    for (size_t i = 0; i < ss.n && !rc; i++) {
        const mcpc_server *srv = &ss.items[i];
        char *given = config ? core_arena_printf(a, "mcp+config:%s#%s", cfg, srv->name)
                             : core_arena_strdup(a, input);
        char *key = given ? core_arena_printf(a, "mcp:%s", given) : NULL;
        if (!key) {
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            break;
        }
        if (spec_strmap_get(&reg->by_real, key, strlen(key), NULL)) continue;
        apidex_error perr;
        core_error_clear(&perr);
        char *text = NULL;
        size_t len = 0;
        jt_doc *tree = NULL;
        core_budget *budget = NULL;
        int lrc = mcpc_list(srv, &mo, &text, &len, &perr);
        if (lrc == APIDEX_ENOMEM) {
            rc = core_error_set(err, lrc, "out of memory");
            break;
        }
        /* the content hash is the server's (its tools as a set, keys in any order), taken
           before the parse owns text: re-indexing rebuilds only servers whose list changed */
        uint64_t mh = 0;
        bool has_mh = !lrc && mcpc_document_hash(text, len, &mh) == 0;
        if (lrc)
            core_error_at(&perr, given, 0, 0, NULL);
        else
            lrc = spec_parse_root(reg, text, len, given, &tree, &budget, &perr);
        spec_api_int *ai = spec_api_new(reg, given, key, false, true, budget);
        char *slug = config && srv->name ? server_slug(srv->name) : NULL;
        if (ai && slug) {
            free(ai->stem);
            ai->stem = slug;
            ai->pub.id = slug;
            ai->named = true;
        } else {
            free(slug);
        }
        if (!ai) {
            jt_doc_free(tree);
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            break;
        }
        ai->generated = true;
        int brc = spec_api_from_root(ai, lrc ? NULL : tree, &perr);
        if (!brc && !ai->pub.failed && has_mh) ai->pub.content_hash = spec_select_hash(ai, mh);
        if (brc == APIDEX_ENOMEM || spec_registry_insert(reg, ai)) {
            spec_api_free(ai);
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
        }
    }
    free(cfg_real);
    core_arena_free(a);
    return rc;
}

int spec_registry_add(spec_registry *reg, const char *input, apidex_error *err)
{
    if (!reg || !input || !*input) return core_error_set(err, APIDEX_EINVAL, "no input given");
    int rc;
    if (mcpc_is_source(input)) {
        rc = add_mcp(reg, input, err);
    } else if (is_url(input)) {
        rc = add_url(reg, input, err);
    } else {
        struct stat st;
        if (stat(input, &st) != 0) {
            int e = errno;
            core_error_set(err, e == ENOENT ? APIDEX_ENOTFOUND : APIDEX_EIO, "cannot open: %s",
                           strerror(e));
            core_error_at(err, input, 0, 0, NULL);
            return err ? err->code : APIDEX_ENOTFOUND;
        }
        rc = S_ISDIR(st.st_mode) ? add_dir(reg, input, err)
                                 : spec_registry_add_file(reg, input, true, err);
    }
    int frc = spec_registry_finish(reg);
    if (!rc && frc) rc = core_error_set(err, frc, "out of memory");
    return rc;
}

int spec_registry_add_input(spec_registry *reg, const char *input, const spec_input_options *io,
                            apidex_error *err)
{
    if (reg && io && io->name && input && !is_url(input)) {
        struct stat st;
        if (stat(input, &st) == 0 && S_ISDIR(st.st_mode)) {
            core_error_set(err, APIDEX_EINVAL, "an id names one document, and '%s' is a folder",
                           input);
            core_error_at(err, input, 0, 0, NULL);
            return APIDEX_EINVAL;
        }
    }
    if (reg) reg->input = io;
    int rc = spec_registry_add(reg, input, err);
    if (reg) reg->input = NULL;
    return rc;
}

int spec_load_file(const char *path, const spec_options *opt, spec_registry **out,
                   apidex_error *err)
{
    int rc = spec_registry_new(opt, out, err);
    if (rc) return rc;
    rc = spec_registry_add(*out, path, err);
    if (rc) {
        spec_registry_free(*out);
        *out = NULL;
    }
    return rc;
}

int spec_registry_add_text(spec_registry *reg, const char *name, const char *text, size_t len,
                           const char *base_dir, apidex_error *err)
{
    if (!reg || !name || !*name || (!text && len))
        return core_error_set(err, APIDEX_EINVAL, "no document given");
    char real[PATH_MAX];
    char *key;
    if (base_dir) {
        if (!realpath(base_dir, real)) {
            core_error_set(err, APIDEX_ENOTFOUND, "cannot open: %s", strerror(errno));
            core_error_at(err, base_dir, 0, 0, NULL);
            return APIDEX_ENOTFOUND;
        }
        const char *base = strrchr(name, '/');
        size_t l = strlen(real) + strlen(base ? base + 1 : name) + 2;
        key = malloc(l);
        if (key) snprintf(key, l, "%s/%s", real, base ? base + 1 : name);
    } else {
        /* no directory: no file refs; "mem:" keeps it apart from real (absolute) paths */
        size_t l = strlen(name) + 5;
        key = malloc(l);
        if (key) snprintf(key, l, "mem:%s", name);
    }
    if (!key) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (spec_strmap_get(&reg->by_real, key, strlen(key), NULL)) {
        free(key);
        return 0;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        free(key);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    if (len) memcpy(copy, text, len);
    copy[len] = '\0';
    apidex_error perr;
    core_error_clear(&perr);
    jt_doc *tree = NULL;
    core_budget *budget = NULL;
    int rc = spec_parse_root(reg, copy, len, name, &tree, &budget, &perr);
    spec_api_int *ai = spec_api_new(reg, name, key, false, base_dir == NULL, budget);
    free(key);
    if (!ai) {
        jt_doc_free(tree);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    ai->named = spec_id_valid(ai->stem);
    int brc = spec_api_from_root(ai, rc ? NULL : tree, &perr);
    if (brc == APIDEX_ENOMEM || spec_registry_insert(reg, ai)) {
        spec_api_free(ai);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    rc = spec_registry_finish(reg);
    return rc ? core_error_set(err, rc, "out of memory") : 0;
}
