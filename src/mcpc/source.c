/* MCP source strings and client config files into servers: "mcp+stdio:PROGRAM ARG..." split
   like a shell (no shell runs), "mcp+http(s)://...", and "mcp+config:FILE" in the
   mcpServers shape of Claude Desktop, Cursor and VS Code, with ${VAR} read from the
   environment. */
#include "mcpc/mcpc.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MCPC_MAX_CONFIG = 4 << 20, MCPC_MAX_WORDS = 1024 };

bool mcpc_is_source(const char *s)
{
    return s && (!strncmp(s, "mcp+stdio:", 10) || !strncmp(s, "mcp+http://", 11) ||
                 !strncmp(s, "mcp+https://", 12) || !strncmp(s, "mcp+config:", 11));
}

/* s with ${VAR} and ${env:VAR} replaced by the variable's value ("" when unset), in a. */
static const char *expand(core_arena *a, const char *s)
{
    if (!strstr(s, "${")) return core_arena_strdup(a, s);
    core_buf b;
    core_buf_init(&b, 1 << 20);
    for (const char *p = s; *p;) {
        const char *close = p[0] == '$' && p[1] == '{' ? strchr(p + 2, '}') : NULL;
        if (!close) {
            core_buf_putc(&b, *p++);
            continue;
        }
        const char *name = p + 2;
        if (!strncmp(name, "env:", 4)) name += 4;
        char var[256];
        size_t nl = (size_t)(close - name);
        if (nl < sizeof var) {
            memcpy(var, name, nl);
            var[nl] = '\0';
            const char *v = getenv(var);
            if (v) core_buf_puts(&b, v);
        }
        p = close + 1;
    }
    const char *out = b.failed ? NULL : core_arena_strndup(a, b.data ? b.data : "", b.len);
    core_buf_free(&b);
    return out;
}

/* Splits a command line like a shell without running one: blanks separate words, '...'
   is literal, "..." keeps blanks (\" and \\ inside), \x outside quotes is x. */
static int split_words(core_arena *a, const char *s, const char ***out, apidex_error *err)
{
    const char **words = core_arena_alloc(a, (MCPC_MAX_WORDS + 1) * sizeof *words);
    size_t sl = strlen(s);
    char *word = core_arena_alloc(a, sl + 1);
    if (!words || !word) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    size_t n = 0;
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        if (!*p) break;
        if (n == MCPC_MAX_WORDS)
            return core_error_set(err, APIDEX_EINVAL, "more than %d words in '%s'", MCPC_MAX_WORDS,
                                  s);
        size_t w = 0;
        char quote = 0;
        while (*p && (quote || (*p != ' ' && *p != '\t' && *p != '\n'))) {
            char ch = *p++;
            if (quote == '\'') {
                if (ch == '\'')
                    quote = 0;
                else
                    word[w++] = ch;
            } else if (ch == '\\' && *p && (!quote || *p == '"' || *p == '\\')) {
                word[w++] = *p++;
            } else if (quote == '"' && ch == '"') {
                quote = 0;
            } else if (!quote && (ch == '\'' || ch == '"')) {
                quote = ch;
            } else {
                word[w++] = ch;
            }
        }
        if (quote)
            return core_error_set(err, APIDEX_EINVAL, "unterminated %c quote in '%s'", quote, s);
        words[n] = core_arena_strndup(a, word, w);
        if (!words[n++]) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    words[n] = NULL;
    if (!n) return core_error_set(err, APIDEX_EINVAL, "'mcp+stdio:' names no program");
    *out = words;
    return 0;
}

/* "Name: value" strings of a JSON object of headers. */
static int config_headers(core_arena *a, json_object *o, mcpc_server *s)
{
    size_t n = (size_t)json_object_object_length(o);
    const char **h = core_arena_alloc(a, (n + 1) * sizeof *h);
    if (!h) return APIDEX_ENOMEM;
    size_t k = 0;
    json_object_object_foreach(o, key, val)
    {
        const char *v = json_object_is_type(val, json_type_string)
                            ? expand(a, json_object_get_string(val))
                            : NULL;
        if (!v) continue;
        h[k] = core_arena_printf(a, "%s: %s", key, v);
        if (!h[k++]) return APIDEX_ENOMEM;
    }
    s->headers = h;
    s->n_headers = k;
    return 0;
}

/* One entry of mcpServers. */
static int config_server(core_arena *a, const char *file, const char *name, json_object *e,
                         mcpc_server *s, apidex_error *err)
{
    memset(s, 0, sizeof *s);
    s->name = core_arena_strdup(a, name);
    if (!json_object_is_type(e, json_type_object))
        return core_error_set(err, APIDEX_EINVAL, "%s: server '%s' is not an object", file, name);
    const char *type = json_object_get_string(json_object_object_get(e, "type"));
    const char *url = json_object_get_string(json_object_object_get(e, "url"));
    const char *command = json_object_get_string(json_object_object_get(e, "command"));
    if (type && !strcmp(type, "sse"))
        return core_error_set(err, APIDEX_EINVAL,
                              "%s: server '%s': the old SSE transport is not supported "
                              "(Streamable HTTP and stdio are)",
                              file, name);
    if (url) {
        if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
            return core_error_set(err, APIDEX_EINVAL,
                                  "%s: server '%s': 'url' must be http:// or https://, got '%s'",
                                  file, name, url);
        s->url = expand(a, url);
        json_object *h = json_object_object_get(e, "headers");
        if (json_object_is_type(h, json_type_object) && config_headers(a, h, s))
            return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        return s->url ? 0 : core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    if (!command || !*command)
        return core_error_set(err, APIDEX_EINVAL, "%s: server '%s' has neither 'command' nor 'url'",
                              file, name);
    json_object *args = json_object_object_get(e, "args");
    size_t na = json_object_is_type(args, json_type_array) ? json_object_array_length(args) : 0;
    if (na > MCPC_MAX_WORDS)
        return core_error_set(err, APIDEX_EINVAL, "%s: server '%s' has over %d args", file, name,
                              MCPC_MAX_WORDS);
    const char **argv = core_arena_alloc(a, (na + 2) * sizeof *argv);
    if (!argv) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    argv[0] = expand(a, command);
    for (size_t i = 0; i < na; i++) {
        const char *v = json_object_get_string(json_object_array_get_idx(args, i));
        argv[i + 1] = expand(a, v ? v : "");
    }
    argv[na + 1] = NULL;
    s->argv = argv;
    json_object *env = json_object_object_get(e, "env");
    if (json_object_is_type(env, json_type_object)) {
        size_t ne = (size_t)json_object_object_length(env);
        const char **ev = core_arena_alloc(a, (ne + 1) * sizeof *ev);
        if (!ev) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        size_t k = 0;
        json_object_object_foreach(env, key, val)
        {
            const char *v = json_object_get_string(val);
            const char *x = expand(a, v ? v : "");
            if (!x || strchr(key, '=') || !*key) continue;
            ev[k++] = core_arena_printf(a, "%s=%s", key, x);
        }
        s->env = ev;
        s->n_env = k;
    }
    return 0;
}

static int config_parse(const char *file, core_arena *a, mcpc_servers *out, apidex_error *err)
{
    out->items = NULL;
    out->n = 0;
    char *text = NULL;
    size_t len = 0;
    int rc = core_file_read(file, MCPC_MAX_CONFIG, &text, &len, err);
    if (rc) return rc;
    json_tokener *tok = json_tokener_new_ex(64);
    json_object *root = tok ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
    if (tok && json_tokener_get_error(tok) != json_tokener_success) {
        rc = core_error_set(err, APIDEX_EINVAL, "%s: not JSON: %s", file,
                            json_tokener_error_desc(json_tokener_get_error(tok)));
    }
    json_tokener_free(tok);
    free(text);
    json_object *servers = json_object_object_get(root, "mcpServers");
    if (!servers) servers = json_object_object_get(root, "servers"); /* VS Code */
    if (!rc && !json_object_is_type(servers, json_type_object))
        rc = core_error_set(err, APIDEX_EINVAL,
                            "%s: an MCP client config needs an 'mcpServers' object", file);
    size_t n = rc ? 0 : (size_t)json_object_object_length(servers);
    out->items = n ? core_arena_alloc(a, n * sizeof *out->items) : NULL;
    if (n && !out->items) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    out->n = 0;
    if (!rc) {
        json_object_object_foreach(servers, name, entry)
        {
            if (rc) break;
            rc = config_server(a, file, name, entry, &out->items[out->n], err);
            if (!rc) out->n++;
        }
    }
    json_object_put(root);
    return rc;
}

int mcpc_source_parse(const char *source, core_arena *a, mcpc_servers *out, apidex_error *err)
{
    memset(out, 0, sizeof *out);
    if (!mcpc_is_source(source))
        return core_error_set(err, APIDEX_EINVAL, "'%s' is not an MCP source", source);
    if (!strncmp(source, "mcp+config:", 11)) {
        /* FILE#NAME: one server of the file (how an index names it to read it again) */
        const char *file = source + 11, *hash = strrchr(file, '#');
        struct stat st;
        if (hash && stat(file, &st) == 0) hash = NULL; /* a file whose name holds '#' */
        char *path =
            hash ? core_arena_strndup(a, file, (size_t)(hash - file)) : core_arena_strdup(a, file);
        if (!path) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
        int rc = config_parse(path, a, out, err);
        out->config = path;
        if (rc || !hash) return rc;
        for (size_t i = 0; i < out->n; i++)
            if (!strcmp(out->items[i].name, hash + 1)) {
                out->items = &out->items[i];
                out->n = 1;
                return 0;
            }
        return core_error_set(err, APIDEX_ENOTFOUND, "%s has no server '%s'", path, hash + 1);
    }
    mcpc_server *s = core_arena_alloc(a, sizeof *s);
    if (!s) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    memset(s, 0, sizeof *s);
    if (!strncmp(source, "mcp+stdio:", 10)) {
        const char **argv = NULL;
        int rc = split_words(a, source + 10, &argv, err);
        if (rc) return rc;
        s->argv = argv;
    } else {
        s->url = core_arena_strdup(a, source + 4);
        if (!s->url) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    out->items = s;
    out->n = 1;
    return 0;
}
