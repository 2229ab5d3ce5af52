/*
 * MCP tool lists as specs: a server's tools (the `tools/list` result, or the document the
 * MCP client writes, mcpc/session.c) become an OpenAPI 3 tree in memory, one operation per
 * tool, so ids, chunks, search, `show` and tool definitions treat them like endpoints.
 * docs/MCP-SOURCES.md has the mapping and why each choice.
 */
#include "oas/postman_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MCP_MAX_COPY_DEPTH = 64, /* a schema deeper than this is cut ({}) */
    MCP_MAX_NAME = 256       /* bytes of a tool name */
};

int spec_mcp_detect(const jt_node *root)
{
    if (!jt_is(root, JT_OBJECT) || jt_get(root, "openapi") || jt_get(root, "swagger")) return 0;
    const jt_node *tools = jt_get(root, "tools");
    if (!jt_is(tools, JT_ARRAY)) return 0;
    if (jt_is(jt_get(root, "mcp"), JT_OBJECT)) return 1;
    /* a bare tools/list result: its first tool has a name and an input schema */
    const jt_node *t0 = jt_at(tools, 0);
    return jt_get_str(t0, "name") && jt_is(jt_get(t0, "inputSchema"), JT_OBJECT);
}

/* JSON pointer escaping of one token (~ → ~0, / → ~1), in c's arena. */
static const char *ptr_escape(pm_ctx *c, const char *s)
{
    core_buf b;
    core_buf_init(&b, 0);
    for (const char *p = s; *p; p++) {
        if (*p == '~')
            core_buf_append(&b, "~0", 2);
        else if (*p == '/')
            core_buf_append(&b, "~1", 2);
        else
            core_buf_append(&b, p, 1);
    }
    const char *out = core_arena_strndup(c->a, b.data ? b.data : "", b.len);
    core_buf_free(&b);
    if (!out) c->oom = true;
    return out;
}

/*
 * A copy of schema node v whose local $refs ("#/...", relative to the schema's own root in
 * the tool list) are rebased onto `base` (the pointer of the schema's copy in the OpenAPI
 * tree), so the resolver finds $defs and repeated-property refs. Deeper than
 * MCP_MAX_COPY_DEPTH: {}.
 */
static jt_node *copy_schema(pm_ctx *c, const jt_node *v, const char *base, unsigned depth)
{
    if (!v) return NULL;
    if (depth >= MCP_MAX_COPY_DEPTH) return jt_new_object(c->a, 0);
    if (v->type == JT_ARRAY) {
        jt_node *a = jt_new_array(c->a, v->len);
        if (!a) {
            c->oom = true;
            return NULL;
        }
        for (uint32_t i = 0; i < v->len; i++) {
            a->u.items[i] = copy_schema(c, v->u.items[i], base, depth + 1);
            if (!a->u.items[i]) return NULL;
        }
        return a;
    }
    if (v->type != JT_OBJECT) return (jt_node *)v; /* scalars are never changed: shared */
    jt_node *o = jt_new_object(c->a, v->len);
    if (!o) {
        c->oom = true;
        return NULL;
    }
    for (uint32_t i = 0; i < v->len; i++) {
        const jt_member *m = &v->u.members[i];
        o->u.members[i] = *m;
        const char *ref = m->key_len == 4 && !memcmp(m->key, "$ref", 4) ? jt_str(m->value) : NULL;
        if (ref && ref[0] == '#' && (ref[1] == '/' || !ref[1])) {
            o->u.members[i].value = pm_str(c, core_arena_printf(c->a, "%s%s", base, ref + 1));
        } else {
            o->u.members[i].value = copy_schema(c, m->value, base, depth + 1);
        }
        if (!o->u.members[i].value) {
            c->oom = true;
            return NULL;
        }
    }
    jt_object_finish(c->a, o);
    return o;
}

/*
 * The method that says what a tool does to the engine and to the call rules: read-only
 * tools are GET (safe: the search stage reads them as reads, a call needs no
 * --allow-write); a tool that says it is not destructive is POST (it adds); an idempotent
 * destructive one PUT; the rest (MCP's default: destructive, not idempotent) POST. A
 * destructive hint is not DELETE: for MCP it covers overwriting as well, and the tool's own
 * verb ("delete_entities") tells the engine when it deletes, as for a POST endpoint.
 */
static const char *tool_method(const jt_node *ann)
{
    if (jt_get_bool(ann, "readOnlyHint", false)) return "GET";
    if (!jt_get_bool(ann, "destructiveHint", true)) return "POST";
    if (jt_get_bool(ann, "idempotentHint", false)) return "PUT";
    return "POST";
}

/* Bytes of the first word of a tool name: up to its first '_', '-', '.' or lower-to-upper
   case change ("slack_post_message" → 5, "getUserInfo" → 3); the whole name when it is one
   word. */
static size_t first_word_len(const char *name)
{
    size_t i = 0;
    for (; name[i]; i++) {
        char ch = name[i];
        if (ch == '_' || ch == '-' || ch == '.') return i;
        if (i && ch >= 'A' && ch <= 'Z' && name[i - 1] >= 'a' && name[i - 1] <= 'z') return i;
    }
    return i;
}

/*
 * The word every tool name of the list starts with ("slack_" in "slack_post_message",
 * "slack_list_channels", ...), as its length (0: none). A server often prefixes its tools
 * with its own name or domain so that they stay apart from other servers' tools in one
 * client: the prefix says which server, like an API's base path, not what the tool does,
 * so the summary leaves it out (and opens with the tool's verb). Needs two tools or more,
 * every one longer than the prefix.
 */
static size_t shared_prefix(const jt_node *tools)
{
    const char *first = NULL;
    size_t len = 0;
    uint32_t named = 0;
    for (uint32_t i = 0; jt_is(tools, JT_ARRAY) && i < tools->len; i++) {
        const char *name = jt_get_str(tools->u.items[i], "name");
        if (!name || !*name) continue;
        size_t n = first_word_len(name);
        if (!named++) {
            first = name;
            len = n;
        }
        if (n != len || n == strlen(name) || strncmp(name, first, n)) return 0;
    }
    return named >= 2 ? len : 0;
}

/* The tool's name as words for its summary, the list's shared prefix (skip bytes) left out:
   "read_text_file" → "read text file", "getUserInfo" → "get User Info". */
static const char *name_words(pm_ctx *c, const char *name, size_t skip)
{
    core_buf b;
    core_buf_init(&b, 0);
    if (skip < strlen(name)) name += skip;
    for (const char *p = name; *p; p++) {
        char ch = *p;
        if (ch == '_' || ch == '-' || ch == '.') ch = ' ';
        if (ch >= 'A' && ch <= 'Z' && p > name && p[-1] >= 'a' && p[-1] <= 'z')
            core_buf_append(&b, " ", 1);
        if (ch == ' ' && (!b.len || b.data[b.len - 1] == ' ')) continue;
        core_buf_append(&b, &ch, 1);
    }
    while (b.len && b.data[b.len - 1] == ' ') b.len--;
    const char *out = core_arena_strndup(c->a, b.data ? b.data : "", b.len);
    core_buf_free(&b);
    if (!out) c->oom = true;
    return out;
}

/* "/" + name, characters a path template would read otherwise ({, }, /, ?, #, space...)
   as '_'. */
static const char *safe_path(pm_ctx *c, const char *name)
{
    size_t n = strlen(name);
    char *p = core_arena_alloc(c->a, n + 2);
    if (!p) {
        c->oom = true;
        return NULL;
    }
    p[0] = '/';
    for (size_t i = 0; i < n; i++) {
        char ch = name[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.' || ch == '~';
        p[i + 1] = ok ? ch : '_';
    }
    p[n + 1] = '\0';
    return p;
}

/* The path of a tool: safe_path of its name, unique in the document. */
static const char *tool_path(pm_ctx *c, spec_strmap *used, const char *name)
{
    const char *p = safe_path(c, name);
    return p ? pm_unique(c, used, p, "-") : NULL;
}

/* The parameters of a tool: one per property of its input schema (in: query), required as
   the schema says. */
static jt_node *tool_params(pm_ctx *c, const jt_node *input, const char *base)
{
    const jt_node *props = jt_get(input, "properties");
    const jt_node *req = jt_get(input, "required");
    pm_arr params = {0};
    for (uint32_t i = 0; jt_is(props, JT_OBJECT) && i < props->len; i++) {
        const jt_member *m = &props->u.members[i];
        pm_obj p = {0};
        const char *name = core_arena_strndup(c->a, m->key, m->key_len);
        if (!name) {
            c->oom = true;
            return NULL;
        }
        bool required = false;
        for (uint32_t k = 0; jt_is(req, JT_ARRAY) && k < req->len && !required; k++) {
            const char *r = jt_str(req->u.items[k]);
            required = r && !strcmp(r, name);
        }
        pm_put_str(c, &p, "name", name);
        pm_put_str(c, &p, "in", "query");
        pm_put_str(c, &p, "description", jt_get_str(m->value, "description"));
        if (required) pm_put(c, &p, "required", pm_bool(c, true));
        /* the property's refs are relative to the input schema's root: rebased on base */
        pm_put(c, &p, "schema",
               jt_is(m->value, JT_OBJECT) ? copy_schema(c, m->value, base, 0)
                                          : jt_new_object(c->a, 0));
        pm_push(c, &params, pm_obj_done(c, &p));
    }
    return params.n ? pm_arr_done(c, &params) : NULL;
}

/* One tool as {METHOD: operation} under its path; NULL (with a warning) when it has no
   usable name. */
static int add_tool(pm_ctx *c, pm_obj *paths, spec_strmap *names, spec_strmap *used_paths,
                    const jt_node *tool, size_t i, size_t prefix)
{
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/tools/%zu", i);
    const char *name = jt_get_str(tool, "name");
    if (!jt_is(tool, JT_OBJECT) || !name || !*name) {
        pm_warn(c, ptr, "a tool needs a name; skipped");
        return 0;
    }
    size_t nl = strlen(name);
    if (nl > MCP_MAX_NAME) {
        pm_warn(c, ptr, "tool name of %zu bytes (at most %d); skipped", nl, MCP_MAX_NAME);
        return 0;
    }
    if (spec_strmap_get(names, name, nl, NULL)) {
        pm_warn(c, ptr, "tool '%s' is listed twice; the second is skipped", name);
        return 0;
    }
    if (spec_strmap_put(names, name, nl, i)) {
        c->oom = true;
        return -1;
    }
    const jt_node *ann = jt_get(tool, "annotations");
    const char *method = tool_method(ann);
    const char *path = tool_path(c, used_paths, name);
    if (!path) return -1;
    char lower[8];
    size_t ml = strlen(method);
    for (size_t k = 0; k <= ml; k++) lower[k] = (char)(method[k] | (method[k] ? 0x20 : 0));
    const char *op_ptr = core_arena_printf(c->a, "#/paths/%s/%s", ptr_escape(c, path), lower);
    if (!op_ptr) {
        c->oom = true;
        return -1;
    }
    const char *in_base = core_arena_printf(c->a, "%s/x-mcp-input-schema", op_ptr);
    const char *out_base = core_arena_printf(c->a, "%s/x-mcp-output-schema", op_ptr);
    pm_obj op = {0};
    const char *title = jt_get_str(tool, "title");
    if (!title || !*title) title = jt_get_str(ann, "title");
    pm_put_str(c, &op, "operationId", name);
    pm_put_str(c, &op, "summary", title && *title ? title : name_words(c, name, prefix));
    pm_put_str(c, &op, "description", jt_get_str(tool, "description"));
    const jt_node *input = jt_get(tool, "inputSchema");
    if (jt_is(input, JT_OBJECT)) {
        jt_node *params = tool_params(c, input, in_base);
        if (params) pm_put(c, &op, "parameters", params);
        pm_put(c, &op, "x-mcp-input-schema", copy_schema(c, input, in_base, 0));
    } else {
        pm_warn(c, ptr, "tool '%s' has no inputSchema object; it takes no arguments", name);
    }
    const jt_node *output = jt_get(tool, "outputSchema");
    pm_obj resp = {0}, responses = {0};
    pm_put_str(c, &resp, "description", "the tool's result");
    if (jt_is(output, JT_OBJECT)) {
        jt_node *copy = copy_schema(c, output, out_base, 0);
        pm_put(c, &op, "x-mcp-output-schema", copy);
        pm_obj media = {0}, content = {0};
        pm_put(c, &media, "schema", copy_schema(c, output, out_base, 0));
        pm_put(c, &content, "application/json", pm_obj_done(c, &media));
        pm_put(c, &resp, "content", pm_obj_done(c, &content));
    }
    pm_put(c, &responses, "200", pm_obj_done(c, &resp));
    pm_put(c, &op, "responses", pm_obj_done(c, &responses));
    if (jt_is(ann, JT_OBJECT)) pm_put(c, &op, "x-mcp-annotations", (jt_node *)ann);
    pm_put_str(c, &op, "x-mcp-title", jt_get_str(tool, "title"));
    pm_put_str(c, &op, "x-mcp-tool", name);
    pm_put_str(c, &op, "x-mcp-pointer", ptr);
    pm_obj item = {0};
    pm_put(c, &item, lower, pm_obj_done(c, &op));
    return pm_put(c, paths, path, pm_obj_done(c, &item));
}

/* ---------------------------------------------------------------- resources and prompts */

/* One string parameter (in: query) of a resource template or a prompt. */
static void string_param(pm_ctx *c, pm_arr *params, const char *name, const char *description,
                         bool required)
{
    pm_obj p = {0}, schema = {0};
    pm_put_str(c, &p, "name", name);
    pm_put_str(c, &p, "in", "query");
    pm_put_str(c, &p, "description", description);
    if (required) pm_put(c, &p, "required", pm_bool(c, true));
    pm_put_str(c, &schema, "type", "string");
    pm_put(c, &p, "schema", pm_obj_done(c, &schema));
    pm_push(c, params, pm_obj_done(c, &p));
}

/* The variables of an RFC 6570 URI template as parameters: "{id}", "{+path}" and "{/a,b}"
   are required, a query expression ("{?q,limit}", "{&page}") optional; modifiers ("*",
   ":3") dropped, each name once. */
static jt_node *template_params(pm_ctx *c, const char *tmpl)
{
    pm_arr params = {0};
    spec_strmap seen = {0};
    for (const char *p = strchr(tmpl, '{'); p && params.n < 64; p = strchr(p, '{')) {
        const char *end = strchr(++p, '}');
        if (!end) break;
        bool optional = *p == '?' || *p == '&';
        if (p < end && strchr("+#./;?&", *p)) p++;
        while (p < end) {
            const char *stop = p;
            while (stop < end && *stop != ',') stop++;
            const char *e = p;
            while (e < stop && *e != '*' && *e != ':') e++;
            if (e > p && e - p <= MCP_MAX_NAME &&
                !spec_strmap_get(&seen, p, (size_t)(e - p), NULL)) {
                const char *name = core_arena_strndup(c->a, p, (size_t)(e - p));
                if (!name || spec_strmap_put(&seen, p, (size_t)(e - p), 1)) {
                    c->oom = true;
                    break;
                }
                string_param(c, &params, name, NULL, !optional);
            }
            p = stop < end ? stop + 1 : end;
        }
        p = end + 1;
    }
    spec_strmap_free(&seen);
    return params.n ? pm_arr_done(c, &params) : NULL;
}

/* The arguments of a prompt as parameters. */
static jt_node *prompt_params(pm_ctx *c, const jt_node *args)
{
    pm_arr params = {0};
    for (uint32_t i = 0; jt_is(args, JT_ARRAY) && i < args->len; i++) {
        const jt_node *a = args->u.items[i];
        const char *name = jt_get_str(a, "name");
        if (!name || !*name || strlen(name) > MCP_MAX_NAME) continue;
        string_param(c, &params, name, jt_get_str(a, "description"),
                     jt_get_bool(a, "required", false));
    }
    return params.n ? pm_arr_done(c, &params) : NULL;
}

enum entry_kind { ENTRY_RESOURCE, ENTRY_TEMPLATE, ENTRY_PROMPT };

/*
 * A resource, resource template or prompt as a GET operation (reading one changes nothing):
 * operationId "resource:NAME" or "prompt:NAME" (so its id is SERVER:resource:NAME), path
 * "/resource/NAME" or "/prompt/NAME" (tool paths never hold a '/', so they cannot clash), a
 * template's variables and a prompt's arguments as parameters, the URI in the description.
 */
static int add_entry(pm_ctx *c, pm_obj *paths, spec_strmap *used_paths, spec_strmap *used_ids,
                     const jt_node *item, enum entry_kind kind, size_t i)
{
    static const char *const lists[] = {"resources", "resourceTemplates", "prompts"};
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/%s/%zu", lists[kind], i);
    const char *name = jt_get_str(item, "name");
    if (!jt_is(item, JT_OBJECT) || !name || !*name || strlen(name) > MCP_MAX_NAME) {
        pm_warn(c, ptr, "an entry needs a name of at most %d bytes; skipped", MCP_MAX_NAME);
        return 0;
    }
    const char *uri = jt_get_str(item, kind == ENTRY_TEMPLATE ? "uriTemplate" : "uri");
    if (kind != ENTRY_PROMPT && (!uri || !*uri)) {
        pm_warn(c, ptr, "resource '%s' has no %s; skipped", name,
                kind == ENTRY_TEMPLATE ? "uriTemplate" : "uri");
        return 0;
    }
    const char *prefix = kind == ENTRY_PROMPT ? "prompt" : "resource";
    const char *leaf = safe_path(c, name);
    const char *full = leaf ? core_arena_printf(c->a, "/%s%s", prefix, leaf) : NULL;
    const char *path = full ? pm_unique(c, used_paths, full, "-") : NULL;
    if (!path) {
        c->oom = true;
        return -1;
    }
    pm_obj op = {0};
    const char *title = jt_get_str(item, "title");
    const char *desc = jt_get_str(item, "description");
    const char *want = core_arena_printf(c->a, "%s:%s", prefix, name);
    const char *op_id = want ? pm_unique(c, used_ids, want, "-") : NULL;
    if (!op_id) {
        c->oom = true;
        return -1;
    }
    pm_put_str(c, &op, "operationId", op_id);
    pm_put_str(c, &op, "summary", title && *title ? title : name_words(c, name, 0));
    if (uri) {
        const char *mime = jt_get_str(item, "mimeType");
        pm_put_str(c, &op, "description",
                   core_arena_printf(c->a, "%s%s%s %s%s%s%s", desc ? desc : "", desc ? " " : "",
                                     kind == ENTRY_TEMPLATE ? "URI template:" : "URI:", uri,
                                     mime ? " (" : "", mime ? mime : "", mime ? ")" : ""));
    } else {
        pm_put_str(c, &op, "description", desc);
    }
    jt_node *params = kind == ENTRY_TEMPLATE ? template_params(c, uri)
                      : kind == ENTRY_PROMPT ? prompt_params(c, jt_get(item, "arguments"))
                                             : NULL;
    if (params) pm_put(c, &op, "parameters", params);
    pm_obj resp = {0}, responses = {0};
    pm_put_str(c, &resp, "description",
               kind == ENTRY_PROMPT ? "the prompt's messages" : "the resource's contents");
    pm_put(c, &responses, "200", pm_obj_done(c, &resp));
    pm_put(c, &op, "responses", pm_obj_done(c, &responses));
    pm_put_str(c, &op, kind == ENTRY_PROMPT ? "x-mcp-prompt" : "x-mcp-resource",
               kind == ENTRY_PROMPT ? name : uri);
    pm_put_str(c, &op, "x-mcp-pointer", ptr);
    pm_obj get = {0};
    pm_put(c, &get, "get", pm_obj_done(c, &op));
    return pm_put(c, paths, path, pm_obj_done(c, &get));
}

int spec_mcp_translate(spec_api_int *ai, const spec_doc *doc, jt_node **out)
{
    *out = NULL;
    const jt_node *root = doc->tree->root;
    pm_ctx c = {.ai = ai, .doc = doc, .a = doc->tree->arena};
    const jt_node *mcp = jt_get(root, "mcp"), *si = jt_get(mcp, "serverInfo");
    const jt_node *tools = jt_get(root, "tools");
    spec_strmap names = {0}, used_paths = {0};
    pm_obj paths = {0}, oas = {0}, info = {0};
    int rc = 0;
    size_t prefix = shared_prefix(tools);
    for (uint32_t i = 0; i < tools->len && !rc; i++)
        rc = add_tool(&c, &paths, &names, &used_paths, tools->u.items[i], i, prefix);
    static const char *const lists[] = {"resources", "resourceTemplates", "prompts"};
    spec_strmap used_ids = {0}; /* "resource:NAME" twice: the second "resource:NAME-2" */
    for (int k = 0; k < 3 && !rc; k++) {
        const jt_node *items = jt_get(root, lists[k]);
        for (uint32_t i = 0; jt_is(items, JT_ARRAY) && i < items->len && !rc; i++)
            rc = add_entry(&c, &paths, &used_paths, &used_ids, items->u.items[i],
                           (enum entry_kind)k, i);
    }
    spec_strmap_free(&used_ids);
    if (!rc) {
        pm_put_str(&c, &oas, "openapi", "3.0.3");
        const char *title = jt_get_str(si, "title");
        if (!title || !*title) title = jt_get_str(si, "name");
        if (!title || !*title) title = jt_get_str(mcp, "server");
        /* no name at all (a bare tools/list file): no title, so the id is the file's */
        if (title && *title) pm_put_str(&c, &info, "title", title);
        const char *version = jt_get_str(si, "version");
        pm_put_str(&c, &info, "version", version ? version : "");
        pm_put_str(&c, &info, "description", jt_get_str(mcp, "instructions"));
        pm_put(&c, &oas, "info", pm_obj_done(&c, &info));
        pm_put(&c, &oas, "paths", pm_obj_done(&c, &paths));
        pm_put_str(&c, &oas, "x-mcp-server", jt_get_str(mcp, "server"));
        pm_put_str(&c, &oas, "x-mcp-source", jt_get_str(mcp, "source"));
        *out = pm_obj_done(&c, &oas);
    }
    spec_strmap_free(&names);
    spec_strmap_free(&used_paths);
    if (c.oom || (!rc && !*out)) return APIDEX_ENOMEM;
    return rc;
}

const char *spec_mcp_version(const jt_node *root, core_arena *a)
{
    const char *pv = jt_get_str(jt_get(root, "mcp"), "protocolVersion");
    return pv && *pv ? core_arena_printf(a, "mcp-%s", pv) : "mcp";
}
