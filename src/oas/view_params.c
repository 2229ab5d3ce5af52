/*
 * How values are serialised and exemplified beside their schemas, typed: a parameter's
 * style/explode/allowReserved (Swagger 2.0 collectionFormat) and examples, a form or
 * multipart field's encoding, a media type's example values; and which media type and which
 * success response describe an operation. What the request builder, the mock and the
 * renderings read; the OpenAPI spellings stay here.
 */
#include "oas/oas_int.h"

#include <string.h>

static spec_serialization serialization_of(const jt_node *n)
{
    const jt_node *style = jt_get(n, "style"), *ex = jt_get(n, "explode");
    const jt_node *ar = jt_get(n, "allowReserved");
    return (spec_serialization){
        .style = jt_str(style),
        .explode = ex && ex->type == JT_BOOL ? ex->boolean : -1,
        .allow_reserved = ar && ar->type == JT_BOOL && ar->boolean,
        .collection_format = jt_get_str(n, "collectionFormat"),
        .content_type = jt_get_str(n, "contentType"),
        .style_json = style,
        .explode_json = ex,
        .example = jt_get(n, "example"),
        .examples = jt_get(n, "examples"),
    };
}

spec_serialization spec_param_serialization(const spec_param *p)
{
    return serialization_of(p ? p->node.node : NULL);
}

spec_serialization spec_media_field_encoding(const spec_media *m, const char *field)
{
    return serialization_of(jt_get(jt_get(m->node.node, "encoding"), field));
}

const jt_node *spec_media_example(const spec_media *m)
{
    return m ? jt_get(m->node.node, "example") : NULL;
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
        cands[0] = spec_media_example(media);
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

bool spec_media_type_is_json(const char *type)
{
    return type && (strstr(type, "json") != NULL);
}

const spec_media *spec_pick_media(const spec_media *media, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (spec_media_type_is_json(media[i].type) && media[i].schema.node) return &media[i];
    for (size_t i = 0; i < n; i++)
        if (media[i].schema.node) return &media[i];
    return n ? &media[0] : NULL;
}

const spec_response *spec_success_response(const spec_operation *op)
{
    const spec_response *first = NULL;
    for (size_t i = 0; i < op->n_responses; i++) {
        const spec_response *r = &op->responses[i];
        if (!r->status || r->status[0] != '2') continue;
        if (!first) first = r;
        const spec_media *m = spec_pick_media(r->media, r->n_media);
        if (m && m->schema.node) return r;
    }
    return first;
}
