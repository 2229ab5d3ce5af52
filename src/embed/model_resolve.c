/*
 * Where models live and how they get there: resolving --model PATH|NAME to a
 * folder, and `apidex model pull` (a download from Hugging Face through the outbound
 * layer into a temporary folder, sha256 checks, one rename into the cache).
 *
 * The hub URL (--hub / the default https://huggingface.co) is an origin the user
 * configured: allowed whatever its addresses. The hub redirects weights to its CDN, so a
 * redirect may go to any host, but each hop is checked (no private address, no https to
 * http), at most NET_MAX_REDIRECTS of them.
 */
#include "embed/embed_int.h"

#include "net/net.h"

#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PULL_MAX_FILE    ((size_t)4 << 30)  /* no model file we read is near 4 GiB */
#define PULL_MAX_TIME_MS (6L * 3600 * 1000) /* one file; a stalled one gives up long before */
#define PULL_STALL_MS    60000L             /* under 1 KiB/s for a minute: give up */

/* ---------------------------------------------------------------- known models */

static const embed_pull_file bge_small_files[] = {
    {"config.json", NULL, true},
    {"model.safetensors", "3c9f31665447c8911517620762200d2245a2518d6e7208acc78cd9db317e21ad", true},
    {"vocab.txt", NULL, false},
    {"tokenizer.json", NULL, false},
    {"tokenizer_config.json", NULL, false},
    {"special_tokens_map.json", NULL, false},
    {"1_Pooling/config.json", NULL, true},
    {"modules.json", NULL, false},
    {"config_sentence_transformers.json", NULL, false},
    {"sentence_bert_config.json", NULL, false},
    {NULL, NULL, false},
};

/* Any sentence-transformers BERT repository has this layout; no checksum is known. */
static const embed_pull_file generic_files[] = {
    {"config.json", NULL, true},
    {"model.safetensors", NULL, true},
    {"vocab.txt", NULL, false},
    {"tokenizer.json", NULL, false},
    {"tokenizer_config.json", NULL, false},
    {"special_tokens_map.json", NULL, false},
    {"1_Pooling/config.json", NULL, false},
    {"modules.json", NULL, false},
    {"config_sentence_transformers.json", NULL, false},
    {"sentence_bert_config.json", NULL, false},
    {NULL, NULL, false},
};

static const struct {
    const char *name, *repo;
    const embed_pull_file *files;
} known_models[] = {
    {"bge-small-en-v1.5", "BAAI/bge-small-en-v1.5", bge_small_files},
};

const embed_pull_file *embed_model_manifest(const char *name, const char **repo)
{
    for (size_t i = 0; i < sizeof known_models / sizeof known_models[0]; i++) {
        if (!strcmp(name, known_models[i].name) || !strcmp(name, known_models[i].repo)) {
            if (repo) *repo = known_models[i].repo;
            return known_models[i].files;
        }
    }
    if (strchr(name, '/')) {
        if (repo) *repo = name;
        return generic_files;
    }
    return NULL;
}

/* ---------------------------------------------------------------- resolution */

static bool is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static bool is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", a, b);
    return p;
}

int embed_model_cache_dir(char **out, apidex_error *err)
{
    const char *v;
    const char *fmt = NULL, *base = NULL;
    if ((v = getenv("APIDEX_CACHE_DIR")) && *v) {
        base = v;
        fmt = "%s/models";
    } else if ((v = getenv("XDG_CACHE_HOME")) && *v) {
        base = v;
        fmt = "%s/apidex/models";
    } else if ((v = getenv("HOME")) && *v) {
        base = v;
        fmt = "%s/.cache/apidex/models";
    } else {
        return core_error_set(err, APIDEX_ENOTFOUND,
                              "no cache folder: set HOME, XDG_CACHE_HOME or APIDEX_CACHE_DIR");
    }
    size_t n = strlen(base) + 32;
    *out = malloc(n);
    if (!*out) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    snprintf(*out, n, fmt, base);
    return 0;
}

/* Says which required file is missing from a folder, or NULL when it looks complete. */
static const char *missing_file(const char *dir)
{
    static const char *const required[] = {"config.json", "model.safetensors"};
    for (size_t i = 0; i < 2; i++) {
        char *p = join(dir, required[i]);
        bool ok = p && is_file(p);
        free(p);
        if (!ok) return required[i];
    }
    char *v = join(dir, "vocab.txt"), *t = join(dir, "tokenizer.json");
    bool ok = (v && is_file(v)) || (t && is_file(t));
    free(v);
    free(t);
    return ok ? NULL : "vocab.txt (or tokenizer.json)";
}

int embed_model_resolve(const char *model, char **dir, apidex_error *err)
{
    *dir = NULL;
    if (!model || !*model) model = EMBED_DEFAULT_MODEL;
    char *path = NULL;
    bool by_name = !strchr(model, '/') && !is_dir(model);
    if (by_name) {
        char *cache = NULL;
        int rc = embed_model_cache_dir(&cache, err);
        if (rc) return rc;
        path = join(cache, model);
        free(cache);
    } else {
        path = strdup(model);
    }
    if (!path) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!is_dir(path)) {
        if (by_name)
            core_error_set(err, APIDEX_ENOTFOUND,
                           "model '%s' is not installed: run `apidex model pull %s`, or place "
                           "its files (config.json, model.safetensors, vocab.txt, "
                           "1_Pooling/config.json) in this folder",
                           model, model);
        else
            core_error_set(err, APIDEX_ENOTFOUND, "model folder not found");
        core_error_at(err, path, 0, 0, NULL);
        free(path);
        return APIDEX_ENOTFOUND;
    }
    const char *missing = missing_file(path);
    if (missing) {
        core_error_set(err, APIDEX_ENOTFOUND, "the model folder has no %s%s", missing,
                       by_name ? ": run `apidex model pull` or place the file there by hand" : "");
        core_error_at(err, path, 0, 0, NULL);
        free(path);
        return APIDEX_ENOTFOUND;
    }
    *dir = path;
    return 0;
}

/* ---------------------------------------------------------------- download */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void rm_tree(const char *path)
{
    if (path && access(path, F_OK) == 0) nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* mkdir -p for the parent folders of path (and path itself when is_dir). */
static int make_dirs(const char *path, bool last_too)
{
    char *copy = strdup(path);
    if (!copy) return -1;
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(copy, 0755) != 0 && errno != EEXIST) {
            free(copy);
            return -1;
        }
        *p = '/';
    }
    int rc = 0;
    if (last_too && mkdir(copy, 0755) != 0 && errno != EEXIST) rc = -1;
    free(copy);
    return rc;
}

typedef struct download {
    FILE *f;
    embed_sha256 sha;
    size_t bytes;
    bool write_failed;
} download;

/* The body of a 200 goes to the file (an error page never does). */
static bool on_data(void *ctx, long status, const char *type, const char *p, size_t n)
{
    (void)type;
    download *d = ctx;
    if (status != 200) return true;
    d->bytes += n;
    embed_sha256_update(&d->sha, p, n);
    if (fwrite(p, 1, n, d->f) != n) {
        d->write_failed = true;
        return false;
    }
    return true;
}

/* Fetches url into path; *status gets the HTTP status (0 on transport failure). */
static int fetch(net_session *session, const char *base, const char *url, const char *path,
                 unsigned connect_timeout, long *status, char hex[65], size_t *bytes,
                 apidex_error *err)
{
    *status = 0;
    if (make_dirs(path, false) != 0) {
        core_error_set(err, APIDEX_EIO, "cannot create folder: %s", strerror(errno));
        core_error_at(err, path, 0, 0, NULL);
        return APIDEX_EIO;
    }
    download d = {fopen(path, "wb"), {{0}, 0, {0}, 0}, 0, false};
    if (!d.f) {
        core_error_set(err, APIDEX_EIO, "cannot write: %s", strerror(errno));
        core_error_at(err, path, 0, 0, NULL);
        return APIDEX_EIO;
    }
    embed_sha256_init(&d.sha);
    const char *any[1] = {"*"}, *origin[1] = {base};
    net_policy policy = {.allowed_hosts = any, /* the hub's CDN: redirects, each hop checked */
                         .n_allowed_hosts = 1,
                         .allowed_origins = origin,
                         .n_allowed_origins = 1,
                         .timeout_ms = PULL_MAX_TIME_MS,
                         .connect_timeout_ms = (long)connect_timeout * 1000,
                         .stall_ms = PULL_STALL_MS,
                         .max_bytes = PULL_MAX_FILE,
                         .private_hint = "only the hub URL itself may be a private address"};
    net_request r = {.url = url, .on_body = on_data, .body_ctx = &d, .session = session};
    net_response *resp = NULL;
    apidex_error nerr;
    core_error_clear(&nerr);
    int nrc = net_send(&r, &policy, &resp, NULL, &nerr);
    bool write_failed = fclose(d.f) != 0 || d.write_failed;
    bool too_big = resp && resp->truncated;
    long got = resp ? resp->status : 0;
    net_response_free(resp);
    if (nrc || write_failed || too_big) {
        int code;
        if (too_big)
            code = core_error_set(err, APIDEX_ELIMIT, "download is larger than 4 GiB");
        else if (write_failed)
            code =
                core_error_set(err, APIDEX_EIO, "cannot write the download: %s", strerror(errno));
        else if (nrc == APIDEX_EREFUSED)
            code = core_error_set(err, APIDEX_EREFUSED, "download refused: %s", nerr.message);
        else
            code = core_error_set(err, APIDEX_ENET, "download failed: %s", nerr.message);
        core_error_at(err, url, 0, 0, NULL);
        return code;
    }
    *status = got;
    embed_sha256_final_hex(&d.sha, hex);
    *bytes = d.bytes;
    return 0;
}

static const char *override_sha(const embed_pull_options *o, const char *file)
{
    if (!o->sha256_overrides) return NULL;
    size_t fl = strlen(file);
    for (const char *const *s = o->sha256_overrides; *s; s++)
        if (!strncmp(*s, file, fl) && (*s)[fl] == '=') return *s + fl + 1;
    return NULL;
}

static bool valid_json_file(const char *path)
{
    json_object *o = json_object_from_file(path);
    bool ok = o != NULL;
    json_object_put(o);
    return ok;
}

int embed_model_pull(const char *name, const embed_pull_options *opts, char **dir,
                     apidex_error *err)
{
    if (dir) *dir = NULL;
    embed_pull_options dflt = {0};
    const embed_pull_options *o = opts ? opts : &dflt;
    const char *repo = NULL;
    const embed_pull_file *files = name ? embed_model_manifest(name, &repo) : NULL;
    if (!files)
        return core_error_set(err, APIDEX_ENOTFOUND,
                              "unknown model '%s': name a known one (bge-small-en-v1.5) or a "
                              "Hugging Face repository as org/name",
                              name ? name : "");
    for (const char *const *s = o->sha256_overrides; s && *s; s++) {
        const char *eq = strchr(*s, '=');
        if (!eq || strlen(eq + 1) != 64 || strspn(eq + 1, "0123456789abcdef") != 64)
            return core_error_set(err, APIDEX_EINVAL,
                                  "bad checksum '%s': expected FILE=64 lower-case hex digits", *s);
    }
    const char *dest = o->dest_name;
    if (!dest) {
        const char *slash = strrchr(name, '/');
        dest = strchr(name, '/') ? slash + 1 : name;
        for (size_t i = 0; i < sizeof known_models / sizeof known_models[0]; i++)
            if (!strcmp(name, known_models[i].repo)) dest = known_models[i].name;
    }
    if (!*dest || strchr(dest, '/') || !strcmp(dest, ".") || !strcmp(dest, ".."))
        return core_error_set(err, APIDEX_EINVAL, "bad model name '%s'", dest);
    const char *base = o->base_url && *o->base_url ? o->base_url : "https://huggingface.co";
    const char *rev = o->revision && *o->revision ? o->revision : "main";

    char *cache = NULL;
    int rc = 0;
    if (o->cache_dir) {
        cache = strdup(o->cache_dir);
        if (!cache) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    } else if ((rc = embed_model_cache_dir(&cache, err))) {
        return rc;
    }
    char tmpname[300], oldname[300];
    snprintf(tmpname, sizeof tmpname, ".%s.partial-%ld", dest, (long)getpid());
    snprintf(oldname, sizeof oldname, ".%s.old-%ld", dest, (long)getpid());
    char *final = join(cache, dest), *tmp = join(cache, tmpname), *old = join(cache, oldname);
    net_session *session = net_session_new();
    const char *problem = net_base_url_problem(base);
    if (problem) {
        rc = core_error_set(err, APIDEX_EINVAL, "bad hub URL '%s': %s", base, problem);
        goto done;
    }
    if (!final || !tmp || !old || !session) {
        rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
        goto done;
    }
    rm_tree(tmp);
    if (make_dirs(tmp, true) != 0) {
        rc = core_error_set(err, APIDEX_EIO, "cannot create the model folder: %s", strerror(errno));
        core_error_at(err, tmp, 0, 0, NULL);
        goto done;
    }
    bool have_tokenizer = false;
    for (const embed_pull_file *f = files; f->path && !rc; f++) {
        size_t ul = strlen(base) + strlen(repo) + strlen(rev) + strlen(f->path) + 32;
        char *url = malloc(ul);
        char *path = join(tmp, f->path);
        if (!url || !path) {
            free(url);
            free(path);
            rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
            break;
        }
        size_t bl = strlen(base);
        while (bl > 0 && base[bl - 1] == '/') bl--;
        snprintf(url, ul, "%.*s/%s/resolve/%s/%s", (int)bl, base, repo, rev, f->path);
        long status = 0;
        char hex[65] = "";
        size_t bytes = 0;
        if (o->progress) fprintf(o->progress, "fetching %s ... ", f->path), fflush(o->progress);
        rc = fetch(session, base, url, path, o->connect_timeout_s ? o->connect_timeout_s : 15,
                   &status, hex, &bytes, err);
        if (!rc && status == 404 && !f->required) {
            remove(path);
            if (o->progress) fprintf(o->progress, "not in the repository (optional)\n");
        } else if (!rc && status != 200) {
            rc = core_error_set(err, APIDEX_ENET, "HTTP %ld while downloading %s", status, f->path);
            core_error_at(err, url, 0, 0, NULL);
        } else if (!rc) {
            const char *want = override_sha(o, f->path);
            if (!want) want = f->sha256;
            if (want && strcmp(want, hex) != 0) {
                rc = core_error_set(err, APIDEX_EIO,
                                    "checksum mismatch for %s: expected sha256 %s, got %s", f->path,
                                    want, hex);
                core_error_at(err, url, 0, 0, NULL);
            } else if (strstr(f->path, ".json") && !valid_json_file(path)) {
                rc = core_error_set(err, APIDEX_EPARSE, "%s is not valid JSON", f->path);
                core_error_at(err, url, 0, 0, NULL);
            } else {
                if (!strcmp(f->path, "vocab.txt") || !strcmp(f->path, "tokenizer.json"))
                    have_tokenizer = true;
                if (o->progress)
                    fprintf(o->progress, "%.1f MB, sha256 %s%s\n", (double)bytes / 1e6, hex,
                            want ? " (verified)" : "");
            }
        }
        if (rc && o->progress) fprintf(o->progress, "failed\n");
        free(url);
        free(path);
    }
    if (!rc && !have_tokenizer)
        rc = core_error_set(err, APIDEX_ENOTFOUND,
                            "the repository has neither vocab.txt nor tokenizer.json");
    if (!rc) {
        /* Swap in one rename; a previous copy is moved aside first and removed after. */
        bool had_old = access(final, F_OK) == 0;
        if (had_old && rename(final, old) != 0) {
            rc = core_error_set(err, APIDEX_EIO, "cannot replace the model folder: %s",
                                strerror(errno));
            core_error_at(err, final, 0, 0, NULL);
        } else if (rename(tmp, final) != 0) {
            rc = core_error_set(err, APIDEX_EIO, "cannot install the model folder: %s",
                                strerror(errno));
            core_error_at(err, final, 0, 0, NULL);
            if (had_old) rename(old, final);
        } else if (had_old) {
            rm_tree(old);
        }
    }
    if (!rc && dir) {
        *dir = final;
        final = NULL;
    }
done:
    if (tmp) rm_tree(tmp);
    net_session_free(session);
    free(cache);
    free(final);
    free(tmp);
    free(old);
    return rc;
}

int embed_model_manual_steps(const char *name, core_buf *out)
{
    const char *repo = NULL;
    const embed_pull_file *files = name ? embed_model_manifest(name, &repo) : NULL;
    if (!files) return APIDEX_ENOTFOUND;
    char *cache = NULL;
    apidex_error e;
    if (embed_model_cache_dir(&cache, &e) != 0) cache = strdup("~/.cache/apidex/models");
    const char *dest = name;
    for (size_t i = 0; i < sizeof known_models / sizeof known_models[0]; i++)
        if (!strcmp(name, known_models[i].repo) || !strcmp(name, known_models[i].name))
            dest = known_models[i].name;
    if (strchr(dest, '/')) dest = strrchr(dest, '/') + 1;
    core_buf_printf(out,
                    "To install %s by hand, download these files from "
                    "https://huggingface.co/%s (Files and versions) on a machine that can reach "
                    "it, and place them in %s/%s/ keeping the sub-folders:\n",
                    dest, repo, cache ? cache : "", dest);
    for (const embed_pull_file *f = files; f->path; f++) {
        core_buf_printf(out, "  %-36s %s", f->path, f->required ? "required" : "optional");
        if (f->sha256) core_buf_printf(out, ", sha256 %s", f->sha256);
        core_buf_putc(out, '\n');
    }
    core_buf_printf(out,
                    "  (one of vocab.txt or tokenizer.json is required)\n"
                    "Check with: sha256sum model.safetensors; then use --model %s.\n",
                    dest);
    free(cache);
    return out->failed ? APIDEX_ENOMEM : 0;
}
