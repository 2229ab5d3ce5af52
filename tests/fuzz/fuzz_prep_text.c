/* Fuzz target for the prep text filters: any bytes, any filter set (first byte).
 * Filters only remove or shorten, so the output is never longer than the input. */
#include "prep/prep.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    prep_options opt = {.filters = data[0] | ((unsigned)(data[0] & 1) << 4)};
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    core_buf out;
    core_buf_init(&out, 0);
    prep_report rep = {0};
    if (prep_text(&opt, s, n, &out, &rep) == 0 && out.len > n) abort();
    core_buf_free(&out);
    return 0;
}
