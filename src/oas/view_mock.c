/*
 * The questions the mock server asks the model beyond the schema view: a schema's property
 * by name and its declared type, a parameter's serialisation keywords, a response's example
 * values and a server variable's default. The OpenAPI spelling stays here (spec.h).
 */
#include "oas/oas_int.h"

#include <string.h>

spec_loc spec_schema_view_property(const spec_schema_view *v, const char *name)
{
    return spec_schema_view_at(v, name ? jt_get(v->kw[SPEC_KW_PROPERTIES], name) : NULL);
}

const char *spec_schema_view_first_type(const spec_schema_view *v)
{
    const jt_node *t = v->kw[SPEC_KW_TYPE];
    if (jt_is(t, JT_STRING)) return jt_str(t);
    for (uint32_t i = 0; jt_is(t, JT_ARRAY) && i < t->len; i++) {
        const char *x = jt_str(t->u.items[i]);
        if (x && strcmp(x, "null")) return x;
    }
    return NULL;
}

bool spec_schema_view_allows_null(const spec_schema_view *v)
{
    if (v->nullable) return true;
    const jt_node *t = v->kw[SPEC_KW_TYPE];
    for (uint32_t i = 0; jt_is(t, JT_ARRAY) && i < t->len; i++) {
        const char *x = jt_str(t->u.items[i]);
        if (x && !strcmp(x, "null")) return true;
    }
    return false;
}

const char *spec_param_style(const spec_param *p)
{
    return jt_get_str(p->node.node, "style");
}

const char *spec_param_collection_format(const spec_param *p)
{
    return jt_get_str(p->node.node, "collectionFormat");
}

/* The value of an OAS 3 Example Object (its $ref followed). */
static const jt_node *example_value(const spec_api *api, spec_loc ex)
{
    if (spec_deref(api, ex, &ex) || !jt_is(ex.node, JT_OBJECT)) return NULL;
    return jt_get(ex.node, "value");
}

size_t spec_media_examples(const spec_api *api, const spec_response *resp, const spec_media *media,
                           const jt_node *out[SPEC_MEDIA_EXAMPLES_MAX])
{
    const jt_node *cands[SPEC_MEDIA_EXAMPLES_MAX] = {0};
    if (media && media->node.node) {
        cands[0] = jt_get(media->node.node, "example");
        const jt_node *exs = jt_get(media->node.node, "examples");
        if (jt_is(exs, JT_OBJECT) && exs->len)
            cands[1] = example_value(api, (spec_loc){exs->u.members[0].value, media->node.doc});
    }
    if (resp && media && media->type) /* Swagger 2.0: examples by media type */
        cands[2] = jt_get(jt_get(resp->node.node, "examples"), media->type);
    size_t n = 0; /* the model already copies a Swagger 2.0 example into the media type's */
    for (size_t i = 0; i < SPEC_MEDIA_EXAMPLES_MAX; i++) {
        bool seen = !cands[i];
        for (size_t j = 0; j < n && !seen; j++) seen = out[j] == cands[i];
        if (!seen) out[n++] = cands[i];
    }
    return n;
}

const char *spec_server_variable_default(const spec_api *api, size_t server, const char *name)
{
    const jt_node *srv = jt_at(jt_get(api->root.node, "servers"), server);
    return jt_get_str(jt_get(jt_get(srv, "variables"), name), "default");
}
