/*
 * API ids a person can guess: proposed from what a document says about itself,
 * then made unique within a set (docs/INDEX.md, "API ids", states the rule).
 *
 * Design
 * - Proposing looks at one document only, so a build that loads documents one
 *   at a time (or in parallel) can propose as it goes: APIs.guru's
 *   info.x-providerName + info.x-serviceName ("amazonaws.com" + "s3" →
 *   "amazonaws-s3"), else a slug of info.title without filler words ("Stripe
 *   API" → "stripe"), else the first server's host ("api.stripe.com" →
 *   "stripe"), else the file name.
 * - Making ids unique is separate: the caller says which ids are taken and
 *   calls spec_id_unique in a deterministic order (the registry's sorted
 *   paths); a taken id gets "-2", "-3", ...
 * - An id is 1-64 characters of [a-z0-9._-], starting and ending with a letter
 *   or digit; it never holds ':' (operation ids are "api:operationId").
 */
#include "oas/oas_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Words of a title that say nothing about which API it is. */
static const char *const filler_words[] = {
    "a",    "an",   "and",           "api",     "apis",          "the",
    "for",  "of",   "rest",          "restful", "openapi",       "http",
    "json", "spec", "specification", "docs",    "documentation", "reference",
    "v",    NULL,
};

static bool is_filler(const char *w, size_t n)
{
    for (size_t i = 0; filler_words[i]; i++)
        if (strlen(filler_words[i]) == n && !strncmp(filler_words[i], w, n)) return true;
    /* versions: "v2", "2", "1.0", "v3.1" */
    size_t i = (n > 1 && w[0] == 'v') ? 1 : 0;
    if (i == n) return false;
    for (; i < n; i++)
        if (!isdigit((unsigned char)w[i]) && w[i] != '.') return false;
    return true;
}

static bool id_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

static bool id_end_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool spec_id_valid(const char *id)
{
    if (!id) return false;
    size_t n = strlen(id);
    if (n == 0 || n > SPEC_ID_MAX || !id_end_char(id[0]) || !id_end_char(id[n - 1])) return false;
    for (size_t i = 0; i < n; i++)
        if (!id_char(id[i])) return false;
    return true;
}

/* Appends the slug of s[0..n) to out (lowercase; runs of other characters become one
   '-'); words are cut at [^a-z0-9] and, when drop_filler, filler words are skipped. */
static void slug_append(char *out, size_t cap, const char *s, size_t n, bool drop_filler,
                        size_t max_words)
{
    size_t len = strlen(out), words = 0;
    size_t i = 0;
    while (i < n && words < max_words) {
        while (i < n && !isalnum((unsigned char)s[i])) i++;
        size_t start = i;
        /* a word keeps inner '.' and '_' ("shorten.rest", "data_v2") */
        while (i < n &&
               (isalnum((unsigned char)s[i]) || ((s[i] == '.' || s[i] == '_') && i + 1 < n &&
                                                 isalnum((unsigned char)s[i + 1]) && i > start)))
            i++;
        if (i == start) break;
        char word[SPEC_ID_MAX + 1];
        size_t wl = 0;
        for (size_t k = start; k < i && wl < SPEC_ID_MAX; k++)
            word[wl++] = (char)tolower((unsigned char)s[k]);
        word[wl] = '\0';
        if (drop_filler && is_filler(word, wl)) continue;
        size_t need = (len ? 1 : 0) + wl;
        if (len + need > cap - 1) break; /* cut at a word boundary */
        if (len) out[len++] = '-';
        memcpy(out + len, word, wl);
        len += wl;
        out[len] = '\0';
        words++;
    }
}

/* The name part of a host or provider: "api.stripe.com" → "stripe", "bbc.co.uk" →
   "bbc", "amazonaws.com" → "amazonaws"; "api.video" stays "api.video". */
static void host_name(const char *host, char *out, size_t cap)
{
    out[0] = '\0';
    char h[256];
    size_t n = 0;
    for (const char *p = host; *p && *p != ':' && *p != '/' && n + 1 < sizeof h; p++)
        h[n++] = (char)tolower((unsigned char)*p);
    h[n] = '\0';
    if (!n || strchr(h, '{') || !strcmp(h, "localhost")) return;
    /* an IP address names no API */
    bool digits = true;
    for (size_t i = 0; i < n && digits; i++) digits = isdigit((unsigned char)h[i]) || h[i] == '.';
    if (digits) return;
    char *labels[16];
    size_t nl = 0;
    for (char *p = h; *p && nl < 16;) {
        labels[nl++] = p;
        char *dot = strchr(p, '.');
        if (!dot) break;
        *dot = '\0';
        p = dot + 1;
    }
    size_t first = 0, last = nl;
    /* the public suffix: ".com", or ".co.uk" / ".gov.in" (a generic label before a
       two-letter country) */
    if (last > 1) last--;
    static const char *const second[] = {"co", "com", "org", "net", "gov", "ac", "edu", NULL};
    if (last > 1 && strlen(labels[nl - 1]) == 2)
        for (size_t k = 0; second[k]; k++)
            if (!strcmp(labels[last - 1], second[k])) {
                last--;
                break;
            }
    while (first + 1 < last && (!strcmp(labels[first], "www") || !strcmp(labels[first], "api") ||
                                !strcmp(labels[first], "apis")))
        first++;
    if (first + 1 == last && (!strcmp(labels[first], "api") || !strcmp(labels[first], "www"))) {
        /* "api.video": the whole name is the brand */
        first = 0;
        last = nl;
        out[0] = '\0';
        for (size_t k = first; k < last; k++) {
            if (k) snprintf(out + strlen(out), cap - strlen(out), ".");
            slug_append(out + strlen(out), cap - strlen(out), labels[k], strlen(labels[k]), false,
                        4);
        }
        return;
    }
    for (size_t k = first; k < last; k++)
        slug_append(out, cap, labels[k], strlen(labels[k]), false, 4);
}

/* Cuts out to at most SPEC_ID_MAX characters at a '-' and trims what cannot end an id. */
static void id_finish(char *out)
{
    size_t n = strlen(out);
    if (n > SPEC_ID_MAX) {
        n = SPEC_ID_MAX;
        while (n > 8 && out[n] != '-') n--;
        if (out[n] != '-') n = SPEC_ID_MAX;
        out[n] = '\0';
    }
    while (n && !id_end_char(out[n - 1])) out[--n] = '\0';
    size_t s = 0;
    while (s < n && !id_end_char(out[s])) s++;
    if (s) memmove(out, out + s, n - s + 1);
}

/* The file name without directories and extension; a URL's last path segment. */
static void file_stem(const char *file, char *out, size_t cap)
{
    out[0] = '\0';
    if (!file) return;
    const char *end = file + strcspn(file, "?#");
    while (end > file && end[-1] == '/') end--;
    const char *base = end;
    while (base > file && base[-1] != '/') base--;
    const char *dot = NULL;
    for (const char *p = base; p < end; p++)
        if (*p == '.') dot = p;
    if (dot && dot > base) end = dot;
    slug_append(out, cap, base, (size_t)(end - base), false, 8);
}

void spec_id_propose(const spec_api *api, char out[SPEC_ID_MAX + 1])
{
    char buf[4 * SPEC_ID_MAX];
    buf[0] = '\0';
    if (api->provider && *api->provider) {
        host_name(api->provider, buf, sizeof buf);
        if (buf[0] && api->service && *api->service) {
            char svc[2 * SPEC_ID_MAX];
            svc[0] = '\0';
            slug_append(svc, sizeof svc, api->service, strlen(api->service), false, 8);
            /* "amadeus.com" + "amadeus-hotel-search": the provider once */
            size_t pl = strlen(buf);
            const char *s = svc;
            if (!strncmp(s, buf, pl) && s[pl] == '-') s += pl + 1;
            if (*s && strcmp(s, buf) != 0) snprintf(buf + pl, sizeof buf - pl, "-%s", s);
        }
    }
    if (!buf[0] && api->title)
        slug_append(buf, sizeof buf, api->title, strlen(api->title), true, 5);
    if (!buf[0] && api->n_servers && api->servers[0].url) {
        const char *u = api->servers[0].url;
        const char *p = strstr(u, "://");
        if (p) host_name(p + 3, buf, sizeof buf);
    }
    if (!buf[0]) file_stem(api->file, buf, sizeof buf);
    id_finish(buf);
    if (!buf[0]) snprintf(buf, sizeof buf, "api");
    size_t n = strlen(buf); /* id_finish cut it to SPEC_ID_MAX */
    memcpy(out, buf, n + 1);
}

int spec_id_unique(const char *proposed, bool (*taken)(void *ctx, const char *id), void *ctx,
                   char out[SPEC_ID_MAX + 1])
{
    snprintf(out, SPEC_ID_MAX + 1, "%s", proposed);
    if (!taken(ctx, out)) return 0;
    for (unsigned k = 2; k < 1000000; k++) {
        char suffix[16];
        int sl = snprintf(suffix, sizeof suffix, "-%u", k);
        size_t base = strlen(proposed);
        if (base + (size_t)sl > SPEC_ID_MAX) base = SPEC_ID_MAX - (size_t)sl;
        snprintf(out, SPEC_ID_MAX + 1, "%.*s%s", (int)base, proposed, suffix);
        if (!taken(ctx, out)) return 0;
    }
    return APIDEX_ELIMIT;
}
