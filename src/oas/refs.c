/*
 * $ref resolution: one iterative walk per loaded document records every
 * reference site and loads the files they name; then ref → ref chains are
 * followed once (loops and over-long chains marked), so spec_deref is a look-up.
 */
#include "oas/oas_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* doc_by_path values that are not documents */
#define DOC_MISSING ((size_t)-1)
#define DOC_REFUSED ((size_t)-2)

/* ---------------------------------------------------------------- keyword rules */

#define KEY_IS(s) (key_len == sizeof(s) - 1 && memcmp(key, s, sizeof(s) - 1) == 0)

uint8_t spec_child_ctx(uint8_t ctx, const char *key, uint32_t key_len, const jt_node *child)
{
    if (!child || (child->type != JT_OBJECT && child->type != JT_ARRAY)) return SPEC_CTX_SKIP;
    if (ctx & SPEC_CTX_NAMES) return (ctx & SPEC_CTX_EXAMPLE_MAP) ? SPEC_CTX_EXAMPLE_OBJ : 0;
    const uint8_t names = child->type == JT_OBJECT ? SPEC_CTX_NAMES : 0;
    switch (key_len) {
    case 4:
        if (KEY_IS("enum")) return SPEC_CTX_SKIP;
        break;
    case 5:
        if (KEY_IS("value") && (ctx & SPEC_CTX_EXAMPLE_OBJ)) return SPEC_CTX_SKIP;
        if (KEY_IS("const")) return SPEC_CTX_SKIP;
        if (KEY_IS("paths") || KEY_IS("$defs") || KEY_IS("links")) return names;
        break;
    case 6:
        if (KEY_IS("scopes")) return names;
        break;
    case 7:
        if (KEY_IS("example")) {
            /* data, except a lone {"$ref": "..."}, which authors use to keep examples in
               files of their own (DigitalOcean): followed, but never taken for a schema */
            const jt_member *m =
                child->type == JT_OBJECT && child->len == 1 ? child->u.members : NULL;
            return m && m->key_len == 4 && !memcmp(m->key, "$ref", 4) && jt_str(m->value)
                       ? SPEC_CTX_DATA_REF
                       : SPEC_CTX_SKIP;
        }
        if (KEY_IS("default")) return SPEC_CTX_SKIP;
        if (KEY_IS("schemas") || KEY_IS("headers") || KEY_IS("content") || KEY_IS("mapping"))
            return names;
        break;
    case 8:
        if (KEY_IS("examples"))
            return child->type == JT_OBJECT ? SPEC_CTX_NAMES | SPEC_CTX_EXAMPLE_MAP : SPEC_CTX_SKIP;
        if (KEY_IS("webhooks") || KEY_IS("encoding")) return names;
        break;
    case 9:
        if (KEY_IS("responses") || KEY_IS("callbacks") || KEY_IS("pathItems") ||
            KEY_IS("variables"))
            return names;
        break;
    case 10:
        if (KEY_IS("properties") || KEY_IS("parameters")) return names;
        break;
    case 11:
        if (KEY_IS("definitions")) return names;
        break;
    case 13:
        if (KEY_IS("requestBodies")) return names;
        break;
    case 15:
        if (KEY_IS("securitySchemes")) return names;
        break;
    case 16:
        if (KEY_IS("dependentSchemas")) return names;
        break;
    case 17:
        if (KEY_IS("patternProperties")) return names;
        break;
    case 19:
        if (KEY_IS("securityDefinitions")) return names;
        break;
    default:
        break;
    }
    return 0;
}

const jt_node *spec_walk_child(const jt_node *node, uint32_t i, uint8_t ctx, uint8_t *cctx)
{
    if (node->type == JT_OBJECT) {
        const jt_member *m = &node->u.members[i];
        *cctx = spec_child_ctx(ctx, m->key, m->key_len, m->value);
        return m->value;
    }
    const jt_node *child = node->u.items[i];
    *cctx = child && (child->type == JT_OBJECT || child->type == JT_ARRAY) ? 0 : SPEC_CTX_SKIP;
    return child;
}

const char *spec_ref_of(const jt_node *obj)
{
    /* see enter_object: a string "$ref" is a reference in every context */
    if (!obj || obj->type != JT_OBJECT) return NULL;
    return jt_str(jt_getn(obj, "$ref", 4));
}

/* ---------------------------------------------------------------- helpers */

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

char *spec_percent_decode(core_arena *a, const char *s, size_t n)
{
    char *out = core_arena_alloc(a, n + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int h, l;
        if (s[i] == '%' && i + 2 < n && (h = hexval(s[i + 1])) >= 0 &&
            (l = hexval(s[i + 2])) >= 0) {
            out[o++] = (char)(h * 16 + l);
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    return out;
}

/* ---------------------------------------------------------------- the walk */

typedef struct rframe {
    const jt_node *node;
    uint32_t next;
    uint8_t ctx;
} rframe;

typedef struct resolver {
    spec_api_int *ai;
    const spec_doc *doc;
    rframe *st;
    size_t n, cap;
    core_buf ptr;        /* scratch: JSON pointers for diagnostics */
    core_buf path;       /* scratch: joined file paths */
    const char *map_key; /* the discriminator mapping key being resolved, or NULL */
    core_buf key;        /* scratch: cache keys */
    spec_strmap cache;   /* (document, kind, reference) → a resolved entry with the same target */
} resolver;

/* The JSON pointer of the node on top of the stack (plus an optional suffix). */
static const char *stack_pointer(resolver *r, const char *k1, const char *k2, const char *k3)
{
    core_buf_reset(&r->ptr);
    for (size_t k = 1; k < r->n; k++) {
        const jt_node *p = r->st[k - 1].node;
        uint32_t i = r->st[k - 1].next - 1;
        if (p->type == JT_OBJECT)
            jt_pointer_append(&r->ptr, p->u.members[i].key, p->u.members[i].key_len);
        else
            core_buf_printf(&r->ptr, "/%u", i);
    }
    if (k1) jt_pointer_append(&r->ptr, k1, strlen(k1));
    if (k2) jt_pointer_append(&r->ptr, k2, strlen(k2));
    if (k3) jt_pointer_append(&r->ptr, k3, strlen(k3));
    if (r->ptr.failed || !r->ptr.data) return "";
    return r->ptr.data;
}

static bool has_scheme(const char *s, size_t n)
{
    if (n < 2 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return false;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (c == ':') return i >= 2; /* "c:" is a drive letter, not a scheme */
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '-' || c == '.'))
            return false;
    }
    return false;
}

static bool host_allowed(const spec_api_int *ai, const char *host)
{
    if (!host) return false;
    if (ai->root_host && strcasecmp(ai->root_host, host) == 0) return true;
    const char *const *list = ai->set->opt.remote_hosts;
    for (size_t i = 0; list && list[i]; i++)
        if (strcmp(list[i], "*") == 0 || strcasecmp(list[i], host) == 0) return true;
    return false;
}

/* The JSON pointer of the reference being resolved (built only for diagnostics). */
static const char *site_ptr(resolver *r)
{
    return r->map_key ? stack_pointer(r, "discriminator", "mapping", r->map_key)
                      : stack_pointer(r, NULL, NULL, NULL);
}

static const spec_doc *open_remote(resolver *r, const char *url, const jt_node *site)
{
    spec_api_int *ai = r->ai;
    if (!ai->set->opt.allow_remote_refs) {
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_EREF, r->doc, site, site_ptr(r),
                  "remote $ref '%s' not followed: remote references are off", url);
        return NULL;
    }
    size_t idx;
    if (spec_strmap_get(&ai->doc_by_path, url, strlen(url), &idx) && idx < ai->n_docs)
        return ai->docs[idx];
    char *host = spec_url_host(url);
    bool ok = host_allowed(ai, host);
    if (!ok) {
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_ENET, r->doc, site, site_ptr(r),
                  "remote $ref '%s' refused: host '%s' is not in the allow-list", url,
                  host ? host : "?");
        free(host);
        return NULL;
    }
    free(host);
    return spec_doc_open(ai, url, true, NULL, r->doc, site_ptr(r));
}

/*
 * base + "/" + rel with "." and ".." removed. base is a realpath (no symlinks), so a
 * ".." that climbs out of it is exact; one that would cancel a name written in rel is
 * not (that name may be a symlink): then false, and the caller leaves it to realpath.
 */
static bool lexical_join(const char *base, const char *rel, core_buf *out)
{
    core_buf_reset(out);
    if (rel[0] != '/') core_buf_puts(out, strcmp(base, "/") ? base : "");
    size_t from_rel = 0;
    const char *p = rel;
    while (*p) {
        while (*p == '/') p++;
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 0 || (n == 1 && p[0] == '.')) {
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (from_rel) return false;
            char *d = out->data ? out->data : NULL;
            char *slash = d ? strrchr(d, '/') : NULL;
            if (slash) {
                out->len = (size_t)(slash - d);
                d[out->len] = '\0';
            }
        } else {
            core_buf_putc(out, '/');
            core_buf_append(out, p, n);
            from_rel++;
        }
        p += n;
    }
    return !out->failed && out->len > 0;
}

/*
 * The realpath of a file, with the realpath of its directory cached: a spec of
 * thousands of files lives in a few hundred directories, and realpath costs a
 * readlink per path component. false when the file does not exist.
 */
static bool file_realpath(spec_api_int *ai, const char *path, char out[PATH_MAX])
{
    const char *slash = strrchr(path, '/');
    if (!slash) return realpath(path, out) != NULL;
    size_t dl = slash == path ? 1 : (size_t)(slash - path);
    size_t cached;
    const char *dir_real;
    if (spec_strmap_get(&ai->dir_real, path, dl, &cached)) {
        dir_real = (const char *)(uintptr_t)cached;
    } else {
        char buf[PATH_MAX];
        char *dir = core_arena_strndup(ai->arena, path, dl);
        dir_real = dir && realpath(dir, buf) ? core_arena_strdup(ai->arena, buf) : NULL;
        if (spec_strmap_put(&ai->dir_real, path, dl, (size_t)(uintptr_t)dir_real)) return false;
    }
    if (!dir_real) return false;
    int n = snprintf(out, PATH_MAX, "%s/%s", strcmp(dir_real, "/") ? dir_real : "", slash + 1);
    if (n < 0 || n >= PATH_MAX) return false;
    struct stat st;
    if (lstat(out, &st) != 0) return false;
    if (S_ISLNK(st.st_mode)) {
        char buf[PATH_MAX];
        if (!realpath(out, buf)) return false;
        memcpy(out, buf, strlen(buf) + 1);
        if (stat(out, &st) != 0) return false;
    }
    return S_ISREG(st.st_mode);
}

/* The document a reference's URI part names (loading it if needed), or NULL (diagnosed). */
static const spec_doc *open_uri(resolver *r, const char *uri, size_t ulen, const jt_node *site)
{
    spec_api_int *ai = r->ai;
    char *u = core_arena_strndup(ai->arena, uri, ulen);
    if (!u) return NULL;
    if (has_scheme(u, ulen)) {
        if (strncasecmp(u, "http://", 7) == 0 || strncasecmp(u, "https://", 8) == 0)
            return open_remote(r, u, site);
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_EREF, r->doc, site, site_ptr(r),
                  "$ref '%s' not followed: only relative files and http(s) are supported", u);
        return NULL;
    }
    if (r->doc->remote) {
        char *abs = spec_url_join(r->doc->dir, u);
        if (!abs) {
            spec_diag(ai, CORE_DIAG_WARNING, APIDEX_EREF, r->doc, site, site_ptr(r),
                      "$ref '%s' is not a valid URL reference", u);
            return NULL;
        }
        const spec_doc *d = open_remote(r, abs, site);
        free(abs);
        return d;
    }
    if (ai->no_files) {
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_EREF, r->doc, site, site_ptr(r),
                  "file $ref '%s' not followed: the document was loaded without a directory", u);
        return NULL;
    }
    char *path = spec_percent_decode(ai->arena, u, ulen);
    if (!path) return NULL;
    const char *key;
    if (lexical_join(r->doc->dir, path, &r->path)) {
        key = r->path.data;
    } else {
        key = path[0] == '/' ? path : core_arena_printf(ai->arena, "%s/%s", r->doc->dir, path);
        if (!key) return NULL;
    }
    size_t idx;
    if (spec_strmap_get(&ai->doc_by_path, key, strlen(key), &idx)) {
        if (idx < ai->n_docs) return ai->docs[idx];
    } else {
        char real[PATH_MAX];
        if (!file_realpath(ai, key, real)) {
            idx = DOC_MISSING;
        } else {
            size_t rl = strlen(ai->root_dir);
            bool inside = (rl == 1 && ai->root_dir[0] == '/') ||
                          (strncmp(real, ai->root_dir, rl) == 0 && real[rl] == '/');
            if (!inside) {
                idx = DOC_REFUSED;
            } else {
                spec_doc *d = spec_doc_open(ai, real, false, NULL, r->doc, site_ptr(r));
                if (!d) return NULL;
                idx = d->index;
            }
        }
        if (spec_strmap_put(&ai->doc_by_path, key, strlen(key), idx)) return NULL;
        if (idx < ai->n_docs) return ai->docs[idx];
    }
    if (idx == DOC_REFUSED)
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_EREF, r->doc, site, site_ptr(r),
                  "$ref '%s' refused: it leaves the directory of the root document", u);
    else
        spec_diag(ai, CORE_DIAG_WARNING, APIDEX_EREF, r->doc, site, site_ptr(r),
                  "$ref '%s' is dangling: file not found", u);
    return NULL;
}

static bool looks_like_file(const char *s)
{
    const char *dot = strrchr(s, '.');
    return dot &&
           (!strcasecmp(dot, ".json") || !strcasecmp(dot, ".yaml") || !strcasecmp(dot, ".yml"));
}

/* Records one reference site (a $ref object, or a discriminator mapping value). */
static int resolve_site(resolver *r, const jt_node *site, const char *ref, const char *map_key)
{
    spec_api_int *ai = r->ai;
    if (spec_ptrmap_get(&ai->ref_by_site, site, NULL)) return 0; /* shared (YAML alias) */
    if (core_array_grow(&ai->refs, &ai->cap_refs, ai->n_refs, sizeof *ai->refs, 256))
        return APIDEX_ENOMEM;
    spec_refent *e = &ai->refs[ai->n_refs];
    memset(e, 0, sizeof *e);
    e->site = site;
    e->site_doc = r->doc;
    e->ref = ref;
    e->status = APIDEX_EREF;
    /* The same reference written again in the same document lands on the same node:
       resolved ones are remembered by (document, kind, string). */
    core_buf_reset(&r->key);
    core_buf_append(&r->key, &r->doc->index, sizeof r->doc->index);
    core_buf_putc(&r->key, map_key ? 'm' : 'r');
    core_buf_puts(&r->key, ref);
    size_t prev;
    if (!r->key.failed && spec_strmap_get(&r->cache, r->key.data, r->key.len, &prev)) {
        e->hop = ai->refs[prev].hop;
        e->hop_ptr = ai->refs[prev].hop_ptr;
        e->status = 0;
        if (spec_ptrmap_put(&ai->ref_by_site, site, ai->n_refs)) return APIDEX_ENOMEM;
        ai->n_refs++;
        return 0;
    }
    /* the pointer is built only when something goes wrong */
    r->map_key = map_key;
#define SITE_PTR() site_ptr(r)
    const char *hash = strchr(ref, '#');
    size_t ulen = hash ? (size_t)(hash - ref) : strlen(ref);
    const char *frag = hash ? hash + 1 : "";
    char *name_ptr = NULL;
    if (map_key && !hash && !strchr(ref, '/') && !looks_like_file(ref)) {
        /* a mapping value that is a bare schema name */
        core_buf b;
        core_buf_init(&b, 1 << 16);
        core_buf_puts(&b, ai->pub.major == 2 ? "/definitions" : "/components/schemas");
        jt_pointer_append(&b, ref, strlen(ref));
        name_ptr = b.failed ? NULL : core_arena_strndup(ai->arena, b.data, b.len);
        core_buf_free(&b);
        if (!name_ptr) return APIDEX_ENOMEM;
        ulen = 0;
    }
    const spec_doc *td = r->doc;
    if (ulen > 0) {
        td = open_uri(r, ref, ulen, site);
        if (td && !td->tree) {
            spec_diag(ai, CORE_DIAG_WARNING, APIDEX_EREF, r->doc, site, SITE_PTR(),
                      "$ref '%s' not resolved: its document could not be loaded", ref);
            td = NULL;
        }
    }
    if (td) {
        char *fp = name_ptr ? name_ptr : spec_percent_decode(ai->arena, frag, strlen(frag));
        if (!fp) return APIDEX_ENOMEM;
        if (*fp && *fp != '/') {
            spec_diag(ai, CORE_DIAG_WARNING, APIDEX_EREF, r->doc, site, SITE_PTR(),
                      "$ref '%s' not resolved: the fragment is not a JSON pointer", ref);
        } else {
            const jt_node *t = jt_pointer(td->tree->root, fp);
            if (!t) {
                spec_diag(ai, CORE_DIAG_WARNING, APIDEX_EREF, r->doc, site, SITE_PTR(),
                          "$ref '%s' is dangling: nothing at '%s' in %s", ref, fp, td->file);
            } else {
                e->hop = (spec_loc){t, td};
                e->hop_ptr = fp;
                e->status = 0;
            }
        }
    }
#undef SITE_PTR
    if (!e->status && !r->key.failed &&
        spec_strmap_put(&r->cache, r->key.data, r->key.len, ai->n_refs))
        return APIDEX_ENOMEM;
    if (spec_ptrmap_put(&ai->ref_by_site, site, ai->n_refs)) return APIDEX_ENOMEM;
    ai->n_refs++;
    return 0;
}

/* Looks at one object as it is entered: a reference? a discriminator mapping? */
static int enter_object(resolver *r, const jt_node *obj, uint8_t ctx)
{
    if (ctx & SPEC_CTX_NAMES) {
        /* A map of names whose "$ref" is a string is a reference to the whole map (seen
           as `properties: {$ref: ...}`): a property called "$ref" would be an object. */
        const char *ref = jt_str(jt_getn(obj, "$ref", 4));
        return ref ? resolve_site(r, obj, ref, NULL) : 0;
    }
    for (uint32_t i = 0; i < obj->len; i++) {
        const jt_member *m = &obj->u.members[i];
        if (m->key_len == 4 && memcmp(m->key, "$ref", 4) == 0) {
            const char *ref = jt_str(m->value);
            if (ref) {
                int rc = resolve_site(r, obj, ref, NULL);
                if (rc) return rc;
            }
        } else if (m->key_len == 13 && memcmp(m->key, "discriminator", 13) == 0) {
            const jt_node *map = jt_get(m->value, "mapping");
            if (!map || map->type != JT_OBJECT) continue;
            for (uint32_t j = 0; j < map->len; j++) {
                const jt_node *v = map->u.members[j].value;
                if (!v || v->type != JT_STRING) continue;
                int rc = resolve_site(r, v, v->u.s, map->u.members[j].key);
                if (rc) return rc;
            }
        }
    }
    return 0;
}

static int push_frame(resolver *r, const jt_node *n, uint8_t ctx)
{
    if (core_array_grow(&r->st, &r->cap, r->n, sizeof *r->st, 64)) return APIDEX_ENOMEM;
    r->st[r->n++] = (rframe){n, 0, ctx};
    return n->type == JT_OBJECT ? enter_object(r, n, ctx) : 0;
}

static int walk_doc(resolver *r, const spec_doc *doc)
{
    r->doc = doc;
    r->n = 0;
    const jt_node *root = doc->tree->root;
    if (!root || (root->type != JT_OBJECT && root->type != JT_ARRAY)) return 0;
    int rc = push_frame(r, root, 0);
    while (!rc && r->n) {
        rframe *f = &r->st[r->n - 1];
        const jt_node *node = f->node;
        if (f->next >= node->len) {
            r->n--;
            continue;
        }
        uint32_t i = f->next++;
        uint8_t cctx;
        const jt_node *child = spec_walk_child(node, i, f->ctx, &cctx);
        if (cctx == SPEC_CTX_SKIP) continue;
        rc = push_frame(r, child, cctx);
    }
    return rc;
}

/* ---------------------------------------------------------------- chains */

static void chain_diag(spec_api_int *ai, const spec_refent *e, core_diag_level level, int code,
                       const char *fmt, const char *ref, unsigned n)
{
    char msg[768];
    snprintf(msg, sizeof msg, fmt, ref, n);
    spec_diag(ai, level, code, e->site_doc, e->site, NULL, "%s", msg);
}

/* Follows every ref → ref chain once; each entry ends with its final target or a status. */
static int finish_chains(spec_api_int *ai)
{
    size_t cap = 64, n;
    size_t *stack = malloc(cap * sizeof *stack);
    if (!stack) return APIDEX_ENOMEM;
    unsigned max = ai->set->opt.max_ref_chain;
    for (size_t i = 0; i < ai->n_refs; i++) {
        if (ai->refs[i].state == SPEC_REF_DONE) continue;
        n = 0;
        size_t cur = i;
        spec_loc final = {0};
        const char *final_ptr = NULL;
        int status = 0;
        unsigned tail = 0;
        size_t cycle_at = SIZE_MAX;
        for (;;) {
            spec_refent *e = &ai->refs[cur];
            if (e->state == SPEC_REF_DONE) {
                final = e->final;
                final_ptr = e->final_ptr;
                status = e->status;
                tail = e->hops;
                break;
            }
            if (e->state == SPEC_REF_ACTIVE) {
                status = APIDEX_EREF;
                for (size_t k = n; k-- > 0;)
                    if (stack[k] == cur) {
                        cycle_at = k;
                        break;
                    }
                break;
            }
            e->state = SPEC_REF_ACTIVE;
            if (n == cap) {
                size_t *s = realloc(stack, cap * 2 * sizeof *s);
                if (!s) {
                    free(stack);
                    return APIDEX_ENOMEM;
                }
                stack = s;
                cap *= 2;
            }
            stack[n++] = cur;
            if (e->status) {
                status = e->status;
                break;
            }
            size_t next;
            if (!spec_ptrmap_get(&ai->ref_by_site, e->hop.node, &next)) {
                final = e->hop;
                final_ptr = e->hop_ptr;
                break;
            }
            cur = next;
        }
        bool reported_limit = false;
        for (size_t k = 0; k < n; k++) {
            spec_refent *e = &ai->refs[stack[k]];
            bool own_status = e->status != 0; /* dangling: already reported */
            e->state = SPEC_REF_DONE;
            e->hops = (unsigned)(n - k) + tail;
            if (own_status) continue;
            if (status) {
                e->status = status;
                e->final = (spec_loc){0};
                if (cycle_at != SIZE_MAX && k >= cycle_at)
                    chain_diag(ai, e, CORE_DIAG_WARNING, APIDEX_EREF,
                               "$ref '%s' is circular: the chain of %u reference(s) comes back "
                               "to itself",
                               e->ref, (unsigned)(n - cycle_at));
            } else if (e->hops > max) {
                e->status = APIDEX_ELIMIT;
                e->final = (spec_loc){0};
                if (!reported_limit) {
                    reported_limit = true;
                    chain_diag(ai, e, CORE_DIAG_ERROR, APIDEX_ELIMIT,
                               "$ref '%s' starts a chain of more than %u references (the limit)",
                               e->ref, max);
                }
            } else {
                e->final = final;
                e->final_ptr = final_ptr;
            }
        }
    }
    free(stack);
    return 0;
}

int spec_resolve_all(spec_api_int *ai)
{
    resolver r = {.ai = ai};
    core_buf_init(&r.ptr, 1 << 20);
    core_buf_init(&r.path, PATH_MAX);
    core_buf_init(&r.key, 1 << 20);
    int rc = 0;
    /* documents loaded by the walk are appended and walked in turn */
    for (size_t i = 0; i < ai->n_docs && !rc; i++)
        if (ai->docs[i]->tree) rc = walk_doc(&r, ai->docs[i]);
    free(r.st);
    core_buf_free(&r.ptr);
    core_buf_free(&r.path);
    core_buf_free(&r.key);
    spec_strmap_free(&r.cache);
    if (!rc) rc = finish_chains(ai);
    return rc;
}

const spec_refent *spec_ref_lookup(const spec_api_int *ai, const jt_node *site)
{
    size_t idx;
    if (!spec_ptrmap_get(&ai->ref_by_site, site, &idx)) return NULL;
    return &ai->refs[idx];
}

/* ---------------------------------------------------------------- public look-ups */

int spec_deref(const spec_api *api, spec_loc loc, spec_loc *out)
{
    *out = loc;
    if (!api || !loc.node || loc.node->type != JT_OBJECT) return 0;
    const spec_refent *e = spec_ref_lookup(spec_api_priv(api), loc.node);
    if (!e) return 0;
    if (e->status || !e->final.node) return APIDEX_EREF;
    *out = e->final;
    return 0;
}

const char *spec_ref_target(spec_loc loc)
{
    return spec_ref_of(loc.node);
}
