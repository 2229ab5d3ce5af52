/*
 * OAuth2 client credentials: access tokens fetched from the token endpoint through the safe
 * transport, cached until shortly before they expire (in memory, and optionally on disk
 * so that one-shot commands share them), refreshed when stale.
 */
#include "exec/exec.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define OAUTH_DEFAULT_LIFETIME 300.0 /* s, when the server names none */
#define OAUTH_MAX_MARGIN       60.0
#define OAUTH_MAX_TOKEN_BYTES  (64u << 10)

typedef struct oauth_entry {
    uint64_t key;     /* hash of token URL, client id, scope and client secret */
    char *token;      /* current token; older ones stay in retired until exec_oauth_free */
    double fresh_til; /* wall clock (s): refresh from here on */
} oauth_entry;

struct exec_oauth {
    exec_policy policy;
    char **hosts; /* policy.allowed_hosts copied, plus room for the token host */
    size_t n_hosts;
    char **addresses;
    char *disk_dir; /* NULL: memory only */
    pthread_mutex_t lock;
    oauth_entry *entries;
    size_t n_entries, cap_entries;
    char **retired;
    size_t n_retired, cap_retired;
    unsigned fetches;
};

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char **copy_list(const char *const *list, size_t n, size_t extra)
{
    char **out = calloc(n + extra + 1, sizeof *out);
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        out[i] = strdup(list[i] ? list[i] : "");
        if (!out[i]) {
            while (i--) free(out[i]);
            free(out);
            return NULL;
        }
    }
    return out;
}

static void free_list(char **list, size_t n)
{
    for (size_t i = 0; list && i < n; i++) free(list[i]);
    free(list);
}

int exec_oauth_new(const exec_policy *policy, const char *disk_dir, exec_oauth **out,
                   apidex_error *err)
{
    *out = NULL;
    exec_oauth *o = calloc(1, sizeof *o);
    if (!o) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (policy) o->policy = *policy;
    o->n_hosts = o->policy.n_allowed_hosts;
    o->hosts = copy_list(o->policy.allowed_hosts, o->n_hosts, 0);
    o->addresses = copy_list(o->policy.allowed_addresses, o->policy.n_allowed_addresses, 0);
    o->disk_dir = disk_dir ? strdup(disk_dir) : NULL;
    if (!o->hosts || !o->addresses || (disk_dir && !o->disk_dir)) {
        free_list(o->hosts, o->n_hosts);
        free_list(o->addresses, o->policy.n_allowed_addresses);
        free(o->disk_dir);
        free(o);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    o->policy.allowed_addresses = (const char *const *)o->addresses;
    pthread_mutex_init(&o->lock, NULL);
    *out = o;
    return 0;
}

void exec_oauth_free(exec_oauth *o)
{
    if (!o) return;
    for (size_t i = 0; i < o->n_entries; i++) free(o->entries[i].token);
    free(o->entries);
    free_list(o->retired, o->n_retired);
    free_list(o->hosts, o->n_hosts);
    free_list(o->addresses, o->policy.n_allowed_addresses);
    free(o->disk_dir);
    pthread_mutex_destroy(&o->lock);
    free(o);
}

unsigned exec_oauth_fetches(const exec_oauth *o)
{
    return o ? o->fetches : 0;
}

const char *exec_oauth_default_dir(char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && *xdg == '/')
        n = snprintf(buf, cap, "%s/apidex/oauth", xdg);
    else if (home && *home)
        n = snprintf(buf, cap, "%s/.cache/apidex/oauth", home);
    else
        return NULL;
    return n > 0 && (size_t)n < cap ? buf : NULL;
}

static uint64_t entry_key(const char *url, const char *id, const char *secret, const char *scope)
{
    core_buf b;
    core_buf_init(&b, 0);
    const char *parts[] = {url, id, secret, scope};
    for (size_t i = 0; i < 4; i++) {
        core_buf_puts(&b, parts[i] ? parts[i] : "");
        core_buf_putc(&b, 0);
    }
    uint64_t h = core_hash64(b.data, b.len);
    core_buf_free(&b);
    return h;
}

static oauth_entry *entry_find(exec_oauth *o, uint64_t key)
{
    for (size_t i = 0; i < o->n_entries; i++)
        if (o->entries[i].key == key) return &o->entries[i];
    return NULL;
}

/* Stores token for key (a copy), keeping the one it replaces alive for earlier callers. */
static int entry_store(exec_oauth *o, uint64_t key, const char *token, double fresh_til,
                       const char **kept)
{
    char *copy = strdup(token);
    if (!copy) return APIDEX_ENOMEM;
    oauth_entry *e = entry_find(o, key);
    if (!e) {
        if (o->n_entries == o->cap_entries) {
            size_t cap = o->cap_entries ? 2 * o->cap_entries : 4;
            oauth_entry *grown = realloc(o->entries, cap * sizeof *grown);
            if (!grown) {
                free(copy);
                return APIDEX_ENOMEM;
            }
            o->entries = grown;
            o->cap_entries = cap;
        }
        e = &o->entries[o->n_entries++];
        memset(e, 0, sizeof *e);
        e->key = key;
    } else if (e->token) {
        if (o->n_retired == o->cap_retired) {
            size_t cap = o->cap_retired ? 2 * o->cap_retired : 4;
            char **grown = realloc(o->retired, cap * sizeof *grown);
            if (!grown) {
                free(copy);
                return APIDEX_ENOMEM;
            }
            o->retired = grown;
            o->cap_retired = cap;
        }
        o->retired[o->n_retired++] = e->token;
    }
    e->token = copy;
    e->fresh_til = fresh_til;
    *kept = copy;
    return 0;
}

/* ---------------------------------------------------------------- disk cache */

static void disk_path(const exec_oauth *o, uint64_t key, char *out, size_t cap)
{
    char hex[17];
    core_hash_hex(key, hex);
    snprintf(out, cap, "%s/%s.json", o->disk_dir, hex);
}

/* A token from the disk cache when it is there, private to us, and still fresh. */
static char *disk_read(const exec_oauth *o, uint64_t key, double now, double *fresh_til)
{
    char path[4096];
    disk_path(o, key, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    char *text = NULL;
    if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == getuid() && !(st.st_mode & 077) &&
        st.st_size > 0 && st.st_size < OAUTH_MAX_TOKEN_BYTES) {
        text = calloc(1, (size_t)st.st_size + 1);
        if (text && read(fd, text, (size_t)st.st_size) != st.st_size) {
            free(text);
            text = NULL;
        }
    }
    close(fd);
    if (!text) return NULL;
    char *token = NULL;
    json_object *j = json_tokener_parse(text);
    json_object *t, *f;
    if (j && json_object_object_get_ex(j, "access_token", &t) &&
        json_object_object_get_ex(j, "fresh_until", &f) && json_object_get_double(f) > now) {
        token = strdup(json_object_get_string(t));
        *fresh_til = json_object_get_double(f);
    }
    json_object_put(j);
    free(text);
    return token;
}

static int mkdirs(const char *dir)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0700) && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(buf, 0700) && errno != EEXIST ? -1 : 0;
}

/* Writes the token file (0600, replaced atomically). Failures only cost the cache. */
static void disk_write(const exec_oauth *o, uint64_t key, const char *token, double fresh_til)
{
    if (mkdirs(o->disk_dir)) return;
    char path[4096], tmp[4200];
    disk_path(o, key, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    json_object *j = json_object_new_object();
    json_object_object_add(j, "access_token", json_object_new_string(token));
    json_object_object_add(j, "fresh_until", json_object_new_double(fresh_til));
    const char *text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        size_t n = strlen(text);
        bool ok = write(fd, text, n) == (ssize_t)n;
        ok = !close(fd) && ok;
        if (!ok || rename(tmp, path)) unlink(tmp);
    }
    json_object_put(j);
}

/* ---------------------------------------------------------------- the token request */

static char *form_escape(const char *s)
{
    return curl_easy_escape(NULL, s ? s : "", 0);
}

static const char *host_of(const char *url, core_arena *a)
{
    CURLU *u = curl_url();
    char *host = NULL;
    const char *out = NULL;
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK && host)
        out = core_arena_strdup(a, host);
    curl_free(host);
    curl_url_cleanup(u);
    return out;
}

static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64(core_arena *a, const char *s, size_t n)
{
    char *out = core_arena_alloc(a, 4 * ((n + 2) / 3) + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)s[i] << 16;
        if (i + 1 < n) v |= (uint32_t)(unsigned char)s[i + 1] << 8;
        if (i + 2 < n) v |= (unsigned char)s[i + 2];
        out[o++] = b64_chars[v >> 18 & 63];
        out[o++] = b64_chars[v >> 12 & 63];
        out[o++] = i + 1 < n ? b64_chars[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? b64_chars[v & 63] : '=';
    }
    out[o] = 0;
    return out;
}

/* One POST to the token endpoint. in_body: client id and secret in the form (RFC 6749
   client_secret_post) instead of HTTP Basic. */
static int token_post(exec_oauth *o, const char *url, const char *id, const char *secret,
                      const char *scope, bool in_body, core_arena *a, exec_response **resp,
                      apidex_error *err)
{
    char *eid = form_escape(id), *esecret = form_escape(secret), *escope = form_escape(scope);
    if (!eid || !esecret || !escope) {
        curl_free(eid);
        curl_free(esecret);
        curl_free(escope);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    const char *body = core_arena_printf(
        a, "grant_type=client_credentials%s%s%s%s%s%s", scope && *scope ? "&scope=" : "",
        scope && *scope ? escope : "", in_body ? "&client_id=" : "", in_body ? eid : "",
        in_body ? "&client_secret=" : "", in_body ? esecret : "");
    /* RFC 6749 2.3.1: id and secret are form-encoded before they are joined for Basic */
    const char *pair = core_arena_printf(a, "%s:%s", eid, esecret);
    const char *esecret_kept = core_arena_strdup(a, esecret);
    curl_free(eid);
    curl_free(esecret);
    curl_free(escope);
    const char *basic = pair ? base64(a, pair, strlen(pair)) : NULL;
    const char *auth = basic ? core_arena_printf(a, "Basic %s", basic) : NULL;
    if (!body || !auth) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    exec_header headers[] = {{"Accept", "application/json", false}, {"Authorization", auth, true}};
    const char *secrets[] = {secret, esecret_kept, basic, auth};
    exec_request r = {.method = "POST",
                      .url = url,
                      .headers = headers,
                      .n_headers = in_body ? 1 : 2,
                      .body = body,
                      .body_len = strlen(body),
                      .content_type = "application/x-www-form-urlencoded",
                      .secrets = secrets,
                      .n_secrets = 4,
                      .arena = a};
    /* the token endpoint is not the API: POST is its only method, its host is allowed */
    exec_policy p = o->policy;
    p.allow_write = true;
    const char **hosts = core_arena_calloc(a, o->n_hosts + 1, sizeof *hosts);
    const char *token_host = host_of(url, a);
    if (!hosts) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; i < o->n_hosts; i++) hosts[i] = o->hosts[i];
    size_t n_hosts = o->n_hosts;
    if (token_host) hosts[n_hosts++] = token_host;
    p.allowed_hosts = hosts;
    p.n_allowed_hosts = n_hosts;
    if (!p.max_bytes || p.max_bytes > OAUTH_MAX_TOKEN_BYTES) p.max_bytes = OAUTH_MAX_TOKEN_BYTES;
    int rc = exec_send(&r, &p, resp, err);
    if (rc && err) {
        /* exec_send masked with r; say where it happened */
        char msg[sizeof err->message];
        snprintf(msg, sizeof msg, "%s", err->message);
        core_error_set(err, rc, "OAuth2 token request: %s", msg);
    }
    return rc;
}

/* The server's error words, masked: a token endpoint may echo what it was sent. */
static void token_error(const char *body, size_t len, const char *secret, char *out, size_t cap)
{
    char raw[256];
    core_api_error_message(body, len, raw, sizeof raw);
    json_object *j = json_tokener_parse(body);
    json_object *e = NULL, *d = NULL;
    if (j && json_object_object_get_ex(j, "error", &e) &&
        json_object_is_type(e, json_type_string)) {
        bool described = json_object_object_get_ex(j, "error_description", &d) &&
                         json_object_is_type(d, json_type_string);
        snprintf(raw, sizeof raw, "%s%s%s", json_object_get_string(e), described ? ": " : "",
                 described ? json_object_get_string(d) : "");
    }
    json_object_put(j);
    /* the secret as sent (form-encoded) too */
    char *escaped = form_escape(secret);
    const char *secrets[] = {secret, escaped};
    exec_request r = {.secrets = secrets, .n_secrets = secret && *secret ? 2 : 0};
    core_arena *a = core_arena_new(0);
    const char *masked = a ? exec_mask(&r, raw, a) : "";
    snprintf(out, cap, "%s", masked ? masked : "");
    core_arena_free(a);
    curl_free(escaped);
}

static bool is_invalid_client(const exec_response *resp)
{
    if (resp->status != 400 && resp->status != 401) return false;
    json_object *j = json_tokener_parse(resp->body);
    json_object *e;
    bool yes = j && json_object_object_get_ex(j, "error", &e) &&
               json_object_is_type(e, json_type_string) &&
               !strcmp(json_object_get_string(e), "invalid_client");
    json_object_put(j);
    return yes;
}

/* Fetches a new token; *token (malloc'd) and *lifetime (s). */
static int token_fetch(exec_oauth *o, const char *url, const char *id, const char *secret,
                       const char *scope, char **token, double *lifetime, apidex_error *err)
{
    core_arena *a = core_arena_new(0);
    if (!a) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    exec_response *resp = NULL;
    int rc = token_post(o, url, id, secret, scope, false, a, &resp, err);
    if (!rc && is_invalid_client(resp)) { /* some servers want the credentials in the form */
        exec_response_free(resp);
        resp = NULL;
        rc = token_post(o, url, id, secret, scope, true, a, &resp, err);
    }
    o->fetches++;
    if (!rc) {
        json_object *j = resp->status == 200 ? json_tokener_parse(resp->body) : NULL;
        json_object *t, *e;
        if (resp->status != 200) {
            char why[256];
            token_error(resp->body, resp->body_len, secret, why, sizeof why);
            rc = core_error_set(err, APIDEX_ENET, "OAuth2 token request to %s: HTTP %ld%s%s", url,
                                resp->status, *why ? ": " : "", why);
        } else if (!j || !json_object_object_get_ex(j, "access_token", &t) ||
                   !json_object_is_type(t, json_type_string) || !*json_object_get_string(t)) {
            rc = core_error_set(err, APIDEX_ENET,
                                "OAuth2 token response from %s has no access_token", url);
        } else {
            *token = strdup(json_object_get_string(t));
            *lifetime = OAUTH_DEFAULT_LIFETIME;
            if (json_object_object_get_ex(j, "expires_in", &e)) {
                /* a number, or a numeric string (some servers send "3600") */
                double v = json_object_get_double(e);
                if (json_object_is_type(e, json_type_string))
                    v = strtod(json_object_get_string(e), NULL);
                if (v >= 0) *lifetime = v;
            }
            if (!*token) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
        }
        json_object_put(j);
    }
    exec_response_free(resp);
    core_arena_free(a);
    return rc;
}

int exec_oauth_token(void *ctx, const char *token_url, const char *client_id,
                     const char *client_secret, const char *scope, const char **token,
                     apidex_error *err)
{
    exec_oauth *o = ctx;
    *token = NULL;
    if (!o || !token_url || !client_id)
        return core_error_set(err, APIDEX_EINVAL, "OAuth2: no token URL or client id");
    uint64_t key = entry_key(token_url, client_id, client_secret, scope);
    pthread_mutex_lock(&o->lock);
    double now = wall_now();
    int rc = 0;
    oauth_entry *e = entry_find(o, key);
    if (e && e->token && e->fresh_til > now) {
        *token = e->token;
        goto done;
    }
    double fresh_til = 0;
    char *found = o->disk_dir ? disk_read(o, key, now, &fresh_til) : NULL;
    if (found) {
        rc = entry_store(o, key, found, fresh_til, token);
        free(found);
        if (rc) core_error_set(err, rc, "out of memory");
        goto done;
    }
    char *fetched = NULL;
    double lifetime = 0;
    /* the lock is held across the fetch: concurrent callers wait for one token request */
    rc = token_fetch(o, token_url, client_id, client_secret, scope, &fetched, &lifetime, err);
    if (rc) goto done;
    double margin = lifetime / 10.0 < OAUTH_MAX_MARGIN ? lifetime / 10.0 : OAUTH_MAX_MARGIN;
    fresh_til = now + lifetime - margin;
    rc = entry_store(o, key, fetched, fresh_til, token);
    if (rc)
        core_error_set(err, rc, "out of memory");
    else if (o->disk_dir && lifetime > 0)
        disk_write(o, key, fetched, fresh_til);
    free(fetched);
done:
    pthread_mutex_unlock(&o->lock);
    return rc;
}
