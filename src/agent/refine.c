/*
 * LLM chunk refinement (the chunking paper, §3.2, Table 1, "LLM-based"): for the summary
 * and query strategies an LLM writes, per endpoint, a summary or a likely user
 * query; that text is what gets indexed and embedded, while the chunk content
 * stays the full endpoint.
 *
 * Index time must stay cheap to repeat, so every text is cached on disk keyed
 * by (model, prompt version, strategy, hash of the endpoint as rendered for
 * the prompt): re-indexing an unchanged endpoint costs nothing. Chunking calls
 * the describe hook one endpoint at a time, so agent_refine_prefetch first
 * fills the cache with a few concurrent LLM calls (a bounded worker pool) and
 * reports progress; the hook then mostly reads memory.
 */
#include "agent/agent_int.h"

#include "view/view.h"

#include <stdio.h>
#include <ctype.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    REFINE_DEFAULT_CONCURRENCY = 4,
    REFINE_MAX_CONCURRENCY = 32,
    REFINE_MAX_TOKENS = 200, /* a summary or a query is one or two sentences */
    REFINE_MAX_TEXT = 2000   /* bytes kept of what the model wrote */
};

static const char *const refine_system =
    "You describe API endpoints for a search index. Reply with the requested text only: no "
    "preamble, no quotes, no markdown.";

static const char *const summary_task =
    "Summarize what this API endpoint does in one or two sentences (at most 60 words): the "
    "action, the resource, the main inputs and what it returns.";

static const char *const query_task =
    "Write one request a user of this API might make that this endpoint fulfils, in plain "
    "words, as the user would say it, without naming the endpoint, its path or its parameter "
    "names.";

typedef struct memo_entry {
    uint64_t key;
    char *text;
} memo_entry;

struct agent_refiner {
    agent_llm *llm;
    agent_refine_options opt;
    char *cache_dir; /* NULL = default folder, "" = no disk cache */
    char signature[320];
    pthread_mutex_t lock;
    memo_entry *memo; /* open addressing, key 0 = empty */
    size_t memo_cap, memo_n;
    agent_refine_stats stats;
};

/* ---------------------------------------------------------------- memory */

static memo_entry *memo_slot(agent_refiner *r, uint64_t key)
{
    size_t mask = r->memo_cap - 1;
    for (size_t i = (size_t)key & mask;; i = (i + 1) & mask)
        if (r->memo[i].key == key || r->memo[i].key == 0) return &r->memo[i];
}

/* Caller holds the lock. */
static const char *memo_get(agent_refiner *r, uint64_t key)
{
    if (!r->memo_cap) return NULL;
    memo_entry *e = memo_slot(r, key);
    return e->key ? e->text : NULL;
}

/* Caller holds the lock; takes text. */
static int memo_put(agent_refiner *r, uint64_t key, char *text)
{
    if ((r->memo_n + 1) * 2 > r->memo_cap) {
        size_t nc = r->memo_cap ? r->memo_cap * 2 : 256;
        memo_entry *old = r->memo;
        size_t oc = r->memo_cap;
        r->memo = calloc(nc, sizeof *r->memo);
        if (!r->memo) {
            r->memo = old;
            free(text);
            return APIDEX_ENOMEM;
        }
        r->memo_cap = nc;
        for (size_t i = 0; i < oc; i++)
            if (old[i].key) *memo_slot(r, old[i].key) = old[i];
        free(old);
    }
    memo_entry *e = memo_slot(r, key);
    if (e->key) {
        free(text); /* two threads wrote the same endpoint: keep the first */
        return 0;
    }
    e->key = key ? key : 1;
    e->text = text;
    r->memo_n++;
    return 0;
}

/* ---------------------------------------------------------------- prompts and keys */

typedef struct refine_job {
    const spec_api *api;
    const spec_operation *op;
    chunk_strategy strategy;
    char *prompt;      /* the user message */
    uint64_t key;      /* memory and disk key */
    char hash_hex[17]; /* content hash, kept in the cache entry */
} refine_job;

static int job_prepare(agent_refiner *r, refine_job *j)
{
    core_buf content, p;
    core_buf_init(&content, 64u << 20);
    core_buf_init(&p, 64u << 20);
    view_render_options ro = {0};
    int rc = view_render_operation(j->api, j->op, &ro, &content, NULL);
    if (!rc) {
        core_buf_printf(
            &p, "%s\n\nAPI: %s\n\n%s", j->strategy == CHUNK_QUERY ? query_task : summary_task,
            j->api->title ? j->api->title : j->api->id, content.data ? content.data : "");
        rc = p.failed ? APIDEX_ENOMEM : 0;
    }
    if (!rc) {
        uint64_t h = core_hash64(p.data, p.len);
        core_hash_hex(h, j->hash_hex);
        const agent_llm_config *cfg = agent_llm_get_config(r->llm);
        core_buf k;
        core_buf_init(&k, 8192);
        core_buf_printf(&k, "refine\n%s\n%d\n%s\n%s", cfg->model, AGENT_REFINE_PROMPT_VERSION,
                        chunk_strategy_name(j->strategy), j->hash_hex);
        j->key = core_hash64(k.data, k.len);
        if (!j->key) j->key = 1;
        rc = k.failed ? APIDEX_ENOMEM : 0;
        core_buf_free(&k);
        j->prompt = rc ? NULL : core_buf_steal(&p, NULL);
    }
    core_buf_free(&content);
    core_buf_free(&p);
    return rc;
}

static bool disk_enabled(const agent_refiner *r)
{
    return !(r->cache_dir && !*r->cache_dir);
}

/* A cached text for the job (malloc'd), checking the entry is for this model and content. */
static char *disk_get(agent_refiner *r, const refine_job *j)
{
    if (!disk_enabled(r)) return NULL;
    core_buf path;
    core_buf_init(&path, 8192);
    char *out = NULL;
    if (!agent_cache_entry_path(r->cache_dir, "refine", j->key, &path, NULL)) {
        char *text = agent_cache_read(path.data);
        json_object *root = text ? json_tokener_parse(text) : NULL;
        json_object *m, *h, *t;
        if (root && json_object_object_get_ex(root, "model", &m) &&
            json_object_object_get_ex(root, "hash", &h) &&
            json_object_object_get_ex(root, "text", &t) &&
            !strcmp(json_object_get_string(m), agent_llm_get_config(r->llm)->model) &&
            !strcmp(json_object_get_string(h), j->hash_hex))
            out = strdup(json_object_get_string(t));
        json_object_put(root);
        free(text);
    }
    core_buf_free(&path);
    return out;
}

static void disk_put(agent_refiner *r, const refine_job *j, const char *text)
{
    if (!disk_enabled(r)) return;
    core_buf path, b;
    core_buf_init(&path, 8192);
    core_buf_init(&b, 1u << 20);
    if (!agent_cache_entry_path(r->cache_dir, "refine", j->key, &path, NULL)) {
        const char *model = agent_llm_get_config(r->llm)->model;
        core_buf_puts(&b, "{\"model\":");
        core_buf_json_str(&b, model, strlen(model));
        core_buf_printf(&b,
                        ",\"prompt_version\":%d,\"strategy\":\"%s\",\"hash\":\"%s\","
                        "\"endpoint\":",
                        AGENT_REFINE_PROMPT_VERSION, chunk_strategy_name(j->strategy), j->hash_hex);
        core_buf_json_str(&b, j->op->id, strlen(j->op->id));
        core_buf_puts(&b, ",\"text\":");
        core_buf_json_str(&b, text, strlen(text));
        core_buf_puts(&b, "}\n");
        if (!b.failed) agent_cache_write(path.data, b.data, b.len);
    }
    core_buf_free(&path);
    core_buf_free(&b);
}

/* One line, no wrapping quotes or labels, capped. */
static char *clean_text(const char *s)
{
    static const char *const labels[] = {"Summary:", "Query:", "Request:", NULL};
    for (bool again = true; again;) { /* leading blanks, quotes and one label, in any order */
        again = false;
        while (*s && (isspace((unsigned char)*s) || *s == '"' || *s == '`')) s++;
        for (size_t i = 0; labels[i]; i++)
            if (!strncasecmp(s, labels[i], strlen(labels[i]))) {
                s += strlen(labels[i]);
                again = true;
            }
    }
    size_t n = strlen(s);
    if (n > REFINE_MAX_TEXT) {
        n = REFINE_MAX_TEXT;
        while (n && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    }
    char *out = malloc(n + 1);
    if (!out) return NULL;
    size_t k = 0;
    bool space = false;
    for (size_t i = 0; i < n; i++) {
        if (isspace((unsigned char)s[i])) {
            space = k > 0;
            continue;
        }
        if (space) out[k++] = ' ';
        space = false;
        out[k++] = s[i];
    }
    while (k && (out[k - 1] == '"' || out[k - 1] == '`')) k--;
    out[k] = '\0';
    return out;
}

/* The model's text for a job (malloc'd), via one LLM call. */
static int job_call(agent_refiner *r, const refine_job *j, char **out, agent_usage *usage,
                    apidex_error *err)
{
    *out = NULL;
    agent_chat *chat = agent_chat_new();
    if (!chat) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    int rc = agent_chat_add(chat, "system", refine_system);
    if (!rc) rc = agent_chat_add(chat, "user", j->prompt);
    agent_reply rep;
    memset(&rep, 0, sizeof rep);
    agent_call_options co = {.max_tokens = REFINE_MAX_TOKENS, .stream = -1};
    if (!rc) rc = agent_llm_chat(r->llm, chat, &co, &rep, err);
    agent_chat_free(chat);
    if (rc) return rc;
    *usage = rep.usage;
    char *text = clean_text(rep.content ? rep.content : "");
    agent_reply_free(&rep);
    if (!text) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (!*text) {
        free(text);
        return core_error_set(err, APIDEX_EPARSE, "the LLM wrote an empty %s for %s",
                              j->strategy == CHUNK_QUERY ? "query" : "summary", j->op->id);
    }
    *out = text;
    return 0;
}

/* Memory, then disk, then the LLM; the text is stored in memory (and on disk when new). */
static int job_text(agent_refiner *r, refine_job *j, const char **out, bool *from_llm,
                    apidex_error *err)
{
    *from_llm = false;
    pthread_mutex_lock(&r->lock);
    const char *m = memo_get(r, j->key);
    if (!m) r->stats.requested++; /* endpoints, not lookups: a prefetched one counts once */
    pthread_mutex_unlock(&r->lock);
    if (m) {
        *out = m;
        return 0;
    }
    char *text = disk_get(r, j);
    agent_usage u = {0};
    int rc = 0;
    if (text) {
        pthread_mutex_lock(&r->lock);
        r->stats.cache_hits++;
        pthread_mutex_unlock(&r->lock);
    } else {
        rc = job_call(r, j, &text, &u, err);
        pthread_mutex_lock(&r->lock);
        if (rc)
            r->stats.failures++;
        else
            r->stats.llm_calls++;
        agent_usage_add(&r->stats.usage, &u);
        pthread_mutex_unlock(&r->lock);
        if (rc) return rc;
        disk_put(r, j, text);
        *from_llm = true;
    }
    pthread_mutex_lock(&r->lock);
    rc = memo_put(r, j->key, text);
    *out = rc ? NULL : memo_get(r, j->key);
    pthread_mutex_unlock(&r->lock);
    return rc ? core_error_set(err, rc, "out of memory") : 0;
}

/* ---------------------------------------------------------------- public */

int agent_refiner_new(agent_llm *llm, const agent_refine_options *opt, agent_refiner **out,
                      apidex_error *err)
{
    *out = NULL;
    if (!llm) return core_error_set(err, APIDEX_EINVAL, "%s", agent_llm_setup_hint());
    agent_refiner *r = calloc(1, sizeof *r);
    if (!r) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    r->llm = llm;
    if (opt) r->opt = *opt;
    if (!r->opt.strategy) r->opt.strategy = CHUNK_SUMMARY;
    if (r->opt.strategy != CHUNK_SUMMARY && r->opt.strategy != CHUNK_QUERY) {
        free(r);
        return core_error_set(err, APIDEX_EINVAL,
                              "LLM refinement is for the summary and query strategies only");
    }
    if (!r->opt.concurrency) r->opt.concurrency = REFINE_DEFAULT_CONCURRENCY;
    if (r->opt.concurrency > REFINE_MAX_CONCURRENCY) r->opt.concurrency = REFINE_MAX_CONCURRENCY;
    if (r->opt.cache_dir) {
        r->cache_dir = strdup(r->opt.cache_dir);
        if (!r->cache_dir) {
            free(r);
            return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        }
    }
    r->opt.cache_dir = r->cache_dir;
    snprintf(r->signature, sizeof r->signature, "llm:%.256s:p%d", agent_llm_get_config(llm)->model,
             AGENT_REFINE_PROMPT_VERSION);
    pthread_mutex_init(&r->lock, NULL);
    *out = r;
    return 0;
}

void agent_refiner_free(agent_refiner *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->memo_cap; i++) free(r->memo[i].text);
    free(r->memo);
    free(r->cache_dir);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

const char *agent_refiner_signature(const agent_refiner *r)
{
    return r->signature;
}

agent_refine_stats agent_refiner_stats(const agent_refiner *r)
{
    agent_refiner *m = (agent_refiner *)r; /* the lock is state, not the value */
    pthread_mutex_lock(&m->lock);
    agent_refine_stats s = r->stats;
    pthread_mutex_unlock(&m->lock);
    return s;
}

int agent_refine_describe(void *ctx, const spec_api *api, const spec_operation *op,
                          chunk_strategy strategy, core_buf *out, apidex_error *err)
{
    agent_refiner *r = ctx;
    refine_job j = {.api = api, .op = op, .strategy = strategy};
    int rc = job_prepare(r, &j);
    if (rc) return core_error_set(err, rc, "out of memory");
    const char *text = NULL;
    bool from_llm;
    rc = job_text(r, &j, &text, &from_llm, err);
    free(j.prompt);
    if (rc) return rc;
    return core_buf_puts(out, text) ? core_error_set(err, APIDEX_ENOMEM, "out of memory") : 0;
}

typedef struct pool {
    agent_refiner *r;
    refine_job *jobs;
    size_t n, next, done;
    int rc;
    apidex_error err;
    pthread_mutex_t lock;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->rc ? p->n : p->next++; /* after an error, stop handing out work */
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n) break;
        apidex_error e;
        core_error_clear(&e);
        const char *text;
        bool from_llm;
        int rc = job_text(p->r, &p->jobs[i], &text, &from_llm, &e);
        pthread_mutex_lock(&p->lock);
        if (rc && !p->rc) {
            p->rc = rc;
            p->err = e;
        }
        size_t done = ++p->done;
        if (p->r->opt.progress) p->r->opt.progress(p->r->opt.progress_ctx, done, p->n);
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

int agent_refine_prefetch(agent_refiner *r, const spec_registry *reg, apidex_error *err)
{
    size_t n = 0;
    for (size_t i = 0; reg && i < spec_registry_count(reg); i++) {
        const spec_api *api = spec_registry_api(reg, i);
        if (!api->failed) n += api->n_ops;
    }
    if (!n) return 0;
    pool p = {.r = r, .jobs = calloc(n, sizeof *p.jobs)};
    if (!p.jobs) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < spec_registry_count(reg) && !rc; i++) {
        const spec_api *api = spec_registry_api(reg, i);
        for (size_t k = 0; !api->failed && k < api->n_ops && !rc; k++) {
            refine_job *j = &p.jobs[p.n++];
            *j = (refine_job){.api = api, .op = &api->ops[k], .strategy = r->opt.strategy};
            rc = job_prepare(r, j);
        }
    }
    if (rc) {
        for (size_t i = 0; i < p.n; i++) free(p.jobs[i].prompt);
        free(p.jobs);
        return core_error_set(err, rc, "out of memory");
    }
    pthread_mutex_init(&p.lock, NULL);
    core_error_clear(&p.err);
    unsigned nt = r->opt.concurrency;
    if (nt > n) nt = (unsigned)n;
    pthread_t threads[REFINE_MAX_CONCURRENCY];
    unsigned started = 0;
    for (; started < nt; started++)
        if (pthread_create(&threads[started], NULL, worker, &p)) break;
    if (!started) worker(&p); /* no thread could start: do it here, one at a time */
    for (unsigned i = 0; i < started; i++) pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&p.lock);
    for (size_t i = 0; i < p.n; i++) free(p.jobs[i].prompt);
    free(p.jobs);
    if (p.rc && err) *err = p.err;
    return p.rc;
}

/* ---------------------------------------------------------------- store builds */

static void attach_setup(void *ctx, struct chunk_options *copt)
{
    agent_refiner *r = ctx;
    if (copt->strategy != CHUNK_SUMMARY && copt->strategy != CHUNK_QUERY) return;
    r->opt.strategy = copt->strategy; /* what prefetch must write */
    copt->describe = agent_refine_describe;
    copt->describe_ctx = r;
}

static int attach_prepare(void *ctx, const spec_registry *reg, apidex_error *err)
{
    return agent_refine_prefetch(ctx, reg, err);
}

void agent_refiner_attach(agent_refiner *r, build_options *opt)
{
    opt->chunk_setup = attach_setup;
    opt->chunk_setup_ctx = r;
    opt->describe_signature = r->signature;
    opt->describe_prepare = attach_prepare;
}
