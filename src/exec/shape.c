/*
 * A response shaped for an agent: the status, the headers that matter, the body selected,
 * summarised and cut to a token budget (with notes saying what was cut), the body checked
 * against the operation's response schema, and pagination hints.
 *
 * The budget is met in steps that keep the JSON valid as long as they can: long arrays
 * keep fewer items (max_items, then halved down to 1), then long strings are cut (256, 64,
 * 16 tokens); only when that is still too much does the body become its JSON text, cut.
 */
#include "exec/exec.h"
#include "text/text.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SHAPE_DEFAULT_BUDGET  2000
#define SHAPE_DEFAULT_ITEMS   10
#define SHAPE_MAX_ARRAY_NOTES 20
#define SHAPE_JSON_DEPTH      512

/* ---------------------------------------------------------------- helpers */

static size_t count_tokens(const char *s, size_t n)
{
    const text_bpe *bpe = text_bpe_default();
    return bpe ? text_bpe_count(bpe, s, n) : n / 4 + 1;
}

static const char *plain(json_object *v)
{
    return json_object_to_json_string_ext(v,
                                          JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static size_t value_tokens(json_object *v)
{
    const char *s = plain(v);
    return count_tokens(s, strlen(s));
}

/* The first max_tokens tokens of s[0..n) (whole UTF-8 characters) into out; a sentence or
   word end when text_plain_shorten finds one, else a hard cut at a token boundary. */
static void cut_text(const char *s, size_t n, size_t max_tokens, core_buf *out, bool *cut)
{
    *cut = false;
    if (text_plain_shorten(s, n, max_tokens, out, cut) == 0 && (out->len || !n)) return;
    core_buf_reset(out);
    *cut = true;
    const text_bpe *bpe = text_bpe_default();
    uint32_t *ids = NULL;
    size_t n_ids = 0;
    if (!bpe || text_bpe_encode(bpe, s, n, false, &ids, &n_ids)) {
        size_t bytes = max_tokens * 3 < n ? max_tokens * 3 : n;
        core_buf_append(out, s, bytes);
    } else {
        char piece[256];
        for (size_t i = 0; i < n_ids && i + 1 < max_tokens; i++) {
            size_t len = text_bpe_decode_token(bpe, ids[i], piece, sizeof piece);
            core_buf_append(out, piece, len < sizeof piece ? len : sizeof piece);
        }
        free(ids);
        /* a token may end inside a UTF-8 character: drop the partial one */
        size_t end = out->len, start = end;
        while (start > 0 && ((unsigned char)out->data[start - 1] & 0xc0) == 0x80) start--;
        if (start > 0) {
            unsigned char lead = (unsigned char)out->data[start - 1];
            size_t want = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
            if (end - (start - 1) < want) out->len = start - 1;
        }
        if (out->data) out->data[out->len] = 0;
    }
    core_buf_puts(out, "…");
}

static bool valid_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len = c < 0x80             ? 1
                     : (c & 0xe0) == 0xc0 ? 2
                     : (c & 0xf0) == 0xe0 ? 3
                     : (c & 0xf8) == 0xf0 ? 4
                                          : 0;
        if (!len || (c == 0)) return false;
        if (len == 1) {
            i++;
            continue;
        }
        if (i + len > n) return true; /* cut by the size cap: the start was fine */
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xc0) != 0x80) return false;
        i += len;
    }
    return true;
}

/* The media type without parameters, lower case, into out. */
static void base_type(const char *ct, char *out, size_t cap)
{
    size_t n = 0;
    for (; ct && *ct && *ct != ';' && n + 1 < cap; ct++)
        if (!isspace((unsigned char)*ct)) out[n++] = (char)tolower((unsigned char)*ct);
    out[n] = 0;
}

static bool is_json_media(const char *t)
{
    size_t n = strlen(t);
    return !strcmp(t, "application/json") || (n > 5 && !strcmp(t + n - 5, "+json")) ||
           !strcmp(t, "text/json");
}

static bool binary_type(const char *t)
{
    static const char *prefixes[] = {"image/", "audio/", "video/", "font/"};
    static const char *types[] = {"application/octet-stream", "application/pdf",
                                  "application/zip",          "application/gzip",
                                  "application/x-protobuf",   "application/protobuf",
                                  "application/vnd.ms-excel", "application/msword"};
    if (!strcmp(t, "image/svg+xml")) return false;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (!strncmp(t, prefixes[i], strlen(prefixes[i]))) return true;
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (!strcmp(t, types[i])) return true;
    return false;
}

static json_object *note_add(json_object *notes, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static json_object *note_add(json_object *notes, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    json_object_array_add(notes, json_object_new_string(buf));
    return notes;
}

/* ---------------------------------------------------------------- headers */

static bool header_matters(const char *lower)
{
    static const char *names[] = {"content-type", "content-length", "retry-after", "link",
                                  "location"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(lower, names[i])) return true;
    return !strncmp(lower, "x-ratelimit-", 12) || !strncmp(lower, "ratelimit", 9) ||
           !strncmp(lower, "x-rate-limit-", 13);
}

static json_object *shape_headers(const exec_response *resp)
{
    json_object *h = json_object_new_object();
    for (size_t i = 0; i < resp->n_headers; i++) {
        char lower[128];
        size_t n = 0;
        for (const char *p = resp->headers[i].name; *p && n + 1 < sizeof lower; p++)
            lower[n++] = (char)tolower((unsigned char)*p);
        lower[n] = 0;
        if (!header_matters(lower)) continue;
        json_object *prev;
        const char *v = resp->headers[i].value ? resp->headers[i].value : "";
        if (json_object_object_get_ex(h, lower, &prev)) { /* repeated: joined as HTTP does */
            size_t len = strlen(json_object_get_string(prev)) + strlen(v) + 3;
            char *joined = malloc(len);
            if (!joined) continue;
            snprintf(joined, len, "%s, %s", json_object_get_string(prev), v);
            json_object_object_add(h, lower, json_object_new_string(joined));
            free(joined);
        } else {
            json_object_object_add(h, lower, json_object_new_string(v));
        }
    }
    return h;
}

/* ---------------------------------------------------------------- pagination */

/* Link: <url>; rel="next", <url2>; rel="prev" -> {"next": url, "prev": url2} */
static json_object *parse_link(const char *link)
{
    json_object *links = json_object_new_object();
    const char *p = link;
    while (p && *p) {
        const char *lt = strchr(p, '<');
        const char *gt = lt ? strchr(lt, '>') : NULL;
        if (!gt) break;
        const char *next = strchr(gt, '<');
        const char *segment_end = next ? next : gt + strlen(gt);
        const char *rel = NULL;
        for (const char *q = gt; q + 4 <= segment_end; q++)
            if (!strncasecmp(q, "rel=", 4)) {
                rel = q + 4;
                break;
            }
        if (rel) {
            if (*rel == '"') rel++;
            /* rel may list several relations: "next last" */
            while (rel < segment_end && *rel != '"' && *rel != ';' && *rel != ',') {
                const char *w = rel;
                while (rel < segment_end && !strchr(" \";,", *rel)) rel++;
                char name[32];
                size_t n = (size_t)(rel - w) < sizeof name - 1 ? (size_t)(rel - w) : 0;
                memcpy(name, w, n);
                name[n] = 0;
                for (char *c = name; *c; c++) *c = (char)tolower((unsigned char)*c);
                if (n &&
                    (!strcmp(name, "next") || !strcmp(name, "prev") || !strcmp(name, "previous") ||
                     !strcmp(name, "first") || !strcmp(name, "last")))
                    json_object_object_add(links, name,
                                           json_object_new_string_len(lt + 1, (int)(gt - lt - 1)));
                while (rel < segment_end && *rel == ' ') rel++;
            }
        }
        p = next;
    }
    if (!json_object_object_length(links)) {
        json_object_put(links);
        return NULL;
    }
    return links;
}

/* Body fields that page through results, by the names REST APIs use, with the query
   parameters that usually take them back. */
typedef struct page_field {
    const char *name;
    const char *kind; /* "next" (a URL or token), "cursor", "more", "offset", "limit", ... */
} page_field;

static const page_field page_fields[] = {
    {"next", "next"},
    {"next_url", "next"},
    {"nextUrl", "next"},
    {"next_page_url", "next"},
    {"nextLink", "next"},
    {"@odata.nextLink", "next"},
    {"next_cursor", "cursor"},
    {"nextCursor", "cursor"},
    {"next_page_token", "cursor"},
    {"nextPageToken", "cursor"},
    {"next_token", "cursor"},
    {"nextToken", "cursor"},
    {"cursor", "cursor"},
    {"endCursor", "cursor"},
    {"end_cursor", "cursor"},
    {"continuation", "cursor"},
    {"continuationToken", "cursor"},
    {"after", "cursor"},
    {"has_more", "more"},
    {"hasMore", "more"},
    {"has_next", "more"},
    {"hasNext", "more"},
    {"hasNextPage", "more"},
    {"has_next_page", "more"},
    {"more", "more"},
    {"next_page", "page"},
    {"nextPage", "page"},
    {"page", "page"},
    {"current_page", "page"},
    {"offset", "offset"},
    {"limit", "limit"},
    {"per_page", "limit"},
    {"perPage", "limit"},
    {"page_size", "limit"},
    {"pageSize", "limit"},
    {"total", "total"},
    {"total_count", "total"},
    {"totalCount", "total"},
    {"total_results", "total"},
    {"totalResults", "total"},
    {"total_pages", "total"},
    {"totalPages", "total"},
};

/* Objects that hold paging fields in many APIs. */
static const char *page_holders[] = {"meta",     "pagination", "paging", "page_info",
                                     "pageInfo", "links",      "_links", "cursor"};

static const page_field *page_field_named(const char *key)
{
    for (size_t i = 0; i < sizeof page_fields / sizeof *page_fields; i++)
        if (!strcmp(page_fields[i].name, key)) return &page_fields[i];
    return NULL;
}

static void page_scan(json_object *obj, const char *prefix, json_object *fields, int depth)
{
    json_object_object_foreach(obj, key, v)
    {
        char path[256];
        snprintf(path, sizeof path, "%s.%s", prefix, key);
        const page_field *f = page_field_named(key);
        json_object *href;
        if (f && v && json_object_is_type(v, json_type_object) &&
            json_object_object_get_ex(v, "href", &href)) /* HAL: _links.next.href */
            v = href;
        if (f && v &&
            (json_object_is_type(v, json_type_string) || json_object_is_type(v, json_type_int) ||
             json_object_is_type(v, json_type_double) ||
             json_object_is_type(v, json_type_boolean))) {
            if (json_object_is_type(v, json_type_string) && !*json_object_get_string(v)) continue;
            json_object *entry = json_object_new_object();
            json_object_object_add(entry, "kind", json_object_new_string(f->kind));
            json_object_object_add(entry, "value", json_object_get(v));
            json_object_object_add(fields, path, entry);
            continue;
        }
        if (depth == 0 && v && json_object_is_type(v, json_type_object))
            for (size_t i = 0; i < sizeof page_holders / sizeof *page_holders; i++)
                if (!strcmp(key, page_holders[i])) page_scan(v, path, fields, 1);
    }
}

/* The query parameter of op that takes a value of this kind back, or NULL. */
static const char *page_param(const spec_operation *op, const char *field, const char *kind)
{
    static const char *cursor_params[] = {
        "cursor", "page_token",     "pageToken",    "next_token",        "nextToken",
        "after",  "starting_after", "continuation", "continuationToken", "next_cursor"};
    if (!op) return NULL;
    for (size_t i = 0; i < op->n_params; i++) {
        const spec_param *p = &op->params[i];
        if (!p->name || !p->in || strcmp(p->in, "query")) continue;
        if (!strcmp(kind, "cursor")) {
            if (!strcmp(p->name, field)) return p->name;
            for (size_t k = 0; k < sizeof cursor_params / sizeof *cursor_params; k++)
                if (!strcmp(p->name, cursor_params[k])) return p->name;
        } else if (!strcmp(kind, "page") || !strcmp(kind, "offset")) {
            if (!strcmp(p->name, kind)) return p->name;
        }
    }
    return NULL;
}

static json_object *shape_pagination(const exec_response *resp, json_object *body,
                                     const spec_operation *op)
{
    json_object *pg = json_object_new_object();
    const char *link = exec_response_header(resp, "Link");
    json_object *links = link ? parse_link(link) : NULL;
    json_object *next_link = NULL;
    if (links) {
        json_object_object_add(pg, "links", links);
        json_object_object_get_ex(links, "next", &next_link);
    }
    json_object *fields = json_object_new_object();
    if (body && json_object_is_type(body, json_type_object)) page_scan(body, "$", fields, 0);
    /* the next request, when one can be told */
    json_object *next = json_object_new_object();
    if (next_link) {
        json_object_object_add(next, "url", json_object_get(next_link));
    } else {
        double offset = -1, limit = -1;
        const char *offset_param = NULL;
        json_object_object_foreach(fields, path, entry)
        {
            json_object *kind, *value;
            json_object_object_get_ex(entry, "kind", &kind);
            json_object_object_get_ex(entry, "value", &value);
            const char *k = json_object_get_string(kind);
            const char *leaf = strrchr(path, '.') + 1;
            if (!strcmp(k, "next") && json_object_is_type(value, json_type_string) &&
                !json_object_object_length(next)) {
                json_object_object_add(next, "url", json_object_get(value));
            } else if (!strcmp(k, "cursor") && !json_object_object_get_ex(next, "param", NULL)) {
                const char *param = page_param(op, leaf, "cursor");
                json_object_object_add(next, "from", json_object_new_string(path));
                json_object_object_add(
                    next, "param", param ? json_object_new_string(param) : json_object_new_null());
                json_object_object_add(next, "value", json_object_get(value));
            } else if (!strcmp(k, "offset")) {
                offset = json_object_get_double(value);
                offset_param = page_param(op, leaf, "offset");
            } else if (!strcmp(k, "limit")) {
                limit = json_object_get_double(value);
            }
        }
        if (!json_object_object_length(next) && offset >= 0 && limit > 0 && offset_param) {
            json_object_object_add(next, "param", json_object_new_string(offset_param));
            json_object_object_add(next, "value", json_object_new_int64((int64_t)(offset + limit)));
        }
    }
    if (json_object_object_length(fields))
        json_object_object_add(pg, "fields", fields);
    else
        json_object_put(fields);
    if (json_object_object_length(next))
        json_object_object_add(pg, "next", next);
    else
        json_object_put(next);
    if (!json_object_object_length(pg)) {
        json_object_put(pg);
        return NULL;
    }
    return pg;
}

/* ---------------------------------------------------------------- schema check */

static bool status_matches(const char *declared, long status)
{
    char code[8];
    snprintf(code, sizeof code, "%ld", status);
    if (!strcmp(declared, code)) return true;
    return strlen(declared) == 3 && declared[0] == code[0] && toupper(declared[1]) == 'X' &&
           toupper(declared[2]) == 'X';
}

static json_object *shape_schema(const exec_response *resp, const spec_api *api,
                                 const spec_operation *op, json_object *body, bool parsed,
                                 const char *type)
{
    json_object *s = json_object_new_object();
    const spec_response *chosen = NULL;
    for (int pass = 0; pass < 3 && !chosen; pass++)
        for (size_t i = 0; i < op->n_responses && !chosen; i++) {
            const char *st = op->responses[i].status;
            if (!st) continue;
            char code[24];
            snprintf(code, sizeof code, "%ld", resp->status);
            if ((pass == 0 && !strcmp(st, code)) ||
                (pass == 1 && status_matches(st, resp->status)) ||
                (pass == 2 && !strcmp(st, "default")))
                chosen = &op->responses[i];
        }
    if (!chosen) {
        json_object_object_add(s, "checked", json_object_new_boolean(false));
        char why[96];
        snprintf(why, sizeof why, "the spec declares no response for status %ld", resp->status);
        json_object_object_add(s, "reason", json_object_new_string(why));
        return s;
    }
    json_object_object_add(s, "response", json_object_new_string(chosen->status));
    const spec_media *media = NULL;
    for (size_t i = 0; i < chosen->n_media && !media; i++)
        if (!strcasecmp(chosen->media[i].type, type)) media = &chosen->media[i];
    for (size_t i = 0; i < chosen->n_media && !media; i++) {
        char t[128];
        base_type(chosen->media[i].type, t, sizeof t);
        if (is_json_media(t) || !strcmp(t, "*/*")) media = &chosen->media[i];
    }
    const char *reason = NULL;
    if (!media || !media->schema.node)
        reason = "the spec declares no JSON schema for this response";
    else if (!parsed)
        reason = resp->truncated ? "the body was cut by the size cap" : "the body is not JSON";
    if (reason) {
        json_object_object_add(s, "checked", json_object_new_boolean(false));
        json_object_object_add(s, "reason", json_object_new_string(reason));
        return s;
    }
    json_object_object_add(s, "media", json_object_new_string(media->type));
    core_arena *a = core_arena_new(0);
    const char *problem = NULL;
    int rc = a ? spec_validate_json(api, media->schema, body, false, a, &problem) : APIDEX_ENOMEM;
    json_object_object_add(s, "checked", json_object_new_boolean(rc == 0));
    if (rc == 0) {
        json_object_object_add(s, "valid", json_object_new_boolean(problem == NULL));
        if (problem) json_object_object_add(s, "problem", json_object_new_string(problem));
    } else {
        json_object_object_add(s, "reason", json_object_new_string("out of memory"));
    }
    core_arena_free(a);
    return s;
}

/* ---------------------------------------------------------------- summarising */

typedef struct shrink {
    size_t max_items;
    size_t max_string_tokens; /* 0 = strings whole */
    json_object *arrays;      /* [{"path", "shown", "total"}] */
    size_t n_arrays;          /* arrays cut, all of them (notes keep the first 20) */
    size_t n_strings;         /* strings cut */
} shrink;

/* A copy of v with long arrays and (when asked) long strings cut. */
static json_object *shrink_copy(json_object *v, const char *path, shrink *sh, int depth)
{
    if (!v) return NULL;
    if (depth > SHAPE_JSON_DEPTH) return json_object_new_null();
    if (json_object_is_type(v, json_type_object)) {
        json_object *o = json_object_new_object();
        json_object_object_foreach(v, key, child)
        {
            char sub[512];
            snprintf(sub, sizeof sub, "%s.%s", path, key);
            json_object_object_add(o, key, shrink_copy(child, sub, sh, depth + 1));
        }
        return o;
    }
    if (json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);
        size_t keep = n > sh->max_items ? sh->max_items : n;
        json_object *a = json_object_new_array_ext((int)keep);
        for (size_t i = 0; i < keep; i++) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            json_object_array_add(a,
                                  shrink_copy(json_object_array_get_idx(v, i), sub, sh, depth + 1));
        }
        if (keep < n) {
            if (sh->n_arrays++ < SHAPE_MAX_ARRAY_NOTES) {
                json_object *note = json_object_new_object();
                json_object_object_add(note, "path", json_object_new_string(path));
                json_object_object_add(note, "shown", json_object_new_int64((int64_t)keep));
                json_object_object_add(note, "total", json_object_new_int64((int64_t)n));
                json_object_array_add(sh->arrays, note);
            }
        }
        return a;
    }
    if (sh->max_string_tokens && json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        size_t len = (size_t)json_object_get_string_len(v);
        if (len > sh->max_string_tokens * 2 && count_tokens(s, len) > sh->max_string_tokens) {
            core_buf b;
            core_buf_init(&b, 0);
            bool cut;
            cut_text(s, len, sh->max_string_tokens, &b, &cut);
            sh->n_strings++;
            json_object *out = json_object_new_string_len(b.data ? b.data : "", (int)b.len);
            core_buf_free(&b);
            return out;
        }
    }
    return json_object_get(v);
}

/* Fits value into the budget; adds "body", "arrays" and notes to out. */
static void shape_json_body(json_object *value, const exec_shape_options *opt, json_object *out,
                            json_object *notes)
{
    size_t full = value_tokens(value);
    static const size_t string_caps[] = {0, 256, 64, 16};
    json_object *best = NULL;
    shrink best_sh = {0};
    size_t shown = 0;
    for (size_t s = 0; s < sizeof string_caps / sizeof *string_caps && !best; s++) {
        for (size_t items = opt->max_items; items >= 1; items = items > 1 ? items / 2 : 0) {
            shrink sh = {.max_items = items,
                         .max_string_tokens = string_caps[s],
                         .arrays = json_object_new_array()};
            json_object *copy = shrink_copy(value, "$", &sh, 0);
            size_t tokens = value_tokens(copy);
            if (tokens <= opt->budget) {
                best = copy;
                best_sh = sh;
                shown = tokens;
                break;
            }
            json_object_put(copy);
            json_object_put(sh.arrays);
            if (items == 1) break;
            if (s == 0 && items == opt->max_items && !sh.n_arrays) break; /* no array to cut */
        }
    }
    json_object *tokens = json_object_new_object();
    json_object_object_add(tokens, "full", json_object_new_int64((int64_t)full));
    json_object_object_add(tokens, "budget", json_object_new_int64((int64_t)opt->budget));
    if (best) {
        json_object_object_add(out, "body", best);
        if (best_sh.n_arrays) {
            json_object_object_add(out, "arrays", best_sh.arrays);
            note_add(notes, "%zu long array%s cut to %s first %zu item%s (see arrays)",
                     best_sh.n_arrays, best_sh.n_arrays == 1 ? "" : "s",
                     best_sh.n_arrays == 1 ? "its" : "their", best_sh.max_items,
                     best_sh.max_items == 1 ? "" : "s");
        } else {
            json_object_put(best_sh.arrays);
        }
        if (best_sh.n_strings)
            note_add(notes, "%zu long string%s cut to %zu tokens", best_sh.n_strings,
                     best_sh.n_strings == 1 ? "" : "s", best_sh.max_string_tokens);
    } else {
        /* still too long: the JSON text itself, cut */
        const char *text = plain(value);
        core_buf b;
        core_buf_init(&b, 0);
        bool cut;
        cut_text(text, strlen(text), opt->budget, &b, &cut);
        shown = count_tokens(b.data ? b.data : "", b.len);
        json_object_object_add(out, "body",
                               json_object_new_string_len(b.data ? b.data : "", (int)b.len));
        json_object_object_add(out, "body_type", json_object_new_string("json-text"));
        core_buf_free(&b);
        note_add(notes,
                 "the JSON did not fit in %zu tokens even summarised: its text is shown, cut "
                 "(%zu of %zu tokens); use select to pick fields",
                 opt->budget, shown, full);
    }
    json_object_object_add(tokens, "shown", json_object_new_int64((int64_t)shown));
    json_object_object_add(out, "tokens", tokens);
}

static void shape_text_body(const exec_response *resp, const exec_shape_options *opt,
                            json_object *out, json_object *notes)
{
    size_t full = count_tokens(resp->body, resp->body_len);
    core_buf b;
    core_buf_init(&b, 0);
    bool cut = false;
    if (full <= opt->budget)
        core_buf_append(&b, resp->body, resp->body_len);
    else
        cut_text(resp->body, resp->body_len, opt->budget, &b, &cut);
    size_t shown = cut ? count_tokens(b.data ? b.data : "", b.len) : full;
    json_object_object_add(out, "body",
                           json_object_new_string_len(b.data ? b.data : "", (int)b.len));
    core_buf_free(&b);
    if (cut)
        note_add(notes, "text cut to the budget: %zu of %zu tokens shown (%zu left out)", shown,
                 full, full - shown);
    json_object *tokens = json_object_new_object();
    json_object_object_add(tokens, "full", json_object_new_int64((int64_t)full));
    json_object_object_add(tokens, "shown", json_object_new_int64((int64_t)shown));
    json_object_object_add(tokens, "budget", json_object_new_int64((int64_t)opt->budget));
    json_object_object_add(out, "tokens", tokens);
}

/* ---------------------------------------------------------------- entry point */

static json_object *parse_body(const exec_response *resp)
{
    json_tokener *tok = json_tokener_new_ex(SHAPE_JSON_DEPTH);
    if (!tok) return NULL;
    json_object *v = json_tokener_parse_ex(tok, resp->body, (int)resp->body_len);
    if (json_tokener_get_error(tok) != json_tokener_success) {
        json_object_put(v);
        v = NULL;
    } else {
        /* trailing content after the value: not one JSON document */
        size_t used = json_tokener_get_parse_end(tok);
        while (used < resp->body_len && isspace((unsigned char)resp->body[used])) used++;
        if (used < resp->body_len) {
            json_object_put(v);
            v = NULL;
        }
    }
    json_tokener_free(tok);
    return v;
}

int exec_shape(const exec_response *resp, const spec_api *api, const spec_operation *op,
               const exec_shape_options *opt_in, struct json_object **out, apidex_error *err)
{
    *out = NULL;
    if (!resp) return core_error_set(err, APIDEX_EINVAL, "exec_shape: no response");
    exec_shape_options opt = opt_in ? *opt_in : (exec_shape_options){0};
    if (!opt.budget) opt.budget = SHAPE_DEFAULT_BUDGET;
    if (!opt.max_items) opt.max_items = SHAPE_DEFAULT_ITEMS;
    json_object *o = json_object_new_object();
    json_object *notes = json_object_new_array();
    if (!o || !notes) {
        json_object_put(o);
        json_object_put(notes);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    json_object_object_add(o, "status", json_object_new_int64(resp->status));
    if (resp->final_url) json_object_object_add(o, "url", json_object_new_string(resp->final_url));
    if (resp->redirects)
        json_object_object_add(o, "redirects", json_object_new_int64(resp->redirects));
    json_object_object_add(o, "headers", shape_headers(resp));
    char type[128];
    base_type(exec_response_header(resp, "Content-Type"), type, sizeof type);
    if (resp->truncated)
        note_add(notes, "the body was cut at %zu bytes by the transport's size cap",
                 resp->body_len);
    json_object *body = NULL;
    const char *kind;
    bool looks_json = resp->body_len && strchr("{[", resp->body[strspn(resp->body, " \t\r\n")]);
    if (!resp->body_len) {
        kind = "empty";
    } else if ((is_json_media(type) || ((!*type || !strcmp(type, "text/plain")) && looks_json)) &&
               (body = parse_body(resp))) {
        kind = "json";
    } else if (binary_type(type) || memchr(resp->body, 0, resp->body_len) ||
               !valid_utf8((const unsigned char *)resp->body, resp->body_len)) {
        kind = "binary";
    } else {
        kind = "text";
        if (is_json_media(type))
            note_add(notes, "the body is declared JSON but does not parse: shown as text");
    }
    json_object_object_add(o, "body_type", json_object_new_string(kind));
    int rc = 0;
    if (api && op && strcmp(kind, "empty"))
        json_object_object_add(o, "schema", shape_schema(resp, api, op, body, body != NULL, type));
    json_object *pg = shape_pagination(resp, body, op);
    if (body) {
        json_object *value = body;
        json_object *selected = NULL;
        if (opt.select) {
            rc = exec_select(body, opt.select, &selected, err);
            if (!rc) {
                value = selected;
                json_object_object_add(o, "select", json_object_new_string(opt.select));
                if (!selected) note_add(notes, "select %s matched nothing", opt.select);
            }
        }
        if (!rc && value)
            shape_json_body(value, &opt, o, notes);
        else if (!rc)
            json_object_object_add(o, "body", NULL);
        json_object_put(selected);
    } else if (!strcmp(kind, "text")) {
        shape_text_body(resp, &opt, o, notes);
    } else if (!strcmp(kind, "binary")) {
        json_object *b = json_object_new_object();
        json_object_object_add(b, "content_type",
                               json_object_new_string(*type ? type : "application/octet-stream"));
        json_object_object_add(b, "bytes", json_object_new_int64((int64_t)resp->body_len));
        json_object_object_add(o, "binary", b);
        note_add(notes, "binary body not shown: %s, %zu bytes%s", *type ? type : "unknown type",
                 resp->body_len, resp->truncated ? " (cut)" : "");
    }
    if (pg) json_object_object_add(o, "pagination", pg);
    if (json_object_array_length(notes))
        json_object_object_add(o, "notes", notes);
    else
        json_object_put(notes);
    json_object_put(body);
    if (rc) {
        json_object_put(o);
        return rc;
    }
    *out = o;
    return 0;
}
