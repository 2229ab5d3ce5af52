/* Fuzz target for the request builder's origin rules (docs/EXECUTE.md, Origins): against the
 * fixed spec tests/data/exec/origin.yaml with an API key in the environment, byte 0 picks the
 * operation and whether a server override is given, trusted (the command line) or not (a
 * model), and whether an --allow-host entry is; the rest, split at newlines, gives the server
 * override, the --allow-host entry and the values of the server variables and parameters.
 * The oracle reads the built URL with curl's own parser (what the transport connects to) and
 * abort()s when a request exec_build allowed goes to an origin nobody allowed, or when the
 * API key is attached to a request for an origin other than the API's or one named in full
 * with --allow-host. */
#include "exec/exec.h"

#include <curl/curl.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static spec_registry *reg;
static const spec_api *api;

static void setup(void)
{
    if (api) return;
    apidex_error err;
    if (spec_registry_new(NULL, &reg, &err) ||
        spec_registry_add(reg, APIDEX_SOURCE_DIR "/tests/data/exec/origin.yaml", &err))
        abort();
    api = spec_registry_api(reg, 0);
    if (!api || api->failed) abort();
    core_arena *a = core_arena_new(0);
    setenv(exec_creds_env_name(api->id, "key", NULL, a), "fuzz-key-value", 1);
    core_arena_free(a);
    unsetenv("APIDEX_CREDENTIALS");
    setenv("HOME", "/nonexistent-apidex-fuzz-home", 1);
    unsetenv("XDG_CONFIG_HOME");
}

/* The origin curl reads in url ("scheme://host:port", lower case) into out; false when curl
   cannot read it (then nothing can be sent). */
static bool curl_origin(const char *url, char *out, size_t cap)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    bool ok = u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK;
    if (ok) snprintf(out, cap, "%s://%s:%s", scheme, host, port);
    for (char *c = out; ok && *c; c++) *c = (char)tolower((unsigned char)*c);
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return ok;
}

/* The host of an origin, into out. */
static void host_of(const char *origin, char *out, size_t cap)
{
    const char *h = strstr(origin, "://");
    h = h ? h + 3 : origin;
    const char *colon = strrchr(h, ':');
    snprintf(out, cap, "%.*s", (int)(colon ? colon - h : (long)strlen(h)), h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096) return 0;
    setup();
    char *text = calloc(1, size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    /* fields: server, allow entry, tenant, version, region, port, id, q, X-Trace, v */
    char *field[10] = {0};
    size_t nf = 0;
    for (char *p = text; nf < 10;) {
        field[nf++] = p;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        *nl = '\0';
        p = nl + 1;
    }
    static const char *const ops[] = {"getItem", "getTenant", "getRegional", "getLabel"};
    static const char *const names[] = {"tenant", "version", "region",  "port",
                                        "id",     "q",       "X-Trace", "v"};
    /* the API's origins as the spec gives them (the oracle's own list, not exec_api_origins) */
    static const char *const spec_origins[4][5] = {
        {"https://api.example.com:443"},
        {"https://acme.tenant.example.net:443"},
        {"https://eu.example.com:443", "https://us.example.com:443", "https://eu.example.com:8443",
         "https://us.example.com:8443"},
        {"https://api.example.com:443"}};
    unsigned op_i = data[0] & 3;
    bool has_server = data[0] & 4, untrusted = data[0] & 8, has_allow = data[0] & 16;
    const spec_operation *op = NULL;
    for (size_t i = 0; i < api->n_ops && !op; i++)
        if (api->ops[i].operation_id && !strcmp(api->ops[i].operation_id, ops[op_i]))
            op = &api->ops[i];
    if (!op) abort();
    const char *params[8];
    size_t np = 0;
    core_arena *a = core_arena_new(0);
    for (size_t i = 2; i < nf && a; i++) {
        if (!field[i][0]) continue;
        params[np++] = core_arena_printf(a, "%s=%s", names[i - 2], field[i]);
    }
    const char *allow[1] = {has_allow && nf > 1 ? field[1] : NULL};
    exec_build_options o = {.params = params,
                            .n_params = np,
                            .server = has_server && nf > 0 ? field[0] : NULL,
                            .allow_hosts = allow,
                            .n_allow_hosts = allow[0] ? 1 : 0,
                            .untrusted_server = untrusted};
    exec_request r;
    apidex_error err;
    char got[600], allow_origin[600] = "", server_origin[600] = "";
    if (a && exec_build(api, op, &o, &r, &err) == 0) {
        if (curl_origin(r.url, got, sizeof got)) {
            bool exact_allow = allow[0] && strstr(allow[0], "://") &&
                               curl_origin(allow[0], allow_origin, sizeof allow_origin);
            bool in_spec = false;
            for (size_t i = 0; i < 5 && spec_origins[op_i][i]; i++)
                in_spec = in_spec || !strcmp(spec_origins[op_i][i], got);
            bool creds_ok = in_spec || (exact_allow && !strcmp(allow_origin, got));
            /* a credential only for the API's origins or one named in full */
            bool has_key = false;
            for (size_t i = 0; i < r.n_headers; i++)
                has_key = has_key || !strcasecmp(r.headers[i].name, "X-Api-Key");
            if (has_key && !creds_ok) {
                fprintf(stderr, "credential attached for %s (url %s)\n", got, r.url);
                abort();
            }
            /* an allowed request goes where the spec, the trusted server or --allow-host say */
            bool reach = creds_ok;
            if (!reach && o.server && !untrusted &&
                curl_origin(o.server, server_origin, sizeof server_origin))
                reach = !strcmp(server_origin, got);
            if (!reach && allow[0] && !exact_allow) {
                char h1[600], h2[600];
                host_of(got, h1, sizeof h1);
                snprintf(h2, sizeof h2, "%s", allow[0]);
                char *colon = strrchr(h2, ':');
                if (colon && !strchr(h2, ']')) *colon = '\0';
                reach = !strcasecmp(h1, h2) || (h2[0] == '[' && strstr(h1, h2 + 1));
            }
            if (r.origin_allowed && !reach) {
                fprintf(stderr, "request allowed to %s (url %s)\n", got, r.url);
                abort();
            }
        }
        exec_build_free(&r);
    }
    core_arena_free(a);
    free(text);
    return 0;
}
