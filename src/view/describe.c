/*
 * Deterministic descriptions of an operation: the capability
 * description used as the summary strategy's text, an example user query for
 * the query strategy, and the per-field text a lexical index weights.
 * An LLM replaces the first two later through chunk_options.describe.
 */
#include "view/view_int.h"
#include "text/lexicon.h"

#include <string.h>
#include <strings.h>

static bool is_upper(char c)
{
    return c >= 'A' && c <= 'Z';
}

static bool is_lower_or_digit(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int ident_words(const char *s, size_t n, core_buf *out)
{
    int rc = 0;
    bool space = out->len && out->data[out->len - 1] != ' ';
    bool started = false;
    for (size_t i = 0; i < n && !rc; i++) {
        char ch = s[i];
        if (ch == '_' || ch == '-' || ch == '.' || ch == ' ' || ch == '{' || ch == '}') {
            space = started || space;
            continue;
        }
        /* camelCase boundary: "topRated" -> "top rated"; "HTTPServer" keeps "http server". */
        if (is_upper(ch) && i > 0 &&
            (is_lower_or_digit(s[i - 1]) ||
             (is_upper(s[i - 1]) && i + 1 < n && s[i + 1] >= 'a' && s[i + 1] <= 'z')))
            space = true;
        if (space) rc = core_buf_putc(out, ' ');
        space = false;
        started = true;
        if (!rc) rc = core_buf_putc(out, is_upper(ch) ? (char)(ch + 32) : ch);
    }
    return rc;
}

static const char *verb_of(const char *method, bool infinitive)
{
    static const char *const map[][3] = {{"GET", "Retrieves", "get"},
                                         {"POST", "Creates", "create"},
                                         {"PUT", "Replaces", "replace"},
                                         {"PATCH", "Updates", "update"},
                                         {"DELETE", "Deletes", "delete"},
                                         {"HEAD", "Checks", "check"},
                                         {"OPTIONS", "Describes options of", "list the options of"},
                                         {"TRACE", "Traces", "trace"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(method, map[i][0])) return map[i][infinitive ? 2 : 1];
    return infinitive ? "access" : "Accesses";
}

/* Version segments ("v1", "2.0", "api") say nothing about the resource. */
static bool noise_segment(const char *s, size_t n)
{
    if (n == 3 && !memcmp(s, "api", 3)) return true;
    size_t i = (n && (s[0] == 'v' || s[0] == 'V')) ? 1 : 0;
    if (i == n) return false;
    for (; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) return false;
    return true;
}

/* "movie credits by movie id" from "/movie/{movie_id}/credits". */
static int resource_phrase(const char *path, core_buf *out)
{
    int rc = 0;
    size_t start = out->len;
    const char *p = path;
    while (*p && !rc) {
        while (*p == '/') p++;
        const char *e = p;
        while (*e && *e != '/') e++;
        size_t n = (size_t)(e - p);
        if (n && *p != '{' && !noise_segment(p, n)) rc = ident_words(p, n, out);
        p = e;
    }
    bool first = true;
    p = path;
    while (*p && !rc) {
        const char *o = strchr(p, '{');
        if (!o) break;
        const char *cl = strchr(o, '}');
        if (!cl) break;
        rc = core_buf_puts(out, first ? (out->len > start ? " by " : "by ") : " and ");
        if (!rc) rc = ident_words(o + 1, (size_t)(cl - o - 1), out);
        first = false;
        p = cl + 1;
    }
    if (!rc && out->len == start) rc = core_buf_puts(out, "the root resource");
    return rc;
}

static void trim_period(core_buf *b, size_t start)
{
    while (b->len > start && (b->data[b->len - 1] == '.' || b->data[b->len - 1] == ' ')) {
        b->len--;
        b->data[b->len] = 0;
    }
}

/* The first sentence of a text, at most max bytes. */
static int first_sentence(const prep_options *prep, const char *s, size_t max, core_buf *out)
{
    size_t start = out->len;
    int rc = view_clean_text(prep, s, max, out, NULL);
    if (rc) return rc;
    for (size_t i = start; i + 1 < out->len; i++) {
        if (out->data[i] == '.' && out->data[i + 1] == ' ' && i - start >= 20) {
            out->len = i + 1;
            out->data[out->len] = 0;
            break;
        }
    }
    return 0;
}

/* The "properties" object of the object schema at loc: refs followed, allOf merged (in
   arena), array items followed (at most 4 hops). NULL when there is none; *doc gets the
   document the properties live in. */
static const jt_node *object_properties(const spec_api *api, spec_loc loc, core_arena *arena,
                                        const spec_doc **doc)
{
    for (int hop = 0; hop < 4 && loc.node; hop++) {
        spec_schema_view v;
        if (spec_schema_view_open(api, loc, arena, &v)) return NULL;
        if (spec_schema_view_is_array(&v)) {
            loc = spec_schema_view_at(&v, v.kw[SPEC_KW_ITEMS]);
            continue;
        }
        const jt_node *props = v.kw[SPEC_KW_PROPERTIES];
        *doc = v.loc.doc;
        return jt_is(props, JT_OBJECT) ? props : NULL;
    }
    return NULL;
}

/* Top-level property names of the schema at loc (array items followed). */
static int schema_field_names(const spec_api *api, spec_loc loc, core_arena *arena, size_t max,
                              const char *sep, core_buf *out, size_t *count)
{
    *count = 0;
    const spec_doc *doc;
    const jt_node *props = object_properties(api, loc, arena, &doc);
    if (!props) return 0;
    int rc = 0;
    for (uint32_t i = 0; i < props->len && i < max && !rc; i++) {
        if (i) rc = core_buf_puts(out, sep);
        if (!rc) rc = core_buf_append(out, props->u.members[i].key, props->u.members[i].key_len);
    }
    *count = props->len;
    return rc;
}

int view_describe_operation(const spec_api *api, const spec_operation *op, const prep_options *prep,
                            core_buf *out)
{
    int rc = 0;
    size_t start = out->len;
    if (op->summary && *op->summary) {
        rc = view_clean_text(prep, op->summary, 200, out, NULL);
        trim_period(out, start);
        if (!rc && out->len > start) rc = core_buf_puts(out, ". ");
    } else if (op->description && *op->description) {
        rc = first_sentence(prep, op->description, 200, out);
        trim_period(out, start);
        if (!rc && out->len > start) rc = core_buf_puts(out, ". ");
    }
    if (!rc) rc = core_buf_printf(out, "%s ", verb_of(op->method, false));
    if (!rc) rc = resource_phrase(op->path, out);
    if (!rc) rc = core_buf_puts(out, ".");
    if (!rc && op->n_params) {
        rc = core_buf_puts(out, " Accepts: ");
        for (size_t i = 0; i < op->n_params && i < 6 && !rc; i++) {
            const spec_param *p = &op->params[i];
            rc = core_buf_printf(out, "%s%s%s", i ? ", " : "", p->name ? p->name : "?",
                                 p->required ? " (required)" : "");
        }
        if (!rc && op->n_params > 6)
            rc = core_buf_printf(out, ", and %zu more parameters", op->n_params - 6);
        if (!rc) rc = core_buf_puts(out, ".");
    }
    core_arena *arena = core_arena_new(0);
    if (!arena) return APIDEX_ENOMEM;
    if (!rc && op->body && !(prep && (prep->filters & PREP_REQUEST_BODY))) {
        const spec_media *m = spec_pick_media(op->body->media, op->body->n_media);
        size_t mark = out->len, count = 0;
        rc = core_buf_puts(out, " Body fields: ");
        if (!rc && m) rc = schema_field_names(api, m->schema, arena, 8, ", ", out, &count);
        if (!rc && count > 8) rc = core_buf_printf(out, ", and %zu more", count - 8);
        if (!rc && count == 0) {
            out->len = mark;
            out->data[mark] = 0;
            rc = core_buf_puts(out, " Takes a request body");
        }
        if (!rc) rc = core_buf_puts(out, ".");
    }
    const spec_response *ok = spec_success_response(op);
    if (!rc && ok) {
        size_t mark = out->len;
        rc = core_buf_puts(out, " Returns: ");
        size_t before = out->len;
        if (!rc && ok->description && *ok->description) {
            rc = first_sentence(prep, ok->description, 160, out);
            trim_period(out, before);
        }
        const spec_media *m = spec_pick_media(ok->media, ok->n_media);
        if (!rc && m && m->schema.node) {
            size_t fmark = out->len, count = 0;
            rc = core_buf_puts(out, out->len > before ? "; fields: " : "fields: ");
            if (!rc) rc = schema_field_names(api, m->schema, arena, 10, ", ", out, &count);
            if (!rc && count > 10) rc = core_buf_printf(out, ", and %zu more", count - 10);
            if (!rc && count == 0) {
                out->len = fmark;
                out->data[fmark] = 0;
            }
        }
        if (!rc && out->len == before) {
            out->len = mark;
            out->data[mark] = 0;
        } else if (!rc) {
            rc = core_buf_puts(out, ".");
        }
    }
    if (!rc && op->n_tags) rc = core_buf_printf(out, " Category: %s.", op->tags[0]);
    if (!rc && op->deprecated) rc = core_buf_puts(out, " Deprecated.");
    core_arena_free(arena);
    return rc ? APIDEX_ENOMEM : 0;
}

/* Verbs a summary may start with ("List all pets", "Gets a user"): such a
 * summary already reads as the rest of "How do I ...?". */
static const char *const lead_verbs[] = {TEXT_LEX_LEAD_VERBS, NULL};

/* Length of the base form if word (lower case, n bytes) is a lead verb, else 0. */
static size_t lead_verb(const char *w, size_t n)
{
    for (size_t i = 0; lead_verbs[i]; i++) {
        size_t k = strlen(lead_verbs[i]);
        if (memcmp(w, lead_verbs[i], k < n ? k : n) != 0 || n < k) continue;
        if (n == k || (n == k + 1 && w[k] == 's') || (n == k + 2 && !memcmp(w + k, "es", 2)))
            return k;
    }
    return 0;
}

int view_example_query(const spec_api *api, const spec_operation *op, const prep_options *prep,
                       core_buf *out)
{
    (void)api;
    int rc = core_buf_puts(out, "How do I ");
    size_t start = out->len;
    core_buf sum;
    core_buf_init(&sum, 0);
    if (!rc && op->summary && *op->summary) {
        rc = view_clean_text(prep, op->summary, 200, &sum, NULL);
        trim_period(&sum, 0);
        /* "Get Credits" -> "get credits": a query reads as a sentence (acronyms stay). */
        for (size_t i = 0; i < sum.len; i++)
            if (is_upper(sum.data[i]) && (i + 1 >= sum.len || !is_upper(sum.data[i + 1])))
                sum.data[i] = (char)(sum.data[i] + 32);
    }
    if (!rc && sum.len) {
        size_t w = 0;
        while (w < sum.len && sum.data[w] != ' ') w++;
        size_t base = lead_verb(sum.data, w);
        if (base) {
            /* "gets a user" -> "get a user" */
            rc = core_buf_append(out, sum.data, base);
            if (!rc) rc = core_buf_append(out, sum.data + w, sum.len - w);
        } else {
            /* "Info for a specific pet" -> "get info for a specific pet" */
            rc = core_buf_printf(out, "%s ", verb_of(op->method, true));
            if (!rc) rc = core_buf_append(out, sum.data, sum.len);
        }
    }
    if (!rc && out->len == start) {
        rc = core_buf_printf(out, "%s ", verb_of(op->method, true));
        if (!rc) rc = resource_phrase(op->path, out);
    }
    if (!rc) rc = core_buf_puts(out, "?");
    core_buf_free(&sum);
    return rc ? APIDEX_ENOMEM : 0;
}

/* ---------------------------------------------------------------- fields */

static const char *arena_text(core_arena *arena, core_buf *b)
{
    if (!b->len) return NULL;
    return core_arena_strndup(arena, b->data, b->len);
}

static int props_with_desc(const spec_api *api, spec_loc loc, const prep_options *prep,
                           core_arena *tmp, core_buf *out)
{
    const spec_doc *doc;
    const jt_node *props = object_properties(api, loc, tmp, &doc);
    if (!props) return 0;
    int rc = 0;
    for (uint32_t i = 0; i < props->len && i < 200 && !rc; i++) {
        const jt_member *m = &props->u.members[i];
        rc = core_buf_append(out, m->key, m->key_len);
        spec_schema_view pv;
        spec_schema_view_open(api, (spec_loc){m->value, doc}, NULL, &pv);
        const char *desc = pv.written_description ? pv.written_description : pv.description;
        if (!rc && desc && *desc) {
            rc = core_buf_puts(out, ": ");
            if (!rc) rc = view_clean_text(prep, desc, 300, out, NULL);
        }
        if (!rc) rc = core_buf_putc(out, '\n');
    }
    return rc;
}

/* The operationId without a leading word that is only the operation's method ("PostCustomers"
   on a POST, "get_user" on a GET): generated ids often start so, and the method says nothing
   of what the operation is about. */
static const char *id_without_method(const spec_operation *op, core_arena *arena)
{
    const char *id = op->operation_id;
    size_t ml = strlen(op->method);
    if (strlen(id) > ml && !strncasecmp(id, op->method, ml)) {
        char next = id[ml];
        if (next == '_' || next == '-' || next == '.' || next == ' ' ||
            (next >= 'A' && next <= 'Z')) {
            const char *rest = id + ml;
            while (*rest == '_' || *rest == '-' || *rest == '.' || *rest == ' ') rest++;
            if (*rest) id = rest;
        }
    }
    return core_arena_strdup(arena, id);
}

int view_operation_fields(const spec_api *api, const spec_operation *op, const prep_options *prep,
                          core_arena *arena, view_fields *out)
{
    memset(out, 0, sizeof *out);
    core_buf b;
    core_buf_init(&b, 0);
    core_arena *tmp = core_arena_new(0);
    if (!tmp) return APIDEX_ENOMEM;
    int rc = 0;
    out->api = api->title ? core_arena_strdup(arena, api->title) : NULL;
    /* an MCP tool's, resource's or prompt's path is its name again (oas/mcp.c), which the
       operationId field holds: no path text, so the name is not counted twice */
    spec_mcp_entry mcp;
    spec_operation_mcp(op, &mcp);
    if (mcp.marked == SPEC_MCP_NONE) out->path = core_arena_strdup(arena, op->path);
    out->operation_id = op->operation_id ? id_without_method(op, arena) : NULL;
    if (op->summary) {
        rc = view_clean_text(prep, op->summary, 0, &b, NULL);
        out->summary = arena_text(arena, &b);
        core_buf_reset(&b);
    }
    if (!rc && op->description) {
        rc = view_clean_text(prep, op->description, 0, &b, NULL);
        out->description = arena_text(arena, &b);
        core_buf_reset(&b);
    }
    for (size_t i = 0; i < op->n_tags && !rc; i++)
        rc = core_buf_printf(&b, "%s%s", i ? "\n" : "", op->tags[i]);
    out->tags = arena_text(arena, &b);
    core_buf_reset(&b);
    for (size_t i = 0; i < op->n_params && !rc; i++) {
        const spec_param *p = &op->params[i];
        rc = core_buf_puts(&b, p->name ? p->name : "");
        const char *desc = p->description;
        spec_schema_view v;
        if (!desc && spec_schema_view_open(api, p->schema, NULL, &v) == 0) desc = v.description;
        if (!rc && desc && *desc) {
            rc = core_buf_puts(&b, ": ");
            if (!rc) rc = view_clean_text(prep, desc, 300, &b, NULL);
        }
        if (!rc) rc = core_buf_putc(&b, '\n');
    }
    out->params = arena_text(arena, &b);
    core_buf_reset(&b);
    if (!rc && op->body && !(prep && (prep->filters & PREP_REQUEST_BODY))) {
        const spec_media *m = spec_pick_media(op->body->media, op->body->n_media);
        if (op->body->description) {
            rc = view_clean_text(prep, op->body->description, 300, &b, NULL);
            if (!rc && b.len) rc = core_buf_putc(&b, '\n');
        }
        if (!rc && m) rc = props_with_desc(api, m->schema, prep, tmp, &b);
        out->body = arena_text(arena, &b);
        core_buf_reset(&b);
    }
    const spec_response *ok = spec_success_response(op);
    if (!rc && ok) {
        if (ok->description) {
            rc = view_clean_text(prep, ok->description, 300, &b, NULL);
            if (!rc && b.len) rc = core_buf_putc(&b, '\n');
        }
        const spec_media *m = spec_pick_media(ok->media, ok->n_media);
        size_t count = 0;
        if (!rc && m) rc = schema_field_names(api, m->schema, tmp, 200, " ", &b, &count);
        out->response = arena_text(arena, &b);
    }
    core_buf_free(&b);
    core_arena_free(tmp);
    return rc ? APIDEX_ENOMEM : 0;
}
