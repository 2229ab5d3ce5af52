/*
 * The operations apidex's loader makes of each document under the given inputs (files or
 * folders; OpenAPI, Swagger or Postman collections alike), for bench_postman.sh:
 * one line per operation, "FILE<TAB>METHOD<TAB>PATH", and "FILE<TAB>!failed" for a
 * document that could not be loaded.
 *
 * usage: bench_postman_ops INPUT...
 */
#include "oas/oas.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_postman_ops INPUT...\n");
        return 2;
    }
    int status = 0;
    for (int i = 1; i < argc; i++) {
        spec_registry *reg = NULL;
        apidex_error err;
        if (spec_registry_new(NULL, &reg, &err) || spec_registry_add(reg, argv[i], &err)) {
            fprintf(stderr, "bench_postman_ops: %s: %s\n", argv[i], err.message);
            spec_registry_free(reg);
            status = 1;
            continue;
        }
        for (size_t a = 0; a < spec_registry_count(reg); a++) {
            const spec_api *api = spec_registry_api(reg, a);
            if (api->failed) printf("%s\t!failed\n", api->file);
            for (size_t k = 0; k < api->n_ops; k++)
                printf("%s\t%s\t%s\n", api->file, api->ops[k].method, api->ops[k].path);
        }
        spec_registry_free(reg);
    }
    return status;
}
