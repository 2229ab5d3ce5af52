/*
 * Snippets: a request from exec_build written as a ready-to-run curl command or Python
 * (urllib), JavaScript (fetch, Node 18+) or Go (net/http) program. Credentials built in
 * placeholder mode (EXEC_PLACEHOLDER marks) become reads of their environment variables;
 * any other secret the request holds is masked, so a snippet never carries one.
 */
#include "exec/exec.h"

#include <stdio.h>
#include <string.h>

int exec_snippet_lang_parse(const char *name, exec_snippet_lang *lang)
{
    static const struct {
        const char *name;
        exec_snippet_lang lang;
    } names[] = {{"curl", EXEC_SNIPPET_CURL},     {"python", EXEC_SNIPPET_PYTHON},
                 {"py", EXEC_SNIPPET_PYTHON},     {"javascript", EXEC_SNIPPET_JAVASCRIPT},
                 {"js", EXEC_SNIPPET_JAVASCRIPT}, {"node", EXEC_SNIPPET_JAVASCRIPT},
                 {"go", EXEC_SNIPPET_GO}};
    for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i].name)) {
            *lang = names[i].lang;
            return 0;
        }
    return -1;
}

/* ---------------------------------------------------------------- pieces of a string */

/* A string is literal text and variable references: "VAR" (its value) or "b:VAR" /
   "b:USER:PASS" (base64 of VAR's value, or of USER's + ":" + PASS's). */
typedef void (*lit_fn)(core_buf *b, const char *s, size_t n);

typedef struct lang_ops {
    lit_fn literal;
    const char *env_fmt;   /* one variable, %s = its name */
    const char *b64_open;  /* before the text to encode */
    const char *b64_close; /* after it */
    const char *join;      /* between pieces ("" for the shell) */
    const char *colon;     /* a literal ":" piece between user and password */
} lang_ops;

static void expr(core_buf *b, const exec_request *r, const char *s, const lang_ops *ops,
                 core_arena *a)
{
    const char *mark = EXEC_PLACEHOLDER;
    const char *masked = exec_mask(r, s, a);
    const char *p = masked ? masked : s;
    bool first = true;
    if (!*p) ops->literal(b, "", 0);
    while (*p) {
        const char *m = strchr(p, mark[0]);
        const char *end = m ? strchr(m + 1, mark[0]) : NULL;
        size_t lit = m && end ? (size_t)(m - p) : strlen(p);
        if (lit) {
            if (!first) core_buf_puts(b, ops->join);
            ops->literal(b, p, lit);
            first = false;
        }
        p += lit;
        if (!*p) break;
        /* a reference */
        char ref[512];
        size_t rl = (size_t)(end - m - 1);
        if (rl >= sizeof ref) rl = sizeof ref - 1;
        memcpy(ref, m + 1, rl);
        ref[rl] = '\0';
        if (!first) core_buf_puts(b, ops->join);
        first = false;
        if (!strncmp(ref, "b:", 2)) {
            char *user = ref + 2, *pass = strchr(user, ':');
            core_buf_puts(b, ops->b64_open);
            if (pass) *pass++ = '\0';
            core_buf_printf(b, ops->env_fmt, user);
            if (pass) {
                core_buf_puts(b, ops->join);
                core_buf_puts(b, ops->colon);
                core_buf_puts(b, ops->join);
                core_buf_printf(b, ops->env_fmt, pass);
            }
            core_buf_puts(b, ops->b64_close);
        } else {
            core_buf_printf(b, ops->env_fmt, ref);
        }
        p = end + 1;
    }
}

static bool has_b64(const exec_request *r)
{
    for (size_t i = 0; i < r->n_headers; i++)
        if (strstr(r->headers[i].value, EXEC_PLACEHOLDER "b:")) return true;
    return false;
}

/* A double-quoted string literal for Python, JavaScript and Go (\xNN for control bytes). */
static void c_literal(core_buf *b, const char *s, size_t n)
{
    core_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            core_buf_printf(b, "\\%c", c);
        else if (c == '\n')
            core_buf_puts(b, "\\n");
        else if (c == '\r')
            core_buf_puts(b, "\\r");
        else if (c == '\t')
            core_buf_puts(b, "\\t");
        else if (c < 0x20 || c == 0x7f)
            core_buf_printf(b, "\\x%02x", c);
        else
            core_buf_putc(b, (char)c);
    }
    core_buf_putc(b, '"');
}

/* A single-quoted shell word ('\'' for a quote). */
static void sh_literal(core_buf *b, const char *s, size_t n)
{
    core_buf_putc(b, '\'');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            core_buf_puts(b, "'\\''");
        else
            core_buf_putc(b, s[i]);
    }
    core_buf_putc(b, '\'');
}

static const lang_ops sh_ops = {
    sh_literal, "\"$%s\"", "\"$(printf %s ", " | base64 | tr -d '\\n')\"", "", "':'"};
static const lang_ops py_ops = {
    c_literal, "os.environ[\"%s\"]", "base64.b64encode((", ").encode()).decode()", " + ", "\":\""};
static const lang_ops js_ops = {
    c_literal, "process.env[\"%s\"]", "Buffer.from(", ").toString(\"base64\")", " + ", "\":\""};
static const lang_ops go_ops = {
    c_literal, "os.Getenv(\"%s\")", "base64.StdEncoding.EncodeToString([]byte(", "))", " + ",
    "\":\""};

/* ---------------------------------------------------------------- languages */

static void curl_snippet(const exec_request *r, core_buf *b, core_arena *a)
{
    core_buf_puts(b, "curl");
    if (strcmp(r->method, "GET")) core_buf_printf(b, " -X %s", r->method);
    core_buf_putc(b, ' ');
    expr(b, r, r->url, &sh_ops, a);
    for (size_t i = 0; i < r->n_headers; i++) {
        const char *h = core_arena_printf(a, "%s: %s", r->headers[i].name, r->headers[i].value);
        core_buf_puts(b, " \\\n  -H ");
        expr(b, r, h ? h : "", &sh_ops, a);
    }
    if (r->body) {
        core_buf_puts(b, " \\\n  --data-binary ");
        expr(b, r, core_arena_strndup(a, r->body, r->body_len), &sh_ops, a);
    }
    core_buf_putc(b, '\n');
}

static void python_snippet(const exec_request *r, core_buf *b, core_arena *a)
{
    if (has_b64(r)) core_buf_puts(b, "import base64\n");
    core_buf_puts(b, "import os\nimport urllib.request\n\nurl = ");
    expr(b, r, r->url, &py_ops, a);
    core_buf_puts(b, "\nheaders = {\n");
    for (size_t i = 0; i < r->n_headers; i++) {
        core_buf_puts(b, "    ");
        c_literal(b, r->headers[i].name, strlen(r->headers[i].name));
        core_buf_puts(b, ": ");
        expr(b, r, r->headers[i].value, &py_ops, a);
        core_buf_puts(b, ",\n");
    }
    core_buf_puts(b, "}\n");
    if (r->body) {
        core_buf_puts(b, "body = ");
        expr(b, r, core_arena_strndup(a, r->body, r->body_len), &py_ops, a);
        core_buf_puts(b, ".encode()\n");
    } else {
        core_buf_puts(b, "body = None\n");
    }
    core_buf_printf(b,
                    "request = urllib.request.Request(url, data=body, headers=headers, "
                    "method=\"%s\")\n"
                    "with urllib.request.urlopen(request) as response:\n"
                    "    print(response.status)\n"
                    "    print(response.read().decode())\n",
                    r->method);
}

static void js_snippet(const exec_request *r, core_buf *b, core_arena *a)
{
    core_buf_puts(b, "async function main() {\n  const url = ");
    expr(b, r, r->url, &js_ops, a);
    core_buf_printf(b,
                    ";\n  const response = await fetch(url, {\n    method: \"%s\",\n"
                    "    headers: {\n",
                    r->method);
    for (size_t i = 0; i < r->n_headers; i++) {
        core_buf_puts(b, "      ");
        c_literal(b, r->headers[i].name, strlen(r->headers[i].name));
        core_buf_puts(b, ": ");
        expr(b, r, r->headers[i].value, &js_ops, a);
        core_buf_puts(b, ",\n");
    }
    core_buf_puts(b, "    },\n");
    if (r->body) {
        core_buf_puts(b, "    body: ");
        expr(b, r, core_arena_strndup(a, r->body, r->body_len), &js_ops, a);
        core_buf_puts(b, ",\n");
    }
    core_buf_puts(b, "  });\n  console.log(response.status);\n"
                     "  console.log(await response.text());\n}\n\nmain();\n");
}

static void go_snippet(const exec_request *r, core_buf *b, core_arena *a)
{
    bool env = false;
    for (size_t i = 0; i < r->n_headers && !env; i++)
        env = strstr(r->headers[i].value, EXEC_PLACEHOLDER) != NULL;
    env = env || strstr(r->url, EXEC_PLACEHOLDER);
    core_buf_puts(b, "package main\n\nimport (\n");
    if (has_b64(r)) core_buf_puts(b, "\t\"encoding/base64\"\n");
    core_buf_puts(b, "\t\"fmt\"\n\t\"io\"\n\t\"net/http\"\n");
    if (env) core_buf_puts(b, "\t\"os\"\n");
    if (r->body) core_buf_puts(b, "\t\"strings\"\n");
    core_buf_puts(b, ")\n\nfunc main() {\n");
    if (r->body) {
        core_buf_puts(b, "\tbody := strings.NewReader(");
        expr(b, r, core_arena_strndup(a, r->body, r->body_len), &go_ops, a);
        core_buf_puts(b, ")\n");
    }
    core_buf_printf(b, "\treq, err := http.NewRequest(\"%s\", ", r->method);
    expr(b, r, r->url, &go_ops, a);
    core_buf_printf(b, ", %s)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n", r->body ? "body" : "nil");
    for (size_t i = 0; i < r->n_headers; i++) {
        core_buf_puts(b, "\treq.Header.Set(");
        c_literal(b, r->headers[i].name, strlen(r->headers[i].name));
        core_buf_puts(b, ", ");
        expr(b, r, r->headers[i].value, &go_ops, a);
        core_buf_puts(b, ")\n");
    }
    core_buf_puts(b, "\tresp, err := http.DefaultClient.Do(req)\n\tif err != nil {\n"
                     "\t\tpanic(err)\n\t}\n\tdefer resp.Body.Close()\n"
                     "\tdata, err := io.ReadAll(resp.Body)\n\tif err != nil {\n"
                     "\t\tpanic(err)\n\t}\n\tfmt.Println(resp.Status)\n"
                     "\tfmt.Println(string(data))\n}\n");
}

int exec_snippet(const exec_request *r, exec_snippet_lang lang, core_buf *out)
{
    core_arena *a = core_arena_new(0);
    if (!a) return APIDEX_ENOMEM;
    size_t before = out->len;
    switch (lang) {
    case EXEC_SNIPPET_CURL:
        curl_snippet(r, out, a);
        break;
    case EXEC_SNIPPET_PYTHON:
        python_snippet(r, out, a);
        break;
    case EXEC_SNIPPET_JAVASCRIPT:
        js_snippet(r, out, a);
        break;
    case EXEC_SNIPPET_GO:
        go_snippet(r, out, a);
        break;
    }
    core_arena_free(a);
    return out->len > before ? 0 : APIDEX_ENOMEM;
}
