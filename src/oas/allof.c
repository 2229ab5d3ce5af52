/*
 * allOf merged on demand: one schema node whose properties and required lists
 * are the union of the schema and its allOf members (nested allOf flattened,
 * refs followed, cycles stopped). oneOf/anyOf/discriminator stay alternatives.
 */
#include "oas/oas_int.h"

#include <stdlib.h>
#include <string.h>

enum { ALLOF_MAX_PARTS = 4096 };

typedef struct kv_list {
    jt_member *v;
    size_t n, cap;
    spec_strmap seen;
} kv_list;

static int kv_add(kv_list *l, const char *key, uint32_t key_len, jt_node *value)
{
    if (spec_strmap_get(&l->seen, key, key_len, NULL)) return 0; /* the first one wins */
    if (spec_strmap_put(&l->seen, key, key_len, l->n)) return APIDEX_ENOMEM;
    if (core_array_grow(&l->v, &l->cap, l->n, sizeof *l->v, 16)) return APIDEX_ENOMEM;
    l->v[l->n++] = (jt_member){key, key_len, value};
    return 0;
}

static void kv_free(kv_list *l)
{
    free(l->v);
    spec_strmap_free(&l->seen);
}

static jt_node *kv_object(core_arena *a, const kv_list *l)
{
    jt_node *o = jt_new_object(a, l->n);
    if (!o) return NULL;
    if (l->n) memcpy(o->u.members, l->v, l->n * sizeof *l->v);
    jt_object_finish(a, o);
    return o;
}

int spec_schema_merge_allof(const spec_api *api, spec_loc schema, core_arena *arena, spec_loc *out)
{
    *out = schema;
    if (!api || !schema.node || !arena) return APIDEX_EINVAL;
    spec_loc s;
    if (spec_deref(api, schema, &s)) return APIDEX_EREF;
    *out = s;
    if (!jt_is(jt_get(s.node, "allOf"), JT_ARRAY)) return 0;

    kv_list props = {0}, req = {0}, rest = {0};
    spec_ptrmap visited = {0};
    /* parts to merge, depth first in written order: a stack popped from the end */
    const jt_node **todo = malloc(ALLOF_MAX_PARTS * sizeof *todo);
    int rc = todo ? 0 : APIDEX_ENOMEM;
    size_t n = 0, parts = 0;
    if (!rc) todo[n++] = s.node;
    while (!rc && n) {
        const jt_node *part = todo[--n];
        spec_loc pl;
        if (spec_deref(api, (spec_loc){part, s.doc}, &pl)) continue; /* unresolved member */
        part = pl.node;
        if (!part || part->type != JT_OBJECT || spec_ptrmap_get(&visited, part, NULL)) continue;
        if (++parts > ALLOF_MAX_PARTS || spec_ptrmap_put(&visited, part, 1)) {
            rc = parts > ALLOF_MAX_PARTS ? APIDEX_ELIMIT : APIDEX_ENOMEM;
            break;
        }
        for (uint32_t i = 0; i < part->len && !rc; i++) {
            const jt_member *m = &part->u.members[i];
            if (m->key_len == 10 && !memcmp(m->key, "properties", 10) &&
                jt_is(m->value, JT_OBJECT)) {
                for (uint32_t j = 0; j < m->value->len && !rc; j++)
                    rc = kv_add(&props, m->value->u.members[j].key, m->value->u.members[j].key_len,
                                m->value->u.members[j].value);
            } else if (m->key_len == 8 && !memcmp(m->key, "required", 8) &&
                       jt_is(m->value, JT_ARRAY)) {
                for (uint32_t j = 0; j < m->value->len && !rc; j++) {
                    jt_node *r = m->value->u.items[j];
                    if (r && r->type == JT_STRING) rc = kv_add(&req, r->u.s, r->len, r);
                }
            } else if (m->key_len == 5 && !memcmp(m->key, "allOf", 5)) {
                if (!jt_is(m->value, JT_ARRAY)) continue;
                /* pushed in reverse so the first member is merged first */
                for (uint32_t j = m->value->len; j-- > 0;) {
                    if (n >= ALLOF_MAX_PARTS) {
                        rc = APIDEX_ELIMIT;
                        break;
                    }
                    todo[n++] = m->value->u.items[j];
                }
            } else if (!(m->key_len == 4 && !memcmp(m->key, "$ref", 4))) {
                rc = kv_add(&rest, m->key, m->key_len, m->value);
            }
        }
    }
    jt_node *merged = NULL;
    if (!rc) {
        jt_node *p = kv_object(arena, &props);
        jt_node *r = jt_new_array(arena, req.n);
        if (!p || !r) rc = APIDEX_ENOMEM;
        for (size_t i = 0; !rc && i < req.n; i++) r->u.items[i] = req.v[i].value;
        if (!rc && props.n) rc = kv_add(&rest, "properties", 10, p);
        if (!rc && req.n) rc = kv_add(&rest, "required", 8, r);
        if (!rc && !(merged = kv_object(arena, &rest))) rc = APIDEX_ENOMEM;
    }
    free(todo);
    spec_ptrmap_free(&visited);
    kv_free(&props);
    kv_free(&req);
    kv_free(&rest);
    if (rc) return rc;
    *out = (spec_loc){merged, s.doc};
    return 0;
}
