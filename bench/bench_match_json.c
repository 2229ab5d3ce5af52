/* bench_match_json FILE: prints an OpenAPI document (JSON or YAML) as JSON, for the match
   benchmark's generator (bench/match_gen.py), which reads JSON only (python3 stdlib). */
#include "core/core.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_match_json FILE\n");
        return 2;
    }
    apidex_error err;
    core_error_clear(&err);
    jt_doc *doc = NULL;
    if (jt_doc_load(argv[1], NULL, &doc, &err)) {
        fprintf(stderr, "bench_match_json: %s: %s\n", argv[1], err.message);
        return 3;
    }
    core_buf b;
    core_buf_init(&b, 0);
    int rc = jt_write_json(&b, doc->root, 0);
    if (!rc) fwrite(b.data ? b.data : "", 1, b.len, stdout);
    core_buf_free(&b);
    jt_doc_free(doc);
    return rc ? 3 : 0;
}
