/*
 * Benchmark: parse JSON documents into the tree (jt_doc_load) against json-c's tokener alone
 * (its own tree, nothing copied), medians of the same run; and what a parse charges to a
 * memory budget at its peak. With --tree-only json-c is not run, so the process's peak RSS
 * (printed last) is the tree's.
 *
 * usage: bench_core_json [--tree-only] [-r REPETITIONS] PATH...   (a PATH that is a folder
 * stands for every *.json file under it)
 */
#include "core/core.h"

#include <ftw.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static char **files;
static size_t n_files, cap_files;

static int add_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t len = strlen(path);
    if (type != FTW_F || len < 5 || strcmp(path + len - 5, ".json")) return 0;
    if (n_files == cap_files) {
        cap_files = cap_files ? cap_files * 2 : 256;
        files = realloc(files, cap_files * sizeof *files);
        if (!files) exit(3);
    }
    files[n_files++] = strdup(path);
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int reps = 5;
    bool tree_only = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tree-only")) {
            tree_only = true;
        } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else {
            struct stat st;
            if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
                nftw(argv[i], add_file, 16, FTW_PHYS);
            else
                add_file(argv[i], &st, FTW_F, NULL);
        }
    }
    if (!n_files || reps < 1) {
        fprintf(stderr, "usage: bench_core_json [--tree-only] [-r REPETITIONS] PATH...\n");
        return 2;
    }
    double *t_tree = calloc((size_t)reps, sizeof(double));
    double *t_jsonc = calloc((size_t)reps, sizeof(double));
    size_t bytes = 0, failed = 0, peak_max = 0;
    double peak_ratio = 0;
    const char *peak_file = "";
    for (int r = 0; r < reps; r++) {
        for (size_t f = 0; f < n_files; f++) {
            core_budget b = {.limit = (size_t)1 << 40}; /* a limit, so every charge is made */
            jt_limits lim = {.budget = &b};
            jt_doc *doc = NULL;
            apidex_error err;
            double t0 = now_ms();
            int rc = jt_doc_load(files[f], &lim, &doc, &err);
            t_tree[r] += now_ms() - t0;
            if (r == 0) {
                if (rc) failed++;
                size_t len = doc ? doc->text_len : 0;
                bytes += len;
                if (b.peak > peak_max) peak_max = b.peak;
                if (len && (double)b.peak / (double)len > peak_ratio) {
                    peak_ratio = (double)b.peak / (double)len;
                    peak_file = files[f];
                }
            }
            if (tree_only || !doc) {
                jt_doc_free(doc);
                continue;
            }
            t0 = now_ms();
            struct json_tokener *tok = json_tokener_new_ex(512);
            struct json_object *jo = json_tokener_parse_ex(tok, doc->text, (int)doc->text_len);
            json_object_put(jo);
            json_tokener_free(tok);
            t_jsonc[r] += now_ms() - t0;
            jt_doc_free(doc);
        }
    }
    double mt = median(t_tree, (size_t)reps), mj = median(t_jsonc, (size_t)reps);
    printf("%zu files, %.1f MB, %zu failed, %d repetitions\n", n_files, bytes / 1e6, failed, reps);
    printf("jt_doc_load (text to tree): %.1f ms median (%.0f MB/s)\n", mt, bytes / 1e3 / mt);
    if (!tree_only)
        printf("json-c tokener alone (its tree, no copy): %.1f ms median; ratio %.2f\n", mj,
               mt / mj);
    printf("charged at the peak: %.1f MB the largest; %.2f x the text at most (%s)\n",
           peak_max / 1e6, peak_ratio, peak_file);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS of the process: %.1f MB\n", ru.ru_maxrss / 1e3);
    return 0;
}
