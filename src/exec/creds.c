/*
 * Credentials for a call: the operation's effective security requirements (OR of ANDs)
 * against the spec's security schemes, each credential found in, first to last:
 *
 *   1. the environment: APIDEX_AUTH_<API>_<SCHEME> (the API id and scheme name upper-cased,
 *      every other character '_'): the API key, bearer token, OAuth2 access token, or
 *      "user:password" for basic; for basic also ..._USERNAME and ..._PASSWORD, for OAuth2
 *      client credentials ..._CLIENT_ID, ..._CLIENT_SECRET (and ..._SCOPE);
 *   2. the registry file's auth override of the API (docs/REGISTRY.md): scheme -> the
 *      variable holding it, or -> {username: VAR, password: VAR};
 *   3. the credentials file ($APIDEX_CREDENTIALS, else ~/.config/apidex/credentials.yaml):
 *      API id -> scheme -> the value, or -> {username, password} / {client_id,
 *      client_secret, scope} / {token}. It must be mode 0600 or stricter.
 *
 * Every value put into the request is listed in exec_request.secrets (and its encoded forms),
 * so exec_mask hides it wherever the request is shown.
 */
#include "exec/exec_int.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

typedef struct cred {
    const char *value;              /* key, token, or "user:password" */
    const char *user, *pass;        /* basic in two parts */
    const char *client_id, *secret; /* OAuth2 client credentials */
    const char *scope;
    const char *var, *var_user, *var_pass; /* variables named for placeholders */
} cred;

typedef struct creds_ctx {
    const spec_api *api;
    const exec_build_options *opt;
    exec_request *r;
    jt_doc *file; /* the credentials file, read on first need */
    bool file_read;
    json_object *overrides; /* the "auth" object of the registry's overrides */
    apidex_error *err;
} creds_ctx;

const char *exec_creds_env_name(const char *api_id, const char *scheme, const char *suffix,
                                core_arena *arena)
{
    char *s = core_arena_printf(arena, "APIDEX_AUTH_%s_%s%s%s", api_id, scheme, suffix ? "_" : "",
                                suffix ? suffix : "");
    for (char *p = s; p && *p; p++)
        *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    return s;
}

static int base64(core_buf *b, const char *s, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)u[i] << 16 | (i + 1 < n ? (unsigned)u[i + 1] << 8 : 0) |
                     (i + 2 < n ? u[i + 2] : 0);
        char q[4] = {t[v >> 18 & 63], t[v >> 12 & 63], i + 1 < n ? t[v >> 6 & 63] : '=',
                     i + 2 < n ? t[v & 63] : '='};
        if (core_buf_append(b, q, 4)) return APIDEX_ENOMEM;
    }
    return 0;
}

/* ---------------------------------------------------------------- the credentials file */

static const char *file_path(creds_ctx *c)
{
    if (c->opt->credentials_file) return c->opt->credentials_file;
    const char *e = getenv("APIDEX_CREDENTIALS");
    if (e && *e) return e;
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && *xdg) return core_arena_printf(c->r->arena, "%s/apidex/credentials.yaml", xdg);
    if (home && *home)
        return core_arena_printf(c->r->arena, "%s/.config/apidex/credentials.yaml", home);
    return NULL;
}

/* Reads the credentials file once; a missing default file is no error, a named one is. */
static int load_file(creds_ctx *c)
{
    if (c->file_read) return 0;
    c->file_read = true;
    const char *path = file_path(c);
    bool named =
        c->opt->credentials_file || (getenv("APIDEX_CREDENTIALS") && *getenv("APIDEX_CREDENTIALS"));
    struct stat st;
    if (!path || stat(path, &st) != 0) {
        if (named)
            return core_error_set(c->err, APIDEX_EINVAL, "credentials file %s: not found",
                                  path ? path : "");
        return 0;
    }
    if (!S_ISREG(st.st_mode))
        return core_error_set(c->err, APIDEX_EINVAL, "credentials file %s is not a regular file",
                              path);
    if (st.st_mode & 077)
        return core_error_set(c->err, APIDEX_EINVAL,
                              "credentials file %s has mode %04o: it holds secrets, so only its "
                              "owner may read it (mode 0600 or stricter: chmod 600 %s)",
                              path, (unsigned)(st.st_mode & 07777), path);
    apidex_error perr;
    core_error_clear(&perr);
    if (jt_doc_load(path, NULL, &c->file, &perr))
        return core_error_set(c->err, APIDEX_EINVAL,
                              "credentials file %s:%u:%u: not valid YAML or JSON", path, perr.line,
                              perr.col);
    if (!jt_is(c->file->root, JT_OBJECT))
        return core_error_set(c->err, APIDEX_EINVAL,
                              "credentials file %s: expected a mapping of API ids to schemes",
                              path);
    return 0;
}

static const char *copy(creds_ctx *c, const char *s)
{
    return s && *s ? core_arena_strdup(c->r->arena, s) : NULL;
}

/* A variable name the registry may give ([A-Za-z_][A-Za-z0-9_]*, as regfile.c checks): it is
   written into snippets, so anything else is ignored. */
static bool var_name_ok(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return false;
    return true;
}

static const char *env(creds_ctx *c, const char *scheme, const char *suffix)
{
    return copy(c, getenv(exec_creds_env_name(c->api->id, scheme, suffix, c->r->arena)));
}

/* What the three sources hold for scheme; fills *k. Returns 0 or an error (file). */
static int find_cred(creds_ctx *c, const char *scheme, bool basic, cred *k)
{
    memset(k, 0, sizeof *k);
    core_arena *a = c->r->arena;
    k->var = exec_creds_env_name(c->api->id, scheme, NULL, a);
    /* 2's variable names first: a placeholder names the variable the registry chose */
    json_object *o = NULL;
    if (c->overrides && json_object_object_get_ex(c->overrides, scheme, &o)) {
        json_object *u = NULL, *p = NULL;
        if (json_object_is_type(o, json_type_string) && var_name_ok(json_object_get_string(o))) {
            k->var = copy(c, json_object_get_string(o));
        } else if (json_object_object_get_ex(o, "username", &u) &&
                   json_object_object_get_ex(o, "password", &p) &&
                   var_name_ok(json_object_get_string(u)) &&
                   var_name_ok(json_object_get_string(p))) {
            k->var_user = copy(c, json_object_get_string(u));
            k->var_pass = copy(c, json_object_get_string(p));
        }
    }
    if (c->opt->placeholders) return 0;
    /* 1. the environment */
    k->value = env(c, scheme, NULL);
    if (basic) {
        k->user = env(c, scheme, "USERNAME");
        k->pass = env(c, scheme, "PASSWORD");
    }
    k->client_id = env(c, scheme, "CLIENT_ID");
    k->secret = env(c, scheme, "CLIENT_SECRET");
    k->scope = env(c, scheme, "SCOPE");
    if (k->value || (k->user && k->pass) || (k->client_id && k->secret)) return 0;
    /* 2. the registry's override */
    if (o && json_object_is_type(o, json_type_string) && var_name_ok(json_object_get_string(o)))
        k->value = copy(c, getenv(k->var));
    if (k->var_user) k->user = copy(c, getenv(k->var_user));
    if (k->var_pass) k->pass = copy(c, getenv(k->var_pass));
    if (k->value || (k->user && k->pass)) return 0;
    /* 3. the credentials file */
    int rc = load_file(c);
    if (rc || !c->file) return rc;
    const jt_node *e = jt_get(jt_get(c->file->root, c->api->id), scheme);
    if (jt_str(e)) {
        k->value = copy(c, jt_str(e));
    } else if (jt_is(e, JT_OBJECT)) {
        k->value = copy(c, jt_get_str(e, "token"));
        k->user = copy(c, jt_get_str(e, "username"));
        k->pass = copy(c, jt_get_str(e, "password"));
        k->client_id = copy(c, jt_get_str(e, "client_id"));
        k->secret = copy(c, jt_get_str(e, "client_secret"));
        if (!k->scope) k->scope = copy(c, jt_get_str(e, "scope"));
    }
    return 0;
}

/* ---------------------------------------------------------------- applying one scheme */

static const char *placeholder(creds_ctx *c, const char *prefix, const char *var)
{
    return core_arena_printf(c->r->arena, EXEC_PLACEHOLDER "%s%s" EXEC_PLACEHOLDER, prefix, var);
}

static int add_query(creds_ctx *c, const char *name, const char *value)
{
    exec_request *r = c->r;
    core_buf b;
    core_buf_init(&b, 0);
    int rc = core_buf_puts(&b, r->url) || core_buf_putc(&b, strchr(r->url, '?') ? '&' : '?') ||
                     exec_pct_encode(&b, name, strlen(name), false) || core_buf_putc(&b, '=')
                 ? APIDEX_ENOMEM
                 : 0;
    size_t start = b.len;
    if (!rc && c->opt->placeholders)
        rc = core_buf_puts(&b, value) ? APIDEX_ENOMEM : 0;
    else if (!rc)
        rc = exec_pct_encode(&b, value, strlen(value), false);
    if (!rc && !c->opt->placeholders) {
        char *enc = core_arena_strndup(r->arena, b.data + start, b.len - start);
        rc = enc ? exec_request_add_secret(r, enc) : APIDEX_ENOMEM;
    }
    if (!rc) r->url = core_arena_strndup(r->arena, b.data, b.len);
    if (!rc && !r->url) rc = APIDEX_ENOMEM;
    core_buf_free(&b);
    return rc;
}

static int add_cookie(creds_ctx *c, const char *name, const char *value)
{
    exec_request *r = c->r;
    for (size_t i = 0; i < r->n_headers; i++)
        if (!strcasecmp(r->headers[i].name, "Cookie")) {
            /* a new array: exec_creds_apply may restore the old one */
            exec_header *h = core_arena_alloc(r->arena, r->n_headers * sizeof *h);
            if (!h) return APIDEX_ENOMEM;
            memcpy(h, r->headers, r->n_headers * sizeof *h);
            h[i].value = core_arena_printf(r->arena, "%s; %s=%s", h[i].value, name, value);
            h[i].secret = true;
            r->headers = h;
            return h[i].value ? 0 : APIDEX_ENOMEM;
        }
    const char *v = core_arena_printf(r->arena, "%s=%s", name, value);
    return v ? exec_request_add_header(r, "Cookie", v, true) : APIDEX_ENOMEM;
}

/* Puts scheme `name` (its definition s) into the request with credential k. scopes: the
   requirement's scopes joined by spaces. Returns 0, or 1 when k cannot satisfy it (the
   caller notes what is missing), or an error. */
static int apply_one(creds_ctx *c, const char *name, const spec_security_scheme *s, const cred *k,
                     const char *scopes)
{
    exec_request *r = c->r;
    const char *type = s->type;
    const char *http = s->scheme;
    bool ph = c->opt->placeholders;
    if (!type) return 1;
    if (!strcmp(type, "apiKey")) {
        const char *where = s->in, *key = s->param;
        const char *value = ph ? placeholder(c, "", k->var) : k->value;
        if (!value || !where || !key) return 1;
        if (!strcmp(where, "header") && exec_header_forbidden(key)) {
            exec_request_note(r,
                              "security scheme '%s' puts its key into the %s header, which "
                              "apidex never sends from a spec (framing and connection headers "
                              "are written by the transport)",
                              name, key);
            return 1;
        }
        int rc = ph ? 0 : exec_request_add_secret(r, value);
        if (rc) return rc;
        if (!strcmp(where, "header")) return exec_request_add_header(r, key, value, true);
        if (!strcmp(where, "query")) return add_query(c, key, value);
        if (!strcmp(where, "cookie")) return add_cookie(c, key, value);
        return 1;
    }
    bool basic =
        !strcmp(type, "basic") || (!strcmp(type, "http") && http && !strcasecmp(http, "basic"));
    if (basic) {
        const char *v;
        if (ph) {
            v = k->var_user && k->var_pass
                    ? placeholder(
                          c, "b:", core_arena_printf(r->arena, "%s:%s", k->var_user, k->var_pass))
                    : placeholder(c, "b:", k->var);
        } else {
            const char *up = k->user && k->pass
                                 ? core_arena_printf(r->arena, "%s:%s", k->user, k->pass)
                                 : k->value;
            if (!up || !strchr(up, ':')) return 1;
            core_buf b;
            core_buf_init(&b, 0);
            int rc = base64(&b, up, strlen(up));
            const char *b64 = !rc && b.data ? core_arena_strndup(r->arena, b.data, b.len) : NULL;
            core_buf_free(&b);
            if (!b64) return APIDEX_ENOMEM;
            if (exec_request_add_secret(r, b64) || exec_request_add_secret(r, up) ||
                exec_request_add_secret(r, k->pass ? k->pass : strchr(up, ':') + 1))
                return APIDEX_ENOMEM;
            v = b64;
        }
        const char *h = v ? core_arena_printf(r->arena, "Basic %s", v) : NULL;
        return h ? exec_request_add_header(r, "Authorization", h, true) : APIDEX_ENOMEM;
    }
    bool bearer = !strcmp(type, "http") && http && !strcasecmp(http, "bearer");
    bool oauth = !strcmp(type, "oauth2") || !strcmp(type, "openIdConnect");
    if (!bearer && !oauth) {
        exec_request_note(r,
                          "security scheme '%s' (%s%s%s) is not supported: send its "
                          "credential yourself with -p",
                          name, type, http ? " " : "", http ? http : "");
        return 1;
    }
    const char *token = ph ? placeholder(c, "", k->var) : k->value;
    if (!token && oauth && k->client_id && k->secret) {
        const char *url = s->client_credentials_token_url;
        if (!url) {
            exec_request_note(r,
                              "security scheme '%s' has no client-credentials flow: set %s "
                              "to an access token",
                              name, k->var);
            return 1;
        }
        if (exec_request_add_secret(r, k->secret)) return APIDEX_ENOMEM;
        if (!c->opt->token_fn) {
            exec_request_note(r,
                              "security scheme '%s': fetching an OAuth2 token needs the "
                              "transport; set %s to an access token",
                              name, k->var);
            return 1;
        }
        const char *t = NULL;
        apidex_error terr;
        core_error_clear(&terr);
        int rc = c->opt->token_fn(c->opt->token_ctx, url, k->client_id, k->secret,
                                  k->scope ? k->scope : scopes, &t, &terr);
        if (rc || !t) {
            exec_request_note(r, "security scheme '%s': no OAuth2 token from %s: %s", name, url,
                              exec_mask(r, terr.message, r->arena));
            return 1;
        }
        token = t;
    }
    if (!token) return 1;
    if (!ph && exec_request_add_secret(r, token)) return APIDEX_ENOMEM;
    const char *h = core_arena_printf(r->arena, "Bearer %s", token);
    return h ? exec_request_add_header(r, "Authorization", h, true) : APIDEX_ENOMEM;
}

/* ---------------------------------------------------------------- requirements */

/* What a caller sets for scheme `name` to satisfy it, for a note. */
static const char *wanted(creds_ctx *c, const char *name, const spec_security_scheme *s,
                          const cred *k)
{
    const char *type = s->type, *http = s->scheme;
    core_arena *a = c->r->arena;
    const char *id = c->api->id;
    if (type && (!strcmp(type, "basic") || (http && !strcasecmp(http, "basic"))))
        return core_arena_printf(a, "%s (user:password) or %s and %s", k->var,
                                 exec_creds_env_name(id, name, "USERNAME", a),
                                 exec_creds_env_name(id, name, "PASSWORD", a));
    if (type && !strcmp(type, "oauth2") && s->client_credentials_token_url)
        return core_arena_printf(a, "%s (an access token) or %s and %s", k->var,
                                 exec_creds_env_name(id, name, "CLIENT_ID", a),
                                 exec_creds_env_name(id, name, "CLIENT_SECRET", a));
    if (type && !strcmp(type, "oauth2"))
        return core_arena_printf(a, "%s (an access token)", k->var);
    return k->var;
}

int exec_creds_apply(const spec_api *api, const spec_operation *op, const exec_build_options *opt,
                     exec_request *r, apidex_error *err)
{
    const jt_node *reqs = op->security.node;
    if (!jt_is(reqs, JT_ARRAY) || !reqs->len) return 0;
    creds_ctx c = {.api = api, .opt = opt, .r = r, .err = err};
    if (opt->overrides) {
        json_object *ov = json_tokener_parse(opt->overrides), *auth = NULL;
        if (ov && json_object_object_get_ex(ov, "auth", &auth)) c.overrides = json_object_get(auth);
        json_object_put(ov);
    }
    int rc = 0;
    bool done = false;
    const char *missing = NULL;
    /* alternatives in order; the first one whose every scheme has a credential wins */
    for (size_t i = 0; i < reqs->len && !done && !rc; i++) {
        const jt_node *alt = reqs->u.items[i];
        if (!jt_is(alt, JT_OBJECT)) continue;
        if (alt->len == 0) { /* {}: anonymous access is allowed */
            done = true;
            break;
        }
        /* a trial run on a copy: an alternative is applied whole or not at all */
        exec_request saved = *r;
        core_buf need;
        core_buf_init(&need, 4096);
        bool ok = true;
        for (size_t j = 0; j < alt->len && ok && !rc; j++) {
            const char *name =
                core_arena_strndup(r->arena, alt->u.members[j].key, alt->u.members[j].key_len);
            spec_security_scheme s;
            if (!spec_security_scheme_find(api, name, strlen(name), &s) ||
                !s.declared_for_version) {
                exec_request_note(r, "security scheme '%s' is not defined in the spec", name);
                ok = false;
                break;
            }
            const char *type = s.type, *http = s.scheme;
            bool basic = type && (!strcmp(type, "basic") || (http && !strcasecmp(http, "basic")));
            cred k;
            rc = find_cred(&c, name, basic, &k);
            if (rc) break;
            core_buf scopes;
            core_buf_init(&scopes, 4096);
            const jt_node *sc = alt->u.members[j].value;
            for (size_t x = 0; jt_is(sc, JT_ARRAY) && x < sc->len; x++)
                if (jt_str(sc->u.items[x]))
                    core_buf_printf(&scopes, "%s%s", scopes.len ? " " : "", jt_str(sc->u.items[x]));
            int one = apply_one(&c, name, &s, &k, scopes.len ? scopes.data : NULL);
            core_buf_free(&scopes);
            if (one < 0) rc = one;
            if (one == 1) {
                ok = false;
                core_buf_printf(&need, "%s%s", need.len ? " and " : "", wanted(&c, name, &s, &k));
            }
        }
        if (!rc && ok) done = true;
        if (!rc && !ok) {
            if (!missing && need.len) missing = core_arena_strndup(r->arena, need.data, need.len);
            /* undo a partial alternative, keeping its notes */
            const char **notes = r->notes;
            size_t n_notes = r->n_notes;
            *r = saved;
            r->notes = notes;
            r->n_notes = n_notes;
        }
        core_buf_free(&need);
    }
    if (!rc && !done)
        exec_request_note(r, "no credential for %s: set %s (docs/EXECUTE.md, Credentials)", op->id,
                          missing ? missing : "the scheme's variables");
    json_object_put(c.overrides);
    jt_doc_free(c.file);
    if (rc == APIDEX_ENOMEM) core_error_set(err, rc, "out of memory");
    return rc;
}
