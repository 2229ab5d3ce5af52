/*
 * MCP prompts and argument completion: the plan_api_calls prompt (the search
 * answer for a task with each endpoint's calling details in brief, so an
 * agent starts from what the index knows, not from a fixed text) and
 * completion/complete for the prompt's arguments and the resource templates'
 * API and endpoint ids.
 */
#include "serve/serve_int.h"
#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PLAN_PROMPT "plan_api_calls"

enum {
    PLAN_MAX_ENDPOINTS = 12,      /* endpoints the plan lists */
    PLAN_MAX_OPTIONAL = 8,        /* optional inputs named per endpoint (required: all) */
    PLAN_MAX_DETAIL_LINES = 16,   /* lines of parameters and body per endpoint */
    PLAN_MAX_LINE = 200,          /* bytes of one such line */
    PLAN_MAX_SECTION_LINES = 256, /* lines of those sections looked at per endpoint */
    PLAN_MAX_TEXT = 64 * 1024,    /* bytes of the prompt text */
    COMPLETE_MAX_VALUES = 100,    /* the schema's cap on completion.values */
    COMPLETE_MAX_VALUE = 1024,    /* bytes of a partial value */
    COMPLETE_MAX_MATCHES = 1000   /* matches collected for dedup and total */
};

/* ---------------------------------------------------------------- prompts/list */

struct json_object *mcp_prompts_list(const mcp_rev_info *rev)
{
    struct json_object *arr = json_object_new_array(), *p = json_object_new_object();
    struct json_object *args = json_tokener_parse(
        "[{\"name\":\"task\",\"description\":\"What you want to do, in plain words (e.g. 'Who "
        "directed the top-rated movie?')\",\"required\":true},"
        "{\"name\":\"api\",\"description\":\"Only this API (an id from list_apis; completion "
        "offers them)\",\"required\":false},"
        "{\"name\":\"tag\",\"description\":\"Only endpoints with this tag (completion offers "
        "the tags, of the api argument when given)\",\"required\":false}]");
    if (!arr || !p || !args) {
        json_object_put(arr);
        json_object_put(p);
        json_object_put(args);
        return NULL;
    }
    serve_jadd(p, "name", json_object_new_string(PLAN_PROMPT));
    if (rev->tool_title) serve_jadd(p, "title", json_object_new_string("Plan the API calls"));
    serve_jadd(p, "description",
               json_object_new_string(
                   "Start a plan for a task: the endpoints apidex finds for it in call order "
                   "(producers of required inputs first), each with its method, URL, inputs "
                   "and where they come from, and what to do next."));
    serve_jadd(p, "arguments", args);
    json_object_array_add(arr, p);
    return arr;
}

/* ---------------------------------------------------------------- prompts/get */

/* A string member of the prompt's arguments; -1 (e filled) when present but not a string. */
static int prompt_arg(struct json_object *args, const char *key, const char **out, mcp_error *e)
{
    *out = NULL;
    struct json_object *v;
    if (!args || !json_object_object_get_ex(args, key, &v) || !v) return 0;
    if (!json_object_is_type(v, json_type_string) ||
        !serve_text_ok(json_object_get_string(v), (size_t)json_object_get_string_len(v)))
        return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: argument '%s' must be a string",
                        key);
    *out = json_object_get_string(v);
    if (!**out) *out = NULL; /* an empty optional argument is no filter */
    return 0;
}

static bool api_has_tag(const store_api *api, const char *tag)
{
    for (size_t t = 0; t < api->n_tags; t++)
        if (api->tags[t].name && !strcmp(api->tags[t].name, tag)) return true;
    return false;
}

/* At most max bytes of a line, not cutting a UTF-8 sequence. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
    if (len <= max) return len;
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80) max--;
    return max;
}

/* Whether a parameter or body-field line of the rendered content says it is required
   ("- id (path, string, required): ..." or "- name: string, required: ..."). */
static bool line_required(const char *line, size_t len)
{
    static const char *const marks[] = {", required)", ", required:", ", required,"};
    for (size_t m = 0; m < 3; m++) {
        size_t ml = strlen(marks[m]);
        for (size_t i = 0; i + ml <= len; i++)
            if (!memcmp(line + i, marks[m], ml)) return true;
    }
    return false;
}

/* The "Parameters:" and "Request body" sections of an operation's rendered content
   (the text `apidex show` prints), indented under the endpoint; false when it has none.
   Headers and required lines are always shown, optional ones while the budget lasts. */
static bool calling_details(core_buf *b, const char *content)
{
    struct {
        const char *p;
        size_t len;
        bool keep;
    } lines[PLAN_MAX_SECTION_LINES];
    size_t n = 0, hidden = 0, cut = 0, kept = 0;
    bool in_section = false;
    for (const char *line = content; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        bool header = line[0] != ' ' && line[0] != '\t';
        if (header)
            in_section = !strncmp(line, "Parameters:", 11) || !strncmp(line, "Request body", 12);
        if (in_section && len) {
            if (n < PLAN_MAX_SECTION_LINES) {
                bool keep = header || line_required(line, len);
                lines[n].p = line;
                lines[n].len = len;
                lines[n++].keep = keep;
                kept += keep;
            } else {
                hidden++;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (!lines[i].keep) {
            if (kept >= PLAN_MAX_DETAIL_LINES) {
                hidden++;
                continue;
            }
            kept++;
        }
        size_t len = lines[i].len;
        core_buf_printf(b, "   %.*s%s\n", (int)utf8_cut(lines[i].p, len, PLAN_MAX_LINE), lines[i].p,
                        len > PLAN_MAX_LINE ? "..." : "");
        cut += len > PLAN_MAX_LINE;
    }
    /* Never shortened silently: say what was left out and where it is. */
    if (hidden || cut) {
        core_buf_puts(b, "   (");
        if (hidden) core_buf_printf(b, "%zu more optional line%s", hidden, hidden == 1 ? "" : "s");
        if (cut)
            core_buf_printf(b, "%s%zu line%s cut at %d bytes", hidden ? ", " : "", cut,
                            cut == 1 ? "" : "s", PLAN_MAX_LINE);
        core_buf_puts(b, ": get_endpoint has them whole)\n");
    }
    return n > 0;
}

/* The inputs the index found, when the content has no parameter section. */
static void plan_inputs(core_buf *b, const store_operation *op)
{
    if (!op->n_inputs) return;
    size_t optional = 0, shown_optional = 0;
    for (size_t k = 0; k < op->n_inputs; k++)
        if (!op->inputs[k].required) optional++;
    core_buf_puts(b, "   inputs:");
    const char *sep = " ";
    for (size_t k = 0; k < op->n_inputs; k++) {
        const store_input *in = &op->inputs[k];
        if (!in->name) continue;
        if (!in->required && shown_optional++ >= PLAN_MAX_OPTIONAL) continue;
        core_buf_printf(b, "%s%.100s (%s%s)", sep, in->name, in->location ? in->location : "?",
                        in->required ? ", required" : "");
        sep = ", ";
    }
    if (optional > PLAN_MAX_OPTIONAL)
        core_buf_printf(b, "; %zu more optional", optional - PLAN_MAX_OPTIONAL);
    core_buf_putc(b, '\n');
}

/* One step of the plan: "N. id (role): METHOD URL - summary", then its inputs and where
   each comes from. */
static void plan_endpoint(core_buf *b, serve_snapshot *snap, size_t n, struct json_object *hit)
{
    const char *id = serve_jget_str(hit, "id"), *role = serve_jget_str(hit, "role");
    size_t n_ops = 0;
    const store_operation *ops = search_engine_operations(snap->eng, &n_ops);
    long i = id ? search_engine_find_operation(snap->eng, id) : -1;
    if (i < 0 || (size_t)i >= n_ops) return;
    const store_operation *op = &ops[i];
    core_buf sum;
    core_buf_init(&sum, 0);
    const char *summary = NULL, *text = search_engine_op_summary(snap->eng, (size_t)i);
    if (text && !text_plain_line(text, strlen(text), 0, &sum, NULL)) summary = sum.data;
    const store_api *api = op->api_index < snap->n_apis ? &snap->apis[op->api_index] : NULL;
    const char *server = api && api->n_servers && api->servers[0].url ? api->servers[0].url : "";
    size_t slen = strlen(server);
    if (slen && server[slen - 1] == '/' && op->path[0] == '/') slen--;
    core_buf_printf(b, "%zu. %s (%s): %s %.*s%s", n, id, role ? role : "primary", op->method,
                    (int)slen, server, op->path);
    if (summary && *summary) core_buf_printf(b, " - %.300s", summary);
    core_buf_free(&sum);
    core_buf_putc(b, '\n');
    if (api && api->n_servers > 1)
        core_buf_printf(b, "   servers: %zu (get_endpoint lists them)\n", api->n_servers);
    /* the stored text keeps the specs' HTML and markdown; the plan is plain text */
    core_buf plain;
    core_buf_init(&plain, 0);
    const char *content = store_operation_content(snap->idx, (size_t)i);
    if (content && !text_plain(content, strlen(content), TEXT_PLAIN_KEEP_LINES, &plain))
        content = plain.data ? plain.data : "";
    if (!calling_details(b, content)) plan_inputs(b, op);
    core_buf_free(&plain);
    struct json_object *inputs;
    if (json_object_object_get_ex(hit, "inputs", &inputs) &&
        json_object_is_type(inputs, json_type_array))
        for (size_t k = 0; k < json_object_array_length(inputs); k++) {
            struct json_object *in = json_object_array_get_idx(inputs, k), *step = NULL;
            const char *param = serve_jget_str(in, "param"), *from = serve_jget_str(in, "from");
            if (!param || !from) continue;
            if (!strcmp(from, "step") && json_object_object_get_ex(in, "step", &step))
                core_buf_printf(b, "   %s comes from step %d (%s)\n", param,
                                json_object_get_int(step), serve_jget_str(in, "producer"));
            else
                core_buf_printf(b, "   %s: %s\n", param,
                                !strcmp(from, "task") ? "the task gives it"
                                                      : "the user supplies it");
        }
    if (op->deprecated) core_buf_puts(b, "   deprecated\n");
}

static void plan_text(serve_snapshot *snap, const char *task, const char *api, const char *tag,
                      struct json_object *found, core_buf *b)
{
    core_buf_printf(b, "Plan the API calls for this task: %s\n\n", task);
    struct json_object *results = NULL;
    json_object_object_get_ex(found, "plan", &results);
    size_t n = results ? json_object_array_length(results) : 0;
    if (api)
        core_buf_printf(b, "apidex searched the API %s", api);
    else
        core_buf_printf(b, "apidex searched the %zu indexed APIs", snap->n_apis);
    if (tag) core_buf_printf(b, " (endpoints tagged %s)", tag);
    if (!n) {
        core_buf_puts(b, " and found no endpoint for this task. Try search_endpoints with other "
                         "words, or list_apis to see what is indexed.\n");
        return;
    }
    core_buf_printf(b,
                    " and planned %zu call%s, in order (a call that produces an input the task "
                    "does not give comes before the call that needs it):\n\n",
                    n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n && i < PLAN_MAX_ENDPOINTS; i++)
        plan_endpoint(b, snap, i + 1, json_object_array_get_idx(results, i));
    if (n > PLAN_MAX_ENDPOINTS)
        core_buf_printf(b, "(%zu more: search_endpoints gives them all)\n", n - PLAN_MAX_ENDPOINTS);
    core_buf_puts(b, "\nWrite the plan: the calls in order; for each, the arguments and where each "
                     "value comes from (the task, the user, or an earlier call's response). Before "
                     "making a call, get its full details (parameters with types, request body, "
                     "responses, auth) with the get_endpoint tool or the resource "
                     "apidex://endpoints/{id}. If an endpoint does not fit the task, search again "
                     "with search_endpoints.\n");
}

int mcp_prompts_get(mcp_server *srv, const mcp_rev_info *rev, struct json_object *params,
                    struct json_object **result, mcp_error *e)
{
    (void)rev;
    *result = NULL;
    const char *name = serve_jget_str(params, "name");
    if (!name) return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: \"name\" must be a string");
    if (strcmp(name, PLAN_PROMPT))
        return mcp_fail(
            e, JRPC_INVALID_PARAMS,
            "Invalid params: unknown prompt '%.100s' (prompts/list names them: " PLAN_PROMPT ")",
            name);
    struct json_object *args = NULL;
    if (json_object_object_get_ex(params, "arguments", &args) && args &&
        !json_object_is_type(args, json_type_object))
        return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: \"arguments\" must be an object");
    const char *task, *api, *tag;
    if (prompt_arg(args, "task", &task, e) || prompt_arg(args, "api", &api, e) ||
        prompt_arg(args, "tag", &tag, e))
        return -1;
    if (!task)
        return mcp_fail(e, JRPC_INVALID_PARAMS,
                        "Invalid params: prompt " PLAN_PROMPT " needs the argument 'task'");
    serve_snapshot *snap = serve_db_acquire(srv->db);
    int rc = 0;
    long at = -1;
    apidex_error rerr;
    core_error_clear(&rerr);
    if (api && store_resolve_api(snap->idx, api, &at, &rerr) != 0) {
        rc = mcp_fail(e, JRPC_INVALID_PARAMS,
                      "Invalid params: %s (completion/complete or list_apis gives the ids)",
                      rerr.message);
        goto out;
    }
    if (api) api = snap->apis[at].id;
    if (tag) {
        bool known = false;
        for (size_t i = 0; i < snap->n_apis && !known; i++)
            if (!api || !strcmp(snap->apis[i].id, api)) known = api_has_tag(&snap->apis[i], tag);
        if (!known) {
            rc = mcp_fail(e, JRPC_INVALID_PARAMS,
                          "Invalid params: no endpoint has the tag '%.200s'%s%.200s "
                          "(completion/complete gives the tags)",
                          tag, api ? " in " : "", api ? api : "");
            goto out;
        }
    }
    const char *apis[] = {api, NULL}, *tags[] = {tag, NULL};
    serve_search_args sa = {.task = task,
                            .adaptive = true,
                            .apis = api ? apis : NULL,
                            .tags = tag ? tags : NULL,
                            .compact = true};
    struct json_object *found = NULL;
    apidex_error qerr;
    core_error_clear(&qerr);
    int qrc = serve_query_search(snap, &sa, &found, &qerr);
    if (qrc) {
        rc = qrc == APIDEX_ENOMEM
                 ? mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory")
                 : mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: %s", qerr.message);
        goto out;
    }
    core_buf b;
    core_buf_init(&b, PLAN_MAX_TEXT);
    plan_text(snap, task, api, tag, found, &b);
    json_object_put(found);
    if (b.failed) { /* the cap: keep what fits, say so */
        b.failed = false;
        core_buf_puts(&b, "\n(cut: the plan was longer than 64 KB)\n");
    }
    size_t len = 0;
    char *text = core_buf_steal(&b, &len);
    struct json_object *o = json_object_new_object(), *msgs = json_object_new_array(),
                       *m = json_object_new_object(), *c = json_object_new_object();
    if (!text || !o || !msgs || !m || !c) {
        free(text);
        json_object_put(o);
        json_object_put(msgs);
        json_object_put(m);
        json_object_put(c);
        rc = mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
        goto out;
    }
    char desc[300];
    snprintf(desc, sizeof desc, "API call plan for: %.200s", task);
    serve_jadd(o, "description", json_object_new_string(desc));
    serve_jadd(c, "type", json_object_new_string("text"));
    serve_jadd(c, "text", json_object_new_string_len(text, (int)len));
    free(text);
    serve_jadd(m, "role", json_object_new_string("user"));
    serve_jadd(m, "content", c);
    json_object_array_add(msgs, m);
    serve_jadd(o, "messages", msgs);
    *result = o;
out:
    serve_snapshot_release(snap);
    return rc;
}

/* ---------------------------------------------------------------- completion/complete */

/* Candidate values matching a partial one, deduplicated, in first-seen order. */
typedef struct matches {
    const char *prefix;
    size_t prefix_len;
    const char *items[COMPLETE_MAX_MATCHES];
    size_t n, total;
} matches;

static bool starts_with_ci(const char *s, const char *prefix, size_t n)
{
    return s && !strncasecmp(s, prefix, n);
}

/* dedupe: the value may already be there (tags shared by APIs); ids are unique, and
   skipping the scan keeps a completion over 100k endpoints linear. Past the collected
   matches, a repeated tag may be counted twice in the total. */
static void match_add(matches *m, const char *value, bool dedupe)
{
    if (!value) return;
    for (size_t i = 0; dedupe && i < m->n; i++)
        if (!strcmp(m->items[i], value)) return;
    m->total++;
    if (m->n < COMPLETE_MAX_MATCHES) m->items[m->n++] = value;
}

/* API ids whose id, an alias or the title starts with the value (store_resolve_api takes
   all three). */
static void complete_apis(serve_snapshot *snap, matches *m)
{
    for (size_t i = 0; i < snap->n_apis; i++) {
        const store_api *a = &snap->apis[i];
        bool hit = starts_with_ci(a->id, m->prefix, m->prefix_len) ||
                   (a->title && starts_with_ci(a->title, m->prefix, m->prefix_len));
        for (size_t k = 0; k < a->n_aliases && !hit; k++)
            hit = starts_with_ci(a->aliases[k], m->prefix, m->prefix_len);
        if (hit) match_add(m, a->id, false);
    }
}

static void complete_tags(serve_snapshot *snap, const char *api, matches *m)
{
    long at = -1;
    if (api && store_resolve_api(snap->idx, api, &at, NULL) == 0) api = snap->apis[at].id;
    for (size_t i = 0; i < snap->n_apis; i++) {
        const store_api *a = &snap->apis[i];
        if (api && strcmp(a->id, api)) continue;
        for (size_t t = 0; t < a->n_tags; t++)
            if (starts_with_ci(a->tags[t].name, m->prefix, m->prefix_len))
                match_add(m, a->tags[t].name, true);
    }
}

/* Endpoint ids: the whole id starting with the value ("weather:getF"), or the part after
   the API ("getF"); ids of the first kind come first. */
static void complete_endpoints(serve_snapshot *snap, matches *m)
{
    size_t n_ops = 0;
    const store_operation *ops = search_engine_operations(snap->eng, &n_ops);
    for (size_t i = 0; i < n_ops; i++)
        if (starts_with_ci(ops[i].id, m->prefix, m->prefix_len)) match_add(m, ops[i].id, false);
    if (memchr(m->prefix, ':', m->prefix_len)) return;
    for (size_t i = 0; i < n_ops; i++) {
        const char *colon = ops[i].id ? strchr(ops[i].id, ':') : NULL;
        /* not taken by the first pass already (as when the API id starts with the value) */
        if (colon && starts_with_ci(colon + 1, m->prefix, m->prefix_len) &&
            !starts_with_ci(ops[i].id, m->prefix, m->prefix_len))
            match_add(m, ops[i].id, false);
    }
}

static struct json_object *completion_result(const matches *m)
{
    struct json_object *o = json_object_new_object(), *c = json_object_new_object(),
                       *values = json_object_new_array();
    if (!o || !c || !values) {
        json_object_put(o);
        json_object_put(c);
        json_object_put(values);
        return NULL;
    }
    for (size_t i = 0; i < m->n && i < COMPLETE_MAX_VALUES; i++)
        json_object_array_add(values, json_object_new_string(m->items[i]));
    serve_jadd(c, "values", values);
    serve_jadd(c, "total", json_object_new_int64((int64_t)m->total));
    serve_jadd(c, "hasMore", json_object_new_boolean(m->total > COMPLETE_MAX_VALUES));
    serve_jadd(o, "completion", c);
    return o;
}

int mcp_complete(mcp_server *srv, struct json_object *params, struct json_object **result,
                 mcp_error *e)
{
    *result = NULL;
    struct json_object *ref = NULL, *arg = NULL, *ctx = NULL, *ctx_args = NULL;
    if (!params || !json_object_object_get_ex(params, "ref", &ref) ||
        !json_object_is_type(ref, json_type_object))
        return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: \"ref\" must be an object");
    if (!json_object_object_get_ex(params, "argument", &arg) ||
        !json_object_is_type(arg, json_type_object))
        return mcp_fail(e, JRPC_INVALID_PARAMS,
                        "Invalid params: \"argument\" must be an object with name and value");
    const char *type = serve_jget_str(ref, "type"), *arg_name = serve_jget_str(arg, "name");
    struct json_object *value_obj = NULL;
    if (!type || !arg_name || !json_object_object_get_ex(arg, "value", &value_obj) ||
        !json_object_is_type(value_obj, json_type_string))
        return mcp_fail(e, JRPC_INVALID_PARAMS,
                        "Invalid params: ref.type, argument.name and argument.value must be "
                        "strings");
    size_t vlen = (size_t)json_object_get_string_len(value_obj);
    const char *value = json_object_get_string(value_obj);
    if (vlen > COMPLETE_MAX_VALUE || !serve_text_ok(value, vlen))
        return mcp_fail(e, JRPC_INVALID_PARAMS,
                        "Invalid params: argument.value must be UTF-8 text of at most 1024 bytes");
    const char *ctx_api = NULL;
    if (json_object_object_get_ex(params, "context", &ctx) &&
        json_object_is_type(ctx, json_type_object) &&
        json_object_object_get_ex(ctx, "arguments", &ctx_args))
        ctx_api = serve_jget_str(ctx_args, "api");
    if (ctx_api && !*ctx_api) ctx_api = NULL;

    enum { NONE, APIS, TAGS, ENDPOINTS, NOTHING } what = NONE;
    if (!strcmp(type, "ref/prompt")) {
        const char *name = serve_jget_str(ref, "name");
        if (!name || strcmp(name, PLAN_PROMPT))
            return mcp_fail(e, JRPC_INVALID_PARAMS,
                            "Invalid params: unknown prompt '%.100s' (prompts/list names them: "
                            "" PLAN_PROMPT ")",
                            name ? name : "");
        if (!strcmp(arg_name, "api"))
            what = APIS;
        else if (!strcmp(arg_name, "tag"))
            what = TAGS;
        else if (!strcmp(arg_name, "task"))
            what = NOTHING; /* free text: nothing to offer */
    } else if (!strcmp(type, "ref/resource")) {
        const char *uri = serve_jget_str(ref, "uri");
        if (!uri)
            return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: ref.uri must be a string");
        if (!strcmp(uri, "apidex://apis/{api}") && !strcmp(arg_name, "api"))
            what = APIS;
        else if (!strcmp(uri, "apidex://endpoints/{id}") && !strcmp(arg_name, "id"))
            what = ENDPOINTS;
        else if (strcmp(uri, "apidex://apis/{api}") && strcmp(uri, "apidex://endpoints/{id}"))
            return mcp_fail(e, JRPC_INVALID_PARAMS,
                            "Invalid params: unknown resource template '%.200s' "
                            "(resources/templates/list names them)",
                            uri);
    } else {
        return mcp_fail(e, JRPC_INVALID_PARAMS,
                        "Invalid params: ref.type must be ref/prompt or ref/resource");
    }
    if (what == NONE)
        return mcp_fail(e, JRPC_INVALID_PARAMS, "Invalid params: no argument '%.100s' there",
                        arg_name);
    matches *m = calloc(1, sizeof *m);
    if (!m) return mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
    m->prefix = value;
    m->prefix_len = vlen;
    serve_snapshot *snap = serve_db_acquire(srv->db);
    if (what == APIS) complete_apis(snap, m);
    if (what == TAGS) complete_tags(snap, ctx_api, m);
    if (what == ENDPOINTS) complete_endpoints(snap, m);
    *result = completion_result(m); /* copies the strings before the snapshot goes */
    serve_snapshot_release(snap);
    free(m);
    return *result ? 0 : mcp_fail(e, JRPC_INTERNAL_ERROR, "out of memory");
}
