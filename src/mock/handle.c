/*
 * One request to one response: route it, check it, then answer with the operation's
 * success response, generated for this request and seed, with the store applied by REST
 * conventions (docs/MOCK.md):
 * - POST with a JSON object body creates a resource in the collection at the request's
 *   path, with an id from the body ("id" or the item route's parameter), else a new one;
 * - the item route of a collection (the same path plus "/{param}") reads it (GET), replaces
 *   it (PUT), merges into it (PATCH) and deletes it (DELETE, after which it is 404);
 * - a GET of the collection lists the created ones first where its response is an array of
 *   resources (or an object holding one).
 */
#include "mock/mock.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct mock {
    mock_router *router;
    mock_state *state;
    mock_options opt;
};

int mock_new(const spec_registry *reg, const mock_options *opt, mock **out, apidex_error *err)
{
    *out = NULL;
    mock *mk = calloc(1, sizeof *mk);
    if (!mk) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (opt) mk->opt = *opt;
    if (!mk->opt.max_body) mk->opt.max_body = 1 << 20;
    int rc = mock_router_new(reg, mk->opt.order, mk->opt.n_order, &mk->router, err);
    if (!rc && mock_state_new(&mk->state)) rc = core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (rc) {
        mock_free(mk);
        return rc;
    }
    *out = mk;
    return 0;
}

void mock_free(mock *mk)
{
    if (!mk) return;
    mock_router_free(mk->router);
    mock_state_free(mk->state);
    free(mk);
}

const mock_router *mock_get_router(const mock *mk)
{
    return mk->router;
}

const mock_options *mock_get_options(const mock *mk)
{
    return &mk->opt;
}

/* ---------------------------------------------------------------- answers */

static const char *status_text(int status)
{
    switch (status) {
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 413:
        return "Payload Too Large";
    case 415:
        return "Unsupported Media Type";
    case 507:
        return "Insufficient Storage";
    default:
        return "Error";
    }
}

static void put_str(json_object *o, const char *k, const char *v)
{
    if (v) json_object_object_add(o, k, json_object_new_string(v));
}

static int finish_json(core_arena *a, mock_response *out, json_object *x, const char *type)
{
    const char *s =
        json_object_to_json_string_ext(x, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    out->body = core_arena_strdup(a, s ? s : "null");
    out->body_len = out->body ? strlen(out->body) : 0;
    out->content_type = type;
    return out->body ? 0 : APIDEX_ENOMEM;
}

static int answer_problem(core_arena *a, mock_response *out, const mock_problem *p)
{
    json_object *o = json_object_new_object();
    if (!o) return APIDEX_ENOMEM;
    json_object_object_add(o, "status", json_object_new_int(p->status));
    put_str(o, "error", status_text(p->status));
    put_str(o, "message", p->message);
    put_str(o, "in", p->in);
    put_str(o, "parameter", p->name);
    put_str(o, "pointer", p->in ? p->pointer : NULL);
    put_str(o, "rule", p->rule);
    put_str(o, "operation", out->operation);
    out->status = p->status;
    int rc = finish_json(a, out, o, "application/json");
    json_object_put(o);
    return rc;
}

/* The success response: the lowest 2xx, else 2XX, else default (as 200). */
static const spec_response *success_response(const spec_operation *op, int *status)
{
    const spec_response *best = NULL, *range = NULL, *dflt = NULL;
    int best_code = 1000;
    for (size_t i = 0; i < op->n_responses; i++) {
        const char *s = op->responses[i].status;
        if (!s) continue;
        if (s[0] == '2' && s[1] >= '0' && s[1] <= '9' && s[2] >= '0' && s[2] <= '9' && !s[3]) {
            int code = atoi(s);
            if (code < best_code) {
                best_code = code;
                best = &op->responses[i];
            }
        } else if (!strcasecmp(s, "2XX")) {
            range = &op->responses[i];
        } else if (!strcmp(s, "default")) {
            dflt = &op->responses[i];
        }
    }
    *status = best ? best_code : 200;
    return best ? best : range ? range : dflt;
}

static bool json_media(const char *t)
{
    return t && (strstr(t, "json") || !strcmp(t, "*/*"));
}

static const spec_media *response_media(const spec_response *r)
{
    if (!r || !r->n_media) return NULL;
    for (size_t i = 0; i < r->n_media; i++)
        if (json_media(r->media[i].type)) return &r->media[i];
    return &r->media[0];
}

static bool value_fits(const spec_api *api, spec_loc schema, json_object *v, core_arena *a)
{
    const char *problem = NULL;
    return !spec_validate_json(api, schema, v, false, a, &problem) && !problem;
}

/* Copies stored's members into base where base's schema allows them (each checked
   against its property's schema), so the answer stays valid and shows what was stored. */
static void overlay(const spec_api *api, spec_loc schema, json_object *base, json_object *stored,
                    core_arena *a)
{
    if (!json_object_is_type(base, json_type_object) ||
        !json_object_is_type(stored, json_type_object))
        return;
    spec_schema_view s; /* $ref followed, allOf merged */
    spec_schema_view_open(api, schema, a, &s);
    const jt_node *addl = s.kw[SPEC_KW_ADDITIONAL_PROPERTIES];
    bool closed = jt_is(addl, JT_BOOL) && !addl->boolean;
    json_object_object_foreach(stored, key, val)
    {
        spec_loc ps = spec_schema_view_property(&s, key);
        if (ps.node) {
            if (!value_fits(api, ps, val, a)) continue;
        } else if (closed || (spec_schema_view_has_properties(&s) && !addl)) {
            continue; /* not part of this response's shape */
        }
        json_object_object_add(base, key, json_object_get(val));
    }
}

/* id as the JSON type of schema's property `key` (integer ids stay numbers), or NULL when
   the value does not fit the property. */
static json_object *id_value(const spec_api *api, spec_loc schema, const char *key, const char *id,
                             core_arena *a)
{
    spec_schema_view s, p;
    spec_schema_view_open(api, schema, a, &s);
    spec_loc ps = spec_schema_view_property(&s, key);
    if (!ps.node) return NULL;
    spec_schema_view_open(api, ps, a, &p);
    const char *t = p.type;
    json_object *v;
    char *end;
    if (t && (!strcmp(t, "integer") || !strcmp(t, "number"))) {
        long long n = strtoll(id, &end, 10);
        if (*end || !*id) return NULL;
        v = json_object_new_int64(n);
    } else {
        v = json_object_new_string(id);
    }
    if (!value_fits(api, ps, v, a)) {
        json_object_put(v);
        return NULL;
    }
    return v;
}

/* The parameter name of op's item route: another operation of the API at op's path plus
   "/{name}" ("/list" -> "list_id"), NULL when there is none. */
static const char *item_param(const spec_api *api, const spec_operation *op, core_arena *a)
{
    size_t n = strlen(op->path);
    while (n && op->path[n - 1] == '/') n--;
    for (size_t i = 0; i < api->n_ops; i++) {
        const char *p = api->ops[i].path;
        if (strncmp(p, op->path, n) || p[n] != '/' || p[n + 1] != '{') continue;
        const char *close = strchr(p + n + 2, '}');
        if (close && !close[1])
            return core_arena_strndup(a, p + n + 2, (size_t)(close - p - n - 2));
    }
    return NULL;
}

/* Sets the id keys ("id", and the path parameter's own name) of an answer to the id it
   was asked for, where the schema has them and the value fits. */
static void set_ids(const spec_api *api, spec_loc schema, json_object *x, const char *param,
                    const char *id, core_arena *a)
{
    if (!json_object_is_type(x, json_type_object)) return;
    const char *keys[2] = {param, NULL};
    size_t pl = param ? strlen(param) : 0;
    if (!param || !strcmp(param, "id") || (pl >= 2 && (!strcasecmp(param + pl - 2, "id"))))
        keys[1] = "id";
    for (int k = 0; k < 2; k++) {
        if (!keys[k]) continue;
        json_object *v = id_value(api, schema, keys[k], id, a);
        if (v) json_object_object_add(x, keys[k], v);
    }
}

/* The array a list answer holds its resources in (the answer itself, or its first
   property that is an array of objects), with the items' schema and the array's maxItems
   (-1: none). */
static json_object *list_array(const spec_api *api, spec_loc schema, json_object *x, core_arena *a,
                               spec_loc *items, double *max_items)
{
    spec_schema_view s, p, is;
    spec_schema_view_open(api, schema, a, &s);
    if (json_object_is_type(x, json_type_array)) {
        *items = spec_schema_view_at(&s, s.kw[SPEC_KW_ITEMS]);
        *max_items = jt_num(s.kw[SPEC_KW_MAX_ITEMS], -1);
        return items->node ? x : NULL;
    }
    if (!json_object_is_type(x, json_type_object)) return NULL;
    const jt_node *props = s.kw[SPEC_KW_PROPERTIES];
    for (uint32_t i = 0; jt_is(props, JT_OBJECT) && i < props->len; i++) {
        spec_schema_view_open(api, spec_schema_view_at(&s, props->u.members[i].value), a, &p);
        const jt_node *it = p.kw[SPEC_KW_ITEMS];
        json_object *arr;
        if (!it || !json_object_object_get_ex(x, props->u.members[i].key, &arr) ||
            !json_object_is_type(arr, json_type_array))
            continue;
        spec_schema_view_open(api, spec_schema_view_at(&p, it), a, &is);
        if (!is.kw[SPEC_KW_PROPERTIES]) continue;
        *items = spec_schema_view_at(&p, it);
        *max_items = jt_num(p.kw[SPEC_KW_MAX_ITEMS], -1);
        return arr;
    }
    return NULL;
}

/* Puts the collection's stored resources at the front of a list answer (each over a
   generated item, so that it stays valid), within the array's maxItems. */
static void list_stored(mock *mk, const mock_match *m, spec_loc schema, json_object *x,
                        const char *collection, uint64_t seed, core_arena *a)
{
    json_object *stored = mock_state_list(mk->state, collection);
    size_t n = json_object_array_length(stored);
    spec_loc items;
    double max_items = -1;
    json_object *arr = n ? list_array(m->api, schema, x, a, &items, &max_items) : NULL;
    for (size_t i = 0; arr && i < n && (max_items < 0 || (double)i < max_items); i++) {
        bool replace = i < json_object_array_length(arr);
        json_object *base = replace ? json_object_get(json_object_array_get_idx(arr, i))
                                    : mock_gen_schema(m->api, items, seed + i, false);
        overlay(m->api, items, base, json_object_array_get_idx(stored, i), a);
        if (replace)
            json_object_array_put_idx(arr, i, base);
        else
            json_object_array_add(arr, base);
    }
    json_object_put(stored);
}

/* The collection path and id of an item request: "/3/list/5" -> "/3/list", "5". */
static void split_item(const char *path, const mock_match *m, core_arena *a,
                       const char **collection, const char **id)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    const char *end = path + n;
    const char *slash = end;
    while (slash > path && slash[-1] != '/') slash--;
    size_t cn = slash > path ? (size_t)(slash - path - 1) : 0;
    *collection = core_arena_strndup(a, path, cn);
    *id = m->n_params ? m->param_values[m->n_params - 1]
                      : core_arena_strndup(a, slash, (size_t)(end - slash));
}

static const char *trimmed_path(const char *path, core_arena *a)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    return core_arena_strndup(a, path, n);
}

/* A fresh id for a created resource: a counter, shaped like the schema's id property. */
static char *new_id(mock *mk, const spec_api *api, spec_loc schema, const char *key, core_arena *a)
{
    unsigned long n = mock_state_next_id(mk->state);
    spec_schema_view s, p;
    spec_schema_view_open(api, schema, a, &s);
    spec_loc ps = spec_schema_view_property(&s, key);
    spec_schema_view_open(api, ps, a, &p);
    const char *t = p.type;
    if (ps.node && t && !strcmp(t, "string") &&
        (p.kw[SPEC_KW_FORMAT] || p.kw[SPEC_KW_PATTERN] || p.kw[SPEC_KW_ENUM])) {
        json_object *v =
            mock_gen_schema(api, p.loc, mock_seed_mix(mk->opt.seed, &n, sizeof n), false);
        char *id = json_object_is_type(v, json_type_string)
                       ? core_arena_strdup(a, json_object_get_string(v))
                       : NULL;
        json_object_put(v);
        if (id) return id;
    }
    return core_arena_printf(a, "%lu", n);
}

static const char *scalar_text(json_object *v, core_arena *a)
{
    if (json_object_is_type(v, json_type_string))
        return core_arena_strdup(a, json_object_get_string(v));
    if (json_object_is_type(v, json_type_int))
        return core_arena_printf(a, "%lld", (long long)json_object_get_int64(v));
    return NULL;
}

/* Copies a JSON object (members shared). */
static json_object *copy_object(json_object *o)
{
    json_object *c = json_object_new_object();
    json_object_object_foreach(o, k, v) json_object_object_add(c, k, json_object_get(v));
    return c;
}

typedef struct answer {
    mock *mk;
    const mock_match *m;
    const mock_request *rq;
    core_arena *a;
    spec_loc schema;  /* the success response's schema (may be none) */
    json_object *val; /* its generated value */
    json_object *body;
    mock_response *out;
    uint64_t seed;
} answer;

/* POST: stores the body as a new resource of the collection at the request path. */
static int create(answer *w)
{
    const char *collection = trimmed_path(w->rq->path, w->a);
    const char *param = item_param(w->m->api, w->m->op, w->a);
    const char *key = "id", *id = NULL;
    json_object *v;
    if (json_object_object_get_ex(w->body, "id", &v)) id = scalar_text(v, w->a);
    if (!id && param && json_object_object_get_ex(w->body, param, &v)) {
        id = scalar_text(v, w->a);
        key = param;
    }
    if (!id) {
        /* the response's own id key decides the id's shape */
        spec_schema_view s;
        spec_schema_view_open(w->m->api, w->schema, w->a, &s);
        if (!spec_schema_view_property(&s, "id").node && param &&
            spec_schema_view_property(&s, param).node)
            key = param;
        id = new_id(w->mk, w->m->api, w->schema, key, w->a);
    }
    if (!id || !collection) return APIDEX_ENOMEM;
    json_object *stored = copy_object(w->body);
    json_object *idv = id_value(w->m->api, w->schema, key, id, w->a);
    json_object_object_add(stored, key, idv ? idv : json_object_new_string(id));
    int rc = mock_state_put(w->mk->state, collection, id, stored);
    if (rc) {
        json_object_put(stored);
        return rc;
    }
    overlay(w->m->api, w->schema, w->val, stored, w->a);
    set_ids(w->m->api, w->schema, w->val, param, id, w->a);
    json_object_put(stored);
    w->out->location = core_arena_printf(w->a, "%s/%s", collection, id);
    return 0;
}

/* GET, PUT, PATCH, DELETE and others on an item route. Returns 0, or 404 when deleted. */
static int item(answer *w)
{
    const char *collection, *id;
    split_item(w->rq->path, w->m, w->a, &collection, &id);
    if (!collection || !id) return APIDEX_ENOMEM;
    const char *param = w->m->n_params ? w->m->param_names[w->m->n_params - 1] : NULL;
    const char *method = w->rq->method;
    bool deleted;
    json_object *cur = mock_state_get(w->mk->state, collection, id, &deleted);
    bool put = !strcmp(method, "PUT"), patch = !strcmp(method, "PATCH");
    if (deleted && !put) return 404;
    if (!strcmp(method, "DELETE")) return mock_state_delete(w->mk->state, collection, id);
    json_object *stored = NULL;
    if ((put || patch) && json_object_is_type(w->body, json_type_object)) {
        stored = patch && cur ? copy_object(cur) : json_object_new_object();
        json_object_object_foreach(w->body, k, v)
            json_object_object_add(stored, k, json_object_get(v));
        int rc = mock_state_put(w->mk->state, collection, id, stored);
        if (rc) {
            json_object_put(stored);
            return rc;
        }
    } else if (cur) {
        stored = json_object_get(cur);
    }
    set_ids(w->m->api, w->schema, w->val, param, id, w->a);
    if (stored) overlay(w->m->api, w->schema, w->val, stored, w->a);
    json_object_put(stored);
    return 0;
}

/* Other routes: the ids of path parameters show in the answer ("/movie/5/credits" -> its
   id is 5); a GET lists the collection's stored resources. */
static void other(answer *w)
{
    if (w->m->n_params) {
        const char *param = w->m->param_names[w->m->n_params - 1];
        set_ids(w->m->api, w->schema, w->val, param, w->m->param_values[w->m->n_params - 1], w->a);
    }
    if (!strcmp(w->rq->method, "GET"))
        list_stored(w->mk, w->m, w->schema, w->val, trimmed_path(w->rq->path, w->a), w->seed, w->a);
}

static uint64_t request_seed(uint64_t seed, const mock_request *rq)
{
    uint64_t h = mock_seed_mix(seed, rq->method, strlen(rq->method));
    h = mock_seed_mix(h, rq->path, strlen(rq->path));
    for (size_t i = 0; i < rq->n_query; i++) {
        if (rq->query[i].name) h = mock_seed_mix(h, rq->query[i].name, strlen(rq->query[i].name));
        if (rq->query[i].value)
            h = mock_seed_mix(h, rq->query[i].value, strlen(rq->query[i].value));
    }
    return h;
}

/* State, then the body: the tail of mock_handle, under the store's lock. */
static int respond(answer *w, const spec_media *media, int status, bool has_body)
{
    const mock_request *rq = w->rq;
    core_arena *a = w->a;
    mock_response *out = w->out;
    int rc = 0;
    bool creates = !strcmp(rq->method, "POST") && !w->m->item &&
                   json_object_is_type(w->body, json_type_object);
    if (creates)
        rc = create(w);
    else if (w->m->item)
        rc = item(w);
    else
        other(w);
    if (rc == 404 || rc == APIDEX_ELIMIT) {
        mock_problem p =
            rc == 404 ? (mock_problem){404,  core_arena_printf(a, "%s was deleted", rq->path),
                                       NULL, NULL,
                                       NULL, "deleted"}
                      : (mock_problem){507, "the mock's store is full", NULL, NULL, NULL, "state"};
        return answer_problem(a, out, &p);
    }
    if (rc) return rc;
    if (!has_body || status == 204) return 0;
    const char *type =
        media && media->type && strcmp(media->type, "*/*") ? media->type : "application/json";
    if (!json_media(type) && json_object_is_type(w->val, json_type_string)) {
        out->body = core_arena_strdup(a, json_object_get_string(w->val));
        out->body_len = out->body ? strlen(out->body) : 0;
        out->content_type = type;
        return out->body ? 0 : APIDEX_ENOMEM;
    }
    return finish_json(a, out, w->val, json_media(type) ? type : "application/json");
}

int mock_handle(mock *mk, const mock_request *rq, core_arena *a, mock_response *out)
{
    *out = (mock_response){0};
    mock_match m;
    const char *allow = NULL;
    mock_problem p = {0};
    mock_route_rc rr = mock_route(mk->router, rq->method, rq->path, a, &m, &allow);
    if (rr == MOCK_ROUTE_NO_PATH) {
        p = (mock_problem){
            404, core_arena_printf(a, "no operation at %s", rq->path), NULL, NULL, NULL, "path"};
        return answer_problem(a, out, &p);
    }
    if (rr == MOCK_ROUTE_NO_METHOD) {
        out->allow = allow;
        if (!strcmp(rq->method, "OPTIONS")) {
            out->status = 204;
            return 0;
        }
        p = (mock_problem){405,
                           core_arena_printf(a, "%s is not an operation of %s (allowed: %s)",
                                             rq->method, rq->path, allow ? allow : ""),
                           NULL,
                           NULL,
                           NULL,
                           "method"};
        return answer_problem(a, out, &p);
    }
    out->operation = m.op->id;
    if (rq->body_len > mk->opt.max_body) {
        p = (mock_problem){
            413,    core_arena_printf(a, "request body over %zu bytes", mk->opt.max_body),
            "body", NULL,
            "",     "size"};
        return answer_problem(a, out, &p);
    }
    json_object *body = NULL;
    int rc = mock_request_check(&m, rq, a, &body, &p);
    if (rc == 1) return answer_problem(a, out, &p);
    if (rc) return rc;

    int status;
    const spec_response *resp = success_response(m.op, &status);
    const spec_media *media = response_media(resp);
    answer w = {mk,
                &m,
                rq,
                a,
                media ? media->schema : (spec_loc){0},
                NULL,
                body,
                out,
                request_seed(mk->opt.seed, rq)};
    bool has_body = resp && mock_gen_media(m.api, resp, media, w.seed, &w.val) == 0;
    out->status = status;

    /* The answer may share values with the store (json-c reference counts are not
       atomic): everything from here to the serialised body runs under the store's lock. */
    mock_state_lock(mk->state);
    rc = respond(&w, media, status, has_body);
    mock_state_unlock(mk->state);
    json_object_put(body);
    json_object_put(w.val);
    return rc;
}
