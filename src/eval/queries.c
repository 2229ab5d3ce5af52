/* eval: loading RestBench-format query files ([{"query": ..., "solution": [...]}, ...]); a
   task with "kind": "none" and an empty solution is one nothing in the index does. */
#include "eval/eval.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Query files are small; a cap keeps a wrong argument (a 1 GB file) from being read. */
enum { EVAL_MAX_FILE = 64u << 20 };

int eval_set_new(eval_set **out)
{
    *out = NULL;
    eval_set *s = calloc(1, sizeof *s);
    if (!s) return APIDEX_ENOMEM;
    s->arena = core_arena_new(0);
    if (!s->arena) {
        free(s);
        return APIDEX_ENOMEM;
    }
    *out = s;
    return 0;
}

void eval_set_free(eval_set *set)
{
    if (!set) return;
    free(set->items);
    core_arena_free(set->arena);
    free(set);
}

bool eval_gold_is_id(const char *s)
{
    if (!s || !*s || *s == ':' || *s == '/') return false;
    const char *colon = NULL;
    for (const char *p = s; *p; p++) {
        if (isspace((unsigned char)*p)) return false;
        if (*p == ':' && !colon) colon = p;
    }
    return colon && colon[1];
}

static int bad_entry(const jt_doc *doc, apidex_error *err, const char *pointer, const char *what)
{
    unsigned line = 0, col = 0;
    jt_doc_locate(doc, pointer, &line, &col);
    core_error_set(err, APIDEX_EPARSE, "%s", what);
    core_error_at(err, doc->file, line, col, pointer);
    return APIDEX_EPARSE;
}

int eval_set_load(eval_set *set, const char *path, apidex_error *err)
{
    jt_limits lim = {.max_bytes = EVAL_MAX_FILE};
    jt_doc *doc = NULL;
    int rc = jt_doc_load(path, &lim, &doc, err);
    if (rc) return rc;
    const jt_node *root = doc->root;
    if (!jt_is(root, JT_ARRAY)) {
        rc = bad_entry(doc, err, "",
                       "a queries file is a JSON list of {\"query\", \"solution\"} objects");
        jt_doc_free(doc);
        return rc;
    }
    const char *file = core_arena_strdup(set->arena, path);
    if (!file) rc = APIDEX_ENOMEM;
    size_t first = set->n;
    for (size_t i = 0; i < root->len && !rc; i++) {
        const jt_node *e = jt_at(root, i);
        char ptr[64];
        snprintf(ptr, sizeof ptr, "/%zu", i);
        const char *text = jt_get_str(e, "query");
        const jt_node *sol = jt_get(e, "solution");
        if (!jt_is(e, JT_OBJECT) || !text) {
            rc = bad_entry(doc, err, ptr, "expected an object with a \"query\" string");
            break;
        }
        /* an empty solution says that nothing in the index does the task; only with the
           kind "none", so that a list emptied by mistake still fails */
        const char *kind = jt_get_str(e, "kind");
        bool none = kind && !strcmp(kind, "none");
        if (!jt_is(sol, JT_ARRAY) || (sol->len == 0) != none) {
            snprintf(ptr, sizeof ptr, "/%zu/solution", i);
            rc = bad_entry(doc, err, ptr,
                           none ? "a task of the kind \"none\" has an empty \"solution\" list"
                                : "expected a non-empty \"solution\" list of endpoints (or "
                                  "\"kind\": \"none\" for a task nothing in the index does)");
            break;
        }
        if (core_array_grow(&set->items, &set->cap, set->n, sizeof *set->items, 64)) {
            rc = APIDEX_ENOMEM;
            break;
        }
        eval_query *q = &set->items[set->n];
        q->text = core_arena_strdup(set->arena, text);
        q->gold = core_arena_calloc(set->arena, sol->len ? sol->len : 1, sizeof *q->gold);
        q->n_gold = sol->len;
        q->file = file;
        q->index = i;
        q->by_id = false;
        if (!q->text || !q->gold) {
            rc = APIDEX_ENOMEM;
            break;
        }
        for (size_t j = 0; j < sol->len && !rc; j++) {
            const char *g = jt_str(jt_at(sol, j));
            if (!g) {
                snprintf(ptr, sizeof ptr, "/%zu/solution/%zu", i, j);
                rc = bad_entry(doc, err, ptr, "expected a \"METHOD /path\" string");
            } else if (j > 0 && eval_gold_is_id(g) != q->by_id) {
                /* one form per task: its gold is scored against ids or endpoints, not both */
                snprintf(ptr, sizeof ptr, "/%zu/solution/%zu", i, j);
                rc = bad_entry(doc, err, ptr,
                               "a task's solution is all \"METHOD /path\" endpoints or all "
                               "operation ids (\"API:operationId\"), not a mix");
            } else if (!(q->gold[j] = core_arena_strdup(set->arena, g))) {
                rc = APIDEX_ENOMEM;
            } else if (j == 0) {
                q->by_id = eval_gold_is_id(g);
            }
        }
        if (!rc) set->n++;
    }
    if (rc == APIDEX_ENOMEM) core_error_set(err, rc, "out of memory loading %s", path);
    if (rc) set->n = first; /* all of a file or nothing */
    jt_doc_free(doc);
    return rc;
}
