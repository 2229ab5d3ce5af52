/*
 * Where the LLM is: defaults, a JSON config file and the APIDEX_LLM_* variables
 * (the command line puts its flags over these). Reading the environment is the
 * caller's choice: nothing here runs unless called.
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- configuration */

void agent_llm_config_defaults(agent_llm_config *c)
{
    memset(c, 0, sizeof *c);
    c->temperature = 0.0;
    c->max_tokens = 1024;
    c->timeout_s = 120.0;
    c->connect_timeout_s = 10.0;
    c->max_retries = 3;
    c->backoff_ms = 1000;
    c->max_backoff_ms = 30000;
}

bool agent_llm_configured(const agent_llm_config *c)
{
    return c && c->base_url[0] && c->model[0];
}

const char *agent_llm_setup_hint(void)
{
    return "no LLM configured: set " AGENT_ENV_BASE_URL
           " (e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1 for "
           "Ollama), " AGENT_ENV_MODEL " and, if the server needs one, " AGENT_ENV_API_KEY
           " (or a config file named by " AGENT_ENV_CONFIG "; see docs/LLM.md)";
}

static int set_str(char *dst, size_t cap, const char *v, const char *what, apidex_error *err)
{
    size_t n = strlen(v);
    if (n >= cap) return core_error_set(err, APIDEX_EINVAL, "%s is too long (%zu bytes)", what, n);
    memcpy(dst, v, n + 1);
    return 0;
}

static int parse_seconds(const char *v, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !(d > 0) || d > 86400) return -1;
    *out = d;
    return 0;
}

int agent_llm_config_load_file(agent_llm_config *c, const char *path, apidex_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = core_file_read(path, 1u << 20, &text, &len, err);
    if (rc) return rc;
    json_tokener *tok = json_tokener_new();
    json_object *root = tok ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
    bool complete = tok && json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    free(text);
    if (!root || !complete || !json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        rc = core_error_set(err, APIDEX_EPARSE, "LLM config file is not a JSON object");
        core_error_at(err, path, 0, 0, NULL);
        return rc;
    }
    json_object_object_foreach(root, key, val)
    {
        const char *s = json_object_get_string(val);
        bool is_num =
            json_object_is_type(val, json_type_int) || json_object_is_type(val, json_type_double);
        bool is_str = json_object_is_type(val, json_type_string);
        if (!strcmp(key, "base_url") && is_str)
            rc = set_str(c->base_url, sizeof c->base_url, s, "base_url", err);
        else if (!strcmp(key, "model") && is_str)
            rc = set_str(c->model, sizeof c->model, s, "model", err);
        else if (!strcmp(key, "api_key") && is_str)
            rc = set_str(c->api_key, sizeof c->api_key, s, "api_key", err);
        else if (!strcmp(key, "api_key_env") && is_str) {
            const char *k = getenv(s);
            if (k) rc = set_str(c->api_key, sizeof c->api_key, k, "api_key", err);
        } else if (!strcmp(key, "temperature") && is_num)
            c->temperature = json_object_get_double(val);
        else if (!strcmp(key, "max_tokens") && is_num)
            c->max_tokens = (int)json_object_get_int(val);
        else if (!strcmp(key, "timeout") && is_num)
            c->timeout_s = json_object_get_double(val);
        else if (!strcmp(key, "connect_timeout") && is_num)
            c->connect_timeout_s = json_object_get_double(val);
        else if (!strcmp(key, "retries") && is_num)
            c->max_retries = (int)json_object_get_int(val);
        else if (!strcmp(key, "backoff_ms") && is_num)
            c->backoff_ms = (unsigned)json_object_get_int(val);
        else if (!strcmp(key, "stream") && json_object_is_type(val, json_type_boolean))
            c->stream = json_object_get_boolean(val);
        else
            rc = core_error_set(err, APIDEX_EINVAL,
                                "LLM config: unknown key or wrong type for \"%s\" (keys: base_url, "
                                "model, api_key, api_key_env, temperature, max_tokens, timeout, "
                                "connect_timeout, retries, backoff_ms, stream)",
                                key);
        if (rc) break;
    }
    json_object_put(root);
    if (!rc && (c->max_tokens < 0 || c->max_retries < 0 || c->max_retries > 20 ||
                !(c->timeout_s > 0) || c->temperature < 0 || c->temperature > 2))
        rc = core_error_set(err, APIDEX_EINVAL, "LLM config: a value is out of range");
    if (rc)
        core_error_at(err, path, 0, 0, NULL);
    else
        snprintf(c->config_file, sizeof c->config_file, "%s", path);
    return rc;
}

int agent_llm_config_from_env(agent_llm_config *c, apidex_error *err)
{
    const char *file = getenv(AGENT_ENV_CONFIG);
    int rc = 0;
    if (file && *file) {
        rc = agent_llm_config_load_file(c, file, err);
        if (rc) return rc;
    } else {
        core_buf p;
        core_buf_init(&p, 4096);
        const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
        if (xdg && *xdg)
            core_buf_printf(&p, "%s/apidex/llm.json", xdg);
        else if (home && *home)
            core_buf_printf(&p, "%s/.config/apidex/llm.json", home);
        if (p.len && !p.failed && access(p.data, F_OK) == 0)
            rc = agent_llm_config_load_file(c, p.data, err);
        core_buf_free(&p);
        if (rc) return rc;
    }
    return agent_llm_config_apply_env(c, err);
}

int agent_llm_config_apply_env(agent_llm_config *c, apidex_error *err)
{
    int rc = 0;
    const char *v;
    if ((v = getenv(AGENT_ENV_BASE_URL)) && *v)
        rc = set_str(c->base_url, sizeof c->base_url, v, AGENT_ENV_BASE_URL, err);
    if (!rc && (v = getenv(AGENT_ENV_MODEL)) && *v)
        rc = set_str(c->model, sizeof c->model, v, AGENT_ENV_MODEL, err);
    if (!rc && (v = getenv(AGENT_ENV_API_KEY)) && *v)
        rc = set_str(c->api_key, sizeof c->api_key, v, AGENT_ENV_API_KEY, err);
    if (!rc && (v = getenv(AGENT_ENV_TIMEOUT)) && *v && parse_seconds(v, &c->timeout_s))
        rc = core_error_set(err, APIDEX_EINVAL, "%s must be a number of seconds, got '%s'",
                            AGENT_ENV_TIMEOUT, v);
    return rc;
}
