/*
 * Tests for http(s) inputs and remote $refs against a local libmicrohttpd server:
 * off by default, the host allow-list, relative refs of a remote root, the size
 * cap, the timeout, missing documents; the private-address rule of the outbound layer
 * (loopback and link-local refused for remote refs, whatever the host allow-list says,
 * unless the address is allowed; a URL source's own origin allowed, a redirect away from it
 * checked).
 */
#include "testutil.h"

#include "oas/oas.h"

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct MHD_Daemon *server;
static unsigned short port;
static char big[70000];
static char cross_root[512];

static const char *page(const char *url)
{
    if (!strcmp(url, "/api/root.yaml"))
        return "openapi: 3.0.0\ninfo: {title: Remote, version: '1'}\npaths:\n"
               "  /things:\n    $ref: 'paths.yaml#/things'\n"
               "components:\n  schemas:\n"
               "    Other: {$ref: 'http://other.invalid/x.yaml'}\n"
               "    Big: {$ref: '/big.yaml'}\n"
               "    Gone: {$ref: 'gone.yaml'}\n";
    if (!strcmp(url, "/api/paths.yaml"))
        return "things:\n  get:\n    operationId: listThings\n    responses:\n"
               "      '200': {description: ok, content: {application/json: {schema: "
               "{$ref: 'schemas/thing.json'}}}}\n";
    if (!strcmp(url, "/api/schemas/thing.json"))
        return "{\"type\": \"object\", \"title\": \"Thing\"}";
    if (!strcmp(url, "/big.yaml")) return big;
    if (!strcmp(url, "/slow.yaml")) {
        usleep(800 * 1000);
        return "type: string\n";
    }
    if (!strcmp(url, "/api/cross.yaml")) /* a remote root whose ref leaves its origin */
        return cross_root;
    return NULL;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *data,
                              size_t *size, void **con_cls)
{
    (void)cls, (void)method, (void)version, (void)data, (void)size, (void)con_cls;
    if (!strcmp(url, "/moved")) { /* a URL source that redirects to another (loopback) origin */
        char to[128];
        snprintf(to, sizeof to, "http://localhost:%u/api/root.yaml", port);
        struct MHD_Response *r =
            MHD_create_response_from_buffer(5, (void *)"moved", MHD_RESPMEM_PERSISTENT);
        MHD_add_response_header(r, "Location", to);
        enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_FOUND, r);
        MHD_destroy_response(r);
        return ret;
    }
    const char *body = page(url);
    unsigned status = body ? MHD_HTTP_OK : MHD_HTTP_NOT_FOUND;
    if (!body) body = "not found";
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static int start_server(void **state)
{
    (void)state;
    memset(big, ' ', sizeof big - 1);
    memcpy(big, "type: string\n", 13);
    server =
        MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL,
                         NULL, answer, NULL, MHD_OPTION_LISTENING_ADDRESS_REUSE, 1, MHD_OPTION_END);
    if (!server) return -1;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(server, MHD_DAEMON_INFO_BIND_PORT);
    port = info ? info->port : 0;
    snprintf(cross_root, sizeof cross_root,
             "openapi: 3.0.0\ninfo: {title: Cross, version: '1'}\npaths: {}\n"
             "components: {schemas: {L: {$ref: 'http://localhost:%u/api/schemas/thing.json'}}}\n",
             port);
    return port ? 0 : -1;
}

static int stop_server(void **state)
{
    (void)state;
    MHD_stop_daemon(server);
    return 0;
}

static const core_diag *find_diag(const spec_api *api, core_diag_level level, const char *text)
{
    for (size_t i = 0; i < api->diags.n; i++)
        if (api->diags.items[i].level == level && strstr(api->diags.items[i].message, text))
            return &api->diags.items[i];
    return NULL;
}

/* The refusal of a loopback address, naming the flag that allows it. */
static const core_diag *find_loopback_refusal(const spec_api *api)
{
    const core_diag *d = find_diag(api, CORE_DIAG_ERROR, "a loopback address");
    if (!d) d = find_diag(api, CORE_DIAG_WARNING, "a loopback address");
    if (d && !strstr(d->message, "--allow-address")) return NULL;
    return d;
}

static spec_registry *load_url(const char *path, const spec_options *opt, int *rc)
{
    char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", port, path);
    spec_registry *reg;
    apidex_error err;
    assert_int_equal(spec_registry_new(opt, &reg, &err), 0);
    *rc = spec_registry_add(reg, url, &err);
    return reg;
}

static void test_url_input_refs_off(void **state)
{
    (void)state;
    int rc;
    spec_registry *reg = load_url("/api/root.yaml", NULL, &rc);
    assert_int_equal(rc, 0);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_false(api->failed);
    assert_string_equal(api->id, "remote");
    assert_string_equal(api->title, "Remote");
    /* an explicit URL is fetched; the refs it makes are remote refs: off by default */
    assert_int_equal(api->n_ops, 0);
    assert_int_equal(api->n_files, 1);
    assert_non_null(find_diag(api, CORE_DIAG_WARNING, "remote references are off"));
    spec_registry_free(reg);
}

static void test_url_input_refs_on(void **state)
{
    (void)state;
    spec_options opt = {0};
    opt.allow_remote_refs = true;
    opt.remote_max_bytes = 65536;
    int rc;
    spec_registry *reg = load_url("/api/root.yaml", &opt, &rc);
    assert_int_equal(rc, 0);
    const spec_api *api = spec_registry_api(reg, 0);
    /* relative refs on the root's own host are followed, relative to the referring URL */
    assert_int_equal(api->n_ops, 1);
    assert_string_equal(api->ops[0].id, "remote:listThings");
    assert_int_equal(api->n_files, 3);
    long s = spec_schema_index(api, api->ops[0].responses[0].media[0].schema);
    assert_true(s >= 0);
    assert_string_equal(api->schemas[s].name, "thing"); /* the file stem */
    assert_string_equal(jt_get_str(api->schemas[s].node.node, "title"), "Thing");
    /* another host: refused before any connection */
    assert_non_null(find_diag(api, CORE_DIAG_WARNING, "'other.invalid' is not in the allow-list"));
    /* over the size cap: an error for that document */
    const core_diag *d = find_diag(api, CORE_DIAG_ERROR, "over the limit");
    assert_non_null(d);
    assert_int_equal(d->code, APIDEX_ELIMIT);
    /* a missing document: a dangling ref */
    assert_non_null(find_diag(api, CORE_DIAG_WARNING, "HTTP 404"));
    assert_false(api->failed);
    spec_registry_free(reg);
}

static void test_local_root_remote_ref(void **state)
{
    (void)state;
    char *tmp = tu_tempdir();
    char text[512];
    snprintf(text, sizeof text,
             "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n"
             "components: {schemas: {T: {$ref: 'http://127.0.0.1:%u/api/schemas/thing.json'}, "
             "S: {$ref: 'http://127.0.0.1:%u/slow.yaml'}}}\n",
             port, port);
    char *p = tu_write(tmp, "root.yaml", text);
    spec_options opt = {0};
    opt.allow_remote_refs = true;
    opt.remote_timeout_ms = 300;
    spec_registry *reg;
    apidex_error err;
    /* no allow-list: nothing remote */
    assert_int_equal(spec_load_file(p, &opt, &reg, &err), 0);
    assert_non_null(find_diag(spec_registry_api(reg, 0), CORE_DIAG_WARNING, "allow-list"));
    assert_int_equal(spec_registry_api(reg, 0)->n_files, 1);
    spec_registry_free(reg);
    /* the host allowed, its address not: loopback is refused (remote refs follow the
       private-address rule of every outbound request) */
    const char *hosts[] = {"127.0.0.1", NULL};
    opt.remote_hosts = hosts;
    assert_int_equal(spec_load_file(p, &opt, &reg, &err), 0);
    const core_diag *d = find_loopback_refusal(spec_registry_api(reg, 0));
    assert_non_null(d);
    assert_int_equal(d->code, APIDEX_EREFUSED);
    assert_int_equal(spec_registry_api(reg, 0)->n_files, 1);
    spec_registry_free(reg);
    /* any host: still not loopback */
    const char *any[] = {"*", NULL};
    opt.remote_hosts = any;
    assert_int_equal(spec_load_file(p, &opt, &reg, &err), 0);
    assert_non_null(find_loopback_refusal(spec_registry_api(reg, 0)));
    assert_int_equal(spec_registry_api(reg, 0)->n_files, 1);
    spec_registry_free(reg);
    /* allowed by address (--allow-address 127.0.0.1): fetched */
    const char *addrs[] = {"127.0.0.1", NULL};
    opt.remote_addresses = addrs;
    opt.remote_hosts = hosts;
    double t0 = core_now();
    assert_int_equal(spec_load_file(p, &opt, &reg, &err), 0);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_int_equal(api->n_files, 2);
    assert_string_equal(jt_get_str(api->schemas[0].node.node, "title"), "Thing");
    /* the slow one times out: a warning, and loading goes on */
    assert_non_null(find_diag(api, CORE_DIAG_WARNING, "cannot fetch"));
    assert_true(core_now() - t0 < 5);
    spec_registry_free(reg);
    free(p);
    tu_rmtree(tmp);
    free(tmp);
}

/* A remote root's own origin is the user's choice (loopback included); a ref that leaves it
   for another loopback origin is refused with any host allowed, and so is a link-local one;
   a URL source redirected to another loopback origin too. */
static void test_remote_private_origins(void **state)
{
    (void)state;
    spec_options opt = {0};
    opt.allow_remote_refs = true;
    const char *any[] = {"*", NULL};
    opt.remote_hosts = any;
    int rc;
    spec_registry *reg = load_url("/api/cross.yaml", &opt, &rc);
    assert_int_equal(rc, 0);
    const spec_api *api = spec_registry_api(reg, 0);
    assert_string_equal(api->title, "Cross");
    assert_non_null(find_loopback_refusal(api)); /* localhost:PORT: another origin */
    assert_int_equal(api->n_files, 1);
    spec_registry_free(reg);
    /* link-local (cloud metadata): refused before any connection */
    char *tmp = tu_tempdir();
    char *p = tu_write(tmp, "meta.yaml",
                       "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n"
                       "components: {schemas: {M: {$ref: "
                       "'http://169.254.169.254/latest/meta-data.json'}}}\n");
    apidex_error err;
    opt.remote_timeout_ms = 2000;
    assert_int_equal(spec_load_file(p, &opt, &reg, &err), 0);
    api = spec_registry_api(reg, 0);
    const core_diag *d = find_diag(api, CORE_DIAG_ERROR, "169.254.169.254, a link-local address");
    if (!d) d = find_diag(api, CORE_DIAG_WARNING, "169.254.169.254, a link-local address");
    assert_non_null(d);
    assert_int_equal(api->n_files, 1);
    spec_registry_free(reg);
    free(p);
    tu_rmtree(tmp);
    free(tmp);
    /* a URL source: its own origin is fetched; a redirect to another loopback origin is not */
    reg = load_url("/moved", NULL, &rc);
    assert_int_equal(rc, APIDEX_EREFUSED);
    assert_int_equal(spec_registry_count(reg), 0);
    spec_registry_free(reg);
}

static void test_url_missing(void **state)
{
    (void)state;
    int rc;
    spec_registry *reg = load_url("/nothing.yaml", NULL, &rc);
    assert_int_equal(rc, APIDEX_ENOTFOUND);
    assert_int_equal(spec_registry_count(reg), 0);
    spec_registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_input_refs_off),    cmocka_unit_test(test_url_input_refs_on),
        cmocka_unit_test(test_local_root_remote_ref), cmocka_unit_test(test_remote_private_origins),
        cmocka_unit_test(test_url_missing),
    };
    return cmocka_run_group_tests(tests, start_server, stop_server);
}
