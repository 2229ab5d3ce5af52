/* What `call` and `snippet` share: their flags, the operation named on the command line
   (resolved as `show` does), its API's document read again, and the request built from it
   by exec_build; and the call flags of `serve` and `mcp` (--allow-calls and its rules). */
#include "cli/cli.h"

#include "exec/exec.h"
#include "mcpc/mcpc.h"
#include "serve/serve.h"
#include "store/store.h"

#include <stdlib.h>
#include <string.h>

enum { CALL_MAX_BODY = 64 << 20 };

struct cli_call_target {
    store_index *idx;
    store_doc *doc;
    char *body; /* --body @file's content */
    exec_request request;
    const spec_api *api;
    const spec_operation *op;
    const char *tool_id;   /* an MCP tool: its id (called over MCP, no request is built) */
    const char *tool_body; /* its --body (the arguments), @file read */
};

int cli_call_take_param(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)cmd, (void)flag;
    cli_call_args *a = opts;
    a->params[a->n_params++] = value;
    return CLI_OK;
}

int cli_call_take_host(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)flag;
    cli_call_args *a = opts;
    if (!cli_arg_allow_host(cmd, value)) return CLI_USAGE;
    a->hosts[a->n_hosts++] = value;
    return CLI_OK;
}

int cli_call_take_address(const char *cmd, const char *flag, const char *value, void *opts)
{
    (void)flag;
    cli_call_args *a = opts;
    if (!cli_arg_address(cmd, value)) return CLI_USAGE;
    a->addresses[a->n_addresses++] = value;
    return CLI_OK;
}

/* A positive number (whole, or of seconds) of at most 1e12, into *x. */
static int positive(const char *cmd, const char *flag, const char *v, bool whole, double *x)
{
    char *end = NULL;
    *x = strtod(v, &end);
    if (end == v || *end || !(*x > 0) || *x > 1e12 || (whole && *x != (double)(long long)*x))
        return cli_usage_error(cmd, "%s wants a positive %s, not '%s'", flag,
                               whole ? "whole number" : "number of seconds", v);
    return CLI_OK;
}

int cli_call_take_timeout(const char *cmd, const char *flag, const char *value, void *opts)
{
    double x = 0;
    if (positive(cmd, flag, value, false, &x)) return CLI_USAGE;
    ((cli_call_args *)opts)->timeout_ms = (long)(x * 1000 + 0.5);
    return CLI_OK;
}

static int take_whole(const char *cmd, const char *flag, const char *value, size_t *out)
{
    double x = 0;
    if (positive(cmd, flag, value, true, &x)) return CLI_USAGE;
    *out = (size_t)x;
    return CLI_OK;
}

int cli_call_take_max_bytes(const char *cmd, const char *flag, const char *value, void *opts)
{
    return take_whole(cmd, flag, value, &((cli_call_args *)opts)->max_bytes);
}

int cli_call_take_budget(const char *cmd, const char *flag, const char *value, void *opts)
{
    return take_whole(cmd, flag, value, &((cli_call_args *)opts)->budget);
}

int cli_call_take_max_items(const char *cmd, const char *flag, const char *value, void *opts)
{
    return take_whole(cmd, flag, value, &((cli_call_args *)opts)->max_items);
}

int cli_call_parse(const char *cmd, const cli_flag_table *t, void (*usage)(FILE *), int argc,
                   char **argv, cli_call_args *a)
{
    memset(a, 0, sizeof *a);
    a->params = calloc((size_t)argc + 1, sizeof *a->params);
    a->hosts = calloc((size_t)argc + 1, sizeof *a->hosts);
    a->addresses = calloc((size_t)argc + 1, sizeof *a->addresses);
    if (!a->params || !a->hosts || !a->addresses) return CLI_FAILURE;
    for (int i = 1; i < argc; i++) {
        int r = cli_flags_take(cmd, t, usage, argc, argv, &i, a);
        if (r == CLI_FLAGS_HELP) return -1;
        if (r < 0) return CLI_USAGE;
        if (r) continue;
        const char *f = argv[i];
        if ((f[0] == '-' && f[1]) || a->what) return cli_arg_unknown(cmd, f);
        a->what = f;
    }
    if (!a->what)
        return cli_usage_error(cmd, "name an endpoint: an id, \"METHOD /path\" or an operationId");
    return CLI_OK;
}

/* The one operation a names, as an index into ops; -1 after saying why not (*code). */
static long find_one(const char *cmd, const cli_call_args *a, const char *db,
                     const store_operation *ops, size_t n_ops, int *code)
{
    long found[16];
    size_t n = cli_find_operations(ops, n_ops, a->what, a->api, found, 16);
    if (n == 1) return found[0];
    if (n == 0) {
        cli_no_operation(cmd, ops, n_ops, a->what, a->api, db);
        *code = CLI_PROBLEMS;
        return -1;
    }
    fprintf(stderr, "apidex %s: '%s' names %zu operations; pick one with --api or an id:\n", cmd,
            a->what, n);
    for (size_t i = 0; i < n && i < 16; i++)
        fprintf(stderr, "  %s  (%s %s)\n", ops[found[i]].id, ops[found[i]].method,
                ops[found[i]].path);
    *code = CLI_USAGE;
    return -1;
}

int cli_call_build(const char *cmd, const cli_call_args *a, bool placeholders,
                   cli_call_target **out, exec_request **request)
{
    *out = NULL;
    *request = NULL;
    cli_call_target *t = calloc(1, sizeof *t);
    if (!t) return CLI_FAILURE;
    *out = t;
    apidex_error err;
    core_error_clear(&err);
    const char *body = a->body;
    if (body && body[0] == '@') {
        size_t len = 0;
        if (core_file_read(body + 1, CALL_MAX_BODY, &t->body, &len, &err)) {
            fprintf(stderr, "apidex %s: --body %s: %s\n", cmd, body, err.message);
            return CLI_USAGE;
        }
        body = t->body;
    }
    const char *db = cli_db_path(a->db);
    const store_operation *ops = NULL;
    const store_api *apis = NULL;
    size_t n_ops = 0, n_apis = 0;
    int rc = store_open(db, true, &t->idx, &err);
    if (!rc) rc = store_operations(t->idx, &ops, &n_ops, &err);
    if (!rc) rc = store_apis(t->idx, &apis, &n_apis, &err);
    if (rc) {
        cli_print_error(&err);
        return CLI_FAILURE;
    }
    cli_call_args resolved = *a; /* --api by id, alias, prefix or title: the id */
    if (a->api && (rc = cli_check_apis(cmd, t->idx, &resolved.api, 1)) != CLI_OK) return rc;
    int code = CLI_OK;
    long oi = find_one(cmd, &resolved, db, ops, n_ops, &code);
    if (oi < 0) return code;
    const store_operation *sop = &ops[oi];
    long ai = store_find_api(t->idx, sop->api);
    if (ai < 0) {
        fprintf(stderr, "apidex %s: the index has no API %s\n", cmd, sop->api);
        return CLI_FAILURE;
    }
    const store_api *sapi = &apis[ai];
    /* the document as indexed, under the index's API id (the variables are named by it) */
    const spec_api *api = NULL;
    if (exec_api_reload(t->idx, (size_t)ai, &t->doc, &api, &err)) {
        fprintf(stderr, "apidex %s: %s\n", cmd, err.message);
        return CLI_FAILURE;
    }
    if (api->content_hash != sapi->content_hash)
        fprintf(stderr,
                "apidex %s: note: %s changed since it was indexed; the request follows "
                "the document as it is now\n",
                cmd, sapi->document);
    const spec_operation *op = store_doc_operation(api, sop->method, sop->path);
    if (!op) {
        fprintf(stderr, "apidex %s: %s %s is no longer in %s: index it again\n", cmd, sop->method,
                sop->path, sapi->document);
        return CLI_FAILURE;
    }
    t->api = api;
    t->op = op;
    if (exec_tool_is(op)) {
        /* an MCP tool, resource or prompt: called over MCP by its server (exec_tool_call), no
           HTTP request */
        if (strcmp(cmd, "call"))
            return cli_usage_error(cmd,
                                   "%s is an MCP %s: there is no HTTP request to write; "
                                   "call it with apidex call",
                                   sop->id, exec_mcp_kind(op));
        if (a->server || a->content_type)
            return cli_usage_error(cmd,
                                   "%s is an MCP %s: it is called on its registry "
                                   "server, so %s does not apply",
                                   sop->id, exec_mcp_kind(op),
                                   a->server ? "--server" : "--content-type");
        t->tool_id = sop->id;
        t->tool_body = body;
        return CLI_OK;
    }
    exec_build_options o = {.params = a->params,
                            .n_params = a->n_params,
                            .body = body,
                            .server = a->server,
                            .content_type = a->content_type,
                            .overrides = sapi->overrides,
                            .placeholders = placeholders,
                            .token_fn = a->oauth ? exec_oauth_token : NULL,
                            .token_ctx = a->oauth,
                            .operation_id = sop->id,
                            .allow_hosts = (const char *const *)a->hosts,
                            .n_allow_hosts = a->n_hosts};
    rc = exec_build(api, op, &o, &t->request, &err);
    if (rc) {
        fprintf(stderr, "apidex %s: %s%s\n", cmd, rc == APIDEX_EREFUSED ? "refused: " : "",
                err.message);
        return rc == APIDEX_EINVAL ? CLI_USAGE : rc == APIDEX_EREFUSED ? CLI_REFUSED : CLI_FAILURE;
    }
    /* call --dry-run builds twice (the request, then its curl with placeholders): one set of
       notes */
    for (size_t i = 0; (!placeholders || !strcmp(cmd, "snippet")) && i < t->request.n_notes; i++)
        fprintf(stderr, "apidex %s: note: %s\n", cmd, t->request.notes[i]);
    *request = &t->request;
    return CLI_OK;
}

void cli_call_target_free(cli_call_target *t)
{
    if (!t) return;
    exec_build_free(&t->request);
    store_doc_release(t->doc);
    store_close(t->idx);
    free(t->body);
    free(t);
}

const spec_api *cli_call_target_api(const cli_call_target *t)
{
    return t ? t->api : NULL;
}

const spec_operation *cli_call_target_op(const cli_call_target *t)
{
    return t ? t->op : NULL;
}

const char *cli_call_target_tool(const cli_call_target *t, const char **body)
{
    if (body) *body = t ? t->tool_body : NULL;
    return t ? t->tool_id : NULL;
}

/* ---------------------------------------------------------------- serve and mcp --allow-calls */

/* --allow-host and --allow-address: repeatable, at most CLI_MAX_ALLOW each; an address is
   checked. */
static int allow_add(const char *cmd, const char *flag, const char *value, bool address,
                     const char **list, size_t *n)
{
    if (*n >= CLI_MAX_ALLOW)
        return cli_usage_error(cmd, "at most %d %s flags", CLI_MAX_ALLOW, flag);
    if (address ? !cli_arg_address(cmd, value) : !cli_arg_allow_host(cmd, value)) return CLI_USAGE;
    list[(*n)++] = value;
    return CLI_OK;
}

static int take_allow_host(const char *cmd, const char *flag, const char *value, void *opts)
{
    cli_serve_calls *c = opts;
    return allow_add(cmd, flag, value, false, c->hosts, &c->n_hosts);
}

static int take_allow_address(const char *cmd, const char *flag, const char *value, void *opts)
{
    cli_serve_calls *c = opts;
    return allow_add(cmd, flag, value, true, c->addresses, &c->n_addresses);
}

static int take_call_timeout(const char *cmd, const char *flag, const char *value, void *opts)
{
    double s = 0;
    if (!cli_arg_double(cmd, flag, value, 0.001, 3600, false, &s)) return CLI_USAGE;
    ((cli_serve_calls *)opts)->timeout_ms = (long)(s * 1000 + 0.5);
    return CLI_OK;
}

static const cli_flag serve_calls_rows[] = {
    CLI_TEXT("Calling endpoints (the MCP tool call_endpoint, POST /v1/call; off by default;\n"
             "the safety rules of `apidex call`, docs/EXECUTE.md):\n"),
    CLI_SWITCH("--allow-calls", NULL, cli_serve_calls, allow_calls,
               "  --allow-calls         let clients call the indexed endpoints (GET, HEAD and\n"
               "                        OPTIONS only; the API's origins only)\n"),
    CLI_SWITCH("--allow-write", NULL, cli_serve_calls, allow_write,
               "  --allow-write         other methods too (POST, PUT, PATCH, DELETE)\n"),
    CLI_HANDLER("--allow-host", NULL, take_allow_host, NULL,
                "  --allow-host HOST     another host, no credentials (repeatable);\n"
                "                        scheme://HOST[:PORT]: that origin, and the API's\n"
                "                        credentials may go there\n"),
    CLI_SWITCH("--allow-private", NULL, cli_serve_calls, allow_private,
               "  --allow-private       private, loopback and link-local addresses\n"),
    CLI_HANDLER("--allow-address", NULL, take_allow_address, NULL,
                "  --allow-address IP    this one private address only (repeatable)\n"),
    CLI_HANDLER("--call-timeout", NULL, take_call_timeout, NULL,
                "  --call-timeout S      each call's whole exchange (default 30)\n"),
    CLI_TEXT("Credentials: APIDEX_AUTH_<API>_<SCHEME>, the registry's auth, or the credentials\n"
             "file, as for `apidex call`.\n"),
};
const cli_flag_table cli_serve_calls_table = {serve_calls_rows,
                                              sizeof serve_calls_rows / sizeof *serve_calls_rows};

int cli_serve_calls_open(cli_serve_calls *c, serve_call_config *cfg, apidex_error *err)
{
    memset(cfg, 0, sizeof *cfg);
    c->oauth = NULL;
    bool rules =
        c->allow_write || c->allow_private || c->n_hosts || c->n_addresses || c->timeout_ms;
    if (!c->allow_calls)
        return rules ? core_error_set(err, APIDEX_EINVAL,
                                      "--allow-write, --allow-private, --allow-host, "
                                      "--allow-address and --call-timeout go with --allow-calls")
                     : 0;
    exec_policy p = {.allow_write = c->allow_write,
                     .allow_private = c->allow_private,
                     .allowed_hosts = c->hosts,
                     .n_allowed_hosts = c->n_hosts,
                     .allowed_addresses = c->addresses,
                     .n_allowed_addresses = c->n_addresses,
                     .timeout_ms = c->timeout_ms};
    /* OAuth2 token requests follow the calls' address rules (exec_oauth_new adds POST and
       the token host); tokens stay in memory */
    int rc = exec_oauth_new(&p, NULL, &c->oauth, err);
    if (rc) return rc;
    /* MCP servers' sessions stay open between calls (docs/MCP-SOURCES.md) */
    if (!(c->sessions = mcpc_pool_new(0, 0))) {
        exec_oauth_free(c->oauth);
        c->oauth = NULL;
        return core_error_set(err, APIDEX_ENOMEM, "cannot start the MCP session pool");
    }
    *cfg = (serve_call_config){
        .enabled = true, .policy = p, .oauth = c->oauth, .sessions = c->sessions};
    return 0;
}

void cli_serve_calls_close(cli_serve_calls *c)
{
    if (!c) return;
    exec_oauth_free(c->oauth);
    c->oauth = NULL;
    mcpc_pool_free(c->sessions);
    c->sessions = NULL;
}
