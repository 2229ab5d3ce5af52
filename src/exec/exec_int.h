/* Private to the request side of exec (request.c, params.c, body.c, creds.c): parameter
   serialisation, body encoding, and the small helpers they share. */
#ifndef APIDEX_EXEC_INT_H
#define APIDEX_EXEC_INT_H

#include "exec/exec.h"

struct json_object;

/** How one parameter is written (OAS 3 style/explode; Swagger 2.0 collectionFormat mapped). */
typedef struct exec_style {
    const char *style; /* simple, label, matrix, form, spaceDelimited, pipeDelimited,
                          deepObject, or tabDelimited (Swagger 2.0 tsv) */
    bool explode;
    bool allow_reserved; /* query: reserved characters are not percent-encoded */
} exec_style;

/** The style of parameter p (its location's default when it names none). */
exec_style exec_param_style(const spec_api *api, const spec_param *p);

/**
 * Writes value v of parameter `name` at location `in` in style st, appending to out:
 * path: the text that replaces {name}; query: "name=v&..." pairs, percent-encoded;
 * header: the header value; cookie: "name=v; ..." pairs. Returns 0, APIDEX_EINVAL (with err)
 * when the style cannot write this value, or APIDEX_ENOMEM.
 */
int exec_param_write(const char *name, const char *in, exec_style st, struct json_object *v,
                     core_buf *out, apidex_error *err);

/** The JSON value of a -p input's text for schema s (as exec_build reads it): JSON when it
    starts with [ or {, a,b,c for an array, else a scalar of the schema's type (a string when
    it is not one). *bad_json: it looked like JSON but is not (NULL returned). New reference. */
struct json_object *exec_input_value(const spec_api *api, spec_loc s, const char *text,
                                     bool *bad_json);

/** Percent-encodes s[0..n) into b: everything but unreserved characters (RFC 3986), and
    also the reserved ones when keep_reserved. */
int exec_pct_encode(core_buf *b, const char *s, size_t n, bool keep_reserved);

/** A primitive as text (string as is, numbers, true/false, "" for null); anything else as
    compact JSON. Valid while v lives. */
const char *exec_value_text(struct json_object *v);

/**
 * Encodes body value v for media type `type` (whose media object is media, for multipart
 * and form `encoding`) into r (body, body_len, content_type). JSON media: compact JSON;
 * application/x-www-form-urlencoded and multipart/form-data: an object's fields (multipart
 * file fields from "@path" strings); any other type: a string body sent as it is. Returns 0
 * or APIDEX_EINVAL/APIDEX_EIO/APIDEX_ENOMEM with err.
 */
int exec_body_encode(const spec_api *api, const spec_media *media, struct json_object *v,
                     exec_request *r, apidex_error *err);

/** Whether a media type is JSON (application/json, the +json types, any type ending in json; also
 * the wildcard type). */
bool exec_media_is_json(const char *type);

/** Whether a header name is one apidex never takes from a spec or a caller: the framing and
    hop-by-hop headers (Host, Content-Length, Transfer-Encoding, Connection, Upgrade,
    Keep-Alive, TE, Trailer, Expect, Proxy-*), which curl writes itself. */
bool exec_header_forbidden(const char *name);
/** The first control character (below 0x20, or 0x7f) of s[0..n), or NULL. */
const char *exec_control_char(const char *s, size_t n);

/** The Levenshtein distance between a and b, capped at 99. */
size_t exec_edit_distance(const char *a, const char *b);

/* ---------------------------------------------------------------- MCP entries (mcp_entry.c) */

/** A JSON object parsed from text (nesting at most 64), or NULL. New reference. */
struct json_object *exec_mcp_parse_object(const char *text);
/** "unknown argument 'name' for KIND ID" with the nearest of known, or the list of them:
    APIDEX_EINVAL in err. */
int exec_mcp_unknown_argument(const char *kind, const char *id, const char *name,
                              const char *const *known, size_t n, apidex_error *err);
/** A copy of v whose base64 "data" and "blob" strings are replaced by a note, with their
    size in "bytes" beside (depth: 0). New reference. */
struct json_object *exec_mcp_hide_binary(struct json_object *v, int depth);
/**
 * The request of resource or prompt op: its arguments from o (body or arguments, -p on top;
 * each declared, strings, the required ones given: APIDEX_EINVAL naming it), *method
 * "resources/read" or "prompts/get", *params {uri} (a template expanded) or {name,
 * arguments}, *shown the arguments (new references).
 */
int exec_mcp_entry_request(const spec_operation *op, const char *id, const exec_tool_options *o,
                           const char **method, struct json_object **params,
                           struct json_object **shown, apidex_error *err);
/** The result text (masked) of a resources/read (of uri) or prompts/get shaped like an HTTP
    body, with "resource" and "uri", or "prompt". APIDEX_ESPEC when it is no result. */
int exec_mcp_entry_shape(const spec_operation *op, const char *id, const char *uri,
                         const char *text, const exec_shape_options *shape,
                         struct json_object **out, apidex_error *err);

#endif
