/*
 * Benchmark: load + resolve every spec of the shared corpus (spec_load_file) against
 * parsing the same files with the raw libraries alone (json-c trees, libfyaml
 * documents; libfyaml events as a second, cheaper baseline), in the same run.
 *
 * usage: bench_spec_load [SHARED_DIR] [REPETITIONS]   (SHARED_DIR defaults to
 * $APIDEX_SHARED_DIR, else ../shared next to the sources). Prints medians and ratios.
 */
#include "oas/oas.h"

#include <dirent.h>
#include <json-c/json.h>
#include <libfyaml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct file_list {
    char **v;
    size_t n, cap;
} file_list;

static void list_add(file_list *l, const char *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) exit(3);
    }
    l->v[l->n++] = strdup(p);
}

/* Every .json/.yaml/.yml file under dir (what loading the corpus reads). */
static void list_files(file_list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p) continue;
        struct stat st;
        if (stat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            list_files(l, p);
            continue;
        }
        const char *dot = strrchr(e->d_name, '.');
        if (dot && (!strcmp(dot, ".json") || !strcmp(dot, ".yaml") || !strcmp(dot, ".yml")))
            list_add(l, p);
    }
    closedir(d);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool looks_json(const char *t, size_t n)
{
    size_t i = 0;
    if (n >= 3 && !memcmp(t, "\xEF\xBB\xBF", 3)) i = 3;
    while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) i++;
    return i < n && (t[i] == '{' || t[i] == '[');
}

/* Raw parse of every file: read it, build the library's own tree (or only its events). */
static double raw_parse(const file_list *files, bool yaml_events, size_t *bytes)
{
    double t0 = core_now();
    *bytes = 0;
    for (size_t i = 0; i < files->n; i++) {
        char *text;
        size_t len;
        if (core_file_read(files->v[i], 0, &text, &len, NULL)) continue;
        *bytes += len;
        if (looks_json(text, len)) {
            struct json_tokener *tok = json_tokener_new_ex(512);
            struct json_object *jo = json_tokener_parse_ex(tok, text, (int)len);
            json_object_put(jo);
            json_tokener_free(tok);
        } else if (yaml_events) {
            struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET};
            struct fy_parser *fyp = fy_parser_create(&cfg);
            if (fyp && fy_parser_set_string(fyp, text, len) == 0) {
                struct fy_event *ev;
                while ((ev = fy_parser_parse(fyp)) != NULL) fy_parser_event_free(fyp, ev);
            }
            fy_parser_destroy(fyp);
        } else {
            struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET};
            struct fy_document *fyd = fy_document_build_from_string(&cfg, text, len);
            fy_document_destroy(fyd);
        }
        free(text);
    }
    return core_now() - t0;
}

/* The core parser alone (jt_doc_load: json-c or libfyaml events into jt_node trees). */
static double core_parse(const file_list *files)
{
    double t0 = core_now();
    for (size_t i = 0; i < files->n; i++) {
        jt_doc *doc;
        if (jt_doc_load(files->v[i], NULL, &doc, NULL) == 0) jt_doc_free(doc);
    }
    return core_now() - t0;
}

static double load_all(char **roots, size_t n, size_t *ops)
{
    double t0 = core_now();
    *ops = 0;
    for (size_t i = 0; i < n; i++) {
        spec_registry *reg;
        apidex_error err;
        if (spec_load_file(roots[i], NULL, &reg, &err)) {
            fprintf(stderr, "bench: %s: %s\n", roots[i], err.message);
            continue;
        }
        *ops += spec_registry_api(reg, 0)->n_ops;
        spec_registry_free(reg);
    }
    return core_now() - t0;
}

int main(int argc, char **argv)
{
    const char *shared = argc > 1 ? argv[1] : getenv("APIDEX_SHARED_DIR");
    char dflt[4096];
    if (!shared) {
        snprintf(dflt, sizeof dflt, "%s/../shared", APIDEX_SOURCE_DIR);
        shared = dflt;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (reps < 1 || reps > 1000) reps = 5;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/corpus/MANIFEST.json", shared) >= (int)sizeof path)
        return 2;
    jt_doc *manifest;
    apidex_error err;
    if (jt_doc_load(path, NULL, &manifest, &err)) {
        fprintf(stderr, "bench: %s: %s\n", path, err.message);
        return 2;
    }
    size_t n = manifest->root->len;
    char **roots = calloc(n, sizeof *roots);
    for (size_t i = 0; i < n; i++) {
        char p[4096];
        if (snprintf(p, sizeof p, "%s/corpus/specs/%s", shared,
                     jt_get_str(jt_at(manifest->root, i), "root")) >= (int)sizeof p)
            return 2;
        roots[i] = strdup(p);
    }
    jt_doc_free(manifest);
    file_list files = {0};
    if (snprintf(path, sizeof path, "%s/corpus/specs", shared) >= (int)sizeof path) return 2;
    list_files(&files, path);

    double *t_tree = calloc((size_t)reps, sizeof(double));
    double *t_events = calloc((size_t)reps, sizeof(double));
    double *t_load = calloc((size_t)reps, sizeof(double));
    double *t_core = calloc((size_t)reps, sizeof(double));
    size_t bytes = 0, ops = 0;
    load_all(roots, n, &ops); /* warm the page cache and the allocator */
    for (int r = 0; r < reps; r++) {
        t_tree[r] = raw_parse(&files, false, &bytes);
        t_events[r] = raw_parse(&files, true, &bytes);
        t_load[r] = load_all(roots, n, &ops);
        t_core[r] = core_parse(&files);
    }
    double tree = median(t_tree, reps), events = median(t_events, reps),
           load = median(t_load, reps), core = median(t_core, reps);
    double mb = (double)bytes / 1e6;
    printf("corpus: %zu specs, %zu files, %.1f MB, %zu operations; %d repetitions (medians)\n", n,
           files.n, mb, ops, reps);
    printf("raw parse (json-c + libfyaml documents): %8.1f ms  %6.1f MB/s\n", tree * 1e3,
           mb / tree);
    printf("raw parse (json-c + libfyaml events):    %8.1f ms  %6.1f MB/s\n", events * 1e3,
           mb / events);
    printf("apidex core parse only (jt_doc_load):    %8.1f ms  %6.1f MB/s\n", core * 1e3,
           mb / core);
    printf("apidex load + resolve + model:           %8.1f ms  %6.1f MB/s\n", load * 1e3,
           mb / load);
    printf("ratio load / raw documents: %.2fx   load / raw events: %.2fx\n", load / tree,
           load / events);
    for (size_t i = 0; i < n; i++) free(roots[i]);
    free(roots);
    for (size_t i = 0; i < files.n; i++) free(files.v[i]);
    free(files.v);
    free(t_tree);
    free(t_events);
    free(t_load);
    free(t_core);
    return 0;
}
