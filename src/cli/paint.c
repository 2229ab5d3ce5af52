/*
 * --color: a pass over finished human text (search results, show) that adds ANSI colour.
 *
 * The renderers print plain text as before; when colour is on, their output is caught in
 * memory (glibc lets a program assign stdout) and painted line by line by its shape:
 * headings, "N. METHOD /path", section labels, and the quieter id / matched lines. So a
 * renderer never carries escape codes, JSON output never gets any, and a renderer that
 * changes keeps working (a line of a new shape is printed as it is).
 */
#include "cli/cli.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SGR_BOLD   "\033[1m"
#define SGR_DIM    "\033[2m"
#define SGR_METHOD "\033[1;36m"
#define SGR_HEAD   "\033[1;34m"
#define SGR_NOTE   "\033[33m"
#define SGR_OFF    "\033[0m"

static struct {
    FILE *saved;
    char *text;
    size_t len;
} capture;

FILE *cli_paint_begin(cli_color when)
{
    if (!cli_color_enabled(when, stdout) || capture.saved) return NULL;
    fflush(stdout);
    FILE *mem = open_memstream(&capture.text, &capture.len);
    if (!mem) return NULL;
    capture.saved = stdout;
    stdout = mem;
    return mem;
}

static bool is_method(const char *s, size_t n)
{
    static const char *const methods[] = {"GET",   "PUT",     "POST",  "DELETE", "HEAD",
                                          "PATCH", "OPTIONS", "TRACE", NULL};
    for (size_t i = 0; methods[i]; i++)
        if (strlen(methods[i]) == n && !strncmp(s, methods[i], n)) return true;
    return false;
}

/* "METHOD /path rest": the method coloured, the path bold. */
static bool paint_endpoint(FILE *out, const char *line, size_t len)
{
    const char *sp = memchr(line, ' ', len);
    if (!sp || !is_method(line, (size_t)(sp - line))) return false;
    const char *path = sp;
    while (path < line + len && *path == ' ') path++;
    if (path >= line + len || *path != '/') return false;
    const char *end = memchr(path, ' ', (size_t)(line + len - path));
    if (!end) end = line + len;
    fprintf(out, SGR_METHOD "%.*s" SGR_OFF "%.*s" SGR_BOLD "%.*s" SGR_OFF, (int)(sp - line), line,
            (int)(path - sp), sp, (int)(end - path), path);
    const char *rest = end;
    size_t rest_len = (size_t)(line + len - end);
    const char *note = rest_len ? strstr(rest, "(producer)") : NULL;
    if (note && note < line + len) {
        fprintf(out, "%.*s" SGR_NOTE "(producer)" SGR_OFF "%.*s", (int)(note - rest), rest,
                (int)(line + len - note - 10), note + 10);
    } else {
        fprintf(out, "%.*s", (int)rest_len, rest);
    }
    return true;
}

static bool is_label(const char *line, size_t len)
{
    if (len < 2 || !isupper((unsigned char)line[0]) || line[len - 1] != ':') return false;
    for (size_t i = 0; i + 1 < len; i++)
        if (!isalpha((unsigned char)line[i]) && line[i] != ' ') return false;
    return true;
}

static void paint_line(FILE *out, const char *line, size_t len)
{
    size_t ind = 0;
    while (ind < len && line[ind] == ' ') ind++;
    const char *body = line + ind;
    size_t blen = len - ind;
    if (!ind && blen && body[0] == '#') {
        fprintf(out, SGR_HEAD "%.*s" SGR_OFF, (int)len, line);
        return;
    }
    if (ind && (!strncmp(body, "id: ", 4) || !strncmp(body, "matched: ", 9))) {
        fprintf(out, SGR_DIM "%.*s" SGR_OFF, (int)len, line);
        return;
    }
    if (!ind && is_label(body, blen)) {
        fprintf(out, SGR_BOLD "%.*s" SGR_OFF, (int)len, line);
        return;
    }
    /* " 1. GET     /path  [api]" (search) or "GET /path - summary" (show). */
    size_t d = 0;
    while (d < blen && isdigit((unsigned char)body[d])) d++;
    if (d && d + 1 < blen && body[d] == '.' && body[d + 1] == ' ') {
        fprintf(out, "%.*s", (int)(ind + d + 2), line);
        if (paint_endpoint(out, body + d + 2, blen - d - 2)) return;
        fprintf(out, "%.*s", (int)(blen - d - 2), body + d + 2);
        return;
    }
    if (!ind && paint_endpoint(out, line, len)) return;
    fprintf(out, "%.*s", (int)len, line);
}

void cli_paint_end(FILE *mem)
{
    if (!mem) return;
    fclose(mem);
    stdout = capture.saved;
    capture.saved = NULL;
    const char *p = capture.text ? capture.text : "";
    const char *end = p + capture.len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        paint_line(stdout, p, len);
        if (nl) fputc('\n', stdout);
        p += len + (nl ? 1 : 0);
    }
    free(capture.text);
    capture.text = NULL;
    capture.len = 0;
}
