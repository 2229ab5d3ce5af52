/*
 * The Postman importer's tree building: growable objects and arrays in the
 * collection's arena, and JSON bodies read as examples with inferred schemas.
 */
#include "oas/postman_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    PM_MAX_COPY_DEPTH = 64,  /* an example deeper than this is dropped (its schema stays) */
    PM_MAX_INFER_DEPTH = 32, /* schemas stop here: deeper values get {} */
    PM_MAX_PROPERTIES = 1000 /* properties inferred per object */
};

/* ---------------------------------------------------------------- builders */

jt_node *pm_strn(pm_ctx *c, const char *s, size_t n)
{
    jt_node *v = jt_new_string(c->a, s ? s : "", s ? n : 0);
    if (!v) c->oom = true;
    return v;
}

jt_node *pm_str(pm_ctx *c, const char *s)
{
    return pm_strn(c, s, s ? strlen(s) : 0);
}

jt_node *pm_bool(pm_ctx *c, bool b)
{
    jt_node *v = jt_new_bool(c->a, b);
    if (!v) c->oom = true;
    return v;
}

int pm_put(pm_ctx *c, pm_obj *o, const char *key, jt_node *v)
{
    if (!v) return -1;
    if (o->n == o->cap) {
        uint32_t cap = o->cap ? o->cap * 2 : 8;
        jt_member *m = core_arena_alloc(c->a, cap * sizeof *m);
        if (!m) {
            c->oom = true;
            return -1;
        }
        if (o->n) memcpy(m, o->m, o->n * sizeof *m);
        o->m = m;
        o->cap = cap;
    }
    size_t kl = strlen(key);
    char *k = core_arena_strndup(c->a, key, kl);
    if (!k) {
        c->oom = true;
        return -1;
    }
    o->m[o->n++] = (jt_member){.key = k, .key_len = (uint32_t)kl, .value = v};
    return 0;
}

int pm_put_str(pm_ctx *c, pm_obj *o, const char *key, const char *s)
{
    return s ? pm_put(c, o, key, pm_str(c, s)) : 0;
}

int pm_push(pm_ctx *c, pm_arr *a, jt_node *v)
{
    if (!v) return -1;
    if (a->n == a->cap) {
        uint32_t cap = a->cap ? a->cap * 2 : 8;
        jt_node **items = core_arena_alloc(c->a, cap * sizeof *items);
        if (!items) {
            c->oom = true;
            return -1;
        }
        if (a->n) memcpy(items, a->v, a->n * sizeof *items);
        a->v = items;
        a->cap = cap;
    }
    a->v[a->n++] = v;
    return 0;
}

jt_node *pm_obj_done(pm_ctx *c, pm_obj *o)
{
    jt_node *n = jt_new_object(c->a, 0);
    if (!n) {
        c->oom = true;
        return NULL;
    }
    n->u.members = o->m;
    n->len = o->n;
    jt_object_finish(c->a, n);
    return n;
}

jt_node *pm_arr_done(pm_ctx *c, pm_arr *a)
{
    jt_node *n = jt_new_array(c->a, 0);
    if (!n) {
        c->oom = true;
        return NULL;
    }
    n->u.items = a->v;
    n->len = a->n;
    return n;
}

const char *pm_unique(pm_ctx *c, spec_strmap *used, const char *name, const char *sep)
{
    size_t len = strlen(name), next;
    char buf[160];
    if (!spec_strmap_get(used, name, len, &next)) {
        snprintf(buf, sizeof buf, "%s", name);
        next = 2;
    } else {
        for (;; next++) {
            snprintf(buf, sizeof buf, "%.100s%s%zu", name, sep, next);
            if (!spec_strmap_get(used, buf, strlen(buf), NULL)) break;
        }
        next++;
    }
    if (spec_strmap_put(used, name, len, next) ||
        (strcmp(buf, name) && spec_strmap_put(used, buf, strlen(buf), 2))) {
        c->oom = true;
        return NULL;
    }
    char *out = core_arena_strdup(c->a, buf);
    if (!out) c->oom = true;
    return out;
}

jt_node *pm_type_schema(pm_ctx *c, const char *type, const char *format)
{
    pm_obj o = {0};
    pm_put_str(c, &o, "type", type);
    pm_put_str(c, &o, "format", format);
    return pm_obj_done(c, &o);
}

/* ---------------------------------------------------------------- examples and schemas */

/* A deep copy of v into c's arena; NULL when deeper than the cap (or out of memory). */
static jt_node *copy_value(pm_ctx *c, const jt_node *v, unsigned depth)
{
    if (depth > PM_MAX_COPY_DEPTH) return NULL;
    jt_node *n = core_arena_calloc(c->a, 1, sizeof *n);
    if (!n) {
        c->oom = true;
        return NULL;
    }
    n->type = v->type;
    n->boolean = v->boolean;
    n->len = v->len;
    switch (v->type) {
    case JT_STRING:
        if (!(n->u.s = core_arena_strndup(c->a, v->u.s, v->len))) c->oom = true;
        return n->u.s ? n : NULL;
    case JT_INT:
        n->u.i = v->u.i;
        return n;
    case JT_REAL:
        n->u.d = v->u.d;
        return n;
    case JT_ARRAY:
        n->u.items = v->len ? core_arena_calloc(c->a, v->len, sizeof *n->u.items) : NULL;
        if (v->len && !n->u.items) {
            c->oom = true;
            return NULL;
        }
        for (uint32_t i = 0; i < v->len; i++)
            if (!(n->u.items[i] = copy_value(c, v->u.items[i], depth + 1))) return NULL;
        return n;
    case JT_OBJECT:
        n->u.members = v->len ? core_arena_calloc(c->a, v->len, sizeof *n->u.members) : NULL;
        if (v->len && !n->u.members) {
            c->oom = true;
            return NULL;
        }
        for (uint32_t i = 0; i < v->len; i++) {
            const jt_member *m = &v->u.members[i];
            n->u.members[i].key = core_arena_strndup(c->a, m->key, m->key_len);
            n->u.members[i].key_len = m->key_len;
            n->u.members[i].value = copy_value(c, m->value, depth + 1);
            if (!n->u.members[i].key || !n->u.members[i].value) return NULL;
        }
        jt_object_finish(c->a, n);
        return n;
    default:
        return n;
    }
}

jt_node *pm_infer_schema(pm_ctx *c, const jt_node *v, unsigned depth)
{
    pm_obj s = {0};
    if (!v || depth > PM_MAX_INFER_DEPTH) return pm_obj_done(c, &s);
    switch (v->type) {
    case JT_STRING:
        return pm_type_schema(c, "string", NULL);
    case JT_INT:
        return pm_type_schema(c, "integer", NULL);
    case JT_REAL:
        return pm_type_schema(c, "number", NULL);
    case JT_BOOL:
        return pm_type_schema(c, "boolean", NULL);
    case JT_ARRAY:
        pm_put_str(c, &s, "type", "array");
        pm_put(c, &s, "items", pm_infer_schema(c, v->len ? v->u.items[0] : NULL, depth + 1));
        return pm_obj_done(c, &s);
    case JT_OBJECT: {
        pm_obj props = {0};
        for (uint32_t i = 0; i < v->len && i < PM_MAX_PROPERTIES; i++) {
            const jt_member *m = &v->u.members[i];
            if (jt_getn(v, m->key, m->key_len) != m->value) continue; /* a duplicate key */
            char *k = core_arena_strndup(c->a, m->key, m->key_len);
            if (!k) {
                c->oom = true;
                return NULL;
            }
            pm_put(c, &props, k, pm_infer_schema(c, m->value, depth + 1));
        }
        pm_put_str(c, &s, "type", "object");
        pm_put(c, &s, "properties", pm_obj_done(c, &props));
        return pm_obj_done(c, &s);
    }
    default:
        return pm_obj_done(c, &s); /* null: any type */
    }
}

/* text with every `{{...}}` outside a JSON string quoted (malloc'd), so it parses. */
static char *quote_placeholders(const char *t, size_t len, size_t *out_len)
{
    size_t extra = 0;
    for (size_t i = 0; i + 1 < len; i++)
        if (t[i] == '{' && t[i + 1] == '{') extra += 2;
    char *o = malloc(len + extra + 1);
    if (!o) return NULL;
    size_t n = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char ch = t[i];
        if (in_str) {
            o[n++] = ch;
            if (ch == '\\' && i + 1 < len)
                o[n++] = t[++i];
            else if (ch == '"')
                in_str = false;
            continue;
        }
        if (ch == '"') in_str = true;
        if (ch == '{' && i + 1 < len && t[i + 1] == '{') {
            const char *end = memmem(t + i + 2, len - i - 2, "}}", 2);
            const char *nl = memchr(t + i + 2, '"', len - i - 2);
            if (end && (!nl || nl > end)) {
                size_t span = (size_t)(end - (t + i)) + 2;
                o[n++] = '"';
                memcpy(o + n, t + i, span);
                n += span;
                o[n++] = '"';
                i += span - 1;
                continue;
            }
        }
        o[n++] = ch;
    }
    o[n] = '\0';
    *out_len = n;
    return o;
}

int pm_json_example(pm_ctx *c, const char *text, size_t len, jt_node **example, jt_node **schema)
{
    *example = *schema = NULL;
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
        i++;
    if (i == len || (text[i] != '{' && text[i] != '[')) return 0;
    size_t n = 0;
    char *copy = quote_placeholders(text, len, &n);
    if (!copy) {
        c->oom = true;
        return APIDEX_ENOMEM;
    }
    jt_doc *doc = NULL;
    apidex_error err;
    core_error_clear(&err);
    /* jt_doc_parse owns copy from here on */
    if (jt_doc_parse(copy, n, "body", &c->ai->set->opt.limits, &doc, &err)) return 0;
    if (doc->format == JT_FORMAT_JSON && doc->root) {
        *schema = pm_infer_schema(c, doc->root, 0);
        *example = copy_value(c, doc->root, 0);
    }
    jt_doc_free(doc);
    return c->oom ? APIDEX_ENOMEM : 0;
}
