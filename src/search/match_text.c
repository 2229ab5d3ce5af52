/* The human-readable form of a match answer (apidex match without --json). */
#include "search/match.h"

#include <json-c/json.h>

#include <string.h>

static const char *str_of(struct json_object *o, const char *k)
{
    struct json_object *v;
    return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

static double num_of(struct json_object *o, const char *k)
{
    struct json_object *v;
    return json_object_object_get_ex(o, k, &v) ? json_object_get_double(v) : 0;
}

static void why_text(struct json_object *c, core_buf *out)
{
    struct json_object *why, *words;
    if (json_object_object_get_ex(c, "why", &why)) {
        const char *sep = "";
        json_object_object_foreach(why, key, val)
        {
            core_buf_printf(out, "%s%s %.2f", sep, key, json_object_get_double(val));
            sep = ", ";
        }
    }
    if (json_object_object_get_ex(c, "words", &words) && json_object_array_length(words)) {
        core_buf_puts(out, "; words:");
        for (size_t i = 0; i < json_object_array_length(words); i++)
            core_buf_printf(out, " %s",
                            json_object_get_string(json_object_array_get_idx(words, i)));
    }
}

int match_format_text(struct json_object *res, core_buf *out)
{
    struct json_object *ops, *apis, *m;
    double threshold = num_of(res, "threshold");
    if (json_object_object_get_ex(res, "operations", &ops))
        for (size_t i = 0; i < json_object_array_length(ops); i++) {
            struct json_object *o = json_object_array_get_idx(ops, i), *cs;
            const char *id = str_of(o, "operation_id");
            core_buf_printf(out, "%s %s%s%s%s\n", str_of(o, "method"), str_of(o, "path"),
                            id ? "  (" : "", id ? id : "", id ? ")" : "");
            bool ok = json_object_object_get_ex(o, "match", &m) && json_object_get_boolean(m);
            json_object_object_get_ex(o, "candidates", &cs);
            size_t n = cs ? json_object_array_length(cs) : 0;
            if (!ok)
                core_buf_printf(out, "  no match (best %.2f < threshold %.2f)%s\n",
                                num_of(o, "best"), threshold, n ? "; nearest:" : "");
            for (size_t c = 0; c < n; c++) {
                struct json_object *cj = json_object_array_get_idx(cs, c);
                const char *sum = str_of(cj, "summary");
                core_buf_printf(out, "  %zu. %.2f  %s  %s %s%s%.60s\n     ", c + 1,
                                num_of(cj, "score"), str_of(cj, "api"), str_of(cj, "method"),
                                str_of(cj, "path"), sum ? "  " : "", sum ? sum : "");
                why_text(cj, out);
                core_buf_putc(out, '\n');
                if (!ok) break;
            }
        }
    core_buf_printf(out, "\n%lld of %lld operations matched (threshold %.2f)\n",
                    (long long)num_of(res, "matched"),
                    (long long)(num_of(res, "matched") + num_of(res, "unmatched")), threshold);
    if (json_object_object_get_ex(res, "apis", &apis) && json_object_array_length(apis)) {
        core_buf_puts(out, "APIs covering the document:\n");
        for (size_t i = 0; i < json_object_array_length(apis); i++) {
            struct json_object *a = json_object_array_get_idx(apis, i);
            core_buf_printf(out, "  %-28s %lld of %lld operations  (score %.2f)  %s\n",
                            str_of(a, "api"), (long long)num_of(a, "covered"),
                            (long long)num_of(a, "operations"), num_of(a, "score"),
                            str_of(a, "title") ? str_of(a, "title") : "");
        }
    }
    return out->failed ? APIDEX_ENOMEM : 0;
}
