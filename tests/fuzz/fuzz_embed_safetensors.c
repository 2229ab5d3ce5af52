/*
 * libFuzzer target for the safetensors reader: arbitrary bytes as a whole file image. Parsing
 * must fail cleanly or yield tensors whose byte ranges lie inside the data; reading each float
 * tensor must then stay inside it too (ASan checks).
 */
#include "embed/embed_int.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private copy sized exactly, so any read past the image is an ASan report. */
    uint8_t *image = malloc(size ? size : 1);
    if (!image) return 0;
    memcpy(image, data, size);
    embed_st *st = NULL;
    apidex_error err = {0};
    if (embed_st_open_mem(image, size, "fuzz.safetensors", &st, &err) == 0) {
        for (size_t i = 0; i < st->n_tensors; i++) {
            const embed_st_tensor *t = &st->tensors[i];
            if (t->begin > t->end || t->end > st->data_len) abort();
            if (embed_st_find(st, t->name) == NULL) abort();
            if (t->numel > (1u << 20)) continue;
            float *out = malloc((size_t)(t->numel ? t->numel : 1) * sizeof *out);
            if (!out) continue;
            embed_st_read_f32(st, t, out, &err);
            free(out);
        }
        embed_st_close(st);
    } else if (err.code == 0 || !err.message[0]) {
        abort(); /* a failure must say why */
    }
    free(image);
    return 0;
}
