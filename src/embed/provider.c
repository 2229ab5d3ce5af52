/*
 * The provider front door: picks the local encoder or the HTTP client from the
 * options, wraps the local encoder in the common vtable, and keeps the counters.
 */
#include "embed/embed_int.h"

#include <stdlib.h>
#include <string.h>

void embed_options_from_env(embed_options *o)
{
    const char *v;
    if (!o->model && (v = getenv("APIDEX_MODEL")) && *v) o->model = v;
    if (!o->base_url && (v = getenv("APIDEX_EMBED_URL")) && *v) o->base_url = v;
    if (!o->api_key && (v = getenv("APIDEX_EMBED_KEY")) && *v) o->api_key = v;
    if (!o->api_key && (v = getenv("OPENAI_API_KEY")) && *v) o->api_key = v;
    if (!o->provider && (v = getenv("APIDEX_EMBED_PROVIDER")) && *v) o->provider = v;
    if (!o->precision && (v = getenv("APIDEX_EMBED_PRECISION")) && *v) o->precision = v;
    if (!o->threads && (v = getenv("APIDEX_THREADS")) && *v) {
        long t = strtol(v, NULL, 10);
        if (t > 0 && t <= 64) o->threads = (int)t;
    }
}

/* ---------------------------------------------------------------- local */

typedef struct local_provider {
    embed_provider base;
    embed_bert *model;
} local_provider;

static int local_embed(embed_provider *p, const char *const *texts, size_t n, bool is_query,
                       float *out, apidex_error *err)
{
    local_provider *lp = (local_provider *)p;
    int rc = embed_bert_encode(lp->model, texts, n, is_query, out, err);
    embed_stats st = embed_bert_stats(lp->model);
    p->stats.tokens = st.tokens;
    p->stats.truncated = st.truncated;
    return rc;
}

static int local_dim(embed_provider *p, size_t *dim, apidex_error *err)
{
    (void)err;
    *dim = p->dim;
    return 0;
}

static void local_close(embed_provider *p)
{
    local_provider *lp = (local_provider *)p;
    embed_bert_close(lp->model);
    free(lp);
}

static const embed_provider_vtable local_vtable = {"local", local_embed, local_dim, local_close};

static int local_open(const embed_options *o, embed_provider **out, apidex_error *err)
{
    bool bf16 = o->precision && !strcmp(o->precision, "bf16");
    if (o->precision && !bf16 && strcmp(o->precision, "f32"))
        return core_error_set(err, APIDEX_EINVAL, "precision '%s': f32 or bf16", o->precision);
    char *dir = NULL;
    int rc = embed_model_resolve(o->model, &dir, err);
    if (rc) return rc;
    local_provider *lp = calloc(1, sizeof *lp);
    if (!lp) {
        free(dir);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    embed_bert_options bo = {.threads = o->threads,
                             .max_tokens = o->max_tokens,
                             .batch_size = o->batch_size,
                             .query_prefix = o->query_prefix,
                             .normalize = o->normalize,
                             .bf16 = bf16};
    rc = embed_bert_open(dir, &bo, &lp->model, err);
    if (rc) {
        free(dir);
        free(lp);
        return rc;
    }
    const embed_bert_config *c = embed_bert_info(lp->model);
    lp->base.vt = &local_vtable;
    lp->base.dim = c->hidden;
    lp->base.normalized = c->normalize;
    /* The folder name is the model's name (~/.cache/apidex/models/bge-small-en-v1.5). */
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') dir[--dl] = '\0';
    const char *slash = strrchr(dir, '/');
    snprintf(lp->base.model_id, sizeof lp->base.model_id, "%s", slash ? slash + 1 : dir);
    const char *prefix = embed_bert_query_prefix(lp->model);
    uint64_t fp = c->fingerprint ^ core_hash64(prefix, strlen(prefix)) * 31 ^
                  (uint64_t)c->pooling * 1000003u ^ (c->normalize ? 0x5bd1e995u : 0) ^
                  (c->bf16 ? 0xbf16bf16bf16ull : 0);
    char hex[17];
    core_hash_hex(fp, hex);
    snprintf(lp->base.fingerprint, sizeof lp->base.fingerprint, "local:%.64s:%s", lp->base.model_id,
             hex);
    free(dir);
    *out = &lp->base;
    return 0;
}

/* ---------------------------------------------------------------- front door */

int embed_provider_open(const embed_options *o, embed_provider **out, apidex_error *err)
{
    *out = NULL;
    embed_options dflt = {0};
    if (!o) o = &dflt;
    const char *kind = o->provider;
    if (!kind || !*kind) kind = (o->base_url && *o->base_url) ? "http" : "local";
    if (!strcmp(kind, "local")) return local_open(o, out, err);
    if (!strcmp(kind, "http") || !strcmp(kind, "openai")) return embed_http_open(o, out, err);
    return core_error_set(err, APIDEX_EINVAL, "unknown embedding provider '%s' (local or http)",
                          kind);
}

int embed_provider_embed(embed_provider *p, const char *const *texts, size_t n, bool is_query,
                         float *out, apidex_error *err)
{
    if (!p) return core_error_set(err, APIDEX_EINVAL, "no embedding provider");
    if (!n) return 0;
    int rc = p->vt->embed(p, texts, n, is_query, out, err);
    if (!rc) p->stats.texts += n;
    return rc;
}

int embed_provider_dim(embed_provider *p, size_t *dim, apidex_error *err)
{
    if (!p) return core_error_set(err, APIDEX_EINVAL, "no embedding provider");
    return p->vt->dim(p, dim, err);
}

const char *embed_provider_model_id(const embed_provider *p)
{
    return p ? p->model_id : "";
}

void embed_provider_close(embed_provider *p)
{
    if (p) p->vt->close(p);
}
