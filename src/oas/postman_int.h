/*
 * The Postman collection importer's private parts (postman.c, postman_auth.c,
 * postman_body.c, postman_json.c): growable builders for the OpenAPI tree it writes, and the
 * translation state shared by its files.
 */
#ifndef APIDEX_OAS_POSTMAN_INT_H
#define APIDEX_OAS_POSTMAN_INT_H

#include "oas/oas_int.h"

/** A JSON object being built: members grow in the arena, jb_done makes the node. */
typedef struct pm_obj {
    jt_member *m;
    uint32_t n, cap;
} pm_obj;

/** A JSON array being built. */
typedef struct pm_arr {
    jt_node **v;
    uint32_t n, cap;
} pm_arr;

/** The translation of one collection. */
typedef struct pm_ctx {
    spec_api_int *ai;
    const spec_doc *doc;       /* the collection: diagnostics name its file and pointers */
    core_arena *a;             /* the collection tree's arena: the OpenAPI tree lives as long */
    bool oom;                  /* an allocation failed: the translation gives APIDEX_ENOMEM */
    const jt_node *vars;       /* the collection's `variable` list, or NULL */
    pm_obj schemes;            /* components.securitySchemes */
    spec_strmap scheme_by_sig; /* a scheme's content → its index in schemes */
    spec_strmap scheme_names;  /* names given to schemes (pm_unique) */
    spec_strmap var_idx;       /* collection variable → its index in vars (first enabled) */
} pm_ctx;

/* postman_json.c: builders (every one sets ctx->oom on failure and returns NULL / -1) */
jt_node *pm_str(pm_ctx *c, const char *s);
jt_node *pm_strn(pm_ctx *c, const char *s, size_t n);
jt_node *pm_bool(pm_ctx *c, bool v);
int pm_put(pm_ctx *c, pm_obj *o, const char *key, jt_node *v);
/** Puts a string member (nothing when s is NULL). */
int pm_put_str(pm_ctx *c, pm_obj *o, const char *key, const char *s);
int pm_push(pm_ctx *c, pm_arr *a, jt_node *v);
jt_node *pm_obj_done(pm_ctx *c, pm_obj *o);
jt_node *pm_arr_done(pm_ctx *c, pm_arr *a);
/**
 * name itself when `used` does not hold it yet, else name + sep + the first free number
 * from 2 on (counting on where the last call for name stopped: linear in the names);
 * the result (in c's arena) is added to used.
 */
const char *pm_unique(pm_ctx *c, spec_strmap *used, const char *name, const char *sep);
/** {"type": type} (and "format": format when not NULL). */
jt_node *pm_type_schema(pm_ctx *c, const char *type, const char *format);

/**
 * A body or example text as JSON: *example a copy of the value in c's arena and *schema
 * a schema inferred from it; both NULL when the text is not JSON. `{{var}}` placeholders
 * outside strings are read as strings (Postman substitutes them before sending).
 */
int pm_json_example(pm_ctx *c, const char *text, size_t len, jt_node **example, jt_node **schema);
/** Schema of a JSON value (depth-capped: deeper values get {}). */
jt_node *pm_infer_schema(pm_ctx *c, const jt_node *v, unsigned depth);

/* postman.c */
/** A Postman description: a string, or {content: string}; NULL otherwise. */
const char *pm_desc(const jt_node *d);
/** A Postman {key, value} entry's value as a string, or NULL. */
const char *pm_value_str(pm_ctx *c, const jt_node *v);
/** A warning located at the collection's pointer. */
void pm_warn(pm_ctx *c, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** Header parameters of a header list; *ctype gets the Content-Type header's media type. */
void pm_header_params(pm_ctx *c, const jt_node *headers, pm_arr *params, const char **ctype);

/* postman_body.c */
/** The requestBody of a request's `body`, or NULL when it has none (ctype: the
    Content-Type header's media type, or NULL). */
jt_node *pm_request_body(pm_ctx *c, const jt_node *body, const char *ctype);
/** responses from the saved examples (item.response, found at ptr), or NULL when there
    are none. */
jt_node *pm_responses(pm_ctx *c, const jt_node *list, const char *ptr);

/* postman_auth.c */
/**
 * The security requirement list for a Postman auth object (`auth`, found at pointer):
 * [] for noauth, [{scheme: scopes}] for a mapped type (the scheme added once to
 * c->schemes); NULL when auth is absent or says "inherit", or its type has no OpenAPI
 * form (a warning).
 */
jt_node *pm_auth_requirement(pm_ctx *c, const jt_node *auth, const char *pointer);
/** Whether auth is an auth object that decides (not absent, null or "inherit"). */
bool pm_auth_decides(const jt_node *auth);

#endif /* APIDEX_OAS_POSTMAN_INT_H */
