/*
 * The registry file (apidex.yaml): parsing and checking it with line:col in every
 * error, and loading its sources into a spec registry. The design essay is in
 * registry.h; the format is documented in docs/REGISTRY.md.
 */
#include "registry/registry.h"

#include "mcpc/mcpc.h"

#include "build/build.h"
#include "chunk/chunk.h"
#include "prep/prep.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { REGISTRY_MAX_BYTES = 4 << 20, REGISTRY_MAX_ID = 64 };

/* The keys each mapping may have, for "unknown key" errors and their suggestions. */
static const char *const top_keys[] = {"version", "db", "strategy", "filters", "sources", NULL};
static const char *const source_keys[] = {"path", "url", "id", "tags", "server", "auth", NULL};
static const char *const tags_keys[] = {"include", "exclude", NULL};
static const char *const basic_keys[] = {"username", "password", NULL};

typedef struct parser {
    const jt_doc *doc;
    const char *path;
    const char *base; /* the registry file's folder with its '/', or "" */
    registry_file *rf;
    apidex_error *err;
} parser;

/* ---------------------------------------------------------------- errors */

static const char *type_name(const jt_node *n)
{
    if (!n) return "nothing";
    switch (n->type) {
    case JT_NULL:
        return "nothing";
    case JT_BOOL:
        return "a boolean";
    case JT_INT:
    case JT_REAL:
        return "a number";
    case JT_STRING:
        return "a string";
    case JT_ARRAY:
        return "a list";
    default:
        return "a mapping";
    }
}

__attribute__((format(printf, 5, 6))) static int fail_at(parser *p, int code, unsigned line,
                                                         unsigned col, const char *fmt, ...)
{
    char msg[sizeof p->err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    core_error_set(p->err, code, "%s", msg);
    core_error_at(p->err, p->path, line, col, NULL);
    return code;
}

#define FAIL(p, node, ...) fail_at((p), APIDEX_EINVAL, (node)->line, (node)->col, __VA_ARGS__)

/* The 0-based offset of line:col in the source, or the end. */
static size_t offset_of(const jt_doc *doc, unsigned line, unsigned col)
{
    size_t off = 0;
    for (unsigned l = 1; l < line && off < doc->text_len; off++)
        if (doc->text[off] == '\n') l++;
    off += col ? col - 1 : 0;
    return off < doc->text_len ? off : doc->text_len;
}

/* Where a key was written: the last occurrence of the key before its value (YAML nodes
   carry positions, keys do not). Falls back to the value's position. */
static void key_position(const jt_doc *doc, const jt_member *m, unsigned *line, unsigned *col)
{
    *line = m->value->line;
    *col = m->value->col;
    if (!m->value->line || !doc->text) return;
    size_t end = offset_of(doc, m->value->line, m->value->col);
    size_t k = m->key_len;
    for (size_t i = end; i-- > 0 && end - i < 4096;) {
        if (i + k > doc->text_len || memcmp(doc->text + i, m->key, k) != 0) continue;
        unsigned l = 1, c = 1;
        for (size_t j = 0; j < i; j++) {
            if (doc->text[j] == '\n') {
                l++;
                c = 1;
            } else {
                c++;
            }
        }
        *line = l;
        *col = c;
        return;
    }
}

static size_t edit_distance(const char *a, size_t la, const char *b)
{
    return core_edit_distance(a, la, b, strlen(b), 99);
}

static int unknown_key(parser *p, const jt_member *m, const char *where, const char *const *known)
{
    const char *best = NULL;
    size_t best_d = 99;
    for (size_t i = 0; known[i]; i++) {
        size_t d = edit_distance(m->key, m->key_len, known[i]);
        if (m->key_len >= 2 && !strncasecmp(known[i], m->key, m->key_len)) d = 1; /* a prefix */
        if (d < best_d) {
            best_d = d;
            best = known[i];
        }
    }
    size_t limit = m->key_len / 3 + 1;
    char list[256] = "";
    size_t used = 0;
    for (size_t i = 0; known[i] && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", known[i]);
    unsigned line, col;
    key_position(p->doc, m, &line, &col);
    if (best && best_d <= limit)
        return fail_at(p, APIDEX_EINVAL, line, col,
                       "unknown key '%.*s' in %s (did you mean '%s'?); expected one of: %s",
                       (int)m->key_len, m->key, where, best, list);
    return fail_at(p, APIDEX_EINVAL, line, col, "unknown key '%.*s' in %s; expected one of: %s",
                   (int)m->key_len, m->key, where, list);
}

/* ---------------------------------------------------------------- values */

static bool key_is(const jt_member *m, const char *k)
{
    return m->key_len == strlen(k) && memcmp(m->key, k, m->key_len) == 0;
}

/* A non-empty string without NUL bytes, or an error naming the key. */
static int want_string(parser *p, const jt_node *v, const char *key, const char **out)
{
    if (!jt_is(v, JT_STRING)) return FAIL(p, v, "'%s' must be a string, got %s", key, type_name(v));
    if (!v->len || strlen(v->u.s) != v->len) return FAIL(p, v, "'%s' must not be empty", key);
    *out = core_arena_strndup(p->rf->arena, v->u.s, v->len); /* the tree is freed after parsing */
    return *out ? 0 : core_error_set(p->err, APIDEX_ENOMEM, "out of memory");
}

/* A URL, or an MCP server (mcpc_is_source): both are passed on as written. */
static bool is_url(const char *s)
{
    return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8) || mcpc_is_source(s);
}

/* A path relative to the registry file's folder (absolute paths, URLs and MCP sources as
   they are: "mcp+stdio:..." joined to a folder would name a file that is not there). */
static const char *resolve(parser *p, const char *path)
{
    if (path[0] == '/' || !p->base[0] || strstr(path, "://") || is_url(path))
        return core_arena_strdup(p->rf->arena, path);
    return core_arena_printf(p->rf->arena, "%s%s", p->base, path);
}

/* A source string: a path relative to the registry file's folder, as resolve(); a URL or an
   MCP server as written, except the FILE of `mcp+config:FILE[#NAME]`, which is a path too
   (a `mcp+stdio:` command is not: its program is found as a shell would, on PATH). */
static const char *resolve_source(parser *p, const char *w)
{
    if (strncmp(w, "mcp+config:", 11))
        return mcpc_is_source(w) ? core_arena_strdup(p->rf->arena, w) : resolve(p, w);
    const char *file = resolve(p, w + 11);
    return file ? core_arena_printf(p->rf->arena, "mcp+config:%s", file) : NULL;
}

static bool valid_env(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return false;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

/* The rule every API id follows (spec apiid.c). */
static bool valid_id(const char *s)
{
    return spec_id_valid(s);
}

/* A string or a list of strings, as a NULL-terminated list. */
static int want_list(parser *p, const jt_node *v, const char *key, const char ***out)
{
    size_t n = jt_is(v, JT_ARRAY) ? v->len : 1;
    if (!jt_is(v, JT_ARRAY) && !jt_is(v, JT_STRING))
        return FAIL(p, v, "'%s' must be a tag name or a list of tag names, got %s", key,
                    type_name(v));
    if (!n) return FAIL(p, v, "'%s' is an empty list: leave it out to keep every operation", key);
    const char **list = core_arena_calloc(p->rf->arena, n + 1, sizeof *list);
    if (!list) return core_error_set(p->err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const jt_node *item = jt_is(v, JT_ARRAY) ? v->u.items[i] : v;
        int rc = want_string(p, item, key, &list[i]);
        if (rc) return rc;
    }
    *out = list;
    return 0;
}

/* ---------------------------------------------------------------- a source */

static int parse_tags(parser *p, const jt_node *v, registry_source *s)
{
    if (!jt_is(v, JT_OBJECT))
        return FAIL(p, v, "'tags' must be a mapping with include and/or exclude, got %s",
                    type_name(v));
    for (uint32_t i = 0; i < v->len; i++) {
        const jt_member *m = &v->u.members[i];
        int rc;
        if (key_is(m, "include"))
            rc = want_list(p, m->value, "include", &s->include_tags);
        else if (key_is(m, "exclude"))
            rc = want_list(p, m->value, "exclude", &s->exclude_tags);
        else
            rc = unknown_key(p, m, "tags", tags_keys);
        if (rc) return rc;
    }
    if (!s->include_tags && !s->exclude_tags)
        return FAIL(p, v, "'tags' needs include and/or exclude");
    return 0;
}

/* auth: {scheme: ENV} or {scheme: {username: ENV, password: ENV}}, as JSON into b. */
static int parse_auth(parser *p, const jt_node *v, core_buf *b)
{
    if (!jt_is(v, JT_OBJECT) || !v->len)
        return FAIL(p, v,
                    "'auth' must be a mapping from a security scheme name to the environment "
                    "variable holding its credential, got %s",
                    type_name(v));
    core_buf_puts(b, ",\"auth\":{");
    for (uint32_t i = 0; i < v->len; i++) {
        const jt_member *m = &v->u.members[i];
        if (i) core_buf_putc(b, ',');
        core_buf_json_str(b, m->key, m->key_len);
        core_buf_putc(b, ':');
        const jt_node *e = m->value;
        if (jt_is(e, JT_OBJECT)) {
            const char *user = NULL, *pass = NULL;
            for (uint32_t k = 0; k < e->len; k++) {
                const jt_member *u = &e->u.members[k];
                const char **slot = key_is(u, "username")   ? &user
                                    : key_is(u, "password") ? &pass
                                                            : NULL;
                if (!slot) return unknown_key(p, u, "a basic auth entry", basic_keys);
                int rc = want_string(p, u->value, slot == &user ? "username" : "password", slot);
                if (rc) return rc;
                if (!valid_env(*slot))
                    return FAIL(p, u->value,
                                "'%s' is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)",
                                *slot);
            }
            if (!user || !pass)
                return FAIL(p, e, "a basic auth entry needs both username and password");
            core_buf_puts(b, "{\"username\":");
            core_buf_json_str(b, user, strlen(user));
            core_buf_puts(b, ",\"password\":");
            core_buf_json_str(b, pass, strlen(pass));
            core_buf_putc(b, '}');
            continue;
        }
        if (!jt_is(e, JT_STRING))
            return FAIL(p, e,
                        "auth '%.*s' must name an environment variable (or be a mapping with "
                        "username and password), got %s",
                        (int)m->key_len, m->key, type_name(e));
        if (!valid_env(e->u.s))
            return FAIL(p, e, "'%s' is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)",
                        e->u.s);
        core_buf_json_str(b, e->u.s, e->len);
    }
    core_buf_putc(b, '}');
    return 0;
}

static bool has_wildcard(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

static int parse_source(parser *p, const jt_node *v, registry_source *s)
{
    s->line = v->line;
    s->col = v->col;
    if (jt_is(v, JT_STRING)) { /* the short form: just the path or URL */
        const char *w = NULL;
        int rc = want_string(p, v, "a source", &w);
        if (rc) return rc;
        s->written = w;
        s->kind = is_url(w)         ? REGISTRY_SOURCE_URL
                  : has_wildcard(w) ? REGISTRY_SOURCE_GLOB
                                    : REGISTRY_SOURCE_PATH;
        s->resolved = resolve_source(p, w);
        return s->resolved ? 0 : core_error_set(p->err, APIDEX_ENOMEM, "out of memory");
    }
    if (!jt_is(v, JT_OBJECT))
        return FAIL(p, v, "a source must be a path, a URL or a mapping with path or url, got %s",
                    type_name(v));
    const char *server = NULL;
    const jt_node *auth = NULL, *id_node = NULL;
    for (uint32_t i = 0; i < v->len; i++) {
        const jt_member *m = &v->u.members[i];
        int rc = 0;
        if (key_is(m, "path") || key_is(m, "url")) {
            bool url = key_is(m, "url");
            if (s->written) return FAIL(p, m->value, "a source has one path or url, not both");
            rc = want_string(p, m->value, url ? "url" : "path", &s->written);
            if (rc) return rc;
            if (url && !is_url(s->written))
                return FAIL(p, m->value, "'url' must start with http:// or https://, got '%s'",
                            s->written);
            if (!url && is_url(s->written))
                return FAIL(p, m->value, "'%s' is a URL: write it as url: %s", s->written,
                            s->written);
            s->kind = url                        ? REGISTRY_SOURCE_URL
                      : has_wildcard(s->written) ? REGISTRY_SOURCE_GLOB
                                                 : REGISTRY_SOURCE_PATH;
        } else if (key_is(m, "id")) {
            id_node = m->value;
            rc = want_string(p, m->value, "id", &s->id);
            if (!rc && !valid_id(s->id))
                return FAIL(p, m->value,
                            "'id' must be 1 to %d characters of a-z, 0-9, '.', '_' or '-' "
                            "starting and ending with a letter or digit, got '%s'",
                            REGISTRY_MAX_ID, s->id);
        } else if (key_is(m, "tags")) {
            rc = parse_tags(p, m->value, s);
        } else if (key_is(m, "server")) {
            rc = want_string(p, m->value, "server", &server);
            if (!rc && !is_url(server))
                return FAIL(p, m->value, "'server' must be an http:// or https:// URL, got '%s'",
                            server);
        } else if (key_is(m, "auth")) {
            auth = m->value;
        } else {
            rc = unknown_key(p, m, "a source", source_keys);
        }
        if (rc) return rc;
    }
    if (!s->written) return FAIL(p, v, "a source needs a path or a url");
    if (s->id && s->kind == REGISTRY_SOURCE_GLOB)
        return FAIL(p, id_node, "an id names one document, and '%s' is a glob", s->written);
    s->resolved = resolve_source(p, s->written);
    if (!s->resolved) return core_error_set(p->err, APIDEX_ENOMEM, "out of memory");
    if (server || auth) {
        core_buf b;
        core_buf_init(&b, 0);
        core_buf_putc(&b, '{');
        if (server) {
            core_buf_puts(&b, "\"server\":");
            core_buf_json_str(&b, server, strlen(server));
        }
        int rc = auth ? parse_auth(p, auth, &b) : 0;
        core_buf_putc(&b, '}');
        if (!rc && b.failed) rc = core_error_set(p->err, APIDEX_ENOMEM, "out of memory");
        /* without a server the object starts with ",": drop it */
        if (!rc) {
            const char *json = b.data;
            if (!server) {
                s->overrides = core_arena_printf(p->rf->arena, "{%s", json + 2);
            } else {
                s->overrides = core_arena_strdup(p->rf->arena, json);
            }
            if (!s->overrides) rc = core_error_set(p->err, APIDEX_ENOMEM, "out of memory");
        }
        core_buf_free(&b);
        if (rc) return rc;
    }
    return 0;
}

/* ---------------------------------------------------------------- the file */

static int parse_sources(parser *p, const jt_node *v)
{
    if (!jt_is(v, JT_ARRAY))
        return FAIL(p, v, "'sources' must be a list of paths, globs or URLs, got %s", type_name(v));
    if (!v->len) return FAIL(p, v, "'sources' is empty: list the API documents to index");
    registry_file *rf = p->rf;
    rf->sources = core_arena_calloc(rf->arena, v->len, sizeof *rf->sources);
    if (!rf->sources) return core_error_set(p->err, APIDEX_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < v->len; i++) {
        registry_source *s = &rf->sources[rf->n_sources];
        int rc = parse_source(p, v->u.items[i], s);
        if (rc) return rc;
        for (size_t k = 0; s->id && k < rf->n_sources; k++)
            if (rf->sources[k].id && !strcmp(rf->sources[k].id, s->id))
                return fail_at(p, APIDEX_EINVAL, s->line, s->col,
                               "id '%s' is already used by the source at line %u", s->id,
                               rf->sources[k].line);
        rf->n_sources++;
    }
    return 0;
}

static int parse_top(parser *p, const jt_node *root)
{
    if (!root || root->type == JT_NULL)
        return fail_at(p, APIDEX_EINVAL, 1, 1,
                       "the registry file is empty: expected a mapping with 'sources:'");
    if (!jt_is(root, JT_OBJECT))
        return FAIL(p, root, "the registry file must be a mapping with 'sources:', got %s",
                    type_name(root));
    registry_file *rf = p->rf;
    const jt_node *sources = NULL;
    for (uint32_t i = 0; i < root->len; i++) {
        const jt_member *m = &root->u.members[i];
        const jt_node *v = m->value;
        int rc = 0;
        if (key_is(m, "version")) {
            if (!jt_is(v, JT_INT) || v->u.i != 1)
                return FAIL(p, v, "'version' must be 1 (the only version of this format)");
        } else if (key_is(m, "db")) {
            const char *db = NULL;
            rc = want_string(p, v, "db", &db);
            if (!rc && !(rf->db = resolve(p, db)))
                rc = core_error_set(p->err, APIDEX_ENOMEM, "out of memory");
        } else if (key_is(m, "strategy")) {
            rc = want_string(p, v, "strategy", &rf->strategy);
            if (!rc) {
                chunk_options copt;
                apidex_error e;
                core_error_clear(&e);
                if (build_strategy_parse(rf->strategy, &copt, NULL, &e))
                    return FAIL(p, v, "%s", e.message);
            }
        } else if (key_is(m, "filters")) {
            rc = want_string(p, v, "filters", &rf->filters);
            unsigned bits = 0;
            apidex_error e;
            core_error_clear(&e);
            if (!rc && prep_parse_filters(rf->filters, &bits, &e))
                return FAIL(p, v, "%s", e.message);
        } else if (key_is(m, "sources")) {
            sources = v;
        } else {
            rc = unknown_key(p, m, "the registry file", top_keys);
        }
        if (rc) return rc;
    }
    if (!sources) return FAIL(p, root, "the registry file has no 'sources:' list");
    return parse_sources(p, sources);
}

int registry_file_parse(const char *text, size_t len, const char *path, registry_file **out,
                        apidex_error *err)
{
    *out = NULL;
    if (!path) path = REGISTRY_DEFAULT_FILE;
    registry_file *rf = calloc(1, sizeof *rf);
    core_arena *arena = core_arena_new(0);
    char *copy = malloc(len + 1);
    if (!rf || !arena || !copy) {
        free(rf);
        free(copy);
        core_arena_free(arena);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    rf->arena = arena;
    rf->path = core_arena_strdup(arena, path);
    const char *slash = strrchr(path, '/');
    parser p = {.path = rf->path, .rf = rf, .err = err};
    p.base = slash ? core_arena_strndup(arena, path, (size_t)(slash - path) + 1) : "";
    /* nothing but blanks and comments: say what the file needs (the parser would say
       "empty document") */
    bool blank = true;
    for (size_t i = 0; i < len && blank; i++) {
        if (text[i] == '#')
            while (i < len && text[i] != '\n') i++;
        else if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
            blank = false;
    }
    if (blank) {
        free(copy);
        parse_top(&p, NULL);
        registry_file_free(rf);
        return APIDEX_EINVAL;
    }
    jt_doc *doc = NULL;
    jt_limits lim = {.max_bytes = REGISTRY_MAX_BYTES, .max_depth = 64, .max_nodes = 1000000};
    int rc = jt_doc_parse(copy, len, rf->path, &lim, &doc, err); /* takes copy */
    if (rc) {
        if (err && !err->file[0]) core_error_at(err, rf->path, 0, 0, NULL);
        registry_file_free(rf);
        return rc == APIDEX_ENOMEM ? rc : APIDEX_EINVAL;
    }
    p.doc = doc;
    rc = !rf->path || !p.base ? core_error_set(err, APIDEX_ENOMEM, "out of memory")
                              : parse_top(&p, doc->root);
    jt_doc_free(doc); /* every string kept was copied into the arena */
    if (rc) {
        registry_file_free(rf);
        return rc;
    }
    *out = rf;
    return 0;
}

int registry_file_load(const char *path, registry_file **out, apidex_error *err)
{
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    int rc = core_file_read(path, REGISTRY_MAX_BYTES, &text, &len, err);
    if (rc) {
        if (err && !err->file[0]) core_error_at(err, path, 0, 0, NULL);
        return rc;
    }
    rc = registry_file_parse(text, len, path, out, err);
    free(text);
    return rc;
}

int registry_file_from_paths(const char *const *paths, size_t n, registry_file **out,
                             apidex_error *err)
{
    *out = NULL;
    registry_file *rf = calloc(1, sizeof *rf);
    if (rf) rf->arena = core_arena_new(0);
    if (rf && rf->arena) rf->sources = core_arena_calloc(rf->arena, n + 1, sizeof *rf->sources);
    if (!rf || !rf->arena || !rf->sources) {
        registry_file_free(rf);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    rf->path = "command line";
    for (size_t i = 0; i < n; i++) {
        registry_source *s = &rf->sources[rf->n_sources++];
        s->written = s->resolved = core_arena_strdup(rf->arena, paths[i]);
        if (!s->written) {
            registry_file_free(rf);
            return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        }
        s->kind = is_url(paths[i])         ? REGISTRY_SOURCE_URL
                  : has_wildcard(paths[i]) ? REGISTRY_SOURCE_GLOB
                                           : REGISTRY_SOURCE_PATH;
    }
    *out = rf;
    return 0;
}

void registry_file_free(registry_file *rf)
{
    if (!rf) return;
    core_arena_free(rf->arena);
    free(rf);
}

const char *registry_file_path(const char *flag)
{
    if (flag && *flag) return flag;
    const char *env = getenv("APIDEX_REGISTRY");
    return env && *env ? env : REGISTRY_DEFAULT_FILE;
}
