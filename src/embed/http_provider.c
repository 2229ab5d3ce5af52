/*
 * The OpenAI-compatible embeddings client: POST {base}/v1/embeddings with
 * {"model", "input": [...]} as OpenAI, Ollama, llama.cpp server, vLLM and TEI
 * accept it. Batches the texts, retries 429/5xx/transport failures with
 * exponential backoff (honouring Retry-After), and turns every other failure
 * into one clear message naming the URL. Requests go through the outbound layer (net/net.h):
 * the embedding URL the user configured is the one origin they may reach (loopback
 * included: a local Ollama is common), and no redirect is followed.
 */
#include "embed/embed_int.h"

#include "net/net.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HTTP_MAX_ANSWER   (512u << 20) /* 64 texts x 4096 floats as text is ~5 MB */
#define HTTP_MAX_DELAY_MS 60000u

typedef struct http_provider {
    embed_provider base;
    char *base_url, *url, *model, *auth, *prefix;
    size_t batch;
    int max_retries;
    unsigned backoff_ms, timeout_s;
    bool normalize;
    net_session *session;
} http_provider;

char *embed_http_endpoint(const char *base_url)
{
    size_t n = strlen(base_url);
    while (n > 0 && base_url[n - 1] == '/') n--;
    const char *suffix = "/v1/embeddings";
    if (n >= 11 && !memcmp(base_url + n - 11, "/embeddings", 11))
        suffix = "";
    else if (n >= 3 && !memcmp(base_url + n - 3, "/v1", 3))
        suffix = "/embeddings";
    size_t sl = strlen(suffix);
    char *url = malloc(n + sl + 1);
    if (!url) return NULL;
    memcpy(url, base_url, n);
    memcpy(url + n, suffix, sl + 1);
    return url;
}

static bool on_body(void *ctx, long status, const char *type, const char *p, size_t n)
{
    (void)status;
    (void)type;
    return core_buf_append(ctx, p, n) == 0;
}

/* Parses an embeddings answer for n inputs into out (n * dim <= cap floats). */
static int parse_answer(http_provider *hp, const core_buf *body, size_t n, float *out, size_t cap,
                        apidex_error *err)
{
    json_tokener *tok = json_tokener_new_ex(16);
    json_object *root = tok ? json_tokener_parse_ex(tok, body->data, (int)body->len) : NULL;
    json_tokener_free(tok);
    json_object *data = NULL;
    int rc = 0;
    const char *why = NULL;
    if (!root || !json_object_object_get_ex(root, "data", &data) ||
        !json_object_is_type(data, json_type_array)) {
        why = "no \"data\" array";
    } else if (json_object_array_length(data) != n) {
        core_error_set(err, APIDEX_EPARSE,
                       "the embedding server answered %zu vectors for %zu texts",
                       json_object_array_length(data), n);
        rc = APIDEX_EPARSE;
    }
    bool *seen = (!why && !rc) ? calloc(n ? n : 1, sizeof *seen) : NULL;
    if (!why && !rc && !seen) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    for (size_t i = 0; !why && !rc && i < n; i++) {
        json_object *item = json_object_array_get_idx(data, i), *emb = NULL, *idx = NULL;
        if (!json_object_object_get_ex(item, "embedding", &emb) ||
            !json_object_is_type(emb, json_type_array)) {
            why = "an item has no \"embedding\" array";
            break;
        }
        size_t slot = i; /* OpenAI may answer out of order; "index" says where each goes */
        if (json_object_object_get_ex(item, "index", &idx)) {
            int64_t v = json_object_get_int64(idx);
            if (!json_object_is_type(idx, json_type_int) || v < 0 || (uint64_t)v >= n) {
                why = "an item has a bad \"index\"";
                break;
            }
            slot = (size_t)v;
        }
        if (seen[slot]) {
            why = "two items have the same \"index\"";
            break;
        }
        seen[slot] = true;
        size_t dim = json_object_array_length(emb);
        if (!dim) {
            why = "an embedding is empty";
            break;
        }
        if (!hp->base.dim) {
            if (dim > cap / n) {
                why = "the vectors are implausibly large";
                break;
            }
            hp->base.dim = dim;
        }
        if (dim != hp->base.dim) {
            core_error_set(err, APIDEX_EPARSE,
                           "the embedding server changed the vector size from %zu to %zu",
                           hp->base.dim, dim);
            rc = APIDEX_EPARSE;
            break;
        }
        float *row = out + slot * dim;
        for (size_t d = 0; d < dim; d++) {
            json_object *x = json_object_array_get_idx(emb, d);
            if (!json_object_is_type(x, json_type_double) &&
                !json_object_is_type(x, json_type_int)) {
                why = "an embedding holds something other than numbers";
                break;
            }
            double v = json_object_get_double(x);
            if (!isfinite(v)) {
                why = "an embedding holds a non-finite number";
                break;
            }
            row[d] = (float)v;
        }
        if (!why && hp->normalize) embed_l2_normalize(row, dim);
    }
    free(seen);
    json_object_put(root);
    if (why)
        rc = core_error_set(err, APIDEX_EPARSE,
                            "the embedding server's answer is not in the "
                            "OpenAI embeddings format: %s",
                            why);
    if (rc) core_error_at(err, hp->url, 0, 0, NULL);
    return rc;
}

/* One request with retries: body → answer (status 200) or an error. */
static int post_with_retries(http_provider *hp, const core_buf *req, core_buf *ans,
                             apidex_error *err)
{
    net_header hdrs[2] = {{"Content-Type", "application/json", false},
                          {"Authorization", hp->auth, true}};
    const char *secrets[2] = {hp->auth, hp->auth ? hp->auth + 7 : NULL}; /* "Bearer KEY", KEY */
    const char *origin[1] = {hp->base_url};
    /* the configured server's origin only; answers over the cap are an error, not cut */
    net_policy policy = {.allowed_origins = origin,
                         .n_allowed_origins = 1,
                         .max_redirects = NET_NO_REDIRECTS,
                         .timeout_ms = (long)hp->timeout_s * 1000,
                         .connect_timeout_ms = 15000,
                         .max_bytes = (size_t)HTTP_MAX_ANSWER + 1,
                         .hosts_hint = "the embedding URL (--embed-url, APIDEX_EMBED_URL) only"};
    net_request r = {.method = "POST",
                     .url = hp->url,
                     .headers = hdrs,
                     .n_headers = hp->auth ? 2 : 1,
                     .body = req->data,
                     .body_len = req->len,
                     .secrets = secrets,
                     .n_secrets = hp->auth ? 2 : 0,
                     .on_body = on_body,
                     .body_ctx = ans,
                     .session = hp->session};
    int rc = 0;
    unsigned delay = hp->backoff_ms;
    int attempts = hp->max_retries + 1;
    for (int attempt = 0; attempt < attempts; attempt++) {
        core_buf_reset(ans);
        ans->failed = false;
        hp->base.stats.requests++;
        if (attempt) hp->base.stats.retries++;
        net_response *resp = NULL;
        net_fail why = NET_FAIL_NONE;
        apidex_error nerr;
        core_error_clear(&nerr);
        int nrc = net_send(&r, &policy, &resp, &why, &nerr);
        long status = resp ? resp->status : 0;
        bool retry = false;
        if (nrc) {
            if ((why == NET_FAIL_SINK && ans->failed) || (resp && resp->truncated)) {
                rc = core_error_set(err, APIDEX_ELIMIT,
                                    "the embedding server's answer is over %u MB",
                                    HTTP_MAX_ANSWER >> 20);
                net_response_free(resp);
                break;
            }
            rc = core_error_set(err, nrc == APIDEX_EREFUSED ? APIDEX_EREFUSED : APIDEX_ENET,
                                "cannot reach the embedding server: %s (is it running? the URL "
                                "comes from --embed-url or APIDEX_EMBED_URL)",
                                nerr.message);
            retry = net_fail_transient(why);
        } else if (resp->truncated || ans->len > HTTP_MAX_ANSWER) {
            rc = core_error_set(err, APIDEX_ELIMIT, "the embedding server's answer is over %u MB",
                                HTTP_MAX_ANSWER >> 20);
            net_response_free(resp);
            break;
        } else if (status == 200) {
            rc = 0;
            net_response_free(resp);
            break;
        } else {
            char msg[300];
            core_api_error_message(ans->data, ans->len, msg, sizeof msg);
            if (status == 401 || status == 403)
                rc = core_error_set(err, APIDEX_ENET,
                                    "the embedding server refused the request (HTTP %ld): %s; "
                                    "check the API key (--embed-key, APIDEX_EMBED_KEY or "
                                    "OPENAI_API_KEY)",
                                    status, msg);
            else if (status == 404)
                rc = core_error_set(err, APIDEX_ENET,
                                    "HTTP 404 from the embedding server: %s; check the base URL "
                                    "and the model name '%s'",
                                    msg, hp->model);
            else
                rc = core_error_set(err, APIDEX_ENET, "HTTP %ld from the embedding server: %s",
                                    status, msg);
            retry = status == 429 || status >= 500;
            long long after = retry ? net_retry_after_ms(resp) : -1;
            if (after > 0) {
                unsigned want = after > HTTP_MAX_DELAY_MS ? HTTP_MAX_DELAY_MS : (unsigned)after;
                if (want > delay) delay = want;
            }
        }
        net_response_free(resp);
        if (!retry) break;
        if (attempt + 1 < attempts) {
            core_sleep_ms(delay);
            delay = delay * 2 > HTTP_MAX_DELAY_MS ? HTTP_MAX_DELAY_MS : delay * 2;
        } else if (attempts > 1) {
            char last[sizeof err->message];
            snprintf(last, sizeof last, "%s", err ? err->message : "");
            core_error_set(err, APIDEX_ENET, "gave up after %d attempts: %s", attempts, last);
        }
    }
    if (rc) core_error_at(err, hp->url, 0, 0, NULL);
    return rc;
}

/* Embeds texts in batches into out, which holds cap floats. */
static int embed_batches(http_provider *hp, const char *const *texts, size_t n, bool is_query,
                         float *out, size_t cap, apidex_error *err)
{
    core_buf req, ans;
    core_buf_init(&req, 256u << 20);
    core_buf_init(&ans, HTTP_MAX_ANSWER);
    int rc = 0;
    const char *prefix = is_query ? hp->prefix : "";
    size_t plen = strlen(prefix);
    for (size_t i = 0; i < n && !rc; i += hp->batch) {
        size_t m = n - i < hp->batch ? n - i : hp->batch;
        core_buf_reset(&req);
        core_buf_puts(&req, "{\"model\":");
        core_buf_json_str(&req, hp->model, strlen(hp->model));
        core_buf_puts(&req, ",\"encoding_format\":\"float\",\"input\":[");
        for (size_t j = 0; j < m; j++) {
            const char *t = texts[i + j] ? texts[i + j] : "";
            if (j) core_buf_putc(&req, ',');
            if (plen) {
                /* One JSON string of prefix + text: join them, then escape once. */
                core_buf joined;
                core_buf_init(&joined, 0);
                core_buf_append(&joined, prefix, plen);
                core_buf_puts(&joined, t);
                core_buf_json_str(&req, joined.data ? joined.data : "", joined.len);
                core_buf_free(&joined);
            } else {
                core_buf_json_str(&req, t, strlen(t));
            }
        }
        core_buf_puts(&req, "]}");
        if (req.failed) {
            rc = core_error_set(err, APIDEX_ELIMIT, "embedding request too large");
            break;
        }
        rc = post_with_retries(hp, &req, &ans, err);
        /* dim is known after the first answer (the caller made sure of it), so row
           offsets are right for every batch; parse_answer checks the capacity. */
        if (!rc)
            rc = parse_answer(hp, &ans, m, out + i * hp->base.dim, cap - i * hp->base.dim, err);
    }
    core_buf_free(&req);
    core_buf_free(&ans);
    return rc;
}

#define HTTP_MAX_DIM 65536

static int http_dim(embed_provider *p, size_t *dim, apidex_error *err)
{
    if (!p->dim) {
        /* One short request teaches us the size; its vector is thrown away. */
        http_provider *hp = (http_provider *)p;
        const char *probe = "dimension probe";
        float *tmp = malloc(HTTP_MAX_DIM * sizeof *tmp);
        if (!tmp) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        int rc = embed_batches(hp, &probe, 1, false, tmp, HTTP_MAX_DIM, err);
        free(tmp);
        if (rc) return rc;
    }
    *dim = p->dim;
    return 0;
}

static int http_embed(embed_provider *p, const char *const *texts, size_t n, bool is_query,
                      float *out, apidex_error *err)
{
    size_t dim = 0;
    int rc = http_dim(p, &dim, err); /* out was sized by the caller for this dim */
    if (rc) return rc;
    return embed_batches((http_provider *)p, texts, n, is_query, out, n * dim, err);
}

static void http_close(embed_provider *p)
{
    http_provider *hp = (http_provider *)p;
    net_session_free(hp->session);
    free(hp->base_url);
    free(hp->url);
    free(hp->model);
    free(hp->auth);
    free(hp->prefix);
    free(hp);
}

static const embed_provider_vtable http_vtable = {"http", http_embed, http_dim, http_close};

int embed_http_open(const embed_options *o, embed_provider **out, apidex_error *err)
{
    *out = NULL;
    if (!o->base_url || !*o->base_url)
        return core_error_set(err, APIDEX_EINVAL,
                              "the http embedding provider needs a base URL (--embed-url or "
                              "APIDEX_EMBED_URL, e.g. http://localhost:11434 for Ollama)");
    if (!net_url_is_http(o->base_url))
        return core_error_set(err, APIDEX_EINVAL,
                              "the embedding URL must start with http:// or "
                              "https://: '%s'",
                              o->base_url);
    const char *problem = net_base_url_problem(o->base_url);
    if (problem)
        return core_error_set(err, APIDEX_EINVAL, "bad embedding URL '%s': %s", o->base_url,
                              problem);
    http_provider *hp = calloc(1, sizeof *hp);
    if (!hp) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    hp->base.vt = &http_vtable;
    const char *model = o->model && *o->model ? o->model : EMBED_DEFAULT_MODEL;
    hp->base_url = strdup(o->base_url);
    hp->url = embed_http_endpoint(o->base_url);
    hp->model = strdup(model);
    hp->prefix = strdup(o->query_prefix ? o->query_prefix : embed_default_query_prefix(model));
    if (o->api_key && *o->api_key) {
        size_t n = strlen(o->api_key) + 32;
        hp->auth = malloc(n);
        if (hp->auth) snprintf(hp->auth, n, "Bearer %s", o->api_key);
    }
    hp->batch = o->batch_size ? o->batch_size : 64;
    hp->max_retries = o->max_retries < 0 ? 0 : o->max_retries ? o->max_retries : 5;
    hp->backoff_ms = o->backoff_ms ? o->backoff_ms : 500;
    hp->timeout_s = o->timeout_s ? o->timeout_s : 120;
    hp->normalize = o->normalize != EMBED_NORMALIZE_OFF;
    hp->base.normalized = hp->normalize;
    hp->session = net_session_new();
    if (!hp->base_url || !hp->url || !hp->model || !hp->prefix ||
        (o->api_key && *o->api_key && !hp->auth) || !hp->session) {
        http_close(&hp->base);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    snprintf(hp->base.model_id, sizeof hp->base.model_id, "%s", model);
    char hex[17];
    core_buf fp;
    core_buf_init(&fp, 0);
    core_buf_printf(&fp, "%s\n%s\n%s\n%d", hp->url, model, hp->prefix, hp->normalize);
    core_hash_hex(core_hash64(fp.data ? fp.data : "", fp.len), hex);
    core_buf_free(&fp);
    snprintf(hp->base.fingerprint, sizeof hp->base.fingerprint, "http:%.80s:%s", model, hex);
    *out = &hp->base;
    return 0;
}
