/* apidex show: one operation from the index, rendered, with its inputs, producers and schemas. */
#include "cli/cli.h"

#include "store/store.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Schemas printed with one operation: its own and those they reference, breadth first. */
enum { SHOW_MAX_SCHEMAS = 200 };

static void show_usage(FILE *out)
{
    fprintf(
        out,
        "usage: apidex show ID | \"METHOD /path\" | operationId [--api A] [--db FILE] [--json]\n"
        "  ID                an operation id as search prints it (api:operationId)\n"
        "  --api A           pick the API when several have the endpoint\n"
        "  --db FILE         index file (default $APIDEX_DB or ./%s)\n"
        "  --color auto|always|never  colour the text (auto: on a terminal, unless NO_COLOR)\n",
        STORE_DEFAULT_DB);
}

/* "METHOD /path" compared with placeholders by position ({a} == {b}). */
static bool path_equal(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a == '{' && *b == '{') {
            const char *ea = strchr(a, '}'), *eb = strchr(b, '}');
            if (!ea || !eb) return !strcmp(a, b);
            a = ea + 1;
            b = eb + 1;
            continue;
        }
        if (*a++ != *b++) return false;
    }
    return *a == *b;
}

/* Finds the operation named by `what`: an id, "METHOD /path" (exact path first, then
   placeholders by position) or an operationId. Returns the number of candidates;
   their indexes go to found[0..min(n, cap)). */
static size_t find_ops(const store_operation *ops, size_t n_ops, const char *what, const char *api,
                       long *found, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < n_ops; i++)
        if (!strcmp(ops[i].id, what) && (!api || !strcmp(ops[i].api, api))) {
            if (n < cap) found[n] = (long)i;
            n++;
        }
    if (n) return n;
    while (isspace((unsigned char)*what)) what++;
    const char *sp = strpbrk(what, " \t");
    if (sp) {
        char method[16];
        size_t ml = (size_t)(sp - what);
        const char *path = sp;
        while (isspace((unsigned char)*path)) path++;
        size_t pl = strlen(path);
        while (pl && isspace((unsigned char)path[pl - 1])) pl--;
        if (ml < sizeof method && pl) {
            for (size_t i = 0; i < ml; i++) method[i] = (char)toupper((unsigned char)what[i]);
            method[ml] = '\0';
            char *p = strndup(path, pl);
            for (int pass = 0; pass < 2 && !n && p; pass++)
                for (size_t i = 0; i < n_ops; i++) {
                    if (strcmp(ops[i].method, method) != 0 || (api && strcmp(ops[i].api, api)))
                        continue;
                    if (pass == 0 ? strcmp(ops[i].path, p) != 0 : !path_equal(ops[i].path, p))
                        continue;
                    if (n < cap) found[n] = (long)i;
                    n++;
                }
            free(p);
            if (n) return n;
        }
    }
    for (size_t i = 0; i < n_ops; i++)
        if (ops[i].operation_id && !strcmp(ops[i].operation_id, what) &&
            (!api || !strcmp(ops[i].api, api))) {
            if (n < cap) found[n] = (long)i;
            n++;
        }
    return n;
}

/* The schemas an operation needs: direct references, then what they reference. */
static size_t schema_closure(const store_edge *edges, size_t n_edges, size_t n_schemas, long op,
                             long *out, size_t cap)
{
    bool *seen = calloc(n_schemas ? n_schemas : 1, sizeof *seen);
    if (!seen) return 0;
    size_t n = 0;
    for (size_t i = 0; i < n_edges && n < cap; i++)
        if (edges[i].kind == STORE_EDGE_OP_SCHEMA && edges[i].src_index == op &&
            edges[i].dst_index >= 0 && !seen[edges[i].dst_index]) {
            seen[edges[i].dst_index] = true;
            out[n++] = edges[i].dst_index;
        }
    /* Breadth first over schema -> schema; the queue is out itself. Bounded by cap. */
    for (size_t q = 0; q < n && n < cap; q++)
        for (size_t i = 0; i < n_edges && n < cap; i++)
            if (edges[i].kind == STORE_EDGE_SCHEMA_SCHEMA && edges[i].src_index == out[q] &&
                edges[i].dst_index >= 0 && !seen[edges[i].dst_index]) {
                seen[edges[i].dst_index] = true;
                out[n++] = edges[i].dst_index;
            }
    free(seen);
    return n;
}

static void json_opt(core_buf *b, const char *s)
{
    if (s)
        core_buf_json_str(b, s, strlen(s));
    else
        core_buf_puts(b, "null");
}

static void print_json(const store_operation *op, const store_operation *ops,
                       const store_edge *edges, size_t n_edges, long oi,
                       const store_schema *schemas, const long *sch, size_t n_sch)
{
    core_buf b;
    core_buf_init(&b, 0);
    core_buf_puts(&b, "{\"id\":");
    json_opt(&b, op->id);
    core_buf_puts(&b, ",\"api\":");
    json_opt(&b, op->api);
    core_buf_puts(&b, ",\"method\":");
    json_opt(&b, op->method);
    core_buf_puts(&b, ",\"path\":");
    json_opt(&b, op->path);
    core_buf_puts(&b, ",\"operation_id\":");
    json_opt(&b, op->operation_id);
    core_buf_puts(&b, ",\"summary\":");
    json_opt(&b, op->summary);
    core_buf_puts(&b, ",\"description\":");
    json_opt(&b, op->description);
    core_buf_puts(&b, ",\"tags\":[");
    for (size_t i = 0; i < op->n_tags; i++) {
        if (i) core_buf_putc(&b, ',');
        json_opt(&b, op->tags[i]);
    }
    core_buf_printf(&b, "],\"deprecated\":%s,\"tokens\":%zu,\"content\":",
                    op->deprecated ? "true" : "false", op->tokens);
    json_opt(&b, op->content);
    core_buf_puts(&b, ",\"inputs\":[");
    for (size_t i = 0; i < op->n_inputs; i++) {
        const store_input *in = &op->inputs[i];
        core_buf_puts(&b, i ? ",{\"name\":" : "{\"name\":");
        json_opt(&b, in->name);
        core_buf_puts(&b, ",\"in\":");
        json_opt(&b, in->location);
        core_buf_printf(&b, ",\"required\":%s,\"entity\":", in->required ? "true" : "false");
        json_opt(&b, in->field);
        core_buf_putc(&b, '}');
    }
    core_buf_puts(&b, "],\"producers\":[");
    bool first = true;
    for (size_t i = 0; i < n_edges; i++) {
        const store_edge *e = &edges[i];
        if (e->kind != STORE_EDGE_PRODUCER || e->src_index != oi || e->dst_index < 0) continue;
        const store_operation *p = &ops[e->dst_index];
        core_buf_puts(&b, first ? "{\"param\":" : ",{\"param\":");
        first = false;
        json_opt(&b, e->param);
        core_buf_puts(&b, ",\"producer\":");
        json_opt(&b, p->id);
        core_buf_puts(&b, ",\"endpoint\":");
        char ep[1024];
        snprintf(ep, sizeof ep, "%s %s", p->method, p->path);
        json_opt(&b, ep);
        core_buf_printf(&b, ",\"score\":%.3f}", e->score);
    }
    core_buf_puts(&b, "],\"schemas\":[");
    for (size_t i = 0; i < n_sch; i++) {
        const store_schema *s = &schemas[sch[i]];
        core_buf_puts(&b, i ? ",{\"id\":" : "{\"id\":");
        json_opt(&b, s->id);
        core_buf_puts(&b, ",\"name\":");
        json_opt(&b, s->name);
        core_buf_printf(&b, ",\"tokens\":%zu,\"content\":", s->tokens);
        json_opt(&b, s->content);
        core_buf_putc(&b, '}');
    }
    core_buf_puts(&b, "]}\n");
    fputs(b.data, stdout);
    core_buf_free(&b);
}

static void print_text(const store_operation *op, const store_operation *ops,
                       const store_edge *edges, size_t n_edges, long oi,
                       const store_schema *schemas, const long *sch, size_t n_sch)
{
    printf("# %s %s\n\nid: %s   api: %s   tokens: %zu%s\n\n", op->method, op->path, op->id, op->api,
           op->tokens, op->deprecated ? "   DEPRECATED" : "");
    printf("%s\n", op->content && *op->content ? op->content : "(no rendering stored)");
    bool header = false;
    for (size_t i = 0; i < n_edges; i++) {
        const store_edge *e = &edges[i];
        if (e->kind != STORE_EDGE_PRODUCER || e->src_index != oi || e->dst_index < 0) continue;
        if (!header) printf("\n## Where its inputs come from\n\n");
        header = true;
        const store_operation *p = &ops[e->dst_index];
        printf("- %s <- %s %s (%s)\n", e->param ? e->param : "?", p->method, p->path, p->id);
    }
    if (n_sch) printf("\n## Schemas\n");
    for (size_t i = 0; i < n_sch; i++) {
        const store_schema *s = &schemas[sch[i]];
        printf("\n### %s\n\n%s\n", s->name, s->content ? s->content : "");
    }
}

int cli_cmd_show(int argc, char **argv)
{
    const char *what = NULL, *api = NULL, *db = NULL;
    bool json = false;
    cli_color color = CLI_COLOR_AUTO;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            show_usage(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--api") && v) {
            api = v;
            i++;
        } else if (!strcmp(a, "--db") && v) {
            db = v;
            i++;
        } else if (!strcmp(a, "--color") && v) {
            if (cli_color_parse("show", v, &color)) return CLI_USAGE;
            i++;
        } else if ((a[0] == '-' && a[1]) || what) {
            return cli_arg_unknown("show", a);
        } else {
            what = a;
        }
    }
    if (!what)
        return cli_usage_error("show",
                               "name an endpoint: an id, \"METHOD /path\" or an operationId");
    db = cli_db_path(db);
    apidex_error err;
    core_error_clear(&err);
    store_index *idx = NULL;
    const store_operation *ops = NULL;
    const store_schema *schemas = NULL;
    const store_edge *edges = NULL;
    size_t n_ops = 0, n_schemas = 0, n_edges = 0;
    int rc = store_open(db, true, &idx, &err);
    if (!rc) rc = store_operations(idx, &ops, &n_ops, &err);
    if (!rc) rc = store_schemas(idx, &schemas, &n_schemas, &err);
    if (!rc) rc = store_edges(idx, &edges, &n_edges, &err);
    if (rc) {
        cli_print_error(&err);
        store_close(idx);
        return CLI_FAILURE;
    }
    if (api && (rc = cli_check_apis("show", idx, &api, 1)) != CLI_OK) {
        store_close(idx);
        return rc;
    }
    long found[16];
    size_t n = find_ops(ops, n_ops, what, api, found, 16);
    if (n == 0) {
        fprintf(stderr, "apidex show: no operation '%s'%s%s in %s\n", what, api ? " in API " : "",
                api ? api : "", db);
        store_close(idx);
        return CLI_PROBLEMS;
    }
    if (n > 1) {
        fprintf(stderr, "apidex show: '%s' names %zu operations; pick one with --api or an id:\n",
                what, n);
        for (size_t i = 0; i < n && i < 16; i++)
            fprintf(stderr, "  %s  (%s %s)\n", ops[found[i]].id, ops[found[i]].method,
                    ops[found[i]].path);
        store_close(idx);
        return CLI_USAGE;
    }
    long oi = found[0];
    long sch[SHOW_MAX_SCHEMAS];
    size_t n_sch = schema_closure(edges, n_edges, n_schemas, oi, sch, SHOW_MAX_SCHEMAS);
    if (json)
        print_json(&ops[oi], ops, edges, n_edges, oi, schemas, sch, n_sch);
    else
        CLI_PAINTED(color, print_text(&ops[oi], ops, edges, n_edges, oi, schemas, sch, n_sch));
    store_close(idx);
    return CLI_OK;
}

/* Its --help text, for the command table (help.c). */
void cli_usage_show(FILE *out)
{
    show_usage(out);
}
